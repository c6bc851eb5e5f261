#!/usr/bin/env bash
# tests/tui/more.sh — the TUI on a workspace built by the command line: `polyapm NAME.pdg` and
# `polyapm` alone open it; a node with two parents shows once with a ^ row where it recurs; the
# thesis's SynCommAPM finite differences shows its 7236516-tick figure in the cost pane; the cost
# model switch; a racy node marked !; note and favourite marks; edit a copy in $EDITOR as a new
# child; a change made by the command line shows by itself.
. "$(dirname "$0")/tmux-lib.bash"
P() { "$POLYAPM" "$@" -w "$TMP/fd.pdg"; }
wait_exit() {
    local end=$((SECONDS + 10))
    while [ ! -s "$TMP/exit" ] && [ $SECONDS -lt $end ]; do sleep 0.1; done
    cat "$TMP/exit" 2>/dev/null
}

cd "$TMP" || exit 1
sed 's/^param n = 256/param n = 32/' "$ROOT/examples/findiff.apm" >fd.apm
for b in a b c; do { cat fd.apm; echo "# variant $b"; } >$b.apm; done
"$POLYAPM" init fd.apm -o fd.pdg >/dev/null
P add 1 a.apm >/dev/null && P add 1 b.apm >/dev/null && P add 2 c.apm >/dev/null && P add 3 c.apm >/dev/null
P add 1 "$ROOT/examples/thesis/fd-syncomm.apm" >/dev/null
# a SynAPM program with a race (S reads a[t] of the neighbour in the same step)
"$POLYAPM" apply fd.apm stm theta=t sigma=x inner=seq -o syn.apm
sed 's/(a\[t - 1\]\[x - 1\]\[y\]/(a[t][x - 1][y]/' syn.apm >racy.apm
P add 1 racy.apm >/dev/null
printf '#!/bin/sh\nsed -i "s/steps = 21/steps = 20/" "$1"\n' >ed.sh
chmod +x ed.sh

tm new-session -d -x 120 -y 34 -s t "cd '$TMP' && EDITOR='$TMP/ed.sh' '$POLYAPM' fd.pdg; echo \$? >'$TMP/exit'; sleep 60"
check open-pdg 'src findiff'
check shared-once '\^ src c \(shared\)'
expect_eq shared-full-rows "$(screen | grep -cE '^ *- src c |^ +src c ')" 1
# Enter on the ^ row goes to the node's full row
keys / c Enter
check search-c 'program 4 c \(source\)'

# the thesis's annotated SynCommAPM example: 7236516-class cost
keys / fd-syncomm Enter
check select-syncomm 'program 5 fd-syncomm \(syncomm\)'
keys s C-u Enter
check thesis-figure 'total 7236515\.8 ticks' 30
check thesis-verified 'verified'

# a node with violations: the ! mark and the pane says so
keys / racy Enter
check select-racy 'program 6 racy \(syn\)'
keys s C-u Enter
check racy-violations 'VIOLATIONS' 30
check racy-mark 'syn racy +[0-9.]+[MG]? +[-x0-9.]+ !'
keys / fd-syncomm Enter
check back-to-syncomm 'program 5 fd-syncomm'

# cost model switch: nothing stored under bsp yet; s simulates under it
keys m
check model-bsp 'model bsp'
check bsp-unsimulated 'not simulated under this model'
keys s Enter
check bsp-simulated 'cost +bsp / scali2004' 30
check bsp-total 'total [0-9.]+ ticks' 30
keys m m m   # hockney, loggp, then round to polyapm
check model-back 'model polyapm'

# note and favourite
keys i 'try blocks' Enter
check note-saved 'note saved'
check note-shown '\| note: try blocks'
expect_eq note-stored "$(P show 5 --json | json "j['note']")" "try blocks"
keys f
check favourite-mark 'fd-syncomm +[0-9.]+[MG]? +[-x0-9.]+ V \*n'

# a change made by the command line shows without a key
P mark 4 pruned >/dev/null
check external-change '^ *src c +[-0-9.]+[MG]? +[-x0-9.]+ +x' 5

# edit a copy of the root in $EDITOR: a new child
keys g
check root 'program 1 findiff'
keys e
check edited 'src edit +[0-9.]+[MG]? '
expect_eq edit-text "$(P show 7 --program | grep -c 'steps = 20')" 1

keys q
expect_eq quit-status "$(wait_exit)" 0
P fsck >/dev/null 2>&1
expect_eq fsck-clean "$?" 0

# `polyapm` alone in a directory with one workspace opens it
rm -f "$TMP/exit"
relaunch 100 30 "cd '$TMP' && '$POLYAPM'; echo \$? >'$TMP/exit'; sleep 60"
check no-args-open 'fd\.pdg +7 nodes'
keys q
expect_eq no-args-quit "$(wait_exit)" 0

# without a terminal: a clear failure, and no workspace is created
cp fd.apm notty.apm
"$POLYAPM" notty.apm </dev/null >/dev/null 2>"$TMP/err"
expect_eq notty-status "$?" 1
expect_match notty-message "$(cat "$TMP/err")" 'needs a terminal'
expect_eq notty-no-workspace "$([ -e notty.pdg ] && echo created || echo none)" none
finish
