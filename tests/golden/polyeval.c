/*
 * polyeval.c — program polyeval (level syncomm), exported by polyapm from polyeval.apm.
 * C+MPI, 3 ranks (one per processor of the processor loop), each holding the whole
 * arrays and running its own processor; they communicate by collectives alone (rt_coll.c).
 * Prints `polyapm-result checksum=.. seconds=.. ranks=..`: the outputs' checksum, identical to
 * `polyapm sim`'s, and the seconds of the main loop.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"
#include "rt_int.h"   /* the integer semantics: intsem.h */

/* The step being run, counted from 1: an output element is stamped with the step that
 * computed it, and the gather takes each from the processor that computed it last. */
static uint32_t rt_stamp;
typedef uint8_t rt_mark;
#define RT_MARK_MAX UINT8_MAX

/* parameters */
static const int64_t procs = 3;
static const int64_t m = 4;

/* x: the whole array on every processor (syncomm: each writes its own rows) */
static double *x;
static inline int64_t x_store0(int64_t rp, int64_t g)
{
    (void)rp;
    const int64_t r = g;
    return r >= 0 && r < procs ? r : -1;
}

/* a: the whole array on every processor (syncomm: each writes its own rows) */
static double *a;

/* xs: the whole array on every processor (syncomm: each writes its own rows) */
static double *xs;

/* pw: the whole array on every processor (syncomm: each writes its own rows) */
static double *pw;

/* y: the whole array on every processor (syncomm: each writes its own rows) */
static double *y;

/* r: the whole array on every processor (syncomm: each writes its own rows) */
static double *r;
static rt_mark *r_mine;   /* the step that computed it here, 0: none */
static inline int64_t r_store0(int64_t rp, int64_t g)
{
    (void)rp;
    const int64_t r = g;
    return r >= 0 && r < procs ? r : -1;
}

/* The arrays allocated (an element without value holds rt_novalue()), the inits applied here. */
static void init_arrays(int64_t me)
{
    x = rt_alloc_novalue((size_t)(procs * m));
    a = rt_alloc_novalue((size_t)procs);
    xs = rt_alloc_novalue((size_t)(procs * m));
    pw = rt_alloc_novalue((size_t)(procs * m));
    y = rt_alloc_novalue((size_t)(procs * m));
    r = rt_alloc_novalue((size_t)(procs * m));
    r_mine = rt_calloc((size_t)(procs * m), sizeof *r_mine);
    /* init x */
    if (x_store0(me, 0) >= 0 && 0 <= procs - 1) {   /* the fixed index, held here */
        const int64_t g0 = 0;
        const int64_t rt_r0 = x_store0(me, g0);
        for (int64_t j = 0, j_end = m - 1; j <= j_end; j++) {
            x[rt_r0 * m + j] = (0.25 + (double)imod(j, 16) / 8.0);
        }
    }
    /* init a */
    for (int64_t q = 0, q_end = procs - 1; q <= q_end; q++) {
        a[q] = (imod(q, 3) - 1);
    }
}

/* The built-in operators of collectives, as the simulator applies them (a the lower rank). */
static inline void rt_bop_add_d(const rt_val *a, const rt_val *b, rt_val *o)
{
    o->d = a->d + b->d;
}
static inline void rt_bop_mul_d(const rt_val *a, const rt_val *b, rt_val *o)
{
    o->d = a->d * b->d;
}

/* One step of processor me: statements M in order. */
static void step_M(int64_t t, int64_t me)
{
    (void)t;
    const int64_t rp = me;   /* this processor */
    {   /* B: bcast at 19:3 */
        MPI_Comm rt_g = rt_coll_group(MPI_COMM_WORLD, 0, 0);
        if (rt_g != MPI_COMM_NULL) {
            const int rt_root = rt_coll_root(rt_g, (0) - 0, MPI_COMM_WORLD);
            const int rt_me = rt_rank(rt_g);
            int64_t rt_n = 0;
            rt_val *rt_in = NULL;
            if (rt_me == rt_root) {
                const int64_t rt_s0 = rp * m, rt_c0 = (int64_t)1 * imax(0, m);
                rt_n = rt_c0;
                rt_in = rt_malloc((size_t)(rt_n ? rt_n : 1) * 1 * sizeof *rt_in);
                for (int64_t rt_j = 0; rt_j < rt_n; rt_j++) rt_in[rt_j].d = x[rt_s0 + rt_j];
            }
            const int64_t rt_m = (int64_t)1 * imax(0, m);
            rt_val *rt_out =
                    rt_malloc((size_t)((rt_m > rt_n ? rt_m : rt_n) + 1) * 1 * sizeof *rt_out);
            if (rt_me == rt_root) {
                if (rt_n != rt_m) rt_die("B: bcast at 19:3: the root's block has %lld elements, "
                        "its destination %lld", (long long)rt_n, (long long)rt_m);
                memcpy(rt_out, rt_in, (size_t)rt_n * 1 * sizeof *rt_out);
            }
            rt_coll_bcast(rt_out, rt_m, 1, rt_root, rt_g);
            const int64_t rt_r = rt_m;   /* result tuples */
            {
                const int64_t rt_d = rp * m, rt_dn = (int64_t)1 * imax(0, m);
                if (rt_dn != rt_r) rt_die("B: bcast at 19:3: the destination block of xs has %lld "
                        "elements, the result %lld", (long long)rt_dn, (long long)rt_r);
                for (int64_t rt_j = 0; rt_j < rt_dn; rt_j++) {
                    xs[rt_d + rt_j] = rt_out[rt_j].d;
                }
            }
            free(rt_in);
            free(rt_out);
            rt_coll_group_free(&rt_g, MPI_COMM_WORLD);
        }
    }
    {   /* S: scan(*) at 20:3 */
        MPI_Comm rt_g = rt_coll_group(MPI_COMM_WORLD, 0, 0);
        if (rt_g != MPI_COMM_NULL) {
            const int rt_root = 0;
            const int rt_me = rt_rank(rt_g);
            (void)rt_me;
            int64_t rt_n = 0;
            rt_val *rt_in = NULL;
            const int64_t rt_s0 = rp * m, rt_c0 = (int64_t)1 * imax(0, m);
            rt_n = rt_c0;
            rt_in = rt_malloc((size_t)(rt_n ? rt_n : 1) * 1 * sizeof *rt_in);
            for (int64_t rt_j = 0; rt_j < rt_n; rt_j++) rt_in[rt_j].d = xs[rt_s0 + rt_j];
            rt_val rt_id[1];
            rt_id[0].d = 1.0;
            const rt_opdesc rt_op =
                    {1, rt_bop_mul_d, NULL, NULL, NULL, rt_id, MPI_OP_NULL, MPI_DOUBLE};
            const int64_t rt_m = (int64_t)1 * imax(0, m);
            rt_val *rt_out =
                    rt_malloc((size_t)((rt_m > rt_n ? rt_m : rt_n) + 1) * 1 * sizeof *rt_out);
            rt_coll_reduce(RT_SCAN, rt_in, rt_out, rt_n, &rt_op, rt_root, rt_g);
            const int64_t rt_r = rt_n;   /* result tuples */
            {
                const int64_t rt_d = rp * m, rt_dn = (int64_t)1 * imax(0, m);
                if (rt_dn != rt_r) rt_die("S: scan(*) at 20:3: the destination block of pw has "
                        "%lld elements, the result %lld", (long long)rt_dn, (long long)rt_r);
                for (int64_t rt_j = 0; rt_j < rt_dn; rt_j++) {
                    pw[rt_d + rt_j] = rt_out[rt_j].d;
                }
            }
            free(rt_in);
            free(rt_out);
            rt_coll_group_free(&rt_g, MPI_COMM_WORLD);
        }
    }
    const int64_t rt_row1 = rp * m;   /* y[rp][..] */
    const int64_t rt_row2 = rp * m;   /* pw[rp][..] */
    for (int64_t j = 0, j_end = m - 1; j <= j_end; j += 1) {
        y[rt_row1 + j] = a[rp] * pw[rt_row2 + j];   /* M */
    }
    {   /* R: reduce(+) at 24:3 */
        MPI_Comm rt_g = rt_coll_group(MPI_COMM_WORLD, 0, 0);
        if (rt_g != MPI_COMM_NULL) {
            const int rt_root = rt_coll_root(rt_g, (0) - 0, MPI_COMM_WORLD);
            const int rt_me = rt_rank(rt_g);
            int64_t rt_n = 0;
            rt_val *rt_in = NULL;
            const int64_t rt_s0 = rp * m, rt_c0 = (int64_t)1 * imax(0, m);
            rt_n = rt_c0;
            rt_in = rt_malloc((size_t)(rt_n ? rt_n : 1) * 1 * sizeof *rt_in);
            for (int64_t rt_j = 0; rt_j < rt_n; rt_j++) rt_in[rt_j].d = y[rt_s0 + rt_j];
            rt_val rt_id[1];
            rt_id[0].d = 0.0;
            const rt_opdesc rt_op =
                    {1, rt_bop_add_d, NULL, NULL, NULL, rt_id, MPI_OP_NULL, MPI_DOUBLE};
            int64_t rt_m = 0;
            if (rt_me == rt_root) {
                rt_m = (int64_t)1 * imax(0, m);
            }
            rt_val *rt_out =
                    rt_malloc((size_t)((rt_m > rt_n ? rt_m : rt_n) + 1) * 1 * sizeof *rt_out);
            rt_coll_reduce(RT_REDUCE, rt_in, rt_out, rt_n, &rt_op, rt_root, rt_g);
            const int64_t rt_r = rt_n;   /* result tuples */
            if (rt_me == rt_root) {
                {
                    const int64_t rt_d = rp * m, rt_dn = (int64_t)1 * imax(0, m);
                    if (rt_dn != rt_r) rt_die("R: reduce(+) at 24:3: the destination block of r "
                            "has %lld elements, the result %lld", (long long)rt_dn,
                            (long long)rt_r);
                    for (int64_t rt_j = 0; rt_j < rt_dn; rt_j++) {
                        r[rt_d + rt_j] = rt_out[rt_j].d;
                        r_mine[rt_d + rt_j] = rt_stamp;   /* computed here: gathered */
                    }
                }
            }
            free(rt_in);
            free(rt_out);
            rt_coll_group_free(&rt_g, MPI_COMM_WORLD);
        }
    }
}

/* The checksum of the outputs, in declaration order, as `polyapm sim` computes it (gathered on rank
 * 0: each element from the processor that computed it last, else its init value). */
static uint64_t output_checksum(int64_t me)
{
    rt_checksum hash;
    rt_checksum_init(&hash);
    {   /* output r[0] */
        const int64_t rt_row = (int64_t)1, rt_rows = rt_row < 65536 ? 65536 / rt_row : 1;
        double *region = NULL;
        unsigned char *computed = NULL;
        if (me == 0) {
            region = rt_malloc((size_t)(rt_rows * rt_row) * sizeof *region);
            computed = rt_malloc((size_t)(rt_rows * rt_row));
        }
        for (int64_t rt_c0 = 0, rt_cend = m - 1; rt_c0 <= rt_cend; rt_c0 += rt_rows) {
            const int64_t rt_c1 = imin(rt_cend, rt_c0 + rt_rows - 1);
            const int64_t rt_base = rt_c0 * rt_row, region_size = (rt_c1 - rt_c0 + 1) * rt_row;
            if (me == 0) rt_fill_novalue(region, (size_t)region_size);
            rt_gather *rt_g = rt_gather_new(MPI_COMM_WORLD, region, region_size);
            if (r_store0(me, 0) >= 0 && 0 <= procs - 1) {   /* the fixed index, held here */
                const int64_t g0 = 0;
                const int64_t rt_r0 = r_store0(me, g0);
                for (int64_t g1 = imax(imax(0, rt_c0), 0), g1_end = imin(imin(m - 1, rt_c1), m - 1);
                     g1 <= g1_end; g1++) {
                    const int64_t rt_o = rt_r0 * m + g1;
                    if (r_mine[rt_o]) rt_gather_put(rt_g, g1 - rt_base, r[rt_o], r_mine[rt_o]);
                }
            }
            rt_gather_finish(rt_g);
            if (me == 0) {
                for (int64_t rt_k = 0; rt_k < region_size; rt_k++)
                    computed[rt_k] = !rt_is_novalue(region[rt_k]);
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
    rt_require_ranks(3, "polyeval was derived for 3 processors");
    const int64_t me = rt_rank(MPI_COMM_WORLD);   /* this rank's processor */
    init_arrays(me);
    const double t0 = rt_time_start(MPI_COMM_WORLD);
    for (int64_t t = 0, t_end = 0; t <= t_end; t += 1) {
        if (++rt_stamp > RT_MARK_MAX) rt_die("more steps than an rt_mark holds");
        step_M(t, me);
    }
    const double seconds = rt_time_stop(MPI_COMM_WORLD, t0);
    const uint64_t sum = output_checksum(me);
    rt_report(MPI_COMM_WORLD, sum, seconds);
    free(x);
    free(a);
    free(xs);
    free(pw);
    free(y);
    free(r);
    free(r_mine);
    rt_finalize();
    return 0;
}
