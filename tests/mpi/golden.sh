#!/usr/bin/env bash
# tests/mpi/golden.sh — the golden exported programs (tests/golden/NAME.c): what users read of
# an export, reviewed at every change.  Each is derived again here as its comment below says,
# exported, and diffed against its golden copy (the diff printed when they differ); then built
# with -Wall -Wextra -Werror by its exported Makefile, run (under mpirun at its processors), and
# must print the checksum `polyapm sim` computes.  gemm's row leaf is at most 200 lines, and every
# golden line at most 100 columns.
#
# After a change to the exporter that is meant, refresh the copies and review their diff:
#     UPDATE_GOLDEN=1 BUILD=build bash tests/mpi/golden.sh && git diff tests/golden/
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
. "$(dirname "$0")/export.inc"
GOLDEN=$ROOT/tests/golden
EX=$ROOT/examples
# the sources in one folder of their own, named without $TMP: a program's header names the file
mkdir -p "$TMP/src" && cd "$TMP/src" || exit 1
sed -e "s/^param n = 256, steps = 21/param n = 16, steps = 6/" "$EX/findiff.apm" >findiff.apm
sed 's/^param n = 64$/param n = 12, procs = 4/' "$EX/lu.apm" >lu.apm
cp "$EX/polybench/gemm.apm" "$EX/polyeval.apm" "$EX/polyeval-src.apm" .

# derive NAME: export the golden program NAME into $TMP/out/NAME; sets NODE_SIM (what `sim`
# takes: a node of $WS or a file with its -D) and NP (ranks; 0: sequential)
derive() {
    local name=$1 out=$TMP/out/$1
    case $name in
    findiff-seq)   # findiff (n = 16, 6 steps), its source exported as sequential C
        SIM=(findiff.apm); NP=0
        "$POLYAPM" export findiff.apm -o "$out" ;;
    fd-halo)       # findiff's leaf: stm theta=t sigma=x,y, tile block2d procs=4, commgen, memdist, relcoord
        chain findiff.apm "theta=t sigma=x,y" "kind=block2d procs=4" relcoord || return 1
        SIM=(-w "$WS" 6); NP=4
        P export 6 -o "$out" ;;
    lu-records)    # LU (n = 12): stm theta=i+j-2 sigma=i, tile blocked procs=4, commgen, memdist: the
                   # sends change with t, so the Alltoallv records
        chain lu.apm "theta=i+j-2 sigma=i" "kind=blocked procs=4" || return 1
        SIM=(-w "$WS" 5); NP=4
        P export 5 -o "$out" ;;
    gemm-rows)     # PolyBench gemm: stm theta=0 sigma=i inner=seq, tile blocked procs=2, commgen,
                   # memdist, relcoord
        chain gemm.apm "theta=0 sigma=i inner=seq" "kind=blocked procs=2" relcoord || return 1
        SIM=(-w "$WS" 6); NP=2
        P export 6 -o "$out" ;;
    polyeval)      # polyeval at procs = 3: syncomm, collectives alone
        SIM=(polyeval.apm -D procs=3); NP=3
        "$POLYAPM" export polyeval.apm -o "$out" -D procs=3 ;;
    esac
}

for name in findiff-seq fd-halo lu-records gemm-rows polyeval; do
    if ! derive "$name" >"$TMP/$name.log" 2>&1; then
        fail "$name: derived and exported" "$(tail -5 "$TMP/$name.log")"
        continue
    fi
    out=$TMP/out/$name
    prog=$(sed -n 's/^PROG *= *//p' "$out/Makefile")
    if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
        mkdir -p "$GOLDEN" && cp "$out/$prog.c" "$GOLDEN/$name.c" && echo "# refreshed tests/golden/$name.c"
    fi
    if [ ! -f "$GOLDEN/$name.c" ]; then
        fail "$name: has a golden copy" "tests/golden/$name.c is missing (UPDATE_GOLDEN=1 writes it)"
    elif d=$(diff -u "$GOLDEN/$name.c" "$out/$prog.c"); then
        ok "$name: the exported program is its golden copy"
    else
        fail "$name: the exported program is its golden copy" \
            "it changed (review, then UPDATE_GOLDEN=1 to accept):"$'\n'"$d"
    fi
    expect_eq "$name: every line at most 100 columns" \
        "$(awk 'length > 100 { print FILENAME ":" FNR ": " length " columns" }' "$out/$prog.c")" ""
    if ! make -s -C "$out" EXTRA_CFLAGS=-Werror >"$TMP/$name.build" 2>&1; then
        fail "$name: builds with -Wall -Wextra -Werror" "$(head -20 "$TMP/$name.build")"
        continue
    fi
    ok "$name: builds with -Wall -Wextra -Werror"
    want=$("$POLYAPM" sim "${SIM[@]}" --json 2>/dev/null | json "j['checksum'] if j['verified'] else 'unverified'")
    if [ "$NP" = 0 ]; then got=$(cd "$out" && timeout 60 "./$prog" 2>&1)
    else got=$(cd "$out" && mpi_run "$NP" "./$prog"); fi
    expect_eq "$name: prints the simulation's checksum" \
        "$(printf '%s\n' "$got" | sed -n 's/^polyapm-result checksum=\([0-9a-f]*\) .*/\1/p')" "$want"
done

lines=$(wc -l <"$GOLDEN/gemm-rows.c" 2>/dev/null || echo missing)
expect_match "gemm's row leaf is at most 200 lines of C (it is $lines)" "$lines" '^([0-9]|[0-9][0-9]|1[0-9][0-9]|200)$'
finish
