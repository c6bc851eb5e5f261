/*
 * sim_coll.c — collectives and `repeat` in the simulator (see COLLECTIVES in polyapm-lang(5)).
 *
 * The driver (sim.c) runs a processor body with collectives as supersteps: the statements up to
 * a collective on every processor of the step, then the collective, and so on; each
 * processor's frame is saved between supersteps (sim_frame_save/load).  A collective reads
 * every processor's source blocks (evaluating their subscripts in that processor's frame and
 * memory), combines them exactly and deterministically — the lower rank is the left operand;
 * reduce, allreduce, scan and exscan fold in rank order; reduce_bal uses the balanced tree with
 * the missing leaves on the left, scan_bal the butterfly — and writes the destination blocks as
 * computed elements.  It is recorded in the step's trace for the cost models; a global-view
 * operator's accumulation is the processors' work.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

/* ---- compilation ---------------------------------------------------------------------------- */

static int compile_block(sim_ctx *c, sim_block *b, const ir_expr *e, const ir_expr *lo, const ir_expr *hi)
{
    memset(b, 0, sizeof *b);
    if (!e) {
        b->array = -1;
        return 0;
    }
    b->array = e->kind == IR_E_ACCESS ? e->u.access.array_index : e->u.name.index;
    if (b->array < 0 || b->array >= c->prog->narrays) return -1;
    if (e->kind == IR_E_ACCESS) {
        b->nfix = e->u.access.nidx;
        if (b->nfix > SIM_MAXDIMS) return -1;
        for (int i = 0; i < b->nfix; i++)
            if (!(b->fix[i] = sim_compile_expr(c, e->u.access.idx[i], IR_INT))) return -1;
    }
    if (lo) {
        b->lo = sim_compile_expr(c, lo, IR_INT);
        b->hi = sim_compile_expr(c, hi, IR_INT);
        if (!b->lo || !b->hi) return -1;
    }
    return 0;
}

sim_coll *sim_compile_coll(sim_ctx *c, const ir_stmt *s)
{
    sim_coll *k = sim_alloc(c, sizeof *k);
    if (!k) { c->compile_errors++; return NULL; }
    const ir_program *p = c->prog;
    k->ck = s->u.coll.ck;
    k->builtin = s->u.coll.op.name ? s->u.coll.op.builtin : -1;
    k->user = s->u.coll.op.name ? s->u.coll.op.user : -1;
    k->global = k->user >= 0 && op_in_arity(p, k->user) > 0;
    k->nsrc = s->u.coll.nsrc;
    k->ndst = s->u.coll.ndst;
    k->label = s->u.coll.label ? s->u.coll.label : ir_coll_name(k->ck);
    k->line = s->pos.line;
    k->col = s->pos.col;
    k->src = sim_alloc(c, (size_t)(k->nsrc ? k->nsrc : 1) * sizeof *k->src);
    k->dst = sim_alloc(c, (size_t)(k->ndst ? k->ndst : 1) * sizeof *k->dst);
    if (!k->src || !k->dst || k->nsrc > OP_MAX_FIELDS || k->ndst > OP_MAX_FIELDS) {
        c->compile_errors++;
        return NULL;
    }
    for (int i = 0; i < k->nsrc; i++)
        if (compile_block(c, &k->src[i], s->u.coll.src[i], s->u.coll.src_lo ? s->u.coll.src_lo[i] : NULL,
                          s->u.coll.src_hi ? s->u.coll.src_hi[i] : NULL) != 0) {
            c->compile_errors++;
            return NULL;
        }
    for (int i = 0; i < k->ndst; i++)
        if (compile_block(c, &k->dst[i], s->u.coll.dst[i], s->u.coll.dst_lo ? s->u.coll.dst_lo[i] : NULL,
                          s->u.coll.dst_hi ? s->u.coll.dst_hi[i] : NULL) != 0) {
            c->compile_errors++;
            return NULL;
        }
    if (s->u.coll.root && !(k->root = sim_compile_expr(c, s->u.coll.root, IR_INT))) return NULL;
    if (s->u.coll.by && !(k->by = sim_compile_expr(c, s->u.coll.by, IR_INT))) return NULL;
    if (s->u.coll.when && !(k->when = sim_compile_expr(c, s->u.coll.when, IR_INT))) return NULL;
    if (k->user >= 0) {
        k->nf = k->global ? op_in_arity(p, k->user) : op_state_arity(p, k->user);
        for (int i = 0; i < k->nf; i++)
            k->ftype[i] = k->global ? p->ops[k->user]->u.op.in->fields[i].type : op_state_type(p, k->user, i);
        k->ops = op_clause_ops(p, k->user, k->ck == IR_C_SCAN_BAL ? IR_K_UPPER : IR_K_COMBINE);
        k->words = k->nf;
        if (k->ck == IR_C_SCAN_BAL) {   /* a butterfly partner sends only the fields used */
            double lo = op_clause_ops(p, k->user, IR_K_LOWER);
            if (lo > k->ops) k->ops = lo;
            int wl = op_clause_fields_used(p, k->user, IR_K_LOWER, 1);
            int wu = op_clause_fields_used(p, k->user, IR_K_UPPER, 0);
            k->words = wl > wu ? wl : wu;
        }
    } else {
        k->nf = 1;
        k->words = 1;
        k->ftype[0] = p->arrays[k->src[0].array]->u.array.elem;
        k->ops = k->builtin >= 0 ? op_builtin_ticks((ir_bop)k->builtin) : 0;
    }
    return k;
}

/* ---- frames --------------------------------------------------------------------------------- */

void sim_frame_save(sim_ctx *c, int rank)
{
    size_t n = (size_t)(c->prog->nslots > 0 ? c->prog->nslots : 1);
    memcpy(c->pfi + (size_t)rank * n, c->fi, n * sizeof *c->fi);
    memcpy(c->pfd + (size_t)rank * n, c->fd, n * sizeof *c->fd);
}

void sim_frame_load(sim_ctx *c, int rank)
{
    size_t n = (size_t)(c->prog->nslots > 0 ? c->prog->nslots : 1);
    memcpy(c->fi, c->pfi + (size_t)rank * n, n * sizeof *c->fi);
    memcpy(c->fd, c->pfd + (size_t)rank * n, n * sizeof *c->fd);
}

/* ---- blocks --------------------------------------------------------------------------------- */

/* Where a block lies in a processor's memory. */
typedef struct blk_loc {
    sim_mem *m;
    int64_t n;                          /* elements */
    int nd;                             /* iterated dimensions: first .. ndims-1 */
    int first;
    int64_t ext[SIM_MAXDIMS];           /* element count per iterated dimension */
    int64_t base;                       /* local offset of the first element */
    int contiguous;
} blk_loc;

static void coll_violation(sim_ctx *c, const sim_coll *k, sim_violation_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void coll_violation(sim_ctx *c, const sim_coll *k, sim_violation_kind kind, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    sim_violation_add(c, kind, k->line, k->col, "%s (collective %s at %d:%d, t=%lld)", buf, k->label,
                      k->line, k->col, (long long)c->tval);
}

static int64_t elem_off(const blk_loc *L, int64_t j);

/* Locates block b of the processor whose frame and memory are current.  0 = ok. */
static int locate(sim_ctx *c, const sim_coll *k, const sim_block *b, blk_loc *L)
{
    const ir_decl *arr = c->prog->arrays[b->array];
    const sim_bounds *ab = &c->ab[b->array];
    int nd = arr->u.array.ndims;
    int64_t glo[SIM_MAXDIMS], ghi[SIM_MAXDIMS];
    for (int d = 0; d < b->nfix; d++) glo[d] = ghi[d] = sim_eval_i(c, b->fix[d]);
    int d0 = b->nfix;
    if (b->lo) {
        glo[d0] = sim_eval_i(c, b->lo);
        ghi[d0] = sim_eval_i(c, b->hi);
        d0++;
    }
    for (int d = d0; d < nd; d++) { glo[d] = ab->lo[d]; ghi[d] = ab->hi[d]; }
    if (c->stop) return -1;
    memset(L, 0, sizeof *L);
    L->m = &c->mem[b->array];
    L->first = b->nfix;
    L->nd = nd - b->nfix;
    L->n = 1;
    for (int d = b->nfix; d < nd; d++) {
        L->ext[d - b->nfix] = ghi[d] >= glo[d] ? ghi[d] - glo[d] + 1 : 0;
        L->n *= L->ext[d - b->nfix];
    }
    if (L->n == 0) { L->contiguous = 1; return 0; }
    char el[256];
    size_t l = (size_t)snprintf(el, sizeof el, "%s", arr->u.array.name);
    for (int d = 0; d < nd && l < sizeof el; d++)
        l += (size_t)snprintf(el + l, sizeof el - l, glo[d] == ghi[d] ? "[%lld]" : "[%lld..%lld]",
                              (long long)glo[d], (long long)ghi[d]);
    for (int d = 0; d < nd; d++)
        if (glo[d] < ab->lo[d] || ghi[d] > ab->hi[d]) {
            coll_violation(c, k, SIM_V_OUT_OF_BOUNDS, "out of bounds: processor %lld's block %s is outside the array",
                           (long long)sim_proc_value(c, c->proc), el);
            return -1;
        }
    const sim_mem *m = L->m;
    int64_t base = 0;
    for (int d = 0; d < nd; d++) {
        int64_t a = glo[d] - m->off[d] - m->lo[d], z = ghi[d] - m->off[d] - m->lo[d];
        if (a < 0 || z >= m->ext[d]) {
            coll_violation(c, k, SIM_V_OUTSIDE_LOCAL, "outside local memory: processor %lld's block %s is not "
                           "in its memory", (long long)sim_proc_value(c, c->proc), el);
            return -1;
        }
        base += a * m->stride[d];
    }
    L->base = base;
    L->contiguous = 1;
    for (int d = b->nfix + 1; d < nd; d++)
        if (L->ext[d - b->nfix] != m->ext[d]) L->contiguous = 0;
    for (int64_t j = 0; m->held && j < L->n; j++) {   /* a pieced memory: every element held */
        if (m->held[elem_off(L, j)]) continue;
        int64_t g[SIM_MAXDIMS], rest = j;
        for (int d = nd - 1; d >= 0; d--) {
            int64_t e = d < b->nfix ? 1 : L->ext[d - b->nfix];
            g[d] = glo[d] + rest % e;
            rest /= e;
        }
        char one[256];
        sim_fmt_elem(c, b->array, g, nd, one, sizeof one);
        coll_violation(c, k, SIM_V_OUTSIDE_LOCAL, "outside local memory: processor %lld's block %s is not "
                       "in its memory (%s is outside its part of %s)", (long long)sim_proc_value(c, c->proc),
                       el, one, arr->u.array.name);
        return -1;
    }
    return 0;
}

/* Local offset of element j of a located block. */
static int64_t elem_off(const blk_loc *L, int64_t j)
{
    if (L->contiguous) return L->base + j * (L->nd > 0 ? L->m->stride[L->first + L->nd - 1] : 1);
    int64_t off = L->base;
    for (int d = L->nd - 1; d >= 0; d--) {
        int64_t i = j % L->ext[d];
        j /= L->ext[d];
        off += i * L->m->stride[L->first + d];
    }
    return off;
}

/* Reads a located block into v[j * stride] (converted to type t). 0 = ok. */
static int read_block(sim_ctx *c, const sim_coll *k, const blk_loc *L, ir_type t, op_value *v, int stride)
{
    const sim_mem *m = L->m;
    for (int64_t j = 0; j < L->n; j++) {
        int64_t off = elem_off(L, j);
        if (m->state[off] == SIM_UNDEF) {
            coll_violation(c, k, c->level == IR_SYNDM ? SIM_V_MISSING_MESSAGE : SIM_V_UNDEFINED_READ,
                           "%s: processor %lld's block element %lld has no value",
                           c->level == IR_SYNDM ? "missing message" : "undefined read",
                           (long long)sim_proc_value(c, c->proc), (long long)j);
            return -1;
        }
        op_value *x = &v[j * stride];
        if (m->is_double) {
            double d = ((const double *)m->data)[off];
            if (t == IR_DOUBLE) x->d = d;
            else x->i = (int64_t)d;
        } else {
            int64_t i = ((const int64_t *)m->data)[off];
            if (t == IR_DOUBLE) x->d = (double)i;
            else x->i = i;
        }
    }
    return 0;
}

static void write_block(const blk_loc *L, ir_type t, const op_value *v, int stride)
{
    sim_mem *m = L->m;
    for (int64_t j = 0; j < L->n; j++) {
        int64_t off = elem_off(L, j);
        const op_value *x = &v[j * stride];
        if (m->is_double) ((double *)m->data)[off] = t == IR_DOUBLE ? x->d : (double)x->i;
        else ((int64_t *)m->data)[off] = t == IR_DOUBLE ? (int64_t)x->d : x->i;
        m->state[off] = SIM_COMPUTED;
    }
}

/* The processors of one collective (a group): processor ids and frame indices, in rank order. */
typedef struct group {
    const int *ids;
    const int *fr;
    int np;
} group;

/* Makes group rank `rank` current: its frame and memory. */
static void enter(sim_ctx *c, const group *g, int rank)
{
    sim_frame_load(c, g->fr[rank]);
    c->proc = g->ids[rank];
    if (c->level == IR_SYNDM) c->mem = c->allmem + (size_t)c->proc * (size_t)c->narrays;
}

/* ---- combining ------------------------------------------------------------------------------ */

typedef struct combiner {
    sim_ctx *c;
    const sim_coll *k;
    int nf;
    int failed;
} combiner;

static void op_failed(combiner *C, const char *err)
{
    if (C->failed++) return;
    coll_violation(C->c, C->k, SIM_V_RUNTIME, "runtime error: %s", err);
    C->c->stop = 1;
}

/* out = a (+) b on one element tuple (clause: combine, lower, upper). */
static void apply2(combiner *C, ir_clause_kind cl, const op_value *a, const op_value *b, op_value *out)
{
    const sim_coll *k = C->k;
    if (k->builtin >= 0) {
        if (k->ftype[0] == IR_DOUBLE) out->d = op_builtin_apply_d((ir_bop)k->builtin, a->d, b->d);
        else out->i = op_builtin_apply_i((ir_bop)k->builtin, a->i, b->i);
        return;
    }
    char err[256];
    op_value tmp[OP_MAX_FIELDS];
    if (op_apply(C->c->openv, k->user, cl, a, b, tmp, err, sizeof err) != 0) {
        op_failed(C, err);
        memcpy(out, a, (size_t)C->nf * sizeof *out);
        return;
    }
    memcpy(out, tmp, (size_t)C->nf * sizeof *out);
}

static void apply1(combiner *C, ir_clause_kind cl, const op_value *a, const op_value *b, op_value *out, int n)
{
    char err[256];
    op_value tmp[OP_MAX_FIELDS];
    if (op_apply(C->c->openv, C->k->user, cl, a, b, tmp, err, sizeof err) != 0) {
        op_failed(C, err);
        memset(out, 0, (size_t)n * sizeof *out);
        return;
    }
    memcpy(out, tmp, (size_t)n * sizeof *out);
}

static void ident_of(combiner *C, op_value *out)
{
    const sim_coll *k = C->k;
    if (k->builtin >= 0) {
        if (k->ftype[0] == IR_DOUBLE) out->d = op_builtin_ident_d((ir_bop)k->builtin);
        else out->i = op_builtin_ident_i((ir_bop)k->builtin);
        return;
    }
    apply1(C, IR_K_IDENT, NULL, NULL, out, op_state_arity(C->c->prog, k->user));
}

static int ceil_log2(int p)
{
    int l = 0;
    while ((1 << l) < p) l++;
    return l;
}

/* reduce_bal at one element position: leaves in[r] (nf fields each, stride st), result in out. */
static void tree_reduce(combiner *C, op_value *const *in, int64_t j, int np, op_value *out, op_value *nodes,
                        unsigned char *have)
{
    int nf = C->nf, d = ceil_log2(np), width = 1 << d;
    for (int i = 0; i < width; i++) {
        int r = i - (width - np);
        have[i] = r >= 0;
        if (r >= 0) memcpy(&nodes[(size_t)i * nf], &in[r][j * nf], (size_t)nf * sizeof *nodes);
    }
    for (; width > 1; width /= 2) {
        for (int i = 0; i < width / 2; i++) {
            op_value *l = &nodes[(size_t)(2 * i) * nf], *r = &nodes[(size_t)(2 * i + 1) * nf];
            op_value res[OP_MAX_FIELDS];
            int hl = have[2 * i], hr = have[2 * i + 1];
            if (hl && hr) apply2(C, IR_K_COMBINE, l, r, res);
            else if (hr) apply1(C, IR_K_ONE, r, NULL, res, nf);
            else if (hl) memcpy(res, l, (size_t)nf * sizeof *res);
            have[i] = hl || hr;
            if (have[i]) memcpy(&nodes[(size_t)i * nf], res, (size_t)nf * sizeof *res);
        }
    }
    memcpy(out, nodes, (size_t)nf * sizeof *out);
}

/* ---- running -------------------------------------------------------------------------------- */

static void record(sim_ctx *c, const sim_coll_rec *rec)
{
    sim_trace *t = &c->r->trace;
    int s = c->step, n = t->ncolls[s];
    sim_coll_rec *v = realloc(t->colls[s], (size_t)(n + 1) * sizeof *v);
    if (!v) return;
    t->colls[s] = v;
    v[n] = *rec;
    t->ncolls[s] = n + 1;
}

static void add_work(sim_ctx *c, int proc, double ticks)
{
    c->r->trace.work[(size_t)c->step * (size_t)c->r->trace.nprocs + (size_t)proc] += ticks;
}

/* One collective over one group; its figures go to *rec. */
/* One execution of a collective over a group, between its phases (the exporter's ex_coll has
 * the same phases under the same names: coll_root, coll_sources, coll_combine,
 * coll_destinations). */
typedef struct group_run {
    sim_ctx *c;
    const sim_coll *k;
    const group *G;
    int np, nf, root;
    op_value **in, **out;            /* per rank: its source tuples, its result tuples */
    int64_t *n, *nout;               /* their counts */
    unsigned char *recv;             /* ranks that receive a result */
    combiner C;
    int nfo;                         /* values per output element */
    ir_type otype[OP_MAX_FIELDS];
    int64_t m;                       /* the root's source count */
    size_t tup;                      /* bytes of one source tuple */
    double rec_m, rec_words, rec_ops;
} group_run;

enum { COLL_OK = 0, COLL_STOP = -1, COLL_OOM = -2 };

static int coll_fail(group_run *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int coll_fail(group_run *g, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    coll_violation(g->c, g->k, SIM_V_RUNTIME, "%s", text);
    g->c->stop = 1;
    return COLL_STOP;
}

/* The root's rank in the group (0 without a root). */
static int coll_root(group_run *g)
{
    if (!g->k->root) return COLL_OK;
    enter(g->c, g->G, 0);
    int64_t rv = sim_eval_i(g->c, g->k->root);
    g->root = -1;
    for (int r = 0; r < g->np; r++) if (sim_proc_value(g->c, g->G->ids[r]) == rv) g->root = r;
    if (g->root < 0)
        return coll_fail(g, "runtime error: the root %lld of %s is not a processor of this step",
                         (long long)rv, ir_coll_name(g->k->ck));
    return COLL_OK;
}

/* Reads every rank's source blocks into in[] (bcast and scatter: the root's only). */
static int coll_sources(group_run *g)
{
    sim_ctx *c = g->c;
    const sim_coll *k = g->k;
    for (int r = 0; r < g->np && !c->stop; r++) {
        if ((k->ck == IR_C_BCAST || k->ck == IR_C_SCATTER) && r != g->root) continue;
        enter(c, g->G, r);
        if (k->ck == IR_C_MULTICAST && c->level == IR_SYNDM)   /* the receiver's block, at the root */
            c->mem = c->allmem + (size_t)g->G->ids[g->root] * (size_t)c->narrays;
        for (int f = 0; f < k->nsrc; f++) {
            blk_loc L;
            if (locate(c, k, &k->src[f], &L) != 0) return COLL_STOP;
            if (f == 0) {
                g->n[r] = L.n;
                g->in[r] = malloc((size_t)(L.n ? L.n : 1) * (size_t)g->nf * sizeof **g->in);
                if (!g->in[r]) return COLL_OOM;
            } else if (L.n != g->n[r]) {
                return coll_fail(g, "runtime error: processor %lld's source blocks have %lld and %lld elements",
                                 (long long)sim_proc_value(c, g->G->ids[r]), (long long)g->n[r], (long long)L.n);
            }
            if (read_block(c, k, &L, k->ftype[f], g->in[r] + f, g->nf) != 0) return COLL_STOP;
        }
    }
    if (c->stop) return COLL_STOP;
    int elementwise = !k->global && k->ck != IR_C_BCAST && k->ck != IR_C_SCATTER &&
                      k->ck != IR_C_GATHER && k->ck != IR_C_ALLGATHER && k->ck != IR_C_MULTICAST;
    for (int r = 1; elementwise && r < g->np; r++)
        if (g->n[r] != g->n[0])
            return coll_fail(g, "runtime error: %s combines blocks of equal size, but processor %lld has %lld "
                             "elements and processor %lld has %lld", ir_coll_name(k->ck),
                             (long long)sim_proc_value(c, g->G->ids[0]), (long long)g->n[0],
                             (long long)sim_proc_value(c, g->G->ids[r]), (long long)g->n[r]);
    g->m = g->n[g->root];
    g->rec_m = (double)g->m;
    return COLL_OK;
}

/* Rank r's source block accumulated into the state s (ns values) of user operator u. */
static void coll_accumulate(group_run *g, int r, op_value *s, int ns)
{
    const ir_decl *od = g->c->prog->ops[g->k->user];
    op_value tmp[OP_MAX_FIELDS];
    apply1(&g->C, IR_K_IDENT, NULL, NULL, s, ns);
    for (int64_t j = 0; j < g->n[r] && !g->C.failed; j++) {
        const op_value *x = &g->in[r][j * g->nf];
        if (j == 0 && od->u.op.clause[IR_K_PREACCUM]) {
            apply1(&g->C, IR_K_PREACCUM, s, x, tmp, ns);
            memcpy(s, tmp, (size_t)ns * sizeof *s);
        }
        apply1(&g->C, IR_K_ACCUM, s, x, tmp, ns);
        memcpy(s, tmp, (size_t)ns * sizeof *s);
        if (j == g->n[r] - 1 && od->u.op.clause[IR_K_POSTACCUM]) {
            apply1(&g->C, IR_K_POSTACCUM, s, x, tmp, ns);
            memcpy(s, tmp, (size_t)ns * sizeof *s);
        }
    }
}

/* A global-view reduction: the states combined in rank order, then gen. */
static int coll_combine_global_reduce(group_run *g, const op_value *st, int ns)
{
    const ir_program *p = g->c->prog;
    int u = g->k->user;
    const ir_decl *od = p->ops[u];
    op_value tot[OP_MAX_FIELDS], gv[OP_MAX_FIELDS];
    memcpy(tot, st, (size_t)ns * sizeof *tot);
    for (int r = 1; r < g->np && !g->C.failed; r++) apply2(&g->C, IR_K_COMBINE, tot, &st[(size_t)r * ns], tot);
    const ir_opitem *gen = od->u.op.clause[IR_K_GEN];
    apply1(&g->C, IR_K_GEN, tot, NULL, gv, gen->nval);
    for (int r = 0; r < g->np; r++) {
        if (g->k->ck == IR_C_REDUCE && r != g->root) continue;
        g->out[r] = malloc((size_t)gen->nval * sizeof **g->out);
        if (!g->out[r]) return COLL_OOM;
        memcpy(g->out[r], gv, (size_t)gen->nval * sizeof *gv);
        g->nout[r] = gen->nval;
        g->recv[r] = 1;
        add_work(g->c, g->G->ids[r], op_clause_ops(p, u, IR_K_GEN));
    }
    g->otype[0] = IR_INT;   /* values of mixed types are converted one by one (coll_destinations) */
    for (int i = 0; i < gen->nval; i++) if (gen->val[i]->type == IR_DOUBLE) g->otype[0] = IR_DOUBLE;
    return COLL_OK;
}

/* A global-view scan: each rank's block scanned from the combined states of the ranks before. */
static int coll_combine_global_scan(group_run *g, const op_value *st, int ns, double acc_ops)
{
    const ir_program *p = g->c->prog;
    int u = g->k->user;
    const ir_decl *od = p->ops[u];
    op_value pre[OP_MAX_FIELDS], tmp[OP_MAX_FIELDS];
    apply1(&g->C, IR_K_IDENT, NULL, NULL, pre, ns);
    const ir_opitem *sg = od->u.op.clause[IR_K_SCANGEN];
    g->otype[0] = sg->val[0]->type;
    double sg_ops = op_clause_ops(p, u, IR_K_SCANGEN);
    for (int r = 0; r < g->np && !g->C.failed; r++) {
        op_value s[OP_MAX_FIELDS];
        memcpy(s, pre, (size_t)ns * sizeof *s);
        g->out[r] = malloc((size_t)(g->n[r] ? g->n[r] : 1) * sizeof **g->out);
        if (!g->out[r]) return COLL_OOM;
        g->nout[r] = g->n[r];
        g->recv[r] = 1;
        for (int64_t j = 0; j < g->n[r] && !g->C.failed; j++) {
            const op_value *x = &g->in[r][j * g->nf];
            if (g->k->ck == IR_C_EXSCAN) apply1(&g->C, IR_K_SCANGEN, s, x, &g->out[r][j], 1);
            if (j == 0 && od->u.op.clause[IR_K_PREACCUM]) {
                apply1(&g->C, IR_K_PREACCUM, s, x, tmp, ns);
                memcpy(s, tmp, (size_t)ns * sizeof *s);
            }
            apply1(&g->C, IR_K_ACCUM, s, x, tmp, ns);
            memcpy(s, tmp, (size_t)ns * sizeof *s);
            if (g->k->ck == IR_C_SCAN) apply1(&g->C, IR_K_SCANGEN, s, x, &g->out[r][j], 1);
        }
        add_work(g->c, g->G->ids[r], (double)g->n[r] * (acc_ops + sg_ops));
        apply2(&g->C, IR_K_COMBINE, pre, &st[(size_t)r * ns], tmp);
        memcpy(pre, tmp, (size_t)ns * sizeof *pre);
    }
    return COLL_OK;
}

/* A user operator with `in`: each rank's block accumulated into its state, then combined. */
static int coll_combine_global(group_run *g)
{
    const ir_program *p = g->c->prog;
    int u = g->k->user, ns = op_state_arity(p, u);
    int scan = g->k->ck == IR_C_SCAN || g->k->ck == IR_C_EXSCAN;
    op_value *st = calloc((size_t)g->np, (size_t)ns * sizeof *st);
    if (!st) return COLL_OOM;
    double acc_ops = op_clause_ops(p, u, IR_K_ACCUM);
    for (int r = 0; r < g->np && !g->C.failed; r++) {
        coll_accumulate(g, r, &st[(size_t)r * ns], ns);
        if (!scan) add_work(g->c, g->G->ids[r], (double)g->n[r] * acc_ops);
    }
    g->rec_m = 1;
    g->rec_words = ns;
    g->rec_ops = op_clause_ops(p, u, IR_K_COMBINE);
    g->C.nf = ns;
    int rc = scan ? coll_combine_global_scan(g, st, ns, acc_ops) : coll_combine_global_reduce(g, st, ns);
    free(st);
    return rc;
}

/* Rank r receives `res` (count cnt). */
static void coll_deliver(group_run *g, int r, op_value *res, int64_t cnt)
{
    g->out[r] = res;
    g->nout[r] = cnt;
    g->recv[r] = 1;
}

static int coll_combine_reduce(group_run *g)
{
    int64_t m = g->m;
    int nf = g->nf, np = g->np;
    op_value *res = malloc((size_t)(m ? m : 1) * g->tup);
    if (!res) return COLL_OOM;
    if (g->k->ck == IR_C_REDUCE || g->k->ck == IR_C_ALLREDUCE) {
        if (m) memcpy(res, g->in[0], (size_t)m * g->tup);
        for (int r = 1; r < np && !g->C.failed; r++)
            for (int64_t j = 0; j < m && !g->C.failed; j++)
                apply2(&g->C, IR_K_COMBINE, &res[j * nf], &g->in[r][j * nf], &res[j * nf]);
    } else {
        int width = 1 << ceil_log2(np);
        op_value *nodes = malloc((size_t)width * g->tup);
        unsigned char *have = malloc((size_t)width);
        if (!nodes || !have) { free(nodes); free(have); free(res); return COLL_OOM; }
        for (int64_t j = 0; j < m && !g->C.failed; j++) tree_reduce(&g->C, g->in, j, np, &res[j * nf], nodes, have);
        free(nodes);
        free(have);
    }
    int only_root = g->k->ck == IR_C_REDUCE || g->k->ck == IR_C_REDUCE_BAL;
    for (int r = 0; r < np; r++)
        if (!only_root || r == g->root) coll_deliver(g, r, res, m);
    return COLL_OK;
}

static int coll_combine_scan(group_run *g)
{
    int64_t m = g->m;
    int nf = g->nf;
    size_t tup = g->tup;
    op_value id[OP_MAX_FIELDS], *acc = malloc((size_t)(m ? m : 1) * tup);
    if (!acc) return COLL_OOM;
    if (g->k->ck == IR_C_EXSCAN) ident_of(&g->C, id);
    for (int r = 0; r < g->np; r++) {
        op_value *o = malloc((size_t)(m ? m : 1) * tup);
        if (!o) { free(acc); return COLL_OOM; }
        coll_deliver(g, r, o, m);
    }
    for (int64_t j = 0; j < m; j++) memcpy(&acc[j * nf], &g->in[0][j * nf], tup);
    for (int r = 0; r < g->np && !g->C.failed; r++)
        for (int64_t j = 0; j < m && !g->C.failed; j++) {
            op_value *o = &g->out[r][j * nf];
            if (g->k->ck == IR_C_SCAN) {
                if (r > 0) apply2(&g->C, IR_K_COMBINE, &acc[j * nf], &g->in[r][j * nf], &acc[j * nf]);
                memcpy(o, &acc[j * nf], tup);
            } else if (r == 0) {
                memcpy(o, id, tup);
            } else {
                memcpy(o, &acc[j * nf], tup);
                apply2(&g->C, IR_K_COMBINE, &acc[j * nf], &g->in[r][j * nf], &acc[j * nf]);
            }
        }
    free(acc);
    return COLL_OK;
}

static int coll_combine_scan_bal(group_run *g)
{
    int64_t m = g->m;
    int nf = g->nf;
    size_t tup = g->tup;
    for (int r = 0; r < g->np; r++) {
        op_value *o = malloc((size_t)(m ? m : 1) * tup);
        if (!o) return COLL_OOM;
        if (m) memcpy(o, g->in[r], (size_t)m * tup);
        coll_deliver(g, r, o, m);
    }
    for (int kb = 1; kb < g->np && !g->C.failed; kb <<= 1)
        for (int r = 0; r < g->np && !g->C.failed; r++) {
            int q = r ^ kb;
            if (q >= g->np || q < r) continue;
            for (int64_t j = 0; j < m && !g->C.failed; j++) {
                op_value lo[OP_MAX_FIELDS], hi[OP_MAX_FIELDS];
                apply2(&g->C, IR_K_LOWER, &g->out[r][j * nf], &g->out[q][j * nf], lo);
                apply2(&g->C, IR_K_UPPER, &g->out[r][j * nf], &g->out[q][j * nf], hi);
                memcpy(&g->out[r][j * nf], lo, tup);
                memcpy(&g->out[q][j * nf], hi, tup);
            }
        }
    return COLL_OK;
}

/* The distribution collectives: blocks move, nothing is combined. */
static int coll_combine_move(group_run *g)
{
    int np = g->np, root = g->root;
    switch (g->k->ck) {
    case IR_C_BCAST:
        for (int r = 0; r < np; r++) coll_deliver(g, r, g->in[root], g->m);
        return COLL_OK;
    case IR_C_MULTICAST:
        for (int r = 0; r < np; r++) {
            coll_deliver(g, r, g->in[r], g->n[r]);
            if ((double)g->n[r] > g->rec_m) g->rec_m = (double)g->n[r];
        }
        return COLL_OK;
    case IR_C_SCATTER: {
        if (g->m % np != 0)
            return coll_fail(g, "runtime error: scatter cuts the root's block of %lld elements into %d equal blocks",
                             (long long)g->m, np);
        int64_t q = g->m / np;
        for (int r = 0; r < np; r++) coll_deliver(g, r, g->in[root] + (size_t)r * (size_t)q * (size_t)g->nf, q);
        g->rec_m = (double)q;
        return COLL_OK;
    }
    default: {   /* gather, allgather: `all` is freed through out[first receiver] */
        int64_t tot = 0;
        for (int r = 0; r < np; r++) tot += g->n[r];
        op_value *all = malloc((size_t)(tot ? tot : 1) * g->tup);
        if (!all) return COLL_OOM;
        for (int r = 0, at = 0; r < np; at += (int)g->n[r], r++)
            if (g->n[r]) memcpy(all + (size_t)at * g->nf, g->in[r], (size_t)g->n[r] * g->tup);
        for (int r = 0; r < np; r++)
            if (g->k->ck != IR_C_GATHER || r == root) coll_deliver(g, r, all, tot);
        g->rec_m = np ? (double)tot / np : 0;
        return COLL_OK;
    }
    }
}

/* The results of every receiving rank (out[], nout[], recv[]). */
static int coll_combine(group_run *g)
{
    if (g->k->global) return coll_combine_global(g);
    switch (g->k->ck) {
    case IR_C_BCAST: case IR_C_MULTICAST: case IR_C_SCATTER: case IR_C_GATHER: case IR_C_ALLGATHER:
        return coll_combine_move(g);
    case IR_C_REDUCE: case IR_C_ALLREDUCE: case IR_C_REDUCE_BAL: case IR_C_ALLREDUCE_BAL:
        return coll_combine_reduce(g);
    case IR_C_SCAN: case IR_C_EXSCAN:
        return coll_combine_scan(g);
    case IR_C_SCAN_BAL:
        return coll_combine_scan_bal(g);
    default:
        return COLL_OK;
    }
}

/* Writes every receiver's result into its destination blocks. */
static int coll_destinations(group_run *g)
{
    sim_ctx *c = g->c;
    const sim_coll *k = g->k;
    const ir_program *p = c->prog;
    for (int r = 0; r < g->np && !c->stop; r++) {
        if (!g->recv[r]) continue;
        enter(c, g->G, r);
        for (int f = 0; f < k->ndst; f++) {
            if (k->dst[f].array < 0) continue;
            blk_loc L;
            if (locate(c, k, &k->dst[f], &L) != 0) return COLL_STOP;
            if (L.n != g->nout[r])
                return coll_fail(g, "runtime error: processor %lld's destination block of %s has %lld elements, "
                                 "the result has %lld", (long long)sim_proc_value(c, g->G->ids[r]),
                                 p->arrays[k->dst[f].array]->u.array.name, (long long)L.n, (long long)g->nout[r]);
            if (k->global && k->ck != IR_C_SCAN && k->ck != IR_C_EXSCAN) {
                const ir_opitem *gen = p->ops[k->user]->u.op.clause[IR_K_GEN];
                for (int64_t j = 0; j < L.n; j++) {
                    blk_loc one = L;
                    one.base = elem_off(&L, j);
                    one.n = 1;
                    one.contiguous = 1;
                    write_block(&one, gen->val[j]->type, &g->out[r][j], 1);
                }
            } else {
                write_block(&L, g->otype[f < g->nfo ? f : 0], g->out[r] + f, g->nfo);
            }
        }
    }
    return COLL_OK;
}

/* Frees in[] and out[]: out[] entries may alias in[] (bcast, scatter) or each other (reduce,
 * gather). */
static void group_run_free(group_run *g)
{
    for (int r = 0; g->out && g->in && r < g->np; r++) {
        if (!g->out[r]) continue;
        int owned = 1;
        for (int q = 0; q < g->np && owned; q++)
            if (g->in[q] && g->out[r] >= g->in[q] && g->out[r] < g->in[q] + (size_t)(g->n[q] ? g->n[q] : 1) * (size_t)g->nf)
                owned = 0;
        for (int q = 0; q < r && owned; q++) if (g->out[q] == g->out[r]) owned = 0;
        if (owned) free(g->out[r]);
    }
    for (int r = 0; g->in && r < g->np; r++) free(g->in[r]);
    free(g->in);
    free(g->out);
    free(g->n);
    free(g->nout);
    free(g->recv);
}

static void run_group(sim_ctx *c, const sim_coll *k, const group *G, sim_coll_rec *rec)
{
    group_run g;
    memset(&g, 0, sizeof g);
    g.c = c;
    g.k = k;
    g.G = G;
    g.np = G->np;
    g.nf = k->nf;
    g.C = (combiner){ c, k, k->nf, 0 };
    g.nfo = k->global ? 1 : k->nf;
    for (int f = 0; f < g.nfo; f++) g.otype[f] = k->ftype[f];
    g.tup = (size_t)k->nf * sizeof(op_value);
    g.rec_words = k->words;
    g.rec_ops = k->ops;
    size_t np = (size_t)g.np;
    g.in = calloc(np, sizeof *g.in);
    g.out = calloc(np, sizeof *g.out);
    g.n = calloc(np, sizeof *g.n);
    g.nout = calloc(np, sizeof *g.nout);
    g.recv = calloc(np, 1);
    int rc = !g.in || !g.out || !g.n || !g.nout || !g.recv ? COLL_OOM : COLL_OK;
    if (rc == COLL_OK) rc = coll_root(&g);
    if (rc == COLL_OK) rc = coll_sources(&g);
    if (rc == COLL_OK) rc = coll_combine(&g);
    if (rc == COLL_OK && !c->stop) rc = coll_destinations(&g);
    if (rc == COLL_OK)
        *rec = (sim_coll_rec){ (int)k->ck, g.np, g.rec_m, g.rec_words, g.rec_ops, k->line, k->col, 1 };
    if (rc == COLL_OOM) {
        sim_violation_add(c, SIM_V_RUNTIME, k->line, k->col, "runtime error: out of memory in collective %s", k->label);
        c->stop = 1;
    }
    group_run_free(&g);
}

void sim_coll_run(sim_ctx *c, const sim_coll *k, const int *ids, int np)
{
    if (k->ck == IR_C_TRANSPOSE) {
        sim_coll_rec rec;
        if (sim_transpose_run(c, k, ids, np, &rec) && !c->stop) record(c, &rec);
        return;
    }
    int *fr = malloc((size_t)(np ? np : 1) * sizeof *fr), *gid = malloc((size_t)(np ? np : 1) * sizeof *gid);
    int64_t *color = malloc((size_t)(np ? np : 1) * sizeof *color);
    sim_coll_rec best = { (int)k->ck, 0, 0, k->words, k->ops, k->line, k->col, 0 };
    if (!fr || !gid || !color) {
        sim_violation_add(c, SIM_V_RUNTIME, k->line, k->col, "runtime error: out of memory in collective %s", k->label);
        c->stop = 1;
        goto out;
    }
    for (int r = 0; r < np; r++) fr[r] = r;
    if (!k->by) {
        group G = { ids, fr, np };
        run_group(c, k, &G, &best);
        best.groups = 1;
    } else {
        /* groups by color, each in rank order, run one after the other (they are concurrent) */
        group all = { ids, fr, np };
        for (int r = 0; r < np && !c->stop; r++) {
            enter(c, &all, r);
            color[r] = sim_eval_i(c, k->by);
        }
        int *done = calloc((size_t)(np ? np : 1), sizeof *done);
        int *gfr = malloc((size_t)(np ? np : 1) * sizeof *gfr);
        if (!done || !gfr) { free(done); free(gfr); goto out; }
        for (int r = 0; r < np && !c->stop; r++) {
            if (done[r] || color[r] < 0) continue;
            int gn = 0;
            for (int q = r; q < np; q++)
                if (!done[q] && color[q] == color[r]) {
                    done[q] = 1;
                    gid[gn] = ids[q];
                    gfr[gn++] = q;
                }
            group G = { gid, gfr, gn };
            sim_coll_rec rec;
            memset(&rec, 0, sizeof rec);
            run_group(c, k, &G, &rec);
            if (rec.nprocs > best.nprocs) best.nprocs = rec.nprocs;
            if (rec.m > best.m) best.m = rec.m;
            best.words = rec.words;
            best.ops = rec.ops;
            best.groups++;
        }
        free(done);
        free(gfr);
    }
    if (!c->stop) record(c, &best);
out:
    free(fr);
    free(gid);
    free(color);
}

/* ---- repeat --------------------------------------------------------------------------------- */

op_value sim_repeat(sim_ctx *c, const sim_node *n)
{
    op_value st[OP_MAX_FIELDS], tmp[OP_MAX_FIELDS];
    int u = n->rop, ns = n->n;
    memset(st, 0, sizeof st);
    for (int i = 0; i < ns && i < OP_MAX_FIELDS; i++) {
        if (op_state_type(c->prog, u, i) == IR_DOUBLE) st[i].d = sim_eval_d(c, n->args[i]);
        else st[i].i = sim_eval_i(c, n->args[i]);
    }
    int64_t k = sim_eval_i(c, n->a);
    if (k < 0) {
        sim_violation_add(c, SIM_V_RUNTIME, n->e ? n->e->pos.line : 0, n->e ? n->e->pos.col : 0,
                          "runtime error: repeat with a negative count %lld (t=%lld)", (long long)k,
                          (long long)c->tval);
        c->stop = 1;
        return st[0];
    }
    char err[256];
    while (k > 0 && !c->stop) {
        ir_clause_kind cl = k % 2 == 0 ? IR_K_EVEN : IR_K_ODD;
        if (op_apply(c->openv, u, cl, st, NULL, tmp, err, sizeof err) != 0) {
            sim_violation_add(c, SIM_V_RUNTIME, n->e ? n->e->pos.line : 0, n->e ? n->e->pos.col : 0,
                              "runtime error: %s (t=%lld)", err, (long long)c->tval);
            c->stop = 1;
            break;
        }
        memcpy(st, tmp, (size_t)ns * sizeof *st);
        c->ticks += op_clause_ops(c->prog, u, cl);
        k /= 2;
    }
    return st[0];
}
