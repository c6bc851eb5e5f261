/*
 * pb_2mm.c — PolyBench/C 4.2.1 2mm written by hand as examples/polybench/2mm.apm states it:
 * tmp := 1.5 A B, then D := tmp C + 1.2 D, each element accumulated in place over k.  The
 * baseline of tests/bench/bench_polybench.sh.  Prints the result line over D (pbseq.h).
 */
#include "pbseq.h"

#ifndef NI
#define NI 400
#endif
#ifndef NJ
#define NJ 450
#endif
#ifndef NK
#define NK 500
#endif
#ifndef NL
#define NL 550
#endif

static void kernel(double (*restrict tmp)[NJ], double (*restrict A)[NK], double (*restrict B)[NJ],
                   double (*restrict C)[NL], double (*restrict D)[NL])
{
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++) {
            tmp[i][j] = 0.0;
            for (int k = 0; k < NK; k++)
                tmp[i][j] = tmp[i][j] + 1.5 * A[i][k] * B[k][j];
        }
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NL; j++) {
            D[i][j] = D[i][j] * 1.2;
            for (int k = 0; k < NJ; k++)
                D[i][j] = D[i][j] + tmp[i][k] * C[k][j];
        }
}

int main(void)
{
    double (*tmp)[NJ] = pbseq_alloc(sizeof(double[NI][NJ]));
    double (*A)[NK] = pbseq_alloc(sizeof(double[NI][NK]));
    double (*B)[NJ] = pbseq_alloc(sizeof(double[NK][NJ]));
    double (*C)[NL] = pbseq_alloc(sizeof(double[NJ][NL]));
    double (*D)[NL] = pbseq_alloc(sizeof(double[NI][NL]));
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NK; j++)
            A[i][j] = 1.0 * ((i * j + 1) % NI) / NI;
    for (int i = 0; i < NK; i++)
        for (int j = 0; j < NJ; j++)
            B[i][j] = 1.0 * (i * (j + 1) % NJ) / NJ;
    for (int i = 0; i < NJ; i++)
        for (int j = 0; j < NL; j++)
            C[i][j] = 1.0 * ((i * (j + 3) + 1) % NL) / NL;
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NL; j++)
            D[i][j] = 1.0 * (i * (j + 2) % NK) / NK;
    double t0 = pbseq_now();
    kernel(tmp, A, B, C, D);
    double secs = pbseq_now() - t0;
    rt_checksum c;
    rt_checksum_init(&c);
    pbseq_hash(&c, D, (size_t)NI * NL);
    pbseq_result(&c, secs);
    return 0;
}
