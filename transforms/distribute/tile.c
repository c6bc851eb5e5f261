/*
 * tile.c — processor tiling (syn → syn): the virtual processors p of the step nest are mapped
 * onto `procs` real processors rp, each enumerating its virtual processors sequentially:
 *
 *   blocked         rp owns the block  P0 + rp*b .. P0 + rp*b + b - 1,  b = (P1 - P0) / procs + 1
 *                   (the thesis's tile ⌊(n−1)/maxp⌋+1 for p in 1..n)
 *   cyclic          rp owns p with (p - P0) % procs == rp
 *   blockcyclic     blocks of `bs` dealt round-robin: block k to rp = k % procs
 *
 * P0 .. P1 is the global extent of p over all time steps, computed with isl from the step
 * nest's bounds (it is a constant of the parameters, so a virtual processor stays on one real
 * processor).  The result is `for t = .. seq, rp = 0 .. procs - 1 proc { for p = .. { body } }`
 * with the body unchanged; `procs` becomes (or stays) a parameter of the program.
 */
#include <stdlib.h>
#include <string.h>

#include <isl/ast_build.h>
#include <isl/id.h>
#include <isl/ilp.h>

#include "distribute_int.h"
#include "entries_int.h"

typedef struct nest {
    ir_stmt *outer;            /* the step nest's for */
    ir_loopvar *t, *p;
    ir_stmt *inner;            /* the for holding p when it is not in `outer`, else NULL */
} nest;

/* Finds the step nest of a syn program (after optional lets). */
static int find_nest(ir_program *prog, nest *n)
{
    memset(n, 0, sizeof *n);
    ir_block *b = prog->body;
    for (int i = 0; b && i < b->n; i++) {
        ir_stmt *s = b->stmts[i];
        if (s->kind == IR_S_LET) continue;
        if (s->kind != IR_S_FOR || i != b->n - 1) return -1;
        n->outer = s;
        n->t = &s->u.for_.vars[0];
        if (s->u.for_.nvars >= 2) {
            n->p = &s->u.for_.vars[1];
        } else {
            ir_block *bb = s->u.for_.body;
            if (bb->n != 1 || bb->stmts[0]->kind != IR_S_FOR) return -1;
            n->inner = bb->stmts[0];
            n->p = &n->inner->u.for_.vars[0];
        }
        return n->p->kind == IR_LOOP_PAR && !n->p->step ? 0 : -1;
    }
    return -1;
}

int xf_tile_applicable(const ir_program *p, char **why_not)
{
    if (p->level != IR_SYN) {
        *why_not = xasprintf("tile maps the virtual processors of a syn program (this one is %s)",
                               ir_level_name(p->level));
        return 0;
    }
    ir_program *c = ir_program_clone(p);
    nest n;
    int ok = find_nest(c, &n) == 0;
    ir_program_free(c);
    if (!ok) *why_not = xasprintf("the program's processor loop is already tiled (proc) or strided");
    return ok;
}

static int name_used(const ir_program *p, const char *nm)
{
    for (int i = 0; i < p->nparams; i++) if (!strcmp(p->params[i]->u.param.name, nm)) return 1;
    for (int i = 0; i < p->narrays; i++) if (!strcmp(p->arrays[i]->u.array.name, nm)) return 1;
    char *txt = ir_print(p);   /* crude but complete: any identifier occurrence */
    int used = 0;
    size_t L = strlen(nm);
    for (const char *q = txt; (q = strstr(q, nm)); q += L) {
        int before = q > txt && (q[-1] == '_' || (q[-1] >= 'a' && q[-1] <= 'z') || (q[-1] >= 'A' && q[-1] <= 'Z') || (q[-1] >= '0' && q[-1] <= '9'));
        char a = q[L];
        int after = a == '_' || (a >= 'a' && a <= 'z') || (a >= 'A' && a <= 'Z') || (a >= '0' && a <= '9');
        if (!before && !after) { used = 1; break; }
    }
    free(txt);
    return used;
}

static const char *fresh(const ir_program *p, const char *const *cands)
{
    for (int i = 0; cands[i]; i++) if (!name_used(p, cands[i])) return cands[i];
    return NULL;
}

/* Inserts a parameter declaration after the last one (cont: on the same line as it). */
static void add_param(ir_program *p, const char *name, ir_expr *value, int cont)
{
    ir_decl *d = ir_new_decl(p, IR_D_PARAM);
    d->u.param.name = ir_strdup(p, name);
    d->u.param.value = value;
    d->u.param.cont = cont;
    int at = 0;
    for (int i = 0; i < p->ndecls; i++) if (p->decls[i]->kind == IR_D_PARAM) at = i + 1;
    ir_decl **nd = ir_alloc(p, (size_t)(p->ndecls + 1) * sizeof *nd);
    for (int i = 0, k = 0; i <= p->ndecls; i++) nd[i] = i == at ? d : p->decls[k++];
    p->decls = nd;
    p->ndecls++;
}

static ir_expr *bin(ir_program *p, ir_op op, ir_expr *a, ir_expr *b) { return ir_new_binary(p, op, a, b); }
static ir_expr *nm(ir_program *p, const char *n) { return ir_new_name(p, n); }
static ir_expr *cl(ir_program *p, const ir_expr *e) { return ir_clone_expr(p, e); }
static ir_expr *call2(ir_program *p, ir_func f, ir_expr *a, ir_expr *b)
{
    ir_expr *args[2] = {a, b};
    return ir_new_call(p, f, args, 2);
}

/* The global extent P0 .. P1 of the processor variable, as IR expressions in `out`. */
static int extent(const ir_program *src, const nest *n, ir_program *out, ir_expr **p0, ir_expr **p1,
                  int64_t *v0, int64_t *v1, const xf_args *args, diag_list *d)
{
    xf_model *m = xf_model_build(src, args->bindings, args->nbindings, 0, d);
    if (!m) return -1;
    strbuf b = {0}, tl = {0}, th = {0}, pl = {0}, ph = {0};
    int ok = xf_isl_expr(&tl, n->t->lo, NULL, 0) == 0 && xf_isl_expr(&th, n->t->hi, NULL, 0) == 0 &&
             xf_isl_expr(&pl, n->p->lo, NULL, 0) == 0 && xf_isl_expr(&ph, n->p->hi, NULL, 0) == 0;
    char tmp1[80], tmp2[80];
    const char *tv = xf_isl_name(n->t->var, tmp1, sizeof tmp1), *pv = xf_isl_name(n->p->var, tmp2, sizeof tmp2);
    if (ok) strbuf_printf(&b, "%s -> { [%s, %s] : %s <= %s <= %s and %s <= %s <= %s }", m->params, tv, pv,
                          tl.s, tv, th.s, pl.s, pv, ph.s);
    strbuf_free(&tl); strbuf_free(&th); strbuf_free(&pl); strbuf_free(&ph);
    isl_set *set = ok ? isl_set_read_from_str(m->ctx, b.s) : NULL;
    strbuf_free(&b);
    if (!set) {
        diag_add(d, src->file, n->p->pos.line, n->p->pos.col,
                 "tile: the bounds of the step nest are not affine: cannot compute the processor range");
        xf_model_free(m);
        return -1;
    }
    set = isl_set_intersect_params(set, xf_model_context(m));
    isl_ast_build *build = isl_ast_build_from_context(xf_model_context(m));
    isl_ast_expr *e0 = isl_ast_build_expr_from_pw_aff(build, isl_set_dim_min(isl_set_copy(set), 1));
    isl_ast_expr *e1 = isl_ast_build_expr_from_pw_aff(build, isl_set_dim_max(isl_set_copy(set), 1));
    *p0 = e0 ? xf_ast_expr(out, e0, NULL) : NULL;
    *p1 = e1 ? xf_ast_expr(out, e1, NULL) : NULL;
    isl_ast_expr_free(e0);
    isl_ast_expr_free(e1);
    isl_ast_build_free(build);
    /* the values at the parameters used */
    char *fx = xstrdup(m->params);
    strbuf c = {0};
    strbuf_printf(&c, "%s -> { : ", m->params);
    for (int i = 0; i < m->npnames; i++) strbuf_printf(&c, "%s%s = %lld", i ? " and " : "", m->pnames[i], (long long)m->pvalues[i]);
    strbuf_printf(&c, " }");
    isl_set *fixed = isl_set_intersect_params(isl_set_copy(set), isl_set_read_from_str(m->ctx, c.s));
    strbuf_free(&c);
    free(fx);
    isl_val *a = isl_set_dim_min_val(isl_set_copy(fixed), 1), *z = isl_set_dim_max_val(fixed, 1);
    *v0 = a && isl_val_is_int(a) ? isl_val_get_num_si(a) : 0;
    *v1 = z && isl_val_is_int(z) ? isl_val_get_num_si(z) : -1;
    isl_val_free(a);
    isl_val_free(z);
    isl_set_free(set);
    xf_model_free(m);
    if (!*p0 || !*p1) {
        diag_add(d, src->file, n->p->pos.line, n->p->pos.col,
                 "tile: the processor range is not expressible in the language");
        return -1;
    }
    return 0;
}

/* ---- block2d ------------------------------------------------------------------------------- */

static int same_expr(const ir_expr *a, const ir_expr *b)
{
    char *x = ir_print_expr(a), *y = ir_print_expr(b);
    int r = !strcmp(x, y);
    free(x);
    free(y);
    return r;
}

/* `let v = [lo +] p OP w`: returns the let's offset (or NULL for none) and w. */
static int lin_let(const ir_stmt *s, const char *pv, ir_op op, const ir_expr **lo, const ir_expr **w)
{
    if (s->kind != IR_S_LET) return 0;
    const ir_expr *e = s->u.let.value;
    *lo = NULL;
    if (e->kind == IR_E_BINARY && e->u.op.op == IR_OP_ADD && e->u.op.b->kind == IR_E_BINARY &&
        e->u.op.b->u.op.op == op) {
        *lo = e->u.op.a;
        e = e->u.op.b;
    }
    if (e->kind != IR_E_BINARY || e->u.op.op != op || e->u.op.a->kind != IR_E_NAME ||
        strcmp(e->u.op.a->u.name.id, pv))
        return 0;
    *w = e->u.op.b;
    return 1;
}

static int uses_name_expr(const ir_expr *e, const char *nm)
{
    if (!e) return 0;
    switch (e->kind) {
    case IR_E_NAME: return !strcmp(e->u.name.id, nm);
    case IR_E_ACCESS:
        for (int i = 0; i < e->u.access.nidx; i++) if (uses_name_expr(e->u.access.idx[i], nm)) return 1;
        return 0;
    case IR_E_UNARY: case IR_E_BINARY: return uses_name_expr(e->u.op.a, nm) || uses_name_expr(e->u.op.b, nm);
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++) if (uses_name_expr(e->u.call.args[i], nm)) return 1;
        return 0;
    case IR_E_REDUCE:
        return uses_name_expr(e->u.reduce.lo, nm) || uses_name_expr(e->u.reduce.hi, nm) ||
               uses_name_expr(e->u.reduce.body, nm);
    default: return 0;
    }
}

static int uses_name_block(const ir_block *b, const char *nm);
static int uses_name_stmt(const ir_stmt *s, const char *nm)
{
    switch (s->kind) {
    case IR_S_ASSIGN: return uses_name_expr(s->u.assign.lhs, nm) || uses_name_expr(s->u.assign.rhs, nm);
    case IR_S_LET: return uses_name_expr(s->u.let.value, nm);
    case IR_S_IF: return uses_name_expr(s->u.if_.cond, nm) || uses_name_block(s->u.if_.then_blk, nm) ||
                         uses_name_block(s->u.if_.else_blk, nm);
    case IR_S_FOR:
        for (int i = 0; i < s->u.for_.nvars; i++)
            if (uses_name_expr(s->u.for_.vars[i].lo, nm) || uses_name_expr(s->u.for_.vars[i].hi, nm) ||
                uses_name_expr(s->u.for_.vars[i].step, nm))
                return 1;
        return uses_name_block(s->u.for_.body, nm);
    case IR_S_SEND:
        return uses_name_expr(s->u.send.what, nm) || uses_name_expr(s->u.send.to_lo, nm) ||
               uses_name_expr(s->u.send.to_hi, nm) || uses_name_expr(s->u.send.at, nm) ||
               uses_name_expr(s->u.send.when, nm);
    case IR_S_COLL: return 1;   /* tile works on syn programs, which have none */
    case IR_S_RECV: return 0;
    }
    return 0;
}
static int uses_name_block(const ir_block *b, const char *nm)
{
    for (int i = 0; b && i < b->n; i++) if (uses_name_stmt(b->stmts[i], nm)) return 1;
    return 0;
}

/* `block2d`: the two allocation dimensions that stm linearised into p (p = 0 .. W1 * W2 - 1 with
 * `let a = [lo1 +] p / W2` and `let b = [lo2 +] p % W2` at the top of the body) are tiled on a
 * q x q grid of real processors, q = isqrt(procs): processor rp owns rows rp / q and columns
 * rp % q of square-ish tiles (the thesis's Fig. 5.4). */
static ir_program *block2d(const ir_program *src, const xf_args *args, long procs, diag_list *d, int *status)
{
    *status = XF_EREFUSED;
    ir_program *p = ir_program_clone(src);
    nest n;
    find_nest(p, &n);
    ir_block *body = n.inner ? n.inner->u.for_.body : n.outer->u.for_.body;
    int rest = n.inner ? n.inner->u.for_.nvars - 1 : n.outer->u.for_.nvars - 2;
    const char *pv = n.p->var;
    int ia = -1, ib = -1;
    const ir_expr *lo1 = NULL, *lo2 = NULL, *w2a = NULL, *w2b = NULL;
    for (int i = 0; i < body->n; i++) {
        const ir_expr *lo, *w;
        if (ia < 0 && lin_let(body->stmts[i], pv, IR_OP_DIV, &lo, &w)) { ia = i; lo1 = lo; w2a = w; }
        else if (ib < 0 && lin_let(body->stmts[i], pv, IR_OP_MOD, &lo, &w)) { ib = i; lo2 = lo; w2b = w; }
        else if (body->stmts[i]->kind != IR_S_LET) break;
    }
    const ir_expr *hi = n.p->hi;
    int ok = rest == 0 && ia >= 0 && ib >= 0 && same_expr(w2a, w2b) && n.p->lo->kind == IR_E_INT &&
             n.p->lo->u.ival == 0 && hi->kind == IR_E_BINARY && hi->u.op.op == IR_OP_SUB &&
             hi->u.op.b->kind == IR_E_INT && hi->u.op.b->u.ival == 1 && hi->u.op.a->kind == IR_E_BINARY &&
             hi->u.op.a->u.op.op == IR_OP_MUL && same_expr(hi->u.op.a->u.op.b, w2a);
    if (!ok) {
        diag_add(d, src->file, n.p->pos.line, n.p->pos.col,
                 "tile block2d needs a two-dimensional allocation linearised into %s (stm sigma=A,B: "
                 "%s = 0 .. W1 * W2 - 1 with let a = %s / W2 and let b = %s %% W2)", pv, pv, pv, pv);
        ir_program_free(p);
        return NULL;
    }
    const ir_expr *w1 = hi->u.op.a->u.op.a, *w2 = w2a;
    /* procs: a square, at most the number of virtual processors */
    ir_decl *pd = NULL;
    for (int i = 0; i < p->ndecls; i++)
        if (p->decls[i]->kind == IR_D_PARAM && !strcmp(p->decls[i]->u.param.name, "procs")) pd = p->decls[i];
    if (pd && procs > 0) pd->u.param.value = ir_new_int(p, procs);
    if (!pd) add_param(p, "procs", ir_new_int(p, procs > 0 ? procs : 4), 1);
    static const char *const qc[] = {"q", "q_", "grid", NULL};
    static const char *const bc1[] = {"b", "b1", "tb", NULL};
    static const char *const bc2[] = {"b2", "tb2", "b_2", NULL};
    static const char *const rpc[] = {"rp", "rp_", "rproc", NULL};
    const char *q = fresh(src, qc), *b1 = fresh(src, bc1), *rp = fresh(src, rpc);
    int square = same_expr(w1, w2);
    const char *b2 = square ? b1 : fresh(src, bc2);
    add_param(p, q, ir_new_call(p, IR_F_ISQRT, (ir_expr *[]){nm(p, "procs")}, 1), 0);
    add_param(p, b1, ir_new_call(p, IR_F_CEIL, (ir_expr *[]){bin(p, IR_OP_DIV, cl(p, w1), nm(p, q))}, 1), 1);
    if (!square)
        add_param(p, b2, ir_new_call(p, IR_F_CEIL, (ir_expr *[]){bin(p, IR_OP_DIV, cl(p, w2), nm(p, q))}, 1), 1);
    /* check procs at the parameter values: a square, not more than the tiles */
    p->checked = 0;
    diag_list cd;
    diag_list_init(&cd);
    if (ir_check(p, &cd) == 0) {
        int64_t vals[p->nparams + 1];
        if (ir_params_eval(p, args->bindings, args->nbindings, 0, vals, &cd) == 0) {
            int64_t P = 0, Q = 0, W1 = 0, W2 = 0, iv;
            double rv;
            int isr;
            for (int i = 0; i < p->nparams; i++) {
                if (!strcmp(p->params[i]->u.param.name, "procs")) P = vals[i];
                if (!strcmp(p->params[i]->u.param.name, q)) Q = vals[i];
            }
            if (ir_const_eval(p, w1, vals, &iv, &rv, &isr, &cd) == 0) W1 = iv;
            if (ir_const_eval(p, w2, vals, &iv, &rv, &isr, &cd) == 0) W2 = iv;
            if (P < 1 || Q * Q != P || Q > W1 || Q > W2) {
                diag_add(d, NULL, 0, 0, "tile block2d: procs=%lld must be a square number q*q with q at most "
                         "the %lld x %lld virtual processors", (long long)P, (long long)W1, (long long)W2);
                diag_list_free(&cd);
                ir_program_free(p);
                *status = XF_EUSAGE;
                return NULL;
            }
        }
    }
    diag_list_free(&cd);
    /* the tile loops: a over rp / q's rows, b over rp % q's columns */
    const char *av = body->stmts[ia]->u.let.var, *bv = body->stmts[ib]->u.let.var;
    ir_stmt *inner = ir_new_stmt(p, IR_S_FOR);
    inner->u.for_.nvars = 2;
    inner->u.for_.vars = ir_alloc(p, 2 * sizeof *inner->u.for_.vars);
    for (int dd = 0; dd < 2; dd++) {
        const ir_expr *lo = dd ? lo2 : lo1, *w = dd ? w2 : w1;
        const char *bn = dd ? b2 : b1;
        ir_expr *blk = bin(p, dd ? IR_OP_MOD : IR_OP_DIV, nm(p, rp), nm(p, q));
        ir_expr *first = bin(p, IR_OP_MUL, blk, nm(p, bn));
        if (lo) first = bin(p, IR_OP_ADD, cl(p, lo), first);
        ir_expr *end = lo ? bin(p, IR_OP_ADD, cl(p, lo), cl(p, w)) : cl(p, w);
        ir_loopvar *v = &inner->u.for_.vars[dd];
        v->var = ir_strdup(p, dd ? bv : av);
        v->lo = first;
        v->hi = bin(p, IR_OP_SUB, call2(p, IR_F_MIN, bin(p, IR_OP_ADD, cl(p, first), nm(p, bn)), end), ir_new_int(p, 1));
        v->kind = IR_LOOP_DEFAULT;
    }
    inner->u.for_.body = ir_new_block(p);
    int usep = 0;
    for (int i = 0; i < body->n; i++) if (i != ia && i != ib) usep |= uses_name_stmt(body->stmts[i], pv);
    if (usep) {   /* p = (a - lo1) * W2 + (b - lo2) */
        ir_stmt *let = ir_new_stmt(p, IR_S_LET);
        let->u.let.var = ir_strdup(p, pv);
        ir_expr *a = lo1 ? bin(p, IR_OP_SUB, nm(p, av), cl(p, lo1)) : nm(p, av);
        ir_expr *b = lo2 ? bin(p, IR_OP_SUB, nm(p, bv), cl(p, lo2)) : nm(p, bv);
        let->u.let.value = bin(p, IR_OP_ADD, bin(p, IR_OP_MUL, a, cl(p, w2)), b);
        ir_block_append(p, inner->u.for_.body, let);
    }
    for (int i = 0; i < body->n; i++)
        if (i != ia && i != ib) ir_block_append(p, inner->u.for_.body, body->stmts[i]);
    ir_loopvar tv = *n.t;
    ir_stmt *outer = n.outer;
    outer->u.for_.nvars = 2;
    outer->u.for_.vars = ir_alloc(p, 2 * sizeof *outer->u.for_.vars);
    outer->u.for_.vars[0] = tv;
    outer->u.for_.vars[1] = (ir_loopvar){.var = ir_strdup(p, rp), .lo = ir_new_int(p, 0),
                                         .hi = bin(p, IR_OP_SUB, nm(p, "procs"), ir_new_int(p, 1)),
                                         .kind = IR_LOOP_PROC};
    outer->u.for_.body = ir_new_block(p);
    ir_block_append(p, outer->u.for_.body, inner);
    if (xf_check_generated("tile", p, d) != 0) return NULL;
    *status = XF_OK;
    return p;
}

static const char *const tile_keys[] = {"kind", "procs", "bs"};

/* The kinds of tiling, by their kind= names (each also a bare word: `tile cyclic`). */
enum { TILE_BLOCKED, TILE_CYCLIC, TILE_BLOCKCYCLIC, TILE_BLOCK2D, TILE_NKINDS };
static const char *const tile_kinds[TILE_NKINDS] = {"blocked", "cyclic", "blockcyclic", "block2d"};

/* One tiling being built, between the phases of xf_tile_apply. */
typedef struct tile_run {
    const ir_program *src;
    ir_program *p;            /* the clone being rewritten (owned) */
    nest n;                   /* its step nest */
    int kind;                 /* TILE_* */
    long procs, bs;           /* procs=N (-1: not given), bs=N (blockcyclic) */
    ir_expr *P0, *P1;         /* the global extent of p over all time steps, in p */
    const char *rp, *bn;      /* the real processor variable; blocked: the block size parameter */
} tile_run;

static int tile_key_known(const char *key)
{
    for (size_t k = 0; k < sizeof tile_keys / sizeof tile_keys[0]; k++) if (!strcmp(key, tile_keys[k])) return 1;
    for (int k = 0; k < TILE_NKINDS; k++) if (!strcmp(key, tile_kinds[k])) return 1;
    return 0;
}

/* A number >= 1 from parameter `key` (its text s) into *out; -1 with the error `what`. */
static int tile_count(const char *key, const char *s, const char *what, long *out, diag_list *d)
{
    char *end;
    *out = strtol(s, &end, 10);
    if (!*s || *end || *out < 1) {
        diag_add(d, NULL, 0, 0, "tile: %s=%s: expected %s >= 1", key, s, what);
        return -1;
    }
    return 0;
}

/* The parameters: kind (or a bare kind word), procs, bs. */
static int tile_args(tile_run *r, const xf_args *args, diag_list *d)
{
    for (int i = 0; i < args->n; i++)
        if (!tile_key_known(args->items[i].key) || args->items[i].label) {
            diag_add(d, NULL, 0, 0, "tile: unknown parameter '%s' (kind, procs, bs)", args->items[i].key);
            return -1;
        }
    const char *kind = xf_args_get(args, "kind", NULL);
    for (int k = TILE_CYCLIC; !kind && k < TILE_NKINDS; k++)
        if (xf_args_get(args, tile_kinds[k], NULL)) kind = tile_kinds[k];
    if (!kind) kind = tile_kinds[TILE_BLOCKED];
    r->kind = -1;
    for (int k = 0; k < TILE_NKINDS; k++) if (!strcmp(kind, tile_kinds[k])) r->kind = k;
    if (r->kind < 0) {
        diag_add(d, NULL, 0, 0, "tile: kind=%s: expected blocked, cyclic, blockcyclic or block2d", kind);
        return -1;
    }
    const char *ps = xf_args_get(args, "procs", NULL), *bss = xf_args_get(args, "bs", NULL);
    r->procs = -1;
    r->bs = 1;
    if (ps && tile_count("procs", ps, "a number of processors", &r->procs, d) != 0) return -1;
    if (bss && tile_count("bs", bss, "a block size", &r->bs, d) != 0) return -1;
    if (r->kind == TILE_BLOCKCYCLIC && !bss) {
        diag_add(d, NULL, 0, 0, "tile: blockcyclic needs bs=BLOCKSIZE");
        return -1;
    }
    return 0;
}

/* The parameter procs (an existing one keeps its place, its value replaced when given) and the
 * extent P0 .. P1; procs larger than the processor range is an error at the parameter values
 * used (*status XF_EUSAGE). */
static int tile_procs(tile_run *r, const xf_args *args, diag_list *d, int *status)
{
    ir_program *p = r->p;
    const ir_program *src = r->src;
    ir_decl *pd = NULL;
    for (int i = 0; i < p->ndecls; i++)
        if (p->decls[i]->kind == IR_D_PARAM && !strcmp(p->decls[i]->u.param.name, "procs")) pd = p->decls[i];
    if (pd && r->procs > 0) pd->u.param.value = ir_new_int(p, r->procs);
    if (!pd) add_param(p, "procs", ir_new_int(p, r->procs > 0 ? r->procs : 4), 1);
    int64_t v0, v1;
    if (extent(src, &r->n, p, &r->P0, &r->P1, &v0, &v1, args, d) < 0) return -1;
    int64_t pv = r->procs > 0 ? r->procs : 4;
    if (pd && r->procs <= 0) {
        int64_t vals[src->nparams + 1];
        diag_list dd;
        diag_list_init(&dd);
        if (ir_params_eval(src, args->bindings, args->nbindings, 0, vals, &dd) == 0)
            for (int i = 0; i < src->nparams; i++)
                if (!strcmp(src->params[i]->u.param.name, "procs")) pv = vals[i];
        diag_list_free(&dd);
    }
    int64_t nv = v1 - v0 + 1;
    if (pv > nv && nv > 1) {
        diag_add(d, NULL, 0, 0, "tile: procs=%lld is larger than the %lld virtual processors (%lld .. %lld)",
                 (long long)pv, (long long)nv, (long long)v0, (long long)v1);
        *status = XF_EUSAGE;
        return -1;
    }
    /* One virtual processor: a mapping that keeps everything on one processor (the only legal
     * kind for in-place floyd-warshall, whose sweeps read the row they write) still runs on the
     * procs asked for; processor 0 computes, the others stay idle, and the cost says so. */
    if (pv > nv && args->report)
        fprintf(args->report, "tile: one virtual processor: real processor 0 computes, 1 .. %lld stay idle\n",
                (long long)pv - 1);
    return 0;
}

/* Fresh names: the real processor variable rp and (blocked) the block size parameter
 * b = (P1 - P0) / procs + 1. */
static int tile_names(tile_run *r, diag_list *d)
{
    static const char *const rpc[] = {"rp", "rp_", "rproc", NULL};
    static const char *const bc[] = {"b", "tb", "b_", "tile", NULL};
    ir_program *p = r->p;
    int blocked = r->kind == TILE_BLOCKED;
    r->rp = fresh(r->src, rpc);
    r->bn = blocked ? fresh(r->src, bc) : NULL;
    if (!r->rp || (blocked && !r->bn)) {
        diag_add(d, NULL, 0, 0, "tile: no free name for the real processor variable");
        return -1;
    }
    if (blocked)
        add_param(p, r->bn, bin(p, IR_OP_ADD, bin(p, IR_OP_DIV, bin(p, IR_OP_SUB, cl(p, r->P1), cl(p, r->P0)),
                                                  nm(p, "procs")), ir_new_int(p, 1)), 0);
    return 0;
}

/* The loop over rp's virtual processors (*pl); blockcyclic: inside the loop over its blocks
 * kb = rp, rp + procs, .. (*kloop, its body not yet set). */
static void tile_proc_range(tile_run *r, ir_loopvar *pl, ir_stmt **kloop)
{
    ir_program *p = r->p;
    const char *rp = r->rp, *bn = r->bn;
    ir_expr *lo = r->n.p->lo, *hi = r->n.p->hi;
    *pl = *r->n.p;
    pl->kind = IR_LOOP_DEFAULT;
    *kloop = NULL;
    if (r->kind == TILE_BLOCKED) {
        ir_expr *first = bin(p, IR_OP_ADD, cl(p, r->P0), bin(p, IR_OP_MUL, nm(p, rp), nm(p, bn)));
        pl->lo = call2(p, IR_F_MAX, lo, first);
        pl->hi = call2(p, IR_F_MIN, hi, bin(p, IR_OP_SUB, bin(p, IR_OP_ADD, cl(p, first), nm(p, bn)), ir_new_int(p, 1)));
    } else if (r->kind == TILE_CYCLIC) {
        /* the first p >= lo with p ≡ P0 + rp (mod procs) */
        pl->lo = bin(p, IR_OP_ADD, cl(p, lo),
                     bin(p, IR_OP_MOD, bin(p, IR_OP_SUB, bin(p, IR_OP_ADD, cl(p, r->P0), nm(p, rp)), cl(p, lo)),
                         nm(p, "procs")));
        pl->step = nm(p, "procs");
    } else {
        /* blocks kb = rp, rp + procs, ...; each its bs processors */
        static const char *const kbc[] = {"kb", "kb_", "blk", NULL};
        const char *kb = fresh(r->src, kbc);
        ir_expr *first = bin(p, IR_OP_ADD, cl(p, r->P0), bin(p, IR_OP_MUL, nm(p, kb), ir_new_int(p, r->bs)));
        pl->lo = call2(p, IR_F_MAX, lo, first);
        pl->hi = call2(p, IR_F_MIN, hi, bin(p, IR_OP_ADD, cl(p, first), ir_new_int(p, r->bs - 1)));
        ir_stmt *k = *kloop = ir_new_stmt(p, IR_S_FOR);
        k->u.for_.nvars = 1;
        k->u.for_.vars = ir_alloc(p, sizeof *k->u.for_.vars);
        k->u.for_.vars[0] = (ir_loopvar){.var = ir_strdup(p, kb), .lo = nm(p, rp),
            .hi = bin(p, IR_OP_DIV, bin(p, IR_OP_SUB, cl(p, r->P1), cl(p, r->P0)), ir_new_int(p, r->bs)),
            .step = nm(p, "procs"), .kind = IR_LOOP_DEFAULT};
    }
}

/* The new nest: `for t, rp proc { [for kb {] for p = pl, <the variables after p> { body } [}] }`. */
static void tile_nest(tile_run *r, ir_loopvar pl, ir_stmt *kloop)
{
    ir_program *p = r->p;
    nest *n = &r->n;
    ir_stmt *inner = ir_new_stmt(p, IR_S_FOR);
    ir_stmt *holder = n->inner ? n->inner : n->outer;   /* the for holding p */
    int after = n->inner ? 1 : 2;                       /* p's position + 1 in it */
    int rest = holder->u.for_.nvars - after;            /* variables after p in its for */
    inner->u.for_.vars = ir_alloc(p, (size_t)(rest + 1) * sizeof *inner->u.for_.vars);
    for (int i = 0; i < rest; i++) inner->u.for_.vars[i + 1] = holder->u.for_.vars[i + after];
    inner->u.for_.vars[0] = pl;
    inner->u.for_.nvars = rest + 1;
    inner->u.for_.body = holder->u.for_.body;
    /* the step nest: t, rp */
    ir_loopvar tv = *n->t;
    ir_stmt *outer = n->outer;
    outer->u.for_.nvars = 2;
    outer->u.for_.vars = ir_alloc(p, 2 * sizeof *outer->u.for_.vars);
    outer->u.for_.vars[0] = tv;
    outer->u.for_.vars[1] = (ir_loopvar){.var = ir_strdup(p, r->rp), .lo = ir_new_int(p, 0),
                                         .hi = bin(p, IR_OP_SUB, nm(p, "procs"), ir_new_int(p, 1)),
                                         .kind = IR_LOOP_PROC};
    outer->u.for_.body = ir_new_block(p);
    if (kloop) {
        kloop->u.for_.body = ir_new_block(p);
        ir_block_append(p, kloop->u.for_.body, inner);
        ir_block_append(p, outer->u.for_.body, kloop);
    } else {
        ir_block_append(p, outer->u.for_.body, inner);
    }
}

ir_program *xf_tile_apply(const ir_program *src, const xf_args *args, diag_list *d, int *status)
{
    tile_run r;
    memset(&r, 0, sizeof r);
    r.src = src;
    *status = XF_EUSAGE;
    if (tile_args(&r, args, d) != 0) return NULL;
    *status = XF_EREFUSED;
    /* applicability was checked by the registry (xf_apply_with) before this call */
    if (r.kind == TILE_BLOCK2D) return block2d(src, args, r.procs, d, status);
    r.p = ir_program_clone(src);
    find_nest(r.p, &r.n);
    if (tile_procs(&r, args, d, status) != 0 || tile_names(&r, d) != 0) {
        ir_program_free(r.p);
        return NULL;
    }
    ir_loopvar pl;
    ir_stmt *kloop;
    tile_proc_range(&r, &pl, &kloop);
    tile_nest(&r, pl, kloop);
    if (xf_check_generated("tile", r.p, d) != 0) return NULL;
    *status = XF_OK;
    return r.p;
}
