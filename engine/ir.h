/*
 * ir.h — the intermediate representation: the AST of an APM program at any level.
 *
 * One representation, three faces: the parser builds it from text (parse.c), the printer turns it
 * back into canonical text (print.c), the checker resolves names, types and levels (check.c), the
 * simulator compiles and runs it (sim*.c), transforms rewrite it (transforms/).
 *
 * Ownership (own.h): every node, string and array of a program lives in the program's arena and is
 * freed with ir_program_free().  Nodes are never shared between programs; ir_program_clone() deep-copies.
 * Builders (ir_new_*) allocate in the arena of the program passed to them.
 *
 * The language itself is documented in man/polyapm-lang.5.
 *
 * What the checker (ir_check) guarantees to later phases:
 *  - every IR_E_NAME has `nk` and `index`: IR_N_PARAM -> index into prog->params;
 *    IR_N_ARRAY -> index into prog->arrays (a 0-dimensional array used as a scalar);
 *    IR_N_LOOPVAR / IR_N_LET / IR_N_REDVAR / IR_N_INITVAR / IR_N_DISTVAR -> a variable slot.
 *  - every binder (loop variable, let, reduction variable, init index binder, dist processor
 *    variable) has its own slot, distinct from every other binder's in the program:
 *    0 <= slot < prog->nslots.  A frame of nslots values is enough for any execution.
 *  - every IR_E_ACCESS has `array_index`; its number of subscripts equals the array's ndims.
 *  - every expression has `type`: int op int -> int, any double operand -> double,
 *    comparisons / && / || / ! -> int, sqrt -> double, isqrt -> int, crand and clrand48 -> int,
 *    cdrand48 -> double, floor/ceil/abs -> the
 *    argument's type, min/max -> int when all arguments are int, a reduction -> its body's type,
 *    a let name -> its value's type, a 0-d array name or access -> the element type.
 *  - integer semantics: / is floor division, % the matching remainder (a - b * floor(a / b),
 *    non-negative for b > 0; % only on ints), and `ceil(a / b)` / `floor(a / b)` whose argument
 *    is an integer IR_OP_DIV node are the exact ceiling / floor of the quotient (evaluate the
 *    division inside, not the already-floored a / b).  See ir_const_eval.
 *  - an assignment's lhs is an IR_E_ACCESS, or an IR_E_NAME with nk == IR_N_ARRAY (0-d array).
 *  - at syn/syncomm/syndm the top-level body is: IR_S_LETs, then one IR_S_FOR whose vars[0] is
 *    the time loop (DEFAULT or SEQ) and whose processor loop (PAR or PROC) is either vars[1] or
 *    the vars[0] of the single IR_S_FOR in its body; no other loop is PAR/PROC.
 *  - `else if` is an else block holding exactly one IR_S_IF (block cost NULL).
 *  - IR_S_RECV appears only at syndm, as the last statement of the processor loop's body.
 *  - collectives (IR_S_COLL) appear only at syncomm/syndm, directly in the processor loop's body
 *    (the body of the IR_S_FOR whose last variable is the processor loop); their blocks have
 *    `array_index` (IR_E_ACCESS, nidx <= ndims) or nk == IR_N_ARRAY (IR_E_NAME); their opref
 *    and every IR_E_REPEAT's opref is resolved (builtin >= 0 or user >= 0); arities and element
 *    types agree with the operator (polyapm-lang(5) COLLECTIVES).
 *  - prog->ops lists the IR_D_OP decls; each has `state`, `clause[]`, `commutative` and
 *    `associative` filled; pattern names and clause lets have slots (IR_N_OPVAR); ident,
 *    associativity, declared commutativity and distributivity passed the sample checks (op.h).
 *  - positions: a binary expression's pos is its operator's; a call's or reduction's is the
 *    name's; a statement's is its first token (the label of a labelled assignment).
 */
#ifndef POLYAPM_IR_H
#define POLYAPM_IR_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "own.h"

typedef enum ir_level { IR_SOURCE, IR_SYN, IR_SYNCOMM, IR_SYNDM } ir_level;
typedef enum ir_type { IR_INT, IR_DOUBLE } ir_type;

typedef struct ir_pos { int line, col; } ir_pos;

/* Comments kept with the item they precede (lead) or end the line of (trail), so fmt keeps them. */
typedef struct ir_comments {
    const char **lead;  /* text after '#', without the '#' and without the newline */
    int nlead;
    const char *trail;  /* NULL when none */
} ir_comments;

/* ---- expressions ---------------------------------------------------------------------------- */

typedef enum ir_expr_kind {
    IR_E_INT,      /* integer literal */
    IR_E_REAL,     /* real literal */
    IR_E_NAME,     /* a parameter, loop variable, let, or 0-dimensional array */
    IR_E_ACCESS,   /* a[i][j] */
    IR_E_UNARY,    /* -e, !e */
    IR_E_BINARY,   /* e op e */
    IR_E_CALL,     /* min(..), max(..), floor(e), ceil(e), abs(e), sqrt(e), isqrt(e) */
    IR_E_REDUCE,   /* sum(k = lo .. hi) e, prod, max, min */
    IR_E_REPEAT    /* repeat(OP, k, e1, .., en): OP's even/odd walk over the bits of k, first component */
} ir_expr_kind;

typedef enum ir_op {
    IR_OP_ADD, IR_OP_SUB, IR_OP_MUL, IR_OP_DIV, IR_OP_MOD,
    IR_OP_LT, IR_OP_LE, IR_OP_GT, IR_OP_GE, IR_OP_EQ, IR_OP_NE,
    IR_OP_AND, IR_OP_OR,
    IR_OP_NEG, IR_OP_NOT             /* unary */
} ir_op;

typedef enum ir_func {
    IR_F_MIN, IR_F_MAX, IR_F_FLOOR, IR_F_CEIL, IR_F_ABS, IR_F_SQRT, IR_F_ISQRT,
    IR_F_SELECT,                     /* select(c, a, b): a when c != 0, else b (only the one taken is evaluated) */
    IR_F_BAND, IR_F_BOR, IR_F_BXOR,  /* bitwise and, or, xor of two integers */
    /* the C library's math functions of doubles (ir_libm_call: the simulator, the constant
     * evaluator and the exported program call the same functions of math.h) */
    IR_F_SIN, IR_F_COS, IR_F_TAN, IR_F_EXP, IR_F_LOG, IR_F_POW,
    /* the C library's random numbers by call number (engine/crand.h), in init values only:
     * crand(seed, k) -> int, clrand48([seed,] k) -> int, cdrand48([seed,] k) -> double */
    IR_F_CRAND, IR_F_CLRAND48, IR_F_CDRAND48
} ir_func;
typedef enum ir_reduce_op { IR_R_SUM, IR_R_PROD, IR_R_MAX, IR_R_MIN } ir_reduce_op;

/* What a name refers to; set by the checker (IR_N_UNRESOLVED after parsing).  IR_N_OPVAR: a
 * name bound by an operator clause's pattern or by its `let .. in` (a variable slot). */
typedef enum ir_name_kind {
    IR_N_UNRESOLVED, IR_N_PARAM, IR_N_LOOPVAR, IR_N_LET, IR_N_REDVAR, IR_N_INITVAR, IR_N_DISTVAR,
    IR_N_ARRAY, IR_N_OPVAR
} ir_name_kind;

/* The built-in operators of collectives (and, or are logical: the result is 0 or 1). */
typedef enum ir_bop {
    IR_BOP_ADD, IR_BOP_MUL, IR_BOP_MAX, IR_BOP_MIN, IR_BOP_AND, IR_BOP_OR,
    IR_BOP_BAND, IR_BOP_BOR, IR_BOP_BXOR, IR_BOP_COUNT
} ir_bop;

/* A reference to an operator: built in (`+`, `max`, ..) or declared with `op`. */
typedef struct ir_opref {
    const char *name;             /* as written; NULL when the construct takes no operator */
    ir_pos pos;
    int builtin;                  /* ir_bop, or -1 (checker) */
    int user;                     /* index into prog->ops, or -1 (checker) */
} ir_opref;

typedef struct ir_expr ir_expr;
struct ir_expr {
    ir_expr_kind kind;
    ir_pos pos;
    ir_type type;                 /* set by the checker */
    union {
        int64_t ival;             /* IR_E_INT */
        double rval;              /* IR_E_REAL */
        struct {                  /* IR_E_NAME */
            const char *id;
            ir_name_kind nk;      /* set by the checker */
            int index;            /* param index, array index, or variable slot (checker) */
        } name;
        struct {                  /* IR_E_ACCESS */
            const char *array;
            int array_index;      /* index into prog->arrays (checker) */
            ir_expr **idx;
            int nidx;
        } access;
        struct {                  /* IR_E_UNARY, IR_E_BINARY (b == NULL for unary) */
            ir_op op;
            ir_expr *a, *b;
        } op;
        struct {                  /* IR_E_CALL */
            ir_func f;
            ir_expr **args;
            int nargs;
        } call;
        struct {                  /* IR_E_REDUCE */
            ir_reduce_op r;
            const char *var;
            int slot;             /* variable slot (checker) */
            ir_expr *lo, *hi, *body;
        } reduce;
        struct {                  /* IR_E_REPEAT */
            ir_opref op;          /* a user operator with `even` and `odd` clauses */
            ir_expr *k;           /* the integer whose bits are walked (rank, procs - 1, ..) */
            ir_expr **args;       /* the start tuple (one per state field) */
            int nargs;
        } repeat;
    } u;
};

/* ---- statements ----------------------------------------------------------------------------- */

typedef enum ir_loop_kind { IR_LOOP_DEFAULT, IR_LOOP_SEQ, IR_LOOP_PAR, IR_LOOP_PROC } ir_loop_kind;

typedef struct ir_stmt ir_stmt;

typedef struct ir_block {
    ir_stmt **stmts;
    int n;
    ir_expr *cost;                /* `cost N` on this block, or NULL */
    ir_comments tail;             /* comments before the closing brace */
} ir_block;

typedef struct ir_loopvar {
    const char *var;
    int slot;                     /* checker */
    ir_expr *lo, *hi, *step;      /* step NULL = 1 */
    ir_loop_kind kind;
    ir_pos pos;
} ir_loopvar;

/* IR_S_RECV (`recv`, syndm, the last statement of the processor loop's body): the step's messages
 * are received here; its sends were posted where they stand, so the work between a processor's
 * last send and its recv overlaps them (the overlap placement, transforms/place/place_overlap.c).  A
 * step without it posts and receives its messages together at its end.  It has no fields. */
typedef enum ir_stmt_kind { IR_S_ASSIGN, IR_S_LET, IR_S_IF, IR_S_FOR, IR_S_SEND, IR_S_COLL, IR_S_RECV } ir_stmt_kind;

/* Collectives (syncomm, syndm; see COLLECTIVES in polyapm-lang(5)).  The _BAL kinds are the
 * balanced forms the fusion rules produce: reduce_bal over a balanced tree whose missing leaves
 * are on the left (the operator's `one` clause at a node with only its right child), scan_bal
 * as a butterfly (`lower` and `upper` clauses). */
typedef enum ir_coll_kind {
    IR_C_BCAST, IR_C_REDUCE, IR_C_ALLREDUCE, IR_C_SCAN, IR_C_EXSCAN, IR_C_ALLGATHER,
    IR_C_GATHER, IR_C_SCATTER, IR_C_REDUCE_BAL, IR_C_ALLREDUCE_BAL, IR_C_SCAN_BAL,
    IR_C_MULTICAST,   /* every processor gets the root's block named by its own subscripts */
    IR_C_TRANSPOSE,   /* a redistribution: dst[b][a] = src[a][b] from the processor holding row a */
    IR_C_COUNT
} ir_coll_kind;

struct ir_stmt {
    ir_stmt_kind kind;
    ir_pos pos;
    ir_comments comments;
    ir_expr *cost;                /* `cost N` on an assignment or send, else NULL */
    union {
        struct {                  /* IR_S_ASSIGN:  LABEL: a[..] = rhs */
            const char *label;
            ir_expr *lhs;         /* an IR_E_ACCESS (or IR_E_NAME of a 0-d array) */
            ir_expr *rhs;
        } assign;
        struct {                  /* IR_S_LET:  let v = e */
            const char *var;
            int slot;
            ir_expr *value;
        } let;
        struct {                  /* IR_S_IF:  if c {..} else {..}; else_blk NULL when absent */
            ir_expr *cond;
            ir_block *then_blk, *else_blk;
        } if_;
        struct {                  /* IR_S_FOR:  for v1 = .., v2 = .. { body } (nested in order) */
            ir_loopvar *vars;
            int nvars;
            ir_block *body;
        } for_;
        struct {                  /* IR_S_SEND:  send a[..] to lo [.. hi] at t [when c] [as [..]..] */
            ir_expr *what;        /* IR_E_ACCESS: the element sent, in the sender's coordinates */
            ir_expr *to_lo, *to_hi;   /* destination processor(s); to_hi NULL for one */
            ir_expr *at;          /* destination time */
            ir_expr *when;        /* guard or NULL */
            ir_expr **as_idx;     /* index at the receiver, or NULL (same index) */
            int nas;
        } send;
        struct {                  /* IR_S_COLL:  [L:] dsts = kind[(op)] srcs [to|from root] */
            const char *label;    /* or NULL */
            ir_coll_kind ck;
            ir_opref op;          /* op.name NULL for bcast, gather, scatter, allgather */
            ir_expr **dst;        /* blocks written: IR_E_ACCESS with a prefix of the subscripts
                                     (or IR_E_NAME); a NULL entry is `_` (a dropped component) */
            int ndst;
            ir_expr **src;        /* blocks read, as dst (never NULL entries) */
            int nsrc;
            /* A block may end with a range `[lo .. hi]` on the dimension after its prefix (a
             * slice, possibly empty): the bounds, or NULL arrays / NULL entries when none. */
            ir_expr **dst_lo, **dst_hi, **src_lo, **src_hi;
            ir_expr *root;        /* processor value of the root, or NULL */
            ir_expr *by;          /* `by e`: processors with equal e >= 0 form a group (one
                                     collective per group, concurrently); e < 0: not taking
                                     part.  NULL: all processors of the step */
            ir_expr *when;        /* `when c` (transpose only): the steps where it runs, or NULL */
        } coll;
    } u;
};

/* ---- declarations --------------------------------------------------------------------------- */

typedef enum ir_decl_kind {
    IR_D_PARAM, IR_D_REFERENCE, IR_D_ARRAY, IR_D_INIT, IR_D_OUTPUT, IR_D_DIST, IR_D_OP, IR_D_ASSUME
} ir_decl_kind;

/* ---- user-defined operators (`op NAME { .. }`, OPERATORS in polyapm-lang(5)) ---------------- */

/* Clauses of an operator, in the order of Deitz et al. (PPoPP 2006): */
typedef enum ir_clause_kind {
    IR_K_IDENT,        /* ident = tuple                          () -> state */
    IR_K_PREACCUM,     /* preaccum S X = tuple                   state x in -> state (first element) */
    IR_K_ACCUM,        /* accum S X = tuple                      state x in -> state */
    IR_K_POSTACCUM,    /* postaccum S X = tuple                  (last element) */
    IR_K_COMBINE,      /* combine S1 S2 = tuple                  state x state -> state (S1 left) */
    IR_K_GEN,          /* gen S = tuple                          state -> output (any arity) */
    IR_K_SCANGEN,      /* scangen S X = e                        state x in -> one output */
    IR_K_ONE,          /* one S = tuple                          reduce_bal node with one child */
    IR_K_LOWER,        /* lower S1 S2 = tuple                    scan_bal: the lower partner's new state */
    IR_K_UPPER,        /* upper S1 S2 = tuple                    scan_bal: the upper partner's new state */
    IR_K_EVEN,         /* even S = tuple                         repeat: a 0 bit */
    IR_K_ODD,          /* odd S = tuple                          repeat: a 1 bit */
    IR_K_COUNT
} ir_clause_kind;

typedef struct ir_field { const char *name; ir_type type; ir_pos pos; } ir_field;

/* A clause's pattern: one name, or a parenthesised tuple of names (one per field). */
typedef struct ir_pattern {
    const char **names;
    int *slots;                   /* checker */
    int n;
    ir_pos pos;
} ir_pattern;

typedef enum ir_opitem_kind {
    IR_OI_STATE, IR_OI_IN, IR_OI_CLAUSE, IR_OI_COMMUTATIVE, IR_OI_NONCOMMUTATIVE,
    IR_OI_NONASSOCIATIVE, IR_OI_DISTRIBUTES
} ir_opitem_kind;

/* One item of an operator, kept in source order (the printer keeps it). */
typedef struct ir_opitem {
    ir_opitem_kind kind;
    ir_pos pos;
    ir_comments comments;
    ir_field *fields; int nfields;          /* STATE, IN */
    ir_clause_kind clause;                  /* CLAUSE: */
    ir_pattern pats[2]; int npats;          /*   its patterns */
    const char **lets; ir_expr **letv;      /*   `let a = e, b = e in` before the result */
    int *letslots; int nlets;
    ir_expr **val; int nval;                /*   the result tuple */
    ir_opref over;                          /* DISTRIBUTES: `distributes over OP` */
} ir_opitem;

typedef enum ir_dist_kind { IR_DIST_LOCAL, IR_DIST_REPLICATE } ir_dist_kind;

/* One piece of a local memory: a box, per dimension [lo .. hi] (optionally `step s [block b]`);
 * `[i = lo .. hi]` names the dimension's index so that the last dimension's bounds may depend on
 * it (a ragged piece: a triangle, a staircase). */
typedef struct ir_dist_piece {
    ir_expr **lo, **hi;
    ir_expr **step, **block;   /* NULL when no dimension is strided; NULL entries: every index */
    const char **ivar;         /* per dimension its index's name or NULL; NULL when none is named */
    int *islot;                /* checker: their slots (-1 when unnamed) */
} ir_dist_piece;

typedef struct ir_decl {
    ir_decl_kind kind;
    ir_pos pos;
    ir_comments comments;
    union {
        struct {                  /* one per name; `cont` = 1 when written on the previous
                                     param's line (`param n = 1, m = 2`: m has cont 1) */
            const char *name; ir_expr *value; int index; int cont;
        } param;
        struct { const char *path; } reference;
        struct {
            const char *name;
            ir_type elem;
            ir_expr **lo, **hi;   /* ndims each; constant expressions of parameters */
            int ndims;
            int index;            /* position in prog->arrays */
        } array;
        struct {                  /* init a[x][0][y] = e: IR_E_NAME indices bind, others fix */
            const char *array;
            int array_index;
            ir_expr **idx;
            int nidx;
            ir_expr *value;
        } init;
        struct {                  /* output a[steps]: fixes a prefix of the indices */
            const char *array;
            int array_index;
            ir_expr **idx;
            int nidx;
        } output;
        struct {                  /* dist a(rp) [lo..hi].. [offset [e]..] | dist a replicate */
            const char *array;
            int array_index;
            ir_dist_kind dk;
            const char *procvar;
            int slot;
            ir_expr **lo, **hi;   /* local bounds in local coordinates (ndims each) */
            ir_expr **offset;     /* global = local + offset; NULL = absolute (offset 0) */
            ir_expr **step, **block;   /* per dimension `step s [block b]` (NULL entries: every
                                        * index); NULL when no dimension is strided */
            const char **ivar;    /* `[i = lo .. hi]`: the first piece's index names (see ir_dist_piece) */
            int *islot;
            int ndims;
            /* `dist a(rp) [..].. + [..]..`: the pieces after the first (lo, hi, step, block, ivar
             * above); an element lives in the first piece that holds it.  Never with offset. */
            ir_dist_piece *more;
            int nmore;
        } dist;
        struct {                  /* assume LABEL unchanged when COND: the instances of statement
                                     LABEL where COND holds write the value their element has (a
                                     write that changes nothing; dependence analysis leaves it
                                     out, the simulator checks it).  COND is read in the
                                     statement's scope (its loop variables, lets, parameters). */
            const char *label;
            ir_expr *cond;
            const ir_stmt *stmt;  /* checker: the statement labelled LABEL */
        } assume;
        struct {                  /* op NAME { items } */
            const char *name;
            ir_opitem *items;
            int nitems;
            int index;            /* position in prog->ops (checker) */
            /* checker: */
            const ir_opitem *state, *in;            /* `in` NULL: an elementwise operator */
            const ir_opitem *clause[IR_K_COUNT];   /* NULL when absent */
            int commutative;      /* 1 commutative, 0 noncommutative */
            int associative;      /* 0 when declared nonassociative */
        } op;
    } u;
} ir_decl;

/* ---- the program ---------------------------------------------------------------------------- */

typedef struct ir_arena ir_arena;

/* The step nest of a program at syn and above (nest.c): `nlets` top-level lets, then the time
 * loop tfor->u.for_.vars[0] and, directly inside it (or as its second variable), the processor
 * loop pfor->u.for_.vars[pidx]; the variables after pidx in pfor are inner loops of the processor
 * body. */
typedef struct ir_step_nest {
    int nlets;
    ir_stmt *tfor;
    ir_stmt *pfor;
    int pidx;
    int trailing;                 /* statements after the nest (an error at syn and above) */
} ir_step_nest;

typedef enum ir_nest_status {
    IR_NEST_OK, IR_NEST_MISSING, IR_NEST_NOT_FOR, IR_NEST_NO_VARS, IR_NEST_NO_PROC, IR_NEST_TIME_PARALLEL
} ir_nest_status;

typedef struct ir_program {
    ir_arena *arena;
    const char *file;             /* for diagnostics; may be NULL */
    const char *name;
    ir_level level;
    int aggregate;                /* `messages aggregate` (syndm, after `level`): a step's messages
                                     to one partner travel as one message, every array's elements
                                     in it (the aggregation placement); 0: one message per
                                     (partner, array) */
    ir_pos aggregate_pos;         /* where `messages` stands (diagnostics) */
    ir_comments comments;         /* before `program` */
    ir_decl **decls;              /* in source order (the printer keeps the order) */
    int ndecls;
    ir_block *body;               /* the top-level statements */
    ir_comments tail;             /* comments at the end of the file */

    /* Filled by the checker: */
    ir_decl **params;  int nparams;   /* IR_D_PARAM decls in order */
    ir_decl **arrays;  int narrays;   /* IR_D_ARRAY decls in order */
    ir_decl **ops;     int nops;      /* IR_D_OP decls in order */
    int nslots;                   /* variable slots needed by any frame */
    ir_step_nest nest;            /* syn and above, set by the checker (ir_program_nest) */
    int checked;
} ir_program;

/* Recognises the step nest of a top-level block (the one definition; the checker reports its
 * status).  IR_NEST_OK fills n completely; otherwise n holds what was found so far. */
ir_nest_status ir_step_nest_find(const ir_block *body, ir_step_nest *n);
/* The step nest of a checked program at syn and above, or NULL. */
const ir_step_nest *ir_program_nest(const ir_program *p);

/* Lifetime. */
own_give ir_program *ir_program_new(const char *file);
void ir_program_free(own_take ir_program *p);
own_give ir_program *ir_program_clone(const ir_program *p);   /* deep copy into a fresh arena (unchecked) */

/* Arena allocation (zeroed) and string interning for builders. */
void *ir_alloc(ir_program *p, size_t size);
const char *ir_strdup(ir_program *p, const char *s);
/* Piece k (0 .. 1 + nmore - 1) of a LOCAL dist, by value (its arrays are the declaration's). */
ir_dist_piece ir_dist_get_piece(const ir_decl *d, int k);
/* Is the dist more than one plain box (several pieces, or a named index)? */
int ir_dist_is_pieced(const ir_decl *d);
/* Is an element of the pieced local memory d (of an array of ndims dimensions) found by a search
 * of its pieces, one element at a time, as the exported code finds it: several pieces, or a
 * strided last range?  (One piece whose rows are plain ranges has each row start at a known
 * place: its elements are indexed as a box's are.)  0 for a dist that is not pieced. */
int ir_dist_searched(const ir_decl *d, int ndims);
const char *ir_strndup(ir_program *p, const char *s, size_t n);

/* Builders. */
ir_expr *ir_new_int(ir_program *p, int64_t v);
ir_expr *ir_new_real(ir_program *p, double v);
ir_expr *ir_new_name(ir_program *p, const char *id);
ir_expr *ir_new_unary(ir_program *p, ir_op op, ir_expr *a);
ir_expr *ir_new_binary(ir_program *p, ir_op op, ir_expr *a, ir_expr *b);
ir_expr *ir_new_access(ir_program *p, const char *array, ir_expr **idx, int nidx); /* copies idx[] */
ir_expr *ir_new_call(ir_program *p, ir_func f, ir_expr **args, int nargs);        /* copies args[] */
ir_expr *ir_clone_expr(ir_program *dst, const ir_expr *e);
ir_stmt *ir_clone_stmt(ir_program *dst, const ir_stmt *s);      /* deep copy into dst (unchecked) */
ir_block *ir_clone_block(ir_program *dst, const ir_block *b);   /* NULL gives NULL */
ir_block *ir_new_block(ir_program *p);
void ir_block_append(ir_program *p, ir_block *b, ir_stmt *s);
ir_stmt *ir_new_stmt(ir_program *p, ir_stmt_kind kind);
ir_decl *ir_new_decl(ir_program *p, ir_decl_kind kind);
/* A collective `dst.. = kind(op) src.. [to|from root]` (unchecked): op is NULL for the kinds
 * without one; dst[] and src[] are copied (a NULL dst entry is `_`); no ranges, no `by`. */
ir_stmt *ir_new_coll(ir_program *p, ir_coll_kind kind, const char *op, ir_expr **dst, int ndst,
                     ir_expr **src, int nsrc, ir_expr *root);
void ir_program_append_decl(ir_program *p, ir_decl *d);

/* Names of enum values, as written in the language. */
const char *ir_level_name(ir_level l);
int ir_level_parse(const char *s, ir_level *out);    /* 1 on success */
const char *ir_op_text(ir_op op);
const char *ir_func_name(ir_func f);
/* The number of arguments of f when it is one of math.h's functions (IR_F_SIN .. IR_F_POW), else 0. */
int ir_libm_nargs(ir_func f);
/* math.h's function f of x (and y, pow's exponent): the one definition of their values, as a
 * function to call (NULL when f is none of them; a function of one ignores y), or called. */
typedef double (*ir_libm_fn)(double x, double y);
ir_libm_fn ir_libm(ir_func f);
double ir_libm_call(ir_func f, double x, double y);
const char *ir_reduce_name(ir_reduce_op r);
const char *ir_coll_name(ir_coll_kind k);          /* "bcast", "reduce_bal", .. */
int ir_coll_parse(const char *s, ir_coll_kind *out); /* 1 on success */
const char *ir_clause_name(ir_clause_kind k);      /* "ident", "accum", .. */
int ir_clause_parse(const char *s, ir_clause_kind *out);
/* What a collective needs: an operator; a root and the word before it ("to" or "from"). */
int ir_coll_has_op(ir_coll_kind k);
const char *ir_coll_root_word(ir_coll_kind k);     /* NULL: no root */
/* 1 when the program has a collective statement or a repeat expression (transforms that do not
 * know them refuse such programs). */
int ir_program_has_collectives(const ir_program *p);
/* 1 when the statement is, or the block holds, a statement of kind k at any depth (within ifs'
 * branches and loops' bodies). */
int ir_stmt_has_kind(const ir_stmt *s, ir_stmt_kind k);
int ir_block_has_kind(const ir_block *b, ir_stmt_kind k);

/* A jammed loop (`local`'s jam=): a `for` of one variable, step 1, with no loop, send or
 * collective inside, in a loop over `around` along which its statements walk at unit stride
 * (an access's subscripts but its last do not move with around; a tile's short point loop
 * inside the loop over k, b[k][j], is not one), whose bounds are `max(.., e) .. min(.., e + c)`
 * (either may be that argument alone) for one name e and a literal 0 < c < IR_JAM_MAX: at most
 * c + 1 turns from e, which the loop around it takes in steps of c + 1.  The exporter unrolls it
 * into the loop over around (every turn's statements one after the other in that loop's body,
 * where the other bounds let all c + 1 turns run: gemm's four rows share B[k][j .. j + 7], syrk's
 * four chains along k interleave), and the simulator prices its statements by that loop, the
 * innermost once it is unrolled.  Its number of turns c + 1, the arguments that are e and e + c
 * in *lo_arg and *hi_arg; else 0 (also when around is NULL). */
enum { IR_JAM_MAX = 8 };
/* The arguments of a call of f (IR_F_MIN or IR_F_MAX; those of the calls of f among them too),
 * or e alone, appended to out[n ..] (at most max): the new count. */
int ir_minmax_args(const ir_expr *e, ir_func f, const ir_expr **out, int n, int max);
int ir_jam_loop(const ir_stmt *s, const char *around, const ir_expr **lo_arg, const ir_expr **hi_arg);
/* Is lv a point loop of a tile: `j = max(.., jt) .. min(.., jt + c)` (either side may be that
 * argument alone) with a literal c?  The tile loop's name jt, and in *extent (when not NULL) the
 * most iterations it runs, c + 1; else NULL.  `local` writes its tiles' and register tiles' point
 * loops so; the exporter keeps a register tile's elements in registers by it. */
const char *ir_point_of(const ir_loopvar *lv, int64_t *extent);
/* Does e name `var`, alone or as an argument of a max (a point loop's lower bound)? */
int ir_max_names(const ir_expr *e, const char *var);
/* Does e name one of names[0 .. n-1] (at any depth: subscripts, arguments, reductions)? */
int ir_expr_names_any(const ir_expr *e, const char *const *names, int n);

/* A register tile (`local`'s regs=, engine/ir_regs.c): a loop over tiles of R columns, `for jr =
 * .. step R`, whose body is its lets and a loop over k, whose body is its lets and the loop over
 * the tile's columns `j = max(.., jr) .. min(.., jr + R - 1)` (ir_point_of), whose body is a
 * jammed loop around j (ir_jam_loop) of lets and one assignment, which writes an element that
 * stays in place along k (no subscript names k or what moves with it), its last subscript the
 * column j plus what does not move with j, each turn its own row (another subscript c * turn +
 * what does not move with the turn, c not 0), and which the loop over k reads or writes nowhere else (its lets, the columns'
 * and the turns' bounds, the turns' lets and value).  Then each turn's R elements can stay in
 * registers across the loop over k: the exporter writes them so (export_regs.c), the simulator
 * prices them so (sim_streams.c).  1 with its parts, else 0. */
typedef struct ir_regs_tile {
    int nlet;                  /* the tile loop's leading lets */
    const ir_stmt *k;          /* the loop over k */
    const ir_stmt *cols;       /* the loop over the tile's columns */
    const ir_stmt *jam;        /* the jammed loop (the columns' body) */
    const ir_stmt *assign;     /* its statement */
    int64_t ncols;             /* R */
} ir_regs_tile;
enum { IR_REGS_MAX = 64 };
int ir_regs_tile_of(const ir_stmt *s, ir_regs_tile *out);

/* ---- phases --------------------------------------------------------------------------------- */

/* Parses `text` (len bytes, need not be NUL-terminated).  Returns NULL and fills `d` on errors;
 * the parser recovers to report several errors.  The result is not yet checked. */
own_give ir_program *ir_parse(const char *file, const char *text, size_t len, diag_list *d);

/* Resolves names, assigns slots, infers types, checks affinity and level rules.  Returns the
 * number of errors added to `d` (0 = the program is well-formed and may be simulated). */
int ir_check(ir_program *p, diag_list *d);

/* Reads, parses and checks a file.  NULL (with diagnostics) on any error. */
own_give ir_program *ir_load_file(const char *path, diag_list *d);
/* Parses and checks text. */
own_give ir_program *ir_load_text(const char *file, const char *text, size_t len, diag_list *d);

/* Canonical text (malloc'd).  print(parse(print(x))) == print(x). */
own_give char *ir_print(const ir_program *p);
/* One expression in canonical form (malloc'd). */
own_give char *ir_print_expr(const ir_expr *e);

/* ---- parameters ----------------------------------------------------------------------------- */

/* Parameter overrides, as given by `-D name=value`. */
typedef struct ir_binding { const char *name; int64_t value; } ir_binding;

/* Parses "name=value" (value an integer) into a binding whose name points into `arg` (the '='
 * is overwritten).  Returns 0, or -1 when malformed. */
int ir_parse_binding(char *arg, ir_binding *out);

/* Evaluates the parameters of a checked program in order, applying overrides (an override
 * replaces that parameter's expression; later parameters see the new value).  `values` receives
 * nparams entries.  Unknown override names are ignored when `strict` is 0, errors otherwise.
 * Returns the number of errors added to `d`. */
int ir_params_eval(const ir_program *p, const ir_binding *ov, int nov, int strict,
                   int64_t *values, diag_list *d);

/* Evaluates a constant expression (parameters only) given the parameter values. 0 = ok. */
int ir_const_eval(const ir_program *p, const ir_expr *e, const int64_t *params,
                  int64_t *ival, double *rval, int *is_real, diag_list *d);
/* Is e an integer constant under the parameter values?  1 and *v, else 0 (no diagnostics). */
int ir_const_int(const ir_program *p, const ir_expr *e, const int64_t *params, int64_t *v);
/* The same with one more name bound to `value` (a dist's processor variable, to evaluate a local
 * bound at one processor): 1 and *v, else 0. */
int ir_const_int_at(const ir_program *p, const ir_expr *e, const int64_t *params, const char *name, int64_t value,
                    int64_t *v);

/* ---- size (ir_size.c) ----------------------------------------------------------------------- */

/* The degree of the program's work in its sizes: the most loops (and reductions) one statement
 * lies in whose bounds are not integer literals, processor loops left out (heat-3d's t, i, j, k:
 * 4; gemm's 3).  0 without loops. */
int ir_work_degree(const ir_program *p);
/* The elements of the checked program's arrays (the sum of their boxes) with its parameters
 * overridden by b[0 .. nb); -1 when a bound does not evaluate. */
double ir_array_elems(const ir_program *p, const ir_binding *b, int nb);

#endif
