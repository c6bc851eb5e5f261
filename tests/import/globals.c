/* globals.c — the most common style: global arrays and a global scalar used directly by a kernel
 * function without arguments, sizes from macros (import_styles.sh). */
#include "dump.h"
// style: globals
#ifndef N
#define N 24
#endif
// size2: N=13

double A[N][N], x[N], y[N];
double alpha = 1.5;

static void kernel(void)
{
#pragma scop
    for (int i = 0; i < N; i++) {
        y[i] = 0;
        for (int j = 0; j < N; j++)
            y[i] = y[i] + alpha * A[i][j] * x[j];
    }
#pragma endscop
}

int main(void)
{
    for (int i = 0; i < N; i++) {
        x[i] = (i % 5) / 5.0;
        for (int j = 0; j < N; j++)
            A[i][j] = ((i * j) % 7) / 7.0 - 0.25;
    }
    kernel();
    DUMP_BEGIN("y");
    for (int i = 0; i < N; i++) DUMP_VALUE(y[i]);
    DUMP_END("y");
    return 0;
}
