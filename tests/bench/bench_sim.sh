#!/usr/bin/env bash
# The simulator against native C: LU decomposition at n=512 at source level (issue: ≤ 10×), and
# the simulator's peak memory against the arrays' own size (issue: ≤ 2×), and FD at n=2048 with
# only its live time planes against every plane (--all-planes): time and memory.
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
# live time planes: FD at n=2048 (21 steps) at source and syndm, with only the live planes and
# with every plane (--all-planes), side by side: time and peak memory
python3 - "$POLYAPM" "$ROOT/examples/findiff.apm" "$ROOT/examples/thesis/fd-syndm.apm" <<'PY'
import subprocess, sys, time
polyapm, src, dm = sys.argv[1:4]
def run(cmd):  # seconds and peak RSS (KiB) of one run
    t = time.perf_counter()
    r = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    return time.perf_counter() - t, int(r.stderr.strip().splitlines()[-1])
for name, prog, extra in (("source", src, []), ("syndm, 4 procs", dm, ["--against", src])):
    cmd = [polyapm, "sim", prog, "-D", "n=2048", "--json"] + extra
    live = min(run(cmd) for _ in range(2))
    every = min(run(cmd + ["--all-planes"]) for _ in range(2))
    print(f"FD n=2048 {name}: live planes {live[0]:.2f} s {live[1]/1024:.0f} MiB, every plane "
          f"{every[0]:.2f} s {every[1]/1024:.0f} MiB; time ratio {live[0]/every[0]:.2f}x, memory {live[1]/every[1]:.2f}x")
PY
