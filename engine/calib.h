/*
 * calib.h — turning the raw output of the calibration benchmark (runtime/calibrate/bench.c) into
 * a machine profile, the way the thesis calibrated its cluster (Ellmenreich 2004, §4.4):
 *
 *   tick_seconds   what a tick of exported code costs on this machine: the `kernel` line's
 *                  seconds over its ticks (a small kernel exported as C and timed, one copy
 *                  per rank at once, sharing the caches and memory as a leaf's ranks do, so
 *                  that loads, stores, loop and index overhead are priced as well as flops: its
 *                  seconds over the ticks `polyapm sim` counts for it); without a `kernel` line
 *                  the `tick` line (one floating multiply in a memory-bound loop).  Every
 *                  parameter below counted in ticks is divided by this tick.  The kernel is
 *                  timed in its parts, lines `kernel_unit` (the unit-stride stencil on arrays
 *                  beyond the caches) and `kernel_strided` (the column sums: stride m = 2000),
 *                  SECONDS TICKS each; without a `kernel` line the kernel is their sum; and
 *                  `kernel_aliased` (the column sums at m = 1024: a step of 8192 bytes, sim.h's
 *                  aliased walk), `kernel_accum` (rows of a matrix product accumulated as 2mm's,
 *                  sim.h's SIM_WORK_ACCUM) and `kernel_cached` (the stencil on arrays that fit
 *                  the cache), and `kernel_update`, `kernel_update_cached` (a row update of
 *                  LU's shape, few operations to a stream, beyond the caches and in them),
 *                  `kernel_rows`, `kernel_rows_long` (the update over 170 and 340 elements of
 *                  rows of 1000: LU's trailing rows); a part's line may end with STREAMS, the
 *                  elements it streams, and RESTARTS, the streams it starts over (cost.h,
 *                  `streams`);
 *                  `cache_bytes N`: the cache one processor has
 *   unit_price,    each part's seconds per tick over tick_seconds: what a tick of that work class
 *   strided_price, (sim.h, SIM_WORK_*) costs against the mean tick; 1 when its line is absent
 *   aliased_price
 *   accum_price,   the same for kernel_accum and kernel_cached; unset when the line is absent
 *   unit_cached_price
 *   cache_bytes    the `cache_bytes` line; unset when absent (cost.h, `cache`)
 *   stream_price,  with the update's lines: the stencil and the update solved together for what
 *   stream_cached_ a tick of operations and an element streamed cost, s = a·ticks + b·streams,
 *   price          in the caches (unit_cached_price = a, stream_cached_price = b, over
 *                  tick_seconds) and beyond them (unit_price, stream_price).  A solution that is
 *                  not positive (the two parts do not tell operations from streams apart: beyond
 *                  the caches, where a prefetched update runs nearly as fast as in them and the
 *                  stencil twice as slow, as on the machine this was written on) leaves, in the
 *                  cache, the keys unset (unit work priced per tick as above), and beyond it
 *                  stream_price 0 (the stencil's price per tick, its traffic included); a note
 *                  says which
 *   restart_price  with the rows' lines: the seconds per tick of kernel_update_cached (whole
 *                  rows), kernel_rows_long and kernel_rows against their restarts per tick, a
 *                  least-squares line whose slope is a restart's seconds, over tick_seconds;
 *                  unset, with a note, when it is not positive
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

enum { CALIB_MAX_P = 64, CALIB_XMIN = 60, CALIB_DROP_WORST = 10, CALIB_BURST_SIZES = 8 };
/* The kernel's parts: one per work class (SIM_WORK_*), then the stencil in the cache, the row
 * update beyond the caches and in them, and the update over part of longer rows at two lengths. */
enum { CALIB_PART_CACHED = SIM_WORK_CLASSES, CALIB_PART_UPDATE, CALIB_PART_UPDATE_CACHED, CALIB_PART_ROWS,
       CALIB_PART_ROWS_LONG, CALIB_PARTS };

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
    double kernel_seconds, kernel_ticks;  /* the `kernel` line (0 when absent), else the sum
                                             of its parts */
    double part_seconds[CALIB_PARTS], part_ticks[CALIB_PARTS];  /* the parts' lines
                                             (calib_part_names; 0 when absent) */
    double part_streams[CALIB_PARTS];  /* the elements each part streams (0 when its line
                                             does not say) */
    double part_restarts[CALIB_PARTS]; /* the streams it starts over (0 when it does not say) */
    double cache_bytes;        /* the `cache_bytes` line (0 when absent) */
    double single_bytes, single_seconds;  /* the loggp series' single message (K = 1, the
                                             smallest size; 0 without the series) */
    char note[256];            /* fallbacks taken, "" when none */
} calib_result;

/* The raw line of each part of the kernel: a work class's ("kernel_unit", "kernel_strided", ..;
 * NULL for SIM_WORK_SCALAR, which has no part) and, at CALIB_PART_CACHED, "kernel_cached" (the
 * unit-stride stencil on arrays that fit the cache), then "kernel_update",
 * "kernel_update_cached" (the row update), "kernel_rows" and "kernel_rows_long" (it over part of
 * longer rows). */
extern const char *const calib_part_names[CALIB_PARTS];

/* Parses the benchmark's output and fits the profile (named `name`).  0, or -1 with messages
 * naming `file:line` for malformed lines and saying what is missing. */
int calib_fit_raw(const char *file, const char *text, const char *name, calib_result *out,
                  diag_list *d);

#endif
