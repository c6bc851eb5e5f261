#!/usr/bin/env bash
# tests/xf/local.sh — `local` (transforms/local/): the loops inside one processor's step
# interchanged to unit stride, distributed and tiled where every dependence between the instances
# of the step allows.  On syndm leaves (stm, tile blocked procs=2, commgen, memdist, relcoord) of
# 2mm, gemm, lu and syrk (inside the loop over its blocks, which isl cannot model:
# examples/polybench) and of covariance (PolyBench/C's file, when present) the
# result simulates verified against the source (every value bit for bit), exports, and runs under
# mpirun -np 2 with the simulation's checksum; an order the dependences forbid (seidel-2d's sweep in
# place) is refused with the dependence and an instance pair named; explore offers it at syndm and
# picks it where the profile prices it cheaper; `local` on its own result has nothing to change;
# the exported tiles step by their size and gcc -O3 vectorises their innermost loop; jam=4 runs four
# rows of a tile's first loop together, which the exporter unrolls into the loop over j where all
# four run (gcc vectorises it), priced as the same tiles, and refuses a triangle's rows; regs=16
# runs 2mm's jammed rows in register tiles of 16 columns outside the loop over k, which the
# exporter keeps in a C array of the four rows' 16 elements (gcc's registers) loaded before that
# loop and stored after, the same checksum at sizes that cut groups and tiles, priced below the
# jam alone where the first level's accesses cost, and is the jam alone where no band's element fits;
# 3mm's sends of a finished sum leave the band they would keep from jamming.
source "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/polybench/kernels.inc"
EX=$ROOT/examples/polybench
P() { "$POLYAPM" -w "$WS" "$@"; }

# leaf NAME SRC STM-ARGS...: workspace $TMP/NAME.pdg whose node 6 is the syndm leaf
leaf() {
    local name=$1 src=$2
    shift 2
    WS=$TMP/$name.pdg
    "$POLYAPM" init "$src" -o "$WS" >/dev/null && P apply ROOT stm "$@" >/dev/null &&
        P apply 2 tile kind=blocked procs=2 >/dev/null && P apply 3 commgen >/dev/null &&
        P apply 4 memdist >/dev/null && P apply 5 relcoord >/dev/null
}
# verified NAME NODE: the node simulates verified, without a violation
verified() {
    expect_eq "$1: verified against the source, no violation" \
        "$(P sim "$2" --json | json "j['verified'] and j['violations_total'] == 0 and j['level'] == 'syndm'")" True
}
# runs NAME NODE: exported, built with -Werror, run with 2 ranks: the simulation's checksum
runs() {
    local out
    out=$(P run "$2" -np 2 --json 2>&1)
    expect_eq "$1: mpirun -np 2 prints the simulation's checksum" \
        "$(printf '%s' "$out" | tail -1 | json "j['match'] and j['ranks'] == 2" 2>/dev/null || printf '%s' "$out" | tail -3)" True
}
# runs_at NAME NODE "NP -D k=v .." ..: exported and run at each size on NP ranks: the simulation's
# checksum
runs_at() {
    local name=$1 node=$2 at out
    shift 2
    for at in "$@"; do
        # shellcheck disable=SC2086
        out=$(P run "$node" -np $at --json 2>&1)
        expect_eq "$name: mpirun -np $at prints the simulation's checksum" \
            "$(printf '%s' "$out" | tail -1 | json "j['match']" 2>/dev/null || printf '%s' "$out" | tail -3)" True
    done
}
# loop_before C REGEX: the line of the last `for (` before the first line of file C matching REGEX
loop_before() {
    local at
    at=$(grep -n -E "$2" "$1" | head -1 | cut -d: -f1)
    awk -v s="${at:-0}" 'NR < s && /for \(/ { l = NR } END { print l + 0 }' "$1"
}
# vectorised NAME C LINE: gcc -O3 -march=native (as the exported Makefile builds) vectorises the
# loop at line LINE of the exported file C
vectorised() {
    local vec
    vec=$(cd "$(dirname "$2")" && mpicc -std=c11 -O3 -march=native -ffp-contract=off -fopt-info-vec-optimized \
        -c "$(basename "$2")" -o /dev/null 2>&1)
    expect_match "$1 (line $3)" "$vec" "$(basename "$2" | sed 's/\./\\./'):$3:[0-9]+: optimized: loop vectorized"
}
# a profile that prices the work classes as `polyapm calibrate` measured them on a machine of
# today, with a cache of 256 KB so that 2mm's data outgrows it at a size quick to simulate (tests
# name their profile: never this machine's calibration)
mkdir -p "$XDG_CONFIG_HOME/polyapm/machines"
cat >"$XDG_CONFIG_HOME/polyapm/machines/lx" <<'EOF'
name lx
tick_seconds 5.2e-10
unit_price 0.88
strided_price 1.45
aliased_price 1.81
accum_price 0.254
unit_cached_price 0.243
cache_bytes 262144
restart_price 8.44
EOF
# the work classes as `polyapm calibrate -np 2` prices them today (a tick an operation not
# vectorised; measured on a Xeon of 2023): what an operation off a chain costs against one on it
cat >"$XDG_CONFIG_HOME/polyapm/machines/lz" <<'EOF'
name lz
tick_seconds 1.04e-10
unit_price 0.256
strided_price 21
aliased_price 17.2
accum_price 2.53
cache_bytes 1.26e8
stream_price 3.8
stream_cached_price 3.66
restart_price 1163
cache1_bytes 24576
cache2_bytes 1048576
stream1_price 0.128
stream2_price 0.525
strided1_price 0.942
strided2_price 1.18
strided_cached_price 22.8
EOF

# ---- 2mm: j, k interchanged to k, j (B[k][j] at unit stride), then tiled ----------------------
leaf 2mm "$EX/2mm.apm" theta=0 sigma=i inner=seq || fail "2mm leaf" "the chain did not apply"
i=$(P apply 6 local -q)
expect_match "2mm local: S2's nest runs k, then j innermost" "$(P show "$i" --program)" \
    'for k = 0 \.\. nk - 1 \{ *$'
expect_eq "2mm local: no j loop around a k loop is left" \
    "$(P show "$i" --program | grep -A1 'for j = ' | grep -c 'for k = ')" 0
verified "2mm local" "$i"
c6=$(P sim 6 --machine lx --json | json "j['cost']")
ci=$(P sim "$i" --machine lx --json | json "j['cost']")
expect_eq "2mm local: the interchange to unit stride is priced cheaper ($ci < $c6)" \
    "$(python3 -c "print($ci < $c6)")" True
t=$(P apply 6 local tile=32 -q)
prog=$(P show "$t" --program)
expect_match "2mm local tile=32: tile loops with a step" "$prog" 'for kt = 0 \.\. nk - 1 step 32 \{'
expect_match "2mm local tile=32: point loops bounded by min" "$prog" 'for j = jt \.\. min\(nj - 1, jt \+ 31\) \{'
verified "2mm local tile=32" "$t"
runs "2mm local" "$i"
runs "2mm local tile=32" "$t"
# the exported tiles: strided tile loops, S2's innermost loop over a tile's j, vectorised by gcc
P export "$t" -o "$TMP/2mm-tiles" >/dev/null
c=$TMP/2mm-tiles/mm2_syndm.c
expect_match "2mm local tile=32 exported: tile loops step by 32" "$(cat "$c")" 'jt \+= 32'
forl=$(loop_before "$c" '/\* S2 \*/')
expect_match "2mm local tile=32 exported: S2's innermost loop runs j over the tile" "$(sed -n "${forl}p" "$c")" \
    'for \(int64_t j = jt'
vectorised "2mm local tile=32 exported: gcc -O3 vectorises S2's loop" "$c" "$forl"
# ---- 2mm jam=4: four rows of a tile's first loop run together, unrolled into the loop over j ------
t3=$(P apply 6 local tile=32,32,256 -q)
jt=$(P apply 6 local tile=32,32,256 jam=4 -q)
prog=$(P show "$jt" --program)
expect_match "2mm jam=4: the rows' groups step by 4 inside the tile" "$prog" 'for pj = max\(pt, .*\) \.\. .* step 4 \{'
expect_match "2mm jam=4: the rows innermost, at most 4 from their group's first" "$prog" \
    'for p = max\(rp \* b, pj\) \.\. min\(.*, pj \+ 3\) \{'
expect_match "2mm jam=4: the nest says so" "$prog" '# local tile=32,32,256 jam=4'
verified "2mm jam=4" "$jt"
expect_eq "2mm jam=4: priced as the same tiles without the jam (its statements walk j at unit stride)" \
    "$(P sim "$jt" --machine lx --json | json "j['cost']")" "$(P sim "$t3" --machine lx --json | json "j['cost']")"
# at sizes where a processor's rows start and end inside a group (b = 15: rows 15 .. 29)
odd="-D ni=30 -D nj=21 -D nk=19 -D nl=17"
# shellcheck disable=SC2086
out=$(P run "$jt" -np 2 $odd --json 2>&1)
expect_eq "2mm jam=4 at ni=30: mpirun -np 2 prints the simulation's checksum (groups cut by the rows)" \
    "$(printf '%s' "$out" | tail -1 | json "j['match'] and j['ranks'] == 2" 2>/dev/null || printf '%s' "$out" | tail -3)" True
# shellcheck disable=SC2086
P export "$jt" -o "$TMP/2mm-jam" $odd >/dev/null
c=$TMP/2mm-jam/mm2_syndm.c
expect_match "2mm jam=4 exported: the four rows unrolled where all of them run" "$(cat "$c")" \
    'if \(rp \* b <= pj && pj \+ 3 <= .*\) \{'
expect_match "2mm jam=4 exported: ... each row's bases computed before the loop over j" "$(cat "$c")" \
    'rt_row([0-9]+)\[rt_turn\] = \(\(i - o1\) \* nj\);   /\* tmp\[i - o1\]\[\.\.\] \*/'
expect_eq "2mm jam=4 exported: ... the four rows' statements in order" \
    "$(grep -o 'tmp\[rt_row[0-9]*\[[0-3]\] + j\] =' "$c" | head -4 | grep -o '\[[0-3]\]' | tr -d '[]\n')" 0123
expect_match "2mm jam=4 exported: ... and the rows' loop as it is elsewhere" "$(cat "$c")" \
    'for \(int64_t p = imax\(rp \* b, pj\)'
forl=$(loop_before "$c" 'tmp\[rt_row[0-9]+\[1\] \+ j\] =')
expect_match "2mm jam=4 exported: the unrolled rows stand in the loop over j" "$(sed -n "${forl}p" "$c")" \
    'for \(int64_t j = jt'
vectorised "2mm jam=4 exported: gcc -O3 vectorises that loop" "$c" "$forl"
# ---- 2mm regs=16: the jammed rows' elements in registers along k, a tile of 16 columns ----------
rg=$(P apply 6 local tile=32,32,256 jam=4 regs=16 -q)
prog=$(P show "$rg" --program)
expect_match "2mm regs=16: a loop over tiles of 16 columns, then k, then the tile's columns, then the rows" \
    "$(printf '%s' "$prog" | tr -s ' \n' ' ')" \
    'for jr = jt \.\. min\(nj - 1, jt \+ 255\) step 16 \{ for k = kt \.\. min\(nk - 1, kt \+ 31\) \{ for j = jr \.\. min\(nj - 1, jr \+ 15\) \{ for p = max\(rp \* b, pj\)'
expect_match "2mm regs=16: the nest says so" "$prog" '# local tile=32,32,256 jam=4 regs=16'
verified "2mm regs=16" "$rg"
# a profile that prices the first level's accesses (calibrate measures stream1_price): the tile's
# loads and stores of tmp along k are gone
sed 's/^name lx$/name lxs/' "$XDG_CONFIG_HOME/polyapm/machines/lx" >"$XDG_CONFIG_HOME/polyapm/machines/lxs"
echo "stream1_price 0.3" >>"$XDG_CONFIG_HOME/polyapm/machines/lxs"
crg=$(P sim "$rg" --machine lxs --json | json "j['cost']")
cjt=$(P sim "$jt" --machine lxs --json | json "j['cost']")
expect_eq "2mm regs=16: priced below the jam alone where the first level's accesses cost ($crg < $cjt)" \
    "$(python3 -c "print($crg < $cjt)")" True
# at sizes where a rank's rows start and end inside a group and the columns end in a partial tile
runs_at "2mm regs=16" "$rg" "2 -D ni=30 -D nj=21 -D nk=19 -D nl=17" "3 -D ni=30 -D nj=37 -D nk=19 -D nl=33"
P export "$rg" -o "$TMP/2mm-regs" -D nj=37 -D nl=33 >/dev/null
c=$TMP/2mm-regs/mm2_syndm.c
regs=$(sed -n '/all 16 columns: tmp.s elements in registers along k/,/} else {/p' "$c")
expect_match "2mm regs=16 exported: a whole tile's 4 x 16 elements in a C array" "$regs" 'double (rt_acc[0-9]+)\[4\]\[16\];'
expect_match "2mm regs=16 exported: ... loaded before the loop over k, the turns and columns unrolled" \
    "$(printf '%s' "$regs" | tr -s ' \n' ' ')" \
    '_Pragma\("GCC unroll 4"\) for \(int64_t rt_t = 0; rt_t < 4; rt_t\+\+\) \{ const int64_t p = pj \+ rt_t; _Pragma\("GCC unroll 16"\) for \(int64_t j = (rt_col[0-9]+); j < \1 \+ 16; j\+\+\) \{ const int64_t i = p; rt_acc[0-9]+\[rt_t\]\[j - rt_col[0-9]+\] = tmp\[.*\]; \} \} for \(int64_t k = '
flat=$(printf '%s' "$regs" | tr -s ' \n' ' ')
expect_match "2mm regs=16 exported: ... S2 on the tile's elements, A's row computed in the loop over the turns" "$flat" \
    'rt_acc([0-9]+)\[rt_t\]\[j - rt_col[0-9]+\] = rt_acc\1\[rt_t\]\[j - rt_col[0-9]+\] \+ 1\.5 \* A\[\(i - o1\) \* nk \+ k\] \* B\[rt_row[0-9]+ \+ j\];'
expect_match "2mm regs=16 exported: ... stored back after it" "$regs" 'tmp\[.*\] = rt_acc[0-9]+\[rt_t\]\[j - rt_col[0-9]+\];'
expect_eq "2mm regs=16 exported: ... tmp neither read nor written inside the loop over k" \
    "$(printf '%s\n' "$regs" | sed -n '/for (int64_t k = /,/^ *}$/p' | grep -c 'tmp\[')" 0
expect_match "2mm regs=16 exported: a partial tile (37 columns: 2 x 16 + 5) runs the jammed loops as they are" \
    "$(sed -n '/all 16 columns: tmp.s elements in registers along k/,$p' "$c" | sed -n '/} else {/,$p' | tr -s ' \n' ' ')" \
    'tmp\[rt_row[0-9]+\[0\] \+ j\] = tmp\[rt_row[0-9]+\[0\] \+ j\]'
(cd "$TMP/2mm-regs" && make -s EXTRA_CFLAGS=-Werror >/dev/null 2>"$TMP/regs.err")
expect_eq "2mm regs=16 exported: builds with -Wall -Wextra -Werror" "$?" 0
# tests/sim/regs.apm: a register tile and three nests of its shape that are not (another element
# of the array read along k, rows sharing an element, an element moving with k), at sizes that
# cut tiles and groups: the sequential export keeps R's elements alone in registers, and prints
# the simulation's checksum
out=$("$POLYAPM" run "$ROOT/tests/sim/regs.apm" -np 1 --json 2>&1)
expect_eq "regs.apm: the sequential export prints the simulation's checksum" \
    "$(printf '%s' "$out" | tail -1 | json "j['match']" 2>/dev/null || printf '%s' "$out" | tail -3)" True
"$POLYAPM" export "$ROOT/tests/sim/regs.apm" -o "$TMP/regs-apm" >/dev/null
expect_eq "regs.apm exported: one register tile (R's), none for X, Y and W" \
    "$(grep -c 'double rt_acc[0-9]*\[4\]\[8\];' "$TMP/regs-apm/regs.c") $(grep -c 'x\[.*\] = rt_acc\|y\[.*\] = rt_acc\|w\[.*\] = rt_acc' "$TMP/regs-apm/regs.c")" "1 0"
for bad in regs=0 regs=65 regs=x; do
    P apply 6 local tile=32,32,256 jam=4 $bad >/dev/null 2>&1
    expect_eq "2mm: local $bad is a usage error (exit 2)" "$?" 2
done
out=$(P apply 6 local tile=32,32,256 regs=16 2>&1); rc=$?
expect_eq "2mm: regs=16 without jam= refuses (exit 1)" "$rc" 1
expect_match "2mm: ... register tiles are a jammed band's" "$out" 'regs=16: register tiles are a jammed band.s'
for bad in jam=0 jam=9 jam=x; do
    P apply 6 local tile=32 $bad >/dev/null 2>&1
    expect_eq "2mm: local $bad is a usage error (exit 2)" "$?" 2
done
out=$(P apply 6 local jam=4 2>&1); rc=$?
expect_eq "2mm: jam=4 without tiles refuses (exit 1)" "$rc" 1
expect_match "2mm: ... no tiled band to jam" "$out" 'jam=4: no tiled band of two loops or more'
# tiled at a size beyond the cache: the product's tiles priced from the cache (blocked work)
big="-D ni=160 -D nj=180 -D nk=220 -D nl=240"
# shellcheck disable=SC2086
expect_eq "2mm at 160x180x220: the tiled leaf is priced below the interchanged one, below the leaf" \
    "$(python3 -c "print($(P sim "$t" --machine lx $big --json | json "j['cost']") < $(P sim "$i" --machine lx $big --json | json "j['cost']") < $(P sim 6 --machine lx $big --json | json "j['cost']"))")" True
out=$(P apply "$i" local 2>&1); rc=$?
expect_eq "2mm: local on its own result refuses (exit 1)" "$rc" 1
expect_match "2mm: ... with nothing to change" "$out" 'local: nothing to change'
out=$(P apply "$t" local tile=64 2>&1)
expect_match "2mm: a nest tiled already is left as it is" "$out" 'tiled already'
# explore from the leaf under that profile: its local children are offered, the best is one
best=$(P explore 6 --machine lx --budget 12 -D procs=2 --json 2>/dev/null | json "j['leaves'][0]['path'][-1]['transform']")
expect_eq "2mm: explore from the leaf picks a local child" "$best" local

# ---- gemm: i, k, j is unit stride already; the band tiled, a bad order legal but dearer --------
leaf gemm "$EX/gemm.apm" theta=0 sigma=i inner=seq || fail "gemm leaf" "the chain did not apply"
out=$(P apply 6 local 2>&1); rc=$?
expect_eq "gemm: local (interchange) refuses" "$rc" 1
expect_match "gemm: ... every innermost loop at unit stride already" "$out" 'unit stride where it can'
t=$(P apply 6 local tile=8,8,16 -q)
expect_match "gemm local tile=8,8,16: j's tile of 16" "$(P show "$t" --program)" 'for jt = 0 \.\. nj - 1 step 16 \{'
verified "gemm local tile=8,8,16" "$t"
runs "gemm local tile=8,8,16" "$t"
o=$(P apply 6 local order=j,k -q)
verified "gemm local order=j,k" "$o"
expect_eq "gemm local order=j,k: B's column walk priced dearer than the leaf" \
    "$(python3 -c "print($(P sim "$o" --machine lx --json | json "j['cost']") > $(P sim 6 --machine lx --json | json "j['cost']"))")" True
out=$(P apply 6 local order=j,q 2>&1); rc=$?
expect_eq "gemm: order= of loops no nest has refuses (exit 1)" "$rc" 1
for bad in "tile=x" "tile=32,-1" "order=k" "order=k,k" "bogus=1"; do
    P apply 6 local "$bad" >/dev/null 2>&1
    expect_eq "gemm: local $bad is a usage error (exit 2)" "$?" 2
done
tr=$(P transforms 6)
expect_match "transforms: local is listed at syndm" "$tr" '^local +locality in a processor.s step'
expect_match "transforms: ... with its parameters" "$tr" '^ +order=string \(default auto\)'

# ---- lu: sends inside the nest; tiled, and its p and j interchanged ---------------------------
leaf lu "$EX/lu.apm" 'theta.S1=2*k+1' sigma.S1=i theta.S2=2*j sigma.S2=i 'theta.S3=2*k+1' sigma.S3=i inner=seq ||
    fail "lu leaf" "the chain did not apply"
t=$(P apply 6 local tile=16 -q)
prog=$(P show "$t" --program)
expect_match "lu local tile=16: tiled" "$prog" 'step 16'
expect_match "lu local tile=16: the send stays after the statement whose value it sends" "$prog" \
    'S3: A\[i\]\[j\] = .*'$'\n'' *send A\[i\]\[j\]'
verified "lu local tile=16" "$t"
runs "lu local tile=16" "$t"
o=$(P apply 6 local order=j,p -q)
verified "lu local order=j,p" "$o"
runs "lu local order=j,p" "$o"

# ---- sends narrowed to their affine conjuncts: placed under a condition, no let twice -------------
WS=$TMP/sendlets.pdg
"$POLYAPM" init "$ROOT/tests/sim/local-send-lets.apm" -o "$WS" >/dev/null && P apply ROOT stm theta.S=0 sigma.S=i \
    theta.P=1 sigma.P=j inner=seq >/dev/null && P apply 2 tile kind=blockcyclic bs=2 procs=2 >/dev/null &&
    P apply 3 commgen >/dev/null && P apply 4 memdist >/dev/null && P apply 5 relcoord >/dev/null ||
    fail "send-lets leaf" "the chain did not apply"
out=$(P apply 6 local 2>&1); rc=$?
expect_eq "local-send-lets: local applies (a send under isl's condition does not define i again)" "$rc" 0
s=$(printf '%s' "$out" | sed -n 's/^added node \([0-9]*\) .*/\1/p; s/^linked node \([0-9]*\) .*/\1/p' | head -1)
verified "local-send-lets" "$s"
runs "local-send-lets" "$s"

# ---- seidel-2d in place: a sweep's order is fixed by its dependences -----------------------------
"$POLYAPM" apply "$EX/seidel-2d.apm" stm theta=t sigma=0 inner=seq -o "$TMP/seidel.apm"
out=$("$POLYAPM" apply "$TMP/seidel.apm" local order=j,i 2>&1); rc=$?
expect_eq "seidel-2d: local order=j,i refuses (exit 1)" "$rc" 1
expect_match "seidel-2d: ... naming the flow dependence through a neighbour and an instance pair" "$out" \
    'order=j,i would break dependence [0-9]+ \(flow, S1 -> S1 through A\[i - 1\]\[j \+ 1\]\): for example S1\[[0-9]+, [0-9]+\] -> S1\[[0-9]+, [0-9]+\] \(.*t = [0-9]+'
out=$("$POLYAPM" apply "$TMP/seidel.apm" local order=i,j tile=8 2>&1); rc=$?
expect_eq "seidel-2d: tiling the sweep refuses too (exit 1)" "$rc" 1
expect_match "seidel-2d: ... naming the dependence" "$out" 'tile=8 would break dependence [0-9]+ \(flow, S1 -> S1'

# ---- syrk block-cyclic: the loop over its blocks (step procs) stays, the nest inside is rewritten -
WS=$TMP/syrk.pdg
"$POLYAPM" init "$EX/syrk.apm" -o "$WS" >/dev/null && P apply ROOT stm theta=0 sigma=i inner=seq >/dev/null &&
    P apply 2 tile kind=blockcyclic procs=2 bs=4 >/dev/null && P apply 3 commgen >/dev/null &&
    P apply 4 memdist >/dev/null && P apply 5 relcoord >/dev/null || fail "syrk leaf" "the chain did not apply"
expect_match "syrk block-cyclic leaf: a loop over the blocks isl cannot model (step procs)" "$(P show 6 --program)" \
    'for kb = rp \.\. .* step procs \{'
i=$(P apply 6 local -q)
prog=$(P show "$i" --program)
expect_match "syrk local: the loop over the blocks stays, the nest inside it rewritten" "$prog" \
    'for kb = rp \.\. .* step procs \{'$'\n'' *# local'$'\n'' *for p = '
expect_match "syrk local: S2 runs j, then k innermost (A[j][k] at unit stride)" "$prog" \
    'for j = 0 \.\. p \{'$'\n'' *for k = 0 \.\. m - 1 \{'$'\n'' *let i = p'$'\n'' *S2: '
verified "syrk local" "$i"
runs "syrk local" "$i"
t=$(P apply 6 local tile=8 -q)
verified "syrk local tile=8" "$t"
runs "syrk local tile=8" "$t"
# jam=4: the triangle's rows cannot run together (p = max(.., j) ..: they depend on the loop over
# j), so the band's next loop does: four j's innermost in the loop over k, four chains C[i][j]
# along k interleaved, each waiting for its own last sum only
jt=$(P apply 6 local tile=8 jam=4 -q)
prog=$(P show "$jt" --program)
expect_match "syrk jam=4: four j's run together inside the loop over k" "$prog" \
    'for jj = jt \.\. min\(jt \+ 7, p\) step 4 \{'$'\n'' *for k = kt \.\. min\(m - 1, kt \+ 7\) \{'$'\n'' *for j = jj \.\. min\(p, jj \+ 3\) \{'
verified "syrk jam=4" "$jt"
runs "syrk jam=4" "$jt"
# the tiles without jam: each C[i][j] one chain along k, every turn waiting for the last addition
# (measured at MEDIUM, np 2: 1.24 ms against the jammed tiles' 0.81), priced as one; the jammed
# chains interleave, their additions scalar operations (the turns read A by rows: no vector)
cj=$(P sim "$jt" --machine lz --json | json "j['cost']")
ct=$(P sim "$t" --machine lz --json | json "str(j['cost']) + ' ' + str(j['work_classes']['accum'] > 0)")
expect_eq "syrk jam=4: cheaper than the same tiles without it, whose turns wait on one chain each" \
    "$(python3 -c 'import sys; t, acc = sys.argv[2].split(); print(float(sys.argv[1]) < float(t), acc)' "$cj" "$ct")" "True True"
P export "$jt" -o "$TMP/syrk-jam" -D n=40 -D m=36 >/dev/null
c=$(ls "$TMP"/syrk-jam/*.c | grep -v '/rt_' | head -1)
jammed=$(sed -n '/unrolled in the loop over k/,/} else {/p' "$c")
expect_match "syrk jam=4 exported: C's row, the turns' own, computed once before the loop over k" "$jammed" \
    'const int64_t (rt_row[0-9]+) = C_rowbase\(me, i\);.*'$'\n''.*for \(int64_t k = '
expect_match "syrk jam=4 exported: ... each turn's A[j][..] in an array filled before it" "$jammed" \
    'int64_t rt_row[0-9]+\[4\];   /\* each turn.s rows \*/'
expect_match "syrk jam=4 exported: the turns read C by that row (C[rt_row + j]: gcc keeps the four sums in registers)" \
    "$jammed" 'C\[rt_row[0-9]+ \+ j\] ='
expect_eq "syrk regs=16: no register tile (its jammed loop is the band's next but the innermost): the jam's node" \
    "$(P apply 6 local tile=8 jam=4 regs=16 -q)" "$jt"

# ---- covariance from PolyBench/C: the column sums and the products turned to unit stride --------
PB=$(pb_dir)
if [ -z "$PB" ]; then
    echo "skip covariance: PolyBench/C 4.2.1 not found (set POLYBENCH_DIR)"
else
    "$POLYAPM" import "$PB/datamining/covariance/covariance.c" -I "$PB/utilities" -D MINI_DATASET \
        -D DATA_TYPE_IS_DOUBLE -o "$TMP/covariance.apm" 2>"$TMP/import.err" || fail "covariance imports" "$(head -3 "$TMP/import.err")"
    m=""
    for s in 1 2 3 4; do m="$m theta.S$s=0 sigma.S$s=j"; done
    for s in 5 6 7 8; do m="$m theta.S$s=1 sigma.S$s=i"; done
    # shellcheck disable=SC2086
    leaf covariance "$TMP/covariance.apm" $m inner=seq || fail "covariance leaf" "the chain did not apply"
    i=$(P apply 6 local -q)
    prog=$(P show "$i" --program)
    expect_match "covariance local: the products run k, then j innermost" "$prog" \
        'for k = 0 \.\. n - 1 \{'$'\n'' *for j = p \.\. m - 1 \{'
    expect_match "covariance local: the column sums run i, then p innermost" "$prog" \
        'for i = 0 \.\. n - 1 \{'$'\n'' *for p = '
    verified "covariance local" "$i"
    runs "covariance local" "$i"
    t=$(P apply 6 local tile=8 -q)
    verified "covariance local tile=8" "$t"
    runs "covariance local tile=8" "$t"

    # ---- 3mm from PolyBench/C: E = A B sends E[i][j] once its sum is done (`when k + 1 == nk`) -
    # inside the loop over k; with jam= the sends leave the band for a nest of their own after it
    # (their affine conjuncts are their instances in the model: no later write of E[i][j]), and
    # the product jams and keeps its tiles in registers as the other two do
    "$POLYAPM" import "$PB/linear-algebra/kernels/3mm/3mm.c" -I "$PB/utilities" -D MINI_DATASET \
        -D DATA_TYPE_IS_DOUBLE -o "$TMP/3mm.apm" 2>"$TMP/import.err" || fail "3mm imports" "$(head -3 "$TMP/import.err")"
    m=""
    for s in 1 2; do m="$m theta.S$s=0 sigma.S$s=j"; done
    for s in 3 4 5 6; do m="$m theta.S$s=1 sigma.S$s=j"; done
    # shellcheck disable=SC2086
    leaf 3mm "$TMP/3mm.apm" $m inner=seq || fail "3mm leaf" "the chain did not apply"
    r=$(P apply 6 local tile=32,32,256 jam=4 regs=16 -q)
    prog=$(P show "$r" --program)
    flat=$(printf '%s' "$prog" | tr -s ' \n' ' ')
    expect_eq "3mm regs=16: the three products jammed (a group loop of step 4 each)" \
        "$(printf '%s\n' "$prog" | grep -c 'for [a-z]*j[0-9]* = .* step 4 {')" 3
    expect_match "3mm regs=16: E's sends in a nest of their own after its band, sent once each (no k)" "$flat" \
        'S2: E\[i\]\[j\] = [^}]*\} \} \} \} \} \} \} \} for i = 0 \.\. ni - 1 \{ for p = [^{]*\{ let j = p send E\[i\]\[j\] to [^}]* when nl \+ p >= 2 \}'
    verified "3mm regs=16" "$r"
    # at sizes where a rank's columns end in partial tiles and groups
    runs_at "3mm regs=16" "$r" "2 -D ni=30 -D nj=37 -D nk=19 -D nl=35 -D nm=21" "3 -D ni=22 -D nj=50 -D nk=17 -D nl=41 -D nm=23"
    P export "$r" -o "$TMP/3mm-regs" -D nj=37 -D nl=35 >/dev/null
    expect_eq "3mm regs=16 exported: a register tile for each product" \
        "$(cat "$TMP/3mm-regs/"*_syndm.c | grep -c 'double rt_acc[0-9]*\[4\]\[16\];')" 3
fi
finish
