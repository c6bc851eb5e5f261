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

#include "machine.h"
#include "cli.h"
#include "report.h"
#include "simargs.h"
#include "ops.h"
#include "store.h"

/* Prints a report: text as is (plus where it came from), JSON with the node and "stored". */
static void emit(const simargs *a, const store_node *n, const char *text, const char *json,
                 int stored, int64_t when)
{
    if (a->json) {
        const char *body = json;
        while (*body == ' ' || *body == '\n') body++;
        printf("{\"node\":%lld,\"label\":", (long long)n->id);
        report_json_string(stdout, n->label);
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
    if (a.nbindings > OPS_MAX_BINDINGS) return cli_usage("sim", "at most %d -D options", OPS_MAX_BINDINGS);

    diag_list d;
    diag_list_init(&d);
    store *s = NULL;
    char *dir = NULL, *text = NULL, *json = NULL;
    ops_sim j;
    memset(&j, 0, sizeof j);
    int status = CLI_FAIL;

    dir = store_find(a.workspace, &d);
    if (!dir) {
        /* Neither a file nor a workspace: say both. */
        status = cli_fail("%s: no such file, and %s", a.target, d.n ? d.items[d.n - 1].msg : "no workspace");
        goto out;
    }
    /* A read-only workspace can still be simulated; the result is then not stored. */
    int readonly = 0;
    if (store_open(dir, STORE_WRITE, &s, &d) != 0 && d.n && strstr(d.items[d.n - 1].msg, "is read-only")) {
        diag_list_free(&d);
        readonly = 1;
        if (store_open(dir, STORE_READ, &s, &d) != 0) goto fail;
    }
    if (!s || store_resolve(s, a.target, &j.node, &d) != 0) goto fail;
    ir_program *p = ops_node_program(s, j.node, &d);
    if (!p) goto fail;
    char what[64];
    snprintf(what, sizeof what, "node %lld", (long long)j.node);
    rc = simargs_check_params(&a, p, what);
    ir_program_free(p);
    if (rc) { status = rc; goto out; }
    if (machine_resolve(s, a.machine, &j.profile, &d) != 0) goto fail;
    if ((rc = simargs_apply_sets(&a, &j.profile)) != 0) { status = rc; goto out; }
    j.model = model;
    memcpy(j.bindings, a.bindings, (size_t)a.nbindings * sizeof a.bindings[0]);
    j.nbindings = a.nbindings;
    j.force = a.force || a.trace;   /* the stored report has no trace: --trace simulates again */

    int prepared = ops_sim_prepare(s, &j, &d);
    if (prepared < 0) goto fail_all;
    if (prepared == 1) {
        emit(&a, &j.n, j.stored.report_text, j.stored.report_json, 1, j.stored.created);
        status = exit_status(j.stored.verified, j.stored.violations);
        goto out;
    }
    if (ops_sim_run(&j, NULL, NULL, NULL, &d) != 0) goto fail_all;
    if (readonly) fprintf(stderr, "polyapm: %s is read-only; the result is not stored\n", dir);
    else if (ops_sim_store(s, &j, &d) != 0) goto fail;
    text = ops_sim_report(&j, 0, a.trace);
    json = ops_sim_report(&j, 1, a.trace);
    if (!text || !json) { diag_add(&d, NULL, 0, 0, "out of memory"); goto fail; }
    emit(&a, &j.n, text, json, 0, 0);
    status = exit_status(j.job.verified, j.job.res->violations_total);
    goto out;

fail_all:   /* program diagnostics: every one, as file:line:col */
    diag_print(&d, stderr);
    status = CLI_FAIL;
    goto out;
fail:
    status = cli_fail("%s", d.n ? d.items[d.n - 1].msg : "failed");
out:
    ops_sim_free(&j);
    store_close(s);
    free(dir);
    free(text);
    free(json);
    diag_list_free(&d);
    return status;
}
