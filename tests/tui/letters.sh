#!/usr/bin/env bash
# tests/tui/letters.sh — θ and σ as the terminal can show them, and speedups in bounded widths:
#  - on a UTF-8 terminal the diff's header names the stm node as its label is, stm:θ=0:σ=i (not
#    "??" for each byte); on a C-locale terminal spelled, stm:theta=0:sigma=i, in the header, the
#    diff's title and the tree, with no raw byte beyond ASCII on the screen;
#  - the compare view and the cost pane show a huge speedup (x12345: a hand-written child whose
#    statement costs 1 against the source's 12345) and a tiny one (x1e-04: one costing 100365854)
#    in the tree's bounded form: in the compare view every row's speedup ends in the header's
#    "speedup" column and its predicted seconds in the "pred s" column, the θ label included.
. "$(dirname "$0")/tmux-lib.bash"
cd "$TMP" || exit 1
cat >r.apm <<'APM'
program r
level source
param n = 10
array a[0 .. n - 1] double
output a

for i = 0 .. n - 1 {
  S: a[i] = i * 0.5 cost 12345
}
APM
sed 's/cost 12345/cost 1/' r.apm >fast.apm
sed 's/cost 12345/cost 100365854/' r.apm >slow.apm
P() { "$POLYAPM" -w "$TMP/r.pdg" "$@"; }
"$POLYAPM" init r.apm -o r.pdg >/dev/null && P add ROOT fast.apm --label fast >/dev/null &&
    P add ROOT slow.apm --label slow >/dev/null && P apply ROOT stm theta=0 sigma=i >/dev/null ||
    { fail "the workspace builds" "init, add or apply failed"; finish; }
for n in 1 2 3; do P sim $n >/dev/null; done
expect_match "node 4 is the stm node, labelled with θ and σ" "$(P tree)" "4 stm:θ=0:σ=i "

# open LOCALE: the TUI on r.pdg under LC_ALL=LOCALE (in the one pane, in place of what ran there),
# the stm node's diff shown
open() {
    local cmd="cd '$TMP' && LC_ALL=$1 '$POLYAPM' r.pdg; sleep 60"
    if tm has-session -t t 2>/dev/null; then
        keys Escape q                                # the TUI gone from the screen first
        wait_gone 'src r ' 10
        tm respawn-pane -k -t t "$cmd"
    else tm new-session -d -x 120 -y 30 -s t "$cmd"; fi
    check "$1: opens" 'src r '
    keys /
    keys stm Enter
    check "$1: /stm finds the node" '\(n: next\)'
    keys d
}
open C.UTF-8
check "UTF-8: the diff's header names the node with θ and σ" '\| \+\+\+ b/stm:θ=0:σ=i *$'
expect_match "UTF-8: the diff's title too" "$(screen)" '\| diff 4 stm:θ=0:σ=i \(syn\) vs its parent'
expect_eq "UTF-8: no '?' stands for a letter" "$(screen | grep -c 'stm:?')" 0

# aligned OUT: "ok" when every row of the compare view (OUT, its screen) has its speedup ending
# in the header's speedup column and its predicted seconds in the pred-s column
aligned() {
    python3 -c '
import re, sys
lines = sys.stdin.read().split("\n")
head = next((l for l in lines if " speedup " in l and "pred s" in l), None)
if head is None: print("no header"); sys.exit()
spd_end, pred_end = head.index("speedup") + len("speedup"), head.index("pred s") + len("pred s")
rows = [l for l in lines if re.match(r"^\| [0-9]+ ", l)]
bad = []
for l in rows:
    m = re.search(r" (x[0-9.e+-]+) +([0-9.e+-]+|-) ", l)
    if not m or m.end(1) != spd_end or m.end(2) != pred_end: bad.append(l.strip())
print("ok" if len(rows) == 3 and not bad else "%d rows; misaligned: %s" % (len(rows), bad))'
}
keys c
check "UTF-8: the compare view opens" 'compare leaves by cost'
view=$(screen)
expect_match "UTF-8: compare shows the huge speedup bounded" "$view" '\| 2 +fast +src +10 +x12345 '
expect_match "UTF-8: compare shows the tiny speedup bounded" "$view" '\| 3 +slow +src +1\.00G +x1e-04 '
expect_eq "UTF-8: compare's columns line up (θ label, huge and tiny speedups)" "$(aligned <<<"$view")" ok
keys Escape
wait_gone 'compare leaves by cost' 5
# the cost pane of the fast and the slow node (the tree: r, fast, slow, stm; stm selected)
keys k k
check "cost pane: the huge speedup bounded" '\| speedup x12345  verified'
keys j
check "cost pane: the tiny speedup bounded" '\| speedup x1e-04  verified'

open C
check "C locale: the diff's header spells theta and sigma" '\| \+\+\+ b/stm:theta=0:sigma=i *$'
view=$(screen)
expect_match "C locale: the diff's title too" "$view" '\| diff 4 stm:theta=0:sigma=i \(syn\) vs its parent'
expect_match "C locale: the tree too" "$view" 'syn stm:theta=0:sigma=i +15035 '
expect_eq "C locale: no byte beyond ASCII on the screen" "$(LC_ALL=C grep -c '[^ -~]' <<<"$view")" 0
keys c
check "C locale: the compare view opens" 'compare leaves by cost'
expect_eq "C locale: compare's columns line up" "$(aligned <<<"$(screen)")" ok
keys Escape q
finish
