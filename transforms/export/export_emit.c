/*
 * export_emit.c — writes the C of an exported program from its plan (export.c): parameters as
 * constants, each array's storage with its index function (local part of a processor at syndm,
 * live time planes modulo their count), one function per phase (init, the step or the whole
 * computation, the halo pattern, delivery, the output checksum) and main.
 *
 * Step functions as a careful human writes them: an innermost loop's invariant lets and row
 * bases computed before it, a border test split out of it (ex_split_loop), the arrays passed as
 * restrict parameters to a function that is not inlined (so gcc -O2 vectorises the loops), and
 * with the halo no send in them (the pattern, recorded once, packs the boundary after the step).
 *
 * Semantics kept bit for bit with the simulator: integer arithmetic is engine/intsem.h, copied
 * next to the program (/ and % floor division and its remainder, ceil(a / b) exact, an assigned
 * value's overflow an error naming the statement), reductions start from their
 * first term (sums and products from the identity, which is the same: -0.0 for double sums),
 * double min/max keep the first of equal values, expressions are fully
 * parenthesised so that C evaluates them in the program's order (and the Makefile forbids FMA
 * contraction).
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
};

void ex_cname(char *out, size_t size, const char *name)
{
    int clash = strncmp(name, "rt_", 3) == 0 || strncmp(name, "RT_", 3) == 0 ||
                strncmp(name, "intsem_", 7) == 0 || strncmp(name, "INTSEM_", 7) == 0 ||
                strncmp(name, "MPI_", 4) == 0 || strncmp(name, "__", 2) == 0;
    for (size_t i = 0; !clash && i < sizeof ex_reserved / sizeof ex_reserved[0]; i++)
        if (strcmp(name, ex_reserved[i]) == 0) clash = 1;
    snprintf(out, size, "%s%s", name, clash ? "_" : "");
}

/* The checked integer helpers of ex_helpers: a statement whose C calls one sets int_where. */
static const char *const ex_checked[] = {
    "iadd(", "isub(", "imul(", "ifloordiv(", "iceildiv(", "imod(", "ineg(", "iabs(", "isqrt_(",
};

static int ex_calls_checked(const char *text)
{
    for (size_t i = 0; text && i < sizeof ex_checked / sizeof ex_checked[0]; i++)
        for (const char *p = strstr(text, ex_checked[i]); p; p = strstr(p + 1, ex_checked[i]))
            if (p == text || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z')
                               || (p[-1] >= '0' && p[-1] <= '9')))
                return 1;
    return 0;
}

/* ---- the emitter ------------------------------------------------------------------------------ */


static void ind(strbuf *b, int n)
{
    strbuf_printf(b, "%*s", n, "");
}

static const char *nm(const char *id, char *tmp)
{
    ex_cname(tmp, 64, id);
    return tmp;
}


/* The offset of an access in its array's storage: the index function, or the row hoisted out of
 * the loop plus the last subscript (export_rows.c).  zero_fold: the fold subscript is 0 (offsets
 * within a plane, for the pattern inspector). */
static void ex_offset(const ex_em *m, strbuf *b, strbuf *pre, int in, int array, ir_expr *const *idx,
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
    strbuf row = {0};
    const char *r = NULL;
    int same = who == m->me || (who && m->me && strcmp(who, m->me) == 0);
    if (m->rows && !zero_fold && same && ex_row_call(m, &row, array, who, sub, nidx)) r = ex_rows_find(m, row.s);
    if (r) {
        strbuf_printf(b, "%s + %s", r, sub[nidx - 1]);
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
    nm(e->u.reduce.var, v);
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
    ind(pre, in);
    if (identity && dbl && e->u.reduce.r == IR_R_SUM)
        strbuf_printf(pre, "%s %s = %s <= %s ? -0.0 : 0.0;   /* %s(%s = ..) */\n", ty, r, lo_s, hi_s,
                      ir_reduce_name(e->u.reduce.r), v);
    else
        strbuf_printf(pre, "%s %s = %s;   /* %s(%s = ..) */\n", ty, r, empty, ir_reduce_name(e->u.reduce.r), v);
    ind(pre, in);
    strbuf_printf(pre, "for (int64_t %s = %s, %s_end = %s; %s <= %s_end; %s++) {\n", v, lo_s, v, hi_s, v, v, v);
    if (bpre.s) strbuf_printf(pre, "%s", bpre.s);
    ind(pre, in + 4);
    strbuf_printf(pre, "const %s rt_term = %s;\n", ty, body.s);
    ind(pre, in + 4);
    if (!identity) strbuf_printf(pre, "if (%s == %s) %s = rt_term; else ", v, lo_s, r);
    strbuf_printf(pre, acc, r, r, "rt_term");
    ind(pre, in);
    strbuf_printf(pre, "}\n");
    strbuf_printf(b, "%s", r);
    strbuf_free(&lo);
    strbuf_free(&hi);
    strbuf_free(&body);
    strbuf_free(&bpre);
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
        strbuf_printf(b, "%s", nm(e->u.name.id, t));
        return;
    case IR_E_ACCESS: {
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
    case IR_E_BINARY: {
        ir_op op = e->u.op.op;
        int ints = e->u.op.a->type == IR_INT && e->u.op.b->type == IR_INT;
        if ((ints && (op == IR_OP_DIV || op == IR_OP_MOD)) ||
            (ints && m->checked && (op == IR_OP_ADD || op == IR_OP_SUB || op == IR_OP_MUL))) {
            strbuf_printf(b, "%s(", op == IR_OP_DIV ? "ifloordiv" : op == IR_OP_MOD ? "imod"
                                    : op == IR_OP_ADD ? "iadd" : op == IR_OP_SUB ? "isub" : "imul");
            ex_expr(m, b, pre, in, e->u.op.a);
            strbuf_printf(b, ", ");
            ex_expr(m, b, pre, in, e->u.op.b);
            strbuf_printf(b, ")");
            return;
        }
        strbuf_printf(b, "(");
        /* an int operand of a double operation is converted first, as the simulator does */
        int conv = e->type == IR_DOUBLE || (op >= IR_OP_LT && op <= IR_OP_NE && !ints);
        if (conv && e->u.op.a->type == IR_INT && e->u.op.a->kind != IR_E_INT) strbuf_printf(b, "(double)");
        ex_expr(m, b, pre, in, e->u.op.a);
        strbuf_printf(b, " %s ", ex_binop(op));
        if (conv && e->u.op.b->type == IR_INT && e->u.op.b->kind != IR_E_INT) strbuf_printf(b, "(double)");
        ex_expr(m, b, pre, in, e->u.op.b);
        strbuf_printf(b, ")");
        return;
    }
    case IR_E_CALL: {
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
        return;
    }
    case IR_E_REDUCE:
        ex_reduce(m, b, pre, in, e);
        return;
    case IR_E_REPEAT: {
        const ir_decl *od = m->pl->p->ops[e->u.repeat.op.user];
        nm(od->u.op.name, t);
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
        return;
    }
    }
}

/* ---- statements ------------------------------------------------------------------------------- */

static int ex_expr_uses(const ir_expr *e, const char *id)
{
    if (!e) return 0;
    switch (e->kind) {
    case IR_E_NAME: return strcmp(e->u.name.id, id) == 0;
    case IR_E_ACCESS:
        for (int i = 0; i < e->u.access.nidx; i++) if (ex_expr_uses(e->u.access.idx[i], id)) return 1;
        return 0;
    case IR_E_UNARY: case IR_E_BINARY: return ex_expr_uses(e->u.op.a, id) || ex_expr_uses(e->u.op.b, id);
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++) if (ex_expr_uses(e->u.call.args[i], id)) return 1;
        return 0;
    case IR_E_REDUCE:
        return ex_expr_uses(e->u.reduce.lo, id) || ex_expr_uses(e->u.reduce.hi, id) ||
               ex_expr_uses(e->u.reduce.body, id);
    case IR_E_REPEAT:
        for (int i = 0; i < e->u.repeat.nargs; i++) if (ex_expr_uses(e->u.repeat.args[i], id)) return 1;
        return ex_expr_uses(e->u.repeat.k, id);
    default: return 0;
    }
}

static int ex_block_uses(const ex_em *m, const ir_block *b, int from, const char *id);

/* Whether statement s, as emitted in this mode, reads name `id`. */
static int ex_stmt_uses(const ex_em *m, const ir_stmt *s, const char *id)
{
    switch (s->kind) {
    case IR_S_ASSIGN:
        if (m->mode == EX_INSPECT) return 0;
        if (m->mode == EX_MARK)   /* the target's subscripts of a marked output alone */
            return s->u.assign.lhs->kind == IR_E_ACCESS && m->pl->arr[s->u.assign.lhs->u.access.array_index].mark &&
                   ex_expr_uses(s->u.assign.lhs, id);
        return ex_expr_uses(s->u.assign.lhs, id) || ex_expr_uses(s->u.assign.rhs, id);
    case IR_S_LET: return ex_expr_uses(s->u.let.value, id);
    case IR_S_IF:
        return ex_expr_uses(s->u.if_.cond, id) || ex_block_uses(m, s->u.if_.then_blk, 0, id) ||
               (s->u.if_.else_blk && ex_block_uses(m, s->u.if_.else_blk, 0, id));
    case IR_S_FOR:
        for (int i = 0; i < s->u.for_.nvars; i++)
            if (ex_expr_uses(s->u.for_.vars[i].lo, id) || ex_expr_uses(s->u.for_.vars[i].hi, id) ||
                ex_expr_uses(s->u.for_.vars[i].step, id)) return 1;
        return ex_block_uses(m, s->u.for_.body, 0, id);
    case IR_S_SEND: {
        if (m->mode == EX_MARK || (m->mode == EX_STEP && m->pl->exchange == XF_EXCHANGE_HALO)) return 0;
        if (m->mode == EX_INSPECT && ex_phase_of(m->pl, s) != m->phase) return 0;   /* another phase's */
        if (ex_expr_uses(s->u.send.to_lo, id) || ex_expr_uses(s->u.send.to_hi, id) || ex_expr_uses(s->u.send.when, id))
            return 1;
        ir_expr *const *widx;
        int nidx, arr = ex_sent_array(s->u.send.what, &widx, &nidx);
        int skip = m->mode == EX_INSPECT ? m->pl->arr[arr].fold : -1;   /* the inspector's plane is 0 */
        for (int i = 0; i < nidx; i++) if (i != skip && ex_expr_uses(widx[i], id)) return 1;
        for (int i = 0; i < s->u.send.nas; i++) if (i != skip && ex_expr_uses(s->u.send.as_idx[i], id)) return 1;
        return 0;
    }
    case IR_S_RECV:
        return 0;
    case IR_S_COLL:
        if (m->mode == EX_INSPECT) return 0;
        for (int i = 0; i < s->u.coll.nsrc; i++)
            if (ex_expr_uses(s->u.coll.src[i], id) ||
                (s->u.coll.src_lo && (ex_expr_uses(s->u.coll.src_lo[i], id) || ex_expr_uses(s->u.coll.src_hi[i], id))))
                return 1;
        for (int i = 0; i < s->u.coll.ndst; i++)
            if (ex_expr_uses(s->u.coll.dst[i], id) ||
                (s->u.coll.dst_lo && (ex_expr_uses(s->u.coll.dst_lo[i], id) || ex_expr_uses(s->u.coll.dst_hi[i], id))))
                return 1;
        return ex_expr_uses(s->u.coll.root, id) || ex_expr_uses(s->u.coll.by, id);
    }
    return 0;
}

static int ex_block_uses(const ex_em *m, const ir_block *b, int from, const char *id)
{
    for (int i = from; i < b->n; i++) if (ex_stmt_uses(m, b->stmts[i], id)) return 1;
    return 0;
}

static void ex_block(const ex_em *m, strbuf *b, const ir_block *blk, int in);

/* The conjuncts of a guard (a && b && c), counted past max (export_int.h). */
int ex_conjuncts(const ir_expr *e, const ir_expr **out, int n, int max)
{
    if (e->kind == IR_E_BINARY && e->u.op.op == IR_OP_AND) {
        n = ex_conjuncts(e->u.op.a, out, n, max);
        return ex_conjuncts(e->u.op.b, out, n, max);
    }
    if (n < max) out[n] = e;
    return n + 1;
}

/* Whether e names only the time variable and parameters (a condition on the step alone). */
int ex_time_only(const ir_expr *e, int tslot)
{
    switch (e->kind) {
    case IR_E_INT: case IR_E_REAL: return 1;
    case IR_E_NAME:
        return e->u.name.nk == IR_N_PARAM || (e->u.name.nk == IR_N_LOOPVAR && e->u.name.index == tslot);
    case IR_E_UNARY: case IR_E_BINARY:
        return ex_time_only(e->u.op.a, tslot) && (!e->u.op.b || ex_time_only(e->u.op.b, tslot));
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++) if (!ex_time_only(e->u.call.args[i], tslot)) return 0;
        return 1;
    default: return 0;
    }
}


static void ex_send(const ex_em *m, strbuf *b, const ir_stmt *s, int in)
{
    const ex_plan *pl = m->pl;
    if (m->mode == EX_MARK || (m->mode == EX_STEP && pl->exchange == XF_EXCHANGE_HALO)) return;   /* the pattern sends it */
    if (m->nosends) return;   /* the loop's version where no send runs (export_guards.c) */
    if (m->mode == EX_INSPECT && ex_phase_of(pl, s) != m->phase) return;   /* another phase's pattern */
    strbuf pre = {0}, cond = {0}, lo = {0}, hi = {0}, what = {0}, at = {0};
    const ir_expr *w = s->u.send.what;
    ir_expr *const *widx;
    int nidx, arr = ex_sent_array(w, &widx, &nidx);
    if (s->u.send.when) {
        const ir_expr *cj[64];
        int nc = ex_conjuncts(s->u.send.when, cj, 0, 64);
        for (int i = 0; i < nc && i < 64; i++) {
            if (m->mode == EX_INSPECT && ex_time_only(cj[i], pl->tslot) && ex_reads(cj[i], pl->tslot))
                continue;   /* the phase's condition on t, tested each step */
            if (cond.n) strbuf_printf(&cond, " && ");
            ex_expr(m, &cond, &pre, in, cj[i]);
        }
    }
    ex_expr(m, &lo, &pre, in, s->u.send.to_lo);
    if (s->u.send.to_hi) ex_expr(m, &hi, &pre, in, s->u.send.to_hi);
    int zero = m->mode == EX_INSPECT;
    ex_offset(m, &what, &pre, in, arr, widx, nidx, m->me, zero);
    if (m->mode == EX_STEP && ex_send_mcast(pl, s)) {   /* one record for the whole range */
        if (pre.s) strbuf_printf(b, "%s", pre.s);
        ex_send_mcast_emit(m, b, s, in, cond.n ? cond.s : "1", lo.s, hi.s, what.s);
        strbuf_free(&pre);
        strbuf_free(&cond);
        strbuf_free(&lo);
        strbuf_free(&hi);
        strbuf_free(&what);
        return;
    }
    ir_expr *const *as = s->u.send.as_idx ? s->u.send.as_idx : widx;
    if (pl->arr[arr].pieced) ex_piece_gidx(m, &at, &pre, in, &pl->arr[arr], as);   /* the receiver finds it */
    else ex_offset(m, &at, &pre, in, arr, as, nidx, "rt_dest", zero);
    if (pre.s) strbuf_printf(b, "%s", pre.s);
    ind(b, in);
    char *text = ir_print_expr(w);
    strbuf_printf(b, "if (%s) {   /* send %s */\n", cond.n ? cond.s : "1", text ? text : "");
    free(text);
    ind(b, in + 4);
    /* the destinations within the processors: a verified program never sends outside them (the
     * simulator's "does not exist"), and gcc, which cannot know that, would see a part's
     * extent read past its table when a send names rp + 1 of a single processor */
    strbuf_printf(b, "for (int64_t rt_dest = imax(%s, %" PRId64 "), rt_last = imin(%s, %" PRId64 "); rt_dest <= rt_last; "
                  "rt_dest++)\n", lo.s, pl->plo, hi.n ? hi.s : lo.s, pl->plo + pl->nprocs - 1);
    ind(b, in + 8);
    if (m->mode == EX_INSPECT)
        strbuf_printf(b, "if (rt_dest != %s) rt_pattern_add(pattern, (int)(rt_dest - %" PRId64 "), %d, %s, %s);\n",
                      m->me, pl->plo, arr, what.s, at.s);
    else
        strbuf_printf(b, "if (rt_dest != %s) rt_exchange_put%s(rt_x, (int)(rt_dest - %" PRId64 "), %s * %d + %d, %s[%s]);\n",
                      m->me, pl->arr[arr].decl->u.array.elem == IR_DOUBLE ? "" : "_int", pl->plo, at.s, pl->p->narrays,
                      arr, pl->arr[arr].cname, what.s);
    ind(b, in);
    strbuf_printf(b, "}\n");
    strbuf_free(&pre);
    strbuf_free(&cond);
    strbuf_free(&lo);
    strbuf_free(&hi);
    strbuf_free(&what);
    strbuf_free(&at);
}

/* EX_MARK: an assignment to a marked output stamps its element (on the marked plane when folded). */
static void ex_assign_mark(const ex_em *m, strbuf *b, const ir_stmt *s, int in)
{
    const ir_expr *l = s->u.assign.lhs;
    int acc = l->kind == IR_E_ACCESS, arr = acc ? l->u.access.array_index : l->u.name.index;
    const ex_array *a = &m->pl->arr[arr];
    if (!a->mark) return;
    strbuf pre = {0}, off = {0}, fs = {0};
    if (acc) ex_offset(m, &off, &pre, in, arr, l->u.access.idx, l->u.access.nidx, m->me, 0);
    else strbuf_printf(&off, "0");   /* a scalar */
    if (acc && a->fold >= 0) ex_expr(m, &fs, &pre, in, l->u.access.idx[a->fold]);
    if (pre.s) strbuf_printf(b, "%s", pre.s);
    ind(b, in);
    if (fs.n) strbuf_printf(b, "if (%s == %" PRId64 ") ", fs.s, a->mark_plane);
    strbuf_printf(b, "%s_mine[%s] = rt_now;   /* %s */\n", a->cname, off.s, s->u.assign.label ? s->u.assign.label : "assignment");
    strbuf_free(&pre);
    strbuf_free(&off);
    strbuf_free(&fs);
}

static void ex_assign(const ex_em *m, strbuf *b, const ir_stmt *s, int in)
{
    if (m->mode == EX_INSPECT) return;
    if (m->mode == EX_MARK) { ex_assign_mark(m, b, s, in); return; }
    strbuf pre = {0}, rhs = {0}, off = {0};
    const ir_expr *l = s->u.assign.lhs;
    int arr = l->kind == IR_E_ACCESS ? l->u.access.array_index : l->u.name.index;
    const ex_array *a = &m->pl->arr[arr];
    ex_em value = *m;   /* the assigned value: checked integer arithmetic */
    value.checked = 1;
    ex_expr(&value, &rhs, &pre, in, s->u.assign.rhs);
    if (l->kind == IR_E_ACCESS) ex_offset(m, &off, &pre, in, arr, l->u.access.idx, l->u.access.nidx, m->me, 0);
    else strbuf_printf(&off, "0");
    if (ex_calls_checked(pre.s) || ex_calls_checked(rhs.s) || ex_calls_checked(off.s)) {
        ind(b, in);
        strbuf_printf(b, "int_where = \"statement %s at %d:%d\";\n", s->u.assign.label ? s->u.assign.label : "(unlabelled)",
                      s->pos.line, s->pos.col);
    }
    if (pre.s) strbuf_printf(b, "%s", pre.s);
    ind(b, in);
    if (m->mode == EX_STEP && m->marks && a->mark) {
        strbuf_printf(b, "{   /* %s */\n", s->u.assign.label ? s->u.assign.label : "assignment");
        ind(b, in + 4);
        strbuf_printf(b, "const int64_t rt_o = %s;\n", off.s);
        ind(b, in + 4);
        strbuf_printf(b, "%s[rt_o] = %s;\n", a->cname, rhs.s);
        ind(b, in + 4);
        if (a->fold >= 0) {
            strbuf fs = {0}, fpre = {0};
            ex_expr(m, &fs, &fpre, in, l->u.access.idx[a->fold]);
            strbuf_printf(b, "if (%s == %" PRId64 ") %s_mine[rt_o] = rt_stamp;   /* computed here: gathered */\n", fs.s,
                          a->mark_plane, a->cname);
            strbuf_free(&fs);
            strbuf_free(&fpre);
        } else {
            strbuf_printf(b, "%s_mine[rt_o] = rt_stamp;   /* computed here: gathered */\n", a->cname);
        }
        ind(b, in);
        strbuf_printf(b, "}\n");
    } else {
        strbuf_printf(b, "%s[%s] = %s;   /* %s */\n", a->cname, off.s, rhs.s, s->u.assign.label ? s->u.assign.label : "assignment");
    }
    strbuf_free(&pre);
    strbuf_free(&rhs);
    strbuf_free(&off);
}

static void ex_for_open(const ex_em *m, strbuf *b, const ir_loopvar *v, int in)
{
    char t[64];
    strbuf pre = {0}, lo = {0}, hi = {0}, st = {0};
    ex_expr(m, &lo, &pre, in, v->lo);
    ex_expr(m, &hi, &pre, in, v->hi);
    if (v->step) ex_expr(m, &st, &pre, in, v->step);
    if (pre.s) strbuf_printf(b, "%s", pre.s);
    const char *x = nm(v->var, t);
    ind(b, in);
    strbuf_printf(b, "for (int64_t %s = %s, %s_end = %s; %s <= %s_end; %s += %s) {\n", x, lo.s, x, hi.s, x, x, x,
                  st.n ? st.s : "1");
    strbuf_free(&pre);
    strbuf_free(&lo);
    strbuf_free(&hi);
    strbuf_free(&st);
}

/* The terms of a disjunction a || b || c. */
static int ex_disjuncts(const ir_expr *e, const ir_expr **out, int n, int max)
{
    if (e->kind == IR_E_BINARY && e->u.op.op == IR_OP_OR) {
        n = ex_disjuncts(e->u.op.a, out, n, max);
        return ex_disjuncts(e->u.op.b, out, n, max);
    }
    if (n < max) out[n++] = e;
    return n;
}

int ex_block_holds(const ir_block *b, ir_stmt_kind k)
{
    for (int i = 0; b && i < b->n; i++) {
        const ir_stmt *s = b->stmts[i];
        if (s->kind == k) return 1;
        if (s->kind == IR_S_IF && (ex_block_holds(s->u.if_.then_blk, k) || ex_block_holds(s->u.if_.else_blk, k))) return 1;
        if (s->kind == IR_S_FOR && ex_block_holds(s->u.for_.body, k)) return 1;
    }
    return 0;
}

int ex_reads(const ir_expr *e, int slot)
{
    if (!e) return 0;
    switch (e->kind) {
    case IR_E_INT: case IR_E_REAL: return 0;
    case IR_E_NAME: return e->u.name.nk == IR_N_ARRAY || (e->u.name.nk != IR_N_PARAM && e->u.name.index == slot);
    case IR_E_ACCESS: return 1;
    case IR_E_UNARY: case IR_E_BINARY: return ex_reads(e->u.op.a, slot) || ex_reads(e->u.op.b, slot);
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++) if (ex_reads(e->u.call.args[i], slot)) return 1;
        return 0;
    default: return 1;
    }
}

int ex_cannot_fail(const ex_plan *pl, const ir_expr *e)
{
    if (!e) return 1;
    switch (e->kind) {
    case IR_E_INT: case IR_E_REAL: case IR_E_NAME: return 1;
    case IR_E_UNARY: case IR_E_BINARY:
        if ((e->u.op.op == IR_OP_DIV || e->u.op.op == IR_OP_MOD) && e->type == IR_INT) {
            const ir_expr *d = e->u.op.b;
            int64_t v = d->kind == IR_E_INT ? d->u.ival
                      : d->kind == IR_E_NAME && d->u.name.nk == IR_N_PARAM && d->u.name.index >= 0 ? pl->pv[d->u.name.index]
                      : 0;
            if (v == 0 || v == -1) return 0;
        }
        return ex_cannot_fail(pl, e->u.op.a) && ex_cannot_fail(pl, e->u.op.b);
    case IR_E_CALL:
        if (e->u.call.f == IR_F_ISQRT) return 0;
        for (int i = 0; i < e->u.call.nargs; i++) if (!ex_cannot_fail(pl, e->u.call.args[i])) return 0;
        return 1;
    default: return 0;
    }
}

/* The leading lets of the body of the loop over v that do not change in it (they read neither
 * v nor an array) and cannot fail: computed once before the loop. */
static int ex_invariant_lets(const ex_plan *pl, const ir_loopvar *v, const ir_block *body)
{
    int n = 0;
    while (n < body->n && body->stmts[n]->kind == IR_S_LET && !ex_reads(body->stmts[n]->u.let.value, v->slot) &&
           ex_cannot_fail(pl, body->stmts[n]->u.let.value))
        n++;
    return n;
}

/* An innermost loop whose body is `if c { A } else { B }` with c a disjunction of terms that do
 * not change in the loop and of tests `v == e` (e does not change either), e.g. FD's border test:
 * the loop is split, in iteration order, into runs of B without the test, and A at each e.  The
 * compiler sees a plain stencil loop.  Returns 0 when the loop has another shape. */
static int ex_split_loop(const ex_em *m, strbuf *b, const ir_loopvar *v, const ir_block *body, int in)
{
    /* lets that do not change in the loop may come first: they are computed before it */
    int nlet = ex_invariant_lets(m->pl, v, body);
    if (v->step || body->n != nlet + 1 || body->stmts[nlet]->kind != IR_S_IF || !body->stmts[nlet]->u.if_.else_blk)
        return 0;
    const ir_stmt *s = body->stmts[nlet];
    const ir_expr *t[16];
    int nt = ex_disjuncts(s->u.if_.cond, t, 0, 16), neq = 0;
    if (nt >= 16) return 0;
    const ir_expr *inv[16], *eq[16];
    int ninv = 0;
    for (int i = 0; i < nt; i++) {
        const ir_expr *e = t[i];
        if (!ex_reads(e, v->slot)) { inv[ninv++] = e; continue; }
        if (e->kind != IR_E_BINARY || e->u.op.op != IR_OP_EQ) return 0;
        const ir_expr *x = e->u.op.a, *o = e->u.op.b;
        if (!(x->kind == IR_E_NAME && x->u.name.nk == IR_N_LOOPVAR && x->u.name.index == v->slot)) { x = o; o = e->u.op.a; }
        if (!(x->kind == IR_E_NAME && x->u.name.nk == IR_N_LOOPVAR && x->u.name.index == v->slot)) return 0;
        if (ex_reads(o, v->slot) || o->type != IR_INT) return 0;
        eq[neq++] = o;
    }
    if (!neq) return 0;
    /* the lets and the points' array in a block of their own (a sibling loop declares the same) */
    int wrap = nlet > 0 || !ninv;
    if (wrap) { ind(b, in); strbuf_printf(b, "{\n"); in += 4; }
    for (int i = 0; i < nlet; i++) ex_emit_stmt(m, b, body, i, in);
    const ex_em *outer = m;
    ex_em in_loop;
    ex_rows_open(outer, &in_loop, b, in, v->var, body, nlet, NULL);
    m = &in_loop;
    char tv[64];
    const char *y = nm(v->var, tv);
    strbuf pre = {0}, lo = {0}, hi = {0}, c = {0};
    ex_expr(m, &lo, &pre, in, v->lo);
    ex_expr(m, &hi, &pre, in, v->hi);
    for (int i = 0; i < ninv; i++) {
        if (i) strbuf_printf(&c, " || ");
        ex_expr(m, &c, &pre, in, inv[i]);
    }
    if (pre.s) strbuf_printf(b, "%s", pre.s);
    ind(b, in);
    char *ctext = ir_print_expr(s->u.if_.cond);
    strbuf_printf(b, "/* %s: the loop over %s split at the points where the test holds */\n", ctext ? ctext : "", y);
    free(ctext);
    int k = in;
    if (ninv) {
        ind(b, in);
        strbuf_printf(b, "if (%s) {\n", c.s);
        ind(b, in + 4);
        strbuf_printf(b, "for (int64_t %s = %s, %s_end = %s; %s <= %s_end; %s++) {\n", y, lo.s, y, hi.s, y, y, y);
        ex_block(m, b, s->u.if_.then_blk, in + 8);
        ind(b, in + 4);
        strbuf_printf(b, "}\n");
        ind(b, in);
        strbuf_printf(b, "} else {\n");
        k = in + 4;
    }
    ind(b, k);
    strbuf_printf(b, "const int64_t %s_at[%d] = {", y, neq);
    for (int i = 0; i < neq; i++) {
        strbuf e = {0};
        ex_expr(m, &e, &pre, k, eq[i]);
        strbuf_printf(b, "%s%s", i ? ", " : "", e.s);
        strbuf_free(&e);
    }
    strbuf_printf(b, "};\n");
    ind(b, k);
    strbuf_printf(b, "for (int64_t %s = %s, %s_end = %s; %s <= %s_end;) {\n", y, lo.s, y, hi.s, y, y);
    ind(b, k + 4);
    strbuf_printf(b, "int64_t %s_stop = %s_end + 1;   /* the next point where the test holds */\n", y, y);
    ind(b, k + 4);
    strbuf_printf(b, "for (int rt_i = 0; rt_i < %d; rt_i++)\n", neq);
    ind(b, k + 8);
    strbuf_printf(b, "if (%s_at[rt_i] >= %s && %s_at[rt_i] < %s_stop) %s_stop = %s_at[rt_i];\n", y, y, y, y, y, y);
    ind(b, k + 4);
    strbuf_printf(b, "for (; %s < %s_stop; %s++) {\n", y, y, y);
    ex_block(m, b, s->u.if_.else_blk, k + 8);
    ind(b, k + 4);
    strbuf_printf(b, "}\n");
    ind(b, k + 4);
    strbuf_printf(b, "if (%s <= %s_end) {\n", y, y);
    ex_block(m, b, s->u.if_.then_blk, k + 8);
    ind(b, k + 8);
    strbuf_printf(b, "%s++;\n", y);
    ind(b, k + 4);
    strbuf_printf(b, "}\n");
    ind(b, k);
    strbuf_printf(b, "}\n");
    if (ninv) { ind(b, in); strbuf_printf(b, "}\n"); }
    if (wrap) { ind(b, in - 4); strbuf_printf(b, "}\n"); }
    strbuf_free(&pre);
    strbuf_free(&lo);
    strbuf_free(&hi);
    strbuf_free(&c);
    ex_rows_close(&in_loop, outer);
    return 1;
}

/* The innermost loop over v around body, its invariant lets before it. */
static void ex_inner_loop(const ex_em *m, strbuf *b, const ir_loopvar *v, const ir_block *body, int k)
{
    ex_em in_loop;
    int nlet = ex_invariant_lets(m->pl, v, body);
    /* the loop's invariant lets first, in a block of their own (a sibling loop may declare the
     * same names: 2mm's i = p before each of its j loops) */
    if (nlet) { ind(b, k); strbuf_printf(b, "{\n"); k += 4; }
    for (int j = 0; j < nlet; j++) ex_emit_stmt(m, b, body, j, k);
    ex_rows_open(m, &in_loop, b, k, v->var, body, nlet, NULL);
    ex_for_open(&in_loop, b, v, k);
    for (int j = nlet; j < body->n; j++) ex_emit_stmt(&in_loop, b, body, j, k + 4);
    ind(b, k);
    strbuf_printf(b, "}\n");
    ex_rows_close(&in_loop, m);
    if (nlet) { ind(b, k - 4); strbuf_printf(b, "}\n"); }
}

/* The innermost loop, twice when its sends' conditions do not change in it (export_guards.c):
 * with the sends where they hold, without them where they fail. */
void ex_emit_inner_loop(const ex_em *m, strbuf *b, const ir_loopvar *v, const ir_block *body, int k)
{
    strbuf c = {0}, pre = {0};
    if (!ex_send_guard(m, v, body, &c, &pre, k)) {
        strbuf_free(&c);
        strbuf_free(&pre);
        ex_inner_loop(m, b, v, body, k);
        return;
    }
    char t[64];
    if (pre.s) strbuf_printf(b, "%s", pre.s);
    ind(b, k);
    strbuf_printf(b, "if (%s) {   /* the sends' conditions do not change in the loop over %s */\n", c.s, nm(v->var, t));
    ex_inner_loop(m, b, v, body, k + 4);
    ind(b, k);
    strbuf_printf(b, "} else {   /* no send of the loop runs */\n");
    ex_em quiet = *m;
    quiet.nosends = 1;
    ex_inner_loop(&quiet, b, v, body, k + 4);
    ind(b, k);
    strbuf_printf(b, "}\n");
    strbuf_free(&c);
    strbuf_free(&pre);
}

/* Loops vars[from..] around body (the innermost split at its test where it has that shape). */
static void ex_loops(const ex_em *m, strbuf *b, const ir_loopvar *vars, int nvars, int from,
                     const ir_block *body, int in)
{
    if (nvars > from && m->mode != EX_INSPECT) {
        int i;
        for (i = from; i < nvars - 1; i++) ex_for_open(m, b, &vars[i], in + 4 * (i - from));
        if (!ex_split_loop(m, b, &vars[nvars - 1], body, in + 4 * (nvars - 1 - from)))
            if (!ex_point_loop(m, b, &vars[nvars - 1], body, in + 4 * (nvars - 1 - from)))
                ex_emit_inner_loop(m, b, &vars[nvars - 1], body, in + 4 * (nvars - 1 - from));
        for (i = nvars - 2; i >= from; i--) { ind(b, in + 4 * (i - from)); strbuf_printf(b, "}\n"); }
        return;
    }
    for (int i = from; i < nvars; i++) ex_for_open(m, b, &vars[i], in + 4 * (i - from));
    ex_block(m, b, body, in + 4 * (nvars - from));
    for (int i = nvars - 1; i >= from; i--) { ind(b, in + 4 * (i - from)); strbuf_printf(b, "}\n"); }
}

/* The pattern inspector at an `if` whose conjuncts on t alone select a phase (export.c): those
 * hold (the phase's exchange tests them each step), the others are tested; its else holds no
 * send.  0 when the condition has no conjunct on t alone. */
static int ex_phase_if(const ex_em *m, strbuf *b, const ir_stmt *s, int in)
{
    const ir_expr *cj[EX_PHASE_CONDS + 1];
    int tslot = m->pl->tslot, nc = ex_conjuncts(s->u.if_.cond, cj, 0, EX_PHASE_CONDS + 1), nt = 0;
    if (tslot < 0 || nc > EX_PHASE_CONDS) return 0;
    strbuf pre = {0}, c = {0};
    for (int i = 0; i < nc; i++) {
        if (ex_time_only(cj[i], tslot) && ex_reads(cj[i], tslot)) { nt++; continue; }
        if (c.n) strbuf_printf(&c, " && ");
        ex_expr(m, &c, &pre, in, cj[i]);
    }
    if (nt) {
        if (pre.s) strbuf_printf(b, "%s", pre.s);
        ind(b, in);
        if (c.n) strbuf_printf(b, "if (%s) {   /* the phase's condition on %s holds */\n", c.s, m->pl->nest->u.for_.vars[0].var);
        else strbuf_printf(b, "{   /* the phase's condition on %s holds */\n", m->pl->nest->u.for_.vars[0].var);
        ex_block(m, b, s->u.if_.then_blk, in + 4);
        ind(b, in);
        strbuf_printf(b, "}\n");
    }
    strbuf_free(&pre);
    strbuf_free(&c);
    return nt > 0;
}

void ex_emit_stmt(const ex_em *m, strbuf *b, const ir_block *blk, int k, int in)
{
    const ir_stmt *s = blk->stmts[k];
    char t[64];
    switch (s->kind) {
    case IR_S_ASSIGN: ex_assign(m, b, s, in); return;
    case IR_S_SEND: ex_send(m, b, s, in); return;
    case IR_S_LET: {
        strbuf pre = {0}, v = {0};
        ex_expr(m, &v, &pre, in, s->u.let.value);
        if (pre.s) strbuf_printf(b, "%s", pre.s);
        const char *x = nm(s->u.let.var, t);
        ind(b, in);
        strbuf_printf(b, "const %s %s = %s;\n", s->u.let.value->type == IR_DOUBLE ? "double" : "int64_t", x, v.s);
        if (!ex_block_uses(m, blk, k + 1, s->u.let.var)) { ind(b, in); strbuf_printf(b, "(void)%s;\n", x); }
        strbuf_free(&pre);
        strbuf_free(&v);
        return;
    }
    case IR_S_IF: {
        strbuf pre = {0}, c = {0};
        if (m->mode == EX_INSPECT && ex_phase_if(m, b, s, in)) return;
        ex_expr(m, &c, &pre, in, s->u.if_.cond);
        if (pre.s) strbuf_printf(b, "%s", pre.s);
        ind(b, in);
        strbuf_printf(b, "if (%s) {\n", c.s);
        ex_block(m, b, s->u.if_.then_blk, in + 4);
        if (s->u.if_.else_blk) {
            ind(b, in);
            strbuf_printf(b, "} else {\n");
            ex_block(m, b, s->u.if_.else_blk, in + 4);
        }
        ind(b, in);
        strbuf_printf(b, "}\n");
        strbuf_free(&pre);
        strbuf_free(&c);
        return;
    }
    case IR_S_FOR:
        ex_loops(m, b, s->u.for_.vars, s->u.for_.nvars, 0, s->u.for_.body, in);
        ex_overlap_after(m, b, blk, k, in);
        return;
    case IR_S_COLL:
        if (m->mode != EX_INSPECT && m->mode != EX_MARK) ex_coll(m, b, s, in);
        return;
    case IR_S_RECV:
        if (m->mode == EX_STEP) ex_overlap_recv(m, b, in);
        return;
    }
}

static void ex_block(const ex_em *m, strbuf *b, const ir_block *blk, int in)
{
    for (int i = 0; i < blk->n; i++) ex_emit_stmt(m, b, blk, i, in);
}

/* ---- declarations ----------------------------------------------------------------------------- */

static const char *ex_helpers =
    "/* Integer semantics of the APM language: intsem.h, the same source as the simulator's.  An\n"
    " * integer overflow, a division by zero or isqrt of a negative number stops the program with a\n"
    " * message naming the statement (int_where). */\n"
    "#include \"intsem.h\"\n"
    "static const char *int_where = \"an index computation\";\n"
    "static void int_fail(int st)\n"
    "{\n"
    "    fprintf(stderr, \"runtime error: %s (%s)\\n\", intsem_message(st), int_where);\n"
    "    exit(1);\n"
    "}\n"
    "#define INT_CHECKED2(name, fn) \\\n"
    "    static inline int64_t name(int64_t a, int64_t b) { int64_t r; int st = fn(a, b, &r); if (INTSEM_UNLIKELY(st)) int_fail(st); return r; }\n"
    "#define INT_CHECKED1(name, fn) \\\n"
    "    static inline int64_t name(int64_t a) { int64_t r; int st = fn(a, &r); if (INTSEM_UNLIKELY(st)) int_fail(st); return r; }\n"
    "INT_CHECKED2(iadd, intsem_add) INT_CHECKED2(isub, intsem_sub) INT_CHECKED2(imul, intsem_mul)\n"
    "INT_CHECKED2(ifloordiv, intsem_floordiv) INT_CHECKED2(iceildiv, intsem_ceildiv) INT_CHECKED2(imod, intsem_floormod)\n"
    "INT_CHECKED1(ineg, intsem_neg) INT_CHECKED1(iabs, intsem_abs) INT_CHECKED1(isqrt_, intsem_isqrt)\n"
    "static inline int64_t imin(int64_t a, int64_t b) { return intsem_min(a, b); }\n"
    "static inline int64_t imax(int64_t a, int64_t b) { return intsem_max(a, b); }\n"
    "static inline double dmin(double a, double b) { return b < a ? b : a; }\n"
    "static inline double dmax(double a, double b) { return b > a ? b : a; }\n"
    "/* The least of at[0 .. n-1] at or above from, INT64_MAX when none: the next value of a loop\n"
    " * whose body runs only at a few points. */\n"
    "static inline int64_t rt_point_from(const int64_t *at, int n, int64_t from)\n"
    "{\n"
    "    int64_t r = INT64_MAX;\n"
    "    for (int k = 0; k < n; k++) if (at[k] >= from && at[k] < r) r = at[k];\n"
    "    return r;\n"
    "}\n\n";

/* The bounds of dimension d of array a: global for sequential and replicated, the dist's
 * local bounds (expressions of its processor variable) otherwise. */
static const ir_expr *ex_bound_expr(const ex_array *a, int d, int hi)
{
    if (a->dist && a->dist->u.dist.dk == IR_DIST_LOCAL) return hi ? a->dist->u.dist.hi[d] : a->dist->u.dist.lo[d];
    return hi ? a->decl->u.array.hi[d] : a->decl->u.array.lo[d];
}

static void ex_bound(const ex_em *m, strbuf *b, strbuf *pre, const ex_array *a, int d, int hi)
{
    ex_expr(m, b, pre, 4, ex_bound_expr(a, d, hi));
}

static void ex_offsetexpr(const ex_em *m, strbuf *b, const ex_array *a, int d)
{
    strbuf pre = {0};
    if (a->dist && a->dist->u.dist.dk == IR_DIST_LOCAL && a->dist->u.dist.offset)
        ex_expr(m, b, &pre, 4, a->dist->u.dist.offset[d]);
    else
        strbuf_printf(b, "0");
    strbuf_free(&pre);
}

/* How dimension d of an array's local memory maps its indices (man/polyapm-lang.5, dist): */
typedef enum ex_dim_map {
    EX_MAP_PLAIN,      /* every index of lo .. hi; global = access index + offset */
    EX_MAP_LATTICE,    /* `step s block b`, absolute: accesses name global indices, only the
                          lattice lo + k*s + r (0 <= r < b) is held, stored without gaps */
    EX_MAP_COMPRESSED, /* `step s block b` with offset: access indices are consecutive local
                          ones l, global = offset + floor(l / b) * s + l mod b */
} ex_dim_map;

static ex_dim_map ex_dim_kind(const ex_array *a, int d)
{
    const ir_decl *dd = a->dist;
    if (!dd || dd->u.dist.dk != IR_DIST_LOCAL || a->pieced || d == a->fold || !dd->u.dist.step || !dd->u.dist.step[d])
        return EX_MAP_PLAIN;
    return dd->u.dist.offset ? EX_MAP_COMPRESSED : EX_MAP_LATTICE;
}

/* `static inline int64_t X_<what><d>(int64_t pv) { return e; }` for a dist expression. */
static void ex_dist_fn(const ex_plan *pl, strbuf *b, const ex_array *a, const char *pv, const char *what, int d,
                       const ir_expr *e)
{
    ex_em m = {pl, EX_SEQ, 0, NULL, NULL, 0, NULL, 0, 0};
    int tmp = 0;
    m.tmp = &tmp;
    strbuf v = {0}, pre = {0};
    if (e) ex_expr(&m, &v, &pre, 4, e);
    else strbuf_printf(&v, "1");
    strbuf_printf(b, "static inline int64_t %s_%s%d(int64_t %s)\n{\n    (void)%s;\n%s    return %s;\n}\n", a->cname, what,
                  d, pv, pv, pre.s ? pre.s : "", v.s);
    strbuf_free(&v);
    strbuf_free(&pre);
}

/* The one index mapping of a dimension of a local memory, as C functions of the processor pv
 * (the program's statements, the inits, the output gather and the messages all go through it):
 *   X_slot<d>(pv, i)   the storage index of access index i (what a statement's subscript names)
 *   X_glob<d>(pv, r)   the global index of storage index r (0 <= r < X_ext(pv, d))
 *   X_store<d>(pv, g)  the storage index of global index g, -1 when pv does not hold it
 * The simulator's sim_mem_slot / sim_mem_global compute the same. */
static void ex_array_map(strbuf *b, const ex_array *a, const char *pv, int d)
{
    const char *X = a->cname;
    ex_dim_map k = ex_dim_kind(a, d);
    strbuf_printf(b, "static inline int64_t %s_slot%d(int64_t %s, int64_t i)\n{\n    (void)%s;\n", X, d, pv, pv);
    if (k == EX_MAP_LATTICE)
        strbuf_printf(b, "    const int64_t q = i - %s_lo%d(%s), s = %s_step%d(%s), b = %s_block%d(%s);\n"
                         "    return ifloordiv(q, s) * b + imod(q, s);\n}\n", X, d, pv, X, d, pv, X, d, pv);
    else
        strbuf_printf(b, "    return i - %s_lo%d(%s);\n}\n", X, d, pv);
    strbuf_printf(b, "static inline int64_t %s_glob%d(int64_t %s, int64_t r)\n{\n", X, d, pv);
    if (k == EX_MAP_LATTICE)
        strbuf_printf(b, "    const int64_t s = %s_step%d(%s), b = %s_block%d(%s);\n"
                         "    return %s_lo%d(%s) + ifloordiv(r, b) * s + imod(r, b);\n}\n", X, d, pv, X, d, pv, X, d, pv);
    else if (k == EX_MAP_COMPRESSED)
        strbuf_printf(b, "    const int64_t l = %s_lo%d(%s) + r, s = %s_step%d(%s), b = %s_block%d(%s);\n"
                         "    return %s_off%d(%s) + ifloordiv(l, b) * s + imod(l, b);\n}\n", X, d, pv, X, d, pv, X, d, pv,
                      X, d, pv);
    else
        strbuf_printf(b, "    return %s_lo%d(%s) + r + %s_off%d(%s);\n}\n", X, d, pv, X, d, pv);
    strbuf_printf(b, "static inline int64_t %s_store%d(int64_t %s, int64_t g)\n{\n", X, d, pv);
    if (k == EX_MAP_LATTICE)
        strbuf_printf(b, "    const int64_t q = g - %s_lo%d(%s), s = %s_step%d(%s), b = %s_block%d(%s);\n"
                         "    const int64_t r = q < 0 || imod(q, s) >= b ? -1 : ifloordiv(q, s) * b + imod(q, s);\n",
                      X, d, pv, X, d, pv, X, d, pv);
    else if (k == EX_MAP_COMPRESSED)
        strbuf_printf(b, "    const int64_t q = g - %s_off%d(%s), s = %s_step%d(%s), b = %s_block%d(%s);\n"
                         "    const int64_t r = imod(q, s) >= b ? -1 : ifloordiv(q, s) * b + imod(q, s) - %s_lo%d(%s);\n",
                      X, d, pv, X, d, pv, X, d, pv, X, d, pv);
    else
        strbuf_printf(b, "    const int64_t r = g - %s_off%d(%s) - %s_lo%d(%s);\n", X, d, pv, X, d, pv);
    strbuf_printf(b, "    return r >= 0 && r < %s_ext(%s, %d) ? r : -1;\n}\n", X, pv, d);
}

/* Whether dimension d of a's local memory has the same extent on every processor, one the
 * compiler folds: its bounds name parameters only (or it is a folded time plane). */
static int ex_dim_fixed(const ex_array *a, int d)
{
    if (d == a->fold) return 1;
    if (ex_dim_kind(a, d) != EX_MAP_PLAIN) return 0;
    return ex_time_only(ex_bound_expr(a, d, 0), -1) && ex_time_only(ex_bound_expr(a, d, 1), -1);
}

/* A distributed array's extents, per processor and dimension: computed once by init_arrays
 * (X_ext_formula), looked up by X_ext (a processor of the program: plo .. plo+nprocs-1), so that
 * the index function X_at of an inner loop is a multiply-add, not the bound formulas (min, max,
 * floor division) again per element.  A dimension whose extent is the same on every processor
 * (ex_dim_fixed) is the formula itself, a constant: a row's length known to the compiler lets it
 * vectorise across rows (a j loop around a k reduction reading B[k][j], as gemm's and 2mm's). */
static void ex_ext_table(const ex_plan *pl, strbuf *b, strbuf *fills, const ex_array *a, const char *pv)
{
    const char *X = a->cname;
    int nd = a->decl->u.array.ndims, nfixed = 0;
    strbuf fixed = {0};
    for (int d = 0; d < nd; d++)
        if (ex_dim_fixed(a, d)) strbuf_printf(&fixed, "%sd == %d", nfixed++ ? " || " : "", d);
    if (nfixed == nd) {
        strbuf_printf(b, "static inline int64_t %s_ext(int64_t %s, int d) { return %s_ext_formula(%s, d); }"
                         "   /* the same on every processor */\n", X, pv, X, pv);
        strbuf_free(&fixed);
        return;
    }
    strbuf_printf(b, "static int64_t %s_ext_tab[%" PRId64 "][%d];   /* init_arrays fills it */\n", X, pl->nprocs,
                  nd ? nd : 1);
    if (nfixed)
        strbuf_printf(b, "static inline int64_t %s_ext(int64_t %s, int d)\n{\n    if (%s) return %s_ext_formula(%s, d);"
                         "   /* the same on every processor */\n    return %s_ext_tab[%s - %" PRId64 "][d];\n}\n",
                      X, pv, fixed.s, X, pv, X, pv, pl->plo);
    else
        strbuf_printf(b, "static inline int64_t %s_ext(int64_t %s, int d) { return %s_ext_tab[%s - %" PRId64 "][d]; }\n",
                      X, pv, X, pv, pl->plo);
    strbuf_free(&fixed);
    strbuf_printf(fills, "    for (int64_t p = 0; p < %" PRId64 "; p++)\n        for (int d = 0; d < %d; d++) "
                         "%s_ext_tab[p][d] = %s_ext_formula(p + %" PRId64 ", d);\n", pl->nprocs, nd, X, X, pl->plo);
}

static void ex_array_decl(const ex_plan *pl, strbuf *b, strbuf *fills, const ex_array *a)
{
    if (a->pieced) { ex_piece_decl(pl, b, fills, a); return; }
    char pv[64] = "rp";
    if (a->dist && a->dist->u.dist.dk == IR_DIST_LOCAL) ex_cname(pv, sizeof pv, a->dist->u.dist.procvar);
    ex_em m = {pl, EX_SEQ, 0, NULL, NULL, 0, NULL, 0, 0};
    int tmp = 0;
    m.tmp = &tmp;
    int nd = a->decl->u.array.ndims;
    const char *ty = a->decl->u.array.elem == IR_DOUBLE ? "double" : "int64_t";
    strbuf_printf(b, "/* %s: ", a->decl->u.array.name);
    if (!pl->mpi) strbuf_printf(b, "the whole array");
    else if (!a->dist) strbuf_printf(b, "the whole array on every processor (syncomm: each writes its own rows)");
    else if (a->dist->u.dist.dk == IR_DIST_REPLICATE) strbuf_printf(b, "replicated, every processor holds all of it");
    else strbuf_printf(b, "the part of processor %s (its dist declaration)", pv);
    if (a->fold >= 0)
        strbuf_printf(b, "; only the %" PRId64 " live planes of dimension %d (index modulo %" PRId64 ")", a->fold_w,
                      a->fold, a->fold_w);
    strbuf_printf(b, " */\nstatic %s *%s;\n", ty, a->cname);
    if (a->mark) strbuf_printf(b, "static rt_mark *%s_mine;   /* the step that computed it here, 0: none */\n", a->cname);
    /* bounds */
    strbuf tabs = {0};
    size_t mark = b->n;
    const char *args = pl->mpi ? "int64_t " : "void";
    for (int d = 0; d < nd; d++) {
        for (int hi = 0; hi < 2; hi++) {
            strbuf_printf(b, "static inline int64_t %s_%s%d(%s%s) { ", a->cname, hi ? "hi" : "lo", d, args,
                          pl->mpi ? pv : "");
            strbuf e = {0}, pre = {0};
            ex_bound(&m, &e, &pre, a, d, hi);
            if (pre.s && pl->mpi) {
                /* a bound with a reduction (min/max over the blocks of a cyclic tiling): computed
                 * once per processor by init_arrays, looked up afterwards */
                strbuf_printf(b, "return %s_%s%d_tab[%s - %" PRId64 "]; }\n", a->cname, hi ? "hi" : "lo", d, pv, pl->plo);
                strbuf_printf(&tabs, "static int64_t %s_%s%d_tab[%" PRId64 "];\n", a->cname, hi ? "hi" : "lo", d,
                              pl->nprocs);
                strbuf_printf(&tabs, "static int64_t %s_%s%d_formula(int64_t %s)\n{\n%s    return %s;\n}\n", a->cname,
                              hi ? "hi" : "lo", d, pv, pre.s, e.s);
                strbuf_printf(fills, "    for (int64_t p = %" PRId64 "; p < %" PRId64 "; p++) %s_%s%d_tab[p - %" PRId64 "] = "
                              "%s_%s%d_formula(p);\n", pl->plo, pl->plo + pl->nprocs, a->cname, hi ? "hi" : "lo", d,
                              pl->plo, a->cname, hi ? "hi" : "lo", d);
            } else if (pre.s) {
                strbuf_printf(b, "\n%s    return %s;\n}\n", pre.s, e.s);
            } else {
                if (pl->mpi) strbuf_printf(b, "(void)%s; ", pv);
                strbuf_printf(b, "return %s; }\n", e.s);
            }
            strbuf_free(&e);
            strbuf_free(&pre);
        }
        if (pl->mpi) {
            strbuf_printf(b, "static inline int64_t %s_off%d(int64_t %s) { (void)%s; return ", a->cname, d, pv, pv);
            ex_offsetexpr(&m, b, a, d);
            strbuf_printf(b, "; }\n");
            if (ex_dim_kind(a, d) != EX_MAP_PLAIN) {   /* strided: every step-th index, block at a time */
                ex_dist_fn(pl, b, a, pv, "step", d, a->dist->u.dist.step[d]);
                ex_dist_fn(pl, b, a, pv, "block", d, a->dist->u.dist.block ? a->dist->u.dist.block[d] : NULL);
            }
        }
    }
    if (tabs.s) {   /* the tables and formulas go before the lookups */
        char *rest = xstrdup(b->s + mark);
        b->n = mark;
        b->s[mark] = '\0';
        strbuf_printf(b, "%s%s", tabs.s, rest);
        free(rest);
    }
    strbuf_free(&tabs);
    /* extent of a dimension and the index function */
    const char *w = pl->mpi ? pv : "";
    const char *wc = pl->mpi ? ", " : "";
    strbuf_printf(b, "static inline int64_t %s_ext%s(%s%s%sint d)\n{\n", a->cname, pl->mpi ? "_formula" : "",
                  pl->mpi ? "int64_t " : "", w, wc);
    if (pl->mpi) strbuf_printf(b, "    (void)%s;\n", pv);   /* a scalar's bounds do not use it */
    strbuf_printf(b, "    int64_t e = 0;\n    switch (d) {\n");
    for (int d = 0; d < nd; d++) {
        if (d == a->fold) strbuf_printf(b, "    case %d: return %" PRId64 ";\n", d, a->fold_w);
        else if (ex_dim_kind(a, d) == EX_MAP_LATTICE)   /* the lattice points of lo .. hi */
            strbuf_printf(b, "    case %d: {\n        const int64_t q = %s_hi%d(%s) - %s_lo%d(%s), s = %s_step%d(%s), b = %s_block%d(%s);\n"
                             "        e = q < 0 ? 0 : ifloordiv(q, s) * b + imin(imod(q, s) + 1, b);\n        break;\n    }\n",
                          d, a->cname, d, w, a->cname, d, w, a->cname, d, w, a->cname, d, w);
        else strbuf_printf(b, "    case %d: e = %s_hi%d(%s) - %s_lo%d(%s) + 1; break;\n", d, a->cname, d, w, a->cname, d, w);
    }
    strbuf_printf(b, "    }\n    return e > 0 ? e : 0;\n}\n");
    if (pl->mpi) ex_ext_table(pl, b, fills, a, pv);
    strbuf_printf(b, "static inline int64_t %s_size(%s%s)\n{\n", a->cname, pl->mpi ? "int64_t " : "void", w);
    if (pl->mpi) strbuf_printf(b, "    (void)%s;\n", pv);
    strbuf_printf(b, "    return 1");
    for (int d = 0; d < nd; d++) strbuf_printf(b, " * %s_ext(%s%s%d)", a->cname, w, wc, d);
    strbuf_printf(b, ";\n}\n");
    for (int d = 0; d < nd; d++)
        if (d != a->fold && pl->mpi) ex_array_map(b, a, pv, d);
    strbuf_printf(b, "static inline int64_t %s_at(", a->cname);
    int first = 1;
    if (pl->mpi) { strbuf_printf(b, "int64_t %s", pv); first = 0; }
    for (int d = 0; d < nd; d++) { strbuf_printf(b, "%sint64_t i%d", first ? "" : ", ", d); first = 0; }
    if (first) strbuf_printf(b, "void");
    strbuf_printf(b, ")\n{\n");
    if (pl->mpi) strbuf_printf(b, "    (void)%s;\n", pv);
    strbuf_printf(b, "    int64_t o = 0;\n");
    for (int d = 0; d < nd; d++) {
        if (d == a->fold)
            strbuf_printf(b, "    o = o * %" PRId64 " + imod(i%d, %" PRId64 ");\n", a->fold_w, d, a->fold_w);
        else if (pl->mpi)
            strbuf_printf(b, "    o = o * %s_ext(%s, %d) + %s_slot%d(%s, i%d);\n", a->cname, w, d, a->cname, d, w, d);
        else
            strbuf_printf(b, "    o = o * %s_ext(%d) + (i%d - %s_lo%d());\n", a->cname, d, d, a->cname, d);
    }
    strbuf_printf(b, "    return o;\n}\n");
    if (pl->mpi) {   /* the element of storage indices r0.. (the inits and the output gather) */
        strbuf_printf(b, "static inline int64_t %s_stored(int64_t %s", a->cname, pv);
        for (int d = 0; d < nd; d++) strbuf_printf(b, ", int64_t r%d", d);
        strbuf_printf(b, ")\n{\n    (void)%s;\n    int64_t o = 0;\n", pv);
        for (int d = 0; d < nd; d++) strbuf_printf(b, "    o = o * %s_ext(%s, %d) + r%d;\n", a->cname, pv, d, d);
        strbuf_printf(b, "    return o;\n}\n");
    }
    strbuf_printf(b, "\n");
}

/* ---- init, output --------------------------------------------------------------------------- */

/* In a loop over a pieced array's last range: skip the indices off the piece's lattice. */
static void piece_skip(strbuf *b, const ex_array *a, const char *j, char names[][64], int in)
{
    strbuf held = {0};
    ex_piece_held(&held, a, j, names);
    ind(b, in);
    strbuf_printf(b, "if (!%s) continue;\n", held.s);
    strbuf_free(&held);
}

/* One dimension d of a box over this processor's local memory (one box, not pieced), through the
 * dimension's index mapping (ex_array_map): a dimension bound by name iterates over the storage
 * indices whose global index lies in the array bounds lo .. hi (a plain dimension over its
 * global range clipped to them), a fixed one is tested.  names[d] gets the C name of the global
 * index, st[d] the storage index (folded time planes: the plane's).  Opens one block. */
static void ex_box_dim_local(const ex_em *m, strbuf *b, const ex_array *a, int d, const ir_expr *x, const char *lo,
                             const char *hi, char names[][64], char st[][96], int in)
{
    const char *X = a->cname, *me = m->me;
    int named = !x || (x->kind == IR_E_NAME && x->u.name.nk == IR_N_INITVAR);
    if (x && named) nm(x->u.name.id, names[d]);
    else snprintf(names[d], 64, "g%d", d);
    const char *g = names[d];
    ind(b, in);
    if (!named) {
        strbuf v = {0}, pre = {0};
        ex_expr(m, &v, &pre, in, x);
        if (d == a->fold) {
            strbuf_printf(b, "{   /* the fixed time plane */\n");
            snprintf(st[d], 96, "imod(%s, %" PRId64 ")", g, a->fold_w);
        } else {
            snprintf(st[d], 96, "rt_r%d", d);
            /* a bound that is the index itself is no test (and -Werror rejects x <= x) */
            strbuf_printf(b, "if (%s_store%d(%s, %s) >= 0", X, d, me, v.s);
            if (strcmp(v.s, lo)) strbuf_printf(b, " && %s >= %s", v.s, lo);
            if (strcmp(v.s, hi)) strbuf_printf(b, " && %s <= %s", v.s, hi);
            strbuf_printf(b, ") {   /* the fixed index, held here */\n");
        }
        ind(b, in + 4);
        strbuf_printf(b, "const int64_t %s = %s;\n", g, v.s);
        if (d != a->fold) {
            ind(b, in + 4);
            strbuf_printf(b, "const int64_t rt_r%d = %s_store%d(%s, %s);\n", d, X, d, me, g);
        }
        strbuf_free(&v);
        strbuf_free(&pre);
        return;
    }
    if (d == a->fold) {
        strbuf_printf(b, "for (int64_t %s = %s, %s_end = %s; %s <= %s_end; %s++) {\n", g, lo, g, hi, g, g, g);
        snprintf(st[d], 96, "imod(%s, %" PRId64 ")", g, a->fold_w);
    } else if (ex_dim_kind(a, d) == EX_MAP_PLAIN) {
        strbuf_printf(b, "for (int64_t %s = imax(%s, %s_glob%d(%s, 0)), %s_end = imin(%s, %s_glob%d(%s, %s_ext(%s, %d) - 1)); "
                         "%s <= %s_end; %s++) {\n", g, lo, X, d, me, g, hi, X, d, me, X, me, d, g, g, g);
        snprintf(st[d], 96, "%s - %s_glob%d(%s, 0)", g, X, d, me);
    } else {   /* strided: the storage indices, each one's global index */
        strbuf_printf(b, "for (int64_t rt_r%d = 0, rt_r%d_end = %s_ext(%s, %d); rt_r%d < rt_r%d_end; rt_r%d++) {\n", d, d, X,
                      me, d, d, d, d);
        ind(b, in + 4);
        strbuf_printf(b, "const int64_t %s = %s_glob%d(%s, rt_r%d);\n", g, X, d, me, d);
        ind(b, in + 4);
        strbuf_printf(b, "if (%s < %s || %s > %s) continue;\n", g, lo, g, hi);
        snprintf(st[d], 96, "rt_r%d", d);
    }
}

/* Loops over global indices of an init or output box: dims bound by name iterate over the array
 * bounds (within the local part at syndm: ex_box_dim_local, which fills st with the storage
 * indices), fixed dims are tested. */
/* A box's dimension d clipped to lo .. hi (C expressions): the checksum's slab of rows. */
typedef struct ex_clip { int d; const char *lo, *hi; } ex_clip;

/* The bounds of dimension d of a box as C, within the clip when it names d. */
static void ex_box_bounds(const ex_em *m, const ex_array *a, int d, const ex_clip *clip, int in, strbuf *lo, strbuf *hi)
{
    strbuf pre = {0}, l = {0}, h = {0};
    ex_expr(m, &l, &pre, in, a->decl->u.array.lo[d]);
    ex_expr(m, &h, &pre, in, a->decl->u.array.hi[d]);
    strbuf_free(&pre);
    if (clip && clip->d == d) {
        strbuf_printf(lo, "imax(%s, %s)", l.s, clip->lo);
        strbuf_printf(hi, "imin(%s, %s)", h.s, clip->hi);
    } else {
        strbuf_printf(lo, "%s", l.s);
        strbuf_printf(hi, "%s", h.s);
    }
    strbuf_free(&l);
    strbuf_free(&h);
}

static int ex_box_open_clip(const ex_em *m, strbuf *b, const ex_array *a, ir_expr *const *idx, int nidx,
                            int in, int local, char names[][64], char st[][96], const ex_clip *clip)
{
    int nd = a->decl->u.array.ndims, opened = 0;
    if (local && !a->pieced) {
        for (int d = 0; d < nd; d++) {
            strbuf lo = {0}, hi = {0}, pre = {0};
            ex_box_bounds(m, a, d, clip, in, &lo, &hi);
            ex_box_dim_local(m, b, a, d, d < nidx ? idx[d] : NULL, lo.s, hi.s, names, st, in + 4 * opened++);
            strbuf_free(&lo);
            strbuf_free(&hi);
            strbuf_free(&pre);
        }
        return opened;
    }
    if (local && a->pieced) {   /* every piece of the local part (the storage of each copy) */
        ind(b, in);
        strbuf_printf(b, "for (int rt_pc = 0; rt_pc < %d; rt_pc++) {\n", 1 + a->dist->u.dist.nmore);
        opened++;
    }
    for (int d = 0; d < nd; d++) {
        strbuf lo = {0}, hi = {0}, pre = {0}, lim = {0};
        ex_box_bounds(m, a, d, clip, in, &lo, &hi);
        if (local && a->pieced)
            ex_piece_lim(&lim, a, d, lo.s, hi.s, names);
        else
            strbuf_printf(&lim, "%s, %s", lo.s, hi.s);
        const ir_expr *x = d < nidx ? idx[d] : NULL;
        if (x && x->kind == IR_E_NAME && x->u.name.nk == IR_N_INITVAR) {
            nm(x->u.name.id, names[d]);
            ind(b, in + 4 * opened);
            char *comma = strstr(lim.s, ", imin") ? strstr(lim.s, ", imin") : strrchr(lim.s, ',');
            *comma = '\0';
            strbuf_printf(b, "for (int64_t %s = %s, %s_end = %s; %s <= %s_end; %s++) {\n", names[d], lim.s, names[d],
                          comma + 2, names[d], names[d], names[d]);
            opened++;
            if (local && a->pieced && d == nd - 1) piece_skip(b, a, names[d], names, in + 4 * opened);
        } else if (x) {
            strbuf v = {0};
            ex_expr(m, &v, &pre, in, x);
            snprintf(names[d], 64, "g%d", d);
            ind(b, in + 4 * opened);
            char *comma = strstr(lim.s, ", imin") ? strstr(lim.s, ", imin") : strrchr(lim.s, ',');
            *comma = '\0';
            /* parameters are constants: the test is decided here when it can be */
            int64_t fv, flo, fhi;
            diag_list dd;
            diag_list_init(&dd);
            double r;
            int real = 0, known = !(clip && clip->d == d) && !local && !ir_const_eval(m->pl->p, x, m->pl->pv, &fv, &r, &real, &dd) && !real &&
                                  !ir_const_eval(m->pl->p, a->decl->u.array.lo[d], m->pl->pv, &flo, &r, &real, &dd) &&
                                  !ir_const_eval(m->pl->p, a->decl->u.array.hi[d], m->pl->pv, &fhi, &r, &real, &dd);
            diag_list_free(&dd);
            if (known && fv >= flo && fv <= fhi) strbuf_printf(b, "{   /* the fixed index */\n");
            else if (known) strbuf_printf(b, "if (0) {   /* the fixed index lies outside the array */\n");
            else if (local && d == a->fold) strbuf_printf(b, "{   /* the fixed time plane */\n");
            else if (local && a->pieced && d == nd - 1) {
                strbuf held = {0};
                ex_piece_held(&held, a, v.s, names);
                strbuf_printf(b, "if (%s >= %s && %s <= %s && %s) {   /* the fixed index */\n", v.s, lim.s, v.s, comma + 2, held.s);
                strbuf_free(&held);
            }
            else strbuf_printf(b, "if (%s >= %s && %s <= %s) {   /* the fixed index */\n", v.s, lim.s, v.s, comma + 2);
            ind(b, in + 4 * opened + 4);
            strbuf_printf(b, "const int64_t g%d = %s;\n", d, v.s);
            opened++;
            strbuf_free(&v);
        } else {
            snprintf(names[d], 64, "g%d", d);
            ind(b, in + 4 * opened);
            char *comma = strstr(lim.s, ", imin") ? strstr(lim.s, ", imin") : strrchr(lim.s, ',');
            *comma = '\0';
            strbuf_printf(b, "for (int64_t g%d = %s, g%d_end = %s; g%d <= g%d_end; g%d++) {\n", d, lim.s, d, comma + 2,
                          d, d, d);
            opened++;
            if (local && a->pieced && d == nd - 1) piece_skip(b, a, names[d], names, in + 4 * opened);
        }
        strbuf_free(&lo);
        strbuf_free(&hi);
        strbuf_free(&pre);
        strbuf_free(&lim);
    }
    return opened;
}

static int ex_box_open(const ex_em *m, strbuf *b, const ex_array *a, ir_expr *const *idx, int nidx,
                       int in, int local, char names[][64], char st[][96])
{
    return ex_box_open_clip(m, b, a, idx, nidx, in, local, names, st, NULL);
}

static void ex_box_close(strbuf *b, int opened, int in)
{
    for (int i = opened - 1; i >= 0; i--) { ind(b, in + 4 * i); strbuf_printf(b, "}\n"); }
}

/* The element of global indices names[]: a_stored(me, st...) from the storage indices of a box over
 * the local memory (ex_box_dim_local), a_at(names...) in a sequential program. */
static void ex_local_at(const ex_em *m, strbuf *b, const ex_array *a, char names[][64], char st[][96])
{
    int nd = a->decl->u.array.ndims;
    if (m->me && a->pieced) { ex_piece_at(b, a, names); return; }
    strbuf_printf(b, "%s_%s(", a->cname, m->me ? "stored" : "at");
    if (m->me) strbuf_printf(b, "%s%s", m->me, nd ? ", " : "");
    for (int d = 0; d < nd; d++) strbuf_printf(b, "%s%s", m->me ? st[d] : names[d], d + 1 < nd ? ", " : "");
    strbuf_printf(b, ")");
}

static void ex_init_fn(const ex_plan *pl, strbuf *b, const ex_em *m, const char *fills, int late_marks)
{
    const ir_program *p = pl->p;
    strbuf_printf(b, "/* Allocates the arrays (elements without value hold rt_novalue()) and applies the inits%s. */\n"
                     "static void init_arrays(%s)\n{\n",
                  pl->mpi ? " to this processor's part" : "", pl->mpi ? "int64_t me" : "void");
    if (fills) strbuf_printf(b, "%s", fills);
    for (int i = 0; i < p->narrays; i++) {
        const ex_array *a = &pl->arr[i];
        const char *w = pl->mpi ? "me" : "";
        int dbl = a->decl->u.array.elem == IR_DOUBLE;
        strbuf_printf(b, "    %s = %s(%s_size(%s) ? (size_t)%s_size(%s) : 1, sizeof *%s);\n", a->cname,
                      pl->mpi ? "rt_calloc" : "ex_calloc", a->cname, w, a->cname, w, a->cname);
        if (dbl) strbuf_printf(b, "    rt_fill_novalue(%s, (size_t)%s_size(%s));\n", a->cname, a->cname, w);
        if (a->mark && !late_marks)
            strbuf_printf(b, "    %s_mine = rt_calloc(%s_size(%s) ? (size_t)%s_size(%s) : 1, sizeof *%s_mine);\n", a->cname,
                          a->cname, w, a->cname, w, a->cname);
    }
    for (int k = 0; k < p->ndecls; k++) {
        const ir_decl *d = p->decls[k];
        if (d->kind != IR_D_INIT) continue;
        const ex_array *a = &pl->arr[d->u.init.array_index];
        char names[8][64], st[8][96];
        strbuf pre = {0}, v = {0};
        strbuf_printf(b, "    {   /* init %s */\n", a->decl->u.array.name);
        int opened = ex_box_open(m, b, a, d->u.init.idx, d->u.init.nidx, 8, pl->mpi, names, st);
        ex_expr(m, &v, &pre, 8 + 4 * opened, d->u.init.value);
        if (pre.s) strbuf_printf(b, "%s", pre.s);
        ind(b, 8 + 4 * opened);
        strbuf_printf(b, "%s[", a->cname);
        ex_local_at(m, b, a, names, st);
        strbuf_printf(b, "] = %s;\n", v.s);
        ex_box_close(b, opened, 8);
        strbuf_printf(b, "    }\n");
        strbuf_free(&pre);
        strbuf_free(&v);
    }
    strbuf_printf(b, "}\n\n");
}

/* Region size and row-major index of an output declaration (dims after its fixed prefix). */
static void ex_region(const ex_em *m, strbuf *size, strbuf *index, const ex_array *a, int nfix, char names[][64])
{
    int nd = a->decl->u.array.ndims;
    strbuf_printf(size, "(int64_t)1");
    strbuf_printf(index, "0");
    for (int d = nfix; d < nd; d++) {
        strbuf lo = {0}, hi = {0}, pre = {0};
        ex_expr(m, &lo, &pre, 4, a->decl->u.array.lo[d]);
        ex_expr(m, &hi, &pre, 4, a->decl->u.array.hi[d]);
        strbuf_printf(size, " * (%s - %s + 1)", hi.s, lo.s);
        char *old = strbuf_take(index);
        strbuf_printf(index, "(%s) * (%s - %s + 1) + (%s - %s)", old, hi.s, lo.s, names[d], lo.s);
        free(old);
        strbuf_free(&lo);
        strbuf_free(&hi);
        strbuf_free(&pre);
    }
}

/* Rank plo's fill of an output's slab with the inits of the elements nobody computed (later
 * inits win), indices relative to the slab (rt_base). */
static void ex_checksum_inits(const ex_plan *pl, strbuf *b, const ex_em *m, const ir_decl *d, const ex_array *a,
                              int nfix, const ex_clip *clip)
{
    const ir_program *p = pl->p;
    ex_em m0 = *m;
    m0.me = NULL;
    for (int q = 0; q < p->ndecls; q++) {
        const ir_decl *in = p->decls[q];
        if (in->kind != IR_D_INIT || in->u.init.array_index != d->u.output.array_index) continue;
        char inames[8][64], st[8][96];
        strbuf pre = {0}, v = {0}, isz = {0}, iidx = {0}, cond = {0};
        strbuf_printf(b, "                {   /* init %s where nobody computed */\n", a->decl->u.array.name);
        int op2 = ex_box_open_clip(&m0, b, a, in->u.init.idx, in->u.init.nidx, 20, 0, inames, st, clip);
        for (int i = 0; i < nfix; i++) {   /* within the output's fixed prefix */
            strbuf fx = {0};
            ex_expr(&m0, &fx, &pre, 20, d->u.output.idx[i]);
            strbuf_printf(&cond, "%s%s == %s", cond.n ? " && " : "", inames[i], fx.s);
            strbuf_free(&fx);
        }
        ex_region(&m0, &isz, &iidx, a, nfix, inames);
        ex_expr(&m0, &v, &pre, 20 + 4 * op2, in->u.init.value);
        if (pre.s) strbuf_printf(b, "%s", pre.s);
        ind(b, 20 + 4 * op2);
        strbuf_printf(b, "if (%s) { const int64_t rt_k = %s - rt_base; if (!computed[rt_k]) region[rt_k] = %s; }\n",
                      cond.n ? cond.s : "1", iidx.s, v.s);
        ex_box_close(b, op2, 20);
        strbuf_printf(b, "                }\n");
        strbuf_free(&pre);
        strbuf_free(&v);
        strbuf_free(&isz);
        strbuf_free(&iidx);
        strbuf_free(&cond);
    }
}

/* An output of an MPI program gathered on rank plo in slabs of its first free dimension (rows of
 * at most EX_SLAB elements in all), hashed slab by slab: every rank's buffers and rank plo's
 * region are a slab's, never the whole array's.  Each element from the processor that computed
 * it last (its X_mine stamp), else its init value. */
enum { EX_SLAB = 65536 };
static void ex_checksum_gather(const ex_plan *pl, strbuf *b, const ex_em *m, const ir_decl *d, const ex_array *a,
                               int nfix)
{
    int nd = a->decl->u.array.ndims, dbl = a->decl->u.array.elem == IR_DOUBLE, opened;
    char names[8][64] = {{0}}, st[8][96];
    strbuf row = {0}, rindex = {0}, size = {0}, index = {0}, lo = {0}, hi = {0};
    ex_clip clip = {nfix, "rt_c0", "rt_c1"}, *cl = nfix < nd ? &clip : NULL;
    if (cl) {
        ex_region(m, &row, &rindex, a, nfix + 1, names);   /* elements per index of dimension nfix */
        ex_box_bounds(m, a, nfix, NULL, 8, &lo, &hi);
    } else {
        strbuf_printf(&row, "1");
        strbuf_printf(&lo, "0");
        strbuf_printf(&hi, "0");
    }
    strbuf_printf(b, "        const int64_t rt_row = %s, rt_rows = rt_row < %d ? %d / rt_row : 1;   /* a slab's rows */\n",
                  row.s, EX_SLAB, EX_SLAB);
    strbuf_printf(b, "        double *region = NULL;\n        unsigned char *computed = NULL;\n");
    strbuf_printf(b, "        if (me == %" PRId64 ") {\n", pl->plo);
    strbuf_printf(b, "            region = rt_malloc((size_t)(rt_rows * rt_row) * sizeof *region);\n");
    strbuf_printf(b, "            computed = rt_malloc((size_t)(rt_rows * rt_row));\n        }\n");
    strbuf_printf(b, "        for (int64_t rt_c0 = %s, rt_cend = %s; rt_c0 <= rt_cend; rt_c0 += rt_rows) {\n", lo.s, hi.s);
    strbuf_printf(b, "            const int64_t rt_c1 = imin(rt_cend, rt_c0 + rt_rows - 1);\n");
    strbuf_printf(b, "            const int64_t rt_base = (rt_c0 - %s) * rt_row, region_size = (rt_c1 - rt_c0 + 1) * rt_row;\n",
                  lo.s);
    if (!cl) strbuf_printf(b, "            (void)rt_c1;\n");
    strbuf_printf(b, "            if (me == %" PRId64 ") rt_fill_novalue(region, (size_t)region_size);\n", pl->plo);
    strbuf_printf(b, "            rt_gather *rt_g = rt_gather_new(MPI_COMM_WORLD, region, region_size);\n");
    opened = ex_box_open_clip(m, b, a, d->u.output.idx, nfix, 12, 1, names, st, cl);
    ex_region(m, &size, &index, a, nfix, names);
    ind(b, 12 + 4 * opened);
    strbuf_printf(b, "const int64_t rt_o = ");
    ex_local_at(m, b, a, names, st);
    strbuf_printf(b, ";\n");
    ind(b, 12 + 4 * opened);
    strbuf_printf(b, "if (%s_mine[rt_o]) rt_gather_put(rt_g, %s - rt_base, %s%s[rt_o], %s_mine[rt_o]);\n", a->cname,
                  index.s, dbl ? "" : "(double)", a->cname, a->cname);
    ex_box_close(b, opened, 12);
    strbuf_printf(b, "            rt_gather_finish(rt_g);\n");
    strbuf_printf(b, "            if (me == %" PRId64 ") {\n", pl->plo);
    strbuf_printf(b, "                for (int64_t rt_k = 0; rt_k < region_size; rt_k++) computed[rt_k] = !rt_is_novalue(region[rt_k]);\n");
    ex_checksum_inits(pl, b, m, d, a, nfix, cl);
    strbuf_printf(b, "                rt_checksum_doubles(&hash, region, (size_t)region_size);\n            }\n        }\n");
    strbuf_printf(b, "        free(computed);\n        free(region);\n    }\n");
    strbuf_free(&row);
    strbuf_free(&rindex);
    strbuf_free(&size);
    strbuf_free(&index);
    strbuf_free(&lo);
    strbuf_free(&hi);
}

static void ex_checksum_fn(const ex_plan *pl, strbuf *b, const ex_em *m)
{
    const ir_program *p = pl->p;
    strbuf_printf(b, "/* The checksum of the outputs, in declaration order, as `polyapm sim` computes it%s. */\n"
                     "static uint64_t output_checksum(%s)\n{\n    rt_checksum hash;\n    rt_checksum_init(&hash);\n",
                  pl->mpi ? " (gathered on rank 0: each element from the processor that computed it last, "
                            "else its init value)" : "",
                  pl->mpi ? "int64_t me" : "void");
    for (int k = 0; k < p->ndecls; k++) {
        const ir_decl *d = p->decls[k];
        if (d->kind != IR_D_OUTPUT) continue;
        const ex_array *a = &pl->arr[d->u.output.array_index];
        char names[8][64], st[8][96];
        int nfix = d->u.output.nidx;
        char *text = NULL;
        {
            strbuf t = {0};
            strbuf_printf(&t, "%s", a->decl->u.array.name);
            for (int i = 0; i < nfix; i++) {
                char *e = ir_print_expr(d->u.output.idx[i]);
                strbuf_printf(&t, "[%s]", e ? e : "");
                free(e);
            }
            text = strbuf_take(&t);
        }
        strbuf_printf(b, "    {   /* output %s */\n", text);
        free(text);
        int dbl = a->decl->u.array.elem == IR_DOUBLE;
        if (!pl->mpi) {
            int opened = ex_box_open(m, b, a, d->u.output.idx, nfix, 8, 0, names, st);
            ind(b, 8 + 4 * opened);
            strbuf_printf(b, "rt_checksum_double(&hash, %s%s[", dbl ? "" : "(double)", a->cname);
            ex_local_at(m, b, a, names, st);
            strbuf_printf(b, "]);\n");
            ex_box_close(b, opened, 8);
            strbuf_printf(b, "    }\n");
            continue;
        }
        ex_checksum_gather(pl, b, m, d, a, nfix);
    }
    strbuf_printf(b, "    return rt_checksum_value(&hash);\n}\n\n");
}

/* ---- phases ----------------------------------------------------------------------------------- */

/* The labels of the assignments in a block, joined with '_' (for function names). */
static void ex_labels(strbuf *b, const ir_block *blk)
{
    for (int i = 0; i < blk->n; i++) {
        const ir_stmt *s = blk->stmts[i];
        if (s->kind == IR_S_ASSIGN) {
            char t[64];
            if (b->n > 40) continue;
            if (!s->u.assign.label) continue;
            strbuf_printf(b, "_%s", nm(s->u.assign.label, t));
        } else if (s->kind == IR_S_IF) {
            ex_labels(b, s->u.if_.then_blk);
            if (s->u.if_.else_blk) ex_labels(b, s->u.if_.else_blk);
        } else if (s->kind == IR_S_FOR) {
            ex_labels(b, s->u.for_.body);
        }
    }
}

/* The nest's processor loop body with the loops inside it, for processor `me`. */
static void ex_step_body(const ex_em *m, strbuf *b, int in)
{
    const ex_plan *pl = m->pl;
    const ir_stmt *nest = pl->nest;
    char t[64];
    const ir_loopvar *vars;
    int nvars, from;
    const ir_block *body;
    if (pl->pdepth == 1) {
        vars = nest->u.for_.vars; nvars = nest->u.for_.nvars; from = 2; body = nest->u.for_.body;
    } else {
        const ir_stmt *inner = nest->u.for_.body->stmts[0];
        vars = inner->u.for_.vars; nvars = inner->u.for_.nvars; from = 1; body = inner->u.for_.body;
    }
    const char *pv = nm(vars[from - 1].var, t);
    ind(b, in);
    strbuf_printf(b, "const int64_t %s = me;   /* this processor */\n", pv);
    ind(b, in);
    strbuf_printf(b, "(void)%s;\n", pv);
    ex_loops(m, b, vars, nvars, from, body, in);
}

/* The program being written, between the phases of ex_emit_program. */
typedef struct ex_prog_out {
    const ex_plan *pl;
    const ir_program *p;
    strbuf b;                    /* the program's text */
    ex_em m;                     /* the emitter of the statements (its tmp is &tmp) */
    int tmp;
    strbuf labels;               /* "_L1_L2..": the statements' labels, the steps' suffix */
    const char *lab;             /* labels, or "_program" */
    int pieced;                  /* arrays with pieced local memories (export_piece.c) */
    /* syndm */
    const ir_loopvar *tv;        /* the time loop's variable */
    char tn[64];                 /* its C name */
    int two;                     /* a second step function records the output plane's marks */
    int replay;                  /* the marks recorded after the timed loop (mark<labels>) */
    int64_t mark_step;           /* the step writing the output plane (two) */
} ex_prog_out;

/* The comment saying what the program is, the includes, the helpers and the parameters. */
/* The bits of a stamp (rt_mark): 8 or 16 when the time loop's steps, at the exported parameter
 * values, fit, else 32. */
static int ex_mark_bits(const ex_plan *pl)
{
    if (!pl->nest) return 32;
    const ir_loopvar *v = &pl->nest->u.for_.vars[0];
    int64_t lo, hi, st = 1;
    double r;
    int real = 0, bad;
    diag_list dd;
    diag_list_init(&dd);
    bad = ir_const_eval(pl->p, v->lo, pl->pv, &lo, &r, &real, &dd) || real ||
          ir_const_eval(pl->p, v->hi, pl->pv, &hi, &r, &real, &dd) || real ||
          (v->step && (ir_const_eval(pl->p, v->step, pl->pv, &st, &r, &real, &dd) || real));
    diag_list_free(&dd);
    if (bad || st < 1) return 32;
    int64_t steps = hi < lo ? 0 : (hi - lo) / st + 1;
    return steps < UINT8_MAX ? 8 : steps < UINT16_MAX ? 16 : 32;
}

/* Whether some output array records what each processor computes (its X_mine stamps). */
static int ex_any_mark(const ex_plan *pl)
{
    for (int i = 0; i < pl->p->narrays; i++)
        if (pl->arr[i].mark) return 1;
    return 0;
}

static void ex_prog_head(ex_prog_out *o)
{
    const ex_plan *pl = o->pl;
    const ir_program *p = o->p;
    strbuf *b = &o->b;
    char t[64];
    strbuf_printf(b, "/*\n * %s.c — program %s (level %s), exported by polyapm%s%s.\n", pl->progname, p->name,
                  ir_level_name(p->level), pl->origin ? " from " : "", pl->origin ? pl->origin : "");
    if (pl->shared)
        strbuf_printf(b, " *\n * C+MPI: one MPI rank per processor of the processor loop (%" PRId64 " ranks).  The program is at\n"
                         " * level syncomm and communicates by collectives alone: each rank holds the whole arrays,\n"
                         " * applies the inits, and runs the processor body for its own processor, reading only its own\n"
                         " * rows of what the body writes; the collectives call runtime/rt_coll.c.\n", pl->nprocs);
    else if (pl->mpi)
        strbuf_printf(b, " *\n * C+MPI: one MPI rank per processor of the processor loop (%" PRId64 " ranks); each rank holds\n"
                         " * its part of the arrays (the dist declarations) and runs the time steps; messages travel %s.\n",
                      pl->nprocs,
                      pl->exchange == XF_EXCHANGE_HALO ? "as a static halo pattern (rt_pattern: values only, rows and "
                                                          "columns in place) after each step"
                      : pl->exchange == XF_EXCHANGE_ALLTOALLV ? "as (index, value) records, one MPI_Alltoallv per step "
                                                                 "(rt_exchange, the thesis's mpi_apm style)"
                      : "nowhere (the program sends nothing)");
    else
        strbuf_printf(b, " *\n * Sequential C: the program's loops as written (at syn, the processors of a step one after\n"
                         " * another, which a verified program allows).\n");
    if (pl->mpi && ex_mcast_used(pl))
        strbuf_printf(b, " * A value sent to a range of processors (a row or column many need) is one record, broadcast\n"
                         " * to that range at the end of the step (rt_mcast: MPI_Bcast, on a sub-communicator where the\n"
                         " * range is not every rank).\n");
    strbuf_printf(b, " * Parameters are the values the program was exported with; the result line is\n"
                     " *   polyapm-result checksum=%%016llx seconds=%%.9f ranks=%%d\n"
                     " * with the checksum of the output arrays, identical to `polyapm sim`'s, and the seconds of\n"
                     " * the main loop.\n */\n");
    if (!pl->mpi) strbuf_printf(b, "#define _POSIX_C_SOURCE 200809L   /* clock_gettime */\n");
    strbuf_printf(b, "#include <math.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n");
    if (!pl->mpi) strbuf_printf(b, "#include <time.h>\n");
    strbuf_printf(b, "\n#include \"%s\"\n\n", pl->mpi ? "rt.h" : "rt_checksum.h");
    strbuf_printf(b, "%s", ex_helpers);
    if (pl->mpi && ex_any_mark(pl)) {
        int bits = ex_mark_bits(pl);
        strbuf_printf(b, "/* The step being run, counted from 1.  An output element this processor computes is stamped\n"
                         " * with it; the gather takes every element from the processor that computed it last, as the\n"
                         " * simulator takes an in-place array's newest value.  A stamp is an rt_mark, as narrow as the\n"
                         " * number of steps allows. */\nstatic uint32_t rt_stamp;\n"
                         "typedef uint%d_t rt_mark;\n#define RT_MARK_MAX %s\n\n", bits,
                      bits == 8 ? "UINT8_MAX" : bits == 16 ? "UINT16_MAX" : "UINT32_MAX");
    }
    if (!pl->mpi)
        strbuf_printf(b, "static void *ex_calloc(size_t n, size_t size)\n{\n    void *p = calloc(n, size);\n"
                         "    if (!p) { fprintf(stderr, \"out of memory\\n\"); exit(2); }\n    return p;\n}\n\n");
    strbuf_printf(b, "/* parameters */\n");
    for (int i = 0; i < p->nparams; i++)
        strbuf_printf(b, "static const int64_t %s __attribute__((unused)) = %" PRId64 ";\n",
                      nm(p->params[i]->u.param.name, t), pl->pv[i]);
    strbuf_printf(b, "\n");
}

/* The top-level lets before the nest (syndm: variables shared by the phases, set in main), the
 * arrays with their init function, and the operators of the collectives. */
static void ex_prog_data(ex_prog_out *o)
{
    const ex_plan *pl = o->pl;
    const ir_program *p = o->p;
    char t[64];
    if (pl->mpi) {
        int nlets = 0;
        for (int i = 0; i < p->body->n && p->body->stmts[i]->kind == IR_S_LET; i++) {
            const ir_stmt *s = p->body->stmts[i];
            strbuf_printf(&o->b, "static %s %s;\n", s->u.let.value->type == IR_DOUBLE ? "double" : "int64_t",
                          nm(s->u.let.var, t));
            nlets++;
        }
        if (nlets) strbuf_printf(&o->b, "\n");
    }
    strbuf fills = {0};
    for (int i = 0; i < p->narrays; i++) o->pieced += pl->arr[i].pieced;
    if (o->pieced) strbuf_printf(&o->b, "%s", ex_piece_type);
    for (int i = 0; i < p->narrays; i++) ex_array_decl(pl, &o->b, &fills, &pl->arr[i]);
    ex_mcast_decl(pl, &o->b);
    ex_init_fn(pl, &o->b, &o->m, fills.s, o->replay);
    strbuf_free(&fills);
    ex_emit_ops(pl, &o->b);
}

/* The arrays a step function or the sequential computation takes as `restrict` parameters
 * (shadowing the globals: each is its own allocation, so gcc may keep values in registers and
 * vectorise; none in programs with collectives, whose runtime calls reach the arrays too): the
 * parameter list (", double *restrict A, .."), the arguments (", A, ..") and the casts that use
 * them ("(void)A;"). */
static void ex_step_arrays(const ex_plan *pl, strbuf *params, strbuf *args, strbuf *uses)
{
    if (ex_block_holds(pl->p->body, IR_S_COLL)) return;   /* collectives reach the arrays through the runtime: the globals */
    if (ex_overlap_placed(pl)) return;      /* so do the messages in flight during the step */
    for (int i = 0; i < pl->p->narrays; i++) {
        const ex_array *a = &pl->arr[i];
        if (a->pieced) continue;   /* export_piece.c's storage */
        strbuf_printf(params, ", %s *restrict %s", a->decl->u.array.elem == IR_DOUBLE ? "double" : "int64_t", a->cname);
        strbuf_printf(args, ", %s", a->cname);
        strbuf_printf(uses, "%s(void)%s;", uses->n ? " " : "    ", a->cname);
    }
    if (uses->n) strbuf_printf(uses, "\n");
}

/* Sequential C: the computation as one function, the checksum, and main timing it.  The
 * computation takes the arrays as restrict parameters (ex_step_arrays; its lists start with
 * ", ", skipped here), not inlined into main, as a step function does. */
static void ex_prog_sequential(ex_prog_out *o)
{
    const ex_plan *pl = o->pl;
    strbuf *b = &o->b;
    strbuf params = {0}, args = {0}, uses = {0};
    ex_step_arrays(pl, &params, &args, &uses);
    strbuf_printf(b, "/* The computation: the program's statements in order.%s */\nstatic %svoid compute%s(%s)\n{\n%s",
                  params.n ? "\n * The arrays are restrict parameters (each is its own allocation) and the function is not\n"
                             " * inlined into main, where they are the globals again: gcc -O2 vectorises its loops without\n"
                             " * runtime alias checks." : "",
                  params.n ? "__attribute__((noinline)) " : "", o->lab, params.n ? params.s + 2 : "void",
                  uses.n ? uses.s : "");
    ex_block(&o->m, b, o->p->body, 4);
    strbuf_printf(b, "}\n\n");
    ex_checksum_fn(pl, b, &o->m);
    strbuf_printf(b, "static double now(void)\n{\n    struct timespec ts;\n    clock_gettime(CLOCK_MONOTONIC, &ts);\n"
                     "    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;\n}\n\n");
    strbuf_printf(b, "int main(void)\n{\n    init_arrays();\n    const double t0 = now();\n    compute%s(%s);\n"
                     "    const double seconds = now() - t0;\n"
                     "    printf(RT_RESULT_FORMAT, (unsigned long long)output_checksum(), seconds, 1);\n", o->lab,
                  args.n ? args.s + 2 : "");
    for (int i = 0; i < o->p->narrays; i++) strbuf_printf(b, "    free(%s);\n", pl->arr[i].cname);
    strbuf_printf(b, "    return 0;\n}\n");
    strbuf_free(&params);
    strbuf_free(&args);
    strbuf_free(&uses);
}

/* Whether e reads memory (an array element, a scalar array, a reduction over elements). */
static int ex_reads_memory(const ir_expr *e)
{
    if (!e) return 0;
    switch (e->kind) {
    case IR_E_ACCESS: case IR_E_REDUCE: return 1;
    case IR_E_NAME: return e->u.name.nk == IR_N_ARRAY;
    case IR_E_UNARY: case IR_E_BINARY: return ex_reads_memory(e->u.op.a) || ex_reads_memory(e->u.op.b);
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++) if (ex_reads_memory(e->u.call.args[i])) return 1;
        return 0;
    case IR_E_REPEAT:
        for (int i = 0; i < e->u.repeat.nargs; i++) if (ex_reads_memory(e->u.repeat.args[i])) return 1;
        return ex_reads_memory(e->u.repeat.k);
    default: return 0;
    }
}

/* Whether which elements a block writes, and when, follows from the indices alone: no
 * collective, and no bound, condition, let or target subscript reads memory.  Then the step
 * can be replayed for its writes alone (EX_MARK). */
static int ex_block_replayable(const ir_block *blk)
{
    for (int i = 0; i < blk->n; i++) {
        const ir_stmt *s = blk->stmts[i];
        switch (s->kind) {
        case IR_S_ASSIGN:
            if (s->u.assign.lhs->kind == IR_E_ACCESS)
                for (int k = 0; k < s->u.assign.lhs->u.access.nidx; k++)
                    if (ex_reads_memory(s->u.assign.lhs->u.access.idx[k])) return 0;
            break;
        case IR_S_LET: if (ex_reads_memory(s->u.let.value)) return 0; break;
        case IR_S_IF:
            if (ex_reads_memory(s->u.if_.cond) || !ex_block_replayable(s->u.if_.then_blk) ||
                (s->u.if_.else_blk && !ex_block_replayable(s->u.if_.else_blk))) return 0;
            break;
        case IR_S_FOR:
            for (int k = 0; k < s->u.for_.nvars; k++)
                if (ex_reads_memory(s->u.for_.vars[k].lo) || ex_reads_memory(s->u.for_.vars[k].hi) ||
                    ex_reads_memory(s->u.for_.vars[k].step)) return 0;
            if (!ex_block_replayable(s->u.for_.body)) return 0;
            break;
        case IR_S_COLL: return 0;
        case IR_S_SEND: case IR_S_RECV: break;
        }
    }
    return 1;
}

/* The stamps of a syndm program's outputs are recorded by replaying the steps after the timed
 * loop, so that its inner loops store values alone: when some output is marked (not through a
 * second step function) and the writes follow from the indices. */
static int ex_replays_marks(const ex_prog_out *o)
{
    const ex_plan *pl = o->pl;
    if (!pl->mpi || pl->shared || o->two || !ex_any_mark(pl)) return 0;
    const ir_stmt *nest = pl->nest;
    for (int k = 0; k < nest->u.for_.nvars; k++)
        if (ex_reads_memory(nest->u.for_.vars[k].lo) || ex_reads_memory(nest->u.for_.vars[k].hi)) return 0;
    return ex_block_replayable(nest->u.for_.body);
}

/* How the outputs' stamps are recorded: by a second step function for the step writing a folded
 * output's plane (two), by replaying the steps after the timed loop (replay), or in the step. */
static void ex_marks_plan(ex_prog_out *o)
{
    const ex_plan *pl = o->pl;
    int marked = 0, unfolded = 0;
    for (int i = 0; i < o->p->narrays; i++) {
        const ex_array *a = &pl->arr[i];
        if (!a->mark) continue;
        if (a->fold < 0 || a->mark_step == INT64_MIN || (marked && a->mark_step != o->mark_step)) { unfolded = 1; continue; }
        o->mark_step = a->mark_step;
        marked = 1;
    }
    o->two = marked && !unfolded;
    o->replay = pl->mpi && pl->nest && ex_replays_marks(o);
}

/* syndm: the step function of processor me (and, when every output keeps only its live planes,
 * a second one for the step writing the output plane, the only one that needs to record which
 * elements this processor computed: the other steps run without that). */
static void ex_prog_steps(ex_prog_out *o)
{
    const ex_plan *pl = o->pl;
    strbuf *b = &o->b;
    const char *tn = o->tn;
    char stmts[128];
    snprintf(stmts, sizeof stmts, "%s", o->labels.s ? o->labels.s + 1 : "");
    for (char *c = stmts; *c; c++) if (*c == '_' && c[-1] != '_' && c[1] && c[1] != '_') *c = ' ';
    strbuf params = {0}, args = {0}, uses = {0};
    ex_step_arrays(pl, &params, &args, &uses);
    /* not inlined into main, where the arrays are the globals again: the loops keep their
     * restrict arrays, which gcc -O2 vectorises without runtime alias checks */
    const char *noinline = params.n ? "__attribute__((noinline)) " : "";
    strbuf_printf(b, "/* One time step of processor me: statements %s, in the program's order%s%s. */\n"
                     "static %svoid step%s(int64_t %s, int64_t me, rt_exchange *rt_x%s%s)\n{\n    (void)%s;\n    (void)rt_x;\n%s",
                  stmts, pl->exchange == XF_EXCHANGE_ALLTOALLV ? ", the sends put into the exchange" : "",
                  params.n ? " (the arrays as restrict parameters: each is its own allocation)" : "", noinline,
                  o->lab, tn, params.n ? params.s : "", ex_overlap_step_param(pl), tn, uses.n ? uses.s : "");
    o->m.marks = !o->two && !o->replay;
    ex_step_body(&o->m, b, 4);
    strbuf_printf(b, "}\n\n");
    if (o->replay) {
        ex_em mk = o->m;
        mk.mode = EX_MARK;
        strbuf_printf(b, "/* Step %s replayed for its writes of the outputs alone: each element this processor\n"
                         " * computes is stamped with the step (rt_stamp), for the gather.  Run after the timed loop\n"
                         " * (which elements a step writes follows from the indices alone). */\n"
                         "static void mark%s(int64_t %s, int64_t me)\n{\n    (void)%s;\n"
                         "    const rt_mark rt_now = (rt_mark)rt_stamp;   /* a local: the stores cannot change it */\n"
                         "    (void)rt_now;\n", tn, o->lab, tn, tn);
        ex_step_body(&mk, b, 4);
        strbuf_printf(b, "}\n\n");
    }
    if (o->two) {
        strbuf_printf(b, "/* The same step, recording which output elements this processor computes (the step that\n"
                         " * writes the output plane). */\n"
                         "static %svoid step%s_output(int64_t %s, int64_t me, rt_exchange *rt_x%s%s)\n{\n    (void)%s;\n    (void)rt_x;\n%s",
                      noinline, o->lab, tn, params.n ? params.s : "", ex_overlap_step_param(pl), tn, uses.n ? uses.s : "");
        o->m.marks = 1;
        ex_step_body(&o->m, b, 4);
        strbuf_printf(b, "}\n\n");
    }
    strbuf_free(&params);
    strbuf_free(&args);
    strbuf_free(&uses);
}

/* One halo function of the program (ex_overlap_halo_fns): every array's plane of step t, to the
 * pattern's runtime call. */
static void ex_prog_halo_fn(ex_prog_out *o, const ex_halo_fn *fn)
{
    const ex_plan *pl = o->pl;
    strbuf *b = &o->b;
    const char *tn = o->tn;
    strbuf_printf(b, "/* %s %s: every array's plane of that step. */\n"
                     "static void %s(rt_pattern *pattern, int64_t me, int64_t %s)\n{\n    double *planes[%d] = {",
                  fn->what, tn, fn->name, tn, o->p->narrays ? o->p->narrays : 1);
    for (int i = 0; i < o->p->narrays; i++) {
        const ex_array *a = &pl->arr[i];
        /* int64_t arrays too: the pattern moves 8-byte words bit for bit (RT_WORD) */
        const char *cast = a->decl->u.array.elem == IR_DOUBLE ? "" : "(double *)";
        if (a->fold < 0) {
            strbuf_printf(b, "%s%s%s", i ? ", " : "", cast, a->cname);
            continue;
        }
        int nd = a->decl->u.array.ndims;
        strbuf_printf(b, "%s%s(%s + (%s_at(me", i ? ", " : "", cast, a->cname, a->cname);
        for (int d = 0; d < nd; d++) {
            if (d == a->fold && a->send_f.k > 1)
                strbuf_printf(b, ", ifloordiv(%s + %" PRId64 ", %" PRId64 ") + (%" PRId64 ")", tn, a->send_f.a, a->send_f.k,
                              a->send_f.c);
            else if (d == a->fold)
                strbuf_printf(b, ", %s + (%" PRId64 ")", tn, a->send_f.c);
            else strbuf_printf(b, ", %s_lo%d(me)", a->cname, d);
        }
        strbuf_printf(b, ") - %s_at(me", a->cname);
        for (int d = 0; d < nd; d++) {
            if (d == a->fold) strbuf_printf(b, ", 0");
            else strbuf_printf(b, ", %s_lo%d(me)", a->cname, d);
        }
        strbuf_printf(b, ")))");
    }
    strbuf_printf(b, "};\n    (void)me;\n    (void)%s;   /* arrays without time planes: their whole memory */\n"
                     "    %s(pattern, planes);\n}\n\n", tn, fn->call);
}

/* syndm, halo exchange: each phase's pattern recorded once (record_halo<k>), and the exchange
 * of every array's plane after a step (exchange_halo; with overlap its halves, post_halo and
 * wait_halo, which the step calls). */
static void ex_prog_halo(ex_prog_out *o)
{
    const ex_plan *pl = o->pl;
    strbuf *b = &o->b;
    const char *tn = o->tn;
    ex_em mi = o->m;
    mi.mode = EX_INSPECT;
    for (int k = 0; k < pl->nphases; k++) {
        mi.phase = k;
        strbuf_printf(b, "/* The halo pattern of phase %d: its sends (the same at every step of the phase), recorded\n"
                         " * once.  Offsets are within the time plane of the step (plane 0 here). */\n"
                         "static void record_halo%d(rt_pattern *pattern, int64_t me)\n{\n    const int64_t %s = %" PRId64 ";\n    (void)%s;\n",
                      k, k, tn, o->tv->lo->kind == IR_E_INT ? o->tv->lo->u.ival : 0, tn);
        ex_step_body(&mi, b, 4);
        strbuf_printf(b, "}\n\n");
    }
    for (const ex_halo_fn *fn = ex_overlap_halo_fns(pl); fn->name; fn++) ex_prog_halo_fn(o, fn);
}

/* syndm, Alltoallv exchange: the end of a step, every record stored where its sender said. */
static void ex_prog_deliver(ex_prog_out *o)
{
    const ex_plan *pl = o->pl;
    strbuf *b = &o->b;
    int na = o->p->narrays;
    if (ex_mcast_only(pl)) {   /* no per-receiver records: the multicast alone */
        strbuf_printf(b, "/* The end of a step: every rank's multicast records, stored where this processor keeps them. */\n"
                         "static void deliver(rt_exchange *rt_x, int64_t me)\n{\n    (void)rt_x;\n    const rt_record *rt_r;\n");
        ex_mcast_deliver(pl, b);
        strbuf_printf(b, "}\n\n");
        return;
    }
    strbuf_printf(b, "/* The end of a step: every rank's records at once, stored where the sender said. */\n"
                     "static void deliver(rt_exchange *rt_x%s)\n{\n    rt_exchange_run(rt_x);\n    const rt_record *rt_r;\n"
                     "    const size_t rt_n = rt_exchange_received(rt_x, &rt_r);\n    for (size_t rt_i = 0; rt_i < rt_n; rt_i++) {\n"
                     "        const int64_t rt_off = rt_r[rt_i].index / %d;\n        switch ((int)(rt_r[rt_i].index %% %d)) {\n",
                  o->pieced || ex_mcast_used(pl) ? ", int64_t me" : "", na, na);
    for (int i = 0; i < na; i++) {   /* a delivery overwrites the receiver's copy */
        const char *v = pl->arr[i].decl->u.array.elem == IR_DOUBLE ? "rt_r[rt_i].value" : "rt_record_int(&rt_r[rt_i])";
        if (pl->arr[i].pieced)
            strbuf_printf(b, "        case %d: %s[%s_at_gidx(me, rt_off)] = %s; break;\n", i, pl->arr[i].cname,
                          pl->arr[i].cname, v);
        else
            strbuf_printf(b, "        case %d: %s[rt_off] = %s; break;\n", i, pl->arr[i].cname, v);
    }
    strbuf_printf(b, "        default: break;\n        }\n    }\n");
    if (ex_mcast_used(pl)) ex_mcast_deliver(pl, b);
    strbuf_printf(b, "}\n\n");
}

/* syndm main: MPI and the operators set up, this rank's processor, the lets, the arrays
 * initialised, the exchange (or the halo patterns) created. */
static void ex_prog_main_setup(ex_prog_out *o)
{
    const ex_plan *pl = o->pl;
    const ir_program *p = o->p;
    strbuf *b = &o->b;
    char t[64];
    strbuf_printf(b, "int main(int argc, char **argv)\n{\n    rt_init(&argc, &argv);\n");
    strbuf_printf(b, "    rt_require_ranks(%" PRId64 ", \"%s was derived for %" PRId64 " processors\");\n", pl->nprocs,
                  pl->progname, pl->nprocs);
    ex_emit_ops_setup(pl, b, 0);
    strbuf_printf(b, "    const int64_t me = %" PRId64 " + rt_rank(MPI_COMM_WORLD);   /* this rank's processor */\n", pl->plo);
    for (int i = 0; i < p->body->n && p->body->stmts[i]->kind == IR_S_LET; i++) {
        const ir_stmt *s = p->body->stmts[i];
        strbuf v = {0}, pre = {0};
        ex_em m0 = o->m;
        ex_expr(&m0, &v, &pre, 4, s->u.let.value);
        if (pre.s) strbuf_printf(b, "%s", pre.s);
        strbuf_printf(b, "    %s = %s;\n", nm(s->u.let.var, t), v.s);
        strbuf_free(&v);
        strbuf_free(&pre);
    }
    strbuf_printf(b, "    init_arrays(me);\n    rt_exchange *rt_x = %s;\n",
                  pl->exchange == XF_EXCHANGE_ALLTOALLV && !ex_mcast_only(pl) ? "rt_exchange_new(MPI_COMM_WORLD)" : "NULL");
    if (ex_mcast_used(pl)) strbuf_printf(b, "    rt_mc = rt_mcast_new(MPI_COMM_WORLD);\n");
    if (pl->exchange == XF_EXCHANGE_HALO) {
        strbuf_printf(b, "    rt_pattern *pattern[%d];   /* one per phase */\n", pl->nphases);
        for (int k = 0; k < pl->nphases; k++) {
            strbuf_printf(b, "    pattern[%d] = rt_pattern_new(MPI_COMM_WORLD, %d);\n", k, p->narrays);
            ex_aggregate_pattern(p, b, k);
            strbuf_printf(b, "    record_halo%d(pattern[%d], me);\n    rt_pattern_commit(pattern[%d]);\n", k, k, k);
        }
    }
}

/* After the timed loop, before the stamps are replayed: the arrays that are no output freed
 * (their memory goes before the stamps come), the stamps allocated. */
static void ex_prog_late_marks(ex_prog_out *o)
{
    const ex_plan *pl = o->pl;
    strbuf *b = &o->b;
    int inits_read = 0;   /* an init reading memory keeps every array (the gather evaluates inits) */
    for (int k = 0; k < o->p->ndecls; k++)
        if (o->p->decls[k]->kind == IR_D_INIT && ex_reads_memory(o->p->decls[k]->u.init.value)) inits_read = 1;
    for (int i = 0; i < o->p->narrays && !inits_read; i++) {
        const ex_array *a = &pl->arr[i];
        if (!a->output && !a->pieced) strbuf_printf(b, "    free(%s);   /* no output */\n    %s = NULL;\n", a->cname, a->cname);
    }
    for (int i = 0; i < o->p->narrays; i++) {
        const ex_array *a = &pl->arr[i];
        if (a->mark)
            strbuf_printf(b, "    %s_mine = rt_calloc(%s_size(me) ? (size_t)%s_size(me) : 1, sizeof *%s_mine);\n", a->cname,
                          a->cname, a->cname, a->cname);
    }
}

/* syndm main: the timed loop over the steps, each followed by its delivery or halo exchange
 * (a phase's exchange under the phase's conditions). */
static void ex_prog_main_loop(ex_prog_out *o)
{
    const ex_plan *pl = o->pl;
    const ir_loopvar *tv = o->tv;
    const char *tn = o->tn;
    strbuf *b = &o->b;
    strbuf lo = {0}, hi = {0}, st = {0}, pre = {0}, hc = {0};
    ex_expr(&o->m, &lo, &pre, 4, tv->lo);
    ex_expr(&o->m, &hi, &pre, 4, tv->hi);
    if (tv->step) ex_expr(&o->m, &st, &pre, 4, tv->step);
    strbuf_printf(b, "    const double t0 = rt_time_start(MPI_COMM_WORLD);\n");
    strbuf_printf(b, "    for (int64_t %s = %s, %s_end = %s; %s <= %s_end; %s += %s) {\n", tn, lo.s, tn, hi.s, tn, tn, tn,
                  st.n ? st.s : "1");
    if (ex_any_mark(pl) && !o->replay)
        strbuf_printf(b, "        if (++rt_stamp > RT_MARK_MAX) rt_die(\"more steps than an rt_mark holds\");\n");
    strbuf params = {0}, args = {0}, uses = {0};
    ex_step_arrays(pl, &params, &args, &uses);
    strbuf_printf(&args, "%s", ex_overlap_step_arg(pl));
    const char *as = args.n ? args.s : "";
    if (o->two)
        strbuf_printf(b, "        if (%s == %" PRId64 ") step%s_output(%s, me, rt_x%s);   /* writes the output plane */\n"
                         "        else step%s(%s, me, rt_x%s);\n", tn, o->mark_step, o->lab, tn, as, o->lab, tn, as);
    else
        strbuf_printf(b, "        step%s(%s, me, rt_x%s);\n", o->lab, tn, as);
    strbuf_free(&params);
    strbuf_free(&args);
    strbuf_free(&uses);
    if (pl->exchange == XF_EXCHANGE_ALLTOALLV) {
        char *when = ex_msg_steps(pl, tn);   /* the steps with messages; NULL: every step */
        if (when) strbuf_printf(b, "        if (%s)   /* the steps at which some processor sends */\n    ", when);
        strbuf_printf(b, "        deliver(rt_x%s);\n", o->pieced || ex_mcast_used(pl) ? ", me" : "");
        free(when);
    }
    for (int k = 0; pl->exchange == XF_EXCHANGE_HALO && !ex_overlap_placed(pl) && k < pl->nphases; k++) {
        hc.n = 0;
        if (hc.s) hc.s[0] = '\0';
        for (int i = 0; i < pl->phase_nconds[k]; i++) {
            if (i) strbuf_printf(&hc, " && ");
            ex_expr(&o->m, &hc, &pre, 4, pl->phase_cond[k][i]);
        }
        if (hc.n) strbuf_printf(b, "        if (%s)\n    ", hc.s);
        strbuf_printf(b, "        exchange_halo(pattern[%d], me, %s);\n", k, tn);
    }
    strbuf_printf(b, "    }\n    const double seconds = rt_time_stop(MPI_COMM_WORLD, t0);\n");
    if (o->replay) ex_prog_late_marks(o);
    if (o->replay)
        strbuf_printf(b, "    for (int64_t %s = %s, %s_end = %s; %s <= %s_end; %s += %s) {   /* the outputs' stamps */\n"
                         "        if (++rt_stamp > RT_MARK_MAX) rt_die(\"more steps than an rt_mark holds\");\n        mark%s(%s, me);\n    }\n",
                      tn, lo.s, tn, hi.s, tn, tn, tn, st.n ? st.s : "1", o->lab, tn);
    strbuf_free(&lo);
    strbuf_free(&hi);
    strbuf_free(&st);
    strbuf_free(&pre);
    strbuf_free(&hc);
}

/* syndm main: the checksum, the memory the pieces saved, the result line, everything freed. */
static void ex_prog_main_end(ex_prog_out *o)
{
    const ex_plan *pl = o->pl;
    const ir_program *p = o->p;
    strbuf *b = &o->b;
    strbuf_printf(b, "    const uint64_t sum = output_checksum(me);\n");
    if (!pl->shared) {   /* the elements each rank allocated (what the dist and the pieces keep), before the result line */
        strbuf_printf(b, "    {   /* polyapm-memory elements=[per rank] total=N: the elements of all arrays each rank allocated */\n"
                         "        int64_t rt_mem = 0, rt_all[%" PRId64 "], rt_total = 0;\n", pl->nprocs);
        for (int i = 0; i < p->narrays; i++) strbuf_printf(b, "        rt_mem += %s_size(me);\n", pl->arr[i].cname);
        strbuf_printf(b, "        RT_CHECK(MPI_Gather(&rt_mem, 1, MPI_INT64_T, rt_all, 1, MPI_INT64_T, 0, MPI_COMM_WORLD));\n"
                         "        if (me == %" PRId64 ") {\n            printf(\"polyapm-memory elements=[\");\n"
                         "            for (int rt_k = 0; rt_k < %" PRId64 "; rt_k++) { printf(\"%%s%%lld\", rt_k ? \",\" : \"\", (long long)rt_all[rt_k]); rt_total += rt_all[rt_k]; }\n"
                         "            printf(\"] total=%%lld\\n\", (long long)rt_total);\n        }\n    }\n", pl->plo, pl->nprocs);
    }
    strbuf_printf(b, "    rt_report(MPI_COMM_WORLD, sum, seconds);\n");
    for (int k = 0; pl->exchange == XF_EXCHANGE_HALO && k < pl->nphases; k++)
        strbuf_printf(b, "    rt_pattern_free(pattern[%d]);\n", k);
    strbuf_printf(b, "    if (rt_x) rt_exchange_free(rt_x);\n");
    if (ex_mcast_used(pl)) strbuf_printf(b, "    rt_mcast_free(rt_mc);\n");
    for (int i = 0; i < p->narrays; i++) {
        strbuf_printf(b, "    free(%s);\n", pl->arr[i].cname);
        if (pl->arr[i].mark) strbuf_printf(b, "    free(%s_mine);\n", pl->arr[i].cname);
        if (pl->arr[i].pieced) strbuf_printf(b, "    %s_free_pieces();\n", pl->arr[i].cname);
    }
    ex_emit_ops_setup(pl, b, 1);
    strbuf_printf(b, "    rt_finalize();\n    return 0;\n}\n");
}

char *ex_emit_program(const ex_plan *pl)
{
    ex_prog_out o;
    memset(&o, 0, sizeof o);
    o.pl = pl;
    o.p = pl->p;
    o.m = (ex_em){pl, pl->mpi ? EX_STEP : EX_SEQ, 0, pl->mpi ? "me" : NULL, &o.tmp, 1, NULL, 0, 0};
    if (pl->mpi && pl->nest) ex_marks_plan(&o);
    ex_prog_head(&o);
    ex_prog_data(&o);
    ex_labels(&o.labels, o.p->body);
    o.lab = o.labels.s ? o.labels.s : "_program";
    if (!pl->mpi) {
        ex_prog_sequential(&o);
    } else {   /* syndm (and syncomm with collectives) */
        char t[64];
        o.tv = &pl->nest->u.for_.vars[0];
        snprintf(o.tn, sizeof o.tn, "%s", nm(o.tv->var, t));
        if (ex_overlap_placed(pl)) ex_prog_halo(&o);   /* the steps call its halves */
        ex_prog_steps(&o);
        if (pl->exchange == XF_EXCHANGE_HALO && !ex_overlap_placed(pl)) ex_prog_halo(&o);
        if (pl->exchange == XF_EXCHANGE_ALLTOALLV) ex_prog_deliver(&o);
        ex_checksum_fn(pl, &o.b, &o.m);
        ex_prog_main_setup(&o);
        ex_prog_main_loop(&o);
        ex_prog_main_end(&o);
    }
    strbuf_free(&o.labels);
    return strbuf_take(&o.b);
}
