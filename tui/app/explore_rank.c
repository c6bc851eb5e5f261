/*
 * explore_rank.c — ranking explore's best leaves at the user's size (explore_rank_at, see
 * explore.h) without simulating there: each of the k best verified leaves, and the best of each
 * other shape of derivation (rank_shapes), is simulated at four
 * smaller sizes on the ray from 0 to the user's (every named parameter scaled by the same factor
 * lambda), each stored as `polyapm sim NODE -D ...` stores it; its cost is a polynomial of degree
 * three in lambda through those four points, evaluated at lambda = 1; the leaves are ordered by
 * those predictions.  A leaf that simulates quickly there is simulated again at larger samples
 * (at_grow: as large as EXPLORE_AT_BUDGET allows), where its tiles are whole.
 */
#include "explore_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "stats.h"
#include "strbuf.h"
#include "xf.h"

/* The search's bindings with `at` in place of those of the same names (at most max). */
static int merge_bindings(const explore_opts *o, const ir_binding *at, int nat, ir_binding *out, int max)
{
    int n = 0;
    for (int i = 0; i < o->nbindings && n < max; i++) {
        int shadowed = 0;
        for (int k = 0; k < nat; k++) shadowed |= !strcmp(o->bindings[i].name, at[k].name);
        if (!shadowed) out[n++] = o->bindings[i];
    }
    for (int k = 0; k < nat && n < max; k++) out[n++] = at[k];
    return n;
}

int explore_rank_check(store *s, int64_t start, const ir_binding *at, int nat, diag_list *d)
{
    ir_program *p = ops_node_program(s, start, d);
    if (!p) return -1;
    int rc = 0;
    for (int k = 0; k < nat && rc == 0; k++) {
        int known = 0;
        for (int i = 0; i < p->nparams; i++) known |= !strcmp(p->params[i]->u.param.name, at[k].name);
        if (!known) {
            diag_add(d, NULL, 0, 0, "--at: '%s' is not a parameter of node %lld", at[k].name, (long long)start);
            rc = -1;
        }
    }
    int64_t *vals = calloc((size_t)(p->nparams ? p->nparams : 1), sizeof *vals);
    if (rc == 0 && (!vals || ir_params_eval(p, at, nat, 1, vals, d) != 0)) rc = -1;
    if (rc == 0 && nat > OPS_MAX_BINDINGS) {
        diag_add(d, NULL, 0, 0, "--at: at most %d values", OPS_MAX_BINDINGS);
        rc = -1;
    }
    free(vals);
    ir_program_free(p);
    return rc;
}

/* The reference's runs at the samples, kept while leaves are ranked: every leaf at a sample is
 * verified against the same run of the source (simjob.h, ref_res), not one of its own each. */
enum { RANK_REFS = 16 };
typedef struct rank_refs {
    int n;
    char *key[RANK_REFS];        /* the sample's bindings as text (owned) */
    sim_result *run[RANK_REFS];  /* owned */
} rank_refs;

static void rank_refs_free(own_keep rank_refs *r)
{
    for (int i = 0; i < r->n; i++) {
        free(r->key[i]);
        sim_result_free(r->run[i]);
    }
    r->n = 0;
}

/* Bindings b as text: "m=168,n=196,procs=2" (malloc'd; NULL when out of memory). */
static char *bindings_text(const ir_binding *b, int nb)
{
    strbuf t = {0};
    for (int i = 0; i < nb; i++) strbuf_printf(&t, "%s%s=%lld", i ? "," : "", b[i].name, (long long)b[i].value);
    return strbuf_take(&t);
}

/* The cost of leaf x at bindings b, its traffic priced at `scale` times its data (simulated and
 * stored, or found stored; verified against refs' run of the reference there, which keeps the
 * job's where it has none): 0 with *cost, *verified and *secs (the simulation's processor time,
 * the reference's with it, as stored), or -1 with a message. */
static int sim_at(store *s, const explore_opts *o, rank_refs *refs, const ir_binding *b, int nb, double scale,
                  int64_t node, double *cost, int *verified, double *secs, diag_list *d)
{
    ops_sim j;
    memset(&j, 0, sizeof j);
    j.node = node;
    j.model = o->model;
    j.profile = o->profile;
    j.profile.data_scale = scale > 1 ? scale : -1;   /* the sample's own, not the search's */
    j.nbindings = nb;
    memcpy(j.bindings, b, (size_t)nb * sizeof *b);
    int rc = ops_sim_prepare(s, &j, d), known = -1;
    char *key = rc == 0 ? bindings_text(b, nb) : NULL;
    for (int i = 0; key && i < refs->n && known < 0; i++)
        if (!strcmp(refs->key[i], key)) known = i;
    if (known >= 0) j.job.ref_res = refs->run[known];   /* borrowed */
    if (rc == 0)
        rc = ops_sim_run(&j, xf_cancel_flag(), NULL, NULL, d) == 0 && ops_sim_store(s, &j, d) == 0 ? 1 : -1;
    if (rc == 1) {
        *cost = j.total;
        *verified = j.verified == 1;
        *secs = ops_sim_seconds(&j);
    }
    if (known >= 0 && j.job.ref_res == refs->run[known]) {
        j.job.ref_res = NULL;   /* given back */
    } else if (known < 0 && key && j.job.ref_res && j.job.ref_res->ok && refs->n < RANK_REFS) {
        refs->key[refs->n] = key;   /* kept for the leaves after this one */
        refs->run[refs->n++] = j.job.ref_res;
        j.job.ref_res = NULL;
        key = NULL;
    }
    free(key);
    ops_sim_free(&j);
    return rc < 0 ? -1 : 0;
}

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* The period the samples keep the user's values' residues modulo: 4 x -D procs (a block-cyclic
 * tiling's costs repeat with its blocks times the processors, a pipeline's fill and drain with
 * the processors; sizes of another residue price another remainder and the cubic multiplies that
 * difference). */
static int64_t at_period(const explore_opts *o)
{
    const ir_binding *p = NULL;
    for (int i = 0; i < o->nbindings; i++)
        if (!strcmp(o->bindings[i].name, "procs")) p = &o->bindings[i];
    return 4 * (p && p->value > 0 ? p->value : 1);
}

/* The samples spread from AT_LOW of the largest to it: the smallest sample is no program of a few
 * elements whose boundaries outweigh its interior (heat-3d's planes at n = 3: one point), whose
 * cost grows faster than the work's degree and throws the extrapolation off. */
static const double AT_LOW = 0.4;

/* Lambda as k/g for the samples: k = g mod Q (+ Q while 0) plus multiples of Q spread from
 * AT_LOW * lambda_max * g up to lambda_max * g (from g mod Q where the multiples between are too
 * few to be distinct), so that every value v * k / g is an integer congruent to v modulo Q; Q
 * halved until four distinct samples fit.  1, or 0 when none do (sizes too small to scale
 * exactly). */
static int at_steps(int64_t g, double lmax, int64_t period, int64_t steps[EXPLORE_AT_SAMPLES])
{
    int64_t kmax = llround(lmax * (double)g);
    for (int64_t q = period; q >= 1; q /= 2) {
        int64_t r = g % q ? g % q : q;
        int64_t span = kmax >= r ? (kmax - r) / q : 0;   /* multiples of q above r */
        if (span < EXPLORE_AT_SAMPLES - 1) continue;
        int64_t low = (int64_t)ceil((AT_LOW * (double)kmax - (double)r) / (double)q);
        if (low > span - (EXPLORE_AT_SAMPLES - 1)) low = span - (EXPLORE_AT_SAMPLES - 1);
        if (low < 0) low = 0;
        for (int m = 0; m < EXPLORE_AT_SAMPLES; m++)
            steps[m] = r + q * (low + (span - low) * m / (EXPLORE_AT_SAMPLES - 1));
        return 1;
    }
    return 0;
}

/* The search's size as a factor of the user's: the geometric mean of the program's values (with
 * the search's bindings) over `at`'s; -1 with a message when they do not evaluate. */
static double search_size(const ir_program *p, const explore_opts *o, const ir_binding *at, int nat, diag_list *d)
{
    int64_t *vals = calloc((size_t)(p->nparams ? p->nparams : 1), sizeof *vals);
    int rc = vals && ir_params_eval(p, o->bindings, o->nbindings, 0, vals, d) == 0 ? 0 : -1;
    double logsum = 0;
    for (int k = 0; k < nat && rc == 0; k++)
        for (int i = 0; i < p->nparams; i++)
            if (!strcmp(p->params[i]->u.param.name, at[k].name))
                logsum += log((double)(vals[i] > 0 ? vals[i] : 1) / (double)(at[k].value > 0 ? at[k].value : 1));
    free(vals);
    return rc == 0 ? exp(logsum / (nat ? nat : 1)) : -1;
}

/* The samples' values on the ray up to lmax (at_samples). */
static int at_ray(const explore_opts *o, const ir_binding *at, int nat, double lmax, explore_at *x, diag_list *d)
{
    /* lambda a multiple of 1/g (g the values' greatest common divisor) scales every value to an
     * integer exactly: the samples lie on the ray, not near it */
    int64_t g = 0;
    for (int k = 0; k < nat; k++) g = gcd64(g, at[k].value > 0 ? at[k].value : 1);
    int64_t steps[EXPLORE_AT_SAMPLES];
    int exact = at_steps(g, lmax, at_period(o), steps);
    for (int m = 0; m < EXPLORE_AT_SAMPLES; m++) {
        double lam = exact ? (double)steps[m] / (double)g
                           : lmax * (AT_LOW + (1 - AT_LOW) * m / (EXPLORE_AT_SAMPLES - 1)), lg = 0;
        for (int k = 0; k < nat; k++) {
            x->b[m][k] = at[k];
            int64_t v = exact ? at[k].value / g * steps[m]
                      : m == EXPLORE_AT_SAMPLES - 1 && lmax == 1.0 ? at[k].value : llround((double)at[k].value * lam);
            x->b[m][k].value = v < 1 ? 1 : v;
            lg += log((double)x->b[m][k].value / (double)(at[k].value > 0 ? at[k].value : 1));
        }
        x->lam[m] = exp(lg / (nat ? nat : 1));
        if (m > 0 && x->lam[m] <= x->lam[m - 1]) {
            diag_add(d, NULL, 0, 0, "--at: the sizes are too small to extrapolate from (give larger values)");
            return -1;
        }
    }
    x->n = EXPLORE_AT_SAMPLES;
    return 0;
}

/* Sample m's scale (explore_at): the arrays' elements of the start program p at the user's
 * size over those at the sample, with the search's other bindings; 1 where they do not evaluate. */
static void at_scales(const explore_opts *o, const ir_program *p, const ir_binding *at, int nat, explore_at *x)
{
    ir_binding b[OPS_MAX_BINDINGS];
    double user = ir_array_elems(p, b, merge_bindings(o, at, nat, b, OPS_MAX_BINDINGS));
    for (int m = 0; m < x->n; m++) {
        double here = ir_array_elems(p, b, merge_bindings(o, x->b[m], nat, b, OPS_MAX_BINDINGS));
        x->scale[m] = user > 0 && here > 0 && user > here ? user / here : 1;
    }
    x->degree = ir_work_degree(p);
}

/* The largest sample's lambda: twice the program's own size (`own`, the search's), or up to four
 * times where the smallest sample would otherwise have a value below AT_SMALLEST (heat-3d's n = 10
 * of n = 120, tsteps = 500: its samples n = 12 .. 30, not 3 .. 14); the user's size itself when
 * that is not larger. */
enum { AT_SMALLEST = 12 };
static double at_lmax(double own, const ir_binding *at, int nat)
{
    int64_t least = 0;
    for (int k = 0; k < nat; k++)
        if (at[k].value > 0 && (!least || at[k].value < least)) least = at[k].value;
    double lmax = 2 * own;
    if (least > 0) lmax = fmax(lmax, fmin(4 * own, AT_SMALLEST / (AT_LOW * (double)least)));
    return fmin(1.0, lmax);
}

/* The sizes the leaves are simulated at: sample m scales every value of `at` by lambda_max *
 * (AT_LOW + (1 - AT_LOW) * m / (AT_SAMPLES - 1)) (at least 1; at_lmax).  Lambda is k/g
 * (at_steps), every sample exactly on the ray and in the user's values' residues, when four fit;
 * otherwise each value is rounded and lam[m] is the factor the rounded values make (their
 * geometric mean over the targets). */
static int at_samples(store *s, const explore_opts *o, const ir_binding *at, int nat, explore_at *x, diag_list *d)
{
    ir_program *p = ops_node_program(s, o->start, d);
    if (!p) return -1;
    double own = search_size(p, o, at, nat, d);
    int rc = own > 0 ? at_ray(o, at, nat, at_lmax(own, at, nat), x, d) : -1;
    if (rc == 0) at_scales(o, p, at, nat, x);
    ir_program_free(p);
    return rc;
}

double explore_at_shrink(store *s, const explore_opts *o, double *data_scale, diag_list *d)
{
    *data_scale = 0;
    if (o->nat <= 0) return 0;
    ir_program *p = ops_node_program(s, o->start, d);
    double own = p ? search_size(p, o, o->at, o->nat, d) : -1;
    if (p) {
        ir_binding b[OPS_MAX_BINDINGS];
        double user = ir_array_elems(p, b, merge_bindings(o, o->at, o->nat, b, OPS_MAX_BINDINGS));
        double here = ir_array_elems(p, o->bindings, o->nbindings);
        if (user > 0 && here > 0 && user > here) *data_scale = user / here;
    }
    ir_program_free(p);
    return own > 0 && own < 1 ? own : 0;
}

/* The polynomial of the n terms lam^(D-n+1) .. lam^D through the samples (lam[m], y[m]) at 1, D
 * the work's degree (at least n - 1: a cubic through four samples; heat-3d's t, i, j, k: lam ..
 * lam^4), its coefficients non-negative (stats_fit_nonneg_poly: the interpolant when they are, else
 * the closest such fit; a tiling's partial tiles and blocks at a sample's few rows are no term of
 * the cost, and an interpolant through them can fall 300 times short at 25 times the size).  A
 * cost of degree D at most in the sizes, its terms positive, grows from the largest sample
 * (lam_max) to 1 at least as fast as the samples' last step shows (k, the exponent of y in lam
 * between the last two samples), up to linearly, and at most as lam_max^-D.  A fit below that
 * floor is replaced: by the bound lam_max^-D when the samples grow at least linearly (such a leaf
 * is not ranked above one whose growth its samples show), else by their own power law. */
double explore_at_extrapolate(const double *lam, const double *y, int n, int degree)
{
    int low = degree > n - 1 ? degree - (n - 1) : 0, top = low + n - 1;
    double c[STATS_POLY_MAX], v = 0;
    if (n <= STATS_POLY_MAX && stats_fit_nonneg_poly(lam, y, n, low, n, c) == 0)
        for (int k = 0; k < n; k++) v += c[k];
    double lmax = lam[n - 1], ymax = y[n - 1];
    if (n < 2 || !(lmax > 0) || lmax >= 1 || !(y[n - 2] > 0) || !(ymax > 0)) return v > ymax ? v : ymax;
    double k = log(ymax / y[n - 2]) / log(lmax / lam[n - 2]);
    k = k > 0 ? (k < top ? k : top) : 0;
    if (v >= ymax * pow(lmax, -fmin(k, 1))) return v;
    return ymax * pow(lmax, k >= 1 ? -top : -k);
}

/* Leaf x at the samples ax: 0 with y[] and *secs (the largest's simulation's processor time), 1 when
 * it does not simulate at one, -1 when a stop was asked for. */
static int rank_samples(store *s, const explore_opts *o, rank_refs *refs, const explore_at *ax, int64_t node,
                        double *y, int *all, double *secs)
{
    *all = 1;
    for (int m = 0; m < ax->n; m++) {
        ir_binding b[OPS_MAX_BINDINGS];
        int nb = merge_bindings(o, ax->b[m], o->nat, b, OPS_MAX_BINDINGS), ver = 0;
        diag_list why;
        diag_list_init(&why);
        int rc = sim_at(s, o, refs, b, nb, ax->scale[m], node, &y[m], &ver, secs, &why);
        diag_list_free(&why);
        if (rc != 0) return xf_cancelled() ? -1 : 1;
        *all &= ver;
    }
    return 0;
}

/* Growing a leaf's samples: when the budget allows at least AT_GROW_MIN (less is not worth four
 * more simulations), by the nearest power of sqrt 2 (leaves that simulate at about the same
 * speed share their samples' sizes), at most AT_GROW_MAX at a time (a simulation's time grows
 * faster than its work where its data leave the caches), at most AT_GROW_TIMES times. */
static const double AT_GROW_MIN = 1.3, AT_GROW_MAX = 4;
enum { AT_GROW_TIMES = 2 };

/* The samples after cur for a leaf whose largest sample simulated in `secs`: the largest lambda
 * grown by (EXPLORE_AT_BUDGET / secs)^(1 / degree), the factor that brings its time to the
 * budget where the simulation's time grows as the work (AT_GROW_MIN .. AT_GROW_MAX, at most 1).
 * Twice the program's size holds a tile or two of a tiled leaf (correlation's m = 48 under tiles
 * of 32 by 256), whose samples then see its boundaries and messages grow, not its tiles: their
 * cubic put correlation at LARGE at 0.084 s against 0.132 simulated there.  1 with *next, 0 when
 * the samples stay. */
static int at_grow(store *s, const explore_opts *o, const explore_at *cur, double secs, explore_at *next)
{
    double lmax = cur->lam[cur->n - 1];
    if (!(secs > 0) || lmax >= 1) return 0;
    double f = pow(EXPLORE_AT_BUDGET / secs, 1.0 / (cur->degree > 1 ? cur->degree : 1));
    if (f < AT_GROW_MIN) return 0;
    f = fmax(sqrt(2), pow(2, round(2 * log2(fmin(f, AT_GROW_MAX))) / 2));
    diag_list d;
    diag_list_init(&d);
    ir_program *p = ops_node_program(s, o->start, &d);
    *next = *cur;
    int rc = p && at_ray(o, o->at, o->nat, fmin(1.0, lmax * f), next, &d) == 0;
    if (rc) at_scales(o, p, o->at, o->nat, next);
    ir_program_free(p);
    diag_list_free(&d);
    return rc && next->lam[next->n - 1] > lmax;
}

/* Leaf x's cost at the user's size, extrapolated from the samples: the search's (ax), grown while
 * the leaf simulates quickly (at_grow).  A leaf that does not simulate at a sample (heat-3d's
 * pipeline at n = 60: the bounds of its memory do not evaluate for processor 1 at one of them) is
 * not verified there: ranked after the others, not the end of the search; one that does not at
 * grown samples keeps the smaller ones'.  A stop asked for leaves it unranked. */
static void rank_one(store *s, const explore_opts *o, rank_refs *refs, const explore_at *ax, explore_leaf *x)
{
    double y[EXPLORE_AT_SAMPLES], secs = 0;
    int all = 1, rc = rank_samples(s, o, refs, ax, x->node, y, &all, &secs);
    if (rc != 0) {
        if (rc > 0) x->rank_cost = x->rank_seconds = -1, x->rank_verified = 0;
        return;
    }
    explore_at cur = *ax, next;
    for (int t = 0; t < AT_GROW_TIMES && at_grow(s, o, &cur, secs, &next); t++) {
        double y2[EXPLORE_AT_SAMPLES];
        int all2 = 1;
        rc = rank_samples(s, o, refs, &next, x->node, y2, &all2, &secs);
        if (rc < 0) return;
        if (rc > 0) break;
        cur = next;
        memcpy(y, y2, sizeof y);
        all = all2;
    }
    x->rank_cost = explore_at_extrapolate(cur.lam, y, cur.n, cur.degree);
    x->rank_seconds = x->rank_cost * o->profile.tick_seconds;
    x->rank_verified = all;
    x->rank_lambda = cur.lam[cur.n - 1];
    for (int k = 0; k < o->nat; k++) x->rank_largest[k] = cur.b[cur.n - 1][k].value;
}

enum { RANK_SHAPES = 8 };   /* leaves ranked beyond the k best: one per derivation of another shape */

/* The transforms whose parameters are part of a shape: memdist's layout (pieces or boxes) decides
 * how every access of a memory runs, not only how much it holds. */
static const char *const shape_params[] = { "memdist", NULL };

/* The word after "kind=" in tile's parameters, onto b (":kind=WORD"); nothing without one. */
static void tiling_kind(strbuf *b, const char *params)
{
    const char *k = params ? strstr(params, "kind=") : NULL;
    if (k) strbuf_printf(b, ":%.*s", (int)strcspn(k, " "), k);
}

char *explore_leaf_shape(store *s, int64_t start, int64_t node, int tiling, diag_list *d)
{
    store_step *steps = NULL;
    int n = 0;
    if (store_path(s, node, &steps, &n, d) != 0) return NULL;
    strbuf b = {0};
    int i = 0;
    while (i < n && steps[i].node.id != start) i++;
    if (i + 1 < n) strbuf_printf(&b, "%lld", (long long)steps[i + 1].node.id);
    for (int k = i + 2; k < n; k++) {
        const char *xf = steps[k].edge.transform ? steps[k].edge.transform : "?";
        strbuf_printf(&b, " %s", xf);
        for (int p = 0; shape_params[p]; p++)
            if (!strcmp(xf, shape_params[p]) && steps[k].edge.params && *steps[k].edge.params)
                strbuf_printf(&b, ":%s", steps[k].edge.params);
        if (tiling && !strcmp(xf, "tile")) tiling_kind(&b, steps[k].edge.params);
    }
    store_path_free(steps, n);
    return strbuf_take(&b);
}

/* Moves into r->leaves[n ..] the best verified leaf of every derivation shape not among the
 * first n (at most RANK_SHAPES of them): what is cheapest at the program's own size may not be
 * at the user's (a pipeline over the time steps against a redistribution between phases), and
 * leaves of one shape scale alike.  The new count of leaves to rank. */
static int rank_shapes(store *s, const explore_opts *o, explore_result *r, int n, diag_list *d)
{
    char *seen[64];
    int nseen = 0, added = 0;
    for (int i = 0; i < r->nleaves && added < RANK_SHAPES && nseen < 64; i++) {
        if (r->leaves[i].verified != 1) continue;
        char *shape = explore_leaf_shape(s, o->start, r->leaves[i].node, 0, d);
        if (!shape) break;
        int known = 0;
        for (int k = 0; k < nseen && !known; k++) known = !strcmp(seen[k], shape);
        if (known) { free(shape); continue; }
        seen[nseen++] = shape;
        if (i < n) continue;   /* among the k best already */
        explore_leaf x = r->leaves[i];
        memmove(&r->leaves[n + 1], &r->leaves[n], (size_t)(i - n) * sizeof *r->leaves);
        r->leaves[n++] = x;
        added++;
    }
    for (int k = 0; k < nseen; k++) free(seen[k]);
    return n;
}

static int rank_cmp(const void *a, const void *b)
{
    const explore_leaf *x = a, *y = b;
    int cx = x->rank_verified == 1 ? 0 : x->rank_verified == 0 ? 1 : 2;
    int cy = y->rank_verified == 1 ? 0 : y->rank_verified == 0 ? 1 : 2;
    if (cx != cy) return cx - cy;
    if (cx == 0 && x->rank_cost != y->rank_cost) return x->rank_cost < y->rank_cost ? -1 : 1;
    if (x->cost != y->cost) return x->cost < y->cost ? -1 : 1;   /* the search's order */
    return x->node < y->node ? -1 : x->node > y->node;
}

/* Ranks r->leaves[lo .. hi) (the leaves before lo are ranked already) and sorts [0, hi) by the
 * ranking; a stop asked for ends it with those reached. */
static void rank_leaves(store *s, const explore_opts *o, explore_result *r, int lo, int hi)
{
    rank_refs refs = {0};
    for (int i = lo; i < hi && !xf_cancelled(); i++) rank_one(s, o, &refs, &r->at, &r->leaves[i]);
    rank_refs_free(&refs);
    if (xf_cancelled()) r->stats.interrupted = 1;
    if (hi > 1) qsort(r->leaves, (size_t)hi, sizeof *r->leaves, rank_cmp);
}

int explore_rank_at(store *s, const explore_opts *o, explore_result *r, diag_list *d)
{
    for (int i = 0; i < r->nleaves; i++)
        r->leaves[i].rank_cost = r->leaves[i].rank_seconds = -1, r->leaves[i].rank_verified = -1;
    int k = o->rank_top > 0 ? o->rank_top : 3;
    if (o->nat <= 0) return 0;
    if (explore_rank_check(s, o->start, o->at, o->nat, d) != 0 || at_samples(s, o, o->at, o->nat, &r->at, d) != 0)
        return -1;
    int n = 0;   /* the k best verified leaves come first in r (explore_run's order) */
    while (n < r->nleaves && n < k && r->leaves[n].verified == 1) n++;
    rank_leaves(s, o, r, 0, rank_shapes(s, o, r, n, d));
    return 0;
}

void explore_rank_more(store *s, const explore_opts *o, int from, explore_result *r)
{
    if (o->nat <= 0 || !r->at.n) return;
    int n = 0;   /* the ranked leaves come first; the new verified ones join them */
    while (n < from && r->leaves[n].rank_verified != -1) n++;
    int ranked = n;
    for (int i = from; i < r->nleaves; i++) {
        if (r->leaves[i].verified != 1) continue;
        explore_leaf x = r->leaves[i];
        memmove(&r->leaves[n + 1], &r->leaves[n], (size_t)(i - n) * sizeof *r->leaves);
        r->leaves[n++] = x;
    }
    rank_leaves(s, o, r, ranked, n);
}
