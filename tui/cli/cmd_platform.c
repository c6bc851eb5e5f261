/*
 * cmd_platform.c — `polyapm platform -n HOSTS [--latency L] [--bandwidth B] [--speed S]
 * [--backbone B] [--overhead O] [--factors flat|simgrid] [-o FILE.xml] [--profile FILE]
 * [--tick SECONDS]`: a SimGrid platform, a homogeneous cluster of single-core hosts, for
 * `polyapm run --smpi FILE.xml`: to ask what a run would cost on a slower (or faster) network
 * than the clusters in examples/platforms/; and, with --profile, the machine profile that
 * prices it (so that `sim --machine FILE --model loggp` predicts what run --smpi measures).
 *
 * Values carry SimGrid's units, checked here against a table (a typo is a usage error, not a
 * platform SimGrid refuses later): latencies in s, ms, us or ns; bandwidths in bps or Bps with
 * k, M, G or T; speeds in f (flop/s) with k, M, G or T.  cli_platform_speed reads a platform's
 * host speed back (run --smpi times computation by it).
 *
 * The platform's <config> says how SMPI prices a message: with --factors flat (the default) the
 * latency and bandwidth are those given for every message size (smpi/lat-factor and
 * smpi/bw-factor 1; SimGrid's own factors, kept by --factors simgrid, were fitted to a real MPI
 * and scale them by 1.6 to 2 for the small messages a halo sends); --overhead O is the CPU time
 * a message costs its sender (smpi/os, smpi/ois) and its receiver (smpi/or).
 *
 * The profile (cost.h's keys): a message crosses its sender's link, the backbone and its
 * receiver's link, so loggp_L = 2·latency + the backbone's latency (the latency, here); loggp_o
 * = the overhead; loggp_G = 8 bytes over the link's bandwidth (SimGrid shares one link between
 * a host's words out and in, as loggp charges them); hockney's t_s = L + 2·o and t_w = G (one
 * message alone), BSP's g = G, the thesis's model m_s = m_r = L/2 + o, s̄ = r̄ = G/2; no barrier
 * (the exported exchange has none), sync_on_messages 1 and guard_price 0 as `calibrate` writes.
 * All in ticks of --tick seconds: by default the tick of the calibrated profile `local` (`polyapm
 * calibrate`: what a tick of exported code costs on this machine, the time run --smpi counts for
 * computation at the platform's host speed), else one flop at the host speed.  A program whose
 * ticks are annotations (the thesis's FD: 13 a point) has a tick of its own: --tick its
 * sequential run's seconds over its simulated ticks.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cost.h"
#include "diag.h"

int cmd_platform(int argc, char **argv);

typedef struct platform_args {
    const char *hosts, *latency, *bandwidth, *speed, *backbone, *out;
    const char *overhead, *factors, *profile, *tick;
} platform_args;

static const cli_opt platform_opts[] = {
    {.name = "-n", .kind = OPT_STR, .value = "HOSTS", .off = offsetof(platform_args, hosts), .flags = OPT_REQUIRED,
     .help = "the number of hosts (one MPI rank each)"},
    {.name = "--latency", .kind = OPT_STR, .value = "L", .off = offsetof(platform_args, latency),
     .help = "a link's latency, e.g. 50us (default 1us; a message crosses two links and the backbone)"},
    {.name = "--bandwidth", .kind = OPT_STR, .value = "B", .off = offsetof(platform_args, bandwidth),
     .help = "a link's bandwidth, e.g. 1Gbps (default 10Gbps)"},
    {.name = "--speed", .kind = OPT_STR, .value = "S", .off = offsetof(platform_args, speed),
     .help = "a host's speed, e.g. 2Gf (default 1Gf)"},
    {.name = "--backbone", .kind = OPT_STR, .value = "B", .off = offsetof(platform_args, backbone),
     .help = "the backbone's bandwidth (default 10 x the links')"},
    {.name = "--overhead", .kind = OPT_STR, .value = "O", .off = offsetof(platform_args, overhead),
     .help = "a message's CPU time on its sender and on its receiver, e.g. 20us (default 0)"},
    {.name = "--factors", .kind = OPT_STR, .value = "flat|simgrid", .off = offsetof(platform_args, factors),
     .help = "flat: latency and bandwidth as given for every message size (default); simgrid: SMPI's "
             "size-dependent factors"},
    {.name = "-o", .kind = OPT_STR, .value = "FILE.xml", .off = offsetof(platform_args, out),
     .help = "write the platform there (default: standard output)"},
    {.name = "--profile", .kind = OPT_STR, .value = "FILE", .off = offsetof(platform_args, profile),
     .help = "also write the machine profile that prices this cluster (loggp, hockney, bsp, polyapm)"},
    {.name = "--tick", .kind = OPT_STR, .value = "SECONDS", .off = offsetof(platform_args, tick),
     .help = "the profile's tick (default: the calibrated profile local's, else one flop at the host speed)"},
    {0},
};

const cli_spec cmd_platform_spec = {"platform", "", "a SimGrid cluster for run --smpi, with its latency and bandwidth (and its machine profile)",
                                    platform_opts, 1, NULL, NULL, cmd_platform};

/* The units of each kind of value, as SimGrid reads them, and their size in seconds, bytes/s or
 * flop/s. */
typedef struct unit { const char *name; double scale; } unit;
static const unit latency_units[] = {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {NULL, 0}};
static const unit bandwidth_units[] = {{"bps", 0.125}, {"kbps", 125}, {"Mbps", 125e3}, {"Gbps", 125e6},
                                       {"Tbps", 125e9}, {"Bps", 1}, {"kBps", 1e3}, {"MBps", 1e6},
                                       {"GBps", 1e9}, {"TBps", 1e12}, {NULL, 0}};
static const unit speed_units[] = {{"f", 1}, {"kf", 1e3}, {"Mf", 1e6}, {"Gf", 1e9}, {"Tf", 1e12}, {NULL, 0}};

/* v as a positive number followed by one of `units`, in the base unit; 0 when it is not one. */
static double value_of(const char *v, const unit *units)
{
    char *end;
    double x = strtod(v, &end);
    if (end == v || !(x > 0) || x > 1e18) return 0;
    for (const unit *u = units; u->name; u++)
        if (!strcmp(end, u->name)) return x * u->scale;
    return 0;
}

static int valid(const char *v, const unit *units) { return value_of(v, units) > 0; }

static int check(const char *opt, const char *v, const unit *units)
{
    if (valid(v, units)) return 0;
    char list[160] = "";
    for (const unit *u = units; u->name; u++) {
        strncat(list, u->name, sizeof list - strlen(list) - 1);
        if (u[1].name) strncat(list, ", ", sizeof list - strlen(list) - 1);
    }
    return cli_usage("platform", "%s '%s': a positive number and a unit (%s)", opt, v, list);
}

int cli_platform_speed(const char *path, char *out, size_t size)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[4096];
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        const char *p = strstr(line, " speed=\"");
        if (!p || strstr(line, "<!--")) continue;
        p += strlen(" speed=\"");
        size_t n = strcspn(p, "\",");   /* the first power state of "1Gf,500Mf" */
        if (n + 1 > size) break;
        memcpy(out, p, n);
        out[n] = '\0';
        found = valid(out, speed_units);
    }
    fclose(f);
    return found;
}

/* Usage errors in the values (each checked against its units), else 0. */
static int check_all(const platform_args *a)
{
    int rc;
    if ((rc = check("--latency", a->latency, latency_units)) || (rc = check("--bandwidth", a->bandwidth, bandwidth_units)) ||
        (rc = check("--speed", a->speed, speed_units)) || (a->backbone && (rc = check("--backbone", a->backbone, bandwidth_units))) ||
        (a->overhead && (rc = check("--overhead", a->overhead, latency_units))))
        return rc;
    if (strcmp(a->factors, "flat") && strcmp(a->factors, "simgrid"))
        return cli_usage("platform", "--factors '%s': flat or simgrid", a->factors);
    if (a->tick && !(strtod(a->tick, NULL) > 0 && strspn(a->tick, "0123456789.eE+-") == strlen(a->tick)))
        return cli_usage("platform", "--tick '%s': seconds, a positive number such as 1e-9", a->tick);
    if (a->profile && a->out && !strcmp(a->profile, a->out))
        return cli_usage("platform", "--profile and -o name the same file");
    return 0;
}

/* SMPI's configuration: flat factors, the overhead on each side (piecewise "size:seconds:per-byte"). */
static void write_config(FILE *f, const platform_args *a)
{
    int flat = !strcmp(a->factors, "flat");
    if (!flat && !a->overhead) return;
    fprintf(f, "  <config>\n");
    if (flat)
        fprintf(f, "    <prop id=\"smpi/lat-factor\" value=\"0:1\"/>\n    <prop id=\"smpi/bw-factor\" value=\"0:1\"/>\n");
    static const char *const sides[] = {"smpi/os", "smpi/ois", "smpi/or"};
    for (int i = 0; a->overhead && i < 3; i++)
        fprintf(f, "    <prop id=\"%s\" value=\"0:%.12g:0\"/>\n", sides[i], value_of(a->overhead, latency_units));
    fprintf(f, "  </config>\n");
}

static int write_xml(const platform_args *a, long hosts, const char *backbone)
{
    FILE *f = a->out ? fopen(a->out, "w") : stdout;
    if (!f) return cli_fail("cannot write %s", a->out);
    fprintf(f, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
               "<!-- A homogeneous cluster of %ld single-core hosts for SimGrid's SMPI (polyapm run --smpi),\n"
               "     made by polyapm platform: %s per host, %s links with %s latency, a %s backbone%s%s;\n"
               "     %s. -->\n<platform version=\"4.1\">\n",
            hosts, a->speed, a->bandwidth, a->latency, backbone, a->overhead ? ", a message's overhead " : "",
            a->overhead ? a->overhead : "",
            strcmp(a->factors, "flat") ? "SMPI's latency and bandwidth factors by message size"
                                       : "latency and bandwidth the same for every message size");
    write_config(f, a);
    fprintf(f, "  <zone id=\"world\" routing=\"Full\">\n"
               "    <cluster id=\"cluster\" prefix=\"node-\" suffix=\".polyapm\" radical=\"0-%ld\"\n"
               "             speed=\"%s\" bw=\"%s\" lat=\"%s\" bb_bw=\"%s\" bb_lat=\"%s\"/>\n"
               "  </zone>\n</platform>\n",
            hosts - 1, a->speed, a->bandwidth, a->latency, backbone, a->latency);
    if (a->out && fclose(f) != 0) return cli_fail("cannot write %s", a->out);
    return CLI_OK;
}

/* The profile's tick: --tick, else the calibrated profile `local`'s, else a flop at the host speed. */
static double profile_tick(const platform_args *a, const char **from)
{
    if (a->tick) { *from = "--tick"; return strtod(a->tick, NULL); }
    char *path = cost_profile_user_path("local", 0);
    cost_profile local;
    diag_list d;
    diag_list_init(&d);
    int ok = path && cost_profile_read(path, &local, &d) == 0 && local.tick_seconds > 0;
    diag_list_free(&d);
    free(path);
    if (ok) { *from = "the calibrated profile local"; return local.tick_seconds; }
    *from = "one flop at the host speed; no calibrated profile local (polyapm calibrate)";
    return 1 / value_of(a->speed, speed_units);
}

/* v to 12 significant digits (a profile a person reads: 80, not 80.00000000000001). */
static double round12(double v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.12g", v);
    return strtod(buf, NULL);
}

/* The machine profile that prices the cluster (the header comment says how). */
static int write_profile(const platform_args *a, long hosts)
{
    const char *from;
    double tick = profile_tick(a, &from);
    double L = round12(3 * value_of(a->latency, latency_units) / tick);   /* link, backbone, link */
    double o = round12(a->overhead ? value_of(a->overhead, latency_units) / tick : 0);
    double G = round12(8 / value_of(a->bandwidth, bandwidth_units) / tick);
    cost_profile p = *cost_profile_builtin("scali2004");
    p.name[0] = 0;
    p.tick_seconds = tick;
    p.mstartup_s = p.mstartup_r = round12(L / 2 + o);
    p.normsent = p.normrcvd = round12(G / 2);
    p.barrier_slope = p.barrier_const = 0;
    p.ts = round12(L + 2 * o);
    p.tw = p.g = G;
    p.sync_on_messages = 1;
    p.guard_price = 0;
    p.loggp_L = L;
    p.loggp_o = o;
    p.loggp_G = G;
    char *text = cost_profile_format(&p);
    FILE *f = text ? fopen(a->profile, "w") : NULL;
    int bad = !f || fprintf(f, "# polyapm platform -n %ld: %s links (latency %s), overhead %s, %s factors;\n"
                               "# ticks of %.6g s (%s)\n%s", hosts, a->bandwidth, a->latency,
                               a->overhead ? a->overhead : "0", a->factors, tick, from, strstr(text, "\n") + 1) < 0;
    if (f && fclose(f) != 0) bad = 1;
    free(text);
    if (bad) return cli_fail("cannot write %s", a->profile);
    if (strcmp(a->factors, "flat"))
        fprintf(stderr, "polyapm platform: %s prices the latency as given; SMPI's factors (--factors simgrid) "
                        "scale it by message size\n", a->profile);
    return CLI_OK;
}

int cmd_platform(int argc, char **argv)
{
    platform_args a = {.latency = "1us", .bandwidth = "10Gbps", .speed = "1Gf", .factors = "flat"};
    int npos = 0, rc = optable_parse(&cmd_platform_spec, argc, argv, &a, &npos);
    if (rc) return rc;
    if (npos) return cli_usage("platform", "no positional arguments ('%s')", argv[1]);
    if (!a.hosts) return cli_usage("platform", "missing -n HOSTS");
    char *end;
    long hosts = strtol(a.hosts, &end, 10);
    if (*end || hosts < 1 || hosts > 1 << 20) return cli_usage("platform", "-n '%s': a number of hosts, 1 to 1048576", a.hosts);
    if ((rc = check_all(&a))) return rc;
    char backbone[64];
    if (a.backbone) {
        snprintf(backbone, sizeof backbone, "%s", a.backbone);
    } else {   /* ten times the links' bandwidth, in their unit */
        double x = strtod(a.bandwidth, &end);
        snprintf(backbone, sizeof backbone, "%.17g%s", x * 10, end);
    }
    if ((rc = write_xml(&a, hosts, backbone)) != CLI_OK) return rc;
    return a.profile ? write_profile(&a, hosts) : CLI_OK;
}
