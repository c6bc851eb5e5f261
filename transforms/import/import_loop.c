/*
 * import_loop.c — a C `for` loop read as a range: `for (v = a; v < b; v++)` is v = a .. b - 1,
 * with <= > >=, ++ -- (prefix or postfix), += c and -= c for an integer constant c, and the
 * variable declared in the loop or before it.  A loop that counts down keeps its order: the
 * caller runs an upward counter and lets v = hi - step * counter.
 */
#include <string.h>

#include "import_int.h"

static const char LOOPS[] = "supported: for (v = a; v < b (or <=, >, >=); v++ (or ++v, v--, --v, v += c, v -= c))";

/* The variable and first value of the init part: `v = a` or `int v = a`. */
static int loop_init(imp *I, CXCursor init, const char **var, CXCursor *lo)
{
    CXCursor kid[3];
    int post;
    init = imp_unwrap(init);
    if (clang_getCursorKind(init) == CXCursor_DeclStmt) {
        if (imp_children(init, kid, 3) != 1 || clang_getCursorKind(kid[0]) != CXCursor_VarDecl) goto bad;
        CXCursor v = kid[0];
        *var = imp_spelling(I, v);
        int n = imp_children(v, kid, 3);
        if (n < 1) goto bad;
        *lo = kid[n - 1];
        return 0;
    }
    if (clang_getCursorKind(init) != CXCursor_BinaryOperator) goto bad;
    const char *op = imp_operator(I, init, &post);
    if (!op || strcmp(op, "=") != 0 || imp_children(init, kid, 3) != 2) goto bad;
    CXCursor v = imp_unwrap(kid[0]);
    if (clang_getCursorKind(v) != CXCursor_DeclRefExpr) goto bad;
    *var = imp_spelling(I, v);
    *lo = kid[1];
    return 0;
bad:
    imp_error(I, init, "a loop's first part that does not set one variable; %s", LOOPS);
    return -1;
}

static int is_var(imp *I, CXCursor e, const char *var)
{
    e = imp_unwrap(e);
    return clang_getCursorKind(e) == CXCursor_DeclRefExpr && strcmp(imp_spelling(I, e), var) == 0;
}

/* The step of the increment part (negative when it counts down), or 0 after an error. */
static long long loop_step(imp *I, CXCursor inc, const char *var)
{
    CXCursor kid[3];
    int post;
    inc = imp_unwrap(inc);
    enum CXCursorKind k = clang_getCursorKind(inc);
    const char *op = imp_operator(I, inc, &post);
    int n = imp_children(inc, kid, 3);
    if (op && k == CXCursor_UnaryOperator && n == 1 && is_var(I, kid[0], var)) {
        if (strcmp(op, "++") == 0) return 1;
        if (strcmp(op, "--") == 0) return -1;
    }
    if (op && k == CXCursor_CompoundAssignOperator && n == 2 && is_var(I, kid[0], var) &&
        (strcmp(op, "+=") == 0 || strcmp(op, "-=") == 0)) {
        CXEvalResult r = clang_Cursor_Evaluate(kid[1]);
        if (r && clang_EvalResult_getKind(r) == CXEval_Int) {
            long long c = clang_EvalResult_getAsLongLong(r);
            clang_EvalResult_dispose(r);
            if (c > 0) return op[0] == '+' ? c : -c;
            imp_error(I, kid[1], "a loop step that is not a positive constant; %s", LOOPS);
            return 0;
        }
        if (r) clang_EvalResult_dispose(r);
        imp_error(I, kid[1], "a loop step that is not an integer constant; %s", LOOPS);
        return 0;
    }
    imp_error(I, inc, "a loop increment of another form; %s", LOOPS);
    return 0;
}

const char *imp_for_var(imp *I, CXCursor f)
{
    CXCursor kid[5], init, k2[3];
    int post;
    if (imp_children(f, kid, 5) != 4) return NULL;
    init = imp_unwrap(kid[0]);
    if (clang_getCursorKind(init) == CXCursor_DeclStmt)
        return imp_children(init, k2, 3) == 1 && clang_getCursorKind(k2[0]) == CXCursor_VarDecl ? imp_spelling(I, k2[0])
                                                                                                 : NULL;
    const char *op = clang_getCursorKind(init) == CXCursor_BinaryOperator ? imp_operator(I, init, &post) : NULL;
    if (!op || strcmp(op, "=") != 0 || imp_children(init, k2, 3) != 2) return NULL;
    CXCursor v = imp_unwrap(k2[0]);
    return clang_getCursorKind(v) == CXCursor_DeclRefExpr ? imp_spelling(I, v) : NULL;
}

int imp_for(imp *I, CXCursor f, imp_loop *l)
{
    CXCursor kid[5], lo_c;
    int post;
    memset(l, 0, sizeof *l);
    if (imp_children(f, kid, 5) != 4) {
        imp_error(I, f, "a for loop without its first part, condition or increment; %s", LOOPS);
        return -1;
    }
    if (loop_init(I, kid[0], &l->var, &lo_c) != 0) return -1;
    CXCursor cond = imp_unwrap(kid[1]), ck[3];
    const char *op = imp_operator(I, cond, &post);
    if (clang_getCursorKind(cond) != CXCursor_BinaryOperator || !op || imp_children(cond, ck, 3) != 2 ||
        !is_var(I, ck[0], l->var) || !strchr("<>", op[0]) || (op[1] && op[1] != '=')) {
        imp_error(I, cond, "a loop condition that does not compare the loop variable '%s' (on the left) with a "
                  "bound; %s", l->var, LOOPS);
        return -1;
    }
    long long step = loop_step(I, kid[2], l->var);
    if (!step) return -1;
    if ((step > 0) != (op[0] == '<')) {
        imp_error(I, cond, "a loop whose condition and increment go opposite ways; %s", LOOPS);
        return -1;
    }
    char *first = imp_expr(I, lo_c), *bound = first ? imp_expr(I, ck[1]) : NULL;
    if (!bound) return -1;
    int strict = op[1] == '\0';
    l->down = step < 0;
    l->step = step < 0 ? -step : step;
    l->body = kid[3];
    if (!l->down) {
        l->lo = first;
        l->hi = strict ? imp_printf(I, "%s - 1", bound) : bound;
        l->nonneg = imp_nonneg(I, lo_c);
    } else {
        l->hi = first;
        l->lo = strict ? imp_printf(I, "%s + 1", bound) : bound;
        l->nonneg = imp_nonneg(I, ck[1]);
    }
    return 0;
}
