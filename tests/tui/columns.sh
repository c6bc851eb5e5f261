#!/usr/bin/env bash
# tests/tui/columns.sh — the tree's columns line up whatever the values: FD at n = 512 gives a
# space-time-mapped node of 1.65G ticks and a speedup of 0.043 under a label with θ and σ (two
# bytes, one column each), its tiled child 17.85M and x4, and a child whose label is longer than
# the pane; at 80x24 and again after a resize to 120x30, every row's cost ends in the same column
# and its speedup in the same column, each after at least one blank, the long label cut with an
# ellipsis before the cost's column.
. "$(dirname "$0")/tmux-lib.bash"
P() { "$POLYAPM" -w "$TMP/fd.pdg" "$@"; }
cd "$TMP" || exit 1
"$POLYAPM" init "$ROOT/examples/findiff.apm" -o fd.pdg >/dev/null
P sim ROOT -D n=512 >/dev/null
P apply ROOT stm theta=t sigma=x,y -D n=512 -q >/dev/null
P apply 2 tile kind=block2d procs=4 -D n=512 -q >/dev/null
P apply 3 commgen -D n=512 -q >/dev/null
P label 4 commgen-under-a-label-longer-than-the-tree-pane >/dev/null
expect_match "the crafted node costs over 1G ticks" "$(P show 2)" "cost 1[0-9]{9}(\.[0-9]+)? ticks"

tm new-session -d -x 80 -y 24 -s t "cd '$TMP' && LC_ALL=C.UTF-8 '$POLYAPM' fd.pdg -D n=512; sleep 60"
check open 'src findiff'
check wide-values 'syn stm:θ=t:σ=x[^ ]* +1\.65G x0\.043 V'

# columns WIDTH: the tree's rows (the left pane, WIDTH characters) with their cost and speedup
# columns; prints "ok" or what is wrong
columns() {
    screen | python3 -c '
import re, sys
width = int(sys.argv[1])
row = re.compile(r"^( *[-+^ ] (src|syn|scm|sdm) .*?) +(-|[0-9.]+[MGT]?|[0-9.]+e[+-][0-9]+) +(-|x[0-9.e+-]+) [V!? ]")
ends, rows = set(), 0
for line in sys.stdin.read().split("\n")[1:]:
    tree = line[:width]
    if not re.match(r"^ *[-+^ ] (src|syn|scm|sdm) ", tree):
        continue
    m = row.match(tree)
    if not m:
        print("a row without separate columns: %r" % tree); sys.exit()
    rows += 1
    ends.add((m.end(3), m.end(4)))
if rows < 4: print("only %d rows" % rows)
elif len(ends) != 1: print("the columns end at %s" % sorted(ends))
else: print("ok")
' "$1"
}
expect_eq "80x24: cost and speedup in the same columns on every row" "$(columns 40)" ok
expect_match "80x24: a long label is cut with an ellipsis before the cost" "$(screen)" \
    'scm commgen[^ ]*… +17\.[0-9]+M +x4 V'
tm resize-window -t t -x 120 -y 30 2>/dev/null || tm resize-pane -t t -x 120 -y 30
check resized 'scm commgen-under-a-label-lon[^ ]*… +17\.[0-9]+M +x4 V'
expect_eq "120x30: cost and speedup in the same columns on every row" "$(columns 60)" ok
keys q
finish
