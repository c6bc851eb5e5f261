/*
 * fd_seq_hand.c — the sequential baseline for exported findiff code: examples/findiff.apm written
 * straightforwardly in C, as a careful programmer would (two time planes, swapped each step), with
 * the program's exact arithmetic order so that the output checksum is bit-identical:
 *     a[0][x][y] = (x*31 + y*17) % 13
 *     a[t][x][y] = a[t-1][x][y]                                     on the border
 *     a[t][x][y] = (a[t-1][x-1][y] + a[t-1][x+1][y] + 4*a[t-1][x][y]
 *                   + a[t-1][x][y-1] + a[t-1][x][y+1]) / 8           inside
 * Usage: fd_seq_hand [N [STEPS]]  (defaults 256 21).  Prints, like exported programs,
 *     polyapm-result checksum=%016llx seconds=%.9f ranks=1
 * (checksum: FNV-1a 64 over a[steps] row-major, as sim_checksum; seconds: the time loop only).
 * Self-contained on purpose: no runtime/, no MPI.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t fnv_doubles(uint64_t h, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double d = v[i] == 0.0 ? 0.0 : v[i];
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        for (int k = 0; k < 8; k++) {
            h ^= (bits >> (8 * k)) & 0xffu;
            h *= UINT64_C(0x100000001b3);
        }
    }
    return h;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 256, steps = argc > 2 ? atol(argv[2]) : 21;
    if (n < 1 || steps < 0) {
        fprintf(stderr, "usage: fd_seq_hand [N >= 1 [STEPS >= 0]]\n");
        return 2;
    }
    size_t nn = (size_t)n;
    double *a = malloc(nn * nn * sizeof(double)), *b = malloc(nn * nn * sizeof(double));
    if (!a || !b) {
        fprintf(stderr, "fd_seq_hand: out of memory\n");
        return 1;
    }
    for (size_t x = 0; x < nn; x++)
        for (size_t y = 0; y < nn; y++)
            a[x * nn + y] = (double)((x * 31 + y * 17) % 13);
    memset(b, 0, nn * nn * sizeof(double));   /* touched before the clock, as fd_mpi_hand does and
                                                 exported programs do: no page faults timed */

    double t0 = now();
    for (long t = 1; t <= steps; t++) {
        memcpy(b, a, nn * sizeof(double));                            /* row 0 */
        for (size_t x = 1; x + 1 < nn; x++) {
            const double *up = a + (x - 1) * nn, *mid = a + x * nn, *down = a + (x + 1) * nn;
            double *out = b + x * nn;
            out[0] = mid[0];
            for (size_t y = 1; y + 1 < nn; y++)
                out[y] = (up[y] + down[y] + 4 * mid[y] + mid[y - 1] + mid[y + 1]) / 8;
            out[nn - 1] = mid[nn - 1];
        }
        if (nn > 1)
            memcpy(b + (nn - 1) * nn, a + (nn - 1) * nn, nn * sizeof(double));   /* row n-1 */
        double *s = a;
        a = b;
        b = s;
    }
    double seconds = now() - t0;

    uint64_t h = fnv_doubles(UINT64_C(0xcbf29ce484222325), a, nn * nn);
    printf("polyapm-result checksum=%016llx seconds=%.9f ranks=%d\n", (unsigned long long)h, seconds, 1);
    free(a);
    free(b);
    return 0;
}
