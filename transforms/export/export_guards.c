/*
 * export_guards.c — send conditions out of the inner loops.
 *
 * On the record path a send stands in the loop that computes what it sends, and its `when`
 * is tested for every element: atax's `send y[j] to rp + 1 at t + 1 when (p + 1) % b == 0`
 * inside the loop over j that updates y.  The test keeps the compiler from vectorising the
 * loop, although it does not change in it.  Where every send in an innermost loop has such a
 * condition (conjuncts that read neither the loop's variable nor anything bound or stored in
 * it, and cannot stop the program when tested before the loop), the loop is versioned:
 *
 *     if (C) { the loop as it is } else { the loop without its sends }
 *
 * C the disjunction over the sends of their invariant conjuncts and, where a send's destinations
 * do not change in the loop either, `they are not this processor alone` (gemver's x[i] goes on
 * to the next row's processor, most steps this one): where C fails no send of the loop would
 * put a record, so the second loop does what the first would.  A careful human writes the
 * same, or packs the boundary after the loop.
 */
#include <stdlib.h>
#include <string.h>

#include "export_int.h"

enum { EX_GUARD_TERMS = 16, EX_GUARD_SLOTS = 256 };

typedef struct ex_guard_scan {
    int bound[EX_GUARD_SLOTS];   /* slots of the variables bound in the loop */
    int nbound;
    const ir_expr *term[EX_GUARD_TERMS][8];   /* per send, its invariant conjuncts */
    int nterm[EX_GUARD_TERMS];
    const ir_expr *dlo[EX_GUARD_TERMS], *dhi[EX_GUARD_TERMS];   /* its destinations where invariant, or NULL */
    int nsends;
    int ok;
} ex_guard_scan;

int ex_bound_slots(const ir_block *b, int *slots, int n, int max)
{
    for (int i = 0; b && i < b->n && n >= 0; i++) {
        const ir_stmt *s = b->stmts[i];
        switch (s->kind) {
        case IR_S_LET:
            n = n < max ? (slots[n] = s->u.let.slot, n + 1) : -1;
            break;
        case IR_S_FOR:
            for (int k = 0; k < s->u.for_.nvars && n >= 0; k++)
                n = n < max ? (slots[n] = s->u.for_.vars[k].slot, n + 1) : -1;
            n = n < 0 ? n : ex_bound_slots(s->u.for_.body, slots, n, max);
            break;
        case IR_S_IF:
            n = ex_bound_slots(s->u.if_.then_blk, slots, n, max);
            n = n < 0 ? n : ex_bound_slots(s->u.if_.else_blk, slots, n, max);
            break;
        default: break;
        }
    }
    return n;
}

int ex_invariant_in(const ex_plan *pl, const ir_expr *e, const int *bound, int nbound)
{
    for (int i = 0; i < nbound; i++)
        if (ex_reads(e, bound[i])) return 0;
    return !ex_reads(e, -1) && ex_cannot_fail(pl, e);   /* no array either */
}

/* Each send of the block: its conjuncts that do not change in the loop and cannot fail. */
static void ex_guard_sends(ex_guard_scan *g, const ex_plan *pl, const ir_block *b)
{
    for (int i = 0; b && i < b->n && g->ok; i++) {
        const ir_stmt *s = b->stmts[i];
        if (s->kind == IR_S_FOR) g->ok = 0;   /* not an innermost loop: its inner loops are */
        else if (s->kind == IR_S_IF) {
            ex_guard_sends(g, pl, s->u.if_.then_blk);
            ex_guard_sends(g, pl, s->u.if_.else_blk);
        } else if (s->kind == IR_S_COLL) {
            g->ok = 0;   /* a collective in the loop: left as it is */
        } else if (s->kind == IR_S_SEND) {
            if (g->nsends == EX_GUARD_TERMS) { g->ok = 0; return; }
            const ir_expr *cj[64], *lo = s->u.send.to_lo, *hi = s->u.send.to_hi ? s->u.send.to_hi : lo;
            int nc = s->u.send.when ? ex_conjuncts(s->u.send.when, cj, 0, 64) : 0, n = 0;
            for (int k = 0; k < nc && k < 64 && n < 8; k++)
                if (ex_invariant_in(pl, cj[k], g->bound, g->nbound)) g->term[g->nsends][n++] = cj[k];
            int fixed = ex_invariant_in(pl, lo, g->bound, g->nbound) && ex_invariant_in(pl, hi, g->bound, g->nbound);
            if (!n && !fixed) { g->ok = 0; return; }
            g->dlo[g->nsends] = fixed ? lo : NULL;
            g->dhi[g->nsends] = fixed ? hi : NULL;
            g->nterm[g->nsends++] = n;
        }
    }
}

/* The analysis of the innermost loop over v around body into *g: 1 when every send in it has
 * invariant conjuncts. */
static int ex_guard_scan_loop(const ex_plan *pl, const ir_loopvar *v, const ir_block *body, ex_guard_scan *g)
{
    memset(g, 0, sizeof *g);
    g->ok = 1;
    g->bound[0] = v->slot;
    g->nbound = ex_bound_slots(body, g->bound, 1, EX_GUARD_SLOTS);
    if (g->nbound < 0) return 0;
    ex_guard_sends(g, pl, body);
    return g->ok && g->nsends;
}

int ex_send_guard(const ex_em *m, const ir_loopvar *v, const ir_block *body, strbuf *cond, strbuf *pre, int in)
{
    const ex_plan *pl = m->pl;
    if (m->mode != EX_STEP || m->nosends || pl->exchange == XF_EXCHANGE_HALO) return 0;
    ex_guard_scan g;
    if (!ex_guard_scan_loop(pl, v, body, &g)) return 0;
    strbuf seen = {0};   /* the sends' terms as C, each once */
    for (int s = 0; s < g.nsends; s++) {
        strbuf t = {0};
        for (int k = 0; k < g.nterm[s]; k++) {
            if (k) strbuf_printf(&t, " && ");
            ex_expr(m, &t, pre, in, g.term[s][k]);
        }
        if (g.dlo[s]) {   /* a send to this processor alone puts nothing */
            strbuf lo = {0}, hi = {0};
            ex_expr(m, &lo, pre, in, g.dlo[s]);
            ex_expr(m, &hi, pre, in, g.dhi[s]);
            if (strcmp(lo.s, hi.s) == 0) strbuf_printf(&t, "%s%s != %s", t.n ? " && " : "", lo.s, m->me);
            else strbuf_printf(&t, "%s(%s != %s || %s != %s)", t.n ? " && " : "", lo.s, m->me, hi.s, m->me);
            strbuf_free(&lo);
            strbuf_free(&hi);
        }
        char *key = xasprintf("\n%s\n", t.s);
        if (!seen.s || !strstr(seen.s, key)) {
            strbuf_printf(&seen, "%s", key);
            strbuf_printf(cond, "%s%s%s%s", cond->n ? " || " : "", g.nsends > 1 ? "(" : "", t.s, g.nsends > 1 ? ")" : "");
        }
        free(key);
        strbuf_free(&t);
    }
    strbuf_free(&seen);
    return 1;
}

/* Whether each send's hoisted conditions hold at few iterations of the loops around: one of
 * them an equality reading a variable of an enclosing loop of the step's body (atax's
 * (p + 1) % b == 0, LU's 2 * p == t + 1: one value of p in many), not only tests of the
 * processor or the step (rp > 0 holds on every processor but one: there the export still tests
 * the whole guard per element). */
static int ex_guards_rare(const ex_guard_scan *g, const int *outer, int nouter)
{
    for (int s = 0; s < g->nsends; s++) {
        int rare = 0;
        for (int k = 0; k < g->nterm[s] && !rare; k++) {
            const ir_expr *e = g->term[s][k];
            if (e->kind != IR_E_BINARY || e->u.op.op != IR_OP_EQ) continue;
            for (int o = 0; o < nouter && !rare; o++) rare = ex_reads(e, outer[o]);
        }
        if (!rare) return 0;
    }
    return 1;
}

/* Whether a send of block b stands in an innermost loop (at any depth) where the export tests
 * its condition per element: a loop not versioned, or versioned on conditions that hold often
 * (a loop whose sends go out as runs after it tests them once, export_runs.c).
 * outer[0 .. nouter-1]: the slots of the loops around b inside the step's body. */
static int ex_guards_per_element(const ex_plan *pl, const ir_block *b, int *outer, int nouter)
{
    for (int i = 0; b && i < b->n; i++) {
        const ir_stmt *s = b->stmts[i];
        if (s->kind == IR_S_IF) {
            if (ex_guards_per_element(pl, s->u.if_.then_blk, outer, nouter) ||
                ex_guards_per_element(pl, s->u.if_.else_blk, outer, nouter))
                return 1;
        } else if (s->kind == IR_S_FOR) {
            const ir_block *body = s->u.for_.body;
            ex_guard_scan g;
            if (ex_block_holds(body, IR_S_FOR)) {   /* not the innermost: the one emitted versioned is inside */
                int n = nouter;
                for (int k = 0; k < s->u.for_.nvars && n < EX_GUARD_SLOTS; k++) outer[n++] = s->u.for_.vars[k].slot;
                if (ex_guards_per_element(pl, body, outer, n)) return 1;
            } else if (ex_block_holds(body, IR_S_SEND)) {
                const ir_loopvar *v = &s->u.for_.vars[s->u.for_.nvars - 1];
                ex_em step = {.pl = pl, .mode = EX_STEP};   /* the sends as runs after it: tested once */
                if (ex_send_runs(&step, v, body, ex_invariant_lets(pl, v, body))) continue;
                if (!ex_guard_scan_loop(pl, v, body, &g) || !ex_guards_rare(&g, outer, nouter)) return 1;
            }
        }
    }
    return 0;
}

int ex_guards_hoisted(const ex_plan *pl)
{
    if (!pl->nest) return 1;
    int outer[EX_GUARD_SLOTS];   /* the step nest's own variables (time, processor) are not counted */
    const ir_block *body = pl->nest->u.for_.body;
    return !ex_guards_per_element(pl, body, outer, 0);
}
