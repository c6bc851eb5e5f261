/*
 * cmd_check.c — `polyapm check FILE.apm...`: parse and check each program, print every error as
 * file:line:col, and say what each program is when it is well-formed (-q: only the errors).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct check_args { int quiet; } check_args;

static const cli_opt check_opts[] = {
    {.name = "-q", .kind = OPT_FLAG, .off = offsetof(check_args, quiet),
     .help = "print only the errors (nothing for a good program)"},
    {0},
};

int cmd_check(int argc, char **argv);
const cli_spec cmd_check_spec = {"check", "FILE.apm...", "parse and check programs; report errors as file:line:col",
                                 check_opts, 1, NULL, NULL, cmd_check};

int cmd_check(int argc, char **argv)
{
    check_args a = {0};
    int nfiles = 0, failed = 0;
    int rc = optable_parse(&cmd_check_spec, argc, argv, &a, &nfiles);
    if (rc) return rc;
    int quiet = a.quiet;
    if (nfiles == 0) return cli_usage("check", "no file given");
    for (int i = 1; i <= nfiles; i++) {
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
