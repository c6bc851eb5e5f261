/*
 * ir.c — the IR's memory and construction: the per-program arena, builders, deep copy, and the
 * names of enum values as written in the language (see ir.h).
 *
 * Every node, string and array of a program is allocated in its arena; ir_program_free releases
 * the whole program at once.  Allocation failure is fatal (the process aborts with a message):
 * there is no sensible way to continue without memory.
 */
#include "ir.h"
#include "mem.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>

/* ---- arena ---------------------------------------------------------------------------------- */

typedef struct ir_chunk {
    struct ir_chunk *next;
    size_t used, cap;
    max_align_t data[];
} ir_chunk;

struct ir_arena {
    ir_chunk *head;
};

enum { IR_CHUNK_SIZE = 64 * 1024 };

static void *arena_alloc(ir_arena *a, size_t size)
{
    size_t align = sizeof(max_align_t);
    size = (size + align - 1) / align * align;
    if (size == 0) size = align;
    ir_chunk *c = a->head;
    if (!c || c->cap - c->used < size) {
        size_t cap = size > IR_CHUNK_SIZE / 2 ? size : IR_CHUNK_SIZE;
        c = xmalloc(sizeof(ir_chunk) + cap);
        c->used = 0;
        c->cap = cap;
        if (size > IR_CHUNK_SIZE / 2 && a->head) {   /* big block: keep the current chunk on top */
            c->next = a->head->next;
            a->head->next = c;
        } else {
            c->next = a->head;
            a->head = c;
        }
    }
    void *p = (char *)c->data + c->used;
    c->used += size;
    memset(p, 0, size);
    return p;
}

ir_program *ir_program_new(const char *file)
{
    ir_arena *a = xmalloc(sizeof *a);
    a->head = NULL;
    ir_program *p = arena_alloc(a, sizeof *p);
    p->arena = a;
    p->file = file ? ir_strdup(p, file) : NULL;
    p->body = ir_new_block(p);
    return p;
}

void ir_program_free(ir_program *p)
{
    if (!p) return;
    ir_arena *a = p->arena;
    ir_chunk *c = a->head;
    while (c) {
        ir_chunk *n = c->next;
        free(c);
        c = n;
    }
    free(a);
}

void *ir_alloc(ir_program *p, size_t size) { return arena_alloc(p->arena, size); }

const char *ir_strndup(ir_program *p, const char *s, size_t n)
{
    char *r = ir_alloc(p, n + 1);
    memcpy(r, s, n);
    r[n] = 0;
    return r;
}

const char *ir_strdup(ir_program *p, const char *s)
{
    return s ? ir_strndup(p, s, strlen(s)) : NULL;
}

/* ---- builders ------------------------------------------------------------------------------- */

static ir_expr *new_expr(ir_program *p, ir_expr_kind k)
{
    ir_expr *e = ir_alloc(p, sizeof *e);
    e->kind = k;
    return e;
}

ir_expr *ir_new_int(ir_program *p, int64_t v)
{
    ir_expr *e = new_expr(p, IR_E_INT);
    e->u.ival = v;
    return e;
}

ir_expr *ir_new_real(ir_program *p, double v)
{
    ir_expr *e = new_expr(p, IR_E_REAL);
    e->u.rval = v;
    e->type = IR_DOUBLE;
    return e;
}

ir_expr *ir_new_name(ir_program *p, const char *id)
{
    ir_expr *e = new_expr(p, IR_E_NAME);
    e->u.name.id = ir_strdup(p, id);
    e->u.name.index = -1;
    return e;
}

ir_expr *ir_new_unary(ir_program *p, ir_op op, ir_expr *a)
{
    ir_expr *e = new_expr(p, IR_E_UNARY);
    e->u.op.op = op;
    e->u.op.a = a;
    if (a) e->pos = a->pos;
    return e;
}

ir_expr *ir_new_binary(ir_program *p, ir_op op, ir_expr *a, ir_expr *b)
{
    ir_expr *e = new_expr(p, IR_E_BINARY);
    e->u.op.op = op;
    e->u.op.a = a;
    e->u.op.b = b;
    if (a) e->pos = a->pos;
    return e;
}

static ir_expr **copy_exprs(ir_program *p, ir_expr *const *v, int n)
{
    if (n <= 0) return NULL;
    ir_expr **r = ir_alloc(p, (size_t)n * sizeof *r);
    memcpy(r, v, (size_t)n * sizeof *r);
    return r;
}

ir_expr *ir_new_access(ir_program *p, const char *array, ir_expr **idx, int nidx)
{
    ir_expr *e = new_expr(p, IR_E_ACCESS);
    e->u.access.array = ir_strdup(p, array);
    e->u.access.array_index = -1;
    e->u.access.idx = copy_exprs(p, idx, nidx);
    e->u.access.nidx = nidx;
    return e;
}

ir_expr *ir_new_call(ir_program *p, ir_func f, ir_expr **args, int nargs)
{
    ir_expr *e = new_expr(p, IR_E_CALL);
    e->u.call.f = f;
    e->u.call.args = copy_exprs(p, args, nargs);
    e->u.call.nargs = nargs;
    return e;
}

ir_block *ir_new_block(ir_program *p) { return ir_alloc(p, sizeof(ir_block)); }

/* Appending copies the array each time (O(n) per append): blocks built by hand with any
 * capacity stay valid.  The parser builds its arrays itself. */
void ir_block_append(ir_program *p, ir_block *b, ir_stmt *s)
{
    ir_stmt **v = ir_alloc(p, (size_t)(b->n + 1) * sizeof *v);
    if (b->n) memcpy(v, b->stmts, (size_t)b->n * sizeof *v);
    v[b->n++] = s;
    b->stmts = v;
}

ir_stmt *ir_new_stmt(ir_program *p, ir_stmt_kind kind)
{
    ir_stmt *s = ir_alloc(p, sizeof *s);
    s->kind = kind;
    if (kind == IR_S_IF) s->u.if_.then_blk = ir_new_block(p);
    if (kind == IR_S_FOR) s->u.for_.body = ir_new_block(p);
    return s;
}

ir_stmt *ir_new_coll(ir_program *p, ir_coll_kind kind, const char *op, ir_expr **dst, int ndst,
                     ir_expr **src, int nsrc, ir_expr *root)
{
    ir_stmt *s = ir_new_stmt(p, IR_S_COLL);
    s->u.coll.ck = kind;
    s->u.coll.op.name = ir_strdup(p, op);
    s->u.coll.op.builtin = s->u.coll.op.user = -1;
    s->u.coll.dst = ndst > 0 ? ir_alloc(p, (size_t)ndst * sizeof *s->u.coll.dst) : NULL;
    if (ndst > 0) memcpy(s->u.coll.dst, dst, (size_t)ndst * sizeof *dst);
    s->u.coll.ndst = ndst;
    s->u.coll.src = copy_exprs(p, src, nsrc);
    s->u.coll.nsrc = nsrc;
    s->u.coll.root = root;
    return s;
}

ir_decl *ir_new_decl(ir_program *p, ir_decl_kind kind)
{
    ir_decl *d = ir_alloc(p, sizeof *d);
    d->kind = kind;
    return d;
}

void ir_program_append_decl(ir_program *p, ir_decl *d)
{
    ir_decl **v = ir_alloc(p, (size_t)(p->ndecls + 1) * sizeof *v);
    if (p->ndecls) memcpy(v, p->decls, (size_t)p->ndecls * sizeof *v);
    v[p->ndecls++] = d;
    p->decls = v;
}

/* ---- deep copy ------------------------------------------------------------------------------ */

static ir_expr **clone_exprs(ir_program *dst, ir_expr *const *v, int n)
{
    if (!v || n <= 0) return NULL;
    ir_expr **r = ir_alloc(dst, (size_t)n * sizeof *r);
    for (int i = 0; i < n; i++) r[i] = ir_clone_expr(dst, v[i]);
    return r;
}

static int *clone_ints(ir_program *dst, const int *v, int n)
{
    if (!v || n <= 0) return NULL;
    int *r = ir_alloc(dst, (size_t)n * sizeof *r);
    memcpy(r, v, (size_t)n * sizeof *r);
    return r;
}

ir_dist_piece ir_dist_get_piece(const ir_decl *d, int k)
{
    assert(d->kind == IR_D_DIST && k >= 0 && k <= d->u.dist.nmore);
    if (k == 0)
        return (ir_dist_piece){ d->u.dist.lo, d->u.dist.hi, d->u.dist.step, d->u.dist.block,
                                d->u.dist.ivar, d->u.dist.islot };
    return d->u.dist.more[k - 1];
}

int ir_dist_is_pieced(const ir_decl *d)
{
    if (d->kind != IR_D_DIST || d->u.dist.dk != IR_DIST_LOCAL) return 0;
    if (d->u.dist.nmore > 0) return 1;
    for (int k = 0; d->u.dist.ivar && k < d->u.dist.ndims; k++)
        if (d->u.dist.ivar[k]) return 1;
    return 0;
}

int ir_dist_searched(const ir_decl *d, int ndims)
{
    if (!ir_dist_is_pieced(d)) return 0;
    return d->u.dist.nmore > 0 || ndims < 2 || (d->u.dist.step && d->u.dist.step[ndims - 1]);
}

ir_expr *ir_clone_expr(ir_program *dst, const ir_expr *e)
{
    if (!e) return NULL;
    ir_expr *c = ir_alloc(dst, sizeof *c);
    *c = *e;
    switch (e->kind) {
    case IR_E_INT: case IR_E_REAL: break;
    case IR_E_NAME: c->u.name.id = ir_strdup(dst, e->u.name.id); break;
    case IR_E_ACCESS:
        c->u.access.array = ir_strdup(dst, e->u.access.array);
        c->u.access.idx = clone_exprs(dst, e->u.access.idx, e->u.access.nidx);
        break;
    case IR_E_UNARY: case IR_E_BINARY:
        c->u.op.a = ir_clone_expr(dst, e->u.op.a);
        c->u.op.b = ir_clone_expr(dst, e->u.op.b);
        break;
    case IR_E_CALL: c->u.call.args = clone_exprs(dst, e->u.call.args, e->u.call.nargs); break;
    case IR_E_REDUCE:
        c->u.reduce.var = ir_strdup(dst, e->u.reduce.var);
        c->u.reduce.lo = ir_clone_expr(dst, e->u.reduce.lo);
        c->u.reduce.hi = ir_clone_expr(dst, e->u.reduce.hi);
        c->u.reduce.body = ir_clone_expr(dst, e->u.reduce.body);
        break;
    case IR_E_REPEAT:
        c->u.repeat.op.name = ir_strdup(dst, e->u.repeat.op.name);
        c->u.repeat.k = ir_clone_expr(dst, e->u.repeat.k);
        c->u.repeat.args = clone_exprs(dst, e->u.repeat.args, e->u.repeat.nargs);
        break;
    }
    return c;
}

/* Like clone_exprs, but keeps NULL entries (a collective's `_` destinations). */
static ir_expr **clone_exprs_nullable(ir_program *dst, ir_expr *const *v, int n)
{
    if (!v || n <= 0) return NULL;
    ir_expr **r = ir_alloc(dst, (size_t)n * sizeof *r);
    for (int i = 0; i < n; i++) r[i] = v[i] ? ir_clone_expr(dst, v[i]) : NULL;
    return r;
}

static const char **clone_names(ir_program *dst, const char *const *v, int n)
{
    if (!v || n <= 0) return NULL;
    const char **r = ir_alloc(dst, (size_t)n * sizeof *r);
    for (int i = 0; i < n; i++) r[i] = ir_strdup(dst, v[i]);
    return r;
}

static void clone_comments(ir_program *dst, ir_comments *c, const ir_comments *s)
{
    c->nlead = 0;
    c->lead = NULL;
    if (s->nlead > 0 && s->lead) {
        c->lead = ir_alloc(dst, (size_t)s->nlead * sizeof *c->lead);
        for (int i = 0; i < s->nlead; i++) c->lead[i] = ir_strdup(dst, s->lead[i]);
        c->nlead = s->nlead;
    }
    c->trail = ir_strdup(dst, s->trail);
}


ir_stmt *ir_clone_stmt(ir_program *dst, const ir_stmt *s)
{
    if (!s) return NULL;
    ir_stmt *c = ir_alloc(dst, sizeof *c);
    *c = *s;
    clone_comments(dst, &c->comments, &s->comments);
    c->cost = ir_clone_expr(dst, s->cost);
    switch (s->kind) {
    case IR_S_ASSIGN:
        c->u.assign.label = ir_strdup(dst, s->u.assign.label);
        c->u.assign.lhs = ir_clone_expr(dst, s->u.assign.lhs);
        c->u.assign.rhs = ir_clone_expr(dst, s->u.assign.rhs);
        break;
    case IR_S_LET:
        c->u.let.var = ir_strdup(dst, s->u.let.var);
        c->u.let.value = ir_clone_expr(dst, s->u.let.value);
        break;
    case IR_S_IF:
        c->u.if_.cond = ir_clone_expr(dst, s->u.if_.cond);
        c->u.if_.then_blk = ir_clone_block(dst, s->u.if_.then_blk);
        c->u.if_.else_blk = ir_clone_block(dst, s->u.if_.else_blk);
        break;
    case IR_S_FOR:
        c->u.for_.vars = NULL;
        if (s->u.for_.nvars > 0) {
            c->u.for_.vars = ir_alloc(dst, (size_t)s->u.for_.nvars * sizeof(ir_loopvar));
            for (int i = 0; i < s->u.for_.nvars; i++) {
                const ir_loopvar *v = &s->u.for_.vars[i];
                ir_loopvar *w = &c->u.for_.vars[i];
                *w = *v;
                w->var = ir_strdup(dst, v->var);
                w->lo = ir_clone_expr(dst, v->lo);
                w->hi = ir_clone_expr(dst, v->hi);
                w->step = ir_clone_expr(dst, v->step);
            }
        }
        c->u.for_.body = ir_clone_block(dst, s->u.for_.body);
        break;
    case IR_S_SEND:
        c->u.send.what = ir_clone_expr(dst, s->u.send.what);
        c->u.send.to_lo = ir_clone_expr(dst, s->u.send.to_lo);
        c->u.send.to_hi = ir_clone_expr(dst, s->u.send.to_hi);
        c->u.send.at = ir_clone_expr(dst, s->u.send.at);
        c->u.send.when = ir_clone_expr(dst, s->u.send.when);
        c->u.send.as_idx = clone_exprs(dst, s->u.send.as_idx, s->u.send.nas);
        break;
    case IR_S_RECV:
        break;
    case IR_S_COLL:
        c->u.coll.label = ir_strdup(dst, s->u.coll.label);
        c->u.coll.op.name = ir_strdup(dst, s->u.coll.op.name);
        c->u.coll.dst = clone_exprs_nullable(dst, s->u.coll.dst, s->u.coll.ndst);
        c->u.coll.src = clone_exprs(dst, s->u.coll.src, s->u.coll.nsrc);
        c->u.coll.dst_lo = clone_exprs_nullable(dst, s->u.coll.dst_lo, s->u.coll.ndst);
        c->u.coll.dst_hi = clone_exprs_nullable(dst, s->u.coll.dst_hi, s->u.coll.ndst);
        c->u.coll.src_lo = clone_exprs_nullable(dst, s->u.coll.src_lo, s->u.coll.nsrc);
        c->u.coll.src_hi = clone_exprs_nullable(dst, s->u.coll.src_hi, s->u.coll.nsrc);
        c->u.coll.root = ir_clone_expr(dst, s->u.coll.root);
        c->u.coll.by = ir_clone_expr(dst, s->u.coll.by);
        c->u.coll.when = ir_clone_expr(dst, s->u.coll.when);
        break;
    }
    return c;
}

ir_block *ir_clone_block(ir_program *dst, const ir_block *b)
{
    if (!b) return NULL;
    ir_block *c = ir_alloc(dst, sizeof *c);
    if (b->n > 0) {
        c->stmts = ir_alloc(dst, (size_t)b->n * sizeof *c->stmts);
        for (int i = 0; i < b->n; i++) c->stmts[i] = ir_clone_stmt(dst, b->stmts[i]);
        c->n = b->n;
    }
    c->cost = ir_clone_expr(dst, b->cost);
    clone_comments(dst, &c->tail, &b->tail);
    return c;
}

static ir_decl *clone_decl(ir_program *dst, const ir_decl *d)
{
    ir_decl *c = ir_alloc(dst, sizeof *c);
    *c = *d;
    clone_comments(dst, &c->comments, &d->comments);
    switch (d->kind) {
    case IR_D_PARAM:
        c->u.param.name = ir_strdup(dst, d->u.param.name);
        c->u.param.value = ir_clone_expr(dst, d->u.param.value);
        break;
    case IR_D_REFERENCE: c->u.reference.path = ir_strdup(dst, d->u.reference.path); break;
    case IR_D_ARRAY:
        c->u.array.name = ir_strdup(dst, d->u.array.name);
        c->u.array.lo = clone_exprs(dst, d->u.array.lo, d->u.array.ndims);
        c->u.array.hi = clone_exprs(dst, d->u.array.hi, d->u.array.ndims);
        break;
    case IR_D_INIT:
        c->u.init.array = ir_strdup(dst, d->u.init.array);
        c->u.init.idx = clone_exprs(dst, d->u.init.idx, d->u.init.nidx);
        c->u.init.value = ir_clone_expr(dst, d->u.init.value);
        break;
    case IR_D_ASSUME:
        c->u.assume.label = ir_strdup(dst, d->u.assume.label);
        c->u.assume.cond = ir_clone_expr(dst, d->u.assume.cond);
        c->u.assume.stmt = NULL;
        break;
    case IR_D_OUTPUT:
        c->u.output.array = ir_strdup(dst, d->u.output.array);
        c->u.output.idx = clone_exprs(dst, d->u.output.idx, d->u.output.nidx);
        break;
    case IR_D_DIST:
        c->u.dist.array = ir_strdup(dst, d->u.dist.array);
        c->u.dist.procvar = ir_strdup(dst, d->u.dist.procvar);
        c->u.dist.lo = clone_exprs(dst, d->u.dist.lo, d->u.dist.ndims);
        c->u.dist.hi = clone_exprs(dst, d->u.dist.hi, d->u.dist.ndims);
        c->u.dist.offset = clone_exprs(dst, d->u.dist.offset, d->u.dist.ndims);
        c->u.dist.step = clone_exprs(dst, d->u.dist.step, d->u.dist.ndims);
        c->u.dist.block = clone_exprs(dst, d->u.dist.block, d->u.dist.ndims);
        c->u.dist.ivar = clone_names(dst, d->u.dist.ivar, d->u.dist.ndims);
        c->u.dist.islot = clone_ints(dst, d->u.dist.islot, d->u.dist.ndims);
        if (d->u.dist.nmore > 0) {
            c->u.dist.more = ir_alloc(dst, (size_t)d->u.dist.nmore * sizeof *c->u.dist.more);
            for (int k = 0; k < d->u.dist.nmore; k++) {
                const ir_dist_piece *f = &d->u.dist.more[k];
                ir_dist_piece *t = &c->u.dist.more[k];
                t->lo = clone_exprs(dst, f->lo, d->u.dist.ndims);
                t->hi = clone_exprs(dst, f->hi, d->u.dist.ndims);
                t->step = clone_exprs(dst, f->step, d->u.dist.ndims);
                t->block = clone_exprs(dst, f->block, d->u.dist.ndims);
                t->ivar = clone_names(dst, f->ivar, d->u.dist.ndims);
                t->islot = clone_ints(dst, f->islot, d->u.dist.ndims);
            }
        }
        break;
    case IR_D_OP:
        c->u.op.name = ir_strdup(dst, d->u.op.name);
        c->u.op.state = c->u.op.in = NULL;
        memset(c->u.op.clause, 0, sizeof c->u.op.clause);
        c->u.op.items = NULL;
        if (d->u.op.nitems > 0) {
            c->u.op.items = ir_alloc(dst, (size_t)d->u.op.nitems * sizeof *c->u.op.items);
            for (int i = 0; i < d->u.op.nitems; i++) {
                const ir_opitem *a = &d->u.op.items[i];
                ir_opitem *b = &c->u.op.items[i];
                *b = *a;
                clone_comments(dst, &b->comments, &a->comments);
                if (a->nfields > 0) {
                    b->fields = ir_alloc(dst, (size_t)a->nfields * sizeof *b->fields);
                    for (int k = 0; k < a->nfields; k++) {
                        b->fields[k] = a->fields[k];
                        b->fields[k].name = ir_strdup(dst, a->fields[k].name);
                    }
                }
                for (int k = 0; k < a->npats; k++) {
                    b->pats[k].names = clone_names(dst, a->pats[k].names, a->pats[k].n);
                    b->pats[k].slots = NULL;
                }
                b->lets = clone_names(dst, a->lets, a->nlets);
                b->letv = clone_exprs(dst, a->letv, a->nlets);
                b->letslots = NULL;
                b->val = clone_exprs(dst, a->val, a->nval);
                b->over.name = ir_strdup(dst, a->over.name);
            }
        }
        break;
    }
    return c;
}

ir_program *ir_program_clone(const ir_program *p)
{
    ir_program *c = ir_program_new(p->file);
    c->name = ir_strdup(c, p->name);
    c->level = p->level;
    c->aggregate = p->aggregate;
    clone_comments(c, &c->comments, &p->comments);
    if (p->ndecls > 0) {
        c->decls = ir_alloc(c, (size_t)p->ndecls * sizeof *c->decls);
        for (int i = 0; i < p->ndecls; i++) c->decls[i] = clone_decl(c, p->decls[i]);
        c->ndecls = p->ndecls;
    }
    c->body = p->body ? ir_clone_block(c, p->body) : ir_new_block(c);
    clone_comments(c, &c->tail, &p->tail);
    return c;
}

/* ---- names ---------------------------------------------------------------------------------- */

static const char *const level_names[] = { "source", "syn", "syncomm", "syndm" };
static const char *const op_texts[] = {
    [IR_OP_ADD] = "+", [IR_OP_SUB] = "-", [IR_OP_MUL] = "*", [IR_OP_DIV] = "/",
    [IR_OP_MOD] = "%", [IR_OP_LT] = "<", [IR_OP_LE] = "<=", [IR_OP_GT] = ">",
    [IR_OP_GE] = ">=", [IR_OP_EQ] = "==", [IR_OP_NE] = "!=", [IR_OP_AND] = "&&",
    [IR_OP_OR] = "||", [IR_OP_NEG] = "-", [IR_OP_NOT] = "!"
};
static const char *const func_names[] = {
    [IR_F_MIN] = "min", [IR_F_MAX] = "max", [IR_F_FLOOR] = "floor", [IR_F_CEIL] = "ceil",
    [IR_F_ABS] = "abs", [IR_F_SQRT] = "sqrt", [IR_F_ISQRT] = "isqrt", [IR_F_SELECT] = "select",
    [IR_F_BAND] = "band", [IR_F_BOR] = "bor", [IR_F_BXOR] = "bxor", [IR_F_CRAND] = "crand",
    [IR_F_CLRAND48] = "clrand48", [IR_F_CDRAND48] = "cdrand48", [IR_F_SIN] = "sin", [IR_F_COS] = "cos",
    [IR_F_TAN] = "tan", [IR_F_EXP] = "exp", [IR_F_LOG] = "log", [IR_F_POW] = "pow"
};
static const char *const reduce_names[] = {
    [IR_R_SUM] = "sum", [IR_R_PROD] = "prod", [IR_R_MAX] = "max", [IR_R_MIN] = "min"
};

static const char *const coll_names[] = {
    [IR_C_BCAST] = "bcast", [IR_C_REDUCE] = "reduce", [IR_C_ALLREDUCE] = "allreduce",
    [IR_C_SCAN] = "scan", [IR_C_EXSCAN] = "exscan", [IR_C_ALLGATHER] = "allgather",
    [IR_C_GATHER] = "gather", [IR_C_SCATTER] = "scatter", [IR_C_REDUCE_BAL] = "reduce_bal",
    [IR_C_ALLREDUCE_BAL] = "allreduce_bal", [IR_C_SCAN_BAL] = "scan_bal", [IR_C_MULTICAST] = "multicast",
    [IR_C_TRANSPOSE] = "transpose",
};
/* Which collectives take an operator, and the word before their root. */
static const struct { int has_op; const char *root; } coll_shape[] = {
    [IR_C_BCAST] = { 0, "from" }, [IR_C_REDUCE] = { 1, "to" }, [IR_C_ALLREDUCE] = { 1, NULL },
    [IR_C_SCAN] = { 1, NULL }, [IR_C_EXSCAN] = { 1, NULL }, [IR_C_ALLGATHER] = { 0, NULL },
    [IR_C_GATHER] = { 0, "to" }, [IR_C_SCATTER] = { 0, "from" }, [IR_C_REDUCE_BAL] = { 1, "to" },
    [IR_C_ALLREDUCE_BAL] = { 1, NULL }, [IR_C_SCAN_BAL] = { 1, NULL }, [IR_C_MULTICAST] = { 0, "from" },
    [IR_C_TRANSPOSE] = { 0, NULL },
};
static const char *const clause_names[] = {
    [IR_K_IDENT] = "ident", [IR_K_PREACCUM] = "preaccum", [IR_K_ACCUM] = "accum",
    [IR_K_POSTACCUM] = "postaccum", [IR_K_COMBINE] = "combine", [IR_K_GEN] = "gen",
    [IR_K_SCANGEN] = "scangen", [IR_K_ONE] = "one", [IR_K_LOWER] = "lower",
    [IR_K_UPPER] = "upper", [IR_K_EVEN] = "even", [IR_K_ODD] = "odd",
};

#define NAME_OF(table, i) ((unsigned)(i) < sizeof table / sizeof table[0] ? table[i] : "?")

const char *ir_level_name(ir_level l) { return NAME_OF(level_names, l); }
const char *ir_op_text(ir_op op) { return NAME_OF(op_texts, op); }
const char *ir_func_name(ir_func f) { return NAME_OF(func_names, f); }

/* math.h's functions the language has, each as a function of two arguments (the first alone
 * read by those of one); their names are func_names'. */
static double libm_sin(double x, double y) { (void)y; return sin(x); }
static double libm_cos(double x, double y) { (void)y; return cos(x); }
static double libm_tan(double x, double y) { (void)y; return tan(x); }
static double libm_exp(double x, double y) { (void)y; return exp(x); }
static double libm_log(double x, double y) { (void)y; return log(x); }
static const struct { ir_func f; ir_libm_fn fn; int nargs; } libm_funcs[] = {
    { IR_F_SIN, libm_sin, 1 }, { IR_F_COS, libm_cos, 1 }, { IR_F_TAN, libm_tan, 1 },
    { IR_F_EXP, libm_exp, 1 }, { IR_F_LOG, libm_log, 1 }, { IR_F_POW, pow, 2 },
};

int ir_libm_nargs(ir_func f)
{
    for (size_t i = 0; i < sizeof libm_funcs / sizeof libm_funcs[0]; i++)
        if (libm_funcs[i].f == f) return libm_funcs[i].nargs;
    return 0;
}

ir_libm_fn ir_libm(ir_func f)
{
    for (size_t i = 0; i < sizeof libm_funcs / sizeof libm_funcs[0]; i++)
        if (libm_funcs[i].f == f) return libm_funcs[i].fn;
    return NULL;
}

double ir_libm_call(ir_func f, double x, double y)
{
    ir_libm_fn fn = ir_libm(f);
    return fn ? fn(x, y) : 0;
}
const char *ir_reduce_name(ir_reduce_op r) { return NAME_OF(reduce_names, r); }
const char *ir_coll_name(ir_coll_kind k) { return NAME_OF(coll_names, k); }
const char *ir_clause_name(ir_clause_kind k) { return NAME_OF(clause_names, k); }
int ir_coll_has_op(ir_coll_kind k) { return (unsigned)k < IR_C_COUNT && coll_shape[k].has_op; }
const char *ir_coll_root_word(ir_coll_kind k) { return (unsigned)k < IR_C_COUNT ? coll_shape[k].root : NULL; }

int ir_coll_parse(const char *s, ir_coll_kind *out)
{
    for (int i = 0; i < IR_C_COUNT; i++)
        if (strcmp(s, coll_names[i]) == 0) {
            *out = (ir_coll_kind)i;
            return 1;
        }
    return 0;
}

int ir_clause_parse(const char *s, ir_clause_kind *out)
{
    for (int i = 0; i < IR_K_COUNT; i++)
        if (strcmp(s, clause_names[i]) == 0) {
            *out = (ir_clause_kind)i;
            return 1;
        }
    return 0;
}

static int expr_has_repeat(const ir_expr *e)
{
    if (!e) return 0;
    switch (e->kind) {
    case IR_E_INT: case IR_E_REAL: case IR_E_NAME: return 0;
    case IR_E_ACCESS:
        for (int i = 0; i < e->u.access.nidx; i++) if (expr_has_repeat(e->u.access.idx[i])) return 1;
        return 0;
    case IR_E_UNARY: case IR_E_BINARY: return expr_has_repeat(e->u.op.a) || expr_has_repeat(e->u.op.b);
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++) if (expr_has_repeat(e->u.call.args[i])) return 1;
        return 0;
    case IR_E_REDUCE:
        return expr_has_repeat(e->u.reduce.lo) || expr_has_repeat(e->u.reduce.hi) ||
               expr_has_repeat(e->u.reduce.body);
    case IR_E_REPEAT: return 1;
    }
    return 0;
}

static int block_has_collectives(const ir_block *b)
{
    for (int i = 0; b && i < b->n; i++) {
        const ir_stmt *s = b->stmts[i];
        if (!s) continue;
        switch (s->kind) {
        case IR_S_COLL: return 1;
        case IR_S_ASSIGN:
            if (expr_has_repeat(s->u.assign.rhs) || expr_has_repeat(s->u.assign.lhs)) return 1;
            break;
        case IR_S_LET: if (expr_has_repeat(s->u.let.value)) return 1; break;
        case IR_S_IF:
            if (expr_has_repeat(s->u.if_.cond) || block_has_collectives(s->u.if_.then_blk) ||
                block_has_collectives(s->u.if_.else_blk))
                return 1;
            break;
        case IR_S_FOR: if (block_has_collectives(s->u.for_.body)) return 1; break;
        case IR_S_SEND: case IR_S_RECV: break;
        }
    }
    return 0;
}

int ir_program_has_collectives(const ir_program *p)
{
    return p && block_has_collectives(p->body);
}

int ir_stmt_has_kind(const ir_stmt *s, ir_stmt_kind k)
{
    if (!s) return 0;
    if (s->kind == k) return 1;
    switch (s->kind) {
    case IR_S_IF: return ir_block_has_kind(s->u.if_.then_blk, k) || ir_block_has_kind(s->u.if_.else_blk, k);
    case IR_S_FOR: return ir_block_has_kind(s->u.for_.body, k);
    default: return 0;
    }
}

int ir_block_has_kind(const ir_block *b, ir_stmt_kind k)
{
    for (int i = 0; b && i < b->n; i++) if (ir_stmt_has_kind(b->stmts[i], k)) return 1;
    return 0;
}

int ir_minmax_args(const ir_expr *e, ir_func f, const ir_expr **out, int n, int max)
{
    if (e->kind != IR_E_CALL || e->u.call.f != f) {
        if (n < max) out[n++] = e;
        return n;
    }
    for (int i = 0; i < e->u.call.nargs; i++) n = ir_minmax_args(e->u.call.args[i], f, out, n, max);
    return n;
}

/* Does e name one of names[0 .. n-1]; with `across`, does it hold an access a subscript of
 * which but the last names one (a walk across rows along them)? */
static int ir_expr_names(const ir_expr *e, const char *const *names, int n, int across)
{
    if (!e) return 0;
    switch (e->kind) {
    case IR_E_NAME:
        for (int i = 0; i < n; i++)
            if (!strcmp(e->u.name.id, names[i])) return !across;
        return 0;
    case IR_E_ACCESS:
        for (int i = 0; i < e->u.access.nidx; i++) {
            if (across && i < e->u.access.nidx - 1 && ir_expr_names(e->u.access.idx[i], names, n, 0)) return 1;
            if (ir_expr_names(e->u.access.idx[i], names, n, across)) return 1;
        }
        return 0;
    case IR_E_UNARY: case IR_E_BINARY:
        return ir_expr_names(e->u.op.a, names, n, across) || ir_expr_names(e->u.op.b, names, n, across);
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++) if (ir_expr_names(e->u.call.args[i], names, n, across)) return 1;
        return 0;
    case IR_E_REDUCE:
        return ir_expr_names(e->u.reduce.lo, names, n, across) || ir_expr_names(e->u.reduce.hi, names, n, across) ||
               ir_expr_names(e->u.reduce.body, names, n, across);
    case IR_E_REPEAT:
        for (int i = 0; i < e->u.repeat.nargs; i++) if (ir_expr_names(e->u.repeat.args[i], names, n, across)) return 1;
        return ir_expr_names(e->u.repeat.k, names, n, across);
    default: return 0;
    }
}

int ir_expr_names_any(const ir_expr *e, const char *const *names, int n) { return ir_expr_names(e, names, n, 0); }

enum { IR_JAM_NAMES = 32 };

/* Does an access of b (at any depth) walk across rows along names[0 .. *n-1]: a subscript but
 * its last names one of them, or a let's that names one (added to names as b is walked)? */
static int ir_walks_across(const ir_block *b, const char **names, int *n)
{
    for (int i = 0; b && i < b->n; i++) {
        const ir_stmt *s = b->stmts[i];
        switch (s->kind) {
        case IR_S_LET:
            if (*n < IR_JAM_NAMES && ir_expr_names(s->u.let.value, names, *n, 0)) names[(*n)++] = s->u.let.var;
            break;
        case IR_S_ASSIGN:
            if (ir_expr_names(s->u.assign.lhs, names, *n, 1) || ir_expr_names(s->u.assign.rhs, names, *n, 1)) return 1;
            break;
        case IR_S_IF:
            if (ir_expr_names(s->u.if_.cond, names, *n, 1) || ir_walks_across(s->u.if_.then_blk, names, n) ||
                ir_walks_across(s->u.if_.else_blk, names, n))
                return 1;
            break;
        default: break;
        }
    }
    return 0;
}

int ir_jam_loop(const ir_stmt *s, const char *around, const ir_expr **lo_arg, const ir_expr **hi_arg)
{
    enum { MAXARGS = 16 };
    if (!s || !around || s->kind != IR_S_FOR || s->u.for_.nvars != 1 || ir_block_has_kind(s->u.for_.body, IR_S_FOR) ||
        ir_block_has_kind(s->u.for_.body, IR_S_SEND) || ir_block_has_kind(s->u.for_.body, IR_S_COLL))
        return 0;
    const ir_loopvar *v = &s->u.for_.vars[0];
    if (v->step && !(v->step->kind == IR_E_INT && v->step->u.ival == 1)) return 0;
    const char *names[IR_JAM_NAMES] = {around};
    int nn = 1;
    if (ir_walks_across(s->u.for_.body, names, &nn)) return 0;   /* unrolled, a walk across rows */
    const ir_expr *lo[MAXARGS], *hi[MAXARGS];
    int nlo = ir_minmax_args(v->lo, IR_F_MAX, lo, 0, MAXARGS), nhi = ir_minmax_args(v->hi, IR_F_MIN, hi, 0, MAXARGS);
    for (int h = 0; h < nhi; h++) {
        const ir_expr *e = hi[h];
        if (e->kind != IR_E_BINARY || e->u.op.op != IR_OP_ADD || e->u.op.a->kind != IR_E_NAME ||
            e->u.op.b->kind != IR_E_INT || e->u.op.b->u.ival <= 0 || e->u.op.b->u.ival >= IR_JAM_MAX)
            continue;
        for (int l = 0; l < nlo; l++)
            if (lo[l]->kind == IR_E_NAME && !strcmp(lo[l]->u.name.id, e->u.op.a->u.name.id)) {
                *lo_arg = lo[l];
                *hi_arg = e;
                return (int)e->u.op.b->u.ival + 1;
            }
    }
    return 0;
}

int ir_max_names(const ir_expr *e, const char *var)
{
    const ir_expr *args[16];
    int n = ir_minmax_args(e, IR_F_MAX, args, 0, 16);
    for (int i = 0; i < n; i++)
        if (args[i]->kind == IR_E_NAME && !strcmp(args[i]->u.name.id, var)) return 1;
    return 0;
}

const char *ir_point_of(const ir_loopvar *lv, int64_t *extent)
{
    const ir_expr *hi[16];
    int n = lv->step ? 0 : ir_minmax_args(lv->hi, IR_F_MIN, hi, 0, 16);
    for (int i = 0; i < n; i++) {
        const ir_expr *a = hi[i];
        if (a->kind == IR_E_BINARY && a->u.op.op == IR_OP_ADD && a->u.op.b->kind == IR_E_INT &&
            a->u.op.a->kind == IR_E_NAME && ir_max_names(lv->lo, a->u.op.a->u.name.id)) {
            if (extent) *extent = a->u.op.b->u.ival + 1;
            return a->u.op.a->u.name.id;
        }
    }
    return NULL;
}

int ir_level_parse(const char *s, ir_level *out)
{
    for (unsigned i = 0; i < sizeof level_names / sizeof level_names[0]; i++)
        if (strcmp(s, level_names[i]) == 0) {
            *out = (ir_level)i;
            return 1;
        }
    return 0;
}
