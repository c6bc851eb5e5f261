/*
 * rt_pattern.c — the exchange of a static partner set: the same elements go to the same ranks
 * at every step (a halo, in general form).  The pattern is recorded once (rt_pattern_add: which
 * element of which array goes to which rank, and where the receiver stores it), committed once
 * (the receivers learn where to store what they will get), and then every exchange moves only
 * values, one message per (partner, array), with Isend/Irecv/Waitall.
 *
 * Aggregated (rt_pattern_aggregate before the commit; the aggregation placement, `messages
 * aggregate`): one message per partner, every array's elements in it.  A partner's message is
 * then a list of segments, one an array (its elements in the order of the plain message); a
 * message of one segment still travels in place, one of several is packed into one buffer.
 *
 * A message whose elements lie at equal strides on both sides (a row: stride 1; a column of a
 * row-major tile: stride = the row length) is sent and received in place with an MPI vector
 * datatype, no copy; any other message is packed and unpacked through its index lists.
 * An exchange is rt_pattern_post (receives and sends posted) then rt_pattern_wait (completed):
 * the overlap placement computes its interior between the two.
 * Ownership: rt_pattern_new returns an object the caller frees with rt_pattern_free (before
 * MPI_Finalize: it owns MPI datatypes).
 */
#include "rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RT_TAG_PATTERN = 9202 };   /* the commit's messages (an exchange's tags are array numbers;
                                     aggregated, narrays) */

typedef struct rt_pentry {
    int peer, array;
    int64_t send_off, recv_off;
} rt_pentry;

/* One message: to or from one peer, elements of one array (aggregated: of nseg arrays, seg_array[i]
 * the array of seg_len[i] consecutive elements; array is then the first). */
typedef struct rt_pmsg {
    int peer, array, count;
    int nseg, *seg_array, *seg_len;
    int64_t *off;             /* count offsets in this rank's array (send: read, recv: write) */
    int64_t start;            /* strided: first offset; the datatype covers the rest */
    MPI_Datatype type;        /* strided: a vector type (RT_WORD when contiguous); MPI_DATATYPE_NULL when packed */
    int tcount;               /* how many `type`s: count when contiguous, else 1 */
    int own_type;             /* type was created here (free it) */
    int64_t *buf;             /* packed: count words */
} rt_pmsg;

static void rt_pattern_stats(const struct rt_pattern *p);

struct rt_pattern {
    MPI_Comm comm;
    int rank, size, narrays;
    rt_pentry *e;             /* recorded entries (freed at commit) */
    size_t n, cap;
    rt_pmsg *send, *recv;
    int nsend, nrecv;
    int64_t *self_from, *self_to;   /* copies within this rank: pairs of offsets */
    int *self_array;
    int nself;
    MPI_Request *req;
    int nreq, posted;         /* the requests of a posted exchange (rt_pattern_post) */
    int64_t sent;             /* elements sent per exchange */
    int committed;
    int aggregate;            /* one message per peer (rt_pattern_aggregate) */
};

rt_pattern *rt_pattern_new(MPI_Comm comm, int narrays)
{
    rt_pattern *p = rt_calloc(1, sizeof *p);
    p->comm = comm;
    p->rank = rt_rank(comm);
    p->size = rt_size(comm);
    p->narrays = narrays;
    return p;
}

void rt_pattern_aggregate(rt_pattern *p)
{
    if (p->committed) rt_die("rt_pattern_aggregate after rt_pattern_commit");
    p->aggregate = 1;
}

void rt_pattern_add(rt_pattern *p, int dest, int array, int64_t send_off, int64_t recv_off)
{
    if (p->committed) rt_die("rt_pattern_add after rt_pattern_commit");
    if (dest < 0 || dest >= p->size || array < 0 || array >= p->narrays)
        rt_die("rt_pattern_add: destination %d or array %d out of range", dest, array);
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 256;
        rt_pentry *e = rt_malloc(p->cap * sizeof *e);
        if (p->n) memcpy(e, p->e, p->n * sizeof *e);
        free(p->e);
        p->e = e;
    }
    p->e[p->n++] = (rt_pentry){dest, array, send_off, recv_off};
}

static int rt_pentry_cmp(const void *a, const void *b)
{
    const rt_pentry *x = a, *y = b;
    if (x->peer != y->peer) return x->peer < y->peer ? -1 : 1;
    if (x->array != y->array) return x->array < y->array ? -1 : 1;
    if (x->recv_off != y->recv_off) return x->recv_off < y->recv_off ? -1 : 1;
    return 0;
}

/* A vector datatype when the offsets are equally spaced (stride > 0), else packing. */
static void rt_pmsg_layout(rt_pmsg *m)
{
    m->start = m->count ? m->off[0] : 0;
    m->type = MPI_DATATYPE_NULL;
    m->buf = NULL;
    int64_t stride = m->count > 1 ? m->off[1] - m->off[0] : 1;
    int even = stride > 0 && stride < INT32_MAX && m->nseg <= 1;   /* several arrays: packed */
    for (int i = 2; even && i < m->count; i++)
        if (m->off[i] - m->off[i - 1] != stride) even = 0;
    if (even && stride == 1) {          /* a row: plain words */
        m->type = RT_WORD;
        m->tcount = m->count;
    } else if (even) {                  /* a column: a vector type, no copy */
        RT_CHECK(MPI_Type_vector(m->count, 1, (int)stride, RT_WORD, &m->type));
        RT_CHECK(MPI_Type_commit(&m->type));
        m->tcount = 1;
        m->own_type = 1;
    } else {
        m->buf = rt_malloc((size_t)m->count * sizeof *m->buf);
    }
}

/* Does entry i start a new message (a new peer; a new array unless aggregated)? */
static int rt_starts(const rt_pentry *e, size_t i, int aggregate)
{
    return i == 0 || e[i].peer != e[i - 1].peer || (!aggregate && e[i].array != e[i - 1].array);
}

/* The segments of message m, whose entries are e[0 .. m->count): one a run of one array. */
static void rt_pmsg_segments(rt_pmsg *m, const rt_pentry *e)
{
    m->nseg = 0;
    for (int i = 0; i < m->count; i++) m->nseg += i == 0 || e[i].array != e[i - 1].array;
    m->seg_array = rt_malloc((size_t)(m->nseg ? m->nseg : 1) * sizeof(int));
    m->seg_len = rt_calloc((size_t)(m->nseg ? m->nseg : 1), sizeof(int));
    for (int i = 0, s = -1; i < m->count; i++) {
        if (i == 0 || e[i].array != e[i - 1].array) m->seg_array[++s] = e[i].array;
        m->seg_len[s]++;
    }
}

/* Splits sorted entries of one side into messages per (peer, array), or per peer (aggregate). */
static int rt_split(const rt_pentry *e, size_t n, int use_send_off, int aggregate, rt_pmsg **out)
{
    int nm = 0;
    for (size_t i = 0; i < n; i++) nm += rt_starts(e, i, aggregate);
    rt_pmsg *m = rt_calloc((size_t)(nm ? nm : 1), sizeof *m);
    int k = 0;
    for (size_t i = 0, j; i < n; i = j, k++) {
        for (j = i + 1; j < n && !rt_starts(e, j, aggregate); j++) {}
        if (j - i > INT32_MAX) rt_die("rt_pattern: a message of more than 2^31 elements");
        m[k].peer = e[i].peer;
        m[k].array = e[i].array;
        m[k].count = (int)(j - i);
        m[k].off = rt_malloc((j - i) * sizeof(int64_t));
        for (size_t x = i; x < j; x++) m[k].off[x - i] = use_send_off ? e[x].send_off : e[x].recv_off;
        rt_pmsg_segments(&m[k], e + i);
        rt_pmsg_layout(&m[k]);
    }
    *out = m;
    return nm;
}

void rt_pattern_commit(rt_pattern *p)
{
    if (p->committed) rt_die("rt_pattern_commit called twice");
    p->committed = 1;
    if (p->n) qsort(p->e, p->n, sizeof *p->e, rt_pentry_cmp);
    /* drop repeated entries (one element sent twice to one place), set self copies apart */
    size_t w = 0, nself = 0;
    for (size_t i = 0; i < p->n; i++) {
        if (w && rt_pentry_cmp(&p->e[w - 1], &p->e[i]) == 0) continue;
        p->e[w++] = p->e[i];
    }
    p->n = w;
    for (size_t i = 0; i < p->n; i++) if (p->e[i].peer == p->rank) nself++;
    p->self_from = rt_malloc((nself ? nself : 1) * sizeof(int64_t));
    p->self_to = rt_malloc((nself ? nself : 1) * sizeof(int64_t));
    p->self_array = rt_malloc((nself ? nself : 1) * sizeof(int));
    w = 0;
    for (size_t i = 0; i < p->n; i++) {
        if (p->e[i].peer == p->rank) {
            p->self_from[p->nself] = p->e[i].send_off;
            p->self_to[p->nself] = p->e[i].recv_off;
            p->self_array[p->nself++] = p->e[i].array;
        } else {
            p->e[w++] = p->e[i];
        }
    }
    p->n = w;
    p->nsend = rt_split(p->e, p->n, 1, p->aggregate, &p->send);
    p->sent = (int64_t)p->n;

    /* tell every receiver where it stores what it gets: (array, recv_off) pairs, in send order,
     * one message per partner.  How many partners send here comes from a reduce-scatter of
     * 0/1 flags; the messages are then received from any source.  (An Alltoall of counts and an
     * Alltoallv would do it in two calls, but SimGrid waits for those with a waitany over all
     * ranks' requests: at 1024 ranks most of a run's time.) */
    int *sends_to = rt_calloc((size_t)p->size, sizeof(int)), nsenders = 0;
    for (size_t i = 0; i < p->n; i++) sends_to[p->e[i].peer] = 1;
    RT_CHECK(MPI_Reduce_scatter_block(sends_to, &nsenders, 1, MPI_INT, MPI_SUM, p->comm));
    int64_t *sb = rt_malloc((2 * p->n + 1) * sizeof(int64_t));
    MPI_Request *sreq = rt_malloc(((size_t)p->nsend + 1) * sizeof(MPI_Request));
    int nsreq = 0;
    for (size_t i = 0, j; i < p->n; i = j) {   /* entries are sorted by peer: one run a partner */
        for (j = i; j < p->n && p->e[j].peer == p->e[i].peer; j++) {
            sb[2 * j] = p->e[j].array;
            sb[2 * j + 1] = p->e[j].recv_off;
        }
        if ((size_t)nsreq == (size_t)p->nsend + 1) rt_die("rt_pattern_commit: more partners than messages");
        RT_CHECK(MPI_Isend(sb + 2 * i, (int)(2 * (j - i)), MPI_INT64_T, p->e[i].peer, RT_TAG_PATTERN, p->comm,
                           &sreq[nsreq++]));
    }
    int64_t **from = rt_calloc((size_t)p->size, sizeof *from);
    int *nfrom = rt_calloc((size_t)p->size, sizeof(int));
    size_t nr = 0;
    for (int k = 0; k < nsenders; k++) {
        MPI_Status st;
        int words = 0;
        RT_CHECK(MPI_Probe(MPI_ANY_SOURCE, RT_TAG_PATTERN, p->comm, &st));
        RT_CHECK(MPI_Get_count(&st, MPI_INT64_T, &words));
        if (from[st.MPI_SOURCE]) rt_die("rt_pattern_commit: two patterns from rank %d", st.MPI_SOURCE);
        from[st.MPI_SOURCE] = rt_malloc(((size_t)words + 1) * sizeof(int64_t));
        nfrom[st.MPI_SOURCE] = words;
        RT_CHECK(MPI_Recv(from[st.MPI_SOURCE], words, MPI_INT64_T, st.MPI_SOURCE, RT_TAG_PATTERN, p->comm,
                          MPI_STATUS_IGNORE));
        nr += (size_t)words / 2;
    }
    RT_CHECK(MPI_Waitall(nsreq, sreq, MPI_STATUSES_IGNORE));
    rt_pentry *re = rt_malloc((nr ? nr : 1) * sizeof *re);
    size_t k = 0;
    for (int r = 0; r < p->size; r++) {   /* in rank order, as the senders' order within each */
        for (int i = 0; i + 1 < nfrom[r]; i += 2, k++) re[k] = (rt_pentry){r, (int)from[r][i], 0, from[r][i + 1]};
        free(from[r]);
    }
    free(from);
    free(nfrom);
    free(sreq);
    free(sends_to);
    p->nrecv = rt_split(re, nr, 0, p->aggregate, &p->recv);
    rt_pattern_stats(p);
    free(re);
    free(sb);
    free(p->e);
    p->e = NULL;
    p->req = rt_malloc((size_t)(p->nsend + p->nrecv + 1) * sizeof(MPI_Request));
}

/* Copies a packed message's elements between the arrays and its buffer, segment by segment
 * (to_buf: packing before the send, else unpacking after the receive). */
static void rt_pmsg_copy(rt_pmsg *m, double *const *base, int to_buf)
{
    for (int s = 0, j = 0; s < m->nseg; s++) {
        double *a = base[m->seg_array[s]];
        for (int end = j + m->seg_len[s]; j < end; j++) {
            if (to_buf) memcpy(&m->buf[j], &a[m->off[j]], sizeof m->buf[j]);
            else memcpy(&a[m->off[j]], &m->buf[j], sizeof m->buf[j]);
        }
    }
}

/* Posts the exchange: every receive, then every send (packed ones copied now), the local copies. */
void rt_pattern_post(rt_pattern *p, double *const *base)
{
    if (!p->committed) rt_die("rt_pattern_post before rt_pattern_commit");
    if (p->posted) rt_die("rt_pattern_post twice without rt_pattern_wait");
    int nreq = 0;
    for (int i = 0; i < p->nrecv; i++) {
        rt_pmsg *m = &p->recv[i];
        int tag = p->aggregate ? p->narrays : m->array;
        if (m->buf)
            RT_CHECK(MPI_Irecv(m->buf, m->count, RT_WORD, m->peer, tag, p->comm, &p->req[nreq++]));
        else
            RT_CHECK(MPI_Irecv(base[m->array] + m->start, m->tcount, m->type, m->peer, tag, p->comm, &p->req[nreq++]));
    }
    for (int i = 0; i < p->nsend; i++) {
        rt_pmsg *m = &p->send[i];
        int tag = p->aggregate ? p->narrays : m->array;
        if (m->buf) {
            rt_pmsg_copy(m, base, 1);
            RT_CHECK(MPI_Isend(m->buf, m->count, RT_WORD, m->peer, tag, p->comm, &p->req[nreq++]));
        } else {
            RT_CHECK(MPI_Isend(base[m->array] + m->start, m->tcount, m->type, m->peer, tag, p->comm, &p->req[nreq++]));
        }
    }
    for (int i = 0; i < p->nself; i++)
        memcpy(&base[p->self_array[i]][p->self_to[i]], &base[p->self_array[i]][p->self_from[i]], sizeof(double));
    p->nreq = nreq;
    p->posted = 1;
}

/* Completes the posted exchange: waits, then unpacks what came packed. */
void rt_pattern_wait(rt_pattern *p, double *const *base)
{
    if (!p->posted) rt_die("rt_pattern_wait without rt_pattern_post");
    p->posted = 0;
    RT_CHECK(MPI_Waitall(p->nreq, p->req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < p->nrecv; i++)
        if (p->recv[i].buf) rt_pmsg_copy(&p->recv[i], base, 0);
}

void rt_pattern_exchange(rt_pattern *p, double *const *base)
{
    rt_pattern_post(p, base);
    rt_pattern_wait(p, base);
}

int64_t rt_pattern_elements(const rt_pattern *p)
{
    return p->sent;
}

int rt_pattern_messages(const rt_pattern *p)
{
    return p->nsend;
}

/* With RT_PATTERN_STATS set in the environment, each rank says once (stderr) what one exchange
 * sends: the check that the exported program sends the messages its model prices. */
static void rt_pattern_stats(const rt_pattern *p)
{
    const char *v = getenv("RT_PATTERN_STATS");
    if (!v || !*v) return;
    int partners = 0;
    for (int i = 0; i < p->nsend; i++) partners += i == 0 || p->send[i].peer != p->send[i - 1].peer;
    fprintf(stderr, "rt_pattern rank %d: %d messages to %d partners, %lld elements an exchange%s\n", p->rank,
            p->nsend, partners, (long long)p->sent, p->aggregate ? " (aggregated)" : "");
}

static void rt_pmsgs_free(rt_pmsg *m, int n)
{
    for (int i = 0; i < n; i++) {
        free(m[i].off);
        free(m[i].buf);
        free(m[i].seg_array);
        free(m[i].seg_len);
        if (m[i].own_type) MPI_Type_free(&m[i].type);
    }
    free(m);
}

void rt_pattern_free(rt_pattern *p)
{
    if (!p) return;
    rt_pmsgs_free(p->send, p->nsend);
    rt_pmsgs_free(p->recv, p->nrecv);
    free(p->e);
    free(p->self_from);
    free(p->self_to);
    free(p->self_array);
    free(p->req);
    free(p);
}
