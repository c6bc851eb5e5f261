/*
 * bench.c — the calibration benchmark of `polyapm calibrate` (thesis §4.4), a plain C+MPI program
 * with no dependency on the rest of polyapm.  It prints raw measurements, one per line; polyapm
 * fits them (engine/calib.c).  Times are seconds per operation (means over `reps` calls).
 *
 *   tick SECONDS                    one floating multiply in a memory-bound loop (1e8 of them)
 *   exchange P SECONDS              the constant part of a coalesced exchange on P ranks: an
 *                                   alltoall of counts and an empty alltoallv (§4.4.3)
 * The constant part is timed as exported programs meet it, once per time step: each exchange
 * after a step's computation (step_work, some 25 microseconds of flops), the exchange's call alone
 * timed (the wait for a partner that arrives late included; timing the step less its computation
 * timed apart is at the mercy of the computation's own noise on a shared machine)
 * — back to back exchanges miss what a step costs when one rank arrives late (descheduled on a
 * loaded machine, or on a slower core) — in batches, the median batch's mean: a batch in which a
 * rank lost its core for a time slice (milliseconds, against steps of microseconds) is an
 * outlier, not what a step usually costs.  The send and receive series stay back to back (their
 * slopes per message are what is fitted from them).
 *   send P X SECONDS                the exchange where the primary rank (0) sends X messages of
 *                                   20 bytes to every other rank, each of which sends it one (§4.4.4)
 *   recv P X SECONDS                the opposite: every other rank sends X messages to rank 0
 *   pingpong BYTES SECONDS          half a round trip between ranks 0 and 1 (Hockney t_s, t_w)
 *   hrel P H SECONDS                an h-relation: every rank sends H doubles spread over the others
 *                                   and receives as many, plus the superstep's barrier (BSP g, l)
 *   barrier P SECONDS               MPI_Barrier
 *   loggp K BYTES SECONDS           (P = 2) half a round trip of bursts: rank 0 posts K Isend of
 *                                   BYTES to rank 1 and waits; rank 1, its K Irecv posted, waits
 *                                   and answers with K of BYTES; K = 1, 2, 4, 8 at a few sizes.
 *                                   LogGP (Alexandrov et al.) says K·o + L + o + G·K·words: the
 *                                   slope in K is o (plus G a message's words), the intercept
 *                                   L + o; the median of batches (interleaved over K and BYTES,
 *                                   so that a slow spell is no one point's)
 *
 * Before them, the microbenchmarks of the processor and its memory (micro.c: cache, micro lines).
 *
 * Usage: mpirun -np N bench [quick]   (P runs over 2..N on sub-communicators of the first P ranks;
 * `quick` uses fewer repetitions and message counts, for tests).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "micro.h"

enum { MSG_BYTES = 20, XMAX = 512 };

typedef struct bench {
    MPI_Comm comm;
    int rank, size;
    int *scount, *sdispl, *rcount, *rdispl;
    char *sbuf, *rbuf;
    double *mem;                  /* where received messages are unmarshalled */
} bench;

enum { STEP_FLOPS = 8000 };
static double step_sink;

/* A time step's computation between two exchanges: a chain of dependent flops. */
static void step_work(void)
{
    double s = step_sink;
    for (int i = 0; i < STEP_FLOPS; i++) s = s * 0.9999999 + 1e-9;
    step_sink = s;
}

/* Mean seconds of step_work alone (this rank). */
static double time_work(int reps)
{
    step_work();
    double t0 = MPI_Wtime();
    for (int r = 0; r < reps; r++) step_work();
    return (MPI_Wtime() - t0) / reps;
}

/* One coalesced exchange as the thesis's send_msgs_a2a: counts by alltoall, data by alltoallv,
 * then the received messages unmarshalled into memory.  `out[j]` = messages to rank j. */
static void exchange(bench *b, const int *out)
{
    int off = 0;
    for (int j = 0; j < b->size; j++) {
        b->scount[j] = out[j] * MSG_BYTES;
        b->sdispl[j] = off;
        for (int k = 0; k < out[j]; k++) memcpy(b->sbuf + off + k * MSG_BYTES, &k, sizeof k);
        off += b->scount[j];
    }
    MPI_Alltoall(b->scount, 1, MPI_INT, b->rcount, 1, MPI_INT, b->comm);
    off = 0;
    for (int j = 0; j < b->size; j++) { b->rdispl[j] = off; off += b->rcount[j]; }
    MPI_Alltoallv(b->sbuf, b->scount, b->sdispl, MPI_BYTE, b->rbuf, b->rcount, b->rdispl,
                  MPI_BYTE, b->comm);
    for (int m = 0; m < off / MSG_BYTES; m++) {
        int idx;
        double v;
        memcpy(&idx, b->rbuf + m * MSG_BYTES, sizeof idx);
        memcpy(&v, b->rbuf + m * MSG_BYTES + 8, sizeof v);
        b->mem[idx % XMAX] = v;
    }
}

/* Mean seconds of `reps` exchanges where rank j sends out[j] messages to each peer; with `work`,
 * each after a step's computation, the exchange's call alone timed. */
static double time_exchange(bench *b, int reps, int primary_sends, int x, int work)
{
    int *out = calloc((size_t)b->size, sizeof *out);
    for (int j = 0; j < b->size; j++) {
        if (j == b->rank) continue;
        if (primary_sends < 0) out[j] = 0;                       /* constant cost only */
        else if (primary_sends) out[j] = b->rank == 0 ? x : (j == 0);
        else out[j] = b->rank == 0 ? 1 : (j == 0 ? x : 0);
    }
    exchange(b, out);                                             /* warm up */
    MPI_Barrier(b->comm);
    double t0 = MPI_Wtime(), in = 0;
    for (int r = 0; r < reps; r++) {
        if (!work) { exchange(b, out); continue; }
        step_work();
        double e0 = MPI_Wtime();
        exchange(b, out);
        in += MPI_Wtime() - e0;
    }
    double t = work ? in / reps : (MPI_Wtime() - t0) / reps, tmax;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, b->comm);
    free(out);
    return tmax;
}

enum { CONST_BATCHES = 15 };

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The constant cost of an exchange (rank 0's value): the median of `batches` batches of `reps`
 * steps, each step some computation and an empty exchange, the exchange's call timed. */
static double time_constant(bench *b, int batches, int reps)
{
    double t[CONST_BATCHES];
    if (batches > CONST_BATCHES) batches = CONST_BATCHES;
    for (int k = 0; k < batches; k++) t[k] = time_exchange(b, reps, -1, 0, 1);
    qsort(t, (size_t)batches, sizeof *t, cmp_double);
    return t[batches / 2];
}

static double tick(void)
{
    enum { N = 1 << 23, TOTAL = 100000000 };                      /* 64 MB, 1e8 multiplies */
    double *a = malloc(N * sizeof *a), f[64];
    for (int i = 0; i < N; i++) a[i] = 1.0 + (i % 7) * 1e-9;
    for (int i = 0; i < 64; i++) f[i] = 1.0 + (i % 3) * 1e-12;
    double t0 = MPI_Wtime();
    long done = 0;
    while (done < TOTAL) {
        for (int i = 0; i < N; i++) a[i] = a[i] * f[i & 63];
        done += N;
    }
    double t = (MPI_Wtime() - t0) / (double)done;
    double s = 0;
    for (int i = 0; i < N; i += 4096) s += a[i];
    if (s == 42.0) printf("# %g\n", s);                           /* keeps the loop */
    free(a);
    return t;
}

static void pingpong(bench *b, int quick)
{
    char *buf = calloc(1 << 16, 1);
    for (int bytes = 8; bytes <= 1 << 16; bytes *= 2) {
        int reps = quick ? 50 : 200;
        MPI_Barrier(b->comm);
        double t0 = MPI_Wtime();
        for (int r = 0; r < reps; r++) {
            if (b->rank == 0) {
                MPI_Send(buf, bytes, MPI_BYTE, 1, 0, b->comm);
                MPI_Recv(buf, bytes, MPI_BYTE, 1, 0, b->comm, MPI_STATUS_IGNORE);
            } else if (b->rank == 1) {
                MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, b->comm, MPI_STATUS_IGNORE);
                MPI_Send(buf, bytes, MPI_BYTE, 0, 0, b->comm);
            }
        }
        double t = (MPI_Wtime() - t0) / reps / 2;
        if (b->rank == 0) printf("pingpong %d %.9e\n", bytes, t);
    }
    free(buf);
}

static void hrelation(bench *b, int quick)
{
    int peers = b->size - 1;
    int hmax = 8192;
    double *sb = calloc((size_t)hmax + (size_t)b->size, sizeof *sb);
    double *rb = calloc((size_t)hmax + (size_t)b->size, sizeof *rb);
    for (int h = 256; h <= hmax; h += quick ? 1024 : 256) {
        int per = (h + peers - 1) / peers, off = 0;
        for (int j = 0; j < b->size; j++) {
            b->scount[j] = j == b->rank ? 0 : per;
            b->sdispl[j] = off;
            b->rdispl[j] = off;
            off += b->scount[j];
        }
        int reps = quick ? 10 : 40;
        MPI_Barrier(b->comm);
        double t0 = MPI_Wtime();
        for (int r = 0; r < reps; r++) {
            MPI_Alltoallv(sb, b->scount, b->sdispl, MPI_DOUBLE, rb, b->scount, b->rdispl,
                          MPI_DOUBLE, b->comm);
            MPI_Barrier(b->comm);
        }
        double t = (MPI_Wtime() - t0) / reps, tmax;
        MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, b->comm);
        if (b->rank == 0) printf("hrel %d %d %.9e\n", b->size, per * peers, tmax);
    }
    free(sb);
    free(rb);
}

enum { BURST_KMAX = 8, BURST_BATCHES = 15, BURST_SIZES = 4, BURST_MAXBYTES = 2048 };
/* below every transport's eager limit (Open MPI's shared memory: 4 KB; SMPI's detached sends:
 * 64 KB): a larger message waits for its receiver, a protocol LogGP does not price */
static const int burst_bytes[BURST_SIZES] = {8, 256, 1024, BURST_MAXBYTES};

/* Mean seconds of half a round trip of k-message bursts between ranks 0 and 1 over `reps`
 * (rank 0's clock; rank 1's value is not used). */
static double burst_batch(bench *b, int k, int bytes, int reps, char *sbuf, char *rbuf)
{
    MPI_Request req[2 * BURST_KMAX];
    int peer = 1 - b->rank;
    MPI_Barrier(b->comm);
    double t0 = MPI_Wtime();
    for (int r = 0; r < reps; r++) {
        for (int m = 0; m < k; m++)
            MPI_Irecv(rbuf + m * bytes, bytes, MPI_BYTE, peer, m, b->comm, &req[m]);
        if (b->rank == 1) MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
        for (int m = 0; m < k; m++)
            MPI_Isend(sbuf + m * bytes, bytes, MPI_BYTE, peer, m, b->comm, &req[k + m]);
        if (b->rank == 0) MPI_Waitall(2 * k, req, MPI_STATUSES_IGNORE);
        else MPI_Waitall(k, req + k, MPI_STATUSES_IGNORE);
    }
    return (MPI_Wtime() - t0) / reps / 2;
}

/* The loggp series on ranks 0 and 1 (P = 2): each (K, BYTES) point the median of its batches. */
static void bursts(bench *b, int quick)
{
    enum { NK = 4 };
    static const int ks[NK] = {1, 2, 4, BURST_KMAX};
    double t[NK][BURST_SIZES][BURST_BATCHES];
    int batches = quick ? 5 : BURST_BATCHES, reps = quick ? 20 : 100;
    char *sbuf = calloc(BURST_KMAX, BURST_MAXBYTES), *rbuf = calloc(BURST_KMAX, BURST_MAXBYTES);
    for (int i = 0; i < batches; i++)
        for (int k = 0; k < NK; k++)
            for (int s = 0; s < BURST_SIZES; s++)
                t[k][s][i] = burst_batch(b, ks[k], burst_bytes[s], reps, sbuf, rbuf);
    for (int k = 0; k < NK && b->rank == 0; k++)
        for (int s = 0; s < BURST_SIZES; s++) {
            qsort(t[k][s], (size_t)batches, sizeof t[k][s][0], cmp_double);
            printf("loggp %d %d %.9e\n", ks[k], burst_bytes[s], t[k][s][batches / 2]);
        }
    free(sbuf);
    free(rbuf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int quick = argc > 1 && strcmp(argv[1], "quick") == 0;
    int wrank, wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize < 2) {
        if (wrank == 0) fprintf(stderr, "calibrate: needs at least 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    if (wrank == 0) printf("ranks %d\ntick %.9e\n", wsize, tick());
    if (wrank == 0) printf("# step_work %.3e s\n", time_work(2000));
    fflush(stdout);
    if (wrank == 0) fprintf(stderr, "calibrate: [1/%d] the processor and its caches (microbenchmarks)\n", wsize);
    micro_run(MPI_COMM_WORLD, quick);
    for (int P = 2; P <= wsize; P++) {
        bench b = {0};
        if (wrank == 0) fprintf(stderr, "calibrate: [%d/%d] messages on %d ranks\n", P, wsize, P);
        MPI_Comm_split(MPI_COMM_WORLD, wrank < P ? 0 : MPI_UNDEFINED, wrank, &b.comm);
        if (b.comm != MPI_COMM_NULL) {
            MPI_Comm_rank(b.comm, &b.rank);
            MPI_Comm_size(b.comm, &b.size);
            b.scount = calloc((size_t)P, sizeof(int));
            b.sdispl = calloc((size_t)P, sizeof(int));
            b.rcount = calloc((size_t)P, sizeof(int));
            b.rdispl = calloc((size_t)P, sizeof(int));
            b.sbuf = calloc((size_t)XMAX * (size_t)P, MSG_BYTES);
            b.rbuf = calloc((size_t)XMAX * (size_t)P, MSG_BYTES);
            b.mem = calloc(XMAX, sizeof(double));
            int reps = quick ? 20 : 300;
            double t = time_constant(&b, quick ? 5 : CONST_BATCHES, quick ? 20 : 100);
            if (b.rank == 0) printf("exchange %d %.9e\n", P, t);
            for (int dir = 1; dir >= 0; dir--)
                for (int x = 0; x <= XMAX; x += quick ? 8 : 4) {
                    t = time_exchange(&b, reps, dir, x, 0);
                    if (b.rank == 0) printf("%s %d %d %.9e\n", dir ? "send" : "recv", P, x, t);
                }
            MPI_Barrier(b.comm);
            double t0 = MPI_Wtime();
            for (int r = 0; r < reps * 5; r++) MPI_Barrier(b.comm);
            t = (MPI_Wtime() - t0) / (reps * 5);
            if (b.rank == 0) printf("barrier %d %.9e\n", P, t);
            if (P == 2) pingpong(&b, quick);
            if (P == 2) bursts(&b, quick);
            hrelation(&b, quick);
            fflush(stdout);
            MPI_Comm_free(&b.comm);
            free(b.scount); free(b.sdispl); free(b.rcount); free(b.rdispl);
            free(b.sbuf); free(b.rbuf); free(b.mem);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
