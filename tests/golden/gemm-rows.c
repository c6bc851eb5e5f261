/*
 * gemm_syndm.c — program gemm_syndm (level syndm), exported by polyapm from node 6 (relcoord).
 * C+MPI, 2 ranks (one per processor of the processor loop), each holding its part of
 * the arrays (the dist declarations); it sends no messages.
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
static const int64_t ni = 20;
static const int64_t nj = 25;
static const int64_t nk = 30;
static const int64_t b = 10;

/* C: the part of processor rp (its dist declaration) */
static double *C;
static rt_mark *C_mine;   /* the step that computed it here, 0: none */

/* A: the part of processor rp (its dist declaration) */
static double *A;

/* B: the part of processor rp (its dist declaration) */
static double *B;

/* The arrays allocated (an element without value holds rt_novalue()), the inits applied here. */
static void init_arrays(int64_t me)
{
    C = rt_alloc_novalue((size_t)(b * nj));
    A = rt_alloc_novalue((size_t)(b * nk));
    B = rt_alloc_novalue((size_t)(nk * nj));
    /* init C */
    for (int64_t i = imax(0, me * b), i_end = imin(ni - 1, b + me * b - 1); i <= i_end; i++) {
        for (int64_t j = 0, j_end = nj - 1; j <= j_end; j++) {
            C[(i - (me * b)) * nj + j] = (1.0 * (double)imod(i * j + 1, ni) / (double)ni);
        }
    }
    /* init A */
    for (int64_t i = imax(0, me * b), i_end = imin(ni - 1, b + me * b - 1); i <= i_end; i++) {
        for (int64_t j = 0, j_end = nk - 1; j <= j_end; j++) {
            A[(i - (me * b)) * nk + j] = (1.0 * (double)imod(i * (j + 1), nk) / (double)nk);
        }
    }
    /* init B */
    for (int64_t i = 0, i_end = nk - 1; i <= i_end; i++) {
        for (int64_t j = 0, j_end = nj - 1; j <= j_end; j++) {
            B[i * nj + j] = (1.0 * (double)imod(i * (j + 2), nj) / (double)nj);
        }
    }
}

/* One step of processor me: statements S1 S2 in order; the arrays restrict (each its own
 * allocation). */
static __attribute__((noinline)) void step_S1_S2(int64_t t, int64_t me, double *restrict C,
                                                 double *restrict A, double *restrict B)
{
    (void)t;
    const int64_t rp = me;   /* this processor */
    const int64_t o1 = rp * b;
    for (int64_t p = imax(0, rp * b), p_end = imin(ni - 1, rp * b + b - 1); p <= p_end; p += 1) {
        {
            const int64_t i = p;
            const int64_t rt_row1 = (i - o1) * nj;   /* C[i - o1][..] */
            for (int64_t j = 0, j_end = nj - 1; j <= j_end; j += 1) {
                C[rt_row1 + j] = C[rt_row1 + j] * 1.2;   /* S1 */
            }
        }
        {
            const int64_t i = p;
            const int64_t rt_row2 = (i - o1) * nj;   /* C[i - o1][..] */
            const int64_t rt_row3 = (i - o1) * nk;   /* A[i - o1][..] */
            for (int64_t k = 0, k_end = nk - 1; k <= k_end; k += 1) {
                const int64_t rt_row4 = k * nj;   /* B[k][..] */
                for (int64_t j = 0, j_end = nj - 1; j <= j_end; j += 1) {
                    /* S2 */
                    C[rt_row2 + j] = C[rt_row2 + j] + 1.5 * A[rt_row3 + k] * B[rt_row4 + j];
                }
            }
        }
    }
}

/* Step t replayed after the timed loop for its writes of the outputs alone (they follow
 * from the indices): each element this processor computes is stamped, for the gather. */
static void mark_S1_S2(int64_t t, int64_t me)
{
    (void)t;
    const rt_mark rt_now = (rt_mark)rt_stamp;   /* a local: the stores cannot change it */
    const int64_t rp = me;   /* this processor */
    const int64_t o1 = rp * b;
    for (int64_t p = imax(0, rp * b), p_end = imin(ni - 1, rp * b + b - 1); p <= p_end; p += 1) {
        {
            const int64_t i = p;
            const int64_t rt_row5 = (i - o1) * nj;   /* C[i - o1][..] */
            for (int64_t j = 0, j_end = nj - 1; j <= j_end; j += 1) {
                C_mine[rt_row5 + j] = rt_now;   /* S1 */
            }
        }
        {
            const int64_t i = p;
            const int64_t rt_row6 = (i - o1) * nj;   /* C[i - o1][..] */
            for (int64_t k = 0, k_end = nk - 1; k <= k_end; k += 1) {
                for (int64_t j = 0, j_end = nj - 1; j <= j_end; j += 1) {
                    C_mine[rt_row6 + j] = rt_now;   /* S2 */
                }
            }
        }
    }
}

/* The checksum of the outputs, in declaration order, as `polyapm sim` computes it (gathered on rank
 * 0: each element from the processor that computed it last, else its init value). */
static uint64_t output_checksum(int64_t me)
{
    rt_checksum hash;
    rt_checksum_init(&hash);
    {   /* output C */
        const int64_t rt_row = nj, rt_rows = rt_row < 65536 ? 65536 / rt_row : 1;
        double *region = NULL;
        unsigned char *computed = NULL;
        if (me == 0) {
            region = rt_malloc((size_t)(rt_rows * rt_row) * sizeof *region);
            computed = rt_malloc((size_t)(rt_rows * rt_row));
        }
        for (int64_t rt_c0 = 0, rt_cend = ni - 1; rt_c0 <= rt_cend; rt_c0 += rt_rows) {
            const int64_t rt_c1 = imin(rt_cend, rt_c0 + rt_rows - 1);
            const int64_t rt_base = rt_c0 * rt_row, region_size = (rt_c1 - rt_c0 + 1) * rt_row;
            if (me == 0) rt_fill_novalue(region, (size_t)region_size);
            rt_gather *rt_g = rt_gather_new(MPI_COMM_WORLD, region, region_size);
            for (int64_t g0 = imax(imax(0, rt_c0), me * b),
                 g0_end = imin(imin(ni - 1, rt_c1), b + me * b - 1); g0 <= g0_end; g0++) {
                for (int64_t g1 = 0, g1_end = nj - 1; g1 <= g1_end; g1++) {
                    const int64_t rt_o = (g0 - (me * b)) * nj + g1;
                    if (C_mine[rt_o]) rt_gather_put(rt_g, g0 * nj + g1 - rt_base, C[rt_o],
                                                    C_mine[rt_o]);
                }
            }
            rt_gather_finish(rt_g);
            if (me == 0) {
                for (int64_t rt_k = 0; rt_k < region_size; rt_k++)
                    computed[rt_k] = !rt_is_novalue(region[rt_k]);
                /* init C where nobody computed */
                for (int64_t i = imax(0, rt_c0), i_end = imin(ni - 1, rt_c1); i <= i_end; i++) {
                    for (int64_t j = 0, j_end = nj - 1; j <= j_end; j++) {
                        const int64_t rt_k = i * nj + j - rt_base;
                        if (!computed[rt_k]) region[rt_k] =
                                (1.0 * (double)imod(i * j + 1, ni) / (double)ni);
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
    rt_require_ranks(2, "gemm_syndm was derived for 2 processors");
    const int64_t me = rt_rank(MPI_COMM_WORLD);   /* this rank's processor */
    init_arrays(me);
    const double t0 = rt_time_start(MPI_COMM_WORLD);
    for (int64_t t = 0, t_end = 0; t <= t_end; t += 1) {
        step_S1_S2(t, me, C, A, B);
    }
    const double seconds = rt_time_stop(MPI_COMM_WORLD, t0);
    free(A);   /* no output */
    A = NULL;
    free(B);   /* no output */
    B = NULL;
    C_mine = rt_calloc((size_t)(b * nj), sizeof *C_mine);
    for (int64_t t = 0, t_end = 0; t <= t_end; t += 1) {   /* the outputs' stamps */
        if (++rt_stamp > RT_MARK_MAX) rt_die("more steps than an rt_mark holds");
        mark_S1_S2(t, me);
    }
    const uint64_t sum = output_checksum(me);
    rt_report_memory(MPI_COMM_WORLD, (b * nj) + (b * nk) + (nk * nj));
    rt_report(MPI_COMM_WORLD, sum, seconds);
    free(C);
    free(C_mine);
    free(A);
    free(B);
    rt_finalize();
    return 0;
}
