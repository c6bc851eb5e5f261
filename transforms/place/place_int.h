/*
 * place_int.h — private to communication placement (place_overlap.c, place_aggregate.c,
 * place_ghost.c, place_choice.c): candidate placements, their simulation and price, buffer
 * safety's fallback.
 */
#ifndef POLYAPM_PLACE_INT_H
#define POLYAPM_PLACE_INT_H

#ifndef POLYAPM_XF_PRIVATE
#error "place_int.h is private to transforms/: include xf.h"
#endif

#include "poly_int.h"

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

#endif
