/*
 * tui_apply.c — applying a transform in a child process.  The main process loads the node's
 * program, forks; the child runs xf_apply_with and writes "OK\n" + the canonical text, or
 * "ERR status\n" + one diagnostic per line, to a pipe and exits.  The main loop reads the pipe
 * without blocking; when the child is done the text is added through ops_add_text (the same
 * store path as every other node) and the form learns the outcome.  A transform that crashes or
 * is cancelled (Esc kills the child) writes nothing.
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
#include "xf.h"

static void write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, s, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return;
        s += k;
        n -= (size_t)k;
    }
}

/* What the child applies. */
typedef struct apply_job {
    const ir_program *p;
    const char *xf;
    int argc;
    char **argv;
    const ir_binding *ov;
    int nov;
} apply_job;

static void child(int fd, void *arg)
{
    const apply_job *j = arg;
    diag_list d;
    diag_list_init(&d);
    int st = 0;
    ir_program *q = xf_apply_with(j->p, j->xf, j->argc, j->argv, j->ov, j->nov, NULL, &d, &st);
    char *text = q ? ir_print(q) : NULL;
    if (text) {
        write_all(fd, "OK\n", 3);
        write_all(fd, text, strlen(text));
    } else {
        char head[32];
        snprintf(head, sizeof head, "ERR %d\n", q ? XF_EREFUSED : st);
        write_all(fd, head, strlen(head));
        for (int i = 0; i < d.n; i++) {
            char *m = d.items[i].msg;
            for (char *c = m; *c; c++) if (*c == '\n') *c = ' ';
            write_all(fd, m, strlen(m));
            write_all(fd, "\n", 1);
        }
    }
    _exit(0);
}

int tui_apply_start(tui *t, int64_t parent, const char *xf, int argc, char **argv)
{
    diag_list d;
    diag_list_init(&d);
    if (t->ap.ch.pid) { diag_add(&d, NULL, 0, 0, "a transform is already being applied"); goto fail; }
    size_t len;
    char *text = store_node_text(t->s, parent, &len, &d);
    ir_program *p = text ? ir_load_text("node", text, len, &d) : NULL;
    free(text);
    if (!p) goto fail;
    apply_job job = { p, xf, argc, argv, t->bind, t->nbind };
    int rc = tui_child_fork(&t->ap.ch, child, &job);
    ir_program_free(p);
    if (rc != 0) { diag_add(&d, NULL, 0, 0, "fork: %s", strerror(errno)); goto fail; }
    t->ap.parent = parent;
    snprintf(t->ap.xf, sizeof t->ap.xf, "%s", xf);
    size_t off = 0;
    t->ap.params[0] = '\0';
    for (int i = 0; i < argc && off < sizeof t->ap.params - 1; i++)
        off += (size_t)snprintf(t->ap.params + off, sizeof t->ap.params - off, "%s%s", i ? " " : "", argv[i]);
    diag_list_free(&d);
    return 0;
fail:
    tui_form_result(t, 0, -1, 0, &d);
    diag_list_free(&d);
    return -1;
}

static void reset(tui *t)
{
    tui_child_free(&t->ap.ch);
    memset(&t->ap, 0, sizeof t->ap);
}

void tui_apply_cancel(tui *t)
{
    if (!t->ap.ch.pid) return;
    tui_child_kill(&t->ap.ch, SIGKILL);
    reset(t);
}

void tui_apply_poll(tui *t)
{
    int done = tui_child_poll(&t->ap.ch);
    if (done < 0) { tui_apply_cancel(t); tui_message(t, 1, "out of memory"); return; }
    if (!done) return;
    int st = t->ap.ch.status;
    diag_list d;
    diag_list_init(&d);
    char *b = t->ap.ch.out.buf ? t->ap.ch.out.buf : "";
    if (WIFSIGNALED(st) || !WIFEXITED(st)) {
        diag_add(&d, NULL, 0, 0, "the transform %s crashed (signal %d); nothing written", t->ap.xf,
                 WIFSIGNALED(st) ? WTERMSIG(st) : 0);
        tui_form_result(t, 0, -1, 0, &d);
    } else if (!strncmp(b, "OK\n", 3)) {
        int64_t child = -1;
        int created = 0;
        if (ops_add_text(t->s, t->ap.parent, b + 3, t->ap.ch.out.len - 3, t->ap.xf, t->ap.params, NULL,
                         &child, &created, &d) != 0)
            tui_form_result(t, 0, -1, 0, &d);
        else
            tui_form_result(t, 1, child, created, &d);
    } else {
        char *line = strchr(b, '\n');
        for (char *l = line ? line + 1 : NULL; l && *l;) {
            char *e = strchr(l, '\n');
            if (e) *e = '\0';
            diag_add(&d, NULL, 0, 0, "%s", l);
            l = e ? e + 1 : NULL;
        }
        if (!d.n) diag_add(&d, NULL, 0, 0, "the transform failed");
        tui_form_result(t, 0, -1, 0, &d);
    }
    diag_list_free(&d);
    reset(t);
}
