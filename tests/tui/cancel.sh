#!/usr/bin/env bash
# tests/tui/cancel.sh — a long simulation runs in the background: the progress bar shows, the
# screen keeps answering keys, and the cancel key stops it with nothing stored.  Then a short
# simulation with other parameters (s) is stored and shown; ^C during a run exits 130, nothing stored.
. "$(dirname "$0")/tmux-lib.bash"
sims() { "$POLYAPM" show ROOT -w "$TMP/fd.pdg" --json | json "len(j['simulations'])"; }

sed 's/^param n = 256/param n = 32/' "$ROOT/examples/findiff.apm" >"$TMP/fd.apm"
tm new-session -d -x 100 -y 30 -s t "cd '$TMP' && '$POLYAPM' fd.apm; echo \$? >'$TMP/exit'; sleep 60"
check open 'total 263928\.0 ticks'
before=$(sims)
expect_eq one-sim "$before" 1

# n = 3000: several seconds of simulation
keys s C-u 'n=3000' Enter
check progress 'simulating node 1 findiff .*C cancel' 10
check progress-bar '\[[#.]+\] +[0-9]+%' 5
# the screen answers keys meanwhile: the help opens and closes
keys '?'
check responsive-help 'polyapm keys' 5
keys Escape
keys C
check cancelled 'cancelled; nothing stored' 10
expect_eq nothing-stored "$(sims)" "$before"

# another short run is stored and shown
keys s C-u 'n=16' Enter
check n16-stored 'simulated node 1 findiff: cost' 15
check n16-pane 'n=16,steps=21'
expect_eq stored "$(sims)" 2

# ^C during a long simulation: the TUI stops the run, restores the terminal, exits 130
keys s C-u 'n=3000' Enter
check progress-again 'simulating node 1 findiff .*C cancel' 10
keys C-c
end=$((SECONDS + 10))
while [ ! -s "$TMP/exit" ] && [ $SECONDS -lt $end ]; do sleep 0.1; done
expect_eq interrupt-status "$(cat "$TMP/exit" 2>/dev/null)" 130
expect_eq interrupt-nothing-stored "$(sims)" 2
"$POLYAPM" fsck -w "$TMP/fd.pdg" >/dev/null 2>&1
expect_eq fsck-clean "$?" 0
finish
