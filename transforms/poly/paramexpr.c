/*
 * paramexpr.c — the small parser for the affine expressions transform parameters carry (θ, σ):
 * it checks names and syntax and turns the expression into isl text (our `/` is floor
 * division, `%` the non-negative remainder).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "poly_int.h"

typedef struct eparse {
    const char *s, *p;
    const char *const *names;
    int nnames;
    char *err;
} eparse;

static void skip(eparse *e) { while (isspace((unsigned char)*e->p)) e->p++; }

static int fail(eparse *e, const char *fmt, const char *arg)
{
    if (!e->err) {
        strbuf b = {0};
        strbuf_printf(&b, fmt, arg);
        strbuf_printf(&b, " at column %d of '%s'", (int)(e->p - e->s) + 1, e->s);
        e->err = strbuf_take(&b);
    }
    return -1;
}

static int expr(eparse *e, strbuf *o);

static int primary(eparse *e, strbuf *o)
{
    skip(e);
    if (isdigit((unsigned char)*e->p)) {
        const char *st = e->p;
        while (isdigit((unsigned char)*e->p)) e->p++;
        strbuf_printf(o, "%.*s", (int)(e->p - st), st);
        return 0;
    }
    if (*e->p == '(') {
        e->p++;
        strbuf_printf(o, "(");
        if (expr(e, o) < 0) return -1;
        skip(e);
        if (*e->p != ')') return fail(e, "expected ')'%s", "");
        e->p++;
        strbuf_printf(o, ")");
        return 0;
    }
    if (isalpha((unsigned char)*e->p) || *e->p == '_') {
        const char *st = e->p;
        while (isalnum((unsigned char)*e->p) || *e->p == '_') e->p++;
        char id[64];
        snprintf(id, sizeof id, "%.*s", (int)(e->p - st), st);
        skip(e);
        if (*e->p == '(') {
            int isfloor = !strcmp(id, "floor"), isceil = !strcmp(id, "ceil");
            if (strcmp(id, "min") && strcmp(id, "max") && !isfloor && !isceil)
                return fail(e, "unknown function '%s' (min, max, floor, ceil)", id);
            e->p++;
            if (isfloor || isceil) {
                /* floor(a / b), ceil(a / b): parse a, '/', b ourselves */
                strbuf a = {0}, b = {0};
                int r = expr(e, &a);
                skip(e);
                if (r == 0 && *e->p == ')') {   /* floor(e) of an integer e is e */
                    e->p++;
                    strbuf_printf(o, "(%s)", a.s);
                    strbuf_free(&a);
                    return 0;
                }
                strbuf_free(&a);
                strbuf_free(&b);
                return fail(e, "write %s(a / b) as the division itself: floor is implied by '/'",
                            isfloor ? "floor" : "ceil");
            }
            strbuf_printf(o, "%s(", id);
            for (int k = 0;; k++) {
                if (k) strbuf_printf(o, ", ");
                if (expr(e, o) < 0) return -1;
                skip(e);
                if (*e->p == ',') { e->p++; continue; }
                if (*e->p == ')') { e->p++; break; }
                return fail(e, "expected ',' or ')'%s", "");
            }
            strbuf_printf(o, ")");
            return 0;
        }
        int known = 0;
        for (int k = 0; k < e->nnames; k++)
            if (strcmp(e->names[k], id) == 0) known = 1;
        if (!known) {
            strbuf lst = {0};
            for (int k = 0; k < e->nnames; k++) strbuf_printf(&lst, "%s%s", k ? ", " : "", e->names[k]);
            char *msg = xasprintf("unknown name '%%s' (allowed: %s)", lst.s ? lst.s : "none");
            strbuf_free(&lst);
            fail(e, msg, id);
            free(msg);
            return -1;
        }
        char tmp[80];
        strbuf_printf(o, "%s", xf_isl_name(id, tmp, sizeof tmp));
        return 0;
    }
    if (!*e->p) return fail(e, "unexpected end of expression%s", "");
    char c[2] = {*e->p, 0};
    return fail(e, "unexpected '%s'", c);
}

static int unary(eparse *e, strbuf *o)
{
    skip(e);
    if (*e->p == '-') {
        e->p++;
        strbuf_printf(o, "-(");
        if (unary(e, o) < 0) return -1;
        strbuf_printf(o, ")");
        return 0;
    }
    if (*e->p == '+') { e->p++; return unary(e, o); }
    return primary(e, o);
}

static int term(eparse *e, strbuf *o)
{
    strbuf acc = {0};
    if (unary(e, &acc) < 0) { strbuf_free(&acc); return -1; }
    for (;;) {
        skip(e);
        char op = *e->p;
        if (op != '*' && op != '/' && op != '%') break;
        e->p++;
        strbuf rhs = {0};
        if (unary(e, &rhs) < 0) { strbuf_free(&acc); strbuf_free(&rhs); return -1; }
        char *l = strbuf_take(&acc);
        if (op == '*') {
            /* isl takes a literal factor bare, not parenthesised */
            int ln = l[strspn(l, "0123456789")] == 0, rn = rhs.s[strspn(rhs.s, "0123456789")] == 0;
            strbuf_printf(&acc, ln ? "%s*" : "(%s)*", l);
            strbuf_printf(&acc, rn ? "%s" : "(%s)", rhs.s);
        }
        else if (rhs.s[strspn(rhs.s, "0123456789")] != 0 || atoll(rhs.s) <= 0) {
            free(l);
            strbuf_free(&rhs);
            strbuf_free(&acc);
            return fail(e, "the divisor of '%s' must be a positive integer", op == '/' ? "/" : "%");
        } else if (op == '/') strbuf_printf(&acc, "floor((%s)/%s)", l, rhs.s);
        else strbuf_printf(&acc, "((%s) mod %s)", l, rhs.s);
        free(l);
        strbuf_free(&rhs);
    }
    strbuf_printf(o, "%s", acc.s);
    strbuf_free(&acc);
    return 0;
}

static int expr(eparse *e, strbuf *o)
{
    if (term(e, o) < 0) return -1;
    for (;;) {
        skip(e);
        char op = *e->p;
        if (op != '+' && op != '-') return 0;
        e->p++;
        strbuf_printf(o, " %c ", op);
        if (term(e, o) < 0) return -1;
    }
}

char *xf_expr_to_isl(const char *text, const char *const *names, int nnames, char **err)
{
    eparse e = {text, text, names, nnames, NULL};
    strbuf o = {0};
    *err = NULL;
    if (expr(&e, &o) == 0) {
        skip(&e);
        if (*e.p) {
            char c[2] = {*e.p, 0};
            fail(&e, "unexpected '%s'", c);
        }
    }
    if (e.err) {
        strbuf_free(&o);
        *err = e.err;
        return NULL;
    }
    return strbuf_take(&o);
}
