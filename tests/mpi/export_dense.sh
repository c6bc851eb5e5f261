#!/usr/bin/env bash
# tests/mpi/export_dense.sh — the dense kernels' exported code (issue 16, item 2): PolyBench's LU
# with the schedule a person writes (k as time: the pivot column at 2k, the updates at 2k+1;
# rows cyclic, sigma = i) sends each row of U once, to every processor that still needs it —
# one multicast record (rt_mcast_put, broadcast at the end of the step), never one record per
# receiver; the run prints the simulation's checksum at procs 2, 3 and 4 (where the last steps'
# ranges leave processors out: sub-communicators).  The column-cyclic variant (sigma = j, one box
# per processor, relcoord) multicasts its columns by their global index too.  Distributed arrays
# look their extents up (X_ext_tab), not the bound formulas per access; extents the same on every
# processor are the formula itself, which the compiler folds (2mm rows: its j loops vectorise).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
. "$(dirname "$0")/export.inc"
sed 's/^param n = 40$/param n = 19, procs = 2/' "$ROOT/examples/polybench/lu.apm" >"$TMP/lu.apm"
STM_ROWS="theta.S1=2*k+1 sigma.S1=i theta.S2=2*j sigma.S2=i theta.S3=2*k+1 sigma.S3=i inner=seq"
STM_COLS="theta.S1=2*k+1 sigma.S1=j theta.S2=2*j sigma.S2=j theta.S3=2*k+1 sigma.S3=j inner=seq"

# check_leaf NAME NODE [box]: exported C multicasts, no per-receiver records; the checksum at 2, 3, 4
check_leaf() {
    local name=$1 node=$2 np out c sim
    P export "$node" -o "$TMP/$node.exp" >/dev/null 2>"$TMP/err" ||
        { fail "$name: exports" "$(tail -2 "$TMP/err")"; return; }
    c=$(cat "$TMP/$node.exp"/*_syndm.c)
    expect_match "$name: the row/column goes out as one multicast record" "$c" 'rt_mcast_put\(rt_mc, '
    expect_eq "$name: no record per receiver (no rt_exchange_put in a loop over rt_dest)" \
        "$(grep -c 'rt_exchange_put' <<<"$c")" 0
    expect_match "$name: delivered by rt_mcast_run" "$c" 'rt_mcast_run\(rt_mc\)'
    expect_match "$name: every send is a multicast, so no per-receiver exchange is created" "$c" 'rt_exchange \*rt_x = NULL;'
    [ "${3:-}" = box ] && expect_match "$name: extents looked up per processor" "$c" '_ext_tab\['
    for np in 2 3 4; do
        sim=$(P sim "$node" -D procs=$np -D n=23 --json 2>/dev/null | json "j['checksum'] if j['verified'] else 'unverified'" 2>/dev/null)
        out=$(P run "$node" -np $np -D n=23 --json 2>&1 | tail -1)
        expect_eq "$name -np $np: verified, and the run's checksum is the simulation's" \
            "$(printf '%s' "$out" | json "str(j['match']) + ' ' + j['checksum']" 2>/dev/null || printf '%s' "$out")" "True $sim"
    done
}

if chain "$TMP/lu.apm" "$STM_ROWS" "kind=cyclic procs=2"; then
    ok "lu rows (sigma=i) cyclic: the chain applies"
    check_leaf "lu rows cyclic" 5
else
    fail "lu rows (sigma=i) cyclic: the chain applies" "see above"
fi
if chain "$TMP/lu.apm" "$STM_COLS" "kind=cyclic procs=2" relcoord; then
    ok "lu columns (sigma=j) cyclic: the chain applies (relcoord)"
    check_leaf "lu columns cyclic" 6 box
else
    fail "lu columns (sigma=j) cyclic: the chain applies" "see above"
fi

# 2mm rows blocked (every statement at t = 0, sigma = i; relcoord): each rank's rows start at 0, so
# every extent is the same on every processor: a parameter in the inlined index, not the table.
# A row's length known to the compiler lets gcc vectorise the j loop around each k reduction
# (tmp[i][j] += A[i][k] * B[k][j], two j at a time) as it does PolyBench's sequential C: checked
# where the compiler vectorises the sequential kernel's j loops.
STM_2MM="theta.S1=0 sigma.S1=i theta.S2=0 sigma.S2=i theta.S3=0 sigma.S3=i theta.S4=0 sigma.S4=i inner=seq"
if chain "$ROOT/examples/polybench/2mm.apm" "$STM_2MM" "kind=blocked procs=2" relcoord &&
    P export 6 -o "$TMP/mm2.exp" >/dev/null 2>"$TMP/err"; then
    c=$(cat "$TMP"/mm2.exp/*_syndm.c)
    expect_match "2mm rows: B's row length is the parameter nj (the same on every processor), inlined" "$c" \
        'B\[k \* nj \+ j\]'
    expect_eq "2mm rows: no extent table" "$(grep -c '_ext_tab' <<<"$c")" 0
    # the lines of the j loops holding a k loop, and the loops the compiler vectorised
    jk=$(awk '/^static .*void step_/ { s = 1 } /^static .*void mark_/ { s = 0 }
              s && /for \(int64_t j = / { j = NR } s && /for \(int64_t k = / && j && NR - j <= 6 { print j; j = 0 }' \
              "$TMP"/mm2.exp/*_syndm.c | sort -u)
    seqvec=$(gcc -std=c11 -O2 -ffp-contract=off -I"$ROOT/runtime" -fopt-info-vec-optimized -c "$ROOT/tests/bench/pb_2mm.c" -o /dev/null 2>&1 |
             grep 'optimized: loop vectorized')
    if [ -z "$seqvec" ]; then
        echo "# 2mm rows: j loops not checked: this compiler does not vectorise the sequential kernel's either"
    else
        expvec=$(make -C "$TMP/mm2.exp" EXTRA_CFLAGS=-fopt-info-vec-optimized 2>&1 >/dev/null |
                 sed -n 's/^[^:]*_syndm\.c:\([0-9]*\):[0-9]*: optimized: loop vectorized.*/\1/p' | sort -u)
        expect_eq "2mm rows: two j loops around a k reduction" "$(wc -l <<<"$jk")" 2
        expect_eq "2mm rows: the compiler vectorises both (as the sequential C's; the export's Makefile flags)" \
            "$(comm -12 <(echo "$jk") <(echo "$expvec") | wc -l)" 2
    fi
    sim=$(P sim 6 --json 2>/dev/null | json "j['checksum'] if j['verified'] else 'unverified'" 2>/dev/null)
    out=$(P run 6 -np 2 --json 2>&1 | tail -1)
    expect_eq "2mm rows -np 2: the run's checksum is the simulation's" \
        "$(printf '%s' "$out" | json "str(j['match']) + ' ' + j['checksum']" 2>/dev/null || printf '%s' "$out")" "True $sim"
else
    fail "2mm rows blocked: the chain applies and exports" "$(tail -2 "$TMP/err" 2>/dev/null)"
fi

# the runtime alone: rt_mcast to every range of ranks, values and order as put
cat >"$TMP/t_mcast.c" <<'EOF'
/* Every rank puts, for every range lo .. hi, records (index = 1000 * rank + 10 * lo + hi);
 * each rank checks it got exactly the records of the ranges holding it, from the other ranks. */
#include "rt.h"
#include <stdio.h>
int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    int size = rt_size(MPI_COMM_WORLD), me = rt_rank(MPI_COMM_WORLD), bad = 0;
    rt_mcast *m = rt_mcast_new(MPI_COMM_WORLD);
    for (int step = 0; step < 3; step++) {
        int64_t want = 0, sum = 0;
        for (int lo = 0; lo < size; lo++)
            for (int hi = lo; hi < size; hi++) {
                rt_mcast_put(m, lo, hi, 1000 * me + 10 * lo + hi, (double)(me + step));
                for (int s = 0; s < size; s++)
                    if (s != me && me >= lo && me <= hi) want += 1000 * s + 10 * lo + hi;
            }
        rt_mcast_run(m);
        const rt_record *r;
        size_t n = rt_mcast_received(m, &r);
        for (size_t i = 0; i < n; i++) {
            sum += r[i].index;
            if (r[i].value != (double)(r[i].index / 1000 + step)) bad++;
            if (i && r[i].index / 1000 < r[i - 1].index / 1000) bad++;   /* by sender */
        }
        if (sum != want) bad++;
    }
    rt_mcast_free(m);
    printf("rank %d bad %d\n", me, bad);
    rt_finalize();
    return 0;
}
EOF
if rt_build "$TMP/t_mcast" "$TMP/t_mcast.c" 2>"$TMP/err"; then
    for np in 2 3 4; do
        out=$(mpi_run $np "$TMP/t_mcast")
        expect_eq "rt_mcast -np $np: every rank gets exactly its ranges' records" "$(grep -c 'bad 0$' <<<"$out")" $np
    done
else
    fail "rt_mcast test builds" "$(tail -3 "$TMP/err")"
fi
finish
