/*
 * stm_int.h — private to the space-time mapping family (stm.c: one mapping, stm_names.c: the
 * names of its step body, stm_nest.c: its time and processor loops,
 * stm_private.c: scratch scalars private to each processor, stm_auto.c: the candidates
 * and their order, stm_isl.c: mappings from isl's multi-dimensional schedules, stm_memo.c: the
 * programs of the mappings generated lately).
 */
#ifndef POLYAPM_STM_INT_H
#define POLYAPM_STM_INT_H

#ifndef POLYAPM_XF_PRIVATE
#error "stm_int.h is private to transforms/: include xf.h"
#endif

#include "poly_int.h"

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

/* The programs of the mappings generated lately (stm_memo.c), by their source (the key
 * xf_stm_memo_source makes of the program and its parameter overrides: a fresh string) and
 * arguments: a checked copy (the file name src's) or NULL; put keeps a copy of `out`. */
own_give char *xf_stm_memo_source(const ir_program *src, const ir_binding *ov, int nov);
own_give ir_program *xf_stm_memo_get(const char *source, const xf_args *args, const ir_program *src,
                                     diag_list *d);
void xf_stm_memo_put(const char *source, const xf_args *args, const ir_program *out);

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
/* The affine function of a parametric extreme that is one piece (valid wherever the statements
 * have instances), else NULL; takes pa (stm_isl.c). */
__isl_give isl_aff *xf_stm_single_aff(__isl_take isl_pw_aff *pa);
/* Owner alignment (stm_align.c): a statement whose written array the other statements
 * distribute along one of its dimensions runs where its element lies; replaces sg[s] (owned)
 * where it changes; returns how many it changed. */
int xf_stm_align_owners(const xf_model *m, __isl_keep isl_aff **sg);
/* Whether some statement reads each element of an array once that a statement of an earlier
 * phase (grp[s]: its top-level nest) writes: what read alignment needs to move anything
 * (stm_align.c; the phases are not composed again otherwise). */
int xf_stm_may_follow(const xf_model *m, const int *grp);
/* Read alignment (stm_align.c): the statements of phase g (grp[s] == g) that read each element
 * of an array an earlier phase distributes along another subscript move to their data, pipelined
 * (sigma = theta = that subscript); replaces th[s], sg[s] (owned); returns how many moved. */
int xf_stm_align_reads(const xf_model *m, const int *grp, int g, __isl_keep isl_aff **th,
                       __isl_keep isl_aff **sg);
/* Keeps the first `max` of c[0 .. n-1] (sorted best first) and besides them up to two that
 * follow their reads (xf_stm_cand.follows), in order; frees the others' texts; returns how many. */
int xf_stm_keep(xf_stm_cand *c, int n, int max);
/* Every identifier the block uses (loop variables, lets, reduction variables, names), appended
 * to *v (its strings borrowed from the program; the array grown with realloc) (stm_names.c). */
void xf_stm_names(const ir_block *b, const char ***v, int *n);
/* Makes the step body `body` of p define each name once per scope: a second binding of a name
 * with the same value is dropped, with another value renamed (i_2) in the rest of its scope;
 * tname and pname are bound around it, src's names are taken (stm_names.c). */
void xf_stm_unclash(ir_program *p, const ir_program *src, const char *tname, const char *pname,
                    ir_block *body);
/* The step nest's loops (lv[0] time, lv[1] processors) over the points `enumd` (kept) of a mapping
 * whose image has the hull `hull` (kept), under m's parameters: for a 1-D allocation (nsig 1) the
 * hull's two loops; for a 2-D one the hull's time range and pname = 0 .. W1 * W2 - 1 with
 * s1 = lo1 + pname / W2, s2 = lo2 + pname % W2 (to_expr[1], to_expr[2], which rn then uses).
 * 1, or 0 when isl's loops are not two loop variables of the language (stm_nest.c). */
int xf_stm_step_nest(const xf_model *m, int nsig, const char *pname, ir_program *p,
                     __isl_keep isl_set *hull, __isl_keep isl_set *enumd, xf_rename *rn,
                     const ir_expr **to_expr, ir_loopvar *lv);
/* The polyhedral hull of a mapping's image `img` (taken) under m's context (stm_nest.c). */
__isl_give isl_set *xf_stm_image_hull(const xf_model *m, __isl_take isl_set *img);
/* An isl pw_aff of the parameters as an IR expression of p, or NULL (stm_nest.c). */
ir_expr *xf_stm_pw_expr(ir_program *p, __isl_take isl_set *ctxset, __isl_take isl_pw_aff *pa);

/* Scratch scalars and arrays private to each processor (stm_private.c).  The array an anti or
 * output dependence goes through when it may be private (not an output; NULL otherwise;
 * borrowed). */
const char *xf_stm_private_candidate(const xf_model *m, const xf_rawdep *d);
/* Does every flow dependence through the arrays names[0..n-1] join two instances on one
 * processor under the maps st[s] (S[..] -> [t, p], kept)?  1, or 0 with *bad (when not NULL) the
 * index of the first dependence that does not. */
int xf_stm_private_flows(const xf_model *m, const xf_rawdep *r, int nr, const char *const *names, int n,
                         __isl_keep isl_map *const *st, int *bad);
/* The arrays names[0..n-1] of p with a first dimension [lo .. hi] indexed by the processor
 * variable pname in the step body `body` (their inits alike: every copy starts as the array
 * did).  0. */
int xf_stm_expand(ir_program *p, const char *const *names, int n, const char *pname, const ir_expr *lo,
                  const ir_expr *hi, ir_block *body);
/* stm auto's order of candidates (qsort): see xf_stm_candidates. */
int xf_stm_cand_cmp(const void *a, const void *b);

#endif
