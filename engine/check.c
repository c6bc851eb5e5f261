/*
 * check.c — the semantic checker, constant evaluation and loading (see ir.h).
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
#include "intsem.h"
#include "ir.h"
#include "op.h"
#include "textfile.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { AFF_CONST = 0, AFF_AFFINE = 1, AFF_NON = 2 };
enum { M_ANY, M_CONST, M_NOARRAY, M_OP };   /* what an expression may use (M_OP: an operator
                                                clause: its own names and literals only) */

typedef struct sym {
    const char *name;
    ir_name_kind nk;
    int index;          /* param index, array index, or slot */
    ir_pos pos;
    ir_type type;
    int prev;           /* the symbol of the same name this one hides, or -1 */
    int hslot;          /* its entry in the name table */
} sym;

/* Name table (open addressing, insert-only keys): name -> innermost symbol (or -1), or for the
 * label table name -> the statement position stored in `pos`. */
typedef struct hentry {
    const char *name;
    int top;
    ir_pos pos;
} hentry;

typedef struct htab {
    hentry *e;
    int cap, n;
} htab;

typedef struct checker {
    ir_program *p;
    diag_list *d;
    int nerr;
    sym *syms;
    int nsyms, capsyms;
    htab names;              /* name -> innermost symbol */
    htab labels;             /* label -> position */
    signed char *cls[2];     /* per slot: affinity class of a let's value (0 subscript, 1 bound) */
    int nslots, capslots;
    const ir_loopvar *procvar;   /* the processor loop of the step nest (syn and above) */
    const ir_block *proc_body;   /* the body of the processor loop (collectives go there) */
    const ir_block *cur_block;   /* the block whose statements are being checked */
    int cur_param;           /* index in decls of the parameter being checked, or -1 */
} checker;

static void *xrealloc(void *p, size_t n)
{
    void *r = realloc(p, n ? n : 1);
    if (!r) {
        fputs("polyapm: out of memory\n", stderr);
        abort();
    }
    return r;
}

static void cerr(checker *C, ir_pos pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cerr(checker *C, ir_pos pos, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    diag_add(C->d, C->p->file, pos.line, pos.col, "%s", buf);
    C->nerr++;
}

static const char *const nk_names[] = {
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
static int ht_find(htab *t, const char *name, int insert)
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

static sym *lookup(checker *C, const char *name)
{
    int h = ht_find(&C->names, name, 0);
    return h >= 0 && C->names.e[h].top >= 0 ? &C->syms[C->names.e[h].top] : NULL;
}

/* Leaves scope: forgets the symbols defined after `mark`. */
static void pop_to(checker *C, int mark)
{
    while (C->nsyms > mark) {
        sym *s = &C->syms[--C->nsyms];
        int h = ht_find(&C->names, s->name, 0);
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

/* Defines a name; reports shadowing.  Returns the slot for variables (new_slot) or `index`. */
/* Does e (unresolved) name `nm` anywhere (a reduction's own variable shadows it in its body)? */
static int expr_uses_name(const ir_expr *e, const char *nm)
{
    if (!e) return 0;
    switch (e->kind) {
    case IR_E_NAME: return strcmp(e->u.name.id, nm) == 0;
    case IR_E_ACCESS:
        for (int i = 0; i < e->u.access.nidx; i++)
            if (expr_uses_name(e->u.access.idx[i], nm)) return 1;
        return 0;
    case IR_E_UNARY: case IR_E_BINARY:
        return expr_uses_name(e->u.op.a, nm) || expr_uses_name(e->u.op.b, nm);
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++)
            if (expr_uses_name(e->u.call.args[i], nm)) return 1;
        return 0;
    case IR_E_REDUCE:
        return expr_uses_name(e->u.reduce.lo, nm) || expr_uses_name(e->u.reduce.hi, nm) ||
               (strcmp(e->u.reduce.var, nm) != 0 && expr_uses_name(e->u.reduce.body, nm));
    case IR_E_REPEAT:
        if (expr_uses_name(e->u.repeat.k, nm)) return 1;
        for (int i = 0; i < e->u.repeat.nargs; i++)
            if (expr_uses_name(e->u.repeat.args[i], nm)) return 1;
        return 0;
    default: return 0;
    }
}

static int define(checker *C, const char *name, ir_name_kind nk, int index, ir_pos pos, ir_type t)
{
    sym *old = lookup(C, name);
    if (old)
        cerr(C, pos, "'%s' is already defined at %d:%d (as a %s)", name, old->pos.line,
             old->pos.col, nk_names[old->nk]);
    if (nk != IR_N_PARAM && nk != IR_N_ARRAY) index = new_slot(C);
    if (C->nsyms == C->capsyms) {
        C->capsyms = C->capsyms ? C->capsyms * 2 : 32;
        C->syms = xrealloc(C->syms, (size_t)C->capsyms * sizeof *C->syms);
    }
    int h = ht_find(&C->names, name, 1);
    C->syms[C->nsyms] = (sym){ name, nk, index, pos, t, C->names.e[h].top, h };
    C->names.e[h].top = C->nsyms++;
    return index;
}

static ir_decl *array_decl(checker *C, const sym *s) { return C->p->arrays[s->index]; }

/* ---- affinity ------------------------------------------------------------------------------- */

static int aff(checker *C, const ir_expr *e, int bound, const ir_expr **bad)
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
        int a = aff(C, e->u.op.a, bound, bad);
        if (a == AFF_NON) return a;
        if (e->u.op.op == IR_OP_NEG) return a;
        if (a != AFF_CONST) BAD(e);
        return a;
    }
    case IR_E_BINARY: {
        int a = aff(C, e->u.op.a, bound, bad);
        int b = aff(C, e->u.op.b, bound, bad);
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
            int c = aff(C, e->u.call.args[i], bound, bad);
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

static ir_type resolve(checker *C, ir_expr *e, int mode, const char *what);
static ir_type resolve_repeat(checker *C, ir_expr *e, int mode, const char *what);

static void check_subscript(checker *C, ir_expr *ix, int mode, const char *what)
{
    ir_type t = resolve(C, ix, mode, what);
    if (t != IR_INT) cerr(C, ix->pos, "a subscript must be an integer expression, found a double one");
    const ir_expr *bad = NULL;
    if (aff(C, ix, 0, &bad) == AFF_NON)
        cerr(C, bad ? bad->pos : ix->pos, "non-affine subscript");
}

static void const_violation(checker *C, const ir_expr *e, int mode, const char *what, const char *uses)
{
    if (mode == M_NOARRAY)
        cerr(C, e->pos, "%s may not read arrays, but uses %s", what, uses);
    else
        cerr(C, e->pos, "%s must be a constant expression (parameters and literals), but uses %s",
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
static int resolve_opref(checker *C, ir_opref *op)
{
    op->builtin = op_builtin_find(op->name);
    op->user = -1;
    if (op->builtin >= 0) return 0;
    for (int i = 0; op->name && i < C->p->nops; i++)
        if (strcmp(C->p->ops[i]->u.op.name, op->name) == 0) {
            op->user = i;
            return 0;
        }
    cerr(C, op->pos, "unknown operator '%s' (expected +, *, max, min, and, or, band, bor, bxor, or an "
         "operator declared with 'op')", op->name ? op->name : "?");
    return -1;
}

static ir_type resolve_repeat(checker *C, ir_expr *e, int mode, const char *what)
{
    if (mode == M_OP || mode == M_CONST)
        cerr(C, e->pos, "repeat is not allowed here (%s)", mode == M_OP ? "an operator clause" : "a constant");
    if (resolve(C, e->u.repeat.k, mode, what) != IR_INT)
        cerr(C, e->u.repeat.k->pos, "repeat's count must be an integer expression");
    ir_type targ[OP_MAX_FIELDS];
    int n = e->u.repeat.nargs;
    for (int i = 0; i < n; i++) {
        ir_type t = resolve(C, e->u.repeat.args[i], mode, what);
        if (i < OP_MAX_FIELDS) targ[i] = t;
    }
    if (resolve_opref(C, &e->u.repeat.op) != 0) return IR_INT;
    int u = e->u.repeat.op.user;
    if (u < 0) {
        cerr(C, e->u.repeat.op.pos, "repeat needs an operator with 'even' and 'odd' clauses; '%s' is "
             "built in", e->u.repeat.op.name);
        return IR_INT;
    }
    const ir_decl *od = C->p->ops[u];
    if (!od->u.op.clause[IR_K_EVEN] || !od->u.op.clause[IR_K_ODD]) {
        cerr(C, e->u.repeat.op.pos, "repeat needs an operator with 'even' and 'odd' clauses; '%s' has %s",
             od->u.op.name, od->u.op.clause[IR_K_EVEN] ? "no 'odd'" : "no 'even'");
        return IR_INT;
    }
    int ns = op_state_arity(C->p, u);
    if (n != ns) {
        cerr(C, e->pos, "repeat(%s, ..) needs a start tuple of %d value%s (the state), found %d",
             od->u.op.name, ns, ns == 1 ? "" : "s", n);
        return IR_INT;
    }
    for (int i = 0; i < n && i < OP_MAX_FIELDS; i++)
        if (targ[i] == IR_DOUBLE && op_state_type(C->p, u, i) == IR_INT)
            cerr(C, e->u.repeat.args[i]->pos, "operator type mismatch: state field %d of '%s' is int, "
                 "found a double value", i + 1, od->u.op.name);
    return op_state_type(C->p, u, 0);
}

static ir_type resolve(checker *C, ir_expr *e, int mode, const char *what)
{
    char b[128];
    if (!e) return IR_INT;
    switch (e->kind) {
    case IR_E_INT: return e->type = IR_INT;
    case IR_E_REAL: return e->type = IR_DOUBLE;
    case IR_E_NAME: {
        e->type = IR_INT;
        e->u.name.nk = IR_N_UNRESOLVED;
        e->u.name.index = -1;
        sym *s = lookup(C, e->u.name.id);
        if (!s) {
            if (later_param(C, e->u.name.id))
                cerr(C, e->pos, "parameter '%s' is defined later: a parameter may only use "
                     "earlier parameters", e->u.name.id);
            else
                cerr(C, e->pos, "unknown name '%s'", e->u.name.id);
            return IR_INT;
        }
        if (mode == M_OP && s->nk != IR_N_OPVAR) {
            cerr(C, e->pos, "an operator clause may only use its pattern names, its lets and literals, "
                 "but uses %s '%s'", nk_names[s->nk], e->u.name.id);
            return IR_INT;
        }
        if (s->nk == IR_N_OPVAR && mode != M_OP) {
            cerr(C, e->pos, "unknown name '%s'", e->u.name.id);
            return IR_INT;
        }
        if (s->nk == IR_N_ARRAY) {
            ir_decl *ad = array_decl(C, s);
            if (ad->u.array.ndims != 0) {
                cerr(C, e->pos, "array '%s' has %d dimension%s: expected %d subscript%s",
                     e->u.name.id, ad->u.array.ndims, ad->u.array.ndims == 1 ? "" : "s",
                     ad->u.array.ndims, ad->u.array.ndims == 1 ? "" : "s");
            } else if (mode != M_ANY) {
                snprintf(b, sizeof b, "array '%s'", e->u.name.id);
                const_violation(C, e, mode, mode_what(mode, what), b);
            }
        } else if (mode == M_CONST && s->nk != IR_N_PARAM) {
            snprintf(b, sizeof b, "%s '%s'", nk_names[s->nk], e->u.name.id);
            const_violation(C, e, mode, mode_what(mode, what), b);
        }
        e->u.name.nk = s->nk;
        e->u.name.index = s->index;
        return e->type = s->type;
    }
    case IR_E_ACCESS: {
        e->u.access.array_index = -1;
        if (mode == M_OP) {
            cerr(C, e->pos, "an operator clause may not read arrays (found '%s[..]')", e->u.access.array);
            return e->type = IR_INT;
        }
        sym *s = lookup(C, e->u.access.array);
        ir_type t = IR_DOUBLE;
        if (!s) {
            cerr(C, e->pos, "unknown array '%s'", e->u.access.array);
        } else if (s->nk != IR_N_ARRAY) {
            cerr(C, e->pos, "'%s' is a %s, not an array", e->u.access.array, nk_names[s->nk]);
        } else {
            ir_decl *ad = array_decl(C, s);
            t = ad->u.array.elem;
            if (ad->u.array.ndims != e->u.access.nidx)
                cerr(C, e->pos, "array '%s' has %d dimension%s, found %d subscript%s",
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
    case IR_E_UNARY: {
        ir_type t = resolve(C, e->u.op.a, mode, what);
        return e->type = e->u.op.op == IR_OP_NOT ? IR_INT : t;
    }
    case IR_E_BINARY: {
        ir_type a = resolve(C, e->u.op.a, mode, what);
        ir_type c = resolve(C, e->u.op.b, mode, what);
        switch (e->u.op.op) {
        case IR_OP_MOD:
            if (a != IR_INT || c != IR_INT) cerr(C, e->pos, "'%%' needs integer operands");
            return e->type = IR_INT;
        case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV:
            return e->type = (a == IR_INT && c == IR_INT) ? IR_INT : IR_DOUBLE;
        default:
            return e->type = IR_INT;
        }
    }
    case IR_E_CALL: {
        ir_type all = IR_INT;
        for (int i = 0; i < e->u.call.nargs; i++)
            if (resolve(C, e->u.call.args[i], mode, what) == IR_DOUBLE) all = IR_DOUBLE;
        int n = e->u.call.nargs;
        const char *fn = ir_func_name(e->u.call.f);
        switch (e->u.call.f) {
        case IR_F_MIN: case IR_F_MAX:
            if (n < 2) cerr(C, e->pos, "%s takes at least 2 arguments, found %d", fn, n);
            return e->type = all;
        case IR_F_SELECT:
            if (n != 3) {
                cerr(C, e->pos, "select takes 3 arguments, found %d", n);
                return e->type = all;
            }
            return e->type = (e->u.call.args[1]->type == IR_DOUBLE || e->u.call.args[2]->type == IR_DOUBLE)
                           ? IR_DOUBLE : IR_INT;
        case IR_F_BAND: case IR_F_BOR: case IR_F_BXOR:
            if (n != 2) cerr(C, e->pos, "%s takes 2 arguments, found %d", fn, n);
            else if (all != IR_INT) cerr(C, e->pos, "%s needs integer arguments", fn);
            return e->type = IR_INT;
        case IR_F_SQRT:
            if (n != 1) cerr(C, e->pos, "%s takes 1 argument, found %d", fn, n);
            return e->type = IR_DOUBLE;
        case IR_F_ISQRT:
            if (n != 1) cerr(C, e->pos, "%s takes 1 argument, found %d", fn, n);
            else if (all != IR_INT) cerr(C, e->pos, "isqrt needs an integer argument");
            return e->type = IR_INT;
        default:
            if (n != 1) cerr(C, e->pos, "%s takes 1 argument, found %d", fn, n);
            return e->type = all;
        }
    }
    case IR_E_REPEAT: return e->type = resolve_repeat(C, e, mode, what);
    case IR_E_REDUCE: {
        if (mode == M_OP) {
            cerr(C, e->pos, "an operator clause may not contain a reduction");
            return e->type = IR_INT;
        }
        if (mode == M_CONST) const_violation(C, e, mode, mode_what(mode, what), "a reduction");
        if (resolve(C, e->u.reduce.lo, mode, what) != IR_INT)
            cerr(C, e->u.reduce.lo->pos, "a reduction bound must be an integer expression");
        if (resolve(C, e->u.reduce.hi, mode, what) != IR_INT)
            cerr(C, e->u.reduce.hi->pos, "a reduction bound must be an integer expression");
        int mark = C->nsyms;
        e->u.reduce.slot = define(C, e->u.reduce.var, IR_N_REDVAR, 0, e->pos, IR_INT);
        ir_type t = resolve(C, e->u.reduce.body, mode, what);
        pop_to(C, mark);
        return e->type = t;
    }
    }
    return IR_INT;
}

/* A constant integer expression (cost, step, array bound, ...). */
static void check_const(checker *C, ir_expr *e, const char *what, int need_int)
{
    if (!e) return;
    ir_type t = resolve(C, e, M_CONST, what);
    if (need_int && t != IR_INT) cerr(C, e->pos, "%s must be an integer expression", what);
}

static void check_int(checker *C, ir_expr *e, const char *what)
{
    if (!e) return;
    if (resolve(C, e, M_ANY, what) != IR_INT) cerr(C, e->pos, "%s must be an integer expression", what);
}

/* ---- statements ----------------------------------------------------------------------------- */

static void check_block(checker *C, ir_block *b);

static void level_error(checker *C, ir_pos pos, const char *what, const char *needs)
{
    cerr(C, pos, "'%s' is not available at level %s (needs %s)", what, ir_level_name(C->p->level), needs);
}

static void check_lhs(checker *C, ir_expr *lhs, const char *verb)
{
    const char *name = lhs->kind == IR_E_ACCESS ? lhs->u.access.array
                     : lhs->kind == IR_E_NAME ? lhs->u.name.id : NULL;
    if (!name) {
        cerr(C, lhs->pos, "cannot %s this: it must be an array element", verb);
        return;
    }
    sym *s = lookup(C, name);
    if (!s) {
        cerr(C, lhs->pos, "unknown array '%s'", name);
        return;
    }
    if (s->nk != IR_N_ARRAY) {
        cerr(C, lhs->pos, "cannot %s %s '%s': it must be an array element", verb,
             nk_names[s->nk], name);
        return;
    }
    resolve(C, lhs, M_ANY, NULL);
}

static void define_label(checker *C, const char *l, ir_pos pos)
{
    if (!l) return;
    int h = ht_find(&C->labels, l, 1);
    hentry *le = &C->labels.e[h];
    if (le->top >= 0)
        cerr(C, pos, "label '%s' is already defined at %d:%d", l, le->pos.line, le->pos.col);
    else {
        le->top = 0;
        le->pos = pos;
    }
}

/* A collective's block: an array name with a prefix of its subscripts and an optional range on
 * the next dimension.  Returns the array's declaration, or NULL after an error. */
static const ir_decl *check_block_ref(checker *C, ir_expr *e, ir_expr *lo, ir_expr *hi)
{
    if (lo) check_int(C, lo, "a block's range bound");
    if (hi) check_int(C, hi, "a block's range bound");
    const char *name = e->kind == IR_E_ACCESS ? e->u.access.array : e->kind == IR_E_NAME ? e->u.name.id : NULL;
    sym *s = name ? lookup(C, name) : NULL;
    if (!name || !s || s->nk != IR_N_ARRAY) {
        if (!s) cerr(C, e->pos, "unknown array '%s'", name ? name : "?");
        else cerr(C, e->pos, "'%s' is a %s, not an array", name, nk_names[s->nk]);
        return NULL;
    }
    ir_decl *ad = array_decl(C, s);
    e->type = ad->u.array.elem;
    if (e->kind == IR_E_NAME) {
        e->u.name.nk = IR_N_ARRAY;
        e->u.name.index = s->index;
        if (lo && ad->u.array.ndims < 1) {
            cerr(C, e->pos, "'%s' has no dimension for a range", name);
            return NULL;
        }
        return ad;
    }
    for (int i = 0; i < e->u.access.nidx; i++) check_subscript(C, e->u.access.idx[i], M_ANY, NULL);
    if (e->u.access.nidx + (lo ? 1 : 0) > ad->u.array.ndims) {
        cerr(C, e->pos, "block of '%s' gives %d subscripts%s, the array has %d dimensions", name,
             e->u.access.nidx, lo ? " and a range" : "", ad->u.array.ndims);
        return NULL;
    }
    e->u.access.array_index = s->index;
    return ad;
}

static const char *type_name(ir_type t) { return t == IR_DOUBLE ? "double" : "int"; }

static void check_coll(checker *C, ir_stmt *s)
{
    const char *cn = ir_coll_name(s->u.coll.ck);
    ir_coll_kind ck = s->u.coll.ck;
    define_label(C, s->u.coll.label, s->pos);
    if (C->p->level == IR_SOURCE || C->p->level == IR_SYN)
        level_error(C, s->pos, cn, "syncomm or syndm");
    else if (!C->proc_body || C->cur_block != C->proc_body)
        cerr(C, s->pos, "a collective must be a statement of the processor loop's body (not inside "
             "an inner loop or an if)");
    int ns = s->u.coll.nsrc, nd = s->u.coll.ndst, bad = 0;
    const ir_decl *sa[OP_MAX_FIELDS], *da[OP_MAX_FIELDS];
    if (ns > OP_MAX_FIELDS || nd > OP_MAX_FIELDS) {
        cerr(C, s->pos, "too many blocks (at most %d)", OP_MAX_FIELDS);
        return;
    }
    for (int i = 0; i < ns; i++)
        if (!(sa[i] = check_block_ref(C, s->u.coll.src[i], s->u.coll.src_lo ? s->u.coll.src_lo[i] : NULL,
                                      s->u.coll.src_hi ? s->u.coll.src_hi[i] : NULL)))
            bad = 1;
    for (int i = 0; i < nd; i++) {
        da[i] = NULL;
        if (s->u.coll.dst[i] &&
            !(da[i] = check_block_ref(C, s->u.coll.dst[i], s->u.coll.dst_lo ? s->u.coll.dst_lo[i] : NULL,
                                      s->u.coll.dst_hi ? s->u.coll.dst_hi[i] : NULL)))
            bad = 1;
    }
    if (s->u.coll.root) check_int(C, s->u.coll.root, "a root processor");
    if (s->u.coll.by) check_int(C, s->u.coll.by, "a group ('by')");
    if (!ir_coll_has_op(ck)) {
        if (ns != 1 || nd != 1 || !s->u.coll.dst[0])
            cerr(C, s->pos, "'%s' reads one block and writes one block", cn);
        else if (!bad && sa[0]->u.array.elem != da[0]->u.array.elem)
            cerr(C, s->pos, "type mismatch: '%s' of %s array '%s' into %s array '%s'", cn,
                 type_name(sa[0]->u.array.elem), sa[0]->u.array.name, type_name(da[0]->u.array.elem),
                 da[0]->u.array.name);
        return;
    }
    ir_opref *op = &s->u.coll.op;
    if (resolve_opref(C, op) != 0) return;
    if (op->builtin >= 0) {
        int bal = ck == IR_C_REDUCE_BAL || ck == IR_C_ALLREDUCE_BAL || ck == IR_C_SCAN_BAL;
        if (bal) {
            cerr(C, op->pos, "'%s' needs an operator with %s clauses; '%s' is built in", cn,
                 ck == IR_C_SCAN_BAL ? "'lower' and 'upper'" : "'combine' and 'one'", op->name);
            return;
        }
        if (ns != 1 || nd != 1 || !s->u.coll.dst[0]) {
            cerr(C, s->pos, "'%s(%s)' reads one block and writes one block", cn, op->name);
            return;
        }
        if (bad) return;
        if (op_builtin_int_only((ir_bop)op->builtin) && sa[0]->u.array.elem == IR_DOUBLE)
            cerr(C, op->pos, "operator type mismatch: '%s' takes integers, but '%s' is a double array",
                 op->name, sa[0]->u.array.name);
        else if (sa[0]->u.array.elem != da[0]->u.array.elem)
            cerr(C, op->pos, "operator type mismatch: '%s(%s)' of %s array '%s' into %s array '%s'", cn,
                 op->name, type_name(sa[0]->u.array.elem), sa[0]->u.array.name,
                 type_name(da[0]->u.array.elem), da[0]->u.array.name);
        return;
    }
    const ir_decl *od = C->p->ops[op->user];
    const char *on = od->u.op.name;
    const ir_opitem *const *cl = od->u.op.clause;
    static const struct { ir_coll_kind ck; ir_clause_kind need[2]; } needs[] = {
        { IR_C_REDUCE, { IR_K_COMBINE, IR_K_COMBINE } }, { IR_C_ALLREDUCE, { IR_K_COMBINE, IR_K_COMBINE } },
        { IR_C_SCAN, { IR_K_COMBINE, IR_K_COMBINE } }, { IR_C_EXSCAN, { IR_K_COMBINE, IR_K_IDENT } },
        { IR_C_REDUCE_BAL, { IR_K_COMBINE, IR_K_ONE } }, { IR_C_ALLREDUCE_BAL, { IR_K_COMBINE, IR_K_ONE } },
        { IR_C_SCAN_BAL, { IR_K_LOWER, IR_K_UPPER } },
    };
    for (unsigned i = 0; i < sizeof needs / sizeof needs[0]; i++)
        for (int k = 0; k < 2; k++)
            if (needs[i].ck == ck && !cl[needs[i].need[k]]) {
                cerr(C, op->pos, "'%s' needs a '%s' clause, operator '%s' has none", cn,
                     ir_clause_name(needs[i].need[k]), on);
                return;
            }
    int balanced = ck == IR_C_REDUCE_BAL || ck == IR_C_ALLREDUCE_BAL || ck == IR_C_SCAN_BAL;
    if (!od->u.op.associative && !balanced) {
        cerr(C, op->pos, "operator '%s' is declared nonassociative: only reduce_bal, allreduce_bal and "
             "scan_bal may use it", on);
        return;
    }
    int nst = op_state_arity(C->p, op->user), nin = op_in_arity(C->p, op->user);
    if (nin > 0) {   /* global view: accumulate each processor's block */
        int scan = ck == IR_C_SCAN || ck == IR_C_EXSCAN;
        if (balanced) {
            cerr(C, op->pos, "'%s' takes an elementwise operator; '%s' has an 'in' tuple", cn, on);
            return;
        }
        if (!cl[scan ? IR_K_SCANGEN : IR_K_GEN]) {
            cerr(C, op->pos, "'%s' with operator '%s' needs a '%s' clause", cn, on, scan ? "scangen" : "gen");
            return;
        }
        if (ns != nin || nd != 1 || !s->u.coll.dst[0]) {
            cerr(C, s->pos, "operator '%s' accumulates a tuple of %d input%s: expected %d source block%s "
                 "and one destination, found %d and %d", on, nin, nin == 1 ? "" : "s", nin,
                 nin == 1 ? "" : "s", ns, nd);
            return;
        }
        if (bad) return;
        for (int i = 0; i < ns; i++)
            if (sa[i]->u.array.elem != od->u.op.in->fields[i].type)
                cerr(C, s->u.coll.src[i]->pos, "operator type mismatch: input field '%s' of '%s' is %s, "
                     "array '%s' is %s", od->u.op.in->fields[i].name, on,
                     type_name(od->u.op.in->fields[i].type), sa[i]->u.array.name,
                     type_name(sa[i]->u.array.elem));
        const ir_opitem *g = cl[scan ? IR_K_SCANGEN : IR_K_GEN];
        for (int i = 0; i < g->nval; i++)
            if (g->val[i]->type == IR_DOUBLE && da[0]->u.array.elem == IR_INT) {
                cerr(C, s->u.coll.dst[0]->pos, "operator type mismatch: '%s' of '%s' gives a double, "
                     "array '%s' is int", scan ? "scangen" : "gen", on, da[0]->u.array.name);
                break;
            }
        return;
    }
    if (ns != nst || nd != nst) {
        cerr(C, s->pos, "operator '%s' has a state of %d field%s: expected %d source and %d destination "
             "blocks, found %d and %d", on, nst, nst == 1 ? "" : "s", nst, nst, ns, nd);
        return;
    }
    if (bad) return;
    for (int i = 0; i < nst; i++) {
        ir_type ft = od->u.op.state->fields[i].type;
        if (sa[i]->u.array.elem != ft)
            cerr(C, s->u.coll.src[i]->pos, "operator type mismatch: field '%s' of '%s' is %s, array '%s' is %s",
                 od->u.op.state->fields[i].name, on, type_name(ft), sa[i]->u.array.name,
                 type_name(sa[i]->u.array.elem));
        if (da[i] && da[i]->u.array.elem != ft)
            cerr(C, s->u.coll.dst[i]->pos, "operator type mismatch: field '%s' of '%s' is %s, array '%s' is %s",
                 od->u.op.state->fields[i].name, on, type_name(ft), da[i]->u.array.name,
                 type_name(da[i]->u.array.elem));
    }
}

static void check_stmt(checker *C, ir_stmt *s)
{
    if (!s) return;
    switch (s->kind) {
    case IR_S_COLL:
        check_coll(C, s);
        break;
    case IR_S_RECV:
        if (C->p->level != IR_SYNDM)
            level_error(C, s->pos, "recv", "syndm");
        else if (!C->proc_body || C->cur_block != C->proc_body ||
                 C->proc_body->stmts[C->proc_body->n - 1] != s)
            cerr(C, s->pos, "'recv' must be the last statement of the processor loop's body");
        break;
    case IR_S_ASSIGN: {
        define_label(C, s->u.assign.label, s->pos);
        ir_type rt = resolve(C, s->u.assign.rhs, M_ANY, NULL);
        check_lhs(C, s->u.assign.lhs, "assign to");
        const ir_expr *lhs = s->u.assign.lhs;
        int ai = lhs->kind == IR_E_ACCESS ? lhs->u.access.array_index
               : lhs->u.name.nk == IR_N_ARRAY ? lhs->u.name.index : -1;
        if (ai >= 0 && C->p->arrays[ai]->u.array.elem == IR_INT && rt == IR_DOUBLE)
            cerr(C, s->u.assign.rhs->pos, "cannot assign a double value to int array '%s'",
                 C->p->arrays[ai]->u.array.name);
        check_const(C, s->cost, "a cost", 0);
        break;
    }
    case IR_S_LET: {
        ir_type t = resolve(C, s->u.let.value, M_ANY, NULL);
        int slot = define(C, s->u.let.var, IR_N_LET, 0, s->pos, t);
        s->u.let.slot = slot;
        for (int m = 0; m < 2; m++) {
            const ir_expr *bad = NULL;
            C->cls[m][slot] = (signed char)aff(C, s->u.let.value, m, &bad);
        }
        break;
    }
    case IR_S_IF:
        resolve(C, s->u.if_.cond, M_ANY, NULL);
        check_block(C, s->u.if_.then_blk);
        if (s->u.if_.else_blk) check_block(C, s->u.if_.else_blk);
        break;
    case IR_S_FOR: {
        int mark = C->nsyms;
        for (int i = 0; i < s->u.for_.nvars; i++) {
            ir_loopvar *v = &s->u.for_.vars[i];
            ir_expr *bounds[2] = { v->lo, v->hi };
            for (int k = 0; k < 2; k++) {
                if (!bounds[k]) continue;
                check_int(C, bounds[k], "a loop bound");
                const ir_expr *bad = NULL;
                if (aff(C, bounds[k], 1, &bad) == AFF_NON)
                    cerr(C, bad ? bad->pos : bounds[k]->pos, "non-affine loop bound");
            }
            check_const(C, v->step, "a loop step", 1);
            if (v->kind == IR_LOOP_PAR || v->kind == IR_LOOP_PROC) {
                const char *kw = v->kind == IR_LOOP_PAR ? "par" : "proc";
                if (C->p->level == IR_SOURCE)
                    level_error(C, v->pos, kw, "syn, syncomm or syndm");
                else if (v != C->procvar)
                    cerr(C, v->pos, "a '%s' loop is only allowed as the processor loop directly "
                         "inside the time loop at level %s", kw, ir_level_name(C->p->level));
            }
            v->slot = define(C, v->var, IR_N_LOOPVAR, 0, v->pos, IR_INT);
        }
        if (C->procvar && &s->u.for_.vars[s->u.for_.nvars - 1] == C->procvar)
            C->proc_body = s->u.for_.body;
        check_block(C, s->u.for_.body);
        pop_to(C, mark);
        break;
    }
    case IR_S_SEND: {
        if (C->p->level == IR_SOURCE || C->p->level == IR_SYN)
            level_error(C, s->pos, "send", "syncomm or syndm");
        ir_expr *w = s->u.send.what;
        int ndims = -1;
        if (w->kind == IR_E_ACCESS || w->kind == IR_E_NAME) {
            check_lhs(C, w, "send");
            int ai = w->kind == IR_E_ACCESS ? w->u.access.array_index
                   : w->u.name.nk == IR_N_ARRAY ? w->u.name.index : -1;
            if (ai >= 0) ndims = C->p->arrays[ai]->u.array.ndims;
        } else {
            cerr(C, w->pos, "'send' needs an array element");
        }
        check_int(C, s->u.send.to_lo, "a destination processor");
        check_int(C, s->u.send.to_hi, "a destination processor");
        check_int(C, s->u.send.at, "a destination time");
        if (s->u.send.when) resolve(C, s->u.send.when, M_ANY, NULL);
        if (s->u.send.nas > 0 && ndims >= 0 && s->u.send.nas != ndims)
            cerr(C, s->u.send.as_idx[0]->pos, "'as' gives %d indices, the array has %d dimensions",
                 s->u.send.nas, ndims);
        for (int i = 0; i < s->u.send.nas; i++) check_int(C, s->u.send.as_idx[i], "an 'as' index");
        check_const(C, s->cost, "a cost", 0);
        break;
    }
    }
}

static void check_block(checker *C, ir_block *b)
{
    if (!b) return;
    int mark = C->nsyms;
    const ir_block *outer = C->cur_block;
    check_const(C, b->cost, "a cost", 0);
    for (int i = 0; i < b->n; i++) {
        C->cur_block = b;
        check_stmt(C, b->stmts[i]);
    }
    C->cur_block = outer;
    pop_to(C, mark);
}

/* syn and above: optional lets, then one step nest `for t .. seq { for p .. par|proc {..} }`. */
static void check_structure(checker *C)
{
    const char *lv = ir_level_name(C->p->level);
    ir_block *b = C->p->body;
    ir_step_nest n;
    ir_nest_status st = ir_step_nest_find(b, &n);
    ir_stmt *s = n.tfor;
    switch (st) {
    case IR_NEST_MISSING: {
        int i = n.nlets;
        ir_pos pos = i > 0 ? b->stmts[i - 1]->pos
                   : C->p->ndecls > 0 ? C->p->decls[C->p->ndecls - 1]->pos : (ir_pos){ 1, 1 };
        cerr(C, pos, "level %s needs a step nest: for t = ... seq { for p = ... par|proc { ... } }", lv);
        return;
    }
    case IR_NEST_NOT_FOR:
        cerr(C, b->stmts[n.nlets]->pos, "expected the step nest (for t = ... seq { for p = ... par|proc { ... } }) "
             "at level %s: only lets may come before it", lv);
        return;
    case IR_NEST_NO_VARS:
        cerr(C, s->pos, "a for statement needs at least one loop variable");
        return;
    default:
        break;
    }
    if (n.trailing > 0) {
        ir_stmt *next = b->stmts[n.nlets + 1];
        cerr(C, next ? next->pos : s->pos, "nothing may follow the step nest at level %s", lv);
    }
    ir_loopvar *t = &s->u.for_.vars[0];
    if (t->kind == IR_LOOP_PAR || t->kind == IR_LOOP_PROC)
        cerr(C, t->pos, "the time loop '%s' of the step nest must be seq at level %s", t->var, lv);
    if (!n.pfor) {
        cerr(C, s->pos, "the step nest needs a par or proc loop directly inside the time loop "
             "'%s' at level %s", t->var, lv);
        return;
    }
    C->procvar = &n.pfor->u.for_.vars[n.pidx];
    if (st == IR_NEST_OK && n.trailing == 0) C->p->nest = n;
}

/* ---- declarations --------------------------------------------------------------------------- */

static sym *lookup_array(checker *C, const char *name, ir_pos pos)
{
    sym *s = lookup(C, name);
    if (!s) cerr(C, pos, "unknown array '%s'", name);
    else if (s->nk != IR_N_ARRAY) cerr(C, pos, "'%s' is a %s, not an array", name, nk_names[s->nk]);
    else return s;
    return NULL;
}

/* ---- operators ------------------------------------------------------------------------------ */

enum { T_NONE, T_STATE, T_IN };
enum { R_STATE, R_ANY, R_ONE };
/* Patterns and result of each clause kind (see ir_clause_kind). */
static const struct { int npats, pat[2], result; } clause_shape[IR_K_COUNT] = {
    [IR_K_IDENT] = { 0, { T_NONE, T_NONE }, R_STATE },
    [IR_K_PREACCUM] = { 2, { T_STATE, T_IN }, R_STATE },
    [IR_K_ACCUM] = { 2, { T_STATE, T_IN }, R_STATE },
    [IR_K_POSTACCUM] = { 2, { T_STATE, T_IN }, R_STATE },
    [IR_K_COMBINE] = { 2, { T_STATE, T_STATE }, R_STATE },
    [IR_K_GEN] = { 1, { T_STATE, T_NONE }, R_ANY },
    [IR_K_SCANGEN] = { 2, { T_STATE, T_IN }, R_ONE },
    [IR_K_ONE] = { 1, { T_STATE, T_NONE }, R_STATE },
    [IR_K_LOWER] = { 2, { T_STATE, T_STATE }, R_STATE },
    [IR_K_UPPER] = { 2, { T_STATE, T_STATE }, R_STATE },
    [IR_K_EVEN] = { 1, { T_STATE, T_NONE }, R_STATE },
    [IR_K_ODD] = { 1, { T_STATE, T_NONE }, R_STATE },
};

static void check_clause(checker *C, ir_decl *d, ir_opitem *it)
{
    const char *on = d->u.op.name, *kn = ir_clause_name(it->clause);
    const ir_opitem *st = d->u.op.state, *in = d->u.op.in;
    int want = clause_shape[it->clause].npats;
    if (it->npats != want) {
        cerr(C, it->pos, "'%s' takes %d pattern%s (%s), found %d", kn, want, want == 1 ? "" : "s",
             want == 0 ? "write: ident = (..)" : want == 1 ? "the state" :
             clause_shape[it->clause].pat[1] == T_IN ? "the state and the input" : "two states",
             it->npats);
        return;
    }
    int mark = C->nsyms;
    for (int k = 0; k < it->npats; k++) {
        const ir_opitem *tuple = clause_shape[it->clause].pat[k] == T_IN ? in : st;
        ir_pattern *pt = &it->pats[k];
        if (!tuple) {
            cerr(C, pt->pos, "'%s' of operator '%s' needs an 'in' declaration (the input tuple)", kn, on);
            pop_to(C, mark);
            return;
        }
        if (pt->n != tuple->nfields) {
            cerr(C, pt->pos, "this pattern of '%s' has %d name%s, the %s of '%s' has %d field%s", kn, pt->n,
                 pt->n == 1 ? "" : "s", tuple == in ? "input" : "state", on, tuple->nfields,
                 tuple->nfields == 1 ? "" : "s");
            pop_to(C, mark);
            return;
        }
        pt->slots = ir_alloc(C->p, (size_t)pt->n * sizeof *pt->slots);
        for (int i = 0; i < pt->n; i++)
            pt->slots[i] = define(C, pt->names[i], IR_N_OPVAR, 0, pt->pos, tuple->fields[i].type);
    }
    if (it->nlets > 0) it->letslots = ir_alloc(C->p, (size_t)it->nlets * sizeof *it->letslots);
    for (int i = 0; i < it->nlets; i++) {
        ir_type t = resolve(C, it->letv[i], M_OP, NULL);
        it->letslots[i] = define(C, it->lets[i], IR_N_OPVAR, 0, it->letv[i]->pos, t);
    }
    for (int i = 0; i < it->nval; i++) resolve(C, it->val[i], M_OP, NULL);
    int res = clause_shape[it->clause].result;
    if (res == R_STATE && it->nval != st->nfields)
        cerr(C, it->pos, "'%s' of '%s' gives %d value%s, the state has %d field%s", kn, on, it->nval,
             it->nval == 1 ? "" : "s", st->nfields, st->nfields == 1 ? "" : "s");
    else if (res == R_ONE && it->nval != 1)
        cerr(C, it->pos, "'%s' of '%s' gives one value, found %d", kn, on, it->nval);
    else if (res == R_STATE)
        for (int i = 0; i < it->nval; i++)
            if (it->val[i]->type == IR_DOUBLE && st->fields[i].type == IR_INT)
                cerr(C, it->val[i]->pos, "operator type mismatch: field '%s' of '%s' is int, '%s' gives a "
                     "double", st->fields[i].name, on, kn);
    pop_to(C, mark);
}

static void check_op(checker *C, ir_decl *d)
{
    const char *on = d->u.op.name;
    if (op_builtin_find(on) >= 0) cerr(C, d->pos, "operator '%s' is built in; choose another name", on);
    for (int i = 0; i < d->u.op.index; i++)
        if (strcmp(C->p->ops[i]->u.op.name, on) == 0)
            cerr(C, d->pos, "operator '%s' is already declared at %d:%d", on, C->p->ops[i]->pos.line,
                 C->p->ops[i]->pos.col);
    d->u.op.state = d->u.op.in = NULL;
    memset(d->u.op.clause, 0, sizeof d->u.op.clause);
    d->u.op.commutative = -1;
    d->u.op.associative = 1;
    for (int i = 0; i < d->u.op.nitems; i++) {
        ir_opitem *it = &d->u.op.items[i];
        const ir_opitem **slot = it->kind == IR_OI_STATE ? &d->u.op.state : it->kind == IR_OI_IN
                               ? &d->u.op.in : it->kind == IR_OI_CLAUSE ? &d->u.op.clause[it->clause] : NULL;
        if (slot && *slot) {
            cerr(C, it->pos, "operator '%s' already has %s at %d:%d", on,
                 it->kind == IR_OI_STATE ? "a state" : it->kind == IR_OI_IN ? "an 'in'" : ir_clause_name(it->clause),
                 (*slot)->pos.line, (*slot)->pos.col);
            continue;
        }
        if (slot) *slot = it;
        if (it->kind == IR_OI_COMMUTATIVE || it->kind == IR_OI_NONCOMMUTATIVE) {
            if (d->u.op.commutative >= 0)
                cerr(C, it->pos, "operator '%s' already says whether it is commutative", on);
            d->u.op.commutative = it->kind == IR_OI_COMMUTATIVE;
        }
        if (it->kind == IR_OI_NONASSOCIATIVE) d->u.op.associative = 0;
        if (it->kind == IR_OI_DISTRIBUTES) resolve_opref(C, &it->over);
        if ((it->kind == IR_OI_STATE || it->kind == IR_OI_IN) && it->nfields > OP_MAX_FIELDS)
            cerr(C, it->pos, "at most %d fields", OP_MAX_FIELDS);
    }
    if (!d->u.op.state) {
        cerr(C, d->pos, "operator '%s' needs a state: state (name type, ..)", on);
        return;
    }
    if (d->u.op.clause[IR_K_COMBINE] && d->u.op.commutative < 0)
        cerr(C, d->u.op.clause[IR_K_COMBINE]->pos, "operator '%s' must say 'commutative' or "
             "'noncommutative'", on);
    if (d->u.op.in && (!d->u.op.clause[IR_K_ACCUM] || !d->u.op.clause[IR_K_IDENT]))
        cerr(C, d->u.op.in->pos, "operator '%s' has an 'in' tuple: it needs 'ident' and 'accum'", on);
    if (d->u.op.commutative < 0) d->u.op.commutative = 0;
    for (int i = 0; i < d->u.op.nitems; i++)
        if (d->u.op.items[i].kind == IR_OI_CLAUSE) check_clause(C, d, &d->u.op.items[i]);
}

/* Operators first: their clauses see only their own names. */
static void check_op_decls(checker *C)
{
    ir_program *p = C->p;
    int no = 0;
    for (int i = 0; i < p->ndecls; i++) if (p->decls[i]->kind == IR_D_OP) no++;
    p->ops = no ? ir_alloc(p, (size_t)no * sizeof *p->ops) : NULL;
    p->nops = 0;
    for (int i = 0; i < p->ndecls; i++)
        if (p->decls[i]->kind == IR_D_OP) {
            p->decls[i]->u.op.index = p->nops;
            p->ops[p->nops++] = p->decls[i];
        }
    for (int i = 0; i < p->nops; i++) check_op(C, p->ops[i]);
}

/* Parameters in order (each sees the earlier ones), then the arrays. */
static void check_param_array_decls(checker *C)
{
    ir_program *p = C->p;
    int np = 0, na = 0;
    for (int i = 0; i < p->ndecls; i++) {
        if (p->decls[i]->kind == IR_D_PARAM) np++;
        if (p->decls[i]->kind == IR_D_ARRAY) na++;
    }
    p->params = np ? ir_alloc(p, (size_t)np * sizeof *p->params) : NULL;
    p->arrays = na ? ir_alloc(p, (size_t)na * sizeof *p->arrays) : NULL;
    p->nparams = p->narrays = 0;
    for (int i = 0; i < p->ndecls; i++) {
        ir_decl *d = p->decls[i];
        if (d->kind != IR_D_PARAM) continue;
        C->cur_param = i;
        check_const(C, d->u.param.value, "a parameter", 0);
        if (d->u.param.value && d->u.param.value->type != IR_INT)
            cerr(C, d->u.param.value->pos, "parameter '%s' must be an integer expression",
                 d->u.param.name);
        C->cur_param = -1;
        d->u.param.index = p->nparams;
        p->params[p->nparams++] = d;
        define(C, d->u.param.name, IR_N_PARAM, d->u.param.index, d->pos, IR_INT);
    }
    for (int i = 0; i < p->ndecls; i++) {
        ir_decl *d = p->decls[i];
        if (d->kind != IR_D_ARRAY) continue;
        for (int k = 0; k < d->u.array.ndims; k++) {
            check_const(C, d->u.array.lo[k], "an array bound", 1);
            check_const(C, d->u.array.hi[k], "an array bound", 1);
        }
        d->u.array.index = p->narrays;
        p->arrays[p->narrays++] = d;
        define(C, d->u.array.name, IR_N_ARRAY, d->u.array.index, d->pos, d->u.array.elem);
    }
}

static void check_init_decl(checker *C, ir_decl *d)
{
    d->u.init.array_index = -1;
    sym *s = lookup_array(C, d->u.init.array, d->pos);
    int mark = C->nsyms;
    ir_type elem = s ? array_decl(C, s)->u.array.elem : IR_DOUBLE;
    if (s) {
        ir_decl *ad = array_decl(C, s);
        if (ad->u.array.ndims != d->u.init.nidx)
            cerr(C, d->pos, "init of '%s' gives %d indices, the array has %d dimensions",
                 d->u.init.array, d->u.init.nidx, ad->u.array.ndims);
        else
            d->u.init.array_index = s->index;
    }
    for (int k = 0; k < d->u.init.nidx; k++) {
        ir_expr *ix = d->u.init.idx[k];
        if (ix->kind == IR_E_NAME && !lookup(C, ix->u.name.id)) {
            int slot = define(C, ix->u.name.id, IR_N_INITVAR, 0, ix->pos, IR_INT);
            ix->u.name.nk = IR_N_INITVAR;
            ix->u.name.index = slot;
            ix->type = IR_INT;
        } else {
            check_const(C, ix, "an init index (a fresh name or a constant)", 1);
        }
    }
    ir_type t = resolve(C, d->u.init.value, M_NOARRAY, "an init value");
    if (elem == IR_INT && t == IR_DOUBLE)
        cerr(C, d->u.init.value->pos, "cannot initialise int array '%s' with a double value",
             d->u.init.array);
    pop_to(C, mark);
}

static void check_output_decl(checker *C, ir_decl *d)
{
    d->u.output.array_index = -1;
    sym *s = lookup_array(C, d->u.output.array, d->pos);
    if (s) {
        ir_decl *ad = array_decl(C, s);
        if (d->u.output.nidx > ad->u.array.ndims)
            cerr(C, d->pos, "output of '%s' gives %d indices, the array has %d dimensions",
                 d->u.output.array, d->u.output.nidx, ad->u.array.ndims);
        else
            d->u.output.array_index = s->index;
    }
    for (int k = 0; k < d->u.output.nidx; k++)
        check_const(C, d->u.output.idx[k], "an output index", 1);
}

/* Piece pi of a LOCAL dist with nd dimensions: its bounds are integer expressions of the
 * processor variable, and only its last range may use its named indices. */
static void check_dist_piece(checker *C, ir_decl *d, int pi, int nd)
{
    ir_dist_piece pc = ir_dist_get_piece(d, pi);
    int pmark = C->nsyms;
    if (pc.ivar) {
        int *slots = ir_alloc(C->p, (size_t)nd * sizeof *slots);
        for (int k = 0; k < nd; k++) slots[k] = -1;
        if (pi == 0) d->u.dist.islot = slots;
        else d->u.dist.more[pi - 1].islot = slots;
        pc.islot = slots;
    }
    /* the last dimension's bounds may use the other dimensions' named indices */
    for (int k = 0; k < nd - 1 && pc.ivar; k++)
        for (int j = 0; j < nd; j++) {
            const ir_expr *bd[2] = { pc.lo ? pc.lo[k] : NULL, pc.hi ? pc.hi[k] : NULL };
            for (int h = 0; h < 2; h++)
                if (pc.ivar[j] && bd[h] && expr_uses_name(bd[h], pc.ivar[j]))
                    cerr(C, bd[h]->pos, "'%s' names an index of this piece: only its last "
                         "range may use it", pc.ivar[j]);
        }
    for (int k = 0; k < nd; k++) {
        if (k == nd - 1 && pc.ivar) {
            for (int j = 0; j < nd - 1; j++)
                if (pc.ivar[j]) pc.islot[j] = define(C, pc.ivar[j], IR_N_DISTVAR, 0, d->pos, IR_INT);
            if (pc.step && pc.step[k])
                cerr(C, pc.step[k]->pos, "a dist piece whose last range may depend on the other "
                     "indices cannot stride it");
        }
        ir_expr *ex[5] = { pc.lo ? pc.lo[k] : NULL,
                           pc.hi ? pc.hi[k] : NULL,
                           pi == 0 && d->u.dist.offset ? d->u.dist.offset[k] : NULL,
                           pc.step ? pc.step[k] : NULL,
                           pc.block ? pc.block[k] : NULL };
        for (int j = 0; j < 5; j++)
            if (ex[j] && resolve(C, ex[j], M_NOARRAY, "a dist bound") != IR_INT)
                cerr(C, ex[j]->pos, "a dist bound, step, block or offset must be an integer expression");
    }
    pop_to(C, pmark);
}

/* A dist: one per array (dist_of[array] records it), syndm only. */
static void check_dist_decl(checker *C, ir_decl *d, const ir_decl **dist_of)
{
    d->u.dist.array_index = -1;
    d->u.dist.slot = -1;
    if (C->p->level != IR_SYNDM) level_error(C, d->pos, "dist", "syndm");
    sym *s = lookup_array(C, d->u.dist.array, d->pos);
    if (s) {
        ir_decl *ad = array_decl(C, s);
        if (dist_of[s->index])
            cerr(C, d->pos, "array '%s' already has a dist at %d:%d", d->u.dist.array,
                 dist_of[s->index]->pos.line, dist_of[s->index]->pos.col);
        else
            dist_of[s->index] = d;
        if (d->u.dist.dk == IR_DIST_LOCAL && d->u.dist.ndims != ad->u.array.ndims)
            cerr(C, d->pos, "dist of '%s' gives %d bounds, the array has %d dimensions",
                 d->u.dist.array, d->u.dist.ndims, ad->u.array.ndims);
        else
            d->u.dist.array_index = s->index;
    }
    if (d->u.dist.dk != IR_DIST_LOCAL) return;
    int mark = C->nsyms;
    d->u.dist.slot = define(C, d->u.dist.procvar ? d->u.dist.procvar : "?", IR_N_DISTVAR, 0, d->pos, IR_INT);
    if (d->u.dist.offset && ir_dist_is_pieced(d))
        cerr(C, d->pos, "dist of '%s': an offset (relative coordinates) needs one plain box, "
             "not pieces or named indices", d->u.dist.array);
    for (int pi = 0; pi <= d->u.dist.nmore; pi++) check_dist_piece(C, d, pi, d->u.dist.ndims);
    pop_to(C, mark);
}

static void check_decls(checker *C)
{
    ir_program *p = C->p;
    check_op_decls(C);
    check_param_array_decls(C);
    int na = p->narrays;
    const ir_decl **dist_of = na ? calloc((size_t)na, sizeof *dist_of) : NULL;
    const ir_decl *reference = NULL;
    for (int i = 0; i < p->ndecls; i++) {
        ir_decl *d = p->decls[i];
        switch (d->kind) {
        case IR_D_PARAM: case IR_D_ARRAY: case IR_D_OP: break;
        case IR_D_REFERENCE:
            if (reference)
                cerr(C, d->pos, "'reference' is already given at %d:%d", reference->pos.line,
                     reference->pos.col);
            reference = d;
            break;
        case IR_D_INIT: check_init_decl(C, d); break;
        case IR_D_OUTPUT: check_output_decl(C, d); break;
        case IR_D_DIST: check_dist_decl(C, d, dist_of); break;
        }
    }
    if (p->level == IR_SYNDM)
        for (int a = 0; a < na; a++)
            if (!dist_of[a])
                cerr(C, p->arrays[a]->pos, "array '%s' has no dist declaration (level syndm needs "
                     "one per array)", p->arrays[a]->u.array.name);
    free(dist_of);
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
    if (p->aggregate && p->level != IR_SYNDM) level_error(&C, p->aggregate_pos, "messages aggregate", "syndm");
    memset(&p->nest, 0, sizeof p->nest);
    if (p->level != IR_SOURCE) check_structure(&C);
    check_block(&C, p->body);
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

/* ---- constant evaluation -------------------------------------------------------------------- */

typedef struct cval {
    int real;
    int64_t i;
    double r;
} cval;

typedef struct evaluator {
    const ir_program *p;
    const int64_t *params;
    int nparams;          /* params[0..nparams) are valid */
    diag_list *d;
    const char *ctx;      /* prefix for messages, e.g. "parameter 'n': " */
    int err;
} evaluator;

static void everr(evaluator *E, const ir_expr *e, const char *msg)
{
    if (E->err++) return;
    diag_add(E->d, E->p->file, e ? e->pos.line : 0, e ? e->pos.col : 0, "%s%s",
             E->ctx ? E->ctx : "", msg);
}

static double as_real(cval v) { return v.real ? v.r : (double)v.i; }

/* An integer result of intsem.h: the value, or 0 after reporting its error at e. */
static int64_t ichk(evaluator *E, const ir_expr *e, int status, const int64_t *v)
{
    if (status) { everr(E, e, intsem_message(status)); return 0; }
    return *v;
}

static cval ev(evaluator *E, const ir_expr *e);

/* A binary operation: reals or checked integers. */
static cval ev_binary(evaluator *E, const ir_expr *e)
{
    cval v = { 0, 0, 0 };
    ir_op op = e->u.op.op;
    cval a = ev(E, e->u.op.a);
    if (op == IR_OP_AND || op == IR_OP_OR) {
        int ta = a.real ? a.r != 0 : a.i != 0;
        if (op == IR_OP_AND && !ta) return v;
        if (op == IR_OP_OR && ta) { v.i = 1; return v; }
        cval b = ev(E, e->u.op.b);
        v.i = b.real ? b.r != 0 : b.i != 0;
        return v;
    }
    cval b = ev(E, e->u.op.b);
    if (E->err) return v;
    if (a.real || b.real) {
        double x = as_real(a), y = as_real(b);
        v.real = 1;
        switch (op) {
        case IR_OP_ADD: v.r = x + y; break;
        case IR_OP_SUB: v.r = x - y; break;
        case IR_OP_MUL: v.r = x * y; break;
        case IR_OP_DIV: v.r = x / y; break;
        case IR_OP_MOD: everr(E, e, "'%' needs integer operands"); break;
        default:
            v.real = 0;
            v.i = op == IR_OP_LT ? x < y : op == IR_OP_LE ? x <= y : op == IR_OP_GT ? x > y
                : op == IR_OP_GE ? x >= y : op == IR_OP_EQ ? x == y : x != y;
        }
        return v;
    }
    int64_t x = a.i, y = b.i;
    switch (op) {
    case IR_OP_ADD: v.i = ichk(E, e, intsem_add(x, y, &v.i), &v.i); break;
    case IR_OP_SUB: v.i = ichk(E, e, intsem_sub(x, y, &v.i), &v.i); break;
    case IR_OP_MUL: v.i = ichk(E, e, intsem_mul(x, y, &v.i), &v.i); break;
    case IR_OP_DIV: v.i = ichk(E, e, intsem_floordiv(x, y, &v.i), &v.i); break;
    case IR_OP_MOD: v.i = ichk(E, e, intsem_floormod(x, y, &v.i), &v.i); break;
    case IR_OP_LT: v.i = x < y; break;
    case IR_OP_LE: v.i = x <= y; break;
    case IR_OP_GT: v.i = x > y; break;
    case IR_OP_GE: v.i = x >= y; break;
    case IR_OP_EQ: v.i = x == y; break;
    case IR_OP_NE: v.i = x != y; break;
    default: break;
    }
    return v;
}

/* A call of a built-in function. */
static cval ev_call(evaluator *E, const ir_expr *e)
{
    cval v = { 0, 0, 0 };
    int n = e->u.call.nargs;
    if (n < 1) { everr(E, e, "a call without arguments"); return v; }
    const ir_expr *a0 = e->u.call.args[0];
    switch (e->u.call.f) {
    case IR_F_MIN: case IR_F_MAX: {
        v = ev(E, a0);
        for (int i = 1; i < n; i++) {
            cval w = ev(E, e->u.call.args[i]);
            int mx = e->u.call.f == IR_F_MAX;
            if (v.real || w.real) {
                double x = as_real(v), y = as_real(w);
                v.real = 1;
                v.r = mx ? (y > x ? y : x) : (y < x ? y : x);
            } else {
                v.i = mx ? intsem_max(v.i, w.i) : intsem_min(v.i, w.i);
            }
        }
        return v;
    }
    case IR_F_FLOOR: case IR_F_CEIL: {
        int fl = e->u.call.f == IR_F_FLOOR;
        if (a0->kind == IR_E_BINARY && a0->u.op.op == IR_OP_DIV) {
            cval x = ev(E, a0->u.op.a), y = ev(E, a0->u.op.b);
            if (!x.real && !y.real) {
                v.i = ichk(E, a0, fl ? intsem_floordiv(x.i, y.i, &v.i) : intsem_ceildiv(x.i, y.i, &v.i), &v.i);
                return v;
            }
        }
        v = ev(E, a0);
        if (v.real) v.r = fl ? floor(v.r) : ceil(v.r);
        return v;
    }
    case IR_F_ABS:
        v = ev(E, a0);
        if (v.real) v.r = fabs(v.r);
        else v.i = ichk(E, e, intsem_abs(v.i, &v.i), &v.i);
        return v;
    case IR_F_SQRT: {
        cval x = ev(E, a0);
        v.real = 1;
        v.r = sqrt(as_real(x));
        return v;
    }
    case IR_F_SELECT: {
        if (n != 3) { everr(E, e, "select takes 3 arguments"); return v; }
        cval c0 = ev(E, a0);
        int t = c0.real ? c0.r != 0 : c0.i != 0;
        v = ev(E, e->u.call.args[t ? 1 : 2]);
        if (e->type == IR_DOUBLE && !v.real) { v.real = 1; v.r = (double)v.i; }
        return v;
    }
    case IR_F_BAND: case IR_F_BOR: case IR_F_BXOR: {
        if (n != 2) { everr(E, e, "a bitwise function takes 2 arguments"); return v; }
        cval x = ev(E, a0), y = ev(E, e->u.call.args[1]);
        if (x.real || y.real) { everr(E, e, "a bitwise function needs integer arguments"); return v; }
        v.i = e->u.call.f == IR_F_BAND ? (x.i & y.i) : e->u.call.f == IR_F_BOR ? (x.i | y.i) : (x.i ^ y.i);
        return v;
    }
    case IR_F_ISQRT: {
        cval x = ev(E, a0);
        if (x.real) { everr(E, e, "isqrt needs an integer argument"); return v; }
        v.i = ichk(E, e, intsem_isqrt(x.i, &v.i), &v.i);
        return v;
    }
    }
    return v;
}

static cval ev(evaluator *E, const ir_expr *e)
{
    cval v = { 0, 0, 0 };
    if (!e || E->err) return v;
    switch (e->kind) {
    case IR_E_INT: v.i = e->u.ival; return v;
    case IR_E_REAL: v.real = 1; v.r = e->u.rval; return v;
    case IR_E_NAME: {
        int idx = e->u.name.nk == IR_N_PARAM ? e->u.name.index : -1;
        if (idx < 0 && e->u.name.nk == IR_N_UNRESOLVED)
            for (int i = 0; i < E->p->nparams; i++)
                if (strcmp(E->p->params[i]->u.param.name, e->u.name.id) == 0) idx = i;
        if (idx < 0 || idx >= E->nparams) {
            char b[160];
            snprintf(b, sizeof b, "'%s' is not a parameter with a known value", e->u.name.id);
            everr(E, e, b);
            return v;
        }
        v.i = E->params[idx];
        return v;
    }
    case IR_E_ACCESS: everr(E, e, "an array element is not a constant"); return v;
    case IR_E_REPEAT: everr(E, e, "repeat is not a constant"); return v;
    case IR_E_REDUCE: everr(E, e, "a reduction is not a constant"); return v;
    case IR_E_UNARY: {
        cval a = ev(E, e->u.op.a);
        if (e->u.op.op == IR_OP_NOT) {
            v.i = a.real ? a.r == 0 : a.i == 0;
            return v;
        }
        if (a.real) { v.real = 1; v.r = -a.r; return v; }
        v.i = ichk(E, e, intsem_neg(a.i, &v.i), &v.i);
        return v;
    }
    case IR_E_BINARY: return ev_binary(E, e);
    case IR_E_CALL: return ev_call(E, e);
    }
    return v;
}

int ir_const_eval(const ir_program *p, const ir_expr *e, const int64_t *params,
                  int64_t *ival, double *rval, int *is_real, diag_list *d)
{
    evaluator E = { p, params, p->nparams, d, NULL, 0 };
    cval v = ev(&E, e);
    if (E.err) return 1;
    if (is_real) *is_real = v.real;
    if (ival) *ival = v.real ? (int64_t)0 : v.i;
    if (rval) *rval = v.real ? v.r : (double)v.i;
    if (v.real && ival) {
        if (isfinite(v.r) && v.r > -9.2e18 && v.r < 9.2e18) *ival = (int64_t)v.r;
    }
    return 0;
}

int ir_parse_binding(char *arg, ir_binding *out)
{
    char *eq = strchr(arg, '=');
    if (!eq || eq == arg) return -1;
    for (char *c = arg; c < eq; c++)
        if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
              (c > arg && *c >= '0' && *c <= '9')))
            return -1;
    char *end;
    errno = 0;
    long long v = strtoll(eq + 1, &end, 10);
    if (end == eq + 1 || *end || errno) return -1;
    *eq = '\0';
    out->name = arg;
    out->value = v;
    return 0;
}

int ir_params_eval(const ir_program *p, const ir_binding *ov, int nov, int strict,
                   int64_t *values, diag_list *d)
{
    int errs = 0;
    for (int k = 0; k < nov; k++) {
        int found = 0;
        for (int i = 0; i < p->nparams; i++)
            if (ov[k].name && strcmp(ov[k].name, p->params[i]->u.param.name) == 0) found = 1;
        if (!found && strict) {
            diag_add(d, NULL, 0, 0, "unknown parameter '%s' in -D (the program has no such parameter)",
                     ov[k].name ? ov[k].name : "");
            errs++;
        }
    }
    for (int i = 0; i < p->nparams; i++) {
        const ir_decl *pd = p->params[i];
        int over = -1;
        for (int k = 0; k < nov; k++)
            if (ov[k].name && strcmp(ov[k].name, pd->u.param.name) == 0) over = k;
        if (over >= 0) {
            values[i] = ov[over].value;
            continue;
        }
        char ctx[160];
        snprintf(ctx, sizeof ctx, "parameter '%s': ", pd->u.param.name);
        evaluator E = { p, values, i, d, ctx, 0 };
        cval v = ev(&E, pd->u.param.value);
        if (!E.err && v.real) everr(&E, pd->u.param.value, "not an integer");
        values[i] = E.err ? 0 : v.i;
        errs += E.err ? 1 : 0;
    }
    return errs;
}

/* ---- loading -------------------------------------------------------------------------------- */

enum { IR_MAX_FILE = 16 * 1024 * 1024 };

ir_program *ir_load_text(const char *file, const char *text, size_t len, diag_list *d)
{
    ir_program *p = ir_parse(file, text, len, d);
    if (!p) return NULL;
    if (ir_check(p, d) > 0) {
        ir_program_free(p);
        return NULL;
    }
    return p;
}

ir_program *ir_load_file(const char *path, diag_list *d)
{
    size_t len;
    char *buf = textfile_read(path, "a program file", IR_MAX_FILE, &len, d);
    if (!buf) return NULL;
    const char *nul = memchr(buf, 0, len);
    if (nul) {
        int line = 1, col = 1;
        for (const char *c = buf; c < nul; c++) {
            if (*c == '\n') { line++; col = 1; }
            else col++;
        }
        free(buf);
        diag_add(d, path, line, col, "file contains a NUL byte: not a text file");
        return NULL;
    }
    ir_program *p = ir_load_text(path, buf, len, d);
    free(buf);
    return p;
}

int ir_const_int(const ir_program *p, const ir_expr *e, const int64_t *params, int64_t *v)
{
    diag_list d;
    diag_list_init(&d);
    double r;
    int real = 0;
    int rc = ir_const_eval(p, e, params, v, &r, &real, &d);
    diag_list_free(&d);
    return rc == 0 && !real;
}
