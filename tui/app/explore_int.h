/*
 * explore_int.h — what the files of explore's search share (explore.c the search, explore_work.c
 * its tasks and workers, explore_cands.c the candidates tried at a node, explore_why.c what a
 * leaf's processors do); private to tui/app.
 */
#ifndef POLYAPM_EXPLORE_INT_H
#define POLYAPM_EXPLORE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "explore.h"

/* ---- messages: lists of strings (explore_work.c) ---- */

typedef struct msg {
    int n, cap;
    char **s;       /* owned: n strings, each NUL-terminated (len[i] bytes before the NUL) */
    size_t *len;
} msg;

/* Appends a copy of s (NULL: ""); 0 or -1 (out of memory). */
int msg_str(msg *m, const char *s);
int msg_fmt(msg *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void msg_free(own_keep msg *m);   /* its strings */
/* Writes m to / reads a message (initialised here, the caller frees it) from a pipe; 0 or -1. */
int msg_send(int fd, const msg *m);
int msg_recv(int fd, own_give msg *m);

/* ---- the work (explore_work.c) ---- */

/* What every task needs, set before the workers fork. */
typedef struct wctx {
    const explore_opts *o;
    const ir_program *ref;    /* the start's source (store_reference: the root, or a source a
                               * replay added), the reference of every simulation */
    int64_t root;
    const char *root_label;
} wctx;

/* The fields of a simulation's result:
 * ok PARAMS TOTAL SECONDS AGG VERIFIED CHECKSUM NPROCS NSTEPS VIOLATIONS PER_PROC TRACE
 * REPORT_TEXT REPORT_JSON SIM_SECONDS LEVEL TILED REDIST AT_TOTAL AT_STEP_WORK (priced at
 * opts.at_data_scale; -1 without) |  error WHY  |  cancelled WHY (padded to the
 * same count). */
enum { SIM_NFIELDS = 20 };

/* Does task t (apply PARENT_TEXT XF ARGS... | sim TEXT LABEL) into r (initialised here, the
 * caller frees it).  Honours xf_cancel(). */
void do_task(const wctx *w, const msg *t, own_give msg *r);
/* A worker process's life: tasks from `in`, results to `out`, until `in` closes; never returns. */
void worker_loop(const wctx *w, int in, int out) __attribute__((noreturn));
/* Whether the block holds a `proc` loop (the program is tiled). */
int has_proc_loop(const ir_block *b);

/* ---- leaves (explore_why.c) ---- */

/* The processors with work in a stored simulation's per-processor totals (store_sim.per_proc). */
int explore_busy(const char *per_proc);
/* The work of each step's busiest processor from a stored per-processor JSON (cost_summary's
 * step_work), -1 when it has none (simulations stored before it). */
double explore_step_work(const char *per_proc);

/* ---- ranking at the user's size (explore_rank.c; explore.h says how) ---- */

/* Ranks r's leaves at o->at: the o->rank_top best verified leaves in the search's order (r
 * sorted so) and the best of every other shape, then sorts them.  0, or -1 with a message. */
int explore_rank_at(store *s, const explore_opts *o, explore_result *r, diag_list *d);
/* A leaf's cost at the user's size (lambda 1) from its costs y[m] at the samples' lam[m]
 * (explore_rank.c says how). */
double explore_at_extrapolate(const double *lam, const double *y, int n, int degree);
/* The search's sizes as a factor of the user's (opts.at): the geometric mean of the program's
 * values over at's, 0 without --at or when it is not below 1 (explore_opts.at_shrink); and in
 * *data_scale the arrays' elements at the user's size over those at the search's (0 when not
 * above 1): the search prices each node there too (explore_opts.at_data_scale). */
double explore_at_shrink(store *s, const explore_opts *o, double *data_scale, diag_list *d);
/* The shape of leaf `node`'s derivation (malloc'd; NULL with a message): the node its first
 * step from the search's start made (the space-time mapping) and the names of the transforms
 * after it, without their parameters but memdist's layout — leaves of one shape differ in tile
 * sizes, block sizes, placements' widths.  With `tiling`, also tile's kind (blocked, cyclic,
 * blockcyclic): the kind of its tiling, whose rows or blocks give `local` other loops to change. */
char *explore_leaf_shape(store *s, int64_t start, int64_t node, int tiling, diag_list *d);
/* Ranks the verified leaves r->leaves[from ..] (the second pass's) beside those ranked already
 * (same samples) and sorts the ranked ones again (a leaf that does not simulate at a sample is
 * ranked not verified). */
void explore_rank_more(store *s, const explore_opts *o, int from, explore_result *r);

/* ---- candidates (explore_cands.c) ---- */

enum { MAX_ARGS = 128 };   /* stm auto's longest candidates (deriche: 70 words) */

typedef struct cand {
    const char *xf;           /* the registry's name (not owned) */
    char *args[MAX_ARGS];     /* owned */
    int nargs;
} cand;

typedef struct cands {
    cand *c;                  /* owned */
    int n, cap;
} cands;

void cands_free(own_keep cands *cs);   /* its candidates */
/* Appends to cs every candidate of every transform that applies to p, those whose children keep
 * their parent a leaf (cand_keeps_leaf: local) alone in the second pass (local_pass = 1), the
 * others alone in the search; 0 or -1 (out of memory). */
int candidates(const explore_opts *o, const ir_program *p, int local_pass, own_give cands *cs);
/* A candidate's arguments joined by spaces (malloc'd, the caller frees it), or NULL. */
own_give char *join_args(const cand *c);
/* The -D binding of `name` in o, or NULL. */
const ir_binding *explore_opts_binding(const explore_opts *o, const char *name);
/* 1 when transform xf is tried in explore's second pass, on the best leaves, its children leaving
 * their parent a leaf (local: it rewrites the loops of a leaf's processor step; the leaf stays an
 * answer to compare it with). */
int cand_keeps_leaf(const char *xf);
/* A hash of the candidate list (positive): the explored mark records it. */
int64_t signature_of(const cands *cs);

#endif
