/* jacobi-1d.c — C reference for examples/polybench/jacobi-1d.apm (PolyBench/C 4.2.1 jacobi-1d). */
#include "pb.h"
#ifndef TSTEPS
#define TSTEPS 20
#endif
#ifndef N
#define N 30
#endif

int main(void)
{
    double *A = pb_alloc(sizeof(double[N])), *B = pb_alloc(sizeof(double[N]));
    for (int i = 0; i < N; i++) {
        A[i] = ((double)i + 2) / N;
        B[i] = ((double)i + 3) / N;
    }
    for (int t = 0; t < TSTEPS; t++) {
        for (int i = 1; i < N - 1; i++)
            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
        for (int i = 1; i < N - 1; i++)
            A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
    }
    pb_hash_doubles(A, N);
    pb_print_checksum();
    return 0;
}
