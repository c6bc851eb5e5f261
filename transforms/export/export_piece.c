/*
 * export_piece.c — the storage of an array whose dist has pieces or named indices (pieced local
 * memory, `dist a(rp) [i = lo .. hi][lo .. i] + [..][..]`) in exported C+MPI.
 *
 * Each rank allocates only its pieces.  At start-up (X_layout, called by init_arrays) every
 * piece gets its outer ranges (all dimensions but the last; strided ones are walked as a box
 * whose rows off the lattice are empty) and, per outer index tuple (a row, row-major), its last
 * range lo .. hi and the offset of the row in the storage: a piece is the concatenation of its
 * rows, the storage the concatenation of the pieces.  The element index X_at(me, i..., j) is
 * found in the first piece whose outer ranges hold i... and whose row holds j: base[row] + j - lo,
 * or, when the last range is strided (`step s block b`: every s-th index, b at a time),
 * base[row] + (q / s) * b + q % s with q = j - lo and q % s < b.
 * The tables describe this rank's processor only; messages therefore carry global indices
 * (X_gidx) that the receiver turns into its own (X_at_gidx).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_int.h"

const char *const ex_piece_type =
    "/* One piece of a pieced local memory (a dist with `+` or named indices): its outer ranges (the\n"
    " * dimensions before the last) and per row (outer index tuple, row-major) the last range\n"
    " * rlo .. rhi (empty when rhi < rlo) and base, where the row starts; st, bl: a strided last range\n"
    " * (every st-th index, bl at a time; st = 0: every index). */\n"
    "typedef struct rt_piece {\n    int64_t lo[8], hi[8], ext[8];\n    int64_t *base, *rlo, *rhi;\n    int64_t st, bl;\n} rt_piece;\n"
    "static inline int rt_piece_held(const rt_piece *pc, int64_t r, int64_t j)\n{\n"
    "    return j >= pc->rlo[r] && j <= pc->rhi[r] && (!pc->st || imod(j - pc->rlo[r], pc->st) < pc->bl);\n}\n"
    "static inline int64_t rt_piece_idx(const rt_piece *pc, int64_t r, int64_t j)\n{\n"
    "    const int64_t q = j - pc->rlo[r];\n"
    "    return pc->base[r] + (pc->st ? q / pc->st * pc->bl + q % pc->st : q);\n}\n\n";

/* The row index of outer indices names[0 .. nd-2] in piece `k` (a C expression). */
static void ex_piece_row(strbuf *b, const ex_array *a, const char *k, char names[][64])
{
    int nd = a->decl->u.array.ndims;
    strbuf_printf(b, "%s_row(%s", a->cname, k);
    for (int d = 0; d < nd - 1; d++) strbuf_printf(b, ", %s", names[d]);
    strbuf_printf(b, ")");
}

/* One array's pieced declarations being written, between the phases of ex_piece_decl. */
typedef struct ex_piece_out {
    const ex_array *a;
    strbuf *b;
    ex_em m;                 /* expressions of the dist declaration (its tmp is &tmp) */
    int tmp;
    int nd, np;              /* the array's dimensions; its pieces */
    const char *X;           /* the array's C name */
    char pv[64];             /* the dist's processor variable */
} ex_piece_out;

/* The storage, the pieces' table and X_row: the row of outer indices in piece k. */
static void piece_storage(ex_piece_out *o)
{
    strbuf *b = o->b;
    const ex_array *a = o->a;
    const char *X = o->X;
    int nd = o->nd, np = o->np;
    const char *ty = a->decl->u.array.elem == IR_DOUBLE ? "double" : "int64_t";
    strbuf_printf(b, "/* %s: the %d piece%s of processor %s (its dist declaration), rows of its last dimension */\n"
                     "static %s *%s;\n", a->decl->u.array.name, np, np > 1 ? "s" : "", o->pv, ty, X);
    if (a->mark) strbuf_printf(b, "static rt_mark *%s_mine;   /* the step that computed it here, 0: none */\n", X);
    strbuf_printf(b, "static rt_piece %s_pc[%d];\nstatic int64_t %s_n;   /* elements of all pieces */\n", X, np, X);
    strbuf_printf(b, "static inline int64_t %s_row(int k", X);
    for (int d = 0; d < nd - 1; d++) strbuf_printf(b, ", int64_t i%d", d);
    strbuf_printf(b, ")\n{\n    const rt_piece *pc = &%s_pc[k];\n    (void)pc;\n    int64_t r = 0;\n", X);
    for (int d = 0; d < nd - 1; d++) strbuf_printf(b, "    r = r * pc->ext[%d] + (i%d - pc->lo[%d]);\n", d, d, d);
    strbuf_printf(b, "    return r;\n}\n");
}

/* Piece pc's outer ranges (lo, hi, ext; the row count) and the stride and block of its last
 * range; names[d]: the C names of its outer index variables. */
static void piece_layout_bounds(ex_piece_out *o, const ir_dist_piece *pc, char names[][64])
{
    strbuf *b = o->b;
    int nd = o->nd;
    for (int d = 0; d < nd - 1; d++) {
        strbuf pre = {0}, lo = {0}, hi = {0};
        ex_expr(&o->m, &lo, &pre, 8, pc->lo[d]);
        ex_expr(&o->m, &hi, &pre, 8, pc->hi[d]);
        if (pre.s) strbuf_printf(b, "%s", pre.s);
        strbuf_printf(b, "        rt_p->lo[%d] = %s;\n        rt_p->hi[%d] = %s;\n        rt_p->ext[%d] = imax(0, rt_p->hi[%d] - rt_p->lo[%d] + 1);\n"
                         "        rt_rows *= rt_p->ext[%d];\n", d, lo.s, d, hi.s, d, d, d, d);
        if (pc->ivar && pc->ivar[d]) ex_cname(names[d], 64, pc->ivar[d]);
        else snprintf(names[d], 64, "rt_g%d", d);
        strbuf_free(&pre);
        strbuf_free(&lo);
        strbuf_free(&hi);
    }
    /* a strided last range */
    strbuf pre = {0}, st = {0}, bl = {0};
    if (pc->step && pc->step[nd - 1]) {
        ex_expr(&o->m, &st, &pre, 8, pc->step[nd - 1]);
        if (pc->block && pc->block[nd - 1]) ex_expr(&o->m, &bl, &pre, 8, pc->block[nd - 1]);
    }
    if (pre.s) strbuf_printf(b, "%s", pre.s);
    strbuf_printf(b, "        rt_p->st = %s;\n        rt_p->bl = %s;\n", st.n ? st.s : "0", bl.n ? bl.s : "1");
    strbuf_free(&pre);
    strbuf_free(&st);
    strbuf_free(&bl);
}

/* Piece k's rows: for each row of outer indices, its last range (empty off the lattice of a
 * strided outer dimension) and where its elements start in the storage. */
static void piece_layout_rows(ex_piece_out *o, int k, const ir_dist_piece *pc, char names[][64])
{
    strbuf *b = o->b;
    int nd = o->nd, in = 8;
    char t[64];
    for (int d = 0; d < nd - 1; d++) {
        ex_indent(b, in);
        strbuf_printf(b, "for (int64_t %s = rt_p->lo[%d]; %s <= rt_p->hi[%d]; %s++) {\n", names[d], d, names[d], d, names[d]);
        in += 4;
    }
    strbuf pre = {0}, lo = {0}, hi = {0}, held = {0};
    ex_expr(&o->m, &lo, &pre, in, pc->lo[nd - 1]);
    ex_expr(&o->m, &hi, &pre, in, pc->hi[nd - 1]);
    for (int d = 0; d < nd - 1; d++) {
        if (!pc->step || !pc->step[d]) continue;
        strbuf s = {0}, bl = {0};
        ex_expr(&o->m, &s, &pre, in, pc->step[d]);
        if (pc->block && pc->block[d]) ex_expr(&o->m, &bl, &pre, in, pc->block[d]);
        strbuf_printf(&held, "%simod(%s - rt_p->lo[%d], %s) < %s", held.n ? " && " : "", names[d], d, s.s,
                      bl.n ? bl.s : "1");
        strbuf_free(&s);
        strbuf_free(&bl);
    }
    if (pre.s) strbuf_printf(b, "%s", pre.s);
    ex_indent(b, in);
    strbuf_printf(b, "const int64_t rt_r = ");
    snprintf(t, sizeof t, "%d", k);
    ex_piece_row(b, o->a, t, names);
    strbuf_printf(b, ";\n");
    ex_indent(b, in);
    strbuf_printf(b, "int64_t rt_l = %s, rt_h = %s;\n", lo.s, hi.s);
    if (held.n) {
        ex_indent(b, in);
        strbuf_printf(b, "if (!(%s)) rt_h = rt_l - 1;   /* off the lattice of a strided dimension */\n", held.s);
    }
    static const char *const rows[] = {
        "if (rt_h < rt_l) rt_h = rt_l - 1;\n", "rt_p->rlo[rt_r] = rt_l;\n", "rt_p->rhi[rt_r] = rt_h;\n",
        "rt_p->base[rt_r] = rt_n;\n", "if (!rt_p->st) rt_n += rt_h - rt_l + 1;\n",
        "else if (rt_h >= rt_l) rt_n += (rt_h - rt_l) / rt_p->st * rt_p->bl + imin((rt_h - rt_l) % rt_p->st + 1, rt_p->bl);\n",
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ex_indent(b, in);
        strbuf_printf(b, "%s", rows[i]);
    }
    for (int d = nd - 2; d >= 0; d--) { in -= 4; ex_indent(b, in); strbuf_printf(b, "}\n"); }
    strbuf_free(&pre);
    strbuf_free(&lo);
    strbuf_free(&hi);
    strbuf_free(&held);
}

/* X_layout(processor): every piece's ranges and rows, the storage's size; X_free_pieces. */
static void piece_layout(ex_piece_out *o)
{
    strbuf *b = o->b;
    const char *X = o->X;
    strbuf_printf(b, "static void %s_layout(int64_t %s)\n{\n    (void)%s;\n    int64_t rt_n = 0;\n", X, o->pv, o->pv);
    for (int k = 0; k < o->np; k++) {
        ir_dist_piece pc = ir_dist_get_piece(o->a->dist, k);
        strbuf_printf(b, "    {   /* piece %d */\n        rt_piece *rt_p = &%s_pc[%d];\n        int64_t rt_rows = 1;\n", k, X, k);
        char names[8][64];
        piece_layout_bounds(o, &pc, names);
        strbuf_printf(b, "        rt_p->base = rt_malloc((size_t)rt_rows * sizeof *rt_p->base);\n"
                         "        rt_p->rlo = rt_malloc((size_t)rt_rows * sizeof *rt_p->rlo);\n"
                         "        rt_p->rhi = rt_malloc((size_t)rt_rows * sizeof *rt_p->rhi);\n");
        piece_layout_rows(o, k, &pc, names);
        strbuf_printf(b, "    }\n");
    }
    strbuf_printf(b, "    %s_n = rt_n;\n}\n", X);
    strbuf_printf(b, "static void %s_free_pieces(void)\n{\n    for (int k = 0; k < %d; k++) {\n"
                     "        free(%s_pc[k].base);\n        free(%s_pc[k].rlo);\n        free(%s_pc[k].rhi);\n    }\n}\n",
                  X, o->np, X, X, X);
}

/* X_outside (a verified program never gets there); X_find, the element's index in the first piece
 * that holds it (-1: none); the index function X_at, which stops the program where X_find finds
 * none; and X_cell, X_at computed before a loop that may not run (an element whose subscripts do
 * not change in the loop, export_rows.c): 0 where no piece holds it, no error, as X_rowbase. */
static void piece_index(ex_piece_out *o)
{
    strbuf *b = o->b;
    const char *X = o->X;
    int nd = o->nd;
    strbuf args = {0}, decls = {0};
    for (int d = 0; d < nd; d++) {
        strbuf_printf(&args, "%si%d", d ? ", " : "", d);
        strbuf_printf(&decls, ", int64_t i%d", d);
    }
    strbuf_printf(b, "static _Noreturn void %s_outside(%s)\n{\n    rt_die(\"%s", X, decls.s + 2, o->a->decl->u.array.name);
    for (int d = 0; d < nd; d++) strbuf_printf(b, "[%%lld]");
    strbuf_printf(b, " lies outside this processor's pieces\"");
    for (int d = 0; d < nd; d++) strbuf_printf(b, ", (long long)i%d", d);
    strbuf_printf(b, ");\n}\n");
    strbuf_printf(b, "static inline int64_t %s_find(%s)\n{\n"
                     "    for (int k = 0; k < %d; k++) {\n        const rt_piece *pc = &%s_pc[k];\n", X, decls.s + 2, o->np, X);
    if (nd > 1) {
        strbuf_printf(b, "        if (");
        for (int d = 0; d < nd - 1; d++)
            strbuf_printf(b, "%si%d < pc->lo[%d] || i%d > pc->hi[%d]", d ? " || " : "", d, d, d, d);
        strbuf_printf(b, ") continue;\n");
    }
    strbuf_printf(b, "        const int64_t r = %s_row(k", X);
    for (int d = 0; d < nd - 1; d++) strbuf_printf(b, ", i%d", d);
    strbuf_printf(b, ");\n        if (rt_piece_held(pc, r, i%d)) return rt_piece_idx(pc, r, i%d);\n    }\n"
                     "    return -1;\n}\n", nd - 1, nd - 1);
    strbuf_printf(b, "static inline int64_t %s_at(int64_t rt_proc%s)\n{\n"
                     "    (void)rt_proc;   /* this rank's processor: %s_layout set its pieces up */\n"
                     "    const int64_t o = %s_find(%s);\n    if (o < 0) %s_outside(%s);\n    return o;\n}\n",
                  X, decls.s, X, X, args.s, X, args.s);
    strbuf_printf(b, "//@def %s_cell\nstatic inline int64_t %s_cell(int64_t rt_proc%s)\n{\n"
                     "    (void)rt_proc;\n    return imax(%s_find(%s), 0);\n}\n//@end\n", X, X, decls.s, X, args.s);
    strbuf_free(&args);
    strbuf_free(&decls);
}

int ex_piece_rows_linear(const ex_array *a)
{
    return a->dist && !ir_dist_searched(a->dist, a->decl->u.array.ndims);
}

/* One piece, its last range every index: X_rowbase, where the row of i0 .. starts as if its
 * last index began at 0 (base - rlo), so that X_at(.., j) = X_rowbase(..) + j.  Computed before
 * a loop that may not run (or not touch the row), so a row the piece does not have gives 0, no
 * error: a verified program reads only elements the piece holds. */
static void piece_rowbase(ex_piece_out *o)
{
    strbuf *b = o->b;
    const char *X = o->X;
    int nd = o->nd;
    if (!ex_piece_rows_linear(o->a)) return;
    strbuf_printf(b, "static inline int64_t %s_rowbase(int64_t rt_proc", X);
    for (int d = 0; d < nd - 1; d++) strbuf_printf(b, ", int64_t i%d", d);
    strbuf_printf(b, ")\n{\n    (void)rt_proc;\n    const rt_piece *pc = &%s_pc[0];\n    if (", X);
    for (int d = 0; d < nd - 1; d++)
        strbuf_printf(b, "%si%d < pc->lo[%d] || i%d > pc->hi[%d]", d ? " || " : "", d, d, d, d);
    strbuf_printf(b, ") return 0;\n    const int64_t r = %s_row(0", X);
    for (int d = 0; d < nd - 1; d++) strbuf_printf(b, ", i%d", d);
    strbuf_printf(b, ");\n    return pc->base[r] - pc->rlo[r];\n}\n");
}

/* Global indices for messages: X_gidx (row-major over the declared bounds) and X_at_gidx. */
static void piece_gidx(ex_piece_out *o)
{
    strbuf *b = o->b;
    const ex_array *a = o->a;
    const char *X = o->X;
    int nd = o->nd;
    strbuf glo[8], gext[8];
    for (int d = 0; d < nd; d++) {
        strbuf pre = {0}, hi = {0};
        memset(&glo[d], 0, sizeof glo[d]);
        memset(&gext[d], 0, sizeof gext[d]);
        ex_expr(&o->m, &glo[d], &pre, 4, a->decl->u.array.lo[d]);
        ex_expr(&o->m, &hi, &pre, 4, a->decl->u.array.hi[d]);
        strbuf_printf(&gext[d], "(%s - %s + 1)", hi.s, glo[d].s);
        strbuf_free(&pre);
        strbuf_free(&hi);
    }
    strbuf_printf(b, "static inline int64_t %s_gidx(", X);
    for (int d = 0; d < nd; d++) strbuf_printf(b, "%sint64_t i%d", d ? ", " : "", d);
    strbuf_printf(b, ")\n{\n    int64_t g = 0;\n");
    for (int d = 0; d < nd; d++) strbuf_printf(b, "    g = g * %s + (i%d - %s);\n", gext[d].s, d, glo[d].s);
    strbuf_printf(b, "    return g;\n}\n");
    strbuf_printf(b, "static inline int64_t %s_at_gidx(int64_t rt_proc, int64_t g)\n{\n", X);
    for (int d = nd - 1; d >= 0; d--)
        strbuf_printf(b, "    const int64_t i%d = %s + g %% %s;\n    g /= %s;\n", d, glo[d].s, gext[d].s, gext[d].s);
    strbuf_printf(b, "    return %s_at(rt_proc", X);
    for (int d = 0; d < nd; d++) strbuf_printf(b, ", i%d", d);
    strbuf_printf(b, ");\n}\n\n");
    for (int d = 0; d < nd; d++) { strbuf_free(&glo[d]); strbuf_free(&gext[d]); }
}

void ex_piece_decl(const ex_plan *pl, strbuf *b, strbuf *fills, const ex_array *a)
{
    ex_piece_out o;
    memset(&o, 0, sizeof o);
    o.a = a;
    o.b = b;
    o.m = (ex_em){.pl = pl, .mode = EX_SEQ, .tmp = &o.tmp};
    o.nd = a->decl->u.array.ndims;
    o.np = 1 + a->dist->u.dist.nmore;
    o.X = a->cname;
    ex_cname(o.pv, sizeof o.pv, a->dist->u.dist.procvar);
    piece_storage(&o);
    piece_layout(&o);
    strbuf_printf(fills, "    %s_layout(me);\n", o.X);
    strbuf_printf(b, "static inline int64_t %s_size(int64_t rt_proc) { (void)rt_proc; return %s_n; }\n", o.X, o.X);
    piece_index(&o);
    piece_rowbase(&o);
    piece_gidx(&o);
}

void ex_piece_lim(strbuf *lim, const ex_array *a, int d, const char *lo, const char *hi, char names[][64])
{
    int nd = a->decl->u.array.ndims;
    if (d < nd - 1) {
        strbuf_printf(lim, "imax(%s, %s_pc[rt_pc].lo[%d]), imin(%s, %s_pc[rt_pc].hi[%d])", lo, a->cname, d, hi, a->cname, d);
        return;
    }
    strbuf r = {0};
    ex_piece_row(&r, a, "rt_pc", names);
    strbuf_printf(lim, "imax(%s, %s_pc[rt_pc].rlo[%s]), imin(%s, %s_pc[rt_pc].rhi[%s])", lo, a->cname, r.s, hi, a->cname, r.s);
    strbuf_free(&r);
}

void ex_piece_at(strbuf *b, const ex_array *a, char names[][64])
{
    int nd = a->decl->u.array.ndims;
    strbuf_printf(b, "rt_piece_idx(&%s_pc[rt_pc], ", a->cname);
    ex_piece_row(b, a, "rt_pc", names);
    strbuf_printf(b, ", %s)", names[nd - 1]);
}

void ex_piece_held(strbuf *b, const ex_array *a, const char *j, char names[][64])
{
    strbuf_printf(b, "rt_piece_held(&%s_pc[rt_pc], ", a->cname);
    ex_piece_row(b, a, "rt_pc", names);
    strbuf_printf(b, ", %s)", j);
}

void ex_piece_gidx(const ex_em *m, strbuf *b, strbuf *pre, int in, const ex_array *a, ir_expr *const *idx)
{
    strbuf_printf(b, "%s_gidx(", a->cname);
    for (int d = 0; d < a->decl->u.array.ndims; d++) {
        if (d) strbuf_printf(b, ", ");
        ex_expr(m, b, pre, in, idx[d]);
    }
    strbuf_printf(b, ")");
}
