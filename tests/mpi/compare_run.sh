#!/usr/bin/env bash
# tests/mpi/compare_run.sh — issue 8's run-based comparison: calibrate this machine (-np 2,
# --quick: the full calibration is cli/calibrate's), run the four LU leaves at n=512 with
# `polyapm run -np 2` (exported, built, checked against the simulation, measured), then `compare
# --machine local`: a table with predicted and measured columns for each leaf and Kendall's tau.
# The shape is asserted, not the numbers (they are printed: this machine is shared and noisy).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
cd "$TMP"
WS=$TMP/lu.pdg
P() { "$POLYAPM" -w "$WS" "$@"; }
sed 's/^param n = 64$/param n = 12, procs = 4/' "$ROOT/examples/lu.apm" >lu.apm
"$POLYAPM" init lu.apm -o "$WS" >/dev/null
P calibrate -np 2 --quick --name local >calib.out 2>&1
expect_eq "calibrate -np 2 --quick: exit 0" "$?" 0
lu_four_leaves
leaves=$(P tree --json | json "' '.join(str(n['id']) for n in j['nodes'] if n['level'] == 'syndm')")
expect_eq "four syndm leaves" "$(echo $leaves | wc -w)" 4
for l in $leaves; do
    out=$(P run "$l" -np 2 -D n=512 --json 2>&1)
    expect_eq "run leaf $l -np 2 at n=512: the checksum of the simulation" \
        "$(printf '%s' "$out" | tail -1 | json "j['match'] and j['ranks'] == 2" 2>/dev/null || printf '%s' "$out" | tail -3)" True
done
expect_eq "four measurements stored" "$(sqlite3 "$WS/pdg.db" "select count(distinct node) from measurements where runner = 'mpirun' and ranks = 2")" 4
txt=$(P compare --machine local); rc=$?
printf '%s\n' "$txt" | sed 's/^/# /'
expect_eq "compare --machine local: exit 0" "$rc" 0
expect_match "compare: predicted and measured columns" "$txt" 'predicted_s +measured_s +error'
expect_eq "compare: a row per leaf, each with a measured time" \
    "$(P compare --machine local --json | json "sum(1 for r in j['rows'] if r['measured_seconds'] and r['measured_seconds'] > 0 and r['predicted_seconds'] > 0)")" 4
expect_match "compare: Kendall tau over the four measured leaves" "$txt" 'Kendall tau \(predicted vs measured order, 4 measured rows\): -?[0-9.]+'
finish
