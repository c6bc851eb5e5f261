/*
 * sim_exec.c — the simulator's interpreter: evaluates compiled expressions and executes
 * compiled statements for one processor instance (see sim_int.h for the representation).
 *
 * The hot paths are the typed eval switches and the array access: affine subscripts, one
 * unsigned compare per dimension for the bounds, one state byte for "has a value".  Everything
 * unusual (violations, race bookkeeping, messages) leaves the hot path through a call.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "intsem.h"
#include "sim_int.h"

#define SIM_LIKELY(x) __builtin_expect(!!(x), 1)
#define SIM_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SIM_COLD __attribute__((cold, noinline))
#define SIM_NOINLINE __attribute__((noinline))

static inline int64_t sim_aff_eval(const sim_ctx *c, const sim_aff *a)
{
    uint64_t v = (uint64_t)a->c;
    for (int k = 0; k < a->n; k++) v += (uint64_t)a->coef[k] * (uint64_t)c->fi[a->slot[k]];
    return (int64_t)v;
}

static inline int64_t sim_sub_eval(sim_ctx *c, const sim_sub *s)
{
    return SIM_LIKELY(!s->gen) ? sim_aff_eval(c, &s->aff) : sim_eval_i(c, s->gen);
}

static void sim_acc_indices(sim_ctx *c, const sim_node *n, int64_t *idx)
{
    for (int d = 0; d < n->n; d++) idx[d] = sim_sub_eval(c, &n->sub[d]);
}

/* "a[1][2]", at syndm followed by " (global a[..])" when an offset applies. */
static void sim_fmt_local(sim_ctx *c, int array, const sim_mem *m, const int64_t *idx, int nd,
                          char *buf, size_t size)
{
    sim_fmt_elem(c, array, idx, nd, buf, size);
    if (c->level != IR_SYNDM) return;
    int any = 0;
    int64_t g[SIM_MAXDIMS];
    for (int d = 0; d < nd; d++) {
        int64_t r = m->lat ? sim_mem_slot(m, d, idx[d]) : -1;
        g[d] = r >= 0 ? sim_mem_global(m, d, r) : (int64_t)((uint64_t)idx[d] + (uint64_t)m->off[d]);
        any |= g[d] != idx[d];
    }
    if (!any) return;
    size_t l = strlen(buf);
    if (l + 10 >= size) return;
    snprintf(buf + l, size - l, " (global ");
    l = strlen(buf);
    sim_fmt_elem(c, array, g, nd, buf + l, size - l);
    l = strlen(buf);
    if (l + 1 < size) { buf[l] = ')'; buf[l + 1] = 0; }
}

SIM_COLD static void sim_report_oob(sim_ctx *c, const sim_node *n, const sim_mem *m, const char *verb)
{
    int64_t idx[SIM_MAXDIMS];
    char el[256], wh[160];
    sim_acc_indices(c, n, idx);
    sim_fmt_elem(c, n->array, idx, n->n, el, sizeof el);
    sim_fmt_where(c, wh, sizeof wh);
    int line = c->cur ? c->cur->line : 0, col = c->cur ? c->cur->col : 0;
    if (c->level == IR_SYNDM)
        sim_violation_add(c, SIM_V_OUTSIDE_LOCAL, line, col,
                          "outside local memory: processor %lld at t=%lld %s %s, outside its part of %s%s",
                          (long long)sim_proc_value(c, c->proc), (long long)c->tval, verb, el,
                          c->prog->arrays[n->array]->u.array.name, wh);
    else
        sim_violation_add(c, SIM_V_OUT_OF_BOUNDS, line, col,
                          "out of bounds: processor %lld at t=%lld %s %s%s",
                          (long long)sim_proc_value(c, c->proc), (long long)c->tval, verb, el, wh);
    (void)m;
}

SIM_COLD static void sim_report_undef(sim_ctx *c, const sim_node *n, const sim_mem *m)
{
    int64_t idx[SIM_MAXDIMS];
    char el[300], wh[160];
    sim_acc_indices(c, n, idx);
    if (m->held) {                       /* a pieced memory: is it outside the pieces? */
        int64_t off = 0;
        for (int d = 0; d < n->n; d++) off += sim_mem_slot(m, d, idx[d]) * m->stride[d];
        if (!m->held[off]) { sim_report_oob(c, n, m, "reads"); return; }
    }
    sim_fmt_local(c, n->array, m, idx, n->n, el, sizeof el);
    sim_fmt_where(c, wh, sizeof wh);
    int line = c->cur ? c->cur->line : 0, col = c->cur ? c->cur->col : 0;
    long long p = (long long)sim_proc_value(c, c->proc), t = (long long)c->tval;
    if (c->level == IR_SYNDM)
        sim_violation_add(c, SIM_V_MISSING_MESSAGE, line, col,
                          "missing message: processor %lld at t=%lld reads %s, which it neither "
                          "computed nor received%s", p, t, el, wh);
    else if (c->level == IR_SOURCE)
        sim_violation_add(c, SIM_V_UNDEFINED_READ, line, col,
                          "undefined read: %s has no value yet%s", el, wh);
    else
        sim_violation_add(c, SIM_V_UNDEFINED_READ, line, col,
                          "undefined read: processor %lld at t=%lld reads %s, which has no value%s",
                          p, t, el, wh);
}

SIM_COLD static void sim_report_race(sim_ctx *c, const sim_node *n, int writing, int other_wrote, int other)
{
    int64_t idx[SIM_MAXDIMS];
    char el[256], wh[160], who[64];
    sim_acc_indices(c, n, idx);
    sim_fmt_elem(c, n->array, idx, n->n, el, sizeof el);
    sim_fmt_where(c, wh, sizeof wh);
    if (other < 0) snprintf(who, sizeof who, "several processors");
    else snprintf(who, sizeof who, "processor %lld", (long long)sim_proc_value(c, other));
    sim_violation_add(c, SIM_V_RACE, c->cur ? c->cur->line : 0, c->cur ? c->cur->col : 0,
                      "race: processor %lld %s %s %s by %s in the same step t=%lld%s",
                      (long long)sim_proc_value(c, c->proc), writing ? "writes" : "reads", el,
                      other_wrote ? "written" : "read", who, (long long)c->tval, wh);
}

SIM_NOINLINE static void sim_race_read(sim_ctx *c, const sim_node *n, int32_t *mt)
{
    if (mt[0] == c->rstep && mt[1] != c->proc) sim_report_race(c, n, 0, 1, mt[1]);
    if (mt[2] != c->rstep) { mt[2] = c->rstep; mt[3] = c->proc; }
    else if (mt[3] != c->proc) mt[3] = -2;
}

SIM_NOINLINE static void sim_race_write(sim_ctx *c, const sim_node *n, int32_t *mt)
{
    if (mt[0] == c->rstep && mt[1] != c->proc) sim_report_race(c, n, 1, 1, mt[1]);
    else if (mt[2] == c->rstep && mt[3] != c->proc) sim_report_race(c, n, 1, 0, mt[3] == -2 ? -1 : mt[3]);
    mt[0] = c->rstep;
    mt[1] = c->proc;
}

/* A folded memory, all subscripts within bounds: storage plane k of index x is held, or a write
 * takes it over (0); a read of a plane not held reports the element undefined (-1). */
static int sim_plane_check(sim_ctx *c, const sim_node *n, sim_mem *m, int64_t k, int64_t x, int write)
{
    if (m->ptag[k] == x) return 0;
    if (!write) { sim_report_undef(c, n, m); return -1; }
    sim_plane_take(m, k, x);
    return 0;
}

/* Offset of the element an access names in memory m, or -1 after reporting it out of bounds
 * (`verb` is "reads" or "writes").  A folded dimension's plane is checked after every bound
 * (sim_plane_check); the unfolded paths do no plane work.  A memory neither strided nor folded
 * also leaves the access indices in xs[] (sim_acc_shadow_off's). */
static inline __attribute__((always_inline)) int64_t sim_acc_offset(sim_ctx *c, const sim_node *n,
                                                                    sim_mem *m, const char *verb, int write,
                                                                    int64_t *xs)
{
    int64_t off = 0;
    int64_t plane = -1, px = 0;   /* a folded dimension's storage plane and index */
    if (SIM_UNLIKELY(m->slow) && !m->lat_abs && n->simple) {   /* folded, simple subscripts */
        const int64_t *fi = c->fi;
        for (int d = 0; d < n->n; d++) {
            const sim_sub *sb = &n->sub[d];
            int64_t x = (int64_t)((uint64_t)sb->aff.c + (uint64_t)sb->scoef * (uint64_t)fi[sb->sslot]);
            uint64_t r = (uint64_t)x - (uint64_t)m->lo[d];
            if (d != m->fold) {
                if (SIM_UNLIKELY(r >= (uint64_t)m->ext[d])) { sim_report_oob(c, n, m, verb); return -1; }
            } else {
                if (SIM_UNLIKELY(r >= (uint64_t)m->fext)) { sim_report_oob(c, n, m, verb); return -1; }
                r &= (uint64_t)(m->ext[d] - 1);
                plane = (int64_t)r;
                px = x;
            }
            off += (int64_t)r * m->stride[d];
        }
        if (sim_plane_check(c, n, m, plane, px, write) != 0) return -1;
    } else if (SIM_UNLIKELY(m->slow)) {
        for (int d = 0; d < n->n; d++) {
            const sim_sub *sb = &n->sub[d];
            int64_t x = n->simple ? (int64_t)((uint64_t)sb->aff.c + (uint64_t)sb->scoef * (uint64_t)c->fi[sb->sslot])
                                  : sim_sub_eval(c, sb);
            int64_t r = sim_mem_slot(m, d, x);
            if (SIM_UNLIKELY(r < 0)) { sim_report_oob(c, n, m, verb); return -1; }
            if (sim_folded(m, d)) { plane = r; px = x; }
            off += r * m->stride[d];
        }
        if (plane >= 0 && sim_plane_check(c, n, m, plane, px, write) != 0) return -1;
    } else if (SIM_LIKELY(n->simple)) {
        const int64_t *fi = c->fi;
        for (int d = 0; d < n->n; d++) {
            const sim_sub *sb = &n->sub[d];
            int64_t x = (int64_t)((uint64_t)sb->aff.c + (uint64_t)sb->scoef * (uint64_t)fi[sb->sslot]);
            uint64_t r = (uint64_t)x - (uint64_t)m->lo[d];
            if (SIM_UNLIKELY(r >= (uint64_t)m->ext[d])) { sim_report_oob(c, n, m, verb); return -1; }
            xs[d] = x;
            off += (int64_t)r * m->stride[d];
        }
    } else for (int d = 0; d < n->n; d++) {
        int64_t x = sim_sub_eval(c, &n->sub[d]);
        uint64_t r = (uint64_t)x - (uint64_t)m->lo[d];
        if (SIM_UNLIKELY(r >= (uint64_t)m->ext[d])) { sim_report_oob(c, n, m, verb); return -1; }
        xs[d] = x;
        off += (int64_t)r * m->stride[d];
    }
    return off;
}

/* The id (sim_version.c) of the element an access names in m, within bounds. */
static int64_t sim_acc_goff(sim_ctx *c, const sim_node *n, const sim_mem *m)
{
    int64_t x[SIM_MAXDIMS];
    sim_acc_indices(c, n, x);
    return sim_version_goff(m, x);
}

/* The global indices g of the element an access names in m, within bounds: 0, or -1 outside
 * the array (sim_version_global). */
static int sim_acc_global(sim_ctx *c, const sim_node *n, const sim_mem *m, int64_t *g)
{
    int64_t x[SIM_MAXDIMS];
    sim_acc_indices(c, n, x);
    return sim_version_global(m, x, g);
}

/* The storage offset in m's shadow of the element an access names in m (within m's bounds), or
 * -1 outside the array; *plane_ok = 0 when the shadow keeps only live planes and this element's
 * plane holds another index (its newest version is then 0).  The common case — a memory neither
 * strided nor folded, a shadow keeping every plane — is one pass over the access indices xs[]
 * that sim_acc_offset left (global = local + off); the rest goes through the global indices. */
static inline __attribute__((always_inline)) int64_t sim_acc_shadow_off(sim_ctx *c, const sim_node *n,
                                                                        const sim_mem *m, const int64_t *xs,
                                                                        int *plane_ok)
{
    const sim_shadow *sh = m->shadow;
    *plane_ok = 1;
    if (SIM_LIKELY(!m->slow && !m->lat && sh->fold < 0)) {   /* xs[] holds the access indices */
        int64_t soff = 0;
        for (int d = 0; d < n->n; d++) {
            uint64_t r = (uint64_t)xs[d] + (uint64_t)m->off[d] - (uint64_t)sh->lo[d];
            if (r >= (uint64_t)sh->ext[d]) return -1;
            soff += (int64_t)r * sh->sstride[d];
        }
        return soff;
    }
    int64_t g[SIM_MAXDIMS], plane;
    if (sim_acc_global(c, n, m, g) != 0) return -1;
    int64_t soff = sim_shadow_slot(sh, g, &plane);
    if (plane >= 0 && sh->ptag[plane] != g[sh->fold]) *plane_ok = 0;
    return soff;
}

SIM_COLD static void sim_report_stale(sim_ctx *c, const sim_node *n, const sim_mem *m)
{
    int64_t idx[SIM_MAXDIMS];
    char el[300], wh[160];
    sim_acc_indices(c, n, idx);
    sim_fmt_local(c, n->array, m, idx, n->n, el, sizeof el);
    sim_fmt_where(c, wh, sizeof wh);
    sim_violation_add(c, SIM_V_MISSING_MESSAGE, c->cur ? c->cur->line : 0, c->cur ? c->cur->col : 0,
                      "missing message: processor %lld at t=%lld reads %s, whose copy is stale "
                      "(a newer value was written and did not arrive)%s",
                      (long long)sim_proc_value(c, c->proc), (long long)c->tval, el, wh);
}

/* Offset of a readable element, or -1 after reporting why it is not readable.  `fresh`: at
 * syndm a stale copy is not readable either (a send forwards whatever copy it has). */
static inline __attribute__((always_inline)) int64_t sim_acc_read_as(sim_ctx *c, const sim_node *n, int fresh)
{
    sim_mem *m = &c->mem[n->array];
    int64_t xs[SIM_MAXDIMS];
    int64_t off = sim_acc_offset(c, n, m, "reads", 0, xs);
    if (SIM_UNLIKELY(off < 0)) return -1;
    if (SIM_UNLIKELY(!m->state[off])) { sim_report_undef(c, n, m); return -1; }
    if (SIM_UNLIKELY(m->meta != NULL)) sim_race_read(c, n, m->meta + 4 * off);
    if (SIM_UNLIKELY(m->shadow != NULL) && fresh && !m->shadow->all_newest) {
        int plane_ok;
        int64_t soff = sim_acc_shadow_off(c, n, m, xs, &plane_ok);
        if (soff >= 0 && m->ver[off] != (plane_ok ? m->shadow->ver[soff] : 0)) {
            sim_report_stale(c, n, m);
            return -1;
        }
    }
    return off;
}

static inline __attribute__((always_inline)) int64_t sim_acc_read(sim_ctx *c, const sim_node *n)
{
    return sim_acc_read_as(c, n, 1);
}

/* Offset of a writable element, or -1 after reporting.  The write makes the element's next
 * version (memories with versions). */
static inline int64_t sim_acc_write(sim_ctx *c, const sim_node *n)
{
    sim_mem *m = &c->mem[n->array];
    int64_t xs[SIM_MAXDIMS];
    int64_t off = sim_acc_offset(c, n, m, "writes", 1, xs);
    if (off < 0) return -1;
    if (SIM_UNLIKELY(m->held != NULL) && !m->held[off]) { sim_report_oob(c, n, m, "writes"); return -1; }
    if (m->meta) sim_race_write(c, n, m->meta + 4 * off);
    if (SIM_UNLIKELY(m->ver != NULL)) {
        if (m->shadow && m->shadow->fold < 0) {
            int plane_ok;
            int64_t soff = sim_acc_shadow_off(c, n, m, xs, &plane_ok);
            m->ver[off] = soff >= 0 ? sim_version_bump(c, m->shadow, soff) : 0;
        } else if (m->shadow) {
            int64_t g[SIM_MAXDIMS];
            m->ver[off] = sim_acc_global(c, n, m, g) == 0 ? sim_version_write(c, m->shadow, g) : 0;
        }
        else m->ver[off]++;
    }
    return off;
}

SIM_COLD static void sim_runtime(sim_ctx *c, const char *what)
{
    char wh[160];
    sim_fmt_where(c, wh, sizeof wh);
    sim_violation_add(c, SIM_V_RUNTIME, c->cur ? c->cur->line : 0, c->cur ? c->cur->col : 0,
                      "runtime error: %s (processor %lld, t=%lld)%s", what,
                      (long long)sim_proc_value(c, c->proc), (long long)c->tval, wh);
    c->stop = 1;
}

/* Integer arithmetic is intsem.h's: a result that does not fit, a division by zero or isqrt of
 * a negative number stops the run with a runtime error naming the statement. */
SIM_COLD static int64_t sim_int_error(sim_ctx *c, int status)
{
    sim_runtime(c, intsem_message(status));
    return 0;
}

static inline __attribute__((always_inline)) int64_t sim_ires(sim_ctx *c, int status, const int64_t *r)
{
    return SIM_LIKELY(!status) ? *r : sim_int_error(c, status);
}

/* An affine form as an expression's value: exact in 128 bits, an error when it does not fit
 * 64 (the source's own order of operations would overflow too). */
static inline int64_t sim_aff_value(sim_ctx *c, const sim_aff *a)
{
    __int128 v = a->c;
    for (int k = 0; k < a->n; k++) v += (__int128)a->coef[k] * c->fi[a->slot[k]];
    return SIM_LIKELY(v >= INT64_MIN && v <= INT64_MAX) ? (int64_t)v : sim_int_error(c, INTSEM_OVERFLOW);
}

static int64_t sim_d2i(sim_ctx *c, double v)
{
    if (!(v >= -9.2233720368547758e18 && v < 9.2233720368547758e18)) {
        sim_runtime(c, "real value does not fit an integer");
        return 0;
    }
    return (int64_t)v;
}

SIM_COLD static void sim_empty_reduce(sim_ctx *c, const sim_node *n)
{
    (void)n;
    sim_runtime(c, "max/min over an empty range");
}


static inline double sim_accum(int rop, double acc, double v)
{
    switch (rop) {
    case IR_R_SUM: return acc + v;
    case IR_R_PROD: return acc * v;
    case IR_R_MAX: return v > acc ? v : acc;
    default: return v < acc ? v : acc;
    }
}

/* Sets up strength reduction for the range lo .. lo+cnt-1: running offsets and strides of the
 * SR accesses, all within bounds for the whole range.  0 when not applicable. */
static int sim_sr_setup(sim_ctx *c, sim_node *n, int64_t lo, uint64_t cnt)
{
    if (cnt > (UINT64_C(1) << 40)) return 0;
    int k = n->slot;
    c->fi[k] = lo;
    for (int j = 0; j < n->nsr; j++) {
        const sim_node *a = n->sracc[j];
        const sim_mem *m = &c->mem[a->array];
        if (m->shadow) return 0;      /* copies may be stale: every read is checked */
        int64_t off = 0, st = 0;
        for (int d = 0; d < a->n; d++) {
            const sim_aff *f = &a->sub[d].aff;
            int64_t coef = 0;
            for (int t = 0; t < f->n; t++) if (f->slot[t] == k) coef += f->coef[t];
            if (coef > (INT64_C(1) << 20) || coef < -(INT64_C(1) << 20)) return 0;
            int64_t v0 = sim_aff_eval(c, f);
            if ((m->lat_abs && m->lat_s[d]) || sim_folded(m, d)) {   /* strided, folded: a fixed index */
                int64_t r = sim_mem_slot(m, d, v0);
                if (coef != 0 || r < 0 || (sim_folded(m, d) && m->ptag[r] != v0)) return 0;
                off += r * m->stride[d];
                continue;
            }
            uint64_t r0 = (uint64_t)v0 - (uint64_t)m->lo[d];
            uint64_t r1 = r0 + (uint64_t)coef * (cnt - 1);
            if (r0 >= (uint64_t)m->ext[d] || r1 >= (uint64_t)m->ext[d]) return 0;
            off += (int64_t)r0 * m->stride[d];
            st += coef * m->stride[d];
        }
        n->srcur[j] = off;
        n->srstride[j] = st;
    }
    return 1;
}

/* A double reduction over lo .. lo+cnt-1 (cnt >= 1); ticks are already counted. */
SIM_NOINLINE static double sim_reduce_d(sim_ctx *c, sim_node *n, int64_t lo, uint64_t cnt)
{
    int64_t *k = &c->fi[n->slot];
    uint64_t i = 0;
    double acc = 0;
    if (n->srbody && sim_sr_setup(c, n, lo, cnt)) {
        const sim_node *b = n->srbody;
        if (n->nsr == 2 && b->op == SO_MULD && b->a->op == SO_ACCD_SR && b->b->op == SO_ACCD_SR
            && n->rop == IR_R_SUM && (c->mem[b->a->array].meta || c->mem[b->b->array].meta)) {
            /* the dot product with race bookkeeping (syn, syncomm) */
            const sim_mem *ma = &c->mem[b->a->array], *mb = &c->mem[b->b->array];
            const double *da = ma->data, *db = mb->data;
            const unsigned char *sa = ma->state, *sb = mb->state;
            int32_t *xa = ma->meta, *xb = mb->meta;
            int ja = (int)b->a->ival, jb = (int)b->b->ival;
            int64_t oa = n->srcur[ja], ob = n->srcur[jb];
            const int64_t ta = n->srstride[ja], tb = n->srstride[jb];
            for (; i < cnt; i++, oa += ta, ob += tb) {
                if (SIM_UNLIKELY(!sa[oa] || !sb[ob])) break;
                if (xa) {
                    int32_t *mt = xa + 4 * oa;
                    if (SIM_UNLIKELY(mt[0] == c->rstep || mt[2] != c->rstep || mt[3] != c->proc)) {
                        *k = (int64_t)((uint64_t)lo + i);
                        sim_race_read(c, b->a, mt);
                    }
                }
                if (xb) {
                    int32_t *mt = xb + 4 * ob;
                    if (SIM_UNLIKELY(mt[0] == c->rstep || mt[2] != c->rstep || mt[3] != c->proc)) {
                        *k = (int64_t)((uint64_t)lo + i);
                        sim_race_read(c, b->b, mt);
                    }
                }
                double v = da[oa] * db[ob];
                acc = i == 0 ? v : acc + v;
            }
            if (i == cnt) return acc;
        } else if (n->nsr == 2 && b->op == SO_MULD && b->a->op == SO_ACCD_SR && b->b->op == SO_ACCD_SR
            && n->rop == IR_R_SUM) {
            /* the dot product: sum(k) x[..k..] * y[..k..] */
            const sim_mem *ma = &c->mem[b->a->array], *mb = &c->mem[b->b->array];
            const double *da = ma->data, *db = mb->data;
            const unsigned char *sa = ma->state, *sb = mb->state;
            int ja = (int)b->a->ival, jb = (int)b->b->ival;
            int64_t oa = n->srcur[ja], ob = n->srcur[jb];
            const int64_t ta = n->srstride[ja], tb = n->srstride[jb];
            if (sa[oa] && sb[ob]) {
                acc = da[oa] * db[ob];
                oa += ta; ob += tb;
                for (i = 1; i < cnt; i++, oa += ta, ob += tb) {
                    if (SIM_UNLIKELY(!sa[oa] || !sb[ob])) break;
                    acc += da[oa] * db[ob];
                }
                if (i == cnt) { *k = (int64_t)((uint64_t)lo + cnt - 1); return acc; }
            }
        } else {
            for (; i < cnt; i++) {
                int j;
                for (j = 0; j < n->nsr; j++)
                    if (!c->mem[n->sracc[j]->array].state[n->srcur[j]]) break;
                if (j < n->nsr) break;
                *k = (int64_t)((uint64_t)lo + i);
                for (j = 0; j < n->nsr; j++) {       /* race bookkeeping (syn, syncomm) */
                    const sim_mem *m = &c->mem[n->sracc[j]->array];
                    if (m->meta) sim_race_read(c, n->sracc[j], m->meta + 4 * n->srcur[j]);
                }
                double v = sim_eval_d(c, b);
                acc = i == 0 ? v : sim_accum(n->rop, acc, v);
                for (j = 0; j < n->nsr; j++) n->srcur[j] += n->srstride[j];
                if (SIM_UNLIKELY(c->stop)) return acc;
            }
            if (i == cnt) return acc;
        }
    }
    /* the general path (also the rest after an element without a value) */
    const sim_node *body = n->c;
    for (; i < cnt && SIM_LIKELY(!c->stop); i++) {
        *k = (int64_t)((uint64_t)lo + i);
        double v = sim_eval_d(c, body);
        acc = i == 0 ? v : sim_accum(n->rop, acc, v);
    }
    return acc;
}



/* Operands that need no recursion: constants, variables, affine forms, array elements. */
static inline __attribute__((always_inline)) double sim_opnd_d(sim_ctx *c, const sim_node *n)
{
    if (n->op == SO_ACCD) {
        int64_t off = sim_acc_read(c, n);
        return off < 0 ? 0.0 : ((const double *)c->mem[n->array].data)[off];
    }
    if (n->op == SO_CD) return n->dval;
    return sim_eval_d(c, n);
}

static inline __attribute__((always_inline)) int64_t sim_opnd_i(sim_ctx *c, const sim_node *n)
{
    if (n->op == SO_LI) return c->fi[n->slot];
    if (n->op == SO_MEMO && n->memo_valid && (n->n == 0 || c->fi[n->slot] == n->memo_in)) return n->ival;
    if (n->op == SO_CI) return n->ival;
    if (n->op == SO_AFF) return sim_aff_value(c, &n->aff);
    return sim_eval_i(c, n);
}

/* A condition operand: comparisons of simple operands without a call. */
static inline int64_t sim_cmpaff(const sim_ctx *c, const sim_node *n)
{
    int64_t d = sim_aff_eval(c, &n->aff);
    return (n->ival >> ((d > 0) + (d >= 0))) & 1;
}

static inline __attribute__((always_inline)) int64_t sim_truth(sim_ctx *c, const sim_node *n)
{
    switch (n->op) {
    case SO_CMPAFF: return sim_cmpaff(c, n);
    case SO_EQI: { int64_t a = sim_opnd_i(c, n->a); return a == sim_opnd_i(c, n->b); }
    case SO_NEI: { int64_t a = sim_opnd_i(c, n->a); return a != sim_opnd_i(c, n->b); }
    case SO_LTI: { int64_t a = sim_opnd_i(c, n->a); return a < sim_opnd_i(c, n->b); }
    case SO_LEI: { int64_t a = sim_opnd_i(c, n->a); return a <= sim_opnd_i(c, n->b); }
    case SO_GTI: { int64_t a = sim_opnd_i(c, n->a); return a > sim_opnd_i(c, n->b); }
    case SO_GEI: { int64_t a = sim_opnd_i(c, n->a); return a >= sim_opnd_i(c, n->b); }
    default: return sim_eval_i(c, n) != 0;
    }
}

SIM_NOINLINE static int64_t sim_eval_chain(sim_ctx *c, const sim_node *n)
{
    int is_or = n->op == SO_ORN;
    if (sim_truth(c, n->args[0]) == is_or) return is_or;
    for (int i = 1; i < n->n; i++) {
        c->ticks += n->argticks[i];
        if (sim_truth(c, n->args[i]) == is_or) return is_or;
    }
    return !is_or;
}

SIM_NOINLINE static int64_t sim_eval_redi(sim_ctx *c, const sim_node *n)
{
    int64_t lo = sim_eval_i(c, n->a), hi = sim_eval_i(c, n->b);
    if (lo > hi) {
        if (n->rop == IR_R_MAX || n->rop == IR_R_MIN) { sim_empty_reduce(c, n); return 0; }
        return n->rop == IR_R_PROD ? 1 : 0;
    }
    uint64_t cnt = (uint64_t)hi - (uint64_t)lo + 1;
    c->ticks += (double)cnt * n->dticks;
    int64_t *k = &c->fi[n->slot];
    *k = lo;
    int64_t acc = sim_eval_i(c, n->c);
    for (uint64_t i = 1; i < cnt && !c->stop; i++) {
        *k = (int64_t)((uint64_t)lo + i);
        int64_t v = sim_eval_i(c, n->c);
        switch (n->rop) {
        case IR_R_SUM: acc = sim_ires(c, intsem_add(acc, v, &acc), &acc); break;
        case IR_R_PROD: acc = sim_ires(c, intsem_mul(acc, v, &acc), &acc); break;
        case IR_R_MAX: if (v > acc) acc = v; break;
        default: if (v < acc) acc = v; break;
        }
    }
    return acc;
}

/* crand, clrand48, cdrand48 (crand.h): n->a the seed (NULL: none), n->b the call number; an
 * error (a negative call number, one too far for rand's cache) stops the run. */
SIM_NOINLINE static op_value sim_random(sim_ctx *c, const sim_node *n)
{
    op_value v = { .i = 0 };
    int64_t seed = n->a ? sim_eval_i(c, n->a) : 1, k = sim_eval_i(c, n->b);
    uint64_t x0 = n->a ? crand48_seed(seed) : CRAND48_UNSEEDED;
    int st = n->op == SO_CRAND ? crand_rand(&c->crand, seed, k, &v.i)
           : n->op == SO_CLRAND48 ? crand_lrand48(x0, k, &v.i) : crand_drand48(x0, k, &v.d);
    if (SIM_UNLIKELY(st)) sim_runtime(c, crand_message(st));
    return v;
}

int64_t sim_eval_i(sim_ctx *c, const sim_node *n)
{
    switch (n->op) {
    case SO_CI: return n->ival;
    case SO_LI: return c->fi[n->slot];
    case SO_AFF: return sim_aff_value(c, &n->aff);
    case SO_ADDI: { int64_t a = sim_opnd_i(c, n->a), b = sim_opnd_i(c, n->b), r; return sim_ires(c, intsem_add(a, b, &r), &r); }
    case SO_SUBI: { int64_t a = sim_opnd_i(c, n->a), b = sim_opnd_i(c, n->b), r; return sim_ires(c, intsem_sub(a, b, &r), &r); }
    case SO_MULI: { int64_t a = sim_opnd_i(c, n->a), b = sim_opnd_i(c, n->b), r; return sim_ires(c, intsem_mul(a, b, &r), &r); }
    case SO_DIVI: { int64_t a = sim_eval_i(c, n->a), b = sim_eval_i(c, n->b), r; return sim_ires(c, intsem_floordiv(a, b, &r), &r); }
    case SO_MODI: { int64_t a = sim_eval_i(c, n->a), b = sim_eval_i(c, n->b), r; return sim_ires(c, intsem_floormod(a, b, &r), &r); }
    case SO_CEILDIV: { int64_t a = sim_eval_i(c, n->a), b = sim_eval_i(c, n->b), r; return sim_ires(c, intsem_ceildiv(a, b, &r), &r); }
    case SO_NEGI: { int64_t a = sim_eval_i(c, n->a), r; return sim_ires(c, intsem_neg(a, &r), &r); }
    case SO_LTI: { int64_t a = sim_opnd_i(c, n->a); return a < sim_opnd_i(c, n->b); }
    case SO_LEI: { int64_t a = sim_opnd_i(c, n->a); return a <= sim_opnd_i(c, n->b); }
    case SO_GTI: { int64_t a = sim_opnd_i(c, n->a); return a > sim_opnd_i(c, n->b); }
    case SO_GEI: { int64_t a = sim_opnd_i(c, n->a); return a >= sim_opnd_i(c, n->b); }
    case SO_EQI: { int64_t a = sim_opnd_i(c, n->a); return a == sim_opnd_i(c, n->b); }
    case SO_NEI: { int64_t a = sim_opnd_i(c, n->a); return a != sim_opnd_i(c, n->b); }
    case SO_LTD: { double a = sim_opnd_d(c, n->a); return a < sim_opnd_d(c, n->b); }
    case SO_LED: { double a = sim_opnd_d(c, n->a); return a <= sim_opnd_d(c, n->b); }
    case SO_GTD: { double a = sim_opnd_d(c, n->a); return a > sim_opnd_d(c, n->b); }
    case SO_GED: { double a = sim_opnd_d(c, n->a); return a >= sim_opnd_d(c, n->b); }
    case SO_EQD: { double a = sim_opnd_d(c, n->a); return a == sim_opnd_d(c, n->b); }
    case SO_NED: { double a = sim_opnd_d(c, n->a); return a != sim_opnd_d(c, n->b); }
    case SO_AND:
        if (!sim_eval_i(c, n->a)) return 0;
        c->ticks += n->dticks;
        return sim_eval_i(c, n->b) != 0;
    case SO_OR:
        if (sim_eval_i(c, n->a)) return 1;
        c->ticks += n->dticks;
        return sim_eval_i(c, n->b) != 0;
    case SO_ANDN: case SO_ORN: return sim_eval_chain(c, n);
    case SO_CMPAFF: return sim_cmpaff(c, n);
    case SO_MEMO: {
        sim_node *m = (sim_node *)n;
        int64_t in = c->fi[m->slot];
        if (m->memo_valid && (m->n == 0 || in == m->memo_in)) return m->ival;
        int64_t v = sim_eval_i(c, m->a);
        if (!c->stop) { m->ival = v; m->memo_in = in; m->memo_valid = 1; }
        return v;
    }
    case SO_NOT: return !sim_eval_i(c, n->a);
    case SO_TRUTHD: return sim_eval_d(c, n->a) != 0;
    case SO_MINI: case SO_MAXI: {
        int64_t v = sim_eval_i(c, n->args[0]);
        for (int i = 1; i < n->n; i++) {
            int64_t w = sim_eval_i(c, n->args[i]);
            if (n->op == SO_MINI ? w < v : w > v) v = w;
        }
        return v;
    }
    case SO_ABSI: { int64_t a = sim_eval_i(c, n->a), r; return sim_ires(c, intsem_abs(a, &r), &r); }
    case SO_ISQRT: { int64_t a = sim_eval_i(c, n->a), r; return sim_ires(c, intsem_isqrt(a, &r), &r); }
    case SO_D2I: return sim_d2i(c, sim_eval_d(c, n->a));
    case SO_FLOORD2I: return sim_d2i(c, floor(sim_eval_d(c, n->a)));
    case SO_CEILD2I: return sim_d2i(c, ceil(sim_eval_d(c, n->a)));
    case SO_ACCI_SR:
        return ((const int64_t *)c->mem[n->array].data)[n->c->srcur[n->ival]];
    case SO_ACCI: {
        int64_t off = sim_acc_read(c, n);
        return off < 0 ? 0 : ((const int64_t *)c->mem[n->array].data)[off];
    }
    case SO_REDI: return sim_eval_redi(c, n);
    case SO_SELI: return sim_eval_i(c, n->a) ? sim_eval_i(c, n->b) : sim_eval_i(c, n->c);
    case SO_BANDI: { int64_t a = sim_eval_i(c, n->a); return a & sim_eval_i(c, n->b); }
    case SO_BORI: { int64_t a = sim_eval_i(c, n->a); return a | sim_eval_i(c, n->b); }
    case SO_BXORI: { int64_t a = sim_eval_i(c, n->a); return a ^ sim_eval_i(c, n->b); }
    case SO_REPEATI: return sim_repeat(c, n).i;
    case SO_CRAND: case SO_CLRAND48: return sim_random(c, n).i;
    default:
        return sim_d2i(c, sim_eval_d(c, n));
    }
}

SIM_NOINLINE static double sim_eval_redd(sim_ctx *c, const sim_node *n)
{
    int64_t lo = sim_eval_i(c, n->a), hi = sim_eval_i(c, n->b);
    if (lo > hi) {
        if (n->rop == IR_R_MAX || n->rop == IR_R_MIN) { sim_empty_reduce(c, n); return 0; }
        return n->rop == IR_R_PROD ? 1 : 0;
    }
    uint64_t cnt = (uint64_t)hi - (uint64_t)lo + 1;
    c->ticks += (double)cnt * n->dticks;
    return sim_reduce_d(c, (sim_node *)n, lo, cnt);
}

SIM_NOINLINE static double sim_eval_minmaxd(sim_ctx *c, const sim_node *n)
{
    double v = sim_eval_d(c, n->args[0]);
    for (int i = 1; i < n->n; i++) {
        double w = sim_eval_d(c, n->args[i]);
        if (n->op == SO_MIND ? w < v : w > v) v = w;
    }
    return v;
}

double sim_eval_d(sim_ctx *c, const sim_node *n)
{
    switch (n->op) {
    case SO_CD: return n->dval;
    case SO_LD: return c->fd[n->slot];
    case SO_ACCD: {
        int64_t off = sim_acc_read(c, n);
        return off < 0 ? 0.0 : ((const double *)c->mem[n->array].data)[off];
    }
    case SO_ACCD_SR:
        return ((const double *)c->mem[n->array].data)[n->c->srcur[n->ival]];
    case SO_ADDD: { double a = sim_opnd_d(c, n->a); return a + sim_opnd_d(c, n->b); }
    case SO_SUBD: { double a = sim_opnd_d(c, n->a); return a - sim_opnd_d(c, n->b); }
    case SO_MULD: { double a = sim_opnd_d(c, n->a); return a * sim_opnd_d(c, n->b); }
    case SO_DIVD: {
        double a = sim_opnd_d(c, n->a), b = sim_opnd_d(c, n->b);
        if (SIM_UNLIKELY(b == 0)) { sim_runtime(c, "division by zero"); return 0; }
        return a / b;
    }
    case SO_MODD: {
        double a = sim_eval_d(c, n->a), b = sim_eval_d(c, n->b);
        if (b == 0) { sim_runtime(c, "remainder by zero"); return 0; }
        return a - b * floor(a / b);
    }
    case SO_NEGD: return -sim_eval_d(c, n->a);
    case SO_MIND: case SO_MAXD: return sim_eval_minmaxd(c, n);
    case SO_ABSD: return fabs(sim_eval_d(c, n->a));
    case SO_SQRTD: return sqrt(sim_eval_d(c, n->a));
    case SO_LIBMD: {
        double x = sim_eval_d(c, n->a);
        return n->libm(x, n->b ? sim_eval_d(c, n->b) : 0);
    }
    case SO_FLOORD: return floor(sim_eval_d(c, n->a));
    case SO_CEILD: return ceil(sim_eval_d(c, n->a));
    case SO_I2D: return (double)sim_eval_i(c, n->a);
    case SO_REDD: return sim_eval_redd(c, n);
    case SO_SELD: return sim_eval_i(c, n->a) ? sim_eval_d(c, n->b) : sim_eval_d(c, n->c);
    case SO_REPEATD: return sim_repeat(c, n).d;
    case SO_CDRAND48: return sim_random(c, n).d;
    default:
        return (double)sim_eval_i(c, n);
    }
}

/* ---- statements ----------------------------------------------------------------------------- */

static double sim_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void sim_poll(sim_ctx *c)
{
    c->poll = 1 << 14;
    if (c->opt && c->opt->cancel && *c->opt->cancel) { c->stop = 1; c->stopped_reason = 2; return; }
    if (c->opt && c->opt->progress) {
        double now = sim_now();
        if (now - c->t_last_progress >= 0.05) {
            c->t_last_progress = now;
            double f = c->progress_lo;
            if (c->outer_n > 0) f += c->progress_span * (double)c->outer_i / (double)c->outer_n;
            if (f > 1) f = 1;
            c->opt->progress(c->opt->progress_ctx, f);
        }
    }
}

static void sim_exec_send(sim_ctx *c, const sim_stmt *s)
{
    if (s->has_cost) {
        double sv = c->ticks;
        int go = !s->when || sim_eval_i(c, s->when);
        c->ticks = sv + s->cost;
        if (!go) return;
    } else {   /* the guard's ticks, its short-circuit operands' included, go to the trace's guard too */
        double before = c->ticks;
        c->ticks += s->ticks;
        int go = !s->when || sim_eval_i(c, s->when);
        if (s->guard_work) c->guard_ticks += c->ticks - before;
        if (!go) return;
    }
    double sv = c->ticks;     /* the rest is free */
    const sim_node *w = s->what;
    int64_t off = sim_acc_read_as(c, w, 0);
    if (off < 0) { c->ticks = sv; return; }
    const sim_mem *m = &c->mem[w->array];
    sim_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.ver = m->ver ? m->ver[off] : 0;
    msg.gsrc = m->shadow ? sim_acc_goff(c, w, m) : -1;
    msg.src = c->proc;
    msg.tsend = c->tval;
    msg.array = w->array;
    msg.nidx = w->n;
    msg.st = s;
    memcpy(&msg.bits, (const char *)m->data + 8 * off, 8);
    if (s->as) for (int i = 0; i < s->nas; i++) msg.idx[i] = sim_eval_i(c, s->as[i]);
    else sim_acc_indices(c, w, msg.idx);
    msg.tdst = sim_eval_i(c, s->at);
    int64_t lo = sim_eval_i(c, s->to_lo), hi = s->to_hi ? sim_eval_i(c, s->to_hi) : lo;
    c->ticks = sv;
    char wh[160];
    if (msg.tdst <= c->tval) {
        sim_fmt_where(c, wh, sizeof wh);
        sim_violation_add(c, SIM_V_BAD_MESSAGE, s->line, s->col,
                          "bad message: processor %lld at t=%lld sends for t=%lld, which is not later%s",
                          (long long)sim_proc_value(c, c->proc), (long long)c->tval,
                          (long long)msg.tdst, wh);
        return;
    }
    int64_t me = sim_proc_value(c, c->proc);
    for (int64_t d = lo; d <= hi && !c->stop; d++) {
        if (d == me) continue;
        if (d < c->pmin || d - c->pmin >= c->nprocs) {
            sim_fmt_where(c, wh, sizeof wh);
            sim_violation_add(c, SIM_V_BAD_MESSAGE, s->line, s->col,
                              "bad message: processor %lld at t=%lld sends to processor %lld, "
                              "which does not exist%s", (long long)me, (long long)c->tval,
                              (long long)d, wh);
            if (d > c->pmin + c->nprocs) break;
            continue;
        }
        msg.dst = (int)(d - c->pmin);
        sim_message_add(c, &msg);
        if (d == INT64_MAX) break;
    }
}

/* Adds ticks to the running step's and processor's cell of a trace matrix (nsteps x nprocs, like
 * work; *matrix allocated by the first add): the trace's guard and overlap. */
void sim_trace_cell_add(sim_ctx *c, double **matrix, double ticks)
{
    const sim_trace *t = &c->r->trace;
    if (!*matrix) *matrix = calloc((size_t)(t->nsteps ? t->nsteps : 1) * (size_t)(t->nprocs ? t->nprocs : 1), sizeof **matrix);
    if (*matrix && c->step < t->nsteps && c->proc < t->nprocs)
        (*matrix)[(size_t)c->step * (size_t)t->nprocs + (size_t)c->proc] += ticks;
}

void sim_trace_classes_flush(sim_ctx *c)
{
    for (int k = SIM_WORK_SCALAR + 1; k < SIM_WORK_CLASSES; k++) {
        if (c->wclass_ticks[k] != 0) sim_trace_cell_add(c, &c->r->trace.wclass[k], c->wclass_ticks[k]);
        c->wclass_ticks[k] = 0;
    }
    if (c->streams != 0) sim_trace_cell_add(c, &c->r->trace.streams, c->streams);
    if (c->restarts != 0) sim_trace_cell_add(c, &c->r->trace.restarts, c->restarts);
    if (c->cached != 0) sim_trace_cell_add(c, &c->r->trace.cached, c->cached);
    if (c->tile_reads != 0) sim_trace_cell_add(c, &c->r->trace.tile_reads, c->tile_reads);
    if (c->tile_bytes != 0) sim_trace_cell_add(c, &c->r->trace.tile_bytes, c->tile_bytes);
    if (c->walk_ticks != 0) sim_trace_cell_add(c, &c->r->trace.walks, c->walk_ticks);
    if (c->chained != 0) sim_trace_cell_add(c, &c->r->trace.chained, c->chained);
    if (c->chains != 0) sim_trace_cell_add(c, &c->r->trace.chains, c->chains);
    if (c->entries != 0) sim_trace_cell_add(c, &c->r->trace.entries, c->entries);
    if (c->alias_checks != 0) sim_trace_cell_add(c, &c->r->trace.alias_checks, c->alias_checks);
    if (c->full_entries != 0) sim_trace_cell_add(c, &c->r->trace.full_entries, c->full_entries);
    if (c->full_checks != 0) sim_trace_cell_add(c, &c->r->trace.full_checks, c->full_checks);
    c->streams = c->restarts = c->cached = c->tile_reads = c->tile_bytes = c->walk_ticks = c->chains = c->chained = 0;
    c->entries = c->alias_checks = c->full_entries = c->full_checks = 0;
}

/* `recv`: the work since the processor's last send of the step is what its messages overlap
 * (the trace's overlap). */
static void sim_exec_recv(sim_ctx *c)
{
    sim_trace_cell_add(c, &c->r->trace.overlap, c->ticks - c->post_ticks);
}

static void sim_exec_for(sim_ctx *c, const sim_stmt *s)
{
    double sv = c->ticks;
    int64_t lo = sim_eval_i(c, s->lo), hi = sim_eval_i(c, s->hi);
    int64_t st = s->step ? sim_eval_i(c, s->step) : 1;
    c->ticks = sv;
    if (c->stop) return;
    if (st <= 0) { c->cur = s; sim_runtime(c, "loop step must be positive"); return; }
    if (lo > hi) return;
    uint64_t cnt = ((uint64_t)hi - (uint64_t)lo) / (uint64_t)st + 1;
    sim_loop_entered(c, s, cnt, st);
    int64_t *v = &c->fi[s->slot];
    const sim_stmt *body = s->body;
    if (s->outer) c->outer_n = (int64_t)cnt;
    for (uint64_t i = 0; i < cnt; i++) {
        *v = (int64_t)((uint64_t)lo + i * (uint64_t)st);
        if (s->outer) c->outer_i = (int64_t)i;
        sim_exec(c, body);
        if (SIM_UNLIKELY(c->stop)) return;
        if (SIM_UNLIKELY(--c->poll <= 0)) {
            sim_poll(c);
            if (c->stop) return;
        }
    }
}

/* What an assignment's instance costs, from the ticks before it (sv). */
static inline void sim_assign_ticks(sim_ctx *c, const sim_stmt *s, double sv)
{
    if (s->has_cost) c->ticks = sv + s->cost;
    else c->ticks += s->ticks;
    if (s->wclass) {
        c->wclass_ticks[s->wclass] += (c->ticks - sv) * s->class_share;
        if (s->rest_class) c->wclass_ticks[s->rest_class] += (c->ticks - sv) * (1 - s->class_share);
        if (s->walks > 1) c->walk_ticks += (c->ticks - sv) * (s->walks - 1);
        if (s->walk_chain) c->chained += (c->ticks - sv) * s->walk_chain;
        c->streams += s->streams + (c->ticks - sv) * s->stream_ratio;
        c->cached += s->cached;
        c->tile_reads += s->tile_reads;
        c->tile_bytes += s->tile_reads * s->tile_bytes;
        c->chains += s->chain_starts;
    }
}

/* An instance of an SS_ASSUMED assignment its assumption covers (`assume S unchanged when ..`):
 * the value computed must be the element's, bit for bit; then nothing is written (no new
 * version: the copies elsewhere stay current).  Otherwise the run stops: the assumption is
 * false, an error at the assumption. */
static void sim_exec_unchanged(sim_ctx *c, const sim_stmt *s)
{
    c->cur = s;
    const sim_node *l = s->lhs;
    double sv = c->ticks;
    int dbl = l->op == SO_ACCD;
    double dv = dbl ? sim_eval_d(c, s->rhs) : 0;
    int64_t iv = dbl ? 0 : sim_eval_i(c, s->rhs);
    sim_assign_ticks(c, s, sv);
    int64_t off = sim_acc_read(c, l);
    if (off < 0) return;
    const sim_mem *m = &c->mem[l->array];
    double old_d = dbl ? ((const double *)m->data)[off] : 0;
    int64_t old_i = dbl ? 0 : ((const int64_t *)m->data)[off];
    if (dbl ? memcmp(&old_d, &dv, sizeof dv) == 0 : old_i == iv) return;
    int64_t idx[SIM_MAXDIMS];
    char el[300], wh[160], was[64], now[64];
    sim_acc_indices(c, l, idx);
    sim_fmt_local(c, l->array, m, idx, l->n, el, sizeof el);
    sim_fmt_where(c, wh, sizeof wh);
    if (dbl) { snprintf(was, sizeof was, "%.17g", old_d); snprintf(now, sizeof now, "%.17g", dv); }
    else { snprintf(was, sizeof was, "%lld", (long long)old_i); snprintf(now, sizeof now, "%lld", (long long)iv); }
    sim_violation_add(c, SIM_V_RUNTIME, s->assume_line, s->assume_col,
                      "the assumption at %d:%d does not hold: %s changes %s from %s to %s (processor %lld, "
                      "t=%lld)%s", s->assume_line, s->assume_col, s->label, el, was, now,
                      (long long)sim_proc_value(c, c->proc), (long long)c->tval, wh);
    c->stop = 1;
}

void sim_exec(sim_ctx *c, const sim_stmt *s)
{
    switch (s->kind) {
    case SS_BLOCK: {
        double sv = c->ticks;
        for (int i = 0; i < s->n && !c->stop; i++) sim_exec(c, s->s[i]);
        if (s->has_cost) c->ticks = sv + s->cost;
        return;
    }
    case SS_ASSUMED:
        if (sim_truth(c, s->unchanged)) {
            sim_exec_unchanged(c, s);
            return;
        }
        __attribute__((fallthrough));   /* an instance the assumption does not cover */
    case SS_ASSIGN: {
        c->cur = s;
        const sim_node *l = s->lhs;
        double sv = c->ticks;
        if (l->op == SO_ACCD) {
            double v = sim_eval_d(c, s->rhs);
            int64_t off = sim_acc_write(c, l);
            if (off >= 0) {
                sim_mem *m = &c->mem[l->array];
                ((double *)m->data)[off] = v;
                m->state[off] = SIM_COMPUTED;
            }
        } else {
            int64_t v = sim_eval_i(c, s->rhs);
            int64_t off = sim_acc_write(c, l);
            if (off >= 0) {
                sim_mem *m = &c->mem[l->array];
                ((int64_t *)m->data)[off] = v;
                m->state[off] = SIM_COMPUTED;
            }
        }
        sim_assign_ticks(c, s, sv);
        return;
    }
    case SS_LET:
        c->cur = s;
        c->ticks += s->ticks;
        if (s->is_double) c->fd[s->slot] = sim_eval_d(c, s->rhs);
        else c->fi[s->slot] = sim_eval_i(c, s->rhs);
        return;
    case SS_IF: {
        c->cur = s;
        double sv = c->ticks;
        int64_t v = sim_truth(c, s->cond);
        const sim_stmt *br = v ? s->then_ : s->else_;
        if (br && br->has_cost) {
            c->ticks = sv;
        } else {
            c->ticks += s->ticks;
        }
        if (br) sim_exec(c, br);
        return;
    }
    case SS_FOR:
        sim_exec_for(c, s);
        return;
    case SS_SEND:
        c->cur = s;
        c->post_ticks = c->ticks;
        sim_exec_send(c, s);
        return;
    case SS_RECV:
        sim_exec_recv(c);
        return;
    }
}
