/* vla.c — variable-length array parameters whose extents are the kernel's integer arguments,
 * called with values main computes in loops first (import_styles.sh). */
#include "dump.h"
// style: vla
#ifndef N
#define N 40
#endif
// size2: -DN=11 -- -D n=11

static void heat(int n, int steps, double u[2][n])
{
#pragma scop
    for (int t = 0; t < steps; t++) {
        for (int i = 1; i < n - 1; i++)
            u[(t + 1) % 2][i] = 0.25 * u[t % 2][i - 1] + 0.5 * u[t % 2][i] + 0.25 * u[t % 2][i + 1];
        u[(t + 1) % 2][0] = u[t % 2][0];
        u[(t + 1) % 2][n - 1] = u[t % 2][n - 1];
    }
#pragma endscop
}

int main(void)
{
    static double v[2][N];
    for (int i = 0; i < N; i++) v[0][i] = (i * i % 11) / 11.0;
    heat(N, 6, v);
    DUMP_BEGIN("u");
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < N; i++) DUMP_VALUE(v[k][i]);
    DUMP_END("u");
    return 0;
}
