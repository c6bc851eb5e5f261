/*
 * simargs.c — the option table of `polyapm sim` and its two specs, FILE.apm and NODE (see
 * simargs.h; the parser is optable.c).
 */
#include "simargs.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int opt_set(void *args, char *v)
{
    simargs *a = args;
    char *eq = strchr(v, '=');
    if (!eq || eq == v || a->nsets == SIMARGS_MAX_SETS) return -1;
    char *end;
    double x = strtod(eq + 1, &end);
    if (end == eq + 1 || *end) return -1;
    *eq = '\0';
    a->sets[a->nsets].key = v;
    a->sets[a->nsets++].value = x;
    return 0;
}

enum { F = SIMARGS_FILE, N = SIMARGS_NODE };
static const cli_opt options[] = {
    {.name = "-D", .kind = OPT_BINDING, .value = "name=value", .flags = OPT_REPEAT,
     .off = offsetof(simargs, bindings), .count = offsetof(simargs, nbindings), .hi = SIMARGS_MAX_BINDINGS,
     .help = "set a parameter to an integer (the later ones are recomputed)"},
    {.name = "--machine", .kind = OPT_STR, .value = "M", .off = offsetof(simargs, machine),
     .help = "the machine profile: a built-in, stored or user profile, or a file (default: this machine's, local, calibrated on first use; $POLYAPM_MACHINE)"},
    {.name = "--model", .kind = OPT_STR, .value = "polyapm|bsp|hockney|loggp", .off = offsetof(simargs, model),
     .help = "the cost model (default polyapm)"},
    {.name = "--against", .kind = OPT_STR, .value = "SRC", .off = offsetof(simargs, against), .cmds = F,
     .help = "verify against this source program (default: the program's reference)"},
    {.name = "--set", .kind = OPT_FN, .value = "key=value", .set = opt_set, .flags = OPT_REPEAT,
     .help = "override one machine profile parameter (a number)"},
    {.name = "--trace", .kind = OPT_FLAG, .off = offsetof(simargs, trace),
     .help = "also print the cost of every time step"},
    {.name = "--force", .kind = OPT_FLAG, .off = offsetof(simargs, force), .cmds = N,
     .help = "simulate again even when the store has the result"},
    {.name = "-w", .alias = "--workspace", .kind = OPT_STR, .value = "WS", .off = offsetof(simargs, workspace),
     .cmds = N, .help = "the workspace (default: $POLYAPM_WORKSPACE, then the current directory)"},
    {.name = "--json", .kind = OPT_FLAG, .off = offsetof(simargs, json), .help = "print one JSON object"},
    {.name = "--all-planes", .kind = OPT_FLAG, .off = offsetof(simargs, all_planes), .cmds = F,
     .help = "store every time plane (for comparison: the results are the same)"},
    {0},
};

int cmd_sim(int argc, char **argv);
extern const cli_spec cmd_sim_node_spec;
const cli_spec cmd_sim_spec = {"sim", "FILE.apm", "simulate on the program's APM level, verify against the source, report the cost",
                               options, F, "program files", &cmd_sim_node_spec, cmd_sim};
const cli_spec cmd_sim_node_spec = {"sim", "NODE", NULL, options, N, "workspace nodes", &cmd_sim_spec, cmd_sim};

const char *simargs_target(int argc, char **argv)
{
    return optable_first_positional(&cmd_sim_spec, argc, argv);
}

int simargs_parse(int argc, char **argv, unsigned form, simargs *a)
{
    memset(a, 0, sizeof *a);
    int npos = 0;
    int rc = optable_parse(form == SIMARGS_NODE ? &cmd_sim_node_spec : &cmd_sim_spec, argc, argv, a, &npos);
    if (rc) return rc;
    if (npos > 1) return cli_usage("sim", "more than one program given ('%s', '%s')", argv[1], argv[2]);
    if (npos == 0) return cli_usage("sim", "no program or node given");
    a->target = argv[1];
    return 0;
}

const char *simargs_model(const simargs *a)
{
    if (!a->model) return "polyapm";
    for (const char *const *m = cost_model_names(); *m; m++)
        if (strcmp(*m, a->model) == 0) return *m;
    cli_usage("sim", "unknown cost model '%s' (polyapm, bsp, hockney, loggp)", a->model);
    return NULL;
}

int simargs_apply_sets(const simargs *a, cost_profile *p)
{
    for (int i = 0; i < a->nsets; i++) {
        int rc = cost_profile_set(p, a->sets[i].key, a->sets[i].value);
        if (rc == -2) return cli_usage("sim", "--set %s: a number >= 0", a->sets[i].key);
        if (rc != 0) return cli_usage("sim", "unknown machine parameter '%s'", a->sets[i].key);
    }
    return 0;
}

int simargs_check_params(const simargs *a, const ir_program *p, const char *what)
{
    for (int i = 0; i < a->nbindings; i++) {
        int known = 0;
        for (int k = 0; k < p->nparams; k++) known |= strcmp(p->params[k]->u.param.name, a->bindings[i].name) == 0;
        if (!known) return cli_usage("sim", "%s has no parameter '%s'", what, a->bindings[i].name);
    }
    return 0;
}
