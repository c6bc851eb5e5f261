/*
 * import_macro.c — size macros as parameters.  The importer parses preprocessed text, where
 * `i < N` reads `i < 100`; to know that 100 was N, the original file is parsed once more with
 * libclang's preprocessing record, which lists where each object-like macro whose body is one
 * integer was expanded.  An integer literal on a line where exactly one such macro of its value
 * was expanded, and where no number of that value is written, is that macro: the parameter main
 * initialised from it (PolyBench's `int n = N;`), else a parameter of the macro's name.  A macro
 * of a system header (RAND_MAX, INT_MAX) is a constant, not a size.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "import_int.h"

struct imp_macro_use { unsigned line; char *name; long long value; };

static int int_body(imp *I, CXTranslationUnit tu, CXCursor def, long long *v)
{
    (void)I;
    CXToken *t = NULL;
    unsigned n = 0;
    clang_tokenize(tu, clang_getCursorExtent(def), &t, &n);
    int ok = 0;
    if (n == 2 && clang_getTokenKind(t[1]) == CXToken_Literal) {
        CXString s = clang_getTokenSpelling(tu, t[1]);
        const char *txt = clang_getCString(s);
        char *end;
        *v = strtoll(txt, &end, 0);
        while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L') end++;
        ok = end != txt && *end == '\0';
        clang_disposeString(s);
    }
    clang_disposeTokens(tu, t, n);
    return ok;
}

typedef struct scan { imp *I; CXTranslationUnit tu; } scan;

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    scan *sc = data;
    imp *I = sc->I;
    if (clang_getCursorKind(c) != CXCursor_MacroExpansion) return CXChildVisit_Continue;
    if (!clang_Location_isFromMainFile(clang_getCursorLocation(c))) return CXChildVisit_Continue;
    CXCursor def = clang_getCursorReferenced(c);
    long long v;
    if (clang_Cursor_isNull(def) || clang_Cursor_isMacroFunctionLike(def) || clang_Cursor_isMacroBuiltin(def) ||
        clang_Location_isInSystemHeader(clang_getCursorLocation(def)) || !int_body(I, sc->tu, def, &v))
        return CXChildVisit_Continue;
    if (I->nmacros == I->capmacros) {
        I->capmacros = I->capmacros ? 2 * I->capmacros : 64;
        imp_macro_use *m = xrealloc(I->macros, (size_t)I->capmacros * sizeof *m);
        I->macros = m;
    }
    unsigned line;
    clang_getSpellingLocation(clang_getCursorLocation(c), NULL, &line, NULL, NULL);
    I->macros[I->nmacros++] = (imp_macro_use){line, imp_spelling(I, c), v};
    return CXChildVisit_Continue;
}

void imp_macros_scan(imp *I, CXIndex index, const char *const *args, int nargs)
{
    CXTranslationUnit tu = clang_parseTranslationUnit(index, I->o->file, args, nargs, NULL, 0,
                                                      CXTranslationUnit_DetailedPreprocessingRecord);
    if (!tu) return;
    scan sc = {I, tu};
    clang_visitChildren(clang_getTranslationUnitCursor(tu), visit, &sc);
    clang_disposeTranslationUnit(tu);
}

/* Is the number v written on line `line` of the file (not inside a name)? */
static int written(imp *I, unsigned line, long long v)
{
    const char *p = I->src_text;
    for (unsigned l = 1; p && l < line; l++) {
        p = strchr(p, '\n');
        if (p) p++;
    }
    if (!p) return 0;
    for (const char *q = p; *q && *q != '\n'; q++) {
        if (!isdigit((unsigned char)*q) || (q > p && (isalnum((unsigned char)q[-1]) || q[-1] == '_' || q[-1] == '.')))
            continue;
        char *end;
        long long w = strtoll(q, &end, 0);
        if (w == v && *end != '.' && *end != 'e' && *end != 'E') return 1;
        q = end - 1;
    }
    return 0;
}

const char *imp_macro_of(imp *I, CXCursor at, long long v)
{
    CXString f;
    unsigned line, col;
    clang_getPresumedLocation(clang_getCursorLocation(at), &f, &line, &col);
    int mine = clang_getCString(f) && strcmp(clang_getCString(f), I->o->file) == 0;
    clang_disposeString(f);
    if (!mine) return NULL;
    const char *name = NULL;
    for (int i = 0; i < I->nmacros; i++) {
        imp_macro_use *m = &I->macros[i];
        if (m->line != line || m->value != v) continue;
        if (name && strcmp(name, m->name) != 0) return NULL;   /* two macros of that value: unknown */
        name = m->name;
    }
    return name && !written(I, line, v) ? name : NULL;
}

imp_sym *imp_macro_param(imp *I, CXCursor at, long long v)
{
    const char *name = imp_macro_of(I, at, v);
    if (!name) return NULL;
    for (imp_sym *s = I->syms; s; s = s->next)   /* the parameter main set from it */
        if (s->kind == SYM_PARAM && s->macro && strcmp(s->macro, name) == 0 && s->value == v) return s;
    if (!I->macro_params) return NULL;
    imp_sym *s = imp_sym_find(I, imp_apm_name(I, name));
    if (s) return s->kind == SYM_PARAM && s->value == v ? s : NULL;
    s = imp_sym_new(I, name, SYM_PARAM);
    s->is_int = 1;
    s->value = v;
    s->macro = xstrdup(name);
    return s;
}
