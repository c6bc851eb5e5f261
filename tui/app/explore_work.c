/*
 * explore_work.c — the work of explore's search (explore.c): applying a transform to a program
 * text and simulating a program text, as tasks — lists of strings — done in the searching process
 * (jobs = 1) or in a worker process that reads them from a pipe and writes its results back
 * (jobs > 1).  The messages' wire format is here too: a count, then each string's length and bytes.
 */
#include "explore_int.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ops.h"
#include "xf.h"

/* ---- messages: lists of strings ------------------------------------------------------------- */

static int msg_add(msg *m, const char *s, size_t len)
{
    if (m->n == m->cap) {
        int cap = m->cap ? 2 * m->cap : 8;
        char **ns = realloc(m->s, (size_t)cap * sizeof *ns);
        if (!ns) return -1;
        m->s = ns;
        size_t *nl = realloc(m->len, (size_t)cap * sizeof *nl);
        if (!nl) return -1;
        m->len = nl;
        m->cap = cap;
    }
    char *c = malloc(len + 1);
    if (!c) return -1;
    memcpy(c, s ? s : "", len);
    c[len] = '\0';
    m->s[m->n] = c;
    m->len[m->n++] = len;
    return 0;
}

int msg_str(msg *m, const char *s) { return msg_add(m, s ? s : "", s ? strlen(s) : 0); }

int msg_fmt(msg *m, const char *fmt, ...)
{
    char buf[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return msg_str(m, buf);
}

void msg_free(msg *m)
{
    for (int i = 0; i < m->n; i++) free(m->s[i]);
    free(m->s);
    free(m->len);
    memset(m, 0, sizeof *m);
}

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

int msg_send(int fd, const msg *m)
{
    uint32_t n = (uint32_t)m->n;
    if (write_all(fd, &n, sizeof n) != 0) return -1;
    for (int i = 0; i < m->n; i++) {
        uint64_t l = m->len[i];
        if (write_all(fd, &l, sizeof l) != 0 || write_all(fd, m->s[i], m->len[i]) != 0) return -1;
    }
    return 0;
}

int msg_recv(int fd, msg *m)
{
    memset(m, 0, sizeof *m);
    uint32_t n;
    if (read_all(fd, &n, sizeof n) != 0) return -1;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t l;
        if (read_all(fd, &l, sizeof l) != 0) goto fail;
        char *buf = malloc(l + 1);
        if (!buf) goto fail;
        if (read_all(fd, buf, l) != 0) { free(buf); goto fail; }
        int rc = msg_add(m, buf, l);
        free(buf);
        if (rc != 0) goto fail;
    }
    return 0;
fail:
    msg_free(m);
    return -1;
}

/* ---- the work ------------------------------------------------------------------------------- */

static const char *last_msg(const diag_list *d) { return d->n ? d->items[d->n - 1].msg : "failed"; }

/* Simulates `prog` (owned: freed here) against the source and appends the simulation's fields:
 * ok PARAMS TOTAL SECONDS AGG VERIFIED CHECKSUM NPROCS NSTEPS VIOLATIONS PER_PROC TRACE
 * REPORT_TEXT REPORT_JSON SIM_SECONDS LEVEL TILED  |  error WHY  |  cancelled WHY (padded to the
 * same count).  The run honours xf_cancel(). */

static void sim_fields(const wctx *w, ir_program *prog, msg *r)
{
    diag_list d;
    diag_list_init(&d);
    ops_sim j;
    memset(&j, 0, sizeof j);
    j.node = -1;
    j.root = w->root;
    j.model = w->o->model;
    j.profile = w->o->profile;
    j.nbindings = w->o->nbindings < OPS_MAX_BINDINGS ? w->o->nbindings : OPS_MAX_BINDINGS;
    memcpy(j.bindings, w->o->bindings, (size_t)j.nbindings * sizeof j.bindings[0]);
    j.rootn.label = strdup(w->root_label);
    j.ref = (ir_program *)w->ref;
    j.prog = prog;
    store_sim row;
    char *owned[4] = {NULL, NULL, NULL, NULL};
    if (!(j.params = ops_param_key(j.prog, j.bindings, j.nbindings, &d)) ||
        !(j.mtext = cost_profile_format(&j.profile)) || ops_sim_run(&j, xf_cancel_flag(), NULL, NULL, &d) != 0 ||
        ops_sim_row(&j, &row, owned, &d) != 0 || xf_cancelled()) {
        msg_str(r, xf_cancelled() ? "cancelled" : "error");
        msg_str(r, last_msg(&d));
        for (int i = 2; i < SIM_NFIELDS; i++) msg_str(r, "");
    } else {
        msg_str(r, "ok");
        msg_str(r, row.params);
        msg_fmt(r, "%.17g", row.total);
        msg_fmt(r, "%.17g", row.seconds);
        msg_fmt(r, "%.17g", row.aggregate_work);
        msg_fmt(r, "%d", row.verified);
        msg_fmt(r, "%016llx", (unsigned long long)row.checksum);
        msg_fmt(r, "%d", row.nprocs);
        msg_fmt(r, "%d", row.nsteps);
        msg_fmt(r, "%lld", (long long)row.violations);
        msg_str(r, row.per_proc);
        msg_str(r, row.trace);
        msg_str(r, row.report_text);
        msg_str(r, row.report_json);
        msg_fmt(r, "%.17g", row.sim_seconds);
        msg_fmt(r, "%d", (int)prog->level);
        msg_fmt(r, "%d", has_proc_loop(prog->body));
        msg_fmt(r, "%d", xf_redist_pending(prog));
        double at_total = -1, at_step = -1;
        if (w->o->at_data_scale > 1 && simjob_cost_at(&j.job, w->o->at_data_scale, &at_total, &at_step) != 0)
            at_total = at_step = -1;
        msg_fmt(r, "%.17g", at_total);
        msg_fmt(r, "%.17g", at_step);
    }
    for (int i = 0; i < 4; i++) free(owned[i]);
    j.ref = NULL;             /* shared, not the job's */
    ops_sim_free(&j);         /* frees prog */
    free((char *)j.rootn.label);
    diag_list_free(&d);
}

/* task: apply PARENT_TEXT XF ARGS...
 * result: ok CHILD_TEXT SIM-FIELDS... | refused WHY | usage WHY | cancelled WHY */
static void do_apply(const wctx *w, const msg *t, msg *r)
{
    diag_list d;
    diag_list_init(&d);
    ir_program *p = ir_load_text("parent", t->s[1], t->len[1], &d), *q = NULL;
    if (!p) { msg_str(r, "usage"); msg_str(r, last_msg(&d)); goto out; }
    FILE *devnull = fopen("/dev/null", "w");
    int st = 0;
    q = xf_apply_with(p, t->s[2], t->n - 3, t->s + 3, w->o->bindings, w->o->nbindings, devnull, &d, &st);
    if (devnull) fclose(devnull);
    char *text = q && !xf_cancelled() ? ir_print(q) : NULL;
    if (xf_cancelled()) {           /* an interrupted transform proves nothing: no child, no refusal */
        msg_str(r, "cancelled");
        msg_str(r, "interrupted");
    } else if (text) {
        msg_str(r, "ok");
        msg_str(r, text);
        sim_fields(w, q, r);
        q = NULL;
    } else {
        msg_str(r, st == XF_EUSAGE ? "usage" : "refused");
        msg_str(r, last_msg(&d));
    }
    free(text);
out:
    ir_program_free(q);
    ir_program_free(p);
    diag_list_free(&d);
}

/* task: sim TEXT LABEL   result: SIM-FIELDS... */
static void do_sim(const wctx *w, const msg *t, msg *r)
{
    diag_list d;
    diag_list_init(&d);
    ir_program *prog = ir_load_text(t->s[2], t->s[1], t->len[1], &d);
    if (prog) sim_fields(w, prog, r);
    else {
        msg_str(r, "error");
        msg_str(r, last_msg(&d));
        for (int i = 2; i < SIM_NFIELDS; i++) msg_str(r, "");
    }
    diag_list_free(&d);
}

void do_task(const wctx *w, const msg *t, msg *r)
{
    memset(r, 0, sizeof *r);
    if (t->n >= 3 && !strcmp(t->s[0], "apply")) do_apply(w, t, r);
    else if (t->n == 3 && !strcmp(t->s[0], "sim")) do_sim(w, t, r);
    else { msg_str(r, "error"); msg_str(r, "malformed task"); }
}

static void worker_on_signal(int sig)
{
    (void)sig;
    xf_cancel();
}

/* A worker process: tasks in, results out, until its input closes.  SIGINT/SIGTERM (the search
 * sends SIGTERM when it stops; a terminal's ^C reaches the whole group) cancel the task under
 * way: its result says "cancelled" and the worker waits for its input to close.  The signals
 * arrive blocked (start_workers) until the handler is in place. */
void worker_loop(const wctx *w, int in, int out)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = worker_on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    for (;;) {
        msg t, r;
        if (msg_recv(in, &t) != 0) break;
        do_task(w, &t, &r);
        int rc = msg_send(out, &r);
        msg_free(&t);
        msg_free(&r);
        if (rc != 0) break;
    }
    _exit(0);
}

int has_proc_loop(const ir_block *b)
{
    for (int i = 0; b && i < b->n; i++) {
        const ir_stmt *st = b->stmts[i];
        if (st->kind == IR_S_FOR) {
            for (int v = 0; v < st->u.for_.nvars; v++)
                if (st->u.for_.vars[v].kind == IR_LOOP_PROC) return 1;
            if (has_proc_loop(st->u.for_.body)) return 1;
        } else if (st->kind == IR_S_IF) {
            if (has_proc_loop(st->u.if_.then_blk) || has_proc_loop(st->u.if_.else_blk)) return 1;
        }
    }
    return 0;
}
