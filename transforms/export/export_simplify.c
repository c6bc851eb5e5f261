/*
 * export_simplify.c — the exporter's integer index expressions made short: constants folded,
 * zero terms and unit factors dropped, needless parentheses left out (`(0 + (me * b)) - 0` is
 * `me * b`), on the text of an expression of names, integer literals, + - *, parentheses and
 * calls.  Plain int64_t arithmetic on indices, as the emitter writes them (subscripts and bounds
 * are plain C; checked arithmetic is never simplified: its calls are kept as they are), so that
 * reordering a sum's constants does not change its value.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "export_int.h"

/* Whether the C text s is one operand (a name, a number, a call or a parenthesised whole). */
int ex_is_operand(const char *s)
{
    size_t n = strlen(s), i = 0;
    if (!n) return 0;
    if (s[0] == '(') {
        int depth = 0;
        for (i = 0; i < n; i++) {
            depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
            if (!depth) break;
        }
        return i == n - 1;
    }
    while (i < n && (ex_ident_char((unsigned char)s[i]) || s[i] == '.')) i++;
    if (i == n) return 1;
    if (s[i] != '(' || i == 0) return 0;
    return ex_is_operand(s + i) ;
}

void ex_unparen_buf(strbuf *b)
{
    if (!b->s || b->n < 2 || b->s[0] != '(' || !ex_is_operand(b->s)) return;
    int depth = 0;
    for (size_t i = 1; i + 1 < b->n; i++) {   /* a comma at the top would change meaning */
        depth += b->s[i] == '(' ? 1 : b->s[i] == ')' ? -1 : 0;
        if (!depth && b->s[i] == ',') return;
    }
    memmove(b->s, b->s + 1, b->n - 2);
    b->n -= 2;
    b->s[b->n] = '\0';
}

/* An inlined index expression (names, integer literals, + - *, parentheses, calls) with its
 * constants folded and its zero terms and unit factors dropped: `(0 + (me * b)) - 0` is
 * `me * b`.  Plain int64_t arithmetic on indices, as the emitter writes them: reordering a sum's
 * constants does not change its value.  NULL when the text holds anything else. */
typedef struct ex_sum { char *term[16]; int sign[16]; int nterm; long long c; int bad; } ex_sum;

static void parse_sum(const char **p, ex_sum *out);

static void skip_sp(const char **p)
{
    while (**p == ' ') (*p)++;
}

static char *print_sum(const ex_sum *s);

/* The text without its outer parentheses when they enclose all of it. */
static const char *unwrap(const char *t, int *len)
{
    int n = (int)strlen(t), depth = 0;
    *len = n;
    if (n < 2 || t[0] != '(' || t[n - 1] != ')') return t;
    for (int i = 0; i < n; i++) {
        depth += t[i] == '(' ? 1 : t[i] == ')' ? -1 : 0;
        if (!depth && i + 1 < n) return t;
    }
    *len = n - 2;
    return t + 1;
}

/* A factor as text: a literal (into *lit, return NULL), a name, a call or a parenthesised sum. */
static char *parse_factor(const char **p, long long *lit, int *is_lit, int *bad)
{
    skip_sp(p);
    *is_lit = 0;
    if (isdigit((unsigned char)**p)) {
        char *e;
        *lit = strtoll(*p, &e, 10);
        *p = e;
        *is_lit = 1;
        return NULL;
    }
    if (**p == '(') {
        (*p)++;
        ex_sum in;
        parse_sum(p, &in);
        skip_sp(p);
        if (**p != ')') in.bad = 1;
        else (*p)++;
        if (in.bad) { *bad = 1; for (int i = 0; i < in.nterm; i++) free(in.term[i]); return NULL; }
        if (!in.nterm) { *lit = in.c; *is_lit = 1; return NULL; }
        char *t = print_sum(&in);
        for (int i = 0; i < in.nterm; i++) free(in.term[i]);
        if (in.nterm == 1 && !in.c && in.sign[0] > 0 && ex_is_operand(t)) return t;   /* a name or a call */
        strbuf b = {0};
        strbuf_printf(&b, "(%s)", t);
        free(t);
        return strbuf_take(&b);
    }
    if (!ex_ident_start((unsigned char)**p)) { *bad = 1; return NULL; }
    const char *s = *p;
    while (ex_ident_char((unsigned char)**p)) (*p)++;
    strbuf b = {0};
    strbuf_putn(&b, s, (size_t)(*p - s));
    if (**p == '[') { *bad = 1; strbuf_free(&b); return NULL; }
    if (**p == '(') {   /* a call: each argument simplified */
        int minmax = b.n == 4 && (!strncmp(b.s, "imax", 4) || !strncmp(b.s, "imin", 4));
        long long v[8];
        int nlit = 0, nargs = 0, same = 0;   /* same: imin(x, x), which is x */
        char *first = NULL;
        strbuf args = {0};
        (*p)++;
        for (;;) {
            ex_sum a;
            parse_sum(p, &a);
            if (a.bad) {
                for (int i = 0; i < a.nterm; i++) free(a.term[i]);
                *bad = 1;
                break;
            }
            if (!a.nterm && nargs < 8) v[nlit++] = a.c;
            char *t = print_sum(&a);
            for (int i = 0; i < a.nterm; i++) free(a.term[i]);
            int tl;
            const char *tu = unwrap(t, &tl);
            if (nargs == 0) { free(first); first = ex_strndup(tu, (size_t)tl); }
            else if (nargs == 1 && minmax && (size_t)tl == strlen(first) && !strncmp(tu, first, (size_t)tl)) same = 1;
            strbuf_printf(&args, "%s%.*s", nargs++ ? ", " : "", tl, tu);
            free(t);
            skip_sp(p);
            if (**p == ',') { (*p)++; continue; }
            if (**p == ')') { (*p)++; break; }
            *bad = 1;
            break;
        }
        if (*bad) { free(first); strbuf_free(&args); strbuf_free(&b); return NULL; }
        if (same && nargs == 2) {
            strbuf_free(&args);
            strbuf_free(&b);
            strbuf_printf(&b, ex_is_operand(first) ? "%s" : "(%s)", first);
            free(first);
            return strbuf_take(&b);
        }
        free(first);
        if (minmax && nargs == 2 && nlit == 2) {
            *lit = b.s[2] == 'a' ? (v[0] > v[1] ? v[0] : v[1]) : (v[0] < v[1] ? v[0] : v[1]);
            *is_lit = 1;
            strbuf_free(&args);
            strbuf_free(&b);
            return NULL;
        }
        strbuf_printf(&b, "(%s)", args.s ? args.s : "");
        strbuf_free(&args);
    }
    return strbuf_take(&b);
}

/* A product of factors: literals multiplied into one, the names kept in order. */
static char *parse_product(const char **p, long long *lit, int *is_lit, int *bad)
{
    long long c = 1;
    strbuf b = {0};
    int nf = 0;
    for (;;) {
        long long v;
        int il;
        char *f = parse_factor(p, &v, &il, bad);
        if (*bad) { free(f); strbuf_free(&b); return NULL; }
        if (il) c *= v;
        else {
            /* a factor that is a sum needs its parentheses in a product (print_sum left them) */
            strbuf_printf(&b, "%s%s", nf++ ? " * " : "", f);
            free(f);
        }
        skip_sp(p);
        if (**p == '*') { (*p)++; continue; }
        break;
    }
    if (!nf || c == 0) { *lit = nf ? 0 : c; *is_lit = 1; strbuf_free(&b); return NULL; }
    *is_lit = 0;
    if (c != 1) {
        strbuf r = {0};
        strbuf_printf(&r, "%lld * %s", c, b.s);
        strbuf_free(&b);
        return strbuf_take(&r);
    }
    return strbuf_take(&b);
}

static void parse_sum(const char **p, ex_sum *out)
{
    memset(out, 0, sizeof *out);
    int sign = 1;
    skip_sp(p);
    if (**p == '-') { sign = -1; (*p)++; }
    for (;;) {
        long long v;
        int il, bad = 0;
        char *t = parse_product(p, &v, &il, &bad);
        if (bad) { out->bad = 1; return; }
        if (il) out->c += sign * v;
        else if (out->nterm < 16) { out->term[out->nterm] = t; out->sign[out->nterm++] = sign; }
        else { free(t); out->bad = 1; return; }
        skip_sp(p);
        if (**p == '+') sign = 1;
        else if (**p == '-') sign = -1;
        else return;
        (*p)++;
    }
}

static char *print_sum(const ex_sum *s)
{
    strbuf b = {0};
    for (int i = 0; i < s->nterm; i++) {
        /* a product holding a sum in parentheses keeps them; a sum term needs none in a sum */
        int tl = 0;
        const char *t = s->sign[i] > 0 ? unwrap(s->term[i], &tl) : s->term[i];   /* a + (b + c) */
        if (s->sign[i] < 0) tl = (int)strlen(t);
        if (!i) strbuf_printf(&b, "%s%.*s", s->sign[i] < 0 ? "-" : "", tl, t);
        else strbuf_printf(&b, " %c %.*s", s->sign[i] < 0 ? '-' : '+', tl, t);
    }
    if (!s->nterm) strbuf_printf(&b, s->c < 0 ? "(%lld)" : "%lld", s->c);
    else if (s->c) strbuf_printf(&b, " %c %lld", s->c < 0 ? '-' : '+', s->c < 0 ? -s->c : s->c);
    char *r = strbuf_take(&b);
    return r ? r : xstrdup("0");
}

static char *simplify_once(const char *text)
{
    const char *p = text;
    ex_sum s;
    parse_sum(&p, &s);
    skip_sp(&p);
    char *r = s.bad || *p ? NULL : print_sum(&s);
    for (int i = 0; i < s.nterm; i++) free(s.term[i]);
    return r;
}

char *ex_simplify_index(const char *text)
{
    char *r = simplify_once(text);
    for (int round = 0; r && round < 4; round++) {   /* a + (b - 1) + 1: flattened, then folded */
        char *again = simplify_once(r);
        int same = again && !strcmp(again, r);
        free(r);
        r = again;
        if (same) break;
    }
    return r;
}

void ex_simplify_buf(strbuf *b)
{
    char *t = b->s ? ex_simplify_index(b->s) : NULL;
    if (t) { b->n = 0; strbuf_printf(b, "%s", t); }
    free(t);
}
