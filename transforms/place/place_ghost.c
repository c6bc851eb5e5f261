/*
 * place_ghost.c — ghost zones of width k (syndm → syndm): exchange every k steps with a halo k
 * times the stencil's reach wide, and recompute in between the part of the neighbours' blocks
 * that the next steps read (C. Ding and Y. He, "A ghost cell expansion method for reducing
 * communications in solving PDE problems", SC 2001; Distributed Halide's compute_rank, Denniston,
 * Kamil and Amarasinghe, PPoPP 2016): fewer, larger messages for redundant work.
 *
 * Input: a step whose processor body is lets, then one rectangular nest over the processor's
 * block that writes one element a[t + c][x (- o1)][y (- o2)].. per point (o: the offset lets of
 * relative coordinates), reads a only at the plane before, at x + c (the reach r: the largest -c
 * below, the largest c above), and sends its elements to the face neighbours.  With w = k·r on
 * each side of each dimension:
 *
 *   dist a(rp) ..                  the halo w wide (local bounds and offsets widened)
 *   let xlo = .., xhi = ..         the block's bounds, named once
 *   if (t - t0) % k == k - 1 {     an exchange step: the block alone, and its sends
 *     for x = xlo .. xhi, .. {     after the point's write: every element within w of a face
 *       ..; send a[..] to N when t < T && xlo > X0 && x < xlo + w .. [as ..] }   to that neighbour
 *   } else {                       between exchanges: the block widened by e·r, computed from
 *     let e = k - 1 - (t - t0) % k   the halo (e = k - 1 just after an exchange, then less)
 *     if xlo <= xhi .. {           (an empty block widens nothing)
 *       for x = max(xlo - e, X0) .. min(xhi + e, X1), .. { the body, no sends } }
 *   }
 *
 * N runs over the 3^d - 1 neighbours with a halo toward this block: the face neighbours are the
 * destinations of the input's sends that name the processor alone (which dimension and side
 * each is, found at the parameters' values; a face only sent to element by element is the other
 * face's mirror, rp - X for rp + X), the others their compositions (rp - q - 1: the corner a
 * five-point stencil needs once w > 1), each checked to lie beside the block.  X0 .. X1 is the
 * union of the blocks (the array's bounds when they agree).  The simulator treats the redundant
 * writes as what they are: a write of the same step by another processor is the same version
 * (sim_version.c), so the neighbours' copies are as fresh as the owner's.  The exporter finds
 * the exchange's time condition as a phase of the halo pattern (export.c): it exchanges every
 * k steps, a static pattern with the corners.
 *
 * Refusals: not such a nest (a cyclic step, a placed one, blocks that move with t), not one
 * element written once per point, reads of another array, of the plane being written or of
 * older planes, subscripts that are not x + c, no sends, sends for later than the next step, a
 * side with a halo but no face send, blocks that do not abut or form no grid, and a width beyond
 * the smallest block (at the parameters' values: the halo would reach past the neighbour).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "planes.h"
#include "place_int.h"
#include "entries_int.h"

enum { GZ_MAXD = 3, GZ_MAXA = 8, GZ_MAXDEST = 16, GZ_MAXLETS = 32 };

/* ---- recognising the step --------------------------------------------------------------------- */

typedef struct gz_step {
    const ir_program *p;
    const ir_stmt *tfor, *pfor;
    const ir_block *body;       /* the processor loop's body */
    int nlets;                  /* lets before the nest */
    const ir_stmt *nest;
    int nd;                     /* nest variables */
    const ir_expr **lets;       /* let values by slot (ir_let_values) */
    const ir_expr *lhs;         /* the element every point writes */
    int arr;                    /* its array */
    const ir_decl *dist;
    int ndims;
    ir_tform plane;             /* the plane written, of t */
    int dimvar[GZ_MAXA];        /* array dimension -> nest variable, -1: the time dimension */
    const char *offlet[GZ_MAXA];   /* its offset let (relative coordinates) or NULL */
    int64_t r[GZ_MAXD][2];      /* reach along each nest variable: below (0), above (1) */
    const ir_stmt *send;        /* a send: its what and at are every send's */
    const char *dest[GZ_MAXDEST];   /* the sends' distinct destinations, printed */
    const ir_expr *destx[GZ_MAXDEST];
    int ndest;
    char *why;
} gz_step;

static void gz_fail(gz_step *G, char *why)
{
    if (G->why) free(why);
    else G->why = why;
}

/* The nest variable a name is (directly, or through lets such as `let i = p`), or -1. */
static int gz_nestvar(const gz_step *G, const ir_expr *e)
{
    for (int depth = 0; e && e->kind == IR_E_NAME && depth < 8; depth++) {
        if (e->u.name.nk == IR_N_LOOPVAR)
            for (int d = 0; d < G->nd; d++)
                if (G->nest->u.for_.vars[d].slot == e->u.name.index) return d;
        if (e->u.name.nk != IR_N_LET) return -1;
        e = G->lets[e->u.name.index];
    }
    return -1;
}

/* A spatial subscript `v`, `v + c`, `v - c`, each optionally `- o` (o a let that is not a nest
 * variable): 1 with the nest variable, c and o; else 0. */
static int gz_subscript(const gz_step *G, const ir_expr *e, int *d, int64_t *c, const char **off)
{
    *off = NULL;
    *c = 0;
    if (e->kind == IR_E_BINARY && e->u.op.op == IR_OP_SUB && e->u.op.b->kind == IR_E_NAME &&
        e->u.op.b->u.name.nk == IR_N_LET && gz_nestvar(G, e->u.op.b) < 0) {
        *off = e->u.op.b->u.name.id;
        e = e->u.op.a;
    }
    if (e->kind == IR_E_BINARY && (e->u.op.op == IR_OP_ADD || e->u.op.op == IR_OP_SUB) &&
        e->u.op.b->kind == IR_E_INT) {
        *c = e->u.op.op == IR_OP_ADD ? e->u.op.b->u.ival : -e->u.op.b->u.ival;
        e = e->u.op.a;
    }
    return (*d = gz_nestvar(G, e)) >= 0;
}

static int same_text(const ir_expr *a, const ir_expr *b)
{
    char *x = ir_print_expr(a), *y = ir_print_expr(b);
    int eq = x && y && !strcmp(x, y);
    free(x);
    free(y);
    return eq;
}

/* The written element: a[plane][v1 (- o1)]..: every nest variable once. */
static void gz_written(gz_step *G, const ir_stmt *s)
{
    const ir_expr *l = s->u.assign.lhs;
    const char *lab = s->u.assign.label ? s->u.assign.label : "an assignment";
    if (G->lhs) {
        if (!same_text(l, G->lhs)) {
            char *a = ir_print_expr(l), *b = ir_print_expr(G->lhs);
            gz_fail(G, xasprintf("%s writes %s, another element than %s: ghost zones need one element per point",
                                   lab, a, b));
            free(a);
            free(b);
        }
        return;
    }
    if (l->kind != IR_E_ACCESS || l->u.access.nidx > GZ_MAXA ||
        !ir_time_form(G->p, G->lets, l->u.access.idx[0], G->tfor->u.for_.vars[0].slot, &G->plane) || G->plane.k != 1) {
        gz_fail(G, xasprintf("%s does not write a time plane t + c: not a stencil over time", lab));
        return;
    }
    G->lhs = l;
    G->arr = l->u.access.array_index;
    G->ndims = l->u.access.nidx;
    G->dimvar[0] = -1;
    int seen = 0;
    for (int j = 1; j < G->ndims; j++) {
        int d;
        int64_t c;
        if (!gz_subscript(G, l->u.access.idx[j], &d, &c, &G->offlet[j]) || c != 0 || (seen & (1 << d))) {
            gz_fail(G, xasprintf("%s writes %s: its subscripts are not the nest's variables, one each", lab,
                                   G->p->arrays[G->arr]->u.array.name));
            return;
        }
        seen |= 1 << d;
        G->dimvar[j] = d;
    }
    if (seen != (1 << G->nd) - 1)
        gz_fail(G, xasprintf("%s does not use every variable of the element nest as a subscript", lab));
}

/* Every access in e: of the written array only, at the plane before, at v + c. */
static void gz_reads(gz_step *G, const ir_expr *e)
{
    if (!e || G->why) return;
    switch (e->kind) {
    case IR_E_ACCESS: {
        char *t = ir_print_expr(e);
        const ir_decl *ad = G->p->arrays[e->u.access.array_index];
        ir_tform f;
        if (e->u.access.array_index != G->arr) {
            gz_fail(G, xasprintf("the step reads %s, of an array it does not write (only the written array's "
                                   "halo widens)", t));
        } else if (!ir_time_form(G->p, G->lets, e->u.access.idx[0], G->tfor->u.for_.vars[0].slot, &f) || f.k != 1 ||
                   ir_tform_at(&f, 0) + 1 != ir_tform_at(&G->plane, 0) ||
                   ir_tform_at(&f, 1) + 1 != ir_tform_at(&G->plane, 1)) {
            gz_fail(G, xasprintf("the step reads %s: ghost zones need every read of %s one step back (the "
                                   "dependence distance in time is not 1)", t, ad->u.array.name));
        } else {
            for (int j = 1; j < e->u.access.nidx && !G->why; j++) {
                int d;
                int64_t c;
                const char *off;
                if (!gz_subscript(G, e->u.access.idx[j], &d, &c, &off) || d != G->dimvar[j] ||
                    (off != NULL) != (G->offlet[j] != NULL) || (off && strcmp(off, G->offlet[j])))
                    gz_fail(G, xasprintf("the step reads %s: a subscript is not its element's plus a constant "
                                           "(the dependence distance is not bounded)", t));
                else if ((c < 0 ? -c : c) > G->r[d][c > 0])
                    G->r[d][c > 0] = c < 0 ? -c : c;
            }
        }
        free(t);
        for (int j = 0; j < e->u.access.nidx; j++) gz_reads(G, e->u.access.idx[j]);
        break;
    }
    case IR_E_NAME:
        if (e->u.name.nk == IR_N_ARRAY) gz_fail(G, xasprintf("the step reads the scalar %s", e->u.name.id));
        break;
    case IR_E_UNARY: case IR_E_BINARY: gz_reads(G, e->u.op.a); gz_reads(G, e->u.op.b); break;
    case IR_E_CALL: for (int k = 0; k < e->u.call.nargs; k++) gz_reads(G, e->u.call.args[k]); break;
    case IR_E_REDUCE: gz_reads(G, e->u.reduce.lo); gz_reads(G, e->u.reduce.hi); gz_reads(G, e->u.reduce.body); break;
    default: break;
    }
}

static void gz_send(gz_step *G, const ir_stmt *s)
{
    if (!same_text(s->u.send.what, G->lhs) || s->u.send.to_hi) {
        gz_fail(G, xasprintf("the send at line %d does not send the element of its point to one processor",
                               s->pos.line));
        return;
    }
    ir_tform at;
    if (!ir_time_form(G->p, G->lets, s->u.send.at, G->tfor->u.for_.vars[0].slot, &at) || at.k != 1 ||
        ir_tform_at(&at, 0) != 1) {
        gz_fail(G, xasprintf("the send at line %d does not arrive at the next step", s->pos.line));
        return;
    }
    G->send = s;
    char *t = ir_print_expr(s->u.send.to_lo);
    for (int i = 0; i < G->ndest; i++)
        if (!strcmp(G->dest[i], t)) { free(t); return; }
    if (G->ndest == GZ_MAXDEST) {
        free(t);
        gz_fail(G, xasprintf("the step sends to more than %d partners", GZ_MAXDEST));
        return;
    }
    G->dest[G->ndest] = t;
    G->destx[G->ndest++] = s->u.send.to_lo;
}

static int gz_nwrites(const ir_block *b)
{
    int n = 0;
    for (int i = 0; b && i < b->n; i++) {
        const ir_stmt *s = b->stmts[i];
        if (s->kind == IR_S_ASSIGN) n++;
        else if (s->kind == IR_S_IF) n += gz_nwrites(s->u.if_.then_blk) + gz_nwrites(s->u.if_.else_blk);
    }
    return n;
}

/* Does every path through b write at most once (the sends go right after that write)? */
static int gz_writes_once(const ir_block *b)
{
    int direct = 0, nested = 0;
    for (int i = 0; b && i < b->n; i++) {
        const ir_stmt *s = b->stmts[i];
        if (s->kind == IR_S_ASSIGN) direct++;
        if (s->kind != IR_S_IF) continue;
        if (!gz_writes_once(s->u.if_.then_blk) || !gz_writes_once(s->u.if_.else_blk)) return 0;
        nested += gz_nwrites(s->u.if_.then_blk) + gz_nwrites(s->u.if_.else_blk) > 0;
    }
    return direct + nested <= 1;
}

static void gz_walk(gz_step *G, const ir_block *b, int pass)
{
    for (int i = 0; b && i < b->n && !G->why; i++) {
        const ir_stmt *s = b->stmts[i];
        switch (s->kind) {
        case IR_S_ASSIGN:
            if (pass == 0) gz_written(G, s);
            else {
                gz_reads(G, s->u.assign.rhs);
                for (int k = 1; k < s->u.assign.lhs->u.access.nidx; k++) gz_reads(G, s->u.assign.lhs->u.access.idx[k]);
            }
            break;
        case IR_S_LET: if (pass) gz_reads(G, s->u.let.value); break;
        case IR_S_IF:
            if (pass) gz_reads(G, s->u.if_.cond);
            gz_walk(G, s->u.if_.then_blk, pass);
            gz_walk(G, s->u.if_.else_blk, pass);
            break;
        case IR_S_SEND: if (pass) gz_send(G, s); break;
        case IR_S_FOR: gz_fail(G, xasprintf("the element nest's body has loops of its own")); break;
        default: gz_fail(G, xasprintf("the element nest holds a statement ghost zones do not place")); break;
        }
    }
}

static const ir_decl *gz_dist_of(const ir_program *p, int arr)
{
    for (int i = 0; i < p->ndecls; i++)
        if (p->decls[i]->kind == IR_D_DIST && p->decls[i]->u.dist.array_index == arr) return p->decls[i];
    return NULL;
}

static void gz_free(gz_step *G)
{
    for (int i = 0; i < G->ndest; i++) free((char *)G->dest[i]);
    free(G->lets);
    free(G->why);
}

/* Do the nest's bounds depend on the time variable (directly or through the processor's lets)? */
static int gz_moves(const gz_step *G)
{
    const char *moving[GZ_MAXLETS + 1];
    int n = 0;
    moving[n++] = G->tfor->u.for_.vars[0].var;
    for (int i = 0; i < G->nlets && n <= GZ_MAXLETS; i++) {
        const ir_stmt *l = G->body->stmts[i];
        for (int k = 0; k < n; k++)
            if (xf_mentions(l->u.let.value, moving[k])) { moving[n++] = l->u.let.var; break; }
    }
    for (int d = 0; d < G->nd; d++) {
        const ir_loopvar *v = &G->nest->u.for_.vars[d];
        for (int k = 0; k < n; k++)
            if (xf_mentions(v->lo, moving[k]) || xf_mentions(v->hi, moving[k])) return 1;
    }
    return 0;
}

/* Fills G from p; NULL, or why not (G->why, taken). */
static char *gz_find(const ir_program *p, gz_step *G)
{
    memset(G, 0, sizeof *G);
    G->p = p;
    ir_step_nest sn;
    if (ir_step_nest_find(p->body, &sn) != IR_NEST_OK || !sn.pfor || sn.pidx != sn.pfor->u.for_.nvars - 1)
        return xasprintf("the processor loop has inner loops in its header; expected `for t .. seq, rp .. proc`");
    if (ir_program_has_collectives(p)) return xasprintf("the step has collectives");
    G->tfor = sn.tfor;
    G->pfor = sn.pfor;
    if (sn.tfor->u.for_.vars[0].step) return xasprintf("the time loop has a step");
    G->body = sn.pfor->u.for_.body;
    int i = 0;
    while (i < G->body->n && G->body->stmts[i]->kind == IR_S_LET) i++;
    G->nlets = i;
    if (i != G->body->n - 1 || G->body->stmts[i]->kind != IR_S_FOR)
        return xasprintf("the processor's step is not one loop nest over its elements after its lets");
    G->nest = G->body->stmts[i];
    G->nd = G->nest->u.for_.nvars;
    if (G->nd > GZ_MAXD) return xasprintf("the element nest has more than %d loops", GZ_MAXD);
    for (int k = 0; k < G->nd; k++) {
        const ir_loopvar *v = &G->nest->u.for_.vars[k];
        if (v->step) return xasprintf("the element loop over %s has a step (a cyclic distribution): ghost zones "
                                        "widen blocks", v->var);
        for (int j = 0; j < G->nd; j++)
            if (xf_mentions(v->lo, G->nest->u.for_.vars[j].var) || xf_mentions(v->hi, G->nest->u.for_.vars[j].var))
                return xasprintf("the element nest is not rectangular");
    }
    if (gz_moves(G)) return xasprintf("the block changes with %s: ghost zones widen a block that stays",
                                        G->tfor->u.for_.vars[0].var);
    if (!(G->lets = ir_let_values(p))) return xasprintf("out of memory");
    if (!gz_writes_once(G->nest->u.for_.body))
        return xasprintf("a point of the element nest writes more than once (ghost zones send its one element)");
    gz_walk(G, G->nest->u.for_.body, 0);
    if (!G->why && !G->lhs) G->why = xasprintf("the element nest writes nothing");
    if (!G->why) gz_walk(G, G->nest->u.for_.body, 1);
    if (!G->why && !G->send) G->why = xasprintf("no sends in the step: no halo to widen");
    if (!G->why) {
        G->dist = gz_dist_of(p, G->arr);
        const ir_decl *dd = G->dist;
        if (!dd || dd->u.dist.dk != IR_DIST_LOCAL || ir_dist_is_pieced(dd) || dd->u.dist.step)
            G->why = xasprintf("the dist of %s is not one box per processor", p->arrays[G->arr]->u.array.name);
    }
    char *why = G->why;
    G->why = NULL;
    return why;
}

/* ---- the blocks at the parameters' values ------------------------------------------------------ */

typedef struct gz_eval {
    xf_env env;
    int64_t fuel;
    int base;                   /* names before t, rp */
    int64_t plo, phi, tlo;
} gz_eval;

/* Evaluates the processor body's lets and the nest's bounds for processor r into lo[], hi[]. */
static int gz_block(const gz_step *G, gz_eval *E, int64_t r, int64_t *lo, int64_t *hi)
{
    E->env.n = E->base;
    E->env.names[E->env.n] = G->tfor->u.for_.vars[0].var;
    E->env.vals[E->env.n++] = E->tlo;
    E->env.names[E->env.n] = G->pfor->u.for_.vars[G->pfor->u.for_.nvars - 1].var;
    E->env.vals[E->env.n++] = r;
    for (int i = 0; i < G->nlets; i++) {
        const ir_stmt *s = G->body->stmts[i];
        if (E->env.n == XF_ENV_MAX || xf_eval_int(s->u.let.value, &E->env, &E->env.vals[E->env.n])) return -1;
        E->env.names[E->env.n++] = s->u.let.var;
    }
    for (int d = 0; d < G->nd; d++)
        if (xf_eval_int(G->nest->u.for_.vars[d].lo, &E->env, &lo[d]) ||
            xf_eval_int(G->nest->u.for_.vars[d].hi, &E->env, &hi[d])) return -1;
    return 0;
}

static int gz_eval_init(const gz_step *G, const xf_args *args, gz_eval *E)
{
    const ir_program *p = G->p;
    int64_t *pv = xcalloc((size_t)(p->nparams + 1), sizeof *pv);
    diag_list dd;
    diag_list_init(&dd);
    int rc = -1;
    E->fuel = 100000000;
    E->env.fuel = &E->fuel;
    if (pv && p->nparams + 16 <= XF_ENV_MAX && ir_params_eval(p, args->bindings, args->nbindings, 0, pv, &dd) == 0) {
        for (int i = 0; i < p->nparams; i++) {
            E->env.names[E->env.n] = p->params[i]->u.param.name;
            E->env.vals[E->env.n++] = pv[i];
        }
        rc = 0;
        for (int i = 0; i < p->body->n && p->body->stmts[i]->kind == IR_S_LET && rc == 0; i++) {
            const ir_stmt *s = p->body->stmts[i];
            if (E->env.n == XF_ENV_MAX || xf_eval_int(s->u.let.value, &E->env, &E->env.vals[E->env.n])) rc = -1;
            else E->env.names[E->env.n++] = s->u.let.var;
        }
        const ir_loopvar *pvar = &G->pfor->u.for_.vars[G->pfor->u.for_.nvars - 1];
        if (rc == 0 && (xf_eval_int(G->tfor->u.for_.vars[0].lo, &E->env, &E->tlo) ||
                        xf_eval_int(pvar->lo, &E->env, &E->plo) || xf_eval_int(pvar->hi, &E->env, &E->phi) ||
                        E->phi - E->plo > 65536))
            rc = -1;
    }
    E->base = E->env.n;
    free(pv);
    diag_list_free(&dd);
    return rc;
}

/* What the neighbours and the union of the blocks are. */
typedef struct gz_shape {
    const ir_expr *face[GZ_MAXD][2];   /* the destination toward the lower (0) / upper (1) side */
    int mirror[GZ_MAXD][2];            /* that face is the other one's mirror (rp + X for rp - X) */
    const ir_expr *glo[GZ_MAXD], *ghi[GZ_MAXD];   /* the union of the blocks */
    int64_t r[GZ_MAXD][2];             /* the reach below and above; 0 along one block */
    int64_t w[GZ_MAXD][2];             /* the halo's width below and above: k · r */
} gz_shape;

/* Which face of processor r destination di is, if it is one (into S), or why not.  A destination
 * whose block differs along two dimensions or more is a corner: the exchange sends to every
 * corner anyway. */
static char *gz_face(const gz_step *G, gz_eval *E, int64_t r, int di, gz_shape *S)
{
    int64_t lo[GZ_MAXD], hi[GZ_MAXD], dlo[GZ_MAXD], dhi[GZ_MAXD], to;
    if (gz_block(G, E, r, lo, hi)) return xasprintf("the blocks do not evaluate");
    if (xf_eval_int(G->destx[di], &E->env, &to)) return NULL;   /* it depends on the element: a face or not */
    if (to < E->plo || to > E->phi || to == r) return NULL;
    if (gz_block(G, E, to, dlo, dhi)) return xasprintf("the blocks do not evaluate");
    int dim = -1, n = 0;
    for (int d = 0; d < G->nd; d++)
        if (dlo[d] != lo[d] || dhi[d] != hi[d]) { dim = d; n++; }
    if (n == 0) return xasprintf("processors %lld and %lld have the same block", (long long)r, (long long)to);
    if (n > 1) return NULL;   /* a corner, or not r's neighbour: its guard excludes r (rp + 1 at a row's end) */
    int side = dlo[dim] > lo[dim];
    if (side ? dlo[dim] != hi[dim] + 1 : dhi[dim] != lo[dim] - 1)
        return xasprintf("the blocks of processors %lld and %lld along %s do not abut", (long long)r, (long long)to,
                           G->nest->u.for_.vars[dim].var);
    if (S->face[dim][side] && !same_text(S->face[dim][side], G->destx[di]))
        return xasprintf("two different neighbours on one side along %s (%s)", G->nest->u.for_.vars[dim].var,
                           G->dest[di]);
    S->face[dim][side] = G->destx[di];
    return NULL;
}

/* The union of the blocks along d as an expression: the array's bounds, or the first block's
 * low and the last one's high bound, whichever has the values mn .. mx. */
static char *gz_union(const gz_step *G, gz_eval *E, int d, int64_t mn, int64_t mx, gz_shape *S)
{
    int j = 1;
    while (G->dimvar[j] != d) j++;
    const ir_decl *a = G->p->arrays[G->arr];
    int64_t v0, v1;
    E->env.n = E->base;
    if (!xf_eval_int(a->u.array.lo[j], &E->env, &v0) && !xf_eval_int(a->u.array.hi[j], &E->env, &v1) && v0 == mn &&
        v1 == mx) {
        S->glo[d] = a->u.array.lo[j];
        S->ghi[d] = a->u.array.hi[j];
        return NULL;
    }
    int64_t lo[GZ_MAXD], hi[GZ_MAXD], l2[GZ_MAXD], h2[GZ_MAXD];
    if (!gz_block(G, E, E->plo, lo, hi) && !gz_block(G, E, E->phi, l2, h2) && lo[d] == mn && h2[d] == mx) {
        S->glo[d] = S->ghi[d] = NULL;   /* the bounds at rp = plo, phi (built by the rewriter) */
        return NULL;
    }
    return xasprintf("the blocks along %s do not run from the first processor's to the last one's",
                       G->nest->u.for_.vars[d].var);
}

static int gz_next_sign(int *sg, int nd)
{
    for (int d = nd - 1; d >= 0; d--) {
        if (sg[d] < 1) { sg[d]++; return 1; }
        sg[d] = -1;
    }
    return 0;
}

/* Face (d, side) of processor p (E's environment set for p): 0, or -1 when it does not evaluate. */
static int gz_face_at(const gz_shape *S, gz_eval *E, int d, int side, int64_t p, int64_t *to)
{
    if (!S->mirror[d][side]) return xf_eval_int(S->face[d][side], &E->env, to);
    int64_t f;
    if (xf_eval_int(S->face[d][!side], &E->env, &f)) return -1;
    *to = 2 * p - f;
    return 0;
}

/* A face of the form rp + X or rp - X (X not naming rp): its mirror can stand for the other. */
static int gz_mirrorable(const gz_step *G, const ir_expr *f)
{
    const char *pv = G->pfor->u.for_.vars[G->pfor->u.for_.nvars - 1].var;
    return f && f->kind == IR_E_BINARY && (f->u.op.op == IR_OP_ADD || f->u.op.op == IR_OP_SUB) &&
           f->u.op.a->kind == IR_E_NAME && !strcmp(f->u.op.a->u.name.id, pv) && !xf_mentions(f->u.op.b, pv);
}

/* Is sign vector sg a neighbour the exchange sends to (a halo toward this block along each of
 * its dimensions)? */
static int gz_sends_to(const gz_shape *S, const int *sg, int nd)
{
    int any = 0;
    for (int d = 0; d < nd; d++) {
        if (sg[d] && !S->w[d][sg[d] < 0]) return 0;
        any |= sg[d] != 0;
    }
    return any;
}

/* The neighbours as the exchange composes them (rp - q - 1 from rp - q and rp - 1) are the
 * blocks beside r's, along the sign vector's dimensions, wherever their guards hold. */
static char *gz_grid(const gz_step *G, gz_eval *E, const gz_shape *S, int64_t r, const int64_t *mn, const int64_t *mx)
{
    int64_t lo[GZ_MAXD], hi[GZ_MAXD], tlo[GZ_MAXD], thi[GZ_MAXD];
    int sg[GZ_MAXD];
    if (gz_block(G, E, r, lo, hi)) return xasprintf("the blocks do not evaluate");
    for (int d = 0; d < G->nd; d++) sg[d] = -1;
    do {
        int on = gz_sends_to(S, sg, G->nd) && lo[0] <= hi[0];
        for (int d = 0; d < G->nd; d++)
            if ((sg[d] < 0 && lo[d] <= mn[d]) || (sg[d] > 0 && hi[d] >= mx[d]) || lo[d] > hi[d]) on = 0;
        int64_t to = r;
        for (int d = 0; d < G->nd && on; d++)
            if (sg[d] && (gz_block(G, E, to, tlo, thi) || gz_face_at(S, E, d, sg[d] > 0, to, &to)))
                return xasprintf("the neighbours do not evaluate");
        if (on && (to < E->plo || to > E->phi || gz_block(G, E, to, tlo, thi)))
            return xasprintf("the neighbour of processor %lld toward a corner is no processor", (long long)r);
        for (int d = 0; d < G->nd && on; d++)
            if (sg[d] < 0 ? thi[d] != lo[d] - 1 : sg[d] > 0 ? tlo[d] != hi[d] + 1 : tlo[d] != lo[d] || thi[d] != hi[d])
                return xasprintf("the blocks do not form a grid: processor %lld's neighbour %lld toward a corner is "
                                   "not beside it", (long long)r, (long long)to);
    } while (gz_next_sign(sg, G->nd));
    return NULL;
}

static char *gz_measure(const gz_step *G, const xf_args *args, int64_t k, gz_shape *S)
{
    gz_eval E;
    memset(&E, 0, sizeof E);
    memset(S, 0, sizeof *S);
    if (gz_eval_init(G, args, &E)) return xasprintf("the parameters, time or processor bounds do not evaluate");
    char *why = NULL;
    int64_t mn[GZ_MAXD], mx[GZ_MAXD], lo[GZ_MAXD], hi[GZ_MAXD];
    for (int d = 0; d < G->nd; d++) {
        mn[d] = INT64_MAX;
        mx[d] = INT64_MIN;
        for (int side = 0; side < 2; side++) {
            S->r[d][side] = G->r[d][side];
            S->w[d][side] = k * G->r[d][side];
        }
    }
    for (int64_t r = E.plo; r <= E.phi && !why; r++) {
        if (gz_block(G, &E, r, lo, hi)) { why = xasprintf("the blocks do not evaluate"); break; }
        for (int d = 0; d < G->nd && !why; d++) {
            if (lo[d] < mn[d]) mn[d] = lo[d];
            if (hi[d] > mx[d]) mx[d] = hi[d];
            int64_t w = S->w[d][0] > S->w[d][1] ? S->w[d][0] : S->w[d][1];
            if (w && hi[d] - lo[d] + 1 < w)
                why = xasprintf("width %lld is beyond the block: the halo (%lld wide along %s) would reach past the "
                                  "neighbour, and processor %lld's block has %lld elements along %s (at the "
                                  "parameters' values)", (long long)k, (long long)w, G->nest->u.for_.vars[d].var,
                                  (long long)r, (long long)(hi[d] - lo[d] + 1 > 0 ? hi[d] - lo[d] + 1 : 0),
                                  G->nest->u.for_.vars[d].var);
        }
        for (int i = 0; i < G->ndest && !why; i++) why = gz_face(G, &E, r, i, S);
    }
    for (int d = 0; d < G->nd && !why; d++) {
        why = gz_union(G, &E, d, mn[d], mx[d], S);
        int several = !why && gz_block(G, &E, E.plo, lo, hi) == 0 && (lo[d] != mn[d] || hi[d] != mx[d]);
        /* the lower neighbour's high halo comes from here (S->w[d][1]), the upper's low one (w[d][0]) */
        for (int side = 0; side < 2; side++)   /* a face sent to only element by element: the other's mirror */
            if (several && S->w[d][!side] && !S->face[d][side] && gz_mirrorable(G, S->face[d][!side])) {
                S->face[d][side] = S->face[d][!side];
                S->mirror[d][side] = 1;
            }
        for (int side = 0; side < 2 && !why; side++)
            if (several && S->w[d][!side] && !S->face[d][side])
                why = xasprintf("the step sends to no %s neighbour along %s by a destination of the processor "
                                  "alone (ghost zones name their neighbours after the step's face sends)",
                                  side ? "upper" : "lower", G->nest->u.for_.vars[d].var);
        if (!several)   /* one block along d: nothing to exchange */
            S->r[d][0] = S->r[d][1] = S->w[d][0] = S->w[d][1] = 0;
    }
    for (int64_t r = E.plo; r <= E.phi && !why; r++) why = gz_grid(G, &E, S, r, mn, mx);
    return why;
}

/* ---- the registry's test ------------------------------------------------------------------------ */

int xf_ghost_applicable(const ir_program *p, char **why_not)
{
    gz_step G;
    char *why = gz_find(p, &G);
    gz_free(&G);
    *why_not = why;
    return why == NULL;
}

/* ---- rewriting ----------------------------------------------------------------------------------- */

typedef struct gz_rw {
    ir_program *p;
    char *text;                 /* the source's text: fresh names avoid it */
    const gz_step *G;
    const gz_shape *S;
    int64_t k;
    const char *tv, *pv;        /* the time and processor variables */
    const char *lo[GZ_MAXD], *hi[GZ_MAXD];   /* the block's bounds, named */
    ir_expr *off[GZ_MAXA];      /* the new offsets (relative coordinates), NULL: none */
} gz_rw;

static const char *gz_fresh(gz_rw *R, const char *base) { return xf_fresh_name(R->p, &R->text, base); }

static ir_expr *gz_name(gz_rw *R, const char *n) { return ir_new_name(R->p, n); }
static ir_expr *gz_int(gz_rw *R, int64_t v) { return ir_new_int(R->p, v); }
static ir_expr *gz_bin(gz_rw *R, ir_op op, ir_expr *a, ir_expr *b) { return ir_new_binary(R->p, op, a, b); }
static ir_expr *gz_plus(gz_rw *R, ir_expr *a, int64_t k)
{
    return k ? gz_bin(R, k > 0 ? IR_OP_ADD : IR_OP_SUB, a, gz_int(R, k > 0 ? k : -k)) : a;
}
static ir_expr *gz_and(gz_rw *R, ir_expr *a, ir_expr *b) { return a ? gz_bin(R, IR_OP_AND, a, b) : b; }
static ir_expr *gz_call2(gz_rw *R, ir_func f, ir_expr *a, ir_expr *b)
{
    ir_expr *args[2] = {a, b};
    return ir_new_call(R->p, f, args, 2);
}
/* e simplified where that makes it shorter */
static ir_expr *gz_simpler(gz_rw *R, ir_expr *e)
{
    char *a = ir_print_expr(e);
    ir_expr *s = xf_simplify_int(R->p, ir_clone_expr(R->p, e));
    char *b = ir_print_expr(s);
    ir_expr *out = a && b && strlen(b) < strlen(a) ? s : e;
    free(a);
    free(b);
    return out;
}

static void gz_lead(gz_rw *R, ir_stmt *s, char *text)   /* takes text */
{
    const char **l = ir_alloc(R->p, (size_t)(s->comments.nlead + 1) * sizeof *l);
    l[0] = ir_strdup(R->p, text);
    for (int i = 0; i < s->comments.nlead; i++) l[i + 1] = s->comments.lead[i];
    s->comments.lead = l;
    s->comments.nlead++;
    free(text);
}

/* The union of the blocks along d: low (0) or high (1) end. */
static ir_expr *gz_end(gz_rw *R, int d, int high)
{
    const ir_expr *g = high ? R->S->ghi[d] : R->S->glo[d];
    if (g) return ir_clone_expr(R->p, g);
    const ir_loopvar *v = &R->G->nest->u.for_.vars[d];
    const ir_loopvar *pvar = &R->G->pfor->u.for_.vars[R->G->pfor->u.for_.nvars - 1];
    ir_expr *b = ir_clone_expr(R->p, high ? v->hi : v->lo);
    /* the bounds name the processor body's lets: substitute them, then the processor */
    for (int i = R->G->nlets - 1; i >= 0; i--) {
        const ir_stmt *s = R->G->body->stmts[i];
        b = xf_subst1(R->p, b, s->u.let.var, s->u.let.value);
    }
    return gz_simpler(R, xf_subst1(R->p, b, R->pv, high ? pvar->hi : pvar->lo));
}

/* The destination of sign vector sg: the face neighbours composed (rp - q, then - 1). */
static ir_expr *gz_dest(gz_rw *R, const int *sg)
{
    ir_expr *to = gz_name(R, R->pv);
    for (int d = 0; d < R->G->nd; d++) {
        if (!sg[d]) continue;
        ir_expr *f = ir_clone_expr(R->p, R->S->face[d][sg[d] > 0]);
        if (R->S->mirror[d][sg[d] > 0]) f->u.op.op = f->u.op.op == IR_OP_ADD ? IR_OP_SUB : IR_OP_ADD;
        to = xf_subst1(R->p, f, R->pv, to);
    }
    return gz_simpler(R, to);
}

/* One send of the exchange step: the elements within w of the faces sg points to. */
static ir_stmt *gz_new_send(gz_rw *R, const int *sg)
{
    const gz_step *G = R->G;
    ir_stmt *s = ir_clone_stmt(R->p, G->send);
    ir_expr *to = gz_dest(R, sg);
    ir_expr *when = gz_bin(R, IR_OP_LT, gz_name(R, R->tv), ir_clone_expr(R->p, G->tfor->u.for_.vars[0].hi));
    for (int d = 0; d < G->nd; d++) {
        const char *x = G->nest->u.for_.vars[d].var;
        int64_t w = R->S->w[d][sg[d] < 0];   /* the neighbour's halo toward this block */
        if (sg[d] < 0)
            when = gz_and(R, gz_and(R, when, gz_bin(R, IR_OP_GT, gz_name(R, R->lo[d]), gz_end(R, d, 0))),
                          gz_bin(R, IR_OP_LT, gz_name(R, x), gz_plus(R, gz_name(R, R->lo[d]), w)));
        else if (sg[d] > 0)
            when = gz_and(R, gz_and(R, when, gz_bin(R, IR_OP_LT, gz_name(R, R->hi[d]), gz_end(R, d, 1))),
                          gz_bin(R, IR_OP_GT, gz_name(R, x), gz_plus(R, gz_name(R, R->hi[d]), -w)));
    }
    s->u.send.to_lo = to;
    s->u.send.when = when;
    if (G->send->u.send.as_idx) {   /* the receiver's index: its own offsets */
        const ir_expr *l = G->lhs;
        for (int j = 0; j < l->u.access.nidx && j < s->u.send.nas; j++) {
            ir_expr *e = ir_clone_expr(R->p, l->u.access.idx[j]);
            if (G->offlet[j]) e = xf_subst1(R->p, e, G->offlet[j], xf_subst1(R->p, R->off[j], R->pv, to));
            s->u.send.as_idx[j] = gz_simpler(R, e);
        }
    }
    return s;
}

/* Block b rewritten: its sends dropped, `news` after each assignment (a point has one), labels
 * suffixed when `suffix`. */
static void gz_resend(gz_rw *R, ir_block *b, ir_stmt *const *news, int nnew, const char *suffix)
{
    if (!b) return;
    ir_block *nb = ir_new_block(R->p);
    for (int i = 0; i < b->n; i++) {
        ir_stmt *s = b->stmts[i];
        if (s->kind == IR_S_SEND) continue;
        if (s->kind == IR_S_ASSIGN && suffix && s->u.assign.label) {
            char *l = xasprintf("%s_%s", s->u.assign.label, suffix);
            s->u.assign.label = ir_strdup(R->p, l);
            free(l);
        }
        if (s->kind == IR_S_IF) {
            gz_resend(R, s->u.if_.then_blk, news, nnew, suffix);
            gz_resend(R, s->u.if_.else_blk, news, nnew, suffix);
        }
        ir_block_append(R->p, nb, s);
        if (s->kind == IR_S_ASSIGN)   /* the point's one write: its element leaves right after */
            for (int k = 0; k < nnew; k++) ir_block_append(R->p, nb, ir_clone_stmt(R->p, news[k]));
    }
    b->stmts = nb->stmts;
    b->n = nb->n;
}

/* The halo widened by (k - 1)·r: the dist's bounds and offsets, and the offset lets. */
static char *gz_widen(gz_rw *R, ir_block *pbody)
{
    const gz_step *G = R->G;
    ir_decl *dd = R->p->decls[0];
    for (int i = 0; i < R->p->ndecls; i++)
        if (R->p->decls[i]->kind == IR_D_DIST && !strcmp(R->p->decls[i]->u.dist.array, G->dist->u.dist.array))
            dd = R->p->decls[i];
    for (int j = 1; j < G->ndims; j++) {
        int d = G->dimvar[j];
        int64_t wl = R->S->w[d][0] - R->S->r[d][0], wh = R->S->w[d][1] - R->S->r[d][1];   /* (k - 1)·r */
        const ir_expr *old = dd->u.dist.offset ? dd->u.dist.offset[j] : NULL;
        if (dd->u.dist.offset) {
            dd->u.dist.offset[j] = gz_simpler(R, gz_plus(R, dd->u.dist.offset[j], -wl));
            R->off[j] = dd->u.dist.offset[j];
            dd->u.dist.hi[j] = gz_simpler(R, gz_plus(R, dd->u.dist.hi[j], wl + wh));
        } else {
            dd->u.dist.lo[j] = gz_simpler(R, gz_plus(R, dd->u.dist.lo[j], -wl));
            dd->u.dist.hi[j] = gz_simpler(R, gz_plus(R, dd->u.dist.hi[j], wh));
        }
        if (!G->offlet[j]) continue;
        if (!dd->u.dist.offset) return xasprintf("subscripts with offsets, but the dist has none");
        int found = 0;
        for (int i = 0; i < G->nlets; i++) {
            ir_stmt *s = pbody->stmts[i];
            if (strcmp(s->u.let.var, G->offlet[j])) continue;
            if (!same_text(s->u.let.value, old))
                return xasprintf("the offset %s is not the dist's", G->offlet[j]);
            s->u.let.value = ir_clone_expr(R->p, R->off[j]);
            found = 1;
        }
        if (!found) return xasprintf("the offset %s is not a let of the processor's step", G->offlet[j]);
    }
    return NULL;
}

/* The exchange step's sends: every neighbour (3^d - 1 sign vectors, those with a face each way). */
static int gz_sends(gz_rw *R, ir_stmt **out, int max)
{
    int sg[GZ_MAXD], n = 0;
    for (int d = 0; d < R->G->nd; d++) sg[d] = -1;
    do {
        if (gz_sends_to(R->S, sg, R->G->nd) && n < max) out[n++] = gz_new_send(R, sg);
    } while (gz_next_sign(sg, R->G->nd));
    return n;
}

static ir_stmt *gz_let(gz_rw *R, const char *var, ir_expr *value)
{
    ir_stmt *s = ir_new_stmt(R->p, IR_S_LET);
    s->u.let.var = var;
    s->u.let.value = value;
    return s;
}

/* The exchange step's nest: the block, its sends after the point's write. */
static ir_stmt *gz_exchange_nest(gz_rw *R, const ir_stmt *nest, int *nsends)
{
    ir_stmt *sends[32];
    *nsends = gz_sends(R, sends, 32);
    ir_stmt *ex = ir_clone_stmt(R->p, nest);
    for (int d = 0; d < R->G->nd; d++) {
        ex->u.for_.vars[d].lo = gz_name(R, R->lo[d]);
        ex->u.for_.vars[d].hi = gz_name(R, R->hi[d]);
    }
    gz_resend(R, ex->u.for_.body, sends, *nsends, NULL);
    return ex;
}

/* Between exchanges: the block widened by e·r on each side with a reach, no sends, under
 * `if xlo <= xhi ..` (an empty block widens nothing). */
static ir_stmt *gz_widened_nest(gz_rw *R, const ir_stmt *nest, const char *e)
{
    ir_stmt *wide = ir_clone_stmt(R->p, nest);
    ir_expr *nonempty = NULL;
    for (int d = 0; d < R->G->nd; d++) {
        ir_loopvar *v = &wide->u.for_.vars[d];
        for (int side = 0; side < 2; side++) {
            int64_t r = R->S->r[d][side];
            if (!r) continue;
            ir_expr *er = r == 1 ? gz_name(R, e) : gz_bin(R, IR_OP_MUL, gz_int(R, r), gz_name(R, e));
            if (side) v->hi = gz_call2(R, IR_F_MIN, gz_bin(R, IR_OP_ADD, gz_name(R, R->hi[d]), er), gz_end(R, d, 1));
            else v->lo = gz_call2(R, IR_F_MAX, gz_bin(R, IR_OP_SUB, gz_name(R, R->lo[d]), er), gz_end(R, d, 0));
        }
        if (R->S->r[d][0] || R->S->r[d][1])
            nonempty = gz_and(R, nonempty, gz_bin(R, IR_OP_LE, gz_name(R, R->lo[d]), gz_name(R, R->hi[d])));
    }
    gz_resend(R, wide->u.for_.body, NULL, 0, "g");
    ir_stmt *guard = ir_new_stmt(R->p, IR_S_IF);
    guard->u.if_.cond = nonempty;
    guard->u.if_.then_blk = ir_new_block(R->p);
    ir_block_append(R->p, guard->u.if_.then_blk, wide);
    return guard;
}

/* The step's new body after its lets: the bounds named, then the exchange step or the widened one. */
static void gz_step_body(gz_rw *R, ir_block *pbody, ir_stmt *nest)
{
    const gz_step *G = R->G;
    ir_program *p = R->p;
    ir_block *nb = ir_new_block(p);
    for (int i = 0; i < G->nlets; i++) ir_block_append(p, nb, pbody->stmts[i]);
    for (int d = 0; d < G->nd; d++) {
        ir_loopvar *v = &nest->u.for_.vars[d];
        char b[64];
        snprintf(b, sizeof b, "%slo", v->var);
        R->lo[d] = gz_fresh(R, b);
        snprintf(b, sizeof b, "%shi", v->var);
        R->hi[d] = gz_fresh(R, b);
        ir_block_append(p, nb, gz_let(R, R->lo[d], v->lo));
        ir_block_append(p, nb, gz_let(R, R->hi[d], v->hi));
    }
    int ns;
    ir_stmt *ex = gz_exchange_nest(R, nest, &ns);
    const char *e = gz_fresh(R, "e");
    /* (t - t0) % k: the step's place in its group of k */
    ir_expr *since = gz_bin(R, IR_OP_SUB, gz_name(R, R->tv), ir_clone_expr(p, G->tfor->u.for_.vars[0].lo));
    ir_expr *ph = gz_simpler(R, gz_bin(R, IR_OP_MOD, since, gz_int(R, R->k)));
    ir_stmt *cond = ir_new_stmt(p, IR_S_IF);
    cond->u.if_.cond = gz_bin(R, IR_OP_EQ, ph, gz_int(R, R->k - 1));
    cond->u.if_.then_blk = ir_new_block(p);
    cond->u.if_.else_blk = ir_new_block(p);
    ir_block_append(p, cond->u.if_.then_blk, ex);
    ir_stmt *le = gz_let(R, e, gz_bin(R, IR_OP_SUB, gz_int(R, R->k - 1), ir_clone_expr(p, ph)));
    ir_block_append(p, cond->u.if_.else_blk, le);
    ir_block_append(p, cond->u.if_.else_blk, gz_widened_nest(R, nest, e));
    int64_t wmax = 0;
    for (int d = 0; d < G->nd; d++)
        for (int side = 0; side < 2; side++) if (R->S->w[d][side] > wmax) wmax = R->S->w[d][side];
    gz_lead(R, cond, xasprintf("ghost zones of width %lld: the halo (%lld deep) arrives every %lld steps, after "
                                 "the exchange step", (long long)R->k, (long long)wmax, (long long)R->k));
    gz_lead(R, ex, xasprintf("the exchange step: the block, and every element within %lld of a face sent to that "
                               "neighbour%s", (long long)wmax, ns > 2 ? " (corners too)" : ""));
    gz_lead(R, le, xasprintf("between exchanges: the block widened by %s (%lld just after an exchange), the "
                               "neighbours' elements recomputed here from the halo", e, (long long)R->k - 1));
    ir_block_append(p, nb, cond);
    pbody->stmts = nb->stmts;
    pbody->n = nb->n;
}

static int gz_width(const xf_args *args, int64_t *k, diag_list *d)
{
    *k = 2;
    const xf_int_param ps[] = {{"width", 2, 1000000, k, "(width 1 is the plain placement)"}};
    return xf_args_ints(args, "ghost", ps, 1, d);
}

ir_program *xf_ghost_apply(const ir_program *src, const xf_args *args, diag_list *d, int *status)
{
    *status = XF_EUSAGE;
    int64_t k;
    if (gz_width(args, &k, d)) return NULL;
    *status = XF_EREFUSED;
    gz_step G;
    gz_shape S;
    char *why = gz_find(src, &G);
    if (!why) why = gz_measure(&G, args, k, &S);
    if (!why) {
        int any = 0;
        for (int i = 0; i < G.nd; i++) any |= S.w[i][0] || S.w[i][1];
        if (!any) why = xasprintf("no processor has a neighbour: one block holds every element");
    }
    if (why) {
        diag_add(d, src->file, 0, 0, "ghost does not apply: %s", why);
        free(why);
        gz_free(&G);
        return NULL;
    }
    ir_program *p = ir_program_clone(src);
    gz_rw R = {.p = p, .text = ir_print(src), .G = &G, .S = &S, .k = k, .tv = G.tfor->u.for_.vars[0].var};
    R.pv = G.pfor->u.for_.vars[G.pfor->u.for_.nvars - 1].var;
    ir_step_nest sn;
    ir_step_nest_find(p->body, &sn);   /* the clone's own step (gz_find found the source's) */
    ir_block *pbody = sn.pfor->u.for_.body;
    why = gz_widen(&R, pbody);
    if (!why) gz_step_body(&R, pbody, pbody->stmts[G.nlets]);
    free(R.text);
    gz_free(&G);
    if (why) {
        diag_add(d, src->file, 0, 0, "ghost does not apply: %s", why);
        free(why);
        ir_program_free(p);
        return NULL;
    }
    if (xf_check_generated("ghost", p, d) != 0) return NULL;
    *status = XF_OK;
    return p;
}
