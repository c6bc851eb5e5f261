/*
 * memdist_bounds.c — the bound expressions of memdist's local memories: a virtual processor's
 * bound taken over a real processor's virtual processors (at its first or last one where the
 * bound is monotone, else a reduction), folded, tidied and simplified by isl against the
 * processor range and the parameters' context.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/id.h>
#include <isl/ilp.h>
#include <isl/val.h>

#include "distribute_int.h"

static ir_expr *bin(ir_program *p, ir_op op, ir_expr *a, ir_expr *b) { return ir_new_binary(p, op, a, b); }

/* Is f (a pw_aff of the processor dimensions) monotone non-decreasing (+1) or non-increasing
 * (-1) in dimension d over `dom`, or neither (0)?  Compares f(x + e_d) with f(x) at every x with
 * both x and x + e_d in dom.  f is first simplified against dom (gist: its pieces lose the
 * constraints dom implies, often existential ones that every comparison of two pieces would
 * copy), and dom is intersected once at the end: the answer is the same, ten to a hundred times
 * sooner. */
int xf_md_monotone(__isl_keep isl_pw_aff *f, __isl_keep isl_set *dom, int d)
{
    /* x -> x + e_d */
    isl_multi_aff *sh = isl_multi_aff_identity(isl_space_map_from_set(isl_set_get_space(dom)));
    isl_aff *a = isl_aff_add_constant_si(isl_multi_aff_get_aff(sh, d), 1);
    sh = isl_multi_aff_set_aff(sh, d, a);
    /* the x with x and x + e_d in dom */
    isl_set *both = isl_set_intersect(isl_set_copy(dom), isl_set_preimage_multi_aff(isl_set_copy(dom),
                                                                                  isl_multi_aff_copy(sh)));
    isl_pw_aff *here = isl_pw_aff_gist(isl_pw_aff_copy(f), isl_set_copy(dom));   /* f on dom */
    isl_pw_aff *next = isl_pw_aff_pullback_multi_aff(isl_pw_aff_copy(here), sh); /* x -> f(x + e_d) */
    isl_set *dec = isl_pw_aff_lt_set(isl_pw_aff_copy(next), isl_pw_aff_copy(here));
    isl_set *inc = isl_pw_aff_gt_set(next, here);
    dec = isl_set_intersect(dec, isl_set_copy(both));
    inc = isl_set_intersect(inc, both);
    int hasdec = isl_set_is_empty(dec) == isl_bool_false, hasinc = isl_set_is_empty(inc) == isl_bool_false;
    isl_set_free(dec);
    isl_set_free(inc);
    return hasdec && hasinc ? 0 : hasdec ? -1 : 1;
}

/* e - c - c'  ->  e - (c + c'): fold integer literals at the right of a sum. */
ir_expr *xf_md_fold(ir_program *p, ir_expr *e)
{
    if (!e || e->kind != IR_E_BINARY || (e->u.op.op != IR_OP_ADD && e->u.op.op != IR_OP_SUB)) return e;
    e->u.op.a = xf_md_fold(p, e->u.op.a);
    ir_expr *a = e->u.op.a, *b = e->u.op.b;
    if (b->kind != IR_E_INT || a->kind != IR_E_BINARY || (a->u.op.op != IR_OP_ADD && a->u.op.op != IR_OP_SUB) ||
        a->u.op.b->kind != IR_E_INT)
        return e;
    int64_t v = (a->u.op.op == IR_OP_ADD ? a->u.op.b->u.ival : -a->u.op.b->u.ival) +
                (e->u.op.op == IR_OP_ADD ? b->u.ival : -b->u.ival);
    if (v == 0) return a->u.op.a;
    return ir_new_binary(p, v > 0 ? IR_OP_ADD : IR_OP_SUB, a->u.op.a, ir_new_int(p, v > 0 ? v : -v));
}

/* e as base + c: the base's text (malloc'd) and c. */
char *xf_md_split_const(const ir_expr *e, int64_t *c)
{
    *c = 0;
    if (e->kind == IR_E_BINARY && (e->u.op.op == IR_OP_ADD || e->u.op.op == IR_OP_SUB) && e->u.op.b->kind == IR_E_INT) {
        *c = e->u.op.op == IR_OP_ADD ? e->u.op.b->u.ival : -e->u.op.b->u.ival;
        return ir_print_expr(e->u.op.a);
    }
    if (e->kind == IR_E_INT) { *c = e->u.ival; return xstrdup(""); }
    return ir_print_expr(e);
}

/* A pw_aff of the processor dimensions with them as parameters named after their variables. */
__isl_give isl_pw_aff *xf_md_pv_params(__isl_take isl_pw_aff *pa, unsigned npar, const xf_tiling *T,
                                       __isl_keep isl_ctx *ctx)
{
    pa = isl_pw_aff_move_dims(pa, isl_dim_param, npar, isl_dim_in, 0, (unsigned)T->np);
    for (int q = 0; q < T->np; q++)
        pa = isl_pw_aff_set_dim_id(pa, isl_dim_param, npar + (unsigned)q, isl_id_alloc(ctx, T->pv[q], NULL));
    return isl_pw_aff_project_domain_on_params(pa);
}

/* The bound over real processor rp's virtual processors of x (an expression of them): the value
 * at the first or last one when x is monotone (mono[q] = +1/-1), otherwise a reduction. */
ir_expr *xf_md_real_bound(ir_program *out, const xf_tiling *T, const char *rpv, ir_expr *x, const int *mono,
                          int e, const ir_expr *P1, int *ok)
{
    int np = T->np, dep = 0;
    for (int q = 0; q < np; q++) dep |= xf_mentions(x, T->pv[q]);
    if (!dep || T->k == TK_NONE) return x;
    static const char *const kn[] = {"k1", "k2"};
    if (T->k == TK_BLOCKCYCLIC) {
        /* rp's virtual processors: P0 + (rp + k1 * procs) * bs + k2 (at most P1), for
         * k1 = 0 .. KL with KL = ((P1 - P0) / bs - rp) / procs (its last block) and k2 = 0 .. bs - 1 */
        if (!P1) { *ok = 0; return x; }
        ir_expr *p0 = T->p0[0] ? ir_clone_expr(out, T->p0[0]) : ir_new_int(out, 0);
        ir_expr *KL = bin(out, IR_OP_DIV,
                          bin(out, IR_OP_SUB, bin(out, IR_OP_DIV, bin(out, IR_OP_SUB, ir_clone_expr(out, P1), ir_clone_expr(out, p0)),
                                                  ir_clone_expr(out, T->b[0])),
                              ir_new_name(out, rpv)),
                          ir_new_name(out, "procs"));
        if (mono[0]) {
            ir_expr *at[1];
            if ((mono[0] > 0) == (e == 0)) {   /* the first one: P0 + rp * bs */
                at[0] = bin(out, IR_OP_ADD, p0, bin(out, IR_OP_MUL, ir_new_name(out, rpv), ir_clone_expr(out, T->b[0])));
            } else {                           /* the last one: min(P1, P0 + (rp + KL * procs) * bs + bs - 1) */
                ir_expr *blk = bin(out, IR_OP_ADD, ir_new_name(out, rpv), bin(out, IR_OP_MUL, KL, ir_new_name(out, "procs")));
                ir_expr *end = bin(out, IR_OP_SUB, bin(out, IR_OP_ADD, bin(out, IR_OP_ADD, p0, bin(out, IR_OP_MUL, blk, ir_clone_expr(out, T->b[0]))),
                                                       ir_clone_expr(out, T->b[0])), ir_new_int(out, 1));
                ir_expr *args[2] = {ir_clone_expr(out, P1), xf_md_fold(out, end)};
                at[0] = ir_new_call(out, IR_F_MIN, args, 2);
            }
            return xf_md_fold(out, xf_subst(out, x, T->pv, at, 1));
        }
        ir_expr *blk = bin(out, IR_OP_ADD, ir_new_name(out, rpv), bin(out, IR_OP_MUL, ir_new_name(out, kn[0]), ir_new_name(out, "procs")));
        ir_expr *args[2] = {ir_clone_expr(out, P1),
                            bin(out, IR_OP_ADD, bin(out, IR_OP_ADD, p0, bin(out, IR_OP_MUL, blk, ir_clone_expr(out, T->b[0]))),
                                ir_new_name(out, kn[1]))};
        ir_expr *at[1] = {ir_new_call(out, IR_F_MIN, args, 2)};
        ir_expr *body = xf_subst(out, x, T->pv, at, 1);
        for (int q = 1; q >= 0; q--) {
            ir_expr *r = ir_alloc(out, sizeof *r);
            r->kind = IR_E_REDUCE;
            r->u.reduce.r = e == 0 ? IR_R_MIN : IR_R_MAX;
            r->u.reduce.var = ir_strdup(out, kn[q]);
            r->u.reduce.lo = ir_new_int(out, 0);
            r->u.reduce.hi = q ? bin(out, IR_OP_SUB, ir_clone_expr(out, T->b[0]), ir_new_int(out, 1)) : KL;
            r->u.reduce.body = body;
            body = r;
        }
        return body;
    }
    ir_expr *first[2], *last[2];
    for (int q = 0; q < np; q++) {
        ir_expr *p0 = T->p0[q] ? ir_clone_expr(out, T->p0[q]) : NULL;
        ir_expr *base;
        if (T->k == TK_BLOCKED) {
            base = bin(out, IR_OP_MUL, ir_new_name(out, rpv), ir_clone_expr(out, T->b[0]));
        } else if (T->k == TK_BLOCK2D) {
            ir_expr *blk = bin(out, q ? IR_OP_MOD : IR_OP_DIV, ir_new_name(out, rpv), ir_new_name(out, T->q));
            base = bin(out, IR_OP_MUL, blk, ir_clone_expr(out, T->b[q]));
        } else {
            base = ir_new_name(out, rpv);
        }
        first[q] = p0 ? bin(out, IR_OP_ADD, p0, base) : base;
        last[q] = T->k == TK_CYCLIC ? NULL
                  : bin(out, IR_OP_SUB, bin(out, IR_OP_ADD, ir_clone_expr(out, first[q]),
                                            ir_clone_expr(out, T->b[T->k == TK_BLOCK2D ? q : 0])), ir_new_int(out, 1));
    }
    int simple = T->k != TK_CYCLIC;
    for (int q = 0; q < np; q++) simple &= mono[q] != 0;
    if (simple) {
        ir_expr *at[2];
        for (int q = 0; q < np; q++) at[q] = (mono[q] > 0) == (e == 0) ? first[q] : last[q];
        return xf_md_fold(out, xf_subst(out, x, T->pv, at, np));
    }
    if (T->k == TK_CYCLIC) {
        if (!P1) { *ok = 0; return x; }
        ir_expr *pk = bin(out, IR_OP_ADD, first[0], bin(out, IR_OP_MUL, ir_new_name(out, kn[0]), ir_new_name(out, "procs")));
        ir_expr *at[1] = {pk};
        ir_expr *r = ir_alloc(out, sizeof *r);
        r->kind = IR_E_REDUCE;
        r->u.reduce.r = e == 0 ? IR_R_MIN : IR_R_MAX;
        r->u.reduce.var = ir_strdup(out, kn[0]);
        r->u.reduce.lo = ir_new_int(out, 0);
        r->u.reduce.hi = bin(out, IR_OP_DIV, bin(out, IR_OP_SUB, ir_clone_expr(out, P1), ir_clone_expr(out, first[0])),
                             ir_new_name(out, "procs"));
        r->u.reduce.body = xf_subst(out, x, T->pv, at, 1);
        return r;
    }
    ir_expr *at[2];
    for (int q = 0; q < np; q++) at[q] = ir_new_name(out, kn[q]);
    ir_expr *body = xf_subst(out, x, T->pv, at, np);
    for (int q = np - 1; q >= 0; q--) {
        ir_expr *r = ir_alloc(out, sizeof *r);
        r->kind = IR_E_REDUCE;
        r->u.reduce.r = e == 0 ? IR_R_MIN : IR_R_MAX;
        r->u.reduce.var = ir_strdup(out, kn[q]);
        r->u.reduce.lo = first[q];
        r->u.reduce.hi = last[q];
        r->u.reduce.body = body;
        body = r;
    }
    return body;
}

static int same_expr(const ir_expr *a, const ir_expr *b)
{
    char *x = ir_print_expr(a), *y = ir_print_expr(b);
    int r = !strcmp(x, y);
    free(x);
    free(y);
    return r;
}

/* min/max cleanups isl cannot do on non-affine bounds: nested calls of the same kind flattened,
 * repeated arguments dropped, and absorption (max(min(a, X), a) = a, min(max(a, X), a) = a). */
ir_expr *xf_md_tidy_minmax(ir_program *out, ir_expr *e)
{
    if (!e || e->kind != IR_E_CALL || (e->u.call.f != IR_F_MIN && e->u.call.f != IR_F_MAX)) return e;
    ir_func f = e->u.call.f, g = f == IR_F_MIN ? IR_F_MAX : IR_F_MIN;
    int cap = 0;
    for (int i = 0; i < e->u.call.nargs; i++) {
        ir_expr *a = xf_md_tidy_minmax(out, e->u.call.args[i]);
        e->u.call.args[i] = a;
        cap += a->kind == IR_E_CALL && a->u.call.f == f ? a->u.call.nargs : 1;
    }
    ir_expr *args[cap + 1];
    int n = 0;
    for (int i = 0; i < e->u.call.nargs; i++) {
        ir_expr *a = e->u.call.args[i];
        int na = a->kind == IR_E_CALL && a->u.call.f == f ? a->u.call.nargs : 1;
        for (int j = 0; j < na; j++) {
            ir_expr *x = na > 1 || (a->kind == IR_E_CALL && a->u.call.f == f) ? a->u.call.args[j] : a;
            int dup = 0;
            for (int k = 0; k < n && !dup; k++) dup = same_expr(args[k], x);
            if (!dup) args[n++] = x;
        }
    }
    /* absorption: an argument g(.., y, ..) with y another argument is redundant */
    int kept = 0;
    for (int i = 0; i < n; i++) {
        int absorbed = 0;
        if (args[i]->kind == IR_E_CALL && args[i]->u.call.f == g)
            for (int j = 0; j < n && !absorbed; j++)
                for (int k = 0; j != i && k < args[i]->u.call.nargs && !absorbed; k++)
                    absorbed = same_expr(args[i]->u.call.args[k], args[j]);
        if (!absorbed) args[kept++] = args[i];
    }
    n = kept;
    return n == 1 ? args[0] : ir_new_call(out, f, args, n);
}

/* e as isl text when it is affine in `names` (the parameters and rp); a product rp * B with B
 * the blocked tiling's block size (>= 1) becomes an atom _aK >= 0.  0, or -1 when not readable. */
typedef struct atoms { const ir_expr *e[8]; int n; } atoms;
static int isl_text(strbuf *b, const ir_expr *e, const char *const *names, int n, const char *rpv,
                    const char *bname, atoms *at)
{
    char tmp[80];
    switch (e->kind) {
    case IR_E_INT:
        strbuf_printf(b, "%lld", (long long)e->u.ival);
        return 0;
    case IR_E_NAME:
        for (int i = 0; i < n; i++)
            if (!strcmp(e->u.name.id, names[i])) {
                strbuf_printf(b, "%s", xf_isl_name(names[i], tmp, sizeof tmp));
                return 0;
            }
        return -1;
    case IR_E_UNARY:
        if (e->u.op.op != IR_OP_NEG) return -1;
        strbuf_printf(b, "-(");
        if (isl_text(b, e->u.op.a, names, n, rpv, bname, at) < 0) return -1;
        strbuf_printf(b, ")");
        return 0;
    case IR_E_BINARY: {
        const ir_expr *x = e->u.op.a, *y = e->u.op.b;
        switch (e->u.op.op) {
        case IR_OP_ADD: case IR_OP_SUB:
            strbuf_printf(b, "(");
            if (isl_text(b, x, names, n, rpv, bname, at) < 0) return -1;
            strbuf_printf(b, ") %s (", e->u.op.op == IR_OP_ADD ? "+" : "-");
            if (isl_text(b, y, names, n, rpv, bname, at) < 0) return -1;
            strbuf_printf(b, ")");
            return 0;
        case IR_OP_MUL: {
            int64_t kv;
            int kx = xf_int_const(x, &kv) == 0;
            if (kx || xf_int_const(y, &kv) == 0) {   /* isl: a bare literal at the left, -2*(n) */
                strbuf_printf(b, "%lld*(", (long long)kv);
                if (isl_text(b, kx ? y : x, names, n, rpv, bname, at) < 0) return -1;
                strbuf_printf(b, ")");
                return 0;
            }
            if (bname && x->kind == IR_E_NAME && y->kind == IR_E_NAME &&
                ((!strcmp(x->u.name.id, rpv) && !strcmp(y->u.name.id, bname)) ||
                 (!strcmp(y->u.name.id, rpv) && !strcmp(x->u.name.id, bname)))) {
                int k = 0;
                while (k < at->n && !(at->e[k]->u.op.a->kind == x->kind && !strcmp(at->e[k]->u.op.a->u.name.id, x->u.name.id)))
                    k++;
                if (k == at->n) {
                    if (at->n == 8) return -1;
                    at->e[at->n++] = e;
                }
                strbuf_printf(b, "_a%d", k);
                return 0;
            }
            return -1;
        }
        case IR_OP_DIV: case IR_OP_MOD: {
            int64_t kv;
            if (xf_int_const(y, &kv) || kv <= 0) return -1;
            strbuf_printf(b, e->u.op.op == IR_OP_DIV ? "floor((" : "((");
            if (isl_text(b, x, names, n, rpv, bname, at) < 0) return -1;
            strbuf_printf(b, e->u.op.op == IR_OP_DIV ? ")/%lld)" : ") mod %lld)", (long long)kv);
            return 0;
        }
        default:
            return -1;
        }
    }
    case IR_E_CALL:
        if (e->u.call.f != IR_F_MIN && e->u.call.f != IR_F_MAX) return -1;
        strbuf_printf(b, e->u.call.f == IR_F_MIN ? "min(" : "max(");
        for (int i = 0; i < e->u.call.nargs; i++) {
            if (i) strbuf_printf(b, ", ");
            if (isl_text(b, e->u.call.args[i], names, n, rpv, bname, at) < 0) return -1;
        }
        strbuf_printf(b, ")");
        return 0;
    default:
        return -1;
    }
}

/* A bound simplified by isl against the processor range 0 <= rp < procs and the parameters'
 * context (min(1, 1 + rp * 2) -> 1): the simpler text, or e itself when isl cannot read it or
 * does not shorten it. */
ir_expr *xf_md_simplify(ir_program *out, ir_expr *e, const xf_model *m, const char *rpv, const xf_tiling *T)
{
    const char *names[m->npnames + 2];
    int n = 0, hasprocs = 0;
    for (int i = 0; i < m->npnames; i++) {
        names[n++] = m->pnames[i];
        hasprocs |= !strcmp(m->pnames[i], "procs");
    }
    if (!hasprocs) return e;
    names[n++] = rpv;
    const char *bname = T->k == TK_BLOCKED && T->b[0]->kind == IR_E_NAME ? T->b[0]->u.name.id : NULL;
    atoms at = {.n = 0};
    strbuf t = {0};
    if (isl_text(&t, e, names, n, rpv, bname, &at) < 0) { strbuf_free(&t); return e; }
    char *et = strbuf_take(&t);
    strbuf ps = {0}, cs = {0};
    char tmp[80];
    for (int i = 0; i < n; i++) strbuf_printf(&ps, "%s%s", i ? ", " : "", xf_isl_name(names[i], tmp, sizeof tmp));
    strbuf_printf(&cs, "0 <= %s < procs", xf_isl_name(rpv, tmp, sizeof tmp));
    for (int k = 0; k < at.n; k++) {
        strbuf_printf(&ps, ", _a%d", k);
        strbuf_printf(&cs, " and _a%d >= %s", k, xf_isl_name(rpv, tmp, sizeof tmp));   /* rp * B, B >= 1 */
    }
    char *pl = strbuf_take(&ps), *cl = strbuf_take(&cs);
    char *pat = xasprintf("[%s] -> { [(%s)] }", pl, et);
    char *cst = xasprintf("[%s] -> { : %s }", pl, cl);
    free(et);
    free(pl);
    free(cl);
    isl_pw_aff *pa = isl_pw_aff_read_from_str(m->ctx, pat);
    isl_set *cx = isl_set_read_from_str(m->ctx, cst);
    free(pat);
    free(cst);
    ir_expr *r = e;
    if (pa && cx) {
        isl_set *ctx = isl_set_align_params(xf_model_context(m), isl_set_get_space(cx));
        ctx = isl_set_intersect(ctx, isl_set_align_params(isl_set_copy(cx), isl_set_get_space(ctx)));
        pa = isl_pw_aff_coalesce(isl_pw_aff_gist(pa, isl_set_copy(ctx)));
        isl_ast_build *b = isl_ast_build_from_context(ctx);
        isl_ast_expr *ae = isl_ast_build_expr_from_pw_aff(b, isl_pw_aff_copy(pa));
        const char *from[8];
        char fb[8][16];
        for (int k = 0; k < at.n; k++) { snprintf(fb[k], sizeof fb[k], "_a%d", k); from[k] = fb[k]; }
        xf_rename rn = {.from = from, .to = from, .n = at.n, .to_expr = at.e};
        ir_expr *x = ae ? xf_ast_expr(out, ae, &rn) : NULL;
        isl_ast_expr_free(ae);
        isl_ast_build_free(b);
        if (x) {
            char *a = ir_print_expr(e), *c = ir_print_expr(x);
            if (strlen(c) < strlen(a)) r = x;
            free(a);
            free(c);
        }
    }
    isl_pw_aff_free(pa);
    isl_set_free(cx);
    return r;
}
