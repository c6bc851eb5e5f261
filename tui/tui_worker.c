/*
 * tui_worker.c — simulation in the background.  The main thread prepares a job (ops_sim_prepare:
 * store reads), one worker thread runs it (ops_sim_run: no store access, progress and cancel
 * through the simulator's hooks), and the main thread stores the result (ops_sim_store) when it
 * polls and finds the thread done.  A cancelled job is freed without writing anything.  Jobs
 * wait in a small queue (node ids) and run one at a time.
 */
#include <stdio.h>
#include <string.h>

#include "tui.h"

void tui_worker_init(tui_worker *w)
{
    memset(w, 0, sizeof *w);
    pthread_mutex_init(&w->mu, NULL);
    diag_list_init(&w->d);
}

static void on_progress(void *ctx, double f)
{
    tui_worker *w = ctx;
    pthread_mutex_lock(&w->mu);
    w->progress = f;
    pthread_mutex_unlock(&w->mu);
}

static void *run(void *arg)
{
    tui_worker *w = arg;
    int rc = ops_sim_run(&w->job, &w->cancel, on_progress, w, &w->d);
    pthread_mutex_lock(&w->mu);
    w->rc = rc;
    w->done = 1;
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

void tui_sim_enqueue(tui *t, int64_t node)
{
    tui_worker *w = &t->w;
    for (int i = 0; i < w->nq; i++)
        if (w->queue[i] == node) return;
    if (w->active && w->job.node == node) return;
    if (w->nq == TUI_QUEUE) { tui_message(t, 1, "too many simulations queued"); return; }
    w->queue[w->nq++] = node;
}

static void job_reset(tui_worker *w)
{
    ops_sim_free(&w->job);
    memset(&w->job, 0, sizeof w->job);
    diag_list_free(&w->d);
    diag_list_init(&w->d);
    w->done = 0;
    w->cancel = 0;
    w->progress = 0;
    w->rc = 0;
}

static void setup(tui *t, int64_t node)
{
    tui_worker *w = &t->w;
    job_reset(w);
    w->job.node = node;
    w->job.model = tui_model(t);
    w->job.profile = t->profile;
    for (int i = 0; i < t->nbind; i++) {
        snprintf(w->names[i], sizeof w->names[i], "%s", t->bind[i].name);
        w->job.bindings[i].name = w->names[i];
        w->job.bindings[i].value = t->bind[i].value;
    }
    w->job.nbindings = t->nbind;
}

static void collect(tui *t)
{
    tui_worker *w = &t->w;
    pthread_join(w->th, NULL);
    w->active = 0;
    int64_t node = w->job.node;
    if (w->cancel) {
        tui_message(t, 0, "simulation of node %lld cancelled; nothing stored", (long long)node);
    } else if (w->rc != 0) {
        tui_message_diags(t, "simulation failed", &w->d);
    } else if (t->readonly) {
        char c[24];
        tui_fmt_cost(w->job.total, c, sizeof c);
        tui_message(t, 0, "node %lld %s: cost %s, %s (read-only workspace: not stored)", (long long)node,
                    w->job.n.label, c, w->job.verified == 1 ? "verified" : w->job.verified == 0 ? "NOT verified" : "not checked");
    } else {
        diag_list d;
        diag_list_init(&d);
        if (ops_sim_store(t->s, &w->job, &d) != 0) {
            tui_message_diags(t, "cannot store the simulation", &d);
        } else {
            char c[24];
            tui_fmt_cost(w->job.total, c, sizeof c);
            tui_message(t, 0, "simulated node %lld %s: cost %s, %s", (long long)node, w->job.n.label, c,
                        w->job.verified == 1 ? "verified" : w->job.verified == 0 ? "NOT verified" : "not checked");
            int64_t sel = tui_sel_node(t);
            tui_reload(t);
            t->sel_id = sel;
            tui_rows_build(t);
        }
        diag_list_free(&d);
    }
    job_reset(w);
}

void tui_worker_poll(tui *t)
{
    tui_worker *w = &t->w;
    if (w->active) {
        pthread_mutex_lock(&w->mu);
        int done = w->done;
        pthread_mutex_unlock(&w->mu);
        if (!done) return;
        collect(t);
    }
    while (!w->active && w->nq > 0) {
        int64_t node = w->queue[0];
        memmove(w->queue, w->queue + 1, sizeof w->queue[0] * (size_t)(w->nq - 1));
        w->nq--;
        setup(t, node);
        int r = ops_sim_prepare(t->s, &w->job, &w->d);
        if (r < 0) { tui_message_diags(t, "cannot simulate", &w->d); job_reset(w); continue; }
        if (r == 1) {                              /* already stored: just show it */
            char c[24];
            tui_fmt_cost(w->job.total, c, sizeof c);
            tui_message(t, 0, "node %lld %s: cost %s (%s), from the store", (long long)node, w->job.n.label,
                        c, w->job.params);
            job_reset(w);
            tui_costs_load(t);
            t->cost_id = -1;
            continue;
        }
        if (pthread_create(&w->th, NULL, run, w) != 0) {
            tui_message(t, 1, "cannot start the simulation thread");
            job_reset(w);
            continue;
        }
        w->active = 1;
    }
}

void tui_worker_cancel(tui *t)
{
    tui_worker *w = &t->w;
    w->nq = 0;
    if (!w->active) { tui_message(t, 0, "nothing is running"); return; }
    w->cancel = 1;
    tui_message(t, 0, "cancelling...");
}

void tui_worker_finish(tui *t)
{
    tui_worker *w = &t->w;
    w->nq = 0;
    if (w->active) {
        w->cancel = 1;
        pthread_join(w->th, NULL);
        w->active = 0;
    }
    job_reset(w);
    diag_list_free(&w->d);
}
