/*
 * tui.h — the ncurses front end: walk, branch, backtrack and compare the decision graph.
 *
 * One `tui` struct holds all of the front end's state (no globals).  The screen is a title line,
 * the tree pane (left), the program pane (right, top), the cost pane (right, bottom), a status
 * line (messages, the background job's progress bar) and a footer of keys.  Overlays (help, the
 * transform menu, the parameter form, the compare table, one-line prompts) are views: a struct
 * of callbacks (draw, key), as in tig.  Key bindings are one table (tui_keys.c).
 *
 * Files: tui_main.c (open, loop, layout), tui_tree.c (the graph as rows, costs), tui_program.c,
 * tui_cost.c, tui_menu.c (transform menu + parameter form), tui_compare.c, tui_prompt.c,
 * tui_keys.c (the key table and actions), tui_worker.c (background simulation), tui_explore.c
 * (explore in a child process), tui_apply.c and tui_runjob.c (a transform, an export or run in a
 * child process), tui_child.c (the child processes and their pipes, for those three).
 * Every workspace change goes through ops.h (shared with the command line).
 */
#ifndef POLYAPM_TUI_H
#define POLYAPM_TUI_H

#include <pthread.h>
#include <stdint.h>

#include "ops.h"
#include "store.h"

#include "tui_entry.h"

typedef struct tui tui;

/* A view (overlay): draws itself over the panes and takes keys.  key returns 0 to stay, 1 to
 * close. */
typedef struct tui_view {
    const char *name;
    void (*draw)(tui *t);
    int (*key)(tui *t, int ch);
} tui_view;

/* One key binding. */
typedef struct tui_key {
    int key, key2;                     /* key2: an alternative (0 none) */
    const char *label;                 /* as shown: "j/Down" */
    const char *help;
    void (*fn)(tui *t);
    int footer;                        /* shown in the footer */
} tui_key;

const tui_key *tui_keys(int *n);

/* Per node (by graph index): the cost under the current model/profile/parameters. */
typedef struct tui_info {
    int has;                           /* a stored simulation matches */
    double cost;
    double speedup;                    /* over the root with the same parameters, 0 unknown */
    int verified;                      /* 1, 0, -1 */
    int64_t violations;
    char *params;                      /* of the matching simulation (owned) */
} tui_info;

typedef struct tui_row {
    int gi;                            /* graph index */
    int depth;
    int recur;                         /* a shared node already shown above */
} tui_row;

enum { TUI_QUEUE = 64, TUI_LINE = 512 };

/* The background simulation (tui_worker.c). */
typedef struct tui_worker {
    pthread_t th;
    pthread_mutex_t mu;
    int active;                        /* a thread is running */
    int done;                          /* set by the thread */
    volatile int cancel;
    double progress;
    ops_sim job;
    diag_list d;
    int rc;
    int64_t queue[TUI_QUEUE];
    int nq;
    char names[OPS_MAX_BINDINGS][32];  /* the job's parameter names (the thread reads them) */
} tui_worker;

/* A transform being applied in a child process (tui_apply.c): a crash or a long search in the
 * transform cannot freeze or take down the screen, and Esc kills it. */
/* A child process and what it has written so far (tui_child.c). */
typedef struct tui_pipe { int fd; char *buf; size_t len, cap; } tui_pipe;   /* buf NUL-terminated */
typedef struct tui_child {
    int pid;                           /* 0: none running */
    tui_pipe out, err;                 /* err.fd < 0 when errors go to out */
    int status;                        /* waitpid's, once finished */
} tui_child;
/* Starts `run(fd, arg)` in a child (it writes to fd and must _exit).  0, or -1 with errno. */
int tui_child_fork(tui_child *c, void (*run)(int fd, void *arg), void *arg);
/* Starts exe with argv, stdin from /dev/null, stdout to out, stderr to err (separate_err) or out;
 * own_pgrp: its own process group (the terminal's ^C stays the TUI's).  0, or -1 with errno. */
int tui_child_exec(tui_child *c, const char *exe, char *const argv[], int separate_err, int own_pgrp);
/* Reads what arrived: 1 once the child has finished (reaped: status set, pid 0), 0 while it runs,
 * -1 when out of memory. */
int tui_child_poll(tui_child *c);
/* Sends sig (if running), reaps, frees the buffers. */
void tui_child_kill(tui_child *c, int sig);
void tui_child_free(tui_child *c);

typedef struct tui_apply {
    tui_child ch;                      /* ch.pid 0: none running; ch.out: the result */
    int64_t parent;
    char xf[32];
    char params[512];
} tui_apply;

/* An export or run of a node in a child process (tui_runjob.c). */
typedef struct tui_runjob {
    tui_child ch;                      /* ch.pid 0: none running; ch.out: its output */
    int64_t node;
    char what[16];                     /* "export" or "run" */
} tui_runjob;
/* A search running in a child process (tui_explore.c). */
typedef struct tui_explore {
    tui_child ch;                      /* ch.out: its JSON result, ch.err: its progress lines */
    char progress[160];                /* the last progress line */
    int64_t node;
} tui_explore;

/* The parameter form (tui_menu.c). */
enum { TUI_FORM_MAX = 16 };
typedef struct tui_form {
    const void *xf;                    /* const xf_transform * */
    int nfields;                       /* params + one "more" field */
    char val[TUI_FORM_MAX + 1][128];
    unsigned char touched[TUI_FORM_MAX + 1];   /* typing into an untouched default replaces it */
    int cur;
    char err[8][TUI_LINE];
    int nerr;
} tui_form;

struct tui {
    store *s;
    char *ws;
    store_graph g;
    tui_info *info;                    /* g.n */
    unsigned char *folded;             /* g.n */
    double best_leaf;                  /* lowest leaf cost, -1 none */
    tui_row *rows;
    int nrows, rowcap;
    int sel, top;
    int64_t sel_id;
    /* program pane */
    int64_t prog_id;
    int prog_diff, prog_top;
    int64_t prog_shown;                /* the node last shown (its scroll survives a reload) */
    int64_t diff_base;                 /* the node d diffs against (v marks it), -1: the parent */
    char **lines;
    int nlines;
    char note[256];                    /* the selected node's note ("" none) */
    /* cost pane */
    int64_t cost_id;
    char cost_params[256];
    double *work, *comm, *steps;
    double *mem, mem_full;             /* syndm: local memory per processor, full replication */
    int nmem;
    int nwork, ncomm, nsteps;
    /* settings */
    int model_i;
    cost_profile profile;
    ir_binding bind[OPS_MAX_BINDINGS];
    char bind_names[OPS_MAX_BINDINGS][32];
    int nbind;
    /* status */
    char msg[TUI_LINE];
    int msg_err;
    char search[128];
    /* overlays */
    const tui_view *view;
    int menu_sel;
    const void *menu_items[64];        /* const xf_transform * applicable here */
    char *menu_gain[64];               /* each one's predicted gain (owned), or NULL */
    tui_child menu_ch;                 /* computing the gains (a placement's simulates): pid 0 when done */
    int nmenu;
    tui_form form;
    int cmp_sel, cmp_top;
    int *cmp;                          /* graph indexes, sorted */
    double *cmp_meas;                  /* per graph index: newest measured seconds (0 none) */
    int ncmp, cmp_gen;
    int gen;                           /* counts reloads (graph indexes may change) */
    char prompt_label[64];
    char prompt_buf[256];
    void (*prompt_done)(tui *t, const char *text);
    int help_top;
    /* terminal */
    int colors, quit, H, W;
    int readonly;                      /* opened read-only: nothing is written, results shown */
    long long db_stamp;                /* size+mtime of pdg.db and its WAL: others' writes */
    double db_checked;
    tui_worker w;
    tui_apply ap;
    tui_runjob rj;
    char meas[128];                    /* the cost node's newest measurement ("" none) */
    tui_explore ex;
};

/* tui_main.c */
void tui_message(tui *t, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void tui_message_diags(tui *t, const char *what, const diag_list *d);
void tui_draw(tui *t);
const char *tui_model(const tui *t);
void tui_open_view(tui *t, const tui_view *v);

/* tui_tree.c */
int tui_reload(tui *t);                        /* graph + costs; keeps the selection by id */
void tui_rows_build(tui *t);
void tui_select_id(tui *t, int64_t id);        /* unfolds ancestors as needed */
int tui_sel_gi(const tui *t);                  /* -1 when empty */
int64_t tui_sel_node(const tui *t);
void tui_tree_draw(tui *t, int y, int x, int h, int w);
void tui_costs_load(tui *t);
void tui_fmt_cost(double c, char *buf, size_t n);     /* at most 7 characters */
void tui_fmt_speedup(double s, char *buf, size_t n);  /* at most 6: x0.043, x120; "-" unknown */
int tui_cost_color(const tui *t, double cost);
const char *tui_level_tag(const char *level);
void tui_tree_free(tui *t);

/* tui_text.c */
/* p's len bytes as the terminal can show them, into out (5 * len + 1 bytes at least): UTF-8 as
 * itself where the locale is UTF-8, else θ and σ spelled theta and sigma, others '?' */
void tui_screen_text(const char *p, size_t len, char *out);
/* s (screen text) in out (n bytes) as exactly cols screen columns (the locale's widths: θ is one
 * column, two bytes), cut with an ellipsis when wider, padded with blanks when narrower */
void tui_fit_columns(const char *s, int cols, char *out, size_t n);
void tui_fit_text(const char *s, int cols, char *out, size_t n);   /* tui_screen_text, then fitted */

/* tui_program.c */
void tui_program_draw(tui *t, int y, int x, int h, int w);
void tui_program_free(tui *t);
void tui_program_invalidate(tui *t);

/* tui_cost.c */
void tui_cost_draw(tui *t, int y, int x, int h, int w);
void tui_cost_free(tui *t);

/* tui_menu.c */
void tui_menu_open(tui *t);
void tui_menu_free(tui *t);            /* the menu's gains (at exit; the menu reopens itself) */
void tui_menu_poll(tui *t);            /* the gains, once their child process has written them */
extern const tui_view tui_menu_view, tui_form_view;

/* tui_compare.c */
void tui_compare_open(tui *t);

/* tui_prompt.c */
void tui_prompt(tui *t, const char *label, const char *init, void (*done)(tui *, const char *));
void tui_help_open(tui *t);
/* Draws a box with a title; returns nothing.  ASCII only. */
void tui_box(int y, int x, int h, int w, const char *title);

/* tui_worker.c */
void tui_worker_init(tui_worker *w);
void tui_sim_enqueue(tui *t, int64_t node);
void tui_worker_poll(tui *t);                  /* start queued jobs, collect finished ones */
void tui_worker_cancel(tui *t);                /* cancel the running job, drop the queue */
void tui_worker_finish(tui *t);                /* cancel and join (on exit) */

/* tui_apply.c */
int tui_apply_start(tui *t, int64_t parent, const char *xf, int argc, char **argv);
void tui_apply_poll(tui *t);                   /* collects a finished child */
void tui_apply_cancel(tui *t);                 /* kills a running child (nothing written) */

/* tui_runjob.c */
int tui_runjob_start(tui *t, const char *what, int64_t node, const char *args);
void tui_runjob_poll(tui *t);                  /* collects a finished child: its last line */
int tui_runjob_cancel(tui *t);                 /* 1 when a job was killed */
/* tui_explore.c: `spec` is "budget=N depth=D jobs=J name=value ..." (the rest are -D) */
int tui_explore_start(tui *t, int64_t node, const char *spec);
void tui_explore_poll(tui *t);                 /* progress; collects a finished search */
int tui_explore_cancel(tui *t);                /* SIGINT to a running search; 0 if none */
void tui_explore_finish(tui *t);               /* stop and reap (on exit) */

/* tui_menu.c: the result of an apply for the form (errors in `d`, or the new child) */
void tui_form_result(tui *t, int ok, int64_t child, int created, const diag_list *d);

/* tui_keys.c */
void tui_key_dispatch(tui *t, int ch);

#endif
