#!/usr/bin/env bash
# tests/tui/explore.sh — E explores from the selected node in the background: the prompt offers
# the budget and the TUI's parameters, the status line shows the search's progress, the screen
# keeps answering keys, C stops a running search cleanly (the workspace stays consistent), and
# exploring again runs to the end: the graph is reloaded with the best leaf selected.
. "$(dirname "$0")/tmux-lib.bash"
cp "$ROOT/examples/lu.apm" "$TMP/lu.apm"
tm new-session -d -x 120 -y 34 -s t "cd '$TMP' && '$POLYAPM' lu.apm -D n=16 -D procs=4; echo \$? >'$TMP/exit'; sleep 60"
check open 'src lu'
# a larger search, stopped with C
keys E
check prompt 'explore from here .*budget=200 n=16 procs=4'
keys C-u 'budget=200 n=64 procs=4' Enter
check progress 'exploring from node 1: .*evaluated.*C cancel' 10
keys '?'
check responsive-help 'polyapm keys' 5
keys Escape
keys C
check stopped 'explore interrupted: [0-9]+ nodes evaluated.*explore again to continue' 60
"$POLYAPM" fsck -w "$TMP/lu.pdg" >/dev/null 2>&1
expect_eq fsck-clean "$?" 0
# the whole search at n=16
keys g E Enter
check progress-2 'exploring from node 1' 10
check done 'explore done: [0-9]+ nodes evaluated; best leaf [0-9]+, cost' 90
nodes=$("$POLYAPM" tree -w "$TMP/lu.pdg" --json | json "len(j['nodes'])")
expect_eq "the search stored its nodes" "$([ "$nodes" -gt 20 ] && echo yes)" yes
check tree-reloaded 'tile:cyclic/4'
best=$(screen | grep -Eo 'best leaf [0-9]+' | grep -Eo '[0-9]+$')
expect_match "the best leaf is cyclic" "$("$POLYAPM" log "$best" -w "$TMP/lu.pdg")" 'kind=(cyclic|blockcyclic procs=4 bs=1)'
check best-selected "program $best " 5
keys q
end=$((SECONDS + 10))
while [ ! -s "$TMP/exit" ] && [ $SECONDS -lt $end ]; do sleep 0.1; done
expect_eq quit-status "$(cat "$TMP/exit" 2>/dev/null)" 0
finish
