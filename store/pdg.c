/*
 * pdg.c — the decision graph's operations: reading nodes and edges, resolving the NODE syntax,
 * marks, notes, labels, loading the whole graph for listings, removing a subtree, and read
 * snapshots.  Adding a node (or linking the node that already has the same text) is in
 * pdg_add.c.  See store.h.
 */
#include "store_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int store_oom(diag_list *d)
{
    diag_add(d, NULL, 0, 0, "out of memory");
    return -1;
}

void store_node_clear(own_keep store_node *n)
{
    free(n->label);
    free(n->note);
    memset(n, 0, sizeof *n);
}

void store_edges_free(own_take store_edge *e, int n)
{
    for (int i = 0; i < n; i++) {
        free(e[i].transform);
        free(e[i].params);
        free(e[i].why);
    }
    free(e);
}

/* Reads the first integer column of a one-row statement: 1 found, 0 none, -1 error. */
int store_step_int64(store *s, sqlite3_stmt *st, int64_t *out, diag_list *d, const char *what)
{
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        if (out) *out = sqlite3_column_int64(st, 0);
        sqlite3_reset(st);
        return 1;
    }
    sqlite3_reset(st);
    if (rc == SQLITE_DONE) return 0;
    return store_db_fail(s, d, what);
}

static int node_exists(store *s, int64_t id, diag_list *d)
{
    sqlite3_stmt *st = store_stmt(s, ST_NODE_EXISTS, d);
    if (!st) return -1;
    sqlite3_bind_int64(st, 1, id);
    return store_step_int64(s, st, NULL, d, "looking up a node");
}

int store_node_get(store *s, int64_t id, own_give store_node *out, diag_list *d)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st = store_stmt(s, ST_NODE_GET, d);
    if (!st) return -1;
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_reset(st);
        if (rc == SQLITE_DONE) { diag_add(d, NULL, 0, 0, "no node %lld", (long long)id); return -1; }
        return store_db_fail(s, d, "reading a node");
    }
    out->id = sqlite3_column_int64(st, 0);
    store_col_copy(st, 1, out->hash, sizeof out->hash);
    store_col_copy(st, 2, out->commit, sizeof out->commit);
    store_col_copy(st, 3, out->level, sizeof out->level);
    out->label = store_col_dup(st, 4);
    out->created = sqlite3_column_int64(st, 5);
    out->pruned = sqlite3_column_int(st, 6);
    out->favourite = sqlite3_column_int(st, 7);
    out->note = sqlite3_column_type(st, 8) == SQLITE_NULL ? NULL : store_col_dup(st, 8);
    out->explored = sqlite3_column_int64(st, 9);
    sqlite3_reset(st);
    if (!out->label) { store_node_clear(out); return store_oom(d); }
    return 0;
}

own_give char *store_node_text(store *s, int64_t id, size_t *len, diag_list *d)
{
    store_node n;
    if (!store_git(s, d) || store_node_get(s, id, &n, d) != 0) return NULL;
    char *text = vcs_blob_read(s->git, n.hash, len, d);
    if (!text) diag_add(d, NULL, 0, 0, "%s: the program of node %lld is missing from repo.git (run fsck)",
                        s->dir, (long long)id);
    store_node_clear(&n);
    return text;
}

static int read_edges(store *s, store_stmt_id which, int64_t id, store_edge **out, int *n, diag_list *d)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st = store_stmt(s, which, d);
    if (!st) return -1;
    sqlite3_bind_int64(st, 1, id);
    int cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 4;
            store_edge *e = realloc(*out, (size_t)cap * sizeof *e);
            if (!e) { sqlite3_reset(st); store_edges_free(*out, *n); *out = NULL; *n = 0; return store_oom(d); }
            *out = e;
        }
        store_edge *e = &(*out)[(*n)++];
        e->parent = sqlite3_column_int64(st, 0);
        e->child = sqlite3_column_int64(st, 1);
        e->transform = store_col_dup(st, 2);
        e->params = store_col_dup(st, 3);
        e->why = store_col_dup(st, 4);
        e->created = sqlite3_column_int64(st, 5);
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
        store_edges_free(*out, *n);
        *out = NULL;
        *n = 0;
        return store_db_fail(s, d, "reading edges");
    }
    return 0;
}

int store_parents(store *s, int64_t id, own_give store_edge **out, int *n, diag_list *d)
{
    return read_edges(s, ST_PARENTS, id, out, n, d);
}

int store_children(store *s, int64_t id, own_give store_edge **out, int *n, diag_list *d)
{
    return read_edges(s, ST_CHILDREN, id, out, n, d);
}

int store_root(store *s, int64_t *id, diag_list *d)
{
    sqlite3_stmt *st = store_stmt(s, ST_ROOT, d);
    if (!st) return -1;
    int f = store_step_int64(s, st, id, d, "finding the root");
    if (f == 0) diag_add(d, NULL, 0, 0, "%s: the workspace has no nodes", s->dir);
    return f == 1 ? 0 : -1;
}

static int first_parent(store *s, int64_t id, int64_t *parent, diag_list *d)
{
    sqlite3_stmt *st = store_stmt(s, ST_FIRST_PARENT, d);
    if (!st) return -1;
    sqlite3_bind_int64(st, 1, id);
    return store_step_int64(s, st, parent, d, "reading a parent");
}

int store_lineage(store *s, int64_t id, own_give int64_t **ids, int *n, diag_list *d)
{
    int cap = 16, k = 0;
    int64_t count = 0;
    sqlite3_stmt *cs = store_stmt(s, ST_COUNT_NODES, d);
    if (!cs || store_step_int64(s, cs, &count, d, "counting nodes") != 1) return -1;
    int64_t *v = malloc((size_t)cap * sizeof *v);
    if (!v) return store_oom(d);
    v[k++] = id;
    for (;;) {
        int64_t p = 0;
        int f = first_parent(s, v[k - 1], &p, d);
        if (f < 0) { free(v); return -1; }
        if (f == 0) break;
        if (k > count) {   /* a path longer than the graph: a cycle */
            free(v);
            diag_add(d, NULL, 0, 0, "%s: cycle through node %lld (run fsck)", s->dir, (long long)p);
            return -1;
        }
        if (k == cap) {
            cap *= 2;
            int64_t *nv = realloc(v, (size_t)cap * sizeof *nv);
            if (!nv) { free(v); return store_oom(d); }
            v = nv;
        }
        v[k++] = p;
    }
    for (int i = 0; i < k / 2; i++) {
        int64_t t = v[i];
        v[i] = v[k - 1 - i];
        v[k - 1 - i] = t;
    }
    *ids = v;
    *n = k;
    return 0;
}

void store_path_free(own_take store_step *steps, int n)
{
    for (int i = 0; i < n; i++) {
        store_node_clear(&steps[i].node);
        free(steps[i].edge.transform);
        free(steps[i].edge.params);
        free(steps[i].edge.why);
    }
    free(steps);
}

int store_path(store *s, int64_t id, own_give store_step **out, int *n, diag_list *d)
{
    *out = NULL;
    *n = 0;
    int64_t count = 0;
    sqlite3_stmt *st = store_stmt(s, ST_COUNT_NODES, d);
    if (!st || store_step_int64(s, st, &count, d, "counting nodes") != 1) return -1;
    if (!(st = store_stmt(s, ST_PATH, d))) return -1;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, count);
    int cap = 0, rc;
    store_step *v = NULL;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            store_step *nv = realloc(v, (size_t)cap * sizeof *nv);
            if (!nv) break;
            v = nv;
        }
        store_step *x = &v[(*n)++];
        memset(x, 0, sizeof *x);
        x->node.id = sqlite3_column_int64(st, 0);
        store_col_copy(st, 1, x->node.hash, sizeof x->node.hash);
        store_col_copy(st, 2, x->node.commit, sizeof x->node.commit);
        store_col_copy(st, 3, x->node.level, sizeof x->node.level);
        x->node.label = store_col_dup(st, 4);
        x->node.created = sqlite3_column_int64(st, 5);
        x->node.pruned = sqlite3_column_int(st, 6);
        x->node.favourite = sqlite3_column_int(st, 7);
        x->node.note = sqlite3_column_type(st, 8) == SQLITE_NULL ? NULL : store_col_dup(st, 8);
        x->edge.child = x->node.id;
        if (sqlite3_column_type(st, 9) != SQLITE_NULL) {
            x->edge.parent = sqlite3_column_int64(st, 9);
            x->edge.transform = store_col_dup(st, 10);
            x->edge.params = store_col_dup(st, 11);
            x->edge.why = store_col_dup(st, 12);
            x->edge.created = sqlite3_column_int64(st, 13);
        }
        x->nparents = sqlite3_column_int(st, 14);
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
        store_path_free(v, *n);
        *n = 0;
        if (rc == SQLITE_ROW) return store_oom(d);
        return store_db_fail(s, d, "reading the path");
    }
    if (*n == 0) { free(v); diag_add(d, NULL, 0, 0, "no node %lld", (long long)id); return -1; }
    if (*n > count) {
        store_path_free(v, *n);
        *n = 0;
        diag_add(d, NULL, 0, 0, "%s: cycle above node %lld (run fsck)", s->dir, (long long)id);
        return -1;
    }
    *out = v;
    return 0;
}

int store_reference(store *s, int64_t id, int64_t *ref, diag_list *d)
{
    store_step *path = NULL;
    int n = 0;
    if (store_path(s, id, &path, &n, d) != 0) return -1;
    if (n == 0) {
        diag_add(d, NULL, 0, 0, "%s: no path to node %lld", s->dir, (long long)id);
        return -1;
    }
    int at = 0;
    for (int i = n - 1; i > 0 && !at; i--)
        if (path[i].edge.transform && !strcmp(path[i].edge.transform, STORE_REPLAY_EDGE)) at = i;
    *ref = path[at].node.id;
    store_path_free(path, n);
    return 0;
}

/* ---- resolving NODE ------------------------------------------------------------------------- */

static int all_digits(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return 0;
    return 1;
}

static int all_hex(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!isxdigit((unsigned char)*s)) return 0;
    return 1;
}

int store_by_label(store *s, const char *label, int64_t *id, diag_list *d)
{
    sqlite3_stmt *st = store_stmt(s, ST_NODE_BY_LABEL, d);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, label, -1, SQLITE_TRANSIENT);
    return store_step_int64(s, st, id, d, "looking up a label");
}

static int by_prefix(store *s, const char *prefix, int64_t *id, diag_list *d)
{
    char low[41];
    size_t n = strlen(prefix);
    for (size_t i = 0; i <= n; i++) low[i] = (char)tolower((unsigned char)prefix[i]);
    sqlite3_stmt *st = store_stmt(s, ST_PREFIX, d);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, low, -1, SQLITE_TRANSIENT);
    int64_t ids[4];
    vcs_hex hashes[4];
    int k = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && k < 4) {
        ids[k] = sqlite3_column_int64(st, 0);
        store_col_copy(st, 1, hashes[k], sizeof hashes[k]);
        k++;
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) return store_db_fail(s, d, "looking up a prefix");
    if (k == 1) { *id = ids[0]; return 1; }
    if (k == 0) return 0;
    char list[256] = "";
    for (int i = 0; i < k && i < 3; i++) {
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%s%lld (%.12s)", i ? ", " : "", (long long)ids[i], hashes[i]);
    }
    diag_add(d, NULL, 0, 0, "'%s' is ambiguous: it prefixes nodes %s%s", prefix, list, k > 3 ? ", ..." : "");
    return -1;
}

int store_resolve(store *s, const char *spec, int64_t *id, diag_list *d)
{
    size_t len = strlen(spec);
    int ups = 0;
    while (len > 0 && spec[len - 1] == '^') { len--; ups++; }
    char *base = strndup(spec, len);
    if (!base) return store_oom(d);
    int f = 0;
    if (!*base) {
        diag_add(d, NULL, 0, 0, "empty node name");
        f = -1;
    } else if (strcmp(base, "ROOT") == 0) {
        f = store_root(s, id, d) == 0 ? 1 : -1;
    } else {
        if (all_digits(base) && strlen(base) < 19) {
            f = node_exists(s, strtoll(base, NULL, 10), d);
            if (f == 1) *id = strtoll(base, NULL, 10);
        }
        if (f == 0) f = store_by_label(s, base, id, d);
        if (f == 0 && all_hex(base) && strlen(base) >= 4 && strlen(base) <= 40) f = by_prefix(s, base, id, d);
        if (f == 0) {
            if (all_hex(base) && strlen(base) < 4)
                diag_add(d, NULL, 0, 0, "no node '%s' (a hash prefix needs at least 4 hex digits)", base);
            else
                diag_add(d, NULL, 0, 0, "no node '%s' in %s (not an id, label or hash prefix)", base, s->dir);
            f = -1;
        }
    }
    free(base);
    if (f != 1) return -1;
    for (int i = 0; i < ups; i++) {
        int64_t p = 0;
        int g = first_parent(s, *id, &p, d);
        if (g < 0) return -1;
        if (g == 0) {
            diag_add(d, NULL, 0, 0, "'%s': node %lld is the root and has no parent", spec, (long long)*id);
            return -1;
        }
        *id = p;
    }
    return 0;
}

/* ---- labels a user gives -------------------------------------------------------------------- */

/* A label may not look like an id, contain blanks or ^, or be ROOT. */
int store_label_ok(const char *l)
{
    if (!*l || all_digits(l) || strcmp(l, "ROOT") == 0 || strlen(l) > 200) return 0;
    for (const char *c = l; *c; c++)
        if (isspace((unsigned char)*c) || *c == '^' || iscntrl((unsigned char)*c)) return 0;
    return 1;
}

/* ---- marks, notes, labels ------------------------------------------------------------------- */

static int write_one(store *s, store_stmt_id which, int64_t id, int (*bind)(sqlite3_stmt *, const void *),
                     const void *arg, diag_list *d, const char *what)
{
    if (store_begin(s, d) != 0) return -1;
    int e = node_exists(s, id, d);
    if (e == 0) diag_add(d, NULL, 0, 0, "no node %lld", (long long)id);
    if (e != 1) { store_rollback(s); return -1; }
    sqlite3_stmt *st = store_stmt(s, which, d);
    if (!st) { store_rollback(s); return -1; }
    sqlite3_bind_int64(st, 1, id);
    if (bind(st, arg) != 0 || store_exec_stmt(s, st, d, what) != 0) { store_rollback(s); return -1; }
    return store_commit(s, d);
}

static int bind_mark(sqlite3_stmt *st, const void *arg)
{
    int kind = *(const int *)arg;
    sqlite3_bind_int(st, 2, kind == STORE_MARK_PRUNED);
    sqlite3_bind_int(st, 3, kind == STORE_MARK_FAVOURITE);
    return 0;
}

static int bind_int64_2(sqlite3_stmt *st, const void *arg)
{
    sqlite3_bind_int64(st, 2, *(const int64_t *)arg);
    return 0;
}

int store_mark_explored(store *s, int64_t id, int64_t signature, diag_list *d)
{
    if (signature == 0) signature = 1;
    return write_one(s, ST_MARK_EXPLORED, id, bind_int64_2, &signature, d, "marking explored");
}

static int bind_text2(sqlite3_stmt *st, const void *arg)
{
    const char *t = arg;
    if (t && *t) sqlite3_bind_text(st, 2, t, -1, SQLITE_TRANSIENT);
    else sqlite3_bind_null(st, 2);
    return 0;
}

int store_mark(store *s, int64_t id, int kind, diag_list *d)
{
    if (kind < STORE_MARK_CLEAR || kind > STORE_MARK_FAVOURITE) {
        diag_add(d, NULL, 0, 0, "unknown mark");
        return -1;
    }
    return write_one(s, ST_MARK_SET, id, bind_mark, &kind, d, "marking");
}

int store_note(store *s, int64_t id, const char *text, diag_list *d)
{
    return write_one(s, ST_NOTE_SET, id, bind_text2, text, d, "writing the note");
}

int store_label(store *s, int64_t id, const char *label, diag_list *d)
{
    if (!label || !store_label_ok(label)) {
        diag_add(d, NULL, 0, 0, "bad label '%s' (no blanks or ^, not all digits, not ROOT)", label ? label : "");
        return -1;
    }
    if (store_begin(s, d) != 0) return -1;
    int64_t other = 0;
    int f = store_by_label(s, label, &other, d);
    if (f == 1 && other == id) return store_commit(s, d);   /* already so */
    if (f == 1) diag_add(d, NULL, 0, 0, "label '%s' is taken by node %lld", label, (long long)other);
    int e = f == 0 ? node_exists(s, id, d) : -1;
    if (e == 0) diag_add(d, NULL, 0, 0, "no node %lld", (long long)id);
    sqlite3_stmt *st = e == 1 ? store_stmt(s, ST_NODE_SET_LABEL, d) : NULL;
    if (!st) { store_rollback(s); return -1; }
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, label, -1, SQLITE_TRANSIENT);
    if (store_exec_stmt(s, st, d, "relabelling") != 0) { store_rollback(s); return -1; }
    return store_commit(s, d);
}

/* ---- the graph ------------------------------------------------------------------------------ */

void store_graph_free(own_keep store_graph *g)
{
    for (int i = 0; i < g->n; i++) free(g->nodes[i].label);
    free(g->nodes);
    free(g->adj);
    memset(g, 0, sizeof *g);
}

int store_graph_index(const store_graph *g, int64_t id)
{
    int lo = 0, hi = g->n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (g->nodes[mid].id == id) return mid;
        if (g->nodes[mid].id < id) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

int store_graph_load(store *s, own_give store_graph *g, diag_list *d)
{
    memset(g, 0, sizeof *g);
    g->root = -1;
    int cap = 0, rc;
    /* One read transaction for a consistent snapshot of nodes and edges (unless the caller
     * already holds one). */
    int own = sqlite3_get_autocommit(s->db);
    if (own && sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) return store_db_fail(s, d, "reading");
    sqlite3_stmt *st = store_stmt(s, ST_G_NODES, d);
    if (!st) goto fail;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (g->n == cap) {
            cap = cap ? cap * 2 : 256;
            store_gnode *nn = realloc(g->nodes, (size_t)cap * sizeof *nn);
            if (!nn) { sqlite3_reset(st); store_oom(d); goto fail; }
            g->nodes = nn;
        }
        store_gnode *n = &g->nodes[g->n];
        memset(n, 0, sizeof *n);
        n->id = sqlite3_column_int64(st, 0);
        store_col_copy(st, 1, n->hash, sizeof n->hash);
        store_col_copy(st, 2, n->level, sizeof n->level);
        n->label = store_col_dup(st, 3);
        n->created = sqlite3_column_int64(st, 4);
        n->pruned = sqlite3_column_int(st, 5);
        n->favourite = sqlite3_column_int(st, 6);
        n->has_note = sqlite3_column_int(st, 7);
        n->nsims = sqlite3_column_int(st, 8);
        n->best_total = sqlite3_column_double(st, 9);
        n->verified = sqlite3_column_int(st, 10);
        n->explored = sqlite3_column_int64(st, 11) != 0;
        g->n++;
        if (!n->label) { sqlite3_reset(st); store_oom(d); goto fail; }
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) { store_db_fail(s, d, "reading nodes"); goto fail; }
    /* Edges: read into a temporary list, count, then lay out children and parents. */
    int ecap = 0, ne = 0;
    int (*edges)[2] = NULL;
    if (!(st = store_stmt(s, ST_G_EDGES, d))) goto fail;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int p = store_graph_index(g, sqlite3_column_int64(st, 0));
        int c = store_graph_index(g, sqlite3_column_int64(st, 1));
        if (p < 0 || c < 0) continue;
        if (ne == ecap) {
            ecap = ecap ? ecap * 2 : 256;
            int (*ee)[2] = realloc(edges, (size_t)ecap * sizeof *ee);
            if (!ee) { free(edges); sqlite3_reset(st); store_oom(d); goto fail; }
            edges = ee;
        }
        edges[ne][0] = p;
        edges[ne][1] = c;
        ne++;
    }
    sqlite3_reset(st);
    if (own) sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_DONE) {
        free(edges);
        store_db_fail(s, d, "reading edges");
        store_graph_free(g);
        return -1;
    }
    g->adj = malloc((size_t)(2 * ne + 1) * sizeof *g->adj);
    if (!g->adj) { free(edges); store_graph_free(g); return store_oom(d); }
    for (int i = 0; i < ne; i++) {
        g->nodes[edges[i][0]].nchildren++;
        g->nodes[edges[i][1]].nparents++;
    }
    int off = 0;
    for (int i = 0; i < g->n; i++) {
        g->nodes[i].children = g->adj + off;
        off += g->nodes[i].nchildren;
        g->nodes[i].parents = g->adj + off;
        off += g->nodes[i].nparents;
        g->nodes[i].nchildren = g->nodes[i].nparents = 0;
    }
    for (int i = 0; i < ne; i++) {
        store_gnode *p = &g->nodes[edges[i][0]], *c = &g->nodes[edges[i][1]];
        p->children[p->nchildren++] = edges[i][1];
        c->parents[c->nparents++] = edges[i][0];
    }
    free(edges);
    for (int i = 0; i < g->n; i++)
        if (g->nodes[i].nparents == 0) { g->root = i; break; }
    return 0;
fail:
    if (own) sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    store_graph_free(g);
    return -1;
}

/* ---- removing ------------------------------------------------------------------------------- */

int store_rm(store *s, int64_t id, int dry_run, own_give int64_t **removed, int *n, diag_list *d)
{
    *removed = NULL;
    *n = 0;
    store_graph g;
    /* Under the write lock, so that no child can be added to the subtree meanwhile. */
    if (!dry_run && (!store_git(s, d) || store_begin(s, d) != 0)) return -1;
    if (store_graph_load(s, &g, d) != 0) { store_rollback(s); return -1; }
    int start = store_graph_index(&g, id), rc = -1;
    char *in = NULL;
    int *list = NULL, k = 0;
    if (start < 0) { diag_add(d, NULL, 0, 0, "no node %lld", (long long)id); goto out; }
    if (start == g.root) { diag_add(d, NULL, 0, 0, "node %lld is the root; it cannot be removed", (long long)id); goto out; }
    in = calloc((size_t)g.n, 1);
    list = malloc((size_t)g.n * sizeof *list);
    if (!in || !list) { store_oom(d); goto out; }
    in[start] = 1;
    list[k++] = start;
    for (int q = 0; q < k; q++) {
        store_gnode *x = &g.nodes[list[q]];
        for (int c = 0; c < x->nchildren; c++) {
            store_gnode *ch = &g.nodes[x->children[c]];
            if (in[x->children[c]]) continue;
            int all = 1;
            for (int p = 0; p < ch->nparents && all; p++) all = in[ch->parents[p]];
            if (all) { in[x->children[c]] = 1; list[k++] = x->children[c]; }
        }
    }
    *removed = malloc((size_t)k * sizeof **removed);
    if (!*removed) { store_oom(d); goto out; }
    for (int i = 0; i < k; i++) (*removed)[i] = g.nodes[list[i]].id;
    *n = k;
    if (dry_run) { rc = 0; goto out; }
    int64_t now = store_now();
    for (int i = 0; i < k; i++) {
        sqlite3_stmt *st = store_stmt(s, ST_REMOVED_INSERT, d);
        if (!st) { store_rollback(s); goto out; }
        sqlite3_bind_int64(st, 1, g.nodes[list[i]].id);
        sqlite3_bind_text(st, 2, g.nodes[list[i]].hash, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 3, now);
        if (store_exec_stmt(s, st, d, "recording a removal") != 0) { store_rollback(s); goto out; }
        if (!(st = store_stmt(s, ST_NODE_DELETE, d))) { store_rollback(s); goto out; }
        sqlite3_bind_int64(st, 1, g.nodes[list[i]].id);
        if (store_exec_stmt(s, st, d, "removing a node") != 0) { store_rollback(s); goto out; }
    }
    /* Nodes that stay but lost a parent: their commits (and their descendants') drop it too. */
    for (int i = 0; i < k; i++) {
        const store_gnode *x = &g.nodes[list[i]];
        for (int c = 0; c < x->nchildren; c++)
            if (!in[x->children[c]] && store_rewrite_commits(s, g.nodes[x->children[c]].id, d) != 0) {
                store_rollback(s);
                goto out;
            }
    }
    if (store_commit(s, d) != 0) goto out;
    /* The rows are gone; their refs are now stale (listed in `removed`): drop them. */
    for (int i = 0; i < k; i++) vcs_ref_delete(s->git, g.nodes[list[i]].id, d);
    rc = 0;
out:
    if (rc != 0) { store_rollback(s); free(*removed); *removed = NULL; *n = 0; }
    free(in);
    free(list);
    store_graph_free(&g);
    return rc;
}

/* ---- read snapshots ------------------------------------------------------------------------- */

int store_snapshot_begin(store *s, diag_list *d)
{
    if (!sqlite3_get_autocommit(s->db)) return 0;
    if (sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) return store_db_fail(s, d, "reading");
    return 0;
}

void store_snapshot_end(store *s)
{
    if (!sqlite3_get_autocommit(s->db)) sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
}
