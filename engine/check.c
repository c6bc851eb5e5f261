/*
 * check.c — the semantic checker (see ir.h): its symbols and scopes, affinity, expressions, and
 * the driver ir_check.  Statements are in check_stmt.c, declarations in check_decl.c (shared
 * internals in check_int.h); constant evaluation is in consteval.c, loading in load.c.
 *
 * ir_check resolves every name with proper scoping, gives every binder (loop variable, let,
 * reduction variable, init index binder, dist processor variable) its own variable slot, infers
 * the type of every expression, and enforces the language's rules: array dimensionality,
 * assignment targets, unique labels, parameters using only earlier parameters, constant costs,
 * affine loop bounds and subscripts, and the rules of each APM level.
 *
 * Integer semantics (shared with the simulator): / is floor division, % the matching remainder
 * (non-negative for a positive divisor), ceil(a / b) with an integer a / b is the exact ceiling
 * of the quotient, overflow and division by zero are errors.
 */
#include "check_int.h"
#include "mem.h"
#include "op.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void chk_err(checker *C, ir_pos pos, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    diag_add(C->d, C->p->file, pos.line, pos.col, "%s", buf);
    C->nerr++;
}

const char *const chk_nk_names[] = {
    [IR_N_UNRESOLVED] = "name", [IR_N_PARAM] = "parameter", [IR_N_LOOPVAR] = "loop variable",
    [IR_N_LET] = "let", [IR_N_REDVAR] = "reduction variable", [IR_N_INITVAR] = "init index",
    [IR_N_DISTVAR] = "processor variable", [IR_N_ARRAY] = "array", [IR_N_OPVAR] = "operator variable",
};

/* ---- symbols -------------------------------------------------------------------------------- */

static unsigned hash_str(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The entry of `name` (inserted with top -1 when `insert` and absent), or -1. */
int chk_ht_find(htab *t, const char *name, int insert)
{
    if (insert && (t->n + 1) * 2 > t->cap) {
        int ncap = t->cap ? t->cap * 2 : 64;
        hentry *ne = xrealloc(NULL, (size_t)ncap * sizeof *ne);
        memset(ne, 0, (size_t)ncap * sizeof *ne);
        for (int i = 0; i < t->cap; i++) {
            if (!t->e[i].name) continue;
            unsigned h = hash_str(t->e[i].name) & (unsigned)(ncap - 1);
            while (ne[h].name) h = (h + 1) & (unsigned)(ncap - 1);
            ne[h] = t->e[i];
        }
        free(t->e);
        t->e = ne;
        t->cap = ncap;
    }
    if (t->cap == 0) return -1;
    unsigned h = hash_str(name) & (unsigned)(t->cap - 1);
    while (t->e[h].name) {
        if (strcmp(t->e[h].name, name) == 0) return (int)h;
        h = (h + 1) & (unsigned)(t->cap - 1);
    }
    if (!insert) return -1;
    t->e[h].name = name;
    t->e[h].top = -1;
    t->n++;
    return (int)h;
}

sym *chk_lookup(checker *C, const char *name)
{
    int h = chk_ht_find(&C->names, name, 0);
    return h >= 0 && C->names.e[h].top >= 0 ? &C->syms[C->names.e[h].top] : NULL;
}

/* Leaves scope: forgets the symbols defined after `mark`. */
void chk_pop_to(checker *C, int mark)
{
    while (C->nsyms > mark) {
        sym *s = &C->syms[--C->nsyms];
        int h = chk_ht_find(&C->names, s->name, 0);
        if (h >= 0) C->names.e[h].top = s->prev;
    }
}

static int new_slot(checker *C)
{
    if (C->nslots == C->capslots) {
        C->capslots = C->capslots ? C->capslots * 2 : 16;
        for (int m = 0; m < 2; m++) C->cls[m] = xrealloc(C->cls[m], (size_t)C->capslots);
    }
    C->cls[0][C->nslots] = AFF_AFFINE;
    C->cls[1][C->nslots] = AFF_AFFINE;
    return C->nslots++;
}

/* Does e (unresolved) name `nm` anywhere (a reduction's own variable shadows it in its body)? */
int chk_expr_uses_name(const ir_expr *e, const char *nm)
{
    if (!e) return 0;
    switch (e->kind) {
    case IR_E_NAME: return strcmp(e->u.name.id, nm) == 0;
    case IR_E_ACCESS:
        for (int i = 0; i < e->u.access.nidx; i++)
            if (chk_expr_uses_name(e->u.access.idx[i], nm)) return 1;
        return 0;
    case IR_E_UNARY: case IR_E_BINARY:
        return chk_expr_uses_name(e->u.op.a, nm) || chk_expr_uses_name(e->u.op.b, nm);
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++)
            if (chk_expr_uses_name(e->u.call.args[i], nm)) return 1;
        return 0;
    case IR_E_REDUCE:
        return chk_expr_uses_name(e->u.reduce.lo, nm) || chk_expr_uses_name(e->u.reduce.hi, nm) ||
               (strcmp(e->u.reduce.var, nm) != 0 && chk_expr_uses_name(e->u.reduce.body, nm));
    case IR_E_REPEAT:
        if (chk_expr_uses_name(e->u.repeat.k, nm)) return 1;
        for (int i = 0; i < e->u.repeat.nargs; i++)
            if (chk_expr_uses_name(e->u.repeat.args[i], nm)) return 1;
        return 0;
    default: return 0;
    }
}

/* Defines a name; reports shadowing.  Returns the slot for variables (new_slot) or `index`. */
int chk_define(checker *C, const char *name, ir_name_kind nk, int index, ir_pos pos, ir_type t)
{
    sym *old = chk_lookup(C, name);
    if (old)
        chk_err(C, pos, "'%s' is already defined at %d:%d (as a %s)", name, old->pos.line,
             old->pos.col, chk_nk_names[old->nk]);
    if (nk != IR_N_PARAM && nk != IR_N_ARRAY) index = new_slot(C);
    if (C->nsyms == C->capsyms) {
        C->capsyms = C->capsyms ? C->capsyms * 2 : 32;
        C->syms = xrealloc(C->syms, (size_t)C->capsyms * sizeof *C->syms);
    }
    int h = chk_ht_find(&C->names, name, 1);
    C->syms[C->nsyms] = (sym){ name, nk, index, pos, t, C->names.e[h].top, h };
    C->names.e[h].top = C->nsyms++;
    return index;
}

ir_decl *chk_array_decl(checker *C, const sym *s) { return C->p->arrays[s->index]; }

/* ---- affinity ------------------------------------------------------------------------------- */

int chk_aff(checker *C, const ir_expr *e, int bound, const ir_expr **bad)
{
#define BAD(node) do { if (!*bad) *bad = (node); return AFF_NON; } while (0)
    if (!e) return AFF_CONST;
    switch (e->kind) {
    case IR_E_INT: case IR_E_REAL: return AFF_CONST;
    case IR_E_NAME:
        switch (e->u.name.nk) {
        case IR_N_PARAM: case IR_N_UNRESOLVED: return AFF_CONST;
        case IR_N_LOOPVAR: case IR_N_REDVAR: case IR_N_INITVAR: case IR_N_DISTVAR: return AFF_AFFINE;
        case IR_N_LET: {
            int s = e->u.name.index;
            int c = s >= 0 && s < C->nslots ? C->cls[bound][s] : AFF_NON;
            if (c == AFF_NON) BAD(e);
            return c;
        }
        case IR_N_ARRAY: case IR_N_OPVAR: BAD(e);
        }
        return AFF_NON;
    case IR_E_ACCESS: BAD(e);
    case IR_E_REDUCE: BAD(e);
    case IR_E_REPEAT: BAD(e);
    case IR_E_UNARY: {
        int a = chk_aff(C, e->u.op.a, bound, bad);
        if (a == AFF_NON) return a;
        if (e->u.op.op == IR_OP_NEG) return a;
        if (a != AFF_CONST) BAD(e);
        return a;
    }
    case IR_E_BINARY: {
        int a = chk_aff(C, e->u.op.a, bound, bad);
        int b = chk_aff(C, e->u.op.b, bound, bad);
        if (a == AFF_NON || b == AFF_NON) return AFF_NON;
        switch (e->u.op.op) {
        case IR_OP_ADD: case IR_OP_SUB: return a > b ? a : b;
        case IR_OP_MUL:
            if (a == AFF_CONST) return b;
            if (b == AFF_CONST) return a;
            BAD(e);
        case IR_OP_DIV: case IR_OP_MOD:
            if (b == AFF_CONST) return a;
            BAD(e);
        default:
            if (a == AFF_CONST && b == AFF_CONST) return AFF_CONST;
            BAD(e);
        }
    }
    case IR_E_CALL: {
        int all = AFF_CONST;
        for (int i = 0; i < e->u.call.nargs; i++) {
            int c = chk_aff(C, e->u.call.args[i], bound, bad);
            if (c == AFF_NON) return AFF_NON;
            if (c > all) all = c;
        }
        switch (e->u.call.f) {
        case IR_F_FLOOR: case IR_F_CEIL: return all;
        case IR_F_MIN: case IR_F_MAX:
            if (all == AFF_CONST || bound) return all;
            BAD(e);
        default:
            if (all == AFF_CONST) return all;
            BAD(e);
        }
    }
    }
    return AFF_NON;
#undef BAD
}

/* ---- expressions ---------------------------------------------------------------------------- */

static const char *mode_what(int mode, const char *what) { (void)mode; return what ? what : "this expression"; }

static ir_type resolve_repeat(checker *C, ir_expr *e, int mode, const char *what);

void check_subscript(checker *C, ir_expr *ix, int mode, const char *what)
{
    ir_type t = chk_resolve(C, ix, mode, what);
    if (t != IR_INT) chk_err(C, ix->pos, "a subscript must be an integer expression, found a double one");
    const ir_expr *bad = NULL;
    if (chk_aff(C, ix, 0, &bad) == AFF_NON)
        chk_err(C, bad ? bad->pos : ix->pos, "non-affine subscript");
}

static void const_violation(checker *C, const ir_expr *e, int mode, const char *what, const char *uses)
{
    if (mode == M_NOARRAY || mode == M_INIT)
        chk_err(C, e->pos, "%s may not read arrays, but uses %s", what, uses);
    else
        chk_err(C, e->pos, "%s must be a constant expression (parameters and literals), but uses %s",
             what, uses);
}

static int later_param(checker *C, const char *name)
{
    if (C->cur_param < 0) return 0;
    for (int i = C->cur_param + 1; i < C->p->ndecls; i++) {
        const ir_decl *d = C->p->decls[i];
        if (d->kind == IR_D_PARAM && d->u.param.name && strcmp(d->u.param.name, name) == 0) return 1;
    }
    return 0;
}

/* Resolves an operator reference: a built-in name or a declared op.  0 = ok. */
int chk_resolve_opref(checker *C, ir_opref *op)
{
    op->builtin = op_builtin_find(op->name);
    op->user = -1;
    if (op->builtin >= 0) return 0;
    for (int i = 0; op->name && i < C->p->nops; i++)
        if (strcmp(C->p->ops[i]->u.op.name, op->name) == 0) {
            op->user = i;
            return 0;
        }
    chk_err(C, op->pos, "unknown operator '%s' (expected +, *, max, min, and, or, band, bor, bxor, or an "
         "operator declared with 'op')", op->name ? op->name : "?");
    return -1;
}

static ir_type resolve_repeat(checker *C, ir_expr *e, int mode, const char *what)
{
    if (mode == M_OP || mode == M_CONST)
        chk_err(C, e->pos, "repeat is not allowed here (%s)", mode == M_OP ? "an operator clause" : "a constant");
    if (chk_resolve(C, e->u.repeat.k, mode, what) != IR_INT)
        chk_err(C, e->u.repeat.k->pos, "repeat's count must be an integer expression");
    ir_type targ[OP_MAX_FIELDS];
    int n = e->u.repeat.nargs;
    for (int i = 0; i < n; i++) {
        ir_type t = chk_resolve(C, e->u.repeat.args[i], mode, what);
        if (i < OP_MAX_FIELDS) targ[i] = t;
    }
    if (chk_resolve_opref(C, &e->u.repeat.op) != 0) return IR_INT;
    int u = e->u.repeat.op.user;
    if (u < 0) {
        chk_err(C, e->u.repeat.op.pos, "repeat needs an operator with 'even' and 'odd' clauses; '%s' is "
             "built in", e->u.repeat.op.name);
        return IR_INT;
    }
    const ir_decl *od = C->p->ops[u];
    if (!od->u.op.clause[IR_K_EVEN] || !od->u.op.clause[IR_K_ODD]) {
        chk_err(C, e->u.repeat.op.pos, "repeat needs an operator with 'even' and 'odd' clauses; '%s' has %s",
             od->u.op.name, od->u.op.clause[IR_K_EVEN] ? "no 'odd'" : "no 'even'");
        return IR_INT;
    }
    int ns = op_state_arity(C->p, u);
    if (n != ns) {
        chk_err(C, e->pos, "repeat(%s, ..) needs a start tuple of %d value%s (the state), found %d",
             od->u.op.name, ns, ns == 1 ? "" : "s", n);
        return IR_INT;
    }
    for (int i = 0; i < n && i < OP_MAX_FIELDS; i++)
        if (targ[i] == IR_DOUBLE && op_state_type(C->p, u, i) == IR_INT)
            chk_err(C, e->u.repeat.args[i]->pos, "operator type mismatch: state field %d of '%s' is int, "
                 "found a double value", i + 1, od->u.op.name);
    return op_state_type(C->p, u, 0);
}

/* A name: a parameter, variable, 0-dimensional array or (in an operator clause) a pattern name. */
static ir_type resolve_name(checker *C, ir_expr *e, int mode, const char *what)
{
    char b[128];
    e->type = IR_INT;
    e->u.name.nk = IR_N_UNRESOLVED;
    e->u.name.index = -1;
    sym *s = chk_lookup(C, e->u.name.id);
    if (!s) {
        if (later_param(C, e->u.name.id))
            chk_err(C, e->pos, "parameter '%s' is defined later: a parameter may only use "
                 "earlier parameters", e->u.name.id);
        else
            chk_err(C, e->pos, "unknown name '%s'", e->u.name.id);
        return IR_INT;
    }
    if (mode == M_OP && s->nk != IR_N_OPVAR) {
        chk_err(C, e->pos, "an operator clause may only use its pattern names, its lets and literals, "
             "but uses %s '%s'", chk_nk_names[s->nk], e->u.name.id);
        return IR_INT;
    }
    if (s->nk == IR_N_OPVAR && mode != M_OP) {
        chk_err(C, e->pos, "unknown name '%s'", e->u.name.id);
        return IR_INT;
    }
    if (s->nk == IR_N_ARRAY) {
        ir_decl *ad = chk_array_decl(C, s);
        if (ad->u.array.ndims != 0) {
            chk_err(C, e->pos, "array '%s' has %d dimension%s: expected %d subscript%s",
                 e->u.name.id, ad->u.array.ndims, ad->u.array.ndims == 1 ? "" : "s",
                 ad->u.array.ndims, ad->u.array.ndims == 1 ? "" : "s");
        } else if (mode != M_ANY) {
            snprintf(b, sizeof b, "array '%s'", e->u.name.id);
            const_violation(C, e, mode, mode_what(mode, what), b);
        }
    } else if (mode == M_CONST && s->nk != IR_N_PARAM) {
        snprintf(b, sizeof b, "%s '%s'", chk_nk_names[s->nk], e->u.name.id);
        const_violation(C, e, mode, mode_what(mode, what), b);
    }
    e->u.name.nk = s->nk;
    e->u.name.index = s->index;
    return e->type = s->type;
}

/* An array element: its array, its subscripts (affine integers). */
static ir_type resolve_access(checker *C, ir_expr *e, int mode, const char *what)
{
    char b[128];
    e->u.access.array_index = -1;
    if (mode == M_OP) {
        chk_err(C, e->pos, "an operator clause may not read arrays (found '%s[..]')", e->u.access.array);
        return e->type = IR_INT;
    }
    sym *s = chk_lookup(C, e->u.access.array);
    ir_type t = IR_DOUBLE;
    if (!s) {
        chk_err(C, e->pos, "unknown array '%s'", e->u.access.array);
    } else if (s->nk != IR_N_ARRAY) {
        chk_err(C, e->pos, "'%s' is a %s, not an array", e->u.access.array, chk_nk_names[s->nk]);
    } else {
        ir_decl *ad = chk_array_decl(C, s);
        t = ad->u.array.elem;
        if (ad->u.array.ndims != e->u.access.nidx)
            chk_err(C, e->pos, "array '%s' has %d dimension%s, found %d subscript%s",
                 e->u.access.array, ad->u.array.ndims, ad->u.array.ndims == 1 ? "" : "s",
                 e->u.access.nidx, e->u.access.nidx == 1 ? "" : "s");
        else
            e->u.access.array_index = s->index;
        if (mode != M_ANY) {
            snprintf(b, sizeof b, "array '%s'", e->u.access.array);
            const_violation(C, e, mode, mode_what(mode, what), b);
        }
    }
    for (int i = 0; i < e->u.access.nidx; i++) check_subscript(C, e->u.access.idx[i], mode, what);
    return e->type = t;
}

/* A built-in function's call: its arguments' number and types, its result's type. */
static ir_type resolve_call(checker *C, ir_expr *e, int mode, const char *what)
{
    ir_type all = IR_INT;
    for (int i = 0; i < e->u.call.nargs; i++)
        if (chk_resolve(C, e->u.call.args[i], mode, what) == IR_DOUBLE) all = IR_DOUBLE;
    int n = e->u.call.nargs;
    const char *fn = ir_func_name(e->u.call.f);
    switch (e->u.call.f) {
    case IR_F_MIN: case IR_F_MAX:
        if (n < 2) chk_err(C, e->pos, "%s takes at least 2 arguments, found %d", fn, n);
        return e->type = all;
    case IR_F_SELECT:
        if (n != 3) {
            chk_err(C, e->pos, "select takes 3 arguments, found %d", n);
            return e->type = all;
        }
        return e->type = (e->u.call.args[1]->type == IR_DOUBLE || e->u.call.args[2]->type == IR_DOUBLE)
                       ? IR_DOUBLE : IR_INT;
    case IR_F_BAND: case IR_F_BOR: case IR_F_BXOR:
        if (n != 2) chk_err(C, e->pos, "%s takes 2 arguments, found %d", fn, n);
        else if (all != IR_INT) chk_err(C, e->pos, "%s needs integer arguments", fn);
        return e->type = IR_INT;
    case IR_F_SQRT:
        if (n != 1) chk_err(C, e->pos, "%s takes 1 argument, found %d", fn, n);
        return e->type = IR_DOUBLE;
    case IR_F_SIN: case IR_F_COS: case IR_F_TAN: case IR_F_EXP: case IR_F_LOG: case IR_F_POW:
        if (n != ir_libm_nargs(e->u.call.f))
            chk_err(C, e->pos, "%s takes %d argument%s, found %d", fn, ir_libm_nargs(e->u.call.f),
                    ir_libm_nargs(e->u.call.f) == 1 ? "" : "s", n);
        return e->type = IR_DOUBLE;
    case IR_F_ISQRT:
        if (n != 1) chk_err(C, e->pos, "%s takes 1 argument, found %d", fn, n);
        else if (all != IR_INT) chk_err(C, e->pos, "isqrt needs an integer argument");
        return e->type = IR_INT;
    case IR_F_CRAND: case IR_F_CLRAND48: case IR_F_CDRAND48:
        if (mode != M_INIT)
            chk_err(C, e->pos, "%s (the C library's random numbers) is allowed only in an init's value", fn);
        else if (n < (e->u.call.f == IR_F_CRAND ? 2 : 1) || n > 2)
            chk_err(C, e->pos, "%s takes %s arguments, found %d", fn, e->u.call.f == IR_F_CRAND ? "2" : "1 or 2", n);
        else if (all != IR_INT)
            chk_err(C, e->pos, "%s needs integer arguments (a seed and a call number)", fn);
        return e->type = e->u.call.f == IR_F_CDRAND48 ? IR_DOUBLE : IR_INT;
    default:
        if (n != 1) chk_err(C, e->pos, "%s takes 1 argument, found %d", fn, n);
        return e->type = all;
    }
}

/* A reduction: integer bounds, its variable defined over its body. */
static ir_type resolve_reduce(checker *C, ir_expr *e, int mode, const char *what)
{
    if (mode == M_OP) {
        chk_err(C, e->pos, "an operator clause may not contain a reduction");
        return e->type = IR_INT;
    }
    if (mode == M_CONST) const_violation(C, e, mode, mode_what(mode, what), "a reduction");
    if (chk_resolve(C, e->u.reduce.lo, mode, what) != IR_INT)
        chk_err(C, e->u.reduce.lo->pos, "a reduction bound must be an integer expression");
    if (chk_resolve(C, e->u.reduce.hi, mode, what) != IR_INT)
        chk_err(C, e->u.reduce.hi->pos, "a reduction bound must be an integer expression");
    int mark = C->nsyms;
    e->u.reduce.slot = chk_define(C, e->u.reduce.var, IR_N_REDVAR, 0, e->pos, IR_INT);
    ir_type t = chk_resolve(C, e->u.reduce.body, mode, what);
    chk_pop_to(C, mark);
    return e->type = t;
}

ir_type chk_resolve(checker *C, ir_expr *e, int mode, const char *what)
{
    if (!e) return IR_INT;
    switch (e->kind) {
    case IR_E_INT: return e->type = IR_INT;
    case IR_E_REAL: return e->type = IR_DOUBLE;
    case IR_E_NAME: return resolve_name(C, e, mode, what);
    case IR_E_ACCESS: return resolve_access(C, e, mode, what);
    case IR_E_UNARY: {
        ir_type t = chk_resolve(C, e->u.op.a, mode, what);
        return e->type = e->u.op.op == IR_OP_NOT ? IR_INT : t;
    }
    case IR_E_BINARY: {
        ir_type a = chk_resolve(C, e->u.op.a, mode, what);
        ir_type c = chk_resolve(C, e->u.op.b, mode, what);
        switch (e->u.op.op) {
        case IR_OP_MOD:
            if (a != IR_INT || c != IR_INT) chk_err(C, e->pos, "'%%' needs integer operands");
            return e->type = IR_INT;
        case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV:
            return e->type = (a == IR_INT && c == IR_INT) ? IR_INT : IR_DOUBLE;
        default:
            return e->type = IR_INT;
        }
    }
    case IR_E_CALL: return resolve_call(C, e, mode, what);
    case IR_E_REPEAT: return e->type = resolve_repeat(C, e, mode, what);
    case IR_E_REDUCE: return resolve_reduce(C, e, mode, what);
    }
    return IR_INT;
}

/* A constant integer expression (cost, step, array bound, ...). */
void check_const(checker *C, ir_expr *e, const char *what, int need_int)
{
    if (!e) return;
    ir_type t = chk_resolve(C, e, M_CONST, what);
    if (need_int && t != IR_INT) chk_err(C, e->pos, "%s must be an integer expression", what);
}

void check_int(checker *C, ir_expr *e, const char *what)
{
    if (!e) return;
    if (chk_resolve(C, e, M_ANY, what) != IR_INT) chk_err(C, e->pos, "%s must be an integer expression", what);
}


int ir_check(ir_program *p, diag_list *d)
{
    checker C;
    memset(&C, 0, sizeof C);
    C.p = p;
    C.d = d;
    C.cur_param = -1;
    p->checked = 0;
    check_decls(&C);
    if (p->aggregate && p->level != IR_SYNDM) chk_level_error(&C, p->aggregate_pos, "messages aggregate", "syndm");
    memset(&p->nest, 0, sizeof p->nest);
    if (p->level != IR_SOURCE) check_structure(&C);
    check_block(&C, p->body);
    check_assumption_labels(&C);
    p->nslots = C.nslots;
    if (C.nerr == 0)
        for (int i = 0; i < p->nops; i++) C.nerr += op_check_samples(p, i, d);
    free(C.syms);
    free(C.names.e);
    free(C.labels.e);
    free(C.cls[0]);
    free(C.cls[1]);
    if (C.nerr == 0) p->checked = 1;
    return C.nerr;
}
