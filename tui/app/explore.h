/*
 * explore.h — automatic best-first search of the decision graph below a node (`polyapm explore`,
 * and the TUI's explore key, which runs that command in the background).
 *
 * From the start node, every transform of the registry that applies is tried over its candidate
 * parameter values (transforms/xf.h: the candidates of each parameter, except settings of the
 * cost model (`model_only`), and a parameter bound by -D takes that value, so -D procs=4 fixes
 * the tiling's processors; stm proposes its `stm auto` candidates plus, for statements with more
 * than two loops, their allocations widened by one loop variable — the 2-D processor fields that
 * block2d tiles).  Every child is stored (deduplicated by canonical text, as `apply` does) and
 * simulated against the root (stored as `sim` stores it), and the search goes on from the open
 * node of lowest lower bound:
 *
 *   bound(node) = its cost          when it is tiled (a `proc` loop) or at syncomm/syndm: the
 *                                   later steps (commgen, memdist, relcoord) only add messages
 *                                   or keep the cost;
 *               = aggregate work / P_max   otherwise (the work must still be spread over at most
 *                                   P_max processors: -D procs, else the largest tile candidate),
 *                                   and where redist would transpose an array between phases
 *                                   (xf_redist_pending): its transposes replace the messages.
 *
 * A node none of whose candidates applies is a leaf.  With -D procs=P only nodes simulated on P
 * processors are leaves (and the best): an untiled syncomm/syndm program keeps its virtual
 * processors, so below syn (where tiling applies) such a node is closed unexpanded, and such a
 * leaf is left out (stats.off_procs counts both).  A node is not expanded when it failed
 * verification, when its bound exceeds the best verified leaf found (pruned), or below --depth.
 * The search stops when nothing is open or after `budget` nodes were evaluated (stored results
 * count: a rerun walks the same path from the store and continues where the last run stopped).
 * Then a second pass tries `local` (transforms/local/: the loops of a processor's step
 * interchanged to unit stride, alone, tiled by 32,32,256, and by 64) on the three best verified
 * syndm leaves of each of the three best shapes of derivation (explore_leaf_shape; with opts.at,
 * the best at the user's size; the best of each tiling kind first, then the next best), three
 * evaluations each beyond the budget: the per-rank code of an answer, not a new way to
 * one, so that the search's breadth stays what it was; its children are leaves beside their
 * parent, which stays a leaf to compare them with.
 * A node whose candidates were all tried is marked explored (store_mark STORE_MARK_EXPLORED):
 * a rerun takes its children from the stored edges instead of applying again.
 *
 * With jobs > 1, worker processes (fork) apply the transforms and simulate; only the calling
 * process writes the store.
 *
 * explore_interrupt() (async-signal-safe: call it from a SIGINT/SIGTERM handler) ends the search
 * soon wherever it is — choosing candidates (an isl computation is aborted), applying a transform,
 * simulating, or waiting for workers (they get SIGTERM, and are killed when still busy a second
 * later).  Work cut short is dropped, never stored: what was stored stays, the store stays
 * consistent, and a node whose candidates were not all tried is not marked explored, so a rerun
 * continues from there.  explore_run then returns 0 with stats.interrupted set.
 */
#ifndef POLYAPM_EXPLORE_H
#define POLYAPM_EXPLORE_H

#include <stdint.h>

#include "cost.h"
#include "ir.h"
#include "store.h"
#include "xf.h"

enum { EXPLORE_MAX_BINDINGS = 32 };

typedef struct explore_stats {
    int evaluated;            /* nodes evaluated (simulated, or found simulated in the store) */
    int from_store;           /* of which found in the store */
    int applied, refused;     /* transform applications tried that made a child / were refused */
    int expanded, pruned, leaves, unverified, open;
    int off_procs;            /* with -D procs=P: nodes closed or leaves left out for running on
                                 another number of processors (untiled: the virtual ones) */
    double best;              /* cost of the best verified leaf, or -1 */
    int64_t best_node;
    int interrupted, budget_hit;
    double search_cpu, worker_cpu;   /* CPU seconds of this process and of its workers */
} explore_stats;

/* What the search decided about a node, for an observer (tests, logs): opened (evaluated and
 * verified: it waits with its bound), expanded (its candidates are being tried), pruned (its
 * bound exceeds the best leaf), closed (depth limit, or off P processors). */
typedef enum explore_event { EXPLORE_OPENED, EXPLORE_EXPANDED, EXPLORE_PRUNED, EXPLORE_CLOSED } explore_event;

/* explore --at: nodes are pruned only when their bound exceeds the best leaf's cost this
 * many times (messages weigh more at the search's small sizes than at the user's). */
#define EXPLORE_RANK_SLACK 2.0

typedef struct explore_opts {
    int64_t start;
    int depth;                /* transforms below start (default 8) */
    int budget;               /* nodes to evaluate (default 200) */
    int jobs;                 /* worker processes (1: in this process) */
    int stm_max;              /* stm auto candidates per source node (default 4) */
    double prune_slack;       /* a node is pruned when its bound exceeds the best leaf's cost times
                                 this (0 or 1: the best leaf's cost itself; explore --at
                                 looser, so that leaves dearer at the search's sizes reach the
                                 ranking at the user's) */
    double at_data_scale;     /* set by explore_run with `at`: the arrays' elements at the user's
                                 size over those at the search's (> 1; 0: none).  Each node is
                                 priced twice, its traffic also at that scale (the caches as the
                                 user's arrays fill them), and pruned only when dear both ways:
                                 mvt's all-at-once mapping, whose column walk is cheap at MINI
                                 only once local reorders it, and syrk's rows, whose column walk
                                 local reorders too, both reach the ranking */
    double at_shrink;         /* set by explore_run with `at`: the search's sizes over the user's
                                 (lambda_0 < 1; 0: none).  Pruning then compares a node's bound
                                 and the best leaf's cost weighed, w + lambda_0 (c - w), c the
                                 cost and w the work of each step's busiest processor: at the
                                 user's size the work grows lambda_0^-1 times faster than the
                                 messages and the waiting (a stencil's halo: n^2 against n^3),
                                 so a node whose messages dominate at the search's sizes is not
                                 pruned for them (the search's order stays by cost) */
    const char *model;        /* NULL = polyapm */
    cost_profile profile;
    ir_binding bindings[EXPLORE_MAX_BINDINGS];
    int nbindings;
    void (*progress)(void *ctx, const explore_stats *st);
    void *progress_ctx;
    void (*observe)(void *ctx, explore_event ev, int64_t node, double bound);   /* may be NULL */
    void *observe_ctx;
    /* explore --at: the user's size, nat values of parameters of the start node (0: none; check
     * them with explore_rank_check first).  The leaves are ranked there (below: the rank_top
     * best, 0: 3) before the second pass, which works on the best there, and its own leaves are
     * ranked beside them. */
    ir_binding at[EXPLORE_MAX_BINDINGS];
    int nat;
    int rank_top;
} explore_opts;

typedef struct explore_leaf {
    int64_t node;
    double cost;
    double weighed;           /* with --at, the cost weighed for the user's size as bounds are
                              (explore_opts.at_shrink), which orders the leaves before ranking;
                              without, the cost */
    int verified;
    int nprocs;               /* processors of its simulation (the MPI ranks it runs on) */
    int busy;                 /* of which those with work */
    double rank_cost;         /* its cost at opts.at, extrapolated; -1 when not ranked */
    double rank_seconds;      /* the same in predicted seconds (cost x the profile's tick) */
    int rank_verified;        /* verified at every size it was simulated at (1), or not (0; -1: not ranked) */
    double rank_lambda;       /* its largest sample's factor of opts.at (explore_at.lam; its samples
                                 grow with a leaf that simulates quickly: explore_rank.c) */
    int64_t rank_largest[EXPLORE_MAX_BINDINGS];   /* that sample's values, in the order of opts.at */
} explore_leaf;

enum { EXPLORE_AT_SAMPLES = 4 };
#define EXPLORE_AT_BUDGET 0.4   /* seconds a leaf's largest sample may simulate in (explore_rank_at) */

/* The sizes the ranking at opts.at simulated at: sample m binds the parameters it scaled (in
 * the order of `at`) to b[m][..], lam[m] the factor of the user's size they are, scale[m] the
 * factor of its arrays' elements the user's size has (its traffic is priced at that size's data:
 * the profile's data_scale); degree: of the program's work in its sizes (ir_work_degree). */
typedef struct explore_at {
    int n;
    ir_binding b[EXPLORE_AT_SAMPLES][EXPLORE_MAX_BINDINGS];
    double lam[EXPLORE_AT_SAMPLES];
    double scale[EXPLORE_AT_SAMPLES];
    int degree;
    double shrink;            /* the search's sizes over the user's (explore_opts.at_shrink) */
} explore_at;

typedef struct explore_result {
    explore_stats stats;
    explore_at at;            /* the ranking's samples (n = 0 without opts.at) */
    explore_leaf *leaves;     /* every leaf reached, best first */
    int nleaves;
    /* explore_explain: whether the best leaf spreads its work over its processors (1), keeps it
     * on one (0), or has none to spread it over (-1: no verified leaf, or one processor); when
     * 0, the cheapest verified leaf that spreads it (0: none does) and the source's statements
     * whose every loop carries a dependence (none: some mapping would spread the work, the
     * search found none cheaper). */
    int spread;
    int64_t spread_node;
    xf_serial *serial;        /* owned */
    int nserial;
} explore_result;

/* Runs the search.  0 (also when interrupted: see stats.interrupted), -1 with a message. */
int explore_run(store *s, const explore_opts *o, own_give explore_result *out, diag_list *d);
/* Ranking at the user's size (explore_opts.at, explore --at), part of explore_run: the search
 * simulates at the program's (small) sizes, where messages weigh far more than at the sizes a
 * program runs at.  Simulating at the user's size would take minutes to hours, so each of the
 * rank_top best verified leaves is simulated at EXPLORE_AT_SAMPLES sizes on the ray towards `at`
 * (scaled together; the search's -D bindings hold for the others), from 0.4 of the largest to it,
 * the largest about twice the program's own size (up to four times where the smallest would have a
 * value below 12: explore_result.at), each stored as `polyapm sim NODE -D ...` stores it (a rerun
 * finds them); a leaf whose largest sample simulated in well under EXPLORE_AT_BUDGET seconds is
 * simulated again at four larger samples, grown by the factor that brings the largest's time to
 * about that budget (its work's degree: explore_rank.c), so that its samples hold its tiles
 * whole (explore_leaf.rank_lambda); the decision is taken on the simulations' stored times, and a
 * rerun takes the same;
 * its traffic priced with its data taken at the user's size (explore_at.scale: the profile's
 * data_scale); its cost at `at` is the polynomial of four terms up to the degree of the work
 * through those four costs, its coefficients not negative (explore_at_extrapolate), evaluated
 * there (exact for costs that are such polynomials in the sizes).  When `at` is no larger than twice the program's size, the largest sample is
 * `at` itself and the cost is its simulation's.  Beyond those, the best verified leaf of every
 * other shape of derivation (its space-time mapping and the names of the transforms after it,
 * memdist's with its layout; up to 8 such) is ranked too, and so are the second pass's leaves;
 * the leaves are taken in the order of their weighed costs (explore_leaf.weighed).  The leaves are ordered by that
 * cost: leaves verified at every sample first, cheapest first, then the others, then the leaves
 * not ranked as the search ordered them.  An interrupted ranking leaves the leaves it did not
 * reach with rank_cost -1. */
/* Whether `at` names parameters of node `start` whose values evaluate: 0, or -1 with a message
 * (a caller checks before a search). */
int explore_rank_check(store *s, int64_t start, const ir_binding *at, int nat, diag_list *d);
/* Why the best leaf of r (its first) keeps its work on one processor when it runs on several:
 * sets r->spread, r->spread_node and r->serial (explore_result).  0, or -1 with a message (the
 * source cannot be analysed; r->spread is set). */
int explore_explain(store *s, const explore_opts *o, explore_result *r, diag_list *d);
/* Asks the search under way (or the next one) to stop; async-signal-safe. */
void explore_interrupt(void);
void explore_result_free(own_keep explore_result *r);   /* its contents; r itself is the caller's */

#endif
