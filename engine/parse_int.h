/*
 * parse_int.h — the parser's internals (see ir.h, ir_parse), shared by parse.c (tokens, errors,
 * recovery, comments, the program), parse_expr.c, parse_stmt.c and parse_decl.c.
 */
#ifndef POLYAPM_PARSE_INT_H
#define POLYAPM_PARSE_INT_H

#include <string.h>

#include "ir.h"
#include "lex.h"

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
static inline const ir_token *tok(const parser *P) { return &P->lx.toks[P->cur]; }

static inline ir_tok_kind kind(const parser *P) { return P->lx.toks[P->cur].kind; }

static inline ir_tok_kind peek(const parser *P, int k)
{
    int i = P->cur + k;
    return i < P->lx.ntoks ? P->lx.toks[i].kind : IR_T_EOF;
}

static inline int before(ir_pos a, ir_pos b) { return a.line < b.line || (a.line == b.line && a.col < b.col); }

static inline void leave(parser *P) { P->depth--; }

static inline int is_word(const parser *P, int k, const char *w)
{
    int i = P->cur + k;
    return i < P->lx.ntoks && P->lx.toks[i].kind == IR_T_IDENT && strcmp(P->lx.toks[i].text, w) == 0;
}

static inline int is_decl_start(ir_tok_kind k)
{
    return k == IR_T_PARAM || k == IR_T_ARRAY || k == IR_T_INIT || k == IR_T_OUTPUT ||
           k == IR_T_DIST || k == IR_T_REFERENCE;
}

/* `op NAME {` starts an operator declaration (`op` is not reserved elsewhere). */
static inline int is_op_start(const parser *P)
{
    return is_word(P, 0, "op") && peek(P, 1) == IR_T_IDENT && peek(P, 2) == IR_T_LBRACE;
}

/* `assume LABEL unchanged` starts an assumption (`assume` and `unchanged` are not reserved). */
static inline int is_assume_start(const parser *P)
{
    return is_word(P, 0, "assume") && peek(P, 1) == IR_T_IDENT && is_word(P, 2, "unchanged");
}

/* A declaration that starts with a word rather than a keyword: `op`, `assume`. */
static inline int is_word_decl_start(const parser *P) { return is_op_start(P) || is_assume_start(P); }

/* `recv` alone (a word, not a keyword: a name `recv` followed by ':', '[' or '=' stays one). */
static inline int is_recv(const parser *P)
{
    ir_tok_kind n = peek(P, 1);
    return is_word(P, 0, "recv") && n != IR_T_COLON && n != IR_T_LBRACK && n != IR_T_ASSIGN;
}

/* parse.c: tokens, errors, recovery */
void ps_advance(parser *P);
/* Stops parsing: no more errors are reported, the current token becomes the end of the file. */
void ps_set_fatal(parser *P);
/* Reports an error at pos (once until the next ps_sync; the parse stops after IR_MAX_ERRORS). */
void ps_err(parser *P, ir_pos pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "name 'x'", "integer 12", "'for'", "end of file" */
const char *ps_describe(const ir_token *t, char *buf, size_t n);
/* "expected WHAT, found ..." at the current token. */
void ps_expected(parser *P, const char *what);
/* Consumes a token of kind k if it is the current one; 1 when it was. */
int ps_accept(parser *P, ir_tok_kind k);
/* The same, reporting "expected ..." when it is not. */
int ps_expect(parser *P, ir_tok_kind k);
/* A name (at *pos), or "?" after reporting that `what` was expected. */
const char *ps_expect_ident(parser *P, const char *what, ir_pos *pos);
/* One level deeper (leave() undoes it); 0 after "nesting too deep". */
int ps_enter(parser *P);
/* Skips to a point where parsing can resume; balanced braces are skipped whole. */
void ps_sync(parser *P);
/* parse.c: comments */
/* The unconsumed comments before upto, as lead comments. */
ir_comments ps_take_lead(parser *P, ir_pos upto);
/* A comment on the line of the last consumed token, before the current token. */
const char *ps_take_trail(parser *P);

/* parse_expr.c */
ir_expr *parse_expr(parser *P);
/* A placeholder expression (the integer 0 at pos) where parsing one failed. */
ir_expr *ps_dummy(parser *P, ir_pos pos);
/* ('[' expr ']')*  into a new array; returns their number. */
int parse_subscripts(parser *P, ir_expr ***out);

/* parse_stmt.c */
/* An operator: `+`, `*`, or a name (max, min, and, or, band, bor, bxor, or a declared op). */
void parse_opref(parser *P, ir_opref *op);
/* Statements until '}' (in a block) or the end of the file (top level). */
void parse_stmts(parser *P, ir_block *b, int top);

/* parse_decl.c */
/* Parses one declaration (a `param` line may give several) and appends it; returns the first. */
ir_decl *parse_decls_one(parser *P);

#endif
