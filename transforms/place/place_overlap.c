/*
 * place_overlap.c — the overlap placement (syndm → syndm; Fahringer & Mehofer, "Buffer-Safe and
 * Cost-Driven Communication Optimization", JPDC 1999: sends as early, receives as late as
 * possible).  A step whose processor body is one rectangular loop nest over its elements, with
 * the sends beside the assignments, becomes:
 *
 *   let xlo = .., xhi = ..                        the nest's bounds, named once
 *   # boundary: ..                                2·d slabs `width` wide along the nest's faces,
 *   for x = xlo .. min(xlo + w - 1, xhi), ..        the body and its sends (labels L_x0, L_x1, ..)
 *   # interior: ..                                the rest, without sends
 *   for x = xlo + w .. xhi - w, .. { .. }
 *   recv                                          the step's messages arrive
 *
 * so that the messages travel while the interior is computed: the simulator records that work
 * (the trace's overlap), the cost models price it, the exporter posts the exchange after the
 * boundary and waits at `recv` (export_overlap.c).
 *
 * It applies when reordering the step's elements cannot change what they compute: every array
 * the nest writes is written at the time plane t + c and read only at earlier planes (so neither
 * the boundary nor what arrives in the step is read by the interior), no collectives, and every
 * send fires only in the boundary (checked at the parameters' values for the first steps and the
 * last; a wider `width` takes in deeper sends).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "place_int.h"
#include "entries_int.h"

enum { OV_MAXD = 4, OV_MAXSENDS = 4096 };

/* ---- recognising the step --------------------------------------------------------------------- */

/* The processor body and its element nest (pointers into p), or NULL with a reason. */
typedef struct ov_step {
    const ir_stmt *tfor, *pfor;
    ir_block *body;            /* the processor loop's body */
    int nlets;                 /* lets before the nest */
    ir_stmt *nest;             /* the element loop nest */
} ov_step;

static char *ov_find(const ir_program *p, ov_step *st)
{
    ir_step_nest sn, *n = &sn;
    if (ir_step_nest_find(p->body, n) != IR_NEST_OK || !n->pfor || n->pidx != n->pfor->u.for_.nvars - 1)
        return xasprintf("the processor loop has inner loops in its header; expected `for t .. seq, rp .. proc`");
    if (ir_program_has_collectives(p)) return xasprintf("the step has collectives (overlap places point-to-point sends)");
    st->tfor = n->tfor;
    st->pfor = n->pfor;
    st->body = n->pfor->u.for_.body;
    ir_block *b = st->body;
    int i = 0;
    while (i < b->n && b->stmts[i]->kind == IR_S_LET) i++;
    st->nlets = i;
    if (b->n && b->stmts[b->n - 1]->kind == IR_S_RECV)
        return xasprintf("the step already ends with recv (its messages are placed)");
    if (!ir_block_has_kind(b, IR_S_SEND)) return xasprintf("no sends in the step: there is nothing to overlap");
    if (i != b->n - 1 || b->stmts[i]->kind != IR_S_FOR)
        return xasprintf("the processor's step is not one loop nest over its elements after its lets");
    st->nest = b->stmts[i];
    const ir_stmt *f = st->nest;
    if (f->u.for_.nvars > OV_MAXD) return xasprintf("the element nest has more than %d loops", OV_MAXD);
    for (int k = 0; k < f->u.for_.nvars; k++) {
        const ir_loopvar *v = &f->u.for_.vars[k];
        if (v->step) return xasprintf("the element loop over %s has a step", v->var);
        for (int j = 0; j < f->u.for_.nvars; j++)
            if (xf_mentions(v->lo, f->u.for_.vars[j].var) || xf_mentions(v->hi, f->u.for_.vars[j].var))
                return xasprintf("the element nest is not rectangular (the bounds of %s name %s)", v->var,
                                   f->u.for_.vars[j].var);
    }
    return NULL;
}

/* ---- same-step independence: writes at plane t + c, reads only at earlier planes -------------- */

typedef struct ov_planes {
    const char *t;
    const char *alias[16];     /* lets of the nest that are t + aoff (`let t = tt + 1`) */
    int64_t aoff[16];
    int nalias;
    const char *arr[64];       /* arrays written in the nest */
    int64_t wmin[64];          /* the earliest plane each writes */
    int narr;
    char *why;                 /* the first violation */
} ov_planes;

/* A name as t + c: the time variable, or a let of it.  1 and *c, else 0. */
static int time_name(const ov_planes *P, const ir_expr *e, int64_t *c)
{
    if (e->kind != IR_E_NAME) return 0;
    if (!strcmp(e->u.name.id, P->t)) { *c = 0; return 1; }
    for (int i = 0; i < P->nalias; i++)
        if (!strcmp(e->u.name.id, P->alias[i])) { *c = P->aoff[i]; return 1; }
    return 0;
}

/* e as t + c (c a number): 1 and *c, else 0. */
static int time_offset(const ov_planes *P, const ir_expr *e, int64_t *c)
{
    if (time_name(P, e, c)) return 1;
    if (e->kind != IR_E_BINARY || (e->u.op.op != IR_OP_ADD && e->u.op.op != IR_OP_SUB)) return 0;
    const ir_expr *k = e->u.op.b;
    int64_t a;
    if (!time_name(P, e->u.op.a, &a) || k->kind != IR_E_INT) return 0;
    *c = a + (e->u.op.op == IR_OP_ADD ? k->u.ival : -k->u.ival);
    return 1;
}

/* The lets of the nest that name a time plane (in order: a let may name an earlier one). */
static void walk_lets(ov_planes *P, const ir_block *b)
{
    for (int i = 0; b && i < b->n; i++) {
        const ir_stmt *s = b->stmts[i];
        int64_t c;
        if (s->kind == IR_S_LET && P->nalias < 16 && time_offset(P, s->u.let.value, &c)) {
            P->alias[P->nalias] = s->u.let.var;
            P->aoff[P->nalias++] = c;
        } else if (s->kind == IR_S_IF) {
            walk_lets(P, s->u.if_.then_blk);
            walk_lets(P, s->u.if_.else_blk);
        } else if (s->kind == IR_S_FOR) {
            walk_lets(P, s->u.for_.body);
        }
    }
}

static int written(const ov_planes *P, const char *a)
{
    for (int i = 0; i < P->narr; i++) if (!strcmp(P->arr[i], a)) return i;
    return -1;
}

static void note_write(ov_planes *P, const ir_stmt *s)
{
    const ir_expr *l = s->u.assign.lhs;
    int64_t c;
    const char *lab = s->u.assign.label ? s->u.assign.label : "an assignment";
    if (l->kind != IR_E_ACCESS || !time_offset(P, l->u.access.idx[0], &c)) {
        if (!P->why) P->why = xasprintf("%s does not write a time plane %s + c (elements of one step may depend "
                                          "on each other)", lab, P->t);
        return;
    }
    int i = written(P, l->u.access.array);
    if (i < 0 && P->narr < 64) { i = P->narr++; P->arr[i] = l->u.access.array; P->wmin[i] = c; }
    if (i >= 0 && c < P->wmin[i]) P->wmin[i] = c;
}

static void walk_writes(ov_planes *P, const ir_block *b)
{
    for (int i = 0; b && i < b->n; i++) {
        const ir_stmt *s = b->stmts[i];
        if (s->kind == IR_S_ASSIGN) note_write(P, s);
        else if (s->kind == IR_S_IF) { walk_writes(P, s->u.if_.then_blk); walk_writes(P, s->u.if_.else_blk); }
        else if (s->kind == IR_S_FOR) walk_writes(P, s->u.for_.body);
    }
}

static void check_reads(ov_planes *P, const ir_expr *e, const char *where)
{
    if (!e || P->why) return;
    switch (e->kind) {
    case IR_E_ACCESS: {
        int i = written(P, e->u.access.array);
        int64_t c;
        if (i >= 0 && (!time_offset(P, e->u.access.idx[0], &c) || c >= P->wmin[i])) {
            char *r = ir_print_expr(e);
            P->why = xasprintf("%s reads %s, of the plane the step writes and receives: the interior would "
                                 "depend on the boundary or on what arrives in the same step", where, r);
            free(r);
        }
        for (int k = 0; k < e->u.access.nidx; k++) check_reads(P, e->u.access.idx[k], where);
        break;
    }
    case IR_E_NAME:
        if (written(P, e->u.name.id) >= 0 && !P->why)
            P->why = xasprintf("%s reads the scalar %s that the step writes", where, e->u.name.id);
        break;
    case IR_E_UNARY: case IR_E_BINARY: check_reads(P, e->u.op.a, where); check_reads(P, e->u.op.b, where); break;
    case IR_E_CALL: for (int k = 0; k < e->u.call.nargs; k++) check_reads(P, e->u.call.args[k], where); break;
    case IR_E_REDUCE:
        check_reads(P, e->u.reduce.lo, where); check_reads(P, e->u.reduce.hi, where); check_reads(P, e->u.reduce.body, where);
        break;
    default: break;
    }
}

static void walk_reads(ov_planes *P, const ir_block *b)
{
    for (int i = 0; b && i < b->n && !P->why; i++) {
        const ir_stmt *s = b->stmts[i];
        switch (s->kind) {
        case IR_S_ASSIGN: {
            const char *lab = s->u.assign.label ? s->u.assign.label : "an assignment";
            check_reads(P, s->u.assign.rhs, lab);
            for (int k = 0; s->u.assign.lhs->kind == IR_E_ACCESS && k < s->u.assign.lhs->u.access.nidx; k++)
                check_reads(P, s->u.assign.lhs->u.access.idx[k], lab);
            break;
        }
        case IR_S_LET: check_reads(P, s->u.let.value, "a let"); break;
        case IR_S_IF:
            check_reads(P, s->u.if_.cond, "a condition");
            walk_reads(P, s->u.if_.then_blk);
            walk_reads(P, s->u.if_.else_blk);
            break;
        case IR_S_FOR: walk_reads(P, s->u.for_.body); break;
        case IR_S_SEND: {   /* a send reads the element it sends, computed before it: only its guard */
            int64_t c;
            const ir_expr *w = s->u.send.what;
            if (w->kind != IR_E_ACCESS || written(P, w->u.access.array) < 0 ||
                !time_offset(P, w->u.access.idx[0], &c))
                P->why = xasprintf("a send at line %d does not send an element of a time plane the step writes",
                                     s->pos.line);
            check_reads(P, s->u.send.when, "a send's guard");
            break;
        }
        default: break;
        }
    }
}

static char *ov_independent(const ov_step *st)
{
    ov_planes P = {.t = st->tfor->u.for_.vars[0].var};
    walk_lets(&P, st->nest->u.for_.body);
    walk_writes(&P, st->nest->u.for_.body);
    if (!P.why) walk_reads(&P, st->nest->u.for_.body);
    return P.why;
}

/* ---- the registry's test ------------------------------------------------------------------------ */

int xf_overlap_applicable(const ir_program *p, char **why_not)
{
    ov_step st;
    char *why = ov_find(p, &st);
    if (!why) why = ov_independent(&st);
    *why_not = why;
    return why == NULL;
}

/* ---- do sends fire only in the boundary? (at the parameters' values) ---------------------------- */

typedef struct ov_eval {
    xf_env env;
    int64_t fuel;
    const ir_stmt *fired;      /* a send that fires in the interior */
    int failed;                /* something did not evaluate */
} ov_eval;

static void eval_block(ov_eval *E, const ir_block *b);
static void eval_stmt(ov_eval *E, const ir_stmt *s)
{
    int64_t v;
    switch (s->kind) {
    case IR_S_LET:
        if (xf_eval_int(s->u.let.value, &E->env, &v) || E->env.n == XF_ENV_MAX) { E->failed = 1; return; }
        E->env.names[E->env.n] = s->u.let.var;
        E->env.vals[E->env.n++] = v;
        return;
    case IR_S_IF:
        if (xf_eval_int(s->u.if_.cond, &E->env, &v)) { E->failed = 1; return; }
        eval_block(E, v ? s->u.if_.then_blk : s->u.if_.else_blk);
        return;
    case IR_S_SEND:
        if (!s->u.send.when) { E->fired = s; return; }
        if (xf_eval_int(s->u.send.when, &E->env, &v)) { E->failed = 1; return; }
        if (v) E->fired = s;
        return;
    case IR_S_FOR:
        if (ir_block_has_kind(s->u.for_.body, IR_S_SEND)) E->failed = 1;
        return;
    default: return;
    }
}
static void eval_block(ov_eval *E, const ir_block *b)
{
    int n0 = E->env.n;
    for (int i = 0; b && i < b->n && !E->fired && !E->failed; i++) eval_stmt(E, b->stmts[i]);
    E->env.n = n0;
}

/* Walks the interior box lo[] .. hi[] (inclusive) of the nest's variables. */
static void eval_box(ov_eval *E, const ir_stmt *nest, const int64_t *lo, const int64_t *hi)
{
    int d = nest->u.for_.nvars, n0 = E->env.n;
    int64_t x[OV_MAXD];
    for (int k = 0; k < d; k++) {
        if (lo[k] > hi[k]) return;
        x[k] = lo[k];
        E->env.names[n0 + k] = nest->u.for_.vars[k].var;
    }
    E->env.n = n0 + d;
    for (;;) {
        for (int k = 0; k < d; k++) E->env.vals[n0 + k] = x[k];
        eval_block(E, nest->u.for_.body);
        if (E->fired || E->failed) break;
        int k = d - 1;
        while (k >= 0 && ++x[k] > hi[k]) { x[k] = lo[k]; k--; }
        if (k < 0) break;
    }
    E->env.n = n0;
}

/* NULL when no send fires in the interior (width w) of any processor at the first two steps and
 * the last, at the parameters' values; else why. */
static char *ov_sends_in_boundary(const ir_program *p, const ov_step *st, int64_t w, const xf_args *args)
{
    int64_t *pv = xcalloc((size_t)(p->nparams + 1), sizeof *pv);
    diag_list dd;
    diag_list_init(&dd);
    char *why = NULL;
    ov_eval E = {.fuel = 200000000};
    E.env.fuel = &E.fuel;
    if (!pv || ir_params_eval(p, args->bindings, args->nbindings, 0, pv, &dd) != 0 || p->nparams + 16 > XF_ENV_MAX) {
        why = xasprintf("the parameters do not evaluate");
        goto out;
    }
    for (int i = 0; i < p->nparams; i++) {
        E.env.names[E.env.n] = p->params[i]->u.param.name;
        E.env.vals[E.env.n++] = pv[i];
    }
    for (int i = 0; i < p->body->n && p->body->stmts[i]->kind == IR_S_LET; i++) eval_stmt(&E, p->body->stmts[i]);
    const ir_loopvar *tv = &st->tfor->u.for_.vars[0];
    const ir_stmt *pf = st->pfor;
    const ir_loopvar *pvar = &pf->u.for_.vars[pf->u.for_.nvars - 1];
    int64_t tlo, thi;
    if (E.failed || xf_eval_int(tv->lo, &E.env, &tlo) || xf_eval_int(tv->hi, &E.env, &thi)) {
        why = xasprintf("the time loop's bounds do not evaluate");
        goto out;
    }
    int64_t ts[3] = {tlo, tlo + 1 <= thi ? tlo + 1 : tlo, thi};
    int base = E.env.n;
    for (int k = 0; k < 3 && !why; k++) {
        E.env.n = base;
        E.env.names[E.env.n] = tv->var;
        E.env.vals[E.env.n++] = ts[k];
        int64_t plo, phi;
        if (xf_eval_int(pvar->lo, &E.env, &plo) || xf_eval_int(pvar->hi, &E.env, &phi)) { E.failed = 1; break; }
        for (int64_t r = plo; r <= phi && !why && !E.failed; r++) {
            E.env.n = base + 1;
            E.env.names[E.env.n] = pvar->var;
            E.env.vals[E.env.n++] = r;
            for (int i = 0; i < st->nlets && !E.failed; i++) eval_stmt(&E, st->body->stmts[i]);
            int d = st->nest->u.for_.nvars;
            int64_t lo[OV_MAXD], hi[OV_MAXD];
            for (int j = 0; j < d && !E.failed; j++) {
                if (xf_eval_int(st->nest->u.for_.vars[j].lo, &E.env, &lo[j]) ||
                    xf_eval_int(st->nest->u.for_.vars[j].hi, &E.env, &hi[j])) E.failed = 1;
                lo[j] += w;
                hi[j] -= w;
            }
            if (!E.failed) eval_box(&E, st->nest, lo, hi);
            if (E.fired)
                why = xasprintf("the send at line %d fires inside the interior (width %lld) of processor %s = %lld "
                                  "at %s = %lld: a wider width= takes it into the boundary",
                                  E.fired->pos.line, (long long)w, pvar->var, (long long)r, tv->var, (long long)ts[k]);
        }
    }
    if (!why && E.failed) why = xasprintf("which elements send cannot be decided at the parameters' values "
                                            "(a guard or bound that does not evaluate, or a send in an inner loop)");
out:
    free(pv);
    diag_list_free(&dd);
    return why;
}

/* ---- rewriting ----------------------------------------------------------------------------------- */

typedef struct ov_rw {
    ir_program *p;
    char *text;                /* the source program's text (fresh names avoid it) */
} ov_rw;

static const char *fresh(ov_rw *R, const char *base) { return xf_fresh_name(R->p, &R->text, base); }

/* Copies of a block: sends dropped (`keep_sends` 0), labels suffixed (`suffix` non-NULL). */
static void relabel(ov_rw *R, ir_block *b, const char *suffix, int keep_sends)
{
    if (!b) return;
    int w = 0;
    for (int i = 0; i < b->n; i++) {
        ir_stmt *s = b->stmts[i];
        if (s->kind == IR_S_SEND && !keep_sends) continue;
        if (s->kind == IR_S_ASSIGN && suffix && s->u.assign.label) {
            char *l = xasprintf("%s_%s", s->u.assign.label, suffix);
            s->u.assign.label = ir_strdup(R->p, l);
            free(l);
        }
        if (s->kind == IR_S_IF) { relabel(R, s->u.if_.then_blk, suffix, keep_sends); relabel(R, s->u.if_.else_blk, suffix, keep_sends); }
        if (s->kind == IR_S_FOR) relabel(R, s->u.for_.body, suffix, keep_sends);
        b->stmts[w++] = s;
    }
    b->n = w;
}

static ir_expr *name(ov_rw *R, const char *n) { return ir_new_name(R->p, n); }
static ir_expr *plus(ov_rw *R, const char *n, int64_t k)
{
    if (!k) return name(R, n);
    return ir_new_binary(R->p, k > 0 ? IR_OP_ADD : IR_OP_SUB, name(R, n), ir_new_int(R->p, k > 0 ? k : -k));
}
static ir_expr *call2(ov_rw *R, ir_func f, ir_expr *a, ir_expr *b)
{
    ir_expr *args[2] = {a, b};
    return ir_new_call(R->p, f, args, 2);
}

static void lead(ov_rw *R, ir_stmt *s, const char *text)
{
    s->comments.lead = ir_alloc(R->p, sizeof *s->comments.lead);
    s->comments.lead[0] = ir_strdup(R->p, text);
    s->comments.nlead = 1;
}

/* One loop nest: the element nest's header with bounds lo[k] .. hi[k], and a copy of its body. */
static ir_stmt *slab(ov_rw *R, const ir_stmt *nest, ir_expr **lo, ir_expr **hi, const char *suffix, int keep_sends)
{
    ir_stmt *f = ir_clone_stmt(R->p, nest);
    for (int k = 0; k < f->u.for_.nvars; k++) { f->u.for_.vars[k].lo = lo[k]; f->u.for_.vars[k].hi = hi[k]; }
    relabel(R, f->u.for_.body, suffix, keep_sends);
    return f;
}

ir_program *xf_overlap_apply(const ir_program *src, const xf_args *args, diag_list *d, int *status)
{
    *status = XF_EUSAGE;
    int64_t w = 1, maxbuf = -1;
    const xf_int_param ps[] = {{"width", 1, 1000000, &w, NULL}, {"maxbuf", 0, INT64_MAX / 2, &maxbuf, NULL}};
    if (xf_args_ints(args, "overlap", ps, 2, d) != 0) return NULL;
    *status = XF_EREFUSED;
    ov_step st;
    char *why = ov_find(src, &st);
    if (!why) why = ov_sends_in_boundary(src, &st, w, args);
    if (why) {
        diag_add(d, src->file, 0, 0, "overlap does not apply: %s", why);
        free(why);
        return NULL;
    }
    ir_program *p = ir_program_clone(src);
    ov_rw R = {.p = p, .text = ir_print(src)};
    char *again = ov_find(p, &st);   /* the clone's own nest */
    if (again) {
        diag_add(d, src->file, 0, 0, "overlap: internal error: %s", again);
        free(again);
        free(R.text);
        ir_program_free(p);
        return NULL;
    }
    const ir_stmt *nest = st.nest;
    int nd = nest->u.for_.nvars;
    ir_block *nb = ir_new_block(p);
    for (int i = 0; i < st.nlets; i++) ir_block_append(p, nb, st.body->stmts[i]);
    /* the bounds, named once */
    const char *lo[OV_MAXD], *hi[OV_MAXD];
    for (int k = 0; k < nd; k++) {
        const ir_loopvar *v = &nest->u.for_.vars[k];
        char b[64];
        snprintf(b, sizeof b, "%slo", v->var);
        lo[k] = fresh(&R, b);
        snprintf(b, sizeof b, "%shi", v->var);
        hi[k] = fresh(&R, b);
        ir_stmt *l1 = ir_new_stmt(p, IR_S_LET), *l2 = ir_new_stmt(p, IR_S_LET);
        l1->u.let.var = lo[k];
        l1->u.let.value = ir_clone_expr(p, v->lo);
        l2->u.let.var = hi[k];
        l2->u.let.value = ir_clone_expr(p, v->hi);
        ir_block_append(p, nb, l1);
        ir_block_append(p, nb, l2);
    }
    /* the boundary: for each dimension k the low and the high slab, the dimensions before k
     * restricted to the interior (so that the slabs do not meet) */
    for (int k = 0; k < nd; k++)
        for (int side = 0; side < 2; side++) {
            ir_expr *L[OV_MAXD], *H[OV_MAXD];
            for (int j = 0; j < nd; j++) {
                L[j] = j < k ? plus(&R, lo[j], w) : name(&R, lo[j]);
                H[j] = j < k ? plus(&R, hi[j], -w) : name(&R, hi[j]);
            }
            if (side == 0) H[k] = call2(&R, IR_F_MIN, plus(&R, lo[k], w - 1), name(&R, hi[k]));
            else L[k] = call2(&R, IR_F_MAX, plus(&R, hi[k], -(w - 1)), plus(&R, lo[k], w));
            char sfx[80];
            snprintf(sfx, sizeof sfx, "%s%d", nest->u.for_.vars[k].var, side);
            ir_stmt *f = slab(&R, nest, L, H, sfx, 1);
            if (k == 0 && side == 0) {
                char *c = xasprintf("boundary (width %lld): the elements other processors need, computed and sent "
                                      "first", (long long)w);
                lead(&R, f, c);
                free(c);
            }
            ir_block_append(p, nb, f);
        }
    ir_expr *L[OV_MAXD], *H[OV_MAXD];
    for (int j = 0; j < nd; j++) { L[j] = plus(&R, lo[j], w); H[j] = plus(&R, hi[j], -w); }
    ir_stmt *in = slab(&R, nest, L, H, NULL, 0);
    lead(&R, in, "interior: computed while the messages travel");
    ir_block_append(p, nb, in);
    ir_stmt *rv = ir_new_stmt(p, IR_S_RECV);
    lead(&R, rv, "receive: the step's messages arrive (the next step reads them)");
    ir_block_append(p, nb, rv);
    st.body->stmts = nb->stmts;
    st.body->n = nb->n;
    free(R.text);
    if (xf_check_generated("overlap", p, d) != 0) return NULL;
    if (maxbuf >= 0 && !(p = xf_overlap_buffer_safe(src, p, maxbuf, args, d))) return NULL;
    *status = XF_OK;
    return p;
}
