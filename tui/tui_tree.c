/*
 * tui_tree.c — the decision graph as a tree of rows: depth-first from the root, children in edge
 * order; a node reached a second time (the PDG is a DAG) is shown once in full and then as a
 * one-line "^ shared" row.  Each row: fold mark, level tag, label, cost, speedup over the root,
 * verified / violation mark, pruned / favourite / note marks, the columns after the label in
 * fixed widths (the label cut with an ellipsis where the pane is narrow); coloured by cost
 * relative to the best leaf.  Costs are those of stored simulations under the current model,
 * machine profile and -D parameters.
 */
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"

const char *tui_level_tag(const char *level)
{
    if (!strcmp(level, "source")) return "src";
    if (!strcmp(level, "syn")) return "syn";
    if (!strcmp(level, "syncomm")) return "scm";
    if (!strcmp(level, "syndm")) return "sdm";
    return "???";
}

/* A cost in at most TUI_COST_W characters: 12345, 1.23M, 0.41G, 12.30T, 1.2e+15. */
void tui_fmt_cost(double c, char *buf, size_t n)
{
    if (c < 0) snprintf(buf, n, "-");
    else if (c < 99999.5) snprintf(buf, n, "%.0f", c);
    else if (c < 99.995e6) snprintf(buf, n, "%.2fM", c / 1e6);
    else if (c < 99.995e9) snprintf(buf, n, "%.2fG", c / 1e9);
    else if (c < 99.995e12) snprintf(buf, n, "%.2fT", c / 1e12);
    else snprintf(buf, n, "%.1e", c);
}

/* A speedup in at most TUI_SPEEDUP_W characters: x0.043, x2, x1.9, x120, x4e-03, x2e+05. */
void tui_fmt_speedup(double s, char *buf, size_t n)
{
    if (s <= 0) snprintf(buf, n, "-");
    else if (s < 1e-99) snprintf(buf, n, "x0");
    else if (s < 0.01 || s >= 99999.5) snprintf(buf, n, "x%.0e", s);
    else if (s < 9.95) snprintf(buf, n, "x%.2g", s);
    else snprintf(buf, n, "x%.0f", s);
}

/* The value of `name` in "a=1,b=2" or 0 when absent (1 found). */
static int param_value(const char *params, const char *name, long long *v)
{
    size_t n = strlen(name);
    for (const char *p = params; p && *p;) {
        if (!strncmp(p, name, n) && p[n] == '=') { *v = strtoll(p + n + 1, NULL, 10); return 1; }
        p = strchr(p, ',');
        if (p) p++;
    }
    return 0;
}

static int matches_bindings(const tui *t, const char *params)
{
    for (int i = 0; i < t->nbind; i++) {
        long long v;
        if (param_value(params, t->bind[i].name, &v) && v != t->bind[i].value) return 0;
    }
    return 1;
}

/* Every key of `a` that `b` also has has the same value there. */
static int params_agree(const char *a, const char *b)
{
    for (const char *p = a; p && *p;) {
        const char *eq = strchr(p, '=');
        if (!eq) break;
        char name[64];
        size_t n = (size_t)(eq - p) < sizeof name - 1 ? (size_t)(eq - p) : sizeof name - 1;
        memcpy(name, p, n);
        name[n] = '\0';
        long long va = strtoll(eq + 1, NULL, 10), vb;
        if (param_value(b, name, &vb) && va != vb) return 0;
        p = strchr(p, ',');
        if (p) p++;
    }
    return 1;
}

static void info_clear(tui *t)
{
    if (!t->info) return;
    for (int i = 0; i < t->g.n; i++) free(t->info[i].params);
    memset(t->info, 0, sizeof *t->info * (size_t)(t->g.n ? t->g.n : 1));
}

void tui_costs_load(tui *t)
{
    info_clear(t);
    diag_list d;
    diag_list_init(&d);
    store_sim *rs = NULL;
    int nr = 0;
    if (t->g.root >= 0 && t->g.nodes[t->g.root].nsims > 0)
        store_sim_list(t->s, t->g.nodes[t->g.root].id, &rs, &nr, &d);
    for (int i = 0; i < t->g.n; i++) {
        tui_info *in = &t->info[i];
        in->verified = -1;
        if (t->g.nodes[i].nsims <= 0) continue;
        store_sim *ss = NULL;
        int ns = 0;
        if (store_sim_list(t->s, t->g.nodes[i].id, &ss, &ns, &d) != 0) continue;
        for (int k = 0; k < ns; k++) {
            const store_sim *m = &ss[k];
            if (strcmp(m->model, tui_model(t)) || strcmp(m->machine, t->profile.name) ||
                !matches_bindings(t, m->params))
                continue;
            in->has = 1;
            in->cost = m->total;
            in->verified = m->verified;
            in->violations = m->violations;
            in->params = strdup(m->params ? m->params : "");
            break;
        }
        for (int k = 0; k < ns; k++) store_sim_clear(&ss[k]);
        free(ss);
    }
    for (int i = 0; i < t->g.n; i++) {
        tui_info *in = &t->info[i];
        if (!in->has || in->cost <= 0) continue;
        for (int k = 0; k < nr; k++) {
            const store_sim *m = &rs[k];
            if (strcmp(m->model, tui_model(t)) || strcmp(m->machine, t->profile.name) ||
                !params_agree(m->params, in->params))
                continue;
            in->speedup = m->total / in->cost;
            break;
        }
    }
    for (int k = 0; k < nr; k++) store_sim_clear(&rs[k]);
    free(rs);
    t->best_leaf = -1;
    for (int i = 0; i < t->g.n; i++)
        if (t->g.nodes[i].nchildren == 0 && !t->g.nodes[i].pruned && t->info[i].has &&
            (t->best_leaf < 0 || t->info[i].cost < t->best_leaf))
            t->best_leaf = t->info[i].cost;
    diag_list_free(&d);
}

int tui_reload(tui *t)
{
    diag_list d;
    diag_list_init(&d);
    store_graph g;
    if (store_graph_load(t->s, &g, &d) != 0) {
        tui_message_diags(t, "cannot load the graph", &d);
        diag_list_free(&d);
        return -1;
    }
    diag_list_free(&d);
    /* keep the folds by id */
    unsigned char *folded = calloc((size_t)g.n + 1, 1);
    tui_info *info = calloc((size_t)g.n + 1, sizeof *info);
    if (!folded || !info) { free(folded); free(info); store_graph_free(&g); return -1; }
    for (int i = 0; t->folded && i < t->g.n; i++) {
        int k = store_graph_index(&g, t->g.nodes[i].id);
        if (k >= 0) folded[k] = t->folded[i];
    }
    info_clear(t);
    free(t->info);
    free(t->folded);
    store_graph_free(&t->g);
    t->g = g;
    t->gen++;
    t->folded = folded;
    t->info = info;
    tui_costs_load(t);
    tui_rows_build(t);
    t->prog_id = t->cost_id = -1;                  /* texts and stored costs may have changed */
    return 0;
}

static void add_row(tui *t, int gi, int depth, int recur)
{
    if (t->nrows == t->rowcap) {
        int cap = t->rowcap ? t->rowcap * 2 : 64;
        tui_row *r = realloc(t->rows, (size_t)cap * sizeof *r);
        if (!r) return;
        t->rows = r;
        t->rowcap = cap;
    }
    t->rows[t->nrows++] = (tui_row){gi, depth, recur};
}

void tui_rows_build(tui *t)
{
    t->nrows = 0;
    if (t->g.root < 0) return;
    unsigned char *seen = calloc((size_t)t->g.n, 1);
    int *stack = malloc(sizeof(int) * 2 * ((size_t)t->g.n * 2 + 2));
    if (!seen || !stack) { free(seen); free(stack); return; }
    /* Iterative DFS; a stack entry is (gi, depth); children pushed in reverse. */
    int sp = 0;
    size_t cap = (size_t)t->g.n * 2 + 2;
    stack[sp++] = t->g.root;
    stack[sp++] = 0;
    while (sp > 0) {
        int depth = stack[--sp], gi = stack[--sp];
        if (seen[gi]) { add_row(t, gi, depth, 1); continue; }
        seen[gi] = 1;
        add_row(t, gi, depth, 0);
        if (t->folded[gi]) continue;
        const store_gnode *n = &t->g.nodes[gi];
        for (int c = n->nchildren - 1; c >= 0; c--) {
            if ((size_t)sp + 2 > cap * 2) {
                cap *= 2;
                int *ns = realloc(stack, sizeof(int) * 2 * cap);
                if (!ns) break;
                stack = ns;
            }
            stack[sp++] = n->children[c];
            stack[sp++] = depth + 1;
        }
    }
    free(seen);
    free(stack);
    /* restore the selection */
    t->sel = 0;
    for (int r = 0; r < t->nrows; r++)
        if (!t->rows[r].recur && t->g.nodes[t->rows[r].gi].id == t->sel_id) { t->sel = r; break; }
    if (t->nrows) t->sel_id = t->g.nodes[t->rows[t->sel].gi].id;
}

int tui_sel_gi(const tui *t)
{
    return t->nrows ? t->rows[t->sel].gi : -1;
}

int64_t tui_sel_node(const tui *t)
{
    int gi = tui_sel_gi(t);
    return gi < 0 ? -1 : t->g.nodes[gi].id;
}

void tui_select_id(tui *t, int64_t id)
{
    int gi = store_graph_index(&t->g, id);
    if (gi < 0) return;
    /* unfold every ancestor */
    int guard = t->g.n;
    for (int a = gi; t->g.nodes[a].nparents > 0 && guard-- > 0;) {
        a = t->g.nodes[a].parents[0];
        t->folded[a] = 0;
    }
    t->sel_id = id;
    tui_rows_build(t);
}

int tui_cost_color(const tui *t, double cost)
{
    if (!t->colors || t->best_leaf <= 0 || cost < 0) return 0;
    double r = cost / t->best_leaf;
    if (r <= 1.05) return COLOR_PAIR(1);
    if (r <= 2.0) return COLOR_PAIR(2);
    return COLOR_PAIR(3);
}

/* The tree's columns, right of the label: cost, speedup, then the marks (verified, pruned,
 * favourite, note); numbers right-aligned in fixed widths, so that they line up on every row. */
enum { TUI_COST_W = 7, TUI_SPEEDUP_W = 6, TUI_MARKS_W = 4,
       TUI_RIGHT_W = 1 + TUI_COST_W + 1 + TUI_SPEEDUP_W + 1 + TUI_MARKS_W };

/* One row of the tree at (y, x), w columns: the label, then the fixed columns. */
static void draw_row(tui *t, int r, int y, int x, int w)
{
    const tui_row *row = &t->rows[r];
    const store_gnode *n = &t->g.nodes[row->gi];
    const tui_info *in = &t->info[row->gi];
    char left[TUI_LINE], label[TUI_LINE], right[64], cost[24], spd[24];
    int depth = row->depth > 12 ? 12 : row->depth;
    const char *fold = row->recur ? "^ " : n->nchildren == 0 ? "  "
                     : t->folded[row->gi] ? "+ " : "- ";
    snprintf(left, sizeof left, "%*s%s%s %s%s", depth * 2, "", fold, tui_level_tag(n->level),
             n->label, row->recur ? " (shared)" : "");
    tui_fmt_cost(in->has ? in->cost : -1, cost, sizeof cost);
    tui_fmt_speedup(in->speedup, spd, sizeof spd);
    char mark = !in->has ? ' '
                : in->violations > 0 || in->verified == 0 ? '!' : in->verified == 1 ? 'V' : '?';
    snprintf(right, sizeof right, " %*.*s %*.*s %c%c%c%c", TUI_COST_W, TUI_COST_W, cost,
             TUI_SPEEDUP_W, TUI_SPEEDUP_W, spd, mark, n->pruned ? 'x' : ' ',
             n->favourite ? '*' : ' ', n->has_note ? 'n' : ' ');
    int lw = w - TUI_RIGHT_W;
    if (lw < 4) lw = 4;
    tui_fit_text(left, lw, label, sizeof label);
    int attr = r == t->sel ? A_REVERSE : 0;
    if (n->pruned) attr |= A_DIM;
    attron(attr);
    mvaddstr(y, x, label);
    if (lw < w) mvaddnstr(y, x + lw, right, w - lw);
    attroff(attr);
    int ca = tui_cost_color(t, in->has ? in->cost : -1);
    if (ca && lw + 1 < w) {                        /* the cost coloured, in its own column */
        attron(ca | attr);
        mvaddnstr(y, x + lw + 1, right + 1, w - lw - 1 < TUI_COST_W ? w - lw - 1 : TUI_COST_W);
        attroff(ca | attr);
    }
}

void tui_tree_draw(tui *t, int y, int x, int h, int w)
{
    if (t->sel < t->top) t->top = t->sel;
    if (t->sel >= t->top + h) t->top = t->sel - h + 1;
    if (t->top < 0) t->top = 0;
    for (int i = 0; i < h && t->top + i < t->nrows; i++) draw_row(t, t->top + i, y + i, x, w);
    if (t->nrows == 0) mvaddnstr(y, x, "(empty workspace)", w);
}

void tui_tree_free(tui *t)
{
    info_clear(t);
    free(t->info);
    free(t->folded);
    free(t->rows);
    store_graph_free(&t->g);
    t->info = NULL;
    t->folded = NULL;
    t->rows = NULL;
    t->nrows = t->rowcap = 0;
}
