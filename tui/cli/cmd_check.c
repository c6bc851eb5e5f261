/*
 * cmd_check.c — `polyapm check FILE.apm...`: parse and check each program, print every error as
 * file:line:col, and say what each program is when it is well-formed.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cmd_check(int argc, char **argv)
{
    int quiet = 0, nfiles = 0, failed = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-q") == 0) { quiet = 1; continue; }
        if (argv[i][0] == '-' && argv[i][1]) return cli_usage("check", "unknown option '%s'", argv[i]);
        nfiles++;
    }
    if (nfiles == 0) return cli_usage("check", "no file given");
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-q") == 0) continue;
        diag_list d;
        diag_list_init(&d);
        ir_program *p = ir_load_file(argv[i], &d);
        if (!p) {
            if (diag_count(&d) == 0) diag_add(&d, argv[i], 0, 0, "cannot be loaded");
            diag_print(&d, stderr);
            failed = 1;
        } else if (!quiet) {
            printf("%s: ok: program %s, level %s, %d parameters, %d arrays\n", argv[i], p->name,
                   ir_level_name(p->level), p->nparams, p->narrays);
        }
        ir_program_free(p);
        diag_list_free(&d);
    }
    return failed ? CLI_FAIL : CLI_OK;
}
