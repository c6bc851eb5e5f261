#!/usr/bin/env bash
# tests/mpi/export_stencil.sh — stencils scheduled 2t / 2t + 1 (issue 16, item 2), exported with
# the halo pattern, not (index, value) records through alltoallv:
#  - PolyBench's jacobi-2d in place (S1 at even steps, S2 at odd ones: one halo phase each) and
#    fdtd-2d (S1..S3 at even steps, S4 at odd ones, under `if` conditions that mix the step's
#    parity with static tests: `ny >= p + 1 && tt % 2 == 0`), tiled as explore tiles them;
#  - jacobi-2d written single-assignment (tests/mpi/stencil/jacobi-2d-sa.apm: A[t], B[t]), whose
#    time planes are subscripted floor((tt + a) / 2) + c through lets: only the live planes are
#    allocated (A 2, B 1), in the simulator and in the exported program, whose peak memory stays
#    far below what every plane would take.
# Each leaf: `export --exchange halo` says halo and its C holds no record exchange; `run -np P
# --exchange halo` for P = 2, 3, 4 (the leaf re-simulated at procs = P) prints the simulation's
# checksum.  The in-place leaves' steps store values alone (their stamps replayed after the timed
# loop); jacobi-2d at n = 1000 holds a block and a halo per rank and gathers in bounded slabs;
# fdtd-2d by rows (S1 on processor 0, S2..S4 sigma = i) reads and writes through row bases.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
. "$(dirname "$0")/export.inc"
PB=$ROOT/examples/polybench

# halo_leaf NAME NODE: exported with the halo, then run at 2, 3, 4 ranks with the simulation's checksum
halo_leaf() {
    local name=$1 node=$2 np out
    rm -rf "$TMP/$name.exp"
    P export "$node" -o "$TMP/$name.exp" --exchange halo >"$TMP/out" 2>&1
    expect_match "$name: export --exchange halo applies and says halo" "$(cat "$TMP/out")" "C\+MPI, halo"
    local c
    c=$(ls "$TMP/$name.exp"/*.c | grep -v '/rt_')   # the program (the runtime's sources aside)
    expect_eq "$name: the exported C exchanges a halo pattern, no alltoallv records" \
        "$(grep -c rt_pattern_exchange "$c") $(grep -c 'rt_exchange_put\|rt_exchange_run' "$c")" "1 0"
    for np in 2 3 4; do
        out=$(P run "$node" -np $np -D procs=$np --exchange halo --json 2>&1)
        expect_eq "$name -np $np: halo, the simulation's checksum" \
            "$(printf '%s' "$out" | tail -1 | json "j['match'] and j['ranks'] == $np and j['exchange'] == 'halo'" 2>/dev/null ||
               printf '%s' "$out" | tail -3)" True
    done
}

# stamps_replayed NAME: the leaf halo_leaf exported stores values alone in its step function (no
# "computed here" stamp in step_*); the stamps are recorded after the timed loop (mark_*, called
# after rt_time_stop).
stamps_replayed() {
    local c
    c=$(ls "$TMP/$1.exp"/*.c | grep -v '/rt_')
    expect_eq "$1: the step stores values alone, the stamps are replayed after the timed loop" \
        "$(sed -n '/^static .*void step_/,/^}/p' "$c" | grep -c '_mine\[') $(awk '/rt_time_stop/ { t = 1 } t && /mark_[A-Za-z0-9_]*\(/ { print "after"; exit }' "$c")" \
        "0 after"
}

# block_and_halo NAME NARRAYS ROWS COLS PARAMS...: node 6 exported at PARAMS on 2 ranks (rows split,
# NARRAYS arrays of ROWS x COLS), run:
#  - each rank holds its block and a halo: the polyapm-memory line's elements per rank are at
#    most NARRAYS arrays of (ROWS / 2 + 3) x COLS (a rank holding a whole array, or every step,
#    is over);
#  - the gather is bounded: rank 0's peak memory exceeds rank 1's by less than half of a rank's
#    array bytes (gathering whole arrays, as before: about three times them).
block_and_halo() {
    local name=$1 narr=$2 rows=$3 cols=$4 out mem rss kv dflags=""; shift 4
    for kv in "$@"; do dflags="$dflags -D $kv"; done
    rm -rf "$TMP/$name.big"
    # shellcheck disable=SC2086
    P export 6 -o "$TMP/$name.big" $dflags -D procs=2 --exchange halo >/dev/null 2>&1 &&
        (cd "$TMP/$name.big" && make -s EXTRA_CFLAGS=-Werror >/dev/null 2>&1)
    rm -f "$TMP/rss"
    out=$(mpi_run 2 /usr/bin/time -a -o "$TMP/rss" -f "polyapm-rss-kb %M" "$(ls "$TMP/$name.big"/*.c | grep -v '/rt_' | sed 's/\.c$//')")
    # shellcheck disable=SC2086
    expect_match "$name $*: the run prints the simulation's checksum" "$out" \
        "checksum=$(P sim 6 $dflags -D procs=2 --json | json "j['checksum']")"
    mem=$(sed -n 's/^polyapm-memory elements=\[\([0-9,]*\)\] .*/\1/p' <<<"$out")
    local most=$((narr * (rows / 2 + 3) * cols))
    expect_eq "$name $*: each rank holds its block and a halo (elements [$mem], at most $most each)" \
        "$(tr , '\n' <<<"$mem" | awk -v m=$most 'NF { n++; if ($1 > m || $1 < m / 3) bad = 1 } END { print (n == 2 && !bad) ? "yes" : "no" }')" yes
    rss=$(grep -o 'polyapm-rss-kb [0-9]*' "$TMP/rss" 2>/dev/null | awk '{ print $2 }' | sort -n | tr '\n' ' ')
    local half=$((narr * rows / 2 * cols * 8 / 1024 / 2))
    expect_eq "$name $*: rank 0's peak exceeds the other's by less than $half kB (peaks: $rss kB)" \
        "$(awk -v h=$half '{ if (NF == 2 && $2 - $1 < h) print "yes"; else print "no" }' <<<"$rss")" yes
}

# ---- jacobi-2d in place, blocked (explore's leaf) ------------------------------------------------
if chain "$PB/jacobi-2d.apm" "theta.S1=2*t sigma.S1=i theta.S2=2*t+1 sigma.S2=i inner=seq" "kind=blocked procs=2" relcoord
then halo_leaf jacobi-2d 6; stamps_replayed jacobi-2d; block_and_halo jacobi-2d 2 1000 1000 n=1000 tsteps=2
else fail "jacobi-2d: the 2t / 2t + 1 chain applies" "see above"; fi

# ---- fdtd-2d, block-cyclic (explore's leaf) and blocked -------------------------------------------
FDTD_STM="theta.S1=2*t sigma.S1=j theta.S2=2*t sigma.S2=i theta.S3=2*t sigma.S3=i theta.S4=2*t+1 sigma.S4=i inner=seq"
for tile in "kind=blockcyclic procs=2 bs=8" "kind=blocked procs=2"; do
    if chain "$PB/fdtd-2d.apm" "$FDTD_STM" "$tile" relcoord; then
        halo_leaf "fdtd-2d ${tile%% *}" 6
        stamps_replayed "fdtd-2d ${tile%% *}"
    else fail "fdtd-2d ${tile%% *}: the 2t / 2t + 1 chain applies" "see above"; fi
done

# ---- fdtd-2d by rows, S1 (ey's first row) on processor 0: the rows of every field are a rank's ---
# block, the steps loop over them with row bases and no per-element test (the leaf that exports
# best: S2..S4 by columns, sigma = j, leave the inner loops strided over rows and ey pieced)
FDTD_ROWS="theta.S1=2*t sigma.S1=0 theta.S2=2*t sigma.S2=i theta.S3=2*t sigma.S3=i theta.S4=2*t+1 sigma.S4=i inner=seq"
if chain "$PB/fdtd-2d.apm" "$FDTD_ROWS" "kind=blocked procs=2" relcoord; then
    halo_leaf "fdtd-2d rows" 6
    stamps_replayed "fdtd-2d rows"
    c=$(ls "$TMP/fdtd-2d rows.exp"/*.c | grep -v '/rt_')
    expect_eq "fdtd-2d rows: the steps' innermost loops read and write through row bases, no X_at per element" \
        "$(sed -n '/^static .*void step_/,/^}/p' "$c" | grep -A3 'for (int64_t j = ' | grep -c '_at(')" 0
else
    fail "fdtd-2d rows: the 2t / 2t + 1 chain applies" "see above"
fi

# ---- jacobi-2d single-assignment: the live planes only --------------------------------------------
SA=$ROOT/tests/mpi/stencil/jacobi-2d-sa.apm
expect_eq "jacobi-2d-sa: the source computes the in-place kernel's checksum" \
    "$("$POLYAPM" sim "$SA" --json | json "j['checksum']")" "$("$POLYAPM" sim "$PB/jacobi-2d.apm" --json | json "j['checksum']")"
if chain "$SA" "theta.S1=2*t sigma.S1=i theta.R1=2*t sigma.R1=i theta.S2=2*t+1 sigma.S2=i theta.R2=2*t+1 sigma.R2=i inner=seq" \
    "kind=blocked procs=2" relcoord; then
    halo_leaf jacobi-2d-sa 6
    c=$TMP/jacobi-2d-sa.exp/jacobi_2d_sa_syndm.c
    expect_eq "jacobi-2d-sa: the exported C stores A's 2 live planes and B's 1" \
        "$(grep -c 'A: .*only the 2 live planes' "$c") $(grep -c 'B: .*only the 1 live planes' "$c")" "1 1"
    # the simulator keeps the same planes: A 2 x 30 x 30, B 1 x 30 x 30 (9 bytes each: value and
    # state) at the source, against 21 + 20 planes with --all-planes
    expect_eq "jacobi-2d-sa: the source simulation keeps 3 planes of 30 x 30, the same results as all 41" \
        "$("$POLYAPM" sim "$SA" --json | json "j['simulator_bytes'], j['checksum']")" \
        "24300 $("$POLYAPM" sim "$SA" --all-planes --json | json "j['checksum']")"
    # the syndm leaf: 2 processors x 3 planes of 17 x 30 x 13 bytes (value, state, version) and
    # the shadows' 3 planes of 30 x 30 x 12 = 72,180 (every plane: about 990,000)
    expect_eq "jacobi-2d-sa: the syndm leaf's simulation is verified with folded planes" \
        "$(P sim 6 --force --json | json "j['verified'] and j['violations_total'] == 0 and j['simulator_bytes'] < 80000")" True
    # peak memory at n = 300, 60 steps: every plane would be 61 + 60 planes of 300 x 300 doubles
    # (87 MB) and A's marks (22 MB), 65-68 MB per rank as exported before; the live planes are 2 MB
    rm -rf "$TMP/sa-big"
    P export 6 -o "$TMP/sa-big" -D n=300 -D tsteps=60 -D procs=2 --exchange halo >/dev/null 2>&1 &&
        (cd "$TMP/sa-big" && make -s EXTRA_CFLAGS=-Werror >/dev/null 2>&1)
    want=$("$POLYAPM" sim "$SA" -D n=300 -D tsteps=60 --json | json "j['checksum']")
    # each rank's peak RSS appended to a file (its stderr may be cut off once MPI has finalised)
    rm -f "$TMP/rss"
    out=$(mpi_run 2 /usr/bin/time -a -o "$TMP/rss" -f "polyapm-rss-kb %M" "$TMP/sa-big/jacobi_2d_sa_syndm")
    expect_match "jacobi-2d-sa n=300 tsteps=60 -np 2: the source's checksum" "$out" "checksum=$want"
    rss=$(grep -o 'polyapm-rss-kb [0-9]*' "$TMP/rss" 2>/dev/null | awk '{ n++; if ($2 > m) m = $2 } END { print (n == 2 ? m : 0) + 0 }')
    echo "# jacobi-2d-sa n=300 tsteps=60: peak RSS per rank ${rss} kB (with every plane, as exported before: 65000-68000 kB each)"
    expect_eq "jacobi-2d-sa n=300 tsteps=60: each rank's peak memory is under 40 MB (every plane: about 66 MB)" \
        "$([ "$rss" -gt 0 ] && [ "$rss" -lt 40000 ] && echo yes || echo "no: $rss kB")" yes
else
    fail "jacobi-2d-sa: the 2t / 2t + 1 chain applies" "see above"
fi
finish
