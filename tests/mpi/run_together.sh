#!/usr/bin/env bash
# tests/mpi/run_together.sh — `polyapm run`s started at the same moment all run: each mpirun
# gets an Open MPI session directory of its own (tui/cli/mpirun.c), because two mpiruns creating
# the shared one at once make one fail before its program starts ("mkdir ... File exists").
# An mpirun wrapper first in PATH records the directory each run was given; four runs at a time,
# five rounds, on four nodes of floyd-warshall's derivation.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
cd "$TMP"
WS=$TMP/fw.pdg
"$POLYAPM" init "$ROOT/examples/polybench/floyd-warshall.apm" -o "$WS" >/dev/null
"$POLYAPM" -w "$WS" explore ROOT -D procs=2 --budget 100 -q >/dev/null 2>&1
nodes=$("$POLYAPM" -w "$WS" tree --json | json "' '.join([str(n['id']) for n in j['nodes'] if n['level'] == 'syndm' and n['verified']][:4])")
expect_eq "four verified syndm nodes to run" "$(echo $nodes | wc -w)" 4

# the wrapper: logs OMPI_MCA_orte_tmpdir_base, then runs the real mpirun
real=$(command -v mpirun)
mkdir -p wrap base
cat >wrap/mpirun <<W
#!/bin/sh
echo "\$OMPI_MCA_orte_tmpdir_base" >>"$TMP/dirs.log"
exec "$real" "\$@"
W
chmod +x wrap/mpirun
export OMPI_MCA_orte_tmpdir_base=$TMP/base
bad=0
for round in 1 2 3 4 5; do
    for nd in $nodes; do
        (PATH=$TMP/wrap:$PATH "$POLYAPM" -w "$WS" run "$nd" -np 2 -D n=24 >"out.$round.$nd" 2>&1 ||
            echo "round $round node $nd: $(tail -3 "out.$round.$nd" | tr '\n' ' ')" >>failures) &
    done
    wait
done
expect_eq "20 runs, four at a time: every one ran with its simulation's checksum" \
    "$(cat failures 2>/dev/null)" ""
expect_eq "each mpirun had a session directory of its own" \
    "$(sort -u dirs.log | wc -l) $(wc -l <dirs.log)" "20 20"
expect_eq "each under the session base the user chose" "$(grep -vc "^$TMP/base/polyapm-mpi-" dirs.log)" 0
expect_eq "none is left behind" "$(ls -A base)" ""
finish
