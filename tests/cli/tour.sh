#!/usr/bin/env bash
# tests/cli/tour.sh — README.md's five-minute tour works as written.  The lines of its "```sh tour"
# block are taken from README.md and run one command at a time (a heredoc, or lines ended by \,
# is one command), in one shell, from a directory that stands for the clone (its build/ is this
# build), as a user pasting them would.  Every command must exit 0, and what could go wrong is
# checked: import reads the kernel, explore finds a verified syndm leaf faster than the source,
# the program exported and run by hand under mpirun prints the simulation's checksum, `run`
# says that it matches.  Then the "```sh tui" block's command in tmux, with the keys the README
# names: / finds the leaf, d shows its diff, R runs it, a on the root offers the transforms, q quits
# with 0.
source "$(dirname "$0")/../lib.sh"
README=$ROOT/README.md
# mpirun as a user pasting the tour runs it; as root Open MPI wants these
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

# commands MARKER: README's "```sh MARKER" block, one command per NUL-terminated record
commands() {
    python3 - "$README" "$1" <<'PY'
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
try:
    start = lines.index("```sh " + sys.argv[2]) + 1
except ValueError:
    sys.exit("README.md has no ```sh %s block" % sys.argv[2])
block = lines[start:lines.index("```", start)]
i, out = 0, []
while i < len(block):
    cmd = block[i]
    i += 1
    heredoc = re.search(r"<<-?'?(\w+)'?", cmd)
    if heredoc:                                  # up to its terminator
        while i < len(block) and block[i] != heredoc.group(1):
            cmd += "\n" + block[i]
            i += 1
        cmd += "\n" + heredoc.group(1)
        i += 1
    while cmd.endswith("\\") and i < len(block):
        cmd += "\n" + block[i]
        i += 1
    if cmd.strip():
        out.append(cmd)
sys.stdout.write("".join(c + "\0" for c in out))
PY
}

# the clone: build/ is the build under test
mkdir -p "$TMP/clone" "$TMP/tmp"
ln -s "$(dirname "$POLYAPM")" "$TMP/clone/build"
commands tour >"$TMP/tour.cmds" || { fail "the tour block" "README.md has none"; finish; }
mapfile -d '' -t CMDS <"$TMP/tour.cmds"
expect_match "the tour has its commands (import, init, explore, export, mpirun, run)" \
    "${#CMDS[@]} $(printf '%s\n' "${CMDS[@]}" | grep -Ec '^(polyapm (import|init|explore|export|run)|make .*mpirun)')" \
    '^(1[0-9]|[2-9][0-9]) 6$'

# run_tour: each command in this one shell (cd and variables carry over), its output in
# out.N, its status in rc.N; the directory the tour ends in and its $leaf last
run_tour() {
    local i=0 cmd
    cd "$TMP/clone" || return 1
    for cmd in "$@"; do
        i=$((i + 1))
        eval "$cmd" >"$TMP/out.$i" 2>&1
        echo $? >"$TMP/rc.$i"
    done
    pwd >"$TMP/tourdir"
    echo "${leaf:-}" >"$TMP/leaf"
}
# the runner catches a failing command
(TMPDIR=$TMP/tmp run_tour 'true' 'false')
expect_eq "the runner records a failing command's status" "$(cat "$TMP/rc.1") $(cat "$TMP/rc.2")" "0 1"
rm -f "$TMP"/rc.* "$TMP"/out.*
start=$SECONDS
(TMPDIR=$TMP/tmp PATH=$PATH run_tour "${CMDS[@]}")
for ((i = 1; i <= ${#CMDS[@]}; i++)); do
    first=$(printf '%s' "${CMDS[i - 1]}" | head -1)
    rc=$(cat "$TMP/rc.$i" 2>/dev/null || echo missing)
    if [ "$rc" = 0 ]; then ok "tour $i: $first"
    else fail "tour $i: $first" "exit $rc: $(tail -5 "$TMP/out.$i" 2>/dev/null)"; fi
done
expect_eq "the tour ran in under 60 s" "$([ $((SECONDS - start)) -lt 60 ] && echo yes || echo "no: $((SECONDS - start)) s")" yes
# out_of REGEX: the output of the first command that matches REGEX
out_of() {
    local i
    for ((i = 1; i <= ${#CMDS[@]}; i++)); do
        if printf '%s' "${CMDS[i - 1]}" | head -1 | grep -Eq -- "$1"; then cat "$TMP/out.$i"; return; fi
    done
}
DIR=$(cat "$TMP/tourdir")
expect_match "the tour works in a fresh directory" "$DIR" "^$TMP/tmp/"
imported=$(out_of '^polyapm import')
expect_match "import: a source program" "$imported" '^level source$'
expect_match "import: the kernel's statement" "$imported" 'S1: y\[i\] = y\[i\] \+ A\[i\]\[j\] \* x\[j\]'
expect_match "init: the workspace" "$(out_of '^polyapm init')" '^created mv\.pdg: root node 1'
leaf=$(cat "$TMP/leaf")
expect_match "explore: its best leaf is a verified syndm node on 2 processors" \
    "$(grep -A1 'best first' "$DIR/explore.txt" | tail -1)" "^ +$leaf [^ ]+ +syndm +2 procs .*verified"
sim=$(out_of '^polyapm sim')
expect_match "sim: the leaf verifies" "$sim" 'verified: yes'
speedup=$(printf '%s\n' "$sim" | sed -n 's/^speedup over the source: \([0-9.]*\).*/\1/p')
expect_eq "sim: the leaf is faster than the source (speedup $speedup)" \
    "$(python3 -c "print(float('${speedup:-0}') > 1.5)")" True
checksum=$(printf '%s\n' "$sim" | sed -n 's/^checksum: //p')
expect_match "sim: a checksum" "$checksum" '^[0-9a-f]{16}$'
expect_match "export: C+MPI" "$(out_of '^polyapm export')" "exported node $leaf .*C\+MPI"
expect_match "mpirun by hand prints the simulation's checksum" "$(out_of '^make .*mpirun')" \
    "polyapm-result checksum=$checksum .*ranks=2"
expect_match "run: the checksum is the simulation's" "$(out_of '^polyapm run')" \
    "2 ranks, checksum $checksum = the simulation's"

# ---- the TUI, as the tour opens it ---------------------------------------------------------
if ! command -v tmux >/dev/null; then echo "skip tour tui: no tmux"; finish; fi
commands tui >"$TMP/tui.cmds" || { fail "the tui block" "README.md has none"; finish; }
mapfile -d '' -t TUI <"$TMP/tui.cmds"
expect_eq "the TUI block is one command" "${#TUI[@]} ${TUI[0]}" "1 polyapm mv.pdg"
SOCK=polyapm-tour-$$
tm() { tmux -L "$SOCK" "$@"; }
trap 'tm kill-server 2>/dev/null; t_cleanup' EXIT
printf '%s\n' "cd '$DIR' || exit" "export PATH='$TMP/clone/build':\"\$PATH\"" "${TUI[0]}" \
    "echo \$? >'$TMP/tui.exit'" "sleep 60" >"$TMP/tui.sh"
tm new-session -d -x 100 -y 30 -s t "bash '$TMP/tui.sh'"
screen() { tm capture-pane -p -t t; }
check() {   # check NAME REGEX [SECONDS]
    local end=$((SECONDS + ${3:-15}))
    while [ $SECONDS -lt $end ]; do screen | grep -Eq -- "$2" && { ok "$1"; return; }; sleep 0.1; done
    fail "$1" "no /$2/ on screen: $(screen)"
}
check "tui: opens on the workspace" 'src mv '
tm send-keys -t t / relcoord Enter
check "tui: /relcoord finds a leaf" 'program [0-9]+ relcoord[^ ]* \(syndm\)'
tm send-keys -t t d
check "tui: d shows its diff against its parent" 'diff [0-9]+ relcoord[^ ]* \(syndm\) vs its parent'
tm send-keys -t t R
check "tui: R asks for the run's arguments" 'run with'
tm send-keys -t t C-u '-np 2' Enter
check "tui: R runs it and stores the measurement" 'run of node [0-9]+: stored as a measurement' 60
check "tui: the cost pane shows the measured seconds" 'measured [0-9.e-]+ s \(np 2\), predicted'
tm send-keys -t t g a
check "tui: a on the root opens the menu of transforms" 'apply a transform'
check "tui: the menu offers space-time mapping" '1 stm '
tm send-keys -t t Escape
tm send-keys -t t q
end=$((SECONDS + 10))
while [ ! -s "$TMP/tui.exit" ] && [ $SECONDS -lt $end ]; do sleep 0.1; done
expect_eq "tui: q quits with status 0" "$(cat "$TMP/tui.exit" 2>/dev/null)" 0
finish
