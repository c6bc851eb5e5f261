#!/usr/bin/env bash
# tests/polybench/derive.sh — each PolyBench translation of examples/polybench derives
# automatically to a distributed program that runs: `polyapm init`, `polyapm explore ROOT
# -D procs=2 --budget 100` (stopped after $DERIVE_SECONDS, default 300 s: a safety net, not a
# speed target, which belongs in make bench), the cheapest verified syndm node of the workspace, then `polyapm run NODE -np 2`, whose checksum must be the
# source's (`polyapm sim K.apm`, the MINI sizes).  One line per kernel: "ok K: ..." or
# "FAIL K: why" (no syndm node reached, or the first violation of the cheapest syndm node, or the
# run's error or checksum); the leaf also runs at np = 3 (re-simulated at procs = 3: blocks of
# unequal size).
# Usage: bash tests/polybench/derive.sh [KERNEL...]   (default: PB_DERIVED below; DERIVE_ALL=1: all)
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/kernels.inc"
EX=$ROOT/examples/polybench
LIMIT=${DERIVE_SECONDS:-300}
command -v mpirun >/dev/null || { echo "skip polybench derive: no mpirun"; finish; }

# best_syndm WS: "ID verified" of the cheapest verified syndm node, else "ID unverified" of the
# first syndm node, else "none LEVELS" (the levels the search reached)
best_syndm() {
    "$POLYAPM" -w "$1" tree --json | python3 -c '
import json, sys
nodes = json.load(sys.stdin)["nodes"]
dm = [n for n in nodes if n["level"] == "syndm"]
ok = sorted((n for n in dm if n["verified"] and n["cost"] is not None), key=lambda n: n["cost"])
if ok: print(ok[0]["id"], "verified")
elif dm: print(dm[0]["id"], "unverified")
else: print("none", ",".join(sorted({n["level"] for n in nodes})))'
}

derive_one() {  # K
    local k=$1 ws=$TMP/$1.pdg out rc node state src run
    "$POLYAPM" init "$EX/$k.apm" -o "$ws" >/dev/null 2>"$TMP/err" || { fail "$k" "init: $(head -2 "$TMP/err")"; return; }
    local t0=$SECONDS
    timeout -s INT -k 30 "$LIMIT" "$POLYAPM" -w "$ws" explore ROOT -D procs=2 --budget 100 -q >"$TMP/explore" 2>&1
    rc=$?
    local note=" (explore: $((SECONDS - t0)) s)"
    case $rc in
        0) ;;
        124|137) note=" (explore stopped at ${LIMIT}s: $(tail -1 "$TMP/explore"))" ;;
        *) note=" (explore exit $rc: $(tail -1 "$TMP/explore"))" ;;
    esac
    read -r node state <<<"$(best_syndm "$ws")"
    if [ "$node" = none ]; then
        local why=""
        [ "$state" = source ] &&   # nothing left the source: say why stm auto found nothing
            why="; stm auto: $(timeout 60 "$POLYAPM" -w "$ws" apply ROOT stm auto=1 2>&1 | tail -1)"
        fail "$k" "no syndm node reached$note; levels reached: $state$why"
        return
    fi
    if [ "$state" != verified ]; then
        fail "$k" "no verified syndm node$note; node $node: $("$POLYAPM" -w "$ws" sim "$node" --json 2>&1 |
            python3 -c 'import json,sys
try:
    j = json.load(sys.stdin); v = j.get("violations") or []
    print("%s violations, first: %s" % (j.get("violations_total"), v[0]["text"] if v else "none"))
except Exception as e: print("sim failed")')"
        return
    fi
    src=$(pb_checksum "$("$POLYAPM" sim "$EX/$k.apm" 2>&1)")
    run=$("$POLYAPM" -w "$ws" run "$node" -np 2 --json 2>&1) || { fail "$k" "run of node $node: $(echo "$run" | tail -3)"; return; }
    got=$(printf '%s' "$run" | json "j['checksum']" 2>/dev/null)
    if [ -n "$src" ] && [ "$got" = "$src" ]; then
        ok "$k: node $node runs on 2 ranks with the source's checksum $src$note"
    else
        fail "$k" "node $node: run -np 2 checksum '$got', source '$src'$note"
        return
    fi
    # the leaf re-simulated at procs = 3 and run on 3 ranks: blocks of unequal size
    run=$("$POLYAPM" -w "$ws" run "$node" -np 3 -D procs=3 --json 2>&1)
    got=$(printf '%s' "$run" | json "j['checksum']" 2>/dev/null)
    [ -n "$got" ] || got="none; run printed: $(tail -3 <<<"$run")"
    expect_eq "$k: node $node at np=3, the source's checksum" "$got" "$src"
}

# The kernels make test derives: all of them, in an order that shares the slow ones (heat-3d-nl,
# heat-3d, 2mm, cholesky) between the two parts tests/run.sh runs.  floyd-warshall in place has
# no parallel mapping under exact dependences (sweep k reads the row and column it writes): its
# leaf is tiled from one virtual processor, processor 0 computing, the others idle.
PB_DERIVED="heat-3d-nl heat-3d 2mm cholesky lu floyd-warshall fdtd-2d jacobi-2d atax seidel-2d gemm jacobi-1d syrk mvt trisolv covariance"
kernels=("$@")
if [ ${#kernels[@]} -eq 0 ]; then
    if [ -n "${DERIVE_ALL:-}" ]; then mapfile -t kernels < <(awk 'NF { print $1 }' <<<"$PB_KERNELS")
    else read -r -a kernels <<<"$PB_DERIVED"; fi
fi
# SUITE_PART=K/N (tests/run.sh splits this suite): every N-th kernel from the K-th
part=${SUITE_PART:-1/1}
i=0
for k in "${kernels[@]}"; do
    i=$((i + 1))
    [ $(((i - 1) % ${part#*/})) -eq $((${part%/*} - 1)) ] || continue
    [ -f "$EX/$k.apm" ] || { fail "$k" "no $EX/$k.apm"; continue; }
    derive_one "$k"
done
finish
