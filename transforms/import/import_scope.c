/*
 * import_scope.c — what the importer knows about the file's names beyond the kernel's own: the
 * file-scope variables (globals and statics, bound on first use: their arrays and scalars, and
 * an int never assigned whose value is a constant a parameter), which declarations the region
 * reads, which the file ever assigns, sizes the program sets as variables (`int n = 100;`) or
 * reads at run time (`atoi(argv[1])`: its value from --param, or the default of
 * `argc > 1 ? atoi(argv[1]) : 100`), and the statements around the region that are set aside.
 */
#include <stdlib.h>
#include <string.h>

#include "import_int.h"

/* ---- sets of declarations ---- */

static void set_add(imp_decls *set, CXCursor c)
{
    for (int i = 0; i < set->n; i++)
        if (clang_equalCursors(set->at[i], c)) return;
    if (set->n == set->cap) {
        set->cap = set->cap ? 2 * set->cap : 64;
        CXCursor *at = xrealloc(set->at, (size_t)set->cap * sizeof *at);
        set->at = at;
    }
    set->at[set->n++] = c;
}

int imp_decls_has(const imp_decls *set, CXCursor c)
{
    for (int i = 0; i < set->n; i++)
        if (clang_equalCursors(set->at[i], c)) return 1;
    return 0;
}

/* The variable an lvalue or argument names (A[i][j], *p, &x, (T)x): its declaration, or null. */
static CXCursor base_decl(imp *I, CXCursor e)
{
    for (int guard = 0; guard < 64; guard++) {
        e = imp_unwrap(e);
        enum CXCursorKind k = clang_getCursorKind(e);
        CXCursor kid[3];
        int n = imp_children(e, kid, 3);
        if (k == CXCursor_DeclRefExpr) return clang_getCursorReferenced(e);
        if (k == CXCursor_ArraySubscriptExpr && n == 2) { e = kid[0]; continue; }
        if ((k == CXCursor_ParenExpr || k == CXCursor_UnaryOperator || k == CXCursor_CStyleCastExpr) && n >= 1) {
            e = kid[n - 1];
            continue;
        }
        break;
    }
    (void)I;
    return clang_getNullCursor();
}

typedef struct scan { imp *I; imp_decls *set; int writes; } scan;

/* Every declaration named (writes == 0) or assigned (writes == 1, with what a call of the file's
 * own functions is passed; 2: and those declared) under a cursor. */
static enum CXChildVisitResult collect(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    scan *sc = data;
    imp *I = sc->I;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (!sc->writes) {
        if (k == CXCursor_DeclRefExpr) set_add(sc->set, clang_getCursorReferenced(c));
        return CXChildVisit_Recurse;
    }
    CXCursor kid[2];
    if (k == CXCursor_VarDecl && sc->writes == 2) set_add(sc->set, c);
    if (imp_is_write(I, c) && imp_children(c, kid, 2) >= 1) {
        CXCursor d = base_decl(I, kid[0]);
        if (!clang_Cursor_isNull(d)) set_add(sc->set, d);
    }
    if (k == CXCursor_CallExpr) {
        CXCursor def = clang_getCursorDefinition(clang_getCursorReferenced(c));
        for (int a = 0, n = clang_Cursor_getNumArguments(c); a < n && !clang_Cursor_isNull(def); a++) {
            CXCursor arg = clang_Cursor_getArgument(c, a), d = base_decl(I, arg);
            CXType t = clang_getCursorType(imp_unwrap(arg));
            if (!clang_Cursor_isNull(d) && !imp_type_is_int(t) && !imp_type_is_float(t)) set_add(sc->set, d);
        }
    }
    return CXChildVisit_Recurse;
}

static void scan_into(imp *I, CXCursor c, imp_decls *set, int writes)
{
    scan sc = {I, set, writes};
    collect(c, clang_getNullCursor(), &sc);
    clang_visitChildren(c, collect, &sc);
}

static enum CXChildVisitResult file_scope(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    imp *I = data;
    if (!imp_in_file(I, c)) return CXChildVisit_Continue;
    if (clang_getCursorKind(c) == CXCursor_VarDecl) set_add(&I->globals, c);
    if (clang_getCursorKind(c) == CXCursor_FunctionDecl && clang_isCursorDefinition(c)) {
        scan sc = {I, &I->assigned_anywhere, 1};
        clang_visitChildren(c, collect, &sc);
    }
    return CXChildVisit_Continue;
}

void imp_scope_scan(imp *I, CXCursor *region, int nregion)
{
    clang_visitChildren(clang_getTranslationUnitCursor(I->tu), file_scope, I);
    for (int i = 0; i < nregion; i++) scan_into(I, region[i], &I->region_reads, 0);
    if (!clang_Cursor_isNull(I->kernel_call))   /* what main passes to the kernel feeds the region */
        for (int a = 0, n = clang_Cursor_getNumArguments(I->kernel_call); a < n; a++) {
            CXCursor d = base_decl(I, clang_Cursor_getArgument(I->kernel_call, a));
            if (!clang_Cursor_isNull(d)) set_add(&I->region_reads, d);
        }
}

void imp_decls_free(imp_decls *set) { free(set->at); }

/* ---- sizes ---- */

static const char *const runtime_reads[] = {"atoi", "atol", "atoll", "strtol", "strtoll", "strtoul", NULL};

/* Is e a call reading a number at run time (atoi(argv[1]))? */
static int runtime_read(imp *I, CXCursor e)
{
    e = imp_unwrap(e);
    while (clang_getCursorKind(e) == CXCursor_ParenExpr || clang_getCursorKind(e) == CXCursor_CStyleCastExpr) {
        CXCursor kid[3];
        int n = imp_children(e, kid, 3);
        if (n < 1) return 0;
        e = imp_unwrap(kid[n - 1]);
    }
    if (clang_getCursorKind(e) != CXCursor_CallExpr) return 0;
    char *name = imp_spelling(I, e);
    for (int i = 0; runtime_reads[i]; i++)
        if (strcmp(runtime_reads[i], name) == 0) return 1;
    return 0;
}

static int const_int(CXCursor e, long long *v)
{
    CXEvalResult r = clang_Cursor_Evaluate(e);
    int ok = r && clang_EvalResult_getKind(r) == CXEval_Int;
    if (ok) *v = clang_EvalResult_getAsLongLong(r);
    if (r) clang_EvalResult_dispose(r);
    return ok;
}

/* The value --param NAME=V gives, if it does. */
static int given(imp *I, const char *name, long long *v)
{
    size_t n = strlen(name);
    for (int i = 0; i < I->o->nparams; i++) {
        const char *p = I->o->params[i];
        if (strncmp(p, name, n) == 0 && p[n] == '=') {
            char *end;
            *v = strtoll(p + n + 1, &end, 0);
            return end != p + n + 1 && !*end;
        }
    }
    return 0;
}

int imp_size_value(imp *I, CXCursor var, long long *v)
{
    char *name = imp_spelling(I, var);
    if (given(I, name, v)) return 1;
    CXCursor init = clang_Cursor_getVarDeclInitializer(var);
    if (clang_Cursor_isNull(init)) return 0;
    if (const_int(init, v)) return 1;
    CXCursor e = imp_unwrap(init), kid[3];
    while (clang_getCursorKind(e) == CXCursor_ParenExpr && imp_children(e, kid, 3) == 1) e = imp_unwrap(kid[0]);
    if (clang_getCursorKind(e) == CXCursor_ConditionalOperator && imp_children(e, kid, 3) == 3) {
        if (runtime_read(I, kid[1]) && const_int(kid[2], v)) return 1;   /* argc > 1 ? atoi(argv[1]) : 100 */
        if (runtime_read(I, kid[2]) && const_int(kid[1], v)) return 1;
    }
    if (runtime_read(I, e)) {
        imp_error(I, init, "'%s' is read when the program runs (%s); give its value: --param %s=VALUE", name,
                  imp_spelling(I, imp_unwrap(e)), name);
        return -1;
    }
    return 0;
}

typedef struct writes { imp *I; CXCursor var, rhs; int n; } writes;

static enum CXChildVisitResult count_writes(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    writes *w = data;
    CXCursor kid[2];
    int post;
    if (imp_is_write(w->I, c) && imp_children(c, kid, 2) >= 1 &&
        clang_equalCursors(base_decl(w->I, kid[0]), w->var)) {
        w->n++;
        const char *op = imp_operator(w->I, c, &post);
        CXCursor t = imp_unwrap(kid[0]);
        w->rhs = op && strcmp(op, "=") == 0 && clang_getCursorKind(t) == CXCursor_DeclRefExpr ? kid[1]
                                                                                              : clang_getNullCursor();
    } else if (clang_getCursorKind(c) == CXCursor_CallExpr) {   /* scanf("%d", &n) and the like */
        for (int a = 0, n = clang_Cursor_getNumArguments(c); a < n; a++) {
            CXCursor arg = imp_unwrap(clang_Cursor_getArgument(c, a));
            if (clang_getCursorKind(arg) == CXCursor_UnaryOperator && clang_equalCursors(base_decl(w->I, arg), w->var)) {
                w->n += 2;
                w->rhs = clang_getNullCursor();
            }
        }
    }
    return CXChildVisit_Recurse;
}

int imp_fixed_size(imp *I, CXCursor v, long long *value)
{
    if (!imp_decls_has(&I->assigned_anywhere, v)) return imp_size_value(I, v, value);
    if (!clang_Cursor_isNull(clang_Cursor_getVarDeclInitializer(v))) return 0;
    writes w = {I, v, clang_getNullCursor(), 0};
    clang_visitChildren(clang_getTranslationUnitCursor(I->tu), count_writes, &w);
    if (w.n != 1 || clang_Cursor_isNull(w.rhs)) return 0;
    if (given(I, imp_spelling(I, v), value)) return 1;
    return const_int(w.rhs, value);   /* int n; .. n = 100; */
}

/* ---- globals ---- */

static imp_bind *make_global(imp *I, CXCursor v, const char *cname)
{
    CXType t = clang_getCanonicalType(clang_getCursorType(v));
    CXCursor init = clang_Cursor_getVarDeclInitializer(v);
    long long value;
    imp_bind *saved = I->env;
    I->env = I->genv;
    if (imp_type_is_int(t) && clang_getCanonicalType(t).kind != CXType_Pointer) {
        int r = imp_fixed_size(I, v, &value);
        if (r < 0) { I->env = saved; return NULL; }
        if (r == 1) {   /* int n = 100; never assigned: a parameter */
            imp_sym *s = imp_sym_new(I, cname, SYM_PARAM);
            s->is_int = 1;
            s->value = value;
            imp_bind_sym(I, cname, s);
            I->genv = I->env;
            I->env = saved;
            return I->genv;
        }
    }
    imp_sym *s = imp_is_numbers_pointer(t) ? imp_linear_sym(I, cname, v, v) : imp_sym_new(I, cname, SYM_ARRAY);
    if (!s) { I->env = saved; return NULL; }
    s->local = s->global = 1;   /* declared once the region names it */
    if (!s->linear && imp_dims(I, v, t, s) != 0) { I->env = saved; return NULL; }
    if (s->linear) {
    } else if (clang_Cursor_isNull(init)) {
        s->val = imp_strdup(I, "0");   /* C's globals start at zero */
    } else if (s->ndims) {
        if (!(s->val = imp_table(I, s, init, t))) { I->env = saved; return NULL; }
    } else if (!s->ndims) {
        int was = I->in_init;
        I->in_init = 1;
        s->val = imp_expr(I, init);
        I->in_init = was;
        if (!s->val) { I->env = saved; return NULL; }
    }
    imp_bind_sym(I, cname, s);
    I->genv = I->env;
    I->env = saved;
    return I->genv;
}

imp_bind *imp_global(imp *I, const char *cname)
{
    for (imp_bind *b = I->genv; b; b = b->next)
        if (strcmp(b->cname, cname) == 0) return b;
    if (I->making_global > 8) return NULL;
    for (int i = 0; i < I->globals.n; i++) {
        CXString s = clang_getCursorSpelling(I->globals.at[i]);
        int hit = strcmp(clang_getCString(s), cname) == 0;
        clang_disposeString(s);
        if (!hit) continue;
        I->making_global++;
        imp_bind *b = make_global(I, I->globals.at[i], cname);
        I->making_global--;
        return b;
    }
    return NULL;
}

/* ---- what is set aside ---- */

const char *imp_given_init(imp *I, const char *name)
{
    size_t n = strlen(name);
    for (int i = 0; i < I->o->ninits; i++) {
        const char *g = I->o->inits[i];
        g += strspn(g, " ");
        if (strncmp(g, name, n) == 0 && strchr("[ =", g[n]) && g[n]) return g;
    }
    return NULL;
}

int imp_matters(imp *I, CXCursor stmt)
{
    imp_decls w = {0};
    scan_into(I, stmt, &w, 2);
    int hit = 0;
    for (int i = 0; i < w.n && !hit; i++) {
        if (!imp_decls_has(&I->region_reads, w.at[i])) continue;
        char *name = imp_spelling(I, w.at[i]);
        imp_bind *b = imp_lookup(I, name);
        hit = !imp_given_init(I, name) && !(b && b->sym && imp_given_init(I, b->sym->name));   /* --init gives it */
    }
    imp_decls_free(&w);
    return hit;
}

void imp_set_aside(imp *I, CXCursor at, const char *what)
{
    if (!I->notes) return;
    if (++I->nset_aside > 20) return;
    CXString f;
    unsigned line, col;
    clang_getPresumedLocation(clang_getCursorLocation(at), &f, &line, &col);
    fprintf(I->notes, "%s:%u:%u: note: set aside (not part of the kernel): %s\n", clang_getCString(f), line, col,
            what);
    clang_disposeString(f);
}

/* ---- constant tables ---- */

typedef struct table { imp *I; strbuf *out; int n, bad, is_int; CXCursor at; } table;

static void table_elems(table *t, CXCursor list, int depth, int ndims, long long flat, const long long *stride)
{
    CXCursor kid[256];
    int n = imp_children(list, kid, 256);
    if (n > 256) { t->bad = 1; t->at = list; return; }
    for (int k = 0; k < n && !t->bad; k++) {
        CXCursor e = imp_unwrap(kid[k]);
        long long at = flat + k * stride[depth];
        if (depth + 1 < ndims) {
            if (clang_getCursorKind(e) != CXCursor_InitListExpr) { t->bad = 1; t->at = e; return; }
            table_elems(t, e, depth + 1, ndims, at, stride);
            continue;
        }
        CXEvalResult r = clang_Cursor_Evaluate(e);
        if (!r || (clang_EvalResult_getKind(r) != CXEval_Int && clang_EvalResult_getKind(r) != CXEval_Float)) {
            if (r) clang_EvalResult_dispose(r);
            t->bad = 1;
            t->at = e;
            return;
        }
        char num[64];
        if (clang_EvalResult_getKind(r) == CXEval_Int) snprintf(num, sizeof num, "%lld", clang_EvalResult_getAsLongLong(r));
        else snprintf(num, sizeof num, "%.17g", clang_EvalResult_getAsDouble(r));
        clang_EvalResult_dispose(r);
        if (!strpbrk(num, ".en") && !t->is_int) strcat(num, ".0");   /* C converts to the element type */
        strbuf_printf(t->out, "select(%s == %lld, %s, ", "@flat", at, num);
        t->n++;
    }
}

char *imp_table(imp *I, imp_sym *s, CXCursor init, CXType t)
{
    long long size[IMP_MAXDIM], stride[IMP_MAXDIM];
    int nd = 0;
    t = clang_getCanonicalType(t);
    while (t.kind == CXType_ConstantArray && nd < IMP_MAXDIM) {
        size[nd++] = clang_getArraySize(t);
        t = clang_getCanonicalType(clang_getArrayElementType(t));
    }
    init = imp_unwrap(init);
    if (nd != s->ndims || clang_getCursorKind(init) != CXCursor_InitListExpr)
        return imp_error(I, init, "an initialiser of the array '%s' of another form; supported: a table of constants "
                         "{..} of a fixed-size array, or loops of assignments", s->name);
    stride[nd - 1] = 1;
    for (int d = nd - 2; d >= 0; d--) stride[d] = stride[d + 1] * size[d + 1];
    strbuf body = {0};
    strbuf_printf(&body, "%s", "");
    table tb = {I, &body, 0, 0, s->is_int, init};
    table_elems(&tb, init, 0, nd, 0, stride);
    if (tb.bad || tb.n > 4096) {
        free(body.s);
        return imp_error(I, tb.at, "an element of the table of '%s' that is not a constant (or a table of more than "
                         "4096); supported: a table of constants {..}, or loops of assignments", s->name);
    }
    strbuf flat = {0};   /* @flat: the element's index in C's row-major order */
    strbuf_printf(&flat, "%s", "");
    for (int d = 0; d < nd; d++) strbuf_printf(&flat, "%s@%d * %lld", d ? " + " : "", d, stride[d]);
    strbuf out = {0};
    strbuf_printf(&out, "%s", "");
    for (const char *p = body.s; *p; p++) {   /* the elements not written are 0, as in C */
        if (strncmp(p, "@flat", 5) == 0) { strbuf_printf(&out, "(%s)", flat.s); p += 4; }
        else strbuf_printf(&out, "%c", *p);
    }
    strbuf_printf(&out, "0");
    for (int k = 0; k < tb.n; k++) strbuf_printf(&out, ")");
    char *r = imp_strdup(I, out.s);
    free(body.s);
    free(flat.s);
    free(out.s);
    return r;
}
