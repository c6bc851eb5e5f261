/*
 * lu_seq_hand.c — examples/lu.apm written straightforwardly in C by hand, the baseline of the
 * exported sequential LU in tests/bench/bench_export.sh: the same matrix, the same operation
 * order (each inner sum starts from its first term, as the simulator's), l and u full n x n
 * matrices whose unwritten halves hold no value.  Usage: lu_seq_hand N.  Prints the runtime's
 * result line with the checksum of l and u (rt_checksum.c) and the seconds of the factorisation.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "rt_checksum.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 512;
    if (n < 1) return 2;
    size_t w = (size_t)n;
    double *a = malloc(w * w * sizeof *a), *l = malloc(w * w * sizeof *l), *u = malloc(w * w * sizeof *u);
    if (!a || !l || !u) return 1;
    rt_fill_novalue(l, w * w);
    rt_fill_novalue(u, w * w);
    /* 1-based in the program, 0-based here */
    for (long i = 1; i <= n; i++)
        for (long j = 1; j <= n; j++)
            a[(i - 1) * n + (j - 1)] = (double)((i * 7 + j * 13) % 17 + (i == j) * 4 * n);
    double t0 = now();
    for (long i = 0; i < n; i++) {
        const double *li = l + i * n;
        for (long j = 0; j < n; j++) {
            long kmax = j <= i ? j : i;      /* L: k < j, U: k < i */
            double s = 0;
            if (kmax > 0) {
                s = li[0] * u[j];
                for (long k = 1; k < kmax; k++) s = s + li[k] * u[k * n + j];
            }
            if (j <= i) l[i * n + j] = a[i * n + j] - s;
            else u[i * n + j] = (a[i * n + j] - s) / li[i];
        }
    }
    double seconds = now() - t0;
    rt_checksum c;
    rt_checksum_init(&c);
    rt_checksum_doubles(&c, l, w * w);
    rt_checksum_doubles(&c, u, w * w);
    printf(RT_RESULT_FORMAT, (unsigned long long)rt_checksum_value(&c), seconds, 1);
    free(a);
    free(l);
    free(u);
    return 0;
}
