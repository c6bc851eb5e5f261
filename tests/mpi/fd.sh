#!/usr/bin/env bash
# tests/mpi/fd.sh — the hand-written finite-difference baselines (tests/bench/fd_mpi_hand.c,
# fd_seq_hand.c) and the runtime-based one (fd_mpi_rt.c: row-block halo, 2-D tile halo, thesis-style
# alltoallv exchange) compute examples/findiff.apm: the MPI versions give the same checksum on 1, 2
# and 4 ranks (and 3, uneven blocks; 9 = 3x3 tiles once), equal to the sequential version's and to an independent python3 evaluation of
# the program; and, when build/polyapm's `sim --json` is there, to the simulator's.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
B="$ROOT/tests/bench"
if cc -std=c11 -O2 -Wall -Wextra -Werror -ffp-contract=off "$B/fd_seq_hand.c" -o "$TMP/fd_seq" &&
   mpicc -std=c11 -O2 -Wall -Wextra -Werror -ffp-contract=off "$B/fd_mpi_hand.c" -o "$TMP/fd_mpi"
   mpicc -std=c11 -O2 -Wall -Wextra -Werror -ffp-contract=off -I"$ROOT/runtime" "$B/fd_mpi_rt.c" \
         "$ROOT"/runtime/*.c -o "$TMP/fd_rt"
then ok "fd baselines build with -Wall -Wextra -Werror"
else fail "fd baselines build" "compiler failed"; finish; fi
field() { sed -n "s/.*$1=\([^ ]*\).*/\1/p"; }    # field NAME < result line
reference() {  # N STEPS: the program evaluated in python3, same operation order, FNV-1a of a[steps]
    python3 - "$1" "$2" <<'PY'
import struct, sys
n, steps = int(sys.argv[1]), int(sys.argv[2])
a = [[float((x * 31 + y * 17) % 13) for y in range(n)] for x in range(n)]
for t in range(steps):
    b = [row[:] for row in a]
    for x in range(1, n - 1):
        u, m, d, o = a[x - 1], a[x], a[x + 1], b[x]
        for y in range(1, n - 1):
            o[y] = (u[y] + d[y] + 4 * m[y] + m[y - 1] + m[y + 1]) / 8
    a = b
h = 0xcbf29ce484222325
for row in a:
    for v in row:
        for c in struct.pack("<d", v + 0.0 if v == 0.0 else v):
            h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
print("%016x" % h)
PY
}
have_sim=0
if [ -x "$POLYAPM" ] && "$POLYAPM" sim "$ROOT/examples/findiff.apm" -D n=8 -D steps=2 --json 2>/dev/null |
       json "j['checksum']" >/dev/null 2>&1; then have_sim=1
else echo "skip fd: simulator checksum comparison ($POLYAPM sim --json not available yet)"; fi
for case in "16 5" "37 10" "64 21"; do
    set -- $case; n=$1 steps=$2
    want=$(reference "$n" "$steps")
    seq=$("$TMP/fd_seq" "$n" "$steps" | field checksum)
    expect_eq "fd n=$n steps=$steps sequential = python3 evaluation" "$seq" "$want"
    for p in 1 2 3 4; do
        out=$(mpi_run "$p" "$TMP/fd_mpi" "$n" "$steps")
        expect_eq "fd n=$n steps=$steps MPI np=$p = sequential" "$(field checksum <<<"$out")" "$seq"
        expect_eq "fd n=$n steps=$steps MPI np=$p reports ranks=$p" "$(grep '^polyapm-result' <<<"$out" | field ranks)" "$p"
        # the runtime variants on 2 and 4 ranks, and on 1 and 3 for one size (launches cost time)
        case "$p,$n" in 2,*|4,*|1,37|3,37) ;; *) continue ;; esac
        for x in halo halo2d alltoallv; do
            out=$(mpi_run "$p" "$TMP/fd_rt" "$x" "$n" "$steps")
            expect_eq "fd n=$n steps=$steps runtime $x np=$p = sequential" "$(field checksum <<<"$out")" "$seq"
        done
    done
    if [ "$n" = 37 ]; then
        out=$(mpi_run 9 "$TMP/fd_rt" halo2d "$n" "$steps")
        expect_eq "fd n=$n steps=$steps runtime halo2d np=9 (3x3 tiles) = sequential" "$(field checksum <<<"$out")" "$seq"
    fi
    if [ $have_sim = 1 ]; then
        sim=$("$POLYAPM" sim "$ROOT/examples/findiff.apm" -D n="$n" -D steps="$steps" --json | json "j['checksum']")
        expect_eq "fd n=$n steps=$steps sequential = polyapm sim" "$seq" "$sim"
    fi
done
finish
