/* jacobi-2d.c — C reference for examples/polybench/jacobi-2d.apm (PolyBench/C 4.2.1 jacobi-2d). */
#include "pb.h"
#ifndef TSTEPS
#define TSTEPS 20
#endif
#ifndef N
#define N 30
#endif

int main(void)
{
    double (*A)[N] = pb_alloc(sizeof(double[N][N])), (*B)[N] = pb_alloc(sizeof(double[N][N]));
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            A[i][j] = ((double)i * (j + 2) + 2) / N;
            B[i][j] = ((double)i * (j + 3) + 3) / N;
        }
    for (int t = 0; t < TSTEPS; t++) {
        for (int i = 1; i < N - 1; i++)
            for (int j = 1; j < N - 1; j++)
                B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][1 + j] + A[1 + i][j] + A[i - 1][j]);
        for (int i = 1; i < N - 1; i++)
            for (int j = 1; j < N - 1; j++)
                A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][1 + j] + B[1 + i][j] + B[i - 1][j]);
    }
    pb_hash_doubles(A, (size_t)N * N);
    pb_print_checksum();
    return 0;
}
