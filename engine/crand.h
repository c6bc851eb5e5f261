/*
 * crand.h — the C library's random numbers as the GNU C library computes them, by call number:
 * the language's crand, clrand48 and cdrand48 (polyapm-lang(5), EXPRESSIONS), written once and
 * used by the simulator and — copied next to every exported program that calls them — the
 * exported C, so that initial values a C program draws from rand() or drand48() are the ones it
 * draws, bit for bit.
 *
 *   crand(seed, k)     the k-th value (0-based) rand() or random() returns after srand(seed) or
 *                      srandom(seed) (glibc's TYPE_3 additive feedback generator; rand and random
 *                      are one sequence; the seed is taken modulo 2^32, as C converts it to
 *                      unsigned int; 0 is 1, as glibc makes it).  A program that never calls srand
 *                      draws crand(1, k).  The sequence: r[0] = seed, r[i] = 16807 r[i-1] mod
 *                      (2^31 - 1) for i < 31 (computed as glibc does, on the seed as a signed 32-bit
 *                      word), r[i] = r[i-31] for i = 31 .. 33, then r[i] = r[i-31] + r[i-3] mod 2^32;
 *                      the k-th value is r[k + 344] >> 1.
 *   cdrand48(x0, k)    the k-th value drand48() returns from the 48-bit state x0: x' = 0x5DEECE66D x
 *                      + 0xB mod 2^48 (k + 1 times), the value x' 2^-48 (exactly glibc's double);
 *   clrand48(x0, k)    lrand48()'s: x' >> 17.  drand48 and lrand48 share one state: the k-th call
 *                      of either.  x0 is crand48_seed(s) after srand48(s), CRAND48_UNSEEDED (glibc's
 *                      state before any srand48: 0) without one.
 *
 * drand48 jumps ahead in O(log k).  rand's recurrence does not jump cheaply, so its values come
 * from a cache (crand_cache): per seed, the sequence computed so far, grown on demand to the
 * largest call number asked (4 bytes a call; at most CRAND_MAX_CALLS calls).  The caller owns the
 * cache (zero-initialised: empty) and frees it with crand_cache_free.
 *
 * Each function returns CRAND_OK with its result in *out, or an error code (crand_message names
 * it), so each caller reports it in its own way.  Self-contained C11 with no dependency on the
 * rest of polyapm: exported programs include it as "crand.h".
 */
#ifndef POLYAPM_CRAND_H
#define POLYAPM_CRAND_H

#include <stdint.h>
#include <stdlib.h>

enum {
    CRAND_OK = 0,
    CRAND_NEGATIVE,      /* a negative call number */
    CRAND_TOO_FAR,       /* a call number of CRAND_MAX_CALLS or more (crand: the cache's bound) */
    CRAND_NOMEM,         /* the cache could not grow */
    CRAND_NSTATUS
};

#define CRAND_MAX_CALLS (INT64_C(1) << 31)
#define CRAND48_UNSEEDED UINT64_C(0)
#define CRAND48_MASK ((UINT64_C(1) << 48) - 1)

/* What went wrong, for a message; "" for CRAND_OK. */
static inline const char *crand_message(int status)
{
    static const char *const msg[CRAND_NSTATUS] = {
        [CRAND_OK] = "",
        [CRAND_NEGATIVE] = "a random number's call number is negative",
        [CRAND_TOO_FAR] = "a random number's call number is 2^31 or more (crand keeps every value up to it)",
        [CRAND_NOMEM] = "out of memory for crand's values",
    };
    return status >= 0 && status < CRAND_NSTATUS ? msg[status] : "random number error";
}

/* ---- rand() and random(): the sequence per seed ---------------------------------------------- */

typedef struct crand_seq {
    uint32_t seed;       /* as srand received it (0 stands for itself: glibc seeds 1 then) */
    uint32_t *r;         /* r[0 .. n-1] of the recurrence (owned) */
    int64_t n, cap;
} crand_seq;

typedef struct crand_cache {
    crand_seq *seq;      /* one per seed asked (owned) */
    int nseq, capseq;
} crand_cache;

/* srandom's first 34 words: glibc's __srandom_r for TYPE_3 (degree 31, separation 3). */
static inline void crand_start(uint32_t seed, uint32_t *r)
{
    if (seed == 0) seed = 1;
    r[0] = seed;
    int32_t word = (int32_t)seed;   /* glibc's int32_t word: a seed of 2^31 or more is negative */
    for (int i = 1; i < 31; i++) {
        int64_t hi = word / 127773, lo = word % 127773;
        word = (int32_t)(16807 * lo - 2836 * hi);
        if (word < 0) word += 2147483647;
        r[i] = (uint32_t)word;
    }
    for (int i = 31; i < 34; i++) r[i] = r[i - 31];
}

/* Grows s to hold r[need - 1]; CRAND_OK or CRAND_NOMEM. */
static inline int crand_grow(crand_seq *s, int64_t need)
{
    if (need > s->cap) {
        int64_t cap = s->cap ? s->cap : 1024;
        while (cap < need) cap *= 2;
        uint32_t *r = (uint32_t *)realloc(s->r, (size_t)cap * sizeof *r);
        if (!r) return CRAND_NOMEM;
        s->r = r;
        s->cap = cap;
    }
    if (s->n == 0) {
        crand_start(s->seed, s->r);
        s->n = 34;
    }
    uint32_t *r = s->r;
    for (int64_t i = s->n; i < need; i++) r[i] = r[i - 31] + r[i - 3];
    if (need > s->n) s->n = need;
    return CRAND_OK;
}

/* The k-th value (0-based) of rand() after srand(seed). */
static inline int crand_rand(crand_cache *c, int64_t seed, int64_t k, int64_t *out)
{
    if (k < 0) return CRAND_NEGATIVE;
    if (k >= CRAND_MAX_CALLS) return CRAND_TOO_FAR;
    uint32_t s32 = (uint32_t)seed;   /* C's conversion to unsigned int: modulo 2^32 */
    crand_seq *s = NULL;
    for (int i = 0; i < c->nseq && !s; i++)
        if (c->seq[i].seed == s32) s = &c->seq[i];
    if (!s) {
        if (c->nseq == c->capseq) {
            int cap = c->capseq ? 2 * c->capseq : 4;
            crand_seq *q = (crand_seq *)realloc(c->seq, (size_t)cap * sizeof *q);
            if (!q) return CRAND_NOMEM;
            c->seq = q;
            c->capseq = cap;
        }
        s = &c->seq[c->nseq++];
        s->seed = s32;
        s->r = NULL;
        s->n = s->cap = 0;
    }
    int64_t at = k + 344;
    if (at >= s->n) {
        int st = crand_grow(s, at + 1);
        if (st) return st;
    }
    *out = (int64_t)(s->r[at] >> 1);
    return CRAND_OK;
}

static inline void crand_cache_free(crand_cache *c)
{
    for (int i = 0; i < c->nseq; i++) free(c->seq[i].r);
    free(c->seq);
    c->seq = NULL;
    c->nseq = c->capseq = 0;
}

/* ---- drand48() and lrand48(): a linear congruential generator that jumps ------------------- */

/* The state srand48(seed) sets: the seed's low 32 bits (glibc keeps only those), then 0x330E. */
static inline uint64_t crand48_seed(int64_t seed)
{
    return ((uint64_t)(uint32_t)seed << 16) | 0x330E;
}

/* The state after n steps from x0 (x' = a x + c, a = 0x5DEECE66D, c = 0xB, mod 2^48): the
 * composition of the steps by squaring, as (A, C) with x_n = A x0 + C. */
static inline uint64_t crand48_state(uint64_t x0, uint64_t n)
{
    uint64_t A = 1, C = 0, a = UINT64_C(0x5DEECE66D), c = 0xB;
    while (n) {
        if (n & 1) {
            A = A * a;                    /* arithmetic mod 2^64, reduced mod 2^48 at the end */
            C = C * a + c;
        }
        c = c * (a + 1);
        a = a * a;
        n >>= 1;
    }
    return (A * x0 + C) & CRAND48_MASK;
}

/* The k-th value (0-based) of drand48() from the state x0: x' 2^-48, exact (glibc builds the
 * double 1 + x' 2^-48 and subtracts 1, both exact). */
static inline int crand_drand48(uint64_t x0, int64_t k, double *out)
{
    if (k < 0) return CRAND_NEGATIVE;
    *out = (double)crand48_state(x0 & CRAND48_MASK, (uint64_t)k + 1) * 0x1p-48;
    return CRAND_OK;
}

/* The k-th value (0-based) of lrand48() from the state x0: the state's high 31 bits. */
static inline int crand_lrand48(uint64_t x0, int64_t k, int64_t *out)
{
    if (k < 0) return CRAND_NEGATIVE;
    *out = (int64_t)(crand48_state(x0 & CRAND48_MASK, (uint64_t)k + 1) >> 17);
    return CRAND_OK;
}

#endif
