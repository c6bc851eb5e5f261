/*
 * planes.h — live time planes, shared by the simulator and the exporter.
 *
 * In a single-assignment program a time dimension grows with the steps (FD's a[0..steps][..][..])
 * but a step reads only the few planes before it.  When dimension d of an array is subscripted
 * `t + c` (t the time loop's variable, c a constant) in every access — writes all at one c = cw,
 * reads at cmin .. cw — step t needs only planes t + cmin .. t + cw: W = cw - cmin + 1 of them,
 * plane x stored at (x - lo) mod W.  Inits may fill planes tlo + cmin .. tlo + cw - 1 (constants)
 * and an output must name the last plane written, thi + cw.  A message must arrive while its
 * plane is live: sent at t for step t + k into plane t + c, k <= c - cmin + 1 (FD: k = 1, c = 0,
 * cmin = -1).  Arrays that a collective names are never folded.
 *
 * The access walker is what the analysis (and the exporter's other scans) use to see every array
 * access of a block: assignments (write = 1 for a left-hand side), lets, conditions, loop bounds,
 * sends (the sent element; with `as`, once more with send_as = 1 and the receiver's subscripts)
 * and collectives' blocks (accesses, or the bare array name of a 0-d or whole-array block).
 */
#ifndef POLYAPM_PLANES_H
#define POLYAPM_PLANES_H

#include <stdint.h>

#include "ir.h"

typedef void (*ir_access_fn)(void *ctx, const ir_expr *acc, int write, int send_as, const ir_expr *const *as);
void ir_expr_accesses(const ir_expr *e, ir_access_fn fn, void *ctx);
void ir_block_accesses(const ir_block *b, ir_access_fn fn, void *ctx);

/* Is e `t + c` (t the loop variable of slot tslot, c an integer constant)?  1 and *c, else 0. */
int ir_time_sub(const ir_expr *e, int tslot, int64_t *c);

typedef struct ir_planes {
    int dim;          /* the folded dimension */
    int64_t w;        /* live planes */
    int64_t cw;       /* step t writes plane t + cw */
    int64_t mark;     /* the plane an output names, or INT64_MIN when no output names one */
} ir_planes;

/* Does `array` of checked program p (parameter values pv) keep only live planes of a dimension
 * under the time loop variable tv (step 1 or none; bounds constant)?  1 and *out, else 0.  A
 * LOCAL dist must span the whole dimension with offset 0. */
int ir_live_planes(const ir_program *p, const int64_t *pv, int array, const ir_loopvar *tv, ir_planes *out);

#endif
