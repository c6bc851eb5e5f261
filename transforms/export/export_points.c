/*
 * export_points.c — a loop whose body runs only at a few points.
 *
 * Space-time mapping keeps the statements of a step in one loop over their common variable,
 * each under its own condition: atax's leaf runs, on processor rp at step t,
 *
 *     for p = max(t - 1, rp * b) .. rp * b + b - 1 {
 *         if t == 0 { S2, S3 }            -- every p, at step 0 only
 *         if p + 1 == t { S4 }            -- one p
 *     }
 *
 * which visits up to b values of p at every step to run S4 at one of them: quadratic work in
 * the block where the statements are linear.  Where every statement of the body is a `let` or
 * an `if` without `else` whose condition either holds at one point (a conjunct p + c == e, e
 * not changing in the loop) or holds at every p only under conditions that do not change in
 * the loop, the loop runs over the points, ascending, each once, within its bounds — and over
 * every value where those conditions hold (rt_point_from: the next point).  The body runs
 * unchanged, its tests included, at every value of p where one of them can hold, in the
 * loop's order: the same statements run in the same order, and the body is written once.
 */
#include <stdlib.h>
#include <string.h>

#include "export_int.h"

enum { EX_POINTS = 8, EX_POINT_SLOTS = 256 };

typedef struct ex_points {
    const ir_loopvar *v;
    int bound[EX_POINT_SLOTS];           /* slots bound in the body: not invariant */
    int nbound;
    const ir_expr *at[EX_POINTS][2];     /* a point: e and c, c NULL for e alone */
    int sub[EX_POINTS];                  /* the point is e - c (p + c == e), else e + c (p - c == e) */
    int npoints;
    const ir_expr *range[EX_POINTS * 4]; /* invariant conjuncts under which every p may run */
    int group[EX_POINTS * 4];            /* their if: the conjuncts of one if join with &&, the ifs with || */
    int nrange;
    int ok;
} ex_points;

static int ex_points_invariant(const ex_plan *pl, const ex_points *s, const ir_expr *e)
{
    return ex_invariant_in(pl, e, s->bound, s->nbound);   /* bound[0]: the loop's own variable */
}

static int ex_is_var(const ir_expr *e, int slot)
{
    return e->kind == IR_E_NAME && e->u.name.nk == IR_N_LOOPVAR && e->u.name.index == slot;
}

/* A conjunct `x == e` with x one of p, p + c, c + p, p - c (c, e invariant): the point into
 * s->at.  1, or 0 when it has another shape. */
static int ex_points_point(const ex_plan *pl, ex_points *s, const ir_expr *cj)
{
    if (cj->kind != IR_E_BINARY || cj->u.op.op != IR_OP_EQ || cj->u.op.a->type != IR_INT) return 0;
    for (int side = 0; side < 2; side++) {
        const ir_expr *x = side ? cj->u.op.b : cj->u.op.a, *e = side ? cj->u.op.a : cj->u.op.b;
        const ir_expr *c = NULL;
        int sub = 1;
        if (!ex_points_invariant(pl, s, e)) continue;
        if (!ex_is_var(x, s->v->slot)) {
            if (x->kind != IR_E_BINARY || (x->u.op.op != IR_OP_ADD && x->u.op.op != IR_OP_SUB)) continue;
            if (ex_is_var(x->u.op.a, s->v->slot)) { c = x->u.op.b; sub = x->u.op.op == IR_OP_ADD; }
            else if (x->u.op.op == IR_OP_ADD && ex_is_var(x->u.op.b, s->v->slot)) c = x->u.op.a;
            else continue;
            if (!ex_points_invariant(pl, s, c)) continue;
        }
        if (s->npoints == EX_POINTS) return 0;
        s->at[s->npoints][0] = e;
        s->at[s->npoints][1] = c;
        s->sub[s->npoints++] = sub;
        return 1;
    }
    return 0;
}

/* Each statement of the body: a let, or an if that holds at a point or under invariant
 * conditions. */
static void ex_points_scan(const ex_plan *pl, ex_points *s, const ir_block *body)
{
    for (int i = 0; i < body->n && s->ok; i++) {
        const ir_stmt *t = body->stmts[i];
        if (t->kind == IR_S_LET) continue;
        if (t->kind != IR_S_IF || t->u.if_.else_blk) { s->ok = 0; return; }
        const ir_expr *cj[16];
        int nc = ex_conjuncts(t->u.if_.cond, cj, 0, 16), point = 0, ninv = 0;
        if (nc > 16) { s->ok = 0; return; }
        for (int k = 0; k < nc && !point; k++) point = ex_points_point(pl, s, cj[k]);
        if (point) continue;
        for (int k = 0; k < nc; k++)
            if (ex_points_invariant(pl, s, cj[k]) && s->nrange < EX_POINTS * 4) {
                s->group[s->nrange] = i;
                s->range[s->nrange++] = cj[k];
                ninv++;
            }
        if (!ninv) { s->ok = 0; return; }   /* it may hold at every p */
    }
}

int ex_point_loop(const ex_em *m, strbuf *b, const ir_loopvar *v, const ir_block *body, int in)
{
    const ex_plan *pl = m->pl;
    ex_points s;
    memset(&s, 0, sizeof s);
    s.v = v;
    s.ok = 1;
    if (v->step) return 0;
    s.bound[0] = v->slot;
    s.nbound = ex_bound_slots(body, s.bound, 1, EX_POINT_SLOTS);
    if (s.nbound < 0) return 0;
    ex_points_scan(pl, &s, body);
    if (!s.ok || !s.npoints) return 0;
    char t[64];
    ex_cname(t, sizeof t, v->var);
    strbuf pre = {0}, lo = {0}, hi = {0}, range = {0}, pts = {0};
    ex_expr(m, &lo, &pre, in, v->lo);
    ex_expr(m, &hi, &pre, in, v->hi);
    strbuf term = {0};   /* an if's invariant conjuncts; the ifs' terms each once */
    int nkeys = 0;
    for (int i = 0; i < s.nrange; i++) {
        int first = !i || s.group[i] != s.group[i - 1], last = i == s.nrange - 1 || s.group[i + 1] != s.group[i];
        if (first) term.n = 0;
        strbuf_printf(&term, "%s", first ? "" : " && ");
        ex_expr(m, &term, &pre, in, s.range[i]);
        if (!last) continue;
        char *key = xasprintf("(%s)", term.s);
        if (!range.s || !strstr(range.s, key)) {
            strbuf_printf(&range, "%s%s", range.n ? " || " : "", key);
            nkeys++;
        }
        free(key);
    }
    strbuf_free(&term);
    if (nkeys == 1) {   /* one test: its parentheses are the line's */
        memmove(range.s, range.s + 1, range.n - 2);
        range.s[range.n -= 2] = 0;
    }
    for (int i = 0; i < s.npoints; i++) {
        strbuf e = {0}, c = {0};
        ex_expr(m, &e, &pre, in, s.at[i][0]);
        if (s.at[i][1]) {
            ex_expr(m, &c, &pre, in, s.at[i][1]);
            strbuf_printf(&pts, "%s%s(%s, %s)", i ? ", " : "", s.sub[i] ? "isub" : "iadd", e.s, c.s);
        } else {
            strbuf_printf(&pts, "%s%s", i ? ", " : "", e.s);
        }
        strbuf_free(&e);
        strbuf_free(&c);
    }
    if (pre.s) strbuf_printf(b, "%s", pre.s);
    strbuf_printf(b, "%*s{   /* the loop over %s: its body runs only where a test holds, at %s%s%s */\n", in, "", t, pts.s,
                  s.nrange ? ", and at every value where " : "", s.nrange ? range.s : "");
    strbuf_printf(b, "%*sconst int64_t %s_at[%d] = {%s};\n", in + 4, "", t, s.npoints, pts.s);
    if (s.nrange) strbuf_printf(b, "%*sconst int %s_all = %s;\n", in + 4, "", t, range.s);
    char *first = s.nrange ? xasprintf("%s_all ? %s : rt_point_from(%s_at, %d, %s)", t, lo.s, t, s.npoints, lo.s)
                           : xasprintf("rt_point_from(%s_at, %d, %s)", t, s.npoints, lo.s);
    char *next = s.nrange ? xasprintf("%s_all ? %s + 1 : rt_point_from(%s_at, %d, %s + 1)", t, t, t, s.npoints, t)
                          : xasprintf("rt_point_from(%s_at, %d, %s + 1)", t, s.npoints, t);
    strbuf_printf(b, "%*sfor (int64_t %s = %s, %s_end = %s; %s <= %s_end; %s = %s) {\n", in + 4, "", t, first, t, hi.s, t, t,
                  t, next);
    for (int j = 0; j < body->n; j++) ex_emit_stmt(m, b, body, j, in + 8);
    strbuf_printf(b, "%*s}\n", in + 4, "");
    strbuf_printf(b, "%*s}\n", in, "");
    free(first);
    free(next);
    strbuf_free(&pre);
    strbuf_free(&lo);
    strbuf_free(&hi);
    strbuf_free(&range);
    strbuf_free(&pts);
    return 1;
}
