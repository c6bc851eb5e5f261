/*
 * t_pattern.c — rt_pattern on a pattern every rank can recompute: rank r sends to every rank d
 * (itself included) K elements of two arrays, laid out as a row (stride 1), a column (stride 3)
 * or scattered (packed), chosen by (r + d) % 3; the receiver stores them at its own offsets for
 * source r, in a permuted order.  After each of three exchanges (values change between them)
 * every received element is checked.  Prints "pattern errors=N sent=M".
 */
#include <stdio.h>
#include <stdlib.h>

#include "rt.h"

enum { K = 7 };

static int64_t send_off(int r, int d, int j)
{
    switch ((r + d) % 3) {
    case 0: return 5 + j;                        /* a row */
    case 1: return 2 + 3 * j;                    /* a column */
    default: return (j * 5 + d) % (3 * K + 2);   /* scattered */
    }
}

static int64_t recv_off(int r, int j, int size) { (void)size; return (int64_t)r * K + (j * 3) % K; }

static double value(int r, int arr, int64_t off, int round) { return r * 1000.0 + arr * 100000.0 + (double)off + round * 0.5; }

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    int rank = rt_rank(MPI_COMM_WORLD), size = rt_size(MPI_COMM_WORLD);
    int64_t n = (int64_t)(size + 1) * K + 3 * K + 8;
    double *a[2] = {rt_malloc((size_t)n * sizeof(double)), rt_malloc((size_t)n * sizeof(double))};
    rt_pattern *p = rt_pattern_new(MPI_COMM_WORLD, 2);
    int64_t base = (int64_t)(size + 1) * K;      /* what a rank sends lies after what it receives */
    for (int arr = 0; arr < 2; arr++)
        for (int d = 0; d < size; d++)
            for (int j = 0; j < K; j++) {
                rt_pattern_add(p, d, arr, base + send_off(rank, d, j), recv_off(rank, j, size));
                if (j == 2) rt_pattern_add(p, d, arr, base + send_off(rank, d, j), recv_off(rank, j, size));  /* twice */
            }
    rt_pattern_commit(p);
    long errors = 0;
    for (int round = 0; round < 3; round++) {
        for (int arr = 0; arr < 2; arr++)
            for (int64_t i = 0; i < n; i++) a[arr][i] = i >= base ? value(rank, arr, i - base, round) : -1;
        rt_pattern_exchange(p, a);
        for (int arr = 0; arr < 2; arr++)
            for (int r = 0; r < size; r++)
                for (int j = 0; j < K; j++)
                    if (a[arr][recv_off(r, j, size)] != value(r, arr, send_off(r, rank, j), round)) errors++;
    }
    long total = 0;
    long long sent = rt_pattern_elements(p), allsent = 0;
    MPI_Reduce(&errors, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&sent, &allsent, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("pattern errors=%ld sent=%lld\n", total, allsent);
    rt_pattern_free(p);
    free(a[0]);
    free(a[1]);
    rt_finalize();
    return 0;
}
