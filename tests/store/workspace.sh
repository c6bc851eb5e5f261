#!/usr/bin/env bash
# tests/store/workspace.sh — a scripted session: the thesis FD chain as successive children, each
# node simulated; tree, log, diff, show, marks, notes, labels, rm; what git and sqlite3 see in
# the workspace; dedup (one program under two parents is one node with two parents); simulations
# answered from the store.
source "$(dirname "$0")/../lib.sh"
EX=$ROOT/examples
TH=$EX/thesis
cd "$TMP" || exit 1
P=$POLYAPM
WS=$TMP/fd.pdg
db() { sqlite3 "$WS/pdg.db" "$1"; }

out=$("$P" init "$EX/findiff.apm" -o fd.pdg); rc=$?
expect_eq "init exit 0" "$rc" 0
expect_match "init names the root" "$out" '^created fd.pdg: root node 1 findiff \(source, [0-9a-f]{7}\)$'
[ -d "$WS/repo.git" ] && [ -f "$WS/pdg.db" ] && ok "init made pdg.db and repo.git" || fail "init layout" "$(ls "$WS")"
expect_eq "schema version" "$(db 'pragma user_version')" 2
expect_eq "journal is WAL" "$(db 'pragma journal_mode')" wal
# the root is the canonical text of the source
"$P" fmt "$EX/findiff.apm" >"$TMP/canon.apm"
expect_eq "root hash = git blob id of the canonical text" "$(db 'select hash from nodes where id=1')" \
    "$(git hash-object "$TMP/canon.apm")"
expect_eq "init again refuses" "$("$P" init "$EX/findiff.apm" -o fd.pdg >/dev/null 2>&1; echo $?)" 1

parent=ROOT
for f in fd-syn fd-tiled fd-syncomm fd-syndm fd-relcoord; do
    out=$("$P" add "$parent" "$TH/$f.apm" -w "$WS" --why "thesis step $f"); rc=$?
    expect_match "add $f" "$rc $out" "^0 added node [0-9]+ $f "
    parent=$f
done
expect_eq "six nodes in sqlite" "$(db 'select count(*) from nodes')" 6
expect_eq "labels in order" "$(db 'select group_concat(label, " ") from (select label from nodes order by id)')" \
    "findiff fd-syn fd-tiled fd-syncomm fd-syndm fd-relcoord"
expect_eq "levels in order" "$(db 'select group_concat(level, " ") from (select level from nodes order by id)')" \
    "source syn syn syncomm syndm syndm"
expect_eq "five edges, a chain" "$(db 'select group_concat(parent || ">" || child, " ") from (select * from edges order by rowid)')" \
    "1>2 2>3 3>4 4>5 5>6"
expect_eq "foreign keys declared" "$(db 'select count(*) from pragma_foreign_key_list("edges")')" 2

# git shows the same chain
g=$(git -C "$WS/repo.git" log --graph --all --oneline)
expect_eq "git: six commits" "$(printf '%s\n' "$g" | grep -c '^\* ')" 6
expect_match "git: newest first, labelled" "$(printf '%s\n' "$g" | head -1)" '^\* [0-9a-f]+ fd-relcoord \(#6, syndm\): add'
expect_eq "git: refs/pdg/1..6" "$(git -C "$WS/repo.git" for-each-ref --format='%(refname)' refs/pdg | sort -V | tr '\n' ' ')" \
    "refs/pdg/1 refs/pdg/2 refs/pdg/3 refs/pdg/4 refs/pdg/5 refs/pdg/6 "
expect_eq "git: tree holds program.apm and cost.txt" "$(git -C "$WS/repo.git" ls-tree --name-only refs/pdg/4 | tr '\n' ' ')" \
    "cost.txt program.apm "
expect_eq "git: program.apm blob = node hash" "$(git -C "$WS/repo.git" rev-parse refs/pdg/4:program.apm)" \
    "$(db 'select hash from nodes where id=4')"
expect_eq "git: commit parent = parent node's commit" "$(git -C "$WS/repo.git" rev-parse refs/pdg/4^)" \
    "$(git -C "$WS/repo.git" rev-parse refs/pdg/3)"
expect_match "git: message has the reason" "$(git -C "$WS/repo.git" log -1 --format=%B refs/pdg/3)" "thesis step fd-tiled"
expect_eq "git fsck passes" "$(git -C "$WS/repo.git" fsck --no-dangling 2>&1 | grep -ci error)" 0

# tree, log, show, diff
cd "$TMP/fd.pdg" || exit 1   # the workspace is found from the current directory
t=$("$P" tree)
expect_eq "tree: six lines" "$(printf '%s\n' "$t" | wc -l)" 6
expect_match "tree: root first" "$(printf '%s\n' "$t" | head -1)" '^1 findiff  source  [0-9a-f]{7}$'
expect_match "tree: depth 5 indented" "$(printf '%s\n' "$t" | tail -1)" '^                `-- 6 fd-relcoord  syndm'
expect_eq "workspace found from a subdirectory" "$(cd "$TMP/fd.pdg/repo.git/refs" && "$P" tree | wc -l)" 6
expect_eq "workspace found as the only *.pdg here" "$(cd "$TMP" && "$P" tree | wc -l)" 6
cd "$TMP" || exit 1
l=$("$P" log fd-relcoord -w "$WS")
expect_eq "log: the path, root first" "$(printf '%s\n' "$l" | cut -d' ' -f1-2 | tr '\n' ' ')" \
    "1 findiff 2 fd-syn 3 fd-tiled 4 fd-syncomm 5 fd-syndm 6 fd-relcoord "
expect_match "log: the reason of each step" "$(printf '%s\n' "$l" | sed -n 4p)" '<- add: thesis step fd-syncomm$'
expect_eq "log --json: path ids" "$("$P" log 6 -w "$WS" --json | json "[n['id'] for n in j['path']]")" "[1, 2, 3, 4, 5, 6]"
s=$("$P" show fd-syncomm -w "$WS")
expect_match "show: header" "$(printf '%s\n' "$s" | head -1)" '^node 4 fd-syncomm \(syncomm\)$'
expect_match "show: parent with why" "$s" 'parents +3 fd-tiled +\(add\): thesis step fd-syncomm'
expect_match "show: child" "$s" 'children +5 fd-syndm'
"$P" show 4 --program -w "$WS" >"$TMP/p4.apm"
"$P" fmt "$TH/fd-syncomm.apm" >"$TMP/c4.apm"
cmp -s "$TMP/p4.apm" "$TMP/c4.apm" && ok "show --program is the canonical text" || fail "show --program" "differs"
expect_eq "show --json parents" "$("$P" show 4 -w "$WS" --json | json "[p['node'] for p in j['parents']], j['level']")" "[3] syncomm"
d=$("$P" diff fd-tiled fd-syncomm -w "$WS")
expect_match "diff: headers" "$(printf '%s\n' "$d" | head -2 | tr '\n' '|')" '^--- a/3-fd-tiled.apm\|\+\+\+ b/4-fd-syncomm.apm\|$'
expect_match "diff: level line changes" "$d" $'\n-level syn\n\\+level syncomm'
expect_eq "diff matches diff(1) line counts" \
    "$(printf '%s\n' "$d" | grep -c '^[-+][^-+]')" \
    "$(diff <("$P" show 3 --program -w "$WS") "$TMP/c4.apm" | grep -c '^[<>]')"
expect_eq "diff NODE = against its parent" "$("$P" diff 4 -w "$WS")" "$d"
expect_eq "diff of a node with itself is empty" "$("$P" diff 4 4 -w "$WS")" ""
expect_eq "NODE^^ resolves" "$("$P" show 'fd-syncomm^^' --json -w "$WS" | json "j['label']")" fd-syn
h=$(db 'select hash from nodes where id=5')
expect_eq "hash prefix resolves" "$("$P" show "${h:0:6}" --json -w "$WS" | json "j['id']")" 5

# simulate every node (small instance); each verifies against the root
for n in 1 2 3 4 5 6; do
    out=$(POLYAPM_WORKSPACE=$WS "$P" sim "$n" -D n=16 -D steps=3 --json); rc=$?
    expect_eq "sim node $n verified, stored fresh" "$rc $(printf '%s' "$out" | json "j['verified'], j['stored'], j['node']")" \
        "0 True False $n"
done
expect_eq "six simulations stored" "$(db 'select count(*) from simulations where verified=1')" 6
expect_eq "per-step trace kept" "$(db 'select json_array_length(trace, "$.step_cost") from simulations where node=4')" 3
expect_eq "per-processor totals kept" "$(db 'select json_array_length(per_proc, "$.work") from simulations where node=4')" 4
c1=$(db 'select total from simulations where node=4')
out=$(POLYAPM_WORKSPACE=$WS "$P" sim fd-syncomm -D n=16 -D steps=3)
expect_match "repeat: answered from the store" "$out" 'from the store: simulated'
expect_eq "repeat: no new row" "$(db 'select count(*) from simulations')" 6
j=$(POLYAPM_WORKSPACE=$WS "$P" sim fd-syncomm -D steps=3 -D n=16 --json)
expect_eq "repeat --json: stored, same cost" "$(printf '%s' "$j" | json "j['stored'], j['cost']")" "True $c1"
# another engine (a simulator or prices of another polyapm: the key's profile text names the
# engine, build/gen/engine_id.h) is not answered from the store: the stored row's engine changed
eid=$(sed -n 's/^#define POLYAPM_ENGINE_ID "\(.*\)"$/\1/p' "$T_BUILD_DIR/gen/engine_id.h")
expect_eq "the stored key names this engine ($eid)" \
    "$(db "select count(*) from machines where text like '%# simulated by polyapm''s engine $eid%'")" 1
db "update machines set text = replace(text, '$eid', 'another'), hash = 'old' where text like '%$eid%'"
j=$(POLYAPM_WORKSPACE=$WS "$P" sim fd-syncomm -D steps=3 -D n=16 --json)
expect_eq "another engine's stored result: simulated again, the same cost" \
    "$(printf '%s' "$j" | json "j['stored'], j['cost']")" "False $c1"
out=$(POLYAPM_WORKSPACE=$WS "$P" sim fd-syncomm -D n=16 -D steps=3 --model bsp --json)
expect_eq "another model: a new simulation" "$(printf '%s' "$out" | json "j['stored'], j['model']") $(db 'select count(*) from simulations')" \
    "False bsp 8"
out=$("$P" sim fd-syncomm -w "$WS" -D n=16 -D steps=3 --force --json); rc=$?
expect_eq "--force simulates again, -w finds the workspace" "$rc $(printf '%s' "$out" | json "j['stored']")" "0 False"
expect_eq "--force replaces the stored row (this engine's)" \
    "$(db "select count(*) from simulations s join machines m on s.machine = m.id where node=4 and model='polyapm' and m.hash != 'old'")" 1
# a machine profile kept in the workspace (as calibrate will store `local`)
sqlite3 "$WS/pdg.db" "insert into machines(name, hash, text, created) values('local', 'x',
  'tick_seconds 2e-9' || char(10) || 'normsent 1' || char(10) || 'barrier_slope 10' || char(10), 1)"
out=$("$P" sim fd-syncomm -w "$WS" -D n=16 -D steps=3 --machine local --json); rc=$?
expect_eq "--machine NAME from the workspace" "$rc $(printf '%s' "$out" | json "j['machine'], j['stored']")" "0 local False"
expect_eq "--machine unknown everywhere fails" "$("$P" sim 4 -w "$WS" --machine nosuch >/dev/null 2>&1; echo $?)" 1
t=$("$P" tree -w "$WS")
expect_match "tree shows cost and verified" "$(printf '%s\n' "$t" | sed -n 4p)" 'fd-syncomm  syncomm  [0-9a-f]{7}  cost [0-9.e+]+  verified$'

# dedup: fd-syncomm added again under the root is the same node, now with two parents
out=$("$P" add ROOT "$TH/fd-syncomm.apm" -w "$WS" --why "shortcut")
expect_match "dedup: linked, not copied" "$out" '^linked existing node 4 fd-syncomm'
expect_eq "dedup: still six nodes" "$(db 'select count(*) from nodes')" 6
expect_eq "dedup: two parents" "$(db 'select group_concat(parent) from (select parent from edges where child=4 order by rowid)')" "3,1"
expect_eq "dedup: git commit has both parents" "$(git -C "$WS/repo.git" log -1 --format=%P refs/pdg/4 | wc -w)" 2
expect_match "dedup: git graph shows the merge" "$(git -C "$WS/repo.git" log --graph --all --oneline)" '\*   [0-9a-f]+ fd-syncomm \(#4'
expect_eq "dedup: git still has one commit per node" "$(git -C "$WS/repo.git" log --all --oneline | wc -l)" 6
expect_eq "dedup: descendants rewritten onto the new commit" "$(git -C "$WS/repo.git" rev-parse refs/pdg/5^)" \
    "$(git -C "$WS/repo.git" rev-parse refs/pdg/4)"
expect_eq "dedup: rows name the new commits" "$(db 'select commit_id from nodes where id=6')" "$(git -C "$WS/repo.git" rev-parse refs/pdg/6)"
expect_eq "dedup: json says not new" "$("$P" add 1 "$TH/fd-syncomm.apm" -w "$WS" --json | json "j['new'], j['id']")" "False 4"
expect_match "dedup: tree references the node under its second parent" "$("$P" tree -w "$WS")" '4 fd-syncomm \(shown above\)'
expect_eq "cycle refused" "$("$P" add fd-relcoord "$EX/findiff.apm" -w "$WS" 2>&1 >/dev/null; echo $?)" \
    "polyapm: the program is node 1, an ancestor of node 6: linking it would make a cycle
1"
cat >"$TMP/variant.apm" <<'EOF'
program findiff
level source
param n = 8, steps = 2
array a[0 .. steps][0 .. n - 1] double
init a[0][x] = x
output a[steps]
for t = 1 .. steps, x = 0 .. n - 1 {
  S: a[t][x] = a[t - 1][x] * 2
}
EOF
expect_match "add with --label" "$("$P" add ROOT "$TMP/variant.apm" --label v1 -w "$WS")" '^added node 7 v1 '
expect_eq "label taken" "$("$P" add ROOT "$EX/jacobi1d.apm" --label v1 -w "$WS" 2>&1; echo $?)" \
    "polyapm: label 'v1' is taken by node 7
1"

# marks, notes, labels
"$P" mark fd-syndm favourite -w "$WS" >/dev/null && "$P" note fd-syndm "best so far" -w "$WS" >/dev/null
"$P" mark v1 pruned -w "$WS" >/dev/null
expect_eq "marks in sqlite" "$(db 'select node, pruned, favourite, coalesce(note, "") from marks order by node' | tr '\n' ' ')" \
    "5|0|1|best so far 7|1|0| "
expect_match "tree shows marks" "$("$P" tree -w "$WS")" 'fd-syndm .*\*favourite  \[note\]'
expect_eq "unknown mark is usage" "$("$P" mark 5 shiny -w "$WS" >/dev/null 2>&1; echo $?)" 2
"$P" label 7 variant -w "$WS" >/dev/null
expect_eq "relabelled" "$(db 'select label from nodes where id=7')" variant
"$P" mark 5 clear -w "$WS" >/dev/null
expect_eq "mark cleared, note kept" "$(db 'select pruned, favourite, note from marks where node=5')" "0|0|best so far"

# rm: a subtree; needs --yes; the root cannot go
out=$("$P" rm fd-syndm -w "$WS" 2>&1); rc=$?
expect_eq "rm without --yes: lists, removes nothing" "$rc $(db 'select count(*) from nodes')" "1 7"
expect_match "rm without --yes says what it would do" "$out" 'would remove 2 nodes: 5 6'
expect_eq "rm --yes" "$("$P" rm fd-syndm --yes -w "$WS")" "removed 2 nodes: 5 6"
expect_eq "rm: rows gone" "$(db 'select count(*) from nodes where id in (5,6)') $(db 'select count(*) from marks where node=5')" "0 0"
expect_eq "rm: refs gone" "$(git -C "$WS/repo.git" for-each-ref refs/pdg/5 refs/pdg/6 | wc -l)" 0
expect_eq "rm root refused" "$("$P" rm ROOT --yes -w "$WS" 2>&1; echo $?)" \
    "polyapm: node 1 is the root; it cannot be removed
1"
expect_match "fsck after the session" "$("$P" fsck -w "$WS")" 'consistent \(5 nodes, 5 refs\)$'
expect_match "ids are not reused after rm" "$("$P" add fd-syncomm "$TH/fd-syndm.apm" -w "$WS")" '^added node 8 fd-syndm '
expect_eq "tree NODE --json: the subtree" "$("$P" tree fd-tiled -w "$WS" --json | json "j['root'], [n['id'] for n in j['nodes']]")" "3 [3, 4, 8]"
expect_eq "tree NODE: the subtree" "$("$P" tree fd-tiled -w "$WS" | sed -E 's/^([ |`-]*[0-9]+ [^ ]+).*/\1/' | tr '\n' '|')" \
    "3 fd-tiled|\`-- 4 fd-syncomm|    \`-- 8 fd-syndm|"
expect_eq "tree --json: parents of 4" "$("$P" tree -w "$WS" --json | json "[n['parents'] for n in j['nodes'] if n['id']==4][0]")" "[3, 1]"
finish
