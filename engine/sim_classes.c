/*
 * sim_classes.c — the work classes of assignments (sim.h, SIM_WORK_*), decided while compiling:
 * whether an access moves with a loop (following lets), an assignment's class by its reductions'
 * bodies or by how its accesses move with the innermost loop, and the strided accumulation a
 * two-loop nest around one statement makes.  Compiling (sim_compile.c) calls it; the trace
 * counts each class's ticks.
 */
#include <stdlib.h>

#include "sim_int.h"

/* ---- work classes (sim.h, SIM_WORK_*) -------------------------------------------------------- */

int sim_is_access(sim_op op) { return op == SO_ACCD || op == SO_ACCI || op == SO_ACCD_SR || op == SO_ACCI_SR; }

static int64_t sim_aff_coef(const sim_aff *a, int slot)
{
    int64_t k = 0;
    for (int i = 0; i < a->n; i++) if (a->slot[i] == slot) k += a->coef[i];
    return k;
}

static int sim_aff_moves(const sim_ctx *c, const sim_aff *a, int slot, int *lets);

/* Does let variable s's value change with `slot`?  Each let followed spends one of *lets (a let
 * defined through itself, or chains of lets read many times, end there: not moving). */
static int sim_let_moves(const sim_ctx *c, int s, int slot, int *lets)
{
    if (!lets || *lets <= 0 || !c->let_def || s < 0 || s >= c->prog->nslots || !c->let_def[s]) return 0;
    --*lets;
    return sim_node_moves(c, c->let_def[s], slot, lets);
}

/* Does a's value change with `slot`: its coefficient of it, or (lets) a let term whose value does. */
static int sim_aff_moves(const sim_ctx *c, const sim_aff *a, int slot, int *lets)
{
    if (sim_aff_coef(a, slot)) return 1;
    if (slot >= 0 && slot == c->jam_base && sim_aff_coef(a, c->jam_slot)) return 1;   /* a jam's turn */
    for (int i = 0; lets && i < a->n; i++)
        if (a->coef[i] && a->slot[i] != slot && sim_let_moves(c, a->slot[i], slot, lets)) return 1;
    return 0;
}

int sim_node_moves(const sim_ctx *c, const sim_node *n, int slot, int *lets)
{
    if (!n) return 0;
    if (n->op == SO_LI || n->op == SO_LD || n->op == SO_MEMO)
        if (n->slot == slot || (slot >= 0 && slot == c->jam_base && n->slot == c->jam_slot) ||
            sim_let_moves(c, n->slot, slot, lets))
            return 1;
    if ((n->op == SO_AFF || n->op == SO_CMPAFF) && sim_aff_moves(c, &n->aff, slot, lets)) return 1;
    if (sim_is_access(n->op)) {
        for (int d = 0; d < n->n; d++)
            if (n->sub[d].gen ? sim_node_moves(c, n->sub[d].gen, slot, lets) : sim_aff_moves(c, &n->sub[d].aff, slot, lets))
                return 1;
        return 0;
    }
    if (sim_node_moves(c, n->a, slot, lets) || sim_node_moves(c, n->b, slot, lets) || sim_node_moves(c, n->c, slot, lets))
        return 1;
    for (int i = 0; n->args && i < n->n; i++) if (sim_node_moves(c, n->args[i], slot, lets)) return 1;
    return 0;
}

/* (sim_int.h) the let table sim_node_moves follows, allocated at the first let. */
void sim_let_define(sim_ctx *c, int slot, sim_node *value)
{
    if (slot < 0 || slot >= c->prog->nslots) return;
    if (!c->let_def && !(c->let_def = sim_alloc(c, (size_t)c->prog->nslots * sizeof *c->let_def))) return;
    c->let_def[slot] = value;   /* sim_alloc's memory starts zeroed: no let yet */
}

enum { SIM_ALIAS_BYTES = 4096 };

/* How far a's value moves when `slot` steps by one: its coefficient of slot plus, for each let it
 * names whose value is affine (`let j = tt - 5 * p - i`), that let's step times a's coefficient of
 * it; 0 when it does not move, and 1 where a let moves it some other way (a unit step assumed). */
static int64_t sim_aff_step(const sim_ctx *c, const sim_aff *a, int slot, int *lets)
{
    int64_t step = sim_aff_coef(a, slot);
    for (int i = 0; i < a->n; i++) {
        int s = a->slot[i];
        if (!a->coef[i] || s == slot || !lets || *lets <= 0 || !c->let_def || s < 0 || s >= c->prog->nslots ||
            !c->let_def[s])
            continue;
        const sim_node *v = c->let_def[s];
        --*lets;
        if (v->op == SO_AFF) step += a->coef[i] * sim_aff_step(c, &v->aff, slot, lets);
        else if (sim_node_moves(c, v, slot, lets)) step += a->coef[i];
    }
    return step;
}

/* STRIDED, or ALIASED when a step in dimension d of the array is a multiple of SIM_ALIAS_BYTES
 * (its global rows' lengths, as the exported arrays lay them out; not a pieced dist's, whose
 * export packs each row at its own length). */
static int sim_walk_class(const sim_ctx *c, int array, int ndims, int d)
{
    if (!c->ab || (c->dists && c->dists[array] && ir_dist_is_pieced(c->dists[array]))) return SIM_WORK_STRIDED;
    int64_t step = 8;
    for (int k = d + 1; k < ndims; k++) step *= c->ab[array].hi[k] - c->ab[array].lo[k] + 1;
    return step > 0 && step % SIM_ALIAS_BYTES == 0 ? SIM_WORK_ALIASED : SIM_WORK_STRIDED;
}

enum { SIM_CLASS_LETS = 64 };   /* lets followed a subscript (sim_node_moves) */

/* Is n integer arithmetic on variables and constants alone: no element read, no reduction, no
 * repetition, no random number, no double? */
static int sim_node_plain_int(const sim_node *n)
{
    if (!n) return 1;
    switch (n->op) {
    case SO_CI: case SO_LI: case SO_AFF: case SO_ADDI: case SO_SUBI: case SO_MULI: case SO_DIVI: case SO_MODI:
    case SO_NEGI: case SO_LTI: case SO_LEI: case SO_GTI: case SO_GEI: case SO_EQI: case SO_NEI: case SO_AND:
    case SO_OR: case SO_NOT: case SO_ANDN: case SO_ORN: case SO_MINI: case SO_MAXI: case SO_ABSI: case SO_CEILDIV:
    case SO_MEMO: case SO_CMPAFF: case SO_SELI: case SO_BANDI: case SO_BORI: case SO_BXORI:
        break;
    default:
        return 0;
    }
    if (!sim_node_plain_int(n->a) || !sim_node_plain_int(n->b) || !sim_node_plain_int(n->c)) return 0;
    for (int i = 0; n->args && i < n->n; i++) if (!sim_node_plain_int(n->args[i])) return 0;
    return 1;
}

int sim_cond_invariant(const sim_ctx *c, const sim_node *cond)
{
    int lets = SIM_CLASS_LETS;
    return c->loop_slot >= 0 && sim_node_plain_int(cond) && !sim_node_moves(c, cond, c->loop_slot, &lets);
}

int64_t sim_aff_stride(const sim_ctx *c, const sim_aff *a, int slot)
{
    int lets = SIM_CLASS_LETS;
    int64_t step = sim_aff_step(c, a, slot, &lets);
    if (slot >= 0 && slot == c->jam_base) step += sim_aff_coef(a, c->jam_slot);   /* a jam's turn */
    return step;
}

/* Does a subscript that moves with `slot` move one element a step (either way)?  Not when its
 * step is several elements (a skewed wavefront's `j = tt - 5 * p - i`), nor when the loop itself
 * steps by more than one (a cyclic tiling's `step procs` over its columns). */
static int sim_unit_step(const sim_ctx *c, const sim_aff *a, int slot)
{
    int lets = SIM_CLASS_LETS;
    int64_t step = sim_aff_step(c, a, slot, &lets);
    return step >= -1 && step <= 1 && !(slot == c->loop_slot && c->loop_stepped);
}

/* How access n moves with loop variable `slot`: SCALAR when it does not, UNIT when only its last
 * subscript moves, one element a step (sim_unit_step), else STRIDED or ALIASED (sim_walk_class:
 * no vector load covers the walk); SEARCHED when it lies in a memory whose elements are found
 * through its pieces, inside that loop (slot >= 0), moving or not.  A subscript moves through
 * the lets it names (`let j = p` of a space-time mapped program: A[i][j] moves with p). */
static int sim_access_class(const sim_ctx *c, const sim_node *n, int slot)
{
    int cls = SIM_WORK_SCALAR;
    for (int d = 0; d < n->n; d++) {
        const sim_sub *sb = &n->sub[d];
        int lets = SIM_CLASS_LETS;
        int moves = sb->gen ? sim_node_moves(c, sb->gen, slot, &lets) : sim_aff_moves(c, &sb->aff, slot, &lets);
        if (!moves) continue;
        int along = d == n->n - 1 && (sb->gen || sim_unit_step(c, &sb->aff, slot));
        cls = along ? SIM_WORK_UNIT : sim_walk_class(c, n->array, n->n, d);
        if (!along) break;
    }
    /* an element found through its pieces, one at a time: no stream the compiler vectorises, and
     * the search made on every turn of the loop even where the element stays (covariance's
     * cov[i][j] across its k loop: the exported X_at call is not moved out of it) */
    if (slot >= 0 && c->dists && c->dists[n->array] && ir_dist_searched(c->dists[n->array], n->n))
        return SIM_WORK_SEARCHED;
    return cls;
}

/* The classes of n's accesses against `slot` (their largest in *acc) and of the bodies of its
 * reductions against their own variables (their largest in *red, which stays -1 without one). */
static void sim_class_walk(const sim_ctx *c, const sim_node *n, int slot, int *acc, int *red)
{
    if (!n) return;
    if (sim_is_access(n->op)) {
        int k = sim_access_class(c, n, slot);
        if (k > *acc) *acc = k;
        return;
    }
    if (n->op == SO_REDD || n->op == SO_REDI) {
        int body = SIM_WORK_SCALAR, inner = -1;
        sim_class_walk(c, n->c, n->slot, &body, &inner);
        if (inner > body) body = inner;        /* a nested reduction is the innermost loop */
        if (body > *red) *red = body;
        return;
    }
    sim_class_walk(c, n->a, slot, acc, red);
    sim_class_walk(c, n->b, slot, acc, red);
    sim_class_walk(c, n->c, slot, acc, red);
    for (int i = 0; n->args && i < n->n; i++) sim_class_walk(c, n->args[i], slot, acc, red);
}

/* An assignment's work class: by its reductions' bodies when it has any (their loops are the
 * innermost), else by how its accesses move with the innermost loop around it (none: SCALAR).
 * Statements under `cost N` are SCALAR: the annotation is their price. */
int sim_stmt_class(const sim_ctx *c, const sim_stmt *st)
{
    if (st->has_cost || c->in_cost) return SIM_WORK_SCALAR;
    int acc = SIM_WORK_SCALAR, red = -1;
    sim_class_walk(c, st->rhs, c->loop_slot, &acc, &red);
    if (red >= 0) return red;
    if (c->loop_slot < 0) return SIM_WORK_SCALAR;
    sim_class_walk(c, st->lhs, c->loop_slot, &acc, &red);
    return acc;
}

/* The one statement other than `let`s of a loop's body (st itself when it is not a block), or NULL. */
static sim_stmt *sim_only_stmt(sim_stmt *st)
{
    if (!st || st->kind != SS_BLOCK) return st;
    sim_stmt *one = NULL;
    for (int i = 0; i < st->n; i++) {
        if (st->s[i]->kind == SS_LET) continue;
        if (one) return NULL;
        one = st->s[i];
    }
    return one;
}

/* Is n's value the same wherever it is computed: constants and parameters only (the exported
 * code's constants), no variable, let or access? */
static int sim_node_fixed(const sim_node *n)
{
    if (!n) return 1;
    if (n->op == SO_MEMO) return sim_node_fixed(n->a);   /* remembered: its value's */
    if (n->op == SO_LI || n->op == SO_LD || sim_is_access(n->op) || n->op == SO_REDI ||
        n->op == SO_REDD || n->op == SO_CRAND || n->op == SO_CLRAND48 || n->op == SO_CDRAND48)
        return 0;
    if (n->op == SO_AFF || n->op == SO_CMPAFF)
        for (int i = 0; i < n->aff.n; i++) if (n->aff.coef[i]) return 0;
    for (int i = 0; n->args && i < n->n; i++) if (!sim_node_fixed(n->args[i])) return 0;
    return sim_node_fixed(n->a) && sim_node_fixed(n->b) && sim_node_fixed(n->c);
}

/* The outer loop of two around one strided accumulation: `for j { for k { x[..][j] = x[..][j] +
 * .. b[k][j] .. } }`, its target fixed while k runs, whose every access moves with j in its last
 * subscript alone: b[k][j .. j+7] share a cache line, read across the j loop: the statement is
 * an accumulation, not a walk.  Where k's bounds are fixed (sim_node_fixed), gcc vectorises the
 * loop over j, a chain for each lane (SIM_WORK_LANES: 2mm's exported loops, whose bounds are the
 * program's constants); where they change at run time, it vectorises the products along k and
 * adds them one after the other: one chain (SIM_WORK_ACCUM).  `sum(..)`'s loops are neither (the
 * exporter gives them an accumulator and code around them, which leaves the nest imperfect). */
void sim_class_outer(const sim_ctx *c, sim_stmt *outer)
{
    sim_stmt *inner = sim_only_stmt(outer->body);
    if (!inner || inner->kind != SS_FOR) return;
    sim_stmt *a = sim_only_stmt(inner->body);
    if (!a || !sim_is_assign(a) || (a->wclass != SIM_WORK_STRIDED && a->wclass != SIM_WORK_ALIASED)) return;
    if (sim_access_class(c, a->lhs, inner->slot) != SIM_WORK_SCALAR) return;
    int acc = SIM_WORK_SCALAR, red = -1;
    sim_class_walk(c, a->rhs, outer->slot, &acc, &red);
    if (red < 0 && acc == SIM_WORK_UNIT && sim_access_class(c, a->lhs, outer->slot) == SIM_WORK_UNIT) {
        int fixed = sim_node_fixed(inner->lo) && sim_node_fixed(inner->hi) && sim_node_fixed(inner->step);
        a->wclass = fixed ? SIM_WORK_LANES : SIM_WORK_ACCUM;
        a->walks = 0;
        a->walk_chain = 0;
        inner->chain_starts += !fixed;   /* an entry of the loop over k begins its chain */
    }
}

/* (sim_int.h) each assignment of a loop's body not under another loop */
void sim_loop_assigns(sim_stmt *loop, const sim_stmt *s, void (*visit)(sim_stmt *loop, const sim_stmt *a, void *arg),
                      void *arg)
{
    if (!s) return;
    switch (s->kind) {
    case SS_BLOCK: for (int i = 0; i < s->n; i++) sim_loop_assigns(loop, s->s[i], visit, arg); return;
    case SS_IF: sim_loop_assigns(loop, s->then_, visit, arg); sim_loop_assigns(loop, s->else_, visit, arg); return;
    case SS_ASSIGN: case SS_ASSUMED: visit(loop, s, arg); return;
    default: return;
    }
}

/* Counts assignment a, an accumulation along its loop (chain_along), in loop's chains. */
static void sim_chains_add(sim_stmt *loop, const sim_stmt *a, void *arg)
{
    (void)arg;
    loop->chain_starts += a->chain_along;
}

/* The accumulations along a loop whose targets stay put while the loop around it turns. */
typedef struct sim_kept { const sim_ctx *c; int slot, n; } sim_kept;

/* Counts assignment a in k->n when it is an accumulation along its loop whose target does not move
 * with loop variable k->slot. */
static void sim_chains_kept(sim_stmt *loop, const sim_stmt *a, void *arg)
{
    sim_kept *k = arg;
    (void)loop;
    k->n += a->chain_along && sim_access_class(k->c, a->lhs, k->slot) == SIM_WORK_SCALAR;
}

void sim_loop_chains(const sim_ctx *c, sim_stmt *loop, int slot)
{
    loop->chain_starts = 0;
    sim_loop_assigns(loop, loop->body, sim_chains_add, NULL);
    /* loop's body one loop whose chains all keep their targets as loop turns (a row's sum split in
     * tiles of its columns, the tiles' loop outside: trisolv's x[i] = x[i] - L[i][j] * x[j]): the
     * inner loop's next entry goes on with the chain its last one left, which waits for it; an
     * entry of loop begins them */
    sim_stmt *inner = sim_only_stmt(loop->body);
    if (loop->chain_starts || !inner || inner->kind != SS_FOR || inner->chain_starts <= 0) return;
    sim_kept kept = { c, slot, 0 };
    sim_loop_assigns(inner, inner->body, sim_chains_kept, &kept);
    if (kept.n == inner->chain_starts) {
        loop->chain_starts = inner->chain_starts;
        inner->chain_starts = 0;
    }
}

/* (sim_int.h) Is y's affine form x's but for its constant: *delta = y's constant - x's. */
int sim_aff_shift(const sim_aff *x, const sim_aff *y, int64_t *delta)
{
    if (x->n != y->n) return 0;
    for (int i = 0; i < x->n; i++)
        if (x->slot[i] != y->slot[i] || x->coef[i] != y->coef[i]) return 0;
    *delta = y->c - x->c;
    return 1;
}

/* Are x and y the same affine form but for their constants, which differ by less than `near` (1:
 * the same form)? */
static int sim_aff_near(const sim_aff *x, const sim_aff *y, int64_t near)
{
    int64_t delta;
    return sim_aff_shift(x, y, &delta) && delta < near && -delta < near;
}

static int sim_same_aff(const sim_aff *x, const sim_aff *y) { return sim_aff_near(x, y, 1); }

/* Are the integer nodes a and b the same computation (operator, variable, constant, affine form,
 * operands)?  Calls and reductions are not compared: not the same. */
static int sim_same_int(const sim_node *a, const sim_node *b)
{
    if (!a || !b) return a == b;
    if (a->op != b->op || a->slot != b->slot || a->ival != b->ival || a->args || b->args || a->sub || b->sub ||
        a->op == SO_REDI)
        return 0;
    if ((a->op == SO_AFF || a->op == SO_CMPAFF) && !sim_same_aff(&a->aff, &b->aff)) return 0;
    return sim_same_int(a->a, b->a) && sim_same_int(a->b, b->b) && sim_same_int(a->c, b->c);
}

/* Do accesses a and b reach the same array with the same subscripts, but for their constants,
 * which differ by less than `near` in the last and `rows` in the others (1, 1: the same element)? */
static int sim_near_element(const sim_node *a, const sim_node *b, int64_t near, int64_t rows)
{
    if (a->array != b->array || a->n != b->n) return 0;
    for (int d = 0; d < a->n; d++) {
        const sim_sub *x = &a->sub[d], *y = &b->sub[d];
        if (x->gen || y->gen ? !sim_same_int(x->gen, y->gen) : !sim_aff_near(&x->aff, &y->aff, d == a->n - 1 ? near : rows))
            return 0;
    }
    return 1;
}

static int sim_same_element(const sim_node *a, const sim_node *b) { return sim_near_element(a, b, 1, 1); }

/* Is b's element a constant distance from a's in memory (the compiler knows how far apart the two
 * are): every subscript a's shifted by a constant, or the same computation; in a memory whose rows
 * are found through its pieces' tables, the same rows (only the last subscript shifted). */
static int sim_fixed_distance(const sim_ctx *c, const sim_node *a, const sim_node *b)
{
    int pieced = c->dists && c->dists[a->array] && ir_dist_is_pieced(c->dists[a->array]);
    for (int d = 0; d < a->n; d++) {
        const sim_sub *x = &a->sub[d], *y = &b->sub[d];
        int64_t delta = 0;
        if (x->gen || y->gen ? !sim_same_int(x->gen, y->gen) : !sim_aff_shift(&x->aff, &y->aff, &delta)) return 0;
        if (pieced && d < a->n - 1 && delta != 0) return 0;
    }
    return 1;
}

/* Does n hold an access to `lhs`'s array a distance from lhs's element that is no constant
 * (sim_fixed_distance): moving along the loop in another row, or staying put while lhs moves? */
static int sim_reads_unknown(const sim_ctx *c, const sim_node *n, const sim_node *lhs)
{
    if (!n) return 0;
    if (sim_is_access(n->op)) return n->array == lhs->array && n->n == lhs->n && !sim_fixed_distance(c, lhs, n);
    if (n->op == SO_REDD || n->op == SO_REDI) return 0;
    if (sim_reads_unknown(c, n->a, lhs) || sim_reads_unknown(c, n->b, lhs) || sim_reads_unknown(c, n->c, lhs))
        return 1;
    for (int i = 0; n->args && i < n->n; i++) if (sim_reads_unknown(c, n->args[i], lhs)) return 1;
    return 0;
}

/* (sim_int.h) A vectorised statement whose target moves along its loop and which reads its own
 * array elsewhere (trmm's B[i][j] = B[i][j] + A[k][i] * B[k][j], j innermost: rows i and k, how
 * far apart not known until run time; lu's A[i][k] in A[i][j] = A[i][j] - A[i][k] * A[k][j], an
 * element the stores may reach): gcc vectorises the loop behind a test that the ranges do not
 * overlap, made on every entry of the loop ("versioned for vectorization because of possible
 * aliasing").  A row a constant apart needs none (the exported rows' lengths are constants),
 * nor does another array: each array's own pointer is `restrict`. */
int sim_stmt_alias_check(const sim_ctx *c, const sim_stmt *st)
{
    if ((st->wclass != SIM_WORK_UNIT && st->wclass != SIM_WORK_BLOCKED) || st->has_cost || c->loop_slot < 0)
        return 0;
    if (sim_access_class(c, st->lhs, c->loop_slot) != SIM_WORK_UNIT) return 0;
    return sim_reads_unknown(c, st->rhs, st->lhs);
}

/* Walks s, a loop's body: *inner = 0 where a loop other than a jammed one is in it (a jammed loop's
 * statements are its own: unrolled); *assigns and *checks count its assignments and those whose
 * entries check aliasing. */
static void sim_entries_walk(const sim_stmt *s, int *inner, int *assigns, int *checks)
{
    if (!s) return;
    switch (s->kind) {
    case SS_BLOCK: for (int i = 0; i < s->n; i++) sim_entries_walk(s->s[i], inner, assigns, checks); return;
    case SS_IF: sim_entries_walk(s->then_, inner, assigns, checks); sim_entries_walk(s->else_, inner, assigns, checks); return;
    case SS_FOR:
        if (!s->jam) *inner = 0;
        else sim_entries_walk(s->body, inner, assigns, checks);
        return;
    case SS_ASSIGN: case SS_ASSUMED: ++*assigns; *checks += s->alias_check; return;
    default: return;
    }
}

/* (sim_int.h) Every entry of an innermost loop costs its setup beside its turns (the trip count,
 * the vectorised loop's way in and out, the turn of the loop around): the trace's entries (cost.h,
 * `entries`); one whose statements read their own array at a distance not known (alias_check)
 * also pays the overlap test (the trace's alias_checks).  A jammed loop is no loop of exported
 * code: the loop around it is the innermost. */
void sim_loop_entries(sim_stmt *loop)
{
    int inner = 1, assigns = 0, checks = 0;
    loop->entry = 0;
    if (loop->jam) return;
    sim_entries_walk(loop->body, &inner, &assigns, &checks);
    if (inner && assigns) loop->entry = checks ? SIM_ENTRY_CHECKED : SIM_ENTRY_PLAIN;
}

/* At most so many walks a statement; elements of one row closer than a line of doubles share it,
 * and rows a stencil's few apart share their lines along the walk. */
enum { SIM_WALKS_MAX = 16, SIM_LINE_ELEMS = 8, SIM_STENCIL_ROWS = 4 };

/* Adds to w[0 .. *nw) the accesses of n that walk against `slot` (STRIDED or ALIASED) and whose
 * lines none there reads: not an element of its row fewer than a line's elements away (a
 * stencil's A[i][j - 1], A[i][j] and A[i][j + 1] walk once), nor of a row a stencil's few away,
 * whose lines the walk reads again a step or two later (seidel's rows i - 1, i and i + 1 along a
 * diagonal); with `bodies`, only those in reductions' bodies (against their own variables),
 * where a statement with reductions has its class. */
static void sim_walks_add(const sim_ctx *c, const sim_node *n, int slot, int bodies, const sim_node **w, int *nw)
{
    if (!n) return;
    if (sim_is_access(n->op)) {
        int k = !bodies && slot >= 0 ? sim_access_class(c, n, slot) : SIM_WORK_SCALAR;
        if (k != SIM_WORK_STRIDED && k != SIM_WORK_ALIASED) return;
        for (int i = 0; i < *nw; i++) if (sim_near_element(w[i], n, SIM_LINE_ELEMS, SIM_STENCIL_ROWS)) return;
        if (*nw < SIM_WALKS_MAX) w[(*nw)++] = n;
        return;
    }
    if (n->op == SO_REDD || n->op == SO_REDI) {
        sim_walks_add(c, n->c, n->slot, 0, w, nw);
        return;
    }
    sim_walks_add(c, n->a, slot, bodies, w, nw);
    sim_walks_add(c, n->b, slot, bodies, w, nw);
    sim_walks_add(c, n->c, slot, bodies, w, nw);
    for (int i = 0; n->args && i < n->n; i++) sim_walks_add(c, n->args[i], slot, bodies, w, nw);
}

/* (sim_int.h) Each walking access loads its own line, which no vector load or stream shares: a
 * statement reading two columns (correlation's data[k][i] * data[k][j], k innermost) or a
 * wavefront's diagonal (A[p][t - p] and its row's partners) walks as often as it has them. */
int sim_stmt_walks(const sim_ctx *c, const sim_stmt *st)
{
    if (st->wclass != SIM_WORK_STRIDED && st->wclass != SIM_WORK_ALIASED) return 0;
    int acc = SIM_WORK_SCALAR, red = -1, nw = 0;
    const sim_node *w[SIM_WALKS_MAX];
    sim_class_walk(c, st->rhs, c->loop_slot, &acc, &red);
    sim_walks_add(c, st->lhs, c->loop_slot, red >= 0, w, &nw);
    sim_walks_add(c, st->rhs, c->loop_slot, red >= 0, w, &nw);
    return nw;
}

/* Does n read the element `lhs` names, or hold a reduction (`sum(..)`: an accumulator, whose
 * ticks a step go to *step, and *red = 1)? */
static int sim_chain_walk(const sim_node *n, const sim_node *lhs, double *step, int *red)
{
    if (!n) return 0;
    if (n->op == SO_REDD || n->op == SO_REDI) { *step = n->dticks; *red = 1; return 1; }
    if (sim_is_access(n->op)) return lhs && sim_same_element(n, lhs);
    if (sim_chain_walk(n->a, lhs, step, red) || sim_chain_walk(n->b, lhs, step, red) ||
        sim_chain_walk(n->c, lhs, step, red))
        return 1;
    for (int i = 0; n->args && i < n->n; i++) if (sim_chain_walk(n->args[i], lhs, step, red)) return 1;
    return 0;
}

enum { SIM_CARRY_TURNS = 4 };   /* how many turns back a read of what the loop wrote counts */

/* Does access a read the element lhs wrote k = 1 .. SIM_CARRY_TURNS turns of the innermost loop
 * before (its subscripts lhs's, each less k times its step: seidel's A[i][j - 1] in
 * A[i][j] = .. along j)?  Loops that step by more than one are left out. */
static int sim_reads_carried(const sim_ctx *c, const sim_node *a, const sim_node *lhs)
{
    if (a->array != lhs->array || a->n != lhs->n || c->loop_slot < 0 || c->loop_stepped) return 0;
    int64_t k = 0;
    for (int d = 0; d < a->n; d++) {
        const sim_sub *x = &lhs->sub[d], *y = &a->sub[d];
        int64_t delta;
        if (x->gen || y->gen || !sim_aff_shift(&x->aff, &y->aff, &delta)) return 0;
        int lets = SIM_CLASS_LETS;
        int64_t step = sim_aff_step(c, &x->aff, c->loop_slot, &lets);
        if (step == 0 ? delta != 0 : delta % step != 0) return 0;
        if (step == 0) continue;
        int64_t turns = -delta / step;
        if (turns < 1 || turns > SIM_CARRY_TURNS || (k && turns != k)) return 0;
        k = turns;
    }
    return k > 0;
}

/* Does n read what `lhs` wrote a few turns of the innermost loop before (sim_reads_carried)? */
static int sim_carried(const sim_ctx *c, const sim_node *n, const sim_node *lhs)
{
    if (!n) return 0;
    if (sim_is_access(n->op)) return sim_reads_carried(c, n, lhs);
    if (n->op == SO_REDD || n->op == SO_REDI) return 0;
    if (sim_carried(c, n->a, lhs) || sim_carried(c, n->b, lhs) || sim_carried(c, n->c, lhs)) return 1;
    for (int i = 0; n->args && i < n->n; i++) if (sim_carried(c, n->args[i], lhs)) return 1;
    return 0;
}

/* A jammed loop's chains (sim_stmt_chain), `step` ticks a turn: their turns, unrolled, run
 * together where every access that moves with the turn moves along its row one element a turn
 * (gemm's C[i][j] and B[k][j], j the turn: a vector of C's row).  Where one walks (syrk's
 * A[j][k] along k: a row a turn, no vector load covers the turns), the compiler vectorises
 * the loop along the chains instead, adding each vector's lanes to its chain one at a time:
 * the chains interleave (none waits for another's sum), but their two ticks a step (the
 * addition, taking a lane out of its vector) are scalar operations, the rest (the products)
 * unit-stride work; the loads are hidden behind the additions (no cached accesses). */
static void sim_jam_chains(const sim_ctx *c, sim_stmt *st, double step)
{
    int acc = SIM_WORK_SCALAR, red = -1;
    sim_class_walk(c, st->rhs, c->jam_slot, &acc, &red);
    sim_class_walk(c, st->lhs, c->jam_slot, &acc, &red);
    if (red >= 0 || (acc != SIM_WORK_STRIDED && acc != SIM_WORK_ALIASED)) return;
    st->class_share = step > 2 ? (step - 2) / step : 0;
    st->cached = st->tile_reads = 0;
}

/* A unit-stride chain is an accumulation (SIM_WORK_ACCUM): a reduction over a unit stride, an
 * assignment whose target stays put while its innermost loop runs and which reads it (mvt's
 * x1[i] = x1[i] + A[i][j] * y1[j], j innermost), or one that reads what it wrote a turn or a few
 * before (seidel's A[i][j - 1] in A[i][j] = .., j innermost: each turn waits for the last one's
 * operations, all of its ticks on the chain): each turn waits for the last one's addition,
 * which exported code keeps in order (no reassociation), so the loop runs at the latency of an
 * addition, not at the speed of its operations and streams.  The class counts two ticks a step
 * (what an accumulation's price is measured against: a multiply and an add), the rest of a
 * longer step (syrk's C[i][j] + alpha * A[i][k] * A[j][k]) is the unit-stride work it was
 * (rest_class): the compiler vectorises the products along the chain and adds their lanes in
 * turn.  Called after sim_stmt_streams (the statement's streams are counted as a unit
 * statement's).  In a jammed loop (ir_jam_loop), unrolled, the turns' chains interleave (syrk's
 * four j's along k): none waits for another's sum (sim_jam_chains).
 *
 * A walking chain is the same chain in a strided assignment (trmm's B[i][j] = B[i][j] + A[k][i]
 * * B[k][j], k innermost, down two columns; or a reduction over a walk): each turn waits for the
 * last one's addition while the walks' loads, whose addresses do not wait for it, run beside it.
 * The statement stays a walk, and its two ticks a step on the chain (walk_chain, the trace's
 * chained) cost what an accumulation costs where that is dearer (cost.h, `walks`).  An aliased
 * walk is dearer than any chain; in a jammed loop the turns' chains interleave; sim_class_outer
 * makes the loop around one a vector of chains where it can (and clears walk_chain). */
void sim_stmt_chain(const sim_ctx *c, sim_stmt *st)
{
    int walking = st->wclass == SIM_WORK_STRIDED && !c->in_jam;
    if ((st->wclass != SIM_WORK_UNIT && st->wclass != SIM_WORK_BLOCKED && !walking) || st->has_cost) return;
    int fixed = c->loop_slot >= 0 && sim_access_class(c, st->lhs, c->loop_slot) == SIM_WORK_SCALAR;
    double step = st->ticks;
    int red = 0;
    int chain = sim_chain_walk(st->rhs, fixed ? st->lhs : NULL, &step, &red);
    if (walking) {
        if (chain) st->walk_chain = step > 2 ? 2 / step : 1;
        return;
    }
    if (chain) {
        if (c->in_jam) {
            sim_jam_chains(c, st, step);
            return;
        }
        st->rest_class = step > 2 ? st->wclass : SIM_WORK_SCALAR;
        st->wclass = SIM_WORK_ACCUM;
        st->class_share = step > 2 ? 2 / step : 1;
        st->chain_starts = red;   /* a reduction's every instance begins its chain */
        st->chain_along = !red;   /* else an entry of its loop does (sim_loop_chains) */
    } else if (!c->in_jam && !fixed && sim_carried(c, st->rhs, st->lhs)) {
        st->wclass = SIM_WORK_ACCUM;   /* every tick on the chain: the loop waits for each */
    }
}
