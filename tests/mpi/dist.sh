#!/usr/bin/env bash
# tests/mpi/dist.sh — block ranges: rt_block_range is the thesis's blocked tiling (tile
# floor((n-1)/p)+1, trailing parts shorter or empty), rt_balanced_range the balanced one (first
# n mod p parts one larger); both cover 0..n-1 in order without overlap.  Expected values from python3.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
rt_build "$TMP/t_dist" "$ROOT/tests/mpi/t_dist.c" || { fail "dist build" "mpicc failed"; finish; }
ok "dist builds with -Wall -Wextra -Werror"
mpi_run 1 "$TMP/t_dist" >"$TMP/got"
python3 - >"$TMP/want" <<'PY'
for kind in ("block", "balanced"):
    for n in range(21):
        for p in range(1, 7):
            for i in range(p):
                if kind == "block":
                    tile = (n - 1) // p + 1 if n > 0 else 0
                    lo, hi = min(n, i * tile), min(n, i * tile + tile)
                else:
                    q, r = divmod(n, p)
                    lo, hi = q * i + min(i, r), q * i + min(i, r) + q + (1 if i < r else 0)
                print(kind, n, p, i, lo, hi - lo)
PY
for kind in block balanced; do
    d=$(diff <(grep "^$kind " "$TMP/want") <(grep "^$kind " "$TMP/got") | head -5)
    if [ -z "$d" ] && grep -q "^$kind " "$TMP/got"; then ok "dist: rt_${kind}_range for n = 0..20, 1..6 parts"
    else fail "dist: rt_${kind}_range for n = 0..20, 1..6 parts" "$d"; fi
done
# coverage: for every (kind, n, parts) the ranges tile 0..n-1 in order
bad=$(awk '{ k = $1 " " $2 " " $3; if (!(k in next_lo)) next_lo[k] = 0;
             if ($5 != next_lo[k]) print; next_lo[k] = $5 + $6; n[k] = $2 }
           END { for (k in n) if (next_lo[k] != n[k]) print "ends at " next_lo[k] ": " k }' "$TMP/got" | head -3)
expect_eq "dist: every distribution covers 0..n-1 in order, once" "$bad" ""
finish
