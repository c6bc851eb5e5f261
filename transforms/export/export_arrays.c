/*
 * export_arrays.c — the exporter's array declarations: each array's storage (the whole array,
 * or at syndm the local part of a processor, its dist declaration) with its bounds, extents and
 * the one index function X_at that every statement, init, message and the output gather goes
 * through (strided dists: the lattice and compressed mappings; folded time planes: index modulo
 * the live planes).  The simulator's sim_mem_slot / sim_mem_global compute the same.
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_int.h"

/* The bounds of dimension d of array a: global for sequential and replicated, the dist's
 * local bounds (expressions of its processor variable) otherwise. */
static const ir_expr *ex_bound_expr(const ex_array *a, int d, int hi)
{
    if (a->dist && a->dist->u.dist.dk == IR_DIST_LOCAL) return hi ? a->dist->u.dist.hi[d] : a->dist->u.dist.lo[d];
    return hi ? a->decl->u.array.hi[d] : a->decl->u.array.lo[d];
}

static void ex_bound(const ex_em *m, strbuf *b, strbuf *pre, const ex_array *a, int d, int hi)
{
    ex_expr(m, b, pre, 4, ex_bound_expr(a, d, hi));
}

static void ex_offsetexpr(const ex_em *m, strbuf *b, const ex_array *a, int d)
{
    strbuf pre = {0};
    if (a->dist && a->dist->u.dist.dk == IR_DIST_LOCAL && a->dist->u.dist.offset)
        ex_expr(m, b, &pre, 4, a->dist->u.dist.offset[d]);
    else
        strbuf_printf(b, "0");
    strbuf_free(&pre);
}

ex_dim_map ex_dim_kind(const ex_array *a, int d)
{
    const ir_decl *dd = a->dist;
    if (!dd || dd->u.dist.dk != IR_DIST_LOCAL || a->pieced || d == a->fold || !dd->u.dist.step || !dd->u.dist.step[d])
        return EX_MAP_PLAIN;
    return dd->u.dist.offset ? EX_MAP_COMPRESSED : EX_MAP_LATTICE;
}

/* `static inline int64_t X_<what><d>(int64_t pv) { return e; }` for a dist expression. */
static void ex_dist_fn(const ex_plan *pl, strbuf *b, const ex_array *a, const char *pv, const char *what, int d,
                       const ir_expr *e)
{
    int tmp = 0;
    ex_em m = {.pl = pl, .mode = EX_SEQ, .tmp = &tmp};
    strbuf v = {0}, pre = {0};
    if (e) ex_expr(&m, &v, &pre, 4, e);
    else strbuf_printf(&v, "1");
    strbuf_printf(b, "static inline int64_t %s_%s%d(int64_t %s)\n{\n    (void)%s;\n%s    return %s;\n}\n", a->cname, what,
                  d, pv, pv, pre.s ? pre.s : "", v.s);
    strbuf_free(&v);
    strbuf_free(&pre);
}

/* The one index mapping of a dimension of a local memory, as C functions of the processor pv
 * (the program's statements, the inits, the output gather and the messages all go through it):
 *   X_slot<d>(pv, i)   the storage index of access index i (what a statement's subscript names)
 *   X_glob<d>(pv, r)   the global index of storage index r (0 <= r < X_ext(pv, d))
 *   X_store<d>(pv, g)  the storage index of global index g, -1 when pv does not hold it
 * The simulator's sim_mem_slot / sim_mem_global compute the same. */
static void ex_array_map(strbuf *b, const ex_array *a, const char *pv, int d)
{
    const char *X = a->cname;
    ex_dim_map k = ex_dim_kind(a, d);
    strbuf_printf(b, "static inline int64_t %s_slot%d(int64_t %s, int64_t i)\n{\n    (void)%s;\n", X, d, pv, pv);
    if (k == EX_MAP_LATTICE)
        strbuf_printf(b, "    const int64_t q = i - %s_lo%d(%s), s = %s_step%d(%s), b = %s_block%d(%s);\n"
                         "    return ifloordiv(q, s) * b + imod(q, s);\n}\n", X, d, pv, X, d, pv, X, d, pv);
    else
        strbuf_printf(b, "    return i - %s_lo%d(%s);\n}\n", X, d, pv);
    strbuf_printf(b, "static inline int64_t %s_glob%d(int64_t %s, int64_t r)\n{\n", X, d, pv);
    if (k == EX_MAP_LATTICE)
        strbuf_printf(b, "    const int64_t s = %s_step%d(%s), b = %s_block%d(%s);\n"
                         "    return %s_lo%d(%s) + ifloordiv(r, b) * s + imod(r, b);\n}\n", X, d, pv, X, d, pv, X, d, pv);
    else if (k == EX_MAP_COMPRESSED)
        strbuf_printf(b, "    const int64_t l = %s_lo%d(%s) + r, s = %s_step%d(%s), b = %s_block%d(%s);\n"
                         "    return %s_off%d(%s) + ifloordiv(l, b) * s + imod(l, b);\n}\n", X, d, pv, X, d, pv, X, d, pv,
                      X, d, pv);
    else
        strbuf_printf(b, "    return %s_lo%d(%s) + r + %s_off%d(%s);\n}\n", X, d, pv, X, d, pv);
    strbuf_printf(b, "static inline int64_t %s_store%d(int64_t %s, int64_t g)\n{\n", X, d, pv);
    if (k == EX_MAP_LATTICE)
        strbuf_printf(b, "    const int64_t q = g - %s_lo%d(%s), s = %s_step%d(%s), b = %s_block%d(%s);\n"
                         "    const int64_t r = q < 0 || imod(q, s) >= b ? -1 : ifloordiv(q, s) * b + imod(q, s);\n",
                      X, d, pv, X, d, pv, X, d, pv);
    else if (k == EX_MAP_COMPRESSED)
        strbuf_printf(b, "    const int64_t q = g - %s_off%d(%s), s = %s_step%d(%s), b = %s_block%d(%s);\n"
                         "    const int64_t r = imod(q, s) >= b ? -1 : ifloordiv(q, s) * b + imod(q, s) - %s_lo%d(%s);\n",
                      X, d, pv, X, d, pv, X, d, pv, X, d, pv);
    else
        strbuf_printf(b, "    const int64_t r = g - %s_off%d(%s) - %s_lo%d(%s);\n", X, d, pv, X, d, pv);
    strbuf_printf(b, "    return r >= 0 && r < %s_ext(%s, %d) ? r : -1;\n}\n", X, pv, d);
}

/* Whether dimension d of a's local memory has the same extent on every processor, one the
 * compiler folds: its bounds name parameters only (or it is a folded time plane). */
static int ex_dim_fixed(const ex_array *a, int d)
{
    if (d == a->fold) return 1;
    if (ex_dim_kind(a, d) != EX_MAP_PLAIN) return 0;
    return ex_time_only(ex_bound_expr(a, d, 0), -1) && ex_time_only(ex_bound_expr(a, d, 1), -1);
}

/* A distributed array's extents, per processor and dimension: computed once by init_arrays
 * (X_ext_formula), looked up by X_ext (a processor of the program: plo .. plo+nprocs-1), so that
 * the index function X_at of an inner loop is a multiply-add, not the bound formulas (min, max,
 * floor division) again per element.  A dimension whose extent is the same on every processor
 * (ex_dim_fixed) is the formula itself, a constant: a row's length known to the compiler lets it
 * vectorise across rows (a j loop around a k reduction reading B[k][j], as gemm's and 2mm's). */
static void ex_ext_table(const ex_plan *pl, strbuf *b, strbuf *fills, const ex_array *a, const char *pv)
{
    const char *X = a->cname;
    int nd = a->decl->u.array.ndims, nfixed = 0;
    strbuf fixed = {0};
    for (int d = 0; d < nd; d++)
        if (ex_dim_fixed(a, d)) strbuf_printf(&fixed, "%sd == %d", nfixed++ ? " || " : "", d);
    if (nfixed == nd) {
        strbuf_printf(b, "static inline int64_t %s_ext(int64_t %s, int d) { return %s_ext_formula(%s, d); }"
                         "   /* the same on every processor */\n", X, pv, X, pv);
        strbuf_free(&fixed);
        return;
    }
    strbuf_printf(b, "static int64_t %s_ext_tab[%" PRId64 "][%d];   /* init_arrays fills it */\n", X, pl->nprocs,
                  nd ? nd : 1);
    if (nfixed)
        strbuf_printf(b, "static inline int64_t %s_ext(int64_t %s, int d)\n{\n    if (%s) return %s_ext_formula(%s, d);"
                         "   /* the same on every processor */\n    return %s_ext_tab[%s - %" PRId64 "][d];\n}\n",
                      X, pv, fixed.s, X, pv, X, pv, pl->plo);
    else
        strbuf_printf(b, "static inline int64_t %s_ext(int64_t %s, int d) { return %s_ext_tab[%s - %" PRId64 "][d]; }\n",
                      X, pv, X, pv, pl->plo);
    strbuf_free(&fixed);
    strbuf_printf(fills, "    for (int64_t p = 0; p < %" PRId64 "; p++)\n        for (int d = 0; d < %d; d++) "
                         "%s_ext_tab[p][d] = %s_ext_formula(p + %" PRId64 ", d);\n", pl->nprocs, nd, X, X, pl->plo);
}

/* ---- the common case: every dimension plain, its bounds one expression ------------------- */

/* C text s as an operand (parenthesised unless it is one). */
static void ex_operand(strbuf *b, const char *s)
{
    strbuf_printf(b, ex_is_operand(s) ? "%s" : "(%s)", s);
}

/* A bound or offset of a's dimension d as C (e NULL: 0), simplified; *fixed: it names parameters
 * alone (the same on every processor), *value its value at the exported parameters.  The
 * parameters stay names, so that the program stays right where a reader changes one.  0 when it
 * needs statements first (a reduction). */
static int ex_dim_text(const ex_plan *pl, const ex_em *m, const ir_expr *e, strbuf *out, int *fixed, int64_t *value)
{
    *fixed = 1;
    *value = 0;
    if (!e) { strbuf_printf(out, "0"); return 1; }
    double r;
    int real = 0;
    diag_list dd;
    diag_list_init(&dd);
    *fixed = !ir_const_eval(pl->p, e, pl->pv, value, &r, &real, &dd) && !real;
    diag_list_free(&dd);
    strbuf pre = {0};
    ex_expr(m, out, &pre, 4, e);
    int ok = !pre.s;
    strbuf_free(&pre);
    ex_simplify_buf(out);
    return ok;
}

/* Whether every dimension of a maps plainly (no lattice, not pieced) with bounds of one
 * expression: its accessors are then one expression each, inlined where they are called. */
static int ex_array_compact(const ex_plan *pl, const ex_array *a, const ex_em *m)
{
    if (a->pieced) return 0;
    for (int d = 0; d < a->decl->u.array.ndims; d++) {
        if (d == a->fold) continue;
        if (ex_dim_kind(a, d) != EX_MAP_PLAIN) return 0;
        strbuf t = {0};
        int f;
        int64_t v;
        int ok = ex_dim_text(pl, m, ex_bound_expr(a, d, 0), &t, &f, &v) &&
                 ex_dim_text(pl, m, ex_bound_expr(a, d, 1), &t, &f, &v);
        strbuf_free(&t);
        if (!ok) return 0;
    }
    return 1;
}

/* The processor whose extent of a's dimension d is the longest at the exported parameters, in
 * *at; 0 when a bound does not evaluate there. */
static int ex_longest_proc(const ex_plan *pl, const ex_array *a, int d, int64_t *at)
{
    const char *pv = a->dist->u.dist.procvar;
    int64_t best = -1;
    for (int64_t p = pl->plo; p < pl->plo + pl->nprocs; p++) {
        int64_t lo, hi;
        if (!ir_const_int_at(pl->p, ex_bound_expr(a, d, 0), pl->pv, pv, p, &lo) ||
            !ir_const_int_at(pl->p, ex_bound_expr(a, d, 1), pl->pv, pv, p, &hi))
            return 0;
        if (hi - lo + 1 > best) {
            best = hi - lo + 1;
            *at = p;
        }
    }
    return 1;
}

/* The rows' length in dimension d >= 1 of a compact array whose extent there differs between
 * processors: the longest processor's extent, X_pitch<d>(), a length the compiler knows (its
 * bounds at a literal processor fold with the constant parameters), so that it vectorises across
 * rows (correlation's i loop around its k reduction, reading data[k][i]); a shorter processor's
 * rows are padded.  init_arrays checks that every processor's fits (where a reader changed a
 * parameter).  0 (the table's extent as stride) when a bound does not evaluate. */
static int ex_pitch(const ex_plan *pl, strbuf *b, strbuf *fills, const ex_array *a, int d)
{
    int64_t at = 0;
    if (d < 1 || !a->dist || a->dist->u.dist.dk != IR_DIST_LOCAL || !ex_longest_proc(pl, a, d, &at)) return 0;
    const char *X = a->cname;
    strbuf_printf(b, "//@def %s_pitch%d\nstatic inline int64_t %s_pitch%d(void)   /* the rows' length: processor %" PRId64
                     "'s extent, the longest */\n{\n    return imax(%s_hi%d(%" PRId64 ") - %s_lo%d(%" PRId64 ") + 1, 0);\n}\n"
                     "//@end\n", X, d, X, d, at, X, d, at, X, d, at);
    strbuf_printf(fills, "    for (int64_t p = 0; p < %" PRId64 "; p++)\n        if (%s_ext_tab[p][%d] > %s_pitch%d())\n"
                         "            rt_die(\"%s: processor %%d's rows are longer than the rows laid out for the exported "
                         "parameters: export again\", (int)(p + %" PRId64 "));\n",
                  pl->nprocs, X, d, X, d, a->decl->u.array.name, pl->plo);
    return 1;
}

/* The accessors of a compact array (ex_array_compact), each `//@inline` for export_tidy.c but
 * X_store<d> (a function): X_lo<d>, X_hi<d>, X_off<d>, X_ext<d>, X_size, X_at, X_glob<d>,
 * X_stored.  Extents that differ between processors come from a table init_arrays fills; as a
 * stride, such an extent is the longest's (ex_pitch). */
static void ex_array_accessors(const ex_plan *pl, const ex_em *m, strbuf *b, strbuf *fills, const ex_array *a,
                               const char *pv)
{
    const char *X = a->cname;
    int nd = a->decl->u.array.ndims, mpi = pl->mpi, ntab = 0;
    const char *w = mpi ? pv : "";
    strbuf lo[8] = {{0}}, hi[8] = {{0}}, off[8] = {{0}}, ext[8] = {{0}}, pitch[8] = {{0}}, pitches = {0};
    for (int d = 0; d < nd && d < 8; d++) {
        if (d == a->fold) {
            strbuf_printf(&lo[d], "0");
            strbuf_printf(&hi[d], "%" PRId64, a->fold_w - 1);
            strbuf_printf(&off[d], "0");
            strbuf_printf(&ext[d], "%" PRId64, a->fold_w);
            continue;
        }
        int lfix, hfix, ofix;
        int64_t l, h, ov;
        ex_dim_text(pl, m, ex_bound_expr(a, d, 0), &lo[d], &lfix, &l);
        ex_dim_text(pl, m, ex_bound_expr(a, d, 1), &hi[d], &hfix, &h);
        const ir_expr *o = a->dist && a->dist->u.dist.dk == IR_DIST_LOCAL && a->dist->u.dist.offset
                         ? a->dist->u.dist.offset[d] : NULL;
        ex_dim_text(pl, m, o, &off[d], &ofix, &ov);
        if (lfix && hfix) {   /* the same on every processor: hi - lo + 1 of the parameters */
            strbuf e = {0};
            strbuf_printf(&e, "%s - (%s) + 1", hi[d].s, lo[d].s);
            ex_simplify_buf(&e);
            if (h >= l) strbuf_printf(&ext[d], "%s", e.s);
            else strbuf_printf(&ext[d], "imax(%s, 0)", e.s);
            strbuf_free(&e);
        } else if (mpi) {   /* per processor: a table, filled once */
            strbuf_printf(&ext[d], "%s_ext_tab[%s - %" PRId64 "][%d]", X, pv, pl->plo, d);
            strbuf_printf(fills, "    for (int64_t p = %" PRId64 "; p < %" PRId64 "; p++)\n"
                                 "        %s_ext_tab[p - %" PRId64 "][%d] = imax(%s_hi%d(p) - %s_lo%d(p) + 1, 0);\n",
                          pl->plo, pl->plo + pl->nprocs, X, pl->plo, d, X, d, X, d);
            ntab++;
            if (ex_pitch(pl, &pitches, fills, a, d)) strbuf_printf(&pitch[d], "%s_pitch%d()", X, d);
        } else {
            strbuf_printf(&ext[d], "imax(%s - %s + 1, 0)", hi[d].s, lo[d].s);
        }
        if (!pitch[d].s) strbuf_printf(&pitch[d], "%s", ext[d].s);
    }
    if (ntab)
        strbuf_printf(b, "//@def %s_ext_tab\nstatic int64_t %s_ext_tab[%" PRId64 "][%d];   /* extents per processor */\n"
                         "//@end\n", X, X, pl->nprocs, nd);
    for (int d = 0; d < nd; d++) {
        strbuf_printf(b, "//@inline %s_lo%d(%s) %s\n//@inline %s_hi%d(%s) %s\n", X, d, w, lo[d].s, X, d, w, hi[d].s);
        if (mpi) strbuf_printf(b, "//@inline %s_off%d(%s) %s\n", X, d, w, off[d].s);
        strbuf_printf(b, "//@inline %s_ext%d(%s) %s\n", X, d, w, ext[d].s);
    }
    if (pitches.s) strbuf_printf(b, "%s", pitches.s);
    strbuf_free(&pitches);
    /* size: what is allocated, the first extent times the rows' lengths */
    strbuf size = {0};
    for (int d = 0; d < nd; d++) {
        if (d) strbuf_printf(&size, " * ");
        ex_operand(&size, d ? pitch[d].s : ext[d].s);
    }
    ex_simplify_buf(&size);
    strbuf_printf(b, "//@inline %s_size(%s) %s\n", X, w, nd ? size.s : "1");
    /* the index function: row-major over the slots */
    strbuf at = {0}, stored = {0}, par = {0}, spar = {0};
    for (int d = 0; d < nd; d++) {
        strbuf slot = {0};
        if (d == a->fold) strbuf_printf(&slot, "imod(i%d, %" PRId64 ")", d, a->fold_w);
        else if (!strcmp(lo[d].s, "0")) strbuf_printf(&slot, "i%d", d);
        else { strbuf_printf(&slot, "i%d - ", d); ex_operand(&slot, lo[d].s); }
        if (d) {
            char *o = strbuf_take(&at), *so = strbuf_take(&stored);
            ex_operand(&at, o);
            strbuf_printf(&at, " * ");
            ex_operand(&at, pitch[d].s);
            strbuf_printf(&at, " + %s", slot.s);
            ex_operand(&stored, so);
            strbuf_printf(&stored, " * ");
            ex_operand(&stored, pitch[d].s);
            strbuf_printf(&stored, " + r%d", d);
            free(o);
            free(so);
        } else {
            strbuf_printf(&at, "%s", slot.s);
            strbuf_printf(&stored, "r0");
        }
        strbuf_printf(&par, "%si%d", d || mpi ? ", " : "", d);
        strbuf_printf(&spar, ", r%d", d);
        strbuf_free(&slot);
    }
    strbuf_printf(b, "//@inline %s_at(%s%s) %s\n", X, w, par.s ? par.s : "", nd ? at.s : "0");
    if (mpi) {
        strbuf_printf(b, "//@inline %s_stored(%s%s) %s\n", X, pv, spar.s ? spar.s : "", nd ? stored.s : "0");
        for (int d = 0; d < nd; d++) {
            if (d == a->fold) continue;
            strbuf glob = {0};
            if (strcmp(lo[d].s, "0")) { ex_operand(&glob, lo[d].s); strbuf_printf(&glob, " + "); }
            strbuf_printf(&glob, "r");
            if (strcmp(off[d].s, "0")) { strbuf_printf(&glob, " + "); ex_operand(&glob, off[d].s); }
            strbuf_printf(b, "//@inline %s_glob%d(%s, r) %s\n", X, d, pv, glob.s);
            strbuf_free(&glob);
            strbuf_printf(b, "//@def %s_store%d\nstatic inline int64_t %s_store%d(int64_t %s, int64_t g)\n{\n"
                             "    (void)%s;\n    const int64_t r = g - %s_glob%d(%s, 0);\n"
                             "    return r >= 0 && r < %s_ext%d(%s) ? r : -1;\n}\n//@end\n", X, d, X, d, pv, pv, X, d,
                          pv, X, d, pv);
        }
    }
    for (int d = 0; d < nd && d < 8; d++) {
        strbuf_free(&lo[d]);
        strbuf_free(&hi[d]);
        strbuf_free(&off[d]);
        strbuf_free(&ext[d]);
        strbuf_free(&pitch[d]);
    }
    strbuf_free(&size);
    strbuf_free(&at);
    strbuf_free(&stored);
    strbuf_free(&par);
    strbuf_free(&spar);
}

/* The bounds (X_lo<d>, X_hi<d>; a bound with a reduction from a table init_arrays fills), and
 * at syndm the offsets and strides of each dimension, as functions of processor pv. */
static void ex_array_bounds(const ex_plan *pl, const ex_em *mm, strbuf *b, strbuf *fills, const ex_array *a,
                            const char *pv)
{
    ex_em m = *mm;
    int nd = a->decl->u.array.ndims;
    strbuf tabs = {0};
    size_t mark = b->n;
    const char *args = pl->mpi ? "int64_t " : "void";
    for (int d = 0; d < nd; d++) {
        for (int hi = 0; hi < 2; hi++) {
            strbuf_printf(b, "static inline int64_t %s_%s%d(%s%s) { ", a->cname, hi ? "hi" : "lo", d, args,
                          pl->mpi ? pv : "");
            strbuf e = {0}, pre = {0};
            ex_bound(&m, &e, &pre, a, d, hi);
            if (pre.s && pl->mpi) {
                /* a bound with a reduction (min/max over the blocks of a cyclic tiling): computed
                 * once per processor by init_arrays, looked up afterwards */
                strbuf_printf(b, "return %s_%s%d_tab[%s - %" PRId64 "]; }\n", a->cname, hi ? "hi" : "lo", d, pv, pl->plo);
                strbuf_printf(&tabs, "static int64_t %s_%s%d_tab[%" PRId64 "];\n", a->cname, hi ? "hi" : "lo", d,
                              pl->nprocs);
                strbuf_printf(&tabs, "static int64_t %s_%s%d_formula(int64_t %s)\n{\n%s    return %s;\n}\n", a->cname,
                              hi ? "hi" : "lo", d, pv, pre.s, e.s);
                strbuf_printf(fills, "    for (int64_t p = %" PRId64 "; p < %" PRId64 "; p++) %s_%s%d_tab[p - %" PRId64 "] = "
                              "%s_%s%d_formula(p);\n", pl->plo, pl->plo + pl->nprocs, a->cname, hi ? "hi" : "lo", d,
                              pl->plo, a->cname, hi ? "hi" : "lo", d);
            } else if (pre.s) {
                strbuf_printf(b, "\n%s    return %s;\n}\n", pre.s, e.s);
            } else {
                if (pl->mpi) strbuf_printf(b, "(void)%s; ", pv);
                strbuf_printf(b, "return %s; }\n", e.s);
            }
            strbuf_free(&e);
            strbuf_free(&pre);
        }
        if (pl->mpi) {
            strbuf_printf(b, "static inline int64_t %s_off%d(int64_t %s) { (void)%s; return ", a->cname, d, pv, pv);
            ex_offsetexpr(&m, b, a, d);
            strbuf_printf(b, "; }\n");
            if (ex_dim_kind(a, d) != EX_MAP_PLAIN) {   /* strided: every step-th index, block at a time */
                ex_dist_fn(pl, b, a, pv, "step", d, a->dist->u.dist.step[d]);
                ex_dist_fn(pl, b, a, pv, "block", d, a->dist->u.dist.block ? a->dist->u.dist.block[d] : NULL);
            }
        }
    }
    if (tabs.s) {   /* the tables and formulas go before the lookups */
        char *rest = xstrdup(b->s + mark);
        b->n = mark;
        b->s[mark] = '\0';
        strbuf_printf(b, "%s%s", tabs.s, rest);
        free(rest);
    }
    strbuf_free(&tabs);
}

void ex_array_decl(const ex_plan *pl, strbuf *b, strbuf *fills, const ex_array *a)
{
    if (a->pieced) { ex_piece_decl(pl, b, fills, a); return; }
    char pv[64] = "rp";
    if (a->dist && a->dist->u.dist.dk == IR_DIST_LOCAL) ex_cname(pv, sizeof pv, a->dist->u.dist.procvar);
    int tmp = 0;
    ex_em m = {.pl = pl, .mode = EX_SEQ, .tmp = &tmp};
    int nd = a->decl->u.array.ndims;
    const char *ty = a->decl->u.array.elem == IR_DOUBLE ? "double" : "int64_t";
    strbuf_printf(b, "/* %s: ", a->decl->u.array.name);
    if (!pl->mpi) strbuf_printf(b, "the whole array");
    else if (!a->dist) strbuf_printf(b, "the whole array on every processor (syncomm: each writes its own rows)");
    else if (a->dist->u.dist.dk == IR_DIST_REPLICATE) strbuf_printf(b, "replicated, every processor holds all of it");
    else strbuf_printf(b, "the part of processor %s (its dist declaration)", pv);
    if (a->fold >= 0)
        strbuf_printf(b, "; only the %" PRId64 " live planes of dimension %d (index modulo %" PRId64 ")", a->fold_w,
                      a->fold, a->fold_w);
    strbuf_printf(b, " */\nstatic %s *%s;\n", ty, a->cname);
    if (a->mark) strbuf_printf(b, "static rt_mark *%s_mine;   /* the step that computed it here, 0: none */\n", a->cname);
    if (ex_array_compact(pl, a, &m)) {
        ex_array_accessors(pl, &m, b, fills, a, pv);
        strbuf_printf(b, "\n");
        return;
    }
    for (int d = 0; d < nd; d++)   /* the extent of one dimension, as the compact arrays name it */
        strbuf_printf(b, "//@inline %s_ext%d(%s) %s_ext(%s%s%d)\n", a->cname, d, pl->mpi ? pv : "", a->cname,
                      pl->mpi ? pv : "", pl->mpi ? ", " : "", d);
    ex_array_bounds(pl, &m, b, fills, a, pv);
    /* extent of a dimension and the index function */
    const char *w = pl->mpi ? pv : "";
    const char *wc = pl->mpi ? ", " : "";
    strbuf_printf(b, "static inline int64_t %s_ext%s(%s%s%sint d)\n{\n", a->cname, pl->mpi ? "_formula" : "",
                  pl->mpi ? "int64_t " : "", w, wc);
    if (pl->mpi) strbuf_printf(b, "    (void)%s;\n", pv);   /* a scalar's bounds do not use it */
    strbuf_printf(b, "    int64_t e = 0;\n    switch (d) {\n");
    for (int d = 0; d < nd; d++) {
        if (d == a->fold) strbuf_printf(b, "    case %d: return %" PRId64 ";\n", d, a->fold_w);
        else if (ex_dim_kind(a, d) == EX_MAP_LATTICE)   /* the lattice points of lo .. hi */
            strbuf_printf(b, "    case %d: {\n        const int64_t q = %s_hi%d(%s) - %s_lo%d(%s), s = %s_step%d(%s), b = %s_block%d(%s);\n"
                             "        e = q < 0 ? 0 : ifloordiv(q, s) * b + imin(imod(q, s) + 1, b);\n        break;\n    }\n",
                          d, a->cname, d, w, a->cname, d, w, a->cname, d, w, a->cname, d, w);
        else strbuf_printf(b, "    case %d: e = %s_hi%d(%s) - %s_lo%d(%s) + 1; break;\n", d, a->cname, d, w, a->cname, d, w);
    }
    strbuf_printf(b, "    }\n    return e > 0 ? e : 0;\n}\n");
    if (pl->mpi) ex_ext_table(pl, b, fills, a, pv);
    strbuf_printf(b, "static inline int64_t %s_size(%s%s)\n{\n", a->cname, pl->mpi ? "int64_t " : "void", w);
    if (pl->mpi) strbuf_printf(b, "    (void)%s;\n", pv);
    strbuf_printf(b, "    return 1");
    for (int d = 0; d < nd; d++) strbuf_printf(b, " * %s_ext(%s%s%d)", a->cname, w, wc, d);
    strbuf_printf(b, ";\n}\n");
    for (int d = 0; d < nd; d++)
        if (d != a->fold && pl->mpi) ex_array_map(b, a, pv, d);
    strbuf_printf(b, "static inline int64_t %s_at(", a->cname);
    int first = 1;
    if (pl->mpi) { strbuf_printf(b, "int64_t %s", pv); first = 0; }
    for (int d = 0; d < nd; d++) { strbuf_printf(b, "%sint64_t i%d", first ? "" : ", ", d); first = 0; }
    if (first) strbuf_printf(b, "void");
    strbuf_printf(b, ")\n{\n");
    if (pl->mpi) strbuf_printf(b, "    (void)%s;\n", pv);
    strbuf_printf(b, "    int64_t o = 0;\n");
    for (int d = 0; d < nd; d++) {
        if (d == a->fold)
            strbuf_printf(b, "    o = o * %" PRId64 " + imod(i%d, %" PRId64 ");\n", a->fold_w, d, a->fold_w);
        else if (pl->mpi)
            strbuf_printf(b, "    o = o * %s_ext(%s, %d) + %s_slot%d(%s, i%d);\n", a->cname, w, d, a->cname, d, w, d);
        else
            strbuf_printf(b, "    o = o * %s_ext(%d) + (i%d - %s_lo%d());\n", a->cname, d, d, a->cname, d);
    }
    strbuf_printf(b, "    return o;\n}\n");
    if (pl->mpi) {   /* the element of storage indices r0.. (the inits and the output gather) */
        strbuf_printf(b, "static inline int64_t %s_stored(int64_t %s", a->cname, pv);
        for (int d = 0; d < nd; d++) strbuf_printf(b, ", int64_t r%d", d);
        strbuf_printf(b, ")\n{\n    (void)%s;\n    int64_t o = 0;\n", pv);
        for (int d = 0; d < nd; d++) strbuf_printf(b, "    o = o * %s_ext(%s, %d) + r%d;\n", a->cname, pv, d, d);
        strbuf_printf(b, "    return o;\n}\n");
    }
    strbuf_printf(b, "\n");
}
