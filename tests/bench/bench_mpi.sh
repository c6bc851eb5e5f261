#!/usr/bin/env bash
# tests/bench/bench_mpi.sh — the finite-difference baselines side by side (issue 6): the sequential
# C (fd_seq_hand.c), the hand-written MPI stencil with contiguous halo rows (fd_mpi_hand.c), and
# the same on the runtime with its row-block halo exchange, with 2-D tiles (P x 1 unless P is
# square) and with the thesis's per-element all-to-all exchange (fd_mpi_rt.c), at n=2048, 100 steps, np=2; main-loop seconds, best of REPEAT runs, and
# ratios to the hand-written MPI version.  Prints figures only (no assertions on time).
# Overrides: FD_N, FD_STEPS, FD_NP, REPEAT.  When the exporter exists, its FD leaf joins here.
set -u
: "${ROOT:?}"
N=${FD_N:-2048} STEPS=${FD_STEPS:-100} NP=${FD_NP:-2} REPEAT=${REPEAT:-3}
if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then
    echo "bench_mpi: skipped (mpicc/mpirun not installed)"; exit 0
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
B="$ROOT/tests/bench" FLAGS=(-std=c11 -O2 -Wall -Wextra -Werror -ffp-contract=off)
cc "${FLAGS[@]}" "$B/fd_seq_hand.c" -o "$tmp/fd_seq" || exit 1
mpicc "${FLAGS[@]}" "$B/fd_mpi_hand.c" -o "$tmp/fd_mpi" || exit 1
mpicc "${FLAGS[@]}" -I"$ROOT/runtime" "$B/fd_mpi_rt.c" "$ROOT"/runtime/*.c -o "$tmp/fd_rt" || exit 1
MPIRUN=(mpirun --allow-run-as-root --oversubscribe -np "$NP")
# Rounds interleave the variants (this machine is shared: load comes and goes); each run appends
# "NAME SECONDS CHECKSUM" to the results, and the report keeps each variant's fastest run.
run() {
    local name=$1; shift
    local line
    if line=$("$@" 2>&1 | grep '^polyapm-result'); then
        echo "$name $(sed -n 's/.*seconds=\([^ ]*\).*/\1/p' <<<"$line") $(sed -n 's/.*checksum=\([^ ]*\).*/\1/p' <<<"$line")"
    else
        echo "$name FAILED"
    fi
}
for ((k = 0; k < REPEAT; k++)); do
    run seq          "$tmp/fd_seq" "$N" "$STEPS"
    run mpi_hand     "${MPIRUN[@]}" "$tmp/fd_mpi" "$N" "$STEPS"
    run rt_halo      "${MPIRUN[@]}" "$tmp/fd_rt" halo "$N" "$STEPS"
    run rt_halo2d    "${MPIRUN[@]}" "$tmp/fd_rt" halo2d "$N" "$STEPS"
    run rt_alltoallv "${MPIRUN[@]}" "$tmp/fd_rt" alltoallv "$N" "$STEPS"
done >"$tmp/results"
python3 - "$tmp/results" "$N" "$STEPS" "$NP" "$REPEAT" <<'PY'
import sys
path, n, steps, np_, rep = sys.argv[1:]
res = {}
for name, *rest in (l.split() for l in open(path) if l.strip()):
    if len(rest) != 2 or res.get(name) == ["FAILED"]:
        res[name] = ["FAILED"]
    elif name not in res or float(rest[0]) < float(res[name][0]):
        res[name] = rest
label = {"seq": "sequential C (fd_seq_hand)", "mpi_hand": f"hand MPI, halo rows (fd_mpi_hand) np={np_}",
         "rt_halo": f"runtime, rt_halo1d (fd_mpi_rt halo) np={np_}",
         "rt_halo2d": f"runtime, rt_halo2d tiles (fd_mpi_rt halo2d) np={np_}",
         "rt_alltoallv": f"runtime, thesis all-to-all (fd_mpi_rt alltoallv) np={np_}"}
print(f"FD n={n} steps={steps}, main loop, best of {rep} interleaved rounds:")
base = float(res["mpi_hand"][0]) if len(res.get("mpi_hand", [])) == 2 else None
sums = set()
for k in ["seq", "mpi_hand", "rt_halo", "rt_halo2d", "rt_alltoallv"]:
    r = res.get(k, ["FAILED"])
    if len(r) != 2:
        print(f"  {label[k]:54s} FAILED"); continue
    s = float(r[0]); sums.add(r[1])
    ratio = f"  ratio to hand MPI {s / base:.2f}" if base else ""
    print(f"  {label[k]:54s} {s:9.4f} s{ratio}")
print("  checksums " + ("all equal: " + sums.pop() if len(sums) == 1 else "DIFFER: " + " ".join(sorted(sums))))
PY
