/*
 * rt_checksum.h — the part of the runtime that needs no MPI: the output checksum (identical to the
 * simulator's sim_checksum) and the "no value" marker.  Sequential exported programs include
 * only this header and link only rt_checksum.c; rt.h includes it for MPI programs.
 */
#ifndef POLYAPM_RT_CHECKSUM_H
#define POLYAPM_RT_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a 64 over the output arrays, exactly as sim_checksum in engine/sim.h: for each output array
 * in declaration order, each element in row-major order, the 8 little-endian bytes of the IEEE-754
 * double (-0.0 hashed as 0.0), or of the int64 0x7ff8dead for an element without value.  Int
 * arrays are hashed as their values converted to double, as the simulator gathers them.
 * An element holding rt_novalue() (below) is hashed as an element without value.
 * Incremental: feed elements in order (e.g. rank 0 feeding gathered rows one after another). */
typedef struct rt_checksum {
    uint64_t h;
} rt_checksum;

#define RT_FNV_OFFSET   UINT64_C(0xcbf29ce484222325)
#define RT_FNV_PRIME    UINT64_C(0x00000100000001b3)
#define RT_UNDEFINED_MARK INT64_C(0x7ff8dead)

/* "No value": a quiet NaN with a payload no arithmetic produces.  Exported programs fill their
 * output arrays with it before the computation; every checksum function below hashes an element
 * holding exactly these bits as an element without value (the marker above), so partially
 * written outputs (LU's l and u) gather and hash like any other array.  Copies (memcpy, MPI)
 * keep the bits; arithmetic on it is a bug in the program, not a value. */
#define RT_NOVALUE_BITS UINT64_C(0x7ff800007ff8dead)
double rt_novalue(void);
int rt_is_novalue(double v);
void rt_fill_novalue(double *a, size_t n);
/* An array of n doubles (at least one) each holding rt_novalue(), starting on a cache line
 * (64 bytes), the caller's to free; out of memory ends the program (exit status 2). */
double *rt_alloc_novalue(size_t n);

void rt_checksum_init(rt_checksum *c);
void rt_checksum_double(rt_checksum *c, double v);
void rt_checksum_doubles(rt_checksum *c, const double *v, size_t n);
void rt_checksum_int64s(rt_checksum *c, const int64_t *v, size_t n);
void rt_checksum_undefined(rt_checksum *c, size_t n);       /* n elements without value */
uint64_t rt_checksum_value(const rt_checksum *c);

/* The result line every exported program prints (rank 0 only for MPI programs). */
#define RT_RESULT_FORMAT "polyapm-result checksum=%016llx seconds=%.9f ranks=%d\n"

#endif
