/*
 * print.c — the canonical printer: IR to text (see "CANONICAL FORM" in polyapm-lang(5)).
 *
 * Two-space indentation, '{' on the statement's line, one statement per line, single spaces
 * around binary operators and '..', no spaces inside a[i][j], minimal parentheses by C's
 * precedence (comparisons never chain, so a comparison operand of a comparison is
 * parenthesised), reals in the shortest form that reads back exactly and always with '.' or
 * 'e', comments as "# text", a blank line between the declarations and the statements.
 *
 * A reduction's body extends over * / % to its right (sum(k = 1 .. n) a[k] * b[k]), so a
 * reduction that a * / % operator follows is parenthesised.
 */
#include "ir.h"
#include "strbuf.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void bindent(strbuf *b, int ind)
{
    for (int i = 0; i < ind; i++) strbuf_puts(b, "  ");
}

/* ---- expressions ---------------------------------------------------------------------------- */

enum { PREC_OR = 1, PREC_AND, PREC_CMP, PREC_ADD, PREC_MUL, PREC_UNARY, PREC_PRIMARY };

static const int op_prec[] = {
    [IR_OP_ADD] = PREC_ADD, [IR_OP_SUB] = PREC_ADD, [IR_OP_MUL] = PREC_MUL,
    [IR_OP_DIV] = PREC_MUL, [IR_OP_MOD] = PREC_MUL, [IR_OP_LT] = PREC_CMP,
    [IR_OP_LE] = PREC_CMP, [IR_OP_GT] = PREC_CMP, [IR_OP_GE] = PREC_CMP,
    [IR_OP_EQ] = PREC_CMP, [IR_OP_NE] = PREC_CMP, [IR_OP_AND] = PREC_AND,
    [IR_OP_OR] = PREC_OR, [IR_OP_NEG] = PREC_UNARY, [IR_OP_NOT] = PREC_UNARY,
};

static int prec_of(const ir_expr *e)
{
    switch (e->kind) {
    case IR_E_BINARY: return (unsigned)e->u.op.op < sizeof op_prec / sizeof op_prec[0] ? op_prec[e->u.op.op] : PREC_ADD;
    case IR_E_UNARY: return PREC_UNARY;
    case IR_E_INT: return e->u.ival < 0 ? PREC_UNARY : PREC_PRIMARY;
    case IR_E_REAL: return signbit(e->u.rval) ? PREC_UNARY : PREC_PRIMARY;
    default: return PREC_PRIMARY;
    }
}

static void fmt_real(char *out, size_t n, double v)
{
    if (isnan(v) || isinf(v)) {   /* not expressible in the language; keep the text readable */
        snprintf(out, n, "%s", isnan(v) ? "0.0 / 0.0" : v > 0 ? "1e999" : "-1e999");
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(out, n, "%.*g", prec, v);
        if (strtod(out, NULL) == v) break;
    }
    if (strchr(out, 'e') && fabs(v) >= 1e-4 && fabs(v) < 1e15)   /* 10.0 and 0.0015, not 1e+01 */
        for (int digits = 1; digits <= 20; digits++) {
            snprintf(out, n, "%.*f", digits, v);
            if (strtod(out, NULL) == v) break;
        }
    if (!strpbrk(out, ".e")) {
        size_t l = strlen(out);
        if (l + 3 <= n) memcpy(out + l, ".0", 3);
    }
}

/* `tailmul`: the text printed for e will be followed directly by * / or %. */
static void print_expr(strbuf *b, const ir_expr *e, int tailmul);

static void print_paren(strbuf *b, const ir_expr *e, int paren, int tailmul)
{
    if (paren) strbuf_puts(b, "(");
    print_expr(b, e, paren ? 0 : tailmul);
    if (paren) strbuf_puts(b, ")");
}

static void print_expr(strbuf *b, const ir_expr *e, int tailmul)
{
    char tmp[64];
    if (!e) {
        strbuf_puts(b, "?");
        return;
    }
    switch (e->kind) {
    case IR_E_INT:
        if (e->u.ival == INT64_MIN) strbuf_puts(b, "(-9223372036854775807 - 1)");
        else {
            snprintf(tmp, sizeof tmp, "%" PRId64, e->u.ival);
            strbuf_puts(b, tmp);
        }
        break;
    case IR_E_REAL:
        fmt_real(tmp, sizeof tmp, e->u.rval);
        strbuf_puts(b, tmp);
        break;
    case IR_E_NAME: strbuf_puts(b, e->u.name.id ? e->u.name.id : "?"); break;
    case IR_E_ACCESS:
        strbuf_puts(b, e->u.access.array ? e->u.access.array : "?");
        for (int i = 0; i < e->u.access.nidx; i++) {
            strbuf_puts(b, "[");
            print_expr(b, e->u.access.idx[i], 0);
            strbuf_puts(b, "]");
        }
        break;
    case IR_E_UNARY:
        strbuf_puts(b, ir_op_text(e->u.op.op));
        print_paren(b, e->u.op.a, e->u.op.a && prec_of(e->u.op.a) < PREC_UNARY, tailmul);
        break;
    case IR_E_BINARY: {
        int p = prec_of(e);
        const ir_expr *l = e->u.op.a, *r = e->u.op.b;
        int lp = l && (prec_of(l) < p || (p == PREC_CMP && prec_of(l) == PREC_CMP));
        int rp = r && prec_of(r) <= p;
        print_paren(b, l, lp, p == PREC_MUL);
        strbuf_puts(b, " ");
        strbuf_puts(b, ir_op_text(e->u.op.op));
        strbuf_puts(b, " ");
        print_paren(b, r, rp, tailmul);
        break;
    }
    case IR_E_CALL:
        strbuf_puts(b, ir_func_name(e->u.call.f));
        strbuf_puts(b, "(");
        for (int i = 0; i < e->u.call.nargs; i++) {
            if (i) strbuf_puts(b, ", ");
            print_expr(b, e->u.call.args[i], 0);
        }
        strbuf_puts(b, ")");
        break;
    case IR_E_REDUCE:
        if (tailmul) strbuf_puts(b, "(");
        strbuf_puts(b, ir_reduce_name(e->u.reduce.r));
        strbuf_puts(b, "(");
        strbuf_puts(b, e->u.reduce.var ? e->u.reduce.var : "?");
        strbuf_puts(b, " = ");
        print_expr(b, e->u.reduce.lo, 0);
        strbuf_puts(b, " .. ");
        print_expr(b, e->u.reduce.hi, 0);
        strbuf_puts(b, ") ");
        print_paren(b, e->u.reduce.body, e->u.reduce.body && prec_of(e->u.reduce.body) < PREC_MUL, 0);
        if (tailmul) strbuf_puts(b, ")");
        break;
    case IR_E_REPEAT:
        strbuf_puts(b, "repeat(");
        strbuf_puts(b, e->u.repeat.op.name ? e->u.repeat.op.name : "?");
        strbuf_puts(b, ", ");
        print_expr(b, e->u.repeat.k, 0);
        for (int i = 0; i < e->u.repeat.nargs; i++) {
            strbuf_puts(b, ", ");
            print_expr(b, e->u.repeat.args[i], 0);
        }
        strbuf_puts(b, ")");
        break;
    }
}

/* e | (e1, e2, ..) */
static void print_tuple(strbuf *b, ir_expr *const *v, int n)
{
    if (n == 1) {
        print_expr(b, v[0], 0);
        return;
    }
    strbuf_puts(b, "(");
    for (int i = 0; i < n; i++) {
        if (i) strbuf_puts(b, ", ");
        print_expr(b, v[i], 0);
    }
    strbuf_puts(b, ")");
}

char *ir_print_expr(const ir_expr *e)
{
    strbuf b = {0};
    print_expr(&b, e, 0);
    return strbuf_take(&b);
}

/* ---- comments ------------------------------------------------------------------------------- */

static void print_comment_line(strbuf *b, const char *text, int ind)
{
    bindent(b, ind);
    strbuf_puts(b, "#");
    if (text && *text) {
        strbuf_puts(b, " ");
        strbuf_puts(b, text);
    }
    strbuf_puts(b, "\n");
}

static void print_lead(strbuf *b, const ir_comments *c, int ind)
{
    for (int i = 0; i < c->nlead; i++) print_comment_line(b, c->lead[i], ind);
}

static void print_trail(strbuf *b, const ir_comments *c)
{
    if (!c->trail) return;
    strbuf_puts(b, " #");
    if (*c->trail) {
        strbuf_puts(b, " ");
        strbuf_puts(b, c->trail);
    }
}

/* ---- statements ----------------------------------------------------------------------------- */

static void print_stmt(strbuf *b, const ir_stmt *s, int ind);

static void print_cost(strbuf *b, const ir_expr *cost)
{
    if (!cost) return;
    strbuf_puts(b, " cost ");
    print_expr(b, cost, 0);
}

/* "{\n" statements "}" — the caller has printed the line up to the '{'. */
static void print_block_body(strbuf *b, const ir_block *blk, int ind)
{
    strbuf_puts(b, " {\n");
    if (blk) {
        for (int i = 0; i < blk->n; i++) print_stmt(b, blk->stmts[i], ind + 1);
        print_lead(b, &blk->tail, ind + 1);
    }
    bindent(b, ind);
    strbuf_puts(b, "}");
}

static int is_else_if(const ir_block *e)
{
    if (!e || e->n != 1 || e->cost || e->tail.nlead) return 0;
    const ir_stmt *s = e->stmts[0];
    return s && s->kind == IR_S_IF && !s->comments.nlead && !s->comments.trail && !s->cost;
}

static void print_if(strbuf *b, const ir_stmt *s, int ind)
{
    strbuf_puts(b, "if ");
    print_expr(b, s->u.if_.cond, 0);
    print_cost(b, s->u.if_.then_blk ? s->u.if_.then_blk->cost : NULL);
    print_block_body(b, s->u.if_.then_blk, ind);
    const ir_block *e = s->u.if_.else_blk;
    if (!e) return;
    if (is_else_if(e)) {
        strbuf_puts(b, " else ");
        print_if(b, e->stmts[0], ind);
        return;
    }
    strbuf_puts(b, " else");
    print_cost(b, e->cost);
    print_block_body(b, e, ind);
}

static const char *const loop_kind_text[] = {
    [IR_LOOP_DEFAULT] = "", [IR_LOOP_SEQ] = " seq", [IR_LOOP_PAR] = " par", [IR_LOOP_PROC] = " proc",
};

static void print_index_list(strbuf *b, ir_expr *const *idx, int n)
{
    for (int i = 0; i < n; i++) {
        strbuf_puts(b, "[");
        print_expr(b, idx[i], 0);
        strbuf_puts(b, "]");
    }
}

/* A block reference (NULL is `_`) with its range, or a parenthesised list of them when n != 1. */
static void print_blocks(strbuf *b, ir_expr *const *v, ir_expr *const *lo, ir_expr *const *hi, int n)
{
    if (n != 1) strbuf_puts(b, "(");
    for (int i = 0; i < n; i++) {
        if (i) strbuf_puts(b, ", ");
        if (v[i]) print_expr(b, v[i], 0);
        else strbuf_puts(b, "_");
        if (v[i] && lo && lo[i]) {
            strbuf_puts(b, "[");
            print_expr(b, lo[i], 0);
            strbuf_puts(b, " .. ");
            print_expr(b, hi ? hi[i] : NULL, 0);
            strbuf_puts(b, "]");
        }
    }
    if (n != 1) strbuf_puts(b, ")");
}

static void print_coll(strbuf *b, const ir_stmt *s)
{
    if (s->u.coll.label) {
        strbuf_puts(b, s->u.coll.label);
        strbuf_puts(b, ": ");
    }
    print_blocks(b, s->u.coll.dst, s->u.coll.dst_lo, s->u.coll.dst_hi, s->u.coll.ndst);
    strbuf_puts(b, " = ");
    strbuf_puts(b, ir_coll_name(s->u.coll.ck));
    if (s->u.coll.op.name) {
        strbuf_puts(b, "(");
        strbuf_puts(b, s->u.coll.op.name);
        strbuf_puts(b, ")");
    }
    strbuf_puts(b, " ");
    print_blocks(b, s->u.coll.src, s->u.coll.src_lo, s->u.coll.src_hi, s->u.coll.nsrc);
    const char *word = ir_coll_root_word(s->u.coll.ck);
    if (word && s->u.coll.root) {
        strbuf_puts(b, " ");
        strbuf_puts(b, word);
        strbuf_puts(b, " ");
        print_expr(b, s->u.coll.root, 0);
    }
    if (s->u.coll.by) {
        strbuf_puts(b, " by ");
        print_expr(b, s->u.coll.by, 0);
    }
    if (s->u.coll.when) {
        strbuf_puts(b, " when ");
        print_expr(b, s->u.coll.when, 0);
    }
}

static void print_stmt(strbuf *b, const ir_stmt *s, int ind)
{
    if (!s) return;
    print_lead(b, &s->comments, ind);
    bindent(b, ind);
    switch (s->kind) {
    case IR_S_ASSIGN:
        if (s->u.assign.label) {
            strbuf_puts(b, s->u.assign.label);
            strbuf_puts(b, ": ");
        }
        print_expr(b, s->u.assign.lhs, 0);
        strbuf_puts(b, " = ");
        print_expr(b, s->u.assign.rhs, 0);
        print_cost(b, s->cost);
        break;
    case IR_S_LET:
        strbuf_puts(b, "let ");
        strbuf_puts(b, s->u.let.var ? s->u.let.var : "?");
        strbuf_puts(b, " = ");
        print_expr(b, s->u.let.value, 0);
        break;
    case IR_S_IF:
        print_if(b, s, ind);
        break;
    case IR_S_FOR:
        strbuf_puts(b, "for ");
        for (int i = 0; i < s->u.for_.nvars; i++) {
            const ir_loopvar *v = &s->u.for_.vars[i];
            if (i) strbuf_puts(b, ", ");
            strbuf_puts(b, v->var ? v->var : "?");
            strbuf_puts(b, " = ");
            print_expr(b, v->lo, 0);
            strbuf_puts(b, " .. ");
            print_expr(b, v->hi, 0);
            if (v->step) {
                strbuf_puts(b, " step ");
                print_expr(b, v->step, 0);
            }
            if ((unsigned)v->kind < 4) strbuf_puts(b, loop_kind_text[v->kind]);
        }
        print_cost(b, s->u.for_.body ? s->u.for_.body->cost : NULL);
        print_block_body(b, s->u.for_.body, ind);
        break;
    case IR_S_SEND:
        strbuf_puts(b, "send ");
        print_expr(b, s->u.send.what, 0);
        strbuf_puts(b, " to ");
        print_expr(b, s->u.send.to_lo, 0);
        if (s->u.send.to_hi) {
            strbuf_puts(b, " .. ");
            print_expr(b, s->u.send.to_hi, 0);
        }
        strbuf_puts(b, " at ");
        print_expr(b, s->u.send.at, 0);
        if (s->u.send.when) {
            strbuf_puts(b, " when ");
            print_expr(b, s->u.send.when, 0);
        }
        if (s->u.send.as_idx && s->u.send.nas > 0) {
            strbuf_puts(b, " as ");
            print_index_list(b, s->u.send.as_idx, s->u.send.nas);
        }
        print_cost(b, s->cost);
        break;
    case IR_S_COLL:
        print_coll(b, s);
        break;
    case IR_S_RECV:
        strbuf_puts(b, "recv");
        break;
    }
    print_trail(b, &s->comments);
    strbuf_puts(b, "\n");
}

/* ---- declarations --------------------------------------------------------------------------- */

static void print_ranges(strbuf *b, ir_expr *const *lo, ir_expr *const *hi, int n)
{
    for (int i = 0; i < n; i++) {
        strbuf_puts(b, "[");
        print_expr(b, lo ? lo[i] : NULL, 0);
        strbuf_puts(b, " .. ");
        print_expr(b, hi ? hi[i] : NULL, 0);
        strbuf_puts(b, "]");
    }
}

static void print_fields(strbuf *b, const ir_field *f, int n)
{
    strbuf_puts(b, "(");
    for (int i = 0; i < n; i++) {
        if (i) strbuf_puts(b, ", ");
        strbuf_puts(b, f[i].name ? f[i].name : "?");
        strbuf_puts(b, f[i].type == IR_INT ? " int" : " double");
    }
    strbuf_puts(b, ")");
}

static void print_pattern(strbuf *b, const ir_pattern *pt)
{
    if (pt->n != 1) strbuf_puts(b, "(");
    for (int i = 0; i < pt->n; i++) {
        if (i) strbuf_puts(b, ", ");
        strbuf_puts(b, pt->names[i] ? pt->names[i] : "?");
    }
    if (pt->n != 1) strbuf_puts(b, ")");
}

static const char *const opitem_words[] = {
    [IR_OI_COMMUTATIVE] = "commutative", [IR_OI_NONCOMMUTATIVE] = "noncommutative",
    [IR_OI_NONASSOCIATIVE] = "nonassociative",
};

static void print_op(strbuf *b, const ir_decl *d)
{
    strbuf_puts(b, "op ");
    strbuf_puts(b, d->u.op.name ? d->u.op.name : "?");
    strbuf_puts(b, " {\n");
    for (int i = 0; i < d->u.op.nitems; i++) {
        const ir_opitem *it = &d->u.op.items[i];
        print_lead(b, &it->comments, 1);
        bindent(b, 1);
        switch (it->kind) {
        case IR_OI_STATE: case IR_OI_IN:
            strbuf_puts(b, it->kind == IR_OI_STATE ? "state " : "in ");
            print_fields(b, it->fields, it->nfields);
            break;
        case IR_OI_CLAUSE:
            strbuf_puts(b, ir_clause_name(it->clause));
            for (int k = 0; k < it->npats; k++) {
                strbuf_puts(b, " ");
                print_pattern(b, &it->pats[k]);
            }
            strbuf_puts(b, " = ");
            if (it->nlets > 0) {
                strbuf_puts(b, "let ");
                for (int k = 0; k < it->nlets; k++) {
                    if (k) strbuf_puts(b, ", ");
                    strbuf_puts(b, it->lets[k] ? it->lets[k] : "?");
                    strbuf_puts(b, " = ");
                    print_expr(b, it->letv[k], 0);
                }
                strbuf_puts(b, " in ");
            }
            print_tuple(b, it->val, it->nval);
            break;
        case IR_OI_COMMUTATIVE: case IR_OI_NONCOMMUTATIVE: case IR_OI_NONASSOCIATIVE:
            strbuf_puts(b, opitem_words[it->kind]);
            break;
        case IR_OI_DISTRIBUTES:
            strbuf_puts(b, "distributes over ");
            strbuf_puts(b, it->over.name ? it->over.name : "?");
            break;
        }
        print_trail(b, &it->comments);
        strbuf_puts(b, "\n");
    }
    strbuf_puts(b, "}");
    print_trail(b, &d->comments);
    strbuf_puts(b, "\n");
}

/* Prints decls[i] (and, for params, those continuing its line); returns the next index. */
static int print_decl(strbuf *b, ir_decl *const *decls, int n, int i)
{
    const ir_decl *d = decls[i];
    print_lead(b, &d->comments, 0);
    if (d->kind == IR_D_OP) {
        print_op(b, d);
        return i + 1;
    }
    const char *trail = d->comments.trail;
    switch (d->kind) {
    case IR_D_PARAM:
        strbuf_puts(b, "param ");
        for (;;) {
            strbuf_puts(b, d->u.param.name ? d->u.param.name : "?");
            strbuf_puts(b, " = ");
            print_expr(b, d->u.param.value, 0);
            if (i + 1 < n && decls[i + 1]->kind == IR_D_PARAM && decls[i + 1]->u.param.cont &&
                !decls[i + 1]->comments.nlead && !(trail && decls[i + 1]->comments.trail)) {
                i++;
                d = decls[i];
                if (!trail) trail = d->comments.trail;
                strbuf_puts(b, ", ");
                continue;
            }
            break;
        }
        break;
    case IR_D_REFERENCE:
        strbuf_puts(b, "reference \"");
        strbuf_puts(b, d->u.reference.path ? d->u.reference.path : "");
        strbuf_puts(b, "\"");
        break;
    case IR_D_ARRAY:
        strbuf_puts(b, "array ");
        strbuf_puts(b, d->u.array.name ? d->u.array.name : "?");
        print_ranges(b, d->u.array.lo, d->u.array.hi, d->u.array.ndims);
        strbuf_puts(b, d->u.array.elem == IR_INT ? " int" : " double");
        break;
    case IR_D_INIT:
        strbuf_puts(b, "init ");
        strbuf_puts(b, d->u.init.array ? d->u.init.array : "?");
        print_index_list(b, d->u.init.idx, d->u.init.nidx);
        strbuf_puts(b, " = ");
        print_expr(b, d->u.init.value, 0);
        break;
    case IR_D_ASSUME:
        strbuf_puts(b, "assume ");
        strbuf_puts(b, d->u.assume.label ? d->u.assume.label : "?");
        strbuf_puts(b, " unchanged when ");
        print_expr(b, d->u.assume.cond, 0);
        break;
    case IR_D_OUTPUT:
        strbuf_puts(b, "output ");
        strbuf_puts(b, d->u.output.array ? d->u.output.array : "?");
        print_index_list(b, d->u.output.idx, d->u.output.nidx);
        break;
    case IR_D_DIST:
        strbuf_puts(b, "dist ");
        strbuf_puts(b, d->u.dist.array ? d->u.dist.array : "?");
        if (d->u.dist.dk == IR_DIST_REPLICATE) {
            strbuf_puts(b, " replicate");
            break;
        }
        strbuf_puts(b, "(");
        strbuf_puts(b, d->u.dist.procvar ? d->u.dist.procvar : "?");
        strbuf_puts(b, ")");
        if (d->u.dist.ndims > 0) {
            for (int pi = 0; pi <= d->u.dist.nmore; pi++) {
                ir_dist_piece pc = ir_dist_get_piece(d, pi);
                strbuf_puts(b, pi ? " + " : " ");
                for (int k = 0; k < d->u.dist.ndims; k++) {
                    strbuf_puts(b, "[");
                    if (pc.ivar && pc.ivar[k]) {
                        strbuf_puts(b, pc.ivar[k]);
                        strbuf_puts(b, " = ");
                    }
                    print_expr(b, pc.lo ? pc.lo[k] : NULL, 0);
                    strbuf_puts(b, " .. ");
                    print_expr(b, pc.hi ? pc.hi[k] : NULL, 0);
                    if (pc.step && pc.step[k]) {
                        strbuf_puts(b, " step ");
                        print_expr(b, pc.step[k], 0);
                        if (pc.block && pc.block[k]) {
                            strbuf_puts(b, " block ");
                            print_expr(b, pc.block[k], 0);
                        }
                    }
                    strbuf_puts(b, "]");
                }
            }
            if (d->u.dist.offset) {
                strbuf_puts(b, " offset ");
                print_index_list(b, d->u.dist.offset, d->u.dist.ndims);
            }
        }
        break;
    case IR_D_OP:
        break;
    }
    ir_comments tc = { NULL, 0, trail };
    print_trail(b, &tc);
    strbuf_puts(b, "\n");
    return i + 1;
}

char *ir_print(const ir_program *p)
{
    strbuf b = {0};
    print_lead(&b, &p->comments, 0);
    strbuf_puts(&b, "program ");
    strbuf_puts(&b, p->name ? p->name : "?");
    print_trail(&b, &p->comments);
    strbuf_puts(&b, "\nlevel ");
    strbuf_puts(&b, ir_level_name(p->level));
    strbuf_puts(&b, p->aggregate ? "\nmessages aggregate\n" : "\n");
    for (int i = 0; i < p->ndecls;) i = print_decl(&b, p->decls, p->ndecls, i);
    if (p->body && p->body->n > 0) {
        strbuf_puts(&b, "\n");
        for (int i = 0; i < p->body->n; i++) print_stmt(&b, p->body->stmts[i], 0);
    }
    if (p->body) print_lead(&b, &p->body->tail, 0);
    print_lead(&b, &p->tail, 0);
    return strbuf_take(&b);
}
