/*
 * tests/mpi/t_ranks.c — drives the checks that end a program with a clear message and a non-zero
 * exit, for tests/mpi/ranks.sh:
 *   t_ranks exact N     rt_require_ranks(N, ...), then rank 0 prints "ran with P ranks"
 *   t_ranks square      rt_require_square_ranks(...), then rank 0 prints "ran on a QxQ grid"
 *   t_ranks mpierror    RT_CHECK around an MPI_Send to a rank that does not exist
 *   t_ranks grid R C    rt_grid2d_make with a shape that must match the rank count
 */
#include "rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    MPI_Comm w = MPI_COMM_WORLD;
    int rank = rt_rank(w), size = rt_size(w);
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "exact") == 0 && argc > 2) {
        rt_require_ranks(atoi(argv[2]), "the program was derived for procs = 4");
        if (rank == 0)
            printf("ran with %d ranks\n", size);
    } else if (strcmp(mode, "square") == 0) {
        int q = rt_require_square_ranks("the tiling is a square grid of tiles");
        if (rank == 0)
            printf("ran on a %dx%d grid\n", q, q);
    } else if (strcmp(mode, "mpierror") == 0) {
        double v = 1.0;
        RT_CHECK(MPI_Send(&v, 1, MPI_DOUBLE, size + 5, 0, w));
        printf("not reached\n");
    } else if (strcmp(mode, "grid") == 0 && argc > 3) {
        rt_grid2d g = rt_grid2d_make(w, atoi(argv[2]), atoi(argv[3]));
        if (rank == 0)
            printf("grid %dx%d\n", g.q_rows, g.q_cols);
    } else {
        if (rank == 0)
            fprintf(stderr, "usage: t_ranks exact N | square | mpierror | grid R C\n");
        rt_finalize();
        return 1;
    }
    rt_finalize();
    return 0;
}
