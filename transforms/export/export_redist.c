/*
 * export_redist.c — the exporter's redistributions: `dst[lo .. hi] = transpose src[lo .. hi]
 * [when c]` as one call of runtime/rt_redist.c's rt_transpose, which packs the blocks each rank
 * gives each other rank and moves them with one MPI_Alltoallv.  The simulator's counterpart is
 * engine/sim_transpose.c: dst[b][a] = src[a][b] from the rank whose source rows hold a.
 *
 * Each block is described to the runtime by its rows (global lo .. hi, this rank's), its
 * columns (the array's last dimension, whole) and where its first element lies in this rank's
 * memory with the distance between rows: box layouts only (ex_transpose_refusal says why not).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "export_int.h"

static const ex_array *tr_array(const ex_plan *pl, const ir_expr *e)
{
    return &pl->arr[e->kind == IR_E_ACCESS ? e->u.access.array_index : e->u.name.index];
}

const char *ex_transpose_refusal(const ex_plan *pl, const ir_stmt *s, char *buf, size_t size)
{
    for (int side = 0; side < 2; side++) {
        const ex_array *a = tr_array(pl, side ? s->u.coll.dst[0] : s->u.coll.src[0]);
        int nd = a->decl->u.array.ndims, lattice = 0;
        for (int d = nd - 2; d < nd && pl->mpi && !pl->shared; d++) lattice |= ex_dim_kind(a, d) == EX_MAP_LATTICE;
        const char *why = a->pieced ? "its dist has pieces or named indices"
                        : a->fold >= 0 ? "it keeps only its live time planes"
                        : lattice ? "its dist strides its rows or columns"
                        : side && a->output ? "it is an output (the gather takes each element from the processor that "
                                              "computed it)"
                        : NULL;
        if (why) {
            snprintf(buf, size, "names array %s: %s; transpose is exported for rows of a box (one per processor)",
                     a->decl->u.array.name, why);
            return buf;
        }
    }
    return NULL;
}

/* One block as an rt_rows initialiser: rows, columns, base, first element and row distance. */
static void tr_rows(const ex_em *m, strbuf *b, strbuf *pre, int in, const ir_expr *e, const ir_expr *lo,
                    const ir_expr *hi, const char *var)
{
    const ex_array *a = tr_array(m->pl, e);
    const ir_decl *ad = a->decl;
    int nd = ad->u.array.ndims, nfix = nd - 2;
    strbuf l = {0}, h = {0}, c0 = {0}, c1 = {0}, fix = {0};
    ex_expr(m, &l, pre, in, lo);
    ex_expr(m, &h, pre, in, hi);
    ex_expr(m, &c0, pre, in, ad->u.array.lo[nd - 1]);
    ex_expr(m, &c1, pre, in, ad->u.array.hi[nd - 1]);
    for (int d = 0; d < nfix; d++) {
        ex_expr(m, &fix, pre, in, e->u.access.idx[d]);
        strbuf_printf(&fix, ", ");
    }
    ex_indent(b, in);
    strbuf_printf(b, "const int64_t %s_lo = %s, %s_hi = %s, %s_c0 = %s;\n", var, l.s, var, h.s, var, c0.s);
    ex_indent(b, in);
    strbuf_printf(b, "const rt_rows %s = {%s, %s_lo, %s_hi, %s_c0, %s,\n", var, a->cname, var, var, var, c1.s);
    ex_indent(b, in + 23);
    strbuf_printf(b, "%s_hi >= %s_lo ? %s_at(me, %s%s_lo, %s_c0) : 0,\n", var, var, a->cname, fix.s ? fix.s : "", var, var);
    ex_indent(b, in + 23);
    strbuf_printf(b, "%s_at(me, %s%s_lo + 1, %s_c0) - %s_at(me, %s%s_lo, %s_c0)};\n", a->cname, fix.s ? fix.s : "", var,
                  var, a->cname, fix.s ? fix.s : "", var, var);
    strbuf_free(&l);
    strbuf_free(&h);
    strbuf_free(&c0);
    strbuf_free(&c1);
    strbuf_free(&fix);
}

void ex_transpose(const ex_em *m, strbuf *b, const ir_stmt *s, int in)
{
    const ex_array *src = tr_array(m->pl, s->u.coll.src[0]);
    strbuf body = {0}, pre = {0}, when = {0};
    int bi = in + 4;
    if (s->u.coll.when) {
        ex_expr(m, &when, &pre, in + 4, s->u.coll.when);
        ex_indent(&body, in + 4);
        strbuf_printf(&body, "if (%s) {\n", when.s);
        bi += 4;
    }
    tr_rows(m, &body, &pre, bi, s->u.coll.src[0], s->u.coll.src_lo[0], s->u.coll.src_hi[0], "rt_src");
    tr_rows(m, &body, &pre, bi, s->u.coll.dst[0], s->u.coll.dst_lo[0], s->u.coll.dst_hi[0], "rt_dst");
    ex_indent(&body, bi);
    strbuf_printf(&body, "rt_transpose(&rt_src, &rt_dst, %s, MPI_COMM_WORLD);\n",
                  src->decl->u.array.elem == IR_DOUBLE ? "MPI_DOUBLE" : "MPI_INT64_T");
    if (s->u.coll.when) {
        ex_indent(&body, in + 4);
        strbuf_printf(&body, "}\n");
    }
    ex_indent(b, in);
    strbuf_printf(b, "{   /* %s%stranspose at %d:%d: %s[b][a] = %s[a][b], from the rank holding row a */\n",
                  s->u.coll.label ? s->u.coll.label : "", s->u.coll.label ? ": " : "", s->pos.line, s->pos.col,
                  tr_array(m->pl, s->u.coll.dst[0])->decl->u.array.name, src->decl->u.array.name);
    if (pre.s) strbuf_printf(b, "%s", pre.s);
    strbuf_printf(b, "%s", body.s);
    ex_indent(b, in);
    strbuf_printf(b, "}\n");
    strbuf_free(&body);
    strbuf_free(&pre);
    strbuf_free(&when);
}
