/*
 * test_store.c — unit tests of the workspace (store/): creating and opening, adding nodes with
 * dedup and cycles refused, resolving the NODE syntax, marks and notes, lineage, simulations,
 * rm, fsck and its repairs, bad workspaces.  Programs are plain strings (the store does not
 * parse); the git side is inspected through the vcs_* calls and sqlite3 directly.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store.h"
#include "t.h"

static char tmpdir[] = "/tmp/test_store.XXXXXX";

static char *prog(const char *name, int variant)
{
    char *t = NULL;
    if (asprintf(&t, "program %s\nlevel source\nparam n = %d\n", name, variant) < 0) abort();
    return t;
}

static int64_t add(store *s, const char *text, const int64_t *parents, int np, const char *label,
                   int *created, diag_list *d)
{
    store_add_req r = {.text = text, .len = strlen(text), .level = "source", .parents = parents,
                       .nparents = np, .label = label, .label_hint = "n", .why = "because"};
    int64_t id = -1;
    if (store_node_add(s, &r, &id, created, d) != 0) return -1;
    return id;
}

static int64_t resolve(store *s, const char *spec)
{
    diag_list d;
    diag_list_init(&d);
    int64_t id = -1;
    if (store_resolve(s, spec, &id, &d) != 0) id = -1;
    diag_list_free(&d);
    return id;
}

static int fsck_problems(store *s, int repair, int *leftovers)
{
    diag_list d;
    diag_list_init(&d);
    store_fsck_report r;
    int p = store_fsck(s, repair, &r, &d) == 0 ? r.problems - r.repaired : -1;
    if (leftovers) *leftovers = r.leftovers;
    if (p != 0 && getenv("VERBOSE"))
        for (int i = 0; i < r.nlines; i++) fprintf(stderr, "fsck: %s\n", r.lines[i]);
    if (p >= 0) store_fsck_report_clear(&r);
    diag_list_free(&d);
    return p;
}

static int sql_int(const char *db, const char *sql)
{
    sqlite3 *h;
    sqlite3_stmt *st;
    int v = -1;
    if (sqlite3_open(db, &h) != SQLITE_OK) return -1;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(h);
    return v;
}

/* 1 when s is well-formed UTF-8 (no sequence cut short). */
static int utf8_ok(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int n = *p < 0x80 ? 1 : (*p & 0xE0) == 0xC0 ? 2 : (*p & 0xF0) == 0xE0 ? 3 : (*p & 0xF8) == 0xF0 ? 4 : 0;
        if (!n) return 0;
        for (int k = 1; k < n; k++)
            if ((p[k] & 0xC0) != 0x80) return 0;
        p += n;
    }
    return 1;
}

int main(void)
{
    if (!mkdtemp(tmpdir)) { perror("mkdtemp"); return 1; }
    char ws[256], dbpath[300];
    snprintf(ws, sizeof ws, "%s/t.pdg", tmpdir);
    snprintf(dbpath, sizeof dbpath, "%s/pdg.db", ws);
    diag_list d;
    diag_list_init(&d);
    store *s = NULL;

    T_EQ_INT("store.create", store_create(ws, &s, &d), 0);
    if (!s) { diag_print(&d, stderr); return 1; }
    T_EQ_INT("store.schema_version", store_schema_version(s), STORE_SCHEMA_VERSION);
    T_CHECK("store.is_workspace", store_is_workspace(ws), "not a workspace");
    store *again = NULL;
    T_EQ_INT("store.create_existing_fails", store_create(ws, &again, &d), -1);
    diag_list_free(&d);

    char *ta = prog("a", 1), *tb = prog("b", 2), *tc = prog("c", 3), *td = prog("d", 4);
    int created = -1;
    int64_t root = add(s, ta, NULL, 0, "root", &created, &d);
    T_EQ_INT("add.root", root, 1);
    T_EQ_INT("add.root_created", created, 1);
    T_EQ_INT("add.second_root_refused", add(s, tb, NULL, 0, NULL, NULL, &d), -1);
    diag_list_free(&d);
    int64_t b = add(s, tb, &root, 1, "b", &created, &d);
    int64_t c = add(s, tc, &root, 1, NULL, &created, &d);
    int64_t dd = add(s, td, &b, 1, "dd", &created, &d);
    T_CHECK("add.ids", b == 2 && c == 3 && dd == 4, "b=%lld c=%lld d=%lld", (long long)b, (long long)c, (long long)dd);
    store_node n;
    T_EQ_INT("node.get", store_node_get(s, c, &n, &d), 0);
    T_EQ_STR("label.derived_from_hint", n.label, "n");
    vcs_hex expect;
    vcs_hash_text(tc, strlen(tc), expect);
    T_EQ_STR("node.hash_is_blob_id", n.hash, expect);
    store_node_clear(&n);

    /* Dedup: the same text under another parent links the existing node. */
    int64_t again_id = add(s, td, &c, 1, NULL, &created, &d);
    T_EQ_INT("dedup.same_id", again_id, dd);
    T_EQ_INT("dedup.not_created", created, 0);
    store_edge *e;
    int ne;
    store_parents(s, dd, &e, &ne, &d);
    T_EQ_INT("dedup.two_parents", ne, 2);
    T_CHECK("dedup.parent_order", ne == 2 && e[0].parent == b && e[1].parent == c, "parents wrong");
    T_EQ_STR("edge.why", ne ? e[0].why : NULL, "because");
    store_edges_free(e, ne);
    vcs_hex ref;
    T_EQ_INT("dedup.ref", vcs_ref_get(store_vcs(s), dd, ref, &d), 1);
    vcs_commit_info ci;
    T_EQ_INT("dedup.commit_read", vcs_commit_read(store_vcs(s), ref, &ci, &d), 0);
    T_EQ_INT("dedup.commit_two_parents", ci.nparents, 2);
    vcs_hash_text(td, strlen(td), expect);
    T_EQ_STR("dedup.commit_program", ci.program, expect);
    T_CHECK("commit.trailer", ci.message && strstr(ci.message, "PDG-Node: 4\n"), "message: %s", ci.message);
    vcs_commit_info_clear(&ci);
    T_EQ_INT("dedup.same_parent_again_noop", add(s, td, &c, 1, NULL, &created, &d), dd);
    T_EQ_INT("nodes.count", sql_int(dbpath, "select count(*) from nodes"), 4);
    T_EQ_INT("edges.count", sql_int(dbpath, "select count(*) from edges"), 4);

    /* Cycles and self-parents are refused; labels are unique. */
    T_EQ_INT("cycle.refused", add(s, ta, &dd, 1, NULL, NULL, &d), -1);
    T_EQ_INT("self.refused", add(s, td, &dd, 1, NULL, NULL, &d), -1);
    char *te = prog("e", 5);
    T_EQ_INT("label.taken", add(s, te, &root, 1, "b", NULL, &d), -1);
    T_EQ_INT("label.digits", add(s, te, &root, 1, "123", NULL, &d), -1);
    T_EQ_INT("label.blank", add(s, te, &root, 1, "a b", NULL, &d), -1);
    T_EQ_INT("nodes.count_after_refusals", sql_int(dbpath, "select count(*) from nodes"), 4);
    diag_list_free(&d);

    /* Resolving. */
    T_EQ_INT("resolve.ROOT", resolve(s, "ROOT"), root);
    T_EQ_INT("resolve.id", resolve(s, "3"), c);
    T_EQ_INT("resolve.label", resolve(s, "dd"), dd);
    T_EQ_INT("resolve.parent", resolve(s, "dd^"), b);
    T_EQ_INT("resolve.grandparent", resolve(s, "4^^"), root);
    T_EQ_INT("resolve.root_parent", resolve(s, "ROOT^"), -1);
    char pfx[8];
    vcs_hash_text(tc, strlen(tc), expect);
    snprintf(pfx, sizeof pfx, "%.5s", expect);
    T_EQ_INT("resolve.prefix", resolve(s, pfx), c);
    for (char *p = pfx; *p; p++) if (*p >= 'a') *p = (char)(*p - 32);
    T_EQ_INT("resolve.prefix_upper", resolve(s, pfx), c);
    snprintf(pfx, sizeof pfx, "%.3s", expect);
    T_EQ_INT("resolve.prefix_too_short", resolve(s, pfx), -1);
    T_EQ_INT("resolve.unknown", resolve(s, "nosuch"), -1);
    T_EQ_INT("resolve.unknown_id", resolve(s, "99"), -1);
    /* An ambiguous prefix: find two texts whose hashes share 4 hex digits. */
    {
        enum { N = 2000 };
        static vcs_hex h[N];
        int i1 = -1, i2 = -1;
        for (int i = 0; i < N && i1 < 0; i++) {
            char *t = prog("amb", 1000 + i);
            vcs_hash_text(t, strlen(t), h[i]);
            free(t);
            for (int j = 0; j < i; j++)
                if (strncmp(h[i], h[j], 4) == 0) { i1 = j; i2 = i; break; }
        }
        T_CHECK("ambiguous.found_pair", i1 >= 0, "no pair");
        if (i1 >= 0) {
            char *t1 = prog("amb", 1000 + i1), *t2 = prog("amb", 1000 + i2);
            add(s, t1, &root, 1, NULL, NULL, &d);
            add(s, t2, &root, 1, NULL, NULL, &d);
            snprintf(pfx, sizeof pfx, "%.4s", h[i1]);
            diag_list_init(&d);
            int64_t id;
            T_EQ_INT("resolve.ambiguous", store_resolve(s, pfx, &id, &d), -1);
            T_CHECK("resolve.ambiguous_message", d.n == 1 && strstr(d.items[0].msg, "ambiguous"),
                    "%s", d.n ? d.items[0].msg : "(none)");
            diag_list_free(&d);
            free(t1);
            free(t2);
        }
    }

    /* Lineage follows first parents. */
    int64_t *line;
    int nl;
    T_EQ_INT("lineage.ok", store_lineage(s, dd, &line, &nl, &d), 0);
    T_CHECK("lineage.path", nl == 3 && line[0] == root && line[1] == b && line[2] == dd, "n=%d", nl);
    free(line);
    store_step *path;
    int np;
    T_EQ_INT("path.ok", store_path(s, dd, &path, &np, &d), 0);
    T_CHECK("path.steps", np == 3 && path[0].node.id == root && !path[0].edge.transform &&
            path[1].node.id == b && path[2].edge.parent == b && path[2].nparents == 2 &&
            strcmp(path[2].edge.why, "because") == 0 && strcmp(path[2].node.label, "dd") == 0, "n=%d", np);
    store_path_free(path, np);
    T_EQ_INT("path.unknown", store_path(s, 99, &path, &np, &d), -1);
    diag_list_free(&d);

    /* Marks and notes. */
    T_EQ_INT("mark.favourite", store_mark(s, c, STORE_MARK_FAVOURITE, &d), 0);
    T_EQ_INT("note.set", store_note(s, c, "try procs=8", &d), 0);
    T_EQ_INT("mark.unknown_node", store_mark(s, 99, STORE_MARK_PRUNED, &d), -1);
    store_node_get(s, c, &n, &d);
    T_CHECK("mark.read", n.favourite == 1 && n.pruned == 0 && n.note && strcmp(n.note, "try procs=8") == 0,
            "fav=%d note=%s", n.favourite, n.note ? n.note : "(null)");
    store_node_clear(&n);
    T_EQ_INT("mark.pruned", store_mark(s, c, STORE_MARK_PRUNED, &d), 0);
    store_node_get(s, c, &n, &d);
    T_CHECK("mark.replaces", n.favourite == 0 && n.pruned == 1, "fav=%d pruned=%d", n.favourite, n.pruned);
    store_node_clear(&n);
    T_EQ_INT("label.rename", store_label(s, c, "cee", &d), 0);
    T_EQ_INT("label.rename_taken", store_label(s, c, "b", &d), -1);
    T_EQ_INT("resolve.renamed", resolve(s, "cee"), c);
    diag_list_free(&d);

    /* Simulations: put, find by key, replace, list. */
    store_sim key = {.node = dd, .machine = "scali2004", .machine_text = "tick_seconds 1e-9\n",
                     .model = "polyapm", .params = "n=4"};
    store_sim got;
    T_EQ_INT("sim.find_none", store_sim_find(s, &key, &got, &d), 0);
    store_sim put = key;
    put.total = 1234.5;
    put.verified = 1;
    put.checksum = 0xdeadbeefcafeULL;
    put.nprocs = 4;
    put.nsteps = 21;
    put.per_proc = "{\"work\":[1,2,3,4]}";
    put.trace = "{\"step_cost\":[1,2]}";
    put.report_text = "cost 1234.5\n";
    put.report_json = "{\"cost\":1234.5}";
    int64_t sid1, sid2;
    T_EQ_INT("sim.put", store_sim_put(s, &put, &sid1, &d), 0);
    T_EQ_INT("sim.find", store_sim_find(s, &key, &got, &d), 1);
    T_CHECK("sim.values", got.total == 1234.5 && got.verified == 1 && got.checksum == 0xdeadbeefcafeULL &&
            strcmp(got.report_text, "cost 1234.5\n") == 0 && got.nprocs == 4, "total=%g", got.total);
    store_sim_clear(&got);
    key.machine_text = "tick_seconds 2e-9\n";
    T_EQ_INT("sim.other_profile_text_misses", store_sim_find(s, &key, &got, &d), 0);
    key.machine_text = put.machine_text;
    put.total = 999;
    T_EQ_INT("sim.replace", store_sim_put(s, &put, &sid2, &d), 0);
    T_EQ_INT("sim.replace_same_row", sid2, sid1);
    T_EQ_INT("sim.one_row", sql_int(dbpath, "select count(*) from simulations"), 1);
    put.node = 99;
    T_EQ_INT("sim.unknown_node", store_sim_put(s, &put, NULL, &d), -1);
    store_sim *list;
    int nsims;
    T_EQ_INT("sim.list", store_sim_list(s, dd, &list, &nsims, &d), 0);
    T_CHECK("sim.list_one", nsims == 1 && list[0].total == 999, "n=%d", nsims);
    for (int i = 0; i < nsims; i++) store_sim_clear(&list[i]);
    free(list);
    T_EQ_INT("machine.put_a", store_machine_put(s, "local", "tick_seconds 1\n", &d), 0);
    T_EQ_INT("machine.put_b", store_machine_put(s, "local", "tick_seconds 2\n", &d), 0);
    char *mt = store_machine_get(s, "local", &d);
    T_EQ_STR("machine.latest", mt, "tick_seconds 2\n");
    free(mt);
    T_EQ_INT("machine.put_a_again", store_machine_put(s, "local", "tick_seconds 1\n", &d), 0);
    mt = store_machine_get(s, "local", &d);
    T_EQ_STR("machine.latest_again", mt, "tick_seconds 1\n");
    free(mt);
    mt = store_machine_get(s, "nosuch", &d);
    T_CHECK("machine.none", mt == NULL, "got %s", mt);
    store_measurement m = {.node = dd, .ranks = 4, .runner = "mpirun", .seconds = 0.5, .host = "here"};
    T_EQ_INT("measurement.add", store_measurement_add(s, &m, NULL, &d), 0);
    diag_list_free(&d);

    /* The graph in memory. */
    store_graph g;
    T_EQ_INT("graph.load", store_graph_load(s, &g, &d), 0);
    T_EQ_INT("graph.n", g.n, 6);
    T_EQ_INT("graph.root", g.root >= 0 ? g.nodes[g.root].id : -1, root);
    int gi = store_graph_index(&g, dd);
    T_CHECK("graph.sim_summary", gi >= 0 && g.nodes[gi].nsims == 1 && g.nodes[gi].best_total == 999 &&
            g.nodes[gi].verified == 1 && g.nodes[gi].nparents == 2, "bad gnode");
    store_graph_free(&g);

    /* Diff. */
    char *df = vcs_diff_text(tb, strlen(tb), "b.apm", tc, strlen(tc), "c.apm", 3, &d);
    T_CHECK("diff.unified", df && strstr(df, "-program b\n") && strstr(df, "+program c\n") && strstr(df, "@@"),
            "%s", df ? df : "(null)");
    free(df);
    df = vcs_diff_text(tb, strlen(tb), "b", tb, strlen(tb), "b", 3, &d);
    T_EQ_STR("diff.equal_empty", df, "");
    free(df);

    /* fsck: consistent, then damage and repair. */
    T_EQ_INT("fsck.clean", fsck_problems(s, 0, NULL), 0);
    vcs_ref_delete(store_vcs(s), c, &d);
    T_EQ_INT("fsck.missing_ref", fsck_problems(s, 0, NULL), 1);
    T_EQ_INT("fsck.repair_ref", fsck_problems(s, 1, NULL), 0);
    T_EQ_INT("fsck.ref_back", vcs_ref_get(store_vcs(s), c, ref, &d), 1);
    T_EQ_INT("fsck.clean_after_ref", fsck_problems(s, 0, NULL), 0);
    int left = 0;
    vcs_ref_set(store_vcs(s), 77, ref, &d);
    T_EQ_INT("fsck.leftover_not_problem", fsck_problems(s, 0, &left), 0);
    T_EQ_INT("fsck.leftover_counted", left, 1);
    fsck_problems(s, 1, NULL);
    T_EQ_INT("fsck.leftover_removed", vcs_ref_get(store_vcs(s), 77, ref, &d), 0);
    /* A row deleted by hand (sqlite3 without foreign keys): restored from the commit. */
    T_EQ_INT("handdelete.row", sql_int(dbpath, "delete from nodes where id = 4 returning id"), 4);
    T_EQ_INT("fsck.missing_row", fsck_problems(s, 0, NULL) > 0, 1);
    T_EQ_INT("fsck.repair_row", fsck_problems(s, 1, NULL), 0);
    store_node_get(s, dd, &n, &d);
    T_EQ_STR("fsck.restored_label", n.label, "dd");
    store_node_clear(&n);
    store_parents(s, dd, &e, &ne, &d);
    T_EQ_INT("fsck.restored_parents", ne, 2);
    store_edges_free(e, ne);
    T_EQ_INT("fsck.clean_after_row", fsck_problems(s, 0, NULL), 0);
    diag_list_free(&d);

    /* rm: a subtree; a node with another parent stays. */
    int64_t *gone;
    int ngone;
    T_EQ_INT("rm.root_refused", store_rm(s, root, 0, &gone, &ngone, &d), -1);
    int64_t f = add(s, te, &b, 1, "f", NULL, &d);
    T_EQ_INT("rm.dry_run", store_rm(s, b, 1, &gone, &ngone, &d), 0);
    T_EQ_INT("rm.dry_run_count", ngone, 2);
    free(gone);
    T_EQ_INT("rm.dry_run_kept", sql_int(dbpath, "select count(*) from nodes"), 7);
    T_EQ_INT("rm.ok", store_rm(s, b, 0, &gone, &ngone, &d), 0);
    T_CHECK("rm.removed", ngone == 2 && gone[0] == b && gone[1] == f, "n=%d", ngone);
    free(gone);
    T_EQ_INT("rm.dd_stays", resolve(s, "dd"), dd);
    store_parents(s, dd, &e, &ne, &d);
    T_EQ_INT("rm.dd_one_parent", ne, 1);
    store_edges_free(e, ne);
    T_EQ_INT("rm.ref_gone", vcs_ref_get(store_vcs(s), b, ref, &d), 0);
    vcs_ref_get(store_vcs(s), dd, ref, &d);
    vcs_commit_read(store_vcs(s), ref, &ci, &d);
    T_EQ_INT("rm.survivor_recommitted", ci.nparents, 1);
    vcs_commit_info_clear(&ci);
    T_EQ_INT("rm.fsck_clean", fsck_problems(s, 0, NULL), 0);
    char *tg = prog("g", 7), *th = prog("h", 8);
    int64_t g2 = add(s, tg, &root, 1, NULL, NULL, &d);
    T_CHECK("rm.ids_not_reused", g2 > f, "g=%lld f=%lld", (long long)g2, (long long)f);
    diag_list_free(&d);
    store_close(s);

    /* Read-only open refuses writes; bad workspaces are refused. */
    T_EQ_INT("open.read", store_open(ws, STORE_READ, &s, &d), 0);
    T_EQ_INT("open.read_refuses_add", add(s, th, &root, 1, NULL, NULL, &d), -1);
    store_close(s);
    chmod(dbpath, 0444);
    T_EQ_INT("open.readonly_file", store_open(ws, STORE_WRITE, &s, &d), -1);
    chmod(dbpath, 0644);
    char other[300];
    snprintf(other, sizeof other, "%s/foreign", tmpdir);
    mkdir(other, 0777);
    T_EQ_INT("open.foreign", store_open(other, STORE_WRITE, &s, &d), -1);
    snprintf(other, sizeof other, "%s/missing.pdg", tmpdir);
    T_EQ_INT("open.missing", store_open(other, STORE_READ, &s, &d), -1);
    snprintf(other, sizeof other, "%s/bad.pdg", tmpdir);
    mkdir(other, 0777);
    char p2[400];
    snprintf(p2, sizeof p2, "%s/repo.git", other);
    mkdir(p2, 0777);
    snprintf(p2, sizeof p2, "%s/pdg.db", other);
    FILE *fp = fopen(p2, "w");
    fputs("this is not a database, it is a text file that is long enough to have a header.....\n", fp);
    fclose(fp);
    T_EQ_INT("open.corrupted", store_open(other, STORE_READ, &s, &d), -1);
    T_CHECK("open.corrupted_message", d.n > 0 && strstr(d.items[d.n - 1].msg, "corrupted"), "%s",
            d.n ? d.items[d.n - 1].msg : "");
    diag_list_free(&d);

    /* Migrations: a schema-0 workspace (what a release before the first schema would leave) is
     * refused read-only and migrated when opened for writing. */
    {
        char old[300], oldrepo[400], olddb[400];
        snprintf(old, sizeof old, "%s/old.pdg", tmpdir);
        snprintf(oldrepo, sizeof oldrepo, "%s/repo.git", old);
        snprintf(olddb, sizeof olddb, "%s/pdg.db", old);
        mkdir(old, 0777);
        vcs *v = NULL;
        vcs_create(oldrepo, &v, &d);
        vcs_close(v);
        sqlite3 *h;
        sqlite3_open(olddb, &h);
        sqlite3_exec(h, "PRAGMA application_id = 1346651953; PRAGMA journal_mode = WAL;", NULL, NULL, NULL);
        sqlite3_close(h);
        T_EQ_INT("migrate.read_refused", store_open(old, STORE_READ, &s, &d), -1);
        T_CHECK("migrate.read_message", d.n && strstr(d.items[d.n - 1].msg, "needs migrating"), "%s",
                d.n ? d.items[d.n - 1].msg : "");
        T_EQ_INT("migrate.write", store_open(old, STORE_WRITE, &s, &d), 0);
        if (s) {
            T_EQ_INT("migrate.version", store_schema_version(s), STORE_SCHEMA_VERSION);
            store_close(s);
        }
        T_EQ_INT("migrate.tables", sql_int(olddb, "select count(*) from sqlite_master where type = 'table'"
                                                  " and name in ('nodes','edges','simulations','machines',"
                                                  "'measurements','marks','removed','meta')"), 8);
        diag_list_free(&d);
    }

    {   /* a long decision cut to the label's size never splits θ or σ (tree --json reads it as
         * text): every byte offset of the cut, by a longer first value; a workspace of its own */
        char lws[300];
        snprintf(lws, sizeof lws, "%s/labels.pdg", tmpdir);
        store *ls = NULL;
        int bad = 0;
        char *lroot = prog("cut", 99);
        int64_t lr = -1;
        store_add_req r0 = {.text = lroot, .len = strlen(lroot), .level = "source", .label = "root", .why = "root"};
        if (store_create(lws, &ls, &d) != 0 || store_node_add(ls, &r0, &lr, NULL, &d) != 0) bad = 100;
        for (int pad = 0; pad < 24 && !bad; pad++) {
            char params[1024], *tx = prog("cut", 100 + pad);
            int o = snprintf(params, sizeof params, "theta=%.*s0", pad, "xxxxxxxxxxxxxxxxxxxxxxxx");
            for (int k = 1; k <= 20; k++) o += snprintf(params + o, sizeof params - (size_t)o, " theta.S%d=0 sigma.S%d=t", k, k);
            store_add_req r = {.text = tx, .len = strlen(tx), .level = "syn", .parents = &lr, .nparents = 1,
                               .transform = "stm", .params = params, .why = "a long mapping"};
            int64_t id = -1;
            store_node cn;
            memset(&cn, 0, sizeof cn);
            if (store_node_add(ls, &r, &id, NULL, &d) != 0 || store_node_get(ls, id, &cn, &d) != 0) bad++;
            else if (!utf8_ok(cn.label) || !strstr(cn.label, "\u03c3")) bad++;
            store_node_clear(&cn);
            free(tx);
        }
        T_EQ_INT("label.cut_is_utf8", bad, 0);
        if (ls) store_close(ls);
        free(lroot);
        diag_list_free(&d);
    }

    free(ta); free(tb); free(tc); free(td); free(te); free(tg); free(th);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", tmpdir);
    return t_done();
}
