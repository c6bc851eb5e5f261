#!/usr/bin/env bash
# commgen on kernels that update their arrays in place (PolyBench's forms, tests/xf/inplace/):
# the sends follow value-based flow dependences (the last write before each read), so each
# value travels once to each processor that reads it, at the step after its write.  Each chain
# stm -> tile blocked -> commgen must verify at syncomm with no violation, and the messages of
# every step must be exactly those that tests/xf/inplace/oracle.py works out from the kernel
# (a value sent twice, an intermediate value or a value nobody reads would change the counts).
# Hand-written syn programs that no message at t + 1 can serve are refused with the dependence.
source "$(dirname "$0")/../lib.sh"
IN="$ROOT/tests/xf/inplace"

# messages per step of a syncomm simulation, as "time:elements" for the steps that send
step_messages() {
    "$POLYAPM" sim "$@" --trace 2>&1 |
        awk '/^step +time/ {on = 1; next} /^checksum/ {on = 0} on && NF == 5 && $5 > 0 {printf "%s%s:%s", sep, $2, $5; sep = " "}'
}

# chain NAME KERNEL STM-ARGS...: NAME's syn, tiled (blocked, procs=2) and syncomm programs in $TMP
chain() {
    local name=$1 kernel=$2
    shift 2
    "$POLYAPM" apply "$IN/$kernel.apm" stm "$@" -o "$TMP/$name-syn.apm" &&
        "$POLYAPM" apply "$TMP/$name-syn.apm" tile kind=blocked procs=2 -o "$TMP/$name-t.apm" &&
        "$POLYAPM" apply "$TMP/$name-t.apm" commgen -o "$TMP/$name-c.apm" &&
        "$POLYAPM" apply "$TMP/$name-c.apm" memdist -o "$TMP/$name-d.apm"
    expect_eq "$name: stm, tile blocked, commgen, memdist exit 0" "$?" 0
}

# check NAME KERNEL "n procs [steps]" [-D ...]: verified, no violations, the oracle's messages
check() {
    local name=$1 kernel=$2 size=$3
    shift 3
    set -- $size
    local n=$1 procs=$2 steps=${3:-}
    local defs=(-D n=$n -D procs=$procs)
    [ -n "$steps" ] && defs+=(-D steps=$steps)
    "$POLYAPM" sim "$TMP/$name-c.apm" "${defs[@]}" --against "$IN/$kernel.apm" --json >"$TMP/s.json"
    expect_eq "$name n=$n procs=$procs: syncomm verified, no violations" \
        "$(json "j['verified'] and j['violations_total'] == 0" <"$TMP/s.json")" True
    "$POLYAPM" sim "$TMP/$name-d.apm" "${defs[@]}" --against "$IN/$kernel.apm" --json >"$TMP/s.json"
    expect_eq "$name n=$n procs=$procs: syndm verified, no violations" \
        "$(json "j['verified'] and j['violations_total'] == 0" <"$TMP/s.json")" True
    expect_eq "$name n=$n procs=$procs: messages per step are the needed ones" \
        "$(step_messages "$TMP/$name-c.apm" "${defs[@]}")" "$(python3 "$IN/oracle.py" "$kernel" $n $procs $steps)"
}

chain jacobi1d jacobi1d_ab theta.SB=2*t theta.SA=2*t+1 sigma=i
check jacobi1d jacobi1d_ab "16 2 4"
check jacobi1d jacobi1d_ab "23 3 5"
# one boundary value per direction per half step: 2 per time step and direction
"$POLYAPM" sim "$TMP/jacobi1d-c.apm" --json >"$TMP/s.json"
expect_eq "jacobi1d: 7 sends per processor (4 steps, both arrays, none after the last)" \
    "$(json "j['send']" <"$TMP/s.json")" "[7, 7]"

chain jacobi2d jacobi2d_ab theta.SB=2*t theta.SA=2*t+1 sigma=i inner=seq
check jacobi2d jacobi2d_ab "8 2 3"
check jacobi2d jacobi2d_ab "11 3 2"

# three references to the row above and three to the row below: one send per direction
chain seidel2d seidel2d theta=2*t+i sigma=i inner=seq
expect_eq "seidel2d: one send per direction, not one per reference" "$(grep -c 'send A' "$TMP/seidel2d-c.apm")" 2
check seidel2d seidel2d "8 2 3"
check seidel2d seidel2d "10 3 4"

# x is initialised, then overwritten by a partial sum per j, then divided: only the final value
# travels (to the rows below)
chain trisolv trisolv theta.X0=0 sigma.X0=i theta.XS=i+j+1 sigma.XS=i theta.XD=2*i+1 sigma.XD=i
expect_eq "trisolv: only XD's value is sent" \
    "$(awk '/^ *[A-Z0-9]+:/ {s = $1} /send/ {print s}' "$TMP/trisolv-c.apm")" "XD:"
check trisolv trisolv "8 2"
check trisolv trisolv "13 3"

# A[i][j] is updated for each k < i by U: only the last update travels, to the rows below
chain lu lu theta.L=2*k+1 sigma.L=i theta.D=2*j sigma.D=i theta.U=2*k+1 sigma.U=i inner=seq
expect_match "lu: the send of U is guarded by its last k (2p == t+1: k = i - 1)" \
    "$(grep send "$TMP/lu-c.apm")" "when 2 \* n >= t \+ 5 && 2 \* p == t \+ 1$"
check lu lu "6 2"
check lu lu "9 3"

chain floyd floyd theta.S1=3*k theta.S2=3*k+1 theta.S3=3*k+2 sigma=i inner=seq
check floyd floyd "6 2"
check floyd floyd "8 3"

chain floyd-planes floyd-planes theta=k sigma=i inner=seq
check floyd-planes floyd-planes "6 2"
check floyd-planes floyd-planes "7 3"

# refusals: a value read in the step of its write on another processor; an element overwritten
# in the step another processor reads it
"$POLYAPM" apply "$IN/race-syn.apm" commgen -o "$TMP/x.apm" 2>"$TMP/err"; rc=$?
expect_match "race: refused, a flow dependence within a step" "$rc $(cat "$TMP/err")" \
    "^1 .*dependence 1 \(flow, S -> S through a\[p - 1\]\) cannot be served by messages: the value is read before its message can arrive"
"$POLYAPM" apply "$IN/race-anti-syn.apm" commgen -o "$TMP/x.apm" 2>"$TMP/err"; rc=$?
expect_match "race-anti: refused, an anti dependence within a step" "$rc $(cat "$TMP/err")" \
    "^1 .*\(anti, S -> S through a\[p \+ 1\]\) cannot be served by messages: the next value's message could arrive before"
finish
