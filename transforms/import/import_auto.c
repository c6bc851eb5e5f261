/*
 * import_auto.c — the kernel of a file without `#pragma scop` and without --function: the loop
 * nests it is made of, found as Polly finds its regions where nothing marks them.  A candidate is
 * a maximal run of consecutive `for` statements of a function's body that calls nothing but
 * math.h's functions (a loop that prints, draws random numbers or calls the file's helpers is
 * the driver's, not the kernel's).  The kernel is the candidate of a function other than main
 * with the deepest nest, else main's deepest; --region K or line:L picks another.  Two candidates
 * equally good are an error that lists them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_int.h"

enum { MAX_NESTS = 64 };

typedef struct nest {
    CXCursor fn, first, last;
    int depth, in_main, loops, line_lo, line_hi, col;
} nest;

typedef struct walk {
    imp *I;
    int depth, foreign;   /* the deepest loop nesting seen; a call of something not math.h's */
} walk;

static enum CXChildVisitResult walk_visit(CXCursor c, CXCursor parent, CXClientData data);

/* The depth of the loops under c (c itself counted when it is a loop), and its foreign calls. */
static int loop_depth(imp *I, CXCursor c, int *foreign)
{
    walk w = {I, 0, 0};
    clang_visitChildren(c, walk_visit, &w);
    *foreign |= w.foreign;
    return w.depth + (clang_getCursorKind(c) == CXCursor_ForStmt);
}

static enum CXChildVisitResult walk_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    walk *w = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_CallExpr && !imp_math_call(imp_spelling(w->I, c))) w->foreign = 1;
    if (k == CXCursor_ForStmt) {
        int d = loop_depth(w->I, c, &w->foreign);
        if (d > w->depth) w->depth = d;
        return CXChildVisit_Continue;
    }
    return CXChildVisit_Recurse;
}

/* The line (and column) where c starts, or ends. */
static int line_of(CXCursor c, int end, int *col)
{
    CXString f;
    unsigned line = 0, cl = 0;
    CXSourceRange r = clang_getCursorExtent(c);
    clang_getPresumedLocation(end ? clang_getRangeEnd(r) : clang_getRangeStart(r), &f, &line, &cl);
    clang_disposeString(f);
    if (col) *col = (int)cl;
    return (int)line;
}

typedef struct finder { imp *I; nest *out; int n; } finder;

/* The runs of loops of one function's body. */
static void function_nests(finder *f, CXCursor fn)
{
    CXCursor kid[64], body = clang_getNullCursor(), st[256];
    for (int k = 0, n = imp_children(fn, kid, 64); k < n && k < 64; k++)
        if (clang_getCursorKind(kid[k]) == CXCursor_CompoundStmt) body = kid[k];
    if (clang_Cursor_isNull(body)) return;
    int n = imp_children(body, st, 256);
    CXString s = clang_getCursorSpelling(fn);
    int in_main = strcmp(clang_getCString(s), "main") == 0;
    clang_disposeString(s);
    for (int i = 0; i < n && i < 256 && f->n < MAX_NESTS;) {
        if (clang_getCursorKind(st[i]) != CXCursor_ForStmt) { i++; continue; }
        nest r = {.fn = fn, .first = st[i], .in_main = in_main};
        int foreign = 0;
        for (; i < n && i < 256 && clang_getCursorKind(st[i]) == CXCursor_ForStmt; i++) {
            int d = loop_depth(f->I, st[i], &foreign);
            if (d > r.depth) r.depth = d;
            r.last = st[i];
            r.loops++;
        }
        if (foreign) continue;
        r.line_lo = line_of(r.first, 0, &r.col);
        r.line_hi = line_of(r.last, 1, NULL);
        f->out[f->n++] = r;
    }
}

static enum CXChildVisitResult find_nests(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    finder *f = data;
    if (clang_getCursorKind(c) == CXCursor_FunctionDecl && clang_isCursorDefinition(c) && imp_in_file(f->I, c))
        function_nests(f, c);
    return CXChildVisit_Continue;
}

/* Better (> 0), as good (0) or worse (< 0): outside main first, then the deeper nest. */
static int compare(const nest *a, const nest *b)
{
    if (a->in_main != b->in_main) return b->in_main - a->in_main;
    return a->depth - b->depth;
}

/* The candidate --region K or line:L names: its index, or -1 after an error. */
static int named(imp *I, const nest *c, int n)
{
    const char *r = I->o->region;
    int line;
    long v;
    if (imp_region_arg(I, &line, &v) != 0) return -1;
    for (int i = 0; i < n; i++)
        if (line ? c[i].line_lo <= v && v <= c[i].line_hi : i + 1 == v) return i;
    diag_add(I->d, I->o->file, line ? (int)v : 0, line ? 1 : 0, "--region %s: %s (without #pragma scop, the "
             "file's loop nests are its regions: it has %d)", r, line ? "no loop nest holds that line" : "no such "
             "loop nest", n);
    return -1;
}

int imp_auto_region(imp *I)
{
    nest c[MAX_NESTS];
    finder f = {I, c, 0};
    clang_visitChildren(clang_getTranslationUnitCursor(I->tu), find_nests, &f);
    if (!f.n) {
        diag_add(I->d, I->o->file, 1, 1, "no #pragma scop .. #pragma endscop region, and no loop nest that calls "
                 "nothing but math functions; supported: such a region or nest in a function, or --function F");
        return -1;
    }
    int best = 0;
    if (I->o->region) {
        if ((best = named(I, c, f.n)) < 0) return -1;
    } else {
        for (int i = 1; i < f.n; i++)
            if (compare(&c[i], &c[best]) > 0) best = i;
        for (int i = 0; i < f.n; i++)
            if (i != best && compare(&c[i], &c[best]) == 0) {
                strbuf all = {0};
                for (int j = 0; j < f.n; j++)
                    if (compare(&c[j], &c[best]) == 0)
                        strbuf_printf(&all, "%s%d-%d (%s)", all.n ? ", " : "", c[j].line_lo, c[j].line_hi,
                                      imp_spelling(I, c[j].fn));
                diag_add(I->d, I->o->file, c[i].line_lo, c[i].col, "no #pragma scop, and several loop nests could be the "
                         "kernel: lines %s; choose one with --region line:L or --function F, or mark it with "
                         "#pragma scop .. #pragma endscop", all.s);
                free(all.s);
                return -1;
            }
    }
    I->kernel = c[best].fn;
    I->have_scop = 1;
    I->scop_lo = imp_offset(c[best].first, 0) - 1;
    I->scop_hi = imp_offset(c[best].last, 1) + 1;
    I->auto_lo = c[best].line_lo;
    I->auto_hi = c[best].line_hi;
    if (I->notes)
        fprintf(I->notes, "%s:%d:%d: note: no #pragma scop: the kernel is the loop nest of lines %d-%d in %s "
                "(--region line:L or --function F chooses another)\n", I->o->file, c[best].line_lo, c[best].col,
                c[best].line_lo, c[best].line_hi, imp_spelling(I, c[best].fn));
    return 0;
}
