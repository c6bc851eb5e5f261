#!/usr/bin/env bash
# tests/run.sh — runs every test: the unit test programs (build/tests/*) and the shell suites
# (tests/{cli,store,xf,tui,mpi}/*.sh), TEST_JOBS at a time (default 3), longest first, each with its
# output collected; then tests/mpi/export_all.sh, which exports and runs every verified syndm node
# the suites derived (their workspaces are kept under $BUILD/test-workspaces for it).  Each test
# prints lines "ok NAME" / "FAIL NAME: why" / "skip NAME: why"; a suite's lines are printed when it
# ends (with the tail of its output when it failed), and the run ends with "N passed, N failed,
# N skipped".  Seconds per suite go to $BUILD/test-times.txt, which orders the next run.
#
#   tests/run.sh                  everything (what `make test` runs)
#   tests/run.sh NAME...          only these: a job's name (cli/replay, unit/test_parse, a split
#                                 suite's polybench/derive) or a directory (mpi/); export_all only
#                                 when named (mpi/export_all)
#   TEST_ONLY=REGEX tests/run.sh  the jobs whose names match, then export_all
#   SUITE_TIMEOUT=S               a job still running after S seconds (default 1800) is killed
#                                 with its processes (a hung mpirun) and fails: "timed out"
set -u
NAMED=("$@")
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
case $BUILD in /*) BUILD_DIR=$BUILD ;; *) BUILD_DIR=$ROOT/$BUILD ;; esac
export ROOT BUILD POLYAPM="$BUILD_DIR/polyapm"
JOBS=${TEST_JOBS:-3}
SUITE_TIMEOUT=${SUITE_TIMEOUT:-1800}
# every suite's workspaces, for export_all.sh; the build cache of exported programs (tests/lib.sh)
export POLYAPM_TEST_WORKSPACES=$BUILD_DIR/test-workspaces
export POLYAPM_EXPORT_CACHE=${POLYAPM_EXPORT_CACHE:-$BUILD_DIR/export-cache}
# the suites' machine profile, named (tests/lib.sh sets it too): never this machine's calibration
export POLYAPM_MACHINE=scali2004
rm -rf "$POLYAPM_TEST_WORKSPACES"
mkdir -p "$POLYAPM_TEST_WORKSPACES" "$POLYAPM_EXPORT_CACHE"
# python3 resolved once for every suite (tests/python.inc)
. "$ROOT/tests/python.inc"
t_python_dir "$BUILD_DIR/python-bin"
find "$POLYAPM_EXPORT_CACHE" -mindepth 1 -maxdepth 1 -mtime +14 -exec rm -rf {} + 2>/dev/null
OUT=$(mktemp -d); trap 'rm -rf "$OUT"' EXIT
TIMES=$BUILD_DIR/test-times.txt

# Seconds per suite, measured in one fresh-clone `make test` (3 at a time on the shared 2-core
# machine: the ratios matter, not the values); $TIMES, written by every run, wins.  Suites not
# listed count as 10 s.  The longest start first, so that none is left running alone at the end.
DEFAULT_TIMES="
cli/explore_at 137 mpi/export_coll 84 polybench/c_all.1 72 polybench/c_all.3 67
mpi/export_regress 65 polybench/derive.2 57 xf/phases.1 49 polybench/derive.1 46
mpi/export_pieces 45 mpi/export_leaves 44 xf/workspace 44 xf/stm_regress 43 xf/explore 39
xf/local 37 mpi/compare_run 35 xf/stm_isl 35 xf/derive_findings 33 mpi/ghost 32 cli/planes 28
mpi/bench_smoke 28 polybench/c_all.2 28 mpi/export_steps 27 cli/calibrate 26 mpi/export_stencil 26
mpi/peers_smoke 26 mpi/import_rand 21 mpi/aggregate 20 xf/phases.2 20 xf/regress_memdist 20
mpi/export_fd 17 mpi/export_redist 15 cli/cost_loggp 14 cli/explore_rank 14 cli/import_bad 14
cli/import_restyle 14 mpi/export_dense 14 mpi/fd 14 polybench/source 14 xf/memdist 14
cli/machine_default 13 mpi/overlap 13 unit/test_explore 13 xf/stm_auto 13 cli/import_styles 12
mpi/golden 11 cli/explore_why 10 mpi/calibrate_smpi 10 mpi/run_together 10 xf/fuse_costs 10
cli/import_polybench 9 mpi/platform 9 cli/thesis_fd 8 mpi/export_pitch 8 mpi/halo 8 mpi/ranks 8
store/crash 8 xf/commgen 8 xf/stm 8 cli/options 7 cli/tour 7 mpi/run_cache 7 tui/columns 7 cli/bad 6
mpi/placement 6 mpi/run_native 6 unit/test_xf 6 xf/assume 6 xf/fuse 6 xf/redist 6 cli/collectives 5
cli/replay 5 mpi/export_seq 5 tui/basic 5 xf/commgen_inplace 5 xf/phases.3 5 cli/explore_at_c 4
mpi/checksum 4 mpi/exchange 4 tui/export 4 cli/cost_guards 3 cli/fmt 3 cli/import_exact 3
cli/inplace 3 cli/standalone 3 mpi/gather 3 mpi/pattern 3 tui/gain 3 tui/more 3 unit/test_sim 3
xf/blockcyclic 3 cli/compare 2 mpi/dist 2 store/concurrency 2 store/workspace 2 tui/memory 2
xf/pieces 2 cli/broken 1 cli/dist_step 1 cli/funclen 1 cli/import_auto 1 cli/import_tui 1
cli/intsem 1 cli/oom 1 cli/ownership 1 cli/rooms 1 cli/sim 1 cli/sweep 1 mpi/export_intsem 1
store/bad 1 store/fsck 1 tui/bench 1 tui/cancel 1 tui/explore 1 tui/letters 1 tui/ops 1 tui/replay 1
unit/test_bad 1 unit/test_coll 1 unit/test_cost 1 unit/test_crand 1 unit/test_fuse 1
unit/test_intsem 1 unit/test_parse 1 unit/test_replay 1 unit/test_stats 1 unit/test_store 1
unit/test_textfile 1 xf/tile 1
"
declare -A EST=()
set -f
# shellcheck disable=SC2086
set -- $DEFAULT_TIMES
set +f
while [ $# -ge 2 ]; do EST[$1]=$2; shift 2; done
if [ -f "$TIMES" ]; then
    while read -r name secs; do [ -n "$name" ] && EST[$name]=${secs%.*}; done <"$TIMES"
fi

# The jobs: NAME -> a unit program or a suite's .sh; ORDER: longest first.
declare -A CMD=()
for t in "$BUILD_DIR"/tests/*; do
    [ -f "$t" ] && [ -x "$t" ] && CMD[unit/$(basename "$t")]=$t
done
# A suite listed in SPLIT runs as that many jobs, each with SUITE_PART=K/N in its environment
# (the suite takes every N-th of its cases from the K-th): polybench/derive's and c_all's kernels,
# xf/phases'.
declare -A SPLIT=([polybench/derive]=2 [xf/phases]=3 [polybench/c_all]=3) PART=()
for s in "$ROOT"/tests/{cli,store,xf,tui,mpi}/*.sh "$ROOT"/tests/polybench/{source,derive,c_all}.sh; do
    [ -f "$s" ] || continue
    name=$(basename "$(dirname "$s")")/$(basename "$s" .sh)
    [ "$name" = mpi/export_all ] && continue           # last, on the others' workspaces
    parts=${SPLIT[$name]:-1}
    if [ "$parts" -eq 1 ]; then CMD[$name]=$s; continue; fi
    for ((k = 1; k <= parts; k++)); do CMD[$name.$k]=$s; PART[$name.$k]=$k/$parts; done
done
# matches JOB ARG: the job is ARG, one of ARG's parts (polybench/derive.1) or in directory ARG
matches() { case $1 in "${2%/}" | "${2%/}"/* | "${2%/}".[0-9]*) return 0 ;; esac; return 1; }
# named JOB: no names were given, or the job matches one of them
named() {
    local a
    [ ${#NAMED[@]} -eq 0 ] && return 0
    for a in "${NAMED[@]}"; do matches "$1" "$a" && return 0; done
    return 1
}
for a in "${NAMED[@]}"; do
    hit=0
    for n in "${!CMD[@]}" mpi/export_all; do matches "$n" "$a" && hit=1; done
    [ $hit = 1 ] || { echo "tests/run.sh: no test named '$a' (a job such as cli/replay or unit/test_parse, or a directory such as mpi/)" >&2; exit 2; }
done
# TEST_ONLY=REGEX runs only the jobs whose names match (e.g. 'mpi/|cli/sim'); export_all still ends
mapfile -t ORDER < <(for n in "${!CMD[@]}"; do named "$n" && echo "${EST[$n]:-10} $n"; done | sort -k1,1nr -k2 | cut -d' ' -f2 |
                     grep -E -- "${TEST_ONLY:-.}")

log=$OUT/all.log
: >"$log"
: >"$OUT/times"
# report NAME: prints a finished job's result lines (and its tail when it failed), logs them
report() {
    local name=$1 rc
    rc=$(cat "$OUT/$name.rc" 2>/dev/null || echo 1)
    grep -E '^(ok|FAIL|skip) ' "$OUT/$name.out" | tee -a "$log"
    if [ "$rc" -ne 0 ] || grep -q '^FAIL ' "$OUT/$name.out"; then
        if [ "$rc" -eq 124 ]; then echo "FAIL $name: timed out after $SUITE_TIMEOUT s (SUITE_TIMEOUT)" | tee -a "$log"
        elif ! grep -q '^FAIL ' "$OUT/$name.out"; then echo "FAIL $name: exited $rc" | tee -a "$log"; fi
        echo "--- $name (exit $rc), the last lines of its output:"
        tail -20 "$OUT/$name.out" | sed 's/^/  | /'
        echo "$name" >>"$OUT/failed"
    fi
}
# launch NAME: runs the job in the background, output to $OUT/NAME.out, status to NAME.rc
declare -A RUNNING=()
launch() {
    local name=$1
    mkdir -p "$OUT/$(dirname "$name")"
    (
        start=$(date +%s.%N)
        # timeout: its own process group, killed whole (the suite's mpirun and ranks too)
        case ${CMD[$name]} in
            *.sh) SUITE_PART=${PART[$name]:-} timeout -k 10 "$SUITE_TIMEOUT" bash "${CMD[$name]}" ;;
            *) timeout -k 10 "$SUITE_TIMEOUT" "${CMD[$name]}" ;;
        esac >"$OUT/$name.out" 2>&1 </dev/null
        echo $? >"$OUT/$name.rc"
        echo "$name $(echo "$(date +%s.%N) - $start" | bc)" >>"$OUT/times"
    ) &
    RUNNING[$!]=$name
}
# reap: waits for one job to end and reports every finished one
reap() {
    local pid
    wait -n 2>/dev/null
    for pid in "${!RUNNING[@]}"; do
        if ! kill -0 "$pid" 2>/dev/null; then
            wait "$pid" 2>/dev/null
            report "${RUNNING[$pid]}"
            unset "RUNNING[$pid]"
        fi
    done
}
t0=$SECONDS
for name in "${ORDER[@]}"; do
    while [ ${#RUNNING[@]} -ge "$JOBS" ]; do reap; done
    launch "$name"
done
while [ ${#RUNNING[@]} -gt 0 ]; do reap; done
export EXPORT_ALL_JOBS=$JOBS
CMD[mpi/export_all]=$ROOT/tests/mpi/export_all.sh
ALL=""
named mpi/export_all && [ -f "${CMD[mpi/export_all]}" ] &&
    { ALL=" + export_all"; launch mpi/export_all; while [ ${#RUNNING[@]} -gt 0 ]; do reap; done; }

# this run's seconds replace the same jobs' in $TIMES (TEST_ONLY keeps the others')
cat "$TIMES" "$OUT/times" 2>/dev/null | awk '{t[$1] = $2} END {for (n in t) printf "%s %.1f\n", n, t[n]}' |
    sort -k2,2nr >"$TIMES.new" && mv "$TIMES.new" "$TIMES"
passed=$(grep -c '^ok ' "$log")
failed=$(grep -c '^FAIL ' "$log")
skipped=$(grep -c '^skip ' "$log")
echo
echo "# ${#ORDER[@]} suites and unit programs$ALL in $((SECONDS - t0)) s, $JOBS at a time (seconds each: $TIMES)"
if [ -f "$OUT/failed" ]; then echo "# failed: $(tr '\n' ' ' <"$OUT/failed")"; fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && rm -rf "$POLYAPM_TEST_WORKSPACES"
[ "$failed" -eq 0 ]
