#!/usr/bin/env bash
# tests/bench/run.sh — `make bench`: every benchmark, measured side by side in one run, printing
# figures and ratios (never asserting on time: these machines are shared and noisy).
# Add a benchmark as tests/bench/bench_*.sh; each prints its own lines.
set -u
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export ROOT BUILD POLYAPM="$ROOT/$BUILD/polyapm"
for b in "$ROOT"/tests/bench/bench_*.sh; do
    [ -f "$b" ] || continue
    echo "== $(basename "$b" .sh)"
    bash "$b"
done
