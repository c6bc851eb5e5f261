#!/usr/bin/env bash
# Collectives and user-defined operators (polyapm-lang(5) COLLECTIVES, OPERATORS): every form
# parses, checks, prints canonically and idempotently; operators whose declared properties fail
# on sampled values are rejected with the counter-example.
source "$(dirname "$0")/../lib.sh"
for f in "$ROOT"/tests/coll/*.apm; do
    name=${f#$ROOT/}
    "$POLYAPM" check "$f" >"$TMP/out" 2>&1
    expect_eq "check $name" "$?" 0
    "$POLYAPM" fmt "$f" >"$TMP/a.apm" 2>"$TMP/err"
    if cmp -s "$f" "$TMP/a.apm"; then ok "$name is canonical"
    else fail "$name is canonical" "$(diff "$f" "$TMP/a.apm" | head -5)"; fi
    "$POLYAPM" fmt "$TMP/a.apm" >"$TMP/b.apm" 2>>"$TMP/err"
    if cmp -s "$TMP/a.apm" "$TMP/b.apm"; then ok "fmt $name idempotent"
    else fail "fmt $name idempotent" "$(diff "$TMP/a.apm" "$TMP/b.apm" | head -5)"; fi
done
# non-canonical spellings print canonically: tuples of one, spacing, a pattern in parentheses
cat >"$TMP/nc.apm" <<'APM'
program nc
level syncomm
param procs=4
op mx { state (x int)
 combine (a) (b) = (max(a,b))
 commutative }
array b[0..procs-1][0..2] int
array c[0..procs-1][0..2] int
for t=0..0, rp=0..procs-1 proc { (c[rp]) = allreduce(mx) (b[rp]); c[rp]=reduce( + )b[rp] to 0 }
APM
"$POLYAPM" fmt "$TMP/nc.apm" >"$TMP/nc1.apm"; expect_eq "non-canonical text formats" "$?" 0
expect_match "one-field pattern printed bare" "$(cat "$TMP/nc1.apm")" "combine a b = max\(a, b\)"
expect_match "one-block tuple printed bare" "$(cat "$TMP/nc1.apm")" "c\[rp\] = allreduce\(mx\) b\[rp\]"
expect_match "operator printed tight" "$(cat "$TMP/nc1.apm")" "c\[rp\] = reduce\(\+\) b\[rp\] to 0"
"$POLYAPM" fmt "$TMP/nc1.apm" | cmp -s - "$TMP/nc1.apm" && ok "non-canonical: idempotent" || fail "non-canonical: idempotent" "differs"
# the paper's sorted operator, written literally, is rejected: its ident is no identity
"$POLYAPM" check "$ROOT/tests/bad/op_ident_not_identity.apm" >/dev/null 2>"$TMP/err"
expect_eq "literal sorted: rejected" "$?" 1
expect_match "literal sorted: counter-example" "$(cat "$TMP/err")" "combine\(ident, \([-0-9, ]+\)\) = \([-0-9, ]+\), not"
# every collective example verifies against its reference on 1..9 processors
for f in polyeval scanscan zran3 zran3-rounds sorted; do
    bad=""
    for p in 1 2 3 4 5 6 7 8 9; do
        "$POLYAPM" sim "$ROOT/examples/$f.apm" -D procs=$p --json >"$TMP/j" 2>"$TMP/err"
        [ "$(json "j['verified']" <"$TMP/j" 2>/dev/null)" = True ] || bad="$bad $p"
    done
    expect_eq "examples/$f.apm verified for procs = 1..9" "$bad" ""
done
bad=""
for p in 1 2 3 4 5 6 7 8 9; do
    "$POLYAPM" sim "$ROOT/tests/coll/polyeval-dm.apm" -D procs=$p --json >"$TMP/j" 2>"$TMP/err"
    [ "$(json "j['verified']" <"$TMP/j" 2>/dev/null)" = True ] || bad="$bad $p"
done
expect_eq "polyeval at syndm verified for procs = 1..9" "$bad" ""
for n in 2 3 4; do
    "$POLYAPM" sim "$ROOT/examples/multicast.apm" -D N=$n --json >"$TMP/j" 2>"$TMP/err"
    expect_eq "multicast on $n x $n processors verified" "$(json "j['verified']" <"$TMP/j")" True
done
for last in 3 7; do
    "$POLYAPM" sim "$ROOT/examples/sorted.apm" -D last=$last --json >"$TMP/j"
    expect_eq "sorted on [5], [], [$last] verified" "$(json "j['verified']" <"$TMP/j")" True
done

# polyeval under hockney, t_s = 100, t_w = 1 (no barrier): bcast; scan(*) costs Table 1's
# "before" log p * (2 t_s + m (2 t_w + 2)); reduce(+) log p * (t_s + m (t_w + 1)); the map m
hk=(--model hockney --set ts=100 --set tw=1 --set barrier_slope=0 --set barrier_const=0)
for p in 8 6; do
    L=$(python3 -c "import math; print(math.ceil(math.log2($p)))")
    for m in 1 1000; do
        "$POLYAPM" sim "$ROOT/examples/polyeval.apm" -D procs=$p -D m=$m "${hk[@]}" --json >"$TMP/j"
        bs=$(json "sum(c['cost'] for c in j['collectives'] if c['kind'] in ('bcast', 'scan'))" <"$TMP/j")
        expect_eq "polyeval p=$p m=$m: bcast; scan = log p (2 t_s + m (2 t_w + 2))" "$bs" \
            "$(python3 -c "print(int($L * (200 + $m * 4)))")"
        expect_eq "polyeval p=$p m=$m: total = that + reduce + map" "$(json "j['cost']" <"$TMP/j")" \
            "$(python3 -c "print(int($L * (200 + $m * 4) + $L * (100 + $m * 2) + $m))")"
    done
done
# BSP: bcast P m g + l, reduce log p (m + m g + l), scan log p (3 m + m g + l)
"$POLYAPM" sim "$ROOT/examples/polyeval.apm" -D m=10 --model bsp --set g=2 --set barrier_slope=1 \
    --set barrier_const=0 --json >"$TMP/j"
expect_eq "polyeval under bsp: the collectives of Di Cosmo et al." \
    "$(json "[c['cost'] for c in j['collectives']]" <"$TMP/j")" "[167, 171, 111]"

# zran3-rounds (NAS): forty reductions of one element, 40 log p (t_s + t_w + 1)
"$POLYAPM" sim "$ROOT/examples/zran3-rounds.apm" "${hk[@]}" --json >"$TMP/j"
expect_eq "zran3: 40 reductions" "$(json "len(j['collectives'])" <"$TMP/j")" 40
expect_eq "zran3: their hockney cost" "$(json "j['collective']" <"$TMP/j")" "$(python3 -c "print(int(40 * 2 * 102))")"
expect_eq "zran3: verified" "$(json "j['verified']" <"$TMP/j")" True

# the multicast strategies of Di Cosmo et al. (N = 3, |A| = 72): direct 1116, scatter & allgather
# 972 + 224 = 1196 in the message model; BSP |A| N g, 2 |A| g + 2l, |A| g + (|A| / N) g + 2l
"$POLYAPM" sim "$ROOT/tests/coll/multicast3.apm" "${hk[@]}" --json >"$TMP/j"
expect_eq "multicast: hockney costs (direct, scatter, bcast, scatter, allgather)" \
    "$(json "[c['cost'] for c in j['collectives']]" <"$TMP/j")" "[1116, 372, 248, 972, 224]"
"$POLYAPM" sim "$ROOT/tests/coll/multicast3.apm" --model bsp --set g=1 --set barrier_slope=0 \
    --set barrier_const=5 --json >"$TMP/j"
expect_eq "multicast: bsp costs" "$(json "[c['cost'] for c in j['collectives']]" <"$TMP/j")" \
    "[221, 77, 77, 77, 29]"

# a collective outside the receivers' local memory at syndm is named
out=$("$POLYAPM" sim "$ROOT/tests/broken/coll-outside-local.apm" 2>&1); rc=$?
expect_eq "outside local memory: exit 1" "$rc" 1
expect_match "outside local memory: processor, block, collective" "$out" \
    "outside local memory: processor 1's block xs\[1\]\[0..3\] is not in its memory \(collective B at"
# transforms that do not know collectives refuse them with the reason
"$POLYAPM" apply "$ROOT/examples/polyeval.apm" memdist >/dev/null 2>"$TMP/err"; rc=$?
expect_eq "memdist refuses collectives: exit 1" "$rc" 1
expect_match "memdist refuses collectives: reason" "$(cat "$TMP/err")" "does not distribute programs with collectives"
"$POLYAPM" apply "$ROOT/tests/coll/polyeval-dm.apm" relcoord >/dev/null 2>"$TMP/err"; rc=$?
expect_eq "relcoord refuses collectives: exit 1" "$rc" 1
expect_match "relcoord refuses collectives: reason" "$(cat "$TMP/err")" "does not rewrite programs with collectives"
"$POLYAPM" deps "$ROOT/examples/polyeval.apm" >/dev/null 2>"$TMP/err"
expect_eq "deps refuses a syncomm program" "$?" 1
finish
