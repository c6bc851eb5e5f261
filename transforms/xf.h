/*
 * xf.h — the transformations: one registry of the steps of a PolyAPM derivation, and the
 * dependence analysis they rest on.
 *
 * A transform takes a checked program at one level and returns a NEW checked program (the child
 * node), or NULL with an explained refusal in a diag_list (which dependence, which statement,
 * an example instance).  The source program is never modified.  Every transform is one row of
 * the table in registry.c: its name, the levels it applies to, its typed parameters with
 * defaults and candidate values, a summary, an applicability test and the apply function.
 *
 * Parameters are given as `key=value` strings (`theta.L=2*(j-1)`, `sigma=i`, `procs=4`); a key
 * may carry a `.LABEL` suffix for per-statement values.  Errors in parameters (unknown key,
 * unknown statement label, non-affine expression, bad syntax) are usage errors: the apply
 * functions report them with XF_EUSAGE so that the command line exits 2.
 *
 * Dependence analysis (deps.c) uses isl: exact flow dependences between statement instances of a
 * checked source-level program (plus anti and output dependences where memory is reused), with
 * the parameters kept symbolic (constrained by the context `param >= 1`) or fixed to values.
 *
 * Ownership (own.h): every own_give result is the caller's, freed with the matching *_free.
 */
#ifndef POLYAPM_XF_H
#define POLYAPM_XF_H

#include <stdio.h>

#include "cost.h"
#include "diag.h"
#include "ir.h"

/* ---- parameters -------------------------------------------------------------------------------- */

typedef enum xf_ptype { XF_P_INT, XF_P_EXPR, XF_P_ENUM, XF_P_STRING } xf_ptype;

typedef struct xf_param {
    const char *name;          /* key; `per_stmt` keys also accept `name.LABEL` */
    xf_ptype type;
    const char *def;           /* default value as text, or NULL (required / derived) */
    const char *candidates;    /* for enums and suggestions: values separated by '|' , or NULL */
    int per_stmt;              /* 1 if `name.LABEL=...` is accepted */
    const char *help;
    /* For automatic search (explore): 1 if the parameter is a setting of the cost model rather
     * than a design decision (the search keeps its default); and a condition `key=value` under
     * which its candidates are meaningful (NULL: always). */
    int model_only;
    const char *only_with;
} xf_param;

/* One `key=value` argument, split.  `label` is NULL unless the key was `name.LABEL`. */
typedef struct xf_arg {
    char *key;                 /* owned */
    char *label;               /* owned or NULL */
    char *value;               /* owned */
} xf_arg;

typedef struct xf_args {
    xf_arg *items;
    int n;
    /* Parameter overrides (-D) to use where fixed values are needed (stm auto ranking, deps
     * with fixed values).  Not owned. */
    const ir_binding *bindings;
    int nbindings;
    /* Where a transform may report what it considered (stm auto's ranked candidates), or NULL.
     * Not owned. */
    FILE *report;
} xf_args;

/* Parses `key=value` strings into `out` (appending).  Returns 0, or -1 with a message in `d`. */
int xf_args_parse(xf_args *out, int argc, char *const *argv, diag_list *d);
void xf_args_free(xf_args *a);
/* The value for key `name` and statement `label` (a `name.label` entry wins over `name`), or
 * NULL.  `label` may be NULL. */
const char *xf_args_get(const xf_args *a, const char *name, const char *label);

/* ---- the registry ------------------------------------------------------------------------------ */

enum { XF_OK = 0, XF_EREFUSED = 1, XF_EUSAGE = 2 };

typedef struct xf_transform {
    const char *name;
    unsigned levels;           /* bitmask of (1u << ir_level) */
    const xf_param *params;
    int nparams;
    const char *summary;
    /* 1 if the transform may apply to `p`; otherwise 0 and *why_not (malloc'd) says why. */
    int (*applicable)(const ir_program *p, own_give char **why_not);
    /* Returns a new checked program or NULL with diagnostics; *status is XF_EREFUSED (the
     * transformation is illegal here) or XF_EUSAGE (bad parameters) on failure.  Called only
     * through xf_apply_with, after `applicable` said yes. */
    own_give ir_program *(*apply)(const ir_program *src, const xf_args *args, diag_list *d,
                                  int *status);
    /* Optional (NULL): the predicted gain under a machine profile, as one line of text
     * (malloc'd; collective fusion: Table 1 of Gorlatch et al., with a warning when negative). */
    own_give char *(*predict)(const ir_program *p, const cost_profile *prof);
} xf_transform;

const xf_transform *xf_find(const char *name);
int xf_count(void);
const xf_transform *xf_at(int i);          /* 0 <= i < xf_count() */

/* Applies transform `name` to the checked program `src`.  Returns the new program or NULL;
 * *status (may be NULL) receives XF_OK, XF_EREFUSED or XF_EUSAGE. */
own_give ir_program *xf_apply(const ir_program *src, const char *name, int argc, char *const *argv,
                              diag_list *d, int *status);
/* The same with parameter overrides (-D; used where fixed values are needed, e.g. ranking by
 * step count) and a stream for the transform's report (may be NULL). */
own_give ir_program *xf_apply_with(const ir_program *src, const char *name, int argc,
                                   char *const *argv, const ir_binding *ov, int nov, FILE *report,
                                   diag_list *d, int *status);
/* The same from program text: parses and checks `src_text`, applies, and returns the canonical
 * text of the result (malloc'd) or NULL.  `file` names the text in diagnostics. */
own_give char *xf_apply_text(const char *file, const char *src_text, const char *name, int argc,
                             char *const *argv, diag_list *d, int *status);

/* Prints the transforms that apply to `p` with their parameters (text, or JSON with json=1),
 * and the predicted gain of those that have one under machine profile `prof` (NULL: scali2004). */
void xf_print_applicable(FILE *out, const ir_program *p, int json);
void xf_print_applicable_on(FILE *out, const ir_program *p, int json, const cost_profile *prof);

/* 1 when a syncomm or syndm program of a blocked tiling has an array that one phase accesses by
 * rows and another by columns, which redist (at syndm) transposes between them instead of
 * sending it element by element: its cost then overstates its descendants' (explore's bound). */
int xf_redist_pending(const ir_program *p);

/* ---- the exporter (export*.c): the last transformation ------------------------------------------ */

/* How messages of a syndm program travel in exported code.  HALO: the partner set is static (the
 * same elements to the same processors every step), recorded once and exchanged as values
 * (rows and columns in place); ALLTOALLV: the thesis's coalesced (index, value) records with
 * MPI_Alltoall of counts + MPI_Alltoallv; AUTO: HALO where it applies, else ALLTOALLV. */
typedef enum xf_exchange { XF_EXCHANGE_AUTO, XF_EXCHANGE_HALO, XF_EXCHANGE_ALLTOALLV } xf_exchange;

typedef struct xf_export_options {
    const ir_binding *bindings;    /* -D overrides; the parameter values are baked into the C */
    int nbindings;
    xf_exchange exchange;
    const char *origin;            /* where the program came from, for comments (may be NULL) */
} xf_export_options;

/* What an export wrote. */
typedef struct xf_export_info {
    int mpi;                       /* 1: C+MPI (syndm), 0: sequential C (source, syn) */
    int ranks;                     /* MPI ranks the program needs (1 when sequential) */
    xf_exchange exchange;          /* the exchange used (AUTO when there are no messages) */
    char prog[128];                /* the program's executable name in the directory */
} xf_export_info;

/* The options an exported program runs under smpirun with (`polyapm run --smpi`, and the
 * README's line for a hand run): SimGrid's default Alltoallv waits with a waitany over all its
 * requests, quadratic in the ranks (the records exchange at 256 ranks: over 14 min), the ring
 * algorithm does not; events within 0.1 us of each other are one (surf/precision; smpirun's
 * default is 1 ns): computation timed as it runs ends at a different instant on every rank, and
 * each instant re-solved the bandwidth sharing of every message in flight, most of a run at 1024
 * ranks; MPI_Wtime's pause (smpi/wtime, 10 ns) is then that 0.1 us, as SimGrid would round it,
 * said so that it does not warn once a rank. */
#define XF_SMPIRUN_OPTIONS "--cfg=smpi/alltoallv:ring --cfg=surf/precision:1e-7 --cfg=smpi/wtime:1e-7"

/* The compiler flags of an exported Makefile (make variables ARCH and EXTRA_CFLAGS in them):
 * optimised for this host, every value the simulator's (no contraction into fused multiply-adds). */
#define XF_EXPORT_CFLAGS "-std=c11 -O3 $(ARCH) -Wall -Wextra -ffp-contract=off $(EXTRA_CFLAGS)"

/* Writes the checked program `p` as a self-contained directory `dir` (created when missing):
 * PROG.c, the runtime sources it needs, a Makefile and a README.  Returns XF_OK, or XF_EREFUSED
 * (a level or statement the exporter does not handle, a halo that does not apply, ...) or
 * XF_EUSAGE (bad parameters) with the reason in `d`. */
int xf_export(const ir_program *p, const char *dir, const xf_export_options *o,
              xf_export_info *info, diag_list *d);
/* The exchange an export of p (at those parameter values, --exchange auto) would use: HALO,
 * ALLTOALLV (records), or AUTO when p sends nothing or does not export. */
xf_exchange xf_export_exchange(const ir_program *p, const ir_binding *bindings, int nbindings);
/* The profile that prices p as its export runs: prof, with guard_price 1 for a syndm program
 * whose export tests some send's guard per element: not the halo path (its pattern is recorded
 * once), and on the record or multicast path a send in an inner loop whose guard changes in it
 * or is versioned on a test that holds often (export_guards.c; cost.h, `guards`); and, under a
 * profile with sync_on_messages (calibrated), no barrier on the halo path, whose steps exchange
 * with their partners alone (the barrier was measured on the record exchange's collectives), and
 * its words at loggp's G, not at normsent and normrcvd (measured per record of that exchange:
 * the halo path sends runs of doubles) where the program has no collectives.
 * Other levels keep prof's price: what their syndm descendants may pay at best (explore's
 * bounds stay optimistic). */
cost_profile xf_export_pricing(const ir_program *p, const ir_binding *bindings, int nbindings,
                               const cost_profile *prof);
const char *xf_exchange_name(xf_exchange e);
int xf_exchange_parse(const char *s, xf_exchange *out);   /* 1 on success */

/* ---- stm auto ---------------------------------------------------------------------------------- */

/* A proposed space-time mapping: the stm arguments ("theta.L=2*j-2 sigma.L=i ..."), its number
 * of time steps and of processors at the parameter values used, the most instances of a
 * statement one (t, p) point runs (1 when the mapping is injective), how many processors a step
 * keeps busy on average, and whether the source's innermost loops stay innermost (see
 * xf_stm_candidates). */
typedef struct xf_stm_cand {
    char *args;
    long long steps, procs;
    int cost;
    long long work, width;     /* instances per (t, p) point; (t, p) points per step */
    int local;
    int follows;               /* a phase runs where the data it reads lies, pipelined (stm_isl.c):
                                  kept besides the best `max` */
} xf_stm_cand;

/* Proposes legal mappings (see stm_auto.c and stm_isl.c), best first: those that keep more than
 * one processor busy in a step, those that keep the source's innermost loops innermost, then by the estimated
 * length (steps times instances per point), steps, processors, simplicity; at most `max`, and
 * besides them up to two whose phases follow the data they read (`follows`).
 * Returns the number, or -1 with diagnostics. */
int xf_stm_candidates(const ir_program *p, const ir_binding *ov, int nov, int max,
                      own_give xf_stm_cand **out, diag_list *d);
void xf_stm_cands_free(own_take xf_stm_cand *c, int n);

/* ---- cancellation (cancel.c) ------------------------------------------------------------------- */

/* One process-wide request to stop: xf_cancel() (async-signal-safe: call it from a signal
 * handler) makes the transforms under way give up soon (their isl computations abort, their long
 * loops stop); whatever they return while xf_cancelled() is 1 must be discarded.  The flag stays
 * set until xf_cancel_clear().  xf_cancel_flag() is the same flag for the simulator's `cancel`. */
void xf_cancel(void);
int xf_cancelled(void);
void xf_cancel_clear(void);
volatile int *xf_cancel_flag(void);

/* ---- dependences ------------------------------------------------------------------------------- */

typedef enum xf_dep_kind { XF_DEP_FLOW, XF_DEP_ANTI, XF_DEP_OUTPUT } xf_dep_kind;

typedef struct xf_dep {
    xf_dep_kind kind;
    const char *src;           /* source statement label (owned by the xf_deps) */
    const char *sink;          /* sink statement label */
    const char *array;
    char *ref;                 /* the sink's read (flow) or the access concerned, as text */
    char *relation;            /* isl text of the instance relation  SRC[..] -> SINK[..] */
    int uniform;               /* 1 if every pair has the same distance */
    int ndist;                 /* length of the distance/direction vector (0 if incomparable) */
    long long dist[8];         /* when uniform */
    char dir[8][4];            /* per dimension: "0", "+", "-", "0+", "0-", "*" */
    char *example;             /* one instance pair, e.g. "S[2, 1, 3] -> S[3, 1, 3] (n = 4)" */
    int src_line, sink_line;
} xf_dep;

typedef struct xf_deps {
    xf_dep *items;
    int n;
    char *context;             /* the parameter context used, as isl text */
} xf_deps;

/* Computes the dependences of a checked source-level program.  When `fixed` is 1 the parameters
 * take the values of ir_params_eval with the overrides; otherwise they stay symbolic (>= 1, or
 * equal to an earlier parameter's affine expression).  NULL with diagnostics when the program
 * cannot be analysed (not source level, non-affine subscript of a written array, ...). */
own_give xf_deps *xf_deps_compute(const ir_program *p, const ir_binding *ov, int nov, int fixed,
                                  diag_list *d);
void xf_deps_free(own_take xf_deps *deps);
/* Fig. 6.2 style table, or a JSON array. */
void xf_deps_print(FILE *out, const xf_deps *deps, int json);
/* "flow", "anti", "output". */
const char *xf_dep_kind_name(xf_dep_kind k);

/* ---- loops that carry dependences (carried.c) ---------------------------------------------------- */

/* A loop around a statement and a dependence it carries: two instances of statements inside it
 * that the loops outside it keep together, and that it orders (the sink at a later value of its
 * variable).  Such a loop cannot run its iterations on different processors in one step. */
typedef struct xf_carry {
    char *var;                 /* the loop's variable */
    int dep;                   /* the dependence's number, from 1 (as `polyapm deps` and stm count) */
    xf_dep_kind kind;
    char *src, *sink;          /* statement labels */
    char *ref;                 /* the access it goes through, as text: path[k][j] */
    char *example;             /* a pair of instances the loop orders: "S1[0, 0, 1] -> S1[0, 1, 1] (n = 2)" */
} xf_carry;

/* A statement every loop of which carries a dependence: no allocation along its loops spreads
 * its instances over processors (a skewed one, a wavefront, still may). */
typedef struct xf_serial {
    char *stmt;                /* its label */
    int nloops;
    xf_carry *loops;           /* outer to inner: per loop the first flow dependence it carries,
                                  else the first anti or output one */
} xf_serial;

/* The statements of a checked source-level program whose every loop carries a dependence (the
 * dependences of xf_deps_compute, parameters symbolic; statements outside every loop are not
 * listed), in textual order: 0 with *out (free with xf_serial_free) and *n, or -1 with
 * diagnostics (a program the analysis cannot model). */
int xf_serial_statements(const ir_program *p, const ir_binding *ov, int nov, own_give xf_serial **out, int *n,
                         diag_list *d);
void xf_serial_free(own_take xf_serial *s, int n);

#endif
