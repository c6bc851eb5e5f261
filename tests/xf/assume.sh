#!/usr/bin/env bash
# tests/xf/assume.sh — `assume S unchanged when COND` (issue 29 item 6): what a user knows and
# exact dependences cannot see.  Floyd-Warshall's sweep k reads row k and column k, which the
# same sweep writes; without the assumption every dependence through them forbids running the
# rows of one sweep on different processors, and stm's refusal names it.  With "row and column
# k do not change in sweep k" (S1 unchanged when i == k || j == k) the dependence analysis
# leaves those writes out, stm theta=k sigma=i is legal, and the derived leaf is verified and
# runs under MPI with the simulation's checksum — PolyBench's own dump for the C file imported
# with --assume.  The simulator checks the assumption at every instance it covers: a false one
# stops the run with an error at the assumption, naming the statement, element and values.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/polybench/kernels.inc"
cd "$TMP"
command -v mpirun >/dev/null || { echo "skip assume: no mpirun"; finish; }

# a false assumption: the run stops, located at the assumption
cat >false.apm <<'EOF'
program twice
level source
param n = 4
array a[0 .. n - 1] double
init a[i] = 0.5 * i
output a
assume S1 unchanged when i == 2

for i = 0 .. n - 1 {
  S1: a[i] = a[i] * 2.0
}
EOF
out=$("$POLYAPM" sim false.apm 2>&1); rc=$?
expect_eq "a false assumption: sim exits 1" "$rc" 1
expect_match "... the error at the assumption, with the statement, element and values" "$out" \
    "the assumption at 7:1 does not hold: S1 changes a\[2\] from 1 to 2"
expect_eq "fmt keeps the assumption" "$("$POLYAPM" fmt false.apm | grep '^assume')" "assume S1 unchanged when i == 2"

# derive: stm theta=k sigma=i inner=seq -> tile blocked 2 -> commgen -> memdist -> relcoord
CHAIN=("stm theta=k sigma=i inner=seq" "tile kind=blocked procs=2" commgen memdist relcoord)
derive() {   # WS: the last node's id, or a FAIL
    local ws=$1 n=1 out t
    for t in "${CHAIN[@]}"; do
        # shellcheck disable=SC2086
        out=$("$POLYAPM" -w "$ws" apply "$n" $t 2>&1) || { fail "$ws: apply $t" "$(tail -2 <<<"$out")"; return 1; }
        n=$(grep -o 'added node [0-9]*' <<<"$out" | head -1 | awk '{print $3}')
    done
    echo "$n"
}
# check_leaf WS NODE WHAT: verified, work on both ranks, run -np 2 = the simulation's checksum
check_leaf() {
    local sim run
    sim=$("$POLYAPM" -w "$1" sim "$2" --json 2>&1)
    expect_eq "$3: node $2 verified, each of 2 ranks does at least a quarter of the work" \
        "$(printf '%s' "$sim" | json "j['verified'] and len(j['work']) == 2 and min(j['work']) * 4 >= sum(j['work'])")" True
    run=$("$POLYAPM" -w "$1" run "$2" -np 2 --json 2>&1) || { fail "$3: run -np 2" "$(tail -3 <<<"$run")"; return; }
    expect_eq "$3: run -np 2 prints the simulation's checksum" "$(printf '%s' "$run" | json "j['checksum']")" \
        "$(printf '%s' "$sim" | json "j['checksum']")"
    RUN_SUM=$(printf '%s' "$run" | json "j['checksum']")
}

"$POLYAPM" init "$ROOT/examples/polybench/floyd-warshall.apm" -o plain.pdg >/dev/null
out=$("$POLYAPM" -w plain.pdg apply ROOT stm theta=k sigma=i inner=seq 2>&1); rc=$?
expect_eq "without the assumption: stm theta=k sigma=i is refused" "$rc" 1
expect_match "... naming the dependence through row k" "$out" \
    "dependence [0-9]+ \(flow, S1 -> S1 through path\[k\]\[j\]\) does not go forward in time"
sed 's/^output path$/&\nassume S1 unchanged when i == k || j == k/' "$ROOT/examples/polybench/floyd-warshall.apm" >fw.apm
"$POLYAPM" init fw.apm -o fw.pdg >/dev/null
deps=$("$POLYAPM" deps fw.apm --json 2>&1)
expect_eq "with it: every dependence goes forward in k (none within a sweep)" \
    "$(printf '%s' "$deps" | json "len(j['dependences']) > 0 and all(d['direction'][0] == '+' for d in j['dependences'])")" True
leaf=$(derive fw.pdg) && check_leaf fw.pdg "$leaf" "floyd-warshall.apm"
"$POLYAPM" -w fw.pdg show "$leaf" --program | grep -q '^assume S1 unchanged when i == k || j == k$' &&
    ok "the leaf keeps the assumption (every simulation checks it)" || fail "the leaf keeps the assumption" "not in node $leaf"

PB=$(pb_dir)
if [ -z "$PB" ]; then
    echo "skip assume (PolyBench): PolyBench/C 4.2.1 not found (set POLYBENCH_DIR)"
    finish
fi
d=medley/floyd-warshall
"$POLYAPM" init "$PB/$d/floyd-warshall.c" -I "$PB/utilities" -D MINI_DATASET -D DATA_TYPE_IS_DOUBLE \
    --assume 'S1 unchanged when i == k || j == k' -o pb.pdg >/dev/null 2>pb.err || fail "init --assume" "$(cat pb.err)"
leaf=$(derive pb.pdg) && check_leaf pb.pdg "$leaf" "floyd-warshall.c --assume"
${CC:-gcc} -std=c11 -O0 -I"$ROOT/runtime" -o dumpsum "$ROOT/tests/polybench/dumpsum.c" "$ROOT/runtime/rt_checksum.c"
pb_dump_build "$PB" "$d" "$TMP/pb" -DDATA_TYPE_IS_DOUBLE || fail "PolyBench builds" "$(head -3 "$TMP/pb/cc.err")"
dump=$("$TMP/pb/kernel" 2>&1 >/dev/null | ./dumpsum path 2>&1)
expect_eq "floyd-warshall.c --assume: the run's checksum is PolyBench's dump" "${RUN_SUM:-none}" "$(pb_checksum "$dump")"
out=$("$POLYAPM" import "$PB/$d/floyd-warshall.c" -I "$PB/utilities" -D MINI_DATASET --assume 'S1 unchanged when q == k' 2>&1); rc=$?
expect_eq "--assume naming no variable of S1: exit 1" "$rc" 1
expect_match "... saying which option and what" "$out" "--assume 'S1 unchanged when q == k': unknown name 'q'"
finish
