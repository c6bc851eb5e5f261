/*
 * at_sizes.c — the user's size as explore --at takes it: `n=1300,tsteps=500` (the node's
 * parameters), or, for a program imported from C, the C file's own words for a size: a dataset
 * (`LARGE`, `LARGE_DATASET`: PolyBench's header picks the sizes from it) or a macro
 * (`N=2000`).  Those are had by importing the file again with them, by the command its header
 * records (`# imported with: polyapm import ...`), and reading the parameters it gives.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mem.h"
#include "ops.h"
#include "strbuf.h"

enum { AT_MAX_FIELDS = 64 };

static int is_param(const ir_program *p, const char *name, size_t len)
{
    for (int i = 0; i < p->nparams; i++) {
        const char *pn = p->params[i]->u.param.name;
        if (strlen(pn) == len && !strncmp(pn, name, len)) return 1;
    }
    return 0;
}

/* The command of the `# imported with:` line of a program's text (the caller frees it), or NULL. */
static char *recorded_command(const char *text)
{
    static const char tag[] = "# imported with: ";
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (*line != '#') break;   /* the header's comments come first */
        if (!strncmp(line, tag, sizeof tag - 1)) {
            const char *c = line + sizeof tag - 1;
            return xstrndup(c, strcspn(c, "\n"));
        }
    }
    return NULL;
}

/* Appends "name=value" of every `param name = value` line of imported text whose name is a
 * parameter of p (and not one the user gave: `given`, "a=1,b=2,"), comma-separated. */
static void imported_params(const char *text, const ir_program *p, const char *given, strbuf *out)
{
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        char name[128];
        long long v;
        if (sscanf(line, "param %127[A-Za-z0-9_] = %lld", name, &v) != 2) continue;
        if (!is_param(p, name, strlen(name))) continue;
        char *pre = xasprintf(",%s=", name);
        if (!strstr(given, pre)) strbuf_printf(out, "%s%s=%lld", out->n ? "," : "", name, v);
        free(pre);
    }
}

/* Are the bindings "a=1,b=2" the values p's parameters have (those it names)? */
static int same_sizes(const ir_program *p, const char *bindings)
{
    int64_t *vals = xcalloc((size_t)p->nparams + 1, sizeof *vals);
    diag_list d;
    diag_list_init(&d);
    char *wrapped = xasprintf(",%s,", bindings);
    int same = ir_params_eval(p, NULL, 0, 0, vals, &d) == 0;
    for (int i = 0; same && i < p->nparams; i++) {
        const char *name = p->params[i]->u.param.name;
        char *named = xasprintf(",%s=", name), *valued = xasprintf(",%s=%lld,", name, (long long)vals[i]);
        same = !strstr(wrapped, named) || strstr(wrapped, valued);
        free(named);
        free(valued);
    }
    free(wrapped);
    diag_list_free(&d);
    free(vals);
    return same;
}

char *cli_at_sizes(store *s, int64_t node, const char *text, diag_list *d)
{
    ir_program *p = ops_node_program(s, node, d);
    if (!p) return NULL;
    char *copy = xstrdup(text), *fields[AT_MAX_FIELDS];
    int n = 0, all_params = 1;
    for (char *w = copy; w && n < AT_MAX_FIELDS; n++) {
        fields[n] = w;
        w = strchr(w, ',');
        if (w) *w++ = '\0';
        size_t len = strcspn(fields[n], "=");
        all_params &= fields[n][len] == '=' && is_param(p, fields[n], len);
    }
    char *result = NULL;
    if (all_params) {
        result = xstrdup(text);
        goto out;
    }
    size_t tlen = 0;
    char *ptext = store_node_text(s, node, &tlen, d), *command = ptext ? recorded_command(ptext) : NULL;
    if (!command) {   /* not imported from C: the text as given (explore says what is wrong with it) */
        if (ptext) result = xstrdup(text);
        free(ptext);
        goto out;
    }
    strbuf given = {0}, size = {0};
    strbuf_printf(&given, ",");
    const char *defs[AT_MAX_FIELDS];
    int ndefs = 0;
    for (int i = 0; i < n; i++) {
        size_t len = strcspn(fields[i], "=");
        if (fields[i][len] == '=' && is_param(p, fields[i], len)) {
            strbuf_printf(&given, "%s,", fields[i]);
            strbuf_printf(&size, "%s%s", size.n ? "," : "", fields[i]);
        } else if (fields[i][len] == '\0' && len && !strstr(fields[i], "_DATASET")) {
            defs[ndefs++] = xasprintf("%s_DATASET", fields[i]);   /* LARGE: PolyBench's LARGE_DATASET */
        } else {
            defs[ndefs++] = xstrdup(fields[i]);
        }
    }
    char *again = cli_cimport_again(command, defs, ndefs);
    if (again) {
        strbuf all = {0};
        imported_params(again, p, given.s, &all);
        if (size.n && all.n) strbuf_printf(&all, ",");
        strbuf_printf(&all, "%s", size.n ? size.s : "");
        result = strbuf_take(&all);
        if (ndefs && !size.n && same_sizes(p, result)) {
            diag_add(d, NULL, 0, 0, "--at %s: the C file imported again with it has the program's own sizes "
                     "(%s): is it a dataset or macro of the file?", text, result);
            free(result);
            result = NULL;
        } else if (!*result) {
            diag_add(d, NULL, 0, 0, "--at %s: the C file imported again gives node %lld none of its parameters",
                     text, (long long)node);
            free(result);
            result = NULL;
        }
    } else {
        diag_add(d, NULL, 0, 0, "--at %s: importing the C file again (%s) failed", text, command);
    }
    for (int i = 0; i < ndefs; i++) free((char *)defs[i]);
    free(again);
    strbuf_free(&given);
    strbuf_free(&size);
    free(command);
    free(ptext);
out:
    free(copy);
    ir_program_free(p);
    return result;
}
