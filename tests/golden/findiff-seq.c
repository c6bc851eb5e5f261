/*
 * findiff.c — program findiff (level source), exported by polyapm from findiff.apm.
 * Sequential C: the program's loops as written (at syn, the processors of a step one after
 * another, which a verified program allows).
 * Prints `polyapm-result checksum=.. seconds=.. ranks=..`: the outputs' checksum, identical to
 * `polyapm sim`'s, and the seconds of the main loop.
 */
#define _POSIX_C_SOURCE 200809L   /* clock_gettime */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "rt_checksum.h"
#include "rt_int.h"   /* the integer semantics: intsem.h */

/* parameters */
static const int64_t n = 16;
static const int64_t steps = 6;

/* a: the whole array; only the 2 live planes of dimension 0 (index modulo 2) */
static double *a;

/* The arrays allocated (an element without value holds rt_novalue()), the inits applied. */
static void init_arrays(void)
{
    a = rt_alloc_novalue((size_t)(2 * n * n));
    /* init a */
    {   /* the fixed index */
        const int64_t g0 = 0;
        for (int64_t x = 0, x_end = n - 1; x <= x_end; x++) {
            for (int64_t y = 0, y_end = n - 1; y <= y_end; y++) {
                a[(imod(g0, 2) * n + x) * n + y] = imod(x * 31 + y * 17, 13);
            }
        }
    }
}

/* The computation: the program's statements in order.
 * The arrays are restrict parameters (each is its own allocation) and the function is not
 * inlined into main, where they are the globals again: gcc vectorises its loops without
 * runtime alias checks. */
static __attribute__((noinline)) void compute_B_S(double *restrict a)
{
    for (int64_t t = 1, t_end = steps; t <= t_end; t += 1) {
        for (int64_t x = 0, x_end = n - 1; x <= x_end; x += 1) {
            const int64_t rt_row1 = (imod(t, 2) * n + x) * n;   /* a[t][x][..] */
            const int64_t rt_row2 = (imod(t - 1, 2) * n + x) * n;   /* a[t - 1][x][..] */
            const int64_t rt_row3 = (imod(t - 1, 2) * n + x - 1) * n;   /* a[t - 1][x - 1][..] */
            const int64_t rt_row4 = (imod(t - 1, 2) * n + x + 1) * n;   /* a[t - 1][x + 1][..] */
            /* x == 0 || y == 0 || x == n - 1 || y == n - 1: the loop over y split at the points
             * where the test holds */
            if ((x == 0) || (x == n - 1)) {
                for (int64_t y = 0, y_end = n - 1; y <= y_end; y++) {
                    a[rt_row1 + y] = a[rt_row2 + y];   /* B */
                }
            } else {
                const int64_t y_at[2] = {0, (n - 1)};
                for (int64_t y = 0, y_end = n - 1; y <= y_end;) {
                    int64_t y_stop = y_end + 1;   /* the next point where the test holds */
                    for (int rt_i = 0; rt_i < 2; rt_i++)
                        if (y_at[rt_i] >= y && y_at[rt_i] < y_stop) y_stop = y_at[rt_i];
                    for (; y < y_stop; y++) {
                        /* S */
                        a[rt_row1 + y] =
                                (a[rt_row3 + y] + a[rt_row4 + y] + 4 * a[rt_row2 + y]
                                 + a[rt_row2 + y - 1] + a[rt_row2 + y + 1]) / 8;
                    }
                    if (y <= y_end) {
                        a[rt_row1 + y] = a[rt_row2 + y];   /* B */
                        y++;
                    }
                }
            }
        }
    }
}

/* The checksum of the outputs, in declaration order, as `polyapm sim` computes it. */
static uint64_t output_checksum(void)
{
    rt_checksum hash;
    rt_checksum_init(&hash);
    {   /* output a[steps] */
        {   /* the fixed index */
            const int64_t g0 = steps;
            for (int64_t g1 = 0, g1_end = n - 1; g1 <= g1_end; g1++) {
                for (int64_t g2 = 0, g2_end = n - 1; g2 <= g2_end; g2++) {
                    rt_checksum_double(&hash, a[(imod(g0, 2) * n + g1) * n + g2]);
                }
            }
        }
    }
    return rt_checksum_value(&hash);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(void)
{
    init_arrays();
    const double t0 = now();
    compute_B_S(a);
    const double seconds = now() - t0;
    printf(RT_RESULT_FORMAT, (unsigned long long)output_checksum(), seconds, 1);
    free(a);
    return 0;
}
