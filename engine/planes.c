/*
 * planes.c — live time planes (see planes.h): the access walker and the analysis that decides
 * which dimension of an array keeps only its live planes, shared by the simulator (sim.c) and
 * the exporter (transforms/export/export.c).
 */
#include <stdint.h>
#include <stdlib.h>

#include "planes.h"

/* ---- accesses ------------------------------------------------------------------------------- */

/* Calls fn on every array access (and 0-d array name) in e; `write` for the left-hand side. */
void ir_expr_accesses(const ir_expr *e, ir_access_fn fn, void *ctx)
{
    if (!e) return;
    switch (e->kind) {
    case IR_E_ACCESS:
        fn(ctx, e, 0, 0, NULL);
        for (int i = 0; i < e->u.access.nidx; i++) ir_expr_accesses(e->u.access.idx[i], fn, ctx);
        return;
    case IR_E_NAME:
        if (e->u.name.nk == IR_N_ARRAY) fn(ctx, e, 0, 0, NULL);
        return;
    case IR_E_UNARY: case IR_E_BINARY:
        ir_expr_accesses(e->u.op.a, fn, ctx);
        ir_expr_accesses(e->u.op.b, fn, ctx);
        return;
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++) ir_expr_accesses(e->u.call.args[i], fn, ctx);
        return;
    case IR_E_REDUCE:
        ir_expr_accesses(e->u.reduce.lo, fn, ctx);
        ir_expr_accesses(e->u.reduce.hi, fn, ctx);
        ir_expr_accesses(e->u.reduce.body, fn, ctx);
        return;
    default: return;
    }
}

void ir_block_accesses(const ir_block *b, ir_access_fn fn, void *ctx)
{
    for (int i = 0; i < b->n; i++) {
        const ir_stmt *s = b->stmts[i];
        switch (s->kind) {
        case IR_S_ASSIGN:
            fn(ctx, s->u.assign.lhs, 1, 0, NULL);
            if (s->u.assign.lhs->kind == IR_E_ACCESS)
                for (int k = 0; k < s->u.assign.lhs->u.access.nidx; k++)
                    ir_expr_accesses(s->u.assign.lhs->u.access.idx[k], fn, ctx);
            ir_expr_accesses(s->u.assign.rhs, fn, ctx);
            break;
        case IR_S_LET: ir_expr_accesses(s->u.let.value, fn, ctx); break;
        case IR_S_IF:
            ir_expr_accesses(s->u.if_.cond, fn, ctx);
            ir_block_accesses(s->u.if_.then_blk, fn, ctx);
            if (s->u.if_.else_blk) ir_block_accesses(s->u.if_.else_blk, fn, ctx);
            break;
        case IR_S_FOR:
            for (int k = 0; k < s->u.for_.nvars; k++) {
                ir_expr_accesses(s->u.for_.vars[k].lo, fn, ctx);
                ir_expr_accesses(s->u.for_.vars[k].hi, fn, ctx);
                ir_expr_accesses(s->u.for_.vars[k].step, fn, ctx);
            }
            ir_block_accesses(s->u.for_.body, fn, ctx);
            break;
        case IR_S_SEND:
            fn(ctx, s->u.send.what, 0, 0, NULL);
            if (s->u.send.as_idx) fn(ctx, s->u.send.what, 0, 1, (const ir_expr *const *)s->u.send.as_idx);
            for (int k = 0; k < s->u.send.what->u.access.nidx; k++)
                ir_expr_accesses(s->u.send.what->u.access.idx[k], fn, ctx);
            ir_expr_accesses(s->u.send.to_lo, fn, ctx);
            ir_expr_accesses(s->u.send.to_hi, fn, ctx);
            ir_expr_accesses(s->u.send.when, fn, ctx);
            break;
        case IR_S_RECV:
            break;
        case IR_S_COLL:
            for (int k = 0; k < s->u.coll.nsrc; k++) {
                ir_expr_accesses(s->u.coll.src[k], fn, ctx);
                if (s->u.coll.src_lo && s->u.coll.src_lo[k]) {
                    ir_expr_accesses(s->u.coll.src_lo[k], fn, ctx);
                    ir_expr_accesses(s->u.coll.src_hi[k], fn, ctx);
                }
            }
            for (int k = 0; k < s->u.coll.ndst; k++) {
                if (!s->u.coll.dst[k]) continue;
                fn(ctx, s->u.coll.dst[k], 1, 0, NULL);
                if (s->u.coll.dst[k]->kind == IR_E_ACCESS)
                    for (int i = 0; i < s->u.coll.dst[k]->u.access.nidx; i++)
                        ir_expr_accesses(s->u.coll.dst[k]->u.access.idx[i], fn, ctx);
                if (s->u.coll.dst_lo && s->u.coll.dst_lo[k]) {
                    ir_expr_accesses(s->u.coll.dst_lo[k], fn, ctx);
                    ir_expr_accesses(s->u.coll.dst_hi[k], fn, ctx);
                }
            }
            ir_expr_accesses(s->u.coll.root, fn, ctx);
            ir_expr_accesses(s->u.coll.by, fn, ctx);
            ir_expr_accesses(s->u.coll.when, fn, ctx);
            break;
        }
    }
}

/* `t + c` (t the loop variable of slot tslot): 1 and *c, else 0. */
int ir_time_sub(const ir_expr *e, int tslot, int64_t *c)
{
    if (e->kind == IR_E_NAME && e->u.name.nk == IR_N_LOOPVAR && e->u.name.index == tslot) { *c = 0; return 1; }
    if (e->kind != IR_E_BINARY || (e->u.op.op != IR_OP_ADD && e->u.op.op != IR_OP_SUB)) return 0;
    const ir_expr *a = e->u.op.a, *b = e->u.op.b;
    int64_t k;
    if (b->kind == IR_E_INT && ir_time_sub(a, tslot, &k)) {
        *c = e->u.op.op == IR_OP_ADD ? k + b->u.ival : k - b->u.ival;
        return 1;
    }
    if (e->u.op.op == IR_OP_ADD && a->kind == IR_E_INT && ir_time_sub(b, tslot, &k)) { *c = k + a->u.ival; return 1; }
    return 0;
}

/* ---- time forms ----------------------------------------------------------------------------- */

static int64_t pl_fdiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }
static int64_t pl_fmod(int64_t a, int64_t b) { return a - b * pl_fdiv(a, b); }

enum { TF_KMAX = 64 };                       /* the divisor's bound (residue masks are 64 bits) */
#define TF_CMAX ((int64_t)1 << 40)           /* the constants' bound (no overflow in the sums) */

static int tf_norm(ir_tform *f)
{
    if (f->k < 1 || f->k > TF_KMAX || f->a < -TF_CMAX || f->a > TF_CMAX || f->c < -TF_CMAX || f->c > TF_CMAX) return 0;
    f->c += pl_fdiv(f->a, f->k);
    f->a = pl_fmod(f->a, f->k);
    return 1;
}

static int tf_rec(const ir_program *p, const ir_expr *const *lets, const ir_expr *e, int tslot, int depth, ir_tform *f)
{
    if (!e || depth > 32) return 0;
    ir_tform g;
    switch (e->kind) {
    case IR_E_NAME:
        if (e->u.name.nk == IR_N_LOOPVAR && e->u.name.index == tslot) { *f = (ir_tform){0, 1, 0}; return 1; }
        if (e->u.name.nk == IR_N_LET && lets && e->u.name.index >= 0 && e->u.name.index < p->nslots &&
            lets[e->u.name.index])
            return tf_rec(p, lets, lets[e->u.name.index], tslot, depth + 1, f);
        return 0;
    case IR_E_BINARY: {
        const ir_expr *a = e->u.op.a, *b = e->u.op.b;
        if (e->u.op.op == IR_OP_ADD || e->u.op.op == IR_OP_SUB) {
            int neg = e->u.op.op == IR_OP_SUB;
            if (b->kind == IR_E_INT && b->u.ival > -TF_CMAX && b->u.ival < TF_CMAX && tf_rec(p, lets, a, tslot, depth + 1, &g)) {
                g.c += neg ? -b->u.ival : b->u.ival;
                *f = g;
                return tf_norm(f);
            }
            if (!neg && a->kind == IR_E_INT && a->u.ival > -TF_CMAX && a->u.ival < TF_CMAX && tf_rec(p, lets, b, tslot, depth + 1, &g)) {
                g.c += a->u.ival;
                *f = g;
                return tf_norm(f);
            }
            return 0;
        }
        /* floor((floor((t + a) / k) + c) / K) = floor((t + a + k c) / (k K)) */
        if (e->u.op.op == IR_OP_DIV && e->type == IR_INT && b->kind == IR_E_INT && b->u.ival > 0 && b->u.ival <= TF_KMAX &&
            tf_rec(p, lets, a, tslot, depth + 1, &g)) {
            *f = (ir_tform){g.a + g.k * g.c, g.k * b->u.ival, 0};
            return tf_norm(f);
        }
        return 0;
    }
    case IR_E_CALL:
        if (e->u.call.f == IR_F_FLOOR && e->u.call.nargs == 1 && e->u.call.args[0]->kind == IR_E_BINARY &&
            e->u.call.args[0]->u.op.op == IR_OP_DIV)
            return tf_rec(p, lets, e->u.call.args[0], tslot, depth + 1, f);
        return 0;
    default: return 0;
    }
}

int ir_time_form(const ir_program *p, const ir_expr *const *lets, const ir_expr *e, int tslot, ir_tform *out)
{
    return tf_rec(p, lets, e, tslot, 0, out);
}

int64_t ir_tform_at(const ir_tform *f, int64_t t)
{
    return pl_fdiv(t + f->a, f->k) + f->c;
}

static void let_values(const ir_block *b, const ir_expr **lets, int nslots)
{
    for (int i = 0; i < b->n; i++) {
        const ir_stmt *s = b->stmts[i];
        if (s->kind == IR_S_LET && s->u.let.slot >= 0 && s->u.let.slot < nslots) lets[s->u.let.slot] = s->u.let.value;
        else if (s->kind == IR_S_IF) {
            let_values(s->u.if_.then_blk, lets, nslots);
            if (s->u.if_.else_blk) let_values(s->u.if_.else_blk, lets, nslots);
        } else if (s->kind == IR_S_FOR) {
            let_values(s->u.for_.body, lets, nslots);
        }
    }
}

const ir_expr **ir_let_values(const ir_program *p)
{
    const ir_expr **lets = calloc((size_t)p->nslots + 1, sizeof *lets);
    if (lets) let_values(p->body, lets, p->nslots);
    return lets;
}

/* ---- the analysis --------------------------------------------------------------------------- */

/* One array dimension scanned twice: pass 1 finds the common divisor k of its subscripts
 * floor((t + a) / k) + c; pass 2 runs with the residues of t modulo k each statement may run at
 * (the guards `(t + a) % m == r` around it, m dividing k) and collects when planes are touched:
 * plane x by an access at steps k x + lo .. k x + hi (planes.h says what folds). */
typedef struct live_scan {
    const ir_program *p;
    const ir_expr *const *lets;
    int array, dim, tslot, pass;
    int ok;
    int64_t k, tlo, thi;
    uint64_t mask;            /* the residues the statement being visited runs at */
    int have_write;
    int64_t w0;               /* every write touches plane x in step k x + w0 alone */
    int64_t mn, mx;           /* over the other accesses: lo's minimum, hi's maximum */
    int64_t wmin, wmax, amax; /* the planes written first and last in tlo .. thi; touched last */
} live_scan;

static uint64_t live_full(int64_t k) { return k >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << k) - 1; }

/* kind: 0 read, 1 write, 2 delivery of a message `shift` steps after the send */
static void live_touch(live_scan *f, const ir_expr *sub, int kind, int64_t shift)
{
    ir_tform t;
    if (!ir_time_form(f->p, f->lets, sub, f->tslot, &t)) { f->ok = 0; return; }
    if (f->pass == 1) {
        if (f->k && f->k != t.k) f->ok = 0;
        f->k = t.k;
        return;
    }
    uint64_t mask = f->mask;
    if (shift) {   /* delivered at the end of step s = t + shift: a touch at s */
        uint64_t m2 = 0;
        for (int64_t r = 0; r < f->k; r++)
            if (mask >> r & 1) m2 |= (uint64_t)1 << pl_fmod(r + shift, f->k);
        mask = m2;
        t.a -= shift;
        if (!tf_norm(&t)) { f->ok = 0; return; }
    }
    /* its first and last steps in tlo .. thi */
    int64_t s_lo = f->tlo, s_hi = f->thi;
    while (s_lo <= f->thi && s_lo < f->tlo + f->k && !(mask >> pl_fmod(s_lo, f->k) & 1)) s_lo++;
    while (s_hi >= f->tlo && s_hi > f->thi - f->k && !(mask >> pl_fmod(s_hi, f->k) & 1)) s_hi--;
    if (s_lo > s_hi || !(mask >> pl_fmod(s_lo, f->k) & 1)) return;   /* never runs */
    int64_t first = -1, last = -1;   /* steps k (x - c) - a + off touch plane x */
    for (int64_t off = 0; off < f->k; off++)
        if (mask >> pl_fmod(off - t.a, f->k) & 1) { if (first < 0) first = off; last = off; }
    int64_t lo = first - f->k * t.c - t.a, hi = last - f->k * t.c - t.a;
    if (kind == 1 && (lo != hi || (f->have_write && lo != f->w0))) { f->ok = 0; return; }   /* one step writes a plane */
    if (kind != 1 && lo < f->mn) f->mn = lo;
    if (hi > f->mx) f->mx = hi;
    int64_t at_hi = ir_tform_at(&t, s_hi), at_lo = ir_tform_at(&t, s_lo);
    if (at_hi > f->amax) f->amax = at_hi;
    if (kind != 1) return;
    f->have_write = 1;
    f->w0 = lo;
    if (at_lo < f->wmin) f->wmin = at_lo;
    if (at_hi > f->wmax) f->wmax = at_hi;
}

static void live_visit(void *ctx, const ir_expr *acc, int write, int send_as, const ir_expr *const *as)
{
    (void)send_as; (void)as;
    live_scan *f = ctx;
    int arr = acc->kind == IR_E_ACCESS ? acc->u.access.array_index : acc->u.name.index;
    if (arr != f->array || !f->ok) return;
    if (acc->kind != IR_E_ACCESS || f->dim >= acc->u.access.nidx) { f->ok = 0; return; }   /* a collective's block */
    live_touch(f, acc->u.access.idx[f->dim], write, 0);
}

/* The residues of t modulo f->k at which `(t + a) % m == r` (or !=) holds, m dividing k; all
 * residues when e is not of that form. */
static uint64_t live_periodic(const live_scan *f, const ir_expr *e, int *periodic)
{
    uint64_t full = live_full(f->k), m = 0;
    *periodic = 0;
    if (e->kind != IR_E_BINARY || (e->u.op.op != IR_OP_EQ && e->u.op.op != IR_OP_NE)) return full;
    const ir_expr *x = e->u.op.a, *r = e->u.op.b;
    if (x->kind == IR_E_INT) { const ir_expr *y = x; x = r; r = y; }
    ir_tform t;
    if (r->kind != IR_E_INT || x->kind != IR_E_BINARY || x->u.op.op != IR_OP_MOD || x->u.op.b->kind != IR_E_INT ||
        x->u.op.b->u.ival <= 0 || f->k % x->u.op.b->u.ival != 0 ||
        !ir_time_form(f->p, f->lets, x->u.op.a, f->tslot, &t) || t.k != 1)
        return full;
    int64_t mod = x->u.op.b->u.ival;
    for (int64_t rho = 0; rho < f->k; rho++)
        if ((pl_fmod(rho + t.c, mod) == r->u.ival) == (e->u.op.op == IR_OP_EQ)) m |= (uint64_t)1 << rho;
    *periodic = 1;
    return m;
}

static void live_guard(const live_scan *f, const ir_expr *e, uint64_t *then_m, uint64_t *else_m, int *nconj)
{
    if (e->kind == IR_E_BINARY && e->u.op.op == IR_OP_AND) {
        live_guard(f, e->u.op.a, then_m, else_m, nconj);
        live_guard(f, e->u.op.b, then_m, else_m, nconj);
        return;
    }
    int periodic;
    uint64_t m = live_periodic(f, e, &periodic);
    *then_m &= m;
    *else_m = ++*nconj == 1 && periodic ? live_full(f->k) & ~m : live_full(f->k);
}

static void live_block(live_scan *f, const ir_block *b, uint64_t mask)
{
    for (int i = 0; i < b->n && f->ok; i++) {
        const ir_stmt *s = b->stmts[i];
        f->mask = mask;
        if (s->kind == IR_S_IF) {
            ir_expr_accesses(s->u.if_.cond, live_visit, f);
            uint64_t tm = live_full(f->k), em = tm;
            int nconj = 0;
            live_guard(f, s->u.if_.cond, &tm, &em, &nconj);
            live_block(f, s->u.if_.then_blk, mask & tm);
            if (s->u.if_.else_blk) live_block(f, s->u.if_.else_blk, mask & em);
        } else if (s->kind == IR_S_FOR) {
            for (int k = 0; k < s->u.for_.nvars; k++) {
                ir_expr_accesses(s->u.for_.vars[k].lo, live_visit, f);
                ir_expr_accesses(s->u.for_.vars[k].hi, live_visit, f);
                ir_expr_accesses(s->u.for_.vars[k].step, live_visit, f);
            }
            live_block(f, s->u.for_.body, mask);
        } else if (s->kind == IR_S_SEND) {
            const ir_expr *w = s->u.send.what;
            int64_t k;
            for (int d = 0; w->kind == IR_E_ACCESS && d < w->u.access.nidx; d++)
                ir_expr_accesses(w->u.access.idx[d], live_visit, f);
            ir_expr_accesses(s->u.send.to_lo, live_visit, f);
            ir_expr_accesses(s->u.send.to_hi, live_visit, f);
            ir_expr_accesses(s->u.send.when, live_visit, f);
            if (w->kind == IR_E_NAME ? w->u.name.index != f->array : w->u.access.array_index != f->array) continue;
            live_visit(f, w, 0, 0, NULL);
            if (!f->ok) return;
            ir_expr *const *idx = s->u.send.as_idx ? s->u.send.as_idx : w->u.access.idx;
            if (!ir_time_sub(s->u.send.at, f->tslot, &k) || k < 1) { f->ok = 0; return; }
            live_touch(f, idx[f->dim], 2, k - 1);
        } else {
            ir_block one = {.stmts = (ir_stmt **)&b->stmts[i], .n = 1};
            ir_block_accesses(&one, live_visit, f);
        }
    }
}

static void coll_visit(void *ctx, const ir_expr *acc, int write, int send_as, const ir_expr *const *as)
{
    (void)write; (void)send_as; (void)as;
    live_scan *f = ctx;
    if ((acc->kind == IR_E_ACCESS ? acc->u.access.array_index : acc->u.name.index) == f->array) f->ok = 0;
}

/* Clears f->ok when a collective names f->array. */
static void coll_check(const ir_block *b, live_scan *f)
{
    for (int i = 0; i < b->n && f->ok; i++) {
        const ir_stmt *s = b->stmts[i];
        if (s->kind == IR_S_COLL) {
            ir_block one = {.stmts = (ir_stmt **)&b->stmts[i], .n = 1};
            ir_block_accesses(&one, coll_visit, f);
        } else if (s->kind == IR_S_IF) {
            coll_check(s->u.if_.then_blk, f);
            if (s->u.if_.else_blk) coll_check(s->u.if_.else_blk, f);
        } else if (s->kind == IR_S_FOR) {
            coll_check(s->u.for_.body, f);
        }
    }
}

/* Inits fill planes the loop reads before any is written again in their place, an output names
 * the last plane written, a LOCAL dist spans the whole dimension. */
static int live_decls_ok(const live_scan *f, int64_t w, int64_t lo, int64_t hi, ir_planes *out, const int64_t *pv)
{
    const ir_program *p = f->p;
    int64_t inits[8];
    int ninits = 0, d = f->dim;
    for (int k = 0; k < p->ndecls; k++) {
        const ir_decl *dc = p->decls[k];
        int64_t v;
        if (dc->kind == IR_D_INIT && dc->u.init.array_index == f->array) {
            const ir_expr *x = dc->u.init.idx[d];
            if (x->kind == IR_E_NAME && x->u.name.nk == IR_N_INITVAR) return 0;
            if (!ir_const_int(p, x, pv, &v) || v < -TF_CMAX || v > TF_CMAX || v >= f->wmin || f->k * (v - w) + f->mx >= f->tlo || f->k * v + f->mx < f->tlo)
                return 0;
            int seen = 0;
            for (int j = 0; j < ninits; j++) {
                if (inits[j] == v) seen = 1;
                else if (pl_fmod(inits[j] - v, w) == 0) return 0;
            }
            if (!seen && ninits == 8) return 0;
            if (!seen) inits[ninits++] = v;
        } else if (dc->kind == IR_D_OUTPUT && dc->u.output.array_index == f->array) {
            if (dc->u.output.nidx <= d || !ir_const_int(p, dc->u.output.idx[d], pv, &v) || v != f->wmax || v + w <= f->amax)
                return 0;
            out->mark = v;
            out->mark_step = f->k * v + f->w0;
        } else if (dc->kind == IR_D_DIST && dc->u.dist.array_index == f->array && dc->u.dist.dk == IR_DIST_LOCAL) {
            int64_t dl, dh, off = 0;
            if (!ir_const_int(p, dc->u.dist.lo[d], pv, &dl) || !ir_const_int(p, dc->u.dist.hi[d], pv, &dh) || dl != lo ||
                dh != hi || (dc->u.dist.offset && (!ir_const_int(p, dc->u.dist.offset[d], pv, &off) || off)))
                return 0;
        }
    }
    return 1;
}

int ir_live_planes(const ir_program *p, const int64_t *pv, int array, const ir_loopvar *tv, ir_planes *out)
{
    int64_t tlo, thi, step = 1;
    if (!tv || tv->slot < 0 || (tv->step && (!ir_const_int(p, tv->step, pv, &step) || step != 1))) return 0;
    if (!ir_const_int(p, tv->lo, pv, &tlo) || !ir_const_int(p, tv->hi, pv, &thi) || thi < tlo) return 0;
    if (tlo < -TF_CMAX || thi > TF_CMAX) return 0;
    const ir_decl *a = p->arrays[array];
    live_scan coll = {.array = array, .ok = 1};
    coll_check(p->body, &coll);
    if (!coll.ok) return 0;
    const ir_expr **lets = ir_let_values(p);
    if (!lets) return 0;
    int found = 0;
    for (int d = 0; d < a->u.array.ndims && !found; d++) {
        live_scan f = {.p = p, .lets = lets, .array = array, .dim = d, .tslot = tv->slot, .pass = 1, .ok = 1,
                       .tlo = tlo, .thi = thi, .mn = INT64_MAX, .mx = INT64_MIN, .wmin = INT64_MAX,
                       .wmax = INT64_MIN, .amax = INT64_MIN};
        live_block(&f, p->body, 1);
        if (!f.ok || !f.k) continue;
        f.pass = 2;
        live_block(&f, p->body, live_full(f.k));
        /* no access touches a plane before the step that writes it (reads of the planes before
         * the first are the inits') */
        if (!f.ok || !f.have_write || (f.mn != INT64_MAX && f.mn < f.w0)) continue;
        int64_t w = pl_fdiv(f.mx - f.w0, f.k) + 1, lo, hi;
        if (!ir_const_int(p, a->u.array.lo[d], pv, &lo) || !ir_const_int(p, a->u.array.hi[d], pv, &hi)) continue;
        if (w >= hi - lo + 1) continue;
        ir_planes pn = {d, w, INT64_MIN, INT64_MIN};
        if (!live_decls_ok(&f, w, lo, hi, &pn, pv)) continue;
        *out = pn;
        found = 1;
    }
    free(lets);
    return found;
}
