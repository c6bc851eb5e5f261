/*
 * local_tree.c — a loop nest as a tree, for `local`: sequences of loops and statements, and the
 * rewrites the transform makes of it.  A chain of nested loops becomes a perfect nest by
 * distribution (a loop's other statements go into loops of their own, before and after, as
 * isl's schedule trees split a band's sequence), and a perfect nest a band: its loops in a new
 * order, tiled.  From the tree each statement gets its new schedule, a vector of isl
 * expressions of its loop variables (tile loops `32*floor(j/32)`, then the loops, and between
 * them the positions in each sequence): the order the generated code runs its instances in.
 */
#include <stdlib.h>
#include <string.h>

#include "local_int.h"

/* ---- nodes ------------------------------------------------------------------------------------ */

static lx_node *node_new(lx_pool *pool, lx_kind k)
{
    lx_node *t = xcalloc(1, sizeof *t);
    t->kind = k;
    t->stmt = -1;
    if (pool->n == pool->cap) {
        pool->cap = pool->cap ? 2 * pool->cap : 32;
        pool->all = xrealloc(pool->all, (size_t)pool->cap * sizeof *pool->all);
    }
    pool->all[pool->n++] = t;
    return t;
}

static void kid_add(lx_node *t, lx_node *k)
{
    t->kids = xrealloc(t->kids, (size_t)(t->nkids + 1) * sizeof *t->kids);
    t->kids[t->nkids++] = k;
}

void lx_pool_free(lx_pool *pool)
{
    for (int i = 0; i < pool->n; i++) {
        free(pool->all[i]->kids);
        free(pool->all[i]);
    }
    free(pool->all);
    memset(pool, 0, sizeof *pool);
}

/* Does t hold a statement? */
static int has_leaf(const lx_node *t)
{
    if (t->kind == LX_LEAF) return 1;
    for (int i = 0; i < t->nkids; i++)
        if (has_leaf(t->kids[i])) return 1;
    return 0;
}

static void build_block(lx_pool *pool, const lx_nest *n, lx_node *parent, const ir_block *b);

/* Is lv a tile's loop (a step) or a point loop of one? */
static int tile_loop(const ir_loopvar *lv) { return lv->step || ir_point_of(lv, NULL); }

static void build_stmt(lx_pool *pool, const lx_nest *n, lx_node *parent, const ir_stmt *s)
{
    switch (s->kind) {
    case IR_S_FOR: {
        lx_node *top = NULL, *at = parent;
        for (int v = 0; v < s->u.for_.nvars; v++) {
            lx_node *l = node_new(pool, LX_LOOP);
            l->var = s->u.for_.vars[v].var;
            l->tiled = tile_loop(&s->u.for_.vars[v]);
            if (!top) top = l;
            else kid_add(at, l);
            at = l;
        }
        build_block(pool, n, at, s->u.for_.body);
        if (top && has_leaf(top)) kid_add(parent, top);
        return;
    }
    case IR_S_IF:
        build_block(pool, n, parent, s->u.if_.then_blk);
        build_block(pool, n, parent, s->u.if_.else_blk);
        return;
    case IR_S_ASSIGN:
        for (int k = 0; k < n->m->nst; k++)
            if (n->m->st[k].assign == s) {
                lx_node *l = node_new(pool, LX_LEAF);
                l->stmt = k;
                kid_add(parent, l);
            }
        return;
    default:
        return;
    }
}

static void build_block(lx_pool *pool, const lx_nest *n, lx_node *parent, const ir_block *b)
{
    for (int i = 0; b && i < b->n; i++) build_stmt(pool, n, parent, b->stmts[i]);
}

lx_node *lx_tree_build(lx_pool *pool, const lx_nest *n)
{
    lx_node *root = node_new(pool, LX_SEQ);
    build_block(pool, n, root, n->scratch->body);
    return root;
}

lx_node *lx_tree_copy(lx_pool *pool, const lx_node *t)
{
    lx_node *c = node_new(pool, t->kind);
    lx_node **kids = c->kids;
    *c = *t;
    c->kids = kids;
    c->nkids = 0;
    for (int i = 0; i < t->nkids; i++) kid_add(c, lx_tree_copy(pool, t->kids[i]));
    return c;
}

/* ---- chains ----------------------------------------------------------------------------------- */

static int is_loopish(const lx_node *t) { return t->kind == LX_LOOP || t->kind == LX_BAND; }

static void chains_walk(lx_node *t, lx_chain *cur, lx_chain *out, int *n, int max)
{
    if (t->kind == LX_LOOP) {
        if (cur->n == LX_MAX_BAND) return;
        cur->loop[cur->n++] = t;
        int inner = 0;
        for (int i = 0; i < t->nkids; i++) inner |= is_loopish(t->kids[i]);
        if (!inner && *n < max) out[(*n)++] = *cur;
        for (int i = 0; i < t->nkids; i++)
            if (t->kids[i]->kind == LX_LOOP) chains_walk(t->kids[i], cur, out, n, max);
            else if (t->kids[i]->kind == LX_BAND) {
                lx_chain fresh = {.n = 0};
                chains_walk(t->kids[i], &fresh, out, n, max);
            }
        cur->n--;
        return;
    }
    for (int i = 0; i < t->nkids; i++) {
        lx_chain fresh = {.n = 0};
        chains_walk(t->kids[i], &fresh, out, n, max);
    }
}

int lx_chains(lx_node *root, lx_chain *out, int max)
{
    int n = 0;
    lx_chain cur = {.n = 0};
    chains_walk(root, &cur, out, &n, max);
    return n;
}

int lx_leaves(const lx_node *t, int *out, int max)
{
    if (t->kind == LX_LEAF) {
        if (max > 0) out[0] = t->stmt;
        return max > 0 ? 1 : 0;
    }
    int n = 0;
    for (int i = 0; i < t->nkids; i++) n += lx_leaves(t->kids[i], out + n, max - n);
    return n;
}

/* ---- distribution and bands ------------------------------------------------------------------- */

static lx_node *parent_of(lx_node *t, const lx_node *x, int *idx)
{
    for (int i = 0; i < t->nkids; i++) {
        if (t->kids[i] == x) {
            *idx = i;
            return t;
        }
        lx_node *p = parent_of(t->kids[i], x, idx);
        if (p) return p;
    }
    return NULL;
}

/* Replaces kid `at` of p by the n nodes r. */
static void splice(lx_node *p, int at, lx_node **r, int n)
{
    lx_node **k = xmalloc((size_t)(p->nkids - 1 + n) * sizeof *k);
    memcpy(k, p->kids, (size_t)at * sizeof *k);
    memcpy(k + at, r, (size_t)n * sizeof *k);
    memcpy(k + at + n, p->kids + at + 1, (size_t)(p->nkids - at - 1) * sizeof *k);
    free(p->kids);
    p->kids = k;
    p->nkids += n - 1;
}

/* Loop l keeps only its kid x; the kids before and after x go into copies of l beside it. */
static int distribute(lx_pool *pool, lx_node *root, lx_node *l, const lx_node *x)
{
    int at = -1, xi = -1;
    lx_node *p = parent_of(root, l, &at);
    for (int i = 0; i < l->nkids; i++)
        if (l->kids[i] == x) xi = i;
    if (!p || xi < 0) return -1;
    if (l->nkids == 1) return 0;
    lx_node *r[3];
    int nr = 0;
    if (xi > 0) {
        lx_node *b = node_new(pool, LX_LOOP);
        b->var = l->var;
        b->tiled = l->tiled;
        for (int i = 0; i < xi; i++) kid_add(b, l->kids[i]);
        r[nr++] = b;
    }
    r[nr++] = l;
    if (xi + 1 < l->nkids) {
        lx_node *a = node_new(pool, LX_LOOP);
        a->var = l->var;
        a->tiled = l->tiled;
        for (int i = xi + 1; i < l->nkids; i++) kid_add(a, l->kids[i]);
        r[nr++] = a;
    }
    l->kids[0] = (lx_node *)x;
    l->nkids = 1;
    splice(p, at, r, nr);
    return 0;
}

int lx_split_leaves(lx_pool *pool, lx_node *root, const lx_chain *c, int (*move)(const void *arg, int stmt),
                    const void *arg)
{
    if (c->n < 1) return 0;
    lx_node *inner = c->loop[c->n - 1], *copy[LX_MAX_BAND];
    int moved = 0, stay = 0;
    for (int i = 0; i < inner->nkids; i++) {
        const lx_node *k = inner->kids[i];
        if (k->kind == LX_LEAF && move(arg, k->stmt)) moved++;
        else stay++;
    }
    int at;
    lx_node *p = parent_of(root, c->loop[0], &at);
    if (!moved || !stay || !p) return 0;
    for (int i = 0; i < c->n; i++) {
        copy[i] = node_new(pool, LX_LOOP);
        copy[i]->var = c->loop[i]->var;
        copy[i]->tiled = c->loop[i]->tiled;
        if (i) kid_add(copy[i - 1], copy[i]);
    }
    int k = 0;
    for (int i = 0; i < inner->nkids; i++) {
        lx_node *x = inner->kids[i];
        if (x->kind == LX_LEAF && move(arg, x->stmt)) kid_add(copy[c->n - 1], x);
        else inner->kids[k++] = x;
    }
    inner->nkids = k;
    lx_node *r[2] = { c->loop[0], copy[0] };
    splice(p, at, r, 2);
    return moved;
}

int lx_make_band(lx_pool *pool, lx_node *root, const lx_chain *c, const char *const *order,
                 const int *tile, const char *const *tname)
{
    if (c->n < 1 || c->n > LX_MAX_BAND) return -1;
    lx_node *L[LX_MAX_BAND];
    L[c->n - 1] = c->loop[c->n - 1];
    for (int i = c->n - 2; i >= 0; i--) {   /* the loops around the last one now (a copy after a distribution) */
        int at;
        L[i] = parent_of(root, L[i + 1], &at);
        if (!L[i] || L[i]->kind != LX_LOOP || strcmp(L[i]->var, c->loop[i]->var)) return -1;
    }
    for (int i = 0; i < c->n; i++) {
        int found = 0;
        for (int k = 0; k < c->n; k++) found += !strcmp(order[i], L[k]->var);
        if (found != 1) return -1;
    }
    for (int i = 0; i + 1 < c->n; i++)
        if (distribute(pool, root, L[i], L[i + 1]) != 0) return -1;
    int tiled = 0;
    for (int i = 0; tile && i < c->n; i++) tiled |= tile[i] > 1;
    if (!tiled) {   /* a perfect nest in a new order: its loops relabelled, still a chain */
        int was[LX_MAX_BAND];
        for (int i = 0; i < c->n; i++)
            for (int k = 0; k < c->n; k++)
                if (!strcmp(order[i], L[k]->var)) was[i] = L[k]->tiled;
        for (int i = 0; i < c->n; i++) {
            L[i]->var = order[i];
            L[i]->tiled = was[i];
        }
        return 0;
    }
    int at;
    lx_node *p = parent_of(root, L[0], &at);
    if (!p) return -1;
    lx_node *b = node_new(pool, LX_BAND);
    b->nb = c->n;
    for (int i = 0; i < c->n; i++) {
        b->bvar[i] = order[i];
        b->tile[i] = tile && tile[i] > 1 ? tile[i] : 0;
        b->tname[i] = tname ? tname[i] : NULL;
    }
    for (int i = 0; i < L[c->n - 1]->nkids; i++) kid_add(b, L[c->n - 1]->kids[i]);
    p->kids[at] = b;
    return 0;
}

int lx_regs_band(const lx_node *t)
{
    return t->kind == LX_BAND && t->regs > 1 && t->jam > 1 && t->jvar < t->nb - 2 && t->rname;
}

/* ---- schedules -------------------------------------------------------------------------------- */

/* The path from t to statement s's leaf (nodes, root first).  Its length, or 0. */
static int path_to(const lx_node *t, int s, const lx_node **path, int depth, int max)
{
    if (depth == max) return 0;
    path[depth] = t;
    if (t->kind == LX_LEAF) return t->stmt == s ? depth + 1 : 0;
    for (int i = 0; i < t->nkids; i++) {
        int n = path_to(t->kids[i], s, path, depth + 1, max);
        if (n) return n;
    }
    return 0;
}

/* Statement s's isl name of its loop variable `var` (IR name), or NULL. */
static const char *isl_var(const lx_nest *n, int s, const char *var)
{
    const xf_stmt *st = &n->m->st[s];
    int k = 0;
    for (int f = 0; f < st->nframes; f++) {
        const xf_frame *fr = &st->frames[f];
        if (fr->kind != XF_FR_FOR) continue;
        if (!strcmp(fr->node->u.for_.vars[fr->var].var, var)) return st->vars[k];
        k++;
    }
    return NULL;
}

static void put(char **dims, const char **role, int len, int *k, char *text, const char *r)
{
    if (dims && *k < len) {
        dims[*k] = text;
        role[*k] = r;
    } else {
        free(text);
    }
    (*k)++;
}

int lx_schedule(const lx_nest *n, const lx_node *root, int s, int len, char **dims, const char **role)
{
    enum { MAXPATH = 64 };
    const lx_node *path[MAXPATH];
    int np = path_to(root, s, path, 0, MAXPATH), k = 0;
    for (int d = 0; d + 1 < np; d++) {
        const lx_node *t = path[d];
        if (t->kind == LX_LOOP) {
            const char *iv = isl_var(n, s, t->var);
            put(dims, role, len, &k, xstrdup(iv ? iv : "0"), t->var);
        } else if (t->kind == LX_BAND) {
            for (int b = 0; b < t->nb; b++) {
                if (!t->tile[b]) continue;
                const char *iv = isl_var(n, s, t->bvar[b]);
                put(dims, role, len, &k, xasprintf("%d*floor((%s)/%d)", t->tile[b], iv ? iv : "0", t->tile[b]),
                    t->tname[b]);
            }
            for (int b = 0; b < t->nb; b++) {
                const char *iv = isl_var(n, s, t->bvar[b]);
                if (b == t->nb - 2 && lx_regs_band(t)) {   /* the register tiles of the innermost */
                    const char *jv = isl_var(n, s, t->bvar[t->nb - 1]);
                    put(dims, role, len, &k, xasprintf("%d*floor((%s)/%d)", t->regs, jv ? jv : "0", t->regs),
                        t->rname);
                }
                if (b == t->jvar && t->jam > 1)
                    put(dims, role, len, &k, xasprintf("%d*floor((%s)/%d)", t->jam, iv ? iv : "0", t->jam),
                        t->jname[b]);
                else
                    put(dims, role, len, &k, xstrdup(iv ? iv : "0"), t->bvar[b]);
            }
            if (t->jam > 1) {   /* the jammed turns innermost */
                const char *iv = isl_var(n, s, t->bvar[t->jvar]);
                put(dims, role, len, &k, xstrdup(iv ? iv : "0"), t->bvar[t->jvar]);
            }
        }
        int at = 0;
        for (int i = 0; i < t->nkids; i++)
            if (t->kids[i] == path[d + 1]) at = i;
        put(dims, role, len, &k, xasprintf("%d", at), NULL);
    }
    if (!dims) return k;
    for (; k < len; k++) {
        dims[k] = xstrdup("0");
        role[k] = NULL;
    }
    return len;
}
