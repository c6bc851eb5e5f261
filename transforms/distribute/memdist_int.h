/*
 * memdist_int.h — what memdist.c (the layouts of local memories) and memdist_size.c (a candidate
 * layout's size, and whether it holds every footprint) share; private to transforms/distribute.
 */
#ifndef POLYAPM_XF_PRIVATE
#error "memdist_int.h is private to transforms/: include xf.h"
#endif
#ifndef POLYAPM_MEMDIST_INT_H
#define POLYAPM_MEMDIST_INT_H

#include "distribute_int.h"

#define MD_MAX_ROWS 4000000    /* outer index tuples evaluated per processor and piece */
#define MD_MAX_POINTS 3000000  /* footprint points checked per array */
#define MD_BUDGET 20000000     /* expression nodes evaluated per array, over all candidates */

/* What every bound of one memdist needs, and the numbers to size and check candidate layouts. */
typedef struct md_ctx {
    ir_program *out;
    const xf_tiling *T;
    const char *rpv;
    const ir_expr *P1;
    const xf_model *m;
    isl_ctx *ctx;
    unsigned npar;
    isl_ast_build *bp;
    const ir_decl *ad;
    int ok;
    xf_env env0;               /* the parameters at their values */
    int64_t rp_lo, rp_hi;      /* the real processors */
    ir_expr *rp_of;            /* RP(virtual processor variables) */
    int64_t budget;            /* expression nodes still to evaluate for this array (env0.fuel) */
    int box_only;              /* layout=box: no pieces, no ragged range */
    int searched;              /* layout=auto chose, for some array, pieces the exported code searches
                                  (ir_dist_searched) */
} md_ctx;

/* One candidate piece: the accesses it holds, its ranges, and their texts (for merging). */
typedef struct md_piece {
    ir_dist_piece pc;
    int sel[64];
    int nsel;
    char *outer, *last;
    int unsure;                /* its ragged range needs the point check (ragged_last) */
} md_piece;

/* The elements a layout of `npc` pieces P[0 .. npc-1] allocates over all real processors, or -1
 * when it cannot be counted; with `check`, -1 also when some footprint point of F[0 .. nf-1]
 * lies outside it (memdist_size.c). */
int64_t md_layout_size(md_ctx *X, const md_piece *P, int npc, int nd, __isl_keep isl_map *const *F, int nf,
                       int check);

#endif
