/*
 * import_decl.c — the declarations of the imported program: parameters (the kernel's integer
 * arguments the region reads, valued by what main passes or --param; int variables that are
 * sizes, import_scope.c), arrays and scalars (the kernel's other arguments and its local
 * variables, with the extents written in the declaration: A[n][m] with parameters gives n and m
 * — PolyBench's POLYBENCH_2D(A,N,M,n,m) reads so with POLYBENCH_USE_C99_PROTO, which the
 * importer defines; a constant extent that is the value of exactly one parameter is that
 * parameter, as is one written with a size macro, import_macro.c; pointers to numbers are
 * linearised arrays, import_linear.c), and the outputs (--output, else the arrays main passes to
 * print_array, else the arrays the region writes that the code after it reads, else every array
 * the region writes).
 */
#include <stdlib.h>
#include <string.h>

#include "import_int.h"

static const char TYPES[] = "supported: int and double scalars and arrays";

/* ---- extents ---- */

typedef struct toks { CXToken *t; unsigned n; } toks;

static char *tok(imp *I, toks *k, unsigned i)
{
    CXString s = clang_getTokenSpelling(I->tu, k->t[i]);
    char *r = imp_strdup(I, clang_getCString(s));
    clang_disposeString(s);
    return r;
}

/* The .apm text of tokens [a, b) of a size, its names parameters; NULL if a name is not one. */
static char *size_text(imp *I, toks *k, unsigned a, unsigned b)
{
    strbuf out = {0};
    strbuf_printf(&out, "%s", "");
    for (unsigned i = a; i < b; i++) {
        char *s = tok(I, k, i);
        if (clang_getTokenKind(k->t[i]) == CXToken_Identifier) {
            imp_bind *bd = imp_lookup(I, s);
            imp_sym *p = bd && bd->sym && bd->sym->kind == SYM_PARAM ? bd->sym : NULL;
            if (bd && !bd->sym && bd->text) p = imp_sym_find(I, bd->text);   /* init_array's n: main's n */
            if (p && p->kind != SYM_PARAM) p = NULL;
            if (!p) { free(out.s); return NULL; }
            s = p->name;
        }
        strbuf_printf(&out, "%s%s", i > a ? " " : "", s);
    }
    /* PolyBench's POLYBENCH_PADDING_FACTOR, 0 unless asked for */
    if (out.n > 4 && strcmp(out.s + out.n - 4, " + 0") == 0) out.s[out.n -= 4] = '\0';
    /* a bare number (a size macro, expanded): the caller looks for the parameter of that value */
    char *r = out.n && strspn(out.s, "0123456789") != out.n ? imp_strdup(I, out.s) : NULL;
    free(out.s);
    return r;
}

/* A[e1][e2]..: the bracketed sizes after the name, mapped to parameters where they can be
 * (pooled texts in txt[]); a size written as one number goes to num[] (else -1). */
static void bracket_dims(imp *I, toks *k, int ndims, const char *cname, char **txt, long long *num)
{
    unsigned i = 0;
    while (i < k->n && strcmp(tok(I, k, i), cname) != 0) i++;
    for (int d = 0; d < ndims && i < k->n; d++) {
        while (i < k->n && strcmp(tok(I, k, i), "[") != 0) i++;
        unsigned a = ++i;
        int depth = 1;
        for (; i < k->n && depth; i++) {
            char *t = tok(I, k, i);
            depth += strcmp(t, "[") == 0 ? 1 : strcmp(t, "]") == 0 ? -1 : 0;
        }
        if (depth || i - 1 <= a) continue;
        txt[d] = size_text(I, k, a, i - 1);
        char *end, *t = tok(I, k, a);
        long long v = strtoll(t, &end, 0);
        if (i - 1 == a + 1 && clang_getTokenKind(k->t[a]) == CXToken_Literal && end != t && !*end) num[d] = v;
    }
}

/* Is the variable declared as a pointer, `(*A)[n]`, rather than an array parameter `A[][n]`? */
static int pointer_declarator(imp *I, toks *k, const char *cname)
{
    unsigned i = 0;
    while (i < k->n && strcmp(tok(I, k, i), cname) != 0) i++;
    return i + 1 < k->n && strcmp(tok(I, k, i + 1), ")") == 0;
}

int imp_dims(imp *I, CXCursor decl, CXType t, imp_sym *s)
{
    long long size[IMP_MAXDIM];
    int nd = 0, rows = 0;
    t = clang_getCanonicalType(t);
    if (t.kind == CXType_Pointer) {
        /* an array parameter: its first extent is only in the text, or, declared as a pointer to
         * rows (double (*A)[n]), it is the extent of what the kernel's caller passes; a local
         * pointer to an array (PolyBench's heap arrays, used as (*B)[i][j]): the array it points
         * to; one used as A[i][j] points to rows: its first extent is the allocation's */
        toks k = {NULL, 0};
        clang_tokenize(I->tu, clang_getCursorExtent(decl), &k.t, &k.n);
        int ptr = pointer_declarator(I, &k, imp_spelling(I, decl));
        clang_disposeTokens(I->tu, k.t, k.n);
        if (clang_getCursorKind(decl) == CXCursor_ParmDecl) { size[nd++] = -1; rows = ptr; }
        else if (imp_row_pointer(I, decl)) { size[nd++] = -1; rows = 1; }
        t = clang_getCanonicalType(clang_getPointeeType(t));
    }
    while ((t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray || t.kind == CXType_VariableArray) &&
           nd < IMP_MAXDIM) {
        size[nd++] = t.kind == CXType_ConstantArray ? clang_getArraySize(t) : -1;
        t = clang_getCanonicalType(clang_getArrayElementType(t));
    }
    if (!imp_type_is_int(t) && !imp_type_is_float(t)) {
        CXString ts = clang_getTypeSpelling(t);
        imp_error(I, decl, "'%s' of type %s; %s", s->name, clang_getCString(ts), TYPES);
        clang_disposeString(ts);
        return -1;
    }
    if (t.kind == CXType_Float && imp_refuse_float(I, decl, imp_printf(I, "'%s'", s->name))) return -1;
    s->is_int = imp_type_is_int(t);
    s->ndims = nd;
    if (nd == 0) return 0;
    toks k = {NULL, 0};
    char *txt[IMP_MAXDIM] = {0};
    long long num[IMP_MAXDIM];
    for (int d = 0; d < nd; d++) num[d] = -1;
    clang_tokenize(I->tu, clang_getCursorExtent(decl), &k.t, &k.n);
    bracket_dims(I, &k, nd - rows, imp_spelling(I, decl), txt + rows, num + rows);
    clang_disposeTokens(I->tu, k.t, k.n);
    if (rows && !s->local) {
        int param = clang_getCursorKind(decl) == CXCursor_ParmDecl;
        if (param && clang_Cursor_isNull(s->lin_decl)) {
            imp_error(I, decl, "the number of rows of '%s' (a pointer to rows) is not known: no call of the kernel "
                      "passes it an array of the file; supported: a call passing an array or a pointer to rows "
                      "the file allocates (double (*a)[n] = malloc(m * sizeof *a))", s->name);
            return -1;
        }
        char *first = imp_alloc_extent(I, s, param ? s->lin_decl : decl);
        if (!first) return -1;
        s->dims[0] = xstrdup(first);
    }
    for (int d = 0; d < nd; d++) {
        if (s->dims[d]) continue;
        if (txt[d]) { s->dims[d] = xstrdup(txt[d]); continue; }
        if (size[d] < 0 && num[d] >= 0) size[d] = num[d];   /* double u[2][n]: the 2 */
        if (size[d] < 0 && s->local) {   /* a temporary of the init code: its extent is not needed */
            s->dims[d] = xstrdup("?");
            continue;
        }
        if (size[d] < 0) {
            imp_error(I, decl, "the extent of dimension %d of '%s' is not written as a parameter or a constant; "
                      "supported: A[N][M] or PolyBench's POLYBENCH_2D(A,N,M,n,m)", d + 1, s->name);
            return -1;
        }
        imp_sym *p = imp_macro_param(I, decl, size[d]);   /* A[N]: N's parameter */
        if (p) { s->dims[d] = xstrdup(p->name); continue; }
        int np = 0;   /* else the one parameter of this value, if there is one */
        for (imp_sym *q = I->syms; q; q = q->next)
            if (q->kind == SYM_PARAM && q->value == size[d]) { p = q; np++; }
        if (np == 1) s->dims[d] = xstrdup(p->name);
        else s->dims[d] = xasprintf("%lld", size[d]);
    }
    return 0;
}

/* ---- parameters ---- */

/* The value main passes for an integer argument: a constant, or a variable with a constant
 * initialiser (int n = N;). */
static int param_value(imp *I, CXCursor arg, imp_sym *p)
{
    CXCursor e = imp_unwrap(arg);
    if (clang_getCursorKind(e) == CXCursor_DeclRefExpr) {
        CXCursor v = clang_getCursorReferenced(e);
        int r = clang_getCursorKind(v) == CXCursor_VarDecl ? imp_fixed_size(I, v, &p->value) : 0;
        if (r < 0) return -1;
        if (r > 0) {
            CXCursor init = clang_Cursor_getVarDeclInitializer(v);
            CXCursor lit = clang_Cursor_isNull(init) ? init : imp_unwrap(init);
            const char *m = !clang_Cursor_isNull(lit) && clang_getCursorKind(lit) == CXCursor_IntegerLiteral ?
                            imp_macro_of(I, lit, p->value) : NULL;
            if (m) p->macro = xstrdup(m);
            return 0;
        }
        CXCursor init = clang_Cursor_getVarDeclInitializer(v);
        if (!clang_Cursor_isNull(init)) e = init;
    }
    CXEvalResult r = clang_Cursor_Evaluate(e);
    if (!r || clang_EvalResult_getKind(r) != CXEval_Int) {
        if (r) clang_EvalResult_dispose(r);
        imp_error(I, arg, "the value of parameter '%s' is not a constant or a variable initialised with one; "
                  "supported: kernel(N, ..) or int n = N; kernel(n, ..)", p->name);
        return -1;
    }
    p->value = clang_EvalResult_getAsLongLong(r);
    clang_EvalResult_dispose(r);
    const char *m = clang_getCursorKind(imp_unwrap(e)) == CXCursor_IntegerLiteral ?
                    imp_macro_of(I, imp_unwrap(e), p->value) : NULL;
    if (m) p->macro = xstrdup(m);
    return 0;
}


/* The variable a call's argument names under casts and parentheses ((double *)A, (A)), or null. */
static CXCursor passed_decl(imp *I, CXCursor a)
{
    (void)I;
    CXCursor arg = imp_unwrap(a);
    while (clang_getCursorKind(arg) == CXCursor_CStyleCastExpr || clang_getCursorKind(arg) == CXCursor_ParenExpr) {
        CXCursor kid[2];
        int m = imp_children(arg, kid, 2);
        if (m < 1) break;
        arg = imp_unwrap(kid[m - 1]);
    }
    return clang_getCursorKind(arg) == CXCursor_DeclRefExpr ? clang_getCursorReferenced(arg) : clang_getNullCursor();
}
/* The kernel's arguments: bindings in I->env (the kernel's names) and in *main_env (the names
 * main passes). */
int imp_kernel_params(imp *I)
{
    int n = clang_Cursor_getNumArguments(I->kernel);
    int called = !clang_Cursor_isNull(I->kernel_call);
    for (int pass = 0; pass < 2; pass++)   /* the integers first: a size macro is one of them, if it is */
    for (int k = 0; k < n; k++) {
        CXCursor p = clang_Cursor_getArgument(I->kernel, k);
        CXCursor a = called && k < clang_Cursor_getNumArguments(I->kernel_call) ?
                     clang_Cursor_getArgument(I->kernel_call, k) : clang_getNullCursor();
        char *cname = imp_spelling(I, p);
        CXType t = clang_getCanonicalType(clang_getCursorType(p));
        if (!imp_decls_has(&I->region_reads, p)) continue;   /* main's argc: not the program's */
        if (imp_type_is_int(t) != (pass == 0)) continue;
        I->macro_params = pass;
        if (imp_type_is_int(t)) {
            long long given;
            if (clang_Cursor_isNull(a) && imp_size_value(I, p, &given) == 1) {   /* --param NAME=V */
                imp_sym *s = imp_sym_new(I, cname, SYM_PARAM);
                s->is_int = 1;
                s->value = given;
                imp_bind_sym(I, cname, s);
                continue;
            }
            if (clang_Cursor_isNull(a)) {
                imp_error(I, p, "no call of the kernel gives parameter '%s' a value; supported: a kernel called "
                          "in the file with constants or variables initialised with constants, or --param %s=VALUE",
                          cname, cname);
                return -1;
            }
            imp_sym *s = imp_sym_new(I, cname, SYM_PARAM);
            s->is_int = 1;
            imp_bind_sym(I, cname, s);
            if (param_value(I, a, s) != 0) return -1;
            continue;
        }
        enum CXTypeKind pk = clang_getCanonicalType(clang_getPointeeType(t)).kind;
        if (imp_is_numbers_pointer(t) && called) {   /* double *A: linearised */
            imp_sym *s = imp_linear_sym(I, cname, p, passed_decl(I, a));
            if (!s) return -1;
            imp_bind_sym(I, cname, s);
            continue;
        }
        if (t.kind == CXType_Pointer && pk != CXType_ConstantArray && pk != CXType_VariableArray) {
            imp_error(I, p, "'%s' is a pointer; supported: arrays with their extents (double A[N][M], "
                      "PolyBench's POLYBENCH_2D(A,N,M,n,m)) and int or double scalars", cname);
            return -1;
        }
        imp_sym *s = imp_sym_new(I, cname, SYM_ARRAY);
        imp_bind_sym(I, cname, s);
        if (t.kind == CXType_Pointer)   /* double (*a)[n]: the caller's array gives its rows */
            s->lin_decl = called ? passed_decl(I, a) : clang_getNullCursor();
        if (imp_dims(I, p, t, s) != 0) return -1;
    }
    return 0;
}

/* ---- local declarations ---- */

static int one_local(imp *I, CXCursor v, int local, strbuf *region)
{
    char *cname = imp_spelling(I, v);
    CXType t = clang_getCanonicalType(clang_getCursorType(v));
    CXCursor init = clang_Cursor_getVarDeclInitializer(v);
    int has_init = !clang_Cursor_isNull(init);
    imp_bind *b = imp_lookup(I, cname);
    imp_sym *s = b && b->sym && b->sym->kind == SYM_ARRAY && region == NULL && local ? b->sym : NULL;
    if (b && b->sym && b->sym->kind == SYM_PARAM && local) return 0;     /* main's int n = N */
    if (!s && !region && imp_type_is_int(t) && imp_decls_has(&I->region_reads, v)) {   /* int n = 100; a size */
        long long value;
        int r = imp_fixed_size(I, v, &value);
        if (r < 0) return -1;
        if (r > 0) {
            imp_sym *p = imp_sym_new(I, cname, SYM_PARAM);
            p->is_int = 1;
            p->value = value;
            CXCursor lit = has_init ? imp_unwrap(init) : init;
            const char *m = has_init && clang_getCursorKind(lit) == CXCursor_IntegerLiteral ? imp_macro_of(I, lit, value)
                                                                                           : NULL;
            if (m) p->macro = xstrdup(m);
            imp_bind_sym(I, cname, p);
            return 0;
        }
    }
    if (!s && imp_type_is_int(t) && !has_init && !region && local) return 0;   /* a loop variable */
    if (!s && imp_type_is_int(t) && !has_init && !region) {   /* the kernel's: a loop variable or a scalar */
        s = imp_sym_new(I, cname, SYM_ARRAY);
        s->is_int = 1;
        s->local = s->lazy = 1;
        imp_bind_sym(I, cname, s);
        return 0;
    }
    if (!s && local && !imp_type_is_int(t) && !imp_type_is_float(t) && t.kind != CXType_Pointer &&
        t.kind != CXType_ConstantArray && t.kind != CXType_VariableArray)
        return 0;                                                       /* main's other variables */
    enum CXTypeKind pk = clang_getCanonicalType(clang_getPointeeType(t)).kind;
    if (!s && local && t.kind == CXType_Pointer && pk != CXType_ConstantArray && pk != CXType_VariableArray)
        return 0;                                                       /* char **argv and the like */
    if (!s && !local && !region && imp_is_numbers_pointer(t)) {   /* double *A = malloc(..): linearised */
        if (!(s = imp_linear_sym(I, cname, v, v))) return -1;
        imp_bind_sym(I, cname, s);
        return 0;
    }
    if (!s && !local && t.kind == CXType_Pointer && pk != CXType_ConstantArray && pk != CXType_VariableArray) {
        imp_error(I, v, "'%s' is a pointer; supported: int and double scalars and arrays", cname);
        return -1;
    }
    if (!s) {
        s = imp_sym_new(I, cname, SYM_ARRAY);
        s->local = local;
        if (imp_dims(I, v, t, s) != 0) return -1;
        imp_bind_sym(I, cname, s);
    }
    if (!has_init && !region && !s->val && clang_Cursor_getStorageClass(v) == CX_SC_Static)
        s->val = imp_strdup(I, "0");   /* a static starts at zero */
    if (!has_init) return 0;
    if (t.kind == CXType_Pointer && clang_getCursorKind(imp_unwrap(init)) != CXCursor_UnaryOperator) {
        CXCursor call = imp_unwrap(init);   /* an allocation: the elements get their values later */
        while (clang_getCursorKind(call) == CXCursor_CStyleCastExpr || clang_getCursorKind(call) == CXCursor_ParenExpr) {
            CXCursor kid[2];
            int m = imp_children(call, kid, 2);
            if (m < 1) break;
            call = imp_unwrap(kid[m - 1]);
        }
        if (clang_getCursorKind(call) == CXCursor_CallExpr && strcmp(imp_spelling(I, call), "calloc") == 0 && !s->val)
            s->val = imp_strdup(I, "0");   /* calloc's are zero */
        return 0;
    }
    if (s->ndims && region) {
        imp_error(I, init, "an initialiser of the array '%s' in the region; supported: loops of assignments", cname);
        return -1;
    }
    if (s->ndims) return (s->val = imp_table(I, s, init, t)) ? 0 : -1;   /* a table of constants */
    if (!region) {
        char *e = imp_expr(I, init);
        if (!e) return -1;
        s->val = imp_strdup(I, e);
        return 0;
    }
    char *e = imp_expr(I, init);
    if (!e) return -1;
    s->written = 1;
    strbuf_printf(region, "S%d: %s = %s\n", ++I->nlabels, s->name, e);
    return 0;
}

int imp_local_decl(imp *I, CXCursor decl, int local, strbuf *region)
{
    CXCursor kid[64];
    int n = imp_children(decl, kid, 64);
    for (int i = 0; i < n && i < 64; i++) {
        if (clang_getCursorKind(kid[i]) != CXCursor_VarDecl) {
            if (region) { imp_error(I, kid[i], "a declaration of another kind; %s", TYPES); return -1; }
            continue;
        }
        if (one_local(I, kid[i], local, region) != 0) return -1;
    }
    return 0;
}

/* ---- outputs ---- */

typedef struct found { CXCursor call; int ok; } found;

static enum CXChildVisitResult find_print(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    found *f = data;
    if (clang_getCursorKind(c) == CXCursor_CallExpr) {
        CXString s = clang_getCursorSpelling(c);
        int hit = strcmp(clang_getCString(s), "print_array") == 0;
        clang_disposeString(s);
        if (hit) { f->call = c; f->ok = 1; return CXChildVisit_Break; }
    }
    return CXChildVisit_Recurse;
}

typedef struct use { CXCursor param; unsigned at; } use;

static enum CXChildVisitResult find_use(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    use *u = data;
    if (clang_getCursorKind(c) == CXCursor_DeclRefExpr && clang_equalCursors(clang_getCursorReferenced(c), u->param)) {
        u->at = imp_offset(c, 0);
        return CXChildVisit_Break;
    }
    return CXChildVisit_Recurse;
}

/* Where the body of `fn` first names `param` (~0u: nowhere). */
static unsigned first_use(CXCursor fn, CXCursor param)
{
    use u = {param, ~0u};
    clang_visitChildren(fn, find_use, &u);
    return u.at;
}

static int add_output(imp *I, char ***names, int *n, imp_sym *s)
{
    for (int i = 0; i < *n; i++)
        if (strcmp((*names)[i], s->name) == 0) return 0;
    char **nn = xrealloc(*names, (size_t)(*n + 1) * sizeof *nn);
    s->named = 1;   /* an output is declared */
    *names = nn;
    nn[(*n)++] = imp_strdup(I, s->name);
    return 0;
}

typedef struct after { imp *I; char ***names; int *n; unsigned from; } after;

static enum CXChildVisitResult read_after_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    after *a = data;
    if (imp_offset(c, 1) <= a->from) return CXChildVisit_Continue;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_CallExpr && strcmp(imp_spelling(a->I, c), "free") == 0) return CXChildVisit_Continue;
    if (k == CXCursor_DeclRefExpr && imp_offset(c, 0) >= a->from) {
        imp_bind *b = imp_lookup(a->I, imp_spelling(a->I, c));
        if (b && b->sym && b->sym->kind == SYM_ARRAY && b->sym->written && !b->sym->local)
            add_output(a->I, a->names, a->n, b->sym);
    }
    return CXChildVisit_Recurse;
}

/* The arrays the region writes that the code after it reads (prints, checks), in that order. */
static void read_after(imp *I, char ***names, int *n)
{
    int in_main = clang_equalCursors(I->main_fn, I->kernel);
    if (!in_main && clang_Cursor_isNull(I->kernel_call)) return;
    after a = {I, names, n, in_main ? I->scop_hi : imp_offset(I->kernel_call, 1)};
    if (in_main && !I->have_scop) return;
    clang_visitChildren(I->main_fn, read_after_visit, &a);
}

/* The output arrays' names (pooled strings in a malloc'd vector); `main_env` names main's
 * variables. */
int imp_outputs(imp *I, char ***names, int *n)
{
    *names = NULL;
    *n = 0;
    if (I->o->outputs) {
        char *list = imp_strdup(I, I->o->outputs), *save = NULL;
        for (char *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
            imp_sym *s = imp_sym_find(I, imp_apm_name(I, w));
            if (!s || s->kind != SYM_ARRAY || s->local) {
                diag_add(I->d, I->o->file, 0, 0, "--output %s: not an array or scalar of the kernel", w);
                I->failed = 1;
                return -1;
            }
            add_output(I, names, n, s);
        }
        return 0;
    }
    found f = {clang_getNullCursor(), 0};
    if (!clang_Cursor_isNull(I->main_fn)) clang_visitChildren(I->main_fn, find_print, &f);
    /* the arrays print_array prints, in the order it prints them (where it first names them) */
    CXCursor def = f.ok ? clang_getCursorDefinition(clang_getCursorReferenced(f.call)) : clang_getNullCursor();
    int nargs = f.ok ? clang_Cursor_getNumArguments(f.call) : 0;
    unsigned first[64];
    imp_sym *arg[64];
    for (int k = 0; k < nargs && k < 64; k++) {
        arg[k] = imp_argsym(I, clang_Cursor_getArgument(f.call, k));
        first[k] = clang_Cursor_isNull(def) ? (unsigned)k : first_use(def, clang_Cursor_getArgument(def, k));
    }
    for (int done = 0; done < nargs && done < 64; done++) {
        int best = -1;
        for (int k = 0; k < nargs && k < 64; k++)
            if (arg[k] && first[k] != ~0u && (best < 0 || first[k] < first[best])) best = k;
        if (best < 0) break;
        if (!arg[best]->local) add_output(I, names, n, arg[best]);
        arg[best] = NULL;
    }
    if (!f.ok) read_after(I, names, n);
    for (imp_sym *s = I->syms; !*n && s; s = s->next)   /* nothing printed: what the region writes */
        if (s->kind == SYM_ARRAY && s->written && !s->local) add_output(I, names, n, s);
    for (imp_sym *s = I->syms; *n == 0 && s; s = s->next)
        if (s->kind == SYM_ARRAY && s->written) add_output(I, names, n, s);
    if (*n == 0) {
        diag_add(I->d, I->o->file, 0, 0, "the region writes no array: nothing to output");
        I->failed = 1;
        return -1;
    }
    return 0;
}
