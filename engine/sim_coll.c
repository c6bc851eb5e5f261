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
static void run_group(sim_ctx *c, const sim_coll *k, const group *G, sim_coll_rec *rec)
{
    const ir_program *p = c->prog;
    const int *ids = G->ids;
    int np = G->np;
    int nf = k->nf, root = 0;
    const char *cn = ir_coll_name(k->ck);
    op_value **in = calloc((size_t)np, sizeof *in), **out = calloc((size_t)np, sizeof *out);
    int64_t *n = calloc((size_t)np, sizeof *n), *nout = calloc((size_t)np, sizeof *nout);
    unsigned char *recv = calloc((size_t)np, 1);
    combiner C = { c, k, nf, 0 };
    int nfo = k->global ? 1 : nf;        /* values per output element */
    ir_type otype[OP_MAX_FIELDS];
    for (int f = 0; f < nfo; f++) otype[f] = k->ftype[f];
    if (!in || !out || !n || !nout || !recv) goto oom;

    /* the root */
    if (k->root) {
        enter(c, G, 0);
        int64_t rv = sim_eval_i(c, k->root);
        root = -1;
        for (int r = 0; r < np; r++) if (sim_proc_value(c, ids[r]) == rv) root = r;
        if (root < 0) {
            coll_violation(c, k, SIM_V_RUNTIME, "runtime error: the root %lld of %s is not a processor of "
                           "this step", (long long)rv, cn);
            c->stop = 1;
            goto done;
        }
    }
    /* read the sources */
    for (int r = 0; r < np && !c->stop; r++) {
        if ((k->ck == IR_C_BCAST || k->ck == IR_C_SCATTER) && r != root) continue;
        enter(c, G, r);
        if (k->ck == IR_C_MULTICAST && c->level == IR_SYNDM)   /* the receiver's block, at the root */
            c->mem = c->allmem + (size_t)ids[root] * (size_t)c->narrays;
        for (int f = 0; f < k->nsrc; f++) {
            blk_loc L;
            if (locate(c, k, &k->src[f], &L) != 0) goto done;
            if (f == 0) {
                n[r] = L.n;
                in[r] = malloc((size_t)(L.n ? L.n : 1) * (size_t)nf * sizeof **in);
                if (!in[r]) goto oom;
            } else if (L.n != n[r]) {
                coll_violation(c, k, SIM_V_RUNTIME, "runtime error: processor %lld's source blocks have %lld and "
                               "%lld elements", (long long)sim_proc_value(c, ids[r]), (long long)n[r], (long long)L.n);
                c->stop = 1;
                goto done;
            }
            if (read_block(c, k, &L, k->ftype[f], in[r] + f, nf) != 0) goto done;
        }
    }
    if (c->stop) goto done;
    int elementwise = !k->global && k->ck != IR_C_BCAST && k->ck != IR_C_SCATTER &&
                      k->ck != IR_C_GATHER && k->ck != IR_C_ALLGATHER && k->ck != IR_C_MULTICAST;
    for (int r = 1; elementwise && r < np; r++)
        if (n[r] != n[0]) {
            coll_violation(c, k, SIM_V_RUNTIME, "runtime error: %s combines blocks of equal size, but "
                           "processor %lld has %lld elements and processor %lld has %lld", cn,
                           (long long)sim_proc_value(c, ids[0]), (long long)n[0],
                           (long long)sim_proc_value(c, ids[r]), (long long)n[r]);
            c->stop = 1;
            goto done;
        }
    int64_t m = n[root];
    size_t tup = (size_t)nf * sizeof(op_value);
    double rec_m = (double)m, rec_words = k->words, rec_ops = k->ops;

    if (k->global) {
        /* accumulate each processor's block into its state */
        int u = k->user, ns = op_state_arity(p, u);
        int scan = k->ck == IR_C_SCAN || k->ck == IR_C_EXSCAN;
        const ir_decl *od = p->ops[u];
        op_value *st = calloc((size_t)np, (size_t)ns * sizeof *st);
        if (!st) goto oom;
        double acc_ops = op_clause_ops(p, u, IR_K_ACCUM);
        for (int r = 0; r < np && !C.failed; r++) {
            op_value *s = &st[(size_t)r * ns], tmp[OP_MAX_FIELDS];
            apply1(&C, IR_K_IDENT, NULL, NULL, s, ns);
            for (int64_t j = 0; j < n[r] && !C.failed; j++) {
                const op_value *x = &in[r][j * nf];
                if (j == 0 && od->u.op.clause[IR_K_PREACCUM]) {
                    apply1(&C, IR_K_PREACCUM, s, x, tmp, ns);
                    memcpy(s, tmp, (size_t)ns * sizeof *s);
                }
                apply1(&C, IR_K_ACCUM, s, x, tmp, ns);
                memcpy(s, tmp, (size_t)ns * sizeof *s);
                if (j == n[r] - 1 && od->u.op.clause[IR_K_POSTACCUM]) {
                    apply1(&C, IR_K_POSTACCUM, s, x, tmp, ns);
                    memcpy(s, tmp, (size_t)ns * sizeof *s);
                }
            }
            if (!scan) add_work(c, ids[r], (double)n[r] * acc_ops);
        }
        rec_m = 1;
        rec_words = ns;
        rec_ops = op_clause_ops(p, u, IR_K_COMBINE);
        C.nf = ns;
        if (!scan) {
            op_value tot[OP_MAX_FIELDS], g[OP_MAX_FIELDS];
            memcpy(tot, st, (size_t)ns * sizeof *tot);
            for (int r = 1; r < np && !C.failed; r++) apply2(&C, IR_K_COMBINE, tot, &st[(size_t)r * ns], tot);
            const ir_opitem *gen = od->u.op.clause[IR_K_GEN];
            apply1(&C, IR_K_GEN, tot, NULL, g, gen->nval);
            for (int r = 0; r < np; r++) {
                if (k->ck == IR_C_REDUCE && r != root) continue;
                out[r] = malloc((size_t)gen->nval * sizeof **out);
                if (!out[r]) { free(st); goto oom; }
                memcpy(out[r], g, (size_t)gen->nval * sizeof *g);
                nout[r] = gen->nval;
                recv[r] = 1;
                add_work(c, ids[r], op_clause_ops(p, u, IR_K_GEN));
            }
            otype[0] = IR_INT;
            for (int i = 0; i < gen->nval; i++) if (gen->val[i]->type == IR_DOUBLE) otype[0] = IR_DOUBLE;
            /* values of mixed types are converted one by one below */
        } else {
            op_value pre[OP_MAX_FIELDS], tmp[OP_MAX_FIELDS];
            apply1(&C, IR_K_IDENT, NULL, NULL, pre, ns);
            const ir_opitem *sg = od->u.op.clause[IR_K_SCANGEN];
            otype[0] = sg->val[0]->type;
            double sg_ops = op_clause_ops(p, u, IR_K_SCANGEN);
            for (int r = 0; r < np && !C.failed; r++) {
                op_value s[OP_MAX_FIELDS];
                memcpy(s, pre, (size_t)ns * sizeof *s);
                out[r] = malloc((size_t)(n[r] ? n[r] : 1) * sizeof **out);
                if (!out[r]) { free(st); goto oom; }
                nout[r] = n[r];
                recv[r] = 1;
                for (int64_t j = 0; j < n[r] && !C.failed; j++) {
                    const op_value *x = &in[r][j * nf];
                    if (k->ck == IR_C_EXSCAN) apply1(&C, IR_K_SCANGEN, s, x, &out[r][j], 1);
                    if (j == 0 && od->u.op.clause[IR_K_PREACCUM]) {
                        apply1(&C, IR_K_PREACCUM, s, x, tmp, ns);
                        memcpy(s, tmp, (size_t)ns * sizeof *s);
                    }
                    apply1(&C, IR_K_ACCUM, s, x, tmp, ns);
                    memcpy(s, tmp, (size_t)ns * sizeof *s);
                    if (k->ck == IR_C_SCAN) apply1(&C, IR_K_SCANGEN, s, x, &out[r][j], 1);
                }
                add_work(c, ids[r], (double)n[r] * (acc_ops + sg_ops));
                apply2(&C, IR_K_COMBINE, pre, &st[(size_t)r * ns], tmp);
                memcpy(pre, tmp, (size_t)ns * sizeof *pre);
            }
        }
        free(st);
    } else {
        switch (k->ck) {
        case IR_C_BCAST:
            for (int r = 0; r < np; r++) {
                out[r] = in[root];
                nout[r] = m;
                recv[r] = 1;
            }
            break;
        case IR_C_MULTICAST:
            for (int r = 0; r < np; r++) {
                out[r] = in[r];
                nout[r] = n[r];
                recv[r] = 1;
                if ((double)n[r] > rec_m) rec_m = (double)n[r];
            }
            break;
        case IR_C_SCATTER: {
            if (m % np != 0) {
                coll_violation(c, k, SIM_V_RUNTIME, "runtime error: scatter cuts the root's block of %lld elements "
                               "into %d equal blocks", (long long)m, np);
                c->stop = 1;
                goto done;
            }
            int64_t q = m / np;
            for (int r = 0; r < np; r++) {
                out[r] = in[root] + (size_t)r * (size_t)q * (size_t)nf;
                nout[r] = q;
                recv[r] = 1;
            }
            rec_m = (double)q;
            break;
        }
        case IR_C_GATHER: case IR_C_ALLGATHER: {
            int64_t tot = 0;
            for (int r = 0; r < np; r++) tot += n[r];
            op_value *all = malloc((size_t)(tot ? tot : 1) * tup);
            if (!all) goto oom;
            for (int r = 0, at = 0; r < np; at += (int)n[r], r++)
                if (n[r]) memcpy(all + (size_t)at * nf, in[r], (size_t)n[r] * tup);
            for (int r = 0; r < np; r++) {
                if (k->ck == IR_C_GATHER && r != root) continue;
                out[r] = all;
                nout[r] = tot;
                recv[r] = 1;
            }
            /* `all` is freed through out[first receiver] below */
            rec_m = np ? (double)tot / np : 0;
            break;
        }
        case IR_C_REDUCE: case IR_C_ALLREDUCE: case IR_C_REDUCE_BAL: case IR_C_ALLREDUCE_BAL: {
            op_value *res = malloc((size_t)(m ? m : 1) * tup);
            if (!res) goto oom;
            if (k->ck == IR_C_REDUCE || k->ck == IR_C_ALLREDUCE) {
                if (m) memcpy(res, in[0], (size_t)m * tup);
                for (int r = 1; r < np && !C.failed; r++)
                    for (int64_t j = 0; j < m && !C.failed; j++)
                        apply2(&C, IR_K_COMBINE, &res[j * nf], &in[r][j * nf], &res[j * nf]);
            } else {
                int width = 1 << ceil_log2(np);
                op_value *nodes = malloc((size_t)width * tup);
                unsigned char *have = malloc((size_t)width);
                if (!nodes || !have) { free(nodes); free(have); free(res); goto oom; }
                for (int64_t j = 0; j < m && !C.failed; j++) tree_reduce(&C, in, j, np, &res[j * nf], nodes, have);
                free(nodes);
                free(have);
            }
            int only_root = k->ck == IR_C_REDUCE || k->ck == IR_C_REDUCE_BAL;
            for (int r = 0; r < np; r++) {
                if (only_root && r != root) continue;
                out[r] = res;
                nout[r] = m;
                recv[r] = 1;
            }
            break;
        }
        case IR_C_SCAN: case IR_C_EXSCAN: {
            op_value id[OP_MAX_FIELDS], *acc = malloc((size_t)(m ? m : 1) * tup);
            if (!acc) goto oom;
            if (k->ck == IR_C_EXSCAN) ident_of(&C, id);
            for (int r = 0; r < np; r++) {
                out[r] = malloc((size_t)(m ? m : 1) * tup);
                if (!out[r]) { free(acc); goto oom; }
                nout[r] = m;
                recv[r] = 1;
            }
            for (int64_t j = 0; j < m; j++) memcpy(&acc[j * nf], &in[0][j * nf], tup);
            for (int r = 0; r < np && !C.failed; r++) {
                for (int64_t j = 0; j < m && !C.failed; j++) {
                    op_value *o = &out[r][j * nf];
                    if (k->ck == IR_C_SCAN) {
                        if (r > 0) apply2(&C, IR_K_COMBINE, &acc[j * nf], &in[r][j * nf], &acc[j * nf]);
                        memcpy(o, &acc[j * nf], tup);
                    } else if (r == 0) {
                        memcpy(o, id, tup);
                    } else {
                        memcpy(o, &acc[j * nf], tup);
                        apply2(&C, IR_K_COMBINE, &acc[j * nf], &in[r][j * nf], &acc[j * nf]);
                    }
                }
            }
            free(acc);
            break;
        }
        case IR_C_SCAN_BAL: {
            for (int r = 0; r < np; r++) {
                out[r] = malloc((size_t)(m ? m : 1) * tup);
                if (!out[r]) goto oom;
                if (m) memcpy(out[r], in[r], (size_t)m * tup);
                nout[r] = m;
                recv[r] = 1;
            }
            for (int kb = 1; kb < np && !C.failed; kb <<= 1)
                for (int r = 0; r < np && !C.failed; r++) {
                    int q = r ^ kb;
                    if (q >= np || q < r) continue;
                    for (int64_t j = 0; j < m && !C.failed; j++) {
                        op_value lo[OP_MAX_FIELDS], hi[OP_MAX_FIELDS];
                        apply2(&C, IR_K_LOWER, &out[r][j * nf], &out[q][j * nf], lo);
                        apply2(&C, IR_K_UPPER, &out[r][j * nf], &out[q][j * nf], hi);
                        memcpy(&out[r][j * nf], lo, tup);
                        memcpy(&out[q][j * nf], hi, tup);
                    }
                }
            break;
        }
        default:
            break;
        }
    }
    if (c->stop) goto done;

    /* write the destinations */
    for (int r = 0; r < np && !c->stop; r++) {
        if (!recv[r]) continue;
        enter(c, G, r);
        for (int f = 0; f < k->ndst; f++) {
            if (k->dst[f].array < 0) continue;
            blk_loc L;
            if (locate(c, k, &k->dst[f], &L) != 0) goto done;
            if (L.n != nout[r]) {
                coll_violation(c, k, SIM_V_RUNTIME, "runtime error: processor %lld's destination block of %s has "
                               "%lld elements, the result has %lld", (long long)sim_proc_value(c, ids[r]),
                               p->arrays[k->dst[f].array]->u.array.name, (long long)L.n, (long long)nout[r]);
                c->stop = 1;
                goto done;
            }
            if (k->global && k->ck != IR_C_SCAN && k->ck != IR_C_EXSCAN) {
                const ir_opitem *gen = p->ops[k->user]->u.op.clause[IR_K_GEN];
                for (int64_t j = 0; j < L.n; j++) {
                    blk_loc one = L;
                    one.base = elem_off(&L, j);
                    one.n = 1;
                    one.contiguous = 1;
                    write_block(&one, gen->val[j]->type, &out[r][j], 1);
                }
            } else {
                write_block(&L, otype[f < nfo ? f : 0], out[r] + f, nfo);
            }
        }
    }
    *rec = (sim_coll_rec){ (int)k->ck, np, rec_m, rec_words, rec_ops, k->line, k->col, 1 };
    goto done;
oom:
    sim_violation_add(c, SIM_V_RUNTIME, k->line, k->col, "runtime error: out of memory in collective %s", k->label);
    c->stop = 1;
done:
    if (out && in) {
        /* out[] entries may alias in[] (bcast, scatter) or each other (reduce, gather) */
        for (int r = 0; r < np; r++) {
            if (!out[r]) continue;
            int owned = 1;
            for (int q = 0; q < np && owned; q++)
                if (in[q] && out[r] >= in[q] && out[r] < in[q] + (size_t)(n[q] ? n[q] : 1) * (size_t)nf) owned = 0;
            for (int q = 0; q < r && owned; q++) if (out[q] == out[r]) owned = 0;
            if (owned) free(out[r]);
        }
    }
    for (int r = 0; in && r < np; r++) free(in[r]);
    free(in);
    free(out);
    free(n);
    free(nout);
    free(recv);
}

void sim_coll_run(sim_ctx *c, const sim_coll *k, const int *ids, int np)
{
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
