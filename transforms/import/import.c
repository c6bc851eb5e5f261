/*
 * import.c — the C importer's driver (see import.h): preprocesses the file (clang -E), parses the
 * result with libclang (and the file as written, for its size macros: import_macro.c), finds the
 * kernel (the function holding `#pragma scop`, or --function F) and the call that gives its
 * arguments values, reads the code before the kernel as init values (import_init.c), the region
 * as statements (import_stmt.c), and assembles the program's text, which the engine then parses
 * and checks and prints in canonical form.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "import_int.h"
#include "ir.h"

#ifndef LLVM_CLANG
#define LLVM_CLANG "/usr/lib/llvm-14/bin/clang"
#endif

/* ---- finding the parts ---- */

typedef struct finder {
    imp *I;
    const char *name;      /* the kernel's name, or NULL: the function holding the region */
    CXCursor fn, call, caller;
    unsigned at;           /* the region's offset */
} finder;

static enum CXChildVisitResult find_kernel(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    finder *f = data;
    if (clang_getCursorKind(c) != CXCursor_FunctionDecl || !clang_isCursorDefinition(c) || !imp_in_file(f->I, c))
        return CXChildVisit_Continue;
    CXString s = clang_getCursorSpelling(c);
    int hit = f->name ? strcmp(clang_getCString(s), f->name) == 0
                      : imp_offset(c, 0) <= f->at && f->at <= imp_offset(c, 1);
    clang_disposeString(s);
    if (hit) { f->fn = c; return CXChildVisit_Break; }
    return CXChildVisit_Continue;
}

static enum CXChildVisitResult find_call_in(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    finder *f = data;
    if (clang_getCursorKind(c) == CXCursor_CallExpr &&
        clang_equalCursors(clang_getCursorDefinition(clang_getCursorReferenced(c)), f->fn)) {
        f->call = c;
        return CXChildVisit_Break;
    }
    return CXChildVisit_Recurse;
}

static enum CXChildVisitResult find_call(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    finder *f = data;
    if (clang_getCursorKind(c) != CXCursor_FunctionDecl || !clang_isCursorDefinition(c) || !imp_in_file(f->I, c))
        return CXChildVisit_Continue;
    clang_visitChildren(c, find_call_in, f);
    if (!clang_Cursor_isNull(f->call)) { f->caller = c; return CXChildVisit_Break; }
    return CXChildVisit_Continue;
}

/* The offsets of the `#pragma scop` and `#pragma endscop` lines; 0 if there is none. */
static int find_scop(imp *I, const char *text)
{
    const char *p = text;
    int state = 0;
    while (*p) {
        const char *q = p;
        while (*q == ' ' || *q == '\t') q++;
        if (*q == '#') {
            q++;
            while (*q == ' ' || *q == '\t') q++;
            if (strncmp(q, "pragma", 6) == 0) {
                q += 6;
                while (*q == ' ' || *q == '\t') q++;
                if (state == 0 && strncmp(q, "scop", 4) == 0 && !isalnum((unsigned char)q[4])) {
                    I->scop_lo = (unsigned)(p - text);
                    state = 1;
                } else if (state == 1 && strncmp(q, "endscop", 7) == 0) {
                    I->scop_hi = (unsigned)(p - text);
                    return 1;
                }
            }
        }
        const char *nl = strchr(p, '\n');
        if (!nl) break;
        p = nl + 1;
    }
    return 0;
}

/* ---- parsing ---- */

/* The preprocessor: $POLYAPM_CPP, else clang 14's (its output is what libclang parses without
 * complaint), else cc. */
static const char *cpp_command(void)
{
    const char *env = getenv("POLYAPM_CPP");
    if (env && *env) return env;
    return access(LLVM_CLANG, X_OK) == 0 ? LLVM_CLANG : "cc";
}

/* `clang -E` of the file with the user's -I and -D (and POLYBENCH_USE_C99_PROTO, so that
 * PolyBench's array arguments name their extents): the text libclang parses, malloc'd. */
static char *preprocess(imp *I, size_t *len)
{
    const xf_import_opts *o = I->o;
    int n = 0;
    char **argv = xcalloc((size_t)(o->nincludes + o->ndefines + 6), sizeof *argv);
    const char *cpp = cpp_command();
    argv[n++] = xstrdup(cpp);
    argv[n++] = xstrdup("-E");
    argv[n++] = xstrdup("-DPOLYBENCH_USE_C99_PROTO");
    for (int i = 0; i < o->nincludes; i++)
        if (asprintf(&argv[n], "-I%s", o->includes[i]) >= 0) n++;
    for (int i = 0; i < o->ndefines; i++)
        if (asprintf(&argv[n], "-D%s", o->defines[i]) >= 0) n++;
    argv[n++] = xstrdup(o->file);
    int fd[2];
    char *text = NULL;
    if (pipe(fd) == 0) {
        pid_t pid = fork();
        if (pid == 0) {
            dup2(fd[1], 1);
            close(fd[0]);
            close(fd[1]);
            execvp(cpp, argv);
            _exit(127);
        }
        close(fd[1]);
        strbuf b = {0};
        char chunk[8192];
        ssize_t got;
        strbuf_printf(&b, "%s", "");
        while ((got = read(fd[0], chunk, sizeof chunk)) > 0) strbuf_printf(&b, "%.*s", (int)got, chunk);
        close(fd[0]);
        int status = 0;
        if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            diag_add(I->d, o->file, 0, 0, "the C preprocessor (%s -E) failed%s", cpp,
                     pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 127 ? ": not found" : "");
            free(b.s);
        } else {
            text = b.s;
            *len = b.n;
        }
    }
    for (int i = 0; i < n; i++) free(argv[i]);
    free(argv);
    return text;
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    strbuf b = {0};
    char chunk[4096];
    size_t n;
    strbuf_printf(&b, "%s", "");
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) strbuf_printf(&b, "%.*s", (int)n, chunk);
    fclose(f);
    return b.s;
}

/* The size macros' expansions (import_macro.c), with the preprocessor's flags. */
static void scan_macros(imp *I, CXIndex index)
{
    const xf_import_opts *o = I->o;
    int n = 0;
    char **args = xcalloc((size_t)(o->nincludes + o->ndefines + 4), sizeof *args);
    args[n++] = xstrdup("-xc");
    args[n++] = xstrdup("-std=gnu11");
    args[n++] = xstrdup("-DPOLYBENCH_USE_C99_PROTO");
    for (int i = 0; i < o->nincludes; i++)
        if (asprintf(&args[n], "-I%s", o->includes[i]) >= 0) n++;
    for (int i = 0; i < o->ndefines; i++)
        if (asprintf(&args[n], "-D%s", o->defines[i]) >= 0) n++;
    imp_macros_scan(I, index, (const char *const *)args, n);
    for (int i = 0; i < n; i++) free(args[i]);
    free(args);
}

static int parse(imp *I, CXIndex index, const char *text, size_t len)
{
    const xf_import_opts *o = I->o;
    const char *args[] = {"-xc", "-std=gnu11"};
    struct CXUnsavedFile u = {o->file, text, (unsigned long)len};
    I->tu = clang_parseTranslationUnit(index, o->file, args, 2, &u, 1, CXTranslationUnit_None);
    if (!I->tu) {
        diag_add(I->d, o->file, 0, 0, "libclang cannot parse the file");
        return -1;
    }
    int errors = 0;
    for (unsigned i = 0, n = clang_getNumDiagnostics(I->tu); i < n; i++) {
        CXDiagnostic dg = clang_getDiagnostic(I->tu, i);
        CXString fn, msg = clang_getDiagnosticSpelling(dg);
        unsigned line, col;
        clang_getPresumedLocation(clang_getDiagnosticLocation(dg), &fn, &line, &col);
        /* errors in system headers (another preprocessor's output) do not concern the kernel */
        int mine = !clang_getCString(fn) || strncmp(clang_getCString(fn), "/usr/", 5) != 0;
        if (clang_getDiagnosticSeverity(dg) >= CXDiagnostic_Error && mine) {
            diag_add(I->d, clang_getCString(fn) && *clang_getCString(fn) ? clang_getCString(fn) : o->file, (int)line,
                     (int)col, "C: %s", clang_getCString(msg));
            errors++;
        }
        clang_disposeString(fn);
        clang_disposeString(msg);
        clang_disposeDiagnostic(dg);
    }
    return errors ? -1 : 0;
}

/* ---- the parts of the program ---- */

/* The kernel's body statements: those of the region in `region`, those before it in `pre`. */
static int split_body(imp *I, CXCursor *region, int *nregion, CXCursor *pre, int *npre, int max)
{
    CXCursor kid[64], body = clang_getNullCursor();
    for (int k = 0, n = imp_children(I->kernel, kid, 64); k < n && k < 64; k++)
        if (clang_getCursorKind(kid[k]) == CXCursor_CompoundStmt) body = kid[k];
    if (clang_Cursor_isNull(body)) { imp_error(I, I->kernel, "a kernel without a body"); return -1; }
    CXCursor *all = xcalloc((size_t)max, sizeof *all);
    int n = imp_children(body, all, max);
    if (n > max) { free(all); imp_error(I, body, "a kernel of more than %d statements", max); return -1; }
    *nregion = *npre = 0;
    for (int i = 0; i < n; i++) {
        unsigned a = imp_offset(all[i], 0), b = imp_offset(all[i], 1);
        if (!I->have_scop || (a > I->scop_lo && b < I->scop_hi)) region[(*nregion)++] = all[i];
        else if (b <= I->scop_lo) pre[(*npre)++] = all[i];
        else if (a < I->scop_lo && b > I->scop_lo) {
            imp_error(I, all[i], "a #pragma scop inside a statement; supported: the region at the top level of its "
                      "function's body");
            free(all);
            return -1;
        }
    }
    free(all);
    if (*nregion == 0) { imp_error(I, body, "an empty region"); return -1; }
    return 0;
}

/* Main's names for what it passes to the kernel. */
static void bind_main(imp *I, imp_bind *kernel_env)
{
    int n = clang_Cursor_getNumArguments(I->kernel_call);
    for (int k = 0; k < n && k < clang_Cursor_getNumArguments(I->kernel); k++) {
        CXCursor a = clang_Cursor_getArgument(I->kernel_call, k);
        for (;;) {
            a = imp_unwrap(a);
            CXCursor kid[3];
            int m = imp_children(a, kid, 3);
            enum CXCursorKind kk = clang_getCursorKind(a);
            if ((kk == CXCursor_ParenExpr || kk == CXCursor_UnaryOperator || kk == CXCursor_CStyleCastExpr) && m >= 1)
                a = kid[m - 1];
            else break;
        }
        if (clang_getCursorKind(a) != CXCursor_DeclRefExpr) continue;
        imp_bind *saved = I->env;
        I->env = kernel_env;
        imp_bind *b = imp_lookup(I, imp_spelling(I, clang_Cursor_getArgument(I->kernel, k)));
        I->env = saved;
        if (b && b->sym) imp_bind_sym(I, imp_spelling(I, a), b->sym);
    }
}

/* Main's statements before the kernel's call, as init code. */
static int main_init(imp *I)
{
    CXCursor kid[64], body = clang_getNullCursor(), st[1024];
    for (int k = 0, n = imp_children(I->main_fn, kid, 64); k < n && k < 64; k++)
        if (clang_getCursorKind(kid[k]) == CXCursor_CompoundStmt) body = kid[k];
    if (clang_Cursor_isNull(body)) return 0;
    unsigned at = imp_offset(I->kernel_call, 0);
    I->decl_local = 1;
    int n = imp_children(body, st, 1024);
    for (int i = 0; i < n && i < 1024; i++) {
        if (imp_offset(st[i], 1) > at) break;
        if (imp_init_stmt(I, st[i]) != 0) return -1;
    }
    return 0;
}

/* ---- the text ---- */

static int word_in(const char *text, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = strstr(text, w); p; p = strstr(p + 1, w))
        if ((p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
            !(isalnum((unsigned char)p[n]) || p[n] == '_'))
            return 1;
    return 0;
}

static void emit_init(imp *I, imp_sym *s, strbuf *out)
{
    static const char *const names[] = {"i", "j", "k", "l", "m", "p", "q", "r", "s", "u", "v", "w", "x", "y", "z"};
    char *idx[IMP_MAXDIM];
    int used = 0;
    for (int d = 0; d < s->ndims; d++) {
        idx[d] = NULL;
        while (!idx[d]) {
            char *c = used < 15 ? imp_strdup(I, names[used]) : imp_printf(I, "i%d", used);
            used++;
            imp_sym *clash = imp_sym_find(I, c);
            if ((!clash || clash->local) && !word_in(s->val, c)) idx[d] = c;
        }
    }
    strbuf_printf(out, "init %s", s->name);
    for (int d = 0; d < s->ndims; d++) strbuf_printf(out, "[%s]", idx[d]);
    char *v = imp_subst(I, s->val, idx, s->ndims);
    strbuf_printf(out, " = %s\n", v);
}

static void emit(imp *I, const char *name, char **outs, int nouts, const char *region, strbuf *out)
{
    strbuf_printf(out, "# %s, imported by polyapm import (%s of %s)\nprogram %s\nlevel source\n", I->o->file,
                   I->have_scop ? "the #pragma scop region" : "the body", imp_spelling(I, I->kernel), name);
    for (imp_sym *s = I->syms; s; s = s->next)
        if (s->kind == SYM_PARAM) strbuf_printf(out, "param %s = %lld\n", s->name, s->value);
    for (imp_sym *s = I->syms; s; s = s->next) {
        if (s->kind != SYM_ARRAY || s->local) continue;
        strbuf_printf(out, "array %s", s->name);
        for (int d = 0; d < s->ndims; d++) strbuf_printf(out, "[0 .. (%s) - 1]", s->dims[d]);
        strbuf_printf(out, " %s\n", s->is_int ? "int" : "double");
    }
    for (imp_sym *s = I->syms; s; s = s->next)
        if (s->kind == SYM_ARRAY && !s->local && s->val) emit_init(I, s, out);
    for (int i = 0; i < nouts; i++) strbuf_printf(out, "output %s\n", outs[i]);
    strbuf_printf(out, "\n");
    I->region_line = 1;
    for (size_t i = 0; i < out->n; i++) I->region_line += out->s[i] == '\n';
    strbuf_printf(out, "%s", region);
}

/* "dir/2mm.c" -> "mm2": letters, digits and '_', not starting with a digit. */
static char *program_name(imp *I)
{
    if (I->o->name) return imp_strdup(I, I->o->name);
    const char *b = strrchr(I->o->file, '/');
    b = b ? b + 1 : I->o->file;
    size_t n = strcspn(b, ".");
    char *s = imp_printf(I, "%.*s", (int)n, b);
    for (char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p)) *p = '_';
    size_t lead = strspn(s, "0123456789");
    if (lead == strlen(s)) return imp_printf(I, "k%s", s);
    if (lead) return imp_printf(I, "%s%.*s", s + lead, (int)lead, s);
    return s;
}

/* ---- the whole ---- */

static int run(imp *I, const char *src, strbuf *out)
{
    I->have_scop = !I->o->function && find_scop(I, src);
    if (!I->o->function && !I->have_scop) {
        diag_add(I->d, I->o->file, 1, 1, "no #pragma scop .. #pragma endscop region; supported: such a region in a "
                 "function, or --function F");
        return -1;
    }
    finder f = {I, I->o->function, clang_getNullCursor(), clang_getNullCursor(), clang_getNullCursor(), I->scop_lo};
    CXCursor root = clang_getTranslationUnitCursor(I->tu);
    clang_visitChildren(root, find_kernel, &f);
    if (clang_Cursor_isNull(f.fn)) {
        diag_add(I->d, I->o->file, 1, 1, I->o->function ? "no function '%s' defined in the file"
                 : "%sthe #pragma scop region is not inside a function", I->o->function ? I->o->function : "");
        return -1;
    }
    I->kernel = f.fn;
    clang_visitChildren(root, find_call, &f);
    I->kernel_call = f.call;
    I->main_fn = clang_Cursor_isNull(f.caller) ? f.fn : f.caller;
    if (imp_kernel_params(I) != 0) return -1;
    I->macro_params = 1;
    imp_bind *kernel_env = I->env;
    I->env = NULL;
    if (!clang_Cursor_isNull(I->kernel_call)) bind_main(I, kernel_env);
    imp_bind *main_env = I->env;
    if (!clang_Cursor_isNull(I->kernel_call) && main_init(I) != 0) return -1;
    main_env = I->env;
    I->decl_local = 0;
    enum { MAXST = 4096 };
    CXCursor *region = xcalloc(MAXST, sizeof *region), *pre = xcalloc(MAXST, sizeof *pre);
    int nregion, npre, rc = -1;
    I->env = kernel_env;
    if (split_body(I, region, &nregion, pre, &npre, MAXST) != 0) goto done;
    for (int i = 0; i < npre; i++)
        if (imp_init_stmt(I, pre[i]) != 0) goto done;
    strbuf body = {0};
    strbuf_printf(&body, "%s", "");
    imp_mark_assigned(I, region, nregion);
    if (imp_region(I, region, nregion, &body) != 0) { free(body.s); goto done; }
    I->env = clang_equalCursors(I->main_fn, I->kernel) ? I->env : main_env;
    char **outs;
    int nouts;
    if (imp_outputs(I, &outs, &nouts) != 0) { free(body.s); goto done; }
    emit(I, program_name(I), outs, nouts, body.s, out);
    free(outs);
    free(body.s);
    rc = 0;
done:
    free(region);
    free(pre);
    return rc;
}

/* The engine's errors about the assembled program, located at the C statements they come from
 * (the kernel, for a declaration). */
static void unchecked(imp *I, const diag_list *pd)
{
    for (int i = 0; i < pd->n; i++) {
        int line = pd->items[i].line - I->region_line + 1, k = -1;
        for (int m = 0; m < I->nmarks; m++)
            if (I->marks[m].line <= line) k = m;
        imp_error(I, k >= 0 && line >= 1 ? I->marks[k].at : I->kernel,
                  "%s (in the imported program, outside the supported subset: affine loop bounds and subscripts "
                  "of loop variables and parameters)", pd->items[i].msg);
    }
}

static void cleanup(imp *I)
{
    free(I->marks);
    free(I->macros);
    free(I->writes);
    for (imp_sym *s = I->syms, *next; s; s = next) {
        next = s->next;
        free(s->name);
        free(s->macro);
        for (int d = 0; d < s->ndims; d++) free(s->dims[d]);
        free(s);
    }
    for (int i = 0; i < I->npool; i++) free(I->pool[i]);
    free(I->pool);
}

char *xf_import_c(const xf_import_opts *o, diag_list *d, FILE *notes)
{
    imp I = {.o = o, .d = d, .notes = notes};
    I.tail = &I.syms;
    CXIndex index = clang_createIndex(0, 0);
    strbuf out = {0};
    char *result = NULL;
    size_t len = 0;
    char *src = NULL;
    char *orig = NULL;
    if (access(o->file, R_OK) != 0) diag_add(d, o->file, 0, 0, "cannot read the file");
    else src = preprocess(&I, &len);
    if (src && (orig = read_text(o->file)) != NULL) {
        I.src_text = orig;
        scan_macros(&I, index);
    }
    if (src && parse(&I, index, src, len) == 0 && run(&I, src, &out) == 0 && !I.failed) {
        diag_list pd;
        diag_list_init(&pd);
        ir_program *p = ir_load_text(o->file, out.s, out.n, &pd);
        if (p) {
            result = ir_print(p);
            ir_program_free(p);
        } else {
            unchecked(&I, &pd);
        }
        diag_list_free(&pd);
    }
    free(out.s);
    free(src);
    free(orig);
    cleanup(&I);
    if (I.tu) clang_disposeTranslationUnit(I.tu);
    clang_disposeIndex(index);
    return result;
}
