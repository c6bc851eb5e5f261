/*
 * consteval.c — constant evaluation (see ir.h): the value of an expression over the parameters
 * alone (ir_const_eval, ir_const_int; ir_const_int_at: and one named value more, a processor's
 * number), a parameter binding given as `name=value`
 * (ir_parse_binding), and the values of a program's parameters with their overrides
 * (ir_params_eval).
 *
 * Integer semantics are intsem.h's (shared with the simulator): / is floor division, % the
 * matching remainder, overflow and division by zero are errors.
 */
#include "crand.h"
#include "intsem.h"
#include "ir.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cval {
    int real;
    int64_t i;
    double r;
} cval;

typedef struct evaluator {
    const ir_program *p;
    const int64_t *params;
    int nparams;          /* params[0..nparams) are valid */
    diag_list *d;
    const char *ctx;      /* prefix for messages, e.g. "parameter 'n': " */
    int err;
    const char *extra;    /* a name that is not a parameter and its value (ir_const_int_at), or NULL */
    int64_t extra_value;
} evaluator;

static void everr(evaluator *E, const ir_expr *e, const char *msg)
{
    if (E->err++) return;
    diag_add(E->d, E->p->file, e ? e->pos.line : 0, e ? e->pos.col : 0, "%s%s",
             E->ctx ? E->ctx : "", msg);
}

static double as_real(cval v) { return v.real ? v.r : (double)v.i; }

/* An integer result of intsem.h: the value, or 0 after reporting its error at e. */
static int64_t ichk(evaluator *E, const ir_expr *e, int status, const int64_t *v)
{
    if (status) { everr(E, e, intsem_message(status)); return 0; }
    return *v;
}

static cval ev(evaluator *E, const ir_expr *e);

/* A binary operation: reals or checked integers. */
static cval ev_binary(evaluator *E, const ir_expr *e)
{
    cval v = { 0, 0, 0 };
    ir_op op = e->u.op.op;
    cval a = ev(E, e->u.op.a);
    if (op == IR_OP_AND || op == IR_OP_OR) {
        int ta = a.real ? a.r != 0 : a.i != 0;
        if (op == IR_OP_AND && !ta) return v;
        if (op == IR_OP_OR && ta) { v.i = 1; return v; }
        cval b = ev(E, e->u.op.b);
        v.i = b.real ? b.r != 0 : b.i != 0;
        return v;
    }
    cval b = ev(E, e->u.op.b);
    if (E->err) return v;
    if (a.real || b.real) {
        double x = as_real(a), y = as_real(b);
        v.real = 1;
        switch (op) {
        case IR_OP_ADD: v.r = x + y; break;
        case IR_OP_SUB: v.r = x - y; break;
        case IR_OP_MUL: v.r = x * y; break;
        case IR_OP_DIV: v.r = x / y; break;
        case IR_OP_MOD: everr(E, e, "'%' needs integer operands"); break;
        default:
            v.real = 0;
            v.i = op == IR_OP_LT ? x < y : op == IR_OP_LE ? x <= y : op == IR_OP_GT ? x > y
                : op == IR_OP_GE ? x >= y : op == IR_OP_EQ ? x == y : x != y;
        }
        return v;
    }
    int64_t x = a.i, y = b.i;
    switch (op) {
    case IR_OP_ADD: v.i = ichk(E, e, intsem_add(x, y, &v.i), &v.i); break;
    case IR_OP_SUB: v.i = ichk(E, e, intsem_sub(x, y, &v.i), &v.i); break;
    case IR_OP_MUL: v.i = ichk(E, e, intsem_mul(x, y, &v.i), &v.i); break;
    case IR_OP_DIV: v.i = ichk(E, e, intsem_floordiv(x, y, &v.i), &v.i); break;
    case IR_OP_MOD: v.i = ichk(E, e, intsem_floormod(x, y, &v.i), &v.i); break;
    case IR_OP_LT: v.i = x < y; break;
    case IR_OP_LE: v.i = x <= y; break;
    case IR_OP_GT: v.i = x > y; break;
    case IR_OP_GE: v.i = x >= y; break;
    case IR_OP_EQ: v.i = x == y; break;
    case IR_OP_NE: v.i = x != y; break;
    default: break;
    }
    return v;
}

/* crand, clrand48, cdrand48 of constants (crand.h; a cache of its own, freed here). */
static cval ev_random(evaluator *E, const ir_expr *e)
{
    cval v = { 0, 0, 0 }, a[2];
    int n = e->u.call.nargs, st;
    for (int i = 0; i < n && i < 2; i++) {
        a[i] = ev(E, e->u.call.args[i]);
        if (a[i].real) { everr(E, e, "a random number's seed and call number are integers"); return v; }
    }
    int64_t k = a[n - 1].i;
    uint64_t x0 = n == 2 ? crand48_seed(a[0].i) : CRAND48_UNSEEDED;
    if (e->u.call.f == IR_F_CRAND) {
        crand_cache c = { 0 };
        st = n == 2 ? crand_rand(&c, a[0].i, k, &v.i) : CRAND_NEGATIVE;
        crand_cache_free(&c);
    } else if (e->u.call.f == IR_F_CLRAND48) {
        st = crand_lrand48(x0, k, &v.i);
    } else {
        v.real = 1;
        st = crand_drand48(x0, k, &v.r);
    }
    if (st) everr(E, e, crand_message(st));
    return v;
}

/* A call of a built-in function. */
static cval ev_call(evaluator *E, const ir_expr *e)
{
    cval v = { 0, 0, 0 };
    int n = e->u.call.nargs;
    if (n < 1) { everr(E, e, "a call without arguments"); return v; }
    const ir_expr *a0 = e->u.call.args[0];
    switch (e->u.call.f) {
    case IR_F_MIN: case IR_F_MAX: {
        v = ev(E, a0);
        for (int i = 1; i < n; i++) {
            cval w = ev(E, e->u.call.args[i]);
            int mx = e->u.call.f == IR_F_MAX;
            if (v.real || w.real) {
                double x = as_real(v), y = as_real(w);
                v.real = 1;
                v.r = mx ? (y > x ? y : x) : (y < x ? y : x);
            } else {
                v.i = mx ? intsem_max(v.i, w.i) : intsem_min(v.i, w.i);
            }
        }
        return v;
    }
    case IR_F_FLOOR: case IR_F_CEIL: {
        int fl = e->u.call.f == IR_F_FLOOR;
        if (a0->kind == IR_E_BINARY && a0->u.op.op == IR_OP_DIV) {
            cval x = ev(E, a0->u.op.a), y = ev(E, a0->u.op.b);
            if (!x.real && !y.real) {
                v.i = ichk(E, a0, fl ? intsem_floordiv(x.i, y.i, &v.i) : intsem_ceildiv(x.i, y.i, &v.i), &v.i);
                return v;
            }
        }
        v = ev(E, a0);
        if (v.real) v.r = fl ? floor(v.r) : ceil(v.r);
        return v;
    }
    case IR_F_ABS:
        v = ev(E, a0);
        if (v.real) v.r = fabs(v.r);
        else v.i = ichk(E, e, intsem_abs(v.i, &v.i), &v.i);
        return v;
    case IR_F_SQRT: {
        cval x = ev(E, a0);
        v.real = 1;
        v.r = sqrt(as_real(x));
        return v;
    }
    case IR_F_SELECT: {
        if (n != 3) { everr(E, e, "select takes 3 arguments"); return v; }
        cval c0 = ev(E, a0);
        int t = c0.real ? c0.r != 0 : c0.i != 0;
        v = ev(E, e->u.call.args[t ? 1 : 2]);
        if (e->type == IR_DOUBLE && !v.real) { v.real = 1; v.r = (double)v.i; }
        return v;
    }
    case IR_F_BAND: case IR_F_BOR: case IR_F_BXOR: {
        if (n != 2) { everr(E, e, "a bitwise function takes 2 arguments"); return v; }
        cval x = ev(E, a0), y = ev(E, e->u.call.args[1]);
        if (x.real || y.real) { everr(E, e, "a bitwise function needs integer arguments"); return v; }
        v.i = e->u.call.f == IR_F_BAND ? (x.i & y.i) : e->u.call.f == IR_F_BOR ? (x.i | y.i) : (x.i ^ y.i);
        return v;
    }
    case IR_F_ISQRT: {
        cval x = ev(E, a0);
        if (x.real) { everr(E, e, "isqrt needs an integer argument"); return v; }
        v.i = ichk(E, e, intsem_isqrt(x.i, &v.i), &v.i);
        return v;
    }
    case IR_F_CRAND: case IR_F_CLRAND48: case IR_F_CDRAND48:
        return ev_random(E, e);
    case IR_F_SIN: case IR_F_COS: case IR_F_TAN: case IR_F_EXP: case IR_F_LOG: case IR_F_POW: {
        double x = as_real(ev(E, a0)), y = e->u.call.nargs > 1 ? as_real(ev(E, e->u.call.args[1])) : 0;
        v.real = 1;
        v.r = ir_libm_call(e->u.call.f, x, y);
        return v;
    }
    }
    return v;
}

static cval ev(evaluator *E, const ir_expr *e)
{
    cval v = { 0, 0, 0 };
    if (!e || E->err) return v;
    switch (e->kind) {
    case IR_E_INT: v.i = e->u.ival; return v;
    case IR_E_REAL: v.real = 1; v.r = e->u.rval; return v;
    case IR_E_NAME: {
        int idx = e->u.name.nk == IR_N_PARAM ? e->u.name.index : -1;
        if (idx < 0 && e->u.name.nk == IR_N_UNRESOLVED)
            for (int i = 0; i < E->p->nparams; i++)
                if (strcmp(E->p->params[i]->u.param.name, e->u.name.id) == 0) idx = i;
        if (idx < 0 && E->extra && strcmp(E->extra, e->u.name.id) == 0) {
            v.i = E->extra_value;
            return v;
        }
        if (idx < 0 || idx >= E->nparams) {
            char b[160];
            snprintf(b, sizeof b, "'%s' is not a parameter with a known value", e->u.name.id);
            everr(E, e, b);
            return v;
        }
        v.i = E->params[idx];
        return v;
    }
    case IR_E_ACCESS: everr(E, e, "an array element is not a constant"); return v;
    case IR_E_REPEAT: everr(E, e, "repeat is not a constant"); return v;
    case IR_E_REDUCE: everr(E, e, "a reduction is not a constant"); return v;
    case IR_E_UNARY: {
        cval a = ev(E, e->u.op.a);
        if (e->u.op.op == IR_OP_NOT) {
            v.i = a.real ? a.r == 0 : a.i == 0;
            return v;
        }
        if (a.real) { v.real = 1; v.r = -a.r; return v; }
        v.i = ichk(E, e, intsem_neg(a.i, &v.i), &v.i);
        return v;
    }
    case IR_E_BINARY: return ev_binary(E, e);
    case IR_E_CALL: return ev_call(E, e);
    }
    return v;
}

int ir_const_eval(const ir_program *p, const ir_expr *e, const int64_t *params,
                  int64_t *ival, double *rval, int *is_real, diag_list *d)
{
    evaluator E = { p, params, p->nparams, d, NULL, 0, NULL, 0 };
    cval v = ev(&E, e);
    if (E.err) return 1;
    if (is_real) *is_real = v.real;
    if (ival) *ival = v.real ? (int64_t)0 : v.i;
    if (rval) *rval = v.real ? v.r : (double)v.i;
    if (v.real && ival) {
        if (isfinite(v.r) && v.r > -9.2e18 && v.r < 9.2e18) *ival = (int64_t)v.r;
    }
    return 0;
}

int ir_parse_binding(char *arg, ir_binding *out)
{
    char *eq = strchr(arg, '=');
    if (!eq || eq == arg) return -1;
    for (char *c = arg; c < eq; c++)
        if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
              (c > arg && *c >= '0' && *c <= '9')))
            return -1;
    char *end;
    errno = 0;
    long long v = strtoll(eq + 1, &end, 10);
    if (end == eq + 1 || *end || errno) return -1;
    *eq = '\0';
    out->name = arg;
    out->value = v;
    return 0;
}

int ir_params_eval(const ir_program *p, const ir_binding *ov, int nov, int strict,
                   int64_t *values, diag_list *d)
{
    int errs = 0;
    for (int k = 0; k < nov; k++) {
        int found = 0;
        for (int i = 0; i < p->nparams; i++)
            if (ov[k].name && strcmp(ov[k].name, p->params[i]->u.param.name) == 0) found = 1;
        if (!found && strict) {
            diag_add(d, NULL, 0, 0, "unknown parameter '%s' in -D (the program has no such parameter)",
                     ov[k].name ? ov[k].name : "");
            errs++;
        }
    }
    for (int i = 0; i < p->nparams; i++) {
        const ir_decl *pd = p->params[i];
        int over = -1;
        for (int k = 0; k < nov; k++)
            if (ov[k].name && strcmp(ov[k].name, pd->u.param.name) == 0) over = k;
        if (over >= 0) {
            values[i] = ov[over].value;
            continue;
        }
        char ctx[160];
        snprintf(ctx, sizeof ctx, "parameter '%s': ", pd->u.param.name);
        evaluator E = { p, values, i, d, ctx, 0, NULL, 0 };
        cval v = ev(&E, pd->u.param.value);
        if (!E.err && v.real) everr(&E, pd->u.param.value, "not an integer");
        values[i] = E.err ? 0 : v.i;
        errs += E.err ? 1 : 0;
    }
    return errs;
}

int ir_const_int(const ir_program *p, const ir_expr *e, const int64_t *params, int64_t *v)
{
    diag_list d;
    diag_list_init(&d);
    double r;
    int real = 0;
    int rc = ir_const_eval(p, e, params, v, &r, &real, &d);
    diag_list_free(&d);
    return rc == 0 && !real;
}

int ir_const_int_at(const ir_program *p, const ir_expr *e, const int64_t *params, const char *name, int64_t value,
                    int64_t *v)
{
    diag_list d;
    diag_list_init(&d);
    evaluator E = { p, params, p->nparams, &d, NULL, 0, name, value };
    cval c = ev(&E, e);
    diag_list_free(&d);
    if (E.err || c.real) return 0;
    *v = c.i;
    return 1;
}
