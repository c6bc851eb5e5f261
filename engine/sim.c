/*
 * sim.c — the simulator's driver (see sim.h): evaluates parameters, lays out memories (one
 * shared set, or one per processor at syndm), fills inits, finds the step nest of a parallel
 * level, runs steps and processors, queues and delivers messages, records the trace, gathers
 * the outputs, and computes the checksum and the verification against a reference run.
 *
 * Compilation of the AST is in sim_compile.c, the interpreter in sim_exec.c.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "planes.h"
#include "sim_int.h"

#define SIM_MAX_BYTES (INT64_C(8) << 30)          /* all memories together */
#define SIM_MAX_TRACE (INT64_C(1) << 27)          /* nsteps * nprocs work entries */
#define SIM_STOP_AFTER 1000                       /* violations */
#define SIM_MAX_PENDING (INT64_C(1) << 24)        /* messages in flight */

/* ---- violations ----------------------------------------------------------------------------- */

static const char *const sim_kind_names[] = {
    [SIM_V_RACE] = "race",
    [SIM_V_WRONG_MESSAGE] = "wrong-message",
    [SIM_V_MISSING_MESSAGE] = "missing-message",
    [SIM_V_OUT_OF_BOUNDS] = "out-of-bounds",
    [SIM_V_UNDEFINED_READ] = "undefined-read",
    [SIM_V_OUTSIDE_LOCAL] = "outside-local",
    [SIM_V_DISAGREE] = "disagree",
    [SIM_V_BAD_MESSAGE] = "bad-message",
    [SIM_V_RUNTIME] = "runtime",
    [SIM_V_OUTPUT_MISMATCH] = "output-mismatch",
};

const char *sim_violation_kind_name(sim_violation_kind k)
{
    if ((int)k < 0 || (size_t)k >= sizeof sim_kind_names / sizeof sim_kind_names[0]) return "?";
    return sim_kind_names[k];
}

static void sim_result_violation(sim_result *r, int maxv, sim_violation_kind k, int line, int col,
                                 char *text)
{
    r->violations_total++;
    if (r->nviolations >= maxv || !text) { free(text); return; }
    sim_violation *v = realloc(r->violations, (size_t)(r->nviolations + 1) * sizeof *v);
    if (!v) { free(text); return; }
    r->violations = v;
    v[r->nviolations++] = (sim_violation){ k, line, col, text };
}

void sim_violation_add(sim_ctx *c, sim_violation_kind k, int line, int col, const char *fmt, ...)
{
    if (c->quiet) { c->quiet_errors++; return; }
    va_list ap;
    va_start(ap, fmt);
    char *text = NULL;
    if (vasprintf(&text, fmt, ap) < 0) text = NULL;
    va_end(ap);
    sim_result_violation(c->r, c->maxv, k, line, col, text);
    if (c->r->violations_total >= SIM_STOP_AFTER && !c->stop) {
        c->stop = 1;
        c->stopped_reason = 1;
    }
}

void sim_fmt_elem(const sim_ctx *c, int array, const int64_t *idx, int n, char *buf, size_t size)
{
    const char *name = c->prog->arrays[array]->u.array.name;
    size_t l = (size_t)snprintf(buf, size, "%s", name ? name : "?");
    for (int d = 0; d < n && l < size; d++)
        l += (size_t)snprintf(buf + l, size - l, "[%lld]", (long long)idx[d]);
}

void sim_fmt_where(const sim_ctx *c, char *buf, size_t size)
{
    const sim_stmt *s = c->cur;
    if (!s) { buf[0] = 0; return; }
    if (s->kind == SS_ASSIGN)
        snprintf(buf, size, " (statement %s at %d:%d)", s->label, s->line, s->col);
    else
        snprintf(buf, size, " (%s at %d:%d)", s->label, s->line, s->col);
}

int64_t sim_proc_value(const sim_ctx *c, int id) { return c->pmin + id; }

/* Shortest text that reads back as the same double. */
static void sim_fmt_val(double v, int is_double, char *buf, size_t size)
{
    if (!is_double) { int64_t i; memcpy(&i, &v, 8); snprintf(buf, size, "%lld", (long long)i); return; }
    for (int p = 15; p <= 17; p++) {
        snprintf(buf, size, "%.*g", p, v);
        if (strtod(buf, NULL) == v) return;
    }
}

static void sim_fmt_bits(uint64_t bits, int is_double, char *buf, size_t size)
{
    double v;
    memcpy(&v, &bits, 8);
    sim_fmt_val(v, is_double, buf, size);
}

static uint64_t sim_norm_bits(uint64_t b)
{
    return b == UINT64_C(0x8000000000000000) ? 0 : b;   /* -0.0 == 0.0 */
}

/* ---- memories ------------------------------------------------------------------------------- */

static void sim_mem_free(sim_mem *m)
{
    free(m->data);
    free(m->state);
    free(m->meta);
    free(m->held);
    free(m->ptag);
    free(m->ver);
    m->ptag = NULL;
    m->ver = NULL;
    m->data = NULL;
    m->state = NULL;
    m->meta = NULL;
    m->held = NULL;
}

/* The memory a run may use: 8 GiB, or 3/4 of the physical memory when that is less. */
static int64_t sim_max_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    int64_t lim = SIM_MAX_BYTES;
    if (pages > 0 && psize > 0) {
        int64_t phys = (int64_t)pages * (int64_t)psize / 4 * 3;
        if (phys < lim) lim = phys;
    }
    return lim;
}

/* Lays out and allocates one memory (with `held`: its map of held elements, all 0; with `fold`:
 * only the live planes of a dimension); `bytes` accumulates the total.  0 = ok. */
static int sim_mem_alloc(sim_ctx *c, sim_mem *m, const ir_decl *arr, const int64_t *lo,
                         const int64_t *hi, const int64_t *off, const int64_t *lat_s,
                         const int64_t *lat_b, int race, int held, const ir_planes *fold, int64_t *bytes)
{
    int nd = arr->u.array.ndims;
    m->ndims = nd;
    m->is_double = arr->u.array.elem == IR_DOUBLE;
    m->lat = m->lat_abs = 0;
    m->fold = fold && !lat_s && !held ? fold->dim : -1;
    m->fext = 0;
    m->recv_gone = 0;
    int64_t size = 1;
    for (int d = nd - 1; d >= 0; d--) {
        m->lo[d] = lo[d];
        m->off[d] = off ? off[d] : 0;
        m->lat_s[d] = lat_s ? lat_s[d] : 0;
        m->lat_b[d] = lat_s && lat_s[d] ? lat_b[d] : 1;
        m->lat |= m->lat_s[d] != 0;
        int64_t ext = hi[d] >= lo[d] ? (int64_t)((uint64_t)hi[d] - (uint64_t)lo[d] + 1) : 0;
        if (m->lat_s[d] && !off && ext > 0) {   /* the lattice points of lo .. hi */
            int64_t q = ext - 1, s = m->lat_s[d], b = m->lat_b[d];
            ext = (q / s) * b + (q % s + 1 < b ? q % s + 1 : b);
        }
        if (ext < 0 || ext > SIM_MAX_ELEMS) ext = SIM_MAX_ELEMS + 1;
        if (d == m->fold) {   /* the live planes, a power of two of them (indexed by a mask) */
            int64_t w = 1;
            while (w < fold->w) w *= 2;
            if (w < ext) { m->fext = ext; ext = w; }
            else m->fold = -1;
        }
        m->ext[d] = ext;
        m->stride[d] = size;
        if (ext != 0 && size > SIM_MAX_ELEMS / ext) size = SIM_MAX_ELEMS + 1;
        else size *= ext;
    }
    m->lat_abs = m->lat && !off;
    m->slow = m->lat_abs || m->fold >= 0;
    if (size > SIM_MAX_ELEMS) {
        diag_add(&c->r->diags, c->prog->file, arr->pos.line, arr->pos.col,
                 "array %s is too large to simulate (more than 2^31 elements)", arr->u.array.name);
        return -1;
    }
    m->size = size;
    *bytes += size * (9 + (race ? 16 : 0) + (held ? 1 : 0));
    if (*bytes > sim_max_bytes()) {
        diag_add(&c->r->diags, c->prog->file, arr->pos.line, arr->pos.col,
                 "the arrays need more than %lld MiB of simulator memory (at %s)",
                 (long long)(sim_max_bytes() >> 20), arr->u.array.name);
        return -1;
    }
    size_t n = (size_t)(size ? size : 1);
    m->data = malloc(n * 8);
    m->state = calloc(n, 1);
    if (held) m->held = calloc(n, 1);
    if (m->fold >= 0 && (m->ptag = malloc((size_t)(m->ext[m->fold] ? m->ext[m->fold] : 1) * sizeof *m->ptag)))
        for (int64_t k = 0; k < m->ext[m->fold]; k++) m->ptag[k] = INT64_MIN;
    if (race) {
        m->meta = malloc(n * 4 * sizeof *m->meta);
        if (m->meta) memset(m->meta, 0xff, n * 4 * sizeof *m->meta);   /* -1: never */
    }
    if (!m->data || !m->state || (race && !m->meta) || (held && !m->held) || (m->fold >= 0 && !m->ptag)) {
        diag_add(&c->r->diags, c->prog->file, arr->pos.line, arr->pos.col,
                 "out of memory for array %s", arr->u.array.name);
        return -1;
    }
    return 0;
}

void sim_plane_take(sim_mem *m, int64_t k, int64_t x)
{
    int d = m->fold;
    int64_t run = m->stride[d], period = run * m->ext[d];
    for (int64_t base = k * run; base < m->size; base += period) {
        for (int64_t i = 0; i < run; i++) m->recv_gone += m->state[base + i] == SIM_RECEIVED;
        memset(m->state + base, SIM_UNDEF, (size_t)run);
        if (m->ver) memset(m->ver + base, 0, (size_t)run * sizeof *m->ver);   /* a new element: version 0 */
        if (m->meta) memset(m->meta + 4 * base, 0xff, (size_t)run * 4 * sizeof *m->meta);
    }
    m->ptag[k] = x;
}

/* The elements memory m stands for (all planes of a folded dimension). */
static int64_t sim_mem_elems(const sim_mem *m)
{
    int64_t n = 1;
    for (int d = 0; d < m->ndims; d++) n *= sim_mem_span(m, d);
    return n;
}

/* Storage offset of global indices g (no lattice); a folded plane not held is taken over. */
static int64_t sim_mem_take_offset(sim_mem *m, const int64_t *g)
{
    int64_t off = 0;
    for (int d = 0; d < m->ndims; d++) {
        int64_t r = g[d] - m->off[d] - m->lo[d];
        if (sim_folded(m, d)) {
            r = sim_mem_slot(m, d, g[d]);
            if (m->ptag[r] != g[d]) sim_plane_take(m, r, g[d]);
        }
        off += r * m->stride[d];
    }
    return off;
}

/* ---- inits and outputs ---------------------------------------------------------------------- */

typedef struct sim_init {
    int array, nidx;
    int fixed[SIM_MAXDIMS];
    int64_t fixval[SIM_MAXDIMS];
    int slot[SIM_MAXDIMS];
    sim_node *value;
} sim_init;

typedef struct sim_out {
    int array, nfix;
    int64_t fix[SIM_MAXDIMS];
} sim_out;

static int sim_compile_init(sim_ctx *c, const ir_decl *d, sim_init *in)
{
    in->array = d->u.init.array_index;
    if (in->array < 0 || in->array >= c->prog->narrays) {
        diag_add(&c->r->diags, c->prog->file, d->pos.line, d->pos.col, "init of an unknown array");
        return -1;
    }
    const ir_decl *arr = c->prog->arrays[in->array];
    in->nidx = d->u.init.nidx;
    if (in->nidx != arr->u.array.ndims) {
        diag_add(&c->r->diags, c->prog->file, d->pos.line, d->pos.col,
                 "init needs one index per dimension of %s", arr->u.array.name);
        return -1;
    }
    for (int i = 0; i < in->nidx; i++) {
        const ir_expr *e = d->u.init.idx[i];
        if (e->kind == IR_E_NAME && e->u.name.nk == IR_N_INITVAR) {
            if (e->u.name.index < 0 || e->u.name.index >= c->prog->nslots) {
                diag_add(&c->r->diags, c->prog->file, e->pos.line, e->pos.col, "init variable without a slot");
                return -1;
            }
            in->fixed[i] = 0;
            in->slot[i] = e->u.name.index;
        } else {
            in->fixed[i] = 1;
            if (sim_const_int(c, e, &in->fixval[i]) != 0) {
                diag_add(&c->r->diags, c->prog->file, e->pos.line, e->pos.col,
                         "init index is not a constant");
                return -1;
            }
        }
    }
    in->value = sim_compile_expr(c, d->u.init.value,
                                 arr->u.array.elem == IR_DOUBLE ? IR_DOUBLE : IR_INT);
    return in->value ? 0 : -1;
}

/* Iterates the box glo..ghi (nd dims, all non-empty); returns 0 when done. */
static int sim_box_next(int nd, const int64_t *glo, const int64_t *ghi, int64_t *g)
{
    for (int d = nd - 1; d >= 0; d--) {
        if (g[d] < ghi[d]) { g[d]++; return 1; }
        g[d] = glo[d];
    }
    return 0;
}

/* The global box an init covers intersected with a memory's global range; 0 if empty. */
static int sim_init_box(const sim_init *in, const sim_mem *m, int64_t *glo, int64_t *ghi)
{
    for (int d = 0; d < in->nidx; d++) {
        if (m->ext[d] == 0) return 0;
        int64_t alo = m->lo[d] + m->off[d], ahi = m->lo[d] + sim_mem_span(m, d) - 1 + m->off[d];
        int64_t lo = in->fixed[d] ? in->fixval[d] : alo, hi = in->fixed[d] ? in->fixval[d] : ahi;
        if (lo < alo) lo = alo;
        if (hi > ahi) hi = ahi;
        if (lo > hi) return 0;
        glo[d] = lo;
        ghi[d] = hi;
    }
    return 1;
}

/* Array bounds (global) of each array, filled by sim_run. */

/* The next storage index vector r of m (row-major); 0 after the last. */
static int sim_storage_next(const sim_mem *m, int64_t *r)
{
    for (int d = m->ndims - 1; d >= 0; d--) {
        if (r[d] + 1 < m->ext[d]) { r[d]++; return 1; }
        r[d] = 0;
    }
    return 0;
}

/* Init values into a strided memory: element by element of its storage. */
static void sim_init_fill_lattice(sim_ctx *c, const sim_init *in, sim_mem *m, const sim_bounds *ab)
{
    int nd = in->nidx;
    int64_t r[SIM_MAXDIMS] = { 0 }, g[SIM_MAXDIMS];
    for (int d = 0; d < nd; d++) if (m->ext[d] == 0) return;
    c->cur = NULL;
    do {
        int ok = 1;
        for (int d = 0; d < nd && ok; d++) {
            g[d] = sim_mem_global(m, d, r[d]);
            ok = g[d] >= ab->lo[d] && g[d] <= ab->hi[d] && (!in->fixed[d] || g[d] == in->fixval[d]);
        }
        for (int d = 0; d < nd && ok; d++) {
            if (in->fixed[d]) continue;
            for (int e = 0; e < d; e++)
                if (!in->fixed[e] && in->slot[e] == in->slot[d] && g[e] != g[d]) ok = 0;
            c->fi[in->slot[d]] = g[d];
        }
        if (!ok) continue;
        int64_t off = 0;
        for (int d = 0; d < nd; d++) off += r[d] * m->stride[d];
        if (m->held && !m->held[off]) continue;
        if (m->is_double) ((double *)m->data)[off] = sim_eval_d(c, in->value);
        else ((int64_t *)m->data)[off] = sim_eval_i(c, in->value);
        m->state[off] = SIM_INIT;
        if (c->stop) return;
    } while (sim_storage_next(m, r));
}

static void sim_init_fill(sim_ctx *c, const sim_init *in, sim_mem *m, const sim_bounds *ab)
{
    int nd = in->nidx;
    int64_t glo[SIM_MAXDIMS], ghi[SIM_MAXDIMS], g[SIM_MAXDIMS];
    if (m->lat) { sim_init_fill_lattice(c, in, m, ab); return; }
    if (!sim_init_box(in, m, glo, ghi)) return;
    for (int d = 0; d < nd; d++) {       /* within the array's global bounds */
        if (glo[d] < ab->lo[d]) glo[d] = ab->lo[d];
        if (ghi[d] > ab->hi[d]) ghi[d] = ab->hi[d];
        if (glo[d] > ghi[d]) return;
    }
    for (int d = 0; d < nd; d++) g[d] = glo[d];
    c->cur = NULL;
    do {
        int ok = 1;
        for (int d = 0; d < nd; d++) {
            if (in->fixed[d]) continue;
            for (int e = 0; e < d; e++)
                if (!in->fixed[e] && in->slot[e] == in->slot[d] && g[e] != g[d]) ok = 0;
            c->fi[in->slot[d]] = g[d];
        }
        if (!ok) continue;
        int64_t off = sim_mem_take_offset(m, g);
        if (m->held && !m->held[off]) continue;   /* outside the pieces: never readable */
        if (m->is_double) ((double *)m->data)[off] = sim_eval_d(c, in->value);
        else ((int64_t *)m->data)[off] = sim_eval_i(c, in->value);
        m->state[off] = SIM_INIT;
        if (c->stop) return;
    } while (sim_box_next(nd, glo, ghi, g));
}

/* ---- messages ------------------------------------------------------------------------------- */

void sim_message_add(sim_ctx *c, const sim_msg *m)
{
    if (c->npend >= SIM_MAX_PENDING) {
        sim_violation_add(c, SIM_V_RUNTIME, m->st ? m->st->line : 0, m->st ? m->st->col : 0,
                          "runtime error: more than %lld messages in flight at t=%lld; stopping",
                          (long long)SIM_MAX_PENDING, (long long)c->tval);
        c->stop = 1;
        return;
    }
    if (c->npend == c->cappend) {
        int64_t cap = c->cappend ? c->cappend * 2 : 1024;
        sim_msg *p = realloc(c->pend, (size_t)cap * sizeof *p);
        if (!p) {
            sim_violation_add(c, SIM_V_RUNTIME, 0, 0, "runtime error: out of memory for messages");
            c->stop = 1;
            return;
        }
        c->pend = p;
        c->cappend = cap;
    }
    c->pend[c->npend++] = *m;
}

static void sim_msg_violation(sim_ctx *c, const sim_msg *g, sim_violation_kind k, const char *what,
                              const char *detail)
{
    char el[256];
    sim_fmt_elem(c, g->array, g->idx, g->nidx, el, sizeof el);
    sim_violation_add(c, k, g->st ? g->st->line : 0, g->st ? g->st->col : 0,
                      "%s: processor %lld \u2192 %lld sent at t=%lld for t=%lld: %s%s (send at %d:%d)",
                      what, (long long)sim_proc_value(c, g->src), (long long)sim_proc_value(c, g->dst),
                      (long long)g->tsend, (long long)g->tdst, el, detail,
                      g->st ? g->st->line : 0, g->st ? g->st->col : 0);
}

/* Delivery into a memory with versions (sim_version.c).  At syndm the message replaces the
 * receiver's copy: it must carry the element it is delivered into, and a value no older than
 * the copy it replaces.  At syncomm (one shared memory) a message of the value memory holds must
 * agree with it; one of an older value is out of date and harmless there. */
static void sim_deliver_version(sim_ctx *c, const sim_msg *g, sim_mem *m, int64_t off)
{
    char a[64], b[64], el[256], detail[400];
    uint64_t have;
    memcpy(&have, (char *)m->data + 8 * off, 8);
    sim_fmt_bits(g->bits, m->is_double, a, sizeof a);
    if (m->shadow) {
        int64_t goff = sim_version_goff(m, g->idx);
        if (g->gsrc >= 0 && goff >= 0 && g->gsrc != goff) {
            sim_version_fmt(c, g->array, g->gsrc, el, sizeof el);
            snprintf(detail, sizeof detail, " = %s, the value of %s", a, el);
            sim_msg_violation(c, g, SIM_V_WRONG_MESSAGE, "wrong message", detail);
            return;
        }
        if (m->state[off] != SIM_UNDEF && g->ver < m->ver[off]) {
            sim_fmt_bits(have, m->is_double, b, sizeof b);
            snprintf(detail, sizeof detail, " = %s replaces %s, a newer value", a, b);
            sim_msg_violation(c, g, SIM_V_WRONG_MESSAGE, "wrong message", detail);
            return;
        }
        int64_t gi[SIM_MAXDIMS];
        if (m->shadow->all_newest && sim_version_global(m, g->idx, gi) == 0 && g->ver != sim_version_newest(m->shadow, gi))
            m->shadow->all_newest = 0;   /* a copy not of the newest version: reads check again */
        memcpy((char *)m->data + 8 * off, &g->bits, 8);
        m->ver[off] = g->ver;
        m->state[off] = SIM_RECEIVED;
        return;
    }
    if (m->state[off] == SIM_UNDEF) {
        snprintf(detail, sizeof detail, " = %s, memory has no value", a);
    } else {
        if (g->ver != m->ver[off] || sim_norm_bits(have) == sim_norm_bits(g->bits)) return;
        sim_fmt_bits(have, m->is_double, b, sizeof b);
        snprintf(detail, sizeof detail, " = %s, memory holds %s", a, b);
    }
    sim_msg_violation(c, g, SIM_V_WRONG_MESSAGE, "wrong message", detail);
}

static void sim_deliver_one(sim_ctx *c, const sim_msg *g)
{
    sim_mem *m = c->level == IR_SYNDM ? &c->allmem[(size_t)g->dst * (size_t)c->narrays + (size_t)g->array]
                                      : &c->allmem[g->array];
    int64_t off = 0, plane = -1;
    for (int d = 0; d < g->nidx; d++) {
        int64_t r = sim_mem_slot(m, d, g->idx[d]);
        if (r < 0) {
            if (c->level == IR_SYNDM)
                sim_msg_violation(c, g, SIM_V_OUTSIDE_LOCAL, "outside local memory",
                                  ", outside the receiver's part");
            else
                sim_msg_violation(c, g, SIM_V_BAD_MESSAGE, "bad message", ", outside the array");
            return;
        }
        if (sim_folded(m, d)) plane = r;
        off += r * m->stride[d];
    }
    if (plane >= 0 && m->ptag[plane] != g->idx[m->fold])   /* within bounds: the plane is taken over */
        sim_plane_take(m, plane, g->idx[m->fold]);
    if (m->held && !m->held[off]) {
        sim_msg_violation(c, g, SIM_V_OUTSIDE_LOCAL, "outside local memory", ", outside the receiver's part");
        return;
    }
    if (m->ver) { sim_deliver_version(c, g, m, off); return; }
    uint64_t have;
    memcpy(&have, (char *)m->data + 8 * off, 8);
    char a[64], b[64], detail[160];
    if (m->state[off] != SIM_UNDEF && sim_norm_bits(have) == sim_norm_bits(g->bits)) return;
    if (m->state[off] == SIM_UNDEF) {
        if (c->level == IR_SYNDM) {
            memcpy((char *)m->data + 8 * off, &g->bits, 8);
            m->state[off] = SIM_RECEIVED;
            return;
        }
        sim_fmt_bits(g->bits, m->is_double, a, sizeof a);
        snprintf(detail, sizeof detail, " = %s, memory has no value", a);
    } else {
        sim_fmt_bits(g->bits, m->is_double, a, sizeof a);
        sim_fmt_bits(have, m->is_double, b, sizeof b);
        snprintf(detail, sizeof detail, " = %s, memory holds %s", a, b);
    }
    sim_msg_violation(c, g, SIM_V_WRONG_MESSAGE, "wrong message", detail);
}

/* By sender, receiver, then array (sim_deliver has `arrays` hold each message's array). */
static int sim_pair_cmp(const void *x, const void *y)
{
    const sim_msgs *a = x, *b = y;
    if (a->src != b->src) return a->src < b->src ? -1 : 1;
    if (a->dst != b->dst) return a->dst < b->dst ? -1 : 1;
    if (a->arrays != b->arrays) return a->arrays < b->arrays ? -1 : 1;
    return 0;
}

/* Delivers the pending messages due before time `next` (all when `all`), charged to step s. */
static void sim_deliver(sim_ctx *c, int s, int64_t next, int all)
{
    sim_trace *t = &c->r->trace;
    int64_t keep = 0, nd = 0;
    sim_msgs *pairs = NULL;
    for (int64_t i = 0; i < c->npend; i++) {
        sim_msg *g = &c->pend[i];
        if (!all && g->tdst > next) { c->pend[keep++] = *g; continue; }
        sim_deliver_one(c, g);
        if (!pairs) pairs = malloc((size_t)(c->npend - i) * sizeof *pairs);
        if (pairs) pairs[nd++] = (sim_msgs){ g->src, g->dst, 1, 1.0, g->array };
    }
    c->npend = keep;
    if (!pairs) return;
    qsort(pairs, (size_t)nd, sizeof *pairs, sim_pair_cmp);
    int64_t m = 0;
    int last = -1;                       /* the array of the message before i */
    for (int64_t i = 0; i < nd; i++) {   /* one record a pair; `arrays` from array numbers to a count */
        int a = pairs[i].arrays;
        if (m > 0 && pairs[m - 1].src == pairs[i].src && pairs[m - 1].dst == pairs[i].dst) {
            pairs[m - 1].count++;
            pairs[m - 1].words += 1.0;
            pairs[m - 1].arrays += a != last;
        } else {
            pairs[m] = pairs[i];
            pairs[m++].arrays = 1;
        }
        last = a;
    }
    sim_msgs *shrunk = realloc(pairs, (size_t)m * sizeof *pairs);
    t->msgs[s] = shrunk ? shrunk : pairs;
    t->nmsgs[s] = (int)m;
}

/* ---- outputs -------------------------------------------------------------------------------- */

/* Moves an output region out of a shared memory (its last use): values and states become the
 * output's arrays in place, so gathering needs no second copy of the data. */
static void sim_output_steal(sim_output *o, const sim_out *so, sim_mem *m)
{
    int64_t off = 0;
    int held = 1;
    for (int d = 0; d < so->nfix; d++) {
        int64_t r = so->fix[d] - m->lo[d];
        if (sim_folded(m, d)) {
            r = sim_mem_slot(m, d, so->fix[d]);
            held = m->ptag[r] == so->fix[d];
        }
        off += r * m->stride[d];
    }
    size_t n = (size_t)o->size;
    char *data = m->data;
    unsigned char *st = m->state;
    if (!held) memset(st + off, SIM_UNDEF, n);
    if (off && n) {
        memmove(data, data + 8 * off, 8 * n);
        memmove(st, st + off, n);
    }
    for (size_t k = 0; k < n; k++) {
        double v = 0;
        if (st[k] == SIM_UNDEF) {
            memcpy(data + 8 * k, &v, 8);
        } else if (!m->is_double) {
            int64_t iv;
            memcpy(&iv, data + 8 * k, 8);
            v = (double)iv;
            memcpy(data + 8 * k, &v, 8);
        }
        st[k] = st[k] != SIM_UNDEF;
    }
    if (n) {
        char *d2 = realloc(data, 8 * n);
        unsigned char *s2 = realloc(st, n);
        if (d2) data = d2;
        if (s2) st = s2;
    }
    o->values = (double *)(void *)data;
    o->defined = st;
    m->data = NULL;
    m->state = NULL;
}

static int sim_output_alloc(sim_ctx *c, sim_output *o, const ir_decl *d, const sim_out *so,
                            const sim_bounds *ab, sim_mem *steal)
{
    const ir_decl *arr = c->prog->arrays[so->array];
    o->name = strdup(arr->u.array.name ? arr->u.array.name : "?");
    o->ndims = arr->u.array.ndims - so->nfix;
    int64_t size = 1;
    for (int k = 0; k < o->ndims; k++) {
        o->lo[k] = ab->lo[so->nfix + k];
        o->hi[k] = ab->hi[so->nfix + k];
        int64_t ext = o->hi[k] >= o->lo[k] ? o->hi[k] - o->lo[k] + 1 : 0;
        size *= ext;
    }
    o->size = size;
    for (int k = 0; k < so->nfix; k++)
        if (so->fix[k] < ab->lo[k] || so->fix[k] > ab->hi[k]) {
            diag_add(&c->r->diags, c->prog->file, d->pos.line, d->pos.col,
                     "output index %lld is outside %s's bounds", (long long)so->fix[k],
                     o->name ? o->name : "?");
            return -1;
        }
    if (steal && steal->data && steal->state && size > 0) {
        sim_output_steal(o, so, steal);
    } else {
        o->values = calloc((size_t)(size ? size : 1), sizeof *o->values);
        o->defined = calloc((size_t)(size ? size : 1), 1);
    }
    if (!o->name || !o->values || !o->defined) {
        diag_add(&c->r->diags, c->prog->file, d->pos.line, d->pos.col, "out of memory for outputs");
        return -1;
    }
    return 0;
}

/* Row-major index within the output region of global indices g (full array dims). */
static int64_t sim_out_index(const sim_output *o, const sim_out *so, const int64_t *g)
{
    int64_t idx = 0;
    for (int k = 0; k < o->ndims; k++) {
        int64_t ext = o->hi[k] - o->lo[k] + 1;
        idx = idx * ext + (g[so->nfix + k] - o->lo[k]);
    }
    return idx;
}

/* syndm, an array with versions: every element of the output region that was written must have
 * been taken from a copy of its newest value (sim_gather_mem); one no processor holds is
 * reported, and left undefined rather than given its init value (seen = -1). */
static void sim_gather_lost(sim_ctx *c, const sim_output *o, const sim_out *so, const sim_shadow *sh,
                            int32_t *seen)
{
    int nd = sh->ndims;
    int64_t glo[SIM_MAXDIMS], ghi[SIM_MAXDIMS], g[SIM_MAXDIMS];
    for (int d = 0; d < nd; d++) {
        glo[d] = ghi[d] = d < so->nfix ? so->fix[d] : o->lo[d - so->nfix];
        if (d >= so->nfix) ghi[d] = o->hi[d - so->nfix];
        if (glo[d] > ghi[d]) return;
        g[d] = glo[d];
    }
    do {
        int64_t k = sim_out_index(o, so, g);
        if (seen[k] || sim_version_newest(sh, g) == 0) continue;
        seen[k] = -1;
        char el[256];
        sim_fmt_elem(c, so->array, g, nd, el, sizeof el);
        sim_violation_add(c, SIM_V_DISAGREE, 0, 0,
                          "lost value: no processor holds the newest value of %s (its copies were "
                          "replaced by older ones)", el);
    } while (sim_box_next(nd, glo, ghi, g));
}

/* Copies a memory's elements in the output region (global box) into o; `only_computed` for
 * syndm (then `seen` flags elements already taken from another processor). */
static void sim_gather_mem(sim_ctx *c, sim_output *o, const sim_out *so, const sim_mem *m,
                           int only_computed, int32_t *seen, int proc)
{
    int nd = m->ndims;
    int64_t glo[SIM_MAXDIMS], ghi[SIM_MAXDIMS], g[SIM_MAXDIMS], r[SIM_MAXDIMS] = { 0 };
    for (int d = 0; d < nd; d++) {
        int64_t lo = m->lo[d] + m->off[d], hi = lo + sim_mem_span(m, d) - 1;
        if (m->ext[d] == 0) return;
        if (m->lat) {   /* a strided memory: element by element of its storage */
            lo = INT64_MIN;
            hi = INT64_MAX;
        }
        int64_t rlo = d < so->nfix ? so->fix[d] : o->lo[d - so->nfix];
        int64_t rhi = d < so->nfix ? so->fix[d] : o->hi[d - so->nfix];
        if (lo < rlo) lo = rlo;
        if (hi > rhi) hi = rhi;
        if (lo > hi) return;
        glo[d] = g[d] = lo;
        ghi[d] = hi;
        if (sim_folded(m, d))   /* one plane (the output names it): is it held? */
            for (int64_t x = lo; x <= hi; x++)
                if (m->ptag[sim_mem_slot(m, d, x)] != x) return;
    }
    do {
        int64_t off = 0;
        if (m->lat) {
            int in = 1;
            for (int d = 0; d < nd; d++) {
                g[d] = sim_mem_global(m, d, r[d]);
                in &= g[d] >= glo[d] && g[d] <= ghi[d];
                off += r[d] * m->stride[d];
            }
            if (!in) continue;
        } else {
            for (int d = 0; d < nd; d++)
                off += (sim_folded(m, d) ? sim_mem_slot(m, d, g[d]) : g[d] - m->off[d] - m->lo[d]) * m->stride[d];
        }
        unsigned char st = m->state[off];
        if (st == SIM_UNDEF) continue;
        if (only_computed && m->shadow) {   /* copies of the newest value; init values later */
            uint32_t newest = sim_version_newest(m->shadow, g);
            if (newest == 0 || m->ver[off] != newest) continue;
        } else if (only_computed && st != SIM_COMPUTED) {
            continue;
        }
        double v = m->is_double ? ((const double *)m->data)[off]
                                : (double)((const int64_t *)m->data)[off];
        int64_t k = sim_out_index(o, so, g);
        if (only_computed) {
            if (seen[k]) {
                uint64_t a, b;
                memcpy(&a, &v, 8);
                memcpy(&b, &o->values[k], 8);
                if (sim_norm_bits(a) != sim_norm_bits(b)) {
                    char el[256], x[64], y[64];
                    sim_fmt_elem(c, so->array, g, nd, el, sizeof el);
                    sim_fmt_val(o->values[k], 1, x, sizeof x);
                    sim_fmt_val(v, 1, y, sizeof y);
                    sim_violation_add(c, SIM_V_DISAGREE, 0, 0,
                                      "disagree: processors %lld and %lld computed different values "
                                      "for %s: %s and %s", (long long)sim_proc_value(c, seen[k] - 1),
                                      (long long)sim_proc_value(c, proc), el, x, y);
                }
                continue;
            }
            seen[k] = proc + 1;
        }
        o->values[k] = v;
        o->defined[k] = 1;
    } while (m->lat ? sim_storage_next(m, r) : sim_box_next(nd, glo, ghi, g));
}

/* Init values of the region in global coordinates (syndm: elements nobody computed). */
static void sim_gather_init(sim_ctx *c, sim_output *o, const sim_out *so, const sim_init *inits,
                            int ninits, const sim_bounds *ab, const int32_t *seen)
{
    const ir_decl *arr = c->prog->arrays[so->array];
    sim_mem m;
    memset(&m, 0, sizeof m);
    m.ndims = arr->u.array.ndims;
    m.is_double = 1;
    for (int i = 0; i < ninits; i++) {
        const sim_init *in = &inits[i];
        if (in->array != so->array) continue;
        int nd = m.ndims;
        int64_t glo[SIM_MAXDIMS], ghi[SIM_MAXDIMS], g[SIM_MAXDIMS];
        int empty = 0;
        for (int d = 0; d < nd; d++) {
            int64_t lo = d < so->nfix ? so->fix[d] : ab->lo[d];
            int64_t hi = d < so->nfix ? so->fix[d] : ab->hi[d];
            if (in->fixed[d]) {
                if (in->fixval[d] < lo || in->fixval[d] > hi) empty = 1;
                lo = hi = in->fixval[d];
            }
            if (lo > hi) empty = 1;
            glo[d] = g[d] = lo;
            ghi[d] = hi;
        }
        if (empty) continue;
        int is_d = arr->u.array.elem == IR_DOUBLE;
        do {
            int ok = 1;
            for (int d = 0; d < nd; d++) {
                if (in->fixed[d]) continue;
                for (int e = 0; e < d; e++)
                    if (!in->fixed[e] && in->slot[e] == in->slot[d] && g[e] != g[d]) ok = 0;
                c->fi[in->slot[d]] = g[d];
            }
            if (!ok) continue;
            int64_t k = sim_out_index(o, so, g);
            if (seen[k]) continue;
            o->values[k] = is_d ? sim_eval_d(c, in->value) : (double)sim_eval_i(c, in->value);
            o->defined[k] = 1;
        } while (sim_box_next(nd, glo, ghi, g));
    }
}

/* ---- checksum and verification -------------------------------------------------------------- */

uint64_t sim_checksum(const sim_output *outs, int n)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (int i = 0; i < n; i++) {
        const sim_output *o = &outs[i];
        for (int64_t k = 0; k < o->size; k++) {
            uint64_t b;
            if (o->defined[k]) {
                double v = o->values[k];
                if (v == 0) v = 0.0;
                memcpy(&b, &v, 8);
            } else {
                b = UINT64_C(0x7ff8dead);
            }
            for (int j = 0; j < 8; j++) {
                h ^= (b >> (8 * j)) & 0xff;
                h *= UINT64_C(0x100000001b3);
            }
        }
    }
    return h;
}

static void sim_verify_fail(sim_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void sim_verify_fail(sim_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = NULL;
    if (vasprintf(&text, fmt, ap) < 0) text = NULL;
    va_end(ap);
    sim_result_violation(r, r->nviolations + 1, SIM_V_OUTPUT_MISMATCH, 0, 0, text);
}

int sim_verify(sim_result *r, const sim_result *ref)
{
    if (r->noutputs != ref->noutputs) {
        sim_verify_fail(r, "output mismatch: %d outputs here, %d in the reference", r->noutputs,
                        ref->noutputs);
        return 0;
    }
    for (int i = 0; i < r->noutputs; i++) {
        const sim_output *a = &r->outputs[i], *b = &ref->outputs[i];
        int same = strcmp(a->name, b->name) == 0 && a->ndims == b->ndims && a->size == b->size;
        for (int k = 0; same && k < a->ndims; k++) same = a->lo[k] == b->lo[k] && a->hi[k] == b->hi[k];
        if (!same) {
            sim_verify_fail(r, "output mismatch: output %d is %s with %d dimensions here, %s with %d "
                            "in the reference (or their bounds differ)", i + 1, a->name, a->ndims,
                            b->name, b->ndims);
            return 0;
        }
        for (int64_t k = 0; k < a->size; k++) {
            uint64_t x, y;
            memcpy(&x, &a->values[k], 8);
            memcpy(&y, &b->values[k], 8);
            if (a->defined[k] == b->defined[k] && (!a->defined[k] || sim_norm_bits(x) == sim_norm_bits(y)))
                continue;
            char el[256], vx[64], vy[64];
            size_t l = (size_t)snprintf(el, sizeof el, "%s", a->name);
            int64_t rem = k;
            int64_t idx[8];
            for (int d = a->ndims - 1; d >= 0; d--) {
                int64_t ext = a->hi[d] - a->lo[d] + 1;
                idx[d] = a->lo[d] + rem % ext;
                rem /= ext;
            }
            for (int d = 0; d < a->ndims && l < sizeof el; d++)
                l += (size_t)snprintf(el + l, sizeof el - l, "[%lld]", (long long)idx[d]);
            if (a->defined[k]) sim_fmt_val(a->values[k], 1, vx, sizeof vx);
            else snprintf(vx, sizeof vx, "no value");
            if (b->defined[k]) sim_fmt_val(b->values[k], 1, vy, sizeof vy);
            else snprintf(vy, sizeof vy, "no value");
            sim_verify_fail(r, "output mismatch: %s is %s here, %s in the reference", el, vx, vy);
            return 0;
        }
    }
    return 1;
}

/* ---- result --------------------------------------------------------------------------------- */

void sim_result_free(sim_result *r)
{
    if (!r) return;
    free(r->params);
    free(r->local_elems);
    free(r->recv_elems);
    sim_trace *t = &r->trace;
    if (t->msgs)
        for (int s = 0; s < t->nsteps; s++) free(t->msgs[s]);
    free(t->msgs);
    free(t->nmsgs);
    if (t->colls)
        for (int s = 0; s < t->nsteps; s++) free(t->colls[s]);
    free(t->colls);
    free(t->ncolls);
    free(t->work);
    free(t->overlap);
    free(t->guard);
    for (int k = 0; k < SIM_WORK_CLASSES; k++) free(t->wclass[k]);
    free(t->streams);
    free(t->restarts);
    free(t->data_bytes);
    free(t->step_time);
    free(t->step_procs);
    for (int i = 0; i < r->nviolations; i++) free(r->violations[i].text);
    free(r->violations);
    for (int i = 0; i < r->noutputs; i++) {
        free(r->outputs[i].name);
        free(r->outputs[i].values);
        free(r->outputs[i].defined);
    }
    free(r->outputs);
    diag_list_free(&r->diags);
    free(r);
}

static int sim_trace_alloc(sim_ctx *c, int nsteps, int nprocs)
{
    sim_trace *t = &c->r->trace;
    if ((int64_t)nsteps * (int64_t)nprocs > SIM_MAX_TRACE) {
        diag_add(&c->r->diags, c->prog->file, 0, 0,
                 "the trace would need %lld steps x %d processors; too large to simulate",
                 (long long)nsteps, nprocs);
        return -1;
    }
    t->nsteps = nsteps;
    t->nprocs = nprocs;
    t->aggregated = c->prog->aggregate;
    size_t ns = (size_t)(nsteps ? nsteps : 1);
    t->step_time = calloc(ns, sizeof *t->step_time);
    t->step_procs = calloc(ns, sizeof *t->step_procs);
    t->work = calloc(ns * (size_t)(nprocs ? nprocs : 1), sizeof *t->work);
    t->msgs = calloc(ns, sizeof *t->msgs);
    t->nmsgs = calloc(ns, sizeof *t->nmsgs);
    t->colls = calloc(ns, sizeof *t->colls);
    t->ncolls = calloc(ns, sizeof *t->ncolls);
    if (!t->step_time || !t->step_procs || !t->work || !t->msgs || !t->nmsgs || !t->colls || !t->ncolls) {
        diag_add(&c->r->diags, c->prog->file, 0, 0, "out of memory for the trace");
        return -1;
    }
    return 0;
}

/* syndm: array a's memory on every processor from a pieced dist: the hull box of the pieces
 * with the map of the elements they hold; its local memory is the pieces' element count. */
static int sim_layout_pieced(sim_ctx *c, const ir_decl *dd, const ir_decl *arr, int a, int64_t *bytes)
{
    sim_pieces *ps = sim_pieces_compile(c, dd, arr);
    if (!ps) return -1;
    for (int q = 0; q < c->nprocs && !c->stop; q++) {
        int64_t lo[SIM_MAXDIMS], hi[SIM_MAXDIMS], n;
        sim_mem *mem = &c->allmem[(size_t)q * (size_t)c->prog->narrays + (size_t)a];
        if (sim_pieces_eval(c, ps, c->pmin + q, lo, hi, &n, NULL) != 0
            || sim_mem_alloc(c, mem, arr, lo, hi, NULL, NULL, NULL, 0, 1, NULL, bytes) != 0
            || sim_pieces_eval(c, ps, c->pmin + q, lo, hi, &n, mem) != 0)
            return -1;
        c->r->local_elems[q] += n;
    }
    return 0;
}

/* syndm: one memory per processor, laid out by the dist declarations (dists[a] per array),
 * then filled by the inits.  0 = ok; otherwise diagnostics. */
static int sim_layout_syndm(sim_ctx *c, const ir_decl **dists, const sim_bounds *ab, const ir_planes *folds,
                            const sim_init *inits, int ninits, int64_t *bytes_io)
{
    int64_t bytes = *bytes_io;
    c->nmem = c->nprocs;
    size_t na = (size_t)(c->prog->narrays ? c->prog->narrays : 1);
    c->allmem = calloc((size_t)c->nprocs * na, sizeof *c->allmem);
    c->r->local_elems = calloc((size_t)c->nprocs + 1, sizeof *c->r->local_elems);
    if (!c->allmem || !c->r->local_elems) return -1;
    c->r->full_elems = 0;
    for (int a = 0; a < c->prog->narrays; a++) {
        int64_t n = 1;
        for (int k = 0; k < c->prog->arrays[a]->u.array.ndims; k++)
            n *= ab[a].hi[k] >= ab[a].lo[k] ? ab[a].hi[k] - ab[a].lo[k] + 1 : 0;
        c->r->full_elems += n;
    }
    for (int a = 0; a < c->prog->narrays; a++) {
        const ir_decl *dd = dists[a], *arr = c->prog->arrays[a];
        if (!dd) {
            diag_add(&c->r->diags, c->prog->file, arr->pos.line, arr->pos.col,
                     "array %s has no dist declaration (every array needs one at syndm)",
                     arr->u.array.name);
            return -1;
        }
        int nd = arr->u.array.ndims;
        if (ir_dist_is_pieced(dd)) {
            if (sim_layout_pieced(c, dd, arr, a, &bytes) != 0) return -1;
            continue;
        }
        sim_node *lo[SIM_MAXDIMS] = { 0 }, *hi[SIM_MAXDIMS] = { 0 }, *of[SIM_MAXDIMS] = { 0 };
        sim_node *ls[SIM_MAXDIMS] = { 0 }, *lb[SIM_MAXDIMS] = { 0 };
        int local = dd->u.dist.dk == IR_DIST_LOCAL;
        if (local) {
            if (dd->u.dist.ndims != nd || dd->u.dist.slot < 0 || dd->u.dist.slot >= c->prog->nslots) {
                diag_add(&c->r->diags, c->prog->file, dd->pos.line, dd->pos.col,
                         "dist %s needs one range per dimension", arr->u.array.name);
                return -1;
            }
            for (int k = 0; k < nd; k++) {
                lo[k] = sim_compile_expr(c, dd->u.dist.lo[k], IR_INT);
                hi[k] = sim_compile_expr(c, dd->u.dist.hi[k], IR_INT);
                of[k] = dd->u.dist.offset ? sim_compile_expr(c, dd->u.dist.offset[k], IR_INT) : NULL;
                if (!lo[k] || !hi[k] || (dd->u.dist.offset && !of[k])) return -1;
                if (dd->u.dist.step && dd->u.dist.step[k]) {
                    ls[k] = sim_compile_expr(c, dd->u.dist.step[k], IR_INT);
                    lb[k] = dd->u.dist.block[k] ? sim_compile_expr(c, dd->u.dist.block[k], IR_INT) : NULL;
                    if (!ls[k] || (dd->u.dist.block[k] && !lb[k])) return -1;
                }
            }
        }
        for (int q = 0; q < c->nprocs; q++) {
            int64_t l[SIM_MAXDIMS], h[SIM_MAXDIMS], o[SIM_MAXDIMS], st[SIM_MAXDIMS] = { 0 }, bl[SIM_MAXDIMS];
            int strided = 0;
            if (local) {
                c->fi[dd->u.dist.slot] = c->pmin + q;
                c->quiet++;
                c->quiet_errors = 0;
                for (int k = 0; k < nd; k++) {
                    l[k] = sim_eval_i(c, lo[k]);
                    h[k] = sim_eval_i(c, hi[k]);
                    o[k] = of[k] ? sim_eval_i(c, of[k]) : 0;
                    st[k] = ls[k] ? sim_eval_i(c, ls[k]) : 0;
                    bl[k] = lb[k] ? sim_eval_i(c, lb[k]) : 1;
                    strided |= ls[k] != NULL;
                }
                c->quiet--;
                if (c->quiet_errors || c->stop) {
                    diag_add(&c->r->diags, c->prog->file, dd->pos.line, dd->pos.col,
                             "the dist bounds of %s do not evaluate for processor %lld",
                             arr->u.array.name, (long long)(c->pmin + q));
                    return -1;
                }
                for (int k = 0; k < nd; k++)
                    if (ls[k] && (st[k] < 1 || bl[k] < 1 || bl[k] > st[k])) {
                        diag_add(&c->r->diags, c->prog->file, dd->pos.line, dd->pos.col,
                                 "the dist of %s for processor %lld: step %lld block %lld (need "
                                 "1 <= block <= step)", arr->u.array.name, (long long)(c->pmin + q),
                                 (long long)st[k], (long long)bl[k]);
                        return -1;
                    }
            } else {
                for (int k = 0; k < nd; k++) { l[k] = ab[a].lo[k]; h[k] = ab[a].hi[k]; o[k] = 0; }
            }
            sim_mem *mem = &c->allmem[(size_t)q * (size_t)c->prog->narrays + (size_t)a];
            if (sim_mem_alloc(c, mem, arr, l, h, dd->u.dist.offset ? o : NULL, strided ? st : NULL, bl, 0,
                              0, folds && folds[a].w ? &folds[a] : NULL, &bytes) != 0)
                return -1;
            c->r->local_elems[q] += sim_mem_elems(mem);
        }
    }
    for (int q = 0; q < c->nprocs && !c->stop; q++)
        for (int i = 0; i < ninits && !c->stop; i++)
            sim_init_fill(c, &inits[i],
                          &c->allmem[(size_t)q * (size_t)c->prog->narrays + (size_t)inits[i].array],
                          &ab[inits[i].array]);
    *bytes_io = bytes;
    return 0;
}

/* ---- the run -------------------------------------------------------------------------------- */

static double sim_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct sim_range { int64_t lo; uint64_t cnt; int64_t step; } sim_range;

static int sim_eval_range(sim_ctx *c, sim_node *lo, sim_node *hi, sim_node *st, sim_range *r)
{
    r->lo = sim_eval_i(c, lo);
    int64_t h = sim_eval_i(c, hi);
    r->step = st ? sim_eval_i(c, st) : 1;
    if (r->step <= 0) return -1;
    r->cnt = h < r->lo ? 0 : ((uint64_t)h - (uint64_t)r->lo) / (uint64_t)r->step + 1;
    return 0;
}

static void sim_progress(sim_ctx *c, double f)
{
    if (!c->opt || !c->opt->progress) return;
    double now = sim_clock();
    if (f < 1 && now - c->t_last_progress < 0.05) return;
    c->t_last_progress = now;
    c->opt->progress(c->opt->progress_ctx, f);
}

/* Everything one run of sim_run holds between its phases. */
typedef struct sim_run_state {
    sim_bounds *ab;                  /* global bounds of every array */
    sim_init *inits;
    int ninits;
    sim_out *outs;
    int nouts;
    const ir_decl **dists;           /* per array, syndm */
    const ir_step_nest *nest;        /* syn and above */
    sim_stmt *body;                  /* source: everything; else the processor body */
    sim_stmt **lets;                 /* the lets before the step nest */
    sim_node *tlo, *thi, *tst, *plo, *phi, *pst;
    int tslot, pslot;
    sim_stmt **segs;                 /* the processor body cut at its collectives */
    sim_coll **colls;
    int ncoll;
    int *ids;                        /* processor ids of a step, in rank order (collectives) */
    ir_planes *folds;                /* per array: its live planes (w = 0: every plane) */
    unsigned char *versioned;        /* per array: its values carry versions (sim_version.c) */
    sim_mem *emptymem;               /* syndm: the memories outside any processor */
    sim_range tr;                    /* the time steps */
    int nsteps;
    int64_t bytes;                   /* the arrays' memory */
} sim_run_state;

/* Parameters, frames and the arrays' global bounds.  0 = ok. */
static int sim_setup_bounds(sim_ctx *c, sim_run_state *rs)
{
    const ir_program *p = c->prog;
    sim_result *r = c->r;
    const sim_options *opt = c->opt;
    r->nparams = p->nparams;
    r->params = calloc((size_t)(p->nparams ? p->nparams : 1), sizeof *r->params);
    if (!r->params) return -1;
    if (ir_params_eval(p, opt ? opt->bindings : NULL, opt ? opt->nbindings : 0, 0, r->params, &r->diags) != 0)
        return -1;
    c->params = r->params;
    size_t nsl = (size_t)(p->nslots > 0 ? p->nslots : 1);
    c->fi = calloc(nsl, sizeof *c->fi);
    c->fd = calloc(nsl, sizeof *c->fd);
    rs->ab = calloc((size_t)(p->narrays ? p->narrays : 1), sizeof *rs->ab);
    if (!c->fi || !c->fd || !rs->ab) return -1;
    for (int a = 0; a < p->narrays; a++) {
        const ir_decl *d = p->arrays[a];
        if (d->u.array.ndims > SIM_MAXDIMS) {
            diag_add(&r->diags, p->file, d->pos.line, d->pos.col,
                     "array %s has more than %d dimensions", d->u.array.name, SIM_MAXDIMS);
            return -1;
        }
        for (int k = 0; k < d->u.array.ndims; k++)
            if (sim_const_int(c, d->u.array.lo[k], &rs->ab[a].lo[k]) != 0
                || sim_const_int(c, d->u.array.hi[k], &rs->ab[a].hi[k]) != 0) {
                diag_add(&r->diags, p->file, d->pos.line, d->pos.col,
                         "the bounds of array %s do not evaluate", d->u.array.name);
                return -1;
            }
    }
    c->ab = rs->ab;   /* the work classes read the rows' lengths while compiling */
    return 0;
}

/* One output declaration.  0 = ok. */
static int sim_setup_output(sim_ctx *c, const ir_decl *d, sim_out *so)
{
    const ir_program *p = c->prog;
    so->array = d->u.output.array_index;
    so->nfix = d->u.output.nidx;
    if (so->array < 0 || so->array >= p->narrays || so->nfix > p->arrays[so->array]->u.array.ndims) {
        diag_add(&c->r->diags, p->file, d->pos.line, d->pos.col, "bad output declaration");
        return -1;
    }
    for (int k = 0; k < so->nfix; k++)
        if (sim_const_int(c, d->u.output.idx[k], &so->fix[k]) != 0) {
            diag_add(&c->r->diags, p->file, d->pos.line, d->pos.col, "output index is not a constant");
            return -1;
        }
    return 0;
}

/* The inits, outputs and dists of the program.  0 = ok. */
static int sim_setup_decls(sim_ctx *c, sim_run_state *rs)
{
    const ir_program *p = c->prog;
    for (int i = 0; i < p->ndecls; i++) {
        if (p->decls[i]->kind == IR_D_INIT) rs->ninits++;
        if (p->decls[i]->kind == IR_D_OUTPUT) rs->nouts++;
    }
    rs->inits = calloc((size_t)(rs->ninits ? rs->ninits : 1), sizeof *rs->inits);
    rs->outs = calloc((size_t)(rs->nouts ? rs->nouts : 1), sizeof *rs->outs);
    rs->dists = calloc((size_t)(p->narrays ? p->narrays : 1), sizeof *rs->dists);
    if (!rs->inits || !rs->outs || !rs->dists) return -1;
    int ii = 0, oi = 0;
    for (int i = 0; i < p->ndecls; i++) {
        const ir_decl *d = p->decls[i];
        if (d->kind == IR_D_INIT) {
            if (sim_compile_init(c, d, &rs->inits[ii++]) != 0) return -1;
        } else if (d->kind == IR_D_OUTPUT) {
            if (sim_setup_output(c, d, &rs->outs[oi++]) != 0) return -1;
        } else if (d->kind == IR_D_DIST) {
            int a = d->u.dist.array_index;
            if (a >= 0 && a < p->narrays) rs->dists[a] = d;
        }
    }
    c->dists = rs->dists;   /* the work classes: a pieced memory packs its rows (sim_compile.c) */
    return 0;
}

/* The processor body cut at its collectives: segments and the collectives between them. */
static int sim_compile_supersteps(sim_ctx *c, sim_run_state *rs, const ir_block *pb)
{
    const ir_program *p = c->prog;
    if (pb->cost) {
        diag_add(&c->r->diags, p->file, rs->nest->pfor->pos.line, rs->nest->pfor->pos.col,
                 "a processor body with collectives may not have a cost annotation");
        return -1;
    }
    rs->segs = sim_alloc(c, (size_t)(rs->ncoll + 1) * sizeof *rs->segs);
    rs->colls = sim_alloc(c, (size_t)rs->ncoll * sizeof *rs->colls);
    if (!rs->segs || !rs->colls) return -1;
    int start = 0, si = 0;
    for (int i = 0; i <= pb->n; i++) {
        if (i < pb->n && pb->stmts[i]->kind != IR_S_COLL) continue;
        ir_block part;
        memset(&part, 0, sizeof part);
        part.stmts = pb->stmts + start;
        part.n = i - start;
        rs->segs[si] = sim_compile_block(c, &part);
        if (!rs->segs[si]) return -1;
        if (i < pb->n && !(rs->colls[si] = sim_compile_coll(c, pb->stmts[i]))) return -1;
        si++;
        start = i + 1;
    }
    rs->body = rs->segs[0];
    return 0;
}

/* The step nest of a parallel level: its lets, loop bounds and processor body.  0 = ok. */
static int sim_compile_nest(sim_ctx *c, sim_run_state *rs)
{
    const ir_program *p = c->prog;
    rs->nest = ir_program_nest(p);
    if (!rs->nest) {
        diag_add(&c->r->diags, p->file, 0, 0,
                 "a %s program must be top-level lets and then one step nest "
                 "`for t = .. seq { for p = .. par|proc { .. } }`", ir_level_name(c->level));
        return -1;
    }
    const ir_step_nest *nest = rs->nest;
    rs->lets = sim_alloc(c, (size_t)(nest->nlets + 1) * sizeof *rs->lets);
    for (int i = 0; rs->lets && i < nest->nlets; i++) rs->lets[i] = sim_compile_stmt(c, p->body->stmts[i]);
    const ir_loopvar *tv = &nest->tfor->u.for_.vars[0];
    const ir_loopvar *pv = &nest->pfor->u.for_.vars[nest->pidx];
    rs->tslot = tv->slot;
    rs->pslot = pv->slot;
    if (rs->tslot < 0 || rs->tslot >= p->nslots || rs->pslot < 0 || rs->pslot >= p->nslots) {
        diag_add(&c->r->diags, p->file, 0, 0, "simulator: loop variables without slots");
        return -1;
    }
    rs->tlo = sim_compile_expr(c, tv->lo, IR_INT);
    rs->thi = sim_compile_expr(c, tv->hi, IR_INT);
    rs->tst = tv->step ? sim_compile_expr(c, tv->step, IR_INT) : NULL;
    rs->plo = sim_compile_expr(c, pv->lo, IR_INT);
    rs->phi = sim_compile_expr(c, pv->hi, IR_INT);
    rs->pst = pv->step ? sim_compile_expr(c, pv->step, IR_INT) : NULL;
    const ir_block *pb = nest->pfor->u.for_.body;
    for (int i = 0; pb && i < pb->n; i++) rs->ncoll += pb->stmts[i]->kind == IR_S_COLL;
    if (rs->ncoll > 0 && nest->pidx + 1 == nest->pfor->u.for_.nvars) {
        if (sim_compile_supersteps(c, rs, pb) != 0) return -1;
    } else {
        rs->ncoll = 0;
        rs->body = sim_compile_for(c, nest->pfor, nest->pidx + 1);
    }
    if (!rs->tlo || !rs->thi || !rs->plo || !rs->phi || (tv->step && !rs->tst) || (pv->step && !rs->pst))
        rs->body = NULL;
    for (int i = 0; rs->lets && i < nest->nlets; i++) if (!rs->lets[i]) rs->body = NULL;
    return 0;
}

/* The program's statements: at source all of them, else the step nest.  0 = ok. */
static int sim_compile_program(sim_ctx *c, sim_run_state *rs)
{
    const ir_program *p = c->prog;
    if (p->nops > 0 && !(c->openv = op_env_new(p))) return -1;
    if (c->level == IR_SOURCE) {
        rs->body = sim_compile_block(c, p->body);
        for (int i = 0; rs->body && i < rs->body->n; i++)
            if (rs->body->s[i]->kind == SS_FOR) rs->body->s[i]->outer = 1;
    } else if (sim_compile_nest(c, rs) != 0) {
        return -1;
    }
    if (!rs->body || c->compile_errors) {
        if (!diag_count(&c->r->diags))
            diag_add(&c->r->diags, p->file, 0, 0, "simulator: the program could not be compiled");
        return -1;
    }
    return 0;
}

/* Which arrays keep only live planes (under the time loop; at source the one loop nest after
 * the lets) and which carry versions; at the shared-memory levels, the memory itself.  0 = ok. */
static int sim_plan_memory(sim_ctx *c, sim_run_state *rs)
{
    const ir_program *p = c->prog;
    const ir_loopvar *timevar = NULL;
    if (c->level != IR_SOURCE) {
        timevar = &rs->nest->tfor->u.for_.vars[0];
    } else {
        int first = 0;
        while (first < p->body->n && p->body->stmts[first]->kind == IR_S_LET) first++;
        if (first == p->body->n - 1 && p->body->stmts[first]->kind == IR_S_FOR)
            timevar = &p->body->stmts[first]->u.for_.vars[0];
    }
    size_t na = (size_t)(p->narrays ? p->narrays : 1);
    rs->folds = calloc(na, sizeof *rs->folds);
    rs->versioned = calloc(na, 1);
    if (!rs->folds || !rs->versioned) return -1;
    for (int a = 0; a < p->narrays && timevar && !(c->opt && c->opt->all_planes); a++)
        if (!ir_live_planes(p, c->r->params, a, timevar, &rs->folds[a])) rs->folds[a].w = 0;
    sim_version_plan(c, rs->colls, rs->ncoll, rs->versioned);
    if (c->level == IR_SYNDM) {   /* laid out once the processors are known */
        rs->emptymem = calloc(na, sizeof *rs->emptymem);
        if (!rs->emptymem) return -1;
        for (int a = 0; a < p->narrays; a++) {
            rs->emptymem[a].ndims = p->arrays[a]->u.array.ndims;
            rs->emptymem[a].is_double = p->arrays[a]->u.array.elem == IR_DOUBLE;
        }
        c->mem = rs->emptymem;
        return 0;
    }
    int race = c->level == IR_SYN || c->level == IR_SYNCOMM;
    c->allmem = calloc(na, sizeof *c->allmem);
    if (!c->allmem) return -1;
    c->nmem = 1;
    for (int a = 0; a < p->narrays; a++)
        if (sim_mem_alloc(c, &c->allmem[a], p->arrays[a], rs->ab[a].lo, rs->ab[a].hi, NULL, NULL, NULL, race, 0,
                          rs->folds[a].w ? &rs->folds[a] : NULL, &rs->bytes) != 0
            || (rs->versioned[a] && sim_version_alloc(&c->allmem[a], &rs->bytes) != 0))
            return -1;
    for (int i = 0; i < rs->ninits && !c->stop; i++)
        sim_init_fill(c, &rs->inits[i], &c->allmem[rs->inits[i].array], &rs->ab[rs->inits[i].array]);
    c->mem = c->allmem;
    c->r->array_bytes = rs->bytes;
    return 0;
}

/* The time steps and the processors over all steps (after the top-level lets); the trace, the
 * collectives' frames and, at syndm, the local memories.  0 = ok. */
static int sim_plan_steps(sim_ctx *c, sim_run_state *rs)
{
    const ir_program *p = c->prog;
    sim_result *r = c->r;
    const ir_step_nest *nest = rs->nest;
    c->tval = 0;
    for (int i = 0; i < nest->nlets && !c->stop; i++) sim_exec(c, rs->lets[i]);
    if (sim_eval_range(c, rs->tlo, rs->thi, rs->tst, &rs->tr) != 0 || c->stop) {
        diag_add(&r->diags, p->file, nest->tfor->pos.line, nest->tfor->pos.col,
                 "the time loop's bounds do not evaluate (or its step is not positive)");
        return -1;
    }
    if (rs->tr.cnt > (uint64_t)SIM_MAX_TRACE) {
        diag_add(&r->diags, p->file, nest->tfor->pos.line, nest->tfor->pos.col, "too many time steps");
        return -1;
    }
    rs->nsteps = (int)rs->tr.cnt;
    int64_t pmin = INT64_MAX, pmax = INT64_MIN;
    for (int s = 0; s < rs->nsteps; s++) {
        c->fi[rs->tslot] = (int64_t)((uint64_t)rs->tr.lo + (uint64_t)s * (uint64_t)rs->tr.step);
        sim_range pr;
        if (sim_eval_range(c, rs->plo, rs->phi, rs->pst, &pr) != 0 || c->stop) {
            diag_add(&r->diags, p->file, nest->pfor->pos.line, nest->pfor->pos.col,
                     "the processor loop's bounds do not evaluate (or its step is not positive)");
            return -1;
        }
        if (pr.cnt == 0) continue;
        int64_t last = (int64_t)((uint64_t)pr.lo + (pr.cnt - 1) * (uint64_t)pr.step);
        if (pr.lo < pmin) pmin = pr.lo;
        if (last > pmax) pmax = last;
    }
    if (pmin > pmax) { pmin = 0; pmax = 0; }
    if ((uint64_t)pmax - (uint64_t)pmin >= (uint64_t)SIM_MAX_TRACE) {
        diag_add(&r->diags, p->file, nest->pfor->pos.line, nest->pfor->pos.col, "too many processors");
        return -1;
    }
    c->pmin = pmin;
    c->nprocs = (int)(pmax - pmin + 1);
    if (sim_trace_alloc(c, rs->nsteps, c->nprocs) != 0) return -1;
    c->ab = rs->ab;
    if (rs->ncoll > 0) {
        size_t nsl2 = (size_t)(p->nslots > 0 ? p->nslots : 1) * (size_t)c->nprocs;
        c->pfi = calloc(nsl2, sizeof *c->pfi);
        c->pfd = calloc(nsl2, sizeof *c->pfd);
        rs->ids = calloc((size_t)c->nprocs, sizeof *rs->ids);
        if (!c->pfi || !c->pfd || !rs->ids) {
            diag_add(&r->diags, p->file, 0, 0, "out of memory for the processors' frames");
            return -1;
        }
    }
    if (c->level == IR_SYNDM) {
        if (sim_layout_syndm(c, rs->dists, rs->ab, rs->folds, rs->inits, rs->ninits, &rs->bytes) != 0) return -1;
        if (sim_version_shadows(c, rs->versioned, rs->ab, rs->folds, &rs->bytes) != 0) {
            diag_add(&r->diags, p->file, 0, 0, "out of memory for the arrays' versions");
            return -1;
        }
    }
    r->array_bytes = rs->bytes;
    return 0;
}

/* Processor instance i of the step's range runs `body` (its memory at syndm). */
static void sim_run_instance(sim_ctx *c, const sim_run_state *rs, const sim_range *pr, uint64_t i,
                             int64_t tv, const sim_stmt *body, double *w)
{
    int64_t pv = (int64_t)((uint64_t)pr->lo + i * (uint64_t)pr->step);
    c->fi[rs->tslot] = tv;
    c->fi[rs->pslot] = pv;
    c->proc = (int)(pv - c->pmin);
    if (c->level == IR_SYNDM) c->mem = c->allmem + (size_t)c->proc * (size_t)c->prog->narrays;
    c->ticks = c->post_ticks = c->guard_ticks = 0;
    sim_exec(c, body);
    w[c->proc] += c->ticks;
    if (c->guard_ticks != 0) sim_trace_cell_add(c, &c->r->trace.guard, c->guard_ticks);
    sim_trace_classes_flush(c);
}

/* Step s: every processor instance (in supersteps around the collectives), then the messages
 * due. */
static void sim_run_step(sim_ctx *c, sim_run_state *rs, int s, int *rcounter)
{
    sim_trace *t = &c->r->trace;
    int64_t tv = (int64_t)((uint64_t)rs->tr.lo + (uint64_t)s * (uint64_t)rs->tr.step);
    c->fi[rs->tslot] = tv;
    c->step = s;
    c->tval = tv;
    t->step_time[s] = tv;
    sim_range pr;
    c->cur = NULL;
    sim_eval_range(c, rs->plo, rs->phi, rs->pst, &pr);
    t->step_procs[s] = (int)pr.cnt;
    double *w = t->work + (size_t)s * (size_t)c->nprocs;
    c->rstep = (*rcounter)++;
    for (int seg = 0; rs->ncoll > 0 && seg <= rs->ncoll && !c->stop; seg++) {
        for (uint64_t i = 0; i < pr.cnt && !c->stop; i++) {
            if (seg > 0) sim_frame_load(c, (int)i);
            sim_run_instance(c, rs, &pr, i, tv, rs->segs[seg], w);
            rs->ids[i] = c->proc;
            sim_frame_save(c, (int)i);
            if (--c->poll <= 0) sim_poll(c);
        }
        if (seg < rs->ncoll && !c->stop) {
            c->cur = NULL;
            sim_coll_run(c, rs->colls[seg], rs->ids, (int)pr.cnt);
            c->rstep = (*rcounter)++;
        }
    }
    for (uint64_t i = 0; rs->ncoll == 0 && i < pr.cnt && !c->stop; i++) {
        sim_run_instance(c, rs, &pr, i, tv, rs->body, w);
        if (--c->poll <= 0) sim_poll(c);
    }
    if (c->level != IR_SYN && !c->stop)
        sim_deliver(c, s, s + 1 < rs->nsteps ? (int64_t)((uint64_t)tv + (uint64_t)rs->tr.step) : 0,
                    s + 1 == rs->nsteps);
}

/* Received elements per processor (syndm), then the outputs and their checksum.  0 = ok. */
static int sim_collect_outputs(sim_ctx *c, sim_run_state *rs)
{
    const ir_program *p = c->prog;
    sim_result *r = c->r;
    int64_t nm = (int64_t)c->nmem * c->narrays;
    if (c->level == IR_SYNDM && c->allmem && (r->recv_elems = calloc((size_t)c->nprocs + 1, sizeof *r->recv_elems)))
        for (int64_t i = 0; i < nm; i++) {
            for (int64_t k = 0; c->allmem[i].state && k < c->allmem[i].size; k++)
                r->recv_elems[i / c->narrays] += c->allmem[i].state[k] == SIM_RECEIVED;
            r->recv_elems[i / c->narrays] += c->allmem[i].recv_gone;
        }
    for (int64_t i = 0; c->allmem && i < nm; i++) {
        free(c->allmem[i].meta);
        c->allmem[i].meta = NULL;
    }
    r->outputs = calloc((size_t)(rs->nouts ? rs->nouts : 1), sizeof *r->outputs);
    if (!r->outputs) return -1;
    c->cur = NULL;
    for (int i = 0; i < rs->nouts; i++) {
        const sim_out *so = &rs->outs[i];
        sim_output *o = &r->outputs[i];
        r->noutputs = i + 1;
        const ir_decl *od = NULL;
        for (int k = 0, n = 0; k < p->ndecls; k++)
            if (p->decls[k]->kind == IR_D_OUTPUT && n++ == i) od = p->decls[k];
        int last = c->level != IR_SYNDM;
        for (int j = i + 1; j < rs->nouts; j++) if (rs->outs[j].array == so->array) last = 0;
        sim_mem *sm = last ? &c->allmem[so->array] : NULL;
        if (sim_output_alloc(c, o, od, so, &rs->ab[so->array], sm) != 0) return -1;
        if (c->level != IR_SYNDM) {
            if (!sm || sm->data) sim_gather_mem(c, o, so, &c->allmem[so->array], 0, NULL, 0);
            continue;
        }
        int32_t *seen = calloc((size_t)(o->size ? o->size : 1), sizeof *seen);
        if (!seen) return -1;
        for (int q = 0; q < c->nprocs; q++)
            sim_gather_mem(c, o, so, &c->allmem[(size_t)q * (size_t)p->narrays + (size_t)so->array], 1, seen, q);
        if (c->shadows && c->shadows[so->array].ver)
            sim_gather_lost(c, o, so, &c->shadows[so->array], seen);
        sim_gather_init(c, o, so, rs->inits, rs->ninits, &rs->ab[so->array], seen);
        free(seen);
    }
    r->checksum = sim_checksum(r->outputs, r->noutputs);
    for (int64_t i = 0; i < (int64_t)r->trace.nsteps * r->trace.nprocs; i++)
        r->aggregate_work += r->trace.work[i];
    return 0;
}

static void sim_run_free(sim_ctx *c, sim_run_state *rs)
{
    if (c->allmem) {
        for (int64_t i = 0; i < (int64_t)c->nmem * c->narrays; i++) sim_mem_free(&c->allmem[i]);
        free(c->allmem);
    }
    sim_version_free(c);
    free(rs->versioned);
    free(rs->emptymem);
    free(rs->folds);
    free(rs->dists);
    free(rs->ids);
    free(c->pfi);
    free(c->pfd);
    op_env_free(c->openv);
    free(c->pend);
    free(c->fi);
    free(c->fd);
    free(rs->ab);
    free(rs->inits);
    free(rs->outs);
    sim_pool_free(&c->pool);
}

/* The trace's data_bytes: each processor's local memories at syndm, else the shared memory's
 * bytes over the processors (8 bytes an element, the exported arrays' element size). */
static int sim_trace_data(sim_ctx *c)
{
    sim_trace *t = &c->r->trace;
    int np = t->nprocs > 0 ? t->nprocs : 1;
    t->data_bytes = calloc((size_t)np, sizeof *t->data_bytes);
    if (!t->data_bytes) return -1;
    double shared = 0;
    for (int a = 0; !c->r->local_elems && c->allmem && a < c->prog->narrays; a++)
        shared += 8.0 * (double)c->allmem[a].size;
    for (int q = 0; q < np; q++)
        t->data_bytes[q] = c->r->local_elems ? 8.0 * (double)c->r->local_elems[q] : shared / np;
    return 0;
}

sim_result *sim_run(const ir_program *p, const sim_options *opt)
{
    sim_result *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    diag_list_init(&r->diags);
    double t0 = sim_clock();
    sim_ctx cx, *c = &cx;
    memset(c, 0, sizeof *c);
    c->prog = p;
    c->r = r;
    c->opt = opt;
    c->maxv = opt && opt->max_violations > 0 ? opt->max_violations : 20;
    c->poll = 1 << 14;
    c->t_last_progress = t0;
    c->progress_span = 1;
    c->nprocs = 1;
    c->loop_slot = c->reuse_slot = -1;
    r->level = p ? p->level : IR_SOURCE;
    c->level = r->level;
    sim_run_state rs;
    memset(&rs, 0, sizeof rs);

    if (!p || !p->checked) {
        diag_add(&r->diags, p ? p->file : NULL, 0, 0, "simulator: the program has not been checked");
        goto done;
    }
    if (opt && opt->cancel && *opt->cancel) {
        r->cancelled = 1;
        goto done;
    }
    c->narrays = p->narrays;
    if (sim_setup_bounds(c, &rs) != 0 || sim_setup_decls(c, &rs) != 0 || sim_compile_program(c, &rs) != 0
        || sim_plan_memory(c, &rs) != 0)
        goto done;

    if (c->level == IR_SOURCE) {   /* one step on processor 0 */
        if (sim_trace_alloc(c, 1, 1) != 0) goto done;
        r->trace.step_procs[0] = 1;
        c->ticks = 0;
        c->tval = 0;
        sim_exec(c, rs.body);
        r->trace.work[0] = c->ticks;
        sim_trace_classes_flush(c);
    } else {
        if (sim_plan_steps(c, &rs) != 0) goto done;
        int rcounter = 0;
        for (int s = 0; s < rs.nsteps && !c->stop; s++) {
            sim_run_step(c, &rs, s, &rcounter);
            c->progress_lo = (double)(s + 1) / (double)rs.nsteps;
            sim_progress(c, c->progress_lo);
            if (opt && opt->cancel && *opt->cancel) { c->stop = 1; c->stopped_reason = 2; }
        }
    }
    if (c->stopped_reason == 2) {
        r->cancelled = 1;
        goto done;
    }
    if (sim_collect_outputs(c, &rs) != 0 || sim_trace_data(c) != 0) goto done;
    r->ok = 1;
    sim_progress(c, 1.0);

done:
    sim_run_free(c, &rs);
    r->seconds = sim_clock() - t0;
    return r;
}
