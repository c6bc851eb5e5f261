/*
 * pb_lu.c — PolyBench/C 4.2.1 lu written by hand as examples/polybench/lu.apm states it: LU
 * decomposition without pivoting, in place, of A = A0 A0^T (A0 lower triangular, ones on the
 * diagonal, A0[i][j] = -j % N / N + 1 below it; the product summed over t in increasing order).
 * The baseline of tests/bench/bench_polybench.sh.  Prints the result line over A (pbseq.h).
 */
#include "pbseq.h"

#ifndef N
#define N 1024
#endif

static void init(double (*restrict A)[N], double (*restrict A0)[N])
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            A0[i][j] = j < i ? 1.0 * -(j % N) / N + 1 : j == i ? 1 : 0;
    for (int r = 0; r < N; r++)
        for (int s = 0; s < N; s++) {
            double sum = 0;
            for (int t = 0; t < N; t++)
                sum = sum + A0[r][t] * A0[s][t];
            A[r][s] = sum;
        }
}

static void kernel(double (*A)[N])
{
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < i; j++) {
            for (int k = 0; k < j; k++)
                A[i][j] = A[i][j] - A[i][k] * A[k][j];
            A[i][j] = A[i][j] / A[j][j];
        }
        for (int j = i; j < N; j++)
            for (int k = 0; k < i; k++)
                A[i][j] = A[i][j] - A[i][k] * A[k][j];
    }
}

int main(void)
{
    double (*A)[N] = pbseq_alloc(sizeof(double[N][N]));
    double (*A0)[N] = pbseq_alloc(sizeof(double[N][N]));
    init(A, A0);
    free(A0);
    double t0 = pbseq_now();
    kernel(A);
    double secs = pbseq_now() - t0;
    rt_checksum c;
    rt_checksum_init(&c);
    pbseq_hash(&c, A, (size_t)N * N);
    pbseq_result(&c, secs);
    return 0;
}
