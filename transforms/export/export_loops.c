/*
 * export_loops.c — the exporter's loops as a careful human writes them: an innermost loop's
 * invariant lets and row bases computed before it, a border test split out of it (FD's
 * `x == 0 || x == n-1`: runs of the interior without the test, the border at its points),
 * a loop versioned by its sends' conditions (export_guards.c), one whose body runs at a few
 * points (export_points.c); and the predicates they decide by (what an expression reads, whether
 * it can fail where it is hoisted).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_int.h"

void ex_for_open(const ex_em *m, strbuf *b, const ir_loopvar *v, int in)
{
    char t[64];
    strbuf pre = {0}, lo = {0}, hi = {0}, st = {0};
    ex_expr(m, &lo, &pre, in, v->lo);
    ex_expr(m, &hi, &pre, in, v->hi);
    if (v->step) ex_expr(m, &st, &pre, in, v->step);
    ex_unparen_buf(&lo);   /* initialisers and the step of += */
    ex_unparen_buf(&hi);
    ex_unparen_buf(&st);
    if (pre.s) strbuf_printf(b, "%s", pre.s);
    const char *x = ex_nm(v->var, t);
    ex_indent(b, in);
    strbuf_printf(b, "for (int64_t %s = %s, %s_end = %s; %s <= %s_end; %s += %s) {\n", x, lo.s, x, hi.s, x, x, x,
                  st.n ? st.s : "1");
    strbuf_free(&pre);
    strbuf_free(&lo);
    strbuf_free(&hi);
    strbuf_free(&st);
}

/* The terms of a disjunction a || b || c. */
static int ex_disjuncts(const ir_expr *e, const ir_expr **out, int n, int max)
{
    if (e->kind == IR_E_BINARY && e->u.op.op == IR_OP_OR) {
        n = ex_disjuncts(e->u.op.a, out, n, max);
        return ex_disjuncts(e->u.op.b, out, n, max);
    }
    if (n < max) out[n++] = e;
    return n;
}

int ex_block_holds(const ir_block *b, ir_stmt_kind k)
{
    for (int i = 0; b && i < b->n; i++) {
        const ir_stmt *s = b->stmts[i];
        if (s->kind == k) return 1;
        if (s->kind == IR_S_IF && (ex_block_holds(s->u.if_.then_blk, k) || ex_block_holds(s->u.if_.else_blk, k))) return 1;
        if (s->kind == IR_S_FOR && ex_block_holds(s->u.for_.body, k)) return 1;
    }
    return 0;
}

int ex_reads(const ir_expr *e, int slot)
{
    if (!e) return 0;
    switch (e->kind) {
    case IR_E_INT: case IR_E_REAL: return 0;
    case IR_E_NAME: return e->u.name.nk == IR_N_ARRAY || (e->u.name.nk != IR_N_PARAM && e->u.name.index == slot);
    case IR_E_ACCESS: return 1;
    case IR_E_UNARY: case IR_E_BINARY: return ex_reads(e->u.op.a, slot) || ex_reads(e->u.op.b, slot);
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++) if (ex_reads(e->u.call.args[i], slot)) return 1;
        return 0;
    default: return 1;
    }
}

int ex_safe_divisor(const ex_plan *pl, const ir_expr *d)
{
    int64_t v;
    return ir_const_int(pl->p, d, pl->pv, &v) && v != 0 && v != -1;
}

int ex_cannot_fail(const ex_plan *pl, const ir_expr *e)
{
    if (!e) return 1;
    switch (e->kind) {
    case IR_E_INT: case IR_E_REAL: case IR_E_NAME: return 1;
    case IR_E_UNARY: case IR_E_BINARY:
        if ((e->u.op.op == IR_OP_DIV || e->u.op.op == IR_OP_MOD) && e->type == IR_INT &&
            !ex_safe_divisor(pl, e->u.op.b))
            return 0;
        return ex_cannot_fail(pl, e->u.op.a) && ex_cannot_fail(pl, e->u.op.b);
    case IR_E_CALL:
        if (e->u.call.f == IR_F_ISQRT) return 0;
        for (int i = 0; i < e->u.call.nargs; i++) if (!ex_cannot_fail(pl, e->u.call.args[i])) return 0;
        return 1;
    default: return 0;
    }
}

int ex_invariant_lets(const ex_plan *pl, const ir_loopvar *v, const ir_block *body)
{
    int n = 0;
    while (n < body->n && body->stmts[n]->kind == IR_S_LET && !ex_reads(body->stmts[n]->u.let.value, v->slot) &&
           ex_cannot_fail(pl, body->stmts[n]->u.let.value))
        n++;
    return n;
}

/* An innermost loop whose body is `if c { A } else { B }` with c a disjunction of terms that do
 * not change in the loop and of tests `v == e` (e does not change either), e.g. FD's border test:
 * the loop is split, in iteration order, into runs of B without the test, and A at each e.  The
 * compiler sees a plain stencil loop.  Returns 0 when the loop has another shape. */
static int ex_split_loop(const ex_em *m, strbuf *b, const ir_loopvar *v, const ir_block *body, int in)
{
    /* lets that do not change in the loop may come first: they are computed before it */
    int nlet = ex_invariant_lets(m->pl, v, body);
    if (v->step || body->n != nlet + 1 || body->stmts[nlet]->kind != IR_S_IF || !body->stmts[nlet]->u.if_.else_blk)
        return 0;
    const ir_stmt *s = body->stmts[nlet];
    const ir_expr *t[16];
    int nt = ex_disjuncts(s->u.if_.cond, t, 0, 16), neq = 0;
    if (nt >= 16) return 0;
    const ir_expr *inv[16], *eq[16];
    int ninv = 0;
    for (int i = 0; i < nt; i++) {
        const ir_expr *e = t[i];
        if (!ex_reads(e, v->slot)) { inv[ninv++] = e; continue; }
        if (e->kind != IR_E_BINARY || e->u.op.op != IR_OP_EQ) return 0;
        const ir_expr *x = e->u.op.a, *o = e->u.op.b;
        if (!(x->kind == IR_E_NAME && x->u.name.nk == IR_N_LOOPVAR && x->u.name.index == v->slot)) { x = o; o = e->u.op.a; }
        if (!(x->kind == IR_E_NAME && x->u.name.nk == IR_N_LOOPVAR && x->u.name.index == v->slot)) return 0;
        if (ex_reads(o, v->slot) || o->type != IR_INT) return 0;
        eq[neq++] = o;
    }
    if (!neq) return 0;
    /* the lets and the points' array in a block of their own (a sibling loop declares the same) */
    int wrap = nlet > 0 || !ninv;
    if (wrap) { ex_indent(b, in); strbuf_printf(b, "{\n"); in += 4; }
    for (int i = 0; i < nlet; i++) ex_emit_stmt(m, b, body, i, in);
    const ex_em *outer = m;
    ex_em in_loop;
    ex_rows_open(outer, &in_loop, b, in, v->var, body, nlet, NULL);
    m = &in_loop;
    char tv[64];
    const char *y = ex_nm(v->var, tv);
    strbuf pre = {0}, lo = {0}, hi = {0}, c = {0};
    ex_expr(m, &lo, &pre, in, v->lo);
    ex_expr(m, &hi, &pre, in, v->hi);
    ex_unparen_buf(&lo);   /* initialisers only */
    ex_unparen_buf(&hi);
    for (int i = 0; i < ninv; i++) {
        if (i) strbuf_printf(&c, " || ");
        ex_expr(m, &c, &pre, in, inv[i]);
    }
    if (pre.s) strbuf_printf(b, "%s", pre.s);
    ex_indent(b, in);
    char *ctext = ir_print_expr(s->u.if_.cond);
    strbuf_printf(b, "/* %s: the loop over %s split at the points where the test holds */\n", ctext ? ctext : "", y);
    free(ctext);
    int k = in;
    if (ninv) {
        ex_indent(b, in);
        strbuf_printf(b, "if (%s) {\n", c.s);
        ex_indent(b, in + 4);
        strbuf_printf(b, "for (int64_t %s = %s, %s_end = %s; %s <= %s_end; %s++) {\n", y, lo.s, y, hi.s, y, y, y);
        ex_emit_block(m, b, s->u.if_.then_blk, in + 8);
        ex_indent(b, in + 4);
        strbuf_printf(b, "}\n");
        ex_indent(b, in);
        strbuf_printf(b, "} else {\n");
        k = in + 4;
    }
    ex_indent(b, k);
    strbuf_printf(b, "const int64_t %s_at[%d] = {", y, neq);
    for (int i = 0; i < neq; i++) {
        strbuf e = {0};
        ex_expr(m, &e, &pre, k, eq[i]);
        strbuf_printf(b, "%s%s", i ? ", " : "", e.s);
        strbuf_free(&e);
    }
    strbuf_printf(b, "};\n");
    ex_indent(b, k);
    strbuf_printf(b, "for (int64_t %s = %s, %s_end = %s; %s <= %s_end;) {\n", y, lo.s, y, hi.s, y, y);
    ex_indent(b, k + 4);
    strbuf_printf(b, "int64_t %s_stop = %s_end + 1;   /* the next point where the test holds */\n", y, y);
    ex_indent(b, k + 4);
    strbuf_printf(b, "for (int rt_i = 0; rt_i < %d; rt_i++)\n", neq);
    ex_indent(b, k + 8);
    strbuf_printf(b, "if (%s_at[rt_i] >= %s && %s_at[rt_i] < %s_stop) %s_stop = %s_at[rt_i];\n", y, y, y, y, y, y);
    ex_indent(b, k + 4);
    strbuf_printf(b, "for (; %s < %s_stop; %s++) {\n", y, y, y);
    ex_emit_block(m, b, s->u.if_.else_blk, k + 8);
    ex_indent(b, k + 4);
    strbuf_printf(b, "}\n");
    ex_indent(b, k + 4);
    strbuf_printf(b, "if (%s <= %s_end) {\n", y, y);
    ex_emit_block(m, b, s->u.if_.then_blk, k + 8);
    ex_indent(b, k + 8);
    strbuf_printf(b, "%s++;\n", y);
    ex_indent(b, k + 4);
    strbuf_printf(b, "}\n");
    ex_indent(b, k);
    strbuf_printf(b, "}\n");
    if (ninv) { ex_indent(b, in); strbuf_printf(b, "}\n"); }
    if (wrap) { ex_indent(b, in - 4); strbuf_printf(b, "}\n"); }
    strbuf_free(&pre);
    strbuf_free(&lo);
    strbuf_free(&hi);
    strbuf_free(&c);
    ex_rows_close(&in_loop, outer);
    return 1;
}

/* The innermost loop over v around body, its invariant lets before it (and its sends as runs
 * after it where export_runs.c says so). */
static void ex_inner_loop(const ex_em *m, strbuf *b, const ir_loopvar *v, const ir_block *body, int k)
{
    ex_em in_loop, quiet = *m;
    int nlet = ex_invariant_lets(m->pl, v, body), runs = ex_send_runs(m, v, body, nlet);
    quiet.nosends = quiet.nosends || runs;
    /* the loop's invariant lets first, in a block of their own (a sibling loop may declare the
     * same names: 2mm's i = p before each of its j loops) */
    if (nlet) { ex_indent(b, k); strbuf_printf(b, "{\n"); k += 4; }
    for (int j = 0; j < nlet; j++) ex_emit_stmt(m, b, body, j, k);
    ex_rows_open(&quiet, &in_loop, b, k, v->var, body, nlet, NULL);
    if (m->jam && body->n == nlet + 1 && body->stmts[nlet] == m->jam) {   /* its turns unrolled here */
        ex_em around = in_loop;
        ex_rows_open_jam(&around, &in_loop, b, k, v->var, m->jam);
    }
    if (!ex_regs_cols(&in_loop, b, v, k)) {   /* (a register tile's: export_regs.c) */
        ex_for_open(&in_loop, b, v, k);
        for (int j = nlet; j < body->n; j++) ex_emit_stmt(&in_loop, b, body, j, k + 4);
        ex_indent(b, k);
        strbuf_printf(b, "}\n");
    }
    ex_rows_close(&in_loop, &quiet);
    if (runs) ex_send_runs_emit(m, b, v, body, nlet, k);
    if (nlet) { ex_indent(b, k - 4); strbuf_printf(b, "}\n"); }
}

/* The innermost loop, twice when its sends' conditions do not change in it (export_guards.c):
 * with the sends where they hold, without them where they fail; once when its sends go out as
 * runs after it (export_runs.c). */
void ex_emit_inner_loop(const ex_em *m, strbuf *b, const ir_loopvar *v, const ir_block *body, int k)
{
    strbuf c = {0}, pre = {0};
    if (ex_send_runs(m, v, body, ex_invariant_lets(m->pl, v, body)) || !ex_send_guard(m, v, body, &c, &pre, k)) {
        strbuf_free(&c);
        strbuf_free(&pre);
        ex_inner_loop(m, b, v, body, k);
        return;
    }
    char t[64];
    if (pre.s) strbuf_printf(b, "%s", pre.s);
    ex_indent(b, k);
    strbuf_printf(b, "if (%s) {   /* the sends' conditions do not change in the loop over %s */\n", c.s, ex_nm(v->var, t));
    ex_inner_loop(m, b, v, body, k + 4);
    ex_indent(b, k);
    strbuf_printf(b, "} else {   /* no send of the loop runs */\n");
    ex_em quiet = *m;
    quiet.nosends = 1;
    ex_inner_loop(&quiet, b, v, body, k + 4);
    ex_indent(b, k);
    strbuf_printf(b, "}\n");
    strbuf_free(&c);
    strbuf_free(&pre);
}

/* Loops vars[from..] around body (the innermost split at its test where it has that shape). */
void ex_emit_loops(const ex_em *m, strbuf *b, const ir_loopvar *vars, int nvars, int from,
                     const ir_block *body, int in)
{
    if (nvars > from && m->mode != EX_INSPECT) {
        int i;
        for (i = from; i < nvars - 1; i++) ex_for_open(m, b, &vars[i], in + 4 * (i - from));
        if (!ex_split_loop(m, b, &vars[nvars - 1], body, in + 4 * (nvars - 1 - from)))
            if (!ex_point_loop(m, b, &vars[nvars - 1], body, in + 4 * (nvars - 1 - from)))
                ex_emit_inner_loop(m, b, &vars[nvars - 1], body, in + 4 * (nvars - 1 - from));
        for (i = nvars - 2; i >= from; i--) { ex_indent(b, in + 4 * (i - from)); strbuf_printf(b, "}\n"); }
        return;
    }
    for (int i = from; i < nvars; i++) ex_for_open(m, b, &vars[i], in + 4 * (i - from));
    ex_emit_block(m, b, body, in + 4 * (nvars - from));
    for (int i = nvars - 1; i >= from; i--) { ex_indent(b, in + 4 * (i - from)); strbuf_printf(b, "}\n"); }
}
