/*
 * cliopts.h — the options of the commands that measure and search a workspace (calibrate's
 * siblings: measure, compare, sweep, explore): one option table, one parser, one way to open
 * the workspace and to resolve the machine profile.
 */
#ifndef POLYAPM_CLIOPTS_H
#define POLYAPM_CLIOPTS_H

#include "cost.h"
#include "ir.h"
#include "store.h"

enum {
    CO_W = 1 << 0, CO_D = 1 << 1, CO_MACHINE = 1 << 2, CO_MODEL = 1 << 3, CO_JSON = 1 << 4,
    CO_PLOT = 1 << 5, CO_NP = 1 << 6, CO_RUNNER = 1 << 7, CO_PLATFORM = 1 << 8, CO_HOST = 1 << 9,
    CO_DEPTH = 1 << 10, CO_BUDGET = 1 << 11, CO_JOBS = 1 << 12, CO_FORCE = 1 << 13,
    CO_TOP = 1 << 14, CO_QUIET = 1 << 15, CO_PROGRESS = 1 << 16,
};
enum { CO_MAX_BINDINGS = 32, CO_MAX_POS = 64 };

typedef struct cliopts {
    const char *workspace, *machine, *model, *plot, *runner, *platform, *host;
    ir_binding bindings[CO_MAX_BINDINGS];
    int nbindings;
    int json, force, quiet, progress;
    long np, depth, budget, jobs, top;     /* -1 when not given */
    char *pos[CO_MAX_POS];
    int npos;
} cliopts;

/* Parses argv[1..] for command `cmd` accepting the options in `accept`; values are cut out of
 * argv in place.  Returns 0, or the usage status after reporting. */
int cliopts_parse(const char *cmd, int argc, char **argv, unsigned accept, cliopts *o);
/* Opens the workspace (-w, $POLYAPM_WORKSPACE, the current directory).  0, or -1 with a message
 * printed. */
int cliopts_open(const cliopts *o, int mode, store **s);
/* The machine profile: --machine, else (with prefer_local) `local` when it resolves, else
 * scali2004 (as `sim`).  0 or -1 with a message printed. */
int cliopts_machine(const cliopts *o, store *s, int prefer_local, cost_profile *out);

#endif
