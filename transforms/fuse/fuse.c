/*
 * fuse.c — the collective fusion rules of Gorlatch, Wedler, Lengauer (Optimization
 * Rules for Programming with Collective Operations, IPPS/SPDP 1999), errata applied:
 * SR2-Reduction, SR-Reduction, SS2-Scan, SS-Scan, BS-Comcast, BSS2-Comcast, BSS-Comcast,
 * BR-Local, BR-Alllocal, BSR2-Local, BSR-Local.
 *
 * Each rule is a row of one table: the chain of collectives it matches (adjacent statements
 * of the processor loop's body, each reading the block the previous one wrote), its side
 * condition (left distributivity of ⊗ over ⊕, or commutativity of ⊕, from the operator
 * property table of engine/op.h), which destinations it drops (they must be read nowhere
 * else), Table 1's costs, and the generator of the fused statements and their operator:
 *   SR2, SS2     (z, _) = [all]reduce|scan(op) (x, x)      op (s, r): (s1 ⊕ (r1 ⊗ s2), r1 ⊗ r2)
 *   SR           (z, _) = [all]reduce_bal(op) (x, x)       balanced tree, padded on the left
 *   SS           (z, _, _, _) = scan_bal(op) (x, x, x, x)  butterfly
 *   Comcast      the bcast stays; z[..][j] = repeat(op, rank, y[..][j], ..) (k-th element)
 *   Local        on the root: z[..][j] = repeat(op, p - 1, x[..][j], ..) (the last element);
 *                BR-Alllocal then broadcasts z.
 * `repeat` walks the bits of k for any p (the paper's `iter` assumes p = 2^k).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuse_int.h"
#include "op.h"

#define K(c) (1u << (c))

typedef enum fz_cond { C_NONE, C_DIST, C_COMM } fz_cond;
typedef enum fz_gen { G_SR2, G_SR, G_SS, G_COMCAST, G_LOCAL } fz_gen;
typedef enum fz_state { ST_COMP, ST_BSS2, ST_BSS, ST_NONE } fz_state;

typedef struct fz_rule {
    const char *name;
    int n;                     /* chain length */
    unsigned kinds[3];         /* allowed collective kinds at each position */
    fz_cond cond;
    int drop[3];               /* 1: the destination of position i disappears */
    fz_gen gen;
    fz_state st;               /* the repeat operator of Comcast/Local */
    int allbcast;              /* BR-Alllocal: broadcast the root's result */
    double before[3], after[3];/* Table 1: log p·(a·t_s + m·(b·t_w + c)) */
} fz_rule;

static const fz_rule rules[] = {
    {"sr2-reduction", 2, {K(IR_C_SCAN), K(IR_C_REDUCE) | K(IR_C_ALLREDUCE)}, C_DIST, {1, 0}, G_SR2, ST_NONE, 0,
     {2, 2, 3}, {1, 2, 3}},
    {"sr-reduction", 2, {K(IR_C_SCAN), K(IR_C_REDUCE) | K(IR_C_ALLREDUCE)}, C_COMM, {1, 0}, G_SR, ST_NONE, 0,
     {2, 2, 3}, {1, 2, 4}},
    {"ss2-scan", 2, {K(IR_C_SCAN), K(IR_C_SCAN)}, C_DIST, {1, 0}, G_SR2, ST_NONE, 0, {2, 2, 4}, {1, 2, 6}},
    {"ss-scan", 2, {K(IR_C_SCAN), K(IR_C_SCAN)}, C_COMM, {1, 0}, G_SS, ST_NONE, 0, {2, 2, 4}, {1, 3, 8}},
    {"bs-comcast", 2, {K(IR_C_BCAST), K(IR_C_SCAN)}, C_NONE, {0, 0}, G_COMCAST, ST_COMP, 0,
     {2, 2, 2}, {1, 1, 2}},
    {"bss2-comcast", 3, {K(IR_C_BCAST), K(IR_C_SCAN), K(IR_C_SCAN)}, C_DIST, {0, 1, 0}, G_COMCAST, ST_BSS2, 0,
     {3, 3, 4}, {1, 1, 5}},
    {"bss-comcast", 3, {K(IR_C_BCAST), K(IR_C_SCAN), K(IR_C_SCAN)}, C_COMM, {0, 1, 0}, G_COMCAST, ST_BSS, 0,
     {3, 3, 4}, {1, 1, 8}},
    {"br-local", 2, {K(IR_C_BCAST), K(IR_C_REDUCE)}, C_NONE, {1, 0}, G_LOCAL, ST_COMP, 0, {2, 2, 1}, {0, 0, 1}},
    {"br-alllocal", 2, {K(IR_C_BCAST), K(IR_C_ALLREDUCE)}, C_NONE, {1, 0}, G_LOCAL, ST_COMP, 1,
     {2, 2, 1}, {1, 1, 1}},
    {"bsr2-local", 3, {K(IR_C_BCAST), K(IR_C_SCAN), K(IR_C_REDUCE)}, C_DIST, {1, 1, 0}, G_LOCAL, ST_BSS2, 0,
     {3, 3, 3}, {0, 0, 3}},
    {"bsr-local", 3, {K(IR_C_BCAST), K(IR_C_SCAN), K(IR_C_REDUCE)}, C_COMM, {1, 1, 0}, G_LOCAL, ST_BSS, 0,
     {3, 3, 3}, {0, 0, 4}},
};

/* A matched chain. */
typedef struct fz_match {
    const ir_stmt *c[3];
    int n;
    const ir_opref *otimes;    /* ⊗ (DIST rules), else NULL */
    const ir_opref *oplus;     /* ⊕ */
    ir_type elem;
} fz_match;

static const ir_opref *first_op(const fz_match *m, int from)
{
    for (int i = from; i < m->n; i++) if (m->c[i]->u.coll.op.name) return &m->c[i]->u.coll.op;
    return NULL;
}

static int chain_has_label(const fz_match *m, const char *label)
{
    if (!label) return 1;
    for (int i = 0; i < m->n; i++) if (m->c[i]->u.coll.label && !strcmp(m->c[i]->u.coll.label, label)) return 1;
    return 0;
}

static const char *array_name(const fz_site *s, const ir_expr *blk)
{
    const ir_decl *a = fz_block_array(s, blk);
    return a ? a->u.array.name : "?";
}

/* The chain's shape at statement i (kinds, simple blocks, each reading the previous one's
 * destination, roots of Local rules equal).  1 when it matches. */
static int match_shape(const fz_rule *r, const fz_site *s, int i, fz_match *m)
{
    memset(m, 0, sizeof *m);
    m->n = r->n;
    for (int k = 0; k < r->n; k++) {
        const ir_stmt *c = fz_coll(s, i + k);
        if (!c || !(r->kinds[k] & K(c->u.coll.ck)) || !fz_coll_simple(c)) return 0;
        if (k > 0 && !fz_same_block(c->u.coll.src[0], m->c[k - 1]->u.coll.dst[0])) return 0;
        m->c[k] = c;
    }
    if (r->gen == G_LOCAL && m->c[r->n - 1]->u.coll.root &&
        !fz_same_block(m->c[0]->u.coll.root, m->c[r->n - 1]->u.coll.root)) return 0;
    const ir_decl *a = fz_block_array(s, m->c[0]->u.coll.src[0]);
    m->elem = a ? a->u.array.elem : IR_INT;
    return 1;
}

/* The side condition and the dropped values.  1 when the rule may fuse the chain; otherwise 0
 * with the reason in *why. */
static int check_chain(const fz_rule *r, const fz_site *s, fz_match *m, char **why)
{
    int ops_from = r->kinds[0] == K(IR_C_BCAST) ? 1 : 0;
    if (r->cond == C_DIST) {
        m->otimes = &m->c[ops_from]->u.coll.op;
        m->oplus = &m->c[r->n - 1]->u.coll.op;
    } else {
        m->oplus = first_op(m, ops_from);
        for (int k = ops_from; k < r->n; k++)
            if (strcmp(m->c[k]->u.coll.op.name, m->oplus->name)) {
                *why = xasprintf("line %d: %s needs the same operator in its collectives ('%s' and '%s')",
                                   m->c[k]->pos.line, r->name, m->oplus->name, m->c[k]->u.coll.op.name);
                return 0;
            }
    }
    if (!fz_op_simple(s, m->oplus, why) || (m->otimes && !fz_op_simple(s, m->otimes, why))) return 0;
    if (r->cond == C_DIST && op_distributes(s->q, m->otimes, m->oplus) != 1) {
        *why = xasprintf("line %d: '%s' does not distribute over '%s' (left distributivity a %s (b %s c) = "
                           "(a %s b) %s (a %s c), the operator table of polyapm-lang(5))",
                           m->c[ops_from]->pos.line, m->otimes->name, m->oplus->name, m->otimes->name,
                           m->oplus->name, m->otimes->name, m->oplus->name, m->otimes->name);
        return 0;
    }
    if (r->cond == C_COMM && op_commutative(s->q, m->oplus) != 1) {
        *why = xasprintf("line %d: '%s' is not commutative (%s needs a commutative operator)",
                           m->c[ops_from]->pos.line, m->oplus->name, r->name);
        return 0;
    }
    const ir_stmt *skip[3] = {m->c[0], m->c[1], m->n > 2 ? m->c[2] : NULL};
    const char *first_src = array_name(s, m->c[0]->u.coll.src[0]);
    const char *last_dst = array_name(s, m->c[r->n - 1]->u.coll.dst[0]);
    for (int k = 0; k < r->n; k++) {
        if (!r->drop[k]) continue;
        const char *a = array_name(s, m->c[k]->u.coll.dst[0]);
        const char *what = m->c[k]->u.coll.ck == IR_C_BCAST ? "the broadcast copies" : "the intermediate";
        if (!strcmp(a, first_src) || !strcmp(a, last_dst) ||
            fz_array_read_elsewhere(s, a, skip, m->n)) {
            *why = xasprintf("line %d: %s drops %s in '%s', which the program reads elsewhere (or keeps)",
                               m->c[k]->pos.line, r->name, what, a);
            return 0;
        }
    }
    return 1;
}

/* Finds the chain: the first (or the one with statement `label`) that matches and passes. */
static int find_chain(const fz_rule *r, const fz_site *s, const char *label, fz_match *m, char **why)
{
    char *first_why = NULL;
    for (int i = 0; i < s->body->n; i++) {
        if (!match_shape(r, s, i, m) || !chain_has_label(m, label)) continue;
        char *w = NULL;
        if (check_chain(r, s, m, &w)) { free(first_why); return 1; }
        if (!first_why) first_why = w; else free(w);
    }
    if (first_why) *why = first_why;
    else *why = xasprintf("no %s chain %s%s(adjacent collectives, each reading the block the previous one wrote)",
                            r->name, label ? "with statement " : "", label ? label : "");
    return 0;
}

/* ---- generating ----------------------------------------------------------------------------- */

typedef struct fz_gen_ctx {
    const fz_site *s;
    const fz_match *m;
    const ir_opref *P, *X;     /* ⊕, ⊗ */
} fz_gen_ctx;

static char *P(const fz_gen_ctx *g, const char *a, const char *b) { return fz_op_text(g->s, g->P, a, b); }
static char *X(const fz_gen_ctx *g, const char *a, const char *b) { return fz_op_text(g->s, g->X, a, b); }

/* The op declaration of SR2/SS2: (s1, r1) (s2, r2) -> (s1 ⊕ (r1 ⊗ s2), r1 ⊗ r2). */
static void op_sr2(const fz_gen_ctx *g, strbuf *b, const char *name, const char *T)
{
    char *rs = X(g, "r1", "s2"), *s = P(g, "s1", rs), *r = X(g, "r1", "r2");
    strbuf_printf(b, "op %s {\n  state (s %s, r %s)\n  combine (s1, r1) (s2, r2) = (%s, %s)\n  noncommutative\n}\n",
                  name, T, T, s, r);
    free(rs); free(s); free(r);
}

/* SR-Reduction: (t1⊕t2⊕u1, uu⊕uu), uu = u1⊕u2; one child: (t1, u1⊕u1). */
static void op_sr(const fz_gen_ctx *g, strbuf *b, const char *name, const char *T)
{
    char *tt = P(g, "t1", "t2"), *t = P(g, tt, "u1"), *uu = P(g, "u1", "u2"), *u = P(g, "uu", "uu"),
         *one = P(g, "u1", "u1");
    strbuf_printf(b, "op %s {\n  state (t %s, u %s)\n  combine (t1, u1) (t2, u2) = let uu = %s in (%s, %s)\n"
                  "  one (t1, u1) = (t1, %s)\n  noncommutative\n  nonassociative\n}\n", name, T, T, uu, t, u, one);
    free(tt); free(t); free(uu); free(u); free(one);
}

/* SS-Scan's butterfly: lower (s1, ttu, uuuu, vv), upper (s2⊕t1⊕v1, ttu, uuuu, uu⊕vv). */
static void op_ss(const fz_gen_ctx *g, strbuf *b, const char *name, const char *T)
{
    char *tt = P(g, "t1", "t2"), *ttu = P(g, tt, "u1"), *uu = P(g, "u1", "u2"), *uuuu = P(g, "uu", "uu"),
         *vv = P(g, "v1", "v2"), *st = P(g, "s2", "t1"), *stv = P(g, st, "v1"), *uvv = P(g, "uu", "vv");
    const char *pat = "(s1, t1, u1, v1) (s2, t2, u2, v2)";
    strbuf_printf(b, "op %s {\n  state (s %s, t %s, u %s, v %s)\n", name, T, T, T, T);
    strbuf_printf(b, "  lower %s = let ttu = %s, uu = %s, vv = %s in (s1, ttu, %s, vv)\n", pat, ttu, uu, vv, uuuu);
    strbuf_printf(b, "  upper %s = let ttu = %s, uu = %s, vv = %s in (%s, ttu, %s, %s)\n", pat, ttu, uu, vv, stv,
                  uuuu, uvv);
    strbuf_printf(b, "  nonassociative\n}\n");
    free(tt); free(ttu); free(uu); free(uuuu); free(vv); free(st); free(stv); free(uvv);
}

/* The repeat operators: the k-th element of the Comcast rules' scans of (b, b, ..). */
static int op_repeat_decl(const fz_gen_ctx *g, fz_state st, strbuf *b, const char *name, const char *T)
{
    if (st == ST_COMP) {   /* e(t,u) = (t, u⊕u), o(t,u) = (t⊕u, u⊕u) */
        char *uu = P(g, "u", "u"), *tu = P(g, "t", "u");
        strbuf_printf(b, "op %s {\n  state (t %s, u %s)\n  even (t, u) = (t, %s)\n  odd (t, u) = (%s, %s)\n}\n",
                      name, T, T, uu, tu, uu);
        free(uu); free(tu);
        return 2;
    }
    if (st == ST_BSS2) {   /* sP' = sT⊕(rT⊗sP) on odd, sT' = sT⊕(rT⊗sT), rT' = rT⊗rT */
        char *rsp = X(g, "rt", "sp"), *sp = P(g, "st", rsp), *rst = X(g, "rt", "st"), *s = P(g, "st", rst),
             *rr = X(g, "rt", "rt");
        strbuf_printf(b, "op %s {\n  state (sp %s, st %s, rt %s)\n  even (sp, st, rt) = (sp, %s, %s)\n"
                      "  odd (sp, st, rt) = (%s, %s, %s)\n}\n", name, T, T, T, s, rr, sp, s, rr);
        free(rsp); free(sp); free(rst); free(s); free(rr);
        return 3;
    }
    /* BSS: o = (s⊕t⊕v, t⊕t⊕u, uu⊕uu, uu⊕(v⊕v)), e = (s, t⊕t⊕u, uu⊕uu, v⊕v), uu = u⊕u */
    char *uu = P(g, "u", "u"), *tt = P(g, "t", "t"), *ttu = P(g, tt, "u"), *u4 = P(g, "uu", "uu"),
         *vv = P(g, "v", "v"), *s_t = P(g, "s", "t"), *stv = P(g, s_t, "v"), *uvv = P(g, "uu", vv);
    strbuf_printf(b, "op %s {\n  state (s %s, t %s, u %s, v %s)\n", name, T, T, T, T);
    strbuf_printf(b, "  even (s, t, u, v) = let uu = %s in (s, %s, %s, %s)\n", uu, ttu, u4, vv);
    strbuf_printf(b, "  odd (s, t, u, v) = let uu = %s in (%s, %s, %s, %s)\n}\n", uu, stv, ttu, u4, uvv);
    free(uu); free(tt); free(ttu); free(u4); free(vv); free(s_t); free(stv); free(uvv);
    return 4;
}

static char *label_prefix(const ir_stmt *c)
{
    return c->u.coll.label ? xasprintf("%s: ", c->u.coll.label) : xstrdup("");
}

/* Replacement lines and operator declarations for a matched chain. */
static void generate(const fz_rule *r, const fz_site *s, const fz_match *m, strbuf *repl, strbuf *decls)
{
    fz_gen_ctx g = {s, m, m->oplus, m->otimes};
    const char *T = fz_type_name(m->elem);
    const ir_stmt *last = m->c[r->n - 1];
    char *base = xasprintf("fuse_%.*s", (int)strcspn(r->name, "-"), r->name);
    char *name = fz_fresh_name(s, base, NULL);
    char *lab = label_prefix(last);
    char *src = ir_print_expr(m->c[0]->u.coll.src[0]), *dst = ir_print_expr(last->u.coll.dst[0]);
    char *root = last->u.coll.root ? ir_print_expr(last->u.coll.root) : NULL;
    const char *kind = ir_coll_name(last->u.coll.ck);
    switch (r->gen) {
    case G_SR2:
        op_sr2(&g, decls, name, T);
        strbuf_printf(repl, "%s(%s, _) = %s(%s) (%s, %s)", lab, dst, kind, name, src, src);
        if (root) strbuf_printf(repl, " to %s", root);
        break;
    case G_SR:
        op_sr(&g, decls, name, T);
        strbuf_printf(repl, "%s(%s, _) = %s_bal(%s) (%s, %s)", lab, dst, kind, name, src, src);
        if (root) strbuf_printf(repl, " to %s", root);
        break;
    case G_SS:
        op_ss(&g, decls, name, T);
        strbuf_printf(repl, "%s(%s, _, _, _) = scan_bal(%s) (%s, %s, %s, %s)", lab, dst, name, src, src, src, src);
        break;
    case G_COMCAST: case G_LOCAL: {
        int nst = op_repeat_decl(&g, r->st, decls, name, T);
        int local = r->gen == G_LOCAL;
        const ir_expr *from = local ? m->c[0]->u.coll.src[0] : m->c[0]->u.coll.dst[0];
        int nd = fz_block_rest_dims(s, from);
        char *vars[8];
        strbuf taken = {0};
        strbuf_printf(&taken, "%s", "");
        for (int k = 0; k < nd && k < 8; k++) {
            char *b0 = xasprintf("j%d", k + 1);
            vars[k] = fz_fresh_name(s, b0, taken.s);
            strbuf_printf(&taken, " %s", vars[k]);
            free(b0);
        }
        char *head = fz_block_loop_head(s, from, (const char *const *)vars);
        char *x = fz_block_elem(s, from, (const char *const *)vars);
        char *z = fz_block_elem(s, last->u.coll.dst[0], (const char *const *)vars);
        char *lo = ir_print_expr(s->pv->lo), *hi = ir_print_expr(s->pv->hi);
        char *k = local ? (!strcmp(lo, "0") ? xstrdup(hi) : xasprintf("%s - (%s)", hi, lo))
                        : (!strcmp(lo, "0") ? xstrdup(s->pv->var) : xasprintf("%s - (%s)", s->pv->var, lo));
        const char *ind = "";
        if (local) {
            char *broot = ir_print_expr(m->c[0]->u.coll.root);
            strbuf_printf(repl, "if %s == %s {\n", s->pv->var, broot);
            free(broot);
            ind = "  ";
        } else {
            char *bl = label_prefix(m->c[0]), *bs = ir_print_expr(m->c[0]->u.coll.src[0]),
                 *bd = ir_print_expr(m->c[0]->u.coll.dst[0]), *br = ir_print_expr(m->c[0]->u.coll.root);
            strbuf_printf(repl, "%s%s = bcast %s from %s\n", bl, bd, bs, br);
            free(bl); free(bs); free(bd); free(br);
        }
        if (head) strbuf_printf(repl, "%s%s {\n", ind, head);
        strbuf_printf(repl, "%s%s%s%s = repeat(%s, %s", ind, head ? "  " : "", lab, z, name, k);
        for (int f = 0; f < nst; f++) strbuf_printf(repl, ", %s", x);
        strbuf_printf(repl, ")\n");
        if (head) strbuf_printf(repl, "%s}\n", ind);
        if (local) strbuf_printf(repl, "}\n");
        if (r->allbcast) {
            char *broot = ir_print_expr(m->c[0]->u.coll.root);
            strbuf_printf(repl, "%s = bcast %s from %s\n", dst, dst, broot);
            free(broot);
        }
        for (int f = 0; f < nd && f < 8; f++) free(vars[f]);
        strbuf_free(&taken);
        free(head); free(x); free(z); free(lo); free(hi); free(k);
        break;
    }
    }
    free(base); free(name); free(lab); free(src); free(dst); free(root);
}

/* ---- the registry's entry points ------------------------------------------------------------ */

static int rule_applicable(const fz_rule *r, const ir_program *p, char **why)
{
    fz_site s;
    fz_match m;
    int ok = fz_site_open(&s, p, why) == 0 && find_chain(r, &s, NULL, &m, why);
    fz_site_close(&s);
    return ok;
}

static ir_program *rule_apply(const fz_rule *r, const ir_program *src, const xf_args *a, diag_list *d, int *status)
{
    *status = XF_EUSAGE;
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->items[i].key, "at")) {
            diag_add(d, NULL, 0, 0, "%s: unknown parameter '%s' (known: at)", r->name, a->items[i].key);
            return NULL;
        }
    *status = XF_EREFUSED;
    fz_site s;
    fz_match m;
    char *why = NULL;
    ir_program *out = NULL;
    if (fz_site_open(&s, src, &why) == 0 && find_chain(r, &s, xf_args_get(a, "at", NULL), &m, &why)) {
        strbuf repl = {0}, decls = {0};
        generate(r, &s, &m, &repl, &decls);
        if (repl.n && repl.s[repl.n - 1] == '\n') repl.s[--repl.n] = 0;
        out = fz_finish(&s, r->name, m.c[0]->pos.line, m.c[r->n - 1]->pos.line, repl.s, decls.s, d);
        strbuf_free(&repl);
        strbuf_free(&decls);
    } else {
        diag_add(d, src->file, 0, 0, "%s refused: %s", r->name, why ? why : "no chain");
    }
    free(why);
    fz_site_close(&s);
    return out;
}

static double table1(const double c[3], const cost_profile *prof, double m, double L)
{
    return L * (c[0] * prof->ts + m * (c[1] * prof->tw + c[2]));
}

static char *rule_predict(const fz_rule *r, const ir_program *p, const cost_profile *prof)
{
    fz_site s;
    fz_match m;
    char *why = NULL, *txt = NULL;
    if (fz_site_open(&s, p, &why) == 0 && find_chain(r, &s, NULL, &m, &why) && s.nprocs > 0) {
        int64_t mm = fz_block_elems(&s, m.c[0]->u.coll.src[0]);
        double L = s.nprocs > 1 ? ceil(log2((double)s.nprocs)) : 0;
        fz_gain g = {table1(r->before, prof, (double)mm, L), table1(r->after, prof, (double)mm, L),
                     "Gorlatch et al., Table 1"};
        txt = fz_gain_text(&g, prof, mm, s.nprocs);
    }
    free(why);
    fz_site_close(&s);
    return txt;
}

#define FZ_RULE(id, idx)                                                                              \
    int xf_fuse_##id##_applicable(const ir_program *p, char **why)                                     \
    { return rule_applicable(&rules[idx], p, why); }                                                   \
    ir_program *xf_fuse_##id##_apply(const ir_program *src, const xf_args *a, diag_list *d, int *st)   \
    { return rule_apply(&rules[idx], src, a, d, st); }                                                 \
    char *xf_fuse_##id##_predict(const ir_program *p, const cost_profile *prof)                        \
    { return rule_predict(&rules[idx], p, prof); }

FZ_RULE(sr2, 0)
FZ_RULE(sr, 1)
FZ_RULE(ss2, 2)
FZ_RULE(ss, 3)
FZ_RULE(bs, 4)
FZ_RULE(bss2, 5)
FZ_RULE(bss, 6)
FZ_RULE(br, 7)
FZ_RULE(brall, 8)
FZ_RULE(bsr2, 9)
FZ_RULE(bsr, 10)
