/*
 * export_stmt.c — the exporter's statements as C: assignments (the statement named in int_where
 * when its C can stop the program; at syndm the "computed here" stamps of the outputs), sends (a
 * record into the exchange, a multicast, or in the pattern inspector an entry of the halo
 * pattern), lets, ifs (the inspector's phase conditions), loops (export_loops.c), collectives
 * (export_coll.c) and the overlap's receive (export_overlap.c).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_int.h"

/* Whether e's C can stop the program (intsem's failures): an integer division or remainder by
 * what may be 0 or -1 (ex_safe_divisor), isqrt, the repeat of a user operator; and in the
 * assigned value (value: not in a subscript or a reduction's bounds, which are plain C) integer
 * + - * negation, abs, sum and product, checked for overflow. */
int ex_can_stop(const ex_plan *pl, const ir_expr *e, int value)
{
    if (!e) return 0;
    switch (e->kind) {
    case IR_E_INT: case IR_E_REAL: case IR_E_NAME: return 0;
    case IR_E_ACCESS:
        for (int i = 0; i < e->u.access.nidx; i++) if (ex_can_stop(pl, e->u.access.idx[i], 0)) return 1;
        return 0;
    case IR_E_UNARY:
        if (value && e->u.op.op != IR_OP_NOT && e->type == IR_INT) return 1;
        return ex_can_stop(pl, e->u.op.a, value);
    case IR_E_BINARY: {
        ir_op op = e->u.op.op;
        int ints = e->u.op.a->type == IR_INT && e->u.op.b->type == IR_INT;
        if (ints && (op == IR_OP_DIV || op == IR_OP_MOD) && !ex_safe_divisor(pl, e->u.op.b)) return 1;
        if (ints && value && (op == IR_OP_ADD || op == IR_OP_SUB || op == IR_OP_MUL)) return 1;
        return ex_can_stop(pl, e->u.op.a, value) || ex_can_stop(pl, e->u.op.b, value);
    }
    case IR_E_CALL:
        if (e->u.call.f == IR_F_ISQRT || (e->u.call.f == IR_F_ABS && e->u.call.args[0]->type == IR_INT)) return 1;
        for (int i = 0; i < e->u.call.nargs; i++) if (ex_can_stop(pl, e->u.call.args[i], value)) return 1;
        return 0;
    case IR_E_REDUCE:
        if (value && e->type == IR_INT && (e->u.reduce.r == IR_R_SUM || e->u.reduce.r == IR_R_PROD)) return 1;
        return ex_can_stop(pl, e->u.reduce.lo, 0) || ex_can_stop(pl, e->u.reduce.hi, 0) ||
               ex_can_stop(pl, e->u.reduce.body, value);
    default: return 1;   /* a repeat: the operator's own clauses */
    }
}

/* ---- statements ------------------------------------------------------------------------------- */

static int ex_expr_uses(const ir_expr *e, const char *id)
{
    if (!e) return 0;
    switch (e->kind) {
    case IR_E_NAME: return strcmp(e->u.name.id, id) == 0;
    case IR_E_ACCESS:
        for (int i = 0; i < e->u.access.nidx; i++) if (ex_expr_uses(e->u.access.idx[i], id)) return 1;
        return 0;
    case IR_E_UNARY: case IR_E_BINARY: return ex_expr_uses(e->u.op.a, id) || ex_expr_uses(e->u.op.b, id);
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++) if (ex_expr_uses(e->u.call.args[i], id)) return 1;
        return 0;
    case IR_E_REDUCE:
        return ex_expr_uses(e->u.reduce.lo, id) || ex_expr_uses(e->u.reduce.hi, id) ||
               ex_expr_uses(e->u.reduce.body, id);
    case IR_E_REPEAT:
        for (int i = 0; i < e->u.repeat.nargs; i++) if (ex_expr_uses(e->u.repeat.args[i], id)) return 1;
        return ex_expr_uses(e->u.repeat.k, id);
    default: return 0;
    }
}


/* Whether statement s, as emitted in this mode, reads name `id`. */
static int ex_stmt_uses(const ex_em *m, const ir_stmt *s, const char *id)
{
    switch (s->kind) {
    case IR_S_ASSIGN:
        if (m->mode == EX_INSPECT) return 0;
        if (m->mode == EX_MARK)   /* the target's subscripts of a marked output alone */
            return s->u.assign.lhs->kind == IR_E_ACCESS && m->pl->arr[s->u.assign.lhs->u.access.array_index].mark &&
                   ex_expr_uses(s->u.assign.lhs, id);
        return ex_expr_uses(s->u.assign.lhs, id) || ex_expr_uses(s->u.assign.rhs, id);
    case IR_S_LET: return ex_expr_uses(s->u.let.value, id);
    case IR_S_IF:
        return ex_expr_uses(s->u.if_.cond, id) || ex_block_uses(m, s->u.if_.then_blk, 0, id) ||
               (s->u.if_.else_blk && ex_block_uses(m, s->u.if_.else_blk, 0, id));
    case IR_S_FOR:
        for (int i = 0; i < s->u.for_.nvars; i++)
            if (ex_expr_uses(s->u.for_.vars[i].lo, id) || ex_expr_uses(s->u.for_.vars[i].hi, id) ||
                ex_expr_uses(s->u.for_.vars[i].step, id)) return 1;
        return ex_block_uses(m, s->u.for_.body, 0, id);
    case IR_S_SEND: {
        if (m->mode == EX_MARK || (m->mode == EX_STEP && m->pl->exchange == XF_EXCHANGE_HALO)) return 0;
        if (m->mode == EX_INSPECT && ex_phase_of(m->pl, s) != m->phase) return 0;   /* another phase's */
        if (ex_expr_uses(s->u.send.to_lo, id) || ex_expr_uses(s->u.send.to_hi, id) || ex_expr_uses(s->u.send.when, id))
            return 1;
        ir_expr *const *widx;
        int nidx, arr = ex_sent_array(s->u.send.what, &widx, &nidx);
        int skip = m->mode == EX_INSPECT ? m->pl->arr[arr].fold : -1;   /* the inspector's plane is 0 */
        for (int i = 0; i < nidx; i++) if (i != skip && ex_expr_uses(widx[i], id)) return 1;
        for (int i = 0; i < s->u.send.nas; i++) if (i != skip && ex_expr_uses(s->u.send.as_idx[i], id)) return 1;
        return 0;
    }
    case IR_S_RECV:
        return 0;
    case IR_S_COLL:
        if (m->mode == EX_INSPECT) return 0;
        for (int i = 0; i < s->u.coll.nsrc; i++)
            if (ex_expr_uses(s->u.coll.src[i], id) ||
                (s->u.coll.src_lo && (ex_expr_uses(s->u.coll.src_lo[i], id) || ex_expr_uses(s->u.coll.src_hi[i], id))))
                return 1;
        for (int i = 0; i < s->u.coll.ndst; i++)
            if (ex_expr_uses(s->u.coll.dst[i], id) ||
                (s->u.coll.dst_lo && (ex_expr_uses(s->u.coll.dst_lo[i], id) || ex_expr_uses(s->u.coll.dst_hi[i], id))))
                return 1;
        return ex_expr_uses(s->u.coll.root, id) || ex_expr_uses(s->u.coll.by, id) ||
               ex_expr_uses(s->u.coll.when, id);
    }
    return 0;
}

/* Whether the let at b->stmts[k] is emitted: something after it reads it, or its value can stop the program. */
static int ex_let_kept(const ex_em *m, const ir_block *b, int k)
{
    const ir_stmt *s = b->stmts[k];
    return !ex_cannot_fail(m->pl, s->u.let.value) || ex_block_uses(m, b, k + 1, s->u.let.var);
}

/* A let reads `id` only when it is itself emitted (i_d in i = n - i_d - 1, where nothing reads i). */
int ex_block_uses(const ex_em *m, const ir_block *b, int from, const char *id)
{
    for (int i = from; i < b->n; i++) {
        const ir_stmt *s = b->stmts[i];
        if (s->kind == IR_S_LET ? ex_expr_uses(s->u.let.value, id) && ex_let_kept(m, b, i) : ex_stmt_uses(m, s, id))
            return 1;
    }
    return 0;
}


/* The conjuncts of a guard (a && b && c), counted past max (export_int.h). */
int ex_conjuncts(const ir_expr *e, const ir_expr **out, int n, int max)
{
    if (e->kind == IR_E_BINARY && e->u.op.op == IR_OP_AND) {
        n = ex_conjuncts(e->u.op.a, out, n, max);
        return ex_conjuncts(e->u.op.b, out, n, max);
    }
    if (n < max) out[n] = e;
    return n + 1;
}

/* Whether e names only the time variable and parameters (a condition on the step alone). */
int ex_time_only(const ir_expr *e, int tslot)
{
    switch (e->kind) {
    case IR_E_INT: case IR_E_REAL: return 1;
    case IR_E_NAME:
        return e->u.name.nk == IR_N_PARAM || (e->u.name.nk == IR_N_LOOPVAR && e->u.name.index == tslot);
    case IR_E_UNARY: case IR_E_BINARY:
        return ex_time_only(e->u.op.a, tslot) && (!e->u.op.b || ex_time_only(e->u.op.b, tslot));
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++) if (!ex_time_only(e->u.call.args[i], tslot)) return 0;
        return 1;
    default: return 0;
    }
}


/* Whether a send is left out in this mode: the stamps' replay, a halo step (the pattern sends),
 * a loop's version without sends. */
static int ex_send_left_out(const ex_em *m)
{
    return m->mode == EX_MARK || (m->mode == EX_STEP && m->pl->exchange == XF_EXCHANGE_HALO) || m->nosends;
}

/* The loop over a send's destinations lo .. hi, within the processors: a verified program never
 * sends outside them (the simulator's "does not exist"), and gcc, which cannot know that, would
 * see a part's extent read past its table when a send names rp + 1 of a single processor. */
void ex_send_dests(const ex_plan *pl, strbuf *b, const char *lo, const char *hi, int in)
{
    ex_indent(b, in);
    strbuf_printf(b, "for (int64_t rt_dest = imax(%s, %" PRId64 "), rt_last = imin(%s, %" PRId64 "); rt_dest <= rt_last; "
                  "rt_dest++)\n", lo, pl->plo, hi, pl->plo + pl->nprocs - 1);
}

static void ex_send(const ex_em *m, strbuf *b, const ir_stmt *s, int in)
{
    const ex_plan *pl = m->pl;
    if (ex_send_left_out(m)) return;   /* the pattern sends it; the replay or the loop's version without sends */
    if (m->mode == EX_INSPECT && ex_phase_of(pl, s) != m->phase) return;   /* another phase's pattern */
    strbuf pre = {0}, cond = {0}, lo = {0}, hi = {0}, what = {0}, at = {0};
    const ir_expr *w = s->u.send.what;
    ir_expr *const *widx;
    int nidx, arr = ex_sent_array(w, &widx, &nidx);
    if (s->u.send.when) {
        const ir_expr *cj[64];
        int nc = ex_conjuncts(s->u.send.when, cj, 0, 64);
        for (int i = 0; i < nc && i < 64; i++) {
            if (m->mode == EX_INSPECT && ex_time_only(cj[i], pl->tslot) && ex_reads(cj[i], pl->tslot))
                continue;   /* the phase's condition on t, tested each step */
            if (cond.n) strbuf_printf(&cond, " && ");
            ex_expr(m, &cond, &pre, in, cj[i]);
        }
    }
    ex_expr(m, &lo, &pre, in, s->u.send.to_lo);
    if (s->u.send.to_hi) ex_expr(m, &hi, &pre, in, s->u.send.to_hi);
    int zero = m->mode == EX_INSPECT;
    ex_offset(m, &what, &pre, in, arr, widx, nidx, m->me, zero);
    if (m->mode == EX_STEP && ex_send_mcast(pl, s)) {   /* one record for the whole range */
        if (pre.s) strbuf_printf(b, "%s", pre.s);
        ex_send_mcast_emit(m, b, s, in, cond.n ? cond.s : "1", lo.s, hi.s, what.s);
        strbuf_free(&pre);
        strbuf_free(&cond);
        strbuf_free(&lo);
        strbuf_free(&hi);
        strbuf_free(&what);
        return;
    }
    ir_expr *const *as = s->u.send.as_idx ? s->u.send.as_idx : widx;
    if (pl->arr[arr].pieced) ex_piece_gidx(m, &at, &pre, in, &pl->arr[arr], as);   /* the receiver finds it */
    else ex_offset(m, &at, &pre, in, arr, as, nidx, "rt_dest", zero);
    if (pre.s) strbuf_printf(b, "%s", pre.s);
    ex_indent(b, in);
    char *text = ir_print_expr(w);
    strbuf_printf(b, "if (%s) {   /* send %s */\n", cond.n ? cond.s : "1", text ? text : "");
    free(text);
    ex_send_dests(pl, b, lo.s, hi.n ? hi.s : lo.s, in + 4);
    ex_indent(b, in + 8);
    if (m->mode == EX_INSPECT)
        strbuf_printf(b, "if (rt_dest != %s) rt_pattern_add(pattern, (int)(rt_dest - %" PRId64 "), %d, %s, %s);\n",
                      m->me, pl->plo, arr, what.s, at.s);
    else
        strbuf_printf(b, "if (rt_dest != %s) rt_exchange_put%s(rt_x, (int)(rt_dest - %" PRId64 "), %s * %d + %d, %s[%s]);\n",
                      m->me, pl->arr[arr].decl->u.array.elem == IR_DOUBLE ? "" : "_int", pl->plo, at.s, pl->p->narrays,
                      arr, pl->arr[arr].cname, what.s);
    ex_indent(b, in);
    strbuf_printf(b, "}\n");
    strbuf_free(&pre);
    strbuf_free(&cond);
    strbuf_free(&lo);
    strbuf_free(&hi);
    strbuf_free(&what);
    strbuf_free(&at);
}

/* EX_MARK: an assignment to a marked output stamps its element (on the marked plane when folded). */
static void ex_assign_mark(const ex_em *m, strbuf *b, const ir_stmt *s, int in)
{
    const ir_expr *l = s->u.assign.lhs;
    int acc = l->kind == IR_E_ACCESS, arr = acc ? l->u.access.array_index : l->u.name.index;
    const ex_array *a = &m->pl->arr[arr];
    if (!a->mark) return;
    strbuf pre = {0}, off = {0}, fs = {0};
    if (acc) ex_offset(m, &off, &pre, in, arr, l->u.access.idx, l->u.access.nidx, m->me, 0);
    else strbuf_printf(&off, "0");   /* a scalar */
    if (acc && a->fold >= 0) ex_expr(m, &fs, &pre, in, l->u.access.idx[a->fold]);
    if (pre.s) strbuf_printf(b, "%s", pre.s);
    ex_indent(b, in);
    if (fs.n) strbuf_printf(b, "if (%s == %" PRId64 ") ", fs.s, a->mark_plane);
    strbuf_printf(b, "%s_mine[%s] = rt_now;   /* %s */\n", a->cname, off.s, s->u.assign.label ? s->u.assign.label : "assignment");
    strbuf_free(&pre);
    strbuf_free(&off);
    strbuf_free(&fs);
}

static void ex_assign(const ex_em *m, strbuf *b, const ir_stmt *s, int in)
{
    if (m->mode == EX_INSPECT) return;
    if (m->mode == EX_MARK) { ex_assign_mark(m, b, s, in); return; }
    if (m->regs && ex_regs_assign(m, b, s, in)) return;
    strbuf pre = {0}, rhs = {0}, off = {0};
    const ir_expr *l = s->u.assign.lhs;
    int arr = l->kind == IR_E_ACCESS ? l->u.access.array_index : l->u.name.index;
    const ex_array *a = &m->pl->arr[arr];
    ex_em value = *m;   /* the assigned value: checked integer arithmetic */
    value.checked = 1;
    ex_expr(&value, &rhs, &pre, in, s->u.assign.rhs);
    ex_unparen_buf(&rhs);
    if (l->kind == IR_E_ACCESS) ex_offset(m, &off, &pre, in, arr, l->u.access.idx, l->u.access.nidx, m->me, 0);
    else strbuf_printf(&off, "0");
    if (ex_can_stop(m->pl, l, 0) || ex_can_stop(m->pl, s->u.assign.rhs, 1)) {
        ex_indent(b, in);
        strbuf_printf(b, "int_where = \"statement %s at %d:%d\";\n", s->u.assign.label ? s->u.assign.label : "(unlabelled)",
                      s->pos.line, s->pos.col);
    }
    if (pre.s) strbuf_printf(b, "%s", pre.s);
    ex_indent(b, in);
    if (m->mode == EX_STEP && m->marks && a->mark) {
        strbuf_printf(b, "{   /* %s */\n", s->u.assign.label ? s->u.assign.label : "assignment");
        ex_indent(b, in + 4);
        strbuf_printf(b, "const int64_t rt_o = %s;\n", off.s);
        ex_indent(b, in + 4);
        strbuf_printf(b, "%s[rt_o] = %s;\n", a->cname, rhs.s);
        ex_indent(b, in + 4);
        if (a->fold >= 0) {
            strbuf fs = {0}, fpre = {0};
            ex_expr(m, &fs, &fpre, in, l->u.access.idx[a->fold]);
            strbuf_printf(b, "if (%s == %" PRId64 ") %s_mine[rt_o] = rt_stamp;   /* computed here: gathered */\n", fs.s,
                          a->mark_plane, a->cname);
            strbuf_free(&fs);
            strbuf_free(&fpre);
        } else {
            strbuf_printf(b, "%s_mine[rt_o] = rt_stamp;   /* computed here: gathered */\n", a->cname);
        }
        ex_indent(b, in);
        strbuf_printf(b, "}\n");
    } else {
        strbuf_printf(b, "%s[%s] = %s;   /* %s */\n", a->cname, off.s, rhs.s, s->u.assign.label ? s->u.assign.label : "assignment");
    }
    strbuf_free(&pre);
    strbuf_free(&rhs);
    strbuf_free(&off);
}

/* The pattern inspector at an `if` whose conjuncts on t alone select a phase (export.c): those
 * hold (the phase's exchange tests them each step), the others are tested; its else holds no
 * send.  0 when the condition has no conjunct on t alone. */
static int ex_phase_if(const ex_em *m, strbuf *b, const ir_stmt *s, int in)
{
    const ir_expr *cj[EX_PHASE_CONDS + 1];
    int tslot = m->pl->tslot, nc = ex_conjuncts(s->u.if_.cond, cj, 0, EX_PHASE_CONDS + 1), nt = 0;
    if (tslot < 0 || nc > EX_PHASE_CONDS) return 0;
    strbuf pre = {0}, c = {0};
    for (int i = 0; i < nc; i++) {
        if (ex_time_only(cj[i], tslot) && ex_reads(cj[i], tslot)) { nt++; continue; }
        if (c.n) strbuf_printf(&c, " && ");
        ex_expr(m, &c, &pre, in, cj[i]);
    }
    if (nt && m->mode == EX_INSPECT && !ex_block_holds(s->u.if_.then_blk, IR_S_SEND)) {
        /* nothing of the phase to record */
    } else if (nt) {
        if (pre.s) strbuf_printf(b, "%s", pre.s);
        ex_indent(b, in);
        if (c.n) strbuf_printf(b, "if (%s) {   /* the phase's condition on %s holds */\n", c.s, m->pl->nest->u.for_.vars[0].var);
        else strbuf_printf(b, "{   /* the phase's condition on %s holds */\n", m->pl->nest->u.for_.vars[0].var);
        ex_emit_block(m, b, s->u.if_.then_blk, in + 4);
        ex_indent(b, in);
        strbuf_printf(b, "}\n");
    }
    strbuf_free(&pre);
    strbuf_free(&c);
    return nt > 0;
}

int ex_block_silent(const ex_em *m, const ir_block *b)
{
    for (int i = 0; b && i < b->n; i++)
        if (!ex_silent(m, b->stmts[i])) return 0;
    return 1;
}

int ex_silent(const ex_em *m, const ir_stmt *s)
{
    if (m->mode == EX_INSPECT) return 0;   /* the inspector records the sends */
    switch (s->kind) {
    case IR_S_SEND: return ex_send_left_out(m);
    case IR_S_LET: return ex_cannot_fail(m->pl, s->u.let.value);
    case IR_S_ASSIGN: {   /* the mark pass stamps marked outputs alone */
        const ir_expr *l = s->u.assign.lhs;
        int arr = l->kind == IR_E_ACCESS ? l->u.access.array_index : l->u.name.index;
        return m->mode == EX_MARK && !m->pl->arr[arr].mark;
    }
    case IR_S_IF:
        return ex_cannot_fail(m->pl, s->u.if_.cond) && ex_block_silent(m, s->u.if_.then_blk) &&
               ex_block_silent(m, s->u.if_.else_blk);
    case IR_S_FOR:
        for (int i = 0; i < s->u.for_.nvars; i++)
            if (!ex_cannot_fail(m->pl, s->u.for_.vars[i].lo) || !ex_cannot_fail(m->pl, s->u.for_.vars[i].hi) ||
                !ex_cannot_fail(m->pl, s->u.for_.vars[i].step))
                return 0;
        return ex_block_silent(m, s->u.for_.body);
    default: return 0;
    }
}

void ex_emit_stmt(const ex_em *m, strbuf *b, const ir_block *blk, int k, int in)
{
    const ir_stmt *s = blk->stmts[k];
    char t[64];
    if ((s->kind == IR_S_FOR || s->kind == IR_S_IF) && ex_silent(m, s)) return;   /* only sends left out */
    switch (s->kind) {
    case IR_S_ASSIGN: ex_assign(m, b, s, in); return;
    case IR_S_SEND: ex_send(m, b, s, in); return;
    case IR_S_LET: {
        int used = ex_block_uses(m, blk, k + 1, s->u.let.var);
        if (!used && ex_cannot_fail(m->pl, s->u.let.value)) return;   /* not kept (ex_let_kept): nothing reads it */
        strbuf pre = {0}, v = {0};
        ex_expr(m, &v, &pre, in, s->u.let.value);
        ex_unparen_buf(&v);
        if (pre.s) strbuf_printf(b, "%s", pre.s);
        const char *x = ex_nm(s->u.let.var, t);
        ex_indent(b, in);
        strbuf_printf(b, "const %s %s = %s;\n", s->u.let.value->type == IR_DOUBLE ? "double" : "int64_t", x, v.s);
        if (!used) { ex_indent(b, in); strbuf_printf(b, "(void)%s;\n", x); }
        strbuf_free(&pre);
        strbuf_free(&v);
        return;
    }
    case IR_S_IF: {
        strbuf pre = {0}, c = {0};
        if (m->mode == EX_INSPECT && ex_phase_if(m, b, s, in)) return;
        ex_expr(m, &c, &pre, in, s->u.if_.cond);
        if (pre.s) strbuf_printf(b, "%s", pre.s);
        ex_indent(b, in);
        strbuf_printf(b, "if (%s) {\n", c.s);
        ex_emit_block(m, b, s->u.if_.then_blk, in + 4);
        if (s->u.if_.else_blk) {
            ex_indent(b, in);
            strbuf_printf(b, "} else {\n");
            ex_emit_block(m, b, s->u.if_.else_blk, in + 4);
        }
        ex_indent(b, in);
        strbuf_printf(b, "}\n");
        strbuf_free(&pre);
        strbuf_free(&c);
        return;
    }
    case IR_S_FOR:
        if (m->jam == s) ex_jam_unrolled(m, b, s, in);
        else if (!ex_regs_nest(m, b, s, in) && !ex_jam_nest(m, b, s, in))
            ex_emit_loops(m, b, s->u.for_.vars, s->u.for_.nvars, 0, s->u.for_.body, in);
        ex_overlap_after(m, b, blk, k, in);
        return;
    case IR_S_COLL:
        if (m->mode != EX_INSPECT && m->mode != EX_MARK) ex_coll(m, b, s, in);
        return;
    case IR_S_RECV:
        if (m->mode == EX_STEP) ex_overlap_recv(m, b, in);
        return;
    }
}

void ex_emit_block(const ex_em *m, strbuf *b, const ir_block *blk, int in)
{
    for (int i = 0; i < blk->n; i++) ex_emit_stmt(m, b, blk, i, in);
}
