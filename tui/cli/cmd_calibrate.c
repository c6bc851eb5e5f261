/*
 * cmd_calibrate.c — `polyapm calibrate [-np N] [--name PROFILE]`: measures this machine the way the
 * thesis calibrated its cluster (§4.4) and stores the fitted machine profile.
 *
 * The benchmark (runtime/calibrate/bench.c and micro.c, embedded here as text) is written to a
 * cache directory ($XDG_CACHE_HOME/polyapm, else ~/.cache/polyapm), built there with mpicc as
 * exported code is built (-O3 -march=native -ffp-contract=off) once per version of its sources,
 * and run with mpirun on N ranks (--allow-run-as-root when root, --oversubscribe): first its
 * microbenchmarks of the processor and the memory (an operation, a stream from each cache level
 * and from memory, the latencies, the column walks, the accumulation, a restarted stream), then
 * the message measurements, three runs one after the other (a run on a busy or waking machine can
 * be off by half: each measurement keeps its least time over the runs); its lines are fitted by
 * engine/calib.c.  Progress goes to stderr.
 * The profile is written to the user-level file (cost_profile_user_path: every workspace finds
 * it) and, when there is a workspace, stored in it (store_machine_put).  `--raw FILE` fits saved
 * measurements instead of running the benchmark.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "calib.h"
#include "cli.h"
#include "mem.h"
#include "report.h"
#include "store.h"
#include "strbuf.h"
#include "textfile.h"

/* The benchmark's sources, written side by side into its build directory. */
typedef struct bench_file { const char *name, *text; } bench_file;
static const bench_file bench_files[] = {
    { "bench.c",
#include "calibrate_bench.inc"
    },
    { "micro.c",
#include "calibrate_micro.inc"
    },
    { "micro.h",
#include "calibrate_micro_h.inc"
    },
};
enum { NBENCH_FILES = sizeof bench_files / sizeof bench_files[0] };

static char *slurp(FILE *f, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    if (!m) return NULL;
    char chunk[4096];
    size_t r;
    while ((r = fread(chunk, 1, sizeof chunk, f)) > 0) fwrite(chunk, 1, r, m);
    fclose(m);
    if (len) *len = n;
    return buf;
}

/* Writes the benchmark's sources into DIR/calibrate-HASH/ (HASH of their texts) and builds them
 * there unless a binary of these very sources exists.  Returns the binary's path (malloc'd) or
 * NULL after printing why. */
static char *build_bench(const char *dir)
{
    strbuf all = {0};
    for (int i = 0; i < NBENCH_FILES; i++) strbuf_printf(&all, "%s\n%s", bench_files[i].name, bench_files[i].text);
    vcs_hex h;
    vcs_hash_text(all.s ? all.s : "", all.n, h);
    strbuf_free(&all);
    char *bdir = xasprintf("%s/calibrate-%.12s", dir, h), *bin = xasprintf("%s/bench", bdir);
    if (access(bin, X_OK) == 0) { free(bdir); return bin; }
    mkdir(bdir, 0777);
    for (int i = 0; i < NBENCH_FILES; i++) {
        char *src = xasprintf("%s/%s", bdir, bench_files[i].name);
        FILE *f = fopen(src, "w");
        int ok = f && fputs(bench_files[i].text, f) != EOF;
        if ((f && fclose(f) != 0) || !ok) {
            cli_fail("cannot write %s: %s", src, strerror(errno));
            free(src);
            free(bdir);
            free(bin);
            return NULL;
        }
        free(src);
    }
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cd '%s' && mpicc -std=c11 -O3 -march=native -ffp-contract=off -Wall -Wextra "
             "bench.c micro.c -o bench.tmp && mv bench.tmp bench", bdir);
    fprintf(stderr, "calibrate: building the benchmark in %s\n", bdir);
    int rc = system(cmd);
    free(bdir);
    if (rc != 0) { cli_fail("building the benchmark failed (is mpicc installed?)"); free(bin); return NULL; }
    return bin;
}

enum { BENCH_RUNS = 3 };

/* Runs the benchmark on `np` ranks; its stdout (malloc'd) or NULL. */
static char *run_bench_once(const char *bin, int np, int quick)
{
    cli_mpirun session;
    if (cli_mpirun_open(&session) != CLI_OK) return NULL;
    char mpirun[1200], qbin[4200], cmd[8192];
    cli_mpirun_command(&session, np, mpirun, sizeof mpirun);
    cli_shell_quote(qbin, sizeof qbin, bin);
    snprintf(cmd, sizeof cmd, "timeout 600 %s %s%s", mpirun, qbin, quick ? " quick" : "");
    fprintf(stderr, "calibrate: %s\n", cmd);
    FILE *p = popen(cmd, "r");
    if (!p) { cli_fail("cannot run mpirun: %s", strerror(errno)); cli_mpirun_close(&session); return NULL; }
    char *out = slurp(p, NULL);
    int rc = pclose(p);
    cli_mpirun_close(&session);
    if (rc != 0) { cli_fail("the benchmark failed (mpirun exit status %d)", rc); free(out); return NULL; }
    return out;
}

/* BENCH_RUNS runs of the benchmark, their outputs one after the other (malloc'd), or NULL. */
static char *run_bench(const char *bin, int np, int quick)
{
    strbuf all = {0};
    for (int k = 1; k <= BENCH_RUNS; k++) {
        fprintf(stderr, "calibrate: run %d of %d\n", k, BENCH_RUNS);
        char *out = run_bench_once(bin, np, quick);
        if (!out) { strbuf_free(&all); return NULL; }
        strbuf_printf(&all, "# run %d of %d\n%s", k, BENCH_RUNS, out);
        free(out);
    }
    return strbuf_take(&all);
}

typedef struct param_row { const char *key, *unit, *what; } param_row;

static const param_row param_rows[] = {
    {"tick_seconds", "s", "an arithmetic operation, not vectorised (16- against 2-operation update, first level)"},
    {"normsent", "ticks/message", "send slope per message (s-bar)"},
    {"normrcvd", "ticks/message", "receive slope per message (r-bar)"},
    {"barrier_slope", "ticks/partner", "constant exchange cost + startups, per (P-1)"},
    {"ts", "ticks", "hockney startup (ping-pong)"},
    {"tw", "ticks/word", "hockney per 8-byte word (ping-pong)"},
    {"g", "ticks/word", "bsp h-relation per word"},
    {"loggp_L", "ticks", "loggp latency (8-byte bursts of K messages: intercept less o)"},
    {"loggp_o", "ticks/message", "loggp overhead (8-byte bursts: slope in K)"},
    {"loggp_G", "ticks/word", "loggp per 8-byte word (the bursts' slopes against their words)"},
    {"guard_price", "ticks/tick", "a send guard's tick (0: the halo path never tests it)"},
    {"unit_price", "ticks/tick", "a tick of unit-stride work: a vectorised operation (its traffic: the streams)"},
    {"strided_price", "ticks/tick", "a tick of a walk down columns beyond the caches (2000 rows, every column)"},
    {"aliased_price", "ticks/tick", "the same, rows 8192 bytes apart (the same cache sets)"},
    {"strided1_price", "ticks/tick", "the walk over data the first level holds"},
    {"strided2_price", "ticks/tick", "the second (-1: none)"},
    {"strided_cached_price", "ticks/tick", "the last level"},
    {"accum_price", "ticks/tick", "a tick of an accumulation (a chain of dependent additions, without its end)"},
    {"accum_window", "elements", "the next chain's elements run while one ends (-1: none)"},
    {"lanes_price", "ticks/tick", "a tick of accumulations a vector's lanes run side by side (a chain each)"},
    {"searched_price", "ticks/tick", "a tick of work whose elements are found through a memory's pieces"},
    {"cache1_bytes", "bytes", "the first cache level one processor has"},
    {"cache2_bytes", "bytes", "the second, when there are three (-1: none)"},
    {"cache_bytes", "bytes", "the last level's share of one processor (-1: unknown)"},
    {"stream1_price", "ticks/element", "an element streamed from the first level"},
    {"stream2_price", "ticks/element", "from the second (-1: none)"},
    {"stream_cached_price", "ticks/element", "from the last level"},
    {"stream_price", "ticks/element", "from memory (beyond the caches)"},
    {"restart_price", "ticks/restart", "a stream started over by a loop over part of a row (-1: none)"},
    {"entry_price", "ticks/entry", "an entry of an innermost loop (-1: none)"},
    {"alias_check_price", "ticks/entry", "the overlap test of a loop reading its own array elsewhere (-1: none)"},
    {"latency1", "ticks", "a dependent load from the first level"},
    {"latency2", "ticks", "from the second (-1: none)"},
    {"latency_cached", "ticks", "from the last level"},
    {"latency_mem", "ticks", "from memory"},
};
enum { NPARAM_ROWS = sizeof param_rows / sizeof param_rows[0] };


/* What the fitted loggp keys say one message of the series' smallest size costs (seconds). */
static double loggp_single(const calib_result *r)
{
    const cost_profile *p = &r->profile;
    return (p->loggp_L + 2 * p->loggp_o + p->loggp_G * r->single_bytes / 8) * p->tick_seconds;
}

static void print_text(const calib_result *r, double secs, const char *const *stored, int nstored)
{
    printf("machine profile %s: %d ranks, measured in %.1f s\n", r->profile.name, r->ranks, secs);
    for (int i = 0; i < NPARAM_ROWS; i++)
        printf("  %-17s %-14.7g %-14s %s\n", param_rows[i].key, cost_profile_get(&r->profile, param_rows[i].key),
               param_rows[i].unit, param_rows[i].what);
    printf("fits (seconds against x):\n  %-16s %-13s %-13s %-9s %s\n", "series", "slope", "intercept",
           "R2", "points (dropped)");
    for (int i = 0; i < r->nfits; i++) {
        const stats_line *l = &r->fits[i].line;
        printf("  %-16s %-13.6g %-13.6g %-9.6f %d (%d)\n", r->fits[i].what, l->slope, l->intercept,
               l->r2, l->n, l->dropped);
    }
    for (int p = 2; p <= r->ranks && p <= CALIB_MAX_P; p++)
        printf("  P=%d: MPI_Barrier %.3g s, BSP l(P) %.3g s, b(P) %.3g s\n", p, r->barrier_seconds[p],
               r->l_seconds[p], cost_barrier(&r->profile, p) * r->profile.tick_seconds);
    if (r->single_bytes > 0)
        printf("  loggp: one message of %g bytes L + 2o + G·%g = %.3g s (measured %.3g s)\n", r->single_bytes,
               r->single_bytes / 8, loggp_single(r), r->single_seconds);
    const calib_micro *m = &r->micro;
    if (m->op > 0) {
        printf("  microbenchmarks (ns an element; chase: a load):\n");
        for (int l = 1; l <= m->nlevels; l++)
            printf("    L%d %8.0f KB (shared by %g): update %.4g, chase %.4g, strided %.4g, over %.0f KB\n", l,
                   m->cache_bytes[l] / 1024, m->sharing[l], 1e9 * m->update[l], 1e9 * m->chase[l], 1e9 * m->walk[l],
                   m->bytes[l] / 1024);
        printf("    memory: update %.4g, chase %.4g, over %.0f KB\n", 1e9 * m->update[0], 1e9 * m->chase[0],
               m->bytes[0] / 1024);
        printf("    poly %.4g (op %.4g), not vectorised: update %.4g, poly %.4g (op %.4g)\n", 1e9 * m->poly, 1e9 * m->op,
               1e9 * m->update_scalar, 1e9 * m->poly_scalar, 1e9 * m->op_scalar);
        printf("    accum %.4g, in chains of %d %.4g, lanes %.4g, strided %.4g, aliased %.4g, searched %.4g, restart %.4g a row (%.4g in whole "
               "rows)\n", 1e9 * m->accum, CALIB_CHAIN_LEN, 1e9 * m->chains, 1e9 * m->lanes, 1e9 * m->strided, 1e9 * m->aliased, 1e9 * m->searched, 1e9 * m->restart, 1e9 * m->rows);
        printf("    a row in %d pieces %.4g a piece (%.4g whole), from its own rows %.4g (%.4g whole)\n", CALIB_ENTRY_PIECES,
               1e9 * m->entries, 1e9 * m->whole, 1e9 * m->entries_checked, 1e9 * m->whole_checked);
    } else {
        printf("  tick: one multiply in a memory-bound loop (no microbenchmarks measured)\n");
    }
    if (r->note[0]) printf("note: %s\n", r->note);
    for (int i = 0; i < nstored; i++) printf("stored: %s\n", stored[i]);
}

static void print_json(const calib_result *r, double secs, const char *const *stored, int nstored)
{
    printf("{\"name\":");
    report_json_string(stdout, r->profile.name);
    printf(",\"ranks\":%d,\"seconds\":%.6g,\"profile\":{", r->ranks, secs);
    for (int i = 0; i < NPARAM_ROWS; i++)
        printf("%s\"%s\":%.10g", i ? "," : "", param_rows[i].key, cost_profile_get(&r->profile, param_rows[i].key));
    printf(",\"barrier_const\":%.10g,\"coalesce\":%d},\"multiply_seconds\":%.10g,\"micro\":",
           r->profile.barrier_const, r->profile.coalesce, r->multiply_seconds);
    const calib_micro *m = &r->micro;
    if (m->op > 0) {
        printf("{\"op\":%.10g,\"op_scalar\":%.10g,\"poly\":%.10g,\"poly_scalar\":%.10g,\"update_scalar\":%.10g,"
               "\"accum\":%.10g,\"accum_bytes\":%.10g,\"chains\":%.10g,\"lanes\":%.10g,\"strided\":%.10g,\"aliased\":%.10g,\"searched\":%.10g,\"restart\":%.10g,"
               "\"rows\":%.10g,\"entries\":%.10g,\"whole\":%.10g,\"entries_checked\":%.10g,\"whole_checked\":%.10g,\"levels\":[",
               m->op, m->op_scalar, m->poly, m->poly_scalar, m->update_scalar, m->accum, m->accum_bytes, m->chains, m->lanes, m->strided, m->aliased,
               m->searched, m->restart, m->rows, m->entries, m->whole, m->entries_checked, m->whole_checked);
        for (int l = 0; l <= m->nlevels; l++)
            printf("%s{\"level\":%d,\"cache_bytes\":%.17g,\"sharing\":%g,\"bytes\":%.17g,\"update\":%.10g,"
                   "\"chase\":%.10g,\"strided\":%.10g}", l ? "," : "", l, m->cache_bytes[l], m->sharing[l], m->bytes[l],
                   m->update[l], m->chase[l], l ? m->walk[l] : m->strided);
        printf("]}");
    } else {
        printf("null");
    }
    if (r->single_bytes > 0)
        printf(",\"loggp_single\":{\"bytes\":%g,\"seconds\":%.10g,\"predicted\":%.10g}", r->single_bytes,
               r->single_seconds, loggp_single(r));
    printf(",\"fits\":[");
    for (int i = 0; i < r->nfits; i++) {
        const stats_line *l = &r->fits[i].line;
        printf("%s{\"series\":", i ? "," : "");
        report_json_string(stdout, r->fits[i].what);
        printf(",\"slope\":%.10g,\"intercept\":%.10g,\"r2\":%.10g,\"points\":%d,\"dropped\":%d}",
               l->slope, l->intercept, l->r2, l->n, l->dropped);
    }
    printf("],\"note\":");
    report_json_string(stdout, r->note);
    printf(",\"stored\":[");
    for (int i = 0; i < nstored; i++) {
        if (i) putchar(',');
        report_json_string(stdout, stored[i]);
    }
    printf("]}\n");
}

typedef struct calib_args {
    long np;
    int quick, json, nostore;
    const char *name, *rawfile, *ws;
} calib_args;

static const cli_opt calib_opts[] = {
    {.name = "-np", .kind = OPT_LONG, .value = "N", .off = offsetof(calib_args, np), .lo = 2, .hi = CALIB_MAX_P,
     .help = "run the benchmark on N MPI ranks (default 2)"},
    {.name = "--name", .kind = OPT_STR, .value = "PROFILE", .off = offsetof(calib_args, name),
     .help = "store the profile under this name (default local)"},
    {.name = "--quick", .kind = OPT_FLAG, .off = offsetof(calib_args, quick),
     .help = "fewer repetitions: quicker and less precise"},
    {.name = "--raw", .kind = OPT_STR, .value = "FILE", .off = offsetof(calib_args, rawfile),
     .help = "fit the benchmark output saved in FILE instead of running it"},
    {.name = "--no-store", .kind = OPT_FLAG, .off = offsetof(calib_args, nostore),
     .help = "only print the profile"},
    {.name = "-w", .kind = OPT_STR, .value = "WS", .off = offsetof(calib_args, ws),
     .help = "also store it in this workspace (default: the current one, if any)"},
    {.name = "--json", .kind = OPT_FLAG, .off = offsetof(calib_args, json), .help = "print one JSON object"},
    {0},
};

int cmd_calibrate(int argc, char **argv);
const cli_spec cmd_calibrate_spec = {
    "calibrate", "", "measure this machine (microbenchmarks: operations, each cache level's and memory's streams and latency; exchange, send/receive, ping-pong, LogGP bursts, h-relation); store the profile",
    calib_opts, 1, NULL, NULL, cmd_calibrate};

int cmd_calibrate(int argc, char **argv)
{
    calib_args a = {.np = 2, .name = "local"};
    int npos = 0;
    int rc = optable_parse(&cmd_calibrate_spec, argc, argv, &a, &npos);
    if (rc) return rc;
    if (npos) return cli_usage("calibrate", "unknown argument '%s'", argv[1]);
    int np = (int)a.np, quick = a.quick, json = a.json, nostore = a.nostore;
    const char *name = a.name, *rawfile = a.rawfile, *ws = a.ws;
    char *upath = cost_profile_user_path(name, 0);
    if (!upath || cost_profile_builtin(name))
        { free(upath); return cli_usage("calibrate", "bad profile name '%s' (a word; not a built-in)", name); }
    free(upath);

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char *raw = NULL, *dir = NULL, *bin = NULL;
    int status = CLI_FAIL;
    if (rawfile) {
        diag_list rd;
        diag_list_init(&rd);
        raw = textfile_read(rawfile, "raw measurements", (size_t)1 << 24, NULL, &rd);
        if (!raw) diag_print(&rd, stderr);
        diag_list_free(&rd);
        if (!raw) return CLI_FAIL;
    } else {
        if (!(dir = cli_cache_dir())) return cli_fail("no cache directory for the benchmark");
        if (!(bin = build_bench(dir))) goto out;
        if (!(raw = run_bench(bin, np, quick))) goto out;
        /* keep the raw measurements next to the binary */
        char path[8192];
        snprintf(path, sizeof path, "%s/calibrate-%s.raw", dir, name);
        FILE *f = fopen(path, "w");
        if (f) { fputs(raw, f); fclose(f); }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);

    diag_list d;
    diag_list_init(&d);
    calib_result r;
    const char *stored[2];
    char *stored_own[2] = {NULL, NULL};
    int nstored = 0;
    if (calib_fit_raw(rawfile ? rawfile : "benchmark output", raw ? raw : "", name, &r, &d) != 0) {
        diag_print(&d, stderr);
        goto done;
    }
    char *text = cost_profile_format(&r.profile);
    if (!text) { cli_fail("out of memory"); goto done; }
    if (!nostore) {
        char *path = cost_profile_user_path(name, 1);
        FILE *f = path ? fopen(path, "w") : NULL;
        if (!f || fprintf(f, "# polyapm calibrate -np %d, %d ranks\n%s", np, r.ranks, text) < 0 || fclose(f) != 0) {
            cli_fail("cannot write %s: %s", path ? path : "the user profile", strerror(errno));
            free(path);
            free(text);
            goto done;
        }
        stored[nstored] = stored_own[nstored] = path;
        nstored++;
        /* the workspace, when there is one (not an error when there is none) */
        diag_list wd;
        diag_list_init(&wd);
        char *wdir = store_find(ws, &wd);
        store *s = NULL;
        if (wdir && store_open(wdir, STORE_WRITE, &s, &wd) == 0 && store_machine_put(s, name, text, &wd) == 0) {
            size_t n = strlen(wdir) + strlen(name) + 32;
            char *what = malloc(n);
            if (what) snprintf(what, n, "workspace %s (machine %s)", wdir, name);
            stored[nstored] = stored_own[nstored] = what;
            if (what) nstored++;
        } else if (ws) {
            cli_fail("%s", wd.n ? wd.items[wd.n - 1].msg : "cannot store in the workspace");
            store_close(s);
            free(wdir);
            diag_list_free(&wd);
            free(text);
            goto done;
        }
        store_close(s);
        free(wdir);
        diag_list_free(&wd);
    }
    free(text);
    if (json) print_json(&r, secs, stored, nstored);
    else print_text(&r, secs, stored, nstored);
    status = CLI_OK;
done:
    free(stored_own[0]);
    free(stored_own[1]);
    diag_list_free(&d);
out:
    free(raw);
    free(dir);
    free(bin);
    return status;
}
