#!/usr/bin/env bash
# The trend of Fahringer & Mehofer's coalescing and aggregation ("Buffer-Safe and Cost-Driven
# Communication Optimization", JPDC 1999 §5, Table I: on 16 processors it saves 32.5% of the run time at
# N = 64 and 7.2% at N = 768): the gain of the aggregation placement falls as N grows, since a
# step saves a fixed number of message startups while its work and volume grow.  FD on two
# coupled fields (examples/fd2.apm; single-array FD has nothing to aggregate), block2d on 16
# processors, relcoord, then `aggregate`; for each N the gain 1 - aggregated/plain predicted by
# loggp and hockney under the cluster's machine profile and measured by `run --smpi` on a 16-host
# SimGrid cluster (`polyapm platform -n 16 --latency 50us --overhead 20us --profile`: a message
# crosses two links and the backbone, 150 us, and costs AGG_OVERHEAD, default 20us, of CPU on each
# side; latency and bandwidth flat in the message size), best of AGG_REPEAT runs (default 3).
# The profile's tick, for each N, is what fd2's exported code costs here a tick (its sequential
# run, best of 3, over its simulated ticks: run --smpi times computation as it runs here), times
# AGG_HOST_SPEED over the platform's 1 Gf when that is set.  Writes the
# table as data and a plot (gnuplot's text terminal, and a PNG when gnuplot has pngcairo; a text
# bar chart without gnuplot) under AGG_OUT (default $BUILD/bench).  AGG_N (the sizes, default
# "64 128 256 512 768"), AGG_LAT, AGG_STEPS change the sweep; AGG_HOST_SPEED (e.g. 4Gf) is run
# --smpi's --host-speed: this machine counted that fast, the cluster's 1 Gf hosts compute slower.
set -u
: "${ROOT:?}" "${POLYAPM:?}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sizes=${AGG_N:-64 128 256 512 768} lat=${AGG_LAT:-50us} rep=${AGG_REPEAT:-3} steps=${AGG_STEPS:-21}
ovh=${AGG_OVERHEAD:-20us}    # what a message costs its sender and its receiver (a bare number: seconds)
case $ovh in *s) ;; *) ovh=${ovh}s ;; esac
speed=${AGG_HOST_SPEED:-}     # run --smpi --host-speed: this machine's speed (default: the platform's)
out=${AGG_OUT:-$ROOT/${BUILD:-build}/bench}
mkdir -p "$out"
smpi=1
command -v smpirun >/dev/null && command -v smpicc >/dev/null || { smpi=0; echo "# SimGrid (smpirun, smpicc) not installed: the model only"; }
P() { "$POLYAPM" -w "$tmp/fd2.pdg" "$@"; }
"$POLYAPM" init "$ROOT/examples/fd2.apm" -o "$tmp/fd2.pdg" >/dev/null
# a per-message software overhead on both sides (platform --overhead: SMPI's smpi/os, ois, or),
# paid on the sender and the receiver one message after another: without it SimGrid lets the
# latencies of a step's concurrent messages overlap, and one message fewer saves nothing (the
# Meiko CS-2 of the paper paid tens of microseconds a message); latency and bandwidth the same
# for every message size (AGG_FACTORS=simgrid keeps SimGrid's default factors, fitted to a real
# MPI, which change them in steps at 257, 732, 1426, 3484 bytes, ..: there a message of twice the
# size can cost less latency, and the gain jumps)
plat=(platform -n 16 --latency "$lat" --overhead "$ovh" --factors "${AGG_FACTORS:-flat}")
"$POLYAPM" "${plat[@]}" -o "$tmp/cluster.xml"
P apply ROOT stm theta=t sigma=x,y >/dev/null
tile=$(P apply 2 tile kind=block2d procs=16 -q) && c=$(P apply "$tile" commgen -q) && m=$(P apply "$c" memdist -q) &&
    plain=$(P apply "$m" relcoord -q) && agg=$(P apply "$plain" aggregate -q) || { echo "the derivation failed"; exit 1; }
js() { python3 -c "import json,sys; j=json.load(sys.stdin); print($1)"; }
# the cluster's profile at size N (in $tmp/cluster-N.prof): fd2's tick here at N
profile() {
    local secs ticks scale
    secs=$(P run 1 -np 1 -D n="$1" -D steps="$steps" --repeat 3 --json 2>/dev/null | tail -1 | js "j['seconds']")
    ticks=$(P sim 1 -D n="$1" -D steps="$steps" --json | js "j['cost']")
    scale=$(python3 -c "
import re; m = re.fullmatch(r'([0-9.eE+-]+)([kMGT]?)f', '${speed:-1Gf}')
print(float(m.group(1)) * {'': 1, 'k': 1e3, 'M': 1e6, 'G': 1e9, 'T': 1e12}[m.group(2)] / 1e9)")
    "$POLYAPM" "${plat[@]}" -o /dev/null --profile "$tmp/cluster-$1.prof" \
        --tick "$(python3 -c "print('%.4g' % ($secs / $ticks * $scale))")"
}
model() { P sim "$1" -D n="$2" -D steps="$steps" --machine "$tmp/cluster-$2.prof" --model "$3" --json | js "'%.6g' % j['seconds']"; }
meas() {
    local best="" s
    [ "$smpi" = 1 ] || { echo "-"; return; }
    for _ in $(seq "$rep"); do
        s=$(P run "$1" -np 16 -D n="$2" -D steps="$steps" --smpi "$tmp/cluster.xml" ${speed:+--host-speed "$speed"} --json 2>/dev/null | tail -1 |
            python3 -c "import json,sys; j=json.load(sys.stdin); print(j['seconds'] if j['match'] else 'DIFFERS')" 2>/dev/null)
        [ "$s" = DIFFERS ] && { echo DIFFERS; return; }
        [ -n "$s" ] && { [ -z "$best" ] || [ "$(echo "$s < $best" | bc -l)" = 1 ]; } && best=$s
    done
    echo "${best:--}"
}
gain() { python3 -c "
try: print('%.1f' % (100 * (1 - float('$2') / float('$1'))))
except Exception: print('-')"; }
dat=$out/aggregate-trend.dat
printf '# N  loggp_plain_s  loggp_aggregate_s  loggp_gain_%%  smpi_plain_s  smpi_aggregate_s  smpi_gain_%%  hockney_plain_s  hockney_aggregate_s  hockney_gain_%%\n' >"$dat"
printf '%5s %11s %11s %7s %11s %11s %7s %11s %11s %7s\n' N "loggp plain" "loggp aggr" "gain %" "smpi plain" "smpi aggr" "gain %" \
    "hock plain" "hock aggr" "gain %"
for n in $sizes; do
    profile "$n"
    lp=$(model "$plain" "$n" loggp); la=$(model "$agg" "$n" loggp); hp=$(model "$plain" "$n" hockney); ha=$(model "$agg" "$n" hockney)
    sp=$(meas "$plain" "$n"); sa=$(meas "$agg" "$n")
    lg=$(gain "$lp" "$la"); sg=$(gain "$sp" "$sa"); hg=$(gain "$hp" "$ha")
    printf '%5s %11s %11s %7s %11s %11s %7s %11s %11s %7s\n' "$n" "$lp" "$la" "$lg" "$sp" "$sa" "$sg" "$hp" "$ha" "$hg"
    printf '%s %s %s %s %s %s %s %s %s %s\n' "$n" "$lp" "$la" "$lg" "$sp" "$sa" "$sg" "$hp" "$ha" "$hg" >>"$dat"
done
falls() { awk -v c="$1" '!/^#/ && $c != "-" {g[n++] = $c} END {f = n > 1; for (i = 1; i < n; i++) if (g[i] >= g[i-1]) f = 0; print f ? "yes" : "no"}' "$dat"; }
echo "the gain falls as N grows: loggp $(falls 4), SimGrid $(falls 7), hockney $(falls 10) (the paper, SHALLOW on 16 processors: 32.5% at N = 64, 7.2% at N = 768)"
plot=$out/aggregate-trend.txt
if command -v gnuplot >/dev/null; then
    cmds="set title 'aggregation gain, FD on two fields, 16 processors, $lat links'; set xlabel 'N'; set ylabel 'gain %';
          set logscale x 2; set key top right"
    lines="plot '$dat' using 1:4 with linespoints title 'model (loggp)', '' using 1:10 with linespoints title 'model (hockney)'"
    [ "$smpi" = 1 ] && lines="$lines, '' using 1:7 with linespoints title 'SimGrid'"
    gnuplot -e "set terminal dumb 79 24; set output '$plot'; $cmds; $lines" 2>/dev/null
    gnuplot -e "set terminal pngcairo size 800,500" 2>/dev/null &&
        gnuplot -e "set terminal pngcairo size 800,500; set output '$out/aggregate-trend.png'; $cmds; $lines" 2>/dev/null
else
    awk '!/^#/ {printf "N=%-5s loggp %5s%% %s\n        smpi  %5s%% %s\n", $1, $4, substr("##################################################", 1, $4 / 2), $7,
         ($7 == "-" ? "" : substr("##################################################", 1, $7 / 2))}' "$dat" >"$plot"
fi
echo "data: $dat; plot: $plot$([ -f "$out/aggregate-trend.png" ] && echo ", $out/aggregate-trend.png")"
