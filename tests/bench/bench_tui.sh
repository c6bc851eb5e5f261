#!/usr/bin/env bash
# The TUI with a 10,000-node workspace: time to the first full screen and per redraw after a
# cursor move (targets < 300 ms and < 10 ms); the measurement itself lives in tests/tui/bench.sh.
: "${ROOT:?}"
POLYAPM_BENCH=1 bash "$ROOT/tests/tui/bench.sh"
