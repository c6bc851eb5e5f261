#!/usr/bin/env bash
# explore throughput (issue 8): nodes transformed and simulated per second on the LU graph at
# n=128, procs=4, with 1 job and with 2 jobs (worker processes), each on a fresh workspace, and
# the speed-up from the second job.  Printed, never asserted.
set -u
: "${ROOT:?}" "${POLYAPM:?}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
rate() {  # jobs -> "evaluated seconds"
    local ws=$tmp/lu-$1.pdg
    "$POLYAPM" init "$ROOT/examples/lu.apm" -o "$ws" >/dev/null
    "$POLYAPM" -w "$ws" explore ROOT -D procs=4 -D n=128 --budget 200 --machine scali2004 --jobs "$1" --json -q |
        python3 -c "import json,sys; j=json.load(sys.stdin); print(j['evaluated'] - j['from_store'], j['seconds'], j['search_cpu'], j['worker_cpu'])"
}
read -r n1 s1 p1 w1 <<<"$(rate 1)"
read -r n2 s2 p2 w2 <<<"$(rate 2)"
python3 - "$n1" "$s1" "$n2" "$s2" "$p2" "$w2" <<'PY'
import sys
n1, s1, n2, s2, p2, w2 = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
r1, r2 = n1 / s1, n2 / s2
print(f"explore LU n=128 procs=4: 1 job {n1} nodes in {s1:.2f} s = {r1:.2f} nodes/s; "
      f"2 jobs {n2} nodes in {s2:.2f} s = {r2:.2f} nodes/s; speed-up {r2 / r1:.2f}x")
print(f"  2 jobs: the search process used {p2:.2f} s of CPU, the workers {w2:.2f} s "
      f"(workers busy {w2 / s2:.2f} cores on average; this machine is shared)")
PY
