#!/usr/bin/env bash
# tests/polybench/source.sh — the PolyBench translations of examples/polybench compute exactly
# what C computes: for every kernel, at two sizes, its C reference (tests/polybench/K.c, built
# with gcc -O0 -ffp-contract=off so every double operation is one IEEE operation in the order
# written, as the simulator evaluates) prints the same checksum, bit for bit, as `polyapm sim` of
# the .apm, and each .apm is in canonical form (polyapm fmt).  heat-3d's PolyBench input is a
# fixed point of the kernel, heat-3d-nl's is not.  Where
# PolyBench/C 4.2.1 is present ($POLYBENCH_DIR, else ../shared/polybench-4.2.1 beside the
# repository, else /work/shared/polybench-4.2.1), the real PolyBench kernels, built with
# -DPOLYBENCH_DUMP_ARRAYS -DMINI_DATASET and exact "%a" output, dump arrays whose checksum is the
# .apm's, and they are its outputs in order (cholesky: PolyBench prints only the lower triangle,
# compared with the C reference's).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/kernels.inc"
EX=$ROOT/examples/polybench
CC=${CC:-gcc}
CFLAGS_REF="-std=c11 -O0 -ffp-contract=off -Wall -Wextra -I$ROOT/runtime"

# build_ref OUT REF FLAGS...: the C reference REF.c with the runtime's checksum compiled in
build_ref() {
    local out=$1 ref=$2; shift 2
    # shellcheck disable=SC2086
    $CC $CFLAGS_REF "$@" -o "$out" "$ROOT/tests/polybench/$ref.c" "$ROOT/runtime/rt_checksum.c" -lm
}
sim_checksum() {  # FILE PARAMS
    local out
    # shellcheck disable=SC2046
    out=$("$POLYAPM" sim "$1" $(pb_sim_args "$2") 2>&1) || { echo "sim failed: $(echo "$out" | tail -2)"; return; }
    pb_checksum "$out"
}

while read -r k ref flags pbdir size1 size2; do
    [ -n "$k" ] || continue
    [ "$flags" = - ] && flags=
    "$POLYAPM" fmt "$EX/$k.apm" 2>&1 | cmp -s - "$EX/$k.apm" && ok "$k.apm is in canonical form" ||
        fail "$k.apm is in canonical form" "polyapm fmt -w would change it"
    for size in "$size1" "$size2"; do
        name="$k $size"
        # shellcheck disable=SC2046
        if ! build_ref "$TMP/$k" "$ref" $flags $(pb_cc_args "$size") 2>"$TMP/cc.err"; then
            fail "$name builds" "$(head -5 "$TMP/cc.err")"; continue
        fi
        want=$(pb_checksum "$("$TMP/$k")")
        got=$(sim_checksum "$EX/$k.apm" "$size")
        [[ $want =~ ^[0-9a-f]{16}$ ]] || { fail "$name: C reference" "no checksum: '$want'"; continue; }
        expect_eq "$name: polyapm sim = C" "$got" "$want"
    done
done <<<"$PB_KERNELS"

# heat-3d: PolyBench's input does not change under the kernel; heat-3d-nl's does
h0=$(sim_checksum "$EX/heat-3d.apm" tsteps=0); h20=$(sim_checksum "$EX/heat-3d.apm" tsteps=20)
expect_eq "heat-3d: PolyBench's input is a fixed point (20 steps = 0 steps)" "$h20" "$h0"
n0=$(sim_checksum "$EX/heat-3d-nl.apm" tsteps=0); n1=$(sim_checksum "$EX/heat-3d-nl.apm" tsteps=1)
n20=$(sim_checksum "$EX/heat-3d-nl.apm" tsteps=20)
if [ -n "$n0" ] && [ "$n0" != "$n1" ] && [ "$n1" != "$n20" ]; then
    ok "heat-3d-nl: its input is not a fixed point (0, 1 and 20 steps differ)"
else
    fail "heat-3d-nl: its input is not a fixed point" "0 steps $n0, 1 step $n1, 20 steps $n20"
fi

# PolyBench's own dumps
PB=$(pb_dir)
if [ -z "$PB" ]; then
    echo "skip polybench dumps: PolyBench/C 4.2.1 not found (set POLYBENCH_DIR)"
    finish
fi
$CC $CFLAGS_REF -o "$TMP/dumpsum" "$ROOT/tests/polybench/dumpsum.c" "$ROOT/runtime/rt_checksum.c" \
    2>"$TMP/cc.err" || { fail "dumpsum builds" "$(head -5 "$TMP/cc.err")"; finish; }
while read -r k ref flags pbdir size1 size2; do
    [ -n "$k" ] && [ "$pbdir" != - ] || continue
    src=$TMP/pb-$(basename "$pbdir")
    if ! pb_dump_build "$PB" "$pbdir" "$src"; then
        fail "$k: PolyBench builds" "$(head -5 "$src/cc.err")"; continue
    fi
    # shellcheck disable=SC2046
    dump=$("$src/kernel" 2>&1 >/dev/null | "$TMP/dumpsum" $(awk '$1 == "output" { print $2 }' "$EX/$k.apm") 2>&1) ||
        { fail "$k: PolyBench dump" "$dump"; continue; }
    if [ "$k" = cholesky ]; then   # PolyBench prints the lower triangle: compare with the reference's
        build_ref "$TMP/chol-tri" cholesky -DLOWER_TRIANGLE $(pb_cc_args "$size1") 2>"$TMP/cc.err" ||
            { fail "cholesky: triangle reference builds" "$(head -5 "$TMP/cc.err")"; continue; }
        expect_eq "cholesky: PolyBench's dump (lower triangle) = C reference" \
            "$(pb_checksum "$dump")" "$(pb_checksum "$("$TMP/chol-tri")")"
        continue
    fi
    expect_eq "$k: PolyBench's dump ($(awk '$1 == "values:" { print $2 }' <<<"$dump") values) = polyapm sim" \
        "$(pb_checksum "$dump")" "$(sim_checksum "$EX/$k.apm" "$size1")"
done <<<"$PB_KERNELS"
finish
