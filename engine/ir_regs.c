/*
 * ir_regs.c — the one definition of a register tile (ir.h, ir_regs_tile_of): the shape of loops
 * `local ... regs=R` writes, and the test that its statement's elements may stay in registers
 * across the loop over k.  The exporter writes such a tile with its elements in a C array the
 * compiler keeps in registers (transforms/export/export_regs.c); the simulator prices its
 * accesses as registers (engine/sim_streams.c).  Both ask here, so they cannot disagree on which
 * loops are register tiles.
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

enum { IR_REGS_NAMES = 64, COEF_MAX = 64 };   /* names followed; coefficients followed (no overflow) */

/* The number of leading lets of b. */
static int leading_lets(const ir_block *b)
{
    int n = 0;
    while (b && n < b->n && b->stmts[n]->kind == IR_S_LET) n++;
    return n;
}

/* names[n ..]: the lets of body computed from names[0 .. n-1] (in order); the new count. */
static int moving_lets(const ir_block *body, const char **names, int n)
{
    for (int i = 0; i < body->n && n < IR_REGS_NAMES; i++) {
        const ir_stmt *s = body->stmts[i];
        if (s->kind == IR_S_LET && ir_expr_names_any(s->u.let.value, names, n)) names[n++] = s->u.let.var;
    }
    return n;
}

/* The coefficient of `var` in e, through the lets of body (e's value as c * var + what does not
 * name var, small constants): 1 and *c, or 0 when e is not of that form. */
static int coef_of(const ir_expr *e, const char *var, const ir_block *body, int64_t *c)
{
    int64_t a = 0, b = 0;
    *c = 0;
    switch (e->kind) {
    case IR_E_INT: case IR_E_REAL: return 1;
    case IR_E_NAME:
        if (!strcmp(e->u.name.id, var)) { *c = 1; return 1; }
        for (int i = body->n - 1; i >= 0; i--)
            if (body->stmts[i]->kind == IR_S_LET && !strcmp(body->stmts[i]->u.let.var, e->u.name.id))
                return coef_of(body->stmts[i]->u.let.value, var, body, c);
        return 1;
    case IR_E_BINARY:
        if (!coef_of(e->u.op.a, var, body, &a) || !coef_of(e->u.op.b, var, body, &b)) return 0;
        if (a <= -COEF_MAX || a >= COEF_MAX || b <= -COEF_MAX || b >= COEF_MAX) return 0;
        if (e->u.op.op == IR_OP_ADD || e->u.op.op == IR_OP_SUB) {
            *c = e->u.op.op == IR_OP_ADD ? a + b : a - b;
            return 1;
        }
        if (!a && !b) return 1;   /* any operator of what does not move */
        if (e->u.op.op != IR_OP_MUL || (a && b)) return 0;
        const ir_expr *k = a ? e->u.op.b : e->u.op.a;   /* by a literal */
        if (k->kind != IR_E_INT || k->u.ival <= -COEF_MAX || k->u.ival >= COEF_MAX) return 0;
        *c = (a ? a : b) * k->u.ival;
        return 1;
    default: {   /* a call, an access, a reduction: only when neither var nor a let of it is in it */
        const char *mv[IR_REGS_NAMES] = {var};
        return !ir_expr_names_any(e, mv, moving_lets(body, mv, 1));
    }
    }
}

/* Does e access array `array` other than as the element `lhs` (printed), or name it whole? */
static int other_access(const ir_expr *e, int array, const char *lhs)
{
    if (!e) return 0;
    switch (e->kind) {
    case IR_E_NAME: return e->u.name.nk == IR_N_ARRAY && e->u.name.index == array;
    case IR_E_ACCESS:
        if (e->u.access.array_index == array) {
            char *t = ir_print_expr(e);
            int other = !t || strcmp(t, lhs);
            free(t);
            if (other) return 1;
        }
        for (int i = 0; i < e->u.access.nidx; i++)
            if (other_access(e->u.access.idx[i], array, lhs)) return 1;
        return 0;
    case IR_E_UNARY: case IR_E_BINARY:
        return other_access(e->u.op.a, array, lhs) || other_access(e->u.op.b, array, lhs);
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++)
            if (other_access(e->u.call.args[i], array, lhs)) return 1;
        return 0;
    case IR_E_INT: case IR_E_REAL: return 0;
    default: return 1;   /* a reduction, a repeat: not looked into */
    }
}

/* Does the loop over k read or write the statement's array other than as its element: its
 * lets, the columns' and the turns' bounds, the turns' lets and value? */
static int others_in_k(const ir_regs_tile *t, int array, const char *lhs)
{
    const ir_block *kb = t->k->u.for_.body, *body = t->jam->u.for_.body;
    const ir_loopvar *c = &t->cols->u.for_.vars[0], *p = &t->jam->u.for_.vars[0];
    for (int i = 0; i < kb->n; i++)
        if (kb->stmts[i]->kind == IR_S_LET && other_access(kb->stmts[i]->u.let.value, array, lhs)) return 1;
    if (other_access(c->lo, array, lhs) || other_access(c->hi, array, lhs) || other_access(p->lo, array, lhs) ||
        other_access(p->hi, array, lhs))
        return 1;
    for (int i = 0; i < body->n; i++) {
        const ir_stmt *s = body->stmts[i];
        if (s->kind == IR_S_LET && other_access(s->u.let.value, array, lhs)) return 1;
        if (s->kind == IR_S_ASSIGN && other_access(s->u.assign.rhs, array, lhs)) return 1;
    }
    return 0;
}

/* Does the statement's element fit: in place along k, one per turn and column? */
static int element_fits(const ir_regs_tile *t)
{
    const ir_expr *l = t->assign->u.assign.lhs;
    const ir_block *kb = t->k->u.for_.body, *body = t->jam->u.for_.body;
    if (l->kind != IR_E_ACCESS || l->u.access.nidx < 2) return 0;
    int nd = l->u.access.nidx;
    const char *col = t->cols->u.for_.vars[0].var, *turn = t->jam->u.for_.vars[0].var;
    int64_t step;   /* the last subscript: the column plus what does not move with it (3mm's j - o1, j = p) */
    if (!coef_of(l->u.access.idx[nd - 1], col, body, &step) || step != 1) return 0;
    /* what moves along k (its variable and lets, and the turns' lets of them), and with the column */
    const char *kn[IR_REGS_NAMES], *cn[IR_REGS_NAMES];
    int nk = 0, nc = 0;
    kn[nk++] = t->k->u.for_.vars[0].var;
    for (int i = 0; i < kb->n && nk < IR_REGS_NAMES; i++)
        if (kb->stmts[i]->kind == IR_S_LET) kn[nk++] = kb->stmts[i]->u.let.var;
    cn[nc++] = col;
    nk = moving_lets(body, kn, nk);
    nc = moving_lets(body, cn, nc);
    if (nk >= IR_REGS_NAMES || nc >= IR_REGS_NAMES) return 0;
    int own_row = 0;
    for (int d = 0; d < nd; d++) {
        if (ir_expr_names_any(l->u.access.idx[d], kn, nk)) return 0;
        if (d == nd - 1) continue;
        if (ir_expr_names_any(l->u.access.idx[d], cn, nc)) return 0;
        int64_t c;
        own_row |= coef_of(l->u.access.idx[d], turn, body, &c) && c != 0;
    }
    char *lhs = ir_print_expr(l);
    int fits = own_row && lhs && !others_in_k(t, l->u.access.array_index, lhs);
    free(lhs);
    return fits;
}

int ir_regs_tile_of(const ir_stmt *s, ir_regs_tile *out)
{
    if (!s || s->kind != IR_S_FOR || s->u.for_.nvars != 1) return 0;
    const ir_loopvar *tv = &s->u.for_.vars[0];
    if (!tv->step || tv->step->kind != IR_E_INT || tv->step->u.ival < 2 || tv->step->u.ival > IR_REGS_MAX) return 0;
    ir_regs_tile t;
    const ir_block *tb = s->u.for_.body;
    t.nlet = leading_lets(tb);
    if (!tb || tb->n != t.nlet + 1 || tb->stmts[t.nlet]->kind != IR_S_FOR) return 0;
    t.k = tb->stmts[t.nlet];
    const ir_block *kb = t.k->u.for_.body;
    int nlk = leading_lets(kb);
    if (t.k->u.for_.nvars != 1 || !kb || kb->n != nlk + 1 || kb->stmts[nlk]->kind != IR_S_FOR) return 0;
    t.cols = kb->stmts[nlk];
    const ir_loopvar *c = &t.cols->u.for_.vars[0];
    const ir_block *cb = t.cols->u.for_.body;
    const char *of = ir_point_of(c, &t.ncols);
    const ir_expr *lo_arg, *hi_arg;
    if (t.cols->u.for_.nvars != 1 || !of || strcmp(of, tv->var) || t.ncols != tv->step->u.ival || !cb || cb->n != 1 ||
        !ir_jam_loop(cb->stmts[0], c->var, &lo_arg, &hi_arg))
        return 0;
    t.jam = cb->stmts[0];
    /* the columns' bounds do not move along k (the exporter computes them before it) */
    const char *kn[IR_REGS_NAMES];
    int nk = 0;
    kn[nk++] = t.k->u.for_.vars[0].var;
    for (int i = 0; i < nlk && nk < IR_REGS_NAMES; i++) kn[nk++] = kb->stmts[i]->u.let.var;
    if (ir_expr_names_any(c->lo, kn, nk) || ir_expr_names_any(c->hi, kn, nk)) return 0;
    const ir_block *body = t.jam->u.for_.body;
    t.assign = NULL;
    for (int i = 0; i < body->n; i++) {
        const ir_stmt *x = body->stmts[i];
        if (x->kind == IR_S_LET) continue;
        if (x->kind != IR_S_ASSIGN || t.assign) return 0;
        t.assign = x;
    }
    if (!t.assign || !element_fits(&t)) return 0;
    *out = t;
    return 1;
}
