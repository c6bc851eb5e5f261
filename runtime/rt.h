/*
 * rt.h — the polyapm runtime: the one header that programs exported by `polyapm export` include.
 *
 * Plain C11 + MPI, no dependency on the rest of polyapm; the exporter copies the runtime sources
 * and this header next to the generated program.  What it offers (runtime/README.md walks
 * through it):
 *
 *   rt_init.c        MPI start/stop, rank and size, rank-count checks, error checking (RT_CHECK)
 *   rt_dist.c        index ranges of block distributions
 *   rt_exchange.c    the thesis's coalesced per-step exchange (per-destination buffers of
 *                    (index, value) records, MPI_Alltoall of counts + MPI_Alltoallv of data)
 *   rt_mcast.c       one record to a range of ranks (a row or column many need): MPI_Bcast per
 *                    sender and range, on a cached sub-communicator where the range is not all
 *   rt_halo.c        halo exchanges of 1-D block and 2-D block tilings (static partner sets)
 *   rt_pattern.c     any static partner set: recorded once, then values only, rows and columns
 *                    in place with vector datatypes
 *   rt_collective.c  user-defined/fused operators, exclusive scan with rank 0 = identity
 *   rt_coll.c        the collective statements: groups, bcast .. multicast, rank-order
 *                    reductions and scans, reduce_bal's tree, scan_bal's butterfly
 *   rt_redist.c      the transpose collective: rows packed per partner, one MPI_Alltoallv
 *   rt_checksum.c    the output checksum, identical to the simulator's sim_checksum
 *                    (engine/sim.h); no MPI (rt_checksum.h), so sequential exports need none
 *   rt_gather.c      gathering helpers for distributed arrays (rank 0 hashes them)
 *   rt_time.c        main-loop timing (MPI_Wtime, maximum over ranks)
 *   rt_report.c      the one parseable result line
 *
 * Sizes passed as int are MPI counts: one rank's piece of an array (own, rows x cols) must stay
 * below 2^31 elements; global sizes and indices are int64_t.
 *
 * Conventions: every function works on the communicator it is given (exported programs pass
 * MPI_COMM_WORLD); an MPI error or a misuse (bad rank count, tile too small, out of memory)
 * prints "polyapm-rt: ..." on stderr and ends the whole job with a non-zero exit status — the
 * functions never return an error.  Objects returned by rt_*_new are owned by the caller, who
 * releases them with the matching rt_*_free; arrays passed in stay owned by the caller.
 * No global mutable state.
 */
#ifndef POLYAPM_RT_H
#define POLYAPM_RT_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "rt_checksum.h"

/* ---------------------------------------------------------------- start, stop, errors ---- */

/* MPI_Init, then MPI_ERRORS_RETURN on MPI_COMM_WORLD so that RT_CHECK can report errors. */
void rt_init(int *argc, char ***argv);
/* MPI_Finalize. */
void rt_finalize(void);
int rt_rank(MPI_Comm comm);
int rt_size(MPI_Comm comm);

/* Checks the number of ranks of MPI_COMM_WORLD.  expected_or_0 > 0: exactly that many are
 * required; 0: any number.  On a mismatch rank 0 prints a clear message naming the expected and
 * the actual count and `why` (e.g. "the program was derived for procs = 4"), and every rank
 * finalizes MPI and exits with status RT_EXIT_RANKS. */
void rt_require_ranks(int expected_or_0, const char *why);
/* Requires a square number of ranks q*q (for a q x q tile grid) and returns q; same failure. */
int rt_require_square_ranks(const char *why);

#define RT_EXIT_RANKS 3   /* exit status for a bad rank count */
#define RT_EXIT_ERROR 2   /* exit status (MPI_Abort error code) for MPI errors and misuse */

/* Wraps an MPI call: on a result other than MPI_SUCCESS prints the call, the file and line and
 * MPI's error string, then aborts the job with RT_EXIT_ERROR. */
#define RT_CHECK(call) rt_check_((call), #call, __FILE__, __LINE__)
void rt_check_(int rc, const char *call, const char *file, int line);

/* Prints "polyapm-rt: rank R: <message>" on stderr and aborts the job with RT_EXIT_ERROR. */
_Noreturn void rt_die(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* malloc/calloc that die with a message instead of returning NULL (n == 0 gives a valid
 * pointer); release with free(). */
void *rt_malloc(size_t bytes);
void *rt_calloc(size_t n, size_t size);
/* rt_malloc for a buffer of messages that a step fills for the first time: from 2 MB on, in
 * huge pages where the system gives them on request (its first touches then fault once in 2 MB,
 * not once in 4 KB: dear on a virtual machine, and inside the timed steps); release with free(). */
void *rt_malloc_pages(size_t bytes);

/* ---------------------------------------------------------------- distributions ---------- */

/* Block distribution of 0..n-1 over `parts` parts, the thesis's blocked tiling: tile size
 * floor((n-1)/parts)+1; part i owns [*lo, *lo + *count) (count may be 0 for trailing parts). */
void rt_block_range(int64_t n, int parts, int i, int64_t *lo, int64_t *count);
/* Balanced block distribution: the first n % parts parts own one element more. */
void rt_balanced_range(int64_t n, int parts, int i, int64_t *lo, int64_t *count);

/* ---------------------------------------------------------------- coalesced exchange ----- */

/* An 8-byte element as MPI moves it between ranks, bit for bit: the exchanges below carry double
 * and int64_t arrays alike (an int64_t array is passed as double * and never computed on). */
#define RT_WORD MPI_INT64_T

/* One message of the thesis's exchange: the receiver's (local, linearised) index and the value
 * (a double, or the bits of an int64_t: rt_exchange_put_int, rt_record_int). */
typedef struct rt_record {
    int64_t index;
    double value;
} rt_record;

/* The coalesced per-step exchange: during a step each rank rt_exchange_put()s records for any
 * destinations (itself included); rt_exchange_run() then sends them all at once (MPI_Alltoall of
 * the counts, MPI_Alltoallv of the records) and empties the send buffers.  The received records
 * stay readable until the next run: grouped by source rank in increasing order, each source's in
 * the order it put them.  Buffers grow as needed and are reused from step to step. */
typedef struct rt_exchange rt_exchange;

rt_exchange *rt_exchange_new(MPI_Comm comm);          /* every rank of comm creates one */
void rt_exchange_free(rt_exchange *x);
void rt_exchange_put(rt_exchange *x, int dest, int64_t index, double value);
/* The same for an element of an int64_t array: its 8 bytes travel unchanged. */
void rt_exchange_put_int(rt_exchange *x, int dest, int64_t index, int64_t value);
/* n records at once, the same as n rt_exchange_put(_int) calls in order: indices index,
 * index + step, .., values the n 8-byte elements at `values` (a run of a double or int64_t
 * array, read in place; not kept). */
void rt_exchange_put_run(rt_exchange *x, int dest, int64_t index, int64_t step, const void *values, int64_t n);
/* The int64_t value of a record put with rt_exchange_put_int. */
int64_t rt_record_int(const rt_record *r);
void rt_exchange_run(rt_exchange *x);                  /* collective over the communicator */
/* All records received by the last run; *recs points into x (do not free). */
size_t rt_exchange_received(const rt_exchange *x, const rt_record **recs);
/* The records received from one source rank by the last run. */
size_t rt_exchange_received_from(const rt_exchange *x, int src, const rt_record **recs);
/* Stores every received record: base[index] = value (indices must lie inside base). */
void rt_exchange_apply(const rt_exchange *x, double *base);
/* Total records sent by this rank since creation (for reports). */
int64_t rt_exchange_sent_total(const rt_exchange *x);
/* A committed MPI datatype of one rt_record (the caller frees it with MPI_Type_free). */
MPI_Datatype rt_record_type(void);

/* One value to many ranks (rt_mcast.c): during a step a rank rt_mcast_put()s a record once for
 * the ranks lo .. hi (itself skipped); rt_mcast_run() (collective) broadcasts each sender's
 * records, on a sub-communicator of the sender and lo .. hi where they are not the whole
 * communicator; rt_mcast_received() gives this rank's until the next run, by sender in
 * increasing rank order.  Indices are the sender's choice (exported programs: global ones). */
typedef struct rt_mcast rt_mcast;

rt_mcast *rt_mcast_new(MPI_Comm comm);                /* every rank of comm creates one */
void rt_mcast_free(rt_mcast *m);
void rt_mcast_put(rt_mcast *m, int lo, int hi, int64_t index, double value);
void rt_mcast_put_int(rt_mcast *m, int lo, int hi, int64_t index, int64_t value);
void rt_mcast_run(rt_mcast *m);
size_t rt_mcast_received(const rt_mcast *m, const rt_record **recs);

/* ---------------------------------------------------------------- halo exchanges --------- */

/* 1-D block tiling, neighbours rank-1 and rank+1 (none beyond the ends).  buf holds
 * width*unit halo doubles, own*unit owned doubles, width*unit halo doubles, in that order; unit
 * is the number of doubles per element (1 for a 1-D array, the row length for the rows of a
 * row-blocked 2-D array, so that every halo is contiguous).  Fills both halos from the
 * neighbours' owned elements next to them (MPI_Sendrecv).  Requires own >= width when there is a
 * neighbour.  Collective over comm. */
void rt_halo1d_exchange(MPI_Comm comm, double *buf, int own, int width, int unit);

/* A q_rows x q_cols grid of ranks over a 2-D array, rank r at grid row r / q_cols, column
 * r % q_cols (row-major, rank 0 top left).  A plain value: no allocation. */
typedef struct rt_grid2d {
    MPI_Comm comm;
    int q_rows, q_cols;       /* grid shape; q_rows * q_cols == size of comm */
    int row, col;             /* this rank's grid position */
    int north, south, west, east;   /* neighbour ranks or MPI_PROC_NULL (north = row - 1) */
} rt_grid2d;

/* Requires size(comm) == q_rows * q_cols (else dies naming both). */
rt_grid2d rt_grid2d_make(MPI_Comm comm, int q_rows, int q_cols);

/* The halo exchange of one tile of a 2-D block tiling.  The tile is stored row-major with
 * leading dimension ld >= cols + 2*width; its owned rows x cols elements start at
 * tile[width*ld + width]; a halo of `width` rows/columns surrounds them.  North and south halos
 * are contiguous rows, west and east halos strided columns (MPI vector datatypes); all four go
 * out at once with Isend/Irecv/Waitall.  With `corners` the west/east exchange waits for the
 * north/south one and includes the halo rows, so the corner halos are filled too (needed by
 * nine-point stencils, not by five-point ones).  Ranks in one grid row must have equal `rows`,
 * ranks in one grid column equal `cols`, and rows, cols >= width.  Owns its datatypes: create
 * once, exchange every step, free at the end. */
typedef struct rt_halo2d rt_halo2d;

rt_halo2d *rt_halo2d_new(const rt_grid2d *g, int rows, int cols, int ld, int width, int corners);
void rt_halo2d_exchange(rt_halo2d *h, double *tile);   /* collective over g->comm */
void rt_halo2d_free(rt_halo2d *h);

/* A static partner set in general form (rt_pattern.c): the same elements go to the same ranks
 * at every exchange.  Record the pattern once with rt_pattern_add (this rank's element send_off
 * of array `array` goes to rank dest, which stores it at recv_off; offsets count doubles from the
 * base pointer passed to each exchange), commit it once (collective: the receivers learn the
 * offsets), then rt_pattern_exchange(p, base) moves the values: one message per (partner,
 * array), Isend/Irecv/Waitall, evenly spaced elements (rows, columns) in place with MPI vector
 * datatypes, others packed.  base[k] is array k's base pointer for this exchange (e.g. the
 * current time plane); its elements are 8-byte words moved bit for bit (RT_WORD), so an int64_t
 * array may be passed cast to double *.  Entries to this rank itself are local copies. */
typedef struct rt_pattern rt_pattern;

rt_pattern *rt_pattern_new(MPI_Comm comm, int narrays);
/* Before the commit: one message per partner, every array's elements in it (the aggregation
 * placement); a message of several arrays is packed, one of a single array still moves in place. */
void rt_pattern_aggregate(rt_pattern *p);
void rt_pattern_add(rt_pattern *p, int dest, int array, int64_t send_off, int64_t recv_off);
void rt_pattern_commit(rt_pattern *p);                   /* collective over comm */
void rt_pattern_exchange(rt_pattern *p, double *const *base);   /* = post, then wait */
/* The exchange in two halves, for work in between (the overlap placement): post sends the values
 * base[] holds now; until wait, the sent elements must not change and the received ones must not
 * be touched; wait (with the same base) completes it. */
void rt_pattern_post(rt_pattern *p, double *const *base);
void rt_pattern_wait(rt_pattern *p, double *const *base);
int64_t rt_pattern_elements(const rt_pattern *p);        /* elements this rank sends per exchange */
int rt_pattern_messages(const rt_pattern *p);            /* messages this rank sends per exchange
                                                            (RT_PATTERN_STATS=1: each rank prints it) */
void rt_pattern_free(rt_pattern *p);

/* ---------------------------------------------------------------- collectives ------------ */

/* MPI_Op_create for a user or fused operator; commute is 1 if the operator is commutative. */
MPI_Op rt_op_create(MPI_User_function *fn, int commute);
void rt_op_free(MPI_Op *op);
/* MPI_Exscan, then rank 0 (whose result MPI leaves undefined) gets a copy of ident
 * (count elements of the type's extent). */
void rt_exscan(const void *send, void *recv, int count, MPI_Datatype type, MPI_Op op,
               const void *ident, MPI_Comm comm);

/* Collective statements (rt_coll.c).  Values travel as tuples of nf rt_val (an int64 or a double
 * field each, 8 bytes), n tuples per block, row-major as the simulator reads blocks.  Every
 * function is collective over the group g (from rt_coll_group); `root` is a rank of g. */
typedef union rt_val { int64_t i; double d; } rt_val;
#define RT_MAX_FIELDS 64
/* A clause of an operator: out = a (+) b (b NULL for one-argument clauses); a is the lower rank. */
typedef void (*rt_clause_fn)(const rt_val *a, const rt_val *b, rt_val *out);
typedef struct rt_opdesc {
    int nf;                       /* fields per tuple */
    rt_clause_fn combine;         /* combine (every kind but scan_bal) */
    rt_clause_fn one;             /* reduce_bal: a node with only its right child */
    rt_clause_fn lower, upper;    /* scan_bal: the lower and the upper partner's new state */
    const rt_val *ident;          /* nf values: exscan's result at rank 0 */
    MPI_Op mpi;                   /* an MPI operator whose result equals the rank-order fold bit
                                     for bit (a built-in on integers, max/min on doubles, a user
                                     operator on integer states), else MPI_OP_NULL: gathered and
                                     folded in rank order here */
    MPI_Datatype type;            /* one tuple, for mpi */
} rt_opdesc;
typedef enum rt_coll_kind { RT_REDUCE, RT_ALLREDUCE, RT_SCAN, RT_EXSCAN, RT_EXSCAN_IDENT } rt_coll_kind;

/* `by`: grouped = 0 returns comm itself; else MPI_Comm_split by color (ranks keep their order;
 * color < 0: not taking part, MPI_COMM_NULL).  Free with rt_coll_group_free. */
MPI_Comm rt_coll_group(MPI_Comm comm, int grouped, int64_t color);
void rt_coll_group_free(MPI_Comm *group, MPI_Comm comm);
/* The rank in g of comm's rank root_world_rank (collective over g; dies when it is not in g). */
int rt_coll_root(MPI_Comm g, int64_t root_world_rank, MPI_Comm comm);
void rt_coll_bcast(rt_val *buf, int64_t n, int nf, int root, MPI_Comm g);
/* The root's in holds size(g) * n_each tuples; rank r gets the r-th n_each. */
void rt_coll_scatter(const rt_val *in, rt_val *out, int64_t n_each, int nf, int root, MPI_Comm g);
/* Blocks of any sizes concatenated in rank order: at root (root >= 0) or everywhere (root < 0). */
void rt_coll_gather(const rt_val *in, int64_t n, rt_val *out, int nf, int root, MPI_Comm g);
/* Every rank gets n elements of the root's array (8-byte elements) from element `start` on. */
void rt_coll_multicast(const void *root_array, int64_t start, int64_t n, rt_val *out, int root, MPI_Comm g);
/* Elementwise reduce (result at root), allreduce, inclusive scan, exclusive scan (rank 0 gets
 * ident); RT_EXSCAN_IDENT folds from ident at every rank (a global-view operator's states). */
void rt_coll_reduce(rt_coll_kind kind, const rt_val *in, rt_val *out, int64_t n, const rt_opdesc *op,
                    int root, MPI_Comm g);
/* reduce_bal (all_ranks 0: result at root) / allreduce_bal: the balanced tree, missing leaves on
 * the left, `one` at a node with only its right child. */
void rt_coll_reduce_bal(int all_ranks, const rt_val *in, rt_val *out, int64_t n, const rt_opdesc *op,
                        int root, MPI_Comm g);
/* scan_bal: the butterfly; round k pairs r with r ^ 2^k (both present): lower(low, high) at the
 * lower rank, upper(low, high) at the upper one.  in may equal out. */
void rt_coll_scan_bal(const rt_val *in, rt_val *out, int64_t n, const rt_opdesc *op, MPI_Comm g);

/* ---------------------------------------------------------------- redistribution --------- */

/* Rows lo .. hi (global; empty when hi < lo) of a matrix in this rank's memory: the matrix's
 * columns c0 .. c1 (global, its last dimension, whole), element (lo, c0) at local index `at` of
 * `base` (8-byte elements: double or int64_t), rows `stride` elements apart. */
typedef struct rt_rows {
    void *base;
    int64_t lo, hi, c0, c1;
    int64_t at, stride;
} rt_rows;
/* The transpose collective: dst[b][a] = src[a][b] for every row b of this rank's dst block and
 * every column a of dst that some rank's src block holds as a row (src blocks do not overlap);
 * other elements are left as they are.  Each rank packs what each other rank takes, one
 * MPI_Alltoallv moves it (type: MPI_DOUBLE or MPI_INT64_T).  Collective over comm. */
void rt_transpose(const rt_rows *src, const rt_rows *dst, MPI_Datatype type, MPI_Comm comm);

/* ---------------------------------------------------------------- checksum --------------- */

/* The checksum and the no-value marker: rt_checksum.h (no MPI; included here). */

/* Gathering helpers, collective over the communicator; only rank 0's checksum changes.
 * 1-D block (or row-block) layout: rank r owns the r-th consecutive piece of the row-major
 * array, `own` doubles starting at `mine`; rank 0 hashes the pieces in rank order. */
void rt_checksum_gather_blocks(rt_checksum *c, MPI_Comm comm, const double *mine, int own);
/* 2-D block tiling over g: every rank's owned rows x cols elements start at `tile` with leading
 * dimension ld (pass &tile[width*ld + width] for a tile with halo); rank 0 assembles one band
 * of full rows per grid row and hashes them row-major. */
void rt_checksum_gather_grid2d(rt_checksum *c, const rt_grid2d *g, const double *tile,
                               int rows, int cols, int ld);

/* Scattered elements (rt_gather.c): every rank rt_gather_put()s the (index, value, stamp) of the
 * elements it computed, of a region of region_size elements; rt_gather_finish (collective, frees
 * g) leaves in rank 0's `region` (pre-filled by the caller, e.g. with rt_novalue()), for each
 * index given, the value with the largest stamp (the step that computed it, from 1), of equal
 * stamps the later rank's — the newest value, as the simulator takes it.  Only rank 0's region is
 * read or written (others may pass NULL).  Streamed: a rank holds one chunk of its elements,
 * rank 0 stores its own at once; the finish ends with a barrier. */
typedef struct rt_gather rt_gather;

rt_gather *rt_gather_new(MPI_Comm comm, double *region, int64_t region_size);
void rt_gather_put(rt_gather *g, int64_t index, double value, uint32_t stamp);
void rt_gather_finish(rt_gather *g);

/* ---------------------------------------------------------------- timing and result ------ */

/* Barrier, then MPI_Wtime: the start of the timed main loop. */
double rt_time_start(MPI_Comm comm);
/* Seconds since t0, the maximum over all ranks (every rank gets it).  Collective. */
double rt_time_stop(MPI_Comm comm, double t0);

/* The result line, printed by rank 0 only (others print nothing), then flushed:
 *     polyapm-result checksum=%016llx seconds=%.9f ranks=%d
 * RT_RESULT_FORMAT is that format, for programs (and tests) that print it themselves. */
void rt_report(MPI_Comm comm, uint64_t checksum, double seconds);
/* The line `polyapm-memory elements=[e0,e1,..] total=N` on rank 0: the elements each rank
 * allocated (every rank passes its own count).  Collective over comm. */
void rt_report_memory(MPI_Comm comm, int64_t elements);

#endif
