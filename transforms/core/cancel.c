/*
 * cancel.c — cooperative cancellation of long transformations (and of the simulations run beside
 * them): one process-wide flag that a signal handler may set.
 *
 * xf_cancel() is async-signal-safe: it sets the flag and asks every live isl context to abort
 * (isl_ctx_abort only sets a field; the isl computation under way then fails at its next
 * operation, so even one long isl call ends).  Transforms check xf_cancelled() in their long loops
 * and give up.  A result computed while the flag was set must not be trusted (an aborted isl call
 * can look like an empty answer): callers discard it.
 */
#include <signal.h>

#include "core_int.h"

enum { MAX_LIVE = 16 };

static volatile sig_atomic_t cancel_flag;
static isl_ctx *volatile live[MAX_LIVE];    /* the contexts of the models being used */

_Static_assert(_Generic((sig_atomic_t)0, int: 1, default: 0), "sig_atomic_t is int (the simulator's cancel)");

void xf_cancel(void)
{
    cancel_flag = 1;
    for (int i = 0; i < MAX_LIVE; i++) {
        isl_ctx *c = live[i];
        if (c) isl_ctx_abort(c);
    }
}

int xf_cancelled(void) { return cancel_flag != 0; }

void xf_cancel_clear(void)
{
    cancel_flag = 0;
    for (int i = 0; i < MAX_LIVE; i++) {
        isl_ctx *c = live[i];
        if (c) isl_ctx_resume(c);
    }
}

volatile int *xf_cancel_flag(void) { return (volatile int *)&cancel_flag; }

/* A context is published before the flag is read: a signal between the two finds it either way. */
void xf_cancel_track(__isl_keep isl_ctx *ctx)
{
    for (int i = 0; i < MAX_LIVE; i++)
        if (!live[i]) { live[i] = ctx; break; }
    if (cancel_flag) isl_ctx_abort(ctx);
}

/* Unpublished before it is freed, so that a signal handler never touches a freed context. */
void xf_cancel_untrack(__isl_keep isl_ctx *ctx)
{
    for (int i = 0; i < MAX_LIVE; i++)
        if (live[i] == ctx) live[i] = NULL;
}
