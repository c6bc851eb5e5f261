/*
 * tests/mpi/t_halo.c — drives the halo exchanges for tests/mpi/halo.sh.  A global rows x cols array
 * g(i, j) = i*1000 + j + 0.5 is tiled (balanced blocks); owned cells get g, halo cells a sentinel;
 * after one exchange every cell of the tile is checked: owned cells unchanged, a rim cell whose
 * global position lies inside the array holds g of it (corners only with the corners option),
 * every other halo cell still holds the sentinel.  Rank 0 prints "halo errors=E cells=C".
 *   t_halo 2d WIDTH CORNERS ROWS COLS [Q_ROWS Q_COLS]   (default grid: square, rt_require_square_ranks)
 *   t_halo 1d WIDTH ROWS COLS                           (row blocks, unit = COLS)
 */
#include "rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENTINEL (-12345.0)

static double g_of(int64_t i, int64_t j)
{
    return (double)i * 1000.0 + (double)j + 0.5;
}

/* Checks one tile: owned block r0.., c0.. of rn x cn, halo `width`, leading dimension ld.
 * want_rows/want_cols: whether north/south rims and west/east rims must be filled; corners too. */
static long long check(const double *tile, int64_t rows, int64_t cols, int64_t r0, int64_t rn,
                       int64_t c0, int64_t cn, int width, int ld, int corners, long long *cells)
{
    long long errors = 0;
    for (int64_t ti = 0; ti < rn + 2 * width; ti++)
        for (int64_t tj = 0; tj < cn + 2 * width; tj++) {
            int64_t gi = r0 + ti - width, gj = c0 + tj - width;
            int in_rows = ti >= width && ti < rn + width, in_cols = tj >= width && tj < cn + width;
            int inside = gi >= 0 && gi < rows && gj >= 0 && gj < cols;
            int filled = inside && (in_rows || in_cols || corners);
            double want = filled ? g_of(gi, gj) : SENTINEL, got = tile[ti * ld + tj];
            (*cells)++;
            if (got != want && errors++ < 5)
                fprintf(stderr, "rank %d: tile cell (%lld,%lld) = global (%lld,%lld) holds %g, want %g\n",
                        rt_rank(MPI_COMM_WORLD), (long long)ti, (long long)tj, (long long)gi,
                        (long long)gj, got, want);
        }
    return errors;
}

static double *make_tile(int64_t r0, int64_t rn, int64_t c0, int64_t cn, int width, int ld)
{
    size_t n = (size_t)(rn + 2 * width) * (size_t)ld;
    double *tile = rt_malloc(n * sizeof(double));
    for (size_t k = 0; k < n; k++)
        tile[k] = SENTINEL;
    for (int64_t i = 0; i < rn; i++)
        for (int64_t j = 0; j < cn; j++)
            tile[(i + width) * ld + j + width] = g_of(r0 + i, c0 + j);
    return tile;
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    MPI_Comm w = MPI_COMM_WORLD;
    int rank = rt_rank(w), size = rt_size(w);
    long long errors = 0, cells = 0;
    if (argc >= 6 && strcmp(argv[1], "2d") == 0) {
        int width = atoi(argv[2]), corners = atoi(argv[3]);
        int64_t rows = atoll(argv[4]), cols = atoll(argv[5]);
        int qr, qc;
        if (argc >= 8) {
            qr = atoi(argv[6]);
            qc = atoi(argv[7]);
        } else {
            qr = qc = rt_require_square_ranks("t_halo 2d tiles a square grid");
        }
        rt_grid2d g = rt_grid2d_make(w, qr, qc);
        int64_t r0, rn, c0, cn;
        rt_balanced_range(rows, qr, g.row, &r0, &rn);
        rt_balanced_range(cols, qc, g.col, &c0, &cn);
        int ld = (int)cn + 2 * width + 1;            /* a padded leading dimension */
        double *tile = make_tile(r0, rn, c0, cn, width, ld);
        rt_halo2d *h = rt_halo2d_new(&g, (int)rn, (int)cn, ld, width, corners);
        rt_halo2d_exchange(h, tile);
        errors += check(tile, rows, cols, r0, rn, c0, cn, width, ld, corners, &cells);
        /* a second exchange (datatypes reused) leaves everything as it was */
        rt_halo2d_exchange(h, tile);
        errors += check(tile, rows, cols, r0, rn, c0, cn, width, ld, corners, &cells);
        rt_halo2d_free(h);
        free(tile);
    } else if (argc >= 5 && strcmp(argv[1], "1d") == 0) {
        int width = atoi(argv[2]);
        int64_t rows = atoll(argv[3]), cols = atoll(argv[4]), r0, rn;
        rt_balanced_range(rows, size, rank, &r0, &rn);
        double *tile = make_tile(r0, rn, 0, cols, 0, (int)cols);
        /* make_tile with width 0 gives just the owned rows; add the halo rows around them */
        double *buf = rt_malloc((size_t)(rn + 2 * width) * (size_t)cols * sizeof(double));
        for (int64_t k = 0; k < (rn + 2 * width) * cols; k++)
            buf[k] = SENTINEL;
        memcpy(buf + width * cols, tile, (size_t)(rn * cols) * sizeof(double));
        rt_halo1d_exchange(w, buf, (int)rn, width, (int)cols);
        /* as a 2-D tile with halo columns of width 0: rows only */
        for (int64_t ti = 0; ti < rn + 2 * width; ti++)
            for (int64_t j = 0; j < cols; j++) {
                int64_t gi = r0 + ti - width;
                double want = gi >= 0 && gi < rows ? g_of(gi, j) : SENTINEL, got = buf[ti * cols + j];
                cells++;
                if (got != want && errors++ < 5)
                    fprintf(stderr, "rank %d: row %lld col %lld holds %g, want %g\n", rank,
                            (long long)ti, (long long)j, got, want);
            }
        free(tile);
        free(buf);
    } else {
        if (rank == 0)
            fprintf(stderr, "usage: t_halo 2d WIDTH CORNERS ROWS COLS [QR QC] | 1d WIDTH ROWS COLS\n");
        rt_finalize();
        return 2;
    }
    long long e_all = 0, c_all = 0;
    RT_CHECK(MPI_Reduce(&errors, &e_all, 1, MPI_LONG_LONG, MPI_SUM, 0, w));
    RT_CHECK(MPI_Reduce(&cells, &c_all, 1, MPI_LONG_LONG, MPI_SUM, 0, w));
    if (rank == 0)
        printf("halo errors=%lld cells=%lld\n", e_all, c_all);
    rt_finalize();
    return 0;
}
