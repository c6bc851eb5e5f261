/*
 * sim_int.h — the simulator's internals, shared by sim.c (the driver: levels, steps, the run),
 * sim_memory.c (memories and inits), sim_messages.c, sim_output.c (outputs, checksum,
 * verification), sim_compile.c (AST -> executable tree, with sim_classes.c: work classes) and
 * sim_exec.c (the interpreter).
 *
 * The AST is compiled once into typed nodes: every node knows whether it yields an int64 or a
 * double, parameter names are folded into constants, variables live in two flat frames indexed
 * by the checker's slot (fi for ints, fd for doubles), array subscripts are affine forms
 * (const + Σ coef·slot) evaluated without recursion, and element states live in a byte array
 * next to the values.  Work is counted statically: each expression carries the ticks of its
 * always-evaluated part (computed from the AST), and only short-circuit operands and reductions
 * add ticks while running.  `cost N` regions save and restore the tick counter.
 */
#ifndef POLYAPM_SIM_INT_H
#define POLYAPM_SIM_INT_H

#include <stdint.h>

#include "crand.h"
#include "ir.h"
#include "op.h"
#include "planes.h"
#include "sim.h"

#define SIM_MAXDIMS 8
#define SIM_LINE_DOUBLES 8       /* doubles in a cache line (64 bytes) */
#define SIM_AFF_MAX 4
#define SIM_MAX_ELEMS (INT64_C(1) << 31)          /* per array (per processor at syndm) */

/* Element states (one byte per element). */
enum { SIM_UNDEF = 0, SIM_INIT = 1, SIM_COMPUTED = 2, SIM_RECEIVED = 3 };

/* Node operations; the suffix says the operand/result type (I int64, D double). */
typedef enum sim_op {
    /* int-valued */
    SO_CI, SO_LI, SO_AFF, SO_ADDI, SO_SUBI, SO_MULI, SO_DIVI, SO_MODI, SO_NEGI,
    SO_LTI, SO_LEI, SO_GTI, SO_GEI, SO_EQI, SO_NEI,
    SO_LTD, SO_LED, SO_GTD, SO_GED, SO_EQD, SO_NED,
    SO_AND, SO_OR, SO_NOT, SO_TRUTHD, SO_ANDN, SO_ORN,
    SO_MINI, SO_MAXI, SO_ABSI, SO_ISQRT, SO_CEILDIV, SO_D2I, SO_FLOORD2I, SO_CEILD2I,
    SO_ACCI, SO_REDI, SO_ACCI_SR, SO_MEMO, SO_CMPAFF,
    SO_SELI, SO_BANDI, SO_BORI, SO_BXORI, SO_REPEATI,
    SO_CRAND, SO_CLRAND48,        /* a = seed (NULL: drand48's state without srand48), b = call number */
    /* double-valued */
    SO_CD, SO_LD, SO_ADDD, SO_SUBD, SO_MULD, SO_DIVD, SO_MODD, SO_NEGD,
    SO_MIND, SO_MAXD, SO_ABSD, SO_SQRTD, SO_FLOORD, SO_CEILD, SO_I2D, SO_ACCD, SO_REDD,
    SO_ACCD_SR, SO_SELD, SO_REPEATD, SO_CDRAND48,
    SO_LIBMD                      /* math.h's function (libm) of a (and b) */
} sim_op;

/* Strength reduction: a reduction's body is compiled a second time with its affine accesses as
 * SO_ACC*_SR nodes that read at a running offset (srcur[ival] of the reduction `c`), advanced
 * by a constant stride per iteration; bounds are checked once for the whole range. */
#define SIM_SR_MAX 8

typedef struct sim_aff {          /* c + Σ coef[k]·fi[slot[k]] */
    int64_t c;
    int n;
    int slot[SIM_AFF_MAX];
    int64_t coef[SIM_AFF_MAX];
} sim_aff;

typedef struct sim_node sim_node;

typedef struct sim_sub {          /* one subscript: affine, or a general int node */
    sim_aff aff;
    sim_node *gen;
    int sslot;                    /* simple form c + scoef·fi[sslot] (node->simple) */
    int64_t scoef;
} sim_sub;

struct sim_node {
    sim_op op;
    int slot;                     /* LI/LD; reduction variable */
    int array;                    /* access */
    int n;                        /* nargs / ndims */
    int rop;                      /* reduction operator (ir_reduce_op) */
    int simple;                   /* access: every subscript is c + coef·variable */
    int64_t ival;
    double dval;
    sim_node *a, *b, *c;          /* operands; reduction: a = lo, b = hi, c = body */
    sim_node **args;              /* call arguments; ANDN/ORN: the chain's operands */
    double *argticks;             /* ANDN/ORN: ticks of each operand after the first */
    int memo_valid;               /* SO_MEMO: ival holds a = f(fi[slot]) for fi[slot] == memo_in */
    int64_t memo_in;
    sim_sub *sub;                 /* access subscripts (n) */
    sim_aff aff;                  /* SO_AFF */
    double dticks;                /* AND/OR: ticks of b; reductions: body ticks + 1 */
    ir_libm_fn libm;              /* SO_LIBMD: the function (ir_libm), found once */
    sim_node *srbody;             /* reductions: the body with SR accesses, or NULL */
    int nsr;
    sim_node *sracc[SIM_SR_MAX];
    int64_t srcur[SIM_SR_MAX], srstride[SIM_SR_MAX];
    const ir_expr *e;
};

/* SS_ASSUMED: an assignment with an `assume .. unchanged when` condition (its own kind, so that
 * the plain assignment's path tests nothing more); sim_is_assign says either. */
typedef enum sim_stmt_kind { SS_BLOCK, SS_ASSIGN, SS_ASSUMED, SS_LET, SS_IF, SS_FOR, SS_SEND, SS_RECV } sim_stmt_kind;
/* An innermost loop's entries (sim_stmt's entry): counted; counted and checked for aliasing. */
enum { SIM_ENTRY_PLAIN = 1, SIM_ENTRY_CHECKED = 2 };

typedef struct sim_stmt sim_stmt;
struct sim_stmt {
    sim_stmt_kind kind;
    const char *label;            /* the assignment's label, or "let x", "send", "if", "for" */
    int line, col;
    int has_cost;
    double cost;                  /* `cost N` on this assignment/send/block */
    double ticks;                 /* static ticks of rhs / let value / condition / guard */
    int guard_work;               /* send: its guard's ticks count as work (not inside a `cost N`
                                     region): the trace's guard records them */
    int wclass;                   /* assignment: its work class (SIM_WORK_*, sim_stmt_class) */
    double class_share;           /* the part of its ticks its class counts (1: all): a chain's
                                     two ticks a step (sim_stmt_chain), the rest rest_class's */
    int rest_class;               /* the class of the rest of its ticks (SIM_WORK_SCALAR: none):
                                     a chain's operations off the chain, vectorised */
    int chain_starts;             /* for: the accumulations along it (each entry begins a chain
                                     of each); assignment: its reduction, an accumulation (each
                                     instance begins one); sim_classes.c */
    int chain_along;              /* assignment: an accumulation along its innermost loop (it
                                     reads its target: each entry of the loop begins its chain) */
    int walks;                    /* assignment of strided or aliased work: its distinct accesses
                                     that walk (sim_stmt_walks), each a walk of its own */
    double walk_chain;            /* assignment of strided work: the part of its ticks on a chain
                                     of additions (sim_stmt_chain), 0: none */
    double streams;               /* assignment of unit-stride work: rows it streams an instance
                                     (sim_streams.c), or, with a reduction, */
    double stream_ratio;          /* the reduction's per tick */
    double cached;                /* assignment of unit-stride work: its accesses an instance
                                     makes that move with its loop and are not streams (rows
                                     the caches keep: a load or a store there; sim_streams.c) */
    double tile_reads;            /* assignment in a tile's point loops: of the cached accesses
                                     an instance makes, those to the tile's rows read again, */
    double tile_bytes;            /* and the bytes of its tiles (sim_stream_tiles) */
    int stream_rows;              /* assignment: the rows its streams run along (sim_streams.c) */
    int stream_array;             /* assignment: the array of its first stream; for: of its
                                     statements' (restart_rows > 0) */
    int restart_rows;             /* for: the streams an entry of the loop starts when the rows
                                     it runs along are partial (sim_streams.c), 0: none */
    int jam;                      /* for: a jammed loop (ir_jam_loop), unrolled into the loop
                                     around it: no loop of its own in exported code */
    int entry;                    /* for: an innermost loop of exported code holding assignments
                                     (sim_loop_entries): SIM_ENTRY_PLAIN, each entry counted in
                                     the trace's entries, or SIM_ENTRY_CHECKED, also in its
                                     alias_checks; 0: neither */
    int64_t tile_trip;            /* for: at most so many turns, a tile's point loop (sim_tile_trip;
                                     0: not one): its entries also count as the full tiles its
                                     turns make, turns / tile_trip (the trace's full_entries) */
    int alias_check;              /* assignment: vectorised, it reads an element of the array it
                                     writes at a distance the compiler cannot know (sim_classes.c,
                                     sim_stmt_alias_check): gcc checks it on every loop entry */
    sim_stmt **s; int n;          /* block */
    sim_node *lhs, *rhs;          /* assignment (lhs is an access node); let value in rhs */
    int slot, is_double;          /* let / for variable */
    sim_node *cond;               /* if */
    sim_stmt *then_, *else_;
    sim_node *lo, *hi, *step;     /* for */
    sim_stmt *body;
    int outer;                    /* for: the outermost loop (progress at source level) */
    sim_node *unchanged;          /* SS_ASSUMED: its `assume .. unchanged when` condition */
    int assume_line, assume_col;  /*   where the assumption is written */
    sim_node *what, *to_lo, *to_hi, *at, *when;   /* send */
    sim_node **as; int nas;
};

static inline int sim_is_assign(const sim_stmt *s) { return s->kind == SS_ASSIGN || s->kind == SS_ASSUMED; }

/* Global bounds of an array. */
typedef struct sim_bounds { int64_t lo[SIM_MAXDIMS], hi[SIM_MAXDIMS]; } sim_bounds;

/* A collective's block: array, prefix subscripts, optional range on the next dimension. */
typedef struct sim_block {
    int array;                    /* -1: `_` */
    int nfix;
    sim_node *fix[SIM_MAXDIMS];
    sim_node *lo, *hi;            /* range, or NULL */
} sim_block;

/* A compiled collective statement (sim_coll.c). */
typedef struct sim_coll {
    ir_coll_kind ck;
    int builtin, user;            /* the operator (both -1 for bcast, gather, scatter, allgather) */
    int global;                   /* a user operator with `in` */
    int nsrc, ndst;
    int nf;                       /* fields per element of the collective (1 for built-ins) */
    ir_type ftype[OP_MAX_FIELDS]; /* their types */
    sim_block *src, *dst;
    sim_node *root;
    sim_node *by;                 /* group color, or NULL */
    sim_node *when;               /* transpose: the steps where it runs, or NULL */
    double ops;                   /* base operations of one combine (scan_bal: of lower or upper) */
    double words;                 /* words per element a partner sends */
    const char *label;
    int line, col;
} sim_coll;

/* One array's memory (at syndm: one processor's local part). */
typedef struct sim_mem {
    void *data;                   /* int64_t[] or double[] */
    unsigned char *state;
    int32_t *meta;                /* race detection (syn, syncomm): wstep, wproc, rstep, rproc */
    int is_double;
    int ndims;
    int64_t lo[SIM_MAXDIMS], ext[SIM_MAXDIMS], stride[SIM_MAXDIMS];
    int64_t off[SIM_MAXDIMS];     /* global = local + off */
    /* dist ... step s block b: per dimension every s-th index, b at a time (s = 0: all).
     * In absolute coordinates (lat_abs) an access names the global index and only the lattice
     * lo + k*s + r (0 <= r < b) is held; in relative ones local indices are consecutive and
     * global = off + (l / b) * s + l % b. */
    int64_t lat_s[SIM_MAXDIMS], lat_b[SIM_MAXDIMS];
    int lat, lat_abs;             /* some dimension is strided; accesses are global */
    int64_t size;
    /* A pieced dist (sim_piece.c): the memory is the hull box of the pieces and held[off] is 1
     * where a piece holds the element.  Elements not held are never written (state stays
     * SIM_UNDEF), so reads fail already; writes and receives test held when it is not NULL. */
    unsigned char *held;
    /* Live time planes (planes.h): dimension `fold` (-1: none) stores only ext[fold] planes, the
     * global index x at storage index (x - lo) mod ext[fold], within lo .. lo + fext - 1;
     * ptag[k] is the index plane k holds (INT64_MIN: none yet); ptag is NULL when none folds.  A read of a plane not held is a
     * read of an undefined element; a write takes the plane over, clearing what it held
     * (sim_plane_take).  recv_gone counts the received elements of planes cleared so. */
    int fold;
    int64_t fext;
    int64_t *ptag;
    int64_t recv_gone;
    int slow;                     /* lat_abs or fold: every subscript through sim_mem_slot */
    /* Memory reuse (sim_version.c): an element may be written many times.  ver[off] is the
     * version of the value the element holds (0: its init value; each write makes the next).
     * At syncomm the one shared memory is the truth and ver alone is kept; at syndm `shadow` is
     * the array's global version table (shared by the processors, not owned), and a copy whose
     * version is not the shadow's is stale.  NULL for arrays that a collective names: those are
     * single assignment, checked by their states alone. */
    uint32_t *ver;
    struct sim_shadow *shadow;
} sim_mem;

/* The global version table of one array at syndm: the version of the newest value of every
 * element, whichever processor wrote it.  Writes of one element by several processors in one
 * step are concurrent: they make one version, and the outputs compare its copies (a
 * disagreement when they differ).  An element's id (goff) is its row-major offset over the
 * array's global bounds (lo, ext, stride); its storage is the same, except that an array keeping
 * only its live time planes keeps only theirs here too: dimension `fold` (-1: none) stores fw
 * planes (a power of two), global index x at (x - lo) mod fw, ptag[k] the index plane k holds
 * (INT64_MIN: none yet); the first write of a plane takes it over (versions 0, never written),
 * and a plane not held has only version-0 values (its init values, or none). */
typedef struct sim_shadow {
    uint32_t *ver;
    int32_t *wstep, *wproc;       /* the superstep and processor of the newest write */
    int ndims;
    int64_t lo[SIM_MAXDIMS], ext[SIM_MAXDIMS], stride[SIM_MAXDIMS];
    int64_t size;                 /* of the storage */
    int fold;
    int64_t fw, sstride[SIM_MAXDIMS];
    int64_t *ptag;
    /* Folded, and so far no write made a version above 1 and no message gave a copy another
     * version than its element's newest: every copy of an element of the array holds the newest
     * version, and reads skip the check (it would pass).  Why: the live planes (planes.h) read
     * and deliver into a plane only from the step that writes it on, init planes are never
     * written, and a plane is taken over only when no access touches it again. */
    int all_newest;
} sim_shadow;

static inline int64_t sim_fdiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

/* Does m keep only the live planes of dimension d?  (A zeroed memory folds nothing.) */
static inline int sim_folded(const sim_mem *m, int d) { return m->ptag && d == m->fold; }

/* Storage index in dimension d of access index x, or -1 when m does not hold it. */
static inline int64_t sim_mem_slot(const sim_mem *m, int d, int64_t x)
{
    uint64_t r = (uint64_t)x - (uint64_t)m->lo[d];
    if (sim_folded(m, d)) return r < (uint64_t)m->fext ? (int64_t)(r & (uint64_t)(m->ext[d] - 1)) : -1;
    if (m->lat_abs && m->lat_s[d]) {
        if (x < m->lo[d]) return -1;
        int64_t q = x - m->lo[d], s = m->lat_s[d], b = m->lat_b[d];
        if (q % s >= b) return -1;
        r = (uint64_t)((q / s) * b + q % s);
    }
    return r < (uint64_t)m->ext[d] ? (int64_t)r : -1;
}

/* The extent of dimension d in indices (the storage's, except for a folded dimension). */
static inline int64_t sim_mem_span(const sim_mem *m, int d) { return sim_folded(m, d) ? m->fext : m->ext[d]; }

/* Folded memories: makes storage plane k hold index x, clearing the plane (sim_memory.c). */
void sim_plane_take(sim_mem *m, int64_t k, int64_t x);

/* The global index in dimension d of storage index r. */
static inline int64_t sim_mem_global(const sim_mem *m, int d, int64_t r)
{
    int64_t s = m->lat_s[d], b = m->lat_b[d];
    if (!s) return m->lo[d] + r + m->off[d];
    if (m->lat_abs) return m->lo[d] + (r / b) * s + r % b;
    int64_t l = m->lo[d] + r;
    return m->off[d] + sim_fdiv(l, b) * s + (l - sim_fdiv(l, b) * b);
}

typedef struct sim_msg {
    int src, dst;                 /* processor ids (0-based) */
    int64_t tsend, tdst;
    int array, nidx;
    int64_t idx[SIM_MAXDIMS];     /* at the receiver */
    uint64_t bits;                /* the value (double bits or int64) */
    uint32_t ver;                 /* its version (memories with versions) */
    int64_t gsrc;                 /* syndm: the sent element's id (sim_version_goff), or -1 */
    const sim_stmt *st;
} sim_msg;

/* An init declaration, compiled (sim_memory.c): its array, the indices it fixes and the slots
 * of the others, and its value. */
typedef struct sim_init {
    int array, nidx;
    int fixed[SIM_MAXDIMS];
    int64_t fixval[SIM_MAXDIMS];
    int slot[SIM_MAXDIMS];
    sim_node *value;
} sim_init;

/* An output region: its array and the leading indices it fixes. */
typedef struct sim_out {
    int array, nfix;
    int64_t fix[SIM_MAXDIMS];
} sim_out;

/* A chunk allocator for compiled nodes: everything compiled lives until the run ends. */
typedef struct sim_pool {
    void **blocks;
    int n, cap;
} sim_pool;

typedef struct sim_ctx {
    const ir_program *prog;
    ir_level level;
    const int64_t *params;
    sim_pool pool;
    int maxslot;                  /* highest slot seen while compiling */
    int compile_errors;
    int depth;                    /* expression nesting while compiling */
    int in_memo;
    int in_cost;                  /* > 0: compiling inside a `cost N` block */
    int in_jam;                   /* > 0: compiling inside a jammed loop (ir_jam_loop) */
    int jam_slot, jam_base;       /* its variable's slot and its group loop's (what moves with the
                                   * one moves with the other), or -1 */
    const ir_stmt *regs_assign;   /* compiling a register tile (ir_regs_tile_of): its statement */
    int quiet;                    /* > 0: evaluating a constant; violations only count here */
    int quiet_errors;
    sim_node *sr_target;          /* compiling a reduction's SR body */
    int sr_slot;

    int64_t *fi;                  /* frames */
    double *fd;
    sim_mem *mem;                 /* the current processor's memories (narrays) */
    sim_mem *allmem;              /* nmem * narrays */
    int nmem;
    int narrays;

    double ticks;                 /* work of the running processor instance */
    double post_ticks;            /* `ticks` when its last send statement ran (SS_RECV: overlap) */
    double guard_ticks;           /* of `ticks`, what send guards cost (the trace's guard) */
    double wclass_ticks[SIM_WORK_CLASSES];  /* of `ticks`, what each work class cost (the trace's
                                     wclass; [SIM_WORK_SCALAR] unused) */
    double walk_ticks;            /* walking statements' ticks again per walk after the first (the
                                     trace's walks) */
    double chained;               /* walking chains' ticks on their chains (the trace's chained) */
    int loop_slot;                /* compiling: the innermost enclosing loop's variable, or -1 */
    const char *loop_var;         /* compiling: its name, or NULL */
    int reuse_slot;               /* compiling: the loop's around it (sim_streams.c), or -1 */
    int outer_slot;               /* compiling: the loop's around the reuse loop, or -1 */
    int64_t loop_trip, reuse_trip;   /* compiling: at most so many turns when the loop (the reuse
                                     loop) is a tile's point loop (sim_streams.c), else 0 */
    int64_t reuse_rows;           /* compiling: the rows those turns of the reuse loop cover (its
                                     step times its turns: a jam's group loop) */
    int64_t regs_span;            /* compiling: the columns a loop over register tiles around
                                     sweeps (its step times its turns), else 0 */
    int loop_tile, reuse_tile;    /* compiling: the slot of that tile's loop, or -1 */
    int64_t loop_step;            /* compiling: the innermost loop's step where it is a constant,
                                     else 1 */
    int loop_stepped;             /* compiling: the innermost loop steps by more than 1 (`step
                                     procs`: a cyclic tiling's columns), or by a step not known */
    int loop_depth;               /* compiling: the loop variables around */
    sim_node **let_def;           /* compiling: nslots, a let variable's value (NULL: none yet) */
    const sim_stmt **loop_open;   /* compiling: nslots, the loop of each variable of the loops
                                     around (NULL: none, or none yet) */
    double streams;               /* of the running processor instance: the trace's streams */
    double cached;                /* ... its accesses to rows the caches keep */
    double tile_reads, tile_bytes;   /* ... of them, a tile's rows read again, and their tiles'
                                     bytes summed over them */
    double restarts;              /* ... and its restarts */
    double chains;                /* ... and the accumulations' chains it began */
    double entries, alias_checks; /* ... and the innermost loops it entered (sim_loop_entries) */
    double full_entries, full_checks;   /* ... the same, a tile's point loop's as full tiles */
    int proc;                     /* running processor id (0-based) */
    int64_t pmin;                 /* processor value of id 0 */
    int nprocs;
    int step;                     /* step index */
    int rstep;                    /* superstep counter for race detection (a collective ends one) */
    const sim_bounds *ab;         /* global bounds of every array */
    const ir_decl **dists;        /* syndm: each array's dist declaration (narrays), else NULL */
    op_env *openv;                /* evaluation of user operators (NULL when the program has none) */
    crand_cache crand;            /* rand()'s values by seed, for crand (crand.h) */
    int64_t *pfi;                 /* saved frames of each processor of the step (supersteps) */
    double *pfd;
    int64_t tval;                 /* its time value */
    const sim_stmt *cur;          /* the statement running (for violation texts) */
    volatile int stop;            /* 1: stop the run (runtime error, too many violations, cancel) */
    int stopped_reason;

    sim_result *r;
    int maxv;

    sim_shadow *shadows;          /* syndm: per array (narrays), ver NULL where unversioned */
    sim_msg *pend;                /* pending messages */
    int64_t npend, cappend;

    long poll;                    /* iterations until the next poll */
    const sim_options *opt;
    double t_start, t_last_progress;
    double progress_lo, progress_span;   /* fraction = lo + span * (outer loop progress) */
    int64_t outer_i, outer_n;
} sim_ctx;

/* sim_compile.c */
void *sim_alloc(sim_ctx *c, size_t size);
void sim_pool_free(sim_pool *p);
sim_node *sim_compile_expr(sim_ctx *c, const ir_expr *e, ir_type want);
sim_node *sim_compile_access(sim_ctx *c, const ir_expr *e);
sim_stmt *sim_compile_block(sim_ctx *c, const ir_block *b);
sim_stmt *sim_compile_stmt(sim_ctx *c, const ir_stmt *s);
sim_stmt *sim_compile_for(sim_ctx *c, const ir_stmt *s, int from);
double sim_expr_ticks(const ir_expr *e);
/* Evaluates a constant (params only) int/real expression; 0 = ok. */
int sim_const_int(sim_ctx *c, const ir_expr *e, int64_t *out);
int sim_const_num(sim_ctx *c, const ir_expr *e, double *out);

/* sim_classes.c */
/* Whether op reads an array element (an access node). */
int sim_is_access(sim_op op);
/* Does the value of n change with loop variable `slot`?  With `lets` (a budget, spent one a let
 * followed; NULL: none), also through the variables of lets whose values do (c->let_def). */
int sim_node_moves(const sim_ctx *c, const sim_node *n, int slot, int *lets);
/* How far affine subscript a moves when loop `slot` steps by one: its coefficient, through the
 * lets it names whose values are affine, and a jam's turn along its group loop (a let moving it
 * some other way counts 1); 0 when it does not move. */
int64_t sim_aff_stride(const sim_ctx *c, const sim_aff *a, int slot);
/* Is y's affine form x's but for its constant: *delta = y's constant - x's. */
int sim_aff_shift(const sim_aff *x, const sim_aff *y, int64_t *delta);
/* Is condition `cond`, inside a loop, the same at every turn of the innermost loop around it:
 * integer arithmetic on variables that turn does not change (sim_node_moves)?  The compiler
 * unswitches such a loop (a version for each outcome, the test outside): the test costs the
 * turns nothing. */
int sim_cond_invariant(const sim_ctx *c, const sim_node *cond);
/* Records that let variable `slot` holds `value` (sim_node_moves follows it). */
void sim_let_define(sim_ctx *c, int slot, sim_node *value);
/* An assignment's work class: by its reductions' bodies when it has any (their loops are the
 * innermost), else by how its accesses move with the innermost loop around it (none: SCALAR).
 * Statements under `cost N` are SCALAR: the annotation is their price. */
int sim_stmt_class(const sim_ctx *c, const sim_stmt *st);
/* Classes the one strided accumulation of a two-loop nest around it (loop `outer`, compiled):
 * SIM_WORK_LANES or SIM_WORK_ACCUM rather than a walk (see sim_classes.c). */
void sim_class_outer(const sim_ctx *c, sim_stmt *outer);
/* The accumulations along loop `loop` (compiled, its variable in `slot`): each entry begins a
 * chain of each (the trace's chains); or, where its body is one loop whose chains keep their
 * targets as it turns, each of its entries begins that loop's. */
void sim_loop_chains(const sim_ctx *c, sim_stmt *loop, int slot);
/* Does vectorised assignment st read an element of the array it writes at a distance that is no
 * constant (another row than its target's, or a row of a pieced memory)? */
int sim_stmt_alias_check(const sim_ctx *c, const sim_stmt *st);
/* Whether loop `loop` (compiled) is an innermost loop of exported code holding assignments (its
 * entries counted, and its alias checks): sets loop->entry. */
void sim_loop_entries(sim_stmt *loop);
/* Calls visit(loop, a, arg) for each assignment a of s that is not under another loop (s a loop's
 * body: its blocks and conditions followed). */
void sim_loop_assigns(sim_stmt *loop, const sim_stmt *s, void (*visit)(sim_stmt *loop, const sim_stmt *a, void *arg),
                      void *arg);
/* A strided or aliased assignment's distinct accesses that walk (its class decided), each a walk
 * of its own; 0 for other classes. */
int sim_stmt_walks(const sim_ctx *c, const sim_stmt *st);

/* sim_streams.c */
/* The streams of assignment st (its wclass decided; c in the state of compiling it); st, the
 * statement of a register tile, without the loads and stores of its element (registers). */
void sim_stmt_streams(const sim_ctx *c, sim_stmt *st);
void sim_stmt_regs(sim_stmt *st);
/* A unit-stride chain (a reduction, or a fixed target read and written) made an accumulation
 * (sim_classes.c). */
void sim_stmt_chain(const sim_ctx *c, sim_stmt *st);
/* At most how many turns loop v runs when it is the point loop of a tile (v = max(.., V) ..
 * min(.., V + k) with V an enclosing loop's variable: k + 1), else 0. */
int64_t sim_tile_trip(const ir_loopvar *v, int *tile_slot);
/* The streams an entry of loop `loop` (its body compiled) starts over when its rows are partial:
 * those of the assignments whose innermost loop it is. */
void sim_loop_restarts(sim_stmt *loop);
/* An entry of loop s (cnt turns of step st) into the running processor's chains, entries, alias
 * checks and restarts. */
void sim_loop_entered(sim_ctx *c, const sim_stmt *s, uint64_t cnt, int64_t st);

/* sim_exec.c */
int64_t sim_eval_i(sim_ctx *c, const sim_node *n);
double sim_eval_d(sim_ctx *c, const sim_node *n);
void sim_exec(sim_ctx *c, const sim_stmt *s);
void sim_poll(sim_ctx *c);
/* Adds ticks to the running step and processor's cell of a trace matrix (the guard, the overlap). */
void sim_trace_cell_add(sim_ctx *c, double **matrix, double ticks);
/* Moves the running processor instance's class ticks (wclass_ticks) into the trace's wclass. */
void sim_trace_classes_flush(sim_ctx *c);

/* sim_coll.c */
sim_coll *sim_compile_coll(sim_ctx *c, const ir_stmt *s);
/* Runs a collective over the np processors of the current step (ids: processor ids, rank order;
 * their frames saved with sim_frame_save) and records it in the step's trace. */
void sim_coll_run(sim_ctx *c, const sim_coll *k, const int *ids, int np);
/* sim_transpose.c: a transpose over the np processors of the step (frames 0 .. np-1); 1 when it
 * ran (its figures in *rec), 0 when its `when` did not hold or it stopped the run. */
int sim_transpose_run(sim_ctx *c, const sim_coll *k, const int *ids, int np, sim_coll_rec *rec);
void sim_frame_save(sim_ctx *c, int rank);
void sim_frame_load(sim_ctx *c, int rank);
op_value sim_repeat(sim_ctx *c, const sim_node *n);

/* sim_piece.c: the local memories of pieced dists (ir_dist_is_pieced) at syndm */
typedef struct sim_pieces sim_pieces;
sim_pieces *sim_pieces_compile(sim_ctx *c, const ir_decl *dist, const ir_decl *arr);
/* For processor value pv: the hull box lo .. hi of its pieces (lo > hi in every dimension when
 * they hold nothing) and their element count (overlaps counted once per piece); with `mark` (a
 * memory laid out on that hull, held allocated) also marks the elements held.  0 = ok; otherwise
 * a diagnostic naming the array and processor. */
int sim_pieces_eval(sim_ctx *c, const sim_pieces *ps, int64_t pv, int64_t *lo, int64_t *hi,
                    int64_t *count, sim_mem *mark);

/* sim_version.c: memories that are written many times (see sim_mem.ver) */
/* Which arrays keep versions: at syncomm and syndm every array no collective names, whether or
 * not it keeps only its live time planes (the simulation must not depend on that). */
void sim_version_plan(const sim_ctx *c, sim_coll *const *colls, int ncoll, unsigned char *versioned);
/* Allocates m->ver (zeroed: every value is version 0) and adds its bytes.  0 = ok. */
int sim_version_alloc(sim_mem *m, int64_t *bytes);
/* syndm: allocates every versioned array's shadow (c->shadows) and points the processors'
 * memories at it.  0 = ok. */
int sim_version_shadows(sim_ctx *c, const unsigned char *versioned, const sim_bounds *ab, const ir_planes *folds,
                        int64_t *bytes);
void sim_version_free(sim_ctx *c);
/* The version a write of the running processor makes of the element at global indices g
 * (concurrent writes share one). */
uint32_t sim_version_write(const sim_ctx *c, sim_shadow *sh, const int64_t *g);
/* The same at storage offset `off` of a shadow that keeps every plane (fold < 0). */
uint32_t sim_version_bump(const sim_ctx *c, sim_shadow *sh, int64_t off);
/* The storage offset of the element at global indices g (within the array), and in *plane its
 * folded plane (-1 when none folds). */
static inline int64_t sim_shadow_slot(const sim_shadow *sh, const int64_t *g, int64_t *plane)
{
    int64_t off = 0;
    *plane = -1;
    for (int d = 0; d < sh->ndims; d++) {
        int64_t r = g[d] - sh->lo[d];
        if (d == sh->fold) r = *plane = r & (sh->fw - 1);
        off += r * sh->sstride[d];
    }
    return off;
}

/* The version of the newest value of the element at global indices g (within the array). */
static inline uint32_t sim_version_newest(const sim_shadow *sh, const int64_t *g)
{
    int64_t plane, off = sim_shadow_slot(sh, g, &plane);
    return plane >= 0 && sh->ptag[plane] != g[sh->fold] ? 0 : sh->ver[off];
}

/* The global indices g[] of the element at access indices x[] of memory m (within its bounds:
 * what sim_mem_slot takes); -1 when it lies outside the array (a local memory may be larger
 * than the array): such elements have no versions. */
int sim_version_global(const sim_mem *m, const int64_t *x, int64_t *g);
/* The id of the element at global indices g: its row-major offset over the array's bounds. */
int64_t sim_version_id(const sim_shadow *sh, const int64_t *g);
/* The id of the element at access indices x[] of m, or -1 (sim_version_global). */
int64_t sim_version_goff(const sim_mem *m, const int64_t *x);
/* "A[3][4]" of an element id. */
void sim_version_fmt(const sim_ctx *c, int array, int64_t goff, char *buf, size_t size);

/* sim.c */
void sim_violation_add(sim_ctx *c, sim_violation_kind k, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* "a[1][2]" of the array's name and indices into buf. */
void sim_fmt_elem(const sim_ctx *c, int array, const int64_t *idx, int n, char *buf, size_t size);
/* " (statement S at 12:5)" for the running statement. */
void sim_fmt_where(const sim_ctx *c, char *buf, size_t size);
int64_t sim_proc_value(const sim_ctx *c, int id);
void sim_result_violation(sim_result *r, int maxv, sim_violation_kind k, int line, int col,
                          char *text);
/* Shortest text that reads back as the same double. */
void sim_fmt_val(double v, int is_double, char *buf, size_t size);
/* The same of a value's bits (a double's, or an int64's). */
void sim_fmt_bits(uint64_t bits, int is_double, char *buf, size_t size);
/* The bits of -0.0 as those of 0.0 (values compare by their bits). */
uint64_t sim_norm_bits(uint64_t b);

/* sim_memory.c */
void sim_mem_free(sim_mem *m);
/* Lays out and allocates one memory (with `held`: its map of held elements, all 0; with `fold`:
 * only the live planes of a dimension); `bytes` accumulates the total.  0 = ok. */
int sim_mem_alloc(sim_ctx *c, sim_mem *m, const ir_decl *arr, const int64_t *lo,
                  const int64_t *hi, const int64_t *off, const int64_t *lat_s,
                  const int64_t *lat_b, int race, int held, const ir_planes *fold, int64_t *bytes);
/* Compiles init declaration d into in.  0 = ok. */
int sim_compile_init(sim_ctx *c, const ir_decl *d, sim_init *in);
/* Iterates the box glo..ghi (nd dims, all non-empty); returns 0 when done. */
int sim_box_next(int nd, const int64_t *glo, const int64_t *ghi, int64_t *g);
/* The next storage index vector r of m (row-major); 0 after the last. */
int sim_storage_next(const sim_mem *m, int64_t *r);
/* Fills memory m (of an array with global bounds ab) with init in's values. */
void sim_init_fill(sim_ctx *c, const sim_init *in, sim_mem *m, const sim_bounds *ab);
/* syndm: one memory per processor, laid out by the dist declarations (dists[a] per array),
 * then filled by the inits.  0 = ok; otherwise diagnostics. */
int sim_layout_syndm(sim_ctx *c, const ir_decl **dists, const sim_bounds *ab, const ir_planes *folds,
                     const sim_init *inits, int ninits, int64_t *bytes_io);

/* sim_messages.c */
void sim_message_add(sim_ctx *c, const sim_msg *m);
/* Delivers the pending messages due before time `next` (all when `all`), charged to step s. */
void sim_deliver(sim_ctx *c, int s, int64_t next, int all);

/* sim_output.c */
/* Allocates output o of array d's region so (from `steal`'s data in place when not NULL).  0 = ok. */
int sim_output_alloc(sim_ctx *c, sim_output *o, const ir_decl *d, const sim_out *so,
                     const sim_bounds *ab, sim_mem *steal);
/* syndm, an array with versions: every element of the output region that was written must have
 * been taken from a copy of its newest value (sim_gather_mem); one no processor holds is
 * reported, and left undefined rather than given its init value (seen = -1). */
void sim_gather_lost(sim_ctx *c, const sim_output *o, const sim_out *so, const sim_shadow *sh,
                     int32_t *seen);
/* Copies a memory's elements in the output region (global box) into o; `only_computed` for
 * syndm (then `seen` flags elements already taken from another processor). */
void sim_gather_mem(sim_ctx *c, sim_output *o, const sim_out *so, const sim_mem *m,
                    int only_computed, int32_t *seen, int proc);
/* Init values of the region in global coordinates (syndm: elements nobody computed). */
void sim_gather_init(sim_ctx *c, sim_output *o, const sim_out *so, const sim_init *inits,
                     int ninits, const sim_bounds *ab, const int32_t *seen);

#endif
