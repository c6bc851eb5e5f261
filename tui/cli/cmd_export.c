/*
 * cmd_export.c — exporting and running programs for real:
 *
 *   polyapm export NODE|FILE.apm -o DIR [-D name=value]... [--exchange auto|halo|alltoallv]
 *       writes the self-contained C (+MPI) directory of a verified node (transforms/export/export.c)
 *   polyapm run NODE|FILE.apm -np P [--smpi PLATFORM.xml] [--repeat K] [-D name=value]...
 *               [--exchange auto|halo|alltoallv] [--json]
 *       exports into a cache directory (NAME.pdg/runs/...), builds with make (mpicc, or smpicc
 *       for --smpi), runs under mpirun (smpirun -platform PLATFORM), checks the checksum against
 *       the node's simulation with the same parameters and stores the best seconds of K runs as
 *       a measurement of the node.
 *
 * A node is exported only when it is verified: its simulation at its own parameter values agrees
 * with the root's (run simulates with the -D values too, for the checksum it compares); a file
 * only when its simulation has no violation and, if it names a reference, is verified.
 * `-np P` sets the parameter `procs` to P when the program has one and -D does not set it.
 * Exit status: 0 ok, 1 refused or failed (the reason is printed), 2 usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "report.h"
#include "ops.h"
#include "xf.h"

enum { EXP_MAX_BINDINGS = 32 };

typedef struct exp_args {
    const char *cmd;
    const char *target, *out, *smpi;
    const char *host_speed;     /* --host-speed: SimGrid's smpi/host-speed, or NULL */
    ir_binding b[EXP_MAX_BINDINGS];
    int nb, np, repeat, json;
    long np_opt, repeat_opt;    /* as parsed (-np, --repeat) */
    xf_exchange exchange;
} exp_args;

static int set_exchange(void *args, char *v)
{
    return xf_exchange_parse(v, &((exp_args *)args)->exchange) ? 0 : -1;
}

enum { EXPORT = 1 << 0, RUN = 1 << 1 };
static const cli_opt exp_opts[] = {
    {.name = "-o", .kind = OPT_STR, .value = "DIR", .off = offsetof(exp_args, out), .cmds = EXPORT,
     .flags = OPT_REQUIRED, .help = "the directory to write (program, runtime, Makefile)"},
    {.name = "-np", .kind = OPT_LONG, .value = "P", .off = offsetof(exp_args, np_opt), .lo = 1, .hi = 1 << 16,
     .cmds = RUN, .flags = OPT_REQUIRED, .help = "run on P MPI ranks (sets the parameter procs unless -D does)"},
    {.name = "--smpi", .kind = OPT_STR, .value = "PLATFORM.xml", .off = offsetof(exp_args, smpi), .cmds = RUN,
     .help = "build with smpicc and run under SimGrid's smpirun on this platform"},
    {.name = "--host-speed", .kind = OPT_STR, .value = "S", .off = offsetof(exp_args, host_speed), .cmds = RUN,
     .help = "with --smpi: this machine's speed (e.g. 1Gf); the computation's measured time counts scaled by "
             "it over the platform's host speed (default the platform's: computation takes as long as here)"},
    {.name = "--repeat", .kind = OPT_LONG, .value = "K", .off = offsetof(exp_args, repeat_opt), .lo = 1,
     .hi = 1000, .cmds = RUN, .help = "run K times and store the best seconds (default 1)"},
    {.name = "-D", .kind = OPT_BINDING, .value = "name=value", .off = offsetof(exp_args, b),
     .count = offsetof(exp_args, nb), .hi = EXP_MAX_BINDINGS, .flags = OPT_REPEAT,
     .help = "set a parameter to an integer"},
    {.name = "--exchange", .kind = OPT_FN, .value = "auto|halo|alltoallv", .set = set_exchange,
     .help = "how the exported program exchanges its messages (default auto)"},
    {.name = "--json", .kind = OPT_FLAG, .off = offsetof(exp_args, json), .cmds = RUN,
     .help = "print one JSON object"},
    {0},
};

int cmd_export(int argc, char **argv);
int cmd_run(int argc, char **argv);
const cli_spec cmd_export_spec = {
    "export", "FILE.apm|NODE",
    "write a verified node as C+MPI (syndm; syncomm with collectives only) or sequential C (source, syn): program, runtime, Makefile",
    exp_opts, EXPORT, NULL, NULL, cmd_export};
const cli_spec cmd_run_spec = {"run", "FILE.apm|NODE",
                               "export, build and run (mpirun or smpirun); check the checksum, store the seconds",
                               exp_opts, RUN, NULL, NULL, cmd_run};

static int exp_parse(int argc, char **argv, int run, exp_args *a)
{
    memset(a, 0, sizeof *a);
    a->cmd = run ? "run" : "export";
    a->repeat_opt = 1;
    int npos = 0;
    int rc = optable_parse(run ? &cmd_run_spec : &cmd_export_spec, argc, argv, a, &npos);
    if (rc) return rc;
    if (npos > 1) return cli_usage(a->cmd, "unexpected argument '%s'", argv[2]);
    a->target = npos ? argv[1] : NULL;
    a->np = (int)a->np_opt;
    a->repeat = (int)a->repeat_opt;
    if (!a->target) return cli_usage(a->cmd, "which node or file?");
    if (!run && !a->out) return cli_usage(a->cmd, "-o DIR is required");
    if (run && !a->np) return cli_usage(a->cmd, "-np P is required");
    return 0;
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int has_param(const ir_program *p, const char *name)
{
    for (int i = 0; i < p->nparams; i++)
        if (!strcmp(p->params[i]->u.param.name, name)) return 1;
    return 0;
}

/* What was loaded and simulated: the program, its simulation's verdict and checksum. */
typedef struct exp_target {
    ir_program *prog;
    store *s;                 /* workspace form only */
    int64_t node;
    char label[128];
    uint64_t checksum;
    char params[512];         /* final parameter values, "n=16,steps=21" */
} exp_target;

/* Loads the target and simulates it (run: with the bindings, for the checksum; export: at its own
 * parameter values, which is what makes a node verified); refuses an unverified program. */
static int exp_load(exp_args *a, int run, exp_target *t)
{
    diag_list d;
    diag_list_init(&d);
    int rc = CLI_FAIL;
    memset(t, 0, sizeof *t);
    if (is_file(a->target)) {
        t->prog = ir_load_file(a->target, &d);
        if (!t->prog) { diag_print(&d, stderr); goto out; }
        if (a->np && has_param(t->prog, "procs")) {
            int given = 0;
            for (int i = 0; i < a->nb; i++) given |= !strcmp(a->b[i].name, "procs");
            if (!given && a->nb < EXP_MAX_BINDINGS) a->b[a->nb++] = (ir_binding){"procs", a->np};
        }
        ir_program *ref = NULL;
        for (int i = 0; i < t->prog->ndecls; i++) {
            if (t->prog->decls[i]->kind != IR_D_REFERENCE) continue;
            const char *r = t->prog->decls[i]->u.reference.path, *slash = strrchr(a->target, '/');
            char path[4096];
            if (r[0] == '/' || !slash) snprintf(path, sizeof path, "%s", r);
            else snprintf(path, sizeof path, "%.*s/%s", (int)(slash - a->target), a->target, r);
            ref = ir_load_file(path, &d);
            if (!ref) { diag_print(&d, stderr); goto out; }
        }
        simjob j;
        memset(&j, 0, sizeof j);
        j.prog = t->prog;
        j.ref = ref;
        j.bindings = run ? a->b : NULL;
        j.nbindings = run ? a->nb : 0;
        if (cost_profile_resolve("scali2004", &j.profile, &d) != 0 || simjob_run(&j, &d) != 0) {
            diag_print(&d, stderr);
            simjob_free(&j);
            ir_program_free(ref);
            goto out;
        }
        int bad = j.res->violations_total > 0 || j.verified == 0;
        t->checksum = j.res->checksum;
        for (int i = 0; i < j.res->nparams; i++)
            snprintf(t->params + strlen(t->params), sizeof t->params - strlen(t->params), "%s%s=%" PRId64,
                     i ? "," : "", t->prog->params[i]->u.param.name, j.res->params[i]);
        if (bad)
            cli_fail("%s: not exported: its simulation %s", a->target,
                     j.verified == 0 ? "is not verified against its reference" : "reports violations");
        simjob_free(&j);
        ir_program_free(ref);
        snprintf(t->label, sizeof t->label, "%s", a->target);
        rc = bad ? CLI_FAIL : CLI_OK;
        goto out;
    }
    char *dir = store_find(NULL, &d);
    if (!dir) { cli_fail("%s: no such file, and %s", a->target, d.n ? d.items[d.n - 1].msg : "no workspace"); goto out; }
    int orc = store_open(dir, STORE_WRITE, &t->s, &d);
    free(dir);
    if (orc != 0 || store_resolve(t->s, a->target, &t->node, &d) != 0) {
        cli_fail("%s", d.n ? d.items[d.n - 1].msg : "cannot open the workspace");
        goto out;
    }
    size_t len;
    char *text = store_node_text(t->s, t->node, &len, &d);
    if (!text) { cli_fail("%s", d.n ? d.items[d.n - 1].msg : "cannot read the node"); goto out; }
    t->prog = ir_load_text(a->target, text, len, &d);
    free(text);
    if (!t->prog) { diag_print(&d, stderr); goto out; }
    if (a->np && has_param(t->prog, "procs")) {
        int given = 0;
        for (int i = 0; i < a->nb; i++) given |= !strcmp(a->b[i].name, "procs");
        if (!given && a->nb < EXP_MAX_BINDINGS) a->b[a->nb++] = (ir_binding){"procs", a->np};
    }
    ops_sim j;
    memset(&j, 0, sizeof j);
    j.node = t->node;
    if (cost_profile_resolve("scali2004", &j.profile, &d) != 0) { cli_fail("%s", d.items[d.n - 1].msg); goto out; }
    for (int i = 0; run && i < a->nb && i < OPS_MAX_BINDINGS; i++) j.bindings[j.nbindings++] = a->b[i];
    if (ops_sim_node(t->s, &j, &d) != 0) {
        cli_fail("node %s: its simulation failed: %s", a->target, d.n ? d.items[d.n - 1].msg : "?");
        ops_sim_free(&j);
        goto out;
    }
    snprintf(t->label, sizeof t->label, "node %lld (%s)", (long long)t->node, j.n.label);
    snprintf(t->params, sizeof t->params, "%s", j.params ? j.params : "");
    t->checksum = j.hit ? j.stored.checksum : j.job.res->checksum;
    int verified = j.verified;
    ops_sim_free(&j);
    if (verified <= 0) {
        cli_fail("%s: not exported: it is %s against the root (polyapm sim %s shows why)", t->label,
                 verified == 0 ? "not verified" : "not checked", a->target);
        goto out;
    }
    rc = CLI_OK;
out:
    diag_list_free(&d);
    return rc;
}

static void exp_target_free(exp_target *t)
{
    ir_program_free(t->prog);
    store_close(t->s);
}

static int exp_do_export(const exp_args *a, exp_target *t, const char *dir, xf_export_info *info)
{
    diag_list d;
    diag_list_init(&d);
    xf_export_options o = {a->b, a->nb, a->exchange, t->label};
    int st = xf_export(t->prog, dir, &o, info, &d);
    if (st != XF_OK) diag_print(&d, stderr);
    diag_list_free(&d);
    return st == XF_OK ? CLI_OK : st == XF_EUSAGE ? CLI_USAGE : CLI_FAIL;
}

int cmd_export(int argc, char **argv)
{
    exp_args a;
    int rc = exp_parse(argc, argv, 0, &a);
    if (rc) return rc;
    exp_target t;
    rc = exp_load(&a, 0, &t);
    if (rc == CLI_OK) {
        xf_export_info info;
        rc = exp_do_export(&a, &t, a.out, &info);
        if (rc == CLI_OK)
            printf("exported %s to %s: %s.c, %s%s (cd %s && make && %s./%s)\n", t.label, a.out, info.prog,
                   info.mpi ? "C+MPI, " : "sequential C", info.mpi ? xf_exchange_name(info.exchange) : "", a.out,
                   info.mpi ? "mpirun -np N " : "", info.prog);
        if (rc == CLI_OK && info.mpi) printf("it needs %d MPI ranks\n", info.ranks);
    }
    exp_target_free(&t);
    return rc;
}

/* Runs a shell command, capturing stdout+stderr (malloc'd) and the exit status. */
static char *exp_capture(const char *cmd, int *status)
{
    FILE *f = popen(cmd, "r");
    if (!f) { *status = -1; return NULL; }
    size_t n = 0, cap = 4096;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1024 > cap) {
            char *b = realloc(buf, cap *= 2);
            if (!b) { free(buf); buf = NULL; break; }
            buf = b;
        }
        size_t r = fread(buf + n, 1, cap - n - 1, f);
        if (r == 0) break;
        n += r;
    }
    int st = pclose(f);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
    if (buf) buf[n] = '\0';
    return buf;
}

/* --smpi and --host-speed: the platform's absolute path and the host speed to pass SimGrid.
 * SimGrid times the computation between MPI calls as its measured time times smpi/host-speed over
 * the platform's host speed: by default the platform's, so it counts as it runs here.
 * CLI_OK, or the usage status after reporting. */
static int run_platform(const exp_args *a, char *platform, size_t plen, char *speed, size_t slen)
{
    platform[0] = speed[0] = '\0';
    if (a->host_speed && (!a->smpi || !*a->host_speed ||
                          strspn(a->host_speed, "0123456789.eE+-kMGTf") != strlen(a->host_speed)))
        return cli_usage("run", "--host-speed: a SimGrid speed such as 1Gf, with --smpi");
    if (a->smpi) {
        if (!is_file(a->smpi)) return cli_usage("run", "--smpi: %s: no such platform file", a->smpi);
        char real[PATH_MAX];
        if (!realpath(a->smpi, real)) return cli_usage("run", "--smpi: %s: %s", a->smpi, strerror(errno));
        snprintf(platform, plen, "%s", real);
    }
    if (a->host_speed) snprintf(speed, slen, "%s", a->host_speed);
    else if (a->smpi && !cli_platform_speed(platform, speed, slen))
        fprintf(stderr, "polyapm run: %s names no host speed: SimGrid's default smpi/host-speed "
                        "(computation nearly free)\n", a->smpi);
    return CLI_OK;
}

/* The directory run exports into: the workspace's cache (runs/nodeID-EXCHANGE-PARAMS), or a fresh
 * one in /tmp for a file.  CLI_OK, or CLI_FAIL after reporting. */
static int run_dir(const exp_args *a, const exp_target *t, const char *tag, char *dir, size_t len)
{
    if (t->s) {
        char params[512];
        snprintf(params, sizeof params, "%s", t->params);
        for (char *c = params; *c; c++) if (*c == ',' || *c == '=') *c = *c == ',' ? '-' : '_';
        snprintf(dir, len, "%s/runs/node%lld-%s%s-%s", store_dir(t->s), (long long)t->node, tag,
                 xf_exchange_name(a->exchange), params);
        return CLI_OK;
    }
    snprintf(dir, len, "/tmp/polyapm-run-XXXXXX");
    if (!mkdtemp(dir)) return cli_fail("cannot create a directory in /tmp: %s", strerror(errno));
    return CLI_OK;
}

/* make in dir (the smpi target with smpi), -Werror.  CLI_OK, or CLI_FAIL with make's output. */
static int run_build(const char *dir, int smpi)
{
    char q[4200], cmd[9000];
    cli_shell_quote(q, sizeof q, dir);
    snprintf(cmd, sizeof cmd, "make -C %s EXTRA_CFLAGS=-Werror %s 2>&1", q, smpi ? "smpi" : "");
    int st;
    char *out = exp_capture(cmd, &st);
    int rc = CLI_OK;
    if (st != 0) {
        fprintf(stderr, "%s", out ? out : "");
        rc = cli_fail("building %s failed (%s)", dir, cmd);
    }
    free(out);
    return rc;
}

/* How to run the built program `prog` in dir once (smpirun, mpirun, or plain). */
static void run_command(const exp_args *a, const xf_export_info *info, const char *dir, const char *platform,
                        const char *speed, cli_mpirun *session, char *cmd, size_t len)
{
    char q[4200], qp[4200];
    cli_shell_quote(q, sizeof q, dir);
    if (a->smpi) {
        /* XF_SMPIRUN_OPTIONS (xf.h) says why each option.  (MPICH's selector would avoid
         * SimGrid's quadratic Alltoallv too, but its first Allreduce starts with a ring
         * allgather that at 1024 ranks costs 110 s.) */
        cli_shell_quote(qp, sizeof qp, platform);
        char hs[96] = "";
        if (speed[0]) snprintf(hs, sizeof hs, "--cfg=smpi/host-speed:%s ", speed);
        snprintf(cmd, len, "cd %s && smpirun -np %d -platform %s --cfg=smpi/display-timing:no %s"
                 XF_SMPIRUN_OPTIONS " ./%s.smpi 2>&1", q, a->np, qp, hs, info->prog);
    } else if (info->mpi) {
        char mpirun[1200];
        cli_mpirun_command(session, a->np, mpirun, sizeof mpirun);
        snprintf(cmd, len, "cd %s && %s ./%s 2>&1", q, mpirun, info->prog);
    } else {
        snprintf(cmd, len, "cd %s && ./%s 2>&1", q, info->prog);
    }
}

/* Runs it `repeat` times: the last checksum and the best seconds.  Each result line goes to stdout
 * unless quiet.  CLI_OK, or CLI_FAIL with the program's output. */
static int run_times(const char *cmd, const char *prog, int repeat, int quiet, uint64_t *sum, double *best)
{
    *best = -1;
    for (int k = 0; k < repeat; k++) {
        int st;
        char *out = exp_capture(cmd, &st);
        const char *line = out ? strstr(out, "polyapm-result ") : NULL;
        unsigned long long c;
        double s;
        int ranks;
        if (st != 0 || !line || sscanf(line, "polyapm-result checksum=%llx seconds=%lf ranks=%d", &c, &s, &ranks) != 3) {
            fprintf(stderr, "%s", out ? out : "");
            free(out);
            return cli_fail("running %s failed (exit %d): %s", prog, st, cmd);
        }
        if (!quiet) fputs(line, stdout);
        *sum = c;
        if (*best < 0 || s < *best) *best = s;
        free(out);
    }
    return CLI_OK;
}

/* Stores the best seconds as a measurement of the node (a sequential node's run counts as mpirun
 * with 1 rank). */
static int run_store(const exp_args *a, const exp_target *t, const char *platform, double best)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    diag_list d;
    diag_list_init(&d);
    store_measurement m;
    memset(&m, 0, sizeof m);
    m.node = t->node;
    m.ranks = a->np;
    m.runner = a->smpi ? "smpirun" : "mpirun";
    m.platform = a->smpi ? platform : NULL;
    m.params = t->params;
    m.seconds = best;
    m.host = host;
    int rc = CLI_OK;
    if (store_measurement_add(t->s, &m, NULL, &d) != 0) rc = cli_fail("%s", d.n ? d.items[d.n - 1].msg : "storing failed");
    else if (!a->json) printf("stored as a measurement of node %lld\n", (long long)t->node);
    diag_list_free(&d);
    return rc;
}

/* Exports t into dir and checks that it runs on a->np ranks.  CLI_OK, or a status after reporting. */
static int run_export(const exp_args *a, exp_target *t, const char *dir, xf_export_info *info)
{
    int rc = exp_do_export(a, t, dir, info);
    if (rc != CLI_OK) return rc;
    if (!info->mpi && a->np != 1) return cli_fail("%s is sequential C: run it with -np 1", t->label);
    if (info->mpi && info->ranks != a->np)
        return cli_fail("%s needs %d MPI ranks (its processor loop), not %d%s", t->label, info->ranks, a->np,
                        has_param(t->prog, "procs") ? "" : " (the program has no parameter procs to set)");
    if (a->smpi && !info->mpi) return cli_fail("%s is sequential C: --smpi needs a syndm or syncomm node", t->label);
    return CLI_OK;
}

int cmd_run(int argc, char **argv)
{
    exp_args a;
    int rc = exp_parse(argc, argv, 1, &a);
    if (rc) return rc;
    char platform[4096], speed[64];
    if ((rc = run_platform(&a, platform, sizeof platform, speed, sizeof speed)) != CLI_OK) return rc;
    exp_target t;
    rc = exp_load(&a, 1, &t);
    char dir[4096], cmd[9000];
    cli_mpirun session = {.dir = ""};
    xf_export_info info;
    if (rc != CLI_OK || (rc = run_dir(&a, &t, "", dir, sizeof dir)) != CLI_OK ||
        (rc = run_export(&a, &t, dir, &info)) != CLI_OK || (rc = run_build(dir, a.smpi != NULL)) != CLI_OK)
        goto done;
    if (info.mpi && !a.smpi && (rc = cli_mpirun_open(&session)) != CLI_OK) goto done;
    run_command(&a, &info, dir, platform, speed, &session, cmd, sizeof cmd);
    double best = -1;
    uint64_t sum = 0;
    if ((rc = run_times(cmd, info.prog, a.repeat, a.json, &sum, &best)) != CLI_OK) goto done;
    int match = sum == t.checksum;
    if (a.json) {
        printf("{\"target\":");
        report_json_string(stdout, t.label);
        printf(",\"node\":%lld,\"ranks\":%d,\"runner\":\"%s\",\"platform\":", (long long)t.node, a.np,
               a.smpi ? "smpirun" : info.mpi ? "mpirun" : "sequential");
        if (a.smpi) report_json_string(stdout, platform);
        else printf("null");
        printf(",\"exchange\":\"%s\",\"checksum\":\"%016" PRIx64 "\",\"sim_checksum\":\"%016" PRIx64 "\","
               "\"match\":%s,\"seconds\":%.9g,\"repeat\":%d,\"dir\":",
               xf_exchange_name(info.exchange), sum, t.checksum, match ? "true" : "false", best, a.repeat);
        report_json_string(stdout, dir);
        printf("}\n");
    }
    if (!match) {
        rc = cli_fail("%s: checksum %016" PRIx64 " differs from the simulation's %016" PRIx64 "; nothing stored", t.label,
                      sum, t.checksum);
        goto done;
    }
    if (!a.json)
        printf("%s: %d rank%s%s%s, checksum %016" PRIx64 " = the simulation's, %.6f s (best of %d)\n", t.label, a.np,
               a.np == 1 ? "" : "s", a.smpi ? " under smpirun -platform " : "", a.smpi ? platform : "", sum, best, a.repeat);
    if (t.s) rc = run_store(&a, &t, platform, best);
done:
    cli_mpirun_close(&session);
    exp_target_free(&t);
    return rc;
}
