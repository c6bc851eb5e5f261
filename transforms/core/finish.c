/*
 * finish.c — finishing a transform: the generated program checked (a failure is an internal
 * error that shows the generated text) and named for its new level.
 */
#include <stdlib.h>
#include <string.h>

#include "core_int.h"

int xf_check_generated(const char *xf, ir_program *p, diag_list *d)
{
    p->checked = 0;
    diag_list cd;
    diag_list_init(&cd);
    int rc = 0;
    if (ir_check(p, &cd) != 0) {
        char *txt = ir_print(p);
        diag_add(d, NULL, 0, 0, "%s: internal error: the generated program does not check:", xf);
        for (int i = 0; i < cd.n; i++)
            diag_add(d, NULL, cd.items[i].line, cd.items[i].col, "  %s", cd.items[i].msg);
        diag_add(d, NULL, 0, 0, "generated text:\n%s", txt ? txt : "");
        free(txt);
        ir_program_free(p);
        rc = -1;
    }
    diag_list_free(&cd);
    return rc;
}

void xf_rename_for_level(ir_program *p, const ir_program *src, const char *from, const char *to)
{
    const char *nm0 = src->name;
    size_t L = strlen(nm0), F = strlen(from);
    char *nm = L > F + 1 && nm0[L - F - 1] == '_' && !strcmp(nm0 + L - F, from)
                   ? xasprintf("%.*s_%s", (int)(L - F - 1), nm0, to)
                   : xasprintf("%s_%s", nm0, to);
    p->name = ir_strdup(p, nm);
    free(nm);
}
