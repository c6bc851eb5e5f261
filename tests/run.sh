#!/usr/bin/env bash
# tests/run.sh — runs every test: the unit test programs (build/tests/*), then the shell suites
# (tests/cli/*.sh and any other tests/*/*.sh suites registered below).  Each test prints lines
# "ok NAME" / "FAIL NAME: why"; this script counts them and ends with "N passed, N failed".
set -u
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export ROOT BUILD POLYAPM="$ROOT/$BUILD/polyapm"
log=$(mktemp); trap 'rm -f "$log"' EXIT
status=0
run_one() {  # name command...
    local name=$1; shift
    local out rc
    out=$("$@" 2>&1); rc=$?
    printf '%s\n' "$out" >>"$log"
    printf '%s\n' "$out" | grep -E '^(ok|FAIL|skip) ' || true
    if [ $rc -ne 0 ] && ! printf '%s\n' "$out" | grep -q '^FAIL '; then
        echo "FAIL $name: exited $rc"; echo "FAIL $name: exited $rc" >>"$log"
        printf '%s\n' "$out" | tail -20
    fi
}
for t in "$ROOT/$BUILD"/tests/*; do
    [ -x "$t" ] || continue
    run_one "$(basename "$t")" "$t"
done
for s in "$ROOT"/tests/cli/*.sh "$ROOT"/tests/store/*.sh "$ROOT"/tests/xf/*.sh "$ROOT"/tests/tui/*.sh "$ROOT"/tests/mpi/*.sh \
         "$ROOT"/tests/polybench/source.sh; do
    [ -f "$s" ] || continue
    run_one "$(basename "$s")" bash "$s"
done
passed=$(grep -c '^ok ' "$log")
failed=$(grep -c '^FAIL ' "$log")
skipped=$(grep -c '^skip ' "$log")
echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
