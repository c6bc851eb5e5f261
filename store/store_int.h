/*
 * store_int.h — private to store/: the open workspace struct, the table of prepared statements
 * and the transaction helpers shared by db.c, pdg.c, pdg_add.c, sims.c and fsck.c.  Not for
 * other modules (they use store.h).
 */
#ifndef POLYAPM_STORE_INT_H
#define POLYAPM_STORE_INT_H

#include <sqlite3.h>

#include "store.h"

/* Every statement the store runs, prepared once per connection (db.c holds the SQL table). */
typedef enum store_stmt_id {
    ST_BEGIN, ST_COMMIT, ST_ROLLBACK,
    ST_NODE_BY_HASH, ST_NODE_GET, ST_NODE_INSERT, ST_NEXT_ID, ST_NODE_SET_COMMIT, ST_NODE_BY_LABEL,
    ST_NODE_SET_LABEL, ST_NODE_DELETE, ST_NODE_EXISTS, ST_PREFIX, ST_ROOT, ST_IS_DESCENDANT,
    ST_EDGE_INSERT, ST_EDGE_EXISTS, ST_PARENTS, ST_CHILDREN, ST_FIRST_PARENT,
    ST_MARK_SET, ST_MARK_EXPLORED, ST_NOTE_SET,
    ST_G_NODES, ST_G_EDGES, ST_COUNT_NODES, ST_PATH,
    ST_REMOVED_INSERT, ST_REMOVED_GET, ST_SEQ,
    ST_MACHINE_GET, ST_MACHINE_INSERT, ST_MACHINE_LATEST, ST_MACHINE_TOUCH, ST_SIM_FIND, ST_SIM_PUT, ST_SIM_LIST,
    ST_MEAS_INSERT, ST_MEAS_LIST,
    ST_FSCK_NODES, ST_FSCK_DANGLING_EDGES, ST_FSCK_DELETE_DANGLING, ST_FSCK_INTEGRITY,
    ST_FSCK_DANGLING_ROWS, ST_FSCK_DELETE_DANGLING_ROWS,
    ST_FSCK_DELETE_DANGLING_MARKS, ST_FSCK_DELETE_DANGLING_MEAS,
    ST__COUNT
} store_stmt_id;

struct store {
    char *dir;
    sqlite3 *db;
    vcs *git;
    int writable;
    sqlite3_stmt *st[ST__COUNT];
};

/* The prepared statement, reset and with bindings cleared; NULL with a message on error. */
sqlite3_stmt *store_stmt(store *s, store_stmt_id id, diag_list *d);
/* Records the connection's last error as "what: message"; returns -1. */
int store_db_fail(store *s, diag_list *d, const char *what);
/* BEGIN IMMEDIATE (waits for other writers up to the busy timeout), COMMIT, ROLLBACK. */
int store_begin(store *s, diag_list *d);
int store_commit(store *s, diag_list *d);
void store_rollback(store *s);
/* Steps a statement that returns no row (SQLITE_DONE expected). */
int store_exec_stmt(store *s, sqlite3_stmt *st, diag_list *d, const char *what);
/* Column text copied (malloc'd; "" for NULL). */
own_give char *store_col_dup(sqlite3_stmt *st, int col);
/* Copies a column into a fixed buffer. */
void store_col_copy(sqlite3_stmt *st, int col, char *buf, size_t n);
int store_require_write(store *s, diag_list *d);
/* Recommits node `from` and its descendants so that each commit's parents are its parent nodes'
 * commits (pdg_add.c; inside a write transaction). */
int store_rewrite_commits(store *s, int64_t from, diag_list *d);
/* The git repository, opened on first use (NULL with a message when it cannot be). */
vcs *store_git(store *s, diag_list *d);
/* pdg.c, shared with pdg_add.c */
/* Reports "out of memory"; returns -1. */
int store_oom(diag_list *d);
/* Reads the first integer column of a one-row statement: 1 found, 0 none, -1 error. */
int store_step_int64(store *s, sqlite3_stmt *st, int64_t *out, diag_list *d, const char *what);
/* The node labelled `label` into *id: 1 found, 0 none, -1 error. */
int store_by_label(store *s, const char *label, int64_t *id, diag_list *d);
/* A label may not look like an id, contain blanks or ^, or be ROOT: 1 when it may be given. */
int store_label_ok(const char *l);
/* The clock, in one place (tests may pin it with POLYAPM_NOW=seconds). */
int64_t store_now(void);

#endif
