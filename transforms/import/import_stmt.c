/*
 * import_stmt.c — the statements of the region (the `#pragma scop` part, or the kernel's body)
 * as .apm statements: loops, if/else, and assignments labelled S1, S2, .. in the order written.
 * `x op= e` is x = x op (e), `x++` is x = x + 1; a loop that counts down runs an upward counter
 * v_d and lets v = hi - step * v_d.  The text is not indented: the caller prints it canonically.
 */
#include <stdlib.h>
#include <string.h>

#include "import_int.h"

/* What C's statements are called in messages (libclang's kind names otherwise). */
typedef struct kind_name { enum CXCursorKind kind; const char *name; } kind_name;
static const kind_name kind_names[] = {
    {CXCursor_WhileStmt, "a while loop"}, {CXCursor_DoStmt, "a do loop"}, {CXCursor_GotoStmt, "goto"},
    {CXCursor_LabelStmt, "a label"}, {CXCursor_ReturnStmt, "return"}, {CXCursor_BreakStmt, "break"},
    {CXCursor_ContinueStmt, "continue"}, {CXCursor_SwitchStmt, "switch"}, {CXCursor_CallExpr, "a call as a statement"},
    {CXCursor_IndirectGotoStmt, "goto"}, {CXCursor_AsmStmt, "asm"}, {CXCursor_GCCAsmStmt, "asm"},
    {CXCursor_FirstInvalid, NULL},
};

static const char STMTS[] = "supported: for loops, if/else, blocks, declarations of int or double scalars, "
                            "and assignments (= += -= *= /= ++ --) to array elements and scalars";

static int stmt(imp *I, CXCursor s, strbuf *out);

void imp_mark_line(imp *I, CXCursor at, const strbuf *out)
{
    int line = 1;
    for (size_t i = 0; i < out->n; i++) line += out->s[i] == '\n';
    if (I->nmarks == I->capmarks) {
        I->capmarks = I->capmarks ? 2 * I->capmarks : 64;
        imp_mark *m = xrealloc(I->marks, (size_t)I->capmarks * sizeof *m);
        I->marks = m;
    }
    I->marks[I->nmarks++] = (imp_mark){line, at};
}

static int block(imp *I, CXCursor s, strbuf *out)
{
    CXCursor kid[512];
    int n = imp_children(s, kid, 512);
    if (n > 512) { imp_error(I, s, "a block of more than 512 statements"); return -1; }
    for (int i = 0; i < n; i++)
        if (stmt(I, kid[i], out) != 0) return -1;
    return 0;
}

static int loop(imp *I, CXCursor s, strbuf *out)
{
    imp_loop l;
    if (imp_for(I, s, &l) != 0) return -1;
    imp_bind *saved = I->env;
    char *v = imp_apm_name(I, l.var);
    imp_mark_line(I, s, out);
    if (!l.down) {
        strbuf_printf(out, "for %s = %s .. %s", v, l.lo, l.hi);
        if (l.step != 1) strbuf_printf(out, " step %lld", l.step);
        strbuf_printf(out, " {\n");
    } else {
        strbuf_printf(out, "for %s_d = 0 .. ((%s) - (%s)) / %lld {\nlet %s = %s - %lld * %s_d\n", v, l.hi, l.lo,
                       l.step, v, l.hi, l.step, v);
    }
    imp_bind_text(I, l.var, v, l.nonneg);
    int rc = stmt(I, l.body, out);
    strbuf_printf(out, "}\n");
    I->env = saved;
    return rc;
}

static int cond(imp *I, CXCursor s, strbuf *out)
{
    CXCursor kid[4];
    int n = imp_children(s, kid, 4);
    if (n < 2 || n > 3) { imp_error(I, s, "an if with a declaration in its condition; %s", STMTS); return -1; }
    char *c = imp_expr(I, kid[0]);
    if (!c) return -1;
    imp_mark_line(I, s, out);
    strbuf_printf(out, "if %s {\n", c);
    if (stmt(I, kid[1], out) != 0) return -1;
    strbuf_printf(out, "}\n");
    if (n == 3) {
        strbuf_printf(out, "else {\n");
        if (stmt(I, kid[2], out) != 0) return -1;
        strbuf_printf(out, "}\n");
    }
    return 0;
}

/* The target of an assignment as text ("A[i][j]"); marks the symbol written. */
static char *target(imp *I, CXCursor lhs, imp_sym **sym)
{
    CXCursor subs[IMP_MAXDIM];
    int n;
    imp_sym *s = imp_lvalue(I, lhs, subs, &n);
    if (!s) return NULL;
    strbuf b = {0};
    strbuf_printf(&b, "%s", s->name);
    for (int i = 0; i < n; i++) {
        char *t = imp_expr(I, subs[i]);
        if (!t) { free(b.s); return NULL; }
        strbuf_printf(&b, "[%s]", t);
    }
    char *r = imp_strdup(I, b.s);
    free(b.s);
    if (s->lazy) s->lazy = s->local = 0;   /* an int scalar of the kernel after all */
    s->written = 1;
    *sym = s;
    return r;
}

static int assign(imp *I, CXCursor s, strbuf *out)
{
    CXCursor kid[3];
    int post, n = imp_children(s, kid, 3);
    const char *op = imp_operator(I, s, &post);
    if (!op) { imp_error(I, s, "an operator libclang does not show; %s", STMTS); return -1; }
    imp_sym *sym = NULL;
    char *lhs = target(I, kid[0], &sym), *rhs = NULL;
    if (!lhs) return -1;
    if (n == 1 && (strcmp(op, "++") == 0 || strcmp(op, "--") == 0)) {
        rhs = imp_printf(I, "%s %c 1", lhs, op[0]);
    } else if (n == 2 && strcmp(op, "=") == 0) {
        CXCursor r = imp_unwrap(kid[1]), rk[2];
        const char *inner = clang_getCursorKind(r) == CXCursor_BinaryOperator ? imp_operator(I, r, &post) : NULL;
        if (inner && strcmp(inner, "=") == 0 && imp_children(r, rk, 2) == 2) {   /* a = b = e: b first */
            if (assign(I, r, out) != 0) return -1;
            kid[1] = rk[0];
        }
        rhs = imp_expr(I, kid[1]);
    } else if (n == 2 && strlen(op) == 2 && op[1] == '=' && strchr("+-*/", op[0])) {
        if (sym->is_int && op[0] == '/') {
            imp_error(I, s, "/= on an integer; supported: x = x / e (C's truncating division, translated)");
            return -1;
        }
        char *e = imp_expr(I, kid[1]);
        rhs = e ? imp_printf(I, "%s %c (%s)", lhs, op[0], e) : NULL;
    } else {
        imp_error(I, s, "the assignment operator '%s'; %s", op, STMTS);
        return -1;
    }
    if (!rhs) return -1;
    if (sym->is_int && n == 2 && imp_type_is_float(clang_getCursorType(imp_unwrap(kid[1])))) {
        imp_error(I, s, "a floating value stored into the integer '%s' (C truncates); supported: integer values", sym->name);
        return -1;
    }
    imp_mark_line(I, s, out);
    /* the C line it came from, as a trailing comment: the TUI and every later node show it */
    const char *base = strrchr(I->o->file, '/');
    strbuf_printf(out, "S%d: %s = %s   # %s:%u\n", ++I->nlabels, lhs, rhs, base ? base + 1 : I->o->file,
                  imp_line(s));
    return 0;
}

static int stmt(imp *I, CXCursor s, strbuf *out)
{
    if (I->failed) return -1;
    s = imp_unwrap(s);
    switch (clang_getCursorKind(s)) {
    case CXCursor_CompoundStmt: return block(I, s, out);
    case CXCursor_ForStmt: return loop(I, s, out);
    case CXCursor_IfStmt: return cond(I, s, out);
    case CXCursor_NullStmt: return 0;
    case CXCursor_DeclStmt: return imp_local_decl(I, s, 0, out);
    default: break;
    }
    if (imp_is_write(I, s)) return assign(I, s, out);
    for (const kind_name *k = kind_names; k->name; k++)
        if (k->kind == clang_getCursorKind(s)) { imp_error(I, s, "%s; %s", k->name, STMTS); return -1; }
    CXString k = clang_getCursorKindSpelling(clang_getCursorKind(s));
    imp_error(I, s, "%s; %s", clang_getCString(k), STMTS);
    clang_disposeString(k);
    return -1;
}

int imp_region(imp *I, CXCursor *stmts, int n, strbuf *out)
{
    for (int i = 0; i < n; i++)
        if (stmt(I, stmts[i], out) != 0) return -1;
    return 0;
}
