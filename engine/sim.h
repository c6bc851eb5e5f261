/*
 * sim.h — the simulator: runs a checked program on the semantics of its APM level.
 *
 *   source   sequential reference run
 *   syn      time steps; instances of the processor loop are independent within a step
 *            (a same-step read/write of an element by two processors is a race)
 *   syncomm  shared memory plus a message queue; a delivered value that differs from memory
 *            is a wrong message
 *   syndm    one memory per processor; reading an element neither owned nor received is a
 *            missing message
 *
 * The run records a trace (work per processor per step, messages per sender/receiver pair per
 * step) that the cost models (cost.h) price, and the values of the `output` arrays, which are
 * compared with a reference run to decide whether the node is verified.
 *
 * Ownership (own.h): sim_run's sim_result is the caller's, freed with sim_result_free.
 */
#ifndef POLYAPM_SIM_H
#define POLYAPM_SIM_H

#include <stdint.h>

#include "ir.h"

/* One violation found during a run (race, wrong message, missing message, out of bounds, ...). */
typedef enum sim_violation_kind {
    SIM_V_RACE, SIM_V_WRONG_MESSAGE, SIM_V_MISSING_MESSAGE, SIM_V_OUT_OF_BOUNDS,
    SIM_V_UNDEFINED_READ, SIM_V_OUTSIDE_LOCAL, SIM_V_DISAGREE, SIM_V_BAD_MESSAGE,
    SIM_V_RUNTIME, SIM_V_OUTPUT_MISMATCH
} sim_violation_kind;

typedef struct sim_violation {
    sim_violation_kind kind;
    int line, col;            /* the statement responsible (0 when none) */
    char *text;               /* owned; the full human sentence (processor, step, element, ...) */
} sim_violation;

/* Messages of one step between one pair of processors (already aggregated). */
typedef struct sim_msgs {
    int src, dst;
    int64_t count;            /* number of APM messages */
    double words;             /* total size (1.0 per element) */
    int arrays;               /* distinct arrays among them (0 counts as 1): the messages of the
                                 plain placement, one per (partner, array) */
} sim_msgs;

/* One collective of one step, as the cost models price it (Gorlatch et al., Di Cosmo et al.). */
typedef struct sim_coll_rec {
    int kind;                 /* ir_coll_kind */
    int nprocs;               /* processors taking part */
    double m;                 /* elements per processor block (1 for a global-view operator:
                                 one state per processor travels) */
    double words;             /* words per element (fields of the state; scan_bal: the partner's
                                 fields its lower/upper clause reads) */
    double ops;               /* base operations per element of one combine (scan_bal: of the
                                 larger of lower and upper) */
    int line, col;
    int groups;               /* concurrent groups (`by`); nprocs and m are the largest group's */
} sim_coll_rec;

/* Work classes: how a statement's accesses move with its innermost loop, as the exported C runs
 * them (a reduction `sum(k = ..)` counts as the loop over k):
 *   SIM_WORK_UNIT     some access moves, only in its last subscript and one element a step (unit
 *                     stride: contiguous, what gcc vectorises)
 *   SIM_WORK_STRIDED  some access moves in another subscript (a walk down a column, stride n) —
 *                     except an accumulation (SIM_WORK_ACCUM) — or several elements a step
 *                     along its row (a skewed wavefront's j = tt - 5p - i)
 *   SIM_WORK_ACCUM    an accumulation alone in its loop, its target fixed while the loop runs,
 *                     whose next loop out moves every access in its last subscript only (2mm's
 *                     `for j { for k { tmp[i][j] += A[i][k] * B[k][j] } }`), where the inner
 *                     loop's bounds change at run time (the compiler vectorises its products
 *                     and adds them in turn: SIM_WORK_LANES where they are fixed);
 *                     and a unit-stride chain: a reduction over a unit stride, or a target
 *                     fixed while the innermost loop runs that the statement reads (mvt's
 *                     x1[i] = x1[i] + A[i][j] * y1[j]): its loop runs at an addition's latency
 *                     (sim_classes.c, sim_stmt_chain)
 *   SIM_WORK_ALIASED  STRIDED where the walk's step is a multiple of 4096 bytes (a row of 512
 *                     doubles, 1024, ...): every element of the walk maps to the same cache sets
 *                     and the walk thrashes them (LU at n = 1024 runs 5x slower than at 1000);
 *                     not in a pieced dist, whose export packs each row at its own length
 *   SIM_WORK_BLOCKED  UNIT inside the point loops of a tile (a loop `j = jt .. min(.., jt + 31)`
 *                     of a loop `jt .. step 32`, as `local tile=` writes them): its innermost
 *                     loop and the loop around it run over at most SIM_TILE_BYTES of each
 *                     stream, and the next loop out does not move one of them (gemm tiled in
 *                     i, k, j: the tile of B is read again for every i of the tile): its rows
 *                     are read from the cache, whatever the processor's data (sim_streams.c)
 *   SIM_WORK_SEARCHED some access in the loop, moving or not, lies in a local memory whose
 *                     elements the exported code finds through its pieces one at a time
 *                     (ir_dist_searched: covariance's cov in two pieces; a search, a call and
 *                     the row's bounds checked an access, on every turn, in any direction, and
 *                     nothing the compiler vectorises)
 *   SIM_WORK_LANES    that accumulation where the inner loop's bounds are fixed (constants
 *                     and parameters: the exported code's constants): gcc vectorises the loop
 *                     around it, each lane a j of its own with a chain of its own, the lanes'
 *                     rows read a few elements at a time: not a walk, not a stream either (each
 *                     step of k moves to another row), a chain shared by a vector's lanes
 *   SIM_WORK_SCALAR   the rest: no loop, no access that moves, conditions, `let`s, send guards,
 *                     and every statement under a `cost N` annotation (the user's price)
 * A profile prices each class's ticks apart (cost.h, `classes`). */
enum { SIM_WORK_SCALAR, SIM_WORK_UNIT, SIM_WORK_STRIDED, SIM_WORK_ALIASED, SIM_WORK_ACCUM,
       SIM_WORK_BLOCKED, SIM_WORK_SEARCHED, SIM_WORK_LANES, SIM_WORK_CLASSES };
/* The bytes of a stream a tile's two inner loops may cover for its rows to stay in the cache. */
enum { SIM_TILE_BYTES = 256 * 1024 };

/* The trace: dense work per (step, processor), sparse message lists per step. */
typedef struct sim_trace {
    int nsteps;               /* 1 for `source` programs */
    int nprocs;               /* processors (1 for `source`); ids 0..nprocs-1 after mapping */
    int64_t *step_time;       /* nsteps: value of the time loop variable */
    int *step_procs;          /* nsteps: P for the barrier b(P) (size of the processor loop) */
    double *work;             /* nsteps * nprocs: ticks, row-major by step */
    sim_msgs **msgs;          /* nsteps lists (NULL when empty) */
    int *nmsgs;               /* nsteps */
    sim_coll_rec **colls;     /* nsteps lists of the step's collectives in order (NULL when none) */
    int *ncolls;              /* nsteps */
    double *overlap;          /* nsteps * nprocs, like work: the ticks a processor spends between
                                 its last send of the step and its `recv` (the work its messages
                                 overlap); NULL when the program has no recv */
    int aggregated;           /* the program says `messages aggregate`: one message per partner */
    double *guard;            /* nsteps * nprocs, like work: the part of work that evaluating the
                                 sends' `when` guards cost (outside `cost N` regions, whose ticks
                                 replace what they hold); NULL when no send has such a guard */
    double *wclass[SIM_WORK_CLASSES];  /* [SIM_WORK_UNIT], [.._STRIDED], ..: nsteps * nprocs,
                                 like work: the part of work that statements of that class cost
                                 (sim_compile.c, sim_stmt_class); NULL when none ran; the rest
                                 of work is scalar ([SIM_WORK_SCALAR] stays NULL) */
    double *streams;          /* nsteps * nprocs: the rows of elements unit-stride statements
                                 streamed (sim_streams.c: an instance's accesses whose rows
                                 the caches do not keep; cost.h, `streams`); NULL when none */
    double *restarts;         /* nsteps * nprocs: the streams started over by loops over part
                                 of a row (sim_streams.c; cost.h, `streams`); NULL when none */
    double *walks;            /* nsteps * nprocs: walking statements' ticks again for each of
                                 their walking accesses after the first (sim_classes.c,
                                 sim_stmt_walks: every one a walk of its own; cost.h, `walks`);
                                 NULL when none */
    double *cached;           /* nsteps * nprocs: the accesses unit-stride statements made to
                                 rows the caches keep, one a load or a store (sim_streams.c;
                                 cost.h, `levels`); NULL when none */
    double *tile_reads;       /* nsteps * nprocs: of those, the accesses to a tile's rows read
                                 again (sim_streams.c, sim_stream_tiles), and */
    double *tile_bytes;       /* their tiles' bytes, summed over them (their mean: the reuse
                                 distance of a tile's row; cost.h, `levels`); NULL when none */
    double *chains;           /* nsteps * nprocs: the chains of additions accumulations began
                                 (an entry of the loop along one, an instance of a reduction;
                                 sim_classes.c), their mean length the accumulations' ticks
                                 over 2 over it (cost.h, `chains`); NULL when none */
    double *entries;          /* nsteps * nprocs: the entries of innermost loops holding
                                 assignments (sim_classes.c, sim_loop_entries; cost.h,
                                 `entries`); NULL when none */
    double *full_entries;     /* nsteps * nprocs: entries with a tile's point loop counted as the
                                 full tiles its turns make (its turns over its extent), what they
                                 come to per element where rows span many tiles (cost.h,
                                 `entries`: a trace priced at another size's data); NULL when none */
    double *full_checks;      /* the same of alias_checks; NULL when none */
    double *chained;          /* nsteps * nprocs: the ticks walking chains spend on their chain,
                                 two a step: strided statements whose target stays put along
                                 their innermost loop and which read it, and reductions over a
                                 walk (sim_classes.c, sim_stmt_chain; cost.h, `walks`); NULL
                                 when none */
    double *alias_checks;     /* nsteps * nprocs: of those, the entries of loops the compiler
                                 vectorises behind a test of their accesses' overlap (cost.h,
                                 `entries`); NULL when none */
    double *data_bytes;       /* nprocs: the bytes of array data a processor works on (its local
                                 memories at syndm; a shared memory's over the processors), what
                                 decides whether its work runs from the cache (cost.h, `cache`);
                                 NULL when the run did not finish */
} sim_trace;

/* One output array, gathered to global coordinates. */
typedef struct sim_output {
    char *name;               /* owned */
    int ndims;                /* of the gathered region (after the fixed prefix) */
    int64_t lo[8], hi[8];     /* bounds of the region */
    int64_t size;             /* number of elements */
    double *values;           /* owned; size entries, row-major */
    unsigned char *defined;   /* owned; size entries, 1 = has a value */
} sim_output;

typedef struct sim_options {
    const ir_binding *bindings;   /* -D overrides */
    int nbindings;
    int max_violations;           /* stop recording after this many (default 20) */
    volatile int *cancel;         /* if non-NULL and set to 1, the run stops early */
    /* progress in [0,1], called at most every ~50 ms of simulated steps; may be NULL */
    void (*progress)(void *ctx, double fraction);
    void *progress_ctx;
    int all_planes;               /* store every time plane (default: only the live ones, planes.h) */
} sim_options;

typedef struct sim_result {
    int ok;                       /* 1 if the run completed (violations may still exist) */
    int cancelled;
    ir_level level;
    int64_t *params;              /* final parameter values (nparams) */
    int nparams;
    sim_trace trace;
    double aggregate_work;        /* sum of all work */
    sim_violation *violations;
    int nviolations;              /* recorded */
    int64_t violations_total;     /* including those not recorded */
    sim_output *outputs;
    int noutputs;
    uint64_t checksum;            /* FNV-1a over the outputs (see sim_checksum) */
    double seconds;               /* processor time of the run (its thread's) */
    int64_t *local_elems;         /* syndm: elements of each processor's local memory (nprocs
                                     entries, all arrays), NULL at other levels */
    int64_t full_elems;           /* elements of all arrays: one processor's share under full
                                     replication */
    int64_t array_bytes;          /* what the arrays took in the simulator (live planes only, unless
                                     all_planes) */
    int64_t *recv_elems;          /* syndm: elements each processor holds by a message at the end
                                     (nprocs entries), NULL at other levels */
    diag_list diags;              /* errors that stopped the run (bad parameters, ...) */
} sim_result;

own_give sim_result *sim_run(const ir_program *p, const sim_options *opt);
void sim_result_free(own_take sim_result *r);

/* The output checksum: FNV-1a 64 over, for each output array in declaration order, each element
 * in row-major order: the 8 bytes (little endian) of the IEEE-754 double, or of the int64 0x7ff8dead
 * marker for an undefined element.  -0.0 is hashed as 0.0.  The exporter computes the same. */
uint64_t sim_checksum(const sim_output *outs, int n);

/* Compares a run's outputs with a reference run's: same names, regions and bit-identical values.
 * Returns 1 if identical; otherwise 0 and appends a SIM_V_OUTPUT_MISMATCH violation to `r`
 * naming the first differing element. */
int sim_verify(sim_result *r, const sim_result *ref);

const char *sim_violation_kind_name(sim_violation_kind k);

#endif
