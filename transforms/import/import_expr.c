/*
 * import_expr.c — C expressions to .apm expression text, exactly: C's truncating integer / and %
 * become the language's floor division and remainder corrected by select (plain / and % when
 * both operands are known non-negative), casts of integers to double become 1.0 * (e), ?: becomes
 * select, sqrt and fabs become sqrt and abs, a call of the file's own formula function is its
 * formula, rand() and its kin in the init code the value of their call's number (import_rand.c).
 * In the region a name is the symbol's name; in the init code an array's element is its value so
 * far (import_init.c).  Anything else is a located error saying what is supported (an operation C
 * computes in float included).
 */
#include <stdlib.h>
#include <string.h>

#include "import_int.h"

static const char SUPPORTED[] = "supported: literals, parameters, loop variables, array elements, "
                                "+ - * / % < <= > >= == != && || ! ?:, casts, sqrt, fabs";

static char *expr_any(imp *I, CXCursor e);

/* ---- literals ---- */

static char *real_text(imp *I, double v)
{
    char buf[64];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    if (!strpbrk(buf, ".en")) strcat(buf, ".0");
    return imp_strdup(I, buf);
}

static char *int_literal(imp *I, CXCursor e)
{
    CXEvalResult r = clang_Cursor_Evaluate(e);
    if (!r) return imp_error(I, e, "an integer literal libclang cannot evaluate; %s", SUPPORTED);
    long long v = clang_EvalResult_getAsLongLong(r);
    clang_EvalResult_dispose(r);
    imp_sym *p = imp_macro_param(I, e, v);   /* N, a size macro: its parameter */
    return p ? p->name : imp_printf(I, "%lld", v);
}

static char *real_literal(imp *I, CXCursor e)
{
    CXEvalResult r = clang_Cursor_Evaluate(e);
    if (!r) return imp_error(I, e, "a floating literal libclang cannot evaluate; %s", SUPPORTED);
    double v = clang_EvalResult_getAsDouble(r);
    clang_EvalResult_dispose(r);
    return real_text(I, v);
}

/* ---- names and elements ---- */

static char *name_ref(imp *I, CXCursor e)
{
    CXCursor ref = clang_getCursorReferenced(e);
    if (clang_getCursorKind(ref) == CXCursor_EnumConstantDecl)
        return imp_printf(I, "%lld", clang_getEnumConstantDeclValue(ref));
    char *name = imp_spelling(I, e);
    imp_bind *b = imp_lookup(I, name);
    if (!b) return imp_error(I, e, "'%s': a name that is not a parameter, array, scalar or loop variable of the "
                             "kernel; supported: the kernel's arguments and variables", name);
    if (!b->sym) return strpbrk(b->text, " ()") ? imp_printf(I, "(%s)", b->text) : b->text;
    imp_sym *s = b->sym;
    if (s->kind == SYM_PARAM) return s->name;
    if (s->ndims > 0) return imp_error(I, e, "'%s': a whole array in an expression; supported: its elements", name);
    if (!I->in_init) return s->name;
    if (!s->val) return imp_error(I, e, "'%s' is read before the code before the kernel gives it a value", name);
    if (!imp_init_iter_read_ok(I, e, s)) return NULL;
    return imp_printf(I, "(%s)", s->val);
}

imp_sym *imp_lvalue(imp *I, CXCursor e, CXCursor *subs, int *nsubs)
{
    CXCursor tmp[IMP_MAXDIM];
    int n = 0;
    e = imp_unwrap(e);
    while (clang_getCursorKind(e) == CXCursor_ArraySubscriptExpr) {
        CXCursor kid[2];
        imp_children(e, kid, 2);
        if (n == IMP_MAXDIM) return imp_error(I, e, "more than %d subscripts", IMP_MAXDIM);
        tmp[n++] = kid[1];
        e = imp_unwrap(kid[0]);
    }
    for (;;) {   /* (*B)[i][j] (PolyBench's POLYBENCH_ARRAY of a heap array), *alpha */
        enum CXCursorKind k = clang_getCursorKind(e);
        CXCursor kid[2];
        int post;
        if (k == CXCursor_ParenExpr && imp_children(e, kid, 2) == 1) { e = imp_unwrap(kid[0]); continue; }
        if (k == CXCursor_UnaryOperator && imp_children(e, kid, 2) == 1) {
            const char *op = imp_operator(I, e, &post);
            if (op && strcmp(op, "*") == 0) { e = imp_unwrap(kid[0]); continue; }
        }
        break;
    }
    if (clang_getCursorKind(e) != CXCursor_DeclRefExpr)
        return imp_error(I, e, "an assignment or element of something that is not a named array or scalar; "
                         "supported: A[i][j] = ..., s = ...");
    char *name = imp_spelling(I, e);
    imp_bind *b = imp_lookup(I, name);
    if (!b || !b->sym || b->sym->kind != SYM_ARRAY)
        return imp_error(I, e, "'%s' is not an array or scalar of the kernel", name);
    if (b->sym->linear) {
        if (n != 1 && !(b->sym->ndims == n && n > 1))
            return imp_error(I, e, "'%s' (a pointer) used with %d subscripts; supported: one, A[i * n + j]", name, n);
        if (n == 1) return imp_linear_subs(I, b->sym, e, tmp[0], subs, nsubs) == 0 ? b->sym : NULL;
    }
    if (n != b->sym->ndims)
        return imp_error(I, e, "'%s' has %d dimension%s, used with %d subscript%s; supported: one subscript per "
                         "dimension", name, b->sym->ndims, b->sym->ndims == 1 ? "" : "s", n, n == 1 ? "" : "s");
    for (int i = 0; i < n; i++) subs[i] = tmp[n - 1 - i];
    *nsubs = n;
    return b->sym;
}

imp_sym *imp_argsym(imp *I, CXCursor e)
{
    for (;;) {
        e = imp_unwrap(e);
        enum CXCursorKind k = clang_getCursorKind(e);
        CXCursor kid[3];
        int n = imp_children(e, kid, 3);
        if ((k == CXCursor_ParenExpr || k == CXCursor_UnaryOperator || k == CXCursor_CStyleCastExpr) && n >= 1) {
            e = kid[n - 1];
            continue;
        }
        if (k != CXCursor_DeclRefExpr) return NULL;
        imp_bind *b = imp_lookup(I, imp_spelling(I, e));
        return b && b->sym && b->sym->kind == SYM_ARRAY ? b->sym : NULL;
    }
}

char *imp_subst(imp *I, const char *val, char **subs, int nsubs)
{
    strbuf b = {0};
    strbuf_printf(&b, "%s", "");
    for (const char *p = val; *p; p++) {
        if (*p == '@' && p[1] >= '0' && p[1] <= '9') {
            int k = (int)strtol(p + 1, (char **)&p, 10);
            p--;
            strbuf_printf(&b, "(%s)", k < nsubs ? subs[k] : "0");
        } else {
            strbuf_printf(&b, "%c", *p);
        }
    }
    char *r = imp_strdup(I, b.s);
    free(b.s);
    return r;
}

static char *element(imp *I, CXCursor e)
{
    CXCursor subs[IMP_MAXDIM];
    int n;
    imp_sym *s = imp_lvalue(I, e, subs, &n);
    if (!s) return NULL;
    char *t[IMP_MAXDIM];
    for (int i = 0; i < n; i++)
        if (!(t[i] = expr_any(I, subs[i]))) return NULL;
    if (I->in_init) {
        if (!s->val) return imp_error(I, e, "'%s' is read before the code before the kernel gives it a value", s->name);
        if (!imp_init_read_ok(I, e, s, subs, n) || !imp_init_iter_read_ok(I, e, s)) return NULL;
        if (s == I->target) I->target_read = 1;
        return imp_printf(I, "(%s)", imp_subst(I, s->val, t, n));
    }
    strbuf b = {0};
    strbuf_printf(&b, "%s", s->name);
    for (int i = 0; i < n; i++) strbuf_printf(&b, "[%s]", t[i]);
    char *r = imp_strdup(I, b.s);
    free(b.s);
    return r;
}

/* ---- operators ---- */

/* Is the integer expression known to be >= 0 (literals, parameters, loop variables that count
 * from a non-negative bound, and + * / % of such)? */
int imp_nonneg(imp *I, CXCursor e)
{
    e = imp_unwrap(e);
    CXCursor kid[3];
    int n = imp_children(e, kid, 3), post;
    switch (clang_getCursorKind(e)) {
    case CXCursor_IntegerLiteral: {
        CXEvalResult r = clang_Cursor_Evaluate(e);
        long long v = r ? clang_EvalResult_getAsLongLong(r) : -1;
        if (r) clang_EvalResult_dispose(r);
        return v >= 0;
    }
    case CXCursor_ParenExpr: return n == 1 && imp_nonneg(I, kid[0]);
    case CXCursor_CallExpr: return imp_rand_is_int_call(I, e);   /* rand(), random(), lrand48() */
    case CXCursor_CStyleCastExpr: return n >= 1 && imp_type_is_int(clang_getCursorType(kid[n - 1])) &&
                                         imp_nonneg(I, kid[n - 1]);
    case CXCursor_DeclRefExpr: {
        imp_bind *b = imp_lookup(I, imp_spelling(I, e));
        if (!b) return 0;
        if (b->sym) return b->sym->kind == SYM_PARAM;
        return b->nonneg;
    }
    case CXCursor_BinaryOperator: {
        const char *op = imp_operator(I, e, &post);
        return op && n == 2 && strchr("+*/%", op[0]) && op[1] == '\0' && imp_nonneg(I, kid[0]) && imp_nonneg(I, kid[1]);
    }
    default: return 0;
    }
}

/* C's truncating a / b and a % b on integers in the language's floor semantics. */
static char *int_divmod(imp *I, CXCursor ca, CXCursor cb, const char *a, const char *b, int mod)
{
    int pa = imp_nonneg(I, ca), pb = imp_nonneg(I, cb);
    if (pa && pb) return imp_printf(I, "(%s %s %s)", a, mod ? "%" : "/", b);
    /* floor and truncation differ when the remainder is not 0 and the signs differ */
    const char *wrong = pb ? imp_printf(I, "(%s) %% (%s) != 0 && (%s) < 0", a, b, a)
                           : imp_printf(I, "(%s) %% (%s) != 0 && ((%s) < 0) != ((%s) < 0)", a, b, a, b);
    if (mod) return imp_printf(I, "select(%s, (%s) %% (%s) - (%s), (%s) %% (%s))", wrong, a, b, b, a, b);
    return imp_printf(I, "select(%s, (%s) / (%s) + 1, (%s) / (%s))", wrong, a, b, a, b);
}

typedef struct binop_row { const char *c, *apm; } binop_row;
static const binop_row binops[] = {
    {"+", "+"}, {"-", "-"}, {"*", "*"}, {"/", "/"}, {"%", "%"}, {"<", "<"}, {"<=", "<="}, {">", ">"},
    {">=", ">="}, {"==", "=="}, {"!=", "!="}, {"&&", "&&"}, {"||", "||"}, {"&", "band"}, {"|", "bor"},
    {"^", "bxor"}, {NULL, NULL},
};

static char *binary(imp *I, CXCursor e)
{
    CXCursor kid[2];
    int post;
    const char *op = imp_operator(I, e, &post);
    if (imp_children(e, kid, 2) != 2 || !op) return imp_error(I, e, "an operator libclang does not show; %s", SUPPORTED);
    const binop_row *row = binops;
    while (row->c && strcmp(row->c, op) != 0) row++;
    if (!row->c)
        return imp_error(I, e, "the operator '%s' in an expression (assignments are statements); %s", op, SUPPORTED);
    char *a = expr_any(I, kid[0]), *b = a ? expr_any(I, kid[1]) : NULL;
    if (!b) return NULL;
    int ints = imp_type_is_int(clang_getCursorType(e));
    if (ints && (op[0] == '/' || op[0] == '%')) return int_divmod(I, kid[0], kid[1], a, b, op[0] == '%');
    if (row->apm[0] >= 'a' && row->apm[0] <= 'z') return imp_printf(I, "%s(%s, %s)", row->apm, a, b);
    return imp_printf(I, "(%s %s %s)", a, row->apm, b);
}

static char *unary(imp *I, CXCursor e)
{
    CXCursor kid[2];
    int post;
    const char *op = imp_operator(I, e, &post);
    if (imp_children(e, kid, 2) != 1 || !op) return imp_error(I, e, "an operator libclang does not show; %s", SUPPORTED);
    if (strcmp(op, "*") == 0) return element(I, e);
    char *a = expr_any(I, kid[0]);
    if (!a) return NULL;
    if (strcmp(op, "-") == 0) return imp_printf(I, "(-%s)", a);
    if (strcmp(op, "+") == 0) return a;
    if (strcmp(op, "!") == 0) return imp_printf(I, "(!%s)", a);
    return imp_error(I, e, "the operator '%s' in an expression (++ and -- are statements); %s", op, SUPPORTED);
}

static char *cast(imp *I, CXCursor e)
{
    CXCursor kid[3];
    int n = imp_children(e, kid, 3);
    if (n < 1) return imp_error(I, e, "a cast libclang does not show");
    CXCursor x = kid[n - 1];   /* the operand comes after the type reference, if any */
    CXType to = clang_getCursorType(e), from = clang_getCursorType(imp_unwrap(x));
    char *a = expr_any(I, x);
    if (!a) return NULL;
    if (clang_getCanonicalType(to).kind == CXType_Float && imp_refuse_float(I, e, "a cast")) return NULL;
    if (imp_type_is_float(to) && imp_type_is_int(from)) return imp_printf(I, "(1.0 * %s)", a);
    if ((imp_type_is_float(to) && imp_type_is_float(from)) || (imp_type_is_int(to) && imp_type_is_int(from)))
        return a;
    return imp_error(I, e, "a cast from a floating to an integer type (or of a pointer); supported: casts between "
                     "integer types, between floating types, and from an integer to a floating type");
}

/* math.h's functions the language has: C's name, the language's, the arguments; a call of
 * constants is computed at import (the same math.h), except sqrt and fabs, written as they are. */
static const struct call_row { const char *c, *apm; int nargs, fold; } calls[] = {
    {"sqrt", "sqrt", 1, 0}, {"fabs", "abs", 1, 0}, {"sin", "sin", 1, 1}, {"cos", "cos", 1, 1},
    {"tan", "tan", 1, 1}, {"exp", "exp", 1, 1}, {"log", "log", 1, 1}, {"pow", "pow", 2, 1},
    {NULL, NULL, 0, 0},
};

int imp_math_call(const char *name)
{
    for (const struct call_row *row = calls; row->c; row++)
        if (!strcmp(row->c, name)) return 1;
    return 0;
}

/* The value a formula function returns, as text: declarations of scalars with their values, then
 * `return e;` (NULL after an error). */
static char *formula_body(imp *I, CXCursor def, CXCursor at, const char *name)
{
    CXCursor kid[64], body = clang_getNullCursor(), st[64];
    for (int k = 0, n = imp_children(def, kid, 64); k < n && k < 64; k++)
        if (clang_getCursorKind(kid[k]) == CXCursor_CompoundStmt) body = kid[k];
    int n = clang_Cursor_isNull(body) ? 0 : imp_children(body, st, 64);
    for (int i = 0; i < n && i < 64; i++) {
        enum CXCursorKind k = clang_getCursorKind(st[i]);
        CXCursor v[8];
        if (k == CXCursor_ReturnStmt && i == n - 1 && imp_children(st[i], v, 2) == 1) {
            char *r = expr_any(I, v[0]);
            CXType rt = clang_getCursorResultType(def), et = clang_getCursorType(imp_unwrap(v[0]));
            if (r && imp_type_is_int(rt) && imp_type_is_float(et))
                return imp_error(I, v[0], "'%s' returns a floating value as an integer (C truncates); supported: "
                                 "formula functions returning their expression's type", name);
            return r && imp_type_is_float(rt) && imp_type_is_int(et) ? imp_printf(I, "(1.0 * %s)", r) : r;
        }
        int nv = k == CXCursor_DeclStmt ? imp_children(st[i], v, 8) : 0;
        for (int j = 0; j < nv && j < 8; j++) {
            CXCursor init = clang_Cursor_getVarDeclInitializer(v[j]);
            CXType vt = clang_getCanonicalType(clang_getCursorType(v[j]));
            if (clang_getCursorKind(v[j]) != CXCursor_VarDecl || clang_Cursor_isNull(init) ||
                (!imp_type_is_float(vt) && !imp_type_is_int(vt)))
                return imp_error(I, v[j], "a declaration without a value in '%s'; supported in a function called in "
                                 "an expression: scalars declared with their values, then return e;", name);
            char *t = expr_any(I, init);
            if (!t) return NULL;
            if (imp_type_is_float(vt) && imp_type_is_int(clang_getCursorType(imp_unwrap(init))))
                t = imp_printf(I, "(1.0 * %s)", t);
            imp_bind_text(I, imp_spelling(I, v[j]), t, 0);
        }
        if (nv == 0)
            return imp_error(I, st[i], "a statement of another kind in '%s', called at line %u; supported in a "
                             "function called in an expression: declarations of scalars with their values, then "
                             "return e;", name, imp_line(at));
    }
    return imp_error(I, def, "'%s' has no final return; supported in a function called in an expression: "
                     "declarations of scalars with their values, then return e;", name);
}

/* A call of a function of the file in an expression: its formula with the parameters bound to
 * the arguments (C's conversions at the call kept). */
static char *inline_call(imp *I, CXCursor e, CXCursor def, const char *name)
{
    if (I->call_depth >= 16)
        return imp_error(I, e, "calls of '%s' nested more than 16 deep (recursion?); supported: formula functions "
                         "that do not recurse", name);
    int n = clang_Cursor_getNumArguments(e);
    if (n != clang_Cursor_getNumArguments(def))
        return imp_error(I, e, "a call of '%s' with %d arguments for its %d parameters", name, n,
                         clang_Cursor_getNumArguments(def));
    char *text[16];
    if (n > 16) return imp_error(I, e, "a call of '%s' with more than 16 arguments", name);
    for (int k = 0; k < n; k++) {
        CXCursor a = clang_Cursor_getArgument(e, k), p = clang_Cursor_getArgument(def, k);
        CXType pt = clang_getCursorType(p), at = clang_getCursorType(imp_unwrap(a));
        if (!imp_type_is_int(pt) && !imp_type_is_float(pt))
            return imp_error(I, a, "an argument of '%s' that is not a number; supported in a function called in "
                             "an expression: int and double parameters", name);
        if (imp_type_is_int(pt) && imp_type_is_float(at))
            return imp_error(I, a, "a floating argument for the integer parameter of '%s' (C truncates)", name);
        if (!(text[k] = expr_any(I, a))) return NULL;
        if (imp_type_is_float(pt) && imp_type_is_int(at)) text[k] = imp_printf(I, "(1.0 * %s)", text[k]);
    }
    imp_bind *saved = I->env;
    for (int k = 0; k < n; k++)
        imp_bind_text(I, imp_spelling(I, clang_Cursor_getArgument(def, k)), text[k],
                      imp_nonneg(I, clang_Cursor_getArgument(e, k)));
    I->call_depth++;
    char *r = formula_body(I, def, e, name);
    I->call_depth--;
    I->env = saved;
    return r ? imp_printf(I, "(%s)", r) : NULL;
}

static char *call(imp *I, CXCursor e)
{
    char *name = imp_spelling(I, e);
    const struct call_row *row = calls;
    while (row->c && strcmp(row->c, name) != 0) row++;
    CXCursor def = clang_getCursorDefinition(clang_getCursorReferenced(e));
    if (!row->c && !clang_Cursor_isNull(def) && imp_in_file(I, def)) return inline_call(I, e, def, name);
    double v;
    if ((!row->c || row->fold) && imp_const(I, e, &v)) return real_text(I, v);   /* exp(-alpha): computed now */
    if (!row->c && imp_rand_is_call(I, e)) return imp_rand_value(I, e);   /* rand(): crand(seed, k) */
    if (!row->c)
        return imp_error(I, e, "a call of '%s'; supported calls: sqrt, fabs, sin, cos, tan, exp, log, pow (of "
                         "doubles: math.h's), the C library's random numbers in initial values (rand, random, "
                         "drand48, lrand48 and their seeds), and the file's own formula functions", name);
    int nargs = clang_Cursor_getNumArguments(e);
    if (nargs != row->nargs)
        return imp_error(I, e, "'%s' with %d argument%s; it takes %d", name, nargs, nargs == 1 ? "" : "s", row->nargs);
    char *a = expr_any(I, clang_Cursor_getArgument(e, 0));
    char *b = a && nargs > 1 ? expr_any(I, clang_Cursor_getArgument(e, 1)) : NULL;
    if (!a || (nargs > 1 && !b)) return NULL;
    return nargs > 1 ? imp_printf(I, "%s(%s, %s)", row->apm, a, b) : imp_printf(I, "%s(%s)", row->apm, a);
}

static char *conditional(imp *I, CXCursor e)
{
    CXCursor kid[3];
    if (imp_children(e, kid, 3) != 3) return imp_error(I, e, "a ?: libclang does not show");
    char *c = expr_any(I, kid[0]), *a = c ? expr_any(I, kid[1]) : NULL, *b = a ? expr_any(I, kid[2]) : NULL;
    return b ? imp_printf(I, "select(%s, %s, %s)", c, a, b) : NULL;
}

static char *paren(imp *I, CXCursor e)
{
    CXCursor kid[2];
    if (imp_children(e, kid, 2) != 1) return imp_error(I, e, "a parenthesis libclang does not show");
    char *a = expr_any(I, kid[0]);
    return a ? imp_printf(I, "(%s)", a) : NULL;
}

typedef struct expr_row { enum CXCursorKind kind; char *(*fn)(imp *, CXCursor); } expr_row;
static const expr_row exprs[] = {
    {CXCursor_IntegerLiteral, int_literal}, {CXCursor_FloatingLiteral, real_literal},
    {CXCursor_DeclRefExpr, name_ref}, {CXCursor_ArraySubscriptExpr, element}, {CXCursor_BinaryOperator, binary},
    {CXCursor_UnaryOperator, unary}, {CXCursor_CStyleCastExpr, cast}, {CXCursor_CallExpr, call},
    {CXCursor_ConditionalOperator, conditional}, {CXCursor_ParenExpr, paren}, {CXCursor_FirstInvalid, NULL},
};

static char *expr_any(imp *I, CXCursor e)
{
    e = imp_unwrap(e);
    enum CXCursorKind k = clang_getCursorKind(e);
    if ((k == CXCursor_BinaryOperator || k == CXCursor_UnaryOperator || k == CXCursor_CallExpr ||
         k == CXCursor_ConditionalOperator) && clang_getCanonicalType(clang_getCursorType(e)).kind == CXType_Float) {
        imp_refuse_float(I, e, "an operation whose C type");   /* i / 3.0f: C computes it in float */
        return NULL;
    }
    for (const expr_row *r = exprs; r->fn; r++)
        if (r->kind == k) return r->fn(I, e);
    CXString s = clang_getCursorKindSpelling(k);
    char *what = imp_strdup(I, clang_getCString(s));
    clang_disposeString(s);
    if (k == CXCursor_CompoundAssignOperator) what = "an assignment inside an expression";
    return imp_error(I, e, "%s in an expression; %s", what, SUPPORTED);
}

char *imp_expr(imp *I, CXCursor e)
{
    if (I->failed) return NULL;
    return expr_any(I, e);
}
