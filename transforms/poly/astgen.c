/*
 * astgen.c — from isl's generated AST back to ours: loops, guards and expressions that isl's
 * AST builder produced become `for`, `if` and IR expressions of the new program; user nodes are
 * handed to a callback that places the original statement bodies.  Also the deep copy of
 * statements between programs (the source's bodies are copied into the new program's arena).
 */
#include <stdlib.h>
#include <string.h>

#include <isl/id.h>
#include <isl/val.h>

#include "poly_int.h"

static const char *rename_id(const xf_rename *rn, const char *id)
{
    for (int i = 0; rn && i < rn->n; i++)
        if (strcmp(rn->from[i], id) == 0) return rn->to[i];
    return id;
}

/* n-ary isl operations folded left into binary ones. */
static ir_expr *fold(ir_program *p, __isl_keep isl_ast_expr *e, ir_op op, const xf_rename *rn)
{
    int n = (int)isl_ast_expr_get_op_n_arg(e);
    ir_expr *acc = NULL;
    for (int i = 0; i < n; i++) {
        isl_ast_expr *a = isl_ast_expr_get_op_arg(e, i);
        ir_expr *x = xf_ast_expr(p, a, rn);
        isl_ast_expr_free(a);
        if (!x) return NULL;
        acc = acc ? ir_new_binary(p, op, acc, x) : x;
    }
    return acc;
}

static ir_expr *call(ir_program *p, __isl_keep isl_ast_expr *e, ir_func f, const xf_rename *rn)
{
    int n = (int)isl_ast_expr_get_op_n_arg(e);
    ir_expr *args[n > 0 ? n : 1];
    for (int i = 0; i < n; i++) {
        isl_ast_expr *a = isl_ast_expr_get_op_arg(e, i);
        args[i] = xf_ast_expr(p, a, rn);
        isl_ast_expr_free(a);
        if (!args[i]) return NULL;
    }
    return ir_new_call(p, f, args, n);
}

static const struct { enum isl_ast_expr_op_type t; ir_op op; } binops[] = {
    {isl_ast_expr_op_and, IR_OP_AND},     {isl_ast_expr_op_and_then, IR_OP_AND},
    {isl_ast_expr_op_or, IR_OP_OR},       {isl_ast_expr_op_or_else, IR_OP_OR},
    {isl_ast_expr_op_add, IR_OP_ADD},     {isl_ast_expr_op_sub, IR_OP_SUB},
    {isl_ast_expr_op_mul, IR_OP_MUL},     {isl_ast_expr_op_div, IR_OP_DIV},
    {isl_ast_expr_op_fdiv_q, IR_OP_DIV},  {isl_ast_expr_op_pdiv_q, IR_OP_DIV},
    {isl_ast_expr_op_pdiv_r, IR_OP_MOD},  {isl_ast_expr_op_zdiv_r, IR_OP_MOD},
    {isl_ast_expr_op_eq, IR_OP_EQ},       {isl_ast_expr_op_le, IR_OP_LE},
    {isl_ast_expr_op_lt, IR_OP_LT},       {isl_ast_expr_op_ge, IR_OP_GE},
    {isl_ast_expr_op_gt, IR_OP_GT},
};

ir_expr *xf_ast_expr(ir_program *p, __isl_keep isl_ast_expr *e, const xf_rename *rn)
{
    switch (isl_ast_expr_get_type(e)) {
    case isl_ast_expr_int: {
        isl_val *v = isl_ast_expr_get_val(e);
        ir_expr *r = ir_new_int(p, isl_val_get_num_si(v));
        isl_val_free(v);
        return r;
    }
    case isl_ast_expr_id: {
        isl_id *id = isl_ast_expr_get_id(e);
        for (int i = 0; rn && rn->to_expr && i < rn->n; i++)
            if (rn->to_expr[i] && !strcmp(rn->from[i], isl_id_get_name(id))) {
                isl_id_free(id);
                return ir_clone_expr(p, rn->to_expr[i]);
            }
        ir_expr *r = ir_new_name(p, rename_id(rn, isl_id_get_name(id)));
        isl_id_free(id);
        return r;
    }
    case isl_ast_expr_op: {
        enum isl_ast_expr_op_type t = isl_ast_expr_op_get_type(e);
        for (size_t i = 0; i < sizeof binops / sizeof binops[0]; i++)
            if (binops[i].t == t) return fold(p, e, binops[i].op, rn);
        if (t == isl_ast_expr_op_minus) {
            isl_ast_expr *a = isl_ast_expr_get_op_arg(e, 0);
            ir_expr *x = xf_ast_expr(p, a, rn);
            isl_ast_expr_free(a);
            if (!x) return NULL;
            if (x->kind == IR_E_INT) { x->u.ival = -x->u.ival; return x; }
            return ir_new_unary(p, IR_OP_NEG, x);
        }
        if (t == isl_ast_expr_op_select || t == isl_ast_expr_op_cond) {
            /* c ? a : b  as  c * a + (1 - c) * b  (a comparison is 0 or 1) */
            ir_expr *x[3];
            for (int i = 0; i < 3; i++) {
                isl_ast_expr *a = isl_ast_expr_get_op_arg(e, i);
                x[i] = xf_ast_expr(p, a, rn);
                isl_ast_expr_free(a);
                if (!x[i]) return NULL;
            }
            return ir_new_binary(p, IR_OP_ADD, ir_new_binary(p, IR_OP_MUL, x[0], x[1]),
                                 ir_new_binary(p, IR_OP_MUL, ir_new_binary(p, IR_OP_SUB, ir_new_int(p, 1),
                                                                           ir_clone_expr(p, x[0])), x[2]));
        }
        if (t == isl_ast_expr_op_min) return call(p, e, IR_F_MIN, rn);
        if (t == isl_ast_expr_op_max) return call(p, e, IR_F_MAX, rn);
        return NULL;   /* call / access: not expressible */
    }
    default:
        return NULL;
    }
}

/* ---- nodes ---------------------------------------------------------------------------------- */

static int node(ir_program *p, __isl_keep isl_ast_node *n, ir_block *out, const xf_astgen *g);

static int node_list(ir_program *p, __isl_keep isl_ast_node_list *l, ir_block *out, const xf_astgen *g)
{
    int r = 0;
    int k = (int)isl_ast_node_list_n_ast_node(l);
    for (int i = 0; i < k && r == 0; i++) {
        isl_ast_node *c = isl_ast_node_list_get_ast_node(l, i);
        r = node(p, c, out, g);
        isl_ast_node_free(c);
    }
    return r;
}

static int child(ir_program *p, __isl_take isl_ast_node *c, ir_block *out, const xf_astgen *g)
{
    int r = c ? node(p, c, out, g) : -1;
    isl_ast_node_free(c);
    return r;
}

/* The loop's upper bound from its condition `it <= e` or `it < e`. */
static ir_expr *upper(ir_program *p, __isl_keep isl_ast_expr *cond, const xf_rename *rn)
{
    if (isl_ast_expr_get_type(cond) != isl_ast_expr_op) return NULL;
    enum isl_ast_expr_op_type t = isl_ast_expr_op_get_type(cond);
    if ((t != isl_ast_expr_op_le && t != isl_ast_expr_op_lt) || isl_ast_expr_get_op_n_arg(cond) != 2)
        return NULL;
    isl_ast_expr *b = isl_ast_expr_get_op_arg(cond, 1);
    ir_expr *hi = xf_ast_expr(p, b, rn);
    isl_ast_expr_free(b);
    if (hi && t == isl_ast_expr_op_lt) {
        ir_expr *k = hi->kind == IR_E_BINARY && (hi->u.op.op == IR_OP_ADD || hi->u.op.op == IR_OP_SUB) &&
                     hi->u.op.b->kind == IR_E_INT ? hi->u.op.b : NULL;
        if (hi->kind == IR_E_INT) hi->u.ival -= 1;
        else if (k) {   /* e - 1 - 1  ->  e - 2 */
            int64_t v = (hi->u.op.op == IR_OP_ADD ? k->u.ival : -k->u.ival) - 1;
            if (v == 0) hi = hi->u.op.a;
            else {
                hi->u.op.op = v > 0 ? IR_OP_ADD : IR_OP_SUB;
                k->u.ival = v > 0 ? v : -v;
            }
        } else hi = ir_new_binary(p, IR_OP_SUB, hi, ir_new_int(p, 1));
    }
    return hi;
}

int xf_ast_for(ir_program *p, __isl_keep isl_ast_node *n, const xf_rename *rn, ir_loopvar *lv)
{
    isl_ast_expr *it = isl_ast_node_for_get_iterator(n);
    isl_ast_expr *init = isl_ast_node_for_get_init(n);
    isl_ast_expr *cond = isl_ast_node_for_get_cond(n);
    isl_ast_expr *inc = isl_ast_node_for_get_inc(n);
    isl_id *id = isl_ast_expr_get_id(it);
    memset(lv, 0, sizeof *lv);
    lv->var = ir_strdup(p, rename_id(rn, isl_id_get_name(id)));
    lv->lo = xf_ast_expr(p, init, rn);
    lv->hi = upper(p, cond, rn);
    ir_expr *st = xf_ast_expr(p, inc, rn);
    lv->step = st && st->kind == IR_E_INT && st->u.ival == 1 ? NULL : st;
    lv->kind = IR_LOOP_DEFAULT;
    int ok = lv->lo && lv->hi && st;
    isl_id_free(id);
    isl_ast_expr_free(it);
    isl_ast_expr_free(init);
    isl_ast_expr_free(cond);
    isl_ast_expr_free(inc);
    return ok ? 0 : -1;
}

static int node(ir_program *p, __isl_keep isl_ast_node *n, ir_block *out, const xf_astgen *g)
{
    switch (isl_ast_node_get_type(n)) {
    case isl_ast_node_block: {
        isl_ast_node_list *l = isl_ast_node_block_get_children(n);
        int r = node_list(p, l, out, g);
        isl_ast_node_list_free(l);
        return r;
    }
    case isl_ast_node_mark:
        return child(p, isl_ast_node_mark_get_node(n), out, g);
    case isl_ast_node_user:
        return g->user(g->ctx, p, n, out);
    case isl_ast_node_if: {
        isl_ast_expr *c = isl_ast_node_if_get_cond(n);
        ir_expr *cond = xf_ast_expr(p, c, g->rename);
        isl_ast_expr_free(c);
        if (!cond) return -1;
        ir_stmt *s = ir_new_stmt(p, IR_S_IF);
        s->u.if_.cond = cond;
        s->u.if_.then_blk = ir_new_block(p);
        if (child(p, isl_ast_node_if_get_then_node(n), s->u.if_.then_blk, g) < 0) return -1;
        if (isl_ast_node_if_has_else_node(n) == isl_bool_true) {
            s->u.if_.else_blk = ir_new_block(p);
            if (child(p, isl_ast_node_if_get_else_node(n), s->u.if_.else_blk, g) < 0) return -1;
        }
        ir_block_append(p, out, s);
        return 0;
    }
    case isl_ast_node_for: {
        ir_stmt *s = ir_new_stmt(p, IR_S_FOR);
        s->u.for_.nvars = 1;
        s->u.for_.vars = ir_alloc(p, sizeof *s->u.for_.vars);
        if (xf_ast_for(p, n, g->rename, &s->u.for_.vars[0]) < 0) return -1;
        s->u.for_.body = ir_new_block(p);
        if (child(p, isl_ast_node_for_get_body(n), s->u.for_.body, g) < 0) return -1;
        ir_block_append(p, out, s);
        return 0;
    }
    default:
        return -1;
    }
}

int xf_ast_node(ir_program *p, __isl_keep isl_ast_node *n, ir_block *out, const xf_astgen *g)
{
    return node(p, n, out, g);
}

/* ---- copies --------------------------------------------------------------------------------- */


