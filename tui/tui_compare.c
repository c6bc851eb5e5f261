/*
 * tui_compare.c — the compare view: every leaf of the graph (a node without children) in a
 * table sorted by cost under the current model, machine and parameters (unsimulated leaves
 * last), with a bar scaled to the most expensive, the speedup over the root, the predicted
 * seconds under the machine profile next to the newest measured seconds (`run`, `measure`)
 * where the leaf has been measured, and the marks.  Enter jumps to the leaf in the tree.
 */
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"

static int by_cost(const void *a, const void *b, void *ctx)
{
    const tui *t = ctx;
    const tui_info *x = &t->info[*(const int *)a], *y = &t->info[*(const int *)b];
    if (x->has != y->has) return y->has - x->has;
    if (x->has && x->cost != y->cost) return x->cost < y->cost ? -1 : 1;
    return *(const int *)a - *(const int *)b;
}

/* The newest measurement of every node (listed oldest first, so the last one wins). */
static void measured(tui *t)
{
    diag_list d;
    diag_list_init(&d);
    store_measurement *ms = NULL;
    int nm = 0;
    if (store_measurement_list(t->s, 0, &ms, &nm, &d) == 0)
        for (int k = 0; k < nm; k++)
            for (int i = 0; i < t->g.n; i++)
                if (t->g.nodes[i].id == ms[k].node) { t->cmp_meas[i] = ms[k].seconds; break; }
    store_measurements_free(ms, nm);
    diag_list_free(&d);
}

static void build(tui *t)
{
    free(t->cmp);
    free(t->cmp_meas);
    t->cmp = malloc(sizeof(int) * (size_t)(t->g.n + 1));
    t->cmp_meas = calloc((size_t)t->g.n + 1, sizeof(double));
    t->ncmp = 0;
    t->cmp_gen = t->gen;
    if (!t->cmp || !t->cmp_meas) { free(t->cmp); free(t->cmp_meas); t->cmp = NULL; t->cmp_meas = NULL; return; }
    measured(t);
    for (int i = 0; i < t->g.n; i++)
        if (t->g.nodes[i].nchildren == 0) t->cmp[t->ncmp++] = i;
    qsort_r(t->cmp, (size_t)t->ncmp, sizeof *t->cmp, by_cost, t);
}

static void draw(tui *t)
{
    if (t->cmp_gen != t->gen) {                  /* reloaded meanwhile: graph indexes may differ */
        build(t);
        if (t->cmp_sel >= t->ncmp) t->cmp_sel = t->ncmp ? t->ncmp - 1 : 0;
    }
    if (!t->cmp) return;
    int w = t->W, h = t->H - 2, y = 1, x = 0;
    tui_box(y, x, h, w, " compare leaves by cost (Enter go to, Esc back) ");
    double mx = 0;
    for (int i = 0; i < t->ncmp; i++)
        if (t->info[t->cmp[i]].has && t->info[t->cmp[i]].cost > mx) mx = t->info[t->cmp[i]].cost;
    int lw = w / 3;                              /* the label; the fixed columns take 58 */
    if (lw > 40) lw = 40;
    if (lw > w - 62) lw = w - 62;
    if (lw < 8) lw = 8;
    int bw = w - lw - 58;
    if (bw < 4) bw = 4;
    if (bw > 200) bw = 200;
    char line[2048];
    snprintf(line, sizeof line, " %-4s %-*.*s %-4s %9s %7s %9s %9s %-*s %s", "id", lw, lw, "node", "lvl", "cost",
             "speedup", "pred s", "meas s", bw, "", "marks");
    attron(A_UNDERLINE);
    mvaddnstr(y + 1, x + 1, line, w - 2);
    attroff(A_UNDERLINE);
    int body = h - 3;
    if (t->cmp_sel < t->cmp_top) t->cmp_top = t->cmp_sel;
    if (t->cmp_sel >= t->cmp_top + body) t->cmp_top = t->cmp_sel - body + 1;
    for (int r = 0; r < body && t->cmp_top + r < t->ncmp; r++) {
        int i = t->cmp_top + r, gi = t->cmp[i];
        const store_gnode *n = &t->g.nodes[gi];
        const tui_info *in = &t->info[gi];
        char cost[24], spd[16], label[TUI_LINE], pred[16] = "-", meas[16] = "-", bar[TUI_LINE];
        if (in->has) snprintf(pred, sizeof pred, "%.3g", in->cost * t->profile.tick_seconds);
        if (t->cmp_meas[gi] > 0) snprintf(meas, sizeof meas, "%.3g", t->cmp_meas[gi]);
        tui_fmt_cost(in->has ? in->cost : -1, cost, sizeof cost);
        tui_fmt_speedup(in->speedup, spd, sizeof spd);
        int k = in->has && mx > 0 ? (int)(in->cost / mx * bw + 0.5) : 0;
        if (k > (int)sizeof bar - 1) k = (int)sizeof bar - 1;
        memset(bar, '#', (size_t)k);
        bar[k] = '\0';
        tui_fit_text(n->label, lw, label, sizeof label);      /* by columns: θ is two bytes */
        snprintf(line, sizeof line, " %-4lld %s %-4s %9s %7s %9s %9s %-*s %c%c%c", (long long)n->id,
                 label, tui_level_tag(n->level), cost, spd, pred, meas, bw, bar,
                 !in->has ? ' ' : in->violations > 0 || in->verified == 0 ? '!' : in->verified == 1 ? 'V' : '?',
                 n->pruned ? 'x' : ' ', n->favourite ? '*' : ' ');
        int a = (i == t->cmp_sel ? A_REVERSE : 0) | (n->pruned ? A_DIM : 0) |
                tui_cost_color(t, in->has ? in->cost : -1);
        char fitted[TUI_LINE * 2];
        tui_fit_columns(line, w - 2, fitted, sizeof fitted);
        attron(a);
        mvaddstr(y + 2 + r, x + 1, fitted);
        attroff(a);
    }
}

static int key(tui *t, int ch)
{
    switch (ch) {
    case 27: case 'q': case 'c': return 1;
    case KEY_UP: case 'k': if (t->cmp_sel > 0) t->cmp_sel--; return 0;
    case KEY_DOWN: case 'j': if (t->cmp_sel < t->ncmp - 1) t->cmp_sel++; return 0;
    case '\n': case '\r': case KEY_ENTER:
        if (t->ncmp && t->cmp_gen == t->gen) tui_select_id(t, t->g.nodes[t->cmp[t->cmp_sel]].id);
        return 1;
    }
    return 0;
}

static const tui_view compare_view = {"compare", draw, key};

void tui_compare_open(tui *t)
{
    build(t);
    t->cmp_sel = t->cmp_top = 0;
    tui_open_view(t, &compare_view);
}
