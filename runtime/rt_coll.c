/*
 * rt_coll.c — the collectives of exported programs (polyapm-lang(5) COLLECTIVES) on tuples of
 * rt_val: groups (MPI_Comm_split), bcast, scatter, gather/allgather, multicast, the rank-order
 * reductions and scans (an MPI collective where MPI's result is the simulator's bit for bit,
 * else a gather and the simulator's own rank-order fold), and the balanced forms of the fusion
 * rules: reduce_bal (the balanced tree with the missing leaves on the left, exchanged along the
 * tree) and scan_bal (the butterfly, one MPI_Sendrecv per round).  Every function is collective
 * over its group.
 */
#include "rt.h"

#include <stdlib.h>
#include <string.h>

/* Byte counts of n tuples of nf fields (an MPI count). */
static int rt_bytes(int64_t n, int nf)
{
    int64_t b = n * nf * (int64_t)sizeof(rt_val);
    if (b < 0 || b > INT32_MAX) rt_die("collective of %lld tuples: more than 2^31 bytes", (long long)n);
    return (int)b;
}

MPI_Comm rt_coll_group(MPI_Comm comm, int grouped, int64_t color)
{
    if (!grouped) return comm;
    MPI_Comm g;
    int c = color < 0 ? MPI_UNDEFINED : (int)(color % INT32_MAX);
    if (color > INT32_MAX) rt_die("group color %lld does not fit an MPI color", (long long)color);
    RT_CHECK(MPI_Comm_split(comm, c, rt_rank(comm), &g));
    return g;
}

void rt_coll_group_free(MPI_Comm *group, MPI_Comm comm)
{
    if (*group != MPI_COMM_NULL && *group != comm) RT_CHECK(MPI_Comm_free(group));
    *group = MPI_COMM_NULL;
}

int rt_coll_root(MPI_Comm group, int64_t root_world_rank, MPI_Comm comm)
{
    int size = rt_size(group), me = (int)rt_rank(comm), found = -1;
    int *all = rt_malloc((size_t)size * sizeof *all);
    RT_CHECK(MPI_Allgather(&me, 1, MPI_INT, all, 1, MPI_INT, group));
    for (int r = 0; r < size; r++) if (all[r] == root_world_rank) found = r;
    free(all);
    if (found < 0) rt_die("the root (rank %lld) of a collective is not in its group", (long long)root_world_rank);
    return found;
}

void rt_coll_bcast(rt_val *buf, int64_t n, int nf, int root, MPI_Comm g)
{
    RT_CHECK(MPI_Bcast(buf, rt_bytes(n, nf), MPI_BYTE, root, g));
}

void rt_coll_scatter(const rt_val *in, rt_val *out, int64_t n_each, int nf, int root, MPI_Comm g)
{
    int b = rt_bytes(n_each, nf);
    RT_CHECK(MPI_Scatter(in, b, MPI_BYTE, out, b, MPI_BYTE, root, g));
}

void rt_coll_gather(const rt_val *in, int64_t n, rt_val *out, int nf, int root, MPI_Comm g)
{
    int size = rt_size(g), b = rt_bytes(n, nf);
    int *counts = rt_malloc((size_t)size * sizeof *counts), *displs = rt_malloc((size_t)size * sizeof *displs);
    if (root < 0) RT_CHECK(MPI_Allgather(&b, 1, MPI_INT, counts, 1, MPI_INT, g));
    else RT_CHECK(MPI_Gather(&b, 1, MPI_INT, counts, 1, MPI_INT, root, g));
    int64_t at = 0;
    for (int r = 0; r < size && (root < 0 || rt_rank(g) == root); r++) {   /* counts are the root's */
        displs[r] = (int)at;
        at += counts[r];
        if (at > INT32_MAX) rt_die("gather of more than 2^31 bytes");
    }
    if (root < 0) RT_CHECK(MPI_Allgatherv(in, b, MPI_BYTE, out, counts, displs, MPI_BYTE, g));
    else RT_CHECK(MPI_Gatherv(in, b, MPI_BYTE, out, counts, displs, MPI_BYTE, root, g));
    free(counts);
    free(displs);
}

void rt_coll_multicast(const void *root_array, int64_t start, int64_t n, rt_val *out, int root, MPI_Comm g)
{
    int size = rt_size(g), rank = rt_rank(g);
    int64_t want[2] = {start, n}, *all = NULL;
    int *counts = NULL, *displs = NULL;
    char *pack = NULL;
    if (rank == root) {
        all = rt_malloc((size_t)size * 2 * sizeof *all);
        counts = rt_malloc((size_t)size * sizeof *counts);
        displs = rt_malloc((size_t)size * sizeof *displs);
    }
    RT_CHECK(MPI_Gather(want, 2, MPI_INT64_T, all, 2, MPI_INT64_T, root, g));
    if (rank == root) {
        int64_t at = 0;
        for (int r = 0; r < size; r++) {
            counts[r] = rt_bytes(all[2 * r + 1], 1);
            displs[r] = (int)at;
            at += counts[r];
            if (at > INT32_MAX) rt_die("multicast of more than 2^31 bytes");
        }
        pack = rt_malloc((size_t)(at ? at : 1));
        for (int r = 0; r < size; r++)   /* each receiver's block, as it named it */
            if (counts[r]) memcpy(pack + displs[r], (const char *)root_array + all[2 * r] * (int64_t)sizeof(rt_val),
                                  (size_t)counts[r]);
    }
    RT_CHECK(MPI_Scatterv(pack, counts, displs, MPI_BYTE, out, rt_bytes(n, 1), MPI_BYTE, root, g));
    free(all);
    free(counts);
    free(displs);
    free(pack);
}

/* ---- reductions and scans ------------------------------------------------------------------- */

static void rt_combine_into(const rt_opdesc *op, rt_val *acc, const rt_val *x)
{
    rt_val t[RT_MAX_FIELDS];
    op->combine(acc, x, t);
    memcpy(acc, t, (size_t)op->nf * sizeof *t);
}

void rt_coll_reduce(rt_coll_kind kind, const rt_val *in, rt_val *out, int64_t n, const rt_opdesc *op,
                    int root, MPI_Comm g)
{
    int nf = op->nf, size = rt_size(g), rank = rt_rank(g);
    if (n > INT32_MAX) rt_die("reduction of more than 2^31 tuples");
    if (op->mpi != MPI_OP_NULL) {   /* MPI's result is exactly the rank-order fold */
        int c = (int)n;
        switch (kind) {
        case RT_REDUCE: RT_CHECK(MPI_Reduce(in, out, c, op->type, op->mpi, root, g)); break;
        case RT_ALLREDUCE: RT_CHECK(MPI_Allreduce(in, out, c, op->type, op->mpi, g)); break;
        case RT_SCAN: RT_CHECK(MPI_Scan(in, out, c, op->type, op->mpi, g)); break;
        case RT_EXSCAN: case RT_EXSCAN_IDENT:
            RT_CHECK(MPI_Exscan(in, out, c, op->type, op->mpi, g));
            if (rank == 0)
                for (int64_t j = 0; j < n; j++) memcpy(&out[j * nf], op->ident, (size_t)nf * sizeof *out);
            break;
        }
        return;
    }
    /* the simulator's fold: every block here (the root's only for reduce), then in rank order */
    size_t tb = (size_t)n * (size_t)nf * sizeof(rt_val);
    rt_val *all = rt_malloc((size_t)size * (tb ? tb : 1));
    rt_coll_gather(in, n, all, nf, kind == RT_REDUCE ? root : -1, g);
    if (kind == RT_REDUCE && rank != root) { free(all); return; }
    int upto = kind == RT_REDUCE || kind == RT_ALLREDUCE ? size - 1 : kind == RT_SCAN ? rank : rank - 1;
    for (int64_t j = 0; j < n; j++) {
        rt_val *o = &out[j * nf];
        if (kind == RT_EXSCAN_IDENT || (kind == RT_EXSCAN && rank == 0)) {
            memcpy(o, op->ident, (size_t)nf * sizeof *o);
            for (int r = 0; r <= upto; r++) rt_combine_into(op, o, &all[((size_t)r * (size_t)n + (size_t)j) * (size_t)nf]);
        } else {
            memcpy(o, &all[(size_t)j * (size_t)nf], (size_t)nf * sizeof *o);
            for (int r = 1; r <= upto; r++) rt_combine_into(op, o, &all[((size_t)r * (size_t)n + (size_t)j) * (size_t)nf]);
        }
    }
    free(all);
}

static int rt_ceil_log2(int p)
{
    int l = 0;
    while ((1 << l) < p) l++;
    return l;
}

/* reduce_bal as the tree itself.  The leaves are right-aligned in 2^L positions (rank r at
 * position r + 2^L - size: the missing leaves on the left).  In the round joining halves of h
 * positions into blocks of 2h, a block's value is held by the rank at its last position; it
 * receives the left half's value from the rank at that half's last position when the half has a
 * leaf, and combines (left, right) as the tree does, or applies `one` to the right half alone.
 * After L rounds rank size - 1 holds the root and sends it to `root` (all_ranks: broadcasts it):
 * L messages on the longest path instead of a gather of every leaf. */
void rt_coll_reduce_bal(int all_ranks, const rt_val *in, rt_val *out, int64_t n, const rt_opdesc *op,
                        int root, MPI_Comm g)
{
    int nf = op->nf, size = rt_size(g), rank = rt_rank(g);
    int width = 1 << rt_ceil_log2(size), pad = width - size, pos = rank + pad;
    size_t tb = (size_t)n * (size_t)nf * sizeof(rt_val);
    rt_val *acc = rt_malloc(tb ? tb : 1), *theirs = rt_malloc(tb ? tb : 1);
    memmove(acc, in, tb);
    int holder = 1;
    for (int h = 1; h < width && holder; h *= 2) {
        int last = pos / (2 * h) * (2 * h) + 2 * h - 1, mid = last - h;
        if (pos == mid) {   /* the left half's value goes to the block's holder */
            RT_CHECK(MPI_Send(acc, rt_bytes(n, nf), MPI_BYTE, last - pad, h, g));
            holder = 0;
            continue;
        }
        if (mid >= pad)
            RT_CHECK(MPI_Recv(theirs, rt_bytes(n, nf), MPI_BYTE, mid - pad, h, g, MPI_STATUS_IGNORE));
        for (int64_t j = 0; j < n; j++) {
            rt_val res[RT_MAX_FIELDS];
            if (mid >= pad) op->combine(&theirs[j * nf], &acc[j * nf], res);
            else op->one(&acc[j * nf], NULL, res);
            memcpy(&acc[j * nf], res, (size_t)nf * sizeof *res);
        }
    }
    if (all_ranks) {
        RT_CHECK(MPI_Bcast(acc, rt_bytes(n, nf), MPI_BYTE, size - 1, g));
        memmove(out, acc, tb);
    } else if (root == size - 1) {
        if (rank == root) memmove(out, acc, tb);
    } else if (rank == size - 1) {
        RT_CHECK(MPI_Send(acc, rt_bytes(n, nf), MPI_BYTE, root, 0, g));
    } else if (rank == root) {
        RT_CHECK(MPI_Recv(out, rt_bytes(n, nf), MPI_BYTE, size - 1, 0, g, MPI_STATUS_IGNORE));
    }
    free(acc);
    free(theirs);
}

void rt_coll_scan_bal(const rt_val *in, rt_val *out, int64_t n, const rt_opdesc *op, MPI_Comm g)
{
    int nf = op->nf, size = rt_size(g), rank = rt_rank(g);
    size_t tb = (size_t)n * (size_t)nf * sizeof(rt_val);
    rt_val *theirs = rt_malloc(tb ? tb : 1);
    memmove(out, in, tb);
    for (int kb = 1; kb < size; kb <<= 1) {
        int q = rank ^ kb;
        if (q >= size) continue;
        RT_CHECK(MPI_Sendrecv(out, rt_bytes(n, nf), MPI_BYTE, q, kb, theirs, rt_bytes(n, nf), MPI_BYTE, q, kb, g,
                              MPI_STATUS_IGNORE));
        for (int64_t j = 0; j < n; j++) {   /* lower(low, high) at the lower rank, upper(low, high) above */
            rt_val res[RT_MAX_FIELDS];
            if (rank < q) op->lower(&out[j * nf], &theirs[j * nf], res);
            else op->upper(&theirs[j * nf], &out[j * nf], res);
            memcpy(&out[j * nf], res, (size_t)nf * sizeof *res);
        }
    }
    free(theirs);
}
