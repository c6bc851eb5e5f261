#!/usr/bin/env bash
# tests/mpi/export_all.sh — the export promise, over everything the other suites derived: every
# verified syndm (and syncomm) node of every workspace they left under $POLYAPM_TEST_WORKSPACES
# (tests/run.sh runs this suite last) is exported, built (through the build cache) and run under
# mpirun at its `procs` (above 8 ranks under smpirun), and must print the checksum of its simulation (tests/mpi/export_all.py).
# Open failures are listed in tests/mpi/export_all.known ("HASH12 reason"): reported as skip.
#   bash tests/mpi/export_all.sh [DIR...]    the workspaces under DIR... instead
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(${POLYAPM_TEST_WORKSPACES:+"$POLYAPM_TEST_WORKSPACES"})
if [ ${#dirs[@]} -eq 0 ]; then
    echo "skip export_all: no workspaces (tests/run.sh keeps the suites' under POLYAPM_TEST_WORKSPACES; or give DIRs)"
    exit 0
fi
python3 "$ROOT/tests/mpi/export_all.py" "$POLYAPM" "$ROOT/tests/mpi/export_all.known" \
    "${EXPORT_ALL_JOBS:-3}" "${dirs[@]}" >"$TMP/report" 2>&1
rc=$?
cat "$TMP/report"
expect_eq "export_all: the walk completes" "$rc" 0
expect_match "export_all: the suites left verified syndm programs to run" \
    "$(grep -c '^ok export_all' "$TMP/report")" '^[1-9]'
grep -q '^FAIL ' "$TMP/report" && T_FAILED=1
finish
