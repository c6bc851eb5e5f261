/*
 * stm_isl.c — stm auto's mappings from multi-dimensional schedules: the source's own sequential
 * schedule and the schedule isl's scheduler computes (Pluto-style: Bondhugula et al., "A Practical
 * Automatic Polyhedral Parallelizer and Locality Optimizer", PLDI 2008; the variant of
 * Verdoolaege and Janssens, "Scheduling for PPCG", 2017), each mapped onto the APM's one time
 * loop and one processor loop.
 *
 * A schedule gives each statement instance a vector (f_0, .., f_m-1); a dimension whose value is
 * a constant for every statement is a scalar one (a position in a sequence).  For a prefix of
 * q dimensions the time is
 *     θ = K * (sum of the prefix's loop dimensions) + r
 * (the sum is a wavefront over the dimensions of a permutable band, a single dimension as it is),
 * r ranking the statement's scalar dimensions that follow the first loop dimension (K of them
 * distinct: 2t and 2t+1), while the scalar dimensions before it (a sequence of loop nests)
 * place the nests one after another, each shifted by the parametric extent of the ones before
 * it (isl_set_dim_max, not a value at the default sizes); the ranks are also tried merged into
 * levels where the statements do not depend on each other.  θ is finally shifted to start at 0
 * by its parametric minimum.  The allocation σ is a loop dimension of the schedule (those after
 * the prefix first, so that the loops inside keep the source's order), a loop variable, or 0;
 * each also owner-aligned (a statement whose written array the others distribute along one of
 * its dimensions runs where its element lies: fdtd-2d's ey[0][j] on row 0's processor), and
 * hoisted (the statements that can run at step 0 moved there: atax's row products); the
 * alignments are stm_align.c's.
 * A pair (θ, σ) is kept when every dependence goes forward in θ or joins two instances at one
 * (t, p) point in their original order (inner=seq runs what shares a point in inner sequential
 * loops), or goes through a scratch array private to each processor (stm_private.c); stm auto
 * then has stm check each one, as it checks its enumeration's.  When none keeps several
 * processors busy, a sequence of top-level loop nests is also mapped phase by phase: each nest's
 * best mapping from its own model, the nests one after another (propose_phases).
 *
 * Arrays of functions (isl_aff **th, **sg: one per statement) are borrowed by the functions
 * that take them, except where a comment says a function fills them (the caller then frees).
 *
 * Everything is symbolic in the parameters; the sizes (steps, processors, instances per point)
 * used for ranking are measured at the parameter values (xf_stm_measure).
 */
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/ilp.h>
#include <isl/schedule.h>
#include <isl/val.h>

#include "stm_int.h"

enum { MAXDIM = 16, MAXST = 48, COUNT_EXACT_MAX = 200000, SHORT_ARGS = 16, FOLLOWS_EXTRA = 2 };

/* A flattened schedule: per statement nd affine dimensions over its instance space. */
typedef struct flat {
    int ns, nd;
    isl_aff *f[MAXST][MAXDIM];      /* NULL = 0 (a statement with fewer dimensions) */
    int scalar[MAXDIM];             /* 1: constant for every statement */
    long long cst[MAXST][MAXDIM];   /* the constants of the scalar dimensions */
} flat;

static void flat_free(flat *F)
{
    for (int s = 0; s < F->ns; s++)
        for (int d = 0; d < F->nd; d++) isl_aff_free(F->f[s][d]);
}

struct piece_ctx { isl_multi_aff *ma; int n; };

static isl_stat take_piece(__isl_take isl_set *set, __isl_take isl_multi_aff *ma, void *user)
{
    struct piece_ctx *pc = user;
    isl_set_free(set);
    if (pc->n++ == 0) pc->ma = ma;
    else isl_multi_aff_free(ma);
    return isl_stat_ok;
}

/* The schedule `um` restricted to each statement, as one affine function per dimension; -1 when
 * a statement's is not a single affine piece. */
static int flat_from_umap(const xf_model *m, __isl_take isl_union_map *um, flat *F)
{
    memset(F, 0, sizeof *F);
    F->ns = m->nst;
    int ok = m->nst <= MAXST;
    for (int s = 0; s < m->nst && ok; s++) {
        isl_union_map *r = isl_union_map_intersect_domain(isl_union_map_copy(um),
                                                          isl_union_set_from_set(xf_model_domain(m, s)));
        isl_map *mp = isl_map_from_union_map(r);
        struct piece_ctx pc = {NULL, 0};
        isl_pw_multi_aff *pma = mp ? isl_pw_multi_aff_from_map(mp) : NULL;
        if (!pma || isl_pw_multi_aff_foreach_piece(pma, take_piece, &pc) < 0 || pc.n != 1) ok = 0;
        isl_pw_multi_aff_free(pma);
        if (!ok) {
            isl_multi_aff_free(pc.ma);
            break;
        }
        isl_size n = isl_multi_aff_size(pc.ma);
        if (n < 0 || n > MAXDIM) ok = 0;
        for (int d = 0; ok && d < n; d++) F->f[s][d] = isl_multi_aff_get_at(pc.ma, d);
        if (ok && n > F->nd) F->nd = n;
        isl_multi_aff_free(pc.ma);
    }
    isl_union_map_free(um);
    for (int d = 0; ok && d < F->nd; d++) {
        F->scalar[d] = 1;
        for (int s = 0; s < F->ns; s++) {
            isl_aff *a = F->f[s][d];
            if (!a) continue;
            isl_val *v = isl_aff_is_cst(a) == isl_bool_true &&
                                 isl_aff_involves_dims(a, isl_dim_param, 0,
                                                       (unsigned)isl_aff_dim(a, isl_dim_param)) == isl_bool_false
                             ? isl_aff_get_constant_val(a) : NULL;
            if (v && isl_val_is_int(v)) F->cst[s][d] = isl_val_get_num_si(v);
            else F->scalar[d] = 0;
            isl_val_free(v);
        }
    }
    if (!ok) flat_free(F);
    return ok ? 0 : -1;
}

/* 0 on statement s's instances. */
static __isl_give isl_aff *zero_on(const xf_model *m, int s)
{
    isl_set *dom = xf_model_domain(m, s);
    isl_aff *z = isl_aff_zero_on_domain(isl_local_space_from_space(isl_set_get_space(dom)));
    isl_set_free(dom);
    return z;
}

/* Statement s's dimension d, or 0. */
static __isl_give isl_aff *dim_of(const xf_model *m, const flat *F, int s, int d)
{
    return F->f[s][d] ? isl_aff_copy(F->f[s][d]) : zero_on(m, s);
}

static isl_stat grab_aff(__isl_take isl_set *set, __isl_take isl_aff *aff, void *user)
{
    isl_aff **r = user;
    isl_set_free(set);
    if (*r) isl_aff_free(aff);
    else *r = aff;
    return isl_stat_ok;
}

__isl_give isl_aff *xf_stm_single_aff(__isl_take isl_pw_aff *pa)
{
    isl_aff *r = NULL;
    pa = isl_pw_aff_coalesce(pa);
    if (pa && isl_pw_aff_n_piece(pa) == 1) isl_pw_aff_foreach_piece(pa, grab_aff, &r);
    isl_pw_aff_free(pa);
    return r;
}

static void term(strbuf *b, size_t start, long long c, const char *name)
{
    if (!c) return;
    int first = b->n == start;
    if (c < 0) strbuf_printf(b, "-");
    else if (!first) strbuf_printf(b, "+");
    if (llabs(c) != 1) strbuf_printf(b, "%lld*", llabs(c));
    strbuf_printf(b, "%s", name);
}

static long long coef(__isl_keep isl_aff *a, enum isl_dim_type t, int i)
{
    isl_val *v = t == isl_dim_cst ? isl_aff_get_constant_val(a) : isl_aff_get_coefficient_val(a, t, i);
    long long r = v ? isl_val_get_num_si(v) : 0;
    isl_val_free(v);
    return r;
}

/* `a` in stm's syntax ("2*t+i-n+1"), over statement s's loop variables (s < 0: the parameters
 * only); NULL when it has a denominator or integer divisions. */
static char *aff_text(const xf_model *m, int s, __isl_keep isl_aff *a)
{
    isl_val *den = a ? isl_aff_get_denominator_val(a) : NULL;
    int ok = den && isl_val_is_one(den) && isl_aff_dim(a, isl_dim_div) == 0;
    isl_val_free(den);
    if (!ok) return NULL;
    strbuf b = {0};
    size_t start = 0;
    isl_size nin = isl_aff_dim(a, isl_dim_in), np = isl_aff_dim(a, isl_dim_param);
    for (int i = 0; s >= 0 && i < nin && i < m->st[s].nvars; i++)
        term(&b, start, coef(a, isl_dim_in, i), m->st[s].vars[i]);
    for (int i = 0; i < np; i++) term(&b, start, coef(a, isl_dim_param, i), isl_aff_get_dim_name(a, isl_dim_param, i));
    long long k = coef(a, isl_dim_cst, 0);
    if (k || b.n == start) strbuf_printf(&b, b.n == start ? "%lld" : "%+lld", k);
    return strbuf_take(&b);
}

/* A function of the parameters (text) as an affine function on statement s's instances. */
static __isl_give isl_aff *param_aff_on(const xf_model *m, int s, const char *text)
{
    const xf_stmt *st = &m->st[s];
    strbuf b = {0};
    strbuf_printf(&b, "%s -> { %s[", m->params, st->name);
    for (int i = 0; i < st->nvars; i++) strbuf_printf(&b, "%s%s", i ? ", " : "", st->vars[i]);
    strbuf_printf(&b, "] -> [(%s)] }", text);
    isl_aff *a = isl_aff_read_from_str(m->ctx, b.s);
    strbuf_free(&b);
    return a;
}

/* min (max = 0) or max of a over statement s's instances, a function of the parameters. */
static __isl_give isl_pw_aff *extreme_of(const xf_model *m, int s, __isl_keep isl_aff *a, int max)
{
    isl_set *img = isl_set_apply(xf_model_domain(m, s), isl_map_from_aff(isl_aff_copy(a)));
    return max ? isl_set_dim_max(img, 0) : isl_set_dim_min(img, 0);
}

/* The extreme over the statements with in[s] set. */
static __isl_give isl_pw_aff *extreme_over(const xf_model *m, isl_aff *const *th, const int *in, int max)
{
    isl_pw_aff *r = NULL;
    for (int s = 0; s < m->nst; s++) {
        if (!in[s]) continue;
        isl_pw_aff *e = extreme_of(m, s, th[s], max);
        r = !r ? e : max ? isl_pw_aff_union_max(r, e) : isl_pw_aff_union_min(r, e);
    }
    return r;
}

/* th[s] += the parametric function pa (one piece) for the statements with in[s]; -1 if it is
 * not one affine function. */
static int shift_by(const xf_model *m, isl_aff **th, const int *in, __isl_take isl_pw_aff *pa)
{
    isl_aff *a = xf_stm_single_aff(pa);
    char *t = aff_text(m, -1, a);
    isl_aff_free(a);
    if (!t) return -1;
    for (int s = 0; s < m->nst; s++)
        if (in[s]) th[s] = isl_aff_add(th[s], param_aff_on(m, s, t));
    free(t);
    return 0;
}

/* rank[s]: the order of statement s's scalar dimensions in [from, q) among the distinct tuples
 * of all statements, lexicographically; returns the number of distinct tuples. */
static int rank_tuples(const flat *F, int from, int q, int *rank)
{
    int k = 0;
    for (int s = 0; s < F->ns; s++) {
        rank[s] = 0;
        int first = 1;   /* first statement with this tuple */
        for (int u = 0; u < F->ns; u++) {
            int cmp = 0;
            for (int d = from; d < q && !cmp; d++)
                if (F->scalar[d]) cmp = F->cst[u][d] < F->cst[s][d] ? -1 : F->cst[u][d] > F->cst[s][d];
            if (cmp < 0) {
                /* count each distinct smaller tuple once: u is the first of its tuple */
                int dup = 0;
                for (int w = 0; w < u && !dup; w++) {
                    int same = 1;
                    for (int d = from; d < q; d++)
                        if (F->scalar[d] && F->cst[w][d] != F->cst[u][d]) same = 0;
                    dup = same;
                }
                rank[s] += !dup;
            }
            if (cmp == 0 && u < s) first = 0;
        }
        k += first;
    }
    return k;
}

/* Merges consecutive ranks into levels: a rank joins the level of the ranks before it unless a
 * dependence goes from one of their statements to one of its own (dep[a * ns + b]), so that
 * fdtd-2d's three independent updates share 2t and the one that reads them takes 2t + 1.
 * Returns the number of levels. */
static int merge_ranks(int ns, int K, int *rank, const unsigned char *dep)
{
    int lev[MAXST], cur = 0;
    lev[0] = 0;
    for (int k = 1; k < K; k++) {
        int conflict = 0;
        for (int a = 0; a < ns && !conflict; a++)
            for (int b = 0; b < ns && !conflict; b++)
                conflict = rank[a] < k && lev[rank[a]] == cur && rank[b] == k && dep[a * ns + b];
        lev[k] = cur += conflict;
    }
    for (int s = 0; s < ns; s++) rank[s] = lev[rank[s]];
    return K > 0 ? cur + 1 : K;
}

/* Fills th with θ for the prefix of q dimensions of F (see the header), shifted to start at 0,
 * the ranks merged into levels when dep is given (merge_ranks); 0, or -1 (th empty) when a shift
 * is not one affine function of the parameters. */
static int prefix_theta(const xf_model *m, const flat *F, int q, const unsigned char *dep, isl_aff **th)
{
    int fl = 0;
    while (fl < q && F->scalar[fl]) fl++;
    int rank[MAXST], top[MAXST];
    int K = rank_tuples(F, fl, q, rank);
    if (dep) K = merge_ranks(F->ns, K, rank, dep);
    int ng = rank_tuples(F, 0, fl, top);
    for (int s = 0; s < F->ns; s++) {
        isl_aff *L = NULL;
        for (int d = fl; d < q; d++) {
            if (F->scalar[d]) continue;
            isl_aff *x = dim_of(m, F, s, d);
            L = L ? isl_aff_add(L, x) : x;
        }
        if (!L) L = zero_on(m, s);
        th[s] = isl_aff_add_constant_si(isl_aff_scale_val(L, isl_val_int_from_si(m->ctx, K)), rank[s]);
    }
    int err = 0;
    for (int g = 1; g < ng && !err; g++) {   /* nest g after nest g-1 */
        int prev[MAXST], cur[MAXST];
        for (int s = 0; s < F->ns; s++) { prev[s] = top[s] == g - 1; cur[s] = top[s] == g; }
        isl_pw_aff *hi = extreme_over(m, th, prev, 1), *lo = extreme_over(m, th, cur, 0);
        isl_pw_aff *sh = isl_pw_aff_add_constant_val(isl_pw_aff_sub(hi, lo), isl_val_one(m->ctx));
        err = shift_by(m, th, cur, sh);
    }
    if (!err) {
        int all[MAXST];
        for (int s = 0; s < F->ns; s++) all[s] = 1;
        err = shift_by(m, th, all, isl_pw_aff_neg(extreme_over(m, th, all, 0)));
    }
    if (err)
        for (int s = 0; s < F->ns; s++) th[s] = isl_aff_free(th[s]);
    return err ? -1 : 0;
}

/* Statement s's map S[..] -> [θ, σ]. */
static __isl_give isl_map *st_map(__isl_keep isl_aff *th, __isl_keep isl_aff *sg)
{
    return isl_map_flat_range_product(isl_map_from_aff(isl_aff_copy(th)), isl_map_from_aff(isl_aff_copy(sg)));
}

/* Does every dependence go forward in θ, or join two instances at one (t, p) point in their
 * original order (the source's statement first or the sink's own)?  As stm checks, with the
 * statements' order for the order of their units. */
static int legal(const xf_model *m, const xf_rawdep *r, int nr, isl_aff **th, isl_aff **sg)
{
    isl_map *fwd = isl_map_read_from_str(m->ctx, "{ [ta, sa] -> [tb, sb] : tb > ta }");
    isl_map *same = isl_map_union(isl_map_copy(fwd),
                                  isl_map_read_from_str(m->ctx, "{ [ta, sa] -> [ta, sa] }"));
    isl_map *apart = isl_map_read_from_str(m->ctx, "{ [ta, sa] -> [tb, sb] : sb != sa }");
    const char *priv[MAXST];
    int ok = 1, npriv = 0;
    for (int i = 0; i < nr && ok && !xf_cancelled(); i++) {
        int a = r[i].src, b = r[i].sink;
        isl_map *pairs = isl_map_apply_range(isl_map_apply_domain(isl_map_copy(r[i].rel), st_map(th[a], sg[a])),
                                             st_map(th[b], sg[b]));
        pairs = isl_map_subtract(pairs, isl_map_copy(a <= b ? same : fwd));
        ok = isl_map_is_empty(pairs) == isl_bool_true;
        /* a scratch scalar reused by different processors only: private to each (stm_private.c) */
        const char *x = ok ? NULL : xf_stm_private_candidate(m, &r[i]);
        if (x && isl_map_is_subset(pairs, apart) == isl_bool_true) {
            ok = 1;
            int k = 0;
            while (k < npriv && strcmp(priv[k], x)) k++;
            if (k == npriv && npriv < MAXST) priv[npriv++] = x;
            else ok = k < npriv;
        }
        isl_map_free(pairs);
    }
    if (ok && npriv) {
        isl_map *st[MAXST];
        for (int s = 0; s < m->nst; s++) st[s] = st_map(th[s], sg[s]);
        ok = xf_stm_private_flows(m, r, nr, priv, npriv, st, NULL);
        for (int s = 0; s < m->nst; s++) isl_map_free(st[s]);
    }
    isl_map_free(apart);
    isl_map_free(fwd);
    isl_map_free(same);
    return ok && !xf_cancelled();
}

/* Does some statement have two instances at one (t, p) point (then inner=seq)? */
static int shares_points(const xf_model *m, isl_aff **th, isl_aff **sg)
{
    int shared = 0;
    for (int s = 0; s < m->nst && !shared; s++) {
        isl_map *mp = isl_map_intersect_domain(st_map(th[s], sg[s]), xf_model_domain(m, s));
        shared = isl_map_is_injective(mp) != isl_bool_true;
        isl_map_free(mp);
    }
    return shared;
}

/* stm's arguments for (θ, σ): one theta=/sigma= when all statements agree, else one per label
 * (for a long program, the most common pair unlabelled). NULL when a function has no text. */
static char *args_text(const xf_model *m, isl_aff **th, isl_aff **sg, int inner)
{
    char *tt[MAXST] = {0}, *ts[MAXST] = {0};
    int ok = m->nst > 0, same = 1;
    for (int s = 0; s < m->nst; s++) {
        tt[s] = aff_text(m, s, th[s]);
        ts[s] = aff_text(m, s, sg[s]);
        ok &= tt[s] && ts[s];
        if (ok && s && (strcmp(tt[s], tt[0]) || strcmp(ts[s], ts[0]) || m->st[s].nvars != m->st[0].nvars))
            same = 0;
    }
    strbuf b = {0};
    if (ok && same) strbuf_printf(&b, "theta=%s sigma=%s", tt[0], ts[0]);
    /* a long program (more than SHORT_ARGS statements): the pair most statements share as
     * theta=, sigma=, the others by label (adi's prologue of constants at theta=0 sigma=0) */
    int dflt = -1, most = 1;
    for (int s = 0; ok && !same && m->nst > SHORT_ARGS && s < m->nst; s++) {
        int k = 0;
        for (int u = 0; u < m->nst; u++) k += !strcmp(tt[u], tt[s]) && !strcmp(ts[u], ts[s]);
        if (k > most) { most = k; dflt = s; }
    }
    if (dflt >= 0) strbuf_printf(&b, "theta=%s sigma=%s", tt[dflt], ts[dflt]);
    for (int s = 0, first = dflt < 0; ok && !same && s < m->nst; s++) {
        if (dflt >= 0 && !strcmp(tt[s], tt[dflt]) && !strcmp(ts[s], ts[dflt])) continue;
        const char *lb = m->st[s].assign->u.assign.label ? m->st[s].assign->u.assign.label : m->st[s].name;
        strbuf_printf(&b, "%stheta.%s=%s sigma.%s=%s", first ? "" : " ", lb, tt[s], lb, ts[s]);
        first = 0;
    }
    if (ok && inner) strbuf_printf(&b, " inner=seq");
    for (int s = 0; s < m->nst; s++) { free(tt[s]); free(ts[s]); }
    char *r = strbuf_take(&b);
    if (!ok) { free(r); r = NULL; }
    return r;
}

typedef struct plist { const xf_model *m; xf_stm_cand *c; int n, cap; } plist;

/* Adds the mapping (θ, σ) with its size, unless its text is already there. */
static int plist_add(plist *P, isl_aff **th, isl_aff **sg)
{
    const xf_model *m = P->m;
    isl_map *st[MAXST];
    for (int s = 0; s < m->nst; s++) st[s] = st_map(th[s], sg[s]);
    char *args = args_text(m, th, sg, shares_points(m, th, sg));
    xf_stm_size sz;
    int ok = args && xf_stm_measure(m, st, &sz) == 0;
    for (int i = 0; ok && i < P->n; i++) ok = strcmp(P->c[i].args, args) != 0;
    for (int s = 0; s < m->nst; s++) isl_map_free(st[s]);
    if (!ok) {
        free(args);
        return 0;
    }
    if (P->n == P->cap) {
        P->cap = P->cap ? 2 * P->cap : 16;
        P->c = xrealloc(P->c, (size_t)P->cap * sizeof *P->c);
    }
    P->c[P->n++] = (xf_stm_cand){args, sz.steps, sz.procs, (int)strlen(args), sz.work, sz.width, sz.local, 0};
    return 1;
}

/* Statement s's k-th loop variable, or 0 when it has fewer loops. */
static __isl_give isl_aff *var_of(const xf_model *m, int s, int k)
{
    isl_aff *z = zero_on(m, s);
    if (k >= m->st[s].nvars) return z;
    isl_local_space *ls = isl_aff_get_domain_local_space(z);
    isl_aff_free(z);
    return isl_aff_var_on_domain(ls, isl_dim_set, (unsigned)k);
}

/* -σ when σ's first loop-variable coefficient (of the first statement that has one) is negative:
 * only equal allocations matter for legality, and processors then count upwards. */
static void positive(const xf_model *m, isl_aff **sg)
{
    for (int s = 0; s < m->nst; s++)
        for (int i = 0; i < m->st[s].nvars; i++) {
            long long c = coef(sg[s], isl_dim_in, i);
            if (!c) continue;
            if (c < 0)
                for (int u = 0; u < m->nst; u++) sg[u] = isl_aff_neg(sg[u]);
            return;
        }
}

static long long gcd_ll(long long a, long long b) { while (b) { long long t = a % b; a = b; b = t; } return llabs(a); }

/* θ_s (owned) without gaps: (θ_s - c) / g + 1, g the gcd of its loop-variable and parameter
 * coefficients and c its constant (atax's 3*i + 2 alone after hoisting: i + 1). */
static __isl_give isl_aff *compact(__isl_take isl_aff *a)
{
    long long g = 0;
    isl_size nin = isl_aff_dim(a, isl_dim_in), np = isl_aff_dim(a, isl_dim_param);
    for (int i = 0; i < nin; i++) g = gcd_ll(g, coef(a, isl_dim_in, i));
    for (int i = 0; i < np; i++) g = gcd_ll(g, coef(a, isl_dim_param, i));
    if (g == 0) return a;
    a = isl_aff_add_constant_si(a, (int)-coef(a, isl_dim_cst, 0));
    a = isl_aff_scale_down_ui(a, (unsigned)g);
    return isl_aff_add_constant_si(a, 1);
}

/* Hoisting: under (θ, σ) legal, every statement that can run at step 0 instead (all its
 * instances at once, its self-dependences on one processor in inner=seq) is moved there, in
 * the statements' order; when one statement stays, its θ is compacted after them.  atax under
 * θ = 3i + r, σ = i: the row products S2, S3 all at step 0 on their rows' processors, the
 * column sums S4 one row per step after them (θ.S4 = i + 1: y[j] accumulated in the source's
 * order, each rank its rows of A).  Fills ho[] (the caller frees); 1 when some but not every
 * statement moved. */
static int hoist(const xf_model *m, const xf_rawdep *r, int nr, isl_aff **th, isl_aff **sg, isl_aff **ho)
{
    int moved = 0, stay = -1;
    for (int s = 0; s < m->nst; s++) ho[s] = isl_aff_copy(th[s]);
    for (int s = 0; s < m->nst && !xf_cancelled(); s++) {
        isl_aff *was = ho[s];
        ho[s] = zero_on(m, s);
        if (isl_aff_plain_is_equal(was, ho[s]) != isl_bool_true && legal(m, r, nr, ho, sg)) {
            isl_aff_free(was);
            moved++;
        } else {
            isl_aff_free(ho[s]);
            ho[s] = was;
            stay = s;
        }
    }
    int kept = 0;
    for (int s = 0; s < m->nst; s++) kept += isl_aff_is_cst(ho[s]) != isl_bool_true;
    if (moved && kept == 1 && stay >= 0 && isl_aff_is_cst(ho[stay]) != isl_bool_true) {
        isl_aff *was = ho[stay];
        ho[stay] = compact(isl_aff_copy(was));
        if (legal(m, r, nr, ho, sg)) isl_aff_free(was);
        else { isl_aff_free(ho[stay]); ho[stay] = was; }
    }
    if (moved && kept > 0) return 1;
    for (int s = 0; s < m->nst; s++) isl_aff_free(ho[s]);
    return 0;
}

/* The allocations tried under one θ, in order: the loop dimensions of the schedule after the
 * prefix (the outermost first, so that the loops inside keep the source's order), the loop
 * variables (outermost first), the dimensions in the prefix, then 0.  Up to two legal ones are
 * proposed. */
static void propose_for(const xf_model *m, const xf_rawdep *r, int nr, const flat *F, int q,
                        isl_aff **th, plist *P)
{
    enum { DIM, VAR, ZERO };
    int kind[2 * MAXDIM + 1], which[2 * MAXDIM + 1], no = 0, found = 0, maxv = 0;
    for (int s = 0; s < m->nst; s++) if (m->st[s].nvars > maxv) maxv = m->st[s].nvars;
    for (int d = q; d < F->nd; d++) if (!F->scalar[d]) { kind[no] = DIM; which[no++] = d; }
    for (int k = 0; k < maxv && k < MAXDIM; k++) { kind[no] = VAR; which[no++] = k; }
    for (int d = 0; d < q && d < F->nd; d++) if (!F->scalar[d]) { kind[no] = DIM; which[no++] = d; }
    kind[no] = ZERO;
    which[no++] = 0;
    for (int k = 0; k < no && found < 2 && !xf_cancelled(); k++) {
        isl_aff *sg[MAXST];
        for (int s = 0; s < m->nst; s++)
            sg[s] = kind[k] == DIM ? dim_of(m, F, s, which[k]) : kind[k] == VAR ? var_of(m, s, which[k]) : zero_on(m, s);
        if (legal(m, r, nr, th, sg)) {
            positive(m, sg);
            plist_add(P, th, sg);
            found++;
            isl_aff *ho[MAXST];
            if (hoist(m, r, nr, th, sg, ho)) {
                plist_add(P, ho, sg);
                for (int s = 0; s < m->nst; s++) isl_aff_free(ho[s]);
            }
        }
        if (xf_stm_align_owners(m, sg) && legal(m, r, nr, th, sg)) {   /* besides: it keeps locality */
            positive(m, sg);
            plist_add(P, th, sg);
        }
        for (int s = 0; s < m->nst; s++) isl_aff_free(sg[s]);
        if (kind[k] == ZERO && found) break;
    }
}

/* Every prefix of the schedule `um` as θ (its statements' ranks as they are, and merged into
 * levels), each with its allocations. */
static void propose_from(const xf_model *m, const xf_rawdep *r, int nr, __isl_take isl_union_map *um, plist *P)
{
    flat F;
    if (!um || flat_from_umap(m, um, &F) != 0) return;
    unsigned char dep[MAXST * MAXST] = {0};
    for (int i = 0; i < nr; i++) dep[r[i].src * m->nst + r[i].sink] = 1;
    char *seen[2 * (MAXDIM + 1)];
    int nseen = 0;
    for (int q = 0; q <= F.nd && !xf_cancelled(); q++) {
        if (q > 0 && F.scalar[q - 1] && (q == F.nd || F.scalar[q])) continue;   /* the same θ as with q+1 */
        for (int merged = 0; merged < 2; merged++) {
            isl_aff *th[MAXST] = {0};
            if (prefix_theta(m, &F, q, merged ? dep : NULL, th) != 0) continue;
            char *key = args_text(m, th, th, 0);   /* θ alone, to skip one already tried */
            int dup = !key;
            for (int i = 0; i < nseen && !dup; i++) dup = !strcmp(seen[i], key);
            if (!dup) {
                propose_for(m, r, nr, &F, q, th, P);
                seen[nseen++] = key;
            } else {
                free(key);
            }
            for (int s = 0; s < m->nst; s++) isl_aff_free(th[s]);
        }
    }
    for (int i = 0; i < nseen; i++) free(seen[i]);
    flat_free(&F);
}

/* isl's schedule of the statements under the dependences: validity (they must go forward),
 * proximity (keep them short) and coincidence (prefer dimensions along which they have distance
 * 0: parallel ones). */
static __isl_give isl_union_map *computed_schedule(const xf_model *m, const xf_rawdep *r, int nr)
{
    isl_union_set *dom = isl_union_set_empty(isl_space_params_alloc(m->ctx, 0));
    for (int s = 0; s < m->nst; s++) dom = isl_union_set_add_set(dom, xf_model_domain(m, s));
    isl_union_map *dep = isl_union_map_empty(isl_space_params_alloc(m->ctx, 0));
    for (int i = 0; i < nr; i++) dep = isl_union_map_add_map(dep, isl_map_copy(r[i].rel));
    isl_schedule_constraints *sc = isl_schedule_constraints_on_domain(dom);
    sc = isl_schedule_constraints_set_context(sc, xf_model_context(m));
    sc = isl_schedule_constraints_set_validity(sc, isl_union_map_copy(dep));
    sc = isl_schedule_constraints_set_proximity(sc, isl_union_map_copy(dep));
    sc = isl_schedule_constraints_set_coincidence(sc, dep);
    isl_schedule *sched = isl_schedule_constraints_compute_schedule(sc);
    isl_union_map *um = sched ? isl_schedule_get_map(sched) : NULL;
    isl_schedule_free(sched);
    if (um && getenv("STM_AUTO_DEBUG")) {
        char *t = isl_union_map_to_str(um);
        fprintf(stderr, "isl schedule: %s\n", t);
        free(t);
    }
    return um;
}

/* ---- phases: each top-level loop nest mapped on its own, the nests one after another ---------- */

/* The model of the source's top-level statement g alone (its statements keep their labels), with
 * its dependences; NULL when it cannot be built. */
static xf_model *phase_model(const xf_model *m, int g, xf_rawdep **r, int *nr)
{
    ir_program *sub = ir_program_clone(m->prog);
    sub->body->stmts[0] = sub->body->stmts[g];
    sub->body->n = 1;
    diag_list d = {0};
    xf_model *pm = NULL;
    if (ir_check(sub, &d) == 0) pm = xf_model_build(sub, NULL, 0, 0, &d);
    if (pm && xf_model_deps(pm, r, nr, &d) != 0) {
        xf_model_free(pm);
        pm = NULL;
    }
    diag_list_free(&d);
    if (!pm) ir_program_free(sub);
    return pm;
}

/* Statement s's label, as stm's arguments name it. */
static const char *label_of(const xf_model *m, int s)
{
    return m->st[s].assign->u.assign.label ? m->st[s].assign->u.assign.label : m->st[s].name;
}

/* Reads stm arguments (theta=, sigma=, theta.L=, sigma.L=) for the statements of m with in[s]
 * into th[s], sg[s] (affine functions on m's statements); -1 when one is missing or not affine. */
static int read_args(const xf_model *m, const char *args, const int *in, isl_aff **th, isl_aff **sg)
{
    char *w = xstrdup(args), *save = NULL;
    for (char *tok = strtok_r(w, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        int sig = !strncmp(tok, "sigma", 5);
        if (!sig && strncmp(tok, "theta", 5)) continue;
        char *eq = strchr(tok, '=');
        if (!eq) continue;
        *eq = '\0';
        const char *lab = tok[5] == '.' ? tok + 6 : NULL;
        for (int s = 0; s < m->nst; s++) {
            if (!in[s] || (lab && strcmp(lab, label_of(m, s)))) continue;
            isl_aff **slot = sig ? &sg[s] : &th[s];
            isl_aff_free(*slot);
            *slot = param_aff_on(m, s, eq + 1);
        }
    }
    free(w);
    int ok = 1;
    for (int s = 0; s < m->nst; s++) ok &= !in[s] || (th[s] && sg[s]);
    return ok ? 0 : -1;
}

/* Phases: a program that is a sequence of loop nests whose best mappings differ (ludcmp's
 * factorisation on a wavefront over its columns, then its two substitutions one row per step):
 * each nest's best mapping from its own schedules (its own model: the statements of the other
 * nests out of sight), the nests placed one after another in time as in prefix_theta, the whole
 * checked as one mapping (the data the next phase reads elsewhere travels as messages).  With
 * `follow`, the later phases' statements that read the earlier ones' data move to it
 * (xf_stm_align_reads), and the mapping is proposed only where one did. */
static void propose_phases(const xf_model *m, const xf_rawdep *r, int nr, plist *P, int follow)
{
    int G = m->prog->body->n;
    if (G < 2 || G > MAXST) return;
    isl_aff *th[MAXST] = {0}, *sg[MAXST] = {0};
    int ok = 1, grp[MAXST] = {0}, moved = 0;
    for (int s = 0; s < m->nst; s++) {
        grp[s] = -1;
        for (int g = 0; g < G; g++)
            if (m->st[s].frames[0].node == m->prog->body->stmts[g]) grp[s] = g;
        ok &= grp[s] >= 0;
    }
    if (ok && follow && !xf_stm_may_follow(m, grp)) return;   /* no phase could move: not composed again */
    for (int g = 0; g < G && ok && !xf_cancelled(); g++) {
        xf_rawdep *pr = NULL;
        int npr = 0, in[MAXST];
        for (int s = 0; s < m->nst; s++) in[s] = grp[s] == g;
        xf_model *pm = phase_model(m, g, &pr, &npr);
        xf_stm_cand *c = NULL;
        int nc = pm ? xf_stm_isl_proposals(pm, pr, npr, 1, &c) : 0;
        ok = nc > 0 && read_args(m, c[0].args, in, th, sg) == 0;
        if (getenv("STM_AUTO_DEBUG")) fprintf(stderr, "phase %d: %s\n", g, nc > 0 ? c[0].args : "no mapping");
        for (int i = 0; i < nc; i++) free(c[i].args);
        free(c);
        if (pm) {
            const ir_program *sub = pm->prog;
            xf_rawdeps_free(pr, npr);
            xf_model_free(pm);
            ir_program_free((ir_program *)sub);
        }
        if (ok && follow && g > 0) moved += xf_stm_align_reads(m, grp, g, th, sg);
        if (ok && g > 0) {   /* nest g after nest g-1 */
            int prev[MAXST];
            for (int s = 0; s < m->nst; s++) prev[s] = grp[s] == g - 1;
            isl_pw_aff *hi = extreme_over(m, th, prev, 1), *lo = extreme_over(m, th, in, 0);
            ok = shift_by(m, th, in, isl_pw_aff_add_constant_val(isl_pw_aff_sub(hi, lo), isl_val_one(m->ctx))) == 0;
        }
    }
    if (ok) {
        int all[MAXST];
        for (int s = 0; s < m->nst; s++) all[s] = 1;
        ok = shift_by(m, th, all, isl_pw_aff_neg(extreme_over(m, th, all, 0))) == 0;
    }
    int lg = ok && (!follow || moved) && legal(m, r, nr, th, sg);
    if (getenv("STM_AUTO_DEBUG"))
        fprintf(stderr, "phases%s: %s\n", follow ? " following the reads" : "", lg ? "legal" : ok ? "illegal or the same" : "not composed");
    if (lg) {
        positive(m, sg);
        if (plist_add(P, th, sg)) P->c[P->n - 1].follows = follow;
    }
    for (int s = 0; s < m->nst; s++) { isl_aff_free(th[s]); isl_aff_free(sg[s]); }
}

int xf_stm_cand_cmp(const void *x, const void *y)
{
    const xf_stm_cand *a = x, *b = y;
    if ((a->width > 1) != (b->width > 1)) return a->width > 1 ? -1 : 1;
    if (a->local != b->local) return a->local ? -1 : 1;
    long long ea = a->steps * a->work, eb = b->steps * b->work;
    if (ea != eb) return ea < eb ? -1 : 1;
    if (a->steps != b->steps) return a->steps < b->steps ? -1 : 1;
    if (a->procs != b->procs) return a->procs < b->procs ? -1 : 1;
    if (a->cost != b->cost) return a->cost - b->cost;
    return strcmp(a->args, b->args);
}

int xf_stm_keep(xf_stm_cand *c, int n, int max)
{
    int kept = 0, extra = 0;
    for (int i = 0; i < n; i++) {
        if (i < max || (c[i].follows && extra < FOLLOWS_EXTRA && ++extra)) c[kept++] = c[i];
        else free(c[i].args);
    }
    return kept;
}

int xf_stm_isl_proposals(const xf_model *m, const xf_rawdep *r, int nr, int max, xf_stm_cand **out)
{
    plist P = {m, NULL, 0, 0};
    if (m->nst <= MAXST) {
        propose_from(m, r, nr, xf_model_schedule(m), &P);
        if (!xf_cancelled()) propose_from(m, r, nr, computed_schedule(m, r, nr), &P);
    }
    int busy = 0;   /* a mapping that keeps several processors busy */
    for (int i = 0; i < P.n; i++) busy |= P.c[i].width > 1;
    if (!busy && m->nst <= MAXST && !xf_cancelled()) propose_phases(m, r, nr, &P, 0);
    if (m->nst <= MAXST && !xf_cancelled()) propose_phases(m, r, nr, &P, 1);
    if (P.n) qsort(P.c, (size_t)P.n, sizeof *P.c, xf_stm_cand_cmp);
    /* one busy processor per step (σ a function of θ, or 0) only when nothing better exists */
    if (P.n && P.c[0].width > 1 && max > 0)
        for (int i = 1; i < max && i < P.n; i++)
            if (P.c[i].width <= 1) max = i;
    int n = xf_stm_keep(P.c, P.n, max);
    *out = P.c;
    return n;
}

/* The mapping (θ, σ given as isl text over each statement's loop variables and the parameters)
 * with θ shifted to start at 0 for every parameter value (by its parametric minimum), as stm's
 * arguments; NULL when a function has no text or the minimum is not one affine function. */
char *xf_stm_rebase(const xf_model *m, const char *const *theta, const char *const *sigma, int inner)
{
    if (m->nst > MAXST || m->nst < 1) return NULL;
    isl_aff *th[MAXST], *sg[MAXST];
    int ok = 1, all[MAXST];
    for (int s = 0; s < m->nst; s++) {
        th[s] = param_aff_on(m, s, theta[s]);
        sg[s] = param_aff_on(m, s, sigma[s]);
        ok &= th[s] && sg[s];
        all[s] = 1;
    }
    ok = ok && shift_by(m, th, all, isl_pw_aff_neg(extreme_over(m, th, all, 0))) == 0;
    char *r = ok ? args_text(m, th, sg, inner) : NULL;
    for (int s = 0; s < m->nst; s++) {
        isl_aff_free(th[s]);
        isl_aff_free(sg[s]);
    }
    return r;
}

/* ---- sizes at the parameter values ---------------------------------------------------------- */

/* The value of a bounded set's dimension d at its minimum or maximum (the parameters fixed). */
static long long dim_extreme(__isl_keep isl_set *set, int d, int max, long long dflt)
{
    isl_aff *x = isl_aff_var_on_domain(isl_local_space_from_space(isl_set_get_space(set)), isl_dim_set, d);
    isl_val *v = max ? isl_set_max_val(set, x) : isl_set_min_val(set, x);
    isl_aff_free(x);
    long long r = v && isl_val_is_int(v) ? isl_val_get_num_si(v) : dflt;
    isl_val_free(v);
    return r;
}

/* The number of points of a bounded set (the parameters fixed): counted when its bounding box is
 * small, else the box's volume (an estimate: the sizes rank candidates, they decide nothing). */
long long xf_count_points(__isl_take isl_set *set)
{
    isl_size n = isl_set_dim(set, isl_dim_set);
    double vol = 1;
    for (int d = 0; d < n; d++) {
        long long lo = dim_extreme(set, d, 0, 0), hi = dim_extreme(set, d, 1, -1);
        vol *= hi >= lo ? (double)(hi - lo + 1) : 0;
    }
    long long r;
    if (vol <= COUNT_EXACT_MAX) {
        isl_val *v = isl_set_count_val(set);
        r = v && isl_val_is_int(v) ? isl_val_get_num_si(v) : 1;
        isl_val_free(v);
    } else {
        r = (long long)vol;
    }
    isl_set_free(set);
    return r > 0 ? r : 1;
}

/* The parameters fixed to the model's values. */
static __isl_give isl_set *fixed_params(const xf_model *m)
{
    strbuf b = {0};
    strbuf_printf(&b, "%s -> { : ", m->params);
    for (int i = 0; i < m->npnames; i++)
        strbuf_printf(&b, "%s%s = %lld", i ? " and " : "", m->pnames[i], (long long)m->pvalues[i]);
    strbuf_printf(&b, " }");
    isl_set *r = isl_set_read_from_str(m->ctx, b.s);
    strbuf_free(&b);
    return r;
}

int xf_stm_measure(const xf_model *m, __isl_keep isl_map *const *st, xf_stm_size *out)
{
    long long lo[3] = {1LL << 60, 1LL << 60, 1LL << 60}, hi[3] = {-(1LL << 60), -(1LL << 60), -(1LL << 60)};
    long long work = 1;
    isl_set *fix = fixed_params(m), *all = NULL;
    int nd = 0;
    for (int s = 0; s < m->nst && !xf_cancelled(); s++) {
        isl_set *dom = isl_set_intersect_params(xf_model_domain(m, s), isl_set_copy(fix));
        isl_set *img = isl_set_apply(isl_set_copy(dom), isl_map_copy(st[s]));
        if (isl_set_is_empty(dom) == isl_bool_true) {
            isl_set_free(dom);
            isl_set_free(img);
            continue;
        }
        nd = isl_set_dim(img, isl_dim_set);
        for (int d = 0; d < nd && d < 3; d++) {
            long long a = dim_extreme(img, d, 0, 0), b = dim_extreme(img, d, 1, 0);
            if (a < lo[d]) lo[d] = a;
            if (b > hi[d]) hi[d] = b;
        }
        long long c = xf_count_points(dom), i = xf_count_points(isl_set_copy(img));
        if ((c + i - 1) / i > work) work = (c + i - 1) / i;
        all = all ? isl_set_union(all, img) : img;
    }
    isl_set_free(fix);
    long long points = all ? xf_count_points(all) : 1;
    out->local = 1;
    for (int s = 0; s < m->nst; s++)
        if (m->st[s].nvars >= 2 && isl_map_involves_dims(st[s], isl_dim_in, (unsigned)m->st[s].nvars - 1, 1) != isl_bool_false)
            out->local = 0;
    if (nd < 1 || hi[0] < lo[0]) return -1;
    out->steps = hi[0] - lo[0] + 1;
    out->procs = 1;
    for (int d = 1; d < nd && d < 3; d++) out->procs *= hi[d] - lo[d] + 1;
    out->work = work;
    out->width = (points + out->steps - 1) / out->steps;
    return xf_cancelled() ? -1 : 0;
}
