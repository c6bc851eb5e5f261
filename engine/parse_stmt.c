/*
 * parse_stmt.c — the parser's statements (see parse.c for the grammar, parse_int.h for the
 * parser): assignments, let, if, for with its loop variables, send and recv, collectives with
 * their block references and operators, and blocks.
 */
#include "parse_int.h"

#include <string.h>

/* ---- statements ----------------------------------------------------------------------------- */

static ir_block *parse_block(parser *P);

static ir_expr *parse_opt_cost(parser *P)
{
    if (!ps_accept(P, IR_T_COST)) return NULL;
    return parse_expr(P);
}

static ir_stmt *new_stmt(parser *P, ir_stmt_kind k, ir_pos pos)
{
    ir_stmt *s = ir_alloc(P->p, sizeof *s);
    s->kind = k;
    s->pos = pos;
    return s;
}

/* NAME ('[' expr ']')*  as an access (or a bare name when there are no subscripts) */
static ir_expr *parse_lvalue(parser *P, const char *what)
{
    ir_pos pos;
    const char *id = ps_expect_ident(P, what, &pos);
    ir_expr *e = ir_alloc(P->p, sizeof *e);
    e->pos = pos;
    if (kind(P) == IR_T_LBRACK) {
        e->kind = IR_E_ACCESS;
        e->u.access.array = id;
        e->u.access.array_index = -1;
        e->u.access.nidx = parse_subscripts(P, &e->u.access.idx);
    } else {
        e->kind = IR_E_NAME;
        e->u.name.id = id;
        e->u.name.index = -1;
    }
    return e;
}

static ir_stmt *parse_if(parser *P)
{
    ir_stmt *s = new_stmt(P, IR_S_IF, tok(P)->pos);
    if (!ps_enter(P)) return s;
    ps_advance(P);
    s->u.if_.cond = parse_expr(P);
    ir_expr *cost = parse_opt_cost(P);
    s->u.if_.then_blk = parse_block(P);
    s->u.if_.then_blk->cost = cost;
    if (ps_accept(P, IR_T_ELSE)) {
        if (kind(P) == IR_T_IF) {
            ir_block *b = ir_new_block(P->p);
            ir_stmt *inner = parse_if(P);
            ir_stmt **v = ir_alloc(P->p, sizeof *v);
            v[0] = inner;
            b->stmts = v;
            b->n = 1;
            s->u.if_.else_blk = b;
        } else {
            cost = parse_opt_cost(P);
            s->u.if_.else_blk = parse_block(P);
            s->u.if_.else_blk->cost = cost;
        }
    }
    leave(P);
    return s;
}

static const struct { ir_tok_kind tk; ir_loop_kind lk; } loop_kinds[] = {
    { IR_T_SEQ, IR_LOOP_SEQ }, { IR_T_PAR, IR_LOOP_PAR }, { IR_T_PROC, IR_LOOP_PROC },
};

static ir_stmt *parse_for(parser *P)
{
    ir_stmt *s = new_stmt(P, IR_S_FOR, tok(P)->pos);
    ps_advance(P);
    ir_loopvar *vars = NULL;
    int n = 0, cap = 0;
    do {
        ir_loopvar v;
        memset(&v, 0, sizeof v);
        v.slot = -1;
        v.var = ps_expect_ident(P, "a loop variable", &v.pos);
        ps_expect(P, IR_T_ASSIGN);
        v.lo = parse_expr(P);
        ps_expect(P, IR_T_DOTDOT);
        v.hi = parse_expr(P);
        if (ps_accept(P, IR_T_STEP)) v.step = parse_expr(P);
        for (unsigned i = 0; i < sizeof loop_kinds / sizeof loop_kinds[0]; i++)
            if (kind(P) == loop_kinds[i].tk) {
                v.kind = loop_kinds[i].lk;
                ps_advance(P);
                break;
            }
        PUSH(P, vars, n, cap, v);
    } while (!P->panic && ps_accept(P, IR_T_COMMA));
    s->u.for_.vars = vars;
    s->u.for_.nvars = n;
    ir_expr *cost = parse_opt_cost(P);
    if (P->panic) {
        s->u.for_.body = ir_new_block(P->p);
        return s;
    }
    s->u.for_.body = parse_block(P);
    s->u.for_.body->cost = cost;
    return s;
}

static ir_stmt *parse_send(parser *P)
{
    ir_stmt *s = new_stmt(P, IR_S_SEND, tok(P)->pos);
    ps_advance(P);
    s->u.send.what = parse_lvalue(P, "the array element to send");
    if (ps_expect(P, IR_T_TO)) {
        s->u.send.to_lo = parse_expr(P);
        if (ps_accept(P, IR_T_DOTDOT)) s->u.send.to_hi = parse_expr(P);
    }
    if (ps_expect(P, IR_T_AT)) s->u.send.at = parse_expr(P);
    if (ps_accept(P, IR_T_WHEN)) s->u.send.when = parse_expr(P);
    if (ps_accept(P, IR_T_AS)) {
        if (kind(P) != IR_T_LBRACK) ps_expected(P, "'[' after 'as'");
        s->u.send.nas = parse_subscripts(P, &s->u.send.as_idx);
    }
    s->cost = parse_opt_cost(P);
    if (!s->u.send.to_lo) s->u.send.to_lo = ps_dummy(P, s->pos);
    if (!s->u.send.at) s->u.send.at = ps_dummy(P, s->pos);
    return s;
}

/* An operator: `+`, `*`, or a name (max, min, and, or, band, bor, bxor, or a declared op). */
void parse_opref(parser *P, ir_opref *op)
{
    op->pos = tok(P)->pos;
    op->builtin = op->user = -1;
    if (kind(P) == IR_T_PLUS) op->name = "+";
    else if (kind(P) == IR_T_STAR) op->name = "*";
    else if (kind(P) == IR_T_IDENT) op->name = tok(P)->text;
    else {
        ps_expected(P, "an operator (+, *, max, min, and, or, band, bor, bxor or an op name)");
        op->name = "?";
        return;
    }
    ps_advance(P);
}

/* A block: NAME ('[' expr ']')* ['[' expr '..' expr ']'], or `_` where `allow_drop` (then
 * NULL).  The range, if any, goes to *lo and *hi. */
static ir_expr *parse_block_ref(parser *P, int allow_drop, const char *what, ir_expr **lo, ir_expr **hi)
{
    *lo = *hi = NULL;
    if (allow_drop && is_word(P, 0, "_")) {
        ps_advance(P);
        return NULL;
    }
    ir_pos pos;
    const char *id = ps_expect_ident(P, what, &pos);
    ir_expr *e = ir_alloc(P->p, sizeof *e);
    e->pos = pos;
    if (kind(P) != IR_T_LBRACK) {
        e->kind = IR_E_NAME;
        e->u.name.id = id;
        e->u.name.index = -1;
        return e;
    }
    e->kind = IR_E_ACCESS;
    e->u.access.array = id;
    e->u.access.array_index = -1;
    int cap = 0;
    while (kind(P) == IR_T_LBRACK && !P->panic) {
        ps_advance(P);
        ir_expr *x = parse_expr(P);
        if (ps_accept(P, IR_T_DOTDOT)) {
            *lo = x;
            *hi = parse_expr(P);
            ps_expect(P, IR_T_RBRACK);
            if (kind(P) == IR_T_LBRACK) ps_err(P, tok(P)->pos, "a block's range [lo .. hi] must be its last subscript");
            break;
        }
        PUSH(P, e->u.access.idx, e->u.access.nidx, cap, x);
        ps_expect(P, IR_T_RBRACK);
    }
    return e;
}

/* block | '(' block (',' block)* ')'; the ranges into *lo, *hi (NULL arrays when none). */
static int parse_block_refs(parser *P, ir_expr ***out, ir_expr ***lo, ir_expr ***hi, int allow_drop,
                            const char *what)
{
    ir_expr **v = NULL, **l = NULL, **h = NULL;
    int n = 0, cap = 0, any = 0;
    int paren = ps_accept(P, IR_T_LPAREN);
    do {
        ir_expr *a, *b;
        ir_expr *e = parse_block_ref(P, allow_drop, what, &a, &b);
        if (a) any = 1;
        int c1 = cap, c2 = cap, n0 = n;
        PUSH(P, l, n, c1, a);
        n = n0;
        PUSH(P, h, n, c2, b);
        n = n0;
        PUSH(P, v, n, cap, e);
    } while (paren && !P->panic && ps_accept(P, IR_T_COMMA));
    if (paren) ps_expect(P, IR_T_RPAREN);
    *out = v;
    *lo = any ? l : NULL;
    *hi = any ? h : NULL;
    return n;
}

/* After `dsts =`: the current token names a collective (followed by '(' or a name). */
static int at_collective(const parser *P)
{
    ir_coll_kind k;
    return kind(P) == IR_T_IDENT && ir_coll_parse(tok(P)->text, &k) &&
           (peek(P, 1) == IR_T_LPAREN || peek(P, 1) == IR_T_IDENT);
}

/* kind ['(' op ')'] srcs [to|from root]; the statement has its label and destinations. */
static void parse_collective(parser *P, ir_stmt *s)
{
    ir_coll_kind k = IR_C_BCAST;
    ir_coll_parse(tok(P)->text, &k);
    s->u.coll.ck = k;
    s->u.coll.op.builtin = s->u.coll.op.user = -1;
    ps_advance(P);
    if (ir_coll_has_op(k)) {
        if (ps_expect(P, IR_T_LPAREN)) {
            parse_opref(P, &s->u.coll.op);
            ps_expect(P, IR_T_RPAREN);
        }
        if (!s->u.coll.op.name) s->u.coll.op.name = "?";
    } else if (kind(P) == IR_T_LPAREN && peek(P, 2) == IR_T_RPAREN) {
        ps_err(P, tok(P)->pos, "'%s' takes no operator", ir_coll_name(k));
    }
    s->u.coll.nsrc = parse_block_refs(P, &s->u.coll.src, &s->u.coll.src_lo, &s->u.coll.src_hi, 0,
                                      "the block read (an array name)");
    const char *word = ir_coll_root_word(k);
    if (word) {
        int ok = strcmp(word, "to") == 0 ? ps_accept(P, IR_T_TO) : (is_word(P, 0, word) ? (ps_advance(P), 1) : 0);
        if (!ok) {
            char what[64];
            snprintf(what, sizeof what, "'%s' and the root processor", word);
            ps_expected(P, what);
        } else {
            s->u.coll.root = parse_expr(P);
        }
    }
    if (!P->panic && is_word(P, 0, "by")) {
        ps_advance(P);
        s->u.coll.by = parse_expr(P);
    }
    if (!P->panic && ps_accept(P, IR_T_WHEN)) s->u.coll.when = parse_expr(P);
}

static ir_stmt *parse_stmt(parser *P)
{
    ir_pos pos = tok(P)->pos;
    switch (kind(P)) {
    case IR_T_LPAREN: {
        /* (d1, d2, ..) = collective */
        ir_stmt *s = new_stmt(P, IR_S_COLL, pos);
        s->u.coll.ndst = parse_block_refs(P, &s->u.coll.dst, &s->u.coll.dst_lo, &s->u.coll.dst_hi, 1,
                                          "a destination block (an array name or _)");
        if (!P->panic && ps_expect(P, IR_T_ASSIGN)) {
            if (at_collective(P)) parse_collective(P, s);
            else ps_expected(P, "a collective (bcast, reduce, allreduce, scan, exscan, allgather, gather, "
                          "scatter, multicast, reduce_bal, allreduce_bal, scan_bal) after a tuple of "
                          "destinations");
        }
        return s;
    }
    case IR_T_LET: {
        ir_stmt *s = new_stmt(P, IR_S_LET, pos);
        ps_advance(P);
        s->u.let.var = ps_expect_ident(P, "a name after 'let'", NULL);
        s->u.let.slot = -1;
        ps_expect(P, IR_T_ASSIGN);
        s->u.let.value = parse_expr(P);
        return s;
    }
    case IR_T_IF: return parse_if(P);
    case IR_T_FOR: return parse_for(P);
    case IR_T_SEND: return parse_send(P);
    case IR_T_IDENT: {
        if (is_recv(P)) {
            ps_advance(P);
            return new_stmt(P, IR_S_RECV, pos);
        }
        ir_stmt *s = new_stmt(P, IR_S_ASSIGN, pos);
        if (peek(P, 1) == IR_T_COLON) {
            s->u.assign.label = tok(P)->text;
            ps_advance(P);
            ps_advance(P);
            if (kind(P) == IR_T_LPAREN) {   /* L: (d1, d2) = collective */
                const char *label = s->u.assign.label;
                ir_stmt *c = parse_stmt(P);
                if (c && c->kind == IR_S_COLL) {
                    c->u.coll.label = label;
                    c->pos = pos;
                }
                return c;
            }
        }
        ir_expr *rlo, *rhi;
        ir_pos rpos = tok(P)->pos;
        s->u.assign.lhs = parse_block_ref(P, 0, "an array element after the label", &rlo, &rhi);
        if (!ps_expect(P, IR_T_ASSIGN)) {
            s->u.assign.rhs = ps_dummy(P, pos);
            return s;
        }
        if (at_collective(P)) {
            const char *label = s->u.assign.label;
            ir_expr *dst = s->u.assign.lhs;
            memset(&s->u, 0, sizeof s->u);
            s->kind = IR_S_COLL;
            s->u.coll.label = label;
            s->u.coll.dst = ir_alloc(P->p, sizeof *s->u.coll.dst);
            s->u.coll.dst[0] = dst;
            s->u.coll.ndst = 1;
            if (rlo) {
                s->u.coll.dst_lo = ir_alloc(P->p, sizeof *s->u.coll.dst_lo);
                s->u.coll.dst_hi = ir_alloc(P->p, sizeof *s->u.coll.dst_hi);
                s->u.coll.dst_lo[0] = rlo;
                s->u.coll.dst_hi[0] = rhi;
            }
            parse_collective(P, s);
            return s;
        }
        if (rlo) {
            ps_err(P, rpos, "a range [lo .. hi] is only allowed in a collective's block");
            return s;
        }
        s->u.assign.rhs = parse_expr(P);
        s->cost = parse_opt_cost(P);
        return s;
    }
    default:
        ps_expected(P, "a statement");
        return NULL;
    }
}

/* Statements until '}' (in a block) or the end of the file (top level). */
void parse_stmts(parser *P, ir_block *b, int top)
{
    ir_stmt **v = NULL;
    int n = 0, cap = 0;
    for (;;) {
        while (ps_accept(P, IR_T_SEMI)) {}
        ir_tok_kind k = kind(P);
        if (k == IR_T_EOF || (k == IR_T_RBRACE && !top) || P->fatal) break;
        ir_comments lead = ps_take_lead(P, tok(P)->pos);
        int start = P->cur;
        if (is_decl_start(k) || is_word_decl_start(P)) {
            ps_err(P, tok(P)->pos, "expected a statement, found %s (declarations come before "
                 "statements)", is_op_start(P) ? "'op'" : is_assume_start(P) ? "'assume'" : ir_tok_name(k));
            int keep = P->panic;
            P->panic = 0;
            parse_decls_one(P);
            P->panic = keep;
        } else {
            ir_stmt *s = parse_stmt(P);
            if (s) {
                s->comments.lead = lead.lead;
                s->comments.nlead = lead.nlead;
                if (!P->panic) s->comments.trail = ps_take_trail(P);
                PUSH(P, v, n, cap, s);
            }
        }
        if (P->panic) {
            if (P->cur == start) ps_advance(P);
            ps_sync(P);
        }
    }
    b->stmts = v;
    b->n = n;
}

static ir_block *parse_block(parser *P)
{
    ir_block *b = ir_new_block(P->p);
    if (!ps_expect(P, IR_T_LBRACE)) return b;
    if (!ps_enter(P)) return b;
    parse_stmts(P, b, 0);
    if (kind(P) == IR_T_RBRACE) {
        b->tail = ps_take_lead(P, tok(P)->pos);
        ps_advance(P);
    } else {
        ps_expected(P, "'}'");
    }
    leave(P);
    return b;
}
