/*
 * export_runs.c — the sends of an innermost loop as runs of records.
 *
 * On the record path (rt_exchange) the leaf of a pipelined schedule computes a row and sends
 * each of its elements, as heat-3d's and jacobi-2d's do:
 *
 *     for k = 1 .. n-2 { S2: A[i][j][k] = ..; send A[i][j][k] to .. when C }
 *
 * A put per element costs a call and keeps gcc from vectorising the row.  Where every element
 * sent is final when the loop ends, the loop runs without its sends and each send puts the row
 * after it, one rt_exchange_put_run per destination: the same records (the receiver finds them
 * at the same indices, takes the same values), read from the array in place.  An element is final
 * when the loop writes the sent array only at the sent element, before the send: its last
 * subscript k + c (another element each iteration), its other subscripts, the send's condition
 * and its destinations the same throughout the loop.  A careful human packs the row after the
 * loop just so.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_int.h"

enum { EX_RUN_SLOTS = 256 };

/* Whether e is the loop variable v, plus or minus what does not change in the loop. */
static int ex_unit_in(const ex_plan *pl, const ir_expr *e, const ir_loopvar *v, const int *bound, int nb)
{
#define EX_IS_V(x) ((x)->kind == IR_E_NAME && (x)->u.name.nk == IR_N_LOOPVAR && (x)->u.name.index == v->slot)
    if (EX_IS_V(e)) return 1;
    if (e->kind != IR_E_BINARY || (e->u.op.op != IR_OP_ADD && e->u.op.op != IR_OP_SUB)) return 0;
    if (EX_IS_V(e->u.op.a)) return ex_invariant_in(pl, e->u.op.b, bound, nb);
    return e->u.op.op == IR_OP_ADD && EX_IS_V(e->u.op.b) && ex_invariant_in(pl, e->u.op.a, bound, nb);
#undef EX_IS_V
}

/* Whether subscripts idx[0 .. n-1] name a run along v: the last v + c, the others invariant. */
static int ex_run_subscripts(const ex_plan *pl, ir_expr *const *idx, int n, const ir_loopvar *v, const int *bound,
                             int nb)
{
    if (n < 1 || !ex_unit_in(pl, idx[n - 1], v, bound, nb)) return 0;
    for (int d = 0; d < n - 1; d++)
        if (!ex_invariant_in(pl, idx[d], bound, nb)) return 0;
    return 1;
}

/* Whether the send at body->stmts[k] can go out as a run after the loop. */
static int ex_run_send(const ex_plan *pl, const ir_loopvar *v, const ir_block *body, int from, int k, const int *bound,
                       int nb)
{
    const ir_stmt *s = body->stmts[k];
    const ir_expr *w = s->u.send.what;
    if (ex_send_mcast(pl, s) || w->kind != IR_E_ACCESS) return 0;
    const ex_array *a = &pl->arr[w->u.access.array_index];
    int n = w->u.access.nidx;
    if (n != a->decl->u.array.ndims || !ex_rows_linear(a)) return 0;
    if (!ex_run_subscripts(pl, w->u.access.idx, n, v, bound, nb)) return 0;
    if (s->u.send.as_idx && !ex_run_subscripts(pl, s->u.send.as_idx, n, v, bound, nb)) return 0;
    if ((s->u.send.when && !ex_invariant_in(pl, s->u.send.when, bound, nb)) ||
        !ex_invariant_in(pl, s->u.send.to_lo, bound, nb) ||
        (s->u.send.to_hi && !ex_invariant_in(pl, s->u.send.to_hi, bound, nb)))
        return 0;
    /* final when the loop ends: the loop writes the array only at the sent element, before the send */
    char *sent = ir_print_expr(w);
    int ok = sent != NULL;
    for (int i = from; ok && i < body->n; i++) {
        const ir_expr *l = body->stmts[i]->kind == IR_S_ASSIGN ? body->stmts[i]->u.assign.lhs : NULL;
        if (!l || l->kind != IR_E_ACCESS || l->u.access.array_index != w->u.access.array_index) continue;
        char *text = ir_print_expr(l);
        ok = i < k && text && strcmp(text, sent) == 0;
        free(text);
    }
    free(sent);
    return ok;
}

int ex_send_runs(const ex_em *m, const ir_loopvar *v, const ir_block *body, int from)
{
    const ex_plan *pl = m->pl;
    if (m->mode != EX_STEP || m->nosends || pl->exchange != XF_EXCHANGE_ALLTOALLV || v->step) return 0;
    /* the variables bound in the loop: its own and its body's past the lets computed before it */
    int bound[EX_RUN_SLOTS];
    ir_block rest = *body;
    rest.stmts += from;
    rest.n -= from;
    int nb = ex_bound_slots(&rest, bound, 0, EX_RUN_SLOTS - 1);
    if (nb < 0) return 0;
    bound[nb++] = v->slot;
    int nsends = 0;
    for (int k = from; k < body->n; k++) {
        const ir_stmt *s = body->stmts[k];
        if (s->kind == IR_S_ASSIGN) continue;
        if (s->kind != IR_S_SEND || !ex_run_send(pl, v, body, from, k, bound, nb)) return 0;
        nsends++;
    }
    return nsends > 0;
}

/* One send as a run: its condition, destinations and the offsets of the run's first element
 * (the loop variable is its first value here). */
static void ex_run_emit(const ex_em *m, strbuf *b, const ir_stmt *s, int in)
{
    const ex_plan *pl = m->pl;
    const ir_expr *w = s->u.send.what;
    ir_expr *const *widx;
    int nidx, arr = ex_sent_array(w, &widx, &nidx);
    const ex_array *a = &pl->arr[arr];
    ir_expr *const *as = s->u.send.as_idx ? s->u.send.as_idx : widx;
    strbuf pre = {0}, cond = {0}, lo = {0}, hi = {0}, what = {0}, at = {0};
    if (s->u.send.when) ex_expr(m, &cond, &pre, in, s->u.send.when);
    ex_expr(m, &lo, &pre, in, s->u.send.to_lo);
    if (s->u.send.to_hi) ex_expr(m, &hi, &pre, in, s->u.send.to_hi);
    ex_offset(m, &what, &pre, in, arr, widx, nidx, m->me, 0);
    if (a->pieced) ex_piece_gidx(m, &at, &pre, in, a, as);   /* the receiver finds it */
    else ex_offset(m, &at, &pre, in, arr, as, nidx, "rt_dest", 0);
    if (pre.s) strbuf_printf(b, "%s", pre.s);
    char *text = ir_print_expr(w);
    ex_indent(b, in);
    int paren = cond.n && !ex_is_operand(cond.s);
    strbuf_printf(b, "if (rt_n > 0%s%s%s%s) {   /* send %s */\n", cond.n ? " && " : "", paren ? "(" : "",
                  cond.n ? cond.s : "", paren ? ")" : "", text ? text : "");
    free(text);
    ex_send_dests(pl, b, lo.s, hi.n ? hi.s : lo.s, in + 4);
    ex_indent(b, in + 8);
    strbuf_printf(b, "if (rt_dest != %s) rt_exchange_put_run(rt_x, (int)(rt_dest - %" PRId64 "), %s * %d + %d, %d, "
                  "&%s[%s], rt_n);\n", m->me, pl->plo, at.s, pl->p->narrays, arr, pl->p->narrays, a->cname, what.s);
    ex_indent(b, in);
    strbuf_printf(b, "}\n");
    strbuf_free(&pre);
    strbuf_free(&cond);
    strbuf_free(&lo);
    strbuf_free(&hi);
    strbuf_free(&what);
    strbuf_free(&at);
}

void ex_send_runs_emit(const ex_em *m, strbuf *b, const ir_loopvar *v, const ir_block *body, int from, int in)
{
    char t[64];
    const char *y = ex_nm(v->var, t);
    strbuf pre = {0}, lo = {0}, hi = {0};
    ex_expr(m, &lo, &pre, in, v->lo);
    ex_expr(m, &hi, &pre, in, v->hi);
    if (pre.s) strbuf_printf(b, "%s", pre.s);
    ex_indent(b, in);
    strbuf_printf(b, "{   /* the loop's sends, a run of records each: its elements are final now */\n");
    ex_indent(b, in + 4);
    strbuf_printf(b, "const int64_t %s = %s;   /* the run's first element */\n", y, lo.s);
    ex_indent(b, in + 4);
    strbuf_printf(b, "const int64_t rt_n = %s - %s + 1;\n", hi.s, y);
    for (int k = from; k < body->n; k++)
        if (body->stmts[k]->kind == IR_S_SEND) ex_run_emit(m, b, body->stmts[k], in + 4);
    ex_indent(b, in);
    strbuf_printf(b, "}\n");
    strbuf_free(&pre);
    strbuf_free(&lo);
    strbuf_free(&hi);
}
