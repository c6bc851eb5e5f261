#!/usr/bin/env bash
# Pieced dists at syndm (`dist a(rp) [i = lo .. hi][.. i ..] + [..]..`, tests/xf/pieces/*.apm):
# LU STM1 blocked with triangular and L-shaped memories simulates verified with local memory per
# processor equal to the sum of its pieces' element counts (computed here row by row from the
# dists) and below the box layout; overlapping pieces count twice but hold one value; a 3-D
# ragged last range and a strided outer range with a ragged last range simulate verified; reads,
# writes, receives and collective blocks outside the pieces (inside the hull box the simulator lays out) are
# outside-local violations naming the array, processor and statement, and an init does not make
# such an element readable; bad dist bounds for a processor are a clear error.
source "$(dirname "$0")/../lib.sh"
D="$ROOT/tests/xf/pieces"
cd "$D"

# rows lo .. hi (step s block b when s > 0) of `piece` "name" (awk expression of i for the last
# range's lo and hi): the element count, as the language defines it
count_awk='
function rows(lo, hi, s, b, clo, chi,    i, n, l, h) {
    n = 0
    for (i = lo; i <= hi; i++) {
        if (s > 0 && (i - lo) % s >= b) continue
        l = clo == "i+1" ? i + 1 : clo; h = chi == "i" ? i : chi
        if (h >= l) n += h - l + 1
    }
    return n
}'

lu_counts() {  # n procs -> "c0,c1,..." local memory per processor of lu-stm1-blocked.apm
    awk -v n="$1" -v P="$2" "$count_awk"'
    BEGIN {
        b = int((n - 1) / P) + 1
        for (rp = 0; rp < P; rp++) {
            e = rp * b + b
            a = rows(1 + rp * b, e, 0, 1, 1, "i") + rows(1, e - 1, 0, 1, rp * b + 1, e)
            l = rows(1, e, 0, 1, 1, "i")
            u = rows(1, e - 1, 0, 1, "i+1", e)
            printf "%s%d", rp ? "," : "", a + l + u
        }
        print ""
    }'
}

for n in 64 512; do
    "$POLYAPM" sim lu-stm1-blocked.apm -D n=$n --json >"$TMP/lu.json"; rc=$?
    expect_eq "lu stm1 blocked pieced n=$n: exit 0" "$rc" 0
    expect_eq "lu stm1 blocked pieced n=$n: verified against lu.apm, no violations" \
        "$(json "j['verified'] and j['violations_total'] == 0" <"$TMP/lu.json")" True
    expect_eq "lu stm1 blocked pieced n=$n: local memory = the pieces' element counts" \
        "$(json "','.join(str(x) for x in j['local_memory'])" <"$TMP/lu.json")" "$(lu_counts $n 4)"
done
"$POLYAPM" sim lu-stm1-blocked.apm --json >"$TMP/lu.json"
expect_eq "lu stm1 blocked pieced n=64: every processor below the box layout [752, 3009, 6817, 12161]" \
    "$(json "all(x < y for x, y in zip(j['local_memory'], [752, 3009, 6817, 12161])) and len(j['local_memory']) == 4" <"$TMP/lu.json")" True
expect_eq "lu stm1 blocked pieced n=64: full replication and received elements as before" \
    "$(json "j['full_memory'] == 3 * 64 * 64 and j['received_memory'][0] == 0 and min(j['received_memory'][1:]) > 0" <"$TMP/lu.json")" True

# outside the pieces: read (the init covered the element: still not readable), write, receive
"$POLYAPM" sim outside.apm --against outside-src.apm --json >"$TMP/o.json"
expect_eq "outside.apm case 0: verified, no violations, local memory 21 + 2 and 12 + 2" \
    "$(json "j['verified'] and j['violations_total'] == 0 and j['local_memory'] == [23, 14]" <"$TMP/o.json")" True
want=(""
      "outside local memory: processor 0 at t=0 reads x[1][2], outside its part of x (statement R at 19:7)"
      "outside local memory: processor 1 at t=0 writes x[4][2], outside its part of x (statement W at 28:7)"
      "outside local memory: processor 0 → 1 sent at t=0 for t=1: x[4][1], outside the receiver's part (send at 22:7)")
what=("" read write receive)
for k in 1 2 3; do
    "$POLYAPM" sim outside.apm -D case=$k --json >"$TMP/o.json"; rc=$?
    expect_eq "outside.apm: a ${what[$k]} outside the pieces fails (exit 1)" "$rc" 1
    expect_eq "outside.apm: a ${what[$k]} outside the pieces names array, processor, statement" \
        "$(json "str(j['violations_total']) + ' ' + j['violations'][0]['kind'] + ' ' + j['violations'][0]['text']" <"$TMP/o.json")" \
        "1 outside-local ${want[$k]}"
done

# a collective's block must lie in the pieces
"$POLYAPM" sim coll.apm --json >"$TMP/k.json"
expect_eq "coll.apm: a scan into two adjacent pieces runs without violations" \
    "$(json "j['violations_total'] == 0 and j['local_memory'] == [8, 8]" <"$TMP/k.json")" True
"$POLYAPM" sim coll.apm -D gap=1 --json >"$TMP/k.json"
expect_eq "coll.apm -D gap=1: the scan may not write y[0][2] (in the hull, in no piece)" \
    "$(json "j['violations'][0]['text']" <"$TMP/k.json")" \
    "outside local memory: processor 0's block y[0][0..3] is not in its memory (y[0][2] is outside its part of y) (collective S at 15:3, t=0)"

# overlapping pieces: counted twice, one value
"$POLYAPM" sim overlap.apm --json >"$TMP/v.json"
expect_eq "overlap.apm: verified (one value through both pieces), local memory 16 + 16 + 2" \
    "$(json "j['verified'] and j['violations_total'] == 0 and j['local_memory'] == [34, 34]" <"$TMP/v.json")" True
"$POLYAPM" sim overlap.apm -D far=1 --json >"$TMP/v.json"
expect_eq "overlap.apm -D far=1: x[1][5] is in the hull but in no piece" \
    "$(json "j['violations'][0]['text']" <"$TMP/v.json")" \
    "outside local memory: processor 0 at t=1 reads x[1][5], outside its part of x (statement F at 24:7)"

# a 3-D array whose last range depends on both named indices
cube_want=$(awk 'BEGIN { n = 5; for (q = 0; q < 2; q++) { c = 0
    for (i = 1 + 3 * q; i <= (3 + 3 * q < n ? 3 + 3 * q : n); i++) for (j = 1; j <= n; j++) c += j + 1
    printf "%s%d", q ? "," : "", c } }')
"$POLYAPM" sim cube.apm --json >"$TMP/c.json"
expect_eq "cube.apm (3-D ragged): verified, local memory = sum over (i, j) of j + 1" \
    "$(json "str(j['verified'] and j['violations_total'] == 0) + ' ' + ','.join(str(x) for x in j['local_memory'])" <"$TMP/c.json")" \
    "True $cube_want"
"$POLYAPM" sim cube.apm -D over=1 --json >"$TMP/c.json"
expect_eq "cube.apm -D over=1: one past the ragged range is outside" \
    "$(json "j['violations'][0]['text']" <"$TMP/c.json")" \
    "outside local memory: processor 0 at t=0 writes x[1][1][3], outside its part of x (statement C at 16:9)"

# a strided outer range (row blocks of 2, cyclic over 3 processors) with a ragged last range
str_want=$(for q in 0 1 2; do awk -v q=$q "$count_awk"'BEGIN { n = 10
    print rows(1 + 2 * q, n, 6, 2, 1, "i") + rows(n, n, 0, 1, 1, n) }'; done | paste -sd,)
"$POLYAPM" sim strided.apm --json >"$TMP/s.json"
expect_eq "strided.apm: verified, local memory = the strided triangle rows + row n" \
    "$(json "str(j['verified'] and j['violations_total'] == 0) + ' ' + ','.join(str(x) for x in j['local_memory'])" <"$TMP/s.json")" \
    "True $str_want"
"$POLYAPM" sim strided.apm -D over=1 --json >"$TMP/s.json"
expect_eq "strided.apm -D over=1: column i + 1 of a held row is outside" \
    "$(json "j['violations'][0]['text']" <"$TMP/s.json")" \
    "outside local memory: processor 0 at t=0 writes x[1][2], outside its part of x (statement C at 17:9)"

# bad bounds for a processor: a zero step, a bound that does not evaluate
bad() {  # dist-line -> the simulator's first error
    printf '%s\n' 'program b' 'level syndm' 'param n = 6' 'array x[1 .. n][1 .. n] double' "$1" \
        'for t = 0 .. 0 seq, q = 0 .. 1 proc { C: x[1][1] = 1 }' >"$TMP/bad.apm"
    "$POLYAPM" sim "$TMP/bad.apm" >/dev/null 2>"$TMP/err"; echo "exit $? $(head -1 "$TMP/err")"
}
expect_eq "a piece's step 0 for processor 0: error naming array, piece and processor" \
    "$(bad 'dist x(q) [1 .. n][1 .. n] + [i = 1 + q .. n step q block 1][1 .. i]')" \
    "exit 1 $TMP/bad.apm:5:1: error: the dist of x (piece 2) for processor 0: step 0 block 1 (need 1 <= block <= step)"
expect_eq "a ragged bound dividing by zero for a row: error naming array and processor" \
    "$(bad 'dist x(q) [i = 1 .. n][1 .. n / (i - 2 - q)]')" \
    "exit 1 $TMP/bad.apm:5:1: error: the dist bounds of x do not evaluate for processor 0"
finish
