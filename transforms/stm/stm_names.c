/*
 * stm_names.c — the names of the step body stm generates: every identifier a program uses (to
 * pick free names for the time and processor variables), and one binding of each name per scope
 * (two units placed in one step may bind the same variable: a second binding with the same value
 * is dropped, one with another value renamed).
 */
#include <stdlib.h>
#include <string.h>

#include "stm_int.h"

/* Every identifier the source uses (to pick fresh names for t and p). */
static void names_expr(const ir_expr *e, const char ***v, int *n)
{
    if (!e) return;
    switch (e->kind) {
    case IR_E_NAME: *v = xrealloc(*v, (size_t)(*n + 1) * sizeof **v); (*v)[(*n)++] = e->u.name.id; break;
    case IR_E_ACCESS: for (int i = 0; i < e->u.access.nidx; i++) names_expr(e->u.access.idx[i], v, n); break;
    case IR_E_UNARY: case IR_E_BINARY: names_expr(e->u.op.a, v, n); names_expr(e->u.op.b, v, n); break;
    case IR_E_CALL: for (int i = 0; i < e->u.call.nargs; i++) names_expr(e->u.call.args[i], v, n); break;
    case IR_E_REDUCE:
        *v = xrealloc(*v, (size_t)(*n + 1) * sizeof **v);
        (*v)[(*n)++] = e->u.reduce.var;
        names_expr(e->u.reduce.lo, v, n); names_expr(e->u.reduce.hi, v, n); names_expr(e->u.reduce.body, v, n);
        break;
    default: break;
    }
}

static void names_stmt(const ir_stmt *s, const char ***v, int *n)
{
    switch (s->kind) {
    case IR_S_ASSIGN: names_expr(s->u.assign.lhs, v, n); names_expr(s->u.assign.rhs, v, n); break;
    case IR_S_LET:
        *v = xrealloc(*v, (size_t)(*n + 1) * sizeof **v);
        (*v)[(*n)++] = s->u.let.var;
        names_expr(s->u.let.value, v, n);
        break;
    case IR_S_IF: names_expr(s->u.if_.cond, v, n); xf_stm_names(s->u.if_.then_blk, v, n); xf_stm_names(s->u.if_.else_blk, v, n); break;
    case IR_S_FOR:
        for (int i = 0; i < s->u.for_.nvars; i++) {
            *v = xrealloc(*v, (size_t)(*n + 1) * sizeof **v);
            (*v)[(*n)++] = s->u.for_.vars[i].var;
        }
        xf_stm_names(s->u.for_.body, v, n);
        break;
    default: break;
    }
}
void xf_stm_names(const ir_block *b, const char ***v, int *n)
{
    for (int i = 0; b && i < b->n; i++) names_stmt(b->stmts[i], v, n);
}

/* ---- names in the step body: each unit binds its variables (lets, inner loops) at its own
 * points; two units in one scope may bind the same name.  The language defines a name once
 * per scope, so a second binding with the same value is dropped and one with another value is
 * renamed (i_2) in the rest of its scope. */

typedef struct scope_ent { const char *name, *to; char *value; } scope_ent;   /* value: a let's, or NULL */

typedef struct scope {
    ir_program *p;
    scope_ent *e;
    int n, cap;
    const char **taken;        /* every name of the program, and the fresh ones (borrowed) */
    int ntaken;
} scope;

static const scope_ent *scope_find(const scope *sc, const char *name)
{
    for (int i = sc->n - 1; i >= 0; i--)
        if (!strcmp(sc->e[i].name, name)) return &sc->e[i];
    return NULL;
}

static void scope_push(scope *sc, const char *name, const char *to, char *value /* taken */)
{
    if (sc->n == sc->cap) {
        sc->cap = sc->cap ? 2 * sc->cap : 16;
        sc->e = xrealloc(sc->e, (size_t)sc->cap * sizeof *sc->e);
    }
    sc->e[sc->n++] = (scope_ent){name, to, value};
}

static void scope_pop(scope *sc, int to)
{
    while (sc->n > to) free(sc->e[--sc->n].value);
}

/* The expression with the renamed names of the scope (innermost first). */
static ir_expr *scope_subst(scope *sc, ir_expr *e)
{
    if (!e) return NULL;
    const char *from[sc->n + 1];
    ir_expr *to[sc->n + 1];
    int n = 0;
    for (int i = sc->n - 1; i >= 0; i--)
        if (strcmp(sc->e[i].name, sc->e[i].to)) {
            from[n] = sc->e[i].name;
            to[n++] = ir_new_name(sc->p, sc->e[i].to);
        }
    return n ? xf_subst(sc->p, e, from, to, n) : e;
}

/* A name for a second binding of `name` that the program does not use. */
static const char *fresh_name(scope *sc, const char *name)
{
    for (int k = 2;; k++) {
        char *c = xasprintf("%s_%d", name, k);
        int used = 0;
        for (int i = 0; i < sc->ntaken && !used; i++) used = !strcmp(sc->taken[i], c);
        if (!used) {
            const char *r = ir_strdup(sc->p, c);
            free(c);
            sc->taken = xrealloc(sc->taken, (size_t)(sc->ntaken + 1) * sizeof *sc->taken);
            sc->taken[sc->ntaken++] = r;
            return r;
        }
        free(c);
    }
}

/* Binds `*name` in the scope, renaming it when it is already bound. */
static void scope_bind(scope *sc, const char **name, char *value /* taken */)
{
    const char *nm = *name;
    if (scope_find(sc, nm)) *name = fresh_name(sc, nm);
    scope_push(sc, nm, *name, value);
}

static void unclash_block(scope *sc, ir_block *b);

static void unclash_stmt(scope *sc, ir_stmt *st)
{
    switch (st->kind) {
    case IR_S_ASSIGN:
        st->u.assign.lhs = scope_subst(sc, st->u.assign.lhs);
        st->u.assign.rhs = scope_subst(sc, st->u.assign.rhs);
        break;
    case IR_S_LET: {
        st->u.let.value = scope_subst(sc, st->u.let.value);
        scope_bind(sc, &st->u.let.var, ir_print_expr(st->u.let.value));
        break;
    }
    case IR_S_IF:
        st->u.if_.cond = scope_subst(sc, st->u.if_.cond);
        unclash_block(sc, st->u.if_.then_blk);
        if (st->u.if_.else_blk) unclash_block(sc, st->u.if_.else_blk);
        break;
    case IR_S_FOR: {
        int mark = sc->n;
        for (int v = 0; v < st->u.for_.nvars; v++) {
            ir_loopvar *lv = &st->u.for_.vars[v];
            lv->lo = scope_subst(sc, lv->lo);
            lv->hi = scope_subst(sc, lv->hi);
            lv->step = scope_subst(sc, lv->step);
            scope_bind(sc, &lv->var, NULL);
        }
        unclash_block(sc, st->u.for_.body);
        scope_pop(sc, mark);
        break;
    }
    default:
        break;
    }
}

static void unclash_block(scope *sc, ir_block *b)
{
    int mark = sc->n, k = 0;
    for (int i = 0; i < b->n; i++) {
        ir_stmt *st = b->stmts[i];
        if (st->kind == IR_S_LET) {
            /* the same name bound to the same value in this scope: the binding is already there */
            const scope_ent *e = scope_find(sc, st->u.let.var);
            char *v = ir_print_expr(scope_subst(sc, st->u.let.value));
            int same = e && e->value && !strcmp(e->name, e->to) && !strcmp(e->value, v);
            free(v);
            if (same) continue;
        }
        unclash_stmt(sc, st);
        b->stmts[k++] = st;
    }
    b->n = k;
    scope_pop(sc, mark);
}

void xf_stm_unclash(ir_program *p, const ir_program *src, const char *tname, const char *pname,
                    ir_block *body)
{
    scope sc = {.p = p};
    xf_stm_names(src->body, &sc.taken, &sc.ntaken);
    xf_stm_names(body, &sc.taken, &sc.ntaken);
    int nfixed = src->nparams + src->narrays;
    sc.taken = xrealloc(sc.taken, (size_t)(sc.ntaken + nfixed + 1) * sizeof *sc.taken);
    for (int i = 0; i < src->nparams; i++) sc.taken[sc.ntaken++] = src->params[i]->u.param.name;
    for (int i = 0; i < src->narrays; i++) sc.taken[sc.ntaken++] = src->arrays[i]->u.array.name;
    scope_push(&sc, tname, tname, NULL);
    scope_push(&sc, pname, pname, NULL);
    unclash_block(&sc, body);
    scope_pop(&sc, 0);
    free(sc.e);
    free(sc.taken);
}
