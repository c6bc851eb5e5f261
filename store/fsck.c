/*
 * fsck.c — checking that a workspace's database and git repository agree, and repairing them.
 *
 *   every node row      has its ref refs/pdg/<id>, pointing to a commit whose program.apm is the
 *                       row's hash, and that blob exists            (repair: the ref again, from
 *                       the row's commit, or a fresh commit of the blob)
 *   every ref           has its row, unless its id was never committed (an interrupted add) or
 *                       was removed by `rm`: those are leftovers, not problems   (repair: the row
 *                       again from the commit's PDG-* trailers and parents / drop the leftover)
 *   edges, simulations, marks, measurements name existing nodes    (repair: delete the rest)
 *   one root, no cycle, SQLite's quick_check passes                (reported only)
 *   each commit's parents are its parent nodes' commits: a difference is left by an
 *                       interrupted link or rm, a leftover, not a problem   (repair: recommit)
 *
 * Without repair the check runs in one read transaction (a consistent snapshot: concurrent adds
 * show up as leftovers); with repair under the write lock.
 */
#include "store_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct row { int64_t id; vcs_hex hash, commit; char *label; char level[16]; } row;

static void say(store_fsck_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(store_fsck_report *r, const char *fmt, ...)
{
    char *line = NULL;
    va_list ap;
    va_start(ap, fmt);
    int rc = vasprintf(&line, fmt, ap);
    va_end(ap);
    if (rc < 0) return;
    char **v = realloc(r->lines, (size_t)(r->nlines + 1) * sizeof *v);
    if (!v) { free(line); return; }
    r->lines = v;
    r->lines[r->nlines++] = line;
}

void store_fsck_report_clear(own_keep store_fsck_report *r)
{
    for (int i = 0; i < r->nlines; i++) free(r->lines[i]);
    free(r->lines);
    memset(r, 0, sizeof *r);
}

/* The value of a "Key: value" trailer line in a commit message (malloc'd) or NULL. */
static char *trailer(const char *msg, const char *key)
{
    size_t kl = strlen(key);
    for (const char *p = msg; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (strncmp(p, key, kl) == 0 && p[kl] == ':' && p[kl + 1] == ' ') {
            const char *v = p + kl + 2, *e = strchr(v, '\n');
            return strndup(v, e ? (size_t)(e - v) : strlen(v));
        }
    }
    return NULL;
}

static int load_rows(store *s, row **out, int *n, diag_list *d)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st = store_stmt(s, ST_FSCK_NODES, d);
    if (!st) return -1;
    int cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 256;
            row *v = realloc(*out, (size_t)cap * sizeof *v);
            if (!v) break;
            *out = v;
        }
        row *r = &(*out)[(*n)++];
        r->id = sqlite3_column_int64(st, 0);
        store_col_copy(st, 1, r->hash, sizeof r->hash);
        store_col_copy(st, 2, r->commit, sizeof r->commit);
        r->label = store_col_dup(st, 3);
        store_col_copy(st, 4, r->level, sizeof r->level);
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
        for (int i = 0; i < *n; i++) free((*out)[i].label);
        free(*out);
        *out = NULL;
        *n = 0;
        return store_db_fail(s, d, "reading nodes");
    }
    return 0;
}

static int64_t scalar(store *s, store_stmt_id which, int64_t arg, int has_arg, int *found, diag_list *d)
{
    sqlite3_stmt *st = store_stmt(s, which, d);
    *found = -1;
    if (!st) return 0;
    if (has_arg) sqlite3_bind_int64(st, 1, arg);
    int rc = sqlite3_step(st);
    int64_t v = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    *found = rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
    if (*found < 0) store_db_fail(s, d, "reading");
    return v;
}

static int find_row(const row *rows, int n, int64_t id)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (rows[mid].id == id) return mid;
        if (rows[mid].id < id) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

/* The ref for a row is missing or wrong: point it at the row's commit, or at a fresh commit of
 * the row's program when that commit is gone. */
static int repair_ref(store *s, const row *r, diag_list *d)
{
    vcs_commit_info ci;
    if (vcs_has_object(s->git, r->commit) && vcs_commit_read(s->git, r->commit, &ci, d) == 0) {
        int same = strcmp(ci.program, r->hash) == 0;
        vcs_commit_info_clear(&ci);
        if (same) return vcs_ref_set(s->git, r->id, r->commit, d);
    }
    if (!vcs_has_object(s->git, r->hash)) {
        diag_add(d, NULL, 0, 0, "node %lld: its program %.12s is gone from repo.git", (long long)r->id, r->hash);
        return -1;
    }
    size_t len;
    char *text = vcs_blob_read(s->git, r->hash, &len, d);
    if (!text) return -1;
    char *msg = NULL;
    if (asprintf(&msg, "%s (#%lld, %s): restored by fsck\n\nPDG-Node: %lld\nPDG-Label: %s\nPDG-Level: %s\n",
                 r->label, (long long)r->id, r->level, (long long)r->id, r->label, r->level) < 0) {
        free(text);
        return -1;
    }
    vcs_hex commit, blob;
    int rc = vcs_write_node(s->git, text, len, "restored by polyapm fsck\n", NULL, 0, msg, commit, blob, d);
    free(text);
    free(msg);
    if (rc != 0) return -1;
    if (vcs_ref_set(s->git, r->id, commit, d) != 0) return -1;
    sqlite3_stmt *st = store_stmt(s, ST_NODE_SET_COMMIT, d);
    if (!st) return -1;
    sqlite3_bind_int64(st, 1, r->id);
    sqlite3_bind_text(st, 2, commit, -1, SQLITE_TRANSIENT);
    return store_exec_stmt(s, st, d, "updating the commit");
}

/* A ref whose row is gone: recreate the row from the commit (edges come in a second pass). */
static int restore_row(store *s, int64_t id, const vcs_hex commit, diag_list *d)
{
    vcs_commit_info ci;
    if (vcs_commit_read(s->git, commit, &ci, d) != 0) return -1;
    int rc = -1;
    char *label = trailer(ci.message, "PDG-Label"), *level = trailer(ci.message, "PDG-Level");
    char fallback[64];
    snprintf(fallback, sizeof fallback, "restored-%lld", (long long)id);
    sqlite3_stmt *st = store_stmt(s, ST_NODE_BY_LABEL, d);
    if (!st) goto out;
    sqlite3_bind_text(st, 1, label ? label : fallback, -1, SQLITE_TRANSIENT);
    int taken = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_reset(st);
    if (!(st = store_stmt(s, ST_NODE_INSERT, d))) goto out;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, ci.program, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, commit, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, level ? level : "source", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 5, label && !taken ? label : fallback, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 6, ci.time);
    rc = store_exec_stmt(s, st, d, "restoring a node");
out:
    free(label);
    free(level);
    vcs_commit_info_clear(&ci);
    return rc;
}

/* Edges of a restored node from its commit's parents (each parent commit names its node). */
static int restore_edges(store *s, int64_t id, const vcs_hex commit, diag_list *d)
{
    vcs_commit_info ci;
    if (vcs_commit_read(s->git, commit, &ci, d) != 0) return -1;
    for (int i = 0; i < ci.nparents; i++) {
        vcs_commit_info pi;
        if (vcs_commit_read(s->git, ci.parents[i], &pi, d) != 0) continue;
        char *node = trailer(pi.message, "PDG-Node");
        vcs_commit_info_clear(&pi);
        if (!node) continue;
        int64_t parent = strtoll(node, NULL, 10);
        free(node);
        int found;
        scalar(s, ST_NODE_EXISTS, parent, 1, &found, d);
        if (found != 1) continue;
        sqlite3_stmt *st = store_stmt(s, ST_EDGE_EXISTS, d);
        if (!st) break;
        sqlite3_bind_int64(st, 1, parent);
        sqlite3_bind_int64(st, 2, id);
        int exists = sqlite3_step(st) == SQLITE_ROW;
        sqlite3_reset(st);
        if (exists) continue;
        if (!(st = store_stmt(s, ST_EDGE_INSERT, d))) break;
        sqlite3_bind_int64(st, 1, parent);
        sqlite3_bind_int64(st, 2, id);
        sqlite3_bind_text(st, 3, "restored", -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, "", -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, "restored by fsck from the node's commit", -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 6, ci.time);
        if (store_exec_stmt(s, st, d, "restoring an edge") != 0) break;
    }
    vcs_commit_info_clear(&ci);
    return 0;
}

/* One root, no cycle (Kahn's algorithm over the graph in memory). */
static void check_shape(store *s, store_fsck_report *r, diag_list *d)
{
    store_graph g;
    if (store_graph_load(s, &g, d) != 0) { r->problems++; say(r, "cannot load the graph"); return; }
    int roots = 0;
    for (int i = 0; i < g.n; i++) roots += g.nodes[i].nparents == 0;
    if (g.n > 0 && roots != 1) {
        r->problems++;
        say(r, "%d nodes without a parent (a workspace has exactly one root)", roots);
    }
    int *indeg = calloc((size_t)g.n + 1, sizeof *indeg), *queue = malloc(((size_t)g.n + 1) * sizeof *queue);
    int head = 0, tail = 0;
    if (indeg && queue) {
        for (int i = 0; i < g.n; i++) {
            indeg[i] = g.nodes[i].nparents;
            if (!indeg[i]) queue[tail++] = i;
        }
        while (head < tail) {
            store_gnode *x = &g.nodes[queue[head++]];
            for (int c = 0; c < x->nchildren; c++)
                if (--indeg[x->children[c]] == 0) queue[tail++] = x->children[c];
        }
        if (tail < g.n) {
            r->problems++;
            say(r, "the graph has a cycle through %d nodes", g.n - tail);
        }
    }
    free(indeg);
    free(queue);
    store_graph_free(&g);
}

/* Each node's commit should have its parent nodes' commits as parents (edge order).  A
 * difference is left by an interrupted link or rm (the rows are the truth; git's graph is a
 * view of them): reported, not a problem; repair recommits. */
static void check_git_parents(store *s, int repair, store_fsck_report *r, diag_list *d)
{
    store_graph g;
    if (store_graph_load(s, &g, d) != 0) return;
    for (int i = 0; i < g.n; i++) {
        const store_gnode *x = &g.nodes[i];
        vcs_hex ref, pref;
        vcs_commit_info ci;
        if (vcs_ref_get(s->git, x->id, ref, d) != 1 || vcs_commit_read(s->git, ref, &ci, d) != 0) continue;
        int same = ci.nparents == (x->nparents < 16 ? x->nparents : 16);
        for (int p = 0; p < ci.nparents && same; p++)
            same = vcs_ref_get(s->git, g.nodes[x->parents[p]].id, pref, d) == 1 && strcmp(pref, ci.parents[p]) == 0;
        vcs_commit_info_clear(&ci);
        if (same) continue;
        r->leftovers++;
        int fixed = repair && store_rewrite_commits(s, x->id, d) == 0;
        say(r, "node %lld (%s): its commit's parents lag behind its edges (an interrupted link or rm)%s",
            (long long)x->id, x->label, fixed ? "; recommitted" : repair ? "; cannot recommit" : "");
    }
    store_graph_free(&g);
}

/* SQLite's quick_check of pdg.db.  0 = ok (problems are counted in r); -1 with a message. */
static int check_integrity(store *s, store_fsck_report *r, diag_list *d)
{
    sqlite3_stmt *st = store_stmt(s, ST_FSCK_INTEGRITY, d);
    if (!st) return -1;
    if (sqlite3_step(st) == SQLITE_ROW) {
        const char *res = (const char *)sqlite3_column_text(st, 0);
        if (!res || strcmp(res, "ok") != 0) { r->problems++; say(r, "pdg.db: %s", res ? res : "quick_check failed"); }
    } else {
        r->problems++;
        say(r, "pdg.db: %s", sqlite3_errmsg(s->db));
    }
    sqlite3_reset(st);
    return 0;
}

/* Rows against refs: each row's program, ref and commit (repaired with `repair`). */
static void check_rows_refs(store *s, int repair, const row *rows, int nrows, store_fsck_report *out,
                            diag_list *rd)
{
    for (int i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        vcs_hex ref;
        int has = vcs_ref_get(s->git, r->id, ref, rd);
        const char *problem = NULL;
        if (!vcs_has_object(s->git, r->hash)) problem = "its program is missing from repo.git";
        else if (has == 0) problem = "its ref refs/pdg/%lld is missing";
        else if (has < 0) problem = "its ref refs/pdg/%lld cannot be read";
        else {
            vcs_commit_info ci;
            if (vcs_commit_read(s->git, ref, &ci, rd) != 0) {
                problem = "its ref refs/pdg/%lld names no readable commit";
            } else {
                if (strcmp(ci.program, r->hash) != 0) problem = "its ref refs/pdg/%lld names a commit of another program";
                vcs_commit_info_clear(&ci);
            }
        }
        if (!problem) continue;
        out->problems++;
        char what[160];
        snprintf(what, sizeof what, problem, (long long)r->id);
        if (repair && repair_ref(s, r, rd) == 0) {
            out->repaired++;
            say(out, "node %lld (%s): %s; repaired", (long long)r->id, r->label, what);
        } else {
            say(out, "node %lld (%s): %s%s", (long long)r->id, r->label, what, repair ? "; cannot repair" : "");
        }
    }
}

/* Refs against rows: leftovers of interrupted adds and of rm (ids past `seq` or removed), or
 * rows removed by hand (restored from their commits with `repair`).  0 = ok; -1 with a message. */
static int check_refs_rows(store *s, int repair, const row *rows, int nrows, const int64_t *ids,
                           const vcs_hex *commits, int nrefs, int64_t seq, store_fsck_report *out,
                           diag_list *d, diag_list *rd)
{
    int found;
    int *restored = calloc((size_t)nrefs + 1, sizeof *restored);
    if (!restored) { diag_add(d, NULL, 0, 0, "out of memory"); return -1; }
    for (int i = 0; i < nrefs; i++) {
        if (find_row(rows, nrows, ids[i]) >= 0) continue;
        scalar(s, ST_REMOVED_GET, ids[i], 1, &found, d);
        if (found < 0) { free(restored); return -1; }
        if (found == 1 || ids[i] > seq) {
            out->leftovers++;
            say(out, "refs/pdg/%lld: left by an interrupted %s (never acknowledged)%s", (long long)ids[i],
                found == 1 ? "rm" : "add", repair ? "; removed" : "");
            if (repair) vcs_ref_delete(s->git, ids[i], rd);
            continue;
        }
        out->problems++;
        if (repair && restore_row(s, ids[i], commits[i], rd) == 0) {
            restored[i] = 1;
            out->repaired++;
            say(out, "refs/pdg/%lld: the node's row is missing; restored from commit %.12s", (long long)ids[i], commits[i]);
        } else {
            say(out, "refs/pdg/%lld: the node's row is missing from pdg.db%s", (long long)ids[i],
                repair ? "; cannot restore" : "");
        }
    }
    for (int i = 0; i < nrefs; i++)
        if (restored[i]) restore_edges(s, ids[i], commits[i], rd);
    free(restored);
    return 0;
}

/* Rows that name missing nodes (possible after deleting rows with foreign keys off): edges, then
 * the other tables' rows (deleted with `repair`).  0 = ok; -1 with a message. */
static int check_dangling(store *s, int repair, store_fsck_report *out, diag_list *d)
{
    sqlite3_stmt *st;
    if (!(st = store_stmt(s, ST_FSCK_DANGLING_EDGES, d))) return -1;
    int dangling = 0;
    while (sqlite3_step(st) == SQLITE_ROW) dangling++;
    sqlite3_reset(st);
    if (dangling) {
        out->problems++;
        if (repair && (st = store_stmt(s, ST_FSCK_DELETE_DANGLING, d)) && store_exec_stmt(s, st, d, "deleting edges") == 0) {
            out->repaired++;
            say(out, "%d edges named missing nodes; deleted", dangling);
        } else {
            say(out, "%d edges name missing nodes", dangling);
        }
    }
    if (!(st = store_stmt(s, ST_FSCK_DANGLING_ROWS, d))) return -1;
    int dangling_rows = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int c = sqlite3_column_int(st, 0 + 1);
        if (c) {
            dangling_rows += c;
            say(out, "%d %s rows name missing nodes%s", c, (const char *)sqlite3_column_text(st, 0),
                repair ? "; deleted" : "");
        }
    }
    sqlite3_reset(st);
    if (dangling_rows) {
        out->problems++;
        if (repair) {
            static const store_stmt_id del[] = {ST_FSCK_DELETE_DANGLING_ROWS, ST_FSCK_DELETE_DANGLING_MARKS,
                                                ST_FSCK_DELETE_DANGLING_MEAS};
            int ok = 1;
            for (size_t k = 0; ok && k < sizeof del / sizeof del[0]; k++)
                ok = (st = store_stmt(s, del[k], d)) && store_exec_stmt(s, st, d, "deleting rows") == 0;
            if (ok) out->repaired++;
        }
    }
    return 0;
}

int store_fsck(store *s, int repair, own_give store_fsck_report *out, diag_list *d)
{
    memset(out, 0, sizeof *out);
    if (!store_git(s, d)) return -1;
    if (repair) {
        if (store_begin(s, d) != 0) return -1;
    } else if (store_snapshot_begin(s, d) != 0) {
        return -1;
    }
    row *rows = NULL;
    int nrows = 0, nrefs = 0, rc = -1, found;
    int64_t *ids = NULL;
    vcs_hex *commits = NULL;
    diag_list rd;
    diag_list_init(&rd);

    if (check_integrity(s, out, d) != 0) goto out;
    if (load_rows(s, &rows, &nrows, d) != 0) goto out;
    if (vcs_ref_list(s->git, &ids, &commits, &nrefs, d) != 0) goto out;
    out->nodes = nrows;
    out->refs = nrefs;
    int64_t seq = scalar(s, ST_SEQ, 0, 0, &found, d);
    if (found < 0) goto out;
    check_rows_refs(s, repair, rows, nrows, out, &rd);
    if (check_refs_rows(s, repair, rows, nrows, ids, commits, nrefs, seq, out, d, &rd) != 0) goto out;
    if (check_dangling(s, repair, out, d) != 0) goto out;
    check_git_parents(s, repair, out, &rd);
    check_shape(s, out, d);
    rc = 0;
out:
    if (rc == 0 && repair) {
        if (store_commit(s, d) != 0) rc = -1;
    } else if (repair) {
        store_rollback(s);
    } else {
        store_snapshot_end(s);
    }
    for (int i = 0; i < nrows; i++) free(rows[i].label);
    free(rows);
    free(ids);
    free(commits);
    diag_list_free(&rd);
    if (rc != 0) store_fsck_report_clear(out);
    return rc;
}
