/* timing.c — what surrounds the region is not the kernel: timers (rtclock, gettimeofday,
 * clock), prints, an allocation that is freed, asserts; the code after the region is read only
 * for its outputs (import_styles.sh). */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include "dump.h"
// style: timing
#define N 18
#define T 5

static double rtclock(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec + tv.tv_usec * 1.0e-6;
}

int main(void)
{
    static double a[T + 1][N];
    double t_start, t_end;
    struct timeval tv;
    int *scratch = malloc(N * sizeof *scratch);
    for (int i = 0; i < N; i++) a[0][i] = (i * 7 % 5) - 2.0;
    gettimeofday(&tv, NULL);
    clock_t c0 = clock();
    t_start = rtclock();
    printf("running\n");
    assert(N > 2);
#pragma scop
    for (int t = 1; t <= T; t++) {
        a[t][0] = a[t - 1][0];
        a[t][N - 1] = a[t - 1][N - 1];
        for (int i = 1; i < N - 1; i++)
            a[t][i] = (a[t - 1][i - 1] + a[t - 1][i] + a[t - 1][i + 1]) / 3;
    }
#pragma endscop
    t_end = rtclock();
    assert(a[T][0] == a[0][0]);
    printf("%.3f s, %ld ticks\n", t_end - t_start, (long)(clock() - c0));
    free(scratch);
    DUMP_BEGIN("a");
    for (int t = 0; t <= T; t++)
        for (int i = 0; i < N; i++) DUMP_VALUE(a[t][i]);
    DUMP_END("a");
    return 0;
}
