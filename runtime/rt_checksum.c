/*
 * rt_checksum.c — the output checksum, bit for bit the simulator's sim_checksum (engine/sim.h):
 * FNV-1a 64 over each output array in declaration order, each element in row-major order, the
 * 8 little-endian bytes of the IEEE-754 double with -0.0 hashed as 0.0, or of the int64
 * 0x7ff8dead for an element without value (given explicitly, or an element holding the bits of
 * rt_novalue()).  Incremental.  No MPI: sequential exports link this file alone; the gathers of
 * distributed arrays are in rt_gather.c.
 */
#include "rt_checksum.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rt_checksum_init(rt_checksum *c)
{
    c->h = RT_FNV_OFFSET;
}

/* The 8 bytes of `bits`, least significant first (little endian whatever the host). */
static inline uint64_t rt_fnv_u64(uint64_t h, uint64_t bits)
{
    for (int k = 0; k < 8; k++) {
        h ^= (bits >> (8 * k)) & 0xffu;
        h *= RT_FNV_PRIME;
    }
    return h;
}

/* The 8 bytes hashed for one element: the double's bits, 0.0 for -0.0, the marker for no value. */
static inline uint64_t rt_double_bits(double v)
{
    uint64_t bits;
    if (v == 0.0)
        v = 0.0;                  /* -0.0 hashes as 0.0 */
    memcpy(&bits, &v, sizeof bits);
    return bits == RT_NOVALUE_BITS ? (uint64_t)RT_UNDEFINED_MARK : bits;
}

double rt_novalue(void)
{
    double v;
    uint64_t bits = RT_NOVALUE_BITS;
    memcpy(&v, &bits, sizeof v);
    return v;
}

int rt_is_novalue(double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bits == RT_NOVALUE_BITS;
}

void rt_fill_novalue(double *a, size_t n)
{
    double v = rt_novalue();
    for (size_t i = 0; i < n; i++)
        a[i] = v;
}

/* The arrays' alignment: a cache line, and the widest vector a host loads (64 bytes).  malloc's 16
 * bytes put every second 32-byte load, and every 64-byte one, across two lines: fdtd-2d at
 * 1000 x 1200 ran 1.3 s against PolyBench's 0.9 s (its arrays page-aligned), 0.76 s aligned. */
enum { RT_ALIGN = 64 };

double *rt_alloc_novalue(size_t n)
{
    size_t bytes = (n ? n : 1) * sizeof(double);
    double *a = aligned_alloc(RT_ALIGN, (bytes + RT_ALIGN - 1) / RT_ALIGN * RT_ALIGN);
    if (!a) {
        fprintf(stderr, "polyapm-rt: out of memory (%zu doubles)\n", n);
        exit(2);
    }
    rt_fill_novalue(a, n);
    return a;
}

void rt_checksum_double(rt_checksum *c, double v)
{
    c->h = rt_fnv_u64(c->h, rt_double_bits(v));
}

void rt_checksum_doubles(rt_checksum *c, const double *v, size_t n)
{
    uint64_t h = c->h;
    for (size_t i = 0; i < n; i++)
        h = rt_fnv_u64(h, rt_double_bits(v[i]));
    c->h = h;
}

void rt_checksum_int64s(rt_checksum *c, const int64_t *v, size_t n)
{
    uint64_t h = c->h;
    for (size_t i = 0; i < n; i++)
        h = rt_fnv_u64(h, rt_double_bits((double)v[i]));
    c->h = h;
}

void rt_checksum_undefined(rt_checksum *c, size_t n)
{
    uint64_t h = c->h;
    for (size_t i = 0; i < n; i++)
        h = rt_fnv_u64(h, (uint64_t)RT_UNDEFINED_MARK);
    c->h = h;
}

uint64_t rt_checksum_value(const rt_checksum *c)
{
    return c->h;
}
