/*
 * ops.c — workspace operations shared by the TUI and the command line (see ops.h): open/create,
 * apply a transform as a child node, add edited text as a child, simulate a node against the
 * root and store the result.
 *
 * The stored simulation uses the same key and the same JSON/text forms as `polyapm sim NODE`
 * (tui/cmd_simnode.c), so a result stored by one is found by the other.
 */
#include "ops.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine_id.h"
#include "mem.h"
#include "report.h"
#include "xf.h"

/* ---- open ----------------------------------------------------------------------------------- */

char *ops_workspace_for(const char *apm_path)
{
    size_t n = strlen(apm_path);
    char *out = malloc(n + 5);
    if (!out) return NULL;
    memcpy(out, apm_path, n + 1);
    if (n > 4 && strcmp(out + n - 4, ".apm") == 0) out[n - 4] = '\0';
    strcat(out, ".pdg");
    return out;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

int ops_open_or_init(const char *ws, const char *apm_path, store **out, int *created, diag_list *d)
{
    *out = NULL;
    if (created) *created = 0;
    if (store_is_workspace(ws) || !apm_path) return store_open(ws, STORE_WRITE, out, d);
    ir_program *p = ir_load_file(apm_path, d);
    if (!p) return -1;
    char *text = ir_print(p);
    int rc = -1;
    store *s = NULL;
    if (!text) { diag_add(d, apm_path, 0, 0, "cannot print the program"); goto done; }
    if (store_create(ws, &s, d) != 0) goto done;
    store_add_req r = {.text = text, .len = strlen(text), .level = ir_level_name(p->level),
                       .transform = "init", .params = base_name(apm_path), .label_hint = p->name};
    int64_t id;
    if (store_node_add(s, &r, &id, NULL, d) != 0) { store_close(s); s = NULL; goto done; }
    if (created) *created = 1;
    rc = 0;
done:
    *out = s;
    free(text);
    ir_program_free(p);
    return rc;
}

/* ---- apply, add ----------------------------------------------------------------------------- */

ir_program *ops_node_program(store *s, int64_t id, diag_list *d)
{
    store_node n;
    memset(&n, 0, sizeof n);
    size_t len;
    char *text = store_node_text(s, id, &len, d);
    if (!text || store_node_get(s, id, &n, d) != 0) { free(text); return NULL; }
    ir_program *p = ir_load_text(n.label, text, len, d);
    free(text);
    store_node_clear(&n);
    return p;
}

static int add_child(store *s, int64_t parent, const ir_program *q, const char *how,
                     const char *params, const char *why, int64_t *child, int *created, diag_list *d)
{
    char *text = ir_print(q);
    if (!text) { diag_add(d, NULL, 0, 0, "cannot print the program"); return -1; }
    store_add_req r = {.text = text, .len = strlen(text), .level = ir_level_name(q->level),
                       .parents = &parent, .nparents = 1, .transform = how,
                       .params = params && *params ? params : NULL, .why = why};
    int c = 0;
    int rc = store_node_add(s, &r, child, &c, d);
    if (created) *created = c;
    free(text);
    return rc;
}

int ops_apply(store *s, int64_t parent, const char *xf, int argc, char *const *argv,
              const ir_binding *ov, int nov, FILE *report, int64_t *child, int *created,
              int *status, diag_list *d)
{
    if (status) *status = XF_EREFUSED;
    if (!xf_find(xf)) {
        if (status) *status = XF_EUSAGE;
        diag_add(d, NULL, 0, 0, "unknown transform '%s'", xf);
        return -1;
    }
    ir_program *p = ops_node_program(s, parent, d);
    if (!p) return -1;
    int st = 0;
    ir_program *q = xf_apply_with(p, xf, argc, argv, ov, nov, report, d, &st);
    int rc = -1;
    if (q) {
        char *params = NULL;
        size_t plen = 0;
        FILE *f = open_memstream(&params, &plen);
        if (f) {
            for (int i = 0; i < argc; i++) fprintf(f, "%s%s", i ? " " : "", argv[i]);
            fclose(f);
        }
        rc = add_child(s, parent, q, xf, params, NULL, child, created, d);
        free(params);
        if (status) *status = rc == 0 ? XF_OK : XF_EREFUSED;
    } else if (status) {
        *status = st;
    }
    ir_program_free(q);
    ir_program_free(p);
    return rc;
}

int ops_add_text(store *s, int64_t parent, const char *text, size_t len, const char *how,
                 const char *params, const char *why, int64_t *child, int *created, diag_list *d)
{
    ir_program *q = ir_load_text("edited.apm", text, len, d);
    if (!q) return -1;
    int rc = add_child(s, parent, q, how ? how : "edit", params, why, child, created, d);
    ir_program_free(q);
    return rc;
}

/* ---- simulation ----------------------------------------------------------------------------- */

/* "n=256,steps=21": the parameter values this run will use (the key, as cmd_simnode.c). */
char *ops_param_key(const ir_program *p, const ir_binding *b, int nb, diag_list *d)
{
    int64_t *v = calloc((size_t)p->nparams + 1, sizeof *v);
    if (!v) return NULL;
    if (ir_params_eval(p, b, nb, 0, v, d) != 0) { free(v); return NULL; }
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
    fprintf(f, ",\"step_work\":[%.17g]}", c->step_work);
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

int ops_sim_prepare(store *s, ops_sim *j, diag_list *d)
{
    size_t len, rlen;
    char *text = NULL, *rtext = NULL;
    int rc = -1;
    if (store_reference(s, j->node, &j->root, d) != 0 || store_node_get(s, j->node, &j->n, d) != 0 ||
        store_node_get(s, j->root, &j->rootn, d) != 0)
        return -1;
    if (!(text = store_node_text(s, j->node, &len, d))) goto out;
    if (!(j->prog = ir_load_text(j->n.label, text, len, d))) goto out;
    if (!(j->params = ops_param_key(j->prog, j->bindings, j->nbindings, d))) goto out;
    if (!(j->mtext = ops_machine_key_text(&j->profile))) { diag_add(d, NULL, 0, 0, "out of memory"); goto out; }
    if (!j->force) {
        store_sim key = {.node = j->node, .machine = j->profile.name, .machine_text = j->mtext,
                         .model = j->model ? j->model : "polyapm", .params = j->params};
        int f = store_sim_find(s, &key, &j->stored, d);
        if (f < 0) goto out;
        if (f == 1) {
            j->hit = 1;
            j->total = j->stored.total;
            j->verified = j->stored.verified;
            rc = 1;
            goto out;
        }
    }
    if (j->node != j->root) {
        if (!(rtext = store_node_text(s, j->root, &rlen, d))) goto out;
        if (!(j->ref = ir_load_text(j->rootn.label, rtext, rlen, d))) goto out;
    }
    rc = 0;
out:
    free(text);
    free(rtext);
    return rc;
}

int ops_sim_run(ops_sim *j, volatile int *cancel, void (*progress)(void *, double), void *ctx,
                diag_list *d)
{
    j->job.prog = j->prog;
    j->job.ref = j->ref;
    j->job.bindings = j->bindings;
    j->job.nbindings = j->nbindings;
    j->job.model = j->model ? j->model : "polyapm";
    j->job.profile = j->profile;
    j->job.cancel = cancel;
    j->job.progress = progress;
    j->job.progress_ctx = ctx;
    if (simjob_run(&j->job, d) != 0) return -1;
    if (cancel && *cancel) { diag_add(d, NULL, 0, 0, "simulation cancelled"); return -1; }
    j->ran = 1;
    j->total = j->job.cost.total;
    j->verified = j->job.verified;
    return 0;
}

char *ops_sim_report(const ops_sim *j, int json, int trace)
{
    if (!j->ran) return NULL;
    char refname[256];
    snprintf(refname, sizeof refname, "node %lld %s (the root)", (long long)j->root, j->rootn.label);
    const simjob *job = &j->job;
    report_input in = {.title = j->prog->name, .prog = j->prog,
                       .reference = j->node == j->root ? "itself" : refname,
                       .machine = j->profile.name, .res = job->res, .cost = &job->cost,
                       .ref = job->ref_res, .ref_cost = job->has_ref_cost ? &job->ref_cost : NULL,
                       .verified = job->verified, .tick_seconds = j->profile.tick_seconds,
                       .trace = trace, .profile = &j->profile};
    return render(json ? report_sim_json : report_sim_text, &in);
}

int ops_sim_row(const ops_sim *j, store_sim *row, char *owned[4], diag_list *d)
{
    memset(row, 0, sizeof *row);
    owned[0] = owned[1] = owned[2] = owned[3] = NULL;
    if (!j->ran) { diag_add(d, NULL, 0, 0, "nothing to store: the simulation did not complete"); return -1; }
    const simjob *job = &j->job;
    owned[0] = ops_sim_report(j, 0, 0);
    owned[1] = ops_sim_report(j, 1, 0);
    owned[2] = per_proc_json(&job->cost);
    owned[3] = trace_json(&job->res->trace, &job->cost);
    if (!owned[0] || !owned[1] || !owned[2] || !owned[3]) {
        for (int i = 0; i < 4; i++) { free(owned[i]); owned[i] = NULL; }
        diag_add(d, NULL, 0, 0, "out of memory");
        return -1;
    }
    *row = (store_sim){.node = j->node, .machine = j->profile.name, .machine_text = j->mtext,
                       .model = j->model ? j->model : "polyapm", .params = j->params,
                       .total = job->cost.total, .seconds = job->cost.seconds,
                       .aggregate_work = job->res->aggregate_work, .verified = job->verified,
                       .checksum = job->res->checksum, .nprocs = job->cost.nprocs,
                       .nsteps = job->cost.nsteps, .violations = job->res->violations_total,
                       .per_proc = owned[2], .trace = owned[3], .report_text = owned[0],
                       .report_json = owned[1],
                       .sim_seconds = ops_sim_seconds(j)};
    return 0;
}

int ops_sim_store(store *s, ops_sim *j, diag_list *d)
{
    if (j->hit) return 0;
    store_sim put;
    char *owned[4];
    if (ops_sim_row(j, &put, owned, d) != 0) return -1;
    int rc = store_sim_put(s, &put, NULL, d);
    for (int i = 0; i < 4; i++) free(owned[i]);
    return rc;
}

char *ops_machine_key_text(const cost_profile *p)
{
    char *text = cost_profile_format(p);
    if (!text) return NULL;
    char *keyed = xasprintf("%s# simulated by polyapm's engine " POLYAPM_ENGINE_ID "\n", text);
    free(text);
    return keyed;
}

int ops_resolve_machine(store *s, const char *name, cost_profile *out, diag_list *d)
{
    diag_list first;
    diag_list_init(&first);
    if (cost_profile_resolve(name, out, &first) == 0) { diag_list_free(&first); return 0; }
    char *text = s ? store_machine_get(s, name, d) : NULL;
    if (!text) {
        /* a profile calibrated in another workspace: the user-level file */
        char *path = cost_profile_user_path(name, 0);
        struct stat st;
        if (path && stat(path, &st) == 0) {
            diag_list_free(&first);
            int rc = cost_profile_read(path, out, d);
            if (rc == 0 && !out->name[0]) snprintf(out->name, sizeof out->name, "%s", name);
            free(path);
            return rc;
        }
        free(path);
    }
    if (!text) {
        for (int i = 0; i < first.n; i++)
            diag_add(d, first.items[i].file, first.items[i].line, first.items[i].col, "%s",
                     first.items[i].msg);
        diag_list_free(&first);
        return -1;
    }
    diag_list_free(&first);
    int rc = cost_profile_parse(name, text, out, d);
    if (rc == 0 && !out->name[0]) snprintf(out->name, sizeof out->name, "%s", name);
    /* the latest stored under the name can be one explore --at priced its sizes with: its
     * data_scale is not a figure of the machine (calibrate writes 0: none) */
    if (rc == 0 && out->data_scale > 0) out->data_scale = 0;
    free(text);
    return rc;
}

double ops_sim_seconds(const ops_sim *j)
{
    if (j->hit) return j->stored.sim_seconds;
    return j->job.res ? j->job.res->seconds + (j->job.ref_res ? j->job.ref_res->seconds : 0) : 0;
}

void ops_sim_free(ops_sim *j)
{
    simjob_free(&j->job);
    ir_program_free(j->prog);
    ir_program_free(j->ref);
    store_node_clear(&j->n);
    store_node_clear(&j->rootn);
    store_sim_clear(&j->stored);
    free(j->params);
    free(j->mtext);
    j->prog = j->ref = NULL;
    j->params = j->mtext = NULL;
}

int ops_sim_node(store *s, ops_sim *j, diag_list *d)
{
    int r = ops_sim_prepare(s, j, d);
    if (r != 0) return r < 0 ? -1 : 0;
    if (ops_sim_run(j, NULL, NULL, NULL, d) != 0) return -1;
    return ops_sim_store(s, j, d);
}

/* ---- stored JSON ---------------------------------------------------------------------------- */

int ops_json_numbers(const char *json, const char *key, double **out)
{
    *out = NULL;
    if (!json) return 0;
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":[", key);
    const char *p = strstr(json, pat);
    if (!p) return 0;
    p += strlen(pat);
    int n = 0, cap = 0;
    double *v = NULL;
    while (*p && *p != ']') {
        char *end;
        double x = strtod(p, &end);
        if (end == p) break;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            double *nv = realloc(v, (size_t)cap * sizeof *v);
            if (!nv) { free(v); return 0; }
            v = nv;
        }
        v[n++] = x;
        p = end;
        if (*p == ',') p++;
    }
    *out = v;
    return n;
}
