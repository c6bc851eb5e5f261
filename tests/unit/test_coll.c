/*
 * test_coll.c — collectives and operators: the property table of engine/op.c against brute
 * force, user operators through op_apply and op_repeat, print/parse/clone round trips of every
 * collective form, and the simulator on Deitz et al.'s values for 1..9 processors.
 */
#include <stdlib.h>
#include <string.h>

#include "op.h"
#include "sim.h"
#include "t.h"
#include "t_load.h"

/* ---- the property table --------------------------------------------------------------------- */

static void test_table(void)
{
    static const int64_t vals[] = { -7, -3, -1, 0, 1, 2, 3, 5, 12 };
    int nv = (int)(sizeof vals / sizeof vals[0]);
    int bad = 0, checked = 0;
    char name[128], why[256] = "";
    for (int o = 0; o < IR_BOP_COUNT; o++) {
        ir_opref ro = { op_builtin_name((ir_bop)o), { 0, 0 }, o, -1 };
        /* associativity, commutativity and identity, exhaustively on the samples */
        int assoc = 1, comm = 1, ident = 1;
        for (int i = 0; i < nv; i++) {
            int64_t a = vals[i], e = op_builtin_ident_i((ir_bop)o);
            if (op_builtin_apply_i((ir_bop)o, e, a) != a || op_builtin_apply_i((ir_bop)o, a, e) != a) {
                /* and/or normalise to 0/1: the identity holds on truth values */
                if (!(o == IR_BOP_AND || o == IR_BOP_OR) || (a == 0 || a == 1)) ident = 0;
            }
            for (int j = 0; j < nv; j++) {
                int64_t b = vals[j];
                if (op_builtin_apply_i((ir_bop)o, a, b) != op_builtin_apply_i((ir_bop)o, b, a)) comm = 0;
                for (int k = 0; k < nv; k++) {
                    int64_t c = vals[k];
                    if (op_builtin_apply_i((ir_bop)o, op_builtin_apply_i((ir_bop)o, a, b), c) !=
                        op_builtin_apply_i((ir_bop)o, a, op_builtin_apply_i((ir_bop)o, b, c)))
                        assoc = 0;
                }
            }
        }
        snprintf(name, sizeof name, "table: %s associative as the table says", ro.name);
        T_CHECK(name, assoc == op_associative(NULL, &ro), "brute force %d", assoc);
        snprintf(name, sizeof name, "table: %s commutative as the table says", ro.name);
        T_CHECK(name, comm == op_commutative(NULL, &ro), "brute force %d", comm);
        snprintf(name, sizeof name, "table: %s identity", ro.name);
        T_CHECK(name, ident, "not an identity");
        /* left distributivity over every built-in operator: the table is exactly brute force */
        for (int q = 0; q < IR_BOP_COUNT; q++) {
            ir_opref rq = { op_builtin_name((ir_bop)q), { 0, 0 }, q, -1 };
            int holds = 1;
            for (int i = 0; i < nv && holds; i++)
                for (int j = 0; j < nv && holds; j++)
                    for (int k = 0; k < nv && holds; k++) {
                        int64_t a = vals[i], b = vals[j], c = vals[k];
                        int64_t l = op_builtin_apply_i((ir_bop)o, a, op_builtin_apply_i((ir_bop)q, b, c));
                        int64_t r = op_builtin_apply_i((ir_bop)q, op_builtin_apply_i((ir_bop)o, a, b),
                                                       op_builtin_apply_i((ir_bop)o, a, c));
                        holds = l == r;
                    }
            checked++;
            int wraps = (o == IR_BOP_AND || o == IR_BOP_OR) && q == IR_BOP_MUL;
            if (wraps) {   /* true on the samples, false under 64-bit wrap-around */
                int64_t big = INT64_C(1) << 32;
                holds = op_builtin_apply_i((ir_bop)o, 0, op_builtin_apply_i(IR_BOP_MUL, big, big)) ==
                        op_builtin_apply_i(IR_BOP_MUL, op_builtin_apply_i((ir_bop)o, 0, big),
                                           op_builtin_apply_i((ir_bop)o, 0, big)) &&
                        op_builtin_apply_i((ir_bop)o, 1, op_builtin_apply_i(IR_BOP_MUL, big, big)) ==
                        op_builtin_apply_i(IR_BOP_MUL, op_builtin_apply_i((ir_bop)o, 1, big),
                                           op_builtin_apply_i((ir_bop)o, 1, big));
            }
            if (holds != op_distributes(NULL, &ro, &rq)) {
                bad++;
                snprintf(why, sizeof why, "%s over %s: table %d, brute force %d", ro.name, rq.name,
                         op_distributes(NULL, &ro, &rq), holds);
            }
        }
    }
    T_CHECK("table: distributivity of all 81 pairs matches brute force", bad == 0 && checked == 81, "%s", why);
    T_EQ_INT("table: * over + by name", op_distributes_names(NULL, "*", "+"), 1);
    T_EQ_INT("table: + over * by name", op_distributes_names(NULL, "+", "*"), 0);
    T_EQ_INT("table: + over max", op_distributes_names(NULL, "+", "max"), 1);
    T_EQ_INT("table: max over min", op_distributes_names(NULL, "max", "min"), 1);
    T_EQ_INT("table: and over or", op_distributes_names(NULL, "and", "or"), 1);
    T_EQ_INT("table: unknown name", op_distributes_names(NULL, "nope", "+"), -1);
}

/* ---- user operators ------------------------------------------------------------------------- */

static ir_program *load_text(const char *text)
{
    diag_list d;
    diag_list_init(&d);
    ir_program *p = ir_load_text("t.apm", text, strlen(text), &d);
    if (!p) diag_print(&d, stdout);
    diag_list_free(&d);
    return p;
}

static const char *ops_prog =
    "program t\nlevel syncomm\nparam procs = 4\n"
    "op sr2 {\n  state (s int, r int)\n  ident = (0, 1)\n"
    "  combine (s1, r1) (s2, r2) = (s1 + r1 * s2, r1 * r2)\n  noncommutative\n}\n"
    "op comp {\n  state (t int, u int)\n  even (t, u) = (t, u + u)\n  odd (t, u) = (t + u, u + u)\n}\n"
    "op mx {\n  state (x int)\n  combine a b = max(a, b)\n  commutative\n  distributes over min\n}\n"
    "array b[0 .. procs - 1] int\n"
    "for t = 0 .. 0, rp = 0 .. procs - 1 proc {\n  b[rp] = allreduce(mx) b[rp]\n}\n";

static void test_user_ops(void)
{
    ir_program *p = load_text(ops_prog);
    T_CHECK("ops: program loads", p != NULL, "see above");
    if (!p) return;
    op_env *E = op_env_new(p);
    op_value a[2] = { { .i = 3 }, { .i = 2 } }, b[2] = { { .i = 5 }, { .i = 7 } }, out[2];
    char err[256];
    T_EQ_INT("ops: sr2 combine applies", op_apply(E, 0, IR_K_COMBINE, a, b, out, err, sizeof err), 0);
    T_EQ_INT("ops: sr2 s1 + r1 * s2", out[0].i, 3 + 2 * 5);
    T_EQ_INT("ops: sr2 r1 * r2", out[1].i, 14);
    T_EQ_INT("ops: sr2 is not commutative", op_commutative_name(p, "sr2"), 0);
    T_EQ_INT("ops: sr2 is associative", op_associative_name(p, "sr2"), 1);
    T_EQ_INT("ops: mx distributes over min (declared)", op_distributes_names(p, "mx", "min"), 1);
    T_EQ_INT("ops: mx does not declare + ", op_distributes_names(p, "mx", "+"), 0);
    /* repeat(comp, k, b, b) = (k + 1) * b: the Comcast value of processor k */
    int good = 1;
    for (int64_t k = 0; k < 70; k++) {
        op_value st[2] = { { .i = 3 }, { .i = 3 } };
        if (op_repeat(E, 1, k, st, err, sizeof err) != 0 || st[0].i != 3 * (k + 1)) good = 0;
    }
    T_CHECK("ops: repeat(comp, k, 3, 3) = 3 (k + 1) for k < 70", good, "wrong");
    T_EQ_INT("ops: combine ops of sr2 (2 multiplications, 1 addition)", (int)op_clause_ops(p, 0, IR_K_COMBINE), 3);
    T_EQ_INT("ops: missing clause is an error", op_apply(E, 1, IR_K_COMBINE, a, b, out, err, sizeof err), -1);
    op_env_free(E);
    /* clone prints the same text */
    ir_program *q = ir_program_clone(p);
    char *s1 = ir_print(p), *s2 = ir_print(q);
    T_EQ_STR("ops: a clone prints the same", s2, s1);
    free(s1);
    free(s2);
    ir_program_free(q);
    ir_program_free(p);
}

static void test_forms_roundtrip(void)
{
    ir_program *p = t_load("tests/coll/forms.apm");
    if (!p) return;
    ir_program *q = ir_program_clone(p);
    char *s1 = ir_print(p), *s2 = ir_print(q);
    T_EQ_STR("forms: a clone prints the same", s2, s1);
    diag_list d;
    diag_list_init(&d);
    ir_program *r = ir_load_text("forms2.apm", s1, strlen(s1), &d);
    T_CHECK("forms: the printed text checks again", r != NULL, "%d errors", diag_count(&d));
    if (r) {
        char *s3 = ir_print(r);
        T_EQ_STR("forms: print(parse(print(x))) == print(x)", s3, s1);
        free(s3);
        ir_program_free(r);
    }
    diag_list_free(&d);
    free(s1);
    free(s2);
    ir_program_free(q);
    ir_program_free(p);
}

/* ---- Deitz et al.'s values on 1..9 processors --------------------------------------------- */

static int output_is(const sim_result *r, const char *name, const int64_t *want, int n, char *why, size_t wn)
{
    for (int i = 0; i < r->noutputs; i++) {
        const sim_output *o = &r->outputs[i];
        if (strcmp(o->name, name) != 0) continue;
        if (o->size != n) { snprintf(why, wn, "%s has %lld elements", name, (long long)o->size); return 0; }
        for (int k = 0; k < n; k++)
            if (!o->defined[k] || o->values[k] != (double)want[k]) {
                snprintf(why, wn, "%s[%d] = %g%s, want %lld", name, k, o->values[k],
                         o->defined[k] ? "" : " (no value)", (long long)want[k]);
                return 0;
            }
        return 1;
    }
    snprintf(why, wn, "no output %s", name);
    return 0;
}

static void test_reference_values(void)
{
    ir_program *p = t_load("examples/reductions.apm");
    if (!p) return;
    static const int64_t incl[] = { 6, 13, 19, 22, 30, 32, 40, 44, 52, 55 };
    static const int64_t excl[] = { 0, 6, 13, 19, 22, 30, 32, 40, 44, 52 };
    static const int64_t cnt[] = { 0, 1, 2, 1, 0, 2, 1, 3 };
    static const int64_t rank[] = { 1, 1, 2, 1, 1, 1, 2, 1, 3, 2 };
    static const int64_t small[] = { 3, 3, 2 };
    static const int64_t ml[] = { 2, 6 };
    for (int procs = 1; procs <= 9; procs++) {
        ir_binding b = { "procs", procs };
        sim_options opt = { .bindings = &b, .nbindings = 1 };
        sim_result *r = sim_run(p, &opt);
        char name[128], why[256] = "";
        int64_t total[9];
        for (int i = 0; i < procs; i++) total[i] = 55;
        int ok = r && r->ok && r->violations_total == 0;
        if (!ok && r && r->nviolations) snprintf(why, sizeof why, "%s", r->violations[0].text);
        ok = ok && output_is(r, "total", total, procs, why, sizeof why)
                && output_is(r, "incl", incl, 10, why, sizeof why)
                && output_is(r, "excl", excl, 10, why, sizeof why)
                && output_is(r, "cnt", cnt, 8, why, sizeof why)
                && output_is(r, "rank", rank, 10, why, sizeof why)
                && output_is(r, "small", small, 3, why, sizeof why)
                && output_is(r, "ml", ml, 2, why, sizeof why);
        snprintf(name, sizeof name,
                 "Deitz et al.'s values (sum, scans, counts, ranks, min_3, minloc) on %d processor%s",
                 procs, procs == 1 ? "" : "s");
        T_CHECK(name, ok, "%s", why);
        sim_result_free(r);
    }
    ir_program_free(p);
}

/* The fixed sorted operator on [5], [], [3] says "not sorted" everywhere; on [5], [], [7] sorted. */
static void test_sorted(void)
{
    ir_program *p = t_load("examples/sorted.apm");
    if (!p) return;
    for (int last = 3; last <= 7; last += 4) {
        ir_binding b = { "last", last };
        sim_options opt = { .bindings = &b, .nbindings = 1 };
        sim_result *r = sim_run(p, &opt);
        int64_t want[3] = { last >= 5, last >= 5, last >= 5 };
        char why[256] = "", name[96];
        snprintf(name, sizeof name, "sorted: blocks [5], [], [%d] give %s", last, last >= 5 ? "true" : "false");
        T_CHECK(name, r && r->ok && r->violations_total == 0 && output_is(r, "r", want, 3, why, sizeof why), "%s", why);
        sim_result_free(r);
    }
    ir_program_free(p);
}

/* multicast = scatter & broadcast = scatter & allgather, for several grids */
static void test_multicast(void)
{
    ir_program *p = t_load("tests/coll/multicast3.apm");
    if (!p) return;
    for (int n = 1; n <= 4; n++) {
        ir_binding b = { "N", n };
        sim_options opt = { .bindings = &b, .nbindings = 1 };
        sim_result *r = sim_run(p, &opt);
        int same = r && r->ok && r->violations_total == 0 && r->noutputs == 3;
        for (int k = 1; same && k < 3; k++) {
            same = r->outputs[k].size == r->outputs[0].size;
            for (int64_t i = 0; same && i < r->outputs[0].size; i++)
                same = r->outputs[k].defined[i] && r->outputs[k].values[i] == r->outputs[0].values[i];
        }
        char name[96];
        snprintf(name, sizeof name, "multicast = scatter & bcast = scatter & allgather on %d x %d", n, n);
        T_CHECK(name, same, "%s", r && r->nviolations ? r->violations[0].text : "outputs differ");
        sim_result_free(r);
    }
    ir_program_free(p);
}

static const sim_output *find_output(const sim_result *r, const char *name)
{
    for (int i = 0; i < r->noutputs; i++)
        if (strcmp(r->outputs[i].name, name) == 0) return &r->outputs[i];
    return NULL;
}

/* The rules' after forms (balanced tree, butterfly, repeat, sr2) equal their before forms. */
static void test_rules(void)
{
    ir_program *p = t_load("tests/coll/rules.apm");
    if (!p) return;
    static const char *const rules[] = { "sr", "ss", "bs", "br", "sr2" };
    for (unsigned k = 0; k < sizeof rules / sizeof rules[0]; k++) {
        char why[256] = "";
        int good = 1;
        for (int procs = 1; procs <= 9 && good; procs++) {
            ir_binding b = { "procs", procs };
            sim_options opt = { .bindings = &b, .nbindings = 1 };
            sim_result *r = sim_run(p, &opt);
            char bn[32], an[32];
            snprintf(bn, sizeof bn, "before_%s", rules[k]);
            snprintf(an, sizeof an, "after_%s", rules[k]);
            const sim_output *x = r ? find_output(r, bn) : NULL, *y = r ? find_output(r, an) : NULL;
            if (!r || !r->ok || r->violations_total || !x || !y || x->size != y->size) {
                snprintf(why, sizeof why, "p=%d: %s", procs, r && r->nviolations ? r->violations[0].text : "no run");
                good = 0;
            }
            for (int64_t i = 0; good && i < x->size; i++)
                if (!x->defined[i] || !y->defined[i] || x->values[i] != y->values[i]) {
                    snprintf(why, sizeof why, "p=%d: element %lld: before %g, after %g", procs, (long long)i,
                             x->values[i], y->values[i]);
                    good = 0;
                }
            sim_result_free(r);
        }
        char name[96];
        snprintf(name, sizeof name, "rule %s: after form equals before on 1..9 processors", rules[k]);
        T_CHECK(name, good, "%s", why);
    }
    ir_program_free(p);
}

/* ir_new_coll builds what the parser builds: a reduce appended to polyeval prints as written. */
static void test_builder(void)
{
    ir_program *p = t_load("examples/polyeval.apm");
    if (!p) return;
    ir_stmt *pfor = p->body->stmts[p->body->n - 1];
    ir_expr *ix[1] = { ir_new_name(p, "rp") };
    ir_expr *dst[2] = { ir_new_access(p, "y", ix, 1), NULL };
    ir_expr *src[2] = { ir_new_access(p, "pw", ix, 1), ir_new_access(p, "pw", ix, 1) };
    ir_block_append(p, pfor->u.for_.body, ir_new_coll(p, IR_C_REDUCE, "+", dst, 1, src, 1, ir_new_int(p, 0)));
    ir_block_append(p, pfor->u.for_.body, ir_new_coll(p, IR_C_SCAN, "max", dst, 2, src, 2, NULL));
    char *text = ir_print(p);
    T_CHECK("builder: reduce printed", strstr(text, "\n  y[rp] = reduce(+) pw[rp] to 0\n") != NULL, "%s", text);
    T_CHECK("builder: tuple printed", strstr(text, "\n  (y[rp], _) = scan(max) (pw[rp], pw[rp])\n") != NULL, "%s", text);
    diag_list d;
    diag_list_init(&d);
    T_CHECK("builder: the checker sees the arity error", ir_check(p, &d) > 0, "no error");
    diag_list_free(&d);
    free(text);
    ir_program_free(p);
}

int main(void)
{
    test_builder();
    test_rules();
    test_sorted();
    test_multicast();
    test_table();
    test_user_ops();
    test_forms_roundtrip();
    test_reference_values();
    return t_done();
}
