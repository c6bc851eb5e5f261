#!/usr/bin/env bash
# `polyapm calibrate -np 2` (issue 8): the benchmark builds with mpicc and runs under mpirun, every
# fitted parameter is positive and finite, the profile is stored in the workspace and in the
# user-level file, and `sim --machine local` then predicts seconds with it (here and in another
# workspace).  The tick is the exported calibration kernel's seconds over its simulated ticks
# (issue 16); the kernel is timed in its two parts, and each work class's price is its part's
# seconds per tick over that tick.  Timing numbers are printed, not asserted.  `--raw` refits saved measurements.
# LogGP (issue 18): the bursts of K messages give loggp_L, loggp_o, loggp_G, written to the profile,
# positive, and consistent with the single message measured (L + 2o + G·words, o and L each less
# than it); the loggp model prices a leaf with them (FD on 2 x 2 processors, by hand).
source "$(dirname "$0")/../lib.sh"
cd "$TMP"
if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then echo "skip calibrate: no MPI"; finish; fi
"$POLYAPM" init "$ROOT/examples/lu.apm" -o lu.pdg >/dev/null
start=$(date +%s)
out=$("$POLYAPM" -w lu.pdg calibrate -np 2 --json 2>err); rc=$?
took=$(( $(date +%s) - start ))
expect_eq "calibrate -np 2: exit 0" "$rc" 0
# the kernel's parts run one copy per rank at once, as many as the host has processors
copies=$(( $(nproc) < 2 ? $(nproc) : 2 ))
expect_eq "the kernel timed as $copies copies at once" \
    "$(grep -c "timing the exported kernel's part kernel_[a-z_]* (.*, $copies at once)" err)" 9
echo "# calibrate -np 2 took ${took}s"
printf '%s' "$out" | python3 -c "
import json,sys; j=json.load(sys.stdin)
for k,v in j['profile'].items(): print('#   %-14s %g' % (k, v))
for f in j['fits']: print('#   fit %-16s R2 %.4f (%d points)' % (f['series'], f['r2'], f['points']))"
expect_eq "every fitted parameter positive and finite" "$(printf '%s' "$out" | python3 -c "
import json,sys,math; j=json.load(sys.stdin)['profile']
print(all(math.isfinite(j[k]) and j[k] > 0 for k in ('tick_seconds','normsent','normrcvd','barrier_slope','ts','tw','g',
                                                   'loggp_L','loggp_o','loggp_G')))")" True
expect_eq "loggp: o and L each below the single message's time, L + 2o + G·words within a factor 2 of it" "$(printf '%s' "$out" | python3 -c "
import json,sys; j=json.load(sys.stdin); p=j['profile']; t=p['tick_seconds']; s=j['loggp_single']
print(s['bytes'] > 0, p['loggp_o'] * t < s['seconds'] and p['loggp_L'] * t < s['seconds'],
      s['seconds'] / 2 <= (p['loggp_L'] + 2 * p['loggp_o'] + p['loggp_G'] * s['bytes'] / 8) * t <= 2 * s['seconds'],
      abs(s['predicted'] - (p['loggp_L'] + 2 * p['loggp_o'] + p['loggp_G'] * s['bytes'] / 8) * t) <= 1e-6 * s['predicted'])")" \
    "True True True True"
text=$("$POLYAPM" calibrate --raw "${XDG_CACHE_HOME:-$HOME/.cache}/polyapm/calibrate-local.raw" --no-store)
expect_match "the text output says loggp's o" "$text" '^  loggp_o +[0-9.e+-]+ +ticks/message'
expect_match "the text output says the single message against the fit" "$text" '^  loggp: one message of [0-9]+ bytes .* s \(measured [0-9.e+-]+ s\)'
expect_eq "the tick is the exported kernel's seconds over its ticks (issue 16)" "$(printf '%s' "$out" | python3 -c "
import json,sys; j=json.load(sys.stdin); k=j['kernel']
print(k['ticks'] > 1e7 and k['seconds'] > 0 and abs(j['profile']['tick_seconds'] - k['seconds'] / k['ticks']) <= 1e-6 * j['profile']['tick_seconds'] and j['multiply_seconds'] > 0)")" True
expect_eq "each work class's price: its part's seconds per tick over the tick" "$(printf '%s' "$out" | python3 -c "
import json,sys; j=json.load(sys.stdin); k=j['kernel']; p=j['profile']; t=p['tick_seconds']
parts=[(k[c]['seconds'], k[c]['ticks'], p[c + '_price']) for c in ('strided', 'aliased')]
print(all(tk > 1e7 and abs(pr - s / tk / t) <= 1e-6 * pr for s, tk, pr in parts),
      abs(k['seconds'] - k['unit']['seconds'] - parts[0][0]) <= 1e-6 * k['seconds'])")" "True True"
# unit work: the stencil and the update solved for a tick and a streamed element, both sizes
# (or, when noise leaves no positive solution, per tick with a note)
expect_eq "unit work: the stencil's and the update's seconds are their ticks and streams at the fitted prices" \
    "$(printf '%s' "$out" | python3 -c "
import json,sys; j=json.load(sys.stdin); k=j['kernel']; p=j['profile']; t=p['tick_seconds']
def holds(part, unit, stream):
    q = k[part]; return abs((p[unit] * q['ticks'] + p[stream] * q['streams']) * t - q['seconds']) <= 1e-6 * q['seconds']
per_tick = abs(p['unit_price'] - k['unit']['seconds'] / k['unit']['ticks'] / t) <= 1e-6 * p['unit_price']
if p['stream_cached_price'] > 0:
    memory = all(holds(a, 'unit_price', 'stream_price') for a in ('unit', 'update')) if p['stream_price'] > 0 else \
             p['stream_price'] == 0 and per_tick and 'beyond the caches' in j['note']
    print(memory and p['unit_cached_price'] > 0 and
          all(holds(a, 'unit_cached_price', 'stream_cached_price') for a in ('cached', 'update_cached')))
else:
    print('in the cache' in j['note'] and per_tick)")" True
expect_eq "a restart's price: positive, or unset with a note" "$(printf '%s' "$out" | python3 -c "
import json,sys; j=json.load(sys.stdin); p=j['profile']
print(p['restart_price'] > 0 or (p['restart_price'] < 0 and 'restart' in j['note']))")" True
expect_eq "fit quality reported for every series" "$(printf '%s' "$out" | json "sorted(set(f['series'].split()[0] for f in j['fits']))")" \
    "['exchange', 'hrel', 'loggp', 'pingpong', 'recv', 'send']"
expect_eq "stored in the workspace" "$(sqlite3 lu.pdg/pdg.db "select count(*) from machines where name='local'")" 1
expect_eq "stored in the user-level file" "$(grep -c '^normsent ' "$XDG_CONFIG_HOME/polyapm/machines/local")" 1
expect_eq "the loggp keys in the user-level file, positive" \
    "$(awk '$1 ~ /^loggp_[LoG]$/ && $2 > 0 {n++} END {print n}' "$XDG_CONFIG_HOME/polyapm/machines/local")" 3
sim=$("$POLYAPM" -w lu.pdg sim ROOT -D n=24 --machine local --json)
expect_eq "sim --machine local: predicted seconds = ticks x tick" "$(printf '%s' "$sim" | python3 -c "
import json,sys; j=json.load(sys.stdin); t=$(printf '%s' "$out" | json "j['profile']['tick_seconds']")
print(j['machine'], j['seconds'] > 0 and abs(j['seconds'] - j['cost'] * t) <= 1e-9 * j['seconds'])")" "local True"
expect_match "sim text names the predicted seconds" "$("$POLYAPM" -w lu.pdg sim ROOT -D n=24 --machine local)" \
    'ticks \([0-9.e+-]+ s predicted\)'
# another workspace finds the profile through the user-level file
"$POLYAPM" init "$ROOT/examples/findiff.apm" -o fd.pdg >/dev/null
expect_eq "another workspace uses the user-level profile" \
    "$("$POLYAPM" -w fd.pdg sim ROOT -D n=8 -D steps=2 --machine local --json | json "j['machine']")" local
expect_eq "a program file uses it too" \
    "$("$POLYAPM" sim "$ROOT/examples/findiff.apm" -D n=8 -D steps=2 --machine local --json | json "j['machine']")" local
# loggp prices a leaf with the fitted keys: FD n = 8, 3 steps, block2d on 2 x 2 processors sends
# each processor's 2 partners 3 words each in steps 1 and 2 (tests/cli/cost_loggp.sh), so its
# communication is 2 x (max(2o, o + L) + 2o + 12 G) without the barrier
F() { "$POLYAPM" -w fd.pdg "$@"; }
F apply ROOT stm theta=t sigma=x,y >/dev/null && t=$(F apply 2 tile kind=block2d procs=4 -q) && c=$(F apply "$t" commgen -q) &&
    m=$(F apply "$c" memdist -q) && leaf=$(F apply "$m" relcoord -q) || fail "FD 2x2 chain" "did not apply"
expect_eq "sim --model loggp --machine local: the leaf's messages priced by the fitted L, o, G" "$(F sim "$leaf" -D n=8 -D steps=3 \
    --machine local --model loggp --set barrier_slope=0 --json | python3 -c "
import json,sys; j=json.load(sys.stdin); p=json.loads(sys.argv[1])['profile']; L, o, G = p['loggp_L'], p['loggp_o'], p['loggp_G']
want = 2 * (max(2 * o, o + L) + 2 * o + 12 * G)
print(j['machine'], j['model'], all(abs(c - want) <= 1e-6 * want for c in j['comm']))" "$out")" "local loggp True"
cmp=$(F compare "$leaf" -D n=8 -D steps=3 --machine local --model loggp --json)
sim=$(F sim "$leaf" -D n=8 -D steps=3 --machine local --model loggp --json)
expect_eq "compare --model loggp: the leaf's cost as sim prices it, in the fitted profile's seconds" "$(python3 -c "
import json,sys; c=json.loads(sys.argv[1]); s=json.loads(sys.argv[2]); t=json.loads(sys.argv[3])['profile']['tick_seconds']
r=c['rows'][0]; print(c['model'], c['machine'], abs(r['cost']['loggp'] - s['cost']) <= 1e-9 * s['cost'],
      abs(r['predicted_seconds'] - s['cost'] * t) <= 1e-6 * r['predicted_seconds'])" "$cmp" "$sim" "$out")" "loggp local True True"
# refitting saved measurements; bad input names the line
raw=$(ls -t "${XDG_CACHE_HOME:-$HOME/.cache}"/polyapm/calibrate-local.raw 2>/dev/null | head -1)
if [ -n "$raw" ]; then
    expect_eq "the saved measurements hold the kernel's parts' lines" \
        "$(grep -c '^kernel_\(unit\|strided\|aliased\|accum\|cached\|update\|update_cached\|rows\|rows_long\) [0-9.e+-]* [0-9.e+-]* [0-9.e+-]* [0-9.e+-]*$' "$raw")" 9
    # restarts: the rows over part of rows of 1000 (1200 rows, 128 and 64 rounds), none elsewhere
    expect_eq "the parts' restarts: one an entry of a loop over part of a row" "$(awk '
        NF == 5 && $1 ~ /^kernel_/ { printf "%s %s ", $1, $5 }' "$raw")" \
        "kernel_unit 0 kernel_strided 0 kernel_aliased 0 kernel_accum 0 kernel_cached 0 kernel_update 0 kernel_update_cached 0 kernel_rows 153600 kernel_rows_long 76800 "
    # the simulator's streams: the stencil 2 an element of 5 ticks, the update 2 of 2, the column sums none
    expect_eq "the parts' streams: stencil 2/5 a tick, update 1, column sums 0" "$(awk '
        $1 == "kernel_unit" || $1 == "kernel_cached" { printf "%s %.3f ", $1, $4 / $3 }
        $1 == "kernel_update" || $1 == "kernel_update_cached" { printf "%s %.3f ", $1, $4 / $3 }
        $1 == "kernel_strided" { printf "%s %g ", $1, $4 }' "$raw")" \
        "kernel_unit 0.400 kernel_strided 0 kernel_cached 0.400 kernel_update 1.000 kernel_update_cached 1.000 "
    expect_eq "--raw refits saved measurements" "$("$POLYAPM" calibrate --raw "$raw" --name again --no-store --json | json "j['name']")" again
fi
printf 'tick 1e-9\nsend 2 x 3\n' >bad.raw
"$POLYAPM" calibrate --raw bad.raw --no-store >/dev/null 2>err; rc=$?
expect_eq "malformed measurements: exit 1" "$rc" 1
expect_match "malformed measurements: file:line" "$(cat err)" 'bad.raw:2:1: .*malformed'
"$POLYAPM" calibrate -np 1 >/dev/null 2>&1
expect_eq "-np 1: usage" "$?" 2
"$POLYAPM" calibrate --name scali2004 >/dev/null 2>&1
expect_eq "a built-in name is refused" "$?" 2
finish
