#!/usr/bin/env bash
# tests/cli/replay.sh — `polyapm replay NODE --onto FILE` re-applies a derivation to a changed
# source: every step again, each child verified against the NEW source (its checksum, not the
# old one's); it stops at the first step that no longer applies (a dependence the change made),
# or at a hand edit, keeping the steps before it and nothing of the failed one; bad input is a
# clear error that writes nothing.  `polyapm script NODE` prints the same path as polyapm apply
# lines, and the script run on a fresh workspace of the changed source reaches the replayed leaf.
source "$(dirname "$0")/../lib.sh"
P() { "$POLYAPM" -w "$TMP/j.pdg" "$@"; }
count() { P tree --json | json "len(j['nodes'])"; }

sed 's/n = 1000, steps = 100/n = 40, steps = 6/' "$ROOT/examples/jacobi1d.apm" >"$TMP/j.apm"
# the same stencil with other weights: a change of coefficients, the same dependences
sed 's|/ 3$|* 0.25 + a[t - 1][i] * 0.25|' "$TMP/j.apm" >"$TMP/j2.apm"
# a stencil that reads its own time plane: theta = t no longer respects the dependence
sed 's|a\[t - 1\]\[i - 1\] + a\[t - 1\]\[i\]|a[t][i - 1] + a[t - 1][i]|' "$TMP/j.apm" >"$TMP/j3.apm"
grep -q 'a\[t\]\[i - 1\]' "$TMP/j3.apm" || fail "j3.apm" "the edit did not apply"

"$POLYAPM" init "$TMP/j.apm" -o "$TMP/j.pdg" >/dev/null || fail "init" "workspace not created"
P apply ROOT stm theta=t sigma=i >/dev/null && P apply 2 tile kind=blocked procs=2 >/dev/null &&
    P apply 3 commgen >/dev/null && P apply 4 memdist >/dev/null && P apply 5 relcoord >/dev/null ||
    fail "the derivation" "a step did not apply"

# ---- replay onto a changed source -----------------------------------------------------------
out=$(P replay 6 --onto "$TMP/j2.apm" 2>&1); rc=$?
expect_eq "replay onto new weights: exit 0" "$rc" 0
expect_match "replay: every step reported" "$out" "step 5 of 5: relcoord -> node [0-9]+: cost [0-9.]+, verified"
leaf=$(printf '%s\n' "$out" | sed -n 's/^replayed 5 of 5 steps: the new leaf is node \([0-9]*\)$/\1/p')
expect_match "replay: the new leaf named" "$leaf" '^[0-9]+$'
src_old=$("$POLYAPM" sim "$TMP/j.apm" | sed -n 's/^checksum: //p')
src_new=$("$POLYAPM" sim "$TMP/j2.apm" | sed -n 's/^checksum: //p')
[ "$src_old" != "$src_new" ] && ok "the change changes the result" || fail "the change changes the result" "same checksum"
P sim "$leaf" --json >"$TMP/leaf.json" 2>/dev/null
expect_eq "the replayed leaf is verified" "$(json "j['verified']" <"$TMP/leaf.json")" True
expect_eq "the replayed leaf computes what the NEW source computes" "$(json "j['checksum']" <"$TMP/leaf.json")" "$src_new"
expect_eq "the replayed leaf is syndm" "$(json "j['level']" <"$TMP/leaf.json")" syndm
expect_match "the new source hangs under the old one, by a replay edge" "$(P log "$leaf")" "replay"
# the replayed leaf differs from the original only where the sources differ
expect_match "the leaf holds the new weights" "$(P show "$leaf" --program)" "0.25"
expect_eq "the original leaf is untouched" "$(P show 6 --program | grep -c 0.25)" 0
# a simulation of an original node is still against the root
expect_eq "the original leaf still verifies against the root" \
    "$(P sim 6 --json 2>/dev/null | json "j['verified'] and j['checksum'] == '$src_old'")" True

# explore below the replayed source verifies against it (against the root, nothing would verify)
src_node=$(P log "$leaf" --json | json "[s['id'] for s in j['path'] if s['step'] and s['step'][0]['transform'] == 'replay'][0]" 2>/dev/null)
out=$(P explore "$src_node" -D procs=2 --budget 20 --jobs 1 2>&1)
expect_match "explore from the replayed source: its nodes verify against it" "$out" "[1-9][0-9]* nodes evaluated .* 0 unverified"

# ---- the script ----------------------------------------------------------------------------------
P script 6 -o "$TMP/derive.sh" || fail "script" "exit $?"
sh -n "$TMP/derive.sh" && ok "the script is valid shell" || fail "the script is valid shell" "sh -n failed"
expect_eq "the script: one apply per step" "$(grep -c '^node=$(polyapm apply' "$TMP/derive.sh")" 5
"$POLYAPM" init "$TMP/j2.apm" -o "$TMP/s.pdg" >/dev/null
sleaf=$(PATH="$(dirname "$POLYAPM"):$PATH" POLYAPM_WORKSPACE="$TMP/s.pdg" sh "$TMP/derive.sh" 2>"$TMP/script.err")
expect_eq "the script runs to its end" "$?" 0
expect_eq "the script's leaf is the replayed leaf's program" \
    "$("$POLYAPM" -w "$TMP/s.pdg" show "$sleaf" --program | md5sum)" "$(P show "$leaf" --program | md5sum)"
# a parameter whose value holds spaces is one shell word
shifted=$(P apply ROOT stm "theta=t + 1" sigma=i -q)
expect_match "a value with spaces is quoted in the script" "$(P script "$shifted")" "'theta=t \+ 1'"
out=$(P replay "$shifted" --onto "$TMP/j2.apm" --json)
expect_eq "and replayed as one argument" "$(printf '%s' "$out" | json "(j['done'], j['steps'])")" "(1, 1)"

# ---- where a replay stops -------------------------------------------------------------------
before=$(count)
out=$(P replay 6 --onto "$TMP/j3.apm" --json 2>/dev/null); rc=$?
expect_eq "replay onto a broken dependence: exit 1" "$rc" 1
expect_eq "it stopped at step 1, nothing replayed" "$(printf '%s' "$out" | json "(j['done'], j['steps'], j['leaf'] == j['source'])")" "(0, 5, True)"
expect_match "the reason names the step" "$(printf '%s' "$out" | json "j['stopped']")" "step 1 of 5 \(stm theta=t sigma=i"
expect_eq "only the new source was kept" "$(count)" $((before + 1))
err=$(P replay 6 --onto "$TMP/j3.apm" 2>&1 >/dev/null)
expect_match "without --json the reason goes to stderr" "$err" "does not replay; the replay stops here, 0 steps kept"
# a hand edit on the path: the steps before it are kept
P show 2 --program | sed 's/^  *E: /    Edge: /' >"$TMP/edited.apm"
grep -q "Edge:" "$TMP/edited.apm" || fail "edited.apm" "the relabelling did not apply"
hand=$(P add 2 "$TMP/edited.apm" --json | json "j['id']")
P apply "$hand" tile kind=blocked procs=2 >/dev/null || fail "tile under the hand edit" "refused"
tip=$(P tree --json | json "max(n['id'] for n in j['nodes'])")
sed 's|/ 3$|* 0.5 + a[t - 1][i] * 0|' "$TMP/j.apm" >"$TMP/j4.apm"
out=$(P replay "$tip" --onto "$TMP/j4.apm" --json 2>/dev/null); rc=$?
expect_eq "replay through a hand edit: exit 1" "$rc" 1
expect_eq "the stm step before the hand edit was replayed" "$(printf '%s' "$out" | json "(j['done'], j['steps'])")" "(1, 3)"
expect_match "the reason: a hand edit" "$(printf '%s' "$out" | json "j['stopped']")" "step 2 of 3 .* is not a transform but 'add'"
expect_match "the script of that path ends at the hand edit" "$(P script "$tip")" "hand edit \('add'\)"

# ---- a C source: imported, then replayed --------------------------------------------------------
cat >"$TMP/jac.c" <<'EOF2'
#include <stdio.h>
#define N 30
#define T 5
#define W 3.0
static void kernel(int n, int steps, double A[T + 1][N])
{
    int t, i;
#pragma scop
    for (t = 1; t <= steps; t++)
        for (i = 0; i < n; i++)
            if (i == 0 || i == n - 1)
                A[t][i] = A[t - 1][i];
            else
                A[t][i] = (A[t - 1][i - 1] + A[t - 1][i] + A[t - 1][i + 1]) / W;
#pragma endscop
}
int main(void)
{
    static double A[T + 1][N];
    for (int i = 0; i < N; i++) A[0][i] = (i * 37) % 101;
    kernel(N, T, A);
    for (int i = 0; i < N; i++) printf("%a\n", A[T][i]);
    return 0;
}
EOF2
"$POLYAPM" init "$TMP/jac.c" -o "$TMP/c.pdg" >/dev/null 2>&1 || fail "init jac.c" "$("$POLYAPM" init "$TMP/jac.c" -o "$TMP/c2.pdg" 2>&1 | tail -2)"
C() { "$POLYAPM" -w "$TMP/c.pdg" "$@"; }
C apply ROOT stm auto=1 >/dev/null && C apply 2 tile kind=blocked procs=2 >/dev/null && C apply 3 commgen >/dev/null ||
    fail "the C kernel's derivation" "a step did not apply"
sed 's/#define W 3.0/#define W 4.0/' "$TMP/jac.c" >"$TMP/jac2.c"
out=$(C replay 4 --onto "$TMP/jac2.c" --json 2>&1); rc=$?
expect_eq "replay onto a changed C file: exit 0" "$rc" 0
expect_eq "replay onto a changed C file: every step" "$(printf '%s' "$out" | json "(j['done'], j['steps'])" 2>/dev/null || echo "$out")" "(3, 3)"
cleaf=$(printf '%s' "$out" | json "j['leaf']" 2>/dev/null)
expect_eq "the C replay's leaf computes what the changed C computes" \
    "$(C sim "$cleaf" --json 2>/dev/null | json "j['verified'] and j['checksum'] == '$("$POLYAPM" import "$TMP/jac2.c" -o "$TMP/jac2.apm" 2>/dev/null; "$POLYAPM" sim "$TMP/jac2.apm" | sed -n 's/^checksum: //p')'")" True
printf 'int main(void) { int *p; return *p; }\n' >"$TMP/bad.c"
before_c=$(C tree --json | json "len(j['nodes'])")
out=$(C replay 4 --onto "$TMP/bad.c" 2>&1); rc=$?
expect_eq "a C file outside the subset: exit 1" "$rc" 1
expect_match "a C file outside the subset: located" "$out" "bad.c:[0-9]+:[0-9]+"
expect_eq "a C file outside the subset: nothing written" "$(C tree --json | json "len(j['nodes'])")" "$before_c"

# ---- bad input: an error, nothing written ---------------------------------------------------
before=$(count)
out=$(P replay 6 --onto "$TMP/nope.apm" 2>&1); rc=$?
expect_eq "a missing file: exit 1" "$rc" 1
expect_match "a missing file: named, and why" "$out" "nope.apm: error: cannot open a program file: No such file"
out=$(P replay 6 --onto "$TMP/j.apm" 2>&1); rc=$?
expect_eq "the path's own source: exit 1" "$rc" 1
expect_match "the path's own source: said" "$out" "nothing to replay"
P show 6 --program >"$TMP/syndm.apm"
out=$(P replay 6 --onto "$TMP/syndm.apm" 2>&1); rc=$?
expect_eq "a program at another level: exit 1" "$rc" 1
expect_match "a program at another level: said" "$out" "is a syndm program; the path starts at node 1, a source program"
printf 'program broken\nlevel source\nfor i = 0 .. {\n' >"$TMP/broken.apm"
out=$(P replay 6 --onto "$TMP/broken.apm" 2>&1); rc=$?
expect_eq "a program that does not parse: exit 1" "$rc" 1
expect_match "a program that does not parse: located" "$out" "broken.apm:[0-9]+:[0-9]+"
out=$(P replay 6 2>&1); rc=$?
expect_eq "without --onto: usage, exit 2" "$rc" 2
out=$(P replay 999 --onto "$TMP/j2.apm" 2>&1); rc=$?
expect_eq "an unknown node: exit 1" "$rc" 1
expect_eq "nothing was written by the failures" "$(count)" "$before"
finish
