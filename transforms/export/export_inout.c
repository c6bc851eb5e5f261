/*
 * export_inout.c — the exporter's boxes over arrays: init_arrays (allocation and the inits,
 * at syndm over this processor's local memory) and output_checksum (sequentially every output
 * element in order; at syndm gathered on the first rank in slabs, each element from the
 * processor that computed it last, else its init value), both computing what `polyapm sim` does.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_int.h"

/* ---- init, output --------------------------------------------------------------------------- */

/* In a loop over a pieced array's last range: skip the indices off the piece's lattice. */
static void piece_skip(strbuf *b, const ex_array *a, const char *j, char names[][64], int in)
{
    strbuf held = {0};
    ex_piece_held(&held, a, j, names);
    ex_indent(b, in);
    strbuf_printf(b, "if (!%s) continue;\n", held.s);
    strbuf_free(&held);
}

/* One dimension d of a box over this processor's local memory (one box, not pieced), through the
 * dimension's index mapping (ex_array_map): a dimension bound by name iterates over the storage
 * indices whose global index lies in the array bounds lo .. hi (a plain dimension over its
 * global range clipped to them), a fixed one is tested.  names[d] gets the C name of the global
 * index, st[d] the storage index (folded time planes: the plane's).  Opens one block. */
static void ex_box_dim_local(const ex_em *m, strbuf *b, const ex_array *a, int d, const ir_expr *x, const char *lo,
                             const char *hi, char names[][64], char st[][96], int in)
{
    const char *X = a->cname, *me = m->me;
    int named = !x || (x->kind == IR_E_NAME && x->u.name.nk == IR_N_INITVAR);
    if (x && named) ex_nm(x->u.name.id, names[d]);
    else snprintf(names[d], 64, "g%d", d);
    const char *g = names[d];
    ex_indent(b, in);
    if (!named) {
        strbuf v = {0}, pre = {0};
        ex_expr(m, &v, &pre, in, x);
        ex_simplify_buf(&v);   /* as the bounds are: the same text when it is the same index */
        if (d == a->fold) {
            strbuf_printf(b, "{   /* the fixed time plane */\n");
            snprintf(st[d], 96, "imod(%s, %" PRId64 ")", g, a->fold_w);
        } else {
            snprintf(st[d], 96, "rt_r%d", d);
            /* a bound that is the index itself is no test (and -Werror rejects x <= x) */
            strbuf_printf(b, "if (%s_store%d(%s, %s) >= 0", X, d, me, v.s);
            if (strcmp(v.s, lo)) strbuf_printf(b, " && %s >= %s", v.s, lo);
            if (strcmp(v.s, hi)) strbuf_printf(b, " && %s <= %s", v.s, hi);
            strbuf_printf(b, ") {   /* the fixed index, held here */\n");
        }
        ex_indent(b, in + 4);
        strbuf_printf(b, "const int64_t %s = %s;\n", g, v.s);
        if (d != a->fold) {
            ex_indent(b, in + 4);
            strbuf_printf(b, "const int64_t rt_r%d = %s_store%d(%s, %s);\n", d, X, d, me, g);
        }
        strbuf_free(&v);
        strbuf_free(&pre);
        return;
    }
    if (d == a->fold) {
        strbuf_printf(b, "for (int64_t %s = %s, %s_end = %s; %s <= %s_end; %s++) {\n", g, lo, g, hi, g, g, g);
        snprintf(st[d], 96, "imod(%s, %" PRId64 ")", g, a->fold_w);
    } else if (ex_dim_kind(a, d) == EX_MAP_PLAIN) {
        strbuf_printf(b, "for (int64_t %s = imax(%s, %s_glob%d(%s, 0)), %s_end = imin(%s, %s_glob%d(%s, %s_ext%d(%s) - 1)); "
                         "%s <= %s_end; %s++) {\n", g, lo, X, d, me, g, hi, X, d, me, X, d, me, g, g, g);
        snprintf(st[d], 96, "%s - %s_glob%d(%s, 0)", g, X, d, me);
    } else {   /* strided: the storage indices, each one's global index */
        strbuf_printf(b, "for (int64_t rt_r%d = 0, rt_r%d_end = %s_ext%d(%s); rt_r%d < rt_r%d_end; rt_r%d++) {\n", d, d, X,
                      d, me, d, d, d);
        ex_indent(b, in + 4);
        strbuf_printf(b, "const int64_t %s = %s_glob%d(%s, rt_r%d);\n", g, X, d, me, d);
        ex_indent(b, in + 4);
        strbuf_printf(b, "if (%s < %s || %s > %s) continue;\n", g, lo, g, hi);
        snprintf(st[d], 96, "rt_r%d", d);
    }
}

/* Loops over global indices of an init or output box: dims bound by name iterate over the array
 * bounds (within the local part at syndm: ex_box_dim_local, which fills st with the storage
 * indices), fixed dims are tested. */
/* A box's dimension d clipped to lo .. hi (C expressions): the checksum's slab of rows. */
typedef struct ex_clip { int d; const char *lo, *hi; } ex_clip;

/* The bounds of dimension d of a box as C, within the clip when it names d. */
static void ex_box_bounds(const ex_em *m, const ex_array *a, int d, const ex_clip *clip, int in, strbuf *lo, strbuf *hi)
{
    strbuf pre = {0}, l = {0}, h = {0};
    ex_expr(m, &l, &pre, in, a->decl->u.array.lo[d]);
    ex_expr(m, &h, &pre, in, a->decl->u.array.hi[d]);
    strbuf_free(&pre);
    if (clip && clip->d == d) {
        strbuf_printf(lo, "imax(%s, %s)", l.s, clip->lo);
        strbuf_printf(hi, "imin(%s, %s)", h.s, clip->hi);
    } else {
        strbuf_printf(lo, "%s", l.s);
        strbuf_printf(hi, "%s", h.s);
    }
    strbuf_free(&l);
    strbuf_free(&h);
    ex_simplify_buf(lo);
    ex_simplify_buf(hi);
}

static int ex_box_open_clip(const ex_em *m, strbuf *b, const ex_array *a, ir_expr *const *idx, int nidx,
                            int in, int local, char names[][64], char st[][96], const ex_clip *clip)
{
    int nd = a->decl->u.array.ndims, opened = 0;
    if (local && !a->pieced) {
        for (int d = 0; d < nd; d++) {
            strbuf lo = {0}, hi = {0}, pre = {0};
            ex_box_bounds(m, a, d, clip, in, &lo, &hi);
            ex_box_dim_local(m, b, a, d, d < nidx ? idx[d] : NULL, lo.s, hi.s, names, st, in + 4 * opened++);
            strbuf_free(&lo);
            strbuf_free(&hi);
            strbuf_free(&pre);
        }
        return opened;
    }
    if (local && a->pieced) {   /* every piece of the local part (the storage of each copy) */
        ex_indent(b, in);
        strbuf_printf(b, "for (int rt_pc = 0; rt_pc < %d; rt_pc++) {\n", 1 + a->dist->u.dist.nmore);
        opened++;
    }
    for (int d = 0; d < nd; d++) {
        strbuf lo = {0}, hi = {0}, pre = {0}, lim = {0};
        ex_box_bounds(m, a, d, clip, in, &lo, &hi);
        if (local && a->pieced)
            ex_piece_lim(&lim, a, d, lo.s, hi.s, names);
        else
            strbuf_printf(&lim, "%s, %s", lo.s, hi.s);
        const ir_expr *x = d < nidx ? idx[d] : NULL;
        if (x && x->kind == IR_E_NAME && x->u.name.nk == IR_N_INITVAR) {
            ex_nm(x->u.name.id, names[d]);
            ex_indent(b, in + 4 * opened);
            char *comma = strstr(lim.s, ", imin") ? strstr(lim.s, ", imin") : strrchr(lim.s, ',');
            *comma = '\0';
            strbuf_printf(b, "for (int64_t %s = %s, %s_end = %s; %s <= %s_end; %s++) {\n", names[d], lim.s, names[d],
                          comma + 2, names[d], names[d], names[d]);
            opened++;
            if (local && a->pieced && d == nd - 1) piece_skip(b, a, names[d], names, in + 4 * opened);
        } else if (x) {
            strbuf v = {0};
            ex_expr(m, &v, &pre, in, x);
            snprintf(names[d], 64, "g%d", d);
            ex_indent(b, in + 4 * opened);
            char *comma = strstr(lim.s, ", imin") ? strstr(lim.s, ", imin") : strrchr(lim.s, ',');
            *comma = '\0';
            /* parameters are constants: the test is decided here when it can be */
            int64_t fv, flo, fhi;
            diag_list dd;
            diag_list_init(&dd);
            double r;
            int real = 0, known = !(clip && clip->d == d) && !local && !ir_const_eval(m->pl->p, x, m->pl->pv, &fv, &r, &real, &dd) && !real &&
                                  !ir_const_eval(m->pl->p, a->decl->u.array.lo[d], m->pl->pv, &flo, &r, &real, &dd) &&
                                  !ir_const_eval(m->pl->p, a->decl->u.array.hi[d], m->pl->pv, &fhi, &r, &real, &dd);
            diag_list_free(&dd);
            if (known && fv >= flo && fv <= fhi) strbuf_printf(b, "{   /* the fixed index */\n");
            else if (known) strbuf_printf(b, "if (0) {   /* the fixed index lies outside the array */\n");
            else if (local && d == a->fold) strbuf_printf(b, "{   /* the fixed time plane */\n");
            else if (local && a->pieced && d == nd - 1) {
                strbuf held = {0};
                ex_piece_held(&held, a, v.s, names);
                strbuf_printf(b, "if (%s >= %s && %s <= %s && %s) {   /* the fixed index */\n", v.s, lim.s, v.s, comma + 2, held.s);
                strbuf_free(&held);
            }
            else strbuf_printf(b, "if (%s >= %s && %s <= %s) {   /* the fixed index */\n", v.s, lim.s, v.s, comma + 2);
            ex_indent(b, in + 4 * opened + 4);
            strbuf_printf(b, "const int64_t g%d = %s;\n", d, v.s);
            opened++;
            strbuf_free(&v);
        } else {
            snprintf(names[d], 64, "g%d", d);
            ex_indent(b, in + 4 * opened);
            char *comma = strstr(lim.s, ", imin") ? strstr(lim.s, ", imin") : strrchr(lim.s, ',');
            *comma = '\0';
            strbuf_printf(b, "for (int64_t g%d = %s, g%d_end = %s; g%d <= g%d_end; g%d++) {\n", d, lim.s, d, comma + 2,
                          d, d, d);
            opened++;
            if (local && a->pieced && d == nd - 1) piece_skip(b, a, names[d], names, in + 4 * opened);
        }
        strbuf_free(&lo);
        strbuf_free(&hi);
        strbuf_free(&pre);
        strbuf_free(&lim);
    }
    return opened;
}

static int ex_box_open(const ex_em *m, strbuf *b, const ex_array *a, ir_expr *const *idx, int nidx,
                       int in, int local, char names[][64], char st[][96])
{
    return ex_box_open_clip(m, b, a, idx, nidx, in, local, names, st, NULL);
}

static void ex_box_close(strbuf *b, int opened, int in)
{
    for (int i = opened - 1; i >= 0; i--) { ex_indent(b, in + 4 * i); strbuf_printf(b, "}\n"); }
}

/* The element of global indices names[]: a_stored(me, st...) from the storage indices of a box over
 * the local memory (ex_box_dim_local), a_at(names...) in a sequential program. */
static void ex_local_at(const ex_em *m, strbuf *b, const ex_array *a, char names[][64], char st[][96])
{
    int nd = a->decl->u.array.ndims;
    if (m->me && a->pieced) { ex_piece_at(b, a, names); return; }
    strbuf_printf(b, "%s_%s(", a->cname, m->me ? "stored" : "at");
    if (m->me) strbuf_printf(b, "%s%s", m->me, nd ? ", " : "");
    for (int d = 0; d < nd; d++) strbuf_printf(b, "%s%s", m->me ? st[d] : names[d], d + 1 < nd ? ", " : "");
    strbuf_printf(b, ")");
}

void ex_init_fn(const ex_plan *pl, strbuf *b, const ex_em *m, const char *fills, int late_marks)
{
    const ir_program *p = pl->p;
    strbuf_printf(b, "/* The arrays allocated (an element without value holds rt_novalue()), the inits applied%s. */\n"
                     "static void init_arrays(%s)\n{\n",
                  pl->mpi ? " here" : "", pl->mpi ? "int64_t me" : "void");
    if (pl->mpi) strbuf_printf(b, "    (void)me;\n");   /* export_tidy.c drops it where me is used */
    if (fills) strbuf_printf(b, "%s", fills);
    for (int i = 0; i < p->narrays; i++) {
        const ex_array *a = &pl->arr[i];
        const char *w = pl->mpi ? "me" : "";
        int dbl = a->decl->u.array.elem == IR_DOUBLE;
        if (dbl) strbuf_printf(b, "    %s = rt_alloc_novalue((size_t)%s_size(%s));\n", a->cname, a->cname, w);
        else strbuf_printf(b, "    %s = %s((size_t)%s_size(%s), sizeof *%s);\n", a->cname, pl->mpi ? "rt_calloc" : "ex_calloc",
                           a->cname, w, a->cname);
        if (a->mark && !late_marks)
            strbuf_printf(b, "    %s_mine = rt_calloc((size_t)%s_size(%s), sizeof *%s_mine);\n", a->cname, a->cname, w,
                          a->cname);
    }
    for (int k = 0; k < p->ndecls; k++) {
        const ir_decl *d = p->decls[k];
        if (d->kind != IR_D_INIT) continue;
        const ex_array *a = &pl->arr[d->u.init.array_index];
        char names[8][64], st[8][96];
        strbuf pre = {0}, v = {0};
        strbuf_printf(b, "    /* init %s */\n", a->decl->u.array.name);   /* its loops' blocks scope its names */
        int opened = ex_box_open(m, b, a, d->u.init.idx, d->u.init.nidx, 4, pl->mpi, names, st);
        ex_expr(m, &v, &pre, 4 + 4 * opened, d->u.init.value);
        if (pre.s) strbuf_printf(b, "%s", pre.s);
        ex_indent(b, 4 + 4 * opened);
        strbuf_printf(b, "%s[", a->cname);
        ex_local_at(m, b, a, names, st);
        strbuf_printf(b, "] = %s;\n", v.s);
        ex_box_close(b, opened, 4);
        strbuf_free(&pre);
        strbuf_free(&v);
    }
    strbuf_printf(b, "}\n\n");
}

/* Region size and row-major index of an output declaration (dims after its fixed prefix). */
static void ex_region(const ex_em *m, strbuf *size, strbuf *index, const ex_array *a, int nfix, char names[][64])
{
    int nd = a->decl->u.array.ndims;
    strbuf_printf(size, "(int64_t)1");
    strbuf_printf(index, "0");
    for (int d = nfix; d < nd; d++) {
        strbuf lo = {0}, hi = {0}, pre = {0};
        ex_expr(m, &lo, &pre, 4, a->decl->u.array.lo[d]);
        ex_expr(m, &hi, &pre, 4, a->decl->u.array.hi[d]);
        strbuf_printf(size, " * (%s - %s + 1)", hi.s, lo.s);
        char *old = strbuf_take(index);
        strbuf_printf(index, "(%s) * (%s - %s + 1) + (%s - %s)", old, hi.s, lo.s, names[d], lo.s);
        free(old);
        strbuf_free(&lo);
        strbuf_free(&hi);
        strbuf_free(&pre);
    }
    ex_simplify_buf(index);
    if (nfix >= nd) return;   /* one element: (int64_t)1 */
    char *sz = ex_simplify_index(size->s + strlen("(int64_t)1 * "));   /* int64_t already, or a number */
    if (sz) { size->n = 0; strbuf_printf(size, "%s", sz); }
    free(sz);
}

/* Rank plo's fill of an output's slab with the inits of the elements nobody computed (later
 * inits win), indices relative to the slab (rt_base). */
static void ex_checksum_inits(const ex_plan *pl, strbuf *b, const ex_em *m, const ir_decl *d, const ex_array *a,
                              int nfix, const ex_clip *clip)
{
    const ir_program *p = pl->p;
    ex_em m0 = *m;
    m0.me = NULL;
    for (int q = 0; q < p->ndecls; q++) {
        const ir_decl *in = p->decls[q];
        if (in->kind != IR_D_INIT || in->u.init.array_index != d->u.output.array_index) continue;
        char inames[8][64], st[8][96];
        strbuf pre = {0}, v = {0}, isz = {0}, iidx = {0}, cond = {0};
        int scalar = !a->decl->u.array.ndims;   /* else the loops' blocks scope its names */
        strbuf_printf(b, "                %s/* init %s where nobody computed */\n", scalar ? "{   " : "",
                      a->decl->u.array.name);
        int at = scalar ? 20 : 16;
        int op2 = ex_box_open_clip(&m0, b, a, in->u.init.idx, in->u.init.nidx, at, 0, inames, st, clip);
        for (int i = 0; i < nfix; i++) {   /* within the output's fixed prefix */
            strbuf fx = {0};
            ex_expr(&m0, &fx, &pre, at, d->u.output.idx[i]);
            strbuf_printf(&cond, "%s%s == %s", cond.n ? " && " : "", inames[i], fx.s);
            strbuf_free(&fx);
        }
        ex_region(&m0, &isz, &iidx, a, nfix, inames);
        ex_expr(&m0, &v, &pre, at + 4 * op2, in->u.init.value);
        if (pre.s) strbuf_printf(b, "%s", pre.s);
        ex_indent(b, at + 4 * op2);
        int in2 = at + 4 * op2 + (cond.n ? 4 : 0);
        if (cond.n) strbuf_printf(b, "if (%s) {\n%*s", cond.s, in2, "");
        strbuf_printf(b, "const int64_t rt_k = %s - rt_base;\n%*sif (!computed[rt_k]) region[rt_k] = %s;\n", iidx.s, in2, "",
                      v.s);
        if (cond.n) strbuf_printf(b, "%*s}\n", at + 4 * op2, "");
        ex_box_close(b, op2, at);
        if (scalar) strbuf_printf(b, "                }\n");
        strbuf_free(&pre);
        strbuf_free(&v);
        strbuf_free(&isz);
        strbuf_free(&iidx);
        strbuf_free(&cond);
    }
}

/* An output of an MPI program gathered on rank plo in slabs of its first free dimension (rows of
 * at most EX_SLAB elements in all), hashed slab by slab: every rank's buffers and rank plo's
 * region are a slab's, never the whole array's.  Each element from the processor that computed
 * it last (its X_mine stamp), else its init value. */
enum { EX_SLAB = 65536 };
static void ex_checksum_gather(const ex_plan *pl, strbuf *b, const ex_em *m, const ir_decl *d, const ex_array *a,
                               int nfix)
{
    int nd = a->decl->u.array.ndims, dbl = a->decl->u.array.elem == IR_DOUBLE, opened;
    char names[8][64] = {{0}}, st[8][96];
    strbuf row = {0}, rindex = {0}, size = {0}, index = {0}, lo = {0}, hi = {0};
    ex_clip clip = {nfix, "rt_c0", "rt_c1"}, *cl = nfix < nd ? &clip : NULL;
    if (cl) {
        ex_region(m, &row, &rindex, a, nfix + 1, names);   /* elements per index of dimension nfix */
        ex_box_bounds(m, a, nfix, NULL, 8, &lo, &hi);
    } else {
        strbuf_printf(&row, "1");
        strbuf_printf(&lo, "0");
        strbuf_printf(&hi, "0");
    }
    strbuf_printf(b, "        const int64_t rt_row = %s, rt_rows = rt_row < %d ? %d / rt_row : 1;\n",
                  row.s, EX_SLAB, EX_SLAB);
    strbuf_printf(b, "        double *region = NULL;\n        unsigned char *computed = NULL;\n");
    strbuf_printf(b, "        if (me == %" PRId64 ") {\n", pl->plo);
    strbuf_printf(b, "            region = rt_malloc((size_t)(rt_rows * rt_row) * sizeof *region);\n");
    strbuf_printf(b, "            computed = rt_malloc((size_t)(rt_rows * rt_row));\n        }\n");
    strbuf_printf(b, "        for (int64_t rt_c0 = %s, rt_cend = %s; rt_c0 <= rt_cend; rt_c0 += rt_rows) {\n", lo.s, hi.s);
    strbuf_printf(b, "            const int64_t rt_c1 = imin(rt_cend, rt_c0 + rt_rows - 1);\n");
    strbuf_printf(b, "            const int64_t rt_base = (rt_c0 - %s) * rt_row, region_size = (rt_c1 - rt_c0 + 1) * rt_row;\n",
                  lo.s);
    if (!cl) strbuf_printf(b, "            (void)rt_c1;\n");
    strbuf_printf(b, "            if (me == %" PRId64 ") rt_fill_novalue(region, (size_t)region_size);\n", pl->plo);
    strbuf_printf(b, "            rt_gather *rt_g = rt_gather_new(MPI_COMM_WORLD, region, region_size);\n");
    opened = ex_box_open_clip(m, b, a, d->u.output.idx, nfix, 12, 1, names, st, cl);
    ex_region(m, &size, &index, a, nfix, names);
    ex_indent(b, 12 + 4 * opened);
    strbuf_printf(b, "const int64_t rt_o = ");
    ex_local_at(m, b, a, names, st);
    strbuf_printf(b, ";\n");
    ex_indent(b, 12 + 4 * opened);
    strbuf_printf(b, "if (%s_mine[rt_o]) rt_gather_put(rt_g, %s - rt_base, %s%s[rt_o], %s_mine[rt_o]);\n", a->cname,
                  index.s, dbl ? "" : "(double)", a->cname, a->cname);
    ex_box_close(b, opened, 12);
    strbuf_printf(b, "            rt_gather_finish(rt_g);\n");
    strbuf_printf(b, "            if (me == %" PRId64 ") {\n", pl->plo);
    strbuf_printf(b, "                for (int64_t rt_k = 0; rt_k < region_size; rt_k++)\n"
                     "                    computed[rt_k] = !rt_is_novalue(region[rt_k]);\n");
    ex_checksum_inits(pl, b, m, d, a, nfix, cl);
    strbuf_printf(b, "                rt_checksum_doubles(&hash, region, (size_t)region_size);\n            }\n        }\n");
    strbuf_printf(b, "        free(computed);\n        free(region);\n    }\n");
    strbuf_free(&row);
    strbuf_free(&rindex);
    strbuf_free(&size);
    strbuf_free(&index);
    strbuf_free(&lo);
    strbuf_free(&hi);
}

void ex_checksum_fn(const ex_plan *pl, strbuf *b, const ex_em *m)
{
    const ir_program *p = pl->p;
    strbuf_printf(b, "/* The checksum of the outputs, in declaration order, as `polyapm sim` computes it%s. */\n"
                     "static uint64_t output_checksum(%s)\n{\n    rt_checksum hash;\n    rt_checksum_init(&hash);\n",
                  pl->mpi ? " (gathered on rank 0: each element from the processor that computed it last, "
                            "else its init value)" : "",
                  pl->mpi ? "int64_t me" : "void");
    for (int k = 0; k < p->ndecls; k++) {
        const ir_decl *d = p->decls[k];
        if (d->kind != IR_D_OUTPUT) continue;
        const ex_array *a = &pl->arr[d->u.output.array_index];
        char names[8][64], st[8][96];
        int nfix = d->u.output.nidx;
        char *text = NULL;
        {
            strbuf t = {0};
            strbuf_printf(&t, "%s", a->decl->u.array.name);
            for (int i = 0; i < nfix; i++) {
                char *e = ir_print_expr(d->u.output.idx[i]);
                strbuf_printf(&t, "[%s]", e ? e : "");
                free(e);
            }
            text = strbuf_take(&t);
        }
        strbuf_printf(b, "    {   /* output %s */\n", text);
        free(text);
        int dbl = a->decl->u.array.elem == IR_DOUBLE;
        if (!pl->mpi) {
            int opened = ex_box_open(m, b, a, d->u.output.idx, nfix, 8, 0, names, st);
            ex_indent(b, 8 + 4 * opened);
            strbuf_printf(b, "rt_checksum_double(&hash, %s%s[", dbl ? "" : "(double)", a->cname);
            ex_local_at(m, b, a, names, st);
            strbuf_printf(b, "]);\n");
            ex_box_close(b, opened, 8);
            strbuf_printf(b, "    }\n");
            continue;
        }
        ex_checksum_gather(pl, b, m, d, a, nfix);
    }
    strbuf_printf(b, "    return rt_checksum_value(&hash);\n}\n\n");
}
