#!/usr/bin/env bash
# tests/bench/bench_export.sh — exported programs against hand-written C, side by side in one run
# (issue 6; rounds interleave the variants, each keeps its fastest run; figures only, no asserts):
#  - FD n=2048, 100 steps, np=2: the exported row-block leaf (stm theta=t sigma=x inner=seq ->
#    tile blocked procs=2 -> commgen -> memdist -> relcoord) with the halo pattern (auto) and with
#    the thesis's per-element alltoallv records, against tests/bench/fd_mpi_hand.c (target <= 1.10);
#  - sequential: the exported source of findiff (n=2048, 100 steps) against fd_seq_hand.c, and of
#    lu (n=LU_N) against lu_seq_hand.c (target <= 1.05).
# The checksums of each pair must agree (printed).  Overrides: FD_N, FD_STEPS, LU_N, REPEAT.
set -u
: "${ROOT:?}" "${POLYAPM:?}"
N=${FD_N:-2048} STEPS=${FD_STEPS:-100} LU_N=${LU_N:-1024} REPEAT=${REPEAT:-3} NP=2
if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then
    echo "bench_export: skipped (mpicc/mpirun not installed)"; exit 0
fi
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)   # before the builds: figures mean little under load
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
B="$ROOT/tests/bench" FLAGS=(-std=c11 -O3 -march=native -Wall -Wextra -Werror -ffp-contract=off)   # the exported Makefile's flags
cc "${FLAGS[@]}" "$B/fd_seq_hand.c" -o "$tmp/fd_seq_hand" || exit 1
mpicc "${FLAGS[@]}" "$B/fd_mpi_hand.c" -o "$tmp/fd_mpi_hand" || exit 1
cc "${FLAGS[@]}" -I"$ROOT/runtime" "$B/lu_seq_hand.c" "$ROOT/runtime/rt_checksum.c" -o "$tmp/lu_seq_hand" || exit 1

# the FD leaf, derived at a small size, exported at the benchmark's
sed "s/^param n = 256, steps = 21/param n = 64, steps = 5/" "$ROOT/examples/findiff.apm" >"$tmp/fd.apm"
WS=$tmp/fd.pdg
P() { "$POLYAPM" -w "$WS" "$@"; }
"$POLYAPM" init "$tmp/fd.apm" -o "$WS" >/dev/null &&
P apply ROOT stm theta=t sigma=x inner=seq >/dev/null && P apply 2 tile kind=blocked procs=2 >/dev/null &&
P apply 3 commgen >/dev/null && P apply 4 memdist >/dev/null && P apply 5 relcoord >/dev/null || exit 1
for x in halo alltoallv; do
    P export 6 -o "$tmp/fd_$x" -D n=$N -D steps=$STEPS --exchange $x >/dev/null && make -s -C "$tmp/fd_$x" || exit 1
done
"$POLYAPM" export "$ROOT/examples/findiff.apm" -o "$tmp/fd_seq" -D n=$N -D steps=$STEPS >/dev/null &&
    make -s -C "$tmp/fd_seq" || exit 1
"$POLYAPM" export "$ROOT/examples/lu.apm" -o "$tmp/lu_seq" -D n=$LU_N >/dev/null && make -s -C "$tmp/lu_seq" || exit 1

MPIRUN=(mpirun --allow-run-as-root --oversubscribe -np "$NP")
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
    run fd_mpi_hand       "${MPIRUN[@]}" "$tmp/fd_mpi_hand" "$N" "$STEPS"
    run fd_export_halo    "${MPIRUN[@]}" "$tmp/fd_halo/findiff_syndm"
    run fd_export_a2a     "${MPIRUN[@]}" "$tmp/fd_alltoallv/findiff_syndm"
    run fd_seq_hand       "$tmp/fd_seq_hand" "$N" "$STEPS"
    run fd_export_seq     "$tmp/fd_seq/findiff"
    run lu_seq_hand       "$tmp/lu_seq_hand" "$LU_N"
    run lu_export_seq     "$tmp/lu_seq/lu"
done >"$tmp/results"
python3 - "$tmp/results" "$N" "$STEPS" "$LU_N" "$REPEAT" "${load:-?}" <<'PY'
import sys
path, n, steps, lun, rep, load = sys.argv[1:]
res = {}
for name, *rest in (l.split() for l in open(path) if l.strip()):
    if len(rest) != 2 or res.get(name) == ["FAILED"]:
        res[name] = ["FAILED"]
    elif name not in res or float(rest[0]) < float(res[name][0]):
        res[name] = rest
def t(k): return float(res[k][0]) if len(res.get(k, [])) == 2 else None
def line(label, k, base, target=None):
    s, b = t(k), t(base)
    if s is None: print(f"  {label:64s} FAILED"); return
    r = f"  ratio {s / b:.2f}" + (f" (target <= {target})" if target else "") if b else ""
    same = "" if k == base else ("  checksum = hand's" if res[k][1] == res[base][1] else "  CHECKSUM DIFFERS")
    print(f"  {label:64s} {s:9.4f} s{r}{same}")
print(f"load average (1, 5, 15 min) at the start: {load}")
print(f"FD n={n} steps={steps}, np=2, main loop, best of {rep} interleaved rounds:")
line("hand MPI, halo rows (fd_mpi_hand)", "fd_mpi_hand", "fd_mpi_hand")
line("exported leaf, halo pattern (--exchange auto)", "fd_export_halo", "fd_mpi_hand", "1.10")
line("exported leaf, thesis all-to-all records (--exchange alltoallv)", "fd_export_a2a", "fd_mpi_hand")
print(f"sequential C:")
line("FD hand (fd_seq_hand)", "fd_seq_hand", "fd_seq_hand")
line("FD exported findiff.apm", "fd_export_seq", "fd_seq_hand", "1.05")
line(f"LU n={lun} hand (lu_seq_hand)", "lu_seq_hand", "lu_seq_hand")
line(f"LU n={lun} exported lu.apm", "lu_export_seq", "lu_seq_hand", "1.05")
PY
