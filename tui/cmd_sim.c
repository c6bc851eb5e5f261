/*
 * cmd_sim.c — `polyapm sim FILE.apm [options]`: simulate a program on its APM level, verify it
 * against its reference (the `reference` declaration or --against), and report the cost.
 * Given something that is not a file, the workspace's node simulation (cmd_sim_node) takes over.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "report.h"
#include "simjob.h"

/* Provided by the workspace commands when they are linked in. */
int cmd_sim_node(int argc, char **argv) __attribute__((weak));

enum { MAX_BINDINGS = 64, MAX_SETS = 32 };

typedef struct sim_args {
    const char *file, *against, *machine, *model;
    ir_binding bindings[MAX_BINDINGS];
    int nbindings;
    struct { char *key; double value; } sets[MAX_SETS];
    int nsets;
    int json, trace;
} sim_args;

typedef int (*opt_fn)(sim_args *a, char *value);

static int opt_define(sim_args *a, char *v)
{
    if (a->nbindings == MAX_BINDINGS) return -1;
    return cli_parse_binding(v, &a->bindings[a->nbindings++]);
}
static int opt_against(sim_args *a, char *v) { a->against = v; return 0; }
static int opt_machine(sim_args *a, char *v) { a->machine = v; return 0; }
static int opt_model(sim_args *a, char *v) { a->model = v; return 0; }
static int opt_set(sim_args *a, char *v)
{
    char *eq = strchr(v, '=');
    if (!eq || a->nsets == MAX_SETS) return -1;
    char *end;
    double x = strtod(eq + 1, &end);
    if (end == eq + 1 || *end) return -1;
    *eq = '\0';
    a->sets[a->nsets].key = v;
    a->sets[a->nsets++].value = x;
    return 0;
}
static int opt_json(sim_args *a, char *v) { (void)v; a->json = 1; return 0; }
static int opt_trace(sim_args *a, char *v) { (void)v; a->trace = 1; return 0; }

static const struct { const char *name; int takes_value; opt_fn fn; const char *what; } options[] = {
    {"-D", 1, opt_define, "name=value (an integer)"},
    {"--against", 1, opt_against, "a source program"},
    {"--machine", 1, opt_machine, "a machine profile name or file"},
    {"--model", 1, opt_model, "polyapm, bsp or hockney"},
    {"--set", 1, opt_set, "key=number (a machine profile parameter)"},
    {"--json", 0, opt_json, ""},
    {"--trace", 0, opt_trace, ""},
};

static int parse_args(int argc, char **argv, sim_args *a)
{
    for (int i = 1; i < argc; i++) {
        char *arg = argv[i];
        int matched = 0;
        for (size_t o = 0; o < sizeof options / sizeof options[0]; o++) {
            size_t len = strlen(options[o].name);
            if (strncmp(arg, options[o].name, len) != 0) continue;
            char *value = NULL;
            if (arg[len] == '\0') {
                if (options[o].takes_value) {
                    if (i + 1 >= argc) return cli_usage("sim", "%s needs %s", options[o].name, options[o].what);
                    value = argv[++i];
                }
            } else if (options[o].takes_value && (arg[len] == '=' || strcmp(options[o].name, "-D") == 0)) {
                value = arg + len + (arg[len] == '=' && strcmp(options[o].name, "-D") != 0);
            } else {
                continue;
            }
            if (options[o].fn(a, value) != 0)
                return cli_usage("sim", "bad value for %s: '%s' (expected %s)", options[o].name,
                                 value ? value : "", options[o].what);
            matched = 1;
            break;
        }
        if (matched) continue;
        if (arg[0] == '-' && arg[1]) return cli_usage("sim", "unknown option '%s'", arg);
        if (a->file) return cli_usage("sim", "more than one program given ('%s', '%s')", a->file, arg);
        a->file = arg;
    }
    if (!a->file) return cli_usage("sim", "no program given");
    return 0;
}

/* The reference named by the program's `reference` declaration, relative to its directory. */
static char *reference_path(const ir_program *p, const char *file)
{
    for (int i = 0; i < p->ndecls; i++) {
        if (p->decls[i]->kind != IR_D_REFERENCE) continue;
        const char *ref = p->decls[i]->u.reference.path;
        if (ref[0] == '/') return strdup(ref);
        const char *slash = strrchr(file, '/');
        size_t dirlen = slash ? (size_t)(slash - file + 1) : 0;
        char *path = malloc(dirlen + strlen(ref) + 1);
        if (!path) return NULL;
        memcpy(path, file, dirlen);
        strcpy(path + dirlen, ref);
        return path;
    }
    return NULL;
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The program or node argument: the first word that is neither an option nor an option's value. */
static const char *target_of(int argc, char **argv)
{
    static const char *const with_value[] = {"-D", "--against", "--machine", "--model", "--set", "-w"};
    for (int i = 1; i < argc; i++) {
        int skip = 0;
        for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++)
            skip |= strcmp(argv[i], with_value[k]) == 0;
        if (skip) { i++; continue; }
        if (argv[i][0] != '-' || !argv[i][1]) return argv[i];
    }
    return NULL;
}

int cmd_sim(int argc, char **argv)
{
    const char *target = target_of(argc, argv);
    if (target && !is_file(target)) {
        /* not a program file: a node of the workspace, whose command has options of its own */
        if (cmd_sim_node) return cmd_sim_node(argc, argv);
        return cli_fail("%s: no such file", target);
    }
    sim_args a;
    memset(&a, 0, sizeof a);
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc;

    diag_list d;
    diag_list_init(&d);
    simjob job;
    memset(&job, 0, sizeof job);
    ir_program *prog = NULL, *ref = NULL;
    char *refpath = NULL;
    int status = CLI_FAIL;

    if (cost_profile_resolve(a.machine ? a.machine : "scali2004", &job.profile, &d) != 0) goto out;
    for (int i = 0; i < a.nsets; i++)
        if (cost_profile_set(&job.profile, a.sets[i].key, a.sets[i].value) != 0) {
            status = cli_usage("sim", "unknown machine parameter '%s'", a.sets[i].key);
            goto out;
        }
    if (a.model) {
        const char *const *m = cost_model_names();
        while (*m && strcmp(*m, a.model) != 0) m++;
        if (!*m) { status = cli_usage("sim", "unknown cost model '%s' (polyapm, bsp, hockney)", a.model); goto out; }
    }
    prog = ir_load_file(a.file, &d);
    if (!prog) goto out;
    for (int i = 0; i < a.nbindings; i++) {
        int known = 0;
        for (int k = 0; k < prog->nparams; k++)
            known |= strcmp(prog->params[k]->u.param.name, a.bindings[i].name) == 0;
        if (!known) {
            status = cli_usage("sim", "%s has no parameter '%s'", a.file, a.bindings[i].name);
            goto out;
        }
    }
    refpath = a.against ? strdup(a.against) : reference_path(prog, a.file);
    if (refpath) {
        ref = ir_load_file(refpath, &d);
        if (!ref) goto out;
    }
    job.prog = prog;
    job.ref = ref;
    job.bindings = a.bindings;
    job.nbindings = a.nbindings;
    job.model = a.model;
    if (simjob_run(&job, &d) != 0) goto out;

    report_input in = {.title = prog->name, .prog = prog,
                       .reference = refpath ? refpath : (prog->level == IR_SOURCE ? "itself" : NULL),
                       .machine = job.profile.name, .res = job.res, .cost = &job.cost,
                       .ref = job.ref_res, .ref_cost = job.has_ref_cost ? &job.ref_cost : NULL,
                       .verified = job.verified, .tick_seconds = job.profile.tick_seconds,
                       .trace = a.trace};
    if (a.json) report_sim_json(stdout, &in);
    else report_sim_text(stdout, &in);
    status = (job.verified != 0 && job.res->violations_total == 0) ? CLI_OK : CLI_FAIL;
out:
    if (diag_count(&d)) diag_print(&d, stderr);
    simjob_free(&job);
    ir_program_free(ref);
    ir_program_free(prog);
    free(refpath);
    diag_list_free(&d);
    return status;
}
