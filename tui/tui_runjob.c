/*
 * tui_runjob.c — exporting or running the selected node in the background: a child process
 * runs `polyapm -w WS export|run NODE ARGS...` (the same command as on the command line, so the
 * build, mpirun, checksum check and stored measurement are the command's), its output goes to a
 * pipe the main loop reads without blocking, and the last line becomes the status message.
 * C kills it.  One job at a time.
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

enum { RJ_MAXARGS = 24 };

int tui_runjob_start(tui *t, const char *what, int64_t node, const char *args)
{
    if (t->rj.pid) { tui_message(t, 1, "an %s is already running (C cancels it)", t->rj.what); return -1; }
    char buf[512], id[32], *argv[RJ_MAXARGS + 8];
    int n = 0;
    snprintf(buf, sizeof buf, "%s", args ? args : "");
    snprintf(id, sizeof id, "%lld", (long long)node);
    argv[n++] = "polyapm";
    argv[n++] = "-w";
    argv[n++] = t->ws;
    argv[n++] = (char *)what;
    argv[n++] = id;
    for (char *tok = strtok(buf, " \t"); tok && n < RJ_MAXARGS; tok = strtok(NULL, " \t")) argv[n++] = tok;
    argv[n] = NULL;
    int fds[2];
    if (pipe(fds) != 0) { tui_message(t, 1, "pipe: %s", strerror(errno)); return -1; }
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0) dup2(null, 0);
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    close(fds[1]);
    if (pid < 0) { close(fds[0]); tui_message(t, 1, "fork: %s", strerror(errno)); return -1; }
    fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    t->rj.pid = pid;
    t->rj.fd = fds[0];
    t->rj.len = 0;
    t->rj.node = node;
    snprintf(t->rj.what, sizeof t->rj.what, "%s", what);
    tui_message(t, 0, "%s of node %lld running in the background (C cancels)", what, (long long)node);
    return 0;
}

static void reset(tui *t)
{
    if (t->rj.fd > 0) close(t->rj.fd);
    free(t->rj.buf);
    memset(&t->rj, 0, sizeof t->rj);
}

int tui_runjob_cancel(tui *t)
{
    if (!t->rj.pid) return 0;
    kill(t->rj.pid, SIGTERM);
    waitpid(t->rj.pid, NULL, 0);
    reset(t);
    return 1;
}

void tui_runjob_poll(tui *t)
{
    if (!t->rj.pid) return;
    for (;;) {
        if (t->rj.cap - t->rj.len < 4096) {
            size_t cap = t->rj.cap ? t->rj.cap * 2 : 16384;
            char *b = realloc(t->rj.buf, cap);
            if (!b) { tui_runjob_cancel(t); tui_message(t, 1, "out of memory"); return; }
            t->rj.buf = b;
            t->rj.cap = cap;
        }
        ssize_t k = read(t->rj.fd, t->rj.buf + t->rj.len, t->rj.cap - t->rj.len - 1);
        if (k > 0) { t->rj.len += (size_t)k; continue; }
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) return;                       /* EAGAIN: still running */
        break;                                   /* EOF */
    }
    int st = 0;
    waitpid(t->rj.pid, &st, 0);
    char *b = t->rj.buf;
    b[t->rj.len] = '\0';
    while (t->rj.len && (b[t->rj.len - 1] == '\n' || b[t->rj.len - 1] == ' ')) b[--t->rj.len] = '\0';
    char *last = strrchr(b, '\n');
    last = last ? last + 1 : b;
    int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
    /* a failure's reason is the "polyapm: ..." line */
    char *why = ok ? NULL : strstr(b, "polyapm: ");
    tui_message(t, !ok, "%s of node %lld: %s", t->rj.what, (long long)t->rj.node,
                why ? why + 9 : *last ? last : (ok ? "done" : "failed"));
    char *nl = strchr(t->msg, '\n');
    if (nl) *nl = '\0';
    t->cost_id = -1;                             /* the cost pane shows the new measurement */
    reset(t);
}
