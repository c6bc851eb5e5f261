/*
 * cliopts.c — the shared option table of measure, compare, sweep and explore (see cliopts.h).
 */
#include "machine.h"
#include "cliopts.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ops.h"

enum { ALL = CO_MEASURE | CO_COMPARE | CO_SWEEP | CO_EXPLORE, PRICED = CO_COMPARE | CO_SWEEP | CO_EXPLORE };

#define LONG_OPT(field) .kind = OPT_LONG, .off = offsetof(cliopts, field), .lo = 0, .hi = LONG_MAX

const cli_opt cliopts_table[] = {
    {.name = "-np", .value = "P", LONG_OPT(np), .cmds = CO_MEASURE, .flags = OPT_REQUIRED,
     .help = "the number of MPI ranks of the run"},
    {.name = "--runner", .kind = OPT_STR, .value = "mpirun|smpirun", .off = offsetof(cliopts, runner),
     .cmds = CO_MEASURE, .help = "what ran it (default mpirun)"},
    {.name = "--platform", .kind = OPT_STR, .value = "F", .off = offsetof(cliopts, platform), .cmds = CO_MEASURE,
     .help = "the SimGrid platform file (with --runner smpirun)"},
    {.name = "--host", .kind = OPT_STR, .value = "H", .off = offsetof(cliopts, host), .cmds = CO_MEASURE,
     .help = "the host it ran on (default: this one)"},
    {.name = "--depth", .value = "D", LONG_OPT(depth), .cmds = CO_EXPLORE,
     .help = "at most D transforms below NODE"},
    {.name = "--budget", .value = "N", LONG_OPT(budget), .cmds = CO_EXPLORE,
     .help = "simulate at most N nodes (and up to nine more: local on the best three leaves)"},
    {.name = "--jobs", .alias = "-j", .value = "J", LONG_OPT(jobs), .cmds = CO_EXPLORE,
     .help = "J simulations at a time (1..64, default 1)"},
    {.name = "--machine", .kind = OPT_STR, .value = "M", .off = offsetof(cliopts, machine), .cmds = PRICED,
     .help = "the machine profile (default: this machine's, local, calibrated on first use; $POLYAPM_MACHINE)"},
    {.name = "--model", .kind = OPT_STR, .value = "polyapm|bsp|hockney|loggp", .off = offsetof(cliopts, model),
     .cmds = PRICED, .help = "the cost model (default polyapm)"},
    {.name = "-D", .kind = OPT_BINDING, .value = "name=value", .off = offsetof(cliopts, bindings),
     .count = offsetof(cliopts, nbindings), .hi = CO_MAX_BINDINGS, .flags = OPT_REPEAT,
     .help = "set a parameter to an integer"},
    {.name = "--plot", .kind = OPT_STR, .value = "FILE.svg|png", .off = offsetof(cliopts, plot),
     .cmds = CO_COMPARE | CO_SWEEP, .help = "also draw the figure (gnuplot)"},
    {.name = "--top", .value = "K", LONG_OPT(top), .cmds = CO_EXPLORE, .help = "list the K best leaves"},
    {.name = "--at", .alias = "--rank-at", .kind = OPT_STR, .value = "name=value,...",
     .off = offsetof(cliopts, rank_at), .cmds = CO_EXPLORE, .help = "rank the best leaves by their predicted seconds at the user's size (extrapolated "
                                 "from simulations at four smaller sizes, larger for a leaf that simulates quickly); "
                                 "imported C: also a dataset (LARGE) or a "
                                 "macro of the file (N=2000)"},
    {.name = "--rank-top", .value = "K", LONG_OPT(rank_top), .cmds = CO_EXPLORE,
     .help = "with --at: rank the K best leaves there (default 3), and the best of each other shape of "
             "derivation (up to 8)"},
    {.name = "--progress", .kind = OPT_FLAG, .off = offsetof(cliopts, progress), .cmds = CO_EXPLORE,
     .help = "report the search's progress on stderr"},
    {.name = "-q", .alias = "--quiet", .kind = OPT_FLAG, .off = offsetof(cliopts, quiet), .cmds = CO_EXPLORE,
     .help = "no progress line on a terminal"},
    {.name = "-w", .alias = "--workspace", .kind = OPT_STR, .value = "WS", .off = offsetof(cliopts, workspace),
     .cmds = ALL, .help = "the workspace (default: $POLYAPM_WORKSPACE, then the current directory)"},
    {.name = "--json", .kind = OPT_FLAG, .off = offsetof(cliopts, json), .cmds = ALL,
     .help = "print one JSON object"},
    {0},
};

int cliopts_parse(const cli_spec *spec, int argc, char **argv, cliopts *o)
{
    memset(o, 0, sizeof *o);
    o->np = o->depth = o->budget = o->jobs = o->top = o->rank_top = -1;
    int npos = 0;
    int rc = optable_parse(spec, argc, argv, o, &npos);
    if (rc) return rc;
    if (npos > CO_MAX_POS) return cli_usage(spec->name, "too many arguments");
    for (int i = 0; i < npos; i++) o->pos[o->npos++] = argv[1 + i];
    const char *cmd = spec->name;
    if (o->model) {
        int known = 0;
        for (const char *const *m = cost_model_names(); *m; m++) known |= !strcmp(*m, o->model);
        if (!known) return cli_usage(cmd, "unknown model '%s' (polyapm, bsp, hockney, loggp)", o->model);
    }
    return 0;
}

int cliopts_open(const cliopts *o, int mode, store **s)
{
    diag_list d;
    diag_list_init(&d);
    char *dir = store_find(o->workspace, &d);
    int rc = 0;
    if (!dir || store_open(dir, mode, s, &d) != 0) {
        cli_fail("%s", d.n ? d.items[d.n - 1].msg : "no workspace");
        rc = -1;
    }
    free(dir);
    diag_list_free(&d);
    return rc;
}

int cliopts_machine(const cliopts *o, store *s, cost_profile *out)
{
    diag_list d;
    diag_list_init(&d);
    int rc = machine_resolve(s, o->machine, out, &d);
    if (rc != 0) cli_fail("%s", d.n ? d.items[d.n - 1].msg : "unknown machine");
    diag_list_free(&d);
    return rc;
}
