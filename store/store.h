/*
 * store.h — the workspace: the PolyAPM decision graph (PDG) kept in a directory NAME.pdg/ that
 * holds pdg.db (SQLite: nodes, edges, simulations, measurements, machine profiles, marks) and
 * repo.git (a bare git repository written through libgit2: one commit per node).
 *
 * Identity: a node is the git blob id (SHA-1 hex) of its canonical program text; adding a text
 * that is already a node links the existing node (the PDG is a DAG).  Nodes also carry a short
 * integer id (refs/pdg/<id> names the node's commit) and a label unique in the workspace.
 *
 * Durability: git objects and the node's ref are written inside the SQLite write transaction,
 * before the row that names them is committed; a crash therefore leaves at most an unreferenced
 * object or a ref refs/pdg/<id> whose id was never committed (an "interrupted add", which the
 * next add of that id overwrites and `fsck --repair` removes).  SIGKILL loses at most the node
 * being created (synchronous=NORMAL: a power loss may lose the last transactions).
 *
 * Errors are values: functions return 0 (or a count / 1 found) on success and -1 on failure
 * with one message appended to the diag_list.  Every struct a function fills is owned by the
 * caller and released with the matching *_clear / *_free function.
 *
 * Ownership is stated at the parameter (own.h): own_give on a result, an out-parameter T **out,
 * or a struct the function fills (T *out: what it then holds is the caller's); own_take on what
 * a *_free or *_close function frees; own_keep on a request the function only reads (it keeps
 * no pointer into it) and on a *_clear function's struct (it releases what the struct holds; the
 * struct itself stays the caller's).
 *
 * store_* is the workspace (database and graph), vcs_* the git side.  The store knows nothing of
 * the language: callers pass canonical text, its level and labels.
 */
#ifndef POLYAPM_STORE_H
#define POLYAPM_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "own.h"

enum { STORE_SCHEMA_VERSION = 2 };
#define STORE_DB_NAME "pdg.db"
#define STORE_REPO_NAME "repo.git"

/* ---- git (store/vcs.c) ---------------------------------------------------------------------- */

typedef struct vcs vcs;
typedef char vcs_hex[41];                 /* a SHA-1 in hex, NUL-terminated */

typedef struct vcs_commit_info {
    vcs_hex program;                      /* blob id of program.apm in the commit's tree */
    vcs_hex parents[16];
    int nparents;
    int64_t time;
    char *message;                        /* owned; vcs_commit_info_clear frees */
} vcs_commit_info;

int vcs_create(const char *path, own_give vcs **out, diag_list *d);    /* a new bare repository */
int vcs_open(const char *path, own_give vcs **out, diag_list *d);
void vcs_close(own_take vcs *v);
/* The blob id `text` would have (nothing written). */
void vcs_hash_text(const char *text, size_t len, vcs_hex out);
/* Writes blob program.apm + cost.txt, their tree and a commit with the given parents. */
int vcs_write_node(vcs *v, const char *program, size_t len, const char *cost_txt,
                   const vcs_hex *parents, int nparents, const char *message,
                   vcs_hex commit_out, vcs_hex blob_out, diag_list *d);
/* Rewrites a commit with another parent list (same tree and message).  Used when an existing
 * node gains a parent. */
int vcs_recommit(vcs *v, const vcs_hex commit, const vcs_hex *parents, int nparents,
                 vcs_hex commit_out, diag_list *d);
/* Sets refs/pdg/<id>.  The caller holds the workspace's write lock (store_begin): a lock file
 * left on the ref by a killed process is then stale and is removed. */
int vcs_ref_set(vcs *v, int64_t id, const vcs_hex commit, diag_list *d);
int vcs_ref_get(vcs *v, int64_t id, vcs_hex out, diag_list *d);   /* 1 found, 0 none, -1 error */
int vcs_ref_delete(vcs *v, int64_t id, diag_list *d);             /* absent is not an error */
/* Every refs/pdg/<id>: ids and commits (malloc'd arrays, caller frees both). */
int vcs_ref_list(vcs *v, own_give int64_t **ids, own_give vcs_hex **commits, int *n, diag_list *d);
int vcs_has_object(vcs *v, const vcs_hex id);
/* The content of a blob (malloc'd, NUL-terminated; *len without the NUL). */
own_give char *vcs_blob_read(vcs *v, const vcs_hex blob, size_t *len, diag_list *d);
int vcs_commit_read(vcs *v, const vcs_hex commit, own_give vcs_commit_info *out, diag_list *d);
void vcs_commit_info_clear(own_keep vcs_commit_info *c);
/* A unified diff of two texts (malloc'd; "" when equal). */
own_give char *vcs_diff_text(const char *a, size_t alen, const char *aname,
                             const char *b, size_t blen, const char *bname, int context, diag_list *d);

/* ---- the workspace (store/db.c) ------------------------------------------------------------- */

typedef struct store store;

enum store_mode { STORE_READ = 0, STORE_WRITE = 1 };

/* Creates NAME.pdg/ (which must not exist or be an empty directory). */
int store_create(const char *dir, own_give store **out, diag_list *d);
/* Opens a workspace; STORE_WRITE refuses a read-only one.  Migrates an older schema (write
 * mode); refuses a newer one, a foreign directory and a corrupted database or repository. */
int store_open(const char *dir, int mode, own_give store **out, diag_list *d);
void store_close(own_take store *s);
const char *store_dir(const store *s);
vcs *store_vcs(store *s);
int store_schema_version(store *s);
/* The workspace to use: `hint` (from -w) if given; else the current directory or one of its
 * ancestors if it is a workspace; else the only *.pdg workspace in the current directory.
 * Returns a malloc'd path or NULL with a message. */
own_give char *store_find(const char *hint, diag_list *d);
/* 1 if `dir` looks like a workspace (has pdg.db and repo.git). */
int store_is_workspace(const char *dir);

/* ---- nodes and edges (store/pdg.c, store/pdg_add.c) ----------------------------------------- */

typedef struct store_node {
    int64_t id;
    vcs_hex hash;                         /* blob id of program.apm */
    vcs_hex commit;
    char level[16];
    char *label;                          /* owned */
    int64_t created;                      /* unix seconds */
    int pruned, favourite;
    int64_t explored;                     /* signature of the candidates explore tried, or 0 */
    char *note;                           /* owned; NULL when none */
} store_node;
void store_node_clear(own_keep store_node *n);

typedef struct store_edge {
    int64_t parent, child;
    char *transform, *params, *why;       /* owned; "" when none */
    int64_t created;
} store_edge;
void store_edges_free(own_take store_edge *e, int n);

typedef struct store_add_req {
    const char *text;                     /* canonical program text */
    size_t len;
    const char *level;                    /* "source", "syn", ... */
    const int64_t *parents;               /* none for the root */
    int nparents;
    const char *transform;                /* e.g. "init", "add", "tile"; NULL = "add" */
    const char *params;                   /* parameter summary, may be NULL */
    const char *why;                      /* free text, may be NULL */
    const char *label;                    /* NULL: derived (label_hint, then transform+params) */
    const char *label_hint;               /* a base for a derived label (e.g. a file name) */
    const char *cost_txt;                 /* cost.txt content; NULL: a placeholder */
} store_add_req;

/* Adds a node (or links the existing node with the same text).  *created = 1 when a new node
 * was made, 0 when the text was already a node (then the edges are added to it; a label given
 * explicitly must then match or is ignored with no error). */
int store_node_add(store *s, own_keep const store_add_req *r, int64_t *id, int *created, diag_list *d);

/* NODE syntax: an id, `ROOT`, a label, or a unique hash prefix (>= 4 hex digits); any of them
 * followed by ^ (first parent), repeated.  Errors: unknown node, ambiguous prefix. */
int store_resolve(store *s, const char *spec, int64_t *id, diag_list *d);
int store_root(store *s, int64_t *id, diag_list *d);
int store_node_get(store *s, int64_t id, own_give store_node *out, diag_list *d);
/* The node's canonical text from git (malloc'd). */
own_give char *store_node_text(store *s, int64_t id, size_t *len, diag_list *d);
int store_parents(store *s, int64_t id, own_give store_edge **out, int *n, diag_list *d);
int store_children(store *s, int64_t id, own_give store_edge **out, int *n, diag_list *d);
/* The path of decisions from the root to `id` following first parents: ids[0] = root. */
int store_lineage(store *s, int64_t id, own_give int64_t **ids, int *n, diag_list *d);
/* The same path with each node and the edge that leads to it (its first-parent edge; for the
 * root edge.transform is NULL), in one query.  Free with store_path_free. */
typedef struct store_step {
    store_node node;
    store_edge edge;
    int nparents;
} store_step;
int store_path(store *s, int64_t id, own_give store_step **out, int *n, diag_list *d);
void store_path_free(own_take store_step *steps, int n);
/* The edge transform of a source replayed onto: `polyapm replay` adds the new source as a child
 * of the path's source with this edge, and re-applies the path's steps under it. */
#define STORE_REPLAY_EDGE "replay"
/* The program node `id` is verified against: the last node on its path (first parents, itself
 * included) that an edge STORE_REPLAY_EDGE leads to, else the root. */
int store_reference(store *s, int64_t id, int64_t *ref, diag_list *d);
/* A read snapshot: the reads until store_snapshot_end see one state of the workspace (and take
 * the database's shared lock once).  Not for use around writes. */
int store_snapshot_begin(store *s, diag_list *d);
void store_snapshot_end(store *s);

enum store_mark_kind { STORE_MARK_CLEAR, STORE_MARK_PRUNED, STORE_MARK_FAVOURITE };
int store_mark(store *s, int64_t id, int kind, diag_list *d);
/* `explore` tried every candidate transform of the node: `signature` (non-zero) identifies the
 * candidate set tried (a rerun with the same set takes the children from the stored edges).
 * Independent of the user's mark; store_node.explored reads it back (0: never explored). */
int store_mark_explored(store *s, int64_t id, int64_t signature, diag_list *d);
int store_note(store *s, int64_t id, const char *text, diag_list *d);   /* NULL or "" clears */
int store_label(store *s, int64_t id, const char *label, diag_list *d);
/* Removes `id` and every descendant all of whose parents are being removed (a node that has
 * another parent stays, losing the edge).  `dry_run` only reports.  The root cannot be removed.
 * ids of removed nodes in *removed (malloc'd). */
int store_rm(store *s, int64_t id, int dry_run, own_give int64_t **removed, int *n, diag_list *d);

/* The whole graph in memory, for listings and the TUI. */
typedef struct store_gnode {
    int64_t id;
    vcs_hex hash;
    char level[16];
    char *label;                          /* owned by the graph */
    int64_t created;
    int pruned, favourite;
    int explored;                         /* 1 when explore tried every candidate here */
    int has_note;
    int nsims;                            /* simulations stored */
    double best_total;                    /* lowest stored cost (ticks) of a verified run, or -1 */
    int verified;                         /* 1 if any stored run verified, 0 if all failed, -1 none */
    int *children, nchildren;             /* indexes into nodes[] (by edge order) */
    int *parents, nparents;               /* indexes into nodes[] */
} store_gnode;

typedef struct store_graph {
    store_gnode *nodes;                   /* sorted by id */
    int n;
    int root;                             /* index of the root, -1 when empty */
    int *adj;                             /* backing storage for children/parents */
} store_graph;

int store_graph_load(store *s, own_give store_graph *g, diag_list *d);
void store_graph_free(own_keep store_graph *g);
int store_graph_index(const store_graph *g, int64_t id);  /* -1 when absent */

/* ---- simulations, machines, measurements (store/sims.c) ------------------------------------- */

typedef struct store_sim {
    int64_t id, node;
    const char *machine;                  /* profile name */
    const char *machine_text;             /* the profile as text (its hash is part of the key) */
    const char *model;                    /* polyapm | bsp | hockney */
    const char *params;                   /* final parameter values, "n=256,steps=21" */
    double total, seconds, aggregate_work;
    int verified;                         /* 1, 0, or -1 not checked */
    uint64_t checksum;
    int nprocs, nsteps;
    int64_t violations;
    const char *per_proc;                 /* JSON object of per-processor totals */
    const char *trace;                    /* JSON object of the per-step trace */
    const char *report_text, *report_json;/* the printed report, replayed on a store hit */
    double sim_seconds;                   /* processor time of the simulation and its reference's */
    int64_t created;
    char *owned_;                         /* when filled by store_sim_find: backs the strings */
} store_sim;

/* Finds the stored simulation with the same key (node, machine name + text, model, params).
 * Returns 1 and fills *out (release with store_sim_clear), 0 when none, -1 on error. */
int store_sim_find(store *s, own_keep const store_sim *key, own_give store_sim *out, diag_list *d);
/* Stores (or replaces) a simulation; *id receives its row id (may be NULL). */
int store_sim_put(store *s, own_keep const store_sim *sim, int64_t *id, diag_list *d);
void store_sim_clear(own_keep store_sim *s);
/* All simulations of a node, newest first (array of filled store_sim; free each and the array). */
int store_sim_list(store *s, int64_t node, own_give store_sim **out, int *n, diag_list *d);

/* Machine profiles kept in the workspace (e.g. `local`, measured by calibrate): the text of the
 * newest profile stored under `name` (malloc'd; NULL with no message when there is none, NULL
 * with a message on error), and storing one (a profile is also stored with each simulation). */
own_give char *store_machine_get(store *s, const char *name, diag_list *d);
int store_machine_put(store *s, const char *name, const char *text, diag_list *d);

typedef struct store_measurement {
    int64_t node;
    int ranks;
    const char *runner;                   /* "mpirun" | "smpirun" */
    const char *platform;                 /* smpirun platform or NULL */
    const char *params;
    double seconds;
    const char *host;
    int64_t id, created;                  /* filled by store_measurement_list */
    char *owned_;                         /* when listed: backs the strings */
} store_measurement;
int store_measurement_add(store *s, own_keep const store_measurement *m, int64_t *id, diag_list *d);
/* The measurements of `node` (0: of every node), by node then oldest first.  *out is an array
 * the caller frees with store_measurements_free.  platform is "" when none. */
int store_measurement_list(store *s, int64_t node, own_give store_measurement **out, int *n, diag_list *d);
void store_measurements_free(own_take store_measurement *m, int n);

/* ---- consistency (store/fsck.c) ------------------------------------------------------------- */

typedef struct store_fsck_report {
    int problems;                         /* inconsistencies found */
    int repaired;                         /* of which repaired */
    int leftovers;                        /* refs of interrupted adds (not problems) */
    int nodes, refs;
    char **lines;                         /* one sentence per finding (owned) */
    int nlines;
} store_fsck_report;

/* Checks that rows and refs agree, that every ref's commit holds the node's program, that
 * the graph has one root and no cycle, and that the database passes SQLite's integrity check.
 * With `repair`, recreates missing rows (from the commit) and refs (from the row), removes
 * leftovers and dangling rows.  Returns 0 when the check ran (see report), -1 on error. */
int store_fsck(store *s, int repair, own_give store_fsck_report *out, diag_list *d);
void store_fsck_report_clear(own_keep store_fsck_report *r);

#endif
