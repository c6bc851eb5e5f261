#!/usr/bin/env bash
# tests/mpi/export_pitch.sh — rows whose length the compiler knows (transforms/export/export_arrays.c,
# ex_pitch): PolyBench's covariance with its columns cyclic over two processors and memdist's box
# layout, where each processor's box of data and cov ends at its last column (27 and 28 columns at
# m = 28): the rows are as long as the longest processor's (X_pitch1(), its bounds at a literal
# processor, which fold with the constant parameters), not a table's entry per processor, so that
# gcc vectorises the loop over i around S6's k reduction (cov[i][j] += data[k][i] * data[k][j]:
# the rows of data 1 apart in i); the shorter processor's rows are padded.  The leaf prints the
# simulation's checksum at m = 28 and at m = 29 (the other processor the longest), and a program
# whose parameter a reader changed so that a processor's rows no longer fit stops with a message.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
WS=$TMP/cov.pdg
P() { "$POLYAPM" -w "$WS" "$@"; }
STM="theta.S1=0 sigma.S1=j theta.S2=0 sigma.S2=j theta.S3=0 sigma.S3=j theta.S4=1 sigma.S4=j theta.S5=2 sigma.S5=j
     theta.S6=2 sigma.S6=j theta.S7=2 sigma.S7=j theta.S8=2 sigma.S8=j inner=seq"
# shellcheck disable=SC2086
"$POLYAPM" init "$ROOT/examples/polybench/covariance.apm" -o "$WS" >/dev/null && P apply ROOT stm $STM >/dev/null &&
    P apply 2 tile kind=cyclic procs=2 >/dev/null && P apply 3 commgen >/dev/null &&
    P apply 4 memdist layout=box >/dev/null && P apply 5 relcoord >/dev/null && P export 6 -o "$TMP/cv" >/dev/null
expect_eq "covariance, columns cyclic, box layout: the chain applies and exports" "$?" 0
c=$TMP/cv/covariance_syndm.c
s6=$(grep -n '/\* S6 \*/' "$c" | head -1 | cut -d: -f1)
expect_match "S6 reads data through its rows' length, data_pitch1()" "$(sed -n "$((s6 + 1)),$((s6 + 3))p" "$c")" \
    'data\[\(k \* data_pitch1\(\) \+ i\)\] \* data\[\(k \* data_pitch1\(\) \+ j\)\]'
expect_eq "no processor's table entry as a stride in the step" \
    "$(awk '/^static .*void step_/ { s = 1 } s && /^}/ { s = 0 } s' "$c" | grep -c '_ext_tab\[')" 0
expect_match "the rows' length: processor 1's extent, the longest at m = 28" "$(cat "$c")" \
    'int64_t data_pitch1\(void\)   /\* the rows. length: processor 1.s extent, the longest \*/'
if mpicc --version 2>/dev/null | grep -q 'Free Software'; then
    fori=$(awk -v s="$s6" 'NR < s && /for \(int64_t i = / { l = NR } END { print l + 0 }' "$c")
    vec=$(cd "$TMP/cv" && mpicc -std=c11 -O3 -march=native -ffp-contract=off -fopt-info-vec-optimized -c \
        covariance_syndm.c -o /dev/null 2>&1)
    expect_match "gcc -O3 vectorises the loop over i around S6's reduction (line $fori)" "$vec" \
        "covariance_syndm\.c:$fori:[0-9]+: optimized: loop vectorized"
fi
for m in 28 29; do
    out=$(P run 6 -np 2 -D m=$m --json 2>&1)
    expect_eq "m=$m -np 2: builds, runs, prints the simulation's checksum" \
        "$(printf '%s' "$out" | tail -1 | json "j['match'] and j['ranks'] == 2" 2>/dev/null || printf '%s' "$out" | tail -5)" True
done
# a reader sets m = 29 in the program exported at m = 28: processor 0's rows (29) are longer than
# processor 1's, which the layout took for the longest
sed -i 's/^static const int64_t m = 28;/static const int64_t m = 29;/' "$c"
make -s -C "$TMP/cv" >/dev/null 2>&1
out=$(cd "$TMP/cv" && mpirun --allow-run-as-root --oversubscribe -np 2 ./covariance_syndm 2>&1); rc=$?
expect_eq "m changed by hand to 29: stops (a non-zero exit)" "$([ "$rc" -ne 0 ] && echo stops || echo "exit $rc")" stops
# (mpirun's abort banner and the rank's message may come in either order)
expect_match "m changed by hand to 29: ... saying why" "$out" \
    "data: processor 0's rows are longer than the rows laid out for the exported parameters: export again"
finish
