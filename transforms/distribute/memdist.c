/*
 * memdist.c — memory distribution (syncomm → syndm): each real processor gets a local memory
 * per array, sized from its footprint: every element its statement instances write or read
 * (what it owns plus what it receives, plus the initial values it reads).
 *
 * The footprint is computed with isl on the untiled step nest (as commgen does): per virtual
 * processor p and array dimension, the least and greatest index accessed, lo_d(p) .. hi_d(p)
 * (isl's lexmin/lexmax).  A real processor's bounds are then the extremes over its virtual
 * processors: lo_d at the first one and hi_d at the last when they are monotone in p (FD: the
 * tile plus a halo of 1), otherwise an inner reduction `min(k = first .. last) lo_d(k)` (dist
 * bounds may use any integer expression of the processor and the parameters).  An array nobody
 * accesses, and every scalar (a 0-dimensional array: alpha, beta of PolyBench), is replicated.  Coordinates stay absolute (relcoord makes them relative).
 * A memory may instead be pieces, or a box with a ragged last range, when they hold the footprint
 * in less memory (layout_array; their sizes and the check that they hold it: memdist_size.c);
 * layout=box keeps the box.
 */
#include <stdlib.h>
#include <string.h>

#include <isl/constraint.h>
#include <isl/id.h>
#include <isl/ilp.h>
#include <isl/local_space.h>
#include <isl/val.h>

#include "distribute_int.h"
#include "entries_int.h"
#include "memdist_int.h"

static ir_expr *bin(ir_program *p, ir_op op, ir_expr *a, ir_expr *b) { return ir_new_binary(p, op, a, b); }

/* The affine piece of a one-piece pw_aff (isl_pw_aff_foreach_piece). */
static isl_stat take_aff(__isl_take isl_set *set, __isl_take isl_aff *aff, void *user)
{
    isl_set_free(set);
    *(isl_aff **)user = aff;
    return isl_stat_ok;
}

/* Dimension k of the access F (virtual processors -> elements): processors -> index. */
static __isl_give isl_map *dim_footprint(__isl_keep isl_map *F, int k, int ndims)
{
    isl_map *Rk = isl_map_copy(F);
    Rk = isl_map_project_out(Rk, isl_dim_out, (unsigned)(k + 1), (unsigned)(ndims - k - 1));
    return isl_map_project_out(Rk, isl_dim_out, 0, (unsigned)k);
}

/* Does the access F (virtual processors -> elements) touch, in dimension k of the array, only
 * the element p_q + c of its virtual processor p (q < np)?  1 with *c, or 0. */
static int access_shift(__isl_keep isl_map *F, int k, int ndims, int np, int q, int64_t *c)
{
    isl_map *Rk = dim_footprint(F, k, ndims);
    Rk = isl_map_project_out(Rk, isl_dim_in, (unsigned)(q + 1), (unsigned)(np - q - 1));
    Rk = isl_map_project_out(Rk, isl_dim_in, 0, (unsigned)q);
    isl_set *dl = isl_map_deltas(Rk);   /* e_k - p_q */
    isl_aff *id = isl_aff_var_on_domain(isl_local_space_from_space(isl_set_get_space(dl)), isl_dim_set, 0);
    isl_val *lo = isl_set_min_val(dl, id), *hi = isl_set_max_val(dl, id);
    int fixed = lo && hi && isl_val_is_int(lo) == isl_bool_true && isl_val_eq(lo, hi) == isl_bool_true;
    if (fixed) *c = isl_val_get_num_si(lo);
    isl_val_free(lo);
    isl_val_free(hi);
    isl_aff_free(id);
    isl_set_free(dl);
    return fixed;
}

/* Does every access of the footprint F[0..nf-1] touch, in dimension k, only p + c of its
 * (one-dimensional) virtual processor p, c constant for each access?  Then a cyclic or
 * block-cyclic processor holds a lattice there: 1 with the least and greatest c, or 0. */
static int lattice_shift(__isl_keep isl_map *const *F, int nf, int k, int ndims, int64_t *cmin, int64_t *cmax)
{
    for (int a = 0; a < nf; a++) {
        int64_t v;
        if (!access_shift(F[a], k, ndims, 1, 0, &v)) return 0;
        if (!a || v < *cmin) *cmin = v;
        if (!a || v > *cmax) *cmax = v;
    }
    return nf > 0;
}

/* The strided dimension of a cyclic / block-cyclic processor rp whose accesses touch p + c of
 * each virtual processor p, cmin <= c <= cmax: from its first one's p + cmin to P1 + cmax, every
 * procs-th in blocks of cmax - cmin + 1 (cyclic), or every bs * procs-th in blocks of
 * bs + cmax - cmin (a block never longer than the step: then it holds every index). */
static void lattice_dim(ir_program *out, const xf_tiling *T, const char *rpv, const ir_expr *P1, int64_t cmin,
                        int64_t cmax, ir_dist_piece *pc, int nd, int k)
{
    ir_expr *p0 = T->p0[0] ? ir_clone_expr(out, T->p0[0]) : ir_new_int(out, 0);
    ir_expr *first = T->k == TK_CYCLIC ? ir_new_name(out, rpv)
                                       : bin(out, IR_OP_MUL, ir_new_name(out, rpv), ir_clone_expr(out, T->b[0]));
    ir_expr *lo = bin(out, IR_OP_ADD, bin(out, IR_OP_ADD, p0, first), ir_new_int(out, cmin));
    ir_expr *hi = bin(out, IR_OP_ADD, ir_clone_expr(out, P1), ir_new_int(out, cmax));
    pc->lo[k] = xf_simplify_int(out, lo);
    pc->hi[k] = xf_simplify_int(out, hi);
    if (!pc->step) {
        pc->step = ir_alloc(out, (size_t)nd * sizeof *pc->step);
        pc->block = ir_alloc(out, (size_t)nd * sizeof *pc->block);
        memset(pc->step, 0, (size_t)nd * sizeof *pc->step);
        memset(pc->block, 0, (size_t)nd * sizeof *pc->block);
    }
    ir_expr *step = T->k == TK_CYCLIC ? ir_new_name(out, "procs")
                                      : bin(out, IR_OP_MUL, ir_clone_expr(out, T->b[0]), ir_new_name(out, "procs"));
    ir_expr *blk = T->k == TK_CYCLIC ? ir_new_int(out, cmax - cmin + 1)
                                     : xf_simplify_int(out, bin(out, IR_OP_ADD, ir_clone_expr(out, T->b[0]), ir_new_int(out, cmax - cmin)));
    pc->step[k] = step;
    if (T->k == TK_CYCLIC && cmax == cmin) return;   /* blocks of one */
    if (cmax > cmin) {
        ir_expr *args[2] = {blk, ir_clone_expr(out, step)};
        blk = ir_new_call(out, IR_F_MIN, args, 2);
    }
    pc->block[k] = blk;
}


/* Adds the affine bound `one` to affs[0 .. n-1] (their owner's): one that differs from it by a constant
 * keeps the extreme of the two (the greater when e, else the lesser).  The new count. */
static int add_bound(__isl_keep isl_aff **affs, int n, __isl_take isl_aff *one, int e)
{
    for (int j = 0; j < n; j++) {
        isl_aff *df = isl_aff_sub(isl_aff_copy(one), isl_aff_copy(affs[j]));
        int cst = isl_aff_is_cst(df) == isl_bool_true, better = 0;
        if (cst) {
            isl_val *c = isl_aff_get_constant_val(df);
            better = e ? isl_val_is_pos(c) == isl_bool_true : isl_val_is_neg(c) == isl_bool_true;
            isl_val_free(c);
        }
        isl_aff_free(df);
        if (!cst) continue;
        if (better) { isl_aff_free(affs[j]); affs[j] = one; }
        else isl_aff_free(one);
        return n;
    }
    affs[n] = one;
    return n + 1;
}

/* The one index the access F (virtual processors -> elements) touches in dimension k of the
 * array whichever processor runs it (s[0], a[n - 1]: an expression of the parameters), or NULL.
 * Such an access also looks like a shift p + c when it runs on one virtual processor only
 * (p == 0: s[0] = s[0] + a[i]), which taken over a real processor's virtual ones would span
 * their whole range. */
static ir_expr *fixed_index(md_ctx *X, __isl_keep isl_map *F, int k, int ndims)
{
    isl_map *Rk = dim_footprint(F, k, ndims);
    isl_set *R = isl_map_range(Rk);
    isl_pw_aff *lo = isl_set_dim_min(isl_set_copy(R), 0), *hi = isl_set_dim_max(R, 0);
    ir_expr *x = NULL;
    if (isl_pw_aff_is_equal(lo, hi) == isl_bool_true) {
        isl_ast_build *b = isl_ast_build_from_context(isl_pw_aff_domain(isl_pw_aff_copy(lo)));
        x = xf_expr_of_pa(X->out, b, isl_pw_aff_copy(lo));
        isl_ast_build_free(b);
    }
    isl_pw_aff_free(lo);
    isl_pw_aff_free(hi);
    return x;
}

/* Does access a add nothing to dimension k's bounds: is every index it touches there, on each
 * virtual processor that runs it, also touched on that processor by an access b != a not yet
 * dropped?  (fdtd-2d's ey[0][j] on processor 0 only, which also reads ey[p][j]: its fixed
 * index 0 is no bound of the other processors.) */
static int subsumed(__isl_keep isl_map *const *F, int nf, int a, const int *dropped, int k, int ndims)
{
    isl_map *U = NULL;
    isl_set *sizes = NULL;   /* where every other one runs (fdtd-2d's S4 needs nx, ny >= 2) */
    for (int b = 0; b < nf; b++) {
        if (b == a || dropped[b]) continue;
        isl_map *Rb = dim_footprint(F[b], k, ndims);
        isl_set *pb = isl_map_params(isl_map_copy(Rb));
        sizes = sizes ? isl_set_intersect_params(sizes, pb) : pb;
        U = U ? isl_map_union(U, Rb) : Rb;
    }
    if (!U) return 0;
    isl_map *Ra = isl_map_intersect_params(dim_footprint(F[a], k, ndims), sizes);
    int in = isl_map_is_subset(Ra, U) == isl_bool_true;
    isl_map_free(Ra);
    isl_map_free(U);
    return in;
}

/* Bound e (0: the least, 1: the greatest) of dimension k over every real processor of each access
 * F[a] not dropped, appended to terms: its fixed index, a shift p_q + c of its processor, or the
 * footprint's lexmin/lexmax (affine: combined with the other affine ones that differ by a
 * constant; piecewise: a reduction over the processor's range).  The number of terms; X->ok = 0
 * when one cannot be written. */
static int access_terms(md_ctx *X, __isl_keep isl_map *const *F, int nf, ir_expr *const *fixed,
                        const int *dropped, int k, int nd_, int e, ir_expr **terms)
{
    ir_program *out = X->out;
    const xf_tiling *T = X->T;
    int np = T->np, ok = 1;
    isl_aff *affs[nf + 1];
    int naff = 0, nterms = 0;
    for (int a = 0; a < nf && ok; a++) {
        if (dropped[a]) continue;
        /* an access at a fixed distance c from its processor p_q: p_q + c, whatever
         * its domain (a boundary statement's {0, n - 1} is no range to span) */
        if (fixed[a]) { terms[nterms++] = e ? ir_clone_expr(out, fixed[a]) : fixed[a]; continue; }
        int64_t c = 0;
        int q = 0;
        while (q < np && !access_shift(F[a], k, nd_, np, q, &c)) q++;
        if (q < np) {
            isl_space *sp = isl_space_domain(isl_map_get_space(F[a]));
            isl_aff *one = isl_aff_var_on_domain(isl_local_space_from_space(sp), isl_dim_set, (unsigned)q);
            one = isl_aff_add_constant_si(one, (int)c);
            naff = add_bound(affs, naff, one, e);
            continue;
        }
        isl_map *Rk = dim_footprint(F[a], k, nd_);
        isl_pw_multi_aff *mm = e ? isl_map_lexmax_pw_multi_aff(Rk) : isl_map_lexmin_pw_multi_aff(Rk);
        isl_pw_aff *pa = isl_pw_aff_coalesce(isl_pw_multi_aff_get_pw_aff(mm, 0));
        isl_pw_multi_aff_free(mm);
        if (isl_pw_aff_n_piece(pa) == 1) {
            isl_aff *one = NULL;
            isl_pw_aff_foreach_piece(pa, take_aff, &one);
            isl_pw_aff_free(pa);
            naff = add_bound(affs, naff, one, e);
        } else {
            /* piecewise: the exact bound, as a reduction over the processor's range */
            int mono[2] = {0, 0};
            isl_set *dom = isl_pw_aff_domain(isl_pw_aff_copy(pa));
            for (int q = 0; q < np; q++) mono[q] = xf_md_monotone(pa, dom, q);
            isl_set_free(dom);
            ir_expr *x = xf_expr_of_pa(out, X->bp, xf_md_pv_params(pa, X->npar, T, X->ctx));
            if (!x) ok = 0;
            else terms[nterms++] = xf_md_real_bound(out, T, X->rpv, x, mono, e, X->P1, &ok);
        }
    }
    for (int j = 0; j < naff; j++) {
        int mono[2] = {0, 0};
        for (int q = 0; q < np; q++) {
            isl_val *c = isl_aff_get_coefficient_val(affs[j], isl_dim_in, q);
            mono[q] = isl_val_is_neg(c) == isl_bool_true ? -1 : 1;
            isl_val_free(c);
        }
        ir_expr *x = xf_expr_of_pa(out, X->bp, xf_md_pv_params(isl_pw_aff_from_aff(affs[j]), X->npar, T, X->ctx));
        if (!x) { ok = 0; continue; }
        terms[nterms++] = xf_md_real_bound(out, T, X->rpv, x, mono, e, X->P1, &ok);
    }
    if (!ok) X->ok = 0;
    return nterms;
}

/* Terms equal up to a constant: only the extreme one kept (the greatest when e).  The new count. */
static int keep_extremes(ir_expr **terms, int nterms, int e)
{
    int kept = 0;
    for (int j = 0; j < nterms; j++) {
        int64_t cj;
        char *bj = xf_md_split_const(terms[j], &cj);
        int dup = 0;
        for (int i = 0; i < kept && !dup; i++) {
            int64_t ci;
            char *bi = xf_md_split_const(terms[i], &ci);
            if (!strcmp(bi, bj)) {
                dup = 1;
                if (e ? cj > ci : cj < ci) terms[i] = terms[j];
            }
            free(bi);
        }
        free(bj);
        if (!dup) terms[kept++] = terms[j];
    }
    return kept;
}

/* A block-cyclic bound taken outside the domain of an access's piece (the first block's p - 1
 * at p = P0) may leave the array: the terms clamped to the array's bound e of dimension k (one
 * term then), unless one of them is that bound.  The new count. */
static int clamp_to_array(md_ctx *X, ir_expr **terms, int nterms, int e, int k)
{
    ir_program *out = X->out;
    const ir_expr *ab = (e ? X->ad->u.array.hi : X->ad->u.array.lo)[k];
    char *abt = ir_print_expr(ab);
    int same = 0;
    for (int j = 0; j < nterms && !same; j++) {
        char *tj = ir_print_expr(terms[j]);
        same = !strcmp(tj, abt);
        free(tj);
    }
    free(abt);
    if (same) return nterms;
    ir_expr *x1 = nterms == 1 ? terms[0] : ir_new_call(out, e ? IR_F_MAX : IR_F_MIN, terms, nterms);
    ir_expr *cl[2] = {ir_clone_expr(out, ab), x1};
    terms[0] = ir_new_call(out, e ? IR_F_MIN : IR_F_MAX, cl, 2);
    return 1;
}

/* Bounds lo .. hi (or a lattice) of dimension k of a piece holding the footprints F[sel[0..nf-1]]
 * of every real processor: per access the least and greatest index, combined. */
static void dim_bounds(md_ctx *X, __isl_keep isl_map *const *Fall, const int *sel, int nf, int k, int nd_,
                       ir_dist_piece *pc)
{
    ir_program *out = X->out;
    const xf_tiling *T = X->T;
    isl_map *F[nf + 1];
    for (int i = 0; i < nf; i++) F[i] = Fall[sel[i]];
    ir_expr *fixed[nf + 1];
    int nfixed = 0, dropped[nf + 1];
    memset(dropped, 0, sizeof dropped);
    for (int a = 0; a < nf; a++) {
        fixed[a] = fixed_index(X, F[a], k, nd_);
        /* a fixed index counts for every processor: only where no other access covers it */
        dropped[a] = fixed[a] && subsumed(F, nf, a, dropped, k, nd_);
        nfixed += fixed[a] && !dropped[a];
    }
    int64_t cmin = 0, cmax = 0;
    if ((T->k == TK_CYCLIC || T->k == TK_BLOCKCYCLIC) && X->P1 && !nfixed && lattice_shift(F, nf, k, nd_, &cmin, &cmax)) {
        lattice_dim(out, T, X->rpv, X->P1, cmin, cmax, pc, nd_, k);
        return;
    }
    for (int e = 0; e < 2 && X->ok; e++) {
        /* one bound per access; affine ones that differ by a constant keep the extreme */
        ir_expr *terms[nf + 1];
        int nterms = access_terms(X, F, nf, fixed, dropped, k, nd_, e, terms);
        nterms = keep_extremes(terms, nterms, e);
        if (T->k == TK_BLOCKCYCLIC) nterms = clamp_to_array(X, terms, nterms, e, k);
        ir_expr *x = nterms == 1 ? terms[0] : ir_new_call(out, e ? IR_F_MAX : IR_F_MIN, terms, nterms);
        if (T->k != TK_NONE) x = xf_md_simplify(out, xf_md_tidy_minmax(out, xf_simplify_int(out, x)), X->m, X->rpv, T);
        (e == 0 ? pc->lo : pc->hi)[k] = x;
    }
}


/* Does e use `v` other than in sums and products by constants (inside a call, a division, a
 * comparison, a reduction)?  `inside`: e is under such an operation. */
static int nonaffine_in(const ir_expr *e, const char *v, int inside)
{
    if (!e) return 0;
    switch (e->kind) {
    case IR_E_NAME:
        return inside && !strcmp(e->u.name.id, v);
    case IR_E_UNARY:
        return nonaffine_in(e->u.op.a, v, inside || e->u.op.op != IR_OP_NEG);
    case IR_E_BINARY: {
        ir_op o = e->u.op.op;
        int lin = o == IR_OP_ADD || o == IR_OP_SUB ||
                  (o == IR_OP_MUL && (e->u.op.a->kind == IR_E_INT || e->u.op.b->kind == IR_E_INT));
        return nonaffine_in(e->u.op.a, v, inside || !lin) || nonaffine_in(e->u.op.b, v, inside || !lin);
    }
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++)
            if (nonaffine_in(e->u.call.args[i], v, 1)) return 1;
        return 0;
    case IR_E_REDUCE:
        return xf_mentions(e, v);
    default:
        return 0;
    }
}

/* x (a bound affine and monotone in the one virtual processor p) taken where it is least
 * (`small`: at rp's smallest p that touches the row) or greatest: x[p := max(first, g(i))] with
 * g(i) the least p touching row i (dom: the rows each p touches) and `first` rp's first virtual
 * processor, or x[p := min(last, g'(i))].  Never tighter than the truth: rp's own p in the row's
 * range lie between the two.  NULL when the tiling has no such first/last. */
static ir_expr *clamp_to_rows(md_ctx *X, __isl_keep isl_set *dom, int nd, const char *const *ivar,
                              const ir_expr *x, int small)
{
    const xf_tiling *T = X->T;
    ir_program *out = X->out;
    ir_expr *p0 = T->p0[0] ? ir_clone_expr(out, T->p0[0]) : ir_new_int(out, 0), *end;
    if (T->k == TK_BLOCKED || T->k == TK_BLOCKCYCLIC) {   /* first: P0 + rp * b; last: as real_bound */
        int one[2] = {1, 0}, ok = 1;
        end = small ? bin(out, IR_OP_ADD, p0, bin(out, IR_OP_MUL, ir_new_name(out, X->rpv), ir_clone_expr(out, T->b[0])))
                    : xf_md_real_bound(out, T, X->rpv, ir_new_name(out, T->pv[0]), one, 1, X->P1, &ok);
        if (!ok) return NULL;
    } else if (T->k == TK_CYCLIC && X->P1) {   /* P0 + rp .. P0 + rp + (P1 - P0 - rp) / procs * procs */
        end = bin(out, IR_OP_ADD, p0, ir_new_name(out, X->rpv));
        if (!small)
            end = bin(out, IR_OP_ADD, end,
                      bin(out, IR_OP_MUL, bin(out, IR_OP_DIV, bin(out, IR_OP_SUB, ir_clone_expr(out, X->P1), ir_clone_expr(out, end)),
                                              ir_new_name(out, "procs")), ir_new_name(out, "procs")));
    } else {
        return NULL;
    }
    isl_map *om = isl_map_from_range(isl_set_copy(dom));   /* [] -> [p, outer] */
    om = isl_map_move_dims(om, isl_dim_in, 0, isl_dim_out, 1, (unsigned)(nd - 1));   /* outer -> p */
    isl_pw_multi_aff *mm = small ? isl_map_lexmin_pw_multi_aff(om) : isl_map_lexmax_pw_multi_aff(om);
    isl_pw_aff *g = isl_pw_aff_coalesce(isl_pw_multi_aff_get_pw_aff(mm, 0));
    isl_pw_multi_aff_free(mm);
    g = isl_pw_aff_move_dims(g, isl_dim_param, X->npar, isl_dim_in, 0, (unsigned)(nd - 1));
    for (int k = 0; k < nd - 1; k++)
        g = isl_pw_aff_set_dim_id(g, isl_dim_param, X->npar + (unsigned)k, isl_id_alloc(X->ctx, ivar[k], NULL));
    g = isl_pw_aff_project_domain_on_params(g);
    isl_ast_build *b = isl_ast_build_from_context(isl_pw_aff_domain(isl_pw_aff_copy(g)));
    ir_expr *gx = xf_expr_of_pa(out, b, g);
    isl_ast_build_free(b);
    if (!gx) return NULL;
    ir_expr *args[2] = {xf_md_fold(out, xf_simplify_int(out, end)), gx};
    ir_expr *at = ir_new_call(out, small ? IR_F_MAX : IR_F_MIN, args, 2);
    return xf_subst(out, x, T->pv, &at, 1);
}

/* The last dimension of a piece holding the footprints F[sel[..]] as a ragged range: for each
 * index tuple of the other dimensions (named ivar[0 .. nd-2]) the least and greatest index over
 * the real processor's virtual ones.  1 with *lo, *hi when they depend on the tuple, else 0. */
static int ragged_last(md_ctx *X, __isl_keep isl_map *const *Fall, const int *sel, int nf, int nd,
                       const char *const *ivar, ir_expr **lo, ir_expr **hi, int *unsure)
{
    const xf_tiling *T = X->T;
    int np = T->np, ok = 1, dep = 0;
    isl_map *U = NULL;
    for (int i = 0; i < nf; i++) U = U ? isl_map_union(U, isl_map_copy(Fall[sel[i]])) : isl_map_copy(Fall[sel[i]]);
    /* when the other indices determine the virtual processor (a row is one processor's), the
     * bounds over all of them are that processor's: no virtual processor in the expression */
    isl_map *owner = isl_map_project_out(isl_map_reverse(isl_map_copy(U)), isl_dim_in, (unsigned)(nd - 1), 1);
    int by_row = isl_map_is_single_valued(owner) == isl_bool_true;
    isl_map_free(owner);
    if (by_row) {
        U = isl_map_from_range(isl_map_range(U));
        U = isl_map_move_dims(U, isl_dim_in, 0, isl_dim_out, 0, (unsigned)(nd - 1));   /* outer -> last */
        np = 0;
    } else {
        U = isl_map_move_dims(U, isl_dim_in, (unsigned)np, isl_dim_out, 0, (unsigned)(nd - 1));   /* (pv, outer) -> last */
    }
    ir_expr *r[2] = {NULL, NULL};
    for (int e = 0; e < 2 && ok; e++) {
        isl_pw_multi_aff *mm = e ? isl_map_lexmax_pw_multi_aff(isl_map_copy(U)) : isl_map_lexmin_pw_multi_aff(isl_map_copy(U));
        isl_pw_aff *pa = isl_pw_aff_coalesce(isl_pw_multi_aff_get_pw_aff(mm, 0));
        isl_pw_multi_aff_free(mm);
        isl_set *dom = isl_pw_aff_domain(isl_pw_aff_copy(pa));
        int mono[2] = {0, 0};
        for (int q = 0; q < np; q++) mono[q] = xf_md_monotone(pa, dom, q);
        unsigned nin = (unsigned)(np + nd - 1);
        pa = isl_pw_aff_move_dims(pa, isl_dim_param, X->npar, isl_dim_in, 0, nin);
        for (unsigned q = 0; q < nin; q++)
            pa = isl_pw_aff_set_dim_id(pa, isl_dim_param, X->npar + q,
                                       isl_id_alloc(X->ctx, (int)q < np ? T->pv[q] : ivar[(int)q - np], NULL));
        pa = isl_pw_aff_project_domain_on_params(pa);
        isl_ast_build *b = isl_ast_build_from_context(isl_pw_aff_domain(isl_pw_aff_copy(pa)));
        ir_expr *x = xf_expr_of_pa(X->out, b, pa);
        isl_ast_build_free(b);
        if (!x) { isl_set_free(dom); ok = 0; break; }
        /* taken at the processor's first or last virtual one, a bound that is not affine in them
         * (a select, min, max or division of them) may be read outside its domain there: the
         * layout is then checked point by point */
        for (int q = 0; q < np; q++) *unsure |= mono[q] && nonaffine_in(x, T->pv[q], 0);
        ir_expr *clamped = np == 1 && mono[0] && !nonaffine_in(x, T->pv[0], 0)
                               ? clamp_to_rows(X, dom, nd, ivar, x, (e == 0) == (mono[0] > 0)) : NULL;
        isl_set_free(dom);
        if (clamped) x = clamped;
        else if (np) x = xf_md_real_bound(X->out, T, X->rpv, x, mono, e, X->P1, &ok);
        r[e] = xf_md_tidy_minmax(X->out, xf_simplify_int(X->out, x));
        for (int k = 0; k < nd - 1; k++) dep |= xf_mentions(r[e], ivar[k]);
    }
    isl_map_free(U);
    if (!ok || !dep) return 0;
    *lo = r[0];
    *hi = r[1];
    return 1;
}


static void piece_texts(md_piece *P, int nd)
{
    strbuf o = {0}, l = {0};
    for (int k = 0; k < nd; k++) {
        strbuf *b = k < nd - 1 ? &o : &l;
        const ir_expr *x[4] = {P->pc.lo[k], P->pc.hi[k], P->pc.step ? P->pc.step[k] : NULL, P->pc.block ? P->pc.block[k] : NULL};
        for (int j = 0; j < 4; j++) {
            char *t = x[j] ? ir_print_expr(x[j]) : xstrdup("-");
            strbuf_printf(b, "%s;", t);
            free(t);
        }
    }
    free(P->outer);
    free(P->last);
    P->outer = o.s ? strbuf_take(&o) : xstrdup("");
    P->last = l.s ? strbuf_take(&l) : xstrdup("");
}

/* The piece holding the accesses P->sel: the other dimensions as boxes (or lattices), the last
 * one ragged when `ragged` and it depends on them. */
static void piece_build(md_ctx *X, __isl_keep isl_map *const *F, int nd, const char *const *ivar, int ragged,
                        md_piece *P)
{
    ir_program *out = X->out;
    P->pc = (ir_dist_piece){0};
    P->pc.lo = ir_alloc(out, (size_t)nd * sizeof *P->pc.lo);
    P->pc.hi = ir_alloc(out, (size_t)nd * sizeof *P->pc.hi);
    for (int k = 0; k < nd - 1 && X->ok; k++) dim_bounds(X, F, P->sel, P->nsel, k, nd, &P->pc);
    P->unsure = 0;
    if (X->ok) dim_bounds(X, F, P->sel, P->nsel, nd - 1, nd, &P->pc);
    ir_expr *rlo, *rhi;
    if (nd >= 2 && ragged && X->ok && ragged_last(X, F, P->sel, P->nsel, nd, ivar, &rlo, &rhi, &P->unsure)) {
        /* the ragged range when it is smaller than the plain (or strided) one */
        md_piece R = *P;   /* shares P's texts (piece_texts below replaces them once) */
        R.pc.lo = ir_alloc(out, (size_t)nd * sizeof *R.pc.lo);
        R.pc.hi = ir_alloc(out, (size_t)nd * sizeof *R.pc.hi);
        memcpy(R.pc.lo, P->pc.lo, (size_t)nd * sizeof *R.pc.lo);
        memcpy(R.pc.hi, P->pc.hi, (size_t)nd * sizeof *R.pc.hi);
        R.pc.lo[nd - 1] = rlo;
        R.pc.hi[nd - 1] = rhi;
        if (P->pc.step) {
            R.pc.step = ir_alloc(out, (size_t)nd * sizeof *R.pc.step);
            R.pc.block = ir_alloc(out, (size_t)nd * sizeof *R.pc.block);
            memcpy(R.pc.step, P->pc.step, (size_t)nd * sizeof *R.pc.step);
            memcpy(R.pc.block, P->pc.block, (size_t)nd * sizeof *R.pc.block);
            R.pc.step[nd - 1] = R.pc.block[nd - 1] = NULL;
        }
        R.pc.ivar = ir_alloc(out, (size_t)nd * sizeof *R.pc.ivar);
        for (int k = 0; k < nd; k++) R.pc.ivar[k] = k < nd - 1 ? ir_strdup(out, ivar[k]) : NULL;
        int64_t plain = X->rp_of ? md_layout_size(X, P, 1, nd, F, 0, 0) : -1;
        int64_t rag = X->rp_of ? md_layout_size(X, &R, 1, nd, F, 0, 0) : -1;
        if (rag >= 0 && (plain < 0 || rag < plain)) *P = R;
        else P->unsure = 0;
    }
    piece_texts(P, nd);
}

/* The index names of a ragged array's dimensions: i, j, k, i2, .. avoiding every name in use. */
static void pick_ivars(const ir_program *p, const char *rpv, const xf_tiling *T, int nd, const char **ivar)
{
    static const char *const cand[] = {"i", "j", "k", "i2", "j2", "k2", "i3", "j3", "k3", "i4"};
    int c = 0;
    for (int k = 0; k < nd - 1 && k < 8; k++) {
        for (; c < (int)(sizeof cand / sizeof *cand); c++) {
            const char *nm = cand[c];
            int used = !strcmp(nm, rpv) || !strcmp(nm, "k1") || !strcmp(nm, "k2");
            for (int q = 0; q < T->np; q++) used |= !strcmp(nm, T->pv[q]);
            for (int i = 0; i < p->nparams && !used; i++) used = !strcmp(nm, p->params[i]->u.param.name);
            for (int i = 0; i < p->narrays && !used; i++) used = !strcmp(nm, p->arrays[i]->u.array.name);
            if (!used) break;
        }
        ivar[k] = c < (int)(sizeof cand / sizeof *cand) ? cand[c++] : "i_";
    }
}

/* The size of the one-piece layout P with its plain (not strided) ranges clamped to the array. */
static int64_t in_array_size(md_ctx *X, const md_piece *P, int nd, __isl_keep isl_map *const *F, int nf)
{
    const ir_decl *ad = X->ad;
    md_piece C = *P;
    C.pc.lo = ir_alloc(X->out, (size_t)nd * sizeof *C.pc.lo);
    C.pc.hi = ir_alloc(X->out, (size_t)nd * sizeof *C.pc.hi);
    for (int k = 0; k < nd; k++) {
        if (P->pc.step && P->pc.step[k]) { C.pc.lo[k] = P->pc.lo[k]; C.pc.hi[k] = P->pc.hi[k]; continue; }
        ir_expr *lo[2] = {ir_clone_expr(X->out, ad->u.array.lo[k]), ir_clone_expr(X->out, P->pc.lo[k])};
        ir_expr *hi[2] = {ir_clone_expr(X->out, ad->u.array.hi[k]), ir_clone_expr(X->out, P->pc.hi[k])};
        C.pc.lo[k] = ir_new_call(X->out, IR_F_MAX, lo, 2);
        C.pc.hi[k] = ir_new_call(X->out, IR_F_MIN, hi, 2);
    }
    return md_layout_size(X, &C, 1, nd, F, nf, 0);
}

/* The layout of one array's local memory: the box around its footprint (as the thesis sizes it),
 * or pieces — per group of accesses a box with a ragged last range — when they hold every element
 * the processors touch (checked at the parameters' values) in at least 10% less memory.  Groups
 * start as one access each and merge while two have the same other ranges or the same last
 * range.  With layout=box the box whatever auto would choose (X->searched says whether auto chose
 * pieces the exported code searches, ir_dist_searched).  Fills dd's ranges. */
/* dd's ranges: the pieces P[0 .. n-1]. */
static void set_layout(md_ctx *X, ir_decl *dd, const md_piece *P, int n)
{
    dd->u.dist.lo = P[0].pc.lo;
    dd->u.dist.hi = P[0].pc.hi;
    dd->u.dist.step = P[0].pc.step;
    dd->u.dist.block = P[0].pc.block;
    dd->u.dist.ivar = P[0].pc.ivar;
    dd->u.dist.nmore = n - 1;
    dd->u.dist.more = NULL;
    if (n > 1) {
        dd->u.dist.more = ir_alloc(X->out, (size_t)(n - 1) * sizeof *dd->u.dist.more);
        for (int i = 1; i < n; i++) dd->u.dist.more[i - 1] = P[i].pc;
    }
}

static void layout_array(md_ctx *X, __isl_keep isl_map *const *F, int nf, int nd, ir_decl *dd)
{
    const char *ivar[8] = {0};
    pick_ivars(X->out, X->rpv, X->T, nd, ivar);
    md_piece box = {.nsel = nf};
    X->budget = MD_BUDGET;
    X->env0.fuel = &X->budget;
    for (int a = 0; a < nf; a++) box.sel[a] = a;
    piece_build(X, F, nd, ivar, 0, &box);
    md_piece *best = &box;
    int nbest = 1;
    md_piece one = box, groups[8];
    int ngroups = 0;
    one.outer = one.last = NULL;
    if (X->ok && nd >= 2 && nf <= 64 && X->rp_of) {
        /* the box's ghost slots beyond the array (rp * b - 1 on the first processor) are not
         * counted against it: a ragged or pieced layout must save on elements of the array */
        int64_t size_box = in_array_size(X, &box, nd, F, nf), best_size = size_box;
        piece_build(X, F, nd, ivar, 1, &one);
        if (X->ok && one.pc.ivar) {
            int64_t s = md_layout_size(X, &one, 1, nd, F, nf, 0);
            if (s >= 0 && size_box >= 0 && s * 10 <= best_size * 9 && md_layout_size(X, &one, 1, nd, F, nf, 1) == s) {
                best = &one;
                best_size = s;
            }
        }
        /* groups */
        md_piece *g = xcalloc((size_t)nf, sizeof *g);
        int ng = nf;
        for (int a = 0; a < nf && X->ok; a++) {
            g[a].nsel = 1;
            g[a].sel[0] = a;
            piece_build(X, F, nd, ivar, 1, &g[a]);
        }
        for (int merged = 1; merged && X->ok;) {
            merged = 0;
            for (int i = 0; i < ng && !merged; i++)
                for (int j = i + 1; j < ng && !merged; j++)
                    if (!strcmp(g[i].outer, g[j].outer) || !strcmp(g[i].last, g[j].last)) {
                        for (int s = 0; s < g[j].nsel; s++) g[i].sel[g[i].nsel++] = g[j].sel[s];
                        free(g[j].outer);
                        free(g[j].last);
                        g[j] = g[--ng];
                        piece_build(X, F, nd, ivar, 1, &g[i]);
                        merged = 1;
                    }
        }
        if (X->ok && ng > 1 && ng <= 4) {
            int64_t s = md_layout_size(X, g, ng, nd, F, nf, 0);
            if (s >= 0 && size_box >= 0 && s * 10 <= size_box * 9 && s < best_size &&
                md_layout_size(X, g, ng, nd, F, nf, 1) == s) {
                for (int i = 0; i < ng; i++) groups[i] = g[i];
                ngroups = ng;
                best = groups;
                nbest = ng;
                best_size = s;
                ng = 0;   /* kept */
            }
        }
        for (int i = 0; i < ng; i++) { free(g[i].outer); free(g[i].last); }
        free(g);
    }
    set_layout(X, dd, best, nbest);
    if (ir_dist_searched(dd, nd)) X->searched = 1;
    if (X->box_only) set_layout(X, dd, &box, 1);   /* what auto chose is known: the box instead */
    free(box.outer);
    free(box.last);
    free(one.outer);
    free(one.last);
    for (int i = 0; i < ngroups; i++) { free(groups[i].outer); free(groups[i].last); }
}

int xf_memdist_applicable(const ir_program *p, char **why_not)
{
    if (p->level != IR_SYNCOMM) {
        *why_not = xasprintf("memdist distributes the memory of a syncomm program (this one is %s)",
                               ir_level_name(p->level));
        return 0;
    }
    if (ir_program_has_collectives(p)) {
        *why_not = xasprintf("memdist does not distribute programs with collectives or repeat");
        return 0;
    }
    ir_program *c = ir_program_clone(p);
    xf_tiling T;
    int ok = xf_tiling_recognise(c, &T) == 0;
    ir_program_free(c);
    if (!ok) *why_not = xasprintf("the step nest is not one stm and tile produce");
    return ok;
}

/* The loop variable of the real processors in memdist's input `out` (the step nest's second
 * variable, or the loop inside the time loop): its range is the real processors. */
static const ir_loopvar *real_procs(const ir_program *out)
{
    ir_stmt *outer = NULL;
    for (int i = 0; i < out->body->n; i++) if (out->body->stmts[i]->kind == IR_S_FOR) outer = out->body->stmts[i];
    return outer->u.for_.nvars == 2 ? &outer->u.for_.vars[1] : &outer->u.for_.body->stmts[0]->u.for_.vars[0];
}

/* All virtual processors of the untiled model m (np dimensions), for the cyclic range's end;
 * NULL when no statement runs on them. */
static __isl_give isl_set *virtual_procs(const xf_model *m, int np)
{
    isl_set *pvs = NULL;
    for (int s = 0; s < m->nst; s++) {
        if (m->st[s].nvars < 1 + np) continue;
        isl_set *dom = xf_model_domain(m, s);
        dom = isl_set_project_out(dom, isl_dim_set, (unsigned)(1 + np), (unsigned)(m->st[s].nvars - 1 - np));
        dom = isl_set_project_out(dom, isl_dim_set, 0, 1);
        dom = isl_set_reset_tuple_id(dom);
        pvs = pvs ? isl_set_union(pvs, dom) : dom;
    }
    return pvs;
}

/* The footprint of array `an` in F, one relation per access of a statement on the processors
 * (processor dimensions -> elements, the empty ones left out; F's, freed by the caller).  Their
 * number. */
static int footprint(const xf_model *m, int np, const char *an, isl_map **F)
{
    int nf = 0;
    for (int a = 0; a < m->nacc; a++) {
        const xf_access *acc = &m->acc[a];
        const char *arr = acc->expr->kind == IR_E_ACCESS ? acc->expr->u.access.array : acc->expr->u.name.id;
        if (strcmp(arr, an)) continue;
        const xf_stmt *st = &m->st[acc->stmt];
        if (st->nvars < 1 + np) continue;
        isl_map *rel = isl_map_intersect_domain(isl_map_read_from_str(m->ctx, acc->rel), xf_model_domain(m, acc->stmt));
        strbuf t = {0};
        strbuf_printf(&t, "%s -> { %s[", m->params, st->name);
        for (int k = 0; k < st->nvars; k++) strbuf_printf(&t, "%sv%d", k ? ", " : "", k);
        strbuf_printf(&t, "] -> [");
        for (int k = 0; k < np; k++) strbuf_printf(&t, "%sv%d", k ? ", " : "", 1 + k);
        strbuf_printf(&t, "] }");
        isl_map *pm = isl_map_read_from_str(m->ctx, t.s);
        strbuf_free(&t);
        isl_map *f = isl_map_apply_range(isl_map_reverse(pm), rel);
        f = isl_map_coalesce(isl_map_reset_tuple_id(f, isl_dim_out));
        if (isl_map_is_empty(f) == isl_bool_true) isl_map_free(f);
        else F[nf++] = f;
    }
    return nf;
}

ir_program *xf_memdist_apply(const ir_program *src, const xf_args *args, diag_list *d, int *status)
{
    *status = XF_EUSAGE;
    for (int i = 0; i < args->n; i++)
        if (strcmp(args->items[i].key, "layout") || args->items[i].label) {
            diag_add(d, NULL, 0, 0, "memdist: unknown parameter '%s' (layout)", args->items[i].key);
            return NULL;
        }
    const char *layout = xf_args_get(args, "layout", NULL);
    if (layout && strcmp(layout, "auto") && strcmp(layout, "box")) {
        diag_add(d, NULL, 0, 0, "memdist: layout=%s: expected auto or box", layout);
        return NULL;
    }
    int box_only = layout && !strcmp(layout, "box");
    *status = XF_EREFUSED;
    /* applicability was checked by the registry (xf_apply_with) before this call */
    ir_program *out = ir_program_clone(src);
    xf_tiling T;
    xf_tiling_recognise(out, &T);
    ir_program *u = xf_tiling_untile(src, &T, d);
    if (!u) { ir_program_free(out); return NULL; }
    xf_model *m = xf_model_build(u, args->bindings, args->nbindings, 0, d);
    if (!m) { ir_program_free(u); ir_program_free(out); return NULL; }
    isl_ctx *ctx = m->ctx;
    unsigned npar = (unsigned)m->npnames;
    int np = T.np, ok = 1;
    /* the real processor variable and the range of each real processor's virtual ones */
    const ir_loopvar *rlv = real_procs(out);
    const char *rpv = T.k == TK_NONE ? T.pv[0] : rlv->var;
    isl_set *pvs = virtual_procs(m, np);
    if (!pvs) {
        diag_add(d, src->file, 0, 0, "memdist: no statement runs on the processors");
        xf_model_free(m); ir_program_free(u); ir_program_free(out);
        return NULL;
    }
    pvs = isl_set_coalesce(pvs);
    /* a build whose parameters include the processor dimensions, named after them */
    isl_set *pvp = isl_set_copy(pvs);
    pvp = isl_set_move_dims(pvp, isl_dim_param, npar, isl_dim_set, 0, (unsigned)np);
    for (int k = 0; k < np; k++) pvp = isl_set_set_dim_name(pvp, isl_dim_param, npar + (unsigned)k, T.pv[k]);
    isl_ast_build *bp = isl_ast_build_from_context(isl_set_params(isl_set_copy(pvp)));
    isl_ast_build *b0 = isl_ast_build_from_context(xf_model_context(m));
    ir_expr *P1 = NULL;
    if (T.k == TK_CYCLIC) P1 = xf_expr_of_pa(out, b0, isl_set_dim_max(isl_set_copy(pvs), 0));
    if (T.k == TK_BLOCKCYCLIC) P1 = ir_clone_expr(out, T.p1);
    md_ctx X = {out, &T, rpv, P1, m, ctx, npar, bp, NULL, 1, {.n = 0}, 0, -1, NULL, 0, box_only, 0};
    for (int i = 0; i < u->nparams && i < XF_ENV_MAX - 16; i++) {
        X.env0.names[X.env0.n] = u->params[i]->u.param.name;
        X.env0.vals[X.env0.n++] = m->pvalues[i];
    }
    if (xf_eval_int(rlv->lo, &X.env0, &X.rp_lo) == 0 && xf_eval_int(rlv->hi, &X.env0, &X.rp_hi) == 0) {
        ir_expr *pvx[2];
        for (int q = 0; q < np; q++) pvx[q] = ir_new_name(out, T.pv[q]);
        X.rp_of = T.k == TK_NONE ? pvx[0] : xf_tiling_rp(out, &T, pvx);
    }

    ir_decl **decls = ir_alloc(out, (size_t)(2 * out->ndecls + 1) * sizeof *decls);   /* at most a dist per decl */
    int nd = 0;
    for (int di = 0; di < out->ndecls && ok; di++) {
        ir_decl *ad = out->decls[di];
        decls[nd++] = ad;
        if (ad->kind != IR_D_ARRAY) continue;
        const char *an = ad->u.array.name;
        int nd_ = ad->u.array.ndims;
        /* the footprint, one relation per access: processor dimensions -> elements */
        isl_map *F[m->nacc + 1];
        int nf = footprint(m, np, an, F);
        ir_decl *dd = ir_new_decl(out, IR_D_DIST);
        dd->u.dist.array = ir_strdup(out, an);
        dd->u.dist.procvar = ir_strdup(out, rpv);
        /* nobody accesses it, or a scalar (0-d): every processor holds it — a scalar read
         * everywhere is replicated; a written one is one element on every processor, whose
         * copies the messages commgen generated keep up to date */
        if (!nf || nd_ == 0) {
            for (int a = 0; a < nf; a++) isl_map_free(F[a]);
            dd->u.dist.dk = IR_DIST_REPLICATE;
            decls[nd++] = dd;
            continue;
        }
        dd->u.dist.dk = IR_DIST_LOCAL;
        dd->u.dist.ndims = nd_;
        X.ad = ad;
        layout_array(&X, F, nf, nd_, dd);
        ok = X.ok;
        for (int a = 0; a < nf; a++) isl_map_free(F[a]);
        decls[nd++] = dd;
    }
    isl_ast_build_free(bp);
    isl_ast_build_free(b0);
    isl_set_free(pvp);
    isl_set_free(pvs);
    xf_model_free(m);
    ir_program_free(u);
    if (!ok) {
        diag_add(d, src->file, 0, 0, "memdist: a footprint bound is not expressible in the language");
        ir_program_free(out);
        return NULL;
    }
    if (box_only && !X.searched) {
        diag_add(d, src->file, 0, 0, "memdist: layout=box: layout=auto indexes every array's memory directly "
                                      "already (boxes, or one piece whose rows are plain ranges): the box would "
                                      "only take more memory");
        ir_program_free(out);
        return NULL;
    }
    out->decls = decls;
    out->ndecls = nd;
    out->level = IR_SYNDM;
    xf_simplify_program(out);
    xf_rename_for_level(out, src, "syncomm", "syndm");
    if (xf_check_generated("memdist", out, d) != 0) return NULL;
    *status = XF_OK;
    return out;
}
