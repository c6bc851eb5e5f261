/*
 * tui_menu.c — applying a transform: the menu lists the registry's transforms that apply to the
 * selected node (its level and the transform's applicability test), so a transform added to the
 * registry appears here without a change; the selected one's predicted gain (the fusion rules',
 * Table 1 under the current machine profile; a placement's CommCost and cost) is shown under the
 * list.  The gains are computed in a child process (a placement's prediction simulates its
 * candidates), so the menu opens at once and says "predicting" until they arrive.  Enter opens a
 * form of its parameters (defaults filled
 * in, candidate values cycled with ^N/^P, one free field for further key=value arguments).
 * Enter in the form applies through ops_apply: on success the child is selected and simulated in
 * the background; a refusal or a bad parameter is shown in the form and nothing is written.
 */
#include <ncurses.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui.h"
#include "xf.h"

void tui_box(int y, int x, int h, int w, const char *title)
{
    for (int i = 0; i < h; i++) {
        move(y + i, x);
        for (int k = 0; k < w; k++) {
            int edge_y = i == 0 || i == h - 1, edge_x = k == 0 || k == w - 1;
            addch(edge_y && edge_x ? '+' : edge_y ? '-' : edge_x ? '|' : ' ');
        }
    }
    if (title) {
        attron(A_BOLD);
        mvaddnstr(y, x + 2, title, w - 4);
        attroff(A_BOLD);
    }
}

static void overlay_geom(tui *t, int want_h, int want_w, int *y, int *x, int *h, int *w)
{
    *w = want_w < t->W - 2 ? want_w : t->W - 2;
    *h = want_h < t->H - 2 ? want_h : t->H - 2;
    *y = (t->H - *h) / 2;
    *x = (t->W - *w) / 2;
}

/* ---- the menu ------------------------------------------------------------------------------- */

static ir_program *sel_program(tui *t)
{
    int64_t id = tui_sel_node(t);
    if (id < 0) return NULL;
    diag_list d;
    diag_list_init(&d);
    size_t len;
    char *text = store_node_text(t->s, id, &len, &d);
    ir_program *p = text ? ir_load_text("node", text, len, &d) : NULL;
    if (!p) tui_message_diags(t, "cannot load the node", &d);
    free(text);
    diag_list_free(&d);
    return p;
}

/* Text on up to `lines` rows of width w from (y, x), broken at spaces. */
static void draw_wrapped(int y, int x, int w, int lines, const char *s)
{
    for (int l = 0; l < lines && *s && w > 0; l++) {
        int n = (int)strlen(s);
        if (n > w) {
            n = w;
            while (n > w / 2 && s[n] != ' ') n--;
            if (s[n] != ' ') n = w;
        }
        mvaddnstr(y + l, x, s, n);
        s += n;
        while (*s == ' ') s++;
    }
}

/* Whether item i has a prediction to show, or one on its way. */
static int has_gain(const tui *t, int i)
{
    return t->menu_gain[i] || (t->menu_ch.pid && ((const xf_transform *)t->menu_items[i])->predict);
}

static void menu_draw(tui *t)
{
    int y, x, h, w, glines = 0;
    for (int i = 0; i < t->nmenu; i++) if (has_gain(t, i)) glines = 2;
    overlay_geom(t, t->nmenu + 4 + glines, 76, &y, &x, &h, &w);
    tui_box(y, x, h, w, " apply a transform (Enter or 1-9 choose, Esc back) ");
    if (glines && t->menu_sel < t->nmenu && has_gain(t, t->menu_sel))
        draw_wrapped(y + h - 1 - glines, x + 2, w - 4, glines,
                     t->menu_gain[t->menu_sel] ? t->menu_gain[t->menu_sel] : "predicting the gain ...");
    for (int i = 0; i < t->nmenu && i < h - 3 - glines; i++) {
        const xf_transform *xf = t->menu_items[i];
        char line[TUI_LINE];
        snprintf(line, sizeof line, " %d %-10s %s", i + 1, xf->name, xf->summary ? xf->summary : "");
        if (i == t->menu_sel) attron(A_REVERSE);
        mvaddnstr(y + 1 + i, x + 1, line, w - 2);
        if (i == t->menu_sel) attroff(A_REVERSE);
    }
}

static void form_open(tui *t, const xf_transform *xf);

static int menu_key(tui *t, int ch)
{
    switch (ch) {
    case 27: case 'q': return 1;
    case KEY_UP: case 'k': if (t->menu_sel > 0) t->menu_sel--; return 0;
    case KEY_DOWN: case 'j': if (t->menu_sel < t->nmenu - 1) t->menu_sel++; return 0;
    case '\n': case '\r': case KEY_ENTER: case 'l':
        if (t->nmenu) form_open(t, t->menu_items[t->menu_sel]);
        return 0;
    }
    if (ch >= '1' && ch <= '9' && ch - '1' < t->nmenu) {      /* the item's number */
        t->menu_sel = ch - '1';
        form_open(t, t->menu_items[t->menu_sel]);
    }
    return 0;
}

const tui_view tui_menu_view = {"menu", menu_draw, menu_key};

void tui_menu_free(tui *t)
{
    tui_child_kill(&t->menu_ch, SIGKILL);
    for (int i = 0; i < t->nmenu; i++) {
        free(t->menu_gain[i]);
        t->menu_gain[i] = NULL;
    }
    t->nmenu = 0;
}

/* What the gains' child computes: each item's prediction for the node's program. */
typedef struct gains_job {
    const ir_program *p;
    const cost_profile *prof;
    const xf_transform *const *items;
    int n;
} gains_job;

/* In the child: "i<TAB>gain" per item with a prediction (newlines and tabs made spaces). */
static void gains_child(int fd, void *arg)
{
    const gains_job *j = arg;
    for (int i = 0; i < j->n; i++) {
        char *g = j->items[i]->predict ? j->items[i]->predict(j->p, j->prof) : NULL;
        if (!g) continue;
        for (char *c = g; *c; c++) if (*c == '\n' || *c == '\t') *c = ' ';
        dprintf(fd, "%d\t%s\n", i, g);
        free(g);
    }
    _exit(0);
}

void tui_menu_open(tui *t)
{
    ir_program *p = sel_program(t);
    if (!p) return;
    tui_menu_free(t);
    t->menu_sel = 0;
    for (int i = 0; i < xf_count() && t->nmenu < 64; i++) {
        const xf_transform *xf = xf_at(i);
        if (!(xf->levels & (1u << p->level))) continue;
        char *why = NULL;
        int ok = !xf->applicable || xf->applicable(p, &why);
        free(why);
        if (!ok) continue;
        t->menu_items[t->nmenu++] = xf;
    }
    if (!t->nmenu) {
        ir_program_free(p);
        tui_message(t, 1, "no transform applies to this node");
        return;
    }
    gains_job job = {p, &t->profile, (const xf_transform *const *)t->menu_items, t->nmenu};
    if (tui_child_fork(&t->menu_ch, gains_child, &job) != 0) tui_child_free(&t->menu_ch);   /* no gains */
    ir_program_free(p);
    tui_open_view(t, &tui_menu_view);
}

void tui_menu_poll(tui *t)
{
    int done = tui_child_poll(&t->menu_ch);
    if (done < 0) { tui_child_kill(&t->menu_ch, SIGKILL); return; }
    if (!done) return;
    for (char *l = t->menu_ch.out.buf; l && *l;) {   /* "i<TAB>gain" per line */
        char *e = strchr(l, '\n'), *tab = strchr(l, '\t');
        if (e) *e = '\0';
        int i = atoi(l);
        if (tab && i >= 0 && i < t->nmenu && !t->menu_gain[i]) t->menu_gain[i] = strdup(tab + 1);
        l = e ? e + 1 : NULL;
    }
    tui_child_free(&t->menu_ch);
}

/* ---- the form ------------------------------------------------------------------------------- */

static void form_open(tui *t, const xf_transform *xf)
{
    tui_form *f = &t->form;
    memset(f, 0, sizeof *f);
    f->xf = xf;
    f->nfields = (xf->nparams < TUI_FORM_MAX ? xf->nparams : TUI_FORM_MAX) + 1;
    for (int i = 0; i < f->nfields - 1; i++)
        if (xf->params[i].def) snprintf(f->val[i], sizeof f->val[i], "%s", xf->params[i].def);
    tui_open_view(t, &tui_form_view);
}

static const char *ptype_name(xf_ptype ty)
{
    switch (ty) {
    case XF_P_INT: return "int";
    case XF_P_EXPR: return "expr";
    case XF_P_ENUM: return "enum";
    default: return "text";
    }
}

static void form_draw(tui *t)
{
    tui_form *f = &t->form;
    const xf_transform *xf = f->xf;
    int y, x, h, w;
    overlay_geom(t, f->nfields + f->nerr + 6, 90, &y, &x, &h, &w);
    char title[TUI_LINE];
    snprintf(title, sizeof title, " %s: parameters (Enter apply, Tab next, ^N/^P candidates, Esc back) ", xf->name);
    tui_box(y, x, h, w, title);
    int row = y + 1;
    int lw = 22;
    for (int i = 0; i < f->nfields && row < y + h - 2; i++) {
        char lab[64];
        if (i < f->nfields - 1) snprintf(lab, sizeof lab, "%s%s (%s)", xf->params[i].name,
                                         xf->params[i].per_stmt ? "[.L]" : "", ptype_name(xf->params[i].type));
        else snprintf(lab, sizeof lab, "more key=value");
        mvaddnstr(row, x + 2, lab, lw);
        int a = i == f->cur ? A_REVERSE : A_UNDERLINE;
        attron(a);
        char field[160];
        int fw = w - lw - 5;
        if (fw > (int)sizeof field - 1) fw = (int)sizeof field - 1;
        snprintf(field, sizeof field, "%-*.*s", fw, fw, f->val[i]);
        mvaddnstr(row, x + 3 + lw, field, fw);
        attroff(a);
        row++;
        if (i == f->cur) {
            char help[TUI_LINE];
            if (i < f->nfields - 1) {
                const xf_param *p = &xf->params[i];
                snprintf(help, sizeof help, "%s%s%s%s", p->help ? p->help : "",
                         p->candidates ? "  [" : "", p->candidates ? p->candidates : "",
                         p->candidates ? "]" : "");
            } else {
                snprintf(help, sizeof help, "further arguments, e.g. theta.S=t sigma.S=x (space separated)");
            }
            attron(A_DIM);
            mvaddnstr(row++, x + 4, help, w - 6);
            attroff(A_DIM);
        }
    }
    if (t->ap.ch.pid && row < y + h - 1) {
        char busy[TUI_LINE];
        snprintf(busy, sizeof busy, "applying %s ... (Esc cancels)", xf->name);
        attron(A_BOLD);
        mvaddnstr(row++, x + 2, busy, w - 4);
        attroff(A_BOLD);
    }
    for (int i = 0; i < f->nerr && row < y + h - 1; i++) {
        attron(t->colors ? COLOR_PAIR(3) | A_BOLD : A_BOLD);
        mvaddnstr(row++, x + 2, f->err[i], w - 4);
        attroff(t->colors ? COLOR_PAIR(3) | A_BOLD : A_BOLD);
    }
}

static void cycle_candidate(tui_form *f, int dir)
{
    const xf_transform *xf = f->xf;
    if (f->cur >= f->nfields - 1) return;
    const char *c = xf->params[f->cur].candidates;
    if (!c) return;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", c);
    char *items[32];
    int n = 0;
    for (char *tok = strtok(buf, "|"); tok && n < 32; tok = strtok(NULL, "|")) items[n++] = tok;
    if (!n) return;
    int k = -1;
    for (int i = 0; i < n; i++) if (!strcmp(items[i], f->val[f->cur])) k = i;
    k = k < 0 ? (dir > 0 ? 0 : n - 1) : (k + dir + n) % n;
    snprintf(f->val[f->cur], sizeof f->val[0], "%s", items[k]);
}

static void form_error(tui_form *f, const diag_list *d, const char *fallback)
{
    f->nerr = 0;
    for (int i = 0; i < d->n && f->nerr < 8; i++) {
        snprintf(f->err[f->nerr], TUI_LINE, "error: %s", d->items[i].msg);
        for (char *c = f->err[f->nerr]; *c; c++) if (*c == '\n') *c = ' ';
        f->nerr++;
    }
    if (!f->nerr) { snprintf(f->err[0], TUI_LINE, "error: %s", fallback); f->nerr = 1; }
}

/* Builds the arguments and starts the apply; the form stays open until tui_form_result. */
static int form_apply(tui *t)
{
    tui_form *f = &t->form;
    const xf_transform *xf = f->xf;
    char *argv[TUI_FORM_MAX + 33];
    char store_[TUI_FORM_MAX + 1][160];
    char more[128];
    int argc = 0;
    for (int i = 0; i < f->nfields - 1; i++) {
        const xf_param *p = &xf->params[i];
        if (!f->val[i][0]) continue;
        if (p->def && !strcmp(p->def, f->val[i])) continue;      /* the default: leave it out */
        snprintf(store_[i], sizeof store_[i], "%s=%s", p->name, f->val[i]);
        argv[argc++] = store_[i];
    }
    snprintf(more, sizeof more, "%s", f->val[f->nfields - 1]);
    for (char *tok = strtok(more, " "); tok && argc < TUI_FORM_MAX + 32; tok = strtok(NULL, " ")) {
        if (!strchr(tok, '=')) {
            f->nerr = 1;
            snprintf(f->err[0], TUI_LINE, "error: '%s' is not key=value", tok);
            return 0;
        }
        argv[argc++] = tok;
    }
    f->nerr = 0;
    tui_apply_start(t, tui_sel_node(t), xf->name, argc, argv);
    return 0;                                   /* the form stays until the result arrives */
}

void tui_form_result(tui *t, int ok, int64_t child, int created, const diag_list *d)
{
    tui_form *f = &t->form;
    const xf_transform *xf = f->xf;
    if (!ok) {
        if (t->view == &tui_form_view) form_error(f, d, "refused");
        else tui_message_diags(t, "apply", d);
        return;
    }
    if (t->view == &tui_form_view) t->view = NULL;
    tui_reload(t);
    tui_select_id(t, child);
    int gi = store_graph_index(&t->g, child);
    tui_message(t, 0, "%s node %lld %s by %s", created ? "new" : "existing", (long long)child,
                gi >= 0 ? t->g.nodes[gi].label : "", xf ? xf->name : "");
    if (gi >= 0 && !t->info[gi].has) tui_sim_enqueue(t, child);
    if (t->g.root >= 0 && !t->info[t->g.root].has) tui_sim_enqueue(t, t->g.nodes[t->g.root].id);
}

static int form_key(tui *t, int ch)
{
    tui_form *f = &t->form;
    char *v = f->val[f->cur];
    size_t n = strlen(v);
    if (t->ap.ch.pid) {                            /* applying: only Esc (kills the child) */
        if (ch == 27) { tui_apply_cancel(t); tui_message(t, 0, "apply cancelled; nothing written"); return 1; }
        return 0;
    }
    switch (ch) {
    case 27: return 1;
    case '\t': case KEY_DOWN: f->cur = (f->cur + 1) % f->nfields; return 0;
    case KEY_BTAB: case KEY_UP: f->cur = (f->cur + f->nfields - 1) % f->nfields; return 0;
    case 14: cycle_candidate(f, 1); f->touched[f->cur] = 1; return 0;    /* ^N */
    case 16: cycle_candidate(f, -1); f->touched[f->cur] = 1; return 0;   /* ^P */
    case 21: v[0] = '\0'; f->touched[f->cur] = 1; return 0;              /* ^U */
    case KEY_BACKSPACE: case 127: case 8: f->touched[f->cur] = 1; if (n) v[n - 1] = '\0'; return 0;
    case '\n': case '\r': case KEY_ENTER: return form_apply(t);
    }
    if (ch >= 32 && ch < 127 && !f->touched[f->cur]) {   /* the first key replaces the default */
        v[0] = '\0';
        n = 0;
    }
    if (ch >= 32 && ch < 127) f->touched[f->cur] = 1;
    if (ch >= 32 && ch < 127 && n + 1 < sizeof f->val[0]) {
        v[n] = (char)ch;
        v[n + 1] = '\0';
    }
    return 0;
}

const tui_view tui_form_view = {"form", form_draw, form_key};
