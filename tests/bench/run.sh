#!/usr/bin/env bash
# tests/bench/run.sh — `make bench`: every benchmark, measured side by side in one run, printing
# figures and ratios (never asserting on time: these machines are shared and noisy).
# Add a benchmark as tests/bench/bench_*.sh; each prints its own lines.  BENCH_ONLY="peers polybench"
# runs only those (bench_peers.sh, bench_polybench.sh); the BENCH_* variables each script documents
# reach it (BENCH_SIZE and BENCH_KERNELS are shared by bench_polybench and bench_peers).
set -u
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export ROOT BUILD POLYAPM="$ROOT/$BUILD/polyapm"
for b in "$ROOT"/tests/bench/bench_*.sh; do
    [ -f "$b" ] || continue
    name=$(basename "$b" .sh)
    [ -z "${BENCH_ONLY:-}" ] || [[ " $BENCH_ONLY " == *" ${name#bench_} "* ]] || continue
    echo "== $name"
    bash "$b"
done
