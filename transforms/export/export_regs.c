/*
 * export_regs.c — a register tile: a jammed nest's elements kept in registers along its loop
 * over k (`local tile=.. jam=4 regs=16`).
 *
 * `local` with regs=16 runs a jammed band's innermost loop in tiles of 16 columns, a loop over
 * them outside the loop over k:
 *
 *     for jr = .. step 16 { for k = .. { for j = jr .. min(.., jr + 15) { for p = pj .. pj + 3 { S } } } }
 *
 * where S (gemm's C[i][j] = C[i][j] + alpha * A[i][k] * B[k][j]) writes an element that stays in
 * place along k.  Unrolled as a jammed loop is (export_jam.c), the loop over j would still load
 * and store the four turns' elements at every k: bound by its stores.  Where a tile has all its
 * columns the exporter writes it as the compilers' register tiling does:
 *
 *     double rt_acc1[4][16];   (the four turns' 16 elements, loaded)
 *     for k { for rt_t = 0 .. 3 { for j = rt_col1 .. rt_col1 + 15 { S on rt_acc1[rt_t][j - rt_col1] } } }
 *     (stored back)
 *
 * and gcc, the loops over the turns and the columns unrolled (`_Pragma("GCC unroll 16")`), keeps
 * rt_acc1 in vector registers: per k, B's 16 columns loaded once and the four turns'
 * multiply-adds.  (gcc 12 does so only in this form, measured: the turns written out one after
 * the other in the loop over the columns, or a turn's row read from an array filled before the
 * loop, leave some or all of the tile in scalar code.)  Every element sees the same operations in
 * the same order (a turn's column is one element of the array, distinct from every other turn's
 * and column's, and nothing else in the loop over k reads or writes the array), so every value is
 * the simulator's.  A partial tile (the last columns) runs the loops as they are.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_int.h"

/* Is s a register tile (ir_regs_tile_of) around the jammed loop being unrolled, that this mode
 * writes as one: its statement neither stamps its element nor can stop the program (it would
 * name itself first: ex_assign), the columns' bounds and k's cannot fail where they are tested,
 * before the loop over k? */
static int regs_here(const ex_em *m, const ir_stmt *s, ir_regs_tile *t)
{
    if (!m->jam || m->regs || !m->tmp || (m->mode != EX_STEP && m->mode != EX_SEQ) || !ir_regs_tile_of(s, t) ||
        t->jam != m->jam)
        return 0;
    const ir_expr *l = t->assign->u.assign.lhs;
    const ir_loopvar *c = &t->cols->u.for_.vars[0], *k = &t->k->u.for_.vars[0];
    if (!ex_cannot_fail(m->pl, k->lo) || !ex_cannot_fail(m->pl, k->hi) || (k->step && k->step->kind != IR_E_INT))
        return 0;
    if (m->mode == EX_STEP && m->marks && m->pl->arr[l->u.access.array_index].mark) return 0;
    return !ex_can_stop(m->pl, l, 0) && !ex_can_stop(m->pl, t->assign->u.assign.rhs, 1) &&
           ex_cannot_fail(m->pl, c->lo) && ex_cannot_fail(m->pl, c->hi);
}

/* The loop over the turns and in it the loop over the tile's columns, both unrolled (the tile's
 * cells are then registers), around the jammed body as each turn writes it: the statement on the
 * tile, or the tile's loads or stores (m->regs_move).  The turns run one after the other rather
 * than interleaved at each column: nothing in the body but the tile's cells is written, each
 * turn's and column's its own, so the order between them changes no value. */
static void regs_turns(const ex_em *m, strbuf *b, int in)
{
    const ex_regs *r = m->regs;
    const ir_expr *lo_arg, *hi_arg;
    int turns = ir_jam_loop(m->jam, m->jam_around, &lo_arg, &hi_arg);
    char x[64], y[64], c[64];
    ex_nm(m->jam->u.for_.vars[0].var, x);
    ex_nm(lo_arg->u.name.id, y);
    ex_nm(r->cols->var, c);
    ex_em turn;
    strbuf text = {0};
    ex_rows_turn(m, &turn, "rt_t");
    turn.regs_turn = "rt_t";
    ex_jam_body(&turn, &text, m->jam->u.for_.body, in + 8);
    ex_rows_turn_close(&turn);
    ex_indent(b, in);
    strbuf_printf(b, "_Pragma(\"GCC unroll %d\")\n", turns);
    ex_indent(b, in);
    strbuf_printf(b, "for (int64_t rt_t = 0; rt_t < %d; rt_t++) {\n", turns);
    if (ex_text_names(text.s, x)) {
        ex_indent(b, in + 4);
        strbuf_printf(b, "const int64_t %s = %s + rt_t;\n", x, y);
    }
    ex_indent(b, in + 4);
    strbuf_printf(b, "_Pragma(\"GCC unroll %" PRId64 "\")\n", r->ncols);
    ex_indent(b, in + 4);
    strbuf_printf(b, "for (int64_t %s = %s; %s < %s + %" PRId64 "; %s++) {\n", c, r->first, c, r->first, r->ncols, c);
    if (text.s) strbuf_printf(b, "%s", text.s);
    ex_indent(b, in + 4);
    strbuf_printf(b, "}\n");
    ex_indent(b, in);
    strbuf_printf(b, "}\n");
    strbuf_free(&text);
}

/* The tile's elements loaded from the array or stored back. */
static void regs_moves(const ex_em *m, strbuf *b, const ex_regs *r, int move, int in)
{
    ex_em mv = *m;
    mv.regs = r;
    mv.regs_move = move;
    mv.jam_rows = NULL;
    regs_turns(&mv, b, in);
}

/* The tile is loaded and stored only where the statement runs at all its elements: all its
 * columns, and the loop over k at least once (the turns all run: ex_jam_nest tested them). */
int ex_regs_nest(const ex_em *m, strbuf *b, const ir_stmt *s, int in)
{
    ir_regs_tile t;
    if (!regs_here(m, s, &t)) return 0;
    const ir_loopvar *c = &t.cols->u.for_.vars[0], *k = &t.k->u.for_.vars[0];
    const ir_expr *lo_arg, *hi_arg;
    int turns = ir_jam_loop(m->jam, m->jam_around, &lo_arg, &hi_arg), id = ++*m->tmp;
    ex_regs r = {.array = t.assign->u.assign.lhs->u.access.array_index, .cols = c, .ncols = t.ncols};
    snprintf(r.acc, sizeof r.acc, "rt_acc%d", id);
    snprintf(r.first, sizeof r.first, "rt_col%d", id);
    const ex_array *a = &m->pl->arr[r.array];
    ex_for_open(m, b, &s->u.for_.vars[0], in);
    for (int i = 0; i < t.nlet; i++) ex_emit_stmt(m, b, s->u.for_.body, i, in + 4);
    strbuf pre = {0}, lo = {0}, hi = {0}, klo = {0}, khi = {0};
    ex_expr(m, &lo, &pre, in + 4, c->lo);
    ex_expr(m, &hi, &pre, in + 4, c->hi);
    ex_expr(m, &klo, &pre, in + 4, k->lo);
    ex_expr(m, &khi, &pre, in + 4, k->hi);
    ex_unparen_buf(&lo);
    if (pre.s) strbuf_printf(b, "%s", pre.s);
    ex_indent(b, in + 4);
    strbuf_printf(b, "const int64_t %s = %s;\n", r.first, lo.s);
    ex_indent(b, in + 4);
    strbuf_printf(b, "if (%s - %s == %" PRId64 " && %s <= %s) {   /* all %" PRId64 " columns: %s's elements in registers along %s */\n",
                  hi.s, r.first, t.ncols - 1, klo.s, khi.s, t.ncols, a->decl->u.array.name, k->var);
    ex_indent(b, in + 8);
    strbuf_printf(b, "%s %s[%d][%" PRId64 "];\n", a->decl->u.array.elem == IR_DOUBLE ? "double" : "int64_t", r.acc,
                  turns, t.ncols);
    regs_moves(m, b, &r, EX_REGS_LOAD, in + 8);
    ex_em tile = *m;
    tile.regs = &r;
    ex_emit_stmt(&tile, b, s->u.for_.body, t.nlet, in + 8);
    regs_moves(m, b, &r, EX_REGS_STORE, in + 8);
    ex_indent(b, in + 4);
    strbuf_printf(b, "} else {\n");
    ex_emit_stmt(m, b, s->u.for_.body, t.nlet, in + 8);
    ex_indent(b, in + 4);
    strbuf_printf(b, "}\n");
    ex_indent(b, in);
    strbuf_printf(b, "}\n");
    strbuf_free(&pre);
    strbuf_free(&lo);
    strbuf_free(&hi);
    strbuf_free(&klo);
    strbuf_free(&khi);
    return 1;
}

/* The tile's cell of the current turn and column, as C. */
static void cell(const ex_em *m, strbuf *b)
{
    char t[64];
    strbuf_printf(b, "%s[%s][%s - %s]", m->regs->acc, m->regs_turn, ex_nm(m->regs->cols->var, t), m->regs->first);
}

int ex_regs_cell(const ex_em *m, strbuf *b, const ir_expr *e)
{
    if (!m->regs || e->kind != IR_E_ACCESS || e->u.access.array_index != m->regs->array) return 0;
    cell(m, b);
    return 1;
}

int ex_regs_cols(const ex_em *m, strbuf *b, const ir_loopvar *v, int in)
{
    if (!m->regs || m->regs->cols != v || m->regs_move) return 0;
    regs_turns(m, b, in);
    return 1;
}

int ex_regs_assign(const ex_em *m, strbuf *b, const ir_stmt *s, int in)
{
    const ir_expr *l = s->u.assign.lhs;
    if (!m->regs || l->kind != IR_E_ACCESS || l->u.access.array_index != m->regs->array) return 0;
    strbuf pre = {0}, x = {0}, c = {0};
    ex_em e = *m;
    cell(m, &c);
    if (m->regs_move) {   /* the array's element itself */
        e.regs = NULL;
        ex_expr(&e, &x, &pre, in, l);
    } else {   /* the assigned value, as ex_assign computes it */
        e.checked = 1;
        ex_expr(&e, &x, &pre, in, s->u.assign.rhs);
        ex_unparen_buf(&x);
    }
    if (pre.s) strbuf_printf(b, "%s", pre.s);
    ex_indent(b, in);
    if (m->regs_move == EX_REGS_STORE) strbuf_printf(b, "%s = %s;\n", x.s, c.s);
    else if (m->regs_move) strbuf_printf(b, "%s = %s;\n", c.s, x.s);
    else strbuf_printf(b, "%s = %s;   /* %s */\n", c.s, x.s, s->u.assign.label ? s->u.assign.label : "assignment");
    strbuf_free(&pre);
    strbuf_free(&x);
    strbuf_free(&c);
    return 1;
}
