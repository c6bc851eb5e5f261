/*
 * sim_compile.c — compiles a checked AST into the simulator's executable tree (sim_int.h).
 *
 * Parameters fold into constants; int subexpressions that are affine in variables become one
 * SO_AFF node (and subscripts become inline affine forms); mixed int/double operations get
 * explicit conversions so the interpreter never tests a type.  Static tick counts are computed
 * from the AST (sim_expr_ticks) so that the shape of the compiled tree never changes the work.
 * The work class of each assignment is decided in sim_classes.c, its streams in sim_streams.c.
 */
#include <stdlib.h>
#include <string.h>

#include "op.h"
#include "intsem.h"
#include "sim_int.h"

/* ---- node pool ------------------------------------------------------------------------------ */

void *sim_alloc(sim_ctx *c, size_t size)
{
    sim_pool *p = &c->pool;
    if (p->n == p->cap) {
        int cap = p->cap ? p->cap * 2 : 64;
        void **b = realloc(p->blocks, (size_t)cap * sizeof *b);
        if (!b) return NULL;
        p->blocks = b;
        p->cap = cap;
    }
    void *m = calloc(1, size ? size : 1);
    if (m) p->blocks[p->n++] = m;
    return m;
}

void sim_pool_free(sim_pool *p)
{
    for (int i = 0; i < p->n; i++) free(p->blocks[i]);
    free(p->blocks);
    memset(p, 0, sizeof *p);
}

/* Compile errors (malformed, unchecked or unsupported trees) go to the result's diags. */
static sim_node *sim_cerr(sim_ctx *c, const ir_expr *e, const char *msg)
{
    c->compile_errors++;
    diag_add(&c->r->diags, c->prog->file, e ? e->pos.line : 0, e ? e->pos.col : 0,
             "simulator: %s", msg);
    return NULL;
}

static sim_node *sim_new(sim_ctx *c, sim_op op, const ir_expr *e)
{
    sim_node *n = sim_alloc(c, sizeof *n);
    if (!n) { c->compile_errors++; return NULL; }
    n->op = op;
    n->e = e;
    return n;
}

static int sim_is_double_op(sim_op op) { return op >= SO_CD; }

static int sim_check_slot(sim_ctx *c, const ir_expr *e, int slot)
{
    if (slot < 0 || slot >= c->prog->nslots) {
        sim_cerr(c, e, "variable without a valid slot (program not checked?)");
        return 0;
    }
    if (slot > c->maxslot) c->maxslot = slot;
    return 1;
}

/* ---- ticks ----------------------------------------------------------------------------------
 * The manual's COST rule: an arithmetic operation or call costs one tick when its result is a
 * double (integer arithmetic is index computation and free); every comparison and logical
 * operator costs one tick; a reduction over doubles one more per accumulation.  Operands of
 * && and || after the first, and reductions, are counted when they run (dticks). */

static double sim_expr_ticks_d(const ir_expr *e, int depth);

double sim_expr_ticks(const ir_expr *e) { return sim_expr_ticks_d(e, 0); }

static double sim_expr_ticks_d(const ir_expr *e, int depth)
{
    if (!e || depth > 4000) return 0;
    double own = e->type == IR_DOUBLE ? 1 : 0;     /* arithmetic and calls: doubles only */
    switch (e->kind) {
    case IR_E_INT: case IR_E_REAL: case IR_E_NAME: case IR_E_ACCESS: case IR_E_REDUCE:
    case IR_E_REPEAT:   /* counted while running */
        return 0;
    case IR_E_UNARY:
        if (e->u.op.op == IR_OP_NOT) own = 1;
        return own + sim_expr_ticks_d(e->u.op.a, depth + 1);
    case IR_E_BINARY:
        if (e->u.op.op == IR_OP_AND || e->u.op.op == IR_OP_OR)
            return 1 + sim_expr_ticks_d(e->u.op.a, depth + 1);
        if (e->u.op.op >= IR_OP_LT) own = 1;          /* comparisons */
        return own + sim_expr_ticks_d(e->u.op.a, depth + 1) + sim_expr_ticks_d(e->u.op.b, depth + 1);
    case IR_E_CALL: {
        double t = own;
        for (int i = 0; i < e->u.call.nargs; i++) t += sim_expr_ticks_d(e->u.call.args[i], depth + 1);
        return t;
    }
    }
    return 0;
}

/* ---- affine forms --------------------------------------------------------------------------- */

/* a += b * scale; 0 when the form has too many terms or a coefficient overflows (intsem.h):
 * the expression then compiles to checked operations instead. */
static int sim_aff_add(sim_aff *a, const sim_aff *b, int64_t scale)
{
    int64_t add;
    if (intsem_mul(b->c, scale, &add) || intsem_add(a->c, add, &a->c)) return 0;
    for (int k = 0; k < b->n; k++) {
        int j;
        for (j = 0; j < a->n && a->slot[j] != b->slot[k]; j++) {}
        if (intsem_mul(b->coef[k], scale, &add)) return 0;
        if (j < a->n) {
            if (intsem_add(a->coef[j], add, &a->coef[j])) return 0;
        } else {
            if (a->n == SIM_AFF_MAX) return 0;
            a->slot[a->n] = b->slot[k];
            a->coef[a->n++] = add;
        }
    }
    /* drop zero terms */
    int m = 0;
    for (int k = 0; k < a->n; k++)
        if (a->coef[k] != 0) { a->slot[m] = a->slot[k]; a->coef[m++] = a->coef[k]; }
    a->n = m;
    return 1;
}

/* Coefficients small enough that the difference of two forms cannot wrap around. */
static int sim_aff_small(const sim_aff *a)
{
    const int64_t lim = INT64_C(1) << 40;
    if (a->c > lim || a->c < -lim) return 0;
    for (int k = 0; k < a->n; k++)
        if (a->coef[k] > lim || a->coef[k] < -lim) return 0;
    return 1;
}

static int sim_is_var(ir_name_kind nk)
{
    return nk == IR_N_LOOPVAR || nk == IR_N_LET || nk == IR_N_REDVAR || nk == IR_N_INITVAR
        || nk == IR_N_DISTVAR;
}

static int sim_aff_of_d(sim_ctx *c, const ir_expr *e, sim_aff *a, int depth);

/* 1 if `e` (an int expression) is affine in variables with constant coefficients. */
static int sim_aff_of(sim_ctx *c, const ir_expr *e, sim_aff *a) { return sim_aff_of_d(c, e, a, 0); }

static int sim_aff_of_d(sim_ctx *c, const ir_expr *e, sim_aff *a, int depth)
{
    memset(a, 0, sizeof *a);
    if (depth > 48) return 0;
    switch (e->kind) {
    case IR_E_INT:
        a->c = e->u.ival;
        return 1;
    case IR_E_NAME:
        if (e->u.name.nk == IR_N_PARAM) {
            if (e->u.name.index < 0 || e->u.name.index >= c->prog->nparams) return 0;
            a->c = c->params[e->u.name.index];
            return 1;
        }
        if (sim_is_var(e->u.name.nk) && e->type == IR_INT) {
            if (e->u.name.index < 0 || e->u.name.index >= c->prog->nslots) return 0;
            a->n = 1;
            a->slot[0] = e->u.name.index;
            a->coef[0] = 1;
            if (e->u.name.index > c->maxslot) c->maxslot = e->u.name.index;
            return 1;
        }
        return 0;
    case IR_E_UNARY:
        if (e->u.op.op != IR_OP_NEG) return 0;
        {
            sim_aff x;
            if (!sim_aff_of_d(c, e->u.op.a, &x, depth + 1)) return 0;
            return sim_aff_add(a, &x, -1);
        }
    case IR_E_BINARY: {
        ir_op op = e->u.op.op;
        if (op != IR_OP_ADD && op != IR_OP_SUB && op != IR_OP_MUL) return 0;
        sim_aff x, y;
        if (!sim_aff_of_d(c, e->u.op.a, &x, depth + 1) || !sim_aff_of_d(c, e->u.op.b, &y, depth + 1))
            return 0;
        if (op == IR_OP_MUL) {
            if (x.n == 0) return sim_aff_add(a, &y, x.c);
            if (y.n == 0) return sim_aff_add(a, &x, y.c);
            return 0;
        }
        return sim_aff_add(a, &x, 1) && sim_aff_add(a, &y, op == IR_OP_SUB ? -1 : 1);
    }
    default:
        return 0;
    }
}

/* ---- expressions ---------------------------------------------------------------------------- */

/* The variable slots a pure int expression reads (no arrays, reductions, short-circuits or
 * reals): up to `max` distinct slots into slots[]; -1 when impure or when it reads more. */
static int sim_free_slots(const ir_expr *e, int *slots, int n, int max, int depth)
{
    if (!e || n < 0 || depth > 32 || e->type != IR_INT) return -1;
    switch (e->kind) {
    case IR_E_INT:
        return n;
    case IR_E_NAME:
        if (e->u.name.nk == IR_N_PARAM) return n;
        if (!sim_is_var(e->u.name.nk)) return -1;
        for (int i = 0; i < n; i++) if (slots[i] == e->u.name.index) return n;
        if (n >= max) return -1;
        slots[n] = e->u.name.index;
        return n + 1;
    case IR_E_UNARY:
        return sim_free_slots(e->u.op.a, slots, n, max, depth + 1);
    case IR_E_BINARY:
        if (e->u.op.op == IR_OP_AND || e->u.op.op == IR_OP_OR) return -1;
        n = sim_free_slots(e->u.op.a, slots, n, max, depth + 1);
        return sim_free_slots(e->u.op.b, slots, n, max, depth + 1);
    case IR_E_CALL:
        if (e->u.call.f == IR_F_SQRT || ir_libm_nargs(e->u.call.f)) return -1;
        for (int i = 0; i < e->u.call.nargs && n >= 0; i++)
            n = sim_free_slots(e->u.call.args[i], slots, n, max, depth + 1);
        return n;
    default:
        return -1;
    }
}

static sim_node *sim_compile_raw(sim_ctx *c, const ir_expr *e);

static sim_node *sim_convert(sim_ctx *c, sim_node *n, int want_double)
{
    if (!n) return NULL;
    int is_d = sim_is_double_op(n->op);
    if (is_d == want_double) return n;
    if (want_double && n->op == SO_CI) { n->op = SO_CD; n->dval = (double)n->ival; return n; }
    sim_node *m = sim_new(c, want_double ? SO_I2D : SO_D2I, n->e);
    if (m) m->a = n;
    return m;
}

sim_node *sim_compile_expr(sim_ctx *c, const ir_expr *e, ir_type want)
{
    return sim_convert(c, sim_compile_raw(c, e), want == IR_DOUBLE);
}

/* An int node that is 0 or non-zero for a condition. */
static sim_node *sim_compile_truth(sim_ctx *c, const ir_expr *e)
{
    sim_node *n = sim_compile_raw(c, e);
    if (!n || !sim_is_double_op(n->op)) return n;
    sim_node *t = sim_new(c, SO_TRUTHD, e);
    if (t) t->a = n;
    return t;
}

static int sim_compile_sub(sim_ctx *c, const ir_expr *e, sim_sub *s)
{
    if (e->type == IR_INT && sim_aff_of(c, e, &s->aff)) { s->gen = NULL; return 1; }
    s->gen = sim_compile_expr(c, e, IR_INT);
    return s->gen != NULL;
}

/* An access node for `a[..]` or a 0-d array name. */
sim_node *sim_compile_access(sim_ctx *c, const ir_expr *e)
{
    int ai, nidx;
    ir_expr **idx;
    if (e->kind == IR_E_ACCESS) {
        ai = e->u.access.array_index;
        idx = e->u.access.idx;
        nidx = e->u.access.nidx;
    } else if (e->kind == IR_E_NAME && e->u.name.nk == IR_N_ARRAY) {
        ai = e->u.name.index;
        idx = NULL;
        nidx = 0;
    } else {
        return sim_cerr(c, e, "expected an array element");
    }
    if (ai < 0 || ai >= c->prog->narrays) return sim_cerr(c, e, "unresolved array");
    const ir_decl *d = c->prog->arrays[ai];
    if (d->u.array.ndims != nidx) return sim_cerr(c, e, "wrong number of subscripts");
    sim_node *n = sim_new(c, d->u.array.elem == IR_DOUBLE ? SO_ACCD : SO_ACCI, e);
    if (!n) return NULL;
    n->array = ai;
    n->n = nidx;
    n->sub = sim_alloc(c, (size_t)(nidx ? nidx : 1) * sizeof *n->sub);
    if (!n->sub) { c->compile_errors++; return NULL; }
    int affine = 1;
    n->simple = 1;
    for (int i = 0; i < nidx; i++) {
        sim_sub *sb = &n->sub[i];
        if (!sim_compile_sub(c, idx[i], sb)) return NULL;
        if (sb->gen) affine = 0;
        if (sb->gen || sb->aff.n > 1) n->simple = 0;
        else if (sb->aff.n == 1) { sb->sslot = sb->aff.slot[0]; sb->scoef = sb->aff.coef[0]; }
        else { sb->sslot = 0; sb->scoef = 0; }
    }
    sim_node *t = c->sr_target;
    if (t && affine && t->nsr < SIM_SR_MAX) {
        n->op = n->op == SO_ACCD ? SO_ACCD_SR : SO_ACCI_SR;
        n->ival = t->nsr;
        n->c = t;
        t->sracc[t->nsr++] = n;
    }
    return n;
}

typedef struct sim_binop { ir_op op; sim_op iop, dop; } sim_binop;
static const sim_binop sim_binops[] = {
    { IR_OP_ADD, SO_ADDI, SO_ADDD }, { IR_OP_SUB, SO_SUBI, SO_SUBD },
    { IR_OP_MUL, SO_MULI, SO_MULD }, { IR_OP_DIV, SO_DIVI, SO_DIVD },
    { IR_OP_MOD, SO_MODI, SO_MODD },
    { IR_OP_LT, SO_LTI, SO_LTD }, { IR_OP_LE, SO_LEI, SO_LED }, { IR_OP_GT, SO_GTI, SO_GTD },
    { IR_OP_GE, SO_GEI, SO_GED }, { IR_OP_EQ, SO_EQI, SO_EQD }, { IR_OP_NE, SO_NEI, SO_NED },
};

static sim_node *sim_compile_call(sim_ctx *c, const ir_expr *e)
{
    int na = e->u.call.nargs;
    ir_expr **args = e->u.call.args;
    switch (e->u.call.f) {
    case IR_F_MIN: case IR_F_MAX: {
        if (na < 1) return sim_cerr(c, e, "min/max without arguments");
        sim_node **an = sim_alloc(c, (size_t)na * sizeof *an);
        if (!an) { c->compile_errors++; return NULL; }
        int any_d = 0;
        for (int i = 0; i < na; i++) {
            an[i] = sim_compile_raw(c, args[i]);
            if (!an[i]) return NULL;
            any_d |= sim_is_double_op(an[i]->op);
        }
        for (int i = 0; i < na; i++) an[i] = sim_convert(c, an[i], any_d);
        int is_min = e->u.call.f == IR_F_MIN;
        sim_node *n = sim_new(c, any_d ? (is_min ? SO_MIND : SO_MAXD) : (is_min ? SO_MINI : SO_MAXI), e);
        if (n) { n->args = an; n->n = na; }
        return n;
    }
    case IR_F_SELECT: {
        if (na != 3) return sim_cerr(c, e, "select takes 3 arguments");
        int dbl = e->type == IR_DOUBLE;
        sim_node *n = sim_new(c, dbl ? SO_SELD : SO_SELI, e);
        if (!n) return NULL;
        n->a = sim_compile_truth(c, args[0]);
        n->b = sim_compile_expr(c, args[1], dbl ? IR_DOUBLE : IR_INT);
        n->c = sim_compile_expr(c, args[2], dbl ? IR_DOUBLE : IR_INT);
        return n->a && n->b && n->c ? n : NULL;
    }
    case IR_F_CRAND: case IR_F_CLRAND48: case IR_F_CDRAND48: {
        if (na < 1 || na > 2) return sim_cerr(c, e, "a random number takes a seed and a call number");
        ir_func f = e->u.call.f;
        sim_node *n = sim_new(c, f == IR_F_CRAND ? SO_CRAND : f == IR_F_CLRAND48 ? SO_CLRAND48 : SO_CDRAND48, e);
        if (!n) return NULL;
        n->a = na == 2 ? sim_compile_expr(c, args[0], IR_INT) : NULL;
        n->b = sim_compile_expr(c, args[na - 1], IR_INT);
        return (na == 1 || n->a) && n->b ? n : NULL;
    }
    case IR_F_SIN: case IR_F_COS: case IR_F_TAN: case IR_F_EXP: case IR_F_LOG: case IR_F_POW: {
        if (na != ir_libm_nargs(e->u.call.f)) return sim_cerr(c, e, "wrong number of arguments");
        sim_node *n = sim_new(c, SO_LIBMD, e);
        if (!n) return NULL;
        n->libm = ir_libm(e->u.call.f);
        n->a = sim_compile_expr(c, args[0], IR_DOUBLE);
        n->b = na > 1 ? sim_compile_expr(c, args[1], IR_DOUBLE) : NULL;
        return n->a && (na == 1 || n->b) ? n : NULL;
    }
    case IR_F_BAND: case IR_F_BOR: case IR_F_BXOR: {
        if (na != 2) return sim_cerr(c, e, "a bitwise function takes 2 arguments");
        sim_node *n = sim_new(c, e->u.call.f == IR_F_BAND ? SO_BANDI : e->u.call.f == IR_F_BOR ? SO_BORI : SO_BXORI, e);
        if (!n) return NULL;
        n->a = sim_compile_expr(c, args[0], IR_INT);
        n->b = sim_compile_expr(c, args[1], IR_INT);
        return n->a && n->b ? n : NULL;
    }
    default:
        break;
    }
    if (na != 1) return sim_cerr(c, e, "wrong number of arguments");
    const ir_expr *x = args[0];
    ir_func f = e->u.call.f;
    if ((f == IR_F_FLOOR || f == IR_F_CEIL) && x->kind == IR_E_BINARY && x->u.op.op == IR_OP_DIV) {
        sim_node *a = sim_compile_raw(c, x->u.op.a), *b = sim_compile_raw(c, x->u.op.b);
        if (!a || !b) return NULL;
        if (!sim_is_double_op(a->op) && !sim_is_double_op(b->op)) {
            sim_node *n = sim_new(c, f == IR_F_FLOOR ? SO_DIVI : SO_CEILDIV, e);
            if (n) { n->a = a; n->b = b; }
            return n;
        }
    }
    sim_node *a = sim_compile_raw(c, x);
    if (!a) return NULL;
    int ad = sim_is_double_op(a->op);
    sim_op op;
    switch (f) {
    case IR_F_FLOOR:
        if (!ad) return a;
        op = e->type == IR_INT ? SO_FLOORD2I : SO_FLOORD;
        break;
    case IR_F_CEIL:
        if (!ad) return a;
        op = e->type == IR_INT ? SO_CEILD2I : SO_CEILD;
        break;
    case IR_F_ABS:
        op = ad ? SO_ABSD : SO_ABSI;
        break;
    case IR_F_SQRT:
        a = sim_convert(c, a, 1);
        op = SO_SQRTD;
        break;
    case IR_F_ISQRT:
        a = sim_convert(c, a, 0);
        op = SO_ISQRT;
        break;
    default:
        return sim_cerr(c, e, "unknown function");
    }
    sim_node *n = sim_new(c, op, e);
    if (n) n->a = a;
    return n;
}

#define SIM_MAX_DEPTH 4000

static sim_node *sim_compile_raw1(sim_ctx *c, const ir_expr *e);

/* Nesting is bounded so that compiling and evaluating never exhaust the C stack. */
static sim_node *sim_compile_raw(sim_ctx *c, const ir_expr *e)
{
    if (c->depth >= SIM_MAX_DEPTH)
        return c->compile_errors ? (c->compile_errors++, NULL)
                                 : sim_cerr(c, e, "expression nested too deeply to simulate");
    /* A pure non-affine int computation of at most one variable (rp / q * b, ceil(n / q),
     * min(x, n - 1), ...) is remembered for the last value of that variable. */
    int memo = 0, slots[1], k = -1;
    if (!c->in_memo && e && e->type == IR_INT
        && ((e->kind == IR_E_BINARY && e->u.op.op <= IR_OP_MOD) || e->kind == IR_E_CALL)) {
        sim_aff af;
        if (!(e->kind == IR_E_BINARY && sim_aff_of(c, e, &af))) {
            k = sim_free_slots(e, slots, 0, 1, 0);
            memo = k >= 0;
        }
    }
    c->depth++;
    c->in_memo += memo;
    sim_node *n = sim_compile_raw1(c, e);
    c->in_memo -= memo;
    c->depth--;
    if (n && memo) {
        sim_node *m = sim_new(c, SO_MEMO, e);
        if (!m) return NULL;
        m->a = n;
        m->n = k;
        m->slot = k ? slots[0] : 0;
        return m;
    }
    return n;
}

/* A binary operation: a chain of && or ||, an affine form, an affine comparison, or the
 * operator's node over its operands. */
static sim_node *sim_compile_binary(sim_ctx *c, const ir_expr *e)
{
    sim_node *n;
    ir_op op = e->u.op.op;
    if ((op == IR_OP_AND || op == IR_OP_OR) && e->u.op.a->kind == IR_E_BINARY
        && e->u.op.a->u.op.op == op) {
        /* a left-deep chain x1 op x2 op ... op xk as one node */
        int k = 1;
        const ir_expr *x = e;
        while (x->kind == IR_E_BINARY && x->u.op.op == op && k < 64) { k++; x = x->u.op.a; }
        n = sim_new(c, op == IR_OP_AND ? SO_ANDN : SO_ORN, e);
        if (!n) return NULL;
        n->n = k;
        n->args = sim_alloc(c, (size_t)k * sizeof *n->args);
        n->argticks = sim_alloc(c, (size_t)k * sizeof *n->argticks);
        if (!n->args || !n->argticks) { c->compile_errors++; return NULL; }
        x = e;
        for (int i = k - 1; i >= 1; i--) {
            n->args[i] = sim_compile_truth(c, x->u.op.b);
            n->argticks[i] = sim_expr_ticks(x->u.op.b);
            if (!n->args[i]) return NULL;
            x = x->u.op.a;
        }
        n->args[0] = sim_compile_truth(c, x);
        return n->args[0] ? n : NULL;
    }
    if (op == IR_OP_AND || op == IR_OP_OR) {
        n = sim_new(c, op == IR_OP_AND ? SO_AND : SO_OR, e);
        if (!n) return NULL;
        n->a = sim_compile_truth(c, e->u.op.a);
        n->b = sim_compile_truth(c, e->u.op.b);
        n->dticks = sim_expr_ticks(e->u.op.b);
        return n->a && n->b ? n : NULL;
    }
    if (e->type == IR_INT && (op == IR_OP_ADD || op == IR_OP_SUB || op == IR_OP_MUL)) {
        sim_aff af;
        if (sim_aff_of(c, e, &af)) {
            n = sim_new(c, af.n == 0 ? SO_CI : SO_AFF, e);
            if (n) { n->aff = af; n->ival = af.c; }
            return n;
        }
    }
    if (op >= IR_OP_LT && op <= IR_OP_NE && e->u.op.a->type == IR_INT && e->u.op.b->type == IR_INT) {
        /* an affine comparison: the sign of one affine difference, no operand nodes */
        sim_aff x, y, d;
        memset(&d, 0, sizeof d);
        if (sim_aff_of(c, e->u.op.a, &x) && sim_aff_of(c, e->u.op.b, &y) && sim_aff_add(&d, &x, 1)
            && sim_aff_add(&d, &y, -1) && sim_aff_small(&d)) {
            /* bit 0: holds when a < b, bit 1: a == b, bit 2: a > b */
            static const int64_t masks[] = { [IR_OP_LT] = 1, [IR_OP_LE] = 3, [IR_OP_GT] = 4,
                                             [IR_OP_GE] = 6, [IR_OP_EQ] = 2, [IR_OP_NE] = 5 };
            n = sim_new(c, SO_CMPAFF, e);
            if (n) { n->aff = d; n->ival = masks[op]; }
            return n;
        }
    }
    const sim_binop *bo = NULL;
    for (size_t i = 0; i < sizeof sim_binops / sizeof sim_binops[0]; i++)
        if (sim_binops[i].op == op) bo = &sim_binops[i];
    if (!bo) return sim_cerr(c, e, "unknown operator");
    sim_node *a = sim_compile_raw(c, e->u.op.a), *b = sim_compile_raw(c, e->u.op.b);
    if (!a || !b) return NULL;
    int dbl = sim_is_double_op(a->op) || sim_is_double_op(b->op);
    n = sim_new(c, dbl ? bo->dop : bo->iop, e);
    if (!n) return NULL;
    n->a = sim_convert(c, a, dbl);
    n->b = sim_convert(c, b, dbl);
    return n;
}

static sim_node *sim_compile_raw1(sim_ctx *c, const ir_expr *e)
{
    if (!e) return sim_cerr(c, NULL, "missing expression");
    sim_node *n;
    switch (e->kind) {
    case IR_E_INT:
        n = sim_new(c, SO_CI, e);
        if (n) n->ival = e->u.ival;
        return n;
    case IR_E_REAL:
        n = sim_new(c, SO_CD, e);
        if (n) n->dval = e->u.rval;
        return n;
    case IR_E_NAME:
        switch (e->u.name.nk) {
        case IR_N_PARAM:
            if (e->u.name.index < 0 || e->u.name.index >= c->prog->nparams)
                return sim_cerr(c, e, "unresolved parameter");
            n = sim_new(c, SO_CI, e);
            if (n) n->ival = c->params[e->u.name.index];
            return n;
        case IR_N_ARRAY:
            return sim_compile_access(c, e);
        case IR_N_LOOPVAR: case IR_N_REDVAR: case IR_N_INITVAR: case IR_N_DISTVAR: case IR_N_LET:
            if (!sim_check_slot(c, e, e->u.name.index)) return NULL;
            n = sim_new(c, e->type == IR_DOUBLE ? SO_LD : SO_LI, e);
            if (n) n->slot = e->u.name.index;
            return n;
        default:
            return sim_cerr(c, e, "unresolved name (program not checked?)");
        }
    case IR_E_ACCESS:
        return sim_compile_access(c, e);
    case IR_E_UNARY: {
        sim_node *a;
        if (e->u.op.op == IR_OP_NOT) {
            a = sim_compile_truth(c, e->u.op.a);
            n = sim_new(c, SO_NOT, e);
        } else {
            if (e->type == IR_INT) {
                sim_aff af;
                if (sim_aff_of(c, e, &af)) {
                    n = sim_new(c, SO_AFF, e);
                    if (n) n->aff = af;
                    return n;
                }
            }
            a = sim_compile_raw(c, e->u.op.a);
            if (!a) return NULL;
            n = sim_new(c, sim_is_double_op(a->op) ? SO_NEGD : SO_NEGI, e);
        }
        if (!a || !n) return NULL;
        n->a = a;
        return n;
    }
    case IR_E_BINARY:
        return sim_compile_binary(c, e);
    case IR_E_CALL:
        return sim_compile_call(c, e);
    case IR_E_REPEAT: {
        int u = e->u.repeat.op.user, dbl = e->type == IR_DOUBLE;
        if (u < 0 || u >= c->prog->nops) return sim_cerr(c, e, "repeat of an unresolved operator");
        sim_node *n = sim_new(c, dbl ? SO_REPEATD : SO_REPEATI, e);
        if (!n) return NULL;
        n->rop = u;
        n->a = sim_compile_expr(c, e->u.repeat.k, IR_INT);
        n->n = e->u.repeat.nargs;
        n->args = sim_alloc(c, (size_t)(n->n ? n->n : 1) * sizeof *n->args);
        if (!n->a || !n->args) { c->compile_errors++; return NULL; }
        for (int i = 0; i < n->n; i++) {
            n->args[i] = sim_compile_expr(c, e->u.repeat.args[i], op_state_type(c->prog, u, i));
            if (!n->args[i]) return NULL;
        }
        return n;
    }
    case IR_E_REDUCE: {
        if (!sim_check_slot(c, e, e->u.reduce.slot)) return NULL;
        sim_node *saved = c->sr_target;
        c->sr_target = NULL;
        sim_node *body = sim_compile_raw(c, e->u.reduce.body);
        c->sr_target = saved;
        if (!body) return NULL;
        int dbl = sim_is_double_op(body->op);
        n = sim_new(c, dbl ? SO_REDD : SO_REDI, e);
        if (!n) return NULL;
        n->slot = e->u.reduce.slot;
        n->rop = (int)e->u.reduce.r;
        n->a = sim_compile_expr(c, e->u.reduce.lo, IR_INT);
        n->b = sim_compile_expr(c, e->u.reduce.hi, IR_INT);
        n->c = body;
        n->dticks = sim_expr_ticks(e->u.reduce.body) + (dbl ? 1 : 0);
        if (dbl) {
            c->sr_target = n;
            n->srbody = sim_convert(c, sim_compile_raw(c, e->u.reduce.body), 1);
            c->sr_target = saved;
            if (!n->srbody || n->nsr == 0) { n->srbody = NULL; n->nsr = 0; }
        }
        return n->a && n->b ? n : NULL;
    }
    }
    return sim_cerr(c, e, "unknown expression");
}

/* ---- constants ------------------------------------------------------------------------------ */

int sim_const_num(sim_ctx *c, const ir_expr *e, double *out)
{
    int before = c->compile_errors;
    sim_node *n = sim_compile_raw(c, e);
    if (!n || c->compile_errors != before) return -1;
    int stop = c->stop;
    c->quiet++;
    c->quiet_errors = 0;
    double v = sim_is_double_op(n->op) ? sim_eval_d(c, n) : (double)sim_eval_i(c, n);
    c->quiet--;
    c->stop = stop;
    if (c->quiet_errors) return -1;
    *out = v;
    return 0;
}

int sim_const_int(sim_ctx *c, const ir_expr *e, int64_t *out)
{
    int before = c->compile_errors;
    sim_node *n = sim_compile_expr(c, e, IR_INT);
    if (!n || c->compile_errors != before) return -1;
    int stop = c->stop;
    c->quiet++;
    c->quiet_errors = 0;
    int64_t v = sim_eval_i(c, n);
    c->quiet--;
    c->stop = stop;
    if (c->quiet_errors) return -1;
    *out = v;
    return 0;
}

/* ---- statements ----------------------------------------------------------------------------- */

static sim_stmt *sim_new_stmt(sim_ctx *c, sim_stmt_kind k, const ir_stmt *s, const char *label)
{
    sim_stmt *st = sim_alloc(c, sizeof *st);
    if (!st) { c->compile_errors++; return NULL; }
    st->kind = k;
    st->label = label;
    st->class_share = 1;
    if (s) { st->line = s->pos.line; st->col = s->pos.col; }
    return st;
}

static int sim_stmt_cost(sim_ctx *c, sim_stmt *st, const ir_expr *cost)
{
    if (!cost) return 1;
    st->has_cost = 1;
    if (sim_const_num(c, cost, &st->cost) != 0) {
        sim_cerr(c, cost, "cost is not a constant");
        return 0;
    }
    return 1;
}

sim_stmt *sim_compile_block(sim_ctx *c, const ir_block *b)
{
    sim_stmt *st = sim_new_stmt(c, SS_BLOCK, NULL, "block");
    if (!st || !b) return st;
    if (!sim_stmt_cost(c, st, b->cost)) return NULL;
    st->n = b->n;
    st->s = sim_alloc(c, (size_t)(b->n ? b->n : 1) * sizeof *st->s);
    if (!st->s) { c->compile_errors++; return NULL; }
    int in_cost = st->has_cost;   /* the guards of sends in here are not work (the trace's guard) */
    c->in_cost += in_cost;
    for (int i = 0; i < b->n && st; i++)
        if (!(st->s[i] = sim_compile_stmt(c, b->stmts[i]))) st = NULL;
    c->in_cost -= in_cost;
    return st;
}

/* The loop nest of variables from..nvars-1 of a `for` around its body. */
sim_stmt *sim_compile_for(sim_ctx *c, const ir_stmt *s, int from)
{
    if (from >= s->u.for_.nvars) return sim_compile_block(c, s->u.for_.body);
    const ir_loopvar *v = &s->u.for_.vars[from];
    sim_stmt *st = sim_new_stmt(c, SS_FOR, s, "for");
    if (!st) return NULL;
    st->line = v->pos.line ? v->pos.line : st->line;
    st->col = v->pos.line ? v->pos.col : st->col;
    if (v->slot < 0 || v->slot >= c->prog->nslots) {
        sim_cerr(c, v->lo, "loop variable without a slot");
        return NULL;
    }
    if (v->slot > c->maxslot) c->maxslot = v->slot;
    st->slot = v->slot;
    st->lo = sim_compile_expr(c, v->lo, IR_INT);
    st->hi = sim_compile_expr(c, v->hi, IR_INT);
    st->step = v->step ? sim_compile_expr(c, v->step, IR_INT) : NULL;
    int outer_slot = c->loop_slot, outer_reuse = c->reuse_slot, outer_outer = c->outer_slot;
    const char *outer_var = c->loop_var;
    int outer_tile = c->loop_tile, outer_rtile = c->reuse_tile, outer_stepped = c->loop_stepped;
    int64_t outer_step = c->loop_step;
    int64_t outer_trip = c->loop_trip, outer_rtrip = c->reuse_trip, outer_rrows = c->reuse_rows;
    const ir_expr *jam_lo, *jam_hi;
    /* a jammed loop (ir_jam_loop) is unrolled into the loop around it where it runs: its
     * statements are priced by that loop, as the innermost, its chains interleaved */
    int jam = ir_jam_loop(s, c->loop_var, &jam_lo, &jam_hi) > 0;
    int tile_slot;
    st->tile_trip = sim_tile_trip(v, &tile_slot);   /* a tile's point loop: its most turns */
    int outer_jam_slot = c->jam_slot, outer_jam_base = c->jam_base;
    const ir_stmt *outer_regs = c->regs_assign;
    ir_regs_tile tile;
    int regs = ir_regs_tile_of(s, &tile);
    int64_t outer_span = c->regs_span;
    int64_t step = v->step && v->step->kind == IR_E_INT && v->step->u.ival > 0 ? v->step->u.ival : 1;
    if (regs) {
        c->regs_assign = tile.assign;   /* its element in registers */
        c->regs_span = st->tile_trip * step;   /* its turns sweep the columns of the tile around */
    }
    c->in_jam += jam;
    if (jam) {
        c->jam_slot = v->slot;
        c->jam_base = jam_lo->u.name.nk == IR_N_LOOPVAR ? jam_lo->u.name.index : -1;
    }
    if (!jam && !regs) {
        /* the loop around this one is where rows are reused (sim_streams.c), except a source
         * program's top-level loop: its every turn sweeps the arrays; a loop over register
         * tiles splits the tile around it finer: the rows are reused across the loop around it */
        c->outer_slot = c->reuse_slot;
        c->reuse_slot = c->level == IR_SOURCE && c->loop_depth == 1 ? -1 : c->loop_slot;
        c->reuse_trip = c->reuse_slot < 0 ? 0 : c->loop_trip;
        c->reuse_rows = c->reuse_trip * (c->loop_step > 0 ? c->loop_step : 1);   /* 0 outside any loop */
        c->reuse_tile = c->reuse_slot < 0 ? -1 : c->loop_tile;
        c->loop_slot = v->slot;
        c->loop_var = v->var;
        c->loop_trip = st->tile_trip;
        c->loop_step = step;
        c->loop_tile = tile_slot;
        c->loop_stepped = v->step && !(v->step->kind == IR_E_INT && (v->step->u.ival == 1 || v->step->u.ival == -1));
    }
    if (!c->loop_open) c->loop_open = sim_alloc(c, (size_t)c->prog->nslots * sizeof *c->loop_open);   /* zeroed */
    if (c->loop_open) c->loop_open[v->slot] = st;
    c->loop_depth++;
    st->body = sim_compile_for(c, s, from + 1);
    c->loop_depth--;
    if (c->loop_open) c->loop_open[v->slot] = NULL;
    c->in_jam -= jam;
    c->regs_assign = outer_regs;
    c->regs_span = outer_span;
    c->jam_slot = outer_jam_slot;
    c->jam_base = outer_jam_base;
    c->loop_slot = outer_slot;
    c->loop_var = outer_var;
    c->reuse_slot = outer_reuse;
    c->outer_slot = outer_outer;
    c->loop_trip = outer_trip;
    c->reuse_trip = outer_rtrip;
    c->reuse_rows = outer_rrows;
    c->loop_step = outer_step;
    c->loop_tile = outer_tile;
    c->reuse_tile = outer_rtile;
    c->loop_stepped = outer_stepped;
    st->jam = jam;
    if (st->body) sim_loop_chains(c, st, v->slot);
    if (st->body) sim_class_outer(c, st);
    if (st->body) sim_loop_restarts(st);
    if (st->body) sim_loop_entries(st);
    if (!st->lo || !st->hi || (v->step && !st->step) || !st->body) return NULL;
    return st;
}

sim_stmt *sim_compile_stmt(sim_ctx *c, const ir_stmt *s)
{
    sim_stmt *st = NULL;
    switch (s->kind) {
    case IR_S_ASSIGN: {
        st = sim_new_stmt(c, SS_ASSIGN, s, s->u.assign.label ? s->u.assign.label : "assignment");
        if (!st || !sim_stmt_cost(c, st, s->cost)) return NULL;
        st->lhs = sim_compile_access(c, s->u.assign.lhs);
        if (!st->lhs) return NULL;
        int dbl = st->lhs->op == SO_ACCD;
        st->rhs = sim_compile_expr(c, s->u.assign.rhs, dbl ? IR_DOUBLE : IR_INT);
        st->ticks = sim_expr_ticks(s->u.assign.rhs);
        if (st->rhs) st->wclass = sim_stmt_class(c, st);
        if (st->rhs) st->walks = sim_stmt_walks(c, st);
        if (st->rhs) sim_stmt_streams(c, st);
        if (st->rhs) st->alias_check = sim_stmt_alias_check(c, st);
        if (st->rhs && s == c->regs_assign) sim_stmt_regs(st);
        if (st->rhs) sim_stmt_chain(c, st);
        for (int i = 0; st->rhs && i < c->prog->ndecls; i++) {   /* `assume LABEL unchanged when COND` */
            const ir_decl *d = c->prog->decls[i];
            if (d->kind != IR_D_ASSUME || d->u.assume.stmt != s) continue;
            if (!(st->unchanged = sim_compile_truth(c, d->u.assume.cond))) return NULL;
            st->kind = SS_ASSUMED;
            st->assume_line = d->pos.line;
            st->assume_col = d->pos.col;
        }
        return st->rhs ? st : NULL;
    }
    case IR_S_LET: {
        const char *var = s->u.let.var ? s->u.let.var : "?";
        size_t len = strlen(var) + 5;
        char *lab = sim_alloc(c, len);
        if (lab) snprintf(lab, len, "let %s", var);
        st = sim_new_stmt(c, SS_LET, s, lab ? lab : "let");
        if (!st) return NULL;
        if (s->u.let.slot < 0 || s->u.let.slot >= c->prog->nslots) {
            sim_cerr(c, s->u.let.value, "let without a slot");
            return NULL;
        }
        if (s->u.let.slot > c->maxslot) c->maxslot = s->u.let.slot;
        st->slot = s->u.let.slot;
        st->is_double = s->u.let.value && s->u.let.value->type == IR_DOUBLE;
        st->rhs = sim_compile_expr(c, s->u.let.value, st->is_double ? IR_DOUBLE : IR_INT);
        st->ticks = sim_expr_ticks(s->u.let.value);
        if (st->rhs) sim_let_define(c, st->slot, st->rhs);
        return st->rhs ? st : NULL;
    }
    case IR_S_IF:
        st = sim_new_stmt(c, SS_IF, s, "if");
        if (!st) return NULL;
        st->cond = sim_compile_truth(c, s->u.if_.cond);
        st->ticks = st->cond && sim_cond_invariant(c, st->cond) ? 0 : sim_expr_ticks(s->u.if_.cond);
        st->then_ = sim_compile_block(c, s->u.if_.then_blk);
        st->else_ = s->u.if_.else_blk ? sim_compile_block(c, s->u.if_.else_blk) : NULL;
        if (!st->cond || !st->then_ || (s->u.if_.else_blk && !st->else_)) return NULL;
        return st;
    case IR_S_FOR:
        if (s->u.for_.nvars < 1) return (sim_stmt *)sim_cerr(c, NULL, "for without variables");
        return sim_compile_for(c, s, 0);
    case IR_S_SEND: {
        st = sim_new_stmt(c, SS_SEND, s, "send");
        if (!st || !sim_stmt_cost(c, st, s->cost)) return NULL;
        st->what = sim_compile_access(c, s->u.send.what);
        st->to_lo = sim_compile_expr(c, s->u.send.to_lo, IR_INT);
        st->to_hi = s->u.send.to_hi ? sim_compile_expr(c, s->u.send.to_hi, IR_INT) : NULL;
        st->at = sim_compile_expr(c, s->u.send.at, IR_INT);
        st->when = s->u.send.when ? sim_compile_truth(c, s->u.send.when) : NULL;
        st->ticks = sim_expr_ticks(s->u.send.when);
        st->guard_work = !st->has_cost && !c->in_cost;   /* the trace's guard records its ticks */
        if (!st->what || !st->to_lo || (s->u.send.to_hi && !st->to_hi) || !st->at
            || (s->u.send.when && !st->when))
            return NULL;
        if (s->u.send.as_idx) {
            int ndims = c->prog->arrays[st->what->array]->u.array.ndims;
            if (s->u.send.nas != ndims)
                return (sim_stmt *)sim_cerr(c, s->u.send.what, "`as` needs one index per dimension");
            st->nas = s->u.send.nas;
            st->as = sim_alloc(c, (size_t)(st->nas ? st->nas : 1) * sizeof *st->as);
            if (!st->as) { c->compile_errors++; return NULL; }
            for (int i = 0; i < st->nas; i++) {
                st->as[i] = sim_compile_expr(c, s->u.send.as_idx[i], IR_INT);
                if (!st->as[i]) return NULL;
            }
        }
        return st;
    }
    case IR_S_RECV:
        return sim_new_stmt(c, SS_RECV, s, "recv");
    case IR_S_COLL:
        /* the driver (sim.c) runs the collectives of the processor loop's body itself */
        return (sim_stmt *)sim_cerr(c, NULL, "a collective outside the processor loop's body");
    }
    return (sim_stmt *)sim_cerr(c, NULL, "unknown statement");
}
