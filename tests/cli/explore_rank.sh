#!/usr/bin/env bash
# `polyapm explore --at name=value,... [--rank-top K]` (issue 16, issue 30: --at replaces
# --rank-at, kept as its alias): the search runs at the program's own sizes, then its K best
# verified leaves are ranked at the given values.  There each leaf's cost is extrapolated from
# simulations at four sizes on the way (stored as `polyapm sim NODE -D ...` stores them); a size
# no larger than twice the program's is itself the largest of them, so its cost is the
# simulation's there (LU's n=56 against n=40 here).  Bad input is refused before any search, with
# a message naming what is wrong.  tests/cli/explore_at.sh: at 10-40 times the sizes.
source "$(dirname "$0")/../lib.sh"
cd "$TMP"
P() { "$POLYAPM" -w "$TMP/lu.pdg" "$@"; }
"$POLYAPM" init "$ROOT/examples/polybench/lu.apm" -o lu.pdg >/dev/null
out=$(P explore ROOT -D procs=2 --budget 60 -q --at n=56 --rank-top 3 --json); rc=$?
expect_eq "explore --at: exit 0" "$rc" 0
printf '%s' "$out" >rank.json
printf '%s' "$out" | json "'\n'.join('# leaf %d: cost %.6g, at n=56 %s' % (l['node'], l['cost'], l.get('rank_cost')) for l in j['leaves'])"
ranked=$(json "[l['node'] for l in j['leaves'] if 'rank_cost' in l]" <rank.json)
expect_eq "the --at values are reported" "$(json "j['at'], j['rank_at']" <rank.json)" "n=56 n=56"
expect_eq "four sizes simulated, the largest n=56 itself" "$(json "[s['params'] for s in j['at_samples']]" <rank.json)" \
    "['n=24', 'n=32', 'n=40', 'n=56']"
expect_eq "at least two leaves ranked (at most --rank-top 3 beside the second pass's, local's)" "$(json "2 <= len([l for l in
    j['leaves'] if 'rank_cost' in l and l['path'][-1]['transform'] != 'local']) <= 3" <rank.json)" True
expect_eq "ranked leaves first, verified there, by their cost there" "$(json "(lambda r: all(l['rank_verified'] == 1 for l in r) and
    [l['rank_cost'] for l in r] == sorted(l['rank_cost'] for l in r) and r == j['leaves'][:len(r)])([l for l in j['leaves'] if 'rank_cost' in l])" <rank.json)" True
expect_eq "the best is the first ranked leaf" "$(json "j['best']['node'] == j['leaves'][0]['node']" <rank.json)" True
# the samples' traffic priced at the user's data (A[n][n]: (56 / n)^2 its elements), LU's work of
# degree 3; each leaf weighed for the user's size as pruning weighs it: the work of each step's
# busiest processor (stored with its simulation) and lambda_0 = 40/56 of the rest
expect_eq "data_scale per sample: the user's size's elements over the sample's; degree 3" \
    "$(json "[round(s['data_scale'], 4) for s in j['at_samples']], j['at_degree'], round(j['at_shrink'], 6)" <rank.json)" \
    "[5.4444, 3.0625, 1.96, 1] 3 $(python3 -c "print(round(40 / 56, 6))")"
expect_eq "every leaf weighed: its steps' work + lambda_0 x the rest, from its stored simulation" "$(python3 - <<'PY'
import json, sqlite3
j = json.load(open('rank.json'))
db = sqlite3.connect('lu.pdg/pdg.db')
ok = True
for l in j['leaves']:
    rows = [json.loads(p)['step_work'][0] for (p,) in db.execute(
        "select per_proc from simulations where node = ? and abs(total - ?) <= 1e-9 * ? and per_proc like '%step_work%'",
        (l['node'], l['cost'], l['cost']))]
    want = rows[0] + j['at_shrink'] * (l['cost'] - rows[0]) if rows else None
    ok &= want is not None and abs(l['weighed'] - want) <= 1e-6 * l['cost'] and l['weighed'] <= l['cost']
print(ok and len(j['leaves']) > 1)
PY
)" True
# the search under --rank-at prunes only what costs twice the best leaf: fewer nodes pruned than
# the same search without it (a fresh workspace, the same budget)
"$POLYAPM" init "$ROOT/examples/polybench/lu.apm" -o lu2.pdg >/dev/null
plain=$("$POLYAPM" -w "$TMP/lu2.pdg" explore ROOT -D procs=2 --budget 60 -q --json | json "j['pruned']")
expect_eq "--at: fewer nodes pruned than without it ($plain)" "$(json "j['pruned'] < $plain" <rank.json)" True
# each rank cost is the simulation `sim NODE -D n=56 -D procs=2` finds stored
for id in $(json "' '.join(str(x) for x in $ranked)" <rank.json); do
    got=$(P sim "$id" -D procs=2 -D n=56 --json | json "j['stored'], '%.6g' % j['cost']")
    want=$(json "'%.6g' % [l['rank_cost'] for l in j['leaves'] if l['node'] == $id][0]" <rank.json)
    expect_eq "leaf $id: its rank cost is the stored simulation at n=56" "$got" "True $want"
done
expect_match "text: the ranking is named (--rank-at, the alias)" "$(P explore ROOT -D procs=2 --budget 60 -q --rank-at n=56)" \
    "ranked at n=56: the best leaves first, by their cost there extrapolated from 4 sizes \(n=24 .. n=56\).*
.*at n=56: [0-9.e+-]+ s predicted \(cost [0-9.e+]+\)  verified"
# bad input: refused before a search
for bad in "n" "n=x" "" "n=5,,"; do
    err=$(P explore ROOT -D procs=2 --budget 5 --at "$bad" 2>&1 >/dev/null); rc=$?
    expect_eq "--at '$bad': usage (exit 2)" "$rc" 2
    expect_match "--at '$bad': says what it takes" "$err" "--at takes name=integer"
done
err=$(P explore ROOT -D procs=2 --budget 5 --at foo=3 2>&1 >/dev/null); rc=$?
expect_eq "--at foo=3: exit 1" "$rc" 1
expect_match "--at foo=3: not a parameter" "$err" "'foo' is not a parameter of node 1"
err=$(P explore ROOT -D procs=2 --budget 5 --rank-top 2 2>&1 >/dev/null); rc=$?
expect_eq "--rank-top without --at: usage" "$rc $(printf '%s' "$err" | grep -c 'needs --at')" "2 1"
err=$(P explore ROOT -D procs=2 --budget 5 --at n=56 --rank-top 0 2>&1 >/dev/null); rc=$?
expect_eq "--rank-top 0: usage" "$rc $(printf '%s' "$err" | grep -c 'positive')" "2 1"
finish
