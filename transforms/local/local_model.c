/*
 * local_model.c — the polyhedral model of one loop nest of a processor's step, for `local`.
 *
 * The nest is copied into a scratch source-level program of its own: the program's parameters
 * and arrays, and as further parameters every name the nest reads but does not bind (the time
 * step, the processor, the step's lets: inside one processor's step they are fixed).  A part of a
 * bound or subscript that mentions only such names and is not affine (`rp * b`) becomes one more
 * parameter, so that isl can read the bound; the generated code writes the expression back.
 * The scratch program is checked and modelled as any program is (transforms/poly/isl_build.c);
 * its dependences are those between the instances one processor runs in one step.  The context
 * says nothing about the added parameters: legality then holds for every step and processor.
 */
#include <stdlib.h>
#include <string.h>

#include "local_int.h"

/* ---- what a nest may hold --------------------------------------------------------------------- */

/* Why the statements of b (and below) cannot be reordered, or NULL. */
static char *unmovable_block(const ir_block *b);

static char *unmovable(const ir_stmt *s)
{
    switch (s->kind) {
    case IR_S_COLL: return xasprintf("it holds a collective (line %d)", s->pos.line);
    case IR_S_RECV: return xasprintf("it receives messages (line %d)", s->pos.line);
    case IR_S_FOR: return unmovable_block(s->u.for_.body);
    case IR_S_IF: {
        char *w = unmovable_block(s->u.if_.then_blk);
        return w ? w : unmovable_block(s->u.if_.else_blk);
    }
    default: return NULL;
    }
}

/* A point loop of a tile inside its tile's loop (`for jt = .. step 32 { .. for j = jt .. min(..,
 * jt + 31)`): the nest was tiled already.  `steps` are the loops with a step around. */
static int tiled_block(const ir_block *b, const char **steps, int n)
{
    for (int i = 0; b && i < b->n; i++) {
        const ir_stmt *s = b->stmts[i];
        if (s->kind == IR_S_IF && (tiled_block(s->u.if_.then_blk, steps, n) || tiled_block(s->u.if_.else_blk, steps, n)))
            return 1;
        if (s->kind != IR_S_FOR) continue;
        int k = n;
        const char *st[n + s->u.for_.nvars + 1];
        if (n) memcpy(st, steps, (size_t)n * sizeof *st);
        for (int v = 0; v < s->u.for_.nvars; v++) {
            const char *of = ir_point_of(&s->u.for_.vars[v], NULL);
            for (int j = 0; of && j < k; j++)
                if (!strcmp(st[j], of)) return 1;
            if (s->u.for_.vars[v].step) st[k++] = s->u.for_.vars[v].var;
        }
        if (tiled_block(s->u.for_.body, st, k)) return 1;
    }
    return 0;
}

static char *unmovable_block(const ir_block *b)
{
    if (!b) return NULL;
    if (b->cost) return xasprintf("a block of it is annotated with `cost` (line %d)",
                                  b->n ? b->stmts[0]->pos.line : 0);
    for (int i = 0; i < b->n; i++) {
        char *w = unmovable(b->stmts[i]);
        if (w) return w;
    }
    return NULL;
}

/* ---- the copy and its originals ---------------------------------------------------------------- */

static void pair_add(lx_nest *n, const ir_stmt *copy, const ir_stmt *from)
{
    n->copy = xrealloc(n->copy, (size_t)(n->npairs + 1) * sizeof *n->copy);
    n->from = xrealloc(n->from, (size_t)(n->npairs + 1) * sizeof *n->from);
    n->copy[n->npairs] = copy;
    n->from[n->npairs++] = from;
}

static void pair_block(lx_nest *n, const ir_block *c, const ir_block *f);

static void pair_stmt(lx_nest *n, const ir_stmt *c, const ir_stmt *f)
{
    pair_add(n, c, f);
    if (c->kind == IR_S_FOR) pair_block(n, c->u.for_.body, f->u.for_.body);
    if (c->kind == IR_S_IF) {
        pair_block(n, c->u.if_.then_blk, f->u.if_.then_blk);
        pair_block(n, c->u.if_.else_blk, f->u.if_.else_blk);
    }
}

static void pair_block(lx_nest *n, const ir_block *c, const ir_block *f)
{
    for (int i = 0; c && i < c->n; i++) pair_stmt(n, c->stmts[i], f->stmts[i]);
}

const ir_stmt *lx_nest_orig(const lx_nest *n, const ir_stmt *copy)
{
    for (int i = 0; i < n->npairs; i++)
        if (n->copy[i] == copy) return n->from[i];
    return NULL;
}

/* ---- names --------------------------------------------------------------------------------- */

typedef struct names { const char **v; int n; } names;

static int names_has(const names *s, const char *x)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->v[i], x)) return 1;
    return 0;
}

static void names_add(names *s, const char *x)
{
    if (names_has(s, x)) return;
    s->v = xrealloc(s->v, (size_t)(s->n + 1) * sizeof *s->v);
    s->v[s->n++] = x;
}

static void binders_expr(names *b, const ir_expr *e)
{
    if (!e) return;
    switch (e->kind) {
    case IR_E_REDUCE:
        names_add(b, e->u.reduce.var);
        binders_expr(b, e->u.reduce.body);
        return;
    case IR_E_UNARY: case IR_E_BINARY: binders_expr(b, e->u.op.a); binders_expr(b, e->u.op.b); return;
    case IR_E_CALL: for (int i = 0; i < e->u.call.nargs; i++) binders_expr(b, e->u.call.args[i]); return;
    case IR_E_ACCESS: for (int i = 0; i < e->u.access.nidx; i++) binders_expr(b, e->u.access.idx[i]); return;
    default: return;
    }
}

/* The names the nest binds: loop variables, lets, reduction variables. */
static void binders(names *b, const ir_block *blk)
{
    for (int i = 0; blk && i < blk->n; i++) {
        const ir_stmt *s = blk->stmts[i];
        if (s->kind == IR_S_FOR) {
            for (int v = 0; v < s->u.for_.nvars; v++) names_add(b, s->u.for_.vars[v].var);
            binders(b, s->u.for_.body);
        } else if (s->kind == IR_S_LET) {
            names_add(b, s->u.let.var);
            binders_expr(b, s->u.let.value);
        } else if (s->kind == IR_S_IF) {
            binders(b, s->u.if_.then_blk);
            binders(b, s->u.if_.else_blk);
        } else if (s->kind == IR_S_ASSIGN) {
            binders_expr(b, s->u.assign.lhs);
            binders_expr(b, s->u.assign.rhs);
        }
    }
}

/* Is x a parameter or an array of p (by its declarations: p need not be checked)? */
static int is_param_or_array(const ir_program *p, const char *x)
{
    for (int i = 0; i < p->ndecls; i++) {
        const ir_decl *d = p->decls[i];
        if ((d->kind == IR_D_PARAM && !strcmp(d->u.param.name, x)) ||
            (d->kind == IR_D_ARRAY && !strcmp(d->u.array.name, x)))
            return 1;
    }
    return 0;
}

static int count_params(const ir_program *p)
{
    int n = 0;
    for (int i = 0; i < p->ndecls; i++) n += p->decls[i]->kind == IR_D_PARAM;
    return n;
}

/* ---- parts isl cannot read, made parameters -------------------------------------------------- */

/* Is e an expression isl reads: affine in its names (products with a literal, quotients and
 * remainders by a positive literal, min, max, floor, ceil, abs, comparisons)? */
static int isl_readable(const ir_expr *e)
{
    int64_t k;
    switch (e->kind) {
    case IR_E_INT: case IR_E_NAME: return 1;
    case IR_E_UNARY: return isl_readable(e->u.op.a);
    case IR_E_BINARY:
        if (e->u.op.op == IR_OP_MUL)
            return (xf_int_const(e->u.op.a, &k) == 0 && isl_readable(e->u.op.b)) ||
                   (xf_int_const(e->u.op.b, &k) == 0 && isl_readable(e->u.op.a));
        if (e->u.op.op == IR_OP_DIV || e->u.op.op == IR_OP_MOD)
            return xf_int_const(e->u.op.b, &k) == 0 && k > 0 && isl_readable(e->u.op.a);
        return isl_readable(e->u.op.a) && isl_readable(e->u.op.b);
    case IR_E_CALL:
        if (e->u.call.f != IR_F_MIN && e->u.call.f != IR_F_MAX && e->u.call.f != IR_F_FLOOR &&
            e->u.call.f != IR_F_CEIL && e->u.call.f != IR_F_ABS)
            return 0;
        for (int i = 0; i < e->u.call.nargs; i++)
            if (!isl_readable(e->u.call.args[i])) return 0;
        return 1;
    default: return 0;
    }
}

/* Does isl read e's operator when it reads its operands (so that only an operand need stand for
 * itself: max(t / 2 + 1, rp * b) keeps its max and its t)? */
static int op_readable(const ir_expr *e)
{
    int64_t k;
    switch (e->kind) {
    case IR_E_INT: case IR_E_NAME: case IR_E_UNARY: return 1;
    case IR_E_BINARY:
        if (e->u.op.op == IR_OP_MUL) return xf_int_const(e->u.op.a, &k) == 0 || xf_int_const(e->u.op.b, &k) == 0;
        if (e->u.op.op == IR_OP_DIV || e->u.op.op == IR_OP_MOD) return xf_int_const(e->u.op.b, &k) == 0 && k > 0;
        return 1;
    case IR_E_CALL:
        return e->u.call.f == IR_F_MIN || e->u.call.f == IR_F_MAX || e->u.call.f == IR_F_FLOOR ||
               e->u.call.f == IR_F_CEIL || e->u.call.f == IR_F_ABS;
    default: return 0;
    }
}

/* Integer names and literals alone (no access, reduction, real), none of them bound in the nest. */
static int outer_only(const ir_expr *e, const names *bound)
{
    switch (e->kind) {
    case IR_E_INT: return 1;
    case IR_E_NAME: return !names_has(bound, e->u.name.id) && e->u.name.nk != IR_N_ARRAY;
    case IR_E_UNARY: case IR_E_BINARY:
        return outer_only(e->u.op.a, bound) && (!e->u.op.b || outer_only(e->u.op.b, bound));
    case IR_E_CALL:
        if (e->u.call.f == IR_F_SQRT || ir_libm_nargs(e->u.call.f)) return 0;
        for (int i = 0; i < e->u.call.nargs; i++)
            if (!outer_only(e->u.call.args[i], bound)) return 0;
        return 1;
    default: return 0;
    }
}

typedef struct abstr { lx_nest *n; const names *bound; char **text; } abstr;

/* Replaces each name bound outside the nest, and each part of *slot isl cannot read that
 * mentions such names only, by a parameter (a fresh name: isl's model names its own dimensions
 * o0, o1, .., and a let of the step may be called so).  `orig` is the same expression in out
 * (the parameter stands for it). */
static void abstract(abstr *a, ir_expr **slot, const ir_expr *orig)
{
    ir_expr *e = *slot;
    if (!e || !orig) return;
    int outer_name = e->kind == IR_E_NAME && e->u.name.nk != IR_N_ARRAY && !names_has(a->bound, e->u.name.id) &&
                     !is_param_or_array(a->n->out, e->u.name.id);
    if (outer_name || (outer_only(e, a->bound) && !isl_readable(e) && !op_readable(e))) {
        lx_nest *n = a->n;
        char *txt = ir_print_expr(e);
        int q = 0;
        for (; q < n->nq; q++) {
            char *t2 = ir_print_expr(n->qexpr[q]);
            int same = !strcmp(t2, txt);
            free(t2);
            if (same) break;
        }
        free(txt);
        if (q == n->nq) {
            n->qname = xrealloc(n->qname, (size_t)(n->nq + 1) * sizeof *n->qname);
            n->qexpr = xrealloc(n->qexpr, (size_t)(n->nq + 1) * sizeof *n->qexpr);
            n->qname[q] = xstrdup(xf_fresh_name(n->scratch, a->text, "lx_q"));
            n->qexpr[q] = orig;
            n->nq++;
        }
        *slot = ir_new_name(n->scratch, n->qname[q]);
        return;
    }
    switch (e->kind) {
    case IR_E_UNARY: case IR_E_BINARY:
        abstract(a, &e->u.op.a, orig->u.op.a);
        abstract(a, &e->u.op.b, orig->u.op.b);
        return;
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++) abstract(a, &e->u.call.args[i], orig->u.call.args[i]);
        return;
    case IR_E_ACCESS:
        for (int i = 0; i < e->u.access.nidx; i++) abstract(a, &e->u.access.idx[i], orig->u.access.idx[i]);
        return;
    case IR_E_REDUCE:
        abstract(a, &e->u.reduce.lo, orig->u.reduce.lo);
        abstract(a, &e->u.reduce.hi, orig->u.reduce.hi);
        abstract(a, &e->u.reduce.body, orig->u.reduce.body);
        return;
    default: return;
    }
}

static void abstract_block(abstr *a, ir_block *c, const ir_block *f);

static void abstract_stmt(abstr *a, ir_stmt *c, const ir_stmt *f)
{
    switch (c->kind) {
    case IR_S_FOR:
        for (int v = 0; v < c->u.for_.nvars; v++) {
            ir_loopvar *x = &c->u.for_.vars[v];
            const ir_loopvar *y = &f->u.for_.vars[v];
            abstract(a, &x->lo, y->lo);
            abstract(a, &x->hi, y->hi);
            abstract(a, &x->step, y->step);
        }
        abstract_block(a, c->u.for_.body, f->u.for_.body);
        return;
    case IR_S_IF:
        abstract(a, &c->u.if_.cond, f->u.if_.cond);
        abstract_block(a, c->u.if_.then_blk, f->u.if_.then_blk);
        abstract_block(a, c->u.if_.else_blk, f->u.if_.else_blk);
        return;
    case IR_S_LET: abstract(a, &c->u.let.value, f->u.let.value); return;
    case IR_S_ASSIGN:
        abstract(a, &c->u.assign.lhs, f->u.assign.lhs);
        abstract(a, &c->u.assign.rhs, f->u.assign.rhs);
        return;
    case IR_S_SEND: abstract(a, &c->u.send.what, f->u.send.what); return;
    default: return;
    }
}

static void abstract_block(abstr *a, ir_block *c, const ir_block *f)
{
    for (int i = 0; c && i < c->n; i++) abstract_stmt(a, c->stmts[i], f->stmts[i]);
}

/* ---- sends, as statements that read what they send ------------------------------------------- */

/* A send reads its element where it stands: in the copy it becomes `LXS: lx_s[v..] = what`, v the
 * loops around it (a fresh array, one element per instance: no dependence between the sends),
 * under the conjuncts of its `when` that compare affine expressions of the nest's loops and the
 * program's parameters (3mm's `k + 1 == nk`: the sum is final; the others may not be affine, and
 * leaving them out gives the model more instances that read, which only constrains more).  A
 * loop or condition holding sends alone (`for dest = .. { send
 * .. }`) is one such statement that reads what they send.  Its original is the send (or loop),
 * placed where the statement goes. */
typedef struct sends { lx_nest *n; char **text; const char *vars[64]; int nv; char *why; } sends;

/* Is s a send, or a loop or condition of sends and lets alone? */
static int send_only(const ir_stmt *s);

static int send_only_block(const ir_block *b)
{
    int any = 0;
    for (int i = 0; b && i < b->n; i++) {
        if (b->stmts[i]->kind == IR_S_LET) continue;
        if (!send_only(b->stmts[i])) return 0;
        any = 1;
    }
    return any;
}

static int send_only(const ir_stmt *s)
{
    if (s->kind == IR_S_SEND) return 1;
    if (s->kind == IR_S_FOR) return send_only_block(s->u.for_.body);
    if (s->kind == IR_S_IF)
        return send_only_block(s->u.if_.then_blk) && (!s->u.if_.else_blk || send_only_block(s->u.if_.else_blk));
    return 0;
}

/* The elements the sends of s read, summed into *rhs; -1 when one of them depends on a name s
 * binds (its loop's variable, its lets). */
static int send_reads(sends *x, const ir_stmt *s, ir_expr **rhs, names *inner)
{
    if (s->kind == IR_S_SEND) {
        ir_expr *w = s->u.send.what;
        for (int i = 0; i < inner->n; i++)
            if (xf_mentions(w, inner->v[i])) return -1;
        *rhs = *rhs ? ir_new_binary(x->n->scratch, IR_OP_ADD, *rhs, w) : w;
        return 0;
    }
    const ir_block *bs[2] = {NULL, NULL};
    if (s->kind == IR_S_FOR) {
        bs[0] = s->u.for_.body;
        for (int v = 0; v < s->u.for_.nvars; v++) names_add(inner, s->u.for_.vars[v].var);
    } else if (s->kind == IR_S_IF) {
        bs[0] = s->u.if_.then_blk;
        bs[1] = s->u.if_.else_blk;
    }
    for (int k = 0; k < 2; k++)
        for (int i = 0; bs[k] && i < bs[k]->n; i++) {
            const ir_stmt *t = bs[k]->stmts[i];
            if (t->kind == IR_S_LET) names_add(inner, t->u.let.var);
            else if (send_reads(x, t, rhs, inner) != 0) return -1;
        }
    return 0;
}

/* Does every name e reads stand for a loop of the nest (x->vars) or a parameter of the program? */
static int send_names_known(const sends *x, const ir_expr *e)
{
    switch (e->kind) {
    case IR_E_INT: return 1;
    case IR_E_NAME:
        for (int i = 0; i < x->nv; i++)
            if (!strcmp(e->u.name.id, x->vars[i])) return 1;
        for (int i = 0; i < x->n->out->ndecls; i++) {
            const ir_decl *d = x->n->out->decls[i];
            if (d->kind == IR_D_PARAM && !strcmp(e->u.name.id, d->u.param.name)) return 1;
        }
        return 0;
    case IR_E_UNARY: case IR_E_BINARY:
        return send_names_known(x, e->u.op.a) && (!e->u.op.b || send_names_known(x, e->u.op.b));
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++)
            if (!send_names_known(x, e->u.call.args[i])) return 0;
        return 1;
    default: return 0;
    }
}

/* Is e an affine integer expression (isl_readable) of the nest's loops and the program's
 * parameters? */
static int send_affine(const sends *x, const ir_expr *e) { return isl_readable(e) && send_names_known(x, e); }

/* The conjuncts of `when` that compare affine expressions (send_affine), and-ed; NULL for none. */
static ir_expr *send_domain(sends *x, ir_expr *when)
{
    if (!when || when->kind != IR_E_BINARY) return NULL;
    ir_op op = when->u.op.op;
    if (op == IR_OP_AND) {
        ir_expr *a = send_domain(x, when->u.op.a), *b = send_domain(x, when->u.op.b);
        return a && b ? ir_new_binary(x->n->scratch, IR_OP_AND, a, b) : a ? a : b;
    }
    int compares = op == IR_OP_LT || op == IR_OP_LE || op == IR_OP_GT || op == IR_OP_GE || op == IR_OP_EQ;
    return compares && send_affine(x, when->u.op.a) && send_affine(x, when->u.op.b) ? when : NULL;
}

static ir_stmt *send_stmt(sends *x, const ir_stmt *snd)
{
    ir_program *sp = x->n->scratch;
    ir_expr *rhs = NULL;
    names inner = {0};
    int ok = send_reads(x, snd, &rhs, &inner) == 0;
    free(inner.v);
    if (!ok) {
        if (!x->why) x->why = xasprintf("the element a send sends depends on its loop (line %d)", snd->pos.line);
        return NULL;
    }
    ir_decl *d = ir_new_decl(sp, IR_D_ARRAY);
    d->u.array.name = xf_fresh_name(sp, x->text, "lx_s");
    d->u.array.elem = rhs->type;
    d->u.array.index = -1;
    d->u.array.ndims = x->nv;
    d->u.array.lo = ir_alloc(sp, (size_t)(x->nv + 1) * sizeof *d->u.array.lo);
    d->u.array.hi = ir_alloc(sp, (size_t)(x->nv + 1) * sizeof *d->u.array.hi);
    ir_expr *idx[64];
    for (int i = 0; i < x->nv; i++) {
        d->u.array.lo[i] = ir_new_int(sp, 0);
        d->u.array.hi[i] = ir_new_int(sp, 0);
        idx[i] = ir_new_name(sp, x->vars[i]);
    }
    ir_program_append_decl(sp, d);
    ir_stmt *a = ir_new_stmt(sp, IR_S_ASSIGN);
    a->pos = snd->pos;
    a->u.assign.label = xf_fresh_name(sp, x->text, "lx_send");
    a->u.assign.lhs = ir_new_access(sp, d->u.array.name, idx, x->nv);
    a->u.assign.rhs = rhs;
    pair_add(x->n, a, lx_nest_orig(x->n, snd));
    ir_expr *dom = snd->kind == IR_S_SEND ? send_domain(x, snd->u.send.when) : NULL;
    if (!dom) return a;
    ir_stmt *f = ir_new_stmt(sp, IR_S_IF);   /* the copy's send runs where its affine conjuncts hold */
    f->pos = snd->pos;
    f->u.if_.cond = dom;
    f->u.if_.then_blk = ir_new_block(sp);
    ir_block_append(sp, f->u.if_.then_blk, a);
    return f;
}

static void sends_block(sends *x, ir_block *b)
{
    for (int i = 0; b && i < b->n && !x->why; i++) {
        ir_stmt *s = b->stmts[i];
        if (x->nv > 0 && send_only(s)) {
            ir_stmt *a = send_stmt(x, s);
            if (a) b->stmts[i] = a;
        } else if (s->kind == IR_S_IF) {
            sends_block(x, s->u.if_.then_blk);
            sends_block(x, s->u.if_.else_blk);
        } else if (s->kind == IR_S_FOR) {
            int nv = x->nv;
            for (int v = 0; v < s->u.for_.nvars && x->nv < 64; v++) x->vars[x->nv++] = s->u.for_.vars[v].var;
            sends_block(x, s->u.for_.body);
            x->nv = nv;
        }
    }
}

static void add_param(ir_program *p, const char *name)
{
    ir_decl *d = ir_new_decl(p, IR_D_PARAM);
    d->u.param.name = ir_strdup(p, name);
    d->u.param.value = ir_new_int(p, 1);
    ir_program_append_decl(p, d);
}

/* The scratch program: out's parameters, arrays and operators, no distribution; its body the
 * copy of orig. */
static ir_program *scratch_of(const ir_program *out, const ir_stmt *orig, ir_stmt **copy)
{
    ir_program *s = ir_program_clone(out);
    int k = 0;
    for (int i = 0; i < s->ndecls; i++) {
        ir_decl_kind dk = s->decls[i]->kind;
        if (dk == IR_D_PARAM || dk == IR_D_ARRAY || dk == IR_D_OP) s->decls[k++] = s->decls[i];
    }
    s->ndecls = k;
    s->level = IR_SOURCE;
    s->aggregate = 0;
    s->checked = 0;
    s->body = ir_new_block(s);
    *copy = ir_clone_stmt(s, orig);
    ir_block_append(s, s->body, *copy);
    return s;
}

/* ---- what the context knows of the outer names --------------------------------------------- */

/* The parameter standing for `e` (an expression of out, outer names only) as isl text into b:
 * 0, or -1 when isl cannot read it even so. */
static int outer_text(abstr *a, strbuf *b, const ir_expr *e)
{
    ir_expr *c = ir_clone_expr(a->n->scratch, e);
    abstract(a, &c, e);
    return isl_readable(c) ? xf_isl_expr(b, c, NULL, 0) : -1;
}

/* Constraints (isl text) on the parameters from what stands around the nest: each loop's range,
 * each let's value, each condition, where isl reads them; a malloc'd string, "" when none. */
static char *outer_constraints(abstr *a, const lx_outer *o, int n)
{
    strbuf all = {0};
    for (int i = 0; i < n; i++) {
        strbuf b = {0};
        int ok = 0;
        if (o[i].kind == LX_O_LOOP) {
            const ir_loopvar *lv = &o[i].s->u.for_.vars[o[i].var];
            ir_expr *v = ir_new_name(a->n->out, lv->var);
            ok = outer_text(a, &b, lv->lo) == 0;
            strbuf_printf(&b, " <= ");
            ok = ok && outer_text(a, &b, v) == 0;
            strbuf_printf(&b, " <= ");
            ok = ok && outer_text(a, &b, lv->hi) == 0;
        } else if (o[i].kind == LX_O_LET && o[i].s->u.let.value->type == IR_INT) {
            ok = outer_text(a, &b, ir_new_name(a->n->out, o[i].s->u.let.var)) == 0;
            strbuf_printf(&b, " = ");
            ok = ok && outer_text(a, &b, o[i].s->u.let.value) == 0;
        } else if (o[i].kind == LX_O_THEN || o[i].kind == LX_O_ELSE) {
            strbuf_printf(&b, o[i].kind == LX_O_THEN ? "(" : "not (");
            ok = outer_text(a, &b, o[i].s->u.if_.cond) == 0;
            strbuf_printf(&b, ")");
        }
        if (ok) strbuf_printf(&all, "%s%s", all.n ? " and " : "", b.s);
        strbuf_free(&b);
    }
    return all.s ? strbuf_take(&all) : xstrdup("");
}

/* The model's context: its constraints on out's parameters (the first `nkeep`), none on the added
 * ones but those of `cons` (what stands around the nest).  0, or -1. */
static int outer_context(xf_model *m, int nkeep, const char *cons)
{
    isl_set *c = isl_set_read_from_str(m->ctx, m->context);
    if (!c) return -1;
    int np = (int)isl_set_dim(c, isl_dim_param);
    if (np > nkeep) c = isl_set_drop_constraints_involving_dims(c, isl_dim_param, (unsigned)nkeep, (unsigned)(np - nkeep));
    if (cons[0]) {
        char *t = xasprintf("%s -> { : %s }", m->params, cons);
        isl_set *oc = isl_set_read_from_str(m->ctx, t);
        free(t);
        if (oc) c = isl_set_intersect(c, oc);   /* unreadable: the context without them (more general) */
    }
    char *t = isl_set_to_str(c);
    isl_set_free(c);
    if (!t) return -1;
    free(m->context);
    m->context = t;
    return 0;
}

int lx_nest_model(lx_nest *n, ir_program *out, ir_stmt *orig, const lx_outer *outer, int nouter, char **why)
{
    memset(n, 0, sizeof *n);
    n->out = out;
    n->orig = orig;
    if ((*why = unmovable(orig))) return -1;
    ir_block one0 = {.stmts = &orig, .n = 1};
    if (tiled_block(&one0, NULL, 0)) {
        *why = xstrdup("it is tiled already");
        return -1;
    }
    ir_stmt *copy;
    n->scratch = scratch_of(out, orig, &copy);
    pair_stmt(n, copy, orig);
    names bound = {0};
    ir_block one = {.stmts = &copy, .n = 1};
    binders(&bound, &one);
    char *text = ir_print(out);
    abstr a = {n, &bound, &text};
    abstract_stmt(&a, copy, orig);
    char *cons = outer_constraints(&a, outer, nouter);
    sends x = {.n = n, .text = &text};
    sends_block(&x, n->scratch->body);
    free(text);
    if (x.why) {
        *why = x.why;
        free(cons);
        free(bound.v);
        return -1;
    }
    int nkeep = count_params(out);
    for (int i = 0; i < n->nq; i++) add_param(n->scratch, n->qname[i]);
    free(bound.v);
    diag_list d;
    diag_list_init(&d);
    if (ir_check(n->scratch, &d) == 0) n->m = xf_model_build(n->scratch, NULL, 0, 0, &d);
    if (!n->m) {
        *why = xasprintf("it cannot be modelled (%s)", d.n ? d.items[0].msg : "isl");
        diag_list_free(&d);
        free(cons);
        return -2;
    }
    diag_list_free(&d);
    for (int s = 0; s < n->m->nst; s++)
        if (!n->m->st[s].exact) {
            *why = xasprintf("statement %s stands under a condition that reads arrays", n->m->st[s].name);
            free(cons);
            return -1;
        }
    int ctx = outer_context(n->m, nkeep, cons);
    free(cons);
    if (ctx != 0 || xf_model_deps(n->m, &n->dep, &n->ndep, NULL) != 0) {
        *why = xasprintf("its dependences cannot be computed (isl: %s)", xf_isl_error(n->m->ctx));
        return -1;
    }
    return 0;
}

void lx_nest_free(lx_nest *n)
{
    if (n->dep) xf_rawdeps_free(n->dep, n->ndep);
    xf_model_free(n->m);
    ir_program_free(n->scratch);
    free(n->copy);
    free(n->from);
    for (int i = 0; i < n->nq; i++) free(n->qname[i]);
    free(n->qname);
    free(n->qexpr);
    memset(n, 0, sizeof *n);
}

/* ---- how accesses move ----------------------------------------------------------------------- */

int lx_access_dims(const lx_nest *n, int acc)
{
    isl_map *r = isl_map_read_from_str(n->m->ctx, n->m->acc[acc].rel);
    int k = r ? (int)isl_map_dim(r, isl_dim_out) : 0;
    isl_map_free(r);
    return k;
}

int lx_access_moves(const lx_nest *n, int acc, int dim, int var)
{
    const xf_access *a = &n->m->acc[acc];
    if (!a->must) return -1;
    isl_map *r = isl_map_read_from_str(n->m->ctx, a->rel);
    if (!r) return -1;
    int nout = (int)isl_map_dim(r, isl_dim_out);
    if (dim + 1 < nout) r = isl_map_project_out(r, isl_dim_out, (unsigned)dim + 1, (unsigned)(nout - dim - 1));
    if (dim > 0) r = isl_map_project_out(r, isl_dim_out, 0, (unsigned)dim);
    isl_bool inv = isl_map_involves_dims(r, isl_dim_in, (unsigned)var, 1);
    isl_map_free(r);
    return inv == isl_bool_true ? 1 : inv == isl_bool_false ? 0 : -1;
}
