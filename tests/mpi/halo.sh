#!/usr/bin/env bash
# tests/mpi/halo.sh — the 2-D halo exchange of a block tiling on q x q grids (P = 1, 4, 9) and on a
# 2 x 3 grid fills every rim cell with the neighbour's value (contiguous rows, strided columns,
# widths 1 and 2, with and without corners, uneven tiles), and touches nothing else; the 1-D
# halo exchange of row blocks does the same on 1 to 4 ranks.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
rt_build "$TMP/t_halo" "$ROOT/tests/mpi/t_halo.c" || { fail "halo build" "mpicc failed"; finish; }
ok "halo builds with -Wall -Wextra -Werror"
check() {  # NAME P ARGS...
    local name=$1 p=$2; shift 2
    local out rc
    out=$(mpi_run "$p" "$TMP/t_halo" "$@"); rc=$?
    if [ $rc -ne 0 ]; then fail "$name" "exit $rc: $(echo "$out" | tail -5)"; return; fi
    expect_match "$name" "$(grep '^halo ' <<<"$out")" "^halo errors=0 cells=[1-9]"
}
for p in 1 4 9; do
    check "halo 2-D q*q=$p width 1 (five-point)"           $p 2d 1 0 17 23
    check "halo 2-D q*q=$p width 1 with corners"           $p 2d 1 1 17 23
    check "halo 2-D q*q=$p width 2 with corners"           $p 2d 2 1 20 14
done
check "halo 2-D 2x3 grid width 1"                          6 2d 1 0 11 13 2 3
check "halo 2-D 2x2 grid width 2 without corners"          4 2d 2 0 10 9 2 2
check "halo 2-D 3x2 grid width 2 with corners"             6 2d 2 1 12 9 3 2
for p in 1 2 3 4; do
    check "halo 1-D row blocks np=$p width 1"              $p 1d 1 13 5
    check "halo 1-D row blocks np=$p width 2"              $p 1d 2 13 1
done
# a tile too small for its halo is refused with a message, not a wrong answer
out=$(mpi_run 4 "$TMP/t_halo" 2d 3 0 4 4); rc=$?
if [ $rc -ne 0 ] && grep -q "cannot carry a halo of width 3" <<<"$out"; then ok "halo 2-D refuses a tile smaller than its halo"
else fail "halo 2-D refuses a tile smaller than its halo" "exit $rc: $(echo "$out" | head -3)"; fi
finish
