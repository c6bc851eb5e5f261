/*
 * rt_gather.c — gathering helpers of the checksum: rank 0 hashes a distributed array (1-D/row
 * blocks, 2-D tiles, or scattered elements) in global row-major order.
 */
#include "rt.h"

#include <stdlib.h>
#include <string.h>

enum { RT_TAG_GATHER = 9201, RT_TAG_ELEMENTS = 9210 };   /* rt_gather_elements: 9210 .. 9212 */

void rt_checksum_gather_blocks(rt_checksum *c, MPI_Comm comm, const double *mine, int own)
{
    int rank = rt_rank(comm), size = rt_size(comm);
    if (rank != 0) {
        RT_CHECK(MPI_Gather(&own, 1, MPI_INT, NULL, 0, MPI_INT, 0, comm));
        RT_CHECK(MPI_Send(mine, own, MPI_DOUBLE, 0, RT_TAG_GATHER, comm));
        return;
    }
    int *counts = rt_malloc((size_t)size * sizeof(int));
    RT_CHECK(MPI_Gather(&own, 1, MPI_INT, counts, 1, MPI_INT, 0, comm));
    int most = 0;
    for (int r = 1; r < size; r++)
        if (counts[r] > most)
            most = counts[r];
    double *piece = rt_malloc((size_t)most * sizeof(double));
    rt_checksum_doubles(c, mine, (size_t)own);
    for (int r = 1; r < size; r++) {
        RT_CHECK(MPI_Recv(piece, counts[r], MPI_DOUBLE, r, RT_TAG_GATHER, comm, MPI_STATUS_IGNORE));
        rt_checksum_doubles(c, piece, (size_t)counts[r]);
    }
    free(piece);
    free(counts);
}

void rt_checksum_gather_grid2d(rt_checksum *c, const rt_grid2d *g, const double *tile,
                               int rows, int cols, int ld)
{
    int rank = rt_rank(g->comm), size = g->q_rows * g->q_cols;
    int shape[2] = {rows, cols};
    MPI_Datatype tile_t;
    if (rank != 0) {
        RT_CHECK(MPI_Gather(shape, 2, MPI_INT, NULL, 0, MPI_INT, 0, g->comm));
        RT_CHECK(MPI_Type_vector(rows, cols, ld, MPI_DOUBLE, &tile_t));
        RT_CHECK(MPI_Type_commit(&tile_t));
        RT_CHECK(MPI_Send(tile, 1, tile_t, 0, RT_TAG_GATHER, g->comm));
        RT_CHECK(MPI_Type_free(&tile_t));
        return;
    }
    int *shapes = rt_malloc((size_t)size * 2 * sizeof(int));
    RT_CHECK(MPI_Gather(shape, 2, MPI_INT, shapes, 2, MPI_INT, 0, g->comm));
    /* global width = the columns of grid row 0; the tallest band bounds the buffer */
    size_t width = 0, tallest = 0;
    for (int j = 0; j < g->q_cols; j++)
        width += (size_t)shapes[2 * j + 1];
    for (int i = 0; i < g->q_rows; i++)
        if ((size_t)shapes[2 * i * g->q_cols] > tallest)
            tallest = (size_t)shapes[2 * i * g->q_cols];
    double *band = rt_malloc(tallest * width * sizeof(double));
    for (int i = 0; i < g->q_rows; i++) {
        int brows = shapes[2 * i * g->q_cols];
        size_t off = 0;
        for (int j = 0; j < g->q_cols; j++) {
            int r = i * g->q_cols + j, tr = shapes[2 * r], tc = shapes[2 * r + 1];
            if (tr != brows)
                rt_die("rt_checksum_gather_grid2d: rank %d has %d rows, rank %d has %d in the same grid row",
                       r, tr, i * g->q_cols, brows);
            if (r == 0) {
                for (int y = 0; y < tr; y++)
                    memcpy(band + (size_t)y * width, tile + (size_t)y * ld, (size_t)tc * sizeof(double));
            } else if (tr > 0 && tc > 0) {
                RT_CHECK(MPI_Type_vector(tr, tc, (int)width, MPI_DOUBLE, &tile_t));
                RT_CHECK(MPI_Type_commit(&tile_t));
                RT_CHECK(MPI_Recv(band + off, 1, tile_t, r, RT_TAG_GATHER, g->comm, MPI_STATUS_IGNORE));
                RT_CHECK(MPI_Type_free(&tile_t));
            } else {
                RT_CHECK(MPI_Recv(band + off, 0, MPI_DOUBLE, r, RT_TAG_GATHER, g->comm, MPI_STATUS_IGNORE));
            }
            off += (size_t)tc;
        }
        rt_checksum_doubles(c, band, (size_t)brows * width);
    }
    free(band);
    free(shapes);
}

/* Stores one rank's elements into the region: a later stamp wins, and of one step the later rank
 * (ranks come in order; the simulator runs the processors of a step in order, so the later
 * one's value is the newest). */
static void rt_gather_apply(const int64_t *idx, const double *val, const uint32_t *stp, int n, double *region,
                            uint32_t *newest, int64_t region_size)
{
    for (int i = 0; i < n; i++) {
        if (idx[i] < 0 || idx[i] >= region_size)
            rt_die("rt_gather_elements: element %lld outside the region of %lld", (long long)idx[i],
                   (long long)region_size);
        if (stp[i] >= newest[idx[i]]) {
            newest[idx[i]] = stp[i];
            region[idx[i]] = val[i];
        }
    }
}

/* Rank 0 receives the ranks' elements one rank after another (buffers for the largest rank's,
 * not for all of them at once: the gather's memory stays near one rank's share). */
void rt_gather_elements(MPI_Comm comm, const int64_t *index, const double *value, const uint32_t *stamp,
                        int count, double *region, int64_t region_size)
{
    int rank = rt_rank(comm), size = rt_size(comm);
    if (rank != 0) {
        RT_CHECK(MPI_Gather(&count, 1, MPI_INT, NULL, 0, MPI_INT, 0, comm));
        RT_CHECK(MPI_Send(index, count, MPI_INT64_T, 0, RT_TAG_ELEMENTS, comm));
        RT_CHECK(MPI_Send(value, count, MPI_DOUBLE, 0, RT_TAG_ELEMENTS + 1, comm));
        RT_CHECK(MPI_Send(stamp, count, MPI_UINT32_T, 0, RT_TAG_ELEMENTS + 2, comm));
        return;
    }
    int *counts = rt_malloc((size_t)size * sizeof(int));
    RT_CHECK(MPI_Gather(&count, 1, MPI_INT, counts, 1, MPI_INT, 0, comm));
    int most = 0;
    for (int r = 1; r < size; r++)
        if (counts[r] > most) most = counts[r];
    int64_t *idx = rt_malloc((size_t)most * sizeof(int64_t) + 1);
    double *val = rt_malloc((size_t)most * sizeof(double) + 1);
    uint32_t *stp = rt_malloc((size_t)most * sizeof(uint32_t) + 1);
    uint32_t *newest = rt_calloc(region_size > 0 ? (size_t)region_size : 1, sizeof *newest);
    rt_gather_apply(index, value, stamp, count, region, newest, region_size);
    for (int r = 1; r < size; r++) {
        RT_CHECK(MPI_Recv(idx, counts[r], MPI_INT64_T, r, RT_TAG_ELEMENTS, comm, MPI_STATUS_IGNORE));
        RT_CHECK(MPI_Recv(val, counts[r], MPI_DOUBLE, r, RT_TAG_ELEMENTS + 1, comm, MPI_STATUS_IGNORE));
        RT_CHECK(MPI_Recv(stp, counts[r], MPI_UINT32_T, r, RT_TAG_ELEMENTS + 2, comm, MPI_STATUS_IGNORE));
        rt_gather_apply(idx, val, stp, counts[r], region, newest, region_size);
    }
    free(newest);
    free(stp);
    free(idx);
    free(val);
    free(counts);
}
