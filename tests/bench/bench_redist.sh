#!/usr/bin/env bash
# PolyBench's adi at REDIST_N (default n=1000, tsteps=50), side by side in one run, best of
# REDIST_REPEAT (default 3): the sequential export of the source on one rank; on REDIST_NP ranks
# (default 2) the parallel leaf (sigma = i, blocked) as commgen and memdist leave it (what the
# column sweep reads of the rows travels as element records, its memory the union of both
# layouts: relcoord), the same leaf after redist (u and v transposed between the sweeps, one
# MPI_Alltoallv a transpose), and tests/xf/redist/adi-transpose.apm (the same by hand).  Prints
# seconds and each one's speedup over the sequential run, the load average, and what two
# processes get of this machine: the sequential program alone and as two copies side by side
# (on two virtual CPUs that share a physical core, or with other work running, two copies each
# take nearly twice as long, and no parallel program of this division-bound kernel can win).
# Never asserted on.
set -u
: "${ROOT:?}" "${POLYAPM:?}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
D=$ROOT/tests/xf/redist
size=${REDIST_N:-n=1000,tsteps=50} rep=${REDIST_REPEAT:-3} np=${REDIST_NP:-2}
defs=(); IFS=, read -ra kv <<<"$size"; for x in "${kv[@]}"; do defs+=(-D "$x"); done
. "$ROOT/tests/xf/redist/chain.inc"
adi_to_memdist "$tmp" &&
"$POLYAPM" apply "$tmp/m.apm" relcoord -o "$tmp/records.apm" >/dev/null &&
"$POLYAPM" apply "$tmp/m.apm" redist -o "$tmp/redist.apm" >/dev/null 2>&1 || { echo "the derivation failed"; exit 1; }
secs() {   # FILE RANKS: the best seconds, or "-" with the reason
    local out
    out=$("$POLYAPM" run "$1" -np "$2" "${defs[@]}" --repeat "$rep" --json 2>&1 | tail -1)
    printf '%s' "$out" | python3 -c "import json,sys; j=json.load(sys.stdin); print('%.3f' % j['seconds'] if j['match'] else '- (checksum differs)')" 2>/dev/null ||
        echo "- ($(printf '%s' "$out" | head -c 80))"
}
seq=$(secs "$tmp/adi.apm" 1)
echo "adi $size, best of $rep, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '  %-44s %8s s\n' "sequential (source, 1 rank)" "$seq"
# two copies of the sequential program side by side: the machine's throughput for two processes
"$POLYAPM" export "$tmp/adi.apm" -o "$tmp/seq" "${defs[@]}" >/dev/null 2>&1 && make -s -C "$tmp/seq" >/dev/null 2>&1 &&
    prog=$(find "$tmp/seq" -maxdepth 1 -type f -perm -u+x | head -1) && [ -n "$prog" ] && {
    one() { "$prog" | sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' | awk '{ printf "%.3f", $1 }'; }
    alone=$(one); "$prog" >"$tmp/two.out" & pair=$(one); wait
    other=$(sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' "$tmp/two.out" | awk '{ printf "%.3f", $1 }')
    printf '  %-44s %8s s alone, %s and %s s as two copies side by side\n' "the machine: the sequential program" \
        "$alone" "$pair" "$other"
}
for leaf in "records:element records (commgen, memdist, relcoord)" "redist:redist (two transposes a step)" \
            "hand:adi-transpose.apm (by hand)"; do
    f=${leaf%%:*} label=${leaf#*:}
    [ "$f" = hand ] && file=$D/adi-transpose.apm || file=$tmp/$f.apm
    s=$(secs "$file" "$np")
    ratio=$(python3 -c "print('%.2f' % ($seq / $s))" 2>/dev/null || echo -)
    printf '  %-44s %8s s  speedup %s (%d ranks)\n' "$label" "$s" "$ratio" "$np"
done
