/*
 * report.h — printing a simulation's outcome, for the command line and the store's commands:
 * the thesis-style text summary and the one-object JSON form.
 */
#ifndef POLYAPM_REPORT_H
#define POLYAPM_REPORT_H

#include <stdio.h>

#include "cost.h"
#include "sim.h"

/* What a report is about.  `ref`/`ref_cost` may be NULL (no reference); `verified` is 1, 0, or
 * -1 for "not checked". */
typedef struct report_input {
    const char *title;            /* program name */
    const ir_program *prog;       /* for parameter names; may be NULL */
    const char *reference;        /* what the node was verified against (path or node), or NULL */
    const char *machine;          /* profile name */
    const sim_result *res;
    const cost_summary *cost;
    const sim_result *ref;
    const cost_summary *ref_cost;
    int verified;
    double tick_seconds;
    int trace;                    /* also print the per-step trace */
    const cost_profile *profile;  /* prices each collective in the report; may be NULL */
} report_input;

/* Writes `s` as a JSON string literal (with quotes) to `out`. */
void report_json_string(FILE *out, const char *s);

void report_sim_text(FILE *out, const report_input *in);
void report_sim_json(FILE *out, const report_input *in);

#endif
