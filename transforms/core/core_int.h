/*
 * core_int.h — private to transforms/: what every family of transforms shares — growable
 * strings, finishing a transform (checking and naming what it generated), cancellation of isl
 * computations, and the integer parameters of a transform.  Each family has its own private
 * header beside its files; none of them is reachable from outside transforms/ (the Makefile
 * gives only transforms/ the paths and the POLYAPM_XF_PRIVATE switch).
 */
#ifndef POLYAPM_CORE_INT_H
#define POLYAPM_CORE_INT_H

#ifndef POLYAPM_XF_PRIVATE
#error "core_int.h is private to transforms/: include xf.h"
#endif

#include <stdarg.h>
#include <stdint.h>

#include <isl/ctx.h>

#include "ir.h"
#include "mem.h"
#include "strbuf.h"
#include "xf.h"

/* ---- finishing a transform ------------------------------------------------------------------- */

/* Checks a generated program.  0 when it checks; otherwise -1, the checker's messages and the
 * generated text reported in `d` as an internal error of transform `xf`, and `p` freed. */
int xf_check_generated(const char *xf, ir_program *p, diag_list *d);
/* Renames `p` after `src` for its new level: NAME_from becomes NAME_to, another NAME gets _to. */
void xf_rename_for_level(ir_program *p, const ir_program *src, const char *from, const char *to);

/* ---- cancellation (cancel.c) ---------------------------------------------------------------- */

/* Every isl context in use is tracked, so that xf_cancel() can abort its computations. */
void xf_cancel_track(__isl_keep isl_ctx *ctx);
void xf_cancel_untrack(__isl_keep isl_ctx *ctx);
/* ---- integer parameters (args.c) ------------------------------------------------------------ */

/* An integer parameter of a transform whose arguments are all such (the placements): `name=`,
 * a value in min .. max stored in *value (left as it is when absent); `hint` (may be NULL) ends
 * the message of a value out of range. */
typedef struct xf_int_param {
    const char *name;
    int64_t min, max;
    int64_t *value;
    const char *hint;
} xf_int_param;
/* Reads args into the n parameters ps of transform `xf`: 0, or -1 with a message (a key that is
 * none of them or carries a label, a value that is not an integer in range). */
int xf_args_ints(const xf_args *args, const char *xf, const xf_int_param *ps, int n, diag_list *d);

#endif
