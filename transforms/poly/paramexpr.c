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
        xf_buf b = {0};
        xf_buf_printf(&b, fmt, arg);
        xf_buf_printf(&b, " at column %d of '%s'", (int)(e->p - e->s) + 1, e->s);
        e->err = xf_buf_take(&b);
    }
    return -1;
}

static int expr(eparse *e, xf_buf *o);

static int primary(eparse *e, xf_buf *o)
{
    skip(e);
    if (isdigit((unsigned char)*e->p)) {
        const char *st = e->p;
        while (isdigit((unsigned char)*e->p)) e->p++;
        xf_buf_printf(o, "%.*s", (int)(e->p - st), st);
        return 0;
    }
    if (*e->p == '(') {
        e->p++;
        xf_buf_printf(o, "(");
        if (expr(e, o) < 0) return -1;
        skip(e);
        if (*e->p != ')') return fail(e, "expected ')'%s", "");
        e->p++;
        xf_buf_printf(o, ")");
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
                xf_buf a = {0}, b = {0};
                int r = expr(e, &a);
                skip(e);
                if (r == 0 && *e->p == ')') {   /* floor(e) of an integer e is e */
                    e->p++;
                    xf_buf_printf(o, "(%s)", a.s);
                    xf_buf_free(&a);
                    return 0;
                }
                xf_buf_free(&a);
                xf_buf_free(&b);
                return fail(e, "write %s(a / b) as the division itself: floor is implied by '/'",
                            isfloor ? "floor" : "ceil");
            }
            xf_buf_printf(o, "%s(", id);
            for (int k = 0;; k++) {
                if (k) xf_buf_printf(o, ", ");
                if (expr(e, o) < 0) return -1;
                skip(e);
                if (*e->p == ',') { e->p++; continue; }
                if (*e->p == ')') { e->p++; break; }
                return fail(e, "expected ',' or ')'%s", "");
            }
            xf_buf_printf(o, ")");
            return 0;
        }
        int known = 0;
        for (int k = 0; k < e->nnames; k++)
            if (strcmp(e->names[k], id) == 0) known = 1;
        if (!known) {
            xf_buf lst = {0};
            for (int k = 0; k < e->nnames; k++) xf_buf_printf(&lst, "%s%s", k ? ", " : "", e->names[k]);
            char *msg = xf_asprintf("unknown name '%%s' (allowed: %s)", lst.s ? lst.s : "none");
            xf_buf_free(&lst);
            fail(e, msg, id);
            free(msg);
            return -1;
        }
        char tmp[80];
        xf_buf_printf(o, "%s", xf_isl_name(id, tmp, sizeof tmp));
        return 0;
    }
    if (!*e->p) return fail(e, "unexpected end of expression%s", "");
    char c[2] = {*e->p, 0};
    return fail(e, "unexpected '%s'", c);
}

static int unary(eparse *e, xf_buf *o)
{
    skip(e);
    if (*e->p == '-') {
        e->p++;
        xf_buf_printf(o, "-(");
        if (unary(e, o) < 0) return -1;
        xf_buf_printf(o, ")");
        return 0;
    }
    if (*e->p == '+') { e->p++; return unary(e, o); }
    return primary(e, o);
}

static int term(eparse *e, xf_buf *o)
{
    xf_buf acc = {0};
    if (unary(e, &acc) < 0) { xf_buf_free(&acc); return -1; }
    for (;;) {
        skip(e);
        char op = *e->p;
        if (op != '*' && op != '/' && op != '%') break;
        e->p++;
        xf_buf rhs = {0};
        if (unary(e, &rhs) < 0) { xf_buf_free(&acc); xf_buf_free(&rhs); return -1; }
        char *l = xf_buf_take(&acc);
        if (op == '*') {
            /* isl takes a literal factor bare, not parenthesised */
            int ln = l[strspn(l, "0123456789")] == 0, rn = rhs.s[strspn(rhs.s, "0123456789")] == 0;
            xf_buf_printf(&acc, ln ? "%s*" : "(%s)*", l);
            xf_buf_printf(&acc, rn ? "%s" : "(%s)", rhs.s);
        }
        else if (rhs.s[strspn(rhs.s, "0123456789")] != 0 || atoll(rhs.s) <= 0) {
            free(l);
            xf_buf_free(&rhs);
            xf_buf_free(&acc);
            return fail(e, "the divisor of '%s' must be a positive integer", op == '/' ? "/" : "%");
        } else if (op == '/') xf_buf_printf(&acc, "floor((%s)/%s)", l, rhs.s);
        else xf_buf_printf(&acc, "((%s) mod %s)", l, rhs.s);
        free(l);
        xf_buf_free(&rhs);
    }
    xf_buf_printf(o, "%s", acc.s);
    xf_buf_free(&acc);
    return 0;
}

static int expr(eparse *e, xf_buf *o)
{
    if (term(e, o) < 0) return -1;
    for (;;) {
        skip(e);
        char op = *e->p;
        if (op != '+' && op != '-') return 0;
        e->p++;
        xf_buf_printf(o, " %c ", op);
        if (term(e, o) < 0) return -1;
    }
}

char *xf_expr_to_isl(const char *text, const char *const *names, int nnames, char **err)
{
    eparse e = {text, text, names, nnames, NULL};
    xf_buf o = {0};
    *err = NULL;
    if (expr(&e, &o) == 0) {
        skip(&e);
        if (*e.p) {
            char c[2] = {*e.p, 0};
            fail(&e, "unexpected '%s'", c);
        }
    }
    if (e.err) {
        xf_buf_free(&o);
        *err = e.err;
        return NULL;
    }
    return xf_buf_take(&o);
}
