/*
 * tests/mpi/t_checksum.c — drives rt_checksum for tests/mpi/checksum.sh: prints "NAME HEX" lines
 * for fixed inputs (single rank) and for arrays gathered from a 1-D block layout and from 2-D
 * tile grids (any rank count); the script computes the expected FNV-1a values independently.
 * The arrays: v(i) = (i*37 % 101) / 7.0 - 5.0, element i = 13 replaced by -0.0.
 * `t_checksum ck N` instead prints "ck HEX": the outputs of the small program in checksum.sh
 * (elements without value, -0.0, an int array, two outputs), to compare with `polyapm sim`.
 */
#include "rt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double v_of(int64_t i)
{
    return i == 13 ? -0.0 : (double)(i * 37 % 101) / 7.0 - 5.0;
}

static void print(const char *name, const rt_checksum *c)
{
    printf("%s %016llx\n", name, (unsigned long long)rt_checksum_value(c));
}

/* Inputs every rank can hash alone; only rank 0 prints. */
static void fixed(void)
{
    rt_checksum c;
    double some[] = {1.0, 2.5, -3.25, 1e300, 5e-324, -0.0, 0.0, 0.1, -INFINITY};
    int64_t ints[] = {3, -7, 0, 4503599627370497};
    double as_doubles[] = {3.0, -7.0, 0.0, 4503599627370497.0};
    rt_checksum_init(&c);
    print("empty", &c);
    rt_checksum_init(&c);
    rt_checksum_double(&c, 0.0);
    print("zero", &c);
    rt_checksum_init(&c);
    rt_checksum_double(&c, -0.0);
    print("negzero", &c);
    rt_checksum_init(&c);
    rt_checksum_doubles(&c, some, sizeof some / sizeof *some);
    print("some", &c);
    rt_checksum_init(&c);                       /* the same in three pieces */
    rt_checksum_doubles(&c, some, 2);
    rt_checksum_double(&c, some[2]);
    rt_checksum_doubles(&c, some + 3, sizeof some / sizeof *some - 3);
    print("some_pieces", &c);
    rt_checksum_init(&c);
    rt_checksum_double(&c, 1.0);
    rt_checksum_undefined(&c, 2);
    rt_checksum_double(&c, 2.0);
    print("undef", &c);
    rt_checksum_init(&c);                       /* "undef" again, through rt_novalue */
    double holes[4] = {1.0, 0, 0, 2.0};
    rt_fill_novalue(holes + 1, 2);
    rt_checksum_doubles(&c, holes, 4);
    print("undef_novalue", &c);
    rt_checksum_init(&c);
    rt_checksum_int64s(&c, ints, 4);
    print("ints", &c);
    rt_checksum_init(&c);
    rt_checksum_doubles(&c, as_doubles, 4);
    print("ints_as_doubles", &c);
}

/* A rows x cols array v(i*cols + j), 1-D row blocks (balanced) and 2-D tiles with a halo of 2. */
static void gathered(int rows, int cols)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int rank = rt_rank(w), size = rt_size(w);
    int64_t lo, cnt;
    rt_balanced_range((int64_t)rows * cols, size, rank, &lo, &cnt);
    double *mine = rt_malloc((size_t)cnt * sizeof(double));
    for (int64_t k = 0; k < cnt; k++)
        mine[k] = v_of(lo + k);
    rt_checksum c;
    rt_checksum_init(&c);
    rt_checksum_gather_blocks(&c, w, mine, (int)cnt);
    if (rank == 0)
        print("blocks", &c);
    free(mine);

    /* every factorisation q_rows x q_cols of the rank count */
    for (int qr = 1; qr <= size; qr++) {
        if (size % qr)
            continue;
        int qc = size / qr;
        rt_grid2d g = rt_grid2d_make(w, qr, qc);
        int64_t r0, rn, c0, cn;
        rt_balanced_range(rows, qr, g.row, &r0, &rn);
        rt_balanced_range(cols, qc, g.col, &c0, &cn);
        int width = 2, ld = (int)cn + 2 * width + 3;
        double *tile = rt_malloc((size_t)(rn + 2 * width) * (size_t)ld * sizeof(double));
        for (int64_t k = 0; k < (rn + 2 * width) * ld; k++)
            tile[k] = NAN;                  /* the halo must not leak into the checksum */
        for (int64_t i = 0; i < rn; i++)
            for (int64_t j = 0; j < cn; j++)
                tile[(i + width) * ld + j + width] = v_of((r0 + i) * cols + c0 + j);
        rt_checksum_init(&c);
        rt_checksum_gather_grid2d(&c, &g, tile + width * ld + width, (int)rn, (int)cn, ld);
        if (rank == 0) {
            char name[64];
            snprintf(name, sizeof name, "grid%dx%d", qr, qc);
            print(name, &c);
        }
        free(tile);
    }
}

/* program ck: a[i][j] = (i - 2.0) * j / 3 where (i + j) % 3 != 0 (else no value); b[i] = i*7 - 20.
 * a is distributed in balanced blocks of its row-major elements, unwritten ones rt_novalue(),
 * and gathered; b is hashed by rank 0 alone. */
static void ck(int64_t n)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int64_t lo, cnt;
    rt_balanced_range(n * 3, rt_size(w), rt_rank(w), &lo, &cnt);
    double *mine = rt_malloc((size_t)cnt * sizeof(double));
    rt_fill_novalue(mine, (size_t)cnt);
    for (int64_t k = lo; k < lo + cnt; k++) {
        int64_t i = k / 3, j = k % 3;
        if ((i + j) % 3 != 0)
            mine[k - lo] = ((double)i - 2.0) * (double)j / 3;
    }
    rt_checksum c;
    rt_checksum_init(&c);
    rt_checksum_gather_blocks(&c, w, mine, (int)cnt);
    free(mine);
    if (rt_rank(w) != 0)
        return;
    for (int64_t i = 0; i < n; i++) {
        int64_t b = i * 7 - 20;
        rt_checksum_int64s(&c, &b, 1);
    }
    print("ck", &c);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    if (argc > 2 && strcmp(argv[1], "ck") == 0) {
        ck(atoll(argv[2]));
        rt_finalize();
        return 0;
    }
    int rows = argc > 1 ? atoi(argv[1]) : 7, cols = argc > 2 ? atoi(argv[2]) : 11;
    if (rt_rank(MPI_COMM_WORLD) == 0)
        fixed();
    gathered(rows, cols);
    rt_finalize();
    return 0;
}
