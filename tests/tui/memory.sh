#!/usr/bin/env bash
# tests/tui/memory.sh — the cost pane of a syndm node shows its processors' local memories against
# full replication (as `sim` reports them): FD n=32 on 4 processors holds 22 planes of its 16 x 16
# tile plus a rim, 22 x 18 x 18 = 7128 of 22 x 32 x 32 = 22528 elements (32%); LU STM1 blocked's
# pieced memories differ per processor (a range); a syn node shows no such line.
. "$(dirname "$0")/tmux-lib.bash"
cd "$TMP" || exit 1
sed 's/^param n = 256/param n = 32/' "$ROOT/examples/findiff.apm" >fd.apm
"$POLYAPM" init fd.apm -o fd.pdg >/dev/null
P() { "$POLYAPM" -w fd.pdg "$@" >/dev/null; }
P apply ROOT stm theta=t sigma=x,y && P apply 2 tile kind=block2d procs=4 && P apply 3 commgen gencost=8 &&
    P apply 4 memdist || fail "fd chain" "did not apply"
"$POLYAPM" apply "$ROOT/examples/lu.apm" stm 'theta.L=2*(j-1)' sigma.L=i 'theta.U=2*(i-1)+1' sigma.U=j -o lu-s.apm &&
    "$POLYAPM" apply lu-s.apm tile kind=blocked procs=4 -o lu-t.apm && "$POLYAPM" apply lu-t.apm commgen -o lu-c.apm &&
    "$POLYAPM" apply lu-c.apm memdist -o lu-d.apm || fail "lu chain" "did not apply"
want=$("$POLYAPM" sim lu-d.apm --json | json "'%d..%d \\\\(%d%%' % (min(j['local_memory']), max(j['local_memory']), round(100 * max(j['local_memory']) / j['full_memory']))")
P add 1 lu-d.apm
tm new-session -d -x 100 -y 30 -s t "cd '$TMP' && '$POLYAPM' fd.pdg; sleep 60"
check open 'src findiff'
keys / memdist Enter
check "fd syndm: one local memory, its share of full replication" \
    'local memory 7128 \(32% of full\)'
keys / tile Enter
check "fd syn node selected" 'program 3 tile.* \(syn\)'
expect_eq "fd syn node: no local memory line" "$(screen | grep -c 'local memory')" 0
keys / lu Enter
check "lu node selected" 'program 6 .*\(syndm\)'
keys s C-u Enter
check "lu syndm (pieced): the range of local memories ($want)" "local memory ${want//./\\.} of full\\)" 60
finish
