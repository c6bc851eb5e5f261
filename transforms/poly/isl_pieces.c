/*
 * isl_pieces.c — an integer expression that is affine piece by piece, as isl text.
 *
 * Communication generation writes a destination that changes form at a condition as a product
 * with the condition: `(n >= t + 1) * t + i - (n >= t + 1) * i` is t before the last step and i
 * at it.  isl reads no product of a condition and a variable, but on each side of the condition
 * the expression is affine.  Its pieces are (condition, affine value) pairs whose conditions
 * cover every point; "v equals e" is then the disjunction of `condition and v = value`.
 * A condition used as a number is 1 where it holds and 0 elsewhere (the language's rule).
 *
 * Pieces multiply with every binary operation (a sum of two products with two conditions:
 * four), so their number is bounded; an expression over it, or with a part isl cannot read
 * otherwise, has no pieces, and its reader keeps the coarser set it had without it.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "poly_int.h"

enum { PIECES_MAX = 16 };

typedef struct piece {
    char *cond;      /* isl text; NULL: everywhere */
    char *val;       /* isl text of the value */
    int is_k;        /* the value is the integer k */
    int64_t k;
} piece;

typedef struct pieces { piece p[PIECES_MAX]; int n; } pieces;

static void pieces_free(pieces *ps)
{
    for (int i = 0; i < ps->n; i++) {
        free(ps->p[i].cond);
        free(ps->p[i].val);
    }
    ps->n = 0;
}

static int pieces_add(pieces *ps, own_take char *cond, own_take char *val, int is_k, int64_t k)
{
    if (ps->n == PIECES_MAX) {
        free(cond);
        free(val);
        return -1;
    }
    ps->p[ps->n++] = (piece){ cond, val ? val : xasprintf("%" PRId64, k), is_k, k };
    return 0;
}

static int is_condition(const ir_expr *e)
{
    if (e->kind == IR_E_UNARY) return e->u.op.op == IR_OP_NOT;
    if (e->kind != IR_E_BINARY) return 0;
    switch (e->u.op.op) {
    case IR_OP_LT: case IR_OP_LE: case IR_OP_GT: case IR_OP_GE: case IR_OP_EQ: case IR_OP_NE:
    case IR_OP_AND: case IR_OP_OR:
        return 1;
    default:
        return 0;
    }
}

/* xf_isl_expr writes `(n >= t + 1) * (t)`, which isl does not read: such a part is taken apart. */
int xf_has_condition(const ir_expr *e, const xf_frame *fr, int nfr)
{
    if (!e) return 0;
    switch (e->kind) {
    case IR_E_NAME:
        if (e->u.name.nk != IR_N_LET) return 0;
        const ir_expr *v = xf_find_let(e->u.name.id, fr, nfr);
        return !v || xf_has_condition(v, fr, nfr);
    case IR_E_UNARY: return is_condition(e) || xf_has_condition(e->u.op.a, fr, nfr);
    case IR_E_BINARY: return is_condition(e) || xf_has_condition(e->u.op.a, fr, nfr) || xf_has_condition(e->u.op.b, fr, nfr);
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++)
            if (xf_has_condition(e->u.call.args[i], fr, nfr)) return 1;
        return 0;
    default:
        return 0;
    }
}

/* Whether condition a is `not (b)`. */
static int cond_negates(const char *a, const char *b)
{
    size_t n = strlen(b);
    return strncmp(a, "not (", 5) == 0 && strncmp(a + 5, b, n) == 0 && strcmp(a + 5 + n, ")") == 0;
}

/* The conjunction of two pieces' conditions (NULL: everywhere); *never set where one is the
 * other's negation (the same condition met twice in one expression). */
static char *cond_and(const char *a, const char *b, int *never)
{
    *never = a && b && (cond_negates(a, b) || cond_negates(b, a));
    if (!a || (b && strcmp(a, b) == 0)) return b ? xstrdup(b) : NULL;
    if (!b) return xstrdup(a);
    return xasprintf("(%s) and (%s)", a, b);
}

/* The value of a op b for two pieces (ADD, SUB, MUL, MIN, MAX), or NULL: a product of two
 * values neither of which is a constant. */
static char *combine(ir_op op, int fn_min, int fn_max, const piece *a, const piece *b, int *is_k, int64_t *k)
{
    *is_k = 0;
    if (fn_min || fn_max) return xasprintf("%s(%s, %s)", fn_min ? "min" : "max", a->val, b->val);
    if (a->is_k && b->is_k && (op == IR_OP_ADD || op == IR_OP_SUB || op == IR_OP_MUL)) {
        *is_k = 1;   /* small constants: 0/1 of conditions times the program's values */
        *k = op == IR_OP_ADD ? a->k + b->k : op == IR_OP_SUB ? a->k - b->k : a->k * b->k;
        return NULL;
    }
    switch (op) {
    case IR_OP_ADD: return xasprintf("(%s) + (%s)", a->val, b->val);
    case IR_OP_SUB: return xasprintf("(%s) - (%s)", a->val, b->val);
    case IR_OP_MUL:   /* isl takes a literal factor bare and at the left */
        if (a->is_k) return xasprintf("%" PRId64 "*(%s)", a->k, b->val);
        if (b->is_k) return xasprintf("%" PRId64 "*(%s)", b->k, a->val);
        return NULL;
    default:
        return NULL;
    }
}

static int pieces_of(const ir_expr *e, const xf_frame *fr, int nfr, pieces *out);

/* out = the pieces of a op b: every pair of a's and b's pieces. */
static int pieces_binary(ir_op op, int fn_min, int fn_max, const ir_expr *a, const ir_expr *b, const xf_frame *fr,
                         int nfr, pieces *out)
{
    pieces pa = {0}, pb = {0};
    int r = pieces_of(a, fr, nfr, &pa) || pieces_of(b, fr, nfr, &pb) ? -1 : 0;
    for (int i = 0; i < pa.n && !r; i++)
        for (int j = 0; j < pb.n && !r; j++) {
            int is_k, never;
            int64_t k = 0;
            char *cond = cond_and(pa.p[i].cond, pb.p[j].cond, &never);
            if (never) {
                free(cond);
                continue;
            }
            char *val = combine(op, fn_min, fn_max, &pa.p[i], &pb.p[j], &is_k, &k);
            if (!val && !is_k) {
                free(cond);
                r = -1;
            } else {
                r = pieces_add(out, cond, val, is_k, k);
            }
        }
    pieces_free(&pa);
    pieces_free(&pb);
    return r;
}

/* out = the pieces of e's quotient (or remainder) by the positive constant d. */
static int pieces_div(const ir_expr *e, const xf_frame *fr, int nfr, pieces *out)
{
    int64_t d;
    int r = xf_isl_const(e->u.op.b, fr, nfr, &d) || d <= 0 ? -1 : 0;
    pieces pa = {0};
    if (!r) r = pieces_of(e->u.op.a, fr, nfr, &pa);
    for (int i = 0; i < pa.n && !r; i++) {
        const char *v = pa.p[i].val;
        char *val = e->u.op.op == IR_OP_DIV ? xasprintf("floor((%s)/%" PRId64 ")", v, d) : xasprintf("((%s) mod %" PRId64 ")", v, d);
        r = pieces_add(out, pa.p[i].cond ? xstrdup(pa.p[i].cond) : NULL, val, 0, 0);
    }
    pieces_free(&pa);
    return r;
}

/* out = the pieces of e (appended to an empty set); 0, or -1 when e has none.  Arithmetic is
 * taken apart (a product may hide a condition anywhere below it), the rest read whole. */
static int pieces_of(const ir_expr *e, const xf_frame *fr, int nfr, pieces *out)
{
    if (is_condition(e)) {   /* 1 where it holds, 0 elsewhere */
        strbuf c = {0};
        int r = xf_isl_expr(&c, e, fr, nfr);
        if (!r) r = pieces_add(out, xasprintf("not (%s)", c.s), NULL, 1, 0);
        if (!r) r = pieces_add(out, strbuf_take(&c), NULL, 1, 1);
        strbuf_free(&c);
        return r;
    }
    if (e->kind == IR_E_BINARY) {
        ir_op op = e->u.op.op;
        if (op == IR_OP_ADD || op == IR_OP_SUB || op == IR_OP_MUL)
            return pieces_binary(op, 0, 0, e->u.op.a, e->u.op.b, fr, nfr, out);
        if (op == IR_OP_DIV || op == IR_OP_MOD) return pieces_div(e, fr, nfr, out);
    }
    if (e->kind == IR_E_UNARY && e->u.op.op == IR_OP_NEG) {
        ir_expr zero = { .kind = IR_E_INT, .u.ival = 0 };
        return pieces_binary(IR_OP_SUB, 0, 0, &zero, e->u.op.a, fr, nfr, out);
    }
    if (e->kind == IR_E_CALL && (e->u.call.f == IR_F_MIN || e->u.call.f == IR_F_MAX) && e->u.call.nargs == 2)
        return pieces_binary(IR_OP_ADD, e->u.call.f == IR_F_MIN, e->u.call.f == IR_F_MAX, e->u.call.args[0],
                             e->u.call.args[1], fr, nfr, out);
    if (e->kind == IR_E_NAME && e->u.name.nk == IR_N_LET) {
        const ir_expr *v = xf_find_let(e->u.name.id, fr, nfr);
        return v ? pieces_of(v, fr, nfr, out) : -1;
    }
    strbuf t = {0};
    if (xf_has_condition(e, fr, nfr) || xf_isl_expr(&t, e, fr, nfr)) {
        strbuf_free(&t);
        return -1;
    }
    int64_t k = 0;
    int is_k = xf_isl_const(e, fr, nfr, &k) == 0;
    return pieces_add(out, NULL, strbuf_take(&t), is_k, k);
}

int xf_isl_equals(strbuf *b, const char *var, const ir_expr *e, const xf_frame *frames, int nframes)
{
    pieces ps = {0};
    int r = pieces_of(e, frames, nframes, &ps);
    strbuf t = {0};
    for (int i = 0; i < ps.n && !r; i++) {
        if (i) strbuf_printf(&t, " or ");
        if (ps.p[i].cond) strbuf_printf(&t, "((%s) and %s = %s)", ps.p[i].cond, var, ps.p[i].val);
        else strbuf_printf(&t, "(%s = %s)", var, ps.p[i].val);
    }
    if (!r && !ps.n) r = -1;
    if (!r) strbuf_printf(b, "(%s)", t.s);
    strbuf_free(&t);
    pieces_free(&ps);
    return r;
}
