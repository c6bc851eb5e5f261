/* lu.c — C reference for examples/polybench/lu.apm (PolyBench/C 4.2.1 lu). */
#include "spd.h"
#ifndef N
#define N 40
#endif

int main(void)
{
    double (*A)[N] = pb_alloc(sizeof(double[N][N]));
    spd_init(N, A);
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < i; j++) {
            for (int k = 0; k < j; k++)
                A[i][j] -= A[i][k] * A[k][j];
            A[i][j] /= A[j][j];
        }
        for (int j = i; j < N; j++)
            for (int k = 0; k < i; k++)
                A[i][j] -= A[i][k] * A[k][j];
    }
    pb_hash_doubles(A, (size_t)N * N);
    pb_print_checksum();
    return 0;
}
