#!/usr/bin/env bash
# `polyapm calibrate -np 2` (issue 8): the benchmark builds with mpicc and runs under mpirun, every
# fitted parameter is positive and finite, the profile is stored in the workspace and in the
# user-level file, and `sim --machine local` then predicts seconds with it (here and in another
# workspace).  The tick and the prices of work come from the benchmark's microbenchmarks (issue 30
# item 4): the tick an operation's seconds, each cache level's and memory's stream and latency,
# the column walks, the accumulation, a restart — each price its figure's formula (engine/calib.h),
# the levels' sizes sysfs's, and the figures ordered as caches are (memory dearer than the first
# level, in stream and latency).  Timing numbers are printed, not asserted.  `--raw` refits saved measurements.
# LogGP (issue 18): the bursts of K messages give loggp_L, loggp_o, loggp_G, written to the profile,
# positive, and consistent with the single message measured (L + 2o + G·words, o and L each less
# than it); the loggp model prices a leaf with them (FD on 2 x 2 processors, by hand).
source "$(dirname "$0")/../lib.sh"
cd "$TMP"
if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then echo "skip calibrate: no MPI"; finish; fi
"$POLYAPM" init "$ROOT/examples/lu.apm" -o lu.pdg >/dev/null
# The figures' order, checked below; a calibration beside other suites on a loaded machine may
# measure out of it (a level's stream timed while another process had the core): it is run
# again, at most twice more, and the checks take the last run.
ORDERED="
import json,sys; p=json.load(sys.stdin)['profile']
s = [p[k] for k in ('stream1_price', 'stream2_price', 'stream_cached_price') if p[k] >= 0] + [p['stream_price']]
l = [p[k] for k in ('latency1', 'latency2', 'latency_cached') if p[k] >= 0] + [p['latency_mem']]
b = [p[k] for k in ('cache1_bytes', 'cache2_bytes', 'cache_bytes') if p[k] > 0]
print(s[-1] > s[0], all(s[i] <= 1.5 * s[i + 1] for i in range(len(s) - 1)), l[-1] > l[0],
      all(l[i] <= 1.5 * l[i + 1] for i in range(len(l) - 1)), b == sorted(b))"
WALK="
import json,sys; p=json.load(sys.stdin)['profile']
print(p['strided1_price'] > p['unit_price'] + p['stream1_price'] and
      (p['strided2_price'] < 0 or p['strided2_price'] > p['unit_price'] + p['stream2_price']))"
SEARCHED="j['micro']['searched'] > j['micro']['update_scalar'] > 0"
in_order() {
    [ "$(printf '%s' "$1" | python3 -c "$ORDERED" 2>/dev/null)" = "True True True True True" ] &&
        [ "$(printf '%s' "$1" | python3 -c "$WALK" 2>/dev/null)" = True ] &&
        [ "$(printf '%s' "$1" | json "$SEARCHED" 2>/dev/null)" = True ]
}
start=$(date +%s)
for attempt in 1 2 3; do
    out=$("$POLYAPM" -w lu.pdg calibrate -np 2 --json 2>err); rc=$?
    [ "$rc" = 0 ] && ! in_order "$out" && [ "$attempt" -lt 3 ] || break
    echo "# calibration $attempt measured the caches out of order (a loaded machine): again"
done
took=$(( $(date +%s) - start ))
expect_eq "calibrate -np 2: exit 0" "$rc" 0
expect_match "progress: the microbenchmarks" "$(cat err)" 'calibrate: \[1/2\] the processor and its caches'
expect_match "progress: the messages" "$(cat err)" 'calibrate: \[2/2\] messages on 2 ranks'
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
expect_eq "the tick: an operation not vectorised, (poly - update) / 14 in the first level (or the update's half, noted); unit work a vectorised one" "$(printf '%s' "$out" | python3 -c "
import json,sys; j=json.load(sys.stdin); m=j['micro']; l1=m['levels'][1]; p=j['profile']; t=p['tick_seconds']
def op(poly, upd, got): return abs(got - (poly - upd) / 14) <= 1e-6 * got or (abs(got - upd / 2) <= 1e-6 * got and 'no dearer' in j['note'])
print(abs(t - m['op_scalar']) <= 1e-9 * t, op(m['poly_scalar'], m['update_scalar'], t), op(m['poly'], l1['update'], m['op']),
      abs(p['unit_price'] - m['op'] / t) <= 1e-6 * p['unit_price'])")" "True True True True"
expect_eq "each price is its microbenchmark's figure over the tick" "$(printf '%s' "$out" | python3 -c "
import json,sys; j=json.load(sys.stdin); m=j['micro']; p=j['profile']; op=m['op_scalar']; L=m['levels']
near = lambda a, b: abs(a - b) <= 1e-6 * max(abs(b), 1e-30)
stream = lambda u: max(u - 2 * m['op'], 0) / 2 / op
def accum(p, m, note):   # chains of 64 against the long one of n (engine/calib.h)
    n, r, w = m['accum_bytes'] / 16, m['accum'] / m['chains'], p['accum_window']
    if w < 0: return near(p['accum_price'], m['accum'] / 2 / op) and 'accum_window' in note
    return near(w, 64 * n * (r - 1) / (n - 64 * r)) and near(p['accum_price'], m['accum'] * (n + w) / n / 2 / op)
def entries(p, m, note):   # a row in 4 pieces against whole rows, per piece E + 32e and E/4 + 32e
    e, k = (m['entries'] - m['whole']) * 4 / 3, (m['entries_checked'] - m['whole_checked']) * 4 / 3 - max(0, (m['entries'] - m['whole']) * 4 / 3)
    ok_e = near(p['entry_price'], e / op) if e > 0 else p['entry_price'] < 0 and 'entry_price' in note
    return ok_e and (near(p['alias_check_price'], k / op) if k > 0 else p['alias_check_price'] < 0 and 'alias_check_price' in note)
last = len(L) - 1
print(near(p['stream_price'], stream(L[0]['update'])), near(p['stream1_price'], stream(L[1]['update'])),
      near(p['stream_cached_price'], stream(L[last]['update'])), near(p['latency_mem'], L[0]['chase'] / op),
      near(p['latency1'], L[1]['chase'] / op), near(p['strided_price'], m['strided'] / 2 / op),
      near(p['aliased_price'], m['aliased'] / 2 / op), accum(p, m, j['note']),
      near(p['lanes_price'], m['lanes'] / 2 / op), near(p['searched_price'], m['searched'] / 2 / op),
      near(p['unit_price'], m['op'] / op), near(p['strided1_price'], L[1]['strided'] / 2 / op),
      near(p['strided_cached_price'], L[last]['strided'] / 2 / op),
      p['restart_price'] < 0 and 'restart' in j['note'] or near(p['restart_price'], (m['restart'] - m['rows']) / op),
      entries(p, m, j['note']))")" \
    "True True True True True True True True True True True True True True True"
expect_eq "an element found through two pieces costs more than the same update not vectorised in the first level" \
    "$(printf '%s' "$out" | json "$SEARCHED")" True
expect_eq "the levels' sizes: sysfs's (else sysconf's), over the processors sharing them; a last level beyond the second measured: no larger than described, its update nearer the second level's than memory's" "$(printf '%s' "$out" | python3 -c "
import json,sys,os,subprocess; j=json.load(sys.stdin); L=j['micro']['levels']
def sysfs(i, f):
    try: return open('/sys/devices/system/cpu/cpu0/cache/index%d/%s' % (i, f)).read().strip()
    except OSError: return None
def getconf(name):
    try: return float(subprocess.run(['getconf', name], capture_output=True, text=True).stdout.strip() or 0)
    except (OSError, ValueError): return 0
want = {}
for i in range(16):
    t = sysfs(i, 'type')
    if t is None: break
    if t == 'Instruction': continue
    s = sysfs(i, 'size'); v = float(s[:-1]) * {'K': 1024, 'M': 1 << 20}.get(s[-1], 1) if s[-1] in 'KM' else float(s)
    want[int(sysfs(i, 'level'))] = v
for l, name in ((1, 'LEVEL1_DCACHE_SIZE'), (2, 'LEVEL2_CACHE_SIZE'), (3, 'LEVEL3_CACHE_SIZE')):
    if want and l == 1: break
    if l > 1 and l - 1 not in want: break
    v = getconf(name)
    if v > 0: want[l] = v
last = len(L) - 1
described = max(want) if want else 0
ok_sizes = all(abs(L[l]['cache_bytes'] - want[l]) < 1 for l in want if l <= last and (l < 3 or l != described))
measured = last < 3 or (L[last]['cache_bytes'] <= want.get(last, 0) and
                        L[last]['update'] <= L[last - 1]['update'] + 0.5 * (L[0]['update'] - L[last - 1]['update']) * 1.25)
print(ok_sizes, measured, j['profile']['cache1_bytes'] == L[1]['cache_bytes'] / L[1]['sharing'] / 2)")" "True True True"
expect_eq "ordered as caches are: memory's stream and latency dearer than the first level's, the levels in order (within noise)" \
    "$(printf '%s' "$out" | python3 -c "$ORDERED")" "True True True True True"
# (a walk measured "beyond the caches" finds most of its lines in the second level, read again by
# the next columns, as exported walks do: against memory's stream it is not dearer; within a level
# it is, every element a line of its own)
expect_eq "a walk down columns: dearer a tick than unit-stride work streamed from the same level" "$(printf '%s' "$out" | python3 -c "$WALK")" True
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
    expect_eq "the saved measurements: three runs of the benchmark, one after the other" \
        "$(grep -c '^# run [123] of 3$' "$raw") $(grep -c '^ranks ' "$raw")" "3 3"
    awk '/^# run 2 of 3$/ { exit } { print }' "$raw" >run1.raw
    expect_eq "its first run holds a cache line and the update and chase at each level and beyond" \
        "$(awk '$1 == "cache" { c[$2] = 1 } $1 == "micro" && ($2 == "update" || $2 == "chase") { m[$3] += 1 }
            END { ok = length(c) > 0; for (l in c) ok = ok && m[l] == 2; print ok && m[0] == 2 }' run1.raw)" 1
    expect_eq "and the poly, accum, chains, lanes, aliased, searched, restart, rows, entries and scalar lines, and the strided walk at each level and beyond" \
        "$(awk '$1 == "cache" { c++ } $1 == "micro" && $2 ~ /^(poly|accum|chains|lanes|aliased|searched|restart|rows|update_scalar|poly_scalar|entries|whole|entries_checked|whole_checked)$/ && NF == 5 { n++ }
            $1 == "micro" && $2 == "strided" && NF == 5 { s++ } END { print n, s == c + 1 }' run1.raw)" "14 1"
    expect_eq "--raw refits saved measurements" "$("$POLYAPM" calibrate --raw "$raw" --name again --no-store --json | json "j['name']")" again
    # runs merged: every measurement keeps its least time, whichever run it came from
    awk '$1 == "micro" { $5 = $5 * 2 } $1 ~ /^(tick|exchange|barrier|pingpong)$/ { $NF = $NF * 2 }
        $1 ~ /^(send|recv|hrel|loggp)$/ { $NF = $NF * 2 } { print }' run1.raw >slow.raw
    cat run1.raw slow.raw >fast-slow.raw
    cat slow.raw run1.raw >slow-fast.raw
    prof() { "$POLYAPM" calibrate --raw "$1" --no-store --json | json "' '.join('%s=%.12g' % kv for kv in sorted(j['profile'].items()))"; }
    one=$(prof run1.raw)
    expect_eq "a run and the same run twice as slow: the first's profile, in either order" \
        "$([ "$(prof fast-slow.raw)" = "$one" ] && [ "$(prof slow-fast.raw)" = "$one" ] && echo same)" same
    expect_eq "... and not the slow run's" "$([ "$(prof slow.raw)" != "$one" ] && echo differs)" differs
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
