/*
 * poly_int.h — private to transforms/: the polyhedral model of a program (isl_build.c), its
 * dependences (deps.c), affine parameter expressions as isl text (paramexpr.c), the isl AST
 * back to our IR (astgen.c), substitution (exprsub.c), integer evaluation (evalint.c) and
 * simplification (simplify.c).  The families that reason in isl include it.
 */
#ifndef POLYAPM_POLY_INT_H
#define POLYAPM_POLY_INT_H

#ifndef POLYAPM_XF_PRIVATE
#error "poly_int.h is private to transforms/: include xf.h"
#endif

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

#include "core_int.h"

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
    char *unchanged;           /* isl text of the instances whose write changes nothing
                                  (`assume S unchanged when ..`), or NULL: the dependence
                                  analysis leaves their write out */
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
    char **sends_away;         /* per send, its domain where it sends to another processor than
                                  its own (the proc loop's), or NULL: destinations not readable */
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
int xf_isl_expr(strbuf *b, const ir_expr *e, const xf_frame *frames, int nframes);
/* The value of integer expression e where it is a constant for isl (a literal, arithmetic of
 * literals, a let bound to one; a parameter while a model with XF_MODEL_VALUES is built): 0 with
 * *v, or -1. */
int xf_isl_const(const ir_expr *e, const xf_frame *frames, int nframes, int64_t *v);
/* Whether a comparison or logical operation stands anywhere in e, its lets' values (found in the
 * frames) included; a let not found counts as one (isl_pieces.c). */
int xf_has_condition(const ir_expr *e, const xf_frame *frames, int nframes);
/* The value of the innermost let `name` among the frames, or NULL. */
const ir_expr *xf_find_let(const char *name, const xf_frame *frames, int nframes);
/* Writes `var` equals e as isl text: e's pieces where e is affine only piece by piece (a product
 * with a condition: isl_pieces.c), a disjunction of `condition and var = value`.  0, or -1. */
int xf_isl_equals(strbuf *b, const char *var, const ir_expr *e, const xf_frame *frames, int nframes);
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

/* Whether condition c, in a loop over v whose last value is hi, holds at v = hi alone: an integer
 * comparison (==, or an inequality facing the bound) of two sides that differ by a nonzero
 * multiple of v plus terms free of v, and that is tight at v = hi (k + 1 == p, p - 1 <= k,
 * k > p - 2 for hi = p - 1). */
int xf_pins_last(ir_program *p, const ir_expr *c, const char *v, const ir_expr *hi);

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
