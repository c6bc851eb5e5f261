#!/usr/bin/env bash
# The thesis's finite-differences figures (Ellmenreich 2004, ch. 5, Figs. 5.3-5.7 and 5.14) as
# acceptance tests: each hand-derived level of examples/thesis/ simulated under the polyapm model
# with the scali2004 profile, compared with the published cost (±1: the thesis accumulated in
# single precision, e.g. it prints 1925151 where the exact sum is 1925152.11), and verified
# against examples/findiff.apm.
source "$(dirname "$0")/../lib.sh"
cd "$ROOT/examples/thesis"

sim() {  # file n procs -> json in $TMP/out.json; returns polyapm's status
    "$POLYAPM" sim "$1" -D n="$2" -D procs="$3" --json >"$TMP/out.json" 2>"$TMP/err"
}
field() { json "$1" <"$TMP/out.json"; }

# aggregate work of the source: 21 * (65536 * 7 + 254^2 * 6)
"$POLYAPM" sim ../findiff.apm -D n=256 --json >"$TMP/out.json" 2>"$TMP/err"
expect_eq "findiff n=256 aggregate work 17762808" "$(field "int(j['aggregate_work'])")" 17762808
expect_eq "findiff n=256 source verified" "$(field "j['verified']")" True

# tiled SynAPM, n=256, 4 processors: 4,459,533
sim fd-tiled.apm 256 4; rc=$?
expect_eq "fd-tiled n=256 procs=4 exits 0" "$rc" 0
expect_eq "fd-tiled n=256 procs=4 cost 4459533 (±1)" "$(field "abs(round(j['cost']) - 4459533) <= 1")" True
expect_eq "fd-tiled n=256 procs=4 verified" "$(field "j['verified']")" True
expect_eq "fd-tiled agg. work 17762808" "$(field "int(j['aggregate_work'])")" 17762808

# SynCommAPM n=256, 4 processors: 7,236,516; work 7,193,214 each; comm 43,301.758; 42 sends
sim fd-syncomm.apm 256 4; rc=$?
expect_eq "fd-syncomm n=256 procs=4 exits 0" "$rc" 0
expect_eq "fd-syncomm cost 7236516 (±1)" "$(field "abs(round(j['cost']) - 7236516) <= 1")" True
expect_eq "fd-syncomm work per processor 7193214" "$(field "sorted(set(int(w) for w in j['work']))")" "[7193214]"
expect_eq "fd-syncomm comm per processor 43301.758" "$(field "all(abs(c - 43301.758) < 0.01 for c in j['comm'])")" True
expect_eq "fd-syncomm 42 coalesced sends per processor" "$(field "j['send']")" "[42, 42, 42, 42]"
expect_eq "fd-syncomm 42 receives per processor" "$(field "j['recv']")" "[42, 42, 42, 42]"
expect_eq "fd-syncomm verified" "$(field "j['verified']")" True
expect_eq "fd-syncomm no violations" "$(field "j['violations_total']")" 0

# SynDMAPM, absolute and relative coordinates (Fig. 5.14)
while read -r n procs want; do
    for f in fd-syndm fd-relcoord; do
        sim $f.apm "$n" "$procs"; rc=$?
        expect_eq "$f n=$n procs=$procs cost $want (±1)" \
            "$(field "abs(round(j['cost']) - $want) <= 1 or round(j['cost'])")" True
        expect_eq "$f n=$n procs=$procs verified, exit 0" "$(field "j['verified']") $rc" "True 0"
    done
done <<'TABLE'
256 4 7236516
256 16 1925151
64 4 468449
64 16 213214
96 4 1031980
96 16 357417
128 4 1821303
128 16 558068
TABLE

# untiled SynAPM: 65536 virtual processors, the barrier dominates: 4.113507e8
"$POLYAPM" sim fd-syn.apm -D n=256 --json >"$TMP/out.json" 2>"$TMP/err"; rc=$?
expect_eq "fd-syn n=256 cost 4.113507e8" "$(field "'%.6e' % j['cost']")" "4.113507e+08"
expect_eq "fd-syn n=256 65536 processors" "$(field "j['nprocs']")" 65536
expect_eq "fd-syn n=256 verified, exit 0" "$(field "j['verified']") $rc" "True 0"

# the human report resembles the thesis's
out=$("$POLYAPM" sim fd-syncomm.apm 2>&1)
expect_match "fd-syncomm text report: total" "$out" "Cost model, total: 7236515\.[0-9]"
expect_match "fd-syncomm text report: send totals" "$out" "send totals: \[42, 42, 42, 42\] = 168"
expect_match "fd-syncomm text report: speedup 2.45" "$out" "speedup over the source: 2\.45"
expect_match "fd-syncomm text report: verified" "$out" "verified: yes"
finish
