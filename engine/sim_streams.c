/*
 * sim_streams.c — the streams of a unit-stride statement (sim.h, the trace's `streams`): how many
 * rows of array elements an instance moves between the processor and where its data lives, as
 * against the ticks of its operations.  Two statements of like ticks can move very different
 * traffic: gemm's `C[i][j] += a * A[i][k] * B[k][j]` (k, then j innermost) reads a row of B per
 * k and keeps the row of C in the first-level cache across k, while LU's `A[i][j] -= A[i][k] *
 * A[k][j]` (i, then j) keeps the row k and reads and writes a new row of A for every i.
 *
 * Decided when the statement is compiled, from its innermost loop (j) and the loop around it
 * (the reuse loop, i or k), as a cache sees them:
 *   - an access that does not move with j is a register or a cache line held: no stream;
 *   - one that moves with j but not with the reuse loop reads the same row again on every turn
 *     of that loop (a row is small beside the caches): no stream;
 *   - the others stream.  Accesses of one array whose subscripts differ by constants alone are
 *     one stream (jacobi's a[i - 1][j], a[i][j], a[i + 1][j]: the row i + 1 read now is the row
 *     i read on the next turn); a stream that is read and written counts twice (LU's row of A:
 *     read, then written back), one read or written alone once (measured: jacobi-2d's two
 *     streams, a row read and a row written, run as fast a stream as LU's).
 * Without a reuse loop in the step (a loop alone in the step body, or a top-level loop of a
 * source program, which sweeps the whole array on every turn of the time loop) every moving
 * access streams.  The variables of `let`s count as what their values move with.  A reduction's
 * body (`sum(k = ..)`) is counted per term against k and the statement's loop, and priced per
 * tick of the reduction (the statement's ratio).
 *
 * Restarts: a stream runs on across rows when its loop covers whole rows (the next row follows
 * in memory: the hardware prefetcher keeps going); when the loop covers part of a row (LU's
 * trailing rows, j = k + 1 .. n - 1 of n) each entry starts its streams over.  The loop knows the
 * streams of the assignments whose innermost loop it is (restart_rows) and one array they run
 * along; each entry whose trip falls short of that array's rows (in the processor's local
 * memory) by more than a cache line counts them (the trace's restarts).
 */
#include "sim_int.h"

enum { SIM_LET_BUDGET = 64, SIM_MAX_STREAMS = 32 };   /* lets followed a question (sim_node_moves); streams kept */

/* Do accesses a and b reach the same array with subscripts that differ by constants alone? */
static int sim_same_stream(const sim_node *a, const sim_node *b)
{
    if (a->array != b->array || a->n != b->n) return 0;
    for (int d = 0; d < a->n; d++) {
        const sim_sub *x = &a->sub[d], *y = &b->sub[d];
        if (x->gen || y->gen) { if (x->gen != y->gen) return 0; continue; }
        if (x->aff.n != y->aff.n) return 0;
        for (int i = 0; i < x->aff.n; i++)
            if (x->aff.slot[i] != y->aff.slot[i] || x->aff.coef[i] != y->aff.coef[i]) return 0;
    }
    return 1;
}

/* The streams found so far: one access of each, and whether it is written. */
typedef struct sim_stream_set {
    const sim_node *first[SIM_MAX_STREAMS];
    int read[SIM_MAX_STREAMS], written[SIM_MAX_STREAMS];
    int n;
} sim_stream_set;

/* Access n into the set when it streams against the innermost loop `in` and the reuse loop
 * `out` (< 0: none). */
static void sim_stream_add(const sim_ctx *c, sim_stream_set *set, const sim_node *n, int in, int out, int written)
{
    int lets = SIM_LET_BUDGET;
    if (!sim_node_moves(c, n, in, &lets)) return;
    lets = SIM_LET_BUDGET;
    if (out >= 0 && !sim_node_moves(c, n, out, &lets)) return;
    int i = 0;
    for (; i < set->n; i++)
        if (sim_same_stream(set->first[i], n)) break;
    if (i == SIM_MAX_STREAMS) return;
    if (i == set->n) { set->first[set->n++] = n; set->read[i] = set->written[i] = 0; }
    set->read[i] |= !written;
    set->written[i] |= written;
}

/* The accesses of n against (in, out), reductions left out (their terms are counted apart). */
static void sim_stream_walk(const sim_ctx *c, sim_stream_set *set, const sim_node *n, int in, int out)
{
    if (!n || n->op == SO_REDD || n->op == SO_REDI) return;
    if (sim_is_access(n->op)) { sim_stream_add(c, set, n, in, out, 0); return; }
    sim_stream_walk(c, set, n->a, in, out);
    sim_stream_walk(c, set, n->b, in, out);
    sim_stream_walk(c, set, n->c, in, out);
    for (int i = 0; n->args && i < n->n; i++) sim_stream_walk(c, set, n->args[i], in, out);
}

static double sim_stream_count(const sim_stream_set *set)
{
    double k = 0;
    for (int i = 0; i < set->n; i++) k += set->read[i] && set->written[i] ? 2 : 1;
    return k;
}

/* A reduction's terms: their streams and ticks summed over the reductions of n (against their
 * variables and the statement's loop `out`). */
static void sim_stream_terms(const sim_ctx *c, const sim_node *n, int out, double *streams, double *ticks)
{
    if (!n) return;
    if (n->op == SO_REDD || n->op == SO_REDI) {
        sim_stream_set set = {0};
        sim_stream_walk(c, &set, n->c, n->slot, out);
        *streams += sim_stream_count(&set);
        *ticks += n->dticks;
        return;
    }
    sim_stream_terms(c, n->a, out, streams, ticks);
    sim_stream_terms(c, n->b, out, streams, ticks);
    sim_stream_terms(c, n->c, out, streams, ticks);
    for (int i = 0; n->args && i < n->n; i++) sim_stream_terms(c, n->args[i], out, streams, ticks);
}

void sim_stmt_streams(const sim_ctx *c, sim_stmt *st)
{
    st->streams = st->stream_ratio = 0;
    if (st->wclass != SIM_WORK_UNIT) return;
    double rs = 0, rt = 0;
    sim_stream_terms(c, st->rhs, c->loop_slot, &rs, &rt);
    if (rt > 0) { st->stream_ratio = rs / rt; return; }   /* its class is its reductions' */
    if (c->loop_slot < 0) return;
    sim_stream_set set = {0};
    sim_stream_add(c, &set, st->lhs, c->loop_slot, c->reuse_slot, 1);
    sim_stream_walk(c, &set, st->rhs, c->loop_slot, c->reuse_slot);
    st->streams = sim_stream_count(&set);
    st->stream_rows = set.n;
    st->stream_array = set.n ? set.first[0]->array : -1;
}

/* Adds the stream rows of the assignments of s not under another loop to loop's. */
static void sim_restarts_walk(sim_stmt *loop, const sim_stmt *s)
{
    if (!s) return;
    switch (s->kind) {
    case SS_BLOCK: for (int i = 0; i < s->n; i++) sim_restarts_walk(loop, s->s[i]); return;
    case SS_IF: sim_restarts_walk(loop, s->then_); sim_restarts_walk(loop, s->else_); return;
    case SS_ASSIGN:
        if (s->stream_rows > 0) {
            if (!loop->restart_rows) loop->stream_array = s->stream_array;
            loop->restart_rows += s->stream_rows;
        }
        return;
    default: return;
    }
}

void sim_loop_restarts(sim_stmt *loop)
{
    loop->restart_rows = 0;
    loop->stream_array = -1;
    sim_restarts_walk(loop, loop->body);
}
