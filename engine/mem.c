/*
 * mem.c — the bookkeeping allocator (mem.h): allocation that reports and aborts on failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"

void xoom(size_t n)
{
    fprintf(stderr, "polyapm: out of memory (%zu bytes)\n", n);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) xoom(n);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) xoom(n * size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *r = realloc(p, n ? n : 1);
    if (!r) xoom(n);
    return r;
}

char *xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *r = xmalloc(len + 1);
    memcpy(r, s, len);
    r[len] = 0;
    return r;
}

char *xvasprintf(const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (n < 0) xoom(0);
    char *s = xmalloc((size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    return s;
}
