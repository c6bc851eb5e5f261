/*
 * export_jam.c — a jammed loop unrolled into the loop around it (`local`'s jam=, ir_jam_loop).
 *
 * `local tile=.. jam=4` runs four rows of a tile's outermost point loop together: the loop over
 * them innermost, `for p = max(.., pj) .. min(.., pj + 3)`, inside the loops over k and j.  As
 * a loop it is four turns of strided work; unrolled into the loop over j, it is four statements
 * that each walk a row at unit stride and share what does not move with p (gemm's B[k][j]):
 * gcc vectorises the loop over j, loads B[k][j .. j + 7] once for the four rows and keeps
 * each row's factor in a register.  Four chains (syrk's C[i][j] += .. along k, four j's) run
 * interleaved, each waiting for its own last sum only.  Where the other bounds let all four turns run (the group
 * lies inside the tile and the processor's rows) the nest is written with the turns unrolled,
 * else as it is:
 *
 *     if (rp * b <= pj && pj + 3 <= p_end) {   (the nest with p = pj, pj + 1, .. unrolled)
 *     } else {                                  (the nest as it is) }
 *
 * The test stands before the outermost loop of the nest that neither binds nor changes what it
 * reads (the loop over k below pj), so that gcc sees loops without tests.  The rows the turns
 * read are computed before the loop they are unrolled in (ex_rows_open_jam): one a row all turns
 * share, an array of one per turn for their own; a turn leaves out its lets nothing it writes
 * reads.  Unrolling reorders nothing: the turns run in the loop's order at every j, and every
 * value is the simulator's.
 */
#include <stdlib.h>
#include <string.h>

#include "export_int.h"

enum { EX_JAM_SLOTS = 256, EX_JAM_ARGS = 16 };

/* The jammed loop at the bottom of s's nest (s's body and each loop's below: lets and one
 * loop), other than s itself, and the loop it stands in (*parent); NULL when there is none or
 * the nest has another shape. */
static const ir_stmt *ex_jam_below(const ir_stmt *s, const ir_stmt **parent)
{
    const ir_expr *lo, *hi;
    for (;;) {
        *parent = s;
        const ir_block *body = s->u.for_.body;
        const ir_stmt *next = NULL;
        for (int i = 0; body && i < body->n; i++) {
            const ir_stmt *t = body->stmts[i];
            if (t->kind == IR_S_LET) continue;
            if (next || t->kind != IR_S_FOR) return NULL;
            next = t;
        }
        if (!next) return NULL;
        if (ir_jam_loop(next, s->u.for_.vars[s->u.for_.nvars - 1].var, &lo, &hi)) return next;
        s = next;
    }
}

/* The test that all turns of jammed loop j run (each other argument of its lower bound's max at
 * most its base lo_arg, each of its upper bound's min at least base + c, hi_arg) as C into cond,
 * 1; 0 when an argument changes in s (binds[0 .. nbound-1]) or could fail where the test stands. */
static int ex_jam_test(const ex_em *m, const ir_stmt *j, const ir_expr *lo_arg, const ir_expr *hi_arg,
                       const int *bound, int nbound, strbuf *cond, strbuf *pre, int in)
{
    const ir_loopvar *v = &j->u.for_.vars[0];
    const ir_expr *sides[2] = {v->lo, v->hi}, *base[2] = {lo_arg, hi_arg};
    const ir_func f[2] = {IR_F_MAX, IR_F_MIN};
    if (!ex_invariant_in(m->pl, lo_arg, bound, nbound)) return 0;
    for (int side = 0; side < 2; side++) {
        const ir_expr *args[EX_JAM_ARGS];
        int n = ir_minmax_args(sides[side], f[side], args, 0, EX_JAM_ARGS);
        for (int i = 0; i < n; i++) {
            const ir_expr *a = args[i];
            if (a == base[side]) continue;
            if (!ex_invariant_in(m->pl, a, bound, nbound)) return 0;
            strbuf x = {0}, y = {0};
            ex_expr(m, &x, pre, in, side ? base[side] : a);
            ex_expr(m, &y, pre, in, side ? a : base[side]);
            ex_unparen_buf(&x);
            ex_unparen_buf(&y);
            strbuf_printf(cond, "%s%s <= %s", cond->n ? " && " : "", x.s, y.s);
            strbuf_free(&x);
            strbuf_free(&y);
        }
    }
    if (!cond->n) strbuf_printf(cond, "1");
    return 1;
}

int ex_jam_nest(const ex_em *m, strbuf *b, const ir_stmt *s, int in)
{
    if (m->jam || m->nojam || (m->mode != EX_STEP && m->mode != EX_SEQ)) return 0;
    const ir_stmt *parent, *j = ex_jam_below(s, &parent);
    if (!j) return 0;   /* (ir_jam_loop: no send or collective in it) */
    const char *around = parent->u.for_.vars[parent->u.for_.nvars - 1].var;
    const ir_expr *lo_arg, *hi_arg;
    int turns = ir_jam_loop(j, around, &lo_arg, &hi_arg);
    int bound[EX_JAM_SLOTS], nb = 0;
    for (int k = 0; k < s->u.for_.nvars && nb < EX_JAM_SLOTS; k++) bound[nb++] = s->u.for_.vars[k].slot;
    nb = ex_bound_slots(s->u.for_.body, bound, nb, EX_JAM_SLOTS);
    strbuf cond = {0}, pre = {0};
    if (nb < 0 || !ex_jam_test(m, j, lo_arg, hi_arg, bound, nb, &cond, &pre, in)) {
        strbuf_free(&cond);
        strbuf_free(&pre);
        return 0;
    }
    char t[64], u[64], w[64];
    ex_em all = *m, plain = *m;
    all.jam = j;
    all.jam_around = around;
    plain.nojam = 1;
    if (pre.s) strbuf_printf(b, "%s", pre.s);
    ex_indent(b, in);
    strbuf_printf(b, "if (%s) {   /* all of %s = %s .. %s + %d: unrolled in the loop over %s */\n", cond.s,
                  ex_nm(j->u.for_.vars[0].var, t), ex_nm(lo_arg->u.name.id, u), u, turns - 1,
                  ex_nm(around, w));
    if (!ex_regs_nest(&all, b, s, in + 4))   /* (register tiles: export_regs.c) */
        ex_emit_loops(&all, b, s->u.for_.vars, s->u.for_.nvars, 0, s->u.for_.body, in + 4);
    ex_indent(b, in);
    strbuf_printf(b, "} else {\n");
    ex_emit_loops(&plain, b, s->u.for_.vars, s->u.for_.nvars, 0, s->u.for_.body, in + 4);
    ex_indent(b, in);
    strbuf_printf(b, "}\n");
    strbuf_free(&cond);
    strbuf_free(&pre);
    return 1;
}

void ex_jam_body(const ex_em *turn, strbuf *out, const ir_block *body, int in)
{
    int n = body->n;
    strbuf *part = xcalloc((size_t)(n ? n : 1), sizeof *part);
    int *keep = xcalloc((size_t)(n ? n : 1), sizeof *keep);
    for (int i = 0; i < n; i++) ex_emit_stmt(turn, &part[i], body, i, in);
    for (int i = n - 1; i >= 0; i--)
        keep[i] = body->stmts[i]->kind != IR_S_LET ||
                  ex_let_read(body->stmts[i], NULL, part + i + 1, keep + i + 1, n - i - 1);
    for (int i = 0; i < n; i++) {
        if (keep[i] && part[i].s) strbuf_printf(out, "%s", part[i].s);
        strbuf_free(&part[i]);
    }
    free(part);
    free(keep);
}

/* Turn k of jammed loop j: its statements in a block, with its rows (ex_rows_turn); a let no
 * later statement of the turn reads (its value only served a row computed before the loop) and
 * the turn's variable where nothing reads it are left out. */
static void ex_jam_turn(const ex_em *m, strbuf *b, const ir_stmt *j, int k, const char *base, int in)
{
    char x[64], idx[16];
    ex_nm(j->u.for_.vars[0].var, x);
    snprintf(idx, sizeof idx, "%d", k);
    ex_em turn;
    strbuf text = {0};
    ex_rows_turn(m, &turn, idx);
    ex_jam_body(&turn, &text, j->u.for_.body, in + 4);
    ex_rows_turn_close(&turn);
    ex_indent(b, in);
    strbuf_printf(b, "{\n");
    if (ex_text_names(text.s, x)) {
        ex_indent(b, in + 4);
        if (k) strbuf_printf(b, "const int64_t %s = %s + %d;\n", x, base, k);
        else strbuf_printf(b, "const int64_t %s = %s;\n", x, base);
    }
    if (text.s) strbuf_printf(b, "%s", text.s);
    strbuf_free(&text);
    ex_indent(b, in);
    strbuf_printf(b, "}\n");
}

void ex_jam_unrolled(const ex_em *m, strbuf *b, const ir_stmt *j, int in)
{
    char u[64];
    const ir_expr *lo_arg, *hi_arg;
    int turns = ir_jam_loop(j, m->jam_around, &lo_arg, &hi_arg);
    for (int k = 0; k < turns; k++) ex_jam_turn(m, b, j, k, ex_nm(lo_arg->u.name.id, u), in);
}
