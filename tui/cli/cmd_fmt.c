/*
 * cmd_fmt.c — `polyapm fmt [-w|--check] FILE.apm...`: the canonical form of each program.
 * Without options it prints to stdout; -w rewrites each file (atomically, only when it changes);
 * --check exits 1 when a file is not in canonical form.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "textfile.h"

typedef struct fmt_args { int write, check; } fmt_args;

static const cli_opt fmt_opts[] = {
    {.name = "-w", .kind = OPT_FLAG, .off = offsetof(fmt_args, write),
     .help = "rewrite each file in canonical form (only when it changes)"},
    {.name = "--check", .kind = OPT_FLAG, .off = offsetof(fmt_args, check),
     .help = "name the files not in canonical form (exit 1 if any)"},
    {0},
};

int cmd_fmt(int argc, char **argv);
const cli_spec cmd_fmt_spec = {"fmt", "FILE.apm...", "print the canonical form (-w: rewrite the files)", fmt_opts, 1,
                               NULL, NULL, cmd_fmt};

int cmd_fmt(int argc, char **argv)
{
    fmt_args a = {0, 0};
    int nfiles = 0, status = CLI_OK;
    int rc = optable_parse(&cmd_fmt_spec, argc, argv, &a, &nfiles);
    if (rc) return rc;
    int write = a.write, check = a.check;
    if (nfiles == 0) return cli_usage("fmt", "no file given");
    if (write && check) return cli_usage("fmt", "-w and --check exclude each other");
    for (int i = 1; i <= nfiles; i++) {
        diag_list d;
        diag_list_init(&d);
        ir_program *p = ir_load_file(argv[i], &d);
        if (!p) {
            diag_print(&d, stderr);
            diag_list_free(&d);
            status = CLI_FAIL;
            continue;
        }
        char *text = ir_print(p);
        size_t len = 0;
        char *old = (write || check) ? textfile_read(argv[i], "a program file", (size_t)1 << 24, &len, &d) : NULL;
        int same = old && len == strlen(text) && memcmp(old, text, len) == 0;
        if (check) {
            if (!same) { printf("%s: not in canonical form\n", argv[i]); status = CLI_FAIL; }
        } else if (write) {
            if (!same && textfile_write(argv[i], ".fmt-tmp", text) != 0) {
                status = cli_fail("%s: cannot write", argv[i]);
            }
        } else {
            fputs(text, stdout);
        }
        free(old);
        free(text);
        ir_program_free(p);
        diag_list_free(&d);
    }
    return status;
}
