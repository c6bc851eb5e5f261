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
 *     i read on the next turn) where the loops of the nest carry one to the other (one loop
 *     steps the subscripts by the difference, or each that differs is stepped alone by a
 *     loop, by a divisor of its difference: sim_offset_reached; heat-3d's wavefronts step
 *     their planes by three, or i and j together, and their rows are streams of their own); a stream
 *     that is read and written counts twice (LU's row of A: read, then written back), one read
 *     or written alone once (measured: jacobi-2d's two streams, a row read and a row written,
 *     run as fast a stream as LU's).
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
 * memory) by more than a cache line counts them (the trace's restarts).  Each entry of a loop is
 * counted here (sim_loop_entered): its restarts, and beside them the chains it begins and its
 * entry of an innermost loop (sim_classes.c decides which loops count them).
 *
 * Cached accesses: every other access that moves with the innermost loop, each load and each
 * store one, is an access to a row the caches keep (gemm's row of C, read and written on every
 * turn of k; jacobi's a[i - 1][j] and a[i + 1][j] beside the stream of a; a tile's rows): the
 * statement's `cached` (the trace's, priced at the first level's stream price: cost.h, `levels`).
 *
 * Register tiles (ir_regs_tile_of): the statement's element stays in a register across the loop
 * over k, loaded before it and stored after: its loads and stores are not cached accesses.
 *
 * Tiles: when the innermost loop and the reuse loop are the point loops of a tile (`j = max(..,
 * jt) .. min(.., jt + 31)`: at most 32 turns, sim_tile_trip) and cover at most SIM_TILE_BYTES of
 * a stream, a stream the loop around them (the next point loop: gemm tiled in i, k, j) does not
 * move is that tile's rows read again on its every turn, from the cache: the statement is
 * SIM_WORK_BLOCKED, and such streams do not start over (their accesses are cached).  They count
 * once an entry of the loop around, where its bounds say how many turns it makes (a block of
 * rows, sim_block_trip: a block-cyclic tiling's two rows read each tile of covariance's data
 * twice, a tile of 32 rows 32 times): a stream over that many instances.  Not when the loop
 * around them is the tile loop of one of them (a band of two loops tiled: jt, kt, j, k): on its
 * every turn the tile moves, and each row is read once.
 */
#include <string.h>

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

/* The open loops that affine value a names, directly or through the lets it names (their
 * affine values in turn), into loops[*n] (at most SIM_NEAR_LOOPS); 1 when it names a let of
 * another kind, or more lets than the budget follows (a subscript whose moves are not known).
 * The step's own variable is no open loop: its every turn sweeps the data. */
enum { SIM_NEAR_LOOPS = 16 };
static int sim_loops_named(const sim_ctx *c, const sim_aff *a, int *loops, int *n, int *lets)
{
    int opaque = 0;
    for (int i = 0; i < a->n; i++) {
        int s = a->slot[i];
        if (s < 0 || s >= c->prog->nslots) continue;
        const sim_node *v = c->let_def ? c->let_def[s] : NULL;
        if (v) {
            opaque |= --*lets <= 0 || v->op != SO_AFF || sim_loops_named(c, &v->aff, loops, n, lets);
            continue;
        }
        int known = !(c->loop_open && c->loop_open[s]);
        for (int k = 0; k < *n && !known; k++) known = loops[k] == s;
        if (!known && *n < SIM_NEAR_LOOPS) loops[(*n)++] = s;
    }
    return opaque;
}

/* Does loop `slot`, turning alone, bring access a's subscripts to b's: the same multiple of its
 * step in every subscript (jacobi's a[i + 1][j] is a[i][j] a turn of i later)? */
static int sim_loop_reaches(const sim_ctx *c, const sim_node *a, const sim_node *b, int slot)
{
    int64_t turns = 0;
    int seen = 0;
    for (int d = 0; d < a->n; d++) {
        if (a->sub[d].gen) continue;
        int64_t delta = a->sub[d].aff.c - b->sub[d].aff.c, step = sim_aff_stride(c, &a->sub[d].aff, slot);
        if (step == 0) {
            if (delta != 0) return 0;
            continue;
        }
        if (delta % step != 0 || (seen && delta / step != turns)) return 0;
        turns = delta / step;
        seen = 1;
    }
    return turns != 0;
}

/* Does a loop around the statement move subscript d alone, by a divisor of delta (a[i + 1][j + 1]
 * is a[i][j] a turn of i and a turn of j later: each moves its own subscript)? */
static int sim_axis_reaches(const sim_ctx *c, const sim_node *a, int d, int64_t delta, const int *loops, int n)
{
    for (int k = 0; k < n; k++) {
        int64_t step = sim_aff_stride(c, &a->sub[d].aff, loops[k]);
        int alone = step != 0 && delta % step == 0;
        for (int e = 0; e < a->n && alone; e++)
            alone = e == d || a->sub[e].gen || sim_aff_stride(c, &a->sub[e].aff, loops[k]) == 0;
        if (alone) return 1;
    }
    return 0;
}

/* Do the loops around a statement carry access a's row to b's (the two of one array, their
 * subscripts apart by constants): one loop reaches the whole offset (sim_loop_reaches), or each
 * subscript that differs is moved alone by a loop, by a divisor of its difference
 * (sim_axis_reaches)?  Each row is then read once, one stream.  Not heat-3d's wavefronts: the
 * plane `i = tt - 3 * t + 4` is three apart along t, and the diagonal `j = tt - 5 * t - i + 7`
 * moves i and j together along i, so that A[i - 1][j], A[i][j + 1] .. are rows read again only
 * steps later, every other row of the step read between: each is read from where the data lives
 * (a stream each). */
static int sim_offset_reached(const sim_ctx *c, const sim_node *a, const sim_node *b)
{
    int loops[SIM_NEAR_LOOPS], n = 0, lets = SIM_LET_BUDGET, opaque[SIM_MAXDIMS] = {0};
    for (int d = 0; d < a->n && d < SIM_MAXDIMS; d++)
        opaque[d] = !a->sub[d].gen && sim_loops_named(c, &a->sub[d].aff, loops, &n, &lets);
    for (int k = 0; k < n; k++)
        if (sim_loop_reaches(c, a, b, loops[k])) return 1;
    for (int d = 0; d < a->n; d++) {
        int64_t delta = a->sub[d].gen ? 0 : a->sub[d].aff.c - b->sub[d].aff.c;
        if (delta != 0 && !(d < SIM_MAXDIMS && opaque[d]) && !sim_axis_reaches(c, a, d, delta, loops, n)) return 0;
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
        if (sim_same_stream(set->first[i], n) && sim_offset_reached(c, set->first[i], n)) break;
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

/* V + k, k + V or V (k = 0) with V a loop variable: 1 with its name, its slot and k, else 0. */
static int sim_var_plus(const ir_expr *e, const char **var, int *slot, int64_t *k)
{
    const ir_expr *a = e, *b = NULL;
    if (e->kind == IR_E_BINARY && e->u.op.op == IR_OP_ADD) {
        a = e->u.op.a->kind == IR_E_NAME ? e->u.op.a : e->u.op.b;
        b = a == e->u.op.a ? e->u.op.b : e->u.op.a;
    }
    if (a->kind != IR_E_NAME || a->u.name.nk != IR_N_LOOPVAR || (b && b->kind != IR_E_INT)) return 0;
    *var = a->u.name.id;
    *slot = a->u.name.index;
    *k = b ? b->u.ival : 0;
    return 1;
}

int64_t sim_tile_trip(const ir_loopvar *v, int *tile_slot)
{
    const ir_expr *hi = v->hi;
    int n = hi->kind == IR_E_CALL && hi->u.call.f == IR_F_MIN ? hi->u.call.nargs : 1;
    int64_t trip = 0, step = 1;
    *tile_slot = -1;
    /* a jam's group loop (`jj = jt .. min(.., jt + 31) step 4`) runs its tile's rows in steps */
    if (v->step && (v->step->kind != IR_E_INT || v->step->u.ival < 1 || v->step->u.ival >= IR_JAM_MAX)) return 0;
    if (v->step) step = v->step->u.ival;
    for (int i = 0; i < n; i++) {
        const char *var;
        int slot;
        int64_t k;
        if (sim_var_plus(n > 1 ? hi->u.call.args[i] : hi, &var, &slot, &k) && k >= 0 && ir_max_names(v->lo, var) &&
            (!trip || k + 1 < trip))
            trip = k + 1, *tile_slot = slot;
    }
    return (trip + step - 1) / step;
}

/* The bounds n is the min (op SO_MINI) or max (SO_MAXI) of, affine ones (a variable, a constant),
 * at most SIM_BOUND_ARGS, into a; their number. */
enum { SIM_BOUND_ARGS = 8 };
static int sim_bound_args(const sim_node *n, sim_op op, sim_aff *a, int at)
{
    if (!n) return at;
    if (n->op == SO_MEMO) return sim_bound_args(n->a, op, a, at);   /* remembered: its value */
    if (n->op == op) {
        for (int i = 0; n->args && i < n->n; i++) at = sim_bound_args(n->args[i], op, a, at);
        return sim_bound_args(n->b, op, a, sim_bound_args(n->a, op, a, at));
    }
    if (at >= SIM_BOUND_ARGS) return at;
    if (n->op == SO_AFF) a[at++] = n->aff;
    else if (n->op == SO_LI) a[at++] = (sim_aff){ .c = 0, .n = 1, .slot = { n->slot }, .coef = { 1 } };
    else if (n->op == SO_CI) a[at++] = (sim_aff){ .c = n->ival };
    return at;
}

/* The turns of `loop` where its bounds say them: hi = lo + k, or min(.., lo + k) with lo or
 * max(.., lo): at most k + 1 (a block-cyclic tiling's p = bs * kb .. min(.., bs * kb + bs - 1),
 * a tile's point loop); 0 when they do not. */
static int64_t sim_block_trip(const sim_stmt *loop)
{
    if (!loop || loop->step) return 0;
    sim_aff lo[SIM_BOUND_ARGS], hi[SIM_BOUND_ARGS];
    int nlo = sim_bound_args(loop->lo, SO_MAXI, lo, 0), nhi = sim_bound_args(loop->hi, SO_MINI, hi, 0);
    int64_t trip = 0, delta;
    for (int i = 0; i < nlo; i++)
        for (int k = 0; k < nhi; k++)
            if ((lo[i].n || hi[k].n) && sim_aff_shift(&lo[i], &hi[k], &delta) && delta >= 0 &&
                (!trip || delta + 1 < trip))
                trip = delta + 1;
    return trip;
}

/* A statement in a tile's point loops: the streams the loop around them does not move are the
 * tile's rows read again from the cache; they leave the set, and the statement is blocked.
 * Their streams an instance, where the loop around says its turns (sim_block_trip), are the
 * return value: each entry of that loop reads the tile once.  Their other accesses are the
 * statement's tile_reads, their tiles' bytes its tile_bytes (for each such stream the point
 * loop's turns, or the columns a loop over register tiles around it sweeps, by the rows the
 * reuse loop covers): how far apart two reads of a row are. */
static double sim_stream_tiles(const sim_ctx *c, sim_stmt *st, sim_stream_set *set)
{
    if (!c->loop_trip || !c->reuse_trip || c->outer_slot < 0 ||
        (double)c->loop_trip * (double)c->reuse_trip * 8 > SIM_TILE_BYTES)
        return 0;
    /* the loop around them is one of their own tile loops (a band of two: jt, kt, j, k): its
     * every turn moves the tile, and no row is read again */
    if (c->outer_slot == c->loop_tile || c->outer_slot == c->reuse_tile) return 0;
    int k = 0, tiles = 0;
    double tile = 0;
    for (int i = 0; i < set->n; i++) {
        int lets = SIM_LET_BUDGET;
        if (sim_node_moves(c, set->first[i], c->outer_slot, &lets)) {
            set->first[k] = set->first[i];
            set->read[k] = set->read[i];
            set->written[k++] = set->written[i];
        } else {
            tile += set->read[i] && set->written[i] ? 2 : 1;
            tiles++;
        }
    }
    if (k < set->n) st->wclass = SIM_WORK_BLOCKED;
    set->n = k;
    int64_t turns = sim_block_trip(c->loop_open ? c->loop_open[c->outer_slot] : NULL);
    double streams = turns > 0 ? tile / (double)turns : 0;
    st->tile_reads = tile - streams;
    int64_t cols = c->regs_span > c->loop_trip ? c->regs_span : c->loop_trip;
    st->tile_bytes = (double)tiles * (double)cols * (double)c->reuse_rows * 8;
    return streams;
}

/* The accesses of n that move with loop `in`, each one (a load), reductions left out. */
static double sim_moving_accesses(const sim_ctx *c, const sim_node *n, int in)
{
    if (!n || n->op == SO_REDD || n->op == SO_REDI) return 0;
    if (sim_is_access(n->op)) {
        int lets = SIM_LET_BUDGET;
        return sim_node_moves(c, n, in, &lets) ? 1 : 0;
    }
    double k = sim_moving_accesses(c, n->a, in) + sim_moving_accesses(c, n->b, in) + sim_moving_accesses(c, n->c, in);
    for (int i = 0; n->args && i < n->n; i++) k += sim_moving_accesses(c, n->args[i], in);
    return k;
}

void sim_stmt_streams(const sim_ctx *c, sim_stmt *st)
{
    st->streams = st->stream_ratio = st->cached = st->tile_reads = st->tile_bytes = 0;
    if (st->wclass != SIM_WORK_UNIT) return;
    double rs = 0, rt = 0;
    sim_stream_terms(c, st->rhs, c->loop_slot, &rs, &rt);
    if (rt > 0) { st->stream_ratio = rs / rt; return; }   /* its class is its reductions' */
    if (c->loop_slot < 0) return;
    sim_stream_set set = {0};
    sim_stream_add(c, &set, st->lhs, c->loop_slot, c->reuse_slot, 1);
    sim_stream_walk(c, &set, st->rhs, c->loop_slot, c->reuse_slot);
    double tile = sim_stream_tiles(c, st, &set);
    st->streams = sim_stream_count(&set) + tile;
    /* every other load or store that moves with the loop finds its row in the caches */
    double moving = sim_moving_accesses(c, st->lhs, c->loop_slot) + sim_moving_accesses(c, st->rhs, c->loop_slot);
    st->cached = moving > st->streams ? moving - st->streams : 0;
    if (st->tile_reads > st->cached) st->tile_reads = st->cached;
    st->stream_rows = set.n;
    st->stream_array = set.n ? set.first[0]->array : -1;
}

/* The accesses of n to `array`. */
static double sim_accesses_of(const sim_node *n, int array)
{
    if (!n) return 0;
    if (sim_is_access(n->op)) return n->array == array;
    double k = sim_accesses_of(n->a, array) + sim_accesses_of(n->b, array) + sim_accesses_of(n->c, array);
    for (int i = 0; n->args && i < n->n; i++) k += sim_accesses_of(n->args[i], array);
    return k;
}

void sim_stmt_regs(sim_stmt *st)
{
    if (st->wclass != SIM_WORK_UNIT && st->wclass != SIM_WORK_BLOCKED) return;
    double regs = sim_accesses_of(st->lhs, st->lhs->array) + sim_accesses_of(st->rhs, st->lhs->array);
    st->cached = st->cached > regs ? st->cached - regs : 0;
    if (st->tile_reads > st->cached) st->tile_reads = st->cached;
}

/* Adds assignment a's stream rows to loop's (sim_loop_assigns). */
static void sim_restarts_add(sim_stmt *loop, const sim_stmt *a, void *arg)
{
    (void)arg;
    if (a->stream_rows <= 0) return;
    if (!loop->restart_rows) loop->stream_array = a->stream_array;
    loop->restart_rows += a->stream_rows;
}

void sim_loop_restarts(sim_stmt *loop)
{
    loop->restart_rows = 0;
    loop->stream_array = -1;
    sim_loop_assigns(loop, loop->body, sim_restarts_add, NULL);
}

/* (sim_int.h) What an entry of loop s, cnt turns of step st, adds to the processor's counts: the
 * chains it begins, its entry when it is an innermost loop (sim_loop_entries; as full tiles, a
 * tile's point loop's turns over its extent) and its restarts when it covers part of a row. */
void sim_loop_entered(sim_ctx *c, const sim_stmt *s, uint64_t cnt, int64_t st)
{
    c->chains += s->chain_starts;
    if (s->entry) {
        double full = s->tile_trip > 0 ? (double)cnt / (double)s->tile_trip : 1;
        c->entries += 1;
        c->full_entries += full;
        if (s->entry == SIM_ENTRY_CHECKED) {
            c->alias_checks += 1;
            c->full_checks += full;
        }
    }
    if (s->restart_rows && c->mem) {   /* a partial row: its streams start over */
        const sim_mem *m = &c->mem[s->stream_array];
        if (m->ndims > 0 && (double)cnt * (double)st + SIM_LINE_DOUBLES < (double)m->ext[m->ndims - 1])
            c->restarts += s->restart_rows;
    }
}
