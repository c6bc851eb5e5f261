/*
 * t_gather.c — rt_gather (scattered elements onto rank 0) over three gathers in a row, as an
 * exported program's output slabs call it: every rank puts the elements i with i % size == rank
 * (none with i % 11 == 5), and every rank puts the elements with i % 7 == 0, stamped so that
 * stamps tie between ranks; rank 0 then checks each element: the largest stamp's value, of equal
 * stamps the later rank's, and no value where nobody put one.  N is large enough that a rank
 * sends its elements in several chunks.  Prints "gather errors=N checked=M".
 */
#include <stdio.h>
#include <stdlib.h>

#include "rt.h"

enum { N = 150000, GATHERS = 3 };

static int puts_it(int64_t i, int r, int size) { return (i % size == r && i % 11 != 5) || i % 7 == 0; }
static uint32_t stamp(int64_t i, int r) { return i % 7 == 0 ? 1 + (uint32_t)((r + i) % 2) : 2; }
static double value(int64_t i, int r, int g) { return r * 1e6 + (double)i + g * 0.25; }

/* The rank whose value rank 0 must hold at i, or -1 */
static int winner(int64_t i, int size)
{
    int best = -1;
    for (int r = 0; r < size; r++)
        if (puts_it(i, r, size) && (best < 0 || stamp(i, r) >= stamp(i, best))) best = r;
    return best;
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    int rank = rt_rank(MPI_COMM_WORLD), size = rt_size(MPI_COMM_WORLD);
    double *region = rank == 0 ? rt_malloc(N * sizeof *region) : NULL;
    long errors = 0, checked = 0;
    for (int g = 0; g < GATHERS; g++) {
        if (rank == 0) rt_fill_novalue(region, N);
        rt_gather *rg = rt_gather_new(MPI_COMM_WORLD, region, N);
        for (int64_t i = 0; i < N; i++)
            if (puts_it(i, rank, size)) rt_gather_put(rg, i, value(i, rank, g), stamp(i, rank));
        rt_gather_finish(rg);
        for (int64_t i = 0; rank == 0 && i < N; i++, checked++) {
            int w = winner(i, size);
            if (w < 0 ? !rt_is_novalue(region[i]) : region[i] != value(i, w, g)) {
                if (errors++ < 5) fprintf(stderr, "gather %d: element %lld is %g, not rank %d's\n", g, (long long)i, region[i], w);
            }
        }
    }
    if (rank == 0) printf("gather errors=%ld checked=%ld\n", errors, checked);
    free(region);
    rt_finalize();
    return 0;
}
