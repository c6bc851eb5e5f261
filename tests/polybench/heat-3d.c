/* heat-3d.c — C reference for examples/polybench/heat-3d.apm (PolyBench/C 4.2.1 heat-3d) and, with
 * -DNONLINEAR, for heat-3d-nl.apm (the same kernel on a non-linear input). */
#include "pb.h"
#ifndef TSTEPS
#define TSTEPS 20
#endif
#ifndef N
#define N 10
#endif

static double input(int i, int j, int k)
{
#ifdef NONLINEAR
    return (double)((i * i * 3 + j * k * 5 + k * k + i * j * k) % 17) / N;
#else
    return (double)(i + j + (N - k)) * 10 / (N);
#endif
}

int main(void)
{
    double (*A)[N][N] = pb_alloc(sizeof(double[N][N][N]));
    double (*B)[N][N] = pb_alloc(sizeof(double[N][N][N]));
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            for (int k = 0; k < N; k++)
                A[i][j][k] = B[i][j][k] = input(i, j, k);
    for (int t = 1; t <= TSTEPS; t++) {
        for (int i = 1; i < N - 1; i++)
            for (int j = 1; j < N - 1; j++)
                for (int k = 1; k < N - 1; k++)
                    B[i][j][k] = 0.125 * (A[i + 1][j][k] - 2.0 * A[i][j][k] + A[i - 1][j][k])
                                 + 0.125 * (A[i][j + 1][k] - 2.0 * A[i][j][k] + A[i][j - 1][k])
                                 + 0.125 * (A[i][j][k + 1] - 2.0 * A[i][j][k] + A[i][j][k - 1])
                                 + A[i][j][k];
        for (int i = 1; i < N - 1; i++)
            for (int j = 1; j < N - 1; j++)
                for (int k = 1; k < N - 1; k++)
                    A[i][j][k] = 0.125 * (B[i + 1][j][k] - 2.0 * B[i][j][k] + B[i - 1][j][k])
                                 + 0.125 * (B[i][j + 1][k] - 2.0 * B[i][j][k] + B[i][j - 1][k])
                                 + 0.125 * (B[i][j][k + 1] - 2.0 * B[i][j][k] + B[i][j][k - 1])
                                 + B[i][j][k];
    }
    pb_hash_doubles(A, (size_t)N * N * N);
    pb_print_checksum();
    return 0;
}
