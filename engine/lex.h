/*
 * lex.h — the lexer of the APM language (internal to engine/: used by parse.c only).
 *
 * ir_lex turns a whole text into an array of tokens (ending with IR_T_EOF), an array of
 * comments (for the parser to attach to declarations and statements) and an array of lexical
 * errors (reported by the parser in source order, interleaved with its own).
 */
#ifndef POLYAPM_LEX_H
#define POLYAPM_LEX_H

#include <stddef.h>
#include <stdint.h>

#include "ir.h"

typedef enum ir_tok_kind {
    IR_T_EOF, IR_T_IDENT, IR_T_INT, IR_T_REAL, IR_T_STRING,
    /* operators and punctuation */
    IR_T_OR, IR_T_AND, IR_T_EQ, IR_T_NE, IR_T_LT, IR_T_LE, IR_T_GT, IR_T_GE,
    IR_T_PLUS, IR_T_MINUS, IR_T_STAR, IR_T_SLASH, IR_T_PERCENT, IR_T_NOT, IR_T_ASSIGN,
    IR_T_LPAREN, IR_T_RPAREN, IR_T_LBRACK, IR_T_RBRACK, IR_T_LBRACE, IR_T_RBRACE,
    IR_T_COMMA, IR_T_COLON, IR_T_SEMI, IR_T_DOTDOT,
    /* keywords */
    IR_T_PROGRAM, IR_T_LEVEL, IR_T_REFERENCE, IR_T_PARAM, IR_T_ARRAY, IR_T_INIT, IR_T_OUTPUT,
    IR_T_DIST, IR_T_REPLICATE, IR_T_OFFSET, IR_T_LET, IR_T_IF, IR_T_ELSE, IR_T_FOR, IR_T_STEP,
    IR_T_SEQ, IR_T_PAR, IR_T_PROC, IR_T_SEND, IR_T_TO, IR_T_AT, IR_T_WHEN, IR_T_AS, IR_T_COST,
    IR_T_DOUBLE, IR_T_INTKW,
    IR_T_COUNT
} ir_tok_kind;

typedef struct ir_token {
    ir_tok_kind kind;
    ir_pos pos;
    const char *text;      /* IDENT and STRING: the name / the string without quotes */
    int64_t ival;          /* INT */
    double rval;           /* REAL */
    int end_line;          /* line of the token's last byte */
} ir_token;

typedef struct ir_comment_tok {
    ir_pos pos;
    const char *text;      /* after '#', leading and trailing blanks removed */
    int consumed;          /* set by the parser when attached */
} ir_comment_tok;

typedef struct ir_lex_error {
    ir_pos pos;
    const char *msg;
} ir_lex_error;

typedef struct ir_lexed {
    ir_token *toks;          int ntoks;
    ir_comment_tok *comments; int ncomments;
    ir_lex_error *errors;    int nerrors;
} ir_lexed;

/* Lexes text[0..len) into `out`: the arrays are malloc'd (release them with ir_lex_free), the
 * strings are in p's arena. */
void ir_lex(ir_program *p, const char *text, size_t len, ir_lexed *out);
void ir_lex_free(ir_lexed *lx);

/* How a token kind is written, for "expected X, found Y" messages (e.g. "']'", "'for'"). */
const char *ir_tok_name(ir_tok_kind k);

#endif
