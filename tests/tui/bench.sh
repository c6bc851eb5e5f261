#!/usr/bin/env bash
# tests/tui/bench.sh — the TUI on 10,000-node workspaces (wide: one root and 9,999 children;
# bushy: random parents; built through the store API by tests/drivers/bench_store.c): the time to
# the first full screen and per redraw after a cursor move, as the TUI itself measures them
# (POLYAPM_TUI_TIMING=FILE).  Targets (issue 7): first screen < 300 ms, redraw < 10 ms.  Prints
# figures, asserts nothing.  A benchmark, not a test: runs only with POLYAPM_BENCH=1 (make bench
# may call it so); `make test` reports it skipped.
. "$(dirname "$0")/../lib.sh"
[ "${POLYAPM_BENCH:-}" = 1 ] || { echo "skip tui-bench: set POLYAPM_BENCH=1 (a benchmark)"; exit 0; }
command -v tmux >/dev/null || { echo "skip tui-bench: no tmux"; exit 0; }
SOCK=polyapm-bench-$$
tm() { tmux -L "$SOCK" "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$TMP"; t_cleanup' EXIT
N=${BENCH_TUI_N:-10000}
for shape in wide bushy; do
    ws=$TMP/$shape.pdg
    "$T_BUILD_DIR/tests/drivers/bench_store" "$ws" "$shape" "$N" >/dev/null || { echo "bench_store $shape failed"; exit 1; }
    tm new-session -d -x 120 -y 40 -s b "POLYAPM_TUI_TIMING='$TMP/t.txt' '$POLYAPM' '$ws'; sleep 30"
    end=$((SECONDS + 20))
    while ! grep -q first_screen "$TMP/t.txt" 2>/dev/null && [ $SECONDS -lt $end ]; do sleep 0.05; done
    for _ in $(seq 30); do tm send-keys -t b j; sleep 0.03; done
    for _ in 1 2 3 4 5; do tm send-keys -t b NPage; sleep 0.03; done
    tm send-keys -t b g b
    sleep 0.5
    tm send-keys -t b q
    sleep 0.3
    tm kill-session -t b 2>/dev/null
    first=$(awk '/first_screen_ms/ {print $2}' "$TMP/t.txt")
    stats=$(awk '/redraw_ms/ {print $2}' "$TMP/t.txt" | sort -n |
            awk '{v[++n]=$1} END {printf "%d redraws, median %.2f ms, max %.2f ms", n, v[int(n/2)+1], v[n]}')
    echo "tui $shape ($N nodes): first screen $first ms (target < 300); $stats (target < 10)"
    rm -f "$TMP/t.txt"
done
