/*
 * test_stats.c — least-squares fits, the thesis's robust fit, Kendall's τ, and the calibration
 * fit (engine/calib.c) on synthetic benchmark output with known parameters and planted outliers.
 */
#include <stdlib.h>

#include "calib.h"
#include "stats.h"
#include "t.h"

static void fits(void)
{
    double x[200], y[200];
    for (int i = 0; i < 200; i++) { x[i] = i; y[i] = 3.5 * i + 7; }
    stats_line l;
    T_EQ_INT("fit.line.ok", stats_fit_line(x, y, 200, &l), 0);
    T_NEAR("fit.line.slope", l.slope, 3.5, 1e-9);
    T_NEAR("fit.line.intercept", l.intercept, 7, 1e-7);
    T_NEAR("fit.line.r2", l.r2, 1, 1e-12);
    T_EQ_INT("fit.line.one_x", stats_fit_line(x, y, 1, &l), -1);
    T_EQ_INT("fit.origin.ok", stats_fit_origin(x + 1, y + 1, 10, &l), 0);
    /* through the origin, y = 3.5x + 7 over x = 1..10: slope = Σxy/Σx² */
    double sxy = 0, sxx = 0;
    for (int i = 1; i <= 10; i++) { sxy += x[i] * y[i]; sxx += x[i] * x[i]; }
    T_NEAR("fit.origin.slope", l.slope, sxy / sxx, 1e-12);

    /* small x bend below the line (the thesis's < 60 messages) and 5 wild points */
    for (int i = 0; i < 60; i++) y[i] = 0.5 * i;
    int wild[5] = {70, 99, 120, 150, 190};
    for (int k = 0; k < 5; k++) y[wild[k]] += 500 * (k + 1);
    T_EQ_INT("fit.plain.ok", stats_fit_line(x, y, 200, &l), 0);
    T_CHECK("fit.plain.misled", fabs(l.slope - 3.5) > 0.05, "plain slope %g", l.slope);
    T_EQ_INT("fit.robust.ok", stats_fit_robust(x, y, 200, 60, 10, &l), 0);
    T_NEAR("fit.robust.slope", l.slope, 3.5, 1e-9);
    T_NEAR("fit.robust.intercept", l.intercept, 7, 1e-6);
    T_EQ_INT("fit.robust.used", l.n, 130);
    T_EQ_INT("fit.robust.dropped", l.dropped, 70);
    T_NEAR("fit.robust.r2", l.r2, 1, 1e-9);
}

static void kendall(void)
{
    double a[5] = {1, 2, 3, 4, 5}, same[5] = {10, 20, 30, 40, 50}, rev[5] = {5, 4, 3, 2, 1};
    double swap[5] = {1, 2, 3, 5, 4};
    T_NEAR("tau.same", stats_kendall_tau(a, same, 5), 1, 1e-12);
    T_NEAR("tau.reversed", stats_kendall_tau(a, rev, 5), -1, 1e-12);
    T_NEAR("tau.one_swap", stats_kendall_tau(a, swap, 5), 0.8, 1e-12);  /* (9 - 1) / 10 */
    T_NEAR("tau.one_item", stats_kendall_tau(a, same, 1), 0, 0);
}

/* LogGP's bursts (bench.c) on a machine with overhead o, latency L and G a word (seconds):
 * K·o + L + o + G·K·words. */
static void bursts(FILE *f, double o, double L, double G)
{
    static const int ks[] = {1, 2, 4, 8}, bytes[] = {8, 256, 1024, 2048};
    for (int k = 0; k < 4; k++)
        for (int b = 0; b < 4; b++)
            fprintf(f, "loggp %d %d %.12e\n", ks[k], bytes[b], ks[k] * o + L + o + G * ks[k] * bytes[b] / 8);
}

/* Benchmark output of a machine with known parameters (seconds), P = 2..4; the bursts at o =
 * 2e-7 s, L = 1e-6 s, G = 1e-9 s. */
static char *synthetic(double tick, double cslope, double as, double bs, double ar, double br,
                       double ts, double tw, double g, int outliers)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    fprintf(f, "ranks 4\ntick %.12e\n", tick);
    for (int p = 2; p <= 4; p++) {
        fprintf(f, "exchange %d %.12e\n", p, cslope * (p - 1));
        for (int dir = 0; dir < 2; dir++)
            for (int x = 0; x <= 512; x += 4) {
                double a = dir ? ar : as, b = dir ? br : bs;
                double t = cslope * (p - 1) + (p - 1) * (a * x + b);
                if (x < 60) t *= 0.5;                          /* buffers not yet full */
                if (outliers && x % 100 == 0 && x) t *= 3;    /* a daemon woke up */
                fprintf(f, "%s %d %d %.12e\n", dir ? "recv" : "send", p, x, t);
            }
        for (int h = 256; h <= 8192; h += 512) fprintf(f, "hrel %d %d %.12e\n", p, h, 2e-6 * p + g * h);
        fprintf(f, "barrier %d %.12e\n", p, 1e-6 * (p - 1));
    }
    for (int b = 8; b <= 65536; b *= 2) fprintf(f, "pingpong %d %.12e\n", b, ts + tw * b / 8);
    bursts(f, 2e-7, 1e-6, 1e-9);
    fclose(f);
    return out;
}

static void calibration(void)
{
    const double tick = 1e-9;
    char *text = synthetic(tick, 2e-6, 1e-8, 3e-7, 3e-8, 5e-7, 1.5e-6, 2e-9, 4e-9, 1);
    calib_result r;
    diag_list d;
    diag_list_init(&d);
    T_EQ_INT("calib.ok", calib_fit_raw("synthetic", text, "local", &r, &d), 0);
    T_EQ_STR("calib.name", r.profile.name, "local");
    T_NEAR("calib.tick", r.profile.tick_seconds, tick, 1e-20);
    T_NEAR("calib.normsent", r.profile.normsent, 10, 1e-6);      /* 1e-8 s / 1e-9 s */
    T_NEAR("calib.normrcvd", r.profile.normrcvd, 30, 1e-6);
    T_NEAR("calib.barrier_slope", r.profile.barrier_slope, 2000 + 400, 1e-3); /* constant + (3e-7+5e-7)/2 */
    T_NEAR("calib.ts", r.profile.ts, 1500, 1e-3);
    T_NEAR("calib.tw", r.profile.tw, 2, 1e-6);
    T_NEAR("calib.g", r.profile.g, 4, 1e-6);
    T_EQ_INT("calib.coalesce", r.profile.coalesce, 1);
    T_EQ_INT("calib.ranks", r.ranks, 4);
    T_NEAR("calib.l(3)", r.l_seconds[3], 6e-6, 1e-12);
    int seen = 0;
    for (int i = 0; i < r.nfits; i++)
        if (!strcmp(r.fits[i].what, "send P=3")) {
            seen = 1;
            T_NEAR("calib.send3.r2", r.fits[i].line.r2, 1, 1e-9);
            T_EQ_INT("calib.send3.dropped", r.fits[i].line.dropped, 15 + 10);
        }
    T_CHECK("calib.send3.listed", seen, "no fit named send P=3");
    T_EQ_STR("calib.no_note", r.note, "");
    /* loggp: the smallest (8-byte) bursts' slope in K is o (with its one word's G), their
     * intercept L + o, the slopes' growth per word G (ticks of 1e-9 s); the single message is
     * K = 1 at 8 bytes */
    T_NEAR("calib.loggp_o", r.profile.loggp_o, 200 + 1, 1e-6);
    T_NEAR("calib.loggp_L", r.profile.loggp_L, 1000 - 1, 1e-6);
    T_NEAR("calib.loggp_G", r.profile.loggp_G, 1, 1e-6);
    T_NEAR("calib.loggp.single", r.single_seconds, 2e-7 + 1e-6 + 2e-7 + 1e-9, 1e-18);
    T_NEAR("calib.loggp.single_bytes", r.single_bytes, 8, 0);

    /* the exported kernel's line: the tick is its seconds per tick, every count in ticks follows */
    size_t len = strlen(text);
    char *with = malloc(len + 64);
    snprintf(with, len + 64, "%skernel 0.5 2.5e8\n", text);        /* 2e-9 s a tick */
    T_EQ_INT("calib.kernel.ok", calib_fit_raw("kernel", with, "local", &r, &d), 0);
    T_NEAR("calib.kernel.tick", r.profile.tick_seconds, 2e-9, 1e-20);
    T_NEAR("calib.kernel.multiply", r.multiply_seconds, tick, 1e-20);
    T_NEAR("calib.kernel.normsent", r.profile.normsent, 5, 1e-6);  /* 1e-8 s / 2e-9 s */
    T_NEAR("calib.kernel.ts", r.profile.ts, 750, 1e-3);
    T_NEAR("calib.kernel.ticks", r.kernel_ticks, 2.5e8, 1e-3);
    T_NEAR("calib.kernel.no_parts: unit_price 1", r.profile.unit_price, 1, 0);
    T_NEAR("calib.kernel.no_parts: strided_price 1", r.profile.strided_price, 1, 0);
    free(with);

    /* the kernel's class parts: each class's seconds per tick over the tick; without a `kernel`
     * line the kernel is their sum (0.5 s for 2e8 ticks: 2.5e-9 s a tick) */
    with = malloc(len + 256);
    snprintf(with, len + 128, "%skernel_unit 0.1 1e8\nkernel_strided 0.4 1e8\n", text);
    T_EQ_INT("calib.parts.ok", calib_fit_raw("parts", with, "local", &r, &d), 0);
    T_NEAR("calib.parts.tick", r.profile.tick_seconds, 2.5e-9, 1e-20);
    T_NEAR("calib.parts.kernel", r.kernel_seconds, 0.5, 1e-12);
    T_NEAR("calib.parts.unit_price", r.profile.unit_price, 0.4, 1e-12);      /* 1e-9 / 2.5e-9 */
    T_NEAR("calib.parts.strided_price", r.profile.strided_price, 1.6, 1e-12); /* 4e-9 / 2.5e-9 */
    T_NEAR("calib.parts.unit_ticks", r.part_ticks[SIM_WORK_UNIT], 1e8, 0);
    /* with a `kernel` line, it is the tick */
    snprintf(with, len + 128, "%skernel 0.5 2.5e8\nkernel_unit 0.1 1e8\nkernel_strided 0.4 1e8\n", text);
    T_EQ_INT("calib.parts+kernel.ok", calib_fit_raw("parts", with, "local", &r, &d), 0);
    T_NEAR("calib.parts+kernel.unit_price", r.profile.unit_price, 0.5, 1e-12);   /* 1e-9 / 2e-9 */
    T_NEAR("calib.parts+kernel.strided_price", r.profile.strided_price, 2, 1e-12);
    snprintf(with, len + 128, "%skernel_unit 0.1 1e8\nkernel_strided 0.4 1e8\nkernel_aliased 0.2 1e7\n", text);
    T_EQ_INT("calib.aliased.ok", calib_fit_raw("parts", with, "local", &r, &d), 0);
    T_NEAR("calib.aliased.price", r.profile.aliased_price, 8, 1e-12);       /* 2e-8 / 2.5e-9 */
    T_NEAR("calib.aliased.not_in_the_kernel", r.kernel_seconds, 0.5, 1e-12);
    T_CHECK("calib.parts: no accum, cached or cache lines: unset", r.profile.accum_price < 0 &&
            r.profile.unit_cached_price < 0 && r.profile.cache_bytes < 0, "%g %g %g", r.profile.accum_price,
            r.profile.unit_cached_price, r.profile.cache_bytes);
    snprintf(with, len + 128, "%skernel_unit 0.1 1e8\nkernel_strided 0.4 1e8\nkernel_accum 0.05 2e7\n"
             "kernel_cached 0.02 2e7\ncache_bytes 16777216\n", text);
    T_EQ_INT("calib.cached.ok", calib_fit_raw("parts", with, "local", &r, &d), 0);
    T_NEAR("calib.accum.price", r.profile.accum_price, 1, 1e-12);             /* 2.5e-9 / 2.5e-9 */
    T_NEAR("calib.cached.price", r.profile.unit_cached_price, 0.4, 1e-12);    /* 1e-9 / 2.5e-9 */
    T_NEAR("calib.cached.cache_bytes", r.profile.cache_bytes, 16777216, 0);
    T_NEAR("calib.cached.not_in_the_kernel", r.kernel_seconds, 0.5, 1e-12);
    /* streams: s = a·ticks + b·streams with a = 5e-10, b = 1.25e-9 beyond the caches and
     * a = 2.5e-10, b = 5e-10 in them (tick 2.5e-9): solved back */
    snprintf(with, len + 256, "%skernel_unit 0.1 1e8 4e7\nkernel_strided 0.4 1e8 0\nkernel_update 0.035 2e7 2e7\n"
             "kernel_cached 0.009 2e7 8e6\nkernel_update_cached 0.0075 1e7 1e7\ncache_bytes 16777216\n", text);
    T_EQ_INT("calib.streams.ok", calib_fit_raw("parts", with, "local", &r, &d), 0);
    T_NEAR("calib.streams.unit_price", r.profile.unit_price, 0.2, 1e-9);
    T_NEAR("calib.streams.stream_price", r.profile.stream_price, 0.5, 1e-9);
    T_NEAR("calib.streams.unit_cached_price", r.profile.unit_cached_price, 0.1, 1e-9);
    T_NEAR("calib.streams.stream_cached_price", r.profile.stream_cached_price, 0.2, 1e-9);
    T_NEAR("calib.streams.part", r.part_streams[CALIB_PART_UPDATE], 2e7, 0);
    T_CHECK("calib.restart: unset without the rows' lines", r.profile.restart_price < 0, "%g", r.profile.restart_price);
    /* restarts: 7.5e-10 s a tick over whole rows, and 1e-8 s a restart (4 ticks): the rows at 1e5
     * and 5e4 restarts to 1e7 ticks run 0.0085 and 0.008 s */
    snprintf(with, len + 256, "%skernel_unit 0.1 1e8 4e7\nkernel_strided 0.4 1e8 0\nkernel_update_cached 0.0075 1e7 1e7 0\n"
             "kernel_rows 0.0085 1e7 1e7 1e5\nkernel_rows_long 0.008 1e7 1e7 5e4\n", text);
    T_EQ_INT("calib.restart.ok", calib_fit_raw("parts", with, "local", &r, &d), 0);
    T_NEAR("calib.restart.price", r.profile.restart_price, 4, 1e-6);
    T_NEAR("calib.restart.part", r.part_restarts[CALIB_PART_ROWS], 1e5, 0);
    snprintf(with, len + 256, "%skernel_unit 0.1 1e8 4e7\nkernel_strided 0.4 1e8 0\nkernel_update_cached 0.0075 1e7 1e7 0\n"
             "kernel_rows 0.007 1e7 1e7 1e5\nkernel_rows_long 0.0075 1e7 1e7 5e4\n", text);
    T_EQ_INT("calib.restart.noisy.ok", calib_fit_raw("parts", with, "local", &r, &d), 0);
    T_CHECK("calib.restart.noisy: unset, with a note", r.profile.restart_price < 0 && strstr(r.note, "restart"),
            "%g '%s'", r.profile.restart_price, r.note);
    /* beyond the caches an update slower than the stencil can explain (a < 0): there the
     * stencil's price per tick and no stream price, with a note; the cache's solved still */
    snprintf(with, len + 256, "%skernel_unit 0.1 1e8 4e7\nkernel_strided 0.4 1e8 0\nkernel_update 0.2 2e7 2e7\n"
             "kernel_cached 0.009 2e7 8e6\nkernel_update_cached 0.0075 1e7 1e7\n", text);
    T_EQ_INT("calib.streams.memory.ok", calib_fit_raw("parts", with, "local", &r, &d), 0);
    T_CHECK("calib.streams.memory: per tick there, the cache solved", r.profile.stream_price == 0 &&
            fabs(r.profile.unit_price - 0.4) < 1e-9 && fabs(r.profile.stream_cached_price - 0.2) < 1e-9 &&
            fabs(r.profile.unit_cached_price - 0.1) < 1e-9, "%g %g %g %g", r.profile.stream_price,
            r.profile.unit_price, r.profile.stream_cached_price, r.profile.unit_cached_price);
    T_CHECK("calib.streams.memory.note", strstr(r.note, "beyond the caches") != NULL, "note '%s'", r.note);
    /* in the cache too: unset, unit work per tick (the stencil's at both sizes) */
    snprintf(with, len + 256, "%skernel_unit 0.1 1e8 4e7\nkernel_strided 0.4 1e8 0\nkernel_update 0.2 2e7 2e7\n"
             "kernel_cached 0.009 2e7 8e6\nkernel_update_cached 0.09 1e7 1e7\n", text);
    T_EQ_INT("calib.streams.noisy.ok", calib_fit_raw("parts", with, "local", &r, &d), 0);
    T_CHECK("calib.streams.noisy: unset, per tick", r.profile.stream_price < 0 && r.profile.stream_cached_price < 0 &&
            fabs(r.profile.unit_price - 0.4) < 1e-9 && fabs(r.profile.unit_cached_price - 0.18) < 1e-9,
            "%g %g %g %g", r.profile.stream_price, r.profile.stream_cached_price, r.profile.unit_price,
            r.profile.unit_cached_price);
    T_CHECK("calib.streams.noisy.note", strstr(r.note, "in the cache") != NULL, "note '%s'", r.note);
    snprintf(with, len + 128, "%skernel_unit 0.1\n", text);
    T_EQ_INT("calib.parts.malformed", calib_fit_raw("parts", with, "local", &r, &d), -1);
    diag_list_free(&d);
    diag_list_init(&d);
    free(with);
    free(text);

    /* noise: a negative send slope falls back to the mean cost per message, with a note */
    text = synthetic(tick, 2e-6, -1e-10, 3e-6, 3e-8, 5e-7, 1.5e-6, 2e-9, 4e-9, 0);
    T_EQ_INT("calib.noisy.ok", calib_fit_raw("noisy", text, "local", &r, &d), 0);
    T_CHECK("calib.noisy.positive", r.profile.normsent > 0 && isfinite(r.profile.normsent), "normsent %g",
            r.profile.normsent);
    T_CHECK("calib.noisy.note", strstr(r.note, "send slope") != NULL, "note '%s'", r.note);
    free(text);

    /* loggp: noise that puts o below 0 falls back to a quarter of the single message, L = the
     * intercept less it; one size alone takes G = t_w; no bursts leave the keys unset */
    text = synthetic(tick, 2e-6, 1e-8, 3e-7, 3e-8, 5e-7, 1.5e-6, 2e-9, 4e-9, 0);
    char *cut = strstr(text, "loggp ");
    *cut = '\0';
    size_t n = strlen(text) + 4096;
    char *more = malloc(n);
    FILE *f = fmemopen(more, n, "w");
    fputs(text, f);
    bursts(f, -1.5e-7, 1e-6, 1e-7);    /* at 8 bytes: slope -5e-8, a single message 8e-7 */
    fclose(f);
    T_EQ_INT("calib.loggp.noisy.ok", calib_fit_raw("noisy", more, "local", &r, &d), 0);
    T_NEAR("calib.loggp.noisy.o", r.profile.loggp_o, 200, 1e-6);
    T_NEAR("calib.loggp.noisy.L", r.profile.loggp_L, 1000 - 150 - 200, 1e-6);  /* L + o - o' */
    T_CHECK("calib.loggp.noisy.note", strstr(r.note, "loggp o") != NULL, "note '%s'", r.note);
    f = fmemopen(more, n, "w");
    fputs(text, f);
    fprintf(f, "loggp 1 8 3e-6\nloggp 4 8 4.5e-6\n");
    fclose(f);
    T_EQ_INT("calib.loggp.one_size.ok", calib_fit_raw("one", more, "local", &r, &d), 0);
    T_NEAR("calib.loggp.one_size.o", r.profile.loggp_o, 500, 1e-6);
    T_NEAR("calib.loggp.one_size.L", r.profile.loggp_L, 2000, 1e-6);
    T_NEAR("calib.loggp.one_size.G", r.profile.loggp_G, r.profile.tw, 1e-9);
    T_EQ_INT("calib.loggp.none.ok", calib_fit_raw("old", text, "local", &r, &d), 0);
    T_CHECK("calib.loggp.none.unset", r.profile.loggp_L < 0 && r.profile.loggp_o < 0 && r.profile.loggp_G < 0,
            "L %g o %g G %g", r.profile.loggp_L, r.profile.loggp_o, r.profile.loggp_G);
    T_CHECK("calib.loggp.none.note", strstr(r.note, "no loggp series") != NULL, "note '%s'", r.note);
    free(more);
    free(text);

    /* malformed input names the line; missing series are errors */
    diag_list_free(&d);
    diag_list_init(&d);
    T_EQ_INT("calib.bad.rc", calib_fit_raw("raw.txt", "tick 1e-9\nsend two 3 4\n", "x", &r, &d), -1);
    T_CHECK("calib.bad.line", d.n == 1 && d.items[0].line == 2, "diagnostics %d", d.n);
    diag_list_free(&d);
    diag_list_init(&d);
    T_EQ_INT("calib.empty.rc", calib_fit_raw("raw.txt", "tick 1e-9\n", "x", &r, &d), -1);
    T_CHECK("calib.empty.says", d.n == 1 && strstr(d.items[0].msg, "exchange"), "%s",
            d.n ? d.items[0].msg : "(none)");
    diag_list_free(&d);
}

int main(void)
{
    fits();
    kendall();
    calibration();
    return t_done();
}
