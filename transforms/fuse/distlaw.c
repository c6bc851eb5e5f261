/*
 * distlaw.c — the distribution laws of Di Cosmo, Pelagatti, Li (A Calculus for
 * Parallel Computations over Multidimensional Dense Arrays, 2004) as transforms, both ways:
 *
 *   bcast-scatter-allgather   y = bcast x from R       ->  s = scatter x from R; y = allgather s
 *   scatter-allgather-bcast   s = scatter x from R; y = allgather s   ->  y = bcast x from R
 *   allgather-gather-bcast    y = allgather x          ->  y = gather x to LO; y = bcast y from LO
 *   gather-bcast-allgather    y = gather x to R; y = bcast y from R   ->  y = allgather x
 *
 * (scatter ; allg = broadcast; allg = gath ; broadcast.)  The scatter needs the block to split
 * evenly over the processors; a new array `dl_part[rp][..]` holds the pieces (the reverse law
 * drops the pieces, which must be read nowhere else).
 *
 *   multicast-scatter-bcast      d = multicast X[rp / N * B .. rp / N * B + B - 1] from R  ->
 *       dl_rep[rp] = scatter X[0 .. p / N * B - 1] from R by select(rp % N == 0, 0, -1)
 *       d = bcast dl_rep[rp] from rp / N * N by rp / N
 *   multicast-scatter-allgather  the same multicast  ->
 *       dl_piece[rp] = scatter X[0 .. p / N * B - 1] from R;  d = allgather dl_piece[rp] by rp / N
 * (multicast = scatter to representatives ; group broadcasts = scatter ; group allgathers.)
 * scatter-bcast-multicast and scatter-allgather-multicast turn these two shapes (as written
 * here; the pieces read nowhere else) back into the multicast.
 *
 * At syndm the new array of pieces is distributed one row per processor (`dist P(v) [v .. v][..]`).
 * The predicted costs are the simulator's own (cost_collective of cost.h on the collectives of
 * each side), hockney and BSP.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuse_int.h"
#include "sim.h"

typedef enum dl_law {
    DL_BCAST_SA, DL_SA_BCAST, DL_ALLG_GB, DL_GB_ALLG, DL_MC_SB, DL_MC_SA, DL_SB_MC, DL_SA_MC
} dl_law;

static const char *const dl_names[] = {
    "bcast-scatter-allgather", "scatter-allgather-bcast", "allgather-gather-bcast", "gather-bcast-allgather",
    "multicast-scatter-bcast", "multicast-scatter-allgather", "scatter-bcast-multicast",
    "scatter-allgather-multicast",
};

typedef struct dl_match {
    const ir_stmt *c[2];
    int n;
    int64_t m;                 /* elements of the whole block (the bcast's, the allgather's result;
                                  a multicast: one group's block) */
    int64_t group;             /* a multicast's group size N (1 otherwise) */
    const ir_expr *gN, *gB;    /* a multicast's slice rp / N * B .. rp / N * B + B - 1 */
    char *B;                   /* the reverse laws: B as text (malloc'd) */
} dl_match;

static int mentions_var(const ir_expr *e, const char *v)
{
    if (!e) return 0;
    switch (e->kind) {
    case IR_E_NAME: return !strcmp(e->u.name.id, v);
    case IR_E_ACCESS:
        for (int i = 0; i < e->u.access.nidx; i++) if (mentions_var(e->u.access.idx[i], v)) return 1;
        return 0;
    case IR_E_UNARY: case IR_E_BINARY: return mentions_var(e->u.op.a, v) || mentions_var(e->u.op.b, v);
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++) if (mentions_var(e->u.call.args[i], v)) return 1;
        return 0;
    default: return e->kind != IR_E_INT && e->kind != IR_E_REAL;   /* reductions, repeat: assume so */
    }
}

static int64_t eval_const(const fz_site *s, const ir_expr *e)
{
    int64_t v = -1;
    double r;
    int isr;
    diag_list d;
    diag_list_init(&d);
    if (ir_const_eval(s->q, e, s->params, &v, &r, &isr, &d) != 0 || isr) v = -1;
    diag_list_free(&d);
    return v;
}

/* A multicast to groups of N consecutive processors, group g reading the g-th block of B:
 * `d = multicast X[rp / N * B .. rp / N * B + B - 1] from R` (R a group's first processor). */
static int match_multicast(dl_law law, const fz_site *s, const ir_stmt *a, dl_match *m, char **why)
{
    const char *rp = s->pv->var;
    if (!a || a->u.coll.ck != IR_C_MULTICAST || a->u.coll.by || a->u.coll.nsrc != 1 || !a->u.coll.src_lo ||
        !a->u.coll.src_lo[0] || (a->u.coll.dst_lo && a->u.coll.dst_lo[0])) return 0;
    const ir_expr *lo = a->u.coll.src_lo[0];
    char *plo = ir_print_expr(s->pv->lo);
    int shape = lo->kind == IR_E_BINARY && lo->u.op.op == IR_OP_MUL && lo->u.op.a->kind == IR_E_BINARY &&
                lo->u.op.a->u.op.op == IR_OP_DIV && lo->u.op.a->u.op.a->kind == IR_E_NAME &&
                !strcmp(lo->u.op.a->u.op.a->u.name.id, rp) && !mentions_var(lo->u.op.a->u.op.b, rp) &&
                !mentions_var(lo->u.op.b, rp) && !strcmp(plo, "0");
    free(plo);
    if (!shape) {
        if (!*why) *why = xasprintf("line %d: the multicast's slice is not rp / N * B .. rp / N * B + B - 1 "
                                      "(groups of N consecutive processors from processor 0)", a->pos.line);
        return 0;
    }
    m->gN = lo->u.op.a->u.op.b;
    m->gB = lo->u.op.b;
    char *lt = ir_print_expr(lo), *bt = ir_print_expr(m->gB), *ht = ir_print_expr(a->u.coll.src_hi[0]);
    char *want = xasprintf("%s + %s - 1", lt, bt);
    int hi_ok = !strcmp(ht, want);
    free(lt); free(bt); free(ht); free(want);
    int64_t N = eval_const(s, m->gN), B = eval_const(s, m->gB), R = eval_const(s, a->u.coll.root);
    const char *bad = !hi_ok ? "its slice does not end at rp / N * B + B - 1"
                    : N <= 0 || B <= 0 ? "N or B is not a positive constant"
                    : s->nprocs <= 0 || s->nprocs % N ? "the processors do not form whole groups of N"
                    : R < 0 || R % N ? "the root is not the first processor of a group"
                    : law == DL_MC_SA && B % N ? "the block B does not split over a group of N" : NULL;
    if (bad) {
        if (!*why) *why = xasprintf("line %d: %s", a->pos.line, bad);
        return 0;
    }
    m->c[0] = a; m->n = 1; m->m = B; m->group = N;
    return 1;
}

static int kind_is(const ir_stmt *c, ir_coll_kind k) { return c && c->u.coll.ck == k && fz_coll_simple(c); }

/* An expression as an operand: a name or a literal as it is, anything else parenthesised. */
static char *operand(const ir_expr *e)
{
    char *t = ir_print_expr(e);
    if (e->kind == IR_E_NAME || e->kind == IR_E_INT) return t;
    char *r = xasprintf("(%s)", t);
    free(t);
    return r;
}

static int text_is(const ir_expr *e, const char *want)
{
    char *t = e ? ir_print_expr(e) : NULL;
    int same = t && !strcmp(t, want);
    free(t);
    return same;
}

/* The reverse of the multicast laws: exactly the shapes they write (see the header). */
static int match_to_multicast(dl_law law, const fz_site *s, const ir_stmt *a, const ir_stmt *b, dl_match *m,
                              char **why)
{
    const char *rp = s->pv->var;
    ir_coll_kind second = law == DL_SB_MC ? IR_C_BCAST : IR_C_ALLGATHER;
    if (!a || !b || a->u.coll.ck != IR_C_SCATTER || b->u.coll.ck != second || !b->u.coll.by ||
        (law == DL_SB_MC) != (a->u.coll.by != NULL) || a->u.coll.nsrc != 1 || !a->u.coll.src_lo ||
        !a->u.coll.src_lo[0] || !text_is(a->u.coll.src_lo[0], "0") || (a->u.coll.dst_lo && a->u.coll.dst_lo[0]) ||
        !a->u.coll.dst[0] || b->u.coll.nsrc != 1 || (b->u.coll.src_lo && b->u.coll.src_lo[0]) ||
        !fz_same_block(a->u.coll.dst[0], b->u.coll.src[0]))
        return 0;
    const ir_expr *by = b->u.coll.by;
    if (!(by->kind == IR_E_BINARY && by->u.op.op == IR_OP_DIV && by->u.op.a->kind == IR_E_NAME &&
          !strcmp(by->u.op.a->u.name.id, rp) && !mentions_var(by->u.op.b, rp))) {
        if (!*why) *why = xasprintf("line %d: the groups are not `by rp / N`", b->pos.line);
        return 0;
    }
    m->gN = by->u.op.b;
    char *N = operand(m->gN);
    char *reps = xasprintf("select(%s %% %s == 0, 0, -1)", rp, N), *groot = xasprintf("%s / %s * %s", rp, N, N);
    int ok = law == DL_SA_MC || (text_is(a->u.coll.by, reps) && text_is(b->u.coll.root, groot));
    free(reps);
    free(groot);
    const ir_decl *part = fz_block_array(s, a->u.coll.dst[0]);
    const ir_stmt *skip[2] = {a, b};
    if (!ok || !part || part->u.array.ndims != 2 || !text_is(part->u.array.lo[1], "0") ||
        fz_array_read_elsewhere(s, part->u.array.name, skip, 2)) {
        if (!*why) *why = xasprintf("line %d: not the scatter to the groups' first processors and the group "
                                      "%s of its pieces (read nowhere else)", a->pos.line,
                                      law == DL_SB_MC ? "bcast" : "allgather");
        free(N);
        return 0;
    }
    char *hi = ir_print_expr(part->u.array.hi[1]), *piece;
    size_t L = strlen(hi);
    piece = L > 4 && !strcmp(hi + L - 4, " - 1") ? xasprintf("%.*s", (int)(L - 4), hi) : xasprintf("%s + 1", hi);
    m->B = law == DL_SB_MC ? xasprintf("(%s)", piece) : xasprintf("(%s) * %s", piece, N);
    free(hi);
    free(piece);
    free(N);
    m->c[0] = a; m->c[1] = b; m->n = 2;
    m->group = eval_const(s, m->gN);
    m->m = fz_coll_block_elems(s, a, 1, 0) * (law == DL_SA_MC ? m->group : 1);
    return m->group > 0;
}

static int match_at(dl_law law, const fz_site *s, int i, dl_match *m, char **why)
{
    const ir_stmt *a = fz_coll(s, i), *b = fz_coll(s, i + 1);
    memset(m, 0, sizeof *m);
    m->group = 1;
    switch (law) {
    case DL_MC_SB: case DL_MC_SA:
        return match_multicast(law, s, a, m, why);
    case DL_SB_MC: case DL_SA_MC:
        return match_to_multicast(law, s, a, b, m, why);
    case DL_BCAST_SA:
        if (!kind_is(a, IR_C_BCAST)) return 0;
        m->c[0] = a; m->n = 1;
        m->m = fz_block_elems(s, a->u.coll.src[0]);
        if (s->nprocs <= 0 || m->m < 0 || m->m % s->nprocs) {
            if (!*why) *why = xasprintf("line %d: the block of %lld elements does not split evenly over %lld "
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
            if (!*why) *why = xasprintf("line %d: the scattered pieces in '%s' are read elsewhere",
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
        free(m->B);
        m->B = NULL;
    }
    if (!*why) *why = xasprintf("no %s here", law == DL_BCAST_SA ? "bcast" : law == DL_SA_BCAST
                                  ? "scatter followed by an allgather of its pieces" : law == DL_ALLG_GB
                                  ? "allgather" : law == DL_GB_ALLG
                                  ? "gather followed by a bcast of its result from the root"
                                  : law == DL_SB_MC ? "scatter to the groups' first processors followed by a group bcast"
                                  : law == DL_SA_MC ? "scatter followed by a group allgather of its pieces"
                                  : "multicast");
    return 0;
}

/* At syndm: one row of the pieces' array per processor. */
static void add_dist(const fz_site *s, strbuf *decls, const char *part, const char *top)
{
    if (s->q->level != IR_SYNDM) return;
    char *v = fz_fresh_name(s, "dlp", NULL);
    strbuf_printf(decls, "dist %s(%s) [%s .. %s][0 .. %s]\n", part, v, v, v, top);
    free(v);
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
    dl_match m = {0};
    char *why = NULL;
    ir_program *out = NULL;
    if (fz_site_open(&s, src, &why) != 0 || !find(law, &s, xf_args_get(a, "at", NULL), &m, &why)) {
        diag_add(d, src->file, 0, 0, "%s refused: %s", nm, why ? why : "no match");
        free(why);
        free(m.B);
        fz_site_close(&s);
        return NULL;
    }
    const ir_stmt *c0 = m.c[0], *cl = m.c[m.n - 1];
    char *lab = c0->u.coll.label ? xasprintf("%s: ", c0->u.coll.label) : xstrdup("");
    char *x = ir_print_expr(c0->u.coll.src[0]), *y = ir_print_expr(cl->u.coll.dst[0]);
    char *root = c0->u.coll.root ? ir_print_expr(c0->u.coll.root) : ir_print_expr(s.pv->lo);
    strbuf repl = {0}, decls = {0};
    switch (law) {
    case DL_BCAST_SA: {
        const ir_decl *arr = fz_block_array(&s, c0->u.coll.src[0]);
        char *part = fz_fresh_name(&s, "dl_part", NULL);
        char *lo = ir_print_expr(s.pv->lo), *hi = ir_print_expr(s.pv->hi);
        strbuf size = {0};
        int first = c0->u.coll.src[0]->kind == IR_E_ACCESS ? c0->u.coll.src[0]->u.access.nidx : 0;
        for (int k = first; k < arr->u.array.ndims; k++) {
            char *l = ir_print_expr(arr->u.array.lo[k]), *h = ir_print_expr(arr->u.array.hi[k]);
            strbuf_printf(&size, "%s(%s - (%s) + 1)", k > first ? " * " : "", h, l);
            free(l); free(h);
        }
        if (!size.s) strbuf_printf(&size, "1");
        char *top = xasprintf("%s / (%s - (%s) + 1) - 1", size.s, hi, lo);
        strbuf_printf(&decls, "array %s[%s .. %s][0 .. %s] %s\n", part, lo, hi, top, fz_type_name(arr->u.array.elem));
        add_dist(&s, &decls, part, top);
        free(top);
        strbuf_printf(&repl, "%s%s[%s] = scatter %s from %s\n%s = allgather %s[%s]", lab, part, s.pv->var, x,
                      root, y, part, s.pv->var);
        free(part); free(lo); free(hi);
        strbuf_free(&size);
        break;
    }
    case DL_SA_BCAST:
        strbuf_printf(&repl, "%s%s = bcast %s from %s", lab, y, x, root);
        break;
    case DL_ALLG_GB:
        strbuf_printf(&repl, "%s%s = gather %s to %s\n%s = bcast %s from %s", lab, y, x, root, y, y, root);
        break;
    case DL_GB_ALLG:
        strbuf_printf(&repl, "%s%s = allgather %s", lab, y, x);
        break;
    case DL_MC_SB: case DL_MC_SA: {
        const ir_decl *arr = fz_block_array(&s, c0->u.coll.src[0]);
        char *N = operand(m.gN), *B = operand(m.gB), *hi = ir_print_expr(s.pv->hi);
        const char *rv = s.pv->var;
        char *part = fz_fresh_name(&s, law == DL_MC_SB ? "dl_rep" : "dl_piece", NULL);
        char *top = law == DL_MC_SA ? xasprintf("(%s) / %s - 1", B, N) : xasprintf("%s - 1", B);
        strbuf_printf(&decls, "array %s[0 .. %s][0 .. %s] %s\n", part, hi, top, fz_type_name(arr->u.array.elem));
        add_dist(&s, &decls, part, top);
        free(top);
        strbuf_printf(&repl, "%s%s[%s] = scatter %s[0 .. (%s + 1) / (%s) * (%s) - 1] from %s", lab, part, rv, x, hi,
                      N, B, root);
        if (law == DL_MC_SB)
            strbuf_printf(&repl, " by select(%s %% (%s) == 0, 0, -1)\n%s = bcast %s[%s] from %s / (%s) * (%s) by %s / (%s)",
                          rv, N, y, part, rv, rv, N, N, rv, N);
        else
            strbuf_printf(&repl, "\n%s = allgather %s[%s] by %s / (%s)", y, part, rv, rv, N);
        free(N); free(B); free(hi); free(part);
        break;
    }
    case DL_SB_MC: case DL_SA_MC: {
        char *N = operand(m.gN), *ax = ir_print_expr(c0->u.coll.src[0]);
        const char *rv = s.pv->var;
        strbuf_printf(&repl, "%s%s = multicast %s[%s / %s * %s .. %s / %s * %s + %s - 1] from %s", lab, y, ax, rv, N,
                      m.B, rv, N, m.B, m.B, root);
        free(N); free(ax);
        break;
    }
    }
    out = fz_finish(&s, nm, c0->pos.line, cl->pos.line, repl.s, decls.s, d);
    strbuf_free(&repl);
    strbuf_free(&decls);
    free(lab); free(x); free(y); free(root); free(m.B);
    fz_site_close(&s);
    return out;
}

/* The collectives of one side of a law, priced by the simulator's own formulas (cost.h). */
typedef struct dl_side { sim_coll_rec r[2]; int n; } dl_side;

static sim_coll_rec rec(ir_coll_kind k, double procs, double m, double groups)
{
    sim_coll_rec r = {.kind = k, .nprocs = (int)procs, .m = m, .words = 1, .ops = 0, .groups = (int)groups};
    return r;
}

static double price(const char *model, const dl_side *sd, const cost_profile *c)
{
    double t = 0;
    for (int i = 0; i < sd->n; i++) t += cost_collective(model, &sd->r[i], c);
    return t;
}

/* The two sides (before, after) of a law at M (the whole block), p processors, groups of N. */
static void sides(dl_law law, double M, double p, double N, dl_side *before, dl_side *after)
{
    dl_side one = {{{0}}, 0}, two = {{{0}}, 0};
    switch (law) {
    case DL_BCAST_SA: case DL_SA_BCAST:
        one.r[one.n++] = rec(IR_C_BCAST, p, M, 1);
        two.r[two.n++] = rec(IR_C_SCATTER, p, M / p, 1);
        two.r[two.n++] = rec(IR_C_ALLGATHER, p, M / p, 1);
        break;
    case DL_ALLG_GB: case DL_GB_ALLG:
        one.r[one.n++] = rec(IR_C_ALLGATHER, p, M / p, 1);
        two.r[two.n++] = rec(IR_C_GATHER, p, M / p, 1);
        two.r[two.n++] = rec(IR_C_BCAST, p, M, 1);
        break;
    case DL_MC_SB: case DL_SB_MC:
        one.r[one.n++] = rec(IR_C_MULTICAST, p, M, 1);
        two.r[two.n++] = rec(IR_C_SCATTER, p / N, M, 1);
        two.r[two.n++] = rec(IR_C_BCAST, N, M, p / N);
        break;
    case DL_MC_SA: case DL_SA_MC:
        one.r[one.n++] = rec(IR_C_MULTICAST, p, M, 1);
        two.r[two.n++] = rec(IR_C_SCATTER, p, M / N, 1);
        two.r[two.n++] = rec(IR_C_ALLGATHER, N, M / N, p / N);
        break;
    }
    int fwd = law == DL_BCAST_SA || law == DL_ALLG_GB || law == DL_MC_SB || law == DL_MC_SA;
    *before = fwd ? one : two;
    *after = fwd ? two : one;
}

static char *predict(dl_law law, const ir_program *p, const cost_profile *prof)
{
    fz_site s;
    dl_match m = {0};
    char *why = NULL, *txt = NULL;
    if (fz_site_open(&s, p, &why) == 0 && find(law, &s, NULL, &m, &why) && s.nprocs > 0) {
        dl_side before, after;
        sides(law, (double)m.m, (double)s.nprocs, (double)m.group, &before, &after);
        fz_gain g = {price("hockney", &before, prof), price("hockney", &after, prof),
                     "Di Cosmo et al."};
        double b0 = price("bsp", &before, prof), b1 = price("bsp", &after, prof);
        char *t = fz_gain_text(&g, prof, m.m, s.nprocs);
        txt = xasprintf("%s; bsp (g=%g, l=%g): before %.6g, after %.6g, gain %.6g%s", t, prof->g,
                          cost_barrier(prof, (int)s.nprocs), b0, b1, b0 - b1,
                          b0 < b1 ? "  WARNING: negative gain" : "");
        free(t);
    }
    free(m.B);
    free(why);
    fz_site_close(&s);
    return txt;
}

#define DL_FNS(id, law)                                                                             \
    int xf_fuse_##id##_applicable(const ir_program *p, char **why)                                   \
    {                                                                                                \
        fz_site s;                                                                                   \
        dl_match m = {0};                                                                            \
        int ok = fz_site_open(&s, p, why) == 0 && find(law, &s, NULL, &m, why);                      \
        free(m.B);                                                                                   \
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
DL_FNS(mc_sb, DL_MC_SB)
DL_FNS(mc_sa, DL_MC_SA)
DL_FNS(sb_mc, DL_SB_MC)
DL_FNS(sa_mc, DL_SA_MC)
