#!/usr/bin/env bash
# tests/mpi/aggregate.sh — the aggregation placement (issue 18 item 1b): on the leaf of FD on two
# coupled fields (examples/fd2.apm, block2d, relcoord), where every neighbour gets an edge of u
# and one of v each step, `aggregate` gives a verified node that says `messages aggregate`; its
# trace prices one message per partner where the plain leaf prices one per (partner, array);
# under a profile with message startups it costs less than the plain leaf (polyapm, hockney), the
# same under bsp (no startups); its exported program marks its patterns aggregated and, run with
# RT_PATTERN_STATS=1, sends one message per partner per exchange where the plain leaf's sends two;
# at -np 2, 3, 4 both print the simulation's checksum.  Refusals: single-array FD (nothing to
# aggregate), a node already aggregated, a level other than syndm, a syndm program without sends,
# bad parameters; maxbuf= below the packed buffers falls back to the plain placement.  The model's
# trend (the gain falls as n grows: Fahringer & Mehofer §5, Table I) is asserted at the end; the SimGrid
# sweep is tests/bench/bench_aggregate.sh.  Aggregation composes with overlap (exported, run).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
. "$(dirname "$0")/export.inc"
sed -e "s/^param n = 256, steps = 21/param n = 16, steps = 4/" "$ROOT/examples/fd2.apm" >"$TMP/fd2.apm"
chain "$TMP/fd2.apm" "theta=t sigma=x,y" "kind=block2d procs=4" relcoord && ok "fd2 chain applies" || { fail "fd2 chain" "see above"; finish; }

expect_match "transforms lists aggregate on the leaf" "$(P transforms 6)" "^aggregate +communication placement"
agg=$(P apply 6 aggregate -q)
expect_eq "aggregate applies to the fd2 leaf" "$?" 0
expect_eq "the aggregated leaf verifies" "$(P sim "$agg" --json | json "j['verified'] and j['violations_total'] == 0")" True
expect_eq "its text says so after the level" "$(P show "$agg" --program | sed -n '/^level/,+1p' | tr '\n' '|')" "level syndm|messages aggregate|"
expect_eq "its statements are the plain leaf's" "$(P show "$agg" --program | grep -v '^messages aggregate$')" \
    "$(P show 6 --program)"
P show "$agg" --program >"$TMP/agg.apm"
expect_eq "the text parses back to itself (fmt)" "$("$POLYAPM" fmt "$TMP/agg.apm" 2>&1)" "$(cat "$TMP/agg.apm")"

# the cost: startups per message.  a profile with message startups (50 us at the thesis's tick)
printf 'name slow\nts 610\nnormsent 40\nnormrcvd 40\nmstartup_s 6000\nmstartup_r 6000\n' >"$TMP/slow"
cost() { P sim "$1" --machine "$TMP/slow" --model "$2" --json | json "j['cost']"; }
sends() { P sim "$1" --json | json "sum(j['sends'])"; }
expect_eq "the plain leaf's messages are twice the aggregated one's (one per partner and array vs per partner)" \
    "$(sends 6)" "$((2 * $(sends "$agg")))"
for model in polyapm hockney; do
    plain=$(cost 6 $model); a=$(cost "$agg" $model)
    expect_eq "$model: the aggregated leaf costs less than the plain leaf ($a < $plain)" \
        "$(python3 -c "print($a < $plain)")" True
done
expect_eq "bsp (no startups): both leaves cost the same" "$(cost 6 bsp)" "$(cost "$agg" bsp)"
pred=$(P transforms 6 --machine "$TMP/slow" | grep -A1 '^aggregate ' | tail -1)
expect_match "transforms: the prediction names both placements and the gain" "$pred" \
    "plain [0-9]+ messages a step CommCost .* cost .*; aggregate [0-9]+ messages a step .*; gain [0-9.]+%"
expect_eq "transforms: the aggregate cost is sim's of the node" \
    "$(printf '%s' "$pred" | sed -E 's/.*aggregate [0-9]+ messages a step CommCost [^ ]+ cost ([^;]+);.*/\1/')" \
    "$(P sim "$agg" --machine "$TMP/slow" --json | json "'%.6g' % j['cost']")"

# the exported programs: one message per partner, the checksum at every rank count
P export "$agg" -o "$TMP/agg" >/dev/null 2>&1
expect_match "the exported C sets its pattern to one message per partner" "$(cat "$TMP/agg/fd2_syndm.c")" \
    "rt_pattern_aggregate\(pattern\[0\]\)"
expect_eq "the plain leaf's C does not" "$(P export 6 -o "$TMP/plain" >/dev/null 2>&1; grep -c rt_pattern_aggregate "$TMP/plain/fd2_syndm.c")" 0
stats() {   # messages and partners of every rank's exchange: "M/K M/K .."
    (cd "$1" && make -s EXTRA_CFLAGS=-Werror >/dev/null 2>&1) || { echo "build failed"; return; }
    RT_PATTERN_STATS=1 mpi_run 4 "$1/fd2_syndm" 2>&1 | sed -nE 's/^rt_pattern rank ([0-9]+): ([0-9]+) messages to ([0-9]+) partners.*/\1 \2 \3/p' | sort -n |
        awk '{printf "%s%s/%s", (NR > 1 ? " " : ""), $2, $3}'
}
sa=$(stats "$TMP/agg"); sp=$(stats "$TMP/plain")
expect_eq "aggregated, run on 4 ranks: every rank sends one message per partner an exchange" \
    "$(printf '%s\n' $sa | awk -F/ '$1 != $2 {bad = 1} END {print (NR == 4 && !bad) ? "yes" : "no"}')" yes
expect_eq "plain: two messages per partner (u and v)" \
    "$(printf '%s\n' $sp | awk -F/ '$1 != 2 * $2 {bad = 1} END {print (NR == 4 && !bad) ? "yes" : "no"}')" yes
for np in 2 3 4; do
    for node in 6 "$agg"; do
        out=$(P run "$node" -np $np -D procs=$np --json 2>&1 | tail -1)
        if [ "$(P sim "$node" -D procs=$np --json 2>/dev/null | json "j['verified']")" != True ]; then
            echo "# node $node: procs=$np not verified by the simulation"; continue
        fi
        expect_eq "node $node -np $np: the simulation's checksum" "$(printf '%s' "$out" | json "j['match']" 2>/dev/null || echo "$out")" True
    done
done

# with overlap: aggregated messages posted after the boundary, waited for at recv
ao=$(P apply "$agg" overlap -q)
expect_eq "aggregate, then overlap: verified" "$(P sim "$ao" --json | json "j['verified'] and j['violations_total'] == 0")" True
P export "$ao" -o "$TMP/ao" >/dev/null 2>&1
expect_eq "its C aggregates and posts after the boundary" \
    "$(grep -c -e 'rt_pattern_aggregate(pattern' -e 'post_halo(pattern' "$TMP/ao/fd2_syndm.c" | awk '{print ($1 >= 2)}')" 1
expect_eq "aggregate, then overlap -np 4: the simulation's checksum" \
    "$(P run "$ao" -np 4 --json 2>&1 | tail -1 | json "j['match']" 2>/dev/null)" True

# the choice by cost: overlap's row lists the aggregated candidates too, and names the least
line=$(P transforms 6 --machine "$TMP/slow" | grep -A1 '^overlap ' | tail -1)
expect_match "the choice lists plain, overlap, aggregate and aggregate with overlap" "$line" \
    "plain CommCost .*; width=1 CommCost .*; aggregate CommCost .*; aggregate width=1 CommCost "
expect_eq "aggregate width=1's cost is sim's of the node aggregate then overlap" \
    "$(printf '%s' "$line" | sed -E 's/.*; aggregate width=1 CommCost [^ ]+ cost ([^;]+);.*/\1/')" \
    "$(P sim "$ao" --machine "$TMP/slow" --json | json "'%.6g' % j['cost']")"
expect_eq "with startups, the least cost is aggregated and overlapped" "$(printf '%s' "$line" | sed 's/.*least cost: //')" \
    "aggregate width=1"

# refusals
expect_match "a node already aggregated: not applicable" "$(P transforms "$agg" | grep -A1 '^aggregate ' | tail -1)" \
    "already aggregates its messages"
expect_match "not at syn (tile's node)" "$(P transforms 3 | grep -A1 '^aggregate ' | tail -1)" "not applicable: applies at syndm"
sed -e "s/^param n = 256, steps = 21/param n = 16, steps = 4/" "$ROOT/examples/findiff.apm" >"$TMP/fd.apm"
WS2=$WS; chain "$TMP/fd.apm" "theta=t sigma=x,y" "kind=block2d procs=4" relcoord || fail "fd chain" "see above"
expect_match "single-array FD: every send carries a, nothing to aggregate" "$(P transforms 6 | grep -A1 '^aggregate ' | tail -1)" \
    "every send carries a: the plain placement already sends one message per partner"
WS=$WS2
P show 6 --program | sed -e 's/^level syndm$/level syndm\nmessages aggregate/' | sed -e 's/^program fd2_syndm/program x/' >"$TMP/a.apm"
"$POLYAPM" apply "$TMP/a.apm" aggregate >/dev/null 2>"$TMP/err"
expect_eq "a program that says messages aggregate: refused (exit 1)" "$?" 1
sed -e 's/^level syndm$/level syncomm/' "$TMP/a.apm" | grep -v '^dist ' >"$TMP/b.apm"
expect_match "messages aggregate at syncomm: a level error" "$("$POLYAPM" check "$TMP/b.apm" 2>&1)" \
    "b.apm:$(grep -n '^messages aggregate$' "$TMP/b.apm" | cut -d: -f1):1: error: 'messages aggregate' is not available at level syncomm"
P show 6 --program | grep -v '^ *send ' >"$TMP/nosend.apm"
expect_match "a syndm program without sends: no messages to aggregate" \
    "$("$POLYAPM" apply "$TMP/nosend.apm" aggregate 2>&1)" "no sends: there are no messages to aggregate"
sed -e 's/^messages aggregate$/messages scatter/' "$TMP/a.apm" >"$TMP/c.apm"
expect_match "messages followed by another word: a parse error" "$("$POLYAPM" check "$TMP/c.apm" 2>&1)" \
    "unknown message placement 'scatter'"
P show 6 --program >"$TMP/plain.apm"
for bad in -1 x; do
    "$POLYAPM" apply "$TMP/plain.apm" aggregate maxbuf=$bad >/dev/null 2>&1
    expect_eq "maxbuf=$bad: usage error" "$?" 2
done
"$POLYAPM" apply "$TMP/plain.apm" aggregate width=1 >/dev/null 2>&1
expect_eq "an unknown parameter: usage error" "$?" 2

# buffer safety: maxbuf= below the packed buffers: the plain placement, saying so
out=$("$POLYAPM" apply "$TMP/plain.apm" aggregate maxbuf=0 -o "$TMP/b0.apm" 2>&1)
expect_match "maxbuf=0: says it re-blocked, and what the buffers reach" "$out" \
    "aggregate maxbuf=0: a step's live send buffers reach [0-9]+ bytes .*re-blocked: the plain placement"
need=$(printf '%s' "$out" | sed -E 's/.*reach ([0-9]+) bytes.*/\1/')
expect_eq "the buffers (n = 16 on 2 x 2: two partners, an edge of 7 interior elements in u and v, 8 bytes each)" "$need" 224
expect_eq "maxbuf at the need: the aggregated node" "$(P apply 6 aggregate maxbuf="$need" -q)" "$agg"
over=$(P apply 6 aggregate maxbuf=$((need - 1)) -q)
expect_eq "maxbuf one byte below: not aggregated" "$(P show "$over" --program | grep -c '^messages aggregate$')" 0
expect_match "the fallback says so in its text" "$(P show "$over" --program)" "# re-blocked: the plain placement"
expect_eq "the fallback verifies" "$(P sim "$over" --json | json "j['verified'] and j['violations_total'] == 0")" True

# the paper's trend in the model: the gain of aggregation falls as n grows (fixed startups, growing
# work and volume), under the profile with startups, on the 16-processor leaf
tile16=$(P apply 2 tile kind=block2d procs=16 -q) && c16=$(P apply "$tile16" commgen -q) && m16=$(P apply "$c16" memdist -q) &&
    p16=$(P apply "$m16" relcoord -q) && a16=$(P apply "$p16" aggregate -q) || fail "fd2 16-processor leaf" "see above"
gains=""
for n in 32 64 128; do
    c0=$(P sim "$p16" -D n=$n --machine "$TMP/slow" --json | json "j['cost']")
    c1=$(P sim "$a16" -D n=$n --machine "$TMP/slow" --json | json "j['cost']")
    gains="$gains $(python3 -c "print('%.4f' % (1 - $c1 / $c0))")"
done
echo "# model gain of aggregation at n = 32 64 128:$gains"
expect_eq "the model's gain is positive and falls as n grows ($gains)" \
    "$(python3 -c "g = [float(x) for x in '$gains'.split()]; print(all(x > 0 for x in g) and all(a > b for a, b in zip(g, g[1:])))")" True
finish
