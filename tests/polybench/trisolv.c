/* trisolv.c — C reference for examples/polybench/trisolv.apm (PolyBench/C 4.2.1 trisolv). */
#include "pb.h"
#ifndef N
#define N 40
#endif

int main(void)
{
    double (*L)[N] = pb_alloc(sizeof(double[N][N]));
    double *x = pb_alloc(sizeof(double[N])), *b = pb_alloc(sizeof(double[N]));
    for (int i = 0; i < N; i++) {
        x[i] = -999;
        b[i] = i;
        for (int j = 0; j <= i; j++)
            L[i][j] = (double)(i + N - j + 1) * 2 / N;
    }
    for (int i = 0; i < N; i++) {
        x[i] = b[i];
        for (int j = 0; j < i; j++)
            x[i] -= L[i][j] * x[j];
        x[i] = x[i] / L[i][i];
    }
    pb_hash_doubles(x, N);
    pb_print_checksum();
    return 0;
}
