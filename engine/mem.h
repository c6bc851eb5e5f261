/*
 * mem.h — the one out-of-memory policy of polyapm.
 *
 * The rule, one for the whole program:
 *   - a function with an error path (it returns a status with a diag_list, or answers the user:
 *     the store, the application services, the commands, the TUI, the simulator's data — arrays,
 *     traces, messages sized by the user's parameters such as `-D n=100000`) reports a failed
 *     allocation through it, as "out of memory" naming what did not fit: the caller recovers, a
 *     workspace stays intact, the TUI keeps running;
 *   - code without one (the IR's arena and printer, the lexer, the checker, the transforms' isl
 *     and text bookkeeping, the importer, the exporter) allocates with xmalloc & co. below, which
 *     report "polyapm: out of memory" and abort: there is no partial state to protect.
 * Never `if (!p) abort();` at a call site: abort happens in one place, xoom.
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
