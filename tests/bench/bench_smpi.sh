#!/usr/bin/env bash
# SimGrid at scale: the FD leaf (block2d, relcoord) run with `polyapm run --smpi` on the
# 1024-host platform at 64, 256 and 1024 ranks (n = 512, 1024, 2048: a 64 x 64 tile each):
# wall seconds of the run (its simulation stored first, so they are smpirun's and the build's),
# the simulated seconds, and SimGrid's own split of the time.  Before SimGrid's ring Alltoallv
# and the halo pattern's sparse setup, 256 ranks took 5 min 50 s and 1024 did not end in 14 min.
# Since computation counts at the platform's host speed, a step's computation ends at a different
# instant on every rank, and at smpirun's 1 ns precision each instant re-solved the sharing of
# every message in flight; and rank 0's output gather received 1023 ranks' messages for 64 slabs
# from one queue.  Before run's surf/precision 1e-7 and the gather's barrier (a quiet machine):
#   64 ranks 1.3 s, 256 ranks 4.3 s, 1024 ranks 239.9 s (loop 0.01069 simulated s);
# after: 1.4 s, 3.1 s, 25.6 s (0.01057 s; the simulated loop within its run-to-run spread).
# SMPI_RANKS="64 256" picks the sizes.
set -u
: "${ROOT:?}" "${POLYAPM:?}"
command -v smpirun >/dev/null && command -v smpicc >/dev/null || { echo "skip: SimGrid (smpirun, smpicc) not installed"; exit 0; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
P() { "$POLYAPM" -w "$tmp/fd.pdg" "$@"; }
"$POLYAPM" init "$ROOT/examples/findiff.apm" -o "$tmp/fd.pdg" >/dev/null
P apply ROOT stm theta=t sigma=x,y >/dev/null
printf '%6s %6s %10s %12s %s\n' ranks n "wall s" "simulated s" "checksum"
for np in ${SMPI_RANKS:-64 256 1024}; do
    n=$((64 * $(echo "sqrt($np)" | bc)))
    tile=$(P apply 2 tile kind=block2d procs=$np -q) && c=$(P apply "$tile" commgen -q) &&
        m=$(P apply "$c" memdist -q) && leaf=$(P apply "$m" relcoord -q) || { echo "$np: the derivation failed"; continue; }
    P sim "$leaf" -D n=$n -D procs=$np >/dev/null 2>&1
    t0=$(date +%s.%N)
    out=$(P run "$leaf" -np "$np" -D n=$n --smpi "$ROOT/examples/platforms/cluster1024.xml" --json 2>&1)
    s=$(echo "$(date +%s.%N) - $t0" | bc)
    printf '%6d %6d %10.1f %12s %s\n' "$np" "$n" "$s" \
        "$(printf '%s' "$out" | python3 -c "import json,sys; j=json.loads(sys.stdin.read().strip().splitlines()[-1]); print('%.4g' % j['seconds'])" 2>/dev/null || echo '?')" \
        "$(printf '%s' "$out" | python3 -c "import json,sys; j=json.loads(sys.stdin.read().strip().splitlines()[-1]); print('= simulation' if j['match'] else 'DIFFERS')" 2>/dev/null || printf '%s' "$out" | tail -1)"
done
