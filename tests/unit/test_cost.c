/*
 * test_cost.c — the cost models and machine profiles (cost.h) on hand-built traces, with
 * expected costs computed by hand from the formulas (the thesis's Fig. 3.5 and its figures).
 */
#include <stdlib.h>
#include <string.h>

#include "cost.h"
#include "t.h"

#define NORMS 1.2046961
#define NORMR 3.3831080
#define BSL 298.8954664

/* A trace of `ns` steps and `np` processors, every processor `w` ticks per step. */
static void trace_init(sim_trace *t, int ns, int np, double w)
{
    memset(t, 0, sizeof *t);
    t->nsteps = ns;
    t->nprocs = np;
    t->step_time = calloc((size_t)ns, sizeof *t->step_time);
    t->step_procs = calloc((size_t)ns, sizeof *t->step_procs);
    t->work = calloc((size_t)ns * (size_t)np, sizeof *t->work);
    t->msgs = calloc((size_t)ns, sizeof *t->msgs);
    t->nmsgs = calloc((size_t)ns, sizeof *t->nmsgs);
    for (int s = 0; s < ns; s++) {
        t->step_time[s] = s + 1;
        t->step_procs[s] = np;
        for (int i = 0; i < np; i++) t->work[(size_t)s * (size_t)np + (size_t)i] = w;
    }
}

static void trace_add(sim_trace *t, int s, int src, int dst, int64_t count, double words)
{
    t->msgs[s] = realloc(t->msgs[s], (size_t)(t->nmsgs[s] + 1) * sizeof **t->msgs);
    t->msgs[s][t->nmsgs[s]++] = (sim_msgs){ src, dst, count, words, 1 };
}

static void trace_free(sim_trace *t)
{
    for (int s = 0; s < t->nsteps; s++) free(t->msgs[s]);
    free(t->msgs); free(t->nmsgs); free(t->work); free(t->step_time); free(t->step_procs);
}

/* The FD SynCommAPM trace: 2×2 tiles of 128×128, each processor sends 127 words to each of its
 * two neighbours every step (one message per word), 21 steps. */
static void trace_fd_syncomm(sim_trace *t)
{
    trace_init(t, 21, 4, 342534);
    static const int nb[4][2] = { { 1, 2 }, { 0, 3 }, { 0, 3 }, { 1, 2 } };
    for (int s = 0; s < 21; s++)
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 2; k++) trace_add(t, s, i, nb[i][k], 127, 127.0);
}

static void test_barrier(void)
{
    const cost_profile *p = cost_profile_builtin("scali2004");
    T_CHECK("builtin scali2004", p != NULL, "missing");
    if (!p) return;
    T_NEAR("barrier 1", cost_barrier(p, 1), 0, 0);
    T_NEAR("barrier 0", cost_barrier(p, 0), 0, 0);
    T_NEAR("barrier 4", cost_barrier(p, 4), 3 * BSL, 1e-9);
    T_NEAR("barrier 65536", cost_barrier(p, 65536), 65535 * BSL, 1e-6);
    cost_profile q = *p;
    q.barrier_const = 10;
    T_NEAR("barrier const", cost_barrier(&q, 2), 10 + BSL, 1e-9);
    T_NEAR("barrier const P=1", cost_barrier(&q, 1), 0, 0);
    T_CHECK("builtin unknown", cost_profile_builtin("nope") == NULL, "found");
    const char *const *names = cost_profile_builtin_names();
    T_EQ_STR("builtin names", names[0], "scali2004");
}

static void test_polyapm(void)
{
    const cost_profile *p = cost_profile_builtin("scali2004");
    sim_trace t;
    trace_fd_syncomm(&t);
    cost_summary s;
    T_EQ_INT("polyapm evaluate", cost_evaluate("polyapm", &t, p, &s), 0);
    double step = 342534 + 254 * (NORMS + NORMR) + 3 * BSL;
    T_NEAR("polyapm fd syncomm step", s.step_cost[0], step, 1e-6);
    T_NEAR("polyapm fd syncomm total", s.total, 7236515.76, 0.01);
    T_NEAR("polyapm fd syncomm total (figure)", s.total, 7236516, 1.0);
    T_NEAR("polyapm work/proc", s.work[2], 7193214, 1e-6);
    T_NEAR("polyapm comm/proc", s.comm[3], 43301.76, 0.01);
    T_EQ_INT("polyapm sends/proc (coalesced partners)", s.sends[0], 42);
    T_EQ_INT("polyapm recvs/proc", s.recvs[1], 42);
    T_NEAR("polyapm aggregate", s.aggregate_work, 4.0 * 7193214, 1e-3);
    T_NEAR("polyapm seconds", s.seconds, s.total * 8.197316e-8, 1e-9);
    T_EQ_INT("polyapm nsteps", s.nsteps, 21);
    cost_summary_free(&s);

    /* Not coalesced: startups per message.  With m_s = m_r = 0 the thesis numbers do not move;
     * with m_s = 2, m_r = 5 each step adds 254·2 + 254·5 (per message) instead of 2·2 + 2·5. */
    cost_profile q = *p;
    q.mstartup_s = 2;
    q.mstartup_r = 5;
    cost_evaluate("polyapm", &t, &q, &s);
    T_NEAR("polyapm coalesce startups", s.step_cost[5], step + 2 * 2 + 2 * 5, 1e-6);
    T_EQ_INT("polyapm coalesce sends", s.sends[0], 42);
    cost_summary_free(&s);
    q.coalesce = 0;
    cost_evaluate("polyapm", &t, &q, &s);
    T_NEAR("polyapm per-message startups", s.step_cost[5], step + 254 * 2 + 254 * 5, 1e-6);
    T_EQ_INT("polyapm per-message sends", s.sends[0], 21 * 254);
    cost_summary_free(&s);
    trace_free(&t);

    /* Unbalanced step: max over processors of w + c, not max w + max c. */
    trace_init(&t, 1, 3, 0);
    t.work[0] = 100; t.work[1] = 10; t.work[2] = 50;
    trace_add(&t, 0, 1, 2, 1, 40.0);          /* p1 sends 40 words to p2 */
    cost_evaluate("polyapm", &t, p, &s);
    double c1 = 40 * NORMS + 2 * BSL, c2 = 40 * NORMR + 2 * BSL, c0 = 2 * BSL;
    double want = 100 + c0;
    if (10 + c1 > want) want = 10 + c1;
    if (50 + c2 > want) want = 50 + c2;
    T_NEAR("polyapm max(w+c)", s.total, want, 1e-6);
    T_NEAR("polyapm comm p2", s.comm[2], c2, 1e-9);
    cost_summary_free(&s);

    /* bsp: max w + g·max h + l(P). */
    cost_profile b = *p;
    b.g = 3;
    cost_evaluate("bsp", &t, &b, &s);
    T_NEAR("bsp superstep", s.total, 100 + 3 * 40 + 2 * BSL, 1e-6);
    T_EQ_STR("bsp model name", s.model, "bsp");
    cost_summary_free(&s);

    /* hockney: c = max(Σ sends (ts + tw m), Σ recvs) + b. */
    b.ts = 1000;
    b.tw = 2;
    b.coalesce = 1;
    cost_evaluate("hockney", &t, &b, &s);
    want = 100 + 2 * BSL;
    if (10 + 1000 + 80 + 2 * BSL > want) want = 10 + 1000 + 80 + 2 * BSL;
    if (50 + 1000 + 80 + 2 * BSL > want) want = 50 + 1000 + 80 + 2 * BSL;
    T_NEAR("hockney", s.total, want, 1e-6);
    cost_summary_free(&s);
    trace_free(&t);

    /* hockney without coalescing: count·ts. */
    trace_init(&t, 1, 2, 0);
    trace_add(&t, 0, 0, 1, 3, 3.0);
    trace_add(&t, 0, 1, 0, 1, 1.0);
    t.step_procs[0] = 2;
    b.coalesce = 0;
    cost_evaluate("hockney", &t, &b, &s);
    T_NEAR("hockney per message", s.total, 3 * 1000 + 2 * 3 + BSL, 1e-6);
    cost_summary_free(&s);
    trace_free(&t);

    T_EQ_INT("unknown model", cost_evaluate("nope", &t, p, &s), -1);
    const char *const *mn = cost_model_names();
    T_CHECK("model names", mn[0] && mn[1] && mn[2] && mn[3] && !mn[4], "expected 4 models");
}

/* SynAPM: the barrier over all virtual processors dominates (untiled FD, n = 256). */
static void test_syn_untiled(void)
{
    const cost_profile *p = cost_profile_builtin("scali2004");
    sim_trace t;
    trace_init(&t, 21, 65536, 7);
    for (int s = 0; s < 21; s++)
        for (int i = 0; i < 65536; i++) {
            int x = i / 256, y = i % 256;
            if (x > 0 && y > 0 && x < 255 && y < 255) t.work[(size_t)s * 65536 + (size_t)i] = 13;
        }
    cost_summary s;
    cost_evaluate("polyapm", &t, p, &s);
    T_NEAR("syn untiled", s.total / 1e8, 4.113507, 1e-6);
    T_NEAR("syn untiled aggregate", s.aggregate_work, 17762808, 1e-6);
    cost_summary_free(&s);
    trace_free(&t);

    /* Tiled, 4 processors: 211462 ticks per processor per step. */
    trace_init(&t, 21, 4, 211462);
    cost_evaluate("polyapm", &t, p, &s);
    T_NEAR("syn tiled 4", s.total, 4459533, 1.0);
    cost_summary_free(&s);
    trace_free(&t);
}

static void test_profiles(void)
{
    const cost_profile *p = cost_profile_builtin("scali2004");
    char *txt = cost_profile_format(p);
    T_CHECK("format", txt && strstr(txt, "normsent 1.2046961\n") && strstr(txt, "tick_seconds 8.197316e-08\n")
            && strstr(txt, "name scali2004\n") && strstr(txt, "coalesce 1\n"), "got %s", txt ? txt : "(null)");
    cost_profile q;
    diag_list d;
    diag_list_init(&d);
    T_EQ_INT("parse formatted", cost_profile_parse("x.prof", txt, &q, &d), 0);
    T_CHECK("round trip", memcmp(&q, p, sizeof q) == 0 || (strcmp(q.name, p->name) == 0 &&
            q.normsent == p->normsent && q.normrcvd == p->normrcvd && q.tick_seconds ==
            p->tick_seconds && q.barrier_slope == p->barrier_slope && q.coalesce == p->coalesce &&
            q.ts == p->ts && q.tw == p->tw && q.g == p->g), "differs");
    char *txt2 = cost_profile_format(&q);
    T_EQ_STR("format idempotent", txt2, txt);
    free(txt);
    free(txt2);
    /* every key set to a number printed at full length: a text well beyond 1 KB (a calibrated
     * profile is over 1 KB: it used to be written past a buffer of that size) */
    {
        static const char *const keys[] = { "tick_seconds", "mstartup_s", "mstartup_r", "normsent", "normrcvd",
            "barrier_slope", "barrier_const", "ts", "tw", "g", "guard_price", "unit_price", "strided_price",
            "aliased_price", "accum_price",
            "unit_cached_price", "cache_bytes", "stream_price", "stream_cached_price", "restart_price",
            "cache1_bytes", "cache2_bytes", "stream1_price", "stream2_price", "strided1_price", "strided2_price",
            "strided_cached_price", "searched_price", "latency1", "latency2", "latency_cached", "latency_mem",
            "loggp_L", "loggp_o", "loggp_G", "data_scale", NULL };
        cost_profile big = *p;
        for (int i = 0; keys[i]; i++) cost_profile_set(&big, keys[i], 1234.5678901234567 + i);
        char *bt = cost_profile_format(&big);
        cost_profile back;
        T_CHECK("format: a long profile's text, whole", bt && strlen(bt) > 1024 && strstr(bt, "data_scale 1269.56789012345"),
                "%zu", bt ? strlen(bt) : 0);
        T_EQ_INT("format: ... parses", cost_profile_parse("big.prof", bt, &back, &d), 0);
        T_NEAR("format: ... its last key round-trips", back.data_scale, 1234.5678901234567 + 35, 0);
        free(bt);
    }

    const char *src = "# measured here\nname local\n  normsent 2.5  # per word\n\ncoalesce 0\n";
    T_EQ_INT("parse comments", cost_profile_parse("l.prof", src, &q, &d), 0);
    T_EQ_STR("parse name", q.name, "local");
    T_NEAR("parse normsent", q.normsent, 2.5, 0);
    T_EQ_INT("parse coalesce", q.coalesce, 0);
    T_NEAR("parse default", q.normrcvd, NORMR, 0);
    T_EQ_INT("no diags", diag_count(&d), 0);

    T_EQ_INT("parse no name", cost_profile_parse("dir/fast.prof", "g 3\n", &q, &d), 0);
    T_EQ_STR("name from file", q.name, "fast");

    const char *bad = "normsent 1\nbogus 3\nnormrcvd x\ntw\n";
    T_EQ_INT("bad lines", cost_profile_parse("bad.prof", bad, &q, &d), -1);
    T_EQ_INT("bad lines count", diag_count(&d), 3);
    if (d.n >= 3) {
        T_EQ_STR("bad key file", d.items[0].file, "bad.prof");
        T_EQ_INT("bad key line", d.items[0].line, 2);
        T_CHECK("bad key msg", strstr(d.items[0].msg, "bogus") != NULL, "%s", d.items[0].msg);
        T_EQ_INT("bad value line", d.items[1].line, 3);
        T_EQ_INT("bad value col", d.items[1].col, 10);
        T_EQ_INT("missing value line", d.items[2].line, 4);
    }
    diag_list_free(&d);
    diag_list_init(&d);

    cost_profile r = *p;
    T_EQ_INT("set ok", cost_profile_set(&r, "tw", 7.5), 0);
    T_NEAR("set value", r.tw, 7.5, 0);
    T_EQ_INT("set coalesce", cost_profile_set(&r, "coalesce", 0), 0);
    T_EQ_INT("set coalesce value", r.coalesce, 0);
    T_EQ_INT("set unknown", cost_profile_set(&r, "warp", 1), -1);

    T_EQ_INT("resolve builtin", cost_profile_resolve("scali2004", &r, &d), 0);
    T_EQ_STR("resolve builtin name", r.name, "scali2004");
    T_EQ_INT("resolve unknown", cost_profile_resolve("nosuch", &r, &d), -1);
    T_EQ_INT("resolve missing file", cost_profile_resolve("/nonexistent/x.prof", &r, &d), -1);
    T_EQ_INT("resolve diags", diag_count(&d), 2);

    char path[] = "/tmp/polyapm-cost-XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0) {
        FILE *f = fdopen(fd, "w");
        fputs("name disk\nbarrier_slope 100\n", f);
        fclose(f);
        T_EQ_INT("read file", cost_profile_resolve(path, &r, &d), 0);
        T_EQ_STR("read file name", r.name, "disk");
        T_NEAR("read file value", cost_barrier(&r, 3), 200, 0);
        remove(path);
    }
    diag_list_free(&d);
}

/* sync_on_messages (calibrated profiles): a step without messages pays no barrier, the step with
 * a message pays it; off (scali2004), every step pays it; the flag is written only when set, so
 * scali2004's text is what it was. */
static void test_sync_on_messages(void)
{
    const cost_profile *p = cost_profile_builtin("scali2004");
    cost_profile q = *p;
    q.sync_on_messages = 1;
    sim_trace t;
    cost_summary s;
    trace_init(&t, 3, 2, 100);
    cost_evaluate("polyapm", &t, p, &s);
    T_NEAR("quiet trace, thesis rule: barriers paid", s.total, 3 * (100 + BSL), 1e-6);
    cost_summary_free(&s);
    cost_evaluate("polyapm", &t, &q, &s);
    T_NEAR("quiet trace, sync_on_messages: no barrier", s.total, 300, 1e-9);
    cost_summary_free(&s);
    trace_add(&t, 1, 0, 1, 1, 1);
    cost_evaluate("polyapm", &t, &q, &s);
    T_NEAR("one message, sync_on_messages: its step's barrier alone", s.total, 3 * 100 + BSL + NORMR, 1e-6);   /* the receiver is the step's max */
    cost_summary_free(&s);
    cost_evaluate("polyapm", &t, p, &s);
    T_NEAR("one message, thesis rule: every step's barrier", s.total, 3 * (100 + BSL) + NORMR, 1e-6);
    cost_summary_free(&s);
    trace_free(&t);
    char *txt = cost_profile_format(p), *qtxt = cost_profile_format(&q);
    T_CHECK("scali2004's text has no sync_on_messages", txt && !strstr(txt, "sync_on_messages"), "%s", txt);
    T_CHECK("a set flag is written", qtxt && strstr(qtxt, "sync_on_messages 1\n"), "%s", qtxt);
    cost_profile r;
    diag_list d;
    diag_list_init(&d);
    T_EQ_INT("the flag reads back", cost_profile_parse("q", qtxt, &r, &d) == 0 && r.sync_on_messages == 1, 1);
    diag_list_free(&d);
    free(txt);
    free(qtxt);
}

/* The overlap placement: work between a processor's last send and its recv hides its message
 * time, not the barrier; bsp prices no overlap. */
static void test_overlap(void)
{
    const cost_profile *p = cost_profile_builtin("scali2004");
    sim_trace t;
    cost_summary s, plain;
    trace_init(&t, 1, 2, 100);
    trace_add(&t, 0, 0, 1, 1, 1);
    double bsp_plain, hock_plain;
    cost_evaluate("bsp", &t, p, &s); bsp_plain = s.total; cost_summary_free(&s);
    cost_evaluate("hockney", &t, p, &s); hock_plain = s.total; cost_summary_free(&s);
    cost_evaluate("polyapm", &t, p, &plain);
    T_NEAR("no overlap: the receiver's words and the barrier", plain.total, 100 + NORMR + BSL, 1e-9);
    T_NEAR("no overlap: CommCost is all the message time", plain.commcost, NORMS + NORMR, 1e-9);
    t.overlap = calloc(2, sizeof *t.overlap);
    t.overlap[0] = 5;   /* more than the sender's message time: all of it hidden */
    t.overlap[1] = 2;   /* less than the receiver's: 2 ticks of it hidden */
    cost_evaluate("polyapm", &t, p, &s);
    T_NEAR("overlap 2 at the receiver: 2 ticks less", s.total, 100 + NORMR - 2 + BSL, 1e-9);
    T_NEAR("the sender's message time all hidden, the barrier not", s.comm[0], BSL, 1e-9);
    T_NEAR("CommCost: what the overlap does not hide (the receiver's, less 2)", s.commcost, NORMR - 2, 1e-9);
    cost_summary_free(&s);
    t.overlap[1] = 1000;
    cost_evaluate("polyapm", &t, p, &s);
    T_NEAR("overlap longer than the messages: the barrier stays", s.total, 100 + BSL, 1e-9);
    cost_summary_free(&s);
    cost_evaluate("hockney", &t, p, &s);
    T_CHECK("hockney prices the overlap", s.total < hock_plain && s.total > 100 + BSL - 1e-9, "%g vs %g", s.total, hock_plain);
    cost_summary_free(&s);
    cost_evaluate("bsp", &t, p, &s);
    T_NEAR("bsp prices no overlap", s.total, bsp_plain, 1e-9);
    T_CHECK("bsp: CommCost is all the message time", s.commcost > 0, "%g", s.commcost);
    cost_summary_free(&s);
    cost_summary_free(&plain);
    free(t.overlap);
    trace_free(&t);
}

/* guard_price: the trace's guard ticks priced apart (w − (1 − price)·g); 1 (scali2004) is the
 * thesis's rule, bit for bit; the key is written only when it is not 1. */
static void test_guard_price(void)
{
    const cost_profile *p = cost_profile_builtin("scali2004");
    T_NEAR("scali2004 prices guards as work", p->guard_price, 1, 0);
    sim_trace t;
    cost_summary s;
    trace_init(&t, 2, 2, 100);
    t.guard = calloc(4, sizeof *t.guard);
    t.guard[0] = 40;   /* step 0, processor 0 */
    t.guard[3] = 10;   /* step 1, processor 1 */
    cost_evaluate("polyapm", &t, p, &s);
    T_NEAR("price 1: the work as traced", s.total, 2 * (100 + BSL), 0);
    T_NEAR("the summary's guard", s.guard, 50, 0);
    cost_summary_free(&s);
    cost_profile q = *p;
    q.guard_price = 0.5;
    cost_evaluate("polyapm", &t, &q, &s);
    T_NEAR("price 0.5: half the guard ticks off each processor", s.work[0], 200 - 20, 1e-9);
    T_NEAR("price 0.5: the step's max", s.total, 2 * (100 + BSL), 1e-9);   /* the other processor keeps 100 */
    cost_summary_free(&s);
    for (int i = 0; i < 4; i++) t.work[i] = 100 + t.guard[i];
    q.guard_price = 0;
    cost_evaluate("polyapm", &t, &q, &s);
    T_NEAR("price 0: the guards cost nothing", s.total, 2 * (100 + BSL), 1e-9);
    T_NEAR("price 0: aggregate work without them", s.aggregate_work, 400, 1e-9);
    cost_summary_free(&s);
    free(t.guard);
    trace_free(&t);
    char *txt = cost_profile_format(p), *qtxt = cost_profile_format(&q);
    T_CHECK("scali2004's text has no guard_price", txt && !strstr(txt, "guard_price"), "%s", txt);
    T_CHECK("guard_price 0 is written", qtxt && strstr(qtxt, "guard_price 0\n"), "%s", qtxt);
    cost_profile r;
    diag_list d;
    diag_list_init(&d);
    T_EQ_INT("guard_price reads back", cost_profile_parse("q", qtxt, &r, &d) == 0 && r.guard_price == 0, 1);
    T_EQ_INT("a profile without the key prices guards as work", cost_profile_parse("r", "normsent 2\n", &r, &d) == 0 &&
             r.guard_price == 1, 1);
    T_EQ_INT("cost_profile_set knows guard_price", cost_profile_set(&r, "guard_price", 0.25) == 0 && r.guard_price == 0.25, 1);
    diag_list_free(&d);
    free(txt);
    free(qtxt);
}

/* The work classes' prices: keys written only when not 1 (scali2004's text unchanged), read back;
 * a profile without them prices every class as a tick. */
static void test_class_prices(void)
{
    const cost_profile *p = cost_profile_builtin("scali2004");
    T_EQ_INT("scali2004 prices the classes at 1", p->unit_price == 1 && p->strided_price == 1, 1);
    cost_profile q = *p;
    q.unit_price = 0.375;
    q.strided_price = 1.5;
    q.aliased_price = 6;
    char *txt = cost_profile_format(p), *qtxt = cost_profile_format(&q);
    T_CHECK("scali2004's text has no class prices", txt && !strstr(txt, "unit_price") && !strstr(txt, "strided_price"),
            "%s", txt);
    T_CHECK("the class prices are written", qtxt && strstr(qtxt, "unit_price 0.375\n") &&
            strstr(qtxt, "strided_price 1.5\n") && strstr(qtxt, "aliased_price 6\n"), "%s", qtxt);
    cost_profile r;
    diag_list d;
    diag_list_init(&d);
    T_EQ_INT("the class prices read back", cost_profile_parse("q", qtxt, &r, &d) == 0 && r.unit_price == 0.375 &&
             r.strided_price == 1.5, 1);
    T_EQ_INT("a profile without the keys prices the classes at 1", cost_profile_parse("r", "normsent 2\n", &r, &d) == 0 &&
             r.unit_price == 1 && r.strided_price == 1 && r.aliased_price == 1, 1);
    T_EQ_INT("... and has no accum price, cached price or cache", r.accum_price < 0 && r.unit_cached_price < 0 &&
             r.cache_bytes < 0, 1);
    T_CHECK("scali2004's text has no accum, cached or cache key", txt && !strstr(txt, "accum_price") &&
            !strstr(txt, "unit_cached_price") && !strstr(txt, "cache_bytes"), "%s", txt);
    q.accum_price = 0.5;
    q.unit_cached_price = 0.125;
    q.cache_bytes = 1048576;
    free(qtxt);
    qtxt = cost_profile_format(&q);
    T_EQ_INT("accum_price, unit_cached_price and cache_bytes read back", qtxt && cost_profile_parse("q", qtxt, &r, &d) == 0 &&
             r.accum_price == 0.5 && r.unit_cached_price == 0.125 && r.cache_bytes == 1048576, 1);
    diag_list_free(&d);
    free(txt);
    free(qtxt);
}

/* The levels (cost.h, `levels`): a stream's element costs what the levels holding the
 * processor's data charge, each for its part; dearer as the data outgrows each level; a profile
 * without the inner levels prices as `cache` did. */
static double levels_total(const cost_profile *p, double data, double streams)
{
    sim_trace t;
    trace_init(&t, 1, 1, 100);
    double z = streams, d = data;
    t.streams = &z;
    t.data_bytes = &d;
    cost_summary s;
    double total = cost_evaluate("polyapm", &t, p, &s) == 0 ? s.total : -1;
    cost_summary_free(&s);
    t.streams = NULL;
    t.data_bytes = NULL;
    trace_free(&t);
    return total;
}

static void test_levels(void)
{
    cost_profile p = *cost_profile_builtin("scali2004");
    p.cache1_bytes = 1000, p.stream1_price = 1;
    p.cache2_bytes = 4000, p.stream2_price = 2;
    p.cache_bytes = 16000, p.stream_cached_price = 4;
    p.stream_price = 10;
    T_NEAR("levels: data in the first level, its price", levels_total(&p, 800, 50), 100 + 50 * 1, 1e-9);
    /* 2000 bytes: half in the first level, half in the second */
    T_NEAR("levels: data over two levels, each its part", levels_total(&p, 2000, 50), 100 + 50 * 1.5, 1e-9);
    /* 32000 bytes: 1000 at 1, 3000 at 2, 12000 at 4, 16000 from memory at 10 */
    T_NEAR("levels: beyond the caches", levels_total(&p, 32000, 50), 100 + 50 * (1000 + 6000 + 48000 + 160000) / 32000.0,
           1e-9);
    double prev = 0;
    int rising = 1;
    for (double d = 500; d <= 1e6; d *= 1.5) {
        double v = levels_total(&p, d, 50);
        rising &= v >= prev;
        prev = v;
    }
    T_EQ_INT("levels: the price rises with the working set", rising, 1);
    T_NEAR("levels: far beyond, nearly memory's", levels_total(&p, 1.6e9, 50), 100 + 50 * 10, 0.01);
    /* without the inner levels: `cache`'s blend between the last level and memory */
    cost_profile q = p;
    q.cache1_bytes = q.cache2_bytes = q.stream1_price = q.stream2_price = -1;
    T_NEAR("levels: unset, the last level and memory as before", levels_total(&q, 32000, 50),
           100 + 50 * (4 + 0.5 * (10 - 4)), 1e-9);
    /* two levels: the second unset, the first and the last */
    q = p;
    q.cache2_bytes = q.stream2_price = -1;
    T_NEAR("levels: the first and the last", levels_total(&q, 2000, 50), 100 + 50 * 2.5, 1e-9);
    /* strided work by the levels too: 100 ticks of it, at 3 in the first level, 20 from memory */
    q = p;
    q.strided1_price = 3, q.strided2_price = 6, q.strided_cached_price = 9, q.strided_price = 20;
    {
        sim_trace w;
        trace_init(&w, 1, 1, 100);
        double st = 100, dd = 800, *cls[SIM_WORK_CLASSES] = { NULL };
        cls[SIM_WORK_STRIDED] = &st;
        memcpy(w.wclass, cls, sizeof cls);
        w.data_bytes = &dd;
        cost_summary ws;
        T_EQ_INT("levels: strided work in the first level at its price", cost_evaluate("polyapm", &w, &q, &ws) == 0 &&
                 fabs(ws.total - 300) < 1e-9, 1);
        cost_summary_free(&ws);
        dd = 32000;
        T_EQ_INT("levels: strided work over every level and memory", cost_evaluate("polyapm", &w, &q, &ws) == 0 &&
                 fabs(ws.total - 100 * (3 * 1000 + 6 * 3000 + 9 * 12000 + 20 * 16000) / 32000.0) < 1e-9, 1);
        cost_summary_free(&ws);
        /* data_scale: 800 bytes taken at 40 times, the same as 32000 */
        dd = 800;
        q.data_scale = 40;
        T_EQ_INT("levels: data_scale prices the data at that multiple", cost_evaluate("polyapm", &w, &q, &ws) == 0 &&
                 fabs(ws.total - 100 * (3 * 1000 + 6 * 3000 + 9 * 12000 + 20 * 16000) / 32000.0) < 1e-9, 1);
        cost_summary_free(&ws);
        q.data_scale = -1;
        /* searched work: searched_price where the profile has it, else priced as the walk */
        cls[SIM_WORK_STRIDED] = NULL, cls[SIM_WORK_SEARCHED] = &st;
        memcpy(w.wclass, cls, sizeof cls);
        dd = 800;
        T_EQ_INT("searched work without searched_price: the walk's price", cost_evaluate("polyapm", &w, &q, &ws) == 0 &&
                 fabs(ws.total - 300) < 1e-9 && ws.class_ticks[SIM_WORK_SEARCHED] == 100, 1);
        cost_summary_free(&ws);
        q.searched_price = 12;
        T_EQ_INT("searched work at searched_price, wherever its data", cost_evaluate("polyapm", &w, &q, &ws) == 0 &&
                 fabs(ws.total - 1200) < 1e-9, 1);
        cost_summary_free(&ws);
        w.data_bytes = NULL;
        memset(w.wclass, 0, sizeof w.wclass);
        trace_free(&w);
    }
    /* restarts: restart_price for the part of the data beyond the last level, none within */
    q = p;
    q.restart_price = 100;
    sim_trace t;
    trace_init(&t, 1, 1, 100);
    double z = 0, d = 800, r = 3;
    t.streams = &z;
    t.data_bytes = &d;
    t.restarts = &r;
    cost_summary s;
    T_EQ_INT("levels: restarts within the caches cost nothing", cost_evaluate("polyapm", &t, &q, &s) == 0 &&
             s.total == 100, 1);
    cost_summary_free(&s);
    d = 32000;
    T_EQ_INT("levels: restarts beyond them, their part at restart_price", cost_evaluate("polyapm", &t, &q, &s) == 0 &&
             fabs(s.total - (100 + 3 * 100 * 0.5)) < 1e-9, 1);
    cost_summary_free(&s);
    t.streams = t.data_bytes = t.restarts = NULL;
    trace_free(&t);
    char *txt = cost_profile_format(cost_profile_builtin("scali2004"));
    T_CHECK("scali2004's text has no level keys", txt && !strstr(txt, "cache1_bytes") && !strstr(txt, "stream1_price") &&
            !strstr(txt, "latency"), "%s", txt);
    free(txt);
}

int main(void)
{
    test_levels();
    test_class_prices();
    test_guard_price();
    test_barrier();
    test_overlap();
    test_sync_on_messages();
    test_polyapm();
    test_syn_untiled();
    test_profiles();
    return t_done();
}
