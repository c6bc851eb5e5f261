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
finish
