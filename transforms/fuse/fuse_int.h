/*
 * fuse_int.h — private to the collective-fusion transforms (fuse.c: the rules of Gorlatch et al.,
 * fuse_tuple.c: the reduction fusion of Deitz et al., distlaw.c: the distribution laws of
 * Di Cosmo et al.) and their common machinery (fuse_common.c).
 *
 * The transforms rewrite a checked syncomm/syndm program as text: the program's canonical text
 * is parsed again so that every collective statement sits on one known line; the matched
 * statements' lines are replaced by the generated ones, generated `op` declarations go before
 * the step nest, and the result is parsed and checked (any failure there is an internal error
 * that names the generated text).  Chains are adjacent collective statements of the processor
 * loop's body whose each source block is the previous one's destination block.
 */
#ifndef POLYAPM_FUSE_INT_H
#define POLYAPM_FUSE_INT_H

#ifndef POLYAPM_XF_PRIVATE
#error "fuse_int.h is private to transforms/: include xf.h"
#endif

#include <stdint.h>

#include "cost.h"
#include "ir.h"
#include "mem.h"
#include "strbuf.h"
#include "entries_int.h"

/* The place of a program's collectives. */
typedef struct fz_site {
    ir_program *q;             /* the canonical text parsed again (owned) */
    char *text;                /* the canonical text (owned) */
    char **lines;              /* its lines without newlines (owned) */
    int nlines;
    const ir_stmt *nest;       /* the top-level step nest */
    const ir_block *body;      /* the processor loop's body (the collectives' block) */
    const ir_loopvar *pv;      /* the processor loop variable */
    int64_t *params;           /* parameter values (defaults), nparams */
    int64_t nprocs;            /* processors of the loop at the defaults, or -1 */
} fz_site;

/* Opens the site of a checked program: 0, or -1 with the reason in *why (malloc'd). */
int fz_site_open(fz_site *s, const ir_program *src, own_give char **why);
void fz_site_close(fz_site *s);

/* A collective's statement i of the body, or NULL when it is not one. */
const ir_stmt *fz_coll(const fz_site *s, int i);
/* 1 when the collective has one source and one destination block, no slice, no `_`, no groups
 * (`by`) and is not a multicast. */
int fz_coll_simple(const ir_stmt *c);
/* Source (dst 0) or destination (dst 1) block k of a collective as text, with its range when
 * it has one ("_" for a dropped destination); malloc'd.  Its elements at the defaults, or -1. */
own_give char *fz_coll_block_text(const ir_stmt *c, int dst, int k);
int64_t fz_coll_block_elems(const fz_site *s, const ir_stmt *c, int dst, int k);
/* 1 when block expressions a and b print the same. */
int fz_same_block(const ir_expr *a, const ir_expr *b);
/* The array of a block (IR_E_ACCESS or IR_E_NAME). */
const ir_decl *fz_block_array(const fz_site *s, const ir_expr *blk);
/* Elements of a block at the default parameters; -1 when unknown. */
int64_t fz_block_elems(const fz_site *s, const ir_expr *blk);
/* Dimensions of a block's array after its prefix (0: one element). */
int fz_block_rest_dims(const fz_site *s, const ir_expr *blk);
/* The loop over a block's elements with loop variables vars[] (one per rest dimension):
 * "for v1 = lo .. hi, v2 = .." (NULL when the block is one element), and the element's access
 * "b[rp][v1][v2]".  Both malloc'd. */
own_give char *fz_block_loop_head(const fz_site *s, const ir_expr *blk, const char *const *vars);
own_give char *fz_block_elem(const fz_site *s, const ir_expr *blk, const char *const *vars);

/* 1 when `array` is read outside the statements `skip` (and is not an output). */
int fz_array_read_elsewhere(const fz_site *s, const char *array, const ir_stmt *const *skip, int nskip);
/* A name no declaration, loop variable or operator of the program uses: `base`, base2, .. */
own_give char *fz_fresh_name(const fz_site *s, const char *base, const char *also_taken);

/* Operators.  A `simple` operator is built in, or a user operator with one state field, no
 * `in` tuple and a combine clause. */
int fz_op_simple(const fz_site *s, const ir_opref *op, own_give char **why);
/* The text of a OP b for a simple operator (a and b are expression texts); malloc'd. */
own_give char *fz_op_text(const fz_site *s, const ir_opref *op, const char *a, const char *b);
/* The combine clause of any elementwise operator (user or built in) with the names of its
 * left and right state fields given: the result's field texts (n = the state arity) in vals
 * (each malloc'd).  Returns the state arity, or -1 for an operator with an `in` tuple. */
int fz_op_combine_fields(const fz_site *s, const ir_opref *op, const char *const *left,
                         const char *const *right, own_give char **vals, int max);
/* Clause k of user operator u with its pattern names renamed to pat0[] (and pat1[] for the
 * second pattern) and its lets renamed to prefix + name (kept as lets, so that the operation
 * count stays): appends "name = e" per let to lets and the result's values to vals, each
 * comma-separated.  Returns the number of values, or -1 when u has no such clause. */
int fz_op_clause_text(const fz_site *s, int u, ir_clause_kind k, const char *const *pat0,
                      const char *const *pat1, const char *prefix, strbuf *lets, strbuf *vals);
/* The state arity and the type of field k of an elementwise operator on an array of `elem`. */
int fz_op_arity(const fz_site *s, const ir_opref *op);
ir_type fz_op_field_type(const fz_site *s, const ir_opref *op, int k, ir_type elem);
const char *fz_type_name(ir_type t);

/* Builds the result: lines [first, last] (1-based, inclusive) replaced by `repl` (lines separated
 * by '\n', indented like line `first`), `decls` inserted before the step nest.  Returns the
 * checked program or NULL (internal error in d). */
own_give ir_program *fz_finish(const fz_site *s, const char *xf, int first, int last,
                               const char *repl, const char *decls, diag_list *d);

/* The predicted cost of the collective chain a transform replaces (hockney: log p·(a·t_s +
 * m·(b·t_w + c))): before and after.  Printed by `transforms` under the machine profile. */
typedef struct fz_gain { double before, after; const char *formula; } fz_gain;

/* Text of a prediction "before X, after Y: gain Z" (with a warning when negative); malloc'd. */
own_give char *fz_gain_text(const fz_gain *g, const cost_profile *prof, int64_t m, int64_t p);

#endif
