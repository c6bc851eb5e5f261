/*
 * sim.c — the simulator's driver (see sim.h): the violations a run reports, the result, and the
 * run itself: evaluates parameters, plans the memories (one shared set, or one per processor at
 * syndm), finds the step nest of a parallel level, runs steps and processors, delivers messages
 * between steps, records the trace and collects the outputs.
 *
 * Memories and inits are in sim_memory.c, messages in sim_messages.c, outputs, the checksum and
 * the verification in sim_output.c; compilation of the AST in sim_compile.c, the interpreter in
 * sim_exec.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "planes.h"
#include "sim_int.h"

#define SIM_MAX_TRACE (INT64_C(1) << 27)          /* nsteps * nprocs work entries */
#define SIM_STOP_AFTER 1000                       /* violations */

/* ---- violations ----------------------------------------------------------------------------- */

static const char *const sim_kind_names[] = {
    [SIM_V_RACE] = "race",
    [SIM_V_WRONG_MESSAGE] = "wrong-message",
    [SIM_V_MISSING_MESSAGE] = "missing-message",
    [SIM_V_OUT_OF_BOUNDS] = "out-of-bounds",
    [SIM_V_UNDEFINED_READ] = "undefined-read",
    [SIM_V_OUTSIDE_LOCAL] = "outside-local",
    [SIM_V_DISAGREE] = "disagree",
    [SIM_V_BAD_MESSAGE] = "bad-message",
    [SIM_V_RUNTIME] = "runtime",
    [SIM_V_OUTPUT_MISMATCH] = "output-mismatch",
};

const char *sim_violation_kind_name(sim_violation_kind k)
{
    if ((int)k < 0 || (size_t)k >= sizeof sim_kind_names / sizeof sim_kind_names[0]) return "?";
    return sim_kind_names[k];
}

void sim_result_violation(sim_result *r, int maxv, sim_violation_kind k, int line, int col,
                          char *text)
{
    r->violations_total++;
    if (r->nviolations >= maxv || !text) { free(text); return; }
    sim_violation *v = realloc(r->violations, (size_t)(r->nviolations + 1) * sizeof *v);
    if (!v) { free(text); return; }
    r->violations = v;
    v[r->nviolations++] = (sim_violation){ k, line, col, text };
}

void sim_violation_add(sim_ctx *c, sim_violation_kind k, int line, int col, const char *fmt, ...)
{
    if (c->quiet) { c->quiet_errors++; return; }
    va_list ap;
    va_start(ap, fmt);
    char *text = NULL;
    if (vasprintf(&text, fmt, ap) < 0) text = NULL;
    va_end(ap);
    sim_result_violation(c->r, c->maxv, k, line, col, text);
    if (c->r->violations_total >= SIM_STOP_AFTER && !c->stop) {
        c->stop = 1;
        c->stopped_reason = 1;
    }
}

void sim_fmt_elem(const sim_ctx *c, int array, const int64_t *idx, int n, char *buf, size_t size)
{
    const char *name = c->prog->arrays[array]->u.array.name;
    size_t l = (size_t)snprintf(buf, size, "%s", name ? name : "?");
    for (int d = 0; d < n && l < size; d++)
        l += (size_t)snprintf(buf + l, size - l, "[%lld]", (long long)idx[d]);
}

void sim_fmt_where(const sim_ctx *c, char *buf, size_t size)
{
    const sim_stmt *s = c->cur;
    if (!s) { buf[0] = 0; return; }
    if (sim_is_assign(s))
        snprintf(buf, size, " (statement %s at %d:%d)", s->label, s->line, s->col);
    else
        snprintf(buf, size, " (%s at %d:%d)", s->label, s->line, s->col);
}

int64_t sim_proc_value(const sim_ctx *c, int id) { return c->pmin + id; }

/* Shortest text that reads back as the same double. */
void sim_fmt_val(double v, int is_double, char *buf, size_t size)
{
    if (!is_double) { int64_t i; memcpy(&i, &v, 8); snprintf(buf, size, "%lld", (long long)i); return; }
    for (int p = 15; p <= 17; p++) {
        snprintf(buf, size, "%.*g", p, v);
        if (strtod(buf, NULL) == v) return;
    }
}

void sim_fmt_bits(uint64_t bits, int is_double, char *buf, size_t size)
{
    double v;
    memcpy(&v, &bits, 8);
    sim_fmt_val(v, is_double, buf, size);
}

uint64_t sim_norm_bits(uint64_t b)
{
    return b == UINT64_C(0x8000000000000000) ? 0 : b;   /* -0.0 == 0.0 */
}

/* ---- result --------------------------------------------------------------------------------- */

void sim_result_free(sim_result *r)
{
    if (!r) return;
    free(r->params);
    free(r->local_elems);
    free(r->recv_elems);
    sim_trace *t = &r->trace;
    if (t->msgs)
        for (int s = 0; s < t->nsteps; s++) free(t->msgs[s]);
    free(t->msgs);
    free(t->nmsgs);
    if (t->colls)
        for (int s = 0; s < t->nsteps; s++) free(t->colls[s]);
    free(t->colls);
    free(t->ncolls);
    free(t->work);
    free(t->overlap);
    free(t->guard);
    for (int k = 0; k < SIM_WORK_CLASSES; k++) free(t->wclass[k]);
    free(t->streams);
    free(t->restarts);
    free(t->walks);
    free(t->cached);
    free(t->tile_reads);
    free(t->tile_bytes);
    free(t->chains);
    free(t->entries);
    free(t->alias_checks);
    free(t->chained);
    free(t->full_entries);
    free(t->full_checks);
    free(t->data_bytes);
    free(t->step_time);
    free(t->step_procs);
    for (int i = 0; i < r->nviolations; i++) free(r->violations[i].text);
    free(r->violations);
    for (int i = 0; i < r->noutputs; i++) {
        free(r->outputs[i].name);
        free(r->outputs[i].values);
        free(r->outputs[i].defined);
    }
    free(r->outputs);
    diag_list_free(&r->diags);
    free(r);
}

static int sim_trace_alloc(sim_ctx *c, int nsteps, int nprocs)
{
    sim_trace *t = &c->r->trace;
    if ((int64_t)nsteps * (int64_t)nprocs > SIM_MAX_TRACE) {
        diag_add(&c->r->diags, c->prog->file, 0, 0,
                 "the trace would need %lld steps x %d processors; too large to simulate",
                 (long long)nsteps, nprocs);
        return -1;
    }
    t->nsteps = nsteps;
    t->nprocs = nprocs;
    t->aggregated = c->prog->aggregate;
    size_t ns = (size_t)(nsteps ? nsteps : 1);
    t->step_time = calloc(ns, sizeof *t->step_time);
    t->step_procs = calloc(ns, sizeof *t->step_procs);
    t->work = calloc(ns * (size_t)(nprocs ? nprocs : 1), sizeof *t->work);
    t->msgs = calloc(ns, sizeof *t->msgs);
    t->nmsgs = calloc(ns, sizeof *t->nmsgs);
    t->colls = calloc(ns, sizeof *t->colls);
    t->ncolls = calloc(ns, sizeof *t->ncolls);
    if (!t->step_time || !t->step_procs || !t->work || !t->msgs || !t->nmsgs || !t->colls || !t->ncolls) {
        diag_add(&c->r->diags, c->prog->file, 0, 0, "out of memory for the trace");
        return -1;
    }
    return 0;
}

/* ---- the run -------------------------------------------------------------------------------- */

/* The thread's processor time: what a run costs, whatever else the machine runs (explore --at
 * grows a leaf's samples by it). */
static double sim_cpu_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double sim_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct sim_range { int64_t lo; uint64_t cnt; int64_t step; } sim_range;

static int sim_eval_range(sim_ctx *c, sim_node *lo, sim_node *hi, sim_node *st, sim_range *r)
{
    r->lo = sim_eval_i(c, lo);
    int64_t h = sim_eval_i(c, hi);
    r->step = st ? sim_eval_i(c, st) : 1;
    if (r->step <= 0) return -1;
    r->cnt = h < r->lo ? 0 : ((uint64_t)h - (uint64_t)r->lo) / (uint64_t)r->step + 1;
    return 0;
}

static void sim_progress(sim_ctx *c, double f)
{
    if (!c->opt || !c->opt->progress) return;
    double now = sim_clock();
    if (f < 1 && now - c->t_last_progress < 0.05) return;
    c->t_last_progress = now;
    c->opt->progress(c->opt->progress_ctx, f);
}

/* Everything one run of sim_run holds between its phases. */
typedef struct sim_run_state {
    sim_bounds *ab;                  /* global bounds of every array */
    sim_init *inits;
    int ninits;
    sim_out *outs;
    int nouts;
    const ir_decl **dists;           /* per array, syndm */
    const ir_step_nest *nest;        /* syn and above */
    sim_stmt *body;                  /* source: everything; else the processor body */
    sim_stmt **lets;                 /* the lets before the step nest */
    sim_node *tlo, *thi, *tst, *plo, *phi, *pst;
    int tslot, pslot;
    sim_stmt **segs;                 /* the processor body cut at its collectives */
    sim_coll **colls;
    int ncoll;
    int *ids;                        /* processor ids of a step, in rank order (collectives) */
    ir_planes *folds;                /* per array: its live planes (w = 0: every plane) */
    unsigned char *versioned;        /* per array: its values carry versions (sim_version.c) */
    sim_mem *emptymem;               /* syndm: the memories outside any processor */
    sim_range tr;                    /* the time steps */
    int nsteps;
    int64_t bytes;                   /* the arrays' memory */
} sim_run_state;

/* Parameters, frames and the arrays' global bounds.  0 = ok. */
static int sim_setup_bounds(sim_ctx *c, sim_run_state *rs)
{
    const ir_program *p = c->prog;
    sim_result *r = c->r;
    const sim_options *opt = c->opt;
    r->nparams = p->nparams;
    r->params = calloc((size_t)(p->nparams ? p->nparams : 1), sizeof *r->params);
    if (!r->params) return -1;
    if (ir_params_eval(p, opt ? opt->bindings : NULL, opt ? opt->nbindings : 0, 0, r->params, &r->diags) != 0)
        return -1;
    c->params = r->params;
    size_t nsl = (size_t)(p->nslots > 0 ? p->nslots : 1);
    c->fi = calloc(nsl, sizeof *c->fi);
    c->fd = calloc(nsl, sizeof *c->fd);
    rs->ab = calloc((size_t)(p->narrays ? p->narrays : 1), sizeof *rs->ab);
    if (!c->fi || !c->fd || !rs->ab) return -1;
    for (int a = 0; a < p->narrays; a++) {
        const ir_decl *d = p->arrays[a];
        if (d->u.array.ndims > SIM_MAXDIMS) {
            diag_add(&r->diags, p->file, d->pos.line, d->pos.col,
                     "array %s has more than %d dimensions", d->u.array.name, SIM_MAXDIMS);
            return -1;
        }
        for (int k = 0; k < d->u.array.ndims; k++)
            if (sim_const_int(c, d->u.array.lo[k], &rs->ab[a].lo[k]) != 0
                || sim_const_int(c, d->u.array.hi[k], &rs->ab[a].hi[k]) != 0) {
                diag_add(&r->diags, p->file, d->pos.line, d->pos.col,
                         "the bounds of array %s do not evaluate", d->u.array.name);
                return -1;
            }
    }
    c->ab = rs->ab;   /* the work classes read the rows' lengths while compiling */
    return 0;
}

/* One output declaration.  0 = ok. */
static int sim_setup_output(sim_ctx *c, const ir_decl *d, sim_out *so)
{
    const ir_program *p = c->prog;
    so->array = d->u.output.array_index;
    so->nfix = d->u.output.nidx;
    if (so->array < 0 || so->array >= p->narrays || so->nfix > p->arrays[so->array]->u.array.ndims) {
        diag_add(&c->r->diags, p->file, d->pos.line, d->pos.col, "bad output declaration");
        return -1;
    }
    for (int k = 0; k < so->nfix; k++)
        if (sim_const_int(c, d->u.output.idx[k], &so->fix[k]) != 0) {
            diag_add(&c->r->diags, p->file, d->pos.line, d->pos.col, "output index is not a constant");
            return -1;
        }
    return 0;
}

/* The inits, outputs and dists of the program.  0 = ok. */
static int sim_setup_decls(sim_ctx *c, sim_run_state *rs)
{
    const ir_program *p = c->prog;
    for (int i = 0; i < p->ndecls; i++) {
        if (p->decls[i]->kind == IR_D_INIT) rs->ninits++;
        if (p->decls[i]->kind == IR_D_OUTPUT) rs->nouts++;
    }
    rs->inits = calloc((size_t)(rs->ninits ? rs->ninits : 1), sizeof *rs->inits);
    rs->outs = calloc((size_t)(rs->nouts ? rs->nouts : 1), sizeof *rs->outs);
    rs->dists = calloc((size_t)(p->narrays ? p->narrays : 1), sizeof *rs->dists);
    if (!rs->inits || !rs->outs || !rs->dists) return -1;
    int ii = 0, oi = 0;
    for (int i = 0; i < p->ndecls; i++) {
        const ir_decl *d = p->decls[i];
        if (d->kind == IR_D_INIT) {
            if (sim_compile_init(c, d, &rs->inits[ii++]) != 0) return -1;
        } else if (d->kind == IR_D_OUTPUT) {
            if (sim_setup_output(c, d, &rs->outs[oi++]) != 0) return -1;
        } else if (d->kind == IR_D_DIST) {
            int a = d->u.dist.array_index;
            if (a >= 0 && a < p->narrays) rs->dists[a] = d;
        }
    }
    c->dists = rs->dists;   /* the work classes: a pieced memory packs its rows (sim_compile.c) */
    return 0;
}

/* The processor body cut at its collectives: segments and the collectives between them. */
static int sim_compile_supersteps(sim_ctx *c, sim_run_state *rs, const ir_block *pb)
{
    const ir_program *p = c->prog;
    if (pb->cost) {
        diag_add(&c->r->diags, p->file, rs->nest->pfor->pos.line, rs->nest->pfor->pos.col,
                 "a processor body with collectives may not have a cost annotation");
        return -1;
    }
    rs->segs = sim_alloc(c, (size_t)(rs->ncoll + 1) * sizeof *rs->segs);
    rs->colls = sim_alloc(c, (size_t)rs->ncoll * sizeof *rs->colls);
    if (!rs->segs || !rs->colls) return -1;
    int start = 0, si = 0;
    for (int i = 0; i <= pb->n; i++) {
        if (i < pb->n && pb->stmts[i]->kind != IR_S_COLL) continue;
        ir_block part;
        memset(&part, 0, sizeof part);
        part.stmts = pb->stmts + start;
        part.n = i - start;
        rs->segs[si] = sim_compile_block(c, &part);
        if (!rs->segs[si]) return -1;
        if (i < pb->n && !(rs->colls[si] = sim_compile_coll(c, pb->stmts[i]))) return -1;
        si++;
        start = i + 1;
    }
    rs->body = rs->segs[0];
    return 0;
}

/* The step nest of a parallel level: its lets, loop bounds and processor body.  0 = ok. */
static int sim_compile_nest(sim_ctx *c, sim_run_state *rs)
{
    const ir_program *p = c->prog;
    rs->nest = ir_program_nest(p);
    if (!rs->nest) {
        diag_add(&c->r->diags, p->file, 0, 0,
                 "a %s program must be top-level lets and then one step nest "
                 "`for t = .. seq { for p = .. par|proc { .. } }`", ir_level_name(c->level));
        return -1;
    }
    const ir_step_nest *nest = rs->nest;
    rs->lets = sim_alloc(c, (size_t)(nest->nlets + 1) * sizeof *rs->lets);
    for (int i = 0; rs->lets && i < nest->nlets; i++) rs->lets[i] = sim_compile_stmt(c, p->body->stmts[i]);
    const ir_loopvar *tv = &nest->tfor->u.for_.vars[0];
    const ir_loopvar *pv = &nest->pfor->u.for_.vars[nest->pidx];
    rs->tslot = tv->slot;
    rs->pslot = pv->slot;
    if (rs->tslot < 0 || rs->tslot >= p->nslots || rs->pslot < 0 || rs->pslot >= p->nslots) {
        diag_add(&c->r->diags, p->file, 0, 0, "simulator: loop variables without slots");
        return -1;
    }
    rs->tlo = sim_compile_expr(c, tv->lo, IR_INT);
    rs->thi = sim_compile_expr(c, tv->hi, IR_INT);
    rs->tst = tv->step ? sim_compile_expr(c, tv->step, IR_INT) : NULL;
    rs->plo = sim_compile_expr(c, pv->lo, IR_INT);
    rs->phi = sim_compile_expr(c, pv->hi, IR_INT);
    rs->pst = pv->step ? sim_compile_expr(c, pv->step, IR_INT) : NULL;
    const ir_block *pb = nest->pfor->u.for_.body;
    for (int i = 0; pb && i < pb->n; i++) rs->ncoll += pb->stmts[i]->kind == IR_S_COLL;
    if (rs->ncoll > 0 && nest->pidx + 1 == nest->pfor->u.for_.nvars) {
        if (sim_compile_supersteps(c, rs, pb) != 0) return -1;
    } else {
        rs->ncoll = 0;
        rs->body = sim_compile_for(c, nest->pfor, nest->pidx + 1);
    }
    if (!rs->tlo || !rs->thi || !rs->plo || !rs->phi || (tv->step && !rs->tst) || (pv->step && !rs->pst))
        rs->body = NULL;
    for (int i = 0; rs->lets && i < nest->nlets; i++) if (!rs->lets[i]) rs->body = NULL;
    return 0;
}

/* The program's statements: at source all of them, else the step nest.  0 = ok. */
static int sim_compile_program(sim_ctx *c, sim_run_state *rs)
{
    const ir_program *p = c->prog;
    if (p->nops > 0 && !(c->openv = op_env_new(p))) return -1;
    if (c->level == IR_SOURCE) {
        rs->body = sim_compile_block(c, p->body);
        for (int i = 0; rs->body && i < rs->body->n; i++)
            if (rs->body->s[i]->kind == SS_FOR) rs->body->s[i]->outer = 1;
    } else if (sim_compile_nest(c, rs) != 0) {
        return -1;
    }
    if (!rs->body || c->compile_errors) {
        if (!diag_count(&c->r->diags))
            diag_add(&c->r->diags, p->file, 0, 0, "simulator: the program could not be compiled");
        return -1;
    }
    return 0;
}

/* Which arrays keep only live planes (under the time loop; at source the one loop nest after
 * the lets) and which carry versions; at the shared-memory levels, the memory itself.  0 = ok. */
static int sim_plan_memory(sim_ctx *c, sim_run_state *rs)
{
    const ir_program *p = c->prog;
    const ir_loopvar *timevar = NULL;
    if (c->level != IR_SOURCE) {
        timevar = &rs->nest->tfor->u.for_.vars[0];
    } else {
        int first = 0;
        while (first < p->body->n && p->body->stmts[first]->kind == IR_S_LET) first++;
        if (first == p->body->n - 1 && p->body->stmts[first]->kind == IR_S_FOR)
            timevar = &p->body->stmts[first]->u.for_.vars[0];
    }
    size_t na = (size_t)(p->narrays ? p->narrays : 1);
    rs->folds = calloc(na, sizeof *rs->folds);
    rs->versioned = calloc(na, 1);
    if (!rs->folds || !rs->versioned) return -1;
    for (int a = 0; a < p->narrays && timevar && !(c->opt && c->opt->all_planes); a++)
        if (!ir_live_planes(p, c->r->params, a, timevar, &rs->folds[a])) rs->folds[a].w = 0;
    sim_version_plan(c, rs->colls, rs->ncoll, rs->versioned);
    if (c->level == IR_SYNDM) {   /* laid out once the processors are known */
        rs->emptymem = calloc(na, sizeof *rs->emptymem);
        if (!rs->emptymem) return -1;
        for (int a = 0; a < p->narrays; a++) {
            rs->emptymem[a].ndims = p->arrays[a]->u.array.ndims;
            rs->emptymem[a].is_double = p->arrays[a]->u.array.elem == IR_DOUBLE;
        }
        c->mem = rs->emptymem;
        return 0;
    }
    int race = c->level == IR_SYN || c->level == IR_SYNCOMM;
    c->allmem = calloc(na, sizeof *c->allmem);
    if (!c->allmem) return -1;
    c->nmem = 1;
    for (int a = 0; a < p->narrays; a++)
        if (sim_mem_alloc(c, &c->allmem[a], p->arrays[a], rs->ab[a].lo, rs->ab[a].hi, NULL, NULL, NULL, race, 0,
                          rs->folds[a].w ? &rs->folds[a] : NULL, &rs->bytes) != 0
            || (rs->versioned[a] && sim_version_alloc(&c->allmem[a], &rs->bytes) != 0))
            return -1;
    for (int i = 0; i < rs->ninits && !c->stop; i++)
        sim_init_fill(c, &rs->inits[i], &c->allmem[rs->inits[i].array], &rs->ab[rs->inits[i].array]);
    c->mem = c->allmem;
    c->r->array_bytes = rs->bytes;
    return 0;
}

/* The time steps and the processors over all steps (after the top-level lets); the trace, the
 * collectives' frames and, at syndm, the local memories.  0 = ok. */
static int sim_plan_steps(sim_ctx *c, sim_run_state *rs)
{
    const ir_program *p = c->prog;
    sim_result *r = c->r;
    const ir_step_nest *nest = rs->nest;
    c->tval = 0;
    for (int i = 0; i < nest->nlets && !c->stop; i++) sim_exec(c, rs->lets[i]);
    if (sim_eval_range(c, rs->tlo, rs->thi, rs->tst, &rs->tr) != 0 || c->stop) {
        diag_add(&r->diags, p->file, nest->tfor->pos.line, nest->tfor->pos.col,
                 "the time loop's bounds do not evaluate (or its step is not positive)");
        return -1;
    }
    if (rs->tr.cnt > (uint64_t)SIM_MAX_TRACE) {
        diag_add(&r->diags, p->file, nest->tfor->pos.line, nest->tfor->pos.col, "too many time steps");
        return -1;
    }
    rs->nsteps = (int)rs->tr.cnt;
    int64_t pmin = INT64_MAX, pmax = INT64_MIN;
    for (int s = 0; s < rs->nsteps; s++) {
        c->fi[rs->tslot] = (int64_t)((uint64_t)rs->tr.lo + (uint64_t)s * (uint64_t)rs->tr.step);
        sim_range pr;
        if (sim_eval_range(c, rs->plo, rs->phi, rs->pst, &pr) != 0 || c->stop) {
            diag_add(&r->diags, p->file, nest->pfor->pos.line, nest->pfor->pos.col,
                     "the processor loop's bounds do not evaluate (or its step is not positive)");
            return -1;
        }
        if (pr.cnt == 0) continue;
        int64_t last = (int64_t)((uint64_t)pr.lo + (pr.cnt - 1) * (uint64_t)pr.step);
        if (pr.lo < pmin) pmin = pr.lo;
        if (last > pmax) pmax = last;
    }
    if (pmin > pmax) { pmin = 0; pmax = 0; }
    if ((uint64_t)pmax - (uint64_t)pmin >= (uint64_t)SIM_MAX_TRACE) {
        diag_add(&r->diags, p->file, nest->pfor->pos.line, nest->pfor->pos.col, "too many processors");
        return -1;
    }
    c->pmin = pmin;
    c->nprocs = (int)(pmax - pmin + 1);
    if (sim_trace_alloc(c, rs->nsteps, c->nprocs) != 0) return -1;
    c->ab = rs->ab;
    if (rs->ncoll > 0) {
        size_t nsl2 = (size_t)(p->nslots > 0 ? p->nslots : 1) * (size_t)c->nprocs;
        c->pfi = calloc(nsl2, sizeof *c->pfi);
        c->pfd = calloc(nsl2, sizeof *c->pfd);
        rs->ids = calloc((size_t)c->nprocs, sizeof *rs->ids);
        if (!c->pfi || !c->pfd || !rs->ids) {
            diag_add(&r->diags, p->file, 0, 0, "out of memory for the processors' frames");
            return -1;
        }
    }
    if (c->level == IR_SYNDM) {
        if (sim_layout_syndm(c, rs->dists, rs->ab, rs->folds, rs->inits, rs->ninits, &rs->bytes) != 0) return -1;
        if (sim_version_shadows(c, rs->versioned, rs->ab, rs->folds, &rs->bytes) != 0) {
            diag_add(&r->diags, p->file, 0, 0, "out of memory for the arrays' versions");
            return -1;
        }
    }
    r->array_bytes = rs->bytes;
    return 0;
}

/* Processor instance i of the step's range runs `body` (its memory at syndm). */
static void sim_run_instance(sim_ctx *c, const sim_run_state *rs, const sim_range *pr, uint64_t i,
                             int64_t tv, const sim_stmt *body, double *w)
{
    int64_t pv = (int64_t)((uint64_t)pr->lo + i * (uint64_t)pr->step);
    c->fi[rs->tslot] = tv;
    c->fi[rs->pslot] = pv;
    c->proc = (int)(pv - c->pmin);
    if (c->level == IR_SYNDM) c->mem = c->allmem + (size_t)c->proc * (size_t)c->prog->narrays;
    c->ticks = c->post_ticks = c->guard_ticks = 0;
    sim_exec(c, body);
    w[c->proc] += c->ticks;
    if (c->guard_ticks != 0) sim_trace_cell_add(c, &c->r->trace.guard, c->guard_ticks);
    sim_trace_classes_flush(c);
}

/* Step s: every processor instance (in supersteps around the collectives), then the messages
 * due. */
static void sim_run_step(sim_ctx *c, sim_run_state *rs, int s, int *rcounter)
{
    sim_trace *t = &c->r->trace;
    int64_t tv = (int64_t)((uint64_t)rs->tr.lo + (uint64_t)s * (uint64_t)rs->tr.step);
    c->fi[rs->tslot] = tv;
    c->step = s;
    c->tval = tv;
    t->step_time[s] = tv;
    sim_range pr;
    c->cur = NULL;
    sim_eval_range(c, rs->plo, rs->phi, rs->pst, &pr);
    t->step_procs[s] = (int)pr.cnt;
    double *w = t->work + (size_t)s * (size_t)c->nprocs;
    c->rstep = (*rcounter)++;
    for (int seg = 0; rs->ncoll > 0 && seg <= rs->ncoll && !c->stop; seg++) {
        for (uint64_t i = 0; i < pr.cnt && !c->stop; i++) {
            if (seg > 0) sim_frame_load(c, (int)i);
            sim_run_instance(c, rs, &pr, i, tv, rs->segs[seg], w);
            rs->ids[i] = c->proc;
            sim_frame_save(c, (int)i);
            if (--c->poll <= 0) sim_poll(c);
        }
        if (seg < rs->ncoll && !c->stop) {
            c->cur = NULL;
            sim_coll_run(c, rs->colls[seg], rs->ids, (int)pr.cnt);
            c->rstep = (*rcounter)++;
        }
    }
    for (uint64_t i = 0; rs->ncoll == 0 && i < pr.cnt && !c->stop; i++) {
        sim_run_instance(c, rs, &pr, i, tv, rs->body, w);
        if (--c->poll <= 0) sim_poll(c);
    }
    if (c->level != IR_SYN && !c->stop)
        sim_deliver(c, s, s + 1 < rs->nsteps ? (int64_t)((uint64_t)tv + (uint64_t)rs->tr.step) : 0,
                    s + 1 == rs->nsteps);
}

/* Received elements per processor (syndm), then the outputs and their checksum.  0 = ok. */
static int sim_collect_outputs(sim_ctx *c, sim_run_state *rs)
{
    const ir_program *p = c->prog;
    sim_result *r = c->r;
    int64_t nm = (int64_t)c->nmem * c->narrays;
    if (c->level == IR_SYNDM && c->allmem && (r->recv_elems = calloc((size_t)c->nprocs + 1, sizeof *r->recv_elems)))
        for (int64_t i = 0; i < nm; i++) {
            for (int64_t k = 0; c->allmem[i].state && k < c->allmem[i].size; k++)
                r->recv_elems[i / c->narrays] += c->allmem[i].state[k] == SIM_RECEIVED;
            r->recv_elems[i / c->narrays] += c->allmem[i].recv_gone;
        }
    for (int64_t i = 0; c->allmem && i < nm; i++) {
        free(c->allmem[i].meta);
        c->allmem[i].meta = NULL;
    }
    r->outputs = calloc((size_t)(rs->nouts ? rs->nouts : 1), sizeof *r->outputs);
    if (!r->outputs) return -1;
    c->cur = NULL;
    for (int i = 0; i < rs->nouts; i++) {
        const sim_out *so = &rs->outs[i];
        sim_output *o = &r->outputs[i];
        r->noutputs = i + 1;
        const ir_decl *od = NULL;
        for (int k = 0, n = 0; k < p->ndecls; k++)
            if (p->decls[k]->kind == IR_D_OUTPUT && n++ == i) od = p->decls[k];
        int last = c->level != IR_SYNDM;
        for (int j = i + 1; j < rs->nouts; j++) if (rs->outs[j].array == so->array) last = 0;
        sim_mem *sm = last ? &c->allmem[so->array] : NULL;
        if (sim_output_alloc(c, o, od, so, &rs->ab[so->array], sm) != 0) return -1;
        if (c->level != IR_SYNDM) {
            if (!sm || sm->data) sim_gather_mem(c, o, so, &c->allmem[so->array], 0, NULL, 0);
            continue;
        }
        int32_t *seen = calloc((size_t)(o->size ? o->size : 1), sizeof *seen);
        if (!seen) return -1;
        for (int q = 0; q < c->nprocs; q++)
            sim_gather_mem(c, o, so, &c->allmem[(size_t)q * (size_t)p->narrays + (size_t)so->array], 1, seen, q);
        if (c->shadows && c->shadows[so->array].ver)
            sim_gather_lost(c, o, so, &c->shadows[so->array], seen);
        sim_gather_init(c, o, so, rs->inits, rs->ninits, &rs->ab[so->array], seen);
        free(seen);
    }
    r->checksum = sim_checksum(r->outputs, r->noutputs);
    for (int64_t i = 0; i < (int64_t)r->trace.nsteps * r->trace.nprocs; i++)
        r->aggregate_work += r->trace.work[i];
    return 0;
}

static void sim_run_free(sim_ctx *c, sim_run_state *rs)
{
    if (c->allmem) {
        for (int64_t i = 0; i < (int64_t)c->nmem * c->narrays; i++) sim_mem_free(&c->allmem[i]);
        free(c->allmem);
    }
    sim_version_free(c);
    free(rs->versioned);
    free(rs->emptymem);
    free(rs->folds);
    free(rs->dists);
    free(rs->ids);
    free(c->pfi);
    free(c->pfd);
    op_env_free(c->openv);
    crand_cache_free(&c->crand);
    free(c->pend);
    free(c->fi);
    free(c->fd);
    free(rs->ab);
    free(rs->inits);
    free(rs->outs);
    sim_pool_free(&c->pool);
}

/* The trace's data_bytes: each processor's local memories at syndm, else the shared memory's
 * bytes over the processors (8 bytes an element, the exported arrays' element size). */
static int sim_trace_data(sim_ctx *c)
{
    sim_trace *t = &c->r->trace;
    int np = t->nprocs > 0 ? t->nprocs : 1;
    t->data_bytes = calloc((size_t)np, sizeof *t->data_bytes);
    if (!t->data_bytes) return -1;
    double shared = 0;
    for (int a = 0; !c->r->local_elems && c->allmem && a < c->prog->narrays; a++)
        shared += 8.0 * (double)c->allmem[a].size;
    for (int q = 0; q < np; q++)
        t->data_bytes[q] = c->r->local_elems ? 8.0 * (double)c->r->local_elems[q] : shared / np;
    return 0;
}

sim_result *sim_run(const ir_program *p, const sim_options *opt)
{
    sim_result *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    diag_list_init(&r->diags);
    double t0 = sim_clock(), cpu0 = sim_cpu_clock();
    sim_ctx cx, *c = &cx;
    memset(c, 0, sizeof *c);
    c->prog = p;
    c->r = r;
    c->opt = opt;
    c->maxv = opt && opt->max_violations > 0 ? opt->max_violations : 20;
    c->poll = 1 << 14;
    c->t_last_progress = t0;
    c->progress_span = 1;
    c->nprocs = 1;
    c->loop_slot = c->reuse_slot = c->outer_slot = -1;
    c->loop_var = NULL;
    c->jam_slot = c->jam_base = -1;
    c->loop_tile = c->reuse_tile = -1;
    r->level = p ? p->level : IR_SOURCE;
    c->level = r->level;
    sim_run_state rs;
    memset(&rs, 0, sizeof rs);

    if (!p || !p->checked) {
        diag_add(&r->diags, p ? p->file : NULL, 0, 0, "simulator: the program has not been checked");
        goto done;
    }
    if (opt && opt->cancel && *opt->cancel) {
        r->cancelled = 1;
        goto done;
    }
    c->narrays = p->narrays;
    if (sim_setup_bounds(c, &rs) != 0 || sim_setup_decls(c, &rs) != 0 || sim_compile_program(c, &rs) != 0
        || sim_plan_memory(c, &rs) != 0)
        goto done;

    if (c->level == IR_SOURCE) {   /* one step on processor 0 */
        if (sim_trace_alloc(c, 1, 1) != 0) goto done;
        r->trace.step_procs[0] = 1;
        c->ticks = 0;
        c->tval = 0;
        sim_exec(c, rs.body);
        r->trace.work[0] = c->ticks;
        sim_trace_classes_flush(c);
    } else {
        if (sim_plan_steps(c, &rs) != 0) goto done;
        int rcounter = 0;
        for (int s = 0; s < rs.nsteps && !c->stop; s++) {
            sim_run_step(c, &rs, s, &rcounter);
            c->progress_lo = (double)(s + 1) / (double)rs.nsteps;
            sim_progress(c, c->progress_lo);
            if (opt && opt->cancel && *opt->cancel) { c->stop = 1; c->stopped_reason = 2; }
        }
    }
    if (c->stopped_reason == 2) {
        r->cancelled = 1;
        goto done;
    }
    if (sim_collect_outputs(c, &rs) != 0 || sim_trace_data(c) != 0) goto done;
    r->ok = 1;
    sim_progress(c, 1.0);

done:
    sim_run_free(c, &rs);
    r->seconds = sim_cpu_clock() - cpu0;
    return r;
}
