#!/usr/bin/env bash
# Space-time mapping regressions (programs in tests/xf/stm/): statements of one disjunctive `if`
# under different θ (one guarded statement per unit, not one copy per piece of the domain), units
# binding the same names at one point, constant θ (a one-step time loop), inner=seq with the
# dependences it runs in order, anti dependences of in-place arrays, and every candidate that
# `stm auto` lists applying and verifying.
source "$(dirname "$0")/../lib.sh"
cd "$ROOT/tests/xf/stm"

# apply_ok NAME SRC OUT ARGS... : applies stm, checks the result and verifies it against SRC
apply_ok() {
    local name=$1 src=$2 out=$3; shift 3
    "$POLYAPM" apply "$src" stm "$@" -o "$TMP/$out" >/dev/null 2>"$TMP/err"
    expect_eq "$name: stm exits 0" "$?" 0
    [ -f "$TMP/$out" ] || { fail "$name: output" "$(head -c 400 "$TMP/err")"; return; }
    "$POLYAPM" check "$TMP/$out" >/dev/null 2>&1
    expect_eq "$name: the result checks" "$?" 0
    "$POLYAPM" sim "$TMP/$out" --against "$src" --json >"$TMP/s.json" 2>"$TMP/err"
    expect_eq "$name: verified" "$(json "j['verified']" <"$TMP/s.json" 2>/dev/null)" True
}

# 1. a disjunctive condition: each labelled statement once, the condition kept as one guard
apply_ok "disjunct1d E at t, S at 2t" disjunct1d.apm d1.apm theta.E=t theta.S=2*t sigma=i
expect_eq "disjunct1d: E placed once" "$(grep -c 'E:' "$TMP/d1.apm")" 1
expect_match "disjunct1d: the disjunction is one guard" "$(cat "$TMP/d1.apm")" "if i == 0 \|\| i == n - 1 \{"
apply_ok "disjunct2d inner=seq" disjunct2d.apm d2.apm theta.E=t theta.S=2*t sigma=i inner=seq
expect_eq "disjunct2d inner=seq: E placed once" "$(grep -c 'E:' "$TMP/d2.apm")" 1
apply_ok "disjunct2d sigma=i,j" disjunct2d.apm d3.apm theta.E=t theta.S=2*t sigma=i,j
expect_eq "disjunct2d sigma=i,j: E placed once" "$(grep -c 'E:' "$TMP/d3.apm")" 1
for n in 5 9; do
    "$POLYAPM" sim "$TMP/d2.apm" -D n=$n -D steps=4 --against disjunct2d.apm --json >"$TMP/s.json" 2>/dev/null
    expect_eq "disjunct2d inner=seq verified at n=$n" "$(json "j['verified']" <"$TMP/s.json" 2>/dev/null)" True
done

# two units binding i and j at one point: the second, different j is renamed, the same i kept
apply_ok "twonests" twonests.apm tn.apm theta.A=i sigma.A=j theta.B=i sigma.B=n-1-j
expect_eq "twonests: i bound once" "$(grep -c 'let i = t' "$TMP/tn.apm")" 1
expect_match "twonests: B's j renamed" "$(cat "$TMP/tn.apm")" "B: y\[i\]\[j_2\] = i \* j_2"

finish
