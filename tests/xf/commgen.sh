#!/usr/bin/env bash
# Communication generation through the command line: the FD chain stm -> tile block2d ->
# commgen gencost=8 (the thesis's SynCommAPM, Fig. 5.5) and LU's four leaves (STM1/STM2 x
# blocked/cyclic, procs=4), simulated: verified, no wrong messages, and the FD cost against the
# thesis's 7,236,516.  Expected difference: the thesis also sent on the last step, where nobody
# reads (its 42 sends per processor; ours 40): 2 x 127 elements sent and received at
# 1.2046961 + 3.3831080 ticks each = 1165.30, so 7,235,350.5.
source "$(dirname "$0")/../lib.sh"
cd "$ROOT/examples"

"$POLYAPM" apply findiff.apm stm theta=t sigma=x,y -o "$TMP/syn.apm" &&
"$POLYAPM" apply "$TMP/syn.apm" tile block2d procs=4 -o "$TMP/tiled.apm" &&
"$POLYAPM" apply "$TMP/tiled.apm" commgen gencost=8 -o "$TMP/comm.apm"; rc=$?
expect_eq "fd stm + tile + commgen exit 0" "$rc" 0
expect_match "fd syncomm level" "$(cat "$TMP/comm.apm")" "^level syncomm"
expect_match "fd syncomm: generation cost added (13 + 8)" "$(cat "$TMP/comm.apm")" "else cost 21 \{"
"$POLYAPM" sim "$TMP/comm.apm" -D n=256 -D procs=4 --against findiff.apm --json >"$TMP/s.json"
expect_eq "fd syncomm n=256 procs=4 verified" "$(json "j['verified']" <"$TMP/s.json")" True
expect_eq "fd syncomm no violations" "$(json "j['violations_total']" <"$TMP/s.json")" 0
expect_eq "fd syncomm cost 7235350.5 (thesis 7236516 - 1165.3)" "$(json "abs(j['cost'] - 7235350.46) < 1" <"$TMP/s.json")" True
expect_eq "fd syncomm 40 sends per processor (thesis 42: it also sends on the last step)" "$(json "j['send']" <"$TMP/s.json")" "[40, 40, 40, 40]"
expect_eq "fd syncomm work per processor 7193214 (the thesis's)" "$(json "sorted(set(int(w) for w in j['work']))" <"$TMP/s.json")" "[7193214]"
for np in "64 16" "96 4" "128 16"; do
    set -- $np
    "$POLYAPM" sim "$TMP/comm.apm" -D n=$1 -D procs=$2 --against findiff.apm --json >"$TMP/s.json"
    expect_eq "fd syncomm n=$1 procs=$2 verified" "$(json "j['verified'] and j['violations_total'] == 0" <"$TMP/s.json")" True
done

"$POLYAPM" apply lu.apm stm 'theta.L=2*(j-1)' sigma.L=i 'theta.U=2*(i-1)+1' sigma.U=j -o "$TMP/stm1.apm"
"$POLYAPM" apply lu.apm stm theta=i+j-2 sigma=i -o "$TMP/stm2.apm"
for m in stm1 stm2; do
    for k in blocked cyclic; do
        "$POLYAPM" apply "$TMP/$m.apm" tile kind=$k procs=4 -o "$TMP/$m-$k.apm" &&
        "$POLYAPM" apply "$TMP/$m-$k.apm" commgen -o "$TMP/$m-$k-comm.apm"; rc=$?
        expect_eq "lu $m $k commgen exits 0" "$rc" 0
        "$POLYAPM" sim "$TMP/$m-$k-comm.apm" -D n=64 --against lu.apm --json >"$TMP/$m-$k.json"
        expect_eq "lu $m $k syncomm n=64 verified, no violations" \
            "$(json "j['verified'] and j['violations_total'] == 0" <"$TMP/$m-$k.json")" True
    done
    expect_eq "lu $m syncomm: cyclic costs less than blocked" \
        "$(python3 -c "import json; b=json.load(open('$TMP/$m-blocked.json'))['cost']; c=json.load(open('$TMP/$m-cyclic.json'))['cost']; print(c < b)")" True
done
expect_match "lu STM1 blocked: L's dependences 3 and 5 merged into one send" \
    "$(grep -c 'send l\[i\]\[j\]' "$TMP/stm1-blocked-comm.apm")" "^1$"
"$POLYAPM" apply lu.apm commgen 2>/dev/null >/dev/null; rc=$?
expect_eq "commgen on a source program exits 1" "$rc" 1
"$POLYAPM" apply "$TMP/stm1.apm" commgen gencost=x 2>/dev/null >/dev/null; rc=$?
expect_eq "commgen gencost=x exits 2" "$rc" 2
# memdist: the SynDMAPM, tile plus halo (the dist line of examples/thesis/fd-syndm.apm); the
# costs are the syncomm ones (memory costs nothing); against the thesis's Fig. 5.14 they differ
# by the last step's sends, which the thesis made and nobody reads.
"$POLYAPM" apply "$TMP/comm.apm" memdist -o "$TMP/dm.apm"; rc=$?
expect_eq "fd memdist exits 0" "$rc" 0
expect_match "fd memdist: the thesis's tile plus halo" "$(cat "$TMP/dm.apm")" \
    "dist a\(rp\) \[0 \.\. steps\]\[rp / q \* b - 1 \.\. rp / q \* b \+ b\]\[rp % q \* b - 1 \.\. rp % q \* b \+ b\]"
while read -r n procs thesis ours; do
    "$POLYAPM" sim "$TMP/dm.apm" -D n=$n -D procs=$procs --against findiff.apm --json >"$TMP/s.json"
    expect_eq "fd syndm n=$n procs=$procs verified, no missing message" \
        "$(json "j['verified'] and j['violations_total'] == 0" <"$TMP/s.json")" True
    expect_eq "fd syndm n=$n procs=$procs cost $ours (thesis $thesis, minus its last-step sends)" \
        "$(json "abs(j['cost'] - $ours) < 1" <"$TMP/s.json")" True
done <<'FIG'
256 16 1925151 1923977.6
64 4 468449 468165.3
64 16 213214 212920.5
FIG
# relcoord: local indices from 0, messages carry the receiver's index; same values, same cost
"$POLYAPM" apply "$TMP/dm.apm" relcoord -o "$TMP/rel.apm"; rc=$?
expect_eq "fd relcoord exits 0" "$rc" 0
expect_match "fd relcoord: offsets" "$(cat "$TMP/rel.apm")" "offset \[0\]\[rp / q \* b - 1\]\[rp % q \* b - 1\]"
expect_match "fd relcoord: sends carry the receiver's index" "$(cat "$TMP/rel.apm")" " as \[t\]"
for np in "256 4" "64 16"; do
    set -- $np
    "$POLYAPM" sim "$TMP/rel.apm" -D n=$1 -D procs=$2 --against findiff.apm --json >"$TMP/s.json"
    expect_eq "fd relcoord n=$1 procs=$2 verified, no violations" \
        "$(json "j['verified'] and j['violations_total'] == 0" <"$TMP/s.json")" True
done
"$POLYAPM" apply "$TMP/rel.apm" relcoord 2>/dev/null >/dev/null; rc=$?
expect_eq "relcoord twice exits 1" "$rc" 1

for m in stm1 stm2; do
    for k in blocked cyclic; do
        "$POLYAPM" apply "$TMP/$m-$k-comm.apm" memdist -o "$TMP/$m-$k-dm.apm"; rc=$?
        expect_eq "lu $m $k memdist exits 0" "$rc" 0
        "$POLYAPM" sim "$TMP/$m-$k-dm.apm" -D n=64 --against lu.apm --json >"$TMP/s.json"
        expect_eq "lu $m $k syndm n=64 verified, no missing message" \
            "$(json "j['verified'] and j['violations_total'] == 0" <"$TMP/s.json")" True
    done
done
# LU's broadcasts go to ranges of processors: relcoord (once refused here) gives the leaf's plain
# arrays local indices (STM2 blocked: a; l and u are pieced and stay absolute; tests/xf/memdist.sh
# covers receivers with different offsets); same values, same cost.  STM1's arrays are all
# pieced: relcoord refuses it.
"$POLYAPM" apply "$TMP/stm2-blocked-dm.apm" relcoord -o "$TMP/stm2-blocked-rel.apm"; rc=$?
expect_eq "lu relcoord exits 0" "$rc" 0
expect_match "lu relcoord: local coordinates" "$(cat "$TMP/stm2-blocked-rel.apm")" "^dist a\(rp\) \[0 \.\. .*offset"
"$POLYAPM" apply "$TMP/stm1-blocked-dm.apm" relcoord -o "$TMP/stm1-blocked-rel.apm" 2>"$TMP/err"; rc=$?
expect_match "lu stm1 relcoord: refused, every array pieced" "$rc $(cat "$TMP/err")" "^1 .*pieced local memories stay in absolute"
for lv in dm rel; do
    "$POLYAPM" sim "$TMP/stm2-blocked-$lv.apm" -D n=24 --against lu.apm --json >"$TMP/lu-$lv.json"
done
expect_eq "lu relcoord n=24 verified, no violations" \
    "$(json "j['verified'] and j['violations_total'] == 0" <"$TMP/lu-rel.json")" True
expect_eq "lu relcoord n=24: the cost of the syndm node" \
    "$(json "round(j['cost'], 3)" <"$TMP/lu-rel.json")" "$(json "round(j['cost'], 3)" <"$TMP/lu-dm.json")"

# A value a loop accumulates into is sent once the loop ends (commgen_hoist.c): its sends stand
# after the loop, their guards free of its variable, where they would otherwise stand in the
# loop guarded by its last iteration (k == p), tested on every iteration.  The same messages
# and values as that form (written back by hand below), for less work.
cat >"$TMP/acc.apm" <<'EOF'
program acc
level source
param n = 10
array s[0 .. n - 1][0 .. n - 1] double
init s[i][j] = (i * 3 + j) % 5
output s

for t = 1 .. n - 1, p = 0 .. n - 1 {
  for k = 0 .. p {
    S: s[t][p] = s[t][p] + s[t - 1][k] * 0.5
  }
}
EOF
# the pinned form: the sends after the k loop back in it, on its last iteration
pinned() {   # IN OUT
    python3 - "$1" "$2" <<'PY'
import sys
lines = open(sys.argv[1]).read().split('\n')
out, i = [], 0
while i < len(lines):
    out.append(lines[i])
    if lines[i].strip().startswith('for k ='):
        close = lines[i][:len(lines[i]) - len(lines[i].lstrip())] + '}'
        i += 1
        while lines[i] != close: out.append(lines[i]); i += 1
        j = i + 1
        while lines[j].strip().startswith('send '):
            out.append('  ' + lines[j].replace(' && p >= 0', ' && k == p')); j += 1
        out.append(lines[i])
        i = j
        continue
    i += 1
open(sys.argv[2], 'w').write('\n'.join(out))
PY
}
kloop() { awk '/^    for k =/ { on = 1 } on { print } on && /^    }$/ { exit }' "$1"; }
"$POLYAPM" apply "$TMP/acc.apm" stm theta=t sigma=p inner=seq -o "$TMP/acc-syn.apm"
for k in blocked cyclic; do
    "$POLYAPM" apply "$TMP/acc-syn.apm" tile kind=$k procs=2 -o "$TMP/acc-$k.apm" &&
    "$POLYAPM" apply "$TMP/acc-$k.apm" commgen -o "$TMP/acc-$k-comm.apm"; rc=$?
    expect_eq "acc $k commgen exits 0" "$rc" 0
    pinned "$TMP/acc-$k-comm.apm" "$TMP/acc-$k-pinned.apm"
    nsend=$(grep -c ' send ' "$TMP/acc-$k-comm.apm")
    expect_eq "acc $k: no send in the k loop" "$(kloop "$TMP/acc-$k-comm.apm" | grep -c ' send ')" 0
    expect_eq "acc $k: $nsend sends after it, guarded by the loop running (p >= 0), k gone" \
        "$(grep ' send ' "$TMP/acc-$k-comm.apm" | grep -v '\bk\b' | grep -c 'p >= 0')" "$nsend"
    expect_eq "acc $k: the pinned form has them in the loop" \
        "$(kloop "$TMP/acc-$k-pinned.apm" | grep -c ' send .*k == p')" "$nsend"
    for np in "10 2" "13 3"; do
        set -- $np
        for f in comm pinned; do
            "$POLYAPM" sim "$TMP/acc-$k-$f.apm" -D n=$1 -D procs=$2 --against "$TMP/acc.apm" --json >"$TMP/acc-$f.json"
        done
        expect_eq "acc $k n=$1 procs=$2: verified, no violations, the pinned form's messages and checksum" \
            "$(json "[j['verified'] and j['violations_total'] == 0, j['send'], j['recv'], j['checksum']]" <"$TMP/acc-comm.json")" \
            "$(json "[j['verified'], j['send'], j['recv'], j['checksum']]" <"$TMP/acc-pinned.json")"
        expect_eq "acc $k n=$1 procs=$2: less work and cost than the pinned form" \
            "$(python3 -c "import json; a=json.load(open('$TMP/acc-comm.json')); b=json.load(open('$TMP/acc-pinned.json')); print(a['aggregate_work'] < b['aggregate_work'] and a['cost'] < b['cost'])")" True
    done
done
finish
