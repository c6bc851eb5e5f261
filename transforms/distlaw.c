/*
 * distlaw.c — the distribution laws of REFERENCE §4 as transforms, both ways:
 *
 *   bcast-scatter-allgather   y = bcast x from R       ->  s = scatter x from R; y = allgather s
 *   scatter-allgather-bcast   s = scatter x from R; y = allgather s   ->  y = bcast x from R
 *   allgather-gather-bcast    y = allgather x          ->  y = gather x to LO; y = bcast y from LO
 *   gather-bcast-allgather    y = gather x to R; y = bcast y from R   ->  y = allgather x
 *
 * (scatter ; allg = broadcast; allg = gath ; broadcast.)  The scatter needs the block to split
 * evenly over the processors; a new array `dl_part[rp][..]` holds the pieces (the reverse law
 * drops the pieces, which must be read nowhere else).  Multicast to groups needs group
 * collectives, which the language does not have (collectives span the processor loop).
 *
 * Costs (the simulator's, cost.h; m elements per block, L = ceil(log2 p)):
 *   hockney  bcast L(t_s + m t_w); scatter, gather, allgather L t_s + (p - 1) m' t_w (m' the
 *            per-processor block)            bsp  bcast, scatter, [all]gather p m' g + l(p)
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuse_int.h"

typedef enum dl_law { DL_BCAST_SA, DL_SA_BCAST, DL_ALLG_GB, DL_GB_ALLG } dl_law;

static const char *const dl_names[] = {
    "bcast-scatter-allgather", "scatter-allgather-bcast", "allgather-gather-bcast", "gather-bcast-allgather",
};

typedef struct dl_match {
    const ir_stmt *c[2];
    int n;
    int64_t m;                 /* elements of the whole block (the bcast's, the allgather's result) */
} dl_match;

static int kind_is(const ir_stmt *c, ir_coll_kind k) { return c && c->u.coll.ck == k && fz_coll_simple(c); }

static int match_at(dl_law law, const fz_site *s, int i, dl_match *m, char **why)
{
    const ir_stmt *a = fz_coll(s, i), *b = fz_coll(s, i + 1);
    memset(m, 0, sizeof *m);
    switch (law) {
    case DL_BCAST_SA:
        if (!kind_is(a, IR_C_BCAST)) return 0;
        m->c[0] = a; m->n = 1;
        m->m = fz_block_elems(s, a->u.coll.src[0]);
        if (s->nprocs <= 0 || m->m < 0 || m->m % s->nprocs) {
            if (!*why) *why = xf_asprintf("line %d: the block of %lld elements does not split evenly over %lld "
                                          "processors", a->pos.line, (long long)m->m, (long long)s->nprocs);
            return 0;
        }
        return 1;
    case DL_SA_BCAST: {
        if (!kind_is(a, IR_C_SCATTER) || !kind_is(b, IR_C_ALLGATHER) ||
            !fz_same_block(a->u.coll.dst[0], b->u.coll.src[0])) return 0;
        const ir_decl *part = fz_block_array(s, a->u.coll.dst[0]);
        const ir_stmt *skip[2] = {a, b};
        if (!part || fz_array_read_elsewhere(s, part->u.array.name, skip, 2)) {
            if (!*why) *why = xf_asprintf("line %d: the scattered pieces in '%s' are read elsewhere",
                                          a->pos.line, part ? part->u.array.name : "?");
            return 0;
        }
        m->c[0] = a; m->c[1] = b; m->n = 2;
        m->m = fz_block_elems(s, a->u.coll.src[0]);
        return 1;
    }
    case DL_ALLG_GB:
        if (!kind_is(a, IR_C_ALLGATHER)) return 0;
        m->c[0] = a; m->n = 1;
        m->m = fz_block_elems(s, a->u.coll.dst[0]);
        return 1;
    case DL_GB_ALLG:
        if (!kind_is(a, IR_C_GATHER) || !kind_is(b, IR_C_BCAST) ||
            !fz_same_block(a->u.coll.dst[0], b->u.coll.src[0]) ||
            !fz_same_block(a->u.coll.dst[0], b->u.coll.dst[0]) ||
            !fz_same_block(a->u.coll.root, b->u.coll.root)) return 0;
        m->c[0] = a; m->c[1] = b; m->n = 2;
        m->m = fz_block_elems(s, a->u.coll.dst[0]);
        return 1;
    }
    return 0;
}

static int find(dl_law law, const fz_site *s, const char *label, dl_match *m, char **why)
{
    *why = NULL;
    for (int i = 0; i < s->body->n; i++) {
        if (!match_at(law, s, i, m, why)) continue;
        int has = !label;
        for (int k = 0; label && k < m->n; k++) has |= m->c[k]->u.coll.label && !strcmp(m->c[k]->u.coll.label, label);
        if (has) { free(*why); *why = NULL; return 1; }
    }
    if (!*why) *why = xf_asprintf("no %s here", law == DL_BCAST_SA ? "bcast" : law == DL_SA_BCAST
                                  ? "scatter followed by an allgather of its pieces" : law == DL_ALLG_GB
                                  ? "allgather" : "gather followed by a bcast of its result from the root");
    return 0;
}

static ir_program *apply(dl_law law, const ir_program *src, const xf_args *a, diag_list *d, int *status)
{
    const char *nm = dl_names[law];
    *status = XF_EUSAGE;
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->items[i].key, "at")) {
            diag_add(d, NULL, 0, 0, "%s: unknown parameter '%s' (known: at)", nm, a->items[i].key);
            return NULL;
        }
    *status = XF_EREFUSED;
    fz_site s;
    dl_match m;
    char *why = NULL;
    ir_program *out = NULL;
    if (fz_site_open(&s, src, &why) != 0 || !find(law, &s, xf_args_get(a, "at", NULL), &m, &why)) {
        diag_add(d, src->file, 0, 0, "%s refused: %s", nm, why ? why : "no match");
        free(why);
        fz_site_close(&s);
        return NULL;
    }
    const ir_stmt *c0 = m.c[0], *cl = m.c[m.n - 1];
    char *lab = c0->u.coll.label ? xf_asprintf("%s: ", c0->u.coll.label) : xf_strdup("");
    char *x = ir_print_expr(c0->u.coll.src[0]), *y = ir_print_expr(cl->u.coll.dst[0]);
    char *root = c0->u.coll.root ? ir_print_expr(c0->u.coll.root) : ir_print_expr(s.pv->lo);
    xf_buf repl = {0}, decls = {0};
    switch (law) {
    case DL_BCAST_SA: {
        const ir_decl *arr = fz_block_array(&s, c0->u.coll.src[0]);
        char *part = fz_fresh_name(&s, "dl_part", NULL);
        char *lo = ir_print_expr(s.pv->lo), *hi = ir_print_expr(s.pv->hi);
        xf_buf size = {0};
        int first = c0->u.coll.src[0]->kind == IR_E_ACCESS ? c0->u.coll.src[0]->u.access.nidx : 0;
        for (int k = first; k < arr->u.array.ndims; k++) {
            char *l = ir_print_expr(arr->u.array.lo[k]), *h = ir_print_expr(arr->u.array.hi[k]);
            xf_buf_printf(&size, "%s(%s - (%s) + 1)", k > first ? " * " : "", h, l);
            free(l); free(h);
        }
        if (!size.s) xf_buf_printf(&size, "1");
        xf_buf_printf(&decls, "array %s[%s .. %s][0 .. %s / (%s - (%s) + 1) - 1] %s\n", part, lo, hi, size.s, hi,
                      lo, fz_type_name(arr->u.array.elem));
        xf_buf_printf(&repl, "%s%s[%s] = scatter %s from %s\n%s = allgather %s[%s]", lab, part, s.pv->var, x,
                      root, y, part, s.pv->var);
        free(part); free(lo); free(hi);
        xf_buf_free(&size);
        break;
    }
    case DL_SA_BCAST:
        xf_buf_printf(&repl, "%s%s = bcast %s from %s", lab, y, x, root);
        break;
    case DL_ALLG_GB:
        xf_buf_printf(&repl, "%s%s = gather %s to %s\n%s = bcast %s from %s", lab, y, x, root, y, y, root);
        break;
    case DL_GB_ALLG:
        xf_buf_printf(&repl, "%s%s = allgather %s", lab, y, x);
        break;
    }
    out = fz_finish(&s, nm, c0->pos.line, cl->pos.line, repl.s, decls.s, d);
    xf_buf_free(&repl);
    xf_buf_free(&decls);
    free(lab); free(x); free(y); free(root);
    fz_site_close(&s);
    return out;
}

/* Hockney and BSP costs of the two sides (M: the whole block, p processors). */
static void costs(dl_law law, const cost_profile *c, double M, double p, double h[2], double b[2])
{
    double L = p > 1 ? ceil(log2(p)) : 0, l = cost_barrier(c, (int)p);
    double h_bcast = L * (c->ts + M * c->tw), h_piece = L * c->ts + (p - 1) * (M / p) * c->tw;
    double b_bcast = p * M * c->g + l, b_piece = p * (M / p) * c->g + l;
    int fwd = law == DL_BCAST_SA || law == DL_ALLG_GB;
    double hb = law <= DL_SA_BCAST ? h_bcast : h_piece;                       /* one collective */
    double ha = law <= DL_SA_BCAST ? 2 * h_piece : h_piece + h_bcast;          /* the pair */
    double bb = law <= DL_SA_BCAST ? b_bcast : b_piece;
    double ba = law <= DL_SA_BCAST ? 2 * b_piece : b_piece + b_bcast;
    if (p <= 1) hb = ha = bb = ba = 0;
    h[0] = fwd ? hb : ha; h[1] = fwd ? ha : hb;
    b[0] = fwd ? bb : ba; b[1] = fwd ? ba : bb;
}

static char *predict(dl_law law, const ir_program *p, const cost_profile *prof)
{
    fz_site s;
    dl_match m;
    char *why = NULL, *txt = NULL;
    if (fz_site_open(&s, p, &why) == 0 && find(law, &s, NULL, &m, &why) && s.nprocs > 0) {
        double h[2], b[2];
        costs(law, prof, (double)m.m, (double)s.nprocs, h, b);
        fz_gain g = {h[0], h[1], "REFERENCE 4"};
        char *t = fz_gain_text(&g, prof, m.m, s.nprocs);
        txt = xf_asprintf("%s; bsp (g=%g, l=%g): before %.6g, after %.6g, gain %.6g%s", t, prof->g,
                          cost_barrier(prof, (int)s.nprocs), b[0], b[1], b[0] - b[1],
                          b[0] < b[1] ? "  WARNING: negative gain" : "");
        free(t);
    }
    free(why);
    fz_site_close(&s);
    return txt;
}

#define DL_FNS(id, law)                                                                             \
    int xf_fuse_##id##_applicable(const ir_program *p, char **why)                                   \
    {                                                                                                \
        fz_site s;                                                                                   \
        dl_match m;                                                                                  \
        int ok = fz_site_open(&s, p, why) == 0 && find(law, &s, NULL, &m, why);                      \
        fz_site_close(&s);                                                                           \
        return ok;                                                                                   \
    }                                                                                                \
    ir_program *xf_fuse_##id##_apply(const ir_program *src, const xf_args *a, diag_list *d, int *st) \
    { return apply(law, src, a, d, st); }                                                            \
    char *xf_fuse_##id##_predict(const ir_program *p, const cost_profile *prof)                      \
    { return predict(law, p, prof); }

DL_FNS(bcast_sa, DL_BCAST_SA)
DL_FNS(sa_bcast, DL_SA_BCAST)
DL_FNS(allg_gb, DL_ALLG_GB)
DL_FNS(gb_allg, DL_GB_ALLG)
