/*
 * pb_atax.c — PolyBench/C 4.2.1 atax written by hand as examples/polybench/atax.apm states it:
 * y = A^T (A x), tmp[i] the row products, y accumulated in place.  The baseline of
 * tests/bench/bench_polybench.sh.  Prints the result line over y (pbseq.h).
 */
#include "pbseq.h"

#ifndef M
#define M 4000
#endif
#ifndef N
#define N 4000
#endif

static void kernel(double (*restrict A)[N], const double *restrict x, double *restrict y,
                   double *restrict tmp)
{
    for (int i = 0; i < N; i++)
        y[i] = 0;
    for (int i = 0; i < M; i++) {
        tmp[i] = 0.0;
        for (int j = 0; j < N; j++)
            tmp[i] = tmp[i] + A[i][j] * x[j];
        for (int j = 0; j < N; j++)
            y[j] = y[j] + A[i][j] * tmp[i];
    }
}

int main(void)
{
    double (*A)[N] = pbseq_alloc(sizeof(double[M][N]));
    double *x = pbseq_alloc(sizeof(double[N]));
    double *y = pbseq_alloc(sizeof(double[N]));
    double *tmp = pbseq_alloc(sizeof(double[M]));
    for (int i = 0; i < N; i++)
        x[i] = 1 + i / (1.0 * N);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            A[i][j] = 1.0 * ((i + j) % N) / (5 * M);
    double t0 = pbseq_now();
    kernel(A, x, y, tmp);
    double secs = pbseq_now() - t0;
    rt_checksum c;
    rt_checksum_init(&c);
    pbseq_hash(&c, y, (size_t)N);
    pbseq_result(&c, secs);
    return 0;
}
