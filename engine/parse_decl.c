/*
 * parse_decl.c — the parser's declarations (see parse.c for the grammar, parse_int.h for the
 * parser): param, reference, array, init, output, dist with its pieces, and user operators (`op
 * NAME { ... }`: fields, clauses and their patterns).
 */
#include "parse_int.h"

#include <string.h>

/* ---- declarations --------------------------------------------------------------------------- */

static ir_decl *new_decl(parser *P, ir_decl_kind k, ir_pos pos)
{
    ir_decl *d = ir_alloc(P->p, sizeof *d);
    d->kind = k;
    d->pos = pos;
    return d;
}

/* ('[' expr '..' expr ']')* */
static int parse_ranges(parser *P, ir_expr ***lo, ir_expr ***hi)
{
    ir_expr **l = NULL, **h = NULL;
    int n = 0, cl = 0, ch = 0;
    while (kind(P) == IR_T_LBRACK && !P->panic) {
        ps_advance(P);
        ir_expr *a = parse_expr(P);
        ps_expect(P, IR_T_DOTDOT);
        ir_expr *b = parse_expr(P);
        ps_expect(P, IR_T_RBRACK);
        PUSH(P, l, n, cl, a);
        n--;
        PUSH(P, h, n, ch, b);
    }
    *lo = l;
    *hi = h;
    return n;
}

/* ---- operators ------------------------------------------------------------------------------ */

/* '(' NAME type (',' NAME type)* ')' */
static int parse_fields(parser *P, ir_field **out)
{
    ir_field *v = NULL;
    int n = 0, cap = 0;
    if (!ps_expect(P, IR_T_LPAREN)) return 0;
    do {
        ir_field f;
        f.name = ps_expect_ident(P, "a field name", &f.pos);
        f.type = IR_INT;
        if (ps_accept(P, IR_T_DOUBLE)) f.type = IR_DOUBLE;
        else if (!ps_accept(P, IR_T_INTKW)) ps_expected(P, "the field's type ('int' or 'double')");
        PUSH(P, v, n, cap, f);
    } while (!P->panic && ps_accept(P, IR_T_COMMA));
    ps_expect(P, IR_T_RPAREN);
    *out = v;
    return n;
}

/* NAME | '(' NAME (',' NAME)* ')' */
static void parse_pattern(parser *P, ir_pattern *pt)
{
    const char **v = NULL;
    int n = 0, cap = 0;
    pt->pos = tok(P)->pos;
    if (ps_accept(P, IR_T_LPAREN)) {
        do {
            const char *nm = ps_expect_ident(P, "a name in the pattern", NULL);
            PUSH(P, v, n, cap, nm);
        } while (!P->panic && ps_accept(P, IR_T_COMMA));
        ps_expect(P, IR_T_RPAREN);
    } else {
        const char *nm = ps_expect_ident(P, "a pattern (a name or a tuple of names)", NULL);
        PUSH(P, v, n, cap, nm);
    }
    pt->names = v;
    pt->n = n;
}

/* Is the '(' at the current token a tuple: a ',' at its own nesting level before its ')'? */
static int at_tuple(const parser *P)
{
    if (kind(P) != IR_T_LPAREN) return 0;
    int depth = 0;
    for (int i = P->cur; i < P->lx.ntoks; i++) {
        ir_tok_kind k = P->lx.toks[i].kind;
        if (k == IR_T_LPAREN || k == IR_T_LBRACK) depth++;
        else if (k == IR_T_RPAREN || k == IR_T_RBRACK) { if (--depth == 0) return 0; }
        else if (k == IR_T_COMMA && depth == 1) return 1;
        else if (k == IR_T_EOF || k == IR_T_LBRACE || k == IR_T_RBRACE) return 0;
    }
    return 0;
}

/* NAME pattern* '=' ['let' NAME '=' expr (',' NAME '=' expr)* 'in'] (expr | '(' expr, .. ')') */
static void parse_clause(parser *P, ir_opitem *it)
{
    it->kind = IR_OI_CLAUSE;
    ir_clause_parse(tok(P)->text, &it->clause);
    ps_advance(P);
    while ((kind(P) == IR_T_IDENT || kind(P) == IR_T_LPAREN) && !P->panic) {
        if (it->npats == 2) {
            ps_err(P, tok(P)->pos, "expected '=': a clause has at most two patterns");
            return;
        }
        parse_pattern(P, &it->pats[it->npats++]);
    }
    if (!ps_expect(P, IR_T_ASSIGN)) return;
    if (ps_accept(P, IR_T_LET)) {
        int cn = 0, cv = 0;
        do {
            const char *nm = ps_expect_ident(P, "a name after 'let'", NULL);
            ps_expect(P, IR_T_ASSIGN);
            ir_expr *e = parse_expr(P);
            int n0 = it->nlets;
            PUSH(P, it->lets, it->nlets, cn, nm);
            it->nlets = n0;
            PUSH(P, it->letv, it->nlets, cv, e);
        } while (!P->panic && ps_accept(P, IR_T_COMMA));
        if (!P->panic) {
            if (is_word(P, 0, "in")) ps_advance(P);
            else ps_expected(P, "'in' after the lets of a clause");
        }
    }
    int cap = 0;
    if (at_tuple(P)) {
        ps_advance(P);
        do {
            ir_expr *e = parse_expr(P);
            PUSH(P, it->val, it->nval, cap, e);
        } while (!P->panic && ps_accept(P, IR_T_COMMA));
        ps_expect(P, IR_T_RPAREN);
    } else {
        ir_expr *e = parse_expr(P);
        PUSH(P, it->val, it->nval, cap, e);
    }
}

static const struct { const char *word; ir_opitem_kind kind; } op_flags[] = {
    { "commutative", IR_OI_COMMUTATIVE }, { "noncommutative", IR_OI_NONCOMMUTATIVE },
    { "nonassociative", IR_OI_NONASSOCIATIVE },
};

/* 'op' NAME '{' item* '}' */
static ir_decl *parse_op(parser *P)
{
    ir_decl *d = new_decl(P, IR_D_OP, tok(P)->pos);
    ps_advance(P);
    d->u.op.name = ps_expect_ident(P, "the operator's name", NULL);
    d->u.op.index = -1;
    if (!ps_expect(P, IR_T_LBRACE)) return d;
    int cap = 0;
    while (kind(P) != IR_T_RBRACE && kind(P) != IR_T_EOF && !P->fatal) {
        while (ps_accept(P, IR_T_SEMI)) {}
        if (kind(P) == IR_T_RBRACE) break;
        if (is_decl_start(kind(P)) || is_word_decl_start(P) || kind(P) == IR_T_FOR) break;   /* a missing '}' */
        ir_opitem it;
        memset(&it, 0, sizeof it);
        it.pos = tok(P)->pos;
        ir_comments lead = ps_take_lead(P, it.pos);
        it.comments.lead = lead.lead;
        it.comments.nlead = lead.nlead;
        int start = P->cur;
        ir_clause_kind ck;
        const char *w = kind(P) == IR_T_IDENT ? tok(P)->text : "";
        int done = 0;
        if (strcmp(w, "state") == 0 || strcmp(w, "in") == 0) {
            it.kind = w[0] == 's' ? IR_OI_STATE : IR_OI_IN;
            ps_advance(P);
            it.nfields = parse_fields(P, &it.fields);
            done = 1;
        } else if (ir_clause_parse(w, &ck)) {
            parse_clause(P, &it);
            done = 1;
        } else if (strcmp(w, "distributes") == 0) {
            it.kind = IR_OI_DISTRIBUTES;
            ps_advance(P);
            if (is_word(P, 0, "over")) ps_advance(P);
            else ps_expected(P, "'over' after 'distributes'");
            if (!P->panic) parse_opref(P, &it.over);
            done = 1;
        } else {
            for (unsigned i = 0; i < sizeof op_flags / sizeof op_flags[0]; i++)
                if (strcmp(w, op_flags[i].word) == 0) {
                    it.kind = op_flags[i].kind;
                    ps_advance(P);
                    done = 1;
                }
        }
        if (!done)
            ps_expected(P, "an operator item (state, in, ident, preaccum, accum, postaccum, combine, gen, "
                     "scangen, one, lower, upper, even, odd, commutative, noncommutative, "
                     "nonassociative, distributes over) or '}'");
        if (!P->panic) it.comments.trail = ps_take_trail(P);
        if (done) PUSH(P, d->u.op.items, d->u.op.nitems, cap, it);
        if (P->panic) {
            if (P->cur == start) ps_advance(P);
            /* skip to the next item on a later line or the closing brace */
            int line = P->lx.toks[P->cur > 0 ? P->cur - 1 : 0].end_line;
            while (kind(P) != IR_T_EOF && kind(P) != IR_T_RBRACE && tok(P)->pos.line == line) ps_advance(P);
            if (!P->fatal) P->panic = 0;
        }
    }
    if (kind(P) == IR_T_RBRACE) ps_advance(P);
    else ps_expected(P, "'}' closing the operator");
    return d;
}

/* One piece of a dist: ranges [lo .. hi] or [lo .. hi step s] or [lo .. hi step s block b]
 * (`block` is a name here, not a keyword), each optionally naming its index: [i = lo .. hi].
 * step/block stay NULL when no dimension is strided, ivar when none is named. */
static int parse_dist_piece(parser *P, ir_dist_piece *pc)
{
    ir_expr **l = NULL, **h = NULL, **st = NULL, **bl = NULL;
    const char **iv = NULL;
    int n = 0, cl = 0, ch = 0, cs = 0, cb = 0, ci = 0, any = 0, named = 0;
    while (kind(P) == IR_T_LBRACK && !P->panic) {
        ps_advance(P);
        const char *name = NULL;
        if (kind(P) == IR_T_IDENT && peek(P, 1) == IR_T_ASSIGN) {
            name = ps_expect_ident(P, "an index name", NULL);
            ps_advance(P);
            named = 1;
        }
        ir_expr *a = parse_expr(P);
        ps_expect(P, IR_T_DOTDOT);
        ir_expr *b = parse_expr(P), *s = NULL, *k = NULL;
        if (ps_accept(P, IR_T_STEP)) {
            s = parse_expr(P);
            any = 1;
            if (kind(P) == IR_T_IDENT && !strcmp(tok(P)->text, "block")) {
                ps_advance(P);
                k = parse_expr(P);
            }
        }
        ps_expect(P, IR_T_RBRACK);
        PUSH(P, l, n, cl, a);
        n--;
        PUSH(P, h, n, ch, b);
        n--;
        PUSH(P, st, n, cs, s);
        n--;
        PUSH(P, bl, n, cb, k);
        n--;
        PUSH(P, iv, n, ci, name);
    }
    *pc = (ir_dist_piece){ l, h, any ? st : NULL, any ? bl : NULL, named ? iv : NULL, NULL };
    return n;
}

/* A dist's pieces: the first into the declaration's fields, the others after `+` into `more`. */
static int parse_dist_ranges(parser *P, ir_decl *d)
{
    ir_dist_piece first;
    int n = parse_dist_piece(P, &first);
    d->u.dist.lo = first.lo;
    d->u.dist.hi = first.hi;
    d->u.dist.step = first.step;
    d->u.dist.block = first.block;
    d->u.dist.ivar = first.ivar;
    int cap = 0;
    while (kind(P) == IR_T_PLUS && !P->panic) {
        ir_pos ppos = tok(P)->pos;
        ps_advance(P);
        ir_dist_piece pc;
        int m = parse_dist_piece(P, &pc);
        if (m != n) ps_err(P, ppos, "expected %d ranges in every piece of the dist (the first has %d), found %d", n, n, m);
        PUSH(P, d->u.dist.more, d->u.dist.nmore, cap, pc);
    }
    return n;
}

/* Parses one declaration (a `param` line may give several) and appends it; returns the first. */
ir_decl *parse_decls_one(parser *P)
{
    if (is_assume_start(P)) {
        ir_decl *d = new_decl(P, IR_D_ASSUME, tok(P)->pos);
        ps_advance(P);
        d->u.assume.label = ps_expect_ident(P, "a statement label", NULL);
        ps_advance(P);   /* unchanged */
        d->u.assume.cond = ps_expect(P, IR_T_WHEN) ? parse_expr(P) : ps_dummy(P, d->pos);
        ir_program_append_decl(P->p, d);
        return d;
    }
    if (is_op_start(P)) {
        ir_decl *d = parse_op(P);
        ir_program_append_decl(P->p, d);
        return d;
    }
    ir_pos kpos = tok(P)->pos;
    ir_tok_kind k = kind(P);
    ir_decl *first = NULL;
    ps_advance(P);
    switch (k) {
    case IR_T_PARAM: {
        int cont = 0;
        do {
            ir_pos pos;
            const char *name = ps_expect_ident(P, "a parameter name", &pos);
            ir_decl *d = new_decl(P, IR_D_PARAM, pos);
            d->u.param.name = name;
            d->u.param.cont = cont;
            d->u.param.index = -1;
            ps_expect(P, IR_T_ASSIGN);
            d->u.param.value = parse_expr(P);
            ir_program_append_decl(P->p, d);
            if (!first) first = d;
            cont = 1;
        } while (!P->panic && ps_accept(P, IR_T_COMMA));
        return first;
    }
    case IR_T_REFERENCE: {
        ir_decl *d = new_decl(P, IR_D_REFERENCE, kpos);
        if (kind(P) == IR_T_STRING) {
            d->u.reference.path = tok(P)->text;
            ps_advance(P);
        } else {
            ps_expected(P, "a string (the reference program's path)");
            d->u.reference.path = "";
        }
        first = d;
        break;
    }
    case IR_T_ARRAY: {
        ir_pos pos;
        const char *name = ps_expect_ident(P, "an array name", &pos);
        ir_decl *d = new_decl(P, IR_D_ARRAY, pos);
        d->u.array.name = name;
        d->u.array.index = -1;
        d->u.array.ndims = parse_ranges(P, &d->u.array.lo, &d->u.array.hi);
        if (ps_accept(P, IR_T_DOUBLE)) d->u.array.elem = IR_DOUBLE;
        else if (ps_accept(P, IR_T_INTKW)) d->u.array.elem = IR_INT;
        else ps_expected(P, "'[', 'double' or 'int'");
        first = d;
        break;
    }
    case IR_T_INIT: {
        ir_decl *d = new_decl(P, IR_D_INIT, kpos);
        d->u.init.array = ps_expect_ident(P, "an array name", NULL);
        d->u.init.array_index = -1;
        d->u.init.nidx = parse_subscripts(P, &d->u.init.idx);
        if (ps_expect(P, IR_T_ASSIGN)) d->u.init.value = parse_expr(P);
        else d->u.init.value = ps_dummy(P, kpos);
        first = d;
        break;
    }
    case IR_T_OUTPUT: {
        ir_decl *d = new_decl(P, IR_D_OUTPUT, kpos);
        d->u.output.array = ps_expect_ident(P, "an array name", NULL);
        d->u.output.array_index = -1;
        d->u.output.nidx = parse_subscripts(P, &d->u.output.idx);
        first = d;
        break;
    }
    case IR_T_DIST: {
        ir_decl *d = new_decl(P, IR_D_DIST, kpos);
        d->u.dist.array = ps_expect_ident(P, "an array name", NULL);
        d->u.dist.array_index = -1;
        d->u.dist.slot = -1;
        if (ps_accept(P, IR_T_REPLICATE)) {
            d->u.dist.dk = IR_DIST_REPLICATE;
        } else if (ps_accept(P, IR_T_LPAREN)) {
            d->u.dist.dk = IR_DIST_LOCAL;
            d->u.dist.procvar = ps_expect_ident(P, "a processor variable", NULL);
            ps_expect(P, IR_T_RPAREN);
            d->u.dist.ndims = parse_dist_ranges(P, d);
            if (kind(P) == IR_T_OFFSET) {
                ir_pos opos = tok(P)->pos;
                ps_advance(P);
                ir_expr **off;
                int no = parse_subscripts(P, &off);
                if (no != d->u.dist.ndims)
                    ps_err(P, opos, "expected %d offset indices (one per bound), found %d",
                         d->u.dist.ndims, no);
                else if (no > 0)
                    d->u.dist.offset = off;
            }
        } else {
            ps_expected(P, "'(' or 'replicate'");
        }
        first = d;
        break;
    }
    default:
        return NULL;
    }
    ir_program_append_decl(P->p, first);
    return first;
}
