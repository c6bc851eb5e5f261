/* 2mm.c — C reference for examples/polybench/2mm.apm (PolyBench/C 4.2.1 2mm). */
#include "pb.h"
#ifndef NI
#define NI 16
#endif
#ifndef NJ
#define NJ 18
#endif
#ifndef NK
#define NK 22
#endif
#ifndef NL
#define NL 24
#endif

int main(void)
{
    double alpha = 1.5, beta = 1.2;
    double (*tmp)[NJ] = pb_alloc(sizeof(double[NI][NJ]));
    double (*A)[NK] = pb_alloc(sizeof(double[NI][NK]));
    double (*B)[NJ] = pb_alloc(sizeof(double[NK][NJ]));
    double (*C)[NL] = pb_alloc(sizeof(double[NJ][NL]));
    double (*D)[NL] = pb_alloc(sizeof(double[NI][NL]));
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NK; j++)
            A[i][j] = (double)((i * j + 1) % NI) / NI;
    for (int i = 0; i < NK; i++)
        for (int j = 0; j < NJ; j++)
            B[i][j] = (double)(i * (j + 1) % NJ) / NJ;
    for (int i = 0; i < NJ; i++)
        for (int j = 0; j < NL; j++)
            C[i][j] = (double)((i * (j + 3) + 1) % NL) / NL;
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NL; j++)
            D[i][j] = (double)(i * (j + 2) % NK) / NK;
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++) {
            tmp[i][j] = 0.0;
            for (int k = 0; k < NK; ++k)
                tmp[i][j] += alpha * A[i][k] * B[k][j];
        }
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NL; j++) {
            D[i][j] *= beta;
            for (int k = 0; k < NJ; ++k)
                D[i][j] += tmp[i][k] * C[k][j];
        }
    pb_hash_doubles(D, (size_t)NI * NL);
    pb_print_checksum();
    return 0;
}
