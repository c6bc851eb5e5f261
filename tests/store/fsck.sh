#!/usr/bin/env bash
# tests/store/fsck.sh — `polyapm fsck` finds what was broken by hand with sqlite3 and git, and
# `fsck --repair` heals it: a node row deleted (foreign keys off, as the sqlite3 shell has them),
# a ref deleted, a ref moved to another node's commit, a leftover ref of an interrupted add.
source "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1
P=$POLYAPM
TH=$ROOT/examples/thesis
WS=$TMP/f.pdg
"$P" init "$ROOT/examples/findiff.apm" -o "$WS" >/dev/null || { fail "fsck: init" "failed"; finish; }
parent=ROOT
for f in fd-syn fd-tiled fd-syncomm; do "$P" add "$parent" "$TH/$f.apm" -w "$WS" --why "step $f" >/dev/null; parent=$f; done
"$P" add ROOT "$TH/fd-syncomm.apm" -w "$WS" >/dev/null        # node 4 gets a second parent
POLYAPM_WORKSPACE=$WS "$P" sim 3 -D n=8 -D steps=2 >/dev/null
"$P" note 3 "keep" -w "$WS" >/dev/null
db() { sqlite3 "$WS/pdg.db" "$1"; }
git_() { git -C "$WS/repo.git" "$@"; }
expect_eq "fsck: clean workspace" "$("$P" fsck -w "$WS" >/dev/null; echo $?)" 0

# 1. a node row deleted by hand: its edges, simulation and note dangle
db 'delete from nodes where id = 3'
out=$("$P" fsck -w "$WS"); rc=$?
expect_eq "fsck: a deleted row is a problem (exit 1)" "$rc" 1
expect_match "fsck: names the ref without row" "$out" "refs/pdg/3: the node's row is missing from pdg.db"
expect_eq "fsck: no repair without --repair" "$(db 'select count(*) from nodes where id = 3')" 0
out=$("$P" fsck --repair -w "$WS"); rc=$?
expect_eq "fsck --repair: exit 0" "$rc" 0
expect_match "fsck --repair: says what it did" "$out" "restored from commit"
expect_eq "fsck --repair: row back with its label and level" "$(db 'select label, level from nodes where id = 3')" "fd-tiled|syn"
expect_eq "fsck --repair: same hash as git" "$(db 'select hash from nodes where id = 3')" "$(git_ rev-parse refs/pdg/3:program.apm)"
expect_eq "fsck --repair: edges intact" "$(db 'select group_concat(parent || ">" || child) from (select * from edges where 3 in (parent, child) order by parent)')" "2>3,3>4"
expect_eq "fsck --repair: simulation and note kept" "$(db 'select count(*) from simulations where node = 3'),$(db 'select note from marks where node = 3')" "1,keep"
expect_eq "fsck: clean after repair" "$("$P" fsck -w "$WS" >/dev/null; echo $?)" 0

# 2. a ref deleted by hand
c2=$(git_ rev-parse refs/pdg/2)
git_ update-ref -d refs/pdg/2
out=$("$P" fsck -w "$WS"); rc=$?
expect_match "fsck: a deleted ref is a problem" "$rc $out" "^1 node 2 \(fd-syn\): its ref refs/pdg/2 is missing"
"$P" fsck --repair -w "$WS" >/dev/null
expect_eq "fsck --repair: ref back on the same commit" "$(git_ rev-parse refs/pdg/2)" "$c2"

# 3. a ref moved to another node's commit
git_ update-ref refs/pdg/2 "$(git_ rev-parse refs/pdg/1)"
expect_match "fsck: a moved ref is a problem" "$("$P" fsck -w "$WS")" "node 2 \(fd-syn\): its ref refs/pdg/2 names a commit of another program"
"$P" fsck --repair -w "$WS" >/dev/null
expect_eq "fsck --repair: moved ref put back" "$(git_ rev-parse refs/pdg/2)" "$c2"

# 4. a leftover ref of an interrupted add (an id never committed) is not a problem
git_ update-ref refs/pdg/500 "$c2"
out=$("$P" fsck -w "$WS"); rc=$?
expect_match "fsck: a leftover is reported but consistent" "$rc $out" "^0 refs/pdg/500: left by an interrupted add \(never acknowledged\)"
"$P" fsck --repair -w "$WS" >/dev/null
expect_eq "fsck --repair: leftover ref removed" "$(git_ for-each-ref refs/pdg/500 | wc -l)" 0

# 5. a commit whose parents lag behind the edges (as an interrupted link leaves it): noted, and
#    --repair recommits the node (and its descendants)
c4=$(git_ rev-parse refs/pdg/4)
git_ update-ref refs/pdg/4 "$(git_ commit-tree -m 'fd-syncomm (#4)' "refs/pdg/4^{tree}")"
out=$("$P" fsck -w "$WS"); rc=$?
expect_match "fsck: lagging git parents are a note, not a problem" "$rc $out" "^0 node 4 \(fd-syncomm\): its commit's parents lag behind its edges"
"$P" fsck --repair -w "$WS" >/dev/null
expect_eq "fsck --repair: parents back, in edge order" "$(git_ log -1 --format=%P refs/pdg/4)" \
    "$(git_ rev-parse refs/pdg/3) $(git_ rev-parse refs/pdg/1)"
expect_eq "fsck --repair: nothing left to note" "$("$P" fsck -w "$WS" --json | json "j['leftovers']")" 0

# 6. two roots (an edge deleted by hand) is reported, not repaired
db 'delete from edges where parent = 1 and child = 2'
out=$("$P" fsck -w "$WS" --json); rc=$?
expect_eq "fsck --json: two roots is a problem" "$rc $(printf '%s' "$out" | json "j['consistent'], j['problems']")" "1 False 1"
expect_match "fsck --json: the finding" "$out" 'nodes without a parent'
finish
