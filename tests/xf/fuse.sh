#!/usr/bin/env bash
# The collective fusion rules of Gorlatch et al. (transforms/fuse/fuse.c) on the small programs of
# tests/xf/fuse/: each rule is offered where its chain and condition hold, and the fused program
# computes the same output as the original on random data for p = 1..9 (checksums of two
# simulations); exact integer operators, and a non-commutative operator (right projection)
# where the condition allows one.  A failing condition (SR with a non-commutative ⊕, SR2 with a
# pair that does not distribute, a dropped value read later) is not offered and apply refuses
# it with the reason.
source "$(dirname "$0")/../lib.sh"
D="$ROOT/tests/xf/fuse"
sum() { "$POLYAPM" sim "$1" -D procs="$2" -D seed="$3" --json 2>&1 | grep -o '"checksum":"[0-9a-f]*"'; }

# rule  program
cases="sr2-reduction:sr2 sr2-reduction:sr2-rproj sr-reduction:sr sr-reduction:sr-all ss2-scan:ss2
ss2-scan:ss2-rproj ss-scan:ss bs-comcast:bs bs-comcast:bs-rproj bss2-comcast:bss2 bss2-comcast:bss2-rproj
bss-comcast:bss br-local:br br-local:br-rproj br-alllocal:brall bsr2-local:bsr2 bsr2-local:bsr2-rproj
bsr-local:bsr fuse-reductions:tuple-user fuse-reductions:tuple-gv"
for c in $cases; do
    rule=${c%%:*} f=${c#*:}
    expect_match "$rule offered on $f" "$("$POLYAPM" transforms "$D/$f.apm" | grep -A1 "^$rule ")" "predicted"
    "$POLYAPM" apply "$D/$f.apm" "$rule" -o "$TMP/$f.apm" 2>"$TMP/err"; rc=$?
    expect_eq "$rule applies to $f" "$rc" 0
    [ "$rc" = 0 ] || { cat "$TMP/err"; continue; }
    bad=""
    for p in 1 2 3 4 5 6 7 8 9; do
        seed=$((RANDOM % 1000 + 1))
        a=$(sum "$D/$f.apm" $p $seed); b=$(sum "$TMP/$f.apm" $p $seed)
        [ -n "$a" ] && [ "$a" = "$b" ] || bad="$bad p=$p(seed $seed: $a vs $b)"
    done
    expect_eq "$rule on $f: same output for p = 1..9" "$bad" ""
done
# the fused chains' shapes
expect_match "sr2-reduction: one reduce over pairs" "$(cat "$TMP/sr2.apm")" "R: \(z\[rp\], _\) = reduce\(fuse_sr2\) \(x\[rp\], x\[rp\]\) to 0"
expect_match "sr-reduction: balanced tree" "$(cat "$TMP/sr.apm")" "reduce_bal\(fuse_sr\)"
expect_match "ss-scan: butterfly over quadruples" "$(cat "$TMP/ss.apm")" "scan_bal\(fuse_ss\) \(x\[rp\], x\[rp\], x\[rp\], x\[rp\]\)"
expect_match "bs-comcast: bcast kept, repeat over the rank" "$(cat "$TMP/bs.apm")" "repeat\(fuse_bs, rp, w\[rp\]\[j1\], w\[rp\]\[j1\]\)"
expect_match "br-local: repeat p-1 on the root" "$(cat "$TMP/br.apm")" "repeat\(fuse_br, procs - 1, x"
expect_eq "br-local: no collective left" "$(grep -c '= bcast\|= reduce' "$TMP/br.apm")" 0

# conditions that fail: not offered, apply refuses with the reason (exit 1)
refused() {   # NAME RULE PROGRAM REGEX
    local out; out=$("$POLYAPM" transforms "$D/$3.apm" | grep -A1 "^$2 ")
    expect_match "$1: not offered" "$out" "not applicable"
    "$POLYAPM" apply "$D/$3.apm" "$2" >/dev/null 2>"$TMP/err"; rc=$?
    expect_eq "$1: apply exits 1" "$rc" 1
    expect_match "$1: the reason" "$(cat "$TMP/err")" "$4"
}
refused "sr-reduction with non-commutative rproj" sr-reduction sr-rproj "'rproj' is not commutative"
refused "sr2-reduction with max over +" sr2-reduction sr2-max "'max' does not distribute over '\+'"
refused "sr2-reduction when the scan's result is read" sr2-reduction sr2-read "drops the intermediate in 'y'"
refused "br-local when the broadcast copies are read" br-local br-read "drops the broadcast copies in 'w'"
refused "ss-scan on a reduce chain" ss-scan sr "no ss-scan chain"
# global-view reductions fuse only when they read the same blocks
sed 's/reduce(span) (x\[rp\], w\[rp\])/reduce(span) (w[rp], x[rp])/' "$D/tuple-gv.apm" >"$TMP/gv-apart.apm"
"$POLYAPM" apply "$TMP/gv-apart.apm" fuse-reductions >/dev/null 2>"$TMP/err"; rc=$?
expect_eq "fuse-reductions on global-view reductions of different blocks: exit 1" "$rc" 1
expect_match "fuse-reductions: the reason" "$(cat "$TMP/err")" "global-view operators with gen and combine reading the same source blocks"
expect_match "fuse-reductions global-view: one reduce into a new block, copies on the root" \
    "$(tr '\n' ' ' <"$TMP/tuple-gv.apm")" "fr_out\[rp\] = reduce\(fuse_tuple\) \(x\[rp\], w\[rp\]\) to procs - 1 +if rp == procs - 1 \{ +r\[rp\]\[0\] = fr_out\[rp\]\[0\] +for fr_j = 0 .. 2"
expect_match "fuse-reductions global-view: preaccum/postaccum concatenated, lets renamed apart" \
    "$(cat "$TMP/tuple-gv.apm")" "postaccum \(f1, f2, f3, f4, f5\) \(x1, x2\) = let t3_k = 3 in \(f1, f2, f3, f4 \* t3_k"
# at syndm the result block gets one row per processor; same output, no violation
sed -e 's/^level syncomm/level syndm/' -e 's/^output ce$/output ce\ndist x(p) [p .. p][0 .. m - 1]\ndist w(p) [p .. p][0 .. m - 1]\ndist r(p) [p .. p][0 .. 4]\ndist ce(p) [p .. p]/' \
    "$D/tuple-gv.apm" >"$TMP/gv-dm.apm"
"$POLYAPM" apply "$TMP/gv-dm.apm" fuse-reductions -o "$TMP/gv-dm2.apm"; rc=$?
expect_eq "fuse-reductions global-view at syndm applies" "$rc" 0
expect_match "fuse-reductions global-view at syndm: the result is distributed" "$(cat "$TMP/gv-dm2.apm")" "dist fr_out\(frp\) \[frp \.\. frp\]\[0 \.\. 4\]"
a=$("$POLYAPM" sim "$TMP/gv-dm.apm" -D procs=5 --json | grep -o '"checksum":"[0-9a-f]*"')
b=$("$POLYAPM" sim "$TMP/gv-dm2.apm" -D procs=5 --json | grep -o '"checksum":"[0-9a-f]*"\|"violations":\[\]' | tr -d '\n')
expect_eq "fuse-reductions global-view at syndm: same output, no violation (p=5)" "$b" "$a\"violations\":[]"
"$POLYAPM" apply "$D/sr2.apm" sr2-reduction bogus=1 >/dev/null 2>&1; rc=$?
expect_eq "unknown parameter exits 2" "$rc" 2
"$POLYAPM" apply "$D/sr2.apm" sr2-reduction at=R -o "$TMP/at.apm"; rc=$?
expect_eq "at=LABEL picks the chain" "$rc" 0
"$POLYAPM" apply "$D/sr2.apm" sr2-reduction at=NOPE >/dev/null 2>&1; rc=$?
expect_eq "at=unknown label refused" "$rc" 1
"$POLYAPM" apply "$ROOT/examples/jacobi1d.apm" sr2-reduction >/dev/null 2>"$TMP/err"; rc=$?
expect_eq "on a source program: exit 1" "$rc" 1
finish
