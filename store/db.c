/*
 * db.c — the workspace's SQLite side: creating and opening NAME.pdg/, the schema and its
 * migrations, the table of prepared statements every store file uses, transactions, and finding
 * the workspace from the current directory.  See store.h.
 *
 * Connection settings: WAL journal, foreign keys on, synchronous=NORMAL (durable against a killed
 * process; a power cut may lose the last transactions), a 30 s busy timeout so that concurrent
 * writers queue instead of failing.
 */
#include "store_int.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { APPLICATION_ID = 0x50444731 /* "PDG1" */, BUSY_TIMEOUT_MS = 30000 };

/* ---- schema and migrations ------------------------------------------------------------------ */

/* migrations[i] takes the schema from version i to i+1.  Never edit a released entry: add one. */
static const char *const migrations[] = {
    /* 0 -> 1: the first release */
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);\n"
    "CREATE TABLE nodes(\n"
    "  id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
    "  hash TEXT NOT NULL UNIQUE CHECK(length(hash) = 40),   -- git blob id of program.apm\n"
    "  commit_id TEXT NOT NULL CHECK(length(commit_id) = 40),\n"
    "  level TEXT NOT NULL,\n"
    "  label TEXT NOT NULL UNIQUE,\n"
    "  created INTEGER NOT NULL);\n"
    "CREATE TABLE edges(\n"
    "  parent INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,\n"
    "  child INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,\n"
    "  transform TEXT NOT NULL,\n"
    "  params TEXT NOT NULL DEFAULT '',\n"
    "  why TEXT NOT NULL DEFAULT '',\n"
    "  created INTEGER NOT NULL,\n"
    "  UNIQUE(parent, child), CHECK(parent <> child));\n"
    "CREATE INDEX edges_child ON edges(child);\n"
    "CREATE TABLE machines(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  name TEXT NOT NULL,\n"
    "  hash TEXT NOT NULL,                -- git blob id of the profile text\n"
    "  text TEXT NOT NULL,\n"
    "  created INTEGER NOT NULL,\n"
    "  UNIQUE(name, hash));\n"
    "CREATE TABLE simulations(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  node INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,\n"
    "  machine INTEGER NOT NULL REFERENCES machines(id),\n"
    "  model TEXT NOT NULL,\n"
    "  params TEXT NOT NULL,              -- final parameter values, n=256,steps=21\n"
    "  total REAL NOT NULL,               -- ticks\n"
    "  seconds REAL NOT NULL,             -- total * tick_seconds\n"
    "  aggregate_work REAL NOT NULL,\n"
    "  verified INTEGER NOT NULL CHECK(verified IN (-1, 0, 1)),\n"
    "  checksum TEXT NOT NULL,\n"
    "  nprocs INTEGER NOT NULL,\n"
    "  nsteps INTEGER NOT NULL,\n"
    "  violations INTEGER NOT NULL,\n"
    "  per_proc TEXT NOT NULL,            -- JSON: work, comm, sends, recvs per processor\n"
    "  trace TEXT NOT NULL,               -- JSON: per-step cost and work\n"
    "  report_text TEXT NOT NULL,\n"
    "  report_json TEXT NOT NULL,\n"
    "  sim_seconds REAL NOT NULL,\n"
    "  created INTEGER NOT NULL,\n"
    "  UNIQUE(node, machine, model, params));\n"
    "CREATE TABLE measurements(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  node INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,\n"
    "  ranks INTEGER NOT NULL,\n"
    "  runner TEXT NOT NULL CHECK(runner IN ('mpirun', 'smpirun')),\n"
    "  platform TEXT,\n"
    "  params TEXT NOT NULL DEFAULT '',\n"
    "  seconds REAL NOT NULL,\n"
    "  host TEXT NOT NULL,\n"
    "  created INTEGER NOT NULL);\n"
    "CREATE INDEX measurements_node ON measurements(node);\n"
    "CREATE TABLE marks(\n"
    "  node INTEGER PRIMARY KEY REFERENCES nodes(id) ON DELETE CASCADE,\n"
    "  pruned INTEGER NOT NULL DEFAULT 0,\n"
    "  favourite INTEGER NOT NULL DEFAULT 0,\n"
    "  note TEXT);\n"
    "CREATE TABLE removed(                -- ids taken by `rm`, so fsck knows their refs are stale\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  hash TEXT NOT NULL,\n"
    "  removed INTEGER NOT NULL);\n",
    /* 1 -> 2: `explore` marks the nodes whose candidates it has all tried (with a signature of
     * the candidate set; 0 = never) */
    "ALTER TABLE marks ADD COLUMN explored INTEGER NOT NULL DEFAULT 0;\n",
};
enum { NMIGRATIONS = sizeof migrations / sizeof migrations[0] };
_Static_assert((int)NMIGRATIONS == (int)STORE_SCHEMA_VERSION, "one migration per schema version");

/* ---- the statement table -------------------------------------------------------------------- */

static const struct { store_stmt_id id; const char *sql; } statements[] = {
    {ST_BEGIN, "BEGIN IMMEDIATE"},
    {ST_COMMIT, "COMMIT"},
    {ST_ROLLBACK, "ROLLBACK"},
    {ST_NODE_BY_HASH, "SELECT id FROM nodes WHERE hash = ?1"},
    {ST_NODE_GET,
     "SELECT n.id, n.hash, n.commit_id, n.level, n.label, n.created, coalesce(m.pruned, 0),"
     " coalesce(m.favourite, 0), m.note, coalesce(m.explored, 0)"
     " FROM nodes n LEFT JOIN marks m ON m.node = n.id WHERE n.id = ?1"},
    {ST_NODE_INSERT,
     "INSERT INTO nodes(id, hash, commit_id, level, label, created) VALUES(?1, ?2, ?3, ?4, ?5, ?6)"},
    {ST_NEXT_ID,
     "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'nodes'), 0),"
     " coalesce((SELECT max(id) FROM nodes), 0), coalesce((SELECT max(id) FROM removed), 0)) + 1"},
    {ST_NODE_SET_COMMIT, "UPDATE nodes SET commit_id = ?2 WHERE id = ?1"},
    {ST_NODE_BY_LABEL, "SELECT id FROM nodes WHERE label = ?1"},
    {ST_NODE_SET_LABEL, "UPDATE nodes SET label = ?2 WHERE id = ?1"},
    {ST_NODE_DELETE, "DELETE FROM nodes WHERE id = ?1"},
    {ST_NODE_EXISTS, "SELECT 1 FROM nodes WHERE id = ?1"},
    {ST_PREFIX, "SELECT id, hash FROM nodes WHERE hash >= ?1 AND hash < ?1 || 'g' ORDER BY hash LIMIT 4"},
    {ST_ROOT,
     "SELECT id FROM nodes WHERE NOT EXISTS (SELECT 1 FROM edges WHERE child = nodes.id)"
     " ORDER BY id LIMIT 2"},
    {ST_IS_DESCENDANT,
     "WITH RECURSIVE d(id) AS (SELECT ?1 UNION SELECT e.child FROM edges e JOIN d ON e.parent = d.id)"
     " SELECT 1 FROM d WHERE id = ?2 LIMIT 1"},
    {ST_EDGE_INSERT,
     "INSERT INTO edges(parent, child, transform, params, why, created) VALUES(?1, ?2, ?3, ?4, ?5, ?6)"},
    {ST_EDGE_EXISTS, "SELECT 1 FROM edges WHERE parent = ?1 AND child = ?2"},
    {ST_PARENTS,
     "SELECT parent, child, transform, params, why, created FROM edges WHERE child = ?1 ORDER BY rowid"},
    {ST_CHILDREN,
     "SELECT parent, child, transform, params, why, created FROM edges WHERE parent = ?1 ORDER BY rowid"},
    {ST_FIRST_PARENT, "SELECT parent FROM edges WHERE child = ?1 ORDER BY rowid LIMIT 1"},
    {ST_MARK_SET,
     "INSERT INTO marks(node, pruned, favourite) VALUES(?1, ?2, ?3)"
     " ON CONFLICT(node) DO UPDATE SET pruned = ?2, favourite = ?3"},
    {ST_MARK_EXPLORED,
     "INSERT INTO marks(node, explored) VALUES(?1, ?2) ON CONFLICT(node) DO UPDATE SET explored = ?2"},
    {ST_NOTE_SET,
     "INSERT INTO marks(node, note) VALUES(?1, ?2) ON CONFLICT(node) DO UPDATE SET note = ?2"},
    {ST_G_NODES,
     "SELECT n.id, n.hash, n.level, n.label, n.created, coalesce(m.pruned, 0),"
     " coalesce(m.favourite, 0), coalesce(m.note, '') <> '', coalesce(s.c, 0), coalesce(s.best, -1),"
     " coalesce(s.v, -1), coalesce(m.explored, 0)"
     " FROM nodes n LEFT JOIN marks m ON m.node = n.id"
     " LEFT JOIN (SELECT node, count(*) AS c, min(CASE WHEN verified = 1 THEN total END) AS best,"
     "            max(verified) AS v FROM simulations GROUP BY node) s ON s.node = n.id"
     " ORDER BY n.id"},
    {ST_G_EDGES, "SELECT parent, child FROM edges ORDER BY rowid"},
    {ST_COUNT_NODES, "SELECT count(*) FROM nodes"},
    {ST_PATH,
     "WITH RECURSIVE up(id, depth) AS (SELECT ?1, 0 UNION ALL"
     "  SELECT (SELECT e.parent FROM edges e WHERE e.child = up.id ORDER BY e.rowid LIMIT 1), up.depth + 1"
     "  FROM up WHERE up.id IS NOT NULL AND up.depth <= ?2)"
     " SELECT n.id, n.hash, n.commit_id, n.level, n.label, n.created, coalesce(m.pruned, 0),"
     " coalesce(m.favourite, 0), m.note, e.parent, e.transform, e.params, e.why, e.created,"
     " (SELECT count(*) FROM edges x WHERE x.child = n.id)"
     " FROM up JOIN nodes n ON n.id = up.id LEFT JOIN marks m ON m.node = n.id"
     " LEFT JOIN edges e ON e.rowid = (SELECT min(x.rowid) FROM edges x WHERE x.child = n.id)"
     " ORDER BY up.depth DESC"},
    {ST_REMOVED_INSERT, "INSERT OR REPLACE INTO removed(id, hash, removed) VALUES(?1, ?2, ?3)"},
    {ST_REMOVED_GET, "SELECT 1 FROM removed WHERE id = ?1"},
    {ST_SEQ,
     "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'nodes'), 0),"
     " coalesce((SELECT max(id) FROM nodes), 0))"},
    {ST_MACHINE_GET, "SELECT id FROM machines WHERE name = ?1 AND hash = ?2"},
    {ST_MACHINE_INSERT, "INSERT INTO machines(name, hash, text, created) VALUES(?1, ?2, ?3, ?4)"},
    {ST_MACHINE_LATEST, "SELECT text FROM machines WHERE name = ?1 ORDER BY created DESC, id DESC LIMIT 1"},
    {ST_MACHINE_TOUCH,
     "UPDATE machines SET created = max(?2, (SELECT max(m.created) FROM machines m WHERE m.name = machines.name) + 1)"
     " WHERE id = ?1"},
    {ST_SIM_FIND,
     "SELECT s.id, s.node, m.name, m.text, s.model, s.params, s.total, s.seconds, s.aggregate_work,"
     " s.verified, s.checksum, s.nprocs, s.nsteps, s.violations, s.per_proc, s.trace,"
     " s.report_text, s.report_json, s.sim_seconds, s.created"
     " FROM simulations s JOIN machines m ON m.id = s.machine"
     " WHERE s.node = ?1 AND m.name = ?2 AND m.hash = ?3 AND s.model = ?4 AND s.params = ?5"},
    {ST_SIM_PUT,
     "INSERT INTO simulations(node, machine, model, params, total, seconds, aggregate_work, verified,"
     " checksum, nprocs, nsteps, violations, per_proc, trace, report_text, report_json, sim_seconds,"
     " created) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)"
     " ON CONFLICT(node, machine, model, params) DO UPDATE SET total = ?5, seconds = ?6,"
     " aggregate_work = ?7, verified = ?8, checksum = ?9, nprocs = ?10, nsteps = ?11,"
     " violations = ?12, per_proc = ?13, trace = ?14, report_text = ?15, report_json = ?16,"
     " sim_seconds = ?17, created = ?18 RETURNING id"},
    {ST_SIM_LIST,
     "SELECT s.id, s.node, m.name, m.text, s.model, s.params, s.total, s.seconds, s.aggregate_work,"
     " s.verified, s.checksum, s.nprocs, s.nsteps, s.violations, s.per_proc, s.trace,"
     " s.report_text, s.report_json, s.sim_seconds, s.created"
     " FROM simulations s JOIN machines m ON m.id = s.machine WHERE s.node = ?1"
     " ORDER BY s.created DESC, s.id DESC"},
    {ST_MEAS_LIST,
     "SELECT id, node, ranks, runner, coalesce(platform, ''), params, seconds, host, created"
     " FROM measurements WHERE ?1 = 0 OR node = ?1 ORDER BY node, id"},
    {ST_MEAS_INSERT,
     "INSERT INTO measurements(node, ranks, runner, platform, params, seconds, host, created)"
     " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"},
    {ST_FSCK_NODES, "SELECT id, hash, commit_id, label, level FROM nodes ORDER BY id"},
    {ST_FSCK_DANGLING_EDGES,
     "SELECT parent, child FROM edges WHERE parent NOT IN (SELECT id FROM nodes)"
     " OR child NOT IN (SELECT id FROM nodes)"},
    {ST_FSCK_DELETE_DANGLING,
     "DELETE FROM edges WHERE parent NOT IN (SELECT id FROM nodes) OR child NOT IN (SELECT id FROM nodes)"},
    {ST_FSCK_INTEGRITY, "PRAGMA quick_check"},
    {ST_FSCK_DANGLING_ROWS,
     "SELECT 'simulations', count(*) FROM simulations WHERE node NOT IN (SELECT id FROM nodes)"
     " UNION ALL SELECT 'marks', count(*) FROM marks WHERE node NOT IN (SELECT id FROM nodes)"
     " UNION ALL SELECT 'measurements', count(*) FROM measurements WHERE node NOT IN (SELECT id FROM nodes)"},
    {ST_FSCK_DELETE_DANGLING_ROWS,
     "DELETE FROM simulations WHERE node NOT IN (SELECT id FROM nodes)"},
    {ST_FSCK_DELETE_DANGLING_MARKS, "DELETE FROM marks WHERE node NOT IN (SELECT id FROM nodes)"},
    {ST_FSCK_DELETE_DANGLING_MEAS, "DELETE FROM measurements WHERE node NOT IN (SELECT id FROM nodes)"},
};
_Static_assert(sizeof statements / sizeof statements[0] == ST__COUNT, "one SQL text per statement");

/* ---- helpers -------------------------------------------------------------------------------- */

int store_db_fail(store *s, diag_list *d, const char *what)
{
    diag_add(d, NULL, 0, 0, "%s: %s: %s", s->dir, what, s->db ? sqlite3_errmsg(s->db) : "no database");
    return -1;
}

sqlite3_stmt *store_stmt(store *s, store_stmt_id id, diag_list *d)
{
    if (!s->st[id]) {
        const char *sql = NULL;
        for (size_t i = 0; i < sizeof statements / sizeof statements[0]; i++)
            if (statements[i].id == id) sql = statements[i].sql;
        if (!sql || sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s->st[id], NULL) != SQLITE_OK) {
            store_db_fail(s, d, "preparing a statement");
            return NULL;
        }
    }
    sqlite3_reset(s->st[id]);
    sqlite3_clear_bindings(s->st[id]);
    return s->st[id];
}

int store_exec_stmt(store *s, sqlite3_stmt *st, diag_list *d, const char *what)
{
    int rc = sqlite3_step(st);
    while (rc == SQLITE_ROW) rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) return store_db_fail(s, d, what);
    return 0;
}

int store_begin(store *s, diag_list *d)
{
    if (store_require_write(s, d) != 0) return -1;
    sqlite3_stmt *st = store_stmt(s, ST_BEGIN, d);
    if (!st) return -1;
    return store_exec_stmt(s, st, d, "starting a transaction");
}

int store_commit(store *s, diag_list *d)
{
    sqlite3_stmt *st = store_stmt(s, ST_COMMIT, d);
    if (!st) return -1;
    if (store_exec_stmt(s, st, d, "committing") != 0) { store_rollback(s); return -1; }
    return 0;
}

void store_rollback(store *s)
{
    if (sqlite3_get_autocommit(s->db)) return;
    diag_list ignored;
    diag_list_init(&ignored);
    sqlite3_stmt *st = store_stmt(s, ST_ROLLBACK, &ignored);
    if (st) store_exec_stmt(s, st, &ignored, "rollback");
    diag_list_free(&ignored);
}

own_give char *store_col_dup(sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    return strdup(t ? (const char *)t : "");
}

void store_col_copy(sqlite3_stmt *st, int col, char *buf, size_t n)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    snprintf(buf, n, "%s", t ? (const char *)t : "");
}

int store_require_write(store *s, diag_list *d)
{
    if (s->writable) return 0;
    diag_add(d, NULL, 0, 0, "%s: workspace opened read-only", s->dir);
    return -1;
}

const char *store_dir(const store *s) { return s->dir; }
static char *path_join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *p = malloc(la + lb + 2);
    if (!p) return NULL;
    memcpy(p, a, la);
    p[la] = '/';
    memcpy(p + la + 1, b, lb + 1);
    return p;
}

vcs *store_git(store *s, diag_list *d)
{
    if (s->git) return s->git;
    char *repo = path_join(s->dir, STORE_REPO_NAME);
    if (!repo) { diag_add(d, NULL, 0, 0, "out of memory"); return NULL; }
    if (vcs_open(repo, &s->git, d) != 0) {
        diag_add(d, NULL, 0, 0, "%s: repo.git is corrupted", s->dir);
        s->git = NULL;
    }
    free(repo);
    return s->git;
}

vcs *store_vcs(store *s)
{
    diag_list ignored;
    diag_list_init(&ignored);
    vcs *v = store_git(s, &ignored);
    diag_list_free(&ignored);
    return v;
}


static int pragma_int(sqlite3 *db, const char *sql, int *out)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) { *out = sqlite3_column_int(st, 0); rc = SQLITE_OK; }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_OK || rc == SQLITE_DONE ? 0 : -1;
}

int store_schema_version(store *s)
{
    int v = -1;
    pragma_int(s->db, "PRAGMA user_version", &v);
    return v;
}

/* Connection settings common to every open. */
static int configure(store *s, diag_list *d)
{
    sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
    sqlite3_extended_result_codes(s->db, 1);
    /* Each command is a short process: keep the WAL file between them and leave checkpoints to
     * SQLite's automatic ones, instead of a checkpoint (two fsyncs), a delete and a re-create
     * (a directory fsync) on every run. */
    if (s->writable) {
        int on = 1;
        sqlite3_db_config(s->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
        sqlite3_file_control(s->db, "main", SQLITE_FCNTL_PERSIST_WAL, &on);
    }
    static const char *const always[] = {"PRAGMA foreign_keys = ON", "PRAGMA synchronous = NORMAL"};
    for (size_t i = 0; i < sizeof always / sizeof always[0]; i++)
        if (sqlite3_exec(s->db, always[i], NULL, NULL, NULL) != SQLITE_OK)
            return store_db_fail(s, d, always[i]);
    return 0;
}

/* Brings the schema to STORE_SCHEMA_VERSION, one migration per transaction. */
static int migrate(store *s, diag_list *d)
{
    int v = store_schema_version(s);
    if (v < 0) return store_db_fail(s, d, "reading the schema version");
    if (v > STORE_SCHEMA_VERSION) {
        diag_add(d, NULL, 0, 0, "%s: made by a newer polyapm (schema %d; this one knows %d)",
                 s->dir, v, STORE_SCHEMA_VERSION);
        return -1;
    }
    if (v == STORE_SCHEMA_VERSION) return 0;
    if (!s->writable) {
        diag_add(d, NULL, 0, 0, "%s: schema %d needs migrating to %d; open it for writing once",
                 s->dir, v, STORE_SCHEMA_VERSION);
        return -1;
    }
    while (v < STORE_SCHEMA_VERSION) {
        /* Re-read the version under the write lock: another process may have migrated. */
        if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
            return store_db_fail(s, d, "locking for a schema migration");
        v = store_schema_version(s);
        if (v >= STORE_SCHEMA_VERSION) { store_rollback(s); break; }
        char *sql = NULL;
        if (asprintf(&sql, "%s PRAGMA user_version = %d;", migrations[v], v + 1) < 0) {
            store_rollback(s);
            return -1;
        }
        char *err = NULL;
        int rc = sqlite3_exec(s->db, sql, NULL, NULL, &err);
        free(sql);
        if (rc == SQLITE_OK) rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, &err);
        if (rc != SQLITE_OK) {
            diag_add(d, NULL, 0, 0, "%s: migrating the schema to %d: %s", s->dir, v + 1, err ? err : "failed");
            sqlite3_free(err);
            store_rollback(s);
            return -1;
        }
        v++;
    }
    return 0;
}

static store *store_alloc(const char *dir)
{
    store *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->dir = strdup(dir);
    if (!s->dir) { free(s); return NULL; }
    size_t n = strlen(s->dir);
    while (n > 1 && s->dir[n - 1] == '/') s->dir[--n] = '\0';
    return s;
}

void store_close(own_take store *s)
{
    if (!s) return;
    for (int i = 0; i < ST__COUNT; i++) sqlite3_finalize(s->st[i]);
    if (s->db) sqlite3_close_v2(s->db);
    vcs_close(s->git);
    free(s->dir);
    free(s);
}

/* A bare repository has HEAD, objects/ and refs/. */
static int repo_looks_sane(const char *repo)
{
    static const char *const parts[] = {"HEAD", "objects", "refs"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        char *p = path_join(repo, parts[i]);
        struct stat st;
        int ok = p && stat(p, &st) == 0;
        free(p);
        if (!ok) return 0;
    }
    return 1;
}

int store_is_workspace(const char *dir)
{
    char *db = path_join(dir, STORE_DB_NAME), *repo = path_join(dir, STORE_REPO_NAME);
    struct stat a, b;
    int yes = db && repo && stat(db, &a) == 0 && S_ISREG(a.st_mode) && stat(repo, &b) == 0 &&
              S_ISDIR(b.st_mode);
    free(db);
    free(repo);
    return yes;
}

/* Write permission as the mode bits say (also for root, who bypasses them). */
static int writable_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) return 0;
    if (!(st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH))) return 0;
    return access(path, W_OK) == 0;
}

int store_create(const char *dir, own_give store **out, diag_list *d)
{
    *out = NULL;
    struct stat st;
    if (stat(dir, &st) == 0) {
        DIR *dd = S_ISDIR(st.st_mode) ? opendir(dir) : NULL;
        int empty = dd != NULL;
        struct dirent *e;
        while (dd && (e = readdir(dd)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) empty = 0;
        if (dd) closedir(dd);
        if (!empty) {
            diag_add(d, NULL, 0, 0, "%s already exists%s", dir,
                     store_is_workspace(dir) ? " (a workspace)" : " and is not an empty directory");
            return -1;
        }
    } else if (mkdir(dir, 0777) != 0) {
        diag_add(d, NULL, 0, 0, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    store *s = store_alloc(dir);
    if (!s) { diag_add(d, NULL, 0, 0, "out of memory"); return -1; }
    s->writable = 1;
    char *repo = path_join(s->dir, STORE_REPO_NAME), *db = path_join(s->dir, STORE_DB_NAME);
    int rc = -1;
    if (!repo || !db) { diag_add(d, NULL, 0, 0, "out of memory"); goto out; }
    if (vcs_create(repo, &s->git, d) != 0) goto out;
    if (sqlite3_open_v2(db, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        store_db_fail(s, d, "creating pdg.db");
        goto out;
    }
    char *err = NULL;
    char pragmas[160];
    snprintf(pragmas, sizeof pragmas, "PRAGMA journal_mode = WAL; PRAGMA application_id = %d;", APPLICATION_ID);
    if (configure(s, d) != 0) goto out;
    if (sqlite3_exec(s->db, pragmas, NULL, NULL, &err) != SQLITE_OK) {
        diag_add(d, NULL, 0, 0, "%s: %s", db, err ? err : "cannot configure");
        sqlite3_free(err);
        goto out;
    }
    if (migrate(s, d) != 0) goto out;
    rc = 0;
out:
    free(repo);
    free(db);
    if (rc != 0) { store_close(s); return -1; }
    *out = s;
    return 0;
}

int store_open(const char *dir, int mode, own_give store **out, diag_list *d)
{
    *out = NULL;
    struct stat st;
    if (stat(dir, &st) != 0) {
        diag_add(d, NULL, 0, 0, "no workspace at %s (%s)", dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode) || !store_is_workspace(dir)) {
        diag_add(d, NULL, 0, 0, "%s is not a polyapm workspace (no %s and %s)", dir, STORE_DB_NAME,
                 STORE_REPO_NAME);
        return -1;
    }
    store *s = store_alloc(dir);
    if (!s) { diag_add(d, NULL, 0, 0, "out of memory"); return -1; }
    char *repo = path_join(s->dir, STORE_REPO_NAME), *db = path_join(s->dir, STORE_DB_NAME);
    int rc = -1;
    if (!repo || !db) { diag_add(d, NULL, 0, 0, "out of memory"); goto out; }
    if (mode == STORE_WRITE) {
        if (!writable_path(s->dir) || !writable_path(db) || !writable_path(repo)) {
            diag_add(d, NULL, 0, 0, "%s is read-only", s->dir);
            goto out;
        }
        s->writable = 1;
    }
    int flags = s->writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY;
    if (sqlite3_open_v2(db, &s->db, flags, NULL) != SQLITE_OK) {
        store_db_fail(s, d, "opening pdg.db");
        goto out;
    }
    sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
    int app = 0;
    if (pragma_int(s->db, "PRAGMA application_id", &app) != 0) {
        diag_add(d, NULL, 0, 0, "%s: pdg.db is corrupted or not a database (%s)", s->dir, sqlite3_errmsg(s->db));
        goto out;
    }
    if (app != APPLICATION_ID) {
        diag_add(d, NULL, 0, 0, "%s is not a polyapm workspace (pdg.db belongs to another program)", s->dir);
        goto out;
    }
    if (configure(s, d) != 0) goto out;
    if (migrate(s, d) != 0) goto out;
    /* libgit2 is opened when first needed (its start-up is most of a listing's time); here only
     * the repository's shape is checked. */
    if (!repo_looks_sane(repo)) {
        diag_add(d, NULL, 0, 0, "%s: repo.git is corrupted", s->dir);
        goto out;
    }
    rc = 0;
out:
    free(repo);
    free(db);
    if (rc != 0) { store_close(s); return -1; }
    *out = s;
    return 0;
}

/* Any *.pdg workspace directly under `dir`; -1 when several. */
static int only_workspace_in(const char *dir, char **found)
{
    DIR *dd = opendir(dir);
    struct dirent *e;
    int n = 0;
    *found = NULL;
    while (dd && (e = readdir(dd))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".pdg") != 0) continue;
        char *p = path_join(dir, e->d_name);
        if (p && store_is_workspace(p)) {
            n++;
            if (!*found) *found = p;
            else free(p);
        } else {
            free(p);
        }
    }
    if (dd) closedir(dd);
    if (n > 1) { free(*found); *found = NULL; return -1; }
    return n;
}

own_give char *store_find(const char *hint, diag_list *d)
{
    if (hint) {
        if (!store_is_workspace(hint)) {
            struct stat st;
            if (stat(hint, &st) != 0) diag_add(d, NULL, 0, 0, "no workspace at %s", hint);
            else diag_add(d, NULL, 0, 0, "%s is not a polyapm workspace", hint);
            return NULL;
        }
        char *p = strdup(hint);
        if (!p) diag_add(d, NULL, 0, 0, "out of memory");
        return p;
    }
    const char *env = getenv("POLYAPM_WORKSPACE");
    if (env && *env) return store_find(env, d);
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) { diag_add(d, NULL, 0, 0, "cannot read the current directory"); return NULL; }
    for (;;) {
        if (store_is_workspace(cwd)) return strdup(cwd);
        char *slash = strrchr(cwd, '/');
        if (!slash || slash == cwd) break;
        *slash = '\0';
    }
    char *found = NULL;
    int n = only_workspace_in(".", &found);
    if (n == 1) return found;
    diag_add(d, NULL, 0, 0, n < 0 ? "several workspaces here; choose one with -w NAME.pdg"
                                  : "no workspace here (use -w NAME.pdg or polyapm init FILE.apm)");
    return NULL;
}

int64_t store_now(void)
{
    const char *pin = getenv("POLYAPM_NOW");
    if (pin && *pin) return strtoll(pin, NULL, 10);
    return (int64_t)time(NULL);
}
