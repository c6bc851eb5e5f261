#!/usr/bin/env bash
# Block-cyclic tiling through commgen and memdist: LU (STM1 and STM2, bs=2 and bs=3, procs=4) and
# jacobi1d (theta=t sigma=i) reach syndm leaves that simulate verified against the source with no
# violation (no wrong, missing or late message), at n=12 and n=64 for LU, and whose local memory
# per processor stays below full replication.
source "$(dirname "$0")/../lib.sh"
cd "$ROOT/examples"

"$POLYAPM" apply lu.apm stm 'theta.L=2*(j-1)' sigma.L=i 'theta.U=2*(i-1)+1' sigma.U=j -o "$TMP/stm1.apm"
"$POLYAPM" apply lu.apm stm theta=i+j-2 sigma=i -o "$TMP/stm2.apm"
for m in stm1 stm2; do
    for bs in 2 3; do
        x="$TMP/$m-bc$bs"
        "$POLYAPM" apply "$TMP/$m.apm" tile kind=blockcyclic bs=$bs procs=4 -o "$x-t.apm" &&
        "$POLYAPM" apply "$x-t.apm" commgen -o "$x-c.apm" &&
        "$POLYAPM" apply "$x-c.apm" memdist -o "$x-d.apm"; rc=$?
        expect_eq "lu $m blockcyclic bs=$bs: tile, commgen, memdist exit 0" "$rc" 0
        for n in 12 64; do
            for lv in c d; do
                "$POLYAPM" sim "$x-$lv.apm" -D n=$n --against lu.apm --json >"$TMP/s.json"
                expect_eq "lu $m bs=$bs $lv n=$n verified, no violations" \
                    "$(json "j['verified'] and j['violations_total'] == 0 and j['level'] == ('syncomm' if '$lv' == 'c' else 'syndm')" <"$TMP/s.json")" True
            done
            expect_eq "lu $m bs=$bs n=$n: local memory of every processor below full replication" \
                "$(json "len(j['local_memory']) == 4 and max(j['local_memory']) < j['full_memory']" <"$TMP/s.json")" True
        done
    done
done
# the sends of a value go to the processors of the blocks its readers lie in (wrapping modulo procs)
expect_match "lu stm2 bs=2 syncomm: sends to whole processor ranges, wrapped" "$(cat "$TMP/stm2-bc2-c.apm")" \
    "send u\[i\]\[j\] to 0 \.\. procs - 1 at t \+ 1"

# fewer blocks than processors (n=12, bs=5: blocks 0 .. 2): the idle processor gets no memory
"$POLYAPM" apply "$TMP/stm1.apm" tile kind=blockcyclic bs=5 procs=4 -o "$TMP/idle-t.apm" &&
"$POLYAPM" apply "$TMP/idle-t.apm" commgen -o "$TMP/idle-c.apm" &&
"$POLYAPM" apply "$TMP/idle-c.apm" memdist -o "$TMP/idle-d.apm"
"$POLYAPM" sim "$TMP/idle-d.apm" -D n=12 --against lu.apm --json >"$TMP/s.json"
expect_eq "lu stm1 bs=5 n=12 (3 blocks, 4 processors): verified, no violations, processor 3 holds nothing" \
    "$(json "j['verified'] and j['violations_total'] == 0 and j['local_memory'][3] == 0" <"$TMP/s.json")" True

# memdist's bounds simplified against 0 <= rp < procs: no min(1, 1 + rp * 2) left
expect_match "lu stm2 bs=2 syndm: the rows of l are the processor's blocks (strided), columns 1 .. i" "$(cat "$TMP/stm2-bc2-d.apm")" \
    "^dist l\(rp\) \[i = 2 \* rp \+ 1 \.\. n step 2 \* procs block 2\]\[1 \.\. i\]$"
expect_eq "lu stm2 bs=2 syndm: no bound min(1, ..) left" "$(grep -c 'min(1, \|min(2, ' "$TMP/stm2-bc2-d.apm")" 0
"$POLYAPM" apply "$TMP/stm2.apm" tile kind=blocked procs=4 -o "$TMP/stm2-bl.apm" &&
"$POLYAPM" apply "$TMP/stm2-bl.apm" commgen -o "$TMP/stm2-bl-c.apm" &&
"$POLYAPM" apply "$TMP/stm2-bl-c.apm" memdist -o "$TMP/stm2-bl-d.apm"
expect_match "lu stm2 blocked syndm: u's rows 1 .. rp * b + b (min(1, 1 + rp * b) simplified), i + 1 .. n of each" \
    "$(cat "$TMP/stm2-bl-d.apm")" "^dist u\(rp\) \[i = 1 \.\. rp \* b \+ b\]\[i \+ 1 \.\. n\]$"

for bs in 2 3; do
    x="$TMP/jac-bc$bs"
    "$POLYAPM" apply jacobi1d.apm stm theta=t sigma=i -o "$x-s.apm" &&
    "$POLYAPM" apply "$x-s.apm" tile kind=blockcyclic bs=$bs procs=4 -o "$x-t.apm" &&
    "$POLYAPM" apply "$x-t.apm" commgen -o "$x-c.apm" &&
    "$POLYAPM" apply "$x-c.apm" memdist -o "$x-d.apm"; rc=$?
    expect_eq "jacobi1d blockcyclic bs=$bs: stm, tile, commgen, memdist exit 0" "$rc" 0
    "$POLYAPM" sim "$x-d.apm" -D n=40 -D steps=10 --against jacobi1d.apm --json >"$TMP/s.json"
    expect_eq "jacobi1d bs=$bs syndm n=40 verified, no violations" \
        "$(json "j['verified'] and j['violations_total'] == 0" <"$TMP/s.json")" True
    # each processor holds its blocks plus a halo of one, strided (step bs * procs block bs + 2):
    # 11 steps x (n / procs / bs blocks of bs + 2, and one more), well below the row of 40
    expect_eq "jacobi1d bs=$bs n=40: every processor's local memory at most 11 x ((bs + 2) / bs x 10 + bs + 2)" \
        "$(json "max(j['local_memory']) <= 11 * ((($bs + 2) * 10) // $bs + $bs + 2)" <"$TMP/s.json")" True
done
finish
