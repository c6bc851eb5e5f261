/*
 * local_int.h — private to transforms/local/: the locality transform inside one processor's step
 * (`local`: loop interchange to unit stride, distribution, tiling).  local.c reads the
 * arguments and walks the processor body; local_model.c builds the polyhedral model of one loop
 * nest of it (the names bound outside the nest are parameters: one processor, one step);
 * local_tree.c holds the nest as a tree of loops and rewrites it (distribution, a band's new
 * order and tiles) and writes each statement's new schedule; local_gen.c checks that schedule
 * against every dependence and turns isl's AST of it back into the language.
 */
#ifndef POLYAPM_LOCAL_INT_H
#define POLYAPM_LOCAL_INT_H

#ifndef POLYAPM_XF_PRIVATE
#error "local_int.h is private to transforms/: include xf.h"
#endif

#include "poly_int.h"

/* ---- one loop nest of the processor body, modelled (local_model.c) ----------------------------- */

typedef struct lx_nest {
    ir_program *out;           /* the program being built (not owned) */
    ir_stmt *orig;             /* the nest's `for` in out (replaced when the nest changes) */
    ir_program *scratch;       /* owned: a source-level program holding a copy of the nest */
    xf_model *m;               /* owned: the model of the copy; outer names are parameters */
    xf_rawdep *dep;            /* owned: its dependences (flow, anti, output) */
    int ndep;
    /* the copy's statements (loops, lets, assignments) and the originals they copy */
    const ir_stmt **copy, **from;
    int npairs;
    /* parameters that stand for an expression of outer names isl cannot read (`rp * b`) */
    char **qname;              /* owned: their names */
    const ir_expr **qexpr;     /* the expressions, in out */
    int nq;
} lx_nest;

/* What stands around a nest, outer first: the step's loops (one variable each), its lets and the
 * conditions the nest stands under (the then or else branch). */
typedef enum lx_outer_kind { LX_O_LOOP, LX_O_LET, LX_O_THEN, LX_O_ELSE } lx_outer_kind;
typedef struct lx_outer { lx_outer_kind kind; const ir_stmt *s; int var; } lx_outer;

/* Models the nest `orig` of `out`, under `outer` (what the model's context knows of the names
 * bound there, where affine).  0, or -1 with the reason in *why (malloc'd): a collective inside,
 * an annotated block, a data-dependent condition, a nest tiled already; -2 when isl cannot model
 * its loops (bounds or steps not affine): the nests inside its top loop may be modelled, that
 * loop's variable fixed. */
int lx_nest_model(lx_nest *n, ir_program *out, ir_stmt *orig, const lx_outer *outer, int nouter,
                  own_give char **why);
void lx_nest_free(lx_nest *n);
/* The original of a statement of the copy (NULL when it is none of the nest's). */
const ir_stmt *lx_nest_orig(const lx_nest *n, const ir_stmt *copy);
/* Does subscript `dim` of access `acc` move with loop variable `var` (an index into its
 * statement's model variables)?  1 yes, 0 no, -1 not known (not affine). */
int lx_access_moves(const lx_nest *n, int acc, int dim, int var);
/* The number of subscripts of access acc. */
int lx_access_dims(const lx_nest *n, int acc);

/* ---- the tree of loops (local_tree.c) ---------------------------------------------------------- */

typedef enum lx_kind { LX_SEQ, LX_LOOP, LX_BAND, LX_LEAF } lx_kind;

enum { LX_MAX_BAND = 8 };

typedef struct lx_node lx_node;
struct lx_node {
    lx_kind kind;
    int stmt;                  /* LX_LEAF: the model's statement */
    const char *var;           /* LX_LOOP: its variable (IR name) */
    int tiled;                 /* LX_LOOP: a tile's loop (a step) or point loop (j = jt .. jt + 31) */
    /* LX_BAND: a perfect nest of loops run in a new order, tiled: vars outer to inner, and per
     * variable its tile size (0: not tiled) and the name of its tile loop */
    const char *bvar[LX_MAX_BAND];
    int tile[LX_MAX_BAND];
    const char *tname[LX_MAX_BAND];
    int nb;
    /* LX_BAND: jam > 1 runs `jam` turns of its loop bvar[jvar] together (that loop in steps of
     * jam, named jname[jvar], and a loop over the turns innermost, which the exporter unrolls:
     * ir_jam_loop) */
    int jam, jvar;
    const char *jname[LX_MAX_BAND];
    /* LX_BAND, jammed: regs > 1 runs its innermost loop in register tiles of that many, a loop
     * over them (named rname, in steps of regs) before its next loop but one (gemm's
     * `pj, jr, k, j, p`: each statement's element stays in place across the loop over k, which
     * the exporter keeps in registers; lx_regs_band) */
    int regs;
    const char *rname;
    lx_node **kids;            /* LX_SEQ, LX_LOOP, LX_BAND: in order */
    int nkids;
};

/* Every node of a tree, to free them at once. */
typedef struct lx_pool { lx_node **all; int n, cap; } lx_pool;

/* The tree of the nest's copy: a LX_SEQ root with the nest's loops; lets and ifs are not nodes
 * (their conditions are in the domains, lets are each statement's). */
lx_node *lx_tree_build(lx_pool *pool, const lx_nest *n);
lx_node *lx_tree_copy(lx_pool *pool, const lx_node *t);
void lx_pool_free(lx_pool *pool);

/* A chain of loops, each the child of the one before: outer to inner. */
typedef struct lx_chain { lx_node *loop[LX_MAX_BAND]; int n; } lx_chain;

/* The chains from the top of the tree down to each innermost loop (a loop without loops
 * inside); at most max.  Their number. */
int lx_chains(lx_node *root, lx_chain *out, int max);
/* Makes the chain's loops a perfect nest (each loop's other statements distributed into loops
 * of their own, before and after) running `order` (the chain's variables, a permutation): its
 * loops relabelled when no tile size is above 1 (it stays a chain), else replaced by a band with
 * tile sizes `tile` (0: none), tile loops named `tname`.  The chain's last loop must be in
 * `root` (the others may have been copies, distributed since).  0, or -1 when it is not. */
int lx_make_band(lx_pool *pool, lx_node *root, const lx_chain *c, const char *const *order,
                 const int *tile, const char *const *tname);
/* The statements of the chain's innermost loop that `move` says (called with `arg` and the
 * model's index) leave it for a copy of the chain's loops after its top loop, when some stay:
 * 3mm's sends of E[i][j] at k = nk - 1 out of the loop that accumulates it, which then jams.
 * Their number (0: none moved). */
int lx_split_leaves(lx_pool *pool, lx_node *root, const lx_chain *c, int (*move)(const void *arg, int stmt),
                    const void *arg);
/* Does band t run register tiles (regs > 1, jammed, a loop between its group loop and its
 * innermost)? */
int lx_regs_band(const lx_node *t);
/* The statements under node t (their model indices into out[], at most max).  Their number. */
int lx_leaves(const lx_node *t, int *out, int max);

/* Statement s's schedule under the tree, padded to `len` dimensions: isl text of its
 * dimensions into dims[0 .. len) (malloc'd each), and per dimension the loop variable it runs
 * (the statement's variable or a tile loop's name) or NULL for a constant (role[]).  The
 * schedule's length when dims is NULL. */
int lx_schedule(const lx_nest *n, const lx_node *root, int s, int len, char **dims, const char **role);

/* ---- checking and generating (local_gen.c) ----------------------------------------------------- */

/* Checks that the tree's schedule keeps every dependence of the nest: 0, or -1 with *why
 * (malloc'd) naming the first dependence it would break, with an example.  `what` names the
 * change for the message ("order=k,j"). */
int lx_check(const lx_nest *n, const lx_node *root, const char *what, own_give char **why);
/* The code of the nest under the tree's schedule, statements in out's arena, replacing n->orig
 * where it stands in `blk` at `idx`.  0, or -1 with *why; LX_REJAM (with *why) when a jammed
 * band's rows would not run in loops the exporter unrolls (ir_jam_loop), or a band's register
 * tiles would not be ir_regs_tile_of's: those bands' jams or register tiles are undone in root,
 * to generate again. */
enum { LX_REJAM = -3 };
int lx_generate(lx_nest *n, lx_node *root, ir_block *blk, int idx, own_give char **why);

#endif
