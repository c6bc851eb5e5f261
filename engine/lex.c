/*
 * lex.c — the lexer: text to tokens, comments and lexical errors (see lex.h).
 *
 * Lines and columns are 1-based; a column counts bytes.  Only '\n' ends a line.  Bytes that are
 * not printable ASCII or whitespace are reported as "unexpected character '\xNN'" and skipped,
 * except inside comments, which may hold any well-formed UTF-8 text but control characters.
 */
#include "lex.h"
#include "mem.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keywords and their token kinds; the spelling of every token kind for messages. */
static const struct { const char *word; ir_tok_kind kind; } keywords[] = {
    { "program", IR_T_PROGRAM }, { "level", IR_T_LEVEL }, { "reference", IR_T_REFERENCE },
    { "param", IR_T_PARAM }, { "array", IR_T_ARRAY }, { "init", IR_T_INIT },
    { "output", IR_T_OUTPUT }, { "dist", IR_T_DIST }, { "replicate", IR_T_REPLICATE },
    { "offset", IR_T_OFFSET }, { "let", IR_T_LET }, { "if", IR_T_IF }, { "else", IR_T_ELSE },
    { "for", IR_T_FOR }, { "step", IR_T_STEP }, { "seq", IR_T_SEQ }, { "par", IR_T_PAR },
    { "proc", IR_T_PROC }, { "send", IR_T_SEND }, { "to", IR_T_TO }, { "at", IR_T_AT },
    { "when", IR_T_WHEN }, { "as", IR_T_AS }, { "cost", IR_T_COST }, { "double", IR_T_DOUBLE },
    { "int", IR_T_INTKW },
};

static const char *const tok_names[IR_T_COUNT] = {
    [IR_T_EOF] = "end of file", [IR_T_IDENT] = "name", [IR_T_INT] = "integer",
    [IR_T_REAL] = "real number", [IR_T_STRING] = "string",
    [IR_T_OR] = "'||'", [IR_T_AND] = "'&&'", [IR_T_EQ] = "'=='", [IR_T_NE] = "'!='",
    [IR_T_LT] = "'<'", [IR_T_LE] = "'<='", [IR_T_GT] = "'>'", [IR_T_GE] = "'>='",
    [IR_T_PLUS] = "'+'", [IR_T_MINUS] = "'-'", [IR_T_STAR] = "'*'", [IR_T_SLASH] = "'/'",
    [IR_T_PERCENT] = "'%'", [IR_T_NOT] = "'!'", [IR_T_ASSIGN] = "'='", [IR_T_LPAREN] = "'('",
    [IR_T_RPAREN] = "')'", [IR_T_LBRACK] = "'['", [IR_T_RBRACK] = "']'", [IR_T_LBRACE] = "'{'",
    [IR_T_RBRACE] = "'}'", [IR_T_COMMA] = "','", [IR_T_COLON] = "':'", [IR_T_SEMI] = "';'",
    [IR_T_DOTDOT] = "'..'",
    [IR_T_PROGRAM] = "'program'", [IR_T_LEVEL] = "'level'", [IR_T_REFERENCE] = "'reference'",
    [IR_T_PARAM] = "'param'", [IR_T_ARRAY] = "'array'", [IR_T_INIT] = "'init'",
    [IR_T_OUTPUT] = "'output'", [IR_T_DIST] = "'dist'", [IR_T_REPLICATE] = "'replicate'",
    [IR_T_OFFSET] = "'offset'", [IR_T_LET] = "'let'", [IR_T_IF] = "'if'", [IR_T_ELSE] = "'else'",
    [IR_T_FOR] = "'for'", [IR_T_STEP] = "'step'", [IR_T_SEQ] = "'seq'", [IR_T_PAR] = "'par'",
    [IR_T_PROC] = "'proc'", [IR_T_SEND] = "'send'", [IR_T_TO] = "'to'", [IR_T_AT] = "'at'",
    [IR_T_WHEN] = "'when'", [IR_T_AS] = "'as'", [IR_T_COST] = "'cost'",
    [IR_T_DOUBLE] = "'double'", [IR_T_INTKW] = "'int'",
};

/* Operators, longest first where prefixes overlap. */
static const struct { const char *text; ir_tok_kind kind; } operators[] = {
    { "||", IR_T_OR }, { "&&", IR_T_AND }, { "==", IR_T_EQ }, { "!=", IR_T_NE },
    { "<=", IR_T_LE }, { ">=", IR_T_GE }, { "..", IR_T_DOTDOT },
    { "<", IR_T_LT }, { ">", IR_T_GT }, { "+", IR_T_PLUS }, { "-", IR_T_MINUS },
    { "*", IR_T_STAR }, { "/", IR_T_SLASH }, { "%", IR_T_PERCENT }, { "!", IR_T_NOT },
    { "=", IR_T_ASSIGN }, { "(", IR_T_LPAREN }, { ")", IR_T_RPAREN }, { "[", IR_T_LBRACK },
    { "]", IR_T_RBRACK }, { "{", IR_T_LBRACE }, { "}", IR_T_RBRACE }, { ",", IR_T_COMMA },
    { ":", IR_T_COLON }, { ";", IR_T_SEMI },
};

const char *ir_tok_name(ir_tok_kind k)
{
    return (unsigned)k < IR_T_COUNT && tok_names[k] ? tok_names[k] : "token";
}

/* The token, comment and error arrays are malloc'd (ir_lex_free releases them); the strings
 * they point to live in the program's arena. */
typedef struct lexer {
    ir_program *p;
    const char *s;
    size_t len, i;
    int line, col;
    ir_lexed *out;
    int ctok, ccom, cerr;
} lexer;

#define GROW(L, arr, n, cap) do {                                                 \
        if ((n) == (cap)) {                                                        \
            int nc_ = (cap) ? (cap) * 2 : 64;                                      \
            (arr) = xrealloc((arr), (size_t)nc_ * sizeof *(arr));                  \
            (cap) = nc_;                                                           \
        }                                                                          \
    } while (0)

static void lex_error(lexer *L, ir_pos pos, const char *fmt, const char *arg, int byte)
{
    char buf[160];
    if (arg) snprintf(buf, sizeof buf, fmt, arg);
    else snprintf(buf, sizeof buf, fmt, byte);
    GROW(L, L->out->errors, L->out->nerrors, L->cerr);
    ir_lex_error *e = &L->out->errors[L->out->nerrors++];
    e->pos = pos;
    e->msg = ir_strdup(L->p, buf);
}

static ir_token *add_tok(lexer *L, ir_tok_kind k, ir_pos pos)
{
    GROW(L, L->out->toks, L->out->ntoks, L->ctok);
    ir_token *t = &L->out->toks[L->out->ntoks++];
    memset(t, 0, sizeof *t);
    t->kind = k;
    t->pos = pos;
    t->end_line = L->line;
    return t;
}

static void adv(lexer *L, size_t n)
{
    for (size_t k = 0; k < n && L->i < L->len; k++) {
        if (L->s[L->i] == '\n') { L->line++; L->col = 1; }
        else L->col++;
        L->i++;
    }
}

static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
static int is_print(int c) { return c >= 0x20 && c < 0x7f; }

static int peekc(const lexer *L, size_t k) { return L->i + k < L->len ? (unsigned char)L->s[L->i + k] : -1; }

static void lex_number(lexer *L, ir_pos pos)
{
    size_t start = L->i, j = L->i;
    while (j < L->len && is_digit((unsigned char)L->s[j])) j++;
    int real = 0;
    if (j < L->len && L->s[j] == '.' && !(j + 1 < L->len && L->s[j + 1] == '.')) {
        real = 1;
        j++;
        while (j < L->len && is_digit((unsigned char)L->s[j])) j++;
    }
    if (j < L->len && (L->s[j] == 'e' || L->s[j] == 'E')) {
        size_t k = j + 1;
        if (k < L->len && (L->s[k] == '+' || L->s[k] == '-')) k++;
        if (k < L->len && is_digit((unsigned char)L->s[k])) {
            real = 1;
            while (k < L->len && is_digit((unsigned char)L->s[k])) k++;
            j = k;
        }
    }
    size_t n = j - start;
    char small[64];
    char *buf = n < sizeof small ? small : ir_alloc(L->p, n + 1);
    memcpy(buf, L->s + start, n);
    buf[n] = 0;
    ir_token *t = add_tok(L, real ? IR_T_REAL : IR_T_INT, pos);
    if (real) {
        errno = 0;
        double v = strtod(buf, NULL);
        if (isinf(v)) {
            lex_error(L, pos, "real literal too large", NULL, 0);
            v = 0;
        }
        t->rval = v;
    } else {
        int64_t v = 0;
        int over = 0;
        for (size_t k = 0; k < n; k++) {
            int dgt = buf[k] - '0';
            if (v > (INT64_MAX - dgt) / 10) { over = 1; break; }
            v = v * 10 + dgt;
        }
        if (over) {
            lex_error(L, pos, "integer literal too large", NULL, 0);
            v = 0;
        }
        t->ival = v;
    }
    adv(L, n);
}

/* The length of the well-formed UTF-8 sequence of two to four bytes at s (at most n bytes), or 0. */
static size_t utf8_length(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t len = u[0] >= 0xC2 && u[0] <= 0xDF ? 2 : u[0] >= 0xE0 && u[0] <= 0xEF ? 3
               : u[0] >= 0xF0 && u[0] <= 0xF4 ? 4 : 0;
    if (len == 0 || len > n) return 0;
    for (size_t i = 1; i < len; i++)
        if ((u[i] & 0xC0) != 0x80) return 0;
    if (u[0] == 0xE0 && u[1] < 0xA0) return 0;          /* overlong */
    if (u[0] == 0xED && u[1] >= 0xA0) return 0;         /* surrogates */
    if (u[0] == 0xF0 && u[1] < 0x90) return 0;          /* overlong */
    if (u[0] == 0xF4 && u[1] >= 0x90) return 0;         /* beyond U+10FFFF */
    return len;
}

void ir_lex(ir_program *p, const char *text, size_t len, ir_lexed *out)
{
    memset(out, 0, sizeof *out);
    lexer L = { .p = p, .s = text, .len = len, .i = 0, .line = 1, .col = 1, .out = out };
    while (L.i < L.len) {
        int c = (unsigned char)L.s[L.i];
        ir_pos pos = { L.line, L.col };
        if (is_space(c)) { adv(&L, 1); continue; }
        if (c == '#') {
            size_t j = L.i + 1;
            while (j < L.len && L.s[j] != '\n') j++;
            /* control bytes and broken UTF-8 inside a comment are errors; UTF-8 text is welcome */
            int bad = 0;
            for (size_t k = L.i + 1; k < j; k++) {
                int b = (unsigned char)L.s[k];
                size_t u = b >= 0x80 ? utf8_length(L.s + k, j - k) : 0;
                if (u) { k += u - 1; continue; }
                if (!is_print(b) && !is_space(b)) {
                    ir_pos bp = { L.line, L.col + (int)(k - L.i) };
                    lex_error(&L, bp, "unexpected character '\\x%02x'", NULL, b);
                    bad = 1;
                    break;
                }
            }
            if (!bad) {
                /* the text after "# ": one space dropped, the rest of the indentation kept */
                size_t a = L.i + 1, b = j;
                if (a < b && L.s[a] == ' ') a++;
                while (b > a && is_space((unsigned char)L.s[b - 1])) b--;
                GROW(&L, out->comments, out->ncomments, L.ccom);
                ir_comment_tok *ct = &out->comments[out->ncomments++];
                ct->pos = pos;
                ct->text = ir_strndup(p, L.s + a, b - a);
                ct->consumed = 0;
            }
            adv(&L, j - L.i);
            continue;
        }
        if (is_alpha(c)) {
            size_t j = L.i;
            while (j < L.len && (is_alpha((unsigned char)L.s[j]) || is_digit((unsigned char)L.s[j]))) j++;
            size_t n = j - L.i;
            ir_tok_kind k = IR_T_IDENT;
            for (unsigned w = 0; w < sizeof keywords / sizeof keywords[0]; w++)
                if (strlen(keywords[w].word) == n && memcmp(keywords[w].word, L.s + L.i, n) == 0) {
                    k = keywords[w].kind;
                    break;
                }
            ir_token *t = add_tok(&L, k, pos);
            if (k == IR_T_IDENT) t->text = ir_strndup(p, L.s + L.i, n);
            adv(&L, n);
            continue;
        }
        if (is_digit(c) || (c == '.' && is_digit(peekc(&L, 1)))) {
            lex_number(&L, pos);
            continue;
        }
        if (c == '"') {
            size_t j = L.i + 1;
            while (j < L.len && L.s[j] != '"' && L.s[j] != '\n' && is_print((unsigned char)L.s[j])) j++;
            if (j >= L.len || L.s[j] != '"') {
                lex_error(&L, pos, "unterminated string", NULL, 0);
                adv(&L, j - L.i);
                continue;
            }
            ir_token *t = add_tok(&L, IR_T_STRING, pos);
            t->text = ir_strndup(p, L.s + L.i + 1, j - L.i - 1);
            adv(&L, j + 1 - L.i);
            continue;
        }
        int matched = 0;
        for (unsigned o = 0; o < sizeof operators / sizeof operators[0]; o++) {
            size_t n = strlen(operators[o].text);
            if (L.i + n <= L.len && memcmp(operators[o].text, L.s + L.i, n) == 0) {
                add_tok(&L, operators[o].kind, pos);
                adv(&L, n);
                matched = 1;
                break;
            }
        }
        if (matched) continue;
        if (is_print(c)) lex_error(&L, pos, "unexpected character '%s'", (char[]){ (char)c, 0 }, 0);
        else lex_error(&L, pos, "unexpected character '\\x%02x'", NULL, c);
        adv(&L, 1);
    }
    ir_pos pos = { L.line, L.col };
    add_tok(&L, IR_T_EOF, pos);
}

void ir_lex_free(ir_lexed *lx)
{
    free(lx->toks);
    free(lx->comments);
    free(lx->errors);
    memset(lx, 0, sizeof *lx);
}
