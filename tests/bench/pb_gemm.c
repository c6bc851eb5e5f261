/*
 * pb_gemm.c — PolyBench/C 4.2.1 gemm written by hand as examples/polybench/gemm.apm states it:
 * C := 1.5 A B + 1.2 C in place, row by row (i, then k, then j).  The baseline of
 * tests/bench/bench_polybench.sh.  Prints the result line over C (pbseq.h).
 */
#include "pbseq.h"

#ifndef NI
#define NI 500
#endif
#ifndef NJ
#define NJ 550
#endif
#ifndef NK
#define NK 600
#endif

static void kernel(double (*restrict C)[NJ], double (*restrict A)[NK], double (*restrict B)[NJ])
{
    for (int i = 0; i < NI; i++) {
        for (int j = 0; j < NJ; j++)
            C[i][j] = C[i][j] * 1.2;
        for (int k = 0; k < NK; k++)
            for (int j = 0; j < NJ; j++)
                C[i][j] = C[i][j] + 1.5 * A[i][k] * B[k][j];
    }
}

int main(void)
{
    double (*C)[NJ] = pbseq_alloc(sizeof(double[NI][NJ]));
    double (*A)[NK] = pbseq_alloc(sizeof(double[NI][NK]));
    double (*B)[NJ] = pbseq_alloc(sizeof(double[NK][NJ]));
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++)
            C[i][j] = 1.0 * ((i * j + 1) % NI) / NI;
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NK; j++)
            A[i][j] = 1.0 * (i * (j + 1) % NK) / NK;
    for (int i = 0; i < NK; i++)
        for (int j = 0; j < NJ; j++)
            B[i][j] = 1.0 * (i * (j + 2) % NJ) / NJ;
    double t0 = pbseq_now();
    kernel(C, A, B);
    double secs = pbseq_now() - t0;
    rt_checksum c;
    rt_checksum_init(&c);
    pbseq_hash(&c, C, (size_t)NI * NJ);
    pbseq_result(&c, secs);
    return 0;
}
