/*
 * export.c — the C+MPI exporter, the last transformation: plans how a checked program becomes C
 * and writes the self-contained directory (the program, the runtime sources it needs, a Makefile
 * and a README).  export_program.c writes the C itself.
 *
 * The plan:
 *  - level: source and syn become sequential C (no MPI needed: the checksum part of the runtime
 *    stands alone); syndm becomes C+MPI with one rank per processor; syncomm becomes C+MPI when
 *    its communication is collectives alone and no processor reads a row another writes (every
 *    rank holds the whole arrays; ex_check_own_rows), else it is refused (apply memdist first).
 *  - statements: a table keyed by statement kind says what the exporter handles at which level;
 *    a kind it does not handle is refused with the statement's position.  Collectives are
 *    emitted by export_coll.c as calls into runtime/rt_coll.c.
 *  - time planes: an array whose dimension d is always subscripted `t + c` by the time loop
 *    variable t, or floor((t + a) / k) + c (a 2t / 2t + 1 schedule's `let t = tt / 2`), and by
 *    constants in inits and outputs, keeps only its live planes, the index taken modulo their
 *    number (FD's a[0..steps][..][..] holds 2 planes; engine/planes.c decides).
 *  - messages (syndm): HALO when the partner set is static — no send depends on t except
 *    through its time plane and conditions on t alone (sends under different conditions on t,
 *    e.g. an in-place kernel's alternating sweeps, form phases: one pattern each; the conjuncts
 *    of an `if` or `when` on t alone select the phase, the others are static) — else
 *    ALLTOALLV (records, the thesis's exchange).  AUTO picks HALO where it applies.  Double and
 *    int arrays alike: values travel as 8-byte words, bit for bit.
 *  - pieced local memories (syndm dists with pieces or named indices): only the pieces are
 *    allocated (export_piece.c); their messages are records with global indices, and what needs
 *    one box per processor (halo pattern, collectives, time planes) is not used or is refused.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "export_int.h"
#include "planes.h"

/* ---- statement kinds -------------------------------------------------------------------------- */

typedef struct ex_kind {
    ir_stmt_kind kind;
    const char *name;
    int sequential;           /* handled at source/syn */
    int mpi;                  /* handled at syndm */
} ex_kind;

static const ex_kind ex_kinds[] = {
    {IR_S_ASSIGN, "assignment", 1, 1},
    {IR_S_LET, "let", 1, 1},
    {IR_S_IF, "if", 1, 1},
    {IR_S_FOR, "for", 1, 1},
    {IR_S_SEND, "send", 0, 1},
    {IR_S_COLL, "collective", 0, 1},
    {IR_S_RECV, "recv", 0, 1},
};

static int ex_check_kinds(const ir_program *p, const ir_block *b, int mpi, diag_list *d)
{
    for (int i = 0; i < b->n; i++) {
        const ir_stmt *s = b->stmts[i];
        const ex_kind *k = NULL;
        for (size_t j = 0; j < sizeof ex_kinds / sizeof ex_kinds[0]; j++)
            if (ex_kinds[j].kind == s->kind) k = &ex_kinds[j];
        if (!k || !(mpi ? k->mpi : k->sequential)) {
            diag_add(d, p->file, s->pos.line, s->pos.col,
                     "export: the exporter does not handle %s statements%s yet", k ? k->name : "these",
                     k ? (mpi ? "" : " in sequential programs") : "");
            return -1;
        }
        if (s->kind == IR_S_IF) {
            if (ex_check_kinds(p, s->u.if_.then_blk, mpi, d)) return -1;
            if (s->u.if_.else_blk && ex_check_kinds(p, s->u.if_.else_blk, mpi, d)) return -1;
        } else if (s->kind == IR_S_FOR) {
            if (ex_check_kinds(p, s->u.for_.body, mpi, d)) return -1;
        }
    }
    return 0;
}

const char *xf_exchange_name(xf_exchange e)
{
    return e == XF_EXCHANGE_HALO ? "halo" : e == XF_EXCHANGE_ALLTOALLV ? "alltoallv" : "auto";
}

int xf_exchange_parse(const char *s, xf_exchange *out)
{
    static const struct { const char *name; xf_exchange e; } t[] = {
        {"auto", XF_EXCHANGE_AUTO}, {"halo", XF_EXCHANGE_HALO}, {"alltoallv", XF_EXCHANGE_ALLTOALLV}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(s, t[i].name) == 0) { *out = t[i].e; return 1; }
    return 0;
}

/* ---- time planes (engine/planes.c decides) ---------------------------------------------------- */

static void ex_plan_fold(ex_plan *pl, ex_array *a, int index)
{
    a->fold = -1;
    ir_planes pn;
    if (pl->tslot < 0 || pl->shared || a->pieced || !ir_live_planes(pl->p, pl->pv, index, &pl->nest->u.for_.vars[0], &pn))
        return;
    const ir_decl *dd = a->dist;
    if (dd && dd->u.dist.dk == IR_DIST_LOCAL && dd->u.dist.step && dd->u.dist.step[pn.dim]) return;   /* strided planes */
    a->fold = pn.dim;
    a->fold_w = pn.w;
    a->mark_step = pn.mark_step;
    if (pn.mark != INT64_MIN) a->mark_plane = pn.mark;
}

/* ---- pieced local memories -------------------------------------------------------------------- */

/* What export_piece.c does not handle: 0, else -1 and the diagnostic naming the array. */
static int ex_check_pieces(const ex_plan *pl, const ex_array *a, diag_list *d)
{
    const ir_decl *dist = a->dist;
    int nd = a->decl->u.array.ndims;
    const char *why = NULL;
    if (nd < 1 || nd > 8) why = "it has no dimension or more than 8";
    if (!why) return 0;
    diag_add(d, pl->p->file, dist->pos.line, dist->pos.col,
             "export: the dist of array %s has pieces or named indices, and %s: not exported", a->decl->u.array.name, why);
    return -1;
}

/* ---- static partner sets ---------------------------------------------------------------------- */

typedef struct ex_halo_scan {
    ex_plan *pl;
    unsigned char *tdep;      /* per slot: changes with t (or with data) */
    int ok;
    char why[256];
    const ir_expr *tstack[EX_PHASE_CONDS];   /* the time-only `if`s around the send being scanned */
    int nt;
    char *phase_text[EX_PHASES];               /* each phase's conditions, printed */
    int nsends;
    ir_tform *send_f;         /* per array, k == 0 when not yet seen */
    const ir_expr **lets;     /* the lets' values (time planes subscripted through a let) */
} ex_halo_scan;

/* Whether e calls crand, clrand48 or cdrand48 (the program then includes rt_crand.h). */
static int ex_calls_random(const ir_expr *e)
{
    if (!e) return 0;
    switch (e->kind) {
    case IR_E_UNARY: case IR_E_BINARY: return ex_calls_random(e->u.op.a) || ex_calls_random(e->u.op.b);
    case IR_E_CALL:
        if (e->u.call.f == IR_F_CRAND || e->u.call.f == IR_F_CLRAND48 || e->u.call.f == IR_F_CDRAND48) return 1;
        for (int i = 0; i < e->u.call.nargs; i++) if (ex_calls_random(e->u.call.args[i])) return 1;
        return 0;
    case IR_E_REDUCE:
        return ex_calls_random(e->u.reduce.lo) || ex_calls_random(e->u.reduce.hi) || ex_calls_random(e->u.reduce.body);
    default: return 0;
    }
}

static int ex_dep(const ex_halo_scan *h, const ir_expr *e)
{
    if (!e) return 0;
    switch (e->kind) {
    case IR_E_NAME:
        if (e->u.name.nk == IR_N_ARRAY) return 1;
        if (e->u.name.nk == IR_N_LOOPVAR || e->u.name.nk == IR_N_LET || e->u.name.nk == IR_N_REDVAR)
            return h->tdep[e->u.name.index];
        return 0;
    case IR_E_ACCESS: return 1;
    case IR_E_UNARY: case IR_E_BINARY: return ex_dep(h, e->u.op.a) || ex_dep(h, e->u.op.b);
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++) if (ex_dep(h, e->u.call.args[i])) return 1;
        return 0;
    case IR_E_REDUCE: return 1;
    default: return 0;
    }
}

static void ex_halo_fail(ex_halo_scan *h, const ir_stmt *s, const char *what)
{
    if (!h->ok) return;
    h->ok = 0;
    snprintf(h->why, sizeof h->why, "the send at %d:%d %s", s->pos.line, s->pos.col, what);
}

static void ex_halo_send(ex_halo_scan *h, const ir_stmt *s)
{
    const ex_plan *pl = h->pl;
    h->nsends++;
    if (ex_dep(h, s->u.send.to_lo) || ex_dep(h, s->u.send.to_hi)) { ex_halo_fail(h, s, "goes to processors that change with t"); return; }
    ir_expr *const *widx;
    int nidx, arr = ex_sent_array(s->u.send.what, &widx, &nidx);
    const ex_array *a = &pl->arr[arr];
    for (int side = 0; side < 2; side++) {
        ir_expr *const *idx = side && s->u.send.as_idx ? s->u.send.as_idx : widx;
        for (int d = 0; d < nidx; d++) {
            if (d == a->fold) {
                ir_tform c;
                if (!ir_time_form(pl->p, h->lets, idx[d], pl->tslot, &c)) {
                    ex_halo_fail(h, s, "sends a time plane that is not floor((t + a) / k) + c");
                    return;
                }
                const ir_tform *o = &h->send_f[arr];
                if (o->k && (o->a != c.a || o->k != c.k || o->c != c.c)) {
                    ex_halo_fail(h, s, "sends another time plane than the other sends of its array");
                    return;
                }
                h->send_f[arr] = c;
            } else if (ex_dep(h, idx[d])) {
                ex_halo_fail(h, s, "sends elements that change with t");
                return;
            }
        }
    }
    /* its phase: the sends with the same conditions on t (the `if`s around it, the conjuncts of
     * its `when` on t alone) share a pattern */
    const ir_expr *conds[EX_PHASE_CONDS + 1];
    int nc = 0;
    for (int i = 0; i < h->nt; i++) conds[nc++] = h->tstack[i];
    if (s->u.send.when) {
        const ir_expr *cj[64];
        int ncj = ex_conjuncts(s->u.send.when, cj, 0, 64);
        if (ncj > 64) { ex_halo_fail(h, s, "has more than 64 conditions"); return; }
        for (int i = 0; i < ncj; i++) {
            if (!ex_dep(h, cj[i])) continue;
            if (!ex_time_only(cj[i], pl->tslot)) {
                ex_halo_fail(h, s, "has a condition that changes with t together with other variables");
                return;
            }
            if (nc == EX_PHASE_CONDS) { ex_halo_fail(h, s, "has too many conditions on t"); return; }
            conds[nc++] = cj[i];
        }
    }
    strbuf key = {0};
    for (int i = 0; i < nc; i++) {
        char *t = ir_print_expr(conds[i]);
        strbuf_printf(&key, "%s%s", i ? " && " : "", t ? t : "?");
        free(t);
    }
    char *text = key.s ? strbuf_take(&key) : xstrdup("");
    ex_plan *ph = h->pl;
    int k = 0;
    while (k < ph->nphases && strcmp(h->phase_text[k], text) != 0) k++;
    if (k == ph->nphases) {
        if (k == EX_PHASES) { free(text); ex_halo_fail(h, s, "adds one phase of exchanges too many"); return; }
        h->phase_text[k] = text;
        ph->phase_nconds[k] = nc;
        for (int i = 0; i < nc; i++) ph->phase_cond[k][i] = conds[i];
        ph->nphases++;
    } else {
        free(text);
    }
    if (ph->nphase_sends == EX_PHASE_SENDS) { ex_halo_fail(h, s, "is one send too many for the halo"); return; }
    ph->phase_send[ph->nphase_sends] = s;
    ph->phase_of[ph->nphase_sends++] = k;
}

int ex_phase_of(const ex_plan *pl, const ir_stmt *send)
{
    for (int i = 0; i < pl->nphase_sends; i++)
        if (pl->phase_send[i] == send) return pl->phase_of[i];
    return -1;
}

static void ex_halo_block(ex_halo_scan *h, const ir_block *b, int under)
{
    for (int i = 0; i < b->n && h->ok; i++) {
        const ir_stmt *s = b->stmts[i];
        switch (s->kind) {
        case IR_S_LET:
            if (ex_dep(h, s->u.let.value)) h->tdep[s->u.let.slot] = 1;
            break;
        case IR_S_IF: {
            /* the conjuncts on t alone select the phase of the sends under it, the others are
             * static (`tt % 2 == 0 && p >= 1`); its else: none */
            const ir_expr *cj[EX_PHASE_CONDS + 1];
            int nc = ex_conjuncts(s->u.if_.cond, cj, 0, EX_PHASE_CONDS + 1), ndyn = 0, phase = !under;
            for (int k = 0; k < nc; k++) {
                if (!ex_dep(h, cj[k])) continue;
                ndyn++;
                if (!ex_time_only(cj[k], h->pl->tslot)) phase = 0;
            }
            if (nc > EX_PHASE_CONDS || h->nt + ndyn > EX_PHASE_CONDS) phase = 0;
            phase = phase && ndyn > 0;
            int u = under || (ndyn > 0 && !phase), n0 = h->nt;
            for (int k = 0; phase && k < nc; k++)
                if (ex_dep(h, cj[k])) h->tstack[h->nt++] = cj[k];
            ex_halo_block(h, s->u.if_.then_blk, u);
            h->nt = n0;
            if (s->u.if_.else_blk) ex_halo_block(h, s->u.if_.else_blk, u || phase);
            break;
        }
        case IR_S_FOR: {
            int u = under;
            for (int k = 0; k < s->u.for_.nvars; k++) {
                const ir_loopvar *v = &s->u.for_.vars[k];
                if (ex_dep(h, v->lo) || ex_dep(h, v->hi) || ex_dep(h, v->step)) { h->tdep[v->slot] = 1; u = 1; }
            }
            ex_halo_block(h, s->u.for_.body, u);
            break;
        }
        case IR_S_SEND:
            if (under) ex_halo_fail(h, s, "lies under a loop or condition that changes with t");
            else ex_halo_send(h, s);
            break;
        default: break;
        }
    }
}

/* 1 when every send of the step nest has a static partner set; otherwise 0 and why. */
static int ex_plan_halo(ex_plan *pl, char *why, size_t whysz)
{
    const ir_program *p = pl->p;
    ex_halo_scan h;
    memset(&h, 0, sizeof h);
    h.pl = pl;
    h.ok = 1;
    h.tdep = xcalloc((size_t)(p->nslots + 1), 1);
    h.send_f = xcalloc((size_t)(p->narrays + 1), sizeof *h.send_f);
    h.lets = ir_let_values(p);
    if (!h.tdep || !h.send_f || !h.lets) {
        free(h.tdep);
        free(h.send_f);
        free(h.lets);
        snprintf(why, whysz, "out of memory");
        return 0;
    }
    h.tdep[pl->tslot] = 1;
    const ir_stmt *nest = pl->nest;
    for (int k = 1; k < nest->u.for_.nvars; k++) {
        const ir_loopvar *v = &nest->u.for_.vars[k];
        if (ex_dep(&h, v->lo) || ex_dep(&h, v->hi)) h.tdep[v->slot] = 1;
    }
    ex_halo_block(&h, nest->u.for_.body, 0);
    if (h.ok) {
        for (int i = 0; i < p->narrays; i++) pl->arr[i].send_f = h.send_f[i].k ? h.send_f[i] : (ir_tform){0, 1, 0};
    } else {
        snprintf(why, whysz, "%s", h.why);
    }
    for (int k = 0; k < pl->nphases; k++) free(h.phase_text[k]);
    if (!h.ok) pl->nphases = pl->nphase_sends = 0;
    free(h.tdep);
    free(h.send_f);
    free(h.lets);
    return h.ok;
}

/* ---- syncomm: every processor its own rows ------------------------------------------------------ */

/* A syncomm program is exported with every rank holding the whole arrays (replicated storage,
 * inits applied everywhere) and running the processor body for its own processor only; the
 * collectives are its only communication.  That computes what the shared-memory simulation
 * does when no processor reads an element another processor wrote: every array written in the
 * body is read (and written) only at rows whose first subscript is the processor variable
 * itself (a collective's block may name its row as the range [rp .. rp]).  Arrays the body
 * never writes are read anywhere (they hold their init values on every rank); arrays it never
 * reads are written anywhere (the output gather takes each element from the lowest processor
 * that computed it). */
typedef struct ex_own_scan {
    const ex_plan *pl;
    const unsigned char *written;
    int pass;                  /* 0: collect the written arrays, 1: check */
    unsigned char *wr, *rd;    /* pass 0: written / read somewhere in the body */
    const ir_expr *bad;
} ex_own_scan;

static int ex_is_pvar(const ex_plan *pl, const ir_expr *e)
{
    return e && e->kind == IR_E_NAME && e->u.name.nk == IR_N_LOOPVAR && e->u.name.index == pl->pslot;
}

static void ex_own_visit(void *ctx, const ir_expr *acc, int write, int send_as, const ir_expr *const *as)
{
    (void)send_as; (void)as;
    ex_own_scan *o = ctx;
    int arr = acc->kind == IR_E_ACCESS ? acc->u.access.array_index : acc->u.name.index;
    if (o->pass == 0) { if (write) o->wr[arr] = 1; else o->rd[arr] = 1; return; }
    if (!o->written[arr] || o->bad) return;
    if (acc->kind == IR_E_ACCESS && acc->u.access.nidx > 0 && ex_is_pvar(o->pl, acc->u.access.idx[0])) return;
    o->bad = acc;
}

/* A collective block with no subscript whose range is [rp .. rp] names the processor's row too. */
static int ex_own_range(const ex_plan *pl, const ir_expr *blk, const ir_expr *lo, const ir_expr *hi)
{
    return blk && blk->kind == IR_E_ACCESS && blk->u.access.nidx == 0 && ex_is_pvar(pl, lo) && ex_is_pvar(pl, hi);
}

static void ex_own_block(ex_own_scan *o, const ir_block *b)
{
    for (int i = 0; i < b->n && !o->bad; i++) {
        const ir_stmt *s = b->stmts[i];
        if (s->kind == IR_S_IF) {
            ex_own_block(o, s->u.if_.then_blk);
            if (s->u.if_.else_blk) ex_own_block(o, s->u.if_.else_blk);
            continue;
        }
        if (s->kind == IR_S_FOR) { ex_own_block(o, s->u.for_.body); continue; }
        if (s->kind != IR_S_COLL) {
            ir_block one = {(ir_stmt **)&b->stmts[i], 1, NULL, {0}};
            ir_block_accesses(&one, ex_own_visit, o);
            continue;
        }
        /* a collective: its blocks one by one (a [rp .. rp] range is the own row), then the rest */
        const ir_expr *const *blk[2] = {(const ir_expr *const *)s->u.coll.src, (const ir_expr *const *)s->u.coll.dst};
        int nb[2] = {s->u.coll.nsrc, s->u.coll.ndst};
        ir_expr **lo[2] = {s->u.coll.src_lo, s->u.coll.dst_lo}, **hi[2] = {s->u.coll.src_hi, s->u.coll.dst_hi};
        for (int side = 0; side < 2 && !o->bad; side++)
            for (int k = 0; k < nb[side] && !o->bad; k++) {
                const ir_expr *e = blk[side][k];
                if (!e) continue;
                int arr = e->kind == IR_E_ACCESS ? e->u.access.array_index : e->u.name.index;
                if (o->pass == 0) { if (side) o->wr[arr] = 1; else o->rd[arr] = 1; continue; }
                if (!o->written[arr]) continue;
                if (s->u.coll.ck == IR_C_MULTICAST && side == 0) { o->bad = e; continue; }   /* read at the root */
                if (ex_own_range(o->pl, e, lo[side] ? lo[side][k] : NULL, hi[side] ? hi[side][k] : NULL)) continue;
                if (e->kind == IR_E_ACCESS && e->u.access.nidx > 0 && ex_is_pvar(o->pl, e->u.access.idx[0])) continue;
                o->bad = e;
            }
        if (o->pass == 1 && !o->bad) {
            /* subscripts, bounds, root and group of the collective are plain reads */
            for (int side = 0; side < 2; side++)
                for (int k = 0; k < nb[side]; k++) {
                    const ir_expr *e = blk[side][k];
                    if (e && e->kind == IR_E_ACCESS)
                        for (int d = 0; d < e->u.access.nidx; d++) ir_expr_accesses(e->u.access.idx[d], ex_own_visit, o);
                    if (lo[side] && lo[side][k]) {
                        ir_expr_accesses(lo[side][k], ex_own_visit, o);
                        ir_expr_accesses(hi[side][k], ex_own_visit, o);
                    }
                }
            ir_expr_accesses(s->u.coll.root, ex_own_visit, o);
            ir_expr_accesses(s->u.coll.by, ex_own_visit, o);
            ir_expr_accesses(s->u.coll.when, ex_own_visit, o);
        }
    }
}

/* 0 when every processor reads only its own rows of the arrays the body writes; else -1 and
 * the diagnostic. */
static int ex_check_own_rows(const ex_plan *pl, diag_list *d)
{
    const ir_program *p = pl->p;
    ex_own_scan o = {pl, NULL, 0, xcalloc((size_t)p->narrays + 1, 1), xcalloc((size_t)p->narrays + 1, 1), NULL};
    if (!o.wr || !o.rd) { free(o.wr); free(o.rd); diag_add(d, NULL, 0, 0, "out of memory"); return -1; }
    ex_own_block(&o, p->body);
    for (int i = 0; i < p->narrays; i++) o.wr[i] = o.wr[i] && o.rd[i];   /* written and read: own rows only */
    o.written = o.wr;
    o.pass = 1;
    ex_own_block(&o, p->body);
    free(o.wr);
    free(o.rd);
    if (!o.bad) return 0;
    int arr = o.bad->kind == IR_E_ACCESS ? o.bad->u.access.array_index : o.bad->u.name.index;
    char pv[64];
    ex_cname(pv, sizeof pv, "rp");
    diag_add(d, p->file, o.bad->pos.line, o.bad->pos.col,
             "export: %s is written and read in the processor body, but accessed here not at the processor's own row "
             "(first subscript the processor variable): a syncomm program is exported only when each processor "
             "reads its own rows of the arrays it writes and communicates by collectives alone (apply memdist "
             "to reach syndm)", p->arrays[arr]->u.array.name);
    return -1;
}

/* ---- sends ------------------------------------------------------------------------------------ */

typedef struct ex_send_scan {
    ex_plan *pl;
    int nsends;
    const ir_stmt *bad;
    const char *why;
    char whybuf[256];
    int pieced;               /* 1 + the first array with a pieced local memory that is sent, or 0 */
} ex_send_scan;

static void ex_sends(ex_send_scan *c, const ir_block *b)
{
    for (int i = 0; i < b->n && !c->bad; i++) {
        const ir_stmt *s = b->stmts[i];
        if (s->kind == IR_S_IF) {
            ex_sends(c, s->u.if_.then_blk);
            if (s->u.if_.else_blk) ex_sends(c, s->u.if_.else_blk);
        } else if (s->kind == IR_S_FOR) {
            ex_sends(c, s->u.for_.body);
        } else if (s->kind == IR_S_COLL && s->u.coll.ck == IR_C_TRANSPOSE) {
            if ((c->why = ex_transpose_refusal(c->pl, s, c->whybuf, sizeof c->whybuf))) c->bad = s;
        } else if (s->kind == IR_S_COLL) {
            /* a collective's block is a run of consecutive local elements: box layouts only */
            for (int side = 0; side < 2 && !c->bad; side++)
                for (int k = 0; k < (side ? s->u.coll.ndst : s->u.coll.nsrc) && !c->bad; k++) {
                    const ir_expr *e = side ? s->u.coll.dst[k] : s->u.coll.src[k];
                    if (!e || (e->kind != IR_E_ACCESS && !(e->kind == IR_E_NAME && e->u.name.nk == IR_N_ARRAY))) continue;
                    int arr = e->kind == IR_E_ACCESS ? e->u.access.array_index : e->u.name.index;
                    if (!c->pl->arr[arr].pieced) continue;
                    snprintf(c->whybuf, sizeof c->whybuf, "names array %s, whose dist has pieces or named indices: "
                             "collectives are exported for arrays with one box per processor only",
                             c->pl->arr[arr].decl->u.array.name);
                    c->bad = s;
                    c->why = c->whybuf;
                }
        } else if (s->kind == IR_S_SEND) {
            c->nsends++;
            int64_t k;
            ir_expr *const *widx;
            int nidx, arr = ex_sent_array(s->u.send.what, &widx, &nidx);
            if (c->pl->arr[arr].pieced && !c->pieced) c->pieced = 1 + arr;
            if (!ir_time_sub(s->u.send.at, c->pl->tslot, &k) || k != c->pl->tstep) {
                c->bad = s;
                c->why = "sends for a later time than the next step (only `at t + 1` is exported)";
            }
        }
    }
}

/* ---- the directory ---------------------------------------------------------------------------- */

static int ex_mkdirs(const char *dir, diag_list *d)
{
    char *t = xstrdup(dir);
    for (char *c = t + 1; *c; c++) {
        if (*c != '/') continue;
        *c = '\0';
        if (mkdir(t, 0777) != 0 && errno != EEXIST) { diag_add(d, NULL, 0, 0, "export: %s: %s", t, strerror(errno)); free(t); return -1; }
        *c = '/';
    }
    int rc = mkdir(t, 0777) != 0 && errno != EEXIST ? -1 : 0;
    if (rc) diag_add(d, NULL, 0, 0, "export: %s: %s", t, strerror(errno));
    free(t);
    return rc;
}

/* Whether the file at path holds exactly text. */
static int ex_same_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = strlen(text), at = 0, r;
    char chunk[8192];
    int same = 1;
    while (same && (r = fread(chunk, 1, sizeof chunk, f)) > 0) {
        same = at + r <= n && memcmp(chunk, text + at, r) == 0;
        at += r;
    }
    fclose(f);
    return same && at == n;
}

/* Writes dir/name; a file that already holds the text is left as it is (its time too, so that
 * make does not build again what an earlier export of the same program built). */
static int ex_write(const char *dir, const char *name, const char *text, diag_list *d)
{
    char *path = xasprintf("%s/%s", dir, name);
    if (ex_same_text(path, text)) { free(path); return 0; }
    FILE *f = fopen(path, "w");
    if (!f) { diag_add(d, NULL, 0, 0, "export: %s: %s", path, strerror(errno)); free(path); return -1; }
    fputs(text, f);
    int rc = fclose(f) == 0 ? 0 : -1;
    if (rc) diag_add(d, NULL, 0, 0, "export: %s: write failed", path);
    free(path);
    return rc;
}

static int ex_needed(const ex_plan *pl, const char *name)
{
    if (strcmp(name, "intsem.h") == 0 || strcmp(name, "rt_int.h") == 0) return 1;   /* the integer semantics */
    if (strcmp(name, "crand.h") == 0 || strcmp(name, "rt_crand.h") == 0) return pl->crand;
    if (pl->mpi) return strncmp(name, "rt", 2) == 0;
    return strcmp(name, "rt_checksum.c") == 0 || strcmp(name, "rt_checksum.h") == 0;
}

static char *ex_makefile(const ex_plan *pl)
{
    strbuf b = {0};
    strbuf_printf(&b, "# Makefile of %s, exported by polyapm.\n#\n", pl->progname);
    if (pl->mpi)
        strbuf_printf(&b, "#   make          builds %s with mpicc\n#   make run      runs it: mpirun -np %" PRId64 " ./%s\n"
                          "#   make smpi     builds %s.smpi with SimGrid's smpicc (run it with smpirun -platform P.xml)\n",
                      pl->progname, pl->nprocs, pl->progname, pl->progname);
    else
        strbuf_printf(&b, "#   make          builds %s with cc\n#   make run      runs it\n", pl->progname);
    strbuf_printf(&b, "#\n# Built for this host's processor (-O3 -march=native); `make PORTABLE=1` leaves\n"
                      "# -march=native out, for a cluster of other processors.  CC=... names another compiler.\n"
                      "# -ffp-contract=off: no fused multiply-add, so that every value (and the checksum) is the\n"
                      "# simulator's bit for bit.  EXTRA_CFLAGS=-Werror makes warnings errors.\n\n");
    strbuf_printf(&b, "ifeq ($(origin CC),default)\nCC      = %s\nendif\nSMPICC ?= smpicc\n", pl->mpi ? "mpicc" : "cc");
    strbuf_printf(&b, "ARCH    = $(if $(PORTABLE),,-march=native)\n");
    strbuf_printf(&b, "CFLAGS  = " XF_EXPORT_CFLAGS "\nLDLIBS  = -lm\nPROG    = %s\n", pl->progname);
    strbuf_printf(&b, "SRC     = $(PROG).c %s\nOBJ     = $(SRC:.c=.o)\nHDR     = %s%s\n\n",
                  pl->mpi ? "$(wildcard rt_*.c)" : "rt_checksum.c",
                  pl->mpi ? "rt.h rt_checksum.h rt_int.h intsem.h" : "rt_checksum.h rt_int.h intsem.h",
                  pl->crand ? " rt_crand.h crand.h" : "");
    strbuf_printf(&b, ".PHONY: all run smpi clean\n\nall: $(PROG)\n\n$(PROG): $(OBJ)\n\t$(CC) $(CFLAGS) $(OBJ) -o $@ $(LDLIBS)\n\n"
                      "%%.o: %%.c $(HDR)\n\t$(CC) $(CFLAGS) -c $< -o $@\n\n");
    if (pl->mpi) {
        strbuf_printf(&b, "run: $(PROG)\n\tmpirun -np %" PRId64 " ./$(PROG)\n\n", pl->nprocs);
        strbuf_printf(&b, "smpi: $(PROG).smpi\n\n$(PROG).smpi: $(SRC) $(HDR)\n\t$(SMPICC) $(CFLAGS) $(SRC) -o $@ $(LDLIBS)\n\n");
    } else {
        strbuf_printf(&b, "run: $(PROG)\n\t./$(PROG)\n\nsmpi:\n\t@echo \"$(PROG) is sequential: no SMPI build\"\n\n");
    }
    strbuf_printf(&b, "clean:\n\trm -f $(PROG) $(PROG).smpi $(OBJ)\n");
    return strbuf_take(&b);
}

static char *ex_readme(const ex_plan *pl, const xf_export_options *o)
{
    const ir_program *p = pl->p;
    strbuf b = {0};
    strbuf_printf(&b, "# %s\n\nProgram `%s` (level %s)%s%s, exported by `polyapm export`.\n\n", pl->progname, p->name,
                  ir_level_name(p->level), pl->origin ? " from " : "", pl->origin ? pl->origin : "");
    strbuf_printf(&b, "Parameters (baked into the C):");
    for (int i = 0; i < p->nparams; i++) strbuf_printf(&b, " %s=%" PRId64, p->params[i]->u.param.name, pl->pv[i]);
    strbuf_printf(&b, "\n\n");
    if (pl->mpi) {
        strbuf_printf(&b, "```sh\nmake                       # mpicc\nmpirun -np %" PRId64 " ./%s\n"
                          "make smpi                  # SimGrid: smpicc\nsmpirun -np %" PRId64 " -platform cluster.xml \\\n"
                          "    " XF_SMPIRUN_OPTIONS " ./%s.smpi\n```\n\n"
                          "(The options are `polyapm run --smpi`'s: SimGrid's default Alltoallv and its 1 ns precision\n"
                          "take much longer to simulate at hundreds of ranks.)\n\n",
                      pl->nprocs, pl->progname, pl->nprocs, pl->progname);
        strbuf_printf(&b, "It needs exactly %" PRId64 " MPI ranks (one per processor of the program); another count is\n"
                          "refused with a message and exit status 3.  Messages: %s (`--exchange %s`).\n\n",
                      pl->nprocs,
                      pl->exchange == XF_EXCHANGE_HALO ? "a static halo pattern, recorded once, values only each step"
                      : pl->exchange == XF_EXCHANGE_ALLTOALLV ? "(index, value) records, MPI_Alltoall of counts + MPI_Alltoallv each step"
                      : pl->shared ? "none; collectives only (rt_coll.c)" : "none", xf_exchange_name(o->exchange));
    } else {
        strbuf_printf(&b, "```sh\nmake\n./%s\n```\n\nSequential C; it needs no MPI.\n\n", pl->progname);
    }
    strbuf_printf(&b, "It prints one line,\n\n    polyapm-result checksum=<16 hex digits> seconds=<main loop> ranks=<ranks>\n\n"
                      "where the checksum (FNV-1a over the output arrays) equals the one `polyapm sim` reports for\n"
                      "the same parameters.\n\nFiles: `%s.c` (the program: one function per phase), `rt*.c`, `rt*.h` (the polyapm\n"
                      "runtime, see rt.h or rt_checksum.h), `Makefile`.\n", pl->progname);
    return strbuf_take(&b);
}

/* ---- entry ------------------------------------------------------------------------------------ */

static void ex_plan_free(ex_plan *pl)
{
    free(pl->pv);
    free(pl->arr);
}

/* The plan of p's export under o: its arrays, the step nest, and the exchange its messages take.
 * XF_OK, or why not (in d); *out is set either way (the caller frees it with ex_plan_free). */
static int ex_plan_make(const ir_program *p, const xf_export_options *o, ex_plan *out, diag_list *d)
{
    ex_plan pl;
    memset(&pl, 0, sizeof pl);
    memset(out, 0, sizeof *out);
    pl.p = p;
    pl.origin = o->origin;
    pl.tslot = -1;
    pl.tstep = 1;
    if (!p->checked) { diag_add(d, p->file, 0, 0, "export: the program is not checked"); return XF_EUSAGE; }
    pl.mpi = p->level == IR_SYNDM || p->level == IR_SYNCOMM;
    pl.shared = p->level == IR_SYNCOMM;
    for (int k = 0; k < p->ndecls && !pl.crand; k++)
        pl.crand = p->decls[k]->kind == IR_D_INIT && ex_calls_random(p->decls[k]->u.init.value);
    pl.pv = xcalloc((size_t)(p->nparams + 1), sizeof *pl.pv);
    pl.arr = xcalloc((size_t)(p->narrays + 1), sizeof *pl.arr);
    if (!pl.pv || !pl.arr) { ex_plan_free(&pl); diag_add(d, NULL, 0, 0, "out of memory"); return XF_EREFUSED; }
    int status = XF_EREFUSED;
    if (ir_params_eval(p, o->bindings, o->nbindings, 1, pl.pv, d) != 0) { status = XF_EUSAGE; goto out; }
    if (ex_check_kinds(p, p->body, pl.mpi, d)) goto out;
    ex_cname(pl.progname, sizeof pl.progname, p->name);

    /* the nest: the first top-level FOR after the lets; its first variable is the time loop */
    int first = 0;
    while (first < p->body->n && p->body->stmts[first]->kind == IR_S_LET) first++;
    if (first < p->body->n && p->body->stmts[first]->kind == IR_S_FOR &&
        (pl.mpi || p->level == IR_SYN || first == p->body->n - 1)) {
        pl.nest = p->body->stmts[first];
        pl.tslot = pl.nest->u.for_.vars[0].slot;
        if (pl.nest->u.for_.vars[0].step && !ir_const_int(p, pl.nest->u.for_.vars[0].step, pl.pv, &pl.tstep)) pl.tstep = 0;
    }
    if (pl.mpi) {
        if (!pl.nest || first != p->body->n - 1) {
            diag_add(d, p->file, 0, 0, "export: %s: a syndm program must be lets and one step nest", p->name);
            goto out;
        }
        const ir_step_nest *sn = ir_program_nest(p);
        const ir_loopvar *pv = sn ? &sn->pfor->u.for_.vars[sn->pidx] : NULL;
        if (sn) pl.pdepth = sn->pfor == sn->tfor ? 1 : -1;
        int64_t lo, hi;
        if (!pv) {
            diag_add(d, p->file, 0, 0, "export: %s: no processor loop in the step nest", p->name);
            goto out;
        }
        if (pv->step || !ir_const_int(p, pv->lo, pl.pv, &lo) || !ir_const_int(p, pv->hi, pl.pv, &hi) || hi < lo) {
            diag_add(d, p->file, pv->pos.line, pv->pos.col,
                     "export: the processor loop %s must run over constant bounds with step 1", pv->var);
            goto out;
        }
        if (hi - lo + 1 > 1 << 20) {
            diag_add(d, p->file, pv->pos.line, pv->pos.col,
                     "export: %" PRId64 " processors: tile the program first (one MPI rank per processor)", hi - lo + 1);
            goto out;
        }
        pl.pslot = pv->slot;
        pl.plo = lo;
        pl.nprocs = hi - lo + 1;
    }
    /* arrays */
    for (int i = 0; i < p->narrays; i++) {
        ex_array *a = &pl.arr[i];
        a->decl = p->arrays[i];
        ex_cname(a->cname, sizeof a->cname, a->decl->u.array.name);
        for (int k = 0; k < p->ndecls; k++) {
            const ir_decl *dc = p->decls[k];
            if (dc->kind == IR_D_DIST && dc->u.dist.array_index == i) a->dist = dc;
            if (dc->kind == IR_D_OUTPUT && dc->u.output.array_index == i) a->output = 1;
        }
        if (pl.mpi && !pl.shared && !a->dist) {
            diag_add(d, p->file, a->decl->pos.line, a->decl->pos.col, "export: array %s has no dist declaration",
                     a->decl->u.array.name);
            goto out;
        }
        a->pieced = pl.mpi && a->dist && ir_dist_is_pieced(a->dist);
        if (a->pieced && ex_check_pieces(&pl, a, d)) goto out;
        ex_plan_fold(&pl, a, i);
        a->mark = pl.mpi && a->output;
    }
    /* messages */
    pl.exchange = XF_EXCHANGE_AUTO;
    if (pl.mpi) {
        ex_send_scan sc;
        memset(&sc, 0, sizeof sc);
        sc.pl = &pl;
        ex_sends(&sc, p->body);
        if (sc.bad) {
            diag_add(d, p->file, sc.bad->pos.line, sc.bad->pos.col, "export: this %s %s",
                     sc.bad->kind == IR_S_SEND ? "send" : "collective", sc.why);
            goto out;
        }
        if (sc.nsends && pl.shared) {
            diag_add(d, p->file, 0, 0, "export: %s is at level syncomm and sends messages: its memory is still shared "
                     "(apply memdist to reach syndm); a syncomm program is exported only when its communication "
                     "is collectives alone", p->name);
            goto out;
        }
        if (pl.shared && ex_check_own_rows(&pl, d)) goto out;
        if (sc.nsends) {
            char why[300] = "";
            if (o->exchange == XF_EXCHANGE_ALLTOALLV) pl.exchange = XF_EXCHANGE_ALLTOALLV;
            else if (sc.pieced && o->exchange == XF_EXCHANGE_AUTO) pl.exchange = XF_EXCHANGE_ALLTOALLV;
            else if (sc.pieced) {
                diag_add(d, p->file, 0, 0, "export: --exchange halo does not apply: array %s is sent and its dist has "
                         "pieces or named indices (the halo pattern needs one box per processor; use alltoallv)",
                         pl.arr[sc.pieced - 1].decl->u.array.name);
                goto out;
            } else if (ex_plan_halo(&pl, why, sizeof why)) pl.exchange = XF_EXCHANGE_HALO;
            else if (o->exchange == XF_EXCHANGE_AUTO) pl.exchange = XF_EXCHANGE_ALLTOALLV;
            else {
                diag_add(d, p->file, 0, 0, "export: --exchange halo does not apply: the partner set is not static: %s", why);
                goto out;
            }
        }
    }
    status = XF_OK;
out:
    *out = pl;
    return status;
}

int xf_export(const ir_program *p, const char *dir, const xf_export_options *o, xf_export_info *info, diag_list *d)
{
    ex_plan pl;
    int status = ex_plan_make(p, o, &pl, d);
    if (status != XF_OK) goto out;
    status = XF_EREFUSED;
    /* write */
    if (ex_mkdirs(dir, d)) goto out;
    char *c = ex_emit_program(&pl);
    char *cname = xasprintf("%s.c", pl.progname);
    int rc = ex_write(dir, cname, c, d);
    free(cname);
    free(c);
    if (rc) goto out;
    for (const xf_rt_file *f = xf_rt_files; f->name; f++)
        if (ex_needed(&pl, f->name) && ex_write(dir, f->name, f->text, d)) goto out;
    char *mk = ex_makefile(&pl), *rd = ex_readme(&pl, o);
    rc = ex_write(dir, "Makefile", mk, d) || ex_write(dir, "README.md", rd, d);
    free(mk);
    free(rd);
    if (rc) goto out;
    if (info) {
        memset(info, 0, sizeof *info);
        info->mpi = pl.mpi;
        info->ranks = pl.mpi ? (int)pl.nprocs : 1;
        info->exchange = pl.exchange;
        snprintf(info->prog, sizeof info->prog, "%s", pl.progname);
    }
    status = XF_OK;
out:
    ex_plan_free(&pl);
    return status;
}

cost_profile xf_export_pricing(const ir_program *p, const ir_binding *bindings, int nbindings,
                               const cost_profile *prof)
{
    cost_profile q = *prof;
    int guards = q.guard_price != 1, barrier = q.sync_on_messages && (q.barrier_const || q.barrier_slope);
    if (p->level != IR_SYNDM || (!guards && !q.sync_on_messages)) return q;
    xf_export_options o = {.bindings = bindings, .nbindings = nbindings, .exchange = XF_EXCHANGE_AUTO};
    diag_list d;
    diag_list_init(&d);
    ex_plan pl;
    if (ex_plan_make(p, &o, &pl, &d) != XF_OK) {
        q.guard_price = 1;
    } else {
        if (pl.exchange != XF_EXCHANGE_HALO && !ex_guards_hoisted(&pl)) q.guard_price = 1;
        /* the halo path's step posts its partners' messages and waits for them: no collective,
         * so none of the barrier a calibrated profile measured on the record exchange */
        if (barrier && pl.exchange == XF_EXCHANGE_HALO) q.barrier_const = q.barrier_slope = 0;
        /* and it sends a partner's elements as runs of doubles, not as records: a word costs
         * what a word of a burst of messages does (loggp's G), not what an element of the
         * record exchange, where normsent and normrcvd were measured, does (heat-3d's planes of
         * 120 x 120: ten times less).  Not in a program with collectives, whose words the
         * polyapm model prices at normsent and normrcvd too: a transpose packs its elements one
         * by one, down columns (gemver's A at 8000 x 8000, priced at G: 0.15 s predicted, 2.3 s
         * measured) */
        if (q.sync_on_messages && pl.exchange == XF_EXCHANGE_HALO && !ir_block_has_kind(p->body, IR_S_COLL)) {
            double L, o, G;
            cost_loggp_params(&q, &L, &o, &G);
            q.normsent = q.normrcvd = G;
        }
    }
    ex_plan_free(&pl);
    diag_list_free(&d);
    return q;
}

xf_exchange xf_export_exchange(const ir_program *p, const ir_binding *bindings, int nbindings)
{
    xf_export_options o = {.bindings = bindings, .nbindings = nbindings, .exchange = XF_EXCHANGE_AUTO};
    diag_list d;
    diag_list_init(&d);
    ex_plan pl;
    xf_exchange e = ex_plan_make(p, &o, &pl, &d) == XF_OK ? pl.exchange : XF_EXCHANGE_AUTO;
    ex_plan_free(&pl);
    diag_list_free(&d);
    return e;
}
