#!/usr/bin/env bash
# tests/mpi/ghost.sh — ghost zones of width k (issue 18): on the FD leaf (block2d, relcoord) the
# transform gives a verified node that exchanges every k steps (the step's `if` on t), with a halo
# k wide (dist, offsets, send guards) and the corners; between exchanges it computes its block
# widened by e, without sends.  Its cost: fewer messages, larger ones, more work than the plain
# leaf; under a startup-heavy profile (hockney) it costs less.  Its exported program exchanges
# only on the exchange steps and prints the simulation's checksum at -np 2, 3, 4; jacobi-1d
# (stm auto: the plane a let of the time), the memdist node (absolute indices) and a skewed
# stencil (faces as mirrors) too, and FD on 16 processors (-np 16).
# Refusals: width 1 (usage), a width beyond the block, a placed step, syncomm, a program that is
# not a stencil over time (LU), a read of the plane being written, a subscript that is not
# x + c, no sends, a stencil of diagonals only (no face sends to name the neighbours by).
# The SimGrid comparison is tests/bench/bench_placement.sh.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
. "$(dirname "$0")/export.inc"
sed -e "s/^param n = 256, steps = 21/param n = 16, steps = 6/" "$ROOT/examples/findiff.apm" >"$TMP/fd.apm"
chain "$TMP/fd.apm" "theta=t sigma=x,y" "kind=block2d procs=4" relcoord && ok "fd chain applies" || { fail "fd chain" "see above"; finish; }

expect_match "transforms lists ghost on the leaf" "$(P transforms 6)" "^ghost +communication placement"
g2=$(P apply 6 ghost -q)
expect_eq "ghost applies to the fd leaf" "$?" 0
expect_eq "the ghost leaf (width 2) verifies" "$(P sim "$g2" --json | json "j['verified'] and j['violations_total'] == 0")" True
g3=$(P apply 6 ghost width=3 -q)
expect_eq "the ghost leaf (width 3) verifies" "$(P sim "$g3" --json | json "j['verified'] and j['violations_total'] == 0")" True

# the program: the halo k wide, an exchange every k steps, the block widened between
text=$(P show "$g2" --program)
expect_match "width 2: the halo two wide (local bounds, offset)" "$text" \
    "dist a\(rp\) \[0 \.\. steps\]\[0 \.\. b \+ 3\]\[0 \.\. b \+ 3\] offset \[0\]\[rp / q \* b - 2\]\[rp % q \* b - 2\]"
expect_match "width 2: the offset lets follow" "$text" "let o1 = rp / q \* b - 2"
expect_match "width 2: exchange on every second step" "$text" "^  if \(t - 1\) % 2 == 1 \{"
expect_match "width 2: the sends take the elements within 2 of a face" "$text" \
    "send a\[t\]\[x - o1\]\[y - o2\] to rp - q at t \+ 1 when t < steps && xlo > 0 && x < xlo \+ 2 as"
expect_eq "width 2: eight neighbours (faces and corners), in both branches of the body" \
    "$(printf '%s\n' "$text" | grep -oE '^ *send .* to [^ ]+( [-+] [a-z0-9]+)* at' | sort -u | wc -l)" 8
expect_match "width 2: a corner" "$text" "send a\[t\]\[x - o1\]\[y - o2\] to rp - q - 1 at t \+ 1"
between=$(printf '%s\n' "$text" | sed -n '/^  } else {/,$p')
expect_match "between exchanges: e counts down" "$between" "let e = 1 - \(t - 1\) % 2"
expect_match "between exchanges: the block widened by e" "$between" \
    "for x = max\(xlo - e, 0\) \.\. min\(xhi \+ e, n - 1\), y = max\(ylo - e, 0\) \.\. min\(yhi \+ e, n - 1\)"
expect_eq "between exchanges: no sends" "$(printf '%s\n' "$between" | grep -c 'send ')" 0
text3=$(P show "$g3" --program)
expect_match "width 3: exchange on every third step" "$text3" "if \(t - 1\) % 3 == 2 \{"
expect_match "width 3: the halo three wide" "$text3" "\[0 \.\. b \+ 5\] offset \[0\]\[rp / q \* b - 3\]"
expect_match "width 3: sends within 3 of a face" "$text3" "x < xlo \+ 3"
expect_match "width 3: e from 2 down" "$text3" "let e = 2 - \(t - 1\) % 3"

# the cost: fewer and larger messages, more work
simj() { P sim "$1" --json; }
sends() { simj "$1" | json "sum(j['send'])"; }
for g in "$g2" "$g3"; do
    w=$(P show "$g" --program | grep -oE '% [0-9]+ ==' | head -1 | tr -dc 0-9)
    expect_eq "width $w: fewer messages than the plain leaf" "$(python3 -c "print($(sends "$g") < $(sends 6))")" True
    expect_eq "width $w: more work than the plain leaf (the neighbours' elements recomputed)" \
        "$(python3 -c "print($(simj "$g" | json "j['aggregate_work']") > $(simj 6 | json "j['aggregate_work']"))")" True
    per() { simj "$1" | json "sum(j['recv']) and sum(j['received_memory']) / sum(j['recv'])"; }
    expect_eq "width $w: larger messages (elements per message)" "$(python3 -c "print($(per "$g") > $(per 6))")" True
done
# a slow network: a startup of 50 us at the thesis's tick, priced per message (hockney)
printf 'name slow\nts 610\nnormsent 40\nnormrcvd 40\n' >"$TMP/slow"
cost() { P sim "$1" --machine "$TMP/slow" --model hockney --json | json "j['cost']"; }
expect_eq "hockney, slow network: the ghost leaf costs less than the plain leaf" \
    "$(python3 -c "print($(cost "$g2") < $(cost 6))")" True

# the exported program: exchange only on the exchange steps; the checksum at every rank count
P export "$g2" -o "$TMP/gx" >"$TMP/out" 2>&1
expect_match "the ghost leaf exports with the halo pattern" "$(cat "$TMP/out")" "C\+MPI, halo"
expect_match "the main loop exchanges every second step" "$(cat "$TMP/gx/findiff_syndm.c")" \
    "if \(\(imod\(t - 1, 2\) == 1\) && \(t < steps\)\)"
for np in 2 3 4; do
    out=$(P run "$g2" -np $np --json 2>&1 | tail -1)
    expect_eq "ghost leaf -np $np: the simulation's checksum" \
        "$(printf '%s' "$out" | json "j['match'] and j['ranks'] == $np and j['exchange'] == 'halo'" 2>/dev/null || echo "$out")" True
done
out=$(P run "$g3" -np 4 --json 2>&1 | tail -1)
expect_eq "width 3 -np 4: the simulation's checksum" "$(printf '%s' "$out" | json "j['match']" 2>/dev/null || echo "$out")" True
out=$(P run "$g2" -np 4 --exchange alltoallv --json 2>&1 | tail -1)
expect_eq "ghost leaf -np 4 --exchange alltoallv: the checksum" "$(printf '%s' "$out" | json "j['match']" 2>/dev/null || echo "$out")" True
gm=$(P apply 5 ghost -q)
expect_match "the memdist node (absolute indices): the halo widened" "$(P show "$gm" --program)" \
    "dist a\(rp\) \[0 \.\. steps\]\[rp / q \* b - 2 \.\. rp / q \* b \+ b \+ 1\]"
out=$(P run "$gm" -np 4 --json 2>&1 | tail -1)
expect_eq "ghost on the memdist node -np 4: the checksum" "$(printf '%s' "$out" | json "j['match']" 2>/dev/null || echo "$out")" True

# refusals
out=$(P apply 6 ghost width=1 2>&1); rc=$?
expect_eq "width=1: usage error" "$rc" 2
expect_match "width=1: says it is the plain placement" "$out" "width 1 is the plain placement"
out=$(P apply 6 ghost width=9 2>&1); rc=$?
expect_eq "width=9 (blocks of 8): refused" "$rc" 1
expect_match "width=9: beyond the block" "$out" "width 9 is beyond the block: .*processor 0's block has 8 elements along x"
expect_match "ghost twice: refused" "$(P apply "$g2" ghost 2>&1)" "not one loop nest over its elements"
ov=$(P apply 6 overlap -q)
expect_match "ghost on the overlap leaf: refused" "$(P apply "$ov" ghost 2>&1)" "ghost does not apply"
expect_match "ghost on syncomm: refused by level" "$(P apply 4 ghost 2>&1)" "applies at syndm"
P show 6 --program >"$TMP/plain.apm"
sed 's/a\[t - 1\]\[x - 1 - o1\]/a[t][x - 1 - o1]/' "$TMP/plain.apm" >"$TMP/same.apm"
expect_match "a read of the plane being written: not applicable" \
    "$(P transforms "$TMP/same.apm" 2>&1 | grep -A1 '^ghost')" "reads a\[t\]\[x - 1 - o1\]\[y - o2\]: ghost zones need every read of a one step back"
sed 's/a\[t - 1\]\[x + 1 - o1\]/a[t - 1][2 * x - o1]/' "$TMP/plain.apm" >"$TMP/far.apm"
expect_match "a subscript that is not x + c: not applicable" \
    "$(P transforms "$TMP/far.apm" 2>&1 | grep -A1 '^ghost')" "is not its element's plus a constant"
grep -v '^ *send ' "$TMP/plain.apm" >"$TMP/nosend.apm"
expect_match "a step without sends: not applicable" "$(P transforms "$TMP/nosend.apm" 2>&1 | grep -A1 '^ghost')" \
    "no sends in the step"
FD_WS=$WS
if chain "$ROOT/examples/lu.apm" "theta=i+j-2 sigma=i" "kind=blocked procs=4"; then
    expect_match "LU (a wavefront, not a stencil): not applicable, its block changes with t" "$(P apply 5 ghost 2>&1)" \
        "ghost does not apply: the block changes with t"
else
    fail "lu chain" "see above"
fi

# a skewed stencil (a diagonal read): the faces its input sends only element by element (to
# (x + 1) / b * q + (y - 1) / b) stand in as the mirrors of the faces it sends plainly
skew='program skew
level source
param n = 12, steps = 6, procs = 4
array a[0 .. steps][0 .. n - 1][0 .. n - 1] double
init a[0][x][y] = (x * 13 + y * 11) % 7 - 3
output a[steps]

for t = 1 .. steps, x = 0 .. n - 1, y = 0 .. n - 1 {
  if x == 0 || x == n - 1 || y == 0 || y == n - 1 {
    B: a[t][x][y] = a[t - 1][x][y]
  } else {
    S: a[t][x][y] = (3 * a[t - 1][x - 1][y - 1] + 5 * a[t - 1][x][y + 1] + 3 * a[t - 1][x + 1][y]) / 4
  }
}'
printf '%s\n' "$skew" >"$TMP/skew.apm"
if chain "$TMP/skew.apm" "theta=t sigma=x,y" "kind=block2d procs=4" relcoord && k=$(P apply 6 ghost -q); then
    expect_eq "skewed stencil: sends to the eight neighbours" \
        "$(P show "$k" --program | grep -oE '^ *send .* to [^ ]+( [-+] [a-z0-9]+)* at' | sort -u | wc -l)" 8
    expect_eq "skewed stencil: the ghost leaf verifies" "$(P sim "$k" --json | json "j['verified'] and j['violations_total'] == 0")" True
    out=$(P run "$k" -np 4 --json 2>&1 | tail -1)
    expect_eq "skewed stencil -np 4: the simulation's checksum" "$(printf '%s' "$out" | json "j['match']" 2>/dev/null || echo "$out")" True
else
    fail "skewed stencil: ghost applies" "see above"
fi
# a nine-point stencil reads only the diagonals: its input sends to no face by the processor alone
sed -e 's/3 \* a\[t - 1\]\[x - 1\]\[y - 1\] + 5 \* a\[t - 1\]\[x\]\[y + 1\] + 3 \* a\[t - 1\]\[x + 1\]\[y\]/a[t - 1][x - 1][y - 1] + a[t - 1][x + 1][y + 1] + a[t - 1][x - 1][y + 1] + a[t - 1][x + 1][y - 1]/' \
    "$TMP/skew.apm" >"$TMP/diag.apm"
if chain "$TMP/diag.apm" "theta=t sigma=x,y" "kind=block2d procs=4" relcoord; then
    expect_match "diagonals only: refused, no face neighbour to name" "$(P apply 6 ghost 2>&1)" \
        "the step sends to no lower neighbour along x by a destination of the processor alone"
else
    fail "diagonal stencil chain" "see above"
fi

# jacobi-1d (stm auto: `let t = tt + 1`), blocked
sed -e "s/^param n = 1000, steps = 100/param n = 40, steps = 8/" "$ROOT/examples/jacobi1d.apm" >"$TMP/jacobi1d.apm"
if chain "$TMP/jacobi1d.apm" auto "kind=blocked procs=4" relcoord && j=$(P apply 6 ghost -q); then
    jt=$(P show "$j" --program)
    expect_match "jacobi-1d: exchange every second step of tt" "$jt" "if tt % 2 == 1 \{"
    expect_match "jacobi-1d: two neighbours, the sends within 2" "$jt" "to rp \+ 1 at tt \+ 1 when tt < steps - 1 && phi < n - 1 && p > phi - 2"
    expect_eq "jacobi-1d: the ghost leaf verifies" "$(P sim "$j" --json | json "j['verified'] and j['violations_total'] == 0")" True
    for np in 2 4; do
        out=$(P run "$j" -np $np --json 2>&1 | tail -1)
        expect_eq "jacobi-1d ghost leaf -np $np: the simulation's checksum" \
            "$(printf '%s' "$out" | json "j['match']" 2>/dev/null || echo "$out")" True
    done
else
    fail "jacobi-1d: ghost applies to the relcoord leaf" "see above"
fi

# the acceptance's shape: FD on 16 processors (a 4 x 4 grid: inner blocks have eight neighbours)
sed -e "s/^param n = 256, steps = 21/param n = 32, steps = 6/" "$ROOT/examples/findiff.apm" >"$TMP/fd16.apm"
if chain "$TMP/fd16.apm" "theta=t sigma=x,y" "kind=block2d procs=16" relcoord && g16=$(P apply 6 ghost -q); then
    expect_eq "fd, 16 processors: the ghost leaf verifies" \
        "$(P sim "$g16" --json | json "j['verified'] and j['violations_total'] == 0")" True
    expect_eq "fd, 16 processors: fewer messages than the plain leaf" \
        "$(python3 -c "print($(sends "$g16") < $(sends 6))")" True
    out=$(P run "$g16" -np 16 --json 2>&1 | tail -1)
    expect_eq "fd, 16 processors, -np 16: the simulation's checksum" \
        "$(printf '%s' "$out" | json "j['match'] and j['ranks'] == 16" 2>/dev/null || echo "$out")" True
else
    fail "fd on 16 processors: ghost applies" "see above"
fi
WS=$FD_WS
finish
