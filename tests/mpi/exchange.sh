#!/usr/bin/env bash
# tests/mpi/exchange.sh — the coalesced all-to-all exchange (rt_exchange) delivers exactly the
# records sent, in order, over several steps of a random pattern (empty and growing buffers, self
# messages, the last steps' records put as runs by rt_exchange_put_run) on 1, 2, 3, 4 and 8 ranks;
# rt_exscan gives rank 0 the identity.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
rt_build "$TMP/t_exchange" "$ROOT/tests/mpi/t_exchange.c" || { fail "exchange build" "mpicc failed"; finish; }
ok "exchange builds with -Wall -Wextra -Werror"
for p in 1 2 3 4 8; do
    out=$(mpi_run "$p" "$TMP/t_exchange"); rc=$?
    [ $rc -eq 0 ] || { fail "exchange np=$p runs" "exit $rc: $(echo "$out" | tail -5)"; continue; }
    line=$(grep '^exchange ' <<<"$out")
    expect_match "exchange np=$p every rank received exactly what was sent" "$line" "errors=0$"
    recv=$(sed -n 's/.* records=\([0-9]*\).*/\1/p' <<<"$line"); sent=$(sed -n 's/.* sent=\([0-9]*\).*/\1/p' <<<"$line")
    if [ -n "$recv" ] && [ "$recv" = "$sent" ] && [ "$recv" -gt 0 ]; then ok "exchange np=$p records sent = received ($recv)"
    else fail "exchange np=$p records sent = received" "$line"; fi
    expect_match "exscan np=$p rank 0 gets the identity, others the exclusive prefix" "$(grep '^exscan ' <<<"$out")" "errors=0$"
done
finish
