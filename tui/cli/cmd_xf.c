/*
 * cmd_xf.c — the transformation commands, on program files or on workspace nodes:
 *
 *   polyapm deps FILE.apm|NODE [-D name=value]... [--fixed] [--json]
 *       the dependences between statement instances (thesis Fig. 6.2 style)
 *   polyapm transforms FILE.apm|NODE [--machine M] [--json]
 *       the transforms that apply to the program, with their parameters and defaults, and the
 *       predicted gain of the collective fusions under machine profile M (default scali2004)
 *   polyapm apply FILE.apm NAME [key=value]... [-D name=value]... [-o OUT.apm]
 *       applies a transform; writes the new program's canonical text to OUT.apm or stdout
 *   polyapm apply NODE NAME [key=value]... [-D name=value]... [--why TEXT]
 *       in a workspace: creates the child node (or links the existing node with the same
 *       program), simulates it against the root and stores the result
 *
 * Exit status: 0 ok, 1 the transform was refused (the reason names the dependence or the
 * statement) or the file does not load, 2 usage (malformed parameters included).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "cli.h"
#include "ops.h"
#include "xf.h"

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The program of a file, or of a node of the workspace (-w, $POLYAPM_WORKSPACE or the current
 * directory).  With `s`/`id` non-NULL the workspace stays open for the caller (node form only). */
static ir_program *load_target(const char *target, store **s, int64_t *id)
{
    diag_list d;
    diag_list_init(&d);
    ir_program *p = NULL;
    if (is_file(target)) {
        p = ir_load_file(target, &d);
        if (!p) diag_print(&d, stderr);
        diag_list_free(&d);
        return p;
    }
    store *ws = NULL;
    int64_t node = 0;
    char *dir = store_find(NULL, &d), *text = NULL;
    size_t len = 0;
    if (!dir) {
        cli_fail("%s: no such file, and %s", target, d.n ? d.items[d.n - 1].msg : "no workspace");
        goto out;
    }
    if (store_open(dir, s ? STORE_WRITE : STORE_READ, &ws, &d) != 0 ||
        store_resolve(ws, target, &node, &d) != 0 || !(text = store_node_text(ws, node, &len, &d))) {
        cli_fail("%s", d.n ? d.items[d.n - 1].msg : "cannot open the workspace");
        goto out;
    }
    p = ir_load_text(target, text, len, &d);
    if (!p) diag_print(&d, stderr);
out:
    if (p && s) { *s = ws; *id = node; ws = NULL; }
    store_close(ws);
    free(dir);
    free(text);
    diag_list_free(&d);
    return p;
}

static ir_program *load(const char *target) { return load_target(target, NULL, NULL); }

/* `apply NODE ...` in a workspace: the child, simulated against the root and stored. */
static int apply_node(store *s, int64_t parent, const char *name, int nkv, char **kv,
                      const ir_binding *b, int nb, const char *why)
{
    diag_list d;
    diag_list_init(&d);
    int64_t child = 0;
    int created = 0, st = 0, rc = CLI_FAIL;
    ops_sim j;
    memset(&j, 0, sizeof j);
    if (ops_apply(s, parent, name, nkv, kv, b, nb, &child, &created, &st, &d) != 0) {
        diag_print(&d, stderr);
        rc = st == XF_EUSAGE ? CLI_USAGE : CLI_FAIL;
        goto out;
    }
    if (why && *why && store_note(s, child, why, &d) != 0) goto fail;
    j.node = child;
    if (cost_profile_resolve("scali2004", &j.profile, &d) != 0) goto fail;
    for (int i = 0; i < nb && i < OPS_MAX_BINDINGS; i++) j.bindings[j.nbindings++] = b[i];
    if (ops_sim_node(s, &j, &d) != 0) {
        printf("%s node %lld under %lld; its simulation failed:\n", created ? "added" : "linked",
               (long long)child, (long long)parent);
        diag_print(&d, stderr);
        goto out;
    }
    printf("%s node %lld %s (%s) under %lld: cost %.1f, %s\n", created ? "added" : "linked",
           (long long)child, j.n.label, j.n.level, (long long)parent, j.total,
           j.verified > 0 ? "verified" : j.verified == 0 ? "NOT verified" : "not checked");
    rc = j.verified > 0 ? CLI_OK : CLI_FAIL;
    goto out;
fail:
    rc = cli_fail("%s", d.n ? d.items[d.n - 1].msg : "failed");
out:
    ops_sim_free(&j);
    diag_list_free(&d);
    return rc;
}

int cmd_deps(int argc, char **argv)
{
    const char *file = NULL;
    int json = 0, fixed = 0, nb = 0;
    ir_binding b[64];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) json = 1;
        else if (!strcmp(argv[i], "--fixed")) fixed = 1;
        else if (!strcmp(argv[i], "-D") && i + 1 < argc) {
            if (nb == 64 || ir_parse_binding(argv[++i], &b[nb++]) < 0)
                return cli_usage("deps", "bad -D binding '%s' (expected name=integer)", argv[i]);
            fixed = 1;
        } else if (argv[i][0] == '-') return cli_usage("deps", "unknown option '%s'", argv[i]);
        else if (file) return cli_usage("deps", "one file at a time");
        else file = argv[i];
    }
    if (!file) return cli_usage("deps", "missing FILE.apm");
    ir_program *p = load(file);
    if (!p) return CLI_FAIL;
    diag_list d;
    diag_list_init(&d);
    xf_deps *deps = xf_deps_compute(p, b, nb, fixed, &d);
    int rc = CLI_OK;
    if (!deps) {
        diag_print(&d, stderr);
        rc = CLI_FAIL;
    } else {
        xf_deps_print(stdout, deps, json);
    }
    xf_deps_free(deps);
    diag_list_free(&d);
    ir_program_free(p);
    return rc;
}

int cmd_transforms(int argc, char **argv)
{
    const char *file = NULL, *machine = "scali2004";
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) json = 1;
        else if (!strcmp(argv[i], "--machine") && i + 1 < argc) machine = argv[++i];
        else if (argv[i][0] == '-') return cli_usage("transforms", "unknown option '%s'", argv[i]);
        else if (file) return cli_usage("transforms", "one file at a time");
        else file = argv[i];
    }
    if (!file) return cli_usage("transforms", "missing FILE.apm");
    cost_profile prof;
    diag_list d;
    diag_list_init(&d);
    if (cost_profile_resolve(machine, &prof, &d) != 0) {
        diag_print(&d, stderr);
        diag_list_free(&d);
        return CLI_USAGE;
    }
    diag_list_free(&d);
    ir_program *p = load(file);
    if (!p) return CLI_FAIL;
    xf_print_applicable_on(stdout, p, json, &prof);
    ir_program_free(p);
    return CLI_OK;
}

int cmd_apply(int argc, char **argv)
{
    const char *file = NULL, *name = NULL, *out = NULL, *why = NULL;
    char **kv = calloc((size_t)argc + 1, sizeof *kv);
    int nkv = 0, nb = 0;
    ir_binding b[64];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "--why") && i + 1 < argc) why = argv[++i];
        else if (!strcmp(argv[i], "-D") && i + 1 < argc) {
            if (nb == 64 || ir_parse_binding(argv[++i], &b[nb++]) < 0) {
                free(kv);
                return cli_usage("apply", "bad -D binding '%s' (expected name=integer)", argv[i]);
            }
        } else if (argv[i][0] == '-' && argv[i][1] && !strchr(argv[i], '=')) {
            free(kv);
            return cli_usage("apply", "unknown option '%s'", argv[i]);
        } else if (!file) file = argv[i];
        else if (!name) name = argv[i];
        else kv[nkv++] = argv[i];
    }
    if (!file || !name) {
        free(kv);
        return cli_usage("apply", "missing %s", !file ? "FILE.apm" : "the transform's NAME");
    }
    if (!xf_find(name)) {
        free(kv);
        return cli_usage("apply", "unknown transform '%s' (see polyapm transforms FILE.apm)", name);
    }
    store *s = NULL;
    int64_t node = 0;
    int in_workspace = !is_file(file);
    if (in_workspace && out) {
        free(kv);
        return cli_usage("apply", "-o writes a file; in a workspace the result is a new node");
    }
    ir_program *p = load_target(file, in_workspace ? &s : NULL, &node);
    if (!p) {
        free(kv);
        return CLI_FAIL;
    }
    if (s) {
        ir_program_free(p);
        int rc = apply_node(s, node, name, nkv, kv, b, nb, why);
        store_close(s);
        free(kv);
        return rc;
    }
    diag_list d;
    diag_list_init(&d);
    int st = 0;
    ir_program *q = xf_apply_with(p, name, nkv, kv, b, nb, stderr, &d, &st);
    int rc = CLI_OK;
    if (!q) {
        diag_print(&d, stderr);
        rc = st == XF_EUSAGE ? CLI_USAGE : CLI_FAIL;
    } else {
        char *txt = ir_print(q);
        if (out) {
            FILE *f = fopen(out, "w");
            if (!f || fputs(txt, f) < 0) rc = cli_fail("cannot write %s", out);
            if (f && fclose(f) != 0) rc = cli_fail("cannot write %s", out);
        } else {
            fputs(txt, stdout);
        }
        free(txt);
    }
    ir_program_free(q);
    diag_list_free(&d);
    ir_program_free(p);
    free(kv);
    return rc;
}
