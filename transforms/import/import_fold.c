/*
 * import_fold.c — math calls the language lacks (exp, pow), computed at import when their
 * arguments are constants then: literals, and scalars whose value the code before the kernel set
 * to a number and that the region never assigns (PolyBench deriche's alpha).  The call is
 * computed here with the C library C's program would call, so the value is the one it computes
 * (on the same machine); the program holds the literal.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "import_int.h"

typedef struct fold_fn { const char *name; int nargs; double (*f1)(double); double (*f2)(double, double); } fold_fn;
static const fold_fn fold_fns[] = {
    {"exp", 1, exp, NULL}, {"pow", 2, NULL, pow}, {"log", 1, log, NULL}, {"sin", 1, sin, NULL},
    {"cos", 1, cos, NULL}, {NULL, 0, NULL, NULL},
};

static int const_call(imp *I, CXCursor e, double *v)
{
    char *name = imp_spelling(I, e);
    const fold_fn *f = fold_fns;
    while (f->name && strcmp(f->name, name) != 0) f++;
    if (!f->name || clang_Cursor_getNumArguments(e) != f->nargs) return 0;
    double a[2];
    for (int k = 0; k < f->nargs; k++)
        if (!imp_const(I, clang_Cursor_getArgument(e, k), &a[k])) return 0;
    *v = f->nargs == 1 ? f->f1(a[0]) : f->f2(a[0], a[1]);
    return 1;
}

static int const_name(imp *I, CXCursor e, double *v)
{
    imp_bind *b = imp_lookup(I, imp_spelling(I, e));
    if (!b || !b->sym || b->sym->kind != SYM_ARRAY || b->sym->ndims || b->sym->assigned || !b->sym->val) return 0;
    char *end;
    *v = strtod(b->sym->val, &end);
    return end != b->sym->val && *end == '\0';
}

static int const_binary(imp *I, CXCursor e, double *v)
{
    CXCursor kid[2];
    int post;
    const char *op = imp_operator(I, e, &post);
    double a, b;
    if (!op || imp_children(e, kid, 2) != 2 || !imp_type_is_float(clang_getCursorType(e)) ||
        !imp_const(I, kid[0], &a) || !imp_const(I, kid[1], &b))
        return 0;
    switch (op[1] ? 0 : op[0]) {
    case '+': *v = a + b; return 1;
    case '-': *v = a - b; return 1;
    case '*': *v = a * b; return 1;
    case '/': *v = a / b; return 1;
    default: return 0;
    }
}

int imp_const(imp *I, CXCursor e, double *v)
{
    e = imp_unwrap(e);
    CXCursor kid[3];
    int n = imp_children(e, kid, 3), post;
    switch (clang_getCursorKind(e)) {
    case CXCursor_IntegerLiteral:
    case CXCursor_FloatingLiteral: {
        CXEvalResult r = clang_Cursor_Evaluate(e);
        if (!r) return 0;
        *v = clang_EvalResult_getKind(r) == CXEval_Int ? (double)clang_EvalResult_getAsLongLong(r)
                                                         : clang_EvalResult_getAsDouble(r);
        clang_EvalResult_dispose(r);
        return 1;
    }
    case CXCursor_ParenExpr: return n == 1 && imp_const(I, kid[0], v);
    case CXCursor_CStyleCastExpr: return n >= 1 && imp_type_is_float(clang_getCursorType(e)) && imp_const(I, kid[n - 1], v);
    case CXCursor_UnaryOperator: {
        const char *op = imp_operator(I, e, &post);
        if (!op || n != 1 || !imp_const(I, kid[0], v)) return 0;
        if (strcmp(op, "-") == 0) { *v = -*v; return 1; }
        return strcmp(op, "+") == 0;
    }
    case CXCursor_BinaryOperator: return const_binary(I, e, v);
    case CXCursor_DeclRefExpr: return const_name(I, e, v);
    case CXCursor_CallExpr: return const_call(I, e, v);
    default: return 0;
    }
}

static enum CXChildVisitResult mark(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    imp *I = data;
    if (imp_is_write(I, c)) {
        CXCursor kid[2];
        if (imp_children(c, kid, 2) >= 1) {
            CXCursor t = imp_unwrap(kid[0]);
            imp_bind *b = clang_getCursorKind(t) == CXCursor_DeclRefExpr ? imp_lookup(I, imp_spelling(I, t)) : NULL;
            if (b && b->sym) b->sym->assigned = 1;
        }
    }
    return CXChildVisit_Recurse;
}

void imp_mark_assigned(imp *I, CXCursor *stmts, int n)
{
    for (int i = 0; i < n; i++) {
        mark(stmts[i], clang_getNullCursor(), I);
        clang_visitChildren(stmts[i], mark, I);
    }
}
