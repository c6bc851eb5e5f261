/*
 * rt_halo.c — halo exchanges for static partner sets: the 1-D block tiling (both halos contiguous,
 * MPI_Sendrecv) and the 2-D block tiling on a q_rows x q_cols grid of ranks (north/south halos are
 * contiguous rows, west/east halos strided columns described by MPI vector datatypes, all
 * posted at once with Isend/Irecv/Waitall).
 * Ownership: rt_halo2d_new returns an object (and its committed datatypes) that the caller frees
 * with rt_halo2d_free before MPI_Finalize.
 */
#include "rt.h"

#include <limits.h>
#include <stdlib.h>

/* Tags name the direction the data travels, so a pair of ranks never confuses two messages. */
enum { RT_TAG_EAST = 9101, RT_TAG_WEST, RT_TAG_SOUTH, RT_TAG_NORTH };

void rt_halo1d_exchange(MPI_Comm comm, double *buf, int own, int width, int unit)
{
    int rank = rt_rank(comm), size = rt_size(comm);
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    if (width <= 0 || unit <= 0 || own < 0)
        rt_die("rt_halo1d_exchange: bad sizes own=%d width=%d unit=%d", own, width, unit);
    if (own < width && (left != MPI_PROC_NULL || right != MPI_PROC_NULL))
        rt_die("rt_halo1d_exchange: %d owned elements cannot fill a halo of width %d", own, width);
    if ((double)width * unit > (double)INT_MAX)
        rt_die("rt_halo1d_exchange: halo of %d x %d doubles too large", width, unit);
    size_t w = (size_t)width * (size_t)unit, o = (size_t)own * (size_t)unit;
    int n = (int)w;
    /* my first owned elements go left, the right neighbour's first ones fill my right halo */
    RT_CHECK(MPI_Sendrecv(buf + w, n, MPI_DOUBLE, left, RT_TAG_WEST,
                          buf + w + o, n, MPI_DOUBLE, right, RT_TAG_WEST, comm, MPI_STATUS_IGNORE));
    /* my last owned elements go right, the left neighbour's last ones fill my left halo */
    RT_CHECK(MPI_Sendrecv(buf + o, n, MPI_DOUBLE, right, RT_TAG_EAST,
                          buf, n, MPI_DOUBLE, left, RT_TAG_EAST, comm, MPI_STATUS_IGNORE));
}

rt_grid2d rt_grid2d_make(MPI_Comm comm, int q_rows, int q_cols)
{
    rt_grid2d g;
    int size = rt_size(comm), rank = rt_rank(comm);
    if (q_rows <= 0 || q_cols <= 0 || (long long)q_rows * q_cols != size)
        rt_die("rt_grid2d_make: a %d x %d grid of ranks needs %lld ranks, the communicator has %d",
               q_rows, q_cols, (long long)q_rows * q_cols, size);
    g.comm = comm;
    g.q_rows = q_rows;
    g.q_cols = q_cols;
    g.row = rank / q_cols;
    g.col = rank % q_cols;
    g.north = g.row > 0 ? rank - q_cols : MPI_PROC_NULL;
    g.south = g.row < q_rows - 1 ? rank + q_cols : MPI_PROC_NULL;
    g.west = g.col > 0 ? rank - 1 : MPI_PROC_NULL;
    g.east = g.col < q_cols - 1 ? rank + 1 : MPI_PROC_NULL;
    return g;
}

struct rt_halo2d {
    rt_grid2d g;
    int rows, cols, ld, width, corners;
    MPI_Datatype row_t;       /* width rows of cols doubles (contiguous when width == 1) */
    MPI_Datatype col_t;       /* width columns of rows (+ 2*width with corners) doubles, stride ld */
};

rt_halo2d *rt_halo2d_new(const rt_grid2d *g, int rows, int cols, int ld, int width, int corners)
{
    if (width <= 0 || rows < width || cols < width || ld < cols + 2 * width)
        rt_die("rt_halo2d_new: tile %d x %d (leading dimension %d) cannot carry a halo of width %d"
               " (need rows, cols >= width and ld >= cols + 2*width)", rows, cols, ld, width);
    rt_halo2d *h = rt_calloc(1, sizeof *h);
    h->g = *g;
    h->rows = rows;
    h->cols = cols;
    h->ld = ld;
    h->width = width;
    h->corners = corners ? 1 : 0;
    RT_CHECK(MPI_Type_vector(width, cols, ld, MPI_DOUBLE, &h->row_t));
    RT_CHECK(MPI_Type_commit(&h->row_t));
    RT_CHECK(MPI_Type_vector(rows + (h->corners ? 2 * width : 0), width, ld, MPI_DOUBLE, &h->col_t));
    RT_CHECK(MPI_Type_commit(&h->col_t));
    return h;
}

void rt_halo2d_free(rt_halo2d *h)
{
    if (!h)
        return;
    RT_CHECK(MPI_Type_free(&h->row_t));
    RT_CHECK(MPI_Type_free(&h->col_t));
    free(h);
}

/* Posts the north/south pair of exchanges (rows) into req[0..3]. */
static void rt_halo2d_rows(rt_halo2d *h, double *tile, MPI_Request *req)
{
    size_t w = (size_t)h->width, ld = (size_t)h->ld, rows = (size_t)h->rows;
    const rt_grid2d *g = &h->g;
    RT_CHECK(MPI_Irecv(tile + w, 1, h->row_t, g->north, RT_TAG_SOUTH, g->comm, &req[0]));
    RT_CHECK(MPI_Irecv(tile + (w + rows) * ld + w, 1, h->row_t, g->south, RT_TAG_NORTH, g->comm, &req[1]));
    RT_CHECK(MPI_Isend(tile + w * ld + w, 1, h->row_t, g->north, RT_TAG_NORTH, g->comm, &req[2]));
    RT_CHECK(MPI_Isend(tile + rows * ld + w, 1, h->row_t, g->south, RT_TAG_SOUTH, g->comm, &req[3]));
}

/* Posts the west/east pair (columns; from row 0 with corners, else from the first owned row). */
static void rt_halo2d_cols(rt_halo2d *h, double *tile, MPI_Request *req)
{
    size_t w = (size_t)h->width, ld = (size_t)h->ld, cols = (size_t)h->cols;
    double *base = h->corners ? tile : tile + w * ld;
    const rt_grid2d *g = &h->g;
    RT_CHECK(MPI_Irecv(base, 1, h->col_t, g->west, RT_TAG_EAST, g->comm, &req[0]));
    RT_CHECK(MPI_Irecv(base + w + cols, 1, h->col_t, g->east, RT_TAG_WEST, g->comm, &req[1]));
    RT_CHECK(MPI_Isend(base + w, 1, h->col_t, g->west, RT_TAG_WEST, g->comm, &req[2]));
    RT_CHECK(MPI_Isend(base + cols, 1, h->col_t, g->east, RT_TAG_EAST, g->comm, &req[3]));
}

void rt_halo2d_exchange(rt_halo2d *h, double *tile)
{
    MPI_Request req[8];
    rt_halo2d_rows(h, tile, req);
    if (h->corners) {
        /* the columns carry the halo rows just received: the corners come with them */
        RT_CHECK(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
        rt_halo2d_cols(h, tile, req);
        RT_CHECK(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
    } else {
        rt_halo2d_cols(h, tile, req + 4);
        RT_CHECK(MPI_Waitall(8, req, MPI_STATUSES_IGNORE));
    }
}
