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

static void child(int fd, const ir_program *p, const char *xf, int argc, char **argv,
                  const ir_binding *ov, int nov)
{
    diag_list d;
    diag_list_init(&d);
    int st = 0;
    ir_program *q = xf_apply_with(p, xf, argc, argv, ov, nov, NULL, &d, &st);
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
    if (t->ap.pid) { diag_add(&d, NULL, 0, 0, "a transform is already being applied"); goto fail; }
    size_t len;
    char *text = store_node_text(t->s, parent, &len, &d);
    ir_program *p = text ? ir_load_text("node", text, len, &d) : NULL;
    free(text);
    if (!p) goto fail;
    int fds[2];
    if (pipe(fds) != 0) { ir_program_free(p); diag_add(&d, NULL, 0, 0, "pipe: %s", strerror(errno)); goto fail; }
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        child(fds[1], p, xf, argc, argv, t->bind, t->nbind);
    }
    ir_program_free(p);
    close(fds[1]);
    if (pid < 0) { close(fds[0]); diag_add(&d, NULL, 0, 0, "fork: %s", strerror(errno)); goto fail; }
    fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    t->ap.pid = pid;
    t->ap.fd = fds[0];
    t->ap.len = 0;
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
    if (t->ap.fd > 0) close(t->ap.fd);
    free(t->ap.buf);
    memset(&t->ap, 0, sizeof t->ap);
}

void tui_apply_cancel(tui *t)
{
    if (!t->ap.pid) return;
    kill(t->ap.pid, SIGKILL);
    waitpid(t->ap.pid, NULL, 0);
    reset(t);
}

void tui_apply_poll(tui *t)
{
    if (!t->ap.pid) return;
    for (;;) {
        if (t->ap.cap - t->ap.len < 4096) {
            size_t cap = t->ap.cap ? t->ap.cap * 2 : 16384;
            char *b = realloc(t->ap.buf, cap);
            if (!b) { tui_apply_cancel(t); tui_message(t, 1, "out of memory"); return; }
            t->ap.buf = b;
            t->ap.cap = cap;
        }
        ssize_t k = read(t->ap.fd, t->ap.buf + t->ap.len, t->ap.cap - t->ap.len - 1);
        if (k > 0) { t->ap.len += (size_t)k; continue; }
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) return;                       /* EAGAIN: not done yet */
        break;                                   /* EOF */
    }
    int st = 0;
    waitpid(t->ap.pid, &st, 0);
    t->ap.buf[t->ap.len] = '\0';
    diag_list d;
    diag_list_init(&d);
    char *b = t->ap.buf;
    if (WIFSIGNALED(st) || !WIFEXITED(st)) {
        diag_add(&d, NULL, 0, 0, "the transform %s crashed (signal %d); nothing written", t->ap.xf,
                 WIFSIGNALED(st) ? WTERMSIG(st) : 0);
        tui_form_result(t, 0, -1, 0, &d);
    } else if (!strncmp(b, "OK\n", 3)) {
        int64_t child = -1;
        int created = 0;
        if (ops_add_text(t->s, t->ap.parent, b + 3, t->ap.len - 3, t->ap.xf, t->ap.params, NULL,
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
