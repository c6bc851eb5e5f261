/*
 * distribute_int.h — private to the distributing chain (tile.c, commgen.c, memdist.c with
 * memdist_bounds.c, relcoord.c): the tiled step nest of a syn/syncomm program and isl-to-IR through a build.
 */
#ifndef POLYAPM_DISTRIBUTE_INT_H
#define POLYAPM_DISTRIBUTE_INT_H

#ifndef POLYAPM_XF_PRIVATE
#error "distribute_int.h is private to transforms/: include xf.h"
#endif

#include "poly_int.h"

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

/* ---- sends after the loop that finishes their value (commgen_hoist.c) ------------------------ */

/* Moves each send that ends a loop's body and whose guard holds at the loop's last iteration
 * alone after the loop (the loop variable at its last value), in b and the blocks below it. */
void xf_commgen_hoist(ir_program *p, ir_block *b);

/* ---- memdist's bound expressions (memdist_bounds.c) ------------------------------------------ */

/* Is f (a pw_aff of the processor dimensions) monotone non-decreasing (+1) or non-increasing
 * (-1) in dimension d over `dom`, or neither (0)? */
int xf_md_monotone(__isl_keep isl_pw_aff *f, __isl_keep isl_set *dom, int d);
/* e - c - c'  ->  e - (c + c'): integer literals at the right of a sum folded (e rewritten in p). */
ir_expr *xf_md_fold(ir_program *p, ir_expr *e);
/* e as base + c: the base's text and *c. */
own_give char *xf_md_split_const(const ir_expr *e, int64_t *c);
/* A pw_aff of the processor dimensions with them as parameters named after their variables. */
__isl_give isl_pw_aff *xf_md_pv_params(__isl_take isl_pw_aff *pa, unsigned npar, const xf_tiling *T,
                                       __isl_keep isl_ctx *ctx);
/* The bound (the least when e is 0, else the greatest) over real processor rpv's virtual
 * processors of x (an expression of them): the value at the first or last one when x is monotone
 * (mono[q] = +1/-1), otherwise a reduction; *ok = 0 when it cannot be written. */
ir_expr *xf_md_real_bound(ir_program *out, const xf_tiling *T, const char *rpv, ir_expr *x, const int *mono,
                          int e, const ir_expr *P1, int *ok);
/* min/max cleanups isl cannot do on non-affine bounds (nested calls flattened, repeated
 * arguments dropped, absorption). */
ir_expr *xf_md_tidy_minmax(ir_program *out, ir_expr *e);
/* A bound simplified by isl against 0 <= rpv < procs and the parameters' context: the simpler
 * text, or e itself. */
ir_expr *xf_md_simplify(ir_program *out, ir_expr *e, const xf_model *m, const char *rpv, const xf_tiling *T);

#endif
