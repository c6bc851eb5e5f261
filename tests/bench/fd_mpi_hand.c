/*
 * fd_mpi_hand.c — the hand-written MPI baseline for exported findiff code: the five-point stencil
 * of examples/findiff.apm (see fd_seq_hand.c for the arithmetic, kept in the same order so that
 * the checksum is bit-identical) on a row-block distribution: rank r owns a balanced block of
 * consecutive rows x plus one halo row above and below; before each step the two halo rows are
 * exchanged with the neighbours by MPI_Sendrecv (contiguous, no packing); then each rank
 * computes its rows into the second time plane and the planes are swapped.
 * Usage: mpirun -np P fd_mpi_hand [N [STEPS]]  (defaults 256 21; P <= N).  Rank 0 prints
 *     polyapm-result checksum=%016llx seconds=%.9f ranks=P
 * (checksum: FNV-1a 64 over a[steps] row-major, rows gathered to rank 0 one rank at a time;
 * seconds: the time loop only, after a barrier, maximum over ranks).
 * Self-contained on purpose: no runtime/, only MPI.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 1 ? atol(argv[1]) : 256, steps = argc > 2 ? atol(argv[2]) : 21;
    if (n < 1 || steps < 0 || n < size) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -np P fd_mpi_hand [N >= P [STEPS >= 0]]\n");
        MPI_Finalize();
        return 2;
    }
    /* rows lo .. lo+cnt-1 are mine, stored at local rows 1 .. cnt; local 0 and cnt+1 are halos */
    size_t nn = (size_t)n;
    long cnt = n / size + (rank < n % size), lo = (n / size) * rank + (rank < n % size ? rank : n % size);
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    size_t plane = (size_t)(cnt + 2) * nn;
    double *a = malloc(plane * sizeof(double)), *b = malloc(plane * sizeof(double));
    if (!a || !b) {
        fprintf(stderr, "fd_mpi_hand: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(a, 0, plane * sizeof(double));
    memset(b, 0, plane * sizeof(double));
    for (long i = 0; i < cnt; i++)
        for (size_t y = 0; y < nn; y++)
            a[(size_t)(i + 1) * nn + y] = (double)(((size_t)(lo + i) * 31 + y * 17) % 13);

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long t = 1; t <= steps; t++) {
        /* first owned row up, last owned row down; the halos come back the other way */
        MPI_Sendrecv(a + nn, (int)nn, MPI_DOUBLE, up, 0, a + (size_t)(cnt + 1) * nn, (int)nn, MPI_DOUBLE,
                     down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(a + (size_t)cnt * nn, (int)nn, MPI_DOUBLE, down, 1, a, (int)nn, MPI_DOUBLE, up, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (long i = 1; i <= cnt; i++) {
            long x = lo + i - 1;
            const double *u = a + (size_t)(i - 1) * nn, *mid = a + (size_t)i * nn, *d = a + (size_t)(i + 1) * nn;
            double *out = b + (size_t)i * nn;
            if (x == 0 || x == n - 1) {
                memcpy(out, mid, nn * sizeof(double));
                continue;
            }
            out[0] = mid[0];
            for (size_t y = 1; y + 1 < nn; y++)
                out[y] = (u[y] + d[y] + 4 * mid[y] + mid[y - 1] + mid[y + 1]) / 8;
            out[nn - 1] = mid[nn - 1];
        }
        double *s = a;
        a = b;
        b = s;
    }
    double mine = MPI_Wtime() - t0, seconds;
    MPI_Reduce(&mine, &seconds, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    /* rank 0 hashes its rows, then every other rank's in rank order (global row-major order) */
    if (rank == 0) {
        uint64_t h = fnv_doubles(UINT64_C(0xcbf29ce484222325), a + nn, (size_t)cnt * nn);
        for (int r = 1; r < size; r++) {
            int rows = (int)(n / size + (r < n % size));
            MPI_Recv(b, rows * (int)nn, MPI_DOUBLE, r, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            h = fnv_doubles(h, b, (size_t)rows * nn);
        }
        printf("polyapm-result checksum=%016llx seconds=%.9f ranks=%d\n", (unsigned long long)h, seconds, size);
    } else {
        MPI_Send(a + nn, (int)(cnt * (long)nn), MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
    }
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
