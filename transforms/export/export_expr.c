/*
 * export_expr.c — the exporter's expressions as C: names made safe (not a C keyword, libc or
 * runtime name), an access's offset in its array's storage (the index function, or a row hoisted
 * by export_rows.c plus the last subscript), literals, operators (integer / and % floor division
 * and its remainder through engine/intsem.h, + - * checked where an assigned value could
 * overflow), calls, reductions hoisted into loops that start from their first term, and the
 * repeats of user operators.  Every expression fully parenthesised, so that C evaluates it in the
 * program's order.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_int.h"

/* ---- names ------------------------------------------------------------------------------------ */

static const char *const ex_reserved[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
    "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict",
    "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union",
    "unsigned", "void", "volatile", "while", "main", "abs", "div", "exp", "log", "pow", "sin", "cos",
    "tan", "floor", "ceil", "sqrt", "fabs", "fmin", "fmax", "y0", "y1", "yn", "j0", "j1", "jn",
    "gamma", "index", "time", "free", "malloc", "calloc", "printf", "exit", "errno", "stdin",
    "stdout", "stderr", "remove", "rename", "signal", "clock", "round", "trunc", "isnan", "isinf",
    "imin", "imax", "dmin", "dmax", "iabs", "ifloordiv", "iceildiv", "imod", "isqrt_", "now",
    "iadd", "isub", "imul", "ineg", "int_where", "int_fail", "INT_CHECKED1", "INT_CHECKED2",
    "init_arrays", "free_arrays", "output_checksum", "deliver", "record_halo", "this_rank",
    "NULL", "bool", "true", "false", "int64_t", "uint64_t", "size_t", "alignas", "alignof",
    "noreturn", "static_assert", "complex", "imaginary", "I", "EOF", "BUFSIZ",
    /* the generated code's own locals */
    "me", "idx", "val", "ncomputed", "region_size", "region", "computed", "seconds", "sum", "hash",
    "pattern", "planes", "off", "t0", "step", "exchange_halo",
    /* rt_crand.h */
    "crand", "clrand48", "cdrand48", "clrand48_unseeded", "cdrand48_unseeded",
};

void ex_cname(char *out, size_t size, const char *name)
{
    int clash = strncmp(name, "rt_", 3) == 0 || strncmp(name, "RT_", 3) == 0 ||
                strncmp(name, "intsem_", 7) == 0 || strncmp(name, "INTSEM_", 7) == 0 ||
                strncmp(name, "crand", 5) == 0 || strncmp(name, "CRAND", 5) == 0 ||
                strncmp(name, "MPI_", 4) == 0 || strncmp(name, "__", 2) == 0;
    for (size_t i = 0; !clash && i < sizeof ex_reserved / sizeof ex_reserved[0]; i++)
        if (strcmp(name, ex_reserved[i]) == 0) clash = 1;
    snprintf(out, size, "%s%s", name, clash ? "_" : "");
}

/* ---- the emitter ------------------------------------------------------------------------------ */


/* The offset of an access in its array's storage: the index function, or in an innermost loop
 * the row hoisted out of it plus the last subscript, or the cell hoisted out of it
 * (export_rows.c), or for a pieced array whose piece has rows its row there plus the last
 * subscript (X_rowbase, as hoisted rows: not X_at's search of the pieces per element).
 * zero_fold: the fold subscript is 0 (offsets within a plane, for the pattern inspector). */
void ex_offset(const ex_em *m, strbuf *b, strbuf *pre, int in, int array, ir_expr *const *idx,
                      int nidx, const char *who, int zero_fold)
{
    const ex_array *a = &m->pl->arr[array];
    char **sub = xcalloc(nidx > 0 ? (size_t)nidx : 1, sizeof *sub);
    for (int i = 0; i < nidx; i++) {
        strbuf e = {0};
        if (zero_fold && i == a->fold) strbuf_printf(&e, "0");
        else ex_expr(m, &e, pre, in, idx[i]);
        sub[i] = strbuf_take(&e);
    }
    strbuf row = {0}, key = {0};
    const char *r = NULL, *cell = NULL;
    int same = who == m->me || (who && m->me && strcmp(who, m->me) == 0), rows = 0;
    if (m->rows && !zero_fold && same) {
        if ((rows = ex_row_call(m, &row, array, who, sub, nidx))) r = ex_rows_find(m, row.s);
        else if (ex_cell_call(m, &key, array, who, sub, nidx)) cell = ex_rows_find(m, key.s);
    }
    if (r) {
        strbuf_printf(b, "%s + %s", r, sub[nidx - 1]);
    } else if (rows && a->pieced) {   /* in an inner loop, a row of this processor's piece: X_rowbase + j */
        strbuf_printf(b, "%s + %s", row.s, sub[nidx - 1]);
    } else if (cell) {
        strbuf_printf(b, "%s", cell);
    } else {
        strbuf_printf(b, "%s_at(", a->cname);
        int first = 1;
        if (m->pl->mpi) { strbuf_printf(b, "%s", who); first = 0; }
        for (int i = 0; i < nidx; i++) {
            strbuf_printf(b, "%s%s", first ? "" : ", ", sub[i]);
            first = 0;
        }
        strbuf_printf(b, ")");
    }
    for (int i = 0; i < nidx; i++) free(sub[i]);
    free(sub);
    strbuf_free(&row);
    strbuf_free(&key);
}

static void ex_real(strbuf *b, double v)
{
    char s[64];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(s, sizeof s, "%.*g", prec, v);
        if (strtod(s, NULL) == v) break;
    }
    if (!strpbrk(s, ".eEn")) strcat(s, ".0");
    strbuf_printf(b, "%s", s);
}

static const char *ex_binop(ir_op op)
{
    switch (op) {
    case IR_OP_ADD: return "+";
    case IR_OP_SUB: return "-";
    case IR_OP_MUL: return "*";
    case IR_OP_DIV: return "/";
    case IR_OP_LT: return "<";
    case IR_OP_LE: return "<=";
    case IR_OP_GT: return ">";
    case IR_OP_GE: return ">=";
    case IR_OP_EQ: return "==";
    case IR_OP_NE: return "!=";
    case IR_OP_AND: return "&&";
    case IR_OP_OR: return "||";
    default: return "?";
    }
}

/* A reduction: hoisted into `pre` as a loop that starts from the first term. */
static void ex_reduce(const ex_em *m, strbuf *b, strbuf *pre, int in, const ir_expr *e)
{
    char v[64], r[32];
    ex_nm(e->u.reduce.var, v);
    snprintf(r, sizeof r, "rt_red%d", ++*m->tmp);
    int dbl = e->type == IR_DOUBLE;
    const char *ty = dbl ? "double" : "int64_t";
    strbuf lo = {0}, hi = {0}, body = {0}, bpre = {0};
    ex_em bounds = *m;   /* the range: plain C, as loop bounds */
    bounds.checked = 0;
    ex_expr(&bounds, &lo, pre, in, e->u.reduce.lo);
    ex_expr(&bounds, &hi, pre, in, e->u.reduce.hi);
    ex_em in_loop;   /* the loop's rows go before it, into pre */
    ex_rows_open(m, &in_loop, pre, in, e->u.reduce.var, NULL, 0, e->u.reduce.body);
    ex_expr(&in_loop, &body, &bpre, in + 8, e->u.reduce.body);
    ex_rows_close(&in_loop, m);
    const char *acc;
    switch (e->u.reduce.r) {
    case IR_R_SUM: acc = dbl || !m->checked ? "%s = %s + %s;\n" : "%s = iadd(%s, %s);\n"; break;
    case IR_R_PROD: acc = dbl || !m->checked ? "%s = %s * %s;\n" : "%s = imul(%s, %s);\n"; break;
    case IR_R_MAX: acc = dbl ? "%s = dmax(%s, %s);\n" : "%s = imax(%s, %s);\n"; break;
    default: acc = dbl ? "%s = dmin(%s, %s);\n" : "%s = imin(%s, %s);\n"; break;
    }
    const char *empty = e->u.reduce.r == IR_R_PROD ? "1" : "0";
    /* A sum or product starts from the first term exactly when it starts from the operation's
     * identity: 0 and 1 for integers, 1.0 and -0.0 for doubles (-0.0 + x is x bit for bit, +0.0
     * included; the empty sum stays +0.0).  min and max start from the first term. */
    int identity = e->u.reduce.r == IR_R_SUM || e->u.reduce.r == IR_R_PROD;
    const char *lo_s = lo.s ? lo.s : "0", *hi_s = hi.s ? hi.s : "0";
    ex_indent(pre, in);
    if (identity && dbl && e->u.reduce.r == IR_R_SUM)
        strbuf_printf(pre, "%s %s = %s <= %s ? -0.0 : 0.0;   /* %s(%s = ..) */\n", ty, r, lo_s, hi_s,
                      ir_reduce_name(e->u.reduce.r), v);
    else
        strbuf_printf(pre, "%s %s = %s;   /* %s(%s = ..) */\n", ty, r, empty, ir_reduce_name(e->u.reduce.r), v);
    ex_indent(pre, in);
    strbuf_printf(pre, "for (int64_t %s = %s, %s_end = %s; %s <= %s_end; %s++) {\n", v, lo_s, v, hi_s, v, v, v);
    if (bpre.s) strbuf_printf(pre, "%s", bpre.s);
    ex_indent(pre, in + 4);
    strbuf_printf(pre, "const %s rt_term = %s;\n", ty, body.s);
    ex_indent(pre, in + 4);
    if (!identity) strbuf_printf(pre, "if (%s == %s) %s = rt_term; else ", v, lo_s, r);
    strbuf_printf(pre, acc, r, r, "rt_term");
    ex_indent(pre, in);
    strbuf_printf(pre, "}\n");
    strbuf_printf(b, "%s", r);
    strbuf_free(&lo);
    strbuf_free(&hi);
    strbuf_free(&body);
    strbuf_free(&bpre);
}

/* Whether the binary operation e is written as a call of intsem's helpers: integer / and % (and
 * + - * where checked). */
static int ex_binary_call(const ex_em *m, const ir_expr *e)
{
    ir_op op = e->u.op.op;
    int ints = e->u.op.a->type == IR_INT && e->u.op.b->type == IR_INT;
    return (ints && (op == IR_OP_DIV || op == IR_OP_MOD)) ||
           (ints && m->checked && (op == IR_OP_ADD || op == IR_OP_SUB || op == IR_OP_MUL));
}

/* How tightly e binds where it is written with an operator (C's precedence, higher binds
 * tighter), 0 for anything else. */
static int ex_prec(const ex_em *m, const ir_expr *e)
{
    if (e->kind != IR_E_BINARY || ex_binary_call(m, e)) return 0;
    switch (e->u.op.op) {
    case IR_OP_MUL: case IR_OP_DIV: case IR_OP_MOD: return 6;
    case IR_OP_ADD: case IR_OP_SUB: return 5;
    case IR_OP_LT: case IR_OP_LE: case IR_OP_GT: case IR_OP_GE: return 4;
    case IR_OP_EQ: case IR_OP_NE: return 3;
    case IR_OP_AND: return 2;
    case IR_OP_OR: return 1;
    default: return 0;
    }
}

/* Whether operand c of e (the left one when left) reads the same without its parentheses, and
 * reads clearly: arithmetic binding tighter (or as tight, on the left) under arithmetic, arithmetic
 * under a comparison, comparisons under && and ||, and && under && or || under || on the left
 * (never && under ||, nor a comparison under another: what gcc's -Wparentheses asks to keep). */
static int ex_bare_operand(const ex_em *m, const ir_expr *e, const ir_expr *c, int left)
{
    int pe = ex_prec(m, e), pc = ex_prec(m, c);
    if (!pe || !pc) return 0;
    if (pe >= 5) return pc > pe || (pc == pe && left);
    if (pe >= 3) return pc >= 5;
    return (pc >= 3 && pc <= 4) || (pc == pe && left);
}

static void ex_arg(const ex_em *m, strbuf *b, strbuf *pre, int in, const ir_expr *x, int cast);

/* A binary operation: integer / and % (and + - * where checked) through intsem's helpers, else
 * the C operator, an int operand of a double operation converted first as the simulator does;
 * parenthesised unless bare (where its context makes the parentheses redundant). */
static void ex_binary_in(const ex_em *m, strbuf *b, strbuf *pre, int in, const ir_expr *e, int bare)
{
    ir_op op = e->u.op.op;
    int ints = e->u.op.a->type == IR_INT && e->u.op.b->type == IR_INT;
    if (ex_binary_call(m, e)) {
        strbuf_printf(b, "%s(", op == IR_OP_DIV ? "ifloordiv" : op == IR_OP_MOD ? "imod"
                                : op == IR_OP_ADD ? "iadd" : op == IR_OP_SUB ? "isub" : "imul");
        ex_arg(m, b, pre, in, e->u.op.a, 0);
        strbuf_printf(b, ", ");
        ex_arg(m, b, pre, in, e->u.op.b, 0);
        strbuf_printf(b, ")");
        return;
    }
    if (!bare) strbuf_printf(b, "(");
    /* an int operand of a double operation is converted first, as the simulator does */
    int conv = e->type == IR_DOUBLE || (op >= IR_OP_LT && op <= IR_OP_NE && !ints);
    for (int side = 0; side < 2; side++) {
        const ir_expr *x = side ? e->u.op.b : e->u.op.a;
        if (side) strbuf_printf(b, " %s ", ex_binop(op));
        if (conv && x->type == IR_INT && x->kind != IR_E_INT) {
            strbuf_printf(b, "(double)");
            ex_expr(m, b, pre, in, x);
        } else if (ex_bare_operand(m, e, x, !side)) {
            ex_binary_in(m, b, pre, in, x, 1);
        } else {
            ex_expr(m, b, pre, in, x);
        }
    }
    if (!bare) strbuf_printf(b, ")");
}

static void ex_binary(const ex_em *m, strbuf *b, strbuf *pre, int in, const ir_expr *e)
{
    ex_binary_in(m, b, pre, in, e, 0);
}

/* An argument of a call, or a cast's operand when cast: an operation without parentheses of its
 * own where the call's are enough (f(a + b), not f((a + b))). */
static void ex_arg(const ex_em *m, strbuf *b, strbuf *pre, int in, const ir_expr *x, int cast)
{
    if (cast) strbuf_printf(b, "(double)");
    if (!cast && ex_prec(m, x)) ex_binary_in(m, b, pre, in, x, 1);
    else ex_expr(m, b, pre, in, x);
}

/* A call: min/max nested pairwise, floor/ceil of an integer division exact, select as ?:,
 * the bitwise operators, and the functions of math.h and intsem.h. */
static void ex_call(const ex_em *m, strbuf *b, strbuf *pre, int in, const ir_expr *e)
{
    ir_func f = e->u.call.f;
    const ir_expr *x = e->u.call.args[0];
    int dbl = e->type == IR_DOUBLE;
    if (f == IR_F_MIN || f == IR_F_MAX) {
        const char *fn = f == IR_F_MIN ? (dbl ? "dmin" : "imin") : (dbl ? "dmax" : "imax");
        for (int i = 1; i < e->u.call.nargs; i++) strbuf_printf(b, "%s(", fn);
        for (int i = 0; i < e->u.call.nargs; i++) {
            if (dbl && e->u.call.args[i]->type == IR_INT) strbuf_printf(b, "(double)");
            ex_expr(m, b, pre, in, e->u.call.args[i]);
            if (i > 0) strbuf_printf(b, ")");
            if (i + 1 < e->u.call.nargs) strbuf_printf(b, ", ");
        }
        return;
    }
    if ((f == IR_F_FLOOR || f == IR_F_CEIL) && x->type == IR_INT && x->kind == IR_E_BINARY &&
        x->u.op.op == IR_OP_DIV) {
        strbuf_printf(b, "%s(", f == IR_F_FLOOR ? "ifloordiv" : "iceildiv");
        ex_expr(m, b, pre, in, x->u.op.a);
        strbuf_printf(b, ", ");
        ex_expr(m, b, pre, in, x->u.op.b);
        strbuf_printf(b, ")");
        return;
    }
    if (f == IR_F_SELECT && e->u.call.nargs == 3) {
        strbuf_printf(b, "(");
        ex_expr(m, b, pre, in, e->u.call.args[0]);
        for (int i = 1; i < 3; i++) {
            strbuf_printf(b, i == 1 ? " ? " : " : ");
            if (dbl && e->u.call.args[i]->type == IR_INT) strbuf_printf(b, "(double)");
            ex_expr(m, b, pre, in, e->u.call.args[i]);
        }
        strbuf_printf(b, ")");
        return;
    }
    if ((f == IR_F_BAND || f == IR_F_BOR || f == IR_F_BXOR) && e->u.call.nargs == 2) {
        strbuf_printf(b, "(");
        ex_expr(m, b, pre, in, e->u.call.args[0]);
        strbuf_printf(b, " %s ", f == IR_F_BAND ? "&" : f == IR_F_BOR ? "|" : "^");
        ex_expr(m, b, pre, in, e->u.call.args[1]);
        strbuf_printf(b, ")");
        return;
    }
    if (ir_libm_nargs(f)) {   /* math.h's, of doubles: the simulator's ir_libm_call */
        strbuf_printf(b, "%s(", ir_func_name(f));
        for (int i = 0; i < e->u.call.nargs; i++) {
            if (i) strbuf_printf(b, ", ");
            ex_arg(m, b, pre, in, e->u.call.args[i], e->u.call.args[i]->type == IR_INT);
        }
        strbuf_printf(b, ")");
        return;
    }
    if (f == IR_F_CRAND || f == IR_F_CLRAND48 || f == IR_F_CDRAND48) {   /* rt_crand.h */
        int seeded = e->u.call.nargs == 2;
        strbuf_printf(b, "%s%s(", ir_func_name(f), seeded || f == IR_F_CRAND ? "" : "_unseeded");
        for (int i = 0; i < e->u.call.nargs; i++) {
            if (i) strbuf_printf(b, ", ");
            ex_expr(m, b, pre, in, e->u.call.args[i]);
        }
        strbuf_printf(b, ")");
        return;
    }
    const char *fn = "";
    switch (f) {
    case IR_F_FLOOR: fn = x->type == IR_INT ? "" : "floor"; break;
    case IR_F_CEIL: fn = x->type == IR_INT ? "" : "ceil"; break;
    case IR_F_ABS: fn = x->type == IR_INT ? "iabs" : "fabs"; break;
    case IR_F_SQRT: fn = "sqrt"; break;
    case IR_F_ISQRT: fn = "isqrt_"; break;
    default: break;
    }
    strbuf_printf(b, "%s(", fn);
    if (f == IR_F_SQRT && x->type == IR_INT) strbuf_printf(b, "(double)");
    ex_expr(m, b, pre, in, x);
    strbuf_printf(b, ")");
}

/* repeat(op, k, args): the user operator's repeat function on its state tuple. */
static void ex_repeat(const ex_em *m, strbuf *b, strbuf *pre, int in, const ir_expr *e)
{
    char t[64];
    const ir_decl *od = m->pl->p->ops[e->u.repeat.op.user];
    ex_nm(od->u.op.name, t);
    strbuf_printf(b, "op_%s_repeat(", t);
    ex_expr(m, b, pre, in, e->u.repeat.k);
    strbuf_printf(b, ", (rt_val[]){");
    for (int i = 0; i < e->u.repeat.nargs; i++) {
        int fd = od->u.op.state->fields[i].type == IR_DOUBLE;
        strbuf_printf(b, "%s{.%s = %s(", i ? ", " : "", fd ? "d" : "i", fd ? "(double)" : "(int64_t)");
        ex_expr(m, b, pre, in, e->u.repeat.args[i]);
        strbuf_printf(b, ")}");
    }
    strbuf_printf(b, "}).%s", od->u.op.state->fields[0].type == IR_DOUBLE ? "d" : "i");
}

void ex_expr(const ex_em *m, strbuf *b, strbuf *pre, int in, const ir_expr *e)
{
    char t[64];
    switch (e->kind) {
    case IR_E_INT:
        if (e->u.ival < 0) strbuf_printf(b, "(%" PRId64 ")", e->u.ival);
        else if (e->u.ival > INT32_MAX) strbuf_printf(b, "INT64_C(%" PRId64 ")", e->u.ival);
        else strbuf_printf(b, "%" PRId64, e->u.ival);
        return;
    case IR_E_REAL:
        if (e->u.rval < 0) { strbuf_printf(b, "("); ex_real(b, e->u.rval); strbuf_printf(b, ")"); }
        else ex_real(b, e->u.rval);
        return;
    case IR_E_NAME:
        if (e->u.name.nk == IR_N_ARRAY) {
            strbuf_printf(b, "%s[0]", m->pl->arr[e->u.name.index].cname);
            return;
        }
        strbuf_printf(b, "%s", ex_nm(e->u.name.id, t));
        return;
    case IR_E_ACCESS: {
        if (ex_regs_cell(m, b, e)) return;   /* an element of a register tile */
        ex_em plain = *m;   /* subscripts: plain C */
        plain.checked = 0;
        strbuf_printf(b, "%s[", m->pl->arr[e->u.access.array_index].cname);
        ex_offset(&plain, b, pre, in, e->u.access.array_index, e->u.access.idx, e->u.access.nidx, m->me, 0);
        strbuf_printf(b, "]");
        return;
    }
    case IR_E_UNARY:
        strbuf_printf(b, "(%s", e->u.op.op == IR_OP_NOT ? "!" : m->checked && e->type == IR_INT ? "ineg(" : "-");
        ex_expr(m, b, pre, in, e->u.op.a);
        strbuf_printf(b, e->u.op.op != IR_OP_NOT && m->checked && e->type == IR_INT ? "))" : ")");
        return;
    case IR_E_BINARY:
        ex_binary(m, b, pre, in, e);
        return;
    case IR_E_CALL:
        ex_call(m, b, pre, in, e);
        return;
    case IR_E_REDUCE:
        ex_reduce(m, b, pre, in, e);
        return;
    case IR_E_REPEAT:
        ex_repeat(m, b, pre, in, e);
        return;
    }
}
