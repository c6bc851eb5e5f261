#!/usr/bin/env bash
# tests/cli/import_exact.sh — `polyapm import` computes exactly what C computes, on the small
# kernels of tests/import/ (no PolyBench needed): C's truncating / and % of negative operands,
# casts, ?:, triangular and guarded init code, accumulations, loop forms counting up and down,
# compound assignments, size macros of a region in main, float data (refused; imported with
# -D float=double against the C file built with -Dfloat=double), --function and --output.  Each C file, built with gcc -O0
# -ffp-contract=off, dumps its arrays exactly (tests/import/dump.h); tests/polybench/dumpsum.c
# hashes the dump as `polyapm sim` hashes the imported program's outputs.  Also: the import is in
# canonical form, `-o` writes it, and `polyapm init FILE.c` makes a workspace of it.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/polybench/kernels.inc"
SRC=$ROOT/tests/import
CC=${CC:-gcc}
pb_dumpsum_build || { fail "dumpsum builds" "$(head -5 "$TMP/cc.err")"; finish; }

# exact NAME CFLAGS -- IMPORT_OPTIONS: the C kernel's dump checksum = polyapm sim's of its import
exact() {
    local k=$1 cflags=$2 apm=$TMP/$1.apm want got dump
    shift 3
    # shellcheck disable=SC2086
    $CC -std=c11 -O0 -ffp-contract=off -Wall -Wextra $cflags -o "$TMP/$k" "$SRC/$k.c" 2>"$TMP/cc.err" ||
        { fail "$k: C builds" "$(head -3 "$TMP/cc.err")"; return; }
    if ! "$POLYAPM" import "$SRC/$k.c" "$@" -o "$apm" 2>"$TMP/$k.err"; then
        fail "$k imports" "$(head -3 "$TMP/$k.err")"; return
    fi
    "$POLYAPM" fmt "$apm" 2>&1 | cmp -s - "$apm" && ok "$k: imported in canonical form" ||
        fail "$k: imported in canonical form" "polyapm fmt would change it"
    # shellcheck disable=SC2046
    dump=$("$TMP/$k" 2>&1 >/dev/null | "$TMP/dumpsum" $(awk '$1 == "output" { print $2 }' "$apm") 2>&1) ||
        { fail "$k: C dump" "$dump"; return; }
    want=$(pb_checksum "$dump")
    got=$(pb_checksum "$("$POLYAPM" sim "$apm" 2>&1)")
    expect_eq "$k: polyapm sim of the import = C ($(awk '$1 == "values:" { print $2 }' <<<"$dump") values)" "$got" "$want"
}

exact divmod "" --
exact triangle "" --
exact loops "" --
exact floats "-Dfloat=double" -- -D float=double
exact function "" -- --function smooth --output v
exact macros "" --

# what the translations look like
t=$(cat "$TMP/divmod.apm")
expect_match "divmod: C's truncating division of a possibly negative operand is corrected by select" "$t" \
    'select\(\(i - 2 \* j\) % 3 != 0 && i - 2 \* j < 0'
expect_match "divmod: a cast of an int to double is 1.0 * e" "$t" '1\.0 \* select\(\(i - m\) % 2'
expect_match "divmod: ?: is select" "$t" 'select\(i > j, A\[j\]\[i\], -A\[i\]\[j\]\)'
expect_match "divmod: parameters from the kernel's integer arguments, with main's values" "$t" \
    'param n = 12.*param m = 5|param n = 12'
expect_match "divmod: an int array stays int, its extent the parameter of its value" "$t" 'array A\[0 \.\. n - 1\]\[0 \.\. n - 1\] int'
t=$(cat "$TMP/triangle.apm")
expect_match "triangle: the accumulation from 0 is a sum in C's order" "$t" 'sum\(t[0-9]* = 0 \.\. n - 1\)'
expect_match "triangle: a scalar set through a pointer is a scalar with its init" "$t" 'init alpha = 1\.5'
expect_match "triangle: the region's labels are S1, S2, .." "$t" 'S4: x\[i\] = x\[i\] \* alpha'
t=$(cat "$TMP/loops.apm")
expect_match "loops: a loop counting down keeps its order (a counter and a let)" "$t" 'let i = n - 1 - 1 \* i_d'
expect_match "loops: += 2 is step 2" "$t" 'for i = 0 \.\. n - 1 step 2'
expect_match "loops: a scalar declared in the region is a scalar of the program" "$t" 'array t double'
expect_match "loops: an int the kernel declares and the region assigns is an int scalar" "$t" 'array cnt int'
expect_eq "loops: the kernel's loop variables are not declared" "$(grep -c '^array i ' <<<"$t")" 0
t=$(cat "$TMP/macros.apm")
expect_match "macros: a region in main takes its size macros as parameters" "$t" 'param N = 10.*|param N = 10'
expect_match "macros: extents and bounds are written with them" "$t" 'array A\[0 \.\. N - 1\]\[0 \.\. M - 1\] double'
expect_match "macros: a number written as such stays a number (10, N's value)" "$t" 's\[i\] = 10'
expect_match "macros: the init code's literals from macros too" "$t" 'init A\[i\]\[j\] = 1\.0 \* \(i \* M \+ j\) / N'
"$POLYAPM" import "$SRC/floats.c" -o "$TMP/f32.apm" 2>"$TMP/f32.err"
expect_eq "floats: float data is refused (never computed as double silently): exit 1" "$?" 1
expect_match "floats: the refusal is located and says how to take it as double" "$(cat "$TMP/f32.err")" \
    "floats\.c:[0-9]+:[0-9]+: error: 'A' is float: .*-D float=double"
[ ! -e "$TMP/f32.apm" ] && ok "floats: nothing written" || fail "floats: nothing written" "f32.apm exists"
expect_match "floats: with -D float=double, double arrays" "$(cat "$TMP/floats.apm")" 'array A\[0 \.\. n - 1\] double'

# a region chosen by its function is the one chosen by its index; the notes of what is set aside
# (the header's commands differ: each records its own options)
expect_eq "--function F takes F's #pragma scop region (= --region 2)" \
    "$("$POLYAPM" import "$SRC/regions.c" --function second 2>&1 | grep -v '^# imported with:')" \
    "$("$POLYAPM" import "$SRC/regions.c" --region 2 2>&1 | grep -v '^# imported with:')"
"$POLYAPM" import "$SRC/timing.c" >/dev/null 2>"$TMP/timing.err"
expect_match "what is set aside is said, located (a timer)" "$(cat "$TMP/timing.err")" \
    "timing\.c:30:5: note: set aside \(not part of the kernel\): 't_start = rtclock\(\);'"
expect_match "what is set aside is said, located (a print)" "$(cat "$TMP/timing.err")" \
    "timing\.c:31:5: note: set aside \(not part of the kernel\): a call of 'printf'"
expect_eq "timing: the timers' variables are not the program's" "$("$POLYAPM" import "$SRC/timing.c" 2>/dev/null | grep -c 't_start\|c0\|scratch')" 0

# --init: an array's values given in the language's terms instead of the C code's (rand())
printf '#include <stdlib.h>\n#define N 10\nstatic double x[N], y[N];\nint main(void) {\n  srand(42);\n  for (int i = 0; i < N; i++) { y[i] = i * 0.5; x[i] = rand() %% 100 / 10.0; }\n#pragma scop\n  for (int i = 0; i < N; i++) y[i] = y[i] + x[i];\n#pragma endscop\n  return 0;\n}\n' >"$TMP/rnd.c"
t=$("$POLYAPM" import "$TMP/rnd.c" --init 'x[i] = i % 7' 2>"$TMP/rnd.err") || fail "--init imports" "$(cat "$TMP/rnd.err")"
expect_match "--init gives the array's values; C's assignments to it are ignored" "$t" 'init x\[i\] = i % 7'
expect_match "--init: the other arrays' values are still C's" "$t" 'init y\[i\] = i \* 0\.5'
# the same program with x[i] = i % 7 in C, its y dumped: the import with --init simulates to it
printf '%s\n' "$t" >"$TMP/rnd.apm"
sed -e 's|rand() % 100 / 10.0|(i % 7)|' -e 's|  return 0;|  DUMP_BEGIN("y"); for (int i = 0; i < N; i++) DUMP_VALUE(y[i]); DUMP_END("y");\n  return 0;|' \
    -e 's|#include <stdlib.h>|#include <stdlib.h>\n#include "dump.h"|' "$TMP/rnd.c" >"$TMP/rnd7.c"
if $CC -std=c11 -O0 -ffp-contract=off -I"$SRC" -o "$TMP/rnd7" "$TMP/rnd7.c" 2>"$TMP/cc.err"; then
    want=$(pb_checksum "$("$TMP/rnd7" 2>&1 >/dev/null | "$TMP/dumpsum" y 2>&1)")
    expect_eq "--init: the import simulates to the C program computing x[i] = i % 7" \
        "$(pb_checksum "$("$POLYAPM" sim "$TMP/rnd.apm" 2>&1)")" "$want"
else
    fail "rnd7.c builds" "$(head -3 "$TMP/cc.err")"
fi

# a kernel nobody calls: --param gives its integer arguments
printf 'void k(int n, double x[n]) {\n#pragma scop\n  for (int i = 0; i < n; i++) x[i] = i;\n#pragma endscop\n}\n' >"$TMP/uncalled.c"
expect_match "--param gives an uncalled kernel's size" "$("$POLYAPM" import "$TMP/uncalled.c" --param n=6 2>&1)" 'param n = 6'

# the program to stdout without -o; init FILE.c
out=$("$POLYAPM" import "$SRC/divmod.c" 2>&1)
expect_eq "import without -o prints the program" "$out" "$(cat "$TMP/divmod.apm")"
( cd "$TMP" && "$POLYAPM" init "$SRC/triangle.c" >"$TMP/init.out" 2>&1 ) &&
    expect_match "init FILE.c creates FILE.pdg with the imported root" "$(cat "$TMP/init.out")" \
        'created triangle\.pdg: root node 1 triangle \(source' || fail "init FILE.c" "$(cat "$TMP/init.out")"
expect_eq "init FILE.c: the root's program is the import" \
    "$("$POLYAPM" -w "$TMP/triangle.pdg" show ROOT --program 2>&1)" "$(cat "$TMP/triangle.apm")"
"$POLYAPM" init "$SRC/function.c" --function smooth --output v -o "$TMP/fn.pdg" >/dev/null 2>&1 &&
    ok "init FILE.c --function F --output A" || fail "init FILE.c --function F --output A" "failed"
"$POLYAPM" init "$ROOT/examples/findiff.apm" -D x=1 -o "$TMP/bad.pdg" >/dev/null 2>"$TMP/err"
expect_eq "init FILE.apm -D: a usage error (the C options are for a C file)" "$?" 2
finish
