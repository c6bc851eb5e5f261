/*
 * stm_auto.c — `stm auto`: proposes legal space-time mappings, as LooPo proposed them to the
 * thesis's author, ranked by the number of time steps, then by the number of processors.
 *
 * A bounded enumeration at the program's parameter values (or the -D overrides):
 *   1. per statement, schedule vectors c (coefficients -2..2 over its loop variables) such that
 *      every dependence of the statement on itself goes forward: min over the dependence of
 *      c·(sink - source) >= 1 (isl computes the minimum);
 *   2. per pair of statements with dependences between them and per pair of vectors, the
 *      minimum m of c_b·y - c_a·x over the dependences a -> b, so that the constants must
 *      satisfy k_b - k_a >= 1 - m;
 *   3. every combination of vectors and relative constants (-3..3) that satisfies these
 *      difference constraints, scored by its number of time steps (max θ - min θ + 1; θ is then
 *      shifted to start at 0);
 *   4. per statement an allocation vector (coefficients -2..2, constant 0) linearly independent
 *      of its schedule vector (so that (θ, σ) is injective for two loop variables; with more,
 *      the remaining instances run in inner sequential loops: inner=seq), scored by the number
 *      of processors of the union of the allocations.
 * The candidates are legal at the parameter values used; each one listed is also accepted by
 * the ordinary stm (legal for every parameter value, its step nest generated), which `pick=K`
 * then applies.
 */
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/ilp.h>
#include <isl/val.h>

#include "xf_int.h"

enum { MAXV = 4, CMIN = -2, CMAX = 2, KMAX = 3, MAXSTMT = 6, KEEP = 400, MAXTRIES = 3 };

typedef struct vec { int c[MAXV]; long long lo, hi; } vec;   /* c·x ranges over [lo, hi] */

typedef struct sinfo {
    int nv;
    vec *th;                   /* legal schedule vectors */
    int nth;
    vec *sg;                   /* allocation vectors, by simplicity */
    int nsg;
} sinfo;

typedef struct pairc { int a, b; long long *m; } pairc;   /* m[ia * nth_b + ib]; LLONG_MIN = none */

typedef struct cand { int th[MAXSTMT]; long long k[MAXSTMT]; long long steps; int cost; } cand;

static char *lin(const int *c, int nv, const char *pre)
{
    xf_buf b = {0};
    for (int i = 0; i < nv; i++)
        if (c[i]) xf_buf_printf(&b, "%s%d*%s%d", b.n ? " + " : "", c[i], pre, i);
    if (!b.n) xf_buf_printf(&b, "0");
    return xf_buf_take(&b);
}

static isl_val *extreme(const xf_model *m, isl_set *set, const char *space, const char *f, int max)
{
    char *t = xf_asprintf("%s -> { %s -> [(%s)] }", m->params, space, f);
    isl_aff *aff = isl_aff_read_from_str(m->ctx, t);
    free(t);
    isl_val *v = max ? isl_set_max_val(set, aff) : isl_set_min_val(set, aff);
    isl_aff_free(aff);
    return v;
}

static long long val_ll(isl_val *v, long long inf)
{
    long long r = v && isl_val_is_int(v) ? isl_val_get_num_si(v) : inf;
    isl_val_free(v);
    return r;
}

/* "S[a0, a1]" */
static char *tup(const xf_stmt *st, const char *pre)
{
    xf_buf b = {0};
    xf_buf_printf(&b, "%s[", st->name);
    for (int i = 0; i < st->nvars; i++) xf_buf_printf(&b, "%s%s%d", i ? ", " : "", pre, i);
    xf_buf_printf(&b, "]");
    return xf_buf_take(&b);
}

static void add_vec(vec **v, int *n, const int *c, long long lo, long long hi)
{
    *v = realloc(*v, (size_t)(*n + 1) * sizeof **v);
    memset(&(*v)[*n], 0, sizeof **v);
    memcpy((*v)[*n].c, c, MAXV * sizeof *c);
    (*v)[*n].lo = lo;
    (*v)[*n].hi = hi;
    (*n)++;
}

static int absum(const int *c, int nv) { int s = 0; for (int i = 0; i < nv; i++) s += abs(c[i]); return s; }

/* Iterates c over [CMIN, CMAX]^nv; returns 0 when done. */
static int next_vec(int *c, int nv)
{
    for (int i = nv - 1; i >= 0; i--) {
        if (c[i] < CMAX) { c[i]++; return 1; }
        c[i] = CMIN;
    }
    return 0;
}

static void expr_text(xf_buf *b, const xf_stmt *st, const int *c, long long k)
{
    size_t start = b->n;
    for (int i = 0; i < st->nvars; i++) {
        if (!c[i]) continue;
        int first = b->n == start;
        if (c[i] < 0) xf_buf_printf(b, first ? "-" : "-");
        else if (!first) xf_buf_printf(b, "+");
        if (abs(c[i]) != 1) xf_buf_printf(b, "%d*", abs(c[i]));
        xf_buf_printf(b, "%s", st->vars[i]);
    }
    if (k || b->n == start) xf_buf_printf(b, b->n == start ? "%lld" : "%+lld", k);
}

/* Splits "a=b c=d" into words (in place). */
static int split(char *s, char **w, int max)
{
    int n = 0;
    for (char *t = strtok(s, " "); t && n < max; t = strtok(NULL, " ")) w[n++] = t;
    return n;
}

/* Does stm accept these arguments?  The enumeration is exact only at the parameter values it
 * used, and it does not build code; stm checks every parameter value and generates the step
 * nest, so a candidate is proposed only when stm would apply it. */
static int stm_accepts(xf_stm_session *ss, const char *args)
{
    if (!ss) return 0;
    char *txt = xf_strdup(args);
    char *w[64];
    int nw = split(txt, w, 64);
    diag_list d;
    diag_list_init(&d);
    xf_args a = {0};
    int status = XF_EREFUSED;
    if (xf_args_parse(&a, nw, w, &d) == 0) {
        ir_program *out = xf_stm_session_apply(ss, &a, &d, &status);
        ir_program_free(out);
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

int xf_stm_candidates(const ir_program *p, const ir_binding *ov, int nov, int max,
                      xf_stm_cand **out, diag_list *d)
{
    *out = NULL;
    if (p->level != IR_SOURCE) {
        diag_add(d, p->file, 0, 0, "stm auto maps a source program (this one is at level %s)",
                 ir_level_name(p->level));
        return -1;
    }
    xf_model *m = xf_model_build(p, ov, nov, 1, d);
    if (!m) return -1;
    int ns = m->nst;
    if (ns == 0 || ns > MAXSTMT) {
        diag_add(d, p->file, 0, 0, "stm auto handles 1 to %d statements (this program has %d)", MAXSTMT, ns);
        xf_model_free(m);
        return -1;
    }
    for (int s = 0; s < ns; s++)
        if (m->st[s].nvars > MAXV) {
            diag_add(d, p->file, 0, 0, "stm auto handles up to %d loops around a statement", MAXV);
            xf_model_free(m);
            return -1;
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

    /* 1. schedule vectors legal for the self-dependences; allocation vectors */
    sinfo si[MAXSTMT];
    memset(si, 0, sizeof si);
    for (int s = 0; s < ns; s++) {
        const xf_stmt *st = &m->st[s];
        int nv = st->nvars;
        si[s].nv = nv;
        isl_set *dom = xf_model_domain(m, s);
        char *ts = tup(st, "a"), *ta = tup(st, "a"), *tb = tup(st, "b");
        char *wsp = xf_asprintf("[%s -> %s]", ta, tb);
        int c[MAXV];
        for (int i = 0; i < MAXV; i++) c[i] = i < nv ? CMIN : 0;
        do {
            char *fa = lin(c, nv, "a");
            long long lo = val_ll(extreme(m, dom, ts, fa, 0), 0), hi = val_ll(extreme(m, dom, ts, fa, 1), 0);
            int ok = 1;
            if (pd[s][s]) {
                char *fb = lin(c, nv, "b");
                char *f = xf_asprintf("(%s) - (%s)", fb, fa);
                ok = val_ll(extreme(m, pd[s][s], wsp, f, 0), -1) >= 1;
                free(fb);
                free(f);
            }
            if (ok) add_vec(&si[s].th, &si[s].nth, c, lo, hi);
            if (absum(c, nv) > 0 || nv == 0) add_vec(&si[s].sg, &si[s].nsg, c, lo, hi);
            free(fa);
        } while (nv > 0 && !xf_cancelled() && next_vec(c, nv));
        isl_set_free(dom);
        free(ts);
        free(ta);
        free(tb);
        free(wsp);
    }

    /* 2. cross-statement minima */
    pairc pc[MAXSTMT * MAXSTMT];
    int npc = 0;
    for (int a = 0; a < ns; a++)
        for (int b = 0; b < ns; b++) {
            if (a == b || !pd[a][b]) continue;
            pairc *q = &pc[npc++];
            q->a = a;
            q->b = b;
            q->m = malloc((size_t)(si[a].nth * si[b].nth + 1) * sizeof *q->m);
            char *ta = tup(&m->st[a], "a"), *tb = tup(&m->st[b], "b");
            char *wsp = xf_asprintf("[%s -> %s]", ta, tb);
            for (int ia = 0; ia < si[a].nth && !xf_cancelled(); ia++)
                for (int ib = 0; ib < si[b].nth; ib++) {
                    char *fa = lin(si[a].th[ia].c, si[a].nv, "a"), *fb = lin(si[b].th[ib].c, si[b].nv, "b");
                    char *f = xf_asprintf("(%s) - (%s)", fb, fa);
                    q->m[ia * si[b].nth + ib] = val_ll(extreme(m, pd[a][b], wsp, f, 0), -(1LL << 40));
                    free(fa);
                    free(fb);
                    free(f);
                }
            free(ta);
            free(tb);
            free(wsp);
        }

    /* 3. combinations of schedule vectors and constants */
    cand *keep = NULL;
    int nkeep = 0, capkeep = 0;
    int idx[MAXSTMT] = {0};
    int any = 1;
    for (int s = 0; s < ns; s++) any &= si[s].nth > 0;
    while (any && !xf_cancelled()) {
        long long k[MAXSTMT] = {0};
        int kk[MAXSTMT];
        for (int s = 1; s < ns; s++) kk[s] = -KMAX;
        for (;;) {
            for (int s = 1; s < ns; s++) k[s] = kk[s];
            int ok = 1;
            for (int q = 0; q < npc && ok; q++) {
                long long mm = pc[q].m[idx[pc[q].a] * si[pc[q].b].nth + idx[pc[q].b]];
                ok = k[pc[q].b] - k[pc[q].a] >= 1 - mm;
            }
            if (ok) {
                long long lo = 1LL << 60, hi = -(1LL << 60);
                int cost = 0;
                for (int s = 0; s < ns; s++) {
                    const vec *v = &si[s].th[idx[s]];
                    if (v->lo + k[s] < lo) lo = v->lo + k[s];
                    if (v->hi + k[s] > hi) hi = v->hi + k[s];
                    cost += absum(v->c, si[s].nv) + (int)llabs(k[s]);
                }
                if (nkeep == capkeep) {
                    capkeep = capkeep ? 2 * capkeep : 64;
                    keep = realloc(keep, (size_t)capkeep * sizeof *keep);
                }
                cand *c = &keep[nkeep++];
                memset(c, 0, sizeof *c);
                memcpy(c->th, idx, sizeof idx);
                for (int s = 0; s < ns; s++) c->k[s] = k[s] - lo;   /* start at t = 0 */
                c->steps = hi - lo + 1;
                c->cost = cost;
                if (nkeep >= 4 * KEEP) {   /* prune */
                    qsort(keep, (size_t)nkeep, sizeof *keep, tcand_cmp);
                    nkeep = KEEP;
                }
            }
            int s = 1;
            while (s < ns && kk[s] == KMAX) kk[s++] = -KMAX;
            if (s >= ns) break;
            kk[s]++;
        }
        int s = ns - 1;
        while (s >= 0 && idx[s] == si[s].nth - 1) idx[s--] = 0;
        if (s < 0) break;
        idx[s]++;
    }
    qsort(keep, (size_t)nkeep, sizeof *keep, tcand_cmp);
    if (nkeep > KEEP) nkeep = KEEP;

    /* 4. allocations: per statement the simplest vectors independent of its schedule */
    xf_stm_cand *res = NULL;
    int nres = 0, capres = 0;
    int inner = 0;
    for (int s = 0; s < ns; s++) inner |= m->st[s].nvars > 2;
    for (int ci = 0; ci < nkeep && !xf_cancelled(); ci++) {
        const cand *c = &keep[ci];
        int opts[MAXSTMT][4], nopt[MAXSTMT];
        for (int s = 0; s < ns; s++) {
            nopt[s] = 0;
            const int *th = si[s].th[c->th[s]].c;
            int nv = si[s].nv;
            /* by simplicity: sum of |coefficients| 1, then 2 */
            for (int want = 1; want <= 2 && nopt[s] < 4; want++)
                for (int g = 0; g < si[s].nsg && nopt[s] < 4; g++) {
                    const int *sg = si[s].sg[g].c;
                    if (absum(sg, nv) != want && nv > 0) continue;
                    int indep = 0;   /* some 2x2 minor non-zero */
                    for (int x = 0; x < nv; x++)
                        for (int y = x + 1; y < nv; y++) indep |= th[x] * sg[y] - th[y] * sg[x] != 0;
                    if (nv <= 1) indep = 1;
                    if (indep) opts[s][nopt[s]++] = g;
                }
            if (nopt[s] == 0) goto next;
        }
        {
            int o[MAXSTMT] = {0};
            xf_stm_cand best = {NULL, 0, 0, 0};
            for (;;) {
                long long lo = 1LL << 60, hi = -(1LL << 60);
                int cost = 10 * c->cost;
                for (int s = 0; s < ns; s++) {
                    const vec *v = &si[s].sg[opts[s][o[s]]];
                    if (v->lo < lo) lo = v->lo;
                    if (v->hi > hi) hi = v->hi;
                    cost += 10 * absum(v->c, si[s].nv);
                    for (int x = 0; x < si[s].nv; x++)
                        cost += (v->c[x] < 0 ? 20 : 0) + (v->c[x] ? x : 0);   /* prefer p >= 0, outer loops */
                }
                /* the argument text; one theta=/sigma= when all statements agree */
                xf_buf tx[MAXSTMT] = {{0}}, sx[MAXSTMT] = {{0}};
                int same = 1;
                for (int s = 0; s < ns; s++) {
                    expr_text(&tx[s], &m->st[s], si[s].th[c->th[s]].c, c->k[s]);
                    expr_text(&sx[s], &m->st[s], si[s].sg[opts[s][o[s]]].c, 0);
                    if (s && (strcmp(tx[s].s, tx[0].s) || strcmp(sx[s].s, sx[0].s) ||
                              m->st[s].nvars != m->st[0].nvars))
                        same = 0;
                }
                xf_buf a = {0};
                if (same) xf_buf_printf(&a, "theta=%s sigma=%s", tx[0].s ? tx[0].s : "", sx[0].s ? sx[0].s : "");
                if (same) cost -= 10;   /* one mapping for all: the statements stay together */
                else
                    for (int s = 0; s < ns; s++) {
                        const char *lb = m->st[s].assign->u.assign.label ? m->st[s].assign->u.assign.label
                                                                         : m->st[s].name;
                        xf_buf_printf(&a, "%stheta.%s=%s sigma.%s=%s", s ? " " : "", lb, tx[s].s, lb, sx[s].s);
                    }
                if (inner) xf_buf_printf(&a, " inner=seq");
                for (int s = 0; s < ns; s++) { xf_buf_free(&tx[s]); xf_buf_free(&sx[s]); }
                xf_stm_cand x = {xf_buf_take(&a), c->steps, hi - lo + 1, cost};
                if (!best.args || cand_cmp(&x, &best) < 0) {
                    free(best.args);
                    best = x;
                } else {
                    free(x.args);
                }
                int s = ns - 1;
                while (s >= 0 && o[s] == nopt[s] - 1) o[s--] = 0;
                if (s < 0) break;
                o[s]++;
            }
            /* one proposal per schedule: its best allocation */
            if (nres == capres) {
                capres = capres ? 2 * capres : 64;
                res = realloc(res, (size_t)capres * sizeof *res);
            }
            res[nres++] = best;
        }
    next:;
    }
    qsort(res, (size_t)nres, sizeof *res, cand_cmp);
    /* distinct, accepted by stm, at most max; a bounded number of tries (one stm each) */
    int n = 0, tries = 0;
    diag_list sd;
    diag_list_init(&sd);
    xf_stm_session *ss = xf_stm_session_new(p, ov, nov, &sd);
    diag_list_free(&sd);
    for (int i = 0; i < nres; i++) {
        int dup = 0;
        for (int j = 0; j < n && !dup; j++) dup = !strcmp(res[j].args, res[i].args);
        if (dup || n >= max || tries >= MAXTRIES * max || (tries++, !stm_accepts(ss, res[i].args)))
            free(res[i].args);
        else
            res[n++] = res[i];
    }
    xf_stm_session_free(ss);

    free(keep);
    for (int q = 0; q < npc; q++) free(pc[q].m);
    for (int s = 0; s < ns; s++) {
        free(si[s].th);
        free(si[s].sg);
        for (int t = 0; t < ns; t++) isl_set_free(pd[s][t]);
    }
    xf_model_free(m);
    if (xf_cancelled()) {   /* an aborted search proves nothing */
        xf_stm_cands_free(res, n);
        diag_add(d, p->file, 0, 0, "stm auto: cancelled");
        return -1;
    }
    if (n == 0) {
        free(res);
        diag_add(d, p->file, 0, 0, "stm auto: no legal one-dimensional schedule with coefficients in "
                 "%d..%d", CMIN, CMAX);
        return -1;
    }
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
        char *txt = xf_strdup(c[pick - 1].args);
        char *w[64];
        int nw = split(txt, w, 64);
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
