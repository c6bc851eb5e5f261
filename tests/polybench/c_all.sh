#!/usr/bin/env bash
# tests/polybench/c_all.sh — every PolyBench/C 4.2.1 kernel from its own C file reaches a
# distributed program that runs (issue 29's acceptance), as a user would go:
#   polyapm init FILE.c -I utilities -D MINI_DATASET -D DATA_TYPE_IS_DOUBLE
#   polyapm explore ROOT -D procs=2 --budget 100
# then, of the verified syndm nodes the search left (cheapest first), the first on which each of
# the 2 ranks does at least a quarter of the work (`sim --json`'s work per processor), whose
# `run -np 2` must print the simulation's checksum, and that checksum PolyBench's own dump of
# the kernel at MINI (tests/polybench/kernels.inc's pb_dump_build and dumpsum; cholesky and
# nussinov dump a triangle of a square array the program computes whole: the run is enough).
# floyd-warshall is imported with what a user knows of it, --assume 'S1 unchanged when i == k
# || j == k' (row and column k do not change in sweep k; tests/xf/assume.sh); without it the
# search's leaves keep every sweep on one processor.
# One line per kernel, with explore's seconds.  A kernel in GAP is skipped with the reason;
# xf/phases runs 3mm, symm, doitgen, ludcmp and adi.  SUITE_PART=K/N (tests/run.sh): every N-th
# kernel from the K-th.
# Usage: bash tests/polybench/c_all.sh [KERNEL...]   (default: all thirty but the above)
# Its workspaces stay private (not under POLYAPM_TEST_WORKSPACES): export_all running every
# syndm node of thirty kernels' searches would double the suite's time; each kernel's chosen
# leaf is run here.
unset POLYAPM_TEST_WORKSPACES
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/kernels.inc"
PB=$(pb_dir)
[ -n "$PB" ] || { echo "skip polybench c_all: PolyBench/C 4.2.1 not found (set POLYBENCH_DIR)"; finish; }
command -v mpirun >/dev/null || { echo "skip polybench c_all: no mpirun"; finish; }
LIMIT=${DERIVE_SECONDS:-300}
# GAP: kernels whose search reaches no leaf with work on both ranks (none now: nussinov's cyclic
# tilings, which balance its triangle, cost less than the blocked ones since commgen sends the
# value S5 accumulates after its loop over k, not from inside it)
GAP=" "
PHASES=" 3mm symm doitgen ludcmp adi "
TRIANGLE=" cholesky nussinov "
declare -A EXTRA=([floyd-warshall]="--assume=S1 unchanged when i == k || j == k")
pb_dumpsum_build || fail "dumpsum builds" "$(head -5 "$TMP/cc.err")"

# quartered WS: the cheapest verified syndm node with a quarter of the work on each of 2 ranks
quartered() {
    local id sim
    for id in $("$POLYAPM" -w "$1" tree --json | python3 -c '
import json, sys
nodes = json.load(sys.stdin)["nodes"]
ok = sorted((n for n in nodes if n["level"] == "syndm" and n["verified"] and n["cost"] is not None),
            key=lambda n: (n["cost"], n["id"]))
print(" ".join(str(n["id"]) for n in ok))'); do
        sim=$("$POLYAPM" -w "$1" sim "$id" --json 2>/dev/null) || continue
        if [ "$(printf '%s' "$sim" | json "len(j['work']) == 2 and min(j['work']) * 4 >= sum(j['work'])")" = True ]; then
            echo "$id $(printf '%s' "$sim" | json "j['checksum']")"
            return
        fi
    done
}

one() {   # KERNEL
    local k=$1 f dir ws=$TMP/$1.pdg extra=() t0 secs leaf sum run dump
    f=$(sed -n "s|^\./\(.*/$k/$k\.c\)$|\1|p" "$PB/utilities/benchmark_list")
    [ -n "$f" ] || { fail "$k" "not a PolyBench/C 4.2.1 kernel"; return; }
    dir=$(dirname "$f")
    [ -z "${EXTRA[$k]:-}" ] || extra=("${EXTRA[$k]%%=*}" "${EXTRA[$k]#*=}")
    "$POLYAPM" init "$PB/$f" -I "$PB/utilities" -D MINI_DATASET -D DATA_TYPE_IS_DOUBLE "${extra[@]}" -o "$ws" \
        >/dev/null 2>"$TMP/$k.err" || { fail "$k: init" "$(head -3 "$TMP/$k.err")"; return; }
    t0=$SECONDS
    timeout -s INT -k 30 "$LIMIT" "$POLYAPM" -w "$ws" explore ROOT -D procs=2 --budget 100 -q >"$TMP/$k.explore" 2>&1
    secs=$((SECONDS - t0))
    read -r leaf sum <<<"$(quartered "$ws")"
    [ -n "$leaf" ] || { fail "$k: a verified syndm leaf with a quarter of the work on each rank" \
        "none (explore: $secs s: $(tail -2 "$TMP/$k.explore"))"; return; }
    run=$("$POLYAPM" -w "$ws" run "$leaf" -np 2 --json 2>&1) || { fail "$k: run -np 2" "$(tail -3 <<<"$run")"; return; }
    expect_eq "$k: node $leaf (each rank a quarter of the work; explore $secs s): run -np 2 prints the simulation's checksum" \
        "$(printf '%s' "$run" | json "j['checksum']")" "$sum"
    case $TRIANGLE in *" $k "*) return ;; esac
    pb_dump_build "$PB" "$dir" "$TMP/$k.pb" -DDATA_TYPE_IS_DOUBLE || { fail "$k: PolyBench builds" "$(head -3 "$TMP/$k.pb/cc.err")"; return; }
    # shellcheck disable=SC2046
    dump=$("$TMP/$k.pb/kernel" 2>&1 >/dev/null | "$TMP/dumpsum" $("$POLYAPM" -w "$ws" show ROOT |
        awk '$1 == "output" { sub(/_$/, "", $2); print $2 }') 2>&1)
    expect_eq "$k: the checksum is PolyBench's own dump" "$sum" "$(pb_checksum "$dump")"
}

if [ $# -gt 0 ]; then
    kernels=("$@")
else
    kernels=()
    for k in $(sed -n 's|^\./.*/\([^/]*\)/[^/]*\.c$|\1|p' "$PB/utilities/benchmark_list"); do
        case $PHASES in *" $k "*) continue ;; esac
        case $GAP in *" $k "*) echo "skip $k: no leaf with work on both ranks yet (see GAP above)"; continue ;; esac
        kernels+=("$k")
    done
fi
part=${SUITE_PART:-1/1}
for ((i = ${part%/*} - 1; i < ${#kernels[@]}; i += ${part#*/})); do one "${kernels[$i]}"; done
finish
