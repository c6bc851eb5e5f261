/*
 * args.c — the parameters of transforms: `key=value` / `key.LABEL=value` strings, and the
 * integer parameters read from them.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core_int.h"

int xf_args_parse(xf_args *out, int argc, char *const *argv, diag_list *d)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *eq = strchr(a, '=');
        const char *kend = eq ? eq : a + strlen(a);
        if (kend == a) {
            diag_add(d, NULL, 0, 0, "malformed argument '%s': expected key=value", a);
            return -1;
        }
        for (const char *c = a; c < kend; c++)
            if (!(isalnum((unsigned char)*c) || *c == '_' || *c == '.')) {
                diag_add(d, NULL, 0, 0, "malformed argument '%s': expected key=value "
                         "(key a name, optionally name.LABEL)", a);
                return -1;
            }
        xf_arg *na = xrealloc(out->items, (size_t)(out->n + 1) * sizeof *out->items);
        out->items = na;
        xf_arg *x = &out->items[out->n++];
        const char *dot = memchr(a, '.', (size_t)(kend - a));
        x->key = xstrndup(a, (size_t)((dot ? dot : kend) - a));
        x->label = dot ? xstrndup(dot + 1, (size_t)(kend - dot - 1)) : NULL;
        x->value = xstrdup(eq ? eq + 1 : "");
        if (dot && !x->label[0]) {
            diag_add(d, NULL, 0, 0, "malformed argument '%s': empty statement label after '.'", a);
            return -1;
        }
    }
    return 0;
}

void xf_args_free(xf_args *a)
{
    for (int i = 0; i < a->n; i++) {
        free(a->items[i].key);
        free(a->items[i].label);
        free(a->items[i].value);
    }
    free(a->items);
    a->items = NULL;
    a->n = 0;
}

const char *xf_args_get(const xf_args *a, const char *name, const char *label)
{
    const char *any = NULL;
    for (int i = 0; i < a->n; i++) {
        if (strcmp(a->items[i].key, name) != 0) continue;
        if (!a->items[i].label) any = a->items[i].value;
        else if (label && strcmp(a->items[i].label, label) == 0) return a->items[i].value;
    }
    return any;
}

int xf_args_ints(const xf_args *args, const char *xf, const xf_int_param *ps, int n, diag_list *d)
{
    for (int i = 0; i < args->n; i++) {
        const xf_int_param *p = NULL;
        for (int k = 0; k < n && !p; k++)
            if (!strcmp(args->items[i].key, ps[k].name) && !args->items[i].label) p = &ps[k];
        if (!p) {
            char names[128] = "";
            for (int k = 0; k < n; k++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s=", k ? (k == n - 1 ? " and " : ", ") : "",
                         ps[k].name);
            diag_add(d, NULL, 0, 0, "%s: unknown parameter '%s' (it has %s)", xf, args->items[i].key, names);
            return -1;
        }
        char *end = NULL;
        long long v = strtoll(args->items[i].value, &end, 10);
        if (!end || *end || end == args->items[i].value || v < p->min || v > p->max) {
            diag_add(d, NULL, 0, 0, "%s: %s= needs an integer of %lld or more, not '%s'%s%s", xf, p->name,
                     (long long)p->min, args->items[i].value, p->hint ? " " : "", p->hint ? p->hint : "");
            return -1;
        }
        *p->value = v;
    }
    return 0;
}
