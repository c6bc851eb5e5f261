/*
 * sim_piece.c — the local memories of pieced dists at syndm
 * (`dist a(rp) [i = lo .. hi][.. i ..] + [..]..`, see ir_dist_piece).
 *
 * For one processor every piece is evaluated: its outer ranges (possibly strided: `step s
 * block b`), then for each tuple of outer indices its last range with the named indices set to
 * that tuple (a ragged piece: a triangle, a staircase).  That gives the hull box the memory is
 * laid out as, the element count reported as local memory (an element in two pieces counts
 * twice, as an exported program allocates it twice), and the map of the elements the memory
 * holds (sim_mem.held; overlapping pieces hold one value).  Plain dists are laid out by sim_memory.c.
 */
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

typedef struct sim_piece_code {   /* one piece, compiled */
    sim_node *lo[SIM_MAXDIMS], *hi[SIM_MAXDIMS], *step[SIM_MAXDIMS], *block[SIM_MAXDIMS];
    int islot[SIM_MAXDIMS];       /* slot of each dimension's index name, -1 when unnamed */
    int ragged;                   /* some index is named: the last range is evaluated per tuple */
} sim_piece_code;

struct sim_pieces {
    const ir_decl *dist, *arr;
    int nd, n;
    sim_piece_code *p;
};

/* A range lo .. hi, every index (s = 0) or every s-th, b at a time. */
typedef struct piece_range { int64_t lo, hi, s, b; } piece_range;

sim_pieces *sim_pieces_compile(sim_ctx *c, const ir_decl *dd, const ir_decl *arr)
{
    int nd = arr->u.array.ndims;
    sim_pieces *ps = sim_alloc(c, sizeof *ps);
    if (!ps) return NULL;
    ps->dist = dd;
    ps->arr = arr;
    ps->nd = nd;
    ps->n = 1 + dd->u.dist.nmore;
    ps->p = sim_alloc(c, (size_t)ps->n * sizeof *ps->p);
    if (!ps->p) return NULL;
    for (int k = 0; k < ps->n; k++) {
        ir_dist_piece pc = ir_dist_get_piece(dd, k);
        sim_piece_code *q = &ps->p[k];
        q->ragged = pc.ivar != NULL;
        for (int d = 0; d < nd; d++) {
            q->islot[d] = pc.islot ? pc.islot[d] : -1;
            if (q->islot[d] >= c->prog->nslots) q->islot[d] = -1;
            if (!pc.lo || !pc.hi || !(q->lo[d] = sim_compile_expr(c, pc.lo[d], IR_INT))
                || !(q->hi[d] = sim_compile_expr(c, pc.hi[d], IR_INT)))
                return NULL;
            if (pc.step && pc.step[d] && !(q->step[d] = sim_compile_expr(c, pc.step[d], IR_INT)))
                return NULL;
            if (pc.block && pc.block[d] && !(q->block[d] = sim_compile_expr(c, pc.block[d], IR_INT)))
                return NULL;
        }
    }
    return ps;
}

/* Evaluates a dist expression without reporting violations; 0 = ok. */
static int piece_int(sim_ctx *c, const sim_node *n, int64_t *out)
{
    c->quiet++;
    c->quiet_errors = 0;
    *out = sim_eval_i(c, n);
    c->quiet--;
    return c->quiet_errors || c->stop ? -1 : 0;
}

/* How many indices the range holds (at most 2^62: larger ones do not fit any memory anyway). */
static int64_t piece_count(const piece_range *r)
{
    if (r->hi < r->lo) return 0;
    uint64_t q = (uint64_t)r->hi - (uint64_t)r->lo;
    uint64_t n = r->s ? (q / (uint64_t)r->s) * (uint64_t)r->b
                            + (q % (uint64_t)r->s + 1 < (uint64_t)r->b ? q % (uint64_t)r->s + 1 : (uint64_t)r->b)
                      : q + 1;
    return n > (UINT64_C(1) << 62) || n == 0 ? INT64_C(1) << 62 : (int64_t)n;
}

/* The range's last index (it holds one at least). */
static int64_t piece_last(const piece_range *r)
{
    if (!r->s) return r->hi;
    uint64_t q = (uint64_t)r->hi - (uint64_t)r->lo, s = (uint64_t)r->s, b = (uint64_t)r->b;
    return (int64_t)((uint64_t)r->lo + (q / s) * s + (q % s < b - 1 ? q % s : b - 1));
}

/* The range's index after x, or 0 after its last (then x is its first again). */
static int piece_next(const piece_range *r, int64_t *x)
{
    if (*x >= piece_last(r)) { *x = r->lo; return 0; }
    if (r->s && ((uint64_t)*x - (uint64_t)r->lo) % (uint64_t)r->s + 1 >= (uint64_t)r->b)
        *x = (int64_t)((uint64_t)*x - ((uint64_t)*x - (uint64_t)r->lo) % (uint64_t)r->s + (uint64_t)r->s);
    else
        (*x)++;
    return 1;
}

static int piece_error(sim_ctx *c, const sim_pieces *ps, int k, int64_t pv, const char *what)
{
    char which[48] = "";
    if (ps->n > 1) snprintf(which, sizeof which, " (piece %d)", k + 1);
    diag_add(&c->r->diags, c->prog->file, ps->dist->pos.line, ps->dist->pos.col,
             "the dist bounds of %s%s %s for processor %lld", ps->arr->u.array.name, which, what,
             (long long)pv);
    return -1;
}

/* One range of piece k in dimension d for processor pv (the named indices already set). */
static int piece_range_eval(sim_ctx *c, const sim_pieces *ps, int k, int d, int64_t pv, piece_range *r)
{
    const sim_piece_code *q = &ps->p[k];
    r->s = 0;
    r->b = 1;
    if (piece_int(c, q->lo[d], &r->lo) || piece_int(c, q->hi[d], &r->hi)
        || (q->step[d] && piece_int(c, q->step[d], &r->s)) || (q->block[d] && piece_int(c, q->block[d], &r->b)))
        return piece_error(c, ps, k, pv, "do not evaluate");
    if (q->step[d] && (r->s < 1 || r->b < 1 || r->b > r->s)) {
        char which[48] = "";
        if (ps->n > 1) snprintf(which, sizeof which, " (piece %d)", k + 1);
        diag_add(&c->r->diags, c->prog->file, ps->dist->pos.line, ps->dist->pos.col,
                 "the dist of %s%s for processor %lld: step %lld block %lld (need 1 <= block <= step)",
                 ps->arr->u.array.name, which, (long long)pv, (long long)r->s, (long long)r->b);
        return -1;
    }
    if (!q->step[d]) r->b = 1;
    return 0;
}

/* Walks piece k for processor pv: hull, count, and (with m) the held map. */
static int piece_walk(sim_ctx *c, const sim_pieces *ps, int k, int64_t pv, int64_t *lo, int64_t *hi,
                      int64_t *count, sim_mem *m)
{
    const sim_piece_code *q = &ps->p[k];
    int nd = ps->nd, last = nd - 1;
    piece_range r[SIM_MAXDIMS];
    int64_t x[SIM_MAXDIMS];
    int64_t tuples = 1;
    for (int d = 0; d < nd; d++) {
        if (d == last && q->ragged) break;
        if (piece_range_eval(c, ps, k, d, pv, &r[d]) != 0) return -1;
        int64_t n = piece_count(&r[d]);
        if (n == 0) return 0;
        if (d < last) {
            if (tuples > SIM_MAX_ELEMS / n) {
                diag_add(&c->r->diags, c->prog->file, ps->dist->pos.line, ps->dist->pos.col,
                         "the dist of %s is too large to simulate for processor %lld",
                         ps->arr->u.array.name, (long long)pv);
                return -1;
            }
            tuples *= n;
        }
        x[d] = r[d].lo;
    }
    for (;;) {
        for (int d = 0; d < last; d++)
            if (q->islot[d] >= 0) c->fi[q->islot[d]] = x[d];
        if (q->ragged && piece_range_eval(c, ps, k, last, pv, &r[last]) != 0) return -1;
        int64_t n = piece_count(&r[last]);
        if (n > 0) {
            if (*count > SIM_MAX_ELEMS) {
                diag_add(&c->r->diags, c->prog->file, ps->dist->pos.line, ps->dist->pos.col,
                         "the dist of %s is too large to simulate for processor %lld",
                         ps->arr->u.array.name, (long long)pv);
                return -1;
            }
            *count += n;
            x[last] = r[last].lo;
            for (int d = 0; d < nd; d++) {
                int64_t a = x[d], z = d == last ? piece_last(&r[last]) : x[d];
                if (a < lo[d]) lo[d] = a;
                if (z > hi[d]) hi[d] = z;
            }
            if (m) {
                int64_t off = 0;
                for (int d = 0; d < last; d++) off += (x[d] - m->lo[d]) * m->stride[d];
                do m->held[off + (x[last] - m->lo[last]) * m->stride[last]] = 1;
                while (piece_next(&r[last], &x[last]));
            }
        }
        if (--c->poll <= 0) {
            sim_poll(c);
            if (c->stop) return 0;      /* cancelled: the run ends before any step */
        }
        int d = last - 1;
        while (d >= 0 && !piece_next(&r[d], &x[d])) d--;
        if (d < 0) return 0;
    }
}

int sim_pieces_eval(sim_ctx *c, const sim_pieces *ps, int64_t pv, int64_t *lo, int64_t *hi,
                    int64_t *count, sim_mem *mark)
{
    const ir_decl *dd = ps->dist;
    if (dd->u.dist.slot < 0 || dd->u.dist.slot >= c->prog->nslots) {
        diag_add(&c->r->diags, c->prog->file, dd->pos.line, dd->pos.col,
                 "dist %s needs one range per dimension", ps->arr->u.array.name);
        return -1;
    }
    c->fi[dd->u.dist.slot] = pv;
    for (int d = 0; d < ps->nd; d++) { lo[d] = INT64_MAX; hi[d] = INT64_MIN; }
    *count = 0;
    for (int k = 0; k < ps->n && !c->stop; k++)
        if (piece_walk(c, ps, k, pv, lo, hi, count, mark) != 0) return -1;
    if (*count == 0)
        for (int d = 0; d < ps->nd; d++) { lo[d] = 1; hi[d] = 0; }
    return 0;
}
