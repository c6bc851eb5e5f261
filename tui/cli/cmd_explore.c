/*
 * cmd_explore.c — `polyapm explore NODE [--depth D] [--budget N] [--jobs J] [--machine M]
 * [--model M] [-D name=value]... [--at name=value,... [--rank-top K]]`: the automatic
 * best-first search of tui/app/explore.c from a workspace node, with (--at, alias --rank-at) its
 * K best leaves ranked by their predicted seconds at the user's size, extrapolated from smaller
 * simulations (explore_opts.at), the per-rank code of the best there made local.  Prints the
 * best leaves with their paths of decisions (or --json).  A progress
 * line goes to stderr when it is a terminal (--progress: one line per change, for logs and the
 * TUI).  SIGINT/SIGTERM stop the search cleanly (exit 1, "interrupted"); running the same
 * command again continues from what is stored.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "report.h"
#include "cliopts.h"
#include "explore.h"

static void on_signal(int sig)
{
    (void)sig;
    explore_interrupt();
}

typedef struct prog_ctx {
    int tty, lines, budget;
    struct timespec last;
} prog_ctx;

static void show_progress(void *ctx, const explore_stats *st)
{
    prog_ctx *p = ctx;
    if (!p->tty && !p->lines) return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double dt = (double)(now.tv_sec - p->last.tv_sec) + 1e-9 * (double)(now.tv_nsec - p->last.tv_nsec);
    if (dt < 0.1 && st->evaluated < p->budget) return;
    p->last = now;
    char best[32] = "-";
    if (st->best >= 0) snprintf(best, sizeof best, "%.6g", st->best);
    fprintf(stderr, "%sexplore: %d/%d evaluated (%d stored), %d refused, %d open, %d pruned, %d leaves, best %s%s",
            p->tty && !p->lines ? "\r" : "", st->evaluated, p->budget, st->from_store, st->refused, st->open,
            st->pruned, st->leaves, best, p->lines ? "\n" : "  ");
    fflush(stderr);
}

/* Sizes as "n=26,tsteps=10": the names of b, their values v[..] (NULL: b's own). */
static void sizes_text(const ir_binding *b, const int64_t *v, int nat, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int k = 0; k < nat; k++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s=%lld", k ? "," : "", b[k].name,
                 (long long)(v ? v[k] : b[k].value));
}

/* Sample m of explore --at's sizes. */
static void at_sample_text(const explore_at *x, int m, int nat, char *buf, size_t len)
{
    sizes_text(x->b[m], NULL, nat, buf, len);
}

/* A ranked leaf's largest sample. */
static void leaf_sample_text(const explore_at *x, const explore_leaf *l, int nat, char *buf, size_t len)
{
    sizes_text(x->b[0], l->rank_largest, x->n ? nat : 0, buf, len);
}

/* Whether leaf l's samples grew beyond the search's (explore_rank.c, at_grow). */
static int leaf_grown(const explore_at *x, const explore_leaf *l)
{
    return x->n && l->rank_verified >= 0 && l->rank_lambda > x->lam[x->n - 1] * (1 + 1e-9);
}

static void print_path(store *s, int64_t id, FILE *out, int json)
{
    store_step *steps = NULL;
    int n = 0;
    diag_list d;
    diag_list_init(&d);
    if (store_path(s, id, &steps, &n, &d) != 0) { diag_list_free(&d); return; }
    for (int i = 1; i < n; i++) {
        if (json) {
            fprintf(out, "%s{\"node\":%lld,\"transform\":", i > 1 ? "," : "", (long long)steps[i].node.id);
            report_json_string(out, steps[i].edge.transform ? steps[i].edge.transform : "");
            fprintf(out, ",\"params\":");
            report_json_string(out, steps[i].edge.params ? steps[i].edge.params : "");
            fprintf(out, "}");
        } else {
            fprintf(out, "%s%s%s%s", i > 1 ? " -> " : "", steps[i].edge.transform ? steps[i].edge.transform : "?",
                    steps[i].edge.params && *steps[i].edge.params ? " " : "",
                    steps[i].edge.params ? steps[i].edge.params : "");
        }
    }
    store_path_free(steps, n);
    diag_list_free(&d);
}

/* --at "n=1000,tsteps=100" into bindings naming `buf` (a copy the caller frees).  The count,
 * or -1 after a usage message. */
static int parse_rank_at(const char *text, char **buf, ir_binding *out, int max)
{
    int n = 0;
    *buf = strdup(text);
    if (!*buf) return -1;
    for (char *w = *buf; w; n++) {   /* every field, empty ones too */
        char *comma = strchr(w, ',');
        if (comma) *comma = 0;
        if (n == max) return cli_usage("explore", "--at takes at most %d values", max), -1;
        if (ir_parse_binding(w, &out[n]) != 0)
            return cli_usage("explore", "--at takes name=integer,..., not '%s'", text), -1;
        w = comma ? comma + 1 : NULL;
    }
    return n;
}

/* Why the best leaf keeps its work on one processor (explore_explain), as text. */
static void print_why(const explore_result *res)
{
    if (res->spread != 0) return;
    if (res->spread_node)
        printf("the best leaf keeps the work on one processor (node %lld spreads it, at a higher cost)", (long long)res->spread_node);
    else
        printf("no leaf spreads the work: each keeps it on one processor");
    if (!res->nserial) {
        printf("; every statement has a loop that carries no dependence (polyapm deps)\n");
        return;
    }
    printf("\n");
    for (int i = 0; i < res->nserial; i++) {
        const xf_serial *q = &res->serial[i];
        printf("  no loop of %s can run in parallel: each carries a dependence\n", q->stmt);
        for (int l = 0; l < q->nloops; l++) {
            const xf_carry *c = &q->loops[l];
            printf("    %s: dependence %d (%s, %s -> %s through %s), e.g. %s\n", c->var, c->dep, xf_dep_kind_name(c->kind),
                   c->src, c->sink, c->ref, c->example ? c->example : "");
        }
    }
    printf("  an `assume` (polyapm-lang(5)) can state what you know and the analysis cannot see: "
           "`assume %s unchanged when COND` for instances that leave their element as it was\n", res->serial[0].stmt);
}

static void json_why(const explore_result *res)
{
    printf(",\"spread\":%s,\"spread_node\":", res->spread < 0 ? "null" : res->spread ? "true" : "false");
    if (res->spread_node) printf("%lld", (long long)res->spread_node);
    else printf("null");
    printf(",\"serial\":[");
    for (int i = 0; i < res->nserial; i++) {
        const xf_serial *q = &res->serial[i];
        printf("%s{\"statement\":", i ? "," : "");
        report_json_string(stdout, q->stmt);
        printf(",\"loops\":[");
        for (int l = 0; l < q->nloops; l++) {
            const xf_carry *c = &q->loops[l];
            printf("%s{\"var\":", l ? "," : "");
            report_json_string(stdout, c->var);
            printf(",\"dependence\":%d,\"kind\":\"%s\",\"source\":", c->dep, xf_dep_kind_name(c->kind));
            report_json_string(stdout, c->src);
            printf(",\"sink\":");
            report_json_string(stdout, c->sink);
            printf(",\"through\":");
            report_json_string(stdout, c->ref);
            printf(",\"example\":");
            report_json_string(stdout, c->example ? c->example : "");
            printf("}");
        }
        printf("]}");
    }
    printf("]");
}

/* The result as one JSON object. */
static void print_json(store *s, const cliopts *o, const explore_opts *eo, const explore_result *res, double secs,
                       int nat, diag_list *d)
{
    const explore_stats *st = &res->stats;
    printf("{\"start\":%lld,\"machine\":", (long long)eo->start);
    report_json_string(stdout, eo->profile.name);
    printf(",\"model\":");
    report_json_string(stdout, eo->model ? eo->model : "polyapm");
    printf(",\"evaluated\":%d,\"from_store\":%d,\"applied\":%d,\"refused\":%d,\"expanded\":%d,"
           "\"pruned\":%d,\"unverified\":%d,\"open\":%d,\"off_procs\":%d,\"interrupted\":%s,\"budget_hit\":%s,"
           "\"seconds\":%.3f,\"search_cpu\":%.3f,\"worker_cpu\":%.3f,\"best\":",
           st->evaluated, st->from_store, st->applied, st->refused, st->expanded, st->pruned, st->unverified,
           st->open, st->off_procs, st->interrupted ? "true" : "false", st->budget_hit ? "true" : "false", secs,
           st->search_cpu, st->worker_cpu);
    if (st->best >= 0) printf("{\"node\":%lld,\"cost\":%.10g}", (long long)st->best_node, st->best);
    else printf("null");
    printf(",\"at\":");
    if (nat) report_json_string(stdout, o->rank_at);
    else printf("null");
    printf(",\"rank_at\":");
    if (nat) report_json_string(stdout, o->rank_at);
    else printf("null");
    printf(",\"at_samples\":[");
    for (int m = 0; m < res->at.n; m++) {
        char b[256];
        at_sample_text(&res->at, m, nat, b, sizeof b);
        printf("%s{\"params\":", m ? "," : "");
        report_json_string(stdout, b);
        printf(",\"lambda\":%.6g,\"data_scale\":%.6g}", res->at.lam[m], res->at.scale[m]);
    }
    printf("],\"at_shrink\":%.10g,\"at_degree\":%d", res->at.shrink, res->at.degree);
    printf(",\"leaves\":[");
    for (int i = 0; i < res->nleaves; i++) {
        store_node n;
        memset(&n, 0, sizeof n);
        store_node_get(s, res->leaves[i].node, &n, d);
        printf("%s{\"node\":%lld,\"label\":", i ? "," : "", (long long)res->leaves[i].node);
        report_json_string(stdout, n.label ? n.label : "");
        printf(",\"level\":\"%s\",\"cost\":%.10g,\"weighed\":%.10g,\"verified\":%d,\"procs\":%d,", n.level,
               res->leaves[i].cost, res->leaves[i].weighed, res->leaves[i].verified, res->leaves[i].nprocs);
        if (res->leaves[i].rank_verified >= 0) {
            char b[256];
            leaf_sample_text(&res->at, &res->leaves[i], nat, b, sizeof b);
            printf("\"rank_cost\":%.10g,\"rank_seconds\":%.10g,\"rank_verified\":%d,\"rank_lambda\":%.6g,"
                   "\"rank_largest\":", res->leaves[i].rank_cost, res->leaves[i].rank_seconds,
                   res->leaves[i].rank_verified, res->leaves[i].rank_lambda);
            report_json_string(stdout, b);
            printf(",");
        }
        printf("\"path\":[");
        print_path(s, res->leaves[i].node, stdout, 1);
        printf("]}");
        store_node_clear(&n);
    }
    printf("]");
    json_why(res);
    printf("}\n");
}

/* The result as text: the search's counts, then the `top` best leaves with their paths. */
static void print_text(store *s, const cliopts *o, const explore_opts *eo, const explore_result *res, double secs,
                       int nat, int top, diag_list *d)
{
    const explore_stats *st = &res->stats;
    printf("explore from node %lld: machine %s, model %s\n", (long long)eo->start, eo->profile.name,
           eo->model ? eo->model : "polyapm");
    printf("%d nodes evaluated (%d from the store), %d transforms applied, %d refused, %d expanded, "
           "%d pruned, %d unverified, %d open; %.1f s%s%s\n",
           st->evaluated, st->from_store, st->applied, st->refused, st->expanded, st->pruned, st->unverified,
           st->open, secs, st->budget_hit ? "; budget reached" : "", st->interrupted ? "; interrupted" : "");
    if (nat && res->at.n) {
        char lo[256], hi[256];
        at_sample_text(&res->at, 0, nat, lo, sizeof lo);
        at_sample_text(&res->at, res->at.n - 1, nat, hi, sizeof hi);
        printf("ranked at %s: the best leaves first, by their cost there extrapolated from %d sizes (%s .. %s)\n",
               o->rank_at, res->at.n, lo, hi);
    }
    printf("%d leaves%s\n", res->nleaves, res->nleaves ? ", best first:" : "");
    for (int i = 0; i < res->nleaves && i < top; i++) {
        store_node n;
        memset(&n, 0, sizeof n);
        store_node_get(s, res->leaves[i].node, &n, d);
        printf("  %lld %s  %s  %d procs  cost %.7g  %s", (long long)res->leaves[i].node,
               n.label ? n.label : "?", n.level, res->leaves[i].nprocs, res->leaves[i].cost,
               res->leaves[i].verified == 1 ? "verified" : "NOT verified");
        if (res->leaves[i].rank_verified >= 0)
            printf("; at %s: %.4g s predicted (cost %.7g)  %s", o->rank_at, res->leaves[i].rank_seconds,
                   res->leaves[i].rank_cost, res->leaves[i].rank_verified == 1 ? "verified" : "NOT verified");
        if (leaf_grown(&res->at, &res->leaves[i])) {
            char b[256];
            leaf_sample_text(&res->at, &res->leaves[i], nat, b, sizeof b);
            printf(", sampled up to %s", b);
        }
        printf("\n      ");
        print_path(s, res->leaves[i].node, stdout, 0);
        printf("\n");
        store_node_clear(&n);
    }
    print_why(res);
    if (st->off_procs)
        printf("%d nodes left out: they run on another number of processors than procs\n", st->off_procs);
    if (st->interrupted) printf("interrupted: run the same command again to continue\n");
}

int cmd_explore(int argc, char **argv);
const cli_spec cmd_explore_spec = {"explore", "NODE",
                               "best-first search of the transforms below NODE; the best leaves with their paths",
                               cliopts_table, CO_EXPLORE, NULL, NULL, cmd_explore};

int cmd_explore(int argc, char **argv)
{
    cliopts o;
    int rc = cliopts_parse(&cmd_explore_spec, argc, argv, &o);
    if (rc) return rc;
    if (o.npos != 1) return cli_usage("explore", "give one node to explore from");
    if (o.jobs == 0 || o.jobs > 64) return cli_usage("explore", "--jobs takes 1..64");
    if (o.budget == 0) return cli_usage("explore", "--budget takes a positive number");
    if (o.depth == 0) return cli_usage("explore", "--depth takes a positive number");
    if (o.nbindings > EXPLORE_MAX_BINDINGS) return cli_usage("explore", "too many -D options");
    if (o.rank_top == 0) return cli_usage("explore", "--rank-top takes a positive number");
    if (o.rank_top > 0 && !o.rank_at) return cli_usage("explore", "--rank-top needs --at");
    ir_binding at[EXPLORE_MAX_BINDINGS];
    char *atbuf = NULL, *attext = NULL;
    int nat = 0;
    store *s = NULL;
    if (cliopts_open(&o, STORE_WRITE, &s) != 0) return CLI_FAIL;
    explore_opts eo;
    memset(&eo, 0, sizeof eo);
    diag_list d;
    diag_list_init(&d);
    explore_result res;
    memset(&res, 0, sizeof res);
    int status = CLI_FAIL;
    if (cliopts_machine(&o, s, &eo.profile) != 0) goto out;
    if (store_resolve(s, o.pos[0], &eo.start, &d) != 0) goto fail;
    if (o.rank_at) {   /* the user's size: the node's parameters, or the C file's words for them */
        if (!(attext = cli_at_sizes(s, eo.start, o.rank_at, &d))) goto fail;
        if ((nat = parse_rank_at(attext, &atbuf, at, EXPLORE_MAX_BINDINGS)) < 0) { status = CLI_USAGE; goto out; }
        o.rank_at = attext;
    }
    if (nat && explore_rank_check(s, eo.start, at, nat, &d) != 0) goto fail;
    eo.depth = o.depth > 0 ? (int)o.depth : 0;
    eo.budget = o.budget > 0 ? (int)o.budget : 0;
    eo.jobs = o.jobs > 0 ? (int)o.jobs : 1;
    eo.model = o.model;
    eo.prune_slack = nat ? EXPLORE_RANK_SLACK : 1;
    memcpy(eo.at, at, (size_t)nat * sizeof at[0]);
    eo.nat = nat;
    eo.rank_top = o.rank_top > 0 ? (int)o.rank_top : 0;
    eo.nbindings = o.nbindings;
    memcpy(eo.bindings, o.bindings, (size_t)o.nbindings * sizeof o.bindings[0]);
    prog_ctx pc = {.tty = !o.quiet && isatty(2), .lines = o.progress, .budget = eo.budget ? eo.budget : 200};
    eo.progress = show_progress;
    eo.progress_ctx = &pc;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;        /* no SA_RESTART: a wait for a worker returns at once */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rc = explore_run(s, &eo, &res, &d);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (pc.tty && !pc.lines) fprintf(stderr, "\n");
    if (rc != 0) goto fail;
    if (!res.stats.interrupted) {   /* a source the analysis cannot model: no reasons given */
        diag_list wd;
        diag_list_init(&wd);
        explore_explain(s, &eo, &res, &wd);
        diag_list_free(&wd);
    }
    const explore_leaf *first = res.nleaves ? &res.leaves[0] : NULL;
    if (nat && first && first->rank_verified == 1) {   /* the best is the best at the user's size */
        res.stats.best = first->cost;
        res.stats.best_node = first->node;
    }
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    const explore_stats *st = &res.stats;
    if (o.json) print_json(s, &o, &eo, &res, secs, nat, &d);
    else print_text(s, &o, &eo, &res, secs, nat, o.top >= 0 ? (int)o.top : 5, &d);
    status = st->interrupted ? CLI_FAIL : CLI_OK;
    goto out;
fail:
    if (d.n) diag_print(&d, stderr);
out:
    explore_result_free(&res);
    store_close(s);
    diag_list_free(&d);
    free(atbuf);
    free(attext);
    return status;
}
