#!/usr/bin/env bash
# The trend of Fahringer & Mehofer's coalescing and aggregation ("Buffer-Safe and Cost-Driven
# Communication Optimization", JPDC 1999 §5, Table I: on 16 processors it saves 32.5% of the run time at
# N = 64 and 7.2% at N = 768): the gain of the aggregation placement falls as N grows, since a
# step saves a fixed number of message startups while its work and volume grow.  FD on two
# coupled fields (examples/fd2.apm; single-array FD has nothing to aggregate), block2d on 16
# processors, relcoord, then `aggregate`; for each N the gain 1 - aggregated/plain predicted by
# hockney under a profile whose startup is the platform's latency (one tick = 1 ns on a 1 Gf
# host, t_w from the bandwidth) and measured by `run --smpi` on a 16-host SimGrid cluster
# (`polyapm platform -n 16 --latency 50us`, with a per-message overhead of AGG_OVERHEAD seconds,
# default 20e-6, on each side; latency and bandwidth flat in the message size), best of
# AGG_REPEAT runs (default 3).  Writes the
# table as data and a plot (gnuplot's text terminal, and a PNG when gnuplot has pngcairo; a text
# bar chart without gnuplot) under AGG_OUT (default $BUILD/bench).  AGG_N (the sizes, default
# "64 128 256 512 768"), AGG_LAT, AGG_STEPS change the sweep; AGG_HOST_SPEED (e.g. 4Gf) is run
# --smpi's --host-speed: this machine counted that fast, the cluster's 1 Gf hosts compute slower.
set -u
: "${ROOT:?}" "${POLYAPM:?}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sizes=${AGG_N:-64 128 256 512 768} lat=${AGG_LAT:-50us} rep=${AGG_REPEAT:-3} steps=${AGG_STEPS:-21}
ovh=${AGG_OVERHEAD:-20e-6}   # seconds a message costs its sender and its receiver
speed=${AGG_HOST_SPEED:-}     # run --smpi --host-speed: this machine's speed (default: the platform's)
out=${AGG_OUT:-$ROOT/${BUILD:-build}/bench}
mkdir -p "$out"
smpi=1
command -v smpirun >/dev/null && command -v smpicc >/dev/null || { smpi=0; echo "# SimGrid (smpirun, smpicc) not installed: the model only"; }
P() { "$POLYAPM" -w "$tmp/fd2.pdg" "$@"; }
"$POLYAPM" init "$ROOT/examples/fd2.apm" -o "$tmp/fd2.pdg" >/dev/null
"$POLYAPM" platform -n 16 --latency "$lat" -o "$tmp/cluster.xml"
# a per-message software overhead on both sides (SMPI's smpi/os and smpi/or, piecewise
# "min-size:seconds:seconds-per-byte"), the startup a message pays on the sender and the receiver
# one after another: without it SimGrid lets the latencies of a step's concurrent messages overlap,
# and one message fewer saves nothing (the Meiko CS-2 of the paper paid tens of microseconds a message)
# latency and bandwidth the same for every message size, the platform's (AGG_FACTORS=simgrid keeps
# SimGrid's default factors, fitted to a real MPI, which change them in steps at 257, 732, 1426,
# 3484 bytes, ..: there a message of twice the size can cost less latency, and the gain jumps)
flat=""
[ "${AGG_FACTORS:-flat}" = flat ] && flat='<prop id=\"smpi/lat-factor\" value=\"0:1\"/><prop id=\"smpi/bw-factor\" value=\"0:1\"/>'
sed -i "s|<platform version=\"4.1\">|&\n  <config><prop id=\"smpi/os\" value=\"0:${ovh}:0\"/><prop id=\"smpi/or\" value=\"0:${ovh}:0\"/>$flat</config>|" "$tmp/cluster.xml"
P apply ROOT stm theta=t sigma=x,y >/dev/null
tile=$(P apply 2 tile kind=block2d procs=16 -q) && c=$(P apply "$tile" commgen -q) && m=$(P apply "$c" memdist -q) &&
    plain=$(P apply "$m" relcoord -q) && agg=$(P apply "$plain" aggregate -q) || { echo "the derivation failed"; exit 1; }
us=${lat%us}
# the model's startup: the latency plus the two overheads (ticks of 1 ns); t_w: 8 bytes at 10 Gbps
printf 'name lat\ntick_seconds 1e-9\nts %s\ntw 6.4\n' "$(python3 -c "print($us * 1000 + 2 * $ovh * 1e9)")" >"$tmp/lat"
model() { P sim "$1" -D n="$2" -D steps="$steps" --machine "$tmp/lat" --model hockney --json |
          python3 -c "import json,sys; print('%.6g' % json.load(sys.stdin)['seconds'])"; }
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
printf '# N  model_plain_s  model_aggregate_s  model_gain_%%  smpi_plain_s  smpi_aggregate_s  smpi_gain_%%\n' >"$dat"
printf '%6s %14s %14s %8s %14s %14s %8s\n' N "model plain" "model aggr" "gain %" "smpirun plain" "smpirun aggr" "gain %"
for n in $sizes; do
    mp=$(model "$plain" "$n"); ma=$(model "$agg" "$n"); sp=$(meas "$plain" "$n"); sa=$(meas "$agg" "$n")
    mg=$(gain "$mp" "$ma"); sg=$(gain "$sp" "$sa")
    printf '%6s %14s %14s %8s %14s %14s %8s\n' "$n" "$mp" "$ma" "$mg" "$sp" "$sa" "$sg"
    printf '%s %s %s %s %s %s %s\n' "$n" "$mp" "$ma" "$mg" "$sp" "$sa" "$sg" >>"$dat"
done
falls() { awk -v c="$1" '!/^#/ && $c != "-" {g[n++] = $c} END {f = n > 1; for (i = 1; i < n; i++) if (g[i] >= g[i-1]) f = 0; print f ? "yes" : "no"}' "$dat"; }
echo "the gain falls as N grows: model $(falls 4), SimGrid $(falls 7) (the paper, SHALLOW on 16 processors: 32.5% at N = 64, 7.2% at N = 768)"
plot=$out/aggregate-trend.txt
if command -v gnuplot >/dev/null; then
    cmds="set title 'aggregation gain, FD on two fields, 16 processors, $lat links'; set xlabel 'N'; set ylabel 'gain %';
          set logscale x 2; set key top right"
    lines="plot '$dat' using 1:4 with linespoints title 'model (hockney)'"
    [ "$smpi" = 1 ] && lines="$lines, '' using 1:7 with linespoints title 'SimGrid'"
    gnuplot -e "set terminal dumb 79 24; set output '$plot'; $cmds; $lines" 2>/dev/null
    gnuplot -e "set terminal pngcairo size 800,500" 2>/dev/null &&
        gnuplot -e "set terminal pngcairo size 800,500; set output '$out/aggregate-trend.png'; $cmds; $lines" 2>/dev/null
else
    awk '!/^#/ {printf "N=%-5s model %5s%% %s\n        smpi  %5s%% %s\n", $1, $4, substr("##################################################", 1, $4 / 2), $7,
         ($7 == "-" ? "" : substr("##################################################", 1, $7 / 2))}' "$dat" >"$plot"
fi
echo "data: $dat; plot: $plot$([ -f "$out/aggregate-trend.png" ] && echo ", $out/aggregate-trend.png")"
