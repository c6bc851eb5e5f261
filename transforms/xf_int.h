/*
 * xf_int.h — private to transforms/: the polyhedral model of a source program (isl_build.c),
 * the isl-AST-to-IR converter (astgen.c), small string buffers and the expression parser for
 * transform parameters.  Nothing outside transforms/ includes this file.
 */
#ifndef POLYAPM_XF_INT_H
#define POLYAPM_XF_INT_H

#include <stdarg.h>

#include <isl/ctx.h>
#include <isl/ast.h>
#include <isl/ast_build.h>
#include <isl/aff.h>
#include <isl/map.h>
#include <isl/options.h>
#include <isl/space.h>
#include <isl/set.h>
#include <isl/union_map.h>
#include <isl/union_set.h>

#include "ir.h"
#include "xf.h"

/* ---- growable strings ------------------------------------------------------------------------ */

typedef struct xf_buf { char *s; size_t n, cap; } xf_buf;
void xf_buf_printf(xf_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void xf_buf_vprintf(xf_buf *b, const char *fmt, va_list ap);
own_give char *xf_buf_take(xf_buf *b);   /* the string (never NULL); resets b */
void xf_buf_free(xf_buf *b);
own_give char *xf_strdup(const char *s);
own_give char *xf_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- finishing a transform ------------------------------------------------------------------- */

/* Checks a generated program.  0 when it checks; otherwise -1, the checker's messages and the
 * generated text reported in `d` as an internal error of transform `xf`, and `p` freed. */
int xf_check_generated(const char *xf, ir_program *p, diag_list *d);
/* Renames `p` after `src` for its new level: NAME_from becomes NAME_to, another NAME gets _to. */
void xf_rename_for_level(ir_program *p, const ir_program *src, const char *from, const char *to);

/* ---- cancellation (cancel.c) ---------------------------------------------------------------- */

/* Every isl context in use is tracked, so that xf_cancel() can abort its computations. */
void xf_cancel_track(__isl_keep isl_ctx *ctx);
void xf_cancel_untrack(__isl_keep isl_ctx *ctx);

/* ---- the polyhedral model -------------------------------------------------------------------- */

/* One step on the path from the program's top to a leaf assignment. */
typedef enum xf_frame_kind { XF_FR_FOR, XF_FR_THEN, XF_FR_ELSE, XF_FR_LET, XF_FR_LEAF } xf_frame_kind;

typedef struct xf_frame {
    xf_frame_kind kind;
    const ir_stmt *node;       /* the for / if / let / assignment statement */
    int var;                   /* XF_FR_FOR: which variable of the for */
    char *cons;                /* isl constraint text added by this frame ("" if none) */
    int exact;                 /* 0 if the constraint could not be expressed (data-dependent) */
} xf_frame;

/* A leaf assignment: one polyhedral statement. */
typedef struct xf_stmt {
    char *name;                /* its label (or S_line), unique; the isl tuple name */
    const ir_stmt *assign;
    xf_frame *frames;          /* path from the top, the last one XF_FR_LEAF */
    int nframes;
    char **vars;               /* isl names of its loop variables, outer to inner */
    int nvars;
    char *domain;              /* isl text of its iteration domain, with parameters */
    char *sched;               /* isl text of its sequential schedule  { S[..] -> [..] } */
    int exact;                 /* 0 if some enclosing condition is data-dependent */
    int textpos;               /* textual order */
} xf_stmt;

/* An array access of a statement. */
typedef struct xf_access {
    int stmt;                  /* index into model->st */
    int write;
    int must;                  /* exact (must) access */
    const ir_expr *expr;       /* the IR_E_ACCESS / IR_E_NAME */
    char *text;                /* as printed, e.g. "l[i][k]" */
    char *rel;                 /* isl text  { S[..] -> a[..] : ... } (domain not yet applied) */
} xf_access;

typedef struct xf_model {
    isl_ctx *ctx;              /* owned */
    const ir_program *prog;
    char *params;              /* "[n, steps]" */
    char **pnames;             /* isl names of the parameters */
    int npnames;
    char *context;             /* isl text "[n, steps] -> { : ... }" */
    int64_t *pvalues;          /* evaluated parameter values */
    xf_stmt *st;
    int nst;
    xf_access *acc;
    int nacc;
    int sched_len;
    char **sends;              /* per send statement, the isl text of the domain where it runs
                                  ({ SEND[loop vars] : .. }, its `when` included where affine,
                                  an over-approximation where a condition is not) */
    int nsends;
} xf_model;

/* Builds the model of a checked program (any level, but loops are read as sequential).  `fixed`
 * fixes the parameters to their values (with overrides) in the context; XF_MODEL_VALUES writes
 * their values in the text as well, so that a product of parameters (`rp * b`) stays affine.
 * NULL with diagnostics on failure. */
enum { XF_MODEL_VALUES = 2 };
own_give xf_model *xf_model_build(const ir_program *p, const ir_binding *ov, int nov, int fixed,
                                  diag_list *d);
void xf_model_free(own_take xf_model *m);
int xf_model_find(const xf_model *m, const char *label);   /* statement index or -1 */

/* isl objects from the model. */
__isl_give isl_set *xf_model_domain(const xf_model *m, int s);
__isl_give isl_set *xf_model_context(const xf_model *m);
__isl_give isl_union_map *xf_model_schedule(const xf_model *m);

/* The dependences of the model as isl maps SRC[..] -> SINK[..]: flow, then anti and output.
 * `acc` is the access concerned (the sink's read for flow, the source's read for anti, the
 * sink's write for output).  Each rel is the array's, freed by xf_rawdeps_free. */
typedef struct xf_rawdep { xf_dep_kind kind; int src, sink, acc; isl_map *rel; } xf_rawdep;
int xf_model_deps(const xf_model *m, own_give xf_rawdep **out, int *n, diag_list *d);
void xf_rawdeps_free(own_take xf_rawdep *r, int n);
/* How many xf_model_deps calls were answered from the memo of recent models (tests). */
int xf_deps_memo_hits(void);
/* Prints an instance pair with its parameter values: "S[1, 2] -> T[2, 2] (n = 4)". */
own_give char *xf_example(const xf_model *m, __isl_keep isl_map *rel);
/* Prints an element of a set (a statement instance): "S[1, 2] (n = 4)". */
own_give char *xf_example_set(const xf_model *m, __isl_keep isl_set *set);

/* Converts an integer expression (or condition) to isl text.  Names are looked up in the
 * frames (lets are substituted).  Returns 0, or -1 when not affine / not expressible. */
int xf_isl_expr(xf_buf *b, const ir_expr *e, const xf_frame *frames, int nframes);
/* The isl spelling of a name (keywords get a trailing underscore). */
const char *xf_isl_name(const char *name, char *tmp, size_t tmpsz);

/* Last isl error message (or "unknown error"). */
const char *xf_isl_error(__isl_keep isl_ctx *ctx);

/* ---- parsing transform parameters ------------------------------------------------------------ */

/* Parses an affine integer expression (numbers, names, + - * / %, parentheses, min, max, floor,
 * ceil) into isl text.  `names` lists the names allowed (loop variables and parameters); an
 * unknown name is an error.  Returns isl text or NULL with a message in *err. */
own_give char *xf_expr_to_isl(const char *text, const char *const *names, int nnames,
                              own_give char **err);

/* ---- the transforms (one file each) ---------------------------------------------------------- */

int xf_stm_applicable(const ir_program *p, own_give char **why_not);
own_give ir_program *xf_stm_apply(const ir_program *src, const xf_args *args, diag_list *d, int *status);
/* `stm auto [pick=K]`: applies the K-th best candidate (default 1). */
/* stm on one program with several mappings: the symbolic model and dependences built once
 * (stm auto checks each of its candidates through it).  NULL after diagnostics. */
typedef struct xf_stm_session xf_stm_session;
own_give xf_stm_session *xf_stm_session_new(const ir_program *src, const ir_binding *ov, int nov,
                                            diag_list *d);
own_give ir_program *xf_stm_session_apply(xf_stm_session *ss, const xf_args *args,
                                          diag_list *d, int *status);
void xf_stm_session_free(own_take xf_stm_session *ss);
/* The session's symbolic model and dependences (borrowed). */
const xf_model *xf_stm_session_model(const xf_stm_session *ss, const xf_rawdep **dep, int *ndep);

/* The mapping `args` with θ shifted to start at 0 for every parameter value (its parametric
 * minimum subtracted), as stm's arguments; NULL when that is not one affine function. */
own_give char *xf_stm_session_rebase(xf_stm_session *ss, const xf_args *args);
/* The same from isl text per statement (stm_isl.c). */
own_give char *xf_stm_rebase(const xf_model *m, const char *const *theta, const char *const *sigma, int inner);

/* The size of a mapping at the model's parameter values: time steps, processors, the most
 * instances of one statement at one (t, p) point (on average over the points it uses), the
 * (t, p) points per step (on average: the processors a step keeps busy); and
 * whether it keeps the source's locality (no statement in two or more loops has its innermost
 * loop variable in θ or σ: that loop stays innermost, in the inner sequential loops). */
typedef struct xf_stm_size { long long steps, procs, work, width; int local; } xf_stm_size;
/* The size of the mapping `args` (stm's arguments) on the session's program; -1 if they do not
 * parse. */
int xf_stm_session_measure(xf_stm_session *ss, const xf_args *args, xf_stm_size *out);
/* The size of the mapping st[s] (statement s's S[..] -> [θ, σ..], kept) (stm_isl.c). */
int xf_stm_measure(const xf_model *m, __isl_keep isl_map *const *st, xf_stm_size *out);
/* The points of a bounded set, the parameters fixed: counted, or for a large bounding box its
 * volume (an estimate for ranking). */
long long xf_count_points(__isl_take isl_set *set);
/* stm auto's mappings from multi-dimensional schedules (stm_isl.c): stm arguments legal for
 * every parameter value under the symbolic model m and its dependences, measured at its
 * parameter values, the best `max` in stm auto's order (xf_stm_cand_cmp); returns their number,
 * *out (free with xf_stm_cands_free). */
int xf_stm_isl_proposals(const xf_model *m, const xf_rawdep *r, int nr, int max, own_give xf_stm_cand **out);
/* stm auto's order of candidates (qsort): see xf_stm_candidates. */
int xf_stm_cand_cmp(const void *a, const void *b);
own_give ir_program *xf_stm_auto_apply(const ir_program *src, const xf_args *args,
                                       diag_list *d, int *status);

int xf_tile_applicable(const ir_program *p, own_give char **why_not);
own_give ir_program *xf_tile_apply(const ir_program *src, const xf_args *args,
                                   diag_list *d, int *status);

int xf_commgen_applicable(const ir_program *p, own_give char **why_not);
own_give ir_program *xf_commgen_apply(const ir_program *src, const xf_args *args,
                                      diag_list *d, int *status);

int xf_memdist_applicable(const ir_program *p, own_give char **why_not);
own_give ir_program *xf_memdist_apply(const ir_program *src, const xf_args *args,
                                      diag_list *d, int *status);

int xf_relcoord_applicable(const ir_program *p, own_give char **why_not);
own_give ir_program *xf_relcoord_apply(const ir_program *src, const xf_args *args,
                                       diag_list *d, int *status);

/* Communication placement (place_*.c): overlap (boundary, sends, interior, recv); aggregation
 * (one message per partner and step: `messages aggregate`). */
int xf_overlap_applicable(const ir_program *p, own_give char **why_not);
own_give ir_program *xf_overlap_apply(const ir_program *src, const xf_args *args,
                                      diag_list *d, int *status);
int xf_aggregate_applicable(const ir_program *p, own_give char **why_not);
own_give ir_program *xf_aggregate_apply(const ir_program *src, const xf_args *args,
                                        diag_list *d, int *status);
own_give char *xf_aggregate_predict(const ir_program *p, const cost_profile *prof);

/* Ghost zones (place_ghost.c): exchange every width= steps, the neighbours' elements recomputed between. */
int xf_ghost_applicable(const ir_program *p, own_give char **why_not);
own_give ir_program *xf_ghost_apply(const ir_program *src, const xf_args *args, diag_list *d, int *status);

/* The candidate placements of a syndm program (place_choice.c): its own (args "") and overlap at
 * each width= candidate that applies (args "width=W"), ghost zones at each of theirs (args
 * "ghost width=K"); where aggregate applies, aggregated (args "aggregate") and aggregated with
 * overlap ("aggregate width=W"); simulated at args' bindings, checked
 * against the first, priced by `model` under prof.  Returns how many (at most max; 0 when p does
 * not simulate). */
typedef struct xf_placement {
    char args[32];
    double commcost, cost;     /* ticks: cost_summary.commcost and total */
} xf_placement;
int xf_placements(const ir_program *p, const cost_profile *prof, const char *model, const xf_args *args,
                  xf_placement *out, int max);
/* q simulated at args' bindings (stopping at the first violation; cancellable), or NULL. */
own_give sim_result *xf_placement_sim(const ir_program *q, const xf_args *args);
/* Simulates q at args' bindings and prices it into c (commcost, cost; c->args untouched), checked
 * against the reference run `ref` (NULL: q is the reference, returned through *keep when keep is
 * not NULL).  0 on success. */
int xf_placement_price(const ir_program *q, const cost_profile *prof, const char *model, const xf_args *args,
                       const sim_result *ref, own_give sim_result **keep, xf_placement *c);
/* The most bytes (8 a word) one processor sends in one step of trace t, counting only the
 * partners that get min_arrays arrays or more, and where (*proc, *step). */
int64_t xf_live_send_bytes(const sim_trace *t, int min_arrays, int *proc, int *step);
/* Buffer safety's fallback: src's plain placement with two comment lines at the top of its
 * processor body saying that `xf` maxbuf= re-blocked it and what the buffers reach (also written
 * to args->report). */
own_give ir_program *xf_placement_fallback(const char *xf, const ir_program *src, int64_t maxbuf, int64_t need,
                                           int proc, int step, const xf_args *args);
own_give ir_program *xf_with_step_comment(const ir_program *src, char *const text[2]);
/* The index of the least cost (by_commcost: least CommCost) of n >= 1 candidates; ties: the first. */
int xf_placement_least(const xf_placement *c, int n, int by_commcost);
/* overlap maxbuf= (place_choice.c): `placed` (taken) when no processor's live send buffers of a
 * step exceed maxbuf bytes at args' bindings; else src's plain placement with a comment saying
 * so (also written to args->report).  NULL with diagnostics when `placed` does not simulate. */
own_give ir_program *xf_overlap_buffer_safe(const ir_program *src, own_take ir_program *placed, int64_t maxbuf,
                                            const xf_args *args, diag_list *d);
/* The overlap row's prediction: the candidates under the polyapm model (one line, malloc'd). */
own_give char *xf_overlap_predict(const ir_program *p, const cost_profile *prof);

/* Collective fusion (fuse.c, fuse_tuple.c, distlaw.c): each with a predicted gain under a
 * machine profile (malloc'd text, NULL when the transform does not apply). */
#define XF_FUSE_DECL(id)                                                                          \
    int xf_fuse_##id##_applicable(const ir_program *p, own_give char **why_not);                   \
    own_give ir_program *xf_fuse_##id##_apply(const ir_program *src, const xf_args *args,          \
                                              diag_list *d, int *status);                          \
    own_give char *xf_fuse_##id##_predict(const ir_program *p, const cost_profile *prof);
XF_FUSE_DECL(sr2) XF_FUSE_DECL(sr) XF_FUSE_DECL(ss2) XF_FUSE_DECL(ss) XF_FUSE_DECL(bs)
XF_FUSE_DECL(bss2) XF_FUSE_DECL(bss) XF_FUSE_DECL(br) XF_FUSE_DECL(brall) XF_FUSE_DECL(bsr2)
XF_FUSE_DECL(bsr) XF_FUSE_DECL(tuple)
XF_FUSE_DECL(bcast_sa) XF_FUSE_DECL(sa_bcast) XF_FUSE_DECL(allg_gb) XF_FUSE_DECL(gb_allg)
XF_FUSE_DECL(mc_sb) XF_FUSE_DECL(mc_sa) XF_FUSE_DECL(sb_mc) XF_FUSE_DECL(sa_mc)

/* ---- tiled step nests (commgen.c) ------------------------------------------------------------ */

/* The step nest of a syn/syncomm program: untiled (`for t seq, p par`) or one of tile.c's forms. */
typedef enum xf_tkind { TK_NONE, TK_BLOCKED, TK_CYCLIC, TK_BLOCKCYCLIC, TK_BLOCK2D } xf_tkind;

typedef struct xf_tiling {
    xf_tkind k;
    int np;                    /* processor dimensions of the untiled nest: 1, or 2 (block2d) */
    const char *pv[2];         /* their variables */
    const ir_expr *lo[2], *hi[2];   /* their bounds (of t) */
    const ir_expr *p0[2];      /* offset P0 (lo1, lo2 for block2d), NULL = 0 */
    const ir_expr *b[2];       /* block sizes (blocked, block2d), bs (blockcyclic) */
    const ir_expr *p1;         /* blockcyclic: the last virtual processor P1 (blocks 0 .. (P1 - P0) / bs) */
    const char *q;             /* block2d grid side */
    ir_block *body;            /* the statements of a point */
    ir_loopvar *t;
} xf_tiling;

/* Recognises the step nest of `p` (pointers into p).  0 or -1. */
int xf_tiling_recognise(ir_program *p, xf_tiling *T);
/* The untiled step nest as a checked program of its own (for the polyhedral model). */
own_give ir_program *xf_tiling_untile(const ir_program *src, const xf_tiling *T, diag_list *d);
/* RP(e): the real processor of virtual processor(s) e (T->np expressions). */
ir_expr *xf_tiling_rp(ir_program *p, const xf_tiling *T, own_take ir_expr **e);
/* A statement's variables (set dimensions) as parameters named after them. */
__isl_give isl_set *xf_vars_as_params(__isl_take isl_set *set, unsigned np, const xf_stmt *st);
__isl_give isl_pw_aff *xf_pa_vars_as_params(__isl_take isl_pw_aff *pa, unsigned np, const xf_stmt *st);
/* isl to IR through a build (the build's context simplifies): NULL if not expressible; a set
 * that always holds gives NULL too. */
ir_expr *xf_expr_of_pa(ir_program *p, __isl_keep isl_ast_build *b, __isl_take isl_pw_aff *pa);
ir_expr *xf_expr_of_set(ir_program *p, __isl_keep isl_ast_build *b, __isl_take isl_set *s);

/* ---- substitution (exprsub.c) ---------------------------------------------------------------- */

/* A copy of e with each name from[i] replaced by a copy of to[i] (all at once; an inner
 * reduction's own variable is not replaced in its body); xf_subst1 for one name. */
ir_expr *xf_subst(ir_program *p, const ir_expr *e, const char *const *from, ir_expr *const *to, int n);
ir_expr *xf_subst1(ir_program *p, const ir_expr *e, const char *from, const ir_expr *to);
/* A name that is no word of *text (a program's text, with the names taken so far): base, base1,
 * base2, ..; appended to *text (realloc'd) so that later names avoid it too; in p's arena. */
const char *xf_fresh_name(ir_program *p, char **text, const char *base);
/* 1 when e mentions the name nm anywhere (subscripts included). */
int xf_mentions(const ir_expr *e, const char *nm);

/* An integer parameter of a transform whose arguments are all such (the placements): `name=`,
 * a value in min .. max stored in *value (left as it is when absent); `hint` (may be NULL) ends
 * the message of a value out of range. */
typedef struct xf_int_param {
    const char *name;
    int64_t min, max;
    int64_t *value;
    const char *hint;
} xf_int_param;
/* Reads args into the n parameters ps of transform `xf`: 0, or -1 with a message (a key that is
 * none of them or carries a label, a value that is not an integer in range). */
int xf_args_ints(const xf_args *args, const char *xf, const xf_int_param *ps, int n, diag_list *d);

/* Integer evaluation of an unchecked expression, names looked up innermost first (evalint.c). */
#define XF_ENV_MAX 64
typedef struct xf_env {
    const char *names[XF_ENV_MAX];
    int64_t vals[XF_ENV_MAX];
    int n;
    int64_t *fuel;             /* NULL, or nodes still to evaluate (shared by copies; 0: fail) */
} xf_env;
int xf_eval_int(const ir_expr *e, xf_env *env, int64_t *v);   /* 0, or -1 when not evaluable */
/* The value of an arithmetic expression of literals only (-2, -(2), 2 * 3 - 1, min(4, 2), 7 / 2):
 * 0 with *v, or -1 when e names anything, is a comparison or a logical operator, or is not
 * evaluable.  The isl printers write such a subexpression as its number. */
int xf_int_const(const ir_expr *e, int64_t *v);

/* ---- simplification (simplify.c) ------------------------------------------------------------ */

/* An integer expression in a simpler equal form (linear sums normalised, monotone min/max
 * reductions closed), reusing e's nodes. */
ir_expr *xf_simplify_int(ir_program *p, own_take ir_expr *e);
/* The same, where it shortens them, for the integer expressions of p's step nest and dists
 * (subscripts, send destinations, times and indices, integer comparisons of guards; not loop
 * bounds); costs are unchanged. */
void xf_simplify_program(ir_program *p);

/* ---- isl AST to IR --------------------------------------------------------------------------- */

/* Renaming of isl identifiers (parameters, iterators) on the way back. */
typedef struct xf_rename {
    const char *const *from, *const *to;
    int n;
    const ir_expr *const *to_expr;   /* optional: replace from[i] by a copy of to_expr[i] */
} xf_rename;

/* How user nodes are placed: the callback appends the statements for one user node to `out`
 * and returns 0, or -1 on failure. */
typedef struct xf_astgen {
    const xf_rename *rename;
    int (*user)(void *ctx, ir_program *p, __isl_keep isl_ast_node *user, ir_block *out);
    void *ctx;
} xf_astgen;

/* Converts an isl AST expression into an IR expression in `p`'s arena; NULL if unsupported
 * (select, calls). */
ir_expr *xf_ast_expr(ir_program *p, __isl_keep isl_ast_expr *e, const xf_rename *rn);
/* Converts a for node's header into a loop variable.  0 or -1. */
int xf_ast_for(ir_program *p, __isl_keep isl_ast_node *n, const xf_rename *rn, ir_loopvar *lv);
/* Converts an isl AST (for, if, block, user) into statements appended to `out`.  0 or -1. */
int xf_ast_node(ir_program *p, __isl_keep isl_ast_node *n, ir_block *out, const xf_astgen *g);


#endif
