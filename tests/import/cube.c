/* cube.c — three-dimensional arrays of fixed size from macros passed to a kernel that a helper
 * (not main) calls (import_styles.sh). */
#include "dump.h"
// style: 3-D arrays, a kernel called through another function
#ifndef N
#define N 6
#endif
// size2: N=3

static void kernel(double a[N][N][N], double s[N][N])
{
#pragma scop
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            s[i][j] = 0;
            for (int k = 0; k < N; k++)
                s[i][j] = s[i][j] + a[i][j][k] * a[k][j][i];
        }
#pragma endscop
}

static void run(double a[N][N][N], double s[N][N])
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            for (int k = 0; k < N; k++)
                a[i][j][k] = (i + j * k) % 4 - 1.0;
    kernel(a, s);
}

int main(void)
{
    static double a[N][N][N], s[N][N];
    run(a, s);
    DUMP_BEGIN("s");
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) DUMP_VALUE(s[i][j]);
    DUMP_END("s");
    return 0;
}
