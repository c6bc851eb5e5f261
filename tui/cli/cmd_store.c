/*
 * cmd_store.c — the workspace subcommands: init, add, tree, show, diff, log, mark, note, label,
 * rm, fsck, and `sim NODE` (cmd_sim_node, called by cmd_sim for anything that is not a file).
 *
 * Each command is a row of the table at the end (its spec, its positional arguments, whether it
 * writes); the options of them all are one table (ws_opts), parsed by optable.c.  NODE is an id, ROOT, a label or a unique hash
 * prefix, with ^ for the first parent (store_resolve).  The workspace is -w NAME.pdg, else found
 * from the current directory (store_find).  --json prints data as one JSON object.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "report.h"
#include "simjob.h"
#include "store.h"

/* ---- arguments ------------------------------------------------------------------------------ */

enum {
    C_INIT = 1 << 0, C_ADD = 1 << 1, C_TREE = 1 << 2, C_SHOW = 1 << 3, C_LOG = 1 << 4, C_DIFF = 1 << 5,
    C_MARK = 1 << 6, C_NOTE = 1 << 7, C_LABEL = 1 << 8, C_RM = 1 << 9, C_FSCK = 1 << 10,
    C_WS = C_ADD | C_TREE | C_SHOW | C_LOG | C_DIFF | C_MARK | C_NOTE | C_LABEL | C_RM | C_FSCK,
};

typedef struct ws_args {
    cli_cimport c;         /* init FILE.c: the C options (first: the shared setters take it so) */
    const char *workspace, *out, *why, *label;
    int json, repair, yes, dry_run, program_only;
    const char *context;
    char *pos[16];
    int npos;
} ws_args;

static const cli_opt ws_opts[] = {
    {.name = "-o", .kind = OPT_STR, .value = "NAME.pdg", .off = offsetof(ws_args, out), .cmds = C_INIT,
     .help = "the workspace to create (default: FILE.pdg in the current directory)"},
    {.name = "-I", .kind = OPT_FN, .value = "DIR", .set = cli_cimport_include, .flags = OPT_REPEAT, .cmds = C_INIT,
     .help = "FILE.c: a directory of included headers (as polyapm import)"},
    {.name = "-D", .kind = OPT_FN, .value = "NAME[=VALUE]", .set = cli_cimport_define, .flags = OPT_REPEAT,
     .cmds = C_INIT, .help = "FILE.c: define a macro (as polyapm import)"},
    {.name = "--function", .kind = OPT_STR, .value = "F", .off = offsetof(ws_args, c.function), .cmds = C_INIT,
     .help = "FILE.c: import F's region, else its body (default: the #pragma scop region)"},
    {.name = "--region", .kind = OPT_STR, .value = "K|line:L", .off = offsetof(ws_args, c.region), .cmds = C_INIT,
     .help = "FILE.c: of several regions, the K-th or the one holding line L (as polyapm import)"},
    {.name = "--param", .kind = OPT_FN, .value = "NAME=VALUE", .set = cli_cimport_param, .flags = OPT_REPEAT,
     .cmds = C_INIT, .help = "FILE.c: a size the C program reads when it runs (as polyapm import)"},
    {.name = "--init", .kind = OPT_FN, .value = "'A[i] = e'", .set = cli_cimport_init, .flags = OPT_REPEAT,
     .cmds = C_INIT, .help = "FILE.c: an array's initial values instead of the C code's (as polyapm import)"},
    {.name = "--assume", .kind = OPT_FN, .value = "'S1 unchanged when COND'", .set = cli_cimport_assume,
     .flags = OPT_REPEAT, .cmds = C_INIT, .help = "FILE.c: what you know of a statement (as polyapm import)"},
    {.name = "--output", .kind = OPT_STR, .value = "A,B", .off = offsetof(ws_args, c.outputs), .cmds = C_INIT,
     .help = "FILE.c: the output arrays (default: what main prints)"},
    {.name = "--label", .kind = OPT_STR, .value = "L", .off = offsetof(ws_args, label), .cmds = C_INIT | C_ADD,
     .help = "the new node's label (default: the program's or the file's name)"},
    {.name = "--why", .kind = OPT_STR, .value = "TEXT", .off = offsetof(ws_args, why), .cmds = C_INIT | C_ADD,
     .help = "the reason for this step"},
    {.name = "--program", .kind = OPT_FLAG, .off = offsetof(ws_args, program_only), .cmds = C_SHOW,
     .help = "print only the node's program"},
    {.name = "-U", .kind = OPT_STR, .value = "N", .off = offsetof(ws_args, context), .cmds = C_DIFF,
     .help = "N lines of context (default 3)"},
    {.name = "--yes", .alias = "-y", .kind = OPT_FLAG, .off = offsetof(ws_args, yes), .cmds = C_RM,
     .help = "remove (without it: list what would go and exit 1)"},
    {.name = "--dry-run", .alias = "-n", .kind = OPT_FLAG, .off = offsetof(ws_args, dry_run), .cmds = C_RM,
     .help = "only list what would be removed (exit 0)"},
    {.name = "--repair", .kind = OPT_FLAG, .off = offsetof(ws_args, repair), .cmds = C_FSCK,
     .help = "repair what can be repaired (missing refs or rows, dangling rows, leftovers)"},
    {.name = "-w", .alias = "--workspace", .kind = OPT_STR, .value = "WS", .off = offsetof(ws_args, workspace),
     .cmds = C_WS, .help = "the workspace (default: $POLYAPM_WORKSPACE, then the current directory)"},
    {.name = "--json", .kind = OPT_FLAG, .off = offsetof(ws_args, json),
     .cmds = C_INIT | C_ADD | C_TREE | C_SHOW | C_LOG | C_RM | C_FSCK, .help = "print one JSON object"},
    {0},
};

typedef struct ws_command {
    const cli_spec *spec;  /* name, accepted options, synopsis */
    int minpos, maxpos;    /* positional arguments */
    int mode;              /* STORE_READ / STORE_WRITE; -1: no workspace to open (init) */
    int (*run)(store *s, ws_args *a);
} ws_command;

static int parse(const ws_command *c, int argc, char **argv, ws_args *a)
{
    memset(a, 0, sizeof *a);
    int npos = 0;
    int rc = optable_parse(c->spec, argc, argv, a, &npos);
    if (rc) return rc;
    int max = c->maxpos < (int)(sizeof a->pos / sizeof a->pos[0]) ? c->maxpos : (int)(sizeof a->pos / sizeof a->pos[0]);
    if (npos > max) return cli_usage(c->spec->name, "too many arguments ('%s')", argv[1 + max]);
    for (int i = 0; i < npos; i++) a->pos[a->npos++] = argv[1 + i];
    if (a->npos < c->minpos) return cli_usage(c->spec->name, "missing arguments");
    return 0;
}

/* Parses the arguments, opens the workspace, runs the command, closes. */
static int dispatch(const ws_command *c, int argc, char **argv)
{
    ws_args a;
    int rc = parse(c, argc, argv, &a);
    if (rc) return rc;
    if (c->mode < 0) return c->run(NULL, &a);
    diag_list d;
    diag_list_init(&d);
    store *s = NULL;
    char *dir = store_find(a.workspace, &d);
    if (!dir || store_open(dir, c->mode, &s, &d) != 0) {
        rc = cli_fail("%s", d.n ? d.items[d.n - 1].msg : "cannot open the workspace");
    } else if (c->mode == STORE_READ && store_snapshot_begin(s, &d) != 0) {
        rc = cli_fail("%s", d.n ? d.items[d.n - 1].msg : "cannot read the workspace");
    } else {
        rc = c->run(s, &a);
        if (c->mode == STORE_READ) store_snapshot_end(s);
    }
    store_close(s);
    free(dir);
    diag_list_free(&d);
    return rc;
}

/* Prints the last diagnostic as the one-line error and frees the list. */
static int fail_with(diag_list *d)
{
    int rc = cli_fail("%s", d->n ? d->items[d->n - 1].msg : "failed");
    diag_list_free(d);
    return rc;
}

static int resolve(store *s, const char *spec, int64_t *id)
{
    diag_list d;
    diag_list_init(&d);
    if (store_resolve(s, spec, id, &d) != 0) return fail_with(&d);
    diag_list_free(&d);
    return 0;
}

static const char *basename_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* "dir/name.apm" (or "dir/name.c") -> "name" (malloc'd). */
static char *stem(const char *path)
{
    const char *b = basename_of(path);
    size_t n = strlen(b);
    if (n > 4 && strcmp(b + n - 4, ".apm") == 0) n -= 4;
    else if (n > 2 && strcmp(b + n - 2, ".c") == 0) n -= 2;
    return strndup(b, n);
}

static int is_c_file(const char *path)
{
    size_t n = strlen(path);
    return n > 2 && strcmp(path + n - 2, ".c") == 0;
}

static void time_text(int64_t t, char *buf, size_t n)
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(buf, n, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

/* Loads and checks FILE, returning its canonical text (malloc'd) and the program. */
static char *canonical(const char *file, ir_program **prog)
{
    diag_list d;
    diag_list_init(&d);
    *prog = ir_load_file(file, &d);
    if (!*prog) {
        diag_print(&d, stderr);
        diag_list_free(&d);
        return NULL;
    }
    diag_list_free(&d);
    char *text = ir_print(*prog);
    if (!text) { ir_program_free(*prog); *prog = NULL; cli_fail("%s: cannot print the program", file); }
    return text;
}

static void json_node_fields(FILE *out, const store_node *n)
{
    fprintf(out, "\"id\":%lld,\"label\":", (long long)n->id);
    report_json_string(out, n->label);
    fprintf(out, ",\"level\":\"%s\",\"hash\":\"%s\",\"commit\":\"%s\",\"created\":%lld", n->level, n->hash,
            n->commit, (long long)n->created);
}

/* ---- init, add ------------------------------------------------------------------------------ */

/* init FILE.c: the imported program's canonical text and the program. */
static char *imported(const char *file, const cli_cimport *c, ir_program **prog)
{
    char *text = cli_cimport_text(file, c);
    if (!text) return NULL;
    diag_list d;
    diag_list_init(&d);
    *prog = ir_load_text(file, text, strlen(text), &d);
    if (!*prog) { diag_print(&d, stderr); free(text); text = NULL; }
    diag_list_free(&d);
    return text;
}

static int run_init(store *unused, ws_args *a)
{
    (void)unused;
    ir_program *prog = NULL;
    if (!is_c_file(a->pos[0]) && (a->c.ninc || a->c.ndef || a->c.function || a->c.outputs))
        return cli_usage("init", "-I, -D, --function and --output are for a C file");
    char *text = is_c_file(a->pos[0]) ? imported(a->pos[0], &a->c, &prog) : canonical(a->pos[0], &prog);
    char *name = NULL, *out = NULL;
    if (!text) return CLI_FAIL;
    int rc = CLI_FAIL;
    diag_list d;
    diag_list_init(&d);
    store *s = NULL;
    name = stem(a->pos[0]);
    if (a->out) out = strdup(a->out);
    else if (asprintf(&out, "%s.pdg", name) < 0) out = NULL;
    if (!name || !out) { rc = cli_fail("out of memory"); goto done; }
    if (store_create(out, &s, &d) != 0) { rc = fail_with(&d); goto done; }
    store_add_req r = {.text = text, .len = strlen(text), .level = ir_level_name(prog->level),
                       .transform = "init", .params = basename_of(a->pos[0]), .why = a->why,
                       .label = a->label, .label_hint = prog->name};
    int64_t id;
    if (store_node_add(s, &r, &id, NULL, &d) != 0) { rc = fail_with(&d); goto done; }
    store_node n;
    if (store_node_get(s, id, &n, &d) != 0) { rc = fail_with(&d); goto done; }
    if (a->json) {
        printf("{\"workspace\":");
        report_json_string(stdout, out);
        printf(",\"root\":{");
        json_node_fields(stdout, &n);
        printf("}}\n");
    } else {
        printf("created %s: root node %lld %s (%s, %.7s)\n", out, (long long)id, n.label, n.level, n.hash);
    }
    store_node_clear(&n);
    rc = CLI_OK;
done:
    store_close(s);
    diag_list_free(&d);
    free(text);
    free(name);
    free(out);
    ir_program_free(prog);
    return rc;
}

static int run_add(store *s, ws_args *a)
{
    int64_t parent;
    int rc = resolve(s, a->pos[0], &parent);
    if (rc) return rc;
    ir_program *prog = NULL;
    char *text = canonical(a->pos[1], &prog);
    if (!text) return CLI_FAIL;
    char *hint = stem(a->pos[1]);
    diag_list d;
    diag_list_init(&d);
    store_add_req r = {.text = text, .len = strlen(text), .level = ir_level_name(prog->level),
                       .parents = &parent, .nparents = 1, .transform = "add", .why = a->why,
                       .label = a->label, .label_hint = hint};
    int64_t id;
    int created = 0;
    store_node n;
    memset(&n, 0, sizeof n);
    if (store_node_add(s, &r, &id, &created, &d) != 0 || store_node_get(s, id, &n, &d) != 0) {
        rc = fail_with(&d);
    } else if (a->json) {
        printf("{");
        json_node_fields(stdout, &n);
        printf(",\"parent\":%lld,\"new\":%s}\n", (long long)parent, created ? "true" : "false");
        rc = CLI_OK;
    } else {
        printf("%s node %lld %s (%s, %.7s) under %lld\n", created ? "added" : "linked existing",
               (long long)id, n.label, n.level, n.hash, (long long)parent);
        rc = CLI_OK;
    }
    store_node_clear(&n);
    diag_list_free(&d);
    free(hint);
    free(text);
    ir_program_free(prog);
    return rc;
}

/* ---- tree ----------------------------------------------------------------------------------- */

enum { TREE_MAX_INDENT = 24 };

static void tree_line(const store_gnode *n, const char *prefix, const char *branch, int depth_note,
                      int reference)
{
    printf("%s%s", prefix, branch);
    if (depth_note) printf("[depth %d] ", depth_note);
    if (reference) {
        printf("%lld %s (shown above)\n", (long long)n->id, n->label);
        return;
    }
    printf("%lld %s  %s  %.7s", (long long)n->id, n->label, n->level, n->hash);
    if (n->best_total >= 0) printf("  cost %.10g", n->best_total);
    if (n->verified == 1) printf("  verified");
    else if (n->verified == 0) printf("  NOT VERIFIED");
    if (n->favourite) printf("  *favourite");
    if (n->pruned) printf("  pruned");
    if (n->explored) printf("  explored");
    if (n->has_note) printf("  [note]");
    if (n->nparents > 1) printf("  (%d parents)", n->nparents);
    printf("\n");
}

/* Depth-first with an explicit stack (a chain may be 10,000 deep); a node with several parents is
 * expanded where it is first met and referenced elsewhere.  Indentation stops growing at
 * TREE_MAX_INDENT levels (the depth is then printed). */
static int print_tree(const store_graph *g, int start)
{
    typedef struct frame { int node, next_child, depth; } frame;
    char *seen = calloc((size_t)g->n + 1, 1);
    frame *stack = malloc(((size_t)g->n + 1) * sizeof *stack);
    /* last[k]: whether the ancestor at indentation level k was the last child */
    char last[TREE_MAX_INDENT + 2];
    char prefix[(TREE_MAX_INDENT + 2) * 4 + 1];
    if (!seen || !stack) { free(seen); free(stack); return cli_fail("out of memory"); }
    int sp = 0;
    tree_line(&g->nodes[start], "", "", 0, 0);
    seen[start] = 1;
    stack[sp++] = (frame){start, 0, 0};
    while (sp > 0) {
        frame *f = &stack[sp - 1];
        const store_gnode *x = &g->nodes[f->node];
        if (f->next_child >= x->nchildren) { sp--; continue; }
        int ci = x->children[f->next_child++];
        int is_last = f->next_child == x->nchildren;
        int depth = f->depth + 1;
        int level = depth < TREE_MAX_INDENT ? depth : TREE_MAX_INDENT;
        last[level] = (char)is_last;
        size_t p = 0;
        for (int k = 1; k < level; k++) {
            memcpy(prefix + p, last[k] ? "    " : "|   ", 4);
            p += 4;
        }
        prefix[p] = '\0';
        tree_line(&g->nodes[ci], prefix, is_last ? "`-- " : "|-- ", depth >= TREE_MAX_INDENT ? depth : 0,
                  seen[ci]);
        if (!seen[ci]) {
            seen[ci] = 1;
            stack[sp++] = (frame){ci, 0, depth};
        }
    }
    free(seen);
    free(stack);
    return CLI_OK;
}

static void json_int_list(FILE *out, const store_graph *g, const int *idx, int n)
{
    fputc('[', out);
    for (int i = 0; i < n; i++) fprintf(out, "%s%lld", i ? "," : "", (long long)g->nodes[idx[i]].id);
    fputc(']', out);
}

static int run_tree(store *s, ws_args *a)
{
    diag_list d;
    diag_list_init(&d);
    store_graph g;
    if (store_graph_load(s, &g, &d) != 0) return fail_with(&d);
    int rc = CLI_OK, start = g.root;
    if (a->npos) {
        int64_t id;
        rc = resolve(s, a->pos[0], &id);
        start = rc ? -1 : store_graph_index(&g, id);
    }
    if (rc) {
    } else if (start < 0) {
        rc = cli_fail("%s: the workspace has no nodes", store_dir(s));
    } else if (a->json) {
        /* The nodes reachable from `start` (all of them from the root), in id order. */
        char *in = calloc((size_t)g.n + 1, 1);
        int *queue = malloc(((size_t)g.n + 1) * sizeof *queue), head = 0, tail = 0, first = 1;
        if (!in || !queue) { free(in); free(queue); store_graph_free(&g); diag_list_free(&d); return cli_fail("out of memory"); }
        in[start] = 1;
        queue[tail++] = start;
        while (head < tail) {
            const store_gnode *x = &g.nodes[queue[head++]];
            for (int c = 0; c < x->nchildren; c++)
                if (!in[x->children[c]]) { in[x->children[c]] = 1; queue[tail++] = x->children[c]; }
        }
        printf("{\"root\":%lld,\"nodes\":[", (long long)g.nodes[start].id);
        for (int i = 0; i < g.n; i++) {
            const store_gnode *n = &g.nodes[i];
            if (!in[i]) continue;
            printf("%s{\"id\":%lld,\"label\":", first ? "" : ",", (long long)n->id);
            first = 0;
            report_json_string(stdout, n->label);
            printf(",\"level\":\"%s\",\"hash\":\"%s\",\"parents\":", n->level, n->hash);
            json_int_list(stdout, &g, n->parents, n->nparents);
            printf(",\"children\":");
            json_int_list(stdout, &g, n->children, n->nchildren);
            if (n->best_total >= 0) printf(",\"cost\":%.17g", n->best_total);
            else printf(",\"cost\":null");
            printf(",\"verified\":%s,\"simulations\":%d,\"pruned\":%s,\"favourite\":%s,\"explored\":%s}",
                   n->verified == 1 ? "true" : n->verified == 0 ? "false" : "null", n->nsims,
                   n->pruned ? "true" : "false", n->favourite ? "true" : "false", n->explored ? "true" : "false");
        }
        printf("]}\n");
        free(in);
        free(queue);
    } else {
        rc = print_tree(&g, start);
    }
    store_graph_free(&g);
    diag_list_free(&d);
    return rc;
}

/* ---- show, log, diff ------------------------------------------------------------------------ */

static void print_edges(const char *title, store *s, const store_edge *e, int n, int parents)
{
    for (int i = 0; i < n; i++) {
        int64_t other = parents ? e[i].parent : e[i].child;
        store_node o;
        diag_list d;
        diag_list_init(&d);
        int ok = store_node_get(s, other, &o, &d) == 0;
        printf("%-10s %lld %s", i ? "" : title, (long long)other, ok ? o.label : "?");
        if (parents) {
            printf("  (%s%s%s)", e[i].transform, *e[i].params ? " " : "", e[i].params);
            if (*e[i].why) printf(": %s", e[i].why);
        }
        printf("\n");
        if (ok) store_node_clear(&o);
        diag_list_free(&d);
    }
}

static void json_edges(FILE *out, const store_edge *e, int n, int parents)
{
    fputc('[', out);
    for (int i = 0; i < n; i++) {
        fprintf(out, "%s{\"node\":%lld,\"transform\":", i ? "," : "", (long long)(parents ? e[i].parent : e[i].child));
        report_json_string(out, e[i].transform);
        fprintf(out, ",\"params\":");
        report_json_string(out, e[i].params);
        fprintf(out, ",\"why\":");
        report_json_string(out, e[i].why);
        fputc('}', out);
    }
    fputc(']', out);
}

static int run_show(store *s, ws_args *a)
{
    int64_t id;
    int rc = resolve(s, a->pos[0], &id);
    if (rc) return rc;
    diag_list d;
    diag_list_init(&d);
    store_node n;
    size_t len;
    char *text = NULL;
    store_edge *par = NULL, *ch = NULL;
    int npar = 0, nch = 0, nsims = 0, nmeas = 0;
    store_sim *sims = NULL;
    store_measurement *meas = NULL;
    if (store_node_get(s, id, &n, &d) != 0) return fail_with(&d);
    if (!(text = store_node_text(s, id, &len, &d)) || store_parents(s, id, &par, &npar, &d) != 0 ||
        store_children(s, id, &ch, &nch, &d) != 0 || store_sim_list(s, id, &sims, &nsims, &d) != 0 ||
        store_measurement_list(s, id, &meas, &nmeas, &d) != 0) {
        rc = fail_with(&d);
        goto out;
    }
    if (a->program_only) {
        fwrite(text, 1, len, stdout);
    } else if (a->json) {
        printf("{");
        json_node_fields(stdout, &n);
        printf(",\"parents\":");
        json_edges(stdout, par, npar, 1);
        printf(",\"children\":");
        json_edges(stdout, ch, nch, 0);
        printf(",\"pruned\":%s,\"favourite\":%s,\"explored\":%s,\"note\":", n.pruned ? "true" : "false",
               n.favourite ? "true" : "false", n.explored ? "true" : "false");
        if (n.note) report_json_string(stdout, n.note);
        else printf("null");
        printf(",\"simulations\":[");
        for (int i = 0; i < nsims; i++) {
            printf("%s{\"machine\":", i ? "," : "");
            report_json_string(stdout, sims[i].machine);
            printf(",\"model\":\"%s\",\"params\":", sims[i].model);
            report_json_string(stdout, sims[i].params);
            printf(",\"cost\":%.17g,\"seconds\":%.17g,\"verified\":%s,\"checksum\":\"%016" PRIx64 "\","
                   "\"nprocs\":%d,\"nsteps\":%d,\"violations\":%lld,\"created\":%lld}",
                   sims[i].total, sims[i].seconds,
                   sims[i].verified > 0 ? "true" : sims[i].verified == 0 ? "false" : "null",
                   sims[i].checksum, sims[i].nprocs, sims[i].nsteps, (long long)sims[i].violations,
                   (long long)sims[i].created);
        }
        printf("],\"measurements\":[");
        for (int i = 0; i < nmeas; i++) {
            printf("%s{\"ranks\":%d,\"runner\":", i ? "," : "", meas[i].ranks);
            report_json_string(stdout, meas[i].runner);
            printf(",\"platform\":");
            if (meas[i].platform) report_json_string(stdout, meas[i].platform);
            else printf("null");
            printf(",\"params\":");
            report_json_string(stdout, meas[i].params ? meas[i].params : "");
            printf(",\"seconds\":%.17g,\"host\":", meas[i].seconds);
            report_json_string(stdout, meas[i].host);
            printf(",\"created\":%lld}", (long long)meas[i].created);
        }
        printf("],\"program\":");
        report_json_string(stdout, text);
        printf("}\n");
    } else {
        char when[64];
        time_text(n.created, when, sizeof when);
        printf("node %lld %s (%s)\n", (long long)n.id, n.label, n.level);
        printf("%-10s %s\n%-10s %s\n%-10s %s\n", "hash", n.hash, "commit", n.commit, "created", when);
        print_edges("parents", s, par, npar, 1);
        print_edges("children", s, ch, nch, 0);
        if (n.pruned || n.favourite) printf("%-10s %s\n", "mark", n.pruned ? "pruned" : "favourite");
        if (n.explored) printf("%-10s %s\n", "explored", "every candidate transform tried (polyapm explore)");
        if (n.note) printf("%-10s %s\n", "note", n.note);
        for (int i = 0; i < nsims; i++)
            printf("%-10s %s/%s %s: cost %.10g ticks (%.6g s), %d processors, %d steps, %s%s\n",
                   i ? "" : "simulated", sims[i].machine, sims[i].model, sims[i].params, sims[i].total,
                   sims[i].seconds, sims[i].nprocs, sims[i].nsteps,
                   sims[i].verified > 0 ? "verified" : sims[i].verified == 0 ? "NOT VERIFIED" : "not checked",
                   sims[i].violations ? ", violations" : "");
        for (int i = 0; i < nmeas; i++)
            printf("%-10s %d ranks, %s%s%s %s: %.6g s on %s\n", i ? "" : "measured", meas[i].ranks,
                   meas[i].runner, meas[i].platform && *meas[i].platform ? " -platform " : "",
                   meas[i].platform ? meas[i].platform : "",
                   meas[i].params ? meas[i].params : "", meas[i].seconds, meas[i].host);
        printf("\n");
        fwrite(text, 1, len, stdout);
    }
    rc = CLI_OK;
out:
    for (int i = 0; i < nsims; i++) store_sim_clear(&sims[i]);
    free(sims);
    store_measurements_free(meas, nmeas);
    store_edges_free(par, npar);
    store_edges_free(ch, nch);
    free(text);
    store_node_clear(&n);
    diag_list_free(&d);
    return rc;
}

static int run_log(store *s, ws_args *a)
{
    int64_t id;
    store_step *path = NULL;
    int n = 0, rc = resolve(s, a->npos ? a->pos[0] : "ROOT", &id);
    if (rc) return rc;
    diag_list d;
    diag_list_init(&d);
    if (store_path(s, id, &path, &n, &d) != 0) return fail_with(&d);
    if (a->json) printf("{\"path\":[");
    for (int i = 0; i < n; i++) {
        const store_node *node = &path[i].node;
        const store_edge *e = path[i].edge.transform ? &path[i].edge : NULL;
        if (a->json) {
            printf("%s{", i ? "," : "");
            json_node_fields(stdout, node);
            printf(",\"step\":");
            if (e) json_edges(stdout, e, 1, 1);
            else printf("null");
            printf("}");
        } else {
            printf("%lld %s (%s, %.7s)", (long long)node->id, node->label, node->level, node->hash);
            if (e) {
                printf("  <- %s%s%s", e->transform, *e->params ? " " : "", e->params);
                if (*e->why) printf(": %s", e->why);
            } else {
                printf("  root");
            }
            if (path[i].nparents > 1) printf("  (%d parents)", path[i].nparents);
            printf("\n");
        }
    }
    if (a->json) printf("]}\n");
    store_path_free(path, n);
    diag_list_free(&d);
    return CLI_OK;
}

static int run_diff(store *s, ws_args *a)
{
    int64_t x, y;
    char *spec = NULL;
    int rc;
    if (a->npos == 1) {   /* diff NODE: against its first parent */
        if (asprintf(&spec, "%s^", a->pos[0]) < 0) return cli_fail("out of memory");
        rc = resolve(s, spec, &x);
        free(spec);
        if (!rc) rc = resolve(s, a->pos[0], &y);
    } else {
        rc = resolve(s, a->pos[0], &x);
        if (!rc) rc = resolve(s, a->pos[1], &y);
    }
    if (rc) return rc;
    int context = 3;
    if (a->context) {
        char *end;
        long v = strtol(a->context, &end, 10);
        if (*end || v < 0 || v > 100000) return cli_usage("diff", "bad value for -U: '%s'", a->context);
        context = (int)v;
    }
    diag_list d;
    diag_list_init(&d);
    store_node nx, ny;
    size_t lx = 0, ly = 0;
    char *tx = NULL, *ty = NULL, *df = NULL, *namex = NULL, *namey = NULL;
    memset(&nx, 0, sizeof nx);
    memset(&ny, 0, sizeof ny);
    if (store_node_get(s, x, &nx, &d) != 0 || store_node_get(s, y, &ny, &d) != 0 ||
        !(tx = store_node_text(s, x, &lx, &d)) || !(ty = store_node_text(s, y, &ly, &d))) {
        rc = fail_with(&d);
        diag_list_init(&d);
    } else if (asprintf(&namex, "%lld-%s.apm", (long long)x, nx.label) < 0 ||
               asprintf(&namey, "%lld-%s.apm", (long long)y, ny.label) < 0) {
        rc = cli_fail("out of memory");
    } else if (!(df = vcs_diff_text(tx, lx, namex, ty, ly, namey, context, &d))) {
        rc = fail_with(&d);
        diag_list_init(&d);
    } else {
        fputs(df, stdout);
    }
    free(df);
    free(namex);
    free(namey);
    free(tx);
    free(ty);
    store_node_clear(&nx);
    store_node_clear(&ny);
    diag_list_free(&d);
    return rc;
}

/* ---- mark, note, label, rm, fsck ------------------------------------------------------------ */

static const struct { const char *name; int kind; } mark_names[] = {
    {"pruned", STORE_MARK_PRUNED}, {"favourite", STORE_MARK_FAVOURITE}, {"favorite", STORE_MARK_FAVOURITE},
    {"clear", STORE_MARK_CLEAR},
};

static int run_mark(store *s, ws_args *a)
{
    int kind = -1;
    for (size_t i = 0; i < sizeof mark_names / sizeof mark_names[0]; i++)
        if (strcmp(a->pos[1], mark_names[i].name) == 0) kind = mark_names[i].kind;
    if (kind < 0) return cli_usage("mark", "unknown mark '%s' (pruned, favourite or clear)", a->pos[1]);
    int64_t id;
    int rc = resolve(s, a->pos[0], &id);
    if (rc) return rc;
    diag_list d;
    diag_list_init(&d);
    if (store_mark(s, id, kind, &d) != 0) return fail_with(&d);
    printf("node %lld: %s\n", (long long)id, kind == STORE_MARK_CLEAR ? "mark cleared" : a->pos[1]);
    diag_list_free(&d);
    return CLI_OK;
}

static int run_note(store *s, ws_args *a)
{
    int64_t id;
    int rc = resolve(s, a->pos[0], &id);
    if (rc) return rc;
    /* The words after NODE, joined by spaces. */
    size_t len = 1;
    for (int i = 1; i < a->npos; i++) len += strlen(a->pos[i]) + 1;
    char *text = calloc(len, 1);
    if (!text) return cli_fail("out of memory");
    for (int i = 1; i < a->npos; i++) {
        if (i > 1) strcat(text, " ");
        strcat(text, a->pos[i]);
    }
    diag_list d;
    diag_list_init(&d);
    rc = store_note(s, id, text, &d) != 0 ? fail_with(&d) : CLI_OK;
    if (rc == CLI_OK) {
        printf("node %lld: %s\n", (long long)id, *text ? "note set" : "note cleared");
        diag_list_free(&d);
    }
    free(text);
    return rc;
}

static int run_label(store *s, ws_args *a)
{
    int64_t id;
    int rc = resolve(s, a->pos[0], &id);
    if (rc) return rc;
    diag_list d;
    diag_list_init(&d);
    if (store_label(s, id, a->pos[1], &d) != 0) return fail_with(&d);
    printf("node %lld: label %s\n", (long long)id, a->pos[1]);
    diag_list_free(&d);
    return CLI_OK;
}

static int run_rm(store *s, ws_args *a)
{
    int64_t id, *gone = NULL;
    int n = 0, rc = resolve(s, a->pos[0], &id);
    if (rc) return rc;
    diag_list d;
    diag_list_init(&d);
    int dry = a->dry_run || !a->yes;
    if (store_rm(s, id, dry, &gone, &n, &d) != 0) return fail_with(&d);
    if (a->json) {
        printf("{\"removed\":%s,\"nodes\":[", dry ? "false" : "true");
        for (int i = 0; i < n; i++) printf("%s%lld", i ? "," : "", (long long)gone[i]);
        printf("]}\n");
    } else {
        printf("%s %d node%s:", dry ? "would remove" : "removed", n, n == 1 ? "" : "s");
        for (int i = 0; i < n; i++) printf(" %lld", (long long)gone[i]);
        printf("\n");
    }
    free(gone);
    diag_list_free(&d);
    if (dry && !a->dry_run) {
        fprintf(stderr, "polyapm: nothing removed; repeat with --yes to remove\n");
        return CLI_FAIL;
    }
    return CLI_OK;
}

static int run_fsck(store *s, ws_args *a)
{
    diag_list d;
    diag_list_init(&d);
    store_fsck_report r;
    if (store_fsck(s, a->repair, &r, &d) != 0) return fail_with(&d);
    int left = r.problems - r.repaired;
    if (a->json) {
        printf("{\"consistent\":%s,\"problems\":%d,\"repaired\":%d,\"leftovers\":%d,\"nodes\":%d,\"refs\":%d,"
               "\"findings\":[", left == 0 ? "true" : "false", r.problems, r.repaired, r.leftovers, r.nodes, r.refs);
        for (int i = 0; i < r.nlines; i++) {
            if (i) printf(",");
            report_json_string(stdout, r.lines[i]);
        }
        printf("]}\n");
    } else {
        for (int i = 0; i < r.nlines; i++) printf("%s\n", r.lines[i]);
        if (left == 0)
            printf("%s: consistent (%d nodes, %d refs%s)\n", store_dir(s), r.nodes, r.refs,
                   r.repaired ? ", repairs made" : "");
        else
            printf("%s: %d problem%s%s\n", store_dir(s), left, left == 1 ? "" : "s",
                   a->repair ? " remain" : " (polyapm fsck --repair fixes what it can)");
    }
    store_fsck_report_clear(&r);
    diag_list_free(&d);
    return left == 0 ? CLI_OK : CLI_FAIL;
}

/* ---- the table ------------------------------------------------------------------------------ */

int cmd_init(int argc, char **argv);
int cmd_add(int argc, char **argv);
int cmd_tree(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_log(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_mark(int argc, char **argv);
int cmd_note(int argc, char **argv);
int cmd_label(int argc, char **argv);
int cmd_rm(int argc, char **argv);
int cmd_fsck(int argc, char **argv);

const cli_spec cmd_init_spec = {"init", "FILE.apm|FILE.c", "create a workspace whose root node is the program (a C file: "
                                "imported)", ws_opts,
                                C_INIT, NULL, NULL, cmd_init};
const cli_spec cmd_add_spec = {"add", "PARENT FILE.apm",
                               "add a hand-written child of PARENT (an existing equal program is linked)", ws_opts,
                               C_ADD, NULL, NULL, cmd_add};
const cli_spec cmd_tree_spec = {"tree", "[NODE]", "the decision graph as a tree", ws_opts, C_TREE, NULL, NULL, cmd_tree};
const cli_spec cmd_show_spec = {"show", "NODE", "a node: edges, marks, simulations, program", ws_opts, C_SHOW, NULL,
                                NULL, cmd_show};
const cli_spec cmd_log_spec = {"log", "NODE", "the path of decisions from the root to NODE", ws_opts, C_LOG, NULL,
                               NULL, cmd_log};
const cli_spec cmd_diff_spec = {"diff", "A [B]", "unified diff of two nodes' programs (A^ and A with one)", ws_opts,
                                C_DIFF, NULL, NULL, cmd_diff};
const cli_spec cmd_mark_spec = {"mark", "NODE pruned|favourite|clear", "mark a node", ws_opts, C_MARK, NULL, NULL,
                                cmd_mark};
const cli_spec cmd_note_spec = {"note", "NODE TEXT...", "attach a note to a node (empty TEXT clears)", ws_opts,
                                C_NOTE, NULL, NULL, cmd_note};
const cli_spec cmd_label_spec = {"label", "NODE LABEL", "rename a node's label", ws_opts, C_LABEL, NULL, NULL,
                                 cmd_label};
const cli_spec cmd_rm_spec = {"rm", "NODE", "remove a node and the descendants only it leads to", ws_opts, C_RM, NULL,
                              NULL, cmd_rm};
const cli_spec cmd_fsck_spec = {"fsck", "", "check (and repair) that pdg.db and repo.git agree", ws_opts, C_FSCK, NULL,
                                NULL, cmd_fsck};

static const ws_command ws_commands[] = {
    {&cmd_init_spec, 1, 1, -1, run_init},
    {&cmd_add_spec, 2, 2, STORE_WRITE, run_add},
    {&cmd_tree_spec, 0, 1, STORE_READ, run_tree},
    {&cmd_show_spec, 1, 1, STORE_READ, run_show},
    {&cmd_log_spec, 0, 1, STORE_READ, run_log},
    {&cmd_diff_spec, 1, 2, STORE_READ, run_diff},
    {&cmd_mark_spec, 2, 2, STORE_WRITE, run_mark},
    {&cmd_note_spec, 1, 16, STORE_WRITE, run_note},
    {&cmd_label_spec, 2, 2, STORE_WRITE, run_label},
    {&cmd_rm_spec, 1, 1, STORE_WRITE, run_rm},
    {&cmd_fsck_spec, 0, 0, STORE_READ, run_fsck},
};

static int run_named(const char *name, int argc, char **argv)
{
    for (size_t i = 0; i < sizeof ws_commands / sizeof ws_commands[0]; i++) {
        if (strcmp(ws_commands[i].spec->name, name) != 0) continue;
        ws_command c = ws_commands[i];
        /* fsck --repair writes. */
        if (strcmp(name, "fsck") == 0)
            for (int k = 1; k < argc; k++)
                if (strcmp(argv[k], "--repair") == 0) c.mode = STORE_WRITE;
        return dispatch(&c, argc, argv);
    }
    return cli_fail("internal: no workspace command '%s'", name);
}

int cmd_init(int argc, char **argv) { return run_named("init", argc, argv); }
int cmd_add(int argc, char **argv) { return run_named("add", argc, argv); }
int cmd_tree(int argc, char **argv) { return run_named("tree", argc, argv); }
int cmd_show(int argc, char **argv) { return run_named("show", argc, argv); }
int cmd_log(int argc, char **argv) { return run_named("log", argc, argv); }
int cmd_diff(int argc, char **argv) { return run_named("diff", argc, argv); }
int cmd_mark(int argc, char **argv) { return run_named("mark", argc, argv); }
int cmd_note(int argc, char **argv) { return run_named("note", argc, argv); }
int cmd_label(int argc, char **argv) { return run_named("label", argc, argv); }
int cmd_rm(int argc, char **argv) { return run_named("rm", argc, argv); }
int cmd_fsck(int argc, char **argv) { return run_named("fsck", argc, argv); }
