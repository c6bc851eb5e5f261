#!/usr/bin/env bash
# tests/mpi/ranks.sh — a program started with a rank count it does not support says so clearly
# (expected and actual count, the reason) and exits non-zero; the right count runs; an MPI error
# caught by RT_CHECK names the call and MPI's error string and exits non-zero.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
rt_build "$TMP/t_ranks" "$ROOT/tests/mpi/t_ranks.c" || { fail "ranks build" "mpicc failed"; finish; }
ok "ranks builds with -Wall -Wextra -Werror"
# refused: NAME P MESSAGE-REGEX ARGS...
refused() {
    local name=$1 p=$2 re=$3; shift 3
    local out rc
    out=$(mpi_run "$p" "$TMP/t_ranks" "$@"); rc=$?
    if [ $rc -eq 0 ]; then fail "$name" "exited 0: $out"; return; fi
    expect_match "$name" "$out" "$re"
    if grep -q '^ran ' <<<"$out"; then fail "$name (stops before the work)" "$out"; else ok "$name (stops before the work)"; fi
}
refused "ranks: 2 ranks for a 4-rank program" 2 \
    "polyapm-rt: this program needs exactly 4 \(mpirun -np 4\) MPI ranks but was started with 2 \(the program was derived for procs = 4\)" exact 4
refused "ranks: 8 ranks for a 4-rank program" 8 "needs exactly 4 .*started with 8" exact 4
out=$(mpi_run 2 "$TMP/t_ranks" exact 4)
expect_eq "ranks: the message is printed once" "$(grep -c 'polyapm-rt: this program needs' <<<"$out")" 1
out=$(mpi_run 4 "$TMP/t_ranks" exact 4); rc=$?
expect_eq "ranks: 4 ranks for a 4-rank program run" "$rc $(grep '^ran ' <<<"$out")" "0 ran with 4 ranks"
out=$(mpi_run 3 "$TMP/t_ranks" exact 0); rc=$?
expect_eq "ranks: 0 accepts any count" "$rc $(grep '^ran ' <<<"$out")" "0 ran with 3 ranks"
refused "ranks: 3 ranks for a square grid" 3 "needs a square number of .*started with 3 \(the tiling is a square grid of tiles\)" square
out=$(mpi_run 4 "$TMP/t_ranks" square); rc=$?
expect_eq "ranks: 4 ranks make a 2x2 grid" "$rc $(grep '^ran ' <<<"$out")" "0 ran on a 2x2 grid"
out=$(mpi_run 1 "$TMP/t_ranks" square); rc=$?
expect_eq "ranks: 1 rank makes a 1x1 grid" "$rc $(grep '^ran ' <<<"$out")" "0 ran on a 1x1 grid"
out=$(mpi_run 2 "$TMP/t_ranks" mpierror); rc=$?
if [ $rc -ne 0 ]; then ok "RT_CHECK: an MPI error exits non-zero"; else fail "RT_CHECK: an MPI error exits non-zero" "exited 0"; fi
expect_match "RT_CHECK: names the call, the place and MPI's error string" "$out" \
    "polyapm-rt: rank [01]: .*t_ranks\.c:[0-9]+: MPI_Send\(&v, 1, MPI_DOUBLE, size \+ 5, 0, w\) failed: .*(rank|RANK)"
if grep -q "not reached" <<<"$out"; then fail "RT_CHECK: stops the program" "$out"; else ok "RT_CHECK: stops the program"; fi
out=$(mpi_run 4 "$TMP/t_ranks" grid 3 2); rc=$?
if [ $rc -ne 0 ]; then expect_match "grid: a 3x2 grid on 4 ranks is refused" "$out" "a 3 x 2 grid of ranks needs 6 ranks, the communicator has 4"
else fail "grid: a 3x2 grid on 4 ranks is refused" "exited 0"; fi
finish
