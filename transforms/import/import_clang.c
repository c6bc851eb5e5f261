/*
 * import_clang.c — libclang, opened the first time the importer needs it.  polyapm links no
 * libclang: loading it (with LLVM's) costs every command some 20 ms of start-up, and only
 * `import` and `init FILE.c` parse C.  imp_clang_open() opens it (POLYAPM_LIBCLANG, else the one
 * polyapm was built against) and finds each function the importer calls (the table below); the
 * functions of the same names defined here call through.  A function added to the importer is
 * added to the table (the link fails until it is).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "import_int.h"

#ifndef LIBCLANG
#define LIBCLANG "/usr/lib/llvm-14/lib/libclang.so.1"
#endif

/* F(result, name, (parameters), (arguments)) for a function with a result, V(name, ...) without */
#define IMP_CLANG_FUNCTIONS(F, V) \
    F(CXEvalResult, clang_Cursor_Evaluate, (CXCursor a), (a)) \
    F(CXCursor, clang_Cursor_getArgument, (CXCursor a, unsigned b), (a, b)) \
    F(int, clang_Cursor_getNumArguments, (CXCursor a), (a)) \
    F(enum CX_StorageClass, clang_Cursor_getStorageClass, (CXCursor a), (a)) \
    F(CXCursor, clang_Cursor_getVarDeclInitializer, (CXCursor a), (a)) \
    F(unsigned, clang_Cursor_isMacroBuiltin, (CXCursor a), (a)) \
    F(unsigned, clang_Cursor_isMacroFunctionLike, (CXCursor a), (a)) \
    F(int, clang_Cursor_isNull, (CXCursor a), (a)) \
    V(clang_EvalResult_dispose, (CXEvalResult a), (a)) \
    F(double, clang_EvalResult_getAsDouble, (CXEvalResult a), (a)) \
    F(long long, clang_EvalResult_getAsLongLong, (CXEvalResult a), (a)) \
    F(unsigned long long, clang_EvalResult_getAsUnsigned, (CXEvalResult a), (a)) \
    F(CXEvalResultKind, clang_EvalResult_getKind, (CXEvalResult a), (a)) \
    F(int, clang_Location_isFromMainFile, (CXSourceLocation a), (a)) \
    F(int, clang_Location_isInSystemHeader, (CXSourceLocation a), (a)) \
    F(CXIndex, clang_createIndex, (int a, int b), (a, b)) \
    V(clang_disposeDiagnostic, (CXDiagnostic a), (a)) \
    V(clang_disposeIndex, (CXIndex a), (a)) \
    V(clang_disposeString, (CXString a), (a)) \
    V(clang_disposeTokens, (CXTranslationUnit a, CXToken *b, unsigned c), (a, b, c)) \
    V(clang_disposeTranslationUnit, (CXTranslationUnit a), (a)) \
    F(unsigned, clang_equalCursors, (CXCursor a, CXCursor b), (a, b)) \
    F(CXType, clang_getArrayElementType, (CXType a), (a)) \
    F(long long, clang_getArraySize, (CXType a), (a)) \
    F(const char *, clang_getCString, (CXString a), (a)) \
    F(CXType, clang_getCanonicalType, (CXType a), (a)) \
    F(CXCursor, clang_getCursorDefinition, (CXCursor a), (a)) \
    F(CXSourceRange, clang_getCursorExtent, (CXCursor a), (a)) \
    F(enum CXCursorKind, clang_getCursorKind, (CXCursor a), (a)) \
    F(CXString, clang_getCursorKindSpelling, (enum CXCursorKind a), (a)) \
    F(CXSourceLocation, clang_getCursorLocation, (CXCursor a), (a)) \
    F(CXCursor, clang_getCursorReferenced, (CXCursor a), (a)) \
    F(CXType, clang_getCursorResultType, (CXCursor a), (a)) \
    F(CXCursor, clang_getCursorSemanticParent, (CXCursor a), (a)) \
    F(CXString, clang_getCursorSpelling, (CXCursor a), (a)) \
    F(CXType, clang_getCursorType, (CXCursor a), (a)) \
    F(CXDiagnostic, clang_getDiagnostic, (CXTranslationUnit a, unsigned b), (a, b)) \
    F(CXSourceLocation, clang_getDiagnosticLocation, (CXDiagnostic a), (a)) \
    F(enum CXDiagnosticSeverity, clang_getDiagnosticSeverity, (CXDiagnostic a), (a)) \
    F(CXString, clang_getDiagnosticSpelling, (CXDiagnostic a), (a)) \
    F(long long, clang_getEnumConstantDeclValue, (CXCursor a), (a)) \
    V(clang_getExpansionLocation, (CXSourceLocation a, CXFile *b, unsigned *c, unsigned *d, unsigned *e), (a, b, c, d, e)) \
    F(CXFile, clang_getFile, (CXTranslationUnit a, const char *b), (a, b)) \
    F(CXSourceLocation, clang_getLocationForOffset, (CXTranslationUnit a, CXFile b, unsigned c), (a, b, c)) \
    F(CXCursor, clang_getNullCursor, (void), ()) \
    F(unsigned, clang_getNumDiagnostics, (CXTranslationUnit a), (a)) \
    F(CXType, clang_getPointeeType, (CXType a), (a)) \
    V(clang_getPresumedLocation, (CXSourceLocation a, CXString *b, unsigned *c, unsigned *d), (a, b, c, d)) \
    F(CXSourceLocation, clang_getRangeEnd, (CXSourceRange a), (a)) \
    F(CXSourceLocation, clang_getRangeStart, (CXSourceRange a), (a)) \
    V(clang_getSpellingLocation, (CXSourceLocation a, CXFile *b, unsigned *c, unsigned *d, unsigned *e), (a, b, c, d, e)) \
    F(CXTokenKind, clang_getTokenKind, (CXToken a), (a)) \
    F(CXSourceLocation, clang_getTokenLocation, (CXTranslationUnit a, CXToken b), (a, b)) \
    F(CXString, clang_getTokenSpelling, (CXTranslationUnit a, CXToken b), (a, b)) \
    F(CXCursor, clang_getTranslationUnitCursor, (CXTranslationUnit a), (a)) \
    F(CXString, clang_getTypeSpelling, (CXType a), (a)) \
    F(unsigned, clang_isCursorDefinition, (CXCursor a), (a)) \
    F(unsigned, clang_isExpression, (enum CXCursorKind a), (a)) \
    F(CXTranslationUnit, clang_parseTranslationUnit, (CXIndex a, const char *b, const char *const *c, int d, struct CXUnsavedFile *e, unsigned f, unsigned g), (a, b, c, d, e, f, g)) \
    V(clang_tokenize, (CXTranslationUnit a, CXSourceRange b, CXToken **c, unsigned *d), (a, b, c, d)) \
    F(unsigned, clang_visitChildren, (CXCursor a, CXCursorVisitor b, CXClientData c), (a, b, c))

#define POINTER_F(ret, name, params, args) static ret (*name##_at) params;
#define POINTER_V(name, params, args) static void (*name##_at) params;
IMP_CLANG_FUNCTIONS(POINTER_F, POINTER_V)

/* the library's functions, by name, and where their addresses go */
#define SLOT_F(ret, name, params, args) {#name, (void **)&name##_at},
#define SLOT_V(name, params, args) {#name, (void **)&name##_at},
static const struct { const char *name; void **at; } slots[] = {IMP_CLANG_FUNCTIONS(SLOT_F, SLOT_V)};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char why[512];   /* empty: open */

static void open_library(void)
{
    const char *path = getenv("POLYAPM_LIBCLANG");
    if (!path || !*path) path = LIBCLANG;
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(why, sizeof why, "importing C needs libclang (%s), which does not load: %s", path, dlerror());
        return;
    }
    for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++) {
        *slots[i].at = dlsym(lib, slots[i].name);
        if (!*slots[i].at) {
            snprintf(why, sizeof why, "libclang (%s) has no %s: LLVM 14's is needed", path, slots[i].name);
            return;   /* the library stays open: dlclose would unload what another call found */
        }
    }
}

const char *imp_clang_open(void)
{
    pthread_once(&once, open_library);
    return why[0] ? why : NULL;
}

#define CALL_F(ret, name, params, args) ret name params { return name##_at args; }
#define CALL_V(name, params, args) void name params { name##_at args; }
IMP_CLANG_FUNCTIONS(CALL_F, CALL_V)
