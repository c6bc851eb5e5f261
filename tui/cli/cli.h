/*
 * cli.h — the command line's command table and the helpers every subcommand shares.
 *
 * `polyapm NAME ARGS...` looks NAME up in the command table of tui/cli/main.c (each command's
 * cli_spec: its options, synopsis and help; optable.h) and calls its function with argc/argv
 * starting at NAME.  A command returns the process exit status: 0 ok, 1 failure, 2 usage.
 * Each command (or family of commands) lives in its own tui/cli/cmd_*.c file.
 */
#ifndef POLYAPM_CLI_H
#define POLYAPM_CLI_H

#include <stdio.h>

#include "ir.h"
#include "optable.h"
#include "store.h"

enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* Prints "polyapm NAME: message" and NAME's synopsis to stderr and returns CLI_USAGE. */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints "polyapm: message" to stderr and returns CLI_FAIL. */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The C options of `import` and `init FILE.c` (cmd_import.c).  An argument struct that starts
 * with a cli_cimport can use the setters in OPT_FN rows (-I, -D, --param, --init). */
enum { CLI_CIMPORT_MAX = 64 };
typedef struct cli_cimport {
    const char *inc[CLI_CIMPORT_MAX], *def[CLI_CIMPORT_MAX], *par[CLI_CIMPORT_MAX], *ini[CLI_CIMPORT_MAX];
    const char *assume[CLI_CIMPORT_MAX];   /* --assume */
    int ninc, ndef, npar, nini, nassume;
    const char *function, *outputs, *region;
} cli_cimport;
int cli_cimport_include(void *args, char *v);
int cli_cimport_define(void *args, char *v);
int cli_cimport_param(void *args, char *v);   /* --param NAME=VALUE */
int cli_cimport_init(void *args, char *v);    /* --init 'A[i] = e' */
int cli_cimport_assume(void *args, char *v);  /* --assume 'S1 unchanged when i == k' */
/* Imports FILE.c: its canonical .apm text (the caller frees it), or NULL after printing the
 * errors to stderr. */
char *cli_cimport_text(const char *file, const cli_cimport *c);
/* Runs a recorded `polyapm import ...` command (a program header's `# imported with:`) again,
 * with the definitions defs[ndefs] (NAME or NAME=VALUE) added, each replacing one of the same
 * macro (a NAME_DATASET every other dataset): the program's text (the caller frees it), or NULL
 * after printing why to stderr. */
char *cli_cimport_again(const char *command, const char *const *defs, int ndefs);
/* explore --at TEXT for node's program (at_sizes.c): "name=integer,..." of its parameters at the
 * user's size (the caller frees it) — TEXT itself when it names parameters alone; else, for a
 * program imported from C, the C file imported again with TEXT's datasets (LARGE or
 * LARGE_DATASET) and macros (N=2000) defined; NULL with the errors in d. */
char *cli_at_sizes(store *s, int64_t node, const char *text, diag_list *d);
/* `polyapm FILE.c [OPTIONS]`: the TUI on FILE.pdg (made by init FILE.c with import's OPTIONS
 * when it does not exist; --machine and --model go to the TUI); the exit status. */
int cli_open_c(const char *file, int argc, char **argv);

/* The host speed of a SimGrid platform file (cmd_platform.c): the first speed="..." of its
 * hosts or clusters (its first power state), written to out; 1 if found and in SimGrid's units
 * (f, kf, Mf, Gf, Tf), else 0. */
int cli_platform_speed(const char *path, char *out, size_t size);

/* polyapm's cache directory, created: $XDG_CACHE_HOME/polyapm, else ~/.cache/polyapm (objcache.c).
 * malloc'd; NULL when it cannot be made. */
char *cli_cache_dir(void);
/* Before `make` in an exported directory: copies in the runtime's objects (rt_*.o) of an earlier
 * build of the same runtime sources with the same compiler cc, flags and processor, and writes
 * the cache entry's path to entry[len] (empty when there is none to have).  Returns how many
 * objects were copied. */
int cli_objcache_fill(const char *dir, const char *cc, const char *extra_cflags, char *entry, size_t len);
/* After a successful build in dir: stores its runtime objects as entry, unless it exists. */
void cli_objcache_keep(const char *dir, const char *entry);

/* Single-quotes `s` for the shell into out[size] (mpirun.c). */
void cli_shell_quote(char *out, size_t size, const char *s);

/* One mpirun of polyapm's (mpirun.c): its Open MPI session directory, of its own, so that
 * mpiruns starting at the same moment do not race to create a shared one. */
typedef struct cli_mpirun {
    char dir[1024];   /* the session directory; empty when none */
} cli_mpirun;
/* Creates the session directory: CLI_OK, or CLI_FAIL after saying why. */
int cli_mpirun_open(cli_mpirun *m);
/* Writes "env OMPI_MCA_orte_tmpdir_base='DIR' mpirun [--allow-run-as-root] --oversubscribe -np NP"
 * into out[size]: the program and its arguments follow. */
void cli_mpirun_command(const cli_mpirun *m, int np, char *out, size_t size);
/* Removes the session directory and what a crashed run left in it. */
void cli_mpirun_close(cli_mpirun *m);
/* Removes dir and everything under it (links themselves, not what they name): 0, or -1. */
int cli_remove_tree(const char *dir);

#endif
