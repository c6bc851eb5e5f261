/*
 * fd_mpi_rt.c — examples/findiff.apm on the polyapm runtime (runtime/rt.h), written the way the
 * exporter is to write it, in either of its two exchange styles:
 *   halo       the halo rows of a row-block distribution via rt_halo1d_exchange (MPI_Sendrecv of
 *              contiguous rows) — should cost what fd_mpi_hand.c costs
 *   halo2d     2-D block tiles (the thesis's tiling) on a q x q grid of ranks when P is square,
 *              else P x 1, via rt_halo2d (contiguous rows, strided columns), gathered for the
 *              checksum with rt_checksum_gather_grid2d
 *   alltoallv  the thesis's mpi_apm style: every border element a tile's neighbour reads is a
 *              record (receiver's local index, value) put into rt_exchange, one MPI_Alltoall of
 *              counts + MPI_Alltoallv of records per step, applied into the halo rows
 * Same arithmetic order as fd_seq_hand.c, so the checksum is bit-identical to it and to the
 * simulator's.  Usage: mpirun -np P fd_mpi_rt [halo|halo2d|alltoallv] [N [STEPS]]
 * (defaults halo 256 21).
 * Prints the runtime's result line (rt_report).
 */
#include "rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { FD_HALO, FD_HALO2D, FD_ALLTOALLV } fd_exchange_kind;

static const struct {
    const char *name;
    fd_exchange_kind kind;
} fd_exchanges[] = {{"halo", FD_HALO}, {"halo2d", FD_HALO2D}, {"alltoallv", FD_ALLTOALLV}};

/* One application of the stencil: rows 1..cnt of `a` (halo rows 0 and cnt+1) into `b`. */
static void fd_step(const double *a, double *b, int64_t lo, int64_t cnt, int64_t n)
{
    size_t nn = (size_t)n;
    for (int64_t i = 1; i <= cnt; i++) {
        int64_t x = lo + i - 1;
        const double *u = a + (size_t)(i - 1) * nn, *m = a + (size_t)i * nn, *d = a + (size_t)(i + 1) * nn;
        double *out = b + (size_t)i * nn;
        if (x == 0 || x == n - 1) {
            memcpy(out, m, nn * sizeof(double));
            continue;
        }
        out[0] = m[0];
        for (size_t y = 1; y + 1 < nn; y++)
            out[y] = (u[y] + d[y] + 4 * m[y] + m[y - 1] + m[y + 1]) / 8;
        out[nn - 1] = m[nn - 1];
    }
}

/* One application on a 2-D tile: owned rows x cols at a + ld + 1 (halo 1 all round), global
 * position (r0, c0), into b (same layout). */
static void fd_step_tile(const double *a, double *b, int64_t r0, int64_t rows, int64_t c0,
                         int64_t cols, int64_t ld, int64_t n)
{
    int64_t jlo = c0 == 0 ? 1 : 0, jhi = c0 + cols == n ? cols - 1 : cols;   /* interior columns */
    for (int64_t i = 0; i < rows; i++) {
        int64_t x = r0 + i;
        const double *m = a + (i + 1) * ld + 1, *u = m - ld, *d = m + ld;
        double *out = b + (i + 1) * ld + 1;
        if (x == 0 || x == n - 1) {
            memcpy(out, m, (size_t)cols * sizeof(double));
            continue;
        }
        for (int64_t j = 0; j < jlo; j++)
            out[j] = m[j];
        for (int64_t j = jlo; j < jhi; j++)
            out[j] = (u[j] + d[j] + 4 * m[j] + m[j - 1] + m[j + 1]) / 8;
        for (int64_t j = jhi > jlo ? jhi : jlo; j < cols; j++)
            out[j] = m[j];
    }
}

/* The 2-D variant: its own layout, so its own main loop. */
static void fd_run_tiles(int64_t n, int64_t steps)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int size = rt_size(w), q = 1;
    while ((q + 1) * (q + 1) <= size)
        q++;
    rt_grid2d g = q * q == size ? rt_grid2d_make(w, q, q) : rt_grid2d_make(w, size, 1);
    int64_t r0, rows, c0, cols;
    rt_balanced_range(n, g.q_rows, g.row, &r0, &rows);
    rt_balanced_range(n, g.q_cols, g.col, &c0, &cols);
    int64_t ld = cols + 2;
    size_t plane = (size_t)(rows + 2) * (size_t)ld;
    double *a = rt_calloc(plane, sizeof(double)), *b = rt_calloc(plane, sizeof(double));
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            a[(i + 1) * ld + j + 1] = (double)(((r0 + i) * 31 + (c0 + j) * 17) % 13);
    rt_halo2d *h = rt_halo2d_new(&g, (int)rows, (int)cols, (int)ld, 1, 0);

    double t0 = rt_time_start(w);
    for (int64_t t = 1; t <= steps; t++) {
        rt_halo2d_exchange(h, a);
        fd_step_tile(a, b, r0, rows, c0, cols, ld, n);
        double *s = a;
        a = b;
        b = s;
    }
    double seconds = rt_time_stop(w, t0);

    rt_checksum c;
    rt_checksum_init(&c);
    rt_checksum_gather_grid2d(&c, &g, a + ld + 1, (int)rows, (int)cols, (int)ld);
    rt_report(w, rt_checksum_value(&c), seconds);
    rt_halo2d_free(h);
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    MPI_Comm w = MPI_COMM_WORLD;
    int rank = rt_rank(w), size = rt_size(w), arg = 1;
    fd_exchange_kind kind = FD_HALO;
    for (size_t k = 0; argc > 1 && k < sizeof fd_exchanges / sizeof *fd_exchanges; k++)
        if (strcmp(argv[1], fd_exchanges[k].name) == 0) {
            kind = fd_exchanges[k].kind;
            arg = 2;
        }
    int64_t n = argc > arg ? atoll(argv[arg]) : 256, steps = argc > arg + 1 ? atoll(argv[arg + 1]) : 21;
    if (n < size || steps < 0)
        rt_die("usage: mpirun -np P fd_mpi_rt [halo|halo2d|alltoallv] [N >= P [STEPS >= 0]]");
    rt_require_ranks(0, "any number of ranks up to N");
    if (kind == FD_HALO2D) {
        fd_run_tiles(n, steps);
        rt_finalize();
        return 0;
    }

    int64_t lo, cnt, up_lo, up_cnt;
    rt_balanced_range(n, size, rank, &lo, &cnt);
    rt_balanced_range(n, size, rank > 0 ? rank - 1 : 0, &up_lo, &up_cnt);
    size_t nn = (size_t)n, plane = (size_t)(cnt + 2) * nn;
    double *a = rt_calloc(plane, sizeof(double)), *b = rt_calloc(plane, sizeof(double));
    for (int64_t i = 0; i < cnt; i++)
        for (size_t y = 0; y < nn; y++)
            a[(size_t)(i + 1) * nn + y] = (double)(((size_t)(lo + i) * 31 + y * 17) % 13);
    rt_exchange *x = kind == FD_ALLTOALLV ? rt_exchange_new(w) : NULL;

    double t0 = rt_time_start(w);
    for (int64_t t = 1; t <= steps; t++) {
        if (kind == FD_HALO) {
            rt_halo1d_exchange(w, a, (int)cnt, 1, (int)n);
        } else {
            /* the interior columns of my first row go up (into the upper rank's bottom halo row),
             * those of my last row go down (into the lower rank's top halo row, local row 0) */
            for (size_t y = 1; y + 1 < nn; y++) {
                if (rank > 0)
                    rt_exchange_put(x, rank - 1, (int64_t)((size_t)(up_cnt + 1) * nn + y), a[nn + y]);
                if (rank < size - 1)
                    rt_exchange_put(x, rank + 1, (int64_t)y, a[(size_t)cnt * nn + y]);
            }
            rt_exchange_run(x);
            rt_exchange_apply(x, a);
        }
        fd_step(a, b, lo, cnt, n);
        double *s = a;
        a = b;
        b = s;
    }
    double seconds = rt_time_stop(w, t0);

    rt_checksum c;
    rt_checksum_init(&c);
    rt_checksum_gather_blocks(&c, w, a + nn, (int)(cnt * n));
    rt_report(w, rt_checksum_value(&c), seconds);
    rt_exchange_free(x);
    free(a);
    free(b);
    rt_finalize();
    return 0;
}
