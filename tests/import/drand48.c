/* drand48.c — k-means style initial values from drand48() after srand48(7): points in a 2-D
 * array, cluster labels from lrand48() % K (one state: the calls interleave), a kernel function
 * with parameters called from main (import_styles.sh). */
#include <stdlib.h>
#include "dump.h"
// style: drand48() and lrand48() after srand48
#ifndef NPTS
#define NPTS 40
#endif
#define DIM 3
#define K 4
// size2: -DNPTS=23 -- -D n=23

static void centroids(int n, double pts[n][DIM], int label[n], double sum[K][DIM], double cnt[K])
{
#pragma scop
    for (int c = 0; c < K; c++) {
        cnt[c] = 0;
        for (int d = 0; d < DIM; d++)
            sum[c][d] = 0;
    }
    for (int p = 0; p < n; p++)
        for (int c = 0; c < K; c++) {
            cnt[c] = cnt[c] + (label[p] == c);
            for (int d = 0; d < DIM; d++)
                sum[c][d] = sum[c][d] + (label[p] == c) * pts[p][d];
        }
#pragma endscop
}

int main(void)
{
    static double pts[NPTS][DIM], sum[K][DIM], cnt[K];
    static int label[NPTS];
    srand48(7);
    for (int p = 0; p < NPTS; p++) {
        for (int d = 0; d < DIM; d++)
            pts[p][d] = 10.0 * drand48() - 5.0;
        label[p] = lrand48() % K;
    }
    centroids(NPTS, pts, label, sum, cnt);
    DUMP_BEGIN("sum");
    for (int c = 0; c < K; c++)
        for (int d = 0; d < DIM; d++) DUMP_VALUE(sum[c][d]);
    DUMP_END("sum");
    DUMP_BEGIN("cnt");
    for (int c = 0; c < K; c++) DUMP_VALUE(cnt[c]);
    DUMP_END("cnt");
    return 0;
}
