#!/usr/bin/env bash
# tests/store/concurrency.sh — two processes adding and simulating in one workspace at once:
# both succeed (the busy timeout queues writers), no node is lost or duplicated, a program both
# add is one node, and fsck finds the workspace consistent.
source "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1
P=$POLYAPM
WS=$TMP/cc.pdg
N=${CONC_N:-15}
cp "$ROOT/tests/store/data/tiny.apm" "$TMP/base.apm"
"$P" init "$TMP/base.apm" -o "$WS" >/dev/null || { fail "concurrency: init" "failed"; finish; }
mkdir -p "$TMP/a" "$TMP/b" "$TMP/s"
for ((i = 1; i <= N; i++)); do
    sed "s/v = 1/v = $((100 + i))/" "$TMP/base.apm" >"$TMP/a/a$i.apm"
    sed "s/v = 1/v = $((200 + i))/" "$TMP/base.apm" >"$TMP/b/b$i.apm"
    sed "s/v = 1/v = $((300 + i))/" "$TMP/base.apm" >"$TMP/s/s$i.apm"
done

worker() {  # name: adds its own programs and the shared ones, simulating each new node
    local w=$1 errors=0 i out
    for ((i = 1; i <= N; i++)); do
        for f in "$TMP/$w/$w$i.apm" "$TMP/s/s$i.apm"; do
            out=$("$P" add ROOT "$f" -w "$WS" 2>&1) || { echo "add $f: $out"; errors=$((errors + 1)); continue; }
            id=$(printf '%s' "$out" | sed -E 's/^(added|linked existing) node ([0-9]+) .*/\2/')
            POLYAPM_WORKSPACE=$WS "$P" sim "$id" -D n=$((4 + i % 5)) >/dev/null 2>"$TMP/$w.err" \
                || { echo "sim $id: $(cat "$TMP/$w.err")"; errors=$((errors + 1)); }
        done
    done
    echo "errors $errors"
}
start=$(date +%s%3N)
worker a >"$TMP/a.log" 2>&1 &
pa=$!
worker b >"$TMP/b.log" 2>&1 &
pb=$!
wait $pa; wait $pb
echo "# concurrency: 2 x $((2 * N)) adds + sims in $(( $(date +%s%3N) - start )) ms"
expect_eq "concurrency: worker a had no error" "$(tail -1 "$TMP/a.log")" "errors 0"
expect_eq "concurrency: worker b had no error" "$(tail -1 "$TMP/b.log")" "errors 0"
grep -v '^errors' "$TMP/a.log" "$TMP/b.log" | head -5
db() { sqlite3 "$WS/pdg.db" "$1"; }
expect_eq "concurrency: nodes = root + a + b + shared" "$(db 'select count(*) from nodes')" $((1 + 3 * N))
expect_eq "concurrency: no duplicate hash" "$(db 'select count(*) from (select hash from nodes group by hash having count(*) > 1)')" 0
expect_eq "concurrency: every edge once" "$(db 'select count(*) from edges')" $((3 * N))
for ((i = 1; i <= N; i += 7)); do
    h=$("$P" fmt "$TMP/s/s$i.apm" | git hash-object --stdin)
    expect_eq "concurrency: shared s$i is one node" "$(db "select count(*) from nodes where hash = '$h'")" 1
done
expect_eq "concurrency: simulations stored" "$(db 'select count(distinct node) from simulations')" $((3 * N))
expect_eq "concurrency: refs = rows" "$(git -C "$WS/repo.git" for-each-ref refs/pdg | wc -l)" $((1 + 3 * N))
expect_match "concurrency: fsck consistent" "$("$P" fsck -w "$WS")" 'consistent \('
finish
