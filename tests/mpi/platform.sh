#!/usr/bin/env bash
# tests/mpi/platform.sh — `polyapm platform` writes a SimGrid cluster with the latency and
# bandwidth asked for, and `run --smpi` on it prices the same program by that network: the FD
# leaf at 16 ranks on 50 us, 1 Gb/s links measures more simulated seconds than on 1 us, 10 Gb/s
# links, both with the simulation's checksum; computation counts at the platform's host speed
# unless --host-speed says otherwise.  Malformed values are usage errors that write nothing.
# --overhead, --factors and --profile: the SMPI configuration and the machine profile that prices
# the cluster (cmd_platform.c).
source "$(dirname "$0")/../lib.sh"
P() { "$POLYAPM" -w "$TMP/fd.pdg" "$@"; }

"$POLYAPM" platform -n 16 --latency 50us --bandwidth 1Gbps -o "$TMP/slow.xml"
expect_eq "platform: exit 0" "$?" 0
expect_match "platform: 16 hosts" "$(cat "$TMP/slow.xml")" 'radical="0-15"'
expect_match "platform: the latency and bandwidth asked for" "$(cat "$TMP/slow.xml")" 'bw="1Gbps" lat="50us"'
expect_match "platform: the backbone ten times the links" "$(cat "$TMP/slow.xml")" 'bb_bw="10Gbps"'
"$POLYAPM" platform -n 16 -o "$TMP/fast.xml"
"$POLYAPM" platform -n 16 --speed 4Gf -o "$TMP/cpu.xml"
expect_match "platform: the host speed asked for" "$(cat "$TMP/cpu.xml")" 'speed="4Gf"'
for bad in "--latency 50" "--latency -1us" "--bandwidth 1Gb/s" "--speed fast" "--backbone 0Gbps"; do
    # shellcheck disable=SC2086
    out=$("$POLYAPM" platform -n 4 $bad -o "$TMP/bad.xml" 2>&1); rc=$?
    expect_eq "platform $bad: usage error" "$rc" 2
    expect_match "platform $bad: says what a value is" "$out" "a positive number and a unit"
done
for n in 0 x 99999999; do
    "$POLYAPM" platform -n $n -o "$TMP/bad.xml" >/dev/null 2>&1
    expect_eq "platform -n $n: usage error" "$?" 2
done
[ -e "$TMP/bad.xml" ] && fail "malformed values write nothing" "bad.xml exists" || ok "malformed values write nothing"
# SMPI's factors flat by default, kept with --factors simgrid; --overhead on both sides
expect_match "platform: flat latency factor by default" "$(cat "$TMP/slow.xml")" 'smpi/lat-factor" value="0:1"'
"$POLYAPM" platform -n 4 --factors simgrid -o "$TMP/sg.xml"
expect_eq "platform --factors simgrid: no factors of its own" "$(grep -c 'smpi/[a-z]*-factor' "$TMP/sg.xml")" 0
"$POLYAPM" platform -n 4 --latency 50us --bandwidth 1Gbps --overhead 20us -o "$TMP/ovh.xml" --profile "$TMP/ovh.prof" --tick 1e-9
xml=$(cat "$TMP/ovh.xml")
for side in os ois or; do expect_match "platform --overhead: smpi/$side" "$xml" "smpi/$side\" value=\"0:2e-05:0\""; done
# the profile: L = 3 latencies (link, backbone, link), o, G = 8 bytes at 1 Gb/s, in ticks of 1 ns
for kv in "tick_seconds 1e-09" "loggp_L 150000" "loggp_o 20000" "loggp_G 64" "ts 190000" "tw 64" "barrier_slope 0" \
          "mstartup_s 95000" "normsent 32" "sync_on_messages 1" "guard_price 0"; do
    expect_eq "platform --profile: $kv" "$(awk -v k="${kv% *}" '$1 == k {print $2 + 0}' "$TMP/ovh.prof")" "$(awk -v v="${kv#* }" 'BEGIN {print v + 0}')"
done
# the tick without --tick: the calibrated profile local's, else one flop at the host speed
tick() { awk '$1 == "tick_seconds" {print $2 + 0}' "$1"; }
"$POLYAPM" platform -n 4 --speed 4Gf -o "$TMP/t.xml" --profile "$TMP/flop.prof" 2>/dev/null
expect_eq "platform --profile without a calibrated profile: a flop at 4 Gf" "$(tick "$TMP/flop.prof")" "$(awk 'BEGIN {print 2.5e-10 + 0}')"
mkdir -p "$XDG_CONFIG_HOME/polyapm/machines" && printf 'name local\ntick_seconds 3e-10\n' >"$XDG_CONFIG_HOME/polyapm/machines/local"
"$POLYAPM" platform -n 4 --latency 30us -o "$TMP/t.xml" --profile "$TMP/local.prof"
expect_eq "platform --profile: the calibrated profile local's tick" "$(tick "$TMP/local.prof")" "$(awk 'BEGIN {print 3e-10 + 0}')"
expect_eq "platform --profile: L in those ticks (3 x 30 us / 3e-10 s)" "$(awk '$1 == "loggp_L" {print $2 + 0}' "$TMP/local.prof")" 300000
rm -f "$XDG_CONFIG_HOME/polyapm/machines/local"
expect_eq "platform --profile: sim reads it" "$("$POLYAPM" sim "$ROOT/examples/findiff.apm" -D n=8 --machine "$TMP/ovh.prof" --model loggp --json | json "j['machine']")" ovh
for bad in "--overhead 20" "--factors none" "--tick 0" "--tick 1ns"; do
    # shellcheck disable=SC2086
    out=$("$POLYAPM" platform -n 4 $bad -o "$TMP/bad2.xml" --profile "$TMP/bad2.prof" 2>&1); rc=$?
    expect_eq "platform $bad: usage error" "$rc" 2
done
[ -e "$TMP/bad2.xml" ] || [ -e "$TMP/bad2.prof" ] && fail "bad values write no profile" "written" || ok "bad values write no profile"

if ! command -v smpirun >/dev/null || ! command -v smpicc >/dev/null; then
    echo "skip platform runs: smpirun/smpicc not installed"; finish
fi
sed 's/^param n = 256, steps = 21/param n = 64, steps = 6/' "$ROOT/examples/findiff.apm" >"$TMP/fd.apm"
"$POLYAPM" init "$TMP/fd.apm" -o "$TMP/fd.pdg" >/dev/null && P apply ROOT stm theta=t sigma=x,y >/dev/null &&
    P apply 2 tile kind=block2d procs=16 >/dev/null && P apply 3 commgen >/dev/null && P apply 4 memdist >/dev/null ||
    { fail "the FD chain" "a step did not apply"; finish; }
declare -A secs
for pf in fast slow; do
    out=$(P run 5 -np 16 --smpi "$TMP/$pf.xml" --json 2>&1 | tail -1)
    expect_eq "FD on the $pf platform: the simulation's checksum" "$(printf '%s' "$out" | json "j['match']" 2>/dev/null || echo "$out")" True
    secs[$pf]=$(printf '%s' "$out" | json "j['seconds']" 2>/dev/null || echo 0)
done
expect_eq "50 us, 1 Gb/s links: more simulated seconds than 1 us, 10 Gb/s (${secs[slow]} vs ${secs[fast]})" \
    "$(python3 -c "print(${secs[slow]} > ${secs[fast]} * 1.5)")" True
# computation counts by default (smpi/host-speed = the platform's 1Gf: as long as it runs here);
# SimGrid's own default (20000f) makes it nearly free, and --host-speed 4Gf four times slower
for hs in default 20000f 4Gf; do
    opt=(); [ $hs = default ] || opt=(--host-speed $hs)
    out=$(P run 5 -np 16 -D n=1024 --smpi "$TMP/fast.xml" "${opt[@]}" --json 2>&1 | tail -1)
    secs[$hs]=$(printf '%s' "$out" | json "j['seconds'] if j['match'] else 0" 2>/dev/null || echo 0)
done
expect_eq "n = 1024: computation counts by default (${secs[default]} s vs ${secs[20000f]} s nearly free)" \
    "$(python3 -c "print(${secs[default]} > ${secs[20000f]} * 3)")" True
expect_eq "--host-speed 4Gf: this machine as a 4 Gf host, computation slower (${secs[4Gf]} s vs ${secs[default]} s)" \
    "$(python3 -c "print(${secs[4Gf]} > ${secs[default]} * 1.5)")" True
finish
