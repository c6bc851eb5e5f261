/*
 * test_intsem.c — the one integer semantics (engine/intsem.h): every function on every pair of
 * edge values (0, ±1, ±2, ±3, ±7, around 2^31, 2^32 and sqrt(2^63), INT64_MIN, INT64_MAX and
 * their neighbours) against a reference computed in 128-bit arithmetic, where a result outside
 * 64 bits must be INTSEM_OVERFLOW and a zero divisor or a negative isqrt argument its own error.
 */
#include <stdint.h>
#include <stdio.h>

#include "intsem.h"
#include "t.h"

typedef __int128 i128;

static const int64_t edge[] = {
    0, 1, -1, 2, -2, 3, -3, 7, -7, 100, -100,
    2147483647LL, -2147483648LL, 2147483648LL, 4294967296LL, -4294967296LL,
    3037000499LL, 3037000500LL, 9223372030926249001LL, 9223372030926249000LL,
    INT64_MAX, INT64_MAX - 1, INT64_MIN, INT64_MIN + 1, INT64_MAX / 2, INT64_MIN / 2,
};
enum { NEDGE = sizeof edge / sizeof edge[0] };

static int fits(i128 v) { return v >= INT64_MIN && v <= INT64_MAX; }

static i128 ref_floordiv(i128 a, i128 b)
{
    i128 q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* Compares one result with the reference; counts mismatches, remembers the first. */
typedef struct { int bad; char first[200]; } tally;

static void expect(tally *t, const char *fn, int64_t a, int64_t b, int st, int64_t got, int want_st, i128 want)
{
    if (want_st == INTSEM_OK && !fits(want)) want_st = INTSEM_OVERFLOW;
    int ok = st == want_st && (st != INTSEM_OK || got == (int64_t)want);
    if (ok) return;
    if (!t->bad++)
        snprintf(t->first, sizeof t->first, "%s(%lld, %lld): status %d value %lld, want status %d value %lld",
                 fn, (long long)a, (long long)b, st, (long long)got, want_st, (long long)(int64_t)want);
}

static void check_binary(void)
{
    tally add = {0}, sub = {0}, mul = {0}, fdiv = {0}, cdiv = {0}, fmod_ = {0}, mm = {0};
    for (int i = 0; i < NEDGE; i++)
        for (int j = 0; j < NEDGE; j++) {
            int64_t a = edge[i], b = edge[j], r = 0;
            int st = intsem_add(a, b, &r);
            expect(&add, "add", a, b, st, r, INTSEM_OK, (i128)a + b);
            st = intsem_sub(a, b, &r);
            expect(&sub, "sub", a, b, st, r, INTSEM_OK, (i128)a - b);
            st = intsem_mul(a, b, &r);
            expect(&mul, "mul", a, b, st, r, INTSEM_OK, (i128)a * b);
            st = intsem_floordiv(a, b, &r);
            expect(&fdiv, "floordiv", a, b, st, r, b ? INTSEM_OK : INTSEM_DIV_ZERO, b ? ref_floordiv(a, b) : 0);
            st = intsem_ceildiv(a, b, &r);
            expect(&cdiv, "ceildiv", a, b, st, r, b ? INTSEM_OK : INTSEM_DIV_ZERO, b ? -ref_floordiv(-(i128)a, b) : 0);
            st = intsem_floormod(a, b, &r);
            expect(&fmod_, "floormod", a, b, st, r, b ? INTSEM_OK : INTSEM_MOD_ZERO,
                   b ? (i128)a - (i128)b * ref_floordiv(a, b) : 0);
            expect(&mm, "min", a, b, INTSEM_OK, intsem_min(a, b), INTSEM_OK, a < b ? a : b);
            expect(&mm, "max", a, b, INTSEM_OK, intsem_max(a, b), INTSEM_OK, a > b ? a : b);
        }
    const tally *all[] = { &add, &sub, &mul, &fdiv, &cdiv, &fmod_, &mm };
    const char *names[] = { "add", "sub", "mul", "floordiv", "ceildiv", "floormod", "min/max" };
    for (int k = 0; k < 7; k++) {
        char name[64];
        snprintf(name, sizeof name, "intsem %s on %d x %d edge pairs", names[k], NEDGE, NEDGE);
        T_CHECK(name, !all[k]->bad, "%d mismatches, first %s", all[k]->bad, all[k]->first);
    }
}

static void check_unary(void)
{
    tally neg = {0}, abs_ = {0}, sq = {0};
    for (int i = 0; i < NEDGE; i++) {
        int64_t a = edge[i], r = 0;
        int st = intsem_neg(a, &r);
        expect(&neg, "neg", a, 0, st, r, INTSEM_OK, -(i128)a);
        st = intsem_abs(a, &r);
        expect(&abs_, "abs", a, 0, st, r, INTSEM_OK, a < 0 ? -(i128)a : a);
        /* isqrt: the reference is the r with r*r <= a < (r+1)*(r+1), checked in 128 bits */
        st = intsem_isqrt(a, &r);
        int want = a < 0 ? INTSEM_ISQRT_NEG : INTSEM_OK;
        int okv = st != INTSEM_OK || ((i128)r * r <= a && (i128)(r + 1) * (r + 1) > a);
        if (st != want || !okv) expect(&sq, "isqrt", a, 0, st, r, want, -1);
    }
    T_CHECK("intsem neg on the edge values", !neg.bad, "%d mismatches, first %s", neg.bad, neg.first);
    T_CHECK("intsem abs on the edge values", !abs_.bad, "%d mismatches, first %s", abs_.bad, abs_.first);
    T_CHECK("intsem isqrt on the edge values", !sq.bad, "%d mismatches, first %s", sq.bad, sq.first);
}

/* The language's table of floor division and remainder with negative operands. */
static void check_table(void)
{
    static const struct { int64_t a, b, q, r, c; } row[] = {
        { 7, 2, 3, 1, 4 }, { -7, 2, -4, 1, -3 }, { 7, -2, -4, -1, -3 }, { -7, -2, 3, -1, 4 },
        { -1, 3, -1, 2, 0 }, { 6, -3, -2, 0, -2 }, { INT64_MIN, 2, INT64_MIN / 2, 0, INT64_MIN / 2 },
        { INT64_MIN, -1, 0, 0, 0 },
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof row / sizeof row[0]; i++) {
        int64_t q = 0, r = 0, c = 0;
        int sq = intsem_floordiv(row[i].a, row[i].b, &q), sr = intsem_floormod(row[i].a, row[i].b, &r);
        int sc = intsem_ceildiv(row[i].a, row[i].b, &c);
        if (row[i].a == INT64_MIN && row[i].b == -1)
            bad += sq != INTSEM_OVERFLOW || sc != INTSEM_OVERFLOW || sr != INTSEM_OK || r != 0;
        else
            bad += sq || sr || sc || q != row[i].q || r != row[i].r || c != row[i].c;
    }
    T_CHECK("intsem floor div/mod/ceil table of negative operands", !bad, "%d rows wrong", bad);
    T_EQ_STR("intsem message of overflow", intsem_message(INTSEM_OVERFLOW), "integer overflow");
    T_EQ_STR("intsem message of an unknown code", intsem_message(99), "integer error");
}

int main(void)
{
    check_binary();
    check_unary();
    check_table();
    return t_done();
}
