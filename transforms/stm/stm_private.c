/*
 * stm_private.c — scratch scalars and arrays private to each processor.  A scalar the program
 * reuses in every iteration (symm's temp2, ludcmp's w: set, accumulated, read, set again; or
 * doitgen's row sum_[p]) carries anti and output dependences from each iteration to the next,
 * which forbid running iterations on different processors in one step, although no value
 * travels between them.  Under a mapping, such a scalar (or array) is private when
 *   - it is not an output of the program,
 *   - every anti or output dependence through it that does not go forward in time joins two
 *     different processors (on one processor the order of its uses stays the source's), and
 *   - every flow dependence through it joins two instances on one processor (a value is read
 *     where it was computed: at the same point or a later step; deriche's ym1, carried along a
 *     row one step after another on the row's processor);
 * stm then gives each processor its own copy: the scalar becomes an array over the processors,
 * indexed by p (`temp2` -> `temp2[p]`, `sum_[q]` -> `sum_[p][q]`, its init the scalar's), which
 * memdist distributes like any array.  This is scalar expansion (Feautrier, "Array expansion", ICS 1988) restricted to
 * the processor dimension.
 */
#include <stdlib.h>
#include <string.h>

#include "stm_int.h"

/* The array (a scalar is one of 0 dimensions; not an output) through which access `acc` goes,
 * or NULL. */
static const char *scratch_scalar(const xf_model *m, int acc)
{
    const ir_expr *e = m->acc[acc].expr;
    const char *x = e->kind == IR_E_NAME ? e->u.name.id : e->kind == IR_E_ACCESS ? e->u.access.array : NULL;
    const ir_program *p = m->prog;
    for (int i = 0; x && i < p->ndecls; i++)
        if (p->decls[i]->kind == IR_D_OUTPUT && !strcmp(p->decls[i]->u.output.array, x)) return NULL;
    return x;
}

const char *xf_stm_private_candidate(const xf_model *m, const xf_rawdep *d)
{
    return d->kind == XF_DEP_FLOW ? NULL : scratch_scalar(m, d->acc);
}

int xf_stm_private_flows(const xf_model *m, const xf_rawdep *r, int nr, const char *const *names, int n,
                         __isl_keep isl_map *const *st, int *bad)
{
    for (int i = 0; i < nr; i++) {
        if (r[i].kind != XF_DEP_FLOW) continue;
        const char *x = scratch_scalar(m, r[i].acc);
        int mine = 0;
        for (int k = 0; x && k < n && !mine; k++) mine = !strcmp(names[k], x);
        if (!mine) continue;
        /* the processors (σ) of the source and the sink: the same one */
        isl_map *sa = isl_map_project_out(isl_map_copy(st[r[i].src]), isl_dim_out, 0, 1);
        isl_map *sb = isl_map_project_out(isl_map_copy(st[r[i].sink]), isl_dim_out, 0, 1);
        isl_map *pairs = isl_map_apply_range(isl_map_apply_domain(isl_map_copy(r[i].rel), sa), sb);
        isl_map *id = isl_map_identity(isl_space_map_from_set(isl_space_range(isl_map_get_space(pairs))));
        int one_proc = isl_map_is_subset(pairs, id) == isl_bool_true;
        isl_map_free(id);
        isl_map_free(pairs);
        if (!one_proc) {
            if (bad) *bad = i;
            return 0;
        }
    }
    return 1;
}

/* ---- the copies: each private scalar an array over the processors -------------------------- */

typedef struct expander { ir_program *p; const char *const *names; int n; const char *pname; } expander;

static int private_name(const expander *x, const char *name)
{
    for (int k = 0; k < x->n; k++)
        if (!strcmp(x->names[k], name)) return 1;
    return 0;
}

/* e with every use of a private array given the processor as its first subscript (in place). */
static ir_expr *expand_expr(const expander *x, ir_expr *e)
{
    if (!e) return e;
    switch (e->kind) {
    case IR_E_NAME:
        if (!private_name(x, e->u.name.id)) return e;
        ir_expr *ix = ir_new_name(x->p, x->pname);
        return ir_new_access(x->p, e->u.name.id, &ix, 1);
    case IR_E_ACCESS: {
        for (int i = 0; i < e->u.access.nidx; i++) e->u.access.idx[i] = expand_expr(x, e->u.access.idx[i]);
        if (!private_name(x, e->u.access.array)) return e;
        ir_expr *idx[e->u.access.nidx + 1];
        idx[0] = ir_new_name(x->p, x->pname);
        for (int i = 0; i < e->u.access.nidx; i++) idx[i + 1] = e->u.access.idx[i];
        return ir_new_access(x->p, e->u.access.array, idx, e->u.access.nidx + 1);
    }
    case IR_E_UNARY: case IR_E_BINARY:
        e->u.op.a = expand_expr(x, e->u.op.a);
        e->u.op.b = expand_expr(x, e->u.op.b);
        return e;
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++) e->u.call.args[i] = expand_expr(x, e->u.call.args[i]);
        return e;
    case IR_E_REDUCE:
        e->u.reduce.lo = expand_expr(x, e->u.reduce.lo);
        e->u.reduce.hi = expand_expr(x, e->u.reduce.hi);
        e->u.reduce.body = expand_expr(x, e->u.reduce.body);
        return e;
    case IR_E_REPEAT:
        e->u.repeat.k = expand_expr(x, e->u.repeat.k);
        for (int i = 0; i < e->u.repeat.nargs; i++) e->u.repeat.args[i] = expand_expr(x, e->u.repeat.args[i]);
        return e;
    default:
        return e;
    }
}

static void expand_block(const expander *x, ir_block *b);

static void expand_stmt(const expander *x, ir_stmt *st)
{
    switch (st->kind) {
    case IR_S_ASSIGN:
        st->u.assign.lhs = expand_expr(x, st->u.assign.lhs);
        st->u.assign.rhs = expand_expr(x, st->u.assign.rhs);
        break;
    case IR_S_LET: st->u.let.value = expand_expr(x, st->u.let.value); break;
    case IR_S_IF:
        st->u.if_.cond = expand_expr(x, st->u.if_.cond);
        expand_block(x, st->u.if_.then_blk);
        if (st->u.if_.else_blk) expand_block(x, st->u.if_.else_blk);
        break;
    case IR_S_FOR:
        for (int v = 0; v < st->u.for_.nvars; v++) {
            ir_loopvar *lv = &st->u.for_.vars[v];
            lv->lo = expand_expr(x, lv->lo);
            lv->hi = expand_expr(x, lv->hi);
            lv->step = expand_expr(x, lv->step);
        }
        expand_block(x, st->u.for_.body);
        break;
    default:
        break;
    }
}

static void expand_block(const expander *x, ir_block *b)
{
    for (int i = 0; b && i < b->n; i++) expand_stmt(x, b->stmts[i]);
}

/* `list` (n entries, in p) with `first` before them. */
static ir_expr **prepend(ir_program *p, ir_expr *first, ir_expr *const *list, int n)
{
    ir_expr **r = ir_alloc(p, (size_t)(n + 1) * sizeof *r);
    r[0] = first;
    for (int i = 0; i < n; i++) r[i + 1] = list[i];
    return r;
}

int xf_stm_expand(ir_program *p, const char *const *names, int n, const char *pname, const ir_expr *lo,
                  const ir_expr *hi, ir_block *body)
{
    if (!n) return 0;
    expander x = {p, names, n, pname};
    expand_block(&x, body);
    for (int i = 0; i < p->ndecls; i++) {
        ir_decl *d = p->decls[i];
        const char *nm = d->kind == IR_D_ARRAY ? d->u.array.name : d->kind == IR_D_INIT ? d->u.init.array : NULL;
        if (!nm || !private_name(&x, nm)) continue;
        if (d->kind == IR_D_ARRAY) {
            d->u.array.lo = prepend(p, ir_clone_expr(p, lo), d->u.array.lo, d->u.array.ndims);
            d->u.array.hi = prepend(p, ir_clone_expr(p, hi), d->u.array.hi, d->u.array.ndims);
            d->u.array.ndims++;
        } else {
            /* init x[..] = e  ->  init x[copy_][..] = e (every copy starts as the array did) */
            d->u.init.idx = prepend(p, ir_new_name(p, "copy_"), d->u.init.idx, d->u.init.nidx);
            d->u.init.nidx++;
        }
    }
    return 0;
}
