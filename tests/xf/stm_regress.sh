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

# a doall: a constant θ gives a one-step time loop (it was refused: no time loop from isl)
apply_ok "doall theta=0" doall.apm da.apm theta=0 sigma=i
expect_match "doall theta=0: one time step" "$(cat "$TMP/da.apm")" "for t = 0 \.\. 0 seq, p = 0 \.\. n - 1 par"
apply_ok "doall on one processor" doall.apm db.apm theta=i sigma=0
expect_match "doall sigma=0: one processor" "$(cat "$TMP/db.apm")" "p = 0 \.\. 0 par"

# inner=seq: the dependences between instances at one (t, p) point run in order
apply_ok "rowsum theta=0 sigma=i inner=seq" rowsum.apm rs.apm theta=0 sigma=i inner=seq
"$POLYAPM" apply rowsum.apm stm theta=0 sigma=j inner=seq -o "$TMP/rj.apm" >/dev/null 2>"$TMP/err"
expect_match "rowsum sigma=j refused: the dependence crosses processors" "$? $(cat "$TMP/err")" \
    "^1 .*dependence 1 \(flow, S -> S through s\[i\]\).*\(on different processors\)"
apply_ok "floyd theta=k sigma=0 inner=seq" floyd.apm fw.apm theta=k sigma=0 inner=seq
"$POLYAPM" apply floyd.apm stm theta=k sigma=i inner=seq -o "$TMP/fi.apm" >/dev/null 2>"$TMP/err"
expect_eq "floyd theta=k sigma=i refused" "$?" 1

# in place: stm checks anti dependences too; a wrong θ that breaks only the anti one is refused
# naming it (same step on two processors, or backwards in time)
for th in t t-i; do
    "$POLYAPM" apply shift.apm stm theta=$th sigma=i -o "$TMP/sh.apm" >/dev/null 2>"$TMP/err"
    expect_match "shift theta=$th refused, naming the anti dependence" "$? $(cat "$TMP/err")" \
        "^1 .*illegal schedule: dependence 2 \(anti, S -> S through a\[i \+ 1\]\)"
done
apply_ok "shift theta=2*t+i" shift.apm sh.apm theta=2*t+i sigma=i
apply_ok "shift on one processor, inner=seq" shift.apm sh1.apm theta=t sigma=0 inner=seq

# every candidate stm auto lists applies and verifies at syn level: each listed argument list
# through stm (what pick=N applies), and pick=N itself for the last one (each pick enumerates
# again, so not for every N)
auto_all() {
    local src=$1; shift
    "$POLYAPM" apply "$src" stm auto "$@" -o "$TMP/auto.apm" >/dev/null 2>"$TMP/list"
    local n
    n=$(sed -n 's/^stm auto: \([0-9]*\) candidate.*/\1/p' "$TMP/list")
    [ -n "$n" ] || { fail "auto $src: a list" "$(head -c 300 "$TMP/list")"; return; }
    local k bad="" args
    for k in $(seq 1 "$n"); do
        args=$(sed -n "s/^ *$k  steps .* stm //p" "$TMP/list")
        # shellcheck disable=SC2086
        if ! "$POLYAPM" apply "$src" stm $args "$@" -o "$TMP/pick.apm" >/dev/null 2>"$TMP/err"; then
            bad="$bad $k refused: $(grep -m1 error "$TMP/err" | head -c 200);"; continue
        fi
        "$POLYAPM" sim "$TMP/pick.apm" "$@" --against "$src" --json >"$TMP/s.json" 2>/dev/null
        [ "$(json "j['verified']" <"$TMP/s.json" 2>/dev/null)" = True ] || bad="$bad $k not verified;"
    done
    "$POLYAPM" apply "$src" stm auto pick=$n "$@" -o "$TMP/last.apm" >/dev/null 2>&1
    expect_eq "auto $(basename "$src"): pick=$n is the last one listed" "$?:$(diff -q "$TMP/last.apm" "$TMP/pick.apm" >/dev/null && echo same)" "0:same"
    expect_eq "auto $(basename "$src"): all $n candidates apply and verify" "$bad" ""
}
auto_all "$ROOT/examples/findiff.apm" -D n=6 -D steps=3
auto_all "$ROOT/examples/jacobi1d.apm" -D n=10 -D steps=4
auto_all "$ROOT/examples/lu.apm" -D n=6
auto_all "$ROOT/examples/matmul.apm" -D n=5
auto_all "$ROOT/examples/multicast-src.apm"
auto_all "$ROOT/examples/sorted-src.apm"
for f in disjunct1d disjunct2d twonests doall rowsum shift jacobi1d_inplace trisolv matvec; do
    auto_all "$f.apm"
done

finish
