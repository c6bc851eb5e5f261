/*
 * test_fuse.c — the collective-fusion transforms through the registry (transforms/fuse/,
 * distlaw.c): every rule is registered for syncomm/syndm with a prediction; the prediction is
 * Table 1 of Gorlatch et al. under the profile's t_s and t_w (checked against the formulas for
 * every rule, on the small programs of tests/xf/fuse/ with m = 3, p = 4); the fused program has
 * one new operator and the chain replaced; refusals carry the reason.
 */
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "t_load.h"
#include "xf.h"

/* Table 1's (a, b, c) of log p (a t_s + m (b t_w + c)), before and after. */
static const struct { const char *rule, *file; double before[3], after[3]; } table1[] = {
    {"sr2-reduction", "sr2", {2, 2, 3}, {1, 2, 3}},   {"sr-reduction", "sr", {2, 2, 3}, {1, 2, 4}},
    {"ss2-scan", "ss2", {2, 2, 4}, {1, 2, 6}},        {"ss-scan", "ss", {2, 2, 4}, {1, 3, 8}},
    {"bs-comcast", "bs", {2, 2, 2}, {1, 1, 2}},       {"bss2-comcast", "bss2", {3, 3, 4}, {1, 1, 5}},
    {"bss-comcast", "bss", {3, 3, 4}, {1, 1, 8}},     {"br-local", "br", {2, 2, 1}, {0, 0, 1}},
    {"br-alllocal", "brall", {2, 2, 1}, {1, 1, 1}},   {"bsr2-local", "bsr2", {3, 3, 3}, {0, 0, 3}},
    {"bsr-local", "bsr", {3, 3, 3}, {0, 0, 4}},
};

static double formula(const double c[3], double ts, double tw, double m, double L)
{
    return L * (c[0] * ts + m * (c[1] * tw + c[2]));
}

static void test_predictions(void)
{
    cost_profile prof = *cost_profile_builtin("scali2004");
    prof.ts = 37;
    prof.tw = 3;
    for (unsigned i = 0; i < sizeof table1 / sizeof table1[0]; i++) {
        char path[256], name[256];
        snprintf(path, sizeof path, "tests/xf/fuse/%s.apm", table1[i].file);
        ir_program *p = t_load(path);
        const xf_transform *t = xf_find(table1[i].rule);
        snprintf(name, sizeof name, "%s: registered for syncomm and syndm only, with a prediction", table1[i].rule);
        T_CHECK(name, t && t->predict && t->levels == ((1u << IR_SYNCOMM) | (1u << IR_SYNDM)), "row");
        if (!p || !t || !t->predict) { ir_program_free(p); continue; }
        char *why = NULL;
        snprintf(name, sizeof name, "%s: applicable to %s", table1[i].rule, table1[i].file);
        T_CHECK(name, t->applicable(p, &why), "%s", why ? why : "");
        free(why);
        char *txt = t->predict(p, &prof);
        double b = -1, a = -1;
        const char *at = txt ? strstr(txt, "before ") : NULL;
        if (at) sscanf(at, "before %lf, after %lf", &b, &a);
        snprintf(name, sizeof name, "%s: predicted before = Table 1 (m = 3, p = 4)", table1[i].rule);
        T_NEAR(name, b, formula(table1[i].before, 37, 3, 3, 2), 1e-9);
        snprintf(name, sizeof name, "%s: predicted after = Table 1", table1[i].rule);
        T_NEAR(name, a, formula(table1[i].after, 37, 3, 3, 2), 1e-9);
        free(txt);
        ir_program_free(p);
    }
}

static void test_apply(void)
{
    ir_program *p = t_load("tests/xf/fuse/sr2.apm");
    if (!p) return;
    diag_list d;
    diag_list_init(&d);
    int st = -1;
    ir_program *q = xf_apply(p, "sr2-reduction", 0, NULL, &d, &st);
    T_CHECK("sr2-reduction: applies", q && st == XF_OK, "status %d", st);
    if (q) {
        T_EQ_INT("sr2-reduction: one new operator", q->nops, p->nops + 1);
        char *txt = ir_print(q);
        const char *shown = txt ? txt : "";
        T_CHECK("sr2-reduction: the scan is gone", txt && !strstr(txt, "= scan("), "%s", shown);
        T_CHECK("sr2-reduction: one reduce over pairs", txt && strstr(txt, "= reduce(fuse_sr2) (x[rp], x[rp]) to 0"),
                "%s", shown);
        free(txt);
        /* applying again: no chain left */
        char *why = NULL;
        T_CHECK("sr2-reduction: not applicable to its own result", !xf_find("sr2-reduction")->applicable(q, &why),
                "applicable");
        T_CHECK("  ... with the reason", why && strstr(why, "no sr2-reduction chain"), "%s", why ? why : "");
        free(why);
    }
    ir_program_free(q);
    diag_list_free(&d);
    diag_list_init(&d);
    char *bad[] = {"nope=1"};
    q = xf_apply(p, "sr2-reduction", 1, bad, &d, &st);
    T_CHECK("unknown parameter: usage", !q && st == XF_EUSAGE, "status %d", st);
    diag_list_free(&d);
    ir_program_free(p);

    p = t_load("tests/xf/fuse/sr-rproj.apm");
    if (!p) return;
    diag_list_init(&d);
    q = xf_apply(p, "sr-reduction", 0, NULL, &d, &st);
    T_CHECK("sr-reduction with rproj: refused", !q && st == XF_EREFUSED, "status %d", st);
    int named = 0;
    for (int i = 0; i < d.n; i++) named |= strstr(d.items[i].msg, "'rproj' is not commutative") != NULL;
    T_CHECK("  ... because rproj is not commutative", named, "no reason");
    diag_list_free(&d);
    ir_program_free(p);

    p = t_load("examples/jacobi1d.apm");
    if (!p) return;
    char *why = NULL;
    T_CHECK("a source program: no fusion", !xf_find("fuse-reductions")->applicable(p, &why) ||
            !(xf_find("fuse-reductions")->levels & (1u << p->level)), "applicable");
    free(why);
    ir_program_free(p);
}

int main(void)
{
    test_predictions();
    test_apply();
    return t_done();
}
