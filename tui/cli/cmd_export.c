/*
 * cmd_export.c — exporting and running programs for real:
 *
 *   polyapm export NODE|FILE.apm -o DIR [-D name=value]... [--exchange auto|halo|alltoallv]
 *       writes the self-contained C (+MPI) directory of a verified node (transforms/export/export.c)
 *   polyapm run NODE|FILE.apm -np P [--smpi PLATFORM.xml] [--repeat K] [-D name=value]...
 *               [--exchange auto|halo|alltoallv] [--json]
 *       exports into a cache directory (NAME.pdg/runs/...; a file: a directory in $TMPDIR,
 *       removed after a good run), builds with make (mpicc, or smpicc for --smpi; the runtime's
 *       objects from polyapm's cache directory when an earlier run built them, objcache.c), runs
 *       under mpirun (smpirun -platform PLATFORM), checks the checksum against the node's
 *       simulation with the same parameters and stores the best seconds of K runs as a
 *       measurement of the node.
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
#include <time.h>
#include <unistd.h>

#include "machine.h"
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
    uint64_t checksum;        /* the simulation's (not native) */
    char params[512];         /* final parameter values, "n=16,steps=21" */
    /* run at a size where simulating would take long: the check is against the reference program
     * exported as sequential C and run natively */
    int native;
    double sim_estimate;      /* the simulation's estimated seconds that made it so */
    ir_program *ref;          /* owned: the reference (the node's source; a file's `reference`) */
    int64_t ref_node;         /* its node, or -1 */
} exp_target;

/* run: a check by simulation estimated to take longer than this many seconds is made against the
 * reference exported as sequential C and run natively instead (building and running it takes a
 * few seconds; simulating at a user's size can take minutes). */
#define RUN_SIM_LIMIT 10.0

/* The simulation's progress, watched: it is cancelled as soon as its estimated time (the elapsed
 * time over the fraction done, twice when the reference is simulated after it) exceeds the
 * limit, or its elapsed time does. */
typedef struct sim_probe {
    struct timespec t0;
    double limit, factor, estimate;
    volatile int cancel;
} sim_probe;

static void probe_progress(void *ctx, double fraction)
{
    sim_probe *p = ctx;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double el = (double)(now.tv_sec - p->t0.tv_sec) + 1e-9 * (double)(now.tv_nsec - p->t0.tv_nsec);
    double est = fraction > 0 ? el / fraction * p->factor : el * p->factor;
    if ((el >= 0.5 && est > p->limit) || el * p->factor > p->limit) {
        p->estimate = est > el * p->factor ? est : el * p->factor;
        p->cancel = 1;
    }
}

static void probe_start(sim_probe *p, int with_ref)
{
    memset(p, 0, sizeof *p);
    clock_gettime(CLOCK_MONOTONIC, &p->t0);
    p->limit = RUN_SIM_LIMIT;
    p->factor = with_ref ? 2 : 1;
}

/* t->params: the program's final parameter values under the bindings ("" when they do not
 * evaluate: the simulation said why). */
static void exp_params(exp_target *t, const ir_binding *b, int nb)
{
    diag_list d;
    diag_list_init(&d);
    char *key = ops_param_key(t->prog, b, nb, &d);
    snprintf(t->params, sizeof t->params, "%s", key ? key : "");
    free(key);
    diag_list_free(&d);
}

/* -np P sets procs when the program has that parameter and -D does not. */
static void exp_bind_procs(exp_args *a, const ir_program *p)
{
    if (!a->np || !has_param(p, "procs")) return;
    int given = 0;
    for (int i = 0; i < a->nb; i++) given |= !strcmp(a->b[i].name, "procs");
    if (!given && a->nb < EXP_MAX_BINDINGS) a->b[a->nb++] = (ir_binding){"procs", a->np};
}

/* The file's `reference` program (NULL with *rc 0 when it names none). */
static ir_program *exp_file_reference(const exp_args *a, const ir_program *p, int *rc, diag_list *d)
{
    *rc = 0;
    for (int i = 0; i < p->ndecls; i++) {
        if (p->decls[i]->kind != IR_D_REFERENCE) continue;
        const char *r = p->decls[i]->u.reference.path, *slash = strrchr(a->target, '/');
        char path[4096];
        if (r[0] == '/' || !slash) snprintf(path, sizeof path, "%s", r);
        else snprintf(path, sizeof path, "%.*s/%s", (int)(slash - a->target), a->target, r);
        ir_program *ref = ir_load_file(path, d);
        if (!ref) *rc = -1;
        return ref;
    }
    return NULL;
}

/* A program file: simulated (with its reference, if it names one) at run's bindings; when that
 * would take long and there is a reference, at its own values for the verdict, and the check is
 * native. */
static int exp_load_file(exp_args *a, int run, exp_target *t, diag_list *d)
{
    t->prog = ir_load_file(a->target, d);
    if (!t->prog) return diag_print(d, stderr), CLI_FAIL;
    exp_bind_procs(a, t->prog);
    int rrc;
    t->ref = exp_file_reference(a, t->prog, &rrc, d);
    if (rrc) return diag_print(d, stderr), CLI_FAIL;
    simjob j;
    memset(&j, 0, sizeof j);
    j.prog = t->prog;
    j.ref = t->ref;
    j.bindings = run ? a->b : NULL;
    j.nbindings = run ? a->nb : 0;
    sim_probe pr;
    probe_start(&pr, t->ref != NULL);
    if (run && a->nb && t->ref) j.cancel = &pr.cancel, j.progress = probe_progress, j.progress_ctx = &pr;
    int ok = machine_resolve(NULL, NULL, &j.profile, d) == 0 && simjob_run(&j, d) == 0;
    if (!ok && pr.cancel) {           /* long: the verdict at its own values, the check native */
        simjob_free(&j);
        diag_list_free(d);
        diag_list_init(d);
        t->native = 1;
        t->sim_estimate = pr.estimate;
        t->ref_node = -1;
        memset(&j, 0, sizeof j);
        j.prog = t->prog;
        j.ref = t->ref;
        ok = machine_resolve(NULL, NULL, &j.profile, d) == 0 && simjob_run(&j, d) == 0;
    }
    if (!ok) {
        diag_print(d, stderr);
        simjob_free(&j);
        return CLI_FAIL;
    }
    int bad = j.res->violations_total > 0 || j.verified == 0;
    t->checksum = j.res->checksum;
    exp_params(t, run ? a->b : NULL, run ? a->nb : 0);
    if (bad)
        cli_fail("%s: not exported: its simulation %s", a->target,
                 j.verified == 0 ? "is not verified against its reference" : "reports violations");
    simjob_free(&j);
    snprintf(t->label, sizeof t->label, "%s", a->target);
    return bad ? CLI_FAIL : CLI_OK;
}

/* Simulates node t->node with the bindings (or finds it stored); with a probe, cancelled when it
 * would take long.  0 done, 1 cancelled by the probe, -1 failed (message in d). */
static int exp_sim_node(exp_target *t, const ir_binding *b, int nb, sim_probe *pr, ops_sim *j, diag_list *d)
{
    memset(j, 0, sizeof *j);
    j->node = t->node;
    if (machine_resolve(t->s, NULL, &j->profile, d) != 0) return -1;
    for (int i = 0; i < nb && i < OPS_MAX_BINDINGS; i++) j->bindings[j->nbindings++] = b[i];
    int hit = ops_sim_prepare(t->s, j, d);
    if (hit < 0) return -1;
    if (hit) return 0;
    if (ops_sim_run(j, pr ? &pr->cancel : NULL, pr ? probe_progress : NULL, pr, d) != 0)
        return pr && pr->cancel ? 1 : -1;
    return ops_sim_store(t->s, j, d) == 0 ? 0 : -1;
}

/* A first guess of the simulation's seconds at bindings b, before starting it: the seconds at the
 * program's own values (own) times the growth of the values b sets (procs aside), each at least
 * 1 — at most the work's growth where those values bound loops (n x n x steps grows as n^2 x
 * steps, guessed n x steps), so that only runs clearly too long to simulate skip the watched
 * simulation (its progress decides the others). */
static double exp_sim_guess(const ir_program *p, const ir_binding *b, int nb, const ops_sim *own)
{
    int64_t *mine = calloc((size_t)p->nparams + 1, sizeof *mine);
    int64_t *theirs = calloc((size_t)p->nparams + 1, sizeof *theirs);
    diag_list d;
    diag_list_init(&d);
    double growth = 1;
    if (mine && theirs && ir_params_eval(p, NULL, 0, 0, mine, &d) == 0 &&
        ir_params_eval(p, b, nb, 0, theirs, &d) == 0)
        for (int i = 0; i < p->nparams; i++)
            for (int k = 0; k < nb; k++)
                if (!strcmp(b[k].name, p->params[i]->u.param.name) && strcmp(b[k].name, "procs") && mine[i] > 0 &&
                    theirs[i] > mine[i])
                    growth *= (double)theirs[i] / (double)mine[i];
    diag_list_free(&d);
    free(mine);
    free(theirs);
    return ops_sim_seconds(own) * growth;
}

/* A workspace node: simulated at run's bindings (export: its own values), or — when that would
 * take long — at its own values for the verdict, with its source as the native reference. */
static int exp_load_node(exp_args *a, int run, exp_target *t, diag_list *d)
{
    char *dir = store_find(NULL, d);
    if (!dir) return cli_fail("%s: no such file, and %s", a->target, d->n ? d->items[d->n - 1].msg : "no workspace");
    int orc = store_open(dir, STORE_WRITE, &t->s, d);
    free(dir);
    if (orc != 0 || store_resolve(t->s, a->target, &t->node, d) != 0)
        return cli_fail("%s", d->n ? d->items[d->n - 1].msg : "cannot open the workspace");
    t->prog = ops_node_program(t->s, t->node, d);
    if (!t->prog) return diag_print(d, stderr), CLI_FAIL;
    exp_bind_procs(a, t->prog);
    ops_sim j;
    int rc = exp_sim_node(t, NULL, 0, NULL, &j, d);   /* at its own values: the verdict */
    double guess = rc == 0 && run && a->nb ? exp_sim_guess(t->prog, a->b, a->nb, &j) : 0;
    if (guess > RUN_SIM_LIMIT) {
        t->native = 1;
        t->sim_estimate = guess;
    } else if (rc == 0 && run && a->nb) {                 /* at the run's values, watched */
        ops_sim_free(&j);
        sim_probe pr;
        probe_start(&pr, 1);
        rc = exp_sim_node(t, a->b, a->nb, &pr, &j, d);
        if (rc == 1) {
            ops_sim_free(&j);
            diag_list_free(d);
            diag_list_init(d);
            t->native = 1;
            t->sim_estimate = pr.estimate;
            rc = exp_sim_node(t, NULL, 0, NULL, &j, d);
        }
    }
    if (rc == 0 && t->native &&
        (store_reference(t->s, t->node, &t->ref_node, d) != 0 || !(t->ref = ops_node_program(t->s, t->ref_node, d))))
        rc = -1;
    if (rc != 0) {
        cli_fail("node %s: its simulation failed: %s", a->target, d->n ? d->items[d->n - 1].msg : "?");
        ops_sim_free(&j);
        return CLI_FAIL;
    }
    snprintf(t->label, sizeof t->label, "node %lld (%s)", (long long)t->node, j.n.label);
    if (t->native) exp_params(t, a->b, a->nb);
    else snprintf(t->params, sizeof t->params, "%s", j.params ? j.params : "");
    t->checksum = j.hit ? j.stored.checksum : j.job.res->checksum;
    int verified = j.verified;
    ops_sim_free(&j);
    if (verified <= 0)
        return cli_fail("%s: not exported: it is %s against the root (polyapm sim %s shows why)", t->label,
                        verified == 0 ? "not verified" : "not checked", a->target);
    return CLI_OK;
}

/* Loads the target and simulates it (run: with the bindings, for the checksum; export: at its own
 * parameter values, which is what makes a node verified); refuses an unverified program.  A run
 * whose simulation would take longer than RUN_SIM_LIMIT is checked natively (t->native). */
static int exp_load(exp_args *a, int run, exp_target *t)
{
    diag_list d;
    diag_list_init(&d);
    memset(t, 0, sizeof *t);
    t->ref_node = -1;
    int rc = is_file(a->target) ? exp_load_file(a, run, t, &d) : exp_load_node(a, run, t, &d);
    diag_list_free(&d);
    return rc;
}

static void exp_target_free(exp_target *t)
{
    ir_program_free(t->prog);
    ir_program_free(t->ref);
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
 * one in $TMPDIR (else /tmp) for a file.  CLI_OK, or CLI_FAIL after reporting. */
static int run_dir(const store *s, int64_t node, const char *tag, const char *pvals, char *dir, size_t len)
{
    if (s) {
        char params[512];
        snprintf(params, sizeof params, "%s", pvals);
        for (char *c = params; *c; c++) if (*c == ',' || *c == '=') *c = *c == ',' ? '-' : '_';
        snprintf(dir, len, "%s/runs/node%lld-%s-%s", store_dir(s), (long long)node, tag, params);
        return CLI_OK;
    }
    const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, len, "%s/polyapm-run-XXXXXX", tmp);
    if (!mkdtemp(dir)) return cli_fail("cannot create a directory in %s: %s", tmp, strerror(errno));
    return CLI_OK;
}

/* A file's directory in $TMPDIR is removed after a good run, and after a failure before its
 * program was exported (there is nothing to see), kept and named after a failure of the exported
 * program (its build, its run, its checksum); a workspace's stays as the cache it is. */
static void run_dir_done(const store *s, const char *dir, int rc, int exported)
{
    if (s || !dir[0]) return;
    if (rc == CLI_OK || !exported) cli_remove_tree(dir);
    else fprintf(stderr, "polyapm run: the exported program is kept in %s\n", dir);
}

/* make in dir (the smpi target with smpi), -Werror; the runtime's objects from the cache when an
 * earlier build made them (objcache.c).  CLI_OK, or CLI_FAIL with make's output. */
static int run_build(const char *dir, int smpi, int mpi)
{
    const char *extra = "-Werror", *cc = getenv("CC") ? getenv("CC") : mpi ? "mpicc" : "cc";
    char q[4200], cmd[9000], entry[4200] = "";
    if (!smpi) cli_objcache_fill(dir, cc, extra, entry, sizeof entry);
    cli_shell_quote(q, sizeof q, dir);
    snprintf(cmd, sizeof cmd, "make -C %s EXTRA_CFLAGS=%s %s 2>&1", q, extra, smpi ? "smpi" : "");
    int st;
    char *out = exp_capture(cmd, &st);
    int rc = CLI_OK;
    if (st != 0) {
        fprintf(stderr, "%s", out ? out : "");
        rc = cli_fail("building %s failed (%s)", dir, cmd);
    } else if (!smpi) {
        cli_objcache_keep(dir, entry);
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
        if (st != 0 || !line ||
            sscanf(line, "polyapm-result checksum=%llx seconds=%lf ranks=%d", &c, &s, &ranks) != 3) {
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
    if (store_measurement_add(t->s, &m, NULL, &d) != 0)
        rc = cli_fail("%s", d.n ? d.items[d.n - 1].msg : "storing failed");
    else if (!a->json) printf("stored as a measurement of node %lld\n", (long long)t->node);
    diag_list_free(&d);
    return rc;
}

/* The native check: t's reference exported as sequential C at run's values (those of its
 * parameters), built and run once; its checksum.  CLI_OK, or a status after reporting. */
static int run_native_reference(const exp_args *a, const exp_target *t, uint64_t *sum)
{
    ir_binding b[EXP_MAX_BINDINGS];
    int nb = 0;
    for (int i = 0; i < a->nb; i++)
        if (has_param(t->ref, a->b[i].name)) b[nb++] = a->b[i];
    fprintf(stderr, "polyapm run: simulating %s at %s would take about %.0f s or more: its checksum is checked "
                    "against the sequential C program of its source, run natively\n", t->label, t->params,
            t->sim_estimate);
    char dir[4096], label[200], cmd[9000];
    int rc = run_dir(t->s, t->ref_node, "seq", t->params, dir, sizeof dir);
    if (rc != CLI_OK) return rc;
    snprintf(label, sizeof label, "the source of %s", t->label);
    xf_export_options o = {b, nb, XF_EXCHANGE_AUTO, label};
    xf_export_info info;
    diag_list d;
    diag_list_init(&d);
    int st = xf_export(t->ref, dir, &o, &info, &d);
    if (st != XF_OK) diag_print(&d, stderr);
    diag_list_free(&d);
    if (st != XF_OK) rc = cli_fail("%s: exporting it as sequential C failed", label);
    else if (info.mpi) rc = cli_fail("%s is not a sequential program", label);
    else if ((rc = run_build(dir, 0, 0)) == CLI_OK) {
        exp_args seq = *a;
        seq.smpi = NULL;
        run_command(&seq, &info, dir, "", "", NULL, cmd, sizeof cmd);
        double secs;
        rc = run_times(cmd, info.prog, 1, 1, sum, &secs);
    }
    run_dir_done(t->s, dir, rc, st == XF_OK && !info.mpi);
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
    char dir[4096] = "", cmd[9000];
    cli_mpirun session = {.dir = ""};
    xf_export_info info;
    if (rc == CLI_OK) rc = run_dir(t.s, t.node, xf_exchange_name(a.exchange), t.params, dir, sizeof dir);
    if (rc == CLI_OK) rc = run_export(&a, &t, dir, &info);
    int exported = rc == CLI_OK;
    if (rc == CLI_OK) rc = run_build(dir, a.smpi != NULL, info.mpi);
    if (rc != CLI_OK) goto done;
    if (info.mpi && !a.smpi && (rc = cli_mpirun_open(&session)) != CLI_OK) goto done;
    run_command(&a, &info, dir, platform, speed, &session, cmd, sizeof cmd);
    double best = -1;
    uint64_t sum = 0;
    if ((rc = run_times(cmd, info.prog, a.repeat, a.json, &sum, &best)) != CLI_OK) goto done;
    uint64_t want = t.checksum;
    if (t.native && (rc = run_native_reference(&a, &t, &want)) != CLI_OK) goto done;
    const char *ref = t.native ? "the sequential C program's" : "the simulation's";
    int match = sum == want;
    if (a.json) {
        printf("{\"target\":");
        report_json_string(stdout, t.label);
        printf(",\"node\":%lld,\"ranks\":%d,\"runner\":\"%s\",\"platform\":", (long long)t.node, a.np,
               a.smpi ? "smpirun" : info.mpi ? "mpirun" : "sequential");
        if (a.smpi) report_json_string(stdout, platform);
        else printf("null");
        printf(",\"exchange\":\"%s\",\"checksum\":\"%016" PRIx64 "\",\"reference\":\"%s\","
               "\"reference_checksum\":\"%016" PRIx64 "\",\"sim_checksum\":",
               xf_exchange_name(info.exchange), sum, t.native ? "sequential C" : "simulation", want);
        if (t.native) printf("null");
        else printf("\"%016" PRIx64 "\"", t.checksum);
        printf(",\"match\":%s,\"seconds\":%.9g,\"repeat\":%d,\"dir\":", match ? "true" : "false", best, a.repeat);
        if (t.s || !match) report_json_string(stdout, dir);   /* a file's /tmp directory goes when it ran well */
        else printf("null");
        printf("}\n");
    }
    if (!match) {
        rc = cli_fail("%s: checksum %016" PRIx64 " differs from %s %016" PRIx64 "; nothing stored", t.label, sum,
                      ref, want);
        goto done;
    }
    if (!a.json)
        printf("%s: %d rank%s%s%s, checksum %016" PRIx64 " = %s, %.6f s (best of %d)\n", t.label, a.np,
               a.np == 1 ? "" : "s", a.smpi ? " under smpirun -platform " : "", a.smpi ? platform : "", sum, ref, best,
               a.repeat);
    if (t.s) rc = run_store(&a, &t, platform, best);
done:
    cli_mpirun_close(&session);
    run_dir_done(t.s, dir, rc, exported);
    exp_target_free(&t);
    return rc;
}
