/* linear.c — linearised arrays: pointers allocated with malloc and indexed A[i * n + j] (and
 * C[(i * n + j) * m + k]) are delinearised to A[i][j] (import_styles.sh). */
#include <stdlib.h>
#include "dump.h"
// style: linearised pointers
#ifndef N
#define N 10
#endif
#ifndef M
#define M 4
#endif
// size2: -DN=6 -- -D n=6

static void kernel(int n, int m, double *A, double *B, double *C)
{
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            B[i * n + j] = 0;
            for (int k = 0; k < m; k++) {
                C[(i * n + j) * m + k] = A[i * n + j] * (k + 1);
                B[i * n + j] = B[i * n + j] + C[(i * n + j) * m + k] / m;
            }
        }
#pragma endscop
}

int main(void)
{
    int n = N, m = M;
    double *A = malloc(n * n * sizeof(double));
    double *B = malloc(sizeof(double) * n * n);
    double *C = calloc(n * n * m, sizeof *C);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            A[i * n + j] = (i + 2 * j) % 5 - 1.5;
    kernel(n, m, A, B, C);
    DUMP_BEGIN("B");
    for (int i = 0; i < n * n; i++) DUMP_VALUE(B[i]);
    DUMP_END("B");
    free(A);
    free(B);
    free(C);
    return 0;
}
