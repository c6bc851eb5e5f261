/* rowptr_param.c — C99 as textbooks write it: the kernel takes pointers to rows, double (*a)[n],
 * which main allocates with malloc(sizeof(double[n][n])) and malloc(n * sizeof *b) for a size
 * read from the command line, its values from math.h, two assignments joined by a comma; no
 * #pragma scop (import_styles.sh). */
#include <math.h>
#include <stdlib.h>
#include "dump.h"
// style: pointer-to-row parameters, malloc(sizeof(double[n][n]))
// import: --param n=21
// run: 21

static void jacobi(int n, int steps, double (*restrict a)[n], double (*restrict b)[n])
{
    for (int t = 0; t < steps; t++) {
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                b[i][j] = 0.2 * (a[i][j] + a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]);
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                a[i][j] = b[i][j];
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 64;
    double (*a)[n] = malloc(sizeof(double[n][n]));
    double (*b)[n] = malloc(n * sizeof *b);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) a[i][j] = sin(0.1 * i) * exp(-j / 10.0) + (i * 3 + j) % 11, b[i][j] = 0;
    jacobi(n, 6, a, b);
    DUMP_BEGIN("a");
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) DUMP_VALUE(a[i][j]);
    DUMP_END("a");
    free(a);
    free(b);
    return 0;
}
