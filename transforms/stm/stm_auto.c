/*
 * stm_auto.c — `stm auto`: proposes legal space-time mappings, as LooPo proposed them to the
 * thesis's author.  Two sources, merged and ranked (xf_stm_cand_cmp): the mappings derived from
 * multi-dimensional schedules (stm_isl.c: the source's order and isl's scheduler), and a bounded
 * enumeration at the program's parameter values (or the -D overrides):
 *   1. per statement, schedule vectors c (coefficients -2..2 over its loop variables) such that
 *      every dependence of the statement on itself goes forward: min over the dependence of
 *      c·(sink - source) >= 1 (isl computes the minimum);
 *   2. per pair of statements with dependences between them and per pair of vectors, the
 *      minimum m of c_b·y - c_a·x over the dependences a -> b, so that the constants must
 *      satisfy k_b - k_a >= 1 - m;
 *   3. every combination of vectors and relative constants (-3..3) that satisfies these
 *      difference constraints, scored by its number of time steps (max θ - min θ + 1);
 *   4. per statement an allocation vector (coefficients -2..2, constant 0) linearly independent
 *      of its schedule vector (so that (θ, σ) is injective for two loop variables; with more,
 *      the remaining instances run in inner sequential loops: inner=seq), scored by the number
 *      of processors of the union of the allocations.
 * The enumeration's candidates are legal at the parameter values used; each one listed (from
 * either source) is also accepted by the ordinary stm (legal for every parameter value, its step
 * nest generated), its θ shifted to start at 0 by its parametric minimum, and measured as stm
 * reads it; `pick=K` then applies the K-th.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <isl/aff.h>
#include <isl/ilp.h>
#include <isl/val.h>

#include "stm_int.h"
#include "entries_int.h"

enum { MAXV = 4, CMIN = -2, CMAX = 2, WIDE_OUTER = 4, KMAX = 3, MAXSTMT = 6, KEEP = 400,
       MAXTRIES = 3 };
/* Each search after the first stops enumerating after this many steps of its loops (a count, not a time: the
 * candidates must not depend on how busy the machine is). */
enum { STAGE_BUDGET_STEPS = 200000 };
/* Each search computes at most this many minima with isl (about 0.2 ms each); one that would
 * need more (heat-3d: four loops around each statement, 625 vectors, 390,000 pairs; fdtd-2d:
 * four statements, 12,000) is not run, nor are the searches after it: the mappings from the
 * schedules (stm_isl.c) stand alone. */
enum { SEARCH_MINIMA = 10000 };
/* The searches after the first (wider coefficients, distance-0 self-dependences) run only when
 * the schedules gave fewer than this many mappings that keep several processors busy (explore
 * tries the best four). */
enum { FALLBACK_BELOW = 4 };
/* stm's check and code generation of one candidate may use this many isl operations (a count,
 * as above); a mapping whose step nest isl builds only slowly (a wavefront with a skewed
 * allocation: the hull of its image) is not proposed. */
#define STM_MAX_OPERATIONS 2000000UL

typedef struct vec {
    int c[MAXV];
    long long lo, hi;          /* c·x ranges over [lo, hi] */
    int zero;                  /* a schedule vector with self-dependences at distance 0 */
} vec;

typedef struct sinfo {
    int nv;
    vec *th;                   /* legal schedule vectors */
    int nth;
    vec *sg;                   /* allocation vectors (and the zero vector, last), by simplicity */
    int nsg;
    signed char *keeps;        /* [ith * nsg + isg]: 1 = sg keeps th's distance-0 dependences on
                                * one processor, -1 = it does not, 0 = not yet known */
    long long *work;           /* [ith * nsg + isg]: instances per (t, p) point, 0 = not yet known */
    long long count;           /* instances of the statement, 0 = not yet known */
} sinfo;

/* A proposal and its estimated length: steps times the most instances one point runs. */
typedef struct prop { xf_stm_cand c; long long est; } prop;

typedef struct pairc { int a, b; long long *m; } pairc;   /* m[ia * nth_b + ib]; LLONG_MIN = none */

typedef struct cand { int th[MAXSTMT]; long long k[MAXSTMT]; long long steps; int cost; } cand;

/* One enumeration: its coefficient ranges, whether distance-0 self-dependences are allowed, its
 * deadline (0 = none), and what the steps share. */
typedef struct search {
    xf_stm_session *ss;        /* stm on the symbolic model, to check and measure proposals */
    xf_model *m;
    int ns;
    isl_set *pd[MAXSTMT][MAXSTMT];   /* dependences per (source, sink), wrapped; borrowed */
    int cmin[MAXV], cmax[MAXV];
    int allow_zero;
    long budget, steps;           /* loop steps allowed (0: no limit) and taken */
    long ilps, ilp_budget;        /* isl minima computed, and allowed */
    int too_big;                  /* 1: the search needs more minima than allowed (not run) */
    sinfo si[MAXSTMT];
    pairc pc[MAXSTMT * MAXSTMT];
    int npc;
} search;

static char *lin(const int *c, int nv, const char *pre)
{
    strbuf b = {0};
    for (int i = 0; i < nv; i++)
        if (c[i]) strbuf_printf(&b, "%s%d*%s%d", b.n ? " + " : "", c[i], pre, i);
    if (!b.n) strbuf_printf(&b, "0");
    return strbuf_take(&b);
}

static __isl_give isl_val *extreme(const xf_model *m, __isl_keep isl_set *set, const char *space,
                                   const char *f, int max)
{
    char *t = xasprintf("%s -> { %s -> [(%s)] }", m->params, space, f);
    isl_aff *aff = isl_aff_read_from_str(m->ctx, t);
    free(t);
    isl_val *v = max ? isl_set_max_val(set, aff) : isl_set_min_val(set, aff);
    isl_aff_free(aff);
    return v;
}

static long long val_ll(__isl_take isl_val *v, long long inf)
{
    long long r = v && isl_val_is_int(v) ? isl_val_get_num_si(v) : inf;
    isl_val_free(v);
    return r;
}

/* "S[a0, a1]" */
static char *tup(const xf_stmt *st, const char *pre)
{
    strbuf b = {0};
    strbuf_printf(&b, "%s[", st->name);
    for (int i = 0; i < st->nvars; i++) strbuf_printf(&b, "%s%s%d", i ? ", " : "", pre, i);
    strbuf_printf(&b, "]");
    return strbuf_take(&b);
}

static void add_vec(vec **v, int *n, const int *c, long long lo, long long hi)
{
    *v = xrealloc(*v, (size_t)(*n + 1) * sizeof **v);
    memset(&(*v)[*n], 0, sizeof **v);
    memcpy((*v)[*n].c, c, MAXV * sizeof *c);
    (*v)[*n].lo = lo;
    (*v)[*n].hi = hi;
    (*n)++;
}

static int absum(const int *c, int nv) { int s = 0; for (int i = 0; i < nv; i++) s += abs(c[i]); return s; }

/* Iterates c over the search's box of coefficients; returns 0 when done. */
static int next_vec(const search *S, int *c, int nv)
{
    for (int i = nv - 1; i >= 0; i--) {
        if (c[i] < S->cmax[i]) { c[i]++; return 1; }
        c[i] = S->cmin[i];
    }
    return 0;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Should the enumeration stop (cancelled, or past the search's budget of steps)? */
static int stop(search *S)
{
    return xf_cancelled() || (S->budget > 0 && ++S->steps > S->budget) ||
           S->ilps > S->ilp_budget;
}

static void expr_text(strbuf *b, const xf_stmt *st, const int *c, long long k)
{
    size_t start = b->n;
    for (int i = 0; i < st->nvars; i++) {
        if (!c[i]) continue;
        int first = b->n == start;
        if (c[i] < 0) strbuf_printf(b, first ? "-" : "-");
        else if (!first) strbuf_printf(b, "+");
        if (abs(c[i]) != 1) strbuf_printf(b, "%d*", abs(c[i]));
        strbuf_printf(b, "%s", st->vars[i]);
    }
    if (k || b->n == start) strbuf_printf(b, b->n == start ? "%lld" : "%+lld", k);
}

/* The most words of a candidate's arguments: theta.L= and sigma.L= for each of stm_isl.c's 48
 * statements, theta=, sigma= and inner= (deriche's 47 statements took more than 64). */
enum { MAXWORDS = 2 * 48 + 8 };

/* Splits "a=b c=d" into words (in place). */
static int split(char *s, char **w, int max)
{
    int n = 0;
    for (char *t = strtok(s, " "); t && n < max; t = strtok(NULL, " ")) w[n++] = t;
    return n;
}

/* Does stm accept the candidate's arguments?  The enumeration is exact only at the parameter
 * values it used, and it does not build code; stm checks every parameter value and generates the
 * step nest, so a candidate is proposed only when stm would apply it.  Its size (steps,
 * processors, instances per point) is then measured as stm reads the arguments. */
static int accept_measure(xf_stm_session *ss, xf_stm_cand *c)
{
    if (!ss) return 0;
    char *txt = xstrdup(c->args);
    char *w[MAXWORDS];
    int nw = split(txt, w, MAXWORDS);
    diag_list d;
    diag_list_init(&d);
    xf_args a = {0};
    int status = XF_EREFUSED;
    if (xf_args_parse(&a, nw, w, &d) == 0) {   /* θ from 0 for every parameter value */
        char *rb = xf_stm_session_rebase(ss, &a);
        if (rb && strcmp(rb, c->args)) {
            xf_args_free(&a);
            memset(&a, 0, sizeof a);
            free(txt);
            free(c->args);
            c->args = rb;
            txt = xstrdup(rb);
            nw = split(txt, w, MAXWORDS);
        } else {
            free(rb);
        }
    }
    xf_args_free(&a);
    memset(&a, 0, sizeof a);
    const xf_rawdep *r;
    int nr;
    const xf_model *m = xf_stm_session_model(ss, &r, &nr);
    isl_ctx *ctx = m->ctx;
    /* a long program's check grows with its statements: more than 16 (deriche's 47), a share each */
    unsigned long ops = m->nst > 16 ? STM_MAX_OPERATIONS / 8 * (unsigned long)m->nst : STM_MAX_OPERATIONS;
    isl_ctx_reset_operations(ctx);
    isl_ctx_set_max_operations(ctx, getenv("STM_OPS") ? strtoul(getenv("STM_OPS"), 0, 10) : ops);
    if (xf_args_parse(&a, nw, w, &d) == 0) {
        ir_program *out = xf_stm_session_apply(ss, &a, &d, &status);
        ir_program_free(out);
    }
    if (isl_ctx_last_error(ctx) == isl_error_quota) status = XF_EREFUSED;
    isl_ctx_set_max_operations(ctx, 0);
    isl_ctx_reset_operations(ctx);
    isl_ctx_reset_error(ctx);
    xf_stm_size sz;
    if (status == XF_OK && xf_stm_session_measure(ss, &a, &sz) == 0) {
        c->steps = sz.steps;
        c->procs = sz.procs;
        c->work = sz.work;
        c->local = sz.local;
        c->width = sz.width;
    } else {
        status = XF_EREFUSED;
    }
    xf_args_free(&a);
    diag_list_free(&d);
    free(txt);
    return status == XF_OK;
}

static int cand_cmp(const void *x, const void *y)
{
    const xf_stm_cand *a = x, *b = y;
    if (a->steps != b->steps) return a->steps < b->steps ? -1 : 1;
    if (a->procs != b->procs) return a->procs < b->procs ? -1 : 1;
    return a->cost - b->cost;
}

static int tcand_cmp(const void *x, const void *y)
{
    const cand *a = x, *b = y;
    if (a->steps != b->steps) return a->steps < b->steps ? -1 : 1;
    return a->cost - b->cost;
}

/* 1. Per statement: the schedule vectors legal for its self-dependences (c·d >= 1 for every
 * distance d; with allow_zero c·d >= 0, the pairs at distance 0 then sharing a processor, see
 * keeps_on_proc), and the allocation vectors, the zero vector (one processor) last. */
static void statement_vectors(search *S, int s)
{
    const xf_model *m = S->m;
    const xf_stmt *st = &m->st[s];
    sinfo *si = &S->si[s];
    int nv = st->nvars;
    si->nv = nv;
    isl_set *dom = xf_model_domain(m, s);
    char *ta = tup(st, "a"), *tb = tup(st, "b");
    char *wsp = xasprintf("[%s -> %s]", ta, tb);
    int c[MAXV] = {0};
    for (int i = 0; i < nv; i++) c[i] = S->cmin[i];
    do {
        char *fa = lin(c, nv, "a");
        long long lo = val_ll(extreme(m, dom, ta, fa, 0), 0), hi = val_ll(extreme(m, dom, ta, fa, 1), 0);
        S->ilps += 3;
        long long dmin = 1;
        if (S->pd[s][s]) {
            char *fb = lin(c, nv, "b");
            char *f = xasprintf("(%s) - (%s)", fb, fa);
            dmin = val_ll(extreme(m, S->pd[s][s], wsp, f, 0), -1);
            free(fb);
            free(f);
        }
        if (dmin >= 1 || (S->allow_zero && dmin == 0)) {
            add_vec(&si->th, &si->nth, c, lo, hi);
            si->th[si->nth - 1].zero = dmin == 0;
        }
        if (absum(c, nv) > 0 || nv == 0) add_vec(&si->sg, &si->nsg, c, lo, hi);
        free(fa);
    } while (nv > 0 && !stop(S) && next_vec(S, c, nv));
    if (nv > 0) {
        int z[MAXV] = {0};
        add_vec(&si->sg, &si->nsg, z, 0, 0);
    }
    si->keeps = xcalloc((size_t)si->nth * (size_t)si->nsg + 1, 1);
    si->work = xcalloc((size_t)si->nth * (size_t)si->nsg + 1, sizeof *si->work);
    isl_set_free(dom);
    free(ta);
    free(tb);
    free(wsp);
}

/* Does allocation isg keep on one processor every pair of instances of statement s that the
 * schedule vector ith puts at one time step (they then run there in their original order,
 * inner=seq)?  The strict schedules have no such pair.  Memoised. */
static int keeps_on_proc(search *S, int s, int ith, int isg)
{
    sinfo *si = &S->si[s];
    signed char *known = &si->keeps[(size_t)ith * (size_t)si->nsg + (size_t)isg];
    if (*known) return *known > 0;
    int ok = 1;
    if (si->th[ith].zero && S->pd[s][s]) {
        const xf_stmt *st = &S->m->st[s];
        int nv = si->nv;
        char *ta = tup(st, "a"), *tb = tup(st, "b");
        char *fa = lin(si->th[ith].c, nv, "a"), *fb = lin(si->th[ith].c, nv, "b");
        char *ga = lin(si->sg[isg].c, nv, "a"), *gb = lin(si->sg[isg].c, nv, "b");
        char *t = xasprintf("%s -> { [%s -> %s] : (%s) - (%s) = 0 and ((%s) - (%s) >= 1 or (%s) - (%s) <= -1) }",
                              S->m->params, ta, tb, fb, fa, gb, ga, gb, ga);
        isl_set *bad = isl_set_read_from_str(S->m->ctx, t);
        bad = isl_set_intersect(bad, isl_set_copy(S->pd[s][s]));
        ok = isl_set_is_empty(bad) == isl_bool_true;
        isl_set_free(bad);
        free(t);
        free(ta);
        free(tb);
        free(fa);
        free(fb);
        free(ga);
        free(gb);
    }
    *known = ok ? 1 : -1;
    return ok;
}

/* How many instances of statement s run at one (t, p) point under schedule ith and allocation
 * isg (in the inner sequential loops), on average: 1 when (θ, σ) is injective.  Memoised. */
static long long work_per_point(search *S, int s, int ith, int isg)
{
    sinfo *si = &S->si[s];
    if (si->nv <= 2 && !si->th[ith].zero) return 1;
    long long *known = &si->work[(size_t)ith * (size_t)si->nsg + (size_t)isg];
    if (*known) return *known;
    const xf_stmt *st = &S->m->st[s];
    if (!si->count) si->count = xf_count_points(xf_model_domain(S->m, s));
    char *ta = tup(st, "a");
    char *fa = lin(si->th[ith].c, si->nv, "a"), *ga = lin(si->sg[isg].c, si->nv, "a");
    char *t = xasprintf("%s -> { %s -> [%s, %s] }", S->m->params, ta, fa, ga);
    isl_map *mp = isl_map_read_from_str(S->m->ctx, t);
    long long img = xf_count_points(isl_set_apply(xf_model_domain(S->m, s), mp));
    *known = (si->count + img - 1) / img;
    free(t);
    free(ta);
    free(fa);
    free(ga);
    return *known;
}

/* 2. Per pair of statements with dependences between them: the minima of c_b·y - c_a·x. */
static void pair_minima(search *S)
{
    for (int a = 0; a < S->ns; a++)
        for (int b = 0; b < S->ns; b++) {
            if (a == b || !S->pd[a][b]) continue;
            const sinfo *sa = &S->si[a], *sb = &S->si[b];
            pairc *q = &S->pc[S->npc++];
            q->a = a;
            q->b = b;
            size_t n = (size_t)sa->nth * (size_t)sb->nth + 1;
            q->m = xmalloc(n * sizeof *q->m);
            for (size_t i = 0; i < n; i++) q->m[i] = -(1LL << 40);   /* unknown: infeasible */
            char *ta = tup(&S->m->st[a], "a"), *tb = tup(&S->m->st[b], "b");
            char *wsp = xasprintf("[%s -> %s]", ta, tb);
            for (int ia = 0; ia < sa->nth && !stop(S); ia++)
                for (int ib = 0; ib < sb->nth && S->ilps <= S->ilp_budget; ib++) {
                    S->ilps++;
                    char *fa = lin(sa->th[ia].c, sa->nv, "a"), *fb = lin(sb->th[ib].c, sb->nv, "b");
                    char *f = xasprintf("(%s) - (%s)", fb, fa);
                    q->m[ia * sb->nth + ib] = val_ll(extreme(S->m, S->pd[a][b], wsp, f, 0), -(1LL << 40));
                    free(fa);
                    free(fb);
                    free(f);
                }
            free(ta);
            free(tb);
            free(wsp);
        }
}

/* Can some relative constants (k[0] = 0, the others in -KMAX..KMAX) meet every pair's
 * difference constraint k[b] - k[a] >= 1 - min under the schedule vectors idx?  A pair whose
 * bound lies beyond the constants' range rules them all out: combinations then skips the
 * constants' loop, which would find none (for 2mm most vector combinations, 5900 minima's worth). */
static int constants_possible(const search *S, const int *idx)
{
    for (int q = 0; q < S->npc; q++) {
        const pairc *pc = &S->pc[q];
        long long mm = pc->m[idx[pc->a] * S->si[pc->b].nth + idx[pc->b]];
        long long widest = pc->a == 0 || pc->b == 0 ? KMAX : 2 * KMAX;
        if (1 - mm > widest) return 0;
    }
    return 1;
}

/* The relative constants (k[0] = 0, the others in -KMAX..KMAX) that meet every pair's
 * difference constraint under the schedule vectors idx: each a candidate appended to *keep
 * (*nkeep of *cap), the list cut to the best KEEP by steps when it reaches 4 * KEEP. */
static void add_constants(const search *S, const int *idx, cand **keep, int *nkeep, int *cap)
{
    int ns = S->ns;
    long long k[MAXSTMT] = {0};
    int kk[MAXSTMT];
    for (int s = 1; s < ns; s++) kk[s] = -KMAX;
    for (;;) {
        for (int s = 1; s < ns; s++) k[s] = kk[s];
        int ok = 1;
        for (int q = 0; q < S->npc && ok; q++) {
            const pairc *pc = &S->pc[q];
            long long mm = pc->m[idx[pc->a] * S->si[pc->b].nth + idx[pc->b]];
            ok = k[pc->b] - k[pc->a] >= 1 - mm;
        }
        if (ok) {
            long long lo = 1LL << 60, hi = -(1LL << 60);
            int cost = 0;
            for (int s = 0; s < ns; s++) {
                const vec *v = &S->si[s].th[idx[s]];
                if (v->lo + k[s] < lo) lo = v->lo + k[s];
                if (v->hi + k[s] > hi) hi = v->hi + k[s];
                cost += absum(v->c, S->si[s].nv) + (int)llabs(k[s]);
            }
            if (*nkeep == *cap) {
                *cap = *cap ? 2 * *cap : 64;
                *keep = xrealloc(*keep, (size_t)*cap * sizeof **keep);
            }
            cand *c = &(*keep)[(*nkeep)++];
            memset(c, 0, sizeof *c);
            memcpy(c->th, idx, MAXSTMT * sizeof *idx);
            for (int s = 0; s < ns; s++) c->k[s] = k[s] - lo;   /* start at t = 0 */
            c->steps = hi - lo + 1;
            c->cost = cost;
            if (*nkeep >= 4 * KEEP) {   /* prune */
                qsort(*keep, (size_t)*nkeep, sizeof **keep, tcand_cmp);
                *nkeep = KEEP;
            }
        }
        int s = 1;
        while (s < ns && kk[s] == KMAX) kk[s++] = -KMAX;
        if (s >= ns) break;
        kk[s]++;
    }
}

/* 3. Combinations of schedule vectors and relative constants that satisfy the difference
 * constraints, the best KEEP by steps; returns their number, *out (caller frees) the list. */
static int combinations(search *S, cand **out)
{
    int ns = S->ns;
    cand *keep = NULL;
    int nkeep = 0, capkeep = 0;
    int idx[MAXSTMT] = {0};
    int any = 1;
    for (int s = 0; s < ns; s++) any &= S->si[s].nth > 0;
    while (any && !stop(S)) {
        if (constants_possible(S, idx)) add_constants(S, idx, &keep, &nkeep, &capkeep);
        int s = ns - 1;
        while (s >= 0 && idx[s] == S->si[s].nth - 1) idx[s--] = 0;
        if (s < 0) break;
        idx[s]++;
    }
    if (nkeep > 0) qsort(keep, (size_t)nkeep, sizeof *keep, tcand_cmp);
    if (nkeep > KEEP) nkeep = KEEP;
    *out = keep;
    return nkeep;
}

/* 4a. Statement s's allocation options under schedule c (indices into si.sg, at most 4): the
 * simplest vectors independent of its schedule vector (sum of |coefficients| 1, then 2); for a
 * schedule with distance-0 self-dependences only those that keep them on one processor, and
 * failing those the zero vector. */
static int allocation_options(search *S, int s, int ith, int *opt)
{
    const sinfo *si = &S->si[s];
    const int *th = si->th[ith].c;
    int nv = si->nv, n = 0;
    static const int wants[] = {1, 2, 0};
    for (int w = 0; w < 3 && n < 4; w++) {
        if (wants[w] == 0 && (n > 0 || !si->th[ith].zero)) break;
        for (int g = 0; g < si->nsg && n < 4; g++) {
            const int *sg = si->sg[g].c;
            if (absum(sg, nv) != wants[w] && nv > 0) continue;
            int indep = nv <= 1 && wants[w] > 0;   /* else some 2x2 minor non-zero */
            for (int x = 0; x < nv; x++)
                for (int y = x + 1; y < nv; y++) indep |= th[x] * sg[y] - th[y] * sg[x] != 0;
            if (!indep && wants[w] > 0) continue;
            if (!keeps_on_proc(S, s, ith, g)) continue;
            opt[n++] = g;
        }
    }
    return n;
}

/* 4b. The best allocation for schedule c, as stm's argument text (NULL when a statement has
 * none). */
static int prop_cmp(const void *x, const void *y)
{
    const prop *a = x, *b = y;
    if (a->est != b->est) return a->est < b->est ? -1 : 1;
    return cand_cmp(&a->c, &b->c);
}

static prop best_allocation(search *S, const cand *c)
{
    int ns = S->ns;
    const xf_model *m = S->m;
    prop best = {{NULL, 0, 0, 0, 0, 0, 0, 0}, 0};
    int opts[MAXSTMT][4], nopt[MAXSTMT];
    int inner = 0;
    for (int s = 0; s < ns; s++) {
        nopt[s] = allocation_options(S, s, c->th[s], opts[s]);
        if (nopt[s] == 0) return best;
        inner |= m->st[s].nvars > 2 || S->si[s].th[c->th[s]].zero;
    }
    int o[MAXSTMT] = {0};
    for (;;) {
        long long lo = 1LL << 60, hi = -(1LL << 60);
        int cost = 10 * c->cost;
        long long work = 1;
        for (int s = 0; s < ns; s++) {
            /* the strict searches rank by steps, as before; the others by steps x work */
            long long w = S->allow_zero ? work_per_point(S, s, c->th[s], opts[s][o[s]]) : 1;
            if (w > work) work = w;
            const vec *v = &S->si[s].sg[opts[s][o[s]]];
            if (v->lo < lo) lo = v->lo;
            if (v->hi > hi) hi = v->hi;
            cost += 10 * absum(v->c, S->si[s].nv);
            for (int x = 0; x < S->si[s].nv; x++)
                cost += (v->c[x] < 0 ? 20 : 0) + (v->c[x] ? x : 0);   /* prefer p >= 0, outer loops */
        }
        /* the argument text; one theta=/sigma= when all statements agree */
        strbuf tx[MAXSTMT] = {{0}}, sx[MAXSTMT] = {{0}};
        int same = 1;
        for (int s = 0; s < ns; s++) {
            expr_text(&tx[s], &m->st[s], S->si[s].th[c->th[s]].c, c->k[s]);
            expr_text(&sx[s], &m->st[s], S->si[s].sg[opts[s][o[s]]].c, 0);
            if (s && (strcmp(tx[s].s, tx[0].s) || strcmp(sx[s].s, sx[0].s) ||
                      m->st[s].nvars != m->st[0].nvars))
                same = 0;
        }
        strbuf a = {0};
        if (same) strbuf_printf(&a, "theta=%s sigma=%s", tx[0].s ? tx[0].s : "", sx[0].s ? sx[0].s : "");
        if (same) cost -= 10;   /* one mapping for all: the statements stay together */
        else
            for (int s = 0; s < ns; s++) {
                const char *lb = m->st[s].assign->u.assign.label ? m->st[s].assign->u.assign.label
                                                                 : m->st[s].name;
                strbuf_printf(&a, "%stheta.%s=%s sigma.%s=%s", s ? " " : "", lb, tx[s].s, lb, sx[s].s);
            }
        if (inner) strbuf_printf(&a, " inner=seq");
        for (int s = 0; s < ns; s++) { strbuf_free(&tx[s]); strbuf_free(&sx[s]); }
        prop x = {{strbuf_take(&a), c->steps, hi - lo + 1, cost, work, 0, 0, 0}, c->steps * work};
        if (!best.c.args || prop_cmp(&x, &best) < 0) {
            free(best.c.args);
            best = x;
        } else {
            free(x.c.args);
        }
        int s = ns - 1;
        while (s >= 0 && o[s] == nopt[s] - 1) o[s--] = 0;
        if (s < 0) break;
        o[s]++;
    }
    return best;
}

/* Steps 1 to 4 of one search, then the distinct proposals stm accepts (at most max, a bounded
 * number of tries); returns their number, *out (caller frees) the list. */
static int run_search(search *S, int max, xf_stm_cand **out)
{
    for (int s = 0; s < S->ns; s++) statement_vectors(S, s);
    long need = 0;   /* the minima pair_minima would compute */
    for (int a = 0; a < S->ns; a++)
        for (int b = 0; b < S->ns; b++)
            if (a != b && S->pd[a][b]) need += (long)S->si[a].nth * S->si[b].nth;
    if (S->ilps + need > S->ilp_budget) {
        S->too_big = 1;
        *out = NULL;
        return 0;
    }
    pair_minima(S);
    cand *keep = NULL;
    int nkeep = combinations(S, &keep);
    S->budget = 0;   /* the rest is bounded: KEEP schedules, MAXTRIES * max stm runs */
    prop *pr = NULL;
    int nres = 0;
    for (int ci = 0; ci < nkeep && !xf_cancelled(); ci++) {
        prop best = best_allocation(S, &keep[ci]);
        if (!best.c.args) continue;
        pr = xrealloc(pr, (size_t)(nres + 1) * sizeof *pr);
        pr[nres++] = best;   /* one proposal per schedule: its best allocation */
    }
    free(keep);
    if (nres > 0) qsort(pr, (size_t)nres, sizeof *pr, prop_cmp);
    xf_stm_cand *res = xmalloc((size_t)nres * sizeof *res + 1);
    for (int i = 0; i < nres; i++) res[i] = pr[i].c;
    free(pr);
    int n = 0, tries = 0;
    for (int i = 0; i < nres; i++) {
        int dup = 0;
        for (int j = 0; j < n && !dup; j++) dup = !strcmp(res[j].args, res[i].args);
        if (dup || n >= max || tries >= MAXTRIES * max || xf_cancelled() ||
            (tries++, !accept_measure(S->ss, &res[i])))
            free(res[i].args);
        else
            res[n++] = res[i];
    }
    *out = res;
    return n;
}

static void search_free(search *S)
{
    for (int q = 0; q < S->npc; q++) free(S->pc[q].m);
    for (int s = 0; s < S->ns; s++) {
        free(S->si[s].th);
        free(S->si[s].sg);
        free(S->si[s].keeps);
        free(S->si[s].work);
    }
}

/* The searches, tried in order until one finds a mapping: strict schedules with coefficients in
 * -2..2 (each time step runs one instance per processor, as far as the loops allow); the same
 * with a wider range for the outermost loop variable (wavefronts such as 4*t+2*i+j), within a
 * time budget; then both again with schedules that leave self-dependences at distance 0 on one
 * processor (reductions, in-place sweeps: inner=seq), ranked by steps times the instances one
 * (t, p) point runs. */
static const struct { int allow_zero, wide; } stages[] = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};

/* The enumeration (stages in order until one finds a mapping); its candidates accepted by stm
 * and measured.  Returns their number (0 when the program is beyond its limits: why in *why). */
static int enumerate(const ir_program *p, const ir_binding *ov, int nov, xf_stm_session *ss, int max,
                     int strict_only, xf_stm_cand **out, char **why, diag_list *d)
{
    *out = NULL;
    xf_model *m = xf_model_build(p, ov, nov, 1, d);
    if (!m) return -1;
    int ns = m->nst;
    if (ns == 0 || ns > MAXSTMT)
        *why = xasprintf("the enumeration handles 1 to %d statements (this program has %d)", MAXSTMT, ns);
    for (int s = 0; s < ns && !*why; s++)
        if (m->st[s].nvars > MAXV)
            *why = xasprintf("the enumeration handles up to %d loops around a statement", MAXV);
    if (*why) {
        xf_model_free(m);
        return 0;
    }
    xf_rawdep *r = NULL;
    int nr = 0;
    xf_model_deps(m, &r, &nr, d);
    /* dependences united per (source, sink) pair, wrapped */
    isl_set *pd[MAXSTMT][MAXSTMT] = {{0}};
    for (int i = 0; i < nr; i++) {
        isl_set *w = isl_map_wrap(isl_map_copy(r[i].rel));
        isl_set **slot = &pd[r[i].src][r[i].sink];
        *slot = *slot ? isl_set_union(*slot, w) : w;
    }
    xf_rawdeps_free(r, nr);

    xf_stm_cand *res = NULL;
    int n = 0;
    size_t nstages = strict_only ? 1 : sizeof stages / sizeof *stages;
    for (size_t g = 0; g < nstages && n == 0 && !xf_cancelled(); g++) {
        search *S = xcalloc(1, sizeof *S);
        S->ss = ss;
        S->m = m;
        S->ns = ns;
        memcpy(S->pd, pd, sizeof pd);
        for (int i = 0; i < MAXV; i++) {
            S->cmin[i] = stages[g].wide && i == 0 ? 0 : CMIN;
            S->cmax[i] = stages[g].wide && i == 0 ? WIDE_OUTER : CMAX;
        }
        S->allow_zero = stages[g].allow_zero;
        S->budget = g == 0 ? 0 : STAGE_BUDGET_STEPS;   /* the first, strict search runs to its end */
        S->ilp_budget = SEARCH_MINIMA;
        free(res);
        res = NULL;
        double t0 = now_ms();
        n = run_search(S, max, &res);
        if (getenv("STM_AUTO_DEBUG")) fprintf(stderr, "stage %zu: %d in %.0f ms, %ld steps, %ld minima\n", g, n, now_ms() - t0, S->steps, S->ilps);
        if (S->too_big) g = nstages;
        search_free(S);
        free(S);
    }
    for (int s = 0; s < ns; s++)
        for (int t = 0; t < ns; t++) isl_set_free(pd[s][t]);
    xf_model_free(m);
    *out = res;
    return n;
}

/* The mappings from the multi-dimensional schedules (stm_isl.c) that stm accepts, in order. */
static int from_schedules(xf_stm_session *ss, int max, xf_stm_cand **out)
{
    const xf_rawdep *r;
    int nr;
    const xf_model *m = xf_stm_session_model(ss, &r, &nr);
    xf_stm_cand *res = NULL;
    int na = xf_stm_isl_proposals(m, r, nr, max, &res);
    int n = 0;
    for (int i = 0; i < na; i++) {
        double t0 = now_ms();
        int ok = !xf_cancelled() && accept_measure(ss, &res[i]);
        if (getenv("STM_AUTO_DEBUG")) fprintf(stderr, "  stm %s: %s in %.0f ms\n", res[i].args, ok ? "accepted" : "refused", now_ms() - t0);
        if (ok) res[n++] = res[i];
        else free(res[i].args);
    }
    *out = res;
    return n;
}

int xf_stm_candidates(const ir_program *p, const ir_binding *ov, int nov, int max,
                      xf_stm_cand **out, diag_list *d)
{
    *out = NULL;
    if (p->level != IR_SOURCE) {
        diag_add(d, p->file, 0, 0, "stm auto maps a source program (this one is at level %s)",
                 ir_level_name(p->level));
        return -1;
    }
    xf_stm_session *ss = xf_stm_session_new(p, ov, nov, d);
    if (!ss) return -1;
    double t0 = now_ms();
    xf_stm_cand *a = NULL, *b = NULL;
    int na = from_schedules(ss, max, &a);
    if (getenv("STM_AUTO_DEBUG")) fprintf(stderr, "schedules: %d in %.0f ms\n", na, now_ms() - t0);
    char *why = NULL;
    int par = 0;   /* mappings from the schedules that keep several processors busy */
    for (int i = 0; i < na; i++) par += a[i].width > 1;
    int nb = xf_cancelled() ? 0 : enumerate(p, ov, nov, ss, max, par >= FALLBACK_BELOW, &b, &why, d);
    xf_stm_session_free(ss);
    if (nb < 0) nb = 0;
    xf_stm_cand *res = xcalloc((size_t)(na + nb) + 1, sizeof *res);
    if (na) memcpy(res, a, (size_t)na * sizeof *a);
    if (nb) memcpy(res + na, b, (size_t)nb * sizeof *b);
    free(a);
    free(b);
    int n = 0;
    qsort(res, (size_t)(na + nb), sizeof *res, xf_stm_cand_cmp);
    for (int i = 0; i < na + nb; i++) {
        int dup = 0;
        for (int j = 0; j < n && !dup; j++) dup = !strcmp(res[j].args, res[i].args);
        if (dup) free(res[i].args);
        else res[n++] = res[i];
    }
    n = xf_stm_keep(res, n, max);
    if (xf_cancelled()) {   /* an aborted search proves nothing */
        xf_stm_cands_free(res, n);
        free(why);
        diag_add(d, p->file, 0, 0, "stm auto: cancelled");
        return -1;
    }
    if (n == 0) {
        free(res);
        diag_add(d, p->file, 0, 0, "stm auto: no legal mapping from the source's schedule nor isl's, "
                 "nor a one-dimensional schedule with coefficients in %d..%d (nor %d..%d for the "
                 "outermost loop variable)%s%s", CMIN, CMAX, 0, WIDE_OUTER, why ? ": " : "", why ? why : "");
        free(why);
        return -1;
    }
    free(why);
    *out = res;
    return n;
}

void xf_stm_cands_free(xf_stm_cand *c, int n)
{
    for (int i = 0; i < n; i++) free(c[i].args);
    free(c);
}


ir_program *xf_stm_auto_apply(const ir_program *src, const xf_args *args, diag_list *d, int *status)
{
    *status = XF_EREFUSED;
    const char *pk = xf_args_get(args, "pick", NULL);
    char *end = NULL;
    long pick = pk ? strtol(pk, &end, 10) : 1;
    if (pk && (!*pk || *end || pick < 1)) {
        diag_add(d, NULL, 0, 0, "stm auto: pick=%s: expected a candidate number >= 1", pk);
        *status = XF_EUSAGE;
        return NULL;
    }
    xf_stm_cand *c = NULL;
    int n = xf_stm_candidates(src, args->bindings, args->nbindings, pick > 10 ? (int)pick : 10, &c, d);
    if (n < 0) return NULL;
    if (args->report) {
        fprintf(args->report, "stm auto: %d candidate%s (legal at the parameter values used), best first:\n",
                n, n == 1 ? "" : "s");
        for (int i = 0; i < n; i++)
            fprintf(args->report, "%3d  steps %-6lld procs %-6lld  stm %s\n", i + 1, c[i].steps,
                    c[i].procs, c[i].args);
    }
    ir_program *out = NULL;
    if (pick > n) {
        diag_add(d, NULL, 0, 0, "stm auto: pick=%ld but there are only %d candidates", pick, n);
        *status = XF_EUSAGE;
    } else {
        char *txt = xstrdup(c[pick - 1].args);
        char *w[MAXWORDS];
        int nw = split(txt, w, MAXWORDS);
        xf_args a2 = {0};
        if (xf_args_parse(&a2, nw, w, d) == 0) {
            a2.bindings = args->bindings;
            a2.nbindings = args->nbindings;
            out = xf_stm_apply(src, &a2, d, status);
        }
        xf_args_free(&a2);
        free(txt);
    }
    xf_stm_cands_free(c, n);
    return out;
}
