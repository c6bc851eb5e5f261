/*
 * test_sim.c — the simulator (sim.h) on the programs in tests/sim/ and the thesis's finite
 * differences chain in examples/thesis/: values, work counting, violations (kind, processor,
 * step, element, statement), message traces, verification against the source, and the cost
 * figures of the thesis (Ellmenreich 2004, ch. 5).  Paths are relative to $ROOT (default ".").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost.h"
#include "sim.h"
#include "t.h"
#include "t_load.h"

static ir_program *load(const char *rel) { return t_load(rel); }

/* Runs a program file with optional overrides; NULL when it does not load. */
static sim_result *run(const char *rel, const ir_binding *b, int nb)
{
    ir_program *p = load(rel);
    if (!p) return NULL;
    sim_options o;
    memset(&o, 0, sizeof o);
    o.bindings = b;
    o.nbindings = nb;
    sim_result *r = sim_run(p, &o);
    ir_program_free(p);
    return r;
}

static int has_violation(const sim_result *r, sim_violation_kind k, const char *text)
{
    for (int i = 0; i < r->nviolations; i++)
        if (r->violations[i].kind == k && (!text || strstr(r->violations[i].text, text))) return 1;
    return 0;
}

static double model_total(const sim_result *r)
{
    cost_summary s;
    if (cost_evaluate("polyapm", &r->trace, cost_profile_builtin("scali2004"), &s) != 0) return -1;
    double t = s.total;
    cost_summary_free(&s);
    return t;
}

static void test_costs(void)
{
    sim_result *r = run("tests/sim/costs.apm", NULL, 0);
    if (!r) return;
    T_EQ_INT("costs ok", r->ok, 1);
    /* per i: lets 0 (int) and 3 (double *, sqrt, +); S 0 (int); V 2, +1 when i > 2 (i * 2 is
     * free); W 2.5; X 4 (unary -, max, two +); Z 2 (!, >; the int sum is free);
     * if: i = 1, 2 cond 1 + reduction i * (1 + 1); i = 3, 4 cost 5 */
    T_NEAR("costs work", r->trace.work[0],
           4 * (3 + 2 + 2.5 + 4 + 2) + 2 * 1 + (1 + 2) + (1 + 4) + 5 + 5, 0);
    T_NEAR("costs aggregate", r->aggregate_work, r->trace.work[0], 0);
    T_EQ_INT("costs nsteps", r->trace.nsteps, 1);
    T_EQ_INT("costs nprocs", r->trace.nprocs, 1);
    T_EQ_INT("costs step_procs", r->trace.step_procs[0], 1);
    T_EQ_INT("costs outputs", r->noutputs, 3);
    if (r->noutputs == 3) {
        /* a[1] = 1·2 + 1, a[2] = (a[1]·2 + 2·2) + 1 with a[1] = 3 → 11, a[3] = 7, a[4] = 9 */
        T_NEAR("costs a[1]", r->outputs[0].values[0], 3, 0);
        T_NEAR("costs a[2]", r->outputs[0].values[1], 11, 0);
        T_NEAR("costs a[3]", r->outputs[0].values[2], 7, 0);
        /* b[i] = (2i+1) % 3 + min(i, 2, 3) + isqrt(i) + |i - 5|: 0+1+1+4, 2+2+1+3, 1+2+1+2 */
        T_NEAR("costs b[1]", r->outputs[1].values[0], 6, 0);
        T_NEAR("costs b[2]", r->outputs[1].values[1], 8, 0);
        T_NEAR("costs b[3]", r->outputs[1].values[2], 6, 0);
        /* d[4] = -a[4] + max(a[4], 0.5, 1.5) + sqrt(4) + 2 = 4 */
        T_NEAR("costs d[4]", r->outputs[2].values[3], 4, 0);
        T_EQ_INT("costs b lo", r->outputs[1].lo[0], 1);
        T_EQ_INT("costs b size", r->outputs[1].size, 4);
    }
    sim_result_free(r);
}

static void test_errors(void)
{
    sim_result *r = run("tests/sim/errors.apm", NULL, 0);
    if (r) {
        T_EQ_INT("undefined recorded", r->nviolations, 20);
        T_EQ_INT("undefined total", r->violations_total, 31);
        T_CHECK("undefined kind", r->nviolations > 0 && r->violations[0].kind == SIM_V_UNDEFINED_READ,
                "first violation kind");
        T_CHECK("undefined text", has_violation(r, SIM_V_UNDEFINED_READ, "a[1] has no value")
                && has_violation(r, SIM_V_UNDEFINED_READ, "statement S at 10:3"), "texts");
        T_EQ_INT("undefined line", r->nviolations ? r->violations[0].line : 0, 10);
        /* reads without a value use 0 and the run goes on */
        T_CHECK("output after violations", r->noutputs == 1 && r->outputs[0].defined[0] &&
                r->outputs[0].defined[1] && r->outputs[0].values[1] == 1.0, "defined flags/values");
        sim_result_free(r);
    }
    ir_binding b = { "n", 3 };
    r = run("tests/sim/errors.apm", &b, 1);
    if (r) {
        T_EQ_INT("oob total", r->violations_total, 4);
        T_CHECK("oob", has_violation(r, SIM_V_OUT_OF_BOUNDS, "a[4]")
                && has_violation(r, SIM_V_OUT_OF_BOUNDS, "statement T"), "no out-of-bounds a[4] by T");
        sim_result_free(r);
    }
    r = run("tests/sim/divzero.apm", NULL, 0);
    if (r) {
        T_EQ_INT("divzero one violation", r->violations_total, 1);
        T_CHECK("divzero runtime", has_violation(r, SIM_V_RUNTIME, "division by zero"), "kind/text");
        T_CHECK("divzero stopped", r->noutputs == 1 && !r->outputs[0].defined[1], "ran on");
        sim_result_free(r);
    }
    r = run("tests/sim/step0.apm", NULL, 0);
    if (r) {
        T_CHECK("step0 runtime", has_violation(r, SIM_V_RUNTIME, "step"), "no violation");
        T_CHECK("step0 where", r->nviolations && r->violations[0].line == 7, "line %d",
                r->nviolations ? r->violations[0].line : 0);
        sim_result_free(r);
    }
    r = run("tests/sim/huge.apm", NULL, 0);
    if (r) {
        T_EQ_INT("huge not ok", r->ok, 0);
        T_CHECK("huge diag", r->diags.n > 0 && strstr(r->diags.items[0].msg, "too large"), "no diag");
        sim_result_free(r);
    }
    ir_binding z = { "steps", 0 };
    r = run("tests/sim/jac-dm.apm", &z, 1);
    if (r) {
        T_EQ_INT("no steps ok", r->ok, 1);
        T_EQ_INT("no steps", r->trace.nsteps, 0);
        /* nobody computed a[0]: the output comes from the init, a[0][x] = x·x % 5 */
        T_CHECK("no steps init output", r->noutputs == 1 && r->outputs[0].defined[3] &&
                r->outputs[0].values[3] == 4.0, "init values");
        sim_result_free(r);
    }
    z.value = -1000000000;
    r = run("tests/sim/jac-dm.apm", &z, 1);
    if (r) {
        T_EQ_INT("output outside bounds not ok", r->ok, 0);
        T_CHECK("output outside bounds diag", r->diags.n == 1 && r->diags.items[0].line == 9, "diag");
        sim_result_free(r);
    }
}

static void test_race(void)
{
    sim_result *r = run("tests/sim/race.apm", NULL, 0);
    if (!r) return;
    T_EQ_INT("race total", r->violations_total, 14);
    T_CHECK("race text", has_violation(r, SIM_V_RACE,
            "race: processor 2 reads a[1] written by processor 1 in the same step t=1 (statement S at 9:3)"),
            "%s", r->nviolations ? r->violations[0].text : "none");
    T_CHECK("race step 2", has_violation(r, SIM_V_RACE, "processor 8 reads a[7] written by processor 7 in the same step t=2"),
            "missing");
    T_EQ_INT("race nprocs", r->trace.nprocs, 8);
    T_EQ_INT("race step_procs", r->trace.step_procs[1], 8);
    T_EQ_INT("race step_time", r->trace.step_time[1], 2);
    T_NEAR("race work", r->trace.work[1 * 8 + 3], 1, 0);
    sim_result_free(r);
}

static void test_messages(void)
{
    sim_result *r = run("tests/sim/wrong.apm", NULL, 0);
    if (r) {
        T_EQ_INT("wrong total", r->violations_total, 3);
        T_CHECK("wrong text", has_violation(r, SIM_V_WRONG_MESSAGE,
                "processor 0 \u2192 1 sent at t=1 for t=2: a[1][1] = 0, memory holds 2"), "%s",
                r->nviolations ? r->violations[0].text : "none");
        T_EQ_INT("wrong msgs step 0", r->trace.nmsgs[0], 3);
        if (r->trace.nmsgs[0] == 3) {
            T_EQ_INT("wrong msg src", r->trace.msgs[0][1].src, 1);
            T_EQ_INT("wrong msg dst", r->trace.msgs[0][1].dst, 2);
            T_EQ_INT("wrong msg count", r->trace.msgs[0][1].count, 1);
        }
        sim_result_free(r);
    }
    sim_result *src = run("tests/sim/jac-src.apm", NULL, 0);
    sim_result *dm = run("tests/sim/jac-dm.apm", NULL, 0);
    sim_result *rel = run("tests/sim/jac-rel.apm", NULL, 0);
    sim_result *mis = run("tests/sim/jac-missing.apm", NULL, 0);
    if (src && dm && rel && mis) {
        T_EQ_INT("jac src clean", src->violations_total, 0);
        T_EQ_INT("jac dm clean", dm->violations_total, 0);
        T_EQ_INT("jac rel clean", rel->violations_total, 0);
        T_EQ_INT("jac dm verified", sim_verify(dm, src), 1);
        T_EQ_INT("jac rel verified", sim_verify(rel, src), 1);
        T_CHECK("jac checksums", dm->checksum == src->checksum && rel->checksum == src->checksum,
                "%llx %llx %llx", (unsigned long long)src->checksum,
                (unsigned long long)dm->checksum, (unsigned long long)rel->checksum);
        /* each step, processor 0 sends one word to 1 and 1 one to 0 */
        T_EQ_INT("jac dm msgs", dm->trace.nmsgs[1], 2);
        T_EQ_INT("jac dm msgs last step", dm->trace.nmsgs[2], 2);
        T_CHECK("jac dm pair", dm->trace.nmsgs[1] == 2 && dm->trace.msgs[1][0].src == 0 &&
                dm->trace.msgs[1][0].dst == 1 && dm->trace.msgs[1][0].words == 1.0, "pair");
        T_EQ_INT("jac missing total", mis->violations_total, 4);
        T_CHECK("jac missing text", has_violation(mis, SIM_V_MISSING_MESSAGE,
                "missing message: processor 0 at t=2 reads a[1][4], which it neither computed nor "
                "received (statement S at 14:7)"), "%s", mis->nviolations ? mis->violations[0].text : "none");
        T_EQ_INT("jac missing verify", sim_verify(mis, src), 0);
        T_CHECK("jac missing mismatch", has_violation(mis, SIM_V_OUTPUT_MISMATCH, "output mismatch: a["), "%s",
                mis->nviolations ? mis->violations[mis->nviolations - 1].text : "none");
    }
    sim_result_free(src);
    sim_result_free(dm);
    sim_result_free(rel);
    sim_result_free(mis);

    /* relative coordinates without the halo messages: global indices in the text */
    ir_program *p = load("tests/sim/jac-rel.apm");
    if (p) {
        /* drop the sends: the body's for is the last statement of the processor loop */
        sim_options o;
        memset(&o, 0, sizeof o);
        ir_stmt *nest = p->body->stmts[p->body->n - 1];
        ir_block *inner = nest->u.for_.body->stmts[0]->u.for_.body;
        inner->n -= 2;
        sim_result *r2 = sim_run(p, &o);
        T_CHECK("rel missing global", has_violation(r2, SIM_V_MISSING_MESSAGE,
                "reads a[1][5] (global a[1][4])"), "%s", r2->nviolations ? r2->violations[0].text : "none");
        sim_result_free(r2);
        ir_program_free(p);
    }
}

static void test_checksum(void)
{
    double v[3] = { 0.0, 1.5, 0.0 };
    unsigned char def[3] = { 1, 1, 0 };
    sim_output o = { .name = "a", .ndims = 1, .lo = { 0 }, .hi = { 2 }, .size = 3, .values = v,
                     .defined = def };
    uint64_t h = sim_checksum(&o, 1);
    v[0] = -0.0;
    T_CHECK("checksum -0", sim_checksum(&o, 1) == h, "differs");
    def[2] = 1;
    T_CHECK("checksum undefined", sim_checksum(&o, 1) != h, "same");
    T_CHECK("checksum empty", sim_checksum(&o, 0) == 0xcbf29ce484222325ULL, "not FNV basis");
    /* FNV-1a 64 over the 8 bytes of 1.0 (0x3ff0000000000000) */
    double one = 1.0;
    unsigned char d1 = 1;
    sim_output o1 = { .name = "x", .ndims = 0, .size = 1, .values = &one, .defined = &d1 };
    uint64_t want = 0xcbf29ce484222325ULL;
    unsigned long long bits = 0x3ff0000000000000ULL;
    for (int j = 0; j < 8; j++) { want ^= (bits >> (8 * j)) & 0xff; want *= 0x100000001b3ULL; }
    T_CHECK("checksum 1.0", sim_checksum(&o1, 1) == want, "differs");
}

static void progress_cb(void *ctx, double f) { *(double *)ctx = f; }

typedef struct progress_log { int calls, monotonic; double last; volatile int *cancel; } progress_log;

static void progress_cancel(void *ctx, double f)
{
    progress_log *l = ctx;
    if (f < l->last) l->monotonic = 0;
    l->last = f;
    if (++l->calls == 2) *l->cancel = 1;
}

static void test_options(void)
{
    ir_program *p = load("tests/sim/jac-dm.apm");
    if (!p) return;
    volatile int cancel = 1;
    sim_options o;
    memset(&o, 0, sizeof o);
    o.cancel = &cancel;
    sim_result *r = sim_run(p, &o);
    T_EQ_INT("cancelled", r->cancelled, 1);
    sim_result_free(r);
    double last = -1;
    memset(&o, 0, sizeof o);
    o.progress = progress_cb;
    o.progress_ctx = &last;
    o.max_violations = 1;
    r = sim_run(p, &o);
    T_NEAR("progress end", last, 1.0, 0);
    T_EQ_INT("params", r->nparams, 3);
    sim_result_free(r);
    ir_program_free(p);
    p = load("tests/sim/errors.apm");
    if (!p) return;
    r = sim_run(p, &o);
    T_EQ_INT("max violations", r->nviolations, 1);
    T_EQ_INT("max violations total", r->violations_total, 31);
    sim_result_free(r);
    ir_program_free(p);
    T_EQ_STR("kind name", sim_violation_kind_name(SIM_V_MISSING_MESSAGE), "missing-message");

    /* a long source run: progress in order, and a cancel from inside the run stops it */
    p = load("examples/findiff.apm");
    if (!p) return;
    volatile int stop = 0;
    progress_log lg = { 0, 1, 0, &stop };
    ir_binding b = { "n", 512 };
    memset(&o, 0, sizeof o);
    o.bindings = &b;
    o.nbindings = 1;
    o.progress = progress_cancel;
    o.progress_ctx = &lg;
    o.cancel = &stop;
    r = sim_run(p, &o);
    T_CHECK("progress during run", lg.calls >= 2, "%d calls", lg.calls);
    T_CHECK("progress monotonic", lg.monotonic && lg.last >= 0 && lg.last < 1, "last %g", lg.last);
    T_EQ_INT("cancelled from progress", r->cancelled, 1);
    T_EQ_INT("cancelled not ok", r->ok, 0);
    sim_result_free(r);
    ir_program_free(p);
}

static void test_bad_messages(void)
{
    sim_result *r = run("tests/sim/disagree.apm", NULL, 0);
    if (r) {
        T_EQ_INT("disagree total", r->violations_total, 2);
        T_CHECK("disagree text", has_violation(r, SIM_V_DISAGREE,
                "processors 0 and 2 computed different values for a[0]: 0 and 2"), "%s",
                r->nviolations ? r->violations[0].text : "none");
        T_CHECK("disagree agreed", r->noutputs == 1 && r->outputs[0].defined[1] &&
                r->outputs[0].values[1] == 7.0, "a[1]");
        T_CHECK("disagree first", r->noutputs == 1 && r->outputs[0].values[0] == 0.0, "a[0]");
        sim_result_free(r);
    }
    r = run("tests/sim/badmsg.apm", NULL, 0);
    if (r) {
        T_EQ_INT("badmsg total", r->violations_total, 3);
        T_CHECK("badmsg nonexistent", has_violation(r, SIM_V_BAD_MESSAGE,
                "processor 1 at t=1 sends to processor 2, which does not exist (send at 10:3)"), "text");
        T_CHECK("badmsg not later", has_violation(r, SIM_V_BAD_MESSAGE,
                "processor 0 at t=1 sends for t=1, which is not later"), "text");
        /* the one good message (0 -> 1) is charged to the last step */
        T_EQ_INT("badmsg msgs", r->trace.nmsgs[0], 1);
        sim_result_free(r);
    }
}

/* Reductions: the strength-reduced path falls back to the general one where it must. */
static void test_reduce(void)
{
    sim_result *r = run("tests/sim/reduce.apm", NULL, 0);
    if (!r) return;
    T_EQ_INT("reduce violations", r->violations_total, 3);
    T_CHECK("reduce hole", has_violation(r, SIM_V_UNDEFINED_READ, "z[4] has no value yet (statement A")
            && has_violation(r, SIM_V_UNDEFINED_READ, "z[5]"), "missing z[4]/z[5]");
    T_CHECK("reduce out of range", has_violation(r, SIM_V_OUT_OF_BOUNDS, "y[0]"), "missing y[0]");
    if (r->noutputs == 1 && r->outputs[0].size == 4) {
        const double *v = r->outputs[0].values;
        T_NEAR("reduce A", v[0], 1 + 2 + 3, 0);
        T_NEAR("reduce B", v[1], (2 + 3 + 4) * 2, 0);
        T_NEAR("reduce C", v[2], 2 * 21 + 12, 0);
        T_NEAR("reduce D", v[3], 3, 0);
    } else {
        T_CHECK("reduce outputs", 0, "no output");
    }
    /* per element: one multiplication (+ one addition in C) and one accumulation */
    T_NEAR("reduce work", r->aggregate_work, 5 * 2 + 4 * 2 + 6 * 3 + 3 * 2, 0);
    sim_result_free(r);
}

/* LU at the SynAPM: reductions run strength-reduced and still see races. */
static void test_lu_syn(void)
{
    ir_binding b = { "n", 12 };
    sim_result *src = run("examples/lu.apm", &b, 1);
    sim_result *r = run("tests/sim/lu-syn.apm", NULL, 0);
    if (src && r) {
        T_EQ_INT("lu syn clean", r->violations_total, 0);
        T_EQ_INT("lu syn steps", r->trace.nsteps, 23);
        T_EQ_INT("lu syn procs", r->trace.nprocs, 12);
        T_EQ_INT("lu syn first step procs", r->trace.step_procs[0], 1);
        T_EQ_INT("lu syn middle step procs", r->trace.step_procs[11], 12);
        T_EQ_INT("lu syn verified", sim_verify(r, src), 1);
        /* the same work as the source: the let is int arithmetic, free */
        T_NEAR("lu syn work", r->aggregate_work, src->aggregate_work, 0);
    }
    sim_result_free(src);
    sim_result_free(r);
    r = run("tests/sim/lu-race.apm", NULL, 0);
    if (r) {
        T_EQ_INT("lu race total", r->violations_total, 14);
        T_CHECK("lu race in reduction", has_violation(r, SIM_V_RACE,
                "processor 4 reads u[3][4] written by processor 3 in the same step t=0 (statement L at 14:7)"),
                "%s", r->nviolations ? r->violations[0].text : "none");
        sim_result_free(r);
    }
}

/* The thesis's finite differences figures (Ellmenreich 2004, ch. 5), n = 256, procs = 4. */
static void test_thesis(void)
{
    sim_result *src = run("examples/findiff.apm", NULL, 0);
    if (!src) return;
    T_NEAR("fd source aggregate", src->aggregate_work, 17762808, 0);
    sim_result *r = run("examples/thesis/fd-tiled.apm", NULL, 0);
    if (r) {
        T_NEAR("fd syn tiled cost", model_total(r), 4459533, 1.0);
        T_EQ_INT("fd syn tiled verified", sim_verify(r, src), 1);
        T_NEAR("fd syn tiled aggregate", r->aggregate_work, 17762808, 0);
        sim_result_free(r);
    }
    r = run("examples/thesis/fd-syncomm.apm", NULL, 0);
    if (r) {
        cost_summary s;
        cost_evaluate("polyapm", &r->trace, cost_profile_builtin("scali2004"), &s);
        T_NEAR("fd syncomm cost", s.total, 7236516, 1.0);
        T_NEAR("fd syncomm work/proc", s.work[1], 7193214, 0);
        T_NEAR("fd syncomm comm/proc", s.comm[2], 43301.76, 0.01);
        T_EQ_INT("fd syncomm sends/proc", s.sends[3], 42);
        T_EQ_INT("fd syncomm violations", r->violations_total, 0);
        T_EQ_INT("fd syncomm verified", sim_verify(r, src), 1);
        cost_summary_free(&s);
        sim_result_free(r);
    }
    r = run("examples/thesis/fd-syndm.apm", NULL, 0);
    if (r) {
        T_NEAR("fd syndm cost", model_total(r), 7236516, 1.0);
        T_EQ_INT("fd syndm violations", r->violations_total, 0);
        T_EQ_INT("fd syndm verified", sim_verify(r, src), 1);
        sim_result_free(r);
    }
    r = run("examples/thesis/fd-relcoord.apm", NULL, 0);
    if (r) {
        T_NEAR("fd relcoord cost", model_total(r), 7236516, 1.0);
        T_EQ_INT("fd relcoord verified", sim_verify(r, src), 1);
        sim_result_free(r);
    }
    r = run("examples/thesis/fd-syn.apm", NULL, 0);
    if (r) {
        T_NEAR("fd syn untiled aggregate", r->aggregate_work, 17762808, 0);
        T_EQ_INT("fd syn untiled procs", r->trace.nprocs, 65536);
        T_NEAR("fd syn untiled cost", model_total(r) / 1e8, 4.113507, 1e-6);
        T_EQ_INT("fd syn untiled verified", sim_verify(r, src), 1);
        sim_result_free(r);
    }
    /* a different parameter gives different outputs: verification fails, naming an element */
    ir_binding b = { "steps", 20 };
    r = run("examples/thesis/fd-syndm.apm", &b, 1);
    if (r) {
        T_EQ_INT("fd steps=20 not verified", sim_verify(r, src), 0);
        T_CHECK("fd mismatch text", has_violation(r, SIM_V_OUTPUT_MISMATCH, "in the reference"), "none");
        sim_result_free(r);
    }
    sim_result_free(src);
}

/* Live time planes: a program's simulation with only the live planes is the one with every
 * plane (sim_options.all_planes), on syndm programs whose processors write one element twice in
 * a step or write and receive it (tests/sim/planes/stale.apm, tests/fuzz/planes-diff). */
static void test_planes(void)
{
    static const char *const files[] = {"tests/sim/planes/stale.apm", "tests/fuzz/planes-diff/fuzz-planes-diff-1.apm",
                                        "tests/fuzz/planes-diff/fuzz-planes-diff-2.apm"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        ir_program *p = load(files[i]);
        if (!p) continue;
        sim_options o;
        memset(&o, 0, sizeof o);
        o.max_violations = 1000;
        sim_result *a = sim_run(p, &o);
        o.all_planes = 1;
        sim_result *b = sim_run(p, &o);
        T_CHECK(files[i], a && b && a->ok && b->ok, "did not run");
        if (a && b && a->ok && b->ok) {
            T_CHECK("live planes fold", a->array_bytes < b->array_bytes, "%lld, every plane %lld",
                    (long long)a->array_bytes, (long long)b->array_bytes);
            T_EQ_INT("violations total", a->violations_total, b->violations_total);
            T_EQ_INT("violations recorded", a->nviolations, b->nviolations);
            int k = 0;
            while (k < a->nviolations && k < b->nviolations && a->violations[k].kind == b->violations[k].kind &&
                   !strcmp(a->violations[k].text, b->violations[k].text))
                k++;
            T_CHECK("violations' kinds and texts", k == a->nviolations && k == b->nviolations, "first difference: %s",
                    k < a->nviolations ? a->violations[k].text : "(none: fewer)");
            T_CHECK("checksum", a->checksum == b->checksum, "%016llx, every plane %016llx",
                    (unsigned long long)a->checksum, (unsigned long long)b->checksum);
            int q = 0;
            while (a->recv_elems && b->recv_elems && q < a->trace.nprocs && a->recv_elems[q] == b->recv_elems[q]) q++;
            T_CHECK("received memory", a->recv_elems && b->recv_elems && q == a->trace.nprocs, "processor %d", q);
        }
        sim_result_free(a);
        sim_result_free(b);
        ir_program_free(p);
    }
}

/* The trace's guard: exactly the ticks the sends' `when` guards cost, counted by hand in
 * tests/sim/guards.apm; not those under `cost N`; part of the work; priced by guard_price. */
static void test_guards(void)
{
    sim_result *r = run("tests/sim/guards.apm", NULL, 0);
    if (!r) return;
    T_EQ_INT("guards: verified run, no violation", r->ok && r->nviolations == 0, 1);
    static const double guard[4] = { 3, 3, 3, 2 };
    T_CHECK("guards: the trace has a guard", r->trace.guard != NULL && r->trace.nprocs == 4, "nprocs %d",
            r->trace.nprocs);
    for (int i = 0; r->trace.guard && i < 4 && i < r->trace.nprocs; i++) {
        T_NEAR("guards: the guard ticks of processor i", r->trace.guard[i], guard[i], 0);
        T_NEAR("guards: the work holds them", r->trace.work[i], 1 + guard[i] + 3 + 4, 0);
    }
    cost_profile free_guards = *cost_profile_builtin("scali2004");
    cost_summary s1, s0;
    if (cost_evaluate("polyapm", &r->trace, cost_profile_builtin("scali2004"), &s1) == 0) {
        free_guards.guard_price = 0;
        if (cost_evaluate("polyapm", &r->trace, &free_guards, &s0) == 0) {
            T_NEAR("guards: the summary's guard", s0.guard, 11, 0);
            T_NEAR("guard_price 0: the work less the guards", s0.aggregate_work, s1.aggregate_work - 11, 0);
            T_NEAR("guard_price 0: processor 0 works 8", s0.work[0], 8, 0);
            cost_summary_free(&s0);
        }
        cost_summary_free(&s1);
    }
    sim_result_free(r);
    r = run("tests/sim/wrong.apm", NULL, 0);
    if (r) {
        /* `when p < n - 1` on 4 processors: 1 tick each */
        T_CHECK("wrong.apm: one guard tick per processor", r->trace.guard && r->trace.guard[0] == 1 &&
                r->trace.guard[3] == 1, "%p", (void *)r->trace.guard);
        sim_result_free(r);
    }
}

/* Streams a constant apart: one where the loops around carry one access to the other, else each
 * its own (tests/sim/streams-reach.apm, counted by hand there). */
static void test_streams_reach(void)
{
    sim_result *r = run("tests/sim/streams-reach.apm", NULL, 0);
    if (!r) return;
    const sim_trace *t = &r->trace;
    T_EQ_INT("streams-reach: verified run, no violation", r->ok && r->nviolations == 0, 1);
    T_CHECK("streams-reach: 480 elements (K 128: one stream of g; H 128: three planes of g three apart; M 96; "
            "D 128: three diagonals of g)", t->streams && t->streams[0] == 480, "%g", t->streams ? t->streams[0] : -1);
    sim_result_free(r);
}

/* Streams: the trace's elements streamed by unit-stride work, counted by hand in
 * tests/sim/streams.apm; stream_price adds its price per element, between stream_cached_price
 * and it by the part of the data the cache cannot hold; unset, the cost is as it was. */
static void test_streams(void)
{
    sim_result *r = run("tests/sim/streams.apm", NULL, 0);
    if (!r) return;
    const sim_trace *t = &r->trace;
    T_EQ_INT("streams: verified run, no violation", r->ok && r->nviolations == 0, 1);
    T_CHECK("streams: 1036 elements (J 16, L 128, G 64, Y 12, Q 32, R 16, P 256, W 512)", t->streams &&
            t->streams[0] == 1036, "%g", t->streams ? t->streams[0] : -1);
    T_CHECK("streams: 4 restarts (P's loop over half of each row, once an entry)", t->restarts && t->restarts[0] == 4,
            "%g", t->restarts ? t->restarts[0] : -1);
    cost_profile q = *cost_profile_builtin("scali2004");
    cost_summary s1, s2;
    if (cost_evaluate("polyapm", t, &q, &s1) == 0) {
        T_NEAR("streams: the summary's", s1.streams, 1036, 0);
        T_NEAR("streams: the summary's restarts", s1.restarts, 4, 0);
        q.stream_price = 0.5;
        if (cost_evaluate("polyapm", t, &q, &s2) == 0) {
            T_NEAR("streams: stream_price 0.5 adds 518 ticks", s2.total, s1.total + 518, 1e-9);
            cost_summary_free(&s2);
        }
        /* the data, 364 doubles, against a cache of a quarter of it: f = 3/4 */
        q.stream_cached_price = 0.25;
        q.cache_bytes = 8 * 364 / 4;
        if (cost_evaluate("polyapm", t, &q, &s2) == 0) {
            T_NEAR("streams: a cache of a quarter of the data: 0.25 + 0.75 * 0.25 an element", s2.total,
                   s1.total + 1036 * 0.4375, 1e-9);
            cost_summary_free(&s2);
        }
        q.restart_price = 10;
        if (cost_evaluate("polyapm", t, &q, &s2) == 0) {
            T_NEAR("streams: restart_price 10 adds 40 ticks", s2.total, s1.total + 1036 * 0.4375 + 40, 1e-9);
            cost_summary_free(&s2);
        }
        cost_summary_free(&s1);
    }
    sim_result_free(r);
}

/* A row's sum split in tiles of its columns is one chain, the tiles' loop outside its points'
 * (sim_loop_chains): counted by hand in tests/sim/chains-split.apm. */
static void test_chains_split(void)
{
    sim_result *r = run("tests/sim/chains-split.apm", NULL, 0);
    if (!r) return;
    const sim_trace *t = &r->trace;
    T_EQ_INT("chains split: verified run, no violation", r->ok && r->nviolations == 0, 1);
    T_CHECK("chains split: K and S accumulations, 2 ticks x 128 each", t->wclass[SIM_WORK_ACCUM] &&
            t->wclass[SIM_WORK_ACCUM][0] == 512, "%g", t->wclass[SIM_WORK_ACCUM] ? t->wclass[SIM_WORK_ACCUM][0] : -1);
    T_CHECK("chains split: K's a row (4: its tiles go on with it), S's a tile (8: z[i][jt] moves)",
            t->chains && t->chains[0] == 12, "%g", t->chains ? t->chains[0] : -1);
    sim_result_free(r);
}

/* A condition the same at every turn of the loop around it costs the turns nothing (the compiler
 * unswitches the loop); one on the loop's variable is tested at each: counted by hand in
 * tests/sim/unswitch.apm. */
static void test_unswitch(void)
{
    sim_result *r = run("tests/sim/unswitch.apm", NULL, 0);
    if (!r) return;
    T_EQ_INT("unswitch: verified run", r->ok && r->nviolations == 0, 1);
    T_NEAR("unswitch: the tests on t free in the loop over i, those on i 1 a turn", r->trace.work[0], 97, 0);
    sim_result_free(r);
}

/* Unit-stride chains are accumulations (sim_stmt_chain): counted by hand in tests/sim/chains.apm. */
static void test_chains(void)
{
    sim_result *r = run("tests/sim/chains.apm", NULL, 0);
    if (!r) return;
    const sim_trace *t = &r->trace;
    T_EQ_INT("chains: verified run, no violation", r->ok && r->nviolations == 0, 1);
    T_NEAR("chains: the work", t->work[0], 192, 0);
    T_CHECK("chains: M, R and two ticks of C's three accumulations", t->wclass[SIM_WORK_ACCUM] &&
            t->wclass[SIM_WORK_ACCUM][0] == 96,
            "%g", t->wclass[SIM_WORK_ACCUM] ? t->wclass[SIM_WORK_ACCUM][0] : -1);
    T_CHECK("chains: G, T, F, L (through a let) and C's third tick unit-stride work", t->wclass[SIM_WORK_UNIT] &&
            t->wclass[SIM_WORK_UNIT][0] == 96,
            "%g", t->wclass[SIM_WORK_UNIT] ? t->wclass[SIM_WORK_UNIT][0] : -1);
    T_CHECK("chains: M's, C's (an entry of the loop over j) and R's (an instance of the reduction), 4 each",
            t->chains && t->chains[0] == 12, "%g", t->chains ? t->chains[0] : -1);
    /* their mean length 96 / 2 / 12 = 4: with a window of 4 elements, half the price */
    cost_profile q = *cost_profile_builtin("scali2004");
    cost_summary s1, s2;
    q.accum_price = 2;
    if (cost_evaluate("polyapm", t, &q, &s1) == 0) {
        q.accum_window = 4;
        if (cost_evaluate("polyapm", t, &q, &s2) == 0) {
            T_NEAR("chains: accum_window 4 against chains of 4: accum_price 2 * 4 / 8", s1.total - s2.total, 96 * 1.0, 1e-9);
            cost_summary_free(&s2);
        }
        cost_summary_free(&s1);
    }
    sim_result_free(r);
}

/* Innermost loops' entries and their alias checks (sim_loop_entries): counted by hand in
 * tests/sim/entries.apm; entry_price and alias_check_price add to the work. */
static void test_entries(void)
{
    sim_result *r = run("tests/sim/entries.apm", NULL, 0);
    if (!r) return;
    const sim_trace *t = &r->trace;
    T_EQ_INT("entries: verified run, no violation", r->ok && r->nviolations == 0, 1);
    T_CHECK("entries: T's 16, G's 16, S's 3, J's 2 (the loop around its jam), V's 4, P's 8, none of Z's",
            t->entries && t->entries[0] == 49, "%g", t->entries ? t->entries[0] : -1);
    T_CHECK("entries: T's 16 (b[i][j] and b[k][j]) and V's 4 (e[i][0] where e[i][j] is stored) test their "
            "overlap; G's, S's, J's and P's none", t->alias_checks && t->alias_checks[0] == 20, "%g",
            t->alias_checks ? t->alias_checks[0] : -1);
    T_CHECK("entries: as full tiles, P's 5 (20 columns a row over its tiles of 16), the rest as counted",
            t->full_entries && fabs(t->full_entries[0] - 46) < 1e-9 && t->full_checks &&
            t->full_checks[0] == 20, "%g %g", t->full_entries ? t->full_entries[0] : -1,
            t->full_checks ? t->full_checks[0] : -1);
    cost_profile q = *cost_profile_builtin("scali2004");
    cost_summary s0, s1, s2;
    if (cost_evaluate("polyapm", t, &q, &s0) == 0) {
        q.entry_price = 1;
        q.alias_check_price = 2;
        if (cost_evaluate("polyapm", t, &q, &s1) == 0) {
            T_NEAR("entries: 49 entries at 1 tick and 20 alias checks at 2", s1.total - s0.total, 49 + 40, 1e-9);
            T_NEAR("entries: the summary's entries", s1.entries, 49, 0);
            T_NEAR("entries: the summary's alias checks", s1.alias_checks, 20, 0);
            cost_summary_free(&s1);
        }
        q.data_scale = 8;   /* priced at another size's data (explore --at's samples): full tiles */
        if (cost_evaluate("polyapm", t, &q, &s2) == 0) {
            cost_profile plain = *cost_profile_builtin("scali2004");
            plain.data_scale = 8;
            cost_summary s3;
            if (cost_evaluate("polyapm", t, &plain, &s3) == 0) {
                T_NEAR("entries: at another size's data, 46 entries at 1 tick and 20 alias checks at 2",
                       s2.total - s3.total, 46 + 40, 1e-9);
                cost_summary_free(&s3);
            }
            cost_summary_free(&s2);
        }
        cost_summary_free(&s0);
    }
    sim_result_free(r);
}

/* Work classes: each statement's class and the trace's split work, counted by hand in
 * tests/sim/classes.apm; a profile pricing the classes changes the work by (1 − price)·ticks. */
static void test_classes(void)
{
    sim_result *r = run("tests/sim/classes.apm", NULL, 0);
    if (!r) return;
    const sim_trace *t = &r->trace;
    T_EQ_INT("classes: verified run, no violation", r->ok && r->nviolations == 0, 1);
    T_NEAR("classes: the work", t->work[0], 377, 0);
    T_CHECK("classes: unit-stride work U", t->wclass[SIM_WORK_UNIT] && t->wclass[SIM_WORK_UNIT][0] == 32,
            "%g", t->wclass[SIM_WORK_UNIT] ? t->wclass[SIM_WORK_UNIT][0] : -1);
    T_CHECK("classes: lanes O (k's bounds fixed)", t->wclass[SIM_WORK_LANES] && t->wclass[SIM_WORK_LANES][0] == 128,
            "%g", t->wclass[SIM_WORK_LANES] ? t->wclass[SIM_WORK_LANES][0] : -1);
    T_CHECK("classes: accumulation Q (k from i)", t->wclass[SIM_WORK_ACCUM] && t->wclass[SIM_WORK_ACCUM][0] == 80,
            "%g", t->wclass[SIM_WORK_ACCUM] ? t->wclass[SIM_WORK_ACCUM][0] : -1);
    T_CHECK("classes: Q's chains, an entry of its loop over k each (16; O's lanes none)", t->chains && t->chains[0] == 16,
            "%g", t->chains ? t->chains[0] : -1);
    T_CHECK("classes: data bytes, the arrays' (16 + 16 + 4 + 2048 doubles)", t->data_bytes &&
            t->data_bytes[0] == 8 * (16 + 16 + 4 + 2048), "%g", t->data_bytes ? t->data_bytes[0] : -1);
    T_CHECK("classes: strided work S, R and P", t->wclass[SIM_WORK_STRIDED] && t->wclass[SIM_WORK_STRIDED][0] == 112,
            "%g", t->wclass[SIM_WORK_STRIDED] ? t->wclass[SIM_WORK_STRIDED][0] : -1);
    T_CHECK("classes: walking chains R (a reduction down a column, 32) and P (b[i][j] along k, 64); O and Q "
            "vectors of chains, S's target moving", t->chained && t->chained[0] == 96, "%g", t->chained ? t->chained[0] : -1);
    T_CHECK("classes: aliased work W", t->wclass[SIM_WORK_ALIASED] && t->wclass[SIM_WORK_ALIASED][0] == 8,
            "%g", t->wclass[SIM_WORK_ALIASED] ? t->wclass[SIM_WORK_ALIASED][0] : -1);
    T_CHECK("classes: S's second walk (b's column and a's): its ticks once more; R, P and W walk once",
            t->walks && t->walks[0] == 16, "%g", t->walks ? t->walks[0] : -1);
    T_CHECK("classes: scalar work has no matrix", t->wclass[SIM_WORK_SCALAR] == NULL, "%p",
            (void *)t->wclass[SIM_WORK_SCALAR]);
    cost_profile q = *cost_profile_builtin("scali2004");
    cost_summary s1, s2;
    if (cost_evaluate("polyapm", t, &q, &s1) == 0) {
        T_NEAR("classes: scali2004 prices every tick as one", s1.total, 377, 0);
        q.unit_price = 0.25;
        q.strided_price = 2;
        q.aliased_price = 5;
        if (cost_evaluate("polyapm", t, &q, &s2) == 0) {
            T_NEAR("classes: unit 0.25, strided 2, aliased 5: 377 - 0.75*240 + 1*112 + 4*8 (O and Q as unit), + 1*16 "
                   "(S's second walk)", s2.total, 377 - 180 + 112 + 32 + 16, 1e-9);
            cost_summary_free(&s2);
        }
        q.accum_price = 0.5;
        if (cost_evaluate("polyapm", t, &q, &s2) == 0) {
            T_NEAR("classes: and accum 0.5 (lanes unset: O as an accumulation): 377 - 0.75*32 + 112 + 32 + 16 - "
                   "0.5*(128 + 80)", s2.total, 377 - 24 + 112 + 32 + 16 - 104, 1e-9);
            T_CHECK("classes: the summary's ticks per class", s2.class_ticks[SIM_WORK_UNIT] == 32 &&
                    s2.class_ticks[SIM_WORK_ACCUM] == 80 && s2.class_ticks[SIM_WORK_LANES] == 128 &&
                    s2.class_ticks[SIM_WORK_SCALAR] == 377 - 32 - 80 - 128 - 112 - 8,
                    "%g %g %g %g", s2.class_ticks[SIM_WORK_UNIT], s2.class_ticks[SIM_WORK_ACCUM],
                    s2.class_ticks[SIM_WORK_LANES], s2.class_ticks[SIM_WORK_SCALAR]);
            cost_summary_free(&s2);
        }
        q.lanes_price = 0.125;
        if (cost_evaluate("polyapm", t, &q, &s2) == 0) {
            T_NEAR("classes: and lanes 0.125: 377 - 0.75*32 + 112 + 32 + 16 - 0.5*80 - 0.875*128", s2.total,
                   377 - 24 + 112 + 32 + 16 - 40 - 112, 1e-9);
            cost_summary_free(&s2);
        }
        /* the cache term: the data (16672 bytes) against a cache of 4168 bytes, a quarter of it:
         * f = 3/4, unit work at 0.1 + 0.75 * (0.25 - 0.1) = 0.2125; accum, measured in the cache,
         * dearer as unit work is: 0.5 * 0.2125 / 0.1 = 1.0625; lanes as measured (no levels) */
        q.unit_cached_price = 0.1;
        q.cache_bytes = 8 * (16 + 16 + 4 + 2048) / 4;
        if (cost_evaluate("polyapm", t, &q, &s2) == 0) {
            T_NEAR("classes: a cache of a quarter of the data: unit 0.2125, accum 1.0625, lanes 0.125", s2.total,
                   377 - (1 - 0.2125) * 32 + 112 + 32 + 16 + 0.0625 * 80 - (1 - 0.125) * 128, 1e-9);
            cost_summary_free(&s2);
        }
        /* and the levels of walks: the first (2084 bytes) at 1, the second unset, the last (4168)
         * at 4, memory at 2: a walk 2084 * 1 + 2084 * 4 + 12504 * 2 over 16672 = 2.125 a tick;
         * lanes, measured in the second level (the first's price here), dearer as a walk is:
         * 0.125 * 2.125 */
        q.cache1_bytes = 2084;
        q.strided1_price = 1;
        q.strided_cached_price = 4;
        if (cost_evaluate("polyapm", t, &q, &s2) == 0) {
            T_NEAR("classes: walks by the levels 2.125, lanes 0.265625", s2.total,
                   377 - (1 - 0.2125) * 32 + 1.125 * 112 + 4 * 8 + 1.125 * 16 + 0.0625 * 80 - (1 - 0.265625) * 128, 1e-9);
            cost_summary_free(&s2);
        }
        q.cache1_bytes = q.strided1_price = q.strided_cached_price = -1;
        q.cache_bytes = 8 * (16 + 16 + 4 + 2048);
        q.accum_price = q.lanes_price = -1;
        if (cost_evaluate("polyapm", t, &q, &s2) == 0) {
            T_NEAR("classes: the data fits: unit, accum and lanes (unset) at the cached price 0.1", s2.total,
                   377 - 0.9 * (32 + 128 + 80) + 112 + 32 + 16, 1e-9);
            cost_summary_free(&s2);
        }
        cost_summary_free(&s1);
    }
    sim_result_free(r);
    /* the source level of the thesis's LU: its sums run down u's columns (strided), nothing unit;
     * at n = 512 a row is 4096 bytes (aliased) */
    for (int n = 6; n <= 512; n += 506) {
        ir_binding b = {"n", n};
        int cls = n == 512 ? SIM_WORK_ALIASED : SIM_WORK_STRIDED, other = SIM_WORK_ALIASED + SIM_WORK_STRIDED - cls;
        r = run("examples/lu.apm", &b, 1);
        if (!r) continue;
        T_CHECK("classes: lu.apm's L and U are strided (n 6) or aliased (n 512)", r->trace.wclass[cls] &&
                r->trace.wclass[cls][0] > 0 && !r->trace.wclass[other] && !r->trace.wclass[SIM_WORK_UNIT],
                "n %d: %p %p", n, (void *)r->trace.wclass[cls], (void *)r->trace.wclass[other]);
        sim_result_free(r);
    }
    /* the same sums at syndm in pieced memories: strided at n = 512 (the rows are packed) */
    ir_binding b512 = {"n", 512};
    r = run("tests/sim/lu-pieced.apm", &b512, 1);
    if (r) {
        T_CHECK("classes: a pieced LU leaf's sums are strided, not aliased", r->ok && r->trace.wclass[SIM_WORK_STRIDED] &&
                !r->trace.wclass[SIM_WORK_ALIASED], "ok %d, aliased %p", r->ok, (void *)r->trace.wclass[SIM_WORK_ALIASED]);
        sim_result_free(r);
    }
}

/* Searched work: a memory in two pieces, whose elements the exported code finds by searching them,
 * moved through along its rows (R) and down its columns (C), or read at one element across a loop
 * (K): 192 ticks of searched work, none strided or unit but U's 8 (tests/sim/searched.apm);
 * priced at searched_price when the profile has one, as a walk when not. */
static void test_searched(void)
{
    sim_result *r = run("tests/sim/searched.apm", NULL, 0);
    if (!r) return;
    const sim_trace *t = &r->trace;
    T_EQ_INT("searched: a run without violation", r->ok && r->nviolations == 0, 1);
    T_CHECK("searched: R, C and K searched work", t->wclass[SIM_WORK_SEARCHED] && t->wclass[SIM_WORK_SEARCHED][0] == 192,
            "%g", t->wclass[SIM_WORK_SEARCHED] ? t->wclass[SIM_WORK_SEARCHED][0] : -1);
    T_CHECK("searched: no strided work, U unit-stride", !t->wclass[SIM_WORK_STRIDED] && t->wclass[SIM_WORK_UNIT] &&
            t->wclass[SIM_WORK_UNIT][0] == 8, "%p", (void *)t->wclass[SIM_WORK_STRIDED]);
    cost_profile q = *cost_profile_builtin("scali2004");
    cost_summary s1, s2;
    q.strided_price = 3;
    cost_evaluate("polyapm", t, &q, &s1);
    q.searched_price = 10;
    cost_evaluate("polyapm", t, &q, &s2);
    T_NEAR("searched: as a walk without searched_price", s1.total, 200 + (3 - 1) * 192, 1e-9);
    T_NEAR("searched: at searched_price", s2.total, 200 + (10 - 1) * 192, 1e-9);
    cost_summary_free(&s1);
    cost_summary_free(&s2);
    sim_result_free(r);
}

/* Steps of several elements along a row, directly (a[2 * i]), through an affine let (a
 * wavefront's j = 3 * p) or by the loop's step (`step 2`): strided work, 20 ticks; a unit step:
 * unit-stride, 8 (tests/sim/stride.apm). */
static void test_stride(void)
{
    sim_result *r = run("tests/sim/stride.apm", NULL, 0);
    if (!r) return;
    const sim_trace *t = &r->trace;
    T_CHECK("stride: W, V and X strided", t->wclass[SIM_WORK_STRIDED] && t->wclass[SIM_WORK_STRIDED][0] == 20, "%g",
            t->wclass[SIM_WORK_STRIDED] ? t->wclass[SIM_WORK_STRIDED][0] : -1);
    T_CHECK("stride: U unit-stride", t->wclass[SIM_WORK_UNIT] && t->wclass[SIM_WORK_UNIT][0] == 8, "%g",
            t->wclass[SIM_WORK_UNIT] ? t->wclass[SIM_WORK_UNIT][0] : -1);
    sim_result_free(r);
}

/* Walks: a statement walks once per line it reads down columns (tests/sim/walks.apm, counted by
 * hand there): a stencil's three elements of a row once, two columns twice. */
static void test_walks(void)
{
    sim_result *r = run("tests/sim/walks.apm", NULL, 0);
    if (!r) return;
    const sim_trace *t = &r->trace;
    T_EQ_INT("walks: verified run, no violation", r->ok && r->nviolations == 0, 1);
    T_CHECK("walks: K, D and E strided", t->wclass[SIM_WORK_STRIDED] && t->wclass[SIM_WORK_STRIDED][0] == 528, "%g",
            t->wclass[SIM_WORK_STRIDED] ? t->wclass[SIM_WORK_STRIDED][0] : -1);
    T_CHECK("walks: K's s and m once each (m's three elements one line), D's and E's two columns", t->walks &&
            t->walks[0] == 528, "%g", t->walks ? t->walks[0] : -1);
    T_CHECK("walks: D's and E's chains, two ticks a step (F's an accumulation)", t->chained &&
            t->chained[0] == 288 && t->wclass[SIM_WORK_ACCUM] && t->wclass[SIM_WORK_ACCUM][0] == 78,
            "%g %g", t->chained ? t->chained[0] : -1, t->wclass[SIM_WORK_ACCUM] ? t->wclass[SIM_WORK_ACCUM][0] : -1);
    /* priced: the chain's ticks at the dearer of the walk's price and the accumulation's */
    cost_profile q = *cost_profile_builtin("scali2004");
    cost_summary s0, s1, s2;
    q.strided_price = 2;
    if (cost_evaluate("polyapm", t, &q, &s0) == 0) {
        q.accum_price = 1.5;
        if (cost_evaluate("polyapm", t, &q, &s1) == 0) {
            T_NEAR("walks: accum_price 1.5 below the walk's 2: the chains cost the walk's (F's 78 ticks 0.5 more)",
                   s1.total - s0.total, 78 * 0.5, 1e-9);
            cost_summary_free(&s1);
        }
        q.accum_price = 5;
        if (cost_evaluate("polyapm", t, &q, &s2) == 0) {
            T_NEAR("walks: accum_price 5: the chains' 288 ticks 3 dearer (F's 78 ticks 4)",
                   s2.total - s0.total, 288 * 3.0 + 78 * 4.0, 1e-9);
            T_NEAR("walks: the summary's chained", s2.chained, 288, 0);
            cost_summary_free(&s2);
        }
        cost_summary_free(&s0);
    }
    sim_result_free(r);
}

/* Chains carried along the innermost loop (tests/sim/carried.apm, counted by hand there): what a
 * turn or two before wrote, read again, is an accumulation; reading ahead or the row before is not. */
static void test_carried(void)
{
    sim_result *r = run("tests/sim/carried.apm", NULL, 0);
    if (!r) return;
    const sim_trace *t = &r->trace;
    T_EQ_INT("carried: verified run, no violation", r->ok && r->nviolations == 0, 1);
    T_CHECK("carried: G and E accumulations", t->wclass[SIM_WORK_ACCUM] && t->wclass[SIM_WORK_ACCUM][0] == 104,
            "%g", t->wclass[SIM_WORK_ACCUM] ? t->wclass[SIM_WORK_ACCUM][0] : -1);
    T_CHECK("carried: H and F unit-stride work", t->wclass[SIM_WORK_UNIT] && t->wclass[SIM_WORK_UNIT][0] == 112,
            "%g", t->wclass[SIM_WORK_UNIT] ? t->wclass[SIM_WORK_UNIT][0] : -1);
    sim_result_free(r);
}

/* Jammed loops (tests/sim/jam.apm, counted by hand there): J's four rows innermost are priced by
 * the loop over j they are unrolled in, unit-stride work; K's nine rows a group are no jam, a
 * strided walk; T's short loop along a row is a tile's, unit-stride work by its own variable; the
 * jammed chains G (a vector of the turns) and S (a row a turn: its chains' two ticks scalar). */
static void test_jam(void)
{
    sim_result *r = run("tests/sim/jam.apm", NULL, 0);
    if (!r) return;
    const sim_trace *t = &r->trace;
    T_EQ_INT("jam: verified run, no violation", r->ok && r->nviolations == 0, 1);
    T_CHECK("jam: J (4096 x 2 ticks), T (256), G (4096 x 2) and S's products (4096) unit-stride work",
            t->wclass[SIM_WORK_UNIT] && t->wclass[SIM_WORK_UNIT][0] == 8448 + 8192 + 4096, "%g",
            t->wclass[SIM_WORK_UNIT] ? t->wclass[SIM_WORK_UNIT][0] : -1);
    T_CHECK("jam: S's chains scalar work (4096 x 2 ticks), no accumulation", t->work[0] - t->wclass[SIM_WORK_UNIT][0] -
            (t->wclass[SIM_WORK_STRIDED] ? t->wclass[SIM_WORK_STRIDED][0] : 0) == 8192 && !t->wclass[SIM_WORK_ACCUM],
            "%g", t->work[0]);
    T_CHECK("jam: K alone strided (4096 x 2 ticks)", t->wclass[SIM_WORK_STRIDED] &&
            t->wclass[SIM_WORK_STRIDED][0] == 8192, "%g", t->wclass[SIM_WORK_STRIDED] ? t->wclass[SIM_WORK_STRIDED][0] : -1);
    sim_result_free(r);
}

/* Register tiles (tests/sim/regs.apm, counted by hand there): R's nest is one (ir_regs_tile_of),
 * X's (another element of its array read along k), Y's (rows sharing an element) and W's (an
 * element moving with k) are not; R's loads and stores of c along k are registers, not cached
 * accesses: of the 37 x 37 x 19 instances of each statement, X and Y make two cached accesses
 * each (the element read and written; b streams), R and W none (W's element streams). */
static void test_regs(void)
{
    ir_program *p = load("tests/sim/regs.apm");
    if (!p) return;
    int want[] = {1, 0, 0, 0}, k = 0;
    for (int i = 0; i < p->body->n && k < 4; i++) {
        const ir_stmt *s = p->body->stmts[i];
        if (s->kind != IR_S_FOR) continue;
        ir_regs_tile t;
        char nm[64];
        snprintf(nm, sizeof nm, "regs: nest %d %s a register tile", k + 1, want[k] ? "is" : "is not");
        int got = ir_regs_tile_of(s->u.for_.body->stmts[0], &t);
        T_EQ_INT(nm, got, want[k]);
        if (got) {
            T_EQ_INT("regs: ... of 8 columns", t.ncols, 8);
            T_EQ_STR("regs: ... its statement R", t.assign->u.assign.label, "R");
        }
        k++;
    }
    T_EQ_INT("regs: four nests", k, 4);
    ir_program_free(p);
    sim_result *r = run("tests/sim/regs.apm", NULL, 0);
    if (!r) return;
    const sim_trace *t = &r->trace;
    T_EQ_INT("regs: verified run, no violation", r->ok && r->nviolations == 0, 1);
    T_CHECK("regs: cached accesses X's and Y's alone (2 x 2 x 26011)", t->cached && t->cached[0] == 104044, "%g",
            t->cached ? t->cached[0] : -1);
    sim_result_free(r);
}

/* Tiles: a matrix product in a tile's point loops is blocked (its tile of b read again from the
 * cache), the same product untiled unit-stride with a stream (tests/sim/tiles.apm); with the cache
 * term, blocked work pays the cached price whatever the data, unit work the blend. */
static void test_tiles(void)
{
    sim_result *r = run("tests/sim/tiles.apm", NULL, 0);
    if (!r) return;
    const sim_trace *t = &r->trace;
    T_EQ_INT("tiles: verified run, no violation", r->ok && r->nviolations == 0, 1);
    T_CHECK("tiles: T blocked, 1024 ticks", t->wclass[SIM_WORK_BLOCKED] && t->wclass[SIM_WORK_BLOCKED][0] == 1024,
            "%g", t->wclass[SIM_WORK_BLOCKED] ? t->wclass[SIM_WORK_BLOCKED][0] : -1);
    T_CHECK("tiles: G unit, 1024 ticks", t->wclass[SIM_WORK_UNIT] && t->wclass[SIM_WORK_UNIT][0] == 1024,
            "%g", t->wclass[SIM_WORK_UNIT] ? t->wclass[SIM_WORK_UNIT][0] : -1);
    T_CHECK("tiles: G's stream of b (512), T's tile of b once for its four i's (128)", t->streams &&
            t->streams[0] == 512 + 128, "%g", t->streams ? t->streams[0] : -1);
    T_CHECK("tiles: no restart (T's loops are a tile's, G's rows whole)", !t->restarts || t->restarts[0] == 0,
            "%g", t->restarts ? t->restarts[0] : -1);
    T_CHECK("tiles: T's tile of b read again on three of i's four turns (384), a tile of 4 x 4 doubles (128 bytes) each",
            t->tile_reads && t->tile_bytes && t->tile_reads[0] == 384 && t->tile_bytes[0] == 384 * 128, "%g %g",
            t->tile_reads ? t->tile_reads[0] : -1, t->tile_bytes ? t->tile_bytes[0] : -1);
    T_CHECK("tiles: T's cached accesses count them (c's row twice, b's read again: 2.75 an instance), G's c's row twice",
            t->cached && t->cached[0] == 512 * 2.75 + 512 * 2, "%g", t->cached ? t->cached[0] : -1);
    cost_profile q = *cost_profile_builtin("scali2004");
    cost_summary s;
    /* the levels: a tile of 128 bytes half in a first level of 64 is read at the mean of the
     * two levels' prices, 0.6 a read, not the first level's 0.2: 384 x 0.4 dearer */
    q.stream1_price = 0.2;
    q.stream2_price = 1;
    q.cache2_bytes = 1e6;
    double in_first = 0;
    q.cache1_bytes = 1e6;
    if (cost_evaluate("polyapm", t, &q, &s) == 0) {
        in_first = s.total;
        T_NEAR("tiles: summary's tile reads", s.tile_reads, 384, 0);
        cost_summary_free(&s);
    }
    q.cache1_bytes = 64;
    if (cost_evaluate("polyapm", t, &q, &s) == 0) {
        T_NEAR("tiles: a tile's rows read again at the levels' price for its bytes", s.total - in_first, 384 * 0.4, 1e-9);
        cost_summary_free(&s);
    }
    q = *cost_profile_builtin("scali2004");
    /* data 4 x 64 doubles (2048 bytes) against a cache of a quarter: f = 3/4, unit at
     * 0.1 + 0.75 * (0.5 - 0.1) = 0.4, blocked at 0.1 */
    q.unit_price = 0.5;
    q.unit_cached_price = 0.1;
    q.cache_bytes = 2048 / 4;
    if (cost_evaluate("polyapm", t, &q, &s) == 0) {
        T_NEAR("tiles: blocked at the cached price, unit at the blend", s.total, 1024 * 0.1 + 1024 * 0.4, 1e-9);
        cost_summary_free(&s);
    }
    q.unit_cached_price = -1;
    if (cost_evaluate("polyapm", t, &q, &s) == 0) {
        T_NEAR("tiles: without the cache term blocked is unit work", s.total, 2048 * 0.5, 1e-9);
        cost_summary_free(&s);
    }
    sim_result_free(r);
}

/* A tile read again across register tiles (tests/sim/tiles-regs.apm, counted there): its rows as
 * long as the columns the register tiles' loop sweeps. */
static void test_tiles_regs(void)
{
    sim_result *r = run("tests/sim/tiles-regs.apm", NULL, 0);
    if (!r) return;
    const sim_trace *t = &r->trace;
    T_EQ_INT("tiles-regs: verified run, no violation", r->ok && r->nviolations == 0, 1);
    T_CHECK("tiles-regs: T's 512 reads of b its tile's read again, a tile of 4 rows of 8 columns (256 bytes)",
            t->tile_reads && t->tile_bytes && t->tile_reads[0] == 512 && t->tile_bytes[0] == 512 * 256, "%g %g",
            t->tile_reads ? t->tile_reads[0] : -1, t->tile_bytes ? t->tile_bytes[0] : -1);
    T_CHECK("tiles-regs: its cached accesses those alone (c's element in registers)", t->cached && t->cached[0] == 512,
            "%g", t->cached ? t->cached[0] : -1);
    sim_result_free(r);
}

/* A band of two tiles (tests/sim/tiles-band.apm): the loop around the point loops is a tile loop
 * of theirs, so no tile is read again (not blocked): a stream, and the chain of an accumulation. */
static void test_tiles_band(void)
{
    sim_result *r = run("tests/sim/tiles-band.apm", NULL, 0);
    if (!r) return;
    const sim_trace *t = &r->trace;
    T_EQ_INT("tiles-band: verified run, no violation", r->ok && r->nviolations == 0, 1);
    T_CHECK("tiles-band: E an accumulation (1024 ticks), nothing blocked",
            t->wclass[SIM_WORK_ACCUM] && t->wclass[SIM_WORK_ACCUM][0] == 1024 &&
                (!t->wclass[SIM_WORK_BLOCKED] || t->wclass[SIM_WORK_BLOCKED][0] == 0),
            "%g, blocked %g", t->wclass[SIM_WORK_ACCUM] ? t->wclass[SIM_WORK_ACCUM][0] : -1,
            t->wclass[SIM_WORK_BLOCKED] ? t->wclass[SIM_WORK_BLOCKED][0] : -1);
    T_CHECK("tiles-band: b's stream (512)", t->streams && t->streams[0] == 512, "%g", t->streams ? t->streams[0] : -1);
    sim_result_free(r);
}

int main(void)
{
    test_tiles();
    test_tiles_regs();
    test_tiles_band();
    test_classes();
    test_searched();
    test_stride();
    test_walks();
    test_carried();
    test_jam();
    test_regs();
    test_chains();
    test_chains_split();
    test_unswitch();
    test_entries();
    test_streams();
    test_streams_reach();
    test_costs();
    test_errors();
    test_race();
    test_messages();
    test_checksum();
    test_bad_messages();
    test_lu_syn();
    test_reduce();
    test_options();
    test_thesis();
    test_planes();
    test_guards();
    return t_done();
}
