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

/* Adds the point (x, y); a second measurement at x keeps the least y (the benchmark's runs are
 * concatenated: see least()). */
static int series_add(series *s, double x, double y)
{
    for (int i = 0; i < s->n; i++)
        if (s->x[i] == x) { if (y < s->y[i]) s->y[i] = y; return 0; }
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
    calib_micro micro;                       /* the microbenchmarks' lines */
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

/* A measurement met again (the output of several runs of the benchmark, one after the other)
 * keeps its least time: the run least disturbed, as each run keeps its best round. */
static void least(double *slot, double secs) { if (!(*slot > 0) || secs < *slot) *slot = secs; }

static int p_ok(double p) { return p >= 2 && p <= CALIB_MAX_P && p == floor(p); }

/* A line about the machine (ranks, tick, cache) into `r`.  0, or -1 (not one of them). */
static int parse_machine(raw *r, const char *kind, int n, double a, double b, double c)
{
    if (!strcmp(kind, "ranks") && n == 2 && a >= 2) { r->ranks = (int)a; return 0; }
    if (!strcmp(kind, "tick") && n == 2 && a > 0) { least(&r->tick, a); return 0; }
    if (!strcmp(kind, "cache") && n == 4 && a >= 1 && a <= CALIB_LEVELS && a == floor(a) && b > 0 && c >= 1) {
        int l = (int)a;
        r->micro.cache_bytes[l] = b;
        r->micro.sharing[l] = c;
        if (l > r->micro.nlevels) r->micro.nlevels = l;
        return 0;
    }
    return -1;
}

/* A `micro NAME LEVEL BYTES SECONDS` line into r->micro.  0, or -1 (malformed). */
static int parse_micro(raw *r, const char *line)
{
    char name[32];
    double level, bytes, secs;
    if (sscanf(line, "micro %31s %lf %lf %lf", name, &level, &bytes, &secs) != 4 || !(secs > 0) ||
        !(bytes > 0) || level < 0 || level > CALIB_LEVELS || level != floor(level))
        return -1;
    calib_micro *m = &r->micro;
    int l = (int)level;
    if (!strcmp(name, "update")) { least(&m->update[l], secs); m->bytes[l] = bytes; return 0; }
    if (!strcmp(name, "chase")) { least(&m->chase[l], secs); return 0; }
    if (!strcmp(name, "accum")) { least(&m->accum, secs); m->accum_bytes = bytes; return 0; }
    if (!strcmp(name, "strided") && l > 0) { least(&m->walk[l], secs); return 0; }
    double *one = !strcmp(name, "poly") ? &m->poly : !strcmp(name, "chains") ? &m->chains
                : !strcmp(name, "lanes") ? &m->lanes
                : !strcmp(name, "poly_scalar") ? &m->poly_scalar : !strcmp(name, "update_scalar") ? &m->update_scalar
                : !strcmp(name, "strided") ? &m->strided : !strcmp(name, "aliased") ? &m->aliased
                : !strcmp(name, "searched") ? &m->searched
                : !strcmp(name, "restart") ? &m->restart : !strcmp(name, "rows") ? &m->rows
                : !strcmp(name, "entries") ? &m->entries : !strcmp(name, "whole") ? &m->whole
                : !strcmp(name, "entries_checked") ? &m->entries_checked
                : !strcmp(name, "whole_checked") ? &m->whole_checked : NULL;
    if (!one) return -1;
    least(one, secs);
    return 0;
}

/* One line of the benchmark's output into `r`.  0, or -1 (malformed). */
static int parse_line(raw *r, const char *line)
{
    if (!strncmp(line, "micro ", 6)) return parse_micro(r, line);
    char kind[32];
    double a, b, c, e;
    int n = sscanf(line, "%31s %lf %lf %lf %lf", kind, &a, &b, &c, &e);
    if (n < 2) return -1;
    if (parse_machine(r, kind, n, a, b, c) == 0) return 0;
    if (!strcmp(kind, "exchange") && n == 3 && p_ok(a)) { least(&r->exchange[(int)a], b); return 0; }
    if (!strcmp(kind, "barrier") && n == 3 && p_ok(a)) { least(&r->barrier[(int)a], b); return 0; }
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

static double nonneg(double v) { return v > 0 ? v : 0; }

/* An operation's seconds: the 16-operation update less the 2-operation one, over 14; the
 * update's half, with a note, when that is not positive. */
static double calib_op(calib_result *out, double poly, double update, const char *what)
{
    double op = (poly - update) / 14;
    if (op > 0) return op;
    char msg[160];
    snprintf(msg, sizeof msg, "the 16-operation update%s is no dearer than the 2-operation one: op = its seconds / 2",
             what);
    note(out, msg);
    return update / 2;
}

/* accum_window and the price of a chain without its end from the long accumulation and the
 * short chains (calib.h); the profile's accum_price the long one's until then. */
static void calib_chains(calib_result *out, const calib_micro *m, double op)
{
    if (!(m->accum > 0) || !(m->chains > 0) || !(m->accum_bytes > 0)) return;
    const double n = m->accum_bytes / 16, len = CALIB_CHAIN_LEN, r = m->accum / m->chains;
    double w = r > 1 && n > len * r ? len * n * (r - 1) / (n - len * r) : -1;
    if (!(w > 0) || !isfinite(w)) {
        note(out, "short chains of additions cost no less an element than a long one: accum_window unset");
        return;
    }
    out->profile.accum_window = w;
    out->profile.accum_price = m->accum * (n + w) / n / 2 / op;
}

/* entry_price and alias_check_price from the rows cut into pieces against the whole rows, with
 * another array and with the same (calib.h). */
static void calib_entries(calib_result *out, const calib_micro *m, double op)
{
    if (!(m->entries > 0) || !(m->whole > 0)) return;
    /* a piece costs E + e·len, a piece's elements of a whole row (E + e·len·k)/k, k pieces a row */
    const double k = CALIB_ENTRY_PIECES, per = k / (k - 1);
    double entry = (m->entries - m->whole) * per;
    if (entry > 0) out->profile.entry_price = entry / op;
    else note(out, "a loop's entry costs no more than its elements: entry_price unset");
    if (!(m->entries_checked > 0) || !(m->whole_checked > 0)) return;
    double check = (m->entries_checked - m->whole_checked) * per - (entry > 0 ? entry : 0);
    if (check > 0) out->profile.alias_check_price = check / op;
    else note(out, "a loop's overlap test costs nothing more on its entry: alias_check_price unset");
}

/* The figures of the microbenchmarks into the profile (calib.h): the operation's seconds (the
 * tick), each level's stream, the accumulation, the column walks and a restart, in ticks.  Keys
 * without their lines stay as scali2004 has them (1, or unset). */
static void calib_micro_prices(const raw *r, calib_result *out)
{
    const calib_micro *m = &r->micro;
    cost_profile *pr = &out->profile;
    out->micro = *m;
    pr->unit_price = pr->strided_price = pr->aliased_price = 1;
    pr->accum_price = pr->lanes_price = pr->accum_window = pr->unit_cached_price = pr->cache_bytes = pr->stream_price = pr->stream_cached_price = -1;
    pr->entry_price = pr->alias_check_price = -1;
    pr->restart_price = pr->cache1_bytes = pr->cache2_bytes = pr->stream1_price = pr->stream2_price = -1;
    pr->latency1 = pr->latency2 = pr->latency_cached = pr->latency_mem = -1;
    pr->strided1_price = pr->strided2_price = pr->strided_cached_price = pr->searched_price = -1;
    if (!(m->update[1] > 0 && m->poly > 0 && m->nlevels >= 1 && m->cache_bytes[1] > 0)) return;
    double vop = calib_op(out, m->poly, m->update[1], ""), op = vop;
    if (m->poly_scalar > 0 && m->update_scalar > 0) op = calib_op(out, m->poly_scalar, m->update_scalar, " (scalar)");
    out->micro.op = vop;
    out->micro.op_scalar = op;
    pr->tick_seconds = op;
    /* the levels: the first, the second when there are three, the last; memory */
    int last = m->nlevels;
    double *bytes[CALIB_LEVELS + 1] = { NULL }, *price[CALIB_LEVELS + 1] = { NULL }, *lat[CALIB_LEVELS + 1] = { NULL },
           *walk[CALIB_LEVELS + 1] = { NULL };
    bytes[1] = &pr->cache1_bytes, price[1] = &pr->stream1_price, lat[1] = &pr->latency1, walk[1] = &pr->strided1_price;
    if (last >= 3)
        bytes[2] = &pr->cache2_bytes, price[2] = &pr->stream2_price, lat[2] = &pr->latency2, walk[2] = &pr->strided2_price;
    if (last >= 2)
        bytes[last] = &pr->cache_bytes, price[last] = &pr->stream_cached_price, lat[last] = &pr->latency_cached,
        walk[last] = &pr->strided_cached_price;
    for (int l = 1; l <= last; l++) {
        if (!bytes[l] || !(m->cache_bytes[l] > 0)) continue;
        /* the data its prices were measured over, half the processor's share: a processor's data
         * that fills its share does not stay (other data, the sets' conflicts); beyond it the
         * prices blend toward the next level's (cost.h, `levels`) */
        *bytes[l] = m->cache_bytes[l] / (m->sharing[l] >= 1 ? m->sharing[l] : 1) / 2;
        if (m->update[l] > 0) *price[l] = nonneg(m->update[l] - 2 * vop) / 2 / op;
        if (m->chase[l] > 0) *lat[l] = m->chase[l] / op;
        if (m->walk[l] > 0) *walk[l] = m->walk[l] / 2 / op;
    }
    if (m->update[0] > 0) pr->stream_price = nonneg(m->update[0] - 2 * vop) / 2 / op;
    if (m->chase[0] > 0) pr->latency_mem = m->chase[0] / op;
    pr->unit_price = vop / op;
    if (m->accum > 0) pr->accum_price = m->accum / 2 / op;
    calib_chains(out, m, op);
    calib_entries(out, m, op);
    if (m->lanes > 0) pr->lanes_price = m->lanes / 2 / op;
    if (m->strided > 0) pr->strided_price = m->strided / 2 / op;
    if (m->aliased > 0) pr->aliased_price = m->aliased / 2 / op;
    if (m->searched > 0) pr->searched_price = m->searched / 2 / op;
    if (m->restart > 0 && (m->rows > 0 || m->update[0] > 0)) {
        double rs = m->restart - (m->rows > 0 ? m->rows : 256 * m->update[0]);
        if (rs > 0) pr->restart_price = rs / op;
        else note(out, "a partial row costs no more than its elements streamed: restart_price unset");
    }
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
    /* the tick: an operation's seconds from the microbenchmarks, else the multiply */
    pr->tick_seconds = r.tick;
    calib_micro_prices(&r, out);
    r.tick = pr->tick_seconds;
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
