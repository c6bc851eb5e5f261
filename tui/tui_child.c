/*
 * tui_child.c — one way to run work in a child process without freezing the screen: the
 * transform being applied (tui_apply.c), an export or run (tui_runjob.c) and an explore
 * (tui_explore.c) each own a tui_child.  The child's output arrives through non-blocking pipes
 * that the main loop drains between keys; the child is reaped once both pipes are closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tui.h"

static void pipe_init(tui_pipe *p, int fd)
{
    memset(p, 0, sizeof *p);
    p->fd = fd;
    if (fd < 0) return;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
}

/* Appends what the pipe has now (the buffer stays NUL-terminated).  1 at EOF (the pipe is then
 * closed), 0 while more may come, -1 when out of memory. */
static int pipe_drain(tui_pipe *p)
{
    if (p->fd < 0) return 1;
    for (;;) {
        char chunk[4096];
        ssize_t n = read(p->fd, chunk, sizeof chunk);
        if (n > 0) {
            if (p->len + (size_t)n + 1 > p->cap) {
                size_t c = p->cap ? p->cap * 2 : 16384;
                while (c < p->len + (size_t)n + 1) c *= 2;
                char *b = realloc(p->buf, c);
                if (!b) return -1;
                p->buf = b;
                p->cap = c;
            }
            memcpy(p->buf + p->len, chunk, (size_t)n);
            p->len += (size_t)n;
            p->buf[p->len] = '\0';
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) return 0;
        close(p->fd);
        p->fd = -1;
        return 1;
    }
}

/* What the child does: call `run`, or exec `exe` with its standard output (and error) to the
 * pipes and its standard input from /dev/null. */
typedef struct spawn {
    void (*run)(int fd, void *arg);
    void *arg;
    const char *exe;
    char *const *argv;
    int own_pgrp;
} spawn;

static void spawn_child(const spawn *s, int out, int err)
{
    if (s->run) s->run(out, s->arg);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    dup2(out, 1);
    dup2(err, 2);
    if (s->own_pgrp) setpgid(0, 0);
    execv(s->exe, s->argv);
    _exit(127);
}

/* Forks with a pipe for the child's output, and one for its errors when `separate_err`.
 * 0, or -1 with errno. */
static int child_start(tui_child *c, int separate_err, const spawn *s)
{
    int out[2], ep[2] = { -1, -1 };
    if (pipe(out) != 0) return -1;
    if (separate_err && pipe(ep) != 0) { int e = errno; close(out[0]); close(out[1]); errno = e; return -1; }
    pid_t pid = fork();
    if (pid == 0) {
        close(out[0]);
        if (separate_err) close(ep[0]);
        spawn_child(s, out[1], separate_err ? ep[1] : out[1]);
    }
    int e = errno;
    close(out[1]);
    if (separate_err) close(ep[1]);
    if (pid < 0) {
        close(out[0]);
        if (separate_err) close(ep[0]);
        errno = e;
        return -1;
    }
    memset(c, 0, sizeof *c);
    c->pid = pid;
    pipe_init(&c->out, out[0]);
    pipe_init(&c->err, separate_err ? ep[0] : -1);
    return 0;
}

int tui_child_fork(tui_child *c, void (*run)(int fd, void *arg), void *arg)
{
    spawn s = { run, arg, NULL, NULL, 0 };
    return child_start(c, 0, &s);
}

int tui_child_exec(tui_child *c, const char *exe, char *const argv[], int separate_err, int own_pgrp)
{
    spawn s = { NULL, NULL, exe, argv, own_pgrp };
    return child_start(c, separate_err, &s);
}

int tui_child_poll(tui_child *c)
{
    if (!c->pid) return 0;
    int a = pipe_drain(&c->out), b = pipe_drain(&c->err);
    if (a < 0 || b < 0) return -1;
    if (!a || !b) return 0;
    while (waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR) {}
    c->pid = 0;
    return 1;
}

void tui_child_kill(tui_child *c, int sig)
{
    if (c->pid) {
        kill(c->pid, sig);
        while (waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR) {}
        c->pid = 0;
    }
    tui_child_free(c);
}

void tui_child_free(tui_child *c)
{
    if (c->out.fd > 0) close(c->out.fd);
    if (c->err.fd > 0) close(c->err.fd);
    free(c->out.buf);
    free(c->err.buf);
    memset(c, 0, sizeof *c);
    c->out.fd = c->err.fd = -1;
}
