#!/usr/bin/env bash
# stm auto on the PolyBench kernels of examples/polybench/ (written in place): for each kernel
# `stm auto=1` must find a mapping within a time limit, the syn program must verify against the
# source, and the chain tile blocked procs=2 -> commgen -> memdist must verify at syndm.
# Reductions (atax, 2mm, cholesky) and in-place sweeps (floyd-warshall) need schedules whose
# self-dependences have distance 0 on one processor (inner=seq); seidel-2d needs a wavefront
# with a coefficient beyond -2..2 (theta=4*t+2*i+j).  A candidate must also hold at other
# sizes than the ones it was found at (no constant taken from the default parameter values).
# The program stm auto hands out is the one it generated when it checked the candidate (kept,
# transforms/stm/stm_memo.c): it must be what `stm ARGS` generates afresh in another process.
source "$(dirname "$0")/../lib.sh"
PB="$ROOT/examples/polybench"
LIMIT=${STM_AUTO_LIMIT:-120}   # a safety net per stm auto run, not a speed target
STEP=${STM_AUTO_STEP_LIMIT:-120}   # seconds per later step (tile, commgen, memdist, sim)

verified() { timeout "$STEP" "$POLYAPM" sim "$1" --against "$2" --json "${@:3}" 2>/dev/null | json "j['verified']" 2>/dev/null; }

for k in ${STM_AUTO_KERNELS:-seidel-2d atax cholesky floyd-warshall 2mm trisolv lu gemm jacobi-1d}; do
    src="$PB/$k.apm"
    if ! timeout "$LIMIT" "$POLYAPM" apply "$src" stm auto=1 -o "$TMP/$k-syn.apm" >"$TMP/$k.out" 2>&1; then
        fail "$k: stm auto=1 within ${LIMIT}s" "$(head -c 300 "$TMP/$k.out")"
        continue
    fi
    ok "$k: stm auto=1 within ${LIMIT}s"
    args=$(sed -n 's/^  1  .* stm //p' "$TMP/$k.out")
    # shellcheck disable=SC2086
    "$POLYAPM" apply "$src" stm $args -o "$TMP/$k-fresh.apm" >/dev/null 2>&1
    expect_eq "$k: the program kept from stm auto's check is stm's afresh ($args)" \
        "$(cat "$TMP/$k-syn.apm")" "$(cat "$TMP/$k-fresh.apm" 2>/dev/null)"
    expect_eq "$k: syn verified" "$(verified "$TMP/$k-syn.apm" "$src")" True
    if timeout "$STEP" "$POLYAPM" apply "$TMP/$k-syn.apm" tile kind=blocked procs=2 -o "$TMP/$k-t.apm" >"$TMP/$k.out" 2>&1 &&
        timeout "$STEP" "$POLYAPM" apply "$TMP/$k-t.apm" commgen -o "$TMP/$k-c.apm" >>"$TMP/$k.out" 2>&1 &&
        timeout "$STEP" "$POLYAPM" apply "$TMP/$k-c.apm" memdist -o "$TMP/$k-d.apm" >>"$TMP/$k.out" 2>&1; then
        ok "$k: tile blocked procs=2, commgen, memdist apply"
        expect_eq "$k: syndm verified" "$(verified "$TMP/$k-d.apm" "$src")" True
    else
        fail "$k: tile blocked procs=2, commgen, memdist apply" "$(head -c 300 "$TMP/$k.out")"
    fi
done
finish
