#!/usr/bin/env bash
# tests/cli/inplace.sh — programs that reuse memory (PolyBench's in-place Jacobi 1-D: A and B
# written at every step): every level verifies, the local memories of syndm are overwritten by
# messages, and broken variants are still caught — a removed send leaves a stale copy (a missing
# message, although the element holds a value), a send delivered to the neighbouring index is a
# wrong message.
source "$(dirname "$0")/../lib.sh"
B="$ROOT/tests/broken"
P() { "$POLYAPM" -w "$TMP/j.pdg" "$@"; }

cp "$B/jacobi1d-inplace.apm" "$TMP/j.apm"
rm -rf "$TMP/j.pdg"
(cd "$TMP" && "$POLYAPM" init j.apm >/dev/null) || fail "init" "workspace not created"
src=$("$POLYAPM" sim "$TMP/j.apm" | sed -n 's/^checksum: //p')
expect_match "source checksum" "$src" '^[0-9a-f]{16}$'

P apply 1 stm auto=1 >/dev/null || fail "stm" "did not apply"
id=2
for kind in blocked cyclic; do
    for procs in 2 3; do
        P apply 2 tile kind=$kind procs=$procs >/dev/null &&
            P apply $((id + 1)) commgen >/dev/null &&
            P apply $((id + 2)) memdist >/dev/null &&
            P apply $((id + 3)) relcoord >/dev/null || fail "chain $kind/$procs" "did not apply"
        for k in 1 2 3 4; do
            n=$((id + k))
            P sim $n --json >"$TMP/s.json" 2>/dev/null
            lvl=$(json "j['level']" <"$TMP/s.json")
            expect_eq "$kind/$procs node $n ($lvl) verified" "$(json "j['verified']" <"$TMP/s.json")" True
            expect_eq "$kind/$procs node $n checksum = source's" "$(json "j['checksum']" <"$TMP/s.json")" "$src"
        done
        id=$((id + 4))
    done
done
# the syndm nodes receive into elements that already hold values: messages were delivered
P show 5 | grep -q '^level syndm' || fail "node 5 syndm" "not syndm"
recv=$(P sim 5 --json 2>/dev/null | json "sum(j['recv'])" 2>/dev/null)
[ -n "$recv" ] && [ "$recv" != 0 ] && ok "syndm receives into held elements ($recv)" ||
    fail "syndm receives" "no received elements reported ($recv)"

cd "$B"
out=$("$POLYAPM" sim jacobi1d-inplace-syndm-stale.apm 2>&1); rc=$?
expect_eq "stale copy: exit 1" "$rc" 1
expect_match "stale copy: a missing message" "$out" "missing message: processor 0 at t=[0-9]+ reads A\[8\], whose copy is stale"
expect_match "stale copy: names the statement" "$out" "statement S1"
"$POLYAPM" sim jacobi1d-inplace-syndm-stale.apm --json >"$TMP/j" 2>/dev/null
expect_eq "stale copy: json kind" "$(json "j['violations'][0]['kind']" <"$TMP/j")" "missing-message"

out=$("$POLYAPM" sim jacobi1d-inplace-syndm-wrong-index.apm 2>&1); rc=$?
expect_eq "neighbouring index: exit 1" "$rc" 1
expect_match "neighbouring index: a wrong message naming the value's element" "$out" \
    "wrong message: processor 0 → 1 sent at t=[0-9]+ for t=[0-9]+: B\[1\] = [0-9.]+, the value of B\[7\]"
"$POLYAPM" sim jacobi1d-inplace-syndm-wrong-index.apm --json >"$TMP/j" 2>/dev/null
expect_eq "neighbouring index: json kind" "$(json "j['violations'][0]['kind']" <"$TMP/j")" "wrong-message"
finish
