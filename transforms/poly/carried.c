/*
 * carried.c — the statements none of whose loops may run in parallel: each loop around them
 * carries a dependence.
 *
 * A loop carries a dependence when two instances of statements inside it that the loops outside
 * it keep together (equal in their variables) are ordered by it (the sink at a later value of
 * its variable); such a loop cannot give its iterations to different processors in one step.
 * A statement all of whose loops carry one keeps its instances on one processor under every
 * allocation along its loops (floyd-warshall's S1: its sweep k carries the distances of the
 * previous sweep, its loops over i and j the row and column k the sweep updates), unless a
 * mapping skews them (a wavefront, which stm auto proposes where one exists).  The dependences
 * are deps.c's (value-based, an `assume` applied), numbered as `polyapm deps` and stm's refusals
 * number them; per loop the first flow dependence it carries is named, else the first anti or
 * output one.
 */
#include <stdlib.h>
#include <string.h>

#include "poly_int.h"

/* Statement s's d-th loop (frame of its d-th loop variable), or NULL when it has fewer. */
static const xf_frame *loop_frame(const xf_stmt *s, int d)
{
    for (int f = 0; f < s->nframes; f++)
        if (s->frames[f].kind == XF_FR_FOR && d-- == 0) return &s->frames[f];
    return NULL;
}

/* Whether statement t is inside loop `lp`, the d-th loop of another. */
static int inside(const xf_model *m, int t, int d, const xf_frame *lp)
{
    const xf_frame *f = loop_frame(&m->st[t], d);
    return f && f->node == lp->node && f->var == lp->var;
}

/* The pairs of dependence rel the d-th loop orders: equal in the d loops outside it, the sink
 * later in it. */
static __isl_give isl_map *carried_at(__isl_keep isl_map *rel, int d)
{
    isl_map *c = isl_map_copy(rel);
    for (int e = 0; e < d; e++) c = isl_map_equate(c, isl_dim_in, e, isl_dim_out, e);
    return isl_map_order_lt(c, isl_dim_in, d, isl_dim_out, d);
}

/* The dependence loop d of statement s carries (a flow one first), in *out; 0 when none. */
static int loop_carry(const xf_model *m, const xf_rawdep *r, int nr, int s, int d, xf_carry *out)
{
    const xf_frame *lp = loop_frame(&m->st[s], d);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < nr; i++) {
            if ((r[i].kind == XF_DEP_FLOW) != (pass == 0)) continue;
            if (!inside(m, r[i].src, d, lp) || !inside(m, r[i].sink, d, lp)) continue;
            isl_map *c = carried_at(r[i].rel, d);
            int any = isl_map_is_empty(c) == isl_bool_false;
            if (any) {
                *out = (xf_carry){.var = xstrdup(lp->node->u.for_.vars[lp->var].var),
                                  .dep = i + 1, .kind = r[i].kind, .src = xstrdup(m->st[r[i].src].name),
                                  .sink = xstrdup(m->st[r[i].sink].name), .ref = xstrdup(m->acc[r[i].acc].text),
                                  .example = xf_example(m, c)};
            }
            isl_map_free(c);
            if (any) return 1;
        }
    return 0;
}

static void carries_free(xf_carry *c, int n)
{
    for (int l = 0; c && l < n; l++) {
        free(c[l].var);
        free(c[l].src);
        free(c[l].sink);
        free(c[l].ref);
        free(c[l].example);
    }
    free(c);
}

int xf_serial_statements(const ir_program *p, const ir_binding *ov, int nov, xf_serial **out, int *n,
                         diag_list *d)
{
    *out = NULL;
    *n = 0;
    if (p->level != IR_SOURCE) {
        diag_add(d, p->file, 0, 0, "dependence analysis needs a source-level program (this one is %s)",
                 ir_level_name(p->level));
        return -1;
    }
    xf_model *m = xf_model_build(p, ov, nov, 0, d);
    if (!m) return -1;
    xf_rawdep *r = NULL;
    int nr = 0;
    if (xf_model_deps(m, &r, &nr, d) != 0) { xf_model_free(m); return -1; }
    xf_serial *res = xcalloc((size_t)m->nst + 1, sizeof *res);
    int k = 0;
    for (int s = 0; s < m->nst && !xf_cancelled(); s++) {
        int nl = 0;
        while (loop_frame(&m->st[s], nl)) nl++;
        if (!nl) continue;
        xf_carry *c = xcalloc((size_t)nl, sizeof *c);
        int all = 1;
        for (int l = 0; l < nl && all; l++) all = loop_carry(m, r, nr, s, l, &c[l]);
        if (all) res[k++] = (xf_serial){.stmt = xstrdup(m->st[s].name), .nloops = nl, .loops = c};
        else carries_free(c, nl);   /* the loops found so far (calloc'd: the rest are empty) */
    }
    xf_rawdeps_free(r, nr);
    xf_model_free(m);
    *out = res;
    *n = k;
    return 0;
}

void xf_serial_free(xf_serial *s, int n)
{
    for (int i = 0; s && i < n; i++) {
        carries_free(s[i].loops, s[i].nloops);
        free(s[i].stmt);
    }
    free(s);
}
