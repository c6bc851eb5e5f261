#!/usr/bin/env bash
# tests/bench/bench_peers.sh — polyapm against what a user compiles with (issue 30 item 5).
# PolyBench/C 4.2.1's own kernel files (from $POLYBENCH_DIR or ../shared/polybench-4.2.1), at
# LARGE_DATASET (BENCH_SIZE=small: MEDIUM_DATASET) — or, for a kernel whose LARGE run lasts well
# under 0.2 s with gcc (startup and timer noise, not the kernel), the fixed size of LONGER below,
# where it lasts 0.2 s or more — side by side in one run:
#   the peers    PolyBench's kernel file with utilities/polybench.c, built as a user builds it —
#                gcc -O3 -march=native; clang-14 -O3 -march=native -mllvm -polly; Polly's automatic
#                OpenMP (-mllvm -polly-parallel -fopenmp, OMP_NUM_THREADS=2) — each with its
#                default floating-point contraction, timed by PolyBench's own -DPOLYBENCH_TIME
#                (the kernel alone);
#   polyapm      `polyapm init FILE.c` at MINI_DATASET, `explore ROOT -D procs=2 --budget 100` (BENCH_BUDGET) with
#                the defaults (plus `--at` the benchmark's sizes where explore has that option),
#                the best verified syndm leaf exported at the benchmark's sizes (the size
#                parameters of the file imported at that dataset) and run at np = 2 under mpirun;
#                and the source node exported as sequential C at the same sizes; both print their
#                main loop's seconds and the checksum of the outputs.
# Median of RUNS (5) interleaved rounds (every program of every kernel once a round); peak
# resident memory by /usr/bin/time %M (the MPI ranks summed).  Per kernel: the seconds of each
# side; best peer / np2 (the issue's ratio: above 1 polyapm is faster; targets 1.0, 0.9 on the
# memory-bound gemver, gesummv, atax, mvt), gcc / np2 (target 1.5 on the compute-bound),
# gcc / seq (target 0.9); memory; predicted seconds (explore's at the size, or `polyapm measure`
# of the median run then `polyapm compare` of the leaf, which simulates at the size:
# BENCH_PREDICT) against measured;
# and checksums — the np = 2 program's must equal the sequential export's (a FAIL line otherwise:
# correctness, not speed), which is also checked against PolyBench's own array dump at that size
# built with -ffp-contract=off (BENCH_DUMP=0: not).  The geometric mean of the ratios, the
# benchmark's fifteen-plus kernels and a second group outside its list printed apart.
# Figures only: never asserts on time (the machine may be shared; the load is printed).
#
# Environment:
#   BENCH_SIZE=full|small|tiny   LARGE_DATASET (default), MEDIUM_DATASET or MINI_DATASET (the
#                                last two for development: milliseconds, noisy figures)
#   BENCH_DATASET=NAME_DATASET   any PolyBench dataset instead (e.g. EXTRALARGE_DATASET)
#   BENCH_LONGER=0               every kernel at the dataset, none at LONGER's sizes
#   BENCH_KERNELS="K ..."        the first group (default the issue's sixteen)
#   BENCH_OTHERS="K ..."         the second group (default bicg trisolv doitgen symm trmm
#                                jacobi-1d; "" for none)
#   RUNS=N                       interleaved rounds (default 5)
#   BENCH_PREDICT=0|1|SECONDS    predictions by `compare` (which simulates at the size): 1 always,
#                                SECONDS the time it may take per kernel (default: 60 at small);
#                                0 (the default at full, where simulating at LARGE takes minutes a
#                                kernel): explore's own seconds for the leaf at the size (--at)
#   BENCH_DUMP=0                 no PolyBench dump checksum
#   BENCH_BUDGET=N               explore's --budget (default 100, a new user's; the smoke test's
#                                harness check takes fewer)
#   BENCH_KEEP=DIR               keep the workspaces, builds and raw results in DIR
# Ends with "bench_peers: N kernels, N checksums equal, N failed"; exits 1 when a checksum differs.
set -u
: "${ROOT:?}" "${POLYAPM:?}"
. "$ROOT/tests/polybench/kernels.inc"   # pb_dir
. "$ROOT/tests/bench/leaf.inc"          # best_leaf, exp_bin
SIZE=${BENCH_SIZE:-full} RUNS=${RUNS:-5} DUMP=${BENCH_DUMP:-1} NP=2
KERNELS=${BENCH_KERNELS:-"gemm 2mm 3mm syrk syr2k gemver gesummv atax mvt covariance correlation lu jacobi-2d fdtd-2d heat-3d seidel-2d"}
OTHERS=${BENCH_OTHERS-"bicg trisolv doitgen symm trmm jacobi-1d"}
case $SIZE in
    full) DATASET=LARGE_DATASET PREDICT=${BENCH_PREDICT:-0} ;;
    small) DATASET=MEDIUM_DATASET PREDICT=${BENCH_PREDICT:-60} ;;
    tiny) DATASET=MINI_DATASET PREDICT=${BENCH_PREDICT:-60} ;;
    *) echo "bench_peers: BENCH_SIZE is full, small or tiny, not '$SIZE'" >&2; exit 2 ;;
esac
DATASET=${BENCH_DATASET:-$DATASET}
# LONGER[K]: K's sizes (its header's macros) where `gcc -O3 -march=native` runs its kernel for
# 0.2-0.35 s on a 2026 x86 core; used at full size (LARGE) only: at LARGE these run for
# 0.2-14 ms, timing mpirun's and the ranks' start more than the kernel.  A prediction at a size
# whose arrays outgrow the last cache level is the memory's, as the kernel's run is.
declare -A LONGER=()
if [ "$SIZE" = full ] && [ -z "${BENCH_DATASET:-}" ] && [ "${BENCH_LONGER:-1}" != 0 ]; then
    LONGER=([gemver]="N=8000" [gesummv]="N=8000" [atax]="M=15000 N=17000" [mvt]="N=7500"
            [bicg]="M=7500 N=8500" [trisolv]="N=24000" [jacobi-1d]="TSTEPS=5000 N=200000")
fi
# sizeflags K: the preprocessor flags of K's size (its LONGER macros, else the dataset's)
sizeflags() {
    local kv
    if [ -n "${LONGER[$1]:-}" ]; then for kv in ${LONGER[$1]}; do printf -- '-D%s ' "$kv"; done
    else printf -- '-D%s' "$DATASET"; fi
}
PB=$(pb_dir)
[ -n "$PB" ] || { echo "bench_peers: skipped (PolyBench/C 4.2.1 not found: set POLYBENCH_DIR)"; exit 0; }
for tool in mpicc mpirun gcc python3; do
    command -v $tool >/dev/null || { echo "bench_peers: skipped ($tool not installed)"; exit 0; }
done
[ -x /usr/bin/time ] || { echo "bench_peers: skipped (no /usr/bin/time for peak memory)"; exit 0; }
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
if [ -n "${BENCH_KEEP:-}" ]; then tmp=$BENCH_KEEP; mkdir -p "$tmp"
else tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT; fi
# explore's and compare's profiles and caches stay in here: the user's own untouched
export XDG_CONFIG_HOME=$tmp/config XDG_CACHE_HOME=$tmp/cache

# the peers: SIDE COMPILER FLAGS... (Polly where clang-14 has it; its OpenMP where it links)
PEER_CC=(gcc clang-14 clang-14)
PEER_FLAGS=("-O3 -march=native" "-O3 -march=native -mllvm -polly"
    "-O3 -march=native -mllvm -polly -mllvm -polly-parallel -fopenmp")
PEER_NAMES=(gcc polly pollyomp)
printf 'int main(void) { return 0; }\n' >"$tmp/empty.c"
peers=()
for i in 0 1 2; do
    # shellcheck disable=SC2086
    if ${PEER_CC[$i]} ${PEER_FLAGS[$i]} "$tmp/empty.c" -o "$tmp/empty.$i" 2>"$tmp/peer.$i.err"; then
        peers+=("$i")
    else
        echo "bench_peers: no ${PEER_NAMES[$i]} peer (${PEER_CC[$i]} ${PEER_FLAGS[$i]}: $(head -1 "$tmp/peer.$i.err"))"
    fi
done
AT=()
if "$POLYAPM" explore --help 2>&1 | grep -qE -- '--at( |=|$)'; then HAS_AT=1; else HAS_AT=0; fi
${CC:-gcc} -std=c11 -O2 -I"$ROOT/runtime" -o "$tmp/dumpsum" "$ROOT/tests/polybench/dumpsum.c" \
    "$ROOT/runtime/rt_checksum.c" 2>"$tmp/dumpsum.err" || { echo "bench_peers: dumpsum does not build"; DUMP=0; }

# kernel_file K: PolyBench's file of kernel K (a path under $PB), from its benchmark list
kernel_file() { sed -n "s|^\./\(.*/$1/$1\.c\)$|\1|p" "$PB/utilities/benchmark_list"; }
# params APM: "name=value,..." of the program's param lines (param a = 1, b = 2)
params() { sed -n 's/^param //p' "$1" | tr ',' '\n' | sed 's/ //g' | paste -sd, -; }
dflags() { local kv; for kv in ${1//,/ }; do printf -- '-D %s ' "$kv"; done; }

declare -A NODE=() PARAMS=() WS=()
ready=()
# note K TEXT: a line of K's notes (printed under the table)
note() { echo "  $1: $2" >>"$tmp/notes"; }
: >"$tmp/notes"
# prepare K: the peers built, the leaf derived and exported, the source exported; K is ready
prepare() {
    local k=$1 f dir ws=$tmp/$1.pdg node i
    f=$(kernel_file "$k")
    [ -n "$f" ] || { note "$k" "FAILED: not a PolyBench/C 4.2.1 kernel"; return 1; }
    dir=$PB/$(dirname "$f")
    for i in "${peers[@]}"; do
        # shellcheck disable=SC2086
        ${PEER_CC[$i]} ${PEER_FLAGS[$i]} -DPOLYBENCH_TIME $(sizeflags "$k") -DDATA_TYPE_IS_DOUBLE \
            -I"$PB/utilities" -I"$dir" "$PB/$f" "$PB/utilities/polybench.c" -lm -o "$tmp/$k.${PEER_NAMES[$i]}" \
            2>"$tmp/$k.err" || { note "$k" "FAILED: ${PEER_NAMES[$i]} build: $(head -1 "$tmp/$k.err")"; return 1; }
    done
    # shellcheck disable=SC2046
    "$POLYAPM" import "$PB/$f" -I "$PB/utilities" $(sizeflags "$k") -D DATA_TYPE_IS_DOUBLE -o "$tmp/$k.size.apm" \
        2>"$tmp/$k.err" || { note "$k" "FAILED: import at $(sizeflags "$k"): $(head -1 "$tmp/$k.err")"; return 1; }
    PARAMS[$k]=$(params "$tmp/$k.size.apm")
    [ -z "${LONGER[$k]:-}" ] || note "$k" "at ${LONGER[$k]}, not $DATASET, where its run lasts well under 0.2 s"
    [ "$HAS_AT" = 0 ] || AT=(--at "${PARAMS[$k]}")
    rm -rf "$ws"
    "$POLYAPM" init "$PB/$f" -I "$PB/utilities" -D MINI_DATASET -D DATA_TYPE_IS_DOUBLE -o "$ws" >/dev/null 2>"$tmp/$k.err" &&
        "$POLYAPM" -w "$ws" explore ROOT -D procs=$NP --budget "${BENCH_BUDGET:-100}" "${AT[@]}" -q --json >"$tmp/$k.explore" 2>"$tmp/$k.err" ||
        { note "$k" "FAILED: init or explore: $(tail -1 "$tmp/$k.err")"; return 1; }
    node=$(best_leaf "$ws" "$tmp/$k.explore")
    [ -n "$node" ] || { note "$k" "FAILED: explore reached no verified syndm node"; return 1; }
    # shellcheck disable=SC2046
    for side in exp:$node seq:ROOT; do
        rm -rf "$tmp/$k.${side%%:*}"
        "$POLYAPM" -w "$ws" export "${side#*:}" -o "$tmp/$k.${side%%:*}" $(dflags "${PARAMS[$k]}") >/dev/null 2>"$tmp/$k.err" &&
            make -s -C "$tmp/$k.${side%%:*}" >/dev/null 2>"$tmp/$k.err" ||
            { note "$k" "FAILED: export of ${side#*:}: $(tail -1 "$tmp/$k.err")"; return 1; }
    done
    WS[$k]=$ws NODE[$k]=$node
    note "$k" "leaf $node ($(python3 -c 'import json, sys
j = json.load(open(sys.argv[1])); n = int(sys.argv[2])
p = next((l["path"] for l in j.get("leaves", []) if l["node"] == n), [])
print(" -> ".join(s["transform"] + (" " + s["params"] if s["params"] else "") for s in p) or "not among the listed leaves")' \
        "$tmp/$k.explore" "$node")), ${PARAMS[$k]}"
    ready+=("$k")
}

# memwrap: /usr/bin/time per process, one file per MPI rank
cat >"$tmp/memwrap" <<EOF
#!/bin/sh
exec /usr/bin/time -f %M -o "$tmp/mem.\${OMPI_COMM_WORLD_RANK:-0}" "\$@"
EOF
chmod +x "$tmp/memwrap"
# timed SIDE K CMD...: one run; appends "SIDE K seconds checksum peak-KB(all processes)" (the
# peers print PolyBench's seconds alone; the exports a polyapm-result line)
timed() {
    local side=$1 k=$2 out line secs sum; shift 2
    rm -f "$tmp/mem".*
    out=$("$@" 2>&1)
    line=$(grep '^polyapm-result' <<<"$out")
    if [ -n "$line" ]; then
        secs=$(sed -n 's/.*seconds=\([^ ]*\).*/\1/p' <<<"$line") sum=$(sed -n 's/.*checksum=\([^ ]*\).*/\1/p' <<<"$line")
    else
        secs=$(grep -E '^[0-9]+\.[0-9]+$' <<<"$out" | tail -1) sum=-
    fi
    if [ -z "$secs" ]; then echo "$side $k FAILED" >>"$tmp/results"; tail -3 <<<"$out" >"$tmp/$k.$side.err"; return; fi
    echo "$side $k $secs $sum $(cat "$tmp/mem".* 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')" >>"$tmp/results"
}
MPIRUN=(mpirun --allow-run-as-root --oversubscribe -np $NP)

echo "load average (1, 5, 15 min) at the start: ${load:-?}"
for k in $KERNELS $OTHERS; do prepare "$k"; done
: >"$tmp/results"
for ((r = 0; r < RUNS; r++)); do
    for k in "${ready[@]}"; do
        for i in "${peers[@]}"; do OMP_NUM_THREADS=$NP timed "${PEER_NAMES[$i]}" "$k" "$tmp/memwrap" "$tmp/$k.${PEER_NAMES[$i]}"; done
        timed seq "$k" "$tmp/memwrap" "$(exp_bin "$tmp/$k.seq")"
        timed np2 "$k" "${MPIRUN[@]}" "$tmp/memwrap" "$(exp_bin "$tmp/$k.exp")"
    done
done
median() { awk -v s="$1" -v k="$2" '$1 == s && $2 == k && $3 != "FAILED" { print $3 }' "$tmp/results" | sort -g |
    awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

# PolyBench's own dump at the size, built with -ffp-contract=off, hashed as the outputs are
: >"$tmp/dumps"
if [ "$DUMP" != 0 ]; then
    for k in "${ready[@]}"; do
        f=$(kernel_file "$k") base=$tmp/$k.dump
        mkdir -p "$base" && cp "$PB/$f" "$PB/${f%.c}.h" "$base/"
        sed -i 's/DATA_PRINTF_MODIFIER "%0\.2lf "/DATA_PRINTF_MODIFIER "%a "/' "$base/$k.h"   # exact doubles
        # shellcheck disable=SC2046
        gcc -O2 -ffp-contract=off -DPOLYBENCH_DUMP_ARRAYS $(sizeflags "$k") -DDATA_TYPE_IS_DOUBLE -I"$PB/utilities" -I"$base" \
            "$base/$k.c" "$PB/utilities/polybench.c" -lm -o "$base/kernel" 2>"$base/cc.err" &&
            "$base/kernel" 2>&1 >/dev/null | "$tmp/dumpsum" $(awk '$1 == "output" { sub(/_$/, "", $2); print $2 }' "$tmp/$k.size.apm") \
                >"$base/sum" 2>&1 &&
            echo "$k $(pb_checksum "$(cat "$base/sum")")" >>"$tmp/dumps" ||
            echo "$k FAILED" >>"$tmp/dumps"
    done
fi

# predictions: the median np = 2 run recorded as a measurement of the leaf, then `compare`; with
# BENCH_PREDICT=0, explore's own seconds for the leaf at the size (--at: extrapolated, no
# simulation there), when it has --at
: >"$tmp/predicted"
[ "$PREDICT" != 0 ] || [ "$HAS_AT" = 0 ] || PREDICT=at
for k in "${ready[@]}"; do
    if [ "$PREDICT" = at ]; then
        python3 -c 'import json, sys
j = json.load(open(sys.argv[1])); n = int(sys.argv[2])
s = next((l.get("rank_seconds") for l in j.get("leaves", []) if l["node"] == n), None)
print(sys.argv[3], s if s else "n/a", j.get("machine", "?"))' "$tmp/$k.explore" "${NODE[$k]}" "$k" >>"$tmp/predicted"
        continue
    fi
    [ "$PREDICT" != 0 ] || { echo "$k n/a" >>"$tmp/predicted"; continue; }
    lim=(); [ "$PREDICT" = 1 ] || lim=(timeout "$PREDICT")
    m=$(median np2 "$k")
    [ -n "$m" ] || continue
    # shellcheck disable=SC2046
    "$POLYAPM" -w "${WS[$k]}" measure "${NODE[$k]}" -np $NP $(dflags "${PARAMS[$k]}") "$m" >/dev/null 2>"$tmp/$k.err" ||
        { note "$k" "no prediction: measure failed: $(tail -1 "$tmp/$k.err")"; continue; }
    "${lim[@]}" "$POLYAPM" -w "${WS[$k]}" compare "${NODE[$k]}" --json >"$tmp/$k.compare" 2>"$tmp/$k.err"
    case $? in
        0) python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
rows = [r for r in j["rows"] if r.get("measured_seconds")]
if rows: print(sys.argv[2], rows[0]["predicted_seconds"], j.get("machine", "?"))' "$tmp/$k.compare" "$k" >>"$tmp/predicted" ;;
        124) echo "$k timeout" >>"$tmp/predicted" ;;
        *) note "$k" "no prediction: compare failed: $(tail -1 "$tmp/$k.err")" ;;
    esac
done

{ echo "$DATASET $RUNS $PREDICT $HAS_AT ${BENCH_BUDGET:-100}"; echo "$KERNELS"; echo "$OTHERS"
  for i in "${peers[@]}"; do printf '%s ' "${PEER_NAMES[$i]}"; done; echo; } >"$tmp/setup"
python3 "$ROOT/tests/bench/peers_report.py" "$tmp/setup" "$tmp/results" "$tmp/dumps" "$tmp/predicted" "$tmp/notes"
