#!/usr/bin/env bash
# stm auto's mappings from multi-dimensional schedules (transforms/stm/stm_isl.c) on every PolyBench
# kernel of examples/polybench: each gets candidates (a safety net on the time, not a speed target:
# make bench prints the seconds); no candidate holds a constant of the default sizes (a default
# parameter value minus one, as the enumeration's θ = -i + 19 for gemm's ni = 20 did); the best
# four start at t = 0 for every parameter value (the step loop stm prints from symbolic parameters
# starts at 0) and verify at the kernel's second parameter set (tests/polybench/kernels.inc);
# seidel-2d gets a wavefront over t, i and j; gemm, 2mm and syrk get the row mapping that keeps
# the source's innermost loop innermost (theta 0, sigma i) first; fdtd-2d gets the rows mapping
# first, S1 (ey[0][j] = fict[t], no loop over i) on the processor of row 0 (owner alignment: not
# on processor j, which made its mapping non-local and ranked the columns first); atax gets its
# row products hoisted to step 0 on their rows' processors, the column sums one row per step
# after them (y[j] accumulated in the source's order: each processor needs its rows of A only);
# gemver's phases follow the data they read (a pipeline of A^T y along A's rows).
source "$(dirname "$0")/../lib.sh"
source "$ROOT/tests/polybench/kernels.inc"
PB="$ROOT/examples/polybench"
LIMIT=${STM_ISL_LIMIT:-120}

# cands K: the candidate lines "stm ARGS" of `stm auto` on kernel K (into $TMP/K.list)
while read -r k _ _ _ mini other; do
    [ -n "$k" ] || continue
    src="$PB/$k.apm"
    if ! timeout "$LIMIT" "$POLYAPM" apply "$src" stm auto=1 -o "$TMP/$k-syn.apm" >/dev/null 2>"$TMP/$k.err"; then
        fail "$k: stm auto within ${LIMIT}s" "$(head -c 300 "$TMP/$k.err")"
        continue
    fi
    sed -n 's/^ *[0-9][0-9]* .* stm \(.*\)$/\1/p' "$TMP/$k.err" >"$TMP/$k.list"
    n=$(wc -l <"$TMP/$k.list")
    expect_eq "$k: candidates listed" "$([ "$n" -ge 1 ] && echo yes)" yes
    bad=""
    for kv in ${mini//,/ }; do
        v=$((${kv#*=} - 1))
        [ "$v" -ge 4 ] || continue
        grep -Eq "(^|[^0-9*])$v([^0-9]|$)" "$TMP/$k.list" && bad="$bad ${kv%%=*}-1=$v"
    done
    expect_eq "$k: no candidate holds a default size minus one" "$bad" ""
    i=0
    while read -r args && [ $i -lt 4 ]; do
        i=$((i + 1))
        # shellcheck disable=SC2086
        if ! "$POLYAPM" apply "$src" stm $args -o "$TMP/$k-$i.apm" >/dev/null 2>"$TMP/$k-$i.err"; then
            fail "$k: candidate $i applies" "$args: $(head -c 200 "$TMP/$k-$i.err")"
            continue
        fi
        expect_match "$k: candidate $i starts at t = 0 ($args)" "$(grep -m1 '^for .* seq' "$TMP/$k-$i.apm")" "^for [a-z_0-9]+ = 0 \.\. "
        # shellcheck disable=SC2046
        got=$("$POLYAPM" sim "$TMP/$k-$i.apm" --against "$src" --json $(pb_sim_args "$other") 2>/dev/null | json "j['verified']" 2>/dev/null)
        expect_eq "$k: candidate $i verified at $other" "$got" True
    done <"$TMP/$k.list"
done <<<"$PB_KERNELS"

expect_match "seidel-2d: a wavefront over t, i and j" "$(cat "$TMP/seidel-2d.list" 2>/dev/null)" "theta=[0-9]*\*?t\+[0-9]*\*?i\+j"
for k in gemm 2mm syrk; do
    expect_match "$k: the row mapping first" "$(head -1 "$TMP/$k.list" 2>/dev/null)" "^theta(\.S1)?=0 sigma(\.S1)?=i .*inner=seq$"
done
expect_eq "fdtd-2d: the rows mapping first, S1 on row 0's processor" "$(head -1 "$TMP/fdtd-2d.list" 2>/dev/null)" \
    "theta.S1=2*t sigma.S1=0 theta.S2=2*t sigma.S2=i theta.S3=2*t sigma.S3=i theta.S4=2*t+1 sigma.S4=i inner=seq"
expect_eq "atax: the row products at step 0, the column sums one row per step" "$(head -1 "$TMP/atax.list" 2>/dev/null)" \
    "theta.S1=0 sigma.S1=0 theta.S2=0 sigma.S2=i theta.S3=0 sigma.S3=i theta.S4=i+1 sigma.S4=i inner=seq"

# gemver: x = beta A^T y reads A by columns where the other phases distribute its rows; the
# phases' mapping that follows the reads runs row j of it on row j's processor at step j (x goes
# on from processor to processor), kept besides the best four (explore's; cli/explore_at ranks
# its leaf)
GEMVER_FOLLOWS="theta.S1=0 sigma.S1=i theta.S2=j+1 sigma.S2=j theta.S3=n+1 sigma.S3=i theta.S4=n+2 sigma.S4=i inner=seq"
"$POLYAPM" apply "$ROOT/tests/sim/gemver.apm" stm auto=1 -o "$TMP/gemver-syn.apm" >/dev/null 2>"$TMP/gemver.err"
expect_eq "gemver: the phases following their reads are a candidate" \
    "$(sed -n 's/^ *[0-9][0-9]* .* stm \(.*\)$/\1/p' "$TMP/gemver.err" | grep -cx "$GEMVER_FOLLOWS")" 1
finish
