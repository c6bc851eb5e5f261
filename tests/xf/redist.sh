#!/usr/bin/env bash
# The transpose collective (a redistribution between phases, polyapm-lang(5) COLLECTIVES) in the
# simulator: tests/xf/redist/adi-transpose.apm — PolyBench's adi with both sweeps owned by rows,
# u and v transposed between them — verifies against adi.apm at 1 to 4 processors and two
# sizes, both processors work in every sweep step (no serial pipeline), the trace prices one
# all-to-all per transpose, and the text is canonical.  Misuse found at run time stops the run
# with a located message: overlapping source rows, a condition that differs between processors,
# a destination outside local memory, a source element without a value.
# The redist transform (transforms/distribute/redist.c) derives such a program: adi's sweeps
# mapped with sigma = i (stm), tiled blocked, commgen, memdist, then redist: u and v keep rows,
# the column sweep gets ut and vt, two transposes replace the element sends, every array is a box;
# it verifies at 1 to 4 processors, its work's critical path at 2 is about half its work, and it
# is refused, naming why, where no array is accessed both ways.
source "$(dirname "$0")/../lib.sh"
D="$ROOT/tests/xf/redist"
A="$D/adi-transpose.apm"
ref=$("$POLYAPM" sim "$D/adi.apm" --json | json "j['checksum']")
for np in 1 2 3 4; do
    out=$("$POLYAPM" sim "$A" -D procs=$np --json)
    expect_eq "adi-transpose procs=$np: verified, the source's checksum" \
        "$(printf '%s' "$out" | json "(j['verified'], j['checksum'])")" "(True, '$ref')"
done
ref2=$("$POLYAPM" sim "$D/adi.apm" -D n=33 -D tsteps=3 --json | json "j['checksum']")
out=$("$POLYAPM" sim "$A" -D n=33 -D tsteps=3 -D procs=3 --json)
expect_eq "adi-transpose n=33 tsteps=3 procs=3: verified" \
    "$(printf '%s' "$out" | json "(j['verified'], j['checksum'])")" "(True, '$ref2')"

# genuinely parallel: the work's critical path (the sum over the steps of the busiest
# processor's work, `sim --trace`'s max work) at 2 processors is at most 0.55 of the source's
# work (a serial pipeline, one processor working per step, gives about 1)
crit() { "$POLYAPM" sim "$@" --trace | awk 'NF == 5 && $1 ~ /^[0-9]+$/ { s += $4 } END { print s }'; }
c2=$(crit "$A" -D procs=2) c0=$(crit "$D/adi.apm")
expect_eq "adi-transpose: critical path of the work ($c2) <= 0.55 of the source's ($c0)" \
    "$(python3 -c "print($c2 <= 0.55 * $c0)")" True
out=$("$POLYAPM" sim "$A" -D procs=2 --json)
expect_eq "adi-transpose: one transpose per sweep step, an all-to-all over 2 processors" "$(printf '%s' "$out" | json "
sorted({(c['kind'], c['nprocs']) for c in j['collectives']}) == [('transpose', 2)] and
sorted(c['step'] for c in j['collectives']) == list(range(1, j['steps']))")" True
expect_eq "adi-transpose: canonical text" "$("$POLYAPM" fmt "$A" | diff - "$A" >/dev/null && echo same)" same

# run-time misuse: located, the run stops, not verified
bad() {   # NAME SED-EXPRESSION MESSAGE-REGEX
    sed "$2" "$A" >"$TMP/$1.apm"
    cp "$D/adi.apm" "$TMP/"
    "$POLYAPM" sim "$TMP/$1.apm" >"$TMP/$1.out" 2>&1
    expect_eq "$1: exit 1" "$?" 1
    expect_match "$1: located message" "$(cat "$TMP/$1.out")" "$3"
}
bad overlap 's/transpose u\[max(1, rp \* tb)/transpose u[max(1, rp * tb - 1)/' \
    "source blocks of processors 0 and 1 share row 9 of u .*collective T2 at 10[0-9]:3, t=2"
bad when 's/when tt % 2 == 1$/when tt % 2 == 1 \&\& rp == 0/' \
    "condition of transpose holds on processor 0 and not on processor 1 .*collective T1 at 10[0-9]:3, t=1"
bad dstlocal 's/^dist v(rp) .*/dist v(rp) [rp * tb .. min(n - 1, rp * tb + tb - 1)][0 .. n - 1]/' \
    "outside local memory: v\[10\]\[1\] of processor 0's destination block .*collective T1"
bad novalue 's/transpose vt\[max(1, rp \* tb) .. min(n - 2,/transpose vt[rp * tb .. min(n - 1,/' \
    "missing message: vt\[0\]\[0\] of processor 0's source block has no value .*collective T1"

# the redist transform on the chain explore finds (node 5's mapping of PolyBench adi)
. "$ROOT/tests/xf/redist/chain.inc"
adi_to_memdist "$TMP"
expect_eq "adi sigma=i: stm, tile, commgen, memdist exit 0" "$?" 0
out=$("$POLYAPM" apply "$TMP/m.apm" redist -o "$TMP/r.apm" 2>&1)
expect_eq "redist: exit 0" "$?" 0
expect_match "redist: reports u" "$out" "u by rows, its transpose ut by columns \\(offsets 0 \\.\\. 0, -1 \\.\\. 1\\)"
expect_match "redist: reports v" "$out" "v by rows, its transpose vt by columns \\(offsets -1 \\.\\. 1, 0 \\.\\. 0\\)"
r=$(cat "$TMP/r.apm")
expect_match "redist: the column sweep reads ut by rows" "$r" "S18: q\[i\]\[j\] = \(-d \* ut\[i - 1\]\[j\] \+ \(1.0 \+ 2.0 \* d\) \* ut\[i\]\[j\]"
expect_match "redist: and writes vt by rows" "$r" "S20: vt\[i\]\[j\] = p\[i\]\[j\] \* vt\[i\]\[j \+ 1\]"
expect_match "redist: u's transpose after the row sweep" "$r" "= transpose u\[max\(0, rp \* tb\) \.\. min\(n - 1, rp \* tb \+ tb - 1\)\] when tt >= 14 && tt % 2 == 0"
expect_match "redist: vt's rows with values only (its writes' guards)" "$r" "v\[max\(0, rp \* tb - 1\) \.\. min\(n - 1, rp \* tb \+ tb\)\] = transpose vt\[max\(1, rp \* tb\)"
expect_match "redist: ut starts from u's initial values" "$r" "init ut\[j\]\[i\] = 1.0 \* \(i \+ n - j\) / n"
expect_eq "redist: no element sends of u or v left" "$(grep -cE 'send (u|v|ut|vt)\[' <<<"$r")" 0
expect_eq "redist: every dist of u, ut, v, vt is one box" "$(grep -E '^dist (u|ut|v|vt)\(' <<<"$r" | grep -cE '\] \+ \[|\[[a-z0-9_]+ = ')" 0
sed '/^level /a reference "adi.apm"' "$TMP/r.apm" >"$TMP/rr.apm"
for np in 1 2 3 4; do
    expect_eq "redist leaf procs=$np: verified, the source's checksum" \
        "$("$POLYAPM" sim "$TMP/rr.apm" -D procs=$np --json | json "(j['verified'], j['checksum'])")" "(True, '$ref')"
done
c2=$(crit "$TMP/rr.apm" -D procs=2) c1=$(crit "$TMP/rr.apm" -D procs=1)
expect_eq "redist leaf: critical path of the work at 2 processors ($c2) <= 0.55 of its work on one ($c1)" \
    "$(python3 -c "print($c2 <= 0.55 * $c1)")" True
out=$("$POLYAPM" apply "$ROOT/examples/thesis/fd-syndm.apm" redist 2>&1)
expect_eq "redist on the FD leaf: refused (exit 1)" "$?" 1
expect_match "redist on the FD leaf: says why" "$out" "redist does not apply: .*(blocked tiling|neither by rows nor by columns|not accessed both)"
finish
