#!/usr/bin/env bash
# Space-time mapping and dependence analysis through the command line: `polyapm deps`,
# `polyapm transforms`, `polyapm apply FILE stm ...` on the thesis's examples (LU STM1 and STM2,
# finite differences), the results simulated and verified against their sources, refusals
# (exit 1, naming the dependence or statement) and malformed parameters (exit 2).
source "$(dirname "$0")/../lib.sh"
cd "$ROOT/examples"

# deps: the five LU dependences of thesis Fig. 6.2, the ten FD ones
out=$("$POLYAPM" deps lu.apm); rc=$?
expect_eq "deps lu exits 0" "$rc" 0
expect_match "deps lu: 5 dependences" "$out" "^5 dependences"
expect_match "deps lu: dep 5 is l[i][i] from L to U" "$out" "5 +flow +L +U +l +l\[i\]\[i\]"
"$POLYAPM" deps findiff.apm --json >"$TMP/d.json"; rc=$?
expect_eq "deps findiff --json exits 0" "$rc" 0
expect_eq "deps findiff: 10 dependences" "$(json "len(j['dependences'])" <"$TMP/d.json")" 10
expect_eq "deps findiff: distances" \
    "$(json "sorted(set(tuple(d['distance']) for d in j['dependences']))" <"$TMP/d.json")" \
    "[(1, -1, 0), (1, 0, -1), (1, 0, 0), (1, 0, 1), (1, 1, 0)]"
out=$("$POLYAPM" deps findiff.apm -D n=6 -D steps=2); rc=$?
expect_match "deps with -D fixes the parameters" "$out" "n = 6 and steps = 2"
"$POLYAPM" deps thesis/fd-syn.apm >/dev/null 2>"$TMP/err"; rc=$?
expect_eq "deps on a syn program exits 1" "$rc" 1
expect_match "deps on a syn program says why" "$(cat "$TMP/err")" "source-level"

# transforms
out=$("$POLYAPM" transforms lu.apm); rc=$?
expect_eq "transforms lu exits 0" "$rc" 0
expect_match "transforms lu lists stm with theta" "$out" "theta\[.LABEL\]=expr"
expect_match "transforms lu: tile says where it applies" "$out" \
    "^tile +processor tiling.*\(syn -> syn\)
 +\(not applicable: applies at syn; this program is source\)$"
"$POLYAPM" apply lu.apm memdist 2>"$TMP/err" >/dev/null; rc=$?
expect_match "apply memdist to a source program: refused (exit 1) with the level it needs" "$rc $(cat "$TMP/err")" \
    "^1 .*memdist does not apply: applies at syncomm; this program is source"
out=$("$POLYAPM" transforms thesis/fd-syn.apm --json)
expect_eq "transforms on syn: stm not applicable" "$(printf '%s' "$out" | json "[t['applicable'] for t in j if t['name']=='stm'][0]")" False
expect_eq "transforms on syn --json: why stm does not apply" \
    "$(printf '%s' "$out" | json "[t['why_not'] for t in j if t['name']=='stm'][0]")" "applies at source; this program is syn"

# stm: LU STM1 and STM2, verified at two sizes
"$POLYAPM" apply lu.apm stm 'theta.L=2*(j-1)' sigma.L=i 'theta.U=2*(i-1)+1' sigma.U=j -o "$TMP/stm1.apm"; rc=$?
expect_eq "apply lu STM1 exits 0" "$rc" 0
expect_match "STM1 is a syn program" "$(cat "$TMP/stm1.apm")" "^level syn"
expect_match "STM1 step nest" "$(cat "$TMP/stm1.apm")" "for t = 0 \.\. 2 \* n - 2 seq, p = \(t \+ 1\) / 2 \+ 1 \.\. n par"
"$POLYAPM" apply lu.apm stm theta=i+j-2 sigma=i -o "$TMP/stm2.apm"; rc=$?
expect_eq "apply lu STM2 exits 0" "$rc" 0
for f in stm1 stm2; do
    for n in 8 24; do
        "$POLYAPM" sim "$TMP/$f.apm" -D n=$n --against lu.apm --json >"$TMP/s.json" 2>"$TMP/err"
        expect_eq "lu $f n=$n verified" "$(json "j['verified']" <"$TMP/s.json")" True
    done
done
"$POLYAPM" check "$TMP/stm1.apm" >/dev/null; expect_eq "STM1 output checks" "$?" 0
"$POLYAPM" fmt --check "$TMP/stm1.apm" >/dev/null; expect_eq "STM1 output is canonical" "$?" 0

# FD: theta=t, one processor per row, the columns in an inner sequential loop
"$POLYAPM" apply findiff.apm stm theta=t sigma=x inner=seq -o "$TMP/fd.apm"; rc=$?
expect_eq "apply findiff stm exits 0" "$rc" 0
expect_match "fd syn keeps the cost annotations" "$(cat "$TMP/fd.apm")" "cost 7 \{"
"$POLYAPM" sim "$TMP/fd.apm" -D n=12 -D steps=4 --against findiff.apm --json >"$TMP/s.json"
expect_eq "fd stm verified" "$(json "j['verified']" <"$TMP/s.json")" True
expect_eq "fd stm keeps the aggregate work" "$(json "int(j['aggregate_work'])" <"$TMP/s.json")" \
    "$("$POLYAPM" sim findiff.apm -D n=12 -D steps=4 --json | json "int(j['aggregate_work'])")"

# FD with the thesis's allocation: one virtual processor per element, x = p mod n, y = p div n:
# the result is the hand-written examples/thesis/fd-syn.apm (up to its name and comments)
"$POLYAPM" apply findiff.apm stm theta=t sigma=y,x -o "$TMP/fd2.apm"; rc=$?
expect_eq "apply findiff stm sigma=y,x exits 0" "$rc" 0
strip() { "$POLYAPM" fmt "$1" | grep -v '^#' | grep -v '^program' | grep -v '^reference'; }
expect_eq "stm theta=t sigma=y,x reproduces thesis/fd-syn.apm" "$(strip "$TMP/fd2.apm")" "$(strip thesis/fd-syn.apm)"
"$POLYAPM" sim "$TMP/fd2.apm" -D n=10 -D steps=3 --against findiff.apm --json >"$TMP/s.json"
expect_eq "fd sigma=y,x verified" "$(json "j['verified']" <"$TMP/s.json")" True

# stm auto
"$POLYAPM" apply lu.apm stm auto -D n=16 -o "$TMP/auto.apm" 2>"$TMP/err"; rc=$?
expect_eq "stm auto exits 0" "$rc" 0
expect_match "stm auto lists STM1" "$(cat "$TMP/err")" "steps 31 +procs 16 +stm theta.L=2\*j-2 sigma.L=i theta.U=2\*i-1 sigma.U=j"
expect_match "stm auto lists STM2" "$(cat "$TMP/err")" "steps 31 +procs 16 +stm theta=i\+j-2 sigma=i"
"$POLYAPM" sim "$TMP/auto.apm" -D n=10 --against lu.apm --json >"$TMP/s.json"
expect_eq "stm auto result verified" "$(json "j['verified']" <"$TMP/s.json")" True

# a program with a scalar statement outside loops, a strided loop, a let, a derived parameter
# and a data-dependent condition (its reads are reads of the statements under it; split
# statements keep it as a guard): every proposal of stm auto verifies
cat >"$TMP/odd.apm" <<'APM'
program odd
level source
param n = 10, m = n - 1
array a[0 .. n] double
array s double
array c[0 .. n][0 .. n] double
init a[i] = i
output c
output s

S0: s = 1
for i = 1 .. m step 2 {
  let k = i + 1
  A: a[k] = a[k - 1] * 2
}
for i = 0 .. n, j = 0 .. n {
  if a[i] > 3 {
    C: c[i][j] = a[i] + j
  } else {
    D: c[i][j] = s
  }
}
APM
out=$("$POLYAPM" deps "$TMP/odd.apm")
expect_match "odd: the condition's read is a dependence" "$out" "A +D +a +a\[i\] \(if, line 17\)"
expect_match "odd: the strided loop's domain is exact" "$out" "\(1 \+ i\) mod 2 = 0"
for k in 1 2 3 4 5; do
    "$POLYAPM" apply "$TMP/odd.apm" stm auto pick=$k -o "$TMP/odd-$k.apm" 2>/dev/null; rc=$?
    expect_eq "odd stm auto pick=$k exits 0" "$rc" 0
    "$POLYAPM" sim "$TMP/odd-$k.apm" --against "$TMP/odd.apm" --json >"$TMP/s.json"
    expect_eq "odd stm auto pick=$k verified" "$(json "j['verified'] and j['violations_total'] == 0" <"$TMP/s.json")" True
done

# refusals: exit 1 with the dependence; usage: exit 2
"$POLYAPM" apply lu.apm stm theta.L=j sigma.L=i 'theta.U=2*(i-1)+1' sigma.U=j -o "$TMP/no.apm" 2>"$TMP/err"; rc=$?
expect_eq "illegal theta_L = j exits 1" "$rc" 1
expect_match "illegal schedule names the dependence" "$(cat "$TMP/err")" "dependence 2 \(flow, U -> L through u\[k\]\[j\]\) does not go forward"
expect_eq "refused: no output written" "$([ -e "$TMP/no.apm" ] && echo yes || echo no)" no
"$POLYAPM" apply lu.apm stm 'theta.L=2*(j-1)' sigma.L=1 'theta.U=2*(i-1)+1' sigma.U=j 2>"$TMP/err" >/dev/null; rc=$?
expect_eq "non-injective allocation exits 1" "$rc" 1
expect_match "non-injective allocation explained" "$(cat "$TMP/err")" "not injective"
"$POLYAPM" apply lu.apm stm theta='i*j' sigma=i 2>"$TMP/err" >/dev/null; rc=$?
expect_eq "non-affine theta exits 2" "$rc" 2
expect_match "non-affine theta explained" "$(cat "$TMP/err")" "not affine"
"$POLYAPM" apply lu.apm stm theta.X=i sigma=i 2>"$TMP/err" >/dev/null; rc=$?
expect_eq "unknown label exits 2" "$rc" 2
expect_match "unknown label explained" "$(cat "$TMP/err")" "unknown statement label 'X'"
"$POLYAPM" apply lu.apm stm 'theta=(i' sigma=i 2>"$TMP/err" >/dev/null; rc=$?
expect_eq "bad syntax exits 2" "$rc" 2
"$POLYAPM" apply lu.apm nosuch 2>/dev/null >/dev/null; rc=$?
expect_eq "unknown transform exits 2" "$rc" 2
"$POLYAPM" apply "$TMP/stm1.apm" stm theta=t sigma=p 2>"$TMP/err" >/dev/null; rc=$?
expect_eq "stm on a syn program exits 1" "$rc" 1
finish
