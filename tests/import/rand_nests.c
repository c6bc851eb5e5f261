/* rand_nests.c — a shortest-paths driver: a size read from the command line (n = atoi(argv[1]),
 * default 20), srand(5), a distance matrix from rand() % 100 in one nest, its diagonal zeroed,
 * then a 3-D nest and a scalar that continue the sequence: each nest's call numbers start after
 * the calls of the nests before it; the kernel one min-plus product (import_styles.sh). */
#include <stdlib.h>
#include "dump.h"
// style: rand() in consecutive nests, a size from argv
// import: --param n=16
// run: 16

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20;
    int (*d)[n] = malloc(n * sizeof *d);
    int (*e)[n] = malloc(n * sizeof *e);
    double (*t)[n][2] = malloc(n * sizeof *t);
    double bias;
    srand(5);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            d[i][j] = 1 + rand() % 100;
    for (int i = 0; i < n; i++)
        d[i][i] = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < 2; k++)
                t[i][j][k] = rand() % 1000 / 1000.0;
    bias = rand() / (RAND_MAX + 1.0);
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            e[i][j] = d[i][j];
            for (int k = 0; k < n; k++)
                e[i][j] = e[i][j] < d[i][k] + d[k][j] ? e[i][j] : d[i][k] + d[k][j];
            t[i][j][0] = t[i][j][0] * e[i][j] + t[i][j][1] + bias;
        }
#pragma endscop
    DUMP_BEGIN("e");
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) DUMP_VALUE(e[i][j]);
    DUMP_END("e");
    DUMP_BEGIN("t");
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < 2; k++) DUMP_VALUE(t[i][j][k]);
    DUMP_END("t");
    free(d);
    free(e);
    free(t);
    return 0;
}
