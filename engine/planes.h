/*
 * planes.h — live time planes, shared by the simulator and the exporter.
 *
 * In a single-assignment program a time dimension grows with the steps (FD's a[0..steps][..][..])
 * but a step reads only the few planes before it.  When dimension d of an array is subscripted
 * floor((t + a) / k) + c (t the time loop's variable; k the same in every access; `t + c` is
 * k = 1) in every access, each access touches plane x in steps k x + lo .. k x + hi only (its
 * a and c, and the residues of t modulo k its guards `(t + a) % m == r` allow: a 2t / 2t + 1
 * schedule's sweeps run at even or odd steps).  Every write touches plane x in one step, k x + w0
 * (the array stays single assignment), no access touches it before, and it lives until the last
 * step any access touches it: W = floor((max hi - w0) / k) + 1 planes suffice, plane x stored at
 * x mod W (FD: W = 2; jacobi-2d written single-assignment and scheduled 2t / 2t + 1: A 2, B 1).
 * A message's delivery touches its plane at the end of the step before its `at`.  Inits may fill
 * planes (constants) that the loop touches before it writes them and that no plane stored in
 * their place touches before; an output must name the last plane written, the plane no other
 * overwrites.  Arrays that a collective names are never folded.
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
    int64_t mark;     /* the plane an output names, or INT64_MIN when no output names one */
    int64_t mark_step;/* the one step that writes plane mark, or INT64_MIN (none named, or several) */
} ir_planes;

/* Does `array` of checked program p (parameter values pv) keep only live planes of a dimension
 * under the time loop variable tv (step 1 or none; bounds constant)?  1 and *out, else 0.  A
 * LOCAL dist must span the whole dimension with offset 0. */
int ir_live_planes(const ir_program *p, const int64_t *pv, int array, const ir_loopvar *tv, ir_planes *out);

/* A time subscript floor((t + a) / k) + c (k >= 1, 0 <= a < k): `t + c`, `t / 2`, `(t - 1) / 2 + 1`,
 * `floor((t + 1) / 2)`, through lets (`let t = tt / 2` ... `a[t + 1]`). */
typedef struct ir_tform { int64_t a, k, c; } ir_tform;
/* The value of each let slot (the let statements of p's body; NULL where none): malloc'd,
 * p->nslots entries, the caller frees it; NULL when out of memory. */
const ir_expr **ir_let_values(const ir_program *p);
/* Is e such a subscript of the loop variable of slot tslot (lets: ir_let_values or NULL)? 1 and *out. */
int ir_time_form(const ir_program *p, const ir_expr *const *lets, const ir_expr *e, int tslot, ir_tform *out);
/* Its value at t. */
int64_t ir_tform_at(const ir_tform *f, int64_t t);

#endif
