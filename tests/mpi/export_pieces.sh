#!/usr/bin/env bash
# tests/mpi/export_pieces.sh — syndm programs whose dists have pieces / named indices (pieced
# local memories) exported as C+MPI: each rank allocates only its pieces and the program prints
# the checksum of the same program with plain boxes (same values), and fewer elements.
#   LU STM1 blocked (tests/xf/pieces/lu-stm1-blocked.apm) at n=64, 200 and 50 (not a multiple of
#   procs) against its plain-box twin and against memdist's (pieced) leaf of the workspace chain;
#   a 3-D ragged case and cyclic rows (strided outer dimension) with ragged last ranges
#   (tests/mpi/pieces/*.apm) against their plain-box twins.
# The pieced programs are exported by t_export (xf_export itself); `polyapm export`, which
# simulates first, must write the same.  Under make check-asan (SAN set) t_export is sanitized too.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
PC=$ROOT/tests/mpi/pieces
LU=$ROOT/tests/xf/pieces/lu-stm1-blocked.apm
TX=$T_BUILD_DIR/tests/drivers/t_export
[ -x "$TX" ] || { fail "t_export built" "$TX missing (make all builds the test drivers)"; finish; }

# pieced NAME FILE NP [name=value]...: export, build with -Werror, run; sets CK (checksum) and
# MEM (the per-rank elements of the polyapm-memory line) and MEMTOTAL
pieced() {
    local name=$1 file=$2 np=$3 out; shift 3
    CK=none MEM=none MEMTOTAL=0
    if ! "$TX" "$file" "$TMP/$name" "$@" >"$TMP/$name.log" 2>&1; then fail "$name: exported" "$(cat "$TMP/$name.log")"; return 1; fi
    if ! make -s -C "$TMP/$name" EXTRA_CFLAGS=-Werror >"$TMP/$name.build" 2>&1; then
        fail "$name: builds with -Werror" "$(head -20 "$TMP/$name.build")"; return 1; fi
    out=$(mpi_run "$np" "$TMP/$name/$(sed -n 's/^exported \([^:]*\):.*/\1/p' "$TMP/$name.log")")
    CK=$(sed -n 's/^polyapm-result checksum=\([0-9a-f]*\) .*/\1/p' <<<"$out")
    MEM=$(sed -n 's/^polyapm-memory elements=\[\([0-9,]*\)\] total=.*/\1/p' <<<"$out")
    MEMTOTAL=$(sed -n 's/^polyapm-memory .* total=\([0-9]*\)$/\1/p' <<<"$out")
    [ -n "$CK" ] || fail "$name: runs" "$(tail -5 <<<"$out")"
}
# box_run NAME TARGET NP [-D ..]: `polyapm run` of the plain-box twin; sets BCK, BSIM, BMEM (sim's local memory total)
box_run() {
    local name=$1 target=$2 np=$3 js; shift 3
    js=$("$POLYAPM" "${W[@]}" run "$target" -np "$np" "$@" --json 2>&1 | tail -1)
    BCK=$(json "j['checksum']" <<<"$js" 2>/dev/null || echo "?")
    BSIM=$(json "j['sim_checksum']" <<<"$js" 2>/dev/null || echo "?")
    BMEM=$("$POLYAPM" "${W[@]}" sim "$target" "$@" --json 2>/dev/null | json "sum(j['local_memory'])")
    expect_eq "$name box: its export prints the simulation's checksum" "$BCK" "$BSIM"
}
# lu_mem N: per-rank elements of the hand-written LU pieces (a: lower triangle of the row block +
# column block above; l: lower triangle; u: strict upper triangle up to the block's last row)
lu_mem() {
    python3 -c "
n, P = $1, 4
b = (n - 1) // P + 1
out = []
for rp in range(P):
    hi = rp * b + b
    a = sum(i for i in range(1 + rp * b, hi + 1)) + (hi - 1) * b
    l = sum(i for i in range(1, hi + 1))
    u = sum(hi - i for i in range(1, hi))
    out.append(a + l + u)
print(','.join(map(str, out)))"
}

# --- LU STM1 blocked: the pieced hand-written node against the memdist leaf with plain boxes
WS=$TMP/lu.pdg
W=(-w "$WS")
P() { "$POLYAPM" -w "$WS" "$@"; }
"$POLYAPM" init "$ROOT/examples/lu.apm" -o "$WS" >/dev/null
P apply ROOT stm "theta.L=2*(j-1)" sigma.L=i "theta.U=2*(i-1)+1" sigma.U=j >/dev/null && P apply 2 tile kind=blocked procs=4 >/dev/null &&
    P apply 3 commgen >/dev/null && P apply 4 memdist >/dev/null || fail "lu chain" "did not apply"
# the plain-box twin: the boxes memdist took before pieces
sed -e 's|^reference .*|reference "'"$ROOT"'/examples/lu.apm"|' \
    -e 's|^dist a(rp) .*|dist a(rp) [1 .. rp * b + b][1 .. rp * b + b]|' \
    -e 's|^dist l(rp) .*|dist l(rp) [1 .. rp * b + b][1 .. rp * b + b]|' \
    -e 's|^dist u(rp) .*|dist u(rp) [1 .. rp * b + b - 1][min(2, rp * b + 1) .. rp * b + b]|' "$LU" >"$TMP/lu-box.apm"
for n in 64 200 50; do
    pieced "lu-$n" "$LU" 4 n=$n || continue
    W=()
    box_run "lu n=$n" "$TMP/lu-box.apm" 4 -D n=$n
    expect_eq "lu n=$n pieced: checksum = the plain-box export's" "$CK" "$BCK"
    expect_eq "lu n=$n pieced: each rank allocates exactly its pieces" "$MEM" "$(lu_mem $n)"
    expect_eq "lu n=$n pieced: fewer elements than the boxes ($MEMTOTAL < $BMEM)" "$([ "$MEMTOTAL" -lt "$BMEM" ] && echo yes)" yes
    # memdist's own leaf is pieced too, and no larger than the hand-written pieces
    W=(-w "$WS")
    box_run "lu memdist leaf n=$n" 5 4 -D n=$n
    expect_eq "lu n=$n memdist leaf: checksum = the hand-written pieces'" "$BCK" "$CK"
    expect_eq "lu n=$n memdist leaf: at most the hand-written pieces' elements ($BMEM <= $MEMTOTAL)" \
        "$([ "$BMEM" -le "$MEMTOTAL" ] && echo yes)" yes
done
grep -q 'alltoallv' "$TMP/lu-64.log" && ok "lu pieced: auto takes the alltoallv records" || fail "lu pieced: auto takes alltoallv" "$(cat "$TMP/lu-64.log")"
if [ "$(P sim "$LU" --json 2>/dev/null | json "j['verified'] is True and j['violations_total'] == 0" 2>/dev/null)" = True ]; then
    "$POLYAPM" export "$LU" -o "$TMP/lu-cli" >/dev/null 2>&1
    "$TX" "$LU" "$TMP/lu-xf" >/dev/null 2>&1
    expect_eq "lu pieced: polyapm export writes what xf_export wrote" "$(diff -r "$TMP/lu-cli" "$TMP/lu-xf" >/dev/null && echo same)" same
else
    echo "# the simulator does not verify $LU yet: polyapm export of it not compared"
fi

# --- memdist's STM1 cyclic leaf: a's second piece strides its last range (rp + 1 .. n step procs)
P apply 2 tile kind=cyclic procs=4 >/dev/null && P apply 6 commgen >/dev/null && P apply 7 memdist >/dev/null ||
    fail "lu cyclic chain" "did not apply"
expect_match "lu stm1 cyclic leaf: a piece strided in its last range" "$(P show 8)" "\\] \\+ \\[.*\\]\\[rp \\+ 1 \\.\\. n step procs\\]"
for n in 64 50; do
    rm -rf "$TMP/cyc"
    if P export 8 -o "$TMP/cyc" -D n=$n >"$TMP/cyc.log" 2>&1 && make -s -C "$TMP/cyc" EXTRA_CFLAGS=-Werror >"$TMP/cyc.build" 2>&1; then
        out=$(mpi_run 4 "$TMP/cyc/lu_syndm")
        js=$(P sim 8 -D n=$n --json)
        expect_eq "lu stm1 cyclic leaf n=$n: checksum = the simulation's" \
            "$(sed -n 's/^polyapm-result checksum=\([0-9a-f]*\) .*/\1/p' <<<"$out")" "$(json "j['checksum']" <<<"$js")"
        expect_eq "lu stm1 cyclic leaf n=$n: each rank allocates the simulation's local memory" \
            "$(sed -n 's/^polyapm-memory elements=\[\([0-9,]*\)\] .*/\1/p' <<<"$out")" \
            "$(json "','.join(map(str, j['local_memory']))" <<<"$js")"
    else
        fail "lu stm1 cyclic leaf n=$n: exported and built" "$(cat "$TMP/cyc.log" "$TMP/cyc.build" | head -20)"
    fi
done

# --- hand-written twins: 3-D ragged, strided outer + ragged
W=()
for c in "ragged3 2" "strided-ragged 3"; do
    set -- $c
    pieced "$1" "$PC/$1.apm" "$2" || continue
    box_run "$1" "$PC/$1-box.apm" "$2"
    expect_eq "$1 pieced: checksum = the plain-box twin's" "$CK" "$BCK"
    expect_eq "$1 pieced: fewer elements than the boxes ($MEMTOTAL < $BMEM)" "$([ "$MEMTOTAL" -gt 0 ] && [ "$MEMTOTAL" -lt "$BMEM" ] && echo yes)" yes
done
# rows 1 4 7 10 | 3 6 9 of r, and w's rows 1 4 7 10 from column n + 2 - i: 22 + 18 + 18 on processor 0
expect_eq "strided-ragged: processor 0 holds exactly its pieces (rows off the lattice empty)" "${MEM%%,*}" 58

# covariance: memdist's leaf (cov in two pieces: rows, and the columns S8 mirrors) and memdist
# layout=box's, through `polyapm run` at np 2: the same checksum, the simulation's
EX=$ROOT/examples/polybench
"$POLYAPM" apply "$EX/covariance.apm" stm theta.S1=0 sigma.S1=j theta.S2=0 sigma.S2=j theta.S3=0 sigma.S3=j \
    theta.S4=0 sigma.S4=j theta.S5=1 sigma.S5=i theta.S6=1 sigma.S6=i theta.S7=1 sigma.S7=i theta.S8=1 sigma.S8=i \
    inner=seq -o "$TMP/cv-s.apm" && "$POLYAPM" apply "$TMP/cv-s.apm" tile kind=blocked procs=2 -o "$TMP/cv-t.apm" &&
    "$POLYAPM" apply "$TMP/cv-t.apm" commgen -o "$TMP/cv-c.apm"
for layout in auto box; do
    "$POLYAPM" apply "$TMP/cv-c.apm" memdist layout=$layout -o "$TMP/cv-$layout.apm"
    js=$("$POLYAPM" run "$TMP/cv-$layout.apm" -np 2 -D m=40 -D n=24 --json 2>&1 | tail -1)
    eval "CV_$layout=\$(json \"j['checksum'] if j['match'] else 'mismatch'\" <<<\"\$js\" 2>/dev/null || echo failed)"
done
expect_match "covariance pieced leaf (m=40, n=24, np 2): the simulation's checksum" "$CV_auto" '^[0-9a-f]{16}$'
expect_eq "covariance box leaf: the simulation's checksum, the pieced leaf's" "$CV_box" "$CV_auto"

# --- refused with the array's name
"$TX" "$LU" "$TMP/lu-halo" --exchange halo >/dev/null 2>"$TMP/err"
expect_eq "lu pieced --exchange halo: refused" "$?" 1
expect_match "lu pieced --exchange halo: names the array" "$(cat "$TMP/err")" "halo does not apply: array [alu] is sent and its dist has pieces"
# a piece strided in its last range (every procs-th column) before a ragged one
sed 's/^dist r(rp) .*/dist r(rp) [1 .. n][1 + rp .. n step procs] + [i = 1 .. n][1 .. i]/' "$PC/strided-ragged.apm" >"$TMP/lastst.apm"
if pieced lastst "$TMP/lastst.apm" 3; then
    js=$("$POLYAPM" sim "$TMP/lastst.apm" --json)
    expect_eq "a piece strided in its last range: checksum = the simulation's" "$CK" "$(json "j['checksum']" <<<"$js")"
    expect_eq "a piece strided in its last range: each rank allocates the simulation's local memory" "$MEM" \
        "$(json "','.join(map(str, j['local_memory']))" <<<"$js")"
fi
sed 's/^dist r(p) .*/dist r(p) [i = p .. p][0 .. m - 1]/' "$ROOT/tests/coll/polyeval-dm.apm" >"$TMP/collp.apm"
"$TX" "$TMP/collp.apm" "$TMP/collp" >/dev/null 2>"$TMP/err"
expect_eq "a collective on a pieced array: refused" "$?" 1
expect_match "a collective on a pieced array: names the array" "$(cat "$TMP/err")" "[0-9]+:[0-9]+: (error: )?export: this collective names array r, whose dist has pieces"
finish
