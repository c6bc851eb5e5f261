/*
 * fuzz_sim.c — libFuzzer target for the simulator (`make fuzz`, after the parser's).
 *
 * Any input that parses and checks, with small parameters (each at most 64 in magnitude) and
 * small arrays (at most 2^16 elements in all), and no crand (its cost is its call number, which
 * a literal makes 2^31: what it computes, test_crand checks against the C library), is simulated
 * twice: keeping only the live time
 * planes (the default) and keeping every plane (sim_options.all_planes).  Neither run may crash,
 * and when both finish within their time budget they must agree on everything they report:
 * completion, verification-relevant outputs (checksum), the violations and their texts, the
 * aggregate work, the local and received memory.  Otherwise the target aborts.
 */
#include "ir.h"
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

enum { MAX_PARAM = 64, MAX_ELEMS = 1 << 16 };

typedef struct budget { volatile int cancel; double start; } budget;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A run gets half a second; the progress callback cancels it after that. */
static void on_progress(void *ctx, double fraction)
{
    budget *b = ctx;
    (void)fraction;
    if (now() - b->start > 0.5) b->cancel = 1;
}

/* Does e call crand? */
static int calls_crand(const ir_expr *e)
{
    if (!e) return 0;
    switch (e->kind) {
    case IR_E_UNARY: case IR_E_BINARY: return calls_crand(e->u.op.a) || calls_crand(e->u.op.b);
    case IR_E_CALL:
        if (e->u.call.f == IR_F_CRAND) return 1;
        for (int i = 0; i < e->u.call.nargs; i++) if (calls_crand(e->u.call.args[i])) return 1;
        return 0;
    case IR_E_REDUCE: return calls_crand(e->u.reduce.lo) || calls_crand(e->u.reduce.hi) || calls_crand(e->u.reduce.body);
    default: return 0;
    }
}

/* Small enough to simulate quickly?  Parameters and the arrays' sizes at their values. */
static int small(const ir_program *p)
{
    int64_t *pv = calloc((size_t)p->nparams + 1, sizeof *pv);
    diag_list d;
    diag_list_init(&d);
    int ok = pv && ir_params_eval(p, NULL, 0, 0, pv, &d) == 0;
    for (int k = 0; ok && k < p->ndecls; k++)
        ok = p->decls[k]->kind != IR_D_INIT || !calls_crand(p->decls[k]->u.init.value);
    diag_list_free(&d);
    for (int i = 0; ok && i < p->nparams; i++) ok = pv[i] >= -MAX_PARAM && pv[i] <= MAX_PARAM;
    int64_t total = 0;
    for (int a = 0; ok && a < p->narrays; a++) {
        int64_t n = 1;
        for (int k = 0; ok && k < p->arrays[a]->u.array.ndims; k++) {
            int64_t lo, hi;
            ok = ir_const_int(p, p->arrays[a]->u.array.lo[k], pv, &lo) &&
                 ir_const_int(p, p->arrays[a]->u.array.hi[k], pv, &hi) && hi - lo < MAX_ELEMS;
            if (ok && hi >= lo) n *= hi - lo + 1;
            ok = ok && n <= MAX_ELEMS;
        }
        total += n;
        ok = ok && total <= MAX_ELEMS;
    }
    free(pv);
    return ok;
}

static void differ(const char *what, const char *program)
{
    fprintf(stderr, "live planes and every plane differ: %s\n--- program\n%s\n", what, program);
    abort();
}

static void compare(const sim_result *a, const sim_result *b, const char *text)
{
    if (a->ok != b->ok) differ("ok", text);
    if (!a->ok) return;
    if (a->violations_total != b->violations_total) differ("violations_total", text);
    if (a->nviolations != b->nviolations) differ("violations recorded", text);
    for (int i = 0; i < a->nviolations; i++)
        if (strcmp(a->violations[i].text, b->violations[i].text) != 0) differ(a->violations[i].text, text);
    if (a->checksum != b->checksum) differ("checksum", text);
    if (a->aggregate_work != b->aggregate_work) differ("aggregate work", text);
    if (!a->local_elems != !b->local_elems || !a->recv_elems != !b->recv_elems) differ("memories reported", text);
    for (int q = 0; a->local_elems && q < a->trace.nprocs; q++)
        if (a->local_elems[q] != b->local_elems[q]) differ("local memory", text);
    for (int q = 0; a->recv_elems && q < a->trace.nprocs; q++)
        if (a->recv_elems[q] != b->recv_elems[q]) differ("received memory", text);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    diag_list d;
    diag_list_init(&d);
    ir_program *p = ir_parse("fuzz.apm", (const char *)data, size, &d);
    int errs = p ? ir_check(p, &d) : 1;
    diag_list_free(&d);
    if (errs || !small(p)) {
        ir_program_free(p);
        return 0;
    }
    budget b1 = {0, now()};
    sim_options o1 = {.cancel = &b1.cancel, .progress = on_progress, .progress_ctx = &b1, .max_violations = 20};
    sim_result *r1 = sim_run(p, &o1);
    budget b2 = {0, now()};
    sim_options o2 = o1;
    o2.cancel = &b2.cancel;
    o2.progress_ctx = &b2;
    o2.all_planes = 1;
    sim_result *r2 = r1 && !r1->cancelled ? sim_run(p, &o2) : NULL;
    if (r1 && r2 && !r2->cancelled) {
        char *text = ir_print(p);
        compare(r1, r2, text);
        free(text);
    }
    sim_result_free(r1);
    sim_result_free(r2);
    ir_program_free(p);
    return 0;
}
