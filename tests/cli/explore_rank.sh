#!/usr/bin/env bash
# `polyapm explore --rank-at name=value,... [--rank-top K]` (issue 16): the search runs at the
# program's own sizes, then its K best verified leaves are simulated at the given values — stored
# as `polyapm sim NODE -D ...` stores them — and ordered by those costs; the best is the best
# there.  Bad input is refused before any search, with a message naming what is wrong.
source "$(dirname "$0")/../lib.sh"
cd "$TMP"
P() { "$POLYAPM" -w "$TMP/lu.pdg" "$@"; }
"$POLYAPM" init "$ROOT/examples/polybench/lu.apm" -o lu.pdg >/dev/null
out=$(P explore ROOT -D procs=2 --budget 60 -q --rank-at n=56 --rank-top 3 --json); rc=$?
expect_eq "explore --rank-at: exit 0" "$rc" 0
printf '%s' "$out" >rank.json
printf '%s' "$out" | json "'\n'.join('# leaf %d: cost %.6g, at n=56 %s' % (l['node'], l['cost'], l.get('rank_cost')) for l in j['leaves'])"
ranked=$(json "[l['node'] for l in j['leaves'] if 'rank_cost' in l]" <rank.json)
expect_eq "the rank_at values are reported" "$(json "j['rank_at']" <rank.json)" "n=56"
expect_eq "at least two leaves ranked (at most --rank-top 3)" "$(json "2 <= len($ranked) <= 3" <rank.json)" True
expect_eq "ranked leaves first, verified there, by their cost there" "$(json "(lambda r: all(l['rank_verified'] == 1 for l in r) and
    [l['rank_cost'] for l in r] == sorted(l['rank_cost'] for l in r) and r == j['leaves'][:len(r)])([l for l in j['leaves'] if 'rank_cost' in l])" <rank.json)" True
expect_eq "the best is the first ranked leaf" "$(json "j['best']['node'] == j['leaves'][0]['node']" <rank.json)" True
# the search under --rank-at prunes only what costs twice the best leaf: fewer nodes pruned than
# the same search without it (a fresh workspace, the same budget)
"$POLYAPM" init "$ROOT/examples/polybench/lu.apm" -o lu2.pdg >/dev/null
plain=$("$POLYAPM" -w "$TMP/lu2.pdg" explore ROOT -D procs=2 --budget 60 -q --json | json "j['pruned']")
expect_eq "--rank-at: fewer nodes pruned than without it ($plain)" "$(json "j['pruned'] < $plain" <rank.json)" True
# each rank cost is the simulation `sim NODE -D n=56 -D procs=2` finds stored
for id in $(json "' '.join(str(x) for x in $ranked)" <rank.json); do
    got=$(P sim "$id" -D procs=2 -D n=56 --json | json "j['stored'], '%.6g' % j['cost']")
    want=$(json "'%.6g' % [l['rank_cost'] for l in j['leaves'] if l['node'] == $id][0]" <rank.json)
    expect_eq "leaf $id: its rank cost is the stored simulation at n=56" "$got" "True $want"
done
expect_match "text: the ranking is named" "$(P explore ROOT -D procs=2 --budget 60 -q --rank-at n=56)" "ranked at n=56.*
.*at n=56: cost [0-9.e+]+  verified"
# bad input: refused before a search
for bad in "n" "n=x" "" "n=5,,"; do
    err=$(P explore ROOT -D procs=2 --budget 5 --rank-at "$bad" 2>&1 >/dev/null); rc=$?
    expect_eq "--rank-at '$bad': usage (exit 2)" "$rc" 2
    expect_match "--rank-at '$bad': says what it takes" "$err" "rank-at takes name=integer"
done
err=$(P explore ROOT -D procs=2 --budget 5 --rank-at foo=3 2>&1 >/dev/null); rc=$?
expect_eq "--rank-at foo=3: exit 1" "$rc" 1
expect_match "--rank-at foo=3: not a parameter" "$err" "'foo' is not a parameter of node 1"
err=$(P explore ROOT -D procs=2 --budget 5 --rank-top 2 2>&1 >/dev/null); rc=$?
expect_eq "--rank-top without --rank-at: usage" "$rc $(printf '%s' "$err" | grep -c 'needs --rank-at')" "2 1"
err=$(P explore ROOT -D procs=2 --budget 5 --rank-at n=56 --rank-top 0 2>&1 >/dev/null); rc=$?
expect_eq "--rank-top 0: usage" "$rc $(printf '%s' "$err" | grep -c 'positive')" "2 1"
finish
