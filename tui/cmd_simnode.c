/*
 * cmd_simnode.c — `polyapm sim NODE [options]` in a workspace (cmd_sim hands over anything that
 * is not a file): simulates the node, verifies it against the root (the source), prices it,
 * stores the result keyed by (node, machine profile, cost model, parameter values) and prints it
 * as the file mode does.  A repeated identical simulation is answered from the store unless
 * --force.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "report.h"
#include "simargs.h"
#include "simjob.h"
#include "store.h"

/* "n=256,steps=21": the parameter values this run will use (the cache key). */
static char *param_key(const ir_program *p, const simargs *a, diag_list *d)
{
    int64_t *v = calloc((size_t)p->nparams + 1, sizeof *v);
    if (!v) return NULL;
    if (ir_params_eval(p, a->bindings, a->nbindings, 0, v, d) != 0) { free(v); return NULL; }
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f) { free(v); return NULL; }
    for (int i = 0; i < p->nparams; i++)
        fprintf(f, "%s%s=%" PRId64, i ? "," : "", p->params[i]->u.param.name, v[i]);
    fclose(f);
    free(v);
    return out;
}

/* JSON arrays of per-processor totals and of the per-step trace.  The full work matrix (steps x
 * processors) is kept when it has at most TRACE_MATRIX_MAX entries. */
enum { TRACE_MATRIX_MAX = 100000 };

static void json_doubles(FILE *f, const double *v, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; i++) fprintf(f, "%s%.17g", i ? "," : "", v ? v[i] : 0.0);
    fputc(']', f);
}

static void json_ints(FILE *f, const int64_t *v, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; i++) fprintf(f, "%s%" PRId64, i ? "," : "", v ? v[i] : 0);
    fputc(']', f);
}

static char *per_proc_json(const cost_summary *c)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f) return NULL;
    fprintf(f, "{\"work\":");
    json_doubles(f, c->work, c->nprocs);
    fprintf(f, ",\"comm\":");
    json_doubles(f, c->comm, c->nprocs);
    fprintf(f, ",\"sends\":");
    json_ints(f, c->sends, c->nprocs);
    fprintf(f, ",\"recvs\":");
    json_ints(f, c->recvs, c->nprocs);
    fprintf(f, "}");
    fclose(f);
    return out;
}

static char *trace_json(const sim_trace *t, const cost_summary *c)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f) return NULL;
    fprintf(f, "{\"nsteps\":%d,\"nprocs\":%d,\"step_time\":", t->nsteps, t->nprocs);
    json_ints(f, t->step_time, t->nsteps);
    fprintf(f, ",\"step_cost\":");
    json_doubles(f, c->step_cost, c->nsteps);
    fprintf(f, ",\"step_max_work\":[");
    for (int s = 0; s < t->nsteps; s++) {
        double m = 0;
        for (int p = 0; p < t->nprocs; p++)
            if (t->work && t->work[(size_t)s * (size_t)t->nprocs + (size_t)p] > m)
                m = t->work[(size_t)s * (size_t)t->nprocs + (size_t)p];
        fprintf(f, "%s%.17g", s ? "," : "", m);
    }
    fprintf(f, "]");
    if ((int64_t)t->nsteps * t->nprocs <= TRACE_MATRIX_MAX && t->work) {
        fprintf(f, ",\"work\":[");
        for (int s = 0; s < t->nsteps; s++) {
            fprintf(f, "%s", s ? "," : "");
            json_doubles(f, t->work + (size_t)s * (size_t)t->nprocs, t->nprocs);
        }
        fprintf(f, "]");
    }
    fprintf(f, "}");
    fclose(f);
    return out;
}

/* --machine: a built-in profile or a profile file, else a profile stored in the workspace
 * under that name (e.g. `local`, from calibrate). */
static int resolve_machine(store *s, const char *name, cost_profile *out, diag_list *d)
{
    diag_list first;
    diag_list_init(&first);
    if (cost_profile_resolve(name, out, &first) == 0) { diag_list_free(&first); return 0; }
    char *text = store_machine_get(s, name, d);
    if (!text) {
        for (int i = 0; i < first.n; i++)
            diag_add(d, first.items[i].file, first.items[i].line, first.items[i].col, "%s", first.items[i].msg);
        diag_list_free(&first);
        return -1;
    }
    diag_list_free(&first);
    int rc = cost_profile_parse(name, text, out, d);
    if (rc == 0 && !out->name[0]) snprintf(out->name, sizeof out->name, "%s", name);
    free(text);
    return rc;
}

typedef void (*report_fn)(FILE *, const report_input *);

static char *render(report_fn fn, const report_input *in)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f) return NULL;
    fn(f, in);
    fclose(f);
    return out;
}

/* Prints a report: text as is (plus where it came from), JSON with the node and "stored". */
static void emit(const simargs *a, const store_node *n, const char *text, const char *json,
                 int stored, int64_t when)
{
    if (a->json) {
        const char *body = json;
        while (*body == ' ' || *body == '\n') body++;
        printf("{\"node\":%lld,\"label\":", (long long)n->id);
        cli_json_string(stdout, n->label);
        printf(",\"hash\":\"%s\",\"stored\":%s", n->hash, stored ? "true" : "false");
        if (*body == '{') {
            body++;
            while (*body == ' ' || *body == '\n') body++;
            if (*body != '}') putchar(',');
            fputs(body, stdout);
        } else {
            printf("}\n");
        }
        size_t l = strlen(json);
        if (l && json[l - 1] != '\n') putchar('\n');
    } else {
        printf("node %lld %s (%.7s)\n", (long long)n->id, n->label, n->hash);
        fputs(text, stdout);
        if (stored) {
            time_t t = (time_t)when;
            struct tm tm;
            char buf[64];
            gmtime_r(&t, &tm);
            strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
            printf("from the store: simulated %s (--force simulates again)\n", buf);
        }
    }
}

static int exit_status(int verified, int64_t violations)
{
    return verified != 0 && violations == 0 ? CLI_OK : CLI_FAIL;
}

int cmd_sim_node(int argc, char **argv);
int cmd_sim_node(int argc, char **argv)
{
    simargs a;
    int rc = simargs_parse(argc, argv, SIMARGS_NODE, &a);
    if (rc) return rc;
    const char *model = simargs_model(&a);
    if (!model) return CLI_USAGE;

    diag_list d;
    diag_list_init(&d);
    store *s = NULL;
    store_node node, rootn;
    memset(&node, 0, sizeof node);
    memset(&rootn, 0, sizeof rootn);
    ir_program *prog = NULL, *ref = NULL;
    char *dir = NULL, *text = NULL, *rtext = NULL, *params = NULL, *mtext = NULL;
    char *rep_text = NULL, *rep_json = NULL, *pp = NULL, *tr = NULL;
    simjob job;
    memset(&job, 0, sizeof job);
    store_sim hit;
    memset(&hit, 0, sizeof hit);
    int64_t id, root;
    size_t len, rlen;
    int status = CLI_FAIL;

    dir = store_find(a.workspace, &d);
    if (!dir) {
        /* Neither a file nor a workspace: say both. */
        status = cli_fail("%s: no such file, and %s", a.target, d.n ? d.items[d.n - 1].msg : "no workspace");
        goto out_quiet;
    }
    /* A read-only workspace can still be simulated; the result is then not stored. */
    int readonly = 0;
    if (store_open(dir, STORE_WRITE, &s, &d) != 0 && d.n && strstr(d.items[d.n - 1].msg, "is read-only")) {
        diag_list_free(&d);
        readonly = 1;
        if (store_open(dir, STORE_READ, &s, &d) != 0) goto fail;
    }
    if (!s || store_resolve(s, a.target, &id, &d) != 0 ||
        store_root(s, &root, &d) != 0 || store_node_get(s, id, &node, &d) != 0 ||
        store_node_get(s, root, &rootn, &d) != 0)
        goto fail;
    if (resolve_machine(s, a.machine ? a.machine : "scali2004", &job.profile, &d) != 0) goto fail;
    if ((rc = simargs_apply_sets(&a, &job.profile)) != 0) { status = rc; goto out_quiet; }
    if (!(text = store_node_text(s, id, &len, &d))) goto fail;
    if (!(prog = ir_load_text(node.label, text, len, &d))) goto fail_all;
    if (!(params = param_key(prog, &a, &d))) goto fail_all;
    if (!(mtext = cost_profile_format(&job.profile))) goto fail;

    store_sim key = {.node = id, .machine = job.profile.name, .machine_text = mtext, .model = model,
                     .params = params};
    if (!a.force && !a.trace) {
        int f = store_sim_find(s, &key, &hit, &d);
        if (f < 0) goto fail;
        if (f == 1) {
            emit(&a, &node, hit.report_text, hit.report_json, 1, hit.created);
            status = exit_status(hit.verified, hit.violations);
            goto out_quiet;
        }
    }

    if (id != root) {
        if (!(rtext = store_node_text(s, root, &rlen, &d))) goto fail;
        if (!(ref = ir_load_text(rootn.label, rtext, rlen, &d))) goto fail_all;
    }
    job.prog = prog;
    job.ref = ref;
    job.bindings = a.bindings;
    job.nbindings = a.nbindings;
    job.model = model;
    if (simjob_run(&job, &d) != 0) goto fail_all;

    char refname[256];
    snprintf(refname, sizeof refname, "node %lld %s (the root)", (long long)root, rootn.label);
    report_input in = {.title = prog->name, .prog = prog,
                       .reference = id == root ? "itself" : refname,
                       .machine = job.profile.name, .res = job.res, .cost = &job.cost,
                       .ref = job.ref_res, .ref_cost = job.has_ref_cost ? &job.ref_cost : NULL,
                       .verified = job.verified, .tick_seconds = job.profile.tick_seconds,
                       .trace = 0};
    rep_text = render(report_sim_text, &in);
    rep_json = render(report_sim_json, &in);
    pp = per_proc_json(&job.cost);
    tr = trace_json(&job.res->trace, &job.cost);
    if (!rep_text || !rep_json || !pp || !tr) { diag_add(&d, NULL, 0, 0, "out of memory"); goto fail; }
    store_sim put = key;
    put.total = job.cost.total;
    put.seconds = job.cost.seconds;
    put.aggregate_work = job.res->aggregate_work;
    put.verified = job.verified;
    put.checksum = job.res->checksum;
    put.nprocs = job.cost.nprocs;
    put.nsteps = job.cost.nsteps;
    put.violations = job.res->violations_total;
    put.per_proc = pp;
    put.trace = tr;
    put.report_text = rep_text;
    put.report_json = rep_json;
    put.sim_seconds = job.res->seconds + (job.ref_res ? job.ref_res->seconds : 0);
    if (readonly) fprintf(stderr, "polyapm: %s is read-only; the result is not stored\n", dir);
    else if (store_sim_put(s, &put, NULL, &d) != 0) goto fail;
    if (a.trace) {
        /* The stored report has no trace; print the full one this time. */
        in.trace = 1;
        free(rep_text);
        free(rep_json);
        rep_text = render(report_sim_text, &in);
        rep_json = render(report_sim_json, &in);
        if (!rep_text || !rep_json) { diag_add(&d, NULL, 0, 0, "out of memory"); goto fail; }
    }
    emit(&a, &node, rep_text, rep_json, 0, 0);
    status = exit_status(job.verified, job.res->violations_total);
    goto out_quiet;

fail_all:   /* program diagnostics: every one, as file:line:col */
    diag_print(&d, stderr);
    status = CLI_FAIL;
    goto out_quiet;
fail:
    status = cli_fail("%s", d.n ? d.items[d.n - 1].msg : "failed");
out_quiet:
    store_sim_clear(&hit);
    simjob_free(&job);
    ir_program_free(prog);
    ir_program_free(ref);
    store_node_clear(&node);
    store_node_clear(&rootn);
    store_close(s);
    free(dir);
    free(text);
    free(rtext);
    free(params);
    free(mtext);
    free(rep_text);
    free(rep_json);
    free(pp);
    free(tr);
    diag_list_free(&d);
    return status;
}
