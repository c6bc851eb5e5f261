/*
 * sim_output.c — the simulator's outputs (see sim_int.h): gathering each output region from the
 * memories at the end of a run (from the shared memory in place, or at syndm from the processors'
 * local memories, with init values where nobody computed), the checksum of the outputs, and the
 * verification of a run's outputs against a reference run.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

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

int sim_output_alloc(sim_ctx *c, sim_output *o, const ir_decl *d, const sim_out *so,
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
void sim_gather_lost(sim_ctx *c, const sim_output *o, const sim_out *so, const sim_shadow *sh,
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
void sim_gather_mem(sim_ctx *c, sim_output *o, const sim_out *so, const sim_mem *m,
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
void sim_gather_init(sim_ctx *c, sim_output *o, const sim_out *so, const sim_init *inits,
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
