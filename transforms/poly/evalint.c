/*
 * evalint.c — numbers for integer expressions a transform builds (unchecked IR: names are
 * strings): memdist evaluates candidate dist bounds at the parameters' values to size local
 * memories and to check that they hold every element a processor touches.
 *
 * Semantics are the language's (ir.h): / is floor division, % its remainder (intsem.h),
 * comparisons and && || give 0/1, select evaluates the branch it takes, min/max/sum reductions
 * run over their ranges (an empty min/max reduction fails).  Anything else (reals, arrays,
 * unknown names, integer overflow, division by zero, running out of fuel) fails.  xf_int_const folds the
 * arithmetic expressions of literals the isl printers must write as numbers.
 */
#include <string.h>

#include "intsem.h"
#include "poly_int.h"


static int lookup(const xf_env *env, const char *name, int64_t *v)
{
    for (int i = env->n - 1; i >= 0; i--)
        if (!strcmp(env->names[i], name)) { *v = env->vals[i]; return 0; }
    return -1;
}

int xf_eval_int(const ir_expr *e, xf_env *env, int64_t *v)
{
    int64_t a, b;
    if (!e) return -1;
    if (env->fuel && (*env->fuel)-- <= 0) return -1;
    switch (e->kind) {
    case IR_E_INT:
        *v = e->u.ival;
        return 0;
    case IR_E_NAME:
        return lookup(env, e->u.name.id, v);
    case IR_E_UNARY:
        if (xf_eval_int(e->u.op.a, env, &a)) return -1;
        if (e->u.op.op == IR_OP_NEG) return intsem_neg(a, v) ? -1 : 0;
        *v = !a;
        return 0;
    case IR_E_BINARY:
        if (xf_eval_int(e->u.op.a, env, &a)) return -1;
        if (e->u.op.op == IR_OP_AND && !a) { *v = 0; return 0; }
        if (e->u.op.op == IR_OP_OR && a) { *v = 1; return 0; }
        if (xf_eval_int(e->u.op.b, env, &b)) return -1;
        switch (e->u.op.op) {
        case IR_OP_ADD: return intsem_add(a, b, v) ? -1 : 0;
        case IR_OP_SUB: return intsem_sub(a, b, v) ? -1 : 0;
        case IR_OP_MUL: return intsem_mul(a, b, v) ? -1 : 0;
        case IR_OP_DIV: return intsem_floordiv(a, b, v) ? -1 : 0;
        case IR_OP_MOD: return intsem_floormod(a, b, v) ? -1 : 0;
        case IR_OP_LT: *v = a < b; return 0;
        case IR_OP_LE: *v = a <= b; return 0;
        case IR_OP_GT: *v = a > b; return 0;
        case IR_OP_GE: *v = a >= b; return 0;
        case IR_OP_EQ: *v = a == b; return 0;
        case IR_OP_NE: *v = a != b; return 0;
        case IR_OP_AND: case IR_OP_OR: *v = b != 0; return 0;
        default: return -1;
        }
    case IR_E_CALL: {
        const ir_expr *const *x = (const ir_expr *const *)e->u.call.args;
        int n = e->u.call.nargs;
        switch (e->u.call.f) {
        case IR_F_MIN: case IR_F_MAX:
            for (int i = 0; i < n; i++) {
                if (xf_eval_int(x[i], env, &a)) return -1;
                if (!i || (e->u.call.f == IR_F_MIN ? a < *v : a > *v)) *v = a;
            }
            return n > 0 ? 0 : -1;
        case IR_F_SELECT:
            if (n != 3 || xf_eval_int(x[0], env, &a)) return -1;
            return xf_eval_int(x[a ? 1 : 2], env, v);
        case IR_F_ABS:
            if (n != 1 || xf_eval_int(x[0], env, &a)) return -1;
            return intsem_abs(a, v) ? -1 : 0;
        case IR_F_FLOOR: case IR_F_CEIL:
            if (n != 1) return -1;
            if (x[0]->kind == IR_E_BINARY && x[0]->u.op.op == IR_OP_DIV) {
                if (xf_eval_int(x[0]->u.op.a, env, &a) || xf_eval_int(x[0]->u.op.b, env, &b)) return -1;
                return (e->u.call.f == IR_F_FLOOR ? intsem_floordiv(a, b, v) : intsem_ceildiv(a, b, v)) ? -1 : 0;
            }
            return xf_eval_int(x[0], env, v);
        default:
            return -1;
        }
    }
    case IR_E_REDUCE: {
        int64_t lo, hi;
        if (xf_eval_int(e->u.reduce.lo, env, &lo) || xf_eval_int(e->u.reduce.hi, env, &hi)) return -1;
        if (env->n >= XF_ENV_MAX) return -1;
        ir_reduce_op r = e->u.reduce.r;
        if (r == IR_R_PROD) return -1;
        if (hi < lo && r != IR_R_SUM) return -1;
        int slot = env->n++;
        env->names[slot] = e->u.reduce.var;
        int64_t acc = 0;
        int rc = 0;
        for (int64_t k = lo; k <= hi && !rc; k++) {
            env->vals[slot] = k;
            rc = xf_eval_int(e->u.reduce.body, env, &a);
            if (rc) break;
            if (r == IR_R_SUM) rc = intsem_add(acc, a, &acc) ? -1 : 0;
            else if (k == lo || (r == IR_R_MIN ? a < acc : a > acc)) acc = a;
            if (k == hi) break;   /* k++ past INT64_MAX would overflow */
        }
        env->n--;
        *v = acc;
        return rc;
    }
    default:
        return -1;
    }
}

/* Only arithmetic at the root and, through xf_eval_int with no names, literals below it. */
int xf_int_const(const ir_expr *e, int64_t *v)
{
    if (!e) return -1;
    switch (e->kind) {
    case IR_E_INT: *v = e->u.ival; return 0;
    case IR_E_UNARY: if (e->u.op.op != IR_OP_NEG) return -1; break;
    case IR_E_BINARY:
        switch (e->u.op.op) {
        case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV: case IR_OP_MOD: break;
        default: return -1;
        }
        break;
    case IR_E_CALL:
        switch (e->u.call.f) {
        case IR_F_MIN: case IR_F_MAX: case IR_F_ABS: case IR_F_FLOOR: case IR_F_CEIL: break;
        default: return -1;
        }
        break;
    default:
        return -1;
    }
    xf_env none = {.n = 0};
    return xf_eval_int(e, &none, v);
}
