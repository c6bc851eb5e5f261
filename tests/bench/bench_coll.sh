#!/usr/bin/env bash
# Collectives in the simulator: an allreduce(+) of 10^6 doubles in all (64 processors, blocks of
# 15625) and the polyeval program (bcast; scan(*); map; reduce(+)) at m = 10^5 on 64 processors.
# Prints seconds (the simulator's own run time, best of 3) and elements per second.
set -u
: "${ROOT:?}" "${BUILD:?}" "${POLYAPM:?}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/allreduce.apm" <<'APM'
program allreduce
level syncomm
param procs = 64, m = 15625
array b[0 .. procs - 1][0 .. m - 1] double
array s[0 .. procs - 1][0 .. m - 1] double
init b[q][j] = q + j / 8.0
output s[0]

for t = 0 .. 0, rp = 0 .. procs - 1 proc {
  R: s[rp] = allreduce(+) b[rp]
}
APM
python3 - "$POLYAPM" "$tmp/allreduce.apm" "$ROOT/examples/polyeval.apm" <<'PY'
import json, subprocess, sys
polyapm, allreduce, polyeval = sys.argv[1:4]
def best(cmd):
    runs = []
    for _ in range(3):
        r = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True)
        runs.append(json.loads(r.stdout))
    return min(runs, key=lambda j: j["sim_seconds"])
j = best([polyapm, "sim", allreduce, "--json"])
n = 64 * 15625
print(f"allreduce(+) of {n} doubles over 64 processors: {j['sim_seconds']:.3f} s, "
      f"{n / j['sim_seconds']:.3g} elements/s (verified against nothing; violations {j['violations_total']})")
j = best([polyapm, "sim", polyeval, "-D", "procs=64", "-D", "m=100000", "--json"])
n = 64 * 100000
print(f"polyeval m=100000 on 64 processors: {j['sim_seconds']:.3f} s, {n / j['sim_seconds']:.3g} elements/s "
      f"(block elements of all processors; verified {j['verified']})")
PY
