/*
 * test_parse.c — unit tests of the language front end: lexer, parser, printer, checker,
 * parameter and constant evaluation, deep copy.  Round trips print(parse(x)) == x for canonical
 * text and idempotence print(parse(print(parse(x)))) == print(parse(x)) for any valid text.
 */
#include "ir.h"
#include "t.h"
#include "t_load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- helpers -------------------------------------------------------------------------------- */

static ir_program *load(const char *text, diag_list *d)
{
    diag_list_init(d);
    return ir_load_text("t.apm", text, strlen(text), d);
}

/* Loads, prints; checks idempotence and (when canonical) that the text comes back unchanged. */
static void roundtrip(const char *name, const char *text, int canonical)
{
    char nm[160];
    diag_list d;
    ir_program *p = load(text, &d);
    snprintf(nm, sizeof nm, "%s_loads", name);
    T_CHECK(nm, p != NULL, "first error: %s at %d:%d", d.n ? d.items[0].msg : "?",
            d.n ? d.items[0].line : 0, d.n ? d.items[0].col : 0);
    diag_list_free(&d);
    if (!p) return;
    char *s1 = ir_print(p);
    if (canonical) {
        snprintf(nm, sizeof nm, "%s_canonical", name);
        T_EQ_STR(nm, s1, text);
    }
    ir_program *q = load(s1, &d);
    snprintf(nm, sizeof nm, "%s_reparses", name);
    T_CHECK(nm, q != NULL, "%s", d.n ? d.items[0].msg : "?");
    diag_list_free(&d);
    if (q) {
        char *s2 = ir_print(q);
        snprintf(nm, sizeof nm, "%s_idempotent", name);
        T_EQ_STR(nm, s2, s1);
        free(s2);
        ir_program_free(q);
    }
    ir_program *c = ir_program_clone(p);
    char *s3 = ir_print(c);
    snprintf(nm, sizeof nm, "%s_clone", name);
    T_EQ_STR(nm, s3, s1);
    free(s3);
    ir_program_free(c);
    free(s1);
    ir_program_free(p);
}

/* Expects loading to fail with the first error at line:col containing `sub`. */
static void rejects(const char *name, const char *text, int line, int col, const char *sub)
{
    diag_list d;
    ir_program *p = load(text, &d);
    T_CHECK(name, !p && d.n > 0 && d.items[0].line == line && d.items[0].col == col &&
            strstr(d.items[0].msg, sub),
            "want %d:%d '%s', got %s %d:%d '%s'", line, col, sub, p ? "success" : "error",
            d.n ? d.items[0].line : 0, d.n ? d.items[0].col : 0, d.n ? d.items[0].msg : "");
    ir_program_free(p);
    diag_list_free(&d);
}

static void accepts(const char *name, const char *text)
{
    diag_list d;
    ir_program *p = load(text, &d);
    T_CHECK(name, p != NULL, "%d:%d %s", d.n ? d.items[0].line : 0, d.n ? d.items[0].col : 0,
            d.n ? d.items[0].msg : "?");
    ir_program_free(p);
    diag_list_free(&d);
}

/* Parses `expr` as the right-hand side of an assignment and prints it back. */
static char *reprint_expr(const char *expr)
{
    char text[1024];
    snprintf(text, sizeof text, "program e\nlevel source\n\nS: a[0] = %s\n", expr);
    diag_list d;
    diag_list_init(&d);
    ir_program *p = ir_parse("e.apm", text, strlen(text), &d);
    char *s = NULL;
    if (p && p->body->n == 1) s = ir_print_expr(p->body->stmts[0]->u.assign.rhs);
    else s = strdup(d.n ? d.items[0].msg : "parse failed");
    ir_program_free(p);
    diag_list_free(&d);
    return s;
}

static void expr_case(const char *name, const char *in, const char *want)
{
    char *s = reprint_expr(in);
    T_EQ_STR(name, s, want);
    /* and the printed form is a fixed point */
    char *s2 = reprint_expr(s);
    char nm[128];
    snprintf(nm, sizeof nm, "%s_fixed", name);
    T_EQ_STR(nm, s2, s);
    free(s);
    free(s2);
}

/* ---- programs ------------------------------------------------------------------------------- */

static const char source_prog[] =
    "# a leading comment\n"
    "# second line\n"
    "program everything # trailing on the header\n"
    "level source\n"
    "reference \"../x.apm\"\n"
    "# params\n"
    "param n = 16, steps = 3 # two of them\n"
    "param half = n / 2, q = isqrt(n), r = ceil(n / 3)\n"
    "array a[0 .. steps][0 .. n - 1] double\n"
    "array m[1 .. n][1 .. n] int\n"
    "array s double\n"
    "init a[0][x] = (x * 31 + 7) % 13\n"
    "init a[0][0] = 1.5\n"
    "init m[i][j] = i * j - 3\n"
    "init s = 0.0\n"
    "output a[steps]\n"
    "output m\n"
    "\n"
    "let c = 2\n"
    "for t = 1 .. steps, x = 0 .. n - 1 {\n"
    "  # lead of if\n"
    "  if x == 0 || x == n - 1 cost 7 {\n"
    "    B: a[t][x] = a[t - 1][x] # copy\n"
    "  } else if x == 1 {\n"
    "    C: a[t][x] = -a[t - 1][x] * 0.5\n"
    "  } else cost 13 {\n"
    "    let y = x - 1\n"
    "    S: a[t][x] = (a[t - 1][y] + c * a[t - 1][x] + a[t - 1][x + 1]) / 4 cost 2\n"
    "    # tail of else\n"
    "  }\n"
    "}\n"
    "for i = 1 .. n step 2 seq, j = max(1, i - 2) .. min(n, i + 2) cost 3 {\n"
    "  M: m[i][j] = sum(k = 1 .. n) m[i][k] * m[k][j] + prod(k = 1 .. 2) k\n"
    "}\n"
    "for i = 0 .. floor(n / 2) - 1 {\n"
    "  T: a[steps][2 * i + 1] = max(k = 0 .. i) a[steps][k] + min(a[0][i], 1e-07, 2.5e+20)\n"
    "  U: s = s + sqrt(abs(a[steps][i])) + isqrt(i) + ceil(i / 3) + floor(a[0][i])\n"
    "  V: a[steps][i] = !(i < 2) && (i > 3 || i % 2 == 0)\n"
    "}\n"
    "# at the end\n";

static const char syn_prog[] =
    "program fd_syn\n"
    "level syn\n"
    "reference \"../findiff.apm\"\n"
    "param n = 8, steps = 3\n"
    "array a[0 .. steps][0 .. n - 1][0 .. n - 1] double\n"
    "init a[0][x][y] = (x * 31 + y * 17) % 13\n"
    "output a[steps]\n"
    "\n"
    "let nn = n * n\n"
    "for t = 1 .. steps seq, p = 0 .. nn - 1 par {\n"
    "  let x = p % n\n"
    "  let y = p / n\n"
    "  if x == 0 || y == 0 || x == n - 1 || y == n - 1 cost 7 {\n"
    "    B: a[t][x][y] = a[t - 1][x][y]\n"
    "  } else cost 13 {\n"
    "    S: a[t][x][y] = (a[t - 1][x - 1][y] + 4 * a[t - 1][x][y] + a[t - 1][x + 1][y]) / 8\n"
    "  }\n"
    "}\n";

static const char syncomm_prog[] =
    "program fd_comm\n"
    "level syncomm\n"
    "param n = 16, steps = 3, procs = 4, b = n / procs\n"
    "array a[0 .. steps][0 .. n - 1] double\n"
    "init a[0][x] = x\n"
    "output a[steps]\n"
    "\n"
    "for t = 1 .. steps {\n"
    "  for rp = 0 .. procs - 1 proc {\n"
    "    for x = rp * b .. rp * b + b - 1 {\n"
    "      S: a[t][x] = a[t - 1][x] + 1\n"
    "      send a[t][x] to rp + 1 at t + 1 when x == rp * b + b - 1 && rp < procs - 1\n"
    "      send a[t][x] to 0 .. procs - 1 at t + 1 as [t][x] cost 2\n"
    "    }\n"
    "  }\n"
    "}\n";

static const char syndm_prog[] =
    "program fd_dm\n"
    "level syndm\n"
    "param n = 16, steps = 3, procs = 4, b = n / procs\n"
    "array a[0 .. steps][0 .. n - 1] double\n"
    "array c[0 .. n - 1] int\n"
    "array s double\n"
    "dist a(rp) [0 .. steps][0 .. b + 1] offset [0][rp * b - 1]\n"
    "dist c replicate\n"
    "dist s(rp)\n"
    "init a[0][x] = x\n"
    "init c[x] = x % 3\n"
    "output a[steps]\n"
    "\n"
    "for t = 1 .. steps seq, rp = 0 .. procs - 1 proc {\n"
    "  for x = rp * b .. rp * b + b - 1 {\n"
    "    let xr = x - rp * b + 1\n"
    "    S: a[t][xr] = a[t - 1][xr] + c[x]\n"
    "    send a[t][xr] to rp + 1 at t + 1 when xr == b && rp < procs - 1 as [t][0]\n"
    "  }\n"
    "}\n";

static void test_roundtrips(void)
{
    roundtrip("source", source_prog, 1);
    roundtrip("syn", syn_prog, 1);
    roundtrip("syncomm", syncomm_prog, 1);
    roundtrip("syndm", syndm_prog, 1);
    /* non-canonical input: spacing, redundant parentheses, semicolons, comments in odd places */
    roundtrip("messy",
              "  program   m   level source;param n=4,k=(2)\n"
              "array a[0..n] double array b[0..n]int\n"
              "for i=0..n{# after brace\n"
              "S:a[i]=((a[i]))+(1)*2;T:b[i]=i/2\n"
              "}else_x: a[0] = 1 # trailing\n"
              "# tail\n", 0);
    roundtrip("empty_body", "program p\nlevel source\nparam n = 1\n", 1);
    roundtrip("comments_only_tail", "program p\nlevel source\n# just this\n", 1);
    roundtrip("multiline_expr",
              "program p\nlevel source\narray a[0 .. 3] double\n"
              "S: a[0] = 1 + # mid comment\n   2\nT: a[1] = 2\n", 0);
    roundtrip("seq_explicit_and_default",
              "program p\nlevel source\nparam n = 3\narray a[0 .. n][0 .. n] double\n\n"
              "for i = 0 .. n seq {\n  for j = 0 .. n {\n    S: a[i][j] = i + j\n  }\n}\n", 1);
    roundtrip("unlabelled_assign",
              "program p\nlevel source\narray a[0 .. 1] double\n\na[0] = 1.0\n", 1);
    roundtrip("else_block_with_if_and_comment",
              "program p\nlevel source\narray a[0 .. 1] double\n\n"
              "if 1 == 1 {\n  A: a[0] = 1\n} else {\n  # note\n  if 2 > 1 {\n    B: a[1] = 2\n  }\n}\n", 1);
}

/* ---- expressions ---------------------------------------------------------------------------- */

static void test_precedence(void)
{
    expr_case("prec_mul_add", "1 + 2 * 3", "1 + 2 * 3");
    expr_case("prec_paren_add_mul", "(1 + 2) * 3", "(1 + 2) * 3");
    expr_case("prec_redundant", "((1) + (2 * 3))", "1 + 2 * 3");
    expr_case("prec_left_assoc_sub", "a - b - c", "a - b - c");
    expr_case("prec_right_sub_keeps", "a - (b - c)", "a - (b - c)");
    expr_case("prec_right_add_keeps", "a + (b + c)", "a + (b + c)");
    expr_case("prec_div_chain", "a / (b / c)", "a / (b / c)");
    expr_case("prec_div_mul", "(a / b) * c", "a / b * c");
    expr_case("prec_mod", "(x * 31 + y) % 13", "(x * 31 + y) % 13");
    expr_case("prec_unary_neg", "-(a + b)", "-(a + b)");
    expr_case("prec_unary_mul", "(-a) * b", "-a * b");
    expr_case("prec_neg_of_mul", "-(a * b)", "-(a * b)");
    expr_case("prec_double_neg", "-(-a)", "--a");
    expr_case("prec_not", "!(a < b)", "!(a < b)");
    expr_case("prec_and_or", "a || b && c", "a || b && c");
    expr_case("prec_or_in_and", "(a || b) && c", "(a || b) && c");
    expr_case("prec_cmp_nested", "(a < b) == (c < d)", "(a < b) == (c < d)");
    expr_case("prec_cmp_arith", "a + 1 < b * 2", "a + 1 < b * 2");
    expr_case("prec_cmp_in_arith", "(a < b) + 1", "(a < b) + 1");
    expr_case("prec_sub_neg_lit", "a - -1", "a - -1");
    expr_case("prec_access", "a [ i + 1 ] [ j ]", "a[i + 1][j]");
    expr_case("prec_calls", "min( a,b , c) + max(1,2)", "min(a, b, c) + max(1, 2)");
    expr_case("prec_reduce_body", "sum(k = 1 .. n) x[k] * y[k] + 1", "sum(k = 1 .. n) x[k] * y[k] + 1");
    expr_case("prec_reduce_body_paren", "sum(k = 1 .. n) (x[k] + 1)", "sum(k = 1 .. n) (x[k] + 1)");
    expr_case("prec_reduce_then_mul", "(sum(k = 1 .. n) x[k]) * 2", "(sum(k = 1 .. n) x[k]) * 2");
    expr_case("prec_mul_reduce", "2 * sum(k = 1 .. n) x[k] * 3", "2 * sum(k = 1 .. n) x[k] * 3");
    expr_case("prec_neg_reduce_mul", "(-sum(k = 1 .. n) x[k]) * 3", "-(sum(k = 1 .. n) x[k]) * 3");
    expr_case("prec_max_call_vs_reduce", "max(k, 2) + max(k = 0 .. 3) k", "max(k, 2) + max(k = 0 .. 3) k");
    expr_case("real_half", "0.5", "0.5");
    expr_case("real_int_valued", "2.", "2.0");
    expr_case("real_exp", "1e-3", "0.001");
    expr_case("real_small", "1e-7", "1e-07");
    expr_case("real_big", "1e20", "1e+20");
    expr_case("real_tenth", "0.1", "0.1");
    expr_case("real_third", "0.333333333333333314829616256247", "0.3333333333333333");
    expr_case("real_leading_dot", ".25", "0.25");
    expr_case("int_max", "9223372036854775807", "9223372036854775807");
}

/* ---- checker: levels and affinity ----------------------------------------------------------- */

#define HDR(level) "program p\nlevel " level "\nparam n = 8, procs = 2\narray a[0 .. n][0 .. n] double\n"

static void test_levels(void)
{
    accepts("source_ok", HDR("source") "for i = 0 .. n { S: a[i][0] = 1 }\n");
    rejects("source_par", HDR("source") "for i = 0 .. n par { S: a[i][0] = 1 }\n", 5, 5,
            "'par' is not available at level source");
    rejects("source_send", HDR("source") "for i = 0 .. n { send a[i][0] to 1 at 2 }\n", 5, 18,
            "'send' is not available at level source");
    rejects("source_dist", HDR("source") "dist a replicate\n", 5, 1,
            "'dist' is not available at level source");
    accepts("syn_ok_two_vars", HDR("syn") "for t = 1 .. n, p = 0 .. n par { S: a[t][p] = 1 }\n");
    accepts("syn_ok_nested", HDR("syn") "let c = 1\nfor t = 1 .. n seq { for p = 0 .. n proc { S: a[t][p] = c } }\n");
    rejects("syn_no_nest", HDR("syn") "for t = 1 .. n { S: a[t][0] = 1 }\n", 5, 1,
            "needs a par or proc loop");
    rejects("syn_second_par", HDR("syn") "for t = 1 .. n, p = 0 .. n par { for q = 0 .. 1 par { S: a[t][p] = q } }\n",
            5, 38, "only allowed as the processor loop");
    rejects("syn_after_nest", HDR("syn") "for t = 1 .. n, p = 0 .. n par { S: a[t][p] = 1 }\nT: a[0][0] = 1\n",
            6, 1, "nothing may follow the step nest");
    rejects("syn_stmt_before", HDR("syn") "T: a[0][0] = 1\nfor t = 1 .. n, p = 0 .. n par { S: a[t][p] = 1 }\n",
            5, 1, "expected the step nest");
    rejects("syn_time_par", HDR("syn") "for t = 1 .. n par, p = 0 .. n par { S: a[t][p] = 1 }\n", 5, 5,
            "must be seq");
    rejects("syn_send", HDR("syn") "for t = 1 .. n, p = 0 .. n par { send a[t][p] to 1 at t }\n", 5, 34,
            "'send' is not available at level syn (needs syncomm or syndm)");
    accepts("syncomm_send", HDR("syncomm") "for t = 1 .. n, p = 0 .. n par { send a[t][p] to 1 .. procs - 1 at t when p > 0 }\n");
    rejects("syncomm_dist", HDR("syncomm") "dist a replicate\nfor t = 1 .. n, p = 0 .. n par { S: a[t][p] = 1 }\n",
            5, 1, "'dist' is not available at level syncomm (needs syndm)");
    rejects("syndm_missing_dist", HDR("syndm") "for t = 1 .. n, p = 0 .. n par { S: a[t][p] = 1 }\n",
            4, 7, "has no dist declaration");
    accepts("syndm_dist", HDR("syndm") "dist a(rp) [0 .. n][rp * 4 .. rp * 4 + 3]\nfor t = 1 .. n, p = 0 .. n par { S: a[t][p] = 1 }\n");
    rejects("syndm_dist_dims", HDR("syndm") "dist a(rp) [0 .. n]\nfor t = 1 .. n, p = 0 .. n par { S: a[t][p] = 1 }\n",
            5, 1, "gives 1 bounds, the array has 2");
    rejects("syndm_dist_twice", HDR("syndm") "dist a replicate\ndist a replicate\nfor t = 1 .. n, p = 0 .. n par { S: a[t][p] = 1 }\n",
            6, 1, "already has a dist");
}

static void test_affinity(void)
{
    accepts("aff_shift", HDR("source") "for t = 1 .. n, x = 1 .. n - 1 { S: a[t][x] = a[t - 1][x + 1] }\n");
    accepts("aff_scaled", HDR("source") "for i = 0 .. 3 { S: a[2 * i + n / 4][0] = 1 }\n");
    accepts("aff_floor", HDR("source") "for i = 0 .. n { S: a[floor(i / 2)][i % 2] = 1 }\n");
    accepts("aff_let", HDR("source") "for i = 0 .. n - 1 { let j = i + 1\n S: a[j][n - j] = 1 }\n");
    accepts("aff_minmax_bound", HDR("source") "for i = 0 .. n, j = max(0, i - 1) .. min(n, i + 1) { S: a[i][j] = 1 }\n");
    accepts("aff_param_product", HDR("source") "for i = 0 .. 1 { S: a[i * (n / 4)][n * 0] = 1 }\n");
    accepts("aff_ceil_bound", HDR("source") "for i = 0 .. ceil(n / 3) { S: a[i][ceil(i / 2)] = 1 }\n");
    rejects("aff_product", HDR("source") "for i = 0 .. 2, j = 0 .. 2 { S: a[i * j][0] = 1 }\n", 5, 37,
            "non-affine subscript");
    rejects("aff_square_bound", HDR("source") "for i = 0 .. 2, j = 0 .. i * i { S: a[i][j] = 1 }\n", 5, 28,
            "non-affine loop bound");
    rejects("aff_indirect", HDR("source") "array b[0 .. n] int\nfor i = 0 .. n { S: a[b[i]][0] = 1 }\n", 6, 23,
            "non-affine subscript");
    rejects("aff_div_by_var", HDR("source") "for i = 1 .. n { S: a[n / i][0] = 1 }\n", 5, 25,
            "non-affine subscript");
    rejects("aff_let_nonaffine", HDR("source") "for i = 0 .. 2 { let j = i * i\n S: a[j][0] = 1 }\n", 6, 7,
            "non-affine subscript");
    rejects("aff_minmax_subscript", HDR("source") "for i = 0 .. n { S: a[min(i, 3)][0] = 1 }\n", 5, 23,
            "non-affine subscript");
    rejects("aff_double_subscript", HDR("source") "for i = 0 .. n { S: a[i / 2.0][0] = 1 }\n", 5, 25,
            "must be an integer");
}

static void test_names(void)
{
    rejects("name_unknown", HDR("source") "for i = 0 .. n { S: a[i][k] = 1 }\n", 5, 26, "unknown name 'k'");
    rejects("name_shadow", HDR("source") "for i = 0 .. n { for i = 0 .. 1 { S: a[i][0] = 1 } }\n", 5, 22,
            "'i' is already defined at 5:5");
    rejects("name_shadow_param", HDR("source") "for n = 0 .. 1 { S: a[n][0] = 1 }\n", 5, 5,
            "'n' is already defined at 3:7");
    rejects("name_let_after_use", HDR("source") "S: a[0][0] = v\nlet v = 1\n", 5, 14, "unknown name 'v'");
    rejects("name_label_dup", HDR("source") "S: a[0][0] = 1\nS: a[1][0] = 1\n", 6, 1, "label 'S' is already defined at 5:1");
    rejects("name_assign_param", HDR("source") "S: n = 1\n", 5, 4, "cannot assign to parameter 'n'");
    rejects("name_dims", HDR("source") "S: a[0] = 1\n", 5, 4, "has 2 dimensions, found 1 subscript");
    rejects("name_later_param", "program p\nlevel source\nparam a = b + 1, b = 2\n", 3, 11, "defined later");
    rejects("name_cost_loopvar", HDR("source") "for i = 0 .. n { S: a[i][0] = 1 cost i }\n", 5, 38,
            "must be a constant expression");
    rejects("name_int_array_double", "program p\nlevel source\narray b[0 .. 1] int\n\nS: b[0] = 0.5\n", 5, 11,
            "cannot assign a double value to int array 'b'");
    rejects("empty_text", "", 1, 1, "expected 'program', found end of file");
    accepts("scalar_array", "program p\nlevel source\narray s double\ninit s = 1\n\nS: s = s + 1\n");
    accepts("reduce_var_reuse", HDR("source") "S: a[0][0] = sum(k = 0 .. n) k + sum(k = 0 .. n) a[k][0]\n");
}

/* ---- slots and resolution ------------------------------------------------------------------- */

static void test_slots(void)
{
    diag_list d;
    ir_program *p = load(syn_prog, &d);
    T_CHECK("slots_load", p != NULL, "%s", d.n ? d.items[0].msg : "");
    diag_list_free(&d);
    if (!p) return;
    /* binders: init x, y; let nn; t, p; let x, y  => 7 distinct slots */
    T_EQ_INT("slots_count", p->nslots, 7);
    T_EQ_INT("slots_params", p->nparams, 2);
    T_EQ_INT("slots_arrays", p->narrays, 1);
    ir_stmt *f = p->body->stmts[1];
    T_EQ_INT("slots_t", f->u.for_.vars[0].slot, 3);
    T_EQ_INT("slots_p", f->u.for_.vars[1].slot, 4);
    ir_stmt *letx = f->u.for_.body->stmts[0];
    T_EQ_INT("slots_letx", letx->u.let.slot, 5);
    const ir_expr *v = letx->u.let.value;   /* p % n */
    T_EQ_INT("resolve_loopvar_kind", v->u.op.a->u.name.nk, IR_N_LOOPVAR);
    T_EQ_INT("resolve_loopvar_slot", v->u.op.a->u.name.index, 4);
    T_EQ_INT("resolve_param_kind", v->u.op.b->u.name.nk, IR_N_PARAM);
    T_EQ_INT("resolve_param_index", v->u.op.b->u.name.index, 0);
    T_EQ_INT("type_int", v->type, IR_INT);
    ir_stmt *ifs = f->u.for_.body->stmts[2];
    ir_stmt *S = ifs->u.if_.else_blk->stmts[0];
    T_EQ_INT("type_double", S->u.assign.rhs->type, IR_DOUBLE);
    T_EQ_INT("access_index", S->u.assign.lhs->u.access.array_index, 0);
    T_EQ_INT("resolve_let_kind", S->u.assign.lhs->u.access.idx[1]->u.name.nk, IR_N_LET);
    T_EQ_INT("resolve_let_slot", S->u.assign.lhs->u.access.idx[1]->u.name.index, 5);
    T_EQ_INT("init_binder_kind", p->decls[4]->u.init.idx[1]->u.name.nk, IR_N_INITVAR);
    T_EQ_INT("checked", p->checked, 1);
    ir_program *c = ir_program_clone(p);
    diag_list_init(&d);
    T_EQ_INT("clone_checks", ir_check(c, &d), 0);
    T_EQ_INT("clone_nslots", c->nslots, p->nslots);
    T_EQ_INT("recheck", ir_check(c, &d), 0);
    T_EQ_INT("recheck_nslots", c->nslots, 7);
    diag_list_free(&d);
    ir_program_free(c);
    ir_program_free(p);

    p = load(syndm_prog, &d);
    T_CHECK("slots_dm_load", p != NULL, "%s", d.n ? d.items[0].msg : "");
    diag_list_free(&d);
    if (!p) return;
    const ir_decl *dist = p->decls[7];
    T_CHECK("dist_slot", dist->kind == IR_D_DIST && dist->u.dist.slot >= 0, "slot %d", dist->u.dist.slot);
    T_EQ_INT("dist_offset_procvar", dist->u.dist.offset[1]->u.op.a->u.op.a->u.name.nk, IR_N_DISTVAR);
    T_EQ_INT("dist_array_index", dist->u.dist.array_index, 0);
    ir_program_free(p);
}

/* ---- evaluation ----------------------------------------------------------------------------- */

static void test_eval(void)
{
    const char *text = "program p\nlevel source\nparam n = 10, m = n * 2 + 1\n"
                       "param q = isqrt(m), d = -7 / 2, r = -7 % 2, c = ceil(7 / 2), f = floor(-7 / 2)\n"
                       "param big = 4611686018427387904\n";
    diag_list d;
    ir_program *p = load(text, &d);
    T_CHECK("eval_load", p != NULL, "%s", d.n ? d.items[0].msg : "");
    diag_list_free(&d);
    if (!p) return;
    int64_t v[16];
    diag_list_init(&d);
    T_EQ_INT("eval_ok", ir_params_eval(p, NULL, 0, 1, v, &d), 0);
    T_EQ_INT("eval_n", v[0], 10);
    T_EQ_INT("eval_m", v[1], 21);
    T_EQ_INT("eval_isqrt", v[2], 4);
    T_EQ_INT("eval_floordiv", v[3], -4);
    T_EQ_INT("eval_mod_nonneg", v[4], 1);
    T_EQ_INT("eval_ceil", v[5], 4);
    T_EQ_INT("eval_floor", v[6], -4);
    ir_binding ov[] = { { "n", 100 } };
    T_EQ_INT("eval_override_ok", ir_params_eval(p, ov, 1, 1, v, &d), 0);
    T_EQ_INT("eval_override_n", v[0], 100);
    T_EQ_INT("eval_override_later", v[1], 201);
    ir_binding bad[] = { { "nope", 1 } };
    T_EQ_INT("eval_unknown_lenient", ir_params_eval(p, bad, 1, 0, v, &d), 0);
    T_EQ_INT("eval_unknown_strict", ir_params_eval(p, bad, 1, 1, v, &d), 1);
    ir_binding zero[] = { { "n", 0 } };
    T_EQ_INT("eval_zero_ok", ir_params_eval(p, zero, 1, 1, v, &d), 0);
    int64_t iv = 0;
    double rv = 0;
    int isr = 0;
    /* constant expressions through ir_const_eval */
    ir_expr *e = ir_new_binary(p, IR_OP_MUL, ir_new_name(p, "big"), ir_new_int(p, 2));
    T_EQ_INT("eval_overflow", ir_const_eval(p, e, v, &iv, &rv, &isr, &d), 1);
    e = ir_new_binary(p, IR_OP_DIV, ir_new_name(p, "n"), ir_new_int(p, 0));
    T_EQ_INT("eval_div_zero", ir_const_eval(p, e, v, &iv, &rv, &isr, &d), 1);
    e = ir_new_binary(p, IR_OP_ADD, ir_new_name(p, "n"), ir_new_real(p, 0.5));
    T_EQ_INT("eval_real_ok", ir_const_eval(p, e, v, &iv, &rv, &isr, &d), 0);
    T_EQ_INT("eval_real_flag", isr, 1);
    T_NEAR("eval_real_value", rv, 0.5, 1e-12);
    ir_expr *args[] = { ir_new_int(p, 3), ir_new_name(p, "m"), ir_new_int(p, -2) };
    e = ir_new_call(p, IR_F_MAX, args, 3);
    T_EQ_INT("eval_max_ok", ir_const_eval(p, e, v, &iv, &rv, &isr, &d), 0);
    T_EQ_INT("eval_max", iv, 3);
    char *s = ir_print_expr(e);
    T_EQ_STR("print_built_expr", s, "max(3, m, -2)");
    free(s);
    diag_list_free(&d);
    ir_program_free(p);

    rejects("eval_huge_literal", "program p\nlevel source\nparam n = 99999999999999999999\n", 3, 11,
            "integer literal too large");
}

/* ---- recovery and limits -------------------------------------------------------------------- */

static void test_recovery(void)
{
    const char *text = "program p\nlevel source\nparam n = 4\narray a[0 .. n] double\n\n"
                       "S: a[0] = 1 + * 2\nT: a[1] = ]\nfor i = 0 .. n { U: a[i] = ( }\nV: a[2] = 2 2\n";
    diag_list d;
    diag_list_init(&d);
    ir_program *p = ir_parse("r.apm", text, strlen(text), &d);
    T_CHECK("recover_fails", p == NULL, "parsed");
    T_CHECK("recover_several", d.n >= 4, "only %d errors", d.n);
    if (d.n >= 4) {
        T_EQ_INT("recover_1_line", d.items[0].line, 6);
        T_EQ_INT("recover_2_line", d.items[1].line, 7);
        T_EQ_INT("recover_3_line", d.items[2].line, 8);
        T_EQ_INT("recover_4_line", d.items[3].line, 9);
    }
    diag_list_free(&d);
    ir_program_free(p);

    /* many errors: capped, no crash */
    char big[40000] = "program p\nlevel source\n\n";
    for (int i = 0; i < 400; i++) strcat(big, "S: = ]\n");
    diag_list_init(&d);
    p = ir_parse("m.apm", big, strlen(big), &d);
    T_CHECK("recover_capped", p == NULL && d.n <= 50 && d.n >= 10, "%d errors", d.n);
    diag_list_free(&d);

    /* several checker errors at once */
    const char *sem = "program p\nlevel source\narray a[0 .. 3] double\n\n"
                      "S: a[x] = 1\nT: b[0] = 2\nU: a[0][1] = y\n";
    diag_list_init(&d);
    p = ir_load_text("s.apm", sem, strlen(sem), &d);
    T_CHECK("check_several", p == NULL && d.n == 4, "%d errors", d.n);
    diag_list_free(&d);

    /* text with NUL bytes (only ir_load_file rejects files with NUL outright) */
    const char nul[] = "program p\nlevel source\0\n";
    diag_list_init(&d);
    p = ir_load_text("n.apm", nul, sizeof nul - 1, &d);
    T_CHECK("nul_in_text", p == NULL && d.n > 0 && strstr(d.items[0].msg, "\\x00"), "%s",
            d.n ? d.items[0].msg : "");
    diag_list_free(&d);
}

static void test_files(void)
{
    char path[] = "/tmp/polyapm_test_parse_XXXXXX";
    int fd = mkstemp(path);
    T_CHECK("file_tmp", fd >= 0, "mkstemp");
    if (fd < 0) return;
    FILE *f = fdopen(fd, "wb");
    static char chunk[1 << 16];
    memset(chunk, ' ', sizeof chunk);
    for (int i = 0; i < 17 * 16 + 1; i++) fwrite(chunk, 1, sizeof chunk, f);
    fclose(f);
    diag_list d;
    diag_list_init(&d);
    ir_program *p = ir_load_file(path, &d);
    T_CHECK("file_too_large", !p && d.n == 1 && strstr(d.items[0].msg, "larger than 16 MiB: not a program file"), "%s",
            d.n ? d.items[0].msg : "loaded");
    diag_list_free(&d);
    f = fopen(path, "wb");
    fputs(source_prog, f);
    fclose(f);
    diag_list_init(&d);
    p = ir_load_file(path, &d);
    T_CHECK("file_loads", p != NULL, "%s", d.n ? d.items[0].msg : "");
    ir_program_free(p);
    diag_list_free(&d);
    remove(path);
    diag_list_init(&d);
    p = ir_load_file("/nonexistent/x.apm", &d);
    T_CHECK("file_missing", !p && d.n == 1 && strstr(d.items[0].msg, "cannot open"), "%s",
            d.n ? d.items[0].msg : "loaded");
    diag_list_free(&d);
    diag_list_init(&d);
    p = ir_load_file("/tmp", &d);
    T_CHECK("file_directory", !p && d.n == 1, "%s", d.n ? d.items[0].msg : "loaded");
    diag_list_free(&d);
}

/* ---- random trees: the printer keeps every tree (built with the builders) intact ------------ */

static unsigned long rng_state = 12345;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ul + 1442695040888963407ul;
    return (unsigned)((rng_state >> 33) % n);
}

static ir_expr *rand_expr(ir_program *p, int depth)
{
    static const char *const names[] = { "a", "b", "n" };
    if (depth <= 0 || rnd(5) == 0) {
        switch (rnd(4)) {
        case 0: return ir_new_int(p, (int64_t)rnd(200) - 100);
        case 1: return ir_new_real(p, ((double)rnd(2000) - 1000) / 8.0);
        case 2: return ir_new_name(p, names[rnd(3)]);
        default: {
            ir_expr *ix[2] = { rand_expr(p, depth - 1), rand_expr(p, depth - 1) };
            return ir_new_access(p, "x", ix, 1 + (int)rnd(2));
        }
        }
    }
    switch (rnd(8)) {
    case 0: return ir_new_unary(p, rnd(2) ? IR_OP_NEG : IR_OP_NOT, rand_expr(p, depth - 1));
    case 1: {
        ir_expr *args[3] = { rand_expr(p, depth - 1), rand_expr(p, depth - 1), rand_expr(p, depth - 1) };
        ir_func f = (ir_func)rnd(7);
        int n = f == IR_F_MIN || f == IR_F_MAX ? 2 + (int)rnd(2) : 1;
        return ir_new_call(p, f, args, n);
    }
    case 2: {
        ir_expr *e = ir_alloc(p, sizeof *e);
        e->kind = IR_E_REDUCE;
        e->u.reduce.r = (ir_reduce_op)rnd(4);
        e->u.reduce.var = "k";
        e->u.reduce.lo = rand_expr(p, depth - 2);
        e->u.reduce.hi = rand_expr(p, depth - 2);
        e->u.reduce.body = rand_expr(p, depth - 1);
        return e;
    }
    default:
        return ir_new_binary(p, (ir_op)rnd(13), rand_expr(p, depth - 1), rand_expr(p, depth - 1));
    }
}

/* Structural equality; a negative literal equals the negation of its absolute value. */
static int same_expr(const ir_expr *x, const ir_expr *y)
{
    if (!x || !y) return x == y;
    if (x->kind == IR_E_INT && x->u.ival < 0 && y->kind == IR_E_UNARY && y->u.op.op == IR_OP_NEG)
        return y->u.op.a->kind == IR_E_INT && y->u.op.a->u.ival == -x->u.ival;
    if (x->kind == IR_E_REAL && signbit(x->u.rval) && y->kind == IR_E_UNARY && y->u.op.op == IR_OP_NEG)
        return y->u.op.a->kind == IR_E_REAL && y->u.op.a->u.rval == -x->u.rval;
    if (x->kind != y->kind) return 0;
    switch (x->kind) {
    case IR_E_INT: return x->u.ival == y->u.ival;
    case IR_E_REAL: return x->u.rval == y->u.rval;
    case IR_E_NAME: return strcmp(x->u.name.id, y->u.name.id) == 0;
    case IR_E_ACCESS:
        if (strcmp(x->u.access.array, y->u.access.array) || x->u.access.nidx != y->u.access.nidx) return 0;
        for (int i = 0; i < x->u.access.nidx; i++)
            if (!same_expr(x->u.access.idx[i], y->u.access.idx[i])) return 0;
        return 1;
    case IR_E_UNARY: case IR_E_BINARY:
        return x->u.op.op == y->u.op.op && same_expr(x->u.op.a, y->u.op.a) && same_expr(x->u.op.b, y->u.op.b);
    case IR_E_CALL:
        if (x->u.call.f != y->u.call.f || x->u.call.nargs != y->u.call.nargs) return 0;
        for (int i = 0; i < x->u.call.nargs; i++)
            if (!same_expr(x->u.call.args[i], y->u.call.args[i])) return 0;
        return 1;
    case IR_E_REDUCE:
        return x->u.reduce.r == y->u.reduce.r && same_expr(x->u.reduce.lo, y->u.reduce.lo) &&
               same_expr(x->u.reduce.hi, y->u.reduce.hi) && same_expr(x->u.reduce.body, y->u.reduce.body);
    case IR_E_REPEAT: return 0;   /* rand_expr makes none */
    }
    return 0;
}

static void test_random_trees(void)
{
    int bad = 0;
    char first[4096] = "";
    for (int iter = 0; iter < 3000; iter++) {
        ir_program *p = ir_program_new("r.apm");
        ir_expr *e = rand_expr(p, 2 + (int)rnd(5));
        char *s = ir_print_expr(e);
        size_t tl = strlen(s) + 64;
        char *text = malloc(tl);
        if (!text) abort();
        snprintf(text, tl, "program r\nlevel source\n\nS: y = %s\n", s);
        diag_list d;
        diag_list_init(&d);
        ir_program *q = ir_parse("r.apm", text, strlen(text), &d);
        int ok = q && q->body->n == 1 && same_expr(e, q->body->stmts[0]->u.assign.rhs);
        if (ok) {
            char *s2 = ir_print_expr(q->body->stmts[0]->u.assign.rhs);
            ok = strcmp(s, s2) == 0;
            free(s2);
        }
        if (!ok && !bad++) snprintf(first, sizeof first, "%s%s", s, d.n ? d.items[0].msg : "");
        diag_list_free(&d);
        ir_program_free(q);
        free(text);
        free(s);
        ir_program_free(p);
    }
    T_CHECK("random_trees_survive_printing", bad == 0, "%d of 3000 differ, first: %s", bad, first);
}

/* A program's size (ir_size.c): the degree of its work (loops and reductions with bounds that are
 * not literals, processor loops left out) and its arrays' elements at given values. */
static void test_size(void)
{
    ir_program *g = t_load("examples/polybench/gemm.apm"), *h = t_load("examples/polybench/heat-3d.apm"),
               *l = t_load("examples/lu.apm");
    if (g) {
        T_EQ_INT("size: gemm's work of degree 3", ir_work_degree(g), 3);
        T_NEAR("size: gemm's arrays at its own sizes (20 x 25 + 20 x 30 + 30 x 25)", ir_array_elems(g, NULL, 0),
               500 + 600 + 750, 0);
        ir_binding b[2] = { { "ni", 200 }, { "nk", 300 } };
        T_NEAR("size: and at ni=200, nk=300", ir_array_elems(g, b, 2), 200 * 25 + 200 * 300 + 300 * 25, 0);
    }
    if (h) T_EQ_INT("size: heat-3d's t, i, j, k: degree 4", ir_work_degree(h), 4);
    if (l) T_EQ_INT("size: the thesis's LU, a sum in a 2-deep nest: degree 3", ir_work_degree(l), 3);
    static const char *fixed = "program f\nlevel source\nparam n = 6\narray a[0 .. n - 1][0 .. 2] double\n"
                               "init a[i][j] = i\noutput a\nfor i = 0 .. n - 1, j = 0 .. 2 {\n  S: a[i][j] = a[i][j] + 1\n}\n";
    diag_list d;
    diag_list_init(&d);
    ir_program *f = ir_load_text("fixed.apm", fixed, strlen(fixed), &d);
    T_CHECK("size: a loop of literal bounds does not grow (degree 1)", f && ir_work_degree(f) == 1, "%d",
            f ? ir_work_degree(f) : -1);
    ir_program_free(f);
    diag_list_free(&d);
    ir_program_free(g);
    ir_program_free(h);
    ir_program_free(l);
}

int main(void)
{
    test_roundtrips();
    test_precedence();
    test_levels();
    test_affinity();
    test_names();
    test_slots();
    test_eval();
    test_recovery();
    test_files();
    test_random_trees();
    test_size();
    return t_done();
}
