/*
 * cmd_platform.c — `polyapm platform -n HOSTS [--latency L] [--bandwidth B] [--speed S]
 * [--backbone B] [-o FILE.xml]`: a SimGrid platform, a homogeneous cluster of single-core hosts,
 * for `polyapm run --smpi FILE.xml`: to ask what a run would cost on a slower (or faster)
 * network than the clusters in examples/platforms/.
 *
 * Values carry SimGrid's units, checked here against a table (a typo is a usage error, not a
 * platform SimGrid refuses later): latencies in s, ms, us or ns; bandwidths in bps or Bps with
 * k, M, G or T; speeds in f (flop/s) with k, M, G or T.  cli_platform_speed reads a platform's
 * host speed back (run --smpi times computation by it).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cmd_platform(int argc, char **argv);

typedef struct platform_args {
    const char *hosts, *latency, *bandwidth, *speed, *backbone, *out;
} platform_args;

static const cli_opt platform_opts[] = {
    {.name = "-n", .kind = OPT_STR, .value = "HOSTS", .off = offsetof(platform_args, hosts), .flags = OPT_REQUIRED,
     .help = "the number of hosts (one MPI rank each)"},
    {.name = "--latency", .kind = OPT_STR, .value = "L", .off = offsetof(platform_args, latency),
     .help = "a link's latency, e.g. 50us (default 1us)"},
    {.name = "--bandwidth", .kind = OPT_STR, .value = "B", .off = offsetof(platform_args, bandwidth),
     .help = "a link's bandwidth, e.g. 1Gbps (default 10Gbps)"},
    {.name = "--speed", .kind = OPT_STR, .value = "S", .off = offsetof(platform_args, speed),
     .help = "a host's speed, e.g. 2Gf (default 1Gf)"},
    {.name = "--backbone", .kind = OPT_STR, .value = "B", .off = offsetof(platform_args, backbone),
     .help = "the backbone's bandwidth (default 10 x the links')"},
    {.name = "-o", .kind = OPT_STR, .value = "FILE.xml", .off = offsetof(platform_args, out),
     .help = "write the platform there (default: standard output)"},
    {0},
};

const cli_spec cmd_platform_spec = {"platform", "", "a SimGrid cluster for run --smpi, with its latency and bandwidth",
                                    platform_opts, 1, NULL, NULL, cmd_platform};

/* The units of each kind of value, as SimGrid reads them. */
static const char *const latency_units[] = {"s", "ms", "us", "ns", NULL};
static const char *const bandwidth_units[] = {"bps", "kbps", "Mbps", "Gbps", "Tbps", "Bps", "kBps", "MBps", "GBps",
                                              "TBps", NULL};
static const char *const speed_units[] = {"f", "kf", "Mf", "Gf", "Tf", NULL};

/* Is v a positive number followed by one of `units`? */
static int valid(const char *v, const char *const *units)
{
    char *end;
    double x = strtod(v, &end);
    if (end == v || !(x > 0) || x > 1e18) return 0;
    for (const char *const *u = units; *u; u++)
        if (!strcmp(end, *u)) return 1;
    return 0;
}

static int check(const char *opt, const char *v, const char *const *units)
{
    if (valid(v, units)) return 0;
    char list[160] = "";
    for (const char *const *u = units; *u; u++) {
        strncat(list, *u, sizeof list - strlen(list) - 1);
        if (u[1]) strncat(list, ", ", sizeof list - strlen(list) - 1);
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

int cmd_platform(int argc, char **argv)
{
    platform_args a = {.latency = "1us", .bandwidth = "10Gbps", .speed = "1Gf"};
    int npos = 0, rc = optable_parse(&cmd_platform_spec, argc, argv, &a, &npos);
    if (rc) return rc;
    if (npos) return cli_usage("platform", "no positional arguments ('%s')", argv[1]);
    if (!a.hosts) return cli_usage("platform", "missing -n HOSTS");
    char *end;
    long hosts = strtol(a.hosts, &end, 10);
    if (*end || hosts < 1 || hosts > 1 << 20) return cli_usage("platform", "-n '%s': a number of hosts, 1 to 1048576", a.hosts);
    if ((rc = check("--latency", a.latency, latency_units)) || (rc = check("--bandwidth", a.bandwidth, bandwidth_units)) ||
        (rc = check("--speed", a.speed, speed_units)) || (a.backbone && (rc = check("--backbone", a.backbone, bandwidth_units))))
        return rc;
    char backbone[64];
    if (a.backbone) {
        snprintf(backbone, sizeof backbone, "%s", a.backbone);
    } else {   /* ten times the links' bandwidth, in their unit */
        double x = strtod(a.bandwidth, &end);
        snprintf(backbone, sizeof backbone, "%.17g%s", x * 10, end);
    }
    FILE *f = a.out ? fopen(a.out, "w") : stdout;
    if (!f) return cli_fail("cannot write %s", a.out);
    fprintf(f, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
               "<!-- A homogeneous cluster of %ld single-core hosts for SimGrid's SMPI (polyapm run --smpi),\n"
               "     made by polyapm platform: %s per host, %s links with %s latency, a %s backbone. -->\n"
               "<platform version=\"4.1\">\n  <zone id=\"world\" routing=\"Full\">\n"
               "    <cluster id=\"cluster\" prefix=\"node-\" suffix=\".polyapm\" radical=\"0-%ld\"\n"
               "             speed=\"%s\" bw=\"%s\" lat=\"%s\" bb_bw=\"%s\" bb_lat=\"%s\"/>\n"
               "  </zone>\n</platform>\n",
            hosts, a.speed, a.bandwidth, a.latency, backbone, hosts - 1, a.speed, a.bandwidth, a.latency, backbone,
            a.latency);
    if (a.out && fclose(f) != 0) return cli_fail("cannot write %s", a.out);
    return CLI_OK;
}
