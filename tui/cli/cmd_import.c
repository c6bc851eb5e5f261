/*
 * cmd_import.c — `polyapm import FILE.c [-I DIR]... [-D NAME[=VALUE]]... [--function F]
 * [--region K|line:L] [--param NAME=VALUE]... [--init 'A[i] = e']... [--output A,B] [-o OUT.apm]`:
 * a C kernel as a source-level .apm program (transforms/import.h), printed or written to OUT.apm
 * (only when the import succeeds, atomically).  The C options are
 * shared with `polyapm init FILE.c` (cli_cimport in cli.h).
 */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "import.h"
#include "mem.h"
#include "strbuf.h"
#include "textfile.h"
#include "store.h"
#include "../tui_entry.h"

int cli_cimport_include(void *args, char *v)
{
    cli_cimport *c = args;
    if (!*v || c->ninc >= CLI_CIMPORT_MAX) return -1;
    c->inc[c->ninc++] = v;
    return 0;
}

int cli_cimport_define(void *args, char *v)
{
    cli_cimport *c = args;
    if (!*v || *v == '=' || c->ndef >= CLI_CIMPORT_MAX) return -1;
    c->def[c->ndef++] = v;
    return 0;
}

int cli_cimport_param(void *args, char *v)
{
    cli_cimport *c = args;
    char *eq = strchr(v, '=');
    if (!eq || eq == v || !eq[1] || c->npar >= CLI_CIMPORT_MAX) return -1;
    c->par[c->npar++] = v;
    return 0;
}

int cli_cimport_init(void *args, char *v)
{
    cli_cimport *c = args;
    if (!strchr(v, '=') || c->nini >= CLI_CIMPORT_MAX) return -1;
    c->ini[c->nini++] = v;
    return 0;
}

/* Appends " OPT ARG" to b, ARG quoted for the shell where it needs it; a path made absolute. */
static void command_arg(strbuf *b, const char *opt, const char *arg, int path)
{
    char real[PATH_MAX];
    if (path && realpath(arg, real)) arg = real;
    if (opt) strbuf_printf(b, " %s", opt);
    if (arg[strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./=:,+-")] == '\0') {
        strbuf_printf(b, " %s", arg);
        return;
    }
    size_t size = 4 * strlen(arg) + 3;
    char *q = xmalloc(size);
    cli_shell_quote(q, size, arg);
    strbuf_printf(b, " %s", q);
    free(q);
}

/* The `polyapm import` command that imports FILE again with the options c (the caller frees
 * it): the program's header records it, and explore --at re-runs it with other -D. */
static char *reimport_command(const char *file, const cli_cimport *c)
{
    strbuf b = {0};
    strbuf_printf(&b, "polyapm import");
    command_arg(&b, NULL, file, 1);
    for (int i = 0; i < c->ninc; i++) command_arg(&b, "-I", c->inc[i], 1);
    for (int i = 0; i < c->ndef; i++) command_arg(&b, "-D", c->def[i], 0);
    if (c->function) command_arg(&b, "--function", c->function, 0);
    if (c->region) command_arg(&b, "--region", c->region, 0);
    for (int i = 0; i < c->npar; i++) command_arg(&b, "--param", c->par[i], 0);
    for (int i = 0; i < c->nini; i++) command_arg(&b, "--init", c->ini[i], 0);
    for (int i = 0; i < c->nassume; i++) command_arg(&b, "--assume", c->assume[i], 0);
    if (c->outputs) command_arg(&b, "--output", c->outputs, 0);
    return strbuf_take(&b);
}

int cli_cimport_assume(void *args, char *v)
{
    cli_cimport *c = args;
    if (!strstr(v, " unchanged when ") || c->nassume >= CLI_CIMPORT_MAX) return -1;
    c->assume[c->nassume++] = v;
    return 0;
}

char *cli_cimport_text(const char *file, const cli_cimport *c)
{
    char *command = reimport_command(file, c);
    xf_import_opts o = {.file = file, .command = command, .includes = c->inc, .nincludes = c->ninc, .defines = c->def,
                        .ndefines = c->ndef, .function = c->function, .outputs = c->outputs,
                        .region = c->region, .params = c->par, .nparams = c->npar, .inits = c->ini,
                        .ninits = c->nini, .assumes = c->assume, .nassumes = c->nassume};
    diag_list d;
    diag_list_init(&d);
    char *text = xf_import_c(&o, &d, stderr);
    if (!text) {
        diag_print(&d, stderr);
        if (!d.n) fprintf(stderr, "polyapm: %s: import failed\n", file);
    }
    diag_list_free(&d);
    free(command);
    return text;
}

typedef struct import_args {
    cli_cimport c;        /* first: the shared setters take the struct as a cli_cimport */
    const char *out;
} import_args;

static const cli_opt import_opts[] = {
    {.name = "-I", .kind = OPT_FN, .value = "DIR", .set = cli_cimport_include, .flags = OPT_REPEAT,
     .help = "a directory of included headers, as for cc"},
    {.name = "-D", .kind = OPT_FN, .value = "NAME[=VALUE]", .set = cli_cimport_define, .flags = OPT_REPEAT,
     .help = "define a macro, as for cc (PolyBench: -D MINI_DATASET -D DATA_TYPE_IS_DOUBLE)"},
    {.name = "--function", .kind = OPT_STR, .value = "F", .off = offsetof(import_args, c.function),
     .help = "import F's #pragma scop region, else its body (default: the file's region; without one, "
             "the deepest loop nest of a function other than main, else of main)"},
    {.name = "--region", .kind = OPT_STR, .value = "K|line:L", .off = offsetof(import_args, c.region),
     .help = "of several #pragma scop regions (without any: of the file's loop nests), the K-th (from "
             "1) or the one holding line L"},
    {.name = "--param", .kind = OPT_FN, .value = "NAME=VALUE", .set = cli_cimport_param, .flags = OPT_REPEAT,
     .help = "the value of a size the C program reads when it runs (n = atoi(argv[1])), or sets"},
    {.name = "--init", .kind = OPT_FN, .value = "'A[i] = e'", .set = cli_cimport_init, .flags = OPT_REPEAT,
     .help = "the initial values of array A as the language writes them, instead of the C code's (values it "
             "cannot reproduce: srand(time(NULL)))"},
    {.name = "--assume", .kind = OPT_FN, .value = "'S1 unchanged when COND'", .set = cli_cimport_assume,
     .flags = OPT_REPEAT, .help = "what you know of statement S1: where COND holds it writes the value its element "
     "has (floyd-warshall: 'S1 unchanged when i == k || j == k'); checked by every simulation"},
    {.name = "--output", .kind = OPT_STR, .value = "A,B", .off = offsetof(import_args, c.outputs),
     .help = "the output arrays (default: what main prints, else what the region writes)"},
    {.name = "-o", .kind = OPT_STR, .value = "OUT.apm", .off = offsetof(import_args, out),
     .help = "write the program there (default: standard output)"},
    {0},
};

int cmd_import(int argc, char **argv);
const cli_spec cmd_import_spec = {"import", "FILE.c", "a C kernel (#pragma scop region, or loop nest) as a source-level program",
                                  import_opts, 1, NULL, NULL, cmd_import};

int cmd_import(int argc, char **argv)
{
    import_args a;
    memset(&a, 0, sizeof a);
    int npos = 0;
    int rc = optable_parse(&cmd_import_spec, argc, argv, &a, &npos);
    if (rc) return rc;
    if (npos != 1) return cli_usage("import", npos ? "one C file at a time" : "no file given");
    char *text = cli_cimport_text(argv[1], &a.c);
    if (!text) return CLI_FAIL;
    if (!a.out) fputs(text, stdout);
    else if (textfile_write(a.out, ".import-tmp", text) != 0) rc = cli_fail("%s: cannot write", a.out);
    free(text);
    return rc ? rc : CLI_OK;
}

/* The words of a command written by reimport_command (single quotes as the shell reads them)
 * into argv[max] (copies the caller frees); their count, or -1 when there are too many. */
static int command_words(const char *cmd, char **argv, int max)
{
    int n = 0;
    while (*cmd) {
        while (*cmd == ' ') cmd++;
        if (!*cmd) break;
        if (n == max) return -1;
        strbuf w = {0};
        strbuf_printf(&w, "%s", "");
        while (*cmd && *cmd != ' ') {
            if (*cmd != '\'') { strbuf_printf(&w, "%c", *cmd++); continue; }
            const char *close = strchr(cmd + 1, '\'');
            if (!close) close = cmd + strlen(cmd);
            strbuf_printf(&w, "%.*s", (int)(close - cmd - 1), cmd + 1);
            cmd = *close ? close + 1 : close;
            if (cmd[0] == '\\' && cmd[1] == '\'') { strbuf_printf(&w, "'"); cmd += 2; }
        }
        argv[n++] = strbuf_take(&w);
    }
    return n;
}

/* Is definition `def` (NAME or NAME=VALUE) replaced by `by`: the same macro, or two datasets? */
static int define_replaced(const char *def, const char *by)
{
    size_t a = strcspn(def, "="), b = strcspn(by, "=");
    static const char dataset[] = "_DATASET";
    size_t k = sizeof dataset - 1;
    if (a > k && b > k && !strncmp(def + a - k, dataset, k) && !strncmp(by + b - k, dataset, k)) return 1;
    return a == b && !strncmp(def, by, a);
}

char *cli_cimport_again(const char *command, const char *const *defs, int ndefs)
{
    enum { MAXWORDS = 4 * CLI_CIMPORT_MAX + 8 };
    char *words[MAXWORDS + 1];
    int n = command_words(command, words, MAXWORDS);
    char *text = NULL;
    import_args a;
    memset(&a, 0, sizeof a);
    int npos = 0;
    if (n < 3 || strcmp(words[0], "polyapm") || strcmp(words[1], "import")) {
        cli_fail("not an import command: %s", command);
    } else if (optable_parse(&cmd_import_spec, n - 1, words + 1, &a, &npos) == 0 && npos == 1) {
        int kept = 0;
        for (int i = 0; i < a.c.ndef; i++) {
            int replaced = 0;
            for (int k = 0; k < ndefs; k++) replaced |= define_replaced(a.c.def[i], defs[k]);
            if (!replaced) a.c.def[kept++] = a.c.def[i];
        }
        a.c.ndef = kept;
        for (int k = 0; k < ndefs && a.c.ndef < CLI_CIMPORT_MAX; k++) a.c.def[a.c.ndef++] = defs[k];
        text = cli_cimport_text(words[2], &a.c);
    }
    for (int i = 0; i < n; i++) free(words[i]);
    return text;
}

/* `polyapm FILE.c [import's options] [--machine M] [--model M]`: the TUI on FILE.pdg next to the
 * C file, created first by `polyapm init FILE.c` with import's options (reopened if it exists). */
int cli_open_c(const char *file, int argc, char **argv)
{
    extern const cli_spec cmd_init_spec;
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
        return cli_fail("the TUI needs a terminal (for scripts: polyapm init %s or polyapm import %s)", file, file);
    size_t n = strlen(file);
    char **init = xcalloc((size_t)argc + 5, sizeof *init), **tui = xcalloc((size_t)argc + 1, sizeof *tui);
    char *ws = xasprintf("%.*s.pdg", (int)(n - 2), file);
    int ni = 0, nt = 0, rc = CLI_OK;
    init[ni++] = "init";
    init[ni++] = (char *)file;
    for (int i = 0; i < argc; i++) {
        int tui_opt = (strcmp(argv[i], "--machine") == 0 || strcmp(argv[i], "--model") == 0) && i + 1 < argc;
        if (tui_opt) { tui[nt++] = argv[i++]; tui[nt++] = argv[i]; }
        else init[ni++] = argv[i];
    }
    init[ni++] = "-o";
    init[ni++] = ws;
    if (!store_is_workspace(ws)) rc = cmd_init_spec.run(ni, init);
    else if (ni > 4) fprintf(stderr, "polyapm: %s exists: opened as it is (import's options are for a new one)\n", ws);
    if (rc == CLI_OK) rc = tui_main(ws, nt, tui);
    free(ws);
    free(init);
    free(tui);
    return rc;
}
