/*
 * distribute_int.h — private to the distributing chain (tile.c, commgen.c, memdist.c,
 * relcoord.c): the tiled step nest of a syn/syncomm program and isl-to-IR through a build.
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

#endif
