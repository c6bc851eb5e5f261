#!/usr/bin/env bash
# memdist's local memories follow the footprint, relcoord gives every leaf local indices, and the
# generated programs stay short:
#  - LU (STM1/STM2 x blocked/cyclic/blockcyclic, n=64, procs=4): every processor holds at least
#    the elements it touches (counted by tests/xf/lu_footprint.py from lu.apm's statements) and at
#    most 15% more — pieces with ragged ranges (triangles, STM1's L-shaped a), rows strided
#    (`step procs`) under cyclic tilings; before pieces STM1 held 11102-12161 of 12288 elements;
#  - jacobi1d blocked: processor 0 holds its block plus a halo of one (the boundary statement at
#    n - 1 no longer widens its box to the row); cyclic: its virtual processors' p - 1 .. p + 1;
#  - every LU leaf verifies at n=12 and 64, through relcoord too where an array has a plain box
#    (with the cost of its syndm node; pieced arrays stay absolute, and relcoord refuses a leaf
#    whose arrays are all pieced); a range send to receivers whose offsets differ becomes a loop
#    over the receivers, each with its own index;
#  - verbosity: the FD leaf's neighbour sends go to rp +- 1 / rp +- q from the block's edge (no
#    RP(p +- 1) != RP(p) guard of divisions), no min/max reduction is left in the LU syndm dists,
#    and the FD relcoord leaf is at most 2400 characters (3364 before; about 2100 now);
#  - memdist layout=box: the box whatever pieces would save (refused where auto's is boxes);
#    covariance's pieced cov costs more than its box (an element searched through the pieces is
#    strided work), and explore's cheapest covariance leaf has the box.
source "$(dirname "$0")/../lib.sh"
cd "$ROOT/examples"

"$POLYAPM" apply lu.apm stm 'theta.L=2*(j-1)' sigma.L=i 'theta.U=2*(i-1)+1' sigma.U=j -o "$TMP/stm1.apm"
"$POLYAPM" apply lu.apm stm theta=i+j-2 sigma=i -o "$TMP/stm2.apm"
for m in stm1 stm2; do
    for k in blocked cyclic "blockcyclic bs=2"; do
        x="$TMP/$m-${k%% *}"
        "$POLYAPM" apply "$TMP/$m.apm" tile kind=$k procs=4 -o "$x-t.apm" &&
        "$POLYAPM" apply "$x-t.apm" commgen -o "$x-c.apm" &&
        "$POLYAPM" apply "$x-c.apm" memdist -o "$x-d.apm"; rc=$?
        expect_eq "lu $m ${k%% *}: tile, commgen, memdist exit 0" "$rc" 0
        # relcoord relativises the arrays with one plain box; pieced ones stay absolute, and a
        # leaf whose arrays are all pieced (STM1: a, l and u) is refused with the reason
        lvs="d"
        if grep '^dist [a-z]*(rp)' "$x-d.apm" | grep -v '\] + \[' | grep -qv '\[[a-z0-9]* = '; then
            "$POLYAPM" apply "$x-d.apm" relcoord -o "$x-r.apm"
            expect_eq "lu $m ${k%% *}: relcoord exits 0" "$?" 0
            lvs="d r"
        else
            out=$("$POLYAPM" apply "$x-d.apm" relcoord -o "$x-r.apm" 2>&1); rc=$?
            expect_match "lu $m ${k%% *}: relcoord refused, every array pieced (exit $rc)" "$rc $out" \
                "^1 .*no array has one plain local box"
        fi
        for n in 12 64; do
            for lv in $lvs; do
                "$POLYAPM" sim "$x-$lv.apm" -D n=$n --against lu.apm --json >"$TMP/$lv.json"
                expect_eq "lu $m ${k%% *} $lv n=$n verified, no violations" \
                    "$(json "j['verified'] and j['violations_total'] == 0" <"$TMP/$lv.json")" True
            done
            [ "$lvs" = "d r" ] && expect_eq "lu $m ${k%% *} n=$n: relcoord keeps the cost" \
                "$(json "round(j['cost'], 3)" <"$TMP/r.json")" "$(json "round(j['cost'], 3)" <"$TMP/d.json")"
        done
        # as little as is needed: every processor holds at least the elements it touches (an
        # oracle counts them from lu.apm's statements) and at most 15% more (n=64, procs=4)
        python3 "$ROOT/tests/xf/lu_footprint.py" $m ${k%% *} 64 4 >"$TMP/fp.json"
        held=$(python3 -c "import json; l = json.load(open('$TMP/d.json'))['local_memory']
f = json.load(open('$TMP/fp.json')); print(all(a <= x <= 1.15 * a for x, a in zip(l, f)), l, f)")
        expect_match "lu $m ${k%% *}: local memory between the footprint and 1.15x it ($held)" "$held" "^True"
    done
done
# every layout checked point by point (POLYAPM_MEMDIST_CHECK=all): the same choices — the pieces
# hold every element each processor's accesses touch
for x in stm1-blocked stm1-cyclic stm2-blockcyclic; do
    POLYAPM_MEMDIST_CHECK=all "$POLYAPM" apply "$TMP/$x-c.apm" memdist -o "$TMP/$x-dc.apm"
    expect_eq "lu $x: memdist's layout passes the point-by-point check" \
        "$(grep '^dist' "$TMP/$x-dc.apm")" "$(grep '^dist' "$TMP/$x-d.apm")"
done
# the boxes memdist took before pieces (n=64, procs=4): STM1 held 11102-12161 of 12288 elements
# per processor, STM2 cyclic up to 6080
"$POLYAPM" sim "$TMP/stm1-cyclic-d.apm" -D n=64 --json >"$TMP/s.json"
expect_eq "lu stm1 cyclic n=64: at most half of full replication on every processor (12161 before)" \
    "$(json "max(j['local_memory']) <= j['full_memory'] // 2" <"$TMP/s.json")" True
expect_match "lu stm1 blocked: l is the lower triangle up to the block's last row" "$(cat "$TMP/stm1-blocked-d.apm")" \
    "^dist l\(rp\) \[i = 1 \.\. rp \* b \+ b\]\[1 \.\. i\]$"
expect_match "lu stm1 blocked: a is the block's triangle plus the triangle of its columns above it" "$(cat "$TMP/stm1-blocked-d.apm")" \
    "^dist a\(rp\) \[i = rp \* b \+ 1 \.\. rp \* b \+ b\]\[1 \.\. i\] \+ \[i = 1 \.\. rp \* b \+ b - 1\]\[max\(rp \* b \+ 1, i \+ 1\) \.\. min\(rp \* b \+ b, n\)\]$"
for k in cyclic blockcyclic; do
    "$POLYAPM" sim "$TMP/stm2-$k-d.apm" -D n=64 --json >"$TMP/s.json"
    expect_eq "lu stm2 $k n=64: at most a third of full replication (6080 of 12288 before pieces)" \
        "$(json "max(j['local_memory']) <= j['full_memory'] // 3" <"$TMP/s.json")" True
done
expect_match "lu stm2 cyclic: a processor's rows of a every procs-th" "$(cat "$TMP/stm2-cyclic-d.apm")" \
    "^dist a\(rp\) \[rp \+ 1 \.\. n step procs\]"
expect_match "lu stm2 cyclic relcoord: compressed local rows" "$(cat "$TMP/stm2-cyclic-r.apm")" \
    "^dist a\(rp\) \[0 \.\. \(n - rp - 1\) / procs step procs\].* offset \[rp \+ 1\]"
expect_eq "lu syndm leaves: no min/max reduction left in a dist" \
    "$(cat "$TMP"/stm*-d.apm | grep '^dist' | grep -c '\(min\|max\)(k[0-9]* =')" 0

# jacobi1d blocked, n=40, steps=10, procs=4: b = 10, a block plus a halo of one each side
"$POLYAPM" apply jacobi1d.apm stm theta=t sigma=i -o "$TMP/j-s.apm" &&
"$POLYAPM" apply "$TMP/j-s.apm" tile kind=blocked procs=4 -o "$TMP/j-t.apm" &&
"$POLYAPM" apply "$TMP/j-t.apm" commgen -o "$TMP/j-c.apm" &&
"$POLYAPM" apply "$TMP/j-c.apm" memdist -o "$TMP/j-d.apm" &&
"$POLYAPM" apply "$TMP/j-d.apm" relcoord -o "$TMP/j-r.apm"; rc=$?
expect_eq "jacobi1d blocked: the chain to relcoord exits 0" "$rc" 0
for lv in d r; do
    "$POLYAPM" sim "$TMP/j-$lv.apm" -D n=40 -D steps=10 --against jacobi1d.apm --json >"$TMP/s.json"
    expect_eq "jacobi1d blocked $lv: verified, no violations" \
        "$(json "j['verified'] and j['violations_total'] == 0" <"$TMP/s.json")" True
    expect_eq "jacobi1d blocked $lv: every processor (0 too) holds 11 steps x (10 + 2)" \
        "$(json "j['local_memory']" <"$TMP/s.json")" "[132, 132, 132, 132]"
done

# jacobi1d cyclic (procs=4): p - 1 .. p + 1 of each virtual processor, strided in blocks of 3
"$POLYAPM" apply "$TMP/j-s.apm" tile kind=cyclic procs=4 -o "$TMP/jc-t.apm" &&
"$POLYAPM" apply "$TMP/jc-t.apm" commgen -o "$TMP/jc-c.apm" &&
"$POLYAPM" apply "$TMP/jc-c.apm" memdist -o "$TMP/jc-d.apm" &&
"$POLYAPM" apply "$TMP/jc-d.apm" relcoord -o "$TMP/jc-r.apm"; rc=$?
expect_eq "jacobi1d cyclic: the chain to relcoord exits 0" "$rc" 0
expect_match "jacobi1d cyclic: a row strided in blocks of 3" "$(cat "$TMP/jc-d.apm")" \
    "^dist a\(rp\) \[0 \.\. steps\]\[rp - 1 \.\. n step procs block min\(3, procs\)\]"
for lv in d r; do
    "$POLYAPM" sim "$TMP/jc-$lv.apm" -D n=40 -D steps=10 --against jacobi1d.apm --json >"$TMP/s.json"
    expect_eq "jacobi1d cyclic $lv: verified, at most 11 steps x (3 x 10 + 2) per processor" \
        "$(json "j['verified'] and j['violations_total'] == 0 and max(j['local_memory']) <= 11 * 32" <"$TMP/s.json")" True
done

# relcoord: a range send whose receivers' offsets differ (rp * b - 2 * b)
cat >"$TMP/shift.apm" <<'APM'
program shiftsum
level syndm
param n = 12, procs = 3, b = 4
array x[0 .. n - 1] double
dist x(rp) [rp * b - 2 * b .. rp * b + b - 1]
array y[0 .. n - 1] double
dist y(rp) [rp * b .. rp * b + b - 1]
output y

for t = 0 .. 1 seq, rp = 0 .. procs - 1 proc {
  for p = rp * b .. rp * b + b - 1 {
    if t == 0 {
      X: x[p] = p * 2 + 1
      send x[p] to rp + 1 .. min(rp + 2, procs - 1) at 1
    } else if p >= 2 * b {
      Y: y[p] = x[p] + x[p - b] + x[p - 2 * b]
    } else {
      Z: y[p] = x[p]
    }
  }
}
APM
"$POLYAPM" apply "$TMP/shift.apm" relcoord -o "$TMP/shift-r.apm"; rc=$?
expect_eq "range send to receivers with different offsets: relcoord exits 0" "$rc" 0
expect_match "range send: a loop over the receivers, each its own index" "$(tr '\n' ' ' <"$TMP/shift-r.apm")" \
    "for dest = rp \+ 1 \.\. min\(rp \+ 2, procs - 1\) \{ +send x\[p - o1\] to dest at 1 as \[p \+ 2 \* b - dest \* b\]"
"$POLYAPM" sim "$TMP/shift-r.apm" --against "$TMP/shift.apm" --json >"$TMP/s.json"
expect_eq "range send: verified against the absolute program, no violations" \
    "$(json "j['verified'] and j['violations_total'] == 0" <"$TMP/s.json")" True

# layout=box: the box around each footprint, whatever pieces would save; refused where auto's
# layout is boxes already.  Priced as it runs: an element of a memory in several pieces is found
# through them one at a time (searched work, not a stream the compiler vectorises: priced as a
# walk by a profile without searched_price), so that covariance's box leaf (cov: its rows and,
# mirrored by S8, its columns) costs less than its pieced one under a profile that prices a walk
# above a stream.
x=$TMP/stm1-blocked
"$POLYAPM" apply "$x-c.apm" memdist layout=box -o "$x-box.apm"
expect_eq "lu stm1 blocked, memdist layout=box: exit 0" "$?" 0
expect_eq "layout=box: no dist in pieces (auto's has $(grep -c '^dist .*\] + \[' "$x-d.apm"))" \
    "$(grep -c '^dist .*\] + \[' "$x-box.apm") $(grep -c '^dist .*\[[a-z0-9]* = ' "$x-box.apm")" "0 0"
"$POLYAPM" sim "$x-box.apm" -D n=64 --against lu.apm --json >"$TMP/box.json"
expect_eq "lu stm1 blocked box n=64: verified" "$(json "j['verified'] and j['violations_total'] == 0" <"$TMP/box.json")" True
mkdir -p "$XDG_CONFIG_HOME/polyapm/machines"
printf 'name lx\ntick_seconds 5.2e-10\nunit_price 0.88\nstrided_price 1.45\n' >"$XDG_CONFIG_HOME/polyapm/machines/lx"
cv=$TMP/cov
"$POLYAPM" apply polybench/covariance.apm stm theta.S1=0 sigma.S1=j theta.S2=0 sigma.S2=j theta.S3=0 sigma.S3=j \
    theta.S4=0 sigma.S4=j theta.S5=1 sigma.S5=i theta.S6=1 sigma.S6=i theta.S7=1 sigma.S7=i theta.S8=1 sigma.S8=i \
    inner=seq -o "$cv-s.apm" && "$POLYAPM" apply "$cv-s.apm" tile kind=blocked procs=2 -o "$cv-t.apm" &&
    "$POLYAPM" apply "$cv-t.apm" commgen -o "$cv-c.apm" && "$POLYAPM" apply "$cv-c.apm" memdist -o "$cv-d.apm" &&
    "$POLYAPM" apply "$cv-c.apm" memdist layout=box -o "$cv-box.apm"
expect_eq "covariance: to memdist and memdist layout=box, exit 0" "$?" 0
expect_eq "covariance: auto's cov in two pieces, box's one box" \
    "$(grep -c '^dist cov(rp) .*\] + \[' "$cv-d.apm") $(grep -c '^dist cov(rp) \[rp \* b \.\.' "$cv-box.apm")" "1 1"
for f in d box; do
    "$POLYAPM" sim "$cv-$f.apm" --against polybench/covariance.apm --machine lx --json >"$TMP/cv-$f.json"
    expect_eq "covariance $f: verified" "$(json "j['verified'] and j['violations_total'] == 0" <"$TMP/cv-$f.json")" True
done
expect_eq "covariance: the box holds more and costs less (the pieced cov's accesses are searched work)" \
    "$(python3 -c "import json; d, b = (json.load(open('$TMP/cv-%s.json' % f)) for f in ('d', 'box'))
print(sum(b['local_memory']) > sum(d['local_memory']), b['cost'] < 0.8 * d['cost'],
      d['work_classes']['strided'] + d['work_classes']['searched'] > 10 * b['work_classes']['strided'],
      d['work_classes']['searched'] > 0 == b['work_classes']['searched'])")" "True True True True"
"$POLYAPM" init polybench/covariance.apm -o "$TMP/cv.pdg" >/dev/null &&
    "$POLYAPM" -w "$TMP/cv.pdg" explore ROOT -D procs=2 --budget 100 --machine lx -q >/dev/null 2>&1
best=$("$POLYAPM" -w "$TMP/cv.pdg" tree --json | python3 -c '
import json, sys
ok = [n for n in json.load(sys.stdin)["nodes"] if n["level"] == "syndm" and n["verified"] and n["cost"] is not None]
print(min(ok, key=lambda n: (n["cost"], n["id"]))["id"] if ok else "none")')
expect_match "covariance: explore's cheapest leaf (node $best) has cov in one box" \
    "$("$POLYAPM" -w "$TMP/cv.pdg" show "$best" 2>&1 | grep '^dist cov' | grep -v '\] + \[' | grep -v '\[[a-z]* = ')" '^dist cov'
"$POLYAPM" apply jacobi1d.apm stm theta=t sigma=i -o "$TMP/j1-s.apm" && "$POLYAPM" apply "$TMP/j1-s.apm" tile procs=4 -o "$TMP/j1-t.apm" && "$POLYAPM" apply "$TMP/j1-t.apm" commgen -o "$TMP/j1-c.apm"
out=$("$POLYAPM" apply "$TMP/j1-c.apm" memdist layout=box -o "$TMP/j1-box.apm" 2>&1); rc=$?
expect_match "boxes already: layout=box refused, saying so (exit $rc)" "$rc $out" \
    "^1 .*layout=box: layout=auto indexes every array's memory directly already"
out=$("$POLYAPM" apply "$TMP/stm2-blocked-c.apm" memdist layout=box -o "$TMP/s2-box.apm" 2>&1); rc=$?
expect_match "lu stm2 blocked (l and u ragged, one piece of plain rows each): layout=box refused (exit $rc)" \
    "$rc $out" "^1 .*one piece whose rows are plain ranges"
out=$("$POLYAPM" apply "$TMP/j1-c.apm" memdist layout=pieces -o "$TMP/j1-x.apm" 2>&1); rc=$?
expect_match "layout=pieces: an error naming the values" "$rc $out" "^[12] .*layout=pieces: expected auto or box"

# verbosity of the FD leaf
"$POLYAPM" apply findiff.apm stm theta=t sigma=x,y -o "$TMP/fd-s.apm" &&
"$POLYAPM" apply "$TMP/fd-s.apm" tile block2d procs=4 -o "$TMP/fd-t.apm" &&
"$POLYAPM" apply "$TMP/fd-t.apm" commgen gencost=8 -o "$TMP/fd-c.apm" &&
"$POLYAPM" apply "$TMP/fd-c.apm" memdist -o "$TMP/fd-d.apm" &&
"$POLYAPM" apply "$TMP/fd-d.apm" relcoord -o "$TMP/fd-r.apm"; rc=$?
expect_eq "fd: the chain to relcoord exits 0" "$rc" 0
expect_eq "fd syncomm: every send goes to rp - 1, rp + 1, rp - q or rp + q" \
    "$(grep -c ' send ' "$TMP/fd-c.apm") $(grep -Ec ' send .* to rp [-+] (1|q) at ' "$TMP/fd-c.apm")" "8 8"
expect_eq "fd syncomm: no guard compares divisions (RP(p +- 1) != RP(p))" \
    "$(grep -Ec 'when .*/ b [!=]= ' "$TMP/fd-c.apm")" 0
expect_eq "fd syncomm: no guard term the block's loop bounds imply (x >= 0, y <= n - 1, ..)" \
    "$(grep -Ec 'when .*(\b[xy] >= 0\b|\bn - 1 >= [xy]\b|\bn >= [xy] \+ 1\b)' "$TMP/fd-c.apm")" 0
body() { sed -n '/^program/,$p' "$1" | grep -v '^#'; }
expect_eq "fd relcoord leaf: at most 2400 characters (3364 before the simplifier)" \
    "$(body "$TMP/fd-r.apm" | wc -c | awk '{print ($1 <= 2400)}')" 1
expect_match "fd relcoord: a receiver's offset from the sender's (rp - q: its rows b further)" \
    "$(cat "$TMP/fd-r.apm")" "to rp - q at t \+ 1 when .* as \[t\]\[x \+ b - o1\]\[y - o2\]"
"$POLYAPM" sim "$TMP/fd-r.apm" -D n=64 -D procs=16 --against findiff.apm --json >"$TMP/s.json"
expect_eq "fd relcoord n=64 procs=16: verified, no violations" \
    "$(json "j['verified'] and j['violations_total'] == 0" <"$TMP/s.json")" True
finish
