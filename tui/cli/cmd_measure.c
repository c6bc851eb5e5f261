/*
 * cmd_measure.c — `polyapm measure NODE -np P SECONDS`: records a run time measured outside
 * polyapm (a hand-run mpirun, a batch job) as a measurement of the node, keyed like the runs of
 * `polyapm run`: ranks, runner, platform and the final parameter values (as a simulation's key;
 * a node with a parameter `procs` gets procs = P unless -D says otherwise).  `compare` reads them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "report.h"
#include "cliopts.h"
#include "ops.h"

int cmd_measure(int argc, char **argv);
const cli_spec cmd_measure_spec = {"measure", "NODE SECONDS",
                               "record a run time measured outside polyapm (compare reads it)",
                               cliopts_table, CO_MEASURE, NULL, NULL, cmd_measure};

int cmd_measure(int argc, char **argv)
{
    cliopts o;
    int rc = cliopts_parse(&cmd_measure_spec, argc, argv, &o);
    if (rc) return rc;
    if (o.npos != 2) return cli_usage("measure", "give a node and the measured seconds");
    if (o.np < 1) return cli_usage("measure", "-np P (the number of ranks) is required");
    char *end;
    double secs = strtod(o.pos[1], &end);
    if (end == o.pos[1] || *end || !isfinite(secs) || secs <= 0)
        return cli_usage("measure", "seconds must be a positive number, not '%s'", o.pos[1]);
    const char *runner = o.runner ? o.runner : "mpirun";
    if (strcmp(runner, "mpirun") && strcmp(runner, "smpirun"))
        return cli_usage("measure", "--runner is mpirun or smpirun");
    if (o.platform && strcmp(runner, "smpirun"))
        return cli_usage("measure", "--platform goes with --runner smpirun");

    store *s = NULL;
    if (cliopts_open(&o, STORE_WRITE, &s) != 0) return CLI_FAIL;
    diag_list d;
    diag_list_init(&d);
    int status = CLI_FAIL;
    int64_t node, mid = 0;
    ir_program *p = NULL;
    char *params = NULL;
    if (store_resolve(s, o.pos[0], &node, &d) != 0 || !(p = ops_node_program(s, node, &d))) goto fail;
    /* procs follows the ranks unless given */
    int has_procs = 0, given = 0;
    for (int i = 0; i < p->nparams; i++) has_procs |= !strcmp(p->params[i]->u.param.name, "procs");
    for (int i = 0; i < o.nbindings; i++) given |= !strcmp(o.bindings[i].name, "procs");
    if (has_procs && !given && o.nbindings < CO_MAX_BINDINGS)
        o.bindings[o.nbindings++] = (ir_binding){"procs", o.np};
    if (!(params = ops_param_key(p, o.bindings, o.nbindings, &d))) goto fail;
    char host[256] = "";
    if (!o.host) gethostname(host, sizeof host - 1);
    store_measurement m = {.node = node, .ranks = (int)o.np, .runner = runner, .platform = o.platform,
                           .params = params, .seconds = secs, .host = o.host ? o.host : host};
    if (store_measurement_add(s, &m, &mid, &d) != 0) goto fail;
    if (o.json) {
        printf("{\"measurement\":%lld,\"node\":%lld,\"ranks\":%ld,\"runner\":", (long long)mid,
               (long long)node, o.np);
        report_json_string(stdout, runner);
        printf(",\"params\":");
        report_json_string(stdout, params);
        printf(",\"seconds\":%.9g}\n", secs);
    } else {
        printf("measurement %lld: node %lld, %ld ranks (%s), %s: %.6g s\n", (long long)mid,
               (long long)node, o.np, runner, params, secs);
    }
    status = CLI_OK;
    goto out;
fail:
    if (d.n) diag_print(&d, stderr);
out:
    free(params);
    ir_program_free(p);
    store_close(s);
    diag_list_free(&d);
    return status;
}
