/* statics.c — file-scope static arrays and the region in main (import_styles.sh). */
#include "dump.h"
// style: statics
#ifndef N
#define N 20
#endif
// size2: N=9

static double u[N][N], v[N][N];

int main(void)
{
    int i, j;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            u[i][j] = (double)((i + 2 * j) % 9) / 3;
#pragma scop
    for (i = 1; i < N - 1; i++)
        for (j = 1; j < N - 1; j++)
            v[i][j] = 0.2 * (u[i][j] + u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
#pragma endscop
    DUMP_BEGIN("v");
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) DUMP_VALUE(v[i][j]);
    DUMP_END("v");
    return 0;
}
