/*
 * pdg_add.c — adding a node to the decision graph (see store.h, store_node_add): the label a
 * node gets when none is given (derived from its decision and its parent's), its commit and
 * edges, linking the node that already has the same text (refusing a cycle), and recommitting
 * descendants so that every commit's parents are its parent nodes' commits.
 *
 * Order of writes in store_node_add, all under one BEGIN IMMEDIATE: git objects, then the ref
 * refs/pdg/<id>, then the rows, then COMMIT.  The id is one past every id ever used (sqlite's
 * AUTOINCREMENT sequence and the `removed` table), so a ref left by an interrupted add names an
 * id no committed row has.
 */
#include "store_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- derived labels: short and telling ---------------------------------------------------- */

/* Parameter names shown shorter in labels (per-statement keys keep their `.LABEL`). */
static const struct { const char *key, *shown; } label_keys[] = {
    {"theta", "\u03b8"}, {"sigma", "\u03c3"},
};

/* Cuts s before a last character that a byte-wise truncation left incomplete (a label cut in the
 * middle of θ must stay UTF-8: `tree --json` and the TUI read it as text). */
static void utf8_trim_partial(char *s)
{
    size_t n = strlen(s), i = n;
    if (n == 0) return;
    while (i > 0 && ((unsigned char)s[i - 1] & 0xC0) == 0x80) i--;   /* continuation bytes */
    if (i == 0) { s[0] = '\0'; return; }
    unsigned char lead = (unsigned char)s[i - 1];
    size_t want = lead < 0x80 ? 1 : (lead & 0xE0) == 0xC0 ? 2 : (lead & 0xF0) == 0xE0 ? 3 : 4;
    if (n - (i - 1) < want) s[i - 1] = '\0';
}

static void label_append(char *buf, size_t size, const char *sep, const char *text)
{
    size_t n = strlen(buf);
    if (n + 1 >= size) return;
    if (snprintf(buf + n, size - n, "%s%s", n ? sep : "", text) >= (int)(size - n)) {   /* cut */
        buf[size - 1] = '\0';
        utf8_trim_partial(buf);
    }
}

/* The decision of an edge in a few characters: "kind=K procs=P" becomes "K/P", theta and sigma
 * become θ and σ, arguments are joined by ':' (a label has no blanks):
 *   tile kind=blockcyclic procs=2 bs=4  ->  tile:blockcyclic/2:bs=4
 *   stm theta=t-1 sigma=i               ->  stm:θ=t-1:σ=i                                      */
static void decision_label(const char *transform, const char *params, char *out, size_t size)
{
    out[0] = '\0';
    label_append(out, size, "", transform);
    char *copy = strdup(params ? params : "");
    if (!copy) return;
    const char *kind = NULL, *procs = NULL;
    for (char *w = strtok(copy, " \t"); w; w = strtok(NULL, " \t")) {
        if (!strncmp(w, "kind=", 5)) kind = w + 5;
        else if (!strncmp(w, "procs=", 6)) procs = w + 6;
    }
    char word[160];
    if (kind) {
        snprintf(word, sizeof word, "%s%s%s", kind, procs ? "/" : "", procs ? procs : "");
        label_append(out, size, ":", word);
    }
    free(copy);
    copy = strdup(params ? params : "");
    if (!copy) return;
    for (char *w = strtok(copy, " \t"); w; w = strtok(NULL, " \t")) {
        if (kind && (!strncmp(w, "kind=", 5) || !strncmp(w, "procs=", 6))) continue;
        snprintf(word, sizeof word, "%s", w);
        for (size_t k = 0; k < sizeof label_keys / sizeof label_keys[0]; k++) {
            size_t kl = strlen(label_keys[k].key);
            if (!strncmp(w, label_keys[k].key, kl) && (w[kl] == '=' || w[kl] == '.'))
                snprintf(word, sizeof word, "%s%s", label_keys[k].shown, w + kl);
        }
        utf8_trim_partial(word);
        label_append(out, size, ":", word);
    }
    free(copy);
}

/* What tells a parent apart, for a child whose own label is taken: the part of the parent's
 * label after '@' (its own context), else after its transform ("blocked/2" of
 * "tile:blocked/2"), else the whole label. */
static void parent_context(store *s, const store_add_req *r, char *out, size_t size, diag_list *d)
{
    out[0] = '\0';
    if (r->nparents < 1) return;
    store_node pn;
    memset(&pn, 0, sizeof pn);
    if (store_node_get(s, r->parents[0], &pn, d) != 0 || !pn.label) { store_node_clear(&pn); return; }
    const char *at = strrchr(pn.label, '@'), *colon = strchr(pn.label, ':');
    snprintf(out, size, "%s", at ? at + 1 : colon ? colon + 1 : pn.label);
    store_node_clear(&pn);
}

/* A derived label: the hint or the edge's decision (decision_label), made safe; then unique:
 * the base, the base @ what tells its parent apart ("commgen@blocked/2"), then base-ID. */
static char *derive_label(store *s, const store_add_req *r, int64_t id, diag_list *d)
{
    char base[128], context[96] = "";
    if (r->label_hint && *r->label_hint)
        snprintf(base, sizeof base, "%s", r->label_hint);
    else
        decision_label(r->transform ? r->transform : "add", r->params, base, sizeof base);
    utf8_trim_partial(base);   /* a hint or word cut by snprintf */
    for (char *c = base; *c; c++)
        if (isspace((unsigned char)*c) || *c == '^' || iscntrl((unsigned char)*c)) *c = '-';
    if (!store_label_ok(base)) snprintf(base, sizeof base, "node");
    parent_context(s, r, context, sizeof context, d);
    utf8_trim_partial(context);
    char *label = NULL;
    for (int attempt = 0; attempt < 100; attempt++) {
        free(label);
        label = NULL;
        if (attempt == 1 && (!*context || strcmp(context, base) == 0)) continue;
        int rc = attempt == 0 ? asprintf(&label, "%s", base)
               : attempt == 1 ? asprintf(&label, "%s@%s", base, context)
               : attempt == 2 ? asprintf(&label, "%s-%lld", base, (long long)id)
                              : asprintf(&label, "%s-%lld-%d", base, (long long)id, attempt);
        if (rc < 0) { store_oom(d); return NULL; }
        for (char *c = label; *c; c++)
            if (isspace((unsigned char)*c) || *c == '^' || iscntrl((unsigned char)*c)) *c = '-';
        int64_t other = 0;
        int f = store_by_label(s, label, &other, d);
        if (f < 0) { free(label); return NULL; }
        if (f == 0) return label;
    }
    free(label);
    diag_add(d, NULL, 0, 0, "cannot find a free label for '%s'", base);
    return NULL;
}

/* ---- adding --------------------------------------------------------------------------------- */

static char *commit_message(const store_add_req *r, int64_t id, const char *label)
{
    char *msg = NULL;
    const char *tf = r->transform ? r->transform : "add";
    int rc = asprintf(&msg, "%s (#%lld, %s): %s%s%s\n%s%s%s\nPDG-Node: %lld\nPDG-Label: %s\nPDG-Level: %s\n",
                      label, (long long)id, r->level, tf, r->params && *r->params ? " " : "",
                      r->params ? r->params : "",
                      r->why && *r->why ? "\n" : "", r->why ? r->why : "", r->why && *r->why ? "\n" : "",
                      (long long)id, label, r->level);
    return rc < 0 ? NULL : msg;
}

static int insert_edge(store *s, int64_t parent, int64_t child, const store_add_req *r, int64_t now,
                       diag_list *d)
{
    sqlite3_stmt *st = store_stmt(s, ST_EDGE_INSERT, d);
    if (!st) return -1;
    sqlite3_bind_int64(st, 1, parent);
    sqlite3_bind_int64(st, 2, child);
    sqlite3_bind_text(st, 3, r->transform ? r->transform : "add", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, r->params ? r->params : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 5, r->why ? r->why : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 6, now);
    return store_exec_stmt(s, st, d, "adding an edge");
}

static int edge_exists(store *s, int64_t parent, int64_t child, diag_list *d)
{
    sqlite3_stmt *st = store_stmt(s, ST_EDGE_EXISTS, d);
    if (!st) return -1;
    sqlite3_bind_int64(st, 1, parent);
    sqlite3_bind_int64(st, 2, child);
    return store_step_int64(s, st, NULL, d, "reading an edge");
}

static int is_descendant(store *s, int64_t of, int64_t id, diag_list *d)
{
    sqlite3_stmt *st = store_stmt(s, ST_IS_DESCENDANT, d);
    if (!st) return -1;
    sqlite3_bind_int64(st, 1, of);
    sqlite3_bind_int64(st, 2, id);
    return store_step_int64(s, st, NULL, d, "checking for a cycle");
}

/* Node `from` has new parents: recommit it with all of them, and every descendant with its
 * parents' new commits (in topological order), moving the refs and the rows' commit ids, so that
 * git's graph stays the decision graph.  The trees do not change.  Runs inside the caller's
 * write transaction; the graph is small next to the git work. */
int store_rewrite_commits(store *s, int64_t from, diag_list *d)
{
    store_graph g;
    if (!store_git(s, d) || store_graph_load(s, &g, d) != 0) return -1;
    int rc = -1, start = store_graph_index(&g, from), head = 0, tail = 0;
    char *mark = calloc((size_t)g.n + 1, 1);
    int *order = malloc(((size_t)g.n + 1) * sizeof *order), *indeg = calloc((size_t)g.n + 1, sizeof *indeg);
    vcs_hex *commit = calloc((size_t)g.n + 1, sizeof *commit);
    vcs_hex pc[16];
    if (!mark || !order || !indeg || !commit) { store_oom(d); goto out; }
    if (start < 0) { diag_add(d, NULL, 0, 0, "no node %lld", (long long)from); goto out; }
    /* The nodes to rewrite: `from` and its descendants. */
    mark[start] = 1;
    order[tail++] = start;
    while (head < tail) {
        const store_gnode *x = &g.nodes[order[head++]];
        for (int c = 0; c < x->nchildren; c++)
            if (!mark[x->children[c]]) { mark[x->children[c]] = 1; order[tail++] = x->children[c]; }
    }
    /* Kahn's order within them. */
    for (int i = 0; i < tail; i++) {
        const store_gnode *x = &g.nodes[order[i]];
        for (int p = 0; p < x->nparents; p++) indeg[order[i]] += mark[x->parents[p]] && x->parents[p] != order[i];
    }
    int nset = tail;
    head = tail = 0;
    int *queue = order;   /* reuse: the set is re-derived below */
    int *set = malloc(((size_t)nset + 1) * sizeof *set);
    if (!set) { store_oom(d); goto out; }
    memcpy(set, order, (size_t)nset * sizeof *set);
    for (int i = 0; i < nset; i++)
        if (indeg[set[i]] == 0) queue[tail++] = set[i];
    while (head < tail) {
        int xi = queue[head++];
        const store_gnode *x = &g.nodes[xi];
        store_node n;
        if (store_node_get(s, x->id, &n, d) != 0) { free(set); goto out; }
        int np = x->nparents < 16 ? x->nparents : 16;
        int ok = 1;
        for (int p = 0; p < np && ok; p++) {
            int pi = x->parents[p];
            if (mark[pi] == 2) {
                memcpy(pc[p], commit[pi], sizeof(vcs_hex));
            } else {
                store_node pn;
                ok = store_node_get(s, g.nodes[pi].id, &pn, d) == 0;
                if (ok) { memcpy(pc[p], pn.commit, sizeof(vcs_hex)); store_node_clear(&pn); }
            }
        }
        sqlite3_stmt *st = NULL;
        ok = ok && vcs_recommit(s->git, n.commit, pc, np, commit[xi], d) == 0 &&
             vcs_ref_set(s->git, x->id, commit[xi], d) == 0 && (st = store_stmt(s, ST_NODE_SET_COMMIT, d));
        if (ok) {
            sqlite3_bind_int64(st, 1, x->id);
            sqlite3_bind_text(st, 2, commit[xi], -1, SQLITE_TRANSIENT);
            ok = store_exec_stmt(s, st, d, "updating a commit") == 0;
        }
        store_node_clear(&n);
        if (!ok) { free(set); goto out; }
        mark[xi] = 2;
        for (int c = 0; c < x->nchildren; c++)
            if (mark[x->children[c]] == 1 && --indeg[x->children[c]] == 0) queue[tail++] = x->children[c];
    }
    free(set);
    if (tail < nset) { diag_add(d, NULL, 0, 0, "%s: the graph has a cycle (run fsck)", s->dir); goto out; }
    rc = 0;
out:
    free(mark);
    free(order);
    free(indeg);
    free(commit);
    store_graph_free(&g);
    return rc;
}

/* The text is already node `id`: link the new parents to it and rewrite its commit so that git
 * shows every parent. */
static int link_existing(store *s, const store_add_req *r, int64_t id, int64_t now, diag_list *d)
{
    int added = 0;
    for (int i = 0; i < r->nparents; i++) {
        int64_t p = r->parents[i];
        if (p == id) {
            diag_add(d, NULL, 0, 0, "the program is node %lld itself; a node cannot be its own child", (long long)id);
            return -1;
        }
        int c = is_descendant(s, id, p, d);
        if (c < 0) return -1;
        if (c) {
            diag_add(d, NULL, 0, 0, "the program is node %lld, an ancestor of node %lld: linking it would make a cycle",
                     (long long)id, (long long)p);
            return -1;
        }
        int e = edge_exists(s, p, id, d);
        if (e < 0) return -1;
        if (e) continue;
        if (insert_edge(s, p, id, r, now, d) != 0) return -1;
        added++;
    }
    if (!added) return 0;
    return store_rewrite_commits(s, id, d);
}

static int create_node(store *s, const store_add_req *r, int64_t *id, int64_t now, diag_list *d)
{
    int rc = -1;
    char *label = NULL, *msg = NULL;
    if (!store_git(s, d)) return -1;
    vcs_hex *pc = calloc((size_t)(r->nparents ? r->nparents : 1), sizeof *pc);
    if (!pc) return store_oom(d);
    for (int i = 0; i < r->nparents; i++) {
        store_node pn;
        if (store_node_get(s, r->parents[i], &pn, d) != 0) goto out;
        memcpy(pc[i], pn.commit, sizeof(vcs_hex));
        store_node_clear(&pn);
        for (int j = 0; j < i; j++)
            if (r->parents[j] == r->parents[i]) {
                diag_add(d, NULL, 0, 0, "parent %lld given twice", (long long)r->parents[i]);
                goto out;
            }
    }
    sqlite3_stmt *st = store_stmt(s, ST_NEXT_ID, d);
    if (!st || store_step_int64(s, st, id, d, "allocating an id") != 1) goto out;
    if (r->label) {
        if (!store_label_ok(r->label)) {
            diag_add(d, NULL, 0, 0, "bad label '%s' (no blanks or ^, not all digits, not ROOT)", r->label);
            goto out;
        }
        int64_t other = 0;
        int f = store_by_label(s, r->label, &other, d);
        if (f < 0) goto out;
        if (f) { diag_add(d, NULL, 0, 0, "label '%s' is taken by node %lld", r->label, (long long)other); goto out; }
        label = strdup(r->label);
        if (!label) { store_oom(d); goto out; }
    } else if (!(label = derive_label(s, r, *id, d))) {
        goto out;
    }
    if (!(msg = commit_message(r, *id, label))) { store_oom(d); goto out; }
    /* One shared blob for every node created without a cost (no new file per node). */
    static const char cost_default[] =
        "not simulated when created; stored simulations: polyapm show NODE (pdg.db, table simulations)\n";
    vcs_hex commit, blob;
    /* git first: objects, then the ref; the rows below name them. */
    if (vcs_write_node(s->git, r->text, r->len, r->cost_txt ? r->cost_txt : cost_default, pc, r->nparents,
                       msg, commit, blob, d) != 0)
        goto out;
    if (vcs_ref_set(s->git, *id, commit, d) != 0) goto out;
    st = store_stmt(s, ST_NODE_INSERT, d);
    if (!st) goto out;
    sqlite3_bind_int64(st, 1, *id);
    sqlite3_bind_text(st, 2, blob, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, commit, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, r->level, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 5, label, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 6, now);
    if (store_exec_stmt(s, st, d, "adding the node") != 0) goto out;
    for (int i = 0; i < r->nparents; i++)
        if (insert_edge(s, r->parents[i], *id, r, now, d) != 0) goto out;
    rc = 0;
out:
    free(pc);
    free(label);
    free(msg);
    return rc;
}

int store_node_add(store *s, own_keep const store_add_req *r, int64_t *id, int *created, diag_list *d)
{
    if (!r->text || !r->level || !*r->level || strlen(r->level) >= 16 || r->nparents < 0 || r->nparents > 16) {
        diag_add(d, NULL, 0, 0, "store_node_add: bad request (text, level and at most 16 parents)");
        return -1;
    }
    vcs_hex hash;
    vcs_hash_text(r->text, r->len, hash);
    if (store_begin(s, d) != 0) return -1;
    int64_t now = store_now(), existing = 0;
    sqlite3_stmt *st = store_stmt(s, ST_NODE_BY_HASH, d);
    int f = -1;
    if (st) {
        sqlite3_bind_text(st, 1, hash, -1, SQLITE_TRANSIENT);
        f = store_step_int64(s, st, &existing, d, "looking up the hash");
    }
    if (f < 0) goto fail;
    if (f == 0 && r->nparents == 0) {
        int64_t root = 0;
        sqlite3_stmt *rs = store_stmt(s, ST_ROOT, d);
        int g = rs ? store_step_int64(s, rs, &root, d, "finding the root") : -1;
        if (g < 0) goto fail;
        if (g == 1) {
            diag_add(d, NULL, 0, 0, "%s already has a root (node %lld); a new node needs a parent", s->dir, (long long)root);
            goto fail;
        }
    }
    if (f == 1) {
        if (link_existing(s, r, existing, now, d) != 0) goto fail;
        *id = existing;
        if (created) *created = 0;
    } else {
        if (create_node(s, r, id, now, d) != 0) goto fail;
        if (created) *created = 1;
    }
    if (store_commit(s, d) != 0) return -1;
    return 0;
fail:
    store_rollback(s);
    return -1;
}
