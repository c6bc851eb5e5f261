/*
 * deps.c — exact dependence analysis with isl, and its Fig. 6.2-style report.
 *
 * Flow dependences are computed per read reference (so that each read of the thesis's LU
 * example is one dependence, as in its Fig. 6.2): the sink is the reference's access relation,
 * the sources are all writes (exact ones must-writes, others may-writes), and isl's
 * isl_union_access_info_compute_flow finds, for every element read, the last write before it in
 * the sequential schedule.  Anti dependences (a read before a later write of the same element)
 * and output dependences (two writes) exist only where the program reuses memory; they are
 * computed the same way (anti ones backwards: for every element read, the first writes after it,
 * on the reversed schedule) and reported when non-empty.
 *
 * For each dependence the report gives source and sink statement, array, the reference, and the
 * distance vector when it is uniform (the same for every pair; computed over the common loop
 * dimensions when source and sink have the same depth), otherwise a direction per dimension and
 * the instance relation in isl notation.
 */
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/flow.h>
#include <isl/point.h>
#include <isl/val.h>

#include "poly_int.h"

typedef struct collect { const xf_model *m; xf_rawdep *r; int n, cap; xf_dep_kind kind; int acc; } collect;

static isl_stat collect_map(__isl_take isl_map *map, void *user)
{
    collect *c = user;
    const char *sn = isl_map_get_tuple_name(map, isl_dim_in);
    const char *tn = isl_map_get_tuple_name(map, isl_dim_out);
    int s = sn ? xf_model_find(c->m, sn) : -1, t = tn ? xf_model_find(c->m, tn) : -1;
    if (s < 0 || t < 0 || isl_map_is_empty(map) == isl_bool_true) {
        isl_map_free(map);
        return isl_stat_ok;
    }
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 16;
        c->r = xrealloc(c->r, (size_t)c->cap * sizeof *c->r);
    }
    map = isl_map_coalesce(map);
    c->r[c->n++] = (xf_rawdep){c->kind, s, t, c->acc, map};
    return isl_stat_ok;
}

/* The model's access relations parsed once per analysis, each restricted to its statement's
 * domain (a write that changes nothing left out), and its schedule: the analysis combines them
 * many times, and reading isl text anew each time was a good part of its cost. */
typedef struct dctx {
    const xf_model *m;
    isl_map **acc;             /* owned, per access (NULL where the text does not parse) */
    isl_union_map *sched;      /* owned */
    isl_map *order;            /* owned: the schedule vectors' order  { [..] -> [..] : before } */
    isl_union_map *rsched;     /* owned: the schedule backwards (each vector negated), or NULL */
} dctx;

static void dctx_init(dctx *x, const xf_model *m)
{
    x->m = m;
    x->acc = xcalloc(m->nacc ? (size_t)m->nacc : 1, sizeof *x->acc);
    for (int i = 0; i < m->nacc; i++) {
        const xf_access *a = &m->acc[i];
        isl_map *r = isl_map_read_from_str(m->ctx, a->rel);
        if (!r) continue;
        r = isl_map_intersect_domain(r, xf_model_domain(m, a->stmt));
        const char *unchanged = m->st[a->stmt].unchanged;
        isl_set *same = a->write && unchanged ? isl_set_read_from_str(m->ctx, unchanged) : NULL;
        if (same) r = isl_map_subtract_domain(r, same);   /* a write that changes nothing */
        x->acc[i] = r;
    }
    x->sched = xf_model_schedule(m);
    isl_map *s0 = m->nst ? isl_map_read_from_str(m->ctx, m->st[0].sched) : NULL;
    x->order = NULL;
    x->rsched = NULL;
    if (s0) {
        isl_space *vs = isl_space_range(isl_map_get_space(s0));
        x->order = isl_map_lex_lt(isl_space_copy(vs));
        isl_multi_aff *neg = isl_multi_aff_neg(isl_multi_aff_identity(isl_space_map_from_set(vs)));
        x->rsched = isl_union_map_apply_range(isl_union_map_copy(x->sched),
                                              isl_union_map_from_map(isl_map_from_multi_aff(neg)));
    }
    isl_map_free(s0);
}

static void dctx_free(dctx *x)
{
    for (int i = 0; i < x->m->nacc; i++) isl_map_free(x->acc[i]);
    free(x->acc);
    isl_union_map_free(x->sched);
    isl_map_free(x->order);
    isl_union_map_free(x->rsched);
}

/* Do the two access relations access the same array (isl's own test for a source to match a
 * sink)? */
static int same_array(__isl_keep isl_map *a, __isl_keep isl_map *b)
{
    isl_space *sa = isl_map_get_space(a), *sb = isl_map_get_space(b);
    int eq = isl_space_tuple_is_equal(sa, isl_dim_out, sb, isl_dim_out) == isl_bool_true;
    isl_space_free(sa);
    isl_space_free(sb);
    return eq;
}

/* The access relations selected: access `only` (>= 0), or every write (write = 1) / read
 * (write = 0), with must = 1 / 0 only the exact / inexact ones (-1: both), and with like >= 0
 * only those of access like's array. */
static __isl_give isl_union_map *accesses(const dctx *x, int write, int must, int only, int like)
{
    const xf_model *m = x->m;
    isl_union_map *u = isl_union_map_empty(isl_space_params_alloc(m->ctx, 0));
    for (int i = 0; i < m->nacc; i++) {
        const xf_access *a = &m->acc[i];
        if (only >= 0 && i != only) continue;
        if (only < 0 && (a->write != write || (must >= 0 && a->must != must))) continue;
        if (!x->acc[i]) continue;
        if (like >= 0 && (!x->acc[like] || !same_array(x->acc[i], x->acc[like]))) continue;
        u = isl_union_map_add_map(u, isl_map_copy(x->acc[i]));
    }
    return u;
}

/* Do some of the instance pairs (A -> B, owned) run A before B (before = 1) or after it
 * (before = 0) in the sequential schedule?  Compared as schedule vectors (every statement's has
 * the same length): the pairs' image under the schedule against the lexicographic order of that
 * one space, rather than the order of every pair of statements. */
static int any_ordered(const dctx *x, __isl_take isl_union_map *pairs, int before)
{
    isl_union_map *t = isl_union_map_apply_domain(
        isl_union_map_apply_range(pairs, isl_union_map_copy(x->sched)), isl_union_map_copy(x->sched));
    if (!x->order) { isl_union_map_free(t); return 0; }   /* no statements */
    isl_map *order = isl_map_copy(x->order);
    if (!before) order = isl_map_reverse(order);
    t = isl_union_map_intersect(t, isl_union_map_from_map(order));
    int any = isl_union_map_is_empty(t) == isl_bool_false;
    isl_union_map_free(t);
    return any;
}

static int by_sink(const void *a, const void *b)
{
    const xf_rawdep *x = a, *y = b;
    return (x->sink > y->sink) - (x->sink < y->sink);
}

static isl_stat add_reversed(__isl_take isl_map *map, void *user)
{
    isl_union_map **u = user;
    *u = isl_union_map_add_map(*u, isl_map_reverse(map));
    return isl_stat_ok;
}

/* isl's dataflow analysis: for each instance of the sinks, the sources that last accessed its
 * element before it (the must sources killing earlier ones) — or, backwards, the first ones
 * after it, each pair then turned round (source instance first) and the pairs in the order of
 * their sinks' statements. */
static void flow(const dctx *x, collect *c, __isl_take isl_union_map *sink,
                 __isl_take isl_union_map *must, __isl_take isl_union_map *may, int backwards)
{
    isl_union_access_info *ai = isl_union_access_info_from_sink(sink);
    ai = isl_union_access_info_set_must_source(ai, must);
    ai = isl_union_access_info_set_may_source(ai, may);
    ai = isl_union_access_info_set_schedule_map(ai, isl_union_map_copy(backwards ? x->rsched : x->sched));
    isl_union_flow *f = isl_union_access_info_compute_flow(ai);
    isl_union_map *dep = isl_union_flow_get_may_dependence(f);
    isl_union_flow_free(f);
    if (backwards) {
        isl_union_map *fwd = isl_union_map_empty(isl_union_map_get_space(dep));
        isl_union_map_foreach_map(dep, add_reversed, &fwd);
        isl_union_map_free(dep);
        dep = fwd;
    }
    int first = c->n;
    isl_union_map_foreach_map(dep, collect_map, c);
    isl_union_map_free(dep);
    if (backwards && c->n - first > 1) qsort(c->r + first, (size_t)(c->n - first), sizeof *c->r, by_sink);
}

/* ---- memo: the dependences of a model seen before ---------------------------------------------
 *
 * commgen computes the dependences on the untiled step nest, which is the same for every tiling
 * of one mapping: explore tries six tilings, and the dataflow analysis is most of commgen's
 * time.  So the last DEPS_MEMO results are kept by the model's complete isl text (context,
 * statements, domains, schedules, accesses: everything the analysis reads), as isl text, and
 * read back into the asking model's context.  Results of a cancelled analysis are never kept. */
enum { DEPS_MEMO = 8 };
typedef struct memo_dep { xf_dep_kind kind; int src, sink, acc; char *rel; } memo_dep;
typedef struct memo_entry { char *key; memo_dep *deps; int n; } memo_entry;
static memo_entry memo[DEPS_MEMO];
static int memo_next, memo_hits;

int xf_deps_memo_hits(void) { return memo_hits; }

static char *model_key(const xf_model *m)
{
    strbuf b = {0};
    strbuf_printf(&b, "%s\n%d\n", m->context ? m->context : "", m->nst);
    for (int i = 0; i < m->nst; i++)
        strbuf_printf(&b, "%s\n%s\n%s\n%s\n", m->st[i].name, m->st[i].domain, m->st[i].sched,
                      m->st[i].unchanged ? m->st[i].unchanged : "");
    for (int i = 0; i < m->nacc; i++)
        strbuf_printf(&b, "%d %d %d %s\n", m->acc[i].stmt, m->acc[i].write, m->acc[i].must, m->acc[i].rel);
    return strbuf_take(&b);
}

static int memo_get(const xf_model *m, const char *key, xf_rawdep **out, int *n)
{
    for (int e = 0; e < DEPS_MEMO; e++) {
        const memo_entry *me = &memo[e];
        if (!me->key || strcmp(me->key, key) != 0) continue;
        xf_rawdep *r = xcalloc(me->n ? (size_t)me->n : 1, sizeof *r);
        for (int i = 0; i < me->n; i++) {
            const memo_dep *md = &me->deps[i];
            r[i] = (xf_rawdep){md->kind, md->src, md->sink, md->acc, isl_map_read_from_str(m->ctx, md->rel)};
            if (!r[i].rel) {   /* cannot happen for isl's own text; compute afresh then */
                xf_rawdeps_free(r, i);
                return 0;
            }
        }
        *out = r;
        *n = me->n;
        return 1;
    }
    return 0;
}

/* Keeps a copy of r[0..n) under key (taken). */
static void memo_put(char *key, const xf_rawdep *r, int n)
{
    memo_entry *me = &memo[memo_next];
    memo_next = (memo_next + 1) % DEPS_MEMO;
    for (int i = 0; i < me->n; i++) free(me->deps[i].rel);
    free(me->deps);
    free(me->key);
    me->key = key;
    me->n = n;
    me->deps = xcalloc(n ? (size_t)n : 1, sizeof *me->deps);
    for (int i = 0; i < n; i++) {
        me->deps[i] = (memo_dep){r[i].kind, r[i].src, r[i].sink, r[i].acc, isl_map_to_str(r[i].rel)};
    }
}

static int model_deps(const xf_model *m, xf_rawdep **out, int *n);

int xf_model_deps(const xf_model *m, xf_rawdep **out, int *n, diag_list *d)
{
    (void)d;
    char *key = model_key(m);
    if (memo_get(m, key, out, n)) {
        memo_hits++;
        free(key);
        return 0;
    }
    model_deps(m, out, n);
    if (!xf_cancelled()) memo_put(key, *out, *n);
    else free(key);
    return 0;
}

static int model_deps(const xf_model *m, xf_rawdep **out, int *n)
{
    collect c = {.m = m};
    dctx x;
    dctx_init(&x, m);
    /* flow: per read reference (the sources: the writes of its array; isl would match them so) */
    for (int i = 0; i < m->nacc; i++) {
        if (m->acc[i].write) continue;
        c.kind = XF_DEP_FLOW;
        c.acc = i;
        flow(&x, &c, accesses(&x, 0, -1, i, -1), accesses(&x, 1, 1, -1, i), accesses(&x, 1, 0, -1, i), 0);
    }
    /* anti: per read reference, to the next writes of the element (an intervening exact
     * write kills the pair: its own output dependence orders it) */
    for (int i = 0; i < m->nacc; i++) {
        if (m->acc[i].write) continue;
        c.kind = XF_DEP_ANTI;
        c.acc = i;
        /* quick test first: is any element this reference reads written later at all? */
        if (!any_ordered(&x, isl_union_map_apply_range(accesses(&x, 0, -1, i, -1),
                                                       isl_union_map_reverse(accesses(&x, 1, -1, -1, i))), 1))
            continue;
        /* the first writes after each element read, backwards: the read is the sink of a
         * dataflow analysis on the reversed schedule, the exact writes its must sources (the
         * first one after the read hides the later ones), the others may sources.  The same
         * pairs as the writes' analysis with the read as may source and the exact writes as
         * kills, but that one finds every write's last exact write again for each read. */
        flow(&x, &c, accesses(&x, 0, -1, i, -1), accesses(&x, 1, 1, -1, i), accesses(&x, 1, 0, -1, i), 1);
    }
    /* output: write after write */
    c.kind = XF_DEP_OUTPUT;
    for (int i = 0; i < m->nacc; i++) {
        if (!m->acc[i].write) continue;
        c.acc = i;
        /* quick test: was any element this write writes written before? */
        if (!any_ordered(&x, isl_union_map_apply_range(accesses(&x, 1, -1, i, -1),
                                                       isl_union_map_reverse(accesses(&x, 1, -1, -1, i))), 0))
            continue;
        flow(&x, &c, accesses(&x, 1, -1, i, -1), accesses(&x, 1, 1, -1, i), accesses(&x, 1, 0, -1, i), 0);
    }
    dctx_free(&x);
    /* drop empty ones (from the filtering above) */
    int k = 0;
    for (int i = 0; i < c.n; i++) {
        if (isl_map_is_empty(c.r[i].rel) == isl_bool_true) isl_map_free(c.r[i].rel);
        else c.r[k++] = c.r[i];
    }
    c.n = k;
    *out = c.r;
    *n = c.n;
    return 0;
}

void xf_rawdeps_free(xf_rawdep *r, int n)
{
    for (int i = 0; i < n; i++) isl_map_free(r[i].rel);
    free(r);
}

/* ---- examples ----------------------------------------------------------------------------- */

static void print_params(strbuf *b, const xf_model *m, __isl_keep isl_point *pt)
{
    isl_space *sp = isl_point_get_space(pt);
    int np = (int)isl_space_dim(sp, isl_dim_param);
    for (int k = 0; k < np; k++) {
        isl_val *v = isl_point_get_coordinate_val(pt, isl_dim_param, k);
        const char *nm = isl_space_get_dim_name(sp, isl_dim_param, (unsigned)k);
        strbuf_printf(b, "%s%s = %ld", k ? ", " : " (", nm ? nm : "?", isl_val_get_num_si(v));
        isl_val_free(v);
    }
    isl_space_free(sp);
    if (np) strbuf_printf(b, ")");
    (void)m;
}

static void print_tuple(strbuf *b, __isl_keep isl_point *pt, int first, int n, const char *name)
{
    strbuf_printf(b, "%s[", name ? name : "");
    for (int k = 0; k < n; k++) {
        isl_val *v = isl_point_get_coordinate_val(pt, isl_dim_set, first + k);
        strbuf_printf(b, "%s%ld", k ? ", " : "", isl_val_get_num_si(v));
        isl_val_free(v);
    }
    strbuf_printf(b, "]");
}

char *xf_example(const xf_model *m, __isl_keep isl_map *rel)
{
    isl_basic_map *bm = isl_map_sample(isl_map_copy(rel));
    const char *sn = isl_basic_map_get_tuple_name(bm, isl_dim_in);
    const char *tn = isl_basic_map_get_tuple_name(bm, isl_dim_out);
    char *sn2 = xstrdup(sn ? sn : ""), *tn2 = xstrdup(tn ? tn : "");
    int nin = (int)isl_basic_map_dim(bm, isl_dim_in), nout = (int)isl_basic_map_dim(bm, isl_dim_out);
    isl_point *pt = isl_basic_set_sample_point(isl_basic_map_wrap(bm));
    strbuf b = {0};
    if (pt && isl_point_is_void(pt) != isl_bool_true) {
        print_tuple(&b, pt, 0, nin, sn2);
        strbuf_printf(&b, " -> ");
        print_tuple(&b, pt, nin, nout, tn2);
        print_params(&b, m, pt);
    }
    isl_point_free(pt);
    free(sn2);
    free(tn2);
    return strbuf_take(&b);
}

char *xf_example_set(const xf_model *m, __isl_keep isl_set *set)
{
    const char *sn = isl_set_get_tuple_name(set);
    char *sn2 = xstrdup(sn ? sn : "");
    int n = (int)isl_set_dim(set, isl_dim_set);
    isl_point *pt = isl_set_sample_point(isl_set_copy(set));
    strbuf b = {0};
    if (pt && isl_point_is_void(pt) != isl_bool_true) {
        print_tuple(&b, pt, 0, n, sn2);
        print_params(&b, m, pt);
    }
    isl_point_free(pt);
    free(sn2);
    return strbuf_take(&b);
}

/* ---- the report --------------------------------------------------------------------------- */

static int set_nonempty(__isl_take isl_set *s) { int r = isl_set_is_empty(s) == isl_bool_false; isl_set_free(s); return r; }

static void distance(xf_dep *dep, __isl_keep isl_map *rel)
{
    int nin = (int)isl_map_dim(rel, isl_dim_in), nout = (int)isl_map_dim(rel, isl_dim_out);
    int n = nin < nout ? nin : nout;
    if (n > 8) n = 8;
    if (n == 0) return;
    /* deltas over the common leading dimensions */
    isl_map *r = isl_map_copy(rel);
    if (nin > n) r = isl_map_project_out(r, isl_dim_in, n, (unsigned)(nin - n));
    if (nout > n) r = isl_map_project_out(r, isl_dim_out, n, (unsigned)(nout - n));
    r = isl_map_reset_tuple_id(isl_map_reset_tuple_id(r, isl_dim_in), isl_dim_out);
    isl_set *dl = isl_set_detect_equalities(isl_map_deltas(r));
    dep->ndist = n;
    dep->uniform = 1;
    for (int k = 0; k < n; k++) {
        isl_val *v = isl_set_plain_get_val_if_fixed(dl, isl_dim_set, (unsigned)k);
        if (v && isl_val_is_int(v)) dep->dist[k] = isl_val_get_num_si(v);
        else dep->uniform = 0;
        isl_val_free(v);
        int pos = set_nonempty(isl_set_lower_bound_si(isl_set_copy(dl), isl_dim_set, (unsigned)k, 1));
        int zero = set_nonempty(isl_set_fix_si(isl_set_copy(dl), isl_dim_set, (unsigned)k, 0));
        int neg = set_nonempty(isl_set_upper_bound_si(isl_set_copy(dl), isl_dim_set, (unsigned)k, -1));
        const char *s = pos && neg ? "*" : pos && zero ? "0+" : neg && zero ? "0-" : pos ? "+" : neg ? "-" : "0";
        snprintf(dep->dir[k], sizeof dep->dir[k], "%s", s);
    }
    isl_set_free(dl);
}

xf_deps *xf_deps_compute(const ir_program *p, const ir_binding *ov, int nov, int fixed,
                         diag_list *d)
{
    if (p->level != IR_SOURCE) {
        diag_add(d, p->file, 0, 0, "dependence analysis needs a source-level program (this one is %s)",
                 ir_level_name(p->level));
        return NULL;
    }
    xf_model *m = xf_model_build(p, ov, nov, fixed, d);
    if (!m) return NULL;
    xf_rawdep *r = NULL;
    int n = 0;
    xf_model_deps(m, &r, &n, d);
    xf_deps *res = xcalloc(1, sizeof *res);
    res->items = xcalloc((size_t)n + 1, sizeof *res->items);
    res->context = xstrdup(m->context);
    isl_set *ctx = xf_model_context(m);
    for (int i = 0; i < n; i++) {
        xf_dep *dep = &res->items[res->n++];
        const xf_access *a = &m->acc[r[i].acc];
        dep->kind = r[i].kind;
        dep->src = ir_strdup((ir_program *)p, m->st[r[i].src].name);
        dep->sink = ir_strdup((ir_program *)p, m->st[r[i].sink].name);
        dep->array = a->expr->kind == IR_E_ACCESS ? a->expr->u.access.array : a->expr->u.name.id;
        dep->ref = xstrdup(a->text);
        isl_map *g = isl_map_gist_params(isl_map_copy(r[i].rel), isl_set_copy(ctx));
        dep->relation = isl_map_to_str(g);
        isl_map_free(g);
        distance(dep, r[i].rel);
        dep->example = xf_example(m, r[i].rel);
        dep->src_line = m->st[r[i].src].assign->pos.line;
        dep->sink_line = m->st[r[i].sink].assign->pos.line;
    }
    isl_set_free(ctx);
    xf_rawdeps_free(r, n);
    xf_model_free(m);
    return res;
}

void xf_deps_free(xf_deps *deps)
{
    if (!deps) return;
    for (int i = 0; i < deps->n; i++) {
        free(deps->items[i].ref);
        free(deps->items[i].relation);
        free(deps->items[i].example);
    }
    free(deps->items);
    free(deps->context);
    free(deps);
}

static const char *const kind_name[] = {[XF_DEP_FLOW] = "flow", [XF_DEP_ANTI] = "anti",
                                        [XF_DEP_OUTPUT] = "output"};

const char *xf_dep_kind_name(xf_dep_kind k)
{
    return k >= XF_DEP_FLOW && k <= XF_DEP_OUTPUT ? kind_name[k] : "?";
}

static void vec(strbuf *b, const xf_dep *d)
{
    if (!d->ndist) { strbuf_printf(b, "-"); return; }
    strbuf_printf(b, "(");
    for (int k = 0; k < d->ndist; k++) {
        if (d->uniform) strbuf_printf(b, "%s%lld", k ? ", " : "", d->dist[k]);
        else strbuf_printf(b, "%s%s", k ? ", " : "", d->dir[k]);
    }
    strbuf_printf(b, ")");
}

void xf_deps_print(FILE *out, const xf_deps *deps, int json)
{
    if (json) {
        fprintf(out, "{\"context\": ");
        /* a tiny JSON string writer (the text has no control characters) */
        fprintf(out, "\"%s\", \"dependences\": [", deps->context);
        for (int i = 0; i < deps->n; i++) {
            const xf_dep *d = &deps->items[i];
            fprintf(out, "%s\n  {\"no\": %d, \"kind\": \"%s\", \"source\": \"%s\", \"sink\": \"%s\", "
                    "\"array\": \"%s\", \"reference\": \"%s\", \"uniform\": %s, ",
                    i ? "," : "", i + 1, kind_name[d->kind], d->src, d->sink, d->array, d->ref,
                    d->uniform ? "true" : "false");
            fprintf(out, "\"distance\": ");
            if (d->uniform && d->ndist) {
                fprintf(out, "[");
                for (int k = 0; k < d->ndist; k++) fprintf(out, "%s%lld", k ? ", " : "", d->dist[k]);
                fprintf(out, "]");
            } else fprintf(out, "null");
            fprintf(out, ", \"direction\": [");
            for (int k = 0; k < d->ndist; k++) fprintf(out, "%s\"%s\"", k ? ", " : "", d->dir[k]);
            fprintf(out, "], \"relation\": \"%s\", \"example\": \"%s\"}", d->relation, d->example);
        }
        fprintf(out, "\n]}\n");
        return;
    }
    fprintf(out, "%-3s %-6s %-8s %-8s %-6s %-22s %s\n", "no", "kind", "source", "sink", "array",
            "reference", "distance / direction");
    for (int i = 0; i < deps->n; i++) {
        const xf_dep *d = &deps->items[i];
        strbuf b = {0};
        vec(&b, d);
        fprintf(out, "%-3d %-6s %-8s %-8s %-6s %-22s %s%s\n", i + 1, kind_name[d->kind], d->src,
                d->sink, d->array, d->ref, b.s, d->uniform ? "" : "  (direction)");
        fprintf(out, "    %s\n", d->relation);
        strbuf_free(&b);
    }
    fprintf(out, "%d dependence%s; parameters %s\n", deps->n, deps->n == 1 ? "" : "s", deps->context);
}
