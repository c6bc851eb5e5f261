/*
 * export_rows.c — row bases and cells hoisted out of the innermost loops of an exported program.
 *
 * The index function of an array is linear in its last dimension when that dimension is not
 * stored modulo (time planes fold another one):  a_at(i0, .., ik) = a_at(i0, .., 0) + ik.  So an
 * access whose other subscripts do not change in a loop, e.g. a[t - 1][x + 1][y] in the loop over
 * y, is written  a[rt_row3 + y]  with  rt_row3 = a_at((t - 1), (x + 1), 0)  computed once before
 * the loop: the loop body is then the plain stencil a careful programmer writes (no fold modulo,
 * extents or processor bounds per element), and the values are the same, so checksums do not
 * change.  (A vector has no row to hoist: y[j] stays y[j].)  An access to an array without such
 * rows (several pieces, a folded or strided last dimension) whose subscripts all do not change in
 * the loop, e.g. cov[i][j] in covariance's loop over k, is a cell: its whole offset computed once
 * before the loop, rt_cell1 = cov_at(me, i, j) (a pieced array's X_cell, which gives 0 rather than
 * an error where the loop would not have touched it).  Used for the innermost FOR loops and the
 * loops of reductions (export_loops.c, export_expr.c).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "export_int.h"

typedef struct ex_row {
    char *call;                  /* a_at(.., 0): the text that identifies the row; a cell's
                                    a_at(.., j), its whole offset */
    char name[32];               /* its C variable, rt_rowN or rt_cellN */
} ex_row;

struct ex_rows {
    const ex_rows *outer;        /* the enclosing loop's rows (looked up as well) */
    ex_row *r;
    int n, cap;
    int turns;                   /* > 0: a jammed loop's turns' rows (ex_rows_open_jam), each an
                                    array of that many, filled in a loop over the turns */
};

/* Names bound inside the loop (its variable, lets, reduction variables): a subscript naming one
 * of them changes in the loop. */
enum { EX_MAXBOUND = 64 };
typedef struct ex_bound { const char *id[EX_MAXBOUND]; int n, overflow; } ex_bound;

static void ex_bind(ex_bound *bn, const char *id)
{
    if (bn->n < EX_MAXBOUND) bn->id[bn->n++] = id;
    else bn->overflow = 1;
}

static int ex_is_bound(const ex_bound *bn, const char *id)
{
    for (int i = 0; i < bn->n; i++) if (strcmp(bn->id[i], id) == 0) return 1;
    return 0;
}

static void ex_bind_expr(ex_bound *bn, const ir_expr *e)
{
    if (!e) return;
    switch (e->kind) {
    case IR_E_ACCESS:
        for (int i = 0; i < e->u.access.nidx; i++) ex_bind_expr(bn, e->u.access.idx[i]);
        return;
    case IR_E_UNARY: case IR_E_BINARY: ex_bind_expr(bn, e->u.op.a); ex_bind_expr(bn, e->u.op.b); return;
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++) ex_bind_expr(bn, e->u.call.args[i]);
        return;
    case IR_E_REDUCE:
        ex_bind(bn, e->u.reduce.var);
        ex_bind_expr(bn, e->u.reduce.lo);
        ex_bind_expr(bn, e->u.reduce.hi);
        ex_bind_expr(bn, e->u.reduce.body);
        return;
    case IR_E_REPEAT:
        ex_bind_expr(bn, e->u.repeat.k);
        for (int i = 0; i < e->u.repeat.nargs; i++) ex_bind_expr(bn, e->u.repeat.args[i]);
        return;
    default: return;
    }
}

/* Binds the names of statements from..; 0 when the block holds what has no rows here (a nested
 * loop, a collective; not a loop of sends this mode leaves out). */
static int ex_bind_block(const ex_em *m, ex_bound *bn, const ir_block *b, int from)
{
    for (int i = from; i < b->n; i++) {
        const ir_stmt *s = b->stmts[i];
        if ((s->kind == IR_S_FOR || s->kind == IR_S_IF) && ex_silent(m, s)) continue;   /* not emitted */
        switch (s->kind) {
        case IR_S_ASSIGN: ex_bind_expr(bn, s->u.assign.lhs); ex_bind_expr(bn, s->u.assign.rhs); break;
        case IR_S_LET: ex_bind(bn, s->u.let.var); ex_bind_expr(bn, s->u.let.value); break;
        case IR_S_IF:
            ex_bind_expr(bn, s->u.if_.cond);
            if (!ex_bind_block(m, bn, s->u.if_.then_blk, 0)) return 0;
            if (s->u.if_.else_blk && !ex_bind_block(m, bn, s->u.if_.else_blk, 0)) return 0;
            break;
        case IR_S_SEND: break;   /* its element is not looked for rows (halo steps omit sends) */
        case IR_S_FOR: case IR_S_COLL: case IR_S_RECV: return 0;
        }
    }
    return 1;
}

/* Whether e has the same value throughout the loop: no array, no name bound in it. */
static int ex_invariant(const ir_expr *e, const ex_bound *bn)
{
    switch (e->kind) {
    case IR_E_INT: case IR_E_REAL: return 1;
    case IR_E_NAME:
        if (e->u.name.nk == IR_N_ARRAY) return 0;
        return e->u.name.nk == IR_N_PARAM || !ex_is_bound(bn, e->u.name.id);
    case IR_E_UNARY: case IR_E_BINARY:
        return ex_invariant(e->u.op.a, bn) && (!e->u.op.b || ex_invariant(e->u.op.b, bn));
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++) if (!ex_invariant(e->u.call.args[i], bn)) return 0;
        return 1;
    default: return 0;   /* accesses, reductions, repeat */
    }
}

/* Is a's index function linear in its last index (not a folded time plane, not strided, not a
 * pieced memory of several pieces: one piece's rows start where X_rowbase says)? */
int ex_rows_linear(const ex_array *a)
{
    int nd = a->decl->u.array.ndims;
    const ir_decl *dd = a->dist;
    if (a->pieced) return a->fold < 0 && ex_piece_rows_linear(a);
    if (a->fold == nd - 1) return 0;
    return !(dd && dd->u.dist.dk == IR_DIST_LOCAL && dd->u.dist.step && dd->u.dist.step[nd - 1]);
}

int ex_row_call(const ex_em *m, strbuf *out, int array, const char *who, char *const *sub, int nsub)
{
    const ex_array *a = &m->pl->arr[array];
    int nd = a->decl->u.array.ndims;
    if (nsub != nd || nd < 1 || !ex_rows_linear(a)) return 0;
    if (a->pieced) {   /* this processor's pieces only */
        if (!m->me || !who || strcmp(who, m->me)) return 0;
        strbuf_printf(out, "%s_rowbase(%s", a->cname, who);
        for (int d = 0; d < nd - 1; d++) strbuf_printf(out, ", %s", sub[d]);
        strbuf_printf(out, ")");
        return 1;
    }
    strbuf_printf(out, "%s_at(", a->cname);
    if (m->pl->mpi) strbuf_printf(out, "%s, ", who);
    for (int d = 0; d < nd - 1; d++) strbuf_printf(out, "%s, ", sub[d]);
    strbuf_printf(out, "0)");
    return 1;
}

int ex_cell_call(const ex_em *m, strbuf *out, int array, const char *who, char *const *sub, int nsub)
{
    const ex_array *a = &m->pl->arr[array];
    int nd = a->decl->u.array.ndims;
    if (nsub != nd || nd < 1 || ex_rows_linear(a)) return 0;
    if (a->pieced && (!m->me || !who || strcmp(who, m->me))) return 0;   /* this processor's pieces only */
    strbuf_printf(out, "%s_at(", a->cname);
    if (m->pl->mpi) strbuf_printf(out, "%s, ", who);
    for (int d = 0; d < nd; d++) strbuf_printf(out, "%s%s", d ? ", " : "", sub[d]);
    strbuf_printf(out, ")");
    return 1;
}

const char *ex_rows_find(const ex_em *m, const char *call)
{
    for (const ex_rows *t = m->rows; t; t = t->outer)
        for (int i = 0; i < t->n; i++)
            if (strcmp(t->r[i].call, call) == 0) return t->r[i].name;
    return NULL;
}

/* Declares a row or cell named prefixN, identified by `call`, computed as `init`; the comment
 * names the access (its subscripts but the last for a row). */
static void ex_rows_declare(ex_em *in_loop, strbuf *b, int in, const char *prefix, strbuf *call, const char *init,
                            const ir_expr *e, int nshown)
{
    ex_rows *t = in_loop->rows;
    const ex_array *a = &in_loop->pl->arr[e->u.access.array_index];
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 8;
        t->r = xrealloc(t->r, (size_t)t->cap * sizeof *t->r);
    }
    ex_row *r = &t->r[t->n++];
    snprintf(r->name, sizeof r->name, "%s%d", prefix, ++*in_loop->tmp);
    r->call = strbuf_take(call);
    if (t->turns)   /* the array is declared before the loop over the turns (ex_rows_open_jam) */
        strbuf_printf(b, "%*s%s[rt_turn] = %s;   /* %s", in, "", r->name, init ? init : r->call, a->decl->u.array.name);
    else
        strbuf_printf(b, "%*sconst int64_t %s = %s;   /* %s", in, "", r->name, init ? init : r->call,
                      a->decl->u.array.name);
    for (int d = 0; d < nshown; d++) {
        char *text = ir_print_expr(e->u.access.idx[d]);
        strbuf_printf(b, "[%s]", text ? text : "?");
        free(text);
    }
    strbuf_printf(b, "%s */\n", nshown < e->u.access.nidx ? "[..]" : "");
}

/* A candidate access: declared as a row when its subscripts but the last are invariant, as a
 * cell when its array has no rows and every subscript is invariant. */
static void ex_rows_access(ex_em *in_loop, strbuf *b, int in, const ir_expr *e, const ex_bound *bn)
{
    const ex_array *a = &in_loop->pl->arr[e->u.access.array_index];
    int nd = a->decl->u.array.ndims, linear = ex_rows_linear(a);
    if (e->u.access.nidx != nd || nd < 1 || (linear && nd == 1)) return;   /* a vector is its own row */
    if (in_loop->regs && in_loop->regs->array == e->u.access.array_index) return;   /* in registers */
    for (int d = 0; d < nd - 1; d++)
        if (!ex_invariant(e->u.access.idx[d], bn)) return;
    if (!linear && !ex_invariant(e->u.access.idx[nd - 1], bn)) return;
    int nsub = linear ? nd - 1 : nd;
    char **sub = xcalloc((size_t)nd, sizeof *sub);
    strbuf pre = {0}, call = {0}, init = {0};
    ex_em plain = *in_loop;   /* subscripts are plain C where they are used (ex_expr), so here too */
    plain.checked = 0;
    for (int d = 0; d < nsub; d++) {
        strbuf s = {0};
        ex_expr(&plain, &s, &pre, in, e->u.access.idx[d]);
        sub[d] = strbuf_take(&s);
    }
    int ok = linear ? ex_row_call(&plain, &call, e->u.access.array_index, in_loop->me, sub, nd)
                    : ex_cell_call(&plain, &call, e->u.access.array_index, in_loop->me, sub, nd);
    if (ok && !pre.s && !ex_rows_find(in_loop, call.s)) {
        if (!linear && a->pieced) {   /* X_cell: no error where the loop would not touch it */
            strbuf_printf(&init, "%s_cell(%s", a->cname, in_loop->me);
            for (int d = 0; d < nd; d++) strbuf_printf(&init, ", %s", sub[d]);
            strbuf_printf(&init, ")");
        }
        ex_rows_declare(in_loop, b, in, linear ? "rt_row" : "rt_cell", &call, init.s, e, nsub);
    }
    for (int d = 0; d < nd; d++) free(sub[d]);
    free(sub);
    strbuf_free(&pre);
    strbuf_free(&call);
    strbuf_free(&init);
}

static void ex_rows_expr(ex_em *in_loop, strbuf *b, int in, const ir_expr *e, const ex_bound *bn)
{
    if (!e) return;
    switch (e->kind) {
    case IR_E_ACCESS:
        ex_rows_access(in_loop, b, in, e, bn);
        for (int i = 0; i < e->u.access.nidx; i++) ex_rows_expr(in_loop, b, in, e->u.access.idx[i], bn);
        return;
    case IR_E_UNARY: case IR_E_BINARY:
        ex_rows_expr(in_loop, b, in, e->u.op.a, bn);
        ex_rows_expr(in_loop, b, in, e->u.op.b, bn);
        return;
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++) ex_rows_expr(in_loop, b, in, e->u.call.args[i], bn);
        return;
    case IR_E_REDUCE:
        ex_rows_expr(in_loop, b, in, e->u.reduce.lo, bn);
        ex_rows_expr(in_loop, b, in, e->u.reduce.hi, bn);
        ex_rows_expr(in_loop, b, in, e->u.reduce.body, bn);
        return;
    case IR_E_REPEAT:
        ex_rows_expr(in_loop, b, in, e->u.repeat.k, bn);
        for (int i = 0; i < e->u.repeat.nargs; i++) ex_rows_expr(in_loop, b, in, e->u.repeat.args[i], bn);
        return;
    default: return;
    }
}

static void ex_rows_block(ex_em *in_loop, strbuf *b, int in, const ir_block *blk, int from, const ex_bound *bn)
{
    for (int i = from; i < blk->n; i++) {
        const ir_stmt *s = blk->stmts[i];
        switch (s->kind) {
        case IR_S_ASSIGN:
            if (in_loop->mode == EX_MARK) {   /* the replay: a marked output's target alone */
                const ir_expr *l = s->u.assign.lhs;
                if (l->kind == IR_E_ACCESS && in_loop->pl->arr[l->u.access.array_index].mark)
                    ex_rows_expr(in_loop, b, in, l, bn);
                break;
            }
            ex_rows_expr(in_loop, b, in, s->u.assign.lhs, bn);
            ex_rows_expr(in_loop, b, in, s->u.assign.rhs, bn);
            break;
        case IR_S_LET: ex_rows_expr(in_loop, b, in, s->u.let.value, bn); break;
        case IR_S_IF:
            ex_rows_expr(in_loop, b, in, s->u.if_.cond, bn);
            ex_rows_block(in_loop, b, in, s->u.if_.then_blk, 0, bn);
            if (s->u.if_.else_blk) ex_rows_block(in_loop, b, in, s->u.if_.else_blk, 0, bn);
            break;
        default: break;
        }
    }
}

/* ex_rows_open over the loops named var[0 .. nvar) (outer: the loop around an innermost one). */
static void ex_rows_open_vars(const ex_em *m, ex_em *in_loop, strbuf *b, int in, const char *const *var, int nvar,
                              const ir_block *body, int from, const ir_expr *e)
{
    *in_loop = *m;
    if (m->mode == EX_INSPECT || !m->tmp) return;
    ex_bound bn = {.n = 0};
    for (int i = 0; i < nvar; i++) ex_bind(&bn, var[i]);
    if (body && !ex_bind_block(m, &bn, body, from)) return;
    ex_bind_expr(&bn, e);
    if (bn.overflow) return;
    ex_rows *t = xcalloc(1, sizeof *t);
    t->outer = m->rows;
    in_loop->rows = t;
    if (body) ex_rows_block(in_loop, b, in, body, from, &bn);
    ex_rows_expr(in_loop, b, in, e, &bn);
}

void ex_rows_open(const ex_em *m, ex_em *in_loop, strbuf *b, int in, const char *var, const ir_block *body,
                  int from, const ir_expr *e)
{
    ex_rows_open_vars(m, in_loop, b, in, &var, 1, body, from, e);
}

int ex_rows_open_around(const ex_em *m, ex_em *in_loop, strbuf *b, int in, const char *outer, const char *var,
                        const ir_block *body, int from)
{
    const char *vars[2] = { outer, var };
    ex_rows_open_vars(m, in_loop, b, in, vars, 2, body, from, NULL);
    return in_loop->rows != m->rows ? in_loop->rows->n : 0;
}

static void ex_rows_free(ex_rows *t)
{
    for (int i = 0; t && i < t->n; i++) free(t->r[i].call);
    if (t) free(t->r);
    free(t);
}

void ex_rows_close(ex_em *in_loop, const ex_em *m)
{
    if (in_loop->rows != m->rows) ex_rows_free(in_loop->rows);
    if (in_loop->jam_rows != m->jam_rows) ex_rows_free(in_loop->jam_rows);
    in_loop->rows = m->rows;
    in_loop->jam_rows = m->jam_rows;
}

int ex_text_names(const char *text, const char *id)
{
    size_t n = strlen(id);
    for (const char *p = text ? strstr(text, id) : NULL; p; p = strstr(p + 1, id)) {
        int before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
        int after = isalnum((unsigned char)p[n]) || p[n] == '_';
        if (!before && !after) return 1;
    }
    return 0;
}

int ex_let_read(const ir_stmt *let, const char *text, const strbuf *part, const int *keep, int n)
{
    char x[64];
    ex_nm(let->u.let.var, x);
    if (ex_text_names(text, x)) return 1;
    for (int l = 0; l < n; l++)
        if (keep[l] && ex_text_names(part[l].s, x)) return 1;
    return 0;
}

/* Binds into bn the lets of body computed from what bn holds (in order); 0 when body holds other
 * than lets and assignments. */
static int ex_bind_moving_lets(ex_bound *bn, const ir_block *body)
{
    for (int i = 0; i < body->n; i++) {
        const ir_stmt *s = body->stmts[i];
        if (s->kind == IR_S_ASSIGN) { ex_bind_expr(bn, s->u.assign.lhs); ex_bind_expr(bn, s->u.assign.rhs); }
        else if (s->kind != IR_S_LET) return 0;   /* (a condition, a send: no rows) */
        else if (!ex_invariant(s->u.let.value, bn)) ex_bind(bn, s->u.let.var);
    }
    return !bn->overflow;
}

/* The lets of body outside bn that text names, or a later one of them does, as C into out. */
static void ex_lets_for(const ex_em *m, strbuf *out, const ir_block *body, const ex_bound *bn, const char *text,
                        int in)
{
    int n = body->n;
    strbuf *part = xcalloc((size_t)(n ? n : 1), sizeof *part);
    int *keep = xcalloc((size_t)(n ? n : 1), sizeof *keep);
    for (int i = n - 1; i >= 0; i--) {
        const ir_stmt *s = body->stmts[i];
        keep[i] = 0;
        if (s->kind != IR_S_LET || ex_is_bound(bn, s->u.let.var)) continue;
        keep[i] = ex_let_read(s, text, part + i + 1, keep + i + 1, n - i - 1);
        if (keep[i]) ex_emit_stmt(m, &part[i], body, i, in);
    }
    for (int i = 0; i < n; i++) {
        if (keep[i] && part[i].s) strbuf_printf(out, "%s", part[i].s);
        strbuf_free(&part[i]);
    }
    free(part);
    free(keep);
}

int ex_rows_open_jam(const ex_em *m, ex_em *in_loop, strbuf *b, int in, const char *around, const ir_stmt *j)
{
    *in_loop = *m;
    const ir_block *body = j->u.for_.body;
    const ir_expr *lo_arg, *hi_arg;
    int turns = ir_jam_loop(j, around, &lo_arg, &hi_arg);
    if (m->mode == EX_INSPECT || !m->tmp || !turns) return 0;
    /* what moves with around (bn), and with around or the turns (bt) */
    ex_bound bn = {.n = 0}, bt = {.n = 0};
    ex_bind(&bn, around);
    ex_bind(&bt, around);
    ex_bind(&bt, j->u.for_.vars[0].var);
    if (!ex_bind_moving_lets(&bn, body) || !ex_bind_moving_lets(&bt, body)) return 0;
    /* the rows every turn shares (syrk's C[i][..], i = p): one each, before the loop, so that
     * gcc sees the turns' elements apart (C[rt_row2 + j], j = jj .. jj + 3) */
    ex_rows *sh = xcalloc(1, sizeof *sh), *t = xcalloc(1, sizeof *t);
    sh->outer = m->rows;
    in_loop->rows = sh;
    ex_em fill = *m;
    fill.rows = sh;
    strbuf rs = {0}, rb = {0}, lets = {0};
    ex_rows_block(&fill, &rs, in, body, 0, &bt);
    ex_lets_for(m, b, body, &bt, rs.s, in);
    if (rs.s) strbuf_printf(b, "%s", rs.s);
    /* each turn's (mvt's A[i][..], i = p the turn's row): an array of one per turn; not a
     * register tile's, whose turns are a loop (export_regs.c): gcc keeps its elements in
     * registers only where their rows are computed in that loop, not read from an array */
    if (m->regs) {
        free(t);
        strbuf_free(&rs);
        return sh->n;
    }
    t->outer = sh;
    t->turns = turns;
    in_loop->jam_rows = t;
    fill.rows = t;
    ex_rows_block(&fill, &rb, in + 4, body, 0, &bn);
    if (t->n) {
        char x[64], y[64];
        ex_nm(j->u.for_.vars[0].var, x);
        ex_lets_for(m, &lets, body, &bn, rb.s, in + 4);
        ex_indent(b, in);
        strbuf_printf(b, "int64_t ");
        for (int i = 0; i < t->n; i++) strbuf_printf(b, "%s%s[%d]", i ? ", " : "", t->r[i].name, turns);
        strbuf_printf(b, ";   /* each turn's rows */\n");
        ex_indent(b, in);
        strbuf_printf(b, "for (int64_t rt_turn = 0; rt_turn < %d; rt_turn++) {\n", turns);
        ex_indent(b, in + 4);
        strbuf_printf(b, "const int64_t %s = %s + rt_turn;\n", x, ex_nm(lo_arg->u.name.id, y));
        if (!ex_text_names(lets.s, x) && !ex_text_names(rb.s, x)) {
            ex_indent(b, in + 4);
            strbuf_printf(b, "(void)%s;\n", x);
        }
        strbuf_printf(b, "%s%s", lets.s ? lets.s : "", rb.s);
        ex_indent(b, in);
        strbuf_printf(b, "}\n");
    }
    strbuf_free(&rs);
    strbuf_free(&rb);
    strbuf_free(&lets);
    return sh->n + t->n;
}

void ex_rows_turn(const ex_em *m, ex_em *turn, const char *idx)
{
    *turn = *m;
    const ex_rows *jr = m->jam_rows;
    ex_rows *t = xcalloc(1, sizeof *t);
    t->outer = m->rows;
    turn->rows = t;
    turn->jam_rows = NULL;
    for (int i = 0; jr && i < jr->n; i++) {
        if (t->n == t->cap) {
            t->cap = t->cap ? 2 * t->cap : 8;
            t->r = xrealloc(t->r, (size_t)t->cap * sizeof *t->r);
        }
        ex_row *r = &t->r[t->n++];
        r->call = xstrdup(jr->r[i].call);
        snprintf(r->name, sizeof r->name, "%.16s[%.12s]", jr->r[i].name, idx);
    }
}

void ex_rows_turn_close(ex_em *turn)
{
    ex_rows_free(turn->rows);
    turn->rows = NULL;
}
