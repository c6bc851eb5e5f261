/*
 * stm_align.c — allocations aligned with the data, for stm auto's mappings from schedules
 * (stm_isl.c): owner alignment (a statement runs where the element it writes lies under the other
 * statements' allocations) and read alignment (a later phase's statement moves to the data it
 * reads, pipelined along the owners).  Both compare an allocation with an access's subscript
 * on the statement's instances (isl), the answers kept in a table per alignment.
 */
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>

#include "stm_int.h"

/* Dimension d of an access relation (taken): { S[..] -> [y_d] }. */
static __isl_give isl_map *subscript_of(__isl_take isl_map *rel, int d)
{
    isl_size n = isl_map_dim(rel, isl_dim_out);
    rel = isl_map_project_out(rel, isl_dim_out, (unsigned)d + 1, (unsigned)(n - d - 1));
    return isl_map_reset_tuple_id(isl_map_project_out(rel, isl_dim_out, 0, (unsigned)d), isl_dim_out);
}

/* Dimension d of access a's subscripts: { S[..] -> [y_d] } on its statement's instances. */
static __isl_give isl_map *subscript_map(const xf_model *m, const xf_access *a, int d)
{
    isl_map *rel = isl_map_read_from_str(m->ctx, a->rel);
    return subscript_of(isl_map_intersect_domain(rel, xf_model_domain(m, a->stmt)), d);
}

/* What owner alignment asks of the model, read once per alignment: the statements' domains and
 * the accesses on them (NULL until asked), and the answers to "is σ of access a's statement its
 * subscript d?" in known[a * maxd + d] (-1: not asked yet, or asked under a σ since changed). */
typedef struct owners {
    const xf_model *m;
    isl_set **dom;
    isl_map **rel;
    signed char *known;
    int maxd;
} owners;

static int subscript_known(owners *o, isl_aff **sg, int a, int d)
{
    signed char *k = &o->known[a * o->maxd + d];
    if (*k >= 0) return *k;
    const xf_model *m = o->m;
    const xf_access *acc = &m->acc[a];
    if (!o->dom[acc->stmt]) o->dom[acc->stmt] = xf_model_domain(m, acc->stmt);
    if (!o->rel[a])
        o->rel[a] = isl_map_intersect_domain(isl_map_read_from_str(m->ctx, acc->rel), isl_set_copy(o->dom[acc->stmt]));
    /* σ_s on the statement's instances against the subscript there */
    isl_map *f = isl_map_intersect_domain(isl_map_from_aff(isl_aff_copy(sg[acc->stmt])),
                                          isl_set_copy(o->dom[acc->stmt]));
    isl_map *y = subscript_of(isl_map_copy(o->rel[a]), d);
    *k = isl_map_is_equal(f, y) == isl_bool_true;
    isl_map_free(f);
    isl_map_free(y);
    return *k;
}

static owners owners_new(const xf_model *m)
{
    int maxd = 1;
    for (int a = 0; a < m->nacc; a++)
        if (m->acc[a].expr->kind == IR_E_ACCESS && m->acc[a].expr->u.access.nidx > maxd)
            maxd = m->acc[a].expr->u.access.nidx;
    size_t na = m->nacc ? (size_t)m->nacc : 1;
    owners o = {m, xcalloc((size_t)m->nst + 1, sizeof *o.dom), xcalloc(na, sizeof *o.rel),
                xmalloc(na * (size_t)maxd), maxd};
    memset(o.known, -1, na * (size_t)maxd);
    return o;
}

/* Statement s's σ changed: its answers are unknown again. */
static void owners_forget(owners *o, int s)
{
    for (int a = 0; a < o->m->nacc; a++)
        if (o->m->acc[a].stmt == s) memset(&o->known[a * o->maxd], -1, (size_t)o->maxd);
}

static void owners_free(owners *o)
{
    for (int a = 0; a < o->m->nacc; a++) isl_map_free(o->rel[a]);
    for (int i = 0; i < o->m->nst; i++) isl_set_free(o->dom[i]);
    free(o->rel);
    free(o->dom);
    free(o->known);
}

/* Subscript d of access a as one affine function of its statement's variables, or NULL. */
static __isl_give isl_aff *subscript_aff(const xf_model *m, const xf_access *a, int d)
{
    isl_map *y = subscript_map(m, a, d);
    isl_aff *f = NULL;
    if (isl_map_is_single_valued(y) == isl_bool_true) {
        isl_pw_multi_aff *pm = isl_pw_multi_aff_from_map(isl_map_copy(y));
        f = xf_stm_single_aff(isl_pw_multi_aff_get_pw_aff(pm, 0));
        isl_pw_multi_aff_free(pm);
    }
    isl_map_free(y);
    return f;
}

/* Owner alignment: a statement whose written array the other statements distribute along one
 * of its dimensions (their σ is that subscript of their access) runs where its element lies
 * there too.  fdtd-2d under σ = i: S1 (ey[0][j] = fict[t], no loop over i) gets σ = 0, the
 * processor of row 0, rather than its own j.  Replaces sg[s] (owned) where it changes;
 * returns how many it changed. */
int xf_stm_align_owners(const xf_model *m, __isl_keep isl_aff **sg)
{
    int changed = 0;
    owners o = owners_new(m);
    for (int w = 0; w < m->nacc; w++) {
        const xf_access *aw = &m->acc[w];
        int s = aw->stmt, nd = aw->expr->kind == IR_E_ACCESS ? aw->expr->u.access.nidx : 0;
        if (!aw->write || !aw->must || nd == 0) continue;
        const char *arr = aw->expr->u.access.array;
        int aligned = 0, along = -1;   /* σ_s is a subscript the others use; the first one they use */
        for (int d = 0; d < nd && !aligned; d++) {
            int used = 0;
            for (int a = 0; a < m->nacc && !used; a++) {
                const xf_access *oa = &m->acc[a];
                used = oa->stmt != s && oa->expr->kind == IR_E_ACCESS && !strcmp(oa->expr->u.access.array, arr) &&
                       subscript_known(&o, sg, a, d);
            }
            if (!used) continue;
            aligned = subscript_known(&o, sg, w, d);
            if (along < 0) along = d;
        }
        if (aligned || along < 0) continue;
        isl_aff *a = subscript_aff(m, aw, along);
        if (!a) continue;
        isl_aff_free(sg[s]);
        sg[s] = a;
        owners_forget(&o, s);
        changed++;
    }
    owners_free(&o);
    return changed;
}

/* Whether access a reads each element at one instance of its statement at most: moving the
 * statement to its data then costs no more than moving the data to it. */
static int reads_once(const xf_model *m, const xf_access *a)
{
    isl_map *rel = isl_map_intersect_domain(isl_map_read_from_str(m->ctx, a->rel), xf_model_domain(m, a->stmt));
    int once = isl_map_is_injective(rel) == isl_bool_true;
    isl_map_free(rel);
    return once;
}

int xf_stm_may_follow(const xf_model *m, const int *grp)
{
    for (int a = 0; a < m->nacc; a++) {
        const xf_access *ra = &m->acc[a];
        if (ra->write || ra->expr->kind != IR_E_ACCESS || ra->expr->u.access.nidx < 1) continue;
        for (int w = 0; w < m->nacc; w++) {
            const xf_access *wa = &m->acc[w];
            if (wa->write && wa->must && wa->expr->kind == IR_E_ACCESS && grp[wa->stmt] < grp[ra->stmt] &&
                !strcmp(wa->expr->u.access.array, ra->expr->u.access.array) && reads_once(m, ra))
                return 1;
        }
    }
    return 0;
}

/* Read alignment, for the phases: statement s of phase g reads an array that a statement u of
 * an earlier phase writes where σ_u is the write's subscript d (the array lies distributed along
 * d).  When σ_s is not subscript d of s's read (of its reads of such arrays, those of the most
 * dimensions), s moves to where its data lies, σ_s = that subscript, and runs its instances one
 * subscript value a step, θ_s = σ_s: a pipeline along the owners.  gemver's x = A^T y (A[j][i]
 * read by S2, A's rows distributed by S1's σ = i) runs row j on row j's processor at step j,
 * x going on from processor to processor, instead of reading A by columns.  Only where s reads
 * each element of that array once (its instances are no more than the data it would have
 * moved): covariance's products read a column n times, and its pipeline would run them all
 * one after another.  Replaces th[s] and
 * sg[s] (owned) where it changes them; returns how many statements it moved. */
int xf_stm_align_reads(const xf_model *m, const int *grp, int g, __isl_keep isl_aff **th,
                       __isl_keep isl_aff **sg)
{
    int moved = 0;
    owners o = owners_new(m);
    for (int s = 0; s < m->nst; s++) {
        if (grp[s] != g) continue;
        int most = 0, aligned = 0, to = -1, along = -1;   /* the dimensions of the widest such read */
        for (int a = 0; a < m->nacc; a++) {
            const xf_access *ra = &m->acc[a];
            int nd = ra->expr->kind == IR_E_ACCESS ? ra->expr->u.access.nidx : 0;
            if (ra->stmt != s || ra->write || nd < most || nd == 0) continue;
            for (int w = 0; w < m->nacc; w++) {
                const xf_access *wa = &m->acc[w];
                if (!wa->write || !wa->must || grp[wa->stmt] < 0 || grp[wa->stmt] >= g || wa->expr->kind != IR_E_ACCESS ||
                    strcmp(wa->expr->u.access.array, ra->expr->u.access.array))
                    continue;
                for (int d = 0; d < nd; d++) {
                    if (!subscript_known(&o, sg, w, d)) continue;   /* not distributed along d */
                    if (nd > most) { most = nd; aligned = 0; to = -1; }
                    if (subscript_known(&o, sg, a, d)) aligned = 1;
                    else if (to < 0) { to = a; along = d; }
                }
            }
        }
        if (aligned || to < 0 || !reads_once(m, &m->acc[to])) continue;
        isl_aff *sub = subscript_aff(m, &m->acc[to], along);
        if (!sub || isl_aff_is_cst(sub) == isl_bool_true) {
            isl_aff_free(sub);
            continue;
        }
        isl_aff_free(sg[s]);
        isl_aff_free(th[s]);
        sg[s] = isl_aff_copy(sub);
        th[s] = sub;
        owners_forget(&o, s);
        moved++;
    }
    owners_free(&o);
    return moved;
}
