#!/usr/bin/env bash
# tests/mpi/pattern.sh — rt_pattern (static partner sets: rows, columns and scattered elements of
# two arrays to every rank, self included, a repeated entry) delivers every element where the
# receiver said, over three exchanges, on 1, 2, 3, 4 and 8 ranks.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
rt_build "$TMP/t_pattern" "$ROOT/tests/mpi/t_pattern.c" || { fail "pattern build" "mpicc failed"; finish; }
ok "pattern builds with -Wall -Wextra -Werror"
for p in 1 2 3 4 8; do
    out=$(mpi_run "$p" "$TMP/t_pattern"); rc=$?
    [ $rc -eq 0 ] || { fail "pattern np=$p runs" "exit $rc: $(echo "$out" | tail -5)"; continue; }
    line=$(grep '^pattern ' <<<"$out")
    expect_match "pattern np=$p: every element arrives where the receiver said" "$line" "errors=0 "
    # K=7 elements x 2 arrays to each of the other p-1 ranks (self copies and the repeat not counted)
    expect_eq "pattern np=$p: elements sent per exchange" "$(sed -n 's/.*sent=\([0-9]*\).*/\1/p' <<<"$line")" "$((p * (p - 1) * 14))"
done
finish
