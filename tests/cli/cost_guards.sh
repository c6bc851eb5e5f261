#!/usr/bin/env bash
# The send guards priced apart (cost.h `guards`; issue 16): jacobi-2d's 2t / 2t+1 schedule,
# tiled blocked on 2 processors, then commgen — each element runs four send guards.  With
# guard_price 0 its work is the tiled node's, exactly (commgen adds nothing else per element);
# with 1 (scali2004, the thesis's rule) it is dearer.  scali2004's figures stay as they were
# (tests/unit/test_sim's thesis figures and tests/cli/thesis_fd.sh).  The price applies where the
# export takes the halo path (jacobi's): LU's rows leaf goes by multicast records, which test a
# guard per element, and costs the same under guard_price 0 as under 1.  The barrier and the
# price of a word likewise (at the end).
source "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/polybench/kernels.inc"   # pb_dir
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
expect_eq "the jacobi leaf's export takes the halo path" \
    "$(P export 5 "${D[@]}" -o "$TMP/jexp" 2>&1 >/dev/null; grep -c 'a static halo pattern' "$TMP/jexp/README.md")" 1
# LU rows cyclic (multicast records): the row of U goes out from the loop over j where 2p == t + 1,
# one row of many; the export tests that once before the loop (versioned), so guard_price holds
"$POLYAPM" init "$ROOT/examples/polybench/lu.apm" -o lu.pdg >/dev/null
L() { "$POLYAPM" -w "$TMP/lu.pdg" "$@"; }
L apply ROOT stm theta.S1=2*k+1 sigma.S1=i theta.S2=2*j sigma.S2=i theta.S3=2*k+1 sigma.S3=i inner=seq >/dev/null &&
    L apply 2 tile kind=cyclic procs=2 >/dev/null && L apply 3 commgen >/dev/null && L apply 4 memdist >/dev/null ||
    fail "lu rows chain" "did not apply"
expect_eq "lu rows leaf: not the halo path" "$(L export 5 -o "$TMP/lexp" 2>&1 >/dev/null; grep -c 'a static halo pattern' "$TMP/lexp/README.md")" 0
expect_eq "lu rows leaf (records, its guards tested before their loops): guard_price 0 is cheaper" \
    "$(python3 -c "print($(L sim 5 --set guard_price=0 --json | json "j['cost']") < $(L sim 5 --json | json "j['cost']"))")" True
expect_match "lu rows leaf: its export versions the loop of the sends" \
    "$(cat "$TMP"/lexp/*_syndm.c)" 'the sends. conditions do not change in the loop over j'
# LU columns cyclic: the sends' loop is versioned on a condition on t that holds at most steps
# (the export still tests the guards per element there): guard_price 0 costs what 1 does
"$POLYAPM" init "$ROOT/examples/polybench/lu.apm" -o luc.pdg >/dev/null
C() { "$POLYAPM" -w "$TMP/luc.pdg" "$@"; }
C apply ROOT stm theta.S1=2*k+1 sigma.S1=j theta.S2=2*j sigma.S2=j theta.S3=2*k+1 sigma.S3=j inner=seq >/dev/null &&
    C apply 2 tile kind=cyclic procs=2 >/dev/null && C apply 3 commgen >/dev/null && C apply 4 memdist >/dev/null ||
    fail "lu columns chain" "did not apply"
expect_eq "lu columns leaf (records, guards per element): guard_price 0 costs what 1 does" \
    "$(C sim 5 --set guard_price=0 --json | json "j['cost']")" "$(C sim 5 --json | json "j['cost']")"
# a record-path program whose guard changes in the loop (x == rp * 4): priced at 1 whatever
sed 's/to rp - 1 at/to rp - 1 + t - t at/; s/to rp + 1 at/to rp + 1 + t - t at/' "$ROOT/tests/sim/jac-dm.apm" >"$TMP/jdyn.apm"
sed -i "s|^reference .*|reference \"$ROOT/tests/sim/jac-src.apm\"|" "$TMP/jdyn.apm"
expect_eq "records, a guard that changes in its loop: guard_price 0 costs what 1 does" \
    "$("$POLYAPM" sim "$TMP/jdyn.apm" --set guard_price=0 --json | json "j['cost']")" "$("$POLYAPM" sim "$TMP/jdyn.apm" --json | json "j['cost']")"
expect_eq "lu rows commgen node (syncomm, before the export's choice): guard_price 0 is cheaper" \
    "$(python3 -c "print($(L sim 4 --set guard_price=0 --json | json "j['cost']") < $(L sim 4 --json | json "j['cost']"))")" True
# The barrier, priced by the export's path too: a calibrated profile (sync_on_messages 1) measured
# it on the record exchange's collectives; the halo path's steps exchange with their partners
# alone, so the jacobi leaf pays none of it, and the records program pays it as before.  Under
# the thesis's rule (sync_on_messages 0) every step pays it, halo or not.
B=(--set sync_on_messages=1 --set barrier_slope=50)
expect_eq "halo path, calibrated profile: no barrier" \
    "$(P sim 5 "${D[@]}" "${B[@]}" --json | json "j['cost']")" "$(P sim 5 "${D[@]}" --set sync_on_messages=1 --set barrier_slope=0 --json | json "j['cost']")"
expect_eq "halo path, the thesis's rule: the barrier is paid" \
    "$(python3 -c "print($(P sim 5 "${D[@]}" --set sync_on_messages=0 --set barrier_slope=50 --json | json "j['cost']") > $(P sim 5 "${D[@]}" --set sync_on_messages=0 --set barrier_slope=0 --json | json "j['cost']"))")" True
expect_eq "record path, calibrated profile: the barrier is paid" \
    "$(python3 -c "print($("$POLYAPM" sim "$TMP/jdyn.apm" "${B[@]}" --json | json "j['cost']") > $("$POLYAPM" sim "$TMP/jdyn.apm" --set sync_on_messages=1 --set barrier_slope=0 --json | json "j['cost']"))")" True
# The words, priced by the export's path: a calibrated profile's normsent and normrcvd are an
# element of the record exchange; the halo path sends runs of doubles, a word at loggp's G.
W=(--set sync_on_messages=1 --set loggp_G=3)
halo_g3=$(P sim 5 "${D[@]}" "${W[@]}" --set normsent=500 --set normrcvd=500 --json | json "j['cost']")
expect_eq "halo path, calibrated profile: normsent and normrcvd do not price its words" \
    "$halo_g3" "$(P sim 5 "${D[@]}" "${W[@]}" --set normsent=1 --set normrcvd=1 --json | json "j['cost']")"
expect_eq "halo path, calibrated profile: loggp_G does" \
    "$(python3 -c "print($(P sim 5 "${D[@]}" --set sync_on_messages=1 --set loggp_G=30 --json | json "j['cost']") > $halo_g3)")" True
expect_eq "halo path, the thesis's rule: normsent prices its words" \
    "$(python3 -c "print($(P sim 5 "${D[@]}" --set normsent=500 --json | json "j['cost']") > $(P sim 5 "${D[@]}" --set normsent=1 --json | json "j['cost']"))")" True
expect_eq "record path, calibrated profile: normsent prices its words" \
    "$(python3 -c "print($("$POLYAPM" sim "$TMP/jdyn.apm" "${W[@]}" --set normsent=500 --json | json "j['cost']") > $("$POLYAPM" sim "$TMP/jdyn.apm" "${W[@]}" --set normsent=1 --json | json "j['cost']"))")" True
# ... except in a program with collectives: their words keep normsent and normrcvd (gemver's
# transpose of A packs its elements one by one, down columns)
PB=$(pb_dir)
if [ -n "$PB" ]; then
    "$POLYAPM" init "$PB/linear-algebra/blas/gemver/gemver.c" -I "$PB/utilities" -D MINI_DATASET \
        -D DATA_TYPE_IS_DOUBLE -o gv.pdg >/dev/null
    G() { "$POLYAPM" -w "$TMP/gv.pdg" "$@"; }
    G apply ROOT stm theta.S1=0 sigma.S1=i theta.S2=1 sigma.S2=i theta.S3=2 sigma.S3=i theta.S4=3 sigma.S4=i \
        inner=seq >/dev/null && G apply 2 tile kind=blocked procs=2 >/dev/null && G apply 3 commgen >/dev/null &&
        G apply 4 memdist >/dev/null && G apply 5 redist >/dev/null || fail "gemver redist chain" "did not apply"
    expect_eq "gemver's transpose leaf takes the halo path" \
        "$(G export 6 -o "$TMP/gexp" 2>&1 >/dev/null; grep -c 'a static halo pattern' "$TMP/gexp/README.md")" 1
    expect_eq "halo path with a collective, calibrated profile: normsent prices its words" \
        "$(python3 -c "print($(G sim 6 "${W[@]}" --set normsent=500 --force --json | json "j['cost']") > $(G sim 6 "${W[@]}" --set normsent=1 --force --json | json "j['cost']"))")" True
else
    echo "# skip the gemver transpose check: PolyBench/C 4.2.1 not found (set POLYBENCH_DIR)"
fi
finish
