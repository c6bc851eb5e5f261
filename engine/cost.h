/*
 * cost.h — machine profiles and the cost models that price a simulation trace.
 *
 * Models (one table in cost.c, selected by name):
 *   polyapm  the thesis's model (Ellmenreich 2004, Fig. 3.5, §3.4):
 *              c_it = Σ_j s̄·s_ijt + m_s·(#messages sent) + Σ_j r̄·r_ijt + m_r·(#messages received)
 *                   + b(P)
 *              cost = Σ_t max_i (w_it + c_it)   (a message: one per partner and array and step,
 *                                                 per partner when aggregated; see cost.c)
 *   bsp      superstep = max_i w_it + g·max_i h_it + l(P),  h_i = max(words out, words in)
 *   hockney  c_it = max(Σ_sends (t_s + t_w·m), Σ_recvs (t_s + t_w·m)) + b(P);
 *            cost = Σ_t max_i (w_it + c_it)
 *   loggp    (Alexandrov et al., LogGP, SPAA 1995) the exchange as exported code runs it: every
 *            message of a step posted at once (Isend/Irecv), then one wait; with s_i, r_i the
 *            processor's messages out and in, W_i its words out plus in, o the per-message CPU
 *            overhead on each side, L the latency, G the time per word on the processor's link:
 *              c_it = max(o·s_i, o + L) + o·r_i + G·W_i + b(P)     (0 + b(P) without messages)
 *            the sends' overheads one after another; the first message arrives o + L after the
 *            step's sends start, so the latencies of concurrent messages overlap (paid once,
 *            not per partner); the receives' overheads one after another after both; the words
 *            in and out share the link (a cluster host's one link carries both).  Without
 *            r_i: max(o·s_i, 0).  The gap g is taken to be at most o.  Keys loggp_L, loggp_o,
 *            loggp_G; a profile without them prices L = t_s, o = 0, G = t_w (so loggp under
 *            scali2004 or a calibrated profile is hockney with concurrent startups).
 *            `polyapm platform --profile` writes them for a SimGrid cluster.
 *   overlap  (polyapm, hockney, loggp) a step that ends with `recv` works o_it ticks between its
 *            last send and its recv (the trace's overlap); that work hides its messages:
 *            c_it −= min(o_it, c_it − b(P) − busy_it), busy_it the CPU time no work hides
 *            (loggp: o·(s_i + r_i); 0 for the others).  BSP's supersteps do not overlap.
 *   guards   w_it counts every operation, the guards of sends (`when`) included (the thesis's
 *            rule); a profile prices those guard ticks (the trace's guard, g_it) apart:
 *              w_it = work_it − (1 − guard_price)·g_it
 *            guard_price 1 (scali2004, and any profile without the key) is the thesis's rule;
 *            `polyapm calibrate` writes 0, what the exporter's halo path pays: it records a halo
 *            pattern's sends once (the guards run when the pattern is built, not per element
 *            and step) — the path of every program whose partner set is static, the stencils
 *            whose guards outweigh their work.  The record (alltoallv) and multicast paths test
 *            the guard per element where it changes in the element loop; where it does not,
 *            the exporter tests it once before the loop (the loop versioned), and where that
 *            test pins an enclosing loop's variable (LU's 2p == t + 1: one row of many) the
 *            element loop with the guards runs rarely.  The trace does not say what the
 *            exporter will write, so the callers that price a program (simjob, the choice of
 *            placements) pass the profile of xf_export_pricing, guard_price 1 where the export
 *            tests some guard per element.
 *   classes  w_it also prices the trace's work classes apart (sim.h, SIM_WORK_*: how a statement's
 *            accesses move with its innermost loop, which decides how fast the exported loop runs):
 *              w_it −= (1 − unit_price)·u_it + (1 − strided_price)·s_it + (1 − aliased_price)·a_it
 *            u_it, s_it, a_it the ticks of unit-stride, strided and aliased statements (the
 *            trace's wclass).
 *            1 (scali2004, and any profile without the keys) leaves the work as it is, bit for
 *            bit; `polyapm calibrate` times each class's part of its kernel apart and writes
 *            their seconds per tick over tick_seconds.  Accumulations (k_it: SIM_WORK_ACCUM)
 *            pay accum_price, or the unit-stride price where the profile has none; with the
 *            `cache` term below, accum_price (measured in the cache) times u_i / u_c: dearer
 *            beyond the cache as unit work is.  Unit-stride work in a tile's point loops whose
 *            rows the tile reads again (SIM_WORK_BLOCKED, sim.h) pays unit_cached_price with
 *            the `cache` term (its rows stay in the cache whatever the processor's data), the
 *            unit-stride price without.  Work in a memory found through its pieces
 *            (SIM_WORK_SEARCHED) pays searched_price, or is priced as strided work where the
 *            profile has none.
 *   walks    a strided price is what a statement with one walking access costs a tick; each of
 *            its distinct walking accesses after the first loads lines of its own (the trace's
 *            walks, v_it: the statement's ticks once more per such access; sim_stmt_walks) and
 *            adds what a walk costs above a scalar tick:
 *              w_it += max(0, s_i − 1)·v_it,   s_i the strided price (with the `levels` blend)
 *            a strided price of 1 or less (scali2004) adds nothing.  A walk that reads the
 *            target it keeps along its loop, or a reduction over a walk, is a chain of additions
 *            as well (the trace's chained, x_it: two ticks a step; sim_classes.c,
 *            sim_stmt_chain), whose loads run beside the chain: with accum_price set, a tick on
 *            the chain costs the dearer of the two,
 *              w_it += max(0, a_i − s_i)·x_it,   a_i the accumulation's price (`chains`).
 *   cache    a unit-stride stream runs at the speed of where its data lives: the cache when the
 *            processor's data (the trace's data_bytes, D_i) fits the cache it has (cache_bytes,
 *            C), memory when not.  With unit_cached_price (u_c) and cache_bytes set, a tick of
 *            unit-stride work (and of accumulations without accum_price) costs
 *              u_i = u_c + f_i·(unit_price − u_c),   f_i = max(0, 1 − C / D_i)
 *            f_i the part of the data the cache cannot hold, which streams from memory on every
 *            sweep (unit_price: what a stream from memory costs).  Unset (scali2004, and any
 *            profile without the keys): u_i = unit_price, bit for bit.  `polyapm calibrate`
 *            times the kernel's stencil at two sizes (its arrays beyond the caches: unit_price;
 *            in them: unit_cached_price) and writes the last-level cache over the processors
 *            that share it as cache_bytes.
 *   streams  what a unit-stride statement costs is its operations and its traffic: the rows of
 *            elements an instance moves that the caches do not keep (the trace's streams, z_it:
 *            sim_streams.c; gemm's row of B, LU's row of A read and written back).  With
 *            stream_price set, w_it += z_i·z_it, z_i = stream_price, or, with stream_cached_price
 *            and cache_bytes set, z_c + f_i·(stream_price − z_c) as in `cache`; unit_price then
 *            prices the operations alone.  Unset (scali2004, and any profile without the key):
 *            no term, bit for bit.  `polyapm calibrate` times a second part beside the stencil
 *            (a row update, LU's shape: few operations to a stream) at both sizes and solves
 *            the two for the price of a tick and of a streamed element (calib.h: where they
 *            do not separate, beyond the caches, stream_price 0 and the stencil's per tick).
 *            A loop over part of a row starts its streams over on every entry (the trace's
 *            restarts, r_it; LU's trailing rows: the prefetcher begins again): with
 *            restart_price set, w_it += restart_price·r_it; `calibrate` times the update over
 *            whole rows and over part of longer rows at two lengths, and fits its seconds per
 *            tick against its restarts per tick.
 *   levels   with cache1_bytes and stream1_price (and cache2_bytes, stream2_price) set, a stream's
 *            element costs what the levels that hold the processor's data charge, each for the
 *            part of the data D_i it holds (C_0 = 0, the levels in order, cache_bytes the last,
 *            at stream_cached_price, memory beyond it at stream_price):
 *              z_i = Σ_k z_k·(min(D_i, C_k) − min(D_i, C_k−1))/D_i + stream_price·max(0, D_i − C_last)/D_i
 *            a sweep over the processor's data finds the part each level holds there (the data's
 *            reuse distance is its size).  With strided1_price set, a tick of strided work
 *            (a walk down columns) is priced the same way, by strided1_price, strided2_price,
 *            strided_cached_price and strided_price (memory).  A restart (`streams`) costs restart_price for the
 *            part of D_i beyond the last level, max(0, D_i − C_last)/D_i, nothing within the
 *            caches (the next row is there: no prefetcher to wait for).  With stream1_price set, an
 *            access of unit-stride work to a row the caches keep (the trace's cached accesses,
 *            a_it: sim_streams.c; gemm's row of C across k, a stencil's neighbours beside its
 *            stream) is a load or store in the first level: w_it += stream1_price·a_it (the
 *            microbenchmark's update in the first level is two operations and two such
 *            accesses).  Of them, an access to a tile's row read again (the trace's tile_reads,
 *            T_it, and tile_bytes, B_it: each such access's tiles' bytes, summed; a tile of 32
 *            rows of 256 columns is 64 KB) is read from where a sweep over its tiles' bytes
 *            finds it: z(B_it/T_it) by the levels as above, with the tiles' bytes for D_i, in
 *            place of stream1_price.  Unset (every profile before them): `cache` above,
 *            bit for bit.  `polyapm calibrate` measures the levels with microbenchmarks of its
 *            own (engine/calib.h).
 *   chains   an accumulation's chain of additions waits on each addition, but the processor runs
 *            the next chain's first elements, which do not wait on it, while one ends: a short
 *            chain costs less an element than a long one (syrk's k in tiles of 64 runs its chains
 *            at half the price of a whole row's).  With accum_window (W, elements) set, the
 *            accumulations' ticks of a cell pay accum_price·L/(L + W), L their chains' mean length
 *            (the trace's chains: their ticks over 2 over the chains begun; sim_classes.c).
 *            `polyapm calibrate` times chains of 64 elements one after another against the
 *            long one and solves the two for W and the price of a chain without its end (the
 *            one accum_price holds).  Unset: accum_price whatever the length.
 *   entries  an innermost loop's entry costs its setup beside its turns (its trip count, the
 *            vectorised loop's way in and out, the turn of the loop around it): a tile of 64
 *            columns enters its loop four times as often as one of 256.  With entry_price set,
 *            w_it += entry_price·e_it, e_it the trace's entries (sim_classes.c); a loop whose
 *            statement reads its own array at a distance not known until run time (trmm's
 *            B[i][j] and B[k][j]) is vectorised behind a test that the two do not overlap,
 *            made on every entry: with alias_check_price set, w_it += alias_check_price·k_it,
 *            k_it the trace's alias_checks.  A trace priced at another size's data (data_scale
 *            set: explore --at's samples) counts a tile's point loop as the full tiles its turns
 *            make (the trace's full_entries and full_checks): there rows span many tiles, where a
 *            sample's rows span one or two and their partial tiles, counted, would grow with its
 *            work.  `polyapm calibrate` times the row update y[i][..] += s·x[k][..] in the first
 *            level over rows whole and in tiles of 32 columns, with x another array and x the
 *            same (engine/calib.h).  Unset: no term.
 * The barrier is b(P) = barrier_const + (P−1)·barrier_slope for P > 1, 0 for P ≤ 1; BSP's l(P) = b(P).
 * Every step pays it, except, under a profile with `sync_on_messages`, a step without any
 * message or collective (the exported code exchanges only at the steps where some processor
 * sends: it has no exchange to wait at).
 *
 * Collectives (the trace's sim_coll_rec; L = ceil(log2 P) over the P processors taking part, m
 * elements per block, w words per element, c base operations per element and combine; a step
 * costs its usual cost plus the sum of its collectives, which every processor pays):
 *   hockney (butterflies, Gorlatch et al.)
 *            bcast                       L·(t_s + m·w·t_w)
 *            [all]reduce[_bal]           L·(t_s + m·(w·t_w + c))
 *            scan, exscan                L·(t_s + m·(w·t_w + 2c))
 *            scan_bal                    L·(t_s + m·(w·t_w + c))       (c: the larger of lower/upper)
 *            multicast, scatter          P·(t_s + m·w·t_w)             (direct sends from the root)
 *            [all]gather                 (P−1)·t_s + P·m·w·t_w         (direct; Di Cosmo et al.'s
 *                                        message model: N=3, |A|=72 gives 1116 and 972 + 224)
 *            transpose                   (P−1)·(t_s + m·w·t_w)         (all-to-all: m the most
 *                                        elements one processor sends another)
 *   bsp (Di Cosmo et al.: distr, gath, bred, bscan)
 *            bcast, multicast, scatter,  P·m·w·g + l(P)
 *            [all]gather
 *            transpose                   (P−1)·m·w·g + l(P)
 *            [all]reduce[_bal]           L·(m·c + m·w·g + l(P))
 *            scan, exscan, scan_bal      L·(3·m·c + m·w·g + l(P))
 *   loggp    the hockney formulas with t_s = L + 2·o (one message alone) and t_w = G.
 *   polyapm  the hockney butterflies priced with the thesis's per-word slopes and startups
 *            (a round: one message out and one in per processor; no extra barrier):
 *            L·((s̄ + r̄)·m·w + m_s + m_r + m·f·c) with f as in hockney (1, 2 for scans, 0 for
 *            bcast); multicast, scatter: P·(m_s + s̄·m·w) + m_r + r̄·m·w; [all]gather and
 *            transpose: (P−1)·(m_s + m_r + (s̄ + r̄)·m·w).
 * With `by`, groups run concurrently: P and m are those of the largest group.
 *
 * A machine profile is a named set of parameters: built in `scali2004` (the thesis's calibration)
 * or read from a text file of `key value` lines (`#` comments; keys as in cost_profile).
 */
#ifndef POLYAPM_COST_H
#define POLYAPM_COST_H

#include <stdint.h>

#include "diag.h"
#include "sim.h"

typedef struct cost_profile {
    char name[64];
    double tick_seconds;      /* seconds per tick (an arithmetic operation: calib.h) */
    double mstartup_s, mstartup_r;
    double normsent, normrcvd;
    double barrier_slope, barrier_const;
    int coalesce;             /* 1: startups per exchanged message (cost.c); 0: per APM message */
    double ts, tw;            /* hockney (ticks) */
    double g;                 /* bsp (ticks per word) */
    int sync_on_messages;     /* 0: every step pays b(P) (the thesis's rule); 1: a step without
                                 any message or collective pays none (exported code exchanges
                                 only at the steps that send; what `calibrate` writes) */
    double guard_price;       /* ticks paid per tick of a send's `when` guard (see `guards`
                                 above): 1 = the thesis's rule (the default), 0 = what
                                 `calibrate` writes */
    double loggp_L, loggp_o, loggp_G;   /* loggp (ticks; G per word); < 0 = unset: L = ts,
                                           o = 0, G = tw (cost_loggp_params) */
    double unit_price;        /* ticks paid per tick of unit-stride statements (`classes` above;
                                 1 = the default) */
    double strided_price;     /* ticks paid per tick of strided statements (1 = the default) */
    double aliased_price;     /* ticks paid per tick of aliased statements (1 = the default) */
    double accum_price;       /* ticks paid per tick of accumulations (SIM_WORK_ACCUM); < 0 =
                                 unset: priced as unit-stride work */
    double lanes_price;       /* ticks paid per tick of accumulations a vector's lanes run side
                                 by side (SIM_WORK_LANES); < 0 = unset: priced as accumulations */
    double accum_window;      /* the elements of the next chain a processor runs while one ends
                                 (`chains` above); < 0 = unset: none */
    double unit_cached_price; /* ticks paid per tick of unit-stride work whose processor's data
                                 fits cache_bytes (`cache` above); < 0 = unset: no cache term */
    double cache_bytes;       /* the cache one processor has (bytes); < 0 = unset */
    double stream_price;      /* ticks paid per element a unit-stride statement streams
                                 (`streams` above); < 0 = unset: none */
    double stream_cached_price;   /* the same where the processor's data fits cache_bytes; < 0 =
                                 unset: stream_price */
    double restart_price;     /* ticks paid per stream started over by a loop over part of a
                                 row (`streams` above); < 0 = unset: none */
    double entry_price;       /* ticks paid per entry of an innermost loop (`entries` above);
                                 < 0 = unset: none */
    double alias_check_price; /* ticks paid per entry of one that tests its accesses' overlap
                                 (`entries` above), beyond entry_price; < 0 = unset: none */
    double cache1_bytes, cache2_bytes;    /* the inner cache levels one processor has (bytes;
                                 `levels` above); < 0 = unset */
    double stream1_price, stream2_price;  /* ticks paid per element streamed from them; < 0 =
                                 unset */
    double strided1_price, strided2_price, strided_cached_price;   /* ticks paid per tick of
                                 strided work whose data the first, second, last level holds
                                 (`levels` above; strided_price: memory); < 0 = unset */
    double searched_price;    /* ticks paid per tick of work in a memory found through its
                                 pieces (SIM_WORK_SEARCHED); < 0 = unset: priced as strided */
    double latency1, latency2, latency_cached, latency_mem;   /* ticks of a dependent load from
                                 each level, the last level (cache_bytes) and memory: what
                                 `calibrate` measured (reported, not priced); < 0 = unset */
    double data_scale;        /* not a figure of the machine: the factor the trace's data_bytes
                                 are taken at by the `cache` and `levels` terms (explore --at
                                 prices a small sample's traffic at the user's size: its
                                 arrays' elements there over the sample's); < 0 = unset: 1 */
} cost_profile;

typedef struct cost_summary {
    char model[16];
    double total;             /* ticks */
    double seconds;           /* total * tick_seconds */
    double aggregate_work;
    double guard;             /* Σ_i,t g_it: the send guards' ticks in the trace (before pricing) */
    double class_ticks[SIM_WORK_CLASSES];  /* Σ_i,t of the trace's work per work class (before
                                 pricing; [SIM_WORK_SCALAR] the rest of the work) */
    double streams;           /* Σ_i,t of the trace's streams (elements; `streams` above) */
    double restarts;          /* Σ_i,t of the trace's restarts (`streams` above) */
    double cached;            /* Σ_i,t of the trace's cached accesses (`levels` above) */
    double tile_reads;        /* of them, Σ_i,t of the accesses to a tile's rows read again */
    double chains;            /* Σ_i,t of the trace's chains (`chains` above) */
    double entries, alias_checks;   /* Σ_i,t of the trace's entries and alias checks (`entries`
                                 above) */
    double chained;           /* Σ_i,t of the trace's walking chains' ticks (`walks` above) */
    int nprocs, nsteps;
    double *work;             /* nprocs: Σ_t w_it (send guards priced by guard_price) */
    double *comm;             /* nprocs: Σ_t c_it (communication + barrier; overlap subtracted) */
    double *overlap;          /* nprocs: Σ_t o_it, the work between the last send and recv (the
                                 trace's overlap), or NULL when the program has no recv */
    int64_t *sends, *recvs;   /* nprocs: Σ_t messages (with coalesce: one per partner and array, one
                                 per partner when aggregated; else one per APM message) */
    double *step_cost;        /* nsteps: cost_t */
    double collective;        /* Σ over steps of the collectives' cost (part of total) */
    double step_work;         /* Σ_t max_i w_it: the work of each step's busiest processor (part
                                 of total; the rest is what waits for messages and barriers) */
    double commcost;          /* Fahringer & Mehofer's CommCost: Σ over message groups (a processor's
                                 messages of a step) of |min(0, o_it − (c_it − b(P)))|, the message
                                 time no work hides (all of it without recv, and under bsp) */
} cost_summary;

/* The cost of one collective under a model (ticks; 0 for an unknown model). */
double cost_collective(const char *model, const sim_coll_rec *r, const cost_profile *prof);

/* Built-in profiles by name; NULL when unknown. */
const cost_profile *cost_profile_builtin(const char *name);
/* Names of the built-in profiles, NULL-terminated. */
const char *const *cost_profile_builtin_names(void);
/* Reads a profile file.  0 = ok; otherwise diagnostics name file:line. */
int cost_profile_read(const char *path, cost_profile *out, diag_list *d);
/* Parses profile text (the same format). */
int cost_profile_parse(const char *file, const char *text, cost_profile *out, diag_list *d);
/* Sets one parameter by key ("normsent", "ts", ...). 0 = ok, -1 = unknown key, -2 = a value
 * the key refuses (the loggp keys: below 0, or not finite). */
int cost_profile_set(cost_profile *p, const char *key, double value);
/* The value of one parameter by key (as cost_profile_set names them), NAN for an unknown key. */
double cost_profile_get(const cost_profile *p, const char *key);
/* Writes the profile as text (malloc'd). */
own_give char *cost_profile_format(const cost_profile *p);
/* Resolves --machine: a built-in name or a path to a profile file. */
int cost_profile_resolve(const char *name_or_path, cost_profile *out, diag_list *d);
/* The user-level file of profile `name` (what `polyapm calibrate` writes, for every workspace):
 * $XDG_CONFIG_HOME/polyapm/machines/NAME, else $HOME/.config/polyapm/machines/NAME.  malloc'd;
 * NULL when the name is not a plain word (letters, digits, - and _) or no home is known.
 * With `mkdirs`, creates the directories. */
own_give char *cost_profile_user_path(const char *name, int mkdirs);

/* Names of the models, NULL-terminated. */
const char *const *cost_model_names(void);
/* Prices a trace.  Returns 0 and fills `out` (caller frees with cost_summary_free), or -1 for an
 * unknown model. */
int cost_evaluate(const char *model, const sim_trace *t, const cost_profile *prof, cost_summary *out);
void cost_summary_free(cost_summary *s);
double cost_barrier(const cost_profile *p, int nprocs);
/* The loggp parameters a profile prices (its keys, or t_s, 0, t_w where unset). */
void cost_loggp_params(const cost_profile *p, double *L, double *o, double *G);

#endif
