#!/usr/bin/env bash
# tests/mpi/overlap.sh — the overlap placement (issue 18): on the FD leaf (block2d, relcoord) the
# transform gives a verified node whose step is ordered boundary (with its sends), interior
# (without), recv; the cost models that price overlap (polyapm, hockney) put it below the plain
# leaf, bsp (no overlap) prices both alike; its exported program posts the exchange after the
# boundary and waits at recv, and at -np 2, 3, 4 prints the simulation's checksum.  Refusals:
# a step already placed, a level other than syndm, no sends, a step that reads the plane it
# writes, a bad width.  The SimGrid comparison is tests/bench/bench_placement.sh.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
. "$(dirname "$0")/export.inc"
sed -e "s/^param n = 256, steps = 21/param n = 16, steps = 6/" "$ROOT/examples/findiff.apm" >"$TMP/fd.apm"
chain "$TMP/fd.apm" "theta=t sigma=x,y" "kind=block2d procs=4" relcoord && ok "fd chain applies" || { fail "fd chain" "see above"; finish; }

expect_match "transforms lists overlap on the leaf" "$(P transforms 6)" "^overlap +communication placement"
P apply 6 overlap >/dev/null
expect_eq "overlap applies to the fd leaf" "$?" 0
expect_eq "the overlap leaf verifies" "$(P sim 7 --json | json "j['verified'] and j['violations_total'] == 0")" True

# the program text: boundary (with the sends), interior (without), recv last
text=$(P show 7)
order=$(printf '%s\n' "$text" | awk '/# boundary/ {b = NR} /^ *send / {s = NR} /# interior/ {i = NR} /^ *recv$/ {r = NR}
    END {print (b && s && i && r && b < s && s < i && i < r) ? "ordered" : "b=" b " s=" s " i=" i " r=" r}')
expect_eq "the step reads boundary, send, interior, recv" "$order" ordered
expect_eq "recv ends the processor's step" "$(printf '%s\n' "$text" | grep -A1 -E '^ *recv$' | tail -1 | tr -d ' ')" "}"

# the cost: a slow network (a startup of 50 us at the thesis's tick)
printf 'name slow\nts 610\nnormsent 40\nnormrcvd 40\n' >"$TMP/slow"
cost() { P sim "$1" --machine "$TMP/slow" --model "$2" --json | json "j['cost']"; }
for model in polyapm hockney; do
    plain=$(cost 6 $model); over=$(cost 7 $model)
    expect_eq "$model: the overlap leaf costs less than the plain leaf ($over < $plain)" \
        "$(python3 -c "print($over < $plain)")" True
done
expect_eq "bsp (no overlap): both leaves cost the same" "$(cost 6 bsp)" "$(cost 7 bsp)"
expect_eq "sim --json: the overlap leaf's processors each overlap some work" \
    "$(P sim 7 -D steps=5 --json | json "len(j['overlap']) == 4 and min(j['overlap']) > 0")" True
expect_eq "sim --json: the plain leaf has no overlap" "$(P sim 6 -D steps=5 --json | json "'overlap' in j")" False

# the exported program: post after the boundary, wait at recv, the checksum at every rank count
P export 7 -o "$TMP/ov" >"$TMP/out" 2>&1
expect_match "the overlap leaf exports with the halo pattern" "$(cat "$TMP/out")" "C\+MPI, halo"
c=$(cat "$TMP/ov/findiff_syndm.c")
expect_match "the program defines post_halo (rt_pattern_post)" "$c" "static void post_halo.*"
expect_match "the program defines wait_halo (rt_pattern_wait)" "$c" "static void wait_halo.*"
steporder=$(printf '%s\n' "$c" | awk '/^static .*void step/ && !f {f = 1} f && /post_halo\(pattern/ && !p {p = NR}
    p && !l && /for \(int64_t x = \(?xlo \+ 1/ {l = NR} f && /wait_halo\(pattern/ && !w {w = NR}
    END {print (p && w && p < w && l > p && l < w) ? "ordered" : "p=" p " l=" l " w=" w}')
expect_eq "the step posts, computes the interior, then waits" "$steporder" ordered
expect_eq "the main loop exchanges nothing after the step" \
    "$(printf '%s\n' "$c" | grep -c 'exchange_halo(pattern')" 0
for np in 2 3 4; do
    out=$(P run 7 -np $np --json 2>&1 | tail -1)
    expect_eq "overlap leaf -np $np: the simulation's checksum" \
        "$(printf '%s' "$out" | json "j['match'] and j['ranks'] == $np" 2>/dev/null || echo "$out")" True
done
out=$(P run 7 -np 4 --exchange alltoallv --json 2>&1 | tail -1)
expect_eq "overlap leaf -np 4 --exchange alltoallv (the exchange at the step's end): the checksum" \
    "$(printf '%s' "$out" | json "j['match']" 2>/dev/null || echo "$out")" True

# jacobi-1d (stm auto: the plane is a let of the time, `let t = tt + 1`), blocked: one slab a side
FD_WS=$WS
n1=$(sed -e "s/^param n = 1000, steps = 100/param n = 40, steps = 8/" "$ROOT/examples/jacobi1d.apm")
printf '%s\n' "$n1" >"$TMP/jacobi1d.apm"
if chain "$TMP/jacobi1d.apm" auto "kind=blocked procs=4" relcoord && P apply 6 overlap >/dev/null; then
    expect_eq "jacobi-1d: the overlap leaf verifies" "$(P sim 7 --json | json "j['verified'] and j['violations_total'] == 0")" True
    out=$(P run 7 -np 4 --json 2>&1 | tail -1)
    expect_eq "jacobi-1d overlap leaf -np 4: the simulation's checksum" \
        "$(printf '%s' "$out" | json "j['match']" 2>/dev/null || echo "$out")" True
else
    fail "jacobi-1d: overlap applies to the relcoord leaf" "see above"
fi
WS=$FD_WS

# a wider boundary
P apply 6 overlap width=2 >/dev/null
expect_eq "overlap width=2 verifies" "$(P sim 8 --json | json "j['verified'] and j['violations_total'] == 0")" True
expect_match "overlap width=2: two rows a face" "$(P show 8)" "x = xlo \.\. min\(xlo \+ 1, xhi\)"

# recv in the language: the last statement of a syndm step only; `recv` stays a usable name
P show 7 | sed -n '/^program/,$p' >"$TMP/ov.apm"
expect_match "the overlap node's text checks" "$("$POLYAPM" check "$TMP/ov.apm" 2>&1)" "ok: program"
sed '0,/^  # interior/s//  recv\n  # interior/' "$TMP/ov.apm" >"$TMP/notlast.apm"
expect_match "recv before the end of the step: an error" "$("$POLYAPM" check "$TMP/notlast.apm" 2>&1)" \
    "'recv' must be the last statement of the processor loop's body"
sed 's/^level syndm/level syncomm/' "$TMP/ov.apm" | grep -v '^dist' >"$TMP/sc.apm"
expect_match "recv at syncomm: an error" "$("$POLYAPM" check "$TMP/sc.apm" 2>&1)" "'recv' is not available at level syncomm"
printf 'program r\nlevel source\nparam n = 4\narray recv[0 .. n] double\ninit recv[i] = i\noutput recv\nfor i = 1 .. n {\n  L: recv[i] = recv[i - 1] + 1\n}\n' >"$TMP/rname.apm"
expect_match "an array named recv still parses" "$("$POLYAPM" check "$TMP/rname.apm" 2>&1)" "ok: program r"

# refusals
out=$(P apply 7 overlap 2>&1); rc=$?
expect_eq "overlap twice: refused" "$rc" 1
expect_match "overlap twice: says the step is placed" "$out" "already ends with recv"
out=$(P apply 4 overlap 2>&1)
expect_match "overlap on syncomm: refused by level" "$out" "applies at syndm"
P show 6 | sed -n '/^program/,$p' | grep -v '^ *send ' >"$TMP/nosend.apm"
expect_match "a step without sends: not applicable" "$(P transforms "$TMP/nosend.apm" 2>&1 | grep -A1 '^overlap')" \
    "no sends in the step"
P show 6 | sed -n '/^program/,$p' | sed 's/a\[t - 1\]\[x - 1 - o1\]/a[t][x - 1 - o1]/' >"$TMP/same.apm"
expect_match "a step reading its own plane: not applicable" "$(P transforms "$TMP/same.apm" 2>&1 | grep -A1 '^overlap')" \
    "reads a\[t\]\[x - 1 - o1\]\[y - o2\], of the plane the step writes"
out=$(P apply 6 overlap width=0 2>&1); rc=$?
expect_eq "width=0: usage error" "$rc" 2
finish
