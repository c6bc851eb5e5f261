/*
 * nest.c — the step nest, defined once.  A program at syn and above is top-level lets, then one
 * loop nest `for t = .. seq { for p = .. par|proc { .. } }` (or `for t = .. seq, p = .. par|proc`
 * in one for): t is the time step, p the processor.  The checker recognises it with
 * ir_step_nest_find and reports what is wrong; every other part of polyapm (the simulator, the
 * exporter, the transforms) takes it from the checked program with ir_program_nest.
 */
#include <string.h>

#include "ir.h"

ir_nest_status ir_step_nest_find(const ir_block *body, ir_step_nest *n)
{
    memset(n, 0, sizeof *n);
    int i = 0;
    while (body && i < body->n && body->stmts[i] && body->stmts[i]->kind == IR_S_LET) i++;
    n->nlets = i;
    if (!body || i == body->n) return IR_NEST_MISSING;
    ir_stmt *s = body->stmts[i];
    if (!s) return IR_NEST_MISSING;
    if (s->kind != IR_S_FOR) return IR_NEST_NOT_FOR;
    n->tfor = s;
    n->trailing = body->n - i - 1;
    if (s->u.for_.nvars < 1 || !s->u.for_.vars) return IR_NEST_NO_VARS;
    if (s->u.for_.nvars >= 2) {
        n->pfor = s;
        n->pidx = 1;
    } else {
        const ir_block *tb = s->u.for_.body;
        if (!tb || tb->n != 1 || !tb->stmts[0] || tb->stmts[0]->kind != IR_S_FOR || tb->stmts[0]->u.for_.nvars < 1)
            return IR_NEST_NO_PROC;
        n->pfor = tb->stmts[0];
        n->pidx = 0;
    }
    ir_loop_kind k = n->pfor->u.for_.vars[n->pidx].kind;
    if (k != IR_LOOP_PAR && k != IR_LOOP_PROC) {
        n->pfor = NULL;
        return IR_NEST_NO_PROC;
    }
    ir_loop_kind tk = s->u.for_.vars[0].kind;
    if (tk == IR_LOOP_PAR || tk == IR_LOOP_PROC) return IR_NEST_TIME_PARALLEL;
    return IR_NEST_OK;
}

const ir_step_nest *ir_program_nest(const ir_program *p)
{
    return p && p->checked && p->level != IR_SOURCE && p->nest.tfor ? &p->nest : NULL;
}
