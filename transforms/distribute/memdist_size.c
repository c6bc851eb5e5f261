/*
 * memdist_size.c — memdist's numbers: the elements a candidate layout of a local memory allocates
 * on every real processor (its pieces' ranges evaluated row by row at the parameters' values),
 * and whether it holds every element the processors' accesses touch (the footprint checked point
 * by point).  memdist.c chooses between the box, a ragged range and pieces by them.
 */
#include <stdlib.h>
#include <string.h>

#include "memdist_int.h"

/* One piece for one real processor: its outer ranges, and per outer tuple (row-major over the
 * outer box) the last range; rows outside an outer lattice are empty (lo > hi). */
typedef struct md_tab {
    int64_t lo[8], hi[8], st[8], bl[8];
    int64_t *rlo, *rhi, lst, lbl;   /* lst: the last range's step (0: none) */
    int64_t nrows, size;
} md_tab;

static int64_t lattice_count(int64_t lo, int64_t hi, int64_t s, int64_t b)
{
    if (hi < lo) return 0;
    if (!s) return hi - lo + 1;
    int64_t q = hi - lo;
    return (q / s) * b + (q % s + 1 < b ? q % s + 1 : b);
}

static int in_range(int64_t x, int64_t lo, int64_t hi, int64_t s, int64_t b)
{
    if (x < lo || x > hi) return 0;
    return !s || (x - lo) % s < b;
}

static int eval_at(const ir_expr *e, xf_env *env, int64_t *v) { return e ? xf_eval_int(e, env, v) : -1; }

static int tab_build(md_ctx *X, const ir_dist_piece *pc, int nd, int64_t rp, md_tab *t)
{
    xf_env env = X->env0;
    env.names[env.n] = X->rpv;
    env.vals[env.n++] = rp;
    *t = (md_tab){0};
    int64_t rows = 1;
    for (int k = 0; k < nd; k++) {
        t->st[k] = 0;
        t->bl[k] = 1;
        if (pc->ivar && k == nd - 1) break;
        if (eval_at(pc->lo[k], &env, &t->lo[k]) || eval_at(pc->hi[k], &env, &t->hi[k])) return -1;
        if (pc->step && pc->step[k]) {
            if (eval_at(pc->step[k], &env, &t->st[k])) return -1;
            if (pc->block[k] && eval_at(pc->block[k], &env, &t->bl[k])) return -1;
            if (t->st[k] < 1 || t->bl[k] < 1) return -1;
        }
        if (k < nd - 1) {
            int64_t ext = t->hi[k] >= t->lo[k] ? t->hi[k] - t->lo[k] + 1 : 0;
            rows *= ext;
            if (rows > MD_MAX_ROWS) return -1;
        }
    }
    t->lst = t->st[nd - 1];
    t->lbl = t->bl[nd - 1];
    t->nrows = rows;
    t->rlo = xmalloc((size_t)(rows + 1) * sizeof *t->rlo);
    t->rhi = xmalloc((size_t)(rows + 1) * sizeof *t->rhi);
    if (!t->rlo || !t->rhi) return -1;
    int base = env.n;
    for (int k = 0; k < nd - 1; k++) env.names[base + k] = pc->ivar && pc->ivar[k] ? pc->ivar[k] : "";
    env.n = base + nd - 1;
    for (int64_t r = 0; r < rows; r++) {
        int64_t rest = r, in = 1;
        for (int k = nd - 2; k >= 0; k--) {
            int64_t ext = t->hi[k] - t->lo[k] + 1;
            int64_t x = t->lo[k] + rest % ext;
            rest /= ext;
            env.vals[base + k] = x;
            in &= in_range(x, t->lo[k], t->hi[k], t->st[k], t->bl[k]);
        }
        t->rlo[r] = 1;
        t->rhi[r] = 0;
        if (!in) continue;
        if (!pc->ivar) { t->rlo[r] = t->lo[nd - 1]; t->rhi[r] = t->hi[nd - 1]; }
        else if (eval_at(pc->lo[nd - 1], &env, &t->rlo[r]) || eval_at(pc->hi[nd - 1], &env, &t->rhi[r])) return -1;
        t->size += lattice_count(t->rlo[r], t->rhi[r], t->lst, t->lbl);
    }
    return 0;
}

static int tab_holds(const md_tab *t, int nd, const int64_t *e)
{
    int64_t r = 0;
    for (int k = 0; k < nd - 1; k++) {
        if (!in_range(e[k], t->lo[k], t->hi[k], t->st[k], t->bl[k])) return 0;
        r = r * (t->hi[k] - t->lo[k] + 1) + (e[k] - t->lo[k]);
    }
    return in_range(e[nd - 1], t->rlo[r], t->rhi[r], t->lst, t->lbl);
}

typedef struct md_check {
    md_ctx *X;
    md_tab *tabs;              /* [(rp - rp_lo) * npieces + piece] */
    int npieces, nd, np, bad;
    int64_t points, last_pv[2], last_rp;
    int have_last;
} md_check;

static isl_stat check_point(__isl_take isl_point *pt, void *user)
{
    md_check *C = user;
    int64_t v[10];
    for (int i = 0; i < C->np + C->nd; i++) {
        isl_val *x = isl_point_get_coordinate_val(pt, isl_dim_set, i);
        v[i] = isl_val_get_num_si(x);
        isl_val_free(x);
    }
    isl_point_free(pt);
    if (++C->points > MD_MAX_POINTS) { C->bad = 1; return isl_stat_error; }
    int64_t rp;
    if (C->have_last && v[0] == C->last_pv[0] && (C->np < 2 || v[1] == C->last_pv[1])) {
        rp = C->last_rp;
    } else {
        xf_env env = C->X->env0;
        for (int q = 0; q < C->np; q++) { env.names[env.n] = C->X->T->pv[q]; env.vals[env.n++] = v[q]; }
        if (xf_eval_int(C->X->rp_of, &env, &rp)) { C->bad = 1; return isl_stat_error; }
        C->last_pv[0] = v[0];
        C->last_pv[1] = C->np > 1 ? v[1] : 0;
        C->last_rp = rp;
        C->have_last = 1;
    }
    if (rp < C->X->rp_lo || rp > C->X->rp_hi) { C->bad = 1; return isl_stat_error; }
    for (int p = 0; p < C->npieces; p++)
        if (tab_holds(&C->tabs[(rp - C->X->rp_lo) * C->npieces + p], C->nd, v + C->np)) return isl_stat_ok;
    C->bad = 1;
    return isl_stat_error;
}

/* The elements a layout of `npc` pieces allocates over all real processors, or -1 when it cannot
 * be evaluated or (check) misses an element some access of F touches.  Pieces hold their
 * footprints by construction (bounds exact per row, or affine and monotone in the virtual
 * processor, or reductions over all of them) except an unsure one: only then are the
 * footprints' points enumerated (at most MD_MAX_POINTS). */
int64_t md_layout_size(md_ctx *X, const md_piece *P, int npc, int nd, __isl_keep isl_map *const *F,
                           int nf, int check)
{
    int64_t nrp = X->rp_hi - X->rp_lo + 1, total = 0;
    if (nrp < 1 || nrp > 4096 || nd > 8) return -1;
    md_tab *tabs = xcalloc((size_t)(nrp * npc), sizeof *tabs);
    int ok = tabs != NULL;
    for (int64_t r = 0; r < nrp && ok; r++)
        for (int p = 0; p < npc && ok; p++) {
            ok = tab_build(X, &P[p].pc, nd, X->rp_lo + r, &tabs[r * npc + p]) == 0;
            total += tabs[r * npc + p].size;
        }
    int unsure = 0;
    for (int p = 0; p < npc; p++) unsure |= P[p].unsure;
    /* POLYAPM_MEMDIST_CHECK=all: check every layout (the tests compare the choices) */
    const char *all = getenv("POLYAPM_MEMDIST_CHECK");
    if (!(all && !strcmp(all, "all"))) check &= unsure;
    md_check C = {X, tabs, npc, nd, X->T->np, 0, 0, {0, 0}, 0, 0};
    for (int a = 0; a < nf && ok && check; a++) {
        isl_map *f = isl_map_copy(F[a]);
        for (int i = 0; i < X->m->npnames; i++) {
            int pos = isl_map_find_dim_by_name(f, isl_dim_param, X->m->pnames[i]);
            if (pos >= 0) f = isl_map_fix_si(f, isl_dim_param, (unsigned)pos, (int)X->m->pvalues[i]);
        }
        isl_set *w = isl_map_wrap(f);
        C.have_last = 0;
        if (isl_set_foreach_point(w, check_point, &C) < 0 || C.bad) ok = 0;
        isl_set_free(w);
    }
    for (int64_t i = 0; tabs && i < nrp * npc; i++) { free(tabs[i].rlo); free(tabs[i].rhi); }
    free(tabs);
    return ok ? total : -1;
}

