/*
 * planes.c — live time planes (see planes.h): the access walker and the analysis that decides
 * which dimension of an array keeps only its live planes, shared by the simulator (sim.c) and
 * the exporter (transforms/export.c).
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

/* ---- the analysis --------------------------------------------------------------------------- */

typedef struct fold_scan {
    int array, dim, tslot;
    int ok;
    int64_t cw, cmin, cmax;
    int have_write;
} fold_scan;

static void fold_visit(void *ctx, const ir_expr *acc, int write, int send_as, const ir_expr *const *as)
{
    fold_scan *f = ctx;
    int arr = acc->kind == IR_E_ACCESS ? acc->u.access.array_index : acc->u.name.index;
    if (arr != f->array || !f->ok) return;
    if (acc->kind != IR_E_ACCESS) { f->ok = 0; return; }
    if (!send_as && f->dim >= acc->u.access.nidx) { f->ok = 0; return; }   /* a collective's block */
    const ir_expr *sub = send_as ? as[f->dim] : acc->u.access.idx[f->dim];
    int64_t c;
    if (!ir_time_sub(sub, f->tslot, &c)) { f->ok = 0; return; }
    if (write) {
        if (f->have_write && c != f->cw) { f->ok = 0; return; }
        f->cw = c;
        f->have_write = 1;
    }
    if (c < f->cmin) f->cmin = c;
    if (c > f->cmax) f->cmax = c;
}

static void coll_visit(void *ctx, const ir_expr *acc, int write, int send_as, const ir_expr *const *as)
{
    (void)write; (void)send_as; (void)as;
    fold_scan *f = ctx;
    if ((acc->kind == IR_E_ACCESS ? acc->u.access.array_index : acc->u.name.index) == f->array) f->ok = 0;
}

/* Calls fn on every statement of b, nested ones too. */
static void each_stmt(const ir_block *b, void (*fn)(const ir_stmt *s, fold_scan *f), fold_scan *f)
{
    for (int i = 0; i < b->n; i++) {
        const ir_stmt *s = b->stmts[i];
        fn(s, f);
        if (s->kind == IR_S_IF) {
            each_stmt(s->u.if_.then_blk, fn, f);
            if (s->u.if_.else_blk) each_stmt(s->u.if_.else_blk, fn, f);
        } else if (s->kind == IR_S_FOR) {
            each_stmt(s->u.for_.body, fn, f);
        }
    }
}

/* Clears f->ok when a collective names f->array. */
static void coll_check(const ir_stmt *s, fold_scan *f)
{
    if (s->kind != IR_S_COLL) return;
    ir_block one = {.stmts = (ir_stmt **)&s, .n = 1};
    ir_block_accesses(&one, coll_visit, f);
}

/* Clears f->ok when a send of f->array's element delivers its plane after the plane is dead:
 * sent at step t to arrive for step t + k, plane t + c lands at the end of step t + k - 1,
 * when the live planes are t + k - 1 + cmin .. t + k - 1 + cw, so k <= c - cmin + 1. */
static void send_check(const ir_stmt *s, fold_scan *f)
{
    if (s->kind != IR_S_SEND || s->u.send.what->u.access.array_index != f->array) return;
    const ir_expr *sub = s->u.send.as_idx ? s->u.send.as_idx[f->dim] : s->u.send.what->u.access.idx[f->dim];
    int64_t c, k;
    if (!ir_time_sub(sub, f->tslot, &c) || !ir_time_sub(s->u.send.at, f->tslot, &k) || k > c - f->cmin + 1)
        f->ok = 0;
}

static int fold_decls_ok(const ir_program *p, const int64_t *pv, int array, int d, int64_t lo, int64_t hi,
                         int64_t tlo, int64_t thi, const fold_scan *f, int64_t *mark)
{
    for (int k = 0; k < p->ndecls; k++) {
        const ir_decl *dc = p->decls[k];
        int64_t v;
        if (dc->kind == IR_D_INIT && dc->u.init.array_index == array) {
            const ir_expr *x = dc->u.init.idx[d];
            if (x->kind == IR_E_NAME && x->u.name.nk == IR_N_INITVAR) return 0;
            if (!ir_const_int(p, x, pv, &v) || v < tlo + f->cmin || v > tlo + f->cw - 1) return 0;
        } else if (dc->kind == IR_D_OUTPUT && dc->u.output.array_index == array) {
            if (dc->u.output.nidx <= d || !ir_const_int(p, dc->u.output.idx[d], pv, &v) || v != thi + f->cw) return 0;
            *mark = v;
        } else if (dc->kind == IR_D_DIST && dc->u.dist.array_index == array && dc->u.dist.dk == IR_DIST_LOCAL) {
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
    const ir_decl *a = p->arrays[array];
    fold_scan coll = {.array = array, .ok = 1};
    each_stmt(p->body, coll_check, &coll);
    if (!coll.ok) return 0;
    for (int d = 0; d < a->u.array.ndims; d++) {
        fold_scan f = {array, d, tv->slot, 1, 0, INT64_MAX, INT64_MIN, 0};
        ir_block_accesses(p->body, fold_visit, &f);
        if (!f.ok || !f.have_write || f.cmin > f.cw || f.cmax > f.cw) continue;
        each_stmt(p->body, send_check, &f);
        if (!f.ok) continue;
        int64_t w = f.cw - f.cmin + 1, lo, hi, mark = INT64_MIN;
        if (!ir_const_int(p, a->u.array.lo[d], pv, &lo) || !ir_const_int(p, a->u.array.hi[d], pv, &hi)) continue;
        if (w >= hi - lo + 1) continue;
        if (!fold_decls_ok(p, pv, array, d, lo, hi, tlo, thi, &f, &mark)) continue;
        *out = (ir_planes){d, w, f.cw, mark};
        return 1;
    }
    return 0;
}
