/*
 * main.c — the `polyapm` command: dispatches a subcommand through the command table, or opens
 * the TUI when given a file or workspace (or nothing).
 *
 * Every subcommand is one row here and a cli_spec in its tui/cli/cmd_*.c file (its options, from
 * which its synopsis and `polyapm NAME --help` are generated).  Exit status: 0 ok, 1 failure,
 * 2 usage.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "store.h"
#include "../tui_entry.h"

/* Every command's spec (its options, synopsis, summary and function), in --help order; each is
 * defined next to its command. */
extern const cli_spec cmd_check_spec, cmd_fmt_spec, cmd_sim_spec, cmd_sim_node_spec, cmd_import_spec;
/* the transforms (cmd_xf.c) and exported programs (cmd_export.c) */
extern const cli_spec cmd_deps_spec, cmd_transforms_spec, cmd_apply_spec, cmd_export_spec, cmd_run_spec;
/* the workspace (cmd_store.c) */
extern const cli_spec cmd_init_spec, cmd_add_spec, cmd_tree_spec, cmd_show_spec, cmd_log_spec, cmd_diff_spec,
    cmd_mark_spec, cmd_note_spec, cmd_label_spec, cmd_rm_spec, cmd_fsck_spec;
/* machines, measurements, searches */
extern const cli_spec cmd_calibrate_spec, cmd_measure_spec, cmd_sweep_spec, cmd_compare_spec, cmd_explore_spec;
/* derivations replayed and scripted (cmd_replay.c); SimGrid platforms (cmd_platform.c) */
extern const cli_spec cmd_replay_spec, cmd_script_spec, cmd_platform_spec;

static const cli_spec *const commands[] = {
    &cmd_check_spec, &cmd_fmt_spec, &cmd_sim_spec, &cmd_import_spec, &cmd_deps_spec, &cmd_transforms_spec, &cmd_apply_spec,
    &cmd_export_spec, &cmd_run_spec, &cmd_init_spec, &cmd_add_spec, &cmd_tree_spec, &cmd_show_spec,
    &cmd_log_spec, &cmd_diff_spec, &cmd_mark_spec, &cmd_note_spec, &cmd_label_spec, &cmd_rm_spec,
    &cmd_calibrate_spec, &cmd_measure_spec, &cmd_sweep_spec, &cmd_compare_spec, &cmd_explore_spec,
    &cmd_replay_spec, &cmd_script_spec, &cmd_platform_spec, &cmd_fsck_spec,
};
enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

#define POLYAPM_VERSION "0.1.0"

static const cli_spec *find(const char *name)
{
    for (int i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i]->name, name) == 0) return commands[i];
    return NULL;
}

static void print_help(FILE *out)
{
    fprintf(out, "usage: polyapm [-w NAME.pdg] COMMAND [ARGS...]\n"
                 "       polyapm [FILE.apm | NAME.pdg] [-D name=value]... [--machine M] [--model M]\n"
                 "       polyapm FILE.c [import's options] [--machine M] [--model M]\n"
                 "       polyapm --help | --version\n"
                 "       polyapm COMMAND --help    (or polyapm help COMMAND: its options)\n\n"
                 "A workbench for deriving parallel programs on Abstract Parallel Machines.\n\n"
                 "Without a command it opens the TUI: on FILE.apm or FILE.c (its workspace FILE.pdg next\n"
                 "to it is created, a C file imported as by import, or reopened), on a workspace, or on\n"
                 "the workspace of the current directory.\n"
                 "-w NAME.pdg names the workspace of the commands that use one (default: the\n"
                 "$POLYAPM_WORKSPACE variable, then the current directory or the one above it).\n\n"
                 "commands:\n");
    for (int i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(out, "\nsynopsis (polyapm COMMAND --help: what each option does):\n");
    for (int i = 0; i < NCOMMANDS; i++) {
        optable_synopsis(out, commands[i], "  ");
        if (commands[i]->other) optable_synopsis(out, commands[i]->other, "  ");
    }
    fprintf(out, "\nexit status: 0 ok, 1 failure, 2 usage.  See polyapm(1), polyapm-lang(5).\n");
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "polyapm %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    const cli_spec *spec = find(cmd);
    if (spec) {
        optable_synopsis(stderr, spec, "usage: ");
        if (spec->other) optable_synopsis(stderr, spec->other, "       ");
    }
    return CLI_USAGE;
}

int cli_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "polyapm: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    return CLI_FAIL;
}

int main(int argc, char **argv)
{
    /* `polyapm -w NAME.pdg COMMAND ...`: the workspace for every command that uses one */
    while (argc >= 3 && strcmp(argv[1], "-w") == 0) {
        setenv("POLYAPM_WORKSPACE", argv[2], 1);
        argv[2] = argv[0];
        argc -= 2;
        argv += 2;
    }
    if (argc < 2) {
        /* In (or next to) a workspace: the TUI; elsewhere: usage. */
        diag_list d;
        diag_list_init(&d);
        char *ws = store_find(NULL, &d);
        diag_list_free(&d);
        if (!ws) { print_help(stderr); return CLI_USAGE; }
        int rc = tui_main(ws, 0, NULL);
        free(ws);
        return rc;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        /* `polyapm help COMMAND`: that command's help */
        const cli_spec *spec = argc > 2 && strcmp(name, "help") == 0 ? find(argv[2]) : NULL;
        if (argc > 2 && strcmp(name, "help") == 0 && !spec) {
            fprintf(stderr, "polyapm: unknown command '%s' (see polyapm --help)\n", argv[2]);
            return CLI_USAGE;
        }
        if (spec) optable_help(stdout, spec);
        else print_help(stdout);
        return CLI_OK;
    }
    if (strcmp(name, "--version") == 0) { printf("polyapm %s\n", POLYAPM_VERSION); return CLI_OK; }
    const cli_spec *spec = find(name);
    if (spec && optable_wants_help(spec, argc - 1, argv + 1)) {
        optable_help(stdout, spec);
        return CLI_OK;
    }
    if (spec) return spec->run(argc - 1, argv + 1);
    /* FILE.apm or a workspace directory: the TUI (options after it). */
    size_t nl = strlen(name);
    if ((nl > 4 && strcmp(name + nl - 4, ".apm") == 0) || store_is_workspace(name))
        return tui_main(name, argc - 2, argv + 2);
    if (nl > 4 && strcmp(name + nl - 4, ".pdg") == 0) {
        fprintf(stderr, "polyapm: %s: not a workspace (polyapm FILE.apm creates one)\n", name);
        return CLI_FAIL;
    }
    if (nl > 2 && strcmp(name + nl - 2, ".c") == 0) return cli_open_c(name, argc - 2, argv + 2);
    fprintf(stderr, "polyapm: unknown command '%s' (see polyapm --help)\n", name);
    return CLI_USAGE;
}
