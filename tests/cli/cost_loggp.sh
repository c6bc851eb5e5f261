#!/usr/bin/env bash
# The loggp cost model (cost.h: every message of a step posted at once, one wait):
#   c_it = max(o·s_i, o + L) + o·r_i + G·(words out + in) + b(P)
# priced by hand on FD n = 8, 3 steps, block2d on a 2 x 2 grid of processors: every processor
# has two partners (one across each tile edge, no corners: a five-point stencil), sends each of
# them the 3 interior elements of its edge in steps 1 and 2 (step 3's values are not needed), and
# receives as much; so per step s = r = 2 and 6 words out, 6 in.  Then the mechanism issue 18
# wants: with a latency-dominated profile the ghost-width-2 FD leaf (an exchange every 2 steps
# with 8 partners instead of 4) is cheaper than the plain leaf under loggp (the latency paid once
# an exchange) while hockney (a startup a partner) says it is not.  Overlap hides the latency but
# not the overheads (CPU time).  The keys parse from a profile
# file, values below 0 are refused, and a profile without them is unchanged (scali2004's text).
source "$(dirname "$0")/../lib.sh"
cd "$TMP"
P() { "$POLYAPM" -w "$TMP/fd.pdg" "$@"; }
"$POLYAPM" init "$ROOT/examples/findiff.apm" -o fd.pdg >/dev/null
P apply ROOT stm theta=t sigma=x,y >/dev/null && t=$(P apply 2 tile kind=block2d procs=4 -q) && c=$(P apply "$t" commgen -q) &&
    m=$(P apply "$c" memdist -q) && leaf=$(P apply "$m" relcoord -q) || { fail "FD 2x2 chain" "did not apply"; finish; }
comm() { P sim "$leaf" -D n=8 -D steps=3 --set barrier_slope=0 --model "$1" "${@:2}" --json | json "j['comm']"; }
lg() { comm loggp --set loggp_L="$1" --set loggp_o="$2" --set loggp_G="$3"; }
expect_eq "2x2 FD: every processor sends 2 messages a step in steps 1 and 2" \
    "$(P sim "$leaf" -D n=8 -D steps=3 --json | json "j['send'], j['recv']")" "[4, 4, 4, 4] [4, 4, 4, 4]"
# L once a step (2 steps), not once a partner: hockney with t_s = L pays it twice a step
expect_eq "loggp L=1000: 2 steps x L" "$(lg 1000 0 0)" "[2000, 2000, 2000, 2000]"
expect_eq "hockney t_s=1000: 2 steps x 2 partners x t_s" "$(comm hockney --set ts=1000 --set tw=0)" "[4000, 4000, 4000, 4000]"
# o: max(2o, o + 0) + 2o = 4 a step; with L = 1000: max(2, 1001) + 2 = 1003; o = 600: max(1200, 1600) + 1200
expect_eq "loggp o=1: (2 + 2) a step" "$(lg 0 1 0)" "[8, 8, 8, 8]"
expect_eq "loggp L=1000 o=1: the first arrival o + L, then 2 receives" "$(lg 1000 1 0)" "[2006, 2006, 2006, 2006]"
expect_eq "loggp L=1000 o=600: the sends outlast the first arrival" "$(lg 1000 600 0)" "[5600, 5600, 5600, 5600]"
# G: 6 words out and 6 in a step on one link
expect_eq "loggp G=1: (6 + 6) words a step" "$(lg 0 0 1)" "[24, 24, 24, 24]"
# unset keys: L = t_s, o = 0, G = t_w
expect_eq "loggp without its keys: L = ts, G = tw" "$(comm loggp --set ts=1000 --set tw=1)" "$(lg 1000 0 1)"
# the overlap placement: the work between the sends and the recv hides the latency, not the
# CPU overheads: L = 1000, o = 990 leaves c - o·(s + r) = L - o = 10 a step to hide (the work
# there is more), so 2 x (max(1980, 1990) + 1980) - 2 x 10
ov=$(P apply "$leaf" overlap -q)
expect_eq "loggp, overlap: only the latency hides" "$(P sim "$ov" -D n=8 -D steps=3 --set barrier_slope=0 --model loggp \
    --set loggp_L=1000 --set loggp_o=990 --set loggp_G=0 --json | json "j['comm']")" "[7920, 7920, 7920, 7920]"

# collectives: hockney's butterflies with t_s = L + 2o and t_w = G (polyeval: bcast; scan; reduce)
coll() { "$POLYAPM" sim "$ROOT/examples/polyeval.apm" --set barrier_slope=0 "$@" --json | json "j['collective'], j['cost']"; }
expect_eq "loggp collectives: hockney's with t_s = L + 2o, t_w = G" \
    "$(coll --model loggp --set loggp_L=80 --set loggp_o=10 --set loggp_G=1)" "$(coll --model hockney --set ts=100 --set tw=1)"

# profile files: the keys parse; a value below 0 or not a number is refused
printf 'name lg\nbarrier_slope 0\nloggp_L 1000\nloggp_o 600\nloggp_G 0\n' >lg.prof
expect_eq "a profile file's loggp keys" "$(P sim "$leaf" -D n=8 -D steps=3 --machine "$TMP/lg.prof" --model loggp --json | json "j['comm']")" \
    "[5600, 5600, 5600, 5600]"
for bad in "loggp_o -1" "loggp_L x" "loggp_G inf"; do
    printf 'name bad\n%s\n' "$bad" >bad.prof
    out=$(P sim "$leaf" -D n=8 --machine "$TMP/bad.prof" --model loggp 2>&1); rc=$?
    expect_eq "profile '$bad': refused" "$rc" 1
    expect_match "profile '$bad': says what a value is" "$out" "expected a number( >= 0)? after '${bad%% *}'"
done
out=$(P sim "$leaf" -D n=8 --model loggp --set loggp_L=-5 2>&1); rc=$?
expect_eq "--set loggp_L=-5: usage error" "$rc" 2
expect_match "--set loggp_L=-5: says why" "$out" "loggp_L: a number >= 0"
# the other models do not read the keys (a profile with them prices as one without)
for model in polyapm hockney bsp; do
    expect_eq "$model ignores the loggp keys" "$(P sim "$leaf" -D n=8 --machine "$TMP/lg.prof" --model $model --json | json "j['cost']")" \
        "$(P sim "$leaf" -D n=8 --set barrier_slope=0 --model $model --json | json "j['cost']")"
done

# ghost zones: latency-dominated (a startup of 150 us in ticks of 1 ns, as a 50 us cluster's
# three hops), FD n = 64 on 16 processors
"$POLYAPM" init "$ROOT/examples/findiff.apm" -o g.pdg >/dev/null
G() { "$POLYAPM" -w "$TMP/g.pdg" "$@"; }
G apply ROOT stm theta=t sigma=x,y >/dev/null && t=$(G apply 2 tile kind=block2d procs=16 -q) && c=$(G apply "$t" commgen -q) &&
    m=$(G apply "$c" memdist -q) && plain=$(G apply "$m" relcoord -q) && ghost=$(G apply "$plain" ghost width=2 -q) ||
    { fail "FD 16 ghost chain" "did not apply"; finish; }
printf 'name lat\ntick_seconds 1e-9\nbarrier_slope 0\nts 150000\ntw 6.4\nloggp_L 150000\nloggp_G 6.4\n' >lat.prof
cost() { G sim "$1" -D n=64 --machine "$TMP/lat.prof" --model "$2" --json | json "j['cost']"; }
declare -A C
for leaf in plain ghost; do for model in hockney loggp; do C[$leaf.$model]=$(cost "${!leaf}" $model); done; done
echo "# FD n=64, 16 procs, 150 us startups: plain ${C[plain.hockney]} / ${C[plain.loggp]}, ghost width 2 ${C[ghost.hockney]} / ${C[ghost.loggp]} (hockney / loggp ticks)"
expect_eq "hockney: the ghost-width-2 leaf is not cheaper (8 startups every 2 steps = 4 every step)" \
    "$(python3 -c "print(${C[ghost.hockney]} >= ${C[plain.hockney]})")" True
expect_eq "loggp: the ghost-width-2 leaf is cheaper (one latency every 2 steps)" \
    "$(python3 -c "print(${C[ghost.loggp]} < ${C[plain.loggp]})")" True
finish
