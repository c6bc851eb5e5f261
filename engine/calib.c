/*
 * calib.c — fitting a machine profile to the calibration benchmark's raw measurements (see
 * calib.h for the method; the benchmark is runtime/calibrate/bench.c).
 */
#include "calib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct series {
    double *x, *y;
    int n, cap;
} series;

static int series_add(series *s, double x, double y)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 64;
        double *nx = realloc(s->x, (size_t)cap * sizeof *nx);
        if (!nx) return -1;
        s->x = nx;
        double *ny = realloc(s->y, (size_t)cap * sizeof *ny);
        if (!ny) return -1;
        s->y = ny;
        s->cap = cap;
    }
    s->x[s->n] = x;
    s->y[s->n] = y;
    s->n++;
    return 0;
}

static void series_free(series *s) { free(s->x); free(s->y); }

typedef struct raw {
    double tick;
    double kernel_seconds, kernel_ticks;     /* the exported kernel's line, 0 when absent */
    double part_seconds[CALIB_PARTS], part_ticks[CALIB_PARTS], part_streams[CALIB_PARTS],
        part_restarts[CALIB_PARTS];  /* its parts */
    double cache_bytes;                      /* the `cache_bytes` line, 0 when absent */
    int ranks;
    double exchange[CALIB_MAX_P + 1];
    series send[CALIB_MAX_P + 1], recv[CALIB_MAX_P + 1], hrel[CALIB_MAX_P + 1];
    series pingpong;
    double barrier[CALIB_MAX_P + 1];
    double burst_bytes[CALIB_BURST_SIZES];   /* the loggp series' message sizes, as met */
    series burst[CALIB_BURST_SIZES];         /* per size: seconds against K messages */
    int nburst;
} raw;

static void raw_free(raw *r)
{
    for (int p = 0; p <= CALIB_MAX_P; p++) {
        series_free(&r->send[p]);
        series_free(&r->recv[p]);
        series_free(&r->hrel[p]);
    }
    series_free(&r->pingpong);
    for (int s = 0; s < r->nburst; s++) series_free(&r->burst[s]);
}

/* A `loggp K BYTES SECONDS` point into its size's series.  0, or -1 (too many sizes). */
static int burst_add(raw *r, double k, double bytes, double secs)
{
    int s = 0;
    while (s < r->nburst && r->burst_bytes[s] != bytes) s++;
    if (s == CALIB_BURST_SIZES) return -1;
    if (s == r->nburst) r->burst_bytes[r->nburst++] = bytes;
    return series_add(&r->burst[s], k, secs);
}

const char *const calib_part_names[CALIB_PARTS] = {
    [SIM_WORK_UNIT] = "kernel_unit", [SIM_WORK_STRIDED] = "kernel_strided",
    [SIM_WORK_ALIASED] = "kernel_aliased", [SIM_WORK_ACCUM] = "kernel_accum",
    [CALIB_PART_CACHED] = "kernel_cached", [CALIB_PART_UPDATE] = "kernel_update",
    [CALIB_PART_UPDATE_CACHED] = "kernel_update_cached", [CALIB_PART_ROWS] = "kernel_rows",
    [CALIB_PART_ROWS_LONG] = "kernel_rows_long",
};

static int p_ok(double p) { return p >= 2 && p <= CALIB_MAX_P && p == floor(p); }

/* One line of the benchmark's output into `r`.  0, or -1 (malformed). */
static int parse_line(raw *r, const char *line)
{
    char kind[32];
    double a, b, c, e;
    int n = sscanf(line, "%31s %lf %lf %lf %lf", kind, &a, &b, &c, &e);
    if (n < 2) return -1;
    if (!strcmp(kind, "ranks") && n == 2 && a >= 2) { r->ranks = (int)a; return 0; }
    if (!strcmp(kind, "tick") && n == 2 && a > 0) { r->tick = a; return 0; }
    if (!strcmp(kind, "kernel") && n == 3 && a > 0 && b > 0) {
        r->kernel_seconds = a;
        r->kernel_ticks = b;
        return 0;
    }
    if (!strcmp(kind, "cache_bytes") && n == 2 && a > 0) { r->cache_bytes = a; return 0; }
    for (int k = 0; k < CALIB_PARTS; k++)
        if (calib_part_names[k] && !strcmp(kind, calib_part_names[k]) && n >= 3 && a > 0 && b > 0 &&
            (n < 4 || c >= 0) && (n < 5 || e >= 0)) {
            r->part_seconds[k] = a;
            r->part_ticks[k] = b;
            r->part_streams[k] = n >= 4 ? c : 0;
            r->part_restarts[k] = n >= 5 ? e : 0;
            return 0;
        }
    if (!strcmp(kind, "exchange") && n == 3 && p_ok(a)) { r->exchange[(int)a] = b; return 0; }
    if (!strcmp(kind, "barrier") && n == 3 && p_ok(a)) { r->barrier[(int)a] = b; return 0; }
    if (!strcmp(kind, "pingpong") && n == 3 && a > 0) return series_add(&r->pingpong, a / 8, b);
    if (!strcmp(kind, "loggp") && n == 4 && a >= 1 && a == floor(a) && b > 0 && c > 0)
        return burst_add(r, a, b, c);
    if (n == 4 && p_ok(a)) {
        if (!strcmp(kind, "send")) return series_add(&r->send[(int)a], b, c);
        if (!strcmp(kind, "recv")) return series_add(&r->recv[(int)a], b, c);
        if (!strcmp(kind, "hrel")) return series_add(&r->hrel[(int)a], b, c);
    }
    return -1;
}

static calib_fit *add_fit(calib_result *out, const char *fmt, int p, const stats_line *l)
{
    calib_fit *f = &out->fits[out->nfits++];
    snprintf(f->label, sizeof f->label, fmt, p);
    f->what = f->label;
    f->line = *l;
    return f;
}

static void note(calib_result *out, const char *what)
{
    size_t n = strlen(out->note);
    snprintf(out->note + n, sizeof out->note - n, "%s%s", n ? "; " : "", what);
}

/* ā and b̄ over P of one direction's lines (exchange time less the constant cost). */
static int fit_direction(raw *r, series *per_p, const char *name, double const_slope,
                         calib_result *out, double *abar, double *bbar, double *afallback, diag_list *d)
{
    double sa = 0, sb = 0, sf = 0;
    int m = 0;
    for (int p = 2; p <= CALIB_MAX_P; p++) {
        series *s = &per_p[p];
        if (!s->n) continue;
        double *y = malloc((size_t)s->n * sizeof *y);
        if (!y) return -1;
        for (int i = 0; i < s->n; i++) y[i] = s->y[i] - const_slope * (p - 1);
        stats_line l;
        int rc = stats_fit_robust(s->x, y, s->n, CALIB_XMIN, CALIB_DROP_WORST, &l);
        free(y);
        if (rc != 0) {
            diag_add(d, NULL, 0, 0, "%s P=%d: too few message counts >= %d to fit a line", name, p,
                     CALIB_XMIN);
            return -1;
        }
        char fmt[32];
        snprintf(fmt, sizeof fmt, "%s P=%%d", name);
        add_fit(out, fmt, p, &l);
        sa += l.slope / (p - 1);
        sb += l.intercept / (p - 1);
        /* the fallback: the mean cost per message at the largest count */
        int top = 0;
        for (int i = 1; i < s->n; i++) if (s->x[i] > s->x[top]) top = i;
        if (s->x[top] > 0) sf += (s->y[top] - const_slope * (p - 1)) / s->x[top] / (p - 1);
        m++;
        (void)r;
    }
    if (!m) { diag_add(d, NULL, 0, 0, "no %s measurements", name); return -1; }
    *abar = sa / m;
    *bbar = sb / m;
    *afallback = sf / m;
    return 0;
}

static int finite_pos(double v) { return isfinite(v) && v > 0; }

/* The kernel's parts into `out`; without a `kernel` line, the kernel is the sum of the unit and
 * strided parts (the others are those parts at other sizes or shapes: priced, not part of the
 * mean tick). */
static void calib_parts(raw *r, calib_result *out)
{
    double s = 0, t = 0;
    int all = 1;
    for (int k = 0; k < CALIB_PARTS; k++) {
        if (!calib_part_names[k]) continue;
        out->part_seconds[k] = r->part_seconds[k];
        out->part_ticks[k] = r->part_ticks[k];
        out->part_streams[k] = r->part_streams[k];
        out->part_restarts[k] = r->part_restarts[k];
        if (k != SIM_WORK_UNIT && k != SIM_WORK_STRIDED) continue;
        s += r->part_seconds[k];
        t += r->part_ticks[k];
        all &= r->part_ticks[k] > 0;
    }
    if (all && !(r->kernel_ticks > 0)) { r->kernel_seconds = s; r->kernel_ticks = t; }
}

/* Parts k and u (the stencil and the update at one size) solved for a tick's and a streamed
 * element's seconds, s = a·ticks + b·streams: 0 with both positive, else -1. */
static int solve_streams(const raw *r, int k, int u, double *a, double *b)
{
    double t1 = r->part_ticks[k], z1 = r->part_streams[k], s1 = r->part_seconds[k];
    double t2 = r->part_ticks[u], z2 = r->part_streams[u], s2 = r->part_seconds[u];
    double det = t1 * z2 - t2 * z1;
    if (!(t1 > 0 && t2 > 0 && z1 > 0 && z2 > 0) || !(fabs(det) > 1e-9 * t1 * z2)) return -1;
    *a = (s1 * z2 - s2 * z1) / det;
    *b = (t1 * s2 - t2 * s1) / det;
    return finite_pos(*a) && finite_pos(*b) ? 0 : -1;
}

/* Unit work's operations and streams priced apart (calib.h: stream_price): in the cache when
 * the cached parts solve (else unset, with a note), and beyond the caches when those parts solve
 * too; else beyond them the stencil's price per tick, its traffic included (stream_price 0). */
static void calib_stream_prices(const raw *r, calib_result *out)
{
    cost_profile *pr = &out->profile;
    pr->stream_price = pr->stream_cached_price = -1;
    if (!(r->part_ticks[CALIB_PART_UPDATE_CACHED] > 0)) return;
    double a, b;
    if (solve_streams(r, CALIB_PART_CACHED, CALIB_PART_UPDATE_CACHED, &a, &b) != 0) {
        note(out, "stencil and update in the cache do not separate ticks from streams: unit work per tick");
        return;
    }
    pr->unit_cached_price = a / pr->tick_seconds;
    pr->stream_cached_price = b / pr->tick_seconds;
    if (solve_streams(r, SIM_WORK_UNIT, CALIB_PART_UPDATE, &a, &b) == 0) {
        pr->unit_price = a / pr->tick_seconds;
        pr->stream_price = b / pr->tick_seconds;
    } else {
        pr->stream_price = 0;
        note(out, "beyond the caches the stencil and update do not separate ticks from streams: per tick there");
    }
}

/* A restart's price (calib.h: restart_price): the seconds per tick of the update over whole rows
 * in the cache and over part of longer rows at two lengths, against their restarts per tick, a
 * line whose slope is the seconds a restart costs; unset (with a note) when it is not positive. */
static void calib_restart_price(const raw *r, calib_result *out)
{
    cost_profile *pr = &out->profile;
    pr->restart_price = -1;
    static const int parts[] = { CALIB_PART_UPDATE_CACHED, CALIB_PART_ROWS, CALIB_PART_ROWS_LONG };
    double x[3], y[3];
    for (int i = 0; i < 3; i++) {
        int k = parts[i];
        if (!(r->part_ticks[k] > 0)) return;
        x[i] = r->part_restarts[k] / r->part_ticks[k];
        y[i] = r->part_seconds[k] / r->part_ticks[k];
    }
    stats_line l;
    if (stats_fit_line(x, y, 3, &l) != 0 || !finite_pos(l.slope)) {
        note(out, "rows of three lengths do not price a restart: unset");
        return;
    }
    pr->restart_price = l.slope / pr->tick_seconds;
}

/* Each part's price: its seconds per tick over the profile's tick (when its part was not
 * measured: 1 for unit, strided and aliased work, which the profile then prices as every tick;
 * unset for accumulations, priced as unit work, and for the cached stencil: no cache term);
 * cache_bytes from its line (unset without). */
static void calib_class_prices(const raw *r, calib_result *out)
{
    cost_profile *pr = &out->profile;
    pr->unit_price = pr->strided_price = pr->aliased_price = 1;
    pr->accum_price = pr->unit_cached_price = -1;
    pr->cache_bytes = r->cache_bytes > 0 ? r->cache_bytes : -1;
    out->cache_bytes = r->cache_bytes;
    double *price[CALIB_PARTS] = { [SIM_WORK_UNIT] = &pr->unit_price,
                                   [SIM_WORK_STRIDED] = &pr->strided_price,
                                   [SIM_WORK_ALIASED] = &pr->aliased_price,
                                   [SIM_WORK_ACCUM] = &pr->accum_price,
                                   [CALIB_PART_CACHED] = &pr->unit_cached_price };
    for (int k = 0; k < CALIB_PARTS; k++)
        if (price[k] && r->part_ticks[k] > 0 && finite_pos(r->part_seconds[k]))
            *price[k] = r->part_seconds[k] / r->part_ticks[k] / pr->tick_seconds;
    calib_stream_prices(r, out);
    calib_restart_price(r, out);
}

/* The single message the loggp fit is checked against: K = 1 at the smallest size. */
static void burst_single(const raw *r, calib_result *out)
{
    out->single_bytes = out->single_seconds = 0;
    for (int s = 0; s < r->nburst; s++)
        for (int i = 0; i < r->burst[s].n; i++)
            if (r->burst[s].x[i] == 1 && (!out->single_bytes || r->burst_bytes[s] < out->single_bytes)) {
                out->single_bytes = r->burst_bytes[s];
                out->single_seconds = r->burst[s].y[i];
            }
}

/* LogGP's o, G and L + o (seconds) from the burst series (calib.h): per size a line in K, slope
 * o + G·words and intercept L + o; G how the slopes grow with the words (< 0 with one size); o
 * and L + o the smallest messages' line, whose word costs next to nothing (and nothing at all
 * on a machine whose network moves the words while the CPU pays the next message's overhead,
 * as SimGrid's does: its slopes are max(o, G·words), not the sum).  The number of sizes fitted,
 * 0 when there is no series (the keys stay unset). */
typedef struct burst_fit { double o, lo, G; } burst_fit;
static int fit_bursts(const raw *r, calib_result *out, burst_fit *bf)
{
    double words[CALIB_BURST_SIZES], slope[CALIB_BURST_SIZES];
    stats_line small = {0};
    int m = 0, s0 = -1;
    for (int s = 0; s < r->nburst; s++) {
        stats_line l;
        if (stats_fit_line(r->burst[s].x, r->burst[s].y, r->burst[s].n, &l) != 0) continue;
        add_fit(out, "loggp %dB", (int)r->burst_bytes[s], &l);
        words[m] = r->burst_bytes[s] / 8;
        slope[m] = l.slope;
        if (s0 < 0 || r->burst_bytes[s] < r->burst_bytes[s0]) { s0 = s; small = l; }
        m++;
    }
    if (!m) return 0;
    stats_line gl;
    bf->G = -1;
    if (m >= 2 && stats_fit_line(words, slope, m, &gl) == 0) {
        add_fit(out, "loggp slope/word", 0, &gl);
        bf->G = gl.slope;
    }
    bf->o = small.slope;
    bf->lo = small.intercept;
    return m;
}

/* loggp_o, loggp_L, loggp_G into the profile (ticks), each non-positive value replaced by a
 * measured fallback (noted): o by a quarter of the single message's time, G by t_w, L by the
 * single message's time less 2o (half of it when that is not positive). */
static void fit_loggp(const raw *r, calib_result *out)
{
    cost_profile *pr = &out->profile;
    burst_fit bf;
    burst_single(r, out);
    int m = fit_bursts(r, out, &bf);
    if (!m) { note(out, "no loggp series: loggp prices L = t_s, o = 0, G = t_w"); return; }
    double o = bf.o, G = bf.G;
    if (!finite_pos(o)) {
        o = out->single_seconds / 4;
        note(out, "loggp o <= 0: o = a quarter of a single message's time");
    }
    if (!finite_pos(G)) {
        G = pr->tw * r->tick;
        if (m >= 2) note(out, "loggp G <= 0: G = t_w");
    }
    double L = bf.lo - o;
    if (!finite_pos(L)) {
        L = out->single_seconds - 2 * o > 0 ? out->single_seconds - 2 * o : out->single_seconds / 2;
        note(out, "loggp L <= 0: L = a single message's time less 2o");
    }
    pr->loggp_o = o / r->tick;
    pr->loggp_L = L / r->tick;
    pr->loggp_G = G / r->tick;
}

int calib_fit_raw(const char *file, const char *text, const char *name, calib_result *out,
                  diag_list *d)
{
    memset(out, 0, sizeof *out);
    raw r;
    memset(&r, 0, sizeof r);
    int rc = -1, lineno = 0;
    for (const char *p = text; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char line[256];
        lineno++;
        if (len >= sizeof line) len = sizeof line - 1;
        memcpy(line, p, len);
        line[len] = '\0';
        if (line[0] && line[0] != '#' && parse_line(&r, line) != 0) {
            diag_add(d, file, lineno, 1, "malformed measurement '%s'", line);
            goto out;
        }
        p = e ? e + 1 : NULL;
    }
    if (!finite_pos(r.tick)) { diag_add(d, file, 0, 0, "no tick measurement"); goto out; }
    cost_profile *pr = &out->profile;
    snprintf(pr->name, sizeof pr->name, "%s", name);
    out->multiply_seconds = r.tick;
    calib_parts(&r, out);
    /* the tick: what exported code costs per tick when the kernel was timed, else the multiply */
    out->kernel_seconds = r.kernel_seconds;
    out->kernel_ticks = r.kernel_ticks;
    if (r.kernel_ticks > 0) r.tick = r.kernel_seconds / r.kernel_ticks;
    pr->tick_seconds = r.tick;
    calib_class_prices(&r, out);
    pr->coalesce = 1;
    pr->sync_on_messages = 1;   /* exported code without messages never synchronises */
    /* what the halo path pays for a send's guard: nothing per element (its pattern is recorded
     * once); the record and multicast paths test it per element and are priced at 1 whatever the
     * profile says (xf_export_pricing) */
    pr->guard_price = 0;
    /* loggp: unset (L = ts, o = 0, G = tw: cost_loggp_params) until fit_loggp fits them */
    pr->loggp_L = pr->loggp_o = pr->loggp_G = -1;

    /* the constant cost of the exchange: through the origin against P-1 (eq. 4.1) */
    double px[CALIB_MAX_P], py[CALIB_MAX_P];
    int np = 0;
    for (int p = 2; p <= CALIB_MAX_P; p++)
        if (r.exchange[p] > 0) { px[np] = p - 1; py[np] = r.exchange[p]; np++; out->ranks = p; }
    stats_line cl;
    if (stats_fit_origin(px, py, np, &cl) != 0) { diag_add(d, file, 0, 0, "no exchange measurements"); goto out; }
    add_fit(out, "exchange const", 0, &cl);

    double as, bs, ar, br, fs, fr;
    if (fit_direction(&r, r.send, "send", cl.slope, out, &as, &bs, &fs, d) != 0 ||
        fit_direction(&r, r.recv, "recv", cl.slope, out, &ar, &br, &fr, d) != 0)
        goto out;
    pr->normsent = as / r.tick;
    pr->normrcvd = ar / r.tick;
    if (!finite_pos(pr->normsent)) {
        pr->normsent = finite_pos(fs) ? fs / r.tick : 1;
        note(out, "send slope <= 0 (noise): normsent = the mean cost per message at 512 messages");
    }
    if (!finite_pos(pr->normrcvd)) {
        pr->normrcvd = finite_pos(fr) ? fr / r.tick : 1;
        note(out, "receive slope <= 0 (noise): normrcvd = the mean cost per message at 512 messages");
    }
    double bav = (bs + br) / 2;
    if (bav < 0) {   /* the constant, measured once per step, exceeds the back-to-back series' */
        bav = 0;
        note(out, "startup per partner < 0: counted as 0");
    }
    pr->barrier_slope = (cl.slope + bav) / r.tick;
    if (!finite_pos(pr->barrier_slope)) {
        pr->barrier_slope = cl.slope / r.tick;
        note(out, "startup per partner <= 0: barrier from the constant cost only");
    }

    /* Hockney: ping-pong */
    stats_line hl;
    if (stats_fit_line(r.pingpong.x, r.pingpong.y, r.pingpong.n, &hl) != 0) {
        diag_add(d, file, 0, 0, "too few ping-pong measurements");
        goto out;
    }
    add_fit(out, "pingpong", 0, &hl);
    pr->ts = hl.intercept / r.tick;
    pr->tw = hl.slope / r.tick;
    if (!finite_pos(pr->tw)) {
        pr->tw = r.pingpong.n ? r.pingpong.y[r.pingpong.n - 1] / r.pingpong.x[r.pingpong.n - 1] / r.tick : 1;
        note(out, "ping-pong slope <= 0: t_w = the largest message's time per word");
    }
    if (!finite_pos(pr->ts)) {
        double mn = INFINITY;
        for (int i = 0; i < r.pingpong.n; i++) if (r.pingpong.y[i] < mn) mn = r.pingpong.y[i];
        pr->ts = mn / r.tick;
        note(out, "ping-pong intercept <= 0: t_s = the fastest round trip");
    }

    fit_loggp(&r, out);

    /* BSP: g from the h-relations */
    double gs = 0;
    int ng = 0;
    for (int p = 2; p <= CALIB_MAX_P; p++) {
        stats_line gl;
        if (!r.hrel[p].n || stats_fit_line(r.hrel[p].x, r.hrel[p].y, r.hrel[p].n, &gl) != 0) continue;
        add_fit(out, "hrel P=%d", p, &gl);
        gs += gl.slope;
        ng++;
        out->l_seconds[p] = gl.intercept;
    }
    if (!ng) { diag_add(d, file, 0, 0, "no h-relation measurements"); goto out; }
    pr->g = gs / ng / r.tick;
    if (!finite_pos(pr->g)) { pr->g = pr->tw; note(out, "h-relation slope <= 0: g = t_w"); }
    for (int p = 2; p <= CALIB_MAX_P; p++) out->barrier_seconds[p] = r.barrier[p];
    rc = 0;
out:
    raw_free(&r);
    return rc;
}
