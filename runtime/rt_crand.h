/*
 * rt_crand.h — the C library's random numbers by call number for exported programs, on crand.h
 * (the same source as the simulator's): crand(seed, k) is the k-th value of rand() after
 * srand(seed), clrand48 and cdrand48 those of lrand48() and drand48() after srand48(seed) (or,
 * the _unseeded ones, without srand48).  The program's inits call them; rand's values come from
 * one cache per program, grown to the largest call number asked and freed by rt_crand_free at the
 * end.  A negative call number (or one past crand.h's bound) stops the program with a message.
 * Header only, included by exported programs that call them.
 */
#ifndef POLYAPM_RT_CRAND_H
#define POLYAPM_RT_CRAND_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "crand.h"

static crand_cache rt_crand_cache;

static inline void rt_crand_fail(int st)
{
    fprintf(stderr, "runtime error: %s (an init)\n", crand_message(st));
    exit(1);
}

static inline int64_t crand(int64_t seed, int64_t k)
{
    int64_t r;
    int st = crand_rand(&rt_crand_cache, seed, k, &r);
    if (st) rt_crand_fail(st);
    return r;
}

static inline int64_t clrand48(int64_t seed, int64_t k)
{
    int64_t r;
    int st = crand_lrand48(crand48_seed(seed), k, &r);
    if (st) rt_crand_fail(st);
    return r;
}

static inline double cdrand48(int64_t seed, int64_t k)
{
    double r;
    int st = crand_drand48(crand48_seed(seed), k, &r);
    if (st) rt_crand_fail(st);
    return r;
}

static inline int64_t clrand48_unseeded(int64_t k)
{
    int64_t r;
    int st = crand_lrand48(CRAND48_UNSEEDED, k, &r);
    if (st) rt_crand_fail(st);
    return r;
}

static inline double cdrand48_unseeded(int64_t k)
{
    double r;
    int st = crand_drand48(CRAND48_UNSEEDED, k, &r);
    if (st) rt_crand_fail(st);
    return r;
}

static inline void rt_crand_free(void) { crand_cache_free(&rt_crand_cache); }

#endif
