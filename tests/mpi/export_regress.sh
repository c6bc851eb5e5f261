#!/usr/bin/env bash
# tests/mpi/export_regress.sh — exported programs compute what their verified simulation computes,
# where they once did not:
#  - the index mapping of local memories: every tile kind (blocked, cyclic, block-cyclic) with and
#    without relcoord (strided dists: absolute lattices and compressed ones with an offset), at
#    1..4 ranks, on a 1-D program without messages and a 2-D stencil with halos: the run's
#    checksum is the simulation's (a cyclic relcoord node's init once ignored the stride);
#  - messages of int arrays (once refused: "only double arrays are exported with messages"): a
#    Floyd-Warshall-like program (rows broadcast, alltoallv records) and an int stencil (halo, and
#    alltoallv on request) whose values lie above 2^53, where the next step's `% 1000` of a
#    received value sees any rounding, at 2 and 3 ranks;
#  - in-place programs at syndm (arrays without a time dimension, receives overwrite the local
#    copy): Jacobi 1-D with A and B reused, halo phases and alltoallv, against the source's
#    checksum; a syncomm node with sends is refused clearly.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
. "$(dirname "$0")/export.inc"

# run_matches NAME NODE NP: `run NODE -np NP` prints the simulation's checksum (run simulates
# procs=NP first and refuses a node that is not verified: that fails here too)
run_matches() {
    local name=$1 node=$2 np=$3 out
    out=$(P run "$node" -np "$np" --json 2>&1)
    expect_eq "$name -np $np: the run's checksum is the simulation's" \
        "$(printf '%s' "$out" | tail -1 | json "j['match'] and j['ranks'] == $np" 2>/dev/null || printf '%s' "$out" | tail -3)" True
}

# ---- 1. local <-> global indices of every tile kind, with and without relcoord ----------------
cat >"$TMP/cyclic_init.apm" <<'EOF'
program cyclic_init
level source
param n = 8, steps = 2
array a[0 .. steps][0 .. n - 1] double
init a[0][i] = i
output a[steps]
for t = 1 .. steps, i = 0 .. n - 1 {
  S: a[t][i] = a[t - 1][i] + 1
}
EOF
cat >"$TMP/stencil2d.apm" <<'EOF'
program stencil2d
level source
param n = 9, m = 4, steps = 3
array a[0 .. steps][0 .. n - 1][0 .. m - 1] double
init a[0][i][j] = i * 10 + j
output a[steps]
for t = 1 .. steps, i = 0 .. n - 1, j = 0 .. m - 1 {
  if i == 0 || i == n - 1 {
    B: a[t][i][j] = a[t - 1][i][j]
  } else {
    S: a[t][i][j] = (a[t - 1][i - 1][j] + a[t - 1][i][j] * 2 + a[t - 1][i + 1][j]) / 4 + j
  }
}
EOF
for prog in "cyclic_init:theta=t sigma=i" "stencil2d:theta=t sigma=i inner=seq"; do
    src=${prog%%:*}
    for kind in "kind=blocked" "kind=cyclic" "kind=blockcyclic bs=2"; do
        name="$src ${kind%% *}"
        if chain "$TMP/$src.apm" "${prog#*:}" "$kind procs=2" relcoord; then ok "$name: the chain applies"
        else fail "$name: the chain applies" "see above"; continue; fi
        for np in 1 2 3 4; do
            run_matches "$name (absolute)" 5 $np
            run_matches "$name (relcoord)" 6 $np
        done
    done
done
# the dist of the cyclic relcoord node is strided and compressed: what the fix is about
chain "$TMP/cyclic_init.apm" "theta=t sigma=i" "kind=cyclic procs=2" relcoord
expect_match "cyclic relcoord: its dist is strided with an offset" "$(P show 6)" "dist a\(rp\) .*step procs.*offset"
P export 5 -o "$TMP/lattice" >/dev/null 2>&1
expect_match "cyclic absolute: the exported storage holds the lattice only (n / procs elements a row)" \
    "$(cat "$TMP/lattice/cyclic_init_syndm.c")" "ifloordiv\(q, s\) \* b \+ imin\(imod\(q, s\) \+ 1, b\)"

# ---- 2. int arrays' messages, exactly -----------------------------------------------------------
cat >"$TMP/fw.apm" <<'EOF'
program fw
level source
param n = 6
array path[0 .. n][0 .. n - 1][0 .. n - 1] int
init path[0][i][j] = (i * 7 + j * 3) % 11 + 1
output path[n]
for k = 1 .. n, i = 0 .. n - 1, j = 0 .. n - 1 {
  S: path[k][i][j] = min(path[k - 1][i][j], path[k - 1][i][k - 1] + path[k - 1][k - 1][j])
}
EOF
cat >"$TMP/istencil.apm" <<'EOF'
program istencil
level source
param n = 10, steps = 3
array a[0 .. steps][0 .. n - 1] int
init a[0][i] = (i * 37) % 11 + 9007199254740993
output a[steps]
for t = 1 .. steps, i = 0 .. n - 1 {
  if i == 0 || i == n - 1 {
    B: a[t][i] = a[t - 1][i]
  } else {
    S: a[t][i] = a[t - 1][i - 1] % 1000 + a[t - 1][i] - a[t - 1][i + 1] % 7
  }
}
EOF
for prog in "fw:theta=k sigma=i inner=seq:alltoallv" "istencil:theta=t sigma=i:halo"; do
    IFS=: read -r src stm kind <<<"$prog"
    if chain "$TMP/$src.apm" "$stm" "kind=blocked procs=2" relcoord; then ok "$src: the chain applies"
    else fail "$src: the chain applies" "see above"; continue; fi
    out=$(P export 6 -o "$TMP/$src-out" 2>&1)
    expect_match "$src: its int messages are exported ($kind)" "$out" "C\+MPI, $kind"
    for np in 2 3; do
        run_matches "$src (absolute)" 5 $np
        run_matches "$src (relcoord)" 6 $np
    done
done
out=$(P run 6 -np 3 --exchange alltoallv --json 2>&1)
expect_eq "istencil --exchange alltoallv -np 3: int records, the simulation's checksum" \
    "$(printf '%s' "$out" | tail -1 | json "j['match'] and j['exchange'] == 'alltoallv'" 2>/dev/null || printf '%s' "$out" | tail -3)" True

# ---- 3. in-place programs at syndm ----------------------------------------------------------------
# Jacobi 1-D with A and B reused every step: no time dimension, elements written many times, a
# receive overwrites the local copy.  Until the simulator's in-place semantics (delivery
# overwrites) is merged, its syndm nodes are not verified and `polyapm export` refuses them: they
# are exported with xf_export alone (t_export) and compared with the SOURCE's checksum, which is
# what their simulation prints once they verify.  The two sweeps send at alternating steps: each
# is a halo phase with its own static pattern (auto), and the alltoallv records agree.
TX=$T_BUILD_DIR/tests/drivers/t_export
[ -x "$TX" ] || { fail "t_export built" "$TX missing (make all builds the test drivers)"; finish; }
cat >"$TMP/jacobi_inplace.apm" <<'EOF'
program jacobi_inplace
level source
param n = 12, tsteps = 3
array A[0 .. n - 1] double
array B[0 .. n - 1] double
init A[i] = (i + 2.0) / n
init B[i] = (i + 3.0) / n
output A
output B
for t = 0 .. tsteps - 1 {
  for i = 1 .. n - 2 {
    S1: B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1])
  }
  for i = 1 .. n - 2 {
    S2: A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1])
  }
}
EOF
src_sum=$("$POLYAPM" sim "$TMP/jacobi_inplace.apm" 2>/dev/null | sed -n 's/^checksum: //p')
expect_match "jacobi_inplace: the source's checksum" "$src_sum" "^[0-9a-f]{16}$"
# (memdist and relcoord add their nodes but exit 1: not verified yet)
chain "$TMP/jacobi_inplace.apm" "auto=1" "kind=blocked procs=2"; P apply 5 relcoord >/dev/null 2>&1
expect_match "jacobi_inplace: the chain reaches syndm, with and without relcoord" "$(P tree 2>&1)" "relcoord"
for node in 5 6; do
    P show $node | sed -n '/^program/,$p' >"$TMP/jip$node.apm"
    for ex in auto alltoallv; do
        for np in 2 3; do
            d=$TMP/jip$node-$ex-$np
            out=$("$TX" "$TMP/jip$node.apm" "$d" --exchange $ex procs=$np 2>&1)
            [ $ex = auto ] && expect_match "jacobi_inplace node $node procs=$np: auto takes the halo (one pattern per sweep)" "$out" "C\+MPI, $np ranks, halo"
            sum=$( (cd "$d" && make -s EXTRA_CFLAGS=-Werror >/dev/null 2>&1 && mpi_run $np ./jacobi_inplace_syndm) |
                   sed -n 's/^polyapm-result checksum=\([0-9a-f]*\).*/\1/p')
            expect_eq "jacobi_inplace node $node --exchange $ex -np $np: the source's checksum" "$sum" "$src_sum"
        done
    done
done
expect_match "jacobi_inplace: the halo has a pattern per phase, each under its condition on tt" \
    "$(cat "$TMP/jip6-auto-2/jacobi_inplace_syndm.c")" "if \(imod\(tt, 2\) == 0\)"
# a syncomm node with sends: its memory is still shared, and the refusal says so
P export 4 -o "$TMP/syncomm" >/dev/null 2>"$TMP/err"
expect_eq "jacobi_inplace syncomm node with sends: not exported" "$?" 1
expect_match "jacobi_inplace syncomm node: the refusal names the level, the sends and memdist" "$(cat "$TMP/err")" \
    "syncomm and sends messages.*apply memdist"

finish
