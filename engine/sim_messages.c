/*
 * sim_messages.c — the simulator's messages (see sim_int.h): queueing what a step sends
 * (sim_message_add), and delivering the pending messages due before a time into the receivers'
 * memories (sim_deliver), with the violations a wrong or out-of-date message makes and the
 * trace's messages of each step by sender, receiver and array.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

#define SIM_MAX_PENDING (INT64_C(1) << 24)        /* messages in flight */

/* ---- messages ------------------------------------------------------------------------------- */

void sim_message_add(sim_ctx *c, const sim_msg *m)
{
    if (c->npend >= SIM_MAX_PENDING) {
        sim_violation_add(c, SIM_V_RUNTIME, m->st ? m->st->line : 0, m->st ? m->st->col : 0,
                          "runtime error: more than %lld messages in flight at t=%lld; stopping",
                          (long long)SIM_MAX_PENDING, (long long)c->tval);
        c->stop = 1;
        return;
    }
    if (c->npend == c->cappend) {
        int64_t cap = c->cappend ? c->cappend * 2 : 1024;
        sim_msg *p = realloc(c->pend, (size_t)cap * sizeof *p);
        if (!p) {
            sim_violation_add(c, SIM_V_RUNTIME, 0, 0, "runtime error: out of memory for messages");
            c->stop = 1;
            return;
        }
        c->pend = p;
        c->cappend = cap;
    }
    c->pend[c->npend++] = *m;
}

static void sim_msg_violation(sim_ctx *c, const sim_msg *g, sim_violation_kind k, const char *what,
                              const char *detail)
{
    char el[256];
    sim_fmt_elem(c, g->array, g->idx, g->nidx, el, sizeof el);
    sim_violation_add(c, k, g->st ? g->st->line : 0, g->st ? g->st->col : 0,
                      "%s: processor %lld \u2192 %lld sent at t=%lld for t=%lld: %s%s (send at %d:%d)",
                      what, (long long)sim_proc_value(c, g->src), (long long)sim_proc_value(c, g->dst),
                      (long long)g->tsend, (long long)g->tdst, el, detail,
                      g->st ? g->st->line : 0, g->st ? g->st->col : 0);
}

/* Delivery into a memory with versions (sim_version.c).  At syndm the message replaces the
 * receiver's copy: it must carry the element it is delivered into, and a value no older than
 * the copy it replaces.  At syncomm (one shared memory) a message of the value memory holds must
 * agree with it; one of an older value is out of date and harmless there. */
static void sim_deliver_version(sim_ctx *c, const sim_msg *g, sim_mem *m, int64_t off)
{
    char a[64], b[64], el[256], detail[400];
    uint64_t have;
    memcpy(&have, (char *)m->data + 8 * off, 8);
    sim_fmt_bits(g->bits, m->is_double, a, sizeof a);
    if (m->shadow) {
        int64_t goff = sim_version_goff(m, g->idx);
        if (g->gsrc >= 0 && goff >= 0 && g->gsrc != goff) {
            sim_version_fmt(c, g->array, g->gsrc, el, sizeof el);
            snprintf(detail, sizeof detail, " = %s, the value of %s", a, el);
            sim_msg_violation(c, g, SIM_V_WRONG_MESSAGE, "wrong message", detail);
            return;
        }
        if (m->state[off] != SIM_UNDEF && g->ver < m->ver[off]) {
            sim_fmt_bits(have, m->is_double, b, sizeof b);
            snprintf(detail, sizeof detail, " = %s replaces %s, a newer value", a, b);
            sim_msg_violation(c, g, SIM_V_WRONG_MESSAGE, "wrong message", detail);
            return;
        }
        int64_t gi[SIM_MAXDIMS];
        if (m->shadow->all_newest && sim_version_global(m, g->idx, gi) == 0 && g->ver != sim_version_newest(m->shadow, gi))
            m->shadow->all_newest = 0;   /* a copy not of the newest version: reads check again */
        memcpy((char *)m->data + 8 * off, &g->bits, 8);
        m->ver[off] = g->ver;
        m->state[off] = SIM_RECEIVED;
        return;
    }
    if (m->state[off] == SIM_UNDEF) {
        snprintf(detail, sizeof detail, " = %s, memory has no value", a);
    } else {
        if (g->ver != m->ver[off] || sim_norm_bits(have) == sim_norm_bits(g->bits)) return;
        sim_fmt_bits(have, m->is_double, b, sizeof b);
        snprintf(detail, sizeof detail, " = %s, memory holds %s", a, b);
    }
    sim_msg_violation(c, g, SIM_V_WRONG_MESSAGE, "wrong message", detail);
}

static void sim_deliver_one(sim_ctx *c, const sim_msg *g)
{
    sim_mem *m = c->level == IR_SYNDM ? &c->allmem[(size_t)g->dst * (size_t)c->narrays + (size_t)g->array]
                                      : &c->allmem[g->array];
    int64_t off = 0, plane = -1;
    for (int d = 0; d < g->nidx; d++) {
        int64_t r = sim_mem_slot(m, d, g->idx[d]);
        if (r < 0) {
            if (c->level == IR_SYNDM)
                sim_msg_violation(c, g, SIM_V_OUTSIDE_LOCAL, "outside local memory",
                                  ", outside the receiver's part");
            else
                sim_msg_violation(c, g, SIM_V_BAD_MESSAGE, "bad message", ", outside the array");
            return;
        }
        if (sim_folded(m, d)) plane = r;
        off += r * m->stride[d];
    }
    if (plane >= 0 && m->ptag[plane] != g->idx[m->fold])   /* within bounds: the plane is taken over */
        sim_plane_take(m, plane, g->idx[m->fold]);
    if (m->held && !m->held[off]) {
        sim_msg_violation(c, g, SIM_V_OUTSIDE_LOCAL, "outside local memory", ", outside the receiver's part");
        return;
    }
    if (m->ver) { sim_deliver_version(c, g, m, off); return; }
    uint64_t have;
    memcpy(&have, (char *)m->data + 8 * off, 8);
    char a[64], b[64], detail[160];
    if (m->state[off] != SIM_UNDEF && sim_norm_bits(have) == sim_norm_bits(g->bits)) return;
    if (m->state[off] == SIM_UNDEF) {
        if (c->level == IR_SYNDM) {
            memcpy((char *)m->data + 8 * off, &g->bits, 8);
            m->state[off] = SIM_RECEIVED;
            return;
        }
        sim_fmt_bits(g->bits, m->is_double, a, sizeof a);
        snprintf(detail, sizeof detail, " = %s, memory has no value", a);
    } else {
        sim_fmt_bits(g->bits, m->is_double, a, sizeof a);
        sim_fmt_bits(have, m->is_double, b, sizeof b);
        snprintf(detail, sizeof detail, " = %s, memory holds %s", a, b);
    }
    sim_msg_violation(c, g, SIM_V_WRONG_MESSAGE, "wrong message", detail);
}

/* By sender, receiver, then array (sim_deliver has `arrays` hold each message's array). */
static int sim_pair_cmp(const void *x, const void *y)
{
    const sim_msgs *a = x, *b = y;
    if (a->src != b->src) return a->src < b->src ? -1 : 1;
    if (a->dst != b->dst) return a->dst < b->dst ? -1 : 1;
    if (a->arrays != b->arrays) return a->arrays < b->arrays ? -1 : 1;
    return 0;
}

/* Delivers the pending messages due before time `next` (all when `all`), charged to step s. */
void sim_deliver(sim_ctx *c, int s, int64_t next, int all)
{
    sim_trace *t = &c->r->trace;
    int64_t keep = 0, nd = 0;
    sim_msgs *pairs = NULL;
    for (int64_t i = 0; i < c->npend; i++) {
        sim_msg *g = &c->pend[i];
        if (!all && g->tdst > next) { c->pend[keep++] = *g; continue; }
        sim_deliver_one(c, g);
        if (!pairs) pairs = malloc((size_t)(c->npend - i) * sizeof *pairs);
        if (pairs) pairs[nd++] = (sim_msgs){ g->src, g->dst, 1, 1.0, g->array };
    }
    c->npend = keep;
    if (!pairs) return;
    qsort(pairs, (size_t)nd, sizeof *pairs, sim_pair_cmp);
    int64_t m = 0;
    int last = -1;                       /* the array of the message before i */
    for (int64_t i = 0; i < nd; i++) {   /* one record a pair; `arrays` from array numbers to a count */
        int a = pairs[i].arrays;
        if (m > 0 && pairs[m - 1].src == pairs[i].src && pairs[m - 1].dst == pairs[i].dst) {
            pairs[m - 1].count++;
            pairs[m - 1].words += 1.0;
            pairs[m - 1].arrays += a != last;
        } else {
            pairs[m] = pairs[i];
            pairs[m++].arrays = 1;
        }
        last = a;
    }
    sim_msgs *shrunk = realloc(pairs, (size_t)m * sizeof *pairs);
    t->msgs[s] = shrunk ? shrunk : pairs;
    t->nmsgs[s] = (int)m;
}
