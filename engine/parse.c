/*
 * parse.c — the parser: tokens to the IR (recursive descent with error recovery).  This file
 * holds the tokens, errors and recovery, comments, and the program (ir_parse); expressions are in
 * parse_expr.c, statements in parse_stmt.c, declarations in parse_decl.c (the parser's state and
 * shared functions in parse_int.h).
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
#include "parse_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- tokens, errors ------------------------------------------------------------------------- */

static void ps_flush_lex(parser *P, ir_pos upto, int inclusive)
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

void ps_advance(parser *P)
{
    if (P->cur < P->lx.ntoks - 1) P->cur++;
    ps_flush_lex(P, tok(P)->pos, 0);
}

void ps_set_fatal(parser *P)
{
    P->fatal = 1;
    P->panic = 1;
    P->cur = P->lx.ntoks - 1;
}

void ps_err(parser *P, ir_pos pos, const char *fmt, ...)
{
    if (P->panic || P->fatal) return;
    ps_flush_lex(P, pos, 1);
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    diag_add(P->d, P->file, pos.line, pos.col, "%s", buf);
    P->nerr++;
    P->panic = 1;
    if (P->nerr >= IR_MAX_ERRORS) ps_set_fatal(P);
}

/* "name 'x'", "integer 12", "'for'", "end of file" */
const char *ps_describe(const ir_token *t, char *buf, size_t n)
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

void ps_expected(parser *P, const char *what)
{
    char b[96];
    ps_err(P, tok(P)->pos, "expected %s, found %s", what, ps_describe(tok(P), b, sizeof b));
}

int ps_accept(parser *P, ir_tok_kind k)
{
    if (kind(P) != k) return 0;
    ps_advance(P);
    return 1;
}

int ps_expect(parser *P, ir_tok_kind k)
{
    if (ps_accept(P, k)) return 1;
    ps_expected(P, ir_tok_name(k));
    return 0;
}

const char *ps_expect_ident(parser *P, const char *what, ir_pos *pos)
{
    if (pos) *pos = tok(P)->pos;
    if (kind(P) == IR_T_IDENT) {
        const char *s = tok(P)->text;
        ps_advance(P);
        return s;
    }
    ps_expected(P, what);
    return "?";
}

int ps_enter(parser *P)
{
    if (++P->depth > IR_MAX_DEPTH) {
        ps_err(P, tok(P)->pos, "nesting too deep (more than %d levels)", IR_MAX_DEPTH);
        ps_set_fatal(P);
        return 0;
    }
    return 1;
}

static int is_stmt_start(const parser *P)
{
    ir_tok_kind k = kind(P);
    return k == IR_T_LET || k == IR_T_IF || k == IR_T_FOR || k == IR_T_SEND ||
           (k == IR_T_IDENT && peek(P, 1) == IR_T_COLON) || is_recv(P);
}

/* Skips to a point where parsing can resume; balanced braces are skipped whole. */
void ps_sync(parser *P)
{
    while (kind(P) != IR_T_EOF) {
        ir_tok_kind k = kind(P);
        if (k == IR_T_SEMI) { ps_advance(P); break; }
        if (k == IR_T_RBRACE || is_decl_start(k) || is_stmt_start(P) || is_word_decl_start(P)) break;
        if (k == IR_T_LBRACE) {
            int depth = 0;
            do {
                if (kind(P) == IR_T_LBRACE) depth++;
                else if (kind(P) == IR_T_RBRACE) depth--;
                ps_advance(P);
            } while (depth > 0 && kind(P) != IR_T_EOF);
            continue;
        }
        ps_advance(P);
    }
    if (!P->fatal) P->panic = 0;
}

/* ---- comments ------------------------------------------------------------------------------- */

ir_comments ps_take_lead(parser *P, ir_pos upto)
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
const char *ps_take_trail(parser *P)
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

/* ---- program -------------------------------------------------------------------------------- */

static void parse_program(parser *P)
{
    ir_program *p = P->p;
    p->comments = ps_take_lead(P, tok(P)->pos);
    p->name = "?";
    if (ps_expect(P, IR_T_PROGRAM)) {
        p->name = ps_expect_ident(P, "the program name", NULL);
        if (!P->panic) p->comments.trail = ps_take_trail(P);
    }
    if (P->panic) {
        while (kind(P) != IR_T_EOF && kind(P) != IR_T_LEVEL && !is_decl_start(kind(P)) &&
               !is_stmt_start(P))
            ps_advance(P);
        P->panic = 0;
    }
    if (ps_expect(P, IR_T_LEVEL)) {
        ir_pos pos = tok(P)->pos;
        const char *l = ps_expect_ident(P, "a level (source, syn, syncomm or syndm)", NULL);
        if (!P->panic && !ir_level_parse(l, &p->level))
            ps_err(P, pos, "unknown level '%s' (expected source, syn, syncomm or syndm)", l);
    }
    if (!P->panic && is_word(P, 0, "messages") && peek(P, 1) == IR_T_IDENT) {   /* `messages aggregate` */
        p->aggregate_pos = tok(P)->pos;
        ps_advance(P);
        ir_pos pos = tok(P)->pos;
        const char *w = ps_expect_ident(P, "aggregate", NULL);
        if (!P->panic && strcmp(w, "aggregate") != 0)
            ps_err(P, pos, "unknown message placement '%s' (expected aggregate)", w);
        p->aggregate = 1;
    }
    if (P->panic) ps_sync(P);
    /* declarations */
    for (;;) {
        while (ps_accept(P, IR_T_SEMI)) {}
        if ((!is_decl_start(kind(P)) && !is_word_decl_start(P)) || P->fatal) break;
        ir_comments lead = ps_take_lead(P, tok(P)->pos);
        int start = P->cur;
        ir_decl *d = parse_decls_one(P);
        if (d) {
            d->comments.lead = lead.lead;
            d->comments.nlead = lead.nlead;
            if (!P->panic) d->comments.trail = ps_take_trail(P);
        }
        if (P->panic) {
            if (P->cur == start) ps_advance(P);
            ps_sync(P);
        }
    }
    parse_stmts(P, p->body, 1);
    p->tail = ps_take_lead(P, tok(P)->pos);
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
    ps_flush_lex(&P, tok(&P)->pos, 0);
    parse_program(&P);
    if (!P.fatal) ps_flush_lex(&P, (ir_pos){ 1 << 30, 0 }, 0);
    ir_lex_free(&P.lx);
    if (P.nerr > 0) {
        ir_program_free(p);
        return NULL;
    }
    return p;
}
