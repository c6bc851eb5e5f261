#!/usr/bin/env bash
# `polyapm measure` and `polyapm compare` (issue 8): measurements recorded through the command
# line, predicted cost under every model next to the measured seconds, the error, Kendall's tau
# over the measured rows (checked against a direct computation), JSON, and the plot.  The
# run-based variant (polyapm run -np 2, then compare) belongs to the export/run tests.
source "$(dirname "$0")/../lib.sh"
cd "$TMP"
P() { "$POLYAPM" -w "$TMP/lu.pdg" "$@"; }
sed 's/^param n = 64$/param n = 64, procs = 4/' "$ROOT/examples/lu.apm" >lu.apm
"$POLYAPM" init lu.apm -o lu.pdg >/dev/null
# the four LU leaves B1 C1 B2 C2 (syndm), nodes 5..
lu_four_leaves
leaves=$(P tree --json | json "' '.join(str(n['id']) for n in j['nodes'] if n['level'] == 'syndm')")
expect_eq "four syndm leaves" "$(echo $leaves | wc -w)" 4
# measured seconds (invented here, in a known order): the first leaf slowest
secs=(4.0 1.5 3.0 2.0)
i=0
for l in $leaves; do
    out=$(P measure "$l" -np 4 "${secs[$i]}" -D n=32 --json); rc=$?
    expect_eq "measure leaf $l: exit 0" "$rc" 0
    i=$((i + 1))
done
expect_eq "measure: procs follows -np" "$(printf '%s' "$out" | json "j['params']")" "n=32,procs=4"
expect_eq "measurements stored" "$(sqlite3 lu.pdg/pdg.db "select count(*), min(ranks), max(runner) from measurements")" "4|4|mpirun"
first=${leaves%% *}
P measure "$first" -np 4 5.0 -D n=32 >/dev/null   # a second run of the first leaf: its mean is 4.5
txt=$(P compare --machine scali2004); rc=$?
expect_eq "compare: exit 0" "$rc" 0
expect_match "compare: header with every model, predicted and measured" "$txt" \
    'node +label +ranks +params +polyapm +bsp +hockney +loggp +predicted_s +measured_s +error verified'
expect_eq "compare: one row per leaf (all leaves by default)" "$(printf '%s\n' "$txt" | grep -cE '^[0-9]+ ')" 4
expect_match "compare: Kendall tau line" "$txt" 'Kendall tau \(predicted vs measured order, 4 measured rows\): -?[0-9.]+'
js=$(P compare --machine scali2004 --json)
expect_eq "compare --json: measured means" "$(printf '%s' "$js" | json "sorted(float(r['measured_seconds']) for r in j['rows'])")" "[1.5, 2.0, 3.0, 4.5]"
expect_eq "compare --json: runs" "$(printf '%s' "$js" | json "sorted(r['runs'] for r in j['rows'])")" "[1, 1, 1, 2]"
expect_eq "compare --json: predicted = polyapm cost x tick" "$(printf '%s' "$js" | json "all(abs(r['predicted_seconds'] - r['cost']['polyapm'] * j['tick_seconds']) <= 1e-12 + 1e-9 * r['predicted_seconds'] for r in j['rows'])")" True
expect_eq "compare --json: error = (predicted - measured) / measured" "$(printf '%s' "$js" | json "all(abs(r['error'] - (r['predicted_seconds'] - r['measured_seconds']) / r['measured_seconds']) < 1e-5 for r in j['rows'])")" True
expect_eq "compare --json: every model priced, every leaf verified" "$(printf '%s' "$js" | json "all(set(r['cost']) == {'polyapm','bsp','hockney','loggp'} and min(r['cost'].values()) > 0 and r['verified'] == 1 for r in j['rows'])")" True
tau=$(printf '%s' "$js" | python3 -c "
import json,sys; j=json.load(sys.stdin); r=j['rows']; n=len(r); s=0
for a in range(n):
    for b in range(a+1, n):
        x=(r[a]['predicted_seconds']-r[b]['predicted_seconds'])*(r[a]['measured_seconds']-r[b]['measured_seconds'])
        s+=(x>0)-(x<0)
print('%.6f %.6f' % (s/(n*(n-1)/2) + 0.0, j['tau'] + 0.0))")
expect_eq "compare: tau is Kendall's over the four leaves" "$(echo $tau | cut -d' ' -f1)" "$(echo $tau | cut -d' ' -f2)"
# another model predicts; named nodes only; a node without measurements is predicted only
expect_eq "compare --model hockney predicts with hockney" "$(P compare --machine scali2004 --model hockney --json | json "all(abs(r['predicted_seconds'] - r['cost']['hockney'] * j['tick_seconds']) <= 1e-9 * r['predicted_seconds'] for r in j['rows'])")" True
one=$(P compare 2 -D n=16 --machine scali2004 --json)
expect_eq "compare NODE without measurements: predicted only, no tau" "$(printf '%s' "$one" | json "len(j['rows']), j['rows'][0]['measured_seconds'], j['tau']")" "1 None None"
if command -v gnuplot >/dev/null; then
    P compare --machine scali2004 --plot cmp.svg >/dev/null
    expect_match "compare --plot writes an SVG with the leaves" "$(cat cmp.svg)" '<svg'
    expect_eq "compare --plot: one panel when every node ran at one rank count" "$(grep -c 'seconds over ranks' cmp.svg)" 0
    P measure "$first" -np 2 6.0 -D n=32 >/dev/null
    P compare --machine scali2004 --plot cmp2.svg >/dev/null
    expect_match "compare --plot: seconds over ranks for a node measured at 2 and 4 ranks" "$(cat cmp2.svg)" 'seconds over ranks'
    P compare 2 --machine scali2004 --plot none.svg >/dev/null 2>err
    expect_eq "compare --plot without measurements: exit 1" "$?" 1
fi
# bad input
P measure "$first" -np 4 -3 >/dev/null 2>&1; expect_eq "measure: negative seconds is usage" "$?" 2
P measure "$first" 3.0 >/dev/null 2>&1; expect_eq "measure: -np required" "$?" 2
P measure "$first" -np 2 1.0 --runner srun >/dev/null 2>&1; expect_eq "measure: unknown runner" "$?" 2
P measure nosuch -np 2 1.0 >/dev/null 2>&1; expect_eq "measure: unknown node" "$?" 1
P compare --model nosuch >/dev/null 2>&1; expect_eq "compare: unknown model" "$?" 2
P compare --machine nosuch >/dev/null 2>&1; expect_eq "compare: unknown machine" "$?" 1
finish
