/*
 * cmd_sim.c — `polyapm sim FILE.apm [options]`: simulate a program on its APM level, verify it
 * against its reference (the `reference` declaration or --against), and report the cost.
 * Given something that is not a file, the workspace's node simulation (cmd_sim_node) takes over.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "machine.h"
#include "cli.h"
#include "ops.h"
#include "report.h"
#include "simargs.h"
#include "simjob.h"

/* Provided by the workspace commands when they are linked in. */
int cmd_sim_node(int argc, char **argv) __attribute__((weak));

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

int cmd_sim(int argc, char **argv)
{
    const char *target = simargs_target(argc, argv);
    if (target && !is_file(target)) {
        /* not a program file: a node of the workspace, whose command has options of its own */
        if (cmd_sim_node) return cmd_sim_node(argc, argv);
        return cli_fail("%s: no such file", target);
    }
    simargs a;
    int rc = simargs_parse(argc, argv, SIMARGS_FILE, &a);
    if (rc) return rc;
    const char *model = simargs_model(&a);
    if (!model) return CLI_USAGE;

    diag_list d;
    diag_list_init(&d);
    simjob job;
    memset(&job, 0, sizeof job);
    ir_program *prog = NULL, *ref = NULL;
    char *refpath = NULL;
    int status = CLI_FAIL;

    if (machine_resolve(NULL, a.machine, &job.profile, &d) != 0) goto out;
    if ((rc = simargs_apply_sets(&a, &job.profile)) != 0) { status = rc; goto out; }
    prog = ir_load_file(a.target, &d);
    if (!prog) goto out;
    if ((rc = simargs_check_params(&a, prog, a.target)) != 0) { status = rc; goto out; }
    refpath = a.against ? strdup(a.against) : reference_path(prog, a.target);
    if (refpath) {
        ref = ir_load_file(refpath, &d);
        if (!ref) goto out;
    }
    job.prog = prog;
    job.ref = ref;
    job.bindings = a.bindings;
    job.nbindings = a.nbindings;
    job.model = model;
    job.all_planes = a.all_planes;
    if (simjob_run(&job, &d) != 0) goto out;

    report_input in = {.title = prog->name, .prog = prog,
                       .reference = refpath ? refpath : (prog->level == IR_SOURCE ? "itself" : NULL),
                       .machine = job.profile.name, .res = job.res, .cost = &job.cost,
                       .ref = job.ref_res, .ref_cost = job.has_ref_cost ? &job.ref_cost : NULL,
                       .verified = job.verified, .tick_seconds = job.profile.tick_seconds,
                       .trace = a.trace, .profile = &job.profile};
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
