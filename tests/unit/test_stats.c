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

/* Polynomials of non-negative coefficients: an exact one recovered (its interpolant), with a
 * shift of the powers; samples whose interpolant has a negative coefficient (2mm's columns leaf
 * tiled 32 x 32 x 256 at sizes 8 .. 48) fitted by non-negative terms alone, closely where the
 * samples are largest. */
static void nonneg_poly(void)
{
    const double x[4] = {0.01, 0.02, 0.03, 0.04};
    double y[4], c[4];
    for (int i = 0; i < 4; i++) y[i] = x[i] * x[i] * (3 + 5 * x[i]);   /* 3 x^2 + 5 x^3 */
    T_EQ_INT("poly.exact.ok", stats_fit_nonneg_poly(x, y, 4, 1, 3, c), 0);
    T_NEAR("poly.exact.x", c[0], 0, 1e-9);
    T_NEAR("poly.exact.x2", c[1], 3, 1e-6);
    T_NEAR("poly.exact.x3", c[2], 5, 1e-4);
    const double s[4] = {27031.16, 77631.30, 196726.1, 382228.8};
    T_EQ_INT("poly.nonneg.ok", stats_fit_nonneg_poly(x, s, 4, 0, 4, c), 0);
    double worst = 0, last = 0;
    for (int i = 0; i < 4; i++) {
        double f = c[0] + x[i] * (c[1] + x[i] * (c[2] + x[i] * c[3]));
        if (fabs(f - s[i]) / s[i] > worst) worst = fabs(f - s[i]) / s[i];
        last = fabs(f - s[i]) / s[i];
    }
    T_CHECK("poly.nonneg: every coefficient >= 0, each sample within 10%, the largest within 1%", c[0] >= 0 &&
            c[1] >= 0 && c[2] >= 0 && c[3] >= 0 && worst < 0.1 && last < 0.01, "%g %g %g %g, worst %g, last %g",
            c[0], c[1], c[2], c[3], worst, last);
    T_CHECK("poly.nonneg: at 25 times the largest sample, at least cubic growth's third", c[0] + c[1] + c[2] + c[3] >
            382228.8 * 15625 / 3, "%g", c[0] + c[1] + c[2] + c[3]);
    const double zero[4] = {1, 0, 2, 3};
    T_EQ_INT("poly.nonpositive sample: refused", stats_fit_nonneg_poly(x, zero, 4, 0, 4, c), -1);
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

    /* the microbenchmarks of a machine whose figures are known (calib.h): an operation 5e-10 s;
     * an element streamed 2.5e-10, 5e-10, 1e-9 s from L1, L2, L3 (32 MB shared by 2) and 4e-9 s
     * from memory; the chase 2e-9, 6e-9, 2e-8, 8e-8 s; the accumulation 2e-9 (its lanes side by
     * side 5e-10), the walks 5e-9 and 1e-8 s an element (two ticks), the search through two pieces 7e-9, a restart 5e-8 s */
    static const char micro[] =
        "cache 1 32768 1\nmicro update 1 16384 1.5e-9\nmicro poly 1 16384 8.5e-9\nmicro chase 1 16384 2e-9\n"
        "cache 2 1048576 1\nmicro update 2 524288 2e-9\nmicro chase 2 524288 6e-9\n"
        "cache 3 33554432 2\nmicro update 3 8388608 3e-9\nmicro chase 3 8388608 2e-8\n"
        "micro update 0 134217728 9e-9\nmicro chase 0 134217728 8e-8\nmicro accum 1 16384 2e-9\nmicro lanes 2 320000 5e-10\n"
        "micro strided 0 16000 5e-9\nmicro aliased 0 8192 1e-8\nmicro restart 0 134217728 2.354e-6\n"
        "micro strided 1 16384 1e-9\nmicro strided 2 524288 2e-9\nmicro strided 3 8388608 3e-9\n"
        "micro searched 1 16384 7e-9\n";
    size_t len = strlen(text);
    char *with = malloc(len + sizeof micro + 256);
    snprintf(with, len + sizeof micro, "%s%s", text, micro);
    T_EQ_INT("calib.micro.ok", calib_fit_raw("micro", with, "local", &r, &d), 0);
    const cost_profile *q = &r.profile;
    T_NEAR("calib.micro.op: the tick", q->tick_seconds, 5e-10, 1e-22);
    T_NEAR("calib.micro.multiply kept", r.multiply_seconds, tick, 1e-20);
    T_NEAR("calib.micro.normsent in its ticks", q->normsent, 20, 1e-6);     /* 1e-8 s / 5e-10 s */
    T_NEAR("calib.micro.stream1", q->stream1_price, 0.5, 1e-9);
    T_NEAR("calib.micro.stream2", q->stream2_price, 1, 1e-9);
    T_NEAR("calib.micro.stream_cached (L3)", q->stream_cached_price, 2, 1e-9);
    T_NEAR("calib.micro.stream (memory)", q->stream_price, 8, 1e-9);
    T_NEAR("calib.micro.cache1_bytes: half of L1", q->cache1_bytes, 16384, 0);
    T_NEAR("calib.micro.cache2_bytes: half of L2", q->cache2_bytes, 524288, 0);
    T_NEAR("calib.micro.cache_bytes: half of L3's share", q->cache_bytes, 8388608, 0);
    T_NEAR("calib.micro.latency1", q->latency1, 4, 1e-9);
    T_NEAR("calib.micro.latency2", q->latency2, 12, 1e-9);
    T_NEAR("calib.micro.latency_cached", q->latency_cached, 40, 1e-9);
    T_NEAR("calib.micro.latency_mem", q->latency_mem, 160, 1e-9);
    T_NEAR("calib.micro.unit_price", q->unit_price, 1, 0);
    T_NEAR("calib.micro.accum_price", q->accum_price, 2, 1e-9);
    T_NEAR("calib.micro.lanes_price", q->lanes_price, 0.5, 1e-9);
    T_NEAR("calib.micro.strided_price", q->strided_price, 5, 1e-9);
    T_NEAR("calib.micro.aliased_price", q->aliased_price, 10, 1e-9);
    T_NEAR("calib.micro.searched_price", q->searched_price, 7, 1e-9);
    T_NEAR("calib.micro.strided1_price", q->strided1_price, 1, 1e-9);
    T_NEAR("calib.micro.strided2_price", q->strided2_price, 2, 1e-9);
    T_NEAR("calib.micro.strided_cached_price", q->strided_cached_price, 3, 1e-9);
    T_NEAR("calib.micro.restart_price", q->restart_price, 100, 1e-6);
    T_CHECK("calib.micro.unit_cached_price unset", q->unit_cached_price < 0, "%g", q->unit_cached_price);
    T_CHECK("calib.micro.entry prices unset without their lines", q->entry_price < 0 && q->alias_check_price < 0, "%g %g",
            q->entry_price, q->alias_check_price);
    T_NEAR("calib.micro.figures kept", r.micro.update[0], 9e-9, 0);
    T_EQ_INT("calib.micro.levels", r.micro.nlevels, 3);
    T_EQ_STR("calib.micro.no_note", r.note, "");
    /* the profile's text round-trips the new keys */
    char *ptext = cost_profile_format(q);
    cost_profile back;
    T_EQ_INT("calib.micro.format parses", cost_profile_parse("p", ptext, &back, &d), 0);
    T_NEAR("calib.micro.format: stream2_price", back.stream2_price, 1, 1e-9);
    T_NEAR("calib.micro.format: latency_mem", back.latency_mem, 160, 1e-9);
    T_NEAR("calib.micro.format: cache1_bytes", back.cache1_bytes, 16384, 0);
    T_NEAR("calib.micro.format: searched_price", back.searched_price, 7, 1e-9);
    T_NEAR("calib.micro.format: lanes_price", back.lanes_price, 0.5, 1e-9);
    free(ptext);
    /* built as the compiler does not vectorise them, the update and the poly at 1e-9 s an
     * operation: the tick; unit work a vectorised operation (0.5 tick), the rest in it */
    snprintf(with, len + sizeof micro + 256, "%s%smicro update_scalar 1 16384 2.5e-9\nmicro poly_scalar 1 16384 1.65e-8\n",
             text, micro);
    T_EQ_INT("calib.scalar.ok", calib_fit_raw("micro", with, "local", &r, &d), 0);
    T_NEAR("calib.scalar.tick", q->tick_seconds, 1e-9, 1e-21);
    T_NEAR("calib.scalar.op (vectorised) kept", r.micro.op, 5e-10, 1e-21);
    T_NEAR("calib.scalar.unit_price", q->unit_price, 0.5, 1e-9);
    T_NEAR("calib.scalar.stream1", q->stream1_price, 0.25, 1e-9);
    T_NEAR("calib.scalar.stream (memory)", q->stream_price, 4, 1e-9);
    T_NEAR("calib.scalar.accum", q->accum_price, 1, 1e-9);
    T_NEAR("calib.scalar.lanes", q->lanes_price, 0.25, 1e-9);
    T_NEAR("calib.scalar.strided", q->strided_price, 2.5, 1e-9);
    T_NEAR("calib.scalar.strided1", q->strided1_price, 0.5, 1e-9);
    T_NEAR("calib.scalar.restart", q->restart_price, 50, 1e-6);
    T_NEAR("calib.scalar.latency_mem", q->latency_mem, 80, 1e-9);
    T_NEAR("calib.scalar.normsent", q->normsent, 10, 1e-6);
    /* a restart against the same elements over whole rows, when measured: 2.354e-6 - 2.254e-6 */
    snprintf(with, len + sizeof micro + 256, "%s%smicro rows 0 134217728 2.254e-6\n", text, micro);
    T_EQ_INT("calib.rows.ok", calib_fit_raw("micro", with, "local", &r, &d), 0);
    T_NEAR("calib.rows.restart", q->restart_price, 200, 1e-6);
    /* chains of 64 at 1.5e-9 an element against the long one's 2e-9 (n = 16384 / 16 = 1024):
     * r = 4/3, W = 64 * 1024 * (1/3) / (1024 - 64 * 4/3) = 23.2727..; the long chain without its
     * end 2e-9 * (1024 + W) / 1024 over its two ticks of 5e-10 */
    snprintf(with, len + sizeof micro + 256, "%s%smicro chains 1 24576 1.5e-9\n", text, micro);
    T_EQ_INT("calib.chains.ok", calib_fit_raw("micro", with, "local", &r, &d), 0);
    double w = 64.0 * 1024 / 3 / (1024 - 256.0 / 3);
    T_NEAR("calib.chains.window", q->accum_window, w, 1e-9);
    T_NEAR("calib.chains.accum_price", q->accum_price, 2 * (1024 + w) / 1024, 1e-9);
    T_EQ_STR("calib.chains.no_note", r.note, "");
    /* chains no cheaper than the long one: no window, the long one's price, a note */
    snprintf(with, len + sizeof micro + 256, "%s%smicro chains 1 24576 2.5e-9\n", text, micro);
    T_EQ_INT("calib.chains.none.ok", calib_fit_raw("micro", with, "local", &r, &d), 0);
    T_CHECK("calib.chains.none: no window, accum_price 2, noted", q->accum_window < 0 && fabs(q->accum_price - 2) < 1e-9 &&
            strstr(r.note, "accum_window") != NULL, "%g %g '%s'", q->accum_window, q->accum_price, r.note);
    /* a loop's entries: pieces of a row of four at 4e-9 s against 3.25e-9 s a piece's elements of
     * whole rows: E = (4e-9 - 3.25e-9) * 4/3 = 1e-9 s, 2 ticks; from the array's own rows 6e-9 and
     * 3.75e-9: (6e-9 - 3.75e-9) * 4/3 = 3e-9 s, the overlap test 2e-9 s beyond it, 4 ticks */
    snprintf(with, len + sizeof micro + 256, "%s%smicro entries 1 24576 4e-9\nmicro whole 1 24576 3.25e-9\n"
             "micro entries_checked 1 24576 6e-9\nmicro whole_checked 1 24576 3.75e-9\n", text, micro);
    T_EQ_INT("calib.entries.ok", calib_fit_raw("micro", with, "local", &r, &d), 0);
    T_NEAR("calib.entries.entry_price", q->entry_price, 2, 1e-6);
    T_NEAR("calib.entries.alias_check_price", q->alias_check_price, 4, 1e-6);
    T_EQ_STR("calib.entries.no_note", r.note, "");
    ptext = cost_profile_format(q);
    T_EQ_INT("calib.entries.format parses", cost_profile_parse("p", ptext, &back, &d), 0);
    T_CHECK("calib.entries.format: both prices", fabs(back.entry_price - 2) < 1e-6 && fabs(back.alias_check_price - 4) < 1e-6,
            "%g %g", back.entry_price, back.alias_check_price);
    free(ptext);
    /* pieces no dearer than whole rows: no entry price, the overlap test the whole difference */
    snprintf(with, len + sizeof micro + 256, "%s%smicro entries 1 24576 3.2e-9\nmicro whole 1 24576 3.25e-9\n"
             "micro entries_checked 1 24576 6e-9\nmicro whole_checked 1 24576 3.75e-9\n", text, micro);
    T_EQ_INT("calib.entries.none.ok", calib_fit_raw("micro", with, "local", &r, &d), 0);
    T_CHECK("calib.entries.none: entry_price unset, alias_check_price 6, noted", q->entry_price < 0 &&
            fabs(q->alias_check_price - 6) < 1e-6 && strstr(r.note, "entry_price unset") != NULL, "%g %g '%s'",
            q->entry_price, q->alias_check_price, r.note);
    /* two levels: the second is the last (cache_bytes), no cache2 */
    snprintf(with, len + sizeof micro + 256, "%scache 1 32768 1\nmicro update 1 16384 1.5e-9\nmicro poly 1 16384 8.5e-9\n"
             "cache 2 1048576 1\nmicro update 2 524288 2e-9\nmicro update 0 134217728 9e-9\n", text);
    T_EQ_INT("calib.micro.two.ok", calib_fit_raw("micro", with, "local", &r, &d), 0);
    T_CHECK("calib.micro.two: L2 the last level", q->cache_bytes == 524288 && q->cache2_bytes < 0 &&
            fabs(q->stream_cached_price - 1) < 1e-9 && q->stream2_price < 0 && q->restart_price < 0 &&
            q->strided_price == 1, "%g %g %g %g %g", q->cache_bytes, q->cache2_bytes, q->stream_cached_price,
            q->stream2_price, q->strided_price);
    /* noise: the 16-operation update no dearer than the 2-operation one, an L1 stream below its
     * operations: op from the update alone, a stream never below 0, with a note */
    snprintf(with, len + sizeof micro + 256, "%scache 1 32768 1\nmicro update 1 16384 1.5e-9\nmicro poly 1 16384 1.4e-9\n"
             "micro update 0 134217728 9e-9\n", text);
    T_EQ_INT("calib.micro.noisy.ok", calib_fit_raw("micro", with, "local", &r, &d), 0);
    T_CHECK("calib.micro.noisy: op = update / 2, stream1 0", fabs(q->tick_seconds - 7.5e-10) < 1e-22 &&
            q->stream1_price == 0 && strstr(r.note, "no dearer") != NULL, "%g %g '%s'", q->tick_seconds,
            q->stream1_price, r.note);
    /* without the microbenchmarks (SimGrid's runs, older measurements): the multiply, prices unset */
    T_EQ_INT("calib.nomicro.ok", calib_fit_raw("plain", text, "local", &r, &d), 0);
    T_CHECK("calib.nomicro: the multiply, no levels", q->tick_seconds == tick && q->stream_price < 0 &&
            q->cache1_bytes < 0 && q->unit_price == 1, "%g %g", q->tick_seconds, q->stream_price);
    snprintf(with, len + 128, "%smicro update 1\n", text);
    T_EQ_INT("calib.micro.malformed", calib_fit_raw("micro", with, "local", &r, &d), -1);
    T_CHECK("calib.micro.malformed: names the line", d.n > 0 && strstr(d.items[d.n - 1].msg, "micro update 1") != NULL,
            "%s", d.n ? d.items[d.n - 1].msg : "(none)");
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
    nonneg_poly();
    calibration();
    return t_done();
}
