#!/usr/bin/env bash
# Regressions of memdist and the isl text the transforms build (tests/xf/scalars/, tests/xf/inplace/):
#  - scalars (0-dimensional arrays, PolyBench's alpha and beta): gemm (scalars read everywhere)
#    and dotscale (a scalar written by one processor, then read by all) go through stm, tile
#    (blocked, cyclic, blockcyclic), commgen, memdist, relcoord and export without a crash
#    (memdist crashed with SIGSEGV on nd = 0): the scalars are replicated, a scalar element
#    touched by one processor only is not mistaken for a shift of it (s[0] held as [0 .. 0],
#    not up to the processor's last virtual one), every leaf verifies, and the C+MPI of the
#    syndm leaves prints the simulation's checksum; explore reaches syndm leaves on gemm;
#  - in place (PolyBench jacobi-1d and jacobi-2d, A and B reused at every step, no time
#    dimension): stm auto -> tile blocked -> commgen -> memdist gives each processor its rows
#    plus the halo its reads need (jacobi-1d: [rp * b .. rp * b + b + 1]); the local memories
#    equal the footprint an oracle counts from the statements (jacobi-2d: the rows it touches,
#    whole), the point-by-point check (POLYAPM_MEMDIST_CHECK=all) keeps the same layout, and
#    the syndm nodes verify (a message replaces the receiver's older copy);
#  - an access on some processors only (fdtd-2d's ey[0][j] on processor 0) bounds only theirs;
#    atax under stm auto's first mapping: each rank its rows of A;
#  - negated literals in bounds (-2 * n + 2 * n, n * -2): tile models the statement (isl read
#    `((-(2)) * (n))` as a syntax error) and the tiled program verifies.
source "$(dirname "$0")/../lib.sh"
X=$ROOT/tests/xf
cd "$TMP"
# pipe NAME SRC STMARGS... : stm, then per tiling tile/commgen/memdist/relcoord; checks each step
pipe() {
    local name=$1 src=$2; shift 2
    "$POLYAPM" apply "$src" stm "$@" -o "$name-s.apm" 2>"$name-s.err"
    local rc=$?
    expect_eq "$name: stm exits 0 ($(grep error "$name-s.err" | head -c 300))" "$rc" 0
    expect_eq "$name s: verified, no violations" \
        "$("$POLYAPM" sim "$name-s.apm" --against "$src" --json 2>&1 | json "j['verified'] and j['violations_total'] == 0")" True
    for k in blocked cyclic "blockcyclic bs=2"; do
        local x="$name-${k%% *}"
        "$POLYAPM" apply "$name-s.apm" tile kind=$k procs=2 -o "$x-t.apm" &&
        "$POLYAPM" apply "$x-t.apm" commgen -o "$x-c.apm"
        expect_eq "$x: tile, commgen exit 0" "$?" 0
        "$POLYAPM" apply "$x-c.apm" memdist -o "$x-d.apm"
        expect_eq "$x: memdist exits 0 (139 before: SIGSEGV on a scalar)" "$?" 0
        "$POLYAPM" apply "$x-d.apm" relcoord -o "$x-r.apm"
        expect_eq "$x: relcoord exits 0" "$?" 0
        for lv in t c d r; do
            expect_eq "$x $lv: verified, no violations" \
                "$("$POLYAPM" sim "$x-$lv.apm" --against "$src" --json 2>&1 | json "j['verified'] and j['violations_total'] == 0")" True
        done
    done
}
pipe gemm "$X/scalars/gemm.apm" auto=1
expect_eq "gemm: the scalars are replicated" "$(grep -c -E '^dist (alpha|beta) replicate$' gemm-blocked-d.apm)" 2
pipe gemm-j "$X/scalars/gemm.apm" theta.S1=j sigma.S1=i theta.S2=k+j+1 sigma.S2=j inner=seq
pipe dotscale "$X/scalars/dotscale.apm" theta.S1=i sigma.S1=0 theta.S2=n sigma.S2=i
expect_eq "dotscale: the written scalar s is replicated" "$(grep -c '^dist s replicate$' dotscale-cyclic-d.apm)" 1
# the same program with s a one-element array: s[0] (touched at p == 0 by S1) is one element,
# not rp .. the last virtual processor of rp
sed -e 's/^array s double/array s[0 .. 0] double/' -e 's/init s = 0/init s[0] = 0/' -e 's/\bs = s +/s[0] = s[0] +/' \
    -e 's/a\[i\] \* s$/a[i] * s[0]/' "$X/scalars/dotscale.apm" >dot1.apm
pipe dot1 dot1.apm theta.S1=i sigma.S1=0 theta.S2=n sigma.S2=i
for k in blocked cyclic blockcyclic; do
    expect_match "dot1 $k: s[0] held as the one element it is" "$(cat dot1-$k-d.apm)" '^dist s\(rp\) \[0 \.\. 0\]$'
done
# C+MPI of the syndm leaves: the simulation's checksum
if command -v mpicc >/dev/null; then
    for x in gemm-blocked-d gemm-blocked-r gemm-cyclic-d dotscale-blocked-d dotscale-cyclic-d dot1-blockcyclic-d; do
        out=$("$POLYAPM" run "$x.apm" -np 2 2>&1); rc=$?
        expect_match "$x: exported C+MPI prints the simulation's checksum (exit $rc)" "$out" "= the simulation's"
    done
fi
# explore reaches syndm leaves of gemm without a crash
"$POLYAPM" init "$X/scalars/gemm.apm" -o g.pdg >/dev/null
out=$("$POLYAPM" -w g.pdg explore ROOT --budget 120 -D procs=2 -D n=4 --json -q 2>&1); rc=$?
expect_eq "gemm explore: exit 0 (139 before)" "$rc" 0
expect_eq "gemm explore: verified syndm leaves" \
    "$(printf '%s' "$out" | json "len(j['leaves']) > 0 and all(l['verified'] == 1 and l['level'] == 'syndm' for l in j['leaves'])")" True

# ---- in place: footprints ----
# inplace NAME SRC PROCS N : stm auto, tile blocked, commgen, memdist (and with the check)
inplace() {
    local x=$1 src=$2 procs=$3 n=$4
    "$POLYAPM" apply "$src" stm auto=1 -o "$x-s.apm" 2>/dev/null &&
    "$POLYAPM" apply "$x-s.apm" tile kind=blocked procs=$procs -o "$x-t.apm" &&
    "$POLYAPM" apply "$x-t.apm" commgen -o "$x-c.apm" &&
    "$POLYAPM" apply "$x-c.apm" memdist -o "$x-d.apm"
    expect_eq "$x: stm auto, tile, commgen, memdist exit 0" "$?" 0
    POLYAPM_MEMDIST_CHECK=all "$POLYAPM" apply "$x-c.apm" memdist -o "$x-dc.apm"
    expect_eq "$x: the point-by-point check keeps the layout" "$(grep '^dist' "$x-dc.apm")" "$(grep '^dist' "$x-d.apm")"
    "$POLYAPM" sim "$x-d.apm" -D n=$n --against "$src" --json >"$x.json"
    expect_eq "$x n=$n: verified, no violations" \
        "$(json "j['verified'] and j['violations_total'] == 0" <"$x.json")" True
}
# the oracle: processor rp runs rows p = max(1, 1 + rp * b) .. min(n - 2, rp * b + b) (b as tile
# sets it) and touches rows p - 1 .. p + 1 of A and B: 1-D their elements, 2-D those rows whole
footprint() {
    python3 -c "
n, procs, dims = $1, $2, $3
b = (n - 3) // procs + 1
out = []
for rp in range(procs):
    rows = set()
    for p in range(max(1, 1 + rp * b), min(n - 2, rp * b + b) + 1): rows |= {p - 1, p, p + 1}
    out.append(2 * len(rows) * (n if dims == 2 else 1))
print(out)"
}
inplace j1 "$X/inplace/jacobi1d.apm" 2 16
expect_match "jacobi-1d in place: the block plus a halo of one" "$(cat j1-d.apm)" '^dist A\(rp\) \[rp \* b \.\. rp \* b \+ b \+ 1\]$'
for n in 16 20; do
    "$POLYAPM" sim j1-d.apm -D n=$n --json >j1n.json
    expect_eq "jacobi-1d in place n=$n: local memories are the footprint" "$(json "j['local_memory']" <j1n.json)" "$(footprint $n 2 1)"
done
inplace j2 "$X/inplace/jacobi2d.apm" 3 14
expect_match "jacobi-2d in place: the block's rows plus a halo row each side" "$(cat j2-d.apm)" \
    '^dist B\(rp\) \[rp \* b \.\. rp \* b \+ b \+ 1\]\[0 \.\. n - 1\]$'
"$POLYAPM" sim j2-d.apm -D n=14 --json >j2n.json
expect_eq "jacobi-2d in place n=14: local memories are the rows touched" "$(json "j['local_memory']" <j2n.json)" "$(footprint 14 3 2)"

# ---- an access that runs on some processors only (fdtd-2d) ----
# the rows leaf of fdtd-2d: S1's ey[0][j] runs on processor 0 alone; its fixed row 0 was a lower
# bound of every processor's ey (dist ey(rp) [0 .. b + rp * b]: the last rank held all of it).
# Each rank holds its block plus one halo row of ey and hz (b as tile sets it), nothing more.
FD=$ROOT/examples/polybench/fdtd-2d.apm
"$POLYAPM" apply "$FD" stm theta.S1=2*t sigma.S1=0 theta.S2=2*t sigma.S2=i theta.S3=2*t sigma.S3=i \
    theta.S4=2*t+1 sigma.S4=i inner=seq -o fd-s.apm >/dev/null 2>&1 &&
    "$POLYAPM" apply fd-s.apm tile kind=blocked procs=2 -o fd-t.apm >/dev/null 2>&1 &&
    "$POLYAPM" apply fd-t.apm commgen -o fd-c.apm >/dev/null 2>&1 &&
    "$POLYAPM" apply fd-c.apm memdist -o fd-d.apm >/dev/null 2>&1
expect_eq "fdtd-2d rows: stm, tile, commgen, memdist" "$?" 0
expect_match "fdtd-2d rows: ey is the block plus the row below it" "$(cat fd-d.apm)" '^dist ey\(rp\) \[rp \* b \.\. rp \* b \+ b\]'
for nx in 20 21; do
    "$POLYAPM" sim fd-d.apm -D nx=$nx --against "$FD" --json >fd.json 2>&1
    want=$(python3 -c "b = ($nx - 1) // 2 + 1; print([(b + 2 * (b + 1)) * 30 + 20] * 2)")   # ex b rows, ey and hz b + 1; fict
    expect_eq "fdtd-2d rows nx=$nx: local memories are block plus halo" "$(json "j['local_memory']" <fd.json)" "$want"
    expect_eq "fdtd-2d rows nx=$nx: verified" "$(json "j['verified'] and j['violations_total'] == 0" <fd.json)" True
done

# atax under stm auto's first mapping (the row products at step 0, the column sums one row per
# step): each rank holds its rows of A and of tmp, x and y whole (the thesis's replicated vectors)
AX=$ROOT/examples/polybench/atax.apm
"$POLYAPM" apply "$AX" stm auto=1 -o ax-s.apm >/dev/null 2>&1 &&
    "$POLYAPM" apply ax-s.apm tile kind=blocked procs=2 -o ax-t.apm >/dev/null 2>&1 &&
    "$POLYAPM" apply ax-t.apm commgen -o ax-c.apm >/dev/null 2>&1 &&
    "$POLYAPM" apply ax-c.apm memdist -o ax-d.apm >/dev/null 2>&1
expect_eq "atax: stm auto, tile, commgen, memdist" "$?" 0
expect_match "atax: each rank its rows of A" "$(cat ax-d.apm)" '^dist A\(rp\) \[rp \* b \.\. rp \* b \+ b - 1\]\[0 \.\. n - 1\]$'
"$POLYAPM" sim ax-d.apm --against "$AX" --json >ax.json 2>&1
want=$(python3 -c "b = (38 - 1) // 2 + 1; print([b * 42 + b + 2 * 42] * 2)")   # rows of A and tmp; x, y
expect_eq "atax: local memories are the rows plus the vectors" "$(json "j['local_memory']" <ax.json)" "$want"
expect_eq "atax: verified" "$(json "j['verified'] and j['violations_total'] == 0" <ax.json)" True

# ---- negated literals in isl text ----
"$POLYAPM" apply "$X/inplace/negbounds.apm" tile kind=blocked procs=2 -o neg-t.apm 2>neg.err
rc=$?
expect_eq "negbounds: tile exits 0 ($(head -c 300 neg.err))" "$rc" 0
expect_eq "negbounds: the tiled program verifies" \
    "$("$POLYAPM" sim neg-t.apm --against "$X/inplace/negbounds.apm" --json | json "j['verified'] and j['violations_total'] == 0")" True
# PolyBench lu with negative allocations (a candidate stm auto once ranked first): memdist's
# ragged bounds sent the simplifier into a rewrite that never settled (SIGSEGV, stack overflow)
LU=$ROOT/examples/polybench/lu.apm
"$POLYAPM" apply "$LU" stm theta.S1=i+2*k sigma.S1=-j theta.S2=i+2*j-1 sigma.S2=-i theta.S3=j+2*k sigma.S3=-i \
    inner=seq -o lun-s.apm >/dev/null 2>&1 &&
    "$POLYAPM" apply lun-s.apm tile kind=blocked procs=2 -o lun-t.apm >/dev/null 2>&1 &&
    "$POLYAPM" apply lun-t.apm commgen -o lun-c.apm >/dev/null 2>&1
expect_eq "lu, negative allocations: stm, tile, commgen" "$?" 0
"$POLYAPM" apply lun-c.apm memdist -o lun-d.apm >/dev/null 2>&1
expect_eq "lu, negative allocations: memdist exits 0 (139 before)" "$?" 0
expect_eq "lu, negative allocations: the syndm node verifies" \
    "$("$POLYAPM" sim lun-d.apm --against "$LU" --json 2>&1 | json "j['verified'] and j['violations_total'] == 0")" True
finish
