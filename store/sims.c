/*
 * sims.c — simulations, machine profiles and measurements in the workspace database: storing a
 * simulation under its key (node, machine profile name and text, cost model, parameter values),
 * finding it again so that a repeated simulation is answered from the store, listing a node's
 * runs, and recording measured run times.  See store.h.
 */
#include "store_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void store_sim_clear(own_keep store_sim *s)
{
    free(s->owned_);
    memset(s, 0, sizeof *s);
}

/* The machines row for (name, text), created when `create` is set: 1 found/made, 0 none, -1. */
static int machine_id(store *s, const char *name, const char *text, int create, int64_t *id, diag_list *d)
{
    vcs_hex hash;
    vcs_hash_text(text, strlen(text), hash);
    sqlite3_stmt *st = store_stmt(s, ST_MACHINE_GET, d);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, hash, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) { *id = sqlite3_column_int64(st, 0); sqlite3_reset(st); return 1; }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) return store_db_fail(s, d, "reading machine profiles");
    if (!create) return 0;
    if (!(st = store_stmt(s, ST_MACHINE_INSERT, d))) return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, hash, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, text, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 4, store_now());
    if (store_exec_stmt(s, st, d, "storing a machine profile") != 0) return -1;
    *id = sqlite3_last_insert_rowid(s->db);
    return 1;
}

/* Copies the text columns `cols` of the current row into one malloc'd block (returned; NULL when
 * out of memory); ptrs[i] points at column cols[i]'s text in it ("" for NULL). */
static char *text_block(sqlite3_stmt *st, const int *cols, int n, const char **ptrs)
{
    size_t total = 1, len[32];
    for (int i = 0; i < n; i++) total += (len[i] = (size_t)sqlite3_column_bytes(st, cols[i])) + 1;
    char *block = malloc(total), *p = block;
    if (!block) return NULL;
    for (int i = 0; i < n; i++) {
        const unsigned char *t = sqlite3_column_text(st, cols[i]);
        memcpy(p, t ? (const char *)t : "", len[i]);
        p[len[i]] = '\0';
        ptrs[i] = p;
        p += len[i] + 1;
    }
    return block;
}

/* Fills `out` from a row of ST_SIM_FIND / ST_SIM_LIST; the strings live in one owned block. */
static int fill_sim(sqlite3_stmt *st, store_sim *out)
{
    enum { C_ID, C_NODE, C_MNAME, C_MTEXT, C_MODEL, C_PARAMS, C_TOTAL, C_SECONDS, C_AGG, C_VERIFIED,
           C_CHECKSUM, C_NPROCS, C_NSTEPS, C_VIOL, C_PERPROC, C_TRACE, C_RTEXT, C_RJSON, C_SIMSEC,
           C_CREATED };
    static const int text_cols[] = {C_MNAME, C_MTEXT, C_MODEL, C_PARAMS, C_PERPROC, C_TRACE, C_RTEXT, C_RJSON,
                                    C_CHECKSUM};
    enum { NTEXT = sizeof text_cols / sizeof text_cols[0] };
    memset(out, 0, sizeof *out);
    const char *ptrs[NTEXT];
    char *block = text_block(st, text_cols, NTEXT, ptrs);
    if (!block) return -1;
    out->owned_ = block;
    out->id = sqlite3_column_int64(st, C_ID);
    out->node = sqlite3_column_int64(st, C_NODE);
    out->machine = ptrs[0];
    out->machine_text = ptrs[1];
    out->model = ptrs[2];
    out->params = ptrs[3];
    out->per_proc = ptrs[4];
    out->trace = ptrs[5];
    out->report_text = ptrs[6];
    out->report_json = ptrs[7];
    out->checksum = strtoull(ptrs[8], NULL, 16);
    out->total = sqlite3_column_double(st, C_TOTAL);
    out->seconds = sqlite3_column_double(st, C_SECONDS);
    out->aggregate_work = sqlite3_column_double(st, C_AGG);
    out->verified = sqlite3_column_int(st, C_VERIFIED);
    out->nprocs = sqlite3_column_int(st, C_NPROCS);
    out->nsteps = sqlite3_column_int(st, C_NSTEPS);
    out->violations = sqlite3_column_int64(st, C_VIOL);
    out->sim_seconds = sqlite3_column_double(st, C_SIMSEC);
    out->created = sqlite3_column_int64(st, C_CREATED);
    return 0;
}

int store_sim_find(store *s, own_keep const store_sim *key, own_give store_sim *out, diag_list *d)
{
    memset(out, 0, sizeof *out);
    if (!key->machine || !key->machine_text || !key->model || !key->params) {
        diag_add(d, NULL, 0, 0, "store_sim_find: incomplete key");
        return -1;
    }
    vcs_hex hash;
    vcs_hash_text(key->machine_text, strlen(key->machine_text), hash);
    sqlite3_stmt *st = store_stmt(s, ST_SIM_FIND, d);
    if (!st) return -1;
    sqlite3_bind_int64(st, 1, key->node);
    sqlite3_bind_text(st, 2, key->machine, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, hash, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, key->model, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 5, key->params, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st), found = 0;
    if (rc == SQLITE_ROW) {
        if (fill_sim(st, out) != 0) { sqlite3_reset(st); diag_add(d, NULL, 0, 0, "out of memory"); return -1; }
        found = 1;
    }
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return store_db_fail(s, d, "reading simulations");
    return found;
}

int store_sim_put(store *s, own_keep const store_sim *sim, int64_t *id, diag_list *d)
{
    if (!sim->machine || !sim->machine_text || !sim->model || !sim->params) {
        diag_add(d, NULL, 0, 0, "store_sim_put: incomplete key");
        return -1;
    }
    if (store_begin(s, d) != 0) return -1;
    int64_t mid = 0;
    if (machine_id(s, sim->machine, sim->machine_text, 1, &mid, d) != 1) goto fail;
    sqlite3_stmt *st = store_stmt(s, ST_SIM_PUT, d);
    if (!st) goto fail;
    char checksum[17];
    snprintf(checksum, sizeof checksum, "%016" PRIx64, sim->checksum);
    sqlite3_bind_int64(st, 1, sim->node);
    sqlite3_bind_int64(st, 2, mid);
    sqlite3_bind_text(st, 3, sim->model, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, sim->params, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(st, 5, sim->total);
    sqlite3_bind_double(st, 6, sim->seconds);
    sqlite3_bind_double(st, 7, sim->aggregate_work);
    sqlite3_bind_int(st, 8, sim->verified);
    sqlite3_bind_text(st, 9, checksum, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 10, sim->nprocs);
    sqlite3_bind_int(st, 11, sim->nsteps);
    sqlite3_bind_int64(st, 12, sim->violations);
    sqlite3_bind_text(st, 13, sim->per_proc ? sim->per_proc : "{}", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 14, sim->trace ? sim->trace : "{}", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 15, sim->report_text ? sim->report_text : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 16, sim->report_json ? sim->report_json : "{}", -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(st, 17, sim->sim_seconds);
    sqlite3_bind_int64(st, 18, sim->created ? sim->created : store_now());
    int rc = sqlite3_step(st);
    int64_t rowid = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    while (rc == SQLITE_ROW) rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
        if (sqlite3_extended_errcode(s->db) == SQLITE_CONSTRAINT_FOREIGNKEY)
            diag_add(d, NULL, 0, 0, "no node %lld (removed meanwhile?)", (long long)sim->node);
        else
            store_db_fail(s, d, "storing the simulation");
        goto fail;
    }
    if (store_commit(s, d) != 0) return -1;
    if (id) *id = rowid;
    return 0;
fail:
    store_rollback(s);
    return -1;
}

int store_sim_list(store *s, int64_t node, own_give store_sim **out, int *n, diag_list *d)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st = store_stmt(s, ST_SIM_LIST, d);
    if (!st) return -1;
    sqlite3_bind_int64(st, 1, node);
    int cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 4;
            store_sim *v = realloc(*out, (size_t)cap * sizeof *v);
            if (!v) break;
            *out = v;
        }
        if (fill_sim(st, &(*out)[*n]) != 0) break;
        (*n)++;
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
        for (int i = 0; i < *n; i++) store_sim_clear(&(*out)[i]);
        free(*out);
        *out = NULL;
        *n = 0;
        if (rc == SQLITE_ROW) diag_add(d, NULL, 0, 0, "out of memory");
        else store_db_fail(s, d, "listing simulations");
        return -1;
    }
    return 0;
}

int store_measurement_add(store *s, own_keep const store_measurement *m, int64_t *id, diag_list *d)
{
    if (!m->runner || !m->host) {
        diag_add(d, NULL, 0, 0, "store_measurement_add: runner and host are required");
        return -1;
    }
    if (store_begin(s, d) != 0) return -1;
    sqlite3_stmt *st = store_stmt(s, ST_MEAS_INSERT, d);
    if (!st) { store_rollback(s); return -1; }
    sqlite3_bind_int64(st, 1, m->node);
    sqlite3_bind_int(st, 2, m->ranks);
    sqlite3_bind_text(st, 3, m->runner, -1, SQLITE_TRANSIENT);
    if (m->platform) sqlite3_bind_text(st, 4, m->platform, -1, SQLITE_TRANSIENT);
    else sqlite3_bind_null(st, 4);
    sqlite3_bind_text(st, 5, m->params ? m->params : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(st, 6, m->seconds);
    sqlite3_bind_text(st, 7, m->host, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 8, store_now());
    if (store_exec_stmt(s, st, d, "storing the measurement") != 0) { store_rollback(s); return -1; }
    if (id) *id = sqlite3_last_insert_rowid(s->db);
    return store_commit(s, d);
}

own_give char *store_machine_get(store *s, const char *name, diag_list *d)
{
    sqlite3_stmt *st = store_stmt(s, ST_MACHINE_LATEST, d);
    if (!st) return NULL;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    char *text = rc == SQLITE_ROW ? store_col_dup(st, 0) : NULL;
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) store_db_fail(s, d, "reading machine profiles");
    if (rc == SQLITE_ROW && !text) diag_add(d, NULL, 0, 0, "out of memory");
    return text;
}

int store_machine_put(store *s, const char *name, const char *text, diag_list *d)
{
    if (!name || !*name || !text) {
        diag_add(d, NULL, 0, 0, "store_machine_put: a name and a text are required");
        return -1;
    }
    if (store_begin(s, d) != 0) return -1;
    int64_t id;
    if (machine_id(s, name, text, 1, &id, d) != 1) { store_rollback(s); return -1; }
    /* Stored again: it becomes the newest under its name. */
    sqlite3_stmt *st = store_stmt(s, ST_MACHINE_TOUCH, d);
    if (!st) { store_rollback(s); return -1; }
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, store_now());
    if (store_exec_stmt(s, st, d, "storing a machine profile") != 0) { store_rollback(s); return -1; }
    return store_commit(s, d);
}

int store_measurement_list(store *s, int64_t node, own_give store_measurement **out, int *n, diag_list *d)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st = store_stmt(s, ST_MEAS_LIST, d);
    if (!st) return -1;
    sqlite3_bind_int64(st, 1, node);
    int cap = 0, rc, oom = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 8;
            store_measurement *v = realloc(*out, (size_t)cap * sizeof *v);
            if (!v) { oom = 1; break; }
            *out = v;
        }
        store_measurement *m = &(*out)[*n];
        memset(m, 0, sizeof *m);
        /* runner, platform, params, host in one block */
        static const int cols[] = {3, 4, 5, 7};
        const char *ptr[4];
        char *block = text_block(st, cols, 4, ptr);
        if (!block) { oom = 1; break; }
        m->owned_ = block;
        m->id = sqlite3_column_int64(st, 0);
        m->node = sqlite3_column_int64(st, 1);
        m->ranks = sqlite3_column_int(st, 2);
        m->runner = ptr[0];
        m->platform = ptr[1];
        m->params = ptr[2];
        m->seconds = sqlite3_column_double(st, 6);
        m->host = ptr[3];
        m->created = sqlite3_column_int64(st, 8);
        (*n)++;
    }
    sqlite3_reset(st);
    if (oom || rc != SQLITE_DONE) {
        store_measurements_free(*out, *n);
        *out = NULL;
        *n = 0;
        if (oom) diag_add(d, NULL, 0, 0, "out of memory");
        else store_db_fail(s, d, "listing measurements");
        return -1;
    }
    return 0;
}

void store_measurements_free(own_take store_measurement *m, int n)
{
    for (int i = 0; i < n; i++) free(m[i].owned_);
    free(m);
}
