/*
 * fuse_tuple.c — reduction fusion (REFERENCE §3): k adjacent reductions over the same
 * processors (all `reduce` to the same root, or all `allreduce`) with elementwise operators and
 * blocks of one size become one reduction whose operator's state is the tuple of their states
 * and whose combine is the tuple of their combines (NAS MG ZRAN3: 40 reductions -> 1).
 *
 *   a1 = reduce(max) x1 to 0; a2 = reduce(+) x2 to 0
 *     ->  op fuse_tuple { state (f1 int, f2 int); combine (l1, l2) (r1, r2) = (max(l1, r1), l2 + r2) }
 *         (a1, a2) = reduce(fuse_tuple) (x1, x2) to 0
 *
 * No reduction of the run may read what an earlier one writes, and no two write one array.
 * Saving under hockney: (k - 1)·log p·t_s (the words and operations stay).
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

/* The run starting at statement i: its length (1 when nothing joins). */
static int run_at(const fz_site *s, int i)
{
    const ir_stmt *c0 = fz_coll(s, i);
    if (!is_red(c0) || c0->u.coll.by) return 0;
    if (c0->u.coll.op.user >= 0 && s->q->ops[c0->u.coll.op.user]->u.op.in) return 0;
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
    *why = xf_asprintf("no two adjacent reductions %s%sover the same processors (same kind and root, "
                       "elementwise operators, blocks of one size, none reading what another writes)",
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
    char *name = fz_fresh_name(&s, "fuse_tuple", NULL);
    xf_buf st = {0}, lp = {0}, rp = {0}, vals = {0}, dsts = {0}, srcs = {0};
    int nf = 0, comm = 1;
    for (int k = first; k < first + n; k++) {
        const ir_stmt *c = fz_coll(&s, k);
        const ir_opref *op = &c->u.coll.op;
        int ar = fz_op_arity(&s, op);
        const ir_decl *arr = fz_block_array(&s, c->u.coll.src[0]);
        char *left[MAXF], *right[MAXF], *v[MAXF];
        for (int f = 0; f < ar; f++) {
            ir_type t = fz_op_field_type(&s, op, f, arr ? arr->u.array.elem : IR_INT);
            left[f] = xf_asprintf("l%d", nf + f + 1);
            right[f] = xf_asprintf("r%d", nf + f + 1);
            xf_buf_printf(&st, "%sf%d %s", nf + f ? ", " : "", nf + f + 1, fz_type_name(t));
            xf_buf_printf(&lp, "%s%s", nf + f ? ", " : "", left[f]);
            xf_buf_printf(&rp, "%s%s", nf + f ? ", " : "", right[f]);
        }
        fz_op_combine_fields(&s, op, (const char *const *)left, (const char *const *)right, v, MAXF);
        for (int f = 0; f < ar; f++) {
            xf_buf_printf(&vals, "%s%s", nf + f ? ", " : "", v[f]);
            free(v[f]); free(left[f]); free(right[f]);
        }
        for (int f = 0; f < c->u.coll.ndst; f++) {
            char *t = fz_coll_block_text(c, 1, f);
            xf_buf_printf(&dsts, "%s%s", nf + f ? ", " : "", t);
            free(t);
        }
        for (int f = 0; f < c->u.coll.nsrc; f++) {
            char *t = fz_coll_block_text(c, 0, f);
            xf_buf_printf(&srcs, "%s%s", nf + f ? ", " : "", t);
            free(t);
        }
        if (op_commutative(s.q, op) != 1) comm = 0;
        nf += ar;
    }
    const ir_stmt *c0 = fz_coll(&s, first), *cl = fz_coll(&s, first + n - 1);
    xf_buf decls = {0}, repl = {0};
    xf_buf_printf(&decls, "op %s {\n  state (%s)\n  combine (%s) (%s) = (%s)\n  %s\n}\n", name, st.s, lp.s, rp.s,
                  vals.s, comm ? "commutative" : "noncommutative");
    if (c0->u.coll.label) xf_buf_printf(&repl, "%s: ", c0->u.coll.label);
    xf_buf_printf(&repl, "(%s) = %s(%s) (%s)", dsts.s, ir_coll_name(c0->u.coll.ck), name, srcs.s);
    if (c0->u.coll.root) {
        char *r = ir_print_expr(c0->u.coll.root);
        xf_buf_printf(&repl, " to %s", r);
        free(r);
    }
    out = fz_finish(&s, "fuse-reductions", c0->pos.line, cl->pos.line, repl.s, decls.s, d);
    xf_buf_free(&st); xf_buf_free(&lp); xf_buf_free(&rp); xf_buf_free(&vals); xf_buf_free(&dsts);
    xf_buf_free(&srcs); xf_buf_free(&decls); xf_buf_free(&repl);
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
        int64_t m = fz_coll_block_elems(&s, fz_coll(&s, first), 0, 0);
        double L = s.nprocs > 1 ? ceil(log2((double)s.nprocs)) : 0, words = 0, ops = 0;
        for (int k = first; k < first + n; k++) {
            const ir_opref *op = &fz_coll(&s, k)->u.coll.op;
            words += fz_op_arity(&s, op);
            ops += op->builtin >= 0 ? op_builtin_ticks((ir_bop)op->builtin)
                                    : op_clause_ops(s.q, op->user, IR_K_COMBINE);
        }
        double rest = L * (double)m * (words * prof->tw + ops);
        fz_gain g = {n * L * prof->ts + rest, L * prof->ts + rest, "REFERENCE 3: saves (k-1) log p t_s"};
        txt = fz_gain_text(&g, prof, m, s.nprocs);
    }
    free(why);
    fz_site_close(&s);
    return txt;
}
