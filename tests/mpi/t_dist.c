/*
 * tests/mpi/t_dist.c — prints the block ranges of rt_block_range and rt_balanced_range for
 * n = 0..20 and 1..6 parts, one line "KIND n parts i lo count" each, for tests/mpi/dist.sh.
 */
#include "rt.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    static const struct {
        const char *name;
        void (*range)(int64_t, int, int, int64_t *, int64_t *);
    } kinds[] = {{"block", rt_block_range}, {"balanced", rt_balanced_range}};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        for (int64_t n = 0; n <= 20; n++)
            for (int parts = 1; parts <= 6; parts++)
                for (int i = 0; i < parts; i++) {
                    int64_t lo, cnt;
                    kinds[k].range(n, parts, i, &lo, &cnt);
                    printf("%s %lld %d %d %lld %lld\n", kinds[k].name, (long long)n, parts, i,
                           (long long)lo, (long long)cnt);
                }
    rt_finalize();
    return 0;
}
