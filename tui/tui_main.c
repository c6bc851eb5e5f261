/*
 * tui_main.c — the TUI's entry: open the workspace, set up ncurses, the main loop (keys with a
 * 100 ms timeout so that the background job's progress and results show without a key), the
 * layout of the panes, the status line and the footer.
 */
#include <locale.h>
#include <ncurses.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "machine.h"
#include "tui.h"

/* SIGINT/SIGTERM: leave the loop and restore the terminal (the one flag a handler may set). */
static volatile sig_atomic_t interrupted;
static void on_signal(int sig) { interrupted = sig; }

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void tui_message(tui *t, int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->msg, sizeof t->msg, fmt, ap);
    va_end(ap);
    for (char *c = t->msg; *c; c++)
        if (*c == '\n' || *c == '\t') *c = ' ';
    t->msg_err = err;
}

void tui_message_diags(tui *t, const char *what, const diag_list *d)
{
    const char *m = d->n ? d->items[d->n - 1].msg : "failed";
    tui_message(t, 1, "%s: %s", what, m);
}

const char *tui_model(const tui *t)
{
    return cost_model_names()[t->model_i];
}

void tui_open_view(tui *t, const tui_view *v) { t->view = v; }

static void draw_footer(tui *t)
{
    int n;
    const tui_key *k = tui_keys(&n);
    move(t->H - 1, 0);
    attron(A_REVERSE);
    for (int x = 0; x < t->W; x++) addch(' ');
    move(t->H - 1, 0);
    int x = 0;
    for (int i = 0; i < n; i++) {
        if (!k[i].footer) continue;
        if (k[i].footer == 2 && !t->w.active && !t->ex.ch.pid) continue;   /* only while a job runs */
        char buf[64];
        snprintf(buf, sizeof buf, "%s %s ", k[i].label, k[i].help);
        /* the footer names the key's first word of help */
        char *sp = strchr(buf + strlen(k[i].label) + 1, ' ');
        if (sp && sp[1]) { sp[0] = ' '; sp[1] = '\0'; }
        int len = (int)strlen(buf);
        if (x + len >= t->W) break;
        mvaddstr(t->H - 1, x, buf);
        x += len;
    }
    attroff(A_REVERSE);
}

static void draw_status(tui *t)
{
    int y = t->H - 2;
    move(y, 0);
    clrtoeol();
    if (t->w.active) {
        pthread_mutex_lock(&t->w.mu);
        double f = t->w.progress;
        pthread_mutex_unlock(&t->w.mu);
        int bw = t->W / 3;
        if (bw > 40) bw = 40;
        if (bw < 10) bw = 10;
        int fill = (int)(f * bw + 0.5);
        char bar[64];
        for (int i = 0; i < bw; i++) bar[i] = i < fill ? '#' : '.';
        bar[bw] = '\0';
        char line[TUI_LINE];
        char more[32] = "";
        if (t->w.nq) snprintf(more, sizeof more, " (+%d queued)", t->w.nq);
        snprintf(line, sizeof line, "[%s] %3d%% simulating node %lld %s (%s)%s  C cancel", bar,
                 (int)(f * 100), (long long)t->w.job.node, t->w.job.n.label ? t->w.job.n.label : "",
                 t->w.job.params ? t->w.job.params : "", more);
        if (t->colors) attron(COLOR_PAIR(4));
        mvaddnstr(y, 0, line, t->W);
        if (t->colors) attroff(COLOR_PAIR(4));
        return;
    }
    if (t->ex.ch.pid) {
        char line[TUI_LINE];
        snprintf(line, sizeof line, "exploring from node %lld: %s  C cancel", (long long)t->ex.node, t->ex.progress);
        if (t->colors) attron(COLOR_PAIR(4));
        mvaddnstr(y, 0, line, t->W);
        if (t->colors) attroff(COLOR_PAIR(4));
        return;
    }
    if (t->msg[0]) {
        if (t->msg_err) attron(t->colors ? COLOR_PAIR(3) | A_BOLD : A_BOLD);
        mvaddnstr(y, 0, t->msg, t->W);
        if (t->msg_err) attroff(t->colors ? COLOR_PAIR(3) | A_BOLD : A_BOLD);
    }
}

static void draw_title(tui *t)
{
    char line[TUI_LINE];
    char binds[200] = "";
    size_t off = 0;
    for (int i = 0; i < t->nbind && off < sizeof binds - 40; i++)
        off += (size_t)snprintf(binds + off, sizeof binds - off, "%s%s=%lld", i ? "," : " -D ",
                                t->bind[i].name, (long long)t->bind[i].value);
    snprintf(line, sizeof line, " polyapm  %s%s  %d nodes  model %s  machine %s%s", t->ws,
             t->readonly ? " [read-only]" : "", t->g.n, tui_model(t), t->profile.name, binds);
    move(0, 0);
    attron(t->colors ? COLOR_PAIR(7) : A_REVERSE);
    for (int x = 0; x < t->W; x++) addch(' ');
    mvaddnstr(0, 0, line, t->W);
    attroff(t->colors ? COLOR_PAIR(7) : A_REVERSE);
}

void tui_draw(tui *t)
{
    getmaxyx(stdscr, t->H, t->W);
    erase();
    if (t->H < 8 || t->W < 40) {
        mvaddnstr(0, 0, "polyapm: the terminal is too small (need 40x8); q quits", t->W);
        refresh();
        return;
    }
    draw_title(t);
    int body = t->H - 3;                           /* rows 1 .. H-3 */
    int tw = t->W / 2;
    if (tw < 30) tw = 30;
    if (tw > 80) tw = 80;
    int rx = tw + 1, rw = t->W - rx;
    int ch = body / 3 + 1;
    if (ch < 7) ch = 7;
    if (ch > 14) ch = 14;
    if (ch > body - 3) ch = body - 3;
    int ph = body - ch;
    tui_tree_draw(t, 1, 0, body, tw);
    for (int y = 1; y <= body; y++) mvaddch(y, tw, '|');
    tui_program_draw(t, 1, rx, ph, rw);
    tui_cost_draw(t, 1 + ph, rx, ch, rw);
    draw_status(t);
    draw_footer(t);
    if (t->view) t->view->draw(t);
    refresh();
}

/* A stamp of the database files; it changes when anyone (the command line too) writes. */
static long long db_stamp(const tui *t)
{
    unsigned long long st = 0;                   /* wraps by design */
    const char *names[] = {STORE_DB_NAME, STORE_DB_NAME "-wal"};
    for (int i = 0; i < 2; i++) {
        char path[4096];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", t->ws, names[i]);
        if (stat(path, &sb) == 0)
            st = st * 31u + (unsigned long long)sb.st_size * 1000003u +
                 (unsigned long long)sb.st_mtim.tv_sec * 1000000000u + (unsigned long long)sb.st_mtim.tv_nsec;
    }
    return (long long)(st >> 1);
}

/* Once a second, with no overlay open: reload when the workspace changed under us. */
static void watch_db(tui *t)
{
    double now = now_ms();
    if (now - t->db_checked < 1000 || t->view) return;
    t->db_checked = now;
    long long st = db_stamp(t);
    if (st == t->db_stamp) return;
    int first = t->db_stamp == 0;
    t->db_stamp = st;
    if (!first) tui_reload(t);
}

static int parse_opts(tui *t, int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-D") && i + 1 < argc) {
            char buf[64];
            snprintf(buf, sizeof buf, "%s", argv[++i]);
            ir_binding b;
            if (t->nbind == OPS_MAX_BINDINGS || ir_parse_binding(buf, &b) != 0) {
                fprintf(stderr, "polyapm: bad -D binding '%s' (expected name=integer)\n", argv[i]);
                return -1;
            }
            snprintf(t->bind_names[t->nbind], sizeof t->bind_names[0], "%s", b.name);
            t->bind[t->nbind].name = t->bind_names[t->nbind];
            t->bind[t->nbind].value = b.value;
            t->nbind++;
        } else if (!strcmp(a, "--machine") && i + 1 < argc) {
            diag_list d;
            diag_list_init(&d);
            if (cost_profile_resolve(argv[++i], &t->profile, &d) != 0) {
                diag_print(&d, stderr);
                diag_list_free(&d);
                return -1;
            }
            diag_list_free(&d);
        } else if (!strcmp(a, "--model") && i + 1 < argc) {
            const char *const *m = cost_model_names();
            int k = 0;
            while (m[k] && strcmp(m[k], argv[i + 1])) k++;
            if (!m[k]) { fprintf(stderr, "polyapm: unknown cost model '%s'\n", argv[i + 1]); return -1; }
            t->model_i = k;
            i++;
        } else {
            fprintf(stderr, "polyapm: unknown option '%s' (the TUI takes -D name=value, --machine M, --model M)\n", a);
            return -1;
        }
    }
    return 0;
}

static void init_colors(tui *t)
{
    t->colors = 0;
    if (!has_colors() || getenv("NO_COLOR")) return;
    if (start_color() != OK) return;
    use_default_colors();
    init_pair(1, COLOR_GREEN, -1);
    init_pair(2, COLOR_YELLOW, -1);
    init_pair(3, COLOR_RED, -1);
    init_pair(4, COLOR_CYAN, -1);
    init_pair(5, COLOR_MAGENTA, -1);
    init_pair(7, COLOR_BLACK, COLOR_CYAN);
    t->colors = 1;
}

/* Prints "polyapm: message" to stderr (the TUI's errors before the screen opens); returns 1. */
static int tui_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int tui_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("polyapm: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

/* Finds the workspace of `target` (FILE.apm, a workspace, or NULL: the current directory's) and
 * opens it (creating it for FILE.apm; read-only when it may not be written).  0 = ok; 1 after
 * a message. */
static int open_workspace(tui *t, const char *target, int *created, diag_list *d)
{
    const char *apm = NULL;
    if (!target) {
        t->ws = store_find(NULL, d);
        if (!t->ws) return tui_fail("%s", d->n ? d->items[d->n - 1].msg : "no workspace here");
    } else {
        size_t n = strlen(target);
        if (n > 4 && strcmp(target + n - 4, ".apm") == 0) {
            apm = target;
            t->ws = ops_workspace_for(target);
        } else {
            t->ws = strdup(target);
            while (strlen(t->ws) > 1 && t->ws[strlen(t->ws) - 1] == '/') t->ws[strlen(t->ws) - 1] = '\0';
        }
    }
    if (!t->ws) return 1;
    if (!apm && !store_is_workspace(t->ws))
        return tui_fail("%s: not a workspace (open FILE.apm to create one)", t->ws);
    if (ops_open_or_init(t->ws, apm, &t->s, created, d) != 0) {
        /* A workspace we may not write: browse it read-only. */
        int ro = store_is_workspace(t->ws) && d->n && strstr(d->items[d->n - 1].msg, "read-only");
        if (ro) {
            diag_list_free(d);
            diag_list_init(d);
        }
        if (!ro || store_open(t->ws, STORE_READ, &t->s, d) != 0) {
            diag_print(d, stderr);
            return 1;
        }
        t->readonly = 1;
    }
    return 0;
}

/* The default machine profile (tui/app/machine.h), unless --machine named one: resolved before
 * the screen starts, so that a first-time calibration prints its progress on the terminal.
 * 0 = ok. */
static int default_machine(tui *t, diag_list *d)
{
    if (t->profile.name[0]) return 0;
    if (machine_resolve(t->s, NULL, &t->profile, d) == 0) return 0;
    diag_print(d, stderr);
    return 1;
}

/* The graph loaded, the root selected, the opening message, the root's cost queued (for
 * speedups).  0 = ok. */
static int first_load(tui *t, int created)
{
    t->sel_id = -1;
    t->prog_id = t->cost_id = -1;
    t->diff_base = -1;
    if (tui_reload(t) != 0) return -1;
    if (t->g.root >= 0) t->sel_id = t->g.nodes[t->g.root].id;
    tui_rows_build(t);
    if (created) tui_message(t, 0, "created %s with the root %s; ? for help", t->ws, t->g.n ? t->g.nodes[0].label : "");
    else tui_message(t, 0, "opened %s; ? for help", t->ws);
    if (t->g.root >= 0 && !t->info[t->g.root].has) tui_sim_enqueue(t, t->g.nodes[t->g.root].id);
    return 0;
}

/* curses on the terminal, and SIGINT/SIGTERM caught.  0 = ok; 1 after a message. */
static int open_screen(tui *t)
{
    setlocale(LC_ALL, "");
    if (!initscr()) return tui_fail("cannot initialise the terminal");
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    timeout(100);
    init_colors(t);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    return 0;
}

/* The event loop: polls the background jobs, redraws, and hands each key to the open view or
 * the key table, until quit or a signal; then stops the jobs and closes the screen.  With
 * `timing`: the time to the first full screen (from t0) and of each redraw after a key. */
static void run_loop(tui *t, FILE *timing, double t0)
{
    int first = 1, keyed = 0;
    double tk = 0;
    while (!t->quit && !interrupted) {
        tui_worker_poll(t);
        tui_apply_poll(t);
        tui_menu_poll(t);
        tui_runjob_poll(t);
        tui_explore_poll(t);
        watch_db(t);
        tui_draw(t);
        if (timing && first) fprintf(timing, "first_screen_ms %.2f\n", now_ms() - t0);
        else if (timing && keyed) fprintf(timing, "redraw_ms %.3f\n", now_ms() - tk);
        if (timing) fflush(timing);
        first = keyed = 0;
        int ch = getch();
        if (ch == ERR) continue;
        tk = now_ms();
        keyed = 1;
        if (ch == KEY_RESIZE) continue;
        if (t->view) {
            if (t->view->key(t, ch)) t->view = NULL;
        } else {
            tui_key_dispatch(t, ch);
        }
    }
    tui_worker_finish(t);
    tui_apply_cancel(t);
    tui_runjob_cancel(t);
    tui_explore_finish(t);
    endwin();
}

int tui_main(const char *target, int argc, char **argv)
{
    tui *t = calloc(1, sizeof *t);
    if (!t) return 1;
    int status = 1;
    diag_list d;
    diag_list_init(&d);
    tui_worker_init(&t->w);
    /* POLYAPM_TUI_TIMING=FILE: the time to the first full screen and of each redraw after a key
     * go to FILE (the benchmark's hook). */
    double t0 = now_ms();
    const char *timing_path = getenv("POLYAPM_TUI_TIMING");
    FILE *timing = timing_path && *timing_path ? fopen(timing_path, "w") : NULL;
    if (parse_opts(t, argc, argv) != 0) { status = 2; goto out; }
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {   /* before creating anything */
        status = tui_fail("the TUI needs a terminal (for scripts see polyapm --help)");
        goto out;
    }
    int created = 0;
    if (open_workspace(t, target, &created, &d) != 0) goto out;
    if (default_machine(t, &d) != 0) goto out;
    if (first_load(t, created) != 0) goto out;
    if (open_screen(t) != 0) goto out;
    run_loop(t, timing, t0);
    status = interrupted ? 128 + interrupted : 0;
out:
    if (timing) fclose(timing);
    tui_worker_finish(t);
    tui_tree_free(t);
    tui_program_free(t);
    tui_cost_free(t);
    tui_menu_free(t);
    free(t->cmp);
    free(t->cmp_meas);
    store_close(t->s);
    free(t->ws);
    diag_list_free(&d);
    pthread_mutex_destroy(&t->w.mu);
    free(t);
    return status;
}
