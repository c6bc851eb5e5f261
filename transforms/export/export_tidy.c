/*
 * export_tidy.c — the exported program's text left as a careful person leaves it, after the
 * emitter wrote it:
 *   - an accessor of one expression (written `//@inline NAME(p, ..) EXPR` on a line of its own)
 *     is inlined at each call, its arguments substituted for its parameters;
 *   - a definition that nothing uses (written between `//@def NAME` and `//@end`) is left out:
 *     the parameters, the accessors, the tables a program does not need;
 *   - `(void)x;` of what the function uses is dropped;
 *   - lines are at most EX_COLUMNS columns: a comment at the end of a long line goes on its own
 *     line before it, a long comment is wrapped between words, code is broken after a comma or
 *     before an operator at the outermost parenthesis it can.
 * Only the text changes: the program computes the same, bit for bit.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "export_int.h"

enum { EX_COLUMNS = 100 };

/* The length of the comment or literal starting at s (0 when none starts there). */
static size_t skip_lexical(const char *s)
{
    if (s[0] == '/' && s[1] == '*') {
        const char *e = strstr(s + 2, "*/");
        return e ? (size_t)(e + 2 - s) : strlen(s);
    }
    if (s[0] == '/' && s[1] == '/') return strcspn(s, "\n");
    if (s[0] == '"' || s[0] == '\'') {
        size_t i = 1;
        while (s[i] && s[i] != s[0] && s[i] != '\n') i += s[i] == '\\' && s[i + 1] ? 2 : 1;
        return s[i] == s[0] ? i + 1 : i;
    }
    return 0;
}

/* How often identifier id occurs in s[0 .. n-1] as code (not in comments or literals). */
static int count_ident(const char *s, size_t n, const char *id)
{
    size_t len = strlen(id);
    int c = 0;
    for (size_t i = 0; i < n;) {
        size_t k = skip_lexical(s + i);
        if (k) { i += k; continue; }
        if (ex_ident_start((unsigned char)s[i]) && (i == 0 || !ex_ident_char((unsigned char)s[i - 1]))) {
            size_t j = i;
            while (j < n && ex_ident_char((unsigned char)s[j])) j++;
            if (j - i == len && memcmp(s + i, id, len) == 0) c++;
            i = j;
            continue;
        }
        i++;
    }
    return c;
}

/* How often identifier id is declared in s[0 .. n-1]: preceded by a type name (`int64_t x`) or
 * by a `*` written against it (`rt_val *x`), as the emitter writes declarations. */
static int count_decls(const char *s, size_t n, const char *id)
{
    static const char *const not_types[] = {"return", "sizeof", "case", "else", "do", "goto"};
    size_t len = strlen(id);
    int c = 0;
    for (size_t i = 0; i < n;) {
        size_t k = skip_lexical(s + i);
        if (k) { i += k; continue; }
        if (!ex_ident_start((unsigned char)s[i]) || (i && ex_ident_char((unsigned char)s[i - 1]))) { i++; continue; }
        size_t j = i;
        while (j < n && ex_ident_char((unsigned char)s[j])) j++;
        if (j - i == len && !memcmp(s + i, id, len) && i >= 2) {
            if (s[i - 1] == '*' && s[i - 2] == ' ') c++;
            else if (s[i - 1] == ' ' && ex_ident_char((unsigned char)s[i - 2])) {
                size_t t = i - 1;
                while (t > 0 && ex_ident_char((unsigned char)s[t - 1])) t--;
                int type = 1;
                for (size_t q = 0; q < sizeof not_types / sizeof not_types[0]; q++)
                    if (strlen(not_types[q]) == i - 1 - t && !memcmp(s + t, not_types[q], i - 1 - t)) type = 0;
                c += type;
            }
        }
        i = j;
    }
    return c;
}

/* Every call of imax or imin in the text (outside comments and literals) simplified. */
static char *tidy_minmax(own_take char *text)
{
    strbuf b = {0};
    for (size_t i = 0; text[i];) {
        size_t k = skip_lexical(text + i);
        if (k) { strbuf_putn(&b, text + i, (size_t)k); i += k; continue; }
        if ((!strncmp(text + i, "imax(", 5) || !strncmp(text + i, "imin(", 5)) &&
            (i == 0 || !ex_ident_char((unsigned char)text[i - 1]))) {
            size_t j = i + 4;
            int depth = 0;
            for (; text[j]; j++) {
                depth += text[j] == '(' ? 1 : text[j] == ')' ? -1 : 0;
                if (!depth || text[j] == '\n') break;
            }
            if (text[j] == ')') {
                char *call = ex_strndup(text + i, j + 1 - i), *simple = ex_simplify_index(call);
                strbuf_printf(&b, "%s", simple ? simple : call);
                free(call);
                free(simple);
                i = j + 1;
                continue;
            }
        }
        strbuf_putn(&b, text + i++, 1);
    }
    free(text);
    char *r = strbuf_take(&b);
    return r ? r : xstrdup("");
}

/* Every subscript `[..]` and every `int64_t name = ..` initialiser simplified where it can be. */
static char *tidy_indices(own_take char *text)
{
    strbuf b = {0};
    for (size_t i = 0; text[i];) {
        size_t k = skip_lexical(text + i);
        if (k) { strbuf_putn(&b, text + i, (size_t)k); i += k; continue; }
        size_t from = 0, j;
        char close = 0;
        if (text[i] == '[') { from = i + 1; close = ']'; }
        else if (!strncmp(text + i, "int64_t ", 8) && (i == 0 || !ex_ident_char((unsigned char)text[i - 1]))) {
            size_t q = i + 8;
            while (ex_ident_char((unsigned char)text[q])) q++;
            if (q > i + 8 && !strncmp(text + q, " = ", 3)) { from = q + 3; close = ';'; }
        }
        if (!close) { strbuf_putn(&b, text + i++, 1); continue; }
        int depth = 0;
        for (j = from; text[j] && text[j] != '\n'; j++) {
            if (text[j] == '(' || text[j] == '[') depth++;
            else if (text[j] == ')' || (text[j] == ']' && depth)) depth--;
            else if (!depth && (text[j] == close || (close == ';' && text[j] == ','))) break;
        }
        if (text[j] != close && !(close == ';' && text[j] == ',')) { strbuf_putn(&b, text + i++, 1); continue; }
        char *e = ex_strndup(text + from, j - from), *simple = ex_simplify_index(e);
        strbuf_printf(&b, "%.*s%s", (int)(from - i), text + i, simple ? simple : e);
        free(e);
        free(simple);
        i = j;
    }
    free(text);
    char *r = strbuf_take(&b);
    return r ? r : xstrdup("");
}

/* ---- inlining ------------------------------------------------------------------------------- */

typedef struct ex_inline {
    char name[96];
    char *par[8];
    int npar;
    char *expr;
} ex_inline;

/* expr with each parameter replaced by its argument (parenthesised unless one operand). */
static char *substitute(const ex_inline *f, char **args)
{
    strbuf b = {0};
    const char *s = f->expr;
    for (size_t i = 0; s[i];) {
        if (ex_ident_start((unsigned char)s[i]) && (i == 0 || !ex_ident_char((unsigned char)s[i - 1]))) {
            size_t j = i;
            while (ex_ident_char((unsigned char)s[j])) j++;
            int k;
            for (k = 0; k < f->npar; k++)
                if (strlen(f->par[k]) == j - i && memcmp(s + i, f->par[k], j - i) == 0) break;
            if (k < f->npar) {
                int op = ex_is_operand(args[k]);
                strbuf_printf(&b, op ? "%s" : "(%s)", args[k]);
            } else {
                strbuf_putn(&b, s + i, (size_t)(j - i));
            }
            i = j;
            continue;
        }
        strbuf_putn(&b, s + i++, 1);
    }
    char *r = strbuf_take(&b);
    return r ? r : xstrdup("");
}

/* One pass over text: every call of f expanded.  Returns the new text (or NULL: no call). */
static char *expand_calls(const char *text, const ex_inline *f)
{
    size_t len = strlen(f->name), plain = 0;   /* text[plain .. i-1]: copied as it is */
    strbuf b = {0};
    int changed = 0;
    for (size_t i = 0; text[i];) {
        size_t k = skip_lexical(text + i);
        if (k) { i += k; continue; }
        if (text[i] == f->name[0] && !strncmp(text + i, f->name, len) && text[i + len] == '(' &&
            (i == 0 || !ex_ident_char((unsigned char)text[i - 1]))) {
            strbuf_putn(&b, text + plain, i - plain);
            char *args[8] = {0};
            int nargs = 0, depth = 0;
            size_t j = i + len + 1, from = j;
            for (; text[j]; j++) {
                char c = text[j];
                if (c == '(') depth++;
                else if (c == ')' && depth) depth--;
                else if ((c == ',' || c == ')') && !depth) {
                    if (nargs < 8) {
                        size_t a = from, e = j;
                        while (a < e && text[a] == ' ') a++;
                        args[nargs++] = ex_strndup(text + a, e - a);
                    }
                    from = j + 1;
                    if (c == ')') break;
                }
            }
            if (nargs == 1 && !f->npar && !args[0][0]) { free(args[0]); nargs = 0; }   /* NAME() */
            if (text[j] == ')' && nargs == f->npar) {
                char *e = substitute(f, args), *simple = ex_simplify_index(e);
                if (simple) { free(e); e = simple; }
                strbuf_printf(&b, ex_is_operand(e) ? "%s" : "(%s)", e);
                free(e);
                i = j + 1;
                changed = 1;
            } else {
                strbuf_putn(&b, text + i, len);
                i += len;
            }
            plain = i;
            for (int a = 0; a < nargs; a++) free(args[a]);
            continue;
        }
        i++;
    }
    if (!changed) { strbuf_free(&b); return NULL; }
    strbuf_putn(&b, text + plain, strlen(text + plain));
    return strbuf_take(&b);
}

/* Parses `//@inline NAME(p, ..) EXPR`; 0 when the line is not one. */
static int parse_inline(const char *line, size_t n, ex_inline *f)
{
    static const char tag[] = "//@inline ";
    if (n < sizeof tag || strncmp(line, tag, sizeof tag - 1)) return 0;
    const char *s = line + sizeof tag - 1, *end = line + n;
    const char *open = memchr(s, '(', (size_t)(end - s));
    const char *close = open ? memchr(open, ')', (size_t)(end - open)) : NULL;
    if (!open || !close || (size_t)(open - s) >= sizeof f->name) return 0;
    memset(f, 0, sizeof *f);
    memcpy(f->name, s, (size_t)(open - s));
    for (const char *p = open + 1; p < close && f->npar < 8;) {
        while (p < close && (*p == ' ' || *p == ',')) p++;
        const char *q = p;
        while (q < close && ex_ident_char((unsigned char)*q)) q++;
        if (q > p) f->par[f->npar++] = ex_strndup(p, (size_t)(q - p));
        p = q > p ? q : q + 1;
    }
    const char *e = close + 1;
    while (e < end && *e == ' ') e++;
    f->expr = ex_strndup(e, (size_t)(end - e));
    return 1;
}

static void free_inline(ex_inline *f)
{
    for (int i = 0; i < f->npar; i++) free(f->par[i]);
    free(f->expr);
}

/* The text without its inline lines, every call of them expanded (in the order written: an
 * expression may call an accessor written before it). */
static char *tidy_inline(own_take char *text)
{
    ex_inline *fs = NULL;
    int nf = 0, cap = 0;
    strbuf rest = {0};
    for (const char *l = text; *l;) {
        size_t n = strcspn(l, "\n");
        ex_inline f;
        if (parse_inline(l, n, &f)) {
            if (nf == cap) {
                cap = cap ? 2 * cap : 16;
                fs = xrealloc(fs, (size_t)cap * sizeof *fs);
            }
            fs[nf++] = f;
        } else {
            strbuf_printf(&rest, "%.*s\n", (int)n, l);
        }
        l += n + (l[n] == '\n');
    }
    free(text);
    text = strbuf_take(&rest);
    for (int round = 0; round < 4; round++) {   /* an expansion may hold a call of another */
        int changed = 0;
        for (int k = 0; k < nf; k++) {   /* in the order written: an extent before the index */
            char *t = expand_calls(text, &fs[k]);
            if (t) { free(text); text = t; changed = 1; }
        }
        if (!changed) break;
    }
    for (int k = 0; k < nf; k++) free_inline(&fs[k]);
    free(fs);
    return text;
}

/* ---- definitions nothing uses ---------------------------------------------------------------- */

typedef struct ex_def { const char *from, *to; char name[96]; int keep; } ex_def;

static char *tidy_defs(own_take char *text)
{
    ex_def *ds = NULL;
    int nd = 0, cap = 0;
    for (char *l = strstr(text, "//@def "); l; l = strstr(l + 1, "//@def ")) {
        if (l != text && l[-1] != '\n') continue;
        char *end = strstr(l, "\n//@end\n");
        if (!end) break;
        if (nd == cap) {
            cap = cap ? 2 * cap : 32;
            ds = xrealloc(ds, (size_t)cap * sizeof *ds);
        }
        ex_def *d = &ds[nd++];
        size_t n = strcspn(l + 7, " \n");
        snprintf(d->name, sizeof d->name, "%.*s", (int)n, l + 7);
        d->from = l;
        d->to = end + 8;
        d->keep = 0;
    }
    /* kept: named by the text outside the definitions, or by a kept definition */
    for (int changed = 1; changed;) {
        changed = 0;
        for (int k = 0; k < nd; k++) {
            if (ds[k].keep) continue;
            const char *from = text;
            for (int j = 0; j <= nd && !ds[k].keep; j++) {
                const char *to = j < nd ? ds[j].from : text + strlen(text);
                if (count_ident(from, (size_t)(to - from), ds[k].name)) ds[k].keep = 1;
                if (j < nd) from = ds[j].to;
            }
            for (int j = 0; j < nd && !ds[k].keep; j++)
                if (j != k && ds[j].keep) {
                    const char *body = strchr(ds[j].from, '\n') + 1;
                    if (count_ident(body, (size_t)(ds[j].to - body), ds[k].name)) ds[k].keep = 1;
                }
            changed |= ds[k].keep;
        }
    }
    strbuf b = {0};
    const char *at = text;
    for (int k = 0; k < nd; k++) {
        strbuf_putn(&b, at, (size_t)(ds[k].from - at));
        if (ds[k].keep) {
            const char *body = strchr(ds[k].from, '\n') + 1;
            strbuf_putn(&b, body, (size_t)(ds[k].to - 7 - body));
        }
        at = ds[k].to;
    }
    strbuf_printf(&b, "%s", at);
    free(ds);
    free(text);
    char *r = strbuf_take(&b);
    return r ? r : xstrdup("");
}

/* ---- (void) casts of what is used ------------------------------------------------------------ */

/* The line of `(void)x; (void)y;` with the casts of what the function (fn .. end) uses left
 * out: x occurs twice or more besides its casts (declared and used).  NULL when the line is not
 * such casts alone. */
static char *void_line(const char *line, size_t n, const char *fn, const char *end)
{
    const char *c = line;
    while (*c == ' ' && c < line + n) c++;
    if (c == line + n || strncmp(c, "(void)", 6)) return NULL;
    strbuf out = {0};
    strbuf_putn(&out, line, (size_t)(c - line));
    int kept = 0;
    for (const char *v = c; v < line + n;) {
        const char *id = v + 6, *e = id;
        if (strncmp(v, "(void)", 6)) { strbuf_free(&out); return NULL; }
        while (ex_ident_char((unsigned char)*e)) e++;
        if (*e != ';' || e == id) { strbuf_free(&out); return NULL; }
        char cast[128];
        snprintf(cast, sizeof cast, "(void)%.*s;", (int)(e - id), id);
        char name[96];
        snprintf(name, sizeof name, "%.*s", (int)(e - id), id);
        int casts = 0;
        for (const char *p = strstr(fn, cast); p && p < end; p = strstr(p + 1, cast)) casts++;
        /* kept when unused, or declared twice in its scope (which one is used cannot be told) */
        if (count_ident(fn, (size_t)(end - fn), name) - casts < 2 || count_decls(fn, (size_t)(end - fn), name) > 1)
            strbuf_printf(&out, "%s%s", kept++ ? " " : "", cast);
        v = e + 1;
        while (v < line + n && *v == ' ') v++;
    }
    if (!kept) { strbuf_free(&out); return xstrdup(""); }
    return strbuf_take(&out);
}

static int indent_of(const char *l, size_t n)
{
    int k = 0;
    while ((size_t)k < n && l[k] == ' ') k++;
    return k;
}

/* The casts of what is used dropped: a cast's scope is its block (from the line that opened it,
 * with a function's signature, to the line that closes it), where x must occur twice besides
 * the casts (declared and used). */
static char *tidy_voids(own_take char *text)
{
    int nl = 0, cap = 0;
    const char **ls = NULL;
    size_t *ln = NULL;
    for (const char *l = text; *l;) {
        size_t n = strcspn(l, "\n");
        if (nl == cap) {
            cap = cap ? 2 * cap : 1024;
            ls = xrealloc(ls, (size_t)cap * sizeof *ls);
            ln = xrealloc(ln, (size_t)cap * sizeof *ln);
        }
        ls[nl] = l;
        ln[nl++] = n;
        l += n + (l[n] == '\n');
    }
    strbuf b = {0};
    for (int i = 0; i < nl; i++) {
        int in = indent_of(ls[i], ln[i]);
        char *v = NULL;
        if (in > 0 && ln[i] > (size_t)in + 6 && !strncmp(ls[i] + in, "(void)", 6)) {
            int from = i, to = i;
            while (from > 0 && (indent_of(ls[from], ln[from]) >= in || ln[from] == 0)) from--;
            if (from > 0 && ln[from] == 1 && ls[from][0] == '{') from--;   /* the signature */
            while (to + 1 < nl && (indent_of(ls[to], ln[to]) >= in || ln[to] == 0)) to++;
            const char *end = ls[to] + ln[to];
            v = void_line(ls[i], ln[i], ls[from], end);
        }
        if (!v) strbuf_printf(&b, "%.*s\n", (int)ln[i], ls[i]);
        else if (*v) strbuf_printf(&b, "%s\n", v);
        free(v);
    }
    free(ls);
    free(ln);
    free(text);
    char *r = strbuf_take(&b);
    return r ? r : xstrdup("");
}

/* ---- lines of at most EX_COLUMNS columns ----------------------------------------------------- */

/* A comment's text (a line opening or continuing a block comment) wrapped between words at
 * EX_COLUMNS; continuation lines start with `indent * `. */
static void wrap_comment(strbuf *b, const char *line, size_t n, int indent)
{
    char *own = NULL;
    while (n > EX_COLUMNS) {
        size_t cut = EX_COLUMNS;
        while (cut > (size_t)indent + 4 && (line[cut] != ' ' || !strncmp(line + cut, " */", 4))) cut--;
        if (cut <= (size_t)indent + 4) break;   /* one word longer than the line */
        size_t keep = cut;
        while (keep > 0 && line[keep - 1] == ' ') keep--;
        strbuf_printf(b, "%.*s\n", (int)keep, line);
        while (cut < n && line[cut] == ' ') cut++;
        strbuf t = {0};
        strbuf_printf(&t, "%*s * %.*s", indent, "", (int)(n - cut), line + cut);
        free(own);
        own = strbuf_take(&t);
        line = own;
        n = strlen(own);
    }
    strbuf_printf(b, "%.*s\n", (int)n, line);
    free(own);
}

/* Code broken after a comma (or `;` of a for) or before a binary operator, at the lowest
 * parenthesis depth that fits, the rightmost such; the rest continues under the opening
 * parenthesis (or 8 columns in). */
static void wrap_code(strbuf *b, const char *line, size_t n, int indent)
{
    for (int guard = 0; n > EX_COLUMNS && guard < 32; guard++) {
        /* in order of preference at one depth: a comma, then the loosest operator */
        static const char *const ops[] = {" = ", " || ", " && ", " ? ", " : ", " + ", " - ", " * ", " / "};
        size_t best = 0, skip = 0, lead = 0;
        while (lead < n && line[lead] == ' ') lead++;   /* never a break inside the indentation */
        int best_depth = 1 << 20, best_rank = 1 << 20, depth = 0, open[64] = {0}, best_open = -1;
        for (size_t i = 0; i < n && i <= EX_COLUMNS; i++) {
            size_t k = skip_lexical(line + i);
            if (k) { i += k - 1; continue; }
            char c = line[i];
            if (c == '(' || c == '[' || c == '{') { if (depth < 64) open[depth] = (int)i; depth++; continue; }
            if (c == ')' || c == ']' || c == '}') { if (depth) depth--; continue; }
            size_t at = 0, sk = 0;
            int rank = 0;
            if ((c == ',' || c == ';') && line[i + 1] == ' ') { at = i + 1; sk = 1; }
            else if (c == ' ')
                for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
                    if (!strncmp(line + i, ops[o], strlen(ops[o]))) {
                        rank = 1 + (int)o;
                        at = o == 0 ? i + 2 : i;   /* after `=`, before the others */
                        sk = 1;
                        break;
                    }
            if (!at || at > EX_COLUMNS || at <= (size_t)indent + 8 || at <= lead) continue;
            if (depth < best_depth || (depth == best_depth && (rank < best_rank || (rank == best_rank && at > best)))) {
                best = at;
                best_depth = depth;
                best_rank = rank;
                skip = sk;
                best_open = depth ? open[depth - 1 < 64 ? depth - 1 : 63] : -1;
            }
        }
        if (!best) {   /* a string literal too long: split between words ("ab " "cd") */
            size_t q = 0;
            for (size_t i = (size_t)indent; i < n && i < EX_COLUMNS - 1;) {
                size_t k = skip_lexical(line + i);
                if (k && line[i] == '"') {
                    for (size_t j = i + 1; j < i + k - 1 && j < EX_COLUMNS - 1; j++)
                        if (line[j] == ' ' && line[j - 1] != '\\' && j > (size_t)indent + 8) q = j + 1;
                }
                i += k ? k : 1;
            }
            if (!q) break;
            strbuf_printf(b, "%.*s\"\n", (int)q, line);
            strbuf tmp = {0};
            strbuf_printf(&tmp, "%*s\"%.*s", indent + 8, "", (int)(n - q), line + q);
            char *t = strbuf_take(&tmp);
            wrap_code(b, t, strlen(t), indent);
            free(t);
            return;
        }
        int cont = best_open >= 0 && best_open + 1 < 60 ? best_open + 1 : indent + 8;
        strbuf_printf(b, "%.*s\n", (int)best, line);
        strbuf tmp = {0};
        strbuf_printf(&tmp, "%*s%.*s", cont, "", (int)(n - best - skip), line + best + skip);
        char *t = strbuf_take(&tmp);
        wrap_code(b, t, strlen(t), indent);
        free(t);
        return;
    }
    strbuf_printf(b, "%.*s\n", (int)n, line);
}

/* One line at most EX_COLUMNS wide (or as near as it can be). */
static void wrap_line(strbuf *b, const char *line, size_t n)
{
    if (n <= EX_COLUMNS || line[0] == '#') { strbuf_printf(b, "%.*s\n", (int)n, line); return; }
    int indent = 0;
    while ((size_t)indent < n && line[indent] == ' ') indent++;
    const char *c = line + indent;
    if (!strncmp(c, "/*", 2) || !strncmp(c, "* ", 2) || !strncmp(c, "*/", 2)) {
        wrap_comment(b, line, n, c[0] == '*' ? indent - 1 : indent);
        return;
    }
    /* a comment ending the line goes on its own line before the code */
    size_t code_end = n;
    for (size_t i = (size_t)indent; i < n;) {
        size_t k = skip_lexical(line + i);
        if (k && line[i] == '/' && line[i + 1] == '*' && i + k == n) { code_end = i; break; }
        i += k ? k : 1;
    }
    if (code_end < n) {
        strbuf com = {0};
        strbuf_printf(&com, "%*s%.*s", indent, "", (int)(n - code_end), line + code_end);
        wrap_line(b, com.s, com.n);
        strbuf_free(&com);
        while (code_end > 0 && line[code_end - 1] == ' ') code_end--;
        wrap_code(b, line, code_end, indent);
        return;
    }
    wrap_code(b, line, n, indent);
}

static char *tidy_lines(own_take char *text)
{
    strbuf b = {0};
    for (const char *l = text; *l;) {
        size_t n = strcspn(l, "\n");
        wrap_line(&b, l, n);
        l += n + (l[n] == '\n');
    }
    free(text);
    char *r = strbuf_take(&b);
    return r ? r : xstrdup("");
}

/* The standard headers a program includes only for some of its calls, left out without them. */
static const struct { const char *line, *const *calls; } ex_optional_headers[] = {
    {"#include <math.h>\n", (const char *const[]){"sqrt", "floor", "ceil", "fabs", "pow", "exp", "log", "sin", "cos",
                                                "fmin", "fmax", "round", "trunc", "isnan", "isinf", "tan", NULL}},
    {"#include <string.h>\n", (const char *const[]){"memcpy", "memset", "memmove", "memcmp", "strcmp", "strlen",
                                                  "strncmp", NULL}},
};

static char *tidy_headers(char *text)
{
    for (size_t h = 0; h < sizeof ex_optional_headers / sizeof ex_optional_headers[0]; h++) {
        char *at = strstr(text, ex_optional_headers[h].line);
        if (!at) continue;
        int used = 0;
        for (const char *const *c = ex_optional_headers[h].calls; *c && !used; c++)
            used = count_ident(text, strlen(text), *c) > 0;
        size_t n = strlen(ex_optional_headers[h].line);
        if (!used) memmove(at, at + n, strlen(at + n) + 1);
    }
    return text;
}

/* `if ((c))` written `if (c)`: the condition's own parentheses dropped where they enclose all of
 * it (the emitter parenthesises every operation). */
static char *tidy_if_parens(char *text)
{
    char *w = text;
    for (const char *r = text; *r;) {
        size_t k = skip_lexical(r);
        if (k) {
            memmove(w, r, k);
            w += k;
            r += k;
            continue;
        }
        if (!strncmp(r, "if ((", 5) && (r == text || (!isalnum((unsigned char)r[-1]) && r[-1] != '_'))) {
            int depth = 0;
            const char *c = r + 4;   /* the inner parenthesis */
            for (; *c; c++) {
                size_t q = skip_lexical(c);
                if (q) { c += q - 1; continue; }
                if (*c == '(') depth++;
                else if (*c == ')' && --depth == 0) break;
            }
            if (*c == ')' && c[1] == ')') {   /* the inner pair closes where the outer does */
                memcpy(w, "if (", 4);
                w += 4;
                size_t inner = (size_t)(c - (r + 5));
                memmove(w, r + 5, inner);
                w += inner;
                r = c + 1;   /* the outer `)` follows */
                continue;
            }
        }
        *w++ = *r++;
    }
    *w = 0;
    return text;
}

char *ex_tidy(char *text)
{
    text = tidy_inline(text);
    text = tidy_minmax(text);
    text = tidy_indices(text);
    text = tidy_defs(text);
    text = tidy_voids(text);
    text = tidy_headers(text);
    text = tidy_if_parens(text);
    return tidy_lines(text);
}
