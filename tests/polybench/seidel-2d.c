/* seidel-2d.c — C reference for examples/polybench/seidel-2d.apm (PolyBench/C 4.2.1 seidel-2d). */
#include "pb.h"
#ifndef TSTEPS
#define TSTEPS 20
#endif
#ifndef N
#define N 40
#endif

int main(void)
{
    double (*A)[N] = pb_alloc(sizeof(double[N][N]));
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            A[i][j] = ((double)i * (j + 2) + 2) / N;
    for (int t = 0; t <= TSTEPS - 1; t++)
        for (int i = 1; i <= N - 2; i++)
            for (int j = 1; j <= N - 2; j++)
                A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1]
                           + A[i][j - 1] + A[i][j] + A[i][j + 1]
                           + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0;
    pb_hash_doubles(A, (size_t)N * N);
    pb_print_checksum();
    return 0;
}
