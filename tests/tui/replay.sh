#!/usr/bin/env bash
# tests/tui/replay.sh — p on the selected node in the real TUI (tmux): it asks for a changed
# program, runs `polyapm replay` in the background, and the status line says how many steps were
# replayed (or where it stopped and why); the tree is reloaded with the new source and its branch.
. "$(dirname "$0")/tmux-lib.bash"
cd "$TMP"
sed 's/n = 1000, steps = 100/n = 24, steps = 4/' "$ROOT/examples/jacobi1d.apm" >j.apm
sed 's|/ 3$|* 0.25 + a[t - 1][i] * 0.25|' j.apm >j2.apm
sed 's|a\[t - 1\]\[i - 1\] + a\[t - 1\]\[i\]|a[t][i - 1] + a[t - 1][i]|' j.apm >j3.apm
P() { "$POLYAPM" -w "$TMP/j.pdg" "$@"; }
"$POLYAPM" init j.apm -o j.pdg >/dev/null && P apply ROOT stm theta=t sigma=i >/dev/null &&
    P apply 2 tile kind=blocked procs=2 >/dev/null || { fail "chain" "see above"; finish; }
P label 3 tiled >/dev/null
tm new-session -d -x 120 -y 34 -s t "cd '$TMP' && '$POLYAPM' j.pdg; echo \$? >'$TMP/exit'; sleep 60"
check "tui opens" 'tiled'
keys / tiled Enter
check "search selects the tiled node" '/tiled'
keys p
check "p asks for the changed program" 'replay this derivation onto'
keys j2.apm Enter
check "the replay runs in the background and names the new leaf" 'replay of node 3: replayed 2 of 2 steps: the new leaf is node 6' 60
check "the tree is reloaded with the new source" 'replay:j2.apm'
expect_eq "the new leaf is verified against the new source" \
    "$(P sim 6 --json 2>/dev/null | json "j['verified'] and j['checksum'] == '$("$POLYAPM" sim j2.apm | sed -n 's/^checksum: //p')'")" True
keys / tiled Enter p j3.apm Enter
check "a replay that stops says where and why" 'replay of node 3: step 1 of 2 \(stm theta=t sigma=i' 60
keys q
wait_for '' 5
finish
