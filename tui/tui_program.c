/*
 * tui_program.c — the program pane: the selected node's program text (keywords bold, comments
 * dim), scrolling, or (key d) the unified diff against its first parent (added lines green,
 * removed red).  The text is loaded from the store when the selection changes.  Characters beyond
 * ASCII (stm's θ and σ in labels, the diff's header) show as themselves on a UTF-8 terminal,
 * spelled (theta, sigma) on another; lines are cut by screen columns, not bytes.
 */
#include <ctype.h>
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"

void tui_program_free(tui *t)
{
    for (int i = 0; i < t->nlines; i++) free(t->lines[i]);
    free(t->lines);
    t->lines = NULL;
    t->nlines = 0;
}

void tui_program_invalidate(tui *t) { t->prog_id = -1; }

static void split_lines(tui *t, const char *text)
{
    tui_program_free(t);
    int n = 1;
    for (const char *c = text; *c; c++) n += *c == '\n';
    t->lines = calloc((size_t)n, sizeof *t->lines);
    if (!t->lines) return;
    const char *p = text;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char *l = malloc(5 * len + 1);                 /* "theta" for θ's two bytes at most */
        if (!l) break;
        tui_screen_text(p, len, l);
        t->lines[t->nlines++] = l;
        if (!e) break;
        p = e + 1;
    }
}

static void load(tui *t, int64_t id)
{
    diag_list d;
    diag_list_init(&d);
    size_t len = 0, plen = 0;
    char *text = store_node_text(t->s, id, &len, &d);
    char *shown = NULL;
    if (text && t->prog_diff) {
        int gi = store_graph_index(&t->g, id);
        int bi = t->diff_base >= 0 && t->diff_base != id ? store_graph_index(&t->g, t->diff_base) : -1;
        if (bi < 0 && gi >= 0 && t->g.nodes[gi].nparents > 0) bi = t->g.nodes[gi].parents[0];
        if (gi >= 0 && bi >= 0) {
            const store_gnode *p = &t->g.nodes[bi];
            char *ptext = store_node_text(t->s, p->id, &plen, &d);
            if (ptext) {
                shown = vcs_diff_text(ptext, plen, p->label, text, len, t->g.nodes[gi].label, 3, &d);
                if (shown && !*shown) {
                    free(shown);
                    shown = strdup("(no change against the parent)\n");
                }
            }
            free(ptext);
        } else {
            shown = strdup("(the root has no parent to diff against; v marks a node to diff against)\n");
        }
    }
    if (!text) split_lines(t, d.n ? d.items[d.n - 1].msg : "cannot read the program");
    else split_lines(t, shown ? shown : text);
    free(shown);
    free(text);
    diag_list_free(&d);
    t->prog_id = id;
    if (id != t->prog_shown) t->prog_top = 0;
    t->prog_shown = id;
    t->note[0] = '\0';
    int gi = store_graph_index(&t->g, id);
    if (gi >= 0 && t->g.nodes[gi].has_note) {
        store_node n;
        memset(&n, 0, sizeof n);
        diag_list_init(&d);
        if (store_node_get(t->s, id, &n, &d) == 0 && n.note) {
            snprintf(t->note, sizeof t->note, "note: %s", n.note);
            for (char *c = t->note; *c; c++) if ((unsigned char)*c < 0x20) *c = ' ';
        }
        store_node_clear(&n);
        diag_list_free(&d);
    }
}

static int is_keyword(const char *w, size_t n)
{
    static const char *const kw[] = {"program", "level", "param", "array", "init", "output", "for",
                                     "if", "else", "let", "cost", "seq", "par", "proc", "send",
                                     "to", "at", "when", "dist", "step", "bcast", "reduce",
                                     "allreduce", "scan", "from", "recv", "double", "int", NULL};
    for (int i = 0; kw[i]; i++)
        if (strlen(kw[i]) == n && !strncmp(kw[i], w, n)) return 1;
    return 0;
}

/* A line of the program at (y, x), w columns (cut with an ellipsis): keywords bold, comments
 * dim.  The pieces are written one after the other from the cursor, so that a character of
 * several bytes takes its one column. */
static void draw_code_line(tui *t, int y, int x, int w, const char *line)
{
    char l[TUI_LINE];
    tui_fit_columns(line, w, l, sizeof l);
    move(y, x);
    int len = (int)strlen(l), col = 0;
    while (col < len) {
        int s = col;
        if (l[col] == '#') {
            attron(A_DIM | (t->colors ? COLOR_PAIR(4) : 0));
            addnstr(l + col, len - col);
            attroff(A_DIM | (t->colors ? COLOR_PAIR(4) : 0));
            return;
        }
        if (isalpha((unsigned char)l[col]) || l[col] == '_') {
            while (col < len && (isalnum((unsigned char)l[col]) || l[col] == '_')) col++;
            int kw = is_keyword(l + s, (size_t)(col - s));
            if (kw) attron(A_BOLD);
            addnstr(l + s, col - s);
            if (kw) attroff(A_BOLD);
            continue;
        }
        while (col < len && l[col] != '#' && !isalpha((unsigned char)l[col]) && l[col] != '_') col++;
        addnstr(l + s, col - s);
    }
}

void tui_program_draw(tui *t, int y, int x, int h, int w)
{
    int64_t id = tui_sel_node(t);
    if (id < 0) return;
    if (id != t->prog_id) load(t, id);
    int gi = tui_sel_gi(t);
    char title[TUI_LINE];
    char against[128] = "";
    if (t->prog_diff) {
        int bi = t->diff_base >= 0 && t->diff_base != id ? store_graph_index(&t->g, t->diff_base) : -1;
        if (bi >= 0) snprintf(against, sizeof against, " vs node %lld", (long long)t->g.nodes[bi].id);
        else snprintf(against, sizeof against, " vs its parent");
    }
    snprintf(title, sizeof title, "%s %lld %s (%s)%s", t->prog_diff ? "diff" : "program", (long long)id,
             t->g.nodes[gi].label, t->g.nodes[gi].level, against);
    char fitted[TUI_LINE];
    tui_fit_text(title, w - 1, fitted, sizeof fitted);
    attron(A_BOLD);
    mvaddstr(y, x + 1, fitted);
    attroff(A_BOLD);
    int body = h - 1;
    if (t->note[0] && body > 2) {
        attron(A_BOLD | (t->colors ? COLOR_PAIR(2) : 0));
        mvaddnstr(y + 1, x + 1, t->note, w - 1);
        attroff(A_BOLD | (t->colors ? COLOR_PAIR(2) : 0));
        y++;
        body--;
    }
    if (t->prog_top > t->nlines - body) t->prog_top = t->nlines - body;
    if (t->prog_top < 0) t->prog_top = 0;
    for (int i = 0; i < body && t->prog_top + i < t->nlines; i++) {
        const char *l = t->lines[t->prog_top + i];
        if (t->prog_diff) {
            int a = 0;
            if (l[0] == '+' && strncmp(l, "+++", 3)) a = t->colors ? COLOR_PAIR(1) : A_BOLD;
            else if (l[0] == '-' && strncmp(l, "---", 3)) a = t->colors ? COLOR_PAIR(3) : A_DIM;
            else if (l[0] == '@') a = t->colors ? COLOR_PAIR(4) : A_UNDERLINE;
            char fitted[TUI_LINE];
            tui_fit_columns(l, w - 1, fitted, sizeof fitted);
            attron(a);
            mvaddstr(y + 1 + i, x + 1, fitted);
            attroff(a);
        } else {
            draw_code_line(t, y + 1 + i, x + 1, w - 1, l);
        }
    }
    if (t->nlines > body) {
        char more[48];
        snprintf(more, sizeof more, " %d-%d/%d ", t->prog_top + 1,
                 t->prog_top + body < t->nlines ? t->prog_top + body : t->nlines, t->nlines);
        if ((int)(strlen(title) + strlen(more)) + 2 <= w)
            mvaddnstr(y, x + w - (int)strlen(more), more, (int)strlen(more));
    }
}
