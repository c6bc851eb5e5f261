#!/usr/bin/env bash
# tests/mpi/export_steps.sh — the record path's exported steps as a careful human writes them
# (issue 16, item 2): PolyBench's atax with the leaf explore finds (the row products at step 0 on
# their rows' processors, y accumulated one row a step: a pipeline of m + 1 steps):
#   - the delivery, a collective of every rank, runs only at the steps where some processor
#     sends (export_steps.c: the sends' domains projected on t, the parameters at their values):
#     atax sends once, at t = b, where the last row of processor 0 is done;
#   - the loop over j computes y's row without its send, and the row goes out after it as one
#     run of records (export_runs.c: each element sent is final when the loop ends; the send's
#     condition, which does not change in the loop, tested once): gcc vectorises the loop, as it
#     does the sequential kernel's;
#   - the loop over p whose statements hold at p = 0, at p = t - 1, or at step 0 for every p
#     runs only at those points (export_points.c), not over the whole block at every step;
# and the runs print the simulation's checksum at every rank count it verifies and at other
# sizes.  gemver's pipeline sends x on at every step, to another processor at three: the
# delivery runs at those.  LU's rows leaf sends at the odd steps only: its delivery is under that
# condition; FD's (through records) at every step but the last.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
. "$(dirname "$0")/export.inc"

STM_ATAX="theta.S1=0 sigma.S1=0 theta.S2=0 sigma.S2=i theta.S3=0 sigma.S3=i theta.S4=i+1 sigma.S4=i inner=seq"
if chain "$ROOT/examples/polybench/atax.apm" "$STM_ATAX" "kind=blocked procs=2" relcoord &&
    P export 6 -o "$TMP/ax" >/dev/null 2>"$TMP/err" && P export 6 -D m=41 -o "$TMP/ax41" >/dev/null 2>>"$TMP/err"; then
    ok "atax rows leaf: the chain applies and exports"
    c=$(cat "$TMP"/ax/*_syndm.c)
    cs=$(tr -s ' \n' ' ' <<<"$c")   # the text with its lines joined (they are wrapped at 100 columns)
    # m = 38, procs = 2: b = 19; m = 41: b = 21
    expect_match "atax: the delivery runs at t = b alone (m = 38: 19)" "$c" \
        '^ +if \(t == 19\)   /\* the steps at which some processor sends \*/$'
    expect_match "atax: at m = 41, t = 21" "$(cat "$TMP"/ax41/*_syndm.c)" '^ +if \(t == 21\)   /\* the steps at which some'
    expect_match "atax: the loop over j's send goes out after it as a run, its condition tested once" "$cs" \
        '/\* the loop.s sends, a run of records each: its elements are final now \*/ const int64_t j = 0; /\* the run.s first element \*/ const int64_t rt_n = n - j; if \(rt_n > 0 && \(m >= t \+ 1 && imod\(p \+ 1, b\) == 0\)\) \{ /\* send y\[j\] \*/'
    expect_eq "atax: no put per element in the step, one run" \
        "$(grep -c 'rt_exchange_put(' <<<"$c") $(grep -c 'rt_exchange_put_run(' <<<"$c")" "0 1"
    expect_match "atax: the loop over p runs at its points" "$c" \
        '/\* the loop over p: its body runs only where a test holds, at 0, isub\(t, 1\), and at every value'
    expect_match "atax: ... and over the whole block at step 0" "$c" 'const int p_all = \(t == 0\);'
    expect_match "atax: the next point" "$cs" \
        'for \(int64_t p = p_all \? .* : rt_point_from\(p_at, 2, .*\); p <= p_end; p = p_all \? p \+ 1 : rt_point_from\(p_at, 2, p \+ 1\)\) \{'
    # the S4 loops (step function): the version without sends is vectorised where gcc
    # vectorises the sequential kernel's
    s4=$(awk '/^static .*void step_/ { s = 1 } /^static .*void mark_/ { s = 0 }
              s && /for \(int64_t j = / { j = NR } s && /S4 \*\// { print j }' "$TMP"/ax/*_syndm.c | sort -u)
    expect_eq "atax: one S4 loop (its send after it)" "$(wc -l <<<"$s4")" 1
    seqvec=$(gcc -std=c11 -O2 -ffp-contract=off -I"$ROOT/runtime" -fopt-info-vec-optimized -c "$ROOT/tests/bench/pb_atax.c" \
             -o /dev/null 2>&1 | grep -c 'optimized: loop vectorized')
    if [ "$seqvec" = 0 ]; then
        echo "# atax: S4 not checked: this compiler vectorises none of the sequential kernel's loops"
    else
        expvec=$(make -C "$TMP/ax" EXTRA_CFLAGS=-fopt-info-vec-optimized 2>&1 >/dev/null |
                 sed -n 's/^[^:]*_syndm\.c:\([0-9]*\):[0-9]*: optimized: loop vectorized.*/\1/p' | sort -u)
        expect_eq "atax: the compiler vectorises the S4 loop (the export's Makefile flags)" \
            "$(comm -12 <(echo "$s4") <(echo "$expvec") | wc -l)" 1
    fi
    every_rank_count "atax rows" 6
    for sz in "m=41 -D n=29" "m=7 -D n=5" "m=1 -D n=3"; do
        sim=$(P sim 6 -D $sz --json 2>/dev/null | json "j['checksum'] if j['verified'] else 'unverified'" 2>/dev/null)
        out=$(P run 6 -np 2 -D $sz --json 2>&1 | tail -1)
        expect_eq "atax -np 2 -D $sz: the run's checksum is the simulation's" \
            "$(printf '%s' "$out" | json "str(j['match']) + ' ' + j['checksum']" 2>/dev/null || printf '%s' "$out")" "True $sim"
    done
else
    fail "atax rows leaf: the chain applies and exports" "$(tail -2 "$TMP/err" 2>/dev/null)"
fi

# gemver's pipeline (x from row j's processor to row j + 1's, theta.S2 = j + 1): commgen sends x[i]
# on by pieces (to t / b before the last row, to i / b at it), not to a destination multiplied by
# a condition; a send to the sender's own processor is no message, so the delivery runs at the
# block boundary and the last two steps alone (n = 40, b = 20), and the loop over i runs without
# its sends where their destination is this processor
STM_GEMVER="theta.S1=0 sigma.S1=i theta.S2=j+1 sigma.S2=j theta.S3=n+1 sigma.S3=i theta.S4=n+2 sigma.S4=i inner=seq"
if chain "$ROOT/tests/sim/gemver.apm" "$STM_GEMVER" "kind=blocked procs=2" && P export 5 -o "$TMP/gv" >/dev/null 2>"$TMP/err"; then
    sends=$(P show 4 | grep 'send x\[i\] to [it] / b ')
    expect_eq "gemver: x[i] sent on by pieces, each to one processor" "$sends" \
"        send x[i] to i / b at t + 1 when t == n && n >= i + 2
        send x[i] to t / b at t + 1 when n >= t + 1"
    c=$(cat "$TMP"/gv/*_syndm.c)
    expect_match "gemver: the delivery runs at t = b and the last two steps" "$c" \
        '^ +if \(\(\(t >= 40\) && \(t <= 41\)\) \|\| \(t == 20\)\)   /\* the steps at which some processor sends \*/$'
    expect_match "gemver: the loop over i sends only where x goes to another processor" "$c" \
        '^ +if \(\(\(t == n\)\) \|\| \(\(n >= t \+ 1\) && ifloordiv\(t, b\) != me\)\) \{$'
    every_rank_count "gemver pipeline" 5
    for sz in 41 7 2; do
        sim=$(P sim 5 -D n=$sz --json 2>/dev/null | json "j['checksum'] if j['verified'] else 'unverified'" 2>/dev/null)
        out=$(P run 5 -np 2 -D n=$sz --json 2>&1 | tail -1)
        expect_eq "gemver -np 2 -D n=$sz: the run's checksum is the simulation's" \
            "$(printf '%s' "$out" | json "str(j['match']) + ' ' + j['checksum']" 2>/dev/null || printf '%s' "$out")" "True $sim"
    done
else
    fail "gemver pipeline: the chain applies and exports" "$(tail -2 "$TMP/err" 2>/dev/null)"
fi

# LU rows cyclic (2k / 2k+1): the rows of U go out at the odd steps only
sed 's/^param n = 40$/param n = 19, procs = 2/' "$ROOT/examples/polybench/lu.apm" >"$TMP/lu.apm"
STM_LU="theta.S1=2*k+1 sigma.S1=i theta.S2=2*j sigma.S2=i theta.S3=2*k+1 sigma.S3=i inner=seq"
if chain "$TMP/lu.apm" "$STM_LU" "kind=cyclic procs=2" && P export 5 -o "$TMP/lu" >/dev/null 2>"$TMP/err"; then
    c=$(cat "$TMP"/lu/*_syndm.c)
    expect_match "lu rows: delivered at the odd steps (before the last two)" "$c" \
        '^ +if \(\(t <= 33\) && \(imod\(iadd\(t, 1\), 2\) == 0\)\)   /\* the steps at which some processor sends \*/$'
    for np in 2 3; do
        sim=$(P sim 5 -D procs=$np --json 2>/dev/null | json "j['checksum'] if j['verified'] else 'unverified'" 2>/dev/null)
        out=$(P run 5 -np $np --json 2>&1 | tail -1)
        expect_eq "lu rows -np $np: the run's checksum is the simulation's" \
            "$(printf '%s' "$out" | json "str(j['match']) + ' ' + j['checksum']" 2>/dev/null || printf '%s' "$out")" "True $sim"
    done
else
    fail "lu rows cyclic: the chain applies and exports" "$(tail -2 "$TMP/err" 2>/dev/null)"
fi

# FD (block2d) through records: messages at every step but the last
if chain "$ROOT/examples/findiff.apm" "theta=t sigma=x,y" "kind=block2d procs=4" &&
    P export 5 -D n=16 -D steps=4 --exchange alltoallv -o "$TMP/fd" >/dev/null 2>"$TMP/err"; then
    c=$(cat "$TMP"/fd/*_syndm.c)
    expect_match "fd records: delivered at every step but the last (steps = 4)" "$c" \
        '^ +if \(t <= 3\)   /\* the steps at which some processor sends \*/$'
    for np in 2 4; do
        sim=$(P sim 5 -D n=16 -D steps=4 -D procs=$np --json 2>/dev/null | json "j['checksum'] if j['verified'] else 'unverified'" 2>/dev/null)
        out=$(P run 5 -np $np -D n=16 -D steps=4 --exchange alltoallv --json 2>&1 | tail -1)
        expect_eq "fd records -np $np: the run's checksum is the simulation's" \
            "$(printf '%s' "$out" | json "str(j['match']) + ' ' + j['checksum']" 2>/dev/null || printf '%s' "$out")" "True $sim"
    done
else
    fail "fd records: the chain applies and exports" "$(tail -2 "$TMP/err" 2>/dev/null)"
fi
finish
