/*
 * import_init.c — the code that runs before the kernel (main's statements before the call,
 * the functions it calls such as PolyBench's init_array, the kernel's own declarations before
 * the region) read as values rather than statements.
 *
 * Each array's value is a text in the placeholders @0, @1, .. of an element's indices.  An
 * assignment A[i][j] = e inside loops binds each loop variable that is a subscript to its
 * placeholder, and the new value is select(domain and guards, e, the value before); other
 * subscripts become equalities (A[i][i]).  A loop variable that is not a subscript is a
 * reduction: `B[r][s] += e` over t, on an element that is 0 before, is sum(t = lo .. hi) e —
 * exactly C's order of additions.  Reads of arrays take their value at that point of the code.
 */
#include <stdlib.h>
#include <string.h>

#include "import_int.h"

enum { MAXNEST = IMP_MAXNEST };

typedef struct ctx {
    CXCursor loops[MAXNEST];    /* the enclosing for statements, outermost first */
    int nloops;
    CXCursor guards[MAXNEST];   /* the enclosing if conditions */
    int polarity[MAXNEST];      /* 1: the then branch, 0: the else branch */
    int nguards;
} ctx;

static int init_stmt(imp *I, ctx *c, CXCursor s);

/* ---- what a loop nest assigns ---- */

static char *subs_text(imp *I, CXCursor *subs, int n)
{
    strbuf b = {0};
    strbuf_printf(&b, "%s", "");
    for (int k = 0; k < n; k++) {
        CXToken *t = NULL;
        unsigned nt = 0;
        clang_tokenize(I->tu, clang_getCursorExtent(subs[k]), &t, &nt);
        strbuf_printf(&b, "[");
        for (unsigned i = 0; i < nt; i++) {
            CXString sp = clang_getTokenSpelling(I->tu, t[i]);
            strbuf_printf(&b, "%s%s", i ? " " : "", clang_getCString(sp));
            clang_disposeString(sp);
        }
        strbuf_printf(&b, "]");
        clang_disposeTokens(I->tu, t, nt);
    }
    char *r = imp_strdup(I, b.s);
    free(b.s);
    return r;
}

static enum CXChildVisitResult collect_write(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    imp *I = data;
    if (!imp_is_write(I, c)) return CXChildVisit_Recurse;
    CXCursor kid[2], subs[IMP_MAXDIM];
    int n;
    if (imp_children(c, kid, 2) < 1) return CXChildVisit_Recurse;
    diag_list *d = I->d, quiet;   /* only what it names: the statement is read (and reported) later */
    diag_list_init(&quiet);
    I->d = &quiet;
    int failed = I->failed;
    imp_sym *s = imp_lvalue(I, kid[0], subs, &n);
    I->failed = failed;
    I->d = d;
    diag_list_free(&quiet);
    if (s) {
        if (I->nwrites == I->capwrites) {
            I->capwrites = I->capwrites ? 2 * I->capwrites : 16;
            imp_write *w = xrealloc(I->writes, (size_t)I->capwrites * sizeof *w);
            I->writes = w;
        }
        I->writes[I->nwrites++] = (imp_write){s, subs_text(I, subs, n)};
    }
    return CXChildVisit_Recurse;
}

int imp_init_read_ok(imp *I, CXCursor at, imp_sym *s, CXCursor *subs, int n)
{
    char *mine = NULL;
    for (int i = 0; i < I->nwrites; i++) {
        if (I->writes[i].sym != s) continue;
        if (!mine) mine = subs_text(I, subs, n);
        if (strcmp(mine, I->writes[i].subs) != 0) {
            imp_error(I, at, "'%s' is read at %s in a loop nest of the code before the kernel that assigns it at %s; "
                      "supported there: reading the element the nest assigns (no recurrences)", s->name, mine,
                      I->writes[i].subs);
            return 0;
        }
    }
    return 1;
}

int imp_init_iter_read_ok(imp *I, CXCursor at, imp_sym *s)
{
    if (!s->iter_dep) return 1;
    for (int i = 0; i < I->nwrites; i++)
        if (I->writes[i].sym == s) {
            imp_error(I, at, "'%s' is read in a loop nest of the code before the kernel that assigns it a value "
                      "changing with each iteration of a loop it is not indexed by; supported there: reading a "
                      "variable declared in the loop's body when the loop calls rand() (double r = rand(); A[i] = r;), "
                      "or an element per iteration (r[i] = ..; A[i] = r[i];)", s->name);
            return 0;
        }
    return 1;
}

/* The subscript that is the loop variable `var` of the loop at `depth`: the variable itself, or a
 * name standing for it (a function's parameter bound to the loop's marker, import_rand.c). */
static int subscript_of(imp *I, CXCursor *subs, int n, const char *var, int depth)
{
    char marker[32];
    snprintf(marker, sizeof marker, "$%d", depth);
    for (int k = 0; k < n; k++) {
        CXCursor e = imp_unwrap(subs[k]);
        if (clang_getCursorKind(e) != CXCursor_DeclRefExpr) continue;
        const char *name = imp_spelling(I, e);
        if (strcmp(name, var) == 0) return k;
        imp_bind *b = imp_lookup(I, name);
        if (b && !b->sym && b->text && strcmp(b->text, marker) == 0) return k;
    }
    return -1;
}

typedef struct mention { imp *I; const char *var; int found; } mention;

static enum CXChildVisitResult find_var(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    mention *m = data;
    if (clang_getCursorKind(c) == CXCursor_DeclRefExpr && strcmp(imp_spelling(m->I, c), m->var) == 0) {
        m->found = 1;
        return CXChildVisit_Break;
    }
    return CXChildVisit_Recurse;
}

/* Does a subscript other than a plain `var` name the loop variable (A[i + 1])? */
static int in_subscripts(imp *I, CXCursor *subs, int n, const char *var)
{
    for (int k = 0; k < n; k++) {
        mention m = {I, var, 0};
        CXCursor e = imp_unwrap(subs[k]);
        if (clang_getCursorKind(e) == CXCursor_DeclRefExpr) continue;
        clang_visitChildren(e, find_var, &m);
        if (m.found) return 1;
    }
    return 0;
}

/* The value of one assignment to sym[subs] (op is "=", "+=", ..; rhs NULL for ++/--). */
static int record(imp *I, ctx *c, CXCursor at, imp_sym *sym, CXCursor *subs, int n, const char *op, CXCursor *rhs)
{
    strbuf cond = {0}, sums = {0};
    strbuf_printf(&cond, "%s", "");
    strbuf_printf(&sums, "%s", "");
    int bound[IMP_MAXDIM] = {0}, nsums = 0, rc = -1, last = 0, dep = 0;
    char *iter[MAXNEST] = {NULL};   /* what each loop's variable stands for (random numbers' call numbers) */
    for (int j = 0; j < c->nloops; j++) {   /* bind the loop variables, outermost first */
        imp_loop l;
        if (imp_for(I, c->loops[j], &l) != 0) goto out;
        int k = subscript_of(I, subs, n, l.var, j);
        if (k >= 0 && !bound[k]) {
            bound[k] = 1;
            char *p = iter[j] = imp_printf(I, "@%d", k);
            char *full = imp_printf(I, "%s - 1", k < sym->ndims ? sym->dims[k] : "?");
            if (strcmp(l.lo, "0") != 0 || strcmp(l.hi, full) != 0)   /* not the whole extent */
                strbuf_printf(&cond, "%s%s <= %s && %s <= %s", cond.n ? " && " : "", l.lo, p, p, l.hi);
            if (l.step != 1)
                strbuf_printf(&cond, " && ((%s) - (%s)) %% %lld == 0", p, l.down ? l.hi : l.lo, l.step);
            imp_bind_text(I, l.var, p, l.nonneg);
        } else if (in_subscripts(I, subs, n, l.var)) {
            imp_error(I, at, "a subscript that is an expression of the loop variable '%s' in the code before the "
                      "kernel; supported there: subscripts that are loop variables (A[i][j], A[i][i]) or do not "
                      "name the loop's variable", l.var);
            goto out;
        } else if (strcmp(op, "=") == 0) {   /* not a subscript: the last iteration's value */
            strbuf_printf(&cond, "%s%s <= %s", cond.n ? " && " : "", l.lo, l.hi);
            imp_bind_text(I, l.var, iter[j] = l.down ? l.lo : l.hi, l.nonneg);
            last = 1;
            mention m = {I, l.var, 0};   /* its value changes with this loop's iterations */
            if (rhs) clang_visitChildren(*rhs, find_var, &m);
            dep |= m.found || (rhs && clang_getCursorKind(imp_unwrap(*rhs)) == CXCursor_DeclRefExpr &&
                               strcmp(imp_spelling(I, imp_unwrap(*rhs)), l.var) == 0);
        } else if (strcmp(op, "+=") == 0 && !l.down && l.step == 1) {
            char *v = imp_printf(I, "%s%d", imp_apm_name(I, l.var), ++I->nsum);
            strbuf_printf(&sums, "sum(%s = %s .. %s) ", v, l.lo, l.hi);
            imp_bind_text(I, l.var, iter[j] = v, l.nonneg);
            nsums++;
        } else {
            imp_error(I, at, "'%s' accumulates over the loop of '%s' that is not a subscript; supported in the code "
                      "before the kernel: += over upward loops by 1 into elements that are 0 before", op, l.var);
            goto out;
        }
    }
    char *ph[IMP_MAXDIM];
    for (int k = 0; k < n; k++) {
        ph[k] = imp_printf(I, "@%d", k);
        if (bound[k]) continue;
        char *e = imp_expr(I, subs[k]);
        if (!e) goto out;
        if (imp_rand_in(e)) {
            imp_error(I, subs[k], "a subscript drawn from the C library's random numbers: which element the code "
                      "writes would depend on the values; supported: random numbers in the values assigned");
            goto out;
        }
        if (strchr(e, '$')) {   /* a loop's marker: a function's parameter that is an expression of it */
            imp_error(I, subs[k], "a subscript that is an expression of a loop's variable passed to a function of the "
                      "file; supported there: subscripts that are the loop's variable (or the parameter it is passed "
                      "as) or do not depend on the loop");
            goto out;
        }
        strbuf_printf(&cond, "%s%s == %s", cond.n ? " && " : "", ph[k], e);
    }
    for (int g = 0; g < c->nguards; g++) {
        char *e = imp_expr(I, c->guards[g]);
        if (!e) goto out;
        strbuf_printf(&cond, "%s%s(%s)", cond.n ? " && " : "", c->polarity[g] ? "" : "!", e);
    }
    const char *prev = sym->val ? sym->val : NULL, *val;
    I->target = sym;
    I->target_read = 0;
    char *e = rhs ? imp_expr(I, *rhs) : imp_strdup(I, "1");
    I->target = NULL;
    if (!e) goto out;
    dep |= strchr(e, '$') != NULL;   /* a value drawn in this iteration (a loop's marker, import_rand.c) */
    if (last && I->target_read) {
        imp_error(I, at, "'%s' is assigned from itself in a loop whose variable is not a subscript (each iteration "
                  "updates it); supported in the code before the kernel: such loops only around plain values",
                  sym->name);
        goto out;
    }
    if (strcmp(op, "=") == 0) {
        val = e;
    } else if (nsums) {
        if (!prev || (strcmp(prev, "0") != 0 && strcmp(prev, "0.0") != 0)) {
            imp_error(I, at, "an accumulation into '%s' whose elements are not 0 before it; supported in the code "
                      "before the kernel: += over a loop into elements set to 0 first", sym->name);
            goto out;
        }
        val = imp_printf(I, "%s(%s)", sums.s, e);
    } else {
        if (!prev) { imp_error(I, at, "'%s' is updated before it has a value", sym->name); goto out; }
        char o = op[0] == '+' && op[1] == '+' ? '+' : op[0] == '-' && op[1] == '-' ? '-' : op[0];
        val = imp_printf(I, "(%s) %c (%s)", imp_subst(I, prev, ph, n), o, e);
    }
    if (sym->is_int && rhs && imp_type_is_float(clang_getCursorType(imp_unwrap(*rhs)))) {
        imp_error(I, at, "a floating value stored into the integer '%s' (C truncates); supported: integer values",
                  sym->name);
        goto out;
    }
    /* elements outside the domain keep their value; those without one are 0 (C would leave them
     * undefined: the kernel must not read them) */
    int zero = strcmp(val, "0") == 0 || strcmp(val, "0.0") == 0;
    if (cond.n && !(zero && !prev)) val = imp_printf(I, "select(%s, %s, %s)", cond.s, val, prev ? prev : "0");
    sym->val = imp_rand_subst(I, val, iter, c->nloops);
    sym->iter_dep = nsums > 0 || (last && (dep || (rhs && imp_rand_mentions(I, *rhs))));
    rc = 0;
out:
    free(cond.s);
    free(sums.s);
    return rc;
}

static int assignment(imp *I, ctx *c, CXCursor s, const char *op)
{
    CXCursor kid[3], subs[IMP_MAXDIM];
    int n = imp_children(s, kid, 3), nsubs;
    CXType lt = clang_getCursorType(imp_unwrap(kid[0]));
    if (clang_getCanonicalType(lt).kind == CXType_Pointer) return 0;   /* an allocation: B = malloc(..) */
    CXCursor t0 = imp_unwrap(kid[0]);
    imp_bind *pb = clang_getCursorKind(t0) == CXCursor_DeclRefExpr ? imp_lookup(I, imp_spelling(I, t0)) : NULL;
    if (pb && pb->sym && pb->sym->kind == SYM_PARAM && strcmp(op, "=") == 0 && n == 2)
        return 0;   /* n = 100: the size it sets is the parameter's value (imp_fixed_size) */
    imp_sym *sym = imp_lvalue(I, kid[0], subs, &nsubs);
    if (!sym) return -1;
    if (imp_given_init(I, sym->name)) return 0;   /* --init gives its values instead */
    CXCursor rhs = n == 2 ? imp_unwrap(kid[1]) : kid[0];
    int post;
    const char *inner = clang_getCursorKind(rhs) == CXCursor_BinaryOperator ? imp_operator(I, rhs, &post) : NULL;
    if (inner && strcmp(inner, "=") == 0 && strcmp(op, "=") == 0) {   /* A[..] = B[..] = e: B first, then A = B[..] */
        if (assignment(I, c, rhs, inner) != 0) return -1;
        CXCursor ik[2];
        imp_children(rhs, ik, 2);
        kid[1] = ik[0];
    }
    imp_bind *saved = I->env;
    int rc = record(I, c, s, sym, subs, nsubs, op, n == 2 ? &kid[1] : NULL);
    I->env = saved;
    return rc;
}

static int nest(imp *I, ctx *c, CXCursor s)
{
    if (c->nloops == MAXNEST) { imp_error(I, s, "loops nested more than %d deep", MAXNEST); return -1; }
    imp_loop l;
    imp_bind *saved = I->env;
    CXCursor kid[5];
    if (imp_children(s, kid, 5) != 4) return imp_for(I, s, &l);   /* reports it */
    int outermost = c->nloops == 0;
    if (outermost) {   /* what this nest assigns, for the reads inside it */
        I->nwrites = 0;
        clang_visitChildren(s, collect_write, I);
    }
    imp_rng_save sv;
    if (imp_rand_loop_enter(I, c->loops, c->nloops, s, &sv) != 0) { I->env = saved; return -1; }
    c->loops[c->nloops++] = s;
    int rc = init_stmt(I, c, kid[3]);
    c->nloops--;
    imp_rand_loop_leave(I, &sv);
    if (outermost) I->nwrites = 0;
    I->env = saved;
    return rc;
}

static int guarded(imp *I, ctx *c, CXCursor s)
{
    CXCursor kid[4];
    int n = imp_children(s, kid, 4), rc = 0;
    if (n < 2 || c->nguards == MAXNEST) { imp_error(I, s, "an if of another form"); return -1; }
    imp_rng_save sv;
    if (imp_rand_if_enter(I, s, &sv) != 0) return -1;
    c->guards[c->nguards] = kid[0];
    c->polarity[c->nguards++] = 1;
    rc = init_stmt(I, c, kid[1]);
    if (!rc && n == 3) {
        imp_rand_if_else(I, &sv);
        c->polarity[c->nguards - 1] = 0;
        rc = init_stmt(I, c, kid[2]);
    }
    c->nguards--;
    imp_rand_if_leave(I, &sv);
    return rc;
}

int imp_call_bind(imp *I, CXCursor s, CXCursor def)
{
    int n = clang_Cursor_getNumArguments(s);
    imp_bind *outer = I->env;
    for (int k = 0; k < n && k < clang_Cursor_getNumArguments(def); k++) {
        CXCursor a = clang_Cursor_getArgument(s, k), p = clang_Cursor_getArgument(def, k);
        char *pname = imp_spelling(I, p);
        CXType at = clang_getCanonicalType(clang_getCursorType(imp_unwrap(a)));
        if (!imp_type_is_int(at) && !imp_type_is_float(at)) {   /* an array or a pointer to a scalar */
            imp_bind *inner = I->env;
            I->env = outer;
            imp_sym *target = imp_argsym(I, a);
            I->env = inner;
            if (target) imp_bind_sym(I, pname, target);
            continue;
        }
        imp_bind *inner = I->env;
        I->env = outer;
        char *t = imp_expr(I, a);
        I->env = inner;
        if (!t) return -1;
        imp_bind_text(I, pname, t, imp_nonneg(I, a));
    }
    return 0;
}

/* The file's function a call calls (its definition), or a null cursor: printf, free, timers. */
static CXCursor file_function(imp *I, CXCursor s)
{
    CXCursor def = clang_getCursorDefinition(clang_getCursorReferenced(s));
    return !clang_Cursor_isNull(def) && imp_in_file(I, def) ? def : clang_getNullCursor();
}

/* A call of a function of the file: its body with its parameters bound to the arguments. */
static int call(imp *I, ctx *c, CXCursor s, CXCursor def)
{
    if (I->call_depth >= 16) {
        imp_error(I, s, "calls nested more than 16 deep in the code before the kernel (recursion?); supported: "
                  "calls of functions of the file that do not recurse");
        return -1;
    }
    imp_bind *saved = I->env;
    if (imp_call_bind(I, s, def) != 0) { I->env = saved; return -1; }
    CXCursor kid[64];
    int rc = 0, was = I->decl_local;
    I->decl_local = 1;
    I->call_depth++;
    for (int k = 0, m = imp_children(def, kid, 64); k < m && k < 64 && !rc; k++)
        if (clang_getCursorKind(kid[k]) == CXCursor_CompoundStmt) rc = init_stmt(I, c, kid[k]);
    I->call_depth--;
    I->decl_local = was;
    I->env = saved;
    return rc;
}

/* A statement of one expression or declaration (no statements inside). */
static int simple(imp *I, ctx *c, CXCursor s)
{
    int post;
    enum CXCursorKind k = clang_getCursorKind(s);
    const char *op = k == CXCursor_BinaryOperator || k == CXCursor_UnaryOperator ||
                     k == CXCursor_CompoundAssignOperator ? imp_operator(I, s, &post) : NULL;
    switch (k) {
    case CXCursor_DeclStmt: return imp_local_decl(I, s, I->decl_local, NULL);
    case CXCursor_CallExpr:   /* printf, free, timers; rand() whose value is not used (numbered) */
        if (!I->call_depth && !imp_rand_is_call(I, s))
            imp_set_aside(I, s, imp_printf(I, "a call of '%s'", imp_spelling(I, s)));
        return 0;
    case CXCursor_NullStmt: return 0;
    default: break;
    }
    if (op && (strcmp(op, "=") == 0 || strcmp(op, "++") == 0 || strcmp(op, "--") == 0 ||
               (k == CXCursor_CompoundAssignOperator && strchr("+-*/", op[0]))))
        return assignment(I, c, s, op);
    CXCursor pair[2];
    if (op && strcmp(op, ",") == 0 && imp_children(s, pair, 2) == 2)   /* a = x, b = y: one after the other */
        return simple(I, c, imp_unwrap(pair[0])) || simple(I, c, imp_unwrap(pair[1])) ? -1 : 0;
    if (k == CXCursor_ReturnStmt) return 0;
    CXString ks = clang_getCursorKindSpelling(k);
    imp_error(I, s, "%s in the code before the kernel; supported: for loops, if/else, declarations, calls of "
              "functions of the file, and assignments (= += -= *= /= ++ --, several joined by commas)",
              clang_getCString(ks));
    clang_disposeString(ks);
    return -1;
}

static int init_stmt(imp *I, ctx *c, CXCursor s)
{
    if (I->failed) return -1;
    s = imp_unwrap(s);
    CXCursor kid[512];
    switch (clang_getCursorKind(s)) {
    case CXCursor_CompoundStmt: {
        int n = imp_children(s, kid, 512);
        for (int i = 0; i < n && i < 512; i++)
            if (init_stmt(I, c, kid[i]) != 0) return -1;
        return 0;
    }
    case CXCursor_ForStmt: return nest(I, c, s);
    case CXCursor_IfStmt: return guarded(I, c, s);
    case CXCursor_CallExpr: {
        CXCursor def = file_function(I, s);
        if (!clang_Cursor_isNull(def)) return call(I, c, s, def);
        break;
    }
    default: break;
    }
    imp_rng_save sv;   /* its calls of rand() and kin numbered; srand(s) read */
    int handled;
    if (imp_rand_stmt_enter(I, s, c->nloops, c->nguards, &sv, &handled) != 0) return -1;
    int rc = handled ? 0 : simple(I, c, s);
    imp_rand_stmt_leave(I, &sv);
    return rc;
}

int imp_init_stmt(imp *I, CXCursor s)
{
    ctx c = {.nloops = 0};
    int was = I->in_init;
    I->in_init = 1;
    int rc = init_stmt(I, &c, s);
    I->in_init = was;
    return rc;
}
