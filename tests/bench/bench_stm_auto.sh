#!/usr/bin/env bash
# stm auto on every PolyBench kernel of examples/polybench (MINI sizes): seconds to the ranked
# list (target: each within 10 s, issue 16), the number of candidates and the best one.
set -u
: "${ROOT:?}" "${POLYAPM:?}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
worst=0
for src in "$ROOT"/examples/polybench/*.apm; do
    k=$(basename "$src" .apm)
    t0=$(date +%s.%N)
    timeout 300 "$POLYAPM" apply "$src" stm auto=1 -o "$tmp/syn.apm" >/dev/null 2>"$tmp/list"
    rc=$?
    s=$(echo "$(date +%s.%N) - $t0" | bc)
    n=$(sed -n 's/^stm auto: \([0-9]*\) candidate.*/\1/p' "$tmp/list")
    best=$(sed -n 's/^ *1  .* stm \(.*\)$/\1/p' "$tmp/list")
    printf '%-15s %6.2f s  %s%-3s candidates  best: %s\n' "$k" "$s" "$([ $rc = 0 ] || echo "exit $rc ")" "${n:-0}" "$best"
    worst=$(echo "if ($s > $worst) $s else $worst" | bc)
done
printf '%-15s %6.2f s  (target: every kernel within 10 s)\n' "slowest" "$worst"
