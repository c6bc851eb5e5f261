#!/usr/bin/env bash
# The default machine profile (issue 30 item 2; polyapm(1) DEFAULT MACHINE): with no --machine and
# no POLYAPM_MACHINE, a command prices on this machine's profile `local`; when none exists, the
# first command that needs one calibrates this machine once (calibrate --quick, saying so on
# stderr) and stores it, and the next command reuses it without calibrating.  POLYAPM_MACHINE
# names another default; --machine wins over both.  (Every other test sets
# POLYAPM_MACHINE=scali2004 in tests/lib.sh, so that it never calibrates.)
source "$(dirname "$0")/../lib.sh"
cd "$TMP"
if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then echo "skip machine_default: no MPI"; finish; fi
unset POLYAPM_MACHINE
export XDG_CONFIG_HOME="$TMP/fresh-config" XDG_CACHE_HOME="$TMP/fresh-cache"
"$POLYAPM" init "$ROOT/examples/findiff.apm" -o fd.pdg >/dev/null
P() { "$POLYAPM" -w "$TMP/fd.pdg" "$@"; }
start=$(date +%s)
out=$(P sim ROOT -D n=16 -D steps=3 --json 2>err1); rc=$?
took=$(( $(date +%s) - start ))
echo "# the first command, calibrating: ${took}s"
sed 's/^/#   /' err1 | grep -v '^#   calibrate: ' | head -5
expect_eq "first sim without a profile: exit 0" "$rc" 0
expect_match "it says it calibrates this machine once" "$(cat err1)" "no profile of this machine yet: measuring it once \(polyapm calibrate --quick\)"
expect_match "the calibration's progress on stderr" "$(cat err1)" "calibrate: \[1/2\] the processor and its caches"
expect_eq "its stdout is the one JSON object, priced on local" "$(printf '%s' "$out" | json "j['machine']")" local
expect_eq "the profile is stored in the user-level file" "$(test -s "$XDG_CONFIG_HOME/polyapm/machines/local" && echo yes)" yes
expect_eq "and in the workspace (beside the simulation's key, which names the engine too)" \
    "$(sqlite3 fd.pdg/pdg.db "select count(*) from machines where name='local' and text not like '%# simulated by%'")" 1
# the next commands reuse it: explore, sweep, sim of another size, and a fresh workspace (the user file)
out=$(P sweep ROOT n=8,12 -D steps=2 --json 2>err2); rc=$?
expect_eq "sweep afterwards: exit 0, local, no calibration" \
    "$rc $(printf '%s' "$out" | json "j['machine']") $(grep -c 'measuring it once' err2)" "0 local 0"
"$POLYAPM" init "$ROOT/examples/findiff.apm" -o fd2.pdg >/dev/null
out=$("$POLYAPM" -w fd2.pdg sim ROOT -D n=8 -D steps=2 --json 2>err3); rc=$?
expect_eq "another workspace: local from the user file, no calibration" \
    "$rc $(printf '%s' "$out" | json "j['machine']") $(grep -c 'measuring it once' err3)" "0 local 0"
expect_eq "one calibration in all: one raw measurement file written" "$(ls "$XDG_CACHE_HOME"/polyapm/calibrate-local.raw | wc -l)" 1
# POLYAPM_MACHINE names the default; --machine wins
expect_eq "POLYAPM_MACHINE=scali2004: the default is the thesis's cluster" \
    "$(POLYAPM_MACHINE=scali2004 P sim ROOT -D n=8 -D steps=2 --json | json "j['machine']")" scali2004
expect_eq "--machine wins over POLYAPM_MACHINE" \
    "$(POLYAPM_MACHINE=local P sim ROOT -D n=8 -D steps=2 --machine scali2004 --json | json "j['machine']")" scali2004
POLYAPM_MACHINE=nosuch P sim ROOT -D n=8 -D steps=2 >/dev/null 2>err4; rc=$?
expect_eq "POLYAPM_MACHINE naming no profile: exit 1, no calibration" "$rc $(grep -c 'measuring it once' err4)" "1 0"
expect_match "it names the profile" "$(cat err4)" nosuch
finish
