/*
 * rt_gather.c — gathering helpers of the checksum: rank 0 hashes a distributed array (1-D/row
 * blocks, 2-D tiles, or scattered elements) in global row-major order.
 */
#include "rt.h"

#include <stdlib.h>
#include <string.h>

enum { RT_TAG_GATHER = 9201, RT_TAG_ELEMENTS = 9210 };   /* RT_TAG_ELEMENTS: rt_gather's chunks */

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

/* Scattered elements, streamed: a rank's computed elements in chunks of RT_GATHER_CHUNK records
 * (rank 0 stores its own at once), so that no rank holds a copy of all its elements.  Rank 0
 * receives rank by rank, each rank's chunks closed by an empty one; a barrier ends the gather,
 * so that no rank runs ahead into the next one: a called gather's messages are the only ones
 * waiting at rank 0.  (Without it, under SimGrid the FD leaf's 1023 ranks sent their messages of
 * all 64 slabs at once, and each of rank 0's 65,000 receives searched a queue of up to 100,000
 * of them: two thirds of a 12-minute run at 1024 ranks.) */
enum { RT_GATHER_CHUNK = 1 << 15 };
typedef struct rt_gather_rec {
    int64_t index;
    double value;
    uint32_t stamp, pad;
} rt_gather_rec;

struct rt_gather {
    MPI_Comm comm;
    int rank, size;
    double *region;               /* rank 0 */
    uint32_t *newest;             /* rank 0: the stamp of each region element's value */
    int64_t region_size;
    rt_gather_rec *buf;           /* a chunk */
    int n;
};

rt_gather *rt_gather_new(MPI_Comm comm, double *region, int64_t region_size)
{
    rt_gather *g = rt_calloc(1, sizeof *g);
    g->comm = comm;
    g->rank = rt_rank(comm);
    g->size = rt_size(comm);
    g->region = region;
    g->region_size = region_size;
    if (g->rank == 0) g->newest = rt_calloc(region_size > 0 ? (size_t)region_size : 1, sizeof *g->newest);
    g->buf = rt_malloc(RT_GATHER_CHUNK * sizeof *g->buf);
    return g;
}

/* A later stamp wins, and of one step the later rank (ranks come in order; the simulator runs
 * the processors of a step in order, so the later one's value is the newest). */
static void rt_gather_store(rt_gather *g, int64_t index, double value, uint32_t stamp)
{
    if (index < 0 || index >= g->region_size)
        rt_die("rt_gather: element %lld outside the region of %lld", (long long)index, (long long)g->region_size);
    if (stamp >= g->newest[index]) {
        g->newest[index] = stamp;
        g->region[index] = value;
    }
}

static void rt_gather_flush(rt_gather *g)
{
    RT_CHECK(MPI_Send(g->buf, g->n * (int)sizeof *g->buf, MPI_BYTE, 0, RT_TAG_ELEMENTS, g->comm));
    g->n = 0;
}

void rt_gather_put(rt_gather *g, int64_t index, double value, uint32_t stamp)
{
    if (g->rank == 0) {
        rt_gather_store(g, index, value, stamp);
        return;
    }
    g->buf[g->n].index = index;
    g->buf[g->n].value = value;
    g->buf[g->n++].stamp = stamp;
    if (g->n == RT_GATHER_CHUNK) rt_gather_flush(g);
}

void rt_gather_finish(rt_gather *g)
{
    if (g->rank != 0) {
        if (g->n) rt_gather_flush(g);
        rt_gather_flush(g);   /* an empty chunk: the end */
    } else {
        for (int r = 1; r < g->size; r++)
            for (;;) {
                MPI_Status st;
                int bytes;
                RT_CHECK(MPI_Recv(g->buf, RT_GATHER_CHUNK * (int)sizeof *g->buf, MPI_BYTE, r, RT_TAG_ELEMENTS, g->comm, &st));
                RT_CHECK(MPI_Get_count(&st, MPI_BYTE, &bytes));
                int n = bytes / (int)sizeof *g->buf;
                if (n == 0) break;
                for (int i = 0; i < n; i++) rt_gather_store(g, g->buf[i].index, g->buf[i].value, g->buf[i].stamp);
            }
    }
    RT_CHECK(MPI_Barrier(g->comm));
    free(g->newest);
    free(g->buf);
    free(g);
}
