/* pointer1d.c — kernel arguments written as pointers (double *x, const double *y) that main
 * passes its static arrays to: one-dimensional arrays of those arrays' extents (import_styles.sh). */
#include "dump.h"
// style: pointer arguments to fixed arrays
#define N 33

static void saxpy(int n, double a, const double *x, double *y)
{
#pragma scop
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
#pragma endscop
}

int main(void)
{
    static double x[N], y[N];
    for (int i = 0; i < N; i++) {
        x[i] = i * 0.3;
        y[i] = 1.0 / (i + 1);
    }
    saxpy(N, 0.5, x, y);
    DUMP_BEGIN("y");
    for (int i = 0; i < N; i++) DUMP_VALUE(y[i]);
    DUMP_END("y");
    return 0;
}
