/*
 * vcs.c — the git side of a workspace, through libgit2: a bare repository in which every node is
 * a commit whose tree holds program.apm and cost.txt, named by refs/pdg/<id>.  Also the unified
 * diff of two programs.  See store.h.
 */
#include "store.h"

#include <git2.h>
#include <git2/sys/commit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct vcs {
    git_repository *repo;
    git_odb *odb;
};

static int git_fail(diag_list *d, const char *what)
{
    const git_error *e = git_error_last();
    diag_add(d, NULL, 0, 0, "git: %s: %s", what, e && e->message ? e->message : "failed");
    return -1;
}

static int vcs_wrap(git_repository *repo, vcs **out, diag_list *d)
{
    /* We write every object a tree or commit names ourselves, just before: skip libgit2's
     * read-back of each (a process-wide option; it only affects object creation). */
    git_libgit2_opts(GIT_OPT_ENABLE_STRICT_OBJECT_CREATION, 0);
    vcs *v = calloc(1, sizeof *v);
    if (!v) { git_repository_free(repo); diag_add(d, NULL, 0, 0, "out of memory"); return -1; }
    v->repo = repo;
    if (git_repository_odb(&v->odb, repo) != 0) {
        git_fail(d, "object database");
        vcs_close(v);
        return -1;
    }
    *out = v;
    return 0;
}

int vcs_create(const char *path, own_give vcs **out, diag_list *d)
{
    git_libgit2_init();
    git_repository *repo = NULL;
    if (git_repository_init(&repo, path, 1) != 0) {
        git_fail(d, path);
        git_libgit2_shutdown();
        return -1;
    }
    if (vcs_wrap(repo, out, d) != 0) { git_libgit2_shutdown(); return -1; }
    return 0;
}

int vcs_open(const char *path, own_give vcs **out, diag_list *d)
{
    git_libgit2_init();
    git_repository *repo = NULL;
    if (git_repository_open_bare(&repo, path) != 0) {
        const git_error *e = git_error_last();
        diag_add(d, NULL, 0, 0, "%s: not a git repository (%s)", path,
                 e && e->message ? e->message : "cannot open");
        git_libgit2_shutdown();
        return -1;
    }
    if (vcs_wrap(repo, out, d) != 0) { git_libgit2_shutdown(); return -1; }
    return 0;
}

void vcs_close(own_take vcs *v)
{
    if (!v) return;
    git_odb_free(v->odb);
    git_repository_free(v->repo);
    free(v);
    git_libgit2_shutdown();
}

void vcs_hash_text(const char *text, size_t len, vcs_hex out)
{
    git_oid oid;
    git_libgit2_init();
    if (git_odb_hash(&oid, text, len, GIT_OBJECT_BLOB) != 0) memset(&oid, 0, sizeof oid);
    git_oid_tostr(out, sizeof(vcs_hex), &oid);
    git_libgit2_shutdown();
}

static int parse_oid(git_oid *oid, const vcs_hex hex, diag_list *d)
{
    if (git_oid_fromstrn(oid, hex, 40) != 0 || strlen(hex) != 40) {
        diag_add(d, NULL, 0, 0, "git: '%s' is not an object id", hex);
        return -1;
    }
    return 0;
}

static int signature(git_signature **sig, diag_list *d)
{
    if (git_signature_now(sig, "polyapm", "polyapm@localhost") != 0) return git_fail(d, "signature");
    return 0;
}

/* The commit from ids (no object is read back: we wrote the tree and the parents exist). */
static int write_commit(vcs *v, const git_oid *tree_oid, const vcs_hex *parents, int nparents,
                        const char *message, vcs_hex commit_out, diag_list *d)
{
    int rc = -1;
    git_oid *po = calloc((size_t)(nparents > 0 ? nparents : 1), sizeof *po);
    const git_oid **pp = calloc((size_t)(nparents > 0 ? nparents : 1), sizeof *pp);
    git_signature *sig = NULL;
    git_oid oid;
    if (!po || !pp) { diag_add(d, NULL, 0, 0, "out of memory"); goto out; }
    for (int i = 0; i < nparents; i++) {
        if (parse_oid(&po[i], parents[i], d) != 0) goto out;
        pp[i] = &po[i];
    }
    if (signature(&sig, d) != 0) goto out;
    if (git_commit_create_from_ids(&oid, v->repo, NULL, sig, sig, "UTF-8", message, tree_oid,
                                   (size_t)nparents, pp) != 0) {
        git_fail(d, "commit");
        goto out;
    }
    git_oid_tostr(commit_out, sizeof(vcs_hex), &oid);
    rc = 0;
out:
    free(po);
    free(pp);
    git_signature_free(sig);
    return rc;
}

int vcs_write_node(vcs *v, const char *program, size_t len, const char *cost_txt,
                   const vcs_hex *parents, int nparents, const char *message,
                   vcs_hex commit_out, vcs_hex blob_out, diag_list *d)
{
    int rc = -1;
    git_oid prog_oid, cost_oid, tree_oid;
    git_treebuilder *tb = NULL;
    if (git_blob_create_from_buffer(&prog_oid, v->repo, program, len) != 0)
        return git_fail(d, "writing program.apm");
    if (!cost_txt) cost_txt = "";
    if (git_blob_create_from_buffer(&cost_oid, v->repo, cost_txt, strlen(cost_txt)) != 0)
        return git_fail(d, "writing cost.txt");
    if (git_treebuilder_new(&tb, v->repo, NULL) != 0) return git_fail(d, "tree");
    if (git_treebuilder_insert(NULL, tb, "cost.txt", &cost_oid, GIT_FILEMODE_BLOB) != 0 ||
        git_treebuilder_insert(NULL, tb, "program.apm", &prog_oid, GIT_FILEMODE_BLOB) != 0 ||
        git_treebuilder_write(&tree_oid, tb) != 0) {
        git_fail(d, "writing the tree");
        goto out;
    }
    if (write_commit(v, &tree_oid, parents, nparents, message, commit_out, d) != 0) goto out;
    git_oid_tostr(blob_out, sizeof(vcs_hex), &prog_oid);
    rc = 0;
out:
    git_treebuilder_free(tb);
    return rc;
}

int vcs_recommit(vcs *v, const vcs_hex commit, const vcs_hex *parents, int nparents,
                 vcs_hex commit_out, diag_list *d)
{
    git_oid oid;
    git_commit *c = NULL;
    if (parse_oid(&oid, commit, d) != 0) return -1;
    if (git_commit_lookup(&c, v->repo, &oid) != 0) return git_fail(d, commit);
    git_oid tree_oid = *git_commit_tree_id(c);
    int rc = write_commit(v, &tree_oid, parents, nparents, git_commit_message(c), commit_out, d);
    git_commit_free(c);
    return rc;
}

static void ref_name(char *buf, size_t n, int64_t id)
{
    snprintf(buf, n, "refs/pdg/%lld", (long long)id);
}

/* Removes <repo>/<refname>.lock; 1 if there was one. */
static int clear_stale_lock(vcs *v, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s.lock", git_repository_path(v->repo), name);
    return unlink(path) == 0;
}

int vcs_ref_set(vcs *v, int64_t id, const vcs_hex commit, diag_list *d)
{
    char name[64];
    git_oid oid;
    git_reference *ref = NULL;
    ref_name(name, sizeof name, id);
    if (parse_oid(&oid, commit, d) != 0) return -1;
    int e = git_reference_create(&ref, v->repo, name, &oid, 1, "polyapm");
    if (e == GIT_ELOCKED || e == GIT_EEXISTS || (e != 0 && clear_stale_lock(v, name))) {
        /* A process killed while writing this ref left its lock file.  The caller holds the
         * workspace's write lock, so no live writer owns it: remove it and try again. */
        clear_stale_lock(v, name);
        e = git_reference_create(&ref, v->repo, name, &oid, 1, "polyapm");
    }
    if (e != 0) return git_fail(d, name);
    git_reference_free(ref);
    return 0;
}

int vcs_ref_get(vcs *v, int64_t id, vcs_hex out, diag_list *d)
{
    char name[64];
    git_oid oid;
    ref_name(name, sizeof name, id);
    int e = git_reference_name_to_id(&oid, v->repo, name);
    if (e == GIT_ENOTFOUND) return 0;
    if (e != 0) return git_fail(d, name);
    git_oid_tostr(out, sizeof(vcs_hex), &oid);
    return 1;
}

int vcs_ref_delete(vcs *v, int64_t id, diag_list *d)
{
    char name[64];
    git_reference *ref = NULL;
    ref_name(name, sizeof name, id);
    int e = git_reference_lookup(&ref, v->repo, name);
    if (e == GIT_ENOTFOUND) return 0;
    if (e != 0) return git_fail(d, name);
    e = git_reference_delete(ref);
    if (e != 0 && clear_stale_lock(v, name)) e = git_reference_delete(ref);
    git_reference_free(ref);
    if (e != 0) return git_fail(d, name);
    return 0;
}

typedef struct ref_acc { int64_t *ids; vcs_hex *commits; int n, cap; int oom; } ref_acc;

static int ref_cb(git_reference *ref, void *payload)
{
    ref_acc *a = payload;
    const char *name = git_reference_name(ref);
    const git_oid *oid = git_reference_target(ref);
    char *end;
    long long id = strtoll(name + strlen("refs/pdg/"), &end, 10);
    if (oid && *end == '\0' && end != name + strlen("refs/pdg/")) {
        if (a->n == a->cap) {
            int cap = a->cap ? a->cap * 2 : 64;
            int64_t *ids = realloc(a->ids, (size_t)cap * sizeof *ids);
            if (ids) a->ids = ids;
            vcs_hex *cs = realloc(a->commits, (size_t)cap * sizeof *cs);
            if (cs) a->commits = cs;
            if (!ids || !cs) { a->oom = 1; git_reference_free(ref); return -1; }
            a->cap = cap;
        }
        a->ids[a->n] = id;
        git_oid_tostr(a->commits[a->n], sizeof(vcs_hex), oid);
        a->n++;
    }
    git_reference_free(ref);
    return 0;
}

int vcs_ref_list(vcs *v, own_give int64_t **ids, own_give vcs_hex **commits, int *n, diag_list *d)
{
    ref_acc a = {0};
    git_reference_iterator *it = NULL;
    git_reference *ref;
    if (git_reference_iterator_glob_new(&it, v->repo, "refs/pdg/*") != 0) return git_fail(d, "refs");
    int e;
    while ((e = git_reference_next(&ref, it)) == 0)
        if (ref_cb(ref, &a) != 0) break;
    git_reference_iterator_free(it);
    if (a.oom || (e != 0 && e != GIT_ITEROVER)) {
        free(a.ids);
        free(a.commits);
        if (a.oom) diag_add(d, NULL, 0, 0, "out of memory");
        else git_fail(d, "listing refs");
        return -1;
    }
    *ids = a.ids;
    *commits = a.commits;
    *n = a.n;
    return 0;
}

int vcs_has_object(vcs *v, const vcs_hex id)
{
    git_oid oid;
    if (git_oid_fromstrn(&oid, id, 40) != 0) return 0;
    return git_odb_exists(v->odb, &oid);
}

own_give char *vcs_blob_read(vcs *v, const vcs_hex blob, size_t *len, diag_list *d)
{
    git_oid oid;
    git_blob *b = NULL;
    if (parse_oid(&oid, blob, d) != 0) return NULL;
    if (git_blob_lookup(&b, v->repo, &oid) != 0) { git_fail(d, blob); return NULL; }
    size_t n = (size_t)git_blob_rawsize(b);
    char *text = malloc(n + 1);
    if (text) {
        memcpy(text, git_blob_rawcontent(b), n);
        text[n] = '\0';
        if (len) *len = n;
    } else {
        diag_add(d, NULL, 0, 0, "out of memory");
    }
    git_blob_free(b);
    return text;
}

int vcs_commit_read(vcs *v, const vcs_hex commit, own_give vcs_commit_info *out, diag_list *d)
{
    git_oid oid;
    git_commit *c = NULL;
    git_tree *tree = NULL;
    memset(out, 0, sizeof *out);
    if (parse_oid(&oid, commit, d) != 0) return -1;
    if (git_commit_lookup(&c, v->repo, &oid) != 0) return git_fail(d, commit);
    int rc = -1;
    if (git_commit_tree(&tree, c) != 0) { git_fail(d, "commit tree"); goto out; }
    const git_tree_entry *e = git_tree_entry_byname(tree, "program.apm");
    if (!e) { diag_add(d, NULL, 0, 0, "commit %.12s has no program.apm", commit); goto out; }
    git_oid_tostr(out->program, sizeof(vcs_hex), git_tree_entry_id(e));
    unsigned np = git_commit_parentcount(c);
    for (unsigned i = 0; i < np && i < 16; i++)
        git_oid_tostr(out->parents[i], sizeof(vcs_hex), git_commit_parent_id(c, i));
    out->nparents = np < 16 ? (int)np : 16;
    out->time = (int64_t)git_commit_time(c);
    out->message = strdup(git_commit_message(c));
    rc = 0;
out:
    git_tree_free(tree);
    git_commit_free(c);
    return rc;
}

void vcs_commit_info_clear(own_keep vcs_commit_info *c)
{
    free(c->message);
    memset(c, 0, sizeof *c);
}

/* One diff line: context, additions and deletions get their origin character. */
static void patch_line(const git_diff_line *line, FILE *f)
{
    if (line->origin == GIT_DIFF_LINE_CONTEXT || line->origin == GIT_DIFF_LINE_ADDITION ||
        line->origin == GIT_DIFF_LINE_DELETION)
        fputc(line->origin, f);
    fwrite(line->content, 1, line->content_len, f);
}

own_give char *vcs_diff_text(const char *a, size_t alen, const char *aname,
                             const char *b, size_t blen, const char *bname, int context, diag_list *d)
{
    git_libgit2_init();
    git_patch *patch = NULL;
    git_diff_options opts;
    git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
    opts.context_lines = (uint32_t)(context >= 0 ? context : 3);
    char *out = NULL;
    size_t outlen = 0;
    if (git_patch_from_buffers(&patch, a, alen, aname, b, blen, bname, &opts) != 0) {
        git_fail(d, "diff");
        git_libgit2_shutdown();
        return NULL;
    }
    FILE *f = open_memstream(&out, &outlen);
    if (!f) { diag_add(d, NULL, 0, 0, "out of memory"); git_patch_free(patch); git_libgit2_shutdown(); return NULL; }
    if (git_patch_num_hunks(patch) > 0) {
        fprintf(f, "--- a/%s\n+++ b/%s\n", aname, bname);
        for (size_t h = 0; h < git_patch_num_hunks(patch); h++) {
            const git_diff_hunk *hunk;
            size_t nlines;
            git_patch_get_hunk(&hunk, &nlines, patch, h);
            fwrite(hunk->header, 1, hunk->header_len, f);
            for (size_t l = 0; l < nlines; l++) {
                const git_diff_line *line;
                git_patch_get_line_in_hunk(&line, patch, h, l);
                patch_line(line, f);
            }
        }
    }
    fclose(f);
    git_patch_free(patch);
    git_libgit2_shutdown();
    return out;
}
