/*
 * strbuf.h — the one growable string of polyapm: text printed into a buffer (the printer's
 * canonical text, the transforms' isl text and generated programs, the importer's .apm text, the
 * exporter's C).  `strbuf b = {0};` is an empty buffer; b.s is NUL-terminated once anything was
 * written (NULL before).  Growth follows mem.h's bookkeeping rule: it never fails.
 */
#ifndef POLYAPM_STRBUF_H
#define POLYAPM_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

#include "own.h"

typedef struct strbuf {
    char *s;          /* the text (owned), or NULL while empty */
    size_t n, cap;    /* its length; the bytes allocated */
} strbuf;

void strbuf_printf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vprintf(strbuf *b, const char *fmt, va_list ap);
void strbuf_putn(strbuf *b, const char *s, size_t n);
void strbuf_puts(strbuf *b, const char *s);
/* The text (never NULL: "" when empty), the caller's to free; b is empty again. */
own_give char *strbuf_take(strbuf *b);
void strbuf_free(strbuf *b);

#endif
