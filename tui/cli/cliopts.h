/*
 * cliopts.h — the options of the commands that measure and search a workspace (calibrate's
 * siblings: measure, compare, sweep, explore): their one option table (parsed by optable.c), one
 * way to open the workspace and to resolve the machine profile.
 */
#ifndef POLYAPM_CLIOPTS_H
#define POLYAPM_CLIOPTS_H

#include "cost.h"
#include "ir.h"
#include "optable.h"
#include "store.h"

/* The commands of this family: their bits in the table's rows (cli_spec.bit). */
enum { CO_MEASURE = 1 << 0, CO_COMPARE = 1 << 1, CO_SWEEP = 1 << 2, CO_EXPLORE = 1 << 3 };
enum { CO_MAX_BINDINGS = 32, CO_MAX_POS = 64 };

typedef struct cliopts {
    const char *workspace, *machine, *model, *plot, *runner, *platform, *host;
    const char *rank_at;                   /* explore --at (alias --rank-at) name=value,... */
    ir_binding bindings[CO_MAX_BINDINGS];
    int nbindings;
    int json, quiet, progress;
    long np, depth, budget, jobs, top, rank_top;   /* -1 when not given */
    char *pos[CO_MAX_POS];
    int npos;
} cliopts;

/* The options of the family, one table (optable.h); each command's spec names it with its bit. */
extern const cli_opt cliopts_table[];

/* Parses argv[1..] for the command of `spec`; the positional words are o->pos[0..npos-1].
 * Returns 0, or the usage status after reporting. */
int cliopts_parse(const cli_spec *spec, int argc, char **argv, cliopts *o);
/* Opens the workspace (-w, $POLYAPM_WORKSPACE, the current directory).  0, or -1 with a message
 * printed. */
int cliopts_open(const cliopts *o, int mode, store **s);
/* The machine profile: --machine, else the default (machine.h: this machine's, calibrated on
 * first use, or $POLYAPM_MACHINE).  0 or -1 with a message printed. */
int cliopts_machine(const cliopts *o, store *s, cost_profile *out);

#endif
