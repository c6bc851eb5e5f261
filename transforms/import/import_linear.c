/*
 * import_linear.c — linearised arrays: a pointer to numbers (`double *A`, a kernel's argument, a
 * local or a global allocated with malloc or calloc) indexed A[i * n + j] is the array A[i][j]
 * of extents [total / n][n] when every access is so written, with the same strides, each a
 * parameter (deeper: A[(i * n + j) * m + k]).  The strides come from the first access read, the
 * first extent from the allocation's size (its factors less the strides, sizeof dropped) or the
 * array it points to (double x[N] passed as double *x: one dimension).  An access written
 * otherwise is a located error naming it.
 */
#include <stdlib.h>
#include <string.h>

#include "import_int.h"

static const char LINEAR[] = "supported: a pointer indexed A[i * n + j] (or A[(i * n + j) * m + k]) with parameter "
                             "strides, the same at every access, allocated with malloc or calloc of their product";

static CXCursor strip(imp *I, CXCursor e)
{
    for (int guard = 0; guard < 64; guard++) {
        e = imp_unwrap(e);
        CXCursor kid[3];
        int n = imp_children(e, kid, 3);
        enum CXCursorKind k = clang_getCursorKind(e);
        if (k == CXCursor_ParenExpr && n == 1) { e = kid[0]; continue; }
        if (k == CXCursor_CStyleCastExpr && n >= 1) { e = kid[n - 1]; continue; }
        break;
    }
    (void)I;
    return e;
}

static int is_op(imp *I, CXCursor e, const char *op, CXCursor kid[2])
{
    int post;
    if (clang_getCursorKind(e) != CXCursor_BinaryOperator || imp_children(e, kid, 2) != 2) return 0;
    const char *o = imp_operator(I, e, &post);
    return o && strcmp(o, op) == 0;
}

/* The text of a stride candidate if it names a parameter (n, or N a size macro), else NULL. */
static char *stride_text(imp *I, CXCursor e)
{
    e = strip(I, e);
    enum CXCursorKind k = clang_getCursorKind(e);
    if (k != CXCursor_DeclRefExpr && k != CXCursor_IntegerLiteral) return NULL;
    diag_list *d = I->d, quiet;
    diag_list_init(&quiet);
    I->d = &quiet;
    int failed = I->failed;
    char *t = imp_expr(I, e);
    I->failed = failed;
    I->d = d;
    diag_list_free(&quiet);
    imp_sym *s = t ? imp_sym_find(I, t) : NULL;
    return s && s->kind == SYM_PARAM ? t : NULL;
}

/* e = x * S + r (or r + x * S, S * x): 1 with its parts. */
static int peel(imp *I, CXCursor e, CXCursor *x, char **s, CXCursor *r)
{
    CXCursor sum[2], prod[2];
    if (!is_op(I, strip(I, e), "+", sum)) return 0;
    for (int side = 0; side < 2; side++) {
        if (!is_op(I, strip(I, sum[side]), "*", prod)) continue;
        for (int f = 1; f >= 0; f--) {
            char *t = stride_text(I, prod[f]);
            if (t) {
                *x = prod[1 - f];
                *s = t;
                *r = sum[1 - side];
                return 1;
            }
        }
    }
    return 0;
}

/* ---- the first extent: the allocation's factors ---- */

/* The extents a sizeof of an array type names (sizeof(double[n][m]): n, m), outer first: their
 * number (none for sizeof of an element or a variable). */
static int sizeof_extents(CXCursor e, CXCursor *out, int max)
{
    CXCursor kid[IMP_MAXDIM + 2];
    int n = imp_children(e, kid, IMP_MAXDIM + 2), k = 0;
    for (int i = 0; i < n && i < IMP_MAXDIM + 2 && k < max; i++) {
        enum CXCursorKind ck = clang_getCursorKind(kid[i]);
        /* the type's size expressions (their conversions to size_t follow, unexposed) */
        if (clang_isExpression(ck) && ck != CXCursor_UnaryExpr && ck != CXCursor_UnexposedExpr) out[k++] = kid[i];
    }
    return k;
}

/* The factors of an allocation's size; those of a sizeof of an array type (malloc(sizeof(double
 * [n][m]))) counted from `from` on (the row's extents of a pointer to rows left out). */
static void factors(imp *I, CXCursor e, CXCursor *out, int *n, int rowdims)
{
    CXCursor kid[2];
    e = strip(I, e);
    if (is_op(I, e, "*", kid)) {
        factors(I, kid[0], out, n, rowdims);
        factors(I, kid[1], out, n, rowdims);
        return;
    }
    if (clang_getCursorKind(e) == CXCursor_UnaryExpr) {   /* sizeof */
        CXCursor ext[IMP_MAXDIM + 2];
        int k = sizeof_extents(e, ext, IMP_MAXDIM + 2);
        for (int i = 0; i + rowdims < k && *n < 16; i++) out[(*n)++] = ext[i];
        return;
    }
    if (*n < 16) out[(*n)++] = e;
}

typedef struct alloc_find { imp *I; CXCursor decl, call; } alloc_find;

static int is_alloc(imp *I, CXCursor e)
{
    e = strip(I, e);
    if (clang_getCursorKind(e) != CXCursor_CallExpr) return 0;
    char *n = imp_spelling(I, e);
    return strcmp(n, "malloc") == 0 || strcmp(n, "calloc") == 0;
}

static enum CXChildVisitResult find_alloc(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    alloc_find *a = data;
    CXCursor kid[2];
    if (is_op(a->I, c, "=", kid) && is_alloc(a->I, kid[1])) {
        CXCursor t = strip(a->I, kid[0]);
        if (clang_getCursorKind(t) == CXCursor_DeclRefExpr && clang_equalCursors(clang_getCursorReferenced(t), a->decl)) {
            a->call = strip(a->I, kid[1]);
            return CXChildVisit_Break;
        }
    }
    return CXChildVisit_Recurse;
}

/* The first extent of an array declared double A[total] (total / the strides' values): a
 * parameter of that value, or a size macro, or the number. */
static char *declared_extent(imp *I, imp_sym *s, CXCursor decl, long long total, char **strides, int nstrides)
{
    long long v = total;
    for (int d = 0; d < nstrides; d++) {
        imp_sym *p = imp_sym_find(I, strides[d]);
        if (!p || p->value <= 0 || v % p->value)
            return imp_error(I, decl, "the size %lld of '%s' is not a multiple of its strides' values; %s", total,
                             s->name, LINEAR);
        v /= p->value;
    }
    imp_sym *p = nstrides == 0 ? imp_macro_param(I, decl, v) : NULL;
    if (p) return p->name;
    int np = 0;
    for (imp_sym *q = I->syms; q; q = q->next)
        if (q->kind == SYM_PARAM && q->value == v) { p = q; np++; }
    return np == 1 ? p->name : imp_printf(I, "%lld", v);
}

/* The first extent of a linearised array of the given strides, from its allocation; NULL after
 * an error. */
static char *first_extent(imp *I, imp_sym *s, CXCursor at, char **strides, int nstrides)
{
    CXCursor decl = s->lin_decl, call = clang_getNullCursor();
    CXCursor init = clang_Cursor_isNull(decl) ? decl : clang_Cursor_getVarDeclInitializer(decl);
    if (!clang_Cursor_isNull(init) && is_alloc(I, init)) call = strip(I, init);
    if (clang_Cursor_isNull(call) && !clang_Cursor_isNull(decl)) {
        alloc_find a = {I, decl, clang_getNullCursor()};
        clang_visitChildren(clang_getTranslationUnitCursor(I->tu), find_alloc, &a);
        call = a.call;
    }
    CXType dt = clang_getCanonicalType(clang_getCursorType(decl));
    if (clang_Cursor_isNull(call) && !clang_Cursor_isNull(decl) && dt.kind == CXType_ConstantArray)
        return declared_extent(I, s, decl, clang_getArraySize(dt), strides, nstrides);
    if (clang_Cursor_isNull(call))
        return imp_error(I, at, "the allocation of the linearised array '%s' is not in the file; %s", s->name, LINEAR);
    CXCursor f[16];
    int nf = 0;
    for (int k = 0, n = clang_Cursor_getNumArguments(call); k < n; k++)
        factors(I, clang_Cursor_getArgument(call, k), f, &nf, s->ndims ? s->ndims - 1 : nstrides);
    if (nf == 0)
        return imp_error(I, call, "the allocation of '%s' does not say its extents (only sizeof); supported: "
                         "malloc(n * m * sizeof *A), malloc(n * sizeof *A) for double (*A)[m]", s->name);
    int fn = clang_Cursor_isNull(decl) ? 0 : clang_equalCursors(clang_getCursorSemanticParent(decl), I->kernel);
    imp_bind *saved = I->env;
    if (!fn && I->main_env) I->env = I->main_env;
    char *text[16];
    int used[16] = {0};
    for (int k = 0; k < nf; k++) text[k] = stride_text(I, f[k]);
    I->env = saved;
    for (int k = 0; k < nf; k++)
        if (!text[k])
            return imp_error(I, f[k], "a factor of the allocation of '%s' that is not a parameter; %s", s->name, LINEAR);
    for (int d = 0; d < nstrides; d++) {
        int k = 0;
        while (k < nf && (used[k] || strcmp(text[k], strides[d]) != 0)) k++;
        if (k == nf)
            return imp_error(I, call, "the allocation of '%s' has no factor %s (a stride of its accesses); %s", s->name,
                             strides[d], LINEAR);
        used[k] = 1;
    }
    strbuf b = {0};
    strbuf_printf(&b, "%s", "");
    for (int k = 0; k < nf; k++)
        if (!used[k]) strbuf_printf(&b, "%s%s", b.n ? " * " : "", text[k]);
    char *r = imp_strdup(I, b.n ? b.s : "1");
    free(b.s);
    return r;
}

/* ---- accesses ---- */

int imp_linear_subs(imp *I, imp_sym *s, CXCursor access, CXCursor sub, CXCursor *subs, int *nsubs)
{
    CXCursor part[IMP_MAXDIM], x;
    char *stride[IMP_MAXDIM];
    int n = 0;
    CXCursor e = sub;
    while (n < IMP_MAXDIM - 1 && peel(I, e, &x, &stride[n], &part[n])) {
        e = x;
        n++;
    }
    if (s->ndims && n != s->ndims - 1) goto bad;
    if (s->ndims) {   /* the strides of the first access */
        for (int d = 0; d < n; d++)
            if (strcmp(stride[d], s->dims[s->ndims - 1 - d]) != 0) goto bad;
    } else {
        char *rev[IMP_MAXDIM];
        for (int d = 0; d < n; d++) rev[d] = stride[n - 1 - d];
        char *d0 = first_extent(I, s, access, stride, n);
        if (!d0) return -1;
        s->dims[0] = xstrdup(d0);
        for (int d = 0; d < n; d++) s->dims[d + 1] = xstrdup(rev[d]);
        s->ndims = n + 1;
    }
    subs[0] = e;
    for (int d = 0; d < n; d++) subs[d + 1] = part[n - 1 - d];
    *nsubs = n + 1;
    return 0;
bad:
    imp_error(I, access, "the access of the linearised array '%s' is not %s; %s", s->name,
              s->ndims ? "written with the strides of its other accesses" : "i * S + j with S a parameter", LINEAR);
    return -1;
}

int imp_is_numbers_pointer(CXType t)
{
    t = clang_getCanonicalType(t);
    return t.kind == CXType_Pointer && (imp_type_is_float(clang_getPointeeType(t)) || imp_type_is_int(clang_getPointeeType(t)));
}

imp_sym *imp_linear_sym(imp *I, const char *cname, CXCursor decl, CXCursor alloc_decl)
{
    CXType pt = clang_getCanonicalType(clang_getPointeeType(clang_getCanonicalType(clang_getCursorType(decl))));
    if (pt.kind == CXType_Float && imp_refuse_float(I, decl, imp_printf(I, "'%s'", cname))) return NULL;
    imp_sym *s = imp_sym_new(I, cname, SYM_ARRAY);
    s->is_int = imp_type_is_int(pt);
    s->linear = 1;
    s->lin_decl = alloc_decl;
    return s;
}

/* ---- pointers to rows: double (*A)[m] = malloc(n * sizeof *A), used as A[i][j] ---- */

typedef struct row_use { imp *I; CXCursor decl; int rows; } row_use;

static enum CXChildVisitResult find_row_use(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    row_use *u = data;
    CXCursor kid[2];
    if (clang_getCursorKind(c) == CXCursor_ArraySubscriptExpr && imp_children(c, kid, 2) == 2) {
        CXCursor b = strip(u->I, kid[0]);
        if (clang_getCursorKind(b) == CXCursor_DeclRefExpr && clang_equalCursors(clang_getCursorReferenced(b), u->decl)) {
            u->rows = 1;
            return CXChildVisit_Break;
        }
    }
    return CXChildVisit_Recurse;
}

int imp_row_pointer(imp *I, CXCursor decl)
{
    row_use u = {I, decl, 0};
    clang_visitChildren(clang_getCursorSemanticParent(decl), find_row_use, &u);
    return u.rows;
}

char *imp_alloc_extent(imp *I, imp_sym *s, CXCursor decl)
{
    CXCursor was = s->lin_decl;
    s->lin_decl = decl;
    char *r = first_extent(I, s, decl, NULL, 0);
    s->lin_decl = was;
    return r;
}
