/*
 * tests/mpi/t_exchange.c — drives rt_exchange for tests/mpi/exchange.sh.  Over several steps every
 * rank puts a pseudo-random number of records (0 to a few thousand, so the buffers must grow, and
 * often none) to every rank including itself; after each rt_exchange_run every rank regenerates
 * what each source must have sent it and checks counts, order, indices and values, the grouping of
 * rt_exchange_received and rt_exchange_apply.  The last steps put their records as runs
 * (rt_exchange_put_run: indices start, start + 3, .., values from an array, in chunks of random
 * lengths, one of them growing the buffers in its middle), which must arrive as the same puts.  Also checks rt_exscan (rank 0 gets the identity)
 * with a user-defined operator on the thesis-reference input.  Rank 0 prints one summary line:
 *     exchange ranks=P steps=S records=N errors=E
 *     exscan errors=E
 */
#include "rt.h"

#include <stdio.h>
#include <stdlib.h>

/* splitmix64: the pattern of one (step, src, dst) triple, reproducible on both sides */
static uint64_t mix(uint64_t z)
{
    z += UINT64_C(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static uint64_t seed(int step, int src, int dst)
{
    return mix(((uint64_t)step << 40) ^ ((uint64_t)src << 20) ^ (uint64_t)dst);
}

enum { STEPS = 8, RUN_STEPS = 6 };   /* steps RUN_STEPS.. put runs */

/* how many records src sends dst at step: none a quarter of the time, a burst at steps 3 and 7 */
static int count_of(int step, int src, int dst)
{
    uint64_t s = seed(step, src, dst);
    if (s % 4 == 0)
        return 0;
    return (int)((s >> 8) % (step == 3 || step == 7 ? 5000u : 40u));
}

static int64_t index_of(int step, int src, int dst, int k)
{
    if (step >= RUN_STEPS)   /* a run: start, start + 3, .. */
        return (int64_t)(seed(step, src, dst) % 500000u) + 3 * (int64_t)k;
    return (int64_t)(mix(seed(step, src, dst) + (uint64_t)k + 1) % 1000000u);
}

static double value_of(int step, int src, int dst, int k)
{
    return (double)src * 1e6 + (double)dst * 1e3 + k + step * 0.125;
}

static void sum_int64(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    for (int i = 0; i < *len; i++)
        ((int64_t *)inout)[i] += ((int64_t *)in)[i];
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    MPI_Comm w = MPI_COMM_WORLD;
    int rank = rt_rank(w), size = rt_size(w), steps = STEPS;
    long long errors = 0, records = 0;
    rt_exchange *x = rt_exchange_new(w);
    double *base = rt_calloc(1000000, sizeof(double));
    unsigned char *seen = rt_calloc(1000000, 1);

    for (int step = 0; step < steps; step++) {
        for (int d = 0; d < size; d++) {
            int n = count_of(step, rank, d);
            if (step < RUN_STEPS) {
                for (int k = 0; k < n; k++)
                    rt_exchange_put(x, d, index_of(step, rank, d, k), value_of(step, rank, d, k));
                continue;
            }
            double *vals = rt_malloc(((size_t)n + 1) * sizeof *vals);
            for (int k = 0; k < n; k++)
                vals[k] = value_of(step, rank, d, k);
            for (int k = 0; k < n;) {   /* chunks of 0 .. 2999 records (an empty run puts none) */
                int len = (int)(mix(seed(step, rank, d) ^ (uint64_t)k) % 3000u);
                if (len > n - k)
                    len = n - k;
                rt_exchange_put_run(x, d, index_of(step, rank, d, k), 3, vals + k, len);
                k += len;
            }
            free(vals);
        }
        rt_exchange_run(x);
        const rt_record *all, *from;
        size_t nall = rt_exchange_received(x, &all), expect_all = 0;
        for (int s = 0; s < size; s++) {
            size_t n = rt_exchange_received_from(x, s, &from);
            size_t want = (size_t)count_of(step, s, rank);
            if (n != want) {
                if (errors++ < 5)
                    fprintf(stderr, "rank %d step %d: %zu records from %d, want %zu\n", rank, step, n, s, want);
                continue;
            }
            if (n && from != all + expect_all && errors++ < 5)
                fprintf(stderr, "rank %d step %d: records from %d not at their place in the whole\n",
                        rank, step, s);
            expect_all += n;
            for (size_t k = 0; k < n; k++)
                if (from[k].index != index_of(step, s, rank, (int)k) ||
                    from[k].value != value_of(step, s, rank, (int)k)) {
                    if (errors++ < 5)
                        fprintf(stderr, "rank %d step %d: record %zu from %d is (%lld, %g)\n", rank, step,
                                k, s, (long long)from[k].index, from[k].value);
                    break;
                }
        }
        if (nall != expect_all && errors++ < 5)
            fprintf(stderr, "rank %d step %d: %zu records in all, want %zu\n", rank, step, nall, expect_all);
        records += (long long)nall;
        /* apply: the last record received for an index wins */
        rt_exchange_apply(x, base);
        for (size_t k = nall; k-- > 0;) {
            int64_t i = all[k].index;
            if (!seen[i] && base[i] != all[k].value && errors++ < 5)
                fprintf(stderr, "rank %d step %d: apply left base[%lld] = %g, want %g\n", rank, step,
                        (long long)i, base[i], all[k].value);
            seen[i] = 1;
        }
        for (size_t k = 0; k < nall; k++)
            seen[all[k].index] = 0;
    }
    long long sent = rt_exchange_sent_total(x), sent_all = 0, errors_all = 0, records_all = 0;
    RT_CHECK(MPI_Reduce(&errors, &errors_all, 1, MPI_LONG_LONG, MPI_SUM, 0, w));
    RT_CHECK(MPI_Reduce(&records, &records_all, 1, MPI_LONG_LONG, MPI_SUM, 0, w));
    RT_CHECK(MPI_Reduce(&sent, &sent_all, 1, MPI_LONG_LONG, MPI_SUM, 0, w));
    if (rank == 0)
        printf("exchange ranks=%d steps=%d records=%lld sent=%lld errors=%lld\n", size, steps,
               records_all, sent_all, errors_all);
    rt_exchange_free(x);
    free(base);
    free(seen);

    /* exclusive scan over the thesis's reference input, distributed in balanced blocks */
    static const int64_t in[10] = {6, 7, 6, 3, 8, 2, 8, 4, 8, 3};
    static const int64_t excl[10] = {0, 6, 13, 19, 22, 30, 32, 40, 44, 52};
    int64_t lo, cnt, local = 0, before = -1, ident = 0;
    rt_balanced_range(10, size, rank, &lo, &cnt);
    for (int64_t i = lo; i < lo + cnt; i++)
        local += in[i];
    MPI_Op op = rt_op_create(sum_int64, 1);
    rt_exscan(&local, &before, 1, MPI_INT64_T, op, &ident, w);
    rt_op_free(&op);
    long long bad = 0, bad_all = 0;
    for (int64_t i = lo; i < lo + cnt; i++) {
        bad += before != excl[i];
        before += in[i];
    }
    if (cnt == 0 && rank == 0 && before != 0)
        bad++;
    RT_CHECK(MPI_Reduce(&bad, &bad_all, 1, MPI_LONG_LONG, MPI_SUM, 0, w));
    if (rank == 0)
        printf("exscan errors=%lld\n", bad_all);
    rt_finalize();
    return 0;
}
