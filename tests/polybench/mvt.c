/* mvt.c — C reference for examples/polybench/mvt.apm (PolyBench/C 4.2.1 mvt). */
#include "pb.h"
#ifndef N
#define N 40
#endif

int main(void)
{
    double *x1 = pb_alloc(sizeof(double[N])), *x2 = pb_alloc(sizeof(double[N]));
    double *y_1 = pb_alloc(sizeof(double[N])), *y_2 = pb_alloc(sizeof(double[N]));
    double (*A)[N] = pb_alloc(sizeof(double[N][N]));
    for (int i = 0; i < N; i++) {
        x1[i] = (double)(i % N) / N;
        x2[i] = (double)((i + 1) % N) / N;
        y_1[i] = (double)((i + 3) % N) / N;
        y_2[i] = (double)((i + 4) % N) / N;
        for (int j = 0; j < N; j++)
            A[i][j] = (double)(i * j % N) / N;
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            x1[i] = x1[i] + A[i][j] * y_1[j];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            x2[i] = x2[i] + A[j][i] * y_2[j];
    pb_hash_doubles(x1, N);
    pb_hash_doubles(x2, N);
    pb_print_checksum();
    return 0;
}
