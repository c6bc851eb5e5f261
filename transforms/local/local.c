/*
 * local.c — `local`: the loops inside one processor's step rewritten for locality, as the best
 * sequential compilers rewrite a loop nest (Polly's schedule trees, Pluto's tiling): interchange
 * so that the innermost loop walks memory at unit stride, distribution where a loop's other
 * statements stand in the way, and tiling of a band of loops for the caches.  The program keeps
 * its level; only the order of the instances one processor runs in one step changes, and only as
 * far as every dependence between them allows (local_gen.c), so every value stays bit for bit.
 *
 * Arguments:
 *   order=auto        (the default) each innermost nest in the order that puts the loop most
 *                     accesses walk at unit stride innermost, where that is legal;
 *   order=V1,V2,..    every perfect or distributable nest of exactly these loops runs them in
 *                     this order (outer first);
 *   tile=S | S1,S2,.. tiles: with order=V.., those nests' loops; with order=auto each chain of
 *                     two or more loops from a nest's top to an innermost loop whose statements
 *                     reuse data across its outer loops (an access one of them does not move);
 *                     one size per loop, outer first (the last repeats; 0 or 1: not tiled);
 *   jam=U             with tile=: each tiled band of two loops or more runs U turns of its first
 *                     loop together (or of the next, but the innermost, where the first's would not
 *                     run so: a triangle's rows), in a loop innermost the exporter unrolls
 *                     (ir_jam_loop); a band none of whose loops can is tiled alone (local_gen.c);
 *   regs=R            with jam=: each jammed band of three loops or more whose one statement writes
 *                     an element its next loop but the innermost does not move (gemm's C[i][j]
 *                     along k) runs its innermost loop in tiles of R, a loop over them before that
 *                     loop (`pj, jr, k, j, p`): the exporter keeps a tile's R elements of each
 *                     turn in registers across the loop over k (export_regs.c); the other jammed
 *                     bands stay as jam= makes them (the nest's comment says regs= where it has
 *                     register tiles);
 *   at=LABEL          only the nests that hold statement LABEL.
 * A nest that holds a collective, an annotated block, a condition that reads arrays, or that is
 * tiled already is left as it is (local_model.c); a loop isl cannot model (its step not a literal:
 * a cyclic tiling's `step procs`) too, but the nests inside it are rewritten.  Sends stay with the
 * values they send (with jam=, a band's sends go into a nest of their own after it where the
 * dependences allow: try_band).  A rewritten nest says so in a comment (`# local tile=32`), and
 * nothing to change is a refusal: `local` on its own result stops.
 */
#include <stdlib.h>
#include <string.h>

#include "entries_int.h"
#include "local_int.h"

enum { MAX_CHAINS = 64, MAX_SITES = 64 };

typedef struct lx_opts {
    char *order_buf;                  /* owned: the order's words, split in place */
    const char *order[LX_MAX_BAND];   /* empty: auto */
    int norder;
    int tile[LX_MAX_BAND];            /* per loop, the last repeating */
    int ntile;
    int jam;                          /* rows of a tiled band's first loop run together; 0, 1: none */
    int regs;                         /* register tiles of a jammed band's innermost loop; 0, 1: none */
    const char *at;
} lx_opts;

/* Reads the arguments.  0, or -1 with a message. */
static int parse_opts(const xf_args *a, lx_opts *o, diag_list *d)
{
    memset(o, 0, sizeof *o);
    for (int i = 0; i < a->n; i++) {
        const char *k = a->items[i].key, *v = a->items[i].value;
        if (a->items[i].label || (strcmp(k, "order") && strcmp(k, "tile") && strcmp(k, "jam") && strcmp(k, "regs") &&
                                  strcmp(k, "at"))) {
            diag_add(d, NULL, 0, 0, "local: unknown parameter '%s' (it has order=, tile=, jam=, regs= and at=)", k);
            return -1;
        }
        if (!strcmp(k, "regs")) {
            char *end;
            long r = strtol(v, &end, 10);
            if (end == v || *end || r < 1 || r > IR_REGS_MAX) {
                diag_add(d, NULL, 0, 0, "local: regs=%s: expected the elements of a register tile, 1 (none) to %d", v,
                         IR_REGS_MAX);
                return -1;
            }
            o->regs = (int)r;
        }
        if (!strcmp(k, "jam")) {
            char *end;
            long u = strtol(v, &end, 10);
            if (end == v || *end || u < 1 || u > IR_JAM_MAX) {
                diag_add(d, NULL, 0, 0, "local: jam=%s: expected the turns run together, 1 (none) to %d", v, IR_JAM_MAX);
                return -1;
            }
            o->jam = (int)u;
        }
        if (!strcmp(k, "at")) o->at = v;
        if (!strcmp(k, "order") && strcmp(v, "auto")) {
            free(o->order_buf);
            o->order_buf = xstrdup(v);
            o->norder = 0;
            char *save = NULL;
            for (char *w = strtok_r(o->order_buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
                if (o->norder == LX_MAX_BAND) {
                    diag_add(d, NULL, 0, 0, "local: order=%s: at most %d loops", v, LX_MAX_BAND);
                    return -1;
                }
                for (int j = 0; j < o->norder; j++)
                    if (!strcmp(o->order[j], w)) {
                        diag_add(d, NULL, 0, 0, "local: order=%s names loop %s twice", v, w);
                        return -1;
                    }
                o->order[o->norder++] = w;
            }
            if (o->norder < 2) {
                diag_add(d, NULL, 0, 0, "local: order=%s: expected auto or two loops or more, outer first (order=k,j)", v);
                return -1;
            }
        }
        if (!strcmp(k, "tile")) {
            o->ntile = 0;
            for (const char *c = v; *c;) {
                char *end;
                long t = strtol(c, &end, 10);
                if (end == c || t < 0 || t > 4096 || (*end && *end != ',') || o->ntile == LX_MAX_BAND) {
                    diag_add(d, NULL, 0, 0, "local: tile=%s: expected sizes from 0 to 4096, one per loop "
                             "(outer first), separated by commas", v);
                    return -1;
                }
                o->tile[o->ntile++] = (int)t;
                c = *end ? end + 1 : end;
            }
        }
    }
    return 0;
}

/* The tile sizes of a band of n loops (the last given repeats), and whether any tiles. */
static int tiles_of(const lx_opts *o, int n, int *out)
{
    int any = 0;
    for (int i = 0; i < n; i++) {
        out[i] = o->ntile ? o->tile[i < o->ntile ? i : o->ntile - 1] : 0;
        any |= out[i] > 1;
    }
    return any;
}

/* ---- the nests of the processor body --------------------------------------------------------- */

enum { MAX_OUTER = 32 };

/* A nest of the processor body: where it stands, and what stands around it. */
typedef struct site { ir_block *blk; int idx; lx_outer outer[MAX_OUTER]; int nouter; } site;

typedef struct sites { site s[MAX_SITES]; int n; lx_outer outer[MAX_OUTER]; int nouter; } sites;

static void push_outer(sites *x, lx_outer_kind k, const ir_stmt *s, int var)
{
    if (x->nouter < MAX_OUTER) x->outer[x->nouter++] = (lx_outer){k, s, var};
}

static void collect_sites(sites *x, ir_block *b)
{
    int base = x->nouter;
    for (int i = 0; b && i < b->n && x->n < MAX_SITES; i++) {
        ir_stmt *s = b->stmts[i];
        if (s->kind == IR_S_FOR) {
            site *t = &x->s[x->n++];
            *t = (site){.blk = b, .idx = i, .nouter = x->nouter};
            memcpy(t->outer, x->outer, (size_t)x->nouter * sizeof *x->outer);
        } else if (s->kind == IR_S_LET) {
            push_outer(x, LX_O_LET, s, 0);
        } else if (s->kind == IR_S_IF) {
            int k = x->nouter;
            push_outer(x, LX_O_THEN, s, 0);
            collect_sites(x, s->u.if_.then_blk);
            x->nouter = k;
            push_outer(x, LX_O_ELSE, s, 0);
            collect_sites(x, s->u.if_.else_blk);
            x->nouter = k;
        }
    }
    x->nouter = base;
}

/* The nests of p's processor body (nested loops of the processor loop's header are left as they
 * are: outer), with the step's loops and lets around them.  Their number (0: no step nest). */
static int find_sites(ir_program *p, sites *x)
{
    ir_step_nest sn;
    x->n = x->nouter = 0;
    if (ir_step_nest_find(p->body, &sn) != IR_NEST_OK || !sn.pfor) return 0;
    for (int i = 0; i < sn.nlets; i++) push_outer(x, LX_O_LET, p->body->stmts[i], 0);
    for (int v = 0; v < sn.tfor->u.for_.nvars; v++) push_outer(x, LX_O_LOOP, sn.tfor, v);
    for (int v = 0; sn.pfor != sn.tfor && v < sn.pfor->u.for_.nvars; v++) push_outer(x, LX_O_LOOP, sn.pfor, v);
    collect_sites(x, sn.pfor->u.for_.body);
    return x->n;
}

int xf_local_applicable(const ir_program *p, char **why_not)
{
    sites *x = xmalloc(sizeof *x);
    int n = find_sites((ir_program *)p, x);
    free(x);
    if (!n) {
        *why_not = xstrdup("a processor's step holds no loop");
        return 0;
    }
    return 1;
}

/* ---- the plan for one nest -------------------------------------------------------------------- */

typedef struct plan {
    lx_nest *n;
    lx_pool pool;
    lx_node *root;
    const lx_opts *o;
    char **text;               /* out's text with the names taken (tile loops) */
    const char *tn[32][2];     /* tile loop names given so far: variable, name */
    int ntn;
    char *why;                 /* the first refusal met (malloc'd) */
} plan;

static const char *tile_name(plan *pl, const char *var)
{
    for (int i = 0; i < pl->ntn; i++)
        if (!strcmp(pl->tn[i][0], var)) return pl->tn[i][1];
    char base[64];
    snprintf(base, sizeof base, "%st", var);
    const char *nm = xf_fresh_name(pl->n->out, pl->text, base);
    if (pl->ntn < 32) {
        pl->tn[pl->ntn][0] = var;
        pl->tn[pl->ntn++][1] = nm;
    }
    return nm;
}

static void note_why(plan *pl, char *why)
{
    if (!pl->why) pl->why = why;
    else free(why);
}

/* Does the chain's innermost loop hold statement `at` (or is there no `at`)? */
static int holds_at(const plan *pl, const lx_node *inner)
{
    if (!pl->o->at) return 1;
    int l[pl->n->m->nst + 1];
    int k = lx_leaves(inner, l, pl->n->m->nst);
    for (int i = 0; i < k; i++) {
        const char *lab = pl->n->m->st[l[i]].assign->u.assign.label;
        if (lab && !strcmp(lab, pl->o->at)) return 1;
    }
    return 0;
}

/* Statement s's model index of its variable `var`, or -1. */
static int var_index(const lx_nest *n, int s, const char *var)
{
    const xf_stmt *st = &n->m->st[s];
    int k = 0;
    for (int f = 0; f < st->nframes; f++) {
        if (st->frames[f].kind != XF_FR_FOR) continue;
        if (!strcmp(st->frames[f].node->u.for_.vars[st->frames[f].var].var, var)) return k;
        k++;
    }
    return -1;
}

/* How access acc moves with its statement's variable v: 0 not at all, 1 in its last subscript
 * alone (unit stride), 2 in another subscript (a walk across rows), -1 not known or not an access
 * of the program (what a send's statement writes in the model). */
static int moves(const lx_nest *n, int acc, int v)
{
    const xf_access *a = &n->m->acc[acc];
    const ir_stmt *o = lx_nest_orig(n, n->m->st[a->stmt].assign);
    if (v < 0 || (a->write && (!o || o->kind != IR_S_ASSIGN))) return -1;
    int nd = lx_access_dims(n, acc), r = 0;
    for (int d = 0; d < nd; d++) {
        int mv = lx_access_moves(n, acc, d, v);
        if (mv < 0) return -1;
        if (mv) r = d == nd - 1 ? (r ? r : 1) : 2;
    }
    return r;
}

/* The unit-stride score of loop `var` innermost for the statements under `inner`: +1 per access
 * it walks at unit stride, -1 per access it walks across rows. */
static int unit_score(const lx_nest *n, const lx_node *inner, const char *var)
{
    int l[n->m->nst + 1], score = 0;
    int k = lx_leaves(inner, l, n->m->nst);
    for (int i = 0; i < k; i++) {
        int v = var_index(n, l[i], var);
        for (int a = 0; v >= 0 && a < n->m->nacc; a++) {
            if (n->m->acc[a].stmt != l[i]) continue;
            int mv = moves(n, a, v);
            score += mv == 1 ? 1 : mv == 2 ? -1 : 0;
        }
    }
    return score;
}

/* Does some statement under the chain read or write an element again across the chain's outer
 * loops (an access that moves, but not with one of them)? */
static int reuses(const lx_nest *n, const lx_chain *c)
{
    int l[n->m->nst + 1];
    int k = lx_leaves(c->loop[c->n - 1], l, n->m->nst);
    for (int i = 0; i < k; i++)
        for (int a = 0; a < n->m->nacc; a++) {
            if (n->m->acc[a].stmt != l[i]) continue;
            int still = 0, any = 0;
            for (int j = 0; j < c->n; j++) {
                int mv = moves(n, a, var_index(n, l[i], c->loop[j]->var));
                any |= mv > 0;
                still |= mv == 0 && j < c->n - 1;
            }
            if (any && still) return 1;
        }
    return 0;
}

/* order=auto: each innermost chain's best unit-stride loop moved innermost.  Changes made. */
static int plan_interchange(plan *pl)
{
    int changed = 0, done[pl->n->m->nst + 1];
    memset(done, 0, sizeof done);
    for (int again = 1; again;) {
        again = 0;
        lx_chain cs[MAX_CHAINS];
        int nc = lx_chains(pl->root, cs, MAX_CHAINS);
        for (int ci = 0; ci < nc && !again; ci++) {
            lx_chain *c = &cs[ci];
            const lx_node *inner = c->loop[c->n - 1];
            int l[1];
            if (!lx_leaves(inner, l, 1) || done[l[0]] || !holds_at(pl, inner)) continue;
            done[l[0]] = 1;
            int best = c->n - 1, bs = unit_score(pl->n, inner, c->loop[c->n - 1]->var);
            for (int j = 0; j < c->n - 1; j++) {
                int sc = unit_score(pl->n, inner, c->loop[j]->var);
                if (sc > bs) best = j, bs = sc;
            }
            if (best == c->n - 1) continue;
            /* the loops from `best` down: the others in their order, then best */
            lx_chain sub = {.n = 0};
            const char *order[LX_MAX_BAND];
            for (int j = best; j < c->n; j++) sub.loop[sub.n++] = c->loop[j];
            for (int j = best + 1, k = 0; j < c->n; j++) order[k++] = c->loop[j]->var;
            order[sub.n - 1] = c->loop[best]->var;
            strbuf w = {0};
            strbuf_printf(&w, "order=");
            for (int j = 0; j < sub.n; j++) strbuf_printf(&w, "%s%s", j ? "," : "", order[j]);
            /* the sub-chain in a copy of the tree: the copy's chain ci is this one's */
            lx_chain cs2[MAX_CHAINS];
            lx_node *copy = lx_tree_copy(&pl->pool, pl->root);
            int nc2 = lx_chains(copy, cs2, MAX_CHAINS);
            char *why = NULL;
            if (ci < nc2) {
                lx_chain s2 = {.n = 0};
                for (int j = best; j < cs2[ci].n; j++) s2.loop[s2.n++] = cs2[ci].loop[j];
                if (lx_make_band(&pl->pool, copy, &s2, order, NULL, NULL) == 0 &&
                    lx_check(pl->n, copy, w.s, &why) == 0) {
                    pl->root = copy;
                    changed = again = 1;
                } else if (why) {
                    note_why(pl, why);
                }
            }
            strbuf_free(&w);
        }
    }
    return changed;
}

/* order=V1,..: every chain part of exactly these loops, in this order, tiled.  Changes made, or
 * -1 when such a part does not exist or the order is illegal (pl->why). */
static int plan_order(plan *pl)
{
    const lx_opts *o = pl->o;
    int tile[LX_MAX_BAND], tiled = tiles_of(o, o->norder, tile), changed = 0;
    lx_chain cs[MAX_CHAINS];
    int nc = lx_chains(pl->root, cs, MAX_CHAINS);
    const lx_node *seen[MAX_CHAINS];
    int nseen = 0;
    strbuf w = {0};
    strbuf_printf(&w, "order=");
    for (int j = 0; j < o->norder; j++) strbuf_printf(&w, "%s%s", j ? "," : "", o->order[j]);
    for (int j = 0; j < o->ntile; j++) strbuf_printf(&w, "%s%d", j ? "," : " tile=", o->tile[j]);
    for (int ci = 0; ci < nc; ci++)
        for (int st = 0; st + o->norder <= cs[ci].n; st++) {
            lx_chain sub = {.n = 0};
            int match = 1, same = 1;
            for (int j = 0; j < o->norder; j++) {
                sub.loop[sub.n++] = cs[ci].loop[st + j];
                int in = 0;
                for (int k = 0; k < o->norder; k++) in |= !strcmp(o->order[k], cs[ci].loop[st + j]->var);
                match &= in;
                same &= !strcmp(o->order[j], cs[ci].loop[st + j]->var);
            }
            const lx_node *last = sub.loop[sub.n - 1];
            int dup = 0;
            for (int k = 0; k < nseen; k++) dup |= seen[k] == last;
            if (!match || dup || !holds_at(pl, last) || (same && !tiled)) continue;
            if (nseen < MAX_CHAINS) seen[nseen++] = last;
            const char *tn[LX_MAX_BAND];
            for (int j = 0; j < sub.n; j++) tn[j] = tiled && tile[j] > 1 ? tile_name(pl, o->order[j]) : NULL;
            if (lx_make_band(&pl->pool, pl->root, &sub, o->order, tile, tn) == 0) changed = 1;
        }
    char *why = NULL;
    if (changed && lx_check(pl->n, pl->root, w.s, &why) != 0) {
        note_why(pl, why);
        changed = -1;
    }
    strbuf_free(&w);
    return changed;
}

/* Is statement s a send's (its original no assignment)? */
static int is_send(const void *arg, int s)
{
    const lx_nest *n = arg;
    const ir_stmt *o = lx_nest_orig(n, n->m->st[s].assign);
    return o && o->kind != IR_S_ASSIGN;
}

/* Does t hold sends alone? */
static int sends_only(const lx_nest *n, const lx_node *t)
{
    int l[n->m->nst + 1], k = lx_leaves(t, l, n->m->nst);
    for (int i = 0; i < k; i++)
        if (!is_send(n, l[i])) return 0;
    return k > 0;
}

/* Tiles chain c, chain ci of the tree without its `drop` outermost loops, in a copy of the tree;
 * with `split`, the sends of its innermost loop first leave it for a copy of its loops after it
 * (jam=: a loop that holds a send does not jam; where they send once the loop is done, as 3mm's
 * `when k + 1 == nk`, the dependences allow it).  1 when the copy checks (pl->root the copy). */
static int try_band(plan *pl, int ci, int drop, const lx_chain *c, int split)
{
    const char *order[LX_MAX_BAND], *tn[LX_MAX_BAND];
    int tile[LX_MAX_BAND];
    for (int j = 0; j < c->n; j++) order[j] = c->loop[j]->var;
    tiles_of(pl->o, c->n, tile);
    lx_node *copy = lx_tree_copy(&pl->pool, pl->root);
    lx_chain cs2[MAX_CHAINS];
    int nc2 = lx_chains(copy, cs2, MAX_CHAINS);
    lx_chain c2 = {.n = 0};
    for (int j = drop; ci < nc2 && j < cs2[ci].n; j++) c2.loop[c2.n++] = cs2[ci].loop[j];
    if (c2.n != c->n || (split && lx_split_leaves(&pl->pool, copy, &c2, is_send, pl->n) == 0)) return 0;
    for (int j = 0; j < c->n; j++) tn[j] = tile[j] > 1 ? tile_name(pl, order[j]) : NULL;
    if (lx_make_band(&pl->pool, copy, &c2, order, tile, tn) != 0) return 0;
    strbuf w = {0};
    strbuf_printf(&w, "tiling loops");
    for (int j = 0; j < c->n; j++) strbuf_printf(&w, "%s%s", j ? "," : " ", order[j]);
    if (split) strbuf_printf(&w, " (their sends after them)");
    char *why = NULL;
    int ok = lx_check(pl->n, copy, w.s, &why) == 0;
    strbuf_free(&w);
    if (ok) pl->root = copy;
    else if (split) free(why);   /* the band with its sends is tried next */
    else note_why(pl, why);
    return ok;
}

/* order=auto with tile=: each chain from a nest's top to an innermost loop, two loops or more,
 * that reuses data across its outer loops, tiled (when illegal, without its outermost loops);
 * with jam=, the sends of its innermost loop after it where the dependences allow (try_band).
 * A chain of sends alone is not tiled.  Changes made. */
static int plan_tiles(plan *pl)
{
    int changed = 0;
    for (int again = 1; again;) {
        again = 0;
        lx_chain cs[MAX_CHAINS];
        int nc = lx_chains(pl->root, cs, MAX_CHAINS);
        for (int ci = 0; ci < nc && !again; ci++) {
            for (int drop = 0; cs[ci].n - drop >= 2 && !again; drop++) {
                lx_chain c = {.n = 0};
                for (int j = drop; j < cs[ci].n; j++) c.loop[c.n++] = cs[ci].loop[j];
                int tiled = 0;
                for (int j = 0; j < c.n; j++) tiled |= c.loop[j]->tiled;
                if (tiled) continue;   /* a loop with a step: without it, perhaps */
                const lx_node *inner = c.loop[c.n - 1];
                if (!holds_at(pl, inner) || !reuses(pl->n, &c) || sends_only(pl->n, inner)) break;
                if ((pl->o->jam > 1 && try_band(pl, ci, drop, &c, 1)) || try_band(pl, ci, drop, &c, 0))
                    changed = again = 1;
            }
        }
    }
    return changed;
}

/* The tiled bands of two loops or more under t, into out (at most max).  Their number. */
static int jam_bands(lx_node *t, lx_node **out, int n, int max)
{
    if (t->kind == LX_BAND && t->nb >= 2 && n < max) out[n++] = t;
    for (int i = 0; i < t->nkids; i++) n = jam_bands(t->kids[i], out, n, max);
    return n;
}

/* jam=U: each tiled band of two loops or more runs U turns of its first loop together (the
 * turns innermost, unrolled by the exporter into the loop they stand in; when the code isl
 * writes does not have that shape, lx_generate tries the band's next loop but the innermost).
 * 1 when a band does, 0 when none has that shape, -1 when the order is illegal (pl->why). */
static int plan_jam(plan *pl)
{
    lx_node *bands[MAX_CHAINS];
    int nb = jam_bands(pl->root, bands, 0, MAX_CHAINS);
    if (!nb) return 0;
    for (int i = 0; i < nb; i++) {
        bands[i]->jam = pl->o->jam;
        bands[i]->jvar = 0;
        for (int b = 0; b + 1 < bands[i]->nb; b++) {   /* the group loop's name of each loop tried */
            char base[64];
            snprintf(base, sizeof base, "%sj", bands[i]->bvar[b]);
            bands[i]->jname[b] = xf_fresh_name(pl->n->out, pl->text, base);
        }
    }
    char *why = NULL, *what = xasprintf("jam=%d (turns of %s run together)", pl->o->jam, bands[0]->bvar[0]);
    int rc = lx_check(pl->n, pl->root, what, &why);
    free(what);
    if (rc != 0) note_why(pl, why);
    return rc == 0 ? 1 : -1;
}

/* Can jammed band t keep its statement's element in registers across its next loop but the
 * innermost (k): one statement, whose written element moves with the innermost loop (j) in its
 * last subscript alone, with the jammed loop in another (each turn its own row) and not with k? */
static int regs_fit(const lx_nest *n, const lx_node *t)
{
    int l[2];
    if (t->kind != LX_BAND || t->jam < 2 || t->jvar >= t->nb - 2 || lx_leaves(t, l, 2) != 1) return 0;
    int k = var_index(n, l[0], t->bvar[t->nb - 2]), j = var_index(n, l[0], t->bvar[t->nb - 1]),
        p = var_index(n, l[0], t->bvar[t->jvar]), writes = 0;
    for (int a = 0; a < n->m->nacc; a++) {
        if (n->m->acc[a].stmt != l[0] || !n->m->acc[a].write) continue;
        if (moves(n, a, k) != 0 || moves(n, a, j) != 1 || moves(n, a, p) != 2) return 0;
        writes++;
    }
    return writes == 1;
}

/* regs=R: each jammed band that regs_fit runs its innermost loop in register tiles of R (a loop
 * over them, in steps of R, before its next loop but one).  A band whose register tiles the
 * dependences forbid stays without them (a band that tiles permutes: not expected). */
static void plan_regs(plan *pl)
{
    lx_node *bands[MAX_CHAINS];
    int nb = jam_bands(pl->root, bands, 0, MAX_CHAINS), any = 0;
    for (int i = 0; i < nb; i++) {
        if (!regs_fit(pl->n, bands[i])) continue;
        char base[64];
        snprintf(base, sizeof base, "%sr", bands[i]->bvar[bands[i]->nb - 1]);
        bands[i]->regs = pl->o->regs;
        bands[i]->rname = xf_fresh_name(pl->n->out, pl->text, base);
        any = 1;
    }
    char *why = NULL;
    if (any && lx_check(pl->n, pl->root, "regs", &why) != 0) {
        note_why(pl, why);
        for (int i = 0; i < nb; i++) bands[i]->regs = 0;
    }
}

/* 1 when the nest changes (pl->root the new tree), 0 when it stays, -1 refused (pl->why). */
static int plan_nest(plan *pl)
{
    int changed = pl->o->norder ? plan_order(pl) : plan_interchange(pl);
    if (!pl->o->norder && pl->o->ntile) changed |= plan_tiles(pl);
    if (changed > 0 && pl->o->jam > 1 && plan_jam(pl) < 0) return -1;
    if (changed > 0 && pl->o->jam > 1 && pl->o->regs > 1) plan_regs(pl);
    return changed;
}

/* ---- apply ------------------------------------------------------------------------------------ */

/* The first statement of a rewritten nest keeps the nest's comments and says what rewrote it
 * (`# local tile=32`: explore does not offer local again on its result; regs= where the nest has
 * register tiles). */
static void note_nest(ir_program *out, ir_stmt *first, const ir_stmt *orig, const lx_opts *o, int regs)
{
    strbuf b = {0};
    strbuf_printf(&b, "local");
    if (o->norder) {
        strbuf_printf(&b, " order=");
        for (int j = 0; j < o->norder; j++) strbuf_printf(&b, "%s%s", j ? "," : "", o->order[j]);
    }
    for (int j = 0; j < o->ntile; j++) strbuf_printf(&b, "%s%d", j ? "," : " tile=", o->tile[j]);
    if (o->jam > 1) strbuf_printf(&b, " jam=%d", o->jam);
    if (regs) strbuf_printf(&b, " regs=%d", o->regs);
    if (o->at) strbuf_printf(&b, " at=%s", o->at);
    int n = orig->comments.nlead;
    const char **lead = ir_alloc(out, (size_t)(n + 1) * sizeof *lead);
    for (int k = 0; k < n; k++) lead[k] = orig->comments.lead[k];
    lead[n] = ir_strdup(out, b.s);
    first->comments.lead = lead;
    first->comments.nlead = n + 1;
    strbuf_free(&b);
}

static ir_program *refuse(ir_program *out, diag_list *d, const ir_program *src, char *msg)
{
    diag_add(d, src->file, 0, 0, "local: %s", msg);
    free(msg);
    ir_program_free(out);
    return NULL;
}

/* What local_sites has done so far over the nests of a program. */
typedef struct apply_state {
    ir_program *out;
    const lx_opts *o;
    char *text;                /* owned: out's text (the names taken) */
    strbuf left;               /* the nests left as they are, and why */
    char *refusal, *first_why; /* owned */
    int changed;
    int jammed;                /* bands jammed (jam=) */
} apply_state;

static void left_as_is(apply_state *A, const ir_stmt *orig, const char *why)
{
    strbuf_printf(&A->left, "%sthe nest at line %d is left as it is: %s", A->left.n ? "; " : "", orig->pos.line, why);
}

/* The bands under t without their jams. */
static void unjam_all(lx_node *t)
{
    t->jam = 0;
    for (int i = 0; i < t->nkids; i++) unjam_all(t->kids[i]);
}

/* Does band t run rows together (jam=)? */
static int jammed_band(const lx_node *t) { return t->kind == LX_BAND && t->jam > 1; }

/* The bands under t that `is` holds for (jammed_band, lx_regs_band). */
static int bands_where(const lx_node *t, int (*is)(const lx_node *))
{
    int n = is(t);
    for (int i = 0; i < t->nkids; i++) n += bands_where(t->kids[i], is);
    return n;
}

/* Plans and generates the modelled nest n of site st. */
static void rewrite_nest(apply_state *A, site *st, lx_nest *n)
{
    ir_stmt *orig = st->blk->stmts[st->idx];
    char *why = NULL;
    plan pl = {.n = n, .o = A->o, .text = &A->text};
    pl.root = lx_tree_build(&pl.pool, n);
    int r = plan_nest(&pl), gen = r > 0 ? lx_generate(n, pl.root, st->blk, st->idx, &why) : 0;
    while (gen == LX_REJAM) {   /* some bands' turns would not run together: their next loop's */
        free(why);
        why = NULL;
        if (lx_check(n, pl.root, "jam", &why) != 0) unjam_all(pl.root);   /* a band that tiles permutes */
        free(why);
        why = NULL;
        gen = lx_generate(n, pl.root, st->blk, st->idx, &why);
    }
    if (r < 0) A->refusal = xasprintf("%s", pl.why);
    else if (r > 0 && gen != 0) {
        left_as_is(A, orig, why);
        free(why);
    } else if (r > 0) {
        int regs = bands_where(pl.root, lx_regs_band);
        note_nest(A->out, st->blk->stmts[st->idx], orig, A->o, regs);
        A->changed++;
        A->jammed += bands_where(pl.root, jammed_band);
    }
    if (r == 0 && pl.why && !A->first_why) A->first_why = pl.why, pl.why = NULL;
    free(pl.why);
    lx_pool_free(&pl.pool);
}

static void local_sites(apply_state *A, sites *x);

/* The nests inside loop `orig` of site st, its variables fixed (their instances in one of its
 * iterations).  Whether any was rewritten. */
static int local_inside(apply_state *A, const site *st, ir_stmt *orig)
{
    if (st->nouter + orig->u.for_.nvars > MAX_OUTER) return 0;
    sites *in = xmalloc(sizeof *in);
    in->n = 0;
    in->nouter = st->nouter;
    memcpy(in->outer, st->outer, (size_t)st->nouter * sizeof *st->outer);
    for (int v = 0; v < orig->u.for_.nvars; v++) push_outer(in, LX_O_LOOP, orig, v);
    collect_sites(in, orig->u.for_.body);
    int before = A->changed;
    local_sites(A, in);
    free(in);
    return A->changed > before;
}

/* Rewrites the nests of x, the last first (the sites before stay where they are).  A loop isl
 * cannot model (its bounds or step not affine: a cyclic tiling's `step procs`) is not rewritten,
 * but the nests inside it are. */
static void local_sites(apply_state *A, sites *x)
{
    for (int k = x->n - 1; k >= 0 && !A->refusal; k--) {
        lx_nest n;
        char *why = NULL;
        site *st = &x->s[k];
        ir_stmt *orig = st->blk->stmts[st->idx];
        int m = lx_nest_model(&n, A->out, orig, st->outer, st->nouter, &why);
        if (m == 0) rewrite_nest(A, st, &n);
        lx_nest_free(&n);
        if (m == 0 || (m == -2 && orig->kind == IR_S_FOR && local_inside(A, st, orig))) {
            free(why);
            continue;
        }
        left_as_is(A, orig, why);
        free(why);
    }
}

ir_program *xf_local_apply(const ir_program *src, const xf_args *args, diag_list *d, int *status)
{
    lx_opts o;
    *status = XF_EUSAGE;
    if (parse_opts(args, &o, d) != 0) {
        free(o.order_buf);
        return NULL;
    }
    *status = XF_EREFUSED;
    ir_program *out = ir_program_clone(src);
    sites *x = xmalloc(sizeof *x);
    find_sites(out, x);
    apply_state A = {.out = out, .o = &o, .text = ir_print(out)};
    local_sites(&A, x);
    free(A.text);
    free(x);
    free(o.order_buf);
    if (!A.refusal && !A.changed)
        A.refusal = A.first_why ? xasprintf("nothing to change: %s%s%s", A.first_why, A.left.n ? "; " : "", A.left.n ? A.left.s : "")
                : xasprintf("nothing to change: %s%s%s",
                            o.norder ? "no nest runs these loops in another order"
                            : o.ntile ? "every innermost loop walks at unit stride where it can, and no "
                                        "chain of loops reuses data to tile"
                                      : "every innermost loop walks at unit stride where it can",
                            A.left.n ? "; " : "", A.left.n ? A.left.s : "");
    if (!A.refusal && o.jam > 1 && !A.jammed)
        A.refusal = xasprintf("jam=%d: no tiled band of two loops or more (tile= makes them) with a loop but the "
                              "innermost whose turns can run together in a loop of their own (a triangular "
                              "nest's rows depend on the loops around them; turns that send stay as they are)",
                              o.jam);
    if (!A.refusal && o.regs > 1 && o.jam < 2)
        A.refusal = xasprintf("regs=%d: register tiles are a jammed band's (jam= with tile=)", o.regs);
    free(A.first_why);
    strbuf_free(&A.left);
    if (A.refusal) return refuse(out, d, src, A.refusal);
    xf_simplify_program(out);
    if (xf_check_generated("local", out, d) != 0) return NULL;
    *status = XF_OK;
    return out;
}
