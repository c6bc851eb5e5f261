/*
 * pb_fdtd2d.c — PolyBench/C 4.2.1 fdtd-2d written by hand as examples/polybench/fdtd-2d.apm
 * states it: the fields ey, ex and hz updated in place TMAX times on NX x NY, ey's first row from
 * fict[t] = t.  The baseline of tests/bench/bench_polybench.sh.  Prints the result line over ex,
 * ey, hz in that order (pbseq.h).
 */
#include "pbseq.h"

#ifndef TMAX
#define TMAX 100
#endif
#ifndef NX
#define NX 1000
#endif
#ifndef NY
#define NY 1200
#endif

static void kernel(double (*restrict ex)[NY], double (*restrict ey)[NY], double (*restrict hz)[NY],
                   const double *restrict fict)
{
    for (int t = 0; t < TMAX; t++) {
        for (int j = 0; j < NY; j++)
            ey[0][j] = fict[t];
        for (int i = 1; i < NX; i++)
            for (int j = 0; j < NY; j++)
                ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j]);
        for (int i = 0; i < NX; i++)
            for (int j = 1; j < NY; j++)
                ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j - 1]);
        for (int i = 0; i < NX - 1; i++)
            for (int j = 0; j < NY - 1; j++)
                hz[i][j] = hz[i][j] - 0.7 * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
    }
}

int main(void)
{
    double (*ex)[NY] = pbseq_alloc(sizeof(double[NX][NY]));
    double (*ey)[NY] = pbseq_alloc(sizeof(double[NX][NY]));
    double (*hz)[NY] = pbseq_alloc(sizeof(double[NX][NY]));
    double *fict = pbseq_alloc(sizeof(double[TMAX]));
    for (int t = 0; t < TMAX; t++)
        fict[t] = 1.0 * t;
    for (int i = 0; i < NX; i++)
        for (int j = 0; j < NY; j++) {
            ex[i][j] = 1.0 * i * (j + 1) / NX;
            ey[i][j] = 1.0 * i * (j + 2) / NY;
            hz[i][j] = 1.0 * i * (j + 3) / NX;
        }
    double t0 = pbseq_now();
    kernel(ex, ey, hz, fict);
    double secs = pbseq_now() - t0;
    rt_checksum c;
    rt_checksum_init(&c);
    pbseq_hash(&c, ex, (size_t)NX * NY);
    pbseq_hash(&c, ey, (size_t)NX * NY);
    pbseq_hash(&c, hz, (size_t)NX * NY);
    pbseq_result(&c, secs);
    return 0;
}
