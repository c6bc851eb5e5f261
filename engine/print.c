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

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct buf {
    char *s;
    size_t n, cap;
} buf;

static void bputn(buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n + 1) cap *= 2;
        char *ns = realloc(b->s, cap);
        if (!ns) {
            fputs("polyapm: out of memory\n", stderr);
            abort();
        }
        b->s = ns;
        b->cap = cap;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
}
static void bput(buf *b, const char *s) { bputn(b, s, strlen(s)); }
static void bindent(buf *b, int ind)
{
    for (int i = 0; i < ind; i++) bput(b, "  ");
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
    if (!strpbrk(out, ".e")) {
        size_t l = strlen(out);
        if (l + 3 <= n) memcpy(out + l, ".0", 3);
    }
}

/* `tailmul`: the text printed for e will be followed directly by * / or %. */
static void print_expr(buf *b, const ir_expr *e, int tailmul);

static void print_paren(buf *b, const ir_expr *e, int paren, int tailmul)
{
    if (paren) bput(b, "(");
    print_expr(b, e, paren ? 0 : tailmul);
    if (paren) bput(b, ")");
}

static void print_expr(buf *b, const ir_expr *e, int tailmul)
{
    char tmp[64];
    if (!e) {
        bput(b, "?");
        return;
    }
    switch (e->kind) {
    case IR_E_INT:
        if (e->u.ival == INT64_MIN) bput(b, "(-9223372036854775807 - 1)");
        else {
            snprintf(tmp, sizeof tmp, "%" PRId64, e->u.ival);
            bput(b, tmp);
        }
        break;
    case IR_E_REAL:
        fmt_real(tmp, sizeof tmp, e->u.rval);
        bput(b, tmp);
        break;
    case IR_E_NAME: bput(b, e->u.name.id ? e->u.name.id : "?"); break;
    case IR_E_ACCESS:
        bput(b, e->u.access.array ? e->u.access.array : "?");
        for (int i = 0; i < e->u.access.nidx; i++) {
            bput(b, "[");
            print_expr(b, e->u.access.idx[i], 0);
            bput(b, "]");
        }
        break;
    case IR_E_UNARY:
        bput(b, ir_op_text(e->u.op.op));
        print_paren(b, e->u.op.a, e->u.op.a && prec_of(e->u.op.a) < PREC_UNARY, tailmul);
        break;
    case IR_E_BINARY: {
        int p = prec_of(e);
        const ir_expr *l = e->u.op.a, *r = e->u.op.b;
        int lp = l && (prec_of(l) < p || (p == PREC_CMP && prec_of(l) == PREC_CMP));
        int rp = r && prec_of(r) <= p;
        print_paren(b, l, lp, p == PREC_MUL);
        bput(b, " ");
        bput(b, ir_op_text(e->u.op.op));
        bput(b, " ");
        print_paren(b, r, rp, tailmul);
        break;
    }
    case IR_E_CALL:
        bput(b, ir_func_name(e->u.call.f));
        bput(b, "(");
        for (int i = 0; i < e->u.call.nargs; i++) {
            if (i) bput(b, ", ");
            print_expr(b, e->u.call.args[i], 0);
        }
        bput(b, ")");
        break;
    case IR_E_REDUCE:
        if (tailmul) bput(b, "(");
        bput(b, ir_reduce_name(e->u.reduce.r));
        bput(b, "(");
        bput(b, e->u.reduce.var ? e->u.reduce.var : "?");
        bput(b, " = ");
        print_expr(b, e->u.reduce.lo, 0);
        bput(b, " .. ");
        print_expr(b, e->u.reduce.hi, 0);
        bput(b, ") ");
        print_paren(b, e->u.reduce.body, e->u.reduce.body && prec_of(e->u.reduce.body) < PREC_MUL, 0);
        if (tailmul) bput(b, ")");
        break;
    case IR_E_REPEAT:
        bput(b, "repeat(");
        bput(b, e->u.repeat.op.name ? e->u.repeat.op.name : "?");
        bput(b, ", ");
        print_expr(b, e->u.repeat.k, 0);
        for (int i = 0; i < e->u.repeat.nargs; i++) {
            bput(b, ", ");
            print_expr(b, e->u.repeat.args[i], 0);
        }
        bput(b, ")");
        break;
    }
}

/* e | (e1, e2, ..) */
static void print_tuple(buf *b, ir_expr *const *v, int n)
{
    if (n == 1) {
        print_expr(b, v[0], 0);
        return;
    }
    bput(b, "(");
    for (int i = 0; i < n; i++) {
        if (i) bput(b, ", ");
        print_expr(b, v[i], 0);
    }
    bput(b, ")");
}

char *ir_print_expr(const ir_expr *e)
{
    buf b = { 0 };
    bput(&b, "");
    print_expr(&b, e, 0);
    return b.s;
}

/* ---- comments ------------------------------------------------------------------------------- */

static void print_comment_line(buf *b, const char *text, int ind)
{
    bindent(b, ind);
    bput(b, "#");
    if (text && *text) {
        bput(b, " ");
        bput(b, text);
    }
    bput(b, "\n");
}

static void print_lead(buf *b, const ir_comments *c, int ind)
{
    for (int i = 0; i < c->nlead; i++) print_comment_line(b, c->lead[i], ind);
}

static void print_trail(buf *b, const ir_comments *c)
{
    if (!c->trail) return;
    bput(b, " #");
    if (*c->trail) {
        bput(b, " ");
        bput(b, c->trail);
    }
}

/* ---- statements ----------------------------------------------------------------------------- */

static void print_stmt(buf *b, const ir_stmt *s, int ind);

static void print_cost(buf *b, const ir_expr *cost)
{
    if (!cost) return;
    bput(b, " cost ");
    print_expr(b, cost, 0);
}

/* "{\n" statements "}" — the caller has printed the line up to the '{'. */
static void print_block_body(buf *b, const ir_block *blk, int ind)
{
    bput(b, " {\n");
    if (blk) {
        for (int i = 0; i < blk->n; i++) print_stmt(b, blk->stmts[i], ind + 1);
        print_lead(b, &blk->tail, ind + 1);
    }
    bindent(b, ind);
    bput(b, "}");
}

static int is_else_if(const ir_block *e)
{
    if (!e || e->n != 1 || e->cost || e->tail.nlead) return 0;
    const ir_stmt *s = e->stmts[0];
    return s && s->kind == IR_S_IF && !s->comments.nlead && !s->comments.trail && !s->cost;
}

static void print_if(buf *b, const ir_stmt *s, int ind)
{
    bput(b, "if ");
    print_expr(b, s->u.if_.cond, 0);
    print_cost(b, s->u.if_.then_blk ? s->u.if_.then_blk->cost : NULL);
    print_block_body(b, s->u.if_.then_blk, ind);
    const ir_block *e = s->u.if_.else_blk;
    if (!e) return;
    if (is_else_if(e)) {
        bput(b, " else ");
        print_if(b, e->stmts[0], ind);
        return;
    }
    bput(b, " else");
    print_cost(b, e->cost);
    print_block_body(b, e, ind);
}

static const char *const loop_kind_text[] = {
    [IR_LOOP_DEFAULT] = "", [IR_LOOP_SEQ] = " seq", [IR_LOOP_PAR] = " par", [IR_LOOP_PROC] = " proc",
};

static void print_index_list(buf *b, ir_expr *const *idx, int n)
{
    for (int i = 0; i < n; i++) {
        bput(b, "[");
        print_expr(b, idx[i], 0);
        bput(b, "]");
    }
}

/* A block reference (NULL is `_`) with its range, or a parenthesised list of them when n != 1. */
static void print_blocks(buf *b, ir_expr *const *v, ir_expr *const *lo, ir_expr *const *hi, int n)
{
    if (n != 1) bput(b, "(");
    for (int i = 0; i < n; i++) {
        if (i) bput(b, ", ");
        if (v[i]) print_expr(b, v[i], 0);
        else bput(b, "_");
        if (v[i] && lo && lo[i]) {
            bput(b, "[");
            print_expr(b, lo[i], 0);
            bput(b, " .. ");
            print_expr(b, hi ? hi[i] : NULL, 0);
            bput(b, "]");
        }
    }
    if (n != 1) bput(b, ")");
}

static void print_coll(buf *b, const ir_stmt *s)
{
    if (s->u.coll.label) {
        bput(b, s->u.coll.label);
        bput(b, ": ");
    }
    print_blocks(b, s->u.coll.dst, s->u.coll.dst_lo, s->u.coll.dst_hi, s->u.coll.ndst);
    bput(b, " = ");
    bput(b, ir_coll_name(s->u.coll.ck));
    if (s->u.coll.op.name) {
        bput(b, "(");
        bput(b, s->u.coll.op.name);
        bput(b, ")");
    }
    bput(b, " ");
    print_blocks(b, s->u.coll.src, s->u.coll.src_lo, s->u.coll.src_hi, s->u.coll.nsrc);
    const char *word = ir_coll_root_word(s->u.coll.ck);
    if (word && s->u.coll.root) {
        bput(b, " ");
        bput(b, word);
        bput(b, " ");
        print_expr(b, s->u.coll.root, 0);
    }
    if (s->u.coll.by) {
        bput(b, " by ");
        print_expr(b, s->u.coll.by, 0);
    }
}

static void print_stmt(buf *b, const ir_stmt *s, int ind)
{
    if (!s) return;
    print_lead(b, &s->comments, ind);
    bindent(b, ind);
    switch (s->kind) {
    case IR_S_ASSIGN:
        if (s->u.assign.label) {
            bput(b, s->u.assign.label);
            bput(b, ": ");
        }
        print_expr(b, s->u.assign.lhs, 0);
        bput(b, " = ");
        print_expr(b, s->u.assign.rhs, 0);
        print_cost(b, s->cost);
        break;
    case IR_S_LET:
        bput(b, "let ");
        bput(b, s->u.let.var ? s->u.let.var : "?");
        bput(b, " = ");
        print_expr(b, s->u.let.value, 0);
        break;
    case IR_S_IF:
        print_if(b, s, ind);
        break;
    case IR_S_FOR:
        bput(b, "for ");
        for (int i = 0; i < s->u.for_.nvars; i++) {
            const ir_loopvar *v = &s->u.for_.vars[i];
            if (i) bput(b, ", ");
            bput(b, v->var ? v->var : "?");
            bput(b, " = ");
            print_expr(b, v->lo, 0);
            bput(b, " .. ");
            print_expr(b, v->hi, 0);
            if (v->step) {
                bput(b, " step ");
                print_expr(b, v->step, 0);
            }
            if ((unsigned)v->kind < 4) bput(b, loop_kind_text[v->kind]);
        }
        print_cost(b, s->u.for_.body ? s->u.for_.body->cost : NULL);
        print_block_body(b, s->u.for_.body, ind);
        break;
    case IR_S_SEND:
        bput(b, "send ");
        print_expr(b, s->u.send.what, 0);
        bput(b, " to ");
        print_expr(b, s->u.send.to_lo, 0);
        if (s->u.send.to_hi) {
            bput(b, " .. ");
            print_expr(b, s->u.send.to_hi, 0);
        }
        bput(b, " at ");
        print_expr(b, s->u.send.at, 0);
        if (s->u.send.when) {
            bput(b, " when ");
            print_expr(b, s->u.send.when, 0);
        }
        if (s->u.send.as_idx && s->u.send.nas > 0) {
            bput(b, " as ");
            print_index_list(b, s->u.send.as_idx, s->u.send.nas);
        }
        print_cost(b, s->cost);
        break;
    case IR_S_COLL:
        print_coll(b, s);
        break;
    case IR_S_RECV:
        bput(b, "recv");
        break;
    }
    print_trail(b, &s->comments);
    bput(b, "\n");
}

/* ---- declarations --------------------------------------------------------------------------- */

static void print_ranges(buf *b, ir_expr *const *lo, ir_expr *const *hi, int n)
{
    for (int i = 0; i < n; i++) {
        bput(b, "[");
        print_expr(b, lo ? lo[i] : NULL, 0);
        bput(b, " .. ");
        print_expr(b, hi ? hi[i] : NULL, 0);
        bput(b, "]");
    }
}

static void print_fields(buf *b, const ir_field *f, int n)
{
    bput(b, "(");
    for (int i = 0; i < n; i++) {
        if (i) bput(b, ", ");
        bput(b, f[i].name ? f[i].name : "?");
        bput(b, f[i].type == IR_INT ? " int" : " double");
    }
    bput(b, ")");
}

static void print_pattern(buf *b, const ir_pattern *pt)
{
    if (pt->n != 1) bput(b, "(");
    for (int i = 0; i < pt->n; i++) {
        if (i) bput(b, ", ");
        bput(b, pt->names[i] ? pt->names[i] : "?");
    }
    if (pt->n != 1) bput(b, ")");
}

static const char *const opitem_words[] = {
    [IR_OI_COMMUTATIVE] = "commutative", [IR_OI_NONCOMMUTATIVE] = "noncommutative",
    [IR_OI_NONASSOCIATIVE] = "nonassociative",
};

static void print_op(buf *b, const ir_decl *d)
{
    bput(b, "op ");
    bput(b, d->u.op.name ? d->u.op.name : "?");
    bput(b, " {\n");
    for (int i = 0; i < d->u.op.nitems; i++) {
        const ir_opitem *it = &d->u.op.items[i];
        print_lead(b, &it->comments, 1);
        bindent(b, 1);
        switch (it->kind) {
        case IR_OI_STATE: case IR_OI_IN:
            bput(b, it->kind == IR_OI_STATE ? "state " : "in ");
            print_fields(b, it->fields, it->nfields);
            break;
        case IR_OI_CLAUSE:
            bput(b, ir_clause_name(it->clause));
            for (int k = 0; k < it->npats; k++) {
                bput(b, " ");
                print_pattern(b, &it->pats[k]);
            }
            bput(b, " = ");
            if (it->nlets > 0) {
                bput(b, "let ");
                for (int k = 0; k < it->nlets; k++) {
                    if (k) bput(b, ", ");
                    bput(b, it->lets[k] ? it->lets[k] : "?");
                    bput(b, " = ");
                    print_expr(b, it->letv[k], 0);
                }
                bput(b, " in ");
            }
            print_tuple(b, it->val, it->nval);
            break;
        case IR_OI_COMMUTATIVE: case IR_OI_NONCOMMUTATIVE: case IR_OI_NONASSOCIATIVE:
            bput(b, opitem_words[it->kind]);
            break;
        case IR_OI_DISTRIBUTES:
            bput(b, "distributes over ");
            bput(b, it->over.name ? it->over.name : "?");
            break;
        }
        print_trail(b, &it->comments);
        bput(b, "\n");
    }
    bput(b, "}");
    print_trail(b, &d->comments);
    bput(b, "\n");
}

/* Prints decls[i] (and, for params, those continuing its line); returns the next index. */
static int print_decl(buf *b, ir_decl *const *decls, int n, int i)
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
        bput(b, "param ");
        for (;;) {
            bput(b, d->u.param.name ? d->u.param.name : "?");
            bput(b, " = ");
            print_expr(b, d->u.param.value, 0);
            if (i + 1 < n && decls[i + 1]->kind == IR_D_PARAM && decls[i + 1]->u.param.cont &&
                !decls[i + 1]->comments.nlead && !(trail && decls[i + 1]->comments.trail)) {
                i++;
                d = decls[i];
                if (!trail) trail = d->comments.trail;
                bput(b, ", ");
                continue;
            }
            break;
        }
        break;
    case IR_D_REFERENCE:
        bput(b, "reference \"");
        bput(b, d->u.reference.path ? d->u.reference.path : "");
        bput(b, "\"");
        break;
    case IR_D_ARRAY:
        bput(b, "array ");
        bput(b, d->u.array.name ? d->u.array.name : "?");
        print_ranges(b, d->u.array.lo, d->u.array.hi, d->u.array.ndims);
        bput(b, d->u.array.elem == IR_INT ? " int" : " double");
        break;
    case IR_D_INIT:
        bput(b, "init ");
        bput(b, d->u.init.array ? d->u.init.array : "?");
        print_index_list(b, d->u.init.idx, d->u.init.nidx);
        bput(b, " = ");
        print_expr(b, d->u.init.value, 0);
        break;
    case IR_D_OUTPUT:
        bput(b, "output ");
        bput(b, d->u.output.array ? d->u.output.array : "?");
        print_index_list(b, d->u.output.idx, d->u.output.nidx);
        break;
    case IR_D_DIST:
        bput(b, "dist ");
        bput(b, d->u.dist.array ? d->u.dist.array : "?");
        if (d->u.dist.dk == IR_DIST_REPLICATE) {
            bput(b, " replicate");
            break;
        }
        bput(b, "(");
        bput(b, d->u.dist.procvar ? d->u.dist.procvar : "?");
        bput(b, ")");
        if (d->u.dist.ndims > 0) {
            for (int pi = 0; pi <= d->u.dist.nmore; pi++) {
                ir_dist_piece pc = ir_dist_get_piece(d, pi);
                bput(b, pi ? " + " : " ");
                for (int k = 0; k < d->u.dist.ndims; k++) {
                    bput(b, "[");
                    if (pc.ivar && pc.ivar[k]) {
                        bput(b, pc.ivar[k]);
                        bput(b, " = ");
                    }
                    print_expr(b, pc.lo ? pc.lo[k] : NULL, 0);
                    bput(b, " .. ");
                    print_expr(b, pc.hi ? pc.hi[k] : NULL, 0);
                    if (pc.step && pc.step[k]) {
                        bput(b, " step ");
                        print_expr(b, pc.step[k], 0);
                        if (pc.block && pc.block[k]) {
                            bput(b, " block ");
                            print_expr(b, pc.block[k], 0);
                        }
                    }
                    bput(b, "]");
                }
            }
            if (d->u.dist.offset) {
                bput(b, " offset ");
                print_index_list(b, d->u.dist.offset, d->u.dist.ndims);
            }
        }
        break;
    case IR_D_OP:
        break;
    }
    ir_comments tc = { NULL, 0, trail };
    print_trail(b, &tc);
    bput(b, "\n");
    return i + 1;
}

char *ir_print(const ir_program *p)
{
    buf b = { 0 };
    bput(&b, "");
    print_lead(&b, &p->comments, 0);
    bput(&b, "program ");
    bput(&b, p->name ? p->name : "?");
    print_trail(&b, &p->comments);
    bput(&b, "\nlevel ");
    bput(&b, ir_level_name(p->level));
    bput(&b, p->aggregate ? "\nmessages aggregate\n" : "\n");
    for (int i = 0; i < p->ndecls;) i = print_decl(&b, p->decls, p->ndecls, i);
    if (p->body && p->body->n > 0) {
        bput(&b, "\n");
        for (int i = 0; i < p->body->n; i++) print_stmt(&b, p->body->stmts[i], 0);
    }
    if (p->body) print_lead(&b, &p->body->tail, 0);
    print_lead(&b, &p->tail, 0);
    return b.s;
}
