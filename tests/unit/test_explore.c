/*
 * test_explore.c — unit tests of the best-first search (tui/app/explore.c) on small workspaces
 * the test makes itself (Jacobi 1-D at n=8, 3 steps): the order of expansion (always an open
 * node of lowest bound, watched through the search's observer), pruning (every pruned node's
 * bound exceeds the best leaf, and pruning happens), resuming (a run cut by its budget, then the
 * full run: the stored part comes from the store and the best is a fresh run's; the same run
 * again computes nothing), interrupting (explore_interrupt from the progress callback: the run
 * returns interrupted, the store checks clean, the next run is not interrupted and finishes),
 * and -D procs=P (on a machine with free messages every leaf runs on P processors).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explore.h"
#include "explore_int.h"
#include "ops.h"
#include "simjob.h"
#include "store.h"
#include "t.h"

static char tmpdir[] = "/tmp/test_explore.XXXXXX";

static const char *jacobi =
    "program jacobi1d\n"
    "level source\n"
    "param n = 8, steps = 3\n"
    "array a[0 .. steps][0 .. n - 1] double\n"
    "init a[0][i] = i * 37 % 101\n"
    "output a[steps]\n"
    "for t = 1 .. steps, i = 0 .. n - 1 {\n"
    "  if i == 0 || i == n - 1 {\n"
    "    E: a[t][i] = a[t - 1][i]\n"
    "  } else {\n"
    "    J: a[t][i] = (a[t - 1][i - 1] + a[t - 1][i] + a[t - 1][i + 1]) / 3\n"
    "  }\n"
    "}\n";

/* A fresh workspace NAME.pdg under tmpdir with the Jacobi program as its root. */
static store *workspace(const char *name)
{
    char apm[256], ws[256];
    snprintf(apm, sizeof apm, "%s/jacobi1d.apm", tmpdir);
    snprintf(ws, sizeof ws, "%s/%s.pdg", tmpdir, name);
    FILE *f = fopen(apm, "w");
    if (!f) abort();
    fputs(jacobi, f);
    fclose(f);
    diag_list d;
    diag_list_init(&d);
    store *s = NULL;
    int created = 0;
    if (ops_open_or_init(ws, apm, &s, &created, &d) != 0 || !created) {
        diag_print(&d, stderr);
        abort();
    }
    diag_list_free(&d);
    return s;
}

static void options(explore_opts *o, store *s, int budget, int64_t procs)
{
    memset(o, 0, sizeof *o);
    diag_list d;
    diag_list_init(&d);
    if (store_root(s, &o->start, &d) != 0 || cost_profile_resolve("scali2004", &o->profile, &d) != 0) abort();
    diag_list_free(&d);
    o->budget = budget;
    o->jobs = 1;
    o->bindings[o->nbindings++] = (ir_binding){"procs", procs};
}

static int run(store *s, const explore_opts *o, explore_result *r)
{
    diag_list d;
    diag_list_init(&d);
    int rc = explore_run(s, o, r, &d);
    if (rc != 0) diag_print(&d, stderr);
    diag_list_free(&d);
    return rc;
}

/* ---- the order of expansion and pruning, through the observer ---- */

enum { MAXN = 512 };

typedef struct watch {
    int64_t node[MAXN];
    double bound[MAXN];
    int open[MAXN];
    int n;
    int expanded, out_of_order, pruned;
    double pruned_min;              /* the lowest bound of a pruned node */
} watch;

static int watch_find(watch *w, int64_t node)
{
    for (int i = 0; i < w->n; i++)
        if (w->node[i] == node) return i;
    if (w->n == MAXN) abort();
    w->node[w->n] = node;
    return w->n++;
}

static void on_event(void *ctx, explore_event ev, int64_t node, double bound)
{
    watch *w = ctx;
    int i = watch_find(w, node);
    w->bound[i] = bound;
    switch (ev) {
    case EXPLORE_OPENED: w->open[i] = 1; break;
    case EXPLORE_EXPANDED:
        w->expanded++;
        for (int k = 0; k < w->n; k++)      /* no open node may have a lower bound */
            if (w->open[k] && k != i && w->bound[k] < bound * (1 - 1e-12)) {
                w->out_of_order++;
                fprintf(stderr, "expanded %lld (bound %g) before %lld (bound %g)\n", (long long)node, bound,
                        (long long)w->node[k], w->bound[k]);
            }
        w->open[i] = 0;
        break;
    case EXPLORE_PRUNED:
        if (!w->pruned++ || bound < w->pruned_min) w->pruned_min = bound;
        w->open[i] = 0;
        break;
    case EXPLORE_CLOSED: w->open[i] = 0; break;
    }
}

static double test_order_and_pruning(void)
{
    store *s = workspace("order");
    explore_opts o;
    options(&o, s, 200, 2);
    watch w;
    memset(&w, 0, sizeof w);
    o.observe = on_event;
    o.observe_ctx = &w;
    explore_result r;
    T_EQ_INT("order: the search runs", run(s, &o, &r), 0);
    T_CHECK("order: several nodes expanded", w.expanded >= 4, "%d expanded", w.expanded);
    T_EQ_INT("order: every expansion takes an open node of lowest bound", w.out_of_order, 0);
    T_CHECK("order: a verified best leaf", r.stats.best > 0 && r.nleaves > 0 && r.leaves[0].verified == 1,
            "best %g, %d leaves", r.stats.best, r.nleaves);
    T_CHECK("order: leaves come best first", r.nleaves < 2 || r.leaves[0].cost <= r.leaves[1].cost, "%g > %g",
            r.leaves[0].cost, r.nleaves > 1 ? r.leaves[1].cost : 0.0);
    T_CHECK("pruning: some branches were pruned", w.pruned > 0 && r.stats.pruned == w.pruned, "%d observed, %d counted",
            w.pruned, r.stats.pruned);
    T_CHECK("pruning: only nodes whose bound exceeds the best leaf", w.pruned == 0 || w.pruned_min > r.stats.best,
            "pruned a bound %g, best %g", w.pruned_min, r.stats.best);
    double best = r.stats.best;
    explore_result_free(&r);
    store_close(s);
    return best;
}

/* ---- resuming ---- */

static void test_resume(double fresh_best)
{
    store *s = workspace("resume");
    explore_opts o;
    options(&o, s, 6, 2);
    explore_result r;
    T_EQ_INT("resume: the short run", run(s, &o, &r), 0);
    T_CHECK("resume: the short run stops at its budget", r.stats.budget_hit && r.stats.evaluated <= 6,
            "budget_hit %d, %d evaluated", r.stats.budget_hit, r.stats.evaluated);
    int first = r.stats.evaluated;
    explore_result_free(&r);
    o.budget = 200;
    T_EQ_INT("resume: the full run", run(s, &o, &r), 0);
    T_CHECK("resume: the short run's nodes come from the store", r.stats.from_store >= first,
            "%d from the store, %d before", r.stats.from_store, first);
    T_CHECK("resume: and the search goes on", r.stats.evaluated > first && r.stats.applied > 0, "%d evaluated, %d applied",
            r.stats.evaluated, r.stats.applied);
    T_NEAR("resume: the same best as a fresh run", r.stats.best, fresh_best, 1e-9 * fresh_best);
    int64_t best_node = r.stats.best_node;
    explore_result_free(&r);
    T_EQ_INT("resume: the same run again", run(s, &o, &r), 0);
    T_CHECK("resume: again, everything from the store", r.stats.from_store == r.stats.evaluated && r.stats.applied == 0,
            "%d of %d from the store, %d applied", r.stats.from_store, r.stats.evaluated, r.stats.applied);
    T_EQ_INT("resume: again, the same best node", r.stats.best_node, best_node);
    explore_result_free(&r);
    store_close(s);
}

/* ---- interrupting ---- */

static void interrupt_after_three(void *ctx, const explore_stats *st)
{
    (void)ctx;
    if (st->evaluated >= 3) explore_interrupt();
}

static void test_interrupt(double fresh_best)
{
    store *s = workspace("interrupt");
    explore_opts o;
    options(&o, s, 200, 2);
    o.progress = interrupt_after_three;
    explore_result r;
    T_EQ_INT("interrupt: the run returns 0", run(s, &o, &r), 0);
    T_CHECK("interrupt: it says interrupted, early", r.stats.interrupted && r.stats.evaluated < 8,
            "interrupted %d, %d evaluated", r.stats.interrupted, r.stats.evaluated);
    int first = r.stats.evaluated;
    explore_result_free(&r);
    diag_list d;
    diag_list_init(&d);
    store_fsck_report fr;
    T_CHECK("interrupt: the store checks clean", store_fsck(s, 0, &fr, &d) == 0 && fr.problems == 0 && fr.leftovers == 0,
            "fsck problems");
    store_fsck_report_clear(&fr);
    diag_list_free(&d);
    o.progress = NULL;
    T_EQ_INT("interrupt: the next run", run(s, &o, &r), 0);
    T_CHECK("interrupt: the next run is not interrupted and continues", !r.stats.interrupted && r.stats.from_store >= first - 1,
            "interrupted %d, %d from the store", r.stats.interrupted, r.stats.from_store);
    T_NEAR("interrupt: the next run reaches the best", r.stats.best, fresh_best, 1e-9 * fresh_best);
    explore_result_free(&r);
    store_close(s);
}

/* ---- -D procs=P ---- */

static void test_procs(void)
{
    store *s = workspace("procs");
    explore_opts o;
    options(&o, s, 200, 2);
    /* messages and barriers free: an untiled program on its 8 virtual processors looks cheapest */
    o.profile.normsent = o.profile.normrcvd = o.profile.barrier_slope = o.profile.barrier_const = 0;
    o.profile.ts = o.profile.tw = o.profile.g = 0;
    snprintf(o.profile.name, sizeof o.profile.name, "free-comm");
    explore_result r;
    T_EQ_INT("procs: the search runs", run(s, &o, &r), 0);
    int all2 = r.nleaves > 0;
    for (int i = 0; i < r.nleaves; i++) all2 &= r.leaves[i].nprocs == 2;
    T_CHECK("procs: every leaf runs on 2 processors", all2, "%d leaves, the first on %d", r.nleaves,
            r.nleaves ? r.leaves[0].nprocs : 0);
    T_CHECK("procs: the best is one of them", r.nleaves && r.stats.best_node == r.leaves[0].node, "best %lld",
            (long long)r.stats.best_node);
    T_CHECK("procs: nodes on the virtual processors were left out", r.stats.off_procs > 0, "%d", r.stats.off_procs);
    explore_result_free(&r);
    store_close(s);
}

/* Adds a child of `parent` made by `xf` with `params` (the text only tells the nodes apart). */
static int64_t child(store *s, int64_t parent, const char *xf, const char *params, const char *text)
{
    store_add_req q = { .text = text, .len = strlen(text), .level = "syn", .parents = &parent, .nparents = 1,
                        .transform = xf, .params = params };
    int64_t id = -1;
    int created = 0;
    diag_list d;
    diag_list_init(&d);
    if (store_node_add(s, &q, &id, &created, &d) != 0) diag_print(&d, stderr);
    diag_list_free(&d);
    return id;
}

/* A derivation's shape: its mapping's node and its transforms' names; memdist's layout too (pieces
 * and boxes run differently), not a tiling's parameters (leaves of one shape differ in them). */
static void test_shape(void)
{
    store *s = workspace("shape");
    int64_t root = -1;
    diag_list d;
    diag_list_init(&d);
    store_root(s, &root, &d);
    int64_t stm = child(s, root, "stm", "theta=t sigma=i", "# stm\n");
    int64_t tb = child(s, stm, "tile", "kind=blocked procs=2", "# blocked\n");
    int64_t tc = child(s, stm, "tile", "kind=cyclic procs=2", "# cyclic\n");
    int64_t pieces = child(s, tb, "memdist", "layout=auto", "# blocked auto\n");
    int64_t box = child(s, tb, "memdist", "layout=box", "# blocked box\n");
    int64_t cyc = child(s, tc, "memdist", "layout=auto", "# cyclic auto\n");
    char *a = explore_leaf_shape(s, root, pieces, 0, &d), *b = explore_leaf_shape(s, root, box, 0, &d),
         *c = explore_leaf_shape(s, root, cyc, 0, &d);
    char want[64];
    snprintf(want, sizeof want, "%lld tile memdist:layout=auto", (long long)stm);
    T_EQ_STR("shape: the mapping, the transforms, memdist's layout", a ? a : "(null)", want);
    T_CHECK("shape: the box is another shape", a && b && strcmp(a, b) != 0, "%s / %s", a, b);
    T_CHECK("shape: another tiling is the same shape", a && c && !strcmp(a, c), "%s / %s", a, c);
    char *ta = explore_leaf_shape(s, root, pieces, 1, &d), *tc2 = explore_leaf_shape(s, root, cyc, 1, &d);
    snprintf(want, sizeof want, "%lld tile:kind=cyclic memdist:layout=auto", (long long)stm);
    T_EQ_STR("shape with its tiling: tile's kind", tc2 ? tc2 : "(null)", want);
    T_CHECK("shape with its tiling: blocked and cyclic apart", ta && tc2 && strcmp(ta, tc2) != 0, "%s / %s", ta, tc2);
    free(a), free(b), free(c), free(ta), free(tc2);
    diag_list_free(&d);
    store_close(s);
}

/* Extrapolating to the user's size: exact for a cubic; samples that follow no polynomial of
 * positive terms (a block-cyclic leaf of correlation at lambda 0.01 .. 0.04, whose cubic falls
 * below 0 at 1) get the closest polynomial of non-negative terms, not their largest sample's
 * cost; work of degree four (heat-3d) its quartic. */
static void test_extrapolate(void)
{
    const double lam[4] = {0.01, 0.02, 0.03, 0.04};
    double y[4];
    for (int m = 0; m < 4; m++) y[m] = 5 + 7 * lam[m] + 11 * lam[m] * lam[m] + 13 * lam[m] * lam[m] * lam[m];
    T_NEAR("extrapolate: a cubic's value at 1", explore_at_extrapolate(lam, y, 4, 3), 36, 1e-6);
    const double bad[4] = {17617.659, 76309.34, 215296.48, 399315.43};
    double v = explore_at_extrapolate(lam, bad, 4, 3);
    T_CHECK("extrapolate: samples whose cubic falls below 0 at 1 -> a fit of non-negative terms, between the "
            "largest sample's linear and cubic growth", v >= 399315.43 * 25 && v <= 399315.43 * 15625, "%g", v);
    const double flat[4] = {100, 101, 102, 103};   /* barely growing: their own power law */
    double f = explore_at_extrapolate(lam, flat, 4, 3);
    T_CHECK("extrapolate: samples growing slowly keep their slow growth", f >= 103 && f < 103 * 25, "%g", f);
    /* work of degree 4 (heat-3d's t, i, j, k): lam .. lam^4 through the samples, exact at 1 */
    double q[4];
    for (int m = 0; m < 4; m++) q[m] = lam[m] * (2 + lam[m] * (3 + lam[m] * (5 + 7 * lam[m])));
    T_NEAR("extrapolate: degree 4, a quartic's value at 1", explore_at_extrapolate(lam, q, 4, 4), 17, 1e-6);
    T_CHECK("extrapolate: a cubic through the same samples falls a third short", explore_at_extrapolate(lam, q, 4, 3) < 12,
            "%g", explore_at_extrapolate(lam, q, 4, 3));
}

/* A reference run given to a simulation job (simjob.h, ref_res; explore --at verifies every leaf
 * at a sample against one run of the source): used as it is at the program's values; at other
 * values left alone and the reference run. */
static void test_ref_given(void)
{
    diag_list d;
    diag_list_init(&d);
    ir_program *p = ir_load_text("jacobi.apm", jacobi, strlen(jacobi), &d);
    if (!p) { T_CHECK("ref given: the program loads", 0, "%s", d.n ? d.items[0].msg : "?"); diag_list_free(&d); return; }
    ir_binding at16 = {"n", 16}, at20 = {"n", 20};
    simjob a = {.prog = p, .ref = p, .bindings = &at16, .nbindings = 1, .profile = *cost_profile_builtin("scali2004")};
    T_EQ_INT("ref given: a job runs its reference", simjob_run(&a, &d) == 0 && a.ref_res && a.verified == 1, 1);
    simjob b = a, c = a;
    b.res = NULL, b.has_cost = b.has_ref_cost = 0;
    c.res = NULL, c.has_cost = c.has_ref_cost = 0, c.bindings = &at20;
    sim_result *given = a.ref_res;
    T_EQ_INT("ref given: at the same values, verified against it (not run again)",
             simjob_run(&b, &d) == 0 && b.ref_res == given && b.verified == 1 && b.has_ref_cost, 1);
    T_EQ_INT("ref given: at n = 20, its own reference run and verified", simjob_run(&c, &d) == 0 && c.ref_res &&
             c.ref_res != given && c.ref_res->params[0] == 20 && c.verified == 1, 1);
    b.ref_res = NULL;   /* a's */
    simjob_free(&b);
    simjob_free(&c);
    simjob_free(&a);
    ir_program_free(p);
    diag_list_free(&d);
}

int main(void)
{
    test_extrapolate();
    test_ref_given();
    if (!mkdtemp(tmpdir)) return 1;
    test_shape();
    double best = test_order_and_pruning();
    test_resume(best);
    test_interrupt(best);
    test_procs();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", tmpdir);
    return t_done();
}
