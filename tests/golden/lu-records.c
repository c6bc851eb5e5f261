/*
 * lu_syndm.c — program lu_syndm (level syndm), exported by polyapm from node 5 (memdist).
 * C+MPI, 4 ranks (one per processor of the processor loop), each holding its part of
 * the arrays (the dist declarations); messages travel as (index, value) records, one MPI_Alltoallv
 * per step (rt_exchange).
 * A value sent to a range of processors is one record, broadcast to that range at the end of
 * the step (rt_mcast).
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
static const int64_t n = 12;
static const int64_t b = 3;

/* One piece of a pieced local memory (a dist with `+` or named indices): its outer ranges (the
 * dimensions before the last) and per row (outer index tuple, row-major) the last range
 * rlo .. rhi (empty when rhi < rlo) and base, where the row starts; st, bl: a strided last range
 * (every st-th index, bl at a time; st = 0: every index). */
typedef struct rt_piece {
    int64_t lo[8], hi[8], ext[8];
    int64_t *base, *rlo, *rhi;
    int64_t st, bl;
} rt_piece;
static inline int rt_piece_held(const rt_piece *pc, int64_t r, int64_t j)
{
    return j >= pc->rlo[r] && j <= pc->rhi[r] && (!pc->st || imod(j - pc->rlo[r], pc->st) < pc->bl);
}
static inline int64_t rt_piece_idx(const rt_piece *pc, int64_t r, int64_t j)
{
    const int64_t q = j - pc->rlo[r];
    return pc->base[r] + (pc->st ? q / pc->st * pc->bl + q % pc->st : q);
}

/* a: the part of processor rp (its dist declaration) */
static double *a;
static int64_t a_ext_tab[4][2];   /* extents per processor */
static inline int64_t a_pitch1(void)   /* the rows' length: processor 0's extent, the longest */
{
    return imax(imax(b, n), 0);
}

/* l: the 1 piece of processor rp (its dist declaration), rows of its last dimension */
static double *l;
static rt_mark *l_mine;   /* the step that computed it here, 0: none */
static rt_piece l_pc[1];
static int64_t l_n;   /* elements of all pieces */
static inline int64_t l_row(int k, int64_t i0)
{
    const rt_piece *pc = &l_pc[k];
    int64_t r = 0;
    r = r * pc->ext[0] + (i0 - pc->lo[0]);
    return r;
}
static void l_layout(int64_t rp)
{
    int64_t rt_n = 0;
    {   /* piece 0 */
        rt_piece *rt_p = &l_pc[0];
        int64_t rt_rows = 1;
        rt_p->lo[0] = (rp * b + 1);
        rt_p->hi[0] = (rp * b + b);
        rt_p->ext[0] = imax(0, rt_p->hi[0] - rt_p->lo[0] + 1);
        rt_rows *= rt_p->ext[0];
        rt_p->st = 0;
        rt_p->bl = 1;
        rt_p->base = rt_malloc((size_t)rt_rows * sizeof *rt_p->base);
        rt_p->rlo = rt_malloc((size_t)rt_rows * sizeof *rt_p->rlo);
        rt_p->rhi = rt_malloc((size_t)rt_rows * sizeof *rt_p->rhi);
        for (int64_t i = rt_p->lo[0]; i <= rt_p->hi[0]; i++) {
            const int64_t rt_r = l_row(0, i);
            int64_t rt_l = 1, rt_h = i;
            if (rt_h < rt_l) rt_h = rt_l - 1;
            rt_p->rlo[rt_r] = rt_l;
            rt_p->rhi[rt_r] = rt_h;
            rt_p->base[rt_r] = rt_n;
            if (!rt_p->st) rt_n += rt_h - rt_l + 1;
            else if (rt_h >= rt_l) rt_n += (rt_h - rt_l) / rt_p->st * rt_p->bl
                    + imin((rt_h - rt_l) % rt_p->st + 1, rt_p->bl);
        }
    }
    l_n = rt_n;
}
static void l_free_pieces(void)
{
    for (int k = 0; k < 1; k++) {
        free(l_pc[k].base);
        free(l_pc[k].rlo);
        free(l_pc[k].rhi);
    }
}
static inline int64_t l_size(int64_t rt_proc) { (void)rt_proc; return l_n; }
static _Noreturn void l_outside(int64_t i0, int64_t i1)
{
    rt_die("l[%lld][%lld] lies outside this processor's pieces", (long long)i0, (long long)i1);
}
static inline int64_t l_find(int64_t i0, int64_t i1)
{
    for (int k = 0; k < 1; k++) {
        const rt_piece *pc = &l_pc[k];
        if (i0 < pc->lo[0] || i0 > pc->hi[0]) continue;
        const int64_t r = l_row(k, i0);
        if (rt_piece_held(pc, r, i1)) return rt_piece_idx(pc, r, i1);
    }
    return -1;
}
static inline int64_t l_at(int64_t rt_proc, int64_t i0, int64_t i1)
{
    (void)rt_proc;   /* this rank's processor: l_layout set its pieces up */
    const int64_t o = l_find(i0, i1);
    if (o < 0) l_outside(i0, i1);
    return o;
}
static inline int64_t l_rowbase(int64_t rt_proc, int64_t i0)
{
    (void)rt_proc;
    const rt_piece *pc = &l_pc[0];
    if (i0 < pc->lo[0] || i0 > pc->hi[0]) return 0;
    const int64_t r = l_row(0, i0);
    return pc->base[r] - pc->rlo[r];
}
static inline int64_t l_gidx(int64_t i0, int64_t i1)
{
    int64_t g = 0;
    g = g * (n - 1 + 1) + (i0 - 1);
    g = g * (n - 1 + 1) + (i1 - 1);
    return g;
}
static inline int64_t l_at_gidx(int64_t rt_proc, int64_t g)
{
    const int64_t i1 = 1 + g % (n - 1 + 1);
    g /= (n - 1 + 1);
    const int64_t i0 = 1 + g % (n - 1 + 1);
    g /= (n - 1 + 1);
    return l_at(rt_proc, i0, i1);
}

/* u: the 1 piece of processor rp (its dist declaration), rows of its last dimension */
static double *u;
static rt_mark *u_mine;   /* the step that computed it here, 0: none */
static rt_piece u_pc[1];
static int64_t u_n;   /* elements of all pieces */
static inline int64_t u_row(int k, int64_t i0)
{
    const rt_piece *pc = &u_pc[k];
    int64_t r = 0;
    r = r * pc->ext[0] + (i0 - pc->lo[0]);
    return r;
}
static void u_layout(int64_t rp)
{
    int64_t rt_n = 0;
    {   /* piece 0 */
        rt_piece *rt_p = &u_pc[0];
        int64_t rt_rows = 1;
        rt_p->lo[0] = 1;
        rt_p->hi[0] = (rp * b + b);
        rt_p->ext[0] = imax(0, rt_p->hi[0] - rt_p->lo[0] + 1);
        rt_rows *= rt_p->ext[0];
        rt_p->st = 0;
        rt_p->bl = 1;
        rt_p->base = rt_malloc((size_t)rt_rows * sizeof *rt_p->base);
        rt_p->rlo = rt_malloc((size_t)rt_rows * sizeof *rt_p->rlo);
        rt_p->rhi = rt_malloc((size_t)rt_rows * sizeof *rt_p->rhi);
        for (int64_t i = rt_p->lo[0]; i <= rt_p->hi[0]; i++) {
            const int64_t rt_r = u_row(0, i);
            int64_t rt_l = i + 1, rt_h = n;
            if (rt_h < rt_l) rt_h = rt_l - 1;
            rt_p->rlo[rt_r] = rt_l;
            rt_p->rhi[rt_r] = rt_h;
            rt_p->base[rt_r] = rt_n;
            if (!rt_p->st) rt_n += rt_h - rt_l + 1;
            else if (rt_h >= rt_l) rt_n += (rt_h - rt_l) / rt_p->st * rt_p->bl
                    + imin((rt_h - rt_l) % rt_p->st + 1, rt_p->bl);
        }
    }
    u_n = rt_n;
}
static void u_free_pieces(void)
{
    for (int k = 0; k < 1; k++) {
        free(u_pc[k].base);
        free(u_pc[k].rlo);
        free(u_pc[k].rhi);
    }
}
static inline int64_t u_size(int64_t rt_proc) { (void)rt_proc; return u_n; }
static _Noreturn void u_outside(int64_t i0, int64_t i1)
{
    rt_die("u[%lld][%lld] lies outside this processor's pieces", (long long)i0, (long long)i1);
}
static inline int64_t u_find(int64_t i0, int64_t i1)
{
    for (int k = 0; k < 1; k++) {
        const rt_piece *pc = &u_pc[k];
        if (i0 < pc->lo[0] || i0 > pc->hi[0]) continue;
        const int64_t r = u_row(k, i0);
        if (rt_piece_held(pc, r, i1)) return rt_piece_idx(pc, r, i1);
    }
    return -1;
}
static inline int64_t u_at(int64_t rt_proc, int64_t i0, int64_t i1)
{
    (void)rt_proc;   /* this rank's processor: u_layout set its pieces up */
    const int64_t o = u_find(i0, i1);
    if (o < 0) u_outside(i0, i1);
    return o;
}
static inline int64_t u_rowbase(int64_t rt_proc, int64_t i0)
{
    (void)rt_proc;
    const rt_piece *pc = &u_pc[0];
    if (i0 < pc->lo[0] || i0 > pc->hi[0]) return 0;
    const int64_t r = u_row(0, i0);
    return pc->base[r] - pc->rlo[r];
}
static inline int64_t u_gidx(int64_t i0, int64_t i1)
{
    int64_t g = 0;
    g = g * (n - 1 + 1) + (i0 - 1);
    g = g * (n - 1 + 1) + (i1 - 1);
    return g;
}
static inline int64_t u_at_gidx(int64_t rt_proc, int64_t g)
{
    const int64_t i1 = 1 + g % (n - 1 + 1);
    g /= (n - 1 + 1);
    const int64_t i0 = 1 + g % (n - 1 + 1);
    g /= (n - 1 + 1);
    return u_at(rt_proc, i0, i1);
}

/* One record to a range of processors (a row or column many need): rt_mcast, broadcast at
 * the end of the step; the record names the element by its global index. */
static rt_mcast *rt_mc;
static inline int64_t a_gidx(int64_t rp, int64_t i0, int64_t i1)
{
    (void)rp;
    int64_t g = 0;
    g = g * (n - 1 + 1) + (i0 + 0 - 1);
    g = g * (n - 1 + 1) + (i1 + 0 - 1);
    return g;
}
static inline int64_t a_at_gidx(int64_t rp, int64_t g)
{
    const int64_t i1 = 1 + g % (n - 1 + 1) - 0;
    g /= (n - 1 + 1);
    const int64_t i0 = 1 + g % (n - 1 + 1) - 0;
    g /= (n - 1 + 1);
    return ((i0 - (rp * b + 1)) * a_pitch1() + i1 - 1);
}

/* The arrays allocated (an element without value holds rt_novalue()), the inits applied here. */
static void init_arrays(int64_t me)
{
    for (int64_t p = 0; p < 4; p++)
        a_ext_tab[p][0] = imax(p * b + b - (p * b + 1) + 1, 0);
    for (int64_t p = 0; p < 4; p++)
        a_ext_tab[p][1] = imax(imax(p * b + b, n), 0);
    for (int64_t p = 0; p < 4; p++)
        if (a_ext_tab[p][1] > a_pitch1())
            rt_die("a: processor %d's rows are longer than the rows laid out for the exported "
                    "parameters: export again", (int)(p + 0));
    l_layout(me);
    u_layout(me);
    a = rt_alloc_novalue((size_t)((a_ext_tab[me][0]) * a_pitch1()));
    l = rt_alloc_novalue((size_t)l_size(me));
    u = rt_alloc_novalue((size_t)u_size(me));
    /* init a */
    for (int64_t i = imax(1, me * b + 1),
         i_end = imin(n, ((me * b + 1) + ((a_ext_tab[me][0]) - 1))); i <= i_end; i++) {
        for (int64_t j = 1, j_end = imin(n, (1 + ((a_ext_tab[me][1]) - 1))); j <= j_end; j++) {
            a[((i - (me * b + 1)) * a_pitch1() + (j - 1))] =
                    (imod(i * 7 + j * 13, 17) + (i == j) * 4 * n);
        }
    }
}

/* One step of processor me: statements L U in order, the sends put into the exchange; the arrays
 * restrict (each its own allocation). */
static __attribute__((noinline)) void step_L_U(int64_t t, int64_t me, rt_exchange *rt_x,
                                               double *restrict a, double *restrict l,
        double *restrict u)
{
    (void)rt_x;
    const int64_t rp = me;   /* this processor */
    for (int64_t p = imax(imax(1, -n + t + 2), rp * b + 1),
         p_end = imin(imin(n, t + 1), rp * b + b); p <= p_end; p += 1) {
        const int64_t i = p;
        const int64_t j = t - p + 2;
        if (j <= i) {
            const int64_t rt_row2 = l_rowbase(me, i);   /* l[i][..] */
            double rt_red1 = 1 <= (j - 1) ? -0.0 : 0.0;   /* sum(k = ..) */
            for (int64_t k = 1, k_end = (j - 1); k <= k_end; k++) {
                const double rt_term = (l[rt_row2 + k] * u[u_rowbase(me, k) + j]);
                rt_red1 = rt_red1 + rt_term;
            }
            /* L */
            l[l_rowbase(me, i) + j] = a[((i - (me * b + 1)) * a_pitch1() + j - 1)] - rt_red1;
        } else {
            const int64_t rt_row4 = l_rowbase(me, i);   /* l[i][..] */
            double rt_red3 = 1 <= (i - 1) ? -0.0 : 0.0;   /* sum(k = ..) */
            for (int64_t k = 1, k_end = (i - 1); k <= k_end; k++) {
                const double rt_term = (l[rt_row4 + k] * u[u_rowbase(me, k) + j]);
                rt_red3 = rt_red3 + rt_term;
            }
            /* U */
            u[u_rowbase(me, i) + j] =
                    (a[((i - (me * b + 1)) * a_pitch1() + j - 1)] - rt_red3)
                    / l[l_rowbase(me, i) + i];
            /* send u[i][j]: one record for processors ifloordiv(p, b) .. ifloordiv(n - 1, b) */
            if (1)
                rt_mcast_put(rt_mc, (int)(ifloordiv(p, b) - 0), (int)(ifloordiv(n - 1, b) - 0),
                             u_gidx(i, j) * 3 + 2, u[u_rowbase(me, i) + j]);
        }
    }
}

/* Step t replayed after the timed loop for its writes of the outputs alone (they follow
 * from the indices): each element this processor computes is stamped, for the gather. */
static void mark_L_U(int64_t t, int64_t me)
{
    const rt_mark rt_now = (rt_mark)rt_stamp;   /* a local: the stores cannot change it */
    const int64_t rp = me;   /* this processor */
    for (int64_t p = imax(imax(1, -n + t + 2), rp * b + 1),
         p_end = imin(imin(n, t + 1), rp * b + b); p <= p_end; p += 1) {
        const int64_t i = p;
        const int64_t j = t - p + 2;
        if (j <= i) {
            l_mine[l_rowbase(me, i) + j] = rt_now;   /* L */
        } else {
            u_mine[u_rowbase(me, i) + j] = rt_now;   /* U */
        }
    }
}

/* The end of a step: every rank's multicast records, stored where this processor keeps them. */
static void deliver(rt_exchange *rt_x, int64_t me)
{
    (void)rt_x;
    const rt_record *rt_r;
    rt_mcast_run(rt_mc);
    const size_t rt_nm = rt_mcast_received(rt_mc, &rt_r);
    for (size_t rt_i = 0; rt_i < rt_nm; rt_i++) {
        const int64_t rt_g = rt_r[rt_i].index / 3;
        switch ((int)(rt_r[rt_i].index % 3)) {
        case 0: a[a_at_gidx(me, rt_g)] = rt_r[rt_i].value; break;
        case 1: l[l_at_gidx(me, rt_g)] = rt_r[rt_i].value; break;
        case 2: u[u_at_gidx(me, rt_g)] = rt_r[rt_i].value; break;
        default: break;
        }
    }
}

/* The checksum of the outputs, in declaration order, as `polyapm sim` computes it (gathered on rank
 * 0: each element from the processor that computed it last, else its init value). */
static uint64_t output_checksum(int64_t me)
{
    rt_checksum hash;
    rt_checksum_init(&hash);
    {   /* output l */
        const int64_t rt_row = n, rt_rows = rt_row < 65536 ? 65536 / rt_row : 1;
        double *region = NULL;
        unsigned char *computed = NULL;
        if (me == 0) {
            region = rt_malloc((size_t)(rt_rows * rt_row) * sizeof *region);
            computed = rt_malloc((size_t)(rt_rows * rt_row));
        }
        for (int64_t rt_c0 = 1, rt_cend = n; rt_c0 <= rt_cend; rt_c0 += rt_rows) {
            const int64_t rt_c1 = imin(rt_cend, rt_c0 + rt_rows - 1);
            const int64_t rt_base = (rt_c0 - 1) * rt_row,
                    region_size = (rt_c1 - rt_c0 + 1) * rt_row;
            if (me == 0) rt_fill_novalue(region, (size_t)region_size);
            rt_gather *rt_g = rt_gather_new(MPI_COMM_WORLD, region, region_size);
            for (int rt_pc = 0; rt_pc < 1; rt_pc++) {
                for (int64_t g0 = imax(imax(1, rt_c0), l_pc[rt_pc].lo[0]),
                     g0_end = imin(imin(n, rt_c1), l_pc[rt_pc].hi[0]); g0 <= g0_end; g0++) {
                    for (int64_t g1 = imax(1, l_pc[rt_pc].rlo[l_row(rt_pc, g0)]),
                         g1_end = imin(n, l_pc[rt_pc].rhi[l_row(rt_pc, g0)]); g1 <= g1_end; g1++) {
                        if (!rt_piece_held(&l_pc[rt_pc], l_row(rt_pc, g0), g1)) continue;
                        const int64_t rt_o = rt_piece_idx(&l_pc[rt_pc], l_row(rt_pc, g0), g1);
                        if (l_mine[rt_o]) rt_gather_put(rt_g, (g0 - 1) * n + g1 - 1 - rt_base,
                                                        l[rt_o], l_mine[rt_o]);
                    }
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
    {   /* output u */
        const int64_t rt_row = n, rt_rows = rt_row < 65536 ? 65536 / rt_row : 1;
        double *region = NULL;
        unsigned char *computed = NULL;
        if (me == 0) {
            region = rt_malloc((size_t)(rt_rows * rt_row) * sizeof *region);
            computed = rt_malloc((size_t)(rt_rows * rt_row));
        }
        for (int64_t rt_c0 = 1, rt_cend = n; rt_c0 <= rt_cend; rt_c0 += rt_rows) {
            const int64_t rt_c1 = imin(rt_cend, rt_c0 + rt_rows - 1);
            const int64_t rt_base = (rt_c0 - 1) * rt_row,
                    region_size = (rt_c1 - rt_c0 + 1) * rt_row;
            if (me == 0) rt_fill_novalue(region, (size_t)region_size);
            rt_gather *rt_g = rt_gather_new(MPI_COMM_WORLD, region, region_size);
            for (int rt_pc = 0; rt_pc < 1; rt_pc++) {
                for (int64_t g0 = imax(imax(1, rt_c0), u_pc[rt_pc].lo[0]),
                     g0_end = imin(imin(n, rt_c1), u_pc[rt_pc].hi[0]); g0 <= g0_end; g0++) {
                    for (int64_t g1 = imax(1, u_pc[rt_pc].rlo[u_row(rt_pc, g0)]),
                         g1_end = imin(n, u_pc[rt_pc].rhi[u_row(rt_pc, g0)]); g1 <= g1_end; g1++) {
                        if (!rt_piece_held(&u_pc[rt_pc], u_row(rt_pc, g0), g1)) continue;
                        const int64_t rt_o = rt_piece_idx(&u_pc[rt_pc], u_row(rt_pc, g0), g1);
                        if (u_mine[rt_o]) rt_gather_put(rt_g, (g0 - 1) * n + g1 - 1 - rt_base,
                                                        u[rt_o], u_mine[rt_o]);
                    }
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
    rt_require_ranks(4, "lu_syndm was derived for 4 processors");
    const int64_t me = rt_rank(MPI_COMM_WORLD);   /* this rank's processor */
    init_arrays(me);
    rt_exchange *rt_x = NULL;
    rt_mc = rt_mcast_new(MPI_COMM_WORLD);
    const double t0 = rt_time_start(MPI_COMM_WORLD);
    for (int64_t t = 0, t_end = (2 * n - 2); t <= t_end; t += 1) {
        step_L_U(t, me, rt_x, a, l, u);
        if ((t >= 1) && (t <= 19))   /* the steps at which some processor sends */
            deliver(rt_x, me);
    }
    const double seconds = rt_time_stop(MPI_COMM_WORLD, t0);
    free(a);   /* no output */
    a = NULL;
    l_mine = rt_calloc((size_t)l_size(me), sizeof *l_mine);
    u_mine = rt_calloc((size_t)u_size(me), sizeof *u_mine);
    for (int64_t t = 0, t_end = (2 * n - 2); t <= t_end; t += 1) {   /* the outputs' stamps */
        if (++rt_stamp > RT_MARK_MAX) rt_die("more steps than an rt_mark holds");
        mark_L_U(t, me);
    }
    const uint64_t sum = output_checksum(me);
    rt_report_memory(MPI_COMM_WORLD, ((a_ext_tab[me][0]) * a_pitch1()) + l_size(me) + u_size(me));
    rt_report(MPI_COMM_WORLD, sum, seconds);
    if (rt_x) rt_exchange_free(rt_x);
    rt_mcast_free(rt_mc);
    free(a);
    free(l);
    free(l_mine);
    l_free_pieces();
    free(u);
    free(u_mine);
    u_free_pieces();
    rt_finalize();
    return 0;
}
