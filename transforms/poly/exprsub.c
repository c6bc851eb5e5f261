/*
 * exprsub.c — names that several transforms share: substituting expressions for names
 * (simultaneously, respecting the bound variable of an inner reduction), asking whether an
 * expression mentions a name, and a fresh name for a new variable.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "poly_int.h"

ir_expr *xf_subst(ir_program *p, const ir_expr *e, const char *const *from, ir_expr *const *to, int n)
{
    if (!e) return NULL;
    if (e->kind == IR_E_NAME)
        for (int i = 0; i < n; i++)
            if (!strcmp(e->u.name.id, from[i])) return ir_clone_expr(p, to[i]);
    ir_expr *c = ir_clone_expr(p, e);
    switch (e->kind) {
    case IR_E_UNARY: case IR_E_BINARY:
        c->u.op.a = xf_subst(p, e->u.op.a, from, to, n);
        c->u.op.b = xf_subst(p, e->u.op.b, from, to, n);
        break;
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++) c->u.call.args[i] = xf_subst(p, e->u.call.args[i], from, to, n);
        break;
    case IR_E_ACCESS:
        for (int i = 0; i < e->u.access.nidx; i++) c->u.access.idx[i] = xf_subst(p, e->u.access.idx[i], from, to, n);
        break;
    case IR_E_REDUCE: {
        c->u.reduce.lo = xf_subst(p, e->u.reduce.lo, from, to, n);
        c->u.reduce.hi = xf_subst(p, e->u.reduce.hi, from, to, n);
        int shadowed = 0;                    /* the body's own variable hides a name of the same spelling */
        for (int i = 0; i < n; i++) shadowed |= !strcmp(e->u.reduce.var, from[i]);
        if (!shadowed) c->u.reduce.body = xf_subst(p, e->u.reduce.body, from, to, n);
        break;
    }
    default:
        break;
    }
    return c;
}

ir_expr *xf_subst1(ir_program *p, const ir_expr *e, const char *from, const ir_expr *to)
{
    ir_expr *t = (ir_expr *)to;              /* only cloned, never written */
    return xf_subst(p, e, &from, &t, 1);
}

int xf_mentions(const ir_expr *e, const char *nm)
{
    if (!e) return 0;
    switch (e->kind) {
    case IR_E_NAME: return !strcmp(e->u.name.id, nm);
    case IR_E_UNARY: case IR_E_BINARY: return xf_mentions(e->u.op.a, nm) || xf_mentions(e->u.op.b, nm);
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++) if (xf_mentions(e->u.call.args[i], nm)) return 1;
        return 0;
    case IR_E_ACCESS:
        for (int i = 0; i < e->u.access.nidx; i++) if (xf_mentions(e->u.access.idx[i], nm)) return 1;
        return 0;
    case IR_E_REDUCE:
        return xf_mentions(e->u.reduce.lo, nm) || xf_mentions(e->u.reduce.hi, nm) || xf_mentions(e->u.reduce.body, nm);
    default: return 0;
    }
}

/* Does text hold nm as a word (not inside a longer name)? */
static int xf_word_in(const char *text, const char *nm)
{
    size_t n = strlen(nm);
    for (const char *s = strstr(text, nm); s; s = strstr(s + 1, nm))
        if (!(s > text && (isalnum((unsigned char)s[-1]) || s[-1] == '_')) && !isalnum((unsigned char)s[n]) && s[n] != '_')
            return 1;
    return 0;
}

const char *xf_fresh_name(ir_program *p, char **text, const char *base)
{
    char nm[64];
    snprintf(nm, sizeof nm, "%s", base);
    for (int i = 1; xf_word_in(*text, nm); i++) snprintf(nm, sizeof nm, "%s%d", base, i);
    size_t L = strlen(*text);
    char *t = xrealloc(*text, L + strlen(nm) + 2);   /* taken: later names avoid it too */
    if (t) { *text = t; snprintf(t + L, strlen(nm) + 2, " %s", nm); }
    return ir_strdup(p, nm);
}
