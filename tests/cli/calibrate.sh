#!/usr/bin/env bash
# `polyapm calibrate -np 2` (issue 8): the benchmark builds with mpicc and runs under mpirun, every
# fitted parameter is positive and finite, the profile is stored in the workspace and in the
# user-level file, and `sim --machine local` then predicts seconds with it (here and in another
# workspace).  The tick is the exported calibration kernel's seconds over its simulated ticks
# (issue 16); the kernel is timed in its two parts, and each work class's price is its part's
# seconds per tick over that tick.  Timing numbers are printed, not asserted.  `--raw` refits saved measurements.
source "$(dirname "$0")/../lib.sh"
cd "$TMP"
if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then echo "skip calibrate: no MPI"; finish; fi
"$POLYAPM" init "$ROOT/examples/lu.apm" -o lu.pdg >/dev/null
start=$(date +%s)
out=$("$POLYAPM" -w lu.pdg calibrate -np 2 --json 2>err); rc=$?
took=$(( $(date +%s) - start ))
expect_eq "calibrate -np 2: exit 0" "$rc" 0
echo "# calibrate -np 2 took ${took}s"
printf '%s' "$out" | python3 -c "
import json,sys; j=json.load(sys.stdin)
for k,v in j['profile'].items(): print('#   %-14s %g' % (k, v))
for f in j['fits']: print('#   fit %-16s R2 %.4f (%d points)' % (f['series'], f['r2'], f['points']))"
expect_eq "every fitted parameter positive and finite" "$(printf '%s' "$out" | python3 -c "
import json,sys,math; j=json.load(sys.stdin)['profile']
print(all(math.isfinite(j[k]) and j[k] > 0 for k in ('tick_seconds','normsent','normrcvd','barrier_slope','ts','tw','g')))")" True
expect_eq "the tick is the exported kernel's seconds over its ticks (issue 16)" "$(printf '%s' "$out" | python3 -c "
import json,sys; j=json.load(sys.stdin); k=j['kernel']
print(k['ticks'] > 1e7 and k['seconds'] > 0 and abs(j['profile']['tick_seconds'] - k['seconds'] / k['ticks']) <= 1e-6 * j['profile']['tick_seconds'] and j['multiply_seconds'] > 0)")" True
expect_eq "each work class's price: its part's seconds per tick over the tick" "$(printf '%s' "$out" | python3 -c "
import json,sys; j=json.load(sys.stdin); k=j['kernel']; p=j['profile']; t=p['tick_seconds']
parts=[(k[c]['seconds'], k[c]['ticks'], p[c + '_price']) for c in ('unit', 'strided', 'aliased')]
print(all(tk > 1e7 and abs(pr - s / tk / t) <= 1e-6 * pr for s, tk, pr in parts),
      abs(k['seconds'] - parts[0][0] - parts[1][0]) <= 1e-6 * k['seconds'])")" "True True"
expect_eq "fit quality reported for every series" "$(printf '%s' "$out" | json "sorted(set(f['series'].split()[0] for f in j['fits']))")" \
    "['exchange', 'hrel', 'pingpong', 'recv', 'send']"
expect_eq "under two minutes" "$([ "$took" -lt 120 ] && echo yes)" yes
expect_eq "stored in the workspace" "$(sqlite3 lu.pdg/pdg.db "select count(*) from machines where name='local'")" 1
expect_eq "stored in the user-level file" "$(grep -c '^normsent ' "$XDG_CONFIG_HOME/polyapm/machines/local")" 1
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
# refitting saved measurements; bad input names the line
raw=$(ls -t "${XDG_CACHE_HOME:-$HOME/.cache}"/polyapm/calibrate-local.raw 2>/dev/null | head -1)
if [ -n "$raw" ]; then
    expect_eq "the saved measurements hold the kernel's parts' lines" \
        "$(grep -c '^kernel_\(unit\|strided\|aliased\) [0-9.e+-]* [0-9.e+-]*$' "$raw")" 3
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
