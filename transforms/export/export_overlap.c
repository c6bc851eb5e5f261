/*
 * export_overlap.c — the exporter's part of the overlap placement (place_overlap.c): a syndm
 * step that ends with `recv`, exported with the halo pattern, posts its exchange right after
 * the last statement of the processor body that sends (the boundary: post_halo, Irecv and Isend
 * of the values just computed), computes the rest (the interior) while the messages travel, and
 * completes the exchange at `recv` (wait_halo, Waitall before the next step reads the halo).
 * The step function then takes the patterns; the main loop no longer exchanges after the step.
 * With the Alltoallv records (or without sends) `recv` writes nothing: the exchange stays at the
 * end of the step, as in any program.
 */
#include <inttypes.h>

#include "export_int.h"

/* The processor body: the block that ends with recv (the checker allows it nowhere else). */
static int ex_ends_with_recv(const ir_block *b)
{
    return b && b->n > 0 && b->stmts[b->n - 1]->kind == IR_S_RECV;
}

/* The processor loop's body of the plan's nest. */
static const ir_block *ex_proc_body(const ex_plan *pl)
{
    if (!pl->nest) return NULL;
    return pl->pdepth == 1 ? pl->nest->u.for_.body : pl->nest->u.for_.body->stmts[0]->u.for_.body;
}

int ex_overlap_placed(const ex_plan *pl)
{
    return pl->mpi && !pl->shared && pl->exchange == XF_EXCHANGE_HALO && ex_ends_with_recv(ex_proc_body(pl));
}

const char *ex_overlap_step_param(const ex_plan *pl)
{
    return ex_overlap_placed(pl) ? ", rt_pattern *const *pattern" : "";
}

const char *ex_overlap_step_arg(const ex_plan *pl)
{
    return ex_overlap_placed(pl) ? ", pattern" : "";
}

/* The halo functions: one exchange after the step, or its two halves inside it. */
static const ex_halo_fn ex_halo_plain[] = {
    {"exchange_halo", "rt_pattern_exchange", "The exchange after step"},
    {NULL, NULL, NULL},
};
static const ex_halo_fn ex_halo_overlap[] = {
    {"post_halo", "rt_pattern_post", "Posted once the boundary is computed: the exchange of step"},
    {"wait_halo", "rt_pattern_wait", "At recv: the completion of the exchange of step"},
    {NULL, NULL, NULL},
};

const ex_halo_fn *ex_overlap_halo_fns(const ex_plan *pl)
{
    return ex_overlap_placed(pl) ? ex_halo_overlap : ex_halo_plain;
}

/* `fn(pattern[k], me, t)` for every phase, under the phase's conditions on the step. */
static void ex_halo_calls(const ex_em *m, strbuf *b, int in, const char *fn)
{
    const ex_plan *pl = m->pl;
    const char *tn = pl->nest->u.for_.vars[0].var;
    for (int k = 0; k < pl->nphases; k++) {
        strbuf c = {0}, pre = {0};
        for (int i = 0; i < pl->phase_nconds[k]; i++) {
            if (i) strbuf_printf(&c, " && ");
            ex_expr(m, &c, &pre, in, pl->phase_cond[k][i]);
        }
        ex_indent(b, in);
        if (c.n) strbuf_printf(b, "if (%s) ", c.s);
        strbuf t = {0};
        ir_expr tv = {.kind = IR_E_NAME, .type = IR_INT};
        tv.u.name.id = tn;
        tv.u.name.nk = IR_N_LOOPVAR;
        tv.u.name.index = pl->tslot;
        ex_expr(m, &t, &pre, in, &tv);
        strbuf_printf(b, "%s(pattern[%d], me, %s);\n", fn, k, t.s);
        strbuf_free(&t);
        strbuf_free(&c);
        strbuf_free(&pre);
    }
}

void ex_overlap_after(const ex_em *m, strbuf *b, const ir_block *blk, int k, int in)
{
    if (m->mode != EX_STEP || !ex_overlap_placed(m->pl) || blk != ex_proc_body(m->pl)) return;
    for (int j = k + 1; j < blk->n; j++) if (ir_stmt_has_kind(blk->stmts[j], IR_S_SEND)) return;
    if (!ir_stmt_has_kind(blk->stmts[k], IR_S_SEND)) return;
    strbuf_printf(b, "%*s/* the boundary is computed: its messages leave now, the interior overlaps them */\n", in, "");
    ex_halo_calls(m, b, in, "post_halo");
}

void ex_overlap_recv(const ex_em *m, strbuf *b, int in)
{
    if (!ex_overlap_placed(m->pl)) return;
    strbuf_printf(b, "%*s/* recv: wait until the step's messages have arrived (the next step reads them) */\n", in, "");
    ex_halo_calls(m, b, in, "wait_halo");
}
