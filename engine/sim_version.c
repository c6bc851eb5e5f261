/*
 * sim_version.c — memories that programs reuse: versions of element values.
 *
 * PolyBench's kernels update arrays in place, so an element may be written many times.  Every
 * value an element takes gets a version: 0 for its init value, then one more per write.  At
 * syncomm the shared memory holds the newest value, and its versions tell a message of an older
 * value (harmless there) from a wrong one.  At syndm each array has a global shadow: the version
 * of the newest value of every element, whichever processor wrote it.  A processor's copy
 * whose version is not the shadow's is stale: reading it is a missing message, since the value
 * it should read never arrived.  A message carries its element's value and version; delivery
 * replaces the receiver's copy (sim_messages.c), and the outputs are taken from a copy of the newest
 * version.
 *
 * Arrays that a collective names are left unversioned: they are single assignment over time,
 * and their states alone say what is known.  Arrays that keep only their live time planes
 * (planes.h) keep versions like every other (a plane's single assignment over time does not make
 * its elements single assignment: two processors, or a message and a write, may give an element
 * two values in the step that writes its plane), and their shadows keep only the live planes too:
 * a program's simulation does not depend on the folding.
 */
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

void sim_version_plan(const sim_ctx *c, sim_coll *const *colls, int ncoll, unsigned char *versioned)
{
    for (int a = 0; a < c->narrays; a++) versioned[a] = c->level >= IR_SYNCOMM;
    for (int k = 0; k < ncoll; k++) {
        const sim_coll *co = colls[k];
        for (int i = 0; i < co->nsrc; i++)
            if (co->src[i].array >= 0) versioned[co->src[i].array] = 0;
        for (int i = 0; i < co->ndst; i++)
            if (co->dst[i].array >= 0) versioned[co->dst[i].array] = 0;
    }
}

int sim_version_alloc(sim_mem *m, int64_t *bytes)
{
    m->ver = calloc((size_t)(m->size ? m->size : 1), sizeof *m->ver);
    *bytes += m->size * (int64_t)sizeof *m->ver;
    return m->ver ? 0 : -1;
}

/* Lays out shadow sh over bounds lo .. hi: the ids over every index, the storage over the live
 * planes of fold (NULL: every plane).  0 = ok. */
static int sim_shadow_layout(sim_shadow *sh, const int64_t *lo, const int64_t *hi, const ir_planes *fold)
{
    int64_t size = 1, ssize = 1;
    sh->fold = -1;
    sh->fw = 0;
    for (int d = sh->ndims - 1; d >= 0; d--) {
        int64_t ext = hi[d] >= lo[d] ? hi[d] - lo[d] + 1 : 0, sext = ext;
        if (ext > SIM_MAX_ELEMS || (ext && size > SIM_MAX_ELEMS / ext)) return -1;
        if (fold && d == fold->dim) {   /* as sim_mem_alloc: a power of two of live planes */
            int64_t w = 1;
            while (w < fold->w) w *= 2;
            if (w < ext) { sh->fold = d; sh->fw = sext = w; }
        }
        sh->lo[d] = lo[d];
        sh->ext[d] = ext;
        sh->stride[d] = size;
        sh->sstride[d] = ssize;
        size *= ext;
        ssize *= sext;
    }
    sh->size = ssize;
    return 0;
}

int sim_version_shadows(sim_ctx *c, const unsigned char *versioned, const sim_bounds *ab, const ir_planes *folds,
                        int64_t *bytes)
{
    c->shadows = calloc((size_t)(c->narrays ? c->narrays : 1), sizeof *c->shadows);
    if (!c->shadows) return -1;
    for (int a = 0; a < c->narrays; a++) {
        if (!versioned[a]) continue;
        sim_shadow *sh = &c->shadows[a];
        sh->ndims = c->prog->arrays[a]->u.array.ndims;
        if (sim_shadow_layout(sh, ab[a].lo, ab[a].hi, folds && folds[a].w ? &folds[a] : NULL) != 0) return -1;
        int64_t size = sh->size;
        sh->ver = calloc((size_t)(size ? size : 1), sizeof *sh->ver);
        sh->wstep = malloc((size_t)(size ? size : 1) * sizeof *sh->wstep);
        sh->wproc = malloc((size_t)(size ? size : 1) * sizeof *sh->wproc);
        if (sh->fold >= 0 && (sh->ptag = malloc((size_t)sh->fw * sizeof *sh->ptag)))
            for (int64_t k = 0; k < sh->fw; k++) sh->ptag[k] = INT64_MIN;
        if (!sh->ver || !sh->wstep || !sh->wproc || (sh->fold >= 0 && !sh->ptag)) return -1;
        sh->all_newest = sh->fold >= 0;
        memset(sh->wstep, 0xff, (size_t)size * sizeof *sh->wstep);   /* -1: never */
        *bytes += size * 12;
        for (int q = 0; q < c->nmem; q++) {
            sim_mem *m = &c->allmem[(size_t)q * (size_t)c->narrays + (size_t)a];
            if (sim_version_alloc(m, bytes) != 0) return -1;
            m->shadow = sh;
        }
    }
    return 0;
}

void sim_version_free(sim_ctx *c)
{
    for (int a = 0; c->shadows && a < c->narrays; a++) {
        free(c->shadows[a].ver);
        free(c->shadows[a].wstep);
        free(c->shadows[a].wproc);
        free(c->shadows[a].ptag);
    }
    free(c->shadows);
    c->shadows = NULL;
}

uint32_t sim_version_write(const sim_ctx *c, sim_shadow *sh, const int64_t *g)
{
    int64_t plane, off = sim_shadow_slot(sh, g, &plane);
    if (plane >= 0 && sh->ptag[plane] != g[sh->fold]) {   /* the first write of a plane takes it over */
        int64_t run = sh->sstride[sh->fold], period = run * sh->fw;
        for (int64_t base = plane * run; base < sh->size; base += period) {
            memset(sh->ver + base, 0, (size_t)run * sizeof *sh->ver);
            memset(sh->wstep + base, 0xff, (size_t)run * sizeof *sh->wstep);
        }
        sh->ptag[plane] = g[sh->fold];
    }
    return sim_version_bump(c, sh, off);
}

uint32_t sim_version_bump(const sim_ctx *c, sim_shadow *sh, int64_t off)
{
    if (sh->wstep[off] == c->rstep && sh->wproc[off] != c->proc) return sh->ver[off];
    sh->wstep[off] = c->rstep;
    sh->wproc[off] = c->proc;
    if (sh->ver[off]) sh->all_newest = 0;   /* version 2 or more: copies of version 1 are stale */
    return ++sh->ver[off];
}

int sim_version_global(const sim_mem *m, const int64_t *x, int64_t *g)
{
    const sim_shadow *sh = m->shadow;
    for (int d = 0; d < m->ndims; d++) {
        g[d] = !m->lat || sim_folded(m, d) ? x[d] + m->off[d] : sim_mem_global(m, d, sim_mem_slot(m, d, x[d]));
        if ((uint64_t)g[d] - (uint64_t)sh->lo[d] >= (uint64_t)sh->ext[d]) return -1;
    }
    return 0;
}

int64_t sim_version_id(const sim_shadow *sh, const int64_t *g)
{
    int64_t id = 0;
    for (int d = 0; d < sh->ndims; d++) id += (g[d] - sh->lo[d]) * sh->stride[d];
    return id;
}

int64_t sim_version_goff(const sim_mem *m, const int64_t *x)
{
    int64_t g[SIM_MAXDIMS];
    return sim_version_global(m, x, g) == 0 ? sim_version_id(m->shadow, g) : -1;
}

void sim_version_fmt(const sim_ctx *c, int array, int64_t goff, char *buf, size_t size)
{
    const sim_shadow *sh = &c->shadows[array];
    int64_t idx[SIM_MAXDIMS];
    for (int d = 0; d < sh->ndims; d++) {
        idx[d] = sh->lo[d] + goff / sh->stride[d];
        goff %= sh->stride[d];
    }
    sim_fmt_elem(c, array, idx, sh->ndims, buf, size);
}
