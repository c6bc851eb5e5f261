#!/usr/bin/env bash
# tests/mpi/checksum.sh — rt_checksum gives the FNV-1a 64 values computed independently here (python3:
# struct little-endian doubles, -0.0 as 0.0, the 0x7ff8dead marker), alone and gathered from 1-D
# blocks and 2-D tile grids on 1, 2, 3, 4 and 6 ranks; and the same value as `polyapm sim` for a
# program with undefined output elements, -0.0 and an int array (skipped without the simulator).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
rt_build "$TMP/t_checksum" "$ROOT/tests/mpi/t_checksum.c" || { fail "checksum build" "mpicc failed"; finish; }
ok "checksum builds with -Wall -Wextra -Werror"
ROWS=7 COLS=11
python3 - "$ROWS" "$COLS" >"$TMP/want" <<'PY'
import math, struct, sys
rows, cols = int(sys.argv[1]), int(sys.argv[2])
def fnv(words):
    h = 0xcbf29ce484222325
    for w in words:
        for b in w:
            h ^= b
            h = (h * 0x100000001b3) & 0xffffffffffffffff
    return "%016x" % h
def d(x):
    if x == 0.0: x = 0.0
    return struct.pack("<d", x)
undef = struct.pack("<q", 0x7ff8dead)
some = [1.0, 2.5, -3.25, 1e300, 5e-324, -0.0, 0.0, 0.1, -math.inf]
print("empty", fnv([]))
print("zero", fnv([d(0.0)]))
print("negzero", fnv([d(0.0)]))
print("some", fnv(map(d, some)))
print("some_pieces", fnv(map(d, some)))
print("undef", fnv([d(1.0), undef, undef, d(2.0)]))
print("undef_novalue", fnv([d(1.0), undef, undef, d(2.0)]))
ints = [3.0, -7.0, 0.0, float(4503599627370497)]
print("ints", fnv(map(d, ints)))
print("ints_as_doubles", fnv(map(d, ints)))
v = [(-0.0 if i == 13 else (i * 37 % 101) / 7.0 - 5.0) for i in range(rows * cols)]
print("blocks", fnv(map(d, v)))
print("all", fnv(map(d, v)))
PY
[ "$(sed -n 1p "$TMP/want")" = "empty cbf29ce484222325" ] && ok "checksum: reference FNV-1a offset basis" \
    || fail "checksum: reference FNV-1a offset basis" "$(sed -n 1p "$TMP/want")"
want() { awk -v k="$1" '$1 == k { print $2 }' "$TMP/want"; }
for p in 1 2 3 4 6; do
    out=$(mpi_run "$p" "$TMP/t_checksum" "$ROWS" "$COLS"); rc=$?
    [ $rc -eq 0 ] || { fail "checksum np=$p runs" "exit $rc: $(echo "$out" | tail -3)"; continue; }
    if [ "$p" = 1 ]; then
        for k in empty zero negzero some some_pieces undef undef_novalue ints ints_as_doubles; do
            expect_eq "checksum $k" "$(awk -v k=$k '$1 == k { print $2 }' <<<"$out")" "$(want $k)"
        done
    fi
    expect_eq "checksum gathered 1-D blocks np=$p" "$(awk '$1 == "blocks" { print $2 }' <<<"$out")" "$(want blocks)"
    grids=$(awk '$1 ~ /^grid/ { print $1 }' <<<"$out")
    [ -n "$grids" ] || fail "checksum gathered grids np=$p" "no grid lines in: $out"
    for g in $grids; do
        expect_eq "checksum gathered $g tiles np=$p" "$(awk -v k="$g" '$1 == k { print $2 }' <<<"$out")" "$(want all)"
    done
done
cat >"$TMP/ck.apm" <<'APM'
# checksum conventions: undefined elements, -0.0, an int array, two outputs in order
program ck
level source
param n = 6
array a[0 .. n - 1][0 .. 2] double
array b[0 .. n - 1] int
init b[i] = i * 7 - 20
output a
output b
for i = 0 .. n - 1, j = 0 .. 2 {
  if (i + j) % 3 != 0 {
    A: a[i][j] = (i - 2.0) * j / 3
  }
}
APM
if [ -x "$POLYAPM" ] && "$POLYAPM" sim "$TMP/ck.apm" --json 2>/dev/null | json "j['checksum']" >/dev/null 2>&1; then
    for n in 6 9; do
        sim=$("$POLYAPM" sim "$TMP/ck.apm" -D n=$n --json | json "j['checksum']")
        for p in 1 3; do
            rt=$(mpi_run $p "$TMP/t_checksum" ck $n | awk '$1 == "ck" { print $2 }')
            expect_eq "checksum = polyapm sim (no-value elements, -0.0, int array) n=$n np=$p" "$rt" "$sim"
        done
    done
else
    echo "skip checksum: comparison with the simulator ($POLYAPM sim --json not available yet)"
fi
finish
