/*
 * parse_expr.c — the parser's expressions (see parse.c for the grammar, parse_int.h for the
 * parser): primaries (literals, names, accesses, built-in calls, reductions, repeats), unary
 * operators, and binary operators by precedence climbing.
 */
#include "parse_int.h"

#include <string.h>

/* ---- expressions ---------------------------------------------------------------------------- */

enum { PREC_OR = 1, PREC_AND, PREC_CMP, PREC_ADD, PREC_MUL };

static const struct { int prec; ir_op op; } binops[IR_T_COUNT] = {
    [IR_T_OR] = { PREC_OR, IR_OP_OR }, [IR_T_AND] = { PREC_AND, IR_OP_AND },
    [IR_T_EQ] = { PREC_CMP, IR_OP_EQ }, [IR_T_NE] = { PREC_CMP, IR_OP_NE },
    [IR_T_LT] = { PREC_CMP, IR_OP_LT }, [IR_T_LE] = { PREC_CMP, IR_OP_LE },
    [IR_T_GT] = { PREC_CMP, IR_OP_GT }, [IR_T_GE] = { PREC_CMP, IR_OP_GE },
    [IR_T_PLUS] = { PREC_ADD, IR_OP_ADD }, [IR_T_MINUS] = { PREC_ADD, IR_OP_SUB },
    [IR_T_STAR] = { PREC_MUL, IR_OP_MUL }, [IR_T_SLASH] = { PREC_MUL, IR_OP_DIV },
    [IR_T_PERCENT] = { PREC_MUL, IR_OP_MOD },
};

/* Built-in functions (min and max are also reductions when followed by `NAME =`). */
static const struct { const char *name; ir_func f; int minargs, maxargs; } funcs[] = {
    { "min", IR_F_MIN, 2, 1 << 20 }, { "max", IR_F_MAX, 2, 1 << 20 }, { "floor", IR_F_FLOOR, 1, 1 },
    { "ceil", IR_F_CEIL, 1, 1 }, { "abs", IR_F_ABS, 1, 1 }, { "sqrt", IR_F_SQRT, 1, 1 },
    { "isqrt", IR_F_ISQRT, 1, 1 }, { "select", IR_F_SELECT, 3, 3 }, { "band", IR_F_BAND, 2, 2 },
    { "bor", IR_F_BOR, 2, 2 }, { "bxor", IR_F_BXOR, 2, 2 }, { "crand", IR_F_CRAND, 2, 2 },
    { "clrand48", IR_F_CLRAND48, 1, 2 }, { "cdrand48", IR_F_CDRAND48, 1, 2 }, { "sin", IR_F_SIN, 1, 1 },
    { "cos", IR_F_COS, 1, 1 }, { "tan", IR_F_TAN, 1, 1 }, { "exp", IR_F_EXP, 1, 1 }, { "log", IR_F_LOG, 1, 1 },
    { "pow", IR_F_POW, 2, 2 },
};
static const struct { const char *name; ir_reduce_op r; } reductions[] = {
    { "sum", IR_R_SUM }, { "prod", IR_R_PROD }, { "max", IR_R_MAX }, { "min", IR_R_MIN },
};

static ir_expr *parse_binary(parser *P, int minprec);

ir_expr *ps_dummy(parser *P, ir_pos pos)
{
    ir_expr *e = ir_new_int(P->p, 0);
    e->pos = pos;
    return e;
}

/* ('[' expr ']')*  into a new array */
int parse_subscripts(parser *P, ir_expr ***out)
{
    ir_expr **v = NULL;
    int n = 0, cap = 0, dep = 0;
    while (kind(P) == IR_T_LBRACK && !P->fatal) {
        ps_advance(P);
        ir_expr *e = parse_expr(P);
        if (P->edepth > dep) dep = P->edepth;
        PUSH(P, v, n, cap, e);
        if (!ps_expect(P, IR_T_RBRACK)) break;
    }
    *out = v;
    P->edepth = dep;
    return n;
}

/* repeat(OP, k, e1, .., en): the current token is `repeat`. */
static ir_expr *parse_repeat(parser *P, ir_pos pos)
{
    ps_advance(P);
    ps_advance(P);
    ir_expr *e = ir_alloc(P->p, sizeof *e);
    e->kind = IR_E_REPEAT;
    e->pos = pos;
    parse_opref(P, &e->u.repeat.op);
    int dep = 0;
    ir_expr **args = NULL;
    int n = 0, cap = 0;
    if (ps_expect(P, IR_T_COMMA)) {
        e->u.repeat.k = parse_expr(P);
        dep = P->edepth;
        while (ps_accept(P, IR_T_COMMA) && !P->fatal) {
            ir_expr *a = parse_expr(P);
            if (P->edepth > dep) dep = P->edepth;
            PUSH(P, args, n, cap, a);
        }
        if (n == 0) ps_expected(P, "',' and the start tuple after repeat's count");
    }
    ps_expect(P, IR_T_RPAREN);
    if (!e->u.repeat.k) e->u.repeat.k = ps_dummy(P, pos);
    e->u.repeat.args = args;
    e->u.repeat.nargs = n;
    P->edepth = dep + 1;
    return e;
}

/* r(NAME = lo .. hi) body, the body over * / % only: the current token is the reduction's name. */
static ir_expr *parse_reduction(parser *P, ir_pos pos, ir_reduce_op r)
{
    ps_advance(P);
    ps_advance(P);
    ir_expr *e = ir_alloc(P->p, sizeof *e);
    e->kind = IR_E_REDUCE;
    e->pos = pos;
    e->u.reduce.r = r;
    e->u.reduce.var = tok(P)->text;
    e->u.reduce.slot = -1;
    ps_advance(P);
    ps_advance(P);
    e->u.reduce.lo = parse_expr(P);
    int dep = P->edepth;
    ps_expect(P, IR_T_DOTDOT);
    e->u.reduce.hi = parse_expr(P);
    if (P->edepth > dep) dep = P->edepth;
    ps_expect(P, IR_T_RPAREN);
    e->u.reduce.body = parse_binary(P, PREC_MUL);
    if (P->edepth > dep) dep = P->edepth;
    P->edepth = dep + 1;
    return e;
}

/* A call of built-in function funcs[fi] with its arguments counted: the current token is its name. */
static ir_expr *parse_call(parser *P, ir_pos pos, unsigned fi)
{
    const char *id = funcs[fi].name;
    ps_advance(P);
    ps_advance(P);
    ir_expr **args = NULL;
    int n = 0, cap = 0, dep = 0;
    if (kind(P) != IR_T_RPAREN) {
        do {
            ir_expr *a = parse_expr(P);
            if (P->edepth > dep) dep = P->edepth;
            PUSH(P, args, n, cap, a);
        } while (ps_accept(P, IR_T_COMMA) && !P->fatal);
    }
    ps_expect(P, IR_T_RPAREN);
    if (n < funcs[fi].minargs || n > funcs[fi].maxargs) {
        if (funcs[fi].minargs == funcs[fi].maxargs)
            ps_err(P, pos, "%s takes %d argument%s, found %d", id, funcs[fi].minargs,
                 funcs[fi].minargs == 1 ? "" : "s", n);
        else if (funcs[fi].maxargs == funcs[fi].minargs + 1)
            ps_err(P, pos, "%s takes %d or %d arguments, found %d", id, funcs[fi].minargs, funcs[fi].maxargs, n);
        else
            ps_err(P, pos, "%s takes at least %d arguments, found %d", id, funcs[fi].minargs, n);
    }
    ir_expr *e = ir_alloc(P->p, sizeof *e);
    e->kind = IR_E_CALL;
    e->pos = pos;
    e->u.call.f = funcs[fi].f;
    e->u.call.args = args;
    e->u.call.nargs = n;
    P->edepth = dep + 1;
    return e;
}

/* NAME ( ... ): a repeat, a reduction or a built-in function; the current token is NAME. */
static ir_expr *parse_applied(parser *P, ir_pos pos, const char *id)
{
    if (strcmp(id, "repeat") == 0) return parse_repeat(P, pos);
    if (peek(P, 2) == IR_T_IDENT && peek(P, 3) == IR_T_ASSIGN)
        for (unsigned i = 0; i < sizeof reductions / sizeof reductions[0]; i++)
            if (strcmp(id, reductions[i].name) == 0) return parse_reduction(P, pos, reductions[i].r);
    for (unsigned i = 0; i < sizeof funcs / sizeof funcs[0]; i++)
        if (strcmp(id, funcs[i].name) == 0) return parse_call(P, pos, i);
    ps_err(P, pos, "unknown function '%s' (expected min, max, floor, ceil, abs, sqrt, isqrt, "
         "select, band, bor, bxor, crand, clrand48, cdrand48, repeat, or a reduction "
         "sum/prod/max/min(k = lo .. hi))", id);
    ps_advance(P);
    return ps_dummy(P, pos);
}

static ir_expr *parse_primary(parser *P)
{
    const ir_token *t = tok(P);
    ir_pos pos = t->pos;
    P->edepth = 1;
    switch (t->kind) {
    case IR_T_INT: {
        ir_expr *e = ir_new_int(P->p, t->ival);
        e->pos = pos;
        ps_advance(P);
        return e;
    }
    case IR_T_REAL: {
        ir_expr *e = ir_new_real(P->p, t->rval);
        e->pos = pos;
        ps_advance(P);
        return e;
    }
    case IR_T_LPAREN: {
        ps_advance(P);
        ir_expr *e = parse_expr(P);
        ps_expect(P, IR_T_RPAREN);
        return e;
    }
    case IR_T_IDENT: break;
    default:
        ps_expected(P, "an expression");
        return ps_dummy(P, pos);
    }
    const char *id = t->text;
    if (peek(P, 1) == IR_T_LPAREN) return parse_applied(P, pos, id);
    ps_advance(P);
    if (kind(P) == IR_T_LBRACK) {
        ir_expr *e = ir_alloc(P->p, sizeof *e);
        e->kind = IR_E_ACCESS;
        e->pos = pos;
        e->u.access.array = id;
        e->u.access.array_index = -1;
        e->u.access.nidx = parse_subscripts(P, &e->u.access.idx);
        P->edepth++;
        return e;
    }
    P->edepth = 1;
    ir_expr *e = ir_alloc(P->p, sizeof *e);
    e->kind = IR_E_NAME;
    e->pos = pos;
    e->u.name.id = id;
    e->u.name.index = -1;
    return e;
}

static ir_expr *parse_unary(parser *P)
{
    if (!ps_enter(P)) return ps_dummy(P, tok(P)->pos);
    ir_expr *e;
    ir_pos pos = tok(P)->pos;
    if (kind(P) == IR_T_MINUS || kind(P) == IR_T_NOT) {
        ir_op op = kind(P) == IR_T_MINUS ? IR_OP_NEG : IR_OP_NOT;
        ps_advance(P);
        ir_expr *a = parse_unary(P);
        P->edepth++;
        e = ir_alloc(P->p, sizeof *e);
        e->kind = IR_E_UNARY;
        e->pos = pos;
        e->u.op.op = op;
        e->u.op.a = a;
    } else {
        e = parse_primary(P);
    }
    leave(P);
    return e;
}

static ir_expr *parse_binary(parser *P, int minprec)
{
    ir_expr *left = parse_unary(P);
    int ldep = P->edepth;
    while (!P->fatal) {
        ir_tok_kind k = kind(P);
        int prec = binops[k].prec;
        if (prec == 0 || prec < minprec) break;
        ir_pos pos = tok(P)->pos;
        ps_advance(P);
        ir_expr *right = parse_binary(P, prec + 1);
        if (P->edepth > ldep) ldep = P->edepth;
        if (++ldep > IR_MAX_EXPR_DEPTH) {
            ps_err(P, pos, "expression nested too deeply (more than %d levels)", IR_MAX_EXPR_DEPTH);
            ps_set_fatal(P);
        }
        ir_expr *e = ir_alloc(P->p, sizeof *e);
        e->kind = IR_E_BINARY;
        e->pos = pos;
        e->u.op.op = binops[k].op;
        e->u.op.a = left;
        e->u.op.b = right;
        left = e;
        if (prec == PREC_CMP && binops[kind(P)].prec == PREC_CMP) {
            char b[96];
            ps_err(P, tok(P)->pos, "comparisons do not chain: expected an operator other than %s "
                 "(add parentheses)", ps_describe(tok(P), b, sizeof b));
            break;
        }
    }
    P->edepth = ldep;
    return left;
}

ir_expr *parse_expr(parser *P) { return parse_binary(P, PREC_OR); }
