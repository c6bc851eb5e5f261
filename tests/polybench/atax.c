/* atax.c — C reference for examples/polybench/atax.apm (PolyBench/C 4.2.1 atax). */
#include "pb.h"
#ifndef M
#define M 38
#endif
#ifndef N
#define N 42
#endif

int main(void)
{
    double (*A)[N] = pb_alloc(sizeof(double[M][N]));
    double *x = pb_alloc(sizeof(double[N])), *y = pb_alloc(sizeof(double[N]));
    double *tmp = pb_alloc(sizeof(double[M]));
    double fn = (double)N;
    for (int i = 0; i < N; i++)
        x[i] = 1 + (i / fn);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            A[i][j] = (double)((i + j) % N) / (5 * M);
    for (int i = 0; i < N; i++)
        y[i] = 0;
    for (int i = 0; i < M; i++) {
        tmp[i] = 0.0;
        for (int j = 0; j < N; j++)
            tmp[i] = tmp[i] + A[i][j] * x[j];
        for (int j = 0; j < N; j++)
            y[j] = y[j] + A[i][j] * tmp[i];
    }
    pb_hash_doubles(y, N);
    pb_print_checksum();
    return 0;
}
