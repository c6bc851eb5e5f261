/*
 * rt_redist.c — redistributions between the phases of an exported program: the transpose
 * collective (polyapm-lang(5) COLLECTIVES), which moves the rows one phase's owners hold to the
 * rows, transposed, that the next phase's owners read (adi: u written by rows, read by columns).
 *
 * The ranks learn each other's rows with one MPI_Allgather of four integers; each packs, per
 * destination rank, the part of its source rows that rank's destination rows cover, column
 * after column (the transpose happens in the packing, walking down the source rows in tiles so
 * that both sides stay in cache), and one MPI_Alltoallv delivers them; each rank unpacks its
 * blocks row by row, contiguously.  What a rank takes from itself is copied straight across.  No state is kept between calls.
 */
#include "rt.h"

#include <stdlib.h>
#include <string.h>

/* The overlap of lo .. hi with a .. b (empty: *n = 0). */
static void rt_meet(int64_t lo, int64_t hi, int64_t a, int64_t b, int64_t *from, int64_t *n)
{
    *from = lo > a ? lo : a;
    int64_t to = hi < b ? hi : b;
    *n = to >= *from ? to - *from + 1 : 0;
}

static int rt_count(int64_t n)
{
    if (n < 0 || n > INT32_MAX) rt_die("transpose: a block of %lld elements exceeds an MPI count", (long long)n);
    return (int)n;
}

/* Visits, tile by tile (32 x 32, so that both sides stay in cache), the elements src[a][b] for
 * a in a0 .. a0+na-1 (rows of src), b in b0 .. b0+nb-1 (its columns), copying each to out at
 * index j * ostride + i + oat (j = b - b0, i = a - a0): a packed block (ostride na, oat 0), or
 * this rank's own destination rows directly. */
static void rt_tiles(const rt_rows *s, int64_t a0, int64_t na, int64_t b0, int64_t nb, unsigned char *out,
                     int64_t oat, int64_t ostride)
{
    const unsigned char *base = (const unsigned char *)s->base;
    enum { T = 32 };
    for (int64_t bt = 0; bt < nb; bt += T)
        for (int64_t at = 0; at < na; at += T) {
            int64_t be = bt + T < nb ? bt + T : nb, ae = at + T < na ? at + T : na;
            for (int64_t j = bt; j < be; j++) {
                unsigned char *o = out + (size_t)(oat + j * ostride) * 8;
                const unsigned char *in = base + (size_t)(s->at + (a0 - s->lo) * s->stride + (b0 + j - s->c0)) * 8;
                for (int64_t i = at; i < ae; i++) memcpy(o + (size_t)i * 8, in + (size_t)(i * s->stride) * 8, 8);
            }
        }
}

void rt_transpose(const rt_rows *src, const rt_rows *dst, MPI_Datatype type, MPI_Comm comm)
{
    int np = rt_size(comm), me = rt_rank(comm);
    int64_t mine[4] = {src->lo, src->hi, dst->lo, dst->hi};
    int64_t *all = rt_malloc((size_t)np * sizeof mine);
    RT_CHECK(MPI_Allgather(mine, 4, MPI_INT64_T, all, 4, MPI_INT64_T, comm));
    int *sc = rt_malloc((size_t)np * 4 * sizeof *sc), *sd = sc + np, *rc = sd + np, *rd = rc + np;
    int64_t a0, na, b0, nb, st = 0, rt = 0;
    rt_meet(src->lo, src->hi, dst->c0, dst->c1, &a0, &na);   /* my rows every taker reads */
    for (int q = 0; q < np; q++) {
        rt_meet(all[4 * q + 2], all[4 * q + 3], src->c0, src->c1, &b0, &nb);
        if (q == me) nb = 0;   /* this rank's own part is copied directly */
        sc[q] = rt_count(na * nb);
        sd[q] = rt_count(st);
        st += na * nb;
        int64_t qa0, qna;
        rt_meet(all[4 * q], all[4 * q + 1], dst->c0, dst->c1, &qa0, &qna);
        rt_meet(dst->lo, dst->hi, src->c0, src->c1, &b0, &nb);
        if (q == me) nb = 0;
        rc[q] = rt_count(qna * nb);
        rd[q] = rt_count(rt);
        rt += qna * nb;
    }
    unsigned char *out = rt_malloc((size_t)(st ? st : 1) * 8), *in = rt_malloc((size_t)(rt ? rt : 1) * 8);
    for (int q = 0; q < np; q++) {
        rt_meet(all[4 * q + 2], all[4 * q + 3], src->c0, src->c1, &b0, &nb);
        if (na && nb && q != me) rt_tiles(src, a0, na, b0, nb, out + (size_t)sd[q] * 8, 0, na);
    }
    RT_CHECK(MPI_Alltoallv(out, sc, sd, type, in, rc, rd, type, comm));
    unsigned char *base = (unsigned char *)dst->base;
    rt_meet(dst->lo, dst->hi, src->c0, src->c1, &b0, &nb);
    if (na && nb)   /* this rank's rows of src that its own dst rows take: straight across */
        rt_tiles(src, a0, na, b0, nb, base, dst->at + (b0 - dst->lo) * dst->stride + (a0 - dst->c0), dst->stride);
    for (int q = 0; q < np; q++) {
        if (q == me) continue;
        int64_t qa0, qna;
        rt_meet(all[4 * q], all[4 * q + 1], dst->c0, dst->c1, &qa0, &qna);
        const unsigned char *blk = in + (size_t)rd[q] * 8;
        for (int64_t j = 0; j < nb && qna; j++) {
            int64_t off = dst->at + (b0 + j - dst->lo) * dst->stride + (qa0 - dst->c0);
            memcpy(base + (size_t)off * 8, blk + (size_t)(j * qna) * 8, (size_t)qna * 8);
        }
    }
    free(in);
    free(out);
    free(sc);
    free(all);
}
