/*
 * cmd_xf.c — the transformation commands, on program files or on workspace nodes:
 *
 *   polyapm deps FILE.apm|NODE [-D name=value]... [--fixed] [--json]
 *       the dependences between statement instances (thesis Fig. 6.2 style)
 *   polyapm transforms FILE.apm|NODE [--machine M] [--json]
 *       the transforms that apply to the program, with their parameters and defaults, and the
 *       predicted gain of the collective fusions under machine profile M (default machine.h's)
 *   polyapm apply FILE.apm NAME [key=value]... [-D name=value]... [-o OUT.apm]
 *       applies a transform; writes the new program's canonical text to OUT.apm or stdout
 *   polyapm apply NODE NAME [key=value]... [-D name=value]... [--why TEXT] [-q]
 *       in a workspace: creates the child node (or links the existing node with the same
 *       program), simulates it against its source and stores the result (-q: prints its id)
 *
 * Exit status: 0 ok, 1 the transform was refused (the reason names the dependence or the
 * statement) or the file does not load, 2 usage (malformed parameters included).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "machine.h"
#include "cli.h"
#include "ops.h"
#include "xf.h"

int cmd_deps(int argc, char **argv);
int cmd_transforms(int argc, char **argv);
int cmd_apply(int argc, char **argv);

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
                      const ir_binding *b, int nb, const char *why, int quiet)
{
    diag_list d;
    diag_list_init(&d);
    int64_t child = 0;
    int created = 0, st = 0, rc = CLI_FAIL;
    ops_sim j;
    memset(&j, 0, sizeof j);
    if (ops_apply(s, parent, name, nkv, kv, b, nb, stderr, &child, &created, &st, &d) != 0) {
        diag_print(&d, stderr);
        rc = st == XF_EUSAGE ? CLI_USAGE : CLI_FAIL;
        goto out;
    }
    if (why && *why && store_note(s, child, why, &d) != 0) goto fail;
    j.node = child;
    if (machine_resolve(s, NULL, &j.profile, &d) != 0) goto fail;
    for (int i = 0; i < nb && i < OPS_MAX_BINDINGS; i++) j.bindings[j.nbindings++] = b[i];
    if (ops_sim_node(s, &j, &d) != 0) {
        printf("%s node %lld under %lld; its simulation failed:\n", created ? "added" : "linked",
               (long long)child, (long long)parent);
        diag_print(&d, stderr);
        goto out;
    }
    if (quiet && j.verified > 0) printf("%lld\n", (long long)child);
    else
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

/* ---- the options of deps, transforms and apply ---------------------------------------------- */

enum { XF_MAX_BINDINGS = 64 };
typedef struct xfc_args {
    const char *machine, *out, *why;
    int json, fixed, quiet;
    ir_binding b[XF_MAX_BINDINGS];
    int nb;
} xfc_args;

enum { DEPS = 1 << 0, TRANSFORMS = 1 << 1, APPLY = 1 << 2 };
static const cli_opt xf_opts[] = {
    {.name = "-D", .kind = OPT_BINDING, .value = "name=value", .off = offsetof(xfc_args, b),
     .count = offsetof(xfc_args, nb), .hi = XF_MAX_BINDINGS, .cmds = DEPS | APPLY, .flags = OPT_REPEAT,
     .help = "set a parameter to an integer (deps: implies --fixed)"},
    {.name = "--fixed", .kind = OPT_FLAG, .off = offsetof(xfc_args, fixed), .cmds = DEPS,
     .help = "the parameters take their values (default: symbolic, each at least 1)"},
    {.name = "--machine", .kind = OPT_STR, .value = "M", .off = offsetof(xfc_args, machine), .cmds = TRANSFORMS,
     .help = "price the collective fusions on this machine profile (default: this machine's, see polyapm(1) ENVIRONMENT)"},
    {.name = "-o", .kind = OPT_STR, .value = "OUT.apm", .off = offsetof(xfc_args, out), .cmds = APPLY,
     .help = "write the new program here (a file only; default: stdout)"},
    {.name = "--why", .kind = OPT_STR, .value = "TEXT", .off = offsetof(xfc_args, why), .cmds = APPLY,
     .help = "the reason for this step (a node only: its note)"},
    {.name = "-q", .kind = OPT_FLAG, .off = offsetof(xfc_args, quiet), .cmds = APPLY,
     .help = "a node only: print just the new node's id (for scripts; see polyapm script)"},
    {.name = "--json", .kind = OPT_FLAG, .off = offsetof(xfc_args, json), .cmds = DEPS | TRANSFORMS,
     .help = "print one JSON object"},
    {0},
};

const cli_spec cmd_deps_spec = {"deps", "FILE.apm|NODE",
                                "the dependences between statement instances (flow; anti/output where memory is reused)",
                                xf_opts, DEPS, NULL, NULL, cmd_deps};
const cli_spec cmd_transforms_spec = {"transforms", "FILE.apm|NODE",
                                      "the transforms that apply to a program, with their parameters (and fusion gains under M)",
                                      xf_opts, TRANSFORMS, NULL, NULL, cmd_transforms};
const cli_spec cmd_apply_spec = {"apply", "FILE.apm|NODE TRANSFORM [key=value]...",
                                 "apply a transform (e.g. stm theta=t sigma=x); a refusal says which dependence",
                                 xf_opts, APPLY, NULL, NULL, cmd_apply};

/* Parses the options of `spec` into `a`; the positional words are argv[1..*npos]. */
static int xf_parse(const cli_spec *spec, int argc, char **argv, xfc_args *a, int *npos)
{
    memset(a, 0, sizeof *a);
    int rc = optable_parse(spec, argc, argv, a, npos);
    if (!rc && a->nb) a->fixed = 1;   /* deps: -D fixes the parameters */
    return rc;
}

int cmd_deps(int argc, char **argv)
{
    xfc_args a;
    int npos = 0;
    int rc0 = xf_parse(&cmd_deps_spec, argc, argv, &a, &npos);
    if (rc0) return rc0;
    if (npos > 1) return cli_usage("deps", "one file at a time");
    const char *file = npos ? argv[1] : NULL;
    int json = a.json, fixed = a.fixed, nb = a.nb;
    ir_binding *b = a.b;
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
    xfc_args a;
    int npos = 0;
    int rc0 = xf_parse(&cmd_transforms_spec, argc, argv, &a, &npos);
    if (rc0) return rc0;
    if (npos > 1) return cli_usage("transforms", "one file at a time");
    const char *file = npos ? argv[1] : NULL, *machine = a.machine;
    int json = a.json;
    if (!file) return cli_usage("transforms", "missing FILE.apm");
    cost_profile prof;
    diag_list d;
    diag_list_init(&d);
    if (machine_resolve(NULL, machine, &prof, &d) != 0) {
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
    xfc_args a;
    int npos = 0;
    int rc0 = xf_parse(&cmd_apply_spec, argc, argv, &a, &npos);
    if (rc0) return rc0;
    const char *file = npos > 0 ? argv[1] : NULL, *name = npos > 1 ? argv[2] : NULL, *out = a.out, *why = a.why;
    char **kv = calloc((size_t)argc + 1, sizeof *kv);
    int nkv = 0, nb = a.nb;
    ir_binding *b = a.b;
    for (int i = 3; i <= npos; i++) kv[nkv++] = argv[i];
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
        int rc = apply_node(s, node, name, nkv, kv, b, nb, why, a.quiet);
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
