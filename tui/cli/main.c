/*
 * main.c — the `polyapm` command: dispatches a subcommand through the command table, or opens
 * the TUI when given a file or workspace (or nothing).
 *
 * Every subcommand is one row here and one tui/cmd_*.c file.  Exit status: 0 ok, 1 failure,
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

int cmd_check(int argc, char **argv);
int cmd_fmt(int argc, char **argv);
int cmd_sim(int argc, char **argv);
/* the workspace (tui/cmd_store.c) */
int cmd_init(int argc, char **argv);
int cmd_add(int argc, char **argv);
int cmd_tree(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_log(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_mark(int argc, char **argv);
int cmd_note(int argc, char **argv);
int cmd_label(int argc, char **argv);
int cmd_rm(int argc, char **argv);
int cmd_fsck(int argc, char **argv);
/* the transforms (tui/cmd_xf.c) */
int cmd_deps(int argc, char **argv);
int cmd_transforms(int argc, char **argv);
int cmd_apply(int argc, char **argv);
/* exported programs (tui/cmd_export.c) */
int cmd_export(int argc, char **argv);
int cmd_run(int argc, char **argv);
/* machines, measurements, searches */
int cmd_calibrate(int argc, char **argv);
int cmd_measure(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_explore(int argc, char **argv);

static const cli_command commands[] = {
    {"check", cmd_check, "FILE.apm...", "parse and check programs; report errors as file:line:col"},
    {"fmt", cmd_fmt, "[-w] FILE.apm...", "print the canonical form (-w: rewrite the files)"},
    {"sim", cmd_sim, "FILE.apm|NODE [-D name=value]... [--machine M] [--model polyapm|bsp|hockney]\n"
                     "        [--against SRC] [--set key=value]... [--trace] [--json] [--all-planes]",
     "simulate on the program's APM level, verify against the source, report the cost"},
    {"deps", cmd_deps, "FILE.apm|NODE [-D name=value]... [--fixed] [--json]",
     "the dependences between statement instances (flow; anti/output where memory is reused)"},
    {"transforms", cmd_transforms, "FILE.apm|NODE [--machine M] [--json]",
     "the transforms that apply to a program, with their parameters (and fusion gains under M)"},
    {"apply", cmd_apply, "FILE.apm|NODE TRANSFORM [key=value]... [-D name=value]... [-o OUT.apm | --why TEXT]",
     "apply a transform (e.g. stm theta=t sigma=x); a refusal says which dependence"},
    {"export", cmd_export, "FILE.apm|NODE -o DIR [-D name=value]... [--exchange auto|halo|alltoallv]",
     "write a verified node as C+MPI (syndm; syncomm with collectives only) or sequential C (source, syn): program, runtime, Makefile"},
    {"run", cmd_run, "FILE.apm|NODE -np P [--smpi PLATFORM.xml] [--repeat K] [-D name=value]...\n"
                     "        [--exchange auto|halo|alltoallv] [--json]",
     "export, build and run (mpirun or smpirun); check the checksum, store the seconds"},
    {"init", cmd_init, "FILE.apm [-o NAME.pdg] [--label L] [--why TEXT] [--json]",
     "create a workspace whose root node is the program"},
    {"add", cmd_add, "PARENT FILE.apm [--why TEXT] [--label L] [-w WS] [--json]",
     "add a hand-written child of PARENT (an existing equal program is linked)"},
    {"tree", cmd_tree, "[NODE] [-w WS] [--json]", "the decision graph as a tree"},
    {"show", cmd_show, "NODE [--program] [-w WS] [--json]", "a node: edges, marks, simulations, program"},
    {"log", cmd_log, "NODE [-w WS] [--json]", "the path of decisions from the root to NODE"},
    {"diff", cmd_diff, "A [B] [-U N] [-w WS]", "unified diff of two nodes' programs (A^ and A with one)"},
    {"mark", cmd_mark, "NODE pruned|favourite|clear [-w WS]", "mark a node"},
    {"note", cmd_note, "NODE TEXT... [-w WS]", "attach a note to a node (empty TEXT clears)"},
    {"label", cmd_label, "NODE LABEL [-w WS]", "rename a node's label"},
    {"rm", cmd_rm, "NODE [--yes] [--dry-run] [-w WS] [--json]",
     "remove a node and the descendants only it leads to"},
    {"calibrate", cmd_calibrate, "[-np N] [--name PROFILE] [--quick] [--raw FILE] [--no-store] [-w WS] [--json]",
     "measure this machine (tick, exchange, send/receive, ping-pong, h-relation); store the profile"},
    {"measure", cmd_measure, "NODE -np P SECONDS [--runner mpirun|smpirun] [--platform F] [--host H]\n"
                             "        [-D name=value]... [-w WS] [--json]",
     "record a run time measured outside polyapm (compare reads it)"},
    {"sweep", cmd_sweep, "NODE name=v1,v2,... [name=...]... [--machine M] [--model M] [-D name=value]...\n"
                         "        [--plot FILE.svg|png] [-w WS] [--json]",
     "simulate a node across parameter values (procs, n); cost and speedup table or curves"},
    {"compare", cmd_compare, "[NODE...] [--machine M] [--model M] [-D name=value]... [--plot FILE.svg|png]\n"
                             "        [-w WS] [--json]",
     "predicted (every model) against measured seconds for the leaves; error; Kendall tau"},
    {"explore", cmd_explore, "NODE [--depth D] [--budget N] [--jobs J] [--machine M] [--model M]\n"
                             "        [-D name=value]... [--top K] [--progress] [-q] [-w WS] [--json]",
     "best-first search of the transforms below NODE; the best leaves with their paths"},
    {"fsck", cmd_fsck, "[--repair] [-w WS] [--json]", "check (and repair) that pdg.db and repo.git agree"},
};
enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

#define POLYAPM_VERSION "0.1.0"

static void print_help(FILE *out)
{
    fprintf(out, "usage: polyapm [-w NAME.pdg] COMMAND [ARGS...]\n"
                 "       polyapm [FILE.apm | NAME.pdg] [-D name=value]... [--machine M] [--model M]\n"
                 "       polyapm --help | --version\n\n"
                 "A workbench for deriving parallel programs on Abstract Parallel Machines.\n\n"
                 "Without a command it opens the TUI: on FILE.apm (its workspace FILE.pdg next to it\n"
                 "is created or reopened), on a workspace, or on the workspace of the current directory.\n"
                 "-w NAME.pdg names the workspace of the commands that use one (default: the\n"
                 "$POLYAPM_WORKSPACE variable, then the current directory or the one above it).\n\n"
                 "commands:\n");
    for (int i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nsynopsis:\n");
    for (int i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  polyapm %s %s\n", commands[i].name, commands[i].args);
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
    for (int i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, cmd) == 0)
            fprintf(stderr, "usage: polyapm %s %s\n", cmd, commands[i].args);
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
        print_help(stdout);
        return CLI_OK;
    }
    if (strcmp(name, "--version") == 0) { printf("polyapm %s\n", POLYAPM_VERSION); return CLI_OK; }
    for (int i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    /* FILE.apm or a workspace directory: the TUI (options after it). */
    size_t nl = strlen(name);
    if ((nl > 4 && strcmp(name + nl - 4, ".apm") == 0) || store_is_workspace(name))
        return tui_main(name, argc - 2, argv + 2);
    if (nl > 4 && strcmp(name + nl - 4, ".pdg") == 0) {
        fprintf(stderr, "polyapm: %s: not a workspace (polyapm FILE.apm creates one)\n", name);
        return CLI_FAIL;
    }
    fprintf(stderr, "polyapm: unknown command '%s' (see polyapm --help)\n", name);
    return CLI_USAGE;
}
