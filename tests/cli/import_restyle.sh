#!/usr/bin/env bash
# tests/cli/import_restyle.sh — PolyBench/C 4.2.1's kernels rewritten at test time into other
# styles of C (tests/polybench/restyle.py): the kernel's body moved into main in place of its
# call (the region in main, heap arrays), and the same with the arrays global.  Each rewritten
# file imports (-D MINI_DATASET -D DATA_TYPE_IS_DOUBLE) and simulates to the checksum of the
# arrays PolyBench's own (unrewritten) kernel dumps (tests/polybench/kernels.inc; cholesky and
# nussinov dump a triangle: they must import and simulate).  Skips where PolyBench is absent.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/polybench/kernels.inc"
PB=$(pb_dir)
if [ -z "$PB" ]; then echo "skip import_restyle: PolyBench/C 4.2.1 not found (set POLYBENCH_DIR)"; finish; fi
CC=${CC:-gcc}
pb_dumpsum_build || { fail "dumpsum builds" "$(head -5 "$TMP/cc.err")"; finish; }

# check KERNEL_PATH: one kernel in both styles (run in the background; its lines go to its log)
check() {
    local f=$1 k pbdir out apm dump got want style
    k=$(basename "$f" .c); pbdir=$(dirname "$f"); out=$TMP/$k
    mkdir -p "$out"
    pb_dump_build "$PB" "$pbdir" "$out/pb" -DDATA_TYPE_IS_DOUBLE || { fail "$k: PolyBench builds" "$(head -3 "$out/pb/cc.err")"; return; }
    for style in main globals; do
        python3 "$ROOT/tests/polybench/restyle.py" "$style" "$PB/$f" "$out/pb/${k}_$style.c" 2>"$out/restyle.err" ||
            { fail "$k ($style): rewritten" "$(cat "$out/restyle.err")"; continue; }
        apm=$out/${k}_$style.apm
        if ! ${CC:-gcc} -O0 -DMINI_DATASET -DDATA_TYPE_IS_DOUBLE -I"$PB/utilities" -I"$PB/$pbdir" -fsyntax-only \
                "$out/pb/${k}_$style.c" 2>"$out/cc2.err"; then
            echo "skip $k ($style): the rewritten C is not valid C ($(grep -m1 error "$out/cc2.err" | sed 's|.*error: ||'))"
            continue
        fi
        if ! "$POLYAPM" import "$out/pb/${k}_$style.c" -I "$PB/utilities" -I "$PB/$pbdir" -D MINI_DATASET \
                -D DATA_TYPE_IS_DOUBLE -o "$apm" 2>"$out/import.err"; then
            fail "$k ($style) imports" "$(grep -v 'note:' "$out/import.err" | head -3)"
            continue
        fi
        got=$(pb_checksum "$("$POLYAPM" sim "$apm" 2>&1)")
        [[ $got =~ ^[0-9a-f]{16}$ ]] || { fail "$k ($style) simulates" "$("$POLYAPM" sim "$apm" 2>&1 | tail -2)"; continue; }
        if [ "$k" = cholesky ] || [ "$k" = nussinov ]; then ok "$k ($style) imports and simulates (PolyBench dumps a triangle)"; continue; fi
        # shellcheck disable=SC2046
        dump=$("$out/pb/kernel" 2>&1 >/dev/null | "$TMP/dumpsum" $(awk '$1 == "output" { sub(/_$/, "", $2); print $2 }' "$apm") 2>&1) ||
            { fail "$k ($style): PolyBench dump" "$dump"; continue; }
        want=$(pb_checksum "$dump")
        expect_eq "$k ($style): polyapm sim of the rewritten file's import = PolyBench's dump ($(awk '$1 == "values:" { print $2 }' <<<"$dump") values)" "$got" "$want"
    done
}

mapfile -t KERNELS < <(sed -e 's|^\./||' -e '/^$/d' "$PB/utilities/benchmark_list")
expect_eq "PolyBench lists 30 kernels" "${#KERNELS[@]}" 30
i=0
for f in "${KERNELS[@]}"; do
    check "$f" >"$TMP/log.$i" 2>&1 &
    i=$((i + 1))
    (( i % 2 == 0 )) && wait
done
wait
for ((j = 0; j < i; j++)); do cat "$TMP/log.$j"; grep -q '^FAIL' "$TMP/log.$j" && T_FAILED=1; done
finish
