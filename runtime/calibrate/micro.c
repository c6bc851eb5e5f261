/*
 * micro.c — the calibration benchmark's microbenchmarks of the processor and its memory (part of
 * bench.c's program; engine/calib.c fits them).  Every rank runs them at once, as a leaf's ranks
 * run (they share the last-level cache and the memory's bandwidth); a figure is the slowest rank's
 * of the fastest of 15 rounds (7 with --quick; 5 beyond the caches).  The working sets come from
 * the caches sysfs describes (cpu0's data and unified caches; else every level sysconf knows; a
 * level's share is its size over the processors that share it), except the size of a last level
 * beyond the second, which is measured (mb_last_fast: a virtual machine's describes its host's).
 * Lines (seconds per element, or per load, or per restart):
 *   cache LEVEL BYTES SHARING      a cache level, its size and the processors sharing it
 *   micro update LEVEL BYTES S     a[i] = a[i] * c + d over BYTES (half the level's share; LEVEL 0:
 *                                  beyond the caches, four times the last level): two operations
 *                                  and two streams (a read, a write) an element
 *   micro poly LEVEL BYTES S       the same element put through eight such steps: sixteen
 *                                  operations and two streams an element (level 1 only)
 *   micro update_scalar 1 BYTES S, the two as code the compiler does not vectorise runs them (a
 *   micro poly_scalar 1 BYTES S    loop with a guard or a send in its body, a walk)
 *   micro chase LEVEL BYTES S      a dependent load in a random cycle over BYTES (the latency)
 *   micro accum 1 BYTES S          s = s + w[k] * v[k] over arrays in the first level: two
 *                                  operations an element on a chain of dependent additions
 *   micro chains 1 BYTES S         the accumulation in chains of CHAIN_LEN elements, one after
 *                                  another (y[j] = y[j] + w[k] * v[j][k], k inside j) over BYTES
 *                                  in the first level: the next chain begins while one ends
 *   micro lanes 2 BYTES S          y[j] = y[j] + c[k][j] * x[k] for j, for k, over a matrix of
 *                                  BYTES in the second level, the sizes constants: the compiler
 *                                  vectorises the loop over j, each lane a chain of additions
 *                                  of its own (2mm's exported loops)
 *   micro strided LEVEL BYTES S    y[i] = y[i] + c[i][j] * x[j] down the columns of a square matrix of
 *                                  about BYTES (half the level's share), rows a few doubles longer
 *                                  than it is wide (no power of two); LEVEL 0: beyond the caches,
 *                                  BYTES the step between rows: 2000 of them spanning the memory of
 *                                  `micro update 0` (64000 bytes apart for 128 MB), every column
 *   micro aliased 0 STEP S         the same with rows 8192 bytes apart (every element of a column
 *                                  in the same cache sets)
 *   micro searched 1 BYTES S       the update along the rows of a matrix in two pieces (each row's
 *                                  first half in one, its second half in the other), every element
 *                                  found as an exported pieced memory finds it (a search of the
 *                                  pieces, the row's bounds checked): level 1
 *   micro restart 0 BYTES S        the update over the first ROW_PART elements of each row of
 *                                  ROW_LEN, beyond the caches: seconds per row (its stream
 *                                  started over), BYTES the matrix's
 *   micro rows 0 BYTES S           the update over as many elements in whole rows (a quarter of
 *                                  the matrix, one stream): seconds per ROW_PART elements
 *   micro entries 1 BYTES S        y[i][..] = y[i][..] + s[k] * x[k][..] for each pair of rows,
 *                                  along rows of ENTRY_ROW in tiles of ENTRY_PIECE columns (the
 *                                  tile loop outermost, as an exported tiling's), over BYTES in
 *                                  the first level: seconds per piece (an entry of the loop)
 *   micro whole 1 BYTES S          the same along whole rows: seconds per ENTRY_PIECE elements
 *   micro entries_checked 1 BYTES S,  the two with y's rows updated from its own (trmm's B[i][j] +
 *   micro whole_checked 1 BYTES S     A[k][i] * B[k][j]): the compiler vectorises the loop behind
 *                                  a test that the two rows do not overlap, made on every entry
 * Compiled as exported code is (-O3 -march=native -ffp-contract=off): the loops vectorise as the
 * exported loops of the same shapes do.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "micro.h"

/* Rounds of about a millisecond in the caches: on a shared machine short rounds find a quiet
 * spell (a rank that shares its core for a while slows every longer round); more of them than
 * --quick's for the full calibration; 5 of the long ones, beyond the caches. */
enum { MB_LEVELS = 4, MB_ROUNDS_QUICK = 7, MB_ROUNDS = 15, MB_ROUNDS_LONG = 5, ROW_LEN = 1024, ROW_PART = 256 };
/* The lanes' matrix: constants, as an exported program's sizes are (the compiler vectorises the
 * loop around the accumulation only where the inner loop's bounds are known) */
enum { LANES_ROWS = 200, LANES_COLS = 200 };
enum { CHAIN_LEN = 64 };   /* the short chains' elements (a tile's) */
enum { MB_LONG_BYTES = 32 << 20 };   /* an update over this much or more: beyond the caches' rounds */
enum { ENTRY_ROW = 128, ENTRY_PIECE = 32 };   /* the entries' rows and their pieces (a tile's) */

typedef struct mb_cache { int level; double bytes; int sharing; } mb_cache;

/* A sysfs number with a K or M suffix, 0 when absent. */
static double mb_sysfs_size(int index, const char *what)
{
    char path[128], buf[128];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/%s", index, what);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char *ok = fgets(buf, sizeof buf, f);
    fclose(f);
    if (!ok) return 0;
    char *unit = NULL;
    double v = strtod(buf, &unit);
    if (unit && (*unit == 'K' || *unit == 'k')) v *= 1024;
    else if (unit && *unit == 'M') v *= 1024 * 1024;
    return v;
}

/* The processors of a shared_cpu_list ("0-1,4,6-7"); 1 when unknown. */
static int mb_sharing(int index)
{
    char path[128], buf[256];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list", index);
    FILE *f = fopen(path, "r");
    int n = 0;
    if (!f) return 1;
    for (char *p = fgets(buf, sizeof buf, f); p && *p && *p != '\n';) {
        long a = strtol(p, &p, 10), b = *p == '-' ? strtol(p + 1, &p, 10) : a;
        n += b >= a ? (int)(b - a + 1) : 1;
        if (*p != ',') break;
        p++;
    }
    fclose(f);
    return n > 0 ? n : 1;
}

/* cpu0's data and unified caches by level (sysfs; else what sysconf says; else 32 KB, 1 MB);
 * their number. */
static int mb_caches(mb_cache c[MB_LEVELS])
{
    int n = 0;
    for (int i = 0; i < 16 && n < MB_LEVELS; i++) {
        char path[128], type[32] = "";
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        FILE *f = fopen(path, "r");
        if (!f) break;
        int got = fscanf(f, "%31s", type);
        fclose(f);
        double bytes = mb_sysfs_size(i, "size"), level = mb_sysfs_size(i, "level");
        if (got != 1 || !strcmp(type, "Instruction") || !(bytes > 0) || !(level > 0)) continue;
        c[n++] = (mb_cache){ (int)level, bytes, mb_sharing(i) };
    }
#ifdef _SC_LEVEL1_DCACHE_SIZE
    long sc[] = { sysconf(_SC_LEVEL1_DCACHE_SIZE), sysconf(_SC_LEVEL2_CACHE_SIZE), sysconf(_SC_LEVEL3_CACHE_SIZE) };
    if (!n)   /* every level sysconf knows, the first missing one ending them */
        for (int i = 0; i < 3 && sc[i] > 0 && n == i; i++) c[n++] = (mb_cache){ i + 1, (double)sc[i], 1 };
#endif
    if (!n) {
        c[0] = (mb_cache){ 1, 32768, 1 };
        c[1] = (mb_cache){ 2, 1048576, 1 };
        n = 2;
    }
    return n;
}

/* The kernels, each over its arguments only (noinline: the compiler sees no constant to fold). */
__attribute__((noinline)) static void mb_update(double *a, long n, double c, double d)
{
    for (long i = 0; i < n; i++) a[i] = a[i] * c + d;
}

__attribute__((noinline)) static void mb_poly(double *a, long n, double c, double d)
{
    for (long i = 0; i < n; i++) {
        double x = a[i];
        x = x * c + d; x = x * c + d; x = x * c + d; x = x * c + d;
        x = x * c + d; x = x * c + d; x = x * c + d; x = x * c + d;
        a[i] = x;
    }
}

/* The same, not vectorised. */
__attribute__((noinline, optimize("no-tree-vectorize"))) static void mb_update_scalar(double *a, long n, double c, double d)
{
    for (long i = 0; i < n; i++) a[i] = a[i] * c + d;
}

__attribute__((noinline, optimize("no-tree-vectorize"))) static void mb_poly_scalar(double *a, long n, double c, double d)
{
    for (long i = 0; i < n; i++) {
        double x = a[i];
        x = x * c + d; x = x * c + d; x = x * c + d; x = x * c + d;
        x = x * c + d; x = x * c + d; x = x * c + d; x = x * c + d;
        a[i] = x;
    }
}

__attribute__((noinline)) static long mb_chase(const long *next, long n)
{
    long at = 0;
    for (long i = 0; i < n; i++) at = next[at];
    return at;
}

__attribute__((noinline)) static double mb_accum(const double *w, const double *v, long n)
{
    double s = 0;
    for (long k = 0; k < n; k++) s = s + w[k] * v[k];
    return s;
}

/* y[j] = y[j] + w[k] v[j][k] for k < len inside j < rows: a chain of len additions for each j,
 * each waiting for the last, the next one independent (len a variable, as a tile's bounds are). */
__attribute__((noinline)) static void mb_chains(double *restrict y, const double *restrict w,
                                                const double *restrict v, long rows, long len)
{
    for (long j = 0; j < rows; j++)
        for (long k = 0; k < len; k++) y[j] = y[j] + w[k] * v[j * len + k];
}

/* y[j] = y[j] + c[k][j] x[k] for k inside j: an accumulation per j, the loop over j vectorised. */
__attribute__((noinline)) static void mb_lanes(const double *restrict c, const double *restrict x, double *restrict y)
{
    for (long j = 0; j < LANES_COLS; j++)
        for (long k = 0; k < LANES_ROWS; k++) y[j] = y[j] + c[k * LANES_COLS + j] * x[k];
}

/* y[i] = y[i] + c[i][j] x[j] for j < m, i < rows, rows `step` doubles apart: a walk down each
 * column, its elements independent of each other (no chain of additions: the walks of exported
 * loops, lu's and syrk's, update a row element by element). */
__attribute__((noinline)) static void mb_columns(const double *restrict c, const double *restrict x,
                                                 double *restrict y, long rows, long m, long step)
{
    for (long j = 0; j < m; j++) {
        const double xj = x[j];
        for (long i = 0; i < rows; i++) y[i] = y[i] + c[i * step + j] * xj;
    }
}

static inline long mb_max(long a, long b) { return a > b ? a : b; }
static inline long mb_min(long a, long b) { return a < b ? a : b; }

/* y[i][..] = y[i][..] + s[k] x[k][..] for rows i and k < rows, along rows of ENTRY_ROW in tiles of
 * `piece` columns (a variable), the tile loop outermost, the row's part bounded as an exported
 * tile's point loop is: an entry of the innermost loop per tile, row i and row k. */
__attribute__((noinline)) static void mb_entries(double *restrict y, const double *restrict x, const double *restrict s,
                                                 long rows, long piece)
{
    for (long pt = 0; pt < ENTRY_ROW; pt += piece)
        for (long i = 0; i < rows; i++)
            for (long k = 0; k < rows; k++)
                for (long p = mb_max(0, pt), p_end = mb_min(ENTRY_ROW - 1, pt + piece - 1); p <= p_end; p++)
                    y[i * ENTRY_ROW + p] = y[i * ENTRY_ROW + p] + s[k] * x[k * ENTRY_ROW + p];
}

/* The same from y's own rows k != i: how far apart the two rows lie is known at run time only. */
__attribute__((noinline)) static void mb_entries_checked(double *restrict y, const double *restrict s, long rows, long piece)
{
    for (long pt = 0; pt < ENTRY_ROW; pt += piece)
        for (long i = 0; i < rows; i++)
            for (long k = 0; k < rows; k++) {
                if (k == i) continue;
                for (long p = mb_max(0, pt), p_end = mb_min(ENTRY_ROW - 1, pt + piece - 1); p <= p_end; p++)
                    y[i * ENTRY_ROW + p] = y[i * ENTRY_ROW + p] + s[k] * y[k * ENTRY_ROW + p];
            }
}

__attribute__((noinline)) static void mb_rows(double *a, long rows, long part, double c, double d)
{
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < part; j++) a[i * ROW_LEN + j] = a[i * ROW_LEN + j] * c + d;
}

/* Two pieces of a rows x cols matrix, as the exporter lays a pieced memory out (its X_find): a
 * piece holds each row's columns rlo .. rhi from base; the search tries the pieces in order. */
typedef struct mb_piece { long lo, hi, *base, *rlo, *rhi; } mb_piece;

static inline long mb_find(const mb_piece *pc, long i, long j)
{
    for (int k = 0; k < 2; k++) {
        if (i < pc[k].lo || i > pc[k].hi) continue;
        const long r = i - pc[k].lo;
        if (j >= pc[k].rlo[r] && j <= pc[k].rhi[r]) return pc[k].base[r] + (j - pc[k].rlo[r]);
    }
    return -1;
}

__attribute__((noinline)) static void mb_searched(double *a, const mb_piece *pc, long rows, long cols, double c,
                                                  double d)
{
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < cols; j++) {
            const long o = mb_find(pc, i, j);
            if (o < 0) abort();
            a[o] = a[o] * c + d;
        }
}

typedef struct mb_ctx {
    MPI_Comm comm;
    int rank, quick;
    double c, d;         /* the update's constants (read at run time: nothing to fold) */
    double sink;
} mb_ctx;

/* A measurement: one of the kernels above and its arguments, `reps` calls a round. */
typedef enum { K_UPDATE, K_POLY, K_UPDATE_SCALAR, K_POLY_SCALAR, K_CHASE, K_ACCUM, K_CHAINS, K_LANES, K_COLUMNS, K_ROWS, K_SEARCHED,
               K_ENTRIES, K_ENTRIES_CHECKED } mb_kind;
typedef struct mb_job {
    mb_kind kind;
    double *a, *b;
    long *next;
    const mb_piece *pieces;
    long n, rows, m, step;
    int reps;
    int beyond;          /* beyond the caches: long rounds, MB_ROUNDS_LONG of them */
} mb_job;

static void mb_once(mb_ctx *x, const mb_job *j)
{
    switch (j->kind) {
    case K_UPDATE: mb_update(j->a, j->n, x->c, x->d); break;
    case K_POLY: mb_poly(j->a, j->n, x->c, x->d); break;
    case K_UPDATE_SCALAR: mb_update_scalar(j->a, j->n, x->c, x->d); break;
    case K_POLY_SCALAR: mb_poly_scalar(j->a, j->n, x->c, x->d); break;
    case K_CHASE: x->sink += (double)mb_chase(j->next, j->n); break;
    case K_ACCUM: x->sink += mb_accum(j->a, j->b, j->n); break;
    case K_CHAINS: mb_chains(j->b, j->a, j->a + j->m, j->rows, j->m); break;
    case K_LANES: mb_lanes(j->a, j->b + LANES_COLS, j->b); break;
    case K_COLUMNS: mb_columns(j->a, j->b + j->rows, j->b, j->rows, j->m, j->step); break;
    case K_ROWS: mb_rows(j->a, j->rows, j->m, x->c, x->d); break;
    case K_SEARCHED: mb_searched(j->a, j->pieces, j->rows, j->m, x->c, x->d); break;
    case K_ENTRIES: mb_entries(j->a, j->b, j->b + j->rows * ENTRY_ROW, j->rows, j->m); break;
    case K_ENTRIES_CHECKED: mb_entries_checked(j->a, j->b + j->rows * ENTRY_ROW, j->rows, j->m); break;
    }
}

/* Runs job j `reps` times a round on every rank at once: the slowest rank's seconds of the
 * fastest round, over `per` (elements, loads or rows a call). */
static double mb_time(mb_ctx *x, const mb_job *j, double per)
{
    double best = 0;
    mb_once(x, j);                                     /* warm: the pages touched, the caches filled */
    int rounds = j->beyond ? MB_ROUNDS_LONG : x->quick ? MB_ROUNDS_QUICK : MB_ROUNDS;
    for (int r = 0; r < rounds; r++) {
        MPI_Barrier(x->comm);
        double t0 = MPI_Wtime();
        for (int k = 0; k < j->reps; k++) mb_once(x, j);
        double t = (MPI_Wtime() - t0) / j->reps / per, tmax;
        MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, x->comm);
        if (r == 0 || tmax < best) best = tmax;
    }
    return best;
}

/* Repetitions for about `work` elements a round (at least 1). */
static int mb_reps(double work, double n) { return n >= work ? 1 : (int)(work / n); }

/* A random cycle through the cache lines of `bytes` (8 longs a line: one load per line). */
static long *mb_cycle(long bytes)
{
    long lines = bytes / 64, *next = calloc((size_t)lines * 8, sizeof *next), *order = malloc((size_t)lines * sizeof *order);
    for (long i = 0; i < lines; i++) order[i] = i;
    unsigned long s = 12345;
    for (long i = lines - 1; i > 0; i--) {
        s = s * 6364136223846793005UL + 1442695040888963407UL;
        long k = (long)((s >> 33) % (unsigned long)(i + 1)), t = order[i];
        order[i] = order[k];
        order[k] = t;
    }
    for (long i = 0; i < lines; i++) next[order[i] * 8] = order[(i + 1) % lines] * 8;
    free(order);
    return next;
}

/* The update's array over `bytes`: *n elements, each near 1 (the caller's to free). */
static double *mb_update_array(double bytes, long *n)
{
    *n = (long)(bytes / 8);
    double *a = malloc((size_t)*n * sizeof *a);
    for (long i = 0; i < *n; i++) a[i] = 1.0 + (double)(i % 7) * 1e-3;
    return a;
}

static void mb_level(mb_ctx *x, int level, double bytes, int poly)
{
    long n;
    double *a = mb_update_array(bytes, &n), work = 2e6;
    mb_job j = { K_UPDATE, a, NULL, NULL, NULL, n, 0, 0, 0, mb_reps(work, (double)n), level == 0 };
    double t = mb_time(x, &j, (double)n);
    if (x->rank == 0) printf("micro update %d %.0f %.9e\n", level, bytes, t);
    static const struct { mb_kind kind; const char *name; int share; } more[3] = {
        { K_POLY, "poly", 4 }, { K_UPDATE_SCALAR, "update_scalar", 1 }, { K_POLY_SCALAR, "poly_scalar", 8 } };
    for (int k = 0; poly && k < 3; k++) {
        j.kind = more[k].kind;
        j.reps = mb_reps(work / more[k].share, (double)n);
        t = mb_time(x, &j, (double)n);
        if (x->rank == 0) printf("micro %s %d %.0f %.9e\n", more[k].name, level, bytes, t);
    }
    free(a);
    long *next = mb_cycle((long)bytes);
    mb_job c = { K_CHASE, NULL, NULL, next, NULL, 200000, 0, 0, 0, 1, level == 0 };
    t = mb_time(x, &c, (double)c.n);
    if (x->rank == 0) printf("micro chase %d %.0f %.9e\n", level, bytes, t);
    free(next);
    if (level > 0) {
        long rows = 8;
        while ((rows + 8) * (rows + 11) * 8 <= (long)bytes) rows += 8;
        double *c = malloc((size_t)(rows * (rows + 3)) * sizeof *c), *xy = malloc((size_t)(2 * rows) * sizeof *xy);
        for (long i = 0; i < rows * (rows + 3); i++) c[i] = 1.0 + (double)(i % 11) * 1e-3;
        for (long i = 0; i < 2 * rows; i++) xy[i] = 1.0;
        mb_job w = { K_COLUMNS, c, xy, NULL, NULL, 0, rows, rows, rows + 3, mb_reps(work / 4, (double)(rows * rows)), 0 };
        t = mb_time(x, &w, (double)(rows * rows));
        if (x->rank == 0) printf("micro strided %d %.0f %.9e\n", level, bytes, t);
        free(c);
        free(xy);
    }
}

/* The update through two pieces (mb_searched) over `bytes` in the first level. */
static void mb_searched_time(mb_ctx *x, double bytes)
{
    long cols = 64, rows = (long)(bytes / 8 / cols), half = cols / 2;
    if (rows < 2) rows = 2;
    long *idx = malloc((size_t)(6 * rows) * sizeof *idx);
    mb_piece pc[2];
    for (int k = 0; k < 2; k++) {
        pc[k] = (mb_piece){ 0, rows - 1, idx + (3 * k) * rows, idx + (3 * k + 1) * rows, idx + (3 * k + 2) * rows };
        for (long r = 0; r < rows; r++) {
            pc[k].rlo[r] = k * half;
            pc[k].rhi[r] = k * half + half - 1;
            pc[k].base[r] = k * rows * half + r * half;
        }
    }
    double *a = malloc((size_t)(rows * cols) * sizeof *a);
    for (long i = 0; i < rows * cols; i++) a[i] = 1.0;
    mb_job s = { K_SEARCHED, a, NULL, NULL, pc, 0, rows, cols, 0, mb_reps(1e6, (double)(rows * cols)), 0 };
    double t = mb_time(x, &s, (double)(rows * cols));
    if (x->rank == 0) printf("micro searched 1 %.0f %.9e\n", bytes, t);
    free(a);
    free(idx);
}

/* The accumulation in chains of CHAIN_LEN (mb_chains) over about `bytes` in the first level: w
 * and the rows of v in a, y in b. */
static void mb_chains_time(mb_ctx *x, double bytes)
{
    long rows = (long)(bytes / 8 / CHAIN_LEN) - 1;
    if (rows < 1) rows = 1;
    const long n = rows * CHAIN_LEN;
    double *a = malloc((size_t)(n + CHAIN_LEN) * sizeof *a), *y = malloc((size_t)rows * sizeof *y);
    for (long i = 0; i < n + CHAIN_LEN; i++) a[i] = 1.0 + (double)(i % 5) * 1e-3;
    for (long i = 0; i < rows; i++) y[i] = 0;
    mb_job j = { K_CHAINS, a, y, NULL, NULL, 0, rows, CHAIN_LEN, 0, mb_reps(1e6, (double)n), 0 };
    double t = mb_time(x, &j, (double)n);
    if (x->rank == 0) printf("micro chains 1 %.0f %.9e\n", (double)(n + CHAIN_LEN) * 8, t);
    free(a);
    free(y);
}

/* A loop's entries (mb_entries, mb_entries_checked) over about `bytes` in the first level: y in a;
 * x, then s, in b.  Each pair of lines is timed whole and in pieces, seconds per piece. */
static void mb_entries_time(mb_ctx *x, double bytes)
{
    long rows = (long)(bytes / 8 / ENTRY_ROW / 2);
    if (rows < 4) rows = 4;
    const long n = rows * ENTRY_ROW;
    double *y = malloc((size_t)n * sizeof *y), *xs = malloc((size_t)(n + rows) * sizeof *xs);
    for (long i = 0; i < n; i++) y[i] = xs[i] = 1.0 + (double)(i % 5) * 1e-3;
    for (long k = 0; k < rows; k++) xs[n + k] = 1e-9;   /* s: y stays near 1 over the rounds */
    static const struct { mb_kind kind; const char *pieces, *whole; } kinds[2] = {
        { K_ENTRIES, "entries", "whole" }, { K_ENTRIES_CHECKED, "entries_checked", "whole_checked" } };
    for (int k = 0; k < 2; k++) {
        const double per = (double)(rows * (rows - k) * (ENTRY_ROW / ENTRY_PIECE));   /* pieces a call (k: i = k left out) */
        mb_job j = { kinds[k].kind, y, xs, NULL, NULL, 0, rows, ENTRY_PIECE, 0, mb_reps(1e6, (double)(rows * n)), 0 };
        double t = mb_time(x, &j, per);
        if (x->rank == 0) printf("micro %s 1 %.0f %.9e\n", kinds[k].pieces, (double)(2 * n) * 8, t);
        j.m = ENTRY_ROW;
        t = mb_time(x, &j, per);
        if (x->rank == 0) printf("micro %s 1 %.0f %.9e\n", kinds[k].whole, (double)(2 * n) * 8, t);
    }
    free(y);
    free(xs);
}

/* The accumulations a vector's lanes run side by side (mb_lanes), y and x beside the matrix. */
static void mb_lanes_time(mb_ctx *x)
{
    const long n = LANES_ROWS * LANES_COLS;
    double *c = malloc((size_t)n * sizeof *c), *xy = malloc((size_t)(LANES_COLS + LANES_ROWS) * sizeof *xy);
    for (long i = 0; i < n; i++) c[i] = 1.0 + (double)(i % 11) * 1e-3;
    for (long i = 0; i < LANES_COLS + LANES_ROWS; i++) xy[i] = 1.0;
    mb_job j = { K_LANES, c, xy, NULL, NULL, 0, 0, 0, 0, mb_reps(1e6, (double)n), 0 };
    double t = mb_time(x, &j, (double)n);
    if (x->rank == 0) printf("micro lanes 2 %.0f %.9e\n", (double)n * 8, t);
    free(c);
    free(xy);
}

/* The accumulation in the first level, the column walks and the partial rows beyond the caches. */
static void mb_patterns(mb_ctx *x, double l1, double beyond)
{
    long n = (long)(l1 / 16);
    double *w = malloc((size_t)n * sizeof *w), *v = malloc((size_t)n * sizeof *v);
    for (long i = 0; i < n; i++) w[i] = v[i] = 1.0 + (double)(i % 5) * 1e-3;
    mb_job j = { K_ACCUM, w, v, NULL, NULL, n, 0, 0, 0, mb_reps(1e6, (double)n), 0 };
    double t = mb_time(x, &j, (double)n);
    if (x->rank == 0) printf("micro accum 1 %.0f %.9e\n", l1, t);
    free(w);
    free(v);
    mb_chains_time(x, l1);
    mb_entries_time(x, l1);
    mb_lanes_time(x);
    mb_searched_time(x, l1);
    /* strided: 2000 rows as long as make `beyond` (a multiple of 1000 doubles, no power of two),
     * every column walked: no line stays in a cache from one sweep to the next, and the rows'
     * pages stay within the translation caches' reach, as a large kernel's do; aliased: 2000 rows
     * 8192 bytes apart (every element of a column in the same cache sets), 1000 columns */
    const long walk_rows = 2000, long_row = (long)(beyond / 8 / (double)walk_rows) / 1000 * 1000;
    const long steps[2] = { long_row > 2000 ? long_row : 2000, 1024 };
    static const char *const names[2] = { "strided", "aliased" };
    for (int k = 0; k < 2; k++) {
        long m = k == 0 ? steps[k] : x->quick ? 500 : 1000;
        double *c = malloc((size_t)(walk_rows * steps[k]) * sizeof *c);
        double *xy = malloc((size_t)(walk_rows + m) * sizeof *xy);
        for (long i = 0; i < walk_rows * steps[k]; i++) c[i] = 1.0 + (double)(i % 11) * 1e-3;
        for (long i = 0; i < walk_rows + m; i++) xy[i] = 1.0;
        mb_job s = { K_COLUMNS, c, xy, NULL, NULL, 0, walk_rows, m, steps[k], 1, 1 };
        t = mb_time(x, &s, (double)(walk_rows * m));
        if (x->rank == 0) printf("micro %s 0 %ld %.9e\n", names[k], steps[k] * 8, t);
        free(c);
        free(xy);
    }
    long rows = (long)(beyond / 8 / ROW_LEN);
    double *a = malloc((size_t)(rows * ROW_LEN) * sizeof *a);
    for (long i = 0; i < rows * ROW_LEN; i++) a[i] = 1.0;
    mb_job r = { K_ROWS, a, NULL, NULL, NULL, 0, rows, ROW_PART, 0, 1, 1 };
    t = mb_time(x, &r, (double)rows);
    if (x->rank == 0) printf("micro restart 0 %.0f %.9e\n", beyond, t);
    mb_job whole = { K_ROWS, a, NULL, NULL, NULL, 0, rows * ROW_PART / ROW_LEN, ROW_LEN, 0, 1, 1 };
    t = mb_time(x, &whole, (double)rows);
    if (x->rank == 0) printf("micro rows 0 %.0f %.9e\n", beyond, t);
    free(a);
}

/* The update's seconds an element over `bytes` on every rank at once. */
static double mb_update_time(mb_ctx *x, double bytes)
{
    long n;
    double *a = mb_update_array(bytes, &n);
    mb_job j = { K_UPDATE, a, NULL, NULL, NULL, n, 0, 0, 0, mb_reps(2e6, (double)n), bytes >= MB_LONG_BYTES };
    double t = mb_time(x, &j, (double)n);
    free(a);
    return t;
}

/* The last level as measured, not as described: a processor's share of a level beyond the
 * second is what a virtual machine's hypervisor says (a host's whole third level, hundreds of
 * megabytes), or a whole level its processors share unevenly.  The update is timed over twice
 * the second level's share, then twice that, up to the described share (at most `top`): the
 * level holds twice the largest size still nearer the second level's speed than memory's (at
 * most what is described), measured at half of it, as a described level is (mb_level).  That
 * size, 0 where even the first runs at memory's speed. */
static double mb_last_fast(mb_ctx *x, const mb_cache *prev, const mb_cache *last, double top)
{
    double share = last->bytes / last->sharing, from = prev->bytes / prev->sharing, found = 0;
    if (share > top) share = top;
    double t_prev = mb_update_time(x, from / 2), t_mem = mb_update_time(x, top);
    for (double s = 2 * from; s <= share; s *= 2) {
        if (mb_update_time(x, s) > t_prev + 0.5 * (t_mem - t_prev)) break;
        found = s;
    }
    return found;
}

void micro_run(MPI_Comm world, int quick)
{
    int wrank, wsize;
    MPI_Comm_rank(world, &wrank);
    MPI_Comm_size(world, &wsize);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int at_once = cpus > 0 && cpus < wsize ? (int)cpus : wsize;   /* the ranks' processors, as run here */
    mb_ctx x = { MPI_COMM_NULL, 0, quick, 0.999999, 1e-7, 0 };
    MPI_Comm_split(world, wrank < at_once ? 0 : MPI_UNDEFINED, wrank, &x.comm);
    if (x.comm != MPI_COMM_NULL) {
        MPI_Comm_rank(x.comm, &x.rank);
        mb_cache c[MB_LEVELS];
        int n = mb_caches(c);
        double top = quick ? 128e6 : 256e6;
        if (n >= 2 && c[n - 1].level >= 3) {
            double fast = mb_last_fast(&x, &c[n - 2], &c[n - 1], top);
            if (fast <= 0) n--;
            else if (2 * fast * c[n - 1].sharing < c[n - 1].bytes) c[n - 1].bytes = 2 * fast * c[n - 1].sharing;
        }
        double last = 0;
        for (int i = 0; i < n; i++) {
            if (x.rank == 0) printf("cache %d %.0f %d\n", c[i].level, c[i].bytes, c[i].sharing);
            mb_level(&x, c[i].level, c[i].bytes / c[i].sharing / 2, i == 0);
            if (c[i].bytes > last) last = c[i].bytes;
        }
        double beyond = 4 * last;
        if (beyond < 32e6) beyond = 32e6;
        if (beyond > top) beyond = top;
        mb_level(&x, 0, beyond, 0);
        mb_patterns(&x, c[0].bytes / c[0].sharing / 2, beyond);
        if (x.rank == 0 && x.sink == 42) printf("# %g\n", x.sink);   /* keeps the loads */
        fflush(stdout);
        MPI_Comm_free(&x.comm);
    }
    MPI_Barrier(world);
}
