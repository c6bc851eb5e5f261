/*
 * tui_runjob.c — exporting, running or replaying the selected node in the background: a child
 * process runs `polyapm -w WS export|run|replay NODE ARGS...` (the same command as on the command line, so the
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
    if (t->rj.ch.pid) { tui_message(t, 1, "an %s is already running (C cancels it)", t->rj.what); return -1; }
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
    if (tui_child_exec(&t->rj.ch, "/proc/self/exe", argv, 0, 0) != 0) {
        tui_message(t, 1, "fork: %s", strerror(errno));
        return -1;
    }
    t->rj.node = node;
    snprintf(t->rj.what, sizeof t->rj.what, "%s", what);
    tui_message(t, 0, "%s of node %lld running in the background (C cancels)", what, (long long)node);
    return 0;
}

static void reset(tui *t)
{
    tui_child_free(&t->rj.ch);
    memset(&t->rj, 0, sizeof t->rj);
}

int tui_runjob_cancel(tui *t)
{
    if (!t->rj.ch.pid) return 0;
    tui_child_kill(&t->rj.ch, SIGTERM);
    reset(t);
    return 1;
}

void tui_runjob_poll(tui *t)
{
    int done = tui_child_poll(&t->rj.ch);
    if (done < 0) { tui_runjob_cancel(t); tui_message(t, 1, "out of memory"); return; }
    if (!done) return;
    int st = t->rj.ch.status;
    tui_pipe *o = &t->rj.ch.out;
    char empty[1] = "";
    char *b = o->buf ? o->buf : empty;
    while (o->len && (b[o->len - 1] == '\n' || b[o->len - 1] == ' ')) b[--o->len] = '\0';
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
    tui_reload(t);                               /* and the tree the nodes a replay added */
}
