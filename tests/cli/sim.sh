#!/usr/bin/env bash
# `polyapm sim` beyond the thesis figures: the other examples verify, machine profiles from files,
# --set, the three cost models (figures computed by hand below), --trace, and bad options.
source "$(dirname "$0")/../lib.sh"
EX=$ROOT/examples

for f in lu matmul jacobi1d findiff; do
    "$POLYAPM" sim "$EX/$f.apm" -D n=12 --json >"$TMP/j" 2>"$TMP/err"; rc=$?
    expect_eq "$f n=12 verified, exit 0" "$(json "j['verified']" <"$TMP/j" 2>/dev/null) $rc" "True 0"
done
# matmul: per element n multiplications and n accumulations, so 2 n^3 ticks
"$POLYAPM" sim "$EX/matmul.apm" -D n=8 --json >"$TMP/j"
expect_eq "matmul n=8 aggregate work 2n^3 = 1024" "$(json "int(j['aggregate_work'])" <"$TMP/j")" 1024
# the same instance twice gives the same checksum; another instance another one
c1=$("$POLYAPM" sim "$EX/lu.apm" -D n=10 --json | json "j['checksum']")
c2=$("$POLYAPM" sim "$EX/lu.apm" -D n=10 --json | json "j['checksum']")
c3=$("$POLYAPM" sim "$EX/lu.apm" -D n=11 --json | json "j['checksum']")
expect_eq "lu checksum is deterministic" "$c1" "$c2"
[ "$c1" != "$c3" ] && ok "lu checksum depends on n" || fail "lu checksum depends on n" "$c1 = $c3"

# A profile file.  FD SynCommAPM n=16 on 4 processors, per processor and step: work
# 15*15 + 49*21 = 1254, 14 words out and in to/from 2 partners, b(4) = 3*10 = 30.
cat >"$TMP/m.prof" <<'PROF'
# a test machine
name testbox
tick_seconds 1e-9
normsent 1
normrcvd 2
mstartup_s 5
mstartup_r 5
barrier_slope 10
barrier_const 0
coalesce 1
ts 100
tw 1
g 3
PROF
fd=$EX/thesis/fd-syncomm.apm
cost() { "$POLYAPM" sim "$fd" -D n=16 --machine "$TMP/m.prof" "$@" --json | json "'%.6f' % j['cost']"; }
# polyapm: 1254 + 14*1 + 2*5 + 14*2 + 2*5 + 30 = 1346 per step, 21 steps
expect_eq "polyapm model, profile file" "$(cost)" "28266.000000"
# without coalescing the startups count per message (14 each way): 1254 + 14 + 70 + 28 + 70 + 30
expect_eq "polyapm model, coalesce 0" "$(cost --set coalesce=0)" "30786.000000"
# bsp: 1254 + g*14 + l(4) = 1254 + 42 + 30
expect_eq "bsp model" "$(cost --model bsp)" "27846.000000"
secs=$("$POLYAPM" sim "$fd" -D n=16 --machine "$TMP/m.prof" --json | json "round(j['seconds'], 12)")
expect_eq "predicted seconds = ticks * tick_seconds" "$secs" "2.8266e-05"
expect_eq "machine name from the file" "$("$POLYAPM" sim "$fd" -D n=16 --machine "$TMP/m.prof" --json | json "j['machine']")" testbox

# --trace: one line per time step
lines=$("$POLYAPM" sim "$fd" -D n=16 --trace | grep -cE '^ +[0-9]+ +[0-9]+ ')
expect_eq "--trace prints 21 steps" "$lines" 21

# bad machine profiles and options
printf 'normsent 1\nbogus 3\n' >"$TMP/bad.prof"
"$POLYAPM" sim "$fd" -D n=16 --machine "$TMP/bad.prof" >/dev/null 2>"$TMP/err"; rc=$?
expect_eq "bad profile: exit 1" "$rc" 1
expect_match "bad profile: file:line named" "$(cat "$TMP/err")" "bad.prof:2"
"$POLYAPM" sim "$fd" --machine nosuchmachine >/dev/null 2>"$TMP/err"
expect_eq "unknown machine: exit 1" "$?" 1
"$POLYAPM" sim "$fd" -D nosuch=3 >/dev/null 2>"$TMP/err"
expect_eq "unknown parameter: usage exit 2" "$?" 2
expect_match "unknown parameter: named" "$(cat "$TMP/err")" "nosuch"
# the same for a workspace's node (it was simulated with the -D ignored)
"$POLYAPM" init "$fd" -o "$TMP/fdws.pdg" >/dev/null
"$POLYAPM" -w "$TMP/fdws.pdg" sim ROOT -D nosuch=3 >/dev/null 2>"$TMP/err"
expect_eq "a node, unknown parameter: usage exit 2" "$?" 2
expect_match "a node, unknown parameter: named" "$(cat "$TMP/err")" "node 1 has no parameter 'nosuch'"
expect_eq "a node, a known parameter: simulated" "$("$POLYAPM" -w "$TMP/fdws.pdg" sim ROOT -D n=16 --json | json "j['violations_total'] == 0 and j['params']['n'] == 16")" True
"$POLYAPM" sim "$fd" --set nosuch=3 >/dev/null 2>&1
expect_eq "unknown --set key: usage exit 2" "$?" 2
"$POLYAPM" sim "$fd" -D procs=0 >/dev/null 2>"$TMP/err"; rc=$?
expect_eq "procs=0: failure exit 1" "$rc" 1
# a program verified against the wrong source is not verified
"$POLYAPM" sim "$fd" -D n=16 --against "$EX/jacobi1d.apm" >/dev/null 2>&1
expect_eq "against an unrelated source: exit 1" "$?" 1
finish
