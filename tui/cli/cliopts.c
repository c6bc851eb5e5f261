/*
 * cliopts.c — the shared option parser of measure, compare, sweep and explore (see cliopts.h).
 */
#include "cliopts.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ops.h"

typedef enum { V_FLAG, V_STR, V_LONG, V_BINDING } vkind;

static const struct co_flag {
    const char *name;
    unsigned bit;
    vkind kind;
    size_t off;
} co_flags[] = {
    {"-w", CO_W, V_STR, offsetof(cliopts, workspace)},
    {"--workspace", CO_W, V_STR, offsetof(cliopts, workspace)},
    {"-D", CO_D, V_BINDING, 0},
    {"--machine", CO_MACHINE, V_STR, offsetof(cliopts, machine)},
    {"--model", CO_MODEL, V_STR, offsetof(cliopts, model)},
    {"--json", CO_JSON, V_FLAG, offsetof(cliopts, json)},
    {"--plot", CO_PLOT, V_STR, offsetof(cliopts, plot)},
    {"-np", CO_NP, V_LONG, offsetof(cliopts, np)},
    {"--runner", CO_RUNNER, V_STR, offsetof(cliopts, runner)},
    {"--platform", CO_PLATFORM, V_STR, offsetof(cliopts, platform)},
    {"--host", CO_HOST, V_STR, offsetof(cliopts, host)},
    {"--depth", CO_DEPTH, V_LONG, offsetof(cliopts, depth)},
    {"--budget", CO_BUDGET, V_LONG, offsetof(cliopts, budget)},
    {"--jobs", CO_JOBS, V_LONG, offsetof(cliopts, jobs)},
    {"-j", CO_JOBS, V_LONG, offsetof(cliopts, jobs)},
    {"--force", CO_FORCE, V_FLAG, offsetof(cliopts, force)},
    {"--top", CO_TOP, V_LONG, offsetof(cliopts, top)},
    {"-q", CO_QUIET, V_FLAG, offsetof(cliopts, quiet)},
    {"--quiet", CO_QUIET, V_FLAG, offsetof(cliopts, quiet)},
    {"--progress", CO_PROGRESS, V_FLAG, offsetof(cliopts, progress)},
};
enum { NFLAGS = sizeof co_flags / sizeof co_flags[0] };

int cliopts_parse(const char *cmd, int argc, char **argv, unsigned accept, cliopts *o)
{
    memset(o, 0, sizeof *o);
    o->np = o->depth = o->budget = o->jobs = o->top = -1;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        const struct co_flag *f = NULL;
        if (a[0] == '-' && a[1] && !(a[1] >= '0' && a[1] <= '9'))
            for (int k = 0; k < NFLAGS && !f; k++)
                if (!strcmp(co_flags[k].name, a)) f = &co_flags[k];
        if (!f) {
            if (a[0] == '-' && a[1] && !(a[1] >= '0' && a[1] <= '9'))
                return cli_usage(cmd, "unknown option '%s'", a);
            if (o->npos == CO_MAX_POS) return cli_usage(cmd, "too many arguments");
            o->pos[o->npos++] = a;
            continue;
        }
        if (!(f->bit & accept)) return cli_usage(cmd, "option %s does not apply here", a);
        if (f->kind == V_FLAG) { *(int *)((char *)o + f->off) = 1; continue; }
        if (i + 1 >= argc) return cli_usage(cmd, "%s needs a value", a);
        char *v = argv[++i];
        if (f->kind == V_STR) *(const char **)((char *)o + f->off) = v;
        else if (f->kind == V_LONG) {
            char *end;
            errno = 0;
            long n = strtol(v, &end, 10);
            if (end == v || *end || errno || n < 0) return cli_usage(cmd, "%s takes a number, not '%s'", a, v);
            *(long *)((char *)o + f->off) = n;
        } else {
            if (o->nbindings == CO_MAX_BINDINGS) return cli_usage(cmd, "at most %d -D options", CO_MAX_BINDINGS);
            if (ir_parse_binding(v, &o->bindings[o->nbindings]) != 0)
                return cli_usage(cmd, "-D takes name=integer, not '%s'", v);
            o->nbindings++;
        }
    }
    if (o->model) {
        int known = 0;
        for (const char *const *m = cost_model_names(); *m; m++) known |= !strcmp(*m, o->model);
        if (!known) return cli_usage(cmd, "unknown model '%s' (polyapm, bsp, hockney)", o->model);
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

int cliopts_machine(const cliopts *o, store *s, int prefer_local, cost_profile *out)
{
    diag_list d;
    diag_list_init(&d);
    int rc = 0;
    if (o->machine) {
        if (ops_resolve_machine(s, o->machine, out, &d) != 0) {
            cli_fail("%s", d.n ? d.items[d.n - 1].msg : "unknown machine");
            rc = -1;
        }
    } else if (!prefer_local || ops_resolve_machine(s, "local", out, &d) != 0) {
        diag_list_free(&d);
        diag_list_init(&d);
        rc = ops_resolve_machine(s, "scali2004", out, &d);
    }
    diag_list_free(&d);
    return rc;
}
