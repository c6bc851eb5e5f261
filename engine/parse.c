/*
 * parse.c — the parser: tokens to the IR (recursive descent with error recovery).
 *
 * Grammar (see man/polyapm-lang.5):
 *   program  = 'program' NAME 'level' NAME ['messages' 'aggregate'] decl* stmt* EOF
 *   decl     = 'param' NAME '=' expr (',' NAME '=' expr)*
 *            | 'reference' STRING
 *            | 'array' NAME ('[' expr '..' expr ']')* ('double' | 'int')
 *            | 'init' NAME ('[' expr ']')* '=' expr
 *            | 'output' NAME ('[' expr ']')*
 *            | 'dist' NAME ('replicate' | '(' NAME ')' piece ('+' piece)* ['offset' ('[' expr ']')*])
 *   piece    = ('[' [NAME '='] expr '..' expr ['step' expr ['block' expr]] ']')*
 *   stmt     = [NAME ':'] NAME ('[' expr ']')* '=' expr ['cost' expr]
 *            | 'let' NAME '=' expr
 *            | 'if' expr ['cost' expr] block ['else' (if | ['cost' expr] block)]
 *            | 'for' var (',' var)* ['cost' expr] block
 *            | 'send' NAME ('[' expr ']')* 'to' expr ['..' expr] 'at' expr ['when' expr]
 *                     ['as' ('[' expr ']')+] ['cost' expr]
 *   var      = NAME '=' expr '..' expr ['step' expr] ['seq' | 'par' | 'proc']
 *   block    = '{' stmt* '}'
 *   expr     = binary expression with C's precedence (|| && comparisons + - * / %), comparisons
 *              do not chain; unary - !; primary = INT | REAL | NAME | NAME ('[' expr ']')+
 *            | f '(' expr (',' expr)* ')' | r '(' NAME '=' expr '..' expr ')' mulexpr | '(' expr ')'
 *              where r is sum/prod/max/min: a reduction's body extends over * / % (as in
 *              mathematics: sum(k = 1 .. n) a[k] * b[k] + c adds c once).
 *
 * Errors say what was expected and what was found.  After an error the parser skips to the next
 * declaration or statement start (or closing brace) and goes on, so several errors are reported;
 * it stops after 50 errors or at a nesting deeper than IR_MAX_DEPTH ("nesting too deep").
 *
 * Comments: own-line comments before an item are its `lead`, a comment at the end of an item's
 * last line its `trail`; comments before '}' are the block's `tail`, those at the end of the file
 * the program's `tail`, those before `program` the program's `comments.lead` (a comment at the
 * end of the `program` line is `comments.trail`).  Comments anywhere else (inside an expression,
 * after '{') become lead comments of the next item.
 */
#include "ir.h"
#include "lex.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Nesting of blocks, parentheses and unary operators; depth of an expression tree (long
 * operator chains build deep trees, and later phases recurse over them). */
enum { IR_MAX_DEPTH = 200, IR_MAX_EXPR_DEPTH = 1000, IR_MAX_ERRORS = 50 };

typedef struct parser {
    ir_program *p;
    diag_list *d;
    const char *file;
    ir_lexed lx;
    int cur;          /* current token */
    int lexerr;       /* next lexical error to report */
    int com;          /* first comment not yet consumed (all before it are consumed) */
    int nerr;
    int depth;
    int edepth;       /* depth of the expression tree the last parse_* function returned */
    int panic;        /* an error was reported; suppress more until the next sync */
    int fatal;        /* stop parsing (too many errors, nesting too deep) */
} parser;

#define PUSH(P, arr, n, cap, x) do {                                              \
        if ((n) == (cap)) {                                                        \
            int nc_ = (cap) ? (cap) * 2 : 4;                                       \
            void *nv_ = ir_alloc((P)->p, (size_t)nc_ * sizeof *(arr));             \
            if (n) memcpy(nv_, (arr), (size_t)(n) * sizeof *(arr));                \
            (arr) = nv_;                                                           \
            (cap) = nc_;                                                           \
        }                                                                          \
        (arr)[(n)++] = (x);                                                        \
    } while (0)

/* ---- tokens, errors ------------------------------------------------------------------------- */

static const ir_token *tok(const parser *P) { return &P->lx.toks[P->cur]; }
static ir_tok_kind kind(const parser *P) { return P->lx.toks[P->cur].kind; }
static ir_tok_kind peek(const parser *P, int k)
{
    int i = P->cur + k;
    return i < P->lx.ntoks ? P->lx.toks[i].kind : IR_T_EOF;
}
static int before(ir_pos a, ir_pos b) { return a.line < b.line || (a.line == b.line && a.col < b.col); }

static void flush_lex(parser *P, ir_pos upto, int inclusive)
{
    while (P->lexerr < P->lx.nerrors) {
        const ir_lex_error *e = &P->lx.errors[P->lexerr];
        if (!(before(e->pos, upto) || (inclusive && e->pos.line == upto.line && e->pos.col == upto.col)))
            break;
        diag_add(P->d, P->file, e->pos.line, e->pos.col, "%s", e->msg);
        P->nerr++;
        P->lexerr++;
    }
}

static void advance(parser *P)
{
    if (P->cur < P->lx.ntoks - 1) P->cur++;
    flush_lex(P, tok(P)->pos, 0);
}

static void set_fatal(parser *P)
{
    P->fatal = 1;
    P->panic = 1;
    P->cur = P->lx.ntoks - 1;
}

static void perr(parser *P, ir_pos pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void perr(parser *P, ir_pos pos, const char *fmt, ...)
{
    if (P->panic || P->fatal) return;
    flush_lex(P, pos, 1);
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    diag_add(P->d, P->file, pos.line, pos.col, "%s", buf);
    P->nerr++;
    P->panic = 1;
    if (P->nerr >= IR_MAX_ERRORS) set_fatal(P);
}

/* "name 'x'", "integer 12", "'for'", "end of file" */
static const char *describe(const ir_token *t, char *buf, size_t n)
{
    switch (t->kind) {
    case IR_T_IDENT: snprintf(buf, n, "name '%.40s'", t->text); break;
    case IR_T_INT: snprintf(buf, n, "integer %lld", (long long)t->ival); break;
    case IR_T_REAL: snprintf(buf, n, "real number %g", t->rval); break;
    case IR_T_STRING: snprintf(buf, n, "string \"%.40s\"", t->text); break;
    default: snprintf(buf, n, "%s", ir_tok_name(t->kind)); break;
    }
    return buf;
}

static void expected(parser *P, const char *what)
{
    char b[96];
    perr(P, tok(P)->pos, "expected %s, found %s", what, describe(tok(P), b, sizeof b));
}

static int accept(parser *P, ir_tok_kind k)
{
    if (kind(P) != k) return 0;
    advance(P);
    return 1;
}

static int expect(parser *P, ir_tok_kind k)
{
    if (accept(P, k)) return 1;
    expected(P, ir_tok_name(k));
    return 0;
}

static const char *expect_ident(parser *P, const char *what, ir_pos *pos)
{
    if (pos) *pos = tok(P)->pos;
    if (kind(P) == IR_T_IDENT) {
        const char *s = tok(P)->text;
        advance(P);
        return s;
    }
    expected(P, what);
    return "?";
}

static int enter(parser *P)
{
    if (++P->depth > IR_MAX_DEPTH) {
        perr(P, tok(P)->pos, "nesting too deep (more than %d levels)", IR_MAX_DEPTH);
        set_fatal(P);
        return 0;
    }
    return 1;
}
static void leave(parser *P) { P->depth--; }

static int is_word(const parser *P, int k, const char *w)
{
    int i = P->cur + k;
    return i < P->lx.ntoks && P->lx.toks[i].kind == IR_T_IDENT && strcmp(P->lx.toks[i].text, w) == 0;
}

static int is_decl_start(ir_tok_kind k)
{
    return k == IR_T_PARAM || k == IR_T_ARRAY || k == IR_T_INIT || k == IR_T_OUTPUT ||
           k == IR_T_DIST || k == IR_T_REFERENCE;
}
/* `op NAME {` starts an operator declaration (`op` is not reserved elsewhere). */
static int is_op_start(const parser *P)
{
    return is_word(P, 0, "op") && peek(P, 1) == IR_T_IDENT && peek(P, 2) == IR_T_LBRACE;
}
/* `recv` alone (a word, not a keyword: a name `recv` followed by ':', '[' or '=' stays one). */
static int is_recv(const parser *P)
{
    ir_tok_kind n = peek(P, 1);
    return is_word(P, 0, "recv") && n != IR_T_COLON && n != IR_T_LBRACK && n != IR_T_ASSIGN;
}
static int is_stmt_start(const parser *P)
{
    ir_tok_kind k = kind(P);
    return k == IR_T_LET || k == IR_T_IF || k == IR_T_FOR || k == IR_T_SEND ||
           (k == IR_T_IDENT && peek(P, 1) == IR_T_COLON) || is_recv(P);
}

/* Skips to a point where parsing can resume; balanced braces are skipped whole. */
static void sync(parser *P)
{
    while (kind(P) != IR_T_EOF) {
        ir_tok_kind k = kind(P);
        if (k == IR_T_SEMI) { advance(P); break; }
        if (k == IR_T_RBRACE || is_decl_start(k) || is_stmt_start(P) || is_op_start(P)) break;
        if (k == IR_T_LBRACE) {
            int depth = 0;
            do {
                if (kind(P) == IR_T_LBRACE) depth++;
                else if (kind(P) == IR_T_RBRACE) depth--;
                advance(P);
            } while (depth > 0 && kind(P) != IR_T_EOF);
            continue;
        }
        advance(P);
    }
    if (!P->fatal) P->panic = 0;
}

/* ---- comments ------------------------------------------------------------------------------- */

static ir_comments take_lead(parser *P, ir_pos upto)
{
    ir_comments c = { NULL, 0, NULL };
    int cap = 0;
    while (P->com < P->lx.ncomments) {
        ir_comment_tok *ct = &P->lx.comments[P->com];
        if (ct->consumed) { P->com++; continue; }
        if (!before(ct->pos, upto)) break;
        ct->consumed = 1;
        PUSH(P, c.lead, c.nlead, cap, ct->text);
        P->com++;
    }
    return c;
}

/* A comment on the line of the last consumed token, before the current token. */
static const char *take_trail(parser *P)
{
    if (P->cur == 0) return NULL;
    int line = P->lx.toks[P->cur - 1].end_line;
    ir_pos upto = tok(P)->pos;
    for (int i = P->com; i < P->lx.ncomments; i++) {
        ir_comment_tok *ct = &P->lx.comments[i];
        if (!before(ct->pos, upto)) break;
        if (!ct->consumed && ct->pos.line == line) {
            ct->consumed = 1;
            return ct->text;
        }
    }
    return NULL;
}

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
    { "bor", IR_F_BOR, 2, 2 }, { "bxor", IR_F_BXOR, 2, 2 },
};
static const struct { const char *name; ir_reduce_op r; } reductions[] = {
    { "sum", IR_R_SUM }, { "prod", IR_R_PROD }, { "max", IR_R_MAX }, { "min", IR_R_MIN },
};

static ir_expr *parse_expr(parser *P);
static ir_expr *parse_binary(parser *P, int minprec);
static void parse_opref(parser *P, ir_opref *op);


static ir_expr *dummy(parser *P, ir_pos pos)
{
    ir_expr *e = ir_new_int(P->p, 0);
    e->pos = pos;
    return e;
}

/* ('[' expr ']')*  into a new array */
static int parse_subscripts(parser *P, ir_expr ***out)
{
    ir_expr **v = NULL;
    int n = 0, cap = 0, dep = 0;
    while (kind(P) == IR_T_LBRACK && !P->fatal) {
        advance(P);
        ir_expr *e = parse_expr(P);
        if (P->edepth > dep) dep = P->edepth;
        PUSH(P, v, n, cap, e);
        if (!expect(P, IR_T_RBRACK)) break;
    }
    *out = v;
    P->edepth = dep;
    return n;
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
        advance(P);
        return e;
    }
    case IR_T_REAL: {
        ir_expr *e = ir_new_real(P->p, t->rval);
        e->pos = pos;
        advance(P);
        return e;
    }
    case IR_T_LPAREN: {
        advance(P);
        ir_expr *e = parse_expr(P);
        expect(P, IR_T_RPAREN);
        return e;
    }
    case IR_T_IDENT: break;
    default:
        expected(P, "an expression");
        return dummy(P, pos);
    }
    const char *id = t->text;
    if (peek(P, 1) == IR_T_LPAREN && strcmp(id, "repeat") == 0) {
        /* repeat(OP, k, e1, .., en) */
        advance(P);
        advance(P);
        ir_expr *e = ir_alloc(P->p, sizeof *e);
        e->kind = IR_E_REPEAT;
        e->pos = pos;
        parse_opref(P, &e->u.repeat.op);
        int dep = 0;
        ir_expr **args = NULL;
        int n = 0, cap = 0;
        if (expect(P, IR_T_COMMA)) {
            e->u.repeat.k = parse_expr(P);
            dep = P->edepth;
            while (accept(P, IR_T_COMMA) && !P->fatal) {
                ir_expr *a = parse_expr(P);
                if (P->edepth > dep) dep = P->edepth;
                PUSH(P, args, n, cap, a);
            }
            if (n == 0) expected(P, "',' and the start tuple after repeat's count");
        }
        expect(P, IR_T_RPAREN);
        if (!e->u.repeat.k) e->u.repeat.k = dummy(P, pos);
        e->u.repeat.args = args;
        e->u.repeat.nargs = n;
        P->edepth = dep + 1;
        return e;
    }
    if (peek(P, 1) == IR_T_LPAREN) {
        if (peek(P, 2) == IR_T_IDENT && peek(P, 3) == IR_T_ASSIGN) {
            for (unsigned i = 0; i < sizeof reductions / sizeof reductions[0]; i++) {
                if (strcmp(id, reductions[i].name) != 0) continue;
                advance(P);
                advance(P);
                ir_expr *e = ir_alloc(P->p, sizeof *e);
                e->kind = IR_E_REDUCE;
                e->pos = pos;
                e->u.reduce.r = reductions[i].r;
                e->u.reduce.var = tok(P)->text;
                e->u.reduce.slot = -1;
                advance(P);
                advance(P);
                e->u.reduce.lo = parse_expr(P);
                int dep = P->edepth;
                expect(P, IR_T_DOTDOT);
                e->u.reduce.hi = parse_expr(P);
                if (P->edepth > dep) dep = P->edepth;
                expect(P, IR_T_RPAREN);
                e->u.reduce.body = parse_binary(P, PREC_MUL);
                if (P->edepth > dep) dep = P->edepth;
                P->edepth = dep + 1;
                return e;
            }
        }
        for (unsigned i = 0; i < sizeof funcs / sizeof funcs[0]; i++) {
            if (strcmp(id, funcs[i].name) != 0) continue;
            advance(P);
            advance(P);
            ir_expr **args = NULL;
            int n = 0, cap = 0, dep = 0;
            if (kind(P) != IR_T_RPAREN) {
                do {
                    ir_expr *a = parse_expr(P);
                    if (P->edepth > dep) dep = P->edepth;
                    PUSH(P, args, n, cap, a);
                } while (accept(P, IR_T_COMMA) && !P->fatal);
            }
            expect(P, IR_T_RPAREN);
            if (n < funcs[i].minargs || n > funcs[i].maxargs) {
                if (funcs[i].minargs == funcs[i].maxargs)
                    perr(P, pos, "%s takes %d argument%s, found %d", id, funcs[i].minargs,
                         funcs[i].minargs == 1 ? "" : "s", n);
                else
                    perr(P, pos, "%s takes at least %d arguments, found %d", id, funcs[i].minargs, n);
            }
            ir_expr *e = ir_alloc(P->p, sizeof *e);
            e->kind = IR_E_CALL;
            e->pos = pos;
            e->u.call.f = funcs[i].f;
            e->u.call.args = args;
            e->u.call.nargs = n;
            P->edepth = dep + 1;
            return e;
        }
        perr(P, pos, "unknown function '%s' (expected min, max, floor, ceil, abs, sqrt, isqrt, "
             "select, band, bor, bxor, repeat, or a reduction sum/prod/max/min(k = lo .. hi))", id);
        advance(P);
        return dummy(P, pos);
    }
    advance(P);
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
    if (!enter(P)) return dummy(P, tok(P)->pos);
    ir_expr *e;
    ir_pos pos = tok(P)->pos;
    if (kind(P) == IR_T_MINUS || kind(P) == IR_T_NOT) {
        ir_op op = kind(P) == IR_T_MINUS ? IR_OP_NEG : IR_OP_NOT;
        advance(P);
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
        advance(P);
        ir_expr *right = parse_binary(P, prec + 1);
        if (P->edepth > ldep) ldep = P->edepth;
        if (++ldep > IR_MAX_EXPR_DEPTH) {
            perr(P, pos, "expression nested too deeply (more than %d levels)", IR_MAX_EXPR_DEPTH);
            set_fatal(P);
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
            perr(P, tok(P)->pos, "comparisons do not chain: expected an operator other than %s "
                 "(add parentheses)", describe(tok(P), b, sizeof b));
            break;
        }
    }
    P->edepth = ldep;
    return left;
}

static ir_expr *parse_expr(parser *P) { return parse_binary(P, PREC_OR); }

/* ---- statements ----------------------------------------------------------------------------- */

static ir_block *parse_block(parser *P);
static ir_decl *parse_decls_one(parser *P);

static ir_expr *parse_opt_cost(parser *P)
{
    if (!accept(P, IR_T_COST)) return NULL;
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
    const char *id = expect_ident(P, what, &pos);
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
    if (!enter(P)) return s;
    advance(P);
    s->u.if_.cond = parse_expr(P);
    ir_expr *cost = parse_opt_cost(P);
    s->u.if_.then_blk = parse_block(P);
    s->u.if_.then_blk->cost = cost;
    if (accept(P, IR_T_ELSE)) {
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
    advance(P);
    ir_loopvar *vars = NULL;
    int n = 0, cap = 0;
    do {
        ir_loopvar v;
        memset(&v, 0, sizeof v);
        v.slot = -1;
        v.var = expect_ident(P, "a loop variable", &v.pos);
        expect(P, IR_T_ASSIGN);
        v.lo = parse_expr(P);
        expect(P, IR_T_DOTDOT);
        v.hi = parse_expr(P);
        if (accept(P, IR_T_STEP)) v.step = parse_expr(P);
        for (unsigned i = 0; i < sizeof loop_kinds / sizeof loop_kinds[0]; i++)
            if (kind(P) == loop_kinds[i].tk) {
                v.kind = loop_kinds[i].lk;
                advance(P);
                break;
            }
        PUSH(P, vars, n, cap, v);
    } while (!P->panic && accept(P, IR_T_COMMA));
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
    advance(P);
    s->u.send.what = parse_lvalue(P, "the array element to send");
    if (expect(P, IR_T_TO)) {
        s->u.send.to_lo = parse_expr(P);
        if (accept(P, IR_T_DOTDOT)) s->u.send.to_hi = parse_expr(P);
    }
    if (expect(P, IR_T_AT)) s->u.send.at = parse_expr(P);
    if (accept(P, IR_T_WHEN)) s->u.send.when = parse_expr(P);
    if (accept(P, IR_T_AS)) {
        if (kind(P) != IR_T_LBRACK) expected(P, "'[' after 'as'");
        s->u.send.nas = parse_subscripts(P, &s->u.send.as_idx);
    }
    s->cost = parse_opt_cost(P);
    if (!s->u.send.to_lo) s->u.send.to_lo = dummy(P, s->pos);
    if (!s->u.send.at) s->u.send.at = dummy(P, s->pos);
    return s;
}

/* An operator: `+`, `*`, or a name (max, min, and, or, band, bor, bxor, or a declared op). */
static void parse_opref(parser *P, ir_opref *op)
{
    op->pos = tok(P)->pos;
    op->builtin = op->user = -1;
    if (kind(P) == IR_T_PLUS) op->name = "+";
    else if (kind(P) == IR_T_STAR) op->name = "*";
    else if (kind(P) == IR_T_IDENT) op->name = tok(P)->text;
    else {
        expected(P, "an operator (+, *, max, min, and, or, band, bor, bxor or an op name)");
        op->name = "?";
        return;
    }
    advance(P);
}

/* A block: NAME ('[' expr ']')* ['[' expr '..' expr ']'], or `_` where `allow_drop` (then
 * NULL).  The range, if any, goes to *lo and *hi. */
static ir_expr *parse_block_ref(parser *P, int allow_drop, const char *what, ir_expr **lo, ir_expr **hi)
{
    *lo = *hi = NULL;
    if (allow_drop && is_word(P, 0, "_")) {
        advance(P);
        return NULL;
    }
    ir_pos pos;
    const char *id = expect_ident(P, what, &pos);
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
        advance(P);
        ir_expr *x = parse_expr(P);
        if (accept(P, IR_T_DOTDOT)) {
            *lo = x;
            *hi = parse_expr(P);
            expect(P, IR_T_RBRACK);
            if (kind(P) == IR_T_LBRACK) perr(P, tok(P)->pos, "a block's range [lo .. hi] must be its last subscript");
            break;
        }
        PUSH(P, e->u.access.idx, e->u.access.nidx, cap, x);
        expect(P, IR_T_RBRACK);
    }
    return e;
}

/* block | '(' block (',' block)* ')'; the ranges into *lo, *hi (NULL arrays when none). */
static int parse_block_refs(parser *P, ir_expr ***out, ir_expr ***lo, ir_expr ***hi, int allow_drop,
                            const char *what)
{
    ir_expr **v = NULL, **l = NULL, **h = NULL;
    int n = 0, cap = 0, any = 0;
    int paren = accept(P, IR_T_LPAREN);
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
    } while (paren && !P->panic && accept(P, IR_T_COMMA));
    if (paren) expect(P, IR_T_RPAREN);
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
    advance(P);
    if (ir_coll_has_op(k)) {
        if (expect(P, IR_T_LPAREN)) {
            parse_opref(P, &s->u.coll.op);
            expect(P, IR_T_RPAREN);
        }
        if (!s->u.coll.op.name) s->u.coll.op.name = "?";
    } else if (kind(P) == IR_T_LPAREN && peek(P, 2) == IR_T_RPAREN) {
        perr(P, tok(P)->pos, "'%s' takes no operator", ir_coll_name(k));
    }
    s->u.coll.nsrc = parse_block_refs(P, &s->u.coll.src, &s->u.coll.src_lo, &s->u.coll.src_hi, 0,
                                      "the block read (an array name)");
    const char *word = ir_coll_root_word(k);
    if (word) {
        int ok = strcmp(word, "to") == 0 ? accept(P, IR_T_TO) : (is_word(P, 0, word) ? (advance(P), 1) : 0);
        if (!ok) {
            char what[64];
            snprintf(what, sizeof what, "'%s' and the root processor", word);
            expected(P, what);
        } else {
            s->u.coll.root = parse_expr(P);
        }
    }
    if (!P->panic && is_word(P, 0, "by")) {
        advance(P);
        s->u.coll.by = parse_expr(P);
    }
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
        if (!P->panic && expect(P, IR_T_ASSIGN)) {
            if (at_collective(P)) parse_collective(P, s);
            else expected(P, "a collective (bcast, reduce, allreduce, scan, exscan, allgather, gather, "
                          "scatter, multicast, reduce_bal, allreduce_bal, scan_bal) after a tuple of "
                          "destinations");
        }
        return s;
    }
    case IR_T_LET: {
        ir_stmt *s = new_stmt(P, IR_S_LET, pos);
        advance(P);
        s->u.let.var = expect_ident(P, "a name after 'let'", NULL);
        s->u.let.slot = -1;
        expect(P, IR_T_ASSIGN);
        s->u.let.value = parse_expr(P);
        return s;
    }
    case IR_T_IF: return parse_if(P);
    case IR_T_FOR: return parse_for(P);
    case IR_T_SEND: return parse_send(P);
    case IR_T_IDENT: {
        if (is_recv(P)) {
            advance(P);
            return new_stmt(P, IR_S_RECV, pos);
        }
        ir_stmt *s = new_stmt(P, IR_S_ASSIGN, pos);
        if (peek(P, 1) == IR_T_COLON) {
            s->u.assign.label = tok(P)->text;
            advance(P);
            advance(P);
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
        if (!expect(P, IR_T_ASSIGN)) {
            s->u.assign.rhs = dummy(P, pos);
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
            perr(P, rpos, "a range [lo .. hi] is only allowed in a collective's block");
            return s;
        }
        s->u.assign.rhs = parse_expr(P);
        s->cost = parse_opt_cost(P);
        return s;
    }
    default:
        expected(P, "a statement");
        return NULL;
    }
}

/* Statements until '}' (in a block) or the end of the file (top level). */
static void parse_stmts(parser *P, ir_block *b, int top)
{
    ir_stmt **v = NULL;
    int n = 0, cap = 0;
    for (;;) {
        while (accept(P, IR_T_SEMI)) {}
        ir_tok_kind k = kind(P);
        if (k == IR_T_EOF || (k == IR_T_RBRACE && !top) || P->fatal) break;
        ir_comments lead = take_lead(P, tok(P)->pos);
        int start = P->cur;
        if (is_decl_start(k) || is_op_start(P)) {
            perr(P, tok(P)->pos, "expected a statement, found %s (declarations come before "
                 "statements)", is_op_start(P) ? "'op'" : ir_tok_name(k));
            int keep = P->panic;
            P->panic = 0;
            parse_decls_one(P);
            P->panic = keep;
        } else {
            ir_stmt *s = parse_stmt(P);
            if (s) {
                s->comments.lead = lead.lead;
                s->comments.nlead = lead.nlead;
                if (!P->panic) s->comments.trail = take_trail(P);
                PUSH(P, v, n, cap, s);
            }
        }
        if (P->panic) {
            if (P->cur == start) advance(P);
            sync(P);
        }
    }
    b->stmts = v;
    b->n = n;
}

static ir_block *parse_block(parser *P)
{
    ir_block *b = ir_new_block(P->p);
    if (!expect(P, IR_T_LBRACE)) return b;
    if (!enter(P)) return b;
    parse_stmts(P, b, 0);
    if (kind(P) == IR_T_RBRACE) {
        b->tail = take_lead(P, tok(P)->pos);
        advance(P);
    } else {
        expected(P, "'}'");
    }
    leave(P);
    return b;
}

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
        advance(P);
        ir_expr *a = parse_expr(P);
        expect(P, IR_T_DOTDOT);
        ir_expr *b = parse_expr(P);
        expect(P, IR_T_RBRACK);
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
    if (!expect(P, IR_T_LPAREN)) return 0;
    do {
        ir_field f;
        f.name = expect_ident(P, "a field name", &f.pos);
        f.type = IR_INT;
        if (accept(P, IR_T_DOUBLE)) f.type = IR_DOUBLE;
        else if (!accept(P, IR_T_INTKW)) expected(P, "the field's type ('int' or 'double')");
        PUSH(P, v, n, cap, f);
    } while (!P->panic && accept(P, IR_T_COMMA));
    expect(P, IR_T_RPAREN);
    *out = v;
    return n;
}

/* NAME | '(' NAME (',' NAME)* ')' */
static void parse_pattern(parser *P, ir_pattern *pt)
{
    const char **v = NULL;
    int n = 0, cap = 0;
    pt->pos = tok(P)->pos;
    if (accept(P, IR_T_LPAREN)) {
        do {
            const char *nm = expect_ident(P, "a name in the pattern", NULL);
            PUSH(P, v, n, cap, nm);
        } while (!P->panic && accept(P, IR_T_COMMA));
        expect(P, IR_T_RPAREN);
    } else {
        const char *nm = expect_ident(P, "a pattern (a name or a tuple of names)", NULL);
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
    advance(P);
    while ((kind(P) == IR_T_IDENT || kind(P) == IR_T_LPAREN) && !P->panic) {
        if (it->npats == 2) {
            perr(P, tok(P)->pos, "expected '=': a clause has at most two patterns");
            return;
        }
        parse_pattern(P, &it->pats[it->npats++]);
    }
    if (!expect(P, IR_T_ASSIGN)) return;
    if (accept(P, IR_T_LET)) {
        int cn = 0, cv = 0;
        do {
            const char *nm = expect_ident(P, "a name after 'let'", NULL);
            expect(P, IR_T_ASSIGN);
            ir_expr *e = parse_expr(P);
            int n0 = it->nlets;
            PUSH(P, it->lets, it->nlets, cn, nm);
            it->nlets = n0;
            PUSH(P, it->letv, it->nlets, cv, e);
        } while (!P->panic && accept(P, IR_T_COMMA));
        if (!P->panic) {
            if (is_word(P, 0, "in")) advance(P);
            else expected(P, "'in' after the lets of a clause");
        }
    }
    int cap = 0;
    if (at_tuple(P)) {
        advance(P);
        do {
            ir_expr *e = parse_expr(P);
            PUSH(P, it->val, it->nval, cap, e);
        } while (!P->panic && accept(P, IR_T_COMMA));
        expect(P, IR_T_RPAREN);
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
    advance(P);
    d->u.op.name = expect_ident(P, "the operator's name", NULL);
    d->u.op.index = -1;
    if (!expect(P, IR_T_LBRACE)) return d;
    int cap = 0;
    while (kind(P) != IR_T_RBRACE && kind(P) != IR_T_EOF && !P->fatal) {
        while (accept(P, IR_T_SEMI)) {}
        if (kind(P) == IR_T_RBRACE) break;
        if (is_decl_start(kind(P)) || is_op_start(P) || kind(P) == IR_T_FOR) break;   /* a missing '}' */
        ir_opitem it;
        memset(&it, 0, sizeof it);
        it.pos = tok(P)->pos;
        ir_comments lead = take_lead(P, it.pos);
        it.comments.lead = lead.lead;
        it.comments.nlead = lead.nlead;
        int start = P->cur;
        ir_clause_kind ck;
        const char *w = kind(P) == IR_T_IDENT ? tok(P)->text : "";
        int done = 0;
        if (strcmp(w, "state") == 0 || strcmp(w, "in") == 0) {
            it.kind = w[0] == 's' ? IR_OI_STATE : IR_OI_IN;
            advance(P);
            it.nfields = parse_fields(P, &it.fields);
            done = 1;
        } else if (ir_clause_parse(w, &ck)) {
            parse_clause(P, &it);
            done = 1;
        } else if (strcmp(w, "distributes") == 0) {
            it.kind = IR_OI_DISTRIBUTES;
            advance(P);
            if (is_word(P, 0, "over")) advance(P);
            else expected(P, "'over' after 'distributes'");
            if (!P->panic) parse_opref(P, &it.over);
            done = 1;
        } else {
            for (unsigned i = 0; i < sizeof op_flags / sizeof op_flags[0]; i++)
                if (strcmp(w, op_flags[i].word) == 0) {
                    it.kind = op_flags[i].kind;
                    advance(P);
                    done = 1;
                }
        }
        if (!done)
            expected(P, "an operator item (state, in, ident, preaccum, accum, postaccum, combine, gen, "
                     "scangen, one, lower, upper, even, odd, commutative, noncommutative, "
                     "nonassociative, distributes over) or '}'");
        if (!P->panic) it.comments.trail = take_trail(P);
        if (done) PUSH(P, d->u.op.items, d->u.op.nitems, cap, it);
        if (P->panic) {
            if (P->cur == start) advance(P);
            /* skip to the next item on a later line or the closing brace */
            int line = P->lx.toks[P->cur > 0 ? P->cur - 1 : 0].end_line;
            while (kind(P) != IR_T_EOF && kind(P) != IR_T_RBRACE && tok(P)->pos.line == line) advance(P);
            if (!P->fatal) P->panic = 0;
        }
    }
    if (kind(P) == IR_T_RBRACE) advance(P);
    else expected(P, "'}' closing the operator");
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
        advance(P);
        const char *name = NULL;
        if (kind(P) == IR_T_IDENT && peek(P, 1) == IR_T_ASSIGN) {
            name = expect_ident(P, "an index name", NULL);
            advance(P);
            named = 1;
        }
        ir_expr *a = parse_expr(P);
        expect(P, IR_T_DOTDOT);
        ir_expr *b = parse_expr(P), *s = NULL, *k = NULL;
        if (accept(P, IR_T_STEP)) {
            s = parse_expr(P);
            any = 1;
            if (kind(P) == IR_T_IDENT && !strcmp(tok(P)->text, "block")) {
                advance(P);
                k = parse_expr(P);
            }
        }
        expect(P, IR_T_RBRACK);
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
        advance(P);
        ir_dist_piece pc;
        int m = parse_dist_piece(P, &pc);
        if (m != n) perr(P, ppos, "expected %d ranges in every piece of the dist (the first has %d), found %d", n, n, m);
        PUSH(P, d->u.dist.more, d->u.dist.nmore, cap, pc);
    }
    return n;
}

/* Parses one declaration (a `param` line may give several) and appends it; returns the first. */
static ir_decl *parse_decls_one(parser *P)
{
    if (is_op_start(P)) {
        ir_decl *d = parse_op(P);
        ir_program_append_decl(P->p, d);
        return d;
    }
    ir_pos kpos = tok(P)->pos;
    ir_tok_kind k = kind(P);
    ir_decl *first = NULL;
    advance(P);
    switch (k) {
    case IR_T_PARAM: {
        int cont = 0;
        do {
            ir_pos pos;
            const char *name = expect_ident(P, "a parameter name", &pos);
            ir_decl *d = new_decl(P, IR_D_PARAM, pos);
            d->u.param.name = name;
            d->u.param.cont = cont;
            d->u.param.index = -1;
            expect(P, IR_T_ASSIGN);
            d->u.param.value = parse_expr(P);
            ir_program_append_decl(P->p, d);
            if (!first) first = d;
            cont = 1;
        } while (!P->panic && accept(P, IR_T_COMMA));
        return first;
    }
    case IR_T_REFERENCE: {
        ir_decl *d = new_decl(P, IR_D_REFERENCE, kpos);
        if (kind(P) == IR_T_STRING) {
            d->u.reference.path = tok(P)->text;
            advance(P);
        } else {
            expected(P, "a string (the reference program's path)");
            d->u.reference.path = "";
        }
        first = d;
        break;
    }
    case IR_T_ARRAY: {
        ir_pos pos;
        const char *name = expect_ident(P, "an array name", &pos);
        ir_decl *d = new_decl(P, IR_D_ARRAY, pos);
        d->u.array.name = name;
        d->u.array.index = -1;
        d->u.array.ndims = parse_ranges(P, &d->u.array.lo, &d->u.array.hi);
        if (accept(P, IR_T_DOUBLE)) d->u.array.elem = IR_DOUBLE;
        else if (accept(P, IR_T_INTKW)) d->u.array.elem = IR_INT;
        else expected(P, "'[', 'double' or 'int'");
        first = d;
        break;
    }
    case IR_T_INIT: {
        ir_decl *d = new_decl(P, IR_D_INIT, kpos);
        d->u.init.array = expect_ident(P, "an array name", NULL);
        d->u.init.array_index = -1;
        d->u.init.nidx = parse_subscripts(P, &d->u.init.idx);
        if (expect(P, IR_T_ASSIGN)) d->u.init.value = parse_expr(P);
        else d->u.init.value = dummy(P, kpos);
        first = d;
        break;
    }
    case IR_T_OUTPUT: {
        ir_decl *d = new_decl(P, IR_D_OUTPUT, kpos);
        d->u.output.array = expect_ident(P, "an array name", NULL);
        d->u.output.array_index = -1;
        d->u.output.nidx = parse_subscripts(P, &d->u.output.idx);
        first = d;
        break;
    }
    case IR_T_DIST: {
        ir_decl *d = new_decl(P, IR_D_DIST, kpos);
        d->u.dist.array = expect_ident(P, "an array name", NULL);
        d->u.dist.array_index = -1;
        d->u.dist.slot = -1;
        if (accept(P, IR_T_REPLICATE)) {
            d->u.dist.dk = IR_DIST_REPLICATE;
        } else if (accept(P, IR_T_LPAREN)) {
            d->u.dist.dk = IR_DIST_LOCAL;
            d->u.dist.procvar = expect_ident(P, "a processor variable", NULL);
            expect(P, IR_T_RPAREN);
            d->u.dist.ndims = parse_dist_ranges(P, d);
            if (kind(P) == IR_T_OFFSET) {
                ir_pos opos = tok(P)->pos;
                advance(P);
                ir_expr **off;
                int no = parse_subscripts(P, &off);
                if (no != d->u.dist.ndims)
                    perr(P, opos, "expected %d offset indices (one per bound), found %d",
                         d->u.dist.ndims, no);
                else if (no > 0)
                    d->u.dist.offset = off;
            }
        } else {
            expected(P, "'(' or 'replicate'");
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

/* ---- program -------------------------------------------------------------------------------- */

static void parse_program(parser *P)
{
    ir_program *p = P->p;
    p->comments = take_lead(P, tok(P)->pos);
    p->name = "?";
    if (expect(P, IR_T_PROGRAM)) {
        p->name = expect_ident(P, "the program name", NULL);
        if (!P->panic) p->comments.trail = take_trail(P);
    }
    if (P->panic) {
        while (kind(P) != IR_T_EOF && kind(P) != IR_T_LEVEL && !is_decl_start(kind(P)) &&
               !is_stmt_start(P))
            advance(P);
        P->panic = 0;
    }
    if (expect(P, IR_T_LEVEL)) {
        ir_pos pos = tok(P)->pos;
        const char *l = expect_ident(P, "a level (source, syn, syncomm or syndm)", NULL);
        if (!P->panic && !ir_level_parse(l, &p->level))
            perr(P, pos, "unknown level '%s' (expected source, syn, syncomm or syndm)", l);
    }
    if (!P->panic && is_word(P, 0, "messages") && peek(P, 1) == IR_T_IDENT) {   /* `messages aggregate` */
        p->aggregate_pos = tok(P)->pos;
        advance(P);
        ir_pos pos = tok(P)->pos;
        const char *w = expect_ident(P, "aggregate", NULL);
        if (!P->panic && strcmp(w, "aggregate") != 0)
            perr(P, pos, "unknown message placement '%s' (expected aggregate)", w);
        p->aggregate = 1;
    }
    if (P->panic) sync(P);
    /* declarations */
    for (;;) {
        while (accept(P, IR_T_SEMI)) {}
        if ((!is_decl_start(kind(P)) && !is_op_start(P)) || P->fatal) break;
        ir_comments lead = take_lead(P, tok(P)->pos);
        int start = P->cur;
        ir_decl *d = parse_decls_one(P);
        if (d) {
            d->comments.lead = lead.lead;
            d->comments.nlead = lead.nlead;
            if (!P->panic) d->comments.trail = take_trail(P);
        }
        if (P->panic) {
            if (P->cur == start) advance(P);
            sync(P);
        }
    }
    parse_stmts(P, p->body, 1);
    p->tail = take_lead(P, tok(P)->pos);
}

ir_program *ir_parse(const char *file, const char *text, size_t len, diag_list *d)
{
    ir_program *p = ir_program_new(file);
    parser P;
    memset(&P, 0, sizeof P);
    P.p = p;
    P.d = d;
    P.file = p->file;
    ir_lex(p, text, len, &P.lx);
    flush_lex(&P, tok(&P)->pos, 0);
    parse_program(&P);
    if (!P.fatal) flush_lex(&P, (ir_pos){ 1 << 30, 0 }, 0);
    ir_lex_free(&P.lx);
    if (P.nerr > 0) {
        ir_program_free(p);
        return NULL;
    }
    return p;
}
