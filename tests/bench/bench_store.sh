#!/usr/bin/env bash
# tests/bench/bench_store.sh — the workspace at 10,000 nodes: build a deep (a chain), a wide (one
# root, 9,999 children) and a bushy (random parents) workspace through the store API
# (tests/drivers/bench_store.c, which the Makefile builds), then time the command line on each:
# `polyapm tree`, `polyapm tree --json`, `polyapm show PREFIX`, and the creation rate of
# `polyapm add` itself.  Targets (issue 3): >= 500 nodes/s created; tree and a lookup well under
# 100 ms.  Prints figures; asserts nothing (shared machines are noisy).
set -u
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
P=${POLYAPM:-$ROOT/$BUILD/polyapm}
N=${BENCH_STORE_N:-10000}
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
ms() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
best() {  # best of 3, in ms
    local b=999999 t
    for _ in 1 2 3; do t=$(ms "$@"); [ "$t" -lt "$b" ] && b=$t; done
    echo "$b"
}
for shape in deep wide bushy; do
    ws=$TMP/$shape.pdg
    out=$("$ROOT/$BUILD/tests/drivers/bench_store" "$ws" "$shape" "$N") || { echo "bench_store $shape failed"; exit 1; }
    printf '%s\n' "$out" | grep -v '^prefix [0-9a-f]*$' | sed "s/^/store $shape: /"
    pfx=$(printf '%s\n' "$out" | sed -n 's/^prefix \([0-9a-f]*\)$/\1/p')
    lines=$("$P" tree -w "$ws" | wc -l)
    echo "store $shape: polyapm tree ($lines lines): $(best "$P" tree -w "$ws") ms (target < 100, whole process)"
    echo "store $shape: polyapm tree --json: $(best "$P" tree --json -w "$ws") ms"
    echo "store $shape: polyapm show ${pfx:0:6} (prefix lookup): $(best "$P" show "${pfx:0:6}" -w "$ws") ms (target < 100)"
    echo "store $shape: polyapm log ${pfx:0:6}: $(best "$P" log "${pfx:0:6}" -w "$ws") ms"
done
# The command line's own creation rate (a process per node: parse, check, print, store).
ws=$TMP/cli.pdg
printf 'program b\nlevel source\nparam n = 8, v = 0\narray a[0 .. n - 1] double\ninit a[x] = x\noutput a\n' >"$TMP/b.apm"
"$P" init "$TMP/b.apm" -o "$ws" >/dev/null
K=200
for ((i = 1; i <= K; i++)); do sed "s/v = 0/v = $i/" "$TMP/b.apm" >"$TMP/b$i.apm"; done
s=$(date +%s%N)
for ((i = 1; i <= K; i++)); do "$P" add ROOT "$TMP/b$i.apm" -w "$ws" >/dev/null || exit 1; done
e=$(date +%s%N)
echo "cli: polyapm add, $K nodes: $(( (e - s) / 1000000 )) ms ($(( K * 1000000000 / (e - s) )) nodes/s)"
