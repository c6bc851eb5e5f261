/*
 * simargs.h — the options of `polyapm sim`, shared by its two forms (a program file, cmd_sim.c;
 * a workspace node, cmd_simnode.c): one option table for both (two cli_specs, parsed by optable.c),
 * one way to build the machine profile from --machine and --set.
 */
#ifndef POLYAPM_SIMARGS_H
#define POLYAPM_SIMARGS_H

#include "cost.h"
#include "ir.h"

enum { SIMARGS_MAX_BINDINGS = 64, SIMARGS_MAX_SETS = 32 };

typedef struct simargs {
    const char *target;           /* the program file or node */
    const char *against, *machine, *model, *workspace;
    ir_binding bindings[SIMARGS_MAX_BINDINGS];
    int nbindings;
    struct { char *key; double value; } sets[SIMARGS_MAX_SETS];
    int nsets;
    int json, trace, force, all_planes;
} simargs;

/* Which options a form accepts (the others are usage errors). */
enum { SIMARGS_FILE = 1, SIMARGS_NODE = 2 };

/* Parses argv[1..] (argv[0] is the command name).  Values are cut out of argv in place.
 * Returns 0, or the exit status of a usage error (already reported). */
int simargs_parse(int argc, char **argv, unsigned form, simargs *a);

/* The target without parsing: the first word that is neither an option nor an option's value. */
const char *simargs_target(int argc, char **argv);

/* Checks --model; returns the model name to use ("polyapm" by default) or NULL after reporting
 * a usage error. */
const char *simargs_model(const simargs *a);

/* Applies the --set overrides to a profile.  0, or the usage status after reporting. */
int simargs_apply_sets(const simargs *a, cost_profile *p);

/* Checks that every -D names a parameter of p (`what` names p in the message).  0, or the usage
 * status after reporting. */
int simargs_check_params(const simargs *a, const ir_program *p, const char *what);

#endif
