#!/usr/bin/env bash
# Communication placement under SimGrid (issue 18's acceptance): the FD leaf (block2d, relcoord)
# and its overlap and ghost-zone children (ghost width=2 and width=4: an exchange every k steps),
# 16 ranks on a 64-host cluster with 50 us links (`polyapm platform -n 64 --latency 50us`: a
# message crosses two links and the backbone, 150 us; SMPI's latency and bandwidth flat in the
# message size), n = 1024 (a 256 x 256 tile a rank).  run --smpi times the computation as it runs
# here (the platform's host speed), so the model's tick is what FD's exported code costs here a
# tick: FD's sequential run (the root, run -np 1, best of 3) over its simulated ticks (its ticks
# are the thesis's annotations, 13 a point, not operations: calibrate's tick would price it ~8x
# too dear).  `platform --profile --tick` writes the matching machine profile; with it the bench
# prints the predicted seconds of each leaf under loggp (the messages of a step posted at once:
# one latency a step) and hockney (a startup a message, one after another), the thesis's model
# under scali2004 for reference, and the simulated seconds, best of PLACEMENT_REPEAT runs
# (default 3; SimGrid times the computation as it runs here, so a loaded machine shows); then
# each model's order of the leaves against the measured order, and loggp's predicted/measured.
# PLACEMENT_N, PLACEMENT_LAT, PLACEMENT_GHOST ("2 4") change the size, latency and widths.
set -u
: "${ROOT:?}" "${POLYAPM:?}"
command -v smpirun >/dev/null && command -v smpicc >/dev/null || { echo "skip: SimGrid (smpirun, smpicc) not installed"; exit 0; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=${PLACEMENT_N:-1024} lat=${PLACEMENT_LAT:-50us} rep=${PLACEMENT_REPEAT:-3}
P() { "$POLYAPM" -w "$tmp/fd.pdg" "$@"; }
js() { python3 -c "import json,sys; j=json.load(sys.stdin); print($1)"; }
"$POLYAPM" init "$ROOT/examples/findiff.apm" -o "$tmp/fd.pdg" >/dev/null
P apply ROOT stm theta=t sigma=x,y >/dev/null
tile=$(P apply 2 tile kind=block2d procs=16 -q) && c=$(P apply "$tile" commgen -q) && m=$(P apply "$c" memdist -q) &&
    plain=$(P apply "$m" relcoord -q) && over=$(P apply "$plain" overlap -q) || { echo "the derivation failed"; exit 1; }
leaves="plain over"
for k in ${PLACEMENT_GHOST:-2 4}; do
    node=$(P apply "$plain" ghost width=$k -q) || { echo "ghost width=$k: not derived"; continue; }
    eval "ghost$k=$node"; leaves="$leaves ghost$k"
done
# FD's tick here: its sequential exported run over its simulated ticks
secs=$(P run 1 -np 1 -D n=$n --repeat 3 --json 2>/dev/null | tail -1 | js "j['seconds']")
ticks=$(P sim 1 -D n=$n --json | js "j['cost']")
tick=$(python3 -c "print('%.4g' % ($secs / $ticks))")
echo "FD's tick here: ${secs} s for $ticks ticks at n = $n: $tick s (the profile's tick)"
"$POLYAPM" platform -n 64 --latency "$lat" -o "$tmp/cluster.xml" --profile "$tmp/cluster.prof" --tick "$tick"
pred() { P sim "$1" -D n=$n --machine "$2" --model "$3" --json | js "'%.4g' % j['seconds']"; }
meas() {
    local best="" s
    for _ in $(seq "$rep"); do
        s=$(P run "$1" -np 16 -D n=$n --smpi "$tmp/cluster.xml" --json 2>/dev/null | tail -1 |
            js "j['seconds'] if j['match'] else 'DIFFERS'" 2>/dev/null)
        [ "$s" = DIFFERS ] && { echo DIFFERS; return; }
        [ -n "$s" ] && { [ -z "$best" ] || [ "$(echo "$s < $best" | bc -l)" = 1 ]; } && best=$s
    done
    echo "${best:-?}"
}
printf '%-8s %12s %12s %12s %12s %10s\n' leaf "loggp s" "hockney s" "smpirun s" "loggp/smpi" "polyapm s"
declare -A L H M
for leaf in $leaves; do
    node=${!leaf}
    L[$leaf]=$(pred "$node" "$tmp/cluster.prof" loggp)
    H[$leaf]=$(pred "$node" "$tmp/cluster.prof" hockney)
    M[$leaf]=$(meas "$node")
    printf '%-8s %12s %12s %12s %12s %10s\n' "$leaf" "${L[$leaf]}" "${H[$leaf]}" "${M[$leaf]}" \
        "$(python3 -c "print('%.2f' % (${L[$leaf]} / ${M[$leaf]}))" 2>/dev/null || echo '?')" "$(pred "$node" scali2004 polyapm)"
done
# each column's order of the leaves, dearest first
order() {
    local -n col=$1
    for leaf in $leaves; do echo "${col[$leaf]} $leaf"; done | sort -gr | awk '{printf "%s%s", (NR > 1 ? " > " : ""), $2} END {print ""}'
}
mo=$(order M) lo=$(order L) ho=$(order H)
echo "measured order: $mo"
echo "loggp order:    $lo ($([ "$lo" = "$mo" ] && echo same || echo DIFFERS))"
echo "hockney order:  $ho ($([ "$ho" = "$mo" ] && echo same || echo differs))"
for leaf in $leaves; do
    [ "$leaf" = plain ] && continue
    echo "$leaf below plain: loggp $(python3 -c "print(${L[$leaf]} < ${L[plain]})"), measured" \
        "$(python3 -c "print(${M[$leaf]} < ${M[plain]})" 2>/dev/null || echo "?")" \
        "($(python3 -c "print('%.1f%%' % (100 * (1 - ${M[$leaf]} / ${M[plain]})))" 2>/dev/null || echo '?') less; loggp" \
        "$(python3 -c "print('%.1f%%' % (100 * (1 - ${L[$leaf]} / ${L[plain]})))") less)"
done
