/*
 * report.c — prints a simulation's outcome (see report.h).
 *
 * The text form follows the thesis's interpreter output ("Cost model, total: ...", work/send/
 * recv/comm totals per processor); long per-processor lists are abbreviated.  The JSON form is
 * one object with every figure, for scripts and tests.
 */
#include "report.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>


enum { LIST_MAX = 16 };  /* per-processor lists longer than this are abbreviated in text */

static void list_doubles(FILE *out, const double *v, int n, const char *fmt)
{
    double sum = 0, lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < n; i++) {
        sum += v[i];
        if (v[i] < lo) lo = v[i];
        if (v[i] > hi) hi = v[i];
    }
    fputc('[', out);
    for (int i = 0; i < n && i < LIST_MAX; i++) {
        if (i) fputs(", ", out);
        fprintf(out, fmt, v[i]);
    }
    if (n > LIST_MAX) fprintf(out, ", ... (%d processors, min %.10g, max %.10g)", n, lo, hi);
    fputs("] = ", out);
    fprintf(out, fmt, sum);
    fputc('\n', out);
}

static void list_ints(FILE *out, const int64_t *v, int n)
{
    int64_t sum = 0;
    fputc('[', out);
    for (int i = 0; i < n; i++) {
        sum += v[i];
        if (i < LIST_MAX) fprintf(out, "%s%" PRId64, i ? ", " : "", v[i]);
    }
    if (n > LIST_MAX) fprintf(out, ", ... (%d processors)", n);
    fprintf(out, "] = %" PRId64 "\n", sum);
}

static void print_params(FILE *out, const report_input *in)
{
    if (!in->prog || !in->res->params) return;
    for (int i = 0; i < in->prog->nparams && i < in->res->nparams; i++)
        fprintf(out, "%s%s=%" PRId64, i ? " " : "", in->prog->params[i]->u.param.name,
                in->res->params[i]);
}

static double speedup(const report_input *in)
{
    if (!in->ref_cost || !in->cost || in->cost->total <= 0) return NAN;
    return in->ref_cost->total / in->cost->total;
}

static int has_collectives(const sim_result *r)
{
    for (int t = 0; r->trace.ncolls && t < r->trace.nsteps; t++)
        if (r->trace.ncolls[t]) return 1;
    return 0;
}

static const char *verified_word(int v) { return v > 0 ? "yes" : v == 0 ? "NO" : "not checked"; }

void report_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)s; c && *c; c++) {
        switch (*c) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*c < 0x20) fprintf(out, "\\u%04x", *c);
            else fputc(*c, out);
        }
    }
    fputc('"', out);
}

void report_sim_text(FILE *out, const report_input *in)
{
    const sim_result *r = in->res;
    const cost_summary *c = in->cost;
    fprintf(out, "%s (%s)", in->title ? in->title : "program", ir_level_name(r->level));
    if (in->prog && in->prog->nparams) { fputs(", ", out); print_params(out, in); }
    fputc('\n', out);
    if (c) {
        fprintf(out, "Cost model %s, machine %s\n", c->model, in->machine ? in->machine : "?");
        fprintf(out, "Cost model, total: %.1f", c->total);
        if (in->tick_seconds > 0) fprintf(out, " ticks (%.6g s predicted)", c->total * in->tick_seconds);
        fputc('\n', out);
        fprintf(out, "agg. work: %.8g\n", c->aggregate_work);
        fprintf(out, "steps: %d, processors: %d\n", c->nsteps, c->nprocs);
        fputs("work totals: ", out); list_doubles(out, c->work, c->nprocs, "%.10g");
        fputs("send totals: ", out); list_ints(out, c->sends, c->nprocs);
        fputs("recv totals: ", out); list_ints(out, c->recvs, c->nprocs);
        fputs("comm totals: ", out); list_doubles(out, c->comm, c->nprocs, "%.8g");
        if (c->overlap) { fputs("overlap totals: ", out); list_doubles(out, c->overlap, c->nprocs, "%.10g"); }
        if (c->collective > 0 || has_collectives(r)) {
            fprintf(out, "collectives: %.10g of the total\n", c->collective);
            for (int t = 0; t < r->trace.nsteps && in->profile; t++)
                for (int k = 0; k < r->trace.ncolls[t]; k++) {
                    const sim_coll_rec *q = &r->trace.colls[t][k];
                    fprintf(out, "  t=%" PRId64 " %s at %d:%d over %d processors, m=%.10g: %.10g\n",
                            r->trace.step_time[t], ir_coll_name((ir_coll_kind)q->kind), q->line, q->col,
                            q->nprocs, q->m, cost_collective(c->model, q, in->profile));
                }
        }
        double s = speedup(in);
        if (!isnan(s)) fprintf(out, "speedup over the source: %.2f (source cost %.1f)\n", s,
                               in->ref_cost->total);
    }
    if (r->local_elems && c) {
        fputs("local memory (elements): ", out);
        list_ints(out, r->local_elems, c->nprocs);
        fprintf(out, "full replication: %" PRId64 " elements per processor\n", r->full_elems);
        if (r->recv_elems) { fputs("received (elements): ", out); list_ints(out, r->recv_elems, c->nprocs); }
    }
    if (in->trace && c) {
        fputs("step        time          cost      max work   messages\n", out);
        for (int t = 0; t < c->nsteps && t < r->trace.nsteps; t++) {
            double mw = 0;
            for (int p = 0; p < r->trace.nprocs; p++) {
                double w = r->trace.work[(size_t)t * r->trace.nprocs + p];
                if (w > mw) mw = w;
            }
            int64_t msgs = 0;
            for (int m = 0; m < r->trace.nmsgs[t]; m++) msgs += r->trace.msgs[t][m].count;
            fprintf(out, "%4d %11" PRId64 " %13.1f %13.1f %10" PRId64 "\n", t, r->trace.step_time[t],
                    c->step_cost[t], mw, msgs);
        }
    }
    fprintf(out, "checksum: %016" PRIx64 "\n", r->checksum);
    fprintf(out, "verified: %s", verified_word(in->verified));
    if (in->reference) fprintf(out, " (against %s)", in->reference);
    fputc('\n', out);
    if (r->violations_total) {
        fprintf(out, "violations: %" PRId64 "\n", r->violations_total);
        for (int i = 0; i < r->nviolations; i++)
            fprintf(out, "  %s\n", r->violations[i].text);
        if (r->violations_total > r->nviolations)
            fprintf(out, "  (%" PRId64 " more)\n", r->violations_total - r->nviolations);
    }
}

static void json_doubles(FILE *out, const double *v, int n)
{
    fputc('[', out);
    for (int i = 0; i < n; i++) fprintf(out, "%s%.17g", i ? "," : "", v[i]);
    fputc(']', out);
}

static void json_ints(FILE *out, const int64_t *v, int n)
{
    fputc('[', out);
    for (int i = 0; i < n; i++) fprintf(out, "%s%" PRId64, i ? "," : "", v[i]);
    fputc(']', out);
}

static void json_number(FILE *out, double v)
{
    if (isfinite(v)) fprintf(out, "%.17g", v);
    else fputs("null", out);
}

/* "work_classes": the trace's ticks per work class (engine/sim.h, SIM_WORK_*) and of the send
 * guards (not among the scalar ones), before pricing; "streams": the elements unit-stride work
 * streamed, "restarts": the streams loops over part of a row started over (engine/cost.h,
 * `streams`), "cached": their accesses to rows the caches keep (`levels`; "tile_reads": of
 * them, those to a tile's rows read again), "chains": the
 * accumulations' chains begun (`chains`), "entries" and "alias_checks": the innermost loops'
 * entries and those that test their accesses' overlap (`entries`), "chained": the walking chains'
 * ticks on their chains (`walks`). */
static void json_classes(FILE *out, const cost_summary *c)
{
    static const char *const names[SIM_WORK_CLASSES] = {
        [SIM_WORK_SCALAR] = "scalar", [SIM_WORK_UNIT] = "unit",
        [SIM_WORK_STRIDED] = "strided", [SIM_WORK_ALIASED] = "aliased", [SIM_WORK_ACCUM] = "accum",
        [SIM_WORK_BLOCKED] = "blocked", [SIM_WORK_SEARCHED] = "searched",
        [SIM_WORK_LANES] = "lanes" };
    fputs(",\"work_classes\":{\"guard\":", out);
    json_number(out, c->guard);
    for (int k = 0; k < SIM_WORK_CLASSES; k++) {
        fprintf(out, ",\"%s\":", names[k]);
        json_number(out, c->class_ticks[k]);
    }
    fputs(",\"streams\":", out);
    json_number(out, c->streams);
    fputs(",\"restarts\":", out);
    json_number(out, c->restarts);
    fputs(",\"cached\":", out);
    json_number(out, c->cached);
    fputs(",\"tile_reads\":", out);
    json_number(out, c->tile_reads);
    fputs(",\"chains\":", out);
    json_number(out, c->chains);
    fputs(",\"entries\":", out);
    json_number(out, c->entries);
    fputs(",\"alias_checks\":", out);
    json_number(out, c->alias_checks);
    fputs(",\"chained\":", out);
    json_number(out, c->chained);
    fputc('}', out);
}

void report_sim_json(FILE *out, const report_input *in)
{
    const sim_result *r = in->res;
    const cost_summary *c = in->cost;
    fputs("{\"program\":", out);
    report_json_string(out, in->title ? in->title : "");
    fputs(",\"level\":", out);
    report_json_string(out, ir_level_name(r->level));
    fputs(",\"params\":{", out);
    if (in->prog)
        for (int i = 0; i < in->prog->nparams && i < r->nparams; i++) {
            if (i) fputc(',', out);
            report_json_string(out, in->prog->params[i]->u.param.name);
            fprintf(out, ":%" PRId64, r->params[i]);
        }
    fputs("}", out);
    if (c) {
        fputs(",\"model\":", out);
        report_json_string(out, c->model);
        fputs(",\"machine\":", out);
        report_json_string(out, in->machine ? in->machine : "");
        fputs(",\"cost\":", out); json_number(out, c->total);
        fputs(",\"seconds\":", out); json_number(out, c->total * in->tick_seconds);
        fputs(",\"aggregate_work\":", out); json_number(out, c->aggregate_work);
        json_classes(out, c);
        fprintf(out, ",\"nprocs\":%d,\"steps\":%d", c->nprocs, c->nsteps);
        fputs(",\"work\":", out); json_doubles(out, c->work, c->nprocs);
        fputs(",\"send\":", out); json_ints(out, c->sends, c->nprocs);
        fputs(",\"recv\":", out); json_ints(out, c->recvs, c->nprocs);
        fputs(",\"comm\":", out); json_doubles(out, c->comm, c->nprocs);
        if (c->overlap) { fputs(",\"overlap\":", out); json_doubles(out, c->overlap, c->nprocs); }
        fputs(",\"step_cost\":", out); json_doubles(out, c->step_cost, c->nsteps);
        fputs(",\"speedup\":", out); json_number(out, speedup(in));
        fputs(",\"collective\":", out); json_number(out, c->collective);
        fputs(",\"collectives\":[", out);
        for (int t = 0, first = 1; r->trace.ncolls && t < r->trace.nsteps; t++)
            for (int k = 0; k < r->trace.ncolls[t]; k++, first = 0) {
                const sim_coll_rec *q = &r->trace.colls[t][k];
                fprintf(out, "%s{\"kind\":\"%s\",\"line\":%d,\"col\":%d,\"step\":%d,\"nprocs\":%d,"
                        "\"m\":%.17g,\"words\":%.17g,\"ops\":%.17g,\"cost\":", first ? "" : ",",
                        ir_coll_name((ir_coll_kind)q->kind), q->line, q->col, t, q->nprocs, q->m, q->words, q->ops);
                json_number(out, in->profile ? cost_collective(c->model, q, in->profile) : NAN);
                fputc('}', out);
            }
        fputc(']', out);
        if (r->local_elems) {
            fputs(",\"local_memory\":", out); json_ints(out, r->local_elems, c->nprocs);
            fprintf(out, ",\"full_memory\":%" PRId64, r->full_elems);
            if (r->recv_elems) { fputs(",\"received_memory\":", out); json_ints(out, r->recv_elems, c->nprocs); }
        }
        fprintf(out, ",\"simulator_bytes\":%" PRId64, r->array_bytes);
    }
    if (in->ref_cost) {
        fputs(",\"reference_cost\":", out); json_number(out, in->ref_cost->total);
    }
    fputs(",\"reference\":", out);
    if (in->reference) report_json_string(out, in->reference); else fputs("null", out);
    fprintf(out, ",\"checksum\":\"%016" PRIx64 "\"", r->checksum);
    fprintf(out, ",\"verified\":%s", in->verified > 0 ? "true" : in->verified == 0 ? "false" : "null");
    fprintf(out, ",\"violations_total\":%" PRId64 ",\"violations\":[", r->violations_total);
    for (int i = 0; i < r->nviolations; i++) {
        fprintf(out, "%s{\"kind\":", i ? "," : "");
        report_json_string(out, sim_violation_kind_name(r->violations[i].kind));
        fprintf(out, ",\"line\":%d,\"col\":%d,\"text\":", r->violations[i].line, r->violations[i].col);
        report_json_string(out, r->violations[i].text);
        fputc('}', out);
    }
    fprintf(out, "],\"sim_seconds\":%.6f}\n", r->seconds);
}
