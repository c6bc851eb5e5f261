#!/usr/bin/env bash
# Communication placement under SimGrid (issue 18's acceptance): the FD leaf (block2d, relcoord)
# and its overlap and ghost-zone children (ghost width=2 and width=4: an exchange every k steps), 16 ranks on a 64-host cluster with 50 us links (`polyapm platform -n 64
# --latency 50us`), n = 1024 (a 256 x 256 tile a rank); run --smpi times the computation at the
# platform's host speed (without it SimGrid makes computation nearly free, and nothing could
# overlap it).  Prints the predicted seconds (hockney under a profile whose startup is that
# latency, and the thesis's model under scali2004) and the simulated seconds of each leaf, best
# of PLACEMENT_REPEAT runs (default 3; SimGrid times the computation as it runs here, so a
# loaded machine shows), and whether the measurement orders them as the model does.
# PLACEMENT_N, PLACEMENT_LAT change the size and the latency.
set -u
: "${ROOT:?}" "${POLYAPM:?}"
command -v smpirun >/dev/null && command -v smpicc >/dev/null || { echo "skip: SimGrid (smpirun, smpicc) not installed"; exit 0; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=${PLACEMENT_N:-1024} lat=${PLACEMENT_LAT:-50us} rep=${PLACEMENT_REPEAT:-3}
P() { "$POLYAPM" -w "$tmp/fd.pdg" "$@"; }
"$POLYAPM" init "$ROOT/examples/findiff.apm" -o "$tmp/fd.pdg" >/dev/null
"$POLYAPM" platform -n 64 --latency "$lat" -o "$tmp/cluster.xml"
P apply ROOT stm theta=t sigma=x,y >/dev/null
tile=$(P apply 2 tile kind=block2d procs=16 -q) && c=$(P apply "$tile" commgen -q) && m=$(P apply "$c" memdist -q) &&
    plain=$(P apply "$m" relcoord -q) && over=$(P apply "$plain" overlap -q) || { echo "the derivation failed"; exit 1; }
# a startup of the platform's latency in ticks (one tick = 1 ns on a 1 Gf host)
us=${lat%us}
printf 'name lat\ntick_seconds 1e-9\nts %s\n' "$(echo "$us * 1000" | bc)" >"$tmp/lat"
pred() { P sim "$1" -D n=$n --machine "$2" --model "$3" --json | python3 -c "import json,sys; print('%.4g' % json.load(sys.stdin)['seconds'])"; }
meas() {
    local best="" s
    for _ in $(seq "$rep"); do
        s=$(P run "$1" -np 16 -D n=$n --smpi "$tmp/cluster.xml" --json 2>/dev/null | tail -1 |
            python3 -c "import json,sys; j=json.load(sys.stdin); print(j['seconds'] if j['match'] else 'DIFFERS')" 2>/dev/null)
        [ "$s" = DIFFERS ] && { echo DIFFERS; return; }
        [ -z "$best" ] || [ "$(echo "$s < $best" | bc)" = 1 ] && best=$s
    done
    echo "${best:-?}"
}
printf '%-10s %14s %14s %14s\n' leaf "hockney(lat) s" "polyapm s" "smpirun s"
declare -A H M
for leaf in plain over; do
    node=${!leaf}
    H[$leaf]=$(pred "$node" "$tmp/lat" hockney)
    M[$leaf]=$(meas "$node")
    printf '%-10s %14s %14s %14s\n' "$leaf" "${H[$leaf]}" "$(pred "$node" scali2004 polyapm)" "${M[$leaf]}"
done
po=$(python3 -c "print(${H[over]} < ${H[plain]})")
mo=$(python3 -c "print(${M[over]} < ${M[plain]})" 2>/dev/null || echo "?")
echo "overlap below plain: predicted $po, measured $mo ($(python3 -c "print('%.1f%%' % (100 * (1 - ${M[over]} / ${M[plain]})))" 2>/dev/null || echo '?') less)"

# ghost zones: an exchange every k steps, the neighbours' elements recomputed between
ghost_rows() {
    local k node
    for k in ${PLACEMENT_GHOST:-2 4}; do
        node=$(P apply "$plain" ghost width=$k -q) || { echo "ghost width=$k: not derived"; continue; }
        H[ghost$k]=$(pred "$node" "$tmp/lat" hockney)
        M[ghost$k]=$(meas "$node")
        printf '%-10s %14s %14s %14s\n' "ghost$k" "${H[ghost$k]}" "$(pred "$node" scali2004 polyapm)" "${M[ghost$k]}"
        echo "ghost width=$k below plain: predicted $(python3 -c "print(${H[ghost$k]} < ${H[plain]})"), measured" \
            "$(python3 -c "print(${M[ghost$k]} < ${M[plain]})" 2>/dev/null || echo "?")" \
            "($(python3 -c "print('%.1f%%' % (100 * (1 - ${M[ghost$k]} / ${M[plain]})))" 2>/dev/null || echo '?') less)"
    done
}
ghost_rows
