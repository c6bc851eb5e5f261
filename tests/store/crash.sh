#!/usr/bin/env bash
# tests/store/crash.sh — crash safety: 200 times, start an `add` (a new program, or an existing one
# linked under another node) or a `sim NODE` and SIGKILL it at
# a random moment (uniform over 1.5 x the time an add takes here, measured first, and adjusted as
# the rounds go so that about as many commands finish as are killed).  Afterwards `fsck` must report the
# workspace consistent, and every node and simulation whose command had acknowledged it (exit 0
# and its output line) must be there, in pdg.db and in repo.git.
source "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1
P=$POLYAPM
WS=$TMP/c.pdg
ROUNDS=${CRASH_ROUNDS:-200}
sed 's/a\[t - 1\]\[x\] + 1/a[t - 1][x] * 2 + 1/' "$ROOT/tests/store/data/tiny.apm" >"$TMP/base.apm"
"$P" init "$TMP/base.apm" -o "$WS" >/dev/null || { fail "crash: init" "failed"; finish; }
ids=(1)
# Calibrate: the kill moment is uniform over 0 .. 1.5 x the time of an add on this machine now.
t0=$(date +%s%N)
for k in 1 2 3; do
    sed "s/v = 1/v = $((500 + k))/" "$TMP/base.apm" >"$TMP/p.apm"
    "$P" add ROOT "$TMP/p.apm" -w "$WS" >/dev/null || fail "crash: calibration add" "failed"
done
span=$(( ($(date +%s%N) - t0) / 2000000 ))   # 1.5 x the mean, in ms
[ "$span" -lt 5 ] && span=5
ids+=(2 3 4)
declare -A files=()     # id -> its program, to link it elsewhere
: >"$TMP/acked_links"   # parent child
: >"$TMP/acked_nodes"   # id hash7
: >"$TMP/acked_sims"    # id n
killed=0 acked=0 killed0=0 acked0=0 startms=$(date +%s%3N)
for ((i = 1; i <= ROUNDS; i++)); do
    # the machine's load changes under a full suite (ASan, other suites): every 20 rounds the span
    # widens when fewer than a quarter of them finished, and narrows when fewer than a quarter
    # were killed, so that both outcomes stay frequent
    if ((i > 1 && (i - 1) % 20 == 0)); then
        if ((acked - acked0 < 5)); then span=$((span * 3 / 2 + 1))
        elif ((killed - killed0 < 5)); then span=$((span * 2 / 3)); [ "$span" -lt 5 ] && span=5; fi
        acked0=$acked killed0=$killed
    fi
    r=$(( (RANDOM * 32768 + RANDOM) % span ))
    delay=$(printf '%d.%03d' $((r / 1000)) $((r % 1000)))
    dice=$((RANDOM % 6))
    if ((dice == 0 && ${#files[@]} > 0)); then
        # link an existing program under another node: the node and its descendants are
        # recommitted (dedup), or refused when it would make a cycle
        parent=${ids[RANDOM % ${#ids[@]}]}
        keys=("${!files[@]}")
        x=${keys[RANDOM % ${#keys[@]}]}
        "$P" add "$parent" "${files[$x]}" -w "$WS" >"$TMP/out" 2>&1 &
        pid=$!; kind=link
    elif ((dice < 4)); then
        parent=${ids[RANDOM % ${#ids[@]}]}
        sed "s/v = 1/v = $((1000 + i))/" "$TMP/base.apm" >"$TMP/p.apm"
        "$P" add "$parent" "$TMP/p.apm" -w "$WS" >"$TMP/out" 2>&1 &
        pid=$!; kind=add
    else
        node=${ids[RANDOM % ${#ids[@]}]}
        n=$((4 + RANDOM % 12))
        POLYAPM_WORKSPACE=$WS "$P" sim "$node" -D n=$n >"$TMP/out" 2>&1 &
        pid=$!; kind=sim
    fi
    sleep "$delay"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null; rc=$?
    if [ "$rc" -eq 0 ]; then
        acked=$((acked + 1))
        if [ $kind = link ]; then
            echo "$parent $x" >>"$TMP/acked_links"
        elif [ $kind = add ]; then
            line=$(grep -E '^(added|linked existing) node' "$TMP/out")
            id=$(printf '%s' "$line" | sed -E 's/^(added|linked existing) node ([0-9]+) .*/\2/')
            h=$(printf '%s' "$line" | sed -E 's/.*\(source, ([0-9a-f]{7})\).*/\1/')
            echo "$id $h" >>"$TMP/acked_nodes"
            ids+=("$id")
            cp "$TMP/p.apm" "$TMP/f$id.apm"
            files[$id]=$TMP/f$id.apm
        else
            grep -q '^verified: yes' "$TMP/out" && echo "$node $n" >>"$TMP/acked_sims"
        fi
    elif [ "$rc" -eq 137 ]; then
        killed=$((killed + 1))
    elif [ $kind = link ] && grep -qE 'cycle|own child' "$TMP/out"; then
        :   # refused, as it should be
    else
        fail "crash: round $i ($kind) failed by itself" "rc=$rc $(head -c 300 "$TMP/out")"
    fi
done
echo "# crash: $ROUNDS rounds in $(( $(date +%s%3N) - startms )) ms (kills within ${span} ms): $killed killed, $acked acknowledged"
[ "$killed" -ge $((ROUNDS / 10)) ] && [ "$acked" -ge $((ROUNDS / 10)) ] \
    && ok "crash: both killed and acknowledged commands ($killed, $acked)" \
    || fail "crash: too few kills or acknowledgements to mean anything" "$killed killed, $acked acknowledged of $ROUNDS"

out=$("$P" fsck -w "$WS"); rc=$?
expect_match "crash: fsck reports consistent" "$rc $(printf '%s\n' "$out" | tail -1)" '^0 .*: consistent \('
lost=0
while read -r id h; do
    got=$(sqlite3 "$WS/pdg.db" "select substr(hash, 1, 7) from nodes where id = $id")
    blob=$(git -C "$WS/repo.git" rev-parse "refs/pdg/$id:program.apm" 2>/dev/null)
    if [ "$got" != "$h" ] || [ "${blob:0:7}" != "$h" ]; then
        lost=$((lost + 1)); echo "# lost node $id ($h): row '$got', git '${blob:0:7}'"
    fi
done <"$TMP/acked_nodes"
expect_eq "crash: no acknowledged node lost ($(wc -l <"$TMP/acked_nodes") checked)" "$lost" 0
lost=0
while read -r id n; do
    c=$(sqlite3 "$WS/pdg.db" "select count(*) from simulations where node = $id and params like 'n=$n,%' and verified = 1")
    [ "$c" = 1 ] || { lost=$((lost + 1)); echo "# lost simulation of node $id n=$n"; }
done <"$TMP/acked_sims"
expect_eq "crash: no acknowledged simulation lost ($(wc -l <"$TMP/acked_sims") checked)" "$lost" 0
lost=0
while read -r p x; do
    [ "$(sqlite3 "$WS/pdg.db" "select count(*) from edges where parent = $p and child = $x")" = 1 ] \
        || { lost=$((lost + 1)); echo "# lost link $p -> $x"; }
done <"$TMP/acked_links"
expect_eq "crash: no acknowledged link lost ($(wc -l <"$TMP/acked_links") checked)" "$lost" 0
expect_eq "crash: sqlite integrity" "$(sqlite3 "$WS/pdg.db" 'pragma integrity_check')" ok
expect_eq "crash: git fsck finds no error" "$(git -C "$WS/repo.git" fsck --no-dangling 2>&1 | grep -ciE 'error|broken|missing')" 0
expect_eq "crash: every row has its ref" "$(sqlite3 "$WS/pdg.db" 'select count(*) from nodes')" \
    "$(git -C "$WS/repo.git" for-each-ref refs/pdg | wc -l | awk -v l="$(printf '%s\n' "$out" | grep -c 'left by an interrupted')" '{print $1 - l}')"
# the workspace still works: a new node, then repair drops the leftovers
sed "s/v = 1/v = 99999/" "$TMP/base.apm" >"$TMP/p.apm"
expect_match "crash: add works afterwards" "$("$P" add ROOT "$TMP/p.apm" -w "$WS")" '^added node'
"$P" fsck --repair -w "$WS" >/dev/null
expect_eq "crash: after repair no leftovers" "$("$P" fsck -w "$WS" --json | json "j['consistent'], j['leftovers']")" "True 0"
expect_eq "crash: after repair, git parents = edges for every node" "$(
    sqlite3 "$WS/pdg.db" 'select id from nodes' | while read -r id; do
        want=$(sqlite3 "$WS/pdg.db" "select group_concat(parent, ' ') from (select parent from edges where child = $id order by rowid)")
        got=$(for c in $(git -C "$WS/repo.git" log -1 --format=%P "refs/pdg/$id"); do
                  git -C "$WS/repo.git" log -1 --format=%B "$c" | sed -n 's/^PDG-Node: //p'; done | tr '\n' ' ' | sed 's/ $//')
        [ "$want" = "$got" ] || echo "node $id: git parents '$got', edges '$want'"
    done)" ""
finish
