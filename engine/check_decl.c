/*
 * check_decl.c — the checker's declarations (see check_int.h): user operators (their clauses'
 * patterns and results), parameters and arrays (parameters use only earlier parameters), init
 * and output declarations, and dist declarations with their pieces (one per array at syndm).
 */
#include "check_int.h"
#include "op.h"

#include <stdlib.h>
#include <string.h>

/* ---- declarations --------------------------------------------------------------------------- */

static sym *lookup_array(checker *C, const char *name, ir_pos pos)
{
    sym *s = chk_lookup(C, name);
    if (!s) chk_err(C, pos, "unknown array '%s'", name);
    else if (s->nk != IR_N_ARRAY) chk_err(C, pos, "'%s' is a %s, not an array", name, chk_nk_names[s->nk]);
    else return s;
    return NULL;
}

/* ---- operators ------------------------------------------------------------------------------ */

enum { T_NONE, T_STATE, T_IN };
enum { R_STATE, R_ANY, R_ONE };
/* Patterns and result of each clause kind (see ir_clause_kind). */
static const struct { int npats, pat[2], result; } clause_shape[IR_K_COUNT] = {
    [IR_K_IDENT] = { 0, { T_NONE, T_NONE }, R_STATE },
    [IR_K_PREACCUM] = { 2, { T_STATE, T_IN }, R_STATE },
    [IR_K_ACCUM] = { 2, { T_STATE, T_IN }, R_STATE },
    [IR_K_POSTACCUM] = { 2, { T_STATE, T_IN }, R_STATE },
    [IR_K_COMBINE] = { 2, { T_STATE, T_STATE }, R_STATE },
    [IR_K_GEN] = { 1, { T_STATE, T_NONE }, R_ANY },
    [IR_K_SCANGEN] = { 2, { T_STATE, T_IN }, R_ONE },
    [IR_K_ONE] = { 1, { T_STATE, T_NONE }, R_STATE },
    [IR_K_LOWER] = { 2, { T_STATE, T_STATE }, R_STATE },
    [IR_K_UPPER] = { 2, { T_STATE, T_STATE }, R_STATE },
    [IR_K_EVEN] = { 1, { T_STATE, T_NONE }, R_STATE },
    [IR_K_ODD] = { 1, { T_STATE, T_NONE }, R_STATE },
};

static void check_clause(checker *C, ir_decl *d, ir_opitem *it)
{
    const char *on = d->u.op.name, *kn = ir_clause_name(it->clause);
    const ir_opitem *st = d->u.op.state, *in = d->u.op.in;
    int want = clause_shape[it->clause].npats;
    if (it->npats != want) {
        chk_err(C, it->pos, "'%s' takes %d pattern%s (%s), found %d", kn, want, want == 1 ? "" : "s",
             want == 0 ? "write: ident = (..)" : want == 1 ? "the state" :
             clause_shape[it->clause].pat[1] == T_IN ? "the state and the input" : "two states",
             it->npats);
        return;
    }
    int mark = C->nsyms;
    for (int k = 0; k < it->npats; k++) {
        const ir_opitem *tuple = clause_shape[it->clause].pat[k] == T_IN ? in : st;
        ir_pattern *pt = &it->pats[k];
        if (!tuple) {
            chk_err(C, pt->pos, "'%s' of operator '%s' needs an 'in' declaration (the input tuple)", kn, on);
            chk_pop_to(C, mark);
            return;
        }
        if (pt->n != tuple->nfields) {
            chk_err(C, pt->pos, "this pattern of '%s' has %d name%s, the %s of '%s' has %d field%s", kn, pt->n,
                 pt->n == 1 ? "" : "s", tuple == in ? "input" : "state", on, tuple->nfields,
                 tuple->nfields == 1 ? "" : "s");
            chk_pop_to(C, mark);
            return;
        }
        pt->slots = ir_alloc(C->p, (size_t)pt->n * sizeof *pt->slots);
        for (int i = 0; i < pt->n; i++)
            pt->slots[i] = chk_define(C, pt->names[i], IR_N_OPVAR, 0, pt->pos, tuple->fields[i].type);
    }
    if (it->nlets > 0) it->letslots = ir_alloc(C->p, (size_t)it->nlets * sizeof *it->letslots);
    for (int i = 0; i < it->nlets; i++) {
        ir_type t = chk_resolve(C, it->letv[i], M_OP, NULL);
        it->letslots[i] = chk_define(C, it->lets[i], IR_N_OPVAR, 0, it->letv[i]->pos, t);
    }
    for (int i = 0; i < it->nval; i++) chk_resolve(C, it->val[i], M_OP, NULL);
    int res = clause_shape[it->clause].result;
    if (res == R_STATE && it->nval != st->nfields)
        chk_err(C, it->pos, "'%s' of '%s' gives %d value%s, the state has %d field%s", kn, on, it->nval,
             it->nval == 1 ? "" : "s", st->nfields, st->nfields == 1 ? "" : "s");
    else if (res == R_ONE && it->nval != 1)
        chk_err(C, it->pos, "'%s' of '%s' gives one value, found %d", kn, on, it->nval);
    else if (res == R_STATE)
        for (int i = 0; i < it->nval; i++)
            if (it->val[i]->type == IR_DOUBLE && st->fields[i].type == IR_INT)
                chk_err(C, it->val[i]->pos, "operator type mismatch: field '%s' of '%s' is int, '%s' gives a "
                     "double", st->fields[i].name, on, kn);
    chk_pop_to(C, mark);
}

static void check_op(checker *C, ir_decl *d)
{
    const char *on = d->u.op.name;
    if (op_builtin_find(on) >= 0) chk_err(C, d->pos, "operator '%s' is built in; choose another name", on);
    for (int i = 0; i < d->u.op.index; i++)
        if (strcmp(C->p->ops[i]->u.op.name, on) == 0)
            chk_err(C, d->pos, "operator '%s' is already declared at %d:%d", on, C->p->ops[i]->pos.line,
                 C->p->ops[i]->pos.col);
    d->u.op.state = d->u.op.in = NULL;
    memset(d->u.op.clause, 0, sizeof d->u.op.clause);
    d->u.op.commutative = -1;
    d->u.op.associative = 1;
    for (int i = 0; i < d->u.op.nitems; i++) {
        ir_opitem *it = &d->u.op.items[i];
        const ir_opitem **slot = it->kind == IR_OI_STATE ? &d->u.op.state : it->kind == IR_OI_IN
                               ? &d->u.op.in : it->kind == IR_OI_CLAUSE ? &d->u.op.clause[it->clause] : NULL;
        if (slot && *slot) {
            chk_err(C, it->pos, "operator '%s' already has %s at %d:%d", on,
                 it->kind == IR_OI_STATE ? "a state" : it->kind == IR_OI_IN ? "an 'in'" : ir_clause_name(it->clause),
                 (*slot)->pos.line, (*slot)->pos.col);
            continue;
        }
        if (slot) *slot = it;
        if (it->kind == IR_OI_COMMUTATIVE || it->kind == IR_OI_NONCOMMUTATIVE) {
            if (d->u.op.commutative >= 0)
                chk_err(C, it->pos, "operator '%s' already says whether it is commutative", on);
            d->u.op.commutative = it->kind == IR_OI_COMMUTATIVE;
        }
        if (it->kind == IR_OI_NONASSOCIATIVE) d->u.op.associative = 0;
        if (it->kind == IR_OI_DISTRIBUTES) chk_resolve_opref(C, &it->over);
        if ((it->kind == IR_OI_STATE || it->kind == IR_OI_IN) && it->nfields > OP_MAX_FIELDS)
            chk_err(C, it->pos, "at most %d fields", OP_MAX_FIELDS);
    }
    if (!d->u.op.state) {
        chk_err(C, d->pos, "operator '%s' needs a state: state (name type, ..)", on);
        return;
    }
    if (d->u.op.clause[IR_K_COMBINE] && d->u.op.commutative < 0)
        chk_err(C, d->u.op.clause[IR_K_COMBINE]->pos, "operator '%s' must say 'commutative' or "
             "'noncommutative'", on);
    if (d->u.op.in && (!d->u.op.clause[IR_K_ACCUM] || !d->u.op.clause[IR_K_IDENT]))
        chk_err(C, d->u.op.in->pos, "operator '%s' has an 'in' tuple: it needs 'ident' and 'accum'", on);
    if (d->u.op.commutative < 0) d->u.op.commutative = 0;
    for (int i = 0; i < d->u.op.nitems; i++)
        if (d->u.op.items[i].kind == IR_OI_CLAUSE) check_clause(C, d, &d->u.op.items[i]);
}

/* Operators first: their clauses see only their own names. */
static void check_op_decls(checker *C)
{
    ir_program *p = C->p;
    int no = 0;
    for (int i = 0; i < p->ndecls; i++) if (p->decls[i]->kind == IR_D_OP) no++;
    p->ops = no ? ir_alloc(p, (size_t)no * sizeof *p->ops) : NULL;
    p->nops = 0;
    for (int i = 0; i < p->ndecls; i++)
        if (p->decls[i]->kind == IR_D_OP) {
            p->decls[i]->u.op.index = p->nops;
            p->ops[p->nops++] = p->decls[i];
        }
    for (int i = 0; i < p->nops; i++) check_op(C, p->ops[i]);
}

/* Parameters in order (each sees the earlier ones), then the arrays. */
static void check_param_array_decls(checker *C)
{
    ir_program *p = C->p;
    int np = 0, na = 0;
    for (int i = 0; i < p->ndecls; i++) {
        if (p->decls[i]->kind == IR_D_PARAM) np++;
        if (p->decls[i]->kind == IR_D_ARRAY) na++;
    }
    p->params = np ? ir_alloc(p, (size_t)np * sizeof *p->params) : NULL;
    p->arrays = na ? ir_alloc(p, (size_t)na * sizeof *p->arrays) : NULL;
    p->nparams = p->narrays = 0;
    for (int i = 0; i < p->ndecls; i++) {
        ir_decl *d = p->decls[i];
        if (d->kind != IR_D_PARAM) continue;
        C->cur_param = i;
        check_const(C, d->u.param.value, "a parameter", 0);
        if (d->u.param.value && d->u.param.value->type != IR_INT)
            chk_err(C, d->u.param.value->pos, "parameter '%s' must be an integer expression",
                 d->u.param.name);
        C->cur_param = -1;
        d->u.param.index = p->nparams;
        p->params[p->nparams++] = d;
        chk_define(C, d->u.param.name, IR_N_PARAM, d->u.param.index, d->pos, IR_INT);
    }
    for (int i = 0; i < p->ndecls; i++) {
        ir_decl *d = p->decls[i];
        if (d->kind != IR_D_ARRAY) continue;
        for (int k = 0; k < d->u.array.ndims; k++) {
            check_const(C, d->u.array.lo[k], "an array bound", 1);
            check_const(C, d->u.array.hi[k], "an array bound", 1);
        }
        d->u.array.index = p->narrays;
        p->arrays[p->narrays++] = d;
        chk_define(C, d->u.array.name, IR_N_ARRAY, d->u.array.index, d->pos, d->u.array.elem);
    }
}

static void check_init_decl(checker *C, ir_decl *d)
{
    d->u.init.array_index = -1;
    sym *s = lookup_array(C, d->u.init.array, d->pos);
    int mark = C->nsyms;
    ir_type elem = s ? chk_array_decl(C, s)->u.array.elem : IR_DOUBLE;
    if (s) {
        ir_decl *ad = chk_array_decl(C, s);
        if (ad->u.array.ndims != d->u.init.nidx)
            chk_err(C, d->pos, "init of '%s' gives %d indices, the array has %d dimensions",
                 d->u.init.array, d->u.init.nidx, ad->u.array.ndims);
        else
            d->u.init.array_index = s->index;
    }
    for (int k = 0; k < d->u.init.nidx; k++) {
        ir_expr *ix = d->u.init.idx[k];
        if (ix->kind == IR_E_NAME && !chk_lookup(C, ix->u.name.id)) {
            int slot = chk_define(C, ix->u.name.id, IR_N_INITVAR, 0, ix->pos, IR_INT);
            ix->u.name.nk = IR_N_INITVAR;
            ix->u.name.index = slot;
            ix->type = IR_INT;
        } else {
            check_const(C, ix, "an init index (a fresh name or a constant)", 1);
        }
    }
    ir_type t = chk_resolve(C, d->u.init.value, M_INIT, "an init value");
    if (elem == IR_INT && t == IR_DOUBLE)
        chk_err(C, d->u.init.value->pos, "cannot initialise int array '%s' with a double value",
             d->u.init.array);
    chk_pop_to(C, mark);
}

static void check_output_decl(checker *C, ir_decl *d)
{
    d->u.output.array_index = -1;
    sym *s = lookup_array(C, d->u.output.array, d->pos);
    if (s) {
        ir_decl *ad = chk_array_decl(C, s);
        if (d->u.output.nidx > ad->u.array.ndims)
            chk_err(C, d->pos, "output of '%s' gives %d indices, the array has %d dimensions",
                 d->u.output.array, d->u.output.nidx, ad->u.array.ndims);
        else
            d->u.output.array_index = s->index;
    }
    for (int k = 0; k < d->u.output.nidx; k++)
        check_const(C, d->u.output.idx[k], "an output index", 1);
}

/* Piece pi of a LOCAL dist with nd dimensions: its bounds are integer expressions of the
 * processor variable, and only its last range may use its named indices. */
static void check_dist_piece(checker *C, ir_decl *d, int pi, int nd)
{
    ir_dist_piece pc = ir_dist_get_piece(d, pi);
    int pmark = C->nsyms;
    if (pc.ivar) {
        int *slots = ir_alloc(C->p, (size_t)nd * sizeof *slots);
        for (int k = 0; k < nd; k++) slots[k] = -1;
        if (pi == 0) d->u.dist.islot = slots;
        else d->u.dist.more[pi - 1].islot = slots;
        pc.islot = slots;
    }
    /* the last dimension's bounds may use the other dimensions' named indices */
    for (int k = 0; k < nd - 1 && pc.ivar; k++)
        for (int j = 0; j < nd; j++) {
            const ir_expr *bd[2] = { pc.lo ? pc.lo[k] : NULL, pc.hi ? pc.hi[k] : NULL };
            for (int h = 0; h < 2; h++)
                if (pc.ivar[j] && bd[h] && chk_expr_uses_name(bd[h], pc.ivar[j]))
                    chk_err(C, bd[h]->pos, "'%s' names an index of this piece: only its last "
                         "range may use it", pc.ivar[j]);
        }
    for (int k = 0; k < nd; k++) {
        if (k == nd - 1 && pc.ivar) {
            for (int j = 0; j < nd - 1; j++)
                if (pc.ivar[j]) pc.islot[j] = chk_define(C, pc.ivar[j], IR_N_DISTVAR, 0, d->pos, IR_INT);
            if (pc.step && pc.step[k])
                chk_err(C, pc.step[k]->pos, "a dist piece whose last range may depend on the other "
                     "indices cannot stride it");
        }
        ir_expr *ex[5] = { pc.lo ? pc.lo[k] : NULL,
                           pc.hi ? pc.hi[k] : NULL,
                           pi == 0 && d->u.dist.offset ? d->u.dist.offset[k] : NULL,
                           pc.step ? pc.step[k] : NULL,
                           pc.block ? pc.block[k] : NULL };
        for (int j = 0; j < 5; j++)
            if (ex[j] && chk_resolve(C, ex[j], M_NOARRAY, "a dist bound") != IR_INT)
                chk_err(C, ex[j]->pos, "a dist bound, step, block or offset must be an integer expression");
    }
    chk_pop_to(C, pmark);
}

/* A dist: one per array (dist_of[array] records it), syndm only. */
static void check_dist_decl(checker *C, ir_decl *d, const ir_decl **dist_of)
{
    d->u.dist.array_index = -1;
    d->u.dist.slot = -1;
    if (C->p->level != IR_SYNDM) chk_level_error(C, d->pos, "dist", "syndm");
    sym *s = lookup_array(C, d->u.dist.array, d->pos);
    if (s) {
        ir_decl *ad = chk_array_decl(C, s);
        if (dist_of[s->index])
            chk_err(C, d->pos, "array '%s' already has a dist at %d:%d", d->u.dist.array,
                 dist_of[s->index]->pos.line, dist_of[s->index]->pos.col);
        else
            dist_of[s->index] = d;
        if (d->u.dist.dk == IR_DIST_LOCAL && d->u.dist.ndims != ad->u.array.ndims)
            chk_err(C, d->pos, "dist of '%s' gives %d bounds, the array has %d dimensions",
                 d->u.dist.array, d->u.dist.ndims, ad->u.array.ndims);
        else
            d->u.dist.array_index = s->index;
    }
    if (d->u.dist.dk != IR_DIST_LOCAL) return;
    int mark = C->nsyms;
    d->u.dist.slot = chk_define(C, d->u.dist.procvar ? d->u.dist.procvar : "?", IR_N_DISTVAR, 0, d->pos, IR_INT);
    if (d->u.dist.offset && ir_dist_is_pieced(d))
        chk_err(C, d->pos, "dist of '%s': an offset (relative coordinates) needs one plain box, "
             "not pieces or named indices", d->u.dist.array);
    for (int pi = 0; pi <= d->u.dist.nmore; pi++) check_dist_piece(C, d, pi, d->u.dist.ndims);
    chk_pop_to(C, mark);
}

void check_decls(checker *C)
{
    ir_program *p = C->p;
    check_op_decls(C);
    check_param_array_decls(C);
    int na = p->narrays;
    const ir_decl **dist_of = na ? calloc((size_t)na, sizeof *dist_of) : NULL;
    const ir_decl *reference = NULL;
    for (int i = 0; i < p->ndecls; i++) {
        ir_decl *d = p->decls[i];
        switch (d->kind) {
        case IR_D_PARAM: case IR_D_ARRAY: case IR_D_OP: break;
        case IR_D_ASSUME: d->u.assume.stmt = NULL; break;   /* checked with its statement */
        case IR_D_REFERENCE:
            if (reference)
                chk_err(C, d->pos, "'reference' is already given at %d:%d", reference->pos.line,
                     reference->pos.col);
            reference = d;
            break;
        case IR_D_INIT: check_init_decl(C, d); break;
        case IR_D_OUTPUT: check_output_decl(C, d); break;
        case IR_D_DIST: check_dist_decl(C, d, dist_of); break;
        }
    }
    if (p->level == IR_SYNDM)
        for (int a = 0; a < na; a++)
            if (!dist_of[a])
                chk_err(C, p->arrays[a]->pos, "array '%s' has no dist declaration (level syndm needs "
                     "one per array)", p->arrays[a]->u.array.name);
    free(dist_of);
}
