/*
 * pbseq.h — what the sequential C kernels of tests/bench/bench_polybench.sh share (pb_*.c, each
 * one PolyBench/C 4.2.1 kernel written by hand as examples/polybench/K.apm states it): heap
 * arrays, a monotonic clock around the kernel only (as PolyBench times it and as exported programs
 * time their main loop), and the exported programs' result line, its checksum computed by
 * runtime/rt_checksum.c over the .apm's outputs in order, so that the two can be compared.
 * Sizes are compile-time macros (-DN=1000 ...), as PolyBench's are.
 */
#ifndef PBSEQ_H
#define PBSEQ_H

#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "rt_checksum.h"

/* Zeroed heap memory for one array; the caller owns it (the kernels exit without freeing). */
static inline void *pbseq_alloc(size_t bytes)
{
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p) {
        perror("pbseq: calloc");
        exit(1);
    }
    return p;
}

static inline double pbseq_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Adds one output array (n doubles, row-major) to the checksum `c`. */
static inline void pbseq_hash(rt_checksum *c, const void *a, size_t n)
{
    rt_checksum_doubles(c, (const double *)a, n);
}

/* The exported programs' result line (runtime RT_RESULT_FORMAT), one rank. */
static inline void pbseq_result(const rt_checksum *c, double seconds)
{
    printf(RT_RESULT_FORMAT, (unsigned long long)rt_checksum_value(c), seconds, 1);
}

#endif
