/*
 * tui_keys.c — the key table of the main screen and the actions it names.  The footer and the
 * `?` help are generated from the table; adding a key is adding a row.
 */
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tui.h"

/* ---- moving --------------------------------------------------------------------------------- */

static void set_sel(tui *t, int r)
{
    if (!t->nrows) return;
    if (r < 0) r = 0;
    if (r >= t->nrows) r = t->nrows - 1;
    t->sel = r;
    t->sel_id = t->g.nodes[t->rows[r].gi].id;
}

static void k_down(tui *t) { set_sel(t, t->sel + 1); }
static void k_up(tui *t) { set_sel(t, t->sel - 1); }
static void k_pgdown(tui *t) { set_sel(t, t->sel + (t->H - 4) / 2); }
static void k_pgup(tui *t) { set_sel(t, t->sel - (t->H - 4) / 2); }

static void k_fold(tui *t)                 /* h: fold, or go to the parent when folded/leaf */
{
    int gi = tui_sel_gi(t);
    if (gi < 0) return;
    const tui_row *r = &t->rows[t->sel];
    if (!r->recur && t->g.nodes[gi].nchildren && !t->folded[gi]) {
        t->folded[gi] = 1;
        tui_rows_build(t);
        return;
    }
    for (int i = t->sel - 1; i >= 0; i--)
        if (t->rows[i].depth < r->depth) { set_sel(t, i); return; }
}

static void k_unfold(tui *t)               /* l: unfold, or go to the first child */
{
    int gi = tui_sel_gi(t);
    if (gi < 0 || t->rows[t->sel].recur) return;
    if (t->folded[gi]) { t->folded[gi] = 0; tui_rows_build(t); return; }
    if (t->g.nodes[gi].nchildren) set_sel(t, t->sel + 1);
}

static void k_toggle(tui *t)
{
    int gi = tui_sel_gi(t);
    if (gi < 0) return;
    if (t->rows[t->sel].recur) { tui_select_id(t, t->g.nodes[gi].id); return; }  /* go to the full row */
    if (!t->g.nodes[gi].nchildren) return;
    t->folded[gi] = !t->folded[gi];
    tui_rows_build(t);
}

static void k_parent(tui *t)
{
    int gi = tui_sel_gi(t);
    if (gi < 0 || !t->g.nodes[gi].nparents) { tui_message(t, 0, "the root has no parent"); return; }
    tui_select_id(t, t->g.nodes[t->g.nodes[gi].parents[0]].id);
}

static void k_root(tui *t)
{
    if (t->g.root >= 0) tui_select_id(t, t->g.nodes[t->g.root].id);
}

static void k_best(tui *t)
{
    int best = -1;
    for (int i = 0; i < t->g.n; i++)
        if (t->g.nodes[i].nchildren == 0 && !t->g.nodes[i].pruned && t->info[i].has &&
            (best < 0 || t->info[i].cost < t->info[best].cost))
            best = i;
    if (best < 0) { tui_message(t, 0, "no simulated leaf yet"); return; }
    tui_select_id(t, t->g.nodes[best].id);
}

static void k_scroll_down(tui *t) { t->prog_top += (t->H - 4) / 3; }
static void k_scroll_up(tui *t) { t->prog_top -= (t->H - 4) / 3; if (t->prog_top < 0) t->prog_top = 0; }

static void k_diff(tui *t)
{
    t->prog_diff = !t->prog_diff;
    tui_program_invalidate(t);
}

static void k_diff_base(tui *t)
{
    int64_t id = tui_sel_node(t);
    if (id < 0) return;
    if (t->diff_base == id) {
        t->diff_base = -1;
        tui_message(t, 0, "d diffs against the parent again");
    } else {
        t->diff_base = id;
        tui_message(t, 0, "d now diffs against node %lld (v on it again: the parent)", (long long)id);
    }
    tui_program_invalidate(t);
}

/* ---- search --------------------------------------------------------------------------------- */

static int search_from(tui *t, int start)
{
    if (!t->search[0]) return 0;
    /* every node, in row order first, then those hidden by folds */
    for (int k = 0; k < t->nrows; k++) {
        int r = (start + k) % t->nrows;
        if (!t->rows[r].recur && strstr(t->g.nodes[t->rows[r].gi].label, t->search)) { set_sel(t, r); return 1; }
    }
    for (int i = 0; i < t->g.n; i++)
        if (strstr(t->g.nodes[i].label, t->search)) { tui_select_id(t, t->g.nodes[i].id); return 1; }
    return 0;
}

static void search_done(tui *t, const char *text)
{
    snprintf(t->search, sizeof t->search, "%s", text);
    if (!text[0]) return;
    if (!search_from(t, t->sel + 1)) tui_message(t, 1, "no node matches '%s'", text);
    else tui_message(t, 0, "/%s  (n: next)", text);
}

static void k_search(tui *t) { tui_prompt(t, "search label", "", search_done); }
static void k_next(tui *t)
{
    if (!t->search[0]) { tui_message(t, 0, "no search yet (/)"); return; }
    if (!search_from(t, t->sel + 1)) tui_message(t, 1, "no node matches '%s'", t->search);
}

/* ---- actions -------------------------------------------------------------------------------- */

static void k_apply(tui *t) { tui_menu_open(t); }
static void k_compare(tui *t) { tui_compare_open(t); }
static void k_help(tui *t) { tui_help_open(t); }
static void k_quit(tui *t) { t->quit = 1; }
static void k_cancel(tui *t)
{
    if (tui_runjob_cancel(t)) tui_message(t, 0, "export/run cancelled");
    else if (!tui_explore_cancel(t)) tui_worker_cancel(t);
}

/* X: export the selected node into a directory (polyapm export in the background). */
static void export_done(tui *t, const char *text)
{
    char args[400];
    if (!text[0]) { tui_message(t, 0, "nothing exported"); return; }
    snprintf(args, sizeof args, "-o %s", text);
    tui_runjob_start(t, "export", tui_sel_node(t), args);
}

static void k_export(tui *t)
{
    int64_t id = tui_sel_node(t);
    if (id <= 0) return;
    char def[64];
    snprintf(def, sizeof def, "export-node%lld", (long long)id);
    tui_prompt(t, "export to directory", def, export_done);
}

/* R: export, build and run it (polyapm run in the background; the measurement is stored). */
static void run_done(tui *t, const char *text)
{
    if (!text[0]) { tui_message(t, 0, "nothing run"); return; }
    tui_runjob_start(t, "run", tui_sel_node(t), text);
}

static void k_run(tui *t)
{
    int gi = tui_sel_gi(t);
    if (gi < 0) return;
    int mpi = !strcmp(t->g.nodes[gi].level, "syndm");
    tui_prompt(t, "run with (-np P [-D name=value] [--smpi PLATFORM.xml] [--repeat K])", mpi ? "-np 4" : "-np 1",
               run_done);
}

/* p: replay the path to the node onto a changed program (polyapm replay in the background). */
static void replay_done(tui *t, const char *text)
{
    char args[400];
    if (!text[0]) { tui_message(t, 0, "nothing replayed"); return; }
    snprintf(args, sizeof args, "--onto %s", text);
    tui_runjob_start(t, "replay", tui_sel_node(t), args);
}

static void k_replay(tui *t)
{
    if (tui_sel_node(t) <= 0) return;
    tui_prompt(t, "replay this derivation onto (a changed FILE.apm)", "", replay_done);
}

static void explore_done(tui *t, const char *text)
{
    int64_t node = tui_sel_node(t);
    if (node > 0) tui_explore_start(t, node, text);
}

static void k_explore(tui *t)
{
    if (tui_sel_node(t) <= 0) return;
    char cur[256];
    size_t off = (size_t)snprintf(cur, sizeof cur, "budget=200");
    for (int i = 0; i < t->nbind && off < sizeof cur - 40; i++)
        off += (size_t)snprintf(cur + off, sizeof cur - off, " %s=%lld", t->bind[i].name, (long long)t->bind[i].value);
    tui_prompt(t, "explore from here (budget= depth= jobs=, name=value parameters)", cur, explore_done);
}

static void k_reload(tui *t)
{
    tui_reload(t);
    tui_message(t, 0, "reloaded: %d nodes", t->g.n);
}

static void mark(tui *t, int kind)
{
    int gi = tui_sel_gi(t);
    if (gi < 0) return;
    const store_gnode *n = &t->g.nodes[gi];
    int on = kind == STORE_MARK_PRUNED ? n->pruned : n->favourite;
    diag_list d;
    diag_list_init(&d);
    if (store_mark(t->s, n->id, on ? STORE_MARK_CLEAR : kind, &d) != 0) tui_message_diags(t, "mark", &d);
    else tui_message(t, 0, "node %lld %s", (long long)n->id,
                     on ? "unmarked" : kind == STORE_MARK_PRUNED ? "marked pruned" : "marked favourite");
    diag_list_free(&d);
    tui_reload(t);
}

static void k_prune(tui *t) { mark(t, STORE_MARK_PRUNED); }
static void k_fav(tui *t) { mark(t, STORE_MARK_FAVOURITE); }

static void note_done(tui *t, const char *text)
{
    diag_list d;
    diag_list_init(&d);
    if (store_note(t->s, tui_sel_node(t), text, &d) != 0) tui_message_diags(t, "note", &d);
    else tui_message(t, 0, text[0] ? "note saved" : "note cleared");
    diag_list_free(&d);
    tui_reload(t);
}

static void k_note(tui *t)
{
    int64_t id = tui_sel_node(t);
    if (id < 0) return;
    store_node n;
    memset(&n, 0, sizeof n);
    diag_list d;
    diag_list_init(&d);
    store_node_get(t->s, id, &n, &d);
    tui_prompt(t, "note (empty clears)", n.note, note_done);
    store_node_clear(&n);
    diag_list_free(&d);
}

/* "n=64 steps=5" (blanks or commas) -> the session's -D parameters; then simulate. */
static void sim_done(tui *t, const char *text)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text);
    ir_binding b[OPS_MAX_BINDINGS];
    char names[OPS_MAX_BINDINGS][32];
    int nb = 0;
    for (char *tok = strtok(buf, " ,"); tok; tok = strtok(NULL, " ,")) {
        char tmp[64];
        snprintf(tmp, sizeof tmp, "%s", tok);
        if (nb == OPS_MAX_BINDINGS || ir_parse_binding(tmp, &b[nb]) != 0) {
            tui_message(t, 1, "bad parameter '%s' (expected name=integer); nothing simulated", tok);
            return;
        }
        snprintf(names[nb], sizeof names[0], "%s", b[nb].name);
        nb++;
    }
    t->nbind = nb;
    for (int i = 0; i < nb; i++) {
        memcpy(t->bind_names[i], names[i], sizeof names[0]);
        t->bind[i].name = t->bind_names[i];
        t->bind[i].value = b[i].value;
    }
    tui_costs_load(t);
    t->cost_id = -1;
    int64_t id = tui_sel_node(t);
    if (t->g.root >= 0 && !t->info[t->g.root].has) tui_sim_enqueue(t, t->g.nodes[t->g.root].id);
    if (id >= 0) tui_sim_enqueue(t, id);
    tui_message(t, 0, "simulating node %lld with %s", (long long)id, text[0] ? text : "the program's parameters");
}

static void k_sim(tui *t)
{
    char cur[256] = "";
    size_t off = 0;
    for (int i = 0; i < t->nbind && off < sizeof cur - 40; i++)
        off += (size_t)snprintf(cur + off, sizeof cur - off, "%s%s=%lld", i ? " " : "", t->bind[i].name,
                                (long long)t->bind[i].value);
    tui_prompt(t, "simulate with parameters (name=value ...; empty: the program's)", cur, sim_done);
}

static void k_model(tui *t)
{
    const char *const *m = cost_model_names();
    t->model_i = m[t->model_i + 1] ? t->model_i + 1 : 0;
    tui_costs_load(t);
    t->cost_id = -1;
    tui_message(t, 0, "cost model %s (s simulates under it)", tui_model(t));
}

static void machine_done(tui *t, const char *text)
{
    diag_list d;
    diag_list_init(&d);
    cost_profile p;
    if (!text[0]) { diag_list_free(&d); return; }
    if (ops_resolve_machine(t->s, text, &p, &d) != 0) tui_message_diags(t, "machine", &d);
    else {
        t->profile = p;
        tui_costs_load(t);
        t->cost_id = -1;
        tui_message(t, 0, "machine profile %s (s simulates under it)", p.name);
    }
    diag_list_free(&d);
}

static void k_machine(tui *t)
{
    char names[200] = "";
    size_t off = 0;
    for (const char *const *n = cost_profile_builtin_names(); *n && off < sizeof names - 40; n++)
        off += (size_t)snprintf(names + off, sizeof names - off, "%s%s", off ? ", " : "", *n);
    char label[256];
    snprintf(label, sizeof label, "machine profile (%s, or a file)", names);
    tui_prompt(t, label, t->profile.name, machine_done);
}

/* Edit a copy of the node in $EDITOR; a changed, valid program becomes a new child. */
static void k_edit(tui *t)
{
    int64_t id = tui_sel_node(t);
    if (id < 0) return;
    diag_list d;
    diag_list_init(&d);
    size_t len;
    char *text = store_node_text(t->s, id, &len, &d);
    char path[] = "/tmp/polyapm-edit-XXXXXX.apm";
    int fd = text ? mkstemps(path, 4) : -1;
    if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
        tui_message(t, 1, "cannot write a copy to edit");
        if (fd >= 0) { close(fd); unlink(path); }
        free(text);
        diag_list_free(&d);
        return;
    }
    close(fd);
    const char *ed = getenv("VISUAL");
    if (!ed || !*ed) ed = getenv("EDITOR");
    if (!ed || !*ed) ed = "vi";
    def_prog_mode();
    endwin();
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", "exec $0 \"$1\"", ed, path, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    if (pid > 0) waitpid(pid, &st, 0);
    reset_prog_mode();
    refresh();
    FILE *f = fopen(path, "r");
    char *ntext = NULL;
    size_t nlen = 0;
    if (f) {
        FILE *m = open_memstream(&ntext, &nlen);
        char buf[4096];
        size_t k;
        while (m && (k = fread(buf, 1, sizeof buf, f)) > 0) fwrite(buf, 1, k, m);
        if (m) fclose(m);
        fclose(f);
    }
    unlink(path);
    if (pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        tui_message(t, 1, "the editor (%s) failed; nothing added", ed);
    } else if (!ntext || (nlen == len && !memcmp(ntext, text, len))) {
        tui_message(t, 0, "no change; nothing added");
    } else {
        int64_t child;
        int created = 0;
        if (ops_add_text(t->s, id, ntext, nlen, "edit", NULL, NULL, &child, &created, &d) != 0) {
            tui_message_diags(t, "the edited program was not added", &d);
        } else {
            tui_reload(t);
            tui_select_id(t, child);
            tui_message(t, 0, "%s node %lld from the edit", created ? "new" : "existing", (long long)child);
            int gi = store_graph_index(&t->g, child);
            if (gi >= 0 && !t->info[gi].has) tui_sim_enqueue(t, child);
        }
    }
    free(ntext);
    free(text);
    diag_list_free(&d);
}

/* ---- the table ------------------------------------------------------------------------------ */

static const tui_key keys[] = {
    {'j', KEY_DOWN, "j/Down", "next node", k_down, 0},
    {'k', KEY_UP, "k/Up", "previous node", k_up, 0},
    {'h', KEY_LEFT, "h/Left", "fold, or go to the parent row", k_fold, 0},
    {'l', KEY_RIGHT, "l/Right", "unfold, or go to the first child", k_unfold, 0},
    {'\n', ' ', "Enter/Space", "fold/unfold (on a shared ^ row: go to the node)", k_toggle, 0},
    {KEY_NPAGE, 0, "PgDn", "page down in the tree", k_pgdown, 0},
    {KEY_PPAGE, 0, "PgUp", "page up in the tree", k_pgup, 0},
    {'J', 0, "J", "scroll the program down", k_scroll_down, 0},
    {'K', 0, "K", "scroll the program up", k_scroll_up, 0},
    {'a', 0, "a", "apply a transform (menu of the applicable ones)", k_apply, 1},
    {'s', 0, "s", "simulate (with other parameters)", k_sim, 1},
    {'d', 0, "d", "diff against the parent (toggle)", k_diff, 1},
    {'v', 0, "v", "mark the node as the diff base (d diffs against it)", k_diff_base, 0},
    {'c', 0, "c", "compare the leaves by cost", k_compare, 1},
    {'x', 0, "x", "prune (toggle the pruned mark)", k_prune, 1},
    {'f', 0, "f", "favourite (toggle)", k_fav, 1},
    {'i', 0, "i", "note on the node", k_note, 0},
    {'e', 0, "e", "edit a copy in $EDITOR as a new child", k_edit, 0},
    {'m', 0, "m", "model: cycle the cost model", k_model, 0},
    {'M', 0, "M", "machine profile", k_machine, 0},
    {'/', 0, "/", "search node labels", k_search, 0},
    {'n', 0, "n", "next search match", k_next, 0},
    {'u', 0, "u", "go to the parent", k_parent, 0},
    {'g', 0, "g", "go to the root", k_root, 0},
    {'b', 0, "b", "go to the best (cheapest) leaf", k_best, 0},
    {'r', 0, "r", "reload the workspace", k_reload, 0},
    {'X', 0, "X", "export the node as C+MPI (or sequential C) into a directory", k_export, 0},
    {'R', 0, "R", "run the node: export, build, mpirun/smpirun, check, store the time", k_run, 0},
    {'E', 0, "E", "explore: best-first search below the node, in the background", k_explore, 0},
    {'p', 0, "p", "replay the derivation of the node onto a changed program, in the background", k_replay, 0},
    {'C', 0, "C", "cancel the running simulation, export, run or explore", k_cancel, 2},
    {'?', 0, "?", "help", k_help, 1},
    {'q', 0, "q", "quit", k_quit, 1},
};

const tui_key *tui_keys(int *n)
{
    *n = (int)(sizeof keys / sizeof keys[0]);
    return keys;
}

void tui_key_dispatch(tui *t, int ch)
{
    if (ch == '\r' || ch == KEY_ENTER) ch = '\n';
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (keys[i].key == ch || (keys[i].key2 && keys[i].key2 == ch)) {
            keys[i].fn(t);
            return;
        }
}
