/*
 * commgen.c — communication generation (syn → syncomm): owner computes; after a statement
 * writes an element, it sends the element to every other real processor that reads it later.
 *
 * The dependences are computed on the untiled step nest (`for t seq, p par`), which is affine:
 * for a tiled program (the forms tile.c produces: blocked, cyclic, blockcyclic, block2d) the
 * untiled nest is recovered from the tiled loop bounds, and the real processor of a virtual
 * one is the xf_tiling's function RP(p) (blocked: (p - P0) / b, cyclic: (p - P0) % procs, ...).
 * For each flow dependence from statement A to statement B:
 *
 *   uniform in the processor dimensions (p' = p + δ, the finite differences): one send
 *       send e to RP(p + δ) at t + 1 when <a sink exists> && RP(p + δ) != RP(p)
 *   otherwise (one processor dimension, LU): the sinks' virtual processors form a range
 *       pmin(x) .. pmax(x) (isl's lexmin/lexmax); dependences of one statement whose ranges
 *       together stay a range are merged (the thesis merged LU's dependences 3 and 5 by hand):
 *       send e to RP(pmin) .. RP(pmax) at t + 1 when <a sink exists>   (blocked / untiled)
 *       and for cyclic tilings the wrapped range as two sends (or all processors when the range
 *       covers them).
 *
 * The destination time t + 1 is always valid (every dependence goes forward in time).
 * `gencost=N` adds the message-generation cost N to every cost annotation of the step nest's
 * body (the thesis: 8 ticks per element for FD) or, without annotations, to each send.
 * `lastsend=1` keeps the sends of the last time step, whose values nobody reads, as the thesis's
 * hand-written programs do: the dependences are then computed as if the step loop ran one more
 * step.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/ast_build.h>
#include <isl/id.h>
#include <isl/ilp.h>
#include <isl/val.h>

#include "xf_int.h"

static int is_call(const ir_expr *e, ir_func f) { return e && e->kind == IR_E_CALL && e->u.call.f == f && e->u.call.nargs == 2; }
static int is_bin(const ir_expr *e, ir_op op) { return e && e->kind == IR_E_BINARY && e->u.op.op == op; }

/* Recognises the step nest: untiled, or one of tile.c's forms. */
int xf_tiling_recognise(ir_program *p, xf_tiling *T)
{
    memset(T, 0, sizeof *T);
    ir_block *top = p->body;
    ir_stmt *outer = NULL;
    for (int i = 0; top && i < top->n; i++)
        if (top->stmts[i]->kind == IR_S_FOR) outer = top->stmts[i];
    if (!outer) return -1;
    T->t = &outer->u.for_.vars[0];
    ir_loopvar *v1;
    ir_block *b1;
    if (outer->u.for_.nvars == 2) {
        v1 = &outer->u.for_.vars[1];
        b1 = outer->u.for_.body;
    } else if (outer->u.for_.nvars == 1 && outer->u.for_.body->n == 1 &&
               outer->u.for_.body->stmts[0]->kind == IR_S_FOR &&
               outer->u.for_.body->stmts[0]->u.for_.nvars == 1) {
        v1 = &outer->u.for_.body->stmts[0]->u.for_.vars[0];
        b1 = outer->u.for_.body->stmts[0]->u.for_.body;
    } else {
        return -1;
    }
    if (v1->kind == IR_LOOP_PAR) {   /* untiled: p is the processor */
        T->k = TK_NONE;
        T->np = 1;
        T->pv[0] = v1->var;
        T->lo[0] = v1->lo;
        T->hi[0] = v1->hi;
        T->body = b1;
        return 0;
    }
    if (v1->kind != IR_LOOP_PROC || b1->n != 1 || b1->stmts[0]->kind != IR_S_FOR) return -1;
    const char *rp = v1->var;
    ir_stmt *in = b1->stmts[0];
    if (in->u.for_.nvars == 2) {   /* block2d */
        T->k = TK_BLOCK2D;
        T->np = 2;
        T->body = in->u.for_.body;
        for (int d = 0; d < 2; d++) {
            ir_loopvar *v = &in->u.for_.vars[d];
            /* lo = [lo_d +] rp OP q * b ; hi = min(lo + b, END) - 1 */
            const ir_expr *lo = v->lo, *mul = lo;
            if (is_bin(lo, IR_OP_ADD)) { T->p0[d] = lo->u.op.a; mul = lo->u.op.b; }
            if (!is_bin(mul, IR_OP_MUL) || !is_bin(mul->u.op.a, d ? IR_OP_MOD : IR_OP_DIV) ||
                mul->u.op.b->kind != IR_E_NAME || mul->u.op.a->u.op.b->kind != IR_E_NAME)
                return -1;
            T->b[d] = mul->u.op.b;
            T->q = mul->u.op.a->u.op.b->u.name.id;
            if (!is_bin(v->hi, IR_OP_SUB) || !is_call(v->hi->u.op.a, IR_F_MIN)) return -1;
            T->pv[d] = v->var;
            T->lo[d] = T->p0[d];   /* NULL = 0 */
            T->hi[d] = v->hi->u.op.a->u.call.args[1];   /* END; the range is lo .. END - 1 */
        }
        return 0;
    }
    if (in->u.for_.nvars != 1) return -1;
    ir_loopvar *v = &in->u.for_.vars[0];
    T->np = 1;
    if (v->step == NULL && is_call(v->lo, IR_F_MAX) && is_call(v->hi, IR_F_MIN) &&
        is_bin(v->lo->u.call.args[1], IR_OP_ADD) && is_bin(v->lo->u.call.args[1]->u.op.b, IR_OP_MUL)) {
        /* blocked: max(LO, P0 + rp * b) .. min(HI, ...) */
        T->k = TK_BLOCKED;
        T->lo[0] = v->lo->u.call.args[0];
        T->hi[0] = v->hi->u.call.args[0];
        T->p0[0] = v->lo->u.call.args[1]->u.op.a;
        T->b[0] = v->lo->u.call.args[1]->u.op.b->u.op.b;
        T->pv[0] = v->var;
        T->body = in->u.for_.body;
        return 0;
    }
    if (v->step && is_bin(v->lo, IR_OP_ADD) && is_bin(v->lo->u.op.b, IR_OP_MOD) &&
        is_bin(v->lo->u.op.b->u.op.a, IR_OP_SUB) && is_bin(v->lo->u.op.b->u.op.a->u.op.a, IR_OP_ADD)) {
        /* cyclic: LO + (P0 + rp - LO) % procs .. HI step procs */
        T->k = TK_CYCLIC;
        T->lo[0] = v->lo->u.op.a;
        T->hi[0] = v->hi;
        T->p0[0] = v->lo->u.op.b->u.op.a->u.op.a->u.op.a;
        T->pv[0] = v->var;
        T->body = in->u.for_.body;
        return 0;
    }
    if (v->step && v->step->kind == IR_E_NAME && !strcmp(v->step->u.name.id, "procs") &&
        v->lo->kind == IR_E_NAME && !strcmp(v->lo->u.name.id, rp) && is_bin(v->hi, IR_OP_DIV) &&
        is_bin(v->hi->u.op.a, IR_OP_SUB) && in->u.for_.body->n == 1 &&
        in->u.for_.body->stmts[0]->kind == IR_S_FOR && in->u.for_.body->stmts[0]->u.for_.nvars == 1) {
        /* blockcyclic: for kb = rp .. (P1 - P0) / bs step procs {
         *                for p = max(LO, P0 + kb * bs) .. min(HI, P0 + kb * bs + (bs - 1)) { body } } */
        ir_stmt *pf = in->u.for_.body->stmts[0];
        ir_loopvar *w = &pf->u.for_.vars[0];
        const char *kb = v->var;
        if (w->step || !is_call(w->lo, IR_F_MAX) || !is_call(w->hi, IR_F_MIN)) return -1;
        const ir_expr *first = w->lo->u.call.args[1];
        if (!is_bin(first, IR_OP_ADD) || !is_bin(first->u.op.b, IR_OP_MUL) ||
            first->u.op.b->u.op.a->kind != IR_E_NAME || strcmp(first->u.op.b->u.op.a->u.name.id, kb))
            return -1;
        T->k = TK_BLOCKCYCLIC;
        T->lo[0] = w->lo->u.call.args[0];
        T->hi[0] = w->hi->u.call.args[0];
        T->p0[0] = first->u.op.a;
        T->b[0] = first->u.op.b->u.op.b;
        T->p1 = v->hi->u.op.a->u.op.a;
        T->pv[0] = w->var;
        T->body = pf->u.for_.body;
        return 0;
    }
    return -1;   /* hand-written tilings: not recognised */
}

/* RP(e): the real processor owning virtual processor(s) e (np expressions). */
ir_expr *xf_tiling_rp(ir_program *p, const xf_tiling *T, ir_expr **e)
{
    ir_expr *x[2];
    for (int d = 0; d < T->np; d++)
        x[d] = T->p0[d] ? ir_new_binary(p, IR_OP_SUB, e[d], ir_clone_expr(p, T->p0[d])) : e[d];
    switch (T->k) {
    case TK_NONE: return e[0];
    case TK_BLOCKED: return ir_new_binary(p, IR_OP_DIV, x[0], ir_clone_expr(p, T->b[0]));
    case TK_CYCLIC: return ir_new_binary(p, IR_OP_MOD, x[0], ir_new_name(p, "procs"));
    case TK_BLOCKCYCLIC:
        return ir_new_binary(p, IR_OP_MOD, ir_new_binary(p, IR_OP_DIV, x[0], ir_clone_expr(p, T->b[0])),
                             ir_new_name(p, "procs"));
    case TK_BLOCK2D:
        return ir_new_binary(p, IR_OP_ADD,
                             ir_new_binary(p, IR_OP_MUL, ir_new_binary(p, IR_OP_DIV, x[0], ir_clone_expr(p, T->b[0])),
                                           ir_new_name(p, T->q)),
                             ir_new_binary(p, IR_OP_DIV, x[1], ir_clone_expr(p, T->b[1])));
    default: return NULL;
    }
}

/* The untiled step nest as a program of its own (for the model). */
ir_program *xf_tiling_untile(const ir_program *src, const xf_tiling *T0, diag_list *d)
{
    ir_program *u = ir_program_clone(src);
    xf_tiling T;
    if (xf_tiling_recognise(u, &T) != 0) return NULL;
    (void)T0;
    ir_stmt *f = ir_new_stmt(u, IR_S_FOR);
    f->u.for_.nvars = 1 + T.np;
    f->u.for_.vars = ir_alloc(u, (size_t)(1 + T.np) * sizeof *f->u.for_.vars);
    f->u.for_.vars[0] = *T.t;
    for (int k = 0; k < T.np; k++) {
        ir_loopvar *v = &f->u.for_.vars[1 + k];
        memset(v, 0, sizeof *v);
        v->var = T.pv[k];
        v->lo = T.lo[k] ? ir_clone_expr(u, T.lo[k]) : ir_new_int(u, 0);
        v->hi = T.k == TK_BLOCK2D ? ir_new_binary(u, IR_OP_SUB, ir_clone_expr(u, T.hi[k]), ir_new_int(u, 1))
                                  : ir_clone_expr(u, T.hi[k]);
        v->kind = k == 0 ? IR_LOOP_PAR : IR_LOOP_DEFAULT;
    }
    f->u.for_.body = T.body;
    /* a body that names the real processor (commgen's neighbour sends) gets it as a let */
    ir_stmt *outer = NULL;
    for (int i = 0; i < u->body->n; i++) if (u->body->stmts[i]->kind == IR_S_FOR) outer = u->body->stmts[i];
    if (T.k != TK_NONE && outer && outer->u.for_.nvars == 2) {
        ir_expr *pv[2];
        for (int k = 0; k < T.np; k++) pv[k] = ir_new_name(u, T.pv[k]);
        ir_stmt *l = ir_new_stmt(u, IR_S_LET);
        l->u.let.var = outer->u.for_.vars[1].var;
        l->u.let.value = xf_tiling_rp(u, &T, pv);
        ir_block *nb = ir_new_block(u);
        ir_block_append(u, nb, l);
        for (int i = 0; i < T.body->n; i++) ir_block_append(u, nb, T.body->stmts[i]);
        f->u.for_.body = nb;
    }
    /* keep the top-level lets, replace the nest */
    ir_block *nb = ir_new_block(u);
    for (int i = 0; i < u->body->n; i++)
        ir_block_append(u, nb, u->body->stmts[i]->kind == IR_S_FOR ? f : u->body->stmts[i]);
    u->body = nb;
    /* drop parameters only the xf_tiling needs? they are harmless: keep them */
    u->checked = 0;
    diag_list cd;
    diag_list_init(&cd);
    int bad = ir_check(u, &cd);
    if (bad) {
        diag_add(d, src->file, 0, 0, "commgen: internal error: the untiled step nest does not check");
        for (int i = 0; i < cd.n; i++) diag_add(d, NULL, cd.items[i].line, cd.items[i].col, "  %s", cd.items[i].msg);
        ir_program_free(u);
        u = NULL;
    }
    diag_list_free(&cd);
    return u;
}

/* isl → IR in terms of the statement's variables: they become parameters of a build whose
 * context is the statement's domain. */
typedef struct exprctx { isl_ast_build *b; int nv; unsigned np; } exprctx;

isl_set *xf_vars_as_params(isl_set *set, unsigned np, const xf_stmt *st)
{
    unsigned nv = (unsigned)st->nvars;
    set = isl_set_move_dims(set, isl_dim_param, np, isl_dim_set, 0, nv);
    for (unsigned i = 0; i < nv; i++) set = isl_set_set_dim_name(set, isl_dim_param, np + i, st->vars[i]);
    return set;
}

isl_pw_aff *xf_pa_vars_as_params(isl_pw_aff *pa, unsigned np, const xf_stmt *st)
{
    unsigned nv = (unsigned)st->nvars;
    pa = isl_pw_aff_move_dims(pa, isl_dim_param, np, isl_dim_in, 0, nv);
    isl_ctx *ctx = isl_pw_aff_get_ctx(pa);
    for (unsigned i = 0; i < nv; i++)
        pa = isl_pw_aff_set_dim_id(pa, isl_dim_param, np + i, isl_id_alloc(ctx, st->vars[i], NULL));
    return isl_pw_aff_project_domain_on_params(pa);
}

ir_expr *xf_expr_of_pa(ir_program *p, isl_ast_build *b, isl_pw_aff *pa)
{
    isl_ast_expr *e = isl_ast_build_expr_from_pw_aff(b, pa);
    ir_expr *r = e ? xf_ast_expr(p, e, NULL) : NULL;
    isl_ast_expr_free(e);
    return r;
}

ir_expr *xf_expr_of_set(ir_program *p, isl_ast_build *b, isl_set *s)
{
    if (isl_set_plain_is_universe(s) == isl_bool_true) {
        isl_set_free(s);
        return NULL;
    }
    s = isl_set_params(s);
    isl_ast_expr *e = isl_ast_build_expr_from_set(b, s);
    ir_expr *r = e ? xf_ast_expr(p, e, NULL) : NULL;
    isl_ast_expr_free(e);
    if (r && r->kind == IR_E_INT && r->u.ival != 0) r = NULL;   /* always true: no guard */
    return r;
}

static ir_expr *and_(ir_program *p, ir_expr *a, ir_expr *b)
{
    return !a ? b : !b ? a : ir_new_binary(p, IR_OP_AND, a, b);
}

/* Finds the assignment labelled `label` and its block. */
static int find_assign(ir_block *b, const char *label, ir_block **blk, int *pos)
{
    for (int i = 0; b && i < b->n; i++) {
        ir_stmt *s = b->stmts[i];
        if (s->kind == IR_S_ASSIGN && s->u.assign.label && !strcmp(s->u.assign.label, label)) {
            *blk = b;
            *pos = i;
            return 1;
        }
        if (s->kind == IR_S_IF && (find_assign(s->u.if_.then_blk, label, blk, pos) ||
                                   find_assign(s->u.if_.else_blk, label, blk, pos)))
            return 1;
        if (s->kind == IR_S_FOR && find_assign(s->u.for_.body, label, blk, pos)) return 1;
    }
    return 0;
}

static void insert_after(ir_program *p, ir_block *b, int pos, ir_stmt *s)
{
    ir_stmt **ns = ir_alloc(p, (size_t)(b->n + 1) * sizeof *ns);
    for (int i = 0, k = 0; i <= b->n; i++) ns[i] = i == pos + 1 ? s : b->stmts[k++];
    b->stmts = ns;
    b->n++;
}

static ir_stmt *mk_send(ir_program *p, const ir_expr *what, ir_expr *lo, ir_expr *hi, const char *tv,
                        ir_expr *when)
{
    ir_stmt *s = ir_new_stmt(p, IR_S_SEND);
    s->u.send.what = ir_clone_expr(p, what);
    s->u.send.to_lo = lo;
    s->u.send.to_hi = hi;
    s->u.send.at = ir_new_binary(p, IR_OP_ADD, ir_new_name(p, tv), ir_new_int(p, 1));
    s->u.send.when = when;
    return s;
}

static void add_cost(ir_program *p, ir_block *b, int64_t n, int *found);
static void add_cost_stmt(ir_program *p, ir_stmt *s, int64_t n, int *found)
{
    if (s->cost && s->cost->kind == IR_E_INT) { s->cost->u.ival += n; *found = 1; }
    if (s->kind == IR_S_IF) { add_cost(p, s->u.if_.then_blk, n, found); add_cost(p, s->u.if_.else_blk, n, found); }
    if (s->kind == IR_S_FOR) add_cost(p, s->u.for_.body, n, found);
}
static void add_cost(ir_program *p, ir_block *b, int64_t n, int *found)
{
    if (!b) return;
    if (b->cost && b->cost->kind == IR_E_INT) { b->cost->u.ival += n; *found = 1; return; }
    for (int i = 0; i < b->n; i++) add_cost_stmt(p, b->stmts[i], n, found);
}

static void send_cost(ir_program *p, ir_block *b, int64_t n)
{
    for (int i = 0; b && i < b->n; i++) {
        ir_stmt *s = b->stmts[i];
        if (s->kind == IR_S_SEND && !s->cost) s->cost = ir_new_int(p, n);
        if (s->kind == IR_S_IF) { send_cost(p, s->u.if_.then_blk, n); send_cost(p, s->u.if_.else_blk, n); }
        if (s->kind == IR_S_FOR) send_cost(p, s->u.for_.body, n);
    }
}

/* A send one virtual processor away in a blocked tiling (blocked, block2d) leaves the block
 * only from its edge, to the neighbouring real processor: RP(p - 1) != RP(p) is
 * (p - P0) % b == 0 and RP(p - 1) = rp - 1 (rp - q across the rows of a block2d grid); for
 * p + 1, (p - P0 + 1) % b == 0 and rp + 1 (rp + q).  The thesis's form of the FD sends; one
 * comparison as before, so the cost is the same. */
static void neighbour(ir_program *p, const xf_tiling *T, const long long *delta, ir_expr **dst, ir_expr **cross)
{
    if (T->k != TK_BLOCKED && T->k != TK_BLOCK2D) return;
    int k = -1;
    for (int q = 0; q < T->np; q++) {
        if (delta[q] == 0) continue;
        if (k >= 0 || (delta[q] != 1 && delta[q] != -1)) return;
        k = q;
    }
    if (k < 0) return;
    ir_stmt *outer = NULL;
    for (int i = 0; i < p->body->n; i++) if (p->body->stmts[i]->kind == IR_S_FOR) outer = p->body->stmts[i];
    if (!outer || outer->u.for_.nvars != 2) return;
    const char *rpv = outer->u.for_.vars[1].var;
    ir_expr *x = ir_new_name(p, T->pv[k]);
    if (T->p0[k]) x = ir_new_binary(p, IR_OP_SUB, x, ir_clone_expr(p, T->p0[k]));
    if (delta[k] > 0) x = ir_new_binary(p, IR_OP_ADD, x, ir_new_int(p, 1));
    *cross = ir_new_binary(p, IR_OP_EQ, ir_new_binary(p, IR_OP_MOD, x, ir_clone_expr(p, T->b[T->k == TK_BLOCK2D ? k : 0])),
                           ir_new_int(p, 0));
    ir_expr *stride = T->k == TK_BLOCK2D && k == 0 ? ir_new_name(p, T->q) : ir_new_int(p, 1);
    *dst = ir_new_binary(p, delta[k] > 0 ? IR_OP_ADD : IR_OP_SUB, ir_new_name(p, rpv), stride);
}

int xf_commgen_applicable(const ir_program *p, char **why_not)
{
    if (p->level != IR_SYN) {
        *why_not = xf_asprintf("commgen turns a syn program into a syncomm one (this one is %s)",
                               ir_level_name(p->level));
        return 0;
    }
    ir_program *c = ir_program_clone(p);
    xf_tiling T;
    int ok = xf_tiling_recognise(c, &T) == 0;
    ir_program_free(c);
    if (!ok) *why_not = xf_asprintf("the step nest is not one stm and tile produce");
    return ok;
}

/* The untiled program with one more time step (for lastsend=1): the step loop's upper bound + 1,
 * checked again. */
static int extend_time(ir_program *u, diag_list *d)
{
    for (int i = 0; i < u->body->n; i++) {
        ir_stmt *s = u->body->stmts[i];
        if (s->kind != IR_S_FOR) continue;
        ir_loopvar *t = &s->u.for_.vars[0];
        t->hi = ir_new_binary(u, IR_OP_ADD, t->hi, ir_new_int(u, 1));
        return ir_check(u, d) == 0 ? 0 : -1;
    }
    diag_add(d, u->file, 0, 0, "commgen: no step loop found");
    return -1;
}

ir_program *xf_commgen_apply(const ir_program *src, const xf_args *args, diag_list *d, int *status)
{
    *status = XF_EUSAGE;
    int64_t gencost = 0;
    for (int i = 0; i < args->n; i++)
        if ((strcmp(args->items[i].key, "gencost") && strcmp(args->items[i].key, "lastsend")) ||
            args->items[i].label) {
            diag_add(d, NULL, 0, 0, "commgen: unknown parameter '%s' (gencost, lastsend)",
                     args->items[i].key);
            return NULL;
        }
    const char *ls = xf_args_get(args, "lastsend", NULL);
    if (!ls) ls = "0";
    if (strcmp(ls, "0") && strcmp(ls, "1")) {
        diag_add(d, NULL, 0, 0, "commgen: lastsend=%s: expected 0 or 1", ls);
        return NULL;
    }
    int lastsend = ls[0] == '1';
    const char *gc = xf_args_get(args, "gencost", NULL);
    if (gc) {
        char *end;
        gencost = strtoll(gc, &end, 10);
        if (!*gc || *end || gencost < 0) {
            diag_add(d, NULL, 0, 0, "commgen: gencost=%s: expected ticks >= 0", gc);
            return NULL;
        }
    }
    *status = XF_EREFUSED;
    /* applicability was checked by the registry (xf_apply_with) before this call */
    ir_program *out = ir_program_clone(src);
    xf_tiling T;
    xf_tiling_recognise(out, &T);
    ir_program *u = xf_tiling_untile(src, &T, d);
    if (u && lastsend && extend_time(u, d) != 0) { ir_program_free(u); u = NULL; }
    if (!u) { ir_program_free(out); return NULL; }
    xf_model *m = xf_model_build(u, args->bindings, args->nbindings, 0, d);
    if (!m) { ir_program_free(u); ir_program_free(out); return NULL; }
    xf_rawdep *r = NULL;
    int nr = 0;
    xf_model_deps(m, &r, &nr, d);
    unsigned np = (unsigned)m->npnames;
    int ok = 1, nsends = 0;
    int *done = calloc((size_t)nr + 1, sizeof *done);
    for (int i = 0; i < nr && ok; i++) {
        if (r[i].kind != XF_DEP_FLOW || done[i]) continue;
        int a = r[i].src;
        const xf_stmt *st = &m->st[a];
        if (st->nvars < 1 + T.np) { done[i] = 1; continue; }
        /* the relation onto the sink's processor dimensions */
        isl_map *dp = isl_map_copy(r[i].rel);
        unsigned nout = (unsigned)isl_map_dim(dp, isl_dim_out);
        dp = isl_map_project_out(dp, isl_dim_out, (unsigned)(1 + T.np), nout - 1 - (unsigned)T.np);
        dp = isl_map_project_out(dp, isl_dim_out, 0, 1);
        /* uniform? p' - p(x) fixed */
        isl_map *pp = isl_map_copy(dp);
        unsigned nin = (unsigned)isl_map_dim(pp, isl_dim_in);
        pp = isl_map_project_out(pp, isl_dim_in, (unsigned)(1 + T.np), nin - 1 - (unsigned)T.np);
        pp = isl_map_project_out(pp, isl_dim_in, 0, 1);
        pp = isl_map_reset_tuple_id(isl_map_reset_tuple_id(pp, isl_dim_in), isl_dim_out);
        isl_set *dl = isl_set_detect_equalities(isl_map_deltas(pp));
        long long delta[2] = {0, 0};
        int uniform = 1, zero = 1;
        for (int k = 0; k < T.np; k++) {
            isl_val *v = isl_set_plain_get_val_if_fixed(dl, isl_dim_set, (unsigned)k);
            if (v && isl_val_is_int(v)) delta[k] = isl_val_get_num_si(v); else uniform = 0;
            isl_val_free(v);
            if (delta[k]) zero = 0;
        }
        isl_set_free(dl);
        /* the build: the source statement's variables as parameters, its domain as context */
        isl_set *dom = xf_model_domain(m, a);
        isl_ast_build *b = isl_ast_build_from_context(isl_set_params(xf_vars_as_params(isl_set_copy(dom), np, st)));
        ir_block *blk = NULL;
        int pos = 0;
        const xf_tiling To = T;
        if (!st->assign->u.assign.label || !find_assign(T.body, st->assign->u.assign.label, &blk, &pos)) {
            diag_add(d, src->file, st->assign->pos.line, 0, "commgen: statement %s not found", st->name);
            ok = 0;
        } else if (uniform && zero) {
            done[i] = 1;   /* same virtual processor: never sent */
        } else if (uniform) {
            done[i] = 1;
            isl_set *src_dom = isl_map_domain(isl_map_copy(r[i].rel));
            ir_expr *g = xf_expr_of_set(out, b, xf_vars_as_params(src_dom, np, st));
            ir_expr *here[2], *there[2];
            for (int k = 0; k < T.np; k++) {
                here[k] = ir_new_name(out, T.pv[k]);
                there[k] = delta[k] ? ir_new_binary(out, delta[k] > 0 ? IR_OP_ADD : IR_OP_SUB,
                                                    ir_new_name(out, T.pv[k]), ir_new_int(out, llabs(delta[k])))
                                    : ir_new_name(out, T.pv[k]);
            }
            ir_expr *dst = xf_tiling_rp(out, &To, there);
            ir_expr *me = xf_tiling_rp(out, &To, here);
            ir_expr *cross = T.k == TK_NONE ? NULL : ir_new_binary(out, IR_OP_NE, ir_clone_expr(out, dst), me);
            neighbour(out, &To, delta, &dst, &cross);
            ir_expr *when = and_(out, g, cross);
            insert_after(out, blk, pos, mk_send(out, st->assign->u.assign.lhs, dst, NULL, T.t->var, when));
            nsends++;
        } else if (T.np != 1) {
            diag_add(d, src->file, st->assign->pos.line, 0,
                     "commgen: dependence %d (%s -> %s) is not uniform in the two processor dimensions: "
                     "not supported yet", i + 1, m->st[a].name, m->st[r[i].sink].name);
            ok = 0;
        } else {
            /* merge this statement's non-uniform dependences while their sinks stay a range */
            isl_map *un = isl_map_copy(dp);
            done[i] = 1;
            for (int j = i + 1; j < nr; j++) {
                if (done[j] || r[j].kind != XF_DEP_FLOW || r[j].src != a) continue;
                isl_map *dj = isl_map_copy(r[j].rel);
                unsigned no = (unsigned)isl_map_dim(dj, isl_dim_out);
                dj = isl_map_project_out(dj, isl_dim_out, 2, no - 2);
                dj = isl_map_project_out(dj, isl_dim_out, 0, 1);
                dj = isl_map_reset_tuple_id(dj, isl_dim_out);
                isl_map *cand = isl_map_union(isl_map_reset_tuple_id(isl_map_copy(un), isl_dim_out), isl_map_copy(dj));
                /* a range: every p between lexmin and lexmax is a sink's */
                isl_map *lo = isl_map_lexmin(isl_map_copy(cand)), *hi = isl_map_lexmax(isl_map_copy(cand));
                isl_map *box = isl_map_intersect(isl_map_apply_range(lo, isl_map_lex_le(isl_space_set_alloc(m->ctx, 0, 1))),
                                                 isl_map_apply_range(hi, isl_map_lex_ge(isl_space_set_alloc(m->ctx, 0, 1))));
                int range = isl_map_is_subset(box, cand) == isl_bool_true;
                isl_map_free(box);
                isl_map_free(dj);
                if (range && r[j].src == a) {
                    isl_map_free(un);
                    un = cand;
                    done[j] = 1;
                } else {
                    isl_map_free(cand);
                }
            }
            un = isl_map_reset_tuple_id(un, isl_dim_out);
            isl_set *sdom = isl_map_domain(isl_map_copy(un));
            isl_pw_multi_aff *lmin = isl_map_lexmin_pw_multi_aff(isl_map_copy(un));
            isl_pw_multi_aff *lmax = isl_map_lexmax_pw_multi_aff(un);
            isl_pw_aff *pmin = isl_pw_multi_aff_get_pw_aff(lmin, 0);   /* keeps lmin */
            isl_pw_aff *pmax = isl_pw_multi_aff_get_pw_aff(lmax, 0);
            isl_pw_multi_aff_free(lmin);
            isl_pw_multi_aff_free(lmax);
            ir_expr *g = xf_expr_of_set(out, b, xf_vars_as_params(sdom, np, st));
            ir_expr *lo = xf_expr_of_pa(out, b, xf_pa_vars_as_params(pmin, np, st));
            ir_expr *hi = xf_expr_of_pa(out, b, xf_pa_vars_as_params(pmax, np, st));
            if (!lo || !hi) {
                diag_add(d, src->file, st->assign->pos.line, 0,
                         "commgen: the destinations of %s's values are not expressible in the language", st->name);
                ok = 0;
            } else if (T.k == TK_CYCLIC || T.k == TK_BLOCKCYCLIC) {
                /* consecutive virtual processors (blocks) are consecutive real ones, modulo procs;
                 * len counts the blocks lo .. hi touch (blocks of 1 for cyclic) */
                ir_expr *len;
                if (T.k == TK_CYCLIC) {
                    len = ir_new_binary(out, IR_OP_ADD, ir_new_binary(out, IR_OP_SUB, ir_clone_expr(out, hi),
                                                                      ir_clone_expr(out, lo)), ir_new_int(out, 1));
                } else {
                    ir_expr *kh = ir_new_binary(out, IR_OP_DIV, ir_new_binary(out, IR_OP_SUB, ir_clone_expr(out, hi),
                                                                              ir_clone_expr(out, T.p0[0])),
                                                ir_clone_expr(out, T.b[0]));
                    ir_expr *kl = ir_new_binary(out, IR_OP_DIV, ir_new_binary(out, IR_OP_SUB, ir_clone_expr(out, lo),
                                                                              ir_clone_expr(out, T.p0[0])),
                                                ir_clone_expr(out, T.b[0]));
                    len = ir_new_binary(out, IR_OP_ADD, ir_new_binary(out, IR_OP_SUB, kh, kl), ir_new_int(out, 1));
                }
                ir_expr *all = ir_new_binary(out, IR_OP_GE, ir_clone_expr(out, len), ir_new_name(out, "procs"));
                ir_expr *some = ir_new_binary(out, IR_OP_LT, len, ir_new_name(out, "procs"));
                ir_expr *l1[1] = {ir_clone_expr(out, lo)}, *h1[1] = {ir_clone_expr(out, hi)};
                ir_expr *rlo = xf_tiling_rp(out, &To, l1), *rhi = xf_tiling_rp(out, &To, h1);
                ir_expr *nowrap = ir_new_binary(out, IR_OP_LE, ir_clone_expr(out, rlo), ir_clone_expr(out, rhi));
                ir_expr *wrap = ir_new_binary(out, IR_OP_GT, ir_clone_expr(out, rlo), ir_clone_expr(out, rhi));
                ir_stmt *s4 = mk_send(out, st->assign->u.assign.lhs, ir_new_int(out, 0), ir_clone_expr(out, rhi), T.t->var,
                                      and_(out, g ? ir_clone_expr(out, g) : NULL, and_(out, ir_clone_expr(out, some), ir_clone_expr(out, wrap))));
                ir_stmt *s3 = mk_send(out, st->assign->u.assign.lhs, ir_clone_expr(out, rlo),
                                      ir_new_binary(out, IR_OP_SUB, ir_new_name(out, "procs"), ir_new_int(out, 1)), T.t->var,
                                      and_(out, g ? ir_clone_expr(out, g) : NULL, and_(out, ir_clone_expr(out, some), wrap)));
                ir_stmt *s2 = mk_send(out, st->assign->u.assign.lhs, rlo, rhi, T.t->var,
                                      and_(out, g ? ir_clone_expr(out, g) : NULL, and_(out, some, nowrap)));
                ir_stmt *s1 = mk_send(out, st->assign->u.assign.lhs, ir_new_int(out, 0),
                                      ir_new_binary(out, IR_OP_SUB, ir_new_name(out, "procs"), ir_new_int(out, 1)), T.t->var,
                                      and_(out, g, all));
                insert_after(out, blk, pos, s4);
                insert_after(out, blk, pos, s3);
                insert_after(out, blk, pos, s2);
                insert_after(out, blk, pos, s1);
                nsends += 4;
            } else {
                ir_expr *l1[1] = {lo}, *h1[1] = {hi};
                insert_after(out, blk, pos, mk_send(out, st->assign->u.assign.lhs, xf_tiling_rp(out, &To, l1),
                                                    xf_tiling_rp(out, &To, h1), T.t->var, g));
                nsends++;
            }
        }
        isl_ast_build_free(b);
        isl_set_free(dom);
        isl_map_free(dp);
    }
    free(done);
    xf_rawdeps_free(r, nr);
    xf_model_free(m);
    ir_program_free(u);
    if (!ok) { ir_program_free(out); return NULL; }
    if (gencost) {
        int found = 0;
        add_cost(out, T.body, gencost, &found);
        if (!found) send_cost(out, T.body, gencost);   /* no annotations: the sends carry it */
    }
    out->level = IR_SYNCOMM;
    xf_simplify_program(out);
    xf_rename_for_level(out, src, "syn", "syncomm");
    if (xf_check_generated("commgen", out, d) != 0) return NULL;
    (void)nsends;
    *status = XF_OK;
    return out;
}
