/*
 * calib_kernel.c — the exported-code part of `polyapm calibrate`: what one tick of exported code
 * costs on this machine.  The calibration kernel (runtime/calibrate/kernel.apm, embedded here as
 * text) is simulated for its ticks (the cost rule every node is priced by), exported as sequential
 * C the way `polyapm export` writes any source program, built with its Makefile and timed as
 * one copy on each processor the profile is for (as many as run at once here: they share the
 * caches and the memory as a leaf's processors do; the slowest copy of the fastest of a few
 * rounds) — once per work class it has a part of
 * (engine/sim.h: the unit-stride stencil, the stride-n column sums, the accumulation), once
 * more for the stencil on arrays that fit the cache, and for a row update (LU's shape: two ticks
 * to an element read and written back) at both sizes, which tells a unit-stride tick's price from
 * a streamed element's (engine/cost.h, `streams`), and that update over part of longer rows at
 * two lengths (a restart's price), the other parts' loops left empty by -D, so
 * that each class's tick is measured apart; and it reads the cache one processor has (sysfs).
 * The ratio prices the loads, stores, loop and index arithmetic of real exported code along with
 * its flops, which the benchmark's multiply alone does not (engine/calib.h uses it as the
 * profile's tick).  The parts are built in the background while their ticks are simulated, and
 * timed after, alone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "calib.h"
#include "calib_kernel.h"
#include "cli.h"
#include "simjob.h"
#include "xf.h"

static const char kernel_source[] =
#include "calibrate_kernel.inc"
    ;

/* The kernel's parts (engine/calib.h, calib_part_names: a work class's of engine/sim.h, or the
 * stencil in the cache), and the -D that leave only that part (the other loops empty). */
enum { CK_MAX_BINDINGS = 8 };
typedef struct ck_part { int cls; const char *bindings[CK_MAX_BINDINGS]; } ck_part;
static const ck_part ck_parts[] = {
    { SIM_WORK_UNIT, { "rounds=0", "n=2000", "steps=6" } },       /* the stencil alone, 64 MB */
    { SIM_WORK_STRIDED, { "steps=0" } },                          /* the column sums alone */
    { SIM_WORK_ALIASED, { "steps=0", "m=1024", "rounds=16" } },   /* ... down rows of 8192 bytes */
    { SIM_WORK_ACCUM, { "steps=0", "rounds=0", "m=500", "accums=300" } },  /* accumulated, 2 MB */
    { CALIB_PART_CACHED, { "rounds=0", "m=8", "n=400", "steps=128" } },    /* the stencil, 2.5 MB */
    { CALIB_PART_UPDATE, { "steps=0", "rounds=0", "urows=4000", "ulen=2000", "urounds=4" } },  /* 64 MB */
    { CALIB_PART_UPDATE_CACHED, { "steps=0", "rounds=0", "urows=400", "ulen=800", "urounds=128" } },  /* 2.5 MB */
    /* the update over part of rows of 1000 (9.6 MB), at two lengths: like ticks and streams */
    { CALIB_PART_ROWS, { "steps=0", "rounds=0", "urows=1200", "ulen=170", "gcols=1000", "urounds=128" } },
    { CALIB_PART_ROWS_LONG, { "steps=0", "rounds=0", "urows=1200", "ulen=340", "gcols=1000", "urounds=64" } },
};

/* The last-level cache of cpu0 (sysfs: its largest) in *size and the processors that share it in
 * *sharing; 0 when sysfs does not say. */
static int ck_llc(double *size, int *sharing)
{
    *size = 0;
    *sharing = 0;
    for (int i = 0; i < 8; i++) {
        char path[96], buf[256];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        FILE *f = fopen(path, "r");
        if (!f) break;
        char *ok = fgets(buf, sizeof buf, f);
        fclose(f);
        char *unit = NULL;
        double sz = ok ? strtod(buf, &unit) : 0;
        if (unit && (*unit == 'K' || *unit == 'k')) sz *= 1024;
        else if (unit && *unit == 'M') sz *= 1024 * 1024;
        if (sz <= *size) continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list", i);
        int n = 0;
        if ((f = fopen(path, "r"))) {
            /* "0-1,4,6-7": each range counts its processors */
            for (char *p = fgets(buf, sizeof buf, f); p && *p && *p != '\n';) {
                long a = strtol(p, &p, 10), b = *p == '-' ? strtol(p + 1, &p, 10) : a;
                n += b >= a ? (int)(b - a + 1) : 1;
                if (*p == ',') p++;
                else break;
            }
            fclose(f);
        }
        *size = sz;
        *sharing = n > 0 ? n : 1;
    }
    return *size > 0 ? 0 : -1;
}

/* The kernel's ticks under the cost rule (one processor: the trace's total work), the elements it
 * streams and the streams it starts over (engine/cost.h, `streams`): out[0 .. 2]. */
static int ck_ticks(const ir_program *p, const ir_binding *b, int nb, double out[3])
{
    diag_list d;
    diag_list_init(&d);
    simjob j;
    memset(&j, 0, sizeof j);
    j.prog = p;
    j.bindings = b;
    j.nbindings = nb;
    int rc = -1;
    if (cost_profile_resolve("scali2004", &j.profile, &d) != 0 || simjob_run(&j, &d) != 0 || !j.has_cost) {
        cli_fail("calibration kernel: its simulation failed: %s", d.n ? d.items[d.n - 1].msg : "?");
    } else if (j.res->violations_total > 0) {
        cli_fail("calibration kernel: its simulation reports violations");
    } else {
        out[0] = j.cost.total;
        out[1] = j.cost.streams;
        out[2] = j.cost.restarts;
        rc = 0;
    }
    simjob_free(&j);
    diag_list_free(&d);
    return rc;
}

/* Exports `p` into `dir`; the executable's path its Makefile builds (malloc'd) or NULL. */
static char *ck_export(const ir_program *p, const ir_binding *b, int nb, const char *dir)
{
    diag_list d;
    diag_list_init(&d);
    xf_export_options o = {b, nb, XF_EXCHANGE_AUTO, "polyapm calibrate"};
    xf_export_info info;
    if (xf_export(p, dir, &o, &info, &d) != XF_OK) {
        cli_fail("calibration kernel: export failed: %s", d.n ? d.items[d.n - 1].msg : "?");
        diag_list_free(&d);
        return NULL;
    }
    diag_list_free(&d);
    size_t n = strlen(dir) + sizeof info.prog + 64;
    char *bin = malloc(n);
    if (bin) snprintf(bin, n, "%s/%s", dir, info.prog);
    return bin;
}

enum { CK_MAX_COPIES = 64 };

/* The main loop's seconds in one run's output, 0 when it printed none. */
static double ck_seconds(const char *out)
{
    const char *at = strstr(out, "seconds=");
    double s = at ? strtod(at + 8, NULL) : 0;
    return s > 0 ? s : 0;
}

/* Times the exported binary `bin`: `copies` runs at once (the processors a leaf runs on share
 * the caches and the memory's bandwidth, so the kernel is timed sharing them as well), the
 * slowest copy's main loop a round (a step waits for its slowest processor), the fastest of
 * `runs` rounds; or 0 after saying why. */
static double ck_time(const char *bin, int runs, int copies)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s'", bin);
    double best = 0;
    for (int r = 0; r < runs; r++) {
        FILE *f[CK_MAX_COPIES];
        int n = 0;
        while (n < copies && n < CK_MAX_COPIES && (f[n] = popen(cmd, "r"))) n++;
        double slowest = n == copies ? 0 : -1;
        for (int i = 0; i < n; i++) {
            char buf[4096];
            size_t got = fread(buf, 1, sizeof buf - 1, f[i]);
            buf[got] = '\0';
            int st = pclose(f[i]);
            double s = WIFEXITED(st) && WEXITSTATUS(st) == 0 ? ck_seconds(buf) : 0;
            if (!(s > 0)) slowest = -1;
            else if (slowest >= 0 && s > slowest) slowest = s;
        }
        if (!(slowest > 0)) { cli_fail("calibration kernel: %s printed no seconds", bin); return 0; }
        if (best == 0 || slowest < best) best = slowest;
    }
    return best;
}

enum { CK_NPARTS = sizeof ck_parts / sizeof ck_parts[0] };

/* A part's -D values (in `spec`, which they name) into b; the count, or -1 after saying why. */
static int ck_part_bindings(const ck_part *part, char spec[][32], ir_binding *b)
{
    int nb = 0;
    for (; nb < CK_MAX_BINDINGS && part->bindings[nb]; nb++) {
        snprintf(spec[nb], 32, "%s", part->bindings[nb]);
        if (ir_parse_binding(spec[nb], &b[nb]) != 0) {
            cli_fail("calibration kernel: bad part %s", part->bindings[nb]);
            return -1;
        }
    }
    return nb;
}

/* Every part's ticks (ck_ticks), the odd parts simulated by a child process while this one
 * simulates the even ones (two of the host's processors, or two shares of a loaded one); the
 * child sends its counts through a pipe.  0, or -1 after saying why. */
static int ck_ticks_all(const ir_program *p, ir_binding b[][CK_MAX_BINDINGS], const int *nb,
                        double counts[CALIB_PARTS][3])
{
    int fd[2];
    pid_t pid = pipe(fd) == 0 ? fork() : -1;
    if (pid == 0) {
        close(fd[0]);
        int ok = 1;
        for (size_t i = 1; i < CK_NPARTS && ok; i += 2) {
            double c[3];
            ok = ck_ticks(p, b[i], nb[i], c) == 0 && write(fd[1], c, sizeof c) == (ssize_t)sizeof c;
        }
        _exit(ok ? 0 : 1);
    }
    if (pid > 0) close(fd[1]);
    int rc = 0;
    for (size_t i = 0; i < CK_NPARTS && rc == 0; i += pid > 0 ? 2 : 1)   /* no child: all here */
        rc = ck_ticks(p, b[i], nb[i], counts[ck_parts[i].cls]);
    if (pid <= 0) return rc;
    for (size_t i = 1; i < CK_NPARTS; i += 2) {
        double c[3];
        size_t got = 0;
        for (ssize_t r; got < sizeof c && (r = read(fd[0], (char *)c + got, sizeof c - got)) != 0;)
            if (r > 0) got += (size_t)r;
            else if (errno != EINTR) break;
        if (got != sizeof c) { rc = -1; break; }
        memcpy(counts[ck_parts[i].cls], c, sizeof c);
    }
    close(fd[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    return rc == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* Every part exported into its own directory under kdir (bins[i]: its executable, malloc'd),
 * then built by one shell in the background while two processes simulate the parts for their
 * ticks (the two take about as long; on a shared machine side by side they take the longer's
 * time), then timed one part after another, alone.  0, or -1 after saying why. */
static int ck_parts_measure(const ir_program *p, const char *kdir, int quick, int copies,
                            double seconds[CALIB_PARTS], double counts[CALIB_PARTS][3], char *bins[CK_NPARTS])
{
    char spec[CK_NPARTS][CK_MAX_BINDINGS][32];
    ir_binding b[CK_NPARTS][CK_MAX_BINDINGS];
    int nb[CK_NPARTS];
    size_t cap = 64;
    for (size_t i = 0; i < CK_NPARTS; i++) cap += strlen(kdir) + 64;
    char *cmd = malloc(cap);
    if (!cmd) return -1;
    snprintf(cmd, cap, "true");
    for (size_t i = 0; i < CK_NPARTS; i++) {
        char pdir[4096];
        snprintf(pdir, sizeof pdir, "%s/part%d", kdir, ck_parts[i].cls);
        nb[i] = ck_part_bindings(&ck_parts[i], spec[i], b[i]);
        if (nb[i] < 0 || !(bins[i] = ck_export(p, b[i], nb[i], pdir))) {
            free(cmd);
            return -1;
        }
        snprintf(cmd + strlen(cmd), cap - strlen(cmd), " && make -s -C '%s'", pdir);
    }
    snprintf(cmd + strlen(cmd), cap - strlen(cmd), " >/dev/null 2>&1");
    fprintf(stderr, "calibrate: building the exported kernel's %d parts (%s) and simulating them for their ticks\n",
            (int)CK_NPARTS, kdir);
    FILE *make = popen(cmd, "r");
    free(cmd);
    if (!make) return cli_fail("calibration kernel: cannot start make"), -1;
    int rc = 0;
    rc = ck_ticks_all(p, b, nb, counts);
    int st = pclose(make);
    if (rc == 0 && (!WIFEXITED(st) || WEXITSTATUS(st) != 0)) {
        cli_fail("calibration kernel: building the exported C in %s failed", kdir);
        rc = -1;
    }
    for (size_t i = 0; i < CK_NPARTS && rc == 0; i++) {
        fprintf(stderr, "calibrate: timing the exported kernel's part %s (%s, %d at once)\n",
                calib_part_names[ck_parts[i].cls], bins[i], copies);
        seconds[ck_parts[i].cls] = ck_time(bins[i], quick ? 3 : 9, copies);
        if (!(seconds[ck_parts[i].cls] > 0)) rc = -1;
    }
    return rc;
}

/* The cache one processor has: the last-level cache over the processors that share it (sysfs);
 * 0 when unknown. */
static double ck_cache_share(void)
{
    double llc;
    int sharing;
    return ck_llc(&llc, &sharing) == 0 ? llc / sharing : 0;
}

int calib_kernel_measure(const char *dir, int quick, int copies, double seconds[CALIB_PARTS],
                         double counts[CALIB_PARTS][3], double *cache_bytes)
{
    diag_list d;
    diag_list_init(&d);
    ir_program *p = ir_load_text("calibration kernel", kernel_source, strlen(kernel_source), &d);
    if (!p) {
        diag_print(&d, stderr);
        diag_list_free(&d);
        cli_fail("the calibration kernel does not load");
        return -1;
    }
    diag_list_free(&d);
    /* a directory of this run's own: calibrations may run side by side */
    size_t n = strlen(dir) + 32;
    char *kdir = malloc(n);
    int rc = -1;
    if (!kdir) goto out;
    snprintf(kdir, n, "%s/calibrate-kernel-XXXXXX", dir);
    if (!mkdtemp(kdir)) {
        cli_fail("calibration kernel: cannot create %s: %s", kdir, strerror(errno));
        free(kdir);
        kdir = NULL;
        goto out;
    }
    memset(counts, 0, CALIB_PARTS * sizeof *counts);
    for (int k = 0; k < CALIB_PARTS; k++) seconds[k] = 0;
    char *bins[CK_NPARTS] = {NULL};
    rc = ck_parts_measure(p, kdir, quick, copies, seconds, counts, bins);
    for (size_t i = 0; i < CK_NPARTS; i++) free(bins[i]);
    if (rc == 0) *cache_bytes = ck_cache_share();
out:
    ir_program_free(p);
    if (kdir) {
        char cmd[8192];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", kdir);
        if (system(cmd) != 0) fprintf(stderr, "calibrate: could not remove %s\n", kdir);
    }
    free(kdir);
    return rc;
}
