/*
 * export_int.h — what the files of the exporter share (export.c plans and writes the directory;
 * the C is written by export_program.c, phase by phase, from export_arrays.c's declarations,
 * export_inout.c's inits and checksum, export_stmt.c's statements, export_loops.c's loops and
 * export_expr.c's expressions; export_coll.c its collectives, export_piece.c the storage of
 * pieced local memories; the generated rt_embed.c holds the runtime sources).  Not for
 * other modules: they use xf_export in xf.h.
 */
#ifndef POLYAPM_EXPORT_INT_H
#define POLYAPM_EXPORT_INT_H

#ifndef POLYAPM_XF_PRIVATE
#error "export_int.h is private to transforms/: include xf.h"
#endif

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "mem.h"
#include "strbuf.h"
#include "planes.h"
#include "xf.h"
#include "core_int.h"

/* The runtime sources, embedded at build time from runtime/ (build/gen/rt_embed.c). */
typedef struct xf_rt_file { const char *name, *text; } xf_rt_file;
extern const xf_rt_file xf_rt_files[];   /* ends with {NULL, NULL} */

/* One array of the program as the exported C stores it. */
typedef struct ex_array {
    const ir_decl *decl;          /* the array declaration */
    const ir_decl *dist;          /* syndm: its dist declaration */
    char cname[64];               /* the C name of its storage */
    int fold;                     /* dimension of time planes stored modulo fold_w, or -1 */
    int64_t fold_w;               /* live planes */
    int64_t mark_step;            /* folded output: the one step writing mark_plane, or INT64_MIN */
    int output;                   /* named by an output declaration */
    int mark;                     /* syndm output: a byte per element says "computed here" */
    int64_t mark_plane;           /* folded output: the plane whose writes are marked */
    ir_tform send_f;              /* halo: sends carry plane floor((t + a) / k) + c of this array */
    int pieced;                   /* syndm: its dist has pieces or named indices (export_piece.c) */
} ex_array;

/* The plan of one export. */
enum { EX_PHASES = 8, EX_PHASE_CONDS = 8, EX_PHASE_SENDS = 256 };
typedef struct ex_plan {
    const ir_program *p;
    int64_t *pv;                  /* parameter values (nparams) */
    ex_array *arr;                /* narrays */
    int mpi;                      /* syndm or syncomm: C+MPI */
    int shared;                   /* syncomm: every rank holds the whole arrays (replicated) and
                                     runs its own processor; collectives are the communication */
    const ir_stmt *nest;          /* the top-level FOR holding the time loop (NULL: no loop) */
    int tslot;                    /* slot of the time loop variable (-1 when none) */
    int64_t tstep;                /* step of the time loop (1 when none) */
    int pslot;                    /* syndm: slot of the processor loop variable */
    int pdepth;                   /* syndm: the proc loop is nest var pdepth (1), or the first
                                     var of the FOR in the nest's body (-1) */
    int64_t plo, nprocs;          /* syndm: processors plo .. plo+nprocs-1 */
    xf_exchange exchange;         /* syndm: the exchange used; AUTO when no sends */
    /* halo: the sends fall into phases, each with its own static pattern and its condition on t
     * alone (the time-only `if`s around its sends and the time-only conjunct of their `when`;
     * none: every step), e.g. the even and the odd steps of an in-place kernel's two sweeps */
    int nphases;
    const ir_expr *phase_cond[EX_PHASES][EX_PHASE_CONDS];
    int phase_nconds[EX_PHASES];
    const ir_stmt *phase_send[EX_PHASE_SENDS];   /* each send and its phase */
    int phase_of[EX_PHASE_SENDS];
    int nphase_sends;
    const char *origin;
    int crand;                    /* an init calls the C library's random numbers (rt_crand.h) */
    char progname[64];
} ex_plan;

/* The array of a sent element (an access, or a scalar: a 0-dimensional array named bare) and its
 * subscripts (*idx NULL and *nidx 0 for a scalar). */
static inline int ex_sent_array(const ir_expr *what, ir_expr *const **idx, int *nidx)
{
    int scalar = what->kind == IR_E_NAME;
    *idx = scalar ? NULL : what->u.access.idx;
    *nidx = scalar ? 0 : what->u.access.nidx;
    return scalar ? what->u.name.index : what->u.access.array_index;
}

/* C names: the program's name made safe (not a C keyword, libc or runtime name); ex_nm the same
 * into tmp (64 bytes), returned. */
void ex_cname(char *out, size_t size, const char *name);
static inline const char *ex_nm(const char *id, char *tmp)
{
    ex_cname(tmp, 64, id);
    return tmp;
}
/* The first n bytes of s, NUL-terminated (allocation failure aborts, as xstrdup). */
static inline own_give char *ex_strndup(const char *s, size_t n)
{
    char *r = xmalloc(n + 1);
    memcpy(r, s, n);
    r[n] = '\0';
    return r;
}
/* The characters of C identifiers. */
static inline int ex_ident_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static inline int ex_ident_char(int c)
{
    return ex_ident_start(c) || (c >= '0' && c <= '9');
}
/* n spaces of indentation. */
static inline void ex_indent(strbuf *b, int n)
{
    strbuf_printf(b, "%*s", n, "");
}

/* The emitter's state. */
/* EX_MARK: the step replayed after the timed loop for its writes of marked outputs alone (their
 * X_mine stamps), no values, no messages. */
enum { EX_SEQ, EX_STEP, EX_INSPECT, EX_MARK };
typedef struct ex_rows ex_rows;
/* A register tile (export_regs.c): the turns' elements of one array kept in registers. */
typedef struct ex_regs {
    int array;               /* the array whose elements it holds */
    const ir_loopvar *cols;  /* the loop over its columns (`for j = jr .. min(.., jr + 15)`) */
    int64_t ncols;           /* its columns, R */
    char acc[32], first[32]; /* C names: the tile (rt_accN[turn][column]) and its first column */
} ex_regs;
enum { EX_REGS_LOAD = 1, EX_REGS_STORE = 2 };
/* The steps at which some processor sends, as a C condition over the time variable (C name
 * tn), or NULL when that is every step or cannot be said (export_steps.c).  Caller frees. */
own_give char *ex_msg_steps(const ex_plan *pl, const char *tn);

/* The halo phase of a send (export.c), -1 when it has none. */
int ex_phase_of(const ex_plan *pl, const ir_stmt *send);

typedef struct ex_em {
    const ex_plan *pl;
    int mode;                /* EX_SEQ (sequential), EX_STEP (syndm step), EX_INSPECT (halo pattern),
                              * EX_MARK (the stamps replayed) */
    int phase;               /* EX_INSPECT: the phase whose sends are recorded */
    const char *me;          /* the C expression of this processor (syndm), NULL when sequential */
    int *tmp;                /* counter for temporaries */
    int marks;               /* EX_STEP: record "computed here" for the outputs */
    ex_rows *rows;           /* row bases hoisted out of the loops being emitted (export_rows.c) */
    int checked;             /* an assignment's value: integer + - * and unary - through intsem's
                              * checked helpers (subscripts and bounds stay plain C, as the
                              * simulator's affine subscripts; / % abs isqrt are always checked) */
    int nosends;             /* EX_STEP: the sends are left out (a loop's version where their
                              * conditions fail, export_guards.c) */
    const ir_stmt *jam;      /* a jammed loop written unrolled (export_jam.c), or NULL */
    const char *jam_around;  /* the variable of the loop it is unrolled in */
    ex_rows *jam_rows;       /* its turns' rows, an array each (ex_rows_open_jam), or NULL */
    int nojam;               /* the version of a nest where not all its turns run: loops as they are */
    const ex_regs *regs;     /* a register tile being written (export_regs.c), or NULL */
    const char *regs_turn;   /* the jammed turn being written, C (its row of the tile) */
    int regs_move;           /* the tile's elements loaded (EX_REGS_LOAD) or stored (EX_REGS_STORE) in
                              * place of the assignment; 0: the assignment on the tile */
} ex_em;

/* Whether e reads variable slot `slot` or any array; whether block b holds a statement of kind
 * k (at any depth). */
int ex_reads(const ir_expr *e, int slot);
int ex_block_holds(const ir_block *b, ir_stmt_kind k);
/* export_guards.c: whether e stays the same in a loop whose body binds the slots bound[0 ..
 * nbound-1] (the loop's own variable among them), reads no array, and cannot fail when tested
 * before the loop. */
int ex_invariant_in(const ex_plan *pl, const ir_expr *e, const int *bound, int nbound);
/* Whether e, evaluated where it is not in the program (before a loop that may run no
 * iteration), cannot stop the program: no integer division or remainder by anything but a
 * constant (or a parameter, at its exported value) other than 0 and -1, no isqrt (intsem's
 * failures). */
int ex_cannot_fail(const ex_plan *pl, const ir_expr *e);
/* Whether integer division or remainder by d cannot fail: d is a constant (parameters at their
 * exported values) other than 0 and -1. */
int ex_safe_divisor(const ex_plan *pl, const ir_expr *d);
/* export_guards.c: when every send in the innermost loop over v (around body) has conditions
 * that do not change in it, their disjunction as C into cond (statements it needs first into
 * pre) and 1: the loop is then emitted twice, with its sends where cond holds and without them
 * where it fails.  0 otherwise. */
int ex_send_guard(const ex_em *m, const ir_loopvar *v, const ir_block *body, strbuf *cond, strbuf *pre, int in);
/* export_guards.c: 1 when no send stands in an innermost loop that tests its condition per
 * element: each is in a loop versioned by it (ex_send_guard), or in no inner loop (the
 * simulator's per-element guard ticks are then not what the export pays: xf_export_pricing). */
int ex_guards_hoisted(const ex_plan *pl);
/* export_guards.c: the slots of the variables block b binds (lets, loops, at any depth) appended
 * to slots[n ..]; the new count, or -1 when they pass max. */
int ex_bound_slots(const ir_block *b, int *slots, int n, int max);
/* export_stmt.c: the loop over a send's destinations lo .. hi (C), clipped to the processors. */
void ex_send_dests(const ex_plan *pl, strbuf *b, const char *lo, const char *hi, int in);
/* Whether every statement of b is silent in this mode (ex_silent). */
int ex_block_silent(const ex_em *m, const ir_block *b);
/* export_stmt.c: whether statement s writes nothing in this mode: a send left out (the halo
 * step's, the replay's, a version without sends), or a loop or if of such sends alone (and lets),
 * whose bounds and conditions cannot fail: it is left out too. */
int ex_silent(const ex_em *m, const ir_stmt *s);
/* export_stmt.c: statement k of blk; every statement of blk. */
void ex_emit_stmt(const ex_em *m, strbuf *b, const ir_block *blk, int k, int in);
void ex_emit_block(const ex_em *m, strbuf *b, const ir_block *blk, int in);
/* export_stmt.c: whether statements from.. of b, as emitted in this mode, read name id. */
int ex_block_uses(const ex_em *m, const ir_block *b, int from, const char *id);
/* export_stmt.c: whether e's C can stop the program (intsem's failures; value: in an assigned
 * value, where integer arithmetic is checked). */
int ex_can_stop(const ex_plan *pl, const ir_expr *e, int value);
/* export_loops.c: the loops vars[from .. nvars-1] around body (the innermost split at its
 * border test, run at its points, or versioned by its sends' conditions where it has that
 * shape); the innermost loop over v around body (versioned where export_guards.c says so). */
void ex_emit_loops(const ex_em *m, strbuf *b, const ir_loopvar *vars, int nvars, int from, const ir_block *body,
                   int in);
void ex_emit_inner_loop(const ex_em *m, strbuf *b, const ir_loopvar *v, const ir_block *body, int in);
/* export_loops.c: how many leading lets of the body of the loop over v do not change in it (they
 * read neither v nor an array) and cannot fail: computed once before the loop. */
int ex_invariant_lets(const ex_plan *pl, const ir_loopvar *v, const ir_block *body);
/* export_runs.c: whether the sends of the innermost loop over v (its body from statement
 * `from`) go out after it as runs of records (each element sent final when the loop ends);
 * those sends, after the loop. */
int ex_send_runs(const ex_em *m, const ir_loopvar *v, const ir_block *body, int from);
void ex_send_runs_emit(const ex_em *m, strbuf *b, const ir_loopvar *v, const ir_block *body, int from, int in);
/* export_points.c: the innermost loop over v whose body runs only at a few points (each
 * statement a let or an if that holds at one value of v or under conditions that do not change
 * in the loop), written as the body at those points; 0 when the loop has another shape. */
int ex_point_loop(const ex_em *m, strbuf *b, const ir_loopvar *v, const ir_block *body, int in);

/* export_jam.c: statement s, a loop whose nest ends in a jammed loop (ir_jam_loop) that its
 * loops neither bind nor change, written twice: with the jammed loop's turns unrolled where all
 * of them run, as it is elsewhere; 0 (nothing written) when s has another shape.  The jammed
 * loop j written as its turns one after the other (m->jam == j). */
int ex_jam_nest(const ex_em *m, strbuf *b, const ir_stmt *s, int in);
void ex_jam_unrolled(const ex_em *m, strbuf *b, const ir_stmt *j, int in);
/* export_jam.c: the statements of a jammed loop's body as the emitter of one turn writes them
 * (ex_rows_turn), into out; a let no later statement reads left out. */
void ex_jam_body(const ex_em *turn, strbuf *out, const ir_block *body, int in);

/* export_regs.c: inside the unrolled version of a jammed nest (m->jam), statement s when it is
 * a loop over register tiles (`for jr = .. step 16 { for k { for j = jr .. min(.., jr + 15) {
 * the jammed loop }}}`) whose jammed statement keeps its element in place along k: each whole
 * tile's elements loaded into a C array before the loop over k, the statement on them, stored
 * after; 0 (nothing written) when s has another shape.  ex_regs_cell writes the tile's element
 * for access e of the current turn when e is the tile's array (1), else 0; ex_regs_cols, when v is
 * the loop over the tile's columns, that loop inside a loop over the turns, both unrolled (1),
 * else 0. */
int ex_regs_nest(const ex_em *m, strbuf *b, const ir_stmt *s, int in);
int ex_regs_cell(const ex_em *m, strbuf *b, const ir_expr *e);
int ex_regs_cols(const ex_em *m, strbuf *b, const ir_loopvar *v, int in);
/* export_regs.c: assignment s on a register tile's element (the tile's loads or stores in its
 * place, m->regs_move), 1; 0 when s does not write the tile's array. */
int ex_regs_assign(const ex_em *m, strbuf *b, const ir_stmt *s, int in);
/* export_loops.c: `for (int64_t x = lo, x_end = hi; x <= x_end; x += step) {`. */
void ex_for_open(const ex_em *m, strbuf *b, const ir_loopvar *v, int in);

/* export_expr.c: an expression as C into b; statements it needs first (hoisted reductions)
 * into pre.  The offset of an access to `array` (subscripts idx[0 .. nidx-1]) in its storage,
 * on processor `who`; zero_fold: the fold subscript is 0 (offsets within a plane, for the
 * pattern inspector). */
void ex_expr(const ex_em *m, strbuf *b, strbuf *pre, int in, const ir_expr *e);
void ex_offset(const ex_em *m, strbuf *b, strbuf *pre, int in, int array, ir_expr *const *idx, int nidx,
               const char *who, int zero_fold);

/* export_rows.c: row bases (and cells: whole offsets) hoisted out of an innermost loop.  ex_rows_open declares into b,
 * before the loop over `var` (its body: statements from.. of `body`, and/or the expression `e`),
 * the row bases of the accesses whose subscripts but the last do not change in it, and makes
 * *in_loop the emitter of the loop (m with those rows); ex_rows_close frees them.  A loop holding
 * another loop or a collective gets no rows.  ex_row_call writes the row of an access from its
 * subscripts as C (sub[0 .. nsub-2]; 0 when the array has no rows: its last dimension is
 * folded); ex_rows_find looks it up: the row's variable, or NULL. */
void ex_rows_open(const ex_em *m, ex_em *in_loop, strbuf *b, int in, const char *var, const ir_block *body,
                  int from, const ir_expr *e);
void ex_rows_close(ex_em *in_loop, const ex_em *m);
/* The same before the loop over `outer` around the innermost loop over `var` (body: that loop's):
 * the rows that change in neither, computed once a turn of the loops around outer (a cyclic
 * tiling's X_at(me, (i - rp) / procs, 0), which gcc does not move out of the loop over j itself,
 * and then does not vectorise the loop over j around an accumulation).  How many rows. */
int ex_rows_open_around(const ex_em *m, ex_em *in_loop, strbuf *b, int in, const char *outer, const char *var,
                        const ir_block *body, int from);
/* Before the loop over `around` whose body is jammed loop j (export_jam.c): each turn's rows that
 * do not move with around (gemm's C[i][..], mvt's A[i][..] with i the turn's row), an array of
 * one per turn each, filled in a loop over the turns with the turn's lets (`rt_row3[rt_turn] =
 * A_rowbase(me, i)`); *in_loop has them (jam_rows; ex_rows_close frees them).  How many rows.
 * A register tile's turns (m->regs) get the shared rows alone: their own are computed in their
 * loop (export_regs.c).  ex_rows_turn gives the emitter of the turn numbered idx (C: "2",
 * "rt_t") those rows (`rt_row3[2] + j`) and a table open for a
 * pieced array's others (X_rowbase + j inline); ex_rows_turn_close frees it. */
int ex_rows_open_jam(const ex_em *m, ex_em *in_loop, strbuf *b, int in, const char *around, const ir_stmt *j);
void ex_rows_turn(const ex_em *m, ex_em *turn, const char *idx);
void ex_rows_turn_close(ex_em *turn);
/* Does C text name the identifier id (as a whole word)?  0 for NULL text. */
int ex_text_names(const char *text, const char *id);
/* Is let statement `let` read by text, or by one of part[0 .. n) whose keep is set (the C of the
 * statements after it)?  How a jammed turn and its rows' loop leave out lets nothing reads. */
int ex_let_read(const ir_stmt *let, const char *text, const strbuf *part, const int *keep, int n);
int ex_row_call(const ex_em *m, strbuf *out, int array, const char *who, char *const *sub, int nsub);
/* Whether a's index function is linear in its last index (X_at(.., j) = X_at(.., 0) + j). */
int ex_rows_linear(const ex_array *a);
/* The key of a cell: the index function's call X_at(who, sub[0 .. nsub-1]) as ex_offset writes it;
 * 0 when the array has rows instead (or is pieced and who is another processor). */
int ex_cell_call(const ex_em *m, strbuf *out, int array, const char *who, char *const *sub, int nsub);
const char *ex_rows_find(const ex_em *m, const char *call);

/* export_coll.c: the operators' clauses as C functions (and the built-in combines) before the
 * steps; the MPI operators and datatypes created after rt_init / freed before rt_finalize;
 * one collective statement of the processor body. */
void ex_emit_ops(const ex_plan *pl, strbuf *b);
void ex_emit_ops_setup(const ex_plan *pl, strbuf *b, int free_them);
void ex_coll(const ex_em *m, strbuf *b, const ir_stmt *s, int in);
/* export_redist.c: a transpose as one rt_transpose call; why it cannot be exported (into buf),
 * or NULL. */
void ex_transpose(const ex_em *m, strbuf *b, const ir_stmt *s, int in);
const char *ex_transpose_refusal(const ex_plan *pl, const ir_stmt *s, char *buf, size_t size);
/* export_coll.c: one value to many processors.  Whether a send goes out as one rt_mcast record
 * for its range; whether the plan has such sends (only such); the rt_mcast object and the global-index
 * functions of arrays in one box (before init_arrays); the send (its `when`, range and the
 * sender's offset as C); deliver's loop over the multicast records. */
int ex_send_mcast(const ex_plan *pl, const ir_stmt *s);
int ex_mcast_used(const ex_plan *pl);
int ex_mcast_only(const ex_plan *pl);   /* every send is one: no per-receiver exchange at all */
void ex_mcast_decl(const ex_plan *pl, strbuf *b);
void ex_send_mcast_emit(const ex_em *m, strbuf *b, const ir_stmt *s, int in, const char *cond, const char *lo,
                        const char *hi, const char *what);
void ex_mcast_deliver(const ex_plan *pl, strbuf *b);

/* export_piece.c: arrays with pieced local memories.  The rt_piece type (once, before the first
 * such array); the array's storage, tables, X_layout (appended to `fills`, the start of
 * init_arrays), X_size, X_at (this rank's processor only) and X_gidx / X_at_gidx (global indices
 * for messages).  In loops over the pieces (variable rt_pc): the bounds of dimension d ("lo, hi"
 * into lim, clipped to lo .. hi) and the offset of the element names[] of piece rt_pc.  A send's
 * global index of the element idx[]. */
extern const char *const ex_piece_type;
void ex_piece_decl(const ex_plan *pl, strbuf *b, strbuf *fills, const ex_array *a);
void ex_piece_lim(strbuf *lim, const ex_array *a, int d, const char *lo, const char *hi, char names[][64]);
void ex_piece_at(strbuf *b, const ex_array *a, char names[][64]);
/* C condition: piece rt_pc's row of names[] holds last index j (its range, and its lattice). */
void ex_piece_held(strbuf *b, const ex_array *a, const char *j, char names[][64]);
void ex_piece_gidx(const ex_em *m, strbuf *b, strbuf *pre, int in, const ex_array *a, ir_expr *const *idx);
/* Whether a pieced array has one piece whose last range is every index: its rows are linear
 * (X_rowbase(rt_proc, i0 ..) + j, export_rows.c hoists them). */
int ex_piece_rows_linear(const ex_array *a);

/* export_stmt.c: the conjuncts of a condition (a && b && c) into out[n ..] (at most max in all;
 * the count, which may exceed max when some were left out); whether e names only the time
 * variable (slot tslot) and parameters: a condition on the step alone. */
int ex_conjuncts(const ir_expr *e, const ir_expr **out, int n, int max);
int ex_time_only(const ir_expr *e, int tslot);

/* export_overlap.c: a step ending with `recv` under the halo exchange (the overlap placement).
 * Whether the plan is one; the step function's extra parameter and argument (the patterns; ""
 * otherwise); the halo functions to write (name, runtime call, comment; NULL-terminated:
 * exchange_halo, or post_halo and wait_halo); after statement k of block blk (the processor
 * body's last that sends) the post, at `recv` the wait. */
typedef struct ex_halo_fn { const char *name, *call, *what; } ex_halo_fn;
int ex_overlap_placed(const ex_plan *pl);
const char *ex_overlap_step_param(const ex_plan *pl);
const char *ex_overlap_step_arg(const ex_plan *pl);
const ex_halo_fn *ex_overlap_halo_fns(const ex_plan *pl);
void ex_overlap_after(const ex_em *m, strbuf *b, const ir_block *blk, int k, int in);
void ex_overlap_recv(const ex_em *m, strbuf *b, int in);

/* How dimension d of an array's local memory maps its indices (man/polyapm-lang.5, dist): */
typedef enum ex_dim_map {
    EX_MAP_PLAIN,      /* every index of lo .. hi; global = access index + offset */
    EX_MAP_LATTICE,    /* `step s block b`, absolute: accesses name global indices, only the
                          lattice lo + k*s + r (0 <= r < b) is held, stored without gaps */
    EX_MAP_COMPRESSED, /* `step s block b` with offset: access indices are consecutive local
                          ones l, global = offset + floor(l / b) * s + l mod b */
} ex_dim_map;

ex_dim_map ex_dim_kind(const ex_array *a, int d);
/* export_arrays.c: array a's storage, bounds, extents and index function (X_at; at syndm
 * X_slot, X_glob, X_store, X_stored), the tables init_arrays fills appended to `fills`. */
void ex_array_decl(const ex_plan *pl, strbuf *b, strbuf *fills, const ex_array *a);
/* export_inout.c: init_arrays (fills: what it computes first, the tables); output_checksum. */
void ex_init_fn(const ex_plan *pl, strbuf *b, const ex_em *m, const char *fills, int late_marks);
void ex_checksum_fn(const ex_plan *pl, strbuf *b, const ex_em *m);

/* export_tidy.c: the program's text as a careful person leaves it: `//@inline NAME(p, ..) EXPR`
 * lines inlined at each call, `//@def NAME` .. `//@end` definitions nothing uses left out,
 * `(void)x;` of what is used dropped, lines wrapped at 100 columns. */
own_give char *ex_tidy(own_take char *text);
/* export_simplify.c: an integer index expression (names, literals, + - *, parentheses, calls)
 * with its constants folded, zero terms and unit factors dropped; NULL when the text holds
 * anything else.  ex_simplify_buf: b's text so simplified, when it can be.  Whether C text is
 * one operand (a name, a number, a call or a parenthesised whole). */
own_give char *ex_simplify_index(const char *text);
void ex_simplify_buf(strbuf *b);
int ex_is_operand(const char *s);
/* Drops the parentheses around b's whole text, for where C needs none: an initialiser, the
 * right-hand side of an assignment (none around a comma at its top). */
void ex_unparen_buf(strbuf *b);

/* export_program.c: writes the C program of the plan (malloc'd text). */
own_give char *ex_emit_program(const ex_plan *pl);

#endif
