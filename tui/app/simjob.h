/*
 * simjob.h — one simulation as the user asks for it: run a program, run its reference (the
 * source it must compute identically) with the same parameter values, verify the outputs, and
 * price both runs under a cost model and machine profile.  Shared by `polyapm sim`, the
 * workspace commands and the TUI.
 */
#ifndef POLYAPM_SIMJOB_H
#define POLYAPM_SIMJOB_H

#include "cost.h"
#include "sim.h"

typedef struct simjob {
    /* inputs (borrowed) */
    const ir_program *prog;
    const ir_program *ref;        /* NULL: a source program is its own reference; others unchecked */
    const ir_binding *bindings;
    int nbindings;
    const char *model;            /* NULL = "polyapm" */
    cost_profile profile;
    volatile int *cancel;
    void (*progress)(void *ctx, double fraction);
    void *progress_ctx;
    int all_planes;               /* store every time plane (both runs) */
    /* outputs (owned; simjob_free releases) */
    sim_result *res, *ref_res;    /* ref_res set before simjob_run: a run of the reference at the
                                     program's values, verified against rather than run again
                                     (borrowed: set it back to NULL before simjob_free); one at
                                     other values is left alone and the reference run */
    cost_summary cost, ref_cost;
    int has_cost, has_ref_cost;
    int verified;                 /* 1 yes, 0 no, -1 not checked */
} simjob;

/* Runs the job.  Returns 0 when both runs completed (whatever they found), -1 when a run could
 * not start or was cancelled (diagnostics in `d`). */
int simjob_run(simjob *j, diag_list *d);
/* The run's cost with its traffic priced at data_scale times its data (cost_profile.data_scale):
 * 0 with *total and *step_work (cost_summary's), -1 when the job has no cost. */
int simjob_cost_at(const simjob *j, double data_scale, double *total, double *step_work);
void simjob_free(own_keep simjob *j);   /* its outputs */

#endif
