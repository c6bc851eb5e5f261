/*
 * explore.c — the best-first search of `polyapm explore` (see explore.h for the method and the
 * bound).
 *
 * The search (this process) owns the store; the work — applying a transform to a program text,
 * simulating a program text — is a task, a list of strings, done by do_task either here
 * (jobs = 1) or in a worker process fed through a pipe (jobs > 1).  Results come back as lists
 * of strings too; the search stores them.  Every open node keeps a count of its tasks in flight;
 * when it reaches zero the node is finished (explored mark, leaf or not).
 */
#include "explore_int.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ops.h"
#include "xf.h"

enum { MAX_JOBS = 64, DEFAULT_DEPTH = 8, DEFAULT_BUDGET = 200,
       STOP_GRACE_MS = 1000 /* a stopped worker's time to give up its task before it is killed */ };

/* ---- the search ----------------------------------------------------------------------------- */

enum xstate { X_EVAL, X_OPEN, X_EXPANDING, X_DONE };

typedef struct xnode {
    int64_t id;
    int depth, level, tiled, nprocs;
    int busy;                 /* processors with work in its simulation */
    int redist;               /* redist would transpose an array its messages move (xf_redist_pending) */
    double total, agg, bound;
    double prune_at;          /* a whole program's bound weighed for the user's size (at_weighed),
                                 which pruning compares with the best leaf's weighed cost too;
                                 -1 for an untiled one.  `bound` orders the search */
    double step_work;         /* the work of each step's busiest processor (cost_summary); -1 unknown */
    double at_total, at_step; /* the same priced at opts.at_data_scale (a node found in the store
                                 run again for its trace); -1 unknown or without --at */
    double prune_scaled;      /* prune_at from those, or -1 */
    int verified;
    enum xstate state;
    int inflight;             /* tasks of its expansion not yet back */
    int children;             /* candidates that made a child (but local's: cand_keeps_leaf) */
    int complete;             /* every candidate was tried (not cut by the budget or a stop) */
    int64_t signature;
    int local;                /* 1: a node of the second pass (local on the best leaves), 2: a leaf
                                 it expands again (listed already, its explored mark kept) */
} xnode;

enum tkind { T_APPLY, T_SIM };

typedef struct task {
    enum tkind kind;
    int node;                 /* T_APPLY: the parent's index; T_SIM: the child's */
    char *xf, *params;        /* T_APPLY */
    msg m;
} task;

typedef struct search {
    store *s;
    const explore_opts *o;
    explore_result *res;
    wctx w;
    xnode *nodes;
    int n, cap;
    double pmax;
    int procs;                /* -D procs=P: leaves must run on P processors (0: any) */
    task *queue;              /* tasks waiting for a worker, FIFO */
    int nq, capq, headq;
    int jobs;
    pid_t pid[MAX_JOBS];
    int to[MAX_JOBS], from[MAX_JOBS];
    task busy[MAX_JOBS];
    int isbusy[MAX_JOBS];
    int signalled;            /* the workers were told to stop (SIGTERM) */
    struct timespec deadline; /* when stopping: workers still busy then are killed */
    int prospective;          /* apply tasks queued or running (each may make a node) */
    int local_pass;           /* the second pass: local on the best leaves (explore.h) */
    double best_bound;        /* the best verified leaf's cost weighed as bounds are (at_weighed);
                                 -1 before one */
    double best_scaled;       /* the same priced at opts.at_data_scale, or -1 */
    int extra;                /* its evaluations beyond the budget */
    diag_list *d;
} search;

static int find_node(const search *S, int64_t id)
{
    for (int i = 0; i < S->n; i++)
        if (S->nodes[i].id == id) return i;
    return -1;
}


/* A cost weighed for the user's size (explore_opts.at_shrink): the work of the steps' busiest
 * processors at full weight, the rest (messages, waiting) at lambda_0; the cost itself without. */
static double at_weighed(const search *S, double total, double step_work)
{
    double k = S->o->at_shrink;
    if (!(k > 0 && k < 1) || !(step_work >= 0) || step_work > total) return total;
    return step_work + k * (total - step_work);
}

static void set_bound(const search *S, xnode *x)
{
    int whole = (x->tiled || x->level >= IR_SYNCOMM) && !x->redist;
    x->bound = whole ? x->total : x->agg / S->pmax;
    x->prune_at = whole ? at_weighed(S, x->total, x->step_work) : -1;
    x->prune_scaled = whole && x->at_total >= 0 ? at_weighed(S, x->at_total, x->at_step) : -1;
}

static int push_task(search *S, task *t)
{
    if (S->nq == S->capq) {
        int cap = S->capq ? 2 * S->capq : 32;
        task *q = realloc(S->queue, (size_t)cap * sizeof *q);
        if (!q) return -1;
        S->queue = q;
        S->capq = cap;
    }
    S->queue[S->nq++] = *t;
    if (t->kind == T_APPLY) S->prospective++;
    return 0;
}

static void task_free(task *t)
{
    free(t->xf);
    free(t->params);
    msg_free(&t->m);
}

static void progress(search *S)
{
    explore_stats *st = &S->res->stats;
    st->open = 0;
    for (int i = 0; i < S->n; i++) st->open += S->nodes[i].state == X_OPEN;
    if (S->o->progress) S->o->progress(S->o->progress_ctx, st);
}

static void observe(const search *S, explore_event ev, const xnode *x)
{
    if (S->o->observe) S->o->observe(S->o->observe_ctx, ev, x->id, x->bound);
}

/* A node's values are known: count it and open it. */
static void node_evaluated(search *S, int i)
{
    xnode *x = &S->nodes[i];
    set_bound(S, x);
    x->state = X_OPEN;
    S->res->stats.evaluated++;
    if (x->verified != 1) { S->res->stats.unverified++; x->state = X_DONE; }
    else observe(S, EXPLORE_OPENED, x);
    progress(S);
}

/* x's second price: its simulated trace priced with the data at the user's size
 * (opts.at_data_scale); -1 when that fails. */
static void price_at(const search *S, const simjob *job, xnode *x)
{
    if (simjob_cost_at(job, S->o->at_data_scale, &x->at_total, &x->at_step) != 0) x->at_total = x->at_step = -1;
}

/* Registers node `id` reached at `depth` (when new to the search): its stored simulation or a
 * simulation task.  Returns its index or -1. */
static int reach(search *S, int64_t id, int depth)
{
    int i = find_node(S, id);
    if (i >= 0) return i;
    if (S->n == S->cap) {
        int cap = S->cap ? 2 * S->cap : 64;
        xnode *nn = realloc(S->nodes, (size_t)cap * sizeof *nn);
        if (!nn) { diag_add(S->d, NULL, 0, 0, "out of memory"); return -1; }
        S->nodes = nn;
        S->cap = cap;
    }
    i = S->n;
    xnode *x = &S->nodes[i];
    memset(x, 0, sizeof *x);
    x->id = id;
    x->depth = depth;
    x->state = X_EVAL;
    x->local = S->local_pass;
    x->at_total = x->at_step = -1;
    ops_sim j;
    memset(&j, 0, sizeof j);
    j.node = id;
    j.model = S->o->model;
    j.profile = S->o->profile;
    j.nbindings = S->o->nbindings < OPS_MAX_BINDINGS ? S->o->nbindings : OPS_MAX_BINDINGS;
    memcpy(j.bindings, S->o->bindings, (size_t)j.nbindings * sizeof j.bindings[0]);
    int hit = ops_sim_prepare(S->s, &j, S->d);
    if (hit < 0) { ops_sim_free(&j); return -1; }
    S->n++;
    x->level = j.prog->level;
    x->tiled = has_proc_loop(j.prog->body);
    x->redist = xf_redist_pending(j.prog);
    x->signature = j.n.explored;
    if (hit == 1) {
        x->nprocs = j.stored.nprocs;
        x->busy = explore_busy(j.stored.per_proc);
        x->step_work = explore_step_work(j.stored.per_proc);
        x->total = j.stored.total;
        x->agg = j.stored.aggregate_work;
        x->verified = j.stored.verified;
        if (S->o->at_data_scale > 1) {   /* the second price needs the trace: the program run again */
            diag_list quiet;
            diag_list_init(&quiet);
            if (ops_sim_run(&j, xf_cancel_flag(), NULL, NULL, &quiet) == 0) price_at(S, &j.job, x);
            diag_list_free(&quiet);
        }
        S->res->stats.from_store++;
        node_evaluated(S, i);
    } else if (id == S->w.root) {
        /* the root is its own reference: simulate it here */
        int rc = ops_sim_run(&j, xf_cancel_flag(), NULL, NULL, S->d) == 0 && ops_sim_store(S->s, &j, S->d) == 0
                     ? 0 : -1;
        if (rc != 0 && xf_cancelled()) {   /* interrupted: nothing stored, a rerun simulates it */
            x->state = X_DONE;
            ops_sim_free(&j);
            return i;
        }
        if (rc != 0) { ops_sim_free(&j); return -1; }
        x->nprocs = j.job.cost.nprocs;
        for (int k = 0; k < j.job.cost.nprocs; k++) x->busy += j.job.cost.work[k] > 0;
        x->step_work = j.job.cost.step_work;
        if (S->o->at_data_scale > 1) price_at(S, &j.job, x);
        x->total = j.job.cost.total;
        x->agg = j.job.res->aggregate_work;
        x->verified = j.job.verified;
        node_evaluated(S, i);
    } else {
        char *text = ir_print(j.prog);
        task t = {.kind = T_SIM, .node = i};
        if (!text || msg_str(&t.m, "sim") || msg_str(&t.m, text) || msg_str(&t.m, j.n.label) ||
            push_task(S, &t) != 0) {
            free(text);
            task_free(&t);
            ops_sim_free(&j);
            diag_add(S->d, NULL, 0, 0, "out of memory");
            return -1;
        }
        free(text);
    }
    ops_sim_free(&j);
    return i;
}

/* ---- expanding and finishing nodes ---------------------------------------------------------- */

/* With -D procs=P only programs that run on P processors are answers: a leaf simulated on
 * another count (an untiled program keeps its virtual processors) is no leaf. */
static int runs_on_procs(const search *S, const xnode *x)
{
    return !S->procs || x->nprocs == S->procs;
}

/* A node that can lead to no answer: past syn (tiling applies at syn only) and not on P
 * processors.  It is closed without expanding. */
static int off_procs_dead_end(const search *S, const xnode *x)
{
    return S->procs && x->level > IR_SYN && !x->tiled && !runs_on_procs(S, x);
}

static void finish_node(search *S, int i)
{
    xnode *x = &S->nodes[i];
    x->state = X_DONE;
    if (x->local == 2) {          /* a leaf of the search, expanded again by the second pass */
        progress(S);
        return;
    }
    S->res->stats.expanded++;
    if (x->complete && x->signature) {
        diag_list d;
        diag_list_init(&d);
        store_mark_explored(S->s, x->id, x->signature, &d);   /* a failure only costs a rerun */
        diag_list_free(&d);
    }
    if (x->complete && x->children == 0 && !runs_on_procs(S, x)) S->res->stats.off_procs++;
    if (x->complete && x->children == 0 && runs_on_procs(S, x)) {
        S->res->stats.leaves++;
        explore_result *r = S->res;
        explore_leaf *l = realloc(r->leaves, (size_t)(r->nleaves + 1) * sizeof *l);
        if (l) {
            r->leaves = l;
            r->leaves[r->nleaves++] = (explore_leaf){.node = x->id, .cost = x->total, .verified = x->verified,
                                                     .nprocs = x->nprocs, .busy = x->busy, .rank_cost = -1,
                                                     .rank_seconds = -1, .rank_verified = -1};
        }
        if (x->verified == 1 && (r->stats.best < 0 || x->total < r->stats.best)) {
            r->stats.best = x->total;
            r->stats.best_node = x->id;
        }
        double weighed = at_weighed(S, x->total, x->step_work);
        if (l) r->leaves[r->nleaves - 1].weighed = weighed;
        if (x->verified == 1 && (S->best_bound < 0 || weighed < S->best_bound)) S->best_bound = weighed;
        double scaled = x->at_total >= 0 ? at_weighed(S, x->at_total, x->at_step) : -1;
        if (x->verified == 1 && scaled >= 0 && (S->best_scaled < 0 || scaled < S->best_scaled))
            S->best_scaled = scaled;
    }
    progress(S);
}

static int any_open(const search *S)
{
    for (int i = 0; i < S->n; i++)
        if (S->nodes[i].state == X_OPEN && (!S->local_pass || S->nodes[i].local)) return 1;
    return 0;
}

static int budget_left(const search *S)
{
    int evaluating = 0;
    for (int i = 0; i < S->n; i++) evaluating += S->nodes[i].state == X_EVAL;
    return S->o->budget + S->extra - S->res->stats.evaluated - evaluating - S->prospective;
}

/* Queues the candidates of node i: a stored edge with the same transform and arguments gives the
 * child without applying; the others become apply tasks (unless the node was explored with
 * this very candidate set: then they were refused before). */
static int expand(search *S, int i)
{
    ir_program *p = ops_node_program(S->s, S->nodes[i].id, S->d);
    if (!p) return -1;
    char *text = ir_print(p);
    cands cs = {0};
    store_edge *edges = NULL;
    int ne = 0, rc = -1;
    S->nodes[i].state = X_EXPANDING;
    observe(S, EXPLORE_EXPANDED, &S->nodes[i]);
    if (!text || candidates(S->o, p, S->local_pass, &cs) != 0) { diag_add(S->d, NULL, 0, 0, "out of memory"); goto out; }
    if (xf_cancelled()) {          /* the candidates may be cut short: the node stays open */
        S->nodes[i].state = X_OPEN;
        rc = 0;
        goto done;
    }
    if (store_children(S->s, S->nodes[i].id, &edges, &ne, S->d) != 0) goto out;
    int64_t sig = signature_of(&cs);
    int known_refusals = S->nodes[i].signature == sig && S->nodes[i].local != 2;
    if (S->nodes[i].local != 2) S->nodes[i].signature = sig;
    S->nodes[i].complete = 1;
    for (int k = 0; k < cs.n; k++) {
        char *params = join_args(&cs.c[k]);
        if (!params) goto out;
        int64_t child = 0;
        for (int e = 0; e < ne && !child; e++)
            if (!strcmp(edges[e].transform, cs.c[k].xf) && !strcmp(edges[e].params, params)) child = edges[e].child;
        if (child) {
            free(params);
            S->nodes[i].children += !cand_keeps_leaf(cs.c[k].xf);
            if (find_node(S, child) >= 0) continue;
            if (budget_left(S) <= 0) { S->nodes[i].complete = 0; S->res->stats.budget_hit = 1; continue; }
            if (reach(S, child, S->nodes[i].depth + 1) < 0) goto out;
            continue;
        }
        if (known_refusals) { free(params); continue; }
        if (budget_left(S) <= 0) { free(params); S->nodes[i].complete = 0; S->res->stats.budget_hit = 1; continue; }
        task t = {.kind = T_APPLY, .node = i, .xf = strdup(cs.c[k].xf), .params = params};
        int bad = !t.xf || msg_str(&t.m, "apply") || msg_str(&t.m, text) || msg_str(&t.m, cs.c[k].xf);
        for (int a = 0; a < cs.c[k].nargs && !bad; a++) bad = msg_str(&t.m, cs.c[k].args[a]);
        if (bad || push_task(S, &t) != 0) { task_free(&t); diag_add(S->d, NULL, 0, 0, "out of memory"); goto out; }
        S->nodes[i].inflight++;
    }
    rc = 0;
out:
    if (rc == 0 && S->nodes[i].inflight == 0) finish_node(S, i);
done:
    store_edges_free(edges, ne);
    cands_free(&cs);
    free(text);
    ir_program_free(p);
    return rc;
}

/* The open node to expand next: lowest bound, then deepest, then oldest.  Nodes whose bound
 * exceeds the best leaf are closed as pruned; nodes at the depth limit and dead ends off P
 * processors are closed. */
static int pick(search *S)
{
    int best = -1;
    for (int i = 0; i < S->n; i++) {
        xnode *x = &S->nodes[i];
        if (x->state != X_OPEN || (S->local_pass && !x->local)) continue;
        double slack = S->o->prune_slack > 1 ? S->o->prune_slack : 1;
        /* beyond the best leaf's cost, and (a whole program) beyond it weighed for the user's
         * size: a node whose messages make it dear here, or whose loops local has yet to
         * reorder, is kept for either */
        double cheapest = S->res->stats.best, lim = slack * (1 + 1e-12);
        int dear = cheapest >= 0 && x->bound > cheapest * lim &&
                   (x->prune_at < 0 || (S->best_bound >= 0 && x->prune_at > S->best_bound * lim)) &&
                   (x->prune_scaled < 0 || S->best_scaled < 0 || x->prune_scaled > S->best_scaled * lim);
        if (dear) {
            x->state = X_DONE;
            S->res->stats.pruned++;
            observe(S, EXPLORE_PRUNED, x);
            continue;
        }
        int dead_end = off_procs_dead_end(S, x);
        if ((x->depth >= S->o->depth && !x->local) || dead_end) {
            x->state = X_DONE;
            S->res->stats.off_procs += dead_end;
            observe(S, EXPLORE_CLOSED, x);
            continue;
        }
        if (best < 0 || x->bound < S->nodes[best].bound ||
            (x->bound == S->nodes[best].bound && x->depth > S->nodes[best].depth))
            best = i;
    }
    return best;
}

/* ---- results -------------------------------------------------------------------------------- */

/* Stores the simulation fields f[0..SIM_NFIELDS) of node i (unless the store already has that
 * simulation: then its values) and counts the node evaluated. */
static int take_sim(search *S, int i, char **f)
{
    xnode *x = &S->nodes[i];
    if (strcmp(f[0], "ok")) {
        diag_add(S->d, NULL, 0, 0, "simulating node %lld: %s", (long long)x->id, f[1]);
        return -1;
    }
    char *mtext = ops_machine_key_text(&S->o->profile);
    if (!mtext) { diag_add(S->d, NULL, 0, 0, "out of memory"); return -1; }
    store_sim row = {.node = x->id, .machine = S->o->profile.name, .machine_text = mtext,
                     .model = S->o->model ? S->o->model : "polyapm", .params = f[1],
                     .total = strtod(f[2], NULL), .seconds = strtod(f[3], NULL),
                     .aggregate_work = strtod(f[4], NULL), .verified = atoi(f[5]),
                     .checksum = strtoull(f[6], NULL, 16), .nprocs = atoi(f[7]),
                     .nsteps = atoi(f[8]), .violations = strtoll(f[9], NULL, 10),
                     .per_proc = f[10], .trace = f[11], .report_text = f[12],
                     .report_json = f[13], .sim_seconds = strtod(f[14], NULL)};
    store_sim old;
    int found = store_sim_find(S->s, &row, &old, S->d);
    int rc = found < 0 ? -1 : 0;
    if (found == 1) {            /* an existing node reached again (the graph is a DAG) */
        row.total = old.total;
        row.aggregate_work = old.aggregate_work;
        row.verified = old.verified;
        store_sim_clear(&old);
        S->res->stats.from_store++;
    } else if (found == 0) {
        rc = store_sim_put(S->s, &row, NULL, S->d);
    }
    free(mtext);
    if (rc != 0) return -1;
    x = &S->nodes[i];
    x->level = atoi(f[15]);
    x->tiled = atoi(f[16]);
    x->redist = atoi(f[17]);
    x->at_total = strtod(f[18], NULL);
    x->at_step = strtod(f[19], NULL);
    x->nprocs = atoi(f[7]);
    x->busy = explore_busy(f[10]);
    x->step_work = explore_step_work(f[10]);
    x->total = row.total;
    x->agg = row.aggregate_work;
    x->verified = row.verified;
    node_evaluated(S, i);
    return 0;
}

/* A new node made by an apply result: registered with the result's simulation. */
static int arrive(search *S, int64_t id, int depth, char **f)
{
    if (find_node(S, id) >= 0) return 0;
    if (S->n == S->cap) {
        int cap = S->cap ? 2 * S->cap : 64;
        xnode *nn = realloc(S->nodes, (size_t)cap * sizeof *nn);
        if (!nn) { diag_add(S->d, NULL, 0, 0, "out of memory"); return -1; }
        S->nodes = nn;
        S->cap = cap;
    }
    int i = S->n++;
    memset(&S->nodes[i], 0, sizeof S->nodes[i]);
    S->nodes[i].id = id;
    S->nodes[i].depth = depth;
    S->nodes[i].state = X_EVAL;
    S->nodes[i].local = S->local_pass;
    store_node n;
    memset(&n, 0, sizeof n);
    if (store_node_get(S->s, id, &n, S->d) != 0) return -1;
    S->nodes[i].signature = n.explored;
    store_node_clear(&n);
    return take_sim(S, i, f);
}

/* A task that will not be done (the search stops, or its worker was interrupted): an apply
 * leaves its parent incomplete (not marked explored, not a leaf); a simulation leaves its node
 * unevaluated.  Nothing is stored for it; a rerun does it.  The task itself is the caller's. */
static void drop_task(search *S, const task *t)
{
    xnode *x = &S->nodes[t->node];
    if (t->kind == T_APPLY) {
        S->prospective--;
        x->inflight--;
        x->complete = 0;
        if (x->inflight == 0) x->state = X_DONE;
    } else {
        x->state = X_DONE;
    }
}

static int is_cancelled(const msg *r, int first)
{
    return r->n > first && !strcmp(r->s[first], "cancelled");
}

static int on_result(search *S, task *t, msg *r)
{
    if (is_cancelled(r, 0) || (t->kind == T_APPLY && is_cancelled(r, 2))) {
        xf_cancel();              /* a worker was interrupted: the whole search stops */
        drop_task(S, t);
        return 0;
    }
    if (t->kind == T_APPLY) {
        S->prospective--;
        S->nodes[t->node].inflight--;
        int rc = 0;
        if (r->n == 2 + SIM_NFIELDS && !strcmp(r->s[0], "ok")) {
            int64_t child;
            int created;
            rc = ops_add_text(S->s, S->nodes[t->node].id, r->s[1], r->len[1], t->xf, t->params, NULL, &child,
                              &created, S->d);
            if (rc == 0) {
                S->res->stats.applied++;
                S->nodes[t->node].children += !cand_keeps_leaf(t->xf);
                rc = arrive(S, child, S->nodes[t->node].depth + 1, r->s + 2);
            }
        } else {
            S->res->stats.refused++;
        }
        if (rc == 0 && S->nodes[t->node].inflight == 0) finish_node(S, t->node);
        return rc;
    }
    if (r->n != SIM_NFIELDS) {
        diag_add(S->d, NULL, 0, 0, "simulating node %lld: malformed result", (long long)S->nodes[t->node].id);
        return -1;
    }
    return take_sim(S, t->node, r->s);
}

/* ---- workers -------------------------------------------------------------------------------- */

static int start_workers(search *S)
{
    if (S->jobs <= 1) return 0;
    sigset_t stop_signals, old;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    sigprocmask(SIG_BLOCK, &stop_signals, &old);   /* a worker unblocks them once it handles them */
    int rc = 0;
    for (int k = 0; k < S->jobs && rc == 0; k++) {
        int a[2], b[2];
        if (pipe(a) != 0) { rc = -1; break; }
        if (pipe(b) != 0) { close(a[0]); close(a[1]); rc = -1; break; }
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0) { close(a[0]); close(a[1]); close(b[0]); close(b[1]); rc = -1; break; }
        if (pid == 0) {
            close(a[1]);
            close(b[0]);
            for (int j = 0; j < k; j++) { close(S->to[j]); close(S->from[j]); }
            worker_loop(&S->w, a[0], b[1]);
        }
        close(a[0]);
        close(b[1]);
        S->pid[k] = pid;
        S->to[k] = a[1];
        S->from[k] = b[0];
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    return rc;
}

static void stop_workers(search *S)
{
    if (S->jobs <= 1) return;
    for (int k = 0; k < S->jobs; k++) {
        if (S->pid[k] <= 0) continue;
        close(S->to[k]);
        close(S->from[k]);
        if (S->isbusy[k]) kill(S->pid[k], SIGKILL);   /* only on an error: its task is lost anyway */
    }
    for (int k = 0; k < S->jobs; k++)
        if (S->pid[k] > 0) {
            while (waitpid(S->pid[k], NULL, 0) < 0 && errno == EINTR) {}
            S->pid[k] = 0;
        }
}

static int nbusy(const search *S)
{
    int n = 0;
    for (int k = 0; k < S->jobs; k++) n += S->isbusy[k];
    return n;
}

/* Hands queued tasks to idle workers (or, with one job, does one here). */
static int dispatch(search *S, int stopping)
{
    while (S->headq < S->nq) {
        task *t = &S->queue[S->headq];
        if (stopping) {               /* nothing new once stopping */
            drop_task(S, t);
            task_free(t);
            S->headq++;
            continue;
        }
        if (S->jobs <= 1) {
            task mine = *t;
            S->headq++;
            msg r;
            do_task(&S->w, &mine.m, &r);
            int rc = on_result(S, &mine, &r);
            msg_free(&r);
            task_free(&mine);
            return rc;
        }
        int k = 0;
        while (k < S->jobs && S->isbusy[k]) k++;
        if (k == S->jobs) return 0;
        if (msg_send(S->to[k], &t->m) != 0) { diag_add(S->d, NULL, 0, 0, "a worker died"); return -1; }
        S->busy[k] = *t;
        S->isbusy[k] = 1;
        S->headq++;
    }
    return 0;
}

/* Kills the workers still busy (SIGKILL): a worker writes nothing, so only its task is lost. */
static void kill_busy(search *S)
{
    for (int k = 0; k < S->jobs; k++) {
        if (!S->isbusy[k]) continue;
        kill(S->pid[k], SIGKILL);
        drop_task(S, &S->busy[k]);
        task_free(&S->busy[k]);
        S->isbusy[k] = 0;
    }
}

/* Milliseconds until `t` (0 when past). */
static int ms_until(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double ms = 1e3 * (double)(t->tv_sec - now.tv_sec) + 1e-6 * (double)(t->tv_nsec - now.tv_nsec);
    return ms <= 0 ? 0 : (int)ms + 1;
}

/* Waits for one worker's result and handles it.  0, or -1 on error; EINTR returns 0.  Once the
 * search stops, the busy workers are told to stop (SIGTERM: their task ends "cancelled") and
 * those still busy after STOP_GRACE_MS are killed. */
static int collect(search *S, int stopping)
{
    if (stopping && !S->signalled) {
        S->signalled = 1;
        clock_gettime(CLOCK_MONOTONIC, &S->deadline);
        S->deadline.tv_nsec += (long)STOP_GRACE_MS * 1000000L;
        S->deadline.tv_sec += S->deadline.tv_nsec / 1000000000L;
        S->deadline.tv_nsec %= 1000000000L;
        for (int k = 0; k < S->jobs; k++)
            if (S->isbusy[k]) kill(S->pid[k], SIGTERM);
    }
    struct pollfd pf[MAX_JOBS];
    int map[MAX_JOBS], n = 0;
    for (int k = 0; k < S->jobs; k++)
        if (S->isbusy[k]) { pf[n] = (struct pollfd){.fd = S->from[k], .events = POLLIN}; map[n++] = k; }
    if (!n) return 0;
    int timeout = stopping ? ms_until(&S->deadline) : -1;
    int rc = timeout == 0 ? 0 : poll(pf, (nfds_t)n, timeout);
    if (rc < 0) return errno == EINTR ? 0 : -1;
    if (rc == 0) { kill_busy(S); return 0; }
    for (int i = 0; i < n; i++) {
        if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        int k = map[i];
        msg r;
        task t = S->busy[k];
        S->isbusy[k] = 0;
        if (msg_recv(S->from[k], &r) != 0) {
            if (!stopping && !xf_cancelled()) { task_free(&t); diag_add(S->d, NULL, 0, 0, "a worker died"); return -1; }
            drop_task(S, &t);    /* killed by the same signal as the search (e.g. SIGTERM to the group) */
            task_free(&t);
            continue;
        }
        int e = on_result(S, &t, &r);
        msg_free(&r);
        task_free(&t);
        if (e != 0) return -1;
    }
    return 0;
}

static int leaf_cmp(const void *a, const void *b)
{
    const explore_leaf *x = a, *y = b;
    if ((x->verified == 1) != (y->verified == 1)) return x->verified == 1 ? -1 : 1;
    if (x->weighed != y->weighed) return x->weighed < y->weighed ? -1 : 1;
    if (x->cost != y->cost) return x->cost < y->cost ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

static double cpu_seconds(int who)
{
    struct rusage ru;
    if (getrusage(who, &ru) != 0) return 0;
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
           1e-6 * (double)ru.ru_stime.tv_usec;
}

/* Expands the open nodes best first (of the second pass's alone in it) until none is left, the
 * budget is spent (in the second pass its nodes are still expanded: they are leaves when nothing
 * applies to them, and expand queues nothing beyond the budget) or a stop is asked for.  0, or -1
 * on an error. */
static int search_loop(search *S)
{
    for (;;) {
        int stopping = xf_cancelled();
        if (stopping) S->res->stats.interrupted = 1;
        /* open more nodes while workers would otherwise idle */
        while (!stopping && S->headq == S->nq && nbusy(S) < S->jobs) {
            if (budget_left(S) <= 0 && !S->local_pass) {
                S->res->stats.budget_hit |= any_open(S);
                break;
            }
            int i = pick(S);
            if (i < 0) break;
            if (expand(S, i) != 0) return -1;
            stopping = xf_cancelled();
        }
        if (dispatch(S, stopping) != 0) return -1;
        if (S->jobs > 1 && nbusy(S)) {
            if (collect(S, stopping || xf_cancelled()) != 0) return -1;
        } else if (S->headq == S->nq && (stopping || (budget_left(S) <= 0 && !S->local_pass) || !any_open(S))) {
            return 0;
        }
    }
}

/* The second pass's leaves: the LOCAL_PER_SHAPE best of each of the LOCAL_SHAPES best shapes of
 * derivation, the best of each tiling kind first (leaves of one shape differ in their tilings: a
 * cyclic one's rows and a block-cyclic one's blocks give local other reuse, and local can change
 * a blocked one's loops where it cannot a block-cyclic one's: bicg); LOCAL_CANDS evaluations
 * each. */
enum { LOCAL_SHAPES = 3, LOCAL_PER_SHAPE = 3, LOCAL_CANDS = 3 };

/* The index of leaf `node`'s shape of derivation (explore_leaf_shape; with `tiling`, its tiling
 * kind too) among list[0 .. *n), added when new and there is room (max when there is not); -1 on
 * an error. */
static int shape_slot(search *S, int64_t node, int tiling, char **list, int *n, int max)
{
    char *shape = explore_leaf_shape(S->s, S->o->start, node, tiling, S->d);
    if (!shape) return -1;
    for (int k = 0; k < *n; k++)
        if (!strcmp(list[k], shape)) { free(shape); return k; }
    if (*n == max) { free(shape); return max; }
    list[*n] = shape;
    return (*n)++;
}

/* The second pass (explore.h): local's candidates (cand_keeps_leaf) tried on the leaves above, in
 * order of their cost at the user's size when ranked there (else at the search's), beyond the
 * budget; their children are leaves beside them.  0, or -1 on an error. */
static int second_pass(search *S)
{
    explore_result *r = S->res;
    if (!r->nleaves) return 0;
    explore_leaf *l = malloc((size_t)r->nleaves * sizeof *l);
    if (!l) { diag_add(S->d, NULL, 0, 0, "out of memory"); return -1; }
    memcpy(l, r->leaves, (size_t)r->nleaves * sizeof *l);
    if (!r->at.n) qsort(l, (size_t)r->nleaves, sizeof *l, leaf_cmp);   /* else ranked at the user's size */
    S->local_pass = 1;
    enum { KINDS = LOCAL_SHAPES * LOCAL_PER_SHAPE };
    char *shapes[LOCAL_SHAPES], *kinds[KINDS];
    int nshapes = 0, nkinds = 0, taken[LOCAL_SHAPES] = {0}, rc = 0;
    for (int round = 0; round < 2; round++)   /* the best of each tiling kind, then the next best */
        for (int j = 0; j < r->nleaves && rc == 0; j++) {
            int i = l[j].verified == 1 ? find_node(S, l[j].node) : -1;
            if (i < 0 || S->nodes[i].level != IR_SYNDM || S->nodes[i].local == 2) continue;
            int k = shape_slot(S, l[j].node, 0, shapes, &nshapes, LOCAL_SHAPES), seen = nkinds, q = 0;
            if (k >= 0 && round == 0) q = shape_slot(S, l[j].node, 1, kinds, &nkinds, KINDS);
            int fresh = round == 1 || q >= seen;   /* its tiling kind not among the earlier leaves' */
            if (k < 0 || q < 0) { rc = -1; break; }
            if (k == LOCAL_SHAPES || !fresh || taken[k] >= LOCAL_PER_SHAPE) continue;
            taken[k]++;
            S->nodes[i].local = 2;
            S->extra += LOCAL_CANDS;
            rc = expand(S, i);
        }
    for (int k = 0; k < nshapes; k++) free(shapes[k]);
    for (int k = 0; k < nkinds; k++) free(kinds[k]);
    free(l);
    return rc == 0 ? search_loop(S) : -1;
}

int explore_run(store *s, const explore_opts *o_in, explore_result *out, diag_list *d)
{
    memset(out, 0, sizeof *out);
    double cpu0 = cpu_seconds(RUSAGE_SELF), wcpu0 = cpu_seconds(RUSAGE_CHILDREN);
    out->stats.best = -1;
    explore_opts o = *o_in;
    if (o.depth <= 0) o.depth = DEFAULT_DEPTH;
    if (o.budget <= 0) o.budget = DEFAULT_BUDGET;
    if (o.jobs <= 0) o.jobs = 1;
    if (o.jobs > MAX_JOBS) o.jobs = MAX_JOBS;
    search S;
    memset(&S, 0, sizeof S);
    S.s = s;
    S.o = &o;
    S.res = out;
    S.d = d;
    S.jobs = o.jobs;
    S.best_bound = S.best_scaled = -1;
    double data_scale = 0;
    o.at_shrink = out->at.shrink = o.nat ? explore_at_shrink(s, &o, &data_scale, d) : 0;
    o.at_data_scale = data_scale > 1 ? data_scale : 0;
    /* P_max: -D procs, else the largest candidate of any transform's procs */
    const ir_binding *bp = explore_opts_binding(&o, "procs");
    S.pmax = bp && bp->value > 0 ? (double)bp->value : 1;
    S.procs = bp && bp->value > 0 ? (int)bp->value : 0;
    for (int i = 0; !bp && i < xf_count(); i++)
        for (int k = 0; k < xf_at(i)->nparams; k++) {
            const xf_param *q = &xf_at(i)->params[k];
            if (strcmp(q->name, "procs") || !q->candidates) continue;
            for (const char *c = q->candidates; *c;) {
                double v = strtod(c, NULL);
                if (v > S.pmax) S.pmax = v;
                const char *bar = strchr(c, '|');
                c = bar ? bar + 1 : c + strlen(c);
            }
        }
    store_node rootn;
    memset(&rootn, 0, sizeof rootn);
    ir_program *ref = NULL;
    int rc = -1;
    if (store_reference(s, o.start, &S.w.root, d) != 0 || store_node_get(s, S.w.root, &rootn, d) != 0 ||
        !(ref = ops_node_program(s, S.w.root, d)))
        goto out;
    S.w.o = &o;
    S.w.ref = ref;
    S.w.root_label = rootn.label;
    if (start_workers(&S) != 0) { diag_add(d, NULL, 0, 0, "cannot start workers: %s", strerror(errno)); goto out; }
    if (reach(&S, o.start, 0) < 0) goto out;
    int failed = search_loop(&S) != 0;
    if (!failed && !xf_cancelled() && o.nat) {   /* the second pass works on the best at the user's size */
        if (out->nleaves > 1) qsort(out->leaves, (size_t)out->nleaves, sizeof *out->leaves, leaf_cmp);
        failed = explore_rank_at(s, &o, out, d) != 0;
    }
    int first_local = out->nleaves;
    if (!failed && !xf_cancelled()) failed = second_pass(&S) != 0;
    if (!failed && !xf_cancelled()) explore_rank_more(s, &o, first_local, out);
    /* what is in flight when an error ends the search: told to stop, then killed */
    if (failed && S.jobs > 1) {
        xf_cancel();
        while (nbusy(&S)) if (collect(&S, 1) != 0) kill_busy(&S);
    }
    if (xf_cancelled()) out->stats.interrupted = 1;
    rc = failed ? -1 : 0;
out:
    stop_workers(&S);
    out->stats.search_cpu = cpu_seconds(RUSAGE_SELF) - cpu0;
    out->stats.worker_cpu = cpu_seconds(RUSAGE_CHILDREN) - wcpu0;
    for (int i = S.headq; i < S.nq; i++) task_free(&S.queue[i]);
    for (int k = 0; k < S.jobs && k < MAX_JOBS; k++) if (S.isbusy[k]) task_free(&S.busy[k]);
    free(S.queue);
    progress(&S);
    free(S.nodes);
    ir_program_free(ref);
    store_node_clear(&rootn);
    int ranked = 0;   /* the leaves ranked at the user's size come first, in that order */
    while (ranked < out->nleaves && out->leaves[ranked].rank_verified != -1) ranked++;
    if (out->nleaves - ranked > 1)
        qsort(out->leaves + ranked, (size_t)(out->nleaves - ranked), sizeof *out->leaves, leaf_cmp);
    xf_cancel_clear();            /* the request is answered (after the last progress call, which
                                     may make one): the next search starts afresh */
    return rc;
}

void explore_interrupt(void)
{
    xf_cancel();
}

void explore_result_free(explore_result *r)
{
    free(r->leaves);
    xf_serial_free(r->serial, r->nserial);
    memset(r, 0, sizeof *r);
}
