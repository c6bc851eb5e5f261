/*
 * tui_explore.c — explore (the best-first search of tui/app/explore.c) from the selected node, in the
 * background: the TUI runs `polyapm -w WS explore NODE --progress --json ...` as a child process
 * (a fresh process: the search forks workers and opens the workspace itself), shows its progress
 * line in the status line, and when it ends reloads the graph and selects the best leaf.  The
 * cancel key sends it SIGINT: it stores what is in flight and stops; rerunning continues.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tui.h"

enum { MAX_ARGV = 2 * OPS_MAX_BINDINGS + 24 };

/* "budget=200 depth=6 jobs=2 n=16 procs=4": options and -D bindings */
int tui_explore_start(tui *t, int64_t node, const char *spec)
{
    tui_explore *e = &t->ex;
    if (e->ch.pid) { tui_message(t, 1, "an explore is already running (C cancels it)"); return -1; }
    if (t->readonly) { tui_message(t, 1, "read-only workspace: explore writes nodes"); return -1; }
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) { tui_message(t, 1, "cannot find the polyapm executable"); return -1; }
    exe[n] = '\0';
    char words[MAX_ARGV][64], idbuf[32];
    char *argv[MAX_ARGV + 1];
    int argc = 0;
    snprintf(idbuf, sizeof idbuf, "%lld", (long long)node);
    argv[argc++] = "polyapm";
    argv[argc++] = "-w";
    argv[argc++] = t->ws;
    argv[argc++] = "explore";
    argv[argc++] = idbuf;
    argv[argc++] = "--progress";
    argv[argc++] = "-q";
    argv[argc++] = "--json";
    argv[argc++] = "--model";
    argv[argc++] = (char *)tui_model(t);
    argv[argc++] = "--machine";
    argv[argc++] = t->profile.name;
    char copy[512];
    snprintf(copy, sizeof copy, "%s", spec ? spec : "");
    int nw = 0;
    for (char *tok = strtok(copy, " "); tok && argc < MAX_ARGV - 2 && nw < MAX_ARGV - 1; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok || !eq[1]) { tui_message(t, 1, "explore: '%s' is not name=value", tok); return -1; }
        static const char *const opts[][2] = {{"budget", "--budget"}, {"depth", "--depth"}, {"jobs", "--jobs"}};
        const char *opt = "-D";
        for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++)
            if ((size_t)(eq - tok) == strlen(opts[k][0]) && !strncmp(tok, opts[k][0], strlen(opts[k][0]))) opt = opts[k][1];
        argv[argc++] = (char *)opt;
        snprintf(words[nw], sizeof words[nw], "%s", !strcmp(opt, "-D") ? tok : eq + 1);
        argv[argc++] = words[nw++];
    }
    argv[argc] = NULL;
    if (tui_child_exec(&e->ch, exe, argv, 1, 1) != 0) {   /* C, not the terminal's ^C, cancels it */
        tui_message(t, 1, "fork: %s", strerror(errno));
        return -1;
    }
    e->node = node;
    snprintf(e->progress, sizeof e->progress, "starting");
    tui_message(t, 0, "exploring from node %lld", (long long)node);
    return 0;
}

/* The number after "key": in the JSON text, or -1. */
static double json_num(const char *s, const char *key)
{
    const char *p = s ? strstr(s, key) : NULL;
    return p ? strtod(p + strlen(key), NULL) : -1;
}

void tui_explore_poll(tui *t)
{
    tui_explore *e = &t->ex;
    int done = tui_child_poll(&e->ch);
    const tui_pipe *err = &e->ch.err, *out = &e->ch.out;
    if (err->buf && err->len) {
        /* the last complete line is the progress */
        char *end = err->buf + err->len;
        while (end > err->buf && end[-1] == '\n') end--;
        char *start = end;
        while (start > err->buf && start[-1] != '\n') start--;
        size_t l = (size_t)(end - start);
        if (l >= sizeof e->progress) l = sizeof e->progress - 1;
        if (!strncmp(start, "explore: ", 9)) { start += 9; l -= l >= 9 ? 9 : l; }
        memcpy(e->progress, start, l);
        e->progress[l] = '\0';
    }
    if (done < 0) { tui_child_kill(&e->ch, SIGINT); tui_message(t, 1, "explore: out of memory"); return; }
    if (!done) return;
    int status = e->ch.status;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    double evaluated = json_num(out->buf, "\"evaluated\":"), best = json_num(out->buf, "\"best\":{\"node\":");
    double cost = json_num(out->buf, "\"cost\":");
    int interrupted = out->buf && strstr(out->buf, "\"interrupted\":true");
    int64_t sel = tui_sel_node(t);
    tui_reload(t);
    t->sel_id = sel;
    tui_rows_build(t);
    if (evaluated < 0) {
        tui_message(t, 1, "explore failed (exit %d): %s", code, err->len ? e->progress : "no output");
    } else {
        if (best > 0) tui_select_id(t, (int64_t)best);
        char c[24] = "-";
        if (best > 0) tui_fmt_cost(cost, c, sizeof c);
        tui_message(t, 0, "explore %s: %d nodes evaluated; best leaf %lld, cost %s%s",
                    interrupted ? "interrupted" : "done", (int)evaluated, best > 0 ? (long long)best : -1LL, c,
                    interrupted ? " (explore again to continue)" : "");
    }
    tui_child_free(&e->ch);
}

int tui_explore_cancel(tui *t)
{
    tui_explore *e = &t->ex;
    if (!e->ch.pid) return 0;
    kill(e->ch.pid, SIGINT);
    tui_message(t, 0, "stopping the explore (what is in flight is stored)...");
    return 1;
}

void tui_explore_finish(tui *t)
{
    tui_explore *e = &t->ex;
    if (e->ch.pid) {
        kill(e->ch.pid, SIGINT);
        while (e->ch.pid) {
            tui_explore_poll(t);
            if (e->ch.pid) usleep(20000);
        }
    }
    tui_child_free(&e->ch);
    memset(e, 0, sizeof *e);
}
