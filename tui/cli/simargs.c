/*
 * simargs.c — the option table and parser of `polyapm sim` (see simargs.h).
 */
#include "simargs.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef int (*opt_fn)(simargs *a, char *value);

static int opt_define(simargs *a, char *v)
{
    if (a->nbindings == SIMARGS_MAX_BINDINGS) return -1;
    return ir_parse_binding(v, &a->bindings[a->nbindings++]);
}
static int opt_against(simargs *a, char *v) { a->against = v; return 0; }
static int opt_machine(simargs *a, char *v) { a->machine = v; return 0; }
static int opt_model(simargs *a, char *v) { a->model = v; return 0; }
static int opt_workspace(simargs *a, char *v) { a->workspace = v; return 0; }
static int opt_set(simargs *a, char *v)
{
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
static int opt_json(simargs *a, char *v) { (void)v; a->json = 1; return 0; }
static int opt_trace(simargs *a, char *v) { (void)v; a->trace = 1; return 0; }
static int opt_force(simargs *a, char *v) { (void)v; a->force = 1; return 0; }
static int opt_all_planes(simargs *a, char *v) { (void)v; a->all_planes = 1; return 0; }

static const struct {
    const char *name;
    int takes_value;
    unsigned forms;
    opt_fn fn;
    const char *what;
} options[] = {
    {"-D", 1, SIMARGS_FILE | SIMARGS_NODE, opt_define, "name=value (an integer)"},
    {"--against", 1, SIMARGS_FILE, opt_against, "a source program"},
    {"--machine", 1, SIMARGS_FILE | SIMARGS_NODE, opt_machine, "a machine profile name or file"},
    {"--model", 1, SIMARGS_FILE | SIMARGS_NODE, opt_model, "polyapm, bsp or hockney"},
    {"--set", 1, SIMARGS_FILE | SIMARGS_NODE, opt_set, "key=number (a machine profile parameter)"},
    {"-w", 1, SIMARGS_NODE, opt_workspace, "a workspace directory"},
    {"--workspace", 1, SIMARGS_NODE, opt_workspace, "a workspace directory"},
    {"--json", 0, SIMARGS_FILE | SIMARGS_NODE, opt_json, ""},
    {"--trace", 0, SIMARGS_FILE | SIMARGS_NODE, opt_trace, ""},
    {"--force", 0, SIMARGS_NODE, opt_force, ""},
    {"--all-planes", 0, SIMARGS_FILE, opt_all_planes, ""},
};
enum { NOPTIONS = sizeof options / sizeof options[0] };

const char *simargs_target(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        int skip = 0;
        for (int o = 0; o < NOPTIONS; o++)
            skip |= options[o].takes_value && strcmp(argv[i], options[o].name) == 0;
        if (skip) { i++; continue; }
        if (argv[i][0] != '-' || !argv[i][1]) return argv[i];
    }
    return NULL;
}

int simargs_parse(int argc, char **argv, unsigned form, simargs *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        char *arg = argv[i];
        int matched = 0;
        for (int o = 0; o < NOPTIONS && !matched; o++) {
            size_t len = strlen(options[o].name);
            if (strncmp(arg, options[o].name, len) != 0) continue;
            int is_d = strcmp(options[o].name, "-D") == 0;
            char *value = NULL;
            if (arg[len] == '\0') {
                if (options[o].takes_value) {
                    if (i + 1 >= argc)
                        return cli_usage("sim", "%s needs %s", options[o].name, options[o].what);
                    value = argv[++i];
                }
            } else if (options[o].takes_value && (arg[len] == '=' || is_d)) {
                value = arg + len + (arg[len] == '=' && !is_d);
            } else {
                continue;
            }
            if (!(options[o].forms & form))
                return cli_usage("sim", "%s applies to %s only", options[o].name,
                                 (options[o].forms & SIMARGS_FILE) ? "program files" : "workspace nodes");
            if (options[o].fn(a, value) != 0)
                return cli_usage("sim", "bad value for %s: '%s' (expected %s)", options[o].name,
                                 value ? value : "", options[o].what);
            matched = 1;
        }
        if (matched) continue;
        if (arg[0] == '-' && arg[1]) return cli_usage("sim", "unknown option '%s'", arg);
        if (a->target) return cli_usage("sim", "more than one program given ('%s', '%s')", a->target, arg);
        a->target = arg;
    }
    if (!a->target) return cli_usage("sim", "no program or node given");
    return 0;
}

const char *simargs_model(const simargs *a)
{
    if (!a->model) return "polyapm";
    for (const char *const *m = cost_model_names(); *m; m++)
        if (strcmp(*m, a->model) == 0) return *m;
    cli_usage("sim", "unknown cost model '%s' (polyapm, bsp, hockney)", a->model);
    return NULL;
}

int simargs_apply_sets(const simargs *a, cost_profile *p)
{
    for (int i = 0; i < a->nsets; i++)
        if (cost_profile_set(p, a->sets[i].key, a->sets[i].value) != 0)
            return cli_usage("sim", "unknown machine parameter '%s'", a->sets[i].key);
    return 0;
}
