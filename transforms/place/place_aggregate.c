/*
 * place_aggregate.c — the aggregation placement (syndm → syndm; Fahringer & Mehofer, "Buffer-Safe
 * and Cost-Driven Communication Optimization", JPDC 1999: coalescing and aggregation, one message
 * per processor pair).
 *
 * What a syndm program's messages are.  A `send` moves one element; the exchange of a step moves
 * them together.  In the plain placement the elements of one array that go to one partner in a
 * step travel as one message, whichever send statements sent them (coalesced: repeats dropped, a
 * row contiguous, a column an MPI vector type; runtime/rt_pattern.c), so a step sends one message
 * per (partner, array): the simulator's trace counts the arrays of each pair, and the cost models
 * charge a message startup for each (engine/cost.c).  That is the standard placement the paper
 * compares with.  The aggregation placement says, in one header line of the program,
 *
 *     level syndm
 *     messages aggregate
 *
 * that a step's messages to one partner travel as one, every array's elements in it: the models
 * charge one startup per partner, and the exporter packs a partner's arrays into one buffer
 * (export_program.c, rt_pattern_aggregate).  Values are the same either way (messages are
 * delivered at the end of the step), so the program verifies as its parent does.
 *
 * It applies to a syndm program that does not say it already, whose sends carry two arrays or
 * more; at the parameters' values some processor must send two arrays to one partner in one
 * step (else it would change no message, and says so).  maxbuf=BYTES is buffer safety: the
 * packed buffers of one processor's step (the words of its partners that get several arrays)
 * must fit, else the plain placement with a comment saying so (the paper's re-blocking).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "place_int.h"
#include "entries_int.h"

enum { AG_MAXARR = 64 };

/* The arrays the sends of a block carry (at most AG_MAXARR, then counted no further). */
typedef struct ag_sent {
    const char *arr[AG_MAXARR];
    int n;
} ag_sent;

static void ag_walk(ag_sent *S, const ir_block *b)
{
    for (int i = 0; b && i < b->n; i++) {
        const ir_stmt *s = b->stmts[i];
        if (s->kind == IR_S_IF) { ag_walk(S, s->u.if_.then_blk); ag_walk(S, s->u.if_.else_blk); }
        else if (s->kind == IR_S_FOR) ag_walk(S, s->u.for_.body);
        else if (s->kind == IR_S_SEND && s->u.send.what->kind == IR_E_ACCESS) {
            const char *a = s->u.send.what->u.access.array;
            int k = 0;
            while (k < S->n && strcmp(S->arr[k], a)) k++;
            if (k == S->n && S->n < AG_MAXARR) S->arr[S->n++] = a;
        }
    }
}

int xf_aggregate_applicable(const ir_program *p, char **why_not)
{
    ag_sent S = {.n = 0};
    ag_walk(&S, p->body);
    *why_not = p->aggregate ? xasprintf("the program already aggregates its messages (`messages aggregate`)")
             : S.n == 0 ? xasprintf("no sends: there are no messages to aggregate")
             : S.n == 1 ? xasprintf("every send carries %s: the plain placement already sends one message per "
                                      "partner and step (the elements of one array to one partner travel together)",
                                      S.arr[0])
             : NULL;
    return *why_not == NULL;
}

/* The most arrays one pair exchanges in one step of the trace, and where. */
static int ag_most_arrays(const sim_trace *t, int *src, int *dst, int *step)
{
    int best = 0;
    for (int s = 0; s < t->nsteps; s++)
        for (int k = 0; t->msgs && t->msgs[s] && k < t->nmsgs[s]; k++)
            if (t->msgs[s][k].arrays > best) {
                best = t->msgs[s][k].arrays;
                *src = t->msgs[s][k].src;
                *dst = t->msgs[s][k].dst;
                *step = s;
            }
    return best;
}

/* maxbuf=BYTES (-1 when absent) into *maxbuf; 0, or -1 with a usage diagnostic. */
static int ag_params(const xf_args *args, int64_t *maxbuf, diag_list *d)
{
    *maxbuf = -1;
    const xf_int_param ps[] = {{"maxbuf", 0, INT64_MAX / 2, maxbuf, NULL}};
    return xf_args_ints(args, "aggregate", ps, 1, d);
}

ir_program *xf_aggregate_apply(const ir_program *src, const xf_args *args, diag_list *d, int *status)
{
    int64_t maxbuf;
    *status = XF_EUSAGE;
    if (ag_params(args, &maxbuf, d) != 0) return NULL;
    *status = XF_EREFUSED;
    sim_result *r = xf_placement_sim(src, args);
    if (!r || !r->ok) {
        diag_add(d, src->file, 0, 0, "aggregate does not apply: the program does not simulate at the parameters' values");
        sim_result_free(r);
        return NULL;
    }
    int from = 0, to = 0, step = 0, proc = 0, bstep = 0;
    int most = ag_most_arrays(&r->trace, &from, &to, &step);
    int64_t need = xf_live_send_bytes(&r->trace, 2, &proc, &bstep);
    sim_result_free(r);
    if (most < 2) {
        diag_add(d, src->file, 0, 0, "aggregate does not apply: at the parameters' values no processor sends two "
                 "arrays to one partner in a step (it would change no message)");
        return NULL;
    }
    if (maxbuf >= 0 && need > maxbuf) {
        *status = XF_OK;
        return xf_placement_fallback("aggregate", src, maxbuf, need, proc, bstep, args);
    }
    ir_program *p = ir_program_clone(src);
    p->aggregate = 1;
    if (xf_check_generated("aggregate", p, d) != 0) return NULL;
    if (args->report)
        fprintf(args->report, "aggregate: one message per partner and step (up to %d arrays in one: processor %d "
                "to %d, step %d)\n", most, from, to, step);
    *status = XF_OK;
    return p;
}

/* Messages a step of trace t sends at most, counted as the program's placement does. */
static int64_t ag_messages(const sim_trace *t)
{
    int64_t best = 0;
    for (int s = 0; s < t->nsteps; s++) {
        int64_t n = 0;
        for (int k = 0; t->msgs && t->msgs[s] && k < t->nmsgs[s]; k++)
            n += t->aggregated || t->msgs[s][k].arrays < 1 ? 1 : t->msgs[s][k].arrays;
        if (n > best) best = n;
    }
    return best;
}

char *xf_aggregate_predict(const ir_program *p, const cost_profile *prof)
{
    xf_args none = {0};
    xf_placement c[2];
    sim_result *ref = NULL;
    if (xf_placement_price(p, prof, "polyapm", &none, NULL, &ref, &c[0]) != 0) return NULL;
    int64_t m0 = ag_messages(&ref->trace);
    ir_program *q = ir_program_clone(p);
    q->aggregate = 1;
    diag_list d;
    diag_list_init(&d);
    if (xf_check_generated("aggregate", q, &d) != 0) q = NULL;   /* freed */
    diag_list_free(&d);
    sim_result *r = NULL;
    int ok = q && xf_placement_price(q, prof, "polyapm", &none, ref, &r, &c[1]) == 0;
    char *out = NULL;
    if (ok)
        out = xasprintf("placements (polyapm model on %s, at the parameters' values; ticks): plain %lld messages a "
                          "step CommCost %.6g cost %.6g; aggregate %lld messages a step CommCost %.6g cost %.6g; "
                          "gain %.1f%%", prof->name, (long long)m0, c[0].commcost, c[0].cost,
                          (long long)ag_messages(&r->trace), c[1].commcost, c[1].cost,
                          c[0].cost > 0 ? 100.0 * (c[0].cost - c[1].cost) / c[0].cost : 0.0);
    ir_program_free(q);
    sim_result_free(r);
    sim_result_free(ref);
    return out;
}
