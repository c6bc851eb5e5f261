#!/usr/bin/env bash
# tests/mpi/export_redist.sh — the transpose collective exported (transforms/export/export_redist.c,
# runtime/rt_redist.c): tests/xf/redist/adi-transpose.apm builds with -Werror and prints the
# simulation's checksum at 1, 2, 3 and 4 ranks and at a second size; the generated program moves
# each transpose with one rt_transpose (MPI_Alltoallv of packed blocks) and sends no element
# records; a transpose of an array whose dist has pieces is refused, located.  The leaf the redist
# transform derives (adi sigma = i, blocked, commgen, memdist, redist) runs at 2, 3 and 4 ranks with
# the simulation's checksum, which is the source's.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
D=$ROOT/tests/xf/redist
A=$D/adi-transpose.apm
for np in 1 2 3 4; do
    out=$("$POLYAPM" run "$A" -np "$np" --json 2>&1)
    expect_eq "adi-transpose -np $np: builds with -Werror, runs, prints the simulation's checksum" \
        "$(printf '%s' "$out" | tail -1 | json "j['match'] and j['ranks'] == $np" 2>/dev/null || printf '%s' "$out" | tail -5)" True
done
out=$("$POLYAPM" run "$A" -np 3 -D n=33 -D tsteps=3 --json 2>&1)
expect_eq "adi-transpose n=33 tsteps=3 -np 3: the simulation's checksum" \
    "$(printf '%s' "$out" | tail -1 | json "j['match']" 2>/dev/null || printf '%s' "$out" | tail -5)" True

"$POLYAPM" export "$A" -o "$TMP/tr" -D procs=3 >/dev/null
c=$(cat "$TMP/tr/adi_transpose.c")
expect_eq "adi-transpose: one rt_transpose per transpose statement" "$(grep -c 'rt_transpose(&rt_src, &rt_dst, MPI_DOUBLE' <<<"$c")" 2
expect_eq "adi-transpose: no element records (no rt_exchange, no rt_mcast)" "$(grep -cE 'rt_exchange_new|rt_mcast_new' <<<"$c")" 0
expect_match "adi-transpose: the runtime moves blocks with one MPI_Alltoallv" "$(cat "$TMP/tr/rt_redist.c")" "MPI_Alltoallv"

sed 's/^dist vt(rp) \[rp \* tb/dist vt(rp) [i = rp * tb/' "$A" >"$TMP/pieced.apm"
cp "$D/adi.apm" "$TMP/"
out=$("$POLYAPM" export "$TMP/pieced.apm" -o "$TMP/pc" 2>&1)
expect_eq "pieced dist: export refused (exit 1)" "$?" 1
expect_match "pieced dist: located, names the array and why" "$out" \
    "pieced.apm:10[0-9]:3: error: export: this collective names array vt: its dist has pieces"

# the derived leaf
. "$ROOT/tests/xf/redist/chain.inc"
adi_to_memdist "$TMP" &&
"$POLYAPM" apply "$TMP/m.apm" redist -o "$TMP/r.apm" >/dev/null
expect_eq "adi sigma=i: stm, tile, commgen, memdist, redist exit 0" "$?" 0
ref=$("$POLYAPM" sim "$D/adi.apm" --json | json "j['checksum']")
for np in 2 3 4; do
    out=$("$POLYAPM" run "$TMP/r.apm" -np "$np" --json 2>&1)
    expect_eq "redist leaf -np $np: runs, prints the simulation's checksum, the source's" \
        "$(printf '%s' "$out" | tail -1 | json "(j['match'], j['checksum'])" 2>/dev/null || printf '%s' "$out" | tail -5)" "(True, '$ref')"
done
finish
