/*
 * fuse_tuple.c — reduction fusion (Deitz et al., PPoPP 2006): k adjacent reductions over the same
 * processors (all `reduce` to the same root, or all `allreduce`) with elementwise operators and
 * blocks of one size become one reduction whose operator's state is the tuple of their states
 * and whose combine is the tuple of their combines (NAS MG ZRAN3: 40 reductions -> 1).
 *
 *   a1 = reduce(max) x1 to 0; a2 = reduce(+) x2 to 0
 *     ->  op fuse_tuple { state (f1 int, f2 int); combine (l1, l2) (r1, r2) = (max(l1, r1), l2 + r2) }
 *         (a1, a2) = reduce(fuse_tuple) (x1, x2) to 0
 *
 * No reduction of the run may read what an earlier one writes, and no two write one array.
 *
 * Global-view operators (with `in`): k adjacent reductions reading the same source blocks (one
 * input tuple) become one whose state, ident, preaccum, accum, postaccum, combine and gen are the
 * concatenations of theirs; the gen tuple lands in a new block, copied to the k destinations:
 *
 *   a[rp][0 .. 0] = allreduce(big1) (z[rp], zl[rp]); b[rp][0 .. 0] = allreduce(small1) (z[rp], zl[rp])
 *     ->  fr_out[rp] = allreduce(fuse_tuple) (z[rp], zl[rp]); a[rp][0] = fr_out[rp][0]; b[rp][0] = fr_out[rp][1]
 *
 * Saving under hockney: (k - 1)·log p·t_s (the words and operations stay; copies cost nothing).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuse_int.h"
#include "op.h"

#define MAXF OP_MAX_FIELDS

static int is_red(const ir_stmt *c)
{
    return c && (c->u.coll.ck == IR_C_REDUCE || c->u.coll.ck == IR_C_ALLREDUCE);
}

static const char *blk_array(const fz_site *s, const ir_expr *e)
{
    const ir_decl *a = e ? fz_block_array(s, e) : NULL;
    return a ? a->u.array.name : "";
}

/* Whether c may join the run [first, first + n): same kind and root, elementwise operator, same
 * block size, reads nothing the run writes, writes nothing the run writes or reads, fields fit. */
static int joins(const fz_site *s, int first, int n, const ir_stmt *c, int64_t m, int fields)
{
    if (!is_red(c) || c->u.coll.by) return 0;
    const ir_stmt *c0 = fz_coll(s, first);
    if (c->u.coll.ck != c0->u.coll.ck) return 0;
    if (c->u.coll.root && !fz_same_block(c->u.coll.root, c0->u.coll.root)) return 0;
    if (c->u.coll.op.user >= 0 && s->q->ops[c->u.coll.op.user]->u.op.in) return 0;
    if (fields + fz_op_arity(s, &c->u.coll.op) > MAXF) return 0;
    for (int k = 0; k < c->u.coll.nsrc; k++) if (m < 0 || fz_coll_block_elems(s, c, 0, k) != m) return 0;
    for (int i = first; i < first + n; i++) {
        const ir_stmt *o = fz_coll(s, i);
        for (int a = 0; a < c->u.coll.nsrc + c->u.coll.ndst; a++) {
            const ir_expr *x = a < c->u.coll.nsrc ? c->u.coll.src[a] : c->u.coll.dst[a - c->u.coll.nsrc];
            if (!x) continue;
            for (int b = 0; b < o->u.coll.ndst; b++)
                if (o->u.coll.dst[b] && !strcmp(blk_array(s, x), blk_array(s, o->u.coll.dst[b]))) return 0;
            if (a >= c->u.coll.nsrc)
                for (int b = 0; b < o->u.coll.nsrc; b++)
                    if (!strcmp(blk_array(s, x), blk_array(s, o->u.coll.src[b]))) return 0;
        }
    }
    return 1;
}

/* ---- global-view operators (with `in`) ------------------------------------------------------- */

static const ir_decl *gv_op(const fz_site *s, const ir_stmt *c)
{
    int u = c->u.coll.op.user;
    return u >= 0 && s->q->ops[u]->u.op.in ? s->q->ops[u] : NULL;
}

/* 1 when `text` mentions the name `w` as a whole word. */
static int mentions(const char *text, const char *w)
{
    size_t L = strlen(w);
    for (const char *p = strstr(text, w); p; p = strstr(p + 1, w)) {
        int before = p > text && (p[-1] == '_' || (p[-1] >= '0' && p[-1] <= '9') || ((p[-1] | 32) >= 'a' && (p[-1] | 32) <= 'z'));
        char a = p[L];
        int after = a == '_' || (a >= '0' && a <= '9') || ((a | 32) >= 'a' && (a | 32) <= 'z');
        if (!before && !after) return 1;
    }
    return 0;
}

/* Whether a global-view reduction c may stand alone in a fused run: a reduction with gen and
 * combine, one destination block (not `_`) of gen's size, a whole block or a range, whose
 * subscripts and range read none of the sources' arrays nor its own array, and sources (the
 * same text for the whole run) that do not mention its destination's array.  The copies run in
 * the original order, so destinations of one array (other ranges) keep the last writer. */
static int gv_alone(const fz_site *s, const ir_stmt *c)
{
    const ir_decl *od = gv_op(s, c);
    if (!is_red(c) || c->u.coll.by || !od || c->u.coll.ndst != 1 || !c->u.coll.dst[0]) return 0;
    const ir_opitem *gen = od->u.op.clause[IR_K_GEN];
    if (!gen || !od->u.op.clause[IR_K_COMBINE] || !od->u.op.associative) return 0;
    if (fz_coll_block_elems(s, c, 1, 0) != gen->nval) return 0;
    int ranged = c->u.coll.dst_lo && c->u.coll.dst_lo[0];
    if (!ranged && !(gen->nval == 1 && fz_block_rest_dims(s, c->u.coll.dst[0]) == 0)) return 0;
    char *d = fz_coll_block_text(c, 1, 0);
    const char *darr = blk_array(s, c->u.coll.dst[0]);
    int ok = !mentions(d + strlen(darr), darr);
    for (int k = 0; k < c->u.coll.nsrc && ok; k++) {
        char *src = fz_coll_block_text(c, 0, k);
        ok = !mentions(d, blk_array(s, c->u.coll.src[k])) && !mentions(src, darr);
        free(src);
    }
    free(d);
    return ok;
}

/* Whether global-view reduction c joins the run [first, first + n): same kind and root, same
 * source blocks (so the same input tuple), same `in` types, and the fused tuples fit. */
static int gv_joins(const fz_site *s, int first, const ir_stmt *c, int fields, int outs)
{
    const ir_stmt *c0 = fz_coll(s, first);
    if (!c || !gv_alone(s, c) || c->u.coll.ck != c0->u.coll.ck) return 0;
    if (c->u.coll.root && !fz_same_block(c->u.coll.root, c0->u.coll.root)) return 0;
    const ir_decl *o = gv_op(s, c), *o0 = gv_op(s, c0);
    if (fields + op_state_arity(s->q, o->u.op.index) > MAXF) return 0;
    if (outs + o->u.op.clause[IR_K_GEN]->nval > MAXF) return 0;
    if (c->u.coll.nsrc != c0->u.coll.nsrc || o->u.op.in->nfields != o0->u.op.in->nfields) return 0;
    for (int k = 0; k < o->u.op.in->nfields; k++)
        if (o->u.op.in->fields[k].type != o0->u.op.in->fields[k].type) return 0;
    int same = 1;
    for (int k = 0; k < c->u.coll.nsrc && same; k++) {
        char *a = fz_coll_block_text(c, 0, k), *b = fz_coll_block_text(c0, 0, k);
        same = !strcmp(a, b);
        free(a); free(b);
    }
    return same;
}

static int gv_run_at(const fz_site *s, int i)
{
    const ir_stmt *c0 = fz_coll(s, i);
    if (!gv_alone(s, c0)) return 0;
    int n = 1, fields = op_state_arity(s->q, c0->u.coll.op.user), outs = gv_op(s, c0)->u.op.clause[IR_K_GEN]->nval;
    for (const ir_stmt *c; gv_joins(s, i, c = fz_coll(s, i + n), fields, outs); n++) {
        fields += op_state_arity(s->q, c->u.coll.op.user);
        outs += gv_op(s, c)->u.op.clause[IR_K_GEN]->nval;
    }
    return n;
}

/* The run starting at statement i: its length (1 when nothing joins). */
static int run_at(const fz_site *s, int i)
{
    const ir_stmt *c0 = fz_coll(s, i);
    if (!is_red(c0) || c0->u.coll.by) return 0;
    if (gv_op(s, c0)) return gv_run_at(s, i);
    int64_t m = fz_coll_block_elems(s, c0, 0, 0);
    int n = 1, fields = fz_op_arity(s, &c0->u.coll.op);
    while (joins(s, i, n, fz_coll(s, i + n), m, fields)) {
        fields += fz_op_arity(s, &fz_coll(s, i + n)->u.coll.op);
        n++;
    }
    return n;
}

static int has_label(const fz_site *s, int i, int n, const char *label)
{
    if (!label) return 1;
    for (int k = i; k < i + n; k++) {
        const char *l = fz_coll(s, k)->u.coll.label;
        if (l && !strcmp(l, label)) return 1;
    }
    return 0;
}

static int find_run(const fz_site *s, const char *label, int *first, int *n, char **why)
{
    for (int i = 0; i < s->body->n; i++) {
        int k = run_at(s, i);
        if (k >= 2 && has_label(s, i, k, label)) { *first = i; *n = k; return 1; }
        if (k > 1) i += k - 1;
    }
    *why = xasprintf("no two adjacent reductions %s%sover the same processors (same kind and root; "
                       "elementwise operators on blocks of one size, none reading what another writes, "
                       "or global-view operators with gen and combine reading the same source blocks, "
                       "each writing one destination block or range of gen's size)",
                       label ? "with statement " : "", label ? label : "");
    return 0;
}

int xf_fuse_tuple_applicable(const ir_program *p, char **why)
{
    fz_site s;
    int first, n, ok = fz_site_open(&s, p, why) == 0 && find_run(&s, NULL, &first, &n, why);
    fz_site_close(&s);
    return ok;
}

static ir_program *fuse_one(const ir_program *src, const xf_args *a, diag_list *d);

/* `all=1`: every run, one after the other. */
ir_program *xf_fuse_tuple_apply(const ir_program *src, const xf_args *a, diag_list *d, int *status)
{
    *status = XF_EUSAGE;
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->items[i].key, "at") && strcmp(a->items[i].key, "all")) {
            diag_add(d, NULL, 0, 0, "fuse-reductions: unknown parameter '%s' (known: at, all)", a->items[i].key);
            return NULL;
        }
    const char *all = xf_args_get(a, "all", NULL);
    if (all && strcmp(all, "0") && strcmp(all, "1")) {
        diag_add(d, NULL, 0, 0, "fuse-reductions: all=%s (expected 0 or 1)", all);
        return NULL;
    }
    *status = XF_EREFUSED;
    ir_program *out = fuse_one(src, a, d);
    while (out && all && !strcmp(all, "1")) {
        char *why = NULL;
        if (!xf_fuse_tuple_applicable(out, &why)) { free(why); break; }
        ir_program *next = fuse_one(out, a, d);
        ir_program_free(out);
        out = next;
    }
    return out;
}

/* Appends n names base1.. (from `from` + 1) to a pattern list and returns them in v (malloc'd). */
static void names(char **v, int n, const char *base, int from)
{
    for (int i = 0; i < n; i++) v[i] = xasprintf("%s%d", base, from + i + 1);
}

static void free_names(char **v, int n)
{
    for (int i = 0; i < n; i++) free(v[i]);
}

static void tuple_text(strbuf *b, char *const *v, int n)
{
    strbuf_printf(b, "(");
    for (int i = 0; i < n; i++) strbuf_printf(b, "%s%s", i ? ", " : "", v[i]);
    strbuf_printf(b, ")");
}

/* The clause line "  KIND PATS = [let .. in] (vals)" of the fused global-view operator. */
static void clause_line(strbuf *b, const char *kind, const char *pats, strbuf *lets, strbuf *vals)
{
    strbuf_printf(b, "  %s %s= %s%s%s(%s)\n", kind, pats, lets->n ? "let " : "", lets->n ? lets->s : "",
                  lets->n ? " in " : "", vals->s);
    strbuf_free(lets);
    strbuf_free(vals);
}

/* The run [first, first + n) of global-view reductions over the same source blocks as one:
 * the fused operator's state is the concatenation of the parts' states (their pattern names
 * renamed apart, their lets kept under a prefix, so the operation counts add up), its input the
 * common one, every clause the concatenation (a part without preaccum/postaccum keeps its state
 * there); the concatenated gen tuple goes to a new block, copied piece by piece to the original
 * destinations in the original order (on the root only for `reduce`). */
static ir_program *fuse_global(const fz_site *s, int first, int n, diag_list *d)
{
    const ir_stmt *c0 = fz_coll(s, first), *cl = fz_coll(s, first + n - 1);
    const ir_decl *o0 = gv_op(s, c0);
    int nin = o0->u.op.in->nfields, nstate = 0, nout = 0, comm = 1, pre = 0, post = 0;
    ir_type otype = IR_INT;
    for (int k = first; k < first + n; k++) {
        const ir_decl *o = gv_op(s, fz_coll(s, k));
        nstate += op_state_arity(s->q, o->u.op.index);
        pre |= o->u.op.clause[IR_K_PREACCUM] != NULL;
        post |= o->u.op.clause[IR_K_POSTACCUM] != NULL;
        if (!o->u.op.commutative) comm = 0;
        const ir_opitem *gen = o->u.op.clause[IR_K_GEN];
        for (int i = 0; i < gen->nval; i++) if (gen->val[i]->type == IR_DOUBLE) otype = IR_DOUBLE;
        nout += gen->nval;
    }
    char *name = fz_fresh_name(s, "fuse_tuple", NULL), *res = fz_fresh_name(s, "fr_out", NULL);
    char *jv = fz_fresh_name(s, "fr_j", NULL);
    char *F[MAXF], *A[MAXF], *B[MAXF], *X[MAXF];
    names(F, nstate, "f", 0); names(A, nstate, "a", 0); names(B, nstate, "b", 0); names(X, nin, "x", 0);
    strbuf st = {0}, in = {0}, pf = {0}, pa = {0}, pb = {0}, px = {0};
    for (int i = 0; i < nin; i++)
        strbuf_printf(&in, "%s%s %s", i ? ", " : "", X[i], fz_type_name(o0->u.op.in->fields[i].type));
    tuple_text(&pf, F, nstate); tuple_text(&pa, A, nstate); tuple_text(&pb, B, nstate); tuple_text(&px, X, nin);
    static const ir_clause_kind kinds[] = {IR_K_IDENT, IR_K_PREACCUM, IR_K_ACCUM, IR_K_POSTACCUM, IR_K_COMBINE, IR_K_GEN};
    enum { NK = sizeof kinds / sizeof kinds[0] };
    strbuf lets[NK] = {{0}}, vals[NK] = {{0}}, copies = {0};
    int at = 0, off = 0;
    for (int k = first; k < first + n; k++) {
        const ir_stmt *c = fz_coll(s, k);
        int u = c->u.coll.op.user, ns = op_state_arity(s->q, u);
        for (int f = 0; f < ns; f++)
            strbuf_printf(&st, "%s%s %s", at + f ? ", " : "", F[at + f], fz_type_name(op_state_type(s->q, u, f)));
        char *prefix = xasprintf("t%d_", k - first + 1);
        for (int q = 0; q < NK; q++) {
            const char *const *p0 = (const char *const *)(kinds[q] == IR_K_COMBINE ? &A[at] : &F[at]);
            const char *const *p1 = (const char *const *)(kinds[q] == IR_K_COMBINE ? &B[at] : X);
            if (fz_op_clause_text(s, u, kinds[q], p0, p1, prefix, &lets[q], &vals[q]) < 0)
                for (int f = 0; f < ns; f++) strbuf_printf(&vals[q], "%s%s", vals[q].n ? ", " : "", F[at + f]);
        }
        free(prefix);
        /* the copy of this part's piece of the result to its destination */
        int g = s->q->ops[u]->u.op.clause[IR_K_GEN]->nval;
        char *dst = ir_print_expr(c->u.coll.dst[0]);
        const char *pv = s->pv->var;
        if (!c->u.coll.dst_lo || !c->u.coll.dst_lo[0]) {
            strbuf_printf(&copies, "%s = %s[%s][%d]\n", dst, res, pv, off);
        } else {
            char *lo = ir_print_expr(c->u.coll.dst_lo[0]);
            if (g == 1) strbuf_printf(&copies, "%s[%s] = %s[%s][%d]\n", dst, lo, res, pv, off);
            else strbuf_printf(&copies, "for %s = 0 .. %d {\n  %s[%s + %s] = %s[%s][%d + %s]\n}\n", jv, g - 1, dst,
                               lo, jv, res, pv, off, jv);
            free(lo);
        }
        free(dst);
        at += ns;
        off += g;
    }
    char *plo = ir_print_expr(s->pv->lo), *phi = ir_print_expr(s->pv->hi);
    strbuf decls = {0}, repl = {0}, srcs = {0};
    strbuf_printf(&decls, "op %s {\n  state (%s)\n  in (%s)\n", name, st.s, in.s);
    static const char *const kname[] = {"ident", "preaccum", "accum", "postaccum", "combine", "gen"};
    for (int q = 0; q < NK; q++) {
        if ((kinds[q] == IR_K_PREACCUM && !pre) || (kinds[q] == IR_K_POSTACCUM && !post)) {
            strbuf_free(&lets[q]); strbuf_free(&vals[q]);
            continue;
        }
        strbuf pats = {0};
        if (kinds[q] == IR_K_COMBINE) strbuf_printf(&pats, "%s %s ", pa.s, pb.s);
        else if (kinds[q] != IR_K_IDENT && kinds[q] != IR_K_GEN) strbuf_printf(&pats, "%s %s ", pf.s, px.s);
        else if (kinds[q] == IR_K_GEN) strbuf_printf(&pats, "%s ", pf.s);
        clause_line(&decls, kname[q], pats.n ? pats.s : "", &lets[q], &vals[q]);
        strbuf_free(&pats);
    }
    strbuf_printf(&decls, "  %s\n}\narray %s[%s .. %s][0 .. %d] %s # the fused reduction's result\n", comm ? "commutative" : "noncommutative",
                  res, plo, phi, nout - 1, fz_type_name(otype));
    if (s->q->level == IR_SYNDM) {   /* one row of the result per processor */
        char *v = fz_fresh_name(s, "frp", NULL);
        strbuf_printf(&decls, "dist %s(%s) [%s .. %s][0 .. %d]\n", res, v, v, v, nout - 1);
        free(v);
    }
    for (int k = 0; k < c0->u.coll.nsrc; k++) {
        char *t = fz_coll_block_text(c0, 0, k);
        strbuf_printf(&srcs, "%s%s", k ? ", " : "", t);
        free(t);
    }
    if (c0->u.coll.label) strbuf_printf(&repl, "%s: ", c0->u.coll.label);
    strbuf_printf(&repl, "%s[%s] = %s(%s) %s%s%s", res, s->pv->var, ir_coll_name(c0->u.coll.ck), name,
                  c0->u.coll.nsrc > 1 ? "(" : "", srcs.s, c0->u.coll.nsrc > 1 ? ")" : "");
    if (c0->u.coll.root) {
        char *r = ir_print_expr(c0->u.coll.root);
        strbuf_printf(&repl, " to %s\nif %s == %s {\n", r, s->pv->var, r);
        for (const char *p = copies.s; *p;) {
            const char *e = strchr(p, '\n');
            strbuf_printf(&repl, "  %.*s\n", (int)(e - p), p);
            p = e + 1;
        }
        strbuf_printf(&repl, "}");
        free(r);
    } else {
        copies.s[copies.n - 1] = 0;
        strbuf_printf(&repl, "\n%s", copies.s);
    }
    ir_program *out = fz_finish(s, "fuse-reductions", c0->pos.line, cl->pos.line, repl.s, decls.s, d);
    free_names(F, nstate); free_names(A, nstate); free_names(B, nstate); free_names(X, nin);
    strbuf_free(&st); strbuf_free(&in); strbuf_free(&pf); strbuf_free(&pa); strbuf_free(&pb); strbuf_free(&px);
    strbuf_free(&copies); strbuf_free(&decls); strbuf_free(&repl); strbuf_free(&srcs);
    free(plo); free(phi); free(name); free(res); free(jv);
    return out;
}

static ir_program *fuse_one(const ir_program *src, const xf_args *a, diag_list *d)
{
    fz_site s;
    char *why = NULL;
    int first = 0, n = 0;
    ir_program *out = NULL;
    if (fz_site_open(&s, src, &why) != 0 || !find_run(&s, xf_args_get(a, "at", NULL), &first, &n, &why)) {
        diag_add(d, src->file, 0, 0, "fuse-reductions refused: %s", why ? why : "no run");
        free(why);
        fz_site_close(&s);
        return NULL;
    }
    if (gv_op(&s, fz_coll(&s, first))) {
        out = fuse_global(&s, first, n, d);
        fz_site_close(&s);
        return out;
    }
    char *name = fz_fresh_name(&s, "fuse_tuple", NULL);
    strbuf st = {0}, lp = {0}, rp = {0}, vals = {0}, dsts = {0}, srcs = {0};
    int nf = 0, comm = 1;
    for (int k = first; k < first + n; k++) {
        const ir_stmt *c = fz_coll(&s, k);
        const ir_opref *op = &c->u.coll.op;
        int ar = fz_op_arity(&s, op);
        const ir_decl *arr = fz_block_array(&s, c->u.coll.src[0]);
        char *left[MAXF], *right[MAXF], *v[MAXF];
        for (int f = 0; f < ar; f++) {
            ir_type t = fz_op_field_type(&s, op, f, arr ? arr->u.array.elem : IR_INT);
            left[f] = xasprintf("l%d", nf + f + 1);
            right[f] = xasprintf("r%d", nf + f + 1);
            strbuf_printf(&st, "%sf%d %s", nf + f ? ", " : "", nf + f + 1, fz_type_name(t));
            strbuf_printf(&lp, "%s%s", nf + f ? ", " : "", left[f]);
            strbuf_printf(&rp, "%s%s", nf + f ? ", " : "", right[f]);
        }
        fz_op_combine_fields(&s, op, (const char *const *)left, (const char *const *)right, v, MAXF);
        for (int f = 0; f < ar; f++) {
            strbuf_printf(&vals, "%s%s", nf + f ? ", " : "", v[f]);
            free(v[f]); free(left[f]); free(right[f]);
        }
        for (int f = 0; f < c->u.coll.ndst; f++) {
            char *t = fz_coll_block_text(c, 1, f);
            strbuf_printf(&dsts, "%s%s", nf + f ? ", " : "", t);
            free(t);
        }
        for (int f = 0; f < c->u.coll.nsrc; f++) {
            char *t = fz_coll_block_text(c, 0, f);
            strbuf_printf(&srcs, "%s%s", nf + f ? ", " : "", t);
            free(t);
        }
        if (op_commutative(s.q, op) != 1) comm = 0;
        nf += ar;
    }
    const ir_stmt *c0 = fz_coll(&s, first), *cl = fz_coll(&s, first + n - 1);
    strbuf decls = {0}, repl = {0};
    strbuf_printf(&decls, "op %s {\n  state (%s)\n  combine (%s) (%s) = (%s)\n  %s\n}\n", name, st.s, lp.s, rp.s,
                  vals.s, comm ? "commutative" : "noncommutative");
    if (c0->u.coll.label) strbuf_printf(&repl, "%s: ", c0->u.coll.label);
    strbuf_printf(&repl, "(%s) = %s(%s) (%s)", dsts.s, ir_coll_name(c0->u.coll.ck), name, srcs.s);
    if (c0->u.coll.root) {
        char *r = ir_print_expr(c0->u.coll.root);
        strbuf_printf(&repl, " to %s", r);
        free(r);
    }
    out = fz_finish(&s, "fuse-reductions", c0->pos.line, cl->pos.line, repl.s, decls.s, d);
    strbuf_free(&st); strbuf_free(&lp); strbuf_free(&rp); strbuf_free(&vals); strbuf_free(&dsts);
    strbuf_free(&srcs); strbuf_free(&decls); strbuf_free(&repl);
    free(name);
    fz_site_close(&s);
    return out;
}

char *xf_fuse_tuple_predict(const ir_program *p, const cost_profile *prof)
{
    fz_site s;
    char *why = NULL, *txt = NULL;
    int first, n;
    if (fz_site_open(&s, p, &why) == 0 && find_run(&s, NULL, &first, &n, &why) && s.nprocs > 0) {
        /* a global-view reduction sends one state per processor (m = 1) */
        int64_t m = gv_op(&s, fz_coll(&s, first)) ? 1 : fz_coll_block_elems(&s, fz_coll(&s, first), 0, 0);
        double L = s.nprocs > 1 ? ceil(log2((double)s.nprocs)) : 0, words = 0, ops = 0;
        for (int k = first; k < first + n; k++) {
            const ir_opref *op = &fz_coll(&s, k)->u.coll.op;
            words += fz_op_arity(&s, op);
            ops += op->builtin >= 0 ? op_builtin_ticks((ir_bop)op->builtin)
                                    : op_clause_ops(s.q, op->user, IR_K_COMBINE);
        }
        double rest = L * (double)m * (words * prof->tw + ops);
        fz_gain g = {n * L * prof->ts + rest, L * prof->ts + rest,
                     "Deitz et al.: saves (k-1) log p t_s"};
        txt = fz_gain_text(&g, prof, m, s.nprocs);
    }
    free(why);
    fz_site_close(&s);
    return txt;
}
