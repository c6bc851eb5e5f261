/*
 * explore_why.c — why explore's best leaf keeps the work on one processor (explore_explain, see
 * explore.h): the statements of the source none of whose loops may run in parallel, each loop
 * with the dependence it carries (transforms/poly/carried.c), and how many processors of a leaf
 * work (explore_busy).
 */
#include "explore_int.h"

#include <stdlib.h>

#include "ops.h"
#include "xf.h"

int explore_busy(const char *per_proc)
{
    double *w = NULL;
    int n = ops_json_numbers(per_proc, "work", &w), busy = 0;
    for (int i = 0; i < n; i++) busy += w[i] > 0;
    free(w);
    return busy;
}

double explore_step_work(const char *per_proc)
{
    double *w = NULL;
    int n = ops_json_numbers(per_proc, "step_work", &w);
    double v = n == 1 ? w[0] : -1;
    free(w);
    return v;
}

int explore_explain(store *s, const explore_opts *o, explore_result *r, diag_list *d)
{
    r->spread = -1;
    r->spread_node = 0;
    const explore_leaf *best = r->nleaves && r->leaves[0].verified == 1 ? &r->leaves[0] : NULL;
    if (!best || best->nprocs < 2) return 0;   /* nothing to spread over */
    r->spread = best->busy > 1;
    if (r->spread) return 0;
    for (int i = 1; i < r->nleaves && !r->spread_node; i++)
        if (r->leaves[i].verified == 1 && r->leaves[i].busy > 1) r->spread_node = r->leaves[i].node;
    int64_t root;
    if (store_reference(s, o->start, &root, d) != 0) return -1;
    ir_program *src = ops_node_program(s, root, d);
    if (!src) return -1;
    int rc = xf_serial_statements(src, o->bindings, o->nbindings, &r->serial, &r->nserial, d);
    ir_program_free(src);
    return rc;
}
