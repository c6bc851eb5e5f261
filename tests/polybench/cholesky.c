/* cholesky.c — C reference for examples/polybench/cholesky.apm (PolyBench/C 4.2.1 cholesky); the
 * whole array is hashed, as the .apm's output is, or with -DLOWER_TRIANGLE only the lower triangle
 * row by row, as PolyBench prints it (source.sh compares that with PolyBench's own dump). */
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
#ifdef LOWER_TRIANGLE
    for (int i = 0; i < N; i++)
        pb_hash_doubles(A[i], (size_t)i + 1);
#else
    pb_hash_doubles(A, (size_t)N * N);
#endif
    pb_print_checksum();
    return 0;
}
