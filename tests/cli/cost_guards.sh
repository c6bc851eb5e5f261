#!/usr/bin/env bash
# The send guards priced apart (cost.h `guards`; issue 16): jacobi-2d's 2t / 2t+1 schedule,
# tiled blocked on 2 processors, then commgen — each element runs four send guards.  With
# guard_price 0 its work is the tiled node's, exactly (commgen adds nothing else per element);
# with 1 (scali2004, the thesis's rule) it is dearer.  scali2004's figures stay as they were
# (tests/unit/test_sim's thesis figures and tests/cli/thesis_fd.sh).
source "$(dirname "$0")/../lib.sh"
cd "$TMP"
P() { "$POLYAPM" -w "$TMP/j.pdg" "$@"; }
"$POLYAPM" init "$ROOT/examples/polybench/jacobi-2d.apm" -o j.pdg >/dev/null
P apply ROOT stm 'theta.S1=2*t' sigma.S1=i 'theta.S2=2*t+1' sigma.S2=i inner=seq >/dev/null &&
    P apply 2 tile kind=blocked procs=2 >/dev/null && P apply 3 commgen >/dev/null && P apply 4 memdist >/dev/null ||
    fail "jacobi-2d 2t chain" "did not apply"
D=(-D tsteps=5 -D n=40)
tile=$(P sim 3 "${D[@]}" --json | json "j['work']")
P sim 5 "${D[@]}" --json >one.json
P sim 5 "${D[@]}" --set guard_price=0 --json >zero.json
expect_eq "guard_price 0: the commgen leaf's work is the tiled node's" "$(json "j['work']" <zero.json)" "$tile"
expect_eq "guard_price 1: the guards are work, the leaf dearer" "$(python3 -c "import json
a, b = json.load(open('one.json')), json.load(open('zero.json'))
print(all(x > y for x, y in zip(a['work'], b['work'])) and a['cost'] > b['cost'])")" True
printf '# jacobi-2d 2t blocked leaf at tsteps=5 n=40: cost %s (guard_price 1), %s (0)\n' "$(json "j['cost']" <one.json)" \
    "$(json "j['cost']" <zero.json)"
# the key in a profile file
printf 'name g0\nguard_price 0\n' >g0.prof
expect_eq "a profile file's guard_price" "$(P sim 5 "${D[@]}" --machine "$TMP/g0.prof" --json | json "j['work']")" \
    "$(json "j['work']" <zero.json)"
finish
