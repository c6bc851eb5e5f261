#!/usr/bin/env bash
# tests/tui/export.sh — X and R on the selected node in the real TUI (tmux): R runs
# `polyapm run` in the background (export, build, mpirun, checksum check), the status line says
# the measurement was stored and the cost pane shows it next to the prediction; X exports the
# node into a directory; the compare view shows the leaf's predicted and measured seconds; a run refused (wrong rank count for a node without procs) says why.
. "$(dirname "$0")/tmux-lib.bash"
command -v mpicc >/dev/null && command -v mpirun >/dev/null || { echo "skip export: no MPI"; exit 0; }
export OMPI_MCA_rmaps_base_oversubscribe=1
cd "$TMP"
sed "s/^param n = 256, steps = 21/param n = 16, steps = 3/" "$ROOT/examples/findiff.apm" >fd.apm
P() { "$POLYAPM" -w "$TMP/fd.pdg" "$@"; }
"$POLYAPM" init fd.apm -o fd.pdg >/dev/null && P apply ROOT stm theta=t sigma=x,y >/dev/null &&
P apply 2 tile kind=block2d procs=4 >/dev/null && P apply 3 commgen >/dev/null && P apply 4 memdist --why leaf >/dev/null ||
    { fail "chain" "see above"; finish; }
P label 5 leaf >/dev/null
tm new-session -d -x 120 -y 34 -s t "cd '$TMP' && '$POLYAPM' fd.pdg; echo \$? >'$TMP/exit'; sleep 60"
check "tui opens" 'leaf'
keys / leaf Enter
check "search selects the leaf" '/leaf'
keys R
check "R asks how to run, -np 4 by default" 'run with .*-np 4'
keys Enter
check "R runs in the background, then says the measurement is stored" 'run of node 5: stored as a measurement' 60
check "the cost pane shows the measurement and the prediction" 'measured [0-9.e-]+ s \(np 4\), predicted [0-9.e-]+ s'
expect_eq "the measurement is in the workspace" "$(P show 5 --json | json "len(j['measurements'])")" 1
keys c
check "the compare view has predicted and measured columns" 'pred s +meas s'
check "the measured leaf shows its predicted and measured seconds" '^[|│] +5 +leaf +sdm +[0-9.]+ +x[0-9.]+ +[0-9.e-]+ +[0-9.e-]+ #+ V'
keys Escape
keys X
check "X asks for a directory" 'export to directory.*export-node5'
keys Enter
check "X exports in the background" 'export of node 5: it needs 4 MPI ranks' 30
expect_eq "the directory holds the program, the runtime and a Makefile" \
    "$(ls "$TMP/export-node5" | grep -c '^findiff_syndm.c$\|^rt.h$\|^Makefile$')" 3
keys R C-u '-np 3 -D procs=4' Enter
check "a refused run says why" 'run of node 5: .*needs 4 MPI ranks.*not 3' 60
keys q
wait_for '' 5
finish
