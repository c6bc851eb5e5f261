/*
 * pb.h — shared by the C reference programs of examples/polybench (tests/polybench/source.sh):
 * sizes come from -D on the compiler's command line (the defaults are the .apm's), arrays live on
 * the heap, and the result is the line "checksum: %016llx" computed by the runtime's
 * rt_checksum.c exactly as `polyapm sim` computes it over the program's outputs.
 */
#ifndef PB_H
#define PB_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "rt_checksum.h"

/* Zeroed heap memory for one array; the caller owns it (the programs exit without freeing). */
static inline void *pb_alloc(size_t bytes)
{
    void *p = calloc(1, bytes);
    if (!p) {
        perror("calloc");
        exit(1);
    }
    return p;
}

static rt_checksum pb_sum;

/* The outputs are hashed in the order of the .apm's output declarations, each row-major. */
static inline void pb_hash_doubles(const void *a, size_t n)
{
    static int started;
    if (!started) rt_checksum_init(&pb_sum), started = 1;
    rt_checksum_doubles(&pb_sum, (const double *)a, n);
}

/* An int array is hashed as its values converted to double, as the simulator gathers it. */
static inline void pb_hash_ints(const int *a, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double v = (double)a[i];
        pb_hash_doubles(&v, 1);
    }
}

static inline void pb_print_checksum(void)
{
    printf("checksum: %016llx\n", (unsigned long long)rt_checksum_value(&pb_sum));
}

#endif
