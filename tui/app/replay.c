/*
 * replay.c — a derivation re-applied to a changed source, and written out as a script (see
 * replay.h).  The path is read once (store_path); each step is applied with ops_apply, as
 * `polyapm apply NODE` applies it, and simulated with ops_sim_node against the new source.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "machine.h"
#include "ops.h"
#include "replay.h"
#include "xf.h"

/* ---- parameters --------------------------------------------------------------------------- */

/* Does a key=value argument start at s (a key of letters, digits, '_' and '.', then one '=')? */
static int starts_argument(const char *s)
{
    const char *k = s;
    while (isalnum((unsigned char)*k) || *k == '_' || *k == '.') k++;
    return k > s && !isdigit((unsigned char)*s) && k[0] == '=' && k[1] != '=';
}

int replay_split_params(const char *params, char ***argv)
{
    size_t len = params ? strlen(params) : 0;
    int n = 0;
    for (size_t i = 0; i < len; i++)
        if (params[i] != ' ' && (i == 0 || (params[i - 1] == ' ' && starts_argument(params + i)))) n++;
    char **v = malloc((size_t)(n + 1) * sizeof *v + len + 1);
    if (!v) return -1;
    char *text = (char *)(v + n + 1);
    memcpy(text, params ? params : "", len + 1);
    int k = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == ' ' || !(i == 0 || (text[i - 1] == ' ' && starts_argument(text + i)))) continue;
        if (i > 0) {   /* the previous argument ends at the spaces before this one */
            size_t e = i;
            while (e > 0 && text[e - 1] == ' ') text[--e] = '\0';
        }
        v[k++] = text + i;
    }
    v[k] = NULL;
    *argv = v;
    return k;
}

/* ---- the path ------------------------------------------------------------------------------- */

/* The steps from node's source to node: path[*from .. *n-1], path[*from] the source. */
static int source_path(store *s, int64_t node, store_step **path, int *n, int *from, diag_list *d)
{
    int64_t ref;
    if (store_reference(s, node, &ref, d) != 0 || store_path(s, node, path, n, d) != 0) return -1;
    *from = 0;
    for (int i = 0; i < *n; i++)
        if ((*path)[i].node.id == ref) *from = i;
    return 0;
}

static int is_transform(const store_edge *e) { return e->transform && xf_find(e->transform); }

/* ---- replay --------------------------------------------------------------------------------- */

static void say(replay_note_fn note, void *ctx, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(replay_note_fn note, void *ctx, const char *fmt, ...)
{
    if (!note) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    note(ctx, line);
}

/* The new source as a child of `parent` (the path's source), refused when it is that very
 * program or at another level. */
static int add_source(store *s, int64_t parent, const char *text, size_t len, const char *name,
                      int64_t *id, diag_list *d)
{
    ir_program *q = ir_load_text(name, text, len, d), *p = q ? ops_node_program(s, parent, d) : NULL;
    int rc = -1;
    if (!p) goto out;
    if (q->level != p->level) {
        diag_add(d, NULL, 0, 0, "%s is a %s program; the path starts at node %lld, a %s program", name,
                 ir_level_name(q->level), (long long)parent, ir_level_name(p->level));
        goto out;
    }
    char *a = ir_print(q), *b = ir_print(p);
    int same = a && b && !strcmp(a, b);
    if (same) diag_add(d, NULL, 0, 0, "%s is the path's own source (node %lld): nothing to replay", name, (long long)parent);
    if (!same && a) {
        const char *base = strrchr(name, '/');
        rc = ops_add_text(s, parent, a, strlen(a), STORE_REPLAY_EDGE, base ? base + 1 : name, NULL, id, NULL, d);
    }
    free(a);
    free(b);
out:
    ir_program_free(p);
    ir_program_free(q);
    return rc;
}

/* Applies one step under `parent`; 0 with *child verified, 1 when the step does not replay (why
 * in d; a node it created is removed), -1 on a store error. */
static int replay_step(store *s, int64_t parent, const store_edge *e, int64_t *child, double *cost, diag_list *d)
{
    char **argv = NULL;
    int argc = replay_split_params(e->params, &argv), created = 0, st = 0, rc = 1;
    if (argc < 0) { diag_add(d, NULL, 0, 0, "out of memory"); return -1; }
    if (ops_apply(s, parent, e->transform, argc, argv, NULL, 0, NULL, child, &created, &st, d) != 0) {
        free(argv);
        return 1;
    }
    free(argv);
    ops_sim j;
    memset(&j, 0, sizeof j);
    j.node = *child;
    if (machine_resolve(s, NULL, &j.profile, d) != 0) rc = -1;
    else if (ops_sim_node(s, &j, d) != 0) diag_add(d, NULL, 0, 0, "its simulation failed");
    else if (j.verified <= 0) diag_add(d, NULL, 0, 0, "it no longer computes what the source computes (NOT verified)");
    else rc = 0;
    *cost = j.total;
    ops_sim_free(&j);
    if (rc != 0 && created) {
        int64_t *gone = NULL;
        int ngone = 0;
        diag_list quiet;
        diag_list_init(&quiet);
        store_rm(s, *child, 0, &gone, &ngone, &quiet);
        free(gone);
        diag_list_free(&quiet);
    }
    return rc;
}

int replay_onto(store *s, int64_t node, const char *text, size_t len, const char *name,
                replay_note_fn note, void *ctx, replay_result *r, diag_list *d)
{
    memset(r, 0, sizeof *r);
    store_step *path = NULL;
    int n = 0, from = 0, rc = -1;
    if (source_path(s, node, &path, &n, &from, d) != 0) return -1;
    r->steps = n - 1 - from;
    if (add_source(s, path[from].node.id, text, len, name, &r->source, d) != 0) goto out;
    r->leaf = r->source;
    say(note, ctx, "source %s: node %lld (under node %lld)", name, (long long)r->source, (long long)path[from].node.id);
    rc = 0;
    for (int i = from + 1; i < n && rc == 0; i++) {
        const store_edge *e = &path[i].edge;
        const char *params = e->params && *e->params ? e->params : "";
        if (!is_transform(e)) {
            diag_add(d, NULL, 0, 0, "step %d of %d (node %lld, '%s') is not a transform but '%s' (a hand edit): "
                     "the replay stops here", i - from, r->steps, (long long)path[i].node.id,
                     path[i].node.label, e->transform ? e->transform : "?");
            rc = 1;
            break;
        }
        int64_t child = 0;
        double cost = 0;
        int f = replay_step(s, r->leaf, e, &child, &cost, d);
        if (f < 0) { rc = -1; break; }
        if (f > 0) {
            diag_add(d, NULL, 0, 0, "step %d of %d (%s %s, node %lld on the original path) does not replay; "
                     "the replay stops here, %d step%s kept", i - from, r->steps, e->transform, params,
                     (long long)path[i].node.id, r->done, r->done == 1 ? "" : "s");
            rc = 1;
            break;
        }
        r->leaf = child;
        r->done++;
        say(note, ctx, "step %d of %d: %s%s%s -> node %lld: cost %.1f, verified", i - from, r->steps,
            e->transform, *params ? " " : "", params, (long long)child, cost);
    }
out:
    store_path_free(path, n);
    return rc;
}

/* ---- script --------------------------------------------------------------------------------- */

/* s single-quoted for the shell when it needs it. */
static void shell_word(FILE *out, const char *s)
{
    int plain = *s != '\0';
    for (const char *c = s; *c && plain; c++)
        plain = isalnum((unsigned char)*c) || strchr("_.,=+-/:%@^", *c);
    if (plain) { fputs(s, out); return; }
    fputc('\'', out);
    for (const char *c = s; *c; c++) {
        if (*c == '\'') fputs("'\\''", out);
        else fputc(*c, out);
    }
    fputc('\'', out);
}

int replay_script(store *s, int64_t node, const char *ws, FILE *out, diag_list *d)
{
    store_step *path = NULL;
    int n = 0, from = 0;
    if (source_path(s, node, &path, &n, &from, d) != 0) return -1;
    fprintf(out, "#!/bin/sh\n# The derivation of node %lld (%s) in %s: %d step%s from its source, node %lld (%s).\n",
            (long long)node, path[n - 1].node.label, ws, n - 1 - from, n - 1 - from == 1 ? "" : "s",
            (long long)path[from].node.id, path[from].node.label);
    fprintf(out, "# Usage: sh SCRIPT [NODE]  -- in a workspace (-w or POLYAPM_WORKSPACE), from NODE (default ROOT):\n"
                 "# each step prints the id of the node it adds; a step that does not verify stops the script.\n"
                 "set -e\nnode=${1:-ROOT}\n");
    int rc = 0;
    for (int i = from + 1; i < n; i++) {
        const store_edge *e = &path[i].edge;
        if (!is_transform(e)) {
            fprintf(out, "# node %lld (%s) is a hand edit ('%s'), not a transform: it cannot be scripted\n"
                         "echo 'the derivation continues with a hand edit (node %lld)' >&2\nexit 1\n",
                    (long long)path[i].node.id, path[i].node.label, e->transform ? e->transform : "?",
                    (long long)path[i].node.id);
            rc = 1;
            break;
        }
        char **argv = NULL;
        int argc = replay_split_params(e->params, &argv);
        if (argc < 0) { diag_add(d, NULL, 0, 0, "out of memory"); rc = -1; break; }
        fprintf(out, "node=$(polyapm apply \"$node\" %s", e->transform);
        for (int a = 0; a < argc; a++) {
            fputc(' ', out);
            shell_word(out, argv[a]);
        }
        fprintf(out, " -q)   # node %lld, %s\n", (long long)path[i].node.id, path[i].node.label);
        free(argv);
    }
    if (rc == 0) fprintf(out, "echo \"$node\"\n");
    store_path_free(path, n);
    return rc < 0 ? -1 : 0;
}
