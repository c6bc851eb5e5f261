/*
 * strbuf.c — the growable string (strbuf.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "strbuf.h"

/* Room for `more` bytes and the terminating NUL. */
static void reserve(strbuf *b, size_t more)
{
    if (b->n + more + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + more + 1) cap *= 2;
    b->s = xrealloc(b->s, cap);
    b->cap = cap;
}

void strbuf_vprintf(strbuf *b, const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int k = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (k < 0) return;
    reserve(b, (size_t)k);
    vsnprintf(b->s + b->n, (size_t)k + 1, fmt, ap);
    b->n += (size_t)k;
}

void strbuf_printf(strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    strbuf_vprintf(b, fmt, ap);
    va_end(ap);
}

void strbuf_putn(strbuf *b, const char *s, size_t n)
{
    reserve(b, n);
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
}

void strbuf_puts(strbuf *b, const char *s) { strbuf_putn(b, s, strlen(s)); }

char *strbuf_take(strbuf *b)
{
    char *s = b->s ? b->s : xstrdup("");
    b->s = NULL;
    b->n = b->cap = 0;
    return s;
}

void strbuf_free(strbuf *b)
{
    free(b->s);
    b->s = NULL;
    b->n = b->cap = 0;
}
