#!/usr/bin/env bash
# Live time planes (engine/planes.c): the simulator keeps only the planes a step can still read
# (FD's a[0..steps][..][..]: two) and reports exactly what it reports when it keeps every plane
# (`sim --all-planes`): costs, checksums, verification, violations and their texts, local and
# received memory — for every program of the examples and the test corpus, broken ones included.
# The memory it takes (`simulator_bytes`) is the live planes' alone:
#  - findiff n=256: 2 x 256 x 256 x 9 bytes (value + state) = 1,179,648, was 22 planes;
#  - the thesis's syndm leaf: 4 processors x 2 x 130 x 130 x 13 (value, state, version) plus the
#    array's version shadow, 2 planes x 256 x 256 x 12 = 3,330,464: at syncomm and syndm a
#    folded array keeps versions like every other (sim_version.c), or the two runs would check
#    different things;
#  - stale.apm: a folded array's stale copy is a missing message, as with every plane;
#  - tests/fuzz/planes-diff: syndm programs whose processors write the same element (tiles one
#    row too large) and receive into elements they wrote: live planes reported other violations,
#    another checksum and less received memory while folded arrays kept no versions;
#  - three live planes where a step reads t - 1 and t - 2 (two initialised), kept as four (the
#    simulator rounds the live planes up to a power of two to index them with a mask); none dropped where
#    every step reads the first plane or a message arrives after its plane died (late.apm: kept);
#    a plane never written stays undefined (gap.apm); bounds come before planes (outside.apm);
#  - jacobi-2d written single-assignment and scheduled 2t / 2t + 1 (syn and syndm): subscripts
#    floor((tt + a) / 2) + c through lets, A 2 planes and B 1.
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"

# JSON of a run without its wall time and its memory, for comparison
strip() { python3 -c "import json,sys; j=json.load(sys.stdin); [j.pop(k) for k in list(j) if 'seconds' in k or k == 'simulator_bytes']; print(json.dumps(j, sort_keys=True))"; }
bytes() { "$POLYAPM" sim "$@" --json 2>/dev/null | json "j['simulator_bytes']"; }

n=0 folded=0
for f in examples/*.apm examples/thesis/*.apm tests/sim/*.apm tests/sim/planes/*.apm tests/broken/*.apm \
         tests/xf/pieces/*.apm tests/mpi/pieces/*.apm tests/coll/*.apm tests/fuzz/planes-diff/*.apm; do
    live=$("$POLYAPM" sim "$f" --json 2>"$TMP/e1"); rc1=$?
    all=$("$POLYAPM" sim "$f" --json --all-planes 2>"$TMP/e2"); rc2=$?
    if [ -z "$live" ]; then   # refused before running: the same diagnostics
        expect_eq "$f: the same refusal with every plane" "$rc1 $(cat "$TMP/e1")" "$rc2 $(cat "$TMP/e2")"
        continue
    fi
    n=$((n + 1))
    a=$(printf '%s' "$live" | strip) b=$(printf '%s' "$all" | strip)
    if [ "$rc1 $a" = "$rc2 $b" ]; then ok "$f: the same result with every plane (exit $rc1)"
    else fail "$f: the same result with every plane" "$(diff <(printf '%s\n' "$a" | tr ',' '\n') <(printf '%s\n' "$b" | tr ',' '\n') | head -10)"; fi
    bl=$(printf '%s' "$live" | json "j['simulator_bytes']") ba=$(printf '%s' "$all" | json "j['simulator_bytes']")
    [ "$bl" -lt "$ba" ] && folded=$((folded + 1))
done
expect_eq "every program of the corpus ran both ways ($n), some with fewer planes ($folded)" \
    "$([ $n -ge 40 ] && [ $folded -ge 8 ] && echo yes)" yes

expect_eq "findiff n=256: two planes of 256 x 256" "$(bytes examples/findiff.apm)" 1179648
expect_eq "findiff n=256 --all-planes: 22 planes" "$(bytes examples/findiff.apm --all-planes)" 12976128
expect_eq "fd-syndm: 4 x 2 planes of 130 x 130 (13 bytes) + a shadow of 2 planes of 256 x 256 (12 bytes)" \
    "$(bytes examples/thesis/fd-syndm.apm)" 3330464
expect_eq "three.apm: three live planes of 6, stored as four (a power of two)" "$(bytes tests/sim/planes/three.apm)" 216
# subscripts floor((tt + a) / 2) + c through lets, the sweeps at even and odd steps: A 2 planes, B 1
expect_eq "jacobi2d-sa-syn.apm (2t / 2t + 1): A 2 + B 1 planes of 30 x 30 x 25 bytes, not 21 + 20" \
    "$(bytes tests/sim/planes/jacobi2d-sa-syn.apm) $(bytes tests/sim/planes/jacobi2d-sa-syn.apm --all-planes)" "67500 922500"
expect_eq "jacobi2d-sa-syndm.apm: 2 processors x (A 2 + B 1) planes of 17 x 30 x 13 bytes + shadows of 3 x 30 x 30 x 12" \
    "$(bytes tests/sim/planes/jacobi2d-sa-syndm.apm)" 72180
expect_eq "first.apm: every step reads plane 0, all 10 planes kept" "$(bytes tests/sim/planes/first.apm)" 540
expect_eq "late.apm: a send for step y + 1, every plane kept" "$(bytes tests/sim/planes/late.apm)" \
    "$(bytes tests/sim/planes/late.apm --all-planes)"
"$POLYAPM" sim tests/sim/planes/gap.apm --json >"$TMP/gap.json"
expect_eq "gap.apm: two planes kept" "$(json "j['simulator_bytes']" <"$TMP/gap.json")" 144
expect_match "gap.apm: the never-written a[2][3] is an undefined read" \
    "$(json "j['violations'][0]['text']" <"$TMP/gap.json")" "^undefined read: a\[2\]\[3\] has no value yet"
# syndm programs that read outside their local memory, write elements of their neighbours' tiles
# and receive into elements they wrote (fuzz finds): folded, and what every plane reports
for k in "1 136 3aa23376cc1d9ce2 [55, 55, 55, 55]" "2 471 299c2e896881d6e8 [75, 70, 70, 65]"; do
    set -- $k
    f=tests/fuzz/planes-diff/fuzz-planes-diff-$1.apm
    "$POLYAPM" sim "$f" --json >"$TMP/pd.json"
    expect_eq "fuzz-planes-diff-$1: folded, $2 violations, checksum $3, received ${*:4}" \
        "$(json "'%s %s %s %s' % (j['simulator_bytes'] < $(bytes "$f" --all-planes), j['violations_total'], j['checksum'], j['received_memory'])" <"$TMP/pd.json")" \
        "True $2 $3 ${*:4}"
done
# a folded array whose processor 0 writes an element twice in a step and sends the first value:
# processor 1 reads a stale copy (live planes used to keep no versions and saw nothing wrong)
"$POLYAPM" sim tests/sim/planes/stale.apm --json >"$TMP/stale.json"
expect_eq "stale.apm: folded, 12 stale reads, as with every plane" \
    "$(json "'%s %s %s' % (j['simulator_bytes'] < $(bytes tests/sim/planes/stale.apm --all-planes), j['violations_total'], j['violations'][0]['kind'])" <"$TMP/stale.json")" \
    "True 12 missing-message"
expect_match "stale.apm: the copy is stale" "$(json "j['violations'][0]['text']" <"$TMP/stale.json")" \
    "^missing message: processor 1 at t=2 reads a\[1\]\[0\], whose copy is stale"
# syn and syncomm keep race records per element (syncomm versions too): FD at n=1024 needs 22
# planes x 1024^2 x 29 bytes = 669 MB with every plane, 2 planes (61 MB) live
"$POLYAPM" sim examples/thesis/fd-syncomm.apm -D n=1024 -D steps=21 --json >"$TMP/big.json"
expect_eq "fd-syncomm n=1024: verified in 2 x 1024 x 1024 x 29 bytes" \
    "$(json "j['verified'], j['simulator_bytes']" <"$TMP/big.json")" "True 60817408"
finish
