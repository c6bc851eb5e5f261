/*
 * import_util.c — the C importer's small tools: a growing text buffer, pooled strings, located
 * errors, libclang cursor helpers (children, operators, types, macro names), name bindings and
 * symbols.  See import_int.h.
 */
#include <stdlib.h>
#include <string.h>

#include "import_int.h"

static void *pool_add(imp *I, void *p)
{
    if (I->npool == I->cappool) {
        I->cappool = I->cappool ? 2 * I->cappool : 256;
        void **np = xrealloc(I->pool, (size_t)I->cappool * sizeof *np);
        I->pool = np;
    }
    I->pool[I->npool++] = p;
    return p;
}

char *imp_strdup(imp *I, const char *s) { return pool_add(I, xstrdup(s)); }

char *imp_printf(imp *I, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) s = NULL;
    va_end(ap);
    return pool_add(I, s);
}

char *imp_spelling(imp *I, CXCursor c)
{
    CXString s = clang_getCursorSpelling(c);
    char *r = imp_strdup(I, clang_getCString(s));
    clang_disposeString(s);
    return r;
}

/* file:line:col of a cursor in the file the preprocessor read (its line markers; the column is
 * the one in the preprocessed line, where a macro was expanded). */
static void where(CXCursor c, char **file, unsigned *line, unsigned *col)
{
    CXString s;
    clang_getPresumedLocation(clang_getCursorLocation(c), &s, line, col);
    *file = xstrdup(clang_getCString(s) ? clang_getCString(s) : "?");
    clang_disposeString(s);
}

void *imp_error(imp *I, CXCursor at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0) msg = NULL;
    va_end(ap);
    char *file;
    unsigned line, col;
    where(at, &file, &line, &col);
    diag_add(I->d, file, (int)line, (int)col, "%s", msg ? msg : "out of memory");
    free(file);
    free(msg);
    I->failed = 1;
    return NULL;
}

int imp_refuse_float(imp *I, CXCursor at, const char *what)
{
    imp_error(I, at, "%s is float: the .apm language computes in double only, so C's single-precision values "
              "cannot be had; supported: double data (import with -D float=double to take the program as the C "
              "program built with -Dfloat=double computes it)", what);
    return 1;
}

typedef struct kids { CXCursor *out; int n, max; } kids;

static enum CXChildVisitResult collect(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    kids *k = data;
    if (k->n < k->max) k->out[k->n] = c;
    k->n++;
    return CXChildVisit_Continue;
}

int imp_children(CXCursor c, CXCursor *out, int max)
{
    kids k = {out, 0, max};
    clang_visitChildren(c, collect, &k);
    return k.n;
}

CXCursor imp_unwrap(CXCursor c)
{
    for (;;) {
        enum CXCursorKind k = clang_getCursorKind(c);
        CXCursor kid[2];
        if (k == CXCursor_UnexposedExpr && imp_children(c, kid, 2) == 1) { c = kid[0]; continue; }
        return c;
    }
}

static unsigned offset_of(CXSourceLocation l)
{
    unsigned off;
    clang_getExpansionLocation(l, NULL, NULL, NULL, &off);
    return off;
}

static char *token_text(imp *I, CXToken t)
{
    CXString s = clang_getTokenSpelling(I->tu, t);
    char *r = imp_strdup(I, clang_getCString(s));
    clang_disposeString(s);
    return r;
}

/* The operator is the token after the left operand (the text is preprocessed: no macro hides it);
 * a unary operator is the first token, or the last one when it follows its operand. */
const char *imp_operator(imp *I, CXCursor c, int *postfix)
{
    CXCursor kid[3];
    int n = imp_children(c, kid, 3);
    CXToken *toks = NULL;
    unsigned nt = 0;
    const char *op = NULL;
    *postfix = 0;
    clang_tokenize(I->tu, clang_getCursorExtent(c), &toks, &nt);
    if (n == 2) {
        unsigned end = imp_offset(kid[0], 1);
        for (unsigned i = 0; i < nt && !op; i++)
            if (offset_of(clang_getTokenLocation(I->tu, toks[i])) >= end) op = token_text(I, toks[i]);
    } else if (n == 1 && nt >= 2) {
        if (offset_of(clang_getTokenLocation(I->tu, toks[0])) < imp_offset(kid[0], 0)) {
            op = token_text(I, toks[0]);
        } else {
            op = token_text(I, toks[nt - 1]);
            *postfix = 1;
        }
    }
    clang_disposeTokens(I->tu, toks, nt);
    return op;
}

int imp_type_is_int(CXType t)
{
    t = clang_getCanonicalType(t);
    return t.kind >= CXType_Bool && t.kind <= CXType_Int128 && t.kind != CXType_Void;
}

int imp_type_is_float(CXType t)
{
    t = clang_getCanonicalType(t);
    return t.kind == CXType_Float || t.kind == CXType_Double || t.kind == CXType_LongDouble;
}

int imp_in_file(imp *I, CXCursor c)
{
    CXString f;
    unsigned line, col;
    clang_getPresumedLocation(clang_getCursorLocation(c), &f, &line, &col);
    int in = clang_getCString(f) && strcmp(clang_getCString(f), I->o->file) == 0;
    clang_disposeString(f);
    return in;
}

unsigned imp_line(CXCursor c)
{
    CXString f;
    unsigned line = 0, col;
    clang_getPresumedLocation(clang_getCursorLocation(c), &f, &line, &col);
    clang_disposeString(f);
    return line;
}

unsigned imp_offset(CXCursor c, int end)
{
    CXSourceRange r = clang_getCursorExtent(c);
    unsigned off;
    clang_getExpansionLocation(end ? clang_getRangeEnd(r) : clang_getRangeStart(r), NULL, NULL, NULL, &off);
    return off;
}

/* ---- bindings and symbols ---- */

void imp_bind_sym(imp *I, const char *cname, imp_sym *s)
{
    imp_bind *b = pool_add(I, xcalloc(1, sizeof *b));
    b->cname = imp_strdup(I, cname);
    b->sym = s;
    b->next = I->env;
    I->env = b;
}

void imp_bind_text(imp *I, const char *cname, const char *text, int nonneg)
{
    imp_bind *b = pool_add(I, xcalloc(1, sizeof *b));
    b->cname = imp_strdup(I, cname);
    b->text = imp_strdup(I, text);
    b->nonneg = nonneg;
    b->next = I->env;
    I->env = b;
}

imp_bind *imp_lookup(imp *I, const char *cname)
{
    for (imp_bind *b = I->env; b; b = b->next)
        if (strcmp(b->cname, cname) == 0) {
            if (b->sym && I->in_region) b->sym->named = 1;
            return b;
        }
    imp_bind *g = imp_global(I, cname);
    if (g && g->sym && I->in_region) g->sym->named = 1;
    if (g && g->sym && I->in_region) g->sym->local = 0;   /* the region names it: declared */
    return g;
}

static const char *const reserved[] = {
    "program", "level", "reference", "param", "array", "init", "output", "dist", "replicate", "offset",
    "let", "if", "else", "for", "step", "seq", "par", "proc", "send", "to", "at", "when", "as", "cost",
    "double", "int", "min", "max", "floor", "ceil", "abs", "sqrt", "isqrt", "select", "band", "bor", "bxor",
    "sum", "prod", "repeat", "op", "by", "from", "block", "bcast", "reduce", "allreduce", "scan", "exscan",
    "allgather", "gather", "scatter", "multicast", "and", "or", "crand", "clrand48", "cdrand48", "sin", "cos",
    "tan", "exp", "log", "pow", NULL,
};

char *imp_apm_name(imp *I, const char *cname)
{
    for (int i = 0; reserved[i]; i++)
        if (strcmp(reserved[i], cname) == 0) return imp_printf(I, "%s_", cname);
    return imp_strdup(I, cname);
}

imp_sym *imp_sym_find(imp *I, const char *name)
{
    for (imp_sym *s = I->syms; s; s = s->next)
        if (strcmp(s->name, name) == 0) return s;
    return NULL;
}

imp_sym *imp_sym_new(imp *I, const char *cname, imp_symkind kind)
{
    imp_sym *s = xcalloc(1, sizeof *s);
    char *base = imp_apm_name(I, cname);
    s->name = xstrdup(base);
    /* two C variables of one name (an init temporary and a kernel array): the later gets a number */
    for (int k = 2; imp_sym_find(I, s->name); k++) {
        free(s->name);
        s->name = xasprintf("%s%d", base, k);
    }
    s->kind = kind;
    *I->tail = s;
    I->tail = &s->next;
    return s;
}

int imp_is_write(imp *I, CXCursor c)
{
    int post;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_CompoundAssignOperator) return 1;
    const char *op = k == CXCursor_BinaryOperator || k == CXCursor_UnaryOperator ? imp_operator(I, c, &post) : NULL;
    return op && (strcmp(op, "=") == 0 || strcmp(op, "++") == 0 || strcmp(op, "--") == 0);
}
