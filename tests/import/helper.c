/* helper.c — initial values through the file's own functions: a formula function with a local
 * value (called with C's int-to-double conversion of its arguments), an init function with
 * loops, and a formula used inside the region too (import_styles.sh). */
#include "dump.h"
// style: init through helper functions
#ifndef N
#define N 14
#endif
// size2: N=6

static double wave(double x, int k)
{
    double h = x / (k + 1);
    return h * h - 0.5 * x;
}

static int code(int i, int j) { return (i * 31 + j * 17) % 13; }

static void fill(double B[N][N])
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            B[i][j] = code(i, j) / 13.0;
}

static double weight(int i) { return 1.0 / (i + 2); }

int main(void)
{
    static double A[N][N], B[N][N], c[N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            A[i][j] = wave(i, j);
    fill(B);
#pragma scop
    for (int i = 0; i < N; i++) {
        c[i] = 0;
        for (int j = 0; j < N; j++)
            c[i] = c[i] + weight(j) * (A[i][j] + B[j][i]);
    }
#pragma endscop
    DUMP_BEGIN("c");
    for (int i = 0; i < N; i++) DUMP_VALUE(c[i]);
    DUMP_END("c");
    return 0;
}
