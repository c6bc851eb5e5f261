#!/usr/bin/env bash
# Strided local memories (`dist a(rp) [lo .. hi step s [block b]]`): a cyclic and a block-cyclic
# distribution in absolute and in relative (compressed, with offset) coordinates simulate verified
# against the same program with replicated memory, hold exactly their lattice, print back
# unchanged, and an index off the lattice is an access outside local memory.
source "$(dirname "$0")/../lib.sh"
prog() {   # prog DIST-LINE INDEX-EXPRESSION -> a syndm program doubling a[] on its owner
cat <<APM
program lat
level syndm
param n = 11, procs = 3, bs = 2
array a[0 .. n - 1] double
$1
init a[i] = i * 3 + 1
output a
for t = 0 .. 1 seq, rp = 0 .. procs - 1 proc {
  for p = 0 .. n - 1 {
    if t == 1 && $3 {
      S: a[$2] = a[$2] * 2
    }
  }
}
APM
}
own_c='p % procs == rp'
own_bc='p / bs % procs == rp'
prog "dist a replicate" p "$own_c" >"$TMP/ref.apm"
prog "dist a(rp) [rp .. n - 1 step procs]" p "$own_c" >"$TMP/c.apm"
prog "dist a(rp) [0 .. (n - 1 - rp) / procs step procs] offset [rp]" "(p - rp) / procs" "$own_c" >"$TMP/cr.apm"
prog "dist a(rp) [rp * bs .. n - 1 step bs * procs block bs]" p "$own_bc" >"$TMP/bc.apm"
prog "dist a(rp) [0 .. n - 1 step bs * procs block bs] offset [rp * bs]" \
     "(p - rp * bs) / (bs * procs) * bs + (p - rp * bs) % (bs * procs)" "$own_bc" >"$TMP/bcr.apm"
"$POLYAPM" sim "$TMP/ref.apm" --json >"$TMP/ref.json"
for v in c cr bc bcr; do
    "$POLYAPM" sim "$TMP/$v.apm" --against "$TMP/ref.apm" --json >"$TMP/s.json"
    expect_eq "$v: verified against replicated memory, no violation" \
        "$(json "j['verified'] and j['violations_total'] == 0" <"$TMP/s.json")" True
    expect_eq "$v: the dist prints back unchanged" \
        "$("$POLYAPM" fmt "$TMP/$v.apm" | grep '^dist')" "$(grep '^dist' "$TMP/$v.apm")"
done
# n = 11 over 3 processors: cyclic 4, 4, 3 elements; blocks of 2 (0-1, 6-7 | 2-3, 8-9 | 4-5, 10)
expect_eq "cyclic: each processor holds its lattice only" "$("$POLYAPM" sim "$TMP/c.apm" --json | json "j['local_memory']")" "[4, 4, 3]"
expect_eq "block-cyclic: each processor holds its blocks only" "$("$POLYAPM" sim "$TMP/bc.apm" --json | json "j['local_memory']")" "[4, 4, 3]"
# processor 0 writing a[1] (off its lattice 0, 3, 6, 9) is outside its memory
prog "dist a(rp) [rp .. n - 1 step procs]" p "p == 1 && rp == 0" >"$TMP/off.apm"
"$POLYAPM" sim "$TMP/off.apm" --json >"$TMP/s.json"
expect_match "an index off the lattice is outside local memory" "$(json "j['violations']" <"$TMP/s.json")" "outside local memory"
prog "dist a(rp) [rp .. n - 1 step 2 block 3]" p "$own_c" >"$TMP/bad.apm"
out=$("$POLYAPM" sim "$TMP/bad.apm" 2>&1); rc=$?
expect_eq "block larger than step: refused" "$rc" 1
expect_match "block larger than step: says why" "$out" "need 1 <= block <= step"
finish
