/*
 * cmd_compare.c — `polyapm compare [NODES...]`: the cost model's track record.  For every node
 * (default: every leaf of the graph) and every measured configuration of it (ranks and parameter
 * values, from the measurements table: `polyapm run` or `polyapm measure`), the predicted cost
 * under each cost model (polyapm, bsp, hockney, loggp: one simulation priced under every model
 * whose result is not stored yet; stored as `sim` stores them),
 * the predicted seconds (cost × the profile's tick, under --model, default polyapm), the
 * measured seconds (mean of the runs), the relative error, and Kendall's τ between the
 * predicted and the measured order over the measured rows.  A node without measurements gets
 * one row at its own parameter values (with -D), predicted only.  --plot FILE.svg|png draws
 * predicted against measured seconds and, for nodes measured at several rank counts, measured
 * and predicted seconds over the ranks.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"
#include "cliopts.h"
#include "ops.h"
#include "plot.h"
#include "stats.h"
#include "xf.h"

enum { MAX_MODELS = 8 };

typedef struct cmp_row {
    int64_t node;
    char *label;
    int ranks;                /* 0 when not measured */
    char *params;             /* the key, as stored; owned */
    double cost[MAX_MODELS];  /* ticks per model */
    int verified;
    double predicted, measured;  /* seconds; measured < 0 when none */
    int runs;
} cmp_row;

typedef struct cmp {
    cmp_row *rows;
    int n, cap;
} cmp;

static cmp_row *row_new(cmp *c)
{
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 16;
        cmp_row *r = realloc(c->rows, (size_t)cap * sizeof *r);
        if (!r) return NULL;
        c->rows = r;
        c->cap = cap;
    }
    cmp_row *r = &c->rows[c->n++];
    memset(r, 0, sizeof *r);
    r->measured = -1;
    return r;
}

/* "n=64,procs=4" into bindings whose names point into `buf` (modified). */
static int params_bindings(char *buf, ir_binding *b, int max)
{
    int n = 0;
    for (char *tok = strtok(buf, ","); tok && n < max; tok = strtok(NULL, ",")) {
        if (ir_parse_binding(tok, &b[n]) == 0) n++;
    }
    return n;
}

/* Prices `to` (prepared, not stored) from the completed run of `from`, the same node and
 * parameter values under another model: the run does not depend on the model (a model prices
 * its trace), so one simulation serves every model.  `to` borrows from's results; price_drop
 * gives them back before `to` is freed.  0, or -1 for an unknown model. */
static int price_from(ops_sim *to, const ops_sim *from, diag_list *d)
{
    simjob *b = &to->job;
    const simjob *a = &from->job;
    b->prog = to->prog;
    b->ref = to->ref;
    b->bindings = to->bindings;
    b->nbindings = to->nbindings;
    b->model = to->model;
    b->profile = to->profile;
    b->res = a->res;
    b->ref_res = a->ref_res;
    cost_profile prof = xf_export_pricing(to->prog, to->bindings, to->nbindings, &to->profile);
    if (cost_evaluate(to->model, &a->res->trace, &prof, &b->cost) != 0) {
        diag_add(d, NULL, 0, 0, "unknown cost model '%s'", to->model);
        return -1;
    }
    b->has_cost = 1;
    if (a->ref_res && cost_evaluate(to->model, &a->ref_res->trace, &to->profile, &b->ref_cost) == 0)
        b->has_ref_cost = 1;
    b->verified = a->verified;
    to->ran = 1;
    to->total = b->cost.total;
    to->verified = b->verified;
    return 0;
}

static void price_drop(ops_sim *to) { to->job.res = to->job.ref_res = NULL; }

/* Simulates (or finds) the row's node under every model — one simulation for all the models
 * whose result is not stored yet — and stores each; fills cost[], verified, predicted. */
static int price_row(store *s, cmp_row *r, const cost_profile *prof, const char *model,
                     const ir_binding *b, int nb, diag_list *d)
{
    const char *const *models = cost_model_names();
    ops_sim js[MAX_MODELS];
    int nm = 0, rc = 0;
    const ops_sim *run = NULL;
    r->verified = 1;
    for (; models[nm] && nm < MAX_MODELS; nm++) {
        ops_sim *j = &js[nm];
        memset(j, 0, sizeof *j);
        j->node = r->node;
        j->model = models[nm];
        j->profile = *prof;
        j->nbindings = nb < OPS_MAX_BINDINGS ? nb : OPS_MAX_BINDINGS;
        memcpy(j->bindings, b, (size_t)j->nbindings * sizeof *b);
    }
    for (int m = 0; m < nm && rc == 0; m++) {
        ops_sim *j = &js[m];
        int p = ops_sim_prepare(s, j, d);
        if (p < 0) { rc = -1; break; }
        if (p == 0) {
            if (run) rc = price_from(j, run, d);
            else if ((rc = ops_sim_run(j, NULL, NULL, NULL, d)) == 0) run = j;
            if (rc == 0) rc = ops_sim_store(s, j, d);
        }
        if (rc != 0) break;
        r->cost[m] = j->total;
        if (j->verified != 1) r->verified = j->verified;
        if (!strcmp(models[m], model)) r->predicted = j->total * prof->tick_seconds;
        if (!r->params) r->params = strdup(j->params ? j->params : "");
    }
    for (int m = nm - 1; m >= 0; m--) {
        if (run && &js[m] != run) price_drop(&js[m]);
        ops_sim_free(&js[m]);
    }
    return rc;
}

/* The rows of one node: one per measured (ranks, params), else one at the -D values. */
static int node_rows(store *s, int64_t node, const char *label, const cliopts *o, const cost_profile *prof,
                     const char *model, cmp *c, diag_list *d)
{
    store_measurement *ms = NULL;
    int nm = 0;
    if (store_measurement_list(s, node, &ms, &nm, d) != 0) return -1;
    int rc = 0;
    char *done = calloc((size_t)nm + 1, 1);
    for (int i = 0; i < nm && rc == 0; i++) {
        if (done[i]) continue;
        double sum = 0;
        int runs = 0;
        for (int k = i; k < nm; k++)
            if (!done[k] && ms[k].ranks == ms[i].ranks && !strcmp(ms[k].params, ms[i].params)) {
                sum += ms[k].seconds;
                runs++;
                done[k] = 1;
            }
        cmp_row *r = row_new(c);
        if (!r) { rc = -1; break; }
        r->node = node;
        r->label = strdup(label);
        r->ranks = ms[i].ranks;
        r->measured = sum / runs;
        r->runs = runs;
        char *buf = strdup(ms[i].params);
        ir_binding b[OPS_MAX_BINDINGS];
        int nb = buf ? params_bindings(buf, b, OPS_MAX_BINDINGS) : 0;
        rc = price_row(s, r, prof, model, b, nb, d);
        free(buf);
    }
    if (rc == 0 && nm == 0) {
        cmp_row *r = row_new(c);
        if (!r) rc = -1;
        else {
            r->node = node;
            r->label = strdup(label);
            rc = price_row(s, r, prof, model, o->bindings, o->nbindings, d);
        }
    }
    free(done);
    store_measurements_free(ms, nm);
    return rc;
}

static double tau_of(const cmp *c, int *nmeasured)
{
    double *p = malloc((size_t)(c->n + 1) * sizeof *p), *m = malloc((size_t)(c->n + 1) * sizeof *m);
    int k = 0;
    for (int i = 0; p && m && i < c->n; i++)
        if (c->rows[i].measured > 0) { p[k] = c->rows[i].predicted; m[k] = c->rows[i].measured; k++; }
    double t = k >= 2 ? stats_kendall_tau(p, m, k) : NAN;
    free(p);
    free(m);
    *nmeasured = k;
    return t;
}

static void print_text(const cmp *c, const cost_profile *prof, const char *model, double tau, int nmeas)
{
    const char *const *models = cost_model_names();
    printf("compare: machine %s (tick %.6g s), predicted seconds by the %s model\n", prof->name,
           prof->tick_seconds, model);
    printf("%-5s %-22s %5s %-22s", "node", "label", "ranks", "params");
    for (int m = 0; models[m] && m < MAX_MODELS; m++) printf(" %12s", models[m]);
    printf(" %12s %12s %8s %s\n", "predicted_s", "measured_s", "error", "verified");
    for (int i = 0; i < c->n; i++) {
        const cmp_row *r = &c->rows[i];
        char ranks[16];
        snprintf(ranks, sizeof ranks, r->ranks ? "%d" : "-", r->ranks);
        printf("%-5lld %-22.22s %5s %-22.22s", (long long)r->node, r->label, ranks, r->params ? r->params : "");
        for (int m = 0; models[m] && m < MAX_MODELS; m++) printf(" %12.6g", r->cost[m]);
        printf(" %12.6g", r->predicted);
        if (r->measured > 0)
            printf(" %12.6g %+7.1f%%", r->measured, 100 * (r->predicted - r->measured) / r->measured);
        else
            printf(" %12s %8s", "-", "-");
        printf(" %s\n", r->verified == 1 ? "yes" : r->verified == 0 ? "NO" : "-");
    }
    if (nmeas >= 2)
        printf("Kendall tau (predicted vs measured order, %d measured rows): %.3f\n", nmeas, tau);
    else
        printf("Kendall tau: needs two measured rows (%d; polyapm run or polyapm measure)\n", nmeas);
}

static void print_json(const cmp *c, const cost_profile *prof, const char *model, double tau, int nmeas)
{
    const char *const *models = cost_model_names();
    printf("{\"machine\":");
    report_json_string(stdout, prof->name);
    printf(",\"tick_seconds\":%.10g,\"model\":", prof->tick_seconds);
    report_json_string(stdout, model);
    printf(",\"rows\":[");
    for (int i = 0; i < c->n; i++) {
        const cmp_row *r = &c->rows[i];
        printf("%s{\"node\":%lld,\"label\":", i ? "," : "", (long long)r->node);
        report_json_string(stdout, r->label);
        printf(",\"ranks\":%d,\"params\":", r->ranks);
        report_json_string(stdout, r->params ? r->params : "");
        printf(",\"cost\":{");
        for (int m = 0; models[m] && m < MAX_MODELS; m++) printf("%s\"%s\":%.10g", m ? "," : "", models[m], r->cost[m]);
        printf("},\"predicted_seconds\":%.10g,\"verified\":%d", r->predicted, r->verified);
        if (r->measured > 0)
            printf(",\"measured_seconds\":%.10g,\"runs\":%d,\"error\":%.6g", r->measured, r->runs,
                   (r->predicted - r->measured) / r->measured);
        else
            printf(",\"measured_seconds\":null,\"runs\":0,\"error\":null");
        printf("}");
    }
    printf("],\"measured\":%d,\"tau\":", nmeas);
    if (nmeas >= 2) printf("%.6g}\n", tau); else printf("null}\n");
}

static int by_ranks(const void *a, const void *b)
{
    const cmp_row *x = *(const cmp_row *const *)a, *y = *(const cmp_row *const *)b;
    return (x->ranks > y->ranks) - (x->ranks < y->ranks);
}

/* Panel 1: predicted against measured seconds (one point per measured row, the diagonal).
 * Panel 2, when a node was measured at two or more rank counts: measured (points) and predicted
 * (lines) seconds over the ranks, per node (the thesis's Fig. 6.11 against its model). */
static int plot_compare(const char *path, const cmp *c, const char *model, diag_list *d)
{
    size_t n = (size_t)c->n + 1;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    double *rx = malloc(n * sizeof *rx), *rm = malloc(n * sizeof *rm), *rp = malloc(n * sizeof *rp);
    const char **labels = malloc(n * sizeof *labels);
    const cmp_row **sorted = malloc(n * sizeof *sorted);
    plot_series *curves = calloc(2 * n, sizeof *curves);
    char (*titles)[96] = calloc(2 * n, sizeof *titles);
    int k = 0, rc = -1, nc = 0, used = 0;
    if (!x || !y || !rx || !rm || !rp || !labels || !sorted || !curves || !titles) {
        diag_add(d, NULL, 0, 0, "out of memory");
        goto out;
    }
    for (int i = 0; i < c->n; i++)
        if (c->rows[i].measured > 0) {
            x[k] = c->rows[i].measured;
            y[k] = c->rows[i].predicted;
            labels[k++] = c->rows[i].label;
        }
    if (!k) { diag_add(d, NULL, 0, 0, "nothing to plot: no measured rows (polyapm run or polyapm measure)"); goto out; }
    /* per node: its measured rows by ranks (rows of one node are adjacent) */
    for (int i = 0; i < c->n;) {
        int j = i, m = 0;
        while (j < c->n && c->rows[j].node == c->rows[i].node) {
            if (c->rows[j].measured > 0) sorted[m++] = &c->rows[j];
            j++;
        }
        qsort(sorted, (size_t)m, sizeof *sorted, by_ranks);
        int distinct = m > 0;
        for (int q = 1; q < m; q++) distinct += sorted[q]->ranks != sorted[q - 1]->ranks;
        if (distinct >= 2) {
            for (int q = 0; q < m; q++) {
                rx[used + q] = sorted[q]->ranks;
                rm[used + q] = sorted[q]->measured;
                rp[used + q] = sorted[q]->predicted;
            }
            snprintf(titles[nc], sizeof titles[nc], "%s measured", sorted[0]->label);
            curves[nc] = (plot_series){.title = titles[nc], .x = rx + used, .y = rm + used, .n = m, .style = "points pt 7"};
            nc++;
            snprintf(titles[nc], sizeof titles[nc], "%s predicted", sorted[0]->label);
            curves[nc] = (plot_series){.title = titles[nc], .x = rx + used, .y = rp + used, .n = m, .style = "lines"};
            nc++;
            used += m;
        }
        i = j;
    }
    char title[96];
    snprintf(title, sizeof title, "%s model against measured run times", model);
    plot_series se = {.title = "leaves", .x = x, .y = y, .n = k, .style = "points pt 7", .labels = labels};
    plot_panel pa[2] = {
        {.title = title, .xlabel = "measured seconds", .ylabel = "predicted seconds", .logx = 1, .logy = 1,
         .diagonal = 1, .series = &se, .nseries = 1},
        {.title = "seconds over ranks", .xlabel = "ranks", .ylabel = "seconds", .logy = 1, .series = curves,
         .nseries = nc},
    };
    rc = plot_write(path, pa, nc ? 2 : 1, d);
out:
    free(x); free(y); free(rx); free(rm); free(rp); free(labels); free(sorted); free(curves); free(titles);
    return rc;
}

int cmd_compare(int argc, char **argv);
const cli_spec cmd_compare_spec = {"compare", "[NODE...]",
                               "predicted (every model) against measured seconds for the leaves; error; Kendall tau",
                               cliopts_table, CO_COMPARE, NULL, NULL, cmd_compare};

int cmd_compare(int argc, char **argv)
{
    cliopts o;
    int rc = cliopts_parse(&cmd_compare_spec, argc, argv, &o);
    if (rc) return rc;
    if (o.plot && !plot_format_ok(o.plot)) return cli_usage("compare", "--plot FILE.svg or FILE.png");
    const char *model = o.model ? o.model : "polyapm";
    store *s = NULL;
    if (cliopts_open(&o, STORE_WRITE, &s) != 0) return CLI_FAIL;
    cost_profile prof;
    if (cliopts_machine(&o, s, &prof) != 0) { store_close(s); return CLI_FAIL; }
    diag_list d;
    diag_list_init(&d);
    cmp c = {0};
    store_graph g = {0};
    int status = CLI_FAIL;
    if (o.npos) {
        for (int i = 0; i < o.npos; i++) {
            int64_t id;
            store_node n;
            memset(&n, 0, sizeof n);
            if (store_resolve(s, o.pos[i], &id, &d) != 0 || store_node_get(s, id, &n, &d) != 0) goto fail;
            rc = node_rows(s, id, n.label, &o, &prof, model, &c, &d);
            store_node_clear(&n);
            if (rc != 0) goto fail;
        }
    } else {
        if (store_graph_load(s, &g, &d) != 0) goto fail;
        for (int i = 0; i < g.n; i++)
            if (g.nodes[i].nchildren == 0 && node_rows(s, g.nodes[i].id, g.nodes[i].label, &o, &prof, model, &c, &d) != 0)
                goto fail;
    }
    int nmeas;
    double tau = tau_of(&c, &nmeas);
    if (o.json) print_json(&c, &prof, model, tau, nmeas);
    else print_text(&c, &prof, model, tau, nmeas);
    if (o.plot) {
        if (plot_compare(o.plot, &c, model, &d) != 0) goto fail;
        if (!o.json) printf("plot: %s\n", o.plot);
    }
    status = CLI_OK;
    goto out;
fail:
    diag_print(&d, stderr);
out:
    for (int i = 0; i < c.n; i++) { free(c.rows[i].label); free(c.rows[i].params); }
    free(c.rows);
    store_graph_free(&g);
    store_close(s);
    diag_list_free(&d);
    return status;
}
