/*
 * commgen.c — communication generation (syn → syncomm): owner computes; after a statement
 * writes an element, it sends the element to every other real processor that reads it later.
 *
 * The dependences are computed on the untiled step nest (`for t seq, p par`), which is affine:
 * for a tiled program (the forms tile.c produces: blocked, cyclic, blockcyclic, block2d) the
 * untiled nest is recovered from the tiled loop bounds, and the real processor of a virtual
 * one is the xf_tiling's function RP(p) (blocked: (p - P0) / b, cyclic: (p - P0) % procs, ...).
 * The flow dependences are value-based (deps.c: isl's dataflow analysis, the last write before
 * each read), so programs that update arrays in place send only the values reads use, never an
 * intermediate one; pairs on one virtual processor are dropped first.  Per statement A:
 *
 *   uniform in the processor dimensions (p' = p + δ, the finite differences): one send per δ
 *   (all of A's dependences with that δ together, so a value goes once to each processor)
 *       send e to RP(p + δ) at t + 1 when <a sink exists> && RP(p + δ) != RP(p)
 *   otherwise (one processor dimension, LU): the sinks' virtual processors form a range
 *       pmin(x) .. pmax(x) (isl's lexmin/lexmax); dependences of one statement whose ranges
 *       together stay a range are merged (the thesis merged LU's dependences 3 and 5 by hand):
 *       send e to RP(pmin) .. RP(pmax) at t + 1 when <a sink exists>   (blocked / untiled)
 *       and for cyclic tilings the wrapped range as two sends (or all processors when the range
 *       covers them).
 *
 * The destination time t + 1 is valid when every dependence between two virtual processors goes
 * strictly forward in time (flow: the value arrives before the read; anti: the next value after
 * the read; output: newer values later, since a delivery overwrites the receiver's copy);
 * check_timing refuses a program where one does not.
 * A send whose guard holds at the last iteration of the loop around it alone (an element a loop
 * accumulates into) moves after that loop (commgen_hoist.c): its guard is tested once, not on
 * every iteration.
 * `gencost=N` adds the message-generation cost N to every cost annotation of the step nest's
 * body (the thesis: 8 ticks per element for FD) or, without annotations, to each send.
 * `lastsend=1` keeps the sends of the last time step, whose values nobody reads, as the thesis's
 * hand-written programs do: the dependences are then computed as if the step loop ran one more
 * step.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/ast_build.h>
#include <isl/id.h>
#include <isl/ilp.h>
#include <isl/val.h>

#include "distribute_int.h"
#include "entries_int.h"

static int is_call(const ir_expr *e, ir_func f) { return e && e->kind == IR_E_CALL && e->u.call.f == f && e->u.call.nargs == 2; }
static int is_bin(const ir_expr *e, ir_op op) { return e && e->kind == IR_E_BINARY && e->u.op.op == op; }

/* Recognises the step nest: untiled, or one of tile.c's forms. */
int xf_tiling_recognise(ir_program *p, xf_tiling *T)
{
    memset(T, 0, sizeof *T);
    ir_step_nest n;
    if (ir_step_nest_find(p->body, &n) != IR_NEST_OK || n.trailing
        || n.pidx != n.pfor->u.for_.nvars - 1)   /* stm and tile make nothing inside p's for */
        return -1;
    T->t = &n.tfor->u.for_.vars[0];
    ir_loopvar *v1 = &n.pfor->u.for_.vars[n.pidx];
    ir_block *b1 = n.pfor->u.for_.body;
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
    assert(T->np == 1 || T->np == 2);
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

__isl_give isl_set *xf_vars_as_params(__isl_take isl_set *set, unsigned np, const xf_stmt *st)
{
    unsigned nv = (unsigned)st->nvars;
    set = isl_set_move_dims(set, isl_dim_param, np, isl_dim_set, 0, nv);
    for (unsigned i = 0; i < nv; i++) set = isl_set_set_dim_name(set, isl_dim_param, np + i, st->vars[i]);
    return set;
}

__isl_give isl_pw_aff *xf_pa_vars_as_params(__isl_take isl_pw_aff *pa, unsigned np,
                                             const xf_stmt *st)
{
    unsigned nv = (unsigned)st->nvars;
    pa = isl_pw_aff_move_dims(pa, isl_dim_param, np, isl_dim_in, 0, nv);
    isl_ctx *ctx = isl_pw_aff_get_ctx(pa);
    for (unsigned i = 0; i < nv; i++)
        pa = isl_pw_aff_set_dim_id(pa, isl_dim_param, np + i, isl_id_alloc(ctx, st->vars[i], NULL));
    return isl_pw_aff_project_domain_on_params(pa);
}

ir_expr *xf_expr_of_pa(ir_program *p, __isl_keep isl_ast_build *b, __isl_take isl_pw_aff *pa)
{
    isl_ast_expr *e = isl_ast_build_expr_from_pw_aff(b, pa);
    ir_expr *r = e ? xf_ast_expr(p, e, NULL) : NULL;
    isl_ast_expr_free(e);
    return r;
}

ir_expr *xf_expr_of_set(ir_program *p, __isl_keep isl_ast_build *b, __isl_take isl_set *s)
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
        *why_not = xasprintf("commgen turns a syn program into a syncomm one (this one is %s)",
                               ir_level_name(p->level));
        return 0;
    }
    ir_program *c = ir_program_clone(p);
    xf_tiling T;
    int ok = xf_tiling_recognise(c, &T) == 0;
    ir_program_free(c);
    if (!ok) *why_not = xasprintf("the step nest is not one stm and tile produce");
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


/* ---- from dependences to sends ----------------------------------------------------------------- */

/* One flow dependence as messages: each source instance -> the virtual processors of its sinks,
 * without the pairs on the source's own virtual processor (the value is in place there).  The
 * dependences are value-based (the last write before each read, deps.c), so only the value a
 * read really uses travels, never an intermediate one that is overwritten before the read. */
typedef struct cg_flow {
    int dep;                   /* index of the raw dependence */
    int src, sink;             /* statements */
    isl_map *dst;              /* owned: source instance -> sink's virtual processor(s) */
    int uniform;               /* p' - p is one vector for every pair */
    long long delta[2];
    int done;
} cg_flow;

/* What the emitters share. */
typedef struct cg {
    ir_program *out;           /* the program being built */
    const ir_program *src;
    xf_tiling T;               /* pointers into out */
    const xf_model *m;         /* of the untiled nest */
    diag_list *d;
    unsigned npar;             /* the model's parameters */
} cg;

/* The pairs of `rel` (source instance -> a map whose out dimensions start with the sink's
 * processor dimensions at `out0`) that stay on one virtual processor. */
static __isl_give isl_map *on_one_processor(__isl_take isl_map *rel, int np, unsigned out0)
{
    for (int k = 0; k < np; k++) rel = isl_map_equate(rel, isl_dim_in, 1 + k, isl_dim_out, out0 + (unsigned)k);
    return rel;
}

/* p' - p when it is one vector for all pairs of dst (source instance -> p'): 1 and delta. */
static int fixed_delta(__isl_keep isl_map *dst, int np, long long *delta)
{
    isl_map *pp = isl_map_copy(dst);
    unsigned nin = (unsigned)isl_map_dim(pp, isl_dim_in);
    pp = isl_map_project_out(pp, isl_dim_in, (unsigned)(1 + np), nin - 1 - (unsigned)np);
    pp = isl_map_project_out(pp, isl_dim_in, 0, 1);
    pp = isl_map_reset_tuple_id(isl_map_reset_tuple_id(pp, isl_dim_in), isl_dim_out);
    isl_set *dl = isl_set_detect_equalities(isl_map_deltas(pp));
    int uniform = 1;
    for (int k = 0; k < np; k++) {
        isl_val *v = isl_set_plain_get_val_if_fixed(dl, isl_dim_set, (unsigned)k);
        if (v && isl_val_is_int(v)) delta[k] = isl_val_get_num_si(v); else uniform = 0;
        isl_val_free(v);
    }
    isl_set_free(dl);
    return uniform;
}

/* The flow dependences between statements of the step nest, as messages (an array the caller
 * frees with flows_free; *n of them). */
static cg_flow *flows_collect(const xf_model *m, const xf_rawdep *r, int nr, int np, int *n)
{
    cg_flow *f = xcalloc((size_t)nr + 1, sizeof *f);
    int k = 0;
    for (int i = 0; i < nr; i++) {
        if (r[i].kind != XF_DEP_FLOW) continue;
        if (m->st[r[i].src].nvars < 1 + np || m->st[r[i].sink].nvars < 1 + np) continue;
        isl_map *dp = isl_map_copy(r[i].rel);
        unsigned nout = (unsigned)isl_map_dim(dp, isl_dim_out);
        dp = isl_map_project_out(dp, isl_dim_out, (unsigned)(1 + np), nout - 1 - (unsigned)np);
        dp = isl_map_project_out(dp, isl_dim_out, 0, 1);
        dp = isl_map_reset_tuple_id(dp, isl_dim_out);
        dp = isl_map_subtract(dp, on_one_processor(isl_map_copy(dp), np, 0));
        if (isl_map_is_empty(dp) != isl_bool_false) {
            isl_map_free(dp);
            continue;
        }
        f[k] = (cg_flow){.dep = i, .src = r[i].src, .sink = r[i].sink, .dst = dp};
        f[k].uniform = fixed_delta(dp, np, f[k].delta);
        k++;
    }
    *n = k;
    return f;
}

static void flows_free(cg_flow *f, int n)
{
    for (int i = 0; i < n; i++) isl_map_free(f[i].dst);
    free(f);
}

static const char *const dep_timing_why[] = {
    [XF_DEP_FLOW] = "the value is read before its message can arrive (a message arrives for the "
                    "step after its write)",
    [XF_DEP_ANTI] = "the next value's message could arrive before this read of the element's "
                    "current value",
    [XF_DEP_OUTPUT] = "the messages of the two values could arrive in the wrong order (or in one step)",
};

/* Messages go at t + 1 from the processor of the last write; the receiver's copy is
 * overwritten by each delivery.  That is right when every dependence between two virtual
 * processors goes strictly forward in time — flow: the read comes after the delivery; anti: the
 * newer value arrives after the older one's read; output: the newer value arrives after the
 * older — and one on a single virtual processor does not go backward.  0, or -1 with a message
 * naming the first dependence that does not. */
static int check_timing(const cg *c, const xf_rawdep *r, int nr)
{
    int np = c->T.np;
    for (int i = 0; i < nr; i++) {
        const xf_stmt *a = &c->m->st[r[i].src], *b = &c->m->st[r[i].sink];
        if (a->nvars < 1 + np || b->nvars < 1 + np) continue;
        isl_map *same = on_one_processor(isl_map_copy(r[i].rel), np, 1);
        isl_map *other = isl_map_subtract(isl_map_copy(r[i].rel), isl_map_copy(same));
        isl_map *bad = isl_map_union(isl_map_order_gt(same, isl_dim_in, 0, isl_dim_out, 0),
                                     isl_map_order_ge(other, isl_dim_in, 0, isl_dim_out, 0));
        int none = isl_map_is_empty(bad) == isl_bool_true;
        if (!none) {
            char *ex = xf_example(c->m, bad);
            diag_add(c->d, c->src->file, b->assign->pos.line, 0,
                     "commgen: dependence %d (%s, %s -> %s through %s) cannot be served by messages: "
                     "%s; for example %s (the first dimension is the step)",
                     i + 1, xf_dep_kind_name(r[i].kind), a->name, b->name, c->m->acc[r[i].acc].text,
                     dep_timing_why[r[i].kind], ex);
            free(ex);
        }
        isl_map_free(bad);
        if (!none) return -1;
    }
    return 0;
}

/* Inserts a copy of `s` after every assignment labelled `label` in b (isl's code generation
 * may place a statement more than once; the send's guard is in the statement's own variables,
 * so it holds at each place for the instances there).  Returns the places. */
static int insert_after_label(ir_program *p, ir_block *b, const char *label, const ir_stmt *s)
{
    int n = 0;
    for (int i = 0; b && i < b->n; i++) {
        ir_stmt *x = b->stmts[i];
        if (x->kind == IR_S_ASSIGN && x->u.assign.label && !strcmp(x->u.assign.label, label)) {
            insert_after(p, b, i, ir_clone_stmt(p, s));
            i++;
            n++;
        } else if (x->kind == IR_S_IF) {
            n += insert_after_label(p, x->u.if_.then_blk, label, s) + insert_after_label(p, x->u.if_.else_blk, label, s);
        } else if (x->kind == IR_S_FOR) {
            n += insert_after_label(p, x->u.for_.body, label, s);
        }
    }
    return n;
}

/* A send of statement st's element with the given destinations and guard, after the statement. */
static void add_send(cg *c, const xf_stmt *st, ir_expr *lo, ir_expr *hi, ir_expr *when)
{
    ir_stmt *s = mk_send(c->out, st->assign->u.assign.lhs, lo, hi, c->T.t->var, when);
    insert_after_label(c->out, c->T.body, st->assign->u.assign.label, s);
}

/* The build for statement a's expressions: its variables as parameters, its domain as context. */
static __isl_give isl_ast_build *stmt_build(const cg *c, int a)
{
    isl_set *dom = xf_model_domain(c->m, a);
    return isl_ast_build_from_context(isl_set_params(xf_vars_as_params(dom, c->npar, &c->m->st[a])));
}

/* Sends to the virtual processor p + delta of the instances in `srcdom`. */
static void send_uniform(cg *c, int a, const long long *delta, __isl_take isl_set *srcdom)
{
    const xf_stmt *st = &c->m->st[a];
    const xf_tiling *T = &c->T;
    isl_ast_build *b = stmt_build(c, a);
    ir_program *out = c->out;
    srcdom = isl_set_coalesce(isl_set_gist(srcdom, xf_model_domain(c->m, a)));
    ir_expr *g = xf_expr_of_set(out, b, xf_vars_as_params(srcdom, c->npar, st));
    isl_ast_build_free(b);
    ir_expr *here[2], *there[2];
    for (int k = 0; k < T->np; k++) {
        here[k] = ir_new_name(out, T->pv[k]);
        there[k] = delta[k] ? ir_new_binary(out, delta[k] > 0 ? IR_OP_ADD : IR_OP_SUB,
                                            ir_new_name(out, T->pv[k]), ir_new_int(out, llabs(delta[k])))
                            : ir_new_name(out, T->pv[k]);
    }
    ir_expr *dst = xf_tiling_rp(out, T, there);
    ir_expr *me = xf_tiling_rp(out, T, here);
    ir_expr *cross = T->k == TK_NONE ? NULL : ir_new_binary(out, IR_OP_NE, ir_clone_expr(out, dst), me);
    neighbour(out, T, delta, &dst, &cross);
    add_send(c, st, dst, NULL, and_(out, g, cross));
}

/* Cyclic and blockcyclic tilings: consecutive virtual processors (blocks) are consecutive real
 * ones, modulo procs; the range lo .. hi touches `len` blocks (of 1 for cyclic): all processors,
 * one range, or a range that wraps (two sends).  Takes lo, hi, g. */
static void send_range_cyclic(cg *c, const xf_stmt *st, ir_expr *lo, ir_expr *hi, ir_expr *g)
{
    ir_program *out = c->out;
    const xf_tiling *T = &c->T;
    ir_expr *len;
    if (T->k == TK_CYCLIC) {
        len = ir_new_binary(out, IR_OP_ADD, ir_new_binary(out, IR_OP_SUB, ir_clone_expr(out, hi), ir_clone_expr(out, lo)),
                            ir_new_int(out, 1));
    } else {
        ir_expr *kh = ir_new_binary(out, IR_OP_DIV, ir_new_binary(out, IR_OP_SUB, ir_clone_expr(out, hi), ir_clone_expr(out, T->p0[0])),
                                    ir_clone_expr(out, T->b[0]));
        ir_expr *kl = ir_new_binary(out, IR_OP_DIV, ir_new_binary(out, IR_OP_SUB, ir_clone_expr(out, lo), ir_clone_expr(out, T->p0[0])),
                                    ir_clone_expr(out, T->b[0]));
        len = ir_new_binary(out, IR_OP_ADD, ir_new_binary(out, IR_OP_SUB, kh, kl), ir_new_int(out, 1));
    }
    ir_expr *all = ir_new_binary(out, IR_OP_GE, ir_clone_expr(out, len), ir_new_name(out, "procs"));
    ir_expr *some = ir_new_binary(out, IR_OP_LT, len, ir_new_name(out, "procs"));
    ir_expr *l1[1] = {lo}, *h1[1] = {hi};
    ir_expr *rlo = xf_tiling_rp(out, T, l1), *rhi = xf_tiling_rp(out, T, h1);
    ir_expr *nowrap = ir_new_binary(out, IR_OP_LE, ir_clone_expr(out, rlo), ir_clone_expr(out, rhi));
    ir_expr *wrap = ir_new_binary(out, IR_OP_GT, ir_clone_expr(out, rlo), ir_clone_expr(out, rhi));
    ir_expr *last = ir_new_binary(out, IR_OP_SUB, ir_new_name(out, "procs"), ir_new_int(out, 1));
#define G() (g ? ir_clone_expr(out, g) : NULL)
    /* in the order of the program: all, the plain range, the wrapped range's two pieces */
    add_send(c, st, ir_new_int(out, 0), ir_clone_expr(out, rhi), and_(out, G(), and_(out, ir_clone_expr(out, some), ir_clone_expr(out, wrap))));
    add_send(c, st, ir_clone_expr(out, rlo), ir_clone_expr(out, last), and_(out, G(), and_(out, ir_clone_expr(out, some), wrap)));
    add_send(c, st, rlo, rhi, and_(out, G(), and_(out, some, nowrap)));
    add_send(c, st, ir_new_int(out, 0), last, and_(out, g, all));
#undef G
}

/* The sends of one range lo .. hi (virtual processors) under guard g: on the real processors
 * of the tiling (a blocked range whose two ends are one expression: one destination).  Takes
 * lo, hi, g. */
static void send_range_to(cg *c, const xf_stmt *st, ir_expr *lo, ir_expr *hi, ir_expr *g, int one)
{
    ir_program *out = c->out;
    if (c->T.k == TK_CYCLIC || c->T.k == TK_BLOCKCYCLIC) {
        send_range_cyclic(c, st, lo, hi, g);
        return;
    }
    ir_expr *l1[1] = {lo}, *h1[1] = {hi};
    ir_expr *rlo = xf_tiling_rp(out, &c->T, l1);
    add_send(c, st, rlo, one ? NULL : xf_tiling_rp(out, &c->T, h1), g);
}

/* A range's ends as pieces: each piece's set and the two ends' affine expressions there. */
enum { CG_PIECES = 4 };
typedef struct cg_pieces {
    isl_set *set[CG_PIECES];
    isl_aff *aff[CG_PIECES];
    int n;
} cg_pieces;

static isl_stat cg_piece_add(__isl_take isl_set *set, __isl_take isl_aff *aff, void *user)
{
    cg_pieces *ps = user;
    if (ps->n == CG_PIECES) {
        isl_set_free(set);
        isl_aff_free(aff);
        return isl_stat_error;
    }
    ps->set[ps->n] = set;
    ps->aff[ps->n++] = aff;
    return isl_stat_ok;
}

static void cg_pieces_free(cg_pieces *ps)
{
    for (int i = 0; i < ps->n; i++) {
        isl_set_free(ps->set[i]);
        isl_aff_free(ps->aff[i]);
    }
}

/* Where the least and the greatest sink change form at conditions (gemver's x[i] goes on to
 * the next row's processor before the last step and to x[i]'s own at it), one send per piece
 * where both ends are affine: `to t / b when n >= t + 1` and `to i / b when t >= n`, not one
 * send to a destination that multiplies by the condition: a reader sees which processor gets
 * the value when, and the exporter a destination that stays the same along a loop.  Only where
 * isl writes an end with a condition (LU's range `((t + 3) / 2 - 1) / b .. (n - 2) / b` has three
 * pieces that isl writes as one expression) and every piece goes to one processor: a range that
 * changes form (3mm's E[i][j] to every processor but its own) stays one send, one multicast
 * record.  pmin and pmax in the statement's variables as parameters.  0, or -1 (more pieces than
 * a few, a range, or none to split: the caller sends the range whole). */
static int send_range_pieces(cg *c, int a, __isl_keep isl_pw_aff *pmin, __isl_keep isl_pw_aff *pmax,
                             __isl_keep isl_ast_build *b)
{
    const xf_stmt *st = &c->m->st[a];
    ir_program *out = c->out;
    cg_pieces lo = {0}, hi = {0};
    int r = isl_pw_aff_foreach_piece(pmin, cg_piece_add, &lo) < 0 || isl_pw_aff_foreach_piece(pmax, cg_piece_add, &hi) < 0 ||
            lo.n * hi.n < 2 || lo.n * hi.n > CG_PIECES ? -1 : 0;
    ir_expr *to[CG_PIECES], *where[CG_PIECES];
    int n = 0;
    for (int i = 0; i < lo.n && !r; i++)
        for (int j = 0; j < hi.n && !r; j++) {
            isl_set *s = isl_set_intersect(isl_set_copy(lo.set[i]), isl_set_copy(hi.set[j]));
            if (isl_set_is_empty(s) != isl_bool_false) {
                isl_set_free(s);
                continue;
            }
            if (isl_aff_plain_is_equal(lo.aff[i], hi.aff[j]) != isl_bool_true) {   /* ranges stay whole */
                isl_set_free(s);
                r = -1;
                break;
            }
            to[n] = xf_expr_of_pa(out, b, isl_pw_aff_from_aff(isl_aff_copy(lo.aff[i])));
            where[n] = xf_expr_of_set(out, b, s);
            r = to[n++] ? 0 : -1;
        }
    for (int k = 0; k < n && !r; k++)   /* all expressible: sent piece by piece (of the sinks' domain) */
        send_range_to(c, st, to[k], ir_clone_expr(out, to[k]), where[k], 1);
    cg_pieces_free(&lo);
    cg_pieces_free(&hi);
    return r;
}

/* Sends to the real processors of the range pmin(x) .. pmax(x) of the sinks' virtual
 * processors in `un` (one processor dimension).  0, or -1 with a message. */
static int send_range(cg *c, int a, __isl_take isl_map *un)
{
    const xf_stmt *st = &c->m->st[a];
    ir_program *out = c->out;
    isl_set *sdom = isl_set_coalesce(isl_map_domain(isl_map_copy(un)));
    isl_pw_multi_aff *lmin = isl_map_lexmin_pw_multi_aff(isl_map_copy(un));
    isl_pw_multi_aff *lmax = isl_map_lexmax_pw_multi_aff(un);
    isl_pw_aff *pmin = xf_pa_vars_as_params(isl_pw_multi_aff_get_pw_aff(lmin, 0), c->npar, st);
    isl_pw_aff *pmax = xf_pa_vars_as_params(isl_pw_multi_aff_get_pw_aff(lmax, 0), c->npar, st);
    isl_pw_multi_aff_free(lmin);
    isl_pw_multi_aff_free(lmax);
    isl_ast_build *b = stmt_build(c, a);
    ir_expr *g = xf_expr_of_set(out, b, xf_vars_as_params(sdom, c->npar, st));
    ir_expr *lo = xf_expr_of_pa(out, b, isl_pw_aff_copy(pmin));
    ir_expr *hi = xf_expr_of_pa(out, b, isl_pw_aff_copy(pmax));
    /* isl wrote a choice between pieces as a product with a condition */
    int split = (!lo || !hi || xf_has_condition(lo, NULL, 0) || xf_has_condition(hi, NULL, 0)) &&
                send_range_pieces(c, a, pmin, pmax, b) == 0;
    isl_pw_aff_free(pmin);
    isl_pw_aff_free(pmax);
    isl_ast_build_free(b);
    if (split) return 0;
    if (!lo || !hi) {
        diag_add(c->d, c->src->file, st->assign->pos.line, 0,
                 "commgen: the destinations of %s's values are not expressible in the language", st->name);
        return -1;
    }
    send_range_to(c, st, lo, hi, g, 0);
    return 0;
}

/* Is every virtual processor between the least and the greatest sink of each source instance a
 * sink's, or the source's own (a send skips its sender)? */
static int is_range(__isl_keep isl_map *cand, int np)
{
    isl_ctx *ctx = isl_map_get_ctx(cand);
    isl_map *lo = isl_map_lexmin(isl_map_copy(cand)), *hi = isl_map_lexmax(isl_map_copy(cand));
    isl_map *box = isl_map_intersect(isl_map_apply_range(lo, isl_map_lex_le(isl_space_set_alloc(ctx, 0, 1))),
                                     isl_map_apply_range(hi, isl_map_lex_ge(isl_space_set_alloc(ctx, 0, 1))));
    isl_map *self = on_one_processor(isl_map_universe(isl_map_get_space(cand)), np, 0);
    self = isl_map_intersect_domain(self, isl_map_domain(isl_map_copy(cand)));
    isl_map *with_self = isl_map_union(isl_map_copy(cand), self);
    int range = isl_map_is_subset(box, with_self) == isl_bool_true;
    isl_map_free(box);
    isl_map_free(with_self);
    return range;
}

/* The sends of statement a: its non-uniform dependences merged while their sinks stay a range
 * (the thesis merged LU's dependences 3 and 5 by hand; uniform ones join a range they keep
 * one), then one send per distance vector of the remaining uniform ones, the source instances
 * of all dependences with that vector together — a value goes once to each processor. */
static int statement_sends(cg *c, cg_flow *f, int nf, int a)
{
    for (int i = 0; i < nf; i++) {
        if (f[i].src != a || f[i].done || f[i].uniform) continue;
        if (c->T.np != 1) {
            diag_add(c->d, c->src->file, c->m->st[a].assign->pos.line, 0,
                     "commgen: dependence %d (%s -> %s) is not uniform in the two processor dimensions: "
                     "not supported yet", f[i].dep + 1, c->m->st[a].name, c->m->st[f[i].sink].name);
            return -1;
        }
        isl_map *un = isl_map_copy(f[i].dst);
        f[i].done = 1;
        for (int j = 0; j < nf; j++) {
            if (f[j].done || f[j].src != a) continue;
            isl_map *cand = isl_map_union(isl_map_copy(un), isl_map_copy(f[j].dst));
            if (is_range(cand, c->T.np)) {
                isl_map_free(un);
                un = cand;
                f[j].done = 1;
            } else {
                isl_map_free(cand);
            }
        }
        if (send_range(c, a, un) != 0) return -1;
    }
    for (int i = 0; i < nf; i++) {
        if (f[i].src != a || f[i].done) continue;
        isl_set *srcdom = isl_map_domain(isl_map_copy(f[i].dst));
        f[i].done = 1;
        for (int j = i + 1; j < nf; j++) {
            if (f[j].src != a || f[j].done || memcmp(f[j].delta, f[i].delta, sizeof f[i].delta)) continue;
            srcdom = isl_set_union(srcdom, isl_map_domain(isl_map_copy(f[j].dst)));
            f[j].done = 1;
        }
        send_uniform(c, a, f[i].delta, isl_set_coalesce(srcdom));
    }
    return 0;
}

/* Parses gencost and lastsend.  0, or -1 with a message. */
static int commgen_args(const xf_args *args, int64_t *gencost, int *lastsend, diag_list *d)
{
    *gencost = 0;
    for (int i = 0; i < args->n; i++)
        if ((strcmp(args->items[i].key, "gencost") && strcmp(args->items[i].key, "lastsend")) ||
            args->items[i].label) {
            diag_add(d, NULL, 0, 0, "commgen: unknown parameter '%s' (gencost, lastsend)",
                     args->items[i].key);
            return -1;
        }
    const char *ls = xf_args_get(args, "lastsend", NULL);
    if (!ls) ls = "0";
    if (strcmp(ls, "0") && strcmp(ls, "1")) {
        diag_add(d, NULL, 0, 0, "commgen: lastsend=%s: expected 0 or 1", ls);
        return -1;
    }
    *lastsend = ls[0] == '1';
    const char *gc = xf_args_get(args, "gencost", NULL);
    if (gc) {
        char *end;
        *gencost = strtoll(gc, &end, 10);
        if (!*gc || *end || *gencost < 0) {
            diag_add(d, NULL, 0, 0, "commgen: gencost=%s: expected ticks >= 0", gc);
            return -1;
        }
    }
    return 0;
}

/* The sends of every statement of the untiled nest u into c->out.  0 or -1. */
static int generate_sends(cg *c, const ir_program *u, const xf_args *args)
{
    xf_model *m = xf_model_build(u, args->bindings, args->nbindings, 0, c->d);
    if (!m) return -1;
    c->m = m;
    c->npar = (unsigned)m->npnames;
    xf_rawdep *r = NULL;
    int nr = 0, nf = 0;
    xf_model_deps(m, &r, &nr, c->d);
    int ok = check_timing(c, r, nr) == 0;
    cg_flow *f = ok ? flows_collect(m, r, nr, c->T.np, &nf) : NULL;
    for (int a = 0; ok && a < m->nst; a++) {
        const xf_stmt *st = &m->st[a];
        int any = 0;
        for (int i = 0; i < nf; i++) any |= f[i].src == a;
        if (!any) continue;
        ir_block *blk;
        int pos;
        if (!st->assign->u.assign.label || !find_assign(c->T.body, st->assign->u.assign.label, &blk, &pos)) {
            diag_add(c->d, c->src->file, st->assign->pos.line, 0, "commgen: statement %s not found", st->name);
            ok = 0;
        } else {
            ok = statement_sends(c, f, nf, a) == 0;
        }
    }
    flows_free(f, nf);
    xf_rawdeps_free(r, nr);
    xf_model_free(m);
    c->m = NULL;
    return ok ? 0 : -1;
}

ir_program *xf_commgen_apply(const ir_program *src, const xf_args *args, diag_list *d, int *status)
{
    *status = XF_EUSAGE;
    int64_t gencost;
    int lastsend;
    if (commgen_args(args, &gencost, &lastsend, d) != 0) return NULL;
    *status = XF_EREFUSED;
    /* applicability was checked by the registry (xf_apply_with) before this call */
    cg c = {.out = ir_program_clone(src), .src = src, .d = d};
    xf_tiling_recognise(c.out, &c.T);
    ir_program *u = xf_tiling_untile(src, &c.T, d);
    if (u && lastsend && extend_time(u, d) != 0) { ir_program_free(u); u = NULL; }
    int ok = u && generate_sends(&c, u, args) == 0;
    ir_program_free(u);
    if (!ok) { ir_program_free(c.out); return NULL; }
    ir_program *out = c.out;
    if (gencost) {
        int found = 0;
        add_cost(out, c.T.body, gencost, &found);
        if (!found) send_cost(out, c.T.body, gencost);   /* no annotations: the sends carry it */
    }
    out->level = IR_SYNCOMM;
    xf_commgen_hoist(out, c.T.body);
    xf_simplify_program(out);
    xf_rename_for_level(out, src, "syn", "syncomm");
    if (xf_check_generated("commgen", out, d) != 0) return NULL;
    *status = XF_OK;
    return out;
}
