#!/usr/bin/env bash
# tests/mpi/placement.sh — the choice among communication placements by cost (issue 18, item 1's
# last bullet): on the FD leaf (block2d, relcoord), `transforms` lists the plain placement,
# overlap at each width and the ghost zones at each width ("ghost width=K") with its CommCost
# (Fahringer & Mehofer: the message time no work hides) and predicted cost; each cost is the one `sim` gives the node that placement makes; the plain
# placement's CommCost is all its message time, the overlap's less; the least cost is named;
# a placed node lists none; explore reaches the overlap leaves and ranks them with the plain one.
# Buffer safety: overlap maxbuf= below what a step's sends hold falls back to the plain
# placement, says so (report and program text), verifies and runs with its checksum.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
. "$(dirname "$0")/export.inc"
sed -e "s/^param n = 256, steps = 21/param n = 32, steps = 6/" "$ROOT/examples/findiff.apm" >"$TMP/fd.apm"
chain "$TMP/fd.apm" "theta=t sigma=x,y" "kind=block2d procs=4" relcoord && ok "fd chain applies" || { fail "fd chain" "see above"; finish; }

# a slow network (a startup of 50 us at the thesis's tick): message time that work only partly hides
printf 'name slow\nts 610\nnormsent 40\nnormrcvd 40\nmstartup_s 6000\nmstartup_r 6000\n' >"$TMP/slow"
for machine in scali2004 "$TMP/slow"; do
    m=$(basename "$machine")
    line=$(P transforms 6 --machine "$machine" | grep -A1 '^overlap ' | tail -1)
    expect_match "$m: transforms lists the placements" "$line" "placements .* plain CommCost [0-9.e+]+ cost .*; width=1 CommCost .*; width=2 CommCost"
    # "NAME CommCost X cost Y" triples, as JSON
    cands=$(printf '%s' "$line" | python3 -c "
import json, re, sys
t = sys.stdin.read()
print(json.dumps({m.group(1): [float(m.group(2)), float(m.group(3))]
                  for m in re.finditer(r'(?:^|[:;] )(plain|(?:ghost )?width=\d+) CommCost (\S+) cost ([^;]+)', t)}))")
    c() { printf '%s' "$cands" | python3 -c "import json,sys; j=json.load(sys.stdin); print($1)"; }
    expect_eq "$m: the plain placement's CommCost is positive (all its message time)" "$(c "j['plain'][0] > 0")" True
    expect_eq "$m: overlap hides some of it (width=1's CommCost below plain's)" "$(c "j['width=1'][0] < j['plain'][0]")" True
    expect_eq "$m: overlap's predicted cost below plain's" "$(c "j['width=1'][1] < j['plain'][1]")" True
    expect_eq "$m: the least cost named" "$(printf '%s' "$line" | sed 's/.*least cost: //')" \
        "$(c "min(j, key=lambda k: (j[k][1], list(j).index(k)))")"
    # each cost is what sim gives that placement's node
    sim6=$(P sim 6 --machine "$machine" --json | json "'%.6g' % j['cost']")
    expect_eq "$m: the plain cost is sim's of the node" "$(c "'%.6g' % j['plain'][1]")" "$sim6"
    w1=$(P apply 6 overlap width=1 -q)
    expect_eq "$m: width=1's cost is sim's of the overlap node" "$(c "'%.6g' % j['width=1'][1]")" \
        "$(P sim "$w1" --machine "$machine" --json | json "'%.6g' % j['cost']")"
    g3=$(P apply 6 ghost width=3 -q)
    expect_eq "$m: ghost width=3's cost is sim's of the ghost node" "$(c "'%.6g' % j['ghost width=3'][1]")" \
        "$(P sim "$g3" --machine "$machine" --json | json "'%.6g' % j['cost']")"
done
expect_eq "the slow network: overlap does not hide all (width=1's CommCost > 0)" \
    "$(P transforms 6 --machine "$TMP/slow" | grep -A1 '^overlap ' | tail -1 | grep -oE 'width=1 CommCost [^ ]+' | awk '{print ($3 > 0)}')" 1
expect_eq "transforms --json: the placements in overlap's prediction" \
    "$(P transforms 6 --json | json "[t['predicted'] for t in j if t['name'] == 'overlap'][0].startswith('placements')")" True
expect_match "a placed node lists no placements" "$(P transforms "$w1" | grep -A1 '^overlap ' | tail -1)" "not applicable"

# explore ranks the placements with the rest of the derivation
out=$(P explore 5 -D procs=4 --budget 30 --json -q)
expect_eq "explore: leaves placed by overlap" \
    "$(printf '%s' "$out" | json "any(s['transform'] == 'overlap' for l in j['leaves'] for s in l['path'])")" True
expect_eq "explore: the best leaf is the least cost among them" \
    "$(printf '%s' "$out" | json "j['best']['cost'] == min(l['cost'] for l in j['leaves'])")" True
expect_eq "explore: under scali2004 the best leaf overlaps" \
    "$(printf '%s' "$out" | json "any(s['transform'] == 'overlap' for s in j['leaves'][0]['path'])")" True

# buffer safety: overlap maxbuf=BYTES falls back to the plain placement where a processor's live
# send buffers of a step exceed the bound (a processor of the 2 x 2 grid sends two faces)
P show 6 --program >"$TMP/plain.apm"
out=$("$POLYAPM" apply "$TMP/plain.apm" overlap maxbuf=0 -o "$TMP/b0.apm" 2>&1)
expect_match "maxbuf=0: says it re-blocked, and what the buffers reach" "$out" \
    "overlap maxbuf=0: a step's live send buffers reach [0-9]+ bytes .*re-blocked: the plain placement"
need=$(printf '%s' "$out" | sed -E 's/.*reach ([0-9]+) bytes.*/\1/')
expect_eq "the buffers (n = 32 on 2 x 2: two faces of 15 interior elements, 8 bytes each)" "$need" 240
fits=$(P apply 6 overlap maxbuf="$need" -q) && over=$(P apply 6 overlap maxbuf=$((need - 1)) -q 2>"$TMP/ws.err")
expect_match "in a workspace too, apply says it re-blocked (on stderr)" "$(cat "$TMP/ws.err")" \
    "overlap maxbuf=$((need - 1)): a step's live send buffers reach $need bytes .*re-blocked"
expect_eq "maxbuf at the need: the overlap placement (the same node as overlap width=1)" "$fits" "$w1"
expect_eq "maxbuf one byte below: no recv, the plain placement" "$(P show "$over" --program | grep -c '^ *recv$')" 0
expect_match "the fallback says so in its text" "$(P show "$over" --program)" "# re-blocked: the plain placement"
expect_eq "the fallback's statements are the plain node's" \
    "$(P show "$over" --program | grep -v '^ *#')" "$(P show 6 --program | grep -v '^ *#')"
expect_eq "the fallback verifies" "$(P sim "$over" --json | json "j['verified'] and j['violations_total'] == 0")" True
expect_eq "the fallback runs on 4 ranks with the simulation's checksum" \
    "$(P run "$over" -np 4 --json 2>&1 | tail -1 | json "j['match']" 2>/dev/null)" True
for bad in -1 x 1.5; do
    "$POLYAPM" apply "$TMP/plain.apm" overlap maxbuf=$bad >/dev/null 2>&1
    expect_eq "maxbuf=$bad: usage error" "$?" 2
done
finish
