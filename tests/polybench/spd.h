/* spd.h — PolyBench's init_array of lu and cholesky (the same code in both): a lower triangular
 * A0 with ones on the diagonal, then A = A0 A0^T accumulated over t in increasing order. */
#ifndef SPD_H
#define SPD_H
#include "pb.h"

static void spd_init(int n, double (*A)[n])
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j <= i; j++)
            A[i][j] = (double)(-j % n) / n + 1;
        for (int j = i + 1; j < n; j++)
            A[i][j] = 0;
        A[i][i] = 1;
    }
    double (*B)[n] = pb_alloc(sizeof(double[n][n]));
    for (int t = 0; t < n; ++t)
        for (int r = 0; r < n; ++r)
            for (int s = 0; s < n; ++s)
                B[r][s] += A[r][t] * A[s][t];
    for (int r = 0; r < n; ++r)
        for (int s = 0; s < n; ++s)
            A[r][s] = B[r][s];
    free(B);
}
#endif
