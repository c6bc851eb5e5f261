/*
 * sim_memory.c — the simulator's memories (see sim_int.h): laying out and allocating one array's
 * memory (folded planes, lattices, the map of held elements), the inits that fill them, and at
 * syndm the layout of one memory per processor from the dist declarations.
 *
 * The driver (sim.c) decides which memories a run has; this file builds and fills them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "planes.h"
#include "sim_int.h"

#define SIM_MAX_BYTES (INT64_C(8) << 30)          /* all memories together */

/* ---- memories ------------------------------------------------------------------------------- */

void sim_mem_free(sim_mem *m)
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
int sim_mem_alloc(sim_ctx *c, sim_mem *m, const ir_decl *arr, const int64_t *lo,
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

/* ---- inits ----------------------------------------------------------------------------------- */

int sim_compile_init(sim_ctx *c, const ir_decl *d, sim_init *in)
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
int sim_box_next(int nd, const int64_t *glo, const int64_t *ghi, int64_t *g)
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
int sim_storage_next(const sim_mem *m, int64_t *r)
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

void sim_init_fill(sim_ctx *c, const sim_init *in, sim_mem *m, const sim_bounds *ab)
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
int sim_layout_syndm(sim_ctx *c, const ir_decl **dists, const sim_bounds *ab, const ir_planes *folds,
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
