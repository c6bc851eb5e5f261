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

static void ex_inner_loop_rest(const ex_em *m, strbuf *b, const ir_loopvar *v, const ir_block *body, int nlet, int k);

/* Lines of text moved left by 4 columns (a block whose braces went: its lets unread). */
static void ex_dedent(strbuf *b, const char *text)
{
    for (const char *p = text; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) + 1 : strlen(p);
        size_t skip = n >= 4 && !strncmp(p, "    ", 4) ? 4 : 0;
        strbuf_printf(b, "%.*s", (int)(n - skip), p + skip);
        p += n;
    }
}

/* The leading lets body[0 .. nlet) that text reads, or a later one of them that is kept does, as
 * C into out at indentation in.  How many. */
static int ex_lets_read_by(const ex_em *m, strbuf *out, const ir_block *body, int nlet, const char *text, int in)
{
    strbuf *part = xcalloc((size_t)nlet + 1, sizeof *part);
    int *keep = xcalloc((size_t)nlet + 1, sizeof *keep), kept = 0;
    for (int j = nlet - 1; j >= 0; j--) {
        ex_emit_stmt(m, &part[j], body, j, in);
        keep[j] = ex_let_read(body->stmts[j], text, part + j + 1, keep + j + 1, nlet - j - 1);
        kept += keep[j];
    }
    for (int j = 0; j < nlet; j++) {
        if (keep[j] && part[j].s) strbuf_printf(out, "%s", part[j].s);
        strbuf_free(&part[j]);
    }
    free(part);
    free(keep);
    return kept;
}

/* The innermost loop over v around body, its invariant lets before it (and its sends as runs
 * after it where export_runs.c says so): those that something after them reads (rows hoisted
 * further out, ex_loop_around, may leave `i = p` unread), in a block of their own (a sibling
 * loop may declare the same names: 2mm's i = p before each of its j loops). */
static void ex_inner_loop(const ex_em *m, strbuf *b, const ir_loopvar *v, const ir_block *body, int k)
{
    int nlet = ex_invariant_lets(m->pl, v, body);
    strbuf rest = {0}, lets = {0};
    ex_inner_loop_rest(m, &rest, v, body, nlet, nlet ? k + 4 : k);
    int kept = ex_lets_read_by(m, &lets, body, nlet, rest.s, k + 4);
    if (kept) { ex_indent(b, k); strbuf_printf(b, "{\n%s", lets.s); }
    if (kept || !nlet) strbuf_printf(b, "%s", rest.s ? rest.s : "");
    else ex_dedent(b, rest.s);
    if (kept) { ex_indent(b, k); strbuf_printf(b, "}\n"); }
    strbuf_free(&lets);
    strbuf_free(&rest);
}

/* ex_inner_loop after its invariant lets: the rows, the loop (a jammed or register-tiled one's
 * form), its sends as runs. */
static void ex_inner_loop_rest(const ex_em *m, strbuf *b, const ir_loopvar *v, const ir_block *body, int nlet, int k)
{
    ex_em in_loop, quiet = *m;
    int runs = ex_send_runs(m, v, body, nlet);
    quiet.nosends = quiet.nosends || runs;
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
    ex_em quiet = *m;
    quiet.nosends = 1;
    ex_indent(b, k);
    if (ex_block_silent(&quiet, body) && ex_cannot_fail(m->pl, v->lo) && ex_cannot_fail(m->pl, v->hi) &&
        ex_cannot_fail(m->pl, v->step)) {
        strbuf_printf(b, "}\n");   /* without its sends the loop does nothing: a sends' nest of its own */
    } else {
        strbuf_printf(b, "} else {   /* no send of the loop runs */\n");
        ex_inner_loop(&quiet, b, v, body, k + 4);
        ex_indent(b, k);
        strbuf_printf(b, "}\n");
    }
    strbuf_free(&c);
    strbuf_free(&pre);
}

/* The innermost loop over v around body: split at its test, a tile's point loop, or plain. */
static void ex_innermost(const ex_em *m, strbuf *b, const ir_loopvar *v, const ir_block *body, int in)
{
    if (!ex_split_loop(m, b, v, body, in) && !ex_point_loop(m, b, v, body, in)) ex_emit_inner_loop(m, b, v, body, in);
}

/* Does b hold lets and assignments alone (an innermost loop's body, no test, send or jam)? */
static int ex_plain_block(const ir_block *b)
{
    for (int i = 0; i < b->n; i++)
        if (b->stmts[i]->kind != IR_S_LET && b->stmts[i]->kind != IR_S_ASSIGN) return 0;
    return b->n > 0;
}

/* The loop over `outer` around the innermost loop over v, whose body `body` holds lets and
 * assignments alone: the rows of its accesses that change in neither loop are computed once
 * before the loop over outer (ex_rows_open_around), in a block with the leading lets of body
 * they may name that change in neither (`i = p`); the loop over v is written by `inner` (its
 * emitter, b, in) from within the loop over outer.  0 when no row would be (nothing written). */
static int ex_loop_around(const ex_em *m, strbuf *b, const ir_loopvar *outer, const ir_loopvar *v,
                          const ir_block *body, int in,
                          void (*inner)(const ex_em *m, strbuf *b, const void *arg, int in), const void *arg)
{
    if (m->mode == EX_INSPECT || m->regs || !ex_plain_block(body) || outer->slot < 0) return 0;
    int nlet = 0;
    while (nlet < body->n && body->stmts[nlet]->kind == IR_S_LET) {
        const ir_expr *x = body->stmts[nlet]->u.let.value;
        if (ex_reads(x, outer->slot) || ex_reads(x, v->slot) || !ex_cannot_fail(m->pl, x)) break;
        nlet++;
    }
    strbuf rows = {0}, lets = {0};
    ex_em around;
    if (!ex_rows_open_around(m, &around, &rows, in + 4, outer->var, v->var, body, nlet)) {
        ex_rows_close(&around, m);
        strbuf_free(&rows);
        return 0;
    }
    ex_lets_read_by(m, &lets, body, nlet, rows.s, in + 4);
    ex_indent(b, in);
    strbuf_printf(b, "{\n%s%s", lets.s ? lets.s : "", rows.s);
    ex_for_open(&around, b, outer, in + 4);
    inner(&around, b, arg, in + 8);
    ex_indent(b, in + 4);
    strbuf_printf(b, "}\n");
    ex_indent(b, in);
    strbuf_printf(b, "}\n");
    ex_rows_close(&around, m);
    strbuf_free(&rows);
    strbuf_free(&lets);
    return 1;
}

/* ex_loop_around's inner loops: the innermost loop of a FOR of several variables, and a FOR
 * statement alone in its loop's body. */
typedef struct ex_inner_arg { const ir_loopvar *v; const ir_block *body; } ex_inner_arg;
static void ex_inner_of_vars(const ex_em *m, strbuf *b, const void *arg, int in)
{
    const ex_inner_arg *a = arg;
    ex_innermost(m, b, a->v, a->body, in);
}
static void ex_inner_stmt(const ex_em *m, strbuf *b, const void *arg, int in) { ex_emit_block(m, b, arg, in); }

/* Loops vars[from..] around body (the innermost split at its test where it has that shape; the
 * rows that change in neither of the two innermost loops computed before them: ex_loop_around). */
void ex_emit_loops(const ex_em *m, strbuf *b, const ir_loopvar *vars, int nvars, int from,
                     const ir_block *body, int in)
{
    if (nvars > from && m->mode != EX_INSPECT) {
        int i, last = nvars - 1;
        for (i = from; i < last - 1; i++) ex_for_open(m, b, &vars[i], in + 4 * (i - from));
        ex_inner_arg a = { &vars[last], body };
        const ir_stmt *f = body->n == 1 && body->stmts[0]->kind == IR_S_FOR ? body->stmts[0] : NULL;
        if (last == from && f && f->u.for_.nvars == 1 && f != m->jam &&
            ex_loop_around(m, b, &vars[last], &f->u.for_.vars[0], f->u.for_.body, in, ex_inner_stmt, body))
            return;   /* a loop whose body is an innermost loop */
        if (last - 1 < from || !ex_loop_around(m, b, &vars[last - 1], &vars[last], body, in + 4 * (last - 1 - from),
                                                ex_inner_of_vars, &a)) {
            if (last - 1 >= from) ex_for_open(m, b, &vars[last - 1], in + 4 * (last - 1 - from));
            ex_innermost(m, b, &vars[last], body, in + 4 * (last - from));
            if (last - 1 >= from) { ex_indent(b, in + 4 * (last - 1 - from)); strbuf_printf(b, "}\n"); }
        }
        for (i = last - 2; i >= from; i--) { ex_indent(b, in + 4 * (i - from)); strbuf_printf(b, "}\n"); }
        return;
    }
    for (int i = from; i < nvars; i++) ex_for_open(m, b, &vars[i], in + 4 * (i - from));
    ex_emit_block(m, b, body, in + 4 * (nvars - from));
    for (int i = nvars - 1; i >= from; i--) { ex_indent(b, in + 4 * (i - from)); strbuf_printf(b, "}\n"); }
}
