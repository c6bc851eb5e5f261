#!/usr/bin/env bash
# tests/mpi/peers_smoke.sh — the peers benchmark's harness works (tests/bench/bench_peers.sh, which
# `make bench` runs at LARGE_DATASET): at MINI_DATASET, for gemm and atax and one kernel of the
# second group (trisolv), PolyBench's own files build with gcc -O3 -march=native (and Polly where
# clang-14 has it), explore's leaf is derived, exported and run at np = 2, the source exported
# and run, each row prints seconds, ratios and memory, and the checksums agree: np = 2 with the
# sequential export, and that with PolyBench's own dump (explore's budget 60: the harness, not the
# search, is what this checks).  Then the report on a crafted run whose
# np = 2 checksum differs prints a FAIL line, does not count it equal and exits 1.  No figure is asserted.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
. "$ROOT/tests/polybench/kernels.inc"
[ -n "$(pb_dir)" ] || { echo "skip peers_smoke: PolyBench/C 4.2.1 not found (set POLYBENCH_DIR)"; finish; }
keep=$TMP/keep
out=$(ROOT=$ROOT POLYAPM=$POLYAPM BENCH_SIZE=tiny BENCH_KERNELS="gemm atax" BENCH_OTHERS="trisolv" RUNS=1 BENCH_PREDICT=0 BENCH_BUDGET=60 \
      BENCH_KEEP=$keep bash "$ROOT/tests/bench/bench_peers.sh" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
expect_eq "bench_peers (tiny): exit 0" "$rc" 0
expect_eq "bench_peers (tiny): the three kernels' checksums equal" "$(printf '%s\n' "$out" | tail -1)" \
    "bench_peers: 3 kernels, 3 checksums equal, 0 failed"
expect_match "bench_peers (tiny): MINI_DATASET" "$out" "own files at MINI_DATASET"
num='[0-9.e+-]+'
for k in gemm atax trisolv; do
    expect_match "$k: a row with the peers' seconds, seq and np2, the ratios, memory; = seq = dump" "$out" \
        "^  $k +($num +){3,5}$num +(0\.9|1\.0) +$num +$num +$num +$num +$num +$num += seq = dump$"
done
# BENCH_PREDICT=0: the prediction is explore's own seconds for the leaf at the size (--at), read
# from its JSON; the ratio printed beside it is that over the measured np = 2 seconds
expect_match "predicted: explore's seconds at the size" "$out" "^Predicted: explore's seconds for the leaf at the size"
pred=$(awk '$1 == "gemm" { print $2 }' "$keep/predicted")
node=$(sed -n 's/^  gemm: leaf \([0-9]*\) .*/\1/p' "$keep/notes")
json=$(python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
print(next(l["rank_seconds"] for l in j["leaves"] if l["node"] == int(sys.argv[2])))' "$keep/gemm.explore" "$node")
expect_eq "gemm's prediction is its leaf's rank_seconds in explore's JSON" "$pred" "$json"
expect_match "the second group printed apart" "$out" "Kernels outside its list:
  kernel .*
  trisolv "
expect_eq "no FAIL line" "$(printf '%s\n' "$out" | grep -c '^FAIL')" 0
# a run whose np = 2 program printed another checksum: a FAIL line, not counted equal
sed -i '0,/^np2 gemm \([^ ]*\) [0-9a-f]*/s//np2 gemm \1 0123456789abcdef/' "$keep/results"
bad=$(python3 "$ROOT/tests/bench/peers_report.py" "$keep"/{setup,results,dumps,predicted,notes})
expect_eq "a differing checksum: the report exits 1" "$?" 1
expect_match "a differing checksum: a FAIL line" "$bad" "^FAIL: gemm: np2 0123456789abcdef DIFFERS from seq "
expect_eq "a differing checksum: not counted equal" "$(printf '%s\n' "$bad" | tail -1)" \
    "bench_peers: 3 kernels, 2 checksums equal, 0 failed"
finish
