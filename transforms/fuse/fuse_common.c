/*
 * fuse_common.c — the machinery the collective-fusion transforms share (fuse_int.h): finding
 * the processor loop's body in the canonical text, comparing and sizing blocks, checking that
 * a dropped array is read nowhere else, writing operators' applications as expression text
 * (built-in operators by their syntax, user operators by substituting their combine clause),
 * splicing the generated lines into the text and checking the result, and the text of a
 * predicted gain.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuse_int.h"
#include "op.h"

/* ---- the site ------------------------------------------------------------------------------- */

static char **split_lines(const char *text, int *n)
{
    int cap = 16, k = 0;
    char **v = xmalloc((size_t)cap * sizeof *v);
    const char *p = text;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (k == cap) v = xrealloc(v, (size_t)(cap *= 2) * sizeof *v);
        v[k++] = xasprintf("%.*s", (int)len, p);
        p += len + (e ? 1 : 0);
    }
    *n = k;
    return v;
}

int fz_site_open(fz_site *s, const ir_program *src, char **why)
{
    memset(s, 0, sizeof *s);
    s->nprocs = -1;
    if (src->level != IR_SYNCOMM && src->level != IR_SYNDM) {
        *why = xasprintf("collectives live at syncomm and syndm (this program is %s)",
                           ir_level_name(src->level));
        return -1;
    }
    s->text = ir_print(src);
    diag_list d;
    diag_list_init(&d);
    s->q = ir_load_text(src->file, s->text, strlen(s->text), &d);
    diag_list_free(&d);
    if (!s->q) {
        *why = xasprintf("internal error: the program's canonical text does not load");
        return -1;
    }
    s->lines = split_lines(s->text, &s->nlines);
    const ir_step_nest *sn = ir_program_nest(s->q);
    if (!sn) {
        *why = xasprintf("no step nest");
        return -1;
    }
    if (sn->pidx != sn->pfor->u.for_.nvars - 1) {
        *why = xasprintf("the processor loop has inner loops in its own for statement");
        return -1;
    }
    s->nest = sn->tfor;
    s->pv = &sn->pfor->u.for_.vars[sn->pidx];
    s->body = sn->pfor->u.for_.body;
    s->params = xcalloc((size_t)s->q->nparams + 1, sizeof *s->params);
    diag_list_init(&d);
    if (ir_params_eval(s->q, NULL, 0, 0, s->params, &d) == 0) {
        int64_t lo, hi;
        double r;
        int isr;
        if (ir_const_eval(s->q, s->pv->lo, s->params, &lo, &r, &isr, &d) == 0 && !isr &&
            ir_const_eval(s->q, s->pv->hi, s->params, &hi, &r, &isr, &d) == 0 && !isr)
            s->nprocs = hi - lo + 1;
    }
    diag_list_free(&d);
    return 0;
}

void fz_site_close(fz_site *s)
{
    ir_program_free(s->q);
    free(s->text);
    for (int i = 0; i < s->nlines; i++) free(s->lines[i]);
    free(s->lines);
    free(s->params);
    memset(s, 0, sizeof *s);
}

const ir_stmt *fz_coll(const fz_site *s, int i)
{
    if (i < 0 || i >= s->body->n) return NULL;
    const ir_stmt *c = s->body->stmts[i];
    return c->kind == IR_S_COLL ? c : NULL;
}

int fz_coll_simple(const ir_stmt *c)
{
    if (c->u.coll.by || c->u.coll.ck == IR_C_MULTICAST) return 0;
    if (c->u.coll.nsrc != 1 || c->u.coll.ndst != 1 || !c->u.coll.dst[0]) return 0;
    if ((c->u.coll.src_lo && c->u.coll.src_lo[0]) || (c->u.coll.dst_lo && c->u.coll.dst_lo[0])) return 0;
    return 1;
}

int fz_same_block(const ir_expr *a, const ir_expr *b)
{
    char *x = ir_print_expr(a), *y = ir_print_expr(b);
    int same = strcmp(x, y) == 0;
    free(x);
    free(y);
    return same;
}

const ir_decl *fz_block_array(const fz_site *s, const ir_expr *blk)
{
    int k = blk->kind == IR_E_ACCESS ? blk->u.access.array_index : blk->u.name.index;
    return k >= 0 && k < s->q->narrays ? s->q->arrays[k] : NULL;
}

static int block_prefix(const ir_expr *blk) { return blk->kind == IR_E_ACCESS ? blk->u.access.nidx : 0; }

int fz_block_rest_dims(const fz_site *s, const ir_expr *blk)
{
    const ir_decl *a = fz_block_array(s, blk);
    return a ? a->u.array.ndims - block_prefix(blk) : 0;
}

int64_t fz_block_elems(const fz_site *s, const ir_expr *blk)
{
    const ir_decl *a = fz_block_array(s, blk);
    if (!a) return -1;
    int64_t m = 1;
    diag_list d;
    diag_list_init(&d);
    for (int k = block_prefix(blk); k < a->u.array.ndims; k++) {
        int64_t lo, hi;
        double r;
        int isr;
        if (ir_const_eval(s->q, a->u.array.lo[k], s->params, &lo, &r, &isr, &d) != 0 ||
            ir_const_eval(s->q, a->u.array.hi[k], s->params, &hi, &r, &isr, &d) != 0) {
            m = -1;
            break;
        }
        m *= hi >= lo ? hi - lo + 1 : 0;
    }
    diag_list_free(&d);
    return m;
}

char *fz_block_loop_head(const fz_site *s, const ir_expr *blk, const char *const *vars)
{
    const ir_decl *a = fz_block_array(s, blk);
    int p = block_prefix(blk);
    if (!a || p >= a->u.array.ndims) return NULL;
    strbuf b = {0};
    strbuf_printf(&b, "for ");
    for (int k = p; k < a->u.array.ndims; k++) {
        char *lo = ir_print_expr(a->u.array.lo[k]), *hi = ir_print_expr(a->u.array.hi[k]);
        strbuf_printf(&b, "%s%s = %s .. %s", k > p ? ", " : "", vars[k - p], lo, hi);
        free(lo);
        free(hi);
    }
    return strbuf_take(&b);
}

char *fz_block_elem(const fz_site *s, const ir_expr *blk, const char *const *vars)
{
    char *t = ir_print_expr(blk);
    strbuf b = {0};
    strbuf_printf(&b, "%s", t);
    free(t);
    for (int k = 0; k < fz_block_rest_dims(s, blk); k++) strbuf_printf(&b, "[%s]", vars[k]);
    return strbuf_take(&b);
}

char *fz_coll_block_text(const ir_stmt *c, int dst, int k)
{
    assert((dst == 0 || dst == 1) && k >= 0 && k < (dst ? c->u.coll.ndst : c->u.coll.nsrc));
    const ir_expr *e = dst ? c->u.coll.dst[k] : c->u.coll.src[k];
    if (!e) return xstrdup("_");
    ir_expr *const *lo = dst ? c->u.coll.dst_lo : c->u.coll.src_lo, *const *hi = dst ? c->u.coll.dst_hi : c->u.coll.src_hi;
    char *t = ir_print_expr(e);
    if (!lo || !lo[k]) return t;
    char *l = ir_print_expr(lo[k]), *h = ir_print_expr(hi[k]), *r = xasprintf("%s[%s .. %s]", t, l, h);
    free(t); free(l); free(h);
    return r;
}

int64_t fz_coll_block_elems(const fz_site *s, const ir_stmt *c, int dst, int k)
{
    assert((dst == 0 || dst == 1) && k >= 0 && k < (dst ? c->u.coll.ndst : c->u.coll.nsrc));
    ir_expr *const *lo = dst ? c->u.coll.dst_lo : c->u.coll.src_lo, *const *hi = dst ? c->u.coll.dst_hi : c->u.coll.src_hi;
    if (!lo || !lo[k]) return fz_block_elems(s, dst ? c->u.coll.dst[k] : c->u.coll.src[k]);
    int64_t l, h;
    double r;
    int isr;
    diag_list d;
    diag_list_init(&d);
    int ok = ir_const_eval(s->q, lo[k], s->params, &l, &r, &isr, &d) == 0 &&
             ir_const_eval(s->q, hi[k], s->params, &h, &r, &isr, &d) == 0;
    diag_list_free(&d);
    return ok ? (h >= l ? h - l + 1 : 0) : -1;
}

/* ---- reads ---------------------------------------------------------------------------------- */

static int expr_mentions(const ir_expr *e, const char *array)
{
    if (!e) return 0;
    switch (e->kind) {
    case IR_E_INT: case IR_E_REAL: return 0;
    case IR_E_NAME: return e->u.name.nk == IR_N_ARRAY && !strcmp(e->u.name.id, array);
    case IR_E_ACCESS:
        if (!strcmp(e->u.access.array, array)) return 1;
        for (int i = 0; i < e->u.access.nidx; i++) if (expr_mentions(e->u.access.idx[i], array)) return 1;
        return 0;
    case IR_E_UNARY: case IR_E_BINARY:
        return expr_mentions(e->u.op.a, array) || expr_mentions(e->u.op.b, array);
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++) if (expr_mentions(e->u.call.args[i], array)) return 1;
        return 0;
    case IR_E_REDUCE:
        return expr_mentions(e->u.reduce.lo, array) || expr_mentions(e->u.reduce.hi, array) ||
               expr_mentions(e->u.reduce.body, array);
    case IR_E_REPEAT:
        if (expr_mentions(e->u.repeat.k, array)) return 1;
        for (int i = 0; i < e->u.repeat.nargs; i++) if (expr_mentions(e->u.repeat.args[i], array)) return 1;
        return 0;
    }
    return 0;
}

/* The subscripts of a written element or block (a read of the indices, not of the array). */
static int target_mentions(const ir_expr *e, const char *array)
{
    if (!e || e->kind != IR_E_ACCESS) return 0;
    for (int i = 0; i < e->u.access.nidx; i++) if (expr_mentions(e->u.access.idx[i], array)) return 1;
    return 0;
}

static int exprs_mention(ir_expr *const *v, int n, const char *array)
{
    for (int i = 0; v && i < n; i++) if (expr_mentions(v[i], array)) return 1;
    return 0;
}

static int block_reads(const ir_block *b, const char *array, const ir_stmt *const *skip, int nskip);

static int stmt_reads(const ir_stmt *s, const char *array, const ir_stmt *const *skip, int nskip)
{
    for (int i = 0; i < nskip; i++) if (skip[i] == s) return 0;
    switch (s->kind) {
    case IR_S_ASSIGN: return expr_mentions(s->u.assign.rhs, array) || target_mentions(s->u.assign.lhs, array);
    case IR_S_LET: return expr_mentions(s->u.let.value, array);
    case IR_S_IF:
        return expr_mentions(s->u.if_.cond, array) || block_reads(s->u.if_.then_blk, array, skip, nskip) ||
               block_reads(s->u.if_.else_blk, array, skip, nskip);
    case IR_S_FOR:
        for (int i = 0; i < s->u.for_.nvars; i++)
            if (expr_mentions(s->u.for_.vars[i].lo, array) || expr_mentions(s->u.for_.vars[i].hi, array) ||
                expr_mentions(s->u.for_.vars[i].step, array)) return 1;
        return block_reads(s->u.for_.body, array, skip, nskip);
    case IR_S_SEND:
        return expr_mentions(s->u.send.what, array) || expr_mentions(s->u.send.to_lo, array) ||
               expr_mentions(s->u.send.to_hi, array) || expr_mentions(s->u.send.at, array) ||
               expr_mentions(s->u.send.when, array);
    case IR_S_COLL: {
        const int ns = s->u.coll.nsrc, nd = s->u.coll.ndst;
        if (exprs_mention(s->u.coll.src, ns, array) || expr_mentions(s->u.coll.root, array)) return 1;
        if (exprs_mention(s->u.coll.src_lo, ns, array) || exprs_mention(s->u.coll.src_hi, ns, array)) return 1;
        if (exprs_mention(s->u.coll.dst_lo, nd, array) || exprs_mention(s->u.coll.dst_hi, nd, array)) return 1;
        for (int i = 0; i < nd; i++) if (target_mentions(s->u.coll.dst[i], array)) return 1;
        return 0;
    }
    case IR_S_RECV: return 0;
    }
    return 0;
}

static int block_reads(const ir_block *b, const char *array, const ir_stmt *const *skip, int nskip)
{
    if (!b) return 0;
    for (int i = 0; i < b->n; i++) if (stmt_reads(b->stmts[i], array, skip, nskip)) return 1;
    return 0;
}

int fz_array_read_elsewhere(const fz_site *s, const char *array, const ir_stmt *const *skip, int nskip)
{
    for (int i = 0; i < s->q->ndecls; i++) {
        const ir_decl *d = s->q->decls[i];
        if (d->kind == IR_D_OUTPUT && !strcmp(d->u.output.array, array)) return 1;
    }
    return block_reads(s->q->body, array, skip, nskip);
}

/* ---- names ---------------------------------------------------------------------------------- */

static int stmt_binds(const ir_stmt *st, const char *name);

static int block_binds(const ir_block *b, const char *name)
{
    for (int i = 0; b && i < b->n; i++) if (stmt_binds(b->stmts[i], name)) return 1;
    return 0;
}

static int stmt_binds(const ir_stmt *st, const char *name)
{
    switch (st->kind) {
    case IR_S_LET: return !strcmp(st->u.let.var, name);
    case IR_S_IF: return block_binds(st->u.if_.then_blk, name) || block_binds(st->u.if_.else_blk, name);
    case IR_S_FOR:
        for (int i = 0; i < st->u.for_.nvars; i++) if (!strcmp(st->u.for_.vars[i].var, name)) return 1;
        return block_binds(st->u.for_.body, name);
    default: return 0;
    }
}

static int name_taken(const fz_site *s, const char *n)
{
    for (int i = 0; i < s->q->nparams; i++) if (!strcmp(s->q->params[i]->u.param.name, n)) return 1;
    for (int i = 0; i < s->q->narrays; i++) if (!strcmp(s->q->arrays[i]->u.array.name, n)) return 1;
    for (int i = 0; i < s->q->nops; i++) if (!strcmp(s->q->ops[i]->u.op.name, n)) return 1;
    return block_binds(s->q->body, n);
}

char *fz_fresh_name(const fz_site *s, const char *base, const char *also_taken)
{
    char *n = xstrdup(base);
    for (int k = 2; name_taken(s, n) || (also_taken && strstr(also_taken, n)); k++) {
        free(n);
        n = xasprintf("%s%d", base, k);
    }
    return n;
}

/* ---- operators ------------------------------------------------------------------------------ */

const char *fz_type_name(ir_type t) { return t == IR_DOUBLE ? "double" : "int"; }

int fz_op_arity(const fz_site *s, const ir_opref *op)
{
    return op->user >= 0 ? op_state_arity(s->q, op->user) : 1;
}

ir_type fz_op_field_type(const fz_site *s, const ir_opref *op, int k, ir_type elem)
{
    return op->user >= 0 ? op_state_type(s->q, op->user, k) : elem;
}

int fz_op_simple(const fz_site *s, const ir_opref *op, char **why)
{
    if (op->builtin >= 0) return 1;
    if (op->user < 0) { *why = xasprintf("unresolved operator"); return 0; }
    const ir_decl *od = s->q->ops[op->user];
    if (od->u.op.in || op_state_arity(s->q, op->user) != 1 || !od->u.op.clause[IR_K_COMBINE]) {
        *why = xasprintf("operator '%s' is not elementwise with one state field and a combine clause",
                           od->u.op.name);
        return 0;
    }
    return 1;
}

/* Renames the pattern names and lets of a clause's expression: a name found in from[] becomes
 * to[] (the clone is printed, then dropped with the scratch program). */
typedef struct fz_subst { const char **from; const char **to; int n; } fz_subst;

static void rename_names(ir_expr *e, const fz_subst *m)
{
    if (!e) return;
    switch (e->kind) {
    case IR_E_INT: case IR_E_REAL: return;
    case IR_E_NAME:
        for (int i = 0; i < m->n; i++)
            if (!strcmp(e->u.name.id, m->from[i])) { e->u.name.id = m->to[i]; return; }
        return;
    case IR_E_ACCESS: for (int i = 0; i < e->u.access.nidx; i++) rename_names(e->u.access.idx[i], m); return;
    case IR_E_UNARY: case IR_E_BINARY: rename_names(e->u.op.a, m); rename_names(e->u.op.b, m); return;
    case IR_E_CALL: for (int i = 0; i < e->u.call.nargs; i++) rename_names(e->u.call.args[i], m); return;
    case IR_E_REDUCE:
        rename_names(e->u.reduce.lo, m); rename_names(e->u.reduce.hi, m); rename_names(e->u.reduce.body, m);
        return;
    case IR_E_REPEAT:
        rename_names(e->u.repeat.k, m);
        for (int i = 0; i < e->u.repeat.nargs; i++) rename_names(e->u.repeat.args[i], m);
        return;
    }
}

static char *subst_print(ir_program *scratch, const ir_expr *e, const fz_subst *m)
{
    ir_expr *c = ir_clone_expr(scratch, e);
    rename_names(c, m);
    return ir_print_expr(c);
}

/* Replaces every whole-word occurrence of the placeholders ph[i] in `t` by "(val[i])". */
static char *replace_words(const char *t, const char *const *ph, const char *const *val, int n)
{
    strbuf b = {0};
    strbuf_printf(&b, "%s", "");
    for (const char *p = t; *p;) {
        int hit = -1;
        for (int i = 0; i < n && hit < 0; i++) {
            size_t L = strlen(ph[i]);
            if (!strncmp(p, ph[i], L)) hit = i;
        }
        if (hit >= 0) {
            strbuf_printf(&b, "(%s)", val[hit]);
            p += strlen(ph[hit]);
        } else {
            strbuf_putn(&b, p++, 1);
        }
    }
    return strbuf_take(&b);
}

/* The combine clause of user operator u as field texts, with its patterns renamed to left[]
 * and right[] and its lets substituted (each let becomes its parenthesised value). */
static int user_combine(const fz_site *s, int u, const char *const *left, const char *const *right,
                        char **vals, int max)
{
    const ir_opitem *cl = s->q->ops[u]->u.op.clause[IR_K_COMBINE];
    int n = op_state_arity(s->q, u);
    if (!cl || n > max || cl->npats != 2) return -1;
    ir_program *scratch = ir_program_new(NULL);
    int nmap = 0, cap = cl->pats[0].n + cl->pats[1].n + cl->nlets;
    const char **from = xcalloc((size_t)cap + 1, sizeof *from), **to = xcalloc((size_t)cap + 1, sizeof *to);
    char **letph = xcalloc((size_t)cl->nlets + 1, sizeof *letph), **letval = xcalloc((size_t)cl->nlets + 1, sizeof *letval);
    for (int k = 0; k < cl->pats[0].n; k++) { from[nmap] = cl->pats[0].names[k]; to[nmap++] = left[k]; }
    for (int k = 0; k < cl->pats[1].n; k++) { from[nmap] = cl->pats[1].names[k]; to[nmap++] = right[k]; }
    for (int k = 0; k < cl->nlets; k++) {
        fz_subst m = {from, to, nmap};
        char *raw = subst_print(scratch, cl->letv[k], &m);
        letval[k] = replace_words(raw, (const char *const *)letph, (const char *const *)letval, k);
        free(raw);
        letph[k] = xasprintf("FZLET%dZ", k);
        from[nmap] = cl->lets[k];
        to[nmap++] = letph[k];
    }
    fz_subst m = {from, to, nmap};
    for (int k = 0; k < n; k++) {
        char *raw = subst_print(scratch, cl->val[k], &m);
        vals[k] = replace_words(raw, (const char *const *)letph, (const char *const *)letval, cl->nlets);
        free(raw);
    }
    for (int k = 0; k < cl->nlets; k++) { free(letph[k]); free(letval[k]); }
    free(letph);
    free(letval);
    free(from);
    free(to);
    ir_program_free(scratch);
    return n;
}

int fz_op_clause_text(const fz_site *s, int u, ir_clause_kind k, const char *const *pat0,
                      const char *const *pat1, const char *prefix, strbuf *lets, strbuf *vals)
{
    const ir_opitem *cl = s->q->ops[u]->u.op.clause[k];
    if (!cl) return -1;
    ir_program *scratch = ir_program_new(NULL);
    int n0 = cl->npats > 0 ? cl->pats[0].n : 0, n1 = cl->npats > 1 ? cl->pats[1].n : 0, nmap = 0;
    const char **from = xcalloc((size_t)(n0 + n1 + cl->nlets) + 1, sizeof *from);
    const char **to = xcalloc((size_t)(n0 + n1 + cl->nlets) + 1, sizeof *to);
    char **letname = xcalloc((size_t)cl->nlets + 1, sizeof *letname);
    for (int i = 0; i < n0; i++) { from[nmap] = cl->pats[0].names[i]; to[nmap++] = pat0[i]; }
    for (int i = 0; i < n1; i++) { from[nmap] = cl->pats[1].names[i]; to[nmap++] = pat1[i]; }
    for (int i = 0; i < cl->nlets; i++) {
        fz_subst m = {from, to, nmap};
        char *v = subst_print(scratch, cl->letv[i], &m);
        letname[i] = xasprintf("%s%s", prefix, cl->lets[i]);
        strbuf_printf(lets, "%s%s = %s", lets->n ? ", " : "", letname[i], v);
        free(v);
        from[nmap] = cl->lets[i];
        to[nmap++] = letname[i];
    }
    fz_subst m = {from, to, nmap};
    for (int i = 0; i < cl->nval; i++) {
        char *v = subst_print(scratch, cl->val[i], &m);
        strbuf_printf(vals, "%s%s", vals->n ? ", " : "", v);
        free(v);
    }
    for (int i = 0; i < cl->nlets; i++) free(letname[i]);
    free(letname);
    free(from);
    free(to);
    ir_program_free(scratch);
    return cl->nval;
}

static char *builtin_text(ir_bop b, const char *x, const char *y)
{
    switch (b) {
    case IR_BOP_ADD: return xasprintf("(%s) + (%s)", x, y);
    case IR_BOP_MUL: return xasprintf("(%s) * (%s)", x, y);
    case IR_BOP_AND: return xasprintf("(%s) && (%s)", x, y);
    case IR_BOP_OR: return xasprintf("(%s) || (%s)", x, y);
    default: return xasprintf("%s(%s, %s)", op_builtin_name(b), x, y);
    }
}

int fz_op_combine_fields(const fz_site *s, const ir_opref *op, const char *const *left,
                         const char *const *right, char **vals, int max)
{
    if (op->builtin >= 0) {
        if (max < 1) return -1;
        vals[0] = builtin_text((ir_bop)op->builtin, left[0], right[0]);
        return 1;
    }
    if (op->user < 0 || s->q->ops[op->user]->u.op.in) return -1;
    return user_combine(s, op->user, left, right, vals, max);
}

char *fz_op_text(const fz_site *s, const ir_opref *op, const char *a, const char *b)
{
    if (op->builtin >= 0) return builtin_text((ir_bop)op->builtin, a, b);
    const char *ph[2] = {"FZLEFTZ", "FZRIGHTZ"}, *val[2] = {a, b};
    char *raw = NULL;
    if (user_combine(s, op->user, &ph[0], &ph[1], &raw, 1) != 1) return xstrdup("?");
    char *t = replace_words(raw, ph, val, 2);
    free(raw);
    return t;
}

/* ---- the result ----------------------------------------------------------------------------- */

ir_program *fz_finish(const fz_site *s, const char *xf, int first, int last, const char *repl,
                      const char *decls, diag_list *d)
{
    int at = s->nest->pos.line - s->nest->comments.nlead;
    const char *line = s->lines[first - 1];
    int indent = (int)strspn(line, " ");
    strbuf b = {0};
    for (int i = 1; i <= s->nlines; i++) {
        if (i == at && decls && *decls) strbuf_printf(&b, "%s", decls);
        if (i == first) {
            for (const char *p = repl; *p;) {
                const char *e = strchr(p, '\n');
                size_t L = e ? (size_t)(e - p) : strlen(p);
                strbuf_printf(&b, "%*s%.*s\n", indent, "", (int)L, p);
                p += L + (e ? 1 : 0);
            }
        }
        if (i >= first && i <= last) continue;
        strbuf_printf(&b, "%s\n", s->lines[i - 1]);
    }
    char *text = strbuf_take(&b);
    diag_list cd;
    diag_list_init(&cd);
    ir_program *p = ir_load_text(s->q->file, text, strlen(text), &cd);
    if (!p) {
        diag_add(d, NULL, 0, 0, "%s: internal error: the generated program does not check:", xf);
        for (int i = 0; i < cd.n; i++) diag_add(d, NULL, cd.items[i].line, cd.items[i].col, "  %s", cd.items[i].msg);
        diag_add(d, NULL, 0, 0, "generated text:\n%s", text);
    }
    diag_list_free(&cd);
    free(text);
    return p;
}

char *fz_gain_text(const fz_gain *g, const cost_profile *prof, int64_t m, int64_t p)
{
    double gain = g->before - g->after;
    return xasprintf("predicted (%s; hockney t_s=%g t_w=%g, m=%lld, p=%lld): before %.6g, after %.6g, "
                       "gain %.6g%s", g->formula, prof->ts, prof->tw, (long long)m, (long long)p,
                       g->before, g->after, gain, gain < 0 ? "  WARNING: negative gain (slower)" : "");
}
