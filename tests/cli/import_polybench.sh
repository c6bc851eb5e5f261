#!/usr/bin/env bash
# tests/cli/import_polybench.sh — `polyapm import` on PolyBench/C 4.2.1 (its 30 kernels, from its
# utilities/benchmark_list), with -D MINI_DATASET -D DATA_TYPE_IS_DOUBLE: each imported program
# is in canonical form and simulates (`polyapm sim`) to the checksum of the arrays the kernel
# itself dumps (built with -DPOLYBENCH_DUMP_ARRAYS, "%a" and the same -DDATA_TYPE_IS_DOUBLE, which
# also makes floyd-warshall's and nussinov's data double; tests/polybench/kernels.inc,
# hashed by tests/polybench/dumpsum.c).  cholesky and nussinov dump a triangle: they must import
# and simulate.  (deriche's exp and pow, which the language lacks, have constant arguments: the
# importer computes them.)  Skips where PolyBench is absent (POLYBENCH_DIR).
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/polybench/kernels.inc"
PB=$(pb_dir)
if [ -z "$PB" ]; then echo "skip import_polybench: PolyBench/C 4.2.1 not found (set POLYBENCH_DIR)"; finish; fi
CC=${CC:-gcc}
pb_dumpsum_build || { fail "dumpsum builds" "$(head -5 "$TMP/cc.err")"; finish; }

# check KERNEL_PATH: one kernel (run in the background, two at a time; its lines go to its log)
check() {
    local f=$1 k pbdir out apm dump got want
    k=$(basename "$f" .c); pbdir=$(dirname "$f"); out=$TMP/$k; apm=$out/$k.apm
    mkdir -p "$out"
    if ! "$POLYAPM" import "$PB/$f" -I "$PB/utilities" -D MINI_DATASET -D DATA_TYPE_IS_DOUBLE -o "$apm" \
            2>"$out/import.err"; then
        fail "$k imports" "$(head -3 "$out/import.err")"
        return
    fi
    "$POLYAPM" fmt "$apm" 2>&1 | cmp -s - "$apm" && ok "$k: imported in canonical form" ||
        fail "$k: imported in canonical form" "polyapm fmt would change it"
    got=$(pb_checksum "$("$POLYAPM" sim "$apm" 2>&1)")
    [[ $got =~ ^[0-9a-f]{16}$ ]] || { fail "$k simulates" "$("$POLYAPM" sim "$apm" 2>&1 | tail -2)"; return; }
    if [ "$k" = cholesky ] || [ "$k" = nussinov ]; then ok "$k imports and simulates (PolyBench dumps a triangle)"; return; fi
    pb_dump_build "$PB" "$pbdir" "$out/pb" -DDATA_TYPE_IS_DOUBLE || { fail "$k: PolyBench builds" "$(head -3 "$out/pb/cc.err")"; return; }
    # shellcheck disable=SC2046
    dump=$("$out/pb/kernel" 2>&1 >/dev/null | "$TMP/dumpsum" $(awk '$1 == "output" { sub(/_$/, "", $2); print $2 }' "$apm") 2>&1) ||
        { fail "$k: PolyBench dump" "$dump"; return; }
    want=$(pb_checksum "$dump")
    expect_eq "$k: polyapm sim of the import = PolyBench's dump ($(awk '$1 == "values:" { print $2 }' <<<"$dump") values)" "$got" "$want"
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
