/*
 * redist.c — redistribution between phases (syndm -> syndm).
 *
 * In a blocked step nest every phase (the statements that run at some steps: adi's column sweep
 * at the odd steps, its row sweep at the even ones) has the same owners, the blocks of virtual
 * processors p.  A two-dimensional array that one phase accesses by rows of p (a[p + c][..]) and
 * another by columns (a[..][p + c]) then travels element by element between them, and its local
 * memory is the union of a block of rows and a block of columns.  This transform gives the
 * column phases the array's transpose instead, at (a_t[p + c][..]): both phases work on rows,
 * and after each step that writes one layout a `transpose` collective (polyapm-lang(5)) moves
 * what the processors own to the rows the other layout's readers need.  The element sends of
 * such arrays go; each layout gets a box of the rows its phases touch; a_t starts from a's
 * initial values transposed.
 *
 * It applies when, for some array, every access is a row access or a column access (subscript
 * p + c for a constant c, the other subscript free of p), writes are at c = 0 (each row has one
 * owner), no step runs both kinds (checked over the time loop at the parameters' values), a
 * layout read at other rows (a halo) is not written by its own kind (its halo would go stale:
 * only the other layout's transposes refresh it), and an output array is not written by
 * columns.  The source rows of a transpose are the owner's rows that hold values: all of them
 * when the array has an initial value everywhere, else the rows its writes reach (the bounds of
 * p in their guards).  The program stays in absolute coordinates (relcoord does not take
 * collectives; the exporter lays the boxes out itself).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distribute_int.h"
#include "entries_int.h"

enum { RD_MAXACC = 512, RD_MAXCONJ = 16, RD_MAXNAMES = 64, RD_MAXARR = 8 };
enum { RD_FREE, RD_ROW, RD_COL, RD_OTHER };

/* One access of a two-dimensional array in the processor's body. */
typedef struct rd_acc {
    ir_expr *e;
    int kind;                         /* RD_ROW, RD_COL, RD_OTHER */
    int64_t c;                        /* p + c */
    int write;
    const ir_expr *tc[RD_MAXCONJ];    /* the time-only conjuncts of the enclosing ifs */
    int ntc;
    const ir_expr *pc[RD_MAXCONJ];    /* the conjuncts that name p */
    int npc;
} rd_acc;

typedef struct rd {
    ir_program *p;
    xf_tiling T;
    const char *pv, *rpv;
    int combined;                     /* the proc loop is the time loop's second variable */
    const char *names[RD_MAXNAMES];   /* lets: p + off, or poisoned (mentions p otherwise) */
    int64_t off[RD_MAXNAMES];
    int poison[RD_MAXNAMES];
    int nnames;
    const ir_expr *tc[RD_MAXCONJ], *pc[RD_MAXCONJ];
    int ntc, npc;
    rd_acc acc[RD_MAXACC];
    int nacc;
    char *why;                        /* a refusal of the whole program, or NULL */
} rd;

/* ---- classifying ---------------------------------------------------------------------------- */

static int rd_name(const rd *R, const char *id)
{
    for (int i = R->nnames - 1; i >= 0; i--)
        if (!strcmp(R->names[i], id)) return i;
    return -1;
}

/* Whether e names p or a let bound to it. */
static int rd_mentions_p(const rd *R, const ir_expr *e)
{
    if (xf_mentions(e, R->pv)) return 1;
    for (int i = 0; i < R->nnames; i++)
        if (xf_mentions(e, R->names[i])) return 1;
    return 0;
}

/* e as p + *c (RD_ROW's meaning here: a p-term), free of p (RD_FREE), or neither (RD_OTHER). */
static int rd_pterm(const rd *R, const ir_expr *e, int64_t *c)
{
    *c = 0;
    if (e->kind == IR_E_NAME) {
        if (!strcmp(e->u.name.id, R->pv)) return RD_ROW;
        int k = rd_name(R, e->u.name.id);
        if (k >= 0 && !R->poison[k]) { *c = R->off[k]; return RD_ROW; }
    }
    if (e->kind == IR_E_BINARY && (e->u.op.op == IR_OP_ADD || e->u.op.op == IR_OP_SUB) && e->u.op.b->kind == IR_E_INT &&
        rd_pterm(R, e->u.op.a, c) == RD_ROW) {
        *c += e->u.op.op == IR_OP_ADD ? e->u.op.b->u.ival : -e->u.op.b->u.ival;
        return RD_ROW;
    }
    return rd_mentions_p(R, e) ? RD_OTHER : RD_FREE;
}

static void rd_access(rd *R, ir_expr *e, int write)
{
    if (e->kind != IR_E_ACCESS || e->u.access.nidx != 2 || R->nacc == RD_MAXACC) {
        if (R->nacc == RD_MAXACC && !R->why) R->why = xasprintf("more than %d accesses", RD_MAXACC);
        return;
    }
    rd_acc *a = &R->acc[R->nacc++];
    memset(a, 0, sizeof *a);
    a->e = e;
    a->write = write;
    int64_t c0, c1;
    int k0 = rd_pterm(R, e->u.access.idx[0], &c0), k1 = rd_pterm(R, e->u.access.idx[1], &c1);
    a->kind = k0 == RD_ROW && k1 == RD_FREE ? RD_ROW : k0 == RD_FREE && k1 == RD_ROW ? RD_COL : RD_OTHER;
    a->c = a->kind == RD_ROW ? c0 : c1;
    memcpy(a->tc, R->tc, sizeof a->tc);
    a->ntc = R->ntc;
    memcpy(a->pc, R->pc, sizeof a->pc);
    a->npc = R->npc;
}

static void rd_expr(rd *R, ir_expr *e)
{
    if (!e) return;
    switch (e->kind) {
    case IR_E_ACCESS:
        rd_access(R, e, 0);
        for (int i = 0; i < e->u.access.nidx; i++) rd_expr(R, e->u.access.idx[i]);
        break;
    case IR_E_UNARY: rd_expr(R, e->u.op.a); break;
    case IR_E_BINARY: rd_expr(R, e->u.op.a); rd_expr(R, e->u.op.b); break;
    case IR_E_CALL: for (int i = 0; i < e->u.call.nargs; i++) rd_expr(R, e->u.call.args[i]); break;
    case IR_E_REDUCE: rd_expr(R, e->u.reduce.lo); rd_expr(R, e->u.reduce.hi); rd_expr(R, e->u.reduce.body); break;
    default: break;
    }
}

/* The conjuncts of an if's condition onto the stacks (time-only ones, ones naming p); the
 * counts before, to pop them. */
static void rd_push_cond(rd *R, const ir_expr *c)
{
    if (c->kind == IR_E_BINARY && c->u.op.op == IR_OP_AND) {
        rd_push_cond(R, c->u.op.a);
        rd_push_cond(R, c->u.op.b);
        return;
    }
    if (rd_mentions_p(R, c)) { if (R->npc < RD_MAXCONJ) R->pc[R->npc++] = c; }
    else if (xf_mentions(c, R->T.t->var) && R->ntc < RD_MAXCONJ) R->tc[R->ntc++] = c;
}

static void rd_block(rd *R, ir_block *b);

static void rd_stmt(rd *R, ir_stmt *s)
{
    switch (s->kind) {
    case IR_S_ASSIGN:
        if (s->u.assign.lhs->kind == IR_E_ACCESS) {
            rd_access(R, s->u.assign.lhs, 1);
            for (int i = 0; i < s->u.assign.lhs->u.access.nidx; i++) rd_expr(R, s->u.assign.lhs->u.access.idx[i]);
        }
        rd_expr(R, s->u.assign.rhs);
        break;
    case IR_S_LET: {
        int64_t c;
        int k = rd_pterm(R, s->u.let.value, &c);
        if (k == RD_FREE || R->nnames == RD_MAXNAMES) break;
        R->names[R->nnames] = s->u.let.var;
        R->off[R->nnames] = c;
        R->poison[R->nnames++] = k != RD_ROW;
        break;
    }
    case IR_S_IF: {
        int nt = R->ntc, np = R->npc;
        rd_push_cond(R, s->u.if_.cond);
        rd_block(R, s->u.if_.then_blk);
        R->ntc = nt;
        R->npc = np;
        if (s->u.if_.else_blk) rd_block(R, s->u.if_.else_blk);   /* its condition is not kept: weaker */
        break;
    }
    case IR_S_FOR: rd_block(R, s->u.for_.body); break;
    case IR_S_SEND: break;
    case IR_S_COLL: case IR_S_RECV:
        if (!R->why) R->why = xasprintf("the program has collectives or a recv already");
        break;
    }
}

static void rd_block(rd *R, ir_block *b)
{
    int nn = R->nnames;
    for (int i = 0; b && i < b->n; i++) rd_stmt(R, b->stmts[i]);
    R->nnames = nn;
}

/* ---- which arrays ---------------------------------------------------------------------------- */

/* What the analysis found about one array. */
typedef struct rd_arr {
    int index;
    int64_t rmin, rmax, cmin, cmax;   /* offsets of the row and of the column accesses (with 0) */
    int rw, cw;                       /* written by rows, by columns */
} rd_arr;

static int rd_eval_conj(const ir_expr *const *c, int n, xf_env *env)
{
    for (int i = 0; i < n; i++) {
        int64_t v;
        if (xf_eval_int(c[i], env, &v) == 0 && v == 0) return 0;   /* not evaluable: may hold */
    }
    return 1;
}

/* The reason array a cannot be redistributed, or NULL with *A filled (caller frees). */
static char *rd_judge(const rd *R, const ir_program *src, int a, const xf_env *env0, rd_arr *A)
{
    const ir_decl *ad = src->arrays[a];
    const char *nm = ad->u.array.name;
    memset(A, 0, sizeof *A);
    A->index = a;
    int nrow = 0, ncol = 0, rhalo = 0, chalo = 0;
    for (int i = 0; i < R->nacc; i++) {
        const rd_acc *x = &R->acc[i];
        if (x->e->u.access.array_index != a) continue;
        if (x->kind == RD_OTHER) return xasprintf("%s is accessed neither by rows nor by columns of %s", nm, R->pv);
        if (x->write && x->c) return xasprintf("%s is written %lld rows away from its owner", nm, (long long)x->c);
        int64_t *lo = x->kind == RD_ROW ? &A->rmin : &A->cmin, *hi = x->kind == RD_ROW ? &A->rmax : &A->cmax;
        if (x->c < *lo) *lo = x->c;
        if (x->c > *hi) *hi = x->c;
        if (x->kind == RD_ROW) { nrow++; A->rw |= x->write; rhalo |= x->c != 0; }
        else { ncol++; A->cw |= x->write; chalo |= x->c != 0; }
    }
    if (!nrow || !ncol) return xasprintf("%s is not accessed both by rows and by columns", nm);
    if ((rhalo && A->rw) || (chalo && A->cw))
        return xasprintf("%s is read at other rows by the kind of phase that writes it (a halo a transpose "
                         "would not refresh)", nm);
    for (int i = 0; i < src->ndecls; i++) {
        const ir_decl *d = src->decls[i];
        if (d->kind == IR_D_OUTPUT && d->u.output.array_index == a && A->cw)
            return xasprintf("%s is an output written by columns", nm);
    }
    /* no step runs both kinds: the time loop at the parameters' values */
    xf_env env = *env0;
    int64_t tlo, thi, fuel = 1 << 24;
    env.fuel = &fuel;
    if (xf_eval_int(R->T.t->lo, &env, &tlo) || xf_eval_int(R->T.t->hi, &env, &thi) || thi - tlo > 1000000)
        return xasprintf("the time loop's bounds do not evaluate at the parameters' values");
    env.names[env.n] = R->T.t->var;
    int it = env.n++;
    for (int64_t t = tlo; t <= thi; t++) {
        env.vals[it] = t;
        int row = 0, col = 0;
        for (int i = 0; i < R->nacc && !(row && col); i++) {
            const rd_acc *x = &R->acc[i];
            if (x->e->u.access.array_index != a) continue;
            if (!rd_eval_conj(x->tc, x->ntc, &env)) continue;
            if (x->kind == RD_ROW) row = 1;
            else col = 1;
        }
        if (row && col)
            return xasprintf("%s is accessed by rows and by columns at step %s = %lld", nm, R->T.t->var, (long long)t);
    }
    return NULL;
}

/* ---- the new text ------------------------------------------------------------------------------ */

static char *rd_text(const ir_expr *e) { return ir_print_expr(e); }

/* The bound of p a conjunct gives (lower: lo, upper: hi, both for ==); 0, or -1 when it has
 * another shape. */
static int rd_pbound(const rd *R, const ir_expr *c, strbuf *lo, strbuf *hi)
{
    if (c->kind != IR_E_BINARY) return -1;
    ir_op op = c->u.op.op;
    int64_t ca, cb;
    int ka = rd_pterm(R, c->u.op.a, &ca), kb = rd_pterm(R, c->u.op.b, &cb);
    const ir_expr *other;
    int64_t k;
    if (ka == RD_ROW && kb == RD_FREE) { other = c->u.op.b; k = ca; }
    else if (kb == RD_ROW && ka == RD_FREE) {   /* mirror: X op p + c  ==  p + c op' X */
        other = c->u.op.a;
        k = cb;
        op = op == IR_OP_GE ? IR_OP_LE : op == IR_OP_LE ? IR_OP_GE : op == IR_OP_GT ? IR_OP_LT : op == IR_OP_LT ? IR_OP_GT : op;
    } else return -1;
    char *t = rd_text(other);
    int64_t adj = op == IR_OP_GT ? 1 : op == IR_OP_LT ? -1 : 0;
    strbuf *w[2] = {op == IR_OP_GE || op == IR_OP_GT || op == IR_OP_EQ ? lo : NULL,
                    op == IR_OP_LE || op == IR_OP_LT || op == IR_OP_EQ ? hi : NULL};
    int rc = w[0] || w[1] ? 0 : -1;
    for (int i = 0; i < 2; i++)
        if (w[i]) strbuf_printf(w[i], "%s(%s) - (%lld)", w[i]->n ? ", " : "", t, (long long)(k - adj));
    free(t);
    return rc;
}

/* The rows of layout `row` (1: a, 0: a_t) whose writes reach them, as "lo .. hi" bounds in *lo,
 * *hi (min/max texts); 0, or -1 when a guard has another shape. */
static int rd_written_rows(const rd *R, int a, int row, const char *alo, const char *ahi, strbuf *lo, strbuf *hi)
{
    strbuf los = {0}, his = {0};
    int n = 0, rc = 0;
    for (int i = 0; i < R->nacc && !rc; i++) {
        const rd_acc *x = &R->acc[i];
        if (x->e->u.access.array_index != a || !x->write || (x->kind == RD_ROW) != row) continue;
        strbuf l = {0}, h = {0};
        for (int j = 0; j < x->npc && !rc; j++) rc = rd_pbound(R, x->pc[j], &l, &h);
        char *ol = xasprintf("max(%s, %s)", alo, l.n ? l.s : alo), *oh = xasprintf("min(%s, %s)", ahi, h.n ? h.s : ahi);
        if (!los.s || !strstr(los.s, ol) || !strstr(his.s, oh)) {   /* each statement's bounds once */
            strbuf_printf(&los, "%s%s", n ? ", " : "", ol);
            strbuf_printf(&his, "%s%s", n ? ", " : "", oh);
            n++;
        }
        free(ol);
        free(oh);
        strbuf_free(&l);
        strbuf_free(&h);
    }
    if (!rc) {
        strbuf_printf(lo, "%s%s%s", n > 1 ? "min(" : "", los.s ? los.s : alo, n > 1 ? ")" : "");
        strbuf_printf(hi, "%s%s%s", n > 1 ? "max(" : "", his.s ? his.s : ahi, n > 1 ? ")" : "");
    }
    strbuf_free(&los);
    strbuf_free(&his);
    return rc;
}

/* The steps at which layout `row` is written: "when C" text (empty: every step). */
static void rd_when(const rd *R, int a, int row, strbuf *w)
{
    strbuf seen = {0};
    int n = 0, always = 0;
    for (int i = 0; i < R->nacc && !always; i++) {
        const rd_acc *x = &R->acc[i];
        if (x->e->u.access.array_index != a || !x->write || (x->kind == RD_ROW) != row) continue;
        if (!x->ntc) { always = 1; break; }
        strbuf one = {0};
        for (int j = 0; j < x->ntc; j++) {
            char *t = rd_text(x->tc[j]);
            strbuf_printf(&one, "%s(%s)", j ? " && " : "", t);
            free(t);
        }
        char key[1024];
        snprintf(key, sizeof key, "|%s|", one.s);
        if (!seen.s || !strstr(seen.s, key)) {
            strbuf_printf(&seen, "%s", key);
            strbuf_printf(w, "%s(%s)", n++ ? " || " : " when ", one.s);
        }
        strbuf_free(&one);
    }
    if (always) { strbuf_free(w); memset(w, 0, sizeof *w); }
    strbuf_free(&seen);
}

/* ---- the analysis ------------------------------------------------------------------------------ */

typedef struct rd_plan {
    rd R;
    rd_arr arr[RD_MAXARR];
    int narr;
    char *why;                        /* why nothing applies (owned), when narr == 0 */
} rd_plan;

/* Analyses src (its clone in P->R.p, owned by the plan): 0 with P->narr candidates, or -1 with
 * P->why. */
static int rd_analyse(const ir_program *src, const xf_args *args, int syncomm_too, rd_plan *P)
{
    memset(P, 0, sizeof *P);
    rd *R = &P->R;
    if (src->level != IR_SYNDM && !(syncomm_too && src->level == IR_SYNCOMM)) {
        P->why = xasprintf("redist works on a syndm program (this one is %s)", ir_level_name(src->level));
        return -1;
    }
    if (ir_program_has_collectives(src)) {
        P->why = xasprintf("the program has collectives (redist makes its transposes once, from commgen's sends)");
        return -1;
    }
    R->p = ir_program_clone(src);
    ir_step_nest n;
    if (ir_step_nest_find(R->p->body, &n) != IR_NEST_OK || xf_tiling_recognise(R->p, &R->T) != 0 ||
        R->T.k != TK_BLOCKED) {
        P->why = xasprintf("redist needs a blocked tiling of one processor dimension");
        return -1;
    }
    R->pv = R->T.pv[0];
    R->rpv = n.pfor->u.for_.vars[n.pidx].var;
    R->combined = n.pfor == n.tfor;
    rd_block(R, R->T.body);
    if (R->why) { P->why = R->why; R->why = NULL; return -1; }
    int64_t pv[256];
    xf_env env0 = {.n = 0};
    diag_list dd;
    diag_list_init(&dd);
    int bad = src->nparams > 200 || ir_params_eval(src, args ? args->bindings : NULL, args ? args->nbindings : 0, 0,
                                                  pv, &dd) != 0;
    diag_list_free(&dd);
    if (bad) { P->why = xasprintf("the parameters do not evaluate"); return -1; }
    for (int i = 0; i < src->nparams && env0.n < XF_ENV_MAX - 1; i++) {
        env0.names[env0.n] = src->params[i]->u.param.name;
        env0.vals[env0.n++] = pv[i];
    }
    strbuf why = {0};
    for (int a = 0; a < src->narrays; a++) {
        if (src->arrays[a]->u.array.ndims != 2) continue;
        int used = 0;
        for (int i = 0; i < R->nacc && !used; i++) used = R->acc[i].e->u.access.array_index == a;
        if (!used) continue;
        rd_arr A;
        char *w = rd_judge(R, src, a, &env0, &A);
        if (!w && P->narr < RD_MAXARR) P->arr[P->narr++] = A;
        if (w) strbuf_printf(&why, "%s%s", why.n ? "; " : "", w);
        free(w);
    }
    if (!P->narr) P->why = why.n ? strbuf_take(&why) : xasprintf("no two-dimensional array in the step nest");
    strbuf_free(&why);
    return P->narr ? 0 : -1;
}

static void rd_plan_free(rd_plan *P)
{
    if (P->R.p) ir_program_free(P->R.p);
    free(P->R.why);
    free(P->why);
}

int xf_redist_applicable(const ir_program *p, char **why_not)
{
    rd_plan P;
    int ok = rd_analyse(p, NULL, 0, &P) == 0;
    *why_not = ok ? NULL : P.why;
    P.why = NULL;
    rd_plan_free(&P);
    return ok;
}

int xf_redist_pending(const ir_program *p)
{
    rd_plan P;
    int ok = rd_analyse(p, NULL, 1, &P) == 0;
    rd_plan_free(&P);
    return ok;
}

/* ---- the new program --------------------------------------------------------------------------- */

/* The texts of one redistributed array. */
typedef struct rd_names {
    char *a, *t;                      /* a and its transpose (owned) */
    char *lo[2], *hi[2];              /* a's bounds */
} rd_names;

/* "max(LO, OWNLO + c0) .. min(HI, OWNHI + c1)": rows of a layout. */
static void rd_rows(const rd *R, const char *lo, const char *hi, int64_t c0, int64_t c1, strbuf *b)
{
    char *p0 = R->T.p0[0] ? rd_text(R->T.p0[0]) : xasprintf("0"), *bs = rd_text(R->T.b[0]);
    strbuf_printf(b, "max(%s, (%s) + %s * (%s) + (%lld)) .. min(%s, (%s) + %s * (%s) + (%s) - 1 + (%lld))", lo, p0, R->rpv,
                  bs, (long long)c0, hi, p0, R->rpv, bs, bs, (long long)c1);
    free(p0);
    free(bs);
}

/* The source rows of the transpose out of layout `row`: the owner's rows that hold values. */
static int rd_src_rows(const rd *R, const ir_program *src, const rd_arr *A, const rd_names *N, int row, strbuf *b)
{
    int full = 0;
    for (int i = 0; i < src->ndecls && !full; i++) {
        const ir_decl *d = src->decls[i];
        full = d->kind == IR_D_INIT && d->u.init.array_index == A->index && d->u.init.nidx == 2 &&
               d->u.init.idx[0]->kind == IR_E_NAME && d->u.init.idx[0]->u.name.nk == IR_N_INITVAR &&
               d->u.init.idx[1]->kind == IR_E_NAME && d->u.init.idx[1]->u.name.nk == IR_N_INITVAR;
    }
    const char *lo = N->lo[row ? 0 : 1], *hi = N->hi[row ? 0 : 1];
    strbuf wl = {0}, wh = {0};
    if (!full && rd_written_rows(R, A->index, row, lo, hi, &wl, &wh) != 0) return -1;
    rd_rows(R, full ? lo : wl.s, full ? hi : wh.s, 0, 0, b);
    strbuf_free(&wl);
    strbuf_free(&wh);
    return 0;
}

/* The lines to add for one array: declarations after a's (arr, init, dist) and the transposes. */
typedef struct rd_lines { strbuf arr, init, dist, coll; } rd_lines;

static int rd_array_lines(const rd *R, const ir_program *src, const rd_arr *A, const rd_names *N, rd_lines *L,
                          char **text)
{
    const ir_decl *ad = src->arrays[A->index];
    const char *el = ad->u.array.elem == IR_DOUBLE ? "double" : "int";
    strbuf_printf(&L->arr, "array %s[%s .. %s][%s .. %s] %s\n", N->t, N->lo[1], N->hi[1], N->lo[0], N->hi[0], el);
    for (int i = 0; i < src->ndecls; i++) {
        const ir_decl *d = src->decls[i];
        if (d->kind != IR_D_INIT || d->u.init.array_index != A->index || d->u.init.nidx != 2) continue;
        char *i0 = rd_text(d->u.init.idx[0]), *i1 = rd_text(d->u.init.idx[1]), *v = rd_text(d->u.init.value);
        strbuf_printf(&L->init, "init %s[%s][%s] = %s\n", N->t, i1, i0, v);
        free(i0);
        free(i1);
        free(v);
    }
    strbuf rows = {0}, trows = {0};
    rd_rows(R, N->lo[0], N->hi[0], A->rmin, A->rmax, &rows);
    rd_rows(R, N->lo[1], N->hi[1], A->cmin, A->cmax, &trows);
    strbuf_printf(&L->dist, "dist %s(%s) [%s][%s .. %s]\ndist %s(%s) [%s][%s .. %s]\n", N->a, R->rpv, rows.s, N->lo[1],
                  N->hi[1], N->t, R->rpv, trows.s, N->lo[0], N->hi[0]);
    int rc = 0;
    for (int row = 1; row >= 0 && !rc; row--) {
        if (!(row ? A->rw : A->cw)) continue;
        strbuf sr = {0}, w = {0};
        rc = rd_src_rows(R, src, A, N, row, &sr);
        rd_when(R, A->index, row, &w);
        char *base = xasprintf("T_%s", row ? N->t : N->a);
        const char *lab = xf_fresh_name(R->p, text, base);
        free(base);
        if (!rc)
            strbuf_printf(&L->coll, "%s: %s[%s] = transpose %s[%s]%s\n", lab, row ? N->t : N->a, row ? trows.s : rows.s,
                          row ? N->a : N->t, sr.s, w.s ? w.s : "");
        strbuf_free(&sr);
        strbuf_free(&w);
    }
    strbuf_free(&rows);
    strbuf_free(&trows);
    return rc;
}

/* Removes the sends of array `a` from b and the blocks below it. */
static void rd_drop_sends(ir_block *b, const char *a)
{
    int k = 0;
    for (int i = 0; b && i < b->n; i++) {
        ir_stmt *s = b->stmts[i];
        if (s->kind == IR_S_SEND && s->u.send.what->kind == IR_E_ACCESS && !strcmp(s->u.send.what->u.access.array, a))
            continue;
        if (s->kind == IR_S_IF) { rd_drop_sends(s->u.if_.then_blk, a); rd_drop_sends(s->u.if_.else_blk, a); }
        if (s->kind == IR_S_FOR) rd_drop_sends(s->u.for_.body, a);
        b->stmts[k++] = s;
    }
    if (b) b->n = k;
}

/* text with `add` inserted after the first line starting with `key` (or that line replaced);
 * NULL when there is none. */
static char *rd_splice(const char *text, const char *key, const char *add, int replace)
{
    size_t kl = strlen(key);
    for (const char *l = text; *l; ) {
        const char *e = strchr(l, '\n');
        e = e ? e + 1 : l + strlen(l);
        if (!strncmp(l, key, kl))
            return xasprintf("%.*s%s%s", (int)(replace ? l - text : e - text), text, add, e);
        l = e;
    }
    return NULL;
}

/* text with the transposes (lines of `coll`) at the end of the processor loop's body: before its
 * closing brace, the last line "}" (or "  }" inside a separate time loop). */
static char *rd_put_colls(const char *text, const char *coll, int combined)
{
    const char *close = combined ? "}\n" : "  }\n";
    const char *at = NULL;
    for (const char *l = text; *l; ) {
        const char *e = strchr(l, '\n');
        e = e ? e + 1 : l + strlen(l);
        if ((size_t)(e - l) == strlen(close) && !strncmp(l, close, strlen(close))) at = l;
        l = e;
    }
    if (!at) return NULL;
    strbuf ind = {0};
    for (const char *l = coll; *l; ) {
        const char *e = strchr(l, '\n');
        strbuf_printf(&ind, "%s%.*s\n", combined ? "  " : "    ", (int)(e - l), l);
        l = e + 1;
    }
    char *r = xasprintf("%.*s%s%s", (int)(at - text), text, ind.s, at);
    strbuf_free(&ind);
    return r;
}

static char *rd_replace(char *text, const char *key, const char *add, int replace)
{
    char *r = text ? rd_splice(text, key, add, replace) : NULL;
    free(text);
    return r;
}

ir_program *xf_redist_apply(const ir_program *src, const xf_args *args, diag_list *d, int *status)
{
    *status = XF_EREFUSED;
    rd_plan P;
    if (rd_analyse(src, args, 0, &P) != 0) {
        diag_add(d, src->file, 0, 0, "redist does not apply: %s", P.why);
        rd_plan_free(&P);
        return NULL;
    }
    rd *R = &P.R;
    char *text = ir_print(src);
    rd_names N[RD_MAXARR];
    rd_lines L[RD_MAXARR];
    memset(N, 0, sizeof N);
    memset(L, 0, sizeof L);
    int rc = 0;
    for (int k = 0; k < P.narr && !rc; k++) {
        const ir_decl *ad = src->arrays[P.arr[k].index];
        N[k].a = xstrdup(ad->u.array.name);
        char *base = xasprintf("%st", ad->u.array.name);
        N[k].t = xstrdup(xf_fresh_name(R->p, &text, base));
        free(base);
        for (int i = 0; i < 2; i++) { N[k].lo[i] = rd_text(ad->u.array.lo[i]); N[k].hi[i] = rd_text(ad->u.array.hi[i]); }
        rc = rd_array_lines(R, src, &P.arr[k], &N[k], &L[k], &text);
        /* the column phases on the transpose; the sends go */
        for (int i = 0; i < R->nacc; i++) {
            rd_acc *x = &R->acc[i];
            if (x->e->u.access.array_index != P.arr[k].index || x->kind != RD_COL) continue;
            x->e->u.access.array = ir_strdup(R->p, N[k].t);
            ir_expr *t = x->e->u.access.idx[0];
            x->e->u.access.idx[0] = x->e->u.access.idx[1];
            x->e->u.access.idx[1] = t;
        }
        rd_drop_sends(R->p->body, N[k].a);
    }
    free(text);
    text = rc ? NULL : ir_print(R->p);
    strbuf coll = {0};
    for (int k = 0; k < P.narr && text; k++) {
        char *key = xasprintf("array %s[", N[k].a);
        text = rd_replace(text, key, L[k].arr.s, 0);
        free(key);
        key = xasprintf("dist %s(", N[k].a);
        text = rd_replace(text, key, L[k].dist.s, 1);
        free(key);
        key = xasprintf("init %s[", N[k].a);
        if (L[k].init.s && text) text = rd_replace(text, key, L[k].init.s, 0);
        free(key);
        strbuf_printf(&coll, "%s", L[k].coll.s ? L[k].coll.s : "");
    }
    char *full = text && coll.s ? rd_put_colls(text, coll.s, R->combined) : NULL;
    ir_program *out = NULL;
    if (!full) {
        diag_add(d, src->file, 0, 0, "redist does not apply: the rows a transpose moves are not bounded by the "
                 "guards of the writes (p in another form)");
    } else {
        diag_list cd;
        diag_list_init(&cd);
        out = ir_load_text(src->file, full, strlen(full), &cd);
        if (out) {
            xf_simplify_program(out);
            if (xf_check_generated("redist", out, d) != 0) out = NULL;
        } else {
            diag_add(d, NULL, 0, 0, "redist: internal error: the generated program does not check:");
            for (int i = 0; i < cd.n; i++) diag_add(d, NULL, cd.items[i].line, cd.items[i].col, "  %s", cd.items[i].msg);
            diag_add(d, NULL, 0, 0, "generated text:\n%s", full);
        }
        diag_list_free(&cd);
    }
    if (out && args && args->report)
        for (int k = 0; k < P.narr; k++)
            fprintf(args->report, "redist: %s by rows, its transpose %s by columns (offsets %lld .. %lld, %lld .. %lld)\n",
                    N[k].a, N[k].t, (long long)P.arr[k].rmin, (long long)P.arr[k].rmax, (long long)P.arr[k].cmin,
                    (long long)P.arr[k].cmax);
    for (int k = 0; k < RD_MAXARR; k++) {
        for (int i = 0; i < 2; i++) { free(N[k].lo[i]); free(N[k].hi[i]); }
        free(N[k].a);
        free(N[k].t);
        strbuf_free(&L[k].arr);
        strbuf_free(&L[k].init);
        strbuf_free(&L[k].dist);
        strbuf_free(&L[k].coll);
    }
    strbuf_free(&coll);
    free(text);
    free(full);
    rd_plan_free(&P);
    if (out) *status = XF_OK;
    return out;
}
