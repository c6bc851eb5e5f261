/*
 * pb_jacobi2d.c — PolyBench/C 4.2.1 jacobi-2d written by hand as examples/polybench/jacobi-2d.apm
 * states it: five-point Jacobi, A into B then B back into A, TSTEPS times on N x N.  The baseline
 * of tests/bench/bench_polybench.sh.  Prints the result line over A (pbseq.h).
 */
#include "pbseq.h"

#ifndef TSTEPS
#define TSTEPS 100
#endif
#ifndef N
#define N 1000
#endif

static void kernel(double (*restrict A)[N], double (*restrict B)[N])
{
    for (int t = 0; t < TSTEPS; t++) {
        for (int i = 1; i < N - 1; i++)
            for (int j = 1; j < N - 1; j++)
                B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i + 1][j] + A[i - 1][j]);
        for (int i = 1; i < N - 1; i++)
            for (int j = 1; j < N - 1; j++)
                A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][j + 1] + B[i + 1][j] + B[i - 1][j]);
    }
}

int main(void)
{
    double (*A)[N] = pbseq_alloc(sizeof(double[N][N]));
    double (*B)[N] = pbseq_alloc(sizeof(double[N][N]));
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            A[i][j] = (1.0 * i * (j + 2) + 2) / N;
            B[i][j] = (1.0 * i * (j + 3) + 3) / N;
        }
    double t0 = pbseq_now();
    kernel(A, B);
    double secs = pbseq_now() - t0;
    rt_checksum c;
    rt_checksum_init(&c);
    pbseq_hash(&c, A, (size_t)N * N);
    pbseq_result(&c, secs);
    return 0;
}
