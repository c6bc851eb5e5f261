/*
 * findiff_syndm.c — program findiff_syndm (level syndm), exported by polyapm from node 6
 * (relcoord).
 * C+MPI, 4 ranks (one per processor of the processor loop), each holding its part of
 * the arrays (the dist declarations); messages travel as a static halo pattern after each step
 * (rt_pattern).
 * Prints `polyapm-result checksum=.. seconds=.. ranks=..`: the outputs' checksum, identical to
 * `polyapm sim`'s, and the seconds of the main loop.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "rt.h"
#include "rt_int.h"   /* the integer semantics: intsem.h */

/* The step being run, counted from 1: an output element is stamped with the step that
 * computed it, and the gather takes each from the processor that computed it last. */
static uint32_t rt_stamp;
typedef uint8_t rt_mark;
#define RT_MARK_MAX UINT8_MAX

/* parameters */
static const int64_t n = 16;
static const int64_t steps = 6;
static const int64_t q = 2;
static const int64_t b = 8;

/* a: the part of processor rp (its dist declaration); only the 2 live planes of dimension 0 (index
 * modulo 2) */
static double *a;
static rt_mark *a_mine;   /* the step that computed it here, 0: none */

/* The arrays allocated (an element without value holds rt_novalue()), the inits applied here. */
static void init_arrays(int64_t me)
{
    a = rt_alloc_novalue((size_t)(2 * (b + 2) * (b + 2)));
    a_mine = rt_calloc((size_t)(2 * (b + 2) * (b + 2)), sizeof *a_mine);
    /* init a */
    {   /* the fixed time plane */
        const int64_t g0 = 0;
        for (int64_t x = imax(0, ifloordiv(me, q) * b - 1),
             x_end = imin(n - 1, b + ifloordiv(me, q) * b); x <= x_end; x++) {
            for (int64_t y = imax(0, imod(me, q) * b - 1), y_end = imin(n - 1, b + imod(me, q) * b);
                 y <= y_end; y++) {
                a[(imod(g0, 2) * (b + 2) + x - (ifloordiv(me, q) * b - 1)) * (b + 2)
                  + y - (imod(me, q) * b - 1)] = imod(x * 31 + y * 17, 13);
            }
        }
    }
}

/* One step of processor me: statements B S in order; the arrays restrict (each its own allocation).
 * */
static __attribute__((noinline)) void step_B_S(int64_t t, int64_t me, double *restrict a)
{
    const int64_t rp = me;   /* this processor */
    const int64_t o1 = ifloordiv(rp, q) * b - 1;
    const int64_t o2 = imod(rp, q) * b - 1;
    for (int64_t x = ifloordiv(rp, q) * b, x_end = imin(ifloordiv(rp, q) * b + b, n) - 1;
         x <= x_end; x += 1) {
        const int64_t rt_row1 = (imod(t, 2) * (b + 2) + x - o1) * (b + 2);   /* a[t][x - o1][..] */
        /* a[t - 1][x - o1][..] */
        const int64_t rt_row2 = (imod(t - 1, 2) * (b + 2) + x - o1) * (b + 2);
        /* a[t - 1][x - 1 - o1][..] */
        const int64_t rt_row3 = (imod(t - 1, 2) * (b + 2) + x - o1 - 1) * (b + 2);
        /* a[t - 1][x + 1 - o1][..] */
        const int64_t rt_row4 = (imod(t - 1, 2) * (b + 2) + x - o1 + 1) * (b + 2);
        /* x == 0 || y == 0 || x == n - 1 || y == n - 1: the loop over y split at the points where
         * the test holds */
        if ((x == 0) || (x == n - 1)) {
            for (int64_t y = imod(rp, q) * b, y_end = imin(imod(rp, q) * b + b, n) - 1; y <= y_end;
                 y++) {
                a[rt_row1 + y - o2] = a[rt_row2 + y - o2];   /* B */
            }
        } else {
            const int64_t y_at[2] = {0, (n - 1)};
            for (int64_t y = imod(rp, q) * b, y_end = imin(imod(rp, q) * b + b, n) - 1;
                 y <= y_end;) {
                int64_t y_stop = y_end + 1;   /* the next point where the test holds */
                for (int rt_i = 0; rt_i < 2; rt_i++)
                    if (y_at[rt_i] >= y && y_at[rt_i] < y_stop) y_stop = y_at[rt_i];
                for (; y < y_stop; y++) {
                    /* S */
                    a[rt_row1 + y - o2] =
                            (a[rt_row3 + y - o2] + a[rt_row4 + y - o2] + 4 * a[rt_row2 + y - o2]
                             + a[rt_row2 + y - o2 - 1] + a[rt_row2 + y - o2 + 1]) / 8;
                }
                if (y <= y_end) {
                    a[rt_row1 + y - o2] = a[rt_row2 + y - o2];   /* B */
                    y++;
                }
            }
        }
    }
}

/* The same step, recording which output elements this processor computes (the step that
 * writes the output plane). */
static __attribute__((noinline)) void step_B_S_output(int64_t t, int64_t me, double *restrict a)
{
    const int64_t rp = me;   /* this processor */
    const int64_t o1 = ifloordiv(rp, q) * b - 1;
    const int64_t o2 = imod(rp, q) * b - 1;
    for (int64_t x = ifloordiv(rp, q) * b, x_end = imin(ifloordiv(rp, q) * b + b, n) - 1;
         x <= x_end; x += 1) {
        const int64_t rt_row5 = (imod(t, 2) * (b + 2) + x - o1) * (b + 2);   /* a[t][x - o1][..] */
        /* a[t - 1][x - o1][..] */
        const int64_t rt_row6 = (imod(t - 1, 2) * (b + 2) + x - o1) * (b + 2);
        /* a[t - 1][x - 1 - o1][..] */
        const int64_t rt_row7 = (imod(t - 1, 2) * (b + 2) + x - o1 - 1) * (b + 2);
        /* a[t - 1][x + 1 - o1][..] */
        const int64_t rt_row8 = (imod(t - 1, 2) * (b + 2) + x - o1 + 1) * (b + 2);
        /* x == 0 || y == 0 || x == n - 1 || y == n - 1: the loop over y split at the points where
         * the test holds */
        if ((x == 0) || (x == n - 1)) {
            for (int64_t y = imod(rp, q) * b, y_end = imin(imod(rp, q) * b + b, n) - 1; y <= y_end;
                 y++) {
                {   /* B */
                    const int64_t rt_o = rt_row5 + y - o2;
                    a[rt_o] = a[rt_row6 + y - o2];
                    if (t == 6) a_mine[rt_o] = rt_stamp;   /* computed here: gathered */
                }
            }
        } else {
            const int64_t y_at[2] = {0, (n - 1)};
            for (int64_t y = imod(rp, q) * b, y_end = imin(imod(rp, q) * b + b, n) - 1;
                 y <= y_end;) {
                int64_t y_stop = y_end + 1;   /* the next point where the test holds */
                for (int rt_i = 0; rt_i < 2; rt_i++)
                    if (y_at[rt_i] >= y && y_at[rt_i] < y_stop) y_stop = y_at[rt_i];
                for (; y < y_stop; y++) {
                    {   /* S */
                        const int64_t rt_o = rt_row5 + y - o2;
                        a[rt_o] =
                                (a[rt_row7 + y - o2] + a[rt_row8 + y - o2] + 4 * a[rt_row6 + y - o2]
                                 + a[rt_row6 + y - o2 - 1] + a[rt_row6 + y - o2 + 1]) / 8;
                        if (t == 6) a_mine[rt_o] = rt_stamp;   /* computed here: gathered */
                    }
                }
                if (y <= y_end) {
                    {   /* B */
                        const int64_t rt_o = rt_row5 + y - o2;
                        a[rt_o] = a[rt_row6 + y - o2];
                        if (t == 6) a_mine[rt_o] = rt_stamp;   /* computed here: gathered */
                    }
                    y++;
                }
            }
        }
    }
}

/* The halo pattern of phase 0: its sends (the same at every step of the phase), recorded
 * once.  Offsets are within the time plane of the step (plane 0 here). */
static void record_halo0(rt_pattern *pattern, int64_t me)
{
    const int64_t t = 1;
    (void)t;
    const int64_t rp = me;   /* this processor */
    const int64_t o1 = ifloordiv(rp, q) * b - 1;
    const int64_t o2 = imod(rp, q) * b - 1;
    for (int64_t x = ifloordiv(rp, q) * b, x_end = imin(ifloordiv(rp, q) * b + b, n) - 1;
         x <= x_end; x += 1) {
        for (int64_t y = imod(rp, q) * b, y_end = imin(imod(rp, q) * b + b, n) - 1; y <= y_end;
             y += 1) {
            if (x == 0 || y == 0 || x == n - 1 || y == n - 1) {
                /* send a[t][x - o1][y - o2] */
                if ((n >= x + 2) && (x >= 1) && (y + 1 == n) && (imod(y, b) == 0)) {
                    for (int64_t rt_dest = imax(rp - 1, 0), rt_last = imin(rp - 1, 3);
                         rt_dest <= rt_last; rt_dest++)
                        if (rt_dest != me) rt_pattern_add(pattern, (int)(rt_dest - 0), 0,
                                                          ((imod(0, 2) * (b + 2) + x - o1) * (b + 2)
                                                           + y - o2),
                                ((imod(0, 2) * (b + 2) + x - ifloordiv(rp - 1, q) * b + 1) * (b + 2)
                                 + y - imod(rp - 1, q) * b + 1));
                }
                /* send a[t][x - o1][y - o2] */
                if ((n >= x + 2) && (x >= 1) && (y == 0) && (imod(y + 1, b) == 0)) {
                    for (int64_t rt_dest = imax(rp + 1, 0), rt_last = imin(rp + 1, 3);
                         rt_dest <= rt_last; rt_dest++)
                        if (rt_dest != me) rt_pattern_add(pattern, (int)(rt_dest - 0), 0,
                                                          ((imod(0, 2) * (b + 2) + x - o1) * (b + 2)
                                                           + y - o2),
                                ((imod(0, 2) * (b + 2) + x - ifloordiv(rp + 1, q) * b + 1) * (b + 2)
                                 + y - imod(rp + 1, q) * b + 1));
                }
                /* send a[t][x - o1][y - o2] */
                if ((x + 1 == n) && (n >= y + 2) && (y >= 1) && (imod(x, b) == 0)) {
                    for (int64_t rt_dest = imax(rp - q, 0), rt_last = imin(rp - q, 3);
                         rt_dest <= rt_last; rt_dest++)
                        if (rt_dest != me) rt_pattern_add(pattern, (int)(rt_dest - 0), 0,
                                                          ((imod(0, 2) * (b + 2) + x - o1) * (b + 2)
                                                           + y - o2),
                                ((imod(0, 2) * (b + 2) + x + b - o1) * (b + 2) + y - o2));
                }
                /* send a[t][x - o1][y - o2] */
                if ((x == 0) && (n >= y + 2) && (y >= 1) && (imod(x + 1, b) == 0)) {
                    for (int64_t rt_dest = imax(rp + q, 0), rt_last = imin(rp + q, 3);
                         rt_dest <= rt_last; rt_dest++)
                        if (rt_dest != me) rt_pattern_add(pattern, (int)(rt_dest - 0), 0,
                                                          ((imod(0, 2) * (b + 2) + x - o1) * (b + 2)
                                                           + y - o2),
                                ((imod(0, 2) * (b + 2) + x - o1 - b) * (b + 2) + y - o2));
                }
            } else {
                if ((y >= 2) && (imod(y, b) == 0)) {   /* send a[t][x - o1][y - o2] */
                    for (int64_t rt_dest = imax(rp - 1, 0), rt_last = imin(rp - 1, 3);
                         rt_dest <= rt_last; rt_dest++)
                        if (rt_dest != me) rt_pattern_add(pattern, (int)(rt_dest - 0), 0,
                                                          ((imod(0, 2) * (b + 2) + x - o1) * (b + 2)
                                                           + y - o2),
                                ((imod(0, 2) * (b + 2) + x - ifloordiv(rp - 1, q) * b + 1) * (b + 2)
                                 + y - imod(rp - 1, q) * b + 1));
                }
                if ((n >= y + 3) && (imod(y + 1, b) == 0)) {   /* send a[t][x - o1][y - o2] */
                    for (int64_t rt_dest = imax(rp + 1, 0), rt_last = imin(rp + 1, 3);
                         rt_dest <= rt_last; rt_dest++)
                        if (rt_dest != me) rt_pattern_add(pattern, (int)(rt_dest - 0), 0,
                                                          ((imod(0, 2) * (b + 2) + x - o1) * (b + 2)
                                                           + y - o2),
                                ((imod(0, 2) * (b + 2) + x - ifloordiv(rp + 1, q) * b + 1) * (b + 2)
                                 + y - imod(rp + 1, q) * b + 1));
                }
                if ((x >= 2) && (imod(x, b) == 0)) {   /* send a[t][x - o1][y - o2] */
                    for (int64_t rt_dest = imax(rp - q, 0), rt_last = imin(rp - q, 3);
                         rt_dest <= rt_last; rt_dest++)
                        if (rt_dest != me) rt_pattern_add(pattern, (int)(rt_dest - 0), 0,
                                                          ((imod(0, 2) * (b + 2) + x - o1) * (b + 2)
                                                           + y - o2),
                                ((imod(0, 2) * (b + 2) + x + b - o1) * (b + 2) + y - o2));
                }
                if ((n >= x + 3) && (imod(x + 1, b) == 0)) {   /* send a[t][x - o1][y - o2] */
                    for (int64_t rt_dest = imax(rp + q, 0), rt_last = imin(rp + q, 3);
                         rt_dest <= rt_last; rt_dest++)
                        if (rt_dest != me) rt_pattern_add(pattern, (int)(rt_dest - 0), 0,
                                                          ((imod(0, 2) * (b + 2) + x - o1) * (b + 2)
                                                           + y - o2),
                                ((imod(0, 2) * (b + 2) + x - o1 - b) * (b + 2) + y - o2));
                }
            }
        }
    }
}

/* The exchange after step t: every array's plane of that step. */
static void exchange_halo(rt_pattern *pattern, int64_t me, int64_t t)
{
    double *planes[1] =
            {(a + (((imod(t, 2) * (b + 2)) * (b + 2)) - ((imod(0, 2) * (b + 2)) * (b + 2))))};
    (void)me;
    (void)t;   /* arrays without time planes: their whole memory */
    rt_pattern_exchange(pattern, planes);
}

/* The checksum of the outputs, in declaration order, as `polyapm sim` computes it (gathered on rank
 * 0: each element from the processor that computed it last, else its init value). */
static uint64_t output_checksum(int64_t me)
{
    rt_checksum hash;
    rt_checksum_init(&hash);
    {   /* output a[steps] */
        const int64_t rt_row = n, rt_rows = rt_row < 65536 ? 65536 / rt_row : 1;
        double *region = NULL;
        unsigned char *computed = NULL;
        if (me == 0) {
            region = rt_malloc((size_t)(rt_rows * rt_row) * sizeof *region);
            computed = rt_malloc((size_t)(rt_rows * rt_row));
        }
        for (int64_t rt_c0 = 0, rt_cend = n - 1; rt_c0 <= rt_cend; rt_c0 += rt_rows) {
            const int64_t rt_c1 = imin(rt_cend, rt_c0 + rt_rows - 1);
            const int64_t rt_base = rt_c0 * rt_row, region_size = (rt_c1 - rt_c0 + 1) * rt_row;
            if (me == 0) rt_fill_novalue(region, (size_t)region_size);
            rt_gather *rt_g = rt_gather_new(MPI_COMM_WORLD, region, region_size);
            {   /* the fixed time plane */
                const int64_t g0 = steps;
                for (int64_t g1 = imax(imax(0, rt_c0), ifloordiv(me, q) * b - 1),
                     g1_end = imin(imin(n - 1, rt_c1), b + ifloordiv(me, q) * b); g1 <= g1_end;
                        g1++) {
                    for (int64_t g2 = imax(0, imod(me, q) * b - 1),
                         g2_end = imin(n - 1, b + imod(me, q) * b); g2 <= g2_end; g2++) {
                        const int64_t rt_o =
                                (imod(g0, 2) * (b + 2) + g1 - (ifloordiv(me, q) * b - 1)) * (b + 2)
                                + g2 - (imod(me, q) * b - 1);
                        if (a_mine[rt_o]) rt_gather_put(rt_g, g1 * n + g2 - rt_base, a[rt_o],
                                                        a_mine[rt_o]);
                    }
                }
            }
            rt_gather_finish(rt_g);
            if (me == 0) {
                for (int64_t rt_k = 0; rt_k < region_size; rt_k++)
                    computed[rt_k] = !rt_is_novalue(region[rt_k]);
                /* init a where nobody computed */
                {   /* the fixed index */
                    const int64_t g0 = 0;
                    for (int64_t x = imax(0, rt_c0), x_end = imin(n - 1, rt_c1); x <= x_end; x++) {
                        for (int64_t y = 0, y_end = n - 1; y <= y_end; y++) {
                            if (g0 == steps) {
                                const int64_t rt_k = x * n + y - rt_base;
                                if (!computed[rt_k]) region[rt_k] = imod(x * 31 + y * 17, 13);
                            }
                        }
                    }
                }
                rt_checksum_doubles(&hash, region, (size_t)region_size);
            }
        }
        free(computed);
        free(region);
    }
    return rt_checksum_value(&hash);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    rt_require_ranks(4, "findiff_syndm was derived for 4 processors");
    const int64_t me = rt_rank(MPI_COMM_WORLD);   /* this rank's processor */
    init_arrays(me);
    rt_pattern *pattern[1];   /* one per phase */
    pattern[0] = rt_pattern_new(MPI_COMM_WORLD, 1);
    record_halo0(pattern[0], me);
    rt_pattern_commit(pattern[0]);
    const double t0 = rt_time_start(MPI_COMM_WORLD);
    for (int64_t t = 1, t_end = steps; t <= t_end; t += 1) {
        if (++rt_stamp > RT_MARK_MAX) rt_die("more steps than an rt_mark holds");
        if (t == 6) step_B_S_output(t, me, a);   /* writes the output plane */
        else step_B_S(t, me, a);
        if (steps >= t + 1)
            exchange_halo(pattern[0], me, t);
    }
    const double seconds = rt_time_stop(MPI_COMM_WORLD, t0);
    const uint64_t sum = output_checksum(me);
    rt_report_memory(MPI_COMM_WORLD, (2 * (b + 2) * (b + 2)));
    rt_report(MPI_COMM_WORLD, sum, seconds);
    rt_pattern_free(pattern[0]);
    free(a);
    free(a_mine);
    rt_finalize();
    return 0;
}
