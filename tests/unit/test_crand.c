/*
 * test_crand.c — the C library's random numbers by call number (engine/crand.h) against this
 * machine's C library itself: rand() and random() after srand/srandom for seeds around the
 * edges (0, 1, 2^31 - 1, 2^31, 2^32 - 1, negative ints), many calls, asked in and out of order
 * and for several seeds through one cache; drand48() and lrand48() (one shared state) after
 * srand48 and before any srand48, by jumping ahead.  Then the language's crand, clrand48 and
 * cdrand48: parsed and printed in canonical form, refused outside an init's value or with wrong
 * arguments, and simulated to the C library's values (a negative call number a runtime error).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "crand.h"
#include "ir.h"
#include "sim.h"
#include "t.h"

enum { CALLS = 200000 };

static const int64_t seeds[] = { 0, 1, 2, 42, 12345, 2147483647, 2147483648LL, 3000000000LL, 4294967295LL, -1, -7,
                                 4294967296LL + 5 };
enum { NSEEDS = sizeof seeds / sizeof seeds[0] };

/* drand48 and lrand48 before any srand48: first in the process, so that the library's state is
 * its initial one. */
static void check_unseeded48(void)
{
    int bad = 0;
    char first[160] = "";
    for (int64_t k = 0; k < 1000; k++) {
        double d = 0;
        int64_t l = 0;
        int st = k % 3 == 1 ? crand_lrand48(CRAND48_UNSEEDED, k, &l) : crand_drand48(CRAND48_UNSEEDED, k, &d);
        int ok = st == CRAND_OK && (k % 3 == 1 ? l == lrand48() : d == drand48());
        if (!ok && !bad++) snprintf(first, sizeof first, "call %lld", (long long)k);
    }
    T_CHECK("drand48 and lrand48 without srand48: 1000 calls as the C library's", !bad, "%d differ, first %s", bad, first);
}

static void check_rand(void)
{
    crand_cache cache = {0};
    int32_t *want = malloc((size_t)CALLS * sizeof *want);
    for (int s = 0; s < NSEEDS; s++) {
        srand((unsigned)seeds[s]);
        for (int k = 0; k < CALLS; k++) want[k] = s % 2 ? (int32_t)random() : rand();
        int bad = 0;
        char first[160] = "";
        /* out of order: a stride through the range first, then every call from the last down */
        for (int64_t k = 7; k < CALLS; k += 9973) {
            int64_t v = -1;
            if (crand_rand(&cache, seeds[s], k, &v) != CRAND_OK || v != want[k])
                if (!bad++) snprintf(first, sizeof first, "call %lld: %lld, want %d", (long long)k, (long long)v, want[k]);
        }
        for (int64_t k = CALLS - 1; k >= 0; k--) {
            int64_t v = -1;
            if (crand_rand(&cache, seeds[s], k, &v) != CRAND_OK || v != want[k])
                if (!bad++) snprintf(first, sizeof first, "call %lld: %lld, want %d", (long long)k, (long long)v, want[k]);
        }
        char name[160];
        snprintf(name, sizeof name, "%s after %s(%lld): %d calls as the C library's", s % 2 ? "random" : "rand",
                 s % 2 ? "srandom" : "srand", (long long)seeds[s], CALLS);
        T_CHECK(name, !bad, "%d differ, first %s", bad, first);
    }
    T_EQ_INT("one cache holds a sequence per seed (-1 and 2^32 - 1 are one seed)", cache.nseq, NSEEDS - 1);
    /* seeds asked again after the others: the cache still answers each */
    srand(42);
    int bad = 0;
    for (int k = 0; k < 1000; k++) {
        int64_t v = -1;
        if (crand_rand(&cache, 42, k, &v) != CRAND_OK || v != rand()) bad++;
    }
    T_CHECK("srand(42)'s sequence again after eleven other seeds", !bad, "%d differ", bad);
    int64_t v = 0;
    T_EQ_INT("a negative call number is an error", crand_rand(&cache, 1, -1, &v), CRAND_NEGATIVE);
    T_EQ_INT("a call number of 2^31 is an error, not 8 GiB", crand_rand(&cache, 1, CRAND_MAX_CALLS, &v), CRAND_TOO_FAR);
    T_CHECK("crand_message names each error", crand_message(CRAND_NEGATIVE)[0] && crand_message(CRAND_TOO_FAR)[0] &&
            crand_message(CRAND_NOMEM)[0] && !crand_message(CRAND_OK)[0], "empty message");
    crand_cache_free(&cache);
    T_CHECK("a freed cache is empty", cache.seq == NULL && cache.nseq == 0, "not reset");
    free(want);
}

static void check_drand48(void)
{
    for (int s = 0; s < NSEEDS; s++) {
        srand48((long)seeds[s]);
        int bad = 0;
        char first[160] = "";
        uint64_t x0 = crand48_seed(seeds[s]);
        for (int64_t k = 0; k < CALLS; k++) {
            double d = -1;
            int64_t l = -1;
            int lr = k % 5 == 3;   /* lrand48 now and then: one state for both */
            int st = lr ? crand_lrand48(x0, k, &l) : crand_drand48(x0, k, &d);
            int ok = st == CRAND_OK && (lr ? l == lrand48() : d == drand48());
            if (!ok && !bad++) snprintf(first, sizeof first, "call %lld", (long long)k);
        }
        char name[160];
        snprintf(name, sizeof name, "drand48 and lrand48 after srand48(%lld): %d calls as the C library's",
                 (long long)seeds[s], CALLS);
        T_CHECK(name, !bad, "%d differ, first %s", bad, first);
    }
    /* far ahead: the jump against stepping one by one */
    uint64_t x = crand48_seed(7);
    for (int64_t k = 0; k < 3000000; k++) x = (UINT64_C(0x5DEECE66D) * x + 0xB) & CRAND48_MASK;
    double d = 0;
    crand_drand48(crand48_seed(7), 3000000 - 1, &d);
    T_CHECK("drand48's 3,000,000th value by jumping = by stepping", d == (double)x * 0x1p-48, "%a vs %a", d,
            (double)x * 0x1p-48);
    T_EQ_INT("drand48: a negative call number is an error", crand_drand48(x, -1, &d), CRAND_NEGATIVE);
}

/* ---- the language ---- */

static ir_program *load(const char *text, diag_list *d)
{
    diag_list_init(d);
    return ir_load_text("t.apm", text, strlen(text), d);
}

/* Whether loading `text` fails with a message containing `want`. */
static void expect_refused(const char *name, const char *text, const char *want)
{
    diag_list d;
    ir_program *p = load(text, &d);
    int hit = 0;
    for (int i = 0; i < d.n; i++) hit |= strstr(d.items[i].msg, want) != NULL;
    T_CHECK(name, !p && hit, "%s; first message: %s", p ? "loaded" : "refused otherwise", d.n ? d.items[0].msg : "none");
    if (p) ir_program_free(p);
    diag_list_free(&d);
}

static void check_language(void)
{
    static const char text[] =
        "program r\nlevel source\nparam n = 30, s = 42\narray a[0 .. n - 1][0 .. n - 1] int\n"
        "array x[0 .. n - 1] double\narray l[0 .. n - 1] int\narray u[0 .. n - 1] double\n"
        "init a[i][j] = crand(s, i * n + j)\ninit x[i] = cdrand48(7, 2 * i)\ninit l[i] = clrand48(7, 2 * i + 1)\n"
        "init u[i] = cdrand48(i)\noutput a\noutput x\noutput l\noutput u\n";
    diag_list d;
    ir_program *p = load(text, &d);
    T_CHECK("a program whose inits call crand, cdrand48, clrand48 loads", p != NULL, "%s", d.n ? d.items[0].msg : "?");
    diag_list_free(&d);
    if (!p) return;
    char *canon = ir_print(p);
    T_CHECK("its canonical text keeps the calls", strstr(canon, "init a[i][j] = crand(s, i * n + j)") &&
            strstr(canon, "init u[i] = cdrand48(i)"), "%s", canon);
    free(canon);
    sim_result *r = sim_run(p, NULL);
    T_CHECK("it simulates", r && r->ok && r->noutputs == 4, "no result");
    if (r && r->ok && r->noutputs == 4) {
        int bad = 0;
        srand(42);
        for (int k = 0; k < 900; k++) bad += r->outputs[0].values[k] != (double)rand();
        srand48(7);
        for (int i = 0; i < 30; i++) {
            bad += r->outputs[1].values[i] != drand48();
            bad += r->outputs[2].values[i] != (double)lrand48();
        }
        T_CHECK("the simulated values are the C library's (srand(42): 900 calls; srand48(7): 60 calls)", !bad,
                "%d differ", bad);
    }
    sim_result_free(r);
    ir_program_free(p);
    static const char negative[] = "program r\nlevel source\narray a[0 .. 3] int\ninit a[i] = crand(1, i - 2)\n"
                                   "output a\n";
    p = load(negative, &d);
    diag_list_free(&d);
    r = p ? sim_run(p, NULL) : NULL;
    int hit = 0;
    for (int i = 0; r && i < r->nviolations; i++) hit |= strstr(r->violations[i].text, "call number is negative") != NULL;
    T_CHECK("a negative call number is a runtime error of the simulation", hit, "no such violation");
    sim_result_free(r);
    if (p) ir_program_free(p);
    expect_refused("crand in a statement is refused", "program r\nlevel source\narray a[0 .. 3] int\noutput a\n"
                   "for i = 0 .. 3 {\n  S: a[i] = crand(1, i)\n}\n", "allowed only in an init's value");
    expect_refused("crand's arguments are integers", "program r\nlevel source\narray a[0 .. 3] int\n"
                   "init a[i] = crand(1, i / 2.0)\noutput a\n", "needs integer arguments");
    expect_refused("crand takes a seed and a call number", "program r\nlevel source\narray a[0 .. 3] int\n"
                   "init a[i] = crand(i)\noutput a\n", "crand takes 2 arguments");
    expect_refused("cdrand48 takes one or two arguments", "program r\nlevel source\narray a[0 .. 3] double\n"
                   "init a[i] = cdrand48(1, 2, i)\noutput a\n", "cdrand48 takes 1 or 2 arguments");
}

int main(void)
{
    check_unseeded48();
    check_rand();
    check_drand48();
    check_language();
    return t_done();
}
