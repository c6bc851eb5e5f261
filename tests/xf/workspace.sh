#!/usr/bin/env bash
# The parallelising chain through the command line on fresh workspaces (issue: transformations
# that parallelise).  Every `apply NODE` creates the child, simulates it against the root and
# stores the result.
#  - FD: stm -> tile block2d -> commgen gencost=8 -> memdist -> relcoord.  With lastsend=1 the
#    costs are the thesis's (Fig. 5.14, ±1: the thesis summed in single precision).  Without it
#    (the default) the last step sends nothing, since nobody reads those values: the cost is the
#    thesis's less one step of the busiest processor's messages, words x (1.2046961 + 3.3831080)
#    = 254 x 4.5878041 = 1165.30 at 4 processors (n=256), 64 x 4.5878041 = 293.62 at 16 (n=64),
#    256 x 4.5878041 = 1174.48 at 16 (n=256: an interior tile sends 64 to each of 4 neighbours).
#  - LU: STM1 and STM2 x blocked/cyclic, procs=4: four verified syndm leaves at n=64 and n=512;
#    from the tiled level on, cyclic costs less than blocked for both mappings.
#  - matmul and jacobi1d reach verified syndm leaves.
source "$(dirname "$0")/../lib.sh"
cd "$TMP"
P() { "$POLYAPM" -w "$WS" "$@"; }
cost() { P sim "$1" "${@:2}" --json | json "j['cost']"; }
verified() { P sim "$1" "${@:2}" --json | json "j['verified']"; }
# chain SRC.apm STM-ARGS TILE-ARGS COMMGEN-ARGS: a workspace WS with nodes 1..5 (6 = relcoord)
chain() {
    WS=$TMP/$(basename "$1" .apm)-$RANDOM.pdg
    "$POLYAPM" init "$1" -o "$WS" >/dev/null || return 1
    P apply ROOT stm $2 >/dev/null && P apply 2 tile $3 >/dev/null &&
        P apply 3 commgen $4 >/dev/null && P apply 4 memdist >/dev/null
}

EX=$ROOT/examples

while read -r n procs want delta; do
    sed "s/^param n = 256/param n = $n/" "$EX/findiff.apm" >fd$n.apm
    for last in 1 0; do
        if chain fd$n.apm "theta=t sigma=x,y" "kind=block2d procs=$procs" "gencost=8 lastsend=$last"; then
            ok "fd n=$n procs=$procs lastsend=$last: the chain applies"
        else
            fail "fd n=$n procs=$procs lastsend=$last: the chain applies" "see above"; continue
        fi
        P apply 5 relcoord >/dev/null
        expect_eq "fd n=$n procs=$procs lastsend=$last: 6 nodes" "$(P tree --json | json "len(j['nodes'])")" 6
        for node in 4 5 6; do
            c=$(cost $node)
            if [ $last = 1 ]; then
                expect_eq "fd n=$n procs=$procs node $node: thesis cost $want (±1)" \
                    "$(python3 -c "print(abs(round($c) - $want) <= 1 or $c)")" True
            else
                expect_eq "fd n=$n procs=$procs node $node: thesis cost less one step of sends ($delta)" \
                    "$(python3 -c "print(abs($want - $c - $delta) <= 1.2 or $c)")" True
            fi
            expect_eq "fd n=$n procs=$procs lastsend=$last node $node verified" "$(verified $node)" True
        done
    done
done <<'TABLE'
256 4 7236516 1165.30
64 4 468449 284.44
64 16 213214 293.62
256 16 1925151 1174.48
TABLE
# the messages per step at 4 processors: 127 elements to each of 2 neighbours
WS=$TMP/fd256-msgs.pdg; chain fd256.apm "theta=t sigma=x,y" "kind=block2d procs=4" "gencost=8"
steps=$(P sim 5 --trace | awk '$1 ~ /^[0-9]+$/ && NF == 5 {print $5}' | sort -n | uniq -c | tr -s ' \n' '  ')
expect_eq "fd n=256 procs=4: 1016 messages a step (4 processors x 2 neighbours x 127) on 20 steps, none on the last" \
    "$steps" " 1 0 20 1016 "
# memdist's footprint for FD: the tile plus a rim of 1, every time plane: 22 x 130 x 130
expect_eq "fd n=256 procs=4 memdist: local memory 22 x 130 x 130 per processor" \
    "$(P sim 5 --json | json "j['local_memory']")" "[371800, 371800, 371800, 371800]"

# LU: the four leaves
sed 's/^param n = 64$/param n = 64, procs = 4/' "$EX/lu.apm" >lu.apm
declare -A lucost
for m in "stm1:theta.L=2*(j-1) sigma.L=i theta.U=2*(i-1)+1 sigma.U=j" "stm2:theta=i+j-2 sigma=i"; do
    for k in blocked cyclic; do
        name=${m%%:*}-$k
        if chain lu.apm "${m#*:}" "kind=$k procs=4" ""; then ok "lu $name: the chain applies"
        else fail "lu $name: the chain applies" "see above"; continue; fi
        for node in 3 4 5; do lucost[$name-$node]=$(cost $node); done
        expect_eq "lu $name n=64 syndm leaf verified" "$(verified 5)" True
        expect_eq "lu $name: local memory per processor below full replication" \
            "$(P sim 5 --json | json "max(j['local_memory']) < j['full_memory']")" True
        expect_eq "lu $name n=512 syndm leaf verified" "$(verified 5 -D n=512)" True
    done
done
for s in stm1 stm2; do
    for node in 3 4 5; do
        b=${lucost[$s-blocked-$node]:-nan}; c=${lucost[$s-cyclic-$node]:-nan}
        expect_eq "lu $s node $node: cyclic ($c) costs less than blocked ($b)" \
            "$(python3 -c "print($c < $b)")" True
    done
done

# matmul and jacobi1d
sed 's/^param n = 64$/param n = 16/' "$EX/matmul.apm" >mm.apm
chain mm.apm "theta=i sigma=j" "kind=blocked procs=4" "" && ok "matmul: the chain applies" || fail "matmul: the chain applies" "see above"
expect_eq "matmul syndm leaf verified" "$(verified 5)" True
sed 's/^param n = 1000, steps = 100$/param n = 40, steps = 10/' "$EX/jacobi1d.apm" >jac.apm
chain jac.apm "theta=t sigma=i" "kind=blocked procs=4" "" && ok "jacobi1d: the chain applies" || fail "jacobi1d: the chain applies" "see above"
expect_eq "jacobi1d syndm leaf verified" "$(verified 5)" True

# refusals leave the workspace as it was
before=$(P tree --json | json "len(j['nodes'])")
P apply ROOT stm theta=i sigma=t >/dev/null 2>"$TMP/err"; rc=$?
expect_eq "illegal schedule refused: exit 1" "$rc" 1
expect_match "illegal schedule refused: names the dependence" "$(cat "$TMP/err")" "dependence [0-9]+ \(flow"
P apply ROOT stm theta=t*t >/dev/null 2>&1; expect_eq "non-affine theta: usage exit 2" "$?" 2
P apply ROOT stm theta.NOPE=t >/dev/null 2>&1; expect_eq "unknown statement label: usage exit 2" "$?" 2
P apply 2 tile kind=blocked procs=0 >/dev/null 2>&1; expect_eq "procs=0: usage exit 2" "$?" 2
expect_eq "refusals wrote nothing" "$(P tree --json | json "len(j['nodes'])")" "$before"
finish
