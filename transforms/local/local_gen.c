/*
 * local_gen.c — a nest's new schedule checked and turned into code, for `local`.
 *
 * Legality: every dependence between two instances of the nest (flow, anti and output: one
 * processor, one step) must still go from the earlier to the later under the new schedule; then
 * every element sees the same writes in the same order and every value, floating-point rounding
 * included, is the one the nest computed before.  A refusal names the first dependence the
 * schedule would turn around, with an instance pair.
 *
 * Code: isl's AST builder enumerates the statements' domains in the schedule's order (loops of a
 * band's tiles with their stride, point loops bounded by min/max); the loops come back as `for`s
 * named after what they run (the statement's variable, or the band's tile loop), each statement
 * as its lets and assignment copied from the original nest.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <isl/id.h>

#include "local_int.h"


/* Every statement's schedule: its isl maps (sched[s]) and roles (role[s][d]), len dimensions. */
typedef struct scheds {
    isl_map **map;
    const char ***role;
    int n, len;
} scheds;

static void scheds_free(scheds *x)
{
    for (int s = 0; s < x->n; s++) {
        isl_map_free(x->map[s]);
        free(x->role[s]);
    }
    free(x->map);
    free(x->role);
}

static int scheds_make(const lx_nest *n, const lx_node *root, scheds *x)
{
    const xf_model *m = n->m;
    x->n = m->nst;
    x->len = 1;
    for (int s = 0; s < m->nst; s++) {
        int l = lx_schedule(n, root, s, 0, NULL, NULL);
        if (l > x->len) x->len = l;
    }
    x->map = xcalloc((size_t)m->nst, sizeof *x->map);
    x->role = xcalloc((size_t)m->nst, sizeof *x->role);
    int ok = 1;
    for (int s = 0; s < m->nst; s++) {
        char *dims[x->len];
        x->role[s] = xcalloc((size_t)x->len, sizeof *x->role[s]);
        lx_schedule(n, root, s, x->len, dims, x->role[s]);
        strbuf b = {0};
        strbuf_printf(&b, "%s -> { %s[", m->params, m->st[s].name);
        for (int i = 0; i < m->st[s].nvars; i++) strbuf_printf(&b, "%s%s", i ? ", " : "", m->st[s].vars[i]);
        strbuf_printf(&b, "] -> [");
        for (int d = 0; d < x->len; d++) {
            strbuf_printf(&b, "%s%s", d ? ", " : "", dims[d]);
            free(dims[d]);
        }
        strbuf_printf(&b, "] }");
        x->map[s] = isl_map_read_from_str(m->ctx, b.s);
        strbuf_free(&b);
        if (!x->map[s]) ok = 0;
    }
    return ok ? 0 : -1;
}

/* An instance pair as xf_example prints it, the parameters that stand for outer names or
 * expressions written as those (`lx_q1 = 3` as `rp = 3`); malloc'd. */
static char *example_of(const lx_nest *n, __isl_keep isl_map *rel)
{
    char *ex = xf_example(n->m, rel);
    strbuf b = {0};
    for (const char *s = ex; *s;) {
        if (!(isalpha((unsigned char)*s) || *s == '_')) {
            strbuf_printf(&b, "%c", *s++);
            continue;
        }
        const char *e = s;
        while (isalnum((unsigned char)*e) || *e == '_') e++;
        int q = 0;
        while (q < n->nq && (strlen(n->qname[q]) != (size_t)(e - s) || strncmp(n->qname[q], s, (size_t)(e - s)))) q++;
        if (q < n->nq) {
            char *t = ir_print_expr(n->qexpr[q]);
            strbuf_printf(&b, "%s", t);
            free(t);
        } else {
            strbuf_printf(&b, "%.*s", (int)(e - s), s);
        }
        s = e;
    }
    free(ex);
    return b.s ? strbuf_take(&b) : xstrdup("");
}

/* Statement s as a message names it: its label, or the send (loop) it stands for. */
static char *stmt_name(const lx_nest *n, int s)
{
    const ir_stmt *o = lx_nest_orig(n, n->m->st[s].assign);
    if (o && o->kind != IR_S_ASSIGN) return xasprintf("the send at line %d", o->pos.line);
    return xstrdup(n->m->st[s].name);
}

int lx_check(const lx_nest *n, const lx_node *root, const char *what, char **why)
{
    const xf_model *m = n->m;
    scheds x = {0};
    *why = NULL;
    if (scheds_make(n, root, &x) != 0) {
        *why = xasprintf("internal error: a schedule isl cannot read (%s)", xf_isl_error(m->ctx));
        scheds_free(&x);
        return -1;
    }
    for (int i = 0; i < n->ndep && !*why; i++) {
        const xf_rawdep *r = &n->dep[i];
        isl_map *ge = isl_map_lex_ge(isl_space_set_alloc(m->ctx, 0, (unsigned)x.len));
        isl_map *c = isl_map_apply_range(isl_map_apply_range(isl_map_copy(x.map[r->src]), ge),
                                         isl_map_reverse(isl_map_copy(x.map[r->sink])));
        isl_map *bad = isl_map_intersect(isl_map_copy(r->rel), c);
        if (isl_map_is_empty(bad) == isl_bool_false) {
            char *ex = example_of(n, bad), *a = stmt_name(n, r->src), *b = stmt_name(n, r->sink);
            *why = xasprintf("%s would break dependence %d (%s, %s -> %s through %s): for example %s, "
                             "the sink would run before its source (or with it)",
                             what, i + 1, xf_dep_kind_name(r->kind), a, b, m->acc[r->acc].text, ex);
            free(ex);
            free(a);
            free(b);
        }
        isl_map_free(bad);
    }
    scheds_free(&x);
    return *why ? -1 : 0;
}

/* ---- code ------------------------------------------------------------------------------------- */

typedef struct gen {
    lx_nest *n;
    scheds x;
    const char **cname;        /* the generated loops' names, one per dimension */
    xf_rename base;            /* the parameters' isl names and the parameters that stand for expressions */
    const char **from, **to;
    const ir_expr **to_expr;
    int nbase;
    ir_stmt **placed;          /* the assignments placed, and their statements */
    int *placed_stmt;
    int nplaced;
    int *times;                /* per statement: how often it was placed */
} gen;

/* The renaming for statement s: the base's, and each loop dimension to what it runs for s. */
static void stmt_rename(const gen *g, int s, xf_rename *rn, const char **from, const char **to, const ir_expr **tx)
{
    ir_program *p = g->n->out;
    int k = 0;
    for (int i = 0; i < g->nbase; i++, k++) {
        from[k] = g->from[i];
        to[k] = g->to[i];
        tx[k] = g->to_expr[i];
    }
    for (int d = 0; d < g->x.len; d++)
        if (g->x.role[s][d]) {
            from[k] = g->cname[d];
            to[k] = ir_strdup(p, g->x.role[s][d]);
            tx[k++] = NULL;
        }
    *rn = (xf_rename){from, to, k, tx};
}

/* Does statement s (or a statement in it) mention name nm? */
static int stmt_mentions(const ir_stmt *s, const char *nm);

static int block_mentions(const ir_block *b, const char *nm)
{
    for (int i = 0; b && i < b->n; i++)
        if (stmt_mentions(b->stmts[i], nm)) return 1;
    return 0;
}

static int stmt_mentions(const ir_stmt *s, const char *nm)
{
    switch (s->kind) {
    case IR_S_ASSIGN: return xf_mentions(s->u.assign.lhs, nm) || xf_mentions(s->u.assign.rhs, nm);
    case IR_S_LET: return xf_mentions(s->u.let.value, nm);
    case IR_S_IF:
        return xf_mentions(s->u.if_.cond, nm) || block_mentions(s->u.if_.then_blk, nm) ||
               block_mentions(s->u.if_.else_blk, nm);
    case IR_S_FOR:
        for (int v = 0; v < s->u.for_.nvars; v++)
            if (xf_mentions(s->u.for_.vars[v].lo, nm) || xf_mentions(s->u.for_.vars[v].hi, nm) ||
                xf_mentions(s->u.for_.vars[v].step, nm))
                return 1;
        return block_mentions(s->u.for_.body, nm);
    case IR_S_SEND:
        if (xf_mentions(s->u.send.what, nm) || xf_mentions(s->u.send.to_lo, nm) || xf_mentions(s->u.send.to_hi, nm) ||
            xf_mentions(s->u.send.at, nm) || xf_mentions(s->u.send.when, nm))
            return 1;
        for (int i = 0; i < s->u.send.nas; i++)
            if (xf_mentions(s->u.send.as_idx[i], nm)) return 1;
        return 0;
    default: return 0;
    }
}

/* Replaces, in s (a copy in p), the names from[i] by copies of to[i] (n of them). */
static void subst_stmt(ir_program *p, ir_stmt *s, const char *const *from, ir_expr *const *to, int n);

static void subst_block(ir_program *p, ir_block *b, const char *const *from, ir_expr *const *to, int n)
{
    for (int i = 0; b && i < b->n; i++) subst_stmt(p, b->stmts[i], from, to, n);
}

static void subst_stmt(ir_program *p, ir_stmt *s, const char *const *from, ir_expr *const *to, int n)
{
#define SUB(e) ((e) = xf_subst(p, (e), from, to, n))
    switch (s->kind) {
    case IR_S_ASSIGN: SUB(s->u.assign.lhs); SUB(s->u.assign.rhs); return;
    case IR_S_LET: SUB(s->u.let.value); return;
    case IR_S_IF: SUB(s->u.if_.cond); subst_block(p, s->u.if_.then_blk, from, to, n); subst_block(p, s->u.if_.else_blk, from, to, n); return;
    case IR_S_FOR:
        for (int v = 0; v < s->u.for_.nvars; v++) {
            SUB(s->u.for_.vars[v].lo);
            SUB(s->u.for_.vars[v].hi);
            SUB(s->u.for_.vars[v].step);
        }
        subst_block(p, s->u.for_.body, from, to, n);
        return;
    case IR_S_SEND:
        SUB(s->u.send.what);
        SUB(s->u.send.to_lo);
        SUB(s->u.send.to_hi);
        SUB(s->u.send.at);
        SUB(s->u.send.when);
        for (int i = 0; i < s->u.send.nas; i++) SUB(s->u.send.as_idx[i]);
        return;
    default: return;
    }
#undef SUB
}

/* A let a placed statement may need: of a loop variable (its value in the new loops) or one of
 * the nest's (its original). */
typedef struct plet { const char *var; ir_expr *value; const ir_stmt *orig; int keep; } plet;

/* The lets of statement s at user node `call`: each loop variable whose loop is not its own (its
 * value in the new loops), then the nest's lets it stood under.  Their number, or -1. */
static int stmt_lets(gen *g, ir_program *p, int s, __isl_keep isl_ast_expr *call, plet *out)
{
    const xf_stmt *st = &g->n->m->st[s];
    int cap = g->nbase + g->x.len + 1, n = 0, v = 0;
    const char *from[cap], *to[cap];
    const ir_expr *tx[cap];
    xf_rename rn;
    stmt_rename(g, s, &rn, from, to, tx);
    for (int f = 0; f < st->nframes; f++) {
        const xf_frame *fr = &st->frames[f];
        if (fr->kind != XF_FR_FOR) continue;
        const char *var = fr->node->u.for_.vars[fr->var].var;
        isl_ast_expr *a = isl_ast_expr_get_op_arg(call, ++v);
        ir_expr *e = a ? xf_ast_expr(p, a, &rn) : NULL;
        isl_ast_expr_free(a);
        if (!e) return -1;
        if (e->kind != IR_E_NAME || strcmp(e->u.name.id, var)) out[n++] = (plet){var, e, NULL, 0};
    }
    for (int f = 0; f < st->nframes; f++)
        if (st->frames[f].kind == XF_FR_LET) {
            const ir_stmt *o = lx_nest_orig(g->n, st->frames[f].node);
            out[n++] = (plet){o->u.let.var, o->u.let.value, o, 0};
        }
    return n;
}

static int place(void *ctx, ir_program *p, __isl_keep isl_ast_node *user, ir_block *out)
{
    gen *g = ctx;
    const xf_model *m = g->n->m;
    isl_ast_expr *call = isl_ast_node_user_get_expr(user);
    isl_ast_expr *fn = isl_ast_expr_get_op_arg(call, 0);
    isl_id *id = isl_ast_expr_get_id(fn);
    int s = id ? xf_model_find(m, isl_id_get_name(id)) : -1;
    isl_id_free(id);
    isl_ast_expr_free(fn);
    const ir_stmt *orig = s >= 0 ? lx_nest_orig(g->n, m->st[s].assign) : NULL;
    if (!orig || g->times[s]++) {   /* isl split a statement: its label would repeat */
        isl_ast_expr_free(call);
        return -1;
    }
    plet lets[m->st[s].nframes + 1];
    int nl = stmt_lets(g, p, s, call, lets);
    isl_ast_expr_free(call);
    if (nl < 0) return -1;
    /* only the lets the statement needs, directly or through a later let (no unused variable in
     * the exported C) */
    for (int k = nl - 1; k >= 0; k--) {
        lets[k].keep = stmt_mentions(orig, lets[k].var);
        for (int j = k + 1; j < nl && !lets[k].keep; j++) lets[k].keep = lets[j].keep && xf_mentions(lets[j].value, lets[k].var);
    }
    /* a loop variable whose loop isl left out (one value) is written as its value in the lets and
     * the statement, not as a let (the exporter would leave it unused where it versions a loop
     * without its sends) */
    const char *from[nl + 1];
    ir_expr *to[nl + 1];
    int nv = 0;
    for (int k = 0; k < nl; k++)
        if (lets[k].keep && !lets[k].orig) {
            from[nv] = lets[k].var;
            to[nv++] = lets[k].value;
        }
    for (int k = 0; k < nl; k++) {
        if (!lets[k].keep || !lets[k].orig) continue;
        ir_stmt *let = ir_clone_stmt(p, lets[k].orig);
        subst_stmt(p, let, from, to, nv);
        ir_block_append(p, out, let);
    }
    ir_stmt *a = ir_clone_stmt(p, orig);
    subst_stmt(p, a, from, to, nv);
    ir_block_append(p, out, a);
    g->placed = xrealloc(g->placed, (size_t)(g->nplaced + 1) * sizeof *g->placed);
    g->placed_stmt = xrealloc(g->placed_stmt, (size_t)(g->nplaced + 1) * sizeof *g->placed_stmt);
    g->placed[g->nplaced] = a;
    g->placed_stmt[g->nplaced++] = s;
    return 0;
}

/* The statement placed in b (or below), or -1. */
static int placed_in(const gen *g, const ir_block *b)
{
    for (int i = 0; b && i < b->n; i++) {
        const ir_stmt *s = b->stmts[i];
        for (int k = 0; k < g->nplaced; k++)
            if (g->placed[k] == s) return g->placed_stmt[k];
        int r = s->kind == IR_S_FOR ? placed_in(g, s->u.for_.body)
              : s->kind == IR_S_IF ? (placed_in(g, s->u.if_.then_blk) >= 0 ? placed_in(g, s->u.if_.then_blk)
                                                                          : placed_in(g, s->u.if_.else_blk))
              : -1;
        if (r >= 0) return r;
    }
    return -1;
}

/* Renames, in place, the names from[i] of a generated expression to to[i]. */
static void rename_expr(ir_expr *e, const char *const *from, const char *const *to, int n)
{
    if (!e) return;
    switch (e->kind) {
    case IR_E_NAME:
        for (int i = 0; i < n; i++)
            if (!strcmp(e->u.name.id, from[i])) e->u.name.id = to[i];
        return;
    case IR_E_UNARY: case IR_E_BINARY: rename_expr(e->u.op.a, from, to, n); rename_expr(e->u.op.b, from, to, n); return;
    case IR_E_CALL: for (int i = 0; i < e->u.call.nargs; i++) rename_expr(e->u.call.args[i], from, to, n); return;
    default: return;
    }
}

/* Each generated loop named after what it runs (its dimension's role for the statements in it),
 * and the names in the bounds and guards below it with it (names in out's arena). */
static void name_loops(const gen *g, ir_block *b, const char **from, const char **to, int n)
{
    ir_program *p = g->n->out;
    for (int i = 0; b && i < b->n; i++) {
        ir_stmt *s = b->stmts[i];
        if (s->kind == IR_S_IF) {
            rename_expr(s->u.if_.cond, from, to, n);
            name_loops(g, s->u.if_.then_blk, from, to, n);
            name_loops(g, s->u.if_.else_blk, from, to, n);
        }
        if (s->kind != IR_S_FOR) continue;
        ir_loopvar *lv = &s->u.for_.vars[0];
        rename_expr(lv->lo, from, to, n);
        rename_expr(lv->hi, from, to, n);
        lv->lo = xf_simplify_int(p, lv->lo);   /* max(max(0, rp * b), pt): one max */
        lv->hi = xf_simplify_int(p, lv->hi);
        int st = placed_in(g, s->u.for_.body), k = n;
        for (int d = 0; d < g->x.len && st >= 0; d++)
            if (!strcmp(lv->var, g->cname[d]) && g->x.role[st][d]) {
                from[k] = g->cname[d];
                to[k++] = lv->var = ir_strdup(p, g->x.role[st][d]);
            }
        name_loops(g, s->u.for_.body, from, to, k);
    }
}

/* The lets in scope: the enclosing blocks' and this block's so far. */
enum { LET_SCOPE_MAX = 256 };
typedef struct let_scope { const ir_stmt *let[LET_SCOPE_MAX]; int n; } let_scope;

/* Drops a `let` that repeats one in scope with the same value (two statements placed one after
 * the other each bring the lets they stood under; one placed under a condition of isl's, a send
 * whose domain its `when` narrows, brings again the lets of the block around it). */
static void dedupe_lets_in(ir_block *b, let_scope *sc)
{
    int k = 0, base = sc->n;
    for (int i = 0; b && i < b->n; i++) {
        ir_stmt *s = b->stmts[i];
        int dup = 0;
        if (s->kind == IR_S_LET) {
            char *v = ir_print_expr(s->u.let.value);
            for (int j = sc->n - 1; j >= 0 && !dup; j--) {
                const ir_stmt *e = sc->let[j];
                if (strcmp(e->u.let.var, s->u.let.var)) continue;
                char *w = ir_print_expr(e->u.let.value);
                dup = !strcmp(v, w) ? 1 : -1;
                free(w);
            }
            free(v);
            if (dup != 1 && sc->n < LET_SCOPE_MAX) sc->let[sc->n++] = s;
        }
        if (s->kind == IR_S_FOR) dedupe_lets_in(s->u.for_.body, sc);
        if (s->kind == IR_S_IF) {
            dedupe_lets_in(s->u.if_.then_blk, sc);
            dedupe_lets_in(s->u.if_.else_blk, sc);
        }
        if (dup != 1) b->stmts[k++] = s;
    }
    if (b) b->n = k;
    sc->n = base;
}

static void dedupe_lets(ir_block *b)
{
    let_scope sc = {.n = 0};
    dedupe_lets_in(b, &sc);
}

/* The parameters' isl spellings that differ from their names, and the stand-ins for expressions. */
static void base_rename(gen *g)
{
    const xf_model *m = g->n->m;
    const ir_program *sp = g->n->scratch;
    int cap = sp->nparams + 1;
    g->from = xcalloc((size_t)cap, sizeof *g->from);
    g->to = xcalloc((size_t)cap, sizeof *g->to);
    g->to_expr = xcalloc((size_t)cap, sizeof *g->to_expr);
    for (int i = 0; i < sp->nparams && i < m->npnames; i++) {
        const char *nm = sp->params[i]->u.param.name;
        const ir_expr *q = NULL;
        for (int k = 0; k < g->n->nq; k++)
            if (!strcmp(g->n->qname[k], nm)) q = g->n->qexpr[k];
        if (!q && !strcmp(nm, m->pnames[i])) continue;
        g->from[g->nbase] = m->pnames[i];
        g->to[g->nbase] = nm;
        g->to_expr[g->nbase++] = q;
    }
    g->base = (xf_rename){g->from, g->to, g->nbase, g->to_expr};
}

/* isl's AST of the statements of root under their schedules: where `atomic`, every dimension's
 * loop atomic (one loop per dimension, the statements' conditions inside it: each statement
 * placed once, where the default splits a loop over the parts of its range each statement runs
 * in). */
static isl_ast_node *ast_of(gen *g, const lx_node *root, int atomic)
{
    const xf_model *m = g->n->m;
    int leaves[m->nst + 1];
    int nl = lx_leaves(root, leaves, m->nst);
    isl_union_map *um = isl_union_map_empty(isl_space_params_alloc(m->ctx, 0));
    for (int i = 0; i < nl; i++) {
        int s = leaves[i];
        isl_map *sm = isl_map_intersect_domain(isl_map_copy(g->x.map[s]), xf_model_domain(m, s));
        um = isl_union_map_add_map(um, sm);
    }
    isl_ast_build *b = isl_ast_build_from_context(xf_model_context(m));
    isl_id_list *l = isl_id_list_alloc(m->ctx, g->x.len);
    for (int d = 0; d < g->x.len; d++) l = isl_id_list_add(l, isl_id_alloc(m->ctx, g->cname[d], NULL));
    b = isl_ast_build_set_iterators(b, l);
    if (atomic) {
        strbuf o = {0};
        strbuf_printf(&o, "{ ");
        for (int d = 0; d < g->x.len; d++) {
            strbuf_printf(&o, "%s[", d ? "; " : "");
            for (int k = 0; k < g->x.len; k++) strbuf_printf(&o, "%sx%d", k ? ", " : "", k);
            strbuf_printf(&o, "] -> atomic[%d]", d);
        }
        strbuf_printf(&o, " }");
        b = isl_ast_build_set_options(b, isl_union_map_read_from_str(m->ctx, o.s));
        free(o.s);
    }
    isl_ast_node *n = isl_ast_build_node_from_schedule_map(b, um);
    isl_ast_build_free(b);
    return n;
}

/* Replaces the statement at blk[idx] by the statements of `with`. */
static void replace_in(ir_program *p, ir_block *blk, int idx, const ir_block *with)
{
    int n = blk->n - 1 + with->n;
    ir_stmt **s = ir_alloc(p, (size_t)(n > 0 ? n : 1) * sizeof *s);
    memcpy(s, blk->stmts, (size_t)idx * sizeof *s);
    memcpy(s + idx, with->stmts, (size_t)with->n * sizeof *s);
    memcpy(s + idx + with->n, blk->stmts + idx + 1, (size_t)(blk->n - idx - 1) * sizeof *s);
    blk->stmts = s;
    blk->n = n;
}

/* The jammed bands' loops (first variable, group loop) under t, into var/grp (at most max). */
static int jammed_loops(const lx_node *t, const char **var, const char **grp, int n, int max)
{
    if (t->kind == LX_BAND && t->jam > 1 && n < max) {
        var[n] = t->bvar[t->jvar];
        grp[n++] = t->jname[t->jvar];
    }
    for (int i = 0; i < t->nkids; i++) n = jammed_loops(t->kids[i], var, grp, n, max);
    return n;
}

enum { LX_JAM_NAMES = 32 };

/* Does loop s's bound e (a min or max of f) mention, besides its jammed argument skip, one of
 * names[0 .. n-1]? */
static int bound_mentions(const ir_expr *e, ir_func f, const ir_expr *skip, const char *const *names, int n)
{
    const ir_expr *args[16];
    int na = ir_minmax_args(e, f, args, 0, 16);
    for (int a = 0; a < na; a++)
        for (int k = 0; args[a] != skip && k < n; k++)
            if (xf_mentions(args[a], names[k])) return 1;
    return 0;
}

/* Below a group loop (its name grp): the innermost loops over var that are jammed loops of
 * the group (ir_jam_loop: bounds `max(.., grp) .. min(.., grp + 3)`, which the exporter
 * unrolls) whose other bounds name no loop between the group loop and them (names[0 .. n-1]:
 * the exporter tests them before those loops) into *good, the others into *bad. */
static void count_jams(const ir_block *b, const char *around, const char *var, const char *grp, const char **names,
                       int n, int *good, int *bad)
{
    for (int i = 0; b && i < b->n; i++) {
        const ir_stmt *s = b->stmts[i];
        if (s->kind == IR_S_IF) {
            count_jams(s->u.if_.then_blk, around, var, grp, names, n, good, bad);
            count_jams(s->u.if_.else_blk, around, var, grp, names, n, good, bad);
        }
        if (s->kind == IR_S_LET && n < LX_JAM_NAMES) names[n++] = s->u.let.var;
        if (s->kind != IR_S_FOR) continue;
        int in = n;
        for (int v = 0; v < s->u.for_.nvars && in < LX_JAM_NAMES; v++) names[in++] = s->u.for_.vars[v].var;
        count_jams(s->u.for_.body, s->u.for_.vars[s->u.for_.nvars - 1].var, var, grp, names, in, good, bad);
        const ir_expr *lo, *hi;
        if (ir_block_has_kind(s->u.for_.body, IR_S_FOR) || strcmp(s->u.for_.vars[s->u.for_.nvars - 1].var, var)) continue;
        if (ir_jam_loop(s, around, &lo, &hi) && !strcmp(lo->u.name.id, grp) &&
            !bound_mentions(s->u.for_.vars[0].lo, IR_F_MAX, lo, names, n) &&
            !bound_mentions(s->u.for_.vars[0].hi, IR_F_MIN, hi, names, n))
            ++*good;
        else
            ++*bad;
    }
}

/* Does every group loop of b (a jammed band's, grp[k]) run its rows (var[k]) in jammed loops
 * alone?  A triangular nest's rows (syrk's p = max(.., j) ..) do not, nor rows with a send: the
 * exporter would run them as a strided loop.  Each group that does not gets ok[k] = 0, and one
 * that never appears (isl left its loop out) too. */
static void jams_whole(const ir_block *b, const char *const *var, const char *const *grp, int nj, int *ok, int *seen)
{
    for (int i = 0; b && i < b->n; i++) {
        const ir_stmt *s = b->stmts[i];
        if (s->kind == IR_S_IF) {
            jams_whole(s->u.if_.then_blk, var, grp, nj, ok, seen);
            jams_whole(s->u.if_.else_blk, var, grp, nj, ok, seen);
        }
        if (s->kind != IR_S_FOR) continue;
        const char *v = s->u.for_.vars[s->u.for_.nvars - 1].var;
        for (int k = 0; k < nj; k++)
            if (!strcmp(v, grp[k])) {
                int good = 0, bad = 0;
                const char *names[LX_JAM_NAMES];
                count_jams(s->u.for_.body, v, var[k], grp[k], names, 0, &good, &bad);
                if (bad || !good) ok[k] = 0;
                seen[k] = 1;
            }
        jams_whole(s->u.for_.body, var, grp, nj, ok, seen);
    }
}

/* The band under t whose group loop is named grp jams its next loop but the innermost, or none. */
static void unjam_group(lx_node *t, const char *grp)
{
    if (t->kind == LX_BAND && t->jam > 1 && !strcmp(t->jname[t->jvar], grp)) {
        if (t->jvar + 2 < t->nb) t->jvar++;
        else t->jam = 0;
    }
    for (int i = 0; i < t->nkids; i++) unjam_group(t->kids[i], grp);
}

/* The loops over `var` in b (at any depth): how many, and how many of them are register tiles
 * (ir_regs_tile_of: the shape the exporter keeps in registers). */
static void count_regs(const ir_block *b, const char *var, int *loops, int *tiles)
{
    for (int i = 0; b && i < b->n; i++) {
        const ir_stmt *s = b->stmts[i];
        if (s->kind == IR_S_IF) {
            count_regs(s->u.if_.then_blk, var, loops, tiles);
            count_regs(s->u.if_.else_blk, var, loops, tiles);
        }
        if (s->kind != IR_S_FOR) continue;
        ir_regs_tile t;
        if (s->u.for_.nvars == 1 && !strcmp(s->u.for_.vars[0].var, var)) {
            ++*loops;
            *tiles += ir_regs_tile_of(s, &t);
        }
        count_regs(s->u.for_.body, var, loops, tiles);
    }
}

/* Each band under t with register tiles whose loops in code are not all register tiles (isl
 * split them, a statement joined them) runs without them.  Whether every one was. */
static int regs_whole(lx_node *t, const ir_block *code)
{
    int ok = 1;
    if (lx_regs_band(t)) {
        int loops = 0, tiles = 0;
        count_regs(code, t->rname, &loops, &tiles);
        if (!loops || tiles != loops) t->regs = 0, ok = 0;
    }
    for (int i = 0; i < t->nkids; i++) ok &= regs_whole(t->kids[i], code);
    return ok;
}

int lx_generate(lx_nest *n, lx_node *root, ir_block *blk, int idx, char **why)
{
    gen g = {.n = n};
    *why = NULL;
    if (scheds_make(n, root, &g.x) != 0) {
        scheds_free(&g.x);
        *why = xasprintf("internal error: a schedule isl cannot read (%s)", xf_isl_error(n->m->ctx));
        return -1;
    }
    char *text = ir_print(n->out);
    g.cname = xcalloc((size_t)g.x.len, sizeof *g.cname);
    for (int d = 0; d < g.x.len; d++) g.cname[d] = xf_fresh_name(n->out, &text, "c");
    free(text);
    base_rename(&g);
    g.times = xcalloc((size_t)n->m->nst + 1, sizeof *g.times);
    isl_ast_node *ast = ast_of(&g, root, 0);
    ir_block *code = ir_new_block(n->out);
    xf_astgen ag = {&g.base, place, &g};
    int rc = ast ? xf_ast_node(n->out, ast, code, &ag) : -1;
    if (rc != 0 && ast) {   /* a statement placed twice: again with every loop atomic */
        isl_ast_node_free(ast);
        memset(g.times, 0, ((size_t)n->m->nst + 1) * sizeof *g.times);
        g.nplaced = 0;
        code = ir_new_block(n->out);
        ast = ast_of(&g, root, 1);
        rc = ast ? xf_ast_node(n->out, ast, code, &ag) : -1;
    }
    isl_ast_node_free(ast);
    const char *jvar[LX_MAX_BAND * 8], *jgrp[LX_MAX_BAND * 8];
    int nj = jammed_loops(root, jvar, jgrp, 0, LX_MAX_BAND * 8);
    if (rc == 0) {
        int cap = g.x.len + 1;
        const char *from[cap], *to[cap];
        name_loops(&g, code, from, to, 0);
        dedupe_lets(code);
        int ok[LX_MAX_BAND * 8], seen[LX_MAX_BAND * 8], all = 1;
        for (int k = 0; k < nj; k++) ok[k] = 1, seen[k] = 0;
        jams_whole(code, jvar, jgrp, nj, ok, seen);
        for (int k = 0; k < nj; k++)
            if (!ok[k] || !seen[k]) {
                unjam_group(root, jgrp[k]);
                all = 0;
            }
        if (!all) {
            *why = xasprintf("jam: the rows of %s would not run together in a loop of their own (its bounds "
                             "depend on the loops around it, or it holds a send)", jvar[0]);
            rc = LX_REJAM;
        } else if (!regs_whole(root, code)) {
            *why = xstrdup("regs: a register tile's loops would not have the shape whose elements stay in registers");
            rc = LX_REJAM;
        } else {
            replace_in(n->out, blk, idx, code);
        }
    } else {
        *why = ast ? xstrdup("isl's code for it runs a statement in two places, or writes an expression the "
                             "language lacks")
                   : xasprintf("isl cannot write its code (%s)", xf_isl_error(n->m->ctx));
    }
    scheds_free(&g.x);
    free(g.cname);
    free(g.from);
    free(g.to);
    free(g.to_expr);
    free(g.placed);
    free(g.placed_stmt);
    free(g.times);
    return rc;
}
