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
 * replaces the receiver's copy (sim.c), and the outputs are taken from a copy of the newest
 * version.
 *
 * Arrays that keep only their live time planes (planes.h) or that a collective names are left
 * unversioned: they are single assignment over time, and their states alone say what is known.
 */
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

void sim_version_plan(const sim_ctx *c, const ir_planes *folds, sim_coll *const *colls, int ncoll,
                      unsigned char *versioned)
{
    for (int a = 0; a < c->narrays; a++)
        versioned[a] = c->level >= IR_SYNCOMM && !(folds && folds[a].w);
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

int sim_version_shadows(sim_ctx *c, const unsigned char *versioned, const sim_bounds *ab, int64_t *bytes)
{
    c->shadows = calloc((size_t)(c->narrays ? c->narrays : 1), sizeof *c->shadows);
    if (!c->shadows) return -1;
    for (int a = 0; a < c->narrays; a++) {
        if (!versioned[a]) continue;
        sim_shadow *sh = &c->shadows[a];
        sh->ndims = c->prog->arrays[a]->u.array.ndims;
        int64_t size = 1;
        for (int d = sh->ndims - 1; d >= 0; d--) {
            int64_t ext = ab[a].hi[d] >= ab[a].lo[d] ? ab[a].hi[d] - ab[a].lo[d] + 1 : 0;
            sh->lo[d] = ab[a].lo[d];
            sh->ext[d] = ext;
            sh->stride[d] = size;
            if (ext > SIM_MAX_ELEMS || (ext && size > SIM_MAX_ELEMS / ext)) return -1;
            size *= ext;
        }
        sh->size = size;
        sh->ver = calloc((size_t)(size ? size : 1), sizeof *sh->ver);
        sh->wstep = malloc((size_t)(size ? size : 1) * sizeof *sh->wstep);
        sh->wproc = malloc((size_t)(size ? size : 1) * sizeof *sh->wproc);
        if (!sh->ver || !sh->wstep || !sh->wproc) return -1;
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
    }
    free(c->shadows);
    c->shadows = NULL;
}

uint32_t sim_version_write(const sim_ctx *c, sim_shadow *sh, int64_t goff)
{
    if (sh->wstep[goff] == c->rstep && sh->wproc[goff] != c->proc) return sh->ver[goff];
    sh->wstep[goff] = c->rstep;
    sh->wproc[goff] = c->proc;
    return ++sh->ver[goff];
}

int64_t sim_version_goff(const sim_mem *m, const int64_t *r)
{
    const sim_shadow *sh = m->shadow;
    int64_t g = 0;
    for (int d = 0; d < m->ndims; d++) {
        uint64_t x = (uint64_t)sim_mem_global(m, d, r[d]) - (uint64_t)sh->lo[d];
        if (x >= (uint64_t)sh->ext[d]) return -1;
        g += (int64_t)x * sh->stride[d];
    }
    return g;
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
