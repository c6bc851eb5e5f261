/*
 * rt_mcast.c — one value to many processors: the per-step multicast of an exported program.
 * During a step a rank puts each record once with the range of ranks lo .. hi that need it (LU's
 * pivot row or column: every rank, or the ranks still holding columns); at the end of the step
 * rt_mcast_run delivers every rank's records: one MPI_Allgather of the ranges and counts (4 per
 * rank a round; more rounds only when a rank has more), then one MPI_Bcast per (sender, range): on the
 * communicator itself when the sender and the range cover it, else on a sub-communicator of just
 * those ranks (MPI_Comm_split the first time a range occurs, kept for the later steps).  No
 * record is copied once per receiver, as the per-destination exchange (rt_exchange.c) would, and
 * none after it arrives: the broadcasts land in the received records, room made for all of them
 * first (rt_malloc_pages: a large buffer's first touches are inside the timed steps).
 *
 * Records carry a global index (the receiver finds its own storage from it) and the value.
 * Ownership: rt_mcast_new returns an object the caller frees with rt_mcast_free (before
 * MPI_Finalize: it owns an MPI datatype and the sub-communicators); received records live in it
 * until the next run.
 */
#include "rt.h"

#include <stdlib.h>
#include <string.h>

enum { RT_MC_ROUND = 4, RT_MC_HEAD = 2 + 3 * RT_MC_ROUND };   /* runs a round; a rank's header */

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
    int *head, hcap;             /* all ranks' headers of a round (rt_mcast_run) */
    rt_record *recv;             /* the records for this rank (rcap of them) */
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
    free(m->head);
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
    if (r->n == r->cap) {   /* twice the room, moved (not realloc: rt_malloc_pages) */
        r->cap = r->cap ? 2 * r->cap : 256;
        rt_record *rec = rt_malloc_pages(r->cap * sizeof *rec);
        if (r->n) memcpy(rec, r->rec, r->n * sizeof *rec);
        free(r->rec);
        r->rec = rec;
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

/* The broadcasts of one sender's run (h: lo, hi, count): its records, or those this rank
 * receives, straight into its received records (rt_mcast_room made room for them). */
static void rt_mcast_deliver(rt_mcast *m, int s, const int *h, rt_record *mine)
{
    int lo = h[0], hi = h[1], n = h[2], subroot;
    if (n == 0) return;
    MPI_Comm c = rt_mcast_comm_of(m, s, lo, hi, &subroot);
    if (c == MPI_COMM_NULL) return;
    /* every rank of c but the sender is in lo .. hi (rt_mcast_comm_of) */
    rt_record *rec = s == m->rank ? mine : m->recv + m->nrecv;
    RT_CHECK(MPI_Bcast(rec, n, m->rec_type, subroot, c));
    if (s != m->rank) m->nrecv += (size_t)n;
}

/* Room in the received records for every run the headers of `rounds` rounds send this rank:
 * the records arrive where they stay. */
static void rt_mcast_room(rt_mcast *m, int rounds)
{
    size_t want = 0;
    for (int s = 0; s < m->size; s++)
        for (int r = 0; s != m->rank && r < rounds; r++) {
            const int *h = m->head + RT_MC_HEAD * (m->size * r + s);
            for (int k = 0; k < h[0]; k++)
                if (m->rank >= h[2 + 3 * k] && m->rank <= h[3 + 3 * k]) want += (size_t)h[4 + 3 * k];
        }
    if (want > m->rcap) {
        free(m->recv);
        m->rcap = want;
        m->recv = rt_malloc_pages(m->rcap * sizeof *m->recv);
    }
}

/* Rounds of one MPI_Allgather each: every rank's next RT_MC_ROUND runs (lo, hi, count) and
 * whether more follow (one round in the usual step); then the broadcasts, senders in rank order,
 * each sender's runs in the order their ranges first occurred. */
void rt_mcast_run(rt_mcast *m)
{
    m->nrecv = 0;
    int rounds = 0;
    for (int more = 1; more; rounds++) {
        int first = rounds * RT_MC_ROUND, mine[RT_MC_HEAD] = {0};
        int nr = m->nruns - first < RT_MC_ROUND ? m->nruns - first : RT_MC_ROUND;
        if (nr < 0) nr = 0;
        mine[0] = nr;
        mine[1] = m->nruns > first + nr;
        for (int k = 0; k < nr; k++) {
            mine[2 + 3 * k] = m->runs[first + k].lo;
            mine[3 + 3 * k] = m->runs[first + k].hi;
            mine[4 + 3 * k] = (int)m->runs[first + k].n;
        }
        if (m->hcap < RT_MC_HEAD * m->size * (rounds + 1)) {
            m->hcap = RT_MC_HEAD * m->size * (rounds + 1);
            m->head = mc_realloc(m->head, (size_t)m->hcap * sizeof *m->head);
        }
        int *all = m->head + RT_MC_HEAD * m->size * rounds;
        RT_CHECK(MPI_Allgather(mine, RT_MC_HEAD, MPI_INT, all, RT_MC_HEAD, MPI_INT, m->comm));
        more = 0;
        for (int s = 0; s < m->size; s++) more |= all[RT_MC_HEAD * s + 1];
    }
    rt_mcast_room(m, rounds);
    for (int s = 0; s < m->size; s++)
        for (int r = 0; r < rounds; r++) {
            const int *h = m->head + RT_MC_HEAD * (m->size * r + s);
            for (int k = 0; k < h[0]; k++)
                rt_mcast_deliver(m, s, h + 2 + 3 * k, s == m->rank ? m->runs[r * RT_MC_ROUND + k].rec : NULL);
        }
    m->nruns = 0;
}

size_t rt_mcast_received(const rt_mcast *m, const rt_record **recs)
{
    *recs = m->recv;
    return m->nrecv;
}
