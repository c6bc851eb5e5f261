/*
 * cmd_xf.c — the transformation commands on program files:
 *
 *   polyapm deps FILE.apm [-D name=value]... [--fixed] [--json]
 *       the dependences between statement instances (thesis Fig. 6.2 style)
 *   polyapm transforms FILE.apm [--json]
 *       the transforms that apply to the program, with their parameters and defaults
 *   polyapm apply FILE.apm NAME [key=value]... [-D name=value]... [-o OUT.apm]
 *       applies a transform; writes the new program's canonical text to OUT.apm or stdout
 *
 * Exit status: 0 ok, 1 the transform was refused (the reason names the dependence or the
 * statement) or the file does not load, 2 usage (malformed parameters included).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "xf.h"

static ir_program *load(const char *path)
{
    diag_list d;
    diag_list_init(&d);
    ir_program *p = ir_load_file(path, &d);
    if (!p) diag_print(&d, stderr);
    diag_list_free(&d);
    return p;
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
            if (nb == 64 || cli_parse_binding(argv[++i], &b[nb++]) < 0)
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
    const char *file = NULL;
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) json = 1;
        else if (argv[i][0] == '-') return cli_usage("transforms", "unknown option '%s'", argv[i]);
        else if (file) return cli_usage("transforms", "one file at a time");
        else file = argv[i];
    }
    if (!file) return cli_usage("transforms", "missing FILE.apm");
    ir_program *p = load(file);
    if (!p) return CLI_FAIL;
    xf_print_applicable(stdout, p, json);
    ir_program_free(p);
    return CLI_OK;
}

int cmd_apply(int argc, char **argv)
{
    const char *file = NULL, *name = NULL, *out = NULL;
    char **kv = calloc((size_t)argc + 1, sizeof *kv);
    int nkv = 0, nb = 0;
    ir_binding b[64];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "-D") && i + 1 < argc) {
            if (nb == 64 || cli_parse_binding(argv[++i], &b[nb++]) < 0) {
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
    ir_program *p = load(file);
    if (!p) {
        free(kv);
        return CLI_FAIL;
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
