#!/usr/bin/env bash
# tests/mpi/gather.sh — rt_gather, three gathers in a row as an exported program's output slabs
# call it: rank 0 holds each element's newest value (the largest stamp, of equal stamps the later
# rank's) and no value where no rank put one, with ranks sending several chunks, on 1, 2, 3, 4
# and 8 ranks.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
rt_build "$TMP/t_gather" "$ROOT/tests/mpi/t_gather.c" || { fail "gather build" "mpicc failed"; finish; }
ok "gather builds with -Wall -Wextra -Werror"
for p in 1 2 3 4 8; do
    out=$(mpi_run "$p" "$TMP/t_gather"); rc=$?
    [ $rc -eq 0 ] || { fail "gather np=$p runs" "exit $rc: $(echo "$out" | tail -5)"; continue; }
    expect_eq "gather np=$p: rank 0 holds every element's newest value" "$(grep '^gather ' <<<"$out")" \
        "gather errors=0 checked=450000"
done
finish
