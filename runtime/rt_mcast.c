/*
 * rt_mcast.c — one value to many processors: the per-step multicast of an exported program.
 * During a step a rank puts each record once with the range of ranks lo .. hi that need it (LU's
 * pivot row or column: every rank, or the ranks still holding columns); at the end of the step
 * rt_mcast_run delivers every rank's records with one MPI_Bcast per (sender, range): on the
 * communicator itself when the sender and the range cover it, else on a sub-communicator of just
 * those ranks (MPI_Comm_split the first time a range occurs, kept for the later steps).  No
 * record is copied once per receiver, as the per-destination exchange (rt_exchange.c) would.
 *
 * Records carry a global index (the receiver finds its own storage from it) and the value.
 * Ownership: rt_mcast_new returns an object the caller frees with rt_mcast_free (before
 * MPI_Finalize: it owns an MPI datatype and the sub-communicators); received records live in it
 * until the next run.
 */
#include "rt.h"

#include <stdlib.h>
#include <string.h>

typedef struct rt_mcast_run_t {   /* the records of one destination range */
    int lo, hi;
    rt_record *rec;
    size_t n, cap;
} rt_mcast_run_t;

typedef struct rt_mcast_comm {   /* a sub-communicator: a sender and the range it serves */
    int root, lo, hi;
    MPI_Comm comm;               /* MPI_COMM_NULL on ranks outside it */
} rt_mcast_comm;

struct rt_mcast {
    MPI_Comm comm;
    int size, rank;
    MPI_Datatype rec_type;
    rt_mcast_run_t *runs;        /* this rank's, this step */
    int nruns, cruns;
    int *nall, *displ;           /* size each: runs per rank, and where their headers start */
    int *head, hcap;             /* all ranks' run headers (lo, hi, count) */
    rt_record *buf;              /* one broadcast's records */
    size_t bcap;
    rt_record *recv;             /* the records for this rank */
    size_t nrecv, rcap;
    rt_mcast_comm *subs;
    int nsubs, csubs;
};

static void *mc_realloc(void *p, size_t bytes)
{
    void *q = realloc(p, bytes ? bytes : 1);
    if (!q) rt_die("out of memory (%zu bytes)", bytes);
    return q;
}

rt_mcast *rt_mcast_new(MPI_Comm comm)
{
    rt_mcast *m = rt_calloc(1, sizeof *m);
    m->comm = comm;
    RT_CHECK(MPI_Comm_size(comm, &m->size));
    RT_CHECK(MPI_Comm_rank(comm, &m->rank));
    m->rec_type = rt_record_type();
    m->nall = rt_calloc((size_t)m->size, sizeof *m->nall);
    m->displ = rt_calloc((size_t)m->size, sizeof *m->displ);
    return m;
}

void rt_mcast_free(rt_mcast *m)
{
    if (!m) return;
    for (int k = 0; k < m->cruns; k++) free(m->runs[k].rec);
    for (int k = 0; k < m->nsubs; k++)
        if (m->subs[k].comm != MPI_COMM_NULL) MPI_Comm_free(&m->subs[k].comm);
    MPI_Type_free(&m->rec_type);
    free(m->runs);
    free(m->nall);
    free(m->displ);
    free(m->head);
    free(m->buf);
    free(m->recv);
    free(m->subs);
    free(m);
}

/* The run of range lo .. hi this step (a new one when the range is new). */
static rt_mcast_run_t *rt_mcast_find(rt_mcast *m, int lo, int hi)
{
    for (int k = 0; k < m->nruns; k++)
        if (m->runs[k].lo == lo && m->runs[k].hi == hi) return &m->runs[k];
    if (m->nruns == m->cruns) {
        m->cruns = m->cruns ? 2 * m->cruns : 4;
        m->runs = mc_realloc(m->runs, (size_t)m->cruns * sizeof *m->runs);
        memset(m->runs + m->nruns, 0, (size_t)(m->cruns - m->nruns) * sizeof *m->runs);
    }
    rt_mcast_run_t *r = &m->runs[m->nruns++];
    r->lo = lo;
    r->hi = hi;
    r->n = 0;
    return r;
}

void rt_mcast_put(rt_mcast *m, int lo, int hi, int64_t index, double value)
{
    if (lo < 0) lo = 0;
    if (hi > m->size - 1) hi = m->size - 1;
    if (hi < lo || (lo == hi && lo == m->rank)) return;   /* nobody else */
    rt_mcast_run_t *r = rt_mcast_find(m, lo, hi);
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 256;
        r->rec = mc_realloc(r->rec, r->cap * sizeof *r->rec);
    }
    r->rec[r->n].index = index;
    r->rec[r->n++].value = value;
}

void rt_mcast_put_int(rt_mcast *m, int lo, int hi, int64_t index, int64_t value)
{
    double bits;
    memcpy(&bits, &value, sizeof bits);
    rt_mcast_put(m, lo, hi, index, bits);
}

/* The communicator of a broadcast from root to lo .. hi: comm itself when they are all of it,
 * else the sub-communicator (made by every rank together the first time: every rank knows every
 * header, so every rank calls MPI_Comm_split here at the same point). */
static MPI_Comm rt_mcast_comm_of(rt_mcast *m, int root, int lo, int hi, int *subroot)
{
    int all = lo == 0 && hi == m->size - 1;
    if (all || (lo == 1 && hi == m->size - 1 && root == 0) || (lo == 0 && hi == m->size - 2 && root == m->size - 1)) {
        *subroot = root;
        return m->comm;
    }
    *subroot = 0;   /* the sender's key sorts it first */
    for (int k = 0; k < m->nsubs; k++)
        if (m->subs[k].root == root && m->subs[k].lo == lo && m->subs[k].hi == hi) return m->subs[k].comm;
    if (m->nsubs == m->csubs) {
        m->csubs = m->csubs ? 2 * m->csubs : 8;
        m->subs = mc_realloc(m->subs, (size_t)m->csubs * sizeof *m->subs);
    }
    int in = m->rank == root || (m->rank >= lo && m->rank <= hi);
    rt_mcast_comm *c = &m->subs[m->nsubs++];
    c->root = root;
    c->lo = lo;
    c->hi = hi;
    RT_CHECK(MPI_Comm_split(m->comm, in ? 1 : MPI_UNDEFINED, m->rank == root ? -1 : m->rank, &c->comm));
    return c->comm;
}

static void rt_mcast_keep(rt_mcast *m, const rt_record *rec, size_t n)
{
    if (m->nrecv + n > m->rcap) {
        while (m->nrecv + n > m->rcap) m->rcap = m->rcap ? 2 * m->rcap : 256;
        m->recv = mc_realloc(m->recv, m->rcap * sizeof *m->recv);
    }
    memcpy(m->recv + m->nrecv, rec, n * sizeof *rec);
    m->nrecv += n;
}

void rt_mcast_run(rt_mcast *m)
{
    int mine[3 * 64], nmine = m->nruns;   /* more ranges in one step than 64: several rounds */
    m->nrecv = 0;
    int first = 0;
    do {
        int nr = nmine - first < 64 ? nmine - first : 64;
        if (nr < 0) nr = 0;
        for (int k = 0; k < nr; k++) {
            mine[3 * k] = m->runs[first + k].lo;
            mine[3 * k + 1] = m->runs[first + k].hi;
            mine[3 * k + 2] = (int)m->runs[first + k].n;
        }
        RT_CHECK(MPI_Allgather(&nr, 1, MPI_INT, m->nall, 1, MPI_INT, m->comm));
        int total = 0, more = 0;
        for (int s = 0; s < m->size; s++) {
            m->displ[s] = 3 * total;
            total += m->nall[s];
            more |= m->nall[s] == 64;
        }
        if (3 * total > m->hcap) {
            m->hcap = 3 * total;
            m->head = mc_realloc(m->head, (size_t)m->hcap * sizeof *m->head);
        }
        int *counts = rt_malloc((size_t)m->size * sizeof *counts);
        for (int s = 0; s < m->size; s++) counts[s] = 3 * m->nall[s];
        RT_CHECK(MPI_Allgatherv(mine, 3 * nr, MPI_INT, m->head, counts, m->displ, MPI_INT, m->comm));
        free(counts);
        for (int s = 0; s < m->size; s++)
            for (int k = 0; k < m->nall[s]; k++) {
                const int *h = m->head + m->displ[s] + 3 * k;
                int lo = h[0], hi = h[1], n = h[2], subroot;
                if (n == 0) continue;
                MPI_Comm c = rt_mcast_comm_of(m, s, lo, hi, &subroot);
                if (c == MPI_COMM_NULL) continue;
                rt_record *rec = s == m->rank ? m->runs[first + k].rec : NULL;
                if (s != m->rank) {
                    if ((size_t)n > m->bcap) {
                        m->bcap = (size_t)n;
                        m->buf = mc_realloc(m->buf, m->bcap * sizeof *m->buf);
                    }
                    rec = m->buf;
                }
                RT_CHECK(MPI_Bcast(rec, n, m->rec_type, subroot, c));
                if (s != m->rank && m->rank >= lo && m->rank <= hi) rt_mcast_keep(m, rec, (size_t)n);
            }
        first += nr;
        if (!more) break;
    } while (1);
    m->nruns = 0;
}

size_t rt_mcast_received(const rt_mcast *m, const rt_record **recs)
{
    *recs = m->recv;
    return m->nrecv;
}
