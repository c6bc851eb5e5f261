/*
 * explore_cands.c — the candidates explore (explore.c) tries at a node: every transform of the
 * registry that applies there, over its parameters' candidate values (a -D binding fixes one), and
 * for stm its `stm auto` candidates widened to 2-D processor fields (explore.h says why).
 */
#include "explore_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xf.h"

enum { DEFAULT_STM = 4 };

void cands_free(cands *cs)
{
    for (int i = 0; i < cs->n; i++)
        for (int a = 0; a < cs->c[i].nargs; a++) free(cs->c[i].args[a]);
    free(cs->c);
    memset(cs, 0, sizeof *cs);
}

static cand *cand_new(cands *cs, const char *xf)
{
    if (cs->n == cs->cap) {
        int cap = cs->cap ? 2 * cs->cap : 16;
        cand *c = realloc(cs->c, (size_t)cap * sizeof *c);
        if (!c) return NULL;
        cs->c = c;
        cs->cap = cap;
    }
    cand *c = &cs->c[cs->n++];
    memset(c, 0, sizeof *c);
    c->xf = xf;
    return c;
}

/* Splits "a=b c=d" into a candidate's arguments. */
static int cand_words(cands *cs, const char *xf, const char *text)
{
    cand *c = cand_new(cs, xf);
    if (!c) return -1;
    char *copy = strdup(text);
    if (!copy) return -1;
    for (char *w = strtok(copy, " "); w && c->nargs < MAX_ARGS; w = strtok(NULL, " "))
        c->args[c->nargs++] = strdup(w);
    free(copy);
    return 0;
}

const ir_binding *explore_opts_binding(const explore_opts *o, const char *name)
{
    for (int i = 0; i < o->nbindings; i++)
        if (!strcmp(o->bindings[i].name, name)) return &o->bindings[i];
    return NULL;
}

/* The values a parameter takes in the search: -D name=v, else its candidates; NULL when it keeps
 * its default (cost-model settings, parameters without candidates). */
static int param_values(const explore_opts *o, const xf_param *q, char vals[][24], int max)
{
    if (q->model_only || (q->type != XF_P_INT && q->type != XF_P_ENUM)) return 0;
    const ir_binding *b = explore_opts_binding(o, q->name);
    if (b) { snprintf(vals[0], 24, "%lld", (long long)b->value); return 1; }
    if (!q->candidates) return 0;
    int n = 0;
    const char *p = q->candidates;
    while (*p && n < max) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        snprintf(vals[n++], 24, "%.*s", (int)(len < 23 ? len : 23), p);
        p = bar ? bar + 1 : p + len;
    }
    return n;
}

/* The product of the parameters' values (those with only_with when their condition holds). */
static int gen_params(const explore_opts *o, const xf_transform *t, const ir_program *p, cands *cs)
{
    (void)p;
    enum { MAXP = 8, MAXV = 16 };
    char vals[MAXP][MAXV][24];
    int nv[MAXP], np = t->nparams < MAXP ? t->nparams : MAXP;
    for (int i = 0; i < np; i++) nv[i] = param_values(o, &t->params[i], vals[i], MAXV);
    int idx[MAXP] = {0};
    for (;;) {
        /* one combination: skip it when a conditional parameter is set but its condition fails,
         * or unset (0 values chosen) though it holds — idx[i] == nv[i] means "left out" */
        int ok = 1;
        char cond_key[32];
        for (int i = 0; i < np && ok; i++) {
            const char *ow = t->params[i].only_with;
            if (!ow || !nv[i]) continue;
            const char *eq = strchr(ow, '=');
            snprintf(cond_key, sizeof cond_key, "%.*s", (int)(eq ? eq - ow : 0), ow);
            int holds = 0;
            for (int k = 0; k < np; k++)
                if (!strcmp(t->params[k].name, cond_key) && nv[k] && idx[k] < nv[k])
                    holds = !strcmp(vals[k][idx[k]], eq + 1);
            ok = holds ? idx[i] < nv[i] : idx[i] == nv[i];
        }
        if (ok) {
            cand *c = cand_new(cs, t->name);
            if (!c) return -1;
            for (int i = 0; i < np; i++) {
                if (!nv[i] || idx[i] == nv[i]) continue;
                char arg[64];
                snprintf(arg, sizeof arg, "%s=%s", t->params[i].name, vals[i][idx[i]]);
                c->args[c->nargs++] = strdup(arg);
            }
        }
        /* next: conditional parameters also take the "left out" value */
        int i = np - 1;
        for (; i >= 0; i--) {
            int top = nv[i] ? nv[i] - 1 + (t->params[i].only_with != NULL) : 0;
            if (idx[i] < top) { idx[i]++; break; }
            idx[i] = 0;
        }
        if (i < 0) break;
    }
    return 0;
}

static int word_in(const char *text, const char *word)
{
    size_t wl = strlen(word);
    for (const char *p = text; *p;) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_') {
            const char *s = p;
            while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' || (*p >= '0' && *p <= '9')) p++;
            if ((size_t)(p - s) == wl && !strncmp(s, word, wl)) return 1;
        } else {
            p++;
        }
    }
    return 0;
}

/* stm: the `stm auto` candidates, and each uniform one (one theta, one sigma for every statement)
 * widened by a loop variable it does not use: sigma=V,W (no inner loops) — a 2-D processor field. */
static int gen_stm(const explore_opts *o, const xf_transform *t, const ir_program *p, cands *cs)
{
    diag_list d;
    diag_list_init(&d);
    xf_stm_cand *c = NULL;
    int n = xf_stm_candidates(p, o->bindings, o->nbindings, o->stm_max > 0 ? o->stm_max : DEFAULT_STM,
                              &c, &d);
    diag_list_free(&d);
    if (n <= 0) return 0;
    /* the loop variables of the outermost loop nest */
    const ir_stmt *loop = NULL;
    for (int i = 0; p->body && i < p->body->n && !loop; i++)
        if (p->body->stmts[i]->kind == IR_S_FOR) loop = p->body->stmts[i];
    for (int k = 0; k < n; k++) {
        if (cand_words(cs, t->name, c[k].args) != 0) { xf_stm_cands_free(c, n); return -1; }
        if (!loop || loop->u.for_.nvars < 3 || strchr(c[k].args, '.')) continue;
        char theta[256] = "", sigma[256] = "";
        const char *th = strstr(c[k].args, "theta="), *sg = strstr(c[k].args, "sigma=");
        if (!th || !sg) continue;
        sscanf(th + 6, "%255s", theta);
        sscanf(sg + 6, "%255s", sigma);
        for (int v = 0; v < loop->u.for_.nvars; v++) {
            const char *var = loop->u.for_.vars[v].var;
            if (word_in(theta, var) || word_in(sigma, var)) continue;
            char args[600];
            snprintf(args, sizeof args, "theta=%s sigma=%s,%s", theta, sigma, var);
            if (cand_words(cs, t->name, args) != 0) { xf_stm_cands_free(c, n); return -1; }
        }
    }
    xf_stm_cands_free(c, n);
    return 0;
}

/* Does a statement of b (or below) carry the comment `local` leaves on a nest it rewrote? */
static int rewritten_by_local(const ir_block *b)
{
    for (int i = 0; b && i < b->n; i++) {
        const ir_stmt *s = b->stmts[i];
        for (int k = 0; k < s->comments.nlead; k++)
            if (!strncmp(s->comments.lead[k], "local", 5) && (!s->comments.lead[k][5] || s->comments.lead[k][5] == ' '))
                return 1;
        if ((s->kind == IR_S_FOR && rewritten_by_local(s->u.for_.body)) ||
            (s->kind == IR_S_IF && (rewritten_by_local(s->u.if_.then_blk) || rewritten_by_local(s->u.if_.else_blk))))
            return 1;
    }
    return 0;
}

int cand_keeps_leaf(const char *xf) { return !strcmp(xf, "local"); }

/* local (explore's second pass, on its best leaves): at syndm, once relcoord no longer applies,
 * and not again on its own result: the interchange to unit stride alone, with tiles of 32 and an
 * innermost one of 256 (a long vectorised loop), four rows of the tile's first loop jammed into
 * the innermost (where they can be; in register tiles of 16 columns where they fit) or not, and
 * with tiles of 64; the model cannot tell tile sizes or jams apart and equal costs keep this
 * order, so the fastest on gemm and 2mm (polyapm-transforms(7) has the measurements) comes
 * first. */
static int gen_local(const explore_opts *o, const xf_transform *t, const ir_program *p, cands *cs)
{
    (void)o;
    static const char *const args[] = {"", "tile=32,32,256 jam=4 regs=16", "tile=32,32,256", "tile=64"};
    if (p->level != IR_SYNDM || rewritten_by_local(p->body)) return 0;
    const xf_transform *rc = xf_find("relcoord");
    char *why = NULL;
    int before = rc && rc->applicable(p, &why);
    free(why);
    if (before) return 0;
    for (size_t i = 0; i < sizeof args / sizeof args[0]; i++)
        if (cand_words(cs, t->name, args[i]) != 0) return -1;
    return 0;
}

/* How each transform's candidates are made: a table; the default is the product of the
 * parameters' candidate values. */
static const struct { const char *xf; int (*gen)(const explore_opts *, const xf_transform *, const ir_program *, cands *); }
candidate_makers[] = {
    {"stm", gen_stm},
    {"local", gen_local},
};

int candidates(const explore_opts *o, const ir_program *p, int local_pass, cands *cs)
{
    for (int i = 0; i < xf_count(); i++) {
        const xf_transform *t = xf_at(i);
        if (!(t->levels & (1u << p->level)) || cand_keeps_leaf(t->name) != !!local_pass) continue;
        char *why = NULL;
        int ok = t->applicable(p, &why);
        free(why);
        if (!ok) continue;
        int (*gen)(const explore_opts *, const xf_transform *, const ir_program *, cands *) = gen_params;
        for (size_t k = 0; k < sizeof candidate_makers / sizeof candidate_makers[0]; k++)
            if (!strcmp(candidate_makers[k].xf, t->name)) gen = candidate_makers[k].gen;
        if (gen(o, t, p, cs) != 0) return -1;
    }
    return 0;
}

char *join_args(const cand *c)
{
    size_t n = 1;
    for (int a = 0; a < c->nargs; a++) n += strlen(c->args[a]) + 1;
    char *s = malloc(n);
    if (!s) return NULL;
    s[0] = '\0';
    for (int a = 0; a < c->nargs; a++) {
        if (a) strcat(s, " ");
        strcat(s, c->args[a]);
    }
    return s;
}

int64_t signature_of(const cands *cs)
{
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < cs->n; i++) {
        for (const char *p = cs->c[i].xf; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ULL;
        for (int a = 0; a < cs->c[i].nargs; a++)
            for (const char *p = cs->c[i].args[a]; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ULL;
        h = (h ^ '\n') * 1099511628211ULL;
    }
    int64_t s = (int64_t)(h & 0x7fffffffffffffffULL);
    return s ? s : 1;
}
