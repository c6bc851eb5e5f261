/*
 * import.c — the C importer's driver (see import.h): preprocesses the file (clang -E), parses the
 * result with libclang (and the file as written, for its size macros: import_macro.c), chooses the
 * region and its kernel (the function holding it, or --function F) and the call that gives its
 * arguments values, learns what the region reads and the file assigns (import_scope.c), reads the
 * code before the kernel as init values (import_init.c; a statement it cannot read that assigns
 * nothing the region reads is set aside), the region as statements (import_stmt.c), and
 * assembles the program's text, which the engine then parses and checks and prints in canonical
 * form.
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

/* A `#pragma scop` .. `#pragma endscop` region: the offsets of its two lines, their lines in the file. */
typedef struct scop { unsigned lo, hi; int line_lo, line_hi; } scop;
enum { MAXSCOPS = 64 };

static int file_line(imp *I, unsigned off)
{
    CXFile f = clang_getFile(I->tu, I->o->file);
    CXString name;
    unsigned line = 0, col;
    clang_getPresumedLocation(clang_getLocationForOffset(I->tu, f, off), &name, &line, &col);
    int mine = clang_getCString(name) && strcmp(clang_getCString(name), I->o->file) == 0;
    clang_disposeString(name);
    return mine ? (int)line : -1;
}

/* The regions of the file (at most `max`; of the file itself, not of its headers): their number. */
static int find_scops(imp *I, const char *text, scop *out, int max)
{
    int n = 0, open = 0;
    for (const char *p = text; *p && n < max;) {
        const char *q = p + strspn(p, " \t");
        if (*q == '#') {
            q += 1 + strspn(q + 1, " \t");
            if (strncmp(q, "pragma", 6) == 0) {
                q += 6 + strspn(q + 6, " \t");
                if (!open && strncmp(q, "scop", 4) == 0 && !isalnum((unsigned char)q[4])) {
                    out[n].lo = (unsigned)(p - text);
                    open = 1;
                } else if (open && strncmp(q, "endscop", 7) == 0) {
                    out[n].hi = (unsigned)(p - text);
                    out[n].line_lo = file_line(I, out[n].lo);
                    out[n].line_hi = file_line(I, out[n].hi);
                    open = 0;
                    if (out[n].line_lo > 0) n++;
                }
            }
        }
        const char *nl = strchr(p, '\n');
        if (!nl) break;
        p = nl + 1;
    }
    return n;
}

int imp_region_arg(imp *I, int *line, long *v)
{
    const char *r = I->o->region;
    char *end;
    *line = strncmp(r, "line:", 5) == 0;
    *v = strtol(*line ? r + 5 : r, &end, 10);
    if (end == (*line ? r + 5 : r) || *end || *v < 1) {
        diag_add(I->d, I->o->file, 0, 0, "--region %s: expected K (a number from 1) or line:L", r);
        return -1;
    }
    return 0;
}

/* The region --region names among the candidates (or the only one); -1 after an error, -2 if
 * there is none to choose from. */
static int pick_scop(imp *I, const scop *cand, int n)
{
    const char *r = I->o->region;
    if (!r) {
        if (n == 0) return -2;
        if (n == 1) return 0;
        strbuf lines = {0};
        for (int i = 0; i < n; i++) strbuf_printf(&lines, "%s%d", i ? ", " : "", cand[i].line_lo);
        diag_add(I->d, I->o->file, cand[1].line_lo, 1, "%d #pragma scop regions (lines %s); choose one with "
                 "--region K (the K-th), --region line:L (the one holding line L) or --function F", n, lines.s);
        free(lines.s);
        return -1;
    }
    int line;
    long v;
    if (imp_region_arg(I, &line, &v) != 0) return -1;
    for (int i = 0; i < n; i++)
        if (line ? cand[i].line_lo <= v && v <= cand[i].line_hi : i + 1 == v) return i;
    diag_add(I->d, I->o->file, line ? (int)v : 0, line ? 1 : 0, "--region %s: %s (the file has %d region%s%s)", r,
             line ? "no #pragma scop region holds that line" : "no such region", n, n == 1 ? "" : "s",
             I->o->function ? " in that function" : "");
    return -1;
}

/* The kernel (the function holding the chosen region, or --function F) and its region. */
static int choose_region(imp *I, const char *src)
{
    scop all[MAXSCOPS], cand[MAXSCOPS];
    int n = find_scops(I, src, all, MAXSCOPS), nc = 0;
    finder f = {I, I->o->function, clang_getNullCursor(), clang_getNullCursor(), clang_getNullCursor(), 0};
    CXCursor root = clang_getTranslationUnitCursor(I->tu);
    if (I->o->function) {
        clang_visitChildren(root, find_kernel, &f);
        if (clang_Cursor_isNull(f.fn)) {
            diag_add(I->d, I->o->file, 1, 1, "no function '%s' defined in the file", I->o->function);
            return -1;
        }
        for (int i = 0; i < n; i++)
            if (imp_offset(f.fn, 0) <= all[i].lo && all[i].hi <= imp_offset(f.fn, 1)) cand[nc++] = all[i];
    } else {
        memcpy(cand, all, sizeof all);
        nc = n;
    }
    if (nc == 0 && !I->o->function) return imp_auto_region(I);   /* no #pragma scop */
    int k = pick_scop(I, cand, nc);
    if (k == -1) return -1;
    I->have_scop = k >= 0;
    if (k >= 0) { I->scop_lo = cand[k].lo; I->scop_hi = cand[k].hi; }
    if (!I->o->function) {
        f.at = I->scop_lo;
        clang_visitChildren(root, find_kernel, &f);
        if (clang_Cursor_isNull(f.fn)) {
            diag_add(I->d, I->o->file, cand[k].line_lo, 1, "the #pragma scop region is not inside a function");
            return -1;
        }
    }
    I->kernel = f.fn;
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

/* The preprocessor's first error ("FILE:LINE:COL: fatal error: MSG") as a located diagnostic;
 * 0 if its messages hold none. */
static int cpp_diagnostic(imp *I, FILE *errs)
{
    char line[2048];
    rewind(errs);
    while (fgets(line, sizeof line, errs)) {
        line[strcspn(line, "\n")] = '\0';
        char *e = strstr(line, ": error: "), *f = strstr(line, ": fatal error: ");
        char *at = f && (!e || f < e) ? f : e;
        if (!at) continue;
        const char *msg = at + (at == f ? 15 : 9);
        *at = '\0';
        int ln = 0, col = 0;
        char *c2 = strrchr(line, ':');
        if (c2) { col = atoi(c2 + 1); *c2 = '\0'; }
        char *c1 = strrchr(line, ':');
        if (c1) { ln = atoi(c1 + 1); *c1 = '\0'; }
        diag_add(I->d, line, ln, col, "the C preprocessor: %s", msg);
        return 1;
    }
    return 0;
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
    FILE *errs = tmpfile();
    if (errs && pipe(fd) == 0) {
        pid_t pid = fork();
        if (pid == 0) {
            dup2(fd[1], 1);
            dup2(fileno(errs), 2);
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
        while ((got = read(fd[0], chunk, sizeof chunk)) > 0) strbuf_putn(&b, chunk, (size_t)got);
        close(fd[0]);
        int status = 0;
        if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            int missing = pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 127;
            if (missing || !cpp_diagnostic(I, errs))
                diag_add(I->d, o->file, 0, 0, "the C preprocessor (%s -E) failed%s", cpp, missing ? ": not found" : "");
            free(b.s);
        } else {
            text = b.s;
            *len = b.n;
        }
    }
    if (errs) fclose(errs);
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
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) strbuf_putn(&b, chunk, (size_t)n);
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

/* The kernel's scalar arguments main passes as values (kernel(.., 0.5, ..), alpha * 2): their
 * values, in main's names after its code before the call. */
static int scalar_args(imp *I, imp_bind *kernel_env)
{
    int n = clang_Cursor_getNumArguments(I->kernel_call);
    for (int k = 0; k < n && k < clang_Cursor_getNumArguments(I->kernel); k++) {
        CXCursor a = clang_Cursor_getArgument(I->kernel_call, k), p = clang_Cursor_getArgument(I->kernel, k);
        CXType t = clang_getCanonicalType(clang_getCursorType(p));
        if (!imp_type_is_float(t) || !imp_decls_has(&I->region_reads, p)) continue;
        imp_bind *saved = I->env;
        I->env = kernel_env;
        imp_bind *b = imp_lookup(I, imp_spelling(I, p));
        I->env = saved;
        if (!b || !b->sym || b->sym->val) continue;
        int was = I->in_init;
        I->in_init = 1;
        char *v = imp_expr(I, a);
        I->in_init = was;
        if (!v) return -1;
        if (imp_type_is_int(clang_getCursorType(imp_unwrap(a)))) v = imp_printf(I, "1.0 * %s", v);
        b->sym->val = v;
    }
    return 0;
}

/* A statement before the region as init code; one that fails and assigns nothing the region
 * reads (a timer, a print, an allocation) is set aside, and said so. */
static int init_or_aside(imp *I, CXCursor s)
{
    int before = I->d->n;
    if (imp_init_stmt(I, s) == 0) return 0;
    if (imp_matters(I, s) || imp_rand_mentions(I, s)) return -1;   /* rand(): the calls after it count it */
    while (I->d->n > before) {
        diag *g = &I->d->items[--I->d->n];
        free(g->file);
        free(g->msg);
    }
    I->failed = 0;
    CXString f;
    unsigned line = 0, col;
    clang_getPresumedLocation(clang_getCursorLocation(s), &f, &line, &col);
    clang_disposeString(f);
    const char *p = I->src_text;   /* the statement's line as written */
    for (unsigned l = 1; p && l < line; l++) p = (p = strchr(p, '\n')) ? p + 1 : NULL;
    if (!p) p = "";
    p += strspn(p, " \t");
    int len = (int)strcspn(p, "\n");
    imp_set_aside(I, s, imp_printf(I, "'%.*s%s'", len > 60 ? 60 : len, p, len > 60 ? " .." : ""));
    return 0;
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
        if (init_or_aside(I, st[i]) != 0) return -1;
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
    if (strchr(s->val, '$')) {   /* a loop's variable outside the loop (import_rand.c's markers) */
        imp_error(I, I->kernel, "the value of '%s' names a loop's variable outside its loop (a declaration in a loop "
                  "of the code before the kernel); supported: declarations whose values the loop's assignments read",
                  s->name);
        return;
    }
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
    if (I->auto_lo)
        strbuf_printf(out, "# %s, imported by polyapm import (the loop nest of lines %d-%d of %s: no #pragma scop)\n",
                      I->o->file, I->auto_lo, I->auto_hi, imp_spelling(I, I->kernel));
    else
        strbuf_printf(out, "# %s, imported by polyapm import (%s of %s)\n", I->o->file,
                      I->have_scop ? "the #pragma scop region" : "the body", imp_spelling(I, I->kernel));
    if (I->o->command) strbuf_printf(out, "# imported with: %s\n", I->o->command);
    strbuf_printf(out, "program %s\nlevel source\n", name);
    for (imp_sym *s = I->syms; s; s = s->next)
        if (s->kind == SYM_PARAM) strbuf_printf(out, "param %s = %lld\n", s->name, s->value);
    for (imp_sym *s = I->syms; s; s = s->next) {
        if (s->kind != SYM_ARRAY || s->local || !s->named) continue;
        strbuf_printf(out, "array %s", s->name);
        for (int d = 0; d < s->ndims; d++) strbuf_printf(out, "[0 .. (%s) - 1]", s->dims[d]);
        strbuf_printf(out, " %s\n", s->is_int ? "int" : "double");
    }
    for (imp_sym *s = I->syms; s; s = s->next)
        if (s->kind == SYM_ARRAY && !s->local && s->named) {
            const char *given = imp_given_init(I, s->name);
            if (given) strbuf_printf(out, "init %s\n", given);
            else if (s->val) emit_init(I, s, out);
        }
    for (int i = 0; i < nouts; i++) strbuf_printf(out, "output %s\n", outs[i]);
    for (int i = 0; i < I->o->nassumes; i++) strbuf_printf(out, "assume %s\n", I->o->assumes[i]);
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
    I->pp_text = src;
    if (choose_region(I, src) != 0) return -1;
    finder f = {I, NULL, I->kernel, clang_getNullCursor(), clang_getNullCursor(), 0};
    CXCursor root = clang_getTranslationUnitCursor(I->tu);
    clang_visitChildren(root, find_call, &f);
    I->kernel_call = f.call;
    I->main_fn = clang_Cursor_isNull(f.caller) ? f.fn : f.caller;
    enum { MAXST = 4096 };
    CXCursor *region = xcalloc(MAXST, sizeof *region), *pre = xcalloc(MAXST, sizeof *pre);
    int nregion, npre, rc = -1;
    strbuf body = {0};
    strbuf_printf(&body, "%s", "");
    if (split_body(I, region, &nregion, pre, &npre, MAXST) != 0) goto done;
    imp_scope_scan(I, region, nregion);
    if (imp_kernel_params(I) != 0) goto done;
    I->macro_params = 1;
    imp_bind *kernel_env = I->env;
    I->env = NULL;
    if (!clang_Cursor_isNull(I->kernel_call)) bind_main(I, kernel_env);
    I->main_env = I->env;
    if (!clang_Cursor_isNull(I->kernel_call) && (main_init(I) != 0 || scalar_args(I, kernel_env) != 0)) goto done;
    imp_bind *main_env = I->env;
    I->decl_local = 0;
    I->env = kernel_env;
    for (int i = 0; i < npre; i++)
        if (init_or_aside(I, pre[i]) != 0) goto done;
    imp_mark_assigned(I, region, nregion);
    I->in_region = 1;
    if (imp_region(I, region, nregion, &body) != 0) goto done;
    I->in_region = 0;
    I->env = clang_equalCursors(I->main_fn, I->kernel) ? I->env : main_env;
    char **outs;
    int nouts;
    if (imp_outputs(I, &outs, &nouts) != 0) goto done;
    emit(I, program_name(I), outs, nouts, body.s, out);
    free(outs);
    rc = 0;
done:
    free(body.s);
    free(region);
    free(pre);
    return rc;
}

/* Is `line` (of the assembled text) the declaration an option gave: "KEYWORD GIVEN.."?  Then the
 * error `msg` is said about the option. */
static int given_decl(imp *I, const char *line, const char *option, const char *keyword,
                      const char *const *given, int ngiven, const char *msg)
{
    size_t k = strlen(keyword);
    for (int g = 0; g < ngiven; g++) {
        const char *text = given[g] + strspn(given[g], " ");
        if (strncmp(line, keyword, k) == 0 && strncmp(line + k, text, strlen(text)) == 0) {
            diag_add(I->d, I->o->file, 0, 0, "%s '%s': %s", option, given[g], msg);
            I->failed = 1;
            return 1;
        }
    }
    return 0;
}

/* The engine's errors about the assembled program, located at the C statements they come from
 * (the kernel, for a declaration). */
static void unchecked(imp *I, const diag_list *pd, const char *text)
{
    for (int i = 0; i < pd->n; i++) {
        int mine = 0;   /* a line of --init or --assume (or the line after it, where its end was looked for) */
        for (int back = 0; back < 2 && !mine; back++) {
            const char *p = text;
            for (int l = 1; p && l < pd->items[i].line - back; l++) p = (p = strchr(p, '\n')) ? p + 1 : NULL;
            if (!p) continue;
            const char *msg = pd->items[i].msg;
            mine = given_decl(I, p, "--init", "init ", I->o->inits, I->o->ninits, msg) ||
                   given_decl(I, p, "--assume", "assume ", I->o->assumes, I->o->nassumes, msg);
        }
        if (mine) continue;
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
    free(I->rng_fns);
    free(I->writes);
    imp_decls_free(&I->globals);
    imp_decls_free(&I->assigned_anywhere);
    imp_decls_free(&I->region_reads);
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
    const char *unloaded = imp_clang_open();
    if (unloaded) {
        diag_add(d, o->file, 0, 0, "%s", unloaded);
        return NULL;
    }
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
            unchecked(&I, &pd, out.s);
        }
        diag_list_free(&pd);
    }
    free(out.s);
    free(src);
    free(orig);
    if (notes && I.nset_aside > 20)
        fprintf(notes, "%s: note: %d more statements set aside (not part of the kernel)\n", o->file, I.nset_aside - 20);
    cleanup(&I);
    if (I.tu) clang_disposeTranslationUnit(I.tu);
    clang_disposeIndex(index);
    return result;
}
