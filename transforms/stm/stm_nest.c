/*
 * stm_nest.c — the step nest stm generates: the time loop and the processor loop over the points
 * of a mapping's image (its polyhedral hull; isl's AST of the points turned into the language's
 * two loop variables; a dimension with one value becomes a one-iteration loop; a 2-D allocation
 * linearised into p).
 */
#include <string.h>

#include <isl/aff.h>
#include <isl/ast_build.h>
#include <isl/id.h>
#include <isl/val.h>

#include "stm_int.h"

/* Unwraps parameter guards and one-child blocks around an isl AST node. */
static __isl_give isl_ast_node *unwrap(__isl_take isl_ast_node *n)
{
    for (;;) {
        if (n && isl_ast_node_get_type(n) == isl_ast_node_if && isl_ast_node_if_has_else_node(n) != isl_bool_true) {
            isl_ast_node *c = isl_ast_node_if_get_then_node(n);
            isl_ast_node_free(n);
            n = c;
        } else if (n && isl_ast_node_get_type(n) == isl_ast_node_block) {
            isl_ast_node_list *l = isl_ast_node_block_get_children(n);
            int one = isl_ast_node_list_n_ast_node(l) == 1;
            isl_ast_node *c = one ? isl_ast_node_list_get_ast_node(l, 0) : NULL;
            isl_ast_node_list_free(l);
            if (!one) return n;
            isl_ast_node_free(n);
            n = c;
        } else {
            return n;
        }
    }
}

/* Loops enumerating `set` (its dimensions named by `its`), unwrapped. */
static __isl_give isl_ast_node *loops(__isl_keep isl_ctx *ctx, __isl_take isl_set *ctxset,
                                      __isl_take isl_set *set, const char *const *its, int nits)
{
    isl_ast_build *b = isl_ast_build_from_context(ctxset);
    isl_id_list *l = isl_id_list_alloc(ctx, nits);
    for (int i = 0; i < nits; i++) l = isl_id_list_add(l, isl_id_alloc(ctx, its[i], NULL));
    b = isl_ast_build_set_iterators(b, l);
    isl_ast_node *n = isl_ast_build_node_from_schedule_map(b, isl_union_map_from_map(isl_set_identity(set)));
    isl_ast_build_free(b);
    return unwrap(n);
}

/* The loops of the step nest (time, then processors; nd of them) from isl's AST `n` of the
 * hull's points.  isl turns a dimension with one value (a constant θ, one processor) into
 * no loop at all, its value an argument of the user node; that dimension becomes a
 * one-iteration loop `for t = v .. v`. */
static int step_loops(ir_program *p, __isl_take isl_ast_node *n, const xf_rename *rn,
                      const char *const *its, int nd, ir_loopvar *lv)
{
    int have[2] = {0, 0}, ok = 1;
    for (int d = 0; d < nd && ok; d++) {
        n = unwrap(n);
        if (!n || isl_ast_node_get_type(n) != isl_ast_node_for) continue;
        isl_ast_expr *it = isl_ast_node_for_get_iterator(n);
        isl_id *id = isl_ast_expr_get_id(it);
        int mine = id && !strcmp(isl_id_get_name(id), its[d]);
        isl_id_free(id);
        isl_ast_expr_free(it);
        if (!mine) continue;
        ok = xf_ast_for(p, n, rn, &lv[d]) == 0;
        have[d] = 1;
        isl_ast_node *body = isl_ast_node_for_get_body(n);
        isl_ast_node_free(n);
        n = body;
    }
    n = unwrap(n);
    for (int d = 0; d < nd && ok; d++) {
        if (have[d]) continue;
        ok = n && isl_ast_node_get_type(n) == isl_ast_node_user;
        if (!ok) break;
        isl_ast_expr *call = isl_ast_node_user_get_expr(n);
        isl_ast_expr *a = isl_ast_expr_get_op_arg(call, d + 1);
        ir_expr *v = a ? xf_ast_expr(p, a, rn) : NULL;
        isl_ast_expr_free(a);
        isl_ast_expr_free(call);
        ok = v != NULL;
        if (!ok) break;
        memset(&lv[d], 0, sizeof lv[d]);
        const char *to = its[d];
        for (int i = 0; i < rn->n; i++)
            if (!strcmp(rn->from[i], its[d])) to = rn->to[i];
        lv[d].var = ir_strdup(p, to);
        lv[d].lo = v;
        lv[d].hi = ir_clone_expr(p, v);
    }
    isl_ast_node_free(n);
    return ok ? 0 : -1;
}

ir_expr *xf_stm_pw_expr(ir_program *p, __isl_take isl_set *ctxset, __isl_take isl_pw_aff *pa)
{
    isl_ast_build *b = isl_ast_build_from_context(ctxset);
    isl_ast_expr *e = isl_ast_build_expr_from_pw_aff(b, pa);
    ir_expr *r = e ? xf_ast_expr(p, e, NULL) : NULL;
    isl_ast_expr_free(e);
    isl_ast_build_free(b);
    return r;
}

int xf_stm_step_nest(const xf_model *m, int nsig, const char *pname, ir_program *p,
                     __isl_keep isl_set *hull, __isl_keep isl_set *enumd, xf_rename *rn,
                     const ir_expr **to_expr, ir_loopvar *lv)
{
    isl_ctx *ctx = m->ctx;
    if (nsig == 1) {
        const char *its[2] = {"xf_T", "xf_P"};
        isl_ast_node *n = loops(ctx, xf_model_context(m), isl_set_copy(hull), its, 2);
        return step_loops(p, n, rn, its, 2, lv) == 0;
    }
    const char *its[1] = {"xf_T"};
    isl_ast_node *n = loops(ctx, xf_model_context(m),
                            isl_set_project_out(isl_set_copy(hull), isl_dim_set, 1, 2), its, 1);
    int ok = step_loops(p, n, rn, its, 1, lv) == 0;
    ir_expr *lo[2], *w[2];
    for (int d = 0; d < 2 && ok; d++) {
        isl_pw_aff *mn = isl_set_dim_min(isl_set_copy(enumd), 1 + d);
        isl_pw_aff *mx = isl_set_dim_max(isl_set_copy(enumd), 1 + d);
        isl_pw_aff *wd = isl_pw_aff_add_constant_val(isl_pw_aff_sub(mx, isl_pw_aff_copy(mn)), isl_val_one(ctx));
        lo[d] = xf_stm_pw_expr(p, xf_model_context(m), mn);
        w[d] = xf_stm_pw_expr(p, xf_model_context(m), wd);
        ok = lo[d] && w[d];
    }
    if (!ok) return 0;
    ir_loopvar *pv = &lv[1];
    pv->var = ir_strdup(p, pname);
    pv->lo = ir_new_int(p, 0);
    pv->hi = ir_new_binary(p, IR_OP_SUB, ir_new_binary(p, IR_OP_MUL, w[0], ir_clone_expr(p, w[1])), ir_new_int(p, 1));
    ir_expr *q = ir_new_binary(p, IR_OP_DIV, ir_new_name(p, pname), ir_clone_expr(p, w[1]));
    ir_expr *r = ir_new_binary(p, IR_OP_MOD, ir_new_name(p, pname), ir_clone_expr(p, w[1]));
    int z0 = lo[0]->kind == IR_E_INT && lo[0]->u.ival == 0, z1 = lo[1]->kind == IR_E_INT && lo[1]->u.ival == 0;
    to_expr[1] = z0 ? q : ir_new_binary(p, IR_OP_ADD, lo[0], q);
    to_expr[2] = z1 ? r : ir_new_binary(p, IR_OP_ADD, lo[1], r);
    rn->to_expr = to_expr;
    return 1;
}

/* The hull of an image: a parameter the image does not involve beyond the context (3mm's nk,
 * nl, nm: its phases' images use ni and nj) is left out while the hull is computed and the
 * context put back after it: isl's hull of a union grows quickly with its dimensions (with all
 * five parameters, 3mm's three phases exceed stm auto's quota). */
__isl_give isl_set *xf_stm_image_hull(const xf_model *m, __isl_take isl_set *img)
{
    isl_set *g = isl_set_gist_params(isl_set_copy(img), xf_model_context(m));
    int dropped = 0;
    for (int i = (int)isl_set_dim(img, isl_dim_param) - 1; i >= 0; i--)
        if (isl_set_involves_dims(g, isl_dim_param, (unsigned)i, 1) == isl_bool_false) {
            img = isl_set_project_out(img, isl_dim_param, (unsigned)i, 1);
            dropped++;
        }
    isl_set_free(g);
    isl_set *hull = isl_set_from_basic_set(isl_set_polyhedral_hull(img));
    if (!dropped) return hull;
    isl_set *ctx = xf_model_context(m);
    hull = isl_set_align_params(hull, isl_set_get_space(ctx));
    return isl_set_intersect_params(hull, ctx);
}
