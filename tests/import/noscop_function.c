/* noscop_function.c — no #pragma scop: the kernel is a function's loop nest (a function other
 * than main, whose loops call only math.h), found without --function (import_styles.sh). */
#include <math.h>
#include "dump.h"
// style: no #pragma scop, the kernel a function's loops
#ifndef N
#define N 25
#endif
#define M 18
// size2: N=12

double x[N], y[M], A[M][N];

static void matvec(void)
{
    for (int i = 0; i < M; i += 1) {
        double acc = 0;
        for (int j = 0; j < N; j++)
            acc += A[i][j] * x[j];
        y[i] = acc > 0 ? sqrt(acc) : -acc;
    }
}

int main(void)
{
    for (int j = 0; j < N; j++) x[j] = 1.0 / (j + 1);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) A[i][j] = sin(i + j);
    matvec();
    DUMP_BEGIN("y");
    for (int i = 0; i < M; i++) DUMP_VALUE(y[i]);
    DUMP_END("y");
    return 0;
}
