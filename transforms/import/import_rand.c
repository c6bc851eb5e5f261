/*
 * import_rand.c — the C library's random numbers in the code before the kernel: rand() and
 * random() after srand(s) or srandom(s), drand48() and lrand48() after srand48(s) (or without a
 * seed), reproduced by numbering their calls.  The k-th call a program makes after its seed has
 * the value the language's crand(s, k) (cdrand48, clrand48: polyapm-lang(5)) computes, so an
 * element's init is its call's formula: inside rectangular loops, k = the calls before the nest
 * + Σ_d (the iteration number of loop d) × (the calls one iteration of loop d makes) + the calls
 * before it in its iteration.
 *
 * Counting is by the code's structure: an expression's calls (the file's functions it calls
 * included), a loop's (its trip count × its body's), an if's (its branches must make as many:
 * otherwise every later call number would depend on the condition), a block's (the sum).  A
 * count is an .apm text of the parameters, so the numbering holds at any size a user later gives
 * with -D.  What cannot be counted or reproduced is a located error saying why: a seed the program
 * computes when it runs (srand(time(NULL))), loops whose bounds depend on an enclosing loop's
 * variable around calls, two calls of one generator in an expression (C leaves their order
 * unspecified), calls in conditions, loop headers, subscripts or while loops, the C library's
 * other generators (erand48, rand_r, ..).
 *
 * While a loop whose body calls a generator is read, its variable stands for the marker $d (d
 * its depth) outside the assignments (in declarations of its body); a call number names the
 * loops' variables by their markers, and import_init.c's record replaces each marker with what
 * it binds that loop's variable to (imp_rand_subst).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "import_int.h"

typedef enum rng_role { ROLE_GEN, ROLE_SEED, ROLE_OTHER } rng_role;

typedef struct rng_fn { const char *name; rng_role role; int family; const char *apm; } rng_fn;
static const rng_fn rng_fns[] = {
    {"rand", ROLE_GEN, IMP_RNG_RAND, "crand"}, {"random", ROLE_GEN, IMP_RNG_RAND, "crand"},
    {"drand48", ROLE_GEN, IMP_RNG_48, "cdrand48"}, {"lrand48", ROLE_GEN, IMP_RNG_48, "clrand48"},
    {"srand", ROLE_SEED, IMP_RNG_RAND, NULL}, {"srandom", ROLE_SEED, IMP_RNG_RAND, NULL},
    {"srand48", ROLE_SEED, IMP_RNG_48, NULL},
    {"mrand48", ROLE_OTHER, 0, NULL}, {"erand48", ROLE_OTHER, 0, NULL}, {"nrand48", ROLE_OTHER, 0, NULL},
    {"jrand48", ROLE_OTHER, 0, NULL}, {"seed48", ROLE_OTHER, 0, NULL}, {"lcong48", ROLE_OTHER, 0, NULL},
    {"rand_r", ROLE_OTHER, 0, NULL}, {"initstate", ROLE_OTHER, 0, NULL}, {"setstate", ROLE_OTHER, 0, NULL},
    {"random_r", ROLE_OTHER, 0, NULL}, {"srandom_r", ROLE_OTHER, 0, NULL}, {"drand48_r", ROLE_OTHER, 0, NULL},
    {"lrand48_r", ROLE_OTHER, 0, NULL}, {"srand48_r", ROLE_OTHER, 0, NULL}, {NULL, ROLE_OTHER, 0, NULL},
};

static const char SUPPORTED[] = "supported: rand(), random(), drand48() and lrand48() in the values the code before "
                                "the kernel assigns (one call of a generator per expression), in for loops whose "
                                "bounds are constants and sizes, after srand(s), srandom(s) or srand48(s) with a "
                                "constant seed or none; or give the values: --init 'A[i][j] = formula'";

static const char SEED_PLACE[] = "%s inside a loop, under a condition or in an expression: where the generator "
                                 "starts again would depend on it; supported: %s(constant) as a statement of its own, "
                                 "outside loops and conditions";

/* The C library's generator function a call calls (NULL: another function, or the file's own). */
static const rng_fn *rng_of(imp *I, CXCursor call)
{
    if (clang_getCursorKind(call) != CXCursor_CallExpr) return NULL;
    CXCursor def = clang_getCursorDefinition(clang_getCursorReferenced(call));
    if (!clang_Cursor_isNull(def) && imp_in_file(I, def)) return NULL;
    char *name = imp_spelling(I, call);
    for (const rng_fn *f = rng_fns; f->name; f++)
        if (strcmp(f->name, name) == 0) return f;
    return NULL;
}

/* The definition of the file's function a call calls, or a null cursor. */
static CXCursor file_fn(imp *I, CXCursor call)
{
    CXCursor def = clang_getCursorDefinition(clang_getCursorReferenced(call));
    return !clang_Cursor_isNull(def) && imp_in_file(I, def) ? def : clang_getNullCursor();
}

/* ---- finding calls ---- */

typedef struct finder { imp *I; CXCursor first; int found; } finder;

static enum CXChildVisitResult find_rng(CXCursor c, CXCursor parent, CXClientData data);

/* Does the function defined at def call a generator (itself, or through the functions it calls)?
 * Each function is read once (a recursive one's inner calls count as none). */
static int fn_calls_rng(imp *I, CXCursor def)
{
    CXFile file;
    unsigned off;
    clang_getExpansionLocation(clang_getCursorLocation(def), &file, NULL, NULL, &off);
    for (int i = 0; i < I->nrng_fns; i++)
        if (I->rng_fns[i].file == file && I->rng_fns[i].off == off) return I->rng_fns[i].calls;
    if (I->nrng_fns == I->caprng_fns) {
        I->caprng_fns = I->caprng_fns ? 2 * I->caprng_fns : 16;
        I->rng_fns = xrealloc(I->rng_fns, (size_t)I->caprng_fns * sizeof *I->rng_fns);
    }
    int at = I->nrng_fns++;
    I->rng_fns[at] = (struct imp_fn_mark){file, off, 0};
    finder f = {I, clang_getNullCursor(), 0};
    clang_visitChildren(def, find_rng, &f);
    I->rng_fns[at].calls = f.found;
    return f.found;
}

static enum CXChildVisitResult find_rng(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    finder *f = data;
    if (clang_getCursorKind(c) != CXCursor_CallExpr) return CXChildVisit_Recurse;
    CXCursor def = clang_getCursorDefinition(clang_getCursorReferenced(c));   /* the file's or a header's */
    if (rng_of(f->I, c) || (!clang_Cursor_isNull(def) && fn_calls_rng(f->I, def))) {
        f->found = 1;
        f->first = c;   /* located at the call in the code read */
        return CXChildVisit_Break;
    }
    return CXChildVisit_Recurse;
}

/* The first call of a generator (or of a file's function that calls one) in s, or a null cursor. */
static CXCursor first_call(imp *I, CXCursor s)
{
    finder f = {I, clang_getNullCursor(), 0};
    if (find_rng(s, s, &f) == CXChildVisit_Recurse && !f.found) clang_visitChildren(s, find_rng, &f);
    return f.found ? f.first : clang_getNullCursor();
}

int imp_rand_mentions(imp *I, CXCursor s) { return !clang_Cursor_isNull(first_call(I, s)); }

int imp_rand_is_call(imp *I, CXCursor e) { return rng_of(I, imp_unwrap(e)) != NULL; }

int imp_rand_is_int_call(imp *I, CXCursor e)
{
    const rng_fn *f = rng_of(I, imp_unwrap(e));
    return f && f->role == ROLE_GEN && strcmp(f->name, "drand48") != 0;
}

int imp_rand_in(const char *text)
{
    static const char *const fns[] = {"crand(", "cdrand48(", "clrand48(", NULL};
    for (int i = 0; fns[i]; i++)
        for (const char *p = strstr(text, fns[i]); p; p = strstr(p + 1, fns[i]))
            if (p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) return 1;
    return 0;
}

/* ---- counts: c + t ---- */

static imp_count cnt_const(long long c) { return (imp_count){c, NULL}; }
static int cnt_zero(imp_count a) { return !a.t && a.c == 0; }
static int cnt_equal(imp_count a, imp_count b) { return a.c == b.c && (a.t ? b.t && strcmp(a.t, b.t) == 0 : !b.t); }

static const char *cnt_text(imp *I, imp_count a)
{
    if (!a.t) return imp_printf(I, "%lld", a.c);
    if (!a.c) return a.t;
    return imp_printf(I, "%s %c %lld", a.t, a.c > 0 ? '+' : '-', a.c > 0 ? a.c : -a.c);
}

static imp_count cnt_add(imp *I, imp_count a, imp_count b)
{
    imp_count r = {a.c + b.c, a.t};
    if (b.t) r.t = a.t ? imp_printf(I, "%s + %s", a.t, b.t) : b.t;
    return r;
}

static imp_count cnt_mul(imp *I, imp_count a, imp_count b)
{
    if (a.t && !b.t) {   /* the constant first */
        imp_count s = a;
        a = b;
        b = s;
    }
    if (!a.t && !b.t) return cnt_const(a.c * b.c);
    if (!a.t) return a.c == 0 ? cnt_const(0) : (imp_count){a.c * b.c, a.c == 1 ? b.t : imp_printf(I, "%lld * (%s)", a.c, b.t)};
    return (imp_count){0, imp_printf(I, "(%s) * (%s)", cnt_text(I, a), cnt_text(I, b))};
}

/* A text as t + c, c its trailing integer terms ("N - 1 - 1" is N and -2). */
static imp_count split_const(imp *I, const char *text)
{
    char *end;
    long long v = strtoll(text, &end, 10);
    if (end != text && *end == '\0') return cnt_const(v);
    imp_count r = {0, text};
    for (;;) {
        const char *p = strrchr(r.t, ' ');
        if (!p || p - r.t < 3 || (p[-1] != '+' && p[-1] != '-') || p[-2] != ' ') break;
        v = strtoll(p + 1, &end, 10);
        if (end == p + 1 || *end != '\0' || !isdigit((unsigned char)p[1])) break;
        r.c += p[-1] == '+' ? v : -v;
        r.t = imp_printf(I, "%.*s", (int)(p - 2 - r.t), r.t);
        v = strtoll(r.t, &end, 10);
        if (end != r.t && *end == '\0') return cnt_const(r.c + v);
    }
    return r;
}

static int is_name(const char *t)
{
    if (!t || !(isalpha((unsigned char)*t) || *t == '_')) return 0;
    while (isalnum((unsigned char)*t) || *t == '_') t++;
    return *t == '\0';
}

/* The number of iterations of a loop (not negative: max(0, ..) unless it is known). */
static imp_count trip_count(imp *I, const imp_loop *l)
{
    imp_count lo = split_const(I, l->lo), hi = split_const(I, l->hi);
    if (!lo.t && !hi.t) return cnt_const(hi.c < lo.c ? 0 : (hi.c - lo.c) / l->step + 1);
    imp_count d = {hi.c - lo.c, !lo.t ? hi.t : !hi.t ? imp_printf(I, "-(%s)", lo.t) : imp_printf(I, "%s - (%s)", hi.t, lo.t)};
    imp_count n = l->step == 1 ? (imp_count){d.c + 1, d.t}
                               : (imp_count){1, imp_printf(I, "(%s) / %lld", cnt_text(I, d), l->step)};
    if (!lo.t && n.c >= 0 && l->step == 1 && is_name(n.t)) return n;   /* a size (parameters are not negative) */
    return (imp_count){0, imp_printf(I, "max(0, %s)", cnt_text(I, n))};
}

/* ---- counting a statement's calls (errors located and said) ---- */

static int count_stmt(imp *I, CXCursor s, imp_count *out);

static void add_counts(imp *I, imp_count *out, const imp_count *n)
{
    for (int g = 0; g < IMP_NRNG; g++) out[g] = cnt_add(I, out[g], n[g]);
}

/* The calls of the body of the file's function `def` called at `call` (its parameters bound). */
static int count_call_body(imp *I, CXCursor call, CXCursor def, imp_count *out)
{
    if (I->call_depth >= 16)
        return imp_error(I, call, "calls nested more than 16 deep (recursion?) around calls of rand(); %s", SUPPORTED), -1;
    imp_bind *saved = I->env;
    int rc = imp_call_bind(I, call, def);
    CXCursor kid[64];
    I->call_depth++;
    for (int k = 0, m = imp_children(def, kid, 64); k < m && k < 64 && !rc; k++)
        if (clang_getCursorKind(kid[k]) == CXCursor_CompoundStmt) rc = count_stmt(I, kid[k], out);
    I->call_depth--;
    I->env = saved;
    return rc;
}

static int count_expr(imp *I, CXCursor e, imp_count *out);

/* Operands evaluated in an order C leaves unspecified: at most one calls each generator. */
static int count_operands(imp *I, CXCursor *kid, int n, imp_count *out)
{
    CXCursor first[IMP_NRNG];
    for (int g = 0; g < IMP_NRNG; g++) first[g] = clang_getNullCursor();
    for (int i = 0; i < n; i++) {
        imp_count c[IMP_NRNG] = {{0, NULL}};
        if (count_expr(I, kid[i], c) != 0) return -1;
        for (int g = 0; g < IMP_NRNG; g++) {
            if (cnt_zero(c[g])) continue;
            if (!clang_Cursor_isNull(first[g])) {
                CXCursor at = first_call(I, kid[i]);
                imp_error(I, at, "a second call of a generator in one expression (the first, '%s', at line %u): C "
                          "leaves the order of the two unspecified, so which value each draws is not known; %s",
                          imp_spelling(I, first[g]), imp_line(first[g]), SUPPORTED);
                return -1;
            }
            first[g] = first_call(I, kid[i]);
        }
        add_counts(I, out, c);
    }
    return 0;
}

/* An operand C evaluates only on a condition (of ?:, && or ||) calls no generator. */
static int unconditional(imp *I, CXCursor e, const char *where)
{
    CXCursor at = first_call(I, e);
    if (clang_Cursor_isNull(at)) return 0;
    imp_error(I, at, "a call of '%s' in %s, which C evaluates only on a condition: the number of calls after it "
              "is not known; %s", imp_spelling(I, at), where, SUPPORTED);
    return -1;
}

static int count_expr(imp *I, CXCursor e, imp_count *out)
{
    if (!imp_rand_mentions(I, e)) return 0;
    CXCursor kid[64];
    int n = imp_children(e, kid, 64), post;
    if (n > 64) n = 64;
    enum CXCursorKind k = clang_getCursorKind(e);
    if (k == CXCursor_CallExpr) {
        const rng_fn *f = rng_of(I, e);
        if (f && f->role == ROLE_GEN) {
            out[f->family] = cnt_add(I, out[f->family], cnt_const(1));
            return 0;
        }
        if (f) return imp_rand_value(I, e) ? 0 : -1;   /* says why it is refused */
        if (count_operands(I, kid, n, out) != 0) return -1;
        CXCursor def = file_fn(I, e);
        if (!clang_Cursor_isNull(def)) return count_call_body(I, e, def, out);
        def = clang_getCursorDefinition(clang_getCursorReferenced(e));
        if (!clang_Cursor_isNull(def) && imp_rand_mentions(I, def))
            return imp_error(I, e, "a call of '%s', a function of a header that calls the C library's random "
                             "numbers: the importer reads only the file's functions, so the calls after it cannot be "
                             "numbered; %s", imp_spelling(I, e), SUPPORTED), -1;
        return 0;
    }
    const char *op = k == CXCursor_BinaryOperator ? imp_operator(I, e, &post) : NULL;
    if (k == CXCursor_ConditionalOperator && n == 3) {
        if (unconditional(I, kid[1], "a branch of ?:") || unconditional(I, kid[2], "a branch of ?:")) return -1;
        return count_expr(I, kid[0], out);
    }
    if (op && n == 2 && (strcmp(op, "&&") == 0 || strcmp(op, "||") == 0)) {
        if (unconditional(I, kid[1], imp_printf(I, "the right operand of %s", op))) return -1;
        return count_expr(I, kid[0], out);
    }
    if (op && n == 2 && strcmp(op, ",") == 0)   /* sequenced: one after the other */
        return count_expr(I, kid[0], out) || count_expr(I, kid[1], out) ? -1 : 0;
    return count_operands(I, kid, n, out);
}

/* A loop around calls: its range (rectangular: bounds of constants and sizes), the calls of one
 * iteration (body) and of all (total).  The enclosing loops' variables are bound to markers. */
static int count_loop(imp *I, CXCursor s, imp_loop *l, imp_count *body, imp_count *total)
{
    CXCursor kid[5];
    if (imp_children(s, kid, 5) != 4) return imp_for(I, s, l);   /* reports it */
    for (int h = 0; h < 3; h++) {
        CXCursor at = first_call(I, kid[h]);
        if (!clang_Cursor_isNull(at))
            return imp_error(I, at, "a call of '%s' in a loop's header: the number of iterations, and of calls, would "
                             "depend on it; %s", imp_spelling(I, at), SUPPORTED), -1;
    }
    if (imp_for(I, s, l) != 0) return -1;
    if (strchr(l->lo, '$') || strchr(l->hi, '$')) {
        CXCursor at = first_call(I, kid[3]);
        return imp_error(I, at, "a call of '%s' in a loop whose bounds depend on an enclosing loop's variable (the "
                         "loop of '%s' at line %u): the calls before each iteration are not a product of trip counts; "
                         "%s", imp_spelling(I, at), l->var, imp_line(s), SUPPORTED), -1;
    }
    imp_bind *saved = I->env;
    imp_bind_text(I, l->var, "$", l->nonneg);
    for (int g = 0; g < IMP_NRNG; g++) body[g] = cnt_const(0);
    int rc = count_stmt(I, kid[3], body);
    I->env = saved;
    if (rc) return -1;
    imp_count trip = trip_count(I, l);
    for (int g = 0; g < IMP_NRNG; g++) total[g] = cnt_mul(I, trip, body[g]);
    return 0;
}

static int count_if(imp *I, CXCursor s, imp_count *out)
{
    CXCursor kid[4];
    int n = imp_children(s, kid, 4);
    if (n < 2) return imp_error(I, s, "an if of another form"), -1;
    CXCursor at = first_call(I, kid[0]);
    if (!clang_Cursor_isNull(at))
        return imp_error(I, at, "a call of '%s' in an if's condition; supported there: a variable set from it before "
                         "(double r = rand(); if (r < 0.5) ..)", imp_spelling(I, at)), -1;
    imp_count a[IMP_NRNG] = {{0, NULL}}, b[IMP_NRNG] = {{0, NULL}};
    if (count_stmt(I, kid[1], a) != 0 || (n == 3 && count_stmt(I, kid[2], b) != 0)) return -1;
    for (int g = 0; g < IMP_NRNG; g++)
        if (!cnt_equal(a[g], b[g])) {
            CXCursor in = first_call(I, kid[1]);
            if (clang_Cursor_isNull(in)) in = first_call(I, kid[2]);
            return imp_error(I, in, "a call of '%s' under the condition at line %u, whose branches call the "
                             "generator a different number of times: the number of calls after it, and so every "
                             "later value, would depend on the condition; %s (or as many calls in both branches)",
                             imp_spelling(I, in), imp_line(kid[0]), SUPPORTED), -1;
        }
    add_counts(I, out, a);
    return 0;
}

static int count_stmt(imp *I, CXCursor s, imp_count *out)
{
    s = imp_unwrap(s);
    if (I->failed || !imp_rand_mentions(I, s)) return I->failed ? -1 : 0;
    CXCursor kid[512];
    int n = imp_children(s, kid, 512);
    if (n > 512) n = 512;
    enum CXCursorKind k = clang_getCursorKind(s);
    switch (k) {
    case CXCursor_CompoundStmt:
        for (int i = 0; i < n; i++)
            if (count_stmt(I, kid[i], out) != 0) return -1;
        return 0;
    case CXCursor_ForStmt: {
        imp_loop l;
        imp_count body[IMP_NRNG], total[IMP_NRNG];
        if (count_loop(I, s, &l, body, total) != 0) return -1;
        add_counts(I, out, total);
        return 0;
    }
    case CXCursor_IfStmt: return count_if(I, s, out);
    case CXCursor_DeclStmt:
        for (int i = 0; i < n; i++) {
            CXCursor init = clang_Cursor_getVarDeclInitializer(kid[i]);
            if (!clang_Cursor_isNull(init) && count_expr(I, init, out) != 0) return -1;
        }
        return 0;
    case CXCursor_ReturnStmt:
        return n == 1 ? count_expr(I, kid[0], out) : 0;
    default:
        break;
    }
    if (clang_isExpression(k)) return count_expr(I, s, out);
    static const struct { enum CXCursorKind k; const char *what; } kinds[] = {
        {CXCursor_WhileStmt, "while loop"}, {CXCursor_DoStmt, "do loop"}, {CXCursor_SwitchStmt, "switch"},
        {CXCursor_LabelStmt, "labelled statement"}, {CXCursor_FirstInvalid, "statement of another kind"},
    };
    int w = 0;
    while (kinds[w].k != CXCursor_FirstInvalid && kinds[w].k != k) w++;
    CXCursor at = first_call(I, s);
    imp_error(I, at, "a call of '%s' in a %s: the number of its calls cannot be counted; %s", imp_spelling(I, at),
              kinds[w].what, SUPPORTED);
    return -1;
}

/* ---- numbering the calls while the code is read ---- */

static void imp_rand_save(imp *I, imp_rng_save *sv)
{
    memcpy(sv->rng, I->rng, sizeof sv->rng);
    sv->active = 0;
}

int imp_rand_loop_enter(imp *I, const CXCursor *loops, int depth, CXCursor loop, imp_rng_save *sv)
{
    sv->active = 0;
    if (!imp_rand_mentions(I, loop)) return 0;
    if (depth >= IMP_MAXNEST) return imp_error(I, loop, "loops nested more than %d deep", IMP_MAXNEST), -1;
    imp_bind *saved = I->env;
    for (int d = 0; d < depth; d++) {
        const char *v = imp_for_var(I, loops[d]);
        if (v) imp_bind_text(I, v, "$", 0);
    }
    imp_loop l;
    imp_count body[IMP_NRNG], total[IMP_NRNG];
    int rc = count_loop(I, loop, &l, body, total);
    I->env = saved;
    if (rc) return -1;
    imp_rand_save(I, sv);
    sv->active = 1;
    sv->depth = depth;
    for (int g = 0; g < IMP_NRNG; g++) {
        sv->count[g] = total[g];
        I->rng[g].per[depth] = body[g];
    }
    I->rng_loop[depth] = (imp_rng_loop){l.lo, l.hi, l.step, l.down};
    imp_bind_text(I, l.var, imp_printf(I, "$%d", depth), 0);   /* in the body's declarations */
    return 0;
}

void imp_rand_loop_leave(imp *I, imp_rng_save *sv)
{
    if (!sv->active) return;
    for (int g = 0; g < IMP_NRNG; g++) {
        I->rng[g] = sv->rng[g];
        I->rng[g].at = cnt_add(I, sv->rng[g].at, sv->count[g]);
    }
}

int imp_rand_if_enter(imp *I, CXCursor s, imp_rng_save *sv)
{
    sv->active = 0;
    if (!imp_rand_mentions(I, s)) return 0;
    imp_count n[IMP_NRNG] = {{0, NULL}};
    if (count_if(I, s, n) != 0) return -1;
    imp_rand_save(I, sv);
    sv->active = 1;
    memcpy(sv->count, n, sizeof n);
    return 0;
}

void imp_rand_if_else(imp *I, imp_rng_save *sv)
{
    if (sv->active) memcpy(I->rng, sv->rng, sizeof I->rng);
}

void imp_rand_if_leave(imp *I, imp_rng_save *sv) { imp_rand_loop_leave(I, sv); }

/* The seed's text: a constant (as srand's unsigned int or srand48's 32 bits keep it) or a size. */
static const char *seed_text(imp *I, CXCursor a)
{
    CXEvalResult r = clang_Cursor_Evaluate(a);
    if (r && clang_EvalResult_getKind(r) == CXEval_Int) {
        unsigned long long v = clang_EvalResult_getAsUnsigned(r);
        clang_EvalResult_dispose(r);
        return imp_printf(I, "%u", (unsigned)(v & 0xffffffffu));
    }
    if (r) clang_EvalResult_dispose(r);
    double v;
    if (imp_const(I, a, &v) && v > -9.2e18 && v < 9.2e18) return imp_printf(I, "%u", (unsigned)(long long)v);
    for (;;) {   /* a size: srand(n) */
        a = imp_unwrap(a);
        CXCursor kid[3];
        int n = imp_children(a, kid, 3);
        enum CXCursorKind k = clang_getCursorKind(a);
        if ((k == CXCursor_CStyleCastExpr || k == CXCursor_ParenExpr) && n >= 1) { a = kid[n - 1]; continue; }
        if (k != CXCursor_DeclRefExpr) return NULL;
        imp_bind *b = imp_lookup(I, imp_spelling(I, a));
        return b && b->sym && b->sym->kind == SYM_PARAM ? b->sym->name : NULL;
    }
}

/* srand(s), srandom(s), srand48(s) as a statement: the seed, and the count starts again. */
static int seed(imp *I, CXCursor call, const rng_fn *f, int depth, int nguards)
{
    const char *name = f->name;
    if (depth || nguards) return imp_error(I, call, SEED_PLACE, name, name), -1;
    if (clang_Cursor_getNumArguments(call) != 1) return imp_error(I, call, "%s without its one argument", name), -1;
    CXCursor a = clang_Cursor_getArgument(call, 0);
    const char *text = seed_text(I, a);
    if (!text) {
        CXCursor in = clang_getNullCursor();
        CXCursor kid[1];
        if (clang_getCursorKind(imp_unwrap(a)) == CXCursor_CallExpr) in = imp_unwrap(a);
        else if (imp_children(a, kid, 1) >= 1 && clang_getCursorKind(imp_unwrap(kid[0])) == CXCursor_CallExpr)
            in = imp_unwrap(kid[0]);
        return imp_error(I, a, "%s's seed %s%s%s: a value the program computes when it runs, so its random numbers "
                         "cannot be reproduced; supported: a constant seed (%s(42)) or a size, or give the values: "
                         "--init 'A[i][j] = formula'", name, clang_Cursor_isNull(in) ? "is a variable" : "calls '",
                         clang_Cursor_isNull(in) ? "" : imp_spelling(I, in), clang_Cursor_isNull(in) ? "" : "'", name), -1;
    }
    imp_rng *r = &I->rng[f->family];
    memset(r, 0, sizeof *r);
    r->seed = text;
    return 0;
}

int imp_rand_stmt_enter(imp *I, CXCursor s, int depth, int nguards, imp_rng_save *sv, int *handled)
{
    sv->active = 0;
    *handled = 0;
    if (!imp_rand_mentions(I, s)) return 0;
    const rng_fn *f = rng_of(I, imp_unwrap(s));
    if (f && f->role == ROLE_SEED) {
        *handled = 1;
        return seed(I, imp_unwrap(s), f, depth, nguards);
    }
    imp_count n[IMP_NRNG] = {{0, NULL}};
    if (count_stmt(I, s, n) != 0) return -1;
    imp_rand_save(I, sv);
    sv->active = 1;
    memcpy(sv->count, n, sizeof n);
    I->rng_live = 1;
    memset(I->rng_used, 0, sizeof I->rng_used);
    return 0;
}

void imp_rand_stmt_leave(imp *I, imp_rng_save *sv)
{
    if (!sv->active) return;
    I->rng_live = 0;
    for (int g = 0; g < IMP_NRNG; g++) I->rng[g].at = cnt_add(I, sv->rng[g].at, sv->count[g]);
}

/* The iteration number of the loop at depth d, of its marker: 0, 1, .. */
static const char *iteration(imp *I, int d)
{
    const imp_rng_loop *L = &I->rng_loop[d];
    const char *v = imp_printf(I, "$%d", d);
    if (L->down)
        return L->step == 1 ? imp_printf(I, "(%s) - %s", L->hi, v) : imp_printf(I, "((%s) - %s) / %lld", L->hi, v, L->step);
    if (strcmp(L->lo, "0") == 0) return L->step == 1 ? v : imp_printf(I, "%s / %lld", v, L->step);
    return L->step == 1 ? imp_printf(I, "(%s - (%s))", v, L->lo) : imp_printf(I, "(%s - (%s)) / %lld", v, L->lo, L->step);
}

char *imp_rand_value(imp *I, CXCursor call)
{
    const rng_fn *f = rng_of(I, call);
    char *name = imp_spelling(I, call);
    if (!f) return imp_error(I, call, "a call of '%s'", name);
    if (f->role == ROLE_SEED) return imp_error(I, call, SEED_PLACE, name, name);
    if (f->role == ROLE_OTHER)
        return imp_error(I, call, "a call of '%s': of the C library's random numbers the importer reproduces rand(), "
                         "random(), drand48() and lrand48(); %s", name, SUPPORTED);
    if (!I->in_init || !I->rng_live)
        return imp_error(I, call, "a call of '%s' %s: which of its values this call draws is not known there; %s", name,
                         I->in_region ? "in the region (the kernel's values must be the same in every run)" : "here",
                         SUPPORTED);
    int g = f->family;
    imp_rng *r = &I->rng[g];
    imp_count k = r->at;
    k.c += I->rng_used[g]++;
    for (int d = 0; d < IMP_MAXNEST; d++) {
        if (cnt_zero(r->per[d])) continue;
        const char *it = iteration(I, d);
        k = cnt_add(I, k, (imp_count){0, !r->per[d].t && r->per[d].c == 1 ? it
                                           : imp_printf(I, "(%s) * (%s)", it, cnt_text(I, r->per[d]))});
    }
    if (!r->seed && g == IMP_RNG_48) return imp_printf(I, "%s(%s)", f->apm, cnt_text(I, k));
    return imp_printf(I, "%s(%s, %s)", f->apm, r->seed ? r->seed : "1", cnt_text(I, k));
}

char *imp_rand_subst(imp *I, const char *val, char *const *iter, int n)
{
    if (!strchr(val, '$')) return (char *)val;
    strbuf b = {0};
    strbuf_printf(&b, "%s", "");
    for (const char *p = val; *p; p++) {
        if (*p == '$' && isdigit((unsigned char)p[1])) {
            char *end;
            long d = strtol(p + 1, &end, 10);
            if (d < n && iter[d]) {
                strbuf_printf(&b, "(%s)", iter[d]);
                p = end - 1;
                continue;
            }
        }
        strbuf_printf(&b, "%c", *p);
    }
    char *r = imp_strdup(I, b.s);
    free(b.s);
    return r;
}
