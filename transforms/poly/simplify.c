/*
 * simplify.c — a small algebraic simplifier for the integer expressions commgen, memdist and
 * relcoord emit (subscripts, dist bounds, send destinations and indices, and the comparisons of
 * guards; loop bounds stay as tile wrote them, since the step nest is recognised by its form).
 *
 * Sums are brought to a linear normal form: terms c * atom over atoms (names and the
 * sub-expressions the form cannot see into: divisions, remainders, min/max, products of two
 * unknowns), equal atoms merged, constants folded; printed positive terms first, then the
 * negative ones, then the constant (n - (p + 1) + 1 -> n - p).  A comparison keeps its operator
 * and moves every term to the side where it is positive (a + x >= a + 1 -> x >= 1).  A min/max
 * reduction whose body is monotone in its variable becomes the body at one end of the range
 * (min(k = 0 .. H) (1 + rp + k * procs) -> 1 + rp): the body is a sum of terms free of k and
 * c * k or c * k * n with n a parameter (>= 1).
 * Integer arithmetic is free in the cost model and comparisons keep their number, so the
 * simulated costs do not change.  Nothing here touches a double expression.
 */
#include <stdlib.h>
#include <string.h>

#include "poly_int.h"

#define MAXTERMS 32

typedef struct lin {
    int64_t c;                 /* the constant */
    int n;
    int64_t k[MAXTERMS];       /* coefficients */
    ir_expr *atom[MAXTERMS];
    char *text[MAXTERMS];      /* the atoms printed (malloc'd) */
    int over;                  /* too many terms: give up */
} lin;

static void lin_free(lin *l)
{
    for (int i = 0; i < l->n; i++) free(l->text[i]);
    l->n = 0;
}

static void lin_add_atom(lin *l, int64_t k, ir_expr *a)
{
    char *t = ir_print_expr(a);
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->text[i], t)) { l->k[i] += k; free(t); return; }
    if (l->n == MAXTERMS) { l->over = 1; free(t); return; }
    l->k[l->n] = k;
    l->atom[l->n] = a;
    l->text[l->n++] = t;
}

/* simp_d and collect_d recurse at most this deep (d counts the levels); deeper expressions,
 * and rewrites that do not settle, are left as they are. */
enum { SIMP_MAX_DEPTH = 200 };
static ir_expr *simp_d(ir_program *p, int d, ir_expr *e);
static void collect_d(ir_program *p, int d, lin *l, ir_expr *e, int64_t k);
static ir_expr *lin_expr(ir_program *p, const lin *l);

static int is_sum(const ir_expr *e)
{
    return e->kind == IR_E_BINARY && (e->u.op.op == IR_OP_ADD || e->u.op.op == IR_OP_SUB);
}

/* (x + c * d) / d = x / d + c and (x + c * d) % d = x % d for a name or number d: e itself or
 * the rewritten form (still to be simplified). */
static ir_expr *pull_multiples(ir_program *p, int depth, ir_expr *e)
{
    const ir_expr *d = e->u.op.b;
    if (d->kind != IR_E_NAME && !(d->kind == IR_E_INT && d->u.ival > 0)) return e;
    lin l = {0};
    collect_d(p, depth + 1, &l, e->u.op.a, 1);
    int64_t c = 0;
    if (d->kind == IR_E_INT) { c = l.c / d->u.ival - (l.c % d->u.ival < 0); l.c -= c * d->u.ival; }
    char *dt = ir_print_expr(d);
    for (int i = 0; i < l.n; i++)
        if (!strcmp(l.text[i], dt)) { c += l.k[i]; l.k[i] = 0; }
    free(dt);
    if (l.over || c == 0) { lin_free(&l); return e; }
    ir_expr *rest = ir_new_binary(p, e->u.op.op, lin_expr(p, &l), ir_clone_expr(p, d));
    lin_free(&l);
    if (e->u.op.op == IR_OP_MOD) return rest;
    return ir_new_binary(p, IR_OP_ADD, rest, ir_new_int(p, c));
}

/* Adds k * e to l. */
static void collect_d(ir_program *p, int d, lin *l, ir_expr *e, int64_t k)
{
    if (d > SIMP_MAX_DEPTH) { lin_add_atom(l, k, e); return; }   /* left as it is */
    switch (e->kind) {
    case IR_E_INT: l->c += k * e->u.ival; return;
    case IR_E_UNARY:
        if (e->u.op.op == IR_OP_NEG) { collect_d(p, d + 1, l, e->u.op.a, -k); return; }
        break;
    case IR_E_BINARY:
        switch (e->u.op.op) {
        case IR_OP_ADD: collect_d(p, d + 1, l, e->u.op.a, k); collect_d(p, d + 1, l, e->u.op.b, k); return;
        case IR_OP_SUB: collect_d(p, d + 1, l, e->u.op.a, k); collect_d(p, d + 1, l, e->u.op.b, -k); return;
        case IR_OP_MUL:
            if (e->u.op.a->kind == IR_E_INT) { collect_d(p, d + 1, l, e->u.op.b, k * e->u.op.a->u.ival); return; }
            if (e->u.op.b->kind == IR_E_INT) { collect_d(p, d + 1, l, e->u.op.a, k * e->u.op.b->u.ival); return; }
            if (e->u.op.b->kind == IR_E_NAME && is_sum(e->u.op.a = simp_d(p, d + 1, e->u.op.a))) {   /* (x + c) * n = x * n + c * n */
                lin s = {0};
                collect_d(p, d + 1, &s, e->u.op.a, 1);
                if (!s.over) {
                    for (int i = 0; i < s.n; i++)
                        lin_add_atom(l, k * s.k[i], ir_new_binary(p, IR_OP_MUL, s.atom[i], ir_clone_expr(p, e->u.op.b)));
                    if (s.c) lin_add_atom(l, k * s.c, ir_clone_expr(p, e->u.op.b));
                    lin_free(&s);
                    return;
                }
                lin_free(&s);
            }
            break;
        default: break;
        }
        break;
    default: break;
    }
    ir_expr *a = simp_d(p, d + 1, e);
    if (a->kind == IR_E_INT) { l->c += k * a->u.ival; return; }
    lin_add_atom(l, k, a);
}

static ir_expr *term(ir_program *p, int64_t k, ir_expr *a)
{
    return k == 1 ? a : ir_new_binary(p, IR_OP_MUL, ir_new_int(p, k), a);
}

/* The expression of l: positive terms, negative terms, the constant. */
static ir_expr *lin_expr(ir_program *p, const lin *l)
{
    ir_expr *r = NULL;
    for (int i = 0; i < l->n; i++)
        if (l->k[i] > 0) r = r ? ir_new_binary(p, IR_OP_ADD, r, term(p, l->k[i], l->atom[i])) : term(p, l->k[i], l->atom[i]);
    int lead = !r && l->c > 0;   /* the constant leads (1 - t): not added again at the end */
    if (lead) r = ir_new_int(p, l->c);
    for (int i = 0; i < l->n; i++)
        if (l->k[i] < 0)
            r = r ? ir_new_binary(p, IR_OP_SUB, r, term(p, -l->k[i], l->atom[i]))
                  : ir_new_unary(p, IR_OP_NEG, term(p, -l->k[i], l->atom[i]));
    if (!r) return ir_new_int(p, l->c);
    if (!lead && (l->c < 0 || (l->c > 0 && r->kind != IR_E_INT)))
        r = ir_new_binary(p, l->c < 0 ? IR_OP_SUB : IR_OP_ADD, r, ir_new_int(p, l->c < 0 ? -l->c : l->c));
    return r;
}


/* Is nm a parameter of p (>= 1 in every context the transforms build)? */
static int is_param(const ir_program *p, const char *nm)
{
    for (int i = 0; i < p->ndecls; i++)
        if (p->decls[i]->kind == IR_D_PARAM && !strcmp(p->decls[i]->u.param.name, nm)) return 1;
    return 0;
}

/* +1 / -1 when l grows / shrinks with v (its terms are k * v or k * v * parameter), 0 unknown. */
static int monotone_in(const ir_program *p, const lin *l, const char *v)
{
    int sign = 2;   /* constant so far */
    for (int i = 0; i < l->n; i++) {
        const ir_expr *a = l->atom[i];
        if (!xf_mentions(a, v)) continue;
        int ok = a->kind == IR_E_NAME ||
                 (a->kind == IR_E_BINARY && a->u.op.op == IR_OP_MUL &&
                  ((a->u.op.a->kind == IR_E_NAME && !strcmp(a->u.op.a->u.name.id, v) && a->u.op.b->kind == IR_E_NAME &&
                    is_param(p, a->u.op.b->u.name.id)) ||
                   (a->u.op.b->kind == IR_E_NAME && !strcmp(a->u.op.b->u.name.id, v) && a->u.op.a->kind == IR_E_NAME &&
                    is_param(p, a->u.op.a->u.name.id))));
        if (!ok) return 0;
        int s = l->k[i] > 0 ? 1 : -1;
        if (sign != 2 && sign != s) return 0;
        sign = s;
    }
    return sign;
}


static int is_cmp(ir_op op)
{
    return op == IR_OP_EQ || op == IR_OP_NE || op == IR_OP_LT || op == IR_OP_LE || op == IR_OP_GT || op == IR_OP_GE;
}

/* A simplified copy-free rewrite of integer expression e (e's nodes may be reused). */
static ir_expr *simp_d(ir_program *p, int d, ir_expr *e)
{
    if (!e || d > SIMP_MAX_DEPTH) return e;   /* a rewrite that does not settle stops here */
    switch (e->kind) {
    case IR_E_UNARY:
    case IR_E_BINARY: {
        ir_op op = e->u.op.op;
        if (e->kind == IR_E_UNARY && op != IR_OP_NEG) { e->u.op.a = simp_d(p, d + 1, e->u.op.a); return e; }
        if (op == IR_OP_ADD || op == IR_OP_SUB || op == IR_OP_NEG ||
            (op == IR_OP_MUL && (e->u.op.a->kind == IR_E_INT || e->u.op.b->kind == IR_E_INT))) {
            lin l = {0};
            collect_d(p, d + 1, &l, e, 1);
            ir_expr *r = l.over ? e : lin_expr(p, &l);
            lin_free(&l);
            return r;
        }
        if (is_cmp(op)) {   /* every term to the side where it is positive */
            lin l = {0};
            collect_d(p, d + 1, &l, e->u.op.a, 1);
            collect_d(p, d + 1, &l, e->u.op.b, -1);
            if (l.over) { lin_free(&l); return e; }
            lin L = {0}, R = {0};
            for (int i = 0; i < l.n; i++) {
                if (l.k[i] > 0) { L.k[L.n] = l.k[i]; L.atom[L.n++] = l.atom[i]; }
                if (l.k[i] < 0) { R.k[R.n] = -l.k[i]; R.atom[R.n++] = l.atom[i]; }
            }
            if (l.c > 0) L.c = l.c; else R.c = -l.c;
            ir_expr *r = ir_new_binary(p, op, lin_expr(p, &L), lin_expr(p, &R));
            lin_free(&l);
            return r;
        }
        e->u.op.a = simp_d(p, d + 1, e->u.op.a);
        e->u.op.b = simp_d(p, d + 1, e->u.op.b);
        if (op == IR_OP_DIV || op == IR_OP_MOD) {
            ir_expr *r = pull_multiples(p, d + 1, e);
            if (r != e) return simp_d(p, d + 1, r);
        }
        if ((op == IR_OP_DIV || op == IR_OP_MUL) && e->u.op.b->kind == IR_E_INT && e->u.op.b->u.ival == 1) return e->u.op.a;
        if (op == IR_OP_MUL && e->u.op.a->kind == IR_E_INT && e->u.op.a->u.ival == 1) return e->u.op.b;
        return e;
    }
    case IR_E_CALL: {
        int n = 0, allint = 1;
        for (int i = 0; i < e->u.call.nargs; i++) {
            ir_expr *a = simp_d(p, d + 1, e->u.call.args[i]);
            int dup = 0;
            if (e->u.call.f == IR_F_MIN || e->u.call.f == IR_F_MAX) {
                char *t = ir_print_expr(a);
                for (int j = 0; j < n && !dup; j++) {
                    char *u = ir_print_expr(e->u.call.args[j]);
                    dup = !strcmp(t, u);
                    free(u);
                }
                free(t);
            }
            if (!dup) e->u.call.args[n++] = a;
            allint &= a->kind == IR_E_INT;
        }
        e->u.call.nargs = n;
        if (e->u.call.f != IR_F_MIN && e->u.call.f != IR_F_MAX) return e;
        if (n == 1) return e->u.call.args[0];
        if (allint) {
            int64_t v = e->u.call.args[0]->u.ival;
            for (int i = 1; i < n; i++) {
                int64_t w = e->u.call.args[i]->u.ival;
                v = e->u.call.f == IR_F_MIN ? (w < v ? w : v) : (w > v ? w : v);
            }
            return ir_new_int(p, v);
        }
        return e;
    }
    case IR_E_ACCESS:
        for (int i = 0; i < e->u.access.nidx; i++) e->u.access.idx[i] = simp_d(p, d + 1, e->u.access.idx[i]);
        return e;
    case IR_E_REDUCE: {
        e->u.reduce.lo = simp_d(p, d + 1, e->u.reduce.lo);
        e->u.reduce.hi = simp_d(p, d + 1, e->u.reduce.hi);
        e->u.reduce.body = simp_d(p, d + 1, e->u.reduce.body);
        if (e->u.reduce.r != IR_R_MIN && e->u.reduce.r != IR_R_MAX) return e;
        lin l = {0};
        collect_d(p, d + 1, &l, ir_clone_expr(p, e->u.reduce.body), 1);
        int m = l.over ? 0 : monotone_in(p, &l, e->u.reduce.var);
        lin_free(&l);
        if (!m) return e;
        int at_lo = (m > 0) == (e->u.reduce.r == IR_R_MIN) || m == 2;
        return simp_d(p, d + 1, xf_subst1(p, e->u.reduce.body, e->u.reduce.var, at_lo ? e->u.reduce.lo : e->u.reduce.hi));
    }
    default:
        return e;
    }
}

/* Is e nested deeper than `limit`?  simp recurses through each level with a linear form on the
 * stack, so deeper expressions are left as they are. */
static int too_deep(const ir_expr *e, int limit)
{
    if (!e) return 0;
    if (limit <= 0) return 1;
    switch (e->kind) {
    case IR_E_UNARY: case IR_E_BINARY:
        return too_deep(e->u.op.a, limit - 1) || too_deep(e->u.op.b, limit - 1);
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++) if (too_deep(e->u.call.args[i], limit - 1)) return 1;
        return 0;
    case IR_E_REDUCE:
        return too_deep(e->u.reduce.lo, limit - 1) || too_deep(e->u.reduce.hi, limit - 1)
            || too_deep(e->u.reduce.body, limit - 1);
    default:
        return 0;
    }
}

ir_expr *xf_simplify_int(ir_program *p, ir_expr *e)
{
    return too_deep(e, SIMP_MAX_DEPTH) ? e : simp_d(p, 0, e);
}

/* The linear form of a - b (copies: simp reuses the nodes it is given); l.over on failure. */
static void lin_diff(ir_program *p, lin *l, const ir_expr *a, const ir_expr *b)
{
    memset(l, 0, sizeof *l);
    if (too_deep(a, SIMP_MAX_DEPTH) || too_deep(b, SIMP_MAX_DEPTH)) { l->over = 1; return; }
    collect_d(p, 1, l, ir_clone_expr(p, a), 1);
    collect_d(p, 1, l, ir_clone_expr(p, b), -1);
}

int xf_pins_last(ir_program *p, const ir_expr *c, const char *v, const ir_expr *hi)
{
    if (!c || c->kind != IR_E_BINARY) return 0;
    /* as f == 0, f >= 0 or f <= 0 with f = a - b (+ 1 or - 1: integers, a > b is a - b - 1 >= 0) */
    ir_op op = c->u.op.op;
    int64_t off = op == IR_OP_GT ? -1 : op == IR_OP_LT ? 1 : 0;
    if (op == IR_OP_GT) op = IR_OP_GE;
    if (op == IR_OP_LT) op = IR_OP_LE;
    if (op != IR_OP_EQ && op != IR_OP_GE && op != IR_OP_LE) return 0;
    lin l;
    lin_diff(p, &l, c->u.op.a, c->u.op.b);
    int64_t kv = 0;
    int ok = !l.over;
    for (int i = 0; ok && i < l.n; i++) {   /* k * v plus terms free of v */
        if (l.atom[i]->kind == IR_E_NAME && !strcmp(l.atom[i]->u.name.id, v)) kv += l.k[i];
        else if (l.k[i] && xf_mentions(l.atom[i], v)) ok = 0;
    }
    lin_free(&l);
    /* f = k·(v − hi) when f is 0 at v = hi: == pins v; >= 0 with k > 0 (<= 0 with k < 0) is
     * v >= hi, the loop's last value alone */
    if (!ok || !kv || (op == IR_OP_GE && kv < 0) || (op == IR_OP_LE && kv > 0)) return 0;
    ir_expr *at[2];
    for (int s = 0; s < 2; s++) at[s] = xf_subst1(p, s ? c->u.op.b : c->u.op.a, v, hi);
    lin_diff(p, &l, at[0], at[1]);
    ok = !l.over && l.c + off == 0;
    for (int i = 0; ok && i < l.n; i++) ok = l.k[i] == 0;
    lin_free(&l);
    return ok;
}

/* e simplified when that shortens it, else e as written (x == n - 1 stays). */
static ir_expr *shorter(ir_program *p, ir_expr *e)
{
    if (!e || too_deep(e, SIMP_MAX_DEPTH)) return e;
    char *a = ir_print_expr(e);
    ir_expr *r = simp_d(p, 0, ir_clone_expr(p, e));
    char *b = ir_print_expr(r);
    if (strlen(b) >= strlen(a)) r = e;
    free(a);
    free(b);
    return r;
}

/* Lets whose value may be a double (an array element, a real literal, sqrt): comparisons
 * mentioning them are left alone. */
typedef struct dlets { const char *name[256]; int n; } dlets;

static int maybe_double(const dlets *D, const ir_expr *e)
{
    if (!e) return 0;
    switch (e->kind) {
    case IR_E_REAL: case IR_E_ACCESS: return 1;
    case IR_E_NAME:
        for (int i = 0; i < D->n; i++) if (!strcmp(D->name[i], e->u.name.id)) return 1;
        return 0;
    case IR_E_UNARY: case IR_E_BINARY: return maybe_double(D, e->u.op.a) || maybe_double(D, e->u.op.b);
    case IR_E_CALL:
        if (e->u.call.f == IR_F_SQRT || ir_libm_nargs(e->u.call.f)) return 1;
        for (int i = 0; i < e->u.call.nargs; i++) if (maybe_double(D, e->u.call.args[i])) return 1;
        return 0;
    case IR_E_REDUCE: return 1;
    default: return 0;
    }
}

static void find_double_lets(dlets *D, const ir_block *b)
{
    for (int i = 0; b && i < b->n; i++) {
        const ir_stmt *s = b->stmts[i];
        if (s->kind == IR_S_LET && maybe_double(D, s->u.let.value) && D->n < 256) D->name[D->n++] = s->u.let.var;
        if (s->kind == IR_S_IF) { find_double_lets(D, s->u.if_.then_blk); find_double_lets(D, s->u.if_.else_blk); }
        if (s->kind == IR_S_FOR) find_double_lets(D, s->u.for_.body);
    }
}

/* Is e a comparison of two literals that holds (`0 == 0`: a conjunct whose loop isl fixed)? */
static int holds_const(const ir_expr *e)
{
    if (e->kind != IR_E_BINARY || !is_cmp(e->u.op.op) || e->u.op.a->kind != IR_E_INT || e->u.op.b->kind != IR_E_INT)
        return 0;
    int64_t a = e->u.op.a->u.ival, b = e->u.op.b->u.ival;
    switch (e->u.op.op) {
    case IR_OP_EQ: return a == b;
    case IR_OP_NE: return a != b;
    case IR_OP_LT: return a < b;
    case IR_OP_LE: return a <= b;
    case IR_OP_GT: return a > b;
    case IR_OP_GE: return a >= b;
    default: return 0;
    }
}

/* A guard: its integer comparisons simplified, its logical structure kept (a conjunct that
 * holds whatever the values dropped). */
static ir_expr *simp_cond(ir_program *p, const dlets *D, ir_expr *e)
{
    if (!e) return NULL;
    if (e->kind == IR_E_BINARY && (e->u.op.op == IR_OP_AND || e->u.op.op == IR_OP_OR)) {
        e->u.op.a = simp_cond(p, D, e->u.op.a);
        e->u.op.b = simp_cond(p, D, e->u.op.b);
        if (e->u.op.op == IR_OP_AND && holds_const(e->u.op.b)) return e->u.op.a;
        if (e->u.op.op == IR_OP_AND && holds_const(e->u.op.a)) return e->u.op.b;
        return e;
    }
    if (e->kind == IR_E_UNARY && e->u.op.op == IR_OP_NOT) { e->u.op.a = simp_cond(p, D, e->u.op.a); return e; }
    if (e->kind == IR_E_BINARY && is_cmp(e->u.op.op) && !maybe_double(D, e)) return shorter(p, e);
    return e;
}

/* Subscripts only, inside a double expression. */
static void simp_subscripts(ir_program *p, ir_expr *e)
{
    if (!e) return;
    switch (e->kind) {
    case IR_E_ACCESS: for (int i = 0; i < e->u.access.nidx; i++) e->u.access.idx[i] = shorter(p, e->u.access.idx[i]); break;
    case IR_E_UNARY: case IR_E_BINARY: simp_subscripts(p, e->u.op.a); simp_subscripts(p, e->u.op.b); break;
    case IR_E_CALL: for (int i = 0; i < e->u.call.nargs; i++) simp_subscripts(p, e->u.call.args[i]); break;
    case IR_E_REDUCE:
        e->u.reduce.lo = shorter(p, e->u.reduce.lo);
        e->u.reduce.hi = shorter(p, e->u.reduce.hi);
        simp_subscripts(p, e->u.reduce.body);
        break;
    default: break;
    }
}

static void simp_block(ir_program *p, const dlets *D, ir_block *b);
static void simp_stmt(ir_program *p, const dlets *D, ir_stmt *s)
{
    switch (s->kind) {
    case IR_S_ASSIGN: simp_subscripts(p, s->u.assign.lhs); simp_subscripts(p, s->u.assign.rhs); break;
    case IR_S_LET: simp_subscripts(p, s->u.let.value); break;
    case IR_S_IF:
        s->u.if_.cond = simp_cond(p, D, s->u.if_.cond);
        simp_block(p, D, s->u.if_.then_blk);
        simp_block(p, D, s->u.if_.else_blk);
        break;
    case IR_S_FOR:   /* loop bounds stay as tile wrote them (xf_tiling_recognise reads them) */
        simp_block(p, D, s->u.for_.body);
        break;
    case IR_S_SEND:
        simp_subscripts(p, s->u.send.what);
        s->u.send.to_lo = shorter(p, s->u.send.to_lo);
        s->u.send.to_hi = shorter(p, s->u.send.to_hi);
        s->u.send.at = shorter(p, s->u.send.at);
        s->u.send.when = simp_cond(p, D, s->u.send.when);
        for (int i = 0; i < s->u.send.nas; i++) s->u.send.as_idx[i] = shorter(p, s->u.send.as_idx[i]);
        break;
    case IR_S_COLL:  /* a block's range and a transpose's condition (redist makes them) */
        for (int i = 0; i < s->u.coll.nsrc && s->u.coll.src_lo; i++)
            if (s->u.coll.src_lo[i]) {
                s->u.coll.src_lo[i] = shorter(p, s->u.coll.src_lo[i]);
                s->u.coll.src_hi[i] = shorter(p, s->u.coll.src_hi[i]);
            }
        for (int i = 0; i < s->u.coll.ndst && s->u.coll.dst_lo; i++)
            if (s->u.coll.dst_lo[i]) {
                s->u.coll.dst_lo[i] = shorter(p, s->u.coll.dst_lo[i]);
                s->u.coll.dst_hi[i] = shorter(p, s->u.coll.dst_hi[i]);
            }
        s->u.coll.when = simp_cond(p, D, s->u.coll.when);
        break;
    case IR_S_RECV:
        break;
    }
}
static void simp_block(ir_program *p, const dlets *D, ir_block *b)
{
    for (int i = 0; b && i < b->n; i++) simp_stmt(p, D, b->stmts[i]);
}

void xf_simplify_program(ir_program *p)
{
    dlets D = {.n = 0};
    find_double_lets(&D, p->body);
    for (int i = 0; i < p->ndecls; i++) {
        ir_decl *d = p->decls[i];
        if (d->kind != IR_D_DIST || d->u.dist.dk != IR_DIST_LOCAL) continue;
        for (int k = 0; k < d->u.dist.ndims; k++)
            if (d->u.dist.offset) d->u.dist.offset[k] = shorter(p, d->u.dist.offset[k]);
        for (int pi = 0; pi <= d->u.dist.nmore; pi++) {
            ir_dist_piece pc = ir_dist_get_piece(d, pi);   /* shares the declaration's arrays */
            for (int k = 0; k < d->u.dist.ndims; k++) {
                pc.lo[k] = shorter(p, pc.lo[k]);
                pc.hi[k] = shorter(p, pc.hi[k]);
                if (pc.step) {
                    pc.step[k] = shorter(p, pc.step[k]);
                    pc.block[k] = shorter(p, pc.block[k]);
                }
            }
        }
    }
    simp_block(p, &D, p->body);
}
