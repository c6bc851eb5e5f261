/*
 * fd_mpi_rt.c — examples/findiff.apm on the polyapm runtime (runtime/rt.h), written the way the
 * exporter is to write it, in either of its two exchange styles:
 *   halo       the halo rows of a row-block distribution via rt_halo1d_exchange (MPI_Sendrecv of
 *              contiguous rows) — should cost what fd_mpi_hand.c costs
 *   alltoallv  the thesis's mpi_apm style: every border element a tile's neighbour reads is a
 *              record (receiver's local index, value) put into rt_exchange, one MPI_Alltoall of
 *              counts + MPI_Alltoallv of records per step, applied into the halo rows
 * Same arithmetic order as fd_seq_hand.c, so the checksum is bit-identical to it and to the
 * simulator's.  Usage: mpirun -np P fd_mpi_rt [halo|alltoallv] [N [STEPS]]  (defaults halo 256 21).
 * Prints the runtime's result line (rt_report).
 */
#include "rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { FD_HALO, FD_ALLTOALLV } fd_exchange_kind;

static const struct {
    const char *name;
    fd_exchange_kind kind;
} fd_exchanges[] = {{"halo", FD_HALO}, {"alltoallv", FD_ALLTOALLV}};

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
        rt_die("usage: mpirun -np P fd_mpi_rt [halo|alltoallv] [N >= P [STEPS >= 0]]");
    rt_require_ranks(0, "any number of ranks up to N");

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
