#!/usr/bin/env bash
# tests/tui/ops.sh — the workspace operations the TUI and the command line share (tui/app/ops.h),
# called from a small C program the Makefile builds (tests/drivers/ops_driver.c): open-or-create a
# workspace from FILE.apm, apply stm to the root (the child is stored; the same text again links
# the existing node), a bad parameter writes nothing, simulate the child and store the result;
# `polyapm sim NODE` then answers from the store (same key), and fsck is clean.
. "$(dirname "$0")/../lib.sh"
B=$T_BUILD_DIR
OPS=$B/tests/drivers/ops_driver
[ -x "$OPS" ] || { fail ops-build "$OPS not built (make all builds the test drivers)"; finish; }
sed 's/^param n = 256/param n = 32/' "$ROOT/examples/findiff.apm" >"$TMP/fd.apm"
out=$("$OPS" "$TMP/fd.apm" 2>&1)
expect_match ops-create "$out" "workspace $TMP/fd.pdg created 1"
expect_match ops-apply "$out" 'child 2 new 1'
expect_match ops-dedup "$out" 'again 2 new 0'
expect_match ops-bad-param "$out" 'bad rc -1 status 2'
expect_match ops-sim "$out" 'sim rc 0 total 203064\.9 verified 1 hit 0'
expect_match ops-sim-stored "$out" 'resim rc 0 hit 1'
expect_eq ops-nodes "$("$POLYAPM" tree -w "$TMP/fd.pdg" | grep -c .)" 2
expect_match ops-cli-store-hit "$("$POLYAPM" sim 2 -w "$TMP/fd.pdg" 2>&1)" 'from the store'
# reopening does not create
out=$("$OPS" "$TMP/fd.apm" 2>&1)
expect_match ops-reopen "$out" 'created 0'
"$POLYAPM" fsck -w "$TMP/fd.pdg" >/dev/null 2>&1
expect_eq ops-fsck "$?" 0
finish
