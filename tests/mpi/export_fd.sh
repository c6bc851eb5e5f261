#!/usr/bin/env bash
# tests/mpi/export_fd.sh — the FD chain leaf (stm -> tile block2d -> commgen -> memdist -> relcoord)
# exported as C+MPI: with the halo pattern (auto) and the thesis-style alltoallv records, at every
# rank count the node supports among 1, 2, 3, 4, 8, the program prints `polyapm sim`'s checksum;
# the memdist node (absolute coordinates) too; under smpirun on the 64-node platform with 16 ranks
# it runs and its simulated seconds are stored; a wrong rank count is refused by the program.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
. "$(dirname "$0")/export.inc"
sed -e "s/^param n = 256, steps = 21/param n = 16, steps = 6/" "$ROOT/examples/findiff.apm" >"$TMP/fd.apm"
chain "$TMP/fd.apm" "theta=t sigma=x,y" "kind=block2d procs=4" relcoord && ok "fd chain applies" || { fail "fd chain" "see above"; finish; }

every_rank_count "fd relcoord (halo)" 6
P export 6 -o "$TMP/fd-halo" >"$TMP/out" 2>&1
expect_match "fd relcoord: auto picks the halo pattern" "$(cat "$TMP/out")" "C\+MPI, halo"
expect_match "fd relcoord: the halo is recorded once and exchanged as values" "$(cat "$TMP/fd-halo/findiff_syndm.c")" "rt_pattern_exchange"
expect_match "fd relcoord: only two time planes are stored" "$(cat "$TMP/fd-halo/findiff_syndm.c")" "only the 2 live planes"
for np in 1 4; do
    out=$(P run 6 -np $np --exchange alltoallv --json 2>&1 | tail -1)
    expect_eq "fd relcoord -np $np --exchange alltoallv: the simulation's checksum" "$(printf '%s' "$out" | json "j['match'] and j['exchange'] == 'alltoallv'")" True
done
out=$(P run 5 -np 4 --json 2>&1 | tail -1)
expect_eq "fd memdist (absolute coordinates) -np 4: the simulation's checksum" "$(printf '%s' "$out" | json "j['match']")" True

# the program itself refuses a wrong rank count
(cd "$TMP/fd-halo" && make -s EXTRA_CFLAGS=-Werror >/dev/null 2>&1)
out=$(mpi_run 2 "$TMP/fd-halo/findiff_syndm"); rc=$?
expect_eq "fd program for 4 ranks started with 2: exit status non-zero" "$([ $rc -ne 0 ] && echo yes)" yes
expect_match "fd program for 4 ranks started with 2: says so" "$out" "needs exactly 4 .*started with 2"
P run 6 -np 3 -D procs=4 >/dev/null 2>"$TMP/err"
expect_eq "run -np 3 of a node exported for procs=4: refused" "$?" 1
expect_match "run -np 3 -D procs=4: names both counts" "$(cat "$TMP/err")" "needs 4 MPI ranks .*not 3"

# SimGrid: 16 ranks on the 64-node cluster
if command -v smpirun >/dev/null && command -v smpicc >/dev/null; then
    out=$(P run 6 -np 16 --smpi "$ROOT/examples/platforms/cluster64.xml" --json 2>&1 | tail -1)
    expect_eq "fd relcoord under smpirun, 16 ranks on cluster64: the simulation's checksum" \
        "$(printf '%s' "$out" | json "j['match'] and j['runner'] == 'smpirun'" 2>/dev/null || echo "$out")" True
    expect_eq "fd relcoord under smpirun: the simulated seconds are stored" \
        "$(P show 6 --json | json "any(m['runner'] == 'smpirun' and m['ranks'] == 16 and m['seconds'] > 0 for m in j['measurements'])")" True
else
    echo "skip export_fd: smpirun/smpicc not installed"
fi
expect_eq "show lists the mpirun measurements" \
    "$(P show 6 --json | json "sum(1 for m in j['measurements'] if m['runner'] == 'mpirun') >= 2")" True
expect_match "show (text) lists them" "$(P show 6 | grep -E "ranks, smpirun")" " 16 ranks, smpirun -platform"
expect_match "show (text): an mpirun measurement names no platform" "$(P show 6 | grep -E "ranks, mpirun" | head -1)" \
    " ranks, mpirun n=[0-9]+,"
finish
