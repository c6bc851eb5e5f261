/*
 * optable.c — the option parser of every `polyapm` command and the synopsis and --help text
 * generated from the same tables (see optable.h).
 */
#include "optable.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ir.h"

enum { WRAP = 100, HELP_COLUMN = 34 };

static int is_option_word(const char *w)
{
    return w[0] == '-' && w[1] && !(w[1] >= '0' && w[1] <= '9');
}

static int accepts(const cli_spec *s, const cli_opt *o)
{
    return s && (!o->cmds || (o->cmds & s->bit));
}

/* Does `word` spell `name`, exactly or with a value attached (`--name=v`, `-Xv`)?  1 with *value
 * set to the attached value or NULL; 0 if not. */
static int spells(const char *name, int takes_value, const char *word, char **value)
{
    if (!name) return 0;
    size_t n = strlen(name);
    *value = NULL;
    if (strncmp(word, name, n) != 0) return 0;
    if (word[n] == '\0') return 1;
    if (!takes_value) return 0;
    if (word[n] == '=') { *value = (char *)word + n + 1; return 1; }
    if (n == 2 && name[0] == '-' && name[1] != '-') { *value = (char *)word + n; return 1; }
    return 0;
}

/* The row a word names: an exact spelling first, then one with an attached value; a row of
 * `spec` (or of its other form) before a row of another command of the family (two commands may
 * give one option rows of their own).  *spelled is the spelling used (name or alias). */
static const cli_opt *lookup(const cli_spec *spec, const char *word, char **value, const char **spelled)
{
    for (int pass = 0; pass < 4; pass++) {
        int exact = pass < 2, mine = pass % 2 == 0;
        for (const cli_opt *o = spec->opts; o->name; o++) {
            if (mine && !accepts(spec, o) && !accepts(spec->other, o)) continue;
            const char *names[2] = {o->name, o->alias};
            for (int k = 0; k < 2; k++)
                if (spells(names[k], o->kind != OPT_FLAG, word, value) && (!exact || !*value)) {
                    *spelled = names[k];
                    return o;
                }
        }
    }
    return NULL;
}

/* Stores one option's value (NULL for a flag).  0, or CLI_USAGE after reporting. */
static int take(const cli_spec *s, const cli_opt *o, const char *spelled, char *v, void *args)
{
    char *base = args;
    switch (o->kind) {
    case OPT_FLAG:
        *(int *)(base + o->off) = 1;
        return 0;
    case OPT_STR:
        *(const char **)(base + o->off) = v;
        return 0;
    case OPT_LONG: {
        char *end;
        errno = 0;
        long n = strtol(v, &end, 10);
        if (end == v || *end || errno || n < o->lo || n > o->hi) {
            if (o->lo == 0 && o->hi == LONG_MAX) return cli_usage(s->name, "%s takes a number, not '%s'", spelled, v);
            return cli_usage(s->name, "%s takes %ld..%ld, not '%s'", spelled, o->lo, o->hi, v);
        }
        *(long *)(base + o->off) = n;
        return 0;
    }
    case OPT_BINDING: {
        int *count = (int *)(base + o->count);
        if (*count >= o->hi) return cli_usage(s->name, "at most %ld %s options", o->hi, spelled);
        ir_binding *b = (ir_binding *)(base + o->off);
        if (ir_parse_binding(v, &b[*count]) != 0)
            return cli_usage(s->name, "%s takes name=integer, not '%s'", spelled, v);
        (*count)++;
        return 0;
    }
    case OPT_FN:
        if (o->set(args, v) != 0)
            return cli_usage(s->name, "bad value for %s: '%s' (expected %s)", spelled, v, o->value);
        return 0;
    }
    return 0;
}

int optable_parse(const cli_spec *spec, int argc, char **argv, void *args, int *npos)
{
    int only_pos = 0;
    *npos = 0;
    for (int i = 1; i < argc; i++) {
        char *word = argv[i];
        if (only_pos || !is_option_word(word)) {
            argv[++*npos] = word;     /* never ahead of i: nothing unread is overwritten */
            continue;
        }
        if (strcmp(word, "--") == 0) { only_pos = 1; continue; }
        char *value;
        const char *spelled;
        const cli_opt *o = lookup(spec, word, &value, &spelled);
        if (o && !accepts(spec, o)) {
            if (accepts(spec->other, o) && spec->other->form)
                return cli_usage(spec->name, "%s applies to %s only", spelled, spec->other->form);
            o = NULL;
        }
        if (!o) return cli_usage(spec->name, "unknown option '%s'", word);
        if (o->kind != OPT_FLAG && !value) {
            if (i + 1 >= argc) return cli_usage(spec->name, "%s needs %s: %s", spelled, o->value, o->help);
            value = argv[++i];
        }
        int rc = take(spec, o, spelled, value, args);
        if (rc) return rc;
    }
    return 0;
}

/* Walks the words as the parser does, without storing: the index of the first positional word,
 * or of `--help` when `help` (argc if none). */
static int walk(const cli_spec *spec, int argc, char **argv, int help)
{
    for (int i = 1; i < argc; i++) {
        const char *word = argv[i];
        if (strcmp(word, "--") == 0) return help ? argc : (i + 1 < argc ? i + 1 : argc);
        if (help && strcmp(word, "--help") == 0) return i;
        if (!is_option_word(word)) {
            if (!help) return i;
            continue;
        }
        char *value;
        const char *spelled;
        const cli_opt *o = lookup(spec, word, &value, &spelled);
        if (o && o->kind != OPT_FLAG && !value) i++;
    }
    return argc;
}

const char *optable_first_positional(const cli_spec *spec, int argc, char **argv)
{
    int i = walk(spec, argc, argv, 0);
    return i < argc ? argv[i] : NULL;
}

int optable_wants_help(const cli_spec *spec, int argc, char **argv)
{
    return walk(spec, argc, argv, 1) < argc;
}

/* One option as the synopsis shows it: "[--machine M]", "-o DIR", "[-D name=value]...". */
static void opt_token(const cli_opt *o, char *buf, size_t n)
{
    int req = o->flags & OPT_REQUIRED;
    snprintf(buf, n, "%s%s%s%s%s%s", req ? "" : "[", o->name, o->value ? " " : "", o->value ? o->value : "",
             req ? "" : "]", (o->flags & OPT_REPEAT) ? "..." : "");
}

void optable_synopsis(FILE *out, const cli_spec *spec, const char *lead)
{
    int indent = (int)strlen(lead) + 8;
    int col = fprintf(out, "%spolyapm %s", lead, spec->name);
    if (spec->args && *spec->args) col += fprintf(out, " %s", spec->args);
    for (const cli_opt *o = spec->opts; o->name; o++) {
        if (!accepts(spec, o)) continue;
        char tok[160];
        opt_token(o, tok, sizeof tok);
        if (col + 1 + (int)strlen(tok) > WRAP) col = fprintf(out, "\n%*s%s", indent, "", tok) - 1;
        else col += fprintf(out, " %s", tok);
    }
    fputc('\n', out);
}

/* "-j, --jobs J": the shorter spelling first. */
static void opt_label(const cli_opt *o, char *buf, size_t n)
{
    const char *a = o->name, *b = o->alias;
    if (b && strlen(b) < strlen(a)) { const char *t = a; a = b; b = t; }
    snprintf(buf, n, "%s%s%s%s%s", a, b ? ", " : "", b ? b : "", o->value ? " " : "", o->value ? o->value : "");
}

/* Prints `text` from column `col`, wrapped at WRAP, continuation lines at column `indent`. */
static void print_wrapped(FILE *out, int col, int indent, const char *text)
{
    while (*text) {
        size_t n = strcspn(text, " ");
        if (col > indent && col + 1 + (int)n > WRAP) col = fprintf(out, "\n%*s", indent, "") - 1;
        else if (col > indent) col += fprintf(out, " ");
        col += fprintf(out, "%.*s", (int)n, text);
        text += n;
        while (*text == ' ') text++;
    }
}

void optable_help(FILE *out, const cli_spec *spec)
{
    optable_synopsis(out, spec, "usage: ");
    if (spec->other) optable_synopsis(out, spec->other, "       ");
    if (spec->summary) fprintf(out, "\n%s\n", spec->summary);
    fprintf(out, "\noptions:\n");
    int column = 12;                       /* "  --help" and two spaces at least */
    char label[160];
    for (const cli_opt *o = spec->opts; o->name; o++) {
        if (!accepts(spec, o) && !accepts(spec->other, o)) continue;
        opt_label(o, label, sizeof label);
        if ((int)strlen(label) + 4 > column) column = (int)strlen(label) + 4;
    }
    if (column > HELP_COLUMN) column = HELP_COLUMN;
    for (const cli_opt *o = spec->opts; o->name; o++) {
        int here = accepts(spec, o), there = accepts(spec->other, o);
        if (!here && !there) continue;
        opt_label(o, label, sizeof label);
        int w = fprintf(out, "  %s", label);
        if (w + 2 > column) w = fprintf(out, "\n") - 1;
        w += fprintf(out, "%*s", column - w, "");
        const char *only = here != there && spec->other ? (here ? spec->form : spec->other->form) : NULL;
        if (only) w += fprintf(out, "(%s only)", only);
        print_wrapped(out, w, column, o->help);
        fputc('\n', out);
    }
    fprintf(out, "  --help%*sprint this help and exit\n", column - 8, "");
}
