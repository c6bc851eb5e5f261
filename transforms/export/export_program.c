/*
 * export_program.c — the exported program as a whole, phase by phase: the comment saying what it
 * is, the includes, the integer helpers and the parameters; the arrays and init_arrays; then
 * sequentially the computation as one function and main timing it, or at syndm the step function
 * of processor me (and the replay of the outputs' stamps), the halo pattern or the Alltoallv
 * delivery, the checksum and main: MPI set up, the timed loop over the steps, the result line.
 *
 * Step functions as a careful human writes them: the arrays passed as restrict parameters to a
 * function that is not inlined (so gcc vectorises the loops), and with the halo no send in them
 * (the pattern, recorded once, packs the boundary after the step).
 *
 * Semantics kept bit for bit with the simulator: integer arithmetic is engine/intsem.h, copied
 * next to the program (/ and % floor division and its remainder, ceil(a / b) exact, an assigned
 * value's overflow an error naming the statement), reductions start from their first term (sums
 * and products from the identity, which is the same: -0.0 for double sums), double min/max keep
 * the first of equal values, expressions are fully parenthesised so that C evaluates them in the
 * program's order (and the Makefile forbids FMA contraction).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_int.h"

/* ---- phases ----------------------------------------------------------------------------------- */

/* The labels of the assignments in a block, joined with '_' (for function names). */
static void ex_labels(strbuf *b, const ir_block *blk)
{
    for (int i = 0; i < blk->n; i++) {
        const ir_stmt *s = blk->stmts[i];
        if (s->kind == IR_S_ASSIGN) {
            char t[64];
            if (b->n > 40) continue;
            if (!s->u.assign.label) continue;
            strbuf_printf(b, "_%s", ex_nm(s->u.assign.label, t));
        } else if (s->kind == IR_S_IF) {
            ex_labels(b, s->u.if_.then_blk);
            if (s->u.if_.else_blk) ex_labels(b, s->u.if_.else_blk);
        } else if (s->kind == IR_S_FOR) {
            ex_labels(b, s->u.for_.body);
        }
    }
}

/* The nest's processor loop body with the loops inside it, for processor `me`. */
static void ex_step_body(const ex_em *m, strbuf *b, int in)
{
    const ex_plan *pl = m->pl;
    const ir_stmt *nest = pl->nest;
    char t[64];
    const ir_loopvar *vars;
    int nvars, from;
    const ir_block *body;
    if (pl->pdepth == 1) {
        vars = nest->u.for_.vars; nvars = nest->u.for_.nvars; from = 2; body = nest->u.for_.body;
    } else {
        const ir_stmt *inner = nest->u.for_.body->stmts[0];
        vars = inner->u.for_.vars; nvars = inner->u.for_.nvars; from = 1; body = inner->u.for_.body;
    }
    const char *pv = ex_nm(vars[from - 1].var, t);
    ex_indent(b, in);
    strbuf_printf(b, "const int64_t %s = me;   /* this processor */\n", pv);
    ex_indent(b, in);
    strbuf_printf(b, "(void)%s;\n", pv);
    ex_emit_loops(m, b, vars, nvars, from, body, in);
}

/* The program being written, between the phases of ex_emit_program. */
typedef struct ex_prog_out {
    const ex_plan *pl;
    const ir_program *p;
    strbuf b;                    /* the program's text */
    ex_em m;                     /* the emitter of the statements (its tmp is &tmp) */
    int tmp;
    strbuf labels;               /* "_L1_L2..": the statements' labels, the steps' suffix */
    const char *lab;             /* labels, or "_program" */
    int pieced;                  /* arrays with pieced local memories (export_piece.c) */
    /* syndm */
    const ir_loopvar *tv;        /* the time loop's variable */
    char tn[64];                 /* its C name */
    int two;                     /* a second step function records the output plane's marks */
    int replay;                  /* the marks recorded after the timed loop (mark<labels>) */
    int64_t mark_step;           /* the step writing the output plane (two) */
} ex_prog_out;

/* The comment saying what the program is, the includes, the helpers and the parameters. */
/* The bits of a stamp (rt_mark): 8 or 16 when the time loop's steps, at the exported parameter
 * values, fit, else 32. */
static int ex_mark_bits(const ex_plan *pl)
{
    if (!pl->nest) return 32;
    const ir_loopvar *v = &pl->nest->u.for_.vars[0];
    int64_t lo, hi, st = 1;
    double r;
    int real = 0, bad;
    diag_list dd;
    diag_list_init(&dd);
    bad = ir_const_eval(pl->p, v->lo, pl->pv, &lo, &r, &real, &dd) || real ||
          ir_const_eval(pl->p, v->hi, pl->pv, &hi, &r, &real, &dd) || real ||
          (v->step && (ir_const_eval(pl->p, v->step, pl->pv, &st, &r, &real, &dd) || real));
    diag_list_free(&dd);
    if (bad || st < 1) return 32;
    int64_t steps = hi < lo ? 0 : (hi - lo) / st + 1;
    return steps < UINT8_MAX ? 8 : steps < UINT16_MAX ? 16 : 32;
}

/* Whether some output array records what each processor computes (its X_mine stamps). */
static int ex_any_mark(const ex_plan *pl)
{
    for (int i = 0; i < pl->p->narrays; i++)
        if (pl->arr[i].mark) return 1;
    return 0;
}

static void ex_prog_head(ex_prog_out *o)
{
    const ex_plan *pl = o->pl;
    const ir_program *p = o->p;
    strbuf *b = &o->b;
    char t[64];
    strbuf_printf(b, "/*\n * %s.c — program %s (level %s), exported by polyapm%s%s.\n", pl->progname, p->name,
                  ir_level_name(p->level), pl->origin ? " from " : "", pl->origin ? pl->origin : "");
    if (pl->shared)
        strbuf_printf(b, " * C+MPI, %" PRId64 " ranks (one per processor of the processor loop), each holding the whole\n"
                         " * arrays and running its own processor; they communicate by collectives alone (rt_coll.c).\n",
                      pl->nprocs);
    else if (pl->mpi)
        strbuf_printf(b, " * C+MPI, %" PRId64 " ranks (one per processor of the processor loop), each holding its part of\n"
                         " * the arrays (the dist declarations); %s.\n", pl->nprocs,
                      pl->exchange == XF_EXCHANGE_HALO ? "messages travel as a static halo pattern after each step "
                                                          "(rt_pattern)"
                      : pl->exchange == XF_EXCHANGE_ALLTOALLV ? "messages travel as (index, value) records, one "
                                                                 "MPI_Alltoallv per step (rt_exchange)"
                      : "it sends no messages");
    else
        strbuf_printf(b, " * Sequential C: the program's loops as written (at syn, the processors of a step one after\n"
                         " * another, which a verified program allows).\n");
    if (pl->mpi && ex_mcast_used(pl))
        strbuf_printf(b, " * A value sent to a range of processors is one record, broadcast to that range at the end of\n"
                         " * the step (rt_mcast).\n");
    strbuf_printf(b, " * Prints `polyapm-result checksum=.. seconds=.. ranks=..`: the outputs' checksum, identical to\n"
                     " * `polyapm sim`'s, and the seconds of the main loop.\n */\n");
    if (!pl->mpi) strbuf_printf(b, "#define _POSIX_C_SOURCE 200809L   /* clock_gettime */\n");
    strbuf_printf(b, "#include <math.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n");
    if (!pl->mpi) strbuf_printf(b, "#include <time.h>\n");
    strbuf_printf(b, "\n#include \"%s\"\n#include \"rt_int.h\"   /* the integer semantics: intsem.h */\n%s\n",
                  pl->mpi ? "rt.h" : "rt_checksum.h",
                  pl->crand ? "#include \"rt_crand.h\" /* the C library's rand() and drand48() by call number: crand.h */\n" : "");
    if (pl->mpi && ex_any_mark(pl)) {
        int bits = ex_mark_bits(pl);
        strbuf_printf(b, "/* The step being run, counted from 1: an output element is stamped with the step that\n"
                         " * computed it, and the gather takes each from the processor that computed it last. */\n"
                         "static uint32_t rt_stamp;\n"
                         "typedef uint%d_t rt_mark;\n#define RT_MARK_MAX %s\n\n", bits,
                      bits == 8 ? "UINT8_MAX" : bits == 16 ? "UINT16_MAX" : "UINT32_MAX");
    }
    if (!pl->mpi)
        strbuf_printf(b, "//@def ex_calloc\nstatic void *ex_calloc(size_t n, size_t size)\n{\n"
                         "    void *p = calloc(n ? n : 1, size);\n"
                         "    if (!p) { fprintf(stderr, \"out of memory\\n\"); exit(2); }\n    return p;\n}\n\n//@end\n");
    strbuf_printf(b, "/* parameters */\n");
    for (int i = 0; i < p->nparams; i++)
        strbuf_printf(b, "//@def %s\nstatic const int64_t %s = %" PRId64 ";\n//@end\n", ex_nm(p->params[i]->u.param.name, t),
                      t, pl->pv[i]);   /* left out when unused (export_tidy.c) */
    strbuf_printf(b, "\n");
}

/* The top-level lets before the nest (syndm: variables shared by the phases, set in main), the
 * arrays with their init function, and the operators of the collectives. */
static void ex_prog_data(ex_prog_out *o)
{
    const ex_plan *pl = o->pl;
    const ir_program *p = o->p;
    char t[64];
    if (pl->mpi) {
        int nlets = 0;
        for (int i = 0; i < p->body->n && p->body->stmts[i]->kind == IR_S_LET; i++) {
            const ir_stmt *s = p->body->stmts[i];
            strbuf_printf(&o->b, "static %s %s;\n", s->u.let.value->type == IR_DOUBLE ? "double" : "int64_t",
                          ex_nm(s->u.let.var, t));
            nlets++;
        }
        if (nlets) strbuf_printf(&o->b, "\n");
    }
    strbuf fills = {0};
    for (int i = 0; i < p->narrays; i++) o->pieced += pl->arr[i].pieced;
    if (o->pieced) strbuf_printf(&o->b, "%s", ex_piece_type);
    for (int i = 0; i < p->narrays; i++) ex_array_decl(pl, &o->b, &fills, &pl->arr[i]);
    ex_mcast_decl(pl, &o->b);
    ex_init_fn(pl, &o->b, &o->m, fills.s, o->replay);
    strbuf_free(&fills);
    ex_emit_ops(pl, &o->b);
}

/* The arrays a step function or the sequential computation takes as `restrict` parameters
 * (shadowing the globals: each is its own allocation, so gcc may keep values in registers and
 * vectorise; none in programs with collectives, whose runtime calls reach the arrays too): the
 * parameter list (", double *restrict A, .."), the arguments (", A, ..") and the casts that use
 * them ("(void)A;"). */
static void ex_step_arrays(const ex_plan *pl, strbuf *params, strbuf *args, strbuf *uses)
{
    if (ex_block_holds(pl->p->body, IR_S_COLL)) return;   /* collectives reach the arrays through the runtime: the globals */
    if (ex_overlap_placed(pl)) return;      /* so do the messages in flight during the step */
    for (int i = 0; i < pl->p->narrays; i++) {
        const ex_array *a = &pl->arr[i];
        strbuf_printf(params, ", %s *restrict %s", a->decl->u.array.elem == IR_DOUBLE ? "double" : "int64_t", a->cname);
        strbuf_printf(args, ", %s", a->cname);
        strbuf_printf(uses, "%s(void)%s;", uses->n ? " " : "    ", a->cname);
    }
    if (uses->n) strbuf_printf(uses, "\n");
}

/* Sequential C: the computation as one function, the checksum, and main timing it.  The
 * computation takes the arrays as restrict parameters (ex_step_arrays; its lists start with
 * ", ", skipped here), not inlined into main, as a step function does. */
static void ex_prog_sequential(ex_prog_out *o)
{
    const ex_plan *pl = o->pl;
    strbuf *b = &o->b;
    strbuf params = {0}, args = {0}, uses = {0};
    ex_step_arrays(pl, &params, &args, &uses);
    strbuf_printf(b, "/* The computation: the program's statements in order.%s */\nstatic %svoid compute%s(%s)\n{\n%s",
                  params.n ? "\n * The arrays are restrict parameters (each is its own allocation) and the function is not\n"
                             " * inlined into main, where they are the globals again: gcc vectorises its loops without\n"
                             " * runtime alias checks." : "",
                  params.n ? "__attribute__((noinline)) " : "", o->lab, params.n ? params.s + 2 : "void",
                  uses.n ? uses.s : "");
    ex_emit_block(&o->m, b, o->p->body, 4);
    strbuf_printf(b, "}\n\n");
    ex_checksum_fn(pl, b, &o->m);
    strbuf_printf(b, "static double now(void)\n{\n    struct timespec ts;\n    clock_gettime(CLOCK_MONOTONIC, &ts);\n"
                     "    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;\n}\n\n");
    strbuf_printf(b, "int main(void)\n{\n    init_arrays();\n    const double t0 = now();\n    compute%s(%s);\n"
                     "    const double seconds = now() - t0;\n"
                     "    printf(RT_RESULT_FORMAT, (unsigned long long)output_checksum(), seconds, 1);\n", o->lab,
                  args.n ? args.s + 2 : "");
    for (int i = 0; i < o->p->narrays; i++) strbuf_printf(b, "    free(%s);\n", pl->arr[i].cname);
    if (pl->crand) strbuf_printf(b, "    rt_crand_free();\n");
    strbuf_printf(b, "    return 0;\n}\n");
    strbuf_free(&params);
    strbuf_free(&args);
    strbuf_free(&uses);
}

/* Whether e reads memory (an array element, a scalar array, a reduction over elements). */
static int ex_reads_memory(const ir_expr *e)
{
    if (!e) return 0;
    switch (e->kind) {
    case IR_E_ACCESS: case IR_E_REDUCE: return 1;
    case IR_E_NAME: return e->u.name.nk == IR_N_ARRAY;
    case IR_E_UNARY: case IR_E_BINARY: return ex_reads_memory(e->u.op.a) || ex_reads_memory(e->u.op.b);
    case IR_E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++) if (ex_reads_memory(e->u.call.args[i])) return 1;
        return 0;
    case IR_E_REPEAT:
        for (int i = 0; i < e->u.repeat.nargs; i++) if (ex_reads_memory(e->u.repeat.args[i])) return 1;
        return ex_reads_memory(e->u.repeat.k);
    default: return 0;
    }
}

/* Whether which elements a block writes, and when, follows from the indices alone: no
 * collective, and no bound, condition, let or target subscript reads memory.  Then the step
 * can be replayed for its writes alone (EX_MARK). */
static int ex_block_replayable(const ir_block *blk)
{
    for (int i = 0; i < blk->n; i++) {
        const ir_stmt *s = blk->stmts[i];
        switch (s->kind) {
        case IR_S_ASSIGN:
            if (s->u.assign.lhs->kind == IR_E_ACCESS)
                for (int k = 0; k < s->u.assign.lhs->u.access.nidx; k++)
                    if (ex_reads_memory(s->u.assign.lhs->u.access.idx[k])) return 0;
            break;
        case IR_S_LET: if (ex_reads_memory(s->u.let.value)) return 0; break;
        case IR_S_IF:
            if (ex_reads_memory(s->u.if_.cond) || !ex_block_replayable(s->u.if_.then_blk) ||
                (s->u.if_.else_blk && !ex_block_replayable(s->u.if_.else_blk))) return 0;
            break;
        case IR_S_FOR:
            for (int k = 0; k < s->u.for_.nvars; k++)
                if (ex_reads_memory(s->u.for_.vars[k].lo) || ex_reads_memory(s->u.for_.vars[k].hi) ||
                    ex_reads_memory(s->u.for_.vars[k].step)) return 0;
            if (!ex_block_replayable(s->u.for_.body)) return 0;
            break;
        case IR_S_COLL: return 0;
        case IR_S_SEND: case IR_S_RECV: break;
        }
    }
    return 1;
}

/* The stamps of a syndm program's outputs are recorded by replaying the steps after the timed
 * loop, so that its inner loops store values alone: when some output is marked (not through a
 * second step function) and the writes follow from the indices. */
static int ex_replays_marks(const ex_prog_out *o)
{
    const ex_plan *pl = o->pl;
    if (!pl->mpi || pl->shared || o->two || !ex_any_mark(pl)) return 0;
    const ir_stmt *nest = pl->nest;
    for (int k = 0; k < nest->u.for_.nvars; k++)
        if (ex_reads_memory(nest->u.for_.vars[k].lo) || ex_reads_memory(nest->u.for_.vars[k].hi)) return 0;
    return ex_block_replayable(nest->u.for_.body);
}

/* How the outputs' stamps are recorded: by a second step function for the step writing a folded
 * output's plane (two), by replaying the steps after the timed loop (replay), or in the step. */
static void ex_marks_plan(ex_prog_out *o)
{
    const ex_plan *pl = o->pl;
    int marked = 0, unfolded = 0;
    for (int i = 0; i < o->p->narrays; i++) {
        const ex_array *a = &pl->arr[i];
        if (!a->mark) continue;
        if (a->fold < 0 || a->mark_step == INT64_MIN || (marked && a->mark_step != o->mark_step)) { unfolded = 1; continue; }
        o->mark_step = a->mark_step;
        marked = 1;
    }
    o->two = marked && !unfolded;
    o->replay = pl->mpi && pl->nest && ex_replays_marks(o);
}

/* The step functions' exchange (the Alltoallv records' rt_x) as a parameter and an argument;
 * none when the program exchanges otherwise (the halo pattern) or not at all. */
static const char *ex_x_param(const ex_plan *pl)
{
    return pl->exchange == XF_EXCHANGE_ALLTOALLV ? ", rt_exchange *rt_x" : "";
}

static const char *ex_x_arg(const ex_plan *pl)
{
    return pl->exchange == XF_EXCHANGE_ALLTOALLV ? ", rt_x" : "";
}

/* syndm: the step function of processor me (and, when every output keeps only its live planes,
 * a second one for the step writing the output plane, the only one that needs to record which
 * elements this processor computed: the other steps run without that). */
static void ex_prog_steps(ex_prog_out *o)
{
    const ex_plan *pl = o->pl;
    strbuf *b = &o->b;
    const char *tn = o->tn;
    char stmts[128];
    snprintf(stmts, sizeof stmts, "%s", o->labels.s ? o->labels.s + 1 : "");
    for (char *c = stmts; *c; c++) if (*c == '_' && c[-1] != '_' && c[1] && c[1] != '_') *c = ' ';
    strbuf params = {0}, args = {0}, uses = {0};
    ex_step_arrays(pl, &params, &args, &uses);
    /* not inlined into main, where the arrays are the globals again: the loops keep their
     * restrict arrays, which gcc vectorises without runtime alias checks */
    const char *noinline = params.n ? "__attribute__((noinline)) " : "";
    strbuf_printf(b, "/* One step of processor me: statements %s in order%s%s. */\n"
                     "static %svoid step%s(int64_t %s, int64_t me%s%s%s)\n{\n    (void)%s;\n%s%s",
                  stmts, pl->exchange == XF_EXCHANGE_ALLTOALLV ? ", the sends put into the exchange" : "",
                  params.n ? "; the arrays restrict (each its own allocation)" : "", noinline,
                  o->lab, tn, ex_x_param(pl), params.n ? params.s : "", ex_overlap_step_param(pl), tn,
                  pl->exchange == XF_EXCHANGE_ALLTOALLV ? "    (void)rt_x;\n" : "", uses.n ? uses.s : "");
    o->m.marks = !o->two && !o->replay;
    ex_step_body(&o->m, b, 4);
    strbuf_printf(b, "}\n\n");
    if (o->replay) {
        ex_em mk = o->m;
        mk.mode = EX_MARK;
        strbuf_printf(b, "/* Step %s replayed after the timed loop for its writes of the outputs alone (they follow\n"
                         " * from the indices): each element this processor computes is stamped, for the gather. */\n"
                         "static void mark%s(int64_t %s, int64_t me)\n{\n    (void)%s;\n"
                         "    const rt_mark rt_now = (rt_mark)rt_stamp;   /* a local: the stores cannot change it */\n"
                         "    (void)rt_now;\n", tn, o->lab, tn, tn);
        ex_step_body(&mk, b, 4);
        strbuf_printf(b, "}\n\n");
    }
    if (o->two) {
        strbuf_printf(b, "/* The same step, recording which output elements this processor computes (the step that\n"
                         " * writes the output plane). */\n"
                         "static %svoid step%s_output(int64_t %s, int64_t me%s%s%s)\n{\n    (void)%s;\n%s%s",
                      noinline, o->lab, tn, ex_x_param(pl), params.n ? params.s : "", ex_overlap_step_param(pl), tn,
                  pl->exchange == XF_EXCHANGE_ALLTOALLV ? "    (void)rt_x;\n" : "", uses.n ? uses.s : "");
        o->m.marks = 1;
        ex_step_body(&o->m, b, 4);
        strbuf_printf(b, "}\n\n");
    }
    strbuf_free(&params);
    strbuf_free(&args);
    strbuf_free(&uses);
}

/* One halo function of the program (ex_overlap_halo_fns): every array's plane of step t, to the
 * pattern's runtime call. */
static void ex_prog_halo_fn(ex_prog_out *o, const ex_halo_fn *fn)
{
    const ex_plan *pl = o->pl;
    strbuf *b = &o->b;
    const char *tn = o->tn;
    strbuf_printf(b, "/* %s %s: every array's plane of that step. */\n"
                     "static void %s(rt_pattern *pattern, int64_t me, int64_t %s)\n{\n    double *planes[%d] = {",
                  fn->what, tn, fn->name, tn, o->p->narrays ? o->p->narrays : 1);
    for (int i = 0; i < o->p->narrays; i++) {
        const ex_array *a = &pl->arr[i];
        /* int64_t arrays too: the pattern moves 8-byte words bit for bit (RT_WORD) */
        const char *cast = a->decl->u.array.elem == IR_DOUBLE ? "" : "(double *)";
        if (a->fold < 0) {
            strbuf_printf(b, "%s%s%s", i ? ", " : "", cast, a->cname);
            continue;
        }
        int nd = a->decl->u.array.ndims;
        strbuf_printf(b, "%s%s(%s + (%s_at(me", i ? ", " : "", cast, a->cname, a->cname);
        for (int d = 0; d < nd; d++) {
            if (d == a->fold && a->send_f.k > 1)
                strbuf_printf(b, ", ifloordiv(%s + %" PRId64 ", %" PRId64 ") + (%" PRId64 ")", tn, a->send_f.a, a->send_f.k,
                              a->send_f.c);
            else if (d == a->fold)
                strbuf_printf(b, ", %s + (%" PRId64 ")", tn, a->send_f.c);
            else strbuf_printf(b, ", %s_lo%d(me)", a->cname, d);
        }
        strbuf_printf(b, ") - %s_at(me", a->cname);
        for (int d = 0; d < nd; d++) {
            if (d == a->fold) strbuf_printf(b, ", 0");
            else strbuf_printf(b, ", %s_lo%d(me)", a->cname, d);
        }
        strbuf_printf(b, ")))");
    }
    strbuf_printf(b, "};\n    (void)me;\n    (void)%s;   /* arrays without time planes: their whole memory */\n"
                     "    %s(pattern, planes);\n}\n\n", tn, fn->call);
}

/* syndm, halo exchange: each phase's pattern recorded once (record_halo<k>), and the exchange
 * of every array's plane after a step (exchange_halo; with overlap its halves, post_halo and
 * wait_halo, which the step calls). */
static void ex_prog_halo(ex_prog_out *o)
{
    const ex_plan *pl = o->pl;
    strbuf *b = &o->b;
    const char *tn = o->tn;
    ex_em mi = o->m;
    mi.mode = EX_INSPECT;
    for (int k = 0; k < pl->nphases; k++) {
        mi.phase = k;
        strbuf_printf(b, "/* The halo pattern of phase %d: its sends (the same at every step of the phase), recorded\n"
                         " * once.  Offsets are within the time plane of the step (plane 0 here). */\n"
                         "static void record_halo%d(rt_pattern *pattern, int64_t me)\n{\n    const int64_t %s = %" PRId64 ";\n    (void)%s;\n",
                      k, k, tn, o->tv->lo->kind == IR_E_INT ? o->tv->lo->u.ival : 0, tn);
        ex_step_body(&mi, b, 4);
        strbuf_printf(b, "}\n\n");
    }
    for (const ex_halo_fn *fn = ex_overlap_halo_fns(pl); fn->name; fn++) ex_prog_halo_fn(o, fn);
}

/* syndm, Alltoallv exchange: the end of a step, every record stored where its sender said. */
static void ex_prog_deliver(ex_prog_out *o)
{
    const ex_plan *pl = o->pl;
    strbuf *b = &o->b;
    int na = o->p->narrays;
    if (ex_mcast_only(pl)) {   /* no per-receiver records: the multicast alone */
        strbuf_printf(b, "/* The end of a step: every rank's multicast records, stored where this processor keeps them. */\n"
                         "static void deliver(rt_exchange *rt_x, int64_t me)\n{\n    (void)rt_x;\n    const rt_record *rt_r;\n");
        ex_mcast_deliver(pl, b);
        strbuf_printf(b, "}\n\n");
        return;
    }
    strbuf_printf(b, "/* The end of a step: every rank's records at once, stored where the sender said. */\n"
                     "static void deliver(rt_exchange *rt_x%s)\n{\n    rt_exchange_run(rt_x);\n    const rt_record *rt_r;\n"
                     "    const size_t rt_n = rt_exchange_received(rt_x, &rt_r);\n    for (size_t rt_i = 0; rt_i < rt_n; rt_i++) {\n"
                     "        const int64_t rt_off = rt_r[rt_i].index / %d;\n        switch ((int)(rt_r[rt_i].index %% %d)) {\n",
                  o->pieced || ex_mcast_used(pl) ? ", int64_t me" : "", na, na);
    for (int i = 0; i < na; i++) {   /* a delivery overwrites the receiver's copy */
        const char *v = pl->arr[i].decl->u.array.elem == IR_DOUBLE ? "rt_r[rt_i].value" : "rt_record_int(&rt_r[rt_i])";
        if (pl->arr[i].pieced)
            strbuf_printf(b, "        case %d: %s[%s_at_gidx(me, rt_off)] = %s; break;\n", i, pl->arr[i].cname,
                          pl->arr[i].cname, v);
        else
            strbuf_printf(b, "        case %d: %s[rt_off] = %s; break;\n", i, pl->arr[i].cname, v);
    }
    strbuf_printf(b, "        default: break;\n        }\n    }\n");
    if (ex_mcast_used(pl)) ex_mcast_deliver(pl, b);
    strbuf_printf(b, "}\n\n");
}

/* The exporter's part of the aggregation placement (place_aggregate.c): a program that says
 * `messages aggregate`, exported with the halo pattern, sets pattern k to one message per partner
 * (rt_pattern_aggregate, runtime/rt_pattern.c) before recording it: a partner's message carries
 * every array's elements of the step, packed into one buffer when it holds several arrays, in
 * place (a row, or a column as an MPI vector type) when it holds one.  The Alltoallv records need
 * nothing: they already travel as one message per partner. */
static void ex_aggregate_pattern(const ir_program *p, strbuf *b, int k)
{
    if (!p->aggregate) return;
    strbuf_printf(b, "    /* messages aggregate: one message per partner and step, every array's elements in it */\n"
                     "    rt_pattern_aggregate(pattern[%d]);\n", k);
}

/* syndm main: MPI and the operators set up, this rank's processor, the lets, the arrays
 * initialised, the exchange (or the halo patterns) created. */
static void ex_prog_main_setup(ex_prog_out *o)
{
    const ex_plan *pl = o->pl;
    const ir_program *p = o->p;
    strbuf *b = &o->b;
    char t[64];
    strbuf_printf(b, "int main(int argc, char **argv)\n{\n    rt_init(&argc, &argv);\n");
    strbuf_printf(b, "    rt_require_ranks(%" PRId64 ", \"%s was derived for %" PRId64 " processors\");\n", pl->nprocs,
                  pl->progname, pl->nprocs);
    ex_emit_ops_setup(pl, b, 0);
    strbuf_printf(b, "    const int64_t me = %" PRId64 " + rt_rank(MPI_COMM_WORLD);   /* this rank's processor */\n", pl->plo);
    for (int i = 0; i < p->body->n && p->body->stmts[i]->kind == IR_S_LET; i++) {
        const ir_stmt *s = p->body->stmts[i];
        strbuf v = {0}, pre = {0};
        ex_em m0 = o->m;
        ex_expr(&m0, &v, &pre, 4, s->u.let.value);
        if (pre.s) strbuf_printf(b, "%s", pre.s);
        strbuf_printf(b, "    %s = %s;\n", ex_nm(s->u.let.var, t), v.s);
        strbuf_free(&v);
        strbuf_free(&pre);
    }
    strbuf_printf(b, "    init_arrays(me);\n");
    if (pl->exchange == XF_EXCHANGE_ALLTOALLV)
        strbuf_printf(b, "    rt_exchange *rt_x = %s;\n", !ex_mcast_only(pl) ? "rt_exchange_new(MPI_COMM_WORLD)" : "NULL");
    if (ex_mcast_used(pl)) strbuf_printf(b, "    rt_mc = rt_mcast_new(MPI_COMM_WORLD);\n");
    if (pl->exchange == XF_EXCHANGE_HALO) {
        strbuf_printf(b, "    rt_pattern *pattern[%d];   /* one per phase */\n", pl->nphases);
        for (int k = 0; k < pl->nphases; k++) {
            strbuf_printf(b, "    pattern[%d] = rt_pattern_new(MPI_COMM_WORLD, %d);\n", k, p->narrays);
            ex_aggregate_pattern(p, b, k);
            strbuf_printf(b, "    record_halo%d(pattern[%d], me);\n    rt_pattern_commit(pattern[%d]);\n", k, k, k);
        }
    }
}

/* After the timed loop, before the stamps are replayed: the arrays that are no output freed
 * (their memory goes before the stamps come), the stamps allocated. */
static void ex_prog_late_marks(ex_prog_out *o)
{
    const ex_plan *pl = o->pl;
    strbuf *b = &o->b;
    int inits_read = 0;   /* an init reading memory keeps every array (the gather evaluates inits) */
    for (int k = 0; k < o->p->ndecls; k++)
        if (o->p->decls[k]->kind == IR_D_INIT && ex_reads_memory(o->p->decls[k]->u.init.value)) inits_read = 1;
    for (int i = 0; i < o->p->narrays && !inits_read; i++) {
        const ex_array *a = &pl->arr[i];
        if (!a->output && !a->pieced) strbuf_printf(b, "    free(%s);   /* no output */\n    %s = NULL;\n", a->cname, a->cname);
    }
    for (int i = 0; i < o->p->narrays; i++) {
        const ex_array *a = &pl->arr[i];
        if (a->mark)
            strbuf_printf(b, "    %s_mine = rt_calloc((size_t)%s_size(me), sizeof *%s_mine);\n", a->cname, a->cname,
                          a->cname);
    }
}

/* syndm main: the timed loop over the steps, each followed by its delivery or halo exchange
 * (a phase's exchange under the phase's conditions). */
static void ex_prog_main_loop(ex_prog_out *o)
{
    const ex_plan *pl = o->pl;
    const ir_loopvar *tv = o->tv;
    const char *tn = o->tn;
    strbuf *b = &o->b;
    strbuf lo = {0}, hi = {0}, st = {0}, pre = {0}, hc = {0};
    ex_expr(&o->m, &lo, &pre, 4, tv->lo);
    ex_expr(&o->m, &hi, &pre, 4, tv->hi);
    if (tv->step) ex_expr(&o->m, &st, &pre, 4, tv->step);
    strbuf_printf(b, "    const double t0 = rt_time_start(MPI_COMM_WORLD);\n");
    strbuf_printf(b, "    for (int64_t %s = %s, %s_end = %s; %s <= %s_end; %s += %s) {\n", tn, lo.s, tn, hi.s, tn, tn, tn,
                  st.n ? st.s : "1");
    if (ex_any_mark(pl) && !o->replay)
        strbuf_printf(b, "        if (++rt_stamp > RT_MARK_MAX) rt_die(\"more steps than an rt_mark holds\");\n");
    strbuf params = {0}, args = {0}, uses = {0};
    ex_step_arrays(pl, &params, &args, &uses);
    strbuf_printf(&args, "%s", ex_overlap_step_arg(pl));
    const char *as = args.n ? args.s : "";
    if (o->two)
        strbuf_printf(b, "        if (%s == %" PRId64 ") step%s_output(%s, me%s%s);   /* writes the output plane */\n"
                         "        else step%s(%s, me%s%s);\n", tn, o->mark_step, o->lab, tn, ex_x_arg(pl), as, o->lab, tn,
                      ex_x_arg(pl), as);
    else
        strbuf_printf(b, "        step%s(%s, me%s%s);\n", o->lab, tn, ex_x_arg(pl), as);
    strbuf_free(&params);
    strbuf_free(&args);
    strbuf_free(&uses);
    if (pl->exchange == XF_EXCHANGE_ALLTOALLV) {
        char *when = ex_msg_steps(pl, tn);   /* the steps with messages; NULL: every step */
        if (when) strbuf_printf(b, "        if (%s)   /* the steps at which some processor sends */\n    ", when);
        strbuf_printf(b, "        deliver(rt_x%s);\n", o->pieced || ex_mcast_used(pl) ? ", me" : "");
        free(when);
    }
    for (int k = 0; pl->exchange == XF_EXCHANGE_HALO && !ex_overlap_placed(pl) && k < pl->nphases; k++) {
        hc.n = 0;
        if (hc.s) hc.s[0] = '\0';
        for (int i = 0; i < pl->phase_nconds[k]; i++) {
            if (i) strbuf_printf(&hc, " && ");
            ex_expr(&o->m, &hc, &pre, 4, pl->phase_cond[k][i]);
        }
        if (hc.n) strbuf_printf(b, "        if (%s)\n    ", hc.s);
        strbuf_printf(b, "        exchange_halo(pattern[%d], me, %s);\n", k, tn);
    }
    strbuf_printf(b, "    }\n    const double seconds = rt_time_stop(MPI_COMM_WORLD, t0);\n");
    if (o->replay) ex_prog_late_marks(o);
    if (o->replay)
        strbuf_printf(b, "    for (int64_t %s = %s, %s_end = %s; %s <= %s_end; %s += %s) {   /* the outputs' stamps */\n"
                         "        if (++rt_stamp > RT_MARK_MAX) rt_die(\"more steps than an rt_mark holds\");\n        mark%s(%s, me);\n    }\n",
                      tn, lo.s, tn, hi.s, tn, tn, tn, st.n ? st.s : "1", o->lab, tn);
    strbuf_free(&lo);
    strbuf_free(&hi);
    strbuf_free(&st);
    strbuf_free(&pre);
    strbuf_free(&hc);
}

/* syndm main: the checksum, the memory the pieces saved, the result line, everything freed. */
static void ex_prog_main_end(ex_prog_out *o)
{
    const ex_plan *pl = o->pl;
    const ir_program *p = o->p;
    strbuf *b = &o->b;
    strbuf_printf(b, "    const uint64_t sum = output_checksum(me);\n");
    if (!pl->shared) {   /* the elements each rank allocated (what the dist and the pieces keep), before the result line */
        strbuf_printf(b, "    rt_report_memory(MPI_COMM_WORLD, ");   /* polyapm-memory elements=[..] total=N */
        for (int i = 0; i < p->narrays; i++) strbuf_printf(b, "%s%s_size(me)", i ? " + " : "", pl->arr[i].cname);
        strbuf_printf(b, "%s);\n", p->narrays ? "" : "0");
    }
    strbuf_printf(b, "    rt_report(MPI_COMM_WORLD, sum, seconds);\n");
    for (int k = 0; pl->exchange == XF_EXCHANGE_HALO && k < pl->nphases; k++)
        strbuf_printf(b, "    rt_pattern_free(pattern[%d]);\n", k);
    if (pl->exchange == XF_EXCHANGE_ALLTOALLV) strbuf_printf(b, "    if (rt_x) rt_exchange_free(rt_x);\n");
    if (ex_mcast_used(pl)) strbuf_printf(b, "    rt_mcast_free(rt_mc);\n");
    for (int i = 0; i < p->narrays; i++) {
        strbuf_printf(b, "    free(%s);\n", pl->arr[i].cname);
        if (pl->arr[i].mark) strbuf_printf(b, "    free(%s_mine);\n", pl->arr[i].cname);
        if (pl->arr[i].pieced) strbuf_printf(b, "    %s_free_pieces();\n", pl->arr[i].cname);
    }
    ex_emit_ops_setup(pl, b, 1);
    if (pl->crand) strbuf_printf(b, "    rt_crand_free();\n");
    strbuf_printf(b, "    rt_finalize();\n    return 0;\n}\n");
}

char *ex_emit_program(const ex_plan *pl)
{
    ex_prog_out o;
    memset(&o, 0, sizeof o);
    o.pl = pl;
    o.p = pl->p;
    o.m = (ex_em){.pl = pl, .mode = pl->mpi ? EX_STEP : EX_SEQ, .me = pl->mpi ? "me" : NULL, .tmp = &o.tmp,
                  .marks = 1};
    if (pl->mpi && pl->nest) ex_marks_plan(&o);
    ex_prog_head(&o);
    ex_prog_data(&o);
    ex_labels(&o.labels, o.p->body);
    o.lab = o.labels.s ? o.labels.s : "_program";
    if (!pl->mpi) {
        ex_prog_sequential(&o);
    } else {   /* syndm (and syncomm with collectives) */
        char t[64];
        o.tv = &pl->nest->u.for_.vars[0];
        snprintf(o.tn, sizeof o.tn, "%s", ex_nm(o.tv->var, t));
        if (ex_overlap_placed(pl)) ex_prog_halo(&o);   /* the steps call its halves */
        ex_prog_steps(&o);
        if (pl->exchange == XF_EXCHANGE_HALO && !ex_overlap_placed(pl)) ex_prog_halo(&o);
        if (pl->exchange == XF_EXCHANGE_ALLTOALLV) ex_prog_deliver(&o);
        ex_checksum_fn(pl, &o.b, &o.m);
        ex_prog_main_setup(&o);
        ex_prog_main_loop(&o);
        ex_prog_main_end(&o);
    }
    strbuf_free(&o.labels);
    return ex_tidy(strbuf_take(&o.b));
}
