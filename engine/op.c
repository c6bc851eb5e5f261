/*
 * op.c — operators of collectives (see op.h): the table of built-in operators and their
 * properties, the evaluation of user-defined operators' clauses, `repeat`, and the checks of a
 * user operator's declared properties on sampled values.
 *
 * Integer semantics of clause expressions are the language's (check.c, sim_exec.c): / is floor
 * division, % the matching remainder; overflow and division by zero are runtime errors.
 * Built-in integer operators wrap on overflow (as MPI's do in two's complement).
 */
#include "intsem.h"
#include "op.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the table of built-in operators -------------------------------------------------------- */

static const struct {
    const char *name;
    int int_only;
    int associative, commutative;
    double ticks;                 /* base operations per application */
} builtins[IR_BOP_COUNT] = {
    [IR_BOP_ADD] = { "+", 0, 1, 1, 1 },      [IR_BOP_MUL] = { "*", 0, 1, 1, 1 },
    [IR_BOP_MAX] = { "max", 0, 1, 1, 1 },    [IR_BOP_MIN] = { "min", 0, 1, 1, 1 },
    [IR_BOP_AND] = { "and", 1, 1, 1, 1 },    [IR_BOP_OR] = { "or", 1, 1, 1, 1 },
    [IR_BOP_BAND] = { "band", 1, 1, 1, 1 },  [IR_BOP_BOR] = { "bor", 1, 1, 1, 1 },
    [IR_BOP_BXOR] = { "bxor", 1, 1, 1, 1 },
};

/* Left distributivity outer(a, inner(b, c)) = inner(outer(a, b), outer(a, c)), exact on 64-bit
 * integers (on doubles up to rounding); tests/unit/test_coll.c checks every entry, true and
 * false, by brute force.  `and` and `or` over `*` hold on small values but not under wrap-around
 * (and(1, 2^32 * 2^32) = 0, and(1, 2^32) * and(1, 2^32) = 1), so they are not in the table. */
#define D(o, i) [IR_BOP_##o][IR_BOP_##i] = 1
static const unsigned char distributes[IR_BOP_COUNT][IR_BOP_COUNT] = {
    D(MUL, ADD),
    D(ADD, MAX), D(ADD, MIN),
    D(MAX, MAX), D(MAX, MIN), D(MIN, MIN), D(MIN, MAX),
    D(AND, AND), D(AND, OR), D(AND, BOR), D(OR, OR), D(OR, AND), D(OR, BOR),
    D(BAND, BAND), D(BAND, BOR), D(BAND, BXOR), D(BOR, BOR), D(BOR, BAND),
};
#undef D

const char *op_builtin_name(ir_bop b) { return (unsigned)b < IR_BOP_COUNT ? builtins[b].name : "?"; }

int op_builtin_find(const char *name)
{
    for (int i = 0; name && i < IR_BOP_COUNT; i++)
        if (strcmp(name, builtins[i].name) == 0) return i;
    return -1;
}

int op_builtin_int_only(ir_bop b) { return (unsigned)b < IR_BOP_COUNT && builtins[b].int_only; }
double op_builtin_ticks(ir_bop b) { return (unsigned)b < IR_BOP_COUNT ? builtins[b].ticks : 1; }

int64_t op_builtin_apply_i(ir_bop b, int64_t x, int64_t y)
{
    switch (b) {
    case IR_BOP_ADD: return (int64_t)((uint64_t)x + (uint64_t)y);
    case IR_BOP_MUL: return (int64_t)((uint64_t)x * (uint64_t)y);
    case IR_BOP_MAX: return y > x ? y : x;
    case IR_BOP_MIN: return y < x ? y : x;
    case IR_BOP_AND: return x != 0 && y != 0;
    case IR_BOP_OR: return x != 0 || y != 0;
    case IR_BOP_BAND: return x & y;
    case IR_BOP_BOR: return x | y;
    case IR_BOP_BXOR: return x ^ y;
    case IR_BOP_COUNT: break;
    }
    return 0;
}

double op_builtin_apply_d(ir_bop b, double x, double y)
{
    switch (b) {
    case IR_BOP_ADD: return x + y;
    case IR_BOP_MUL: return x * y;
    case IR_BOP_MAX: return y > x ? y : x;
    case IR_BOP_MIN: return y < x ? y : x;
    case IR_BOP_AND: return x != 0 && y != 0;
    case IR_BOP_OR: return x != 0 || y != 0;
    default: return 0;   /* bitwise operators take integers (the checker refuses doubles) */
    }
}

int64_t op_builtin_ident_i(ir_bop b)
{
    static const int64_t id[IR_BOP_COUNT] = {
        [IR_BOP_ADD] = 0, [IR_BOP_MUL] = 1, [IR_BOP_MAX] = INT64_MIN, [IR_BOP_MIN] = INT64_MAX,
        [IR_BOP_AND] = 1, [IR_BOP_OR] = 0, [IR_BOP_BAND] = -1, [IR_BOP_BOR] = 0, [IR_BOP_BXOR] = 0,
    };
    return (unsigned)b < IR_BOP_COUNT ? id[b] : 0;
}

double op_builtin_ident_d(ir_bop b)
{
    switch (b) {
    case IR_BOP_MUL: case IR_BOP_AND: return 1;
    case IR_BOP_MAX: return -INFINITY;
    case IR_BOP_MIN: return INFINITY;
    default: return 0;
    }
}

/* ---- properties ----------------------------------------------------------------------------- */

static const ir_decl *user_op(const ir_program *p, int u)
{
    return p && u >= 0 && u < p->nops ? p->ops[u] : NULL;
}

static int find_user(const ir_program *p, const char *name)
{
    for (int i = 0; p && name && i < p->nops; i++)
        if (strcmp(p->ops[i]->u.op.name, name) == 0) return i;
    return -1;
}

int op_associative(const ir_program *p, const ir_opref *op)
{
    if (op->builtin >= 0) return builtins[op->builtin].associative;
    const ir_decl *d = user_op(p, op->user);
    return d ? d->u.op.associative : -1;
}

int op_commutative(const ir_program *p, const ir_opref *op)
{
    if (op->builtin >= 0) return builtins[op->builtin].commutative;
    const ir_decl *d = user_op(p, op->user);
    return d ? d->u.op.commutative : -1;
}

static int same_op(const ir_opref *a, const ir_opref *b)
{
    return a->builtin >= 0 ? a->builtin == b->builtin : (a->user >= 0 && a->user == b->user);
}

int op_distributes(const ir_program *p, const ir_opref *outer, const ir_opref *inner)
{
    if (outer->builtin >= 0 && inner->builtin >= 0) return distributes[outer->builtin][inner->builtin];
    const ir_decl *d = user_op(p, outer->user);
    if (!d) return outer->builtin >= 0 ? 0 : -1;
    for (int i = 0; i < d->u.op.nitems; i++) {
        const ir_opitem *it = &d->u.op.items[i];
        if (it->kind == IR_OI_DISTRIBUTES && same_op(&it->over, inner)) return 1;
    }
    return 0;
}

static ir_opref ref_by_name(const ir_program *p, const char *name)
{
    ir_opref r = { name, { 0, 0 }, op_builtin_find(name), -1 };
    if (r.builtin < 0) r.user = find_user(p, name);
    return r;
}

int op_distributes_names(const ir_program *p, const char *outer, const char *inner)
{
    ir_opref a = ref_by_name(p, outer), b = ref_by_name(p, inner);
    if ((a.builtin < 0 && a.user < 0) || (b.builtin < 0 && b.user < 0)) return -1;
    return op_distributes(p, &a, &b);
}

int op_commutative_name(const ir_program *p, const char *name)
{
    ir_opref a = ref_by_name(p, name);
    return a.builtin < 0 && a.user < 0 ? -1 : op_commutative(p, &a);
}

int op_associative_name(const ir_program *p, const char *name)
{
    ir_opref a = ref_by_name(p, name);
    return a.builtin < 0 && a.user < 0 ? -1 : op_associative(p, &a);
}

/* ---- clause shapes -------------------------------------------------------------------------- */

int op_state_arity(const ir_program *p, int u)
{
    const ir_decl *d = user_op(p, u);
    return d && d->u.op.state ? d->u.op.state->nfields : 0;
}

int op_in_arity(const ir_program *p, int u)
{
    const ir_decl *d = user_op(p, u);
    return d && d->u.op.in ? d->u.op.in->nfields : 0;
}

ir_type op_state_type(const ir_program *p, int u, int i)
{
    const ir_decl *d = user_op(p, u);
    return d && d->u.op.state && i >= 0 && i < d->u.op.state->nfields ? d->u.op.state->fields[i].type : IR_INT;
}

int op_clause_arity(const ir_program *p, int u, ir_clause_kind k)
{
    const ir_decl *d = user_op(p, u);
    return d && (unsigned)k < IR_K_COUNT && d->u.op.clause[k] ? d->u.op.clause[k]->nval : 0;
}

/* Base operations of an expression (see op_clause_ops). */
static double expr_ops(const ir_expr *e)
{
    if (!e) return 0;
    double t = 0;
    switch (e->kind) {
    case IR_E_UNARY: return expr_ops(e->u.op.a) + 1;
    case IR_E_BINARY: return expr_ops(e->u.op.a) + expr_ops(e->u.op.b) + 1;
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++) t += expr_ops(e->u.call.args[i]);
        if (e->u.call.f == IR_F_MIN || e->u.call.f == IR_F_MAX) return t + e->u.call.nargs - 1;
        return t + 1;
    default: return 0;
    }
}

static int expr_uses_slot(const ir_expr *e, int slot)
{
    if (!e) return 0;
    switch (e->kind) {
    case IR_E_NAME: return e->u.name.nk == IR_N_OPVAR && e->u.name.index == slot;
    case IR_E_UNARY: case IR_E_BINARY: return expr_uses_slot(e->u.op.a, slot) || expr_uses_slot(e->u.op.b, slot);
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++) if (expr_uses_slot(e->u.call.args[i], slot)) return 1;
        return 0;
    default: return 0;
    }
}

int op_clause_fields_used(const ir_program *p, int u, ir_clause_kind k, int pat)
{
    assert(pat == 0 || pat == 1);
    const ir_decl *d = user_op(p, u);
    const ir_opitem *it = d && (unsigned)k < IR_K_COUNT ? d->u.op.clause[k] : NULL;
    if (!it || pat < 0 || pat >= it->npats || !it->pats[pat].slots) return 0;
    int n = 0;
    for (int i = 0; i < it->pats[pat].n; i++) {
        int used = 0;
        for (int j = 0; j < it->nlets && !used; j++) used = expr_uses_slot(it->letv[j], it->pats[pat].slots[i]);
        for (int j = 0; j < it->nval && !used; j++) used = expr_uses_slot(it->val[j], it->pats[pat].slots[i]);
        n += used;
    }
    return n;
}

double op_clause_ops(const ir_program *p, int u, ir_clause_kind k)
{
    const ir_decl *d = user_op(p, u);
    const ir_opitem *it = d && (unsigned)k < IR_K_COUNT ? d->u.op.clause[k] : NULL;
    if (!it) return 0;
    double t = 0;
    for (int i = 0; i < it->nlets; i++) t += expr_ops(it->letv[i]);
    for (int i = 0; i < it->nval; i++) t += expr_ops(it->val[i]);
    return t;
}

/* ---- evaluation ----------------------------------------------------------------------------- */

struct op_env {
    const ir_program *p;
    int64_t *fi;
    double *fd;
    int err;
    char msg[160];
};

op_env *op_env_new(const ir_program *p)
{
    op_env *E = calloc(1, sizeof *E);
    if (!E) return NULL;
    size_t n = (size_t)(p->nslots > 0 ? p->nslots : 1);
    E->p = p;
    E->fi = calloc(n, sizeof *E->fi);
    E->fd = calloc(n, sizeof *E->fd);
    if (!E->fi || !E->fd) {
        op_env_free(E);
        return NULL;
    }
    return E;
}

void op_env_free(op_env *E)
{
    if (!E) return;
    free(E->fi);
    free(E->fd);
    free(E);
}

static void everr(op_env *E, const ir_expr *e, const char *what)
{
    if (E->err++) return;
    snprintf(E->msg, sizeof E->msg, "%s at %d:%d", what, e ? e->pos.line : 0, e ? e->pos.col : 0);
}

static int64_t ev_i(op_env *E, const ir_expr *e);
static double ev_d(op_env *E, const ir_expr *e);

static int truth(op_env *E, const ir_expr *e)
{
    return e->type == IR_DOUBLE ? ev_d(E, e) != 0 : ev_i(E, e) != 0;
}

/* An integer result of intsem.h: the value, or 0 after recording its error at e. */
static int64_t ichk(op_env *E, const ir_expr *e, int status, const int64_t *v)
{
    if (status) { everr(E, e, intsem_message(status)); return 0; }
    return *v;
}

static int64_t ev_i(op_env *E, const ir_expr *e)
{
    if (!e || E->err) return 0;
    if (e->type == IR_DOUBLE) return (int64_t)ev_d(E, e);
    int64_t r = 0;
    switch (e->kind) {
    case IR_E_INT: return e->u.ival;
    case IR_E_NAME: return e->u.name.index >= 0 ? E->fi[e->u.name.index] : 0;
    case IR_E_UNARY:
        if (e->u.op.op == IR_OP_NOT) return !truth(E, e->u.op.a);
        r = ev_i(E, e->u.op.a);
        return ichk(E, e, intsem_neg(r, &r), &r);
    case IR_E_BINARY: {
        const ir_expr *a = e->u.op.a, *b = e->u.op.b;
        ir_op o = e->u.op.op;
        if (o == IR_OP_AND) return truth(E, a) && truth(E, b);
        if (o == IR_OP_OR) return truth(E, a) || truth(E, b);
        if (o >= IR_OP_LT && o <= IR_OP_NE && (a->type == IR_DOUBLE || b->type == IR_DOUBLE)) {
            double x = ev_d(E, a), y = ev_d(E, b);
            return o == IR_OP_LT ? x < y : o == IR_OP_LE ? x <= y : o == IR_OP_GT ? x > y
                 : o == IR_OP_GE ? x >= y : o == IR_OP_EQ ? x == y : x != y;
        }
        int64_t x = ev_i(E, a), y = ev_i(E, b);
        switch (o) {
        case IR_OP_ADD: return ichk(E, e, intsem_add(x, y, &r), &r);
        case IR_OP_SUB: return ichk(E, e, intsem_sub(x, y, &r), &r);
        case IR_OP_MUL: return ichk(E, e, intsem_mul(x, y, &r), &r);
        case IR_OP_DIV: return ichk(E, e, intsem_floordiv(x, y, &r), &r);
        case IR_OP_MOD: return ichk(E, e, intsem_floormod(x, y, &r), &r);
        case IR_OP_LT: return x < y;
        case IR_OP_LE: return x <= y;
        case IR_OP_GT: return x > y;
        case IR_OP_GE: return x >= y;
        case IR_OP_EQ: return x == y;
        case IR_OP_NE: return x != y;
        default: return 0;
        }
    }
    case IR_E_CALL: {
        ir_expr *const *v = e->u.call.args;
        int n = e->u.call.nargs;
        if (n < 1) return 0;
        switch (e->u.call.f) {
        case IR_F_MIN: case IR_F_MAX:
            r = ev_i(E, v[0]);
            for (int i = 1; i < n; i++) {
                int64_t w = ev_i(E, v[i]);
                if (e->u.call.f == IR_F_MIN ? w < r : w > r) r = w;
            }
            return r;
        case IR_F_FLOOR: case IR_F_CEIL:
            if (v[0]->kind == IR_E_BINARY && v[0]->u.op.op == IR_OP_DIV && v[0]->type == IR_INT) {
                int64_t x = ev_i(E, v[0]->u.op.a), y = ev_i(E, v[0]->u.op.b);
                return ichk(E, v[0], e->u.call.f == IR_F_CEIL ? intsem_ceildiv(x, y, &r)
                                                              : intsem_floordiv(x, y, &r), &r);
            }
            return ev_i(E, v[0]);
        case IR_F_ABS:
            r = ev_i(E, v[0]);
            return ichk(E, e, intsem_abs(r, &r), &r);
        case IR_F_ISQRT: {
            r = ev_i(E, v[0]);
            return ichk(E, e, intsem_isqrt(r, &r), &r);
        }
        case IR_F_SELECT: return n == 3 ? (truth(E, v[0]) ? ev_i(E, v[1]) : ev_i(E, v[2])) : 0;
        case IR_F_BAND: return n == 2 ? ev_i(E, v[0]) & ev_i(E, v[1]) : 0;
        case IR_F_BOR: return n == 2 ? ev_i(E, v[0]) | ev_i(E, v[1]) : 0;
        case IR_F_BXOR: return n == 2 ? ev_i(E, v[0]) ^ ev_i(E, v[1]) : 0;
        case IR_F_SQRT: case IR_F_SIN: case IR_F_COS: case IR_F_TAN: case IR_F_EXP: case IR_F_LOG:
        case IR_F_POW:
            return (int64_t)ev_d(E, e);
        case IR_F_CRAND: case IR_F_CLRAND48: case IR_F_CDRAND48:
            everr(E, e, "random numbers are not allowed in an operator clause");
            return 0;
        }
        return 0;
    }
    default:
        everr(E, e, "this expression is not allowed in an operator clause");
        return 0;
    }
}

static double ev_d(op_env *E, const ir_expr *e)
{
    if (!e || E->err) return 0;
    if (e->type != IR_DOUBLE) return (double)ev_i(E, e);
    switch (e->kind) {
    case IR_E_REAL: return e->u.rval;
    case IR_E_NAME: return e->u.name.index >= 0 ? E->fd[e->u.name.index] : 0;
    case IR_E_UNARY: return -ev_d(E, e->u.op.a);
    case IR_E_BINARY: {
        double x = ev_d(E, e->u.op.a), y = ev_d(E, e->u.op.b);
        switch (e->u.op.op) {
        case IR_OP_ADD: return x + y;
        case IR_OP_SUB: return x - y;
        case IR_OP_MUL: return x * y;
        case IR_OP_DIV: return x / y;
        default: return 0;
        }
    }
    case IR_E_CALL: {
        ir_expr *const *v = e->u.call.args;
        int n = e->u.call.nargs;
        if (n < 1) return 0;
        double r;
        switch (e->u.call.f) {
        case IR_F_MIN: case IR_F_MAX:
            r = ev_d(E, v[0]);
            for (int i = 1; i < n; i++) {
                double w = ev_d(E, v[i]);
                if (e->u.call.f == IR_F_MIN ? w < r : w > r) r = w;
            }
            return r;
        case IR_F_FLOOR: return floor(ev_d(E, v[0]));
        case IR_F_CEIL: return ceil(ev_d(E, v[0]));
        case IR_F_ABS: return fabs(ev_d(E, v[0]));
        case IR_F_SQRT: return sqrt(ev_d(E, v[0]));
        case IR_F_SIN: case IR_F_COS: case IR_F_TAN: case IR_F_EXP: case IR_F_LOG: case IR_F_POW:
            return ir_libm_call(e->u.call.f, ev_d(E, v[0]), n > 1 ? ev_d(E, v[1]) : 0);
        case IR_F_SELECT: return n == 3 ? (truth(E, v[0]) ? ev_d(E, v[1]) : ev_d(E, v[2])) : 0;
        default: return (double)ev_i(E, e);
        }
    }
    default:
        everr(E, e, "this expression is not allowed in an operator clause");
        return 0;
    }
}

/* Types of a clause's first and second tuple. */
static const ir_opitem *pattern_tuple(const ir_decl *d, ir_clause_kind k, int which)
{
    if (which == 0) return d->u.op.state;
    switch (k) {
    case IR_K_PREACCUM: case IR_K_ACCUM: case IR_K_POSTACCUM: case IR_K_SCANGEN: return d->u.op.in;
    default: return d->u.op.state;
    }
}

static void bind(op_env *E, const ir_pattern *pt, const ir_opitem *tuple, const op_value *v)
{
    for (int i = 0; i < pt->n && tuple && i < tuple->nfields; i++) {
        int s = pt->slots ? pt->slots[i] : -1;
        if (s < 0) continue;
        if (tuple->fields[i].type == IR_DOUBLE) E->fd[s] = v[i].d;
        else E->fi[s] = v[i].i;
    }
}

int op_apply(op_env *E, int u, ir_clause_kind k, const op_value *a, const op_value *b,
             op_value *out, char *err, size_t errn)
{
    const ir_decl *d = user_op(E->p, u);
    const ir_opitem *it = d && (unsigned)k < IR_K_COUNT ? d->u.op.clause[k] : NULL;
    if (!it) {
        if (err) snprintf(err, errn, "operator '%s' has no %s clause", d ? d->u.op.name : "?",
                          ir_clause_name(k));
        return -1;
    }
    E->err = 0;
    if (it->npats > 0 && a) bind(E, &it->pats[0], pattern_tuple(d, k, 0), a);
    if (it->npats > 1 && b) bind(E, &it->pats[1], pattern_tuple(d, k, 1), b);
    for (int i = 0; i < it->nlets; i++) {
        int s = it->letslots ? it->letslots[i] : -1;
        if (s < 0) continue;
        if (it->letv[i]->type == IR_DOUBLE) E->fd[s] = ev_d(E, it->letv[i]);
        else E->fi[s] = ev_i(E, it->letv[i]);
    }
    int stateful = k != IR_K_GEN && k != IR_K_SCANGEN;
    for (int i = 0; i < it->nval; i++) {
        ir_type t = stateful && d->u.op.state && i < d->u.op.state->nfields
                  ? d->u.op.state->fields[i].type : it->val[i]->type;
        if (t == IR_DOUBLE) out[i].d = ev_d(E, it->val[i]);
        else out[i].i = ev_i(E, it->val[i]);
    }
    if (E->err) {
        if (err) snprintf(err, errn, "operator '%s', clause %s: %s", d->u.op.name, ir_clause_name(k), E->msg);
        return -1;
    }
    return 0;
}

int op_repeat(op_env *E, int u, int64_t k, op_value *st, char *err, size_t errn)
{
    int n = op_state_arity(E->p, u);
    op_value tmp[OP_MAX_FIELDS];
    if (k < 0) {
        if (err) snprintf(err, errn, "repeat with a negative count %lld", (long long)k);
        return -1;
    }
    while (k > 0) {
        if (op_apply(E, u, k % 2 == 0 ? IR_K_EVEN : IR_K_ODD, st, NULL, tmp, err, errn) != 0) return -1;
        memcpy(st, tmp, (size_t)n * sizeof *st);
        k /= 2;
    }
    return 0;
}

/* ---- sample checks -------------------------------------------------------------------------- */

enum { NSAMPLES = 10, NSTATES = 10 };
static const int64_t samples[NSAMPLES] = { 3, -2, 0, 7, 1, -5, 2, 4, -1, 6 };

static int tuple_eq(const ir_opitem *t, const op_value *a, const op_value *b)
{
    for (int i = 0; i < t->nfields; i++) {
        if (t->fields[i].type == IR_DOUBLE ? a[i].d != b[i].d : a[i].i != b[i].i) return 0;
    }
    return 1;
}

static void tuple_fmt(const ir_opitem *t, const op_value *v, char *buf, size_t n)
{
    size_t l = 0;
    if (t->nfields != 1) l += (size_t)snprintf(buf + l, n - l, "(");
    for (int i = 0; i < t->nfields && l < n; i++) {
        if (t->fields[i].type == IR_DOUBLE)
            l += (size_t)snprintf(buf + l, n - l, "%s%.17g", i ? ", " : "", v[i].d);
        else
            l += (size_t)snprintf(buf + l, n - l, "%s%lld", i ? ", " : "", (long long)v[i].i);
    }
    if (t->nfields != 1 && l < n) snprintf(buf + l, n - l, ")");
}

static void fill_sample(const ir_opitem *t, op_value *v, int seed)
{
    for (int j = 0; t && j < t->nfields; j++) {
        int64_t x = samples[(seed * 7 + j * 3 + seed * j) % NSAMPLES];
        if (t->fields[j].type == IR_DOUBLE) v[j].d = (double)x;
        else v[j].i = x;
    }
}

/* Sample states: accumulations of sampled input blocks of 0..3 elements (operators with `in`),
 * or sampled tuples.  Returns the number made (states whose evaluation failed are left out). */
static int sample_states(op_env *E, int u, op_value st[][OP_MAX_FIELDS])
{
    const ir_decl *d = E->p->ops[u];
    const ir_opitem *in = d->u.op.in;
    int n = 0;
    for (int s = 0; s < NSTATES; s++) {
        op_value cur[OP_MAX_FIELDS], nxt[OP_MAX_FIELDS], x[OP_MAX_FIELDS];
        if (!in) {
            fill_sample(d->u.op.state, st[n++], s);
            continue;
        }
        if (op_apply(E, u, IR_K_IDENT, NULL, NULL, cur, NULL, 0) != 0) return n;
        int len = s % 4, ok = 1;
        for (int i = 0; i < len && ok; i++) {
            fill_sample(in, x, s * 5 + i);
            if (i == 0 && d->u.op.clause[IR_K_PREACCUM]) {
                ok = op_apply(E, u, IR_K_PREACCUM, cur, x, nxt, NULL, 0) == 0;
                memcpy(cur, nxt, sizeof cur);
            }
            ok = ok && op_apply(E, u, IR_K_ACCUM, cur, x, nxt, NULL, 0) == 0;
            memcpy(cur, nxt, sizeof cur);
            if (i == len - 1 && ok && d->u.op.clause[IR_K_POSTACCUM]) {
                ok = op_apply(E, u, IR_K_POSTACCUM, cur, x, nxt, NULL, 0) == 0;
                memcpy(cur, nxt, sizeof cur);
            }
        }
        if (ok) memcpy(st[n++], cur, sizeof cur);
    }
    return n;
}

static int diag_at(diag_list *d, const ir_program *p, ir_pos pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int diag_at(diag_list *d, const ir_program *p, ir_pos pos, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    diag_add(d, p->file, pos.line, pos.col, "%s", buf);
    return 1;
}

/* a (+) b for operator `r` on one-field tuples (built-in or user). */
static int apply_any(op_env *E, const ir_opref *r, ir_type t, const op_value *a, const op_value *b,
                     op_value *out)
{
    if (r->builtin >= 0) {
        if (t == IR_DOUBLE) out->d = op_builtin_apply_d((ir_bop)r->builtin, a->d, b->d);
        else out->i = op_builtin_apply_i((ir_bop)r->builtin, a->i, b->i);
        return 0;
    }
    return op_apply(E, r->user, IR_K_COMBINE, a, b, out, NULL, 0);
}

int op_check_samples(const ir_program *p, int u, diag_list *d)
{
    const ir_decl *od = p->ops[u];
    const char *nm = od->u.op.name;
    const ir_opitem *st = od->u.op.state;
    const ir_opitem *comb = od->u.op.clause[IR_K_COMBINE], *ident = od->u.op.clause[IR_K_IDENT];
    if (!st || st->nfields > OP_MAX_FIELDS || !comb) return 0;
    op_env *E = op_env_new(p);
    if (!E) return 0;
    int errs = 0;
    op_value S[NSTATES][OP_MAX_FIELDS];
    op_value r1[OP_MAX_FIELDS], r2[OP_MAX_FIELDS], t[OP_MAX_FIELDS], id[OP_MAX_FIELDS];
    char a[256], b[256], c[256], x[256];
    int n = sample_states(E, u, S);

    if (ident && op_apply(E, u, IR_K_IDENT, NULL, NULL, id, NULL, 0) == 0) {
        for (int i = 0; i < n && !errs; i++) {
            for (int side = 0; side < 2 && !errs; side++) {
                if (op_apply(E, u, IR_K_COMBINE, side ? S[i] : id, side ? id : S[i], r1, NULL, 0) != 0)
                    continue;
                if (tuple_eq(st, r1, S[i])) continue;
                tuple_fmt(st, S[i], a, sizeof a);
                tuple_fmt(st, id, b, sizeof b);
                tuple_fmt(st, r1, c, sizeof c);
                errs += diag_at(d, p, ident->pos, "operator '%s': ident %s is not a two-sided identity: "
                                "combine(%s, %s) = %s, not %s", nm, b, side ? a : "ident",
                                side ? "ident" : a, c, a);
            }
        }
    }
    if (od->u.op.associative) {
        for (int i = 0; i < n && errs < 2; i++)
            for (int j = 0; j < n && errs < 2; j++)
                for (int k = 0; k < n && errs < 2; k++) {
                    if (op_apply(E, u, IR_K_COMBINE, S[i], S[j], t, NULL, 0) != 0 ||
                        op_apply(E, u, IR_K_COMBINE, t, S[k], r1, NULL, 0) != 0 ||
                        op_apply(E, u, IR_K_COMBINE, S[j], S[k], t, NULL, 0) != 0 ||
                        op_apply(E, u, IR_K_COMBINE, S[i], t, r2, NULL, 0) != 0)
                        continue;
                    if (tuple_eq(st, r1, r2)) continue;
                    tuple_fmt(st, S[i], a, sizeof a);
                    tuple_fmt(st, S[j], b, sizeof b);
                    tuple_fmt(st, S[k], c, sizeof c);
                    char y[256];
                    tuple_fmt(st, r1, x, sizeof x);
                    tuple_fmt(st, r2, y, sizeof y);
                    errs += diag_at(d, p, comb->pos, "operator '%s': combine is not associative: with "
                                    "a = %s, b = %s, c = %s, combine(combine(a, b), c) = %s but "
                                    "combine(a, combine(b, c)) = %s (declare it nonassociative if that is "
                                    "meant)", nm, a, b, c, x, y);
                    i = j = k = n;
                }
    }
    if (od->u.op.commutative == 1) {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                if (op_apply(E, u, IR_K_COMBINE, S[i], S[j], r1, NULL, 0) != 0 ||
                    op_apply(E, u, IR_K_COMBINE, S[j], S[i], r2, NULL, 0) != 0 || tuple_eq(st, r1, r2))
                    continue;
                tuple_fmt(st, S[i], a, sizeof a);
                tuple_fmt(st, S[j], b, sizeof b);
                errs += diag_at(d, p, comb->pos, "operator '%s' is declared commutative, but combine(%s, "
                                "%s) != combine(%s, %s)", nm, a, b, b, a);
                i = j = n;
            }
    }
    for (int q = 0; q < od->u.op.nitems; q++) {
        const ir_opitem *it = &od->u.op.items[q];
        if (it->kind != IR_OI_DISTRIBUTES) continue;
        int ok = st->nfields == 1 && (it->over.builtin >= 0 || op_state_arity(p, it->over.user) == 1);
        ir_type ty = st->fields[0].type;
        if (ok && it->over.user >= 0 && op_state_type(p, it->over.user, 0) != ty) ok = 0;
        if (!ok) {
            errs += diag_at(d, p, it->pos, "operator '%s': 'distributes over' needs both operators to "
                            "have one field of the same type", nm);
            continue;
        }
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                for (int k = 0; k < n; k++) {
                    op_value bc, ab, ac;
                    if (apply_any(E, &it->over, ty, S[j], S[k], &bc) != 0 ||
                        op_apply(E, u, IR_K_COMBINE, S[i], &bc, r1, NULL, 0) != 0 ||
                        op_apply(E, u, IR_K_COMBINE, S[i], S[j], &ab, NULL, 0) != 0 ||
                        op_apply(E, u, IR_K_COMBINE, S[i], S[k], &ac, NULL, 0) != 0 ||
                        apply_any(E, &it->over, ty, &ab, &ac, r2) != 0 || tuple_eq(st, r1, r2))
                        continue;
                    tuple_fmt(st, S[i], a, sizeof a);
                    tuple_fmt(st, S[j], b, sizeof b);
                    tuple_fmt(st, S[k], c, sizeof c);
                    errs += diag_at(d, p, it->pos, "operator '%s' does not distribute over '%s': a = %s, "
                                    "b = %s, c = %s", nm, it->over.name, a, b, c);
                    i = j = k = n;
                }
    }
    op_env_free(E);
    return errs;
}
