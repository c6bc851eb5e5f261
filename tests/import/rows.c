/* rows.c — heap arrays through pointers to rows, double (*A)[m] = malloc(n * sizeof *A), used as
 * A[i][j] with the region in main (the first extent from the allocation) (import_styles.sh). */
#include <stdlib.h>
#include "dump.h"
// style: pointers to rows
#ifndef N
#define N 9
#endif
// size2: -DN=5 -- -D n=5

int main(void)
{
    int n = N, m = 7;
    double (*A)[m] = malloc(n * sizeof *A);
    double (*B)[m] = calloc(n, sizeof *B);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            A[i][j] = (i + j) % 4 - 1.5;
#pragma scop
    for (int i = 1; i < n; i++)
        for (int j = 0; j < m; j++)
            B[i][j] = A[i][j] * A[i - 1][j] + B[i - 1][j];
#pragma endscop
    DUMP_BEGIN("B");
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) DUMP_VALUE(B[i][j]);
    DUMP_END("B");
    free(A);
    free(B);
    return 0;
}
