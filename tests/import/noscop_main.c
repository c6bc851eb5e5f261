/* noscop_main.c — no #pragma scop at all, everything in main as a quick benchmark driver writes
 * it: the init loops, a timer, the kernel's nest (the deepest of main's loop nests that call
 * nothing but math.h), the timer again, a checksum loop that prints (import_styles.sh). */
#include <stdio.h>
#include <time.h>
#include "dump.h"
// style: no #pragma scop, the kernel found in main
#ifndef N
#define N 20
#endif
// size2: N=9

static double A[N][N], B[N][N], C[N][N];

int main(void)
{
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) {
            A[i][j] = (double)(i + j) / N;
            B[i][j] = (double)(i * j % 7) / N;
            C[i][j] = 0.0;
        }
    clock_t t0 = clock();
    for (int i = 0; i < N; ++i)
        for (int k = 0; k < N; ++k)
            for (int j = 0; j < N; ++j)
                C[i][j] += A[i][k] * B[k][j];
    clock_t t1 = clock();
    double s = 0;
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j)
            s += C[i][j];
    printf("%g %g\n", s, (double)(t1 - t0) / CLOCKS_PER_SEC);
    DUMP_BEGIN("C");
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) DUMP_VALUE(C[i][j]);
    DUMP_END("C");
    return 0;
}
