/*
 * diag.h — diagnostics: errors as values that carry a position and a message.
 *
 * Every phase (lexer, parser, checker, simulator, store) reports through a diag_list instead of
 * printing or aborting.  A diagnostic names `file:line:col` and says what was expected.  The list
 * owns its strings; diag_list_free releases them.
 */
#ifndef POLYAPM_DIAG_H
#define POLYAPM_DIAG_H

#include <stdio.h>

typedef struct diag {
    char *file;     /* owned; may be NULL for diagnostics without a file */
    int line, col;  /* 1-based; 0 when unknown */
    char *msg;      /* owned */
} diag;

typedef struct diag_list {
    diag *items;
    int n, cap;
    int limit;      /* stop recording after this many (0 = default 50); `dropped` counts the rest */
    int dropped;
} diag_list;

void diag_list_init(diag_list *d);
void diag_list_free(diag_list *d);
/* Records one diagnostic (printf-style message). */
void diag_add(diag_list *d, const char *file, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Number of diagnostics recorded plus dropped. */
int diag_count(const diag_list *d);
/* Prints "file:line:col: error: msg" lines to `out`. */
void diag_print(const diag_list *d, FILE *out);

#endif
