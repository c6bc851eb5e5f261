/*
 * ir_size.c — how large a program is in its parameters (see ir.h): the degree of its work (how
 * many loops that grow with the sizes a statement instance lies in) and its arrays' elements at
 * given parameter values.  `explore --at` extrapolates costs with the first and prices the
 * caches at the user's size with the second.
 */
#include "ir.h"

#include <stdlib.h>

/* Does e mention anything but integer literals (a parameter, a loop variable)? */
static int grows(const ir_expr *e)
{
    return e && e->kind != IR_E_INT;
}

static int expr_degree(const ir_expr *e);

static int exprs_degree(ir_expr *const *v, int n)
{
    int best = 0;
    for (int i = 0; v && i < n; i++) {
        int k = expr_degree(v[i]);
        if (k > best) best = k;
    }
    return best;
}

/* The deepest nest of reductions in e whose bounds grow. */
static int expr_degree(const ir_expr *e)
{
    if (!e) return 0;
    switch (e->kind) {
    case IR_E_REDUCE:
        return (grows(e->u.reduce.lo) || grows(e->u.reduce.hi)) + expr_degree(e->u.reduce.body);
    case IR_E_UNARY: case IR_E_BINARY: {
        int a = expr_degree(e->u.op.a), b = expr_degree(e->u.op.b);
        return a > b ? a : b;
    }
    case IR_E_CALL: return exprs_degree(e->u.call.args, e->u.call.nargs);
    case IR_E_ACCESS: return exprs_degree(e->u.access.idx, e->u.access.nidx);
    default: return 0;
    }
}

static int block_degree(const ir_block *b);

static int stmt_degree(const ir_stmt *s)
{
    switch (s->kind) {
    case IR_S_ASSIGN: {
        int a = expr_degree(s->u.assign.lhs), b = expr_degree(s->u.assign.rhs);
        return a > b ? a : b;
    }
    case IR_S_IF: {
        int a = block_degree(s->u.if_.then_blk), b = block_degree(s->u.if_.else_blk);
        return a > b ? a : b;
    }
    case IR_S_FOR: {
        int loops = 0;
        for (int v = 0; v < s->u.for_.nvars; v++) {
            const ir_loopvar *lv = &s->u.for_.vars[v];
            loops += lv->kind != IR_LOOP_PROC && (grows(lv->lo) || grows(lv->hi));
        }
        return loops + block_degree(s->u.for_.body);
    }
    default: return 0;
    }
}

static int block_degree(const ir_block *b)
{
    int best = 0;
    for (int i = 0; b && i < b->n; i++) {
        int k = stmt_degree(b->stmts[i]);
        if (k > best) best = k;
    }
    return best;
}

int ir_work_degree(const ir_program *p)
{
    return p ? block_degree(p->body) : 0;
}

double ir_array_elems(const ir_program *p, const ir_binding *b, int nb)
{
    if (!p || !p->checked) return -1;
    int64_t *vals = calloc((size_t)(p->nparams ? p->nparams : 1), sizeof *vals);
    diag_list d;
    diag_list_init(&d);
    double total = vals && ir_params_eval(p, b, nb, 0, vals, &d) == 0 ? 0 : -1;
    for (int a = 0; a < p->narrays && total >= 0; a++) {
        double n = 1;
        for (int k = 0; k < p->arrays[a]->u.array.ndims && total >= 0; k++) {
            int64_t lo, hi;
            if (!ir_const_int(p, p->arrays[a]->u.array.lo[k], vals, &lo) ||
                !ir_const_int(p, p->arrays[a]->u.array.hi[k], vals, &hi))
                total = -1;
            else
                n *= hi >= lo ? (double)(hi - lo + 1) : 0;
        }
        if (total >= 0) total += n;
    }
    diag_list_free(&d);
    free(vals);
    return total;
}
