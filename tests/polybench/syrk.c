/* syrk.c — C reference for examples/polybench/syrk.apm (PolyBench/C 4.2.1 syrk). */
#include "pb.h"
#ifndef M
#define M 20
#endif
#ifndef N
#define N 30
#endif

int main(void)
{
    double alpha = 1.5, beta = 1.2;
    double (*C)[N] = pb_alloc(sizeof(double[N][N]));
    double (*A)[M] = pb_alloc(sizeof(double[N][M]));
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            A[i][j] = (double)((i * j + 1) % N) / N;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            C[i][j] = (double)((i * j + 2) % M) / M;
    for (int i = 0; i < N; i++) {
        for (int j = 0; j <= i; j++)
            C[i][j] *= beta;
        for (int k = 0; k < M; k++)
            for (int j = 0; j <= i; j++)
                C[i][j] += alpha * A[i][k] * A[j][k];
    }
    pb_hash_doubles(C, (size_t)N * N);
    pb_print_checksum();
    return 0;
}
