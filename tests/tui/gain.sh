#!/usr/bin/env bash
# tests/tui/gain.sh — the apply menu shows the selected fusion rule's predicted gain (Table 1
# under the machine profile, as `polyapm transforms` prints it) under the list, and moving the
# selection shows the next rule's; a transform without a prediction (stm) shows none.  A
# placement's prediction (overlap on the FD block2d leaf: its candidates simulated) arrives from
# a child process and is the one `transforms` prints.
. "$(dirname "$0")/tmux-lib.bash"
cp "$ROOT/tests/xf/fuse/bsr.apm" "$TMP/bsr.apm"
sed 's/^param n = 256/param n = 16/' "$ROOT/examples/findiff.apm" >"$TMP/fd.apm"
# the gain each rule predicts: its last words ("gain N")
gain_of() { "$POLYAPM" transforms "$TMP/bsr.apm" | grep -A1 "^$1 " | sed -n 's/^ *predicted .*\(gain -*[0-9.]*\)$/\1/p'; }
tm new-session -d -x 100 -y 30 -s t "cd '$TMP' && '$POLYAPM' bsr.apm; echo \$? >'$TMP/exit'; sleep 60"
check open 'scm bsr'
keys a
check menu 'apply a transform'
names=$(screen | grep -oE "\| [0-9] [a-z0-9-]+ " | awk '{print $3}' | tr '\n' ' ')
expect_eq "the menu lists the three rules that apply" "$names" "sr-reduction bs-comcast bsr-local "
first=1
for rule in $names; do
    [ $first = 1 ] || keys j
    first=0
    g=$(gain_of "$rule")
    expect_match "transforms predicts $rule's gain" "$g" "^gain -?[0-9.]+$"
    check "$rule selected: its gain under the list" "^ *\|.*${g//./\\.} *\|$"
    check "$rule selected: the prediction's first words" "\| predicted \(Gorlatch et al\., Table 1; "
done
keys Escape
wait_gone 'apply a transform' 5
keys q
# a source program: stm has no prediction, no such line
tm new-session -d -x 100 -y 30 -s u "cd '$TMP' && '$POLYAPM' fd.apm; sleep 60"
tmu() { tm capture-pane -p -t u; }
for _ in $(seq 50); do tmu | grep -q 'src findiff' && break; sleep 0.1; done
tm send-keys -t u a
for _ in $(seq 50); do tmu | grep -q 'apply a transform' && break; sleep 0.1; done
expect_match "findiff: the menu offers stm" "$(tmu)" "\| 1 stm "
expect_eq "findiff: no predicted gain in the menu" "$(tmu | grep -c 'predicted')" 0
tm kill-session -t u
# the FD leaf (block2d, relcoord): overlap's prediction, the placements' CommCost and cost
sed 's/^param n = 16/param n = 32/' "$TMP/fd.apm" >"$TMP/fd32.apm"
W=$TMP/fd32.pdg
"$POLYAPM" init "$TMP/fd32.apm" -o "$W" >/dev/null
leaf=$("$POLYAPM" -w "$W" apply ROOT stm theta=t sigma=x,y -q)
for step in "tile kind=block2d procs=4" commgen memdist relcoord; do
    # shellcheck disable=SC2086
    leaf=$("$POLYAPM" -w "$W" apply "$leaf" $step -q)
done
want=$("$POLYAPM" -w "$W" transforms "$leaf" | grep -A1 '^overlap ' | tail -1 | sed 's/^ *//' | cut -c1-56)
expect_match "transforms predicts the placements" "$want" "^placements \\(polyapm model"
# the new session before the old one goes: killing a server's last session stops the server,
# and a session started while it stops is lost with it
relaunch 120 40 "cd '$TMP' && '$POLYAPM' fd32.pdg; sleep 60"
check "the FD workspace opens" "src findiff"
keys b
check "the leaf selected" "relcoord"
keys a
check "the leaf's menu" 'apply a transform'
n=$(screen | grep -oE "\| [0-9] overlap " | awk '{print $2}')
expect_match "the menu offers overlap" "$n" "^[0-9]$"
for ((k = 1; k < ${n:-1}; k++)); do keys j; done
check "overlap selected: its prediction under the list (from the child process)" \
    "\| $(printf '%s' "$want" | sed 's/[][\.*^$()+?{}|]/\\&/g')"
finish
