/*
 * export_steps.c — the steps that exchange messages.
 *
 * A syndm program whose messages travel as records (the alltoallv exchange, the thesis's
 * mpi_apm style) delivers them at the end of a step: a collective call every rank makes, a
 * synchronisation of all of them.  A step in which no processor sends anything needs no
 * delivery.  Which steps send follows from the sends' domains (the polyhedral model,
 * isl_build.c, with the parameters fixed to the values exported): their union projected on the
 * time loop.  main() then delivers under that set's condition, which every rank evaluates
 * alike from t alone, so that the collective calls still match.  A pipeline such as atax's
 * (4,001 steps, one of them with messages) no longer synchronises its ranks at every step.
 *
 * A send to the sender's own processor is no message (the exported code skips it): the steps
 * are those where some send has a destination other than its processor (isl_build.c reads the
 * destinations, commgen's pieces included).  gemver's pipeline sends x on at every step, to the
 * processor itself but at the block boundaries: three steps of 2,003 deliver.
 *
 * The set may be larger than the steps that send (a condition the model cannot express is
 * dropped, a superset): a delivery with nothing to deliver is only time.  It is never smaller.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ast.h>
#include <isl/ast_build.h>
#include <isl/id.h>
#include <isl/set.h>
#include <isl/val.h>

#include "export_int.h"
#include "poly_int.h"

enum { EX_STEPS_MAX_TEXT = 2000 };   /* a longer condition is not worth its reading: every step */

static int ex_steps_c(strbuf *b, __isl_keep isl_ast_expr *e, const char *tn);

/* The operands of e joined by `sep`, or through the binary helper `fn`, left to right. */
static int ex_steps_args(strbuf *b, __isl_keep isl_ast_expr *e, const char *sep, const char *fn, const char *tn)
{
    int n = (int)isl_ast_expr_op_get_n_arg(e), r = 0;
    for (int i = 0; i < n - 1 && fn; i++) strbuf_printf(b, "%s(", fn);
    if (!fn) strbuf_printf(b, "(");
    for (int i = 0; i < n && !r; i++) {
        isl_ast_expr *a = isl_ast_expr_op_get_arg(e, i);
        if (i) strbuf_printf(b, "%s", fn ? ", " : sep);
        r = ex_steps_c(b, a, tn);
        if (fn && i) strbuf_printf(b, ")");
        isl_ast_expr_free(a);
    }
    if (!fn) strbuf_printf(b, ")");
    return r;
}

typedef struct ex_steps_op { enum isl_ast_expr_op_type t; const char *sep, *fn; } ex_steps_op;

/* isl's operations in the exported C: arithmetic through the checked helpers of intsem.h (the
 * one definition of integer arithmetic the simulator shares); zdiv_r and pdiv_r are remainders
 * only compared with 0, imod's floor remainder is zero where theirs is. */
static const ex_steps_op ex_steps_ops[] = {
    { isl_ast_expr_op_and, " && ", NULL }, { isl_ast_expr_op_and_then, " && ", NULL },
    { isl_ast_expr_op_or, " || ", NULL }, { isl_ast_expr_op_or_else, " || ", NULL },
    { isl_ast_expr_op_eq, " == ", NULL }, { isl_ast_expr_op_le, " <= ", NULL },
    { isl_ast_expr_op_lt, " < ", NULL }, { isl_ast_expr_op_ge, " >= ", NULL },
    { isl_ast_expr_op_gt, " > ", NULL },
    { isl_ast_expr_op_add, NULL, "iadd" }, { isl_ast_expr_op_sub, NULL, "isub" },
    { isl_ast_expr_op_mul, NULL, "imul" }, { isl_ast_expr_op_div, NULL, "ifloordiv" },
    { isl_ast_expr_op_fdiv_q, NULL, "ifloordiv" }, { isl_ast_expr_op_pdiv_q, NULL, "ifloordiv" },
    { isl_ast_expr_op_pdiv_r, NULL, "imod" }, { isl_ast_expr_op_zdiv_r, NULL, "imod" },
    { isl_ast_expr_op_min, NULL, "imin" }, { isl_ast_expr_op_max, NULL, "imax" },
};

/* e as C over the time variable (C name tn); -1 for what it cannot say. */
static int ex_steps_c(strbuf *b, __isl_keep isl_ast_expr *e, const char *tn)
{
    switch (isl_ast_expr_get_type(e)) {
    case isl_ast_expr_int: {
        isl_val *v = isl_ast_expr_get_val(e);
        int ok = isl_val_is_int(v) == isl_bool_true;
        long long x = ok ? (long long)isl_val_get_num_si(v) : 0;
        isl_val_free(v);
        if (!ok) return -1;
        strbuf_printf(b, x < 0 ? "(%lld)" : "%lld", x);
        return 0;
    }
    case isl_ast_expr_id: {   /* the only identifier: the parameters are fixed */
        isl_id *id = isl_ast_expr_get_id(e);
        int ok = id && strcmp(isl_id_get_name(id), "T") == 0;
        isl_id_free(id);
        if (!ok) return -1;
        strbuf_printf(b, "%s", tn);
        return 0;
    }
    case isl_ast_expr_op: {
        enum isl_ast_expr_op_type t = isl_ast_expr_op_get_type(e);
        for (size_t i = 0; i < sizeof ex_steps_ops / sizeof ex_steps_ops[0]; i++)
            if (ex_steps_ops[i].t == t) return ex_steps_args(b, e, ex_steps_ops[i].sep, ex_steps_ops[i].fn, tn);
        if (t == isl_ast_expr_op_minus) {
            isl_ast_expr *a = isl_ast_expr_op_get_arg(e, 0);
            strbuf_printf(b, "ineg(");
            int r = ex_steps_c(b, a, tn);
            strbuf_printf(b, ")");
            isl_ast_expr_free(a);
            return r;
        }
        return -1;
    }
    default:
        return -1;
    }
}

/* s without the parentheses around the whole of it ("((a) && (b))" is "(a) && (b)"). */
static char *ex_steps_unwrap(own_take char *s)
{
    size_t n = strlen(s);
    while (n >= 2 && s[0] == '(' && s[n - 1] == ')') {
        int depth = 0;
        size_t i;
        for (i = 0; i < n; i++) {
            depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
            if (!depth) break;
        }
        if (i != n - 1) break;   /* the first ( closes before the end: "(a) && (b)" */
        memmove(s, s + 1, n - 2);
        s[n -= 2] = '\0';
    }
    return s;
}

/* The steps of send domain `text` (NULL: none), as a set of the parameter T (the time loop
 * variable moved there), united into *all; -1 when it does not read. */
static int ex_steps_add(const xf_model *m, const char *text, isl_set **all)
{
    isl_set *s = isl_set_read_from_str(m->ctx, text);
    if (!s || isl_set_dim(s, isl_dim_set) < 1) { isl_set_free(s); return -1; }
    s = isl_set_intersect_params(s, xf_model_context(m));
    isl_size n = isl_set_dim(s, isl_dim_set);
    s = isl_set_project_out(s, isl_dim_set, 1, (unsigned)n - 1);
    s = isl_set_move_dims(s, isl_dim_param, 0, isl_dim_set, 0, 1);
    s = isl_set_set_dim_name(s, isl_dim_param, 0, "T");
    s = isl_set_params(s);
    isl_size np = isl_set_dim(s, isl_dim_param);   /* the others are fixed: only T stays */
    if (np > 1) s = isl_set_project_out(s, isl_dim_param, 1, (unsigned)np - 1);
    *all = *all ? isl_set_union(*all, s) : s;
    return *all ? 0 : -1;
}

/* The steps where some send runs to another processor than its own, as a set of the parameter
 * T, or NULL.  Where that is every step at which some send runs (a processor's sends to itself
 * are at steps with others' too), the latter: isl writes it more simply. */
static __isl_give isl_set *ex_steps_set(const xf_model *m)
{
    isl_set *any = NULL, *away = NULL;
    int ok = 1;
    for (int i = 0; i < m->nsends && ok; i++)
        ok = ex_steps_add(m, m->sends[i], &any) == 0 &&
             ex_steps_add(m, m->sends_away[i] ? m->sends_away[i] : m->sends[i], &away) == 0;
    if (!ok || !any || !away) {
        isl_set_free(any);
        isl_set_free(away);
        return NULL;
    }
    any = isl_set_coalesce(any);
    away = isl_set_coalesce(away);
    if (isl_set_is_equal(any, away) == isl_bool_true) {
        isl_set_free(away);
        return any;
    }
    isl_set_free(any);
    return away;
}

char *ex_msg_steps(const ex_plan *pl, const char *tn)
{
    const ir_program *p = pl->p;
    if (!pl->nest || pl->tslot < 0) return NULL;
    int64_t lo, hi;
    const ir_loopvar *tv = &pl->nest->u.for_.vars[0];
    if (!ir_const_int(p, tv->lo, pl->pv, &lo) || !ir_const_int(p, tv->hi, pl->pv, &hi) || hi < lo) return NULL;
    ir_binding *bind = xcalloc((size_t)p->nparams + 1, sizeof *bind);
    if (!bind) return NULL;
    for (int i = 0; i < p->nparams; i++) bind[i] = (ir_binding){ p->params[i]->u.param.name, pl->pv[i] };
    diag_list d;
    diag_list_init(&d);
    xf_model *m = xf_model_build(p, bind, p->nparams, XF_MODEL_VALUES, &d);
    diag_list_free(&d);
    free(bind);
    if (!m) return NULL;
    char *text = NULL;
    isl_set *steps = ex_steps_set(m);
    /* the steps the loop runs: lo .. hi, every tstep-th */
    char *rtext = xasprintf("[T] -> { : %" PRId64 " <= T <= %" PRId64 " and (T - %" PRId64 ") mod %" PRId64 " = 0 }",
                              lo, hi, lo, pl->tstep > 0 ? pl->tstep : 1);
    isl_set *range = isl_set_read_from_str(m->ctx, rtext);
    free(rtext);
    if (steps && range) steps = isl_set_align_params(steps, isl_set_get_space(range));
    isl_bool every = steps && range ? isl_set_is_subset(range, steps) : isl_bool_error;
    if (every == isl_bool_false) {
        isl_ast_build *build = isl_ast_build_from_context(isl_set_copy(range));
        isl_ast_expr *e = build ? isl_ast_build_expr_from_set(build, isl_set_copy(steps)) : NULL;
        strbuf b = {0};
        if (e && ex_steps_c(&b, e, tn) == 0 && b.n && b.n <= EX_STEPS_MAX_TEXT) text = ex_steps_unwrap(strbuf_take(&b));
        strbuf_free(&b);
        isl_ast_expr_free(e);
        isl_ast_build_free(build);
    }
    isl_set_free(steps);
    isl_set_free(range);
    xf_model_free(m);
    return text;
}
