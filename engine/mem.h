/*
 * mem.h — the one out-of-memory policy of polyapm.
 *
 * Two kinds of allocation, two rules:
 *   - bookkeeping (strings, program nodes, lists, tables, buffers of text): its size follows the
 *     program's text, not its data, and failing it leaves nothing sensible to do.  It goes through
 *     xmalloc/xcalloc/xrealloc/xstrdup/xasprintf, which on failure print "polyapm: out of memory"
 *     and abort; no caller checks for NULL.
 *   - data (arrays, traces, message queues, planes: sizes the user's parameters decide, such as
 *     `-D n=100000`): allocated with malloc/calloc and checked, the failure reported as an error
 *     value (a diagnostic or a violation naming what did not fit), so that a too-large size is
 *     an error of the run, never a crash.
 * The runtime of exported programs (runtime/) has its own rule: rt_abort with the rank.
 */
#ifndef POLYAPM_MEM_H
#define POLYAPM_MEM_H

#include <stdarg.h>
#include <stddef.h>

#include "own.h"

own_give void *xmalloc(size_t n);
own_give void *xcalloc(size_t n, size_t size);
/* p (taken) resized to n bytes (n == 0 keeps one byte, never returns NULL). */
own_give void *xrealloc(own_take void *p, size_t n);
own_give char *xstrdup(const char *s);
own_give char *xstrndup(const char *s, size_t n);
own_give char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
own_give char *xvasprintf(const char *fmt, va_list ap);
/* Reports the failure to allocate n bytes and aborts (for code that cannot use the above). */
_Noreturn void xoom(size_t n);

#endif
