/*
 * place_choice.c — the choice among communication placements by cost (Fahringer & Mehofer,
 * "Buffer-Safe and Cost-Driven Communication Optimization", JPDC 1999, the candidate placements
 * ranked by CommCost): the candidates of a syndm program are its own (plain) placement, the
 * overlap placement at each of its width= candidates that applies, and the ghost zones at each of
 * theirs (labelled "ghost width=K").  Each is simulated at the
 * parameters' values, checked against the plain one's outputs, and priced: its CommCost
 * (cost_summary.commcost: Σ over message groups of |min(0, Overlap)|, Overlap = the work between
 * the sends and recv minus the message time) and its predicted cost.  `transforms` shows them as
 * the overlap row's prediction.
 *
 * Buffer safety (the paper's re-blocking): overlap with maxbuf=BYTES keeps every message of a
 * step in its send buffer from the boundary to recv; where a processor's live send buffers of a
 * step exceed the bound (at the parameters' values), xf_overlap_buffer_safe falls back to the
 * placement with least communication time within it: the plain placement, whose buffers are not
 * live while the step computes (the widths of overlap all send the same messages).
 */
#include <stdlib.h>
#include <string.h>

#include "xf_int.h"

/* Simulates and prices q into *c (args already set); the reference run `ref` (NULL: q is the
 * reference, returned through *keep). 0 on success. */
static int price(const ir_program *q, const cost_profile *prof, const char *model, const xf_args *args,
                 const sim_result *ref, sim_result **keep, xf_placement *c)
{
    sim_options o = {.bindings = args->bindings, .nbindings = args->nbindings, .max_violations = 1,
                     .cancel = xf_cancel_flag()};
    sim_result *r = sim_run(q, &o);
    cost_summary s;
    int rc = -1;
    if (r && r->ok && !r->nviolations && (!ref || sim_verify(r, ref)) &&
        cost_evaluate(model, &r->trace, prof, &s) == 0) {
        c->commcost = s.commcost;
        c->cost = s.total;
        cost_summary_free(&s);
        rc = 0;
    }
    if (keep && rc == 0) *keep = r;
    else sim_result_free(r);
    return rc;
}

/* The placement transforms whose width= candidates are candidates, and their labels' prefix. */
static const struct { const char *xf, *label; } placement_xfs[] = {{"overlap", ""}, {"ghost", "ghost "}};

int xf_placements(const ir_program *p, const cost_profile *prof, const char *model, const xf_args *args,
                  xf_placement *out, int max)
{
    sim_result *ref = NULL;
    if (max < 1 || price(p, prof, model, args, NULL, &ref, &out[0]) != 0) return 0;
    out[0].args[0] = '\0';
    int n = 1;
    for (size_t x = 0; x < sizeof placement_xfs / sizeof placement_xfs[0]; x++) {
        const xf_transform *t = xf_find(placement_xfs[x].xf);
        const char *w = t ? t->params[0].candidates : NULL;   /* width=: "1|2" */
        while (w && *w && n < max) {
            size_t len = strcspn(w, "|");
            xf_placement *c = &out[n];
            char arg[32];
            snprintf(arg, sizeof arg, "width=%.*s", (int)len, w);
            snprintf(c->args, sizeof c->args, "%s%s", placement_xfs[x].label, arg);
            w += len + (w[len] == '|');
            char *argv[1] = {arg};
            diag_list d;
            diag_list_init(&d);
            ir_program *q = xf_apply_with(p, t->name, 1, argv, args->bindings, args->nbindings, NULL, &d, NULL);
            diag_list_free(&d);
            if (q && price(q, prof, model, args, ref, NULL, c) == 0) n++;
            ir_program_free(q);
        }
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
    enum { MAXC = 8 };
    xf_placement c[MAXC];
    xf_args none = {0};
    int n = xf_placements(p, prof, "polyapm", &none, c, MAXC);
    if (n == 0) return NULL;
    xf_buf b = {0};
    xf_buf_printf(&b, "placements (polyapm model on %s, at the parameters' values; ticks; CommCost = the message "
                      "time no work hides):", prof->name);
    for (int i = 0; i < n; i++)
        xf_buf_printf(&b, "%s %s CommCost %.6g cost %.6g", i ? ";" : "", i ? c[i].args : "plain", c[i].commcost,
                      c[i].cost);
    int best = xf_placement_least(c, n, 0);
    xf_buf_printf(&b, "; least cost: %s", best ? c[best].args : "plain");
    return xf_buf_take(&b);
}

/* The most bytes (8 a word) one processor sends in one step of the trace, and where. */
static int64_t live_send_bytes(const sim_trace *t, int *proc, int *step)
{
    int64_t best = 0;
    double *out = calloc((size_t)(t->nprocs > 0 ? t->nprocs : 1), sizeof *out);
    for (int s = 0; out && s < t->nsteps; s++) {
        for (int i = 0; i < t->nprocs; i++) out[i] = 0;
        for (int k = 0; t->msgs && t->msgs[s] && k < t->nmsgs[s]; k++)
            if (t->msgs[s][k].src >= 0 && t->msgs[s][k].src < t->nprocs) out[t->msgs[s][k].src] += t->msgs[s][k].words;
        for (int i = 0; i < t->nprocs; i++)
            if ((int64_t)(8 * out[i]) > best) { best = (int64_t)(8 * out[i]); *proc = i; *step = s; }
    }
    free(out);
    return best;
}

/* A copy of src whose processor body starts with the comment lines text[0], text[1]. */
static ir_program *with_comment(const ir_program *src, char *const text[2])
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
    sim_options o = {.bindings = args->bindings, .nbindings = args->nbindings, .max_violations = 1,
                     .cancel = xf_cancel_flag()};
    sim_result *r = sim_run(placed, &o);
    if (!r || !r->ok) {
        diag_add(d, src->file, 0, 0, "overlap maxbuf=: the placed program does not simulate at the parameters' values");
        sim_result_free(r);
        ir_program_free(placed);
        return NULL;
    }
    int proc = 0, step = 0;
    int64_t need = live_send_bytes(&r->trace, &proc, &step);
    sim_result_free(r);
    if (need <= maxbuf) return placed;
    ir_program_free(placed);
    char *msg[2] = {xf_asprintf("overlap maxbuf=%lld: a step's live send buffers reach %lld bytes (processor %d, "
                                "step %d);", (long long)maxbuf, (long long)need, proc, step),
                    xf_asprintf("re-blocked: the plain placement, the least communication time within the bound")};
    if (args->report) fprintf(args->report, "%s %s\n", msg[0], msg[1]);
    ir_program *q = with_comment(src, msg);
    free(msg[0]);
    free(msg[1]);
    return q;
}
