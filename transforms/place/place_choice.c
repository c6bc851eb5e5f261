/*
 * place_choice.c — the choice among communication placements by cost (Fahringer & Mehofer,
 * "Buffer-Safe and Cost-Driven Communication Optimization", JPDC 1999, the candidate placements
 * ranked by CommCost): the candidates of a syndm program are its own (plain) placement, the
 * overlap placement at each of its width= candidates that applies, the ghost zones at each of
 * theirs (labelled "ghost width=K"), and where aggregation applies the aggregated placement alone
 * and with overlap at each width (the paper's valid SEND combinations: aggregation without latency
 * hiding, latency hiding, both).  Each is simulated at the
 * parameters' values, checked against the plain one's outputs, and priced: its CommCost
 * (cost_summary.commcost: Σ over message groups of |min(0, Overlap)|, Overlap = the work between
 * the sends and recv minus the message time) and its predicted cost.  `transforms` shows them as
 * the overlap row's prediction.
 *
 * Buffer safety (the paper's re-blocking): overlap with maxbuf=BYTES keeps every message of a
 * step in its send buffer from the boundary to recv; where a processor's live send buffers of a
 * step exceed the bound (at the parameters' values), xf_overlap_buffer_safe falls back to the
 * placement with least communication time within it: the plain placement, whose buffers are not
 * live while the step computes (the widths of overlap all send the same messages).  The
 * aggregation placement (place_aggregate.c) falls back the same way when its packed buffers
 * exceed the bound (xf_placement_fallback).
 */
#include <stdlib.h>
#include <string.h>

#include "place_int.h"
#include "entries_int.h"

sim_result *xf_placement_sim(const ir_program *q, const xf_args *args)
{
    sim_options o = {.bindings = args->bindings, .nbindings = args->nbindings, .max_violations = 1,
                     .cancel = xf_cancel_flag()};
    return sim_run(q, &o);
}

int xf_placement_price(const ir_program *q, const cost_profile *prof, const char *model, const xf_args *args,
                 const sim_result *ref, sim_result **keep, xf_placement *c)
{
    sim_result *r = xf_placement_sim(q, args);
    cost_profile priced = xf_export_pricing(q, args->bindings, args->nbindings, prof);
    cost_summary s;
    int rc = -1;
    if (r && r->ok && !r->nviolations && (!ref || sim_verify(r, ref)) && cost_evaluate(model, &r->trace, &priced, &s) == 0) {
        c->commcost = s.commcost;
        c->cost = s.total;
        cost_summary_free(&s);
        rc = 0;
    }
    if (keep && rc == 0) *keep = r;
    else sim_result_free(r);
    return rc;
}

/* The candidates' common inputs. */
typedef struct pl_ctx {
    const cost_profile *prof;
    const char *model;
    const xf_args *args;
    const sim_result *ref;
} pl_ctx;

/* `name` (argc, argv) applied to p, or NULL when it does not apply. */
static ir_program *pl_apply(const pl_ctx *C, const ir_program *p, const char *name, int argc, char **argv)
{
    diag_list d;
    diag_list_init(&d);
    ir_program *q = xf_apply_with(p, name, argc, argv, C->args->bindings, C->args->nbindings, NULL, &d, NULL);
    diag_list_free(&d);
    return q;
}

/* Placement `xf` (overlap, ghost) at each of its width= candidates that applies to q, named
 * prefix + "width=W", from out[n] on; the new count. */
static int pl_widths(const pl_ctx *C, const ir_program *q, const char *xf, const char *prefix, xf_placement *out,
                     int n, int max)
{
    const xf_transform *t = xf_find(xf);
    const char *w = t ? t->params[0].candidates : NULL;   /* width=: "1|2" */
    while (w && *w && n < max) {
        size_t len = strcspn(w, "|");
        char arg[32];
        snprintf(arg, sizeof arg, "width=%.*s", (int)len, w);
        w += len + (w[len] == '|');
        char *argv[1] = {arg};
        ir_program *o = pl_apply(C, q, xf, 1, argv);
        snprintf(out[n].args, sizeof out[n].args, "%s%s", prefix, arg);
        if (o && xf_placement_price(o, C->prof, C->model, C->args, C->ref, NULL, &out[n]) == 0) n++;
        ir_program_free(o);
    }
    return n;
}

int xf_placements(const ir_program *p, const cost_profile *prof, const char *model, const xf_args *args,
                  xf_placement *out, int max)
{
    sim_result *ref = NULL;
    if (max < 1 || xf_placement_price(p, prof, model, args, NULL, &ref, &out[0]) != 0) return 0;
    out[0].args[0] = '\0';
    pl_ctx C = {prof, model, args, ref};
    int n = pl_widths(&C, p, "overlap", "", out, 1, max);
    n = pl_widths(&C, p, "ghost", "ghost ", out, n, max);
    char *why = NULL;
    ir_program *a = n < max && xf_aggregate_applicable(p, &why) ? pl_apply(&C, p, "aggregate", 0, NULL) : NULL;
    free(why);
    if (a) {   /* then aggregated, and aggregated with overlap */
        snprintf(out[n].args, sizeof out[n].args, "aggregate");
        if (xf_placement_price(a, prof, model, args, ref, NULL, &out[n]) == 0)
            n = pl_widths(&C, a, "overlap", "aggregate ", out, n + 1, max);
        ir_program_free(a);
    }
    sim_result_free(ref);
    return n;
}

int xf_placement_least(const xf_placement *c, int n, int by_commcost)
{
    int best = 0;
    for (int i = 1; i < n; i++) {
        double a = by_commcost ? c[i].commcost : c[i].cost, b = by_commcost ? c[best].commcost : c[best].cost;
        if (a < b) best = i;
    }
    return best;
}

char *xf_overlap_predict(const ir_program *p, const cost_profile *prof)
{
    enum { MAXC = 12 };
    xf_placement c[MAXC];
    xf_args none = {0};
    int n = xf_placements(p, prof, "polyapm", &none, c, MAXC);
    if (n == 0) return NULL;
    strbuf b = {0};
    strbuf_printf(&b, "placements (polyapm model on %s, at the parameters' values; ticks; CommCost = the message "
                      "time no work hides):", prof->name);
    for (int i = 0; i < n; i++)
        strbuf_printf(&b, "%s %s CommCost %.6g cost %.6g", i ? ";" : "", i ? c[i].args : "plain", c[i].commcost,
                      c[i].cost);
    int best = xf_placement_least(c, n, 0);
    strbuf_printf(&b, "; least cost: %s", best ? c[best].args : "plain");
    return strbuf_take(&b);
}

int64_t xf_live_send_bytes(const sim_trace *t, int min_arrays, int *proc, int *step)
{
    int64_t best = 0;
    double *out = xcalloc((size_t)(t->nprocs > 0 ? t->nprocs : 1), sizeof *out);
    for (int s = 0; out && s < t->nsteps; s++) {
        for (int i = 0; i < t->nprocs; i++) out[i] = 0;
        for (int k = 0; t->msgs && t->msgs[s] && k < t->nmsgs[s]; k++) {
            const sim_msgs *m = &t->msgs[s][k];
            if (m->src >= 0 && m->src < t->nprocs && (m->arrays > 1 ? m->arrays : 1) >= min_arrays) out[m->src] += m->words;
        }
        for (int i = 0; i < t->nprocs; i++)
            if ((int64_t)(8 * out[i]) > best) { best = (int64_t)(8 * out[i]); *proc = i; *step = s; }
    }
    free(out);
    return best;
}

/* A copy of src whose processor body starts with the comment lines text[0], text[1]. */
ir_program *xf_with_step_comment(const ir_program *src, char *const text[2])
{
    ir_program *q = ir_program_clone(src);
    ir_step_nest n;
    if (!q || ir_step_nest_find(q->body, &n) != IR_NEST_OK || !n.pfor || !n.pfor->u.for_.body->n) return q;
    ir_stmt *first = n.pfor->u.for_.body->stmts[0];
    ir_comments *c = &first->comments;
    const char **lead = ir_alloc(q, (size_t)(c->nlead + 2) * sizeof *lead);
    lead[0] = ir_strdup(q, text[0]);
    lead[1] = ir_strdup(q, text[1]);
    for (int i = 0; i < c->nlead; i++) lead[i + 2] = c->lead[i];
    c->lead = lead;
    c->nlead += 2;
    return q;
}

ir_program *xf_overlap_buffer_safe(const ir_program *src, ir_program *placed, int64_t maxbuf, const xf_args *args,
                                   diag_list *d)
{
    sim_result *r = xf_placement_sim(placed, args);
    if (!r || !r->ok) {
        diag_add(d, src->file, 0, 0, "overlap maxbuf=: the placed program does not simulate at the parameters' values");
        sim_result_free(r);
        ir_program_free(placed);
        return NULL;
    }
    int proc = 0, step = 0;
    int64_t need = xf_live_send_bytes(&r->trace, 1, &proc, &step);
    sim_result_free(r);
    if (need <= maxbuf) return placed;
    ir_program_free(placed);
    return xf_placement_fallback("overlap", src, maxbuf, need, proc, step, args);
}

ir_program *xf_placement_fallback(const char *xf, const ir_program *src, int64_t maxbuf, int64_t need, int proc,
                                  int step, const xf_args *args)
{
    char *msg[2] = {xasprintf("%s maxbuf=%lld: a step's live send buffers reach %lld bytes (processor %d, "
                                "step %d);", xf, (long long)maxbuf, (long long)need, proc, step),
                    xasprintf("re-blocked: the plain placement, the least communication time within the bound")};
    if (args->report) fprintf(args->report, "%s %s\n", msg[0], msg[1]);
    ir_program *q = xf_with_step_comment(src, msg);
    free(msg[0]);
    free(msg[1]);
    return q;
}
