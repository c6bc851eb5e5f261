#!/usr/bin/env bash
# Processor tiling through the command line: the thesis's FD tiled SynAPM derived by
# `stm theta=t sigma=x,y` + `tile block2d procs=4` (text and cost of examples/thesis/fd-tiled.apm,
# 4,459,533 at n=256), and LU's four tiled programs (STM1/STM2 x blocked/cyclic, procs=4), verified,
# cyclic cheaper than blocked.  Bad parameters exit 2.
source "$(dirname "$0")/../lib.sh"
cd "$ROOT/examples"
strip() { "$POLYAPM" fmt "$1" | grep -v '^#' | grep -v '^program' | grep -v '^reference'; }

"$POLYAPM" apply findiff.apm stm theta=t sigma=x,y -o "$TMP/fd-syn.apm"; rc=$?
expect_eq "fd stm sigma=x,y exits 0" "$rc" 0
"$POLYAPM" apply "$TMP/fd-syn.apm" tile block2d procs=4 -o "$TMP/fd-tiled.apm"; rc=$?
expect_eq "fd tile block2d exits 0" "$rc" 0
expect_eq "fd stm + tile block2d = thesis/fd-tiled.apm" "$(strip "$TMP/fd-tiled.apm")" "$(strip thesis/fd-tiled.apm)"
"$POLYAPM" sim "$TMP/fd-tiled.apm" -D n=256 -D procs=4 --against findiff.apm --json >"$TMP/s.json"
expect_eq "fd tiled n=256 procs=4 cost 4459533 (±1)" "$(json "abs(round(j['cost']) - 4459533) <= 1" <"$TMP/s.json")" True
expect_eq "fd tiled n=256 procs=4 verified" "$(json "j['verified']" <"$TMP/s.json")" True
"$POLYAPM" sim "$TMP/fd-tiled.apm" -D n=64 -D procs=16 --against findiff.apm --json >"$TMP/s.json"
expect_eq "fd tiled n=64 procs=16 verified" "$(json "j['verified']" <"$TMP/s.json")" True
"$POLYAPM" apply "$TMP/fd-syn.apm" tile block2d procs=8 2>"$TMP/err" >/dev/null; rc=$?
expect_eq "block2d procs=8 (not a square) exits 2" "$rc" 2
expect_match "block2d procs=8 explained" "$(cat "$TMP/err")" "square"

"$POLYAPM" apply lu.apm stm 'theta.L=2*(j-1)' sigma.L=i 'theta.U=2*(i-1)+1' sigma.U=j -o "$TMP/stm1.apm"
"$POLYAPM" apply lu.apm stm theta=i+j-2 sigma=i -o "$TMP/stm2.apm"
for m in stm1 stm2; do
    for k in blocked cyclic; do
        "$POLYAPM" apply "$TMP/$m.apm" tile kind=$k procs=4 -o "$TMP/$m-$k.apm"; rc=$?
        expect_eq "lu $m tile $k exits 0" "$rc" 0
        "$POLYAPM" sim "$TMP/$m-$k.apm" -D n=64 --against lu.apm --json >"$TMP/$m-$k.json"
        expect_eq "lu $m $k n=64 verified" "$(json "j['verified']" <"$TMP/$m-$k.json")" True
    done
    expect_eq "lu $m: cyclic costs less than blocked" \
        "$(python3 -c "import json; b=json.load(open('$TMP/$m-blocked.json'))['cost']; c=json.load(open('$TMP/$m-cyclic.json'))['cost']; print(c < b)")" True
done
expect_match "blocked tile size is the thesis's (n-1)/procs+1" "$(cat "$TMP/stm1-blocked.apm")" "param b = \(n - 1\) / procs \+ 1"
"$POLYAPM" apply "$TMP/stm1.apm" tile procs=0 2>/dev/null >/dev/null; rc=$?
expect_eq "tile procs=0 exits 2" "$rc" 2
"$POLYAPM" apply "$TMP/stm1.apm" tile procs=1000 2>"$TMP/err" >/dev/null; rc=$?
expect_eq "tile procs larger than the processors exits 2" "$rc" 2
expect_match "tile procs too large explained" "$(cat "$TMP/err")" "larger than the 64 virtual processors"
# one virtual processor (a sequential mapping, as in-place floyd-warshall's): procs=2 is accepted,
# processor 0 computes, processor 1 is idle; the chain verifies at syndm
cat >"$TMP/seq.apm" <<'APM'
program onevp
level source
param n = 9
array a[0 .. n - 1] double
init a[i] = i
output a
for i = 1 .. n - 1 {
  S: a[i] = a[i - 1] + a[i]
}
APM
"$POLYAPM" apply "$TMP/seq.apm" stm theta=i sigma=0 -o "$TMP/seq-syn.apm" >/dev/null 2>&1
"$POLYAPM" apply "$TMP/seq-syn.apm" tile kind=blocked procs=2 -o "$TMP/seq-t.apm" >"$TMP/out" 2>&1; rc=$?
expect_eq "tile procs=2 on one virtual processor applies" "$rc" 0
expect_match "tile on one virtual processor says which stay idle" "$(cat "$TMP/out")" "one virtual processor: real processor 0 computes, 1 .. 1 stay idle"
"$POLYAPM" apply "$TMP/seq-t.apm" commgen -o "$TMP/seq-c.apm" >/dev/null 2>&1 &&
    "$POLYAPM" apply "$TMP/seq-c.apm" memdist -o "$TMP/seq-d.apm" >/dev/null 2>&1
expect_eq "one virtual processor on procs=2: verified at syndm" \
    "$("$POLYAPM" sim "$TMP/seq-d.apm" --against "$TMP/seq.apm" --json 2>/dev/null | json "j['verified']")" True
"$POLYAPM" apply lu.apm tile procs=4 2>/dev/null >/dev/null; rc=$?
expect_eq "tile on a source program exits 1" "$rc" 1
finish
