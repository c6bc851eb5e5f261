/*
 * cmd_sweep.c — `polyapm sweep NODE k=v1,v2,... [k2=...]`: the node across parameter values (the
 * thesis's Figs. 5.14 and 6.10).  Every combination of the values is simulated (-D k=v; a derived
 * node whose procs is a parameter is simply re-simulated with procs=v) and stored as `sim`
 * stores it; so is the root (the source) at the same values, the reference of the speedup
 * (root cost / node cost).  Prints a table (or --json) and, with --plot FILE.svg|png, the cost
 * and speedup curves over the first key, one curve per value of the others.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "report.h"
#include "cliopts.h"
#include "ops.h"
#include "plot.h"

enum { MAX_KEYS = 4, MAX_VALUES = 64, MAX_POINTS = 1024 };

typedef struct sweep_key {
    const char *name;
    long long v[MAX_VALUES];
    int n;
} sweep_key;

typedef struct sweep_point {
    long long v[MAX_KEYS];
    double cost, seconds, ref_cost, speedup;
    int verified;
} sweep_point;

static int parse_key(char *arg, sweep_key *k)
{
    char *eq = strchr(arg, '=');
    if (!eq || eq == arg) return -1;
    *eq = '\0';
    k->name = arg;
    k->n = 0;
    for (char *tok = strtok(eq + 1, ","); tok; tok = strtok(NULL, ",")) {
        char *end;
        errno = 0;
        long long v = strtoll(tok, &end, 10);
        if (end == tok || *end || errno || k->n == MAX_VALUES) return -1;
        k->v[k->n++] = v;
    }
    return k->n ? 0 : -1;
}

/* Simulates `node` with the bindings; its total and verification. */
static int sim_one(store *s, int64_t node, const cost_profile *prof, const char *model, const ir_binding *b,
                   int nb, double *total, int *verified, diag_list *d)
{
    ops_sim j;
    memset(&j, 0, sizeof j);
    j.node = node;
    j.model = model;
    j.profile = *prof;
    j.nbindings = nb;
    memcpy(j.bindings, b, (size_t)nb * sizeof *b);
    int rc = ops_sim_node(s, &j, d);
    *total = j.total;
    *verified = j.verified;
    ops_sim_free(&j);
    return rc;
}

static void print_table(const sweep_key *k, int nk, const sweep_point *pt, int np, const char *label,
                        const cost_profile *prof, const char *model)
{
    printf("sweep %s: machine %s, model %s; speedup over the root at the same values\n", label,
           prof->name, model);
    for (int i = 0; i < nk; i++) printf("%8s ", k[i].name);
    printf("%14s %12s %14s %8s %s\n", "cost", "seconds", "root_cost", "speedup", "verified");
    for (int p = 0; p < np; p++) {
        for (int i = 0; i < nk; i++) printf("%8lld ", pt[p].v[i]);
        printf("%14.7g %12.6g %14.7g %8.3f %s\n", pt[p].cost, pt[p].seconds, pt[p].ref_cost, pt[p].speedup,
               pt[p].verified == 1 ? "yes" : pt[p].verified == 0 ? "NO" : "-");
    }
}

static void print_json(const sweep_key *k, int nk, const sweep_point *pt, int np, int64_t node,
                       const cost_profile *prof, const char *model)
{
    printf("{\"node\":%lld,\"machine\":", (long long)node);
    report_json_string(stdout, prof->name);
    printf(",\"model\":");
    report_json_string(stdout, model);
    printf(",\"keys\":[");
    for (int i = 0; i < nk; i++) { if (i) putchar(','); report_json_string(stdout, k[i].name); }
    printf("],\"points\":[");
    for (int p = 0; p < np; p++) {
        printf("%s{\"values\":{", p ? "," : "");
        for (int i = 0; i < nk; i++) {
            if (i) putchar(',');
            report_json_string(stdout, k[i].name);
            printf(":%lld", pt[p].v[i]);
        }
        printf("},\"cost\":%.10g,\"seconds\":%.10g,\"root_cost\":%.10g,\"speedup\":%.10g,\"verified\":%d}",
               pt[p].cost, pt[p].seconds, pt[p].ref_cost, pt[p].speedup, pt[p].verified);
    }
    printf("]}\n");
}

/* Curves over the first key, one per combination of the others (points are in odometer order
 * with the first key varying slowest, so a curve takes every `stride`-th point). */
static int plot_sweep(const char *path, const sweep_key *k, int nk, const sweep_point *pt, int np,
                      const char *label, diag_list *d)
{
    int stride = np / k[0].n, rc = -1;
    plot_series *cost = calloc((size_t)stride, sizeof *cost), *speed = calloc((size_t)stride, sizeof *speed);
    double *x = malloc((size_t)np * sizeof *x), *yc = malloc((size_t)np * sizeof *yc), *ys = malloc((size_t)np * sizeof *ys);
    char (*titles)[128] = calloc((size_t)stride, sizeof *titles);
    if (!cost || !speed || !x || !yc || !ys || !titles) { diag_add(d, NULL, 0, 0, "out of memory"); goto out; }
    for (int c = 0; c < stride; c++) {
        size_t off = 0;
        titles[c][0] = '\0';
        for (int i = 1; i < nk; i++)
            off += (size_t)snprintf(titles[c] + off, sizeof titles[c] - off, "%s%s=%lld", i > 1 ? " " : "",
                                    k[i].name, pt[c].v[i]);
        if (nk == 1) snprintf(titles[c], sizeof titles[c], "%s", label);
        for (int j = 0; j < k[0].n; j++) {
            int p = j * stride + c;
            x[c * k[0].n + j] = (double)pt[p].v[0];
            yc[c * k[0].n + j] = pt[p].cost;
            ys[c * k[0].n + j] = pt[p].speedup;
        }
        cost[c] = (plot_series){.title = titles[c], .x = x + c * k[0].n, .y = yc + c * k[0].n, .n = k[0].n};
        speed[c] = (plot_series){.title = titles[c], .x = x + c * k[0].n, .y = ys + c * k[0].n, .n = k[0].n};
    }
    char t1[160], t2[160];
    snprintf(t1, sizeof t1, "%s: predicted cost", label);
    snprintf(t2, sizeof t2, "%s: speedup over the source", label);
    plot_panel panels[2] = {
        {.title = t1, .xlabel = k[0].name, .ylabel = "cost (ticks)", .logy = 1, .series = cost, .nseries = stride},
        {.title = t2, .xlabel = k[0].name, .ylabel = "speedup", .series = speed, .nseries = stride},
    };
    rc = plot_write(path, panels, 2, d);
out:
    free(cost); free(speed); free(x); free(yc); free(ys); free(titles);
    return rc;
}

int cmd_sweep(int argc, char **argv);
const cli_spec cmd_sweep_spec = {"sweep", "NODE name=v1,v2,... [name=...]...",
                               "simulate a node across parameter values (procs, n); cost and speedup table or curves",
                               cliopts_table, CO_SWEEP, NULL, NULL, cmd_sweep};

int cmd_sweep(int argc, char **argv)
{
    cliopts o;
    int rc = cliopts_parse(&cmd_sweep_spec, argc, argv, &o);
    if (rc) return rc;
    if (o.npos < 2) return cli_usage("sweep", "give a node and at least one name=v1,v2,...");
    if (o.npos - 1 > MAX_KEYS) return cli_usage("sweep", "at most %d swept parameters", MAX_KEYS);
    if (o.plot && !plot_format_ok(o.plot)) return cli_usage("sweep", "--plot FILE.svg or FILE.png");
    sweep_key keys[MAX_KEYS];
    int nk = o.npos - 1, np = 1;
    for (int i = 0; i < nk; i++) {
        if (parse_key(o.pos[i + 1], &keys[i]) != 0)
            return cli_usage("sweep", "'%s' is not name=v1,v2,... (integers, at most %d)", o.pos[i + 1], MAX_VALUES);
        np *= keys[i].n;
        if (np > MAX_POINTS) return cli_usage("sweep", "more than %d combinations", MAX_POINTS);
    }
    if (o.nbindings + nk > OPS_MAX_BINDINGS) return cli_usage("sweep", "too many -D options");
    const char *model = o.model ? o.model : "polyapm";
    store *s = NULL;
    if (cliopts_open(&o, STORE_WRITE, &s) != 0) return CLI_FAIL;
    cost_profile prof;
    diag_list d;
    diag_list_init(&d);
    sweep_point *pt = calloc((size_t)np, sizeof *pt);
    ir_program *prog = NULL;
    store_node n;
    memset(&n, 0, sizeof n);
    int status = CLI_FAIL;
    int64_t node, root;
    if (!pt || cliopts_machine(&o, s, &prof) != 0) goto out;
    if (store_resolve(s, o.pos[0], &node, &d) != 0 || store_reference(s, node, &root, &d) != 0 ||
        store_node_get(s, node, &n, &d) != 0 || !(prog = ops_node_program(s, node, &d)))
        goto fail;
    for (int i = 0; i < nk; i++) {
        int known = 0;
        for (int q = 0; q < prog->nparams; q++) known |= !strcmp(prog->params[q]->u.param.name, keys[i].name);
        if (!known) {
            status = cli_fail("node %lld has no parameter '%s' (its parameters are what it can be swept over)",
                              (long long)node, keys[i].name);
            goto out;
        }
    }
    for (int p = 0; p < np; p++) {
        ir_binding b[OPS_MAX_BINDINGS];
        memcpy(b, o.bindings, (size_t)o.nbindings * sizeof *b);
        int nb = o.nbindings, rest = p;
        for (int i = nk - 1; i >= 0; i--) {
            pt[p].v[i] = keys[i].v[rest % keys[i].n];
            rest /= keys[i].n;
            b[nb++] = (ir_binding){keys[i].name, pt[p].v[i]};
        }
        int rv;
        if (sim_one(s, node, &prof, model, b, nb, &pt[p].cost, &pt[p].verified, &d) != 0 ||
            sim_one(s, root, &prof, model, b, nb, &pt[p].ref_cost, &rv, &d) != 0)
            goto fail;
        pt[p].seconds = pt[p].cost * prof.tick_seconds;
        pt[p].speedup = pt[p].cost > 0 ? pt[p].ref_cost / pt[p].cost : 0;
        if (!o.json && isatty(2)) fprintf(stderr, "\rsweep: %d/%d", p + 1, np);
    }
    if (!o.json && isatty(2)) fprintf(stderr, "\r%20s\r", "");
    if (o.json) print_json(keys, nk, pt, np, node, &prof, model);
    else print_table(keys, nk, pt, np, n.label, &prof, model);
    if (o.plot) {
        if (plot_sweep(o.plot, keys, nk, pt, np, n.label, &d) != 0) goto fail;
        if (!o.json) printf("plot: %s\n", o.plot);
    }
    status = CLI_OK;
    goto out;
fail:
    diag_print(&d, stderr);
out:
    free(pt);
    ir_program_free(prog);
    store_node_clear(&n);
    store_close(s);
    diag_list_free(&d);
    return status;
}
