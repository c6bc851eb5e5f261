/*
 * commgen_hoist.c — commgen's sends of a value a loop finishes, moved after the loop.
 *
 * commgen places a send right after the statement that writes the element, guarded by the
 * instances whose write is the step's last: for an element a loop accumulates into (nussinov's
 * S5 over k, gemm's update), the guard pins the loop variable to its last value,
 *
 *     for k = lo .. hi { S5: x[i][j] = ..; send x[i][j] to .. at t + 1 when g && k + 1 == p }
 *
 * (hi = p - 1), so the guard is tested on every iteration — in the simulation, which charges
 * its ticks as work, and in the exported program — for one send at the end.  The send is the
 * same after the loop, with the loop variable at its last value and the pin replaced by the loop
 * running at all:
 *
 *     for k = lo .. hi { S5: x[i][j] = .. }
 *     send x[i][j] to .. at t + 1 when g[k := hi] && hi >= lo
 *
 * It sends the same value: only sends follow the statement in the loop's body (the send moves
 * with the run of sends that ends the body), so nothing writes between the last iteration's send
 * and the end of the loop.  A loop with a step, or several variables, or a send that names
 * something the loop's body defines (a `let`, an inner loop's variable), stays as it is.
 * Loops are visited inside out, so a send pinned to the last iteration of two nested loops
 * moves out of both.
 */
#include <string.h>

#include "distribute_int.h"

enum { MAX_CONJ = 64 };

/* The conjuncts of a condition (a && b && c) into out[n ..]: their count (at most max kept). */
static int conjuncts(ir_expr *e, ir_expr **out, int n, int max)
{
    if (e->kind == IR_E_BINARY && e->u.op.op == IR_OP_AND) return conjuncts(e->u.op.b, out, conjuncts(e->u.op.a, out, n, max), max);
    if (n < max) out[n] = e;
    return n + 1;
}

/* Whether b defines (a `let`, a loop variable) a name e mentions. */
static int mentions_defined(const ir_block *b, const ir_expr *e)
{
    for (int i = 0; b && e && i < b->n; i++) {
        const ir_stmt *s = b->stmts[i];
        if (s->kind == IR_S_LET && xf_mentions(e, s->u.let.var)) return 1;
        if (s->kind == IR_S_IF && (mentions_defined(s->u.if_.then_blk, e) || mentions_defined(s->u.if_.else_blk, e)))
            return 1;
        if (s->kind == IR_S_FOR) {
            for (int k = 0; k < s->u.for_.nvars; k++)
                if (xf_mentions(e, s->u.for_.vars[k].var)) return 1;
            if (mentions_defined(s->u.for_.body, e)) return 1;
        }
    }
    return 0;
}

static int send_mentions_defined(const ir_block *b, const ir_stmt *s)
{
    int m = mentions_defined(b, s->u.send.what) || mentions_defined(b, s->u.send.to_lo) ||
            mentions_defined(b, s->u.send.to_hi) || mentions_defined(b, s->u.send.at) ||
            mentions_defined(b, s->u.send.when);
    for (int i = 0; !m && i < s->u.send.nas; i++) m = mentions_defined(b, s->u.send.as_idx[i]);
    return m;
}

/* Send s of loop f's body, after the loop: a new statement, or NULL when s stays. */
static ir_stmt *hoisted(ir_program *p, const ir_stmt *f, const ir_stmt *s)
{
    const ir_loopvar *v = &f->u.for_.vars[0];
    if (!s->u.send.when || send_mentions_defined(f->u.for_.body, s)) return NULL;
    ir_expr *cj[MAX_CONJ];
    int n = conjuncts(s->u.send.when, cj, 0, MAX_CONJ), pin = -1;
    if (n > MAX_CONJ) return NULL;
    for (int i = 0; i < n && pin < 0; i++)
        if (xf_pins_last(p, cj[i], v->var, v->hi)) pin = i;
    if (pin < 0) return NULL;
    ir_expr *when = NULL;
    for (int i = 0; i < n; i++) {
        ir_expr *c = i == pin ? ir_new_binary(p, IR_OP_GE, ir_clone_expr(p, v->hi), ir_clone_expr(p, v->lo))
                              : xf_subst1(p, cj[i], v->var, v->hi);
        when = when ? ir_new_binary(p, IR_OP_AND, when, c) : c;
    }
    ir_stmt *h = ir_clone_stmt(p, s);
    h->u.send.what = xf_subst1(p, s->u.send.what, v->var, v->hi);
    h->u.send.to_lo = xf_subst1(p, s->u.send.to_lo, v->var, v->hi);
    h->u.send.to_hi = xf_subst1(p, s->u.send.to_hi, v->var, v->hi);
    h->u.send.at = xf_subst1(p, s->u.send.at, v->var, v->hi);
    h->u.send.when = when;
    for (int i = 0; i < s->u.send.nas; i++) h->u.send.as_idx[i] = xf_subst1(p, s->u.send.as_idx[i], v->var, v->hi);
    return h;
}

/* A plain loop over one variable by steps of 1 (its last value is its upper bound). */
static int plain_loop(const ir_stmt *f)
{
    if (f->kind != IR_S_FOR || f->u.for_.nvars != 1) return 0;
    const ir_loopvar *v = &f->u.for_.vars[0];
    return (v->kind == IR_LOOP_DEFAULT || v->kind == IR_LOOP_SEQ) &&
           (!v->step || (v->step->kind == IR_E_INT && v->step->u.ival == 1));
}

/* Moves the sends that end loop b->stmts[at]'s body after it (in their order), those that can
 * move; returns how many moved. */
static int hoist_from(ir_program *p, ir_block *b, int at)
{
    const ir_stmt *f = b->stmts[at];
    ir_block *body = f->u.for_.body;
    int first = body->n;
    while (first > 0 && body->stmts[first - 1]->kind == IR_S_SEND) first--;
    int moved = 0;
    if (first == 0) return 0;   /* sends alone: nothing of the loop to send after */
    for (int i = first; i < body->n;) {
        ir_stmt *h = hoisted(p, f, body->stmts[i]);
        if (!h) { i++; continue; }
        memmove(&body->stmts[i], &body->stmts[i + 1], (size_t)(body->n - i - 1) * sizeof *body->stmts);
        body->n--;
        ir_stmt **ns = ir_alloc(p, (size_t)(b->n + 1) * sizeof *ns);
        int pos = at + 1 + moved++;
        for (int k = 0, j = 0; k <= b->n; k++) ns[k] = k == pos ? h : b->stmts[j++];
        b->stmts = ns;
        b->n++;
    }
    return moved;
}

void xf_commgen_hoist(ir_program *p, ir_block *b)
{
    for (int i = 0; b && i < b->n; i++) {
        ir_stmt *s = b->stmts[i];
        if (s->kind == IR_S_IF) {
            xf_commgen_hoist(p, s->u.if_.then_blk);
            xf_commgen_hoist(p, s->u.if_.else_blk);
        } else if (s->kind == IR_S_FOR) {
            xf_commgen_hoist(p, s->u.for_.body);
            if (plain_loop(s)) i += hoist_from(p, b, i);
        }
    }
}
