#!/usr/bin/env bash
# tests/mpi/export_coll.sh — syncomm programs whose only communication is collectives, exported as
# C+MPI (transforms/export/export_coll.c, runtime/rt_coll.c): polyeval, zran3, zran3-rounds, sorted, scanscan,
# reductions (user operators: tuples, non-commutative, global view) at 1, 2, 3, 4 and 8 ranks (zran3 at 2, 3, 8),
# multicast at 1 and 4 (N = 1, 2) and after the multicast -> scatter & bcast law (groups), the
# fused polyeval (BS-Comcast: repeat) and zran3 (reduction fusion), reduce_bal (SR; on doubles too,
# to root 0 and as allreduce_bal at 1-8 ranks: the runtime exchanges along the tree), scan_bal (SS)
# and local repeat (BR) from the fusion rules: each builds with -Werror and prints the checksum
# of `polyapm sim`.  Refusals: a processor reading another's row, a syncomm program with sends.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
EX=$ROOT/examples
runs() {   # NAME FILE PARAM "VALUE:RANKS ..." [-D ...]
    local name=$1 file=$2 par=$3 list=$4 out v np; shift 4
    for vn in $list; do
        v=${vn%%:*} np=${vn#*:}
        out=$("$POLYAPM" run "$file" -np "$np" -D "$par=$v" "$@" --json 2>&1)
        expect_eq "$name $par=$v -np $np: builds with -Werror, runs, prints the simulation's checksum" \
            "$(printf '%s' "$out" | tail -1 | json "j['match'] and j['ranks'] == $np" 2>/dev/null || printf '%s' "$out" | tail -5)" True
    done
}
ALL="1:1 2:2 3:3 4:4 8:8"
# zran3's program (ten rounds of tuple reductions, each with its own operators) takes gcc -O3 some
# 5 s to build at each rank count: it runs at fewer of them; the others cover 1 to 8 ranks
ZRAN3="2:2 3:3 8:8"
for ex in polyeval zran3-rounds sorted scanscan reductions; do runs "$ex" "$EX/$ex.apm" procs "$ALL"; done
runs zran3 "$EX/zran3.apm" procs "$ZRAN3"
runs multicast "$EX/multicast.apm" N "1:1 2:4"

# what the generated code uses
"$POLYAPM" export "$EX/reductions.apm" -o "$TMP/red" -D procs=3 >/dev/null
expect_match "reductions: minloc is non-commutative: MPI_Op_create with commute 0" "$(cat "$TMP/red/reductions.c")" "rt_op_create\(op_minloc_mpi, 0\)"
expect_match "reductions: sum is commutative: commute 1" "$(cat "$TMP/red/reductions.c")" "rt_op_create\(op_sum_?_mpi, 1\)"
expect_match "reductions: the tuple state is one contiguous datatype" "$(cat "$TMP/red/reductions.c")" "MPI_Type_contiguous\(8 \* \(int\)sizeof\(rt_val\)"
"$POLYAPM" export "$EX/polyeval.apm" -o "$TMP/pe" -D procs=3 >/dev/null
expect_match "polyeval: + on doubles is folded in rank order (no MPI_SUM)" "$(cat "$TMP/pe/polyeval.c")" "rt_bop_add_d, NULL, NULL, NULL, rt_id, MPI_OP_NULL"
"$POLYAPM" export "$EX/zran3-rounds.apm" -o "$TMP/z" -D procs=3 >/dev/null
expect_match "zran3-rounds: max on integers is MPI_MAX" "$(cat "$TMP/z/zran3.c")" "rt_bop_max_i, NULL, NULL, NULL, rt_id, MPI_MAX, MPI_INT64_T"

# the fusion transforms' results
cp "$EX/polyeval-src.apm" "$EX/zran3-src.apm" "$EX/multicast-src.apm" "$TMP/"
"$POLYAPM" apply "$EX/polyeval.apm" bs-comcast -o "$TMP/pe-bs.apm" >/dev/null
expect_match "bs-comcast on polyeval: a repeat" "$(cat "$TMP/pe-bs.apm")" "repeat\(fuse_bs"
runs "polyeval fused (bs-comcast)" "$TMP/pe-bs.apm" procs "$ALL"
"$POLYAPM" apply "$EX/zran3.apm" fuse-reductions -o "$TMP/z-f.apm" >/dev/null
runs "zran3 fused (fuse-reductions)" "$TMP/z-f.apm" procs "$ZRAN3"
"$POLYAPM" apply "$EX/multicast.apm" multicast-scatter-bcast -o "$TMP/mc-sb.apm" >/dev/null
expect_match "multicast-scatter-bcast: groups" "$(cat "$TMP/mc-sb.apm")" " by "
runs "multicast as scatter & bcast in groups" "$TMP/mc-sb.apm" N "1:1 2:4"
D=$ROOT/tests/xf/fuse
for c in sr-reduction:sr:reduce_bal ss-scan:ss:scan_bal br-local:br:repeat; do
    IFS=: read -r rule f what <<<"$c"
    "$POLYAPM" apply "$D/$f.apm" "$rule" -o "$TMP/f-$f.apm" >/dev/null
    expect_match "$rule: the program uses $what" "$(cat "$TMP/f-$f.apm")" "$what"
    runs "$rule ($what)" "$TMP/f-$f.apm" procs "3:3 5:5" -D seed=5
done
# reduce_bal exchanged along its tree: on doubles (the checksum matches only in the tree's own
# order), to root 0 and as allreduce, at 1-8 ranks (3, 5, 6, 7: leaves missing on the left)
sed -e 's/ int$/ double/' -e 's|\(init x\[q\]\[j\] = \)\(.*\)$|\1(\2) / 7.0|' -e 's/to procs - 1$/to 0/' \
    -e 's/^output z\[procs - 1\]/output z[0]/' "$D/sr.apm" >"$TMP/sr0.apm"
sed -e 's/z\[rp\] = reduce(+) y\[rp\] to 0/z[rp] = allreduce(+) y[rp]/' -e 's/^output z\[0\]/output z/' "$TMP/sr0.apm" >"$TMP/sra.apm"
for f in sr0:reduce_bal sra:allreduce_bal; do
    "$POLYAPM" apply "$TMP/${f%%:*}.apm" sr-reduction -o "$TMP/${f%%:*}-f.apm" >/dev/null
    expect_match "sr-reduction on doubles (${f%%:*}): ${f#*:}" "$(cat "$TMP/${f%%:*}-f.apm")" "= ${f#*:}\(fuse_sr\)"
    runs "sr-reduction on doubles (${f#*:})" "$TMP/${f%%:*}-f.apm" procs "1:1 2:2 3:3 4:4 5:5 6:6 7:7 8:8"
done

# refusals
# (without its reference: the simulation is not compared, so the exporter's own check speaks)
sed 's/a\[rp\] \* pw\[rp\]\[j\]/a[rp] * pw[(rp + 1) % procs][j]/; /^reference/d' "$EX/polyeval.apm" >"$TMP/pe-other.apm"
"$POLYAPM" export "$TMP/pe-other.apm" -o "$TMP/pe-other" >/dev/null 2>"$TMP/err"
expect_eq "a processor reading another's row: refused" "$?" 1
expect_match "the refusal names the array and the position" "$(cat "$TMP/err")" "pe-other.apm:[0-9]+:[0-9]+: .*pw is written and read in the processor body"
finish
