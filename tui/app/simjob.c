/*
 * simjob.c — run a program and its reference, verify, price both (see simjob.h).
 */
#include "simjob.h"

#include <stdlib.h>
#include <string.h>

#include "xf.h"

/* The node's final parameter values, by name, so the reference runs the same instance. */
static ir_binding *final_bindings(const simjob *j, int *n)
{
    const ir_program *p = j->prog;
    ir_binding *b = calloc((size_t)p->nparams + 1, sizeof *b);
    if (!b) return NULL;
    for (int i = 0; i < p->nparams && i < j->res->nparams; i++) {
        b[i].name = p->params[i]->u.param.name;
        b[i].value = j->res->params[i];
    }
    *n = p->nparams;
    return b;
}

/* Did run r of the reference ref run at bindings b (every parameter b names, at its value)? */
static int ref_run_at(const ir_program *ref, const sim_result *r, const ir_binding *b, int nb)
{
    if (!r->ok || r->nparams != ref->nparams) return 0;
    for (int i = 0; i < ref->nparams; i++)
        for (int k = 0; k < nb; k++)
            if (!strcmp(b[k].name, ref->params[i]->u.param.name) && b[k].value != r->params[i]) return 0;
    return 1;
}

static void copy_diags(diag_list *to, const diag_list *from)
{
    for (int i = 0; i < from->n; i++)
        diag_add(to, from->items[i].file, from->items[i].line, from->items[i].col, "%s",
                 from->items[i].msg);
}

int simjob_run(simjob *j, diag_list *d)
{
    const char *model = j->model ? j->model : "polyapm";
    j->verified = -1;
    sim_options opt = {.bindings = j->bindings, .nbindings = j->nbindings, .cancel = j->cancel,
                       .progress = j->progress, .progress_ctx = j->progress_ctx, .all_planes = j->all_planes};
    j->res = sim_run(j->prog, &opt);
    if (!j->res) { diag_add(d, j->prog->file, 0, 0, "out of memory"); return -1; }
    if (!j->res->ok || j->res->cancelled) {
        copy_diags(d, &j->res->diags);
        if (j->res->cancelled) diag_add(d, j->prog->file, 0, 0, "simulation cancelled");
        return -1;
    }
    cost_profile prof = xf_export_pricing(j->prog, j->bindings, j->nbindings, &j->profile);
    if (cost_evaluate(model, &j->res->trace, &prof, &j->cost) != 0) {
        diag_add(d, NULL, 0, 0, "unknown cost model '%s'", model);
        return -1;
    }
    j->has_cost = 1;

    if (!j->ref) {
        if (j->prog->level == IR_SOURCE) j->verified = j->res->violations_total == 0;
        return 0;
    }
    int nb = 0;
    ir_binding *b = final_bindings(j, &nb);
    if (j->ref_res && !ref_run_at(j->ref, j->ref_res, b, nb)) j->ref_res = NULL;   /* the caller's */
    if (!j->ref_res) {
        sim_options ropt = {.bindings = b, .nbindings = nb, .cancel = j->cancel, .all_planes = j->all_planes};
        j->ref_res = sim_run(j->ref, &ropt);
    }
    free(b);
    if (!j->ref_res || !j->ref_res->ok || j->ref_res->cancelled) {
        if (j->ref_res) copy_diags(d, &j->ref_res->diags);
        diag_add(d, j->ref->file, 0, 0, "the reference program could not be simulated");
        return -1;
    }
    if (cost_evaluate(model, &j->ref_res->trace, &j->profile, &j->ref_cost) == 0) j->has_ref_cost = 1;
    if (j->ref_res->violations_total) {
        diag_add(d, j->ref->file, 0, 0, "the reference program itself has %lld violations",
                 (long long)j->ref_res->violations_total);
        j->verified = 0;
        return 0;
    }
    j->verified = sim_verify(j->res, j->ref_res) && j->res->violations_total == 0;
    return 0;
}

void simjob_free(simjob *j)
{
    if (j->has_cost) cost_summary_free(&j->cost);
    if (j->has_ref_cost) cost_summary_free(&j->ref_cost);
    if (j->res) sim_result_free(j->res);
    if (j->ref_res) sim_result_free(j->ref_res);
    j->res = j->ref_res = NULL;
    j->has_cost = j->has_ref_cost = 0;
}

int simjob_cost_at(const simjob *j, double data_scale, double *total, double *step_work)
{
    if (!j->has_cost) return -1;
    cost_profile prof = xf_export_pricing(j->prog, j->bindings, j->nbindings, &j->profile);
    prof.data_scale = data_scale;
    cost_summary c;
    if (cost_evaluate(j->model ? j->model : "polyapm", &j->res->trace, &prof, &c) != 0) return -1;
    *total = c.total;
    *step_work = c.step_work;
    cost_summary_free(&c);
    return 0;
}
