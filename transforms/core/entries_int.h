/*
 * entries_int.h — private to transforms/: the entry points of every transform (applicable,
 * apply and, where a transform predicts its gain, predict), defined in the family folders and
 * tabled once in registry.c.
 */
#ifndef POLYAPM_ENTRIES_INT_H
#define POLYAPM_ENTRIES_INT_H

#ifndef POLYAPM_XF_PRIVATE
#error "entries_int.h is private to transforms/: include xf.h"
#endif

#include "core_int.h"

int xf_stm_applicable(const ir_program *p, own_give char **why_not);
own_give ir_program *xf_stm_apply(const ir_program *src, const xf_args *args, diag_list *d, int *status);
/* `stm auto [pick=K]`: applies the K-th best candidate (default 1). */
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

int xf_redist_applicable(const ir_program *p, own_give char **why_not);
own_give ir_program *xf_redist_apply(const ir_program *src, const xf_args *args,
                                     diag_list *d, int *status);

int xf_relcoord_applicable(const ir_program *p, own_give char **why_not);
own_give ir_program *xf_relcoord_apply(const ir_program *src, const xf_args *args,
                                       diag_list *d, int *status);

/* Locality inside a processor's step (local/): interchange, distribution, tiling. */
int xf_local_applicable(const ir_program *p, own_give char **why_not);
own_give ir_program *xf_local_apply(const ir_program *src, const xf_args *args, diag_list *d, int *status);

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

#endif
