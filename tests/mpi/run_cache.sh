#!/usr/bin/env bash
# What `polyapm run` keeps and what it leaves (tui/cli/objcache.c, cmd_export.c): the runtime's
# objects are compiled once per runtime, compiler and flags and taken from polyapm's cache
# directory by later runs (make then compiles the program alone); a file's export directory in
# $TMPDIR goes after a good run and is named after a failed one; a workspace node run again at the
# same values is not built again.
source "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
cd "$TMP"
export TMPDIR=$TMP/tmpdir
mkdir -p "$TMPDIR"
OBJ=$XDG_CACHE_HOME/polyapm/objects
EX=$ROOT/examples

# a file, twice (two programs: procs is baked in), then with another compiler named
out=$("$POLYAPM" run "$EX/polyeval.apm" -np 2 -D procs=2 --json 2>&1 | tail -1)
expect_eq "a file's run: the simulation's checksum; no directory reported" \
    "$(printf '%s' "$out" | json "j['match'], j['dir']")" "True None"
expect_eq "its export directory in \$TMPDIR is gone" "$(ls -A "$TMPDIR" | wc -l)" 0
expect_eq "one cache entry of the runtime's objects" "$(ls "$OBJ" | wc -l)" 1
entry=$(ls -d "$OBJ"/* | head -1)
"$POLYAPM" export "$EX/polyeval.apm" -D procs=3 -o "$TMP/pe3" >/dev/null
expect_eq "the entry holds an object for each runtime source of an export" \
    "$(cd "$TMP/pe3" && ls rt_*.c | sed 's/\.c$/.o/' | sort | tr '\n' ' ')" "$(cd "$entry" && ls | sort | tr '\n' ' ')"
stamp=$(stat -c %Y.%s "$entry"/rt_init.o)
out=$("$POLYAPM" run "$EX/polyeval.apm" -np 3 -D procs=3 --json 2>&1 | tail -1)
expect_eq "another program: run, equal" "$(printf '%s' "$out" | json "j['match']")" True
expect_eq "the same entry served it (still one, unchanged)" "$(ls "$OBJ" | wc -l) $(stat -c %Y.%s "$entry"/rt_init.o)" "1 $stamp"
# make in a directory holding the cached objects compiles the program alone
cp "$entry"/*.o "$TMP/pe3/"
expect_eq "make with the cached objects compiles only the program" \
    "$(make -C "$TMP/pe3" 2>&1 | grep -c -- ' -c ')" 1
out=$(CC=mpicc "$POLYAPM" run "$EX/polyeval.apm" -np 2 -D procs=2 --json 2>&1 | tail -1)
expect_eq "CC named: run, equal, under an entry of its own" \
    "$(printf '%s' "$out" | json "j['match']") $(ls "$OBJ" | wc -l)" "True 2"

# a run whose program fails to build keeps its directory and says where; one refused before
# (3 ranks for 2 processors) leaves nothing
CC=false "$POLYAPM" run "$EX/polyeval.apm" -np 2 -D procs=2 >/dev/null 2>err
kept=$(sed -n 's/^polyapm run: the exported program is kept in //p' err)
expect_eq "a run whose build fails (CC=false) names its directory, which holds the program" \
    "$(test -f "$kept/polyeval.c" && echo yes)" yes
rm -rf "$kept"
"$POLYAPM" run "$EX/polyeval.apm" -np 3 -D procs=2 >/dev/null 2>err
expect_eq "refused before building (3 ranks for 2 processors): exit 1, nothing left in \$TMPDIR" \
    "$? $(ls -A "$TMPDIR" | wc -l) $(grep -c 'kept in' err)" "1 0 0"

# a workspace node: its run directory is its cache; run again, nothing is rebuilt
sed "s/^param n = 256, steps = 21/param n = 16, steps = 21/" "$EX/findiff.apm" >fd16.apm
"$POLYAPM" init fd16.apm -o fd.pdg >/dev/null
P() { "$POLYAPM" -w "$TMP/fd.pdg" "$@"; }
P apply ROOT stm theta=t sigma=x inner=seq >/dev/null && P apply 2 tile kind=blocked procs=2 >/dev/null &&
    P apply 3 commgen >/dev/null && P apply 4 memdist >/dev/null
P run 5 -np 2 >/dev/null 2>&1
dir=$(ls -d fd.pdg/runs/node5-auto-* | head -1)
before=$(stat -c %Y.%s "$dir"/findiff "$dir"/findiff.c | tr '\n' ' ')
sleep 1
out=$(P run 5 -np 2 --json 2>&1 | tail -1)
expect_eq "a node run again: equal; its program and sources untouched (not exported nor built again)" \
    "$(printf '%s' "$out" | json "j['match']") $(stat -c %Y.%s "$dir"/findiff "$dir"/findiff.c | tr '\n' ' ')" "True $before"
finish
