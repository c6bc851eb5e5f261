#!/usr/bin/env bash
# The parallelising transforms: time to apply the whole FD chain and the four LU chains in a
# workspace (each apply transforms, simulates against the root and stores; n=512), and the
# simulation of each syndm LU leaf at n=512, procs=4 against the source-level simulation of the
# same size (target: within 3x).
set -u
: "${ROOT:?}" "${POLYAPM:?}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
P() { "$POLYAPM" -w "$WS" "$@" >/dev/null; }
now() { date +%s.%N; }
chain() {  # name src stm tile commgen
    WS=$tmp/$1.pdg
    "$POLYAPM" init "$2" -o "$WS" >/dev/null
    local t0; t0=$(now)
    P apply ROOT stm $3 && P apply 2 tile $4 && P apply 3 commgen $5 && P apply 4 memdist || echo "$1: FAILED"
    printf '%-22s %6.2f s (stm, tile, commgen, memdist; each simulated and stored)\n' "$1" "$(echo "$(now) - $t0" | bc)"
}
sed 's/^param n = 256/param n = 512/' "$ROOT/examples/findiff.apm" >fd.apm
sed 's/^param n = 64$/param n = 512/' "$ROOT/examples/lu.apm" >lu.apm
t0=$(now)
chain fd-block2d fd.apm "theta=t sigma=x,y" "kind=block2d procs=4" "gencost=8"
for m in "stm1:theta.L=2*(j-1) sigma.L=i theta.U=2*(i-1)+1 sigma.U=j" "stm2:theta=i+j-2 sigma=i"; do
    for k in blocked cyclic; do chain "lu-${m%%:*}-$k" lu.apm "${m#*:}" "kind=$k procs=4" ""; done
done
printf '%-22s %6.2f s\n' "all five chains" "$(echo "$(now) - $t0" | bc)"
# each LU leaf against the source, simulation only, best of 3
for m in stm1 stm2; do
    for k in blocked cyclic; do
        "$POLYAPM" -w "$tmp/lu-$m-$k.pdg" show 5 --program >"leaf-$m-$k.apm" 2>/dev/null
    done
done
python3 - "$POLYAPM" lu.apm leaf-*.apm <<'PY'
import subprocess, sys, time
polyapm, src, leaves = sys.argv[1], sys.argv[2], sys.argv[3:]
def best(cmd):
    out = []
    for _ in range(3):
        t = time.perf_counter(); subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL); out.append(time.perf_counter() - t)
    return min(out)
s = best([polyapm, "sim", src, "--json"])
print(f"LU n=512 source simulation {s:.3f} s")
for leaf in leaves:
    # the leaf's run includes the reference run of the source: subtract it for the leaf alone
    l = best([polyapm, "sim", leaf, "--against", src, "--json"]) - s
    print(f"  syndm leaf {leaf[5:-4]:<12} (4 procs) {l:.3f} s; ratio {l / s:.2f}x (target <= 3x)")
PY
