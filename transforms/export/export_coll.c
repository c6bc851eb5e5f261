/*
 * export_coll.c — the exporter's collectives: user-defined operators as C functions (one per
 * clause, plus the MPI_User_function of an operator MPI may apply), the built-in operators'
 * combines, and each collective statement of a processor body as a call into runtime/rt_coll.c
 * on tuples of rt_val (blocks read row-major into tuples, converted as the simulator converts,
 * and written back into the destination blocks); and the sends to a range of processors that go
 * out as one multicast record each (runtime/rt_mcast.c) instead of one record per receiver.
 *
 * Exactness: the simulator folds in rank order, the lower rank the left operand.  MPI's
 * reductions are used where their result is that fold bit for bit — built-in operators on
 * integers (MPI_SUM .. MPI_BXOR, MPI_LAND/MPI_LOR for and/or), max/min on doubles, associative
 * user operators whose state fields are all integers (MPI_Op_create with the operator's commute
 * flag; MPI computes inoutvec = invec (+) inoutvec with invec from the lower ranks, so the MPI
 * function calls combine(invec, inoutvec)).  Everything else (+ and * on doubles, operators with
 * double fields) is gathered and folded in the simulator's order (rt_coll_reduce), because MPI
 * may bracket a reduction differently, which changes floating-point results.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_int.h"
#include "op.h"


static const char *cn(const char *id, char *tmp)
{
    ex_cname(tmp, 64, id);
    return tmp;
}

/* ---- built-in operators --------------------------------------------------------------------- */

typedef struct ex_bop {
    const char *name;          /* C suffix */
    const char *mpi_i, *mpi_d; /* the MPI built-in exact on int64 / double, or NULL */
    const char *c_i, *c_d;     /* the simulator's op_builtin_apply_* on a, b */
} ex_bop;

static const ex_bop ex_bops[IR_BOP_COUNT] = {
    [IR_BOP_ADD] = {"add", "MPI_SUM", NULL, "(int64_t)((uint64_t)a->i + (uint64_t)b->i)", "a->d + b->d"},
    [IR_BOP_MUL] = {"mul", "MPI_PROD", NULL, "(int64_t)((uint64_t)a->i * (uint64_t)b->i)", "a->d * b->d"},
    [IR_BOP_MAX] = {"max", "MPI_MAX", "MPI_MAX", "b->i > a->i ? b->i : a->i", "b->d > a->d ? b->d : a->d"},
    [IR_BOP_MIN] = {"min", "MPI_MIN", "MPI_MIN", "b->i < a->i ? b->i : a->i", "b->d < a->d ? b->d : a->d"},
    [IR_BOP_AND] = {"and", "MPI_LAND", NULL, "a->i != 0 && b->i != 0", "a->d != 0 && b->d != 0"},
    [IR_BOP_OR] = {"or", "MPI_LOR", NULL, "a->i != 0 || b->i != 0", "a->d != 0 || b->d != 0"},
    [IR_BOP_BAND] = {"band", "MPI_BAND", NULL, "a->i & b->i", "0"},
    [IR_BOP_BOR] = {"bor", "MPI_BOR", NULL, "a->i | b->i", "0"},
    [IR_BOP_BXOR] = {"bxor", "MPI_BXOR", NULL, "a->i ^ b->i", "0"},
};

/* A user operator MPI may reduce with: associative, every state field an integer. */
static int ex_op_exact(const ir_decl *od)
{
    if (!od->u.op.associative || !od->u.op.clause[IR_K_COMBINE] || !od->u.op.state) return 0;
    for (int i = 0; i < od->u.op.state->nfields; i++)
        if (od->u.op.state->fields[i].type != IR_INT) return 0;
    return 1;
}

/* ---- user operators ------------------------------------------------------------------------- */

static const char *const ex_clause_names[IR_K_COUNT] = {
    [IR_K_IDENT] = "ident", [IR_K_PREACCUM] = "preaccum", [IR_K_ACCUM] = "accum", [IR_K_POSTACCUM] = "postaccum",
    [IR_K_COMBINE] = "combine", [IR_K_GEN] = "gen", [IR_K_SCANGEN] = "scangen", [IR_K_ONE] = "one",
    [IR_K_LOWER] = "lower", [IR_K_UPPER] = "upper", [IR_K_EVEN] = "even", [IR_K_ODD] = "odd",
};

static const ir_opitem *ex_pattern_tuple(const ir_decl *od, ir_clause_kind k, int which)
{
    if (which == 0) return od->u.op.state;
    switch (k) {
    case IR_K_PREACCUM: case IR_K_ACCUM: case IR_K_POSTACCUM: case IR_K_SCANGEN: return od->u.op.in;
    default: return od->u.op.state;
    }
}

static void ex_clause_fn(const ex_plan *pl, strbuf *b, const ir_decl *od, ir_clause_kind k)
{
    const ir_opitem *it = od->u.op.clause[k];
    char t[64], on[64];
    cn(od->u.op.name, on);
    int tmp = 0;
    ex_em m = {.pl = pl, .mode = EX_SEQ, .tmp = &tmp};
    strbuf_printf(b, "static inline void op_%s_%s(const rt_val *rt_a, const rt_val *rt_b, rt_val *rt_o)\n{\n"
                     "    (void)rt_a;\n    (void)rt_b;\n", on, ex_clause_names[k]);
    for (int p = 0; p < it->npats; p++) {
        const ir_opitem *tu = ex_pattern_tuple(od, k, p);
        for (int i = 0; i < it->pats[p].n && tu && i < tu->nfields; i++) {
            int d = tu->fields[i].type == IR_DOUBLE;
            cn(it->pats[p].names[i], t);
            strbuf_printf(b, "    const %s %s = rt_%c[%d].%c;\n    (void)%s;\n", d ? "double" : "int64_t", t, p ? 'b' : 'a', i,
                          d ? 'd' : 'i', t);
        }
    }
    for (int i = 0; i < it->nlets; i++) {
        strbuf v = {0}, pre = {0};
        ex_expr(&m, &v, &pre, 4, it->letv[i]);
        if (pre.s) strbuf_printf(b, "%s", pre.s);
        cn(it->lets[i], t);
        strbuf_printf(b, "    const %s %s = %s;\n    (void)%s;\n", it->letv[i]->type == IR_DOUBLE ? "double" : "int64_t", t,
                      v.s, t);
        strbuf_free(&v);
        strbuf_free(&pre);
    }
    int stateful = k != IR_K_GEN && k != IR_K_SCANGEN;
    for (int i = 0; i < it->nval; i++) {
        ir_type ty = stateful && od->u.op.state && i < od->u.op.state->nfields ? od->u.op.state->fields[i].type
                                                                                 : it->val[i]->type;
        strbuf v = {0}, pre = {0};
        ex_expr(&m, &v, &pre, 4, it->val[i]);
        if (pre.s) strbuf_printf(b, "%s", pre.s);
        strbuf_printf(b, ex_is_operand(v.s) ? "    rt_o[%d].%c = (%s)%s;\n" : "    rt_o[%d].%c = (%s)(%s);\n", i,
                      ty == IR_DOUBLE ? 'd' : 'i', ty == IR_DOUBLE ? "double" : "int64_t", v.s);
        strbuf_free(&v);
        strbuf_free(&pre);
    }
    strbuf_printf(b, "}\n");
}

void ex_emit_ops(const ex_plan *pl, strbuf *b)
{
    const ir_program *p = pl->p;
    if (!pl->mpi) return;
    if (ex_block_holds(p->body, IR_S_COLL)) {
        strbuf_printf(b, "/* The built-in operators of collectives, as the simulator applies them (a the lower rank). */\n");
        for (int k = 0; k < IR_BOP_COUNT; k++) {
            /* (each a definition the tidy pass drops when no collective names it) */
            const char *n = ex_bops[k].name;
            strbuf_printf(b, "//@def rt_bop_%s_i\nstatic inline void rt_bop_%s_i(const rt_val *a, const rt_val *b, rt_val *o)\n"
                             "{\n    o->i = %s;\n}\n//@end\n", n, n, ex_bops[k].c_i);
            int unused = !strcmp(ex_bops[k].c_d, "0");   /* no bitwise operation on doubles */
            strbuf_printf(b, "//@def rt_bop_%s_d\nstatic inline void rt_bop_%s_d(const rt_val *a, const rt_val *b, rt_val *o)\n"
                             "{\n%s    o->d = %s;\n}\n//@end\n", n, n, unused ? "    (void)a;\n    (void)b;\n" : "",
                          ex_bops[k].c_d);
        }
        strbuf_printf(b, "\n");
    }
    for (int u = 0; u < p->nops; u++) {
        const ir_decl *od = p->ops[u];
        char on[64];
        cn(od->u.op.name, on);
        int ns = od->u.op.state ? od->u.op.state->nfields : 0;
        strbuf_printf(b, "/* operator %s (%s, %d state field%s): its clauses */\n", od->u.op.name,
                      od->u.op.commutative ? "commutative" : "noncommutative", ns, ns == 1 ? "" : "s");
        for (int k = 0; k < IR_K_COUNT; k++)
            if (od->u.op.clause[k]) ex_clause_fn(pl, b, od, (ir_clause_kind)k);
        if (od->u.op.clause[IR_K_EVEN] && od->u.op.clause[IR_K_ODD])
            strbuf_printf(b, "/* repeat(%s, k, ..): even on a 0 bit, odd on a 1 bit of k, lowest bit first */\n"
                             "static inline rt_val op_%s_repeat(int64_t k, rt_val *st)\n{\n    rt_val t[%d];\n"
                             "    for (; k > 0; k /= 2) {\n        if (k %% 2 == 0) op_%s_even(st, NULL, t);\n"
                             "        else op_%s_odd(st, NULL, t);\n        memcpy(st, t, sizeof t);\n    }\n    return st[0];\n}\n",
                          od->u.op.name, on, ns, on, on);
        if (ex_op_exact(od) && ex_block_holds(p->body, IR_S_COLL)) {
            strbuf_printf(b, "/* MPI applies inoutvec = invec (+) inoutvec, invec from the lower ranks */\n"
                             "static MPI_Op op_%s_mpiop;\nstatic MPI_Datatype op_%s_type;   /* one state: %d int64 fields */\n"
                             "static void op_%s_mpi(void *in, void *inout, int *len, MPI_Datatype *type)\n{\n    (void)type;\n"
                             "    const rt_val *a = in;\n    rt_val *b = inout, o[%d];\n"
                             "    for (int i = 0; i < *len; i++) {\n        op_%s_combine(a + (size_t)i * %d, b + (size_t)i * %d, o);\n"
                             "        memcpy(b + (size_t)i * %d, o, sizeof o);\n    }\n}\n",
                          on, on, ns, on, ns, on, ns, ns, ns);
        }
        strbuf_printf(b, "\n");
    }
}

void ex_emit_ops_setup(const ex_plan *pl, strbuf *b, int free_them)
{
    const ir_program *p = pl->p;
    if (!pl->mpi || !ex_block_holds(p->body, IR_S_COLL)) return;
    for (int u = 0; u < p->nops; u++) {
        const ir_decl *od = p->ops[u];
        if (!ex_op_exact(od)) continue;
        char on[64];
        cn(od->u.op.name, on);
        if (free_them)
            strbuf_printf(b, "    rt_op_free(&op_%s_mpiop);\n    RT_CHECK(MPI_Type_free(&op_%s_type));\n", on, on);
        else
            strbuf_printf(b, "    op_%s_mpiop = rt_op_create(op_%s_mpi, %d);\n"
                             "    RT_CHECK(MPI_Type_contiguous(%d * (int)sizeof(rt_val), MPI_BYTE, &op_%s_type));\n"
                             "    RT_CHECK(MPI_Type_commit(&op_%s_type));\n",
                          on, on, od->u.op.commutative ? 1 : 0, od->u.op.state->nfields, on, on);
    }
}

/* ---- collective statements ------------------------------------------------------------------ */

/* Start (local offset) and tuple count of a block: fixed subscripts, the range on the next
 * dimension, the rest of the dimensions whole; `who` is the processor whose memory holds it. */
static void ex_blk(const ex_em *m, strbuf *pre, const ir_expr *e, const ir_expr *lo, const ir_expr *hi, const char *who,
                   strbuf *start, strbuf *count)
{
    const ex_array *a = &m->pl->arr[e->kind == IR_E_ACCESS ? e->u.access.array_index : e->u.name.index];
    const ir_decl *ad = a->decl;
    int nd = ad->u.array.ndims, nfix = e->kind == IR_E_ACCESS ? e->u.access.nidx : 0;
    strbuf_printf(start, "%s_at(%s", a->cname, who);
    strbuf_printf(count, "(int64_t)1");
    for (int d = 0; d < nd; d++) {
        strbuf_printf(start, ", ");
        if (d < nfix) { ex_expr(m, start, pre, 8, e->u.access.idx[d]); continue; }
        strbuf l = {0}, h = {0};
        if (d == nfix && lo) {
            ex_expr(m, &l, pre, 8, lo);
            ex_expr(m, &h, pre, 8, hi);
        } else {
            ex_expr(m, &l, pre, 8, ad->u.array.lo[d]);
            ex_expr(m, &h, pre, 8, ad->u.array.hi[d]);
        }
        strbuf_printf(start, "%s", l.s);
        strbuf_printf(count, " * imax(0, %s - %s + 1)", h.s, l.s);
        strbuf_free(&l);
        strbuf_free(&h);
    }
    strbuf_printf(start, ")");
}

static const char *ex_rtkind(ir_coll_kind k)
{
    switch (k) {
    case IR_C_REDUCE: return "RT_REDUCE";
    case IR_C_ALLREDUCE: return "RT_ALLREDUCE";
    case IR_C_SCAN: return "RT_SCAN";
    default: return "RT_EXSCAN";
    }
}

/* One collective statement being exported, between its phases.  The simulator's run_group
 * (engine/sim_coll.c) executes a collective over its group_run in phases of the same names —
 * coll_root, coll_sources, coll_combine (coll_combine_global, _move, _reduce, _scan,
 * _scan_bal) and coll_destinations — so that the two can be read side by side for exactness.
 * Here, each phase writes the C that does at run time what the simulator's phase does. */
typedef struct ex_coll_run {
    const ex_em *m;
    const ex_plan *pl;
    const ir_stmt *s;
    ir_coll_kind ck;
    const ir_decl *od;               /* the user operator, or NULL */
    int bop;                         /* the built-in operator, or -1 */
    int global, scan;                /* a user operator with `in`; scan or exscan */
    int ns, nf, nfo;                 /* state fields; values per source tuple; per result tuple */
    ir_type ft[OP_MAX_FIELDS];       /* the source tuple's field types */
    char on[64];                     /* the operator's C name ("" for a built-in) */
    char *stext;                     /* the statement as comments and messages name it (owned) */
    int in, I;                       /* indentation of the statement; of the group's block */
    int only_root_reads, only_root_gets;
    strbuf pre, body;                /* statements the expressions need first; the statement */
    strbuf root;                     /* the root's C expression (empty without a root) */
} ex_coll_run;

/* One line of the statement's body, indented `depth` columns beyond the group's block. */
static void coll_line(ex_coll_run *x, int depth, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void coll_line(ex_coll_run *x, int depth, const char *fmt, ...)
{
    va_list ap;
    ex_indent(&x->body, x->I + depth);
    va_start(ap, fmt);
    strbuf_vprintf(&x->body, fmt, ap);
    va_end(ap);
}

/* A block that only the root runs ("if (rt_me == rt_root) {"), or, for every rank, its body one
 * level out with no braces around it.  Counterpart: coll_root_close. */
static void coll_root_open(ex_coll_run *x, int only_root)
{
    if (only_root) coll_line(x, 0, "if (rt_me == rt_root) {\n");
    else x->I -= 4;
}

static void coll_root_close(ex_coll_run *x, int only_root)
{
    if (only_root) coll_line(x, 0, "}\n");
    else x->I += 4;
}

static const ex_array *coll_array(const ex_coll_run *x, const ir_expr *e)
{
    return &x->pl->arr[e->kind == IR_E_ACCESS ? e->u.access.array_index : e->u.name.index];
}

/* A source (dst 0) or destination (dst 1) block f as C: its start, its tuple count and the
 * statements they need first (the caller frees the three with coll_block_free). */
typedef struct ex_blk_text { strbuf start, count, pre; } ex_blk_text;

static void coll_block(const ex_coll_run *x, int dst, int f, const char *who, ex_blk_text *bt)
{
    const ir_stmt *s = x->s;
    const ir_expr *e = dst ? s->u.coll.dst[f] : s->u.coll.src[f];
    ir_expr **lo = dst ? s->u.coll.dst_lo : s->u.coll.src_lo, **hi = dst ? s->u.coll.dst_hi : s->u.coll.src_hi;
    memset(bt, 0, sizeof *bt);
    ex_blk(x->m, &bt->pre, e, lo ? lo[f] : NULL, hi ? hi[f] : NULL, who, &bt->start, &bt->count);
}

static void coll_block_free(ex_blk_text *bt)
{
    strbuf_free(&bt->start);
    strbuf_free(&bt->count);
    strbuf_free(&bt->pre);
}

/* The group and the root's rank in it.  Counterpart: coll_root (and the group of run_group). */
static void coll_root(ex_coll_run *x)
{
    const ir_stmt *s = x->s;
    strbuf by = {0};
    if (s->u.coll.by) ex_expr(x->m, &by, &x->pre, x->in, s->u.coll.by);
    if (s->u.coll.root) ex_expr(x->m, &x->root, &x->pre, x->in, s->u.coll.root);
    coll_line(x, -4, "MPI_Comm rt_g = rt_coll_group(MPI_COMM_WORLD, %d, %s);\n", by.n ? 1 : 0, by.n ? by.s : "0");
    coll_line(x, -4, "if (rt_g != MPI_COMM_NULL) {\n");
    if (s->u.coll.root)
        coll_line(x, 0, "const int rt_root = rt_coll_root(rt_g, (%s) - %" PRId64 ", MPI_COMM_WORLD);\n", x->root.s,
                  x->pl->plo);
    else
        coll_line(x, 0, "const int rt_root = 0;\n");
    coll_line(x, 0, "const int rt_me = rt_rank(rt_g);\n");
    coll_line(x, 0, "(void)rt_root;\n");
    coll_line(x, 0, "(void)rt_me;\n");
    strbuf_free(&by);
}

/* Source block f read into field f of the tuples rt_in (the first one sizes them). */
static void coll_source_block(ex_coll_run *x, int f)
{
    const ex_array *a = coll_array(x, x->s->u.coll.src[f]);
    ex_blk_text bt;
    coll_block(x, 0, f, "me", &bt);
    if (bt.pre.s) strbuf_printf(&x->body, "%s", bt.pre.s);
    coll_line(x, 4, "const int64_t rt_s%d = %s, rt_c%d = %s;\n", f, bt.start.s, f, bt.count.s);
    if (f == 0) {
        coll_line(x, 4, "rt_n = rt_c0;\n");
        coll_line(x, 4, "rt_in = rt_malloc((size_t)(rt_n ? rt_n : 1) * %d * sizeof *rt_in);\n", x->nf);
    } else {
        coll_line(x, 4, "if (rt_c%d != rt_n) rt_die(\"%s: source blocks of %%lld and %%lld elements\", "
                        "(long long)rt_n, (long long)rt_c%d);\n", f, x->stext, f);
    }
    int ad = a->decl->u.array.elem == IR_DOUBLE, fd = x->ft[f] == IR_DOUBLE;
    coll_line(x, 4, "for (int64_t rt_j = 0; rt_j < rt_n; rt_j++) rt_in[rt_j * %d + %d].%c = %s%s[rt_s%d + rt_j];\n",
              x->nf, f, fd ? 'd' : 'i', ad == fd ? "" : fd ? "(double)" : "(int64_t)", a->cname, f);
    coll_block_free(&bt);
}

/* Every rank's source blocks read into rt_in (bcast and scatter: the root's only); multicast:
 * the size and start of this rank's block in the root's memory.  Counterpart: coll_sources. */
static void coll_sources(ex_coll_run *x)
{
    coll_line(x, 0, "int64_t rt_n = 0;\n");
    coll_line(x, 0, "rt_val *rt_in = NULL;\n");
    if (x->ck == IR_C_MULTICAST) {
        ex_blk_text bt;
        coll_block(x, 0, 0, x->root.s, &bt);
        if (bt.pre.s) strbuf_printf(&x->body, "%s", bt.pre.s);
        coll_line(x, 0, "const int64_t rt_s0 = %s;   /* this processor's block, in the root's memory */\n", bt.start.s);
        coll_line(x, 0, "rt_n = %s;\n", bt.count.s);
        coll_block_free(&bt);
        return;
    }
    coll_root_open(x, x->only_root_reads);
    for (int f = 0; f < x->s->u.coll.nsrc; f++) coll_source_block(x, f);
    coll_root_close(x, x->only_root_reads);
}

/* The operator as an rt_opdesc rt_op with its identity rt_id.  Counterpart: the combiner that
 * run_group sets up (op.c's clauses; the built-ins' op_builtin_*). */
static void coll_operator(ex_coll_run *x)
{
    const ir_decl *od = x->od;
    if (!x->s->u.coll.op.name) return;
    if (od) {
        coll_line(x, 0, "rt_val rt_id[%d];\n", x->ns);
        if (od->u.op.clause[IR_K_IDENT]) coll_line(x, 0, "op_%s_ident(NULL, NULL, rt_id);\n", x->on);
        else coll_line(x, 0, "memset(rt_id, 0, sizeof rt_id);\n");
        int ex = ex_op_exact(od);
        char fnb[4][96];
        static const ir_clause_kind cls[4] = {IR_K_COMBINE, IR_K_ONE, IR_K_LOWER, IR_K_UPPER};
        for (int i = 0; i < 4; i++) {
            if (od->u.op.clause[cls[i]]) snprintf(fnb[i], sizeof fnb[i], "op_%s_%s", x->on, ex_clause_names[cls[i]]);
            else snprintf(fnb[i], sizeof fnb[i], "NULL");
        }
        coll_line(x, 0, "const rt_opdesc rt_op = {%d, %s, %s, %s, %s, rt_id, %s%s%s, %s%s%s};\n", x->ns, fnb[0], fnb[1],
                  fnb[2], fnb[3], ex ? "op_" : "MPI_OP_NULL", ex ? x->on : "", ex ? "_mpiop" : "",
                  ex ? "op_" : "MPI_DATATYPE_NULL", ex ? x->on : "", ex ? "_type" : "");
        return;
    }
    int dbl = x->ft[0] == IR_DOUBLE;
    const ex_bop *bo = &ex_bops[x->bop];
    const char *mpi = dbl ? bo->mpi_d : bo->mpi_i;
    coll_line(x, 0, "rt_val rt_id[1];\n");
    if (dbl) {
        double v = op_builtin_ident_d((ir_bop)x->bop);
        coll_line(x, 0, "rt_id[0].d = %s;\n", v == 1 ? "1.0" : v == 0 ? "0.0" : v > 0 ? "INFINITY" : "-INFINITY");
    } else {
        int64_t v = op_builtin_ident_i((ir_bop)x->bop);
        coll_line(x, 0, "rt_id[0].i = %s;\n", v == INT64_MIN ? "INT64_MIN" : v == INT64_MAX ? "INT64_MAX"
                  : v == 1 ? "1" : v == -1 ? "-1" : "0");
    }
    coll_line(x, 0, "const rt_opdesc rt_op = {1, rt_bop_%s_%c, NULL, NULL, NULL, rt_id, %s, %s};\n", bo->name,
              dbl ? 'd' : 'i', mpi ? mpi : "MPI_OP_NULL", dbl ? "MPI_DOUBLE" : "MPI_INT64_T");
}

/* The receivers' destination size rt_m and the result tuples rt_out.  Counterpart: the result
 * buffers each coll_combine_* allocates. */
static void coll_result_buffer(ex_coll_run *x)
{
    const ir_stmt *s = x->s;
    int d0 = -1;
    for (int f = 0; f < s->u.coll.ndst && d0 < 0; f++) if (s->u.coll.dst[f]) d0 = f;
    if (d0 < 0 || x->only_root_gets) coll_line(x, 0, "int64_t rt_m = 0;\n");
    if (d0 >= 0) {
        ex_blk_text bt;
        coll_block(x, 1, d0, "me", &bt);
        coll_root_open(x, x->only_root_gets);
        if (bt.pre.s) strbuf_printf(&x->body, "%s", bt.pre.s);
        coll_line(x, 4, "%srt_m = %s;\n", x->only_root_gets ? "" : "const int64_t ", bt.count.s);
        coll_root_close(x, x->only_root_gets);
        coll_block_free(&bt);
    }
    coll_line(x, 0, "rt_val *rt_out = rt_malloc((size_t)((rt_m > rt_n ? rt_m : rt_n) + 1) * %d * sizeof *rt_out);\n",
              x->nfo);
}

/* This rank's block accumulated into its state rt_st.  Counterpart: coll_accumulate. */
static void coll_accumulate(ex_coll_run *x)
{
    const ir_decl *od = x->od;
    coll_line(x, 0, "rt_val rt_st[%d], rt_t[%d];   /* this processor's block accumulated */\n", x->ns, x->ns);
    coll_line(x, 0, "memcpy(rt_st, rt_id, sizeof rt_st);\n");
    coll_line(x, 0, "for (int64_t rt_j = 0; rt_j < rt_n; rt_j++) {\n");
    coll_line(x, 4, "const rt_val *rt_x = &rt_in[rt_j * %d];\n", x->nf);
    if (od->u.op.clause[IR_K_PREACCUM])
        coll_line(x, 4, "if (rt_j == 0) { op_%s_preaccum(rt_st, rt_x, rt_t); memcpy(rt_st, rt_t, sizeof rt_t); }\n", x->on);
    coll_line(x, 4, "op_%s_accum(rt_st, rt_x, rt_t);\n", x->on);
    coll_line(x, 4, "memcpy(rt_st, rt_t, sizeof rt_t);\n");
    if (od->u.op.clause[IR_K_POSTACCUM])
        coll_line(x, 4, "if (rt_j == rt_n - 1) { op_%s_postaccum(rt_st, rt_x, rt_t); memcpy(rt_st, rt_t, sizeof rt_t); }\n",
                  x->on);
    coll_line(x, 0, "}\n");
}

/* A global-view reduction: the states combined in rank order, then gen.  Counterpart:
 * coll_combine_global_reduce. */
static void coll_combine_global_reduce(ex_coll_run *x)
{
    const ir_opitem *gen = x->od->u.op.clause[IR_K_GEN];
    coll_line(x, 0, "rt_val rt_tot[%d];\n", x->ns);
    coll_line(x, 0, "rt_coll_reduce(%s, rt_st, rt_tot, 1, &rt_op, rt_root, rt_g);\n",
              x->ck == IR_C_REDUCE ? "RT_REDUCE" : "RT_ALLREDUCE");
    coll_line(x, 0, "%sop_%s_gen(rt_tot, NULL, rt_out);\n", x->only_root_gets ? "if (rt_me == rt_root) " : "", x->on);
    coll_line(x, 0, "const int64_t rt_r = %d;   /* gen's values */\n", gen ? gen->nval : 0);
}

/* A global-view scan: this rank's block scanned from the combined states of the ranks before.
 * Counterpart: coll_combine_global_scan. */
static void coll_combine_global_scan(ex_coll_run *x)
{
    const ir_decl *od = x->od;
    coll_line(x, 0, "rt_val rt_pre[%d];   /* the lower processors' states, folded from ident */\n", x->ns);
    coll_line(x, 0, "rt_coll_reduce(RT_EXSCAN_IDENT, rt_st, rt_pre, 1, &rt_op, 0, rt_g);\n");
    coll_line(x, 0, "for (int64_t rt_j = 0; rt_j < rt_n; rt_j++) {\n");
    coll_line(x, 4, "const rt_val *rt_x = &rt_in[rt_j * %d];\n", x->nf);
    if (x->ck == IR_C_EXSCAN) coll_line(x, 4, "op_%s_scangen(rt_pre, rt_x, &rt_out[rt_j]);\n", x->on);
    if (od->u.op.clause[IR_K_PREACCUM])
        coll_line(x, 4, "if (rt_j == 0) { op_%s_preaccum(rt_pre, rt_x, rt_t); memcpy(rt_pre, rt_t, sizeof rt_t); }\n", x->on);
    coll_line(x, 4, "op_%s_accum(rt_pre, rt_x, rt_t);\n", x->on);
    coll_line(x, 4, "memcpy(rt_pre, rt_t, sizeof rt_t);\n");
    if (x->ck == IR_C_SCAN) coll_line(x, 4, "op_%s_scangen(rt_pre, rt_x, &rt_out[rt_j]);\n", x->on);
    coll_line(x, 0, "}\n");
    coll_line(x, 0, "const int64_t rt_r = rt_n;\n");
}

/* A user operator with `in`: this rank's block accumulated into its state, the states combined.
 * Counterpart: coll_combine_global. */
static void coll_combine_global(ex_coll_run *x)
{
    coll_accumulate(x);
    if (x->scan) coll_combine_global_scan(x);
    else coll_combine_global_reduce(x);
}

/* The distribution collectives: blocks move, nothing is combined.  Counterpart: coll_combine_move. */
static void coll_combine_move(ex_coll_run *x)
{
    int nf = x->nf;
    switch (x->ck) {
    case IR_C_BCAST:
        coll_line(x, 0, "if (rt_me == rt_root) {\n");
        coll_line(x, 4, "if (rt_n != rt_m) rt_die(\"%s: the root's block has %%lld elements, its destination %%lld\", "
                        "(long long)rt_n, (long long)rt_m);\n", x->stext);
        coll_line(x, 4, "memcpy(rt_out, rt_in, (size_t)rt_n * %d * sizeof *rt_out);\n", nf);
        coll_line(x, 0, "}\n");
        coll_line(x, 0, "rt_coll_bcast(rt_out, rt_m, %d, rt_root, rt_g);\n", nf);
        break;
    case IR_C_MULTICAST:   /* this rank's block (rt_s0, rt_n: coll_sources) from the root's memory */
        coll_line(x, 0, "rt_val *rt_out = rt_malloc((size_t)(rt_n ? rt_n : 1) * sizeof *rt_out);\n");
        coll_line(x, 0, "rt_coll_multicast(%s, rt_n ? rt_s0 : 0, rt_n, rt_out, rt_root, rt_g);\n",
                  coll_array(x, x->s->u.coll.src[0])->cname);
        coll_line(x, 0, "const int64_t rt_m = rt_n;\n");
        break;
    case IR_C_SCATTER:
        coll_line(x, 0, "if (rt_me == rt_root && rt_n != rt_m * rt_size(rt_g))\n");
        coll_line(x, 4, "rt_die(\"%s: scatter cuts %%lld elements into blocks of %%lld\", (long long)rt_n, (long long)rt_m);\n",
                  x->stext);
        coll_line(x, 0, "rt_coll_scatter(rt_in, rt_out, rt_m, %d, rt_root, rt_g);\n", nf);
        break;
    default:   /* gather, allgather */
        coll_line(x, 0, "rt_coll_gather(rt_in, rt_n, rt_out, %d, %s, rt_g);\n", nf,
                  x->ck == IR_C_GATHER ? "rt_root" : "-1");
        break;
    }
}

/* Elementwise reductions in rank order (rt_coll_reduce: MPI only where it is exact) or over a
 * balanced tree.  Counterpart: coll_combine_reduce. */
static void coll_combine_reduce(ex_coll_run *x)
{
    if (x->ck == IR_C_REDUCE || x->ck == IR_C_ALLREDUCE)
        coll_line(x, 0, "rt_coll_reduce(%s, rt_in, rt_out, rt_n, &rt_op, rt_root, rt_g);\n", ex_rtkind(x->ck));
    else
        coll_line(x, 0, "rt_coll_reduce_bal(%d, rt_in, rt_out, rt_n, &rt_op, rt_root, rt_g);\n",
                  x->ck == IR_C_ALLREDUCE_BAL);
}

/* Elementwise scans in rank order.  Counterpart: coll_combine_scan. */
static void coll_combine_scan(ex_coll_run *x)
{
    coll_line(x, 0, "rt_coll_reduce(%s, rt_in, rt_out, rt_n, &rt_op, rt_root, rt_g);\n", ex_rtkind(x->ck));
}

/* The balanced scan (lower/upper over a butterfly).  Counterpart: coll_combine_scan_bal. */
static void coll_combine_scan_bal(ex_coll_run *x)
{
    coll_line(x, 0, "rt_coll_scan_bal(rt_in, rt_out, rt_n, &rt_op, rt_g);\n");
}

/* The result tuples rt_out (rt_r of them) of every receiving rank.  Counterpart: coll_combine. */
static void coll_combine(ex_coll_run *x)
{
    ir_coll_kind ck = x->ck;
    if (ck == IR_C_MULTICAST) {   /* its destination is its source's size */
        coll_combine_move(x);
        return;
    }
    coll_result_buffer(x);
    if (x->global) {
        coll_combine_global(x);
        return;
    }
    switch (ck) {
    case IR_C_BCAST: case IR_C_SCATTER: case IR_C_GATHER: case IR_C_ALLGATHER:
        coll_combine_move(x);
        break;
    case IR_C_REDUCE: case IR_C_ALLREDUCE: case IR_C_REDUCE_BAL: case IR_C_ALLREDUCE_BAL:
        coll_combine_reduce(x);
        break;
    case IR_C_SCAN: case IR_C_EXSCAN:
        coll_combine_scan(x);
        break;
    case IR_C_SCAN_BAL:
        coll_combine_scan_bal(x);
        break;
    default:
        break;
    }
    coll_line(x, 0, "const int64_t rt_r = %s;   /* result tuples */\n",
              ck == IR_C_BCAST || ck == IR_C_SCATTER || ck == IR_C_GATHER || ck == IR_C_ALLGATHER ? "rt_m" : "rt_n");
}

/* The result written into destination block f, converted as the simulator's write_block. */
static void coll_destination_block(ex_coll_run *x, int f)
{
    const ir_program *p = x->pl->p;
    const ex_array *a = coll_array(x, x->s->u.coll.dst[f]);
    ex_blk_text bt;
    coll_block(x, 1, f, "me", &bt);
    if (bt.pre.s) strbuf_printf(&x->body, "%s", bt.pre.s);
    coll_line(x, 4, "{\n");
    coll_line(x, 8, "const int64_t rt_d = %s, rt_dn = %s;\n", bt.start.s, bt.count.s);
    coll_line(x, 8, "if (rt_dn != rt_r) rt_die(\"%s: the destination block of %s has %%lld elements, the result %%lld\", "
                    "(long long)rt_dn, (long long)rt_r);\n", x->stext, a->decl->u.array.name);
    int ad = a->decl->u.array.elem == IR_DOUBLE;
    const char *ac = ad ? "(double)" : "(int64_t)";
    coll_line(x, 8, "for (int64_t rt_j = 0; rt_j < rt_dn; rt_j++) {\n");
    if (x->global && !x->scan) {
        /* gen's values may differ in type, element by element */
        const ir_opitem *gen = x->od->u.op.clause[IR_K_GEN];
        coll_line(x, 12, "static const unsigned char rt_gd[] = {");
        for (int j = 0; gen && j < gen->nval; j++) strbuf_printf(&x->body, "%s%d", j ? ", " : "", gen->val[j]->type == IR_DOUBLE);
        strbuf_printf(&x->body, "%s};\n", gen && gen->nval ? "" : "0");
        coll_line(x, 12, "%s[rt_d + rt_j] = rt_gd[rt_j] ? %srt_out[rt_j].d : %srt_out[rt_j].i;\n", a->cname, ac, ac);
    } else {
        ir_type ot = x->global ? x->od->u.op.clause[IR_K_SCANGEN]->val[0]->type : x->ft[f < x->nf ? f : 0];
        if (x->ck == IR_C_MULTICAST) {
            const ir_expr *se = x->s->u.coll.src[0];
            ot = p->arrays[se->kind == IR_E_ACCESS ? se->u.access.array_index : se->u.name.index]->u.array.elem;
        }
        coll_line(x, 12, "%s[rt_d + rt_j] = %srt_out[rt_j * %d + %d].%c;\n", a->cname, (ot == IR_DOUBLE) == ad ? "" : ac,
                  x->nfo, x->global ? 0 : f, ot == IR_DOUBLE ? 'd' : 'i');
    }
    if (x->m->marks && a->mark) coll_line(x, 12, "%s_mine[rt_d + rt_j] = rt_stamp;   /* computed here: gathered */\n", a->cname);
    coll_line(x, 8, "}\n");
    coll_line(x, 4, "}\n");
    coll_block_free(&bt);
}

/* Every receiver's result written into its destination blocks.  Counterpart: coll_destinations. */
static void coll_destinations(ex_coll_run *x)
{
    coll_root_open(x, x->only_root_gets);
    if (x->ck == IR_C_MULTICAST) coll_line(x, 4, "const int64_t rt_r = rt_m;\n");
    for (int f = 0; f < x->s->u.coll.ndst; f++)
        if (x->s->u.coll.dst[f]) coll_destination_block(x, f);
    coll_root_close(x, x->only_root_gets);
}

/* The statement's operator, field types and names.  Counterpart: sim_compile_coll. */
static void ex_coll_run_init(ex_coll_run *x, const ex_em *m, const ir_stmt *s, int in)
{
    const ir_program *p = m->pl->p;
    memset(x, 0, sizeof *x);
    x->m = m;
    x->pl = m->pl;
    x->s = s;
    x->ck = s->u.coll.ck;
    int user = s->u.coll.op.name ? s->u.coll.op.user : -1;
    x->bop = s->u.coll.op.name ? s->u.coll.op.builtin : -1;
    const ir_decl *od = x->od = user >= 0 ? p->ops[user] : NULL;
    x->global = od && od->u.op.in && od->u.op.in->nfields > 0;
    x->scan = x->ck == IR_C_SCAN || x->ck == IR_C_EXSCAN;
    x->ns = od ? od->u.op.state->nfields : 1;
    x->nf = od ? (x->global ? od->u.op.in->nfields : x->ns) : 1;
    if (!od && s->u.coll.nsrc > x->nf) x->nf = s->u.coll.nsrc;
    x->nfo = x->global ? 1 : x->nf;
    for (int f = 0; f < x->nf && f < OP_MAX_FIELDS; f++) {
        if (od) x->ft[f] = x->global ? od->u.op.in->fields[f].type : od->u.op.state->fields[f].type;
        else x->ft[f] = coll_array(x, s->u.coll.src[f < s->u.coll.nsrc ? f : 0])->decl->u.array.elem;
    }
    if (od) cn(od->u.op.name, x->on);
    x->in = in;
    x->I = in + 8;
    x->only_root_reads = x->ck == IR_C_BCAST || x->ck == IR_C_SCATTER;
    x->only_root_gets = x->ck == IR_C_GATHER || x->ck == IR_C_REDUCE || x->ck == IR_C_REDUCE_BAL;
    strbuf st = {0};
    strbuf_printf(&st, "%s%s%s%s%s", s->u.coll.label ? s->u.coll.label : "", s->u.coll.label ? ": " : "",
                  ir_coll_name(x->ck), s->u.coll.op.name ? "(" : "", s->u.coll.op.name ? s->u.coll.op.name : "");
    strbuf_printf(&st, "%s at %d:%d", s->u.coll.op.name ? ")" : "", s->pos.line, s->pos.col);
    x->stext = strbuf_take(&st);
}

void ex_coll(const ex_em *m, strbuf *b, const ir_stmt *s, int in)
{
    if (s->u.coll.ck == IR_C_TRANSPOSE) {
        ex_transpose(m, b, s, in);
        return;
    }
    ex_coll_run x;
    ex_coll_run_init(&x, m, s, in);
    coll_root(&x);
    coll_sources(&x);
    coll_operator(&x);
    coll_combine(&x);
    coll_destinations(&x);
    coll_line(&x, 0, "free(rt_in);\n");
    coll_line(&x, 0, "free(rt_out);\n");
    coll_line(&x, 0, "rt_coll_group_free(&rt_g, MPI_COMM_WORLD);\n");
    coll_line(&x, -4, "}\n");

    ex_indent(b, in);
    strbuf_printf(b, "{   /* %s */\n", x.stext);
    if (x.pre.s) strbuf_printf(b, "%s", x.pre.s);
    strbuf_printf(b, "%s", x.body.s);
    ex_indent(b, in);
    strbuf_printf(b, "}\n");
    free(x.stext);
    strbuf_free(&x.pre);
    strbuf_free(&x.body);
    strbuf_free(&x.root);
}

/* ---- one value to many processors: sends to a range as one multicast record ---------------- */

/* Whether a send goes out as one rt_mcast record for its whole range of processors (instead of
 * one exchange record per receiver): a syndm step with the records exchange, a range lo .. hi,
 * and an element every receiver names alike — the global index of a pieced array, or of an
 * array in one box (not folded) whose receivers use the sender's index (no `as`). */
int ex_send_mcast(const ex_plan *pl, const ir_stmt *s)
{
    if (!pl->mpi || pl->shared || pl->exchange != XF_EXCHANGE_ALLTOALLV || !s->u.send.to_hi) return 0;
    ir_expr *const *widx;
    int nidx, arr = ex_sent_array(s->u.send.what, &widx, &nidx);
    const ex_array *a = &pl->arr[arr];
    if (a->pieced) return 1;
    return !s->u.send.as_idx && a->fold < 0 && nidx > 0;
}

static int ex_block_mcast(const ex_plan *pl, const ir_block *b)
{
    for (int i = 0; b && i < b->n; i++) {
        const ir_stmt *s = b->stmts[i];
        switch (s->kind) {
        case IR_S_SEND: if (ex_send_mcast(pl, s)) return 1; break;
        case IR_S_FOR: if (ex_block_mcast(pl, s->u.for_.body)) return 1; break;
        case IR_S_IF:
            if (ex_block_mcast(pl, s->u.if_.then_blk) || ex_block_mcast(pl, s->u.if_.else_blk)) return 1;
            break;
        default: break;
        }
    }
    return 0;
}

/* Whether every send of the block goes out as a multicast record (none: 1). */
static int ex_block_mcast_all(const ex_plan *pl, const ir_block *b)
{
    for (int i = 0; b && i < b->n; i++) {
        const ir_stmt *s = b->stmts[i];
        switch (s->kind) {
        case IR_S_SEND: if (!ex_send_mcast(pl, s)) return 0; break;
        case IR_S_FOR: if (!ex_block_mcast_all(pl, s->u.for_.body)) return 0; break;
        case IR_S_IF:
            if (!ex_block_mcast_all(pl, s->u.if_.then_blk) || !ex_block_mcast_all(pl, s->u.if_.else_blk)) return 0;
            break;
        default: break;
        }
    }
    return 1;
}

int ex_mcast_only(const ex_plan *pl)
{
    return ex_mcast_used(pl) && ex_block_mcast_all(pl, pl->nest->u.for_.body);
}

int ex_mcast_used(const ex_plan *pl)
{
    return pl->mpi && pl->nest && pl->nest->kind == IR_S_FOR && ex_block_mcast(pl, pl->nest->u.for_.body);
}

/* The multicast object and, per array in one box, X_gidx (the global index of the element a
 * processor names i0 .., its offset added) and X_at_gidx (where a processor stores it): pieced
 * arrays have theirs (export_piece.c). */
void ex_mcast_decl(const ex_plan *pl, strbuf *b)
{
    if (!ex_mcast_used(pl)) return;
    strbuf_printf(b, "/* One record to a range of processors (a row or column many need): rt_mcast, broadcast at\n"
                     " * the end of the step; the record names the element by its global index. */\n"
                     "static rt_mcast *rt_mc;\n");
    int tmp = 0;
    ex_em m = {.pl = pl, .mode = EX_SEQ, .tmp = &tmp};
    for (int i = 0; i < pl->p->narrays; i++) {
        const ex_array *a = &pl->arr[i];
        int nd = a->decl->u.array.ndims;
        if (a->pieced || a->fold >= 0 || nd == 0 || nd > 8) continue;
        const char *X = a->cname;
        strbuf glo[8], gext[8];
        for (int d = 0; d < nd; d++) {
            strbuf pre = {0}, hi = {0};
            memset(&glo[d], 0, sizeof glo[d]);
            memset(&gext[d], 0, sizeof gext[d]);
            ex_expr(&m, &glo[d], &pre, 4, a->decl->u.array.lo[d]);
            ex_expr(&m, &hi, &pre, 4, a->decl->u.array.hi[d]);
            strbuf_printf(&gext[d], "(%s - %s + 1)", hi.s, glo[d].s);
            strbuf_free(&pre);
            strbuf_free(&hi);
        }
        strbuf_printf(b, "static inline int64_t %s_gidx(int64_t rp", X);
        for (int d = 0; d < nd; d++) strbuf_printf(b, ", int64_t i%d", d);
        strbuf_printf(b, ")\n{\n    (void)rp;\n    int64_t g = 0;\n");
        for (int d = 0; d < nd; d++)
            strbuf_printf(b, "    g = g * %s + (i%d + %s_off%d(rp) - %s);\n", gext[d].s, d, X, d, glo[d].s);
        strbuf_printf(b, "    return g;\n}\nstatic inline int64_t %s_at_gidx(int64_t rp, int64_t g)\n{\n    (void)rp;\n", X);
        for (int d = nd - 1; d >= 0; d--)
            strbuf_printf(b, "    const int64_t i%d = %s + g %% %s - %s_off%d(rp);\n    g /= %s;\n", d, glo[d].s, gext[d].s, X,
                          d, gext[d].s);
        strbuf_printf(b, "    return %s_at(rp", X);
        for (int d = 0; d < nd; d++) strbuf_printf(b, ", i%d", d);
        strbuf_printf(b, ");\n}\n");
        for (int d = 0; d < nd; d++) { strbuf_free(&glo[d]); strbuf_free(&gext[d]); }
    }
    strbuf_printf(b, "\n");
}

/* A send to a range as one multicast record (ex_send_mcast says when): cond is its `when` as C,
 * lo and hi the range, what the sender's offset of the element. */
void ex_send_mcast_emit(const ex_em *m, strbuf *b, const ir_stmt *s, int in, const char *cond, const char *lo,
                        const char *hi, const char *what)
{
    const ex_plan *pl = m->pl;
    ir_expr *const *widx;
    int nidx, arr = ex_sent_array(s->u.send.what, &widx, &nidx);
    const ex_array *a = &pl->arr[arr];
    strbuf g = {0}, pre = {0};
    if (a->pieced) {
        ex_piece_gidx(m, &g, &pre, in, a, widx);
    } else {
        strbuf_printf(&g, "%s_gidx(%s", a->cname, m->me);
        for (int d = 0; d < nidx; d++) {
            strbuf_printf(&g, ", ");
            ex_expr(m, &g, &pre, in, widx[d]);
        }
        strbuf_printf(&g, ")");
    }
    if (pre.s) strbuf_printf(b, "%s", pre.s);
    char *text = ir_print_expr(s->u.send.what);
    ex_indent(b, in);
    strbuf_printf(b, "if (%s)   /* send %s: one record for processors %s .. %s */\n", cond, text ? text : "", lo, hi);
    free(text);
    ex_indent(b, in + 4);
    strbuf_printf(b, "rt_mcast_put%s(rt_mc, (int)(%s - %" PRId64 "), (int)(%s - %" PRId64 "), %s * %d + %d, %s[%s]);\n",
                  a->decl->u.array.elem == IR_DOUBLE ? "" : "_int", lo, pl->plo, hi, pl->plo, g.s, pl->p->narrays, arr,
                  a->cname, what);
    strbuf_free(&g);
    strbuf_free(&pre);
}

/* deliver's second half: the multicast records of the step, each stored where this processor
 * keeps its global index. */
void ex_mcast_deliver(const ex_plan *pl, strbuf *b)
{
    int na = pl->p->narrays;
    strbuf_printf(b, "    rt_mcast_run(rt_mc);\n    const size_t rt_nm = rt_mcast_received(rt_mc, &rt_r);\n"
                     "    for (size_t rt_i = 0; rt_i < rt_nm; rt_i++) {\n"
                     "        const int64_t rt_g = rt_r[rt_i].index / %d;\n        switch ((int)(rt_r[rt_i].index %% %d)) {\n",
                  na, na);
    for (int i = 0; i < na; i++) {
        const ex_array *a = &pl->arr[i];
        if (!a->pieced && (a->fold >= 0 || a->decl->u.array.ndims == 0)) continue;
        const char *v = a->decl->u.array.elem == IR_DOUBLE ? "rt_r[rt_i].value" : "rt_record_int(&rt_r[rt_i])";
        strbuf_printf(b, "        case %d: %s[%s_at_gidx(me, rt_g)] = %s; break;\n", i, a->cname, a->cname, v);
    }
    strbuf_printf(b, "        default: break;\n        }\n    }\n");
}
