/*
 * explore_rank.c — ranking explore's best leaves at the user's sizes (explore_rank_at, see
 * explore.h): each of the k best verified leaves simulated at other parameter values and stored
 * as `polyapm sim NODE -D ...` stores it, then the leaves ordered by those costs.
 */
#include "explore.h"

#include <stdlib.h>
#include <string.h>

#include "ops.h"
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
            diag_add(d, NULL, 0, 0, "--rank-at: '%s' is not a parameter of node %lld", at[k].name, (long long)start);
            rc = -1;
        }
    }
    int64_t *vals = calloc((size_t)(p->nparams ? p->nparams : 1), sizeof *vals);
    if (rc == 0 && (!vals || ir_params_eval(p, at, nat, 1, vals, d) != 0)) rc = -1;
    if (rc == 0 && nat > OPS_MAX_BINDINGS) {
        diag_add(d, NULL, 0, 0, "--rank-at: at most %d values", OPS_MAX_BINDINGS);
        rc = -1;
    }
    free(vals);
    ir_program_free(p);
    return rc;
}

/* Simulates leaf x at the merged bindings (or finds it stored).  0, or -1 with a message. */
static int rank_one(store *s, const explore_opts *o, const ir_binding *b, int nb, explore_leaf *x, diag_list *d)
{
    ops_sim j;
    memset(&j, 0, sizeof j);
    j.node = x->node;
    j.model = o->model;
    j.profile = o->profile;
    j.nbindings = nb;
    memcpy(j.bindings, b, (size_t)nb * sizeof *b);
    int rc = ops_sim_prepare(s, &j, d);
    if (rc == 0)
        rc = ops_sim_run(&j, xf_cancel_flag(), NULL, NULL, d) == 0 && ops_sim_store(s, &j, d) == 0 ? 1 : -1;
    if (rc == 1) {
        x->rank_cost = j.total;
        x->rank_verified = j.verified == 1;
    }
    ops_sim_free(&j);
    return rc < 0 ? -1 : 0;
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

int explore_rank_at(store *s, const explore_opts *o, const ir_binding *at, int nat, int k,
                    explore_result *r, diag_list *d)
{
    for (int i = 0; i < r->nleaves; i++) r->leaves[i].rank_cost = -1, r->leaves[i].rank_verified = -1;
    if (nat <= 0 || k <= 0) return 0;
    if (explore_rank_check(s, o->start, at, nat, d) != 0) return -1;
    ir_binding b[OPS_MAX_BINDINGS];
    int nb = merge_bindings(o, at, nat, b, OPS_MAX_BINDINGS);
    int n = 0;   /* the k best verified leaves come first in r (explore_run's order) */
    while (n < r->nleaves && n < k && r->leaves[n].verified == 1) n++;
    for (int i = 0; i < n && !xf_cancelled(); i++)
        if (rank_one(s, o, b, nb, &r->leaves[i], d) != 0) {
            if (xf_cancelled()) break;
            return -1;
        }
    if (xf_cancelled()) r->stats.interrupted = 1;
    if (n > 1) qsort(r->leaves, (size_t)n, sizeof *r->leaves, rank_cmp);
    return 0;
}
