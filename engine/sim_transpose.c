/*
 * sim_transpose.c — the redistribution collective `dst[lo .. hi] = transpose src[lo .. hi]
 * [when c]` in the simulator (see COLLECTIVES in polyapm-lang(5)).
 *
 * Each processor names the rows of src it gives (its source block: rows of a matrix, the
 * array's other leading dimensions fixed) and the rows of dst it takes (its destination block).
 * Element dst[b][a] of a destination block gets src[a][b] from the processor whose source block
 * holds row a; no processor's: the element stays as it is.  Source blocks may not overlap;
 * destination blocks may (a halo).  All values are read before any is written (src and dst are
 * different arrays).  The statement is one all-to-all: the trace records, for the cost models,
 * the largest number of elements one processor sends another.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

/* One processor's blocks: the fixed subscripts and the rows of each. */
typedef struct tr_side {
    int64_t fix[SIM_MAXDIMS];
    int64_t lo, hi;
} tr_side;

typedef struct tr_run {
    sim_ctx *c;
    const sim_coll *k;
    const int *ids;
    int np;
    tr_side *src, *dst;            /* per rank */
    int64_t sc0, sc1, dc0, dc1;    /* the columns: src's and dst's last dimension */
} tr_run;

static int tr_fail(tr_run *t, sim_violation_kind kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int tr_fail(tr_run *t, sim_violation_kind kind, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    sim_violation_add(t->c, kind, t->k->line, t->k->col, "%s (collective %s at %d:%d, t=%lld)", buf, t->k->label,
                      t->k->line, t->k->col, (long long)t->c->tval);
    t->c->stop = 1;
    return -1;
}

/* Makes rank r current: its frame, its processor, its memory. */
static void tr_enter(tr_run *t, int r)
{
    sim_ctx *c = t->c;
    sim_frame_load(c, r);
    c->proc = t->ids[r];
    if (c->level == IR_SYNDM) c->mem = c->allmem + (size_t)c->proc * (size_t)c->narrays;
}

/* The current processor's block b: fixed subscripts and rows, checked against the array. */
static int tr_block(tr_run *t, const sim_block *b, tr_side *s)
{
    sim_ctx *c = t->c;
    const sim_bounds *ab = &c->ab[b->array];
    for (int d = 0; d < b->nfix; d++) s->fix[d] = sim_eval_i(c, b->fix[d]);
    s->lo = sim_eval_i(c, b->lo);
    s->hi = sim_eval_i(c, b->hi);
    if (c->stop) return -1;
    for (int d = 0; d < b->nfix; d++)
        if (s->fix[d] < ab->lo[d] || s->fix[d] > ab->hi[d]) s->lo = INT64_MIN;
    if (s->hi >= s->lo && (s->lo < ab->lo[b->nfix] || s->hi > ab->hi[b->nfix]))
        return tr_fail(t, SIM_V_OUT_OF_BOUNDS, "out of bounds: processor %lld's block of %s, rows %lld .. %lld, "
                       "is outside the array", (long long)sim_proc_value(c, c->proc),
                       c->prog->arrays[b->array]->u.array.name, (long long)s->lo, (long long)s->hi);
    return 0;
}

/* Local offset in m of the element with global indices g, or -1 when m does not hold it. */
static int64_t tr_offset(const sim_mem *m, const int64_t *g)
{
    int64_t off = 0;
    for (int d = 0; d < m->ndims; d++) {
        int64_t r = sim_mem_slot(m, d, m->lat_abs ? g[d] : g[d] - m->off[d]);
        if (r < 0) return -1;
        off += r * m->stride[d];
    }
    if (m->held && !m->held[off]) return -1;
    return off;
}

/* Every rank's blocks; the source rows must not overlap. */
static int tr_blocks(tr_run *t)
{
    for (int r = 0; r < t->np; r++) {
        tr_enter(t, r);
        if (tr_block(t, &t->k->src[0], &t->src[r]) || tr_block(t, &t->k->dst[0], &t->dst[r])) return -1;
    }
    for (int r = 0; r < t->np; r++)
        for (int q = r + 1; q < t->np; q++) {
            const tr_side *a = &t->src[r], *b = &t->src[q];
            if (a->hi < a->lo || b->hi < b->lo || a->hi < b->lo || b->hi < a->lo) continue;
            return tr_fail(t, SIM_V_RUNTIME, "runtime error: the source blocks of processors %lld and %lld share "
                           "row %lld of %s (each row has one owner)", (long long)sim_proc_value(t->c, t->ids[r]),
                           (long long)sim_proc_value(t->c, t->ids[q]), (long long)(a->lo > b->lo ? a->lo : b->lo),
                           t->c->prog->arrays[t->k->src[0].array]->u.array.name);
        }
    return 0;
}

/* The rank whose source block holds row a, or -1. */
static int tr_owner(const tr_run *t, int64_t a)
{
    for (int q = 0; q < t->np; q++)
        if (a >= t->src[q].lo && a <= t->src[q].hi) return q;
    return -1;
}

/* The element's name for a message: "u[3][4]". */
static void tr_elem(const tr_run *t, int array, const int64_t *g, char *buf, size_t size)
{
    sim_fmt_elem(t->c, array, g, t->c->prog->arrays[array]->u.array.ndims, buf, size);
}

/* Element [x][y] (after the block's fixed subscripts) of block bk held by the step's rank q: its
 * global index in g, its memory, its offset there (< 0: not in that memory). */
static sim_mem *tr_at(tr_run *t, int q, const sim_block *bk, const int64_t *fix, int64_t x, int64_t y,
                      int64_t *g, int64_t *off)
{
    sim_ctx *c = t->c;
    memcpy(g, fix, (size_t)bk->nfix * sizeof *g);
    g[bk->nfix] = x;
    g[bk->nfix + 1] = y;
    sim_mem *m = c->level == IR_SYNDM ? &c->allmem[(size_t)t->ids[q] * (size_t)c->narrays + (size_t)bk->array]
                                      : &c->mem[bk->array];
    *off = tr_offset(m, g);
    return m;
}

/* Reads src[a][b] of rank q into *v.  0 = ok. */
static int tr_read(tr_run *t, int q, int64_t a, int64_t b, double *vd, int64_t *vi)
{
    sim_ctx *c = t->c;
    const sim_block *sb = &t->k->src[0];
    int64_t g[SIM_MAXDIMS], off;
    const sim_mem *m = tr_at(t, q, sb, t->src[q].fix, a, b, g, &off);
    char el[128];
    if (off < 0 || m->state[off] == SIM_UNDEF) {
        tr_elem(t, sb->array, g, el, sizeof el);
        if (off < 0)
            return tr_fail(t, SIM_V_OUTSIDE_LOCAL, "outside local memory: %s of processor %lld's source block is "
                           "not in its memory", el, (long long)sim_proc_value(c, t->ids[q]));
        return tr_fail(t, c->level == IR_SYNDM ? SIM_V_MISSING_MESSAGE : SIM_V_UNDEFINED_READ,
                       "%s: %s of processor %lld's source block has no value",
                       c->level == IR_SYNDM ? "missing message" : "undefined read", el,
                       (long long)sim_proc_value(c, t->ids[q]));
    }
    if (m->is_double) *vd = ((const double *)m->data)[off];
    else *vi = ((const int64_t *)m->data)[off];
    return 0;
}

/* Writes dst[b][a] of rank r.  0 = ok. */
static int tr_write(tr_run *t, int r, int64_t b, int64_t a, double vd, int64_t vi)
{
    sim_ctx *c = t->c;
    const sim_block *db = &t->k->dst[0];
    int64_t g[SIM_MAXDIMS], off;
    sim_mem *m = tr_at(t, r, db, t->dst[r].fix, b, a, g, &off);
    if (off < 0) {
        char el[128];
        tr_elem(t, db->array, g, el, sizeof el);
        return tr_fail(t, SIM_V_OUTSIDE_LOCAL, "outside local memory: %s of processor %lld's destination block "
                       "is not in its memory", el, (long long)sim_proc_value(c, t->ids[r]));
    }
    if (m->is_double) ((double *)m->data)[off] = vd;
    else ((int64_t *)m->data)[off] = vi;
    m->state[off] = SIM_COMPUTED;
    return 0;
}

/* One value moved per destination element; *m gets the largest count one rank sends another. */
typedef struct tr_val { int r; int64_t b, a; double d; int64_t i; } tr_val;

static int tr_move(tr_run *t, double *mmax)
{
    int64_t n = 0, cap = 0;
    tr_val *v = NULL;
    int64_t *pair = calloc((size_t)t->np * (size_t)t->np, sizeof *pair);
    int rc = pair ? 0 : -1;
    for (int r = 0; r < t->np && !rc; r++)
        for (int64_t b = t->dst[r].lo; b <= t->dst[r].hi && !rc; b++) {
            if (b < t->sc0 || b > t->sc1)
                rc = tr_fail(t, SIM_V_OUT_OF_BOUNDS, "out of bounds: row %lld of processor %lld's destination "
                             "block is no column of the source", (long long)b,
                             (long long)sim_proc_value(t->c, t->ids[r]));
            for (int64_t a = t->dc0; a <= t->dc1 && !rc; a++) {
                int q = tr_owner(t, a);
                if (q < 0) continue;
                if (n == cap) {
                    cap = cap ? 2 * cap : 1024;
                    tr_val *nv = realloc(v, (size_t)cap * sizeof *v);
                    if (!nv) { rc = -1; break; }
                    v = nv;
                }
                tr_val *x = &v[n++];
                *x = (tr_val){ r, b, a, 0, 0 };
                rc = tr_read(t, q, a, b, &x->d, &x->i);
                if (q != r) pair[(size_t)q * (size_t)t->np + (size_t)r]++;
            }
        }
    for (int64_t j = 0; j < n && !rc; j++) rc = tr_write(t, v[j].r, v[j].b, v[j].a, v[j].d, v[j].i);
    for (size_t j = 0; pair && j < (size_t)t->np * (size_t)t->np; j++)
        if ((double)pair[j] > *mmax) *mmax = (double)pair[j];
    if (rc && !t->c->stop) {
        sim_violation_add(t->c, SIM_V_RUNTIME, t->k->line, t->k->col, "runtime error: out of memory in collective %s",
                          t->k->label);
        t->c->stop = 1;
    }
    free(v);
    free(pair);
    return rc;
}

/* 1 when the collective runs at this step (its `when` on every processor; they must agree). */
static int tr_when(tr_run *t)
{
    if (!t->k->when) return 1;
    int64_t w0 = 0;
    for (int r = 0; r < t->np && !t->c->stop; r++) {
        tr_enter(t, r);
        int64_t w = sim_eval_i(t->c, t->k->when) != 0;
        if (r == 0) w0 = w;
        else if (w != w0) {
            tr_fail(t, SIM_V_RUNTIME, "runtime error: the condition of transpose holds on processor %lld and not on "
                    "processor %lld (every processor of the step takes part, or none)",
                    (long long)sim_proc_value(t->c, t->ids[w0 ? 0 : r]), (long long)sim_proc_value(t->c, t->ids[w0 ? r : 0]));
            return 0;
        }
    }
    return !t->c->stop && w0;
}

int sim_transpose_run(sim_ctx *c, const sim_coll *k, const int *ids, int np, sim_coll_rec *rec)
{
    tr_run t = { c, k, ids, np, NULL, NULL, 0, 0, 0, 0 };
    const sim_bounds *sa = &c->ab[k->src[0].array], *da = &c->ab[k->dst[0].array];
    int sl = k->src[0].nfix + 1, dl = k->dst[0].nfix + 1;
    t.sc0 = sa->lo[sl];
    t.sc1 = sa->hi[sl];
    t.dc0 = da->lo[dl];
    t.dc1 = da->hi[dl];
    if (!tr_when(&t)) return 0;
    t.src = calloc((size_t)(np ? np : 1), sizeof *t.src);
    t.dst = calloc((size_t)(np ? np : 1), sizeof *t.dst);
    double m = 0;
    int rc = !t.src || !t.dst ? -1 : tr_blocks(&t);
    if (!rc) rc = tr_move(&t, &m);
    free(t.src);
    free(t.dst);
    if (rc) return 0;
    *rec = (sim_coll_rec){ (int)k->ck, np, m, 1, 0, k->line, k->col, 1 };
    return 1;
}
