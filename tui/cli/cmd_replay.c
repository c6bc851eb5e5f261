/*
 * cmd_replay.c — a derivation re-applied to a changed program, and written out as a script:
 *
 *   polyapm replay NODE --onto FILE [-I DIR]... [-D NAME[=VALUE]]... [--function F] [--output A,B] [-w WS]
 *       adds FILE (.apm, or C imported as by `polyapm import`, with the C options) as a new
 *       source beside NODE's (an edge `replay` from it) and re-applies the
 *       transforms of the path from NODE's source to NODE, one by one, each simulated and
 *       verified against FILE; stops at the first step that no longer applies or verifies
 *   polyapm script NODE [-o FILE] [-w WS]
 *       the same path as a shell script of `polyapm apply` lines
 *
 * Exit status: 0 every step replayed (script: written), 1 stopped early or failed, 2 usage.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "replay.h"
#include "report.h"
#include "textfile.h"

int cmd_replay(int argc, char **argv);
int cmd_script(int argc, char **argv);

enum { R_REPLAY = 1 << 0, R_SCRIPT = 1 << 1 };

typedef struct replay_args {
    cli_cimport c;        /* first: the C options' setters take the struct as a cli_cimport */
    const char *workspace, *onto, *out;
    int json;
} replay_args;

static const cli_opt replay_opts[] = {
    {.name = "--onto", .kind = OPT_STR, .value = "FILE", .off = offsetof(replay_args, onto), .cmds = R_REPLAY,
     .flags = OPT_REQUIRED, .help = "the changed program (.apm, or C: imported as by polyapm import)"},
    {.name = "-I", .kind = OPT_FN, .value = "DIR", .set = cli_cimport_include, .cmds = R_REPLAY, .flags = OPT_REPEAT,
     .help = "a C file: a directory of included headers, as for cc"},
    {.name = "-D", .kind = OPT_FN, .value = "NAME[=VALUE]", .set = cli_cimport_define, .cmds = R_REPLAY,
     .flags = OPT_REPEAT, .help = "a C file: define a macro, as for cc"},
    {.name = "--function", .kind = OPT_STR, .value = "F", .off = offsetof(replay_args, c.function), .cmds = R_REPLAY,
     .help = "a C file: import F's body (default: the #pragma scop region)"},
    {.name = "--output", .kind = OPT_STR, .value = "A,B", .off = offsetof(replay_args, c.outputs), .cmds = R_REPLAY,
     .help = "a C file: the output arrays"},
    {.name = "-o", .kind = OPT_STR, .value = "FILE", .off = offsetof(replay_args, out), .cmds = R_SCRIPT,
     .help = "write the script here (default: stdout)"},
    {.name = "--json", .kind = OPT_FLAG, .off = offsetof(replay_args, json), .cmds = R_REPLAY,
     .help = "print one JSON object (source, leaf, steps, done, stopped)"},
    {.name = "-w", .alias = "--workspace", .kind = OPT_STR, .value = "WS", .off = offsetof(replay_args, workspace),
     .cmds = R_REPLAY | R_SCRIPT, .help = "the workspace (default: $POLYAPM_WORKSPACE, then the current directory)"},
    {0},
};

const cli_spec cmd_replay_spec = {"replay", "NODE",
                                  "re-apply the derivation of NODE to a changed program, step by step, verified",
                                  replay_opts, R_REPLAY, NULL, NULL, cmd_replay};
const cli_spec cmd_script_spec = {"script", "NODE", "the derivation of NODE as a shell script of polyapm apply lines",
                                  replay_opts, R_SCRIPT, NULL, NULL, cmd_script};

/* Parses, opens the workspace and resolves NODE; 0 or the exit status after reporting. */
static int open_node(const cli_spec *spec, int argc, char **argv, replay_args *a, int mode, store **s,
                     int64_t *node, char **dir)
{
    memset(a, 0, sizeof *a);
    int npos = 0, rc = optable_parse(spec, argc, argv, a, &npos);
    if (rc) return rc;
    if (npos != 1) return cli_usage(spec->name, npos ? "one NODE at a time" : "missing NODE");
    diag_list d;
    diag_list_init(&d);
    *dir = store_find(a->workspace, &d);
    if (!*dir || store_open(*dir, mode, s, &d) != 0 || store_resolve(*s, argv[1], node, &d) != 0)
        rc = cli_fail("%s", d.n ? d.items[d.n - 1].msg : "cannot open the workspace");
    diag_list_free(&d);
    return rc;
}

static void print_line(void *ctx, const char *line)
{
    if (!*(int *)ctx) printf("%s\n", line);
}

int cmd_replay(int argc, char **argv)
{
    replay_args a;
    store *s = NULL;
    int64_t node = 0;
    char *dir = NULL, *text = NULL;
    size_t len = 0;
    int rc = open_node(&cmd_replay_spec, argc, argv, &a, STORE_WRITE, &s, &node, &dir);
    if (rc) goto out;
    if (!a.onto) { rc = cli_usage("replay", "missing --onto FILE"); goto out; }
    size_t flen = strlen(a.onto);
    if (flen > 2 && !strcmp(a.onto + flen - 2, ".c")) {   /* C: imported first, errors printed */
        if (!(text = cli_cimport_text(a.onto, &a.c))) { rc = CLI_FAIL; goto out; }
        len = strlen(text);
    }
    diag_list d;
    diag_list_init(&d);
    if (!text && !(text = textfile_read(a.onto, "a program file", (size_t)1 << 24, &len, &d))) {
        diag_print(&d, stderr);
        diag_list_free(&d);
        rc = CLI_FAIL;
        goto out;
    }
    replay_result r;
    int f = replay_onto(s, node, text, len, a.onto, print_line, &a.json, &r, &d);
    if (f < 0) {
        diag_print(&d, stderr);
        rc = CLI_FAIL;
    } else {
        const char *why = f ? d.items[d.n - 1].msg : NULL;
        if (a.json) {
            printf("{\"source\":%lld,\"leaf\":%lld,\"steps\":%d,\"done\":%d,\"stopped\":", (long long)r.source,
                   (long long)r.leaf, r.steps, r.done);
            if (why) report_json_string(stdout, why);
            else printf("null");
            printf("}\n");
        } else if (f) {   /* where it stopped first, then why */
            fprintf(stderr, "polyapm: %s\n", why);
            for (int i = 0; i + 1 < d.n; i++) fprintf(stderr, "  %s\n", d.items[i].msg);
        } else {
            printf("replayed %d of %d steps: the new leaf is node %lld\n", r.done, r.steps, (long long)r.leaf);
        }
        rc = f ? CLI_FAIL : CLI_OK;
    }
    diag_list_free(&d);
out:
    free(text);
    free(dir);
    store_close(s);
    return rc;
}

int cmd_script(int argc, char **argv)
{
    replay_args a;
    store *s = NULL;
    int64_t node = 0;
    char *dir = NULL;
    int rc = open_node(&cmd_script_spec, argc, argv, &a, STORE_READ, &s, &node, &dir);
    if (rc) goto out;
    FILE *f = a.out ? fopen(a.out, "w") : stdout;
    if (!f) { rc = cli_fail("cannot write %s", a.out); goto out; }
    diag_list d;
    diag_list_init(&d);
    rc = replay_script(s, node, dir, f, &d) == 0 ? CLI_OK : CLI_FAIL;
    if (rc) diag_print(&d, stderr);
    diag_list_free(&d);
    if (a.out && fclose(f) != 0) rc = cli_fail("cannot write %s", a.out);
out:
    free(dir);
    store_close(s);
    return rc;
}
