/* cholesky.c — C reference for examples/polybench/cholesky.apm (PolyBench/C 4.2.1 cholesky); the
 * whole array is hashed, as the .apm's output is (PolyBench prints the lower triangle only). */
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
                A[i][j] -= A[i][k] * A[j][k];
            A[i][j] /= A[j][j];
        }
        for (int k = 0; k < i; k++)
            A[i][i] -= A[i][k] * A[i][k];
        A[i][i] = sqrt(A[i][i]);
    }
    pb_hash_doubles(A, (size_t)N * N);
    pb_print_checksum();
    return 0;
}
