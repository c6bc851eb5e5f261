#!/usr/bin/env bash
# `polyapm run` checks at native speed (issue 30 item 3): at a size where simulating would take
# long (its estimate, from the simulator's own progress, above polyapm(1)'s limit), the parallel
# program's checksum is checked against the source exported as sequential C and run natively, and
# run says so; at a small size the simulation stays the check.  FD (findiff) at syndm on 2 ranks.
source "$(dirname "$0")/../lib.sh"
cd "$TMP"
if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then echo "skip run_native: no MPI"; finish; fi
sed "s/^param n = 256, steps = 21/param n = 16, steps = 21/" "$ROOT/examples/findiff.apm" >fd16.apm
"$POLYAPM" init fd16.apm -o fd.pdg >/dev/null
P() { "$POLYAPM" -w "$TMP/fd.pdg" "$@"; }
P apply ROOT stm theta=t sigma=x inner=seq >/dev/null && P apply 2 tile kind=blocked procs=2 >/dev/null &&
    P apply 3 commgen >/dev/null && P apply 4 memdist >/dev/null
leaf=5
expect_eq "the FD leaf is syndm" "$(P show $leaf --json | json "j['level']")" syndm
# small: the simulation is the check
out=$(P run $leaf -np 2 -D n=64 -D steps=10 --json 2>err); rc=$?
expect_eq "small (n=64, 10 steps): exit 0, checked against the simulation, equal" \
    "$rc $(printf '%s' "$out" | tail -1 | json "j['reference'], j['match'], j['sim_checksum'] == j['checksum']")" \
    "0 simulation True True"
expect_eq "small: nothing said about a native check" "$(grep -c 'sequential C' err)" 0
expect_match "small: the text says the simulation" "$(P run $leaf -np 2 -D n=64 -D steps=10 2>/dev/null)" \
    "checksum [0-9a-f]{16} = the simulation's"
# large: the simulation would take minutes (1200 x 1200, 100 steps: some 10^8 statement instances)
start=$(date +%s)
out=$(P run $leaf -np 2 -D n=1200 -D steps=100 --json 2>err); rc=$?
took=$(( $(date +%s) - start ))
echo "# run at n=1200, 100 steps: ${took}s"
sed 's/^/#   /' err
expect_eq "large (n=1200, 100 steps): exit 0, checked against the sequential C program, equal" \
    "$rc $(printf '%s' "$out" | tail -1 | json "j['reference'], j['match'], j['reference_checksum'] == j['checksum'], j['sim_checksum']")" \
    "0 sequential C True True None"
expect_match "large: run says which reference and why" "$(cat err)" \
    "simulating node $leaf \(memdist\) at n=1200,steps=100,.* would take about [0-9]+ s or more: its checksum is checked against the sequential C program of its source, run natively"
expect_eq "large: measured, not simulated at that size (no simulation stored at n=1200)" \
    "$(sqlite3 fd.pdg/pdg.db "select count(*) from simulations where params like 'n=1200,%'") $(sqlite3 fd.pdg/pdg.db "select count(*) from measurements where node = $leaf and params like 'n=1200,%'")" "0 1"
expect_eq "large: within a minute here (the simulation alone would take minutes)" "$(( took < 60 ))" 1
# the sequential program it ran is the source's, at that size: its own checksum is the one compared
seqdir=$(ls -d fd.pdg/runs/node1-seq-* 2>/dev/null | head -1)
expect_eq "the source's sequential C program was built in the run cache" "$(test -x "$seqdir/findiff" && echo yes)" yes
expect_eq "and, run again, prints the checksum run compared" \
    "$("$seqdir/findiff" | sed -n 's/^polyapm-result checksum=\([0-9a-f]*\) .*/\1/p')" "$(printf '%s' "$out" | tail -1 | json "j['checksum']")"
finish
