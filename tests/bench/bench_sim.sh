#!/usr/bin/env bash
# The simulator against native C: LU decomposition at n=512 at source level (issue: ≤ 10×), and
# the simulator's peak memory against the arrays' own size (issue: ≤ 2×).
set -u
: "${ROOT:?}" "${BUILD:?}" "${POLYAPM:?}"
N=${LU_N:-512}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/lu_native" "$ROOT/tests/bench/lu_native.c" || exit 1
command -v /usr/bin/time >/dev/null || { echo "bench_sim: needs GNU time (apt-get install time)"; exit 1; }
python3 - "$POLYAPM" "$tmp/lu_native" "$ROOT/examples/lu.apm" "$N" <<'PY'
import resource, subprocess, sys, time
polyapm, native, lu, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def run(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t
sim = [polyapm, "sim", lu, "-D", f"n={n}", "--json"]
best_native = min(run([native, str(n)]) for _ in range(3))
best_sim = min(run(sim) for _ in range(3))
print(f"LU n={n}: native C {best_native:.3f} s, simulator {best_sim:.3f} s, ratio {best_sim/best_native:.2f}x (target <= 10x)")
# peak memory: RSS of a check (parse only) as the baseline, then of the simulation
def peak(cmd):  # peak resident set of one process, in KiB (GNU time)
    r = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return int(r.stderr.strip().splitlines()[-1])
base = peak([polyapm, "check", lu])
full = peak(sim)
arrays = 3 * n * n * 8 / 1024
print(f"LU n={n}: arrays {arrays/1024:.1f} MiB, simulator peak RSS {full/1024:.1f} MiB "
      f"({(full-base)/1024:.1f} MiB above a parse-only run), ratio {(full-base)/arrays:.2f}x (target <= 2x)")
PY
