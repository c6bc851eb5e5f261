/* gemm.c — C reference for examples/polybench/gemm.apm (PolyBench/C 4.2.1 gemm). */
#include "pb.h"
#ifndef NI
#define NI 20
#endif
#ifndef NJ
#define NJ 25
#endif
#ifndef NK
#define NK 30
#endif

int main(void)
{
    double alpha = 1.5, beta = 1.2;
    double (*C)[NJ] = pb_alloc(sizeof(double[NI][NJ]));
    double (*A)[NK] = pb_alloc(sizeof(double[NI][NK]));
    double (*B)[NJ] = pb_alloc(sizeof(double[NK][NJ]));
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++)
            C[i][j] = (double)((i * j + 1) % NI) / NI;
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NK; j++)
            A[i][j] = (double)(i * (j + 1) % NK) / NK;
    for (int i = 0; i < NK; i++)
        for (int j = 0; j < NJ; j++)
            B[i][j] = (double)(i * (j + 2) % NJ) / NJ;
    for (int i = 0; i < NI; i++) {
        for (int j = 0; j < NJ; j++)
            C[i][j] *= beta;
        for (int k = 0; k < NK; k++)
            for (int j = 0; j < NJ; j++)
                C[i][j] += alpha * A[i][k] * B[k][j];
    }
    pb_hash_doubles(C, (size_t)NI * NJ);
    pb_print_checksum();
    return 0;
}
