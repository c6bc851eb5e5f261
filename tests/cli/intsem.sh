#!/usr/bin/env bash
# The one integer semantics (engine/intsem.h) through the checker and the simulator: constant
# expressions that overflow are errors at file:line:col; a statement that overflows at run time,
# INT64_MIN / -1 and a remainder by zero stop the run naming the statement; floor division,
# remainder and ceil of negative operands match polyapm-lang(5)'s table.
source "$(dirname "$0")/../lib.sh"
S=$ROOT/tests/sim

# the checker: parameters are constant expressions
param_err() {   # NAME EXPR WANT
    printf 'program c\nlevel source\nparam n = %s\narray a[0 .. 3] int\noutput a\nfor i = 0 .. 3 {\n  S: a[i] = i\n}\n' "$2" >"$TMP/c.apm"
    "$POLYAPM" sim "$TMP/c.apm" >"$TMP/out" 2>&1; rc=$?
    expect_match "checker: $1 (exit $rc)" "$rc $(cat "$TMP/out")" "^1 .*c\.apm:3:[0-9]+: error: parameter 'n': $3"
}
param_err "INT64_MAX + 1 overflows" "9223372036854775807 + 1" "integer overflow"
param_err "-INT64_MIN overflows" "-(-9223372036854775807 - 1)" "integer overflow"
param_err "INT64_MIN / -1 overflows" "(-9223372036854775807 - 1) / -1" "integer overflow"
param_err "ceil(INT64_MIN / -1) overflows" "ceil((-9223372036854775807 - 1) / -1)" "integer overflow"
param_err "2^32 * 2^32 overflows" "4294967296 * 4294967296" "integer overflow"
param_err "abs(INT64_MIN) overflows" "abs(-9223372036854775807 - 1)" "integer overflow"
param_err "a remainder by zero" "5 % 0" "integer remainder by zero"
param_err "isqrt of a negative number" "isqrt(-4)" "isqrt of a negative number"
printf 'program c\nlevel source\nparam n = -9223372036854775807 - 1 + 9223372036854775807 * 1\narray a[0 .. 3] int\noutput a\nfor i = 0 .. 3 {\n  S: a[i] = i\n}\n' >"$TMP/c.apm"
"$POLYAPM" sim "$TMP/c.apm" >/dev/null 2>&1
expect_eq "checker: INT64_MIN + INT64_MAX fits" "$?" 0

# the simulator: overflow at run time names the statement and its place
"$POLYAPM" sim "$S/overflow.apm" >/dev/null 2>&1
expect_eq "sim: overflow.apm at n=1 fits and verifies" "$?" 0
out=$("$POLYAPM" sim "$S/overflow.apm" -D n=3 2>&1); rc=$?
expect_eq "sim: overflow at run time exits 1" "$rc" 1
expect_match "sim: overflow at run time is a runtime error naming S" "$out" \
    "runtime error: integer overflow \(processor 0, t=0\) \(statement S at 8:3\)"
out=$("$POLYAPM" sim "$S/minint.apm" 2>&1)
expect_match "sim: INT64_MIN / -1 is an overflow, not a wrapped value" "$out" \
    "runtime error: integer overflow .*\(statement D at 8:3\)"
out=$("$POLYAPM" sim "$S/divzero.apm" 2>&1)
expect_match "sim: division by zero names the statement" "$out" "runtime error: integer division by zero .*statement S"
# an affine value too big for 64 bits (i * 2^62 * 4 at i = 1)
printf 'program aff\nlevel source\nparam n = 2\narray a[0 .. n-1] int\noutput a\nfor i = 0 .. n-1 {\n  A: a[i] = i * 4611686018427387904 + i * 4611686018427387904\n}\n' >"$TMP/aff.apm"
out=$("$POLYAPM" sim "$TMP/aff.apm" 2>&1)
expect_match "sim: an affine value that does not fit is an overflow" "$out" "runtime error: integer overflow .*statement A"
# a sum reduction of ints that overflows
printf 'program red\nlevel source\nparam n = 2\narray a[0 .. n-1] int\noutput a\nfor i = 0 .. n-1 {\n  R: a[i] = sum(k = 0 .. i) 9223372036854775807\n}\n' >"$TMP/red.apm"
out=$("$POLYAPM" sim "$TMP/red.apm" 2>&1)
expect_match "sim: an int sum that overflows" "$out" "runtime error: integer overflow .*statement R"
# the table of floor division, remainder and ceil (each row divides by zero on a mismatch)
"$POLYAPM" sim "$S/floortable.apm" --json >"$TMP/j" 2>&1
expect_eq "sim: floor div/mod/ceil of negative operands match the table" \
    "$(json "j['verified'], len(j.get('violations', []))" <"$TMP/j" 2>&1)" "True 0"
# values at the edges that fit are computed exactly (big*2+1 = INT64_MAX at i = 0)
"$POLYAPM" sim "$S/intsem.apm" --json >"$TMP/j" 2>&1
expect_eq "sim: intsem.apm verifies" "$(json "j['verified']" <"$TMP/j" 2>&1)" True
finish
