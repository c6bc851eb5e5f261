/*
 * rt_exchange.c — the coalesced per-step exchange of the thesis's mpi_apm library: during a step
 * every rank appends (index, value) records to a per-destination buffer; at the end of the step
 * one MPI_Alltoall of the counts and one MPI_Alltoallv of the records deliver them all.
 *
 * Layout: the per-destination buffers are segments of one send array, segment d at d*cap, so the
 * MPI_Alltoallv sends straight from them without packing; when a segment is full every segment
 * is re-laid out at twice the capacity (rare: capacities are kept from step to step).
 * Ownership: rt_exchange_new returns an object the caller frees with rt_exchange_free (before
 * MPI_Finalize: it owns an MPI datatype); received records live in it until the next run.
 */
#include "rt.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct rt_exchange {
    MPI_Comm comm;
    int size, rank;
    MPI_Datatype rec_type;    /* one rt_record */
    size_t cap;               /* records per destination segment */
    rt_record *send;          /* size * cap */
    int *scount, *sdispl;     /* size each */
    int *rcount, *rdispl;     /* size each: of the last run */
    rt_record *recv;          /* rcap records */
    size_t rcap, nrecv;
    int64_t sent_total;
};

MPI_Datatype rt_record_type(void)
{
    int lens[2] = {1, 1};
    MPI_Aint offs[2] = {offsetof(rt_record, index), offsetof(rt_record, value)};
    MPI_Datatype types[2] = {MPI_INT64_T, RT_WORD};   /* the value's 8 bytes, bit for bit */
    MPI_Datatype t, resized;
    RT_CHECK(MPI_Type_create_struct(2, lens, offs, types, &t));
    RT_CHECK(MPI_Type_create_resized(t, 0, (MPI_Aint)sizeof(rt_record), &resized));
    RT_CHECK(MPI_Type_free(&t));
    RT_CHECK(MPI_Type_commit(&resized));
    return resized;
}

rt_exchange *rt_exchange_new(MPI_Comm comm)
{
    rt_exchange *x = rt_calloc(1, sizeof *x);
    x->comm = comm;
    x->size = rt_size(comm);
    x->rank = rt_rank(comm);
    x->rec_type = rt_record_type();
    x->cap = 16;
    x->send = rt_malloc((size_t)x->size * x->cap * sizeof(rt_record));
    x->scount = rt_calloc((size_t)x->size, sizeof(int));
    x->sdispl = rt_calloc((size_t)x->size, sizeof(int));
    x->rcount = rt_calloc((size_t)x->size, sizeof(int));
    x->rdispl = rt_calloc((size_t)x->size, sizeof(int));
    x->rcap = 16;
    x->recv = rt_malloc(x->rcap * sizeof(rt_record));
    return x;
}

void rt_exchange_free(rt_exchange *x)
{
    if (!x)
        return;
    RT_CHECK(MPI_Type_free(&x->rec_type));
    free(x->send);
    free(x->scount);
    free(x->sdispl);
    free(x->rcount);
    free(x->rdispl);
    free(x->recv);
    free(x);
}

/* Doubles the capacity of every segment, moving the records already put. */
static void rt_exchange_grow(rt_exchange *x)
{
    size_t cap = x->cap * 2;
    if ((double)cap * x->size > (double)INT_MAX)
        rt_die("rt_exchange: more than %d records buffered in one step", INT_MAX);
    rt_record *send = rt_malloc_pages((size_t)x->size * cap * sizeof(rt_record));
    for (int d = 0; d < x->size; d++)
        memcpy(send + (size_t)d * cap, x->send + (size_t)d * x->cap,
               (size_t)x->scount[d] * sizeof(rt_record));
    free(x->send);
    x->send = send;
    x->cap = cap;
}

void rt_exchange_put(rt_exchange *x, int dest, int64_t index, double value)
{
    if (dest < 0 || dest >= x->size)
        rt_die("rt_exchange_put: destination rank %d outside 0..%d", dest, x->size - 1);
    if ((size_t)x->scount[dest] == x->cap)
        rt_exchange_grow(x);
    rt_record *r = x->send + (size_t)dest * x->cap + x->scount[dest]++;
    r->index = index;
    r->value = value;
}

void rt_exchange_put_run(rt_exchange *x, int dest, int64_t index, int64_t step, const void *values, int64_t n)
{
    if (dest < 0 || dest >= x->size)
        rt_die("rt_exchange_put_run: destination rank %d outside 0..%d", dest, x->size - 1);
    if (n <= 0)
        return;
    while ((size_t)x->scount[dest] + (size_t)n > x->cap)
        rt_exchange_grow(x);
    rt_record *r = x->send + (size_t)dest * x->cap + x->scount[dest];
    const unsigned char *v = values;
    for (int64_t k = 0; k < n; k++) {
        r[k].index = index + k * step;
        memcpy(&r[k].value, v + 8 * k, 8);   /* a double, or an int64_t's bits */
    }
    x->scount[dest] += (int)n;
}

void rt_exchange_put_int(rt_exchange *x, int dest, int64_t index, int64_t value)
{
    double bits;
    memcpy(&bits, &value, sizeof bits);
    rt_exchange_put(x, dest, index, bits);
}

int64_t rt_record_int(const rt_record *r)
{
    int64_t v;
    memcpy(&v, &r->value, sizeof v);
    return v;
}

void rt_exchange_run(rt_exchange *x)
{
    int n = x->size;
    RT_CHECK(MPI_Alltoall(x->scount, 1, MPI_INT, x->rcount, 1, MPI_INT, x->comm));
    size_t total = 0;
    for (int s = 0; s < n; s++) {
        if (total + (size_t)x->rcount[s] > (size_t)INT_MAX)
            rt_die("rt_exchange_run: more than %d records received in one step", INT_MAX);
        x->rdispl[s] = (int)total;
        total += (size_t)x->rcount[s];
    }
    if (total > x->rcap) {
        size_t cap = x->rcap;
        while (cap < total)
            cap *= 2;
        free(x->recv);
        x->recv = rt_malloc_pages(cap * sizeof(rt_record));
        x->rcap = cap;
    }
    for (int d = 0; d < n; d++) {
        x->sdispl[d] = (int)((size_t)d * x->cap);
        x->sent_total += x->scount[d];
    }
    RT_CHECK(MPI_Alltoallv(x->send, x->scount, x->sdispl, x->rec_type,
                           x->recv, x->rcount, x->rdispl, x->rec_type, x->comm));
    x->nrecv = total;
    memset(x->scount, 0, (size_t)n * sizeof(int));
}

size_t rt_exchange_received(const rt_exchange *x, const rt_record **recs)
{
    *recs = x->recv;
    return x->nrecv;
}

size_t rt_exchange_received_from(const rt_exchange *x, int src, const rt_record **recs)
{
    if (src < 0 || src >= x->size)
        rt_die("rt_exchange_received_from: source rank %d outside 0..%d", src, x->size - 1);
    *recs = x->recv + x->rdispl[src];
    return (size_t)x->rcount[src];
}

void rt_exchange_apply(const rt_exchange *x, double *base)
{
    const rt_record *r = x->recv;
    for (size_t i = 0; i < x->nrecv; i++)
        base[r[i].index] = r[i].value;
}

int64_t rt_exchange_sent_total(const rt_exchange *x)
{
    return x->sent_total;
}
