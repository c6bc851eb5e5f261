/*
 * tui_prompt.c — one-line prompts (note, search, parameters, profile) on the status line, and the
 * help view listing every key of the key table.
 */
#include <ncurses.h>
#include <stdio.h>
#include <string.h>

#include "tui.h"

static void prompt_draw(tui *t)
{
    int y = t->H - 2;
    move(y, 0);
    clrtoeol();
    char line[TUI_LINE];
    snprintf(line, sizeof line, "%s: %s_", t->prompt_label, t->prompt_buf);
    attron(A_BOLD);
    mvaddnstr(y, 0, line, t->W);
    attroff(A_BOLD);
}

static int prompt_key(tui *t, int ch)
{
    size_t n = strlen(t->prompt_buf);
    switch (ch) {
    case 27: tui_message(t, 0, "cancelled"); return 1;
    case KEY_BACKSPACE: case 127: case 8: if (n) t->prompt_buf[n - 1] = '\0'; return 0;
    case 21: t->prompt_buf[0] = '\0'; return 0;
    case '\n': case '\r': case KEY_ENTER: {
        void (*done)(tui *, const char *) = t->prompt_done;
        t->view = NULL;
        char buf[sizeof t->prompt_buf];
        memcpy(buf, t->prompt_buf, sizeof buf);
        done(t, buf);
        return t->view == NULL;              /* done may open another view */
    }
    }
    if (ch >= 32 && ch < 127 && n + 1 < sizeof t->prompt_buf) {
        t->prompt_buf[n] = (char)ch;
        t->prompt_buf[n + 1] = '\0';
    }
    return 0;
}

static const tui_view prompt_view = {"prompt", prompt_draw, prompt_key};

void tui_prompt(tui *t, const char *label, const char *init, void (*done)(tui *, const char *))
{
    snprintf(t->prompt_label, sizeof t->prompt_label, "%s", label);
    snprintf(t->prompt_buf, sizeof t->prompt_buf, "%s", init ? init : "");
    t->prompt_done = done;
    tui_open_view(t, &prompt_view);
}

static void help_draw(tui *t)
{
    int n;
    const tui_key *k = tui_keys(&n);
    int w = t->W - 4 < 78 ? t->W - 4 : 78, h = t->H - 2;
    int y = 1, x = (t->W - w) / 2;
    tui_box(y, x, h, w, " polyapm keys (any key closes; j/k scroll) ");
    int body = h - 2;
    if (t->help_top > n - body) t->help_top = n - body;
    if (t->help_top < 0) t->help_top = 0;
    for (int i = 0; i < body && t->help_top + i < n; i++) {
        const tui_key *e = &k[t->help_top + i];
        char line[TUI_LINE];
        snprintf(line, sizeof line, " %-12s %s", e->label, e->help);
        mvaddnstr(y + 1 + i, x + 1, line, w - 2);
    }
}

static int help_key(tui *t, int ch)
{
    if (ch == 'j' || ch == KEY_DOWN) { t->help_top++; return 0; }
    if (ch == 'k' || ch == KEY_UP) { t->help_top--; return 0; }
    return 1;
}

static const tui_view help_view = {"help", help_draw, help_key};

void tui_help_open(tui *t)
{
    t->help_top = 0;
    tui_open_view(t, &help_view);
}
