/* atoi.c — sizes the program reads from its command line: n = atoi(argv[1]) with a default
 * when absent, m given at import (--param m=9, and 9 on the command line); the arrays are
 * variable-length arrays of a kernel function (import_styles.sh). */
#include <stdlib.h>
#include "dump.h"
// style: atoi(argv) sizes
// import: --param m=9
// run: 12 9

static void scale(int n, int m, double A[n][m], double r[n])
{
#pragma scop
    for (int i = 0; i < n; i++) {
        r[i] = 0;
        for (int j = 0; j < m; j++)
            r[i] = r[i] + A[i][j] * (j + 1);
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 12;
    int m = atoi(argv[2]);
    double (*A)[m] = malloc(sizeof(double[n][m]));
    double *r = malloc(n * sizeof *r);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            A[i][j] = (i - j) / 4.0;
    scale(n, m, A, r);
    DUMP_BEGIN("r");
    for (int i = 0; i < n; i++) DUMP_VALUE(r[i]);
    DUMP_END("r");
    free(A);
    free(r);
    return 0;
}
