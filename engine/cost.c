/*
 * cost.c — machine profiles and the cost models that price a simulation trace (see cost.h).
 *
 * The models live in one table (cost_models); each prices one step at a time from the trace's
 * dense work matrix and its per-step message lists.  Profiles are plain parameter sets: one
 * built-in table (cost_builtins) and a `key value` text format whose keys come from one table
 * (cost_keys), so parsing, formatting and cost_profile_set cannot drift apart.
 *
 * Conventions the models share (documented for the CLI and the TUI):
 *   - b(P) = barrier_const + (P-1)*barrier_slope for P > 1, else 0; P = the trace's step_procs.
 *   - every processor 0..nprocs-1 pays b(P) in every step (the barrier is collective), except
 *     with `sync_on_messages` in a step without any message or collective (cost_step_quiet);
 *   - sends[i]/recvs[i] count, per step, with `coalesce` the messages of the exported exchange:
 *     one per (partner, array) (the plain placement: the elements of one array to one partner,
 *     from any send statements, travel as one message), one per partner when the program says
 *     `messages aggregate` (the aggregation placement, transforms/place/place_aggregate.c); without
 *     `coalesce` every APM message (element) is one;
 *   - comm[i] = Σ_t c_it, the communication + barrier part of the processor's cost.
 *   - hockney: per message (as above) one t_s, plus t_w·words;
 *     c_it = max(Σ sends, Σ recvs) + b(P).
 *   - loggp: the same messages posted at once and waited for together (the exported exchange):
 *     c_it = max(o·s_i, o + L) + o·r_i + G·(words out + in) + b(P) (cost.h); unset keys
 *     (negative) price L = t_s, o = 0, G = t_w (cost_loggp_params).
 *   - bsp: superstep_t = max_i w_it + g·max_i h_it + b(P) with h_it = max(words out, words in);
 *     comm[i] = Σ_t (g·h_it + b(P)).
 *   - w_it = work_it − (1 − guard_price)·guard_it (cost_work): the send guards' ticks priced apart;
 *     guard_price 1 leaves the trace's work as it is, bit for bit.
 *   - overlap (polyapm, hockney, loggp; not bsp, whose supersteps do not overlap): c_it loses
 *     min(o_it, c_it - b(P) - busy_it), o_it = the trace's overlap (cost_hidden), busy_it the
 *     model's CPU time per message that no work hides (loggp's overheads; 0 for the others).
 */
#include "cost.h"
#include "ir.h"
#include "strbuf.h"
#include "textfile.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- profiles ------------------------------------------------------------------------------- */

/* scali2004: the thesis's calibration (Ellmenreich 2004, §4.4.6).  The thesis has no Hockney or
 * BSP parameters; ts = one barrier slope (a startup is about one synchronisation), tw = g = the sum
 * of the per-word send and receive slopes. */
static const cost_profile cost_builtins[] = {
    { .name = "scali2004", .tick_seconds = 8.197316e-8, .mstartup_s = 0, .mstartup_r = 0,
      .normsent = 1.2046961, .normrcvd = 3.3831080, .barrier_slope = 298.8954664,
      .barrier_const = 0, .coalesce = 1, .ts = 298.8954664, .tw = 4.5878041, .g = 4.5878041,
      .guard_price = 1, .loggp_L = -1, .loggp_o = -1, .loggp_G = -1, .unit_price = 1,
      .strided_price = 1, .aliased_price = 1, .accum_price = -1, .lanes_price = -1, .accum_window = -1,
      .unit_cached_price = -1,
      .cache_bytes = -1, .stream_price = -1, .stream_cached_price = -1, .restart_price = -1,
      .entry_price = -1, .alias_check_price = -1, .cache1_bytes = -1, .cache2_bytes = -1, .stream1_price = -1, .stream2_price = -1, .latency1 = -1,
      .latency2 = -1, .latency_cached = -1, .latency_mem = -1, .strided1_price = -1, .strided2_price = -1,
      .strided_cached_price = -1, .searched_price = -1, .data_scale = -1 },
};
#define COST_NBUILTINS ((int)(sizeof cost_builtins / sizeof cost_builtins[0]))

static const char *const cost_builtin_names[] = { "scali2004", NULL };

typedef struct cost_key {
    const char *key;
    size_t off;       /* offset of a double, or of the int `coalesce` */
    int is_int;       /* 1: an int; 2: an int flag written only when set; 3: a double written
                         only when it is not 1; 4: a double >= 0, written only when set (< 0 =
                         unset) (so that profiles without them, scali2004's text among them,
                         stay as they were) */
} cost_key;

static const cost_key cost_keys[] = {
    { "tick_seconds",  offsetof(cost_profile, tick_seconds), 0 },
    { "mstartup_s",    offsetof(cost_profile, mstartup_s), 0 },
    { "mstartup_r",    offsetof(cost_profile, mstartup_r), 0 },
    { "normsent",      offsetof(cost_profile, normsent), 0 },
    { "normrcvd",      offsetof(cost_profile, normrcvd), 0 },
    { "barrier_slope", offsetof(cost_profile, barrier_slope), 0 },
    { "barrier_const", offsetof(cost_profile, barrier_const), 0 },
    { "coalesce",      offsetof(cost_profile, coalesce), 1 },
    { "ts",            offsetof(cost_profile, ts), 0 },
    { "tw",            offsetof(cost_profile, tw), 0 },
    { "g",             offsetof(cost_profile, g), 0 },
    { "sync_on_messages", offsetof(cost_profile, sync_on_messages), 2 },
    { "guard_price",   offsetof(cost_profile, guard_price), 3 },
    { "loggp_L",       offsetof(cost_profile, loggp_L), 4 },
    { "loggp_o",       offsetof(cost_profile, loggp_o), 4 },
    { "loggp_G",       offsetof(cost_profile, loggp_G), 4 },
    { "unit_price",    offsetof(cost_profile, unit_price), 3 },
    { "strided_price", offsetof(cost_profile, strided_price), 3 },
    { "aliased_price", offsetof(cost_profile, aliased_price), 3 },
    { "accum_price",   offsetof(cost_profile, accum_price), 4 },
    { "lanes_price",   offsetof(cost_profile, lanes_price), 4 },
    { "accum_window",  offsetof(cost_profile, accum_window), 4 },
    { "unit_cached_price", offsetof(cost_profile, unit_cached_price), 4 },
    { "cache_bytes",   offsetof(cost_profile, cache_bytes), 4 },
    { "stream_price",  offsetof(cost_profile, stream_price), 4 },
    { "stream_cached_price", offsetof(cost_profile, stream_cached_price), 4 },
    { "restart_price", offsetof(cost_profile, restart_price), 4 },
    { "entry_price",   offsetof(cost_profile, entry_price), 4 },
    { "alias_check_price", offsetof(cost_profile, alias_check_price), 4 },
    { "cache1_bytes",  offsetof(cost_profile, cache1_bytes), 4 },
    { "cache2_bytes",  offsetof(cost_profile, cache2_bytes), 4 },
    { "stream1_price", offsetof(cost_profile, stream1_price), 4 },
    { "stream2_price", offsetof(cost_profile, stream2_price), 4 },
    { "strided1_price", offsetof(cost_profile, strided1_price), 4 },
    { "strided2_price", offsetof(cost_profile, strided2_price), 4 },
    { "strided_cached_price", offsetof(cost_profile, strided_cached_price), 4 },
    { "searched_price", offsetof(cost_profile, searched_price), 4 },
    { "latency1",      offsetof(cost_profile, latency1), 4 },
    { "latency2",      offsetof(cost_profile, latency2), 4 },
    { "latency_cached", offsetof(cost_profile, latency_cached), 4 },
    { "latency_mem",   offsetof(cost_profile, latency_mem), 4 },
    { "data_scale",    offsetof(cost_profile, data_scale), 4 },
};
#define COST_NKEYS ((int)(sizeof cost_keys / sizeof cost_keys[0]))

const cost_profile *cost_profile_builtin(const char *name)
{
    if (!name) return NULL;
    for (int i = 0; i < COST_NBUILTINS; i++)
        if (strcmp(cost_builtins[i].name, name) == 0) return &cost_builtins[i];
    return NULL;
}

const char *const *cost_profile_builtin_names(void) { return cost_builtin_names; }

static const cost_key *cost_key_find(const char *key)
{
    for (int i = 0; i < COST_NKEYS; i++)
        if (strcmp(cost_keys[i].key, key) == 0) return &cost_keys[i];
    return NULL;
}

int cost_profile_set(cost_profile *p, const char *key, double value)
{
    const cost_key *k = key ? cost_key_find(key) : NULL;
    if (!k) return -1;
    if (k->is_int == 4 && !(value >= 0 && value < HUGE_VAL)) return -2;
    if (k->is_int == 1 || k->is_int == 2) *(int *)((char *)p + k->off) = value != 0;
    else *(double *)((char *)p + k->off) = value;
    return 0;
}

double cost_profile_get(const cost_profile *p, const char *key)
{
    const cost_key *k = key ? cost_key_find(key) : NULL;
    if (!k) return NAN;
    if (k->is_int == 1 || k->is_int == 2) return *(const int *)((const char *)p + k->off);
    return *(const double *)((const char *)p + k->off);
}

/* The profile name a file gets when it has no `name` line: its base name without extension. */
static void cost_name_from_file(cost_profile *p, const char *file)
{
    const char *b = file ? strrchr(file, '/') : NULL;
    b = b ? b + 1 : (file ? file : "profile");
    size_t n = strcspn(b, ".");
    if (n == 0) { b = "profile"; n = strlen(b); }
    if (n >= sizeof p->name) n = sizeof p->name - 1;
    memcpy(p->name, b, n);
    p->name[n] = 0;
}

/* Keys absent from the text keep the scali2004 values. */
int cost_profile_parse(const char *file, const char *text, cost_profile *out, diag_list *d)
{
    cost_profile p = cost_builtins[0];
    cost_name_from_file(&p, file);
    int errors = 0, line = 0;
    const char *s = text ? text : "";
    while (*s) {
        line++;
        const char *eol = strchr(s, '\n');
        size_t len = eol ? (size_t)(eol - s) : strlen(s);
        char buf[512];
        if (len >= sizeof buf) {
            diag_add(d, file, line, 1, "line too long in machine profile");
            errors++;
        } else {
            memcpy(buf, s, len);
            buf[len] = 0;
            char *hash = strchr(buf, '#');
            if (hash) *hash = 0;
            char *k = buf;
            while (isspace((unsigned char)*k)) k++;
            if (*k) {
                char *ke = k;
                while (*ke && !isspace((unsigned char)*ke)) ke++;
                char *v = ke;
                while (isspace((unsigned char)*v)) v++;
                *ke = 0;
                char *ve = v + strlen(v);
                while (ve > v && isspace((unsigned char)ve[-1])) *--ve = 0;
                int col = (int)(v - buf) + 1;
                if (strcmp(k, "name") == 0) {
                    if (!*v || strlen(v) >= sizeof p.name || strpbrk(v, " \t")) {
                        diag_add(d, file, line, col, "expected a profile name (one word, < 64 chars)");
                        errors++;
                    } else {
                        strcpy(p.name, v);
                    }
                } else if (!cost_key_find(k)) {
                    diag_add(d, file, line, (int)(k - buf) + 1,
                             "unknown machine profile key '%s'", k);
                    errors++;
                } else {
                    char *end = NULL;
                    errno = 0;
                    double val = *v ? strtod(v, &end) : 0;
                    if (!*v || !end || *end || errno == ERANGE) {
                        diag_add(d, file, line, col, "expected a number after '%s'", k);
                        errors++;
                    } else if (cost_profile_set(&p, k, val) != 0) {
                        diag_add(d, file, line, col, "expected a number >= 0 after '%s'", k);
                        errors++;
                    }
                }
            }
        }
        s = eol ? eol + 1 : s + len;
    }
    if (errors) return -1;
    *out = p;
    return 0;
}

int cost_profile_read(const char *path, cost_profile *out, diag_list *d)
{
    char *buf = textfile_read(path, "a machine profile", (size_t)1 << 24, NULL, d);
    if (!buf) return -1;
    int rc = cost_profile_parse(path, buf, out, d);
    free(buf);
    return rc;
}

/* The shortest text that reads back as the same double. */
static void cost_fmt_double(double v, char *buf, size_t size)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) return;
    }
}

char *cost_profile_format(const cost_profile *p)
{
    strbuf s = {0};
    strbuf_printf(&s, "name %s\n", p->name[0] ? p->name : "profile");
    for (int i = 0; i < COST_NKEYS; i++) {
        const cost_key *k = &cost_keys[i];
        int is_int = k->is_int == 1 || k->is_int == 2;
        int iv = is_int ? *(const int *)((const char *)p + k->off) : 0;
        if (k->is_int == 2 && !iv) continue;   /* off: as written before the key existed */
        if (k->is_int == 3 && *(const double *)((const char *)p + k->off) == 1) continue;   /* likewise */
        if (k->is_int == 4 && !(*(const double *)((const char *)p + k->off) >= 0)) continue;   /* unset */
        if (is_int)
            strbuf_printf(&s, "%s %d\n", k->key, iv);
        else {
            char num[40];
            cost_fmt_double(*(const double *)((const char *)p + k->off), num, sizeof num);
            strbuf_printf(&s, "%s %s\n", k->key, num);
        }
    }
    return strbuf_take(&s);
}

int cost_profile_resolve(const char *name_or_path, cost_profile *out, diag_list *d)
{
    const cost_profile *b = cost_profile_builtin(name_or_path);
    if (b) { *out = *b; return 0; }
    if (!name_or_path || (!strchr(name_or_path, '/') && !strchr(name_or_path, '.'))) {
        diag_add(d, NULL, 0, 0, "unknown machine '%s' (built in: scali2004; or a profile file path)",
                 name_or_path ? name_or_path : "");
        return -1;
    }
    return cost_profile_read(name_or_path, out, d);
}

/* ---- models --------------------------------------------------------------------------------- */

double cost_barrier(const cost_profile *p, int nprocs)
{
    if (nprocs <= 1) return 0;
    return p->barrier_const + (double)(nprocs - 1) * p->barrier_slope;
}

/* Per-step, per-processor communication facts gathered from one step's message list. */
typedef struct cost_step {
    double *wout, *win;        /* words sent / received */
    double *nsend, *nrecv;     /* partners (coalesce) or messages */
    double *hsend, *hrecv;     /* hockney: Σ (t_s·startups + t_w·words) */
} cost_step;

static void cost_step_gather(const sim_trace *t, int s, const cost_profile *p, cost_step *cs)
{
    int np = t->nprocs;
    for (int i = 0; i < np; i++)
        cs->wout[i] = cs->win[i] = cs->nsend[i] = cs->nrecv[i] = cs->hsend[i] = cs->hrecv[i] = 0;
    int nm = t->nmsgs ? t->nmsgs[s] : 0;
    const sim_msgs *m = t->msgs ? t->msgs[s] : NULL;
    for (int k = 0; k < nm && m; k++) {
        int a = m[k].src, b = m[k].dst;
        double starts = !p->coalesce ? (double)m[k].count
                      : t->aggregated || m[k].arrays < 1 ? 1.0 : (double)m[k].arrays;
        if (m[k].count <= 0) continue;
        if (a >= 0 && a < np) {
            cs->wout[a] += m[k].words;
            cs->nsend[a] += starts;
            cs->hsend[a] += starts * p->ts + p->tw * m[k].words;
        }
        if (b >= 0 && b < np) {
            cs->win[b] += m[k].words;
            cs->nrecv[b] += starts;
            cs->hrecv[b] += starts * p->ts + p->tw * m[k].words;
        }
    }
}

typedef double (*cost_comm_fn)(const cost_profile *p, const cost_step *cs, int i, double b);

static double cost_comm_polyapm(const cost_profile *p, const cost_step *cs, int i, double b)
{
    return p->normsent * cs->wout[i] + p->mstartup_s * cs->nsend[i]
         + p->normrcvd * cs->win[i] + p->mstartup_r * cs->nrecv[i] + b;
}

static double cost_comm_hockney(const cost_profile *p, const cost_step *cs, int i, double b)
{
    (void)p;
    return (cs->hsend[i] > cs->hrecv[i] ? cs->hsend[i] : cs->hrecv[i]) + b;
}

void cost_loggp_params(const cost_profile *p, double *L, double *o, double *G)
{
    *L = p->loggp_L >= 0 ? p->loggp_L : p->ts;
    *o = p->loggp_o >= 0 ? p->loggp_o : 0;
    *G = p->loggp_G >= 0 ? p->loggp_G : p->tw;
}

/* Every message of the step posted at once, one wait (cost.h): the sends' overheads in turn, the
 * first arrival after o + L, then the receives' overheads in turn; the link carries words both ways. */
static double cost_comm_loggp(const cost_profile *p, const cost_step *cs, int i, double b)
{
    double L, o, G;
    cost_loggp_params(p, &L, &o, &G);
    double sends = o * cs->nsend[i], arrive = cs->nrecv[i] > 0 ? o + L : 0;
    return (sends > arrive ? sends : arrive) + o * cs->nrecv[i] + G * (cs->wout[i] + cs->win[i]) + b;
}

/* The CPU time of processor i's messages that work cannot hide (loggp's overheads). */
static double cost_busy_loggp(const cost_profile *p, const cost_step *cs, int i)
{
    double L, o, G;
    cost_loggp_params(p, &L, &o, &G);
    return o * (cs->nsend[i] + cs->nrecv[i]);
}

static double cost_comm_bsp(const cost_profile *p, const cost_step *cs, int i, double b)
{
    double h = cs->wout[i] > cs->win[i] ? cs->wout[i] : cs->win[i];
    return p->g * h + b;
}

/* ---- collectives (formulas in cost.h) ------------------------------------------------------ */

static int cost_log2(int p)
{
    int l = 0;
    while ((1 << l) < p && l < 30) l++;
    return l;
}

/* The distribution operations (Di Cosmo et al.): direct messages, not butterflies. */
static int cost_is_gather(int k)
{
    return k == IR_C_ALLGATHER || k == IR_C_GATHER || k == IR_C_SCATTER || k == IR_C_MULTICAST;
}
static int cost_from_root(int k) { return k == IR_C_SCATTER || k == IR_C_MULTICAST; }
static int cost_is_scan(int k) { return k == IR_C_SCAN || k == IR_C_EXSCAN; }
/* A redistribution (transpose): an all-to-all, each processor m words to each other one. */
static int cost_is_alltoall(int k) { return k == IR_C_TRANSPOSE; }

/* Operations per element and round of a butterfly (hockney, polyapm). */
static double cost_round_ops(const sim_coll_rec *r)
{
    if (r->kind == IR_C_BCAST || cost_is_gather(r->kind)) return 0;
    return cost_is_scan(r->kind) ? 2 * r->ops : r->ops;
}

static double cost_coll_hockney(const cost_profile *p, const sim_coll_rec *r)
{
    double L = cost_log2(r->nprocs), mw = r->m * r->words;
    if (r->nprocs <= 1) return 0;
    if (cost_is_alltoall(r->kind)) return (r->nprocs - 1) * (p->ts + mw * p->tw);
    if (cost_from_root(r->kind)) return r->nprocs * (p->ts + mw * p->tw);
    if (cost_is_gather(r->kind)) return (r->nprocs - 1) * p->ts + r->nprocs * mw * p->tw;
    return L * (p->ts + mw * p->tw + r->m * cost_round_ops(r));
}

static double cost_coll_bsp(const cost_profile *p, const sim_coll_rec *r)
{
    double L = cost_log2(r->nprocs), mw = r->m * r->words, l = cost_barrier(p, r->nprocs);
    if (r->nprocs <= 1) return 0;
    if (cost_is_alltoall(r->kind)) return (r->nprocs - 1) * mw * p->g + l;
    if (r->kind == IR_C_BCAST || cost_is_gather(r->kind)) return r->nprocs * mw * p->g + l;
    double c = r->m * r->ops;
    if (cost_is_scan(r->kind) || r->kind == IR_C_SCAN_BAL) c *= 3;
    return L * (c + mw * p->g + l);
}

static double cost_coll_polyapm(const cost_profile *p, const sim_coll_rec *r)
{
    double L = cost_log2(r->nprocs), mw = r->m * r->words;
    double start = p->mstartup_s + p->mstartup_r, slope = p->normsent + p->normrcvd;
    if (r->nprocs <= 1) return 0;
    if (cost_from_root(r->kind))
        return r->nprocs * (p->mstartup_s + p->normsent * mw) + p->mstartup_r + p->normrcvd * mw;
    if (cost_is_gather(r->kind) || cost_is_alltoall(r->kind)) return (r->nprocs - 1) * (start + slope * mw);
    return L * (slope * mw + start + r->m * cost_round_ops(r));
}

/* loggp's collectives: hockney's, a message alone costing L + 2o and G a word. */
static double cost_coll_loggp(const cost_profile *p, const sim_coll_rec *r)
{
    cost_profile h = *p;
    double L, o, G;
    cost_loggp_params(p, &L, &o, &G);
    h.ts = L + 2 * o;
    h.tw = G;
    return cost_coll_hockney(&h, r);
}

typedef double (*cost_coll_fn)(const cost_profile *p, const sim_coll_rec *r);
typedef double (*cost_busy_fn)(const cost_profile *p, const cost_step *cs, int i);

typedef struct cost_model {
    const char *name;
    cost_comm_fn comm;
    cost_coll_fn coll;
    int superstep;   /* 1: cost_t = max w + max comm (BSP); 0: cost_t = max (w + c) */
    cost_busy_fn busy;   /* the message time no work hides (overlap), or NULL: none */
} cost_model;

static const cost_model cost_models[] = {
    { "polyapm", cost_comm_polyapm, cost_coll_polyapm, 0, NULL },
    { "bsp",     cost_comm_bsp,     cost_coll_bsp,     1, NULL },
    { "hockney", cost_comm_hockney, cost_coll_hockney, 0, NULL },
    { "loggp",   cost_comm_loggp,   cost_coll_loggp,   0, cost_busy_loggp },
};
#define COST_NMODELS ((int)(sizeof cost_models / sizeof cost_models[0]))

static const char *const cost_model_name_list[] = { "polyapm", "bsp", "hockney", "loggp", NULL };

const char *const *cost_model_names(void) { return cost_model_name_list; }

static const cost_model *cost_model_find(const char *name)
{
    for (int i = 0; i < COST_NMODELS && name; i++)
        if (strcmp(cost_models[i].name, name) == 0) return &cost_models[i];
    return NULL;
}

double cost_collective(const char *model, const sim_coll_rec *r, const cost_profile *prof)
{
    const cost_model *m = cost_model_find(model);
    return m ? m->coll(prof, r) : 0;
}

void cost_summary_free(cost_summary *s)
{
    if (!s) return;
    free(s->work);
    free(s->comm);
    free(s->overlap);
    free(s->sends);
    free(s->recvs);
    free(s->step_cost);
    s->work = s->comm = s->step_cost = s->overlap = NULL;
    s->sends = s->recvs = NULL;
}

/* The overlap placement (a trace with `overlap`, programs ending their step with `recv`): a
 * processor's messages travel while it works between its last send and its recv, so that work
 * hides up to all of its message time c_it - b(P) (the barrier stays; `b` is the barrier plus
 * the CPU time the model's messages take, cost_model.busy).  0 for other traces. */
static double cost_hidden(const sim_trace *t, int s, int i, double ci, double b)
{
    if (!t->overlap) return 0;
    double ov = t->overlap[(size_t)s * (size_t)t->nprocs + (size_t)i], msg = ci - b;
    if (msg <= 0) return 0;
    return ov < msg ? ov : msg;
}

/* Processor i's data in bytes as the caches see it: the trace's, times data_scale when set. */
static double cost_data(const sim_trace *t, const cost_profile *p, int i)
{
    return t->data_bytes[i] * (p->data_scale > 0 ? p->data_scale : 1);
}

/* A price on processor i between `cached` (its data fits the cache: cost.h, `cache`) and
 * `memory`, by the part of the processor's data its cache cannot hold; `memory` when the profile
 * has no cache term or `cached` is unset (< 0). */
static double cost_cache_blend(const sim_trace *t, const cost_profile *p, int i, double cached, double memory)
{
    if (cached < 0 || !(p->cache_bytes > 0) || !t->data_bytes) return memory;
    double d = cost_data(t, p, i), f = d > p->cache_bytes ? 1 - p->cache_bytes / d : 0;
    return cached + f * (memory - cached);
}

/* The price of a tick of unit-stride work on processor i: unit_price, or between
 * unit_cached_price and it. */
static double cost_unit_price(const sim_trace *t, const cost_profile *p, int i)
{
    return cost_cache_blend(t, p, i, p->unit_cached_price, p->unit_price);
}

/* A price from the cache levels that hold d bytes (cost.h, `levels`): price[0 .. 2] the first,
 * second and last level's, `memory` beyond them; -1 when the profile has no first level's. */
static double cost_levels_at(const cost_profile *p, double d, const double price[3], double memory)
{
    const double bytes[3] = { p->cache1_bytes, p->cache2_bytes, p->cache_bytes };
    if (!(p->cache1_bytes > 0 && price[0] >= 0) || !(d > 0)) return -1;
    double held = 0, z = 0;
    for (int k = 0; k < 3; k++) {
        if (!(bytes[k] > held) || !(price[k] >= 0)) continue;
        double upto = d < bytes[k] ? d : bytes[k];
        if (upto > held) z += price[k] * (upto - held) / d;
        held = bytes[k];
    }
    return d > held ? z + memory * (d - held) / d : z;
}

/* A price on processor i from the cache levels that hold its data (cost.h, `levels`): price[0 ..
 * 2] the first, second and last level's, `memory` beyond them; -1 when the profile has no first
 * level's. */
static double cost_levels_blend(const sim_trace *t, const cost_profile *p, int i, const double price[3], double memory)
{
    if (!t->data_bytes || !(t->data_bytes[i] > 0)) return -1;
    return cost_levels_at(p, cost_data(t, p, i), price, memory);
}

/* The price of a stream's element on processor i by the levels; -1 without them. */
static double cost_levels_price(const sim_trace *t, const cost_profile *p, int i)
{
    const double price[3] = { p->stream1_price, p->stream2_price, p->stream_cached_price };
    return cost_levels_blend(t, p, i, price, p->stream_price);
}

/* The price of an access to a tile's row read again, in cell `at` (cost.h, `levels`): what the
 * levels charge for a stream over its tiles' bytes (their mean over the cell's such accesses),
 * or the first level's stream price without them. */
static double cost_tile_price(const sim_trace *t, const cost_profile *p, size_t at)
{
    const double price[3] = { p->stream1_price, p->stream2_price, p->stream_cached_price };
    double d = t->tile_bytes && t->tile_reads[at] > 0 ? t->tile_bytes[at] / t->tile_reads[at] : 0;
    double z = cost_levels_at(p, d, price, p->stream_price);
    return z >= 0 ? z : p->stream1_price;
}

/* The price of a restart on processor i (cost.h, `levels`): restart_price, or with the levels
 * set, restart_price for the part of the processor's data beyond the last level (a restart within
 * the caches finds its next row there). */
static double cost_restart_price(const sim_trace *t, const cost_profile *p, int i)
{
    if (cost_levels_price(t, p, i) < 0 || !(p->cache_bytes > 0)) return p->restart_price;
    double d = cost_data(t, p, i);
    return d > p->cache_bytes ? p->restart_price * (d - p->cache_bytes) / d : 0;
}

/* The price of a stream's element on processor i (cost.h, `streams`): by the levels that hold
 * its data, or stream_price, or between stream_cached_price and it; 0 when unset. */
static double cost_stream_price(const sim_trace *t, const cost_profile *p, int i)
{
    if (p->stream_price < 0) return 0;
    double z = cost_levels_price(t, p, i);
    return z >= 0 ? z : cost_cache_blend(t, p, i, p->stream_cached_price, p->stream_price);
}

/* An accumulation's price measured in the cache (calib.h), on processor i: beyond it, dearer as
 * unit work is (with the `cache` term). */
static double cost_accum_scaled(const sim_trace *t, const cost_profile *p, int i, double price)
{
    if (p->unit_cached_price > 0 && p->cache_bytes > 0 && t->data_bytes)
        return price * cost_unit_price(t, p, i) / p->unit_cached_price;
    return price;
}

/* The price of class `cls` on processor i: its key's, the unit-stride price for unit work and
 * for accumulations without a price of their own. */
static double cost_class_price(const sim_trace *t, const cost_profile *p, int cls, int i)
{
    switch (cls) {
    case SIM_WORK_SEARCHED:   /* priced as a walk where the profile has no price of its own */
        return p->searched_price >= 0 ? p->searched_price : cost_class_price(t, p, SIM_WORK_STRIDED, i);
    case SIM_WORK_STRIDED: {
        const double price[3] = { p->strided1_price, p->strided2_price, p->strided_cached_price };
        double w = cost_levels_blend(t, p, i, price, p->strided_price);
        return w >= 0 ? w : p->strided_price;
    }
    case SIM_WORK_ALIASED: return p->aliased_price;
    case SIM_WORK_LANES: {
        if (!(p->lanes_price >= 0)) return cost_class_price(t, p, SIM_WORK_ACCUM, i);
        /* measured over a matrix the second level holds: where the processor's data outgrows
         * it, the lanes walk down their rows' column as a walk does (covariance's data at
         * LARGE, read again for every row of cov), dearer by as much */
        double walk = cost_class_price(t, p, SIM_WORK_STRIDED, i);
        double at = p->strided2_price > 0 ? p->strided2_price : p->strided1_price;
        return at > 0 && walk > at ? p->lanes_price * walk / at : p->lanes_price;
    }
    case SIM_WORK_ACCUM:
        if (p->accum_price >= 0) return cost_accum_scaled(t, p, i, p->accum_price);
        return cost_unit_price(t, p, i);
    case SIM_WORK_BLOCKED: return p->unit_cached_price >= 0 && p->cache_bytes > 0 ? p->unit_cached_price
                                                                                  : cost_unit_price(t, p, i);
    case SIM_WORK_UNIT: return cost_unit_price(t, p, i);
    default: return 1;
    }
}

/* What part of an accumulation's price its chains pay in cell `at` (cost.h, `chains`): L / (L +
 * W), L their mean length (two ticks an element), W the profile's accum_window; 1 without. */
static double cost_chains_overlap(const sim_trace *t, const cost_profile *p, size_t at)
{
    if (!(p->accum_window > 0) || !t->chains || !(t->chains[at] > 0) || !t->wclass[SIM_WORK_ACCUM]) return 1;
    double len = t->wclass[SIM_WORK_ACCUM][at] / 2 / t->chains[at];
    return len > 0 ? len / (len + p->accum_window) : 1;
}

/* What cell `at`'s innermost loops' entries cost (cost.h, `entries`): as counted, or, in a trace
 * priced at another size's data (data_scale set: explore --at's samples, whose rows span a tile or
 * two), with a tile's point loops as the full tiles their turns make: at the size priced, rows
 * span many tiles, and the partial tiles of a sample's short rows would grow with its work. */
static double cost_entries(const sim_trace *t, const cost_profile *p, size_t at)
{
    int full = p->data_scale > 0;
    const double *e = full ? t->full_entries : t->entries, *k = full ? t->full_checks : t->alias_checks;
    return (e && p->entry_price > 0 ? p->entry_price * e[at] : 0) + (k && p->alias_check_price > 0 ? p->alias_check_price * k[at] : 0);
}

/* w_it: the trace's work with its send guards' ticks priced by the profile's guard_price and its
 * classes' ticks by their prices; a price of 1 leaves the work as it is. */
static double cost_work(const sim_trace *t, const cost_profile *p, size_t at, int i)
{
    double w = t->work ? t->work[at] : 0;
    int priced = 0;
    if (t->guard && p->guard_price != 1) {
        w -= (1 - p->guard_price) * t->guard[at];
        priced = 1;
    }
    for (int k = SIM_WORK_SCALAR + 1; k < SIM_WORK_CLASSES; k++) {
        const double *m = t->wclass[k];
        double price = m ? cost_class_price(t, p, k, i) : 1;
        if (m && k == SIM_WORK_ACCUM) price *= cost_chains_overlap(t, p, at);
        if (price == 1) continue;
        w -= (1 - price) * m[at];
        priced = 1;
    }
    if (t->walks || t->chained) {
        double s = cost_class_price(t, p, SIM_WORK_STRIDED, i);
        if (t->walks && s > 1) w += (s - 1) * t->walks[at];
        double a = t->chained && p->accum_price >= 0 ? cost_class_price(t, p, SIM_WORK_ACCUM, i) : s;
        if (a > s) w += (a - s) * t->chained[at];
    }
    if (t->streams && p->stream_price >= 0) w += cost_stream_price(t, p, i) * t->streams[at];
    if (t->restarts && p->restart_price > 0) w += cost_restart_price(t, p, i) * t->restarts[at];
    if (t->cached && p->stream1_price > 0) {
        double tile = t->tile_reads ? t->tile_reads[at] : 0;
        w += p->stream1_price * (t->cached[at] - tile);
        if (tile > 0) w += cost_tile_price(t, p, at) * tile;
    }
    w += cost_entries(t, p, at);
    return priced && w < 0 ? 0 : w;
}

/* Adds cell `at` of the trace's work, class by class, to ticks[SIM_WORK_CLASSES] (the send
 * guards' ticks, cost_summary's guard, not among the scalar ones). */
static void cost_class_add(const sim_trace *t, size_t at, double ticks[SIM_WORK_CLASSES])
{
    double rest = (t->work ? t->work[at] : 0) - (t->guard ? t->guard[at] : 0);
    for (int k = 0; k < SIM_WORK_CLASSES; k++) {
        if (k == SIM_WORK_SCALAR || !t->wclass[k]) continue;
        ticks[k] += t->wclass[k][at];
        rest -= t->wclass[k][at];
    }
    ticks[SIM_WORK_SCALAR] += rest;
}

/* 1 when step s has no message and no collective. */
static int cost_step_quiet(const sim_trace *t, int s)
{
    if (t->colls && t->ncolls && t->ncolls[s] > 0) return 0;
    for (int k = 0; t->msgs && t->nmsgs && t->msgs[s] && k < t->nmsgs[s]; k++)
        if (t->msgs[s][k].count > 0) return 0;
    return 1;
}

int cost_evaluate(const char *model, const sim_trace *t, const cost_profile *prof, cost_summary *out)
{
    const cost_model *m = cost_model_find(model);
    memset(out, 0, sizeof *out);
    if (!m) return -1;
    snprintf(out->model, sizeof out->model, "%s", m->name);
    int np = t->nprocs > 0 ? t->nprocs : 0, ns = t->nsteps > 0 ? t->nsteps : 0;
    out->nprocs = np;
    out->nsteps = ns;
    size_t npa = (size_t)(np ? np : 1), nsa = (size_t)(ns ? ns : 1);
    out->work = calloc(npa, sizeof *out->work);
    out->comm = calloc(npa, sizeof *out->comm);
    out->sends = calloc(npa, sizeof *out->sends);
    out->recvs = calloc(npa, sizeof *out->recvs);
    out->step_cost = calloc(nsa, sizeof *out->step_cost);
    if (t->overlap) out->overlap = calloc(npa, sizeof *out->overlap);
    double *buf = calloc(6 * npa, sizeof *buf);
    if (!out->work || !out->comm || !out->sends || !out->recvs || !out->step_cost || !buf ||
        (t->overlap && !out->overlap)) {
        free(buf);
        cost_summary_free(out);
        return -1;
    }
    cost_step cs = { buf, buf + npa, buf + 2 * npa, buf + 3 * npa, buf + 4 * npa, buf + 5 * npa };
    double total = 0, agg = 0;
    for (int s = 0; s < ns; s++) {
        cost_step_gather(t, s, prof, &cs);
        int quiet = prof->sync_on_messages && cost_step_quiet(t, s);
        double b = quiet ? 0 : cost_barrier(prof, t->step_procs ? t->step_procs[s] : np);
        double best = 0, wmax = 0, cmax = 0;
        for (int i = 0; i < np; i++) {
            size_t at = (size_t)s * (size_t)np + (size_t)i;
            double wi = cost_work(t, prof, at, i);
            if (t->guard) out->guard += t->guard[at];
            if (t->streams) out->streams += t->streams[at];
            if (t->restarts) out->restarts += t->restarts[at];
            if (t->cached) out->cached += t->cached[at];
            if (t->tile_reads) out->tile_reads += t->tile_reads[at];
            if (t->chains) out->chains += t->chains[at];
            if (t->entries) out->entries += t->entries[at];
            if (t->alias_checks) out->alias_checks += t->alias_checks[at];
            if (t->chained) out->chained += t->chained[at];
            cost_class_add(t, at, out->class_ticks);
            double ci = m->comm(prof, &cs, i, b);
            double busy = m->busy ? m->busy(prof, &cs, i) : 0;
            double hidden = m->superstep ? 0 : cost_hidden(t, s, i, ci, b + busy);
            if (ci - b - hidden > 0) out->commcost += ci - b - hidden;
            ci -= hidden;
            out->work[i] += wi;
            out->comm[i] += ci;
            if (out->overlap) out->overlap[i] += t->overlap[(size_t)s * (size_t)np + (size_t)i];
            out->sends[i] += (int64_t)cs.nsend[i];
            out->recvs[i] += (int64_t)cs.nrecv[i];
            agg += wi;
            if (wi + ci > best) best = wi + ci;
            if (wi > wmax) wmax = wi;
            if (ci > cmax) cmax = ci;
        }
        double ct = m->superstep ? wmax + cmax : best;
        out->step_work += wmax;
        double coll = 0;
        for (int k = 0; t->colls && t->ncolls && k < t->ncolls[s]; k++) coll += m->coll(prof, &t->colls[s][k]);
        if (coll > 0)
            for (int i = 0; i < np; i++) out->comm[i] += coll;
        ct += coll;
        out->collective += coll;
        out->step_cost[s] = ct;
        total += ct;
    }
    free(buf);
    out->total = total;
    out->seconds = total * prof->tick_seconds;
    out->aggregate_work = agg;
    return 0;
}

char *cost_profile_user_path(const char *name, int mkdirs)
{
    if (!name || !*name || strlen(name) >= sizeof ((cost_profile *)0)->name) return NULL;
    for (const char *c = name; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_') return NULL;
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    char base[4096];
    if (xdg && *xdg) snprintf(base, sizeof base, "%s", xdg);
    else if (home && *home) snprintf(base, sizeof base, "%s/.config", home);
    else return NULL;
    size_t n = strlen(base) + strlen(name) + 32;
    char *path = malloc(n);
    if (!path) return NULL;
    if (mkdirs) {
        mkdir(base, 0777);
        snprintf(path, n, "%s/polyapm", base);
        mkdir(path, 0777);
        snprintf(path, n, "%s/polyapm/machines", base);
        mkdir(path, 0777);
    }
    snprintf(path, n, "%s/polyapm/machines/%s", base, name);
    return path;
}
