#!/usr/bin/env bash
# tests/mpi/bench_smoke.sh — the PolyBench benchmark's harness works (tests/bench/bench_polybench.sh,
# which `make bench` runs at issue 16's sizes): at tiny sizes, for two of its kernels, the
# hand-written sequential C builds and runs, explore's leaf is derived, exported, built and run at
# np = 2, both print a checksum and they are equal, the peak memory is measured and a prediction
# is printed.  No figure is asserted (they mean nothing at these sizes).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
out=$(ROOT=$ROOT POLYAPM=$POLYAPM BENCH_SIZE=tiny BENCH_LU_LEAVES=0 BENCH_KERNELS="jacobi-2d gemm" REPEAT=1 BENCH_MACHINE=scali2004 \
      bash "$ROOT/tests/bench/bench_polybench.sh" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
expect_eq "bench_polybench (tiny): exit 0" "$rc" 0
expect_eq "bench_polybench (tiny): both kernels' checksums equal the sequential C's" \
    "$(printf '%s\n' "$out" | tail -1)" "bench_polybench: 2 leaves, 2 checksums equal, 0 failed"
num='[0-9.e+-]+'
for k in jacobi-2d gemm; do
    expect_match "$k: a row with seconds, speedup, memory (all, data) and prediction" "$out" \
        "^  $k +$num +$num +$num +>= 1\.6 +$num +$num +$num +(over)? +($num|-) +$num +$num += seq"
done
expect_match "the median prediction error and Kendall's tau" "$out" 'median \|pred/meas - 1\| = [0-9.]+'
finish
