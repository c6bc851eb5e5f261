/*
 * rt_int.h — the integer semantics of the APM language for exported programs, on intsem.h (the
 * same source as the simulator's): / and % are floor division and its remainder, ceil(a / b) is
 * exact, and an assigned value's overflow, a division by zero or isqrt of a negative number stops
 * the program with a message naming the statement (the program sets int_where before such a
 * statement).  Header only, included once by the exported program (sequential or MPI): every
 * function is static inline, so a program pays for what it calls.
 */
#ifndef POLYAPM_RT_INT_H
#define POLYAPM_RT_INT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "intsem.h"

/* The statement being computed, named in the message of a failing check. */
static const char *int_where = "an index computation";

static inline void int_fail(int st)
{
    fprintf(stderr, "runtime error: %s (%s)\n", intsem_message(st), int_where);
    exit(1);
}

#define RT_INT_CHECKED2(name, fn)                                                                  \
    static inline int64_t name(int64_t a, int64_t b)                                              \
    {                                                                                              \
        int64_t r;                                                                                 \
        int st = fn(a, b, &r);                                                                     \
        if (INTSEM_UNLIKELY(st)) int_fail(st);                                                     \
        return r;                                                                                  \
    }
#define RT_INT_CHECKED1(name, fn)                                                                  \
    static inline int64_t name(int64_t a)                                                          \
    {                                                                                              \
        int64_t r;                                                                                 \
        int st = fn(a, &r);                                                                        \
        if (INTSEM_UNLIKELY(st)) int_fail(st);                                                     \
        return r;                                                                                  \
    }
RT_INT_CHECKED2(iadd, intsem_add)
RT_INT_CHECKED2(isub, intsem_sub)
RT_INT_CHECKED2(imul, intsem_mul)
RT_INT_CHECKED2(ifloordiv, intsem_floordiv)
RT_INT_CHECKED2(iceildiv, intsem_ceildiv)
RT_INT_CHECKED2(imod, intsem_floormod)
RT_INT_CHECKED1(ineg, intsem_neg)
RT_INT_CHECKED1(iabs, intsem_abs)
RT_INT_CHECKED1(isqrt_, intsem_isqrt)

static inline int64_t imin(int64_t a, int64_t b) { return intsem_min(a, b); }
static inline int64_t imax(int64_t a, int64_t b) { return intsem_max(a, b); }
/* double min and max keep the first of equal values (-0.0 and 0.0 too), as the simulator */
static inline double dmin(double a, double b) { return b < a ? b : a; }
static inline double dmax(double a, double b) { return b > a ? b : a; }

/* The least of at[0 .. n-1] at or above from, INT64_MAX when none: the next value of a loop whose
 * body runs only at a few points. */
static inline int64_t rt_point_from(const int64_t *at, int n, int64_t from)
{
    int64_t r = INT64_MAX;
    for (int k = 0; k < n; k++)
        if (at[k] >= from && at[k] < r) r = at[k];
    return r;
}

#endif
