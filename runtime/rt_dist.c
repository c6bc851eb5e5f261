/*
 * rt_dist.c — index ranges of block distributions: the thesis's blocked tiling (tile size
 * floor((n-1)/p)+1, trailing parts possibly empty) and the balanced one.
 */
#include "rt.h"

void rt_block_range(int64_t n, int parts, int i, int64_t *lo, int64_t *count)
{
    if (parts <= 0 || i < 0 || i >= parts || n < 0)
        rt_die("rt_block_range: bad arguments n=%lld parts=%d i=%d", (long long)n, parts, i);
    int64_t tile = n > 0 ? (n - 1) / parts + 1 : 0;
    int64_t a = tile * i, b = a + tile;
    if (a > n) a = n;
    if (b > n) b = n;
    *lo = a;
    *count = b - a;
}

void rt_balanced_range(int64_t n, int parts, int i, int64_t *lo, int64_t *count)
{
    if (parts <= 0 || i < 0 || i >= parts || n < 0)
        rt_die("rt_balanced_range: bad arguments n=%lld parts=%d i=%d", (long long)n, parts, i);
    int64_t q = n / parts, r = n % parts;
    *lo = q * i + (i < r ? i : r);
    *count = q + (i < r ? 1 : 0);
}
