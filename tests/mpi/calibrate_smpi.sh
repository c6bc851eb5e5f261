#!/usr/bin/env bash
# tests/mpi/calibrate_smpi.sh — calibrate's LogGP fit (engine/calib.c) against machines whose o, L
# and G are known: the calibration benchmark (runtime/calibrate/bench.c and micro.c) built with smpicc and run
# under smpirun on 2-host clusters written by `polyapm platform --overhead O --profile` (SimGrid's
# times are deterministic), its output fitted by `calibrate --raw`.  The fitted o and L are within
# 20% of the profile's loggp_o and loggp_L (L = 3 link latencies); G only where the overhead is
# below a 256-byte message's link time: SimGrid moves a message's words while the CPU pays the
# next one's overhead (a burst's slope in K is max(o, G·words), where LogGP's sum o + G·words
# is what the fit assumes), so a large overhead hides the words and G comes out low.
source "$(dirname "$0")/../lib.sh"
cd "$TMP"
if ! command -v smpirun >/dev/null || ! command -v smpicc >/dev/null; then
    echo "skip calibrate_smpi: smpirun/smpicc not installed"; finish
fi
smpicc -std=c11 -O2 -Wall -Wextra "$ROOT/runtime/calibrate/bench.c" "$ROOT/runtime/calibrate/micro.c" -o bench 2>cc.err ||
    { fail "smpicc builds the benchmark" "$(tail -3 cc.err)"; finish; }
# within LATENCY BANDWIDTH OVERHEAD KEYS: the fitted keys within 20% of the platform's
within() {
    local name="$1/$2/$3"
    "$POLYAPM" platform -n 2 --latency "$1" --bandwidth "$2" --overhead "$3" -o p.xml --profile p.prof --tick 1e-9 ||
        { fail "$name: platform" "exit $?"; return; }
    smpirun -np 2 -platform p.xml --cfg=smpi/display-timing:no ./bench quick >p.raw 2>run.err ||
        { fail "$name: the benchmark under smpirun" "$(tail -3 run.err)"; return; }
    local fit
    fit=$("$POLYAPM" calibrate --raw p.raw --name sg --no-store --json) || { fail "$name: calibrate --raw" "exit $?"; return; }
    # both profiles in seconds: the platform's ticks are 1e-9 s, the fit's SimGrid's multiply
    expect_eq "$name: fitted $4 within 20% of the platform's" "$(python3 -c "
import json,sys
want = {l.split()[0]: float(l.split()[1]) * 1e-9 for l in open('p.prof') if l[0] != '#'}
p = json.loads(sys.argv[1])['profile']
got = {k: p[k] * p['tick_seconds'] for k in ('loggp_o', 'loggp_L', 'loggp_G')}
print(' '.join('%s %.3g/%.3g' % (k, got[k], want[k]) for k in sorted(got)), file=sys.stderr)
print(all(abs(got[k] - want[k]) <= 0.2 * want[k] for k in sys.argv[2].split()))" "$fit" "$4")" True
}
within 10us 1Gbps 5us "loggp_o loggp_L"
within 50us 10Gbps 20us "loggp_o loggp_L"
within 5us 1Gbps 0.5us "loggp_o loggp_L loggp_G"
finish
