/*
 * diag.c — the diagnostics list (see diag.h).
 */
#include "diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void diag_list_init(diag_list *d) { memset(d, 0, sizeof *d); }

void diag_list_free(diag_list *d)
{
    for (int i = 0; i < d->n; i++) {
        free(d->items[i].file);
        free(d->items[i].msg);
    }
    free(d->items);
    memset(d, 0, sizeof *d);
}

void diag_add(diag_list *d, const char *file, int line, int col, const char *fmt, ...)
{
    int limit = d->limit > 0 ? d->limit : 50;
    if (d->n >= limit) { d->dropped++; return; }
    if (d->n == d->cap) {
        int cap = d->cap ? d->cap * 2 : 8;
        diag *items = realloc(d->items, (size_t)cap * sizeof *items);
        if (!items) { d->dropped++; return; }
        d->items = items;
        d->cap = cap;
    }
    va_list ap;
    va_start(ap, fmt);
    char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0) msg = NULL;
    va_end(ap);
    if (!msg) { d->dropped++; return; }
    diag *g = &d->items[d->n++];
    g->file = file ? strdup(file) : NULL;
    g->line = line;
    g->col = col;
    g->msg = msg;
}

int diag_count(const diag_list *d) { return d->n + d->dropped; }

void diag_print(const diag_list *d, FILE *out)
{
    for (int i = 0; i < d->n; i++) {
        const diag *g = &d->items[i];
        if (g->file && g->line > 0)
            fprintf(out, "%s:%d:%d: error: %s\n", g->file, g->line, g->col, g->msg);
        else if (g->file)
            fprintf(out, "%s: error: %s\n", g->file, g->msg);
        else
            fprintf(out, "error: %s\n", g->msg);
    }
    if (d->dropped)
        fprintf(out, "(%d more errors not shown)\n", d->dropped);
}
