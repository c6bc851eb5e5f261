#!/usr/bin/env bash
# tests/mpi/export_seq.sh — sequential exports and refusals.
#  - source and syn nodes (findiff, lu, matmul, jacobi1d) export as sequential C that needs no MPI
#    (cc, rt_checksum.c only), builds with -Werror and prints `polyapm sim`'s checksum;
#    FD stores two time planes; innermost loops (and reductions' loops) index rows hoisted out of
#    them where the subscripts but the last do not change in the loop, and only there; the
#    computation takes every array (double, int, scalar) as a restrict parameter of a function
#    main calls with the globals, which gcc vectorises without versioning loops for aliasing
#    (jacobi-2d: two arrays).
#  - refused with the reason: a syncomm node with sends (memory still shared), a node whose simulation is not
#    verified (a syndm program with a missing message), a file with violations; usage errors exit 2.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
. "$(dirname "$0")/export.inc"
EX=$ROOT/examples
sed "s/^param n = 256, steps = 21/param n = 24, steps = 7/" "$EX/findiff.apm" >"$TMP/findiff.apm"
sed 's/^param n = 64$/param n = 20/' "$EX/lu.apm" >"$TMP/lu.apm"
sed 's/^param n = 64$/param n = 16/' "$EX/matmul.apm" >"$TMP/matmul.apm"
sed 's/^param n = 1000, steps = 100$/param n = 50, steps = 9/' "$EX/jacobi1d.apm" >"$TMP/jacobi1d.apm"
for prog in findiff lu matmul jacobi1d; do
    want=$("$POLYAPM" sim "$TMP/$prog.apm" --json | json "j['checksum']")
    rm -rf "$TMP/$prog-seq"
    "$POLYAPM" export "$TMP/$prog.apm" -o "$TMP/$prog-seq" >"$TMP/out" 2>&1
    expect_match "$prog source: exported as sequential C" "$(cat "$TMP/out")" "sequential C"
    expect_eq "$prog source: no MPI in the directory" "$(ls "$TMP/$prog-seq" | grep -c '^rt\.h$\|rt_exchange')" 0
    if make -s -C "$TMP/$prog-seq" EXTRA_CFLAGS=-Werror >"$TMP/build" 2>&1; then
        ok "$prog source: builds with cc -Wall -Wextra -Werror"
    else
        fail "$prog source: builds" "$(head -5 "$TMP/build")"; continue
    fi
    got=$("$TMP/$prog-seq/$prog" | sed -n 's/^polyapm-result checksum=\([0-9a-f]*\) seconds=[0-9.]* ranks=1$/\1/p')
    expect_eq "$prog source: the simulation's checksum" "$got" "$want"
done
expect_match "findiff source: two time planes of a" "$(cat "$TMP/findiff-seq/findiff.c")" "only the 2 live planes"
# rows hoisted out of innermost loops: the stencil and the reduction's term index rows, no a_at
# (statement S: from its label's comment, on the line or before it, to the end of the statement)
stencil=$(awk '/\/\* S \*\// { s = 1 } s { print } s && /;/ { s = 0 }' "$TMP/findiff-seq/findiff.c")
expect_eq "findiff source: the stencil calls no index function per element" "$(grep -c 'a_at(' <<<"$stencil")" 0
expect_match "findiff source: the stencil reads hoisted rows" "$stencil" "a\[rt_row[0-9]+ \+ y - 1\]"
expect_match "lu source: the reduction's term reads l's row" "$(grep 'rt_term = ' "$TMP/lu-seq/lu.c")" "l\[rt_row[0-9]+ \+ k\]"
# (index functions of one expression are inlined where they are used: a_at(i, j) of rows.apm's
# a[1 .. n][2 .. n + 1] is (i - 1) * n + j - 2)
# exported NAME WHY: $TMP/NAME.apm exported to $TMP/NAME-seq, built with -Werror (WHY: what
# could warn) and run: the simulation's checksum
exported() {
    local want got
    want=$("$POLYAPM" sim "$TMP/$1.apm" --json | json "j['checksum']")
    "$POLYAPM" export "$TMP/$1.apm" -o "$TMP/$1-seq" >/dev/null 2>&1 &&
        make -s -C "$TMP/$1-seq" EXTRA_CFLAGS=-Werror >"$TMP/build" 2>&1
    expect_eq "$1: builds with -Werror ($2)" "$?" 0
    got=$("$TMP/$1-seq/$1" | sed -n 's/^polyapm-result checksum=\([0-9a-f]*\) .*/\1/p')
    expect_eq "$1: the simulation's checksum" "$got" "$want"
}

# ... and not where a subscript changes in the loop: a let of the body, the loop variable, a
# reduction variable; folded and 1-dimensional arrays; lower bounds other than 0
cat >"$TMP/rows.apm" <<'APM'
program rows
level source
param n = 9
array a[1 .. n][2 .. n + 1] double
array b[0 .. n - 1][0 .. 2][0 .. n - 1] double
array v[0 .. n] double
array c[1 .. n][2 .. n + 1] double
init a[i][j] = (i * 7 + j * 3) % 11 - 5
init v[i] = i % 4 - 1.5
output b
output v
output c

for i = 1 .. n, j = 2 .. n + 1 {
  let k = j % 3
  B: b[i - 1][k][j - 2] = a[i][j] * v[j - 1] + sum(q = 1 .. i) a[q][j] * a[i][q + 1]
}
for i = 1 .. n {
  V: v[i] = v[i - 1] + a[i][i + 1]
}
for i = 1 .. n {
  for j = 2 .. n + 1 {
    C: c[i][j] = sum(q = 2 .. j) a[i][q] + b[i - 1][j % 3][j - 2]
  }
}
APM
exported rows "every hoisted row is used"
rows_c=$(cat "$TMP/rows-seq/rows.c")
expect_match "rows: a subscript bound by a let of the body is not hoisted" "$rows_c" "b\[\(3 \* \(i - 1\) \+ k\) \* n \+ j - 2\]"
expect_match "rows: a subscript of the loop variable is not hoisted" "$rows_c" "a\[\(i - 1\) \* n \+ i - 1\]"
expect_match "rows: a subscript of the reduction variable is not hoisted" "$rows_c" "a\[\(q - 1\) \* n \+ j - 2\]"
expect_match "rows: an enclosing loop's row serves the reduction" "$rows_c" "a\[rt_row[0-9]+ \+ q \+ 1\]"

# the computation takes the arrays as restrict parameters of a function main calls with the
# globals (not inlined), so gcc vectorises the loops without versioning them for aliasing; every
# kind of array: double and int, scalar, one the computation does not touch (init and output only)
lu_c=$(tr -s ' \n' ' ' <"$TMP/lu-seq/lu.c")   # a signature may be wrapped at 100 columns
expect_match "lu source: compute takes its arrays as restrict parameters, not inlined" "$lu_c" \
    'static __attribute__\(\(noinline\)\) void compute_L_U\(double \*restrict a, double \*restrict l, double \*restrict u\)'
expect_match "lu source: main passes the globals" "$(cat "$TMP/lu-seq/lu.c")" '^    compute_L_U\(a, l, u\);$'
cat >"$TMP/kinds.apm" <<'APM'
program kinds
level source
param n = 40
array a[0 .. n - 1] double
array k[0 .. n - 1] int
array s double
array c int
array z[0 .. 3] double
init a[i] = (i * 7) % 5 - 1.5
init k[i] = (i * 3) % 7
init z[i] = i + 0.5
init s = 0.0
init c = 1
output a
output k
output s
output c
output z

for i = 1 .. n - 1 {
  K: k[i] = k[i - 1] + k[i] * 2 - c
  A: a[i] = a[i - 1] * 0.5 + a[i] * k[i]
  S: s = s + a[i]
  C: c = c + k[i] % 3
}
APM
exported kinds "z, untouched by the computation, is used"
expect_match "kinds: double, int and scalar arrays are restrict parameters" "$(tr -s ' \n' ' ' <"$TMP/kinds-seq/kinds.c")" \
    'void compute_K_A_S_C\(double \*restrict a, int64_t \*restrict k, double \*restrict s, int64_t \*restrict c, double \*restrict z\)'
if gcc --version 2>/dev/null | grep -q 'Free Software'; then
    # jacobi-2d (A into B, B into A): the export's own Makefile and flags, with gcc's vectoriser report
    "$POLYAPM" export "$EX/polybench/jacobi-2d.apm" -o "$TMP/jac-seq" >/dev/null 2>&1
    vec=$(make -s -C "$TMP/jac-seq" CC=gcc EXTRA_CFLAGS=-fopt-info-vec-optimized 2>&1 >/dev/null | grep '^jacobi_2d\.c:')
    # (the loops of compute, each reported once per vector width: -O3 vectorises its epilogue too;
    # init_arrays' and the checksum's loops are vectorised as well, and not counted)
    range=$(awk '/void compute_/ { s = NR } s && /^}/ && !e { e = NR } END { print s, e }' "$TMP/jac-seq/jacobi_2d.c")
    expect_eq "jacobi-2d source: gcc vectorises both stencils" \
        "$(grep 'loop vectorized' <<<"$vec" | cut -d: -f2 | sort -u |
           awk -v s="${range% *}" -v e="${range#* }" '$1 > s && $1 < e' | wc -l)" 2
    expect_eq "jacobi-2d source: no loop versioned for possible aliasing" "$(grep -c 'because of possible aliasing' <<<"$vec")" 0
fi

# a syn node in a workspace, through run (sequential: -np 1)
WS=$TMP/fd.pdg
"$POLYAPM" init "$TMP/findiff.apm" -o "$WS" >/dev/null
P apply ROOT stm theta=t sigma=x,y >/dev/null
out=$(P run 2 -np 1 --json | tail -1)
expect_eq "findiff syn node: run -np 1 matches the simulation" "$(printf '%s' "$out" | json "j['match']")" True
P run 2 -np 2 >/dev/null 2>"$TMP/err"
expect_eq "findiff syn node: run -np 2 refused (sequential C)" "$?" 1
expect_match "findiff syn node: -np 2 says why" "$(cat "$TMP/err")" "sequential C: run it with -np 1"

# refusals
P apply 2 tile kind=block2d procs=4 >/dev/null && P apply 3 commgen >/dev/null
P export 4 -o "$TMP/no" >/dev/null 2>"$TMP/err"
expect_eq "syncomm node: refused, exit 1" "$?" 1
expect_match "syncomm node with sends: the reason names the level and the sends" "$(cat "$TMP/err")" "level syncomm and sends messages"
expect_eq "syncomm node: nothing written" "$([ -e "$TMP/no" ] && echo yes || echo no)" no
# The wrapped text: an init of nested selects (PolyBench lu's, as the importer writes it) is broken
# over lines, none of them blank or ending in spaces (a break never falls inside the indentation).
cat >"$TMP/luinit.apm" <<'APM'
program luinit
level source
param n = 6
array A[0 .. n - 1][0 .. n - 1] double
init A[i][j] = sum(t1 = 0 .. n - 1) select(t1 == i, 1, select(i + 1 <= t1 && t1 <= n - 1, 0, select(0 <= t1 && t1 <= i, 1.0 * select(-t1 % n != 0 && -t1 < 0, -t1 % n - n, -t1 % n) / n + 1, 0))) * select(t1 == j, 1, select(j + 1 <= t1 && t1 <= n - 1, 0, select(0 <= t1 && t1 <= j, 1.0 * select(-t1 % n != 0 && -t1 < 0, -t1 % n - n, -t1 % n) / n + 1, 0)))
output A

for i = 0 .. n - 1 {
  S: A[i][i] = A[i][i] * 2
}
APM
rm -rf "$TMP/luinit-seq"
"$POLYAPM" export "$TMP/luinit.apm" -o "$TMP/luinit-seq" >/dev/null 2>&1
expect_match "nested selects: the init is wrapped over lines" "$(grep -c '? (double)' "$TMP/luinit-seq/luinit.c")" '^[1-9]'
for prog in findiff lu matmul jacobi1d luinit; do
    expect_eq "$prog source: no line of the exported C is blank but for spaces, or ends in a space" \
        "$(grep -n ' $' "$TMP/$prog-seq/$prog.c" | head -3)" ""
done
sed "s/^param n = 256, steps = 21/param n = 16, steps = 21/" "$EX/findiff.apm" >"$TMP/fd16.apm"
WS=$TMP/fd16.pdg
"$POLYAPM" init "$TMP/fd16.apm" -o "$WS" >/dev/null
grep -v '^reference' "$ROOT/tests/broken/fd-syndm-missing-message.apm" >"$TMP/missing.apm"
P add ROOT "$TMP/missing.apm" --label missing >/dev/null 2>&1
P export missing -o "$TMP/no" >/dev/null 2>"$TMP/err"
expect_eq "unverified node: refused, exit 1" "$?" 1
expect_match "unverified node: says it is not verified" "$(cat "$TMP/err")" "not verified against the root"
P run missing -np 4 >/dev/null 2>&1
expect_eq "unverified node: run refused too" "$?" 1
"$POLYAPM" export "$ROOT/tests/broken/fd-syndm-missing-message.apm" -o "$TMP/no" >/dev/null 2>"$TMP/err"
expect_eq "file with a missing message: refused" "$?" 1
expect_match "file with a missing message: says why" "$(cat "$TMP/err")" "not verified|violations"
"$POLYAPM" export "$TMP/findiff.apm" >/dev/null 2>&1; expect_eq "export without -o: usage, exit 2" "$?" 2
"$POLYAPM" export "$TMP/findiff.apm" -o "$TMP/x" --exchange nope >/dev/null 2>&1; expect_eq "bad --exchange: exit 2" "$?" 2
"$POLYAPM" export "$TMP/findiff.apm" -o "$TMP/x" -D nope=1 >/dev/null 2>&1; expect_eq "unknown -D name: exit 2" "$?" 2
"$POLYAPM" run "$TMP/findiff.apm" >/dev/null 2>&1; expect_eq "run without -np: usage, exit 2" "$?" 2
finish
