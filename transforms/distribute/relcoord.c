/*
 * relcoord.c — relative coordinates (syndm → syndm): every processor indexes its local memory
 * from 0, as the exported code will.  A distribution `dist a(rp) [lo .. hi]...` in absolute
 * coordinates becomes `dist a(rp) [0 .. hi - lo]... offset [lo]...` (global = local + offset),
 * every element access a[e]... of the step nest becomes a[e - lo(rp)]..., and a message carries
 * the element's index at its receiver: `send ... to d as [e - lo(d)]...` (a send to a range of
 * processors needs offsets that do not depend on the processor).  A pieced local memory (several
 * pieces, ragged ranges) stays in absolute coordinates: its accesses name global indices, and the
 * exporter lays its pieces out.
 */
#include <stdlib.h>
#include <string.h>

#include "distribute_int.h"
#include "entries_int.h"



/* Lets of the processor's own offsets, at the top of its body. */
#define MAXLETS 64
typedef struct lets { ir_stmt *st[MAXLETS]; const char *text[MAXLETS]; int n; } lets;

typedef struct rc {
    ir_program *p;
    const char *rp;            /* the step nest's processor variable */
    ir_decl **dist;            /* per array: its (old) LOCAL dist or NULL */
    int narr;
    int ok;
    diag_list *d;
    const char *dest;          /* the variable of a loop over a range send's receivers */
    char *text;                /* the source program's text (fresh names avoid it) */
    int nlets;
    lets top;                  /* the processor's own offsets */
} rc;

/* x compressed for a strided dimension k of dd: x / s, or x / s * b + x % s (takes x). */
static ir_expr *compress(ir_program *p, ir_expr *x, const ir_decl *dd, int k)
{
    const ir_expr *st = dd->u.dist.step ? dd->u.dist.step[k] : NULL, *bl = st ? dd->u.dist.block[k] : NULL;
    if (!st) return x;
    ir_expr *q = ir_new_binary(p, IR_OP_DIV, x, ir_clone_expr(p, st));
    if (!bl) return q;
    return ir_new_binary(p, IR_OP_ADD, ir_new_binary(p, IR_OP_MUL, q, ir_clone_expr(p, bl)),
                         ir_new_binary(p, IR_OP_MOD, ir_clone_expr(p, x), ir_clone_expr(p, st)));
}

/* Is e a sum of names and numbers times numbers (short enough to repeat in each subscript)? */
static int linear(const ir_expr *e)
{
    switch (e->kind) {
    case IR_E_INT: case IR_E_NAME: return 1;
    case IR_E_UNARY: return e->u.op.op == IR_OP_NEG && linear(e->u.op.a);
    case IR_E_BINARY:
        if (e->u.op.op == IR_OP_ADD || e->u.op.op == IR_OP_SUB) return linear(e->u.op.a) && linear(e->u.op.b);
        return e->u.op.op == IR_OP_MUL && (e->u.op.a->kind == IR_E_INT || e->u.op.b->kind == IR_E_INT) &&
               linear(e->u.op.a) && linear(e->u.op.b);
    default: return 0;
    }
}

/* The name of a let holding offset o in scope sc (a new let when none does yet). */
static ir_expr *offset_let(rc *c, lets *sc, ir_expr *o)
{
    char *t = ir_print_expr(o);
    for (int i = 0; i < sc->n; i++)
        if (!strcmp(sc->text[i], t)) { free(t); return ir_new_name(c->p, sc->st[i]->u.let.var); }
    if (sc->n == MAXLETS) { free(t); return o; }
    char nm[32];
    do snprintf(nm, sizeof nm, "o%d", ++c->nlets); while (strstr(c->text, nm));
    ir_stmt *l = ir_new_stmt(c->p, IR_S_LET);
    l->u.let.var = ir_strdup(c->p, nm);
    l->u.let.value = o;
    sc->text[sc->n] = ir_strdup(c->p, t);
    sc->st[sc->n++] = l;
    free(t);
    return ir_new_name(c->p, l->u.let.var);
}

/* The local index of global index e in dimension k: e - lo (lo's processor variable replaced
 * by `who`), compressed when strided.  In a subscript (sc: the processor's own lets) a lo that
 * is more than a sum becomes a let; at a receiver (sc NULL: an `as` index, which need not be
 * affine) it is the sender's own offset plus a constant when it is one, else written out. */
static ir_expr *shift(rc *c, const ir_expr *e, const ir_decl *dd, int k, const ir_expr *who, lets *sc)
{
    const ir_expr *off = dd->u.dist.lo[k];
    ir_expr *o = xf_subst1(c->p, off, dd->u.dist.procvar, who);
    o = xf_simplify_int(c->p, o);
    if (!sc && !linear(o)) {
        /* a receiver's offset: the sender's own plus a difference free of processors? */
        ir_expr *mine = xf_simplify_int(c->p, ir_clone_expr(c->p, off));
        ir_expr *df = xf_simplify_int(c->p, ir_new_binary(c->p, IR_OP_SUB, ir_clone_expr(c->p, o), ir_clone_expr(c->p, mine)));
        if (linear(df) && !xf_mentions(df, dd->u.dist.procvar) && !xf_mentions(df, c->dest) && !xf_mentions(df, c->rp)) {
            ir_expr *x = ir_new_binary(c->p, IR_OP_SUB, ir_clone_expr(c->p, e), linear(mine) ? mine : offset_let(c, &c->top, mine));
            return compress(c->p, xf_simplify_int(c->p, ir_new_binary(c->p, IR_OP_SUB, x, df)), dd, k);
        }
    }
    if (sc && !linear(o)) o = offset_let(c, sc, o);   /* subscripts must stay affine; `as` need not */
    ir_expr *x = o->kind == IR_E_INT && o->u.ival == 0 ? ir_clone_expr(c->p, e)
                                                       : ir_new_binary(c->p, IR_OP_SUB, ir_clone_expr(c->p, e), o);
    return compress(c->p, x, dd, k);
}

static const ir_decl *dist_of(const rc *c, const char *array)
{
    for (int i = 0; i < c->narr; i++)
        if (c->dist[i] && !strcmp(c->dist[i]->u.dist.array, array)) return c->dist[i];
    return NULL;
}

static void local_expr(rc *c, ir_expr *e, const ir_expr *me)
{
    if (!e) return;
    switch (e->kind) {
    case IR_E_ACCESS: {
        for (int i = 0; i < e->u.access.nidx; i++) local_expr(c, e->u.access.idx[i], me);
        const ir_decl *dd = dist_of(c, e->u.access.array);
        if (dd)
            for (int i = 0; i < e->u.access.nidx && i < dd->u.dist.ndims; i++)
                e->u.access.idx[i] = shift(c, e->u.access.idx[i], dd, i, me, &c->top);
        break;
    }
    case IR_E_UNARY: case IR_E_BINARY: local_expr(c, e->u.op.a, me); local_expr(c, e->u.op.b, me); break;
    case IR_E_CALL: for (int i = 0; i < e->u.call.nargs; i++) local_expr(c, e->u.call.args[i], me); break;
    case IR_E_REDUCE: local_expr(c, e->u.reduce.lo, me); local_expr(c, e->u.reduce.hi, me); local_expr(c, e->u.reduce.body, me); break;
    default: break;
    }
}

static void local_block(rc *c, ir_block *b, const ir_expr *me);
static void insert_at(ir_program *p, ir_block *b, int pos, ir_stmt *s)
{
    ir_block_append(p, b, s);
    for (int i = b->n - 1; i > pos; i--) b->stmts[i] = b->stmts[i - 1];
    b->stmts[pos] = s;
}

/* Rewrites s and appends it (or the loop over receivers replacing it) to out. */
static void local_stmt(rc *c, ir_stmt *s, const ir_expr *me, ir_block *out)
{
    switch (s->kind) {
    case IR_S_ASSIGN: local_expr(c, s->u.assign.lhs, me); local_expr(c, s->u.assign.rhs, me); break;
    case IR_S_LET: local_expr(c, s->u.let.value, me); break;
    case IR_S_IF: local_expr(c, s->u.if_.cond, me); local_block(c, s->u.if_.then_blk, me); local_block(c, s->u.if_.else_blk, me); break;
    case IR_S_FOR: local_block(c, s->u.for_.body, me); break;
    case IR_S_COLL: break;   /* refused by xf_relcoord_applicable */
    case IR_S_RECV: break;
    case IR_S_SEND: {
        ir_expr *w = s->u.send.what;
        const ir_decl *dd = w->kind == IR_E_ACCESS ? dist_of(c, w->u.access.array) : NULL;
        if (dd && !s->u.send.nas) {
            /* the receiver's index: global minus the receiver's offset */
            int dep = 0;
            for (int k = 0; k < dd->u.dist.ndims; k++) dep |= xf_mentions(dd->u.dist.lo[k], dd->u.dist.procvar);
            for (int k = 0; k < dd->u.dist.ndims; k++) dep |= dd->u.dist.step && dd->u.dist.step[k];
            ir_stmt *loop = NULL;
            if (s->u.send.to_hi && dep && s->cost) {
                diag_add(c->d, c->p->file, s->pos.line, s->pos.col,
                         "relcoord: a send with a cost to a range of processors whose offsets differ (array %s)",
                         dd->u.dist.array);
                c->ok = 0;
            } else if (s->u.send.to_hi && dep) {
                /* each receiver its own index: for dest = lo .. hi { send .. to dest as [..] } */
                loop = ir_new_stmt(c->p, IR_S_FOR);
                loop->pos = s->pos;
                loop->u.for_.nvars = 1;
                loop->u.for_.vars = ir_alloc(c->p, sizeof *loop->u.for_.vars);
                loop->u.for_.vars[0].var = c->dest;
                loop->u.for_.vars[0].lo = s->u.send.to_lo;
                loop->u.for_.vars[0].hi = s->u.send.to_hi;
                loop->u.for_.vars[0].pos = s->pos;
                loop->u.for_.body = ir_new_block(c->p);
                ir_block_append(c->p, loop->u.for_.body, s);
                s->u.send.to_lo = ir_new_name(c->p, c->dest);
                s->u.send.to_hi = NULL;
            }
            if (dep && c->ok) {
                s->u.send.nas = w->u.access.nidx;
                s->u.send.as_idx = ir_alloc(c->p, (size_t)s->u.send.nas * sizeof *s->u.send.as_idx);
                for (int k = 0; k < s->u.send.nas; k++)
                    s->u.send.as_idx[k] = k < dd->u.dist.ndims ? shift(c, w->u.access.idx[k], dd, k, s->u.send.to_lo, NULL)
                                                               : ir_clone_expr(c->p, w->u.access.idx[k]);
            }
            local_expr(c, s->u.send.what, me);
            local_expr(c, s->u.send.when, me);
            ir_block_append(c->p, out, loop ? loop : s);
            return;
        }
        local_expr(c, s->u.send.what, me);
        local_expr(c, s->u.send.when, me);
        break;
    }
    }
    ir_block_append(c->p, out, s);
}
static void local_block(rc *c, ir_block *b, const ir_expr *me)
{
    if (!b) return;
    ir_block *nb = ir_new_block(c->p);
    for (int i = 0; i < b->n; i++) local_stmt(c, b->stmts[i], me, nb);
    b->stmts = nb->stmts;
    b->n = nb->n;
}

/* Is e affine once it stands in a subscript (no reduction, no min/max of the processor)? */
static int affine_offset(const ir_expr *e, const char *rp)
{
    if (!e) return 1;
    switch (e->kind) {
    case IR_E_REDUCE: return 0;
    case IR_E_CALL:
        if ((e->u.call.f == IR_F_MIN || e->u.call.f == IR_F_MAX) && xf_mentions(e, rp)) return 0;
        for (int i = 0; i < e->u.call.nargs; i++) if (!affine_offset(e->u.call.args[i], rp)) return 0;
        return 1;
    case IR_E_UNARY: case IR_E_BINARY: return affine_offset(e->u.op.a, rp) && affine_offset(e->u.op.b, rp);
    default: return 1;
    }
}

int xf_relcoord_applicable(const ir_program *p, char **why_not)
{
    if (p->level != IR_SYNDM) {
        *why_not = xasprintf("relcoord works on a syndm program (this one is %s)", ir_level_name(p->level));
        return 0;
    }
    if (ir_program_has_collectives(p)) {
        *why_not = xasprintf("relcoord does not rewrite programs with collectives or repeat");
        return 0;
    }
    int any = 0;
    for (int i = 0; i < p->ndecls; i++) {
        const ir_decl *d = p->decls[i];
        if (d->kind == IR_D_DIST && d->u.dist.dk == IR_DIST_LOCAL) {
            if (d->u.dist.offset) {
                *why_not = xasprintf("the distribution of %s is already relative", d->u.dist.array);
                return 0;
            }
            any |= !ir_dist_is_pieced(d);
        }
    }
    if (!any) *why_not = xasprintf("no array has one plain local box (replicated arrays and pieced local "
                                     "memories stay in absolute coordinates)");
    return any;
}

ir_program *xf_relcoord_apply(const ir_program *src, const xf_args *args, diag_list *d, int *status)
{
    *status = XF_EUSAGE;
    if (args->n) {
        diag_add(d, NULL, 0, 0, "relcoord: unknown parameter '%s' (it has none)", args->items[0].key);
        return NULL;
    }
    *status = XF_EREFUSED;
    /* applicability was checked by the registry (xf_apply_with) before this call */
    ir_program *p = ir_program_clone(src);
    /* the step nest's processor variable */
    ir_stmt *outer = NULL;
    for (int i = 0; i < p->body->n; i++) if (p->body->stmts[i]->kind == IR_S_FOR) outer = p->body->stmts[i];
    if (!outer || outer->u.for_.nvars != 2) {
        diag_add(d, src->file, 0, 0, "relcoord: expected the step nest `for t = .. seq, rp = .. proc`");
        ir_program_free(p);
        return NULL;
    }
    rc c = {.p = p, .rp = outer->u.for_.vars[1].var, .ok = 1, .d = d, .text = ir_print(src)};
    {   /* a name for the receivers' loop that the program does not use */
        char nm[32] = "dest";
        for (int i = 1; strstr(c.text, nm); i++) snprintf(nm, sizeof nm, "dest%d", i);
        c.dest = ir_strdup(p, nm);
    }
    c.dist = ir_alloc(p, (size_t)(p->ndecls + 1) * sizeof *c.dist);
    /* keep the old (absolute) dists for rewriting, then make the declarations relative */
    for (int i = 0; i < p->ndecls; i++) {
        ir_decl *dd = p->decls[i];
        if (dd->kind != IR_D_DIST || dd->u.dist.dk != IR_DIST_LOCAL || ir_dist_is_pieced(dd)) continue;
        ir_decl *old = ir_new_decl(p, IR_D_DIST);
        *old = *dd;
        c.dist[c.narr++] = old;
        int n = dd->u.dist.ndims;
        /* an offset must stay affine in the subscripts: a bound that is not (a min or max of the
         * processor's, a reduction) gives way to the array's own lower bound (a few more elements) */
        const ir_decl *arr = NULL;
        for (int a = 0; a < p->ndecls; a++)
            if (p->decls[a]->kind == IR_D_ARRAY && !strcmp(p->decls[a]->u.array.name, dd->u.dist.array)) arr = p->decls[a];
        old->u.dist.lo = ir_alloc(p, (size_t)n * sizeof *old->u.dist.lo);
        for (int k = 0; k < n; k++) {
            old->u.dist.lo[k] = dd->u.dist.lo[k];
            int strided = dd->u.dist.step && dd->u.dist.step[k];
            if (!strided && arr && !affine_offset(dd->u.dist.lo[k], dd->u.dist.procvar))
                old->u.dist.lo[k] = ir_clone_expr(p, arr->u.array.lo[k]);
        }
        ir_expr **lo = ir_alloc(p, (size_t)n * sizeof *lo), **hi = ir_alloc(p, (size_t)n * sizeof *hi);
        ir_expr **off = ir_alloc(p, (size_t)n * sizeof *off);
        for (int k = 0; k < n; k++) {
            lo[k] = ir_new_int(p, 0);
            off[k] = ir_clone_expr(p, old->u.dist.lo[k]);
            hi[k] = old->u.dist.lo[k]->kind == IR_E_INT && old->u.dist.lo[k]->u.ival == 0
                        ? ir_clone_expr(p, old->u.dist.hi[k])
                        : ir_new_binary(p, IR_OP_SUB, ir_clone_expr(p, old->u.dist.hi[k]), ir_clone_expr(p, old->u.dist.lo[k]));
            hi[k] = compress(p, hi[k], old, k);   /* strided: the last local index */
            if (old->u.dist.block && old->u.dist.block[k]) {   /* x / s * b + min(x % s, b - 1) */
                ir_expr *args[2] = {hi[k]->u.op.b, ir_new_binary(p, IR_OP_SUB, ir_clone_expr(p, old->u.dist.block[k]),
                                                                 ir_new_int(p, 1))};
                hi[k]->u.op.b = ir_new_call(p, IR_F_MIN, args, 2);
            }
        }
        dd->u.dist.lo = lo;
        dd->u.dist.hi = hi;
        dd->u.dist.offset = off;
    }
    ir_expr *me = ir_new_name(p, c.rp);
    local_block(&c, outer->u.for_.body, me);
    for (int i = 0; i < c.top.n; i++) insert_at(p, outer->u.for_.body, i, c.top.st[i]);
    free(c.text);
    if (!c.ok) {
        ir_program_free(p);
        return NULL;
    }
    xf_simplify_program(p);
    if (xf_check_generated("relcoord", p, d) != 0) return NULL;
    *status = XF_OK;
    return p;
}
