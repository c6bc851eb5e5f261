/*
 * intsem.h — the one integer semantics of the APM language (polyapm-lang(5), EXPRESSIONS),
 * written once and used by the checker's constant folding, operator checks (op.c), the
 * simulator, the transforms' evaluator and — copied verbatim next to every exported program —
 * the exported C.
 *
 * Integers are 64-bit two's complement.  / is floor division, % the matching remainder
 * a - b*(a/b) (it has the divisor's sign: non-negative for a positive divisor), floor(a/b) and
 * ceil(a/b) are exact.  The overflow policy: a result that does not fit 64 bits (+ - * unary -,
 * abs, INT64_MIN / -1), a division or remainder by zero and isqrt of a negative number are
 * errors; nothing wraps.  Each function returns INTSEM_OK with its result in *out, or an error
 * code (intsem_message names it; *out is then meaningless), so each caller reports the error in
 * its own way (the checker with file:line:col, the simulator as a runtime error naming the
 * statement, an exported program on stderr before exiting non-zero).
 *
 * Self-contained C11 (GCC/Clang builtins) with no dependency on the rest of polyapm: exported
 * programs include it as "intsem.h".
 */
#ifndef POLYAPM_INTSEM_H
#define POLYAPM_INTSEM_H

#include <math.h>
#include <stdint.h>

enum {
    INTSEM_OK = 0,
    INTSEM_OVERFLOW,     /* the result does not fit 64 bits */
    INTSEM_DIV_ZERO,     /* a / 0, floor(a/0), ceil(a/0) */
    INTSEM_MOD_ZERO,     /* a % 0 */
    INTSEM_ISQRT_NEG,    /* isqrt(a) with a < 0 */
    INTSEM_NSTATUS
};

#if defined(__GNUC__)
#define INTSEM_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define INTSEM_UNLIKELY(x) (x)
#endif

/* What went wrong, for a message ("integer overflow"); "" for INTSEM_OK. */
static inline const char *intsem_message(int status)
{
    static const char *const msg[INTSEM_NSTATUS] = {
        [INTSEM_OK] = "",
        [INTSEM_OVERFLOW] = "integer overflow",
        [INTSEM_DIV_ZERO] = "integer division by zero",
        [INTSEM_MOD_ZERO] = "integer remainder by zero",
        [INTSEM_ISQRT_NEG] = "isqrt of a negative number",
    };
    return status >= 0 && status < INTSEM_NSTATUS ? msg[status] : "integer error";
}

static inline int intsem_add(int64_t a, int64_t b, int64_t *out)
{
    return __builtin_add_overflow(a, b, out) ? INTSEM_OVERFLOW : INTSEM_OK;
}

static inline int intsem_sub(int64_t a, int64_t b, int64_t *out)
{
    return __builtin_sub_overflow(a, b, out) ? INTSEM_OVERFLOW : INTSEM_OK;
}

static inline int intsem_mul(int64_t a, int64_t b, int64_t *out)
{
    return __builtin_mul_overflow(a, b, out) ? INTSEM_OVERFLOW : INTSEM_OK;
}

static inline int intsem_neg(int64_t a, int64_t *out)
{
    if (INTSEM_UNLIKELY(a == INT64_MIN)) return INTSEM_OVERFLOW;
    *out = -a;
    return INTSEM_OK;
}

static inline int intsem_abs(int64_t a, int64_t *out)
{
    if (INTSEM_UNLIKELY(a == INT64_MIN)) return INTSEM_OVERFLOW;
    *out = a < 0 ? -a : a;
    return INTSEM_OK;
}

/* floor(a / b) */
static inline int intsem_floordiv(int64_t a, int64_t b, int64_t *out)
{
    if (INTSEM_UNLIKELY(b == 0)) return INTSEM_DIV_ZERO;
    if (INTSEM_UNLIKELY(b == -1)) return intsem_neg(a, out);
    int64_t q = a / b;
    *out = (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
    return INTSEM_OK;
}

/* ceil(a / b) */
static inline int intsem_ceildiv(int64_t a, int64_t b, int64_t *out)
{
    if (INTSEM_UNLIKELY(b == 0)) return INTSEM_DIV_ZERO;
    if (INTSEM_UNLIKELY(b == -1)) return intsem_neg(a, out);
    int64_t q = a / b;
    *out = (a % b != 0 && (a < 0) == (b < 0)) ? q + 1 : q;
    return INTSEM_OK;
}

/* a % b = a - b * floor(a / b): 0 <= r < b for b > 0, b < r <= 0 for b < 0; never overflows. */
static inline int intsem_floormod(int64_t a, int64_t b, int64_t *out)
{
    if (INTSEM_UNLIKELY(b == 0)) return INTSEM_MOD_ZERO;
    if (INTSEM_UNLIKELY(b == -1)) { *out = 0; return INTSEM_OK; }
    int64_t r = a % b;
    *out = (r != 0 && (r < 0) != (b < 0)) ? r + b : r;
    return INTSEM_OK;
}

/* The largest r with r*r <= a. */
static inline int intsem_isqrt(int64_t a, int64_t *out)
{
    if (INTSEM_UNLIKELY(a < 0)) return INTSEM_ISQRT_NEG;
    int64_t r = (int64_t)sqrt((double)a);
    while (r > 0 && (r > 3037000499LL || r * r > a)) r--;
    while (r < 3037000499LL && (r + 1) * (r + 1) <= a) r++;
    *out = r;
    return INTSEM_OK;
}

static inline int64_t intsem_min(int64_t a, int64_t b) { return b < a ? b : a; }
static inline int64_t intsem_max(int64_t a, int64_t b) { return b > a ? b : a; }

#endif
