/*
 * registry.c — the one table of transforms, and the calls every front end uses: find a
 * transform, list what applies to a program, apply one to a program or to program text.
 *
 * A transform is a row here: name, the levels it applies to, its parameters (typed, with
 * defaults, candidate values and help), a summary, and its applicable/apply functions, which
 * live in a folder per transformation family (stm/, distribute/, ...).
 */
#include <stdlib.h>
#include <string.h>

#include "entries_int.h"

#define LV(l) (1u << (l))

static const xf_param stm_params[] = {
    {"theta", XF_P_EXPR, NULL, NULL, 1,
     "schedule: the time step of each instance, affine in the statement's loop variables and the "
     "parameters (theta=EXPR for all statements, theta.LABEL=EXPR for one)", 0, NULL},
    {"sigma", XF_P_EXPR, NULL, NULL, 1,
     "allocation: the virtual processor of each instance, affine (sigma=EXPR, sigma.LABEL=EXPR)", 0, NULL},
    {"inner", XF_P_ENUM, "none", "none|seq", 0,
     "none: one instance per (t, p) point; seq: instances sharing a point run in inner "
     "sequential loops, in their original order", 0, NULL},
    {"auto", XF_P_STRING, NULL, NULL, 0,
     "propose legal schedules and allocations (small coefficients), ranked by the number of time "
     "steps, then processors; applies candidate `pick`", 0, NULL},
    {"pick", XF_P_INT, "1", NULL, 0, "with auto: which candidate to apply (1 = best)", 0, NULL},
};

static const xf_param tile_params[] = {
    {"kind", XF_P_ENUM, "blocked", "blocked|cyclic|blockcyclic|block2d", 0,
     "blocked: each real processor a contiguous block of virtual ones; cyclic: round robin; "
     "blockcyclic: blocks of bs round robin; block2d: square tiles of a two-dimensional "
     "allocation (stm sigma=A,B) on a isqrt(procs) x isqrt(procs) grid (also accepted as a bare "
     "word: tile cyclic)", 0, NULL},
    {"procs", XF_P_INT, "4", "2|4|8|16", 0,
     "the number of real processors (the program's parameter procs; its value when present)", 0, NULL},
    {"bs", XF_P_INT, NULL, "2|4|8", 0, "blockcyclic: the block size (bs=1 is kind=cyclic, which explore tries)", 0,
     "kind=blockcyclic"},
};

static const xf_param commgen_params[] = {
    {"gencost", XF_P_INT, "0", "0|8", 0,
     "ticks of message generation per element: added to every cost annotation of the body (the "
     "thesis used 8 for FD), or to each send when the body has none", 1, NULL},
    {"lastsend", XF_P_INT, "0", "0|1", 0,
     "1: also send on the last time step, where nobody reads the values (what the thesis's "
     "programs do; their published costs include these messages)", 1, NULL},
};

static const xf_param memdist_params[] = {
    {"layout", XF_P_ENUM, "auto", "auto|box", 0,
     "auto: an array's local memory in pieces (a box per group of accesses, its last range ragged) "
     "where they hold its footprint in at least 10% less memory than the box around it; box: the box "
     "(more memory, every access plain indexing: the exported code finds an element of several pieces "
     "by searching them), refused where auto's memories are indexed directly already", 0, NULL},
};

static const xf_param overlap_params[] = {
    {"width", XF_P_INT, "1", "1|2", 0,
     "the boundary's width: the elements within `width` of the element nest's faces are computed and "
     "sent first (every send must fire there)", 0, NULL},
    {"maxbuf", XF_P_INT, NULL, NULL, 0,
     "bytes one processor's live send buffers of a step may hold: where the placement needs more (at the "
     "parameters' values), the plain placement instead, with a comment saying so (the paper's re-blocking)",
     0, NULL},
};

static const xf_param aggregate_params[] = {
    {"maxbuf", XF_P_INT, NULL, NULL, 0,
     "bytes one processor's packed send buffers of a step may hold (the words to partners that get several "
     "arrays): where more (at the parameters' values), the plain placement instead, with a comment saying so",
     0, NULL},
};

static const xf_param ghost_params[] = {
    {"width", XF_P_INT, "2", "2|3", 0,
     "k >= 2: exchange every k steps with a halo k times the stencil's reach wide (each side its own); in "
     "between each processor recomputes the part of its neighbours' blocks the next steps read", 0, NULL},
};

static const xf_param local_params[] = {
    {"order", XF_P_STRING, "auto", NULL, 0,
     "auto: each innermost nest in the order that walks the most accesses at unit stride innermost, "
     "where the dependences allow; V1,V2,..: every nest of exactly these loops in this order, outer "
     "first (statements in the way distributed into loops of their own)", 0, NULL},
    {"tile", XF_P_STRING, NULL, NULL, 0,
     "tile sizes, one per loop outer first (the last repeats; 0: not tiled): with order=V.. those "
     "loops; with auto each chain of loops from a nest's top to an innermost loop that reuses data "
     "across its outer loops", 0, NULL},
    {"jam", XF_P_INT, "1", NULL, 0,
     "with tile=: turns of each tiled band's first loop (or of its next, a triangle's) run together, that "
     "many (up to 8), in a loop the exporter unrolls into the loop around it (unroll and jam; 1: none)", 0, NULL},
    {"regs", XF_P_INT, "1", NULL, 0,
     "with jam=: a jammed band's innermost loop in register tiles of that many elements (up to 64), a loop "
     "over them outside the band's next loop, each turn's elements kept in registers across that loop "
     "(gemm's C[i][j .. j + 15] along k) where a band's element fits, the jam alone elsewhere; 1: none", 0, NULL},
    {"at", XF_P_STRING, NULL, NULL, 0, "only the nests holding the statement with this label", 0, NULL},
};

static const xf_param fuse_params[] = {
    {"at", XF_P_STRING, NULL, NULL, 0,
     "the label of a statement of the chain to fuse (default: the first chain that qualifies)", 0, NULL},
};
#define FUSE_P fuse_params, 1

static const xf_param tuple_params[] = {
    {"at", XF_P_STRING, NULL, NULL, 0,
     "the label of a statement of the run to fuse (default: the first run of two or more)", 0, NULL},
    {"all", XF_P_ENUM, "0", "0|1", 0, "1: fuse every run, one after the other", 0, NULL},
};

/* A collective-fusion row: name, summary, and the family of functions xf_fuse_ID_*. */
#define FUSE_ROW(name, id, summary) \
    {name, LV(IR_SYNCOMM) | LV(IR_SYNDM), FUSE_P, summary, xf_fuse_##id##_applicable, \
     xf_fuse_##id##_apply, xf_fuse_##id##_predict}

static const xf_transform registry[] = {
    {"stm", LV(IR_SOURCE), stm_params, sizeof stm_params / sizeof stm_params[0],
     "space-time mapping: schedule theta and allocation sigma per statement (source -> syn)",
     xf_stm_applicable, xf_stm_apply, NULL},
    {"tile", LV(IR_SYN), tile_params, sizeof tile_params / sizeof tile_params[0],
     "processor tiling: virtual processors onto procs real ones, blocked or cyclic (syn -> syn)",
     xf_tile_applicable, xf_tile_apply, NULL},
    {"commgen", LV(IR_SYN), commgen_params, sizeof commgen_params / sizeof commgen_params[0],
     "communication generation: owner computes, a send along every dependence that crosses real "
     "processors (syn -> syncomm)",
     xf_commgen_applicable, xf_commgen_apply, NULL},
    {"memdist", LV(IR_SYNCOMM), memdist_params, sizeof memdist_params / sizeof memdist_params[0],
     "memory distribution: each processor's local memory from its footprint, tile plus halo "
     "(syncomm -> syndm)",
     xf_memdist_applicable, xf_memdist_apply, NULL},
    {"redist", LV(IR_SYNDM), NULL, 0,
     "redistribution between phases: an array one phase accesses by rows and another by columns is "
     "transposed between them (the transpose collective) instead of sent element by element (syndm -> syndm)",
     xf_redist_applicable, xf_redist_apply, NULL},
    {"relcoord", LV(IR_SYNDM), NULL, 0,
     "relative coordinates: local memories indexed from 0, messages carry the receiver's index "
     "(syndm -> syndm)",
     xf_relcoord_applicable, xf_relcoord_apply, NULL},
    {"local", LV(IR_SYN) | LV(IR_SYNCOMM) | LV(IR_SYNDM), local_params, sizeof local_params / sizeof local_params[0],
     "locality in a processor's step: loops interchanged to unit stride, distributed, tiled, where "
     "every dependence allows (bit for bit the same values) (same level)",
     xf_local_applicable, xf_local_apply, NULL},
    {"overlap", LV(IR_SYNDM), overlap_params, sizeof overlap_params / sizeof overlap_params[0],
     "communication placement: the boundary computed and sent first, the interior while the messages "
     "travel, then recv (Fahringer & Mehofer 1999) (syndm -> syndm)",
     xf_overlap_applicable, xf_overlap_apply, xf_overlap_predict},
    {"aggregate", LV(IR_SYNDM), aggregate_params, 1,
     "communication placement: one message per partner and step, every array's elements in it "
     "(`messages aggregate`; Fahringer & Mehofer 1999) (syndm -> syndm)",
     xf_aggregate_applicable, xf_aggregate_apply, xf_aggregate_predict},
    {"ghost", LV(IR_SYNDM), ghost_params, 1,
     "communication placement: ghost zones of width k, the halo exchanged every k steps and the "
     "neighbours' elements recomputed between: fewer, larger messages for redundant work (Ding & He 2001) "
     "(syndm -> syndm)",
     xf_ghost_applicable, xf_ghost_apply, NULL},
    FUSE_ROW("sr2-reduction", sr2, "fusion: scan(*); [all]reduce(+) -> one [all]reduce over pairs, "
             "when * distributes over + (Gorlatch et al. 1999)"),
    FUSE_ROW("sr-reduction", sr, "fusion: scan(+); [all]reduce(+) -> one balanced-tree reduction over "
             "pairs, + commutative"),
    FUSE_ROW("ss2-scan", ss2, "fusion: scan(*); scan(+) -> one scan over pairs, * distributes over +"),
    FUSE_ROW("ss-scan", ss, "fusion: scan(+); scan(+) -> one butterfly scan over quadruples, + commutative"),
    FUSE_ROW("bs-comcast", bs, "fusion: bcast; scan(+) -> bcast; local repeat (processor k: its k-th "
             "element)"),
    FUSE_ROW("bss2-comcast", bss2, "fusion: bcast; scan(*); scan(+) -> bcast; local repeat, * distributes "
             "over +"),
    FUSE_ROW("bss-comcast", bss, "fusion: bcast; scan(+); scan(+) -> bcast; local repeat, + commutative"),
    FUSE_ROW("br-local", br, "fusion: bcast; reduce(+) -> local on the root (p-fold doubling)"),
    FUSE_ROW("br-alllocal", brall, "fusion: bcast; allreduce(+) -> local on the root; bcast"),
    FUSE_ROW("bsr2-local", bsr2, "fusion: bcast; scan(*); reduce(+) -> local on the root, * distributes "
             "over +"),
    FUSE_ROW("bsr-local", bsr, "fusion: bcast; scan(+); reduce(+) -> local on the root, + commutative"),
    {"fuse-reductions", LV(IR_SYNCOMM) | LV(IR_SYNDM), tuple_params, 2, "fusion: k adjacent reductions "
     "(or allreductions) over the same processors -> one reduction whose state is the tuple of theirs "
     "(Deitz et al. 2006; global-view operators when they read the same blocks)", xf_fuse_tuple_applicable, xf_fuse_tuple_apply, xf_fuse_tuple_predict},
    FUSE_ROW("bcast-scatter-allgather", bcast_sa, "distribution law: bcast -> scatter; allgather "
             "(Di Cosmo et al. 2004)"),
    FUSE_ROW("scatter-allgather-bcast", sa_bcast, "distribution law: scatter; allgather -> bcast"),
    FUSE_ROW("allgather-gather-bcast", allg_gb, "distribution law: allgather -> gather; bcast"),
    FUSE_ROW("gather-bcast-allgather", gb_allg, "distribution law: gather; bcast -> allgather"),
    FUSE_ROW("multicast-scatter-bcast", mc_sb, "distribution law: multicast to groups -> scatter to the "
             "groups' first processors; bcast in each group"),
    FUSE_ROW("multicast-scatter-allgather", mc_sa, "distribution law: multicast to groups -> scatter; "
             "allgather in each group"),
    FUSE_ROW("scatter-bcast-multicast", sb_mc, "distribution law: scatter to the groups' first "
             "processors; bcast in each group -> multicast"),
    FUSE_ROW("scatter-allgather-multicast", sa_mc, "distribution law: scatter; allgather in each group "
             "-> multicast"),
};

enum { NXF = sizeof registry / sizeof registry[0] };

const xf_transform *xf_find(const char *name)
{
    for (int i = 0; i < NXF; i++)
        if (strcmp(registry[i].name, name) == 0) return &registry[i];
    return NULL;
}

int xf_count(void) { return NXF; }

const xf_transform *xf_at(int i) { return i >= 0 && i < NXF ? &registry[i] : NULL; }

ir_program *xf_apply(const ir_program *src, const char *name, int argc, char *const *argv,
                     diag_list *d, int *status)
{
    return xf_apply_with(src, name, argc, argv, NULL, 0, NULL, d, status);
}

/* Why t does not apply at p's level: the levels it applies at (a fresh string). */
static char *level_why(const xf_transform *t, const ir_program *p)
{
    strbuf b = {0};
    strbuf_printf(&b, "applies at");
    for (int l = 0, k = 0; l < 32; l++)
        if (t->levels & (1u << l)) strbuf_printf(&b, "%s %s", k++ ? "," : "", ir_level_name((ir_level)l));
    strbuf_printf(&b, "; this program is %s", ir_level_name(p->level));
    return b.s;
}

ir_program *xf_apply_with(const ir_program *src, const char *name, int argc, char *const *argv,
                          const ir_binding *ov, int nov, FILE *report, diag_list *d, int *status)
{
    int st = XF_EUSAGE;
    ir_program *out = NULL;
    const xf_transform *t = xf_find(name);
    xf_args a = {.bindings = ov, .nbindings = nov, .report = report};
    if (!t) {
        strbuf l = {0};
        for (int i = 0; i < NXF; i++) strbuf_printf(&l, "%s%s", i ? ", " : "", registry[i].name);
        diag_add(d, NULL, 0, 0, "unknown transform '%s' (known: %s)", name, l.s);
        strbuf_free(&l);
    } else if (xf_args_parse(&a, argc, argv, d) == 0) {
        char *why = NULL;
        if (!(t->levels & LV(src->level))) why = level_why(t, src);
        if (why || !t->applicable(src, &why)) {
            diag_add(d, src->file, 0, 0, "%s does not apply: %s", name,
                     why ? why : "not at this level");
            st = XF_EREFUSED;
        } else {
            out = t->apply(src, &a, d, &st);
        }
        free(why);
    }
    xf_args_free(&a);
    if (status) *status = out ? XF_OK : st;
    return out;
}

char *xf_apply_text(const char *file, const char *src_text, const char *name, int argc,
                    char *const *argv, diag_list *d, int *status)
{
    ir_program *p = ir_load_text(file, src_text, strlen(src_text), d);
    if (!p) {
        if (status) *status = XF_EREFUSED;
        return NULL;
    }
    ir_program *q = xf_apply(p, name, argc, argv, d, status);
    char *txt = q ? ir_print(q) : NULL;
    ir_program_free(q);
    ir_program_free(p);
    return txt;
}

static const char *const ptype_name[] = {"int", "expr", "enum", "string"};

void xf_print_applicable(FILE *out, const ir_program *p, int json)
{
    xf_print_applicable_on(out, p, json, NULL);
}

void xf_print_applicable_on(FILE *out, const ir_program *p, int json, const cost_profile *prof)
{
    if (!prof) prof = cost_profile_builtin("scali2004");
    if (json) fprintf(out, "[");
    int first = 1;
    for (int i = 0; i < NXF; i++) {
        const xf_transform *t = &registry[i];
        char *why = NULL;
        int ok = (t->levels & LV(p->level)) && t->applicable(p, &why);
        if (!ok && !why) why = level_why(t, p);
        if (json) {
            fprintf(out, "%s\n {\"name\": \"%s\", \"applicable\": %s, \"summary\": \"%s\"",
                    first ? "" : ",", t->name, ok ? "true" : "false", t->summary);
            if (!ok) fprintf(out, ", \"why_not\": \"%s\"", why);
            char *gain = ok && t->predict ? t->predict(p, prof) : NULL;
            if (gain) fprintf(out, ", \"predicted\": \"%s\"", gain);
            free(gain);
            fprintf(out, ", \"params\": [");
            for (int k = 0; k < t->nparams; k++) {
                const xf_param *q = &t->params[k];
                fprintf(out, "%s{\"name\": \"%s\", \"type\": \"%s\", \"default\": ", k ? ", " : "",
                        q->name, ptype_name[q->type]);
                if (q->def) fprintf(out, "\"%s\"", q->def); else fprintf(out, "null");
                fprintf(out, ", \"candidates\": ");
                if (q->candidates) fprintf(out, "\"%s\"", q->candidates); else fprintf(out, "null");
                fprintf(out, ", \"per_statement\": %s, \"model_only\": %s, \"only_with\": ",
                        q->per_stmt ? "true" : "false", q->model_only ? "true" : "false");
                if (q->only_with) fprintf(out, "\"%s\"}", q->only_with); else fprintf(out, "null}");
            }
            fprintf(out, "]}");
        } else {
            fprintf(out, "%-10s %s\n", t->name, t->summary);
            if (!ok) {
                fprintf(out, "           (not applicable: %s)\n", why);
            } else {
                char *gain = t->predict ? t->predict(p, prof) : NULL;
                if (gain) fprintf(out, "    %s\n", gain);
                free(gain);
                for (int k = 0; k < t->nparams; k++) {
                    const xf_param *q = &t->params[k];
                    fprintf(out, "    %s%s=%s", q->name, q->per_stmt ? "[.LABEL]" : "", ptype_name[q->type]);
                    if (q->def) fprintf(out, " (default %s)", q->def);
                    if (q->candidates) fprintf(out, " {%s}", q->candidates);
                    if (q->only_with) fprintf(out, " (with %s)", q->only_with);
                    if (q->model_only) fprintf(out, " (a cost-model setting: explore keeps the default)");
                    fprintf(out, "\n        %s\n", q->help);
                }
            }
        }
        first = 0;
        free(why);
    }
    if (json) fprintf(out, "\n]\n");
}
