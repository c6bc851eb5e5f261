/*
 * buf.c — growable strings for the transforms: a buffer printed into, and the two one-shot
 * forms (a copy, a formatted string).  Out of memory aborts (see core_int.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_int.h"

void xf_buf_vprintf(xf_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int k = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (k < 0) return;
    if (b->n + (size_t)k + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->n + (size_t)k + 1) cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) abort();
        b->s = s;
        b->cap = cap;
    }
    vsnprintf(b->s + b->n, (size_t)k + 1, fmt, ap);
    b->n += (size_t)k;
}

void xf_buf_printf(xf_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    xf_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

char *xf_buf_take(xf_buf *b)
{
    char *s = b->s ? b->s : xf_strdup("");
    b->s = NULL;
    b->n = b->cap = 0;
    return s;
}

void xf_buf_free(xf_buf *b)
{
    free(b->s);
    b->s = NULL;
    b->n = b->cap = 0;
}

char *xf_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *r = malloc(n);
    if (!r) abort();
    memcpy(r, s, n);
    return r;
}

char *xf_asprintf(const char *fmt, ...)
{
    xf_buf b = {0};
    va_list ap;
    va_start(ap, fmt);
    xf_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    return xf_buf_take(&b);
}
