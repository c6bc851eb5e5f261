/*
 * check_stmt.c — the checker's statements (see check_int.h): assignment targets, unique labels,
 * collectives and the blocks they name, loops and their binders, lets, and at syn and above the
 * step nest (`for t .. seq { for p .. par|proc { .. } }`) with the rules of each APM level.
 */
#include "check_int.h"
#include "op.h"

#include <stdlib.h>
#include <string.h>

/* ---- statements ----------------------------------------------------------------------------- */

void check_block(checker *C, ir_block *b);

void chk_level_error(checker *C, ir_pos pos, const char *what, const char *needs)
{
    chk_err(C, pos, "'%s' is not available at level %s (needs %s)", what, ir_level_name(C->p->level), needs);
}

static void check_lhs(checker *C, ir_expr *lhs, const char *verb)
{
    const char *name = lhs->kind == IR_E_ACCESS ? lhs->u.access.array
                     : lhs->kind == IR_E_NAME ? lhs->u.name.id : NULL;
    if (!name) {
        chk_err(C, lhs->pos, "cannot %s this: it must be an array element", verb);
        return;
    }
    sym *s = chk_lookup(C, name);
    if (!s) {
        chk_err(C, lhs->pos, "unknown array '%s'", name);
        return;
    }
    if (s->nk != IR_N_ARRAY) {
        chk_err(C, lhs->pos, "cannot %s %s '%s': it must be an array element", verb,
             chk_nk_names[s->nk], name);
        return;
    }
    chk_resolve(C, lhs, M_ANY, NULL);
}

static void define_label(checker *C, const char *l, ir_pos pos)
{
    if (!l) return;
    int h = chk_ht_find(&C->labels, l, 1);
    hentry *le = &C->labels.e[h];
    if (le->top >= 0)
        chk_err(C, pos, "label '%s' is already defined at %d:%d", l, le->pos.line, le->pos.col);
    else {
        le->top = 0;
        le->pos = pos;
    }
}

/* The assumptions about assignment s (`assume LABEL unchanged when COND`): COND is an integer
 * condition read in s's scope. */
static void check_assumptions(checker *C, const ir_stmt *s)
{
    for (int i = 0; s->u.assign.label && i < C->p->ndecls; i++) {
        ir_decl *d = C->p->decls[i];
        if (d->kind != IR_D_ASSUME || !d->u.assume.label || strcmp(d->u.assume.label, s->u.assign.label)) continue;
        d->u.assume.stmt = s;
        check_int(C, d->u.assume.cond, "an assumption's condition");
    }
}

/* After the statements: an assumption names an assignment's label. */
void check_assumption_labels(checker *C)
{
    for (int i = 0; i < C->p->ndecls; i++) {
        const ir_decl *d = C->p->decls[i];
        if (d->kind == IR_D_ASSUME && !d->u.assume.stmt)
            chk_err(C, d->pos, "assume names '%s', which labels no assignment", d->u.assume.label);
    }
}

/* A collective's block: an array name with a prefix of its subscripts and an optional range on
 * the next dimension.  Returns the array's declaration, or NULL after an error. */
static const ir_decl *check_block_ref(checker *C, ir_expr *e, ir_expr *lo, ir_expr *hi)
{
    if (lo) check_int(C, lo, "a block's range bound");
    if (hi) check_int(C, hi, "a block's range bound");
    const char *name = e->kind == IR_E_ACCESS ? e->u.access.array : e->kind == IR_E_NAME ? e->u.name.id : NULL;
    sym *s = name ? chk_lookup(C, name) : NULL;
    if (!name || !s || s->nk != IR_N_ARRAY) {
        if (!s) chk_err(C, e->pos, "unknown array '%s'", name ? name : "?");
        else chk_err(C, e->pos, "'%s' is a %s, not an array", name, chk_nk_names[s->nk]);
        return NULL;
    }
    ir_decl *ad = chk_array_decl(C, s);
    e->type = ad->u.array.elem;
    if (e->kind == IR_E_NAME) {
        e->u.name.nk = IR_N_ARRAY;
        e->u.name.index = s->index;
        if (lo && ad->u.array.ndims < 1) {
            chk_err(C, e->pos, "'%s' has no dimension for a range", name);
            return NULL;
        }
        return ad;
    }
    for (int i = 0; i < e->u.access.nidx; i++) check_subscript(C, e->u.access.idx[i], M_ANY, NULL);
    if (e->u.access.nidx + (lo ? 1 : 0) > ad->u.array.ndims) {
        chk_err(C, e->pos, "block of '%s' gives %d subscripts%s, the array has %d dimensions", name,
             e->u.access.nidx, lo ? " and a range" : "", ad->u.array.ndims);
        return NULL;
    }
    e->u.access.array_index = s->index;
    return ad;
}

static const char *type_name(ir_type t) { return t == IR_DOUBLE ? "double" : "int"; }

/* A transpose's block is rows lo .. hi of a matrix: a prefix of subscripts, a range, and then
 * exactly one dimension (whole).  1 when it is. */
static int check_transpose_block(checker *C, const ir_expr *e, const ir_expr *lo, const ir_decl *ad)
{
    int nfix = e->kind == IR_E_ACCESS ? e->u.access.nidx : 0;
    if (lo && nfix + 2 == ad->u.array.ndims) return 1;
    chk_err(C, e->pos, "a transpose's block is rows of a matrix (a range on the array's second-last "
            "dimension, the ones before it fixed): '%s' has %d dimensions and the block %s", ad->u.array.name,
            ad->u.array.ndims, lo ? "leaves more than one after its range" : "has no range");
    return 0;
}

/* dst[lo .. hi] = transpose src[lo .. hi] [when c]: one block each, rows of matrices of one
 * element type, no operator, root or group (polyapm-lang(5) COLLECTIVES). */
static void check_transpose(checker *C, const ir_stmt *s, const ir_decl **sa, const ir_decl **da, int bad)
{
    if (s->u.coll.nsrc != 1 || s->u.coll.ndst != 1 || !s->u.coll.dst[0]) {
        chk_err(C, s->pos, "'transpose' reads one block and writes one block");
        return;
    }
    if (s->u.coll.by) {
        chk_err(C, s->u.coll.by->pos, "'transpose' takes no group ('by'): every processor of the step takes part");
        return;
    }
    if (bad) return;
    int ok = check_transpose_block(C, s->u.coll.src[0], s->u.coll.src_lo ? s->u.coll.src_lo[0] : NULL, sa[0]);
    ok &= check_transpose_block(C, s->u.coll.dst[0], s->u.coll.dst_lo ? s->u.coll.dst_lo[0] : NULL, da[0]);
    if (ok && sa[0]->u.array.elem != da[0]->u.array.elem)
        chk_err(C, s->pos, "type mismatch: 'transpose' of %s array '%s' into %s array '%s'",
                type_name(sa[0]->u.array.elem), sa[0]->u.array.name, type_name(da[0]->u.array.elem),
                da[0]->u.array.name);
    else if (ok && sa[0] == da[0])
        chk_err(C, s->pos, "'transpose' writes another array than it reads ('%s' both)", sa[0]->u.array.name);
}

/* A collective with a built-in operator: one block into one of the same type (integers only
 * for the integer operators); the balanced collectives need a declared operator. */
static void check_coll_builtin(checker *C, ir_stmt *s, const ir_decl **sa, const ir_decl **da, int bad)
{
    const char *cn = ir_coll_name(s->u.coll.ck);
    ir_coll_kind ck = s->u.coll.ck;
    int ns = s->u.coll.nsrc, nd = s->u.coll.ndst;
    const ir_opref *op = &s->u.coll.op;
    int bal = ck == IR_C_REDUCE_BAL || ck == IR_C_ALLREDUCE_BAL || ck == IR_C_SCAN_BAL;
    if (bal) {
        chk_err(C, op->pos, "'%s' needs an operator with %s clauses; '%s' is built in", cn,
             ck == IR_C_SCAN_BAL ? "'lower' and 'upper'" : "'combine' and 'one'", op->name);
        return;
    }
    if (ns != 1 || nd != 1 || !s->u.coll.dst[0]) {
        chk_err(C, s->pos, "'%s(%s)' reads one block and writes one block", cn, op->name);
        return;
    }
    if (bad) return;
    if (op_builtin_int_only((ir_bop)op->builtin) && sa[0]->u.array.elem == IR_DOUBLE)
        chk_err(C, op->pos, "operator type mismatch: '%s' takes integers, but '%s' is a double array",
             op->name, sa[0]->u.array.name);
    else if (sa[0]->u.array.elem != da[0]->u.array.elem)
        chk_err(C, op->pos, "operator type mismatch: '%s(%s)' of %s array '%s' into %s array '%s'", cn,
             op->name, type_name(sa[0]->u.array.elem), sa[0]->u.array.name,
             type_name(da[0]->u.array.elem), da[0]->u.array.name);
}

/* A declared operator with an 'in' tuple (the global view): each processor's blocks accumulate
 * into one destination through its gen (scangen for scans) clause. */
static void check_coll_accumulate(checker *C, ir_stmt *s, const ir_decl **sa, const ir_decl **da, int bad)
{
    const char *cn = ir_coll_name(s->u.coll.ck);
    ir_coll_kind ck = s->u.coll.ck;
    int ns = s->u.coll.nsrc, nd = s->u.coll.ndst;
    const ir_opref *op = &s->u.coll.op;
    int balanced = ck == IR_C_REDUCE_BAL || ck == IR_C_ALLREDUCE_BAL || ck == IR_C_SCAN_BAL;
    const ir_decl *od = C->p->ops[op->user];
    const char *on = od->u.op.name;
    const ir_opitem *const *cl = od->u.op.clause;
    int nin = op_in_arity(C->p, op->user);
    int scan = ck == IR_C_SCAN || ck == IR_C_EXSCAN;
    if (balanced) {
        chk_err(C, op->pos, "'%s' takes an elementwise operator; '%s' has an 'in' tuple", cn, on);
        return;
    }
    if (!cl[scan ? IR_K_SCANGEN : IR_K_GEN]) {
        chk_err(C, op->pos, "'%s' with operator '%s' needs a '%s' clause", cn, on, scan ? "scangen" : "gen");
        return;
    }
    if (ns != nin || nd != 1 || !s->u.coll.dst[0]) {
        chk_err(C, s->pos, "operator '%s' accumulates a tuple of %d input%s: expected %d source block%s "
             "and one destination, found %d and %d", on, nin, nin == 1 ? "" : "s", nin,
             nin == 1 ? "" : "s", ns, nd);
        return;
    }
    if (bad) return;
    for (int i = 0; i < ns; i++)
        if (sa[i]->u.array.elem != od->u.op.in->fields[i].type)
            chk_err(C, s->u.coll.src[i]->pos, "operator type mismatch: input field '%s' of '%s' is %s, "
                 "array '%s' is %s", od->u.op.in->fields[i].name, on,
                 type_name(od->u.op.in->fields[i].type), sa[i]->u.array.name,
                 type_name(sa[i]->u.array.elem));
    const ir_opitem *g = cl[scan ? IR_K_SCANGEN : IR_K_GEN];
    for (int i = 0; i < g->nval; i++)
        if (g->val[i]->type == IR_DOUBLE && da[0]->u.array.elem == IR_INT) {
            chk_err(C, s->u.coll.dst[0]->pos, "operator type mismatch: '%s' of '%s' gives a double, "
                 "array '%s' is int", scan ? "scangen" : "gen", on, da[0]->u.array.name);
            break;
        }
}

/* A declared elementwise operator: one source and one destination block per state field, each
 * of the field's type. */
static void check_coll_state(checker *C, ir_stmt *s, const ir_decl **sa, const ir_decl **da, int bad)
{
    int ns = s->u.coll.nsrc, nd = s->u.coll.ndst;
    const ir_opref *op = &s->u.coll.op;
    const ir_decl *od = C->p->ops[op->user];
    const char *on = od->u.op.name;
    int nst = op_state_arity(C->p, op->user);
    if (ns != nst || nd != nst) {
        chk_err(C, s->pos, "operator '%s' has a state of %d field%s: expected %d source and %d destination "
             "blocks, found %d and %d", on, nst, nst == 1 ? "" : "s", nst, nst, ns, nd);
        return;
    }
    if (bad) return;
    for (int i = 0; i < nst; i++) {
        ir_type ft = od->u.op.state->fields[i].type;
        if (sa[i]->u.array.elem != ft)
            chk_err(C, s->u.coll.src[i]->pos, "operator type mismatch: field '%s' of '%s' is %s, array '%s' is %s",
                 od->u.op.state->fields[i].name, on, type_name(ft), sa[i]->u.array.name,
                 type_name(sa[i]->u.array.elem));
        if (da[i] && da[i]->u.array.elem != ft)
            chk_err(C, s->u.coll.dst[i]->pos, "operator type mismatch: field '%s' of '%s' is %s, array '%s' is %s",
                 od->u.op.state->fields[i].name, on, type_name(ft), da[i]->u.array.name,
                 type_name(da[i]->u.array.elem));
    }
}

/* A collective with a declared operator: the clauses its kind needs, associativity unless
 * balanced, then its blocks against the operator's tuples. */
static void check_coll_user(checker *C, ir_stmt *s, const ir_decl **sa, const ir_decl **da, int bad)
{
    const char *cn = ir_coll_name(s->u.coll.ck);
    ir_coll_kind ck = s->u.coll.ck;
    const ir_opref *op = &s->u.coll.op;
    const ir_decl *od = C->p->ops[op->user];
    const char *on = od->u.op.name;
    const ir_opitem *const *cl = od->u.op.clause;
    static const struct { ir_coll_kind ck; ir_clause_kind need[2]; } needs[] = {
        { IR_C_REDUCE, { IR_K_COMBINE, IR_K_COMBINE } }, { IR_C_ALLREDUCE, { IR_K_COMBINE, IR_K_COMBINE } },
        { IR_C_SCAN, { IR_K_COMBINE, IR_K_COMBINE } }, { IR_C_EXSCAN, { IR_K_COMBINE, IR_K_IDENT } },
        { IR_C_REDUCE_BAL, { IR_K_COMBINE, IR_K_ONE } }, { IR_C_ALLREDUCE_BAL, { IR_K_COMBINE, IR_K_ONE } },
        { IR_C_SCAN_BAL, { IR_K_LOWER, IR_K_UPPER } },
    };
    for (unsigned i = 0; i < sizeof needs / sizeof needs[0]; i++)
        for (int k = 0; k < 2; k++)
            if (needs[i].ck == ck && !cl[needs[i].need[k]]) {
                chk_err(C, op->pos, "'%s' needs a '%s' clause, operator '%s' has none", cn,
                     ir_clause_name(needs[i].need[k]), on);
                return;
            }
    int balanced = ck == IR_C_REDUCE_BAL || ck == IR_C_ALLREDUCE_BAL || ck == IR_C_SCAN_BAL;
    if (!od->u.op.associative && !balanced) {
        chk_err(C, op->pos, "operator '%s' is declared nonassociative: only reduce_bal, allreduce_bal and "
             "scan_bal may use it", on);
        return;
    }
    if (op_in_arity(C->p, op->user) > 0) check_coll_accumulate(C, s, sa, da, bad);
    else check_coll_state(C, s, sa, da, bad);
}

static void check_coll(checker *C, ir_stmt *s)
{
    const char *cn = ir_coll_name(s->u.coll.ck);
    ir_coll_kind ck = s->u.coll.ck;
    define_label(C, s->u.coll.label, s->pos);
    if (C->p->level == IR_SOURCE || C->p->level == IR_SYN)
        chk_level_error(C, s->pos, cn, "syncomm or syndm");
    else if (!C->proc_body || C->cur_block != C->proc_body)
        chk_err(C, s->pos, "a collective must be a statement of the processor loop's body (not inside "
             "an inner loop or an if)");
    int ns = s->u.coll.nsrc, nd = s->u.coll.ndst, bad = 0;
    const ir_decl *sa[OP_MAX_FIELDS], *da[OP_MAX_FIELDS];
    if (ns > OP_MAX_FIELDS || nd > OP_MAX_FIELDS) {
        chk_err(C, s->pos, "too many blocks (at most %d)", OP_MAX_FIELDS);
        return;
    }
    for (int i = 0; i < ns; i++)
        if (!(sa[i] = check_block_ref(C, s->u.coll.src[i], s->u.coll.src_lo ? s->u.coll.src_lo[i] : NULL,
                                      s->u.coll.src_hi ? s->u.coll.src_hi[i] : NULL)))
            bad = 1;
    for (int i = 0; i < nd; i++) {
        da[i] = NULL;
        if (s->u.coll.dst[i] &&
            !(da[i] = check_block_ref(C, s->u.coll.dst[i], s->u.coll.dst_lo ? s->u.coll.dst_lo[i] : NULL,
                                      s->u.coll.dst_hi ? s->u.coll.dst_hi[i] : NULL)))
            bad = 1;
    }
    if (s->u.coll.root) check_int(C, s->u.coll.root, "a root processor");
    if (s->u.coll.by) check_int(C, s->u.coll.by, "a group ('by')");
    if (s->u.coll.when) {
        check_int(C, s->u.coll.when, "a collective's condition ('when')");
        if (ck != IR_C_TRANSPOSE)
            chk_err(C, s->u.coll.when->pos, "'when' is for transpose only ('%s' runs at every step; "
                    "its blocks may be empty)", cn);
    }
    if (ck == IR_C_TRANSPOSE) {
        check_transpose(C, s, sa, da, bad);
        return;
    }
    if (!ir_coll_has_op(ck)) {
        if (ns != 1 || nd != 1 || !s->u.coll.dst[0])
            chk_err(C, s->pos, "'%s' reads one block and writes one block", cn);
        else if (!bad && sa[0]->u.array.elem != da[0]->u.array.elem)
            chk_err(C, s->pos, "type mismatch: '%s' of %s array '%s' into %s array '%s'", cn,
                 type_name(sa[0]->u.array.elem), sa[0]->u.array.name, type_name(da[0]->u.array.elem),
                 da[0]->u.array.name);
        return;
    }
    ir_opref *op = &s->u.coll.op;
    if (chk_resolve_opref(C, op) != 0) return;
    if (op->builtin >= 0) check_coll_builtin(C, s, sa, da, bad);
    else check_coll_user(C, s, sa, da, bad);
}

static void check_stmt(checker *C, ir_stmt *s)
{
    if (!s) return;
    switch (s->kind) {
    case IR_S_COLL:
        check_coll(C, s);
        break;
    case IR_S_RECV:
        if (C->p->level != IR_SYNDM)
            chk_level_error(C, s->pos, "recv", "syndm");
        else if (!C->proc_body || C->cur_block != C->proc_body ||
                 C->proc_body->stmts[C->proc_body->n - 1] != s)
            chk_err(C, s->pos, "'recv' must be the last statement of the processor loop's body");
        break;
    case IR_S_ASSIGN: {
        define_label(C, s->u.assign.label, s->pos);
        check_assumptions(C, s);
        ir_type rt = chk_resolve(C, s->u.assign.rhs, M_ANY, NULL);
        check_lhs(C, s->u.assign.lhs, "assign to");
        const ir_expr *lhs = s->u.assign.lhs;
        int ai = lhs->kind == IR_E_ACCESS ? lhs->u.access.array_index
               : lhs->u.name.nk == IR_N_ARRAY ? lhs->u.name.index : -1;
        if (ai >= 0 && C->p->arrays[ai]->u.array.elem == IR_INT && rt == IR_DOUBLE)
            chk_err(C, s->u.assign.rhs->pos, "cannot assign a double value to int array '%s'",
                 C->p->arrays[ai]->u.array.name);
        check_const(C, s->cost, "a cost", 0);
        break;
    }
    case IR_S_LET: {
        ir_type t = chk_resolve(C, s->u.let.value, M_ANY, NULL);
        int slot = chk_define(C, s->u.let.var, IR_N_LET, 0, s->pos, t);
        s->u.let.slot = slot;
        for (int m = 0; m < 2; m++) {
            const ir_expr *bad = NULL;
            C->cls[m][slot] = (signed char)chk_aff(C, s->u.let.value, m, &bad);
        }
        break;
    }
    case IR_S_IF:
        chk_resolve(C, s->u.if_.cond, M_ANY, NULL);
        check_block(C, s->u.if_.then_blk);
        if (s->u.if_.else_blk) check_block(C, s->u.if_.else_blk);
        break;
    case IR_S_FOR: {
        int mark = C->nsyms;
        for (int i = 0; i < s->u.for_.nvars; i++) {
            ir_loopvar *v = &s->u.for_.vars[i];
            ir_expr *bounds[2] = { v->lo, v->hi };
            for (int k = 0; k < 2; k++) {
                if (!bounds[k]) continue;
                check_int(C, bounds[k], "a loop bound");
                const ir_expr *bad = NULL;
                if (chk_aff(C, bounds[k], 1, &bad) == AFF_NON)
                    chk_err(C, bad ? bad->pos : bounds[k]->pos, "non-affine loop bound");
            }
            check_const(C, v->step, "a loop step", 1);
            if (v->kind == IR_LOOP_PAR || v->kind == IR_LOOP_PROC) {
                const char *kw = v->kind == IR_LOOP_PAR ? "par" : "proc";
                if (C->p->level == IR_SOURCE)
                    chk_level_error(C, v->pos, kw, "syn, syncomm or syndm");
                else if (v != C->procvar)
                    chk_err(C, v->pos, "a '%s' loop is only allowed as the processor loop directly "
                         "inside the time loop at level %s", kw, ir_level_name(C->p->level));
            }
            v->slot = chk_define(C, v->var, IR_N_LOOPVAR, 0, v->pos, IR_INT);
        }
        if (C->procvar && &s->u.for_.vars[s->u.for_.nvars - 1] == C->procvar)
            C->proc_body = s->u.for_.body;
        check_block(C, s->u.for_.body);
        chk_pop_to(C, mark);
        break;
    }
    case IR_S_SEND: {
        if (C->p->level == IR_SOURCE || C->p->level == IR_SYN)
            chk_level_error(C, s->pos, "send", "syncomm or syndm");
        ir_expr *w = s->u.send.what;
        int ndims = -1;
        if (w->kind == IR_E_ACCESS || w->kind == IR_E_NAME) {
            check_lhs(C, w, "send");
            int ai = w->kind == IR_E_ACCESS ? w->u.access.array_index
                   : w->u.name.nk == IR_N_ARRAY ? w->u.name.index : -1;
            if (ai >= 0) ndims = C->p->arrays[ai]->u.array.ndims;
        } else {
            chk_err(C, w->pos, "'send' needs an array element");
        }
        check_int(C, s->u.send.to_lo, "a destination processor");
        check_int(C, s->u.send.to_hi, "a destination processor");
        check_int(C, s->u.send.at, "a destination time");
        if (s->u.send.when) chk_resolve(C, s->u.send.when, M_ANY, NULL);
        if (s->u.send.nas > 0 && ndims >= 0 && s->u.send.nas != ndims)
            chk_err(C, s->u.send.as_idx[0]->pos, "'as' gives %d indices, the array has %d dimensions",
                 s->u.send.nas, ndims);
        for (int i = 0; i < s->u.send.nas; i++) check_int(C, s->u.send.as_idx[i], "an 'as' index");
        check_const(C, s->cost, "a cost", 0);
        break;
    }
    }
}

void check_block(checker *C, ir_block *b)
{
    if (!b) return;
    int mark = C->nsyms;
    const ir_block *outer = C->cur_block;
    check_const(C, b->cost, "a cost", 0);
    for (int i = 0; i < b->n; i++) {
        C->cur_block = b;
        check_stmt(C, b->stmts[i]);
    }
    C->cur_block = outer;
    chk_pop_to(C, mark);
}

/* syn and above: optional lets, then one step nest `for t .. seq { for p .. par|proc {..} }`. */
void check_structure(checker *C)
{
    const char *lv = ir_level_name(C->p->level);
    ir_block *b = C->p->body;
    ir_step_nest n;
    ir_nest_status st = ir_step_nest_find(b, &n);
    ir_stmt *s = n.tfor;
    switch (st) {
    case IR_NEST_MISSING: {
        int i = n.nlets;
        ir_pos pos = i > 0 ? b->stmts[i - 1]->pos
                   : C->p->ndecls > 0 ? C->p->decls[C->p->ndecls - 1]->pos : (ir_pos){ 1, 1 };
        chk_err(C, pos, "level %s needs a step nest: for t = ... seq { for p = ... par|proc { ... } }", lv);
        return;
    }
    case IR_NEST_NOT_FOR:
        chk_err(C, b->stmts[n.nlets]->pos, "expected the step nest (for t = ... seq { for p = ... par|proc { ... } }) "
             "at level %s: only lets may come before it", lv);
        return;
    case IR_NEST_NO_VARS:
        chk_err(C, s->pos, "a for statement needs at least one loop variable");
        return;
    default:
        break;
    }
    if (n.trailing > 0) {
        ir_stmt *next = b->stmts[n.nlets + 1];
        chk_err(C, next ? next->pos : s->pos, "nothing may follow the step nest at level %s", lv);
    }
    ir_loopvar *t = &s->u.for_.vars[0];
    if (t->kind == IR_LOOP_PAR || t->kind == IR_LOOP_PROC)
        chk_err(C, t->pos, "the time loop '%s' of the step nest must be seq at level %s", t->var, lv);
    if (!n.pfor) {
        chk_err(C, s->pos, "the step nest needs a par or proc loop directly inside the time loop "
             "'%s' at level %s", t->var, lv);
        return;
    }
    C->procvar = &n.pfor->u.for_.vars[n.pidx];
    if (st == IR_NEST_OK && n.trailing == 0) C->p->nest = n;
}
