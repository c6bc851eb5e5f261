#!/usr/bin/env bash
# `polyapm sweep NODE k=v1,v2,...` (issue 8): every combination simulated and stored, speedup over
# the root at the same values, procs of a derived node re-simulated with -D procs=v, a plot file
# through gnuplot, and clear errors for bad input.
source "$(dirname "$0")/../lib.sh"
cd "$TMP"
P() { "$POLYAPM" -w "$TMP/lu.pdg" "$@"; }
sed 's/^param n = 64$/param n = 64, procs = 4/' "$ROOT/examples/lu.apm" >lu.apm
"$POLYAPM" init lu.apm -o lu.pdg >/dev/null
P apply ROOT stm "theta=i+j-2" sigma=i >/dev/null && P apply 2 tile kind=cyclic procs=4 >/dev/null &&
    P apply 3 commgen >/dev/null && P apply 4 memdist >/dev/null || fail "lu chain" "did not apply"
before=$(sqlite3 lu.pdg/pdg.db "select count(*) from simulations")
out=$(P sweep 5 procs=2,4,8 n=16,24 --json); rc=$?
expect_eq "sweep: exit 0" "$rc" 0
expect_eq "sweep: 6 points in odometer order" "$(printf '%s' "$out" | json "[(p['values']['procs'], p['values']['n']) for p in j['points']]")" \
    "[(2, 16), (2, 24), (4, 16), (4, 24), (8, 16), (8, 24)]"
expect_eq "sweep: every point verified" "$(printf '%s' "$out" | json "all(p['verified'] == 1 for p in j['points'])")" True
expect_eq "sweep: speedup = root cost / cost" "$(printf '%s' "$out" | json "all(abs(p['speedup'] - p['root_cost'] / p['cost']) < 1e-9 * p['speedup'] for p in j['points'])")" True
expect_eq "sweep: the root's cost does not depend on procs" "$(printf '%s' "$out" | json "len(set(p['root_cost'] for p in j['points']))")" 2
# each point is the simulation `sim -D` stores
c=$(P sim 5 -D procs=8 -D n=24 --json | json "j['stored'], round(j['cost'], 3)")
expect_eq "sweep stored what sim finds" "$c" "True $(printf '%s' "$out" | json "round(j['points'][5]['cost'], 3)")"
after=$(sqlite3 lu.pdg/pdg.db "select count(*) from simulations")
# the root of this graph has a parameter procs too (it is part of its simulation's key)
expect_eq "sweep: 6 node simulations and 6 root ones stored" "$((after - before))" 12
expect_eq "sweep again: nothing new" "$(P sweep 5 procs=2,4,8 n=16,24 >/dev/null; sqlite3 lu.pdg/pdg.db "select count(*) from simulations")" "$after"
# cyclic LU: more processors than 1 speed up, more work is spread
printf '%s' "$out" | json "'\n'.join('# procs=%d n=%d cost %.0f speedup %.3f' % (p['values']['procs'], p['values']['n'], p['cost'], p['speedup']) for p in j['points'])"
txt=$(P sweep 5 procs=2,4 -D n=16)
expect_match "sweep table header" "$txt" 'procs +cost +seconds +root_cost +speedup verified'
expect_eq "sweep table: two rows" "$(printf '%s\n' "$txt" | grep -cE '^ +[0-9]+ +[0-9.e+]+ ')" 2
if command -v gnuplot >/dev/null; then
    P sweep 5 procs=2,4,8 n=16,24 --plot sw.svg >/dev/null
    expect_match "sweep --plot writes an SVG" "$(head -c 400 sw.svg)" '<svg'
    expect_match "sweep --plot: the curves are named by the other key" "$(cat sw.svg)" 'n=24'
    P sweep 5 procs=2,4 -D n=16 --plot sw.png >/dev/null
    expect_match "sweep --plot writes a PNG" "$(head -c 8 sw.png | od -c | head -1)" 'P +N +G'
else
    echo "skip sweep --plot: no gnuplot"
fi
# bad input
P sweep 5 nosuch=1,2 >/dev/null 2>err; rc=$?
expect_eq "unknown parameter: exit 1" "$rc" 1
expect_match "unknown parameter: named" "$(cat err)" "no parameter 'nosuch'"
P sweep 5 procs=a,b >/dev/null 2>err
expect_eq "malformed values: usage" "$?" 2
P sweep 5 >/dev/null 2>&1
expect_eq "nothing to sweep: usage" "$?" 2
P sweep 5 procs=2 --plot x.pdf >/dev/null 2>&1
expect_eq "plot format: usage" "$?" 2
P sweep 99 procs=2 >/dev/null 2>err
expect_eq "unknown node: exit 1" "$?" 1
finish
