/*
 * isl_build.c — the polyhedral model of a program: from our AST to isl's sets and maps.
 *
 * Each leaf assignment is one polyhedral statement.  Its iteration domain comes from the loops
 * and if-conditions around it (quasi-affine: floor division and modulo are kept, as isl
 * supports them; a data-dependent condition makes the domain an over-approximation and the
 * statement's write a may-write).  Its accesses are the assignment target (the write) and every
 * array element its right-hand side reads, including those inside inner reductions: a read in
 * `sum(k = lo .. hi)` reads for every k in range, so k is existentially quantified.  Its
 * sequential schedule is the usual textual-position/loop-variable vector.
 *
 * The model is built as isl text (the parameters, the context, per statement a domain, a
 * schedule and access relations); isl parses it.  Parameters are symbolic (context: >= 1, or
 * the affine definition of a derived parameter) or fixed to their values.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "poly_int.h"

const char *xf_isl_error(__isl_keep isl_ctx *ctx)
{
    const char *m = isl_ctx_last_error_msg(ctx);
    return m ? m : "unknown isl error";
}

/* ---- names ---------------------------------------------------------------------------------- */

static const char *const isl_keywords[] = {
    "and", "or", "not", "mod", "min", "max", "floor", "ceil", "floord", "ceild", "exists",
    "true", "false", "infty", "NaN", "implies", "xor", "rat", "cmin", "cmax", "lexmin", "lexmax",
    "domain", "range", "any", "div", "int",
};

const char *xf_isl_name(const char *name, char *tmp, size_t tmpsz)
{
    for (size_t i = 0; i < sizeof isl_keywords / sizeof isl_keywords[0]; i++)
        if (strcmp(name, isl_keywords[i]) == 0) {
            snprintf(tmp, tmpsz, "%s_", name);
            return tmp;
        }
    return name;
}

/* ---- expressions to isl text ---------------------------------------------------------------- */

static const char *const isl_binop[] = {
    [IR_OP_ADD] = "+", [IR_OP_SUB] = "-", [IR_OP_MUL] = "*",
    [IR_OP_LT] = "<", [IR_OP_LE] = "<=", [IR_OP_GT] = ">", [IR_OP_GE] = ">=",
    [IR_OP_EQ] = "=", [IR_OP_NE] = "!=", [IR_OP_AND] = "and", [IR_OP_OR] = "or",
};

const ir_expr *xf_find_let(const char *name, const xf_frame *fr, int nfr)
{
    for (int i = nfr - 1; i >= 0; i--)
        if (fr[i].kind == XF_FR_LET && strcmp(fr[i].node->u.let.var, name) == 0)
            return fr[i].node->u.let.value;
    return NULL;
}

/* A constant factor or divisor, a let bound to one included: isl reads a product only with a
 * bare literal at its left (`-2*(n)`, never `(-(2)) * (n)` nor `(n) * (2)`), a quotient only
 * with a bare positive divisor.  0 with *v, or -1. */
/* The parameters' values while a model with XF_MODEL_VALUES is built (its thread only), else
 * NULL: its parameters are then constants, so that `rp * b` is affine. */
static _Thread_local const int64_t *isl_param_values;

int xf_isl_const(const ir_expr *e, const xf_frame *fr, int nfr, int64_t *v)
{
    int64_t a, c;
    if (isl_param_values && e->kind == IR_E_NAME && e->u.name.nk == IR_N_PARAM && e->u.name.index >= 0) {
        *v = isl_param_values[e->u.name.index];
        return 0;
    }
    if (e->kind == IR_E_NAME && e->u.name.nk == IR_N_LET) {
        const ir_expr *x = xf_find_let(e->u.name.id, fr, nfr);
        return x ? xf_isl_const(x, fr, nfr, v) : -1;
    }
    if (e->kind == IR_E_UNARY && e->u.op.op == IR_OP_NEG) {
        if (xf_isl_const(e->u.op.a, fr, nfr, &a)) return -1;
        *v = -a;
        return 0;
    }
    if (e->kind == IR_E_BINARY && (e->u.op.op == IR_OP_ADD || e->u.op.op == IR_OP_SUB || e->u.op.op == IR_OP_MUL)) {
        if (xf_isl_const(e->u.op.a, fr, nfr, &a) || xf_isl_const(e->u.op.b, fr, nfr, &c)) return -1;
        *v = e->u.op.op == IR_OP_ADD ? a + c : e->u.op.op == IR_OP_SUB ? a - c : a * c;
        return 0;
    }
    return xf_int_const(e, v);
}

int xf_isl_expr(strbuf *b, const ir_expr *e, const xf_frame *fr, int nfr)
{
    char tmp[80];
    int64_t k;
    if (e->kind != IR_E_INT && xf_isl_const(e, fr, nfr, &k) == 0) {   /* -(2), 2 * 3, a let of one */
        strbuf_printf(b, "(%lld)", (long long)k);
        return 0;
    }
    switch (e->kind) {
    case IR_E_INT:
        strbuf_printf(b, "%lld", (long long)e->u.ival);
        return 0;
    case IR_E_NAME: {
        ir_name_kind nk = e->u.name.nk;
        if (nk == IR_N_LET) {
            const ir_expr *v = xf_find_let(e->u.name.id, fr, nfr);
            if (!v) return -1;
            strbuf_printf(b, "(");
            int r = xf_isl_expr(b, v, fr, nfr);
            strbuf_printf(b, ")");
            return r;
        }
        if (nk != IR_N_PARAM && nk != IR_N_LOOPVAR && nk != IR_N_REDVAR &&
            nk != IR_N_UNRESOLVED)
            return -1;
        strbuf_printf(b, "%s", xf_isl_name(e->u.name.id, tmp, sizeof tmp));
        return 0;
    }
    case IR_E_UNARY:
        strbuf_printf(b, e->u.op.op == IR_OP_NEG ? "-(" : "not (");
        if (xf_isl_expr(b, e->u.op.a, fr, nfr) < 0) return -1;
        strbuf_printf(b, ")");
        return 0;
    case IR_E_BINARY: {
        ir_op op = e->u.op.op;
        if (op == IR_OP_DIV || op == IR_OP_MOD) {
            strbuf_printf(b, op == IR_OP_DIV ? "floor((" : "((");
            if (xf_isl_expr(b, e->u.op.a, fr, nfr) < 0) return -1;
            /* isl wants the divisor bare: `floor((e)/2)`, `(e) mod 2` */
            if (xf_isl_const(e->u.op.b, fr, nfr, &k) || k <= 0) return -1;
            strbuf_printf(b, op == IR_OP_DIV ? ")/%lld)" : ") mod %lld)", (long long)k);
            return 0;
        }
        if ((size_t)op >= sizeof isl_binop / sizeof isl_binop[0] || !isl_binop[op]) return -1;
        int ka = op == IR_OP_MUL && xf_isl_const(e->u.op.a, fr, nfr, &k) == 0;
        if (op == IR_OP_MUL && (ka || xf_isl_const(e->u.op.b, fr, nfr, &k) == 0)) {
            /* isl takes a literal factor bare and at the left: -2*(n) */
            strbuf_printf(b, "%lld*(", (long long)k);
            if (xf_isl_expr(b, ka ? e->u.op.b : e->u.op.a, fr, nfr) < 0) return -1;
            strbuf_printf(b, ")");
            return 0;
        }
        strbuf_printf(b, "(");
        if (xf_isl_expr(b, e->u.op.a, fr, nfr) < 0) return -1;
        strbuf_printf(b, ") %s (", isl_binop[op]);
        if (xf_isl_expr(b, e->u.op.b, fr, nfr) < 0) return -1;
        strbuf_printf(b, ")");
        return 0;
    }
    case IR_E_CALL: {
        ir_func f = e->u.call.f;
        if (f == IR_F_MIN || f == IR_F_MAX) {
            strbuf_printf(b, f == IR_F_MIN ? "min(" : "max(");
            for (int i = 0; i < e->u.call.nargs; i++) {
                if (i) strbuf_printf(b, ", ");
                if (xf_isl_expr(b, e->u.call.args[i], fr, nfr) < 0) return -1;
            }
            strbuf_printf(b, ")");
            return 0;
        }
        if ((f == IR_F_FLOOR || f == IR_F_CEIL) && e->u.call.nargs == 1) {
            const ir_expr *a = e->u.call.args[0];
            if (a->kind == IR_E_BINARY && a->u.op.op == IR_OP_DIV) {
                if (xf_isl_const(a->u.op.b, fr, nfr, &k) || k <= 0) return -1;
                strbuf_printf(b, f == IR_F_FLOOR ? "floor((" : "ceil((");
                if (xf_isl_expr(b, a->u.op.a, fr, nfr) < 0) return -1;
                strbuf_printf(b, ")/%lld)", (long long)k);
                return 0;
            }
            return xf_isl_expr(b, a, fr, nfr);
        }
        if (f == IR_F_ABS && e->u.call.nargs == 1) {
            strbuf_printf(b, "max(");
            if (xf_isl_expr(b, e->u.call.args[0], fr, nfr) < 0) return -1;
            strbuf_printf(b, ", -(");
            if (xf_isl_expr(b, e->u.call.args[0], fr, nfr) < 0) return -1;
            strbuf_printf(b, "))");
            return 0;
        }
        return -1;
    }
    default:
        return -1;
    }
}

/* ---- loop bounds without divisions ----------------------------------------------------------
 *
 * Space-time mapped and tiled programs bound their loops by max/min of affine terms plus one
 * floor or ceiling: `max(0, -p + floor((tt - n + 2*p)/4) + 2) <= t`.  isl reads such a bound as
 * an existentially quantified division and splits the set into pieces at every max and min;
 * dataflow analysis over those pieces is orders of magnitude slower (seidel-2d's wavefront: minutes
 * against milliseconds).  For an integer v each such bound is one affine constraint, exactly:
 *     v >= A + floor(E/k)  <=>  E <= k*(v - A) + k - 1        v <= A + floor(E/k)  <=>  k*(v - A) <= E
 *     v >= A + ceil(E/k)   <=>  E <= k*(v - A)                v <= A + ceil(E/k)   <=>  k*(v - A) <= E + k - 1
 * and a max in a lower bound (a min in an upper one) is the conjunction of its arguments.  Bounds of
 * another form keep isl's reading. */

typedef struct bterm { const ir_expr *e; int sign; } bterm;

/* The signed summands of e (through + - and unary minus), at most cap.  Their count, or -1. */
static int bound_terms(const ir_expr *e, int sign, bterm *t, int n, int cap)
{
    if (e->kind == IR_E_BINARY && (e->u.op.op == IR_OP_ADD || e->u.op.op == IR_OP_SUB)) {
        n = bound_terms(e->u.op.a, sign, t, n, cap);
        return n < 0 ? -1 : bound_terms(e->u.op.b, e->u.op.op == IR_OP_SUB ? -sign : sign, t, n, cap);
    }
    if (e->kind == IR_E_UNARY && e->u.op.op == IR_OP_NEG) return bound_terms(e->u.op.a, -sign, t, n, cap);
    if (n == cap) return -1;
    t[n] = (bterm){e, sign};
    return n + 1;
}

/* Is e a floor or ceiling of a quotient by a positive constant?  Its dividend and divisor. */
static int bound_div(const ir_expr *e, const xf_frame *fr, int nfr, const ir_expr **num, int64_t *k, int *ceil)
{
    *ceil = 0;
    if (e->kind == IR_E_CALL && (e->u.call.f == IR_F_FLOOR || e->u.call.f == IR_F_CEIL) && e->u.call.nargs == 1) {
        *ceil = e->u.call.f == IR_F_CEIL;
        e = e->u.call.args[0];
    }
    if (e->kind != IR_E_BINARY || e->u.op.op != IR_OP_DIV) return 0;
    *num = e->u.op.a;
    return xf_isl_const(e->u.op.b, fr, nfr, k) == 0 && *k > 0;
}

/* One side of `lo <= v <= hi` as isl text into b: upper says which. */
static int bound_text(strbuf *b, const ir_expr *e, const char *v, int upper, const xf_frame *fr, int nfr)
{
    if (e->kind == IR_E_CALL && e->u.call.f == (upper ? IR_F_MIN : IR_F_MAX)) {
        for (int i = 0; i < e->u.call.nargs; i++) {
            if (i) strbuf_printf(b, " and ");
            if (bound_text(b, e->u.call.args[i], v, upper, fr, nfr) < 0) return -1;
        }
        return 0;
    }
    bterm t[16];
    int n = bound_terms(e, 1, t, 0, 16), div = -1, ceil = 0;
    const ir_expr *num = NULL;
    int64_t k = 0;
    for (int i = 0; i < n; i++) {
        const ir_expr *nm;
        int64_t kk;
        int c;
        if (!bound_div(t[i].e, fr, nfr, &nm, &kk, &c)) continue;
        if (div >= 0) { div = -2; break; }   /* two divisions: isl's reading */
        div = i, num = nm, k = kk, ceil = c;
    }
    if (div < 0) {   /* affine, or beyond this rewrite */
        strbuf_printf(b, upper ? "%s <= " : "", v);
        if (xf_isl_expr(b, e, fr, nfr) < 0) return -1;
        strbuf_printf(b, upper ? "" : " <= %s", v);
        return 0;
    }
    if (t[div].sign < 0) ceil = !ceil;   /* -floor(E/k) = ceil(-E/k), -ceil(E/k) = floor(-E/k) */
    strbuf en = {0}, rest = {0};
    int r = xf_isl_expr(&en, num, fr, nfr);
    strbuf_printf(&rest, "(%s)", v);   /* v - A */
    for (int i = 0; i < n && r == 0; i++) {
        if (i == div) continue;
        strbuf_printf(&rest, t[i].sign > 0 ? " - (" : " + (");
        r = xf_isl_expr(&rest, t[i].e, fr, nfr);
        strbuf_printf(&rest, ")");
    }
    const char *sg = t[div].sign < 0 ? "-" : "";
    long long kk = (long long)k;
    if (r == 0 && !upper)
        strbuf_printf(b, "%s(%s) <= %lld*(%s) + %lld", sg, en.s, kk, rest.s, ceil ? 0 : kk - 1);
    else if (r == 0)
        strbuf_printf(b, "%lld*(%s) <= %s(%s) + %lld", kk, rest.s, sg, en.s, ceil ? kk - 1 : 0);
    strbuf_free(&en);
    strbuf_free(&rest);
    return r;
}

/* ---- the builder ---------------------------------------------------------------------------- */

typedef struct red { const char *var; char *lo, *hi; } red;

typedef struct bctx {
    xf_model *m;
    const ir_program *p;
    diag_list *d;
    xf_frame *fr;
    int nfr, capfr;
    char **sched;
    int nsched, capsched;
    int stcap, acccap;
    int textpos;
    int err;
} bctx;

static void tuple(strbuf *b, const xf_stmt *s);

/* The isl set of statement st's instances that its assumption (`assume LABEL unchanged when
 * COND`) says write the value their element has, or NULL (none, or COND not quasi-affine: then
 * the analysis keeps every write, which is always safe). */
static char *unchanged_text(const bctx *c, const xf_stmt *st, const char *label)
{
    const ir_program *p = c->m->prog;
    for (int i = 0; label && i < p->ndecls; i++) {
        const ir_decl *d = p->decls[i];
        if (d->kind != IR_D_ASSUME || !d->u.assume.label || strcmp(d->u.assume.label, label)) continue;
        strbuf cond = {0};
        if (xf_isl_expr(&cond, d->u.assume.cond, c->fr, c->nfr) != 0) {
            strbuf_free(&cond);
            return NULL;
        }
        strbuf b = {0};
        strbuf_printf(&b, "%s -> { ", c->m->params);
        tuple(&b, st);
        strbuf_printf(&b, " : %s }", cond.s);
        strbuf_free(&cond);
        return strbuf_take(&b);
    }
    return NULL;
}

static void push_frame(bctx *c, xf_frame_kind k, const ir_stmt *node, int var, char *cons, int exact)
{
    if (c->nfr == c->capfr) {
        c->capfr = c->capfr ? 2 * c->capfr : 16;
        c->fr = xrealloc(c->fr, (size_t)c->capfr * sizeof *c->fr);
    }
    c->fr[c->nfr++] = (xf_frame){k, node, var, cons ? cons : xstrdup(""), exact};
}

static void pop_frames(bctx *c, int to)
{
    while (c->nfr > to) free(c->fr[--c->nfr].cons);
}

static void push_sched(bctx *c, char *s)
{
    if (c->nsched == c->capsched) {
        c->capsched = c->capsched ? 2 * c->capsched : 16;
        c->sched = xrealloc(c->sched, (size_t)c->capsched * sizeof *c->sched);
    }
    c->sched[c->nsched++] = s;
}

static void pop_sched(bctx *c) { free(c->sched[--c->nsched]); }

static const char *file_of(const bctx *c) { return c->p->file; }

/* Appends "NAME[v1, v2]" for statement s. */
static void tuple(strbuf *b, const xf_stmt *s)
{
    strbuf_printf(b, "%s[", s->name);
    for (int i = 0; i < s->nvars; i++) strbuf_printf(b, "%s%s", i ? ", " : "", s->vars[i]);
    strbuf_printf(b, "]");
}

static void add_access(bctx *c, int stmt, int write, const ir_expr *e, red *reds, int nreds)
{
    xf_model *m = c->m;
    xf_stmt *s = &m->st[stmt];
    if (m->nacc == c->acccap) {
        c->acccap = c->acccap ? 2 * c->acccap : 32;
        m->acc = xrealloc(m->acc, (size_t)c->acccap * sizeof *m->acc);
    }
    xf_access *a = &m->acc[m->nacc++];
    memset(a, 0, sizeof *a);
    a->stmt = stmt;
    a->write = write;
    a->expr = e;
    a->text = ir_print_expr(e);
    a->must = s->exact;
    const char *arr = e->kind == IR_E_ACCESS ? e->u.access.array : e->u.name.id;
    int nidx = e->kind == IR_E_ACCESS ? e->u.access.nidx : 0;
    strbuf b = {0}, cons = {0};
    char tmp[80];
    strbuf_printf(&b, "%s -> { ", m->params);
    tuple(&b, s);
    strbuf_printf(&b, " -> %s[", xf_isl_name(arr, tmp, sizeof tmp));
    for (int i = 0; i < nidx; i++) strbuf_printf(&b, "%so%d", i ? ", " : "", i);
    strbuf_printf(&b, "]");
    for (int i = 0; i < nidx; i++) {
        strbuf x = {0};
        if (xf_isl_expr(&x, e->u.access.idx[i], s->frames, s->nframes) == 0)
            strbuf_printf(&cons, "%s o%d = %s", cons.n ? " and" : "", i, x.s);
        else
            a->must = 0;
        strbuf_free(&x);
    }
    for (int r = 0; r < nreds; r++) {
        if (reds[r].lo) strbuf_printf(&cons, "%s %s <= %s", cons.n ? " and" : "", reds[r].lo,
                                      xf_isl_name(reds[r].var, tmp, sizeof tmp));
        if (reds[r].hi) strbuf_printf(&cons, "%s %s <= %s", cons.n ? " and" : "",
                                      xf_isl_name(reds[r].var, tmp, sizeof tmp), reds[r].hi);
    }
    if (cons.n) {
        strbuf_printf(&b, " : ");
        if (nreds) {
            strbuf_printf(&b, "exists (");
            for (int r = 0; r < nreds; r++)
                strbuf_printf(&b, "%s%s", r ? ", " : "", xf_isl_name(reds[r].var, tmp, sizeof tmp));
            strbuf_printf(&b, " : %s)", cons.s);
        } else {
            strbuf_printf(&b, "%s", cons.s);
        }
    }
    if (nreds) a->must = 0;   /* a reduction reads a range: not one element per instance */
    strbuf_printf(&b, " }");
    strbuf_free(&cons);
    a->rel = strbuf_take(&b);
}

/* Records every array read in `e` (a right-hand side), with the reductions around it. */
static void walk_reads(bctx *c, int stmt, const ir_expr *e, red *reds, int nreds)
{
    if (!e) return;
    xf_stmt *s = &c->m->st[stmt];
    switch (e->kind) {
    case IR_E_ACCESS:
        add_access(c, stmt, 0, e, reds, nreds);
        for (int i = 0; i < e->u.access.nidx; i++) walk_reads(c, stmt, e->u.access.idx[i], reds, nreds);
        break;
    case IR_E_NAME:
        if (e->u.name.nk == IR_N_ARRAY) add_access(c, stmt, 0, e, reds, nreds);
        break;   /* a let's reads are the statement's through its frames (add_leaf) */
    case IR_E_UNARY:
        walk_reads(c, stmt, e->u.op.a, reds, nreds);
        break;
    case IR_E_BINARY:
        walk_reads(c, stmt, e->u.op.a, reds, nreds);
        walk_reads(c, stmt, e->u.op.b, reds, nreds);
        break;
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++) walk_reads(c, stmt, e->u.call.args[i], reds, nreds);
        break;
    case IR_E_REDUCE: {
        walk_reads(c, stmt, e->u.reduce.lo, reds, nreds);
        walk_reads(c, stmt, e->u.reduce.hi, reds, nreds);
        red r2[nreds + 1];
        if (nreds) memcpy(r2, reds, (size_t)nreds * sizeof *reds);
        strbuf lo = {0}, hi = {0};
        r2[nreds].var = e->u.reduce.var;
        r2[nreds].lo = xf_isl_expr(&lo, e->u.reduce.lo, s->frames, s->nframes) == 0 ? lo.s : NULL;
        r2[nreds].hi = xf_isl_expr(&hi, e->u.reduce.hi, s->frames, s->nframes) == 0 ? hi.s : NULL;
        walk_reads(c, stmt, e->u.reduce.body, r2, nreds + 1);
        strbuf_free(&lo);
        strbuf_free(&hi);
        break;
    }
    default:
        break;
    }
}

static void walk_block(bctx *c, const ir_block *b);

static void add_leaf(bctx *c, const ir_stmt *s)
{
    xf_model *m = c->m;
    char tmp[80];
    push_frame(c, XF_FR_LEAF, s, 0, NULL, 1);
    if (m->nst == c->stcap) {
        c->stcap = c->stcap ? 2 * c->stcap : 16;
        m->st = xrealloc(m->st, (size_t)c->stcap * sizeof *m->st);
    }
    const char *label = s->u.assign.label;
    char *name = label ? xstrdup(xf_isl_name(label, tmp, sizeof tmp))
                       : xasprintf("S_%d", s->pos.line);
    for (int k = 2; xf_model_find(m, name) >= 0; k++) {   /* unique */
        char *n2 = xasprintf("%s_%d", label ? label : "S", k);
        free(name);
        name = n2;
    }
    int idx = m->nst++;
    xf_stmt *st = &m->st[idx];
    memset(st, 0, sizeof *st);
    st->assign = s;
    st->textpos = c->textpos++;
    st->name = name;
    st->nframes = c->nfr;
    st->frames = xmalloc((size_t)c->nfr * sizeof *st->frames);
    st->vars = xmalloc((size_t)(c->nfr + 1) * sizeof *st->vars);
    st->exact = 1;
    strbuf cons = {0};
    for (int i = 0; i < c->nfr; i++) {
        st->frames[i] = c->fr[i];
        st->frames[i].cons = xstrdup(c->fr[i].cons);
        if (!c->fr[i].exact) st->exact = 0;
        if (c->fr[i].kind == XF_FR_FOR)
            st->vars[st->nvars++] =
                xstrdup(xf_isl_name(c->fr[i].node->u.for_.vars[c->fr[i].var].var, tmp, sizeof tmp));
        if (c->fr[i].cons[0]) strbuf_printf(&cons, "%s%s", cons.n ? " and " : "", c->fr[i].cons);
    }
    strbuf b = {0};
    strbuf_printf(&b, "%s -> { ", m->params);
    tuple(&b, st);
    if (cons.n) strbuf_printf(&b, " : %s", cons.s);
    strbuf_printf(&b, " }");
    st->domain = strbuf_take(&b);
    strbuf_free(&cons);
    st->unchanged = unchanged_text(c, st, label);
    /* the schedule vector; padded later */
    strbuf_printf(&b, "%s", "");
    for (int i = 0; i < c->nsched; i++) strbuf_printf(&b, "%s%s", i ? ", " : "", c->sched[i]);
    st->sched = strbuf_take(&b);
    if (c->nsched > m->sched_len) m->sched_len = c->nsched;

    const ir_expr *lhs = s->u.assign.lhs;
    add_access(c, idx, 1, lhs, NULL, 0);
    if (lhs->kind == IR_E_ACCESS)
        for (int i = 0; i < lhs->u.access.nidx; i++) walk_reads(c, idx, lhs->u.access.idx[i], NULL, 0);
    walk_reads(c, idx, s->u.assign.rhs, NULL, 0);
    /* reads in the conditions around it and in the lets in scope happen for it too */
    for (int i = 0; i < st->nframes - 1; i++) {
        const xf_frame *f = &st->frames[i];
        int before = m->nacc;
        if (f->kind == XF_FR_THEN || (f->kind == XF_FR_ELSE))
            walk_reads(c, idx, f->node->u.if_.cond, NULL, 0);
        else if (f->kind == XF_FR_LET)
            walk_reads(c, idx, f->node->u.let.value, NULL, 0);
        for (int k = before; k < m->nacc; k++) {   /* say where the read is */
            char *t = f->kind == XF_FR_LET ? xasprintf("%s (let %s)", m->acc[k].text, f->node->u.let.var)
                                          : xasprintf("%s (if, line %d)", m->acc[k].text, f->node->pos.line);
            free(m->acc[k].text);
            m->acc[k].text = t;
        }
    }
    pop_frames(c, c->nfr - 1);
}

/* `some destination of send s is not the sender rp` as isl text into *away; -1 where the
 * destinations are not readable. */
static int send_away(bctx *c, const ir_stmt *s, const char *rp, strbuf *away)
{
    strbuf lo = {0}, hi = {0};
    int r = rp && s->u.send.to_lo && xf_isl_equals(&lo, "lo'", s->u.send.to_lo, c->fr, c->nfr) == 0 &&
            xf_isl_equals(&hi, "hi'", s->u.send.to_hi ? s->u.send.to_hi : s->u.send.to_lo, c->fr, c->nfr) == 0 ? 0 : -1;
    if (!r) strbuf_printf(away, "exists (lo', hi', d' : %s and %s and lo' <= d' <= hi' and (d' < %s or d' > %s))", lo.s, hi.s, rp, rp);
    strbuf_free(&lo);
    strbuf_free(&hi);
    return r;
}

/* A send: the domain where it runs (its loops, conditions and `when`), and the part of it where
 * it sends to a processor other than its own, for the steps that exchange messages
 * (transforms/export_steps.c; a processor's send to itself is no message).  Sends are not
 * statements of the computation. */
static void add_send(bctx *c, const ir_stmt *s)
{
    xf_model *m = c->m;
    char tmp[80], rp[80] = "";
    strbuf vars = {0}, cons = {0}, when = {0}, b = {0}, away = {0};
    for (int i = 0; i < c->nfr; i++) {
        const xf_frame *f = &c->fr[i];
        if (f->kind == XF_FR_FOR) {
            const ir_loopvar *v = &f->node->u.for_.vars[f->var];
            const char *name = xf_isl_name(v->var, tmp, sizeof tmp);
            strbuf_printf(&vars, "%s%s", vars.n ? ", " : "", name);
            if (v->kind == IR_LOOP_PROC) snprintf(rp, sizeof rp, "%s", name);
        }
        if (f->cons[0]) strbuf_printf(&cons, "%s%s", cons.n ? " and " : "", f->cons);
    }
    if (s->u.send.when && xf_isl_expr(&when, s->u.send.when, c->fr, c->nfr) == 0)
        strbuf_printf(&cons, "%s(%s)", cons.n ? " and " : "", when.s);
    int known = send_away(c, s, rp[0] ? rp : NULL, &away) == 0;
    m->sends = xrealloc(m->sends, (size_t)(m->nsends + 1) * sizeof *m->sends);
    m->sends_away = xrealloc(m->sends_away, (size_t)(m->nsends + 1) * sizeof *m->sends_away);
    strbuf_printf(&b, "%s -> { SEND[%s]%s%s }", m->params, vars.n ? vars.s : "", cons.n ? " : " : "", cons.n ? cons.s : "");
    m->sends[m->nsends] = strbuf_take(&b);
    m->sends_away[m->nsends] = known ? xasprintf("%s -> { SEND[%s] : %s%s%s }", m->params, vars.n ? vars.s : "",
                                                 cons.n ? cons.s : "", cons.n ? " and " : "", away.s)
                                     : NULL;
    m->nsends++;
    strbuf_free(&vars);
    strbuf_free(&cons);
    strbuf_free(&when);
    strbuf_free(&away);
}

static void walk_stmt(bctx *c, const ir_stmt *s)
{
    char tmp[80];
    switch (s->kind) {
    case IR_S_ASSIGN:
        add_leaf(c, s);
        break;
    case IR_S_LET:
        push_frame(c, XF_FR_LET, s, 0, NULL, 1);   /* popped at the end of the block */
        break;
    case IR_S_FOR: {
        int base = c->nfr, nsched = c->nsched;
        for (int v = 0; v < s->u.for_.nvars; v++) {
            const ir_loopvar *lv = &s->u.for_.vars[v];
            const char *vn = xf_isl_name(lv->var, tmp, sizeof tmp);
            strbuf b = {0}, lo = {0}, hi = {0}, st = {0};
            int64_t step = 1;   /* a literal, or a parameter's value under XF_MODEL_VALUES */
            int ok = xf_isl_expr(&lo, lv->lo, c->fr, c->nfr) == 0 &&
                     xf_isl_expr(&hi, lv->hi, c->fr, c->nfr) == 0 &&
                     (!lv->step || (lv->step->kind == IR_E_INT ? (step = lv->step->u.ival) > 0
                                    : isl_param_values && xf_isl_const(lv->step, c->fr, c->nfr, &step) == 0 && step > 0));
            if (!ok) {
                diag_add(c->d, file_of(c), lv->pos.line, lv->pos.col,
                         "the bounds or step of loop '%s' are not affine (or the step is not a "
                         "positive constant): the polyhedral model needs affine loops", lv->var);
                c->err = 1;
            } else {
                int exact = bound_text(&b, lv->lo, vn, 0, c->fr, c->nfr) == 0;
                strbuf_printf(&b, " and ");
                if (!exact || bound_text(&b, lv->hi, vn, 1, c->fr, c->nfr) != 0) {
                    strbuf_free(&b);
                    strbuf_printf(&b, "%s <= %s <= %s", lo.s, vn, hi.s);
                }
                if (lv->step)   /* isl wants the modulus bare */
                    strbuf_printf(&b, " and (%s - (%s)) mod %lld = 0", vn, lo.s, (long long)step);
            }
            strbuf_free(&lo);
            strbuf_free(&hi);
            strbuf_free(&st);
            push_frame(c, XF_FR_FOR, s, v, strbuf_take(&b), ok);
            push_sched(c, xstrdup(vn));
        }
        walk_block(c, s->u.for_.body);
        while (c->nsched > nsched) pop_sched(c);
        pop_frames(c, base);
        break;
    }
    case IR_S_IF: {
        strbuf b = {0};
        int ok = xf_isl_expr(&b, s->u.if_.cond, c->fr, c->nfr) == 0;
        char *cond = strbuf_take(&b);
        int base = c->nfr;
        push_frame(c, XF_FR_THEN, s, 0, ok ? xasprintf("(%s)", cond) : NULL, ok);
        walk_block(c, s->u.if_.then_blk);
        pop_frames(c, base);
        if (s->u.if_.else_blk) {
            push_frame(c, XF_FR_ELSE, s, 0, ok ? xasprintf("not (%s)", cond) : NULL, ok);
            walk_block(c, s->u.if_.else_blk);
            pop_frames(c, base);
        }
        free(cond);
        break;
    }
    case IR_S_SEND:
        add_send(c, s);   /* not part of the computation: kept apart */
        break;
    default:
        break;
    }
}

static void walk_block(bctx *c, const ir_block *b)
{
    if (!b) return;
    int base = c->nfr;
    for (int k = 0; k < b->n; k++) {
        push_sched(c, xasprintf("%d", k));
        walk_stmt(c, b->stmts[k]);
        pop_sched(c);
    }
    pop_frames(c, base);
}

int xf_model_find(const xf_model *m, const char *label)
{
    for (int i = 0; i < m->nst; i++)
        if (strcmp(m->st[i].name, label) == 0) return i;
    return -1;
}

/* Is `e` (isl text over the program's parameters) affine?  A derived parameter such as
 * `procs = N * N` is not: the model then knows only that it is positive. */
static int affine_in_params(__isl_keep isl_ctx *ctx, const ir_program *p, const char *e)
{
    char tmp[80];
    strbuf b = {0};
    strbuf_printf(&b, "[");
    for (int i = 0; i < p->nparams; i++)
        strbuf_printf(&b, "%s%s", i ? ", " : "", xf_isl_name(p->params[i]->u.param.name, tmp, sizeof tmp));
    strbuf_printf(&b, "] -> { [%s] }", e);
    isl_set *set = isl_set_read_from_str(ctx, b.s);
    strbuf_free(&b);
    int ok = set != NULL;
    isl_set_free(set);
    return ok;
}

xf_model *xf_model_build(const ir_program *p, const ir_binding *ov, int nov, int fixed,
                         diag_list *d)
{
    if (!p->checked) {
        diag_add(d, p->file, 0, 0, "the program must be checked before analysis");
        return NULL;
    }
    xf_model *m = xcalloc(1, sizeof *m);
    m->ctx = isl_ctx_alloc();
    isl_options_set_on_error(m->ctx, ISL_ON_ERROR_CONTINUE);
    xf_cancel_track(m->ctx);
    m->prog = p;
    m->pvalues = xcalloc((size_t)p->nparams + 1, sizeof *m->pvalues);
    if (ir_params_eval(p, ov, nov, 0, m->pvalues, d) != 0) {
        xf_model_free(m);
        return NULL;
    }
    char tmp[80];
    strbuf pb = {0}, cb = {0};
    m->pnames = xcalloc((size_t)p->nparams + 1, sizeof *m->pnames);
    strbuf_printf(&pb, "[");
    for (int i = 0; i < p->nparams; i++) {
        const char *nm = xf_isl_name(p->params[i]->u.param.name, tmp, sizeof tmp);
        m->pnames[m->npnames++] = xstrdup(nm);
        strbuf_printf(&pb, "%s%s", i ? ", " : "", nm);
        long long v = (long long)m->pvalues[i];
        const ir_expr *val = p->params[i]->u.param.value;
        strbuf x = {0};
        if (cb.n) strbuf_printf(&cb, " and ");
        if (fixed)
            strbuf_printf(&cb, "%s = %lld", nm, v);
        else if (val->kind != IR_E_INT && xf_isl_expr(&x, val, NULL, 0) == 0 && affine_in_params(m->ctx, p, x.s))
            strbuf_printf(&cb, "%s = %s", nm, x.s);
        else if (v >= 1)
            strbuf_printf(&cb, "%s >= 1", nm);
        else
            strbuf_printf(&cb, "%s = %lld", nm, v);
        strbuf_free(&x);
    }
    strbuf_printf(&pb, "]");
    m->params = strbuf_take(&pb);
    m->context = xasprintf("%s -> { : %s }", m->params, cb.n ? cb.s : "");
    strbuf_free(&cb);

    bctx c = {.m = m, .p = p, .d = d};
    isl_param_values = fixed == XF_MODEL_VALUES ? m->pvalues : NULL;
    walk_block(&c, p->body);
    isl_param_values = NULL;
    free(c.fr);
    free(c.sched);
    /* pad the schedules and turn them into maps */
    for (int i = 0; i < m->nst; i++) {
        xf_stmt *s = &m->st[i];
        strbuf b = {0};
        strbuf_printf(&b, "%s -> { ", m->params);
        tuple(&b, s);
        strbuf_printf(&b, " -> [%s", s->sched);
        int len = s->sched[0] ? 1 : 0;
        for (const char *q = s->sched; *q; q++) len += *q == ',';
        for (int k = len; k < m->sched_len; k++) strbuf_printf(&b, "%s0", k ? ", " : "");
        strbuf_printf(&b, "] }");
        free(s->sched);
        s->sched = strbuf_take(&b);
    }
    /* every text must parse: an isl error here is ours, not the user's */
    for (int i = 0; i < m->nst && !c.err; i++) {
        isl_set *dom = isl_set_read_from_str(m->ctx, m->st[i].domain);
        isl_map *sch = dom ? isl_map_read_from_str(m->ctx, m->st[i].sched) : NULL;
        if (!dom || !sch) {
            diag_add(d, p->file, m->st[i].assign->pos.line, m->st[i].assign->pos.col,
                     "internal error: cannot model statement %s (isl: %s): %s", m->st[i].name,
                     xf_isl_error(m->ctx), !dom ? m->st[i].domain : m->st[i].sched);
            c.err = 1;
        }
        isl_set_free(dom);
        isl_map_free(sch);
    }
    for (int i = 0; i < m->nacc && !c.err; i++) {
        isl_map *a = isl_map_read_from_str(m->ctx, m->acc[i].rel);
        if (!a) {
            diag_add(d, p->file, m->acc[i].expr->pos.line, m->acc[i].expr->pos.col,
                     "internal error: cannot model the access %s (isl: %s): %s", m->acc[i].text,
                     xf_isl_error(m->ctx), m->acc[i].rel);
            c.err = 1;
        }
        isl_map_free(a);
    }
    if (c.err) {
        xf_model_free(m);
        return NULL;
    }
    return m;
}

void xf_model_free(xf_model *m)
{
    if (!m) return;
    for (int i = 0; i < m->nst; i++) {
        xf_stmt *s = &m->st[i];
        for (int k = 0; k < s->nframes; k++) free(s->frames[k].cons);
        free(s->frames);
        for (int k = 0; k < s->nvars; k++) free(s->vars[k]);
        free(s->vars);
        free(s->name);
        free(s->domain);
        free(s->unchanged);
        free(s->sched);
    }
    free(m->st);
    for (int i = 0; i < m->nacc; i++) {
        free(m->acc[i].text);
        free(m->acc[i].rel);
    }
    free(m->acc);
    for (int i = 0; i < m->nsends; i++) {
        free(m->sends[i]);
        free(m->sends_away[i]);
    }
    free(m->sends);
    free(m->sends_away);
    for (int i = 0; i < m->npnames; i++) free(m->pnames[i]);
    free(m->pnames);
    free(m->params);
    free(m->context);
    free(m->pvalues);
    xf_cancel_untrack(m->ctx);
    isl_ctx_free(m->ctx);
    free(m);
}

__isl_give isl_set *xf_model_context(const xf_model *m)
{
    return isl_set_read_from_str(m->ctx, m->context);
}

__isl_give isl_set *xf_model_domain(const xf_model *m, int s)
{
    isl_set *dom = isl_set_read_from_str(m->ctx, m->st[s].domain);
    return isl_set_intersect_params(dom, xf_model_context(m));
}

__isl_give isl_union_map *xf_model_schedule(const xf_model *m)
{
    isl_union_map *r = isl_union_map_empty(isl_space_params_alloc(m->ctx, 0));
    for (int i = 0; i < m->nst; i++) {
        isl_map *s = isl_map_read_from_str(m->ctx, m->st[i].sched);
        s = isl_map_intersect_domain(s, xf_model_domain(m, i));
        isl_union_map *us = isl_union_map_from_map(s);
        r = isl_union_map_union(r, us);
    }
    return r;
}
