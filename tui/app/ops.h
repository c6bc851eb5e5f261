/*
 * ops.h — the operations on a workspace that the TUI and the command line share: open or create
 * the workspace of a program file, apply a transform to a node (the child is deduplicated by
 * canonical text, as the store does), add an edited program as a child, and simulate a node
 * against its source (the root, or a source replayed onto: store_reference) and store the result (keyed exactly as `polyapm sim NODE` keys it, so either
 * front end answers the other's simulations from the store).
 *
 * A simulation is split in three so that the long part can run on another thread:
 *   ops_sim_prepare   (store thread)  load the node, its reference (its source) and the key;
 *                                     returns 1 when the store already has the result
 *   ops_sim_run       (any thread)    simulate + verify + price; touches no store; honours
 *                                     `cancel` and reports progress
 *   ops_sim_store     (store thread)  render the reports and store the result
 * A cancelled or failed run is simply freed: nothing is written.
 *
 * Errors are values: 0 on success, -1 with a message in the diag_list.  Every struct is owned by
 * the caller and released with its *_free.
 */
#ifndef POLYAPM_OPS_H
#define POLYAPM_OPS_H

#include <stdint.h>
#include <stdio.h>

#include "cost.h"
#include "diag.h"
#include "simjob.h"
#include "store.h"

/* The workspace next to FILE.apm: "dir/FILE.pdg" (malloc'd). */
own_give char *ops_workspace_for(const char *apm_path);
/* Opens WS for writing, creating it with FILE.apm as the root when it does not exist
 * (`apm_path` may be NULL when only opening).  *created = 1 when a new workspace was made. */
int ops_open_or_init(const char *ws, const char *apm_path, own_give store **out, int *created, diag_list *d);

/* Applies transform `xf` with `key=value` arguments to node `parent`; on success the child is
 * stored (or the existing node with the same text is linked) and its id returned in *child.
 * On failure nothing is written; *status (may be NULL) is XF_EREFUSED or XF_EUSAGE as for
 * xf_apply.  `ov` are -D overrides for transforms that need fixed values.  What the transform
 * reports (stm auto's candidates, a placement's fallback) goes to `report` (borrowed; NULL
 * discards it). */
int ops_apply(store *s, int64_t parent, const char *xf, int argc, char *const *argv,
              const ir_binding *ov, int nov, FILE *report, int64_t *child, int *created,
              int *status, diag_list *d);
/* Adds program text (checked and canonicalised here) as a child of `parent`, edge transform
 * `how` (e.g. "edit", or a transform's name with its `params` when the transform ran elsewhere,
 * as the TUI runs it in a child process).  Parse/check errors go to `d`, nothing written. */
int ops_add_text(store *s, int64_t parent, const char *text, size_t len, const char *how,
                 const char *params, const char *why, int64_t *child, int *created, diag_list *d);

/* The program of node `id`, loaded and checked (caller frees with ir_program_free). */
own_give ir_program *ops_node_program(store *s, int64_t id, diag_list *d);
/* "n=256,steps=21": the final parameter values of `p` under overrides `b` — the parameter part
 * of a simulation's key (and of a measurement's).  malloc'd, NULL with a message. */
own_give char *ops_param_key(const ir_program *p, const ir_binding *b, int nb, diag_list *d);

enum { OPS_MAX_BINDINGS = 32 };

typedef struct ops_sim {
    /* inputs: set before ops_sim_prepare */
    int64_t node;
    const char *model;                    /* NULL = "polyapm" (borrowed) */
    cost_profile profile;                 /* e.g. cost_profile_resolve("scali2004") */
    ir_binding bindings[OPS_MAX_BINDINGS];/* names borrowed */
    int nbindings;
    int force;                            /* simulate even when the store has the result */
    /* filled by prepare / run */
    int64_t root;                         /* the reference: the path's source (store_reference) */
    store_node n, rootn;
    ir_program *prog, *ref;
    char *params, *mtext;                 /* the key: final parameter values, profile text */
    simjob job;
    int ran;                              /* ops_sim_run completed */
    int hit;                              /* prepare found the result stored */
    store_sim stored;                     /* the stored row when hit */
    double total;                         /* the result's total (hit or run) */
    int verified;
} ops_sim;

int ops_sim_prepare(store *s, ops_sim *j, diag_list *d);          /* 1 hit, 0 must run, -1 error */
int ops_sim_run(ops_sim *j, volatile int *cancel, void (*progress)(void *, double), void *ctx,
                diag_list *d);                                     /* 0 done, -1 failed/cancelled */
int ops_sim_store(store *s, ops_sim *j, diag_list *d);
/* The row ops_sim_store would store for a completed run (no store needed: a worker process
 * builds it and the parent stores it).  Its strings are the job's or owned[0..3] (free them). */
int ops_sim_row(const ops_sim *j, store_sim *row, own_give char *owned[4], diag_list *d);
void ops_sim_free(own_keep ops_sim *j);   /* what the job holds */
/* The processor seconds the simulation and its reference's took (as stored, or as they ran; 0
 * before a run). */
double ops_sim_seconds(const ops_sim *j);
/* The report of a completed run (text or JSON, with or without the per-step trace), as stored;
 * malloc'd, NULL when the run did not complete. */
own_give char *ops_sim_report(const ops_sim *j, int json, int trace);
/* --machine: a built-in profile or a profile file, else a profile stored in the workspace under
 * that name (e.g. `local`, from calibrate), else the user-level profile of that name
 * (cost_profile_user_path, written by calibrate).  `s` may be NULL. */
int ops_resolve_machine(store *s, const char *name, cost_profile *out, diag_list *d);
/* The profile's text as a stored simulation's key holds it: cost_profile_format's, and a comment
 * naming the engine (a hash of its sources, made by the Makefile), so that results of another
 * simulator or other prices are simulated again rather than answered from the store.  malloc'd; NULL when out of
 * memory. */
own_give char *ops_machine_key_text(const cost_profile *p);
/* prepare + run + store in one call (the command-line path). */
int ops_sim_node(store *s, ops_sim *j, diag_list *d);

/* Reads a JSON array of numbers stored under "key" in `json` (per_proc, trace); returns the
 * count (malloc'd *out) or 0 when absent. */
int ops_json_numbers(const char *json, const char *key, own_give double **out);

#endif
