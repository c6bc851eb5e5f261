/*
 * rt_init.c — MPI start and stop, rank and size, the rank-count checks that make a program started
 * with an unsupported number of ranks say so and exit non-zero, and the error path shared by the
 * whole runtime (RT_CHECK, rt_die, rt_malloc, rt_malloc_pages).
 */
#define _GNU_SOURCE   /* posix_memalign, madvise */
#include "rt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

void rt_init(int *argc, char ***argv)
{
    int rc = MPI_Init(argc, argv);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "polyapm-rt: MPI_Init failed (error %d)\n", rc);
        exit(RT_EXIT_ERROR);
    }
    RT_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
}

void rt_finalize(void)
{
    RT_CHECK(MPI_Finalize());
}

int rt_rank(MPI_Comm comm)
{
    int r;
    RT_CHECK(MPI_Comm_rank(comm, &r));
    return r;
}

int rt_size(MPI_Comm comm)
{
    int s;
    RT_CHECK(MPI_Comm_size(comm, &s));
    return s;
}

/* Every rank knows the size, so every rank reaches the same verdict: rank 0 explains, all leave
 * cleanly with the same status (no MPI_Abort noise about killed processes). */
static void rt_ranks_refuse(const char *want, int got, const char *why)
{
    if (rt_rank(MPI_COMM_WORLD) == 0) {
        fprintf(stderr, "polyapm-rt: this program needs %s MPI ranks but was started with %d%s%s%s\n",
                want, got, why && *why ? " (" : "", why && *why ? why : "", why && *why ? ")" : "");
        fflush(stderr);
    }
    MPI_Finalize();
    exit(RT_EXIT_RANKS);
}

void rt_require_ranks(int expected_or_0, const char *why)
{
    int got = rt_size(MPI_COMM_WORLD);
    if (expected_or_0 <= 0 || got == expected_or_0)
        return;
    char want[64];
    snprintf(want, sizeof want, "exactly %d (mpirun -np %d)", expected_or_0, expected_or_0);
    rt_ranks_refuse(want, got, why);
}

int rt_require_square_ranks(const char *why)
{
    int got = rt_size(MPI_COMM_WORLD);
    int q = 1;
    while ((q + 1) * (q + 1) <= got)
        q++;
    if (q * q != got)
        rt_ranks_refuse("a square number of (1, 4, 9, 16, ...)", got, why);
    return q;
}

_Noreturn static void rt_abort(void)
{
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    fflush(stdout);
    fflush(stderr);
    if (up && !down)
        MPI_Abort(MPI_COMM_WORLD, RT_EXIT_ERROR);
    exit(RT_EXIT_ERROR);
}

static int rt_rank_or_minus1(void)
{
    int up = 0, down = 0, r = -1;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (up && !down)
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

void rt_check_(int rc, const char *call, const char *file, int line)
{
    if (rc == MPI_SUCCESS)
        return;
    char msg[MPI_MAX_ERROR_STRING + 1] = "unknown error";
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof msg, "error code %d", rc);
    fprintf(stderr, "polyapm-rt: rank %d: %s:%d: %s failed: %s\n",
            rt_rank_or_minus1(), file, line, call, msg);
    rt_abort();
}

_Noreturn void rt_die(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "polyapm-rt: rank %d: ", rt_rank_or_minus1());
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    rt_abort();
}

void *rt_malloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        rt_die("out of memory (%zu bytes)", bytes);
    return p;
}

enum { RT_HUGE_PAGE = 2 << 20 };

void *rt_malloc_pages(size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (bytes >= RT_HUGE_PAGE) {
        size_t whole = (bytes + RT_HUGE_PAGE - 1) & ~(size_t)(RT_HUGE_PAGE - 1);
        void *p = NULL;
        if (posix_memalign(&p, RT_HUGE_PAGE, whole) != 0) rt_die("out of memory (%zu bytes)", bytes);
        (void)madvise(p, whole, MADV_HUGEPAGE);   /* a request: refused, the pages stay small */
        return p;
    }
#endif
    return rt_malloc(bytes);
}

void *rt_calloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        rt_die("out of memory (%zu x %zu bytes)", n, size);
    return p;
}
