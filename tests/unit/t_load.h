/*
 * t_load.h — loading the project's .apm files in unit tests: paths relative to the checkout
 * ($ROOT, default "."); a file that does not load is a FAIL line with its diagnostics.
 */
#ifndef POLYAPM_T_LOAD_H
#define POLYAPM_T_LOAD_H
#include <stdlib.h>

#include "ir.h"
#include "t.h"

static ir_program *t_load(const char *rel)
{
    const char *root = getenv("ROOT");
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", root && *root ? root : ".", rel);
    diag_list d;
    diag_list_init(&d);
    ir_program *p = ir_load_file(path, &d);
    if (!p) {
        printf("FAIL load %s:\n", rel);
        diag_print(&d, stdout);
        t_failed = 1;
    }
    diag_list_free(&d);
    return p;
}
#endif
