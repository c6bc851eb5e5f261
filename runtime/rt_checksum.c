/*
 * rt_checksum.c — the output checksum, bit for bit the simulator's sim_checksum (engine/sim.h):
 * FNV-1a 64 over each output array in declaration order, each element in row-major order, the
 * 8 little-endian bytes of the IEEE-754 double with -0.0 hashed as 0.0, or of the int64
 * 0x7ff8dead for an element without value (given explicitly, or an element holding the bits of
 * rt_novalue()).  Incremental, plus gathering helpers with which rank 0 hashes a distributed
 * array in global row-major order without holding all of it.
 */
#include "rt.h"

#include <stdlib.h>
#include <string.h>

void rt_checksum_init(rt_checksum *c)
{
    c->h = RT_FNV_OFFSET;
}

/* The 8 bytes of `bits`, least significant first (little endian whatever the host). */
static inline uint64_t rt_fnv_u64(uint64_t h, uint64_t bits)
{
    for (int k = 0; k < 8; k++) {
        h ^= (bits >> (8 * k)) & 0xffu;
        h *= RT_FNV_PRIME;
    }
    return h;
}

/* The 8 bytes hashed for one element: the double's bits, 0.0 for -0.0, the marker for no value. */
static inline uint64_t rt_double_bits(double v)
{
    uint64_t bits;
    if (v == 0.0)
        v = 0.0;                  /* -0.0 hashes as 0.0 */
    memcpy(&bits, &v, sizeof bits);
    return bits == RT_NOVALUE_BITS ? (uint64_t)RT_UNDEFINED_MARK : bits;
}

double rt_novalue(void)
{
    double v;
    uint64_t bits = RT_NOVALUE_BITS;
    memcpy(&v, &bits, sizeof v);
    return v;
}

int rt_is_novalue(double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bits == RT_NOVALUE_BITS;
}

void rt_fill_novalue(double *a, size_t n)
{
    double v = rt_novalue();
    for (size_t i = 0; i < n; i++)
        a[i] = v;
}

void rt_checksum_double(rt_checksum *c, double v)
{
    c->h = rt_fnv_u64(c->h, rt_double_bits(v));
}

void rt_checksum_doubles(rt_checksum *c, const double *v, size_t n)
{
    uint64_t h = c->h;
    for (size_t i = 0; i < n; i++)
        h = rt_fnv_u64(h, rt_double_bits(v[i]));
    c->h = h;
}

void rt_checksum_int64s(rt_checksum *c, const int64_t *v, size_t n)
{
    uint64_t h = c->h;
    for (size_t i = 0; i < n; i++)
        h = rt_fnv_u64(h, rt_double_bits((double)v[i]));
    c->h = h;
}

void rt_checksum_undefined(rt_checksum *c, size_t n)
{
    uint64_t h = c->h;
    for (size_t i = 0; i < n; i++)
        h = rt_fnv_u64(h, (uint64_t)RT_UNDEFINED_MARK);
    c->h = h;
}

uint64_t rt_checksum_value(const rt_checksum *c)
{
    return c->h;
}

enum { RT_TAG_GATHER = 9201 };

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
