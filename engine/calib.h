/*
 * calib.h — turning the raw output of the calibration benchmark (runtime/calibrate/bench.c) into
 * a machine profile, the way the thesis calibrated its cluster (Ellmenreich 2004, §4.4):
 *
 *   tick_seconds   what an arithmetic operation costs in exported code on this machine, from the
 *                  microbenchmarks (runtime/calibrate/micro.c, lines `micro NAME LEVEL BYTES S`):
 *                  the element update a[i] = a[i]·c + d (two operations, two streams) and the
 *                  same element put through eight such steps (sixteen operations, the same two
 *                  streams), both in the first cache level, built as the compiler does not
 *                  vectorise them (update_scalar, poly_scalar: loops with guards, sends, walks):
 *                  op = (poly − update) / 14; the vectorised pair (update, poly) gives the
 *                  vectorised op, v, the same way (without the scalar lines, op = v).  Every
 *                  parameter below counted in ticks is divided by op.  Without the micro lines
 *                  (older measurements, SimGrid's) the `tick` line (one floating multiply in a
 *                  memory-bound loop), the prices below unset
 *   stream1_price, what an element streamed from each level costs: the update over half the
 *   stream2_price, level's share (a level's size over the processors sharing it), less its two
 *   stream_cached_  vectorised operations, over its two streams, (update − 2·v) / 2 / op; the first level,
 *   price,         the second (when the machine has three), the last (cache_bytes) and memory
 *   stream_price   (four times the last level: stream_price); a negative figure (noise) is 0
 *   cache1_bytes,  the levels' shares from the `cache LEVEL BYTES SHARING` lines: the first, the
 *   cache2_bytes,  second when there are three, and the last
 *   cache_bytes
 *   latency1, ..   the chase's seconds per dependent load at each level and beyond (reported)
 *   unit_price     v / op: a tick of unit-stride work is a vectorised operation; its traffic is
 *                  its streams'
 *   accum_price    the accumulation s = s + w[k]·v[k] (first level): its seconds per element over
 *                  its two ticks (a chain of dependent additions, which exported code keeps in
 *                  order: no reassociation)
 *   accum_window,  the accumulation in chains of 64 elements one after another (`micro chains`,
 *   accum_price    the first level) against the long one (n = BYTES/16 elements, `micro accum`):
 *                  a chain of L elements costs an element a·L/(L + W) (cost.h, `chains`), so
 *                  r = accum/chains = n(64 + W)/(64(n + W)) gives W = 64n(r − 1)/(n − 64r) and
 *                  accum_price = accum·(n + W)/n/2/op; without the line, or r <= 1, or W not
 *                  positive and finite (n <= 64r), accum_window stays unset (noted)
 *   lanes_price    the accumulations y[j] = y[j] + c[k][j]·x[k], k inner, its bounds constants (the
 *                  second level): the compiler vectorises the loop over j, each lane a chain of
 *                  its own: seconds per element over its two ticks
 *   strided_price, the column walk s = s + c[i][j]·x[i] beyond the caches, rows 16000 and 8192
 *   aliased_price  bytes apart: seconds per element over its two ticks
 *   searched_price the update along rows of two pieces, each element found as exported code finds a
 *                  pieced memory's (first level): seconds per element over its two ticks
 *   strided1_price, the walk over a square matrix of half each level's share, the same way: the
 *   strided2_price, first level, the second (when there are three), the last
 *   strided_cached_price
 *   restart_price  the update over the first 256 elements of each row of 1024 beyond the caches:
 *                  its seconds per row less those of 256 elements of the same update over whole
 *                  rows (`rows`; without it, 256 of the update's elements beyond the caches),
 *                  over the tick; unset with a note when not positive
 *   entry_price    the row update y[i][..] += s[k]·x[k][..] over rows of 128 in tiles of 32
 *                  columns, each a loop of its own, against the same over whole rows (`micro
 *                  entries`: seconds per piece, E + 32e; `micro whole`: per 32 elements, E/4 + 32e;
 *                  the first level): E = (entries − whole)·4/3, over the tick; unset with a note
 *                  when not positive
 *   alias_check_  the same with y's rows updated from its own (`micro entries_checked`, `micro
 *   price          whole_checked`): the compiler tests on every entry that the two rows do not
 *                  overlap; what an entry costs there beyond entry_price; unset with a note when
 *                  not positive
 *   constant cost  exchange(P) seconds fitted through the origin against (P−1)       (eq. 4.1);
 *                  the benchmark times it once per time step, after a step's computation
 *                  (the median of batches of steps: robust to a rank descheduled for a while)
 *   send / recv    per P: the exchange time less the constant cost against X messages
 *                  per partner, least squares over X >= 60 with the 10 worst points dropped;
 *                  slope a_P and intercept b_P; ā = mean a_P/(P−1), b̄ = mean b_P/(P−1)
 *   normsent       ā_s / tick,  normrcvd = ā_r / tick                                 (ticks per message)
 *   barrier_slope  (constant slope + (b̄_s + b̄_r)/2) / tick (the startups folded in, eq. 4.2;
 *                  a mean startup below zero counts as 0, with a note);
 *                  barrier_const = 0, mstartup_s = mstartup_r = 0, coalesce = 1,
 *                  sync_on_messages = 1 (a step without messages pays no barrier: the exported
 *                  program exchanges only at the steps that send; the barrier is measured once
 *                  per step, see above),
 *                  guard_price = 0 (what the exporter's halo path pays: it never tests the
 *                  sends' guards per element; the other paths are priced at 1: cost.h, `guards`)
 *   ts, tw         ping-pong half round trips against message words (8 bytes): intercept, slope
 *   loggp_o,       (Alexandrov et al., LogGP, SPAA 1995; cost.h's loggp) from the `loggp K BYTES`
 *   loggp_L,       series, half a round trip of K-message bursts between two ranks (K Isend, one
 *   loggp_G        Waitall, answered alike): LogGP puts it at K·o + L + o + G·K·words, the sends'
 *                  overheads in turn, one latency, the last receive's overhead.  Per size a line
 *                  in K: slope o + G·words, intercept L + o.  o is the smallest messages' (8
 *                  bytes) slope and L their intercept less o; G (per 8-byte word) the slope of
 *                  the sizes' slopes against their words (t_w with one size).  Without the
 *                  series (older measurements) the keys stay unset: loggp prices L = ts, o = 0,
 *                  G = tw (cost.h)
 *   g              h-relation time against h (words): slope, mean over P; l(P) its intercept
 *                  (reported; the BSP model charges b(P) for l)
 *
 * A fitted value that comes out non-positive (noise on a loaded machine) is replaced by a
 * measured fallback (a slope by the mean cost per item at the largest count, t_s by the fastest
 * round trip) and flagged in `note`; a profile's parameters are therefore always positive.
 */
#ifndef POLYAPM_CALIB_H
#define POLYAPM_CALIB_H

#include "cost.h"
#include "diag.h"
#include "stats.h"

enum { CALIB_CHAIN_LEN = 64 };   /* the elements of `micro chains`' chains (micro.c's CHAIN_LEN) */
enum { CALIB_ENTRY_PIECES = 4 };   /* the pieces of `micro entries`' rows (micro.c's ENTRY_ROW / ENTRY_PIECE) */
enum { CALIB_MAX_P = 64, CALIB_XMIN = 60, CALIB_DROP_WORST = 10, CALIB_BURST_SIZES = 8 };
/* Cache levels the microbenchmarks report (index 1 ..; index 0: memory, beyond them). */
enum { CALIB_LEVELS = 4 };
/* The microbenchmarks' figures (seconds per element, per load or per row; 0 when absent). */
typedef struct calib_micro {
    int nlevels;                                  /* `cache` lines met (levels 1 .. nlevels) */
    double cache_bytes[CALIB_LEVELS + 1], sharing[CALIB_LEVELS + 1];
    double update[CALIB_LEVELS + 1], chase[CALIB_LEVELS + 1];   /* index 0: beyond the caches */
    double walk[CALIB_LEVELS + 1];                /* the column walk in each level (index 0: unused,
                                                     beyond the caches it is `strided`) */
    double bytes[CALIB_LEVELS + 1];               /* the working set each was measured over */
    double poly, accum, lanes, strided, aliased, restart, rows, poly_scalar, update_scalar, searched;
    double chains;                                /* the accumulation in chains of CALIB_CHAIN_LEN */
    double entries, whole;                        /* rows cut into pieces, seconds per piece, and
                                                     whole (`micro entries`, `micro whole`) */
    double entries_checked, whole_checked;        /* the same from the array's own rows */
    double accum_bytes;                           /* the long accumulation's two arrays (bytes) */
    double op;                                    /* fitted: seconds per operation, vectorised (0: none) */
    double op_scalar;                             /* fitted: not vectorised (the tick; op without
                                                     the scalar lines) */
} calib_micro;

typedef struct calib_fit {
    const char *what;          /* "exchange", "send P=2", ... (static or in `label`) */
    char label[32];
    stats_line line;           /* seconds against x */
} calib_fit;

typedef struct calib_result {
    cost_profile profile;
    int ranks;                 /* the largest P measured */
    calib_fit fits[3 * CALIB_MAX_P + CALIB_BURST_SIZES + 9];
    int nfits;
    double l_seconds[CALIB_MAX_P + 1];   /* BSP l(P), index P */
    double barrier_seconds[CALIB_MAX_P + 1]; /* MPI_Barrier, index P */
    double multiply_seconds;   /* the `tick` line: one floating multiply, memory bound */
    calib_micro micro;         /* the microbenchmarks' lines (all 0 when absent) */
    double single_bytes, single_seconds;  /* the loggp series' single message (K = 1, the
                                             smallest size; 0 without the series) */
    char note[256];            /* fallbacks taken, "" when none */
} calib_result;

/* Parses the benchmark's output and fits the profile (named `name`).  0, or -1 with messages
 * naming `file:line` for malformed lines and saying what is missing. */
int calib_fit_raw(const char *file, const char *text, const char *name, calib_result *out,
                  diag_list *d);

#endif
