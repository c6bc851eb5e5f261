#!/usr/bin/env bash
# tests/store/bad.sh — bad input to the workspace commands: a missing, read-only, foreign or
# corrupted workspace, an unknown node, an ambiguous hash prefix, bad arguments.  Each is one
# clear line on stderr and exit 1 (2 for usage), and nothing in the workspace changes.
source "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1
P=$POLYAPM
WS=$TMP/w.pdg
cp "$ROOT/tests/store/data/tiny.apm" "$TMP/base.apm"
"$P" fmt "$TMP/base.apm" >"$TMP/canon.apm"
"$P" init "$TMP/canon.apm" -o "$WS" >/dev/null || { fail "bad: init" "failed"; finish; }
# Two programs whose blob ids share their first 4 hex digits (found by hashing like git does).
read -r v1 v2 pfx < <(python3 - "$TMP/canon.apm" <<'EOF'
import hashlib, sys
t = open(sys.argv[1]).read()
seen = {}
for v in range(2, 200000):
    s = t.replace("v = 1", "v = %d" % v, 1).encode()
    h = hashlib.sha1(b"blob %d\0" % len(s) + s).hexdigest()
    if h[:4] in seen:
        print(seen[h[:4]], v, h[:4]); break
    seen[h[:4]] = v
EOF
)
sed "s/v = 1/v = $v1/" "$TMP/canon.apm" >"$TMP/x1.apm"
sed "s/v = 1/v = $v2/" "$TMP/canon.apm" >"$TMP/x2.apm"
"$P" add ROOT "$TMP/x1.apm" -w "$WS" >/dev/null && "$P" add ROOT "$TMP/x2.apm" -w "$WS" >/dev/null
expect_eq "bad: the two programs share prefix $pfx" \
    "$(sqlite3 "$WS/pdg.db" "select count(*) from nodes where hash like '$pfx%'")" 2

snapshot() { (cd "$1" && find . -type f ! -name '*-shm' ! -name '*-wal' -print0 | sort -z | xargs -0 md5sum) | md5sum; }
# one_error NAME WANT-REGEX CMD...: exit 1, exactly one stderr line matching, workspace unchanged
one_error() {
    local name=$1 want=$2; shift 2
    local before after err rc
    before=$(snapshot "$WS")
    "$@" >/dev/null 2>"$TMP/err"; rc=$?
    err=$(cat "$TMP/err")
    after=$(snapshot "$WS")
    if [ "$rc" = 1 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && printf '%s' "$err" | grep -Eq -- "$want" && [ "$before" = "$after" ]
    then ok "$name"
    else fail "$name" "rc=$rc, stderr '$err', workspace $([ "$before" = "$after" ] && echo unchanged || echo CHANGED)"
    fi
}

one_error "bad: unknown node" "^polyapm: no node 'nosuch' in .*w.pdg \(not an id, label or hash prefix\)$" \
    "$P" show nosuch -w "$WS"
one_error "bad: unknown id" "^polyapm: no node '99'" "$P" add 99 "$TMP/canon.apm" -w "$WS"
one_error "bad: ambiguous prefix" "^polyapm: '$pfx' is ambiguous: it prefixes nodes [0-9]+ \([0-9a-f]{12}\), [0-9]+ " \
    "$P" show "$pfx" -w "$WS"
one_error "bad: short prefix" "at least 4 hex digits" "$P" show abc -w "$WS"
one_error "bad: the root has no parent" "^polyapm: 'ROOT\^': node 1 is the root and has no parent$" \
    "$P" diff 'ROOT^' ROOT -w "$WS"
one_error "bad: missing workspace" "^polyapm: no workspace at $TMP/none.pdg$" "$P" tree -w "$TMP/none.pdg"
mkdir -p "$TMP/foreign"; echo hello >"$TMP/foreign/x"
one_error "bad: foreign directory" "^polyapm: $TMP/foreign is not a polyapm workspace$" "$P" tree -w "$TMP/foreign"
mkdir -p "$TMP/other.pdg/repo.git"; sqlite3 "$TMP/other.pdg/pdg.db" 'create table t(x)'
one_error "bad: someone else's database" "belongs to another program" "$P" tree -w "$TMP/other.pdg"
echo "print('hi')" >"$TMP/prog.py"
one_error "bad: a missing program file" "nonexistent.apm" "$P" add ROOT "$TMP/nonexistent.apm" -w "$WS"
( cd "$TMP/foreign" && one_error "bad: no workspace found from here" "^polyapm: no workspace here" "$P" tree )
printf 'program broken\nlevel source\nfor {\n' >"$TMP/broken.apm"
before=$(snapshot "$WS")
"$P" add ROOT "$TMP/broken.apm" -w "$WS" >/dev/null 2>"$TMP/err"; rc=$?
expect_match "bad: a broken program is refused with file:line:col" "$rc $(head -1 "$TMP/err")" "^1 $TMP/broken.apm:[0-9]+:[0-9]+: error"
expect_eq "bad: ... and nothing changes" "$(snapshot "$WS")" "$before"

"$P" init "$TMP/broken.apm" -o "$TMP/broken.pdg" >/dev/null 2>&1; rc=$?
expect_eq "bad: init of a broken program fails and creates nothing" "$rc $([ -e "$TMP/broken.pdg" ] && echo exists)" "1 "

# read-only: refused before anything is touched (also for root, by the mode bits)
chmod -R a-w "$WS"
one_error "bad: read-only workspace refuses add" "^polyapm: .*w.pdg is read-only$" "$P" add ROOT "$TMP/x1.apm" -w "$WS"
one_error "bad: read-only workspace refuses mark" "is read-only" "$P" mark 2 pruned -w "$WS"
expect_match "bad: read-only workspace can still be read" "$("$P" tree -w "$WS" 2>&1)" '^1 tiny'
POLYAPM_WORKSPACE=$WS "$P" sim 2 >"$TMP/out" 2>"$TMP/err"; rc=$?
expect_match "bad: read-only workspace: sim runs, says it does not store" "$rc $(cat "$TMP/err")" \
    '^0 polyapm: .*w.pdg is read-only; the result is not stored$'
chmod -R u+w "$WS"
expect_eq "bad: ... and stored nothing" "$(sqlite3 "$WS/pdg.db" 'select count(*) from simulations')" 0

# usage errors: exit 2
expect_eq "bad: add without arguments is usage" "$("$P" add -w "$WS" >/dev/null 2>&1; echo $?)" 2
expect_eq "bad: unknown option is usage" "$("$P" tree --frobnicate -w "$WS" >/dev/null 2>&1; echo $?)" 2
expect_eq "bad: too many arguments is usage" "$("$P" show 1 2 -w "$WS" >/dev/null 2>&1; echo $?)" 2
expect_eq "bad: -U needs a number" "$("$P" diff 1 2 -U x -w "$WS" >/dev/null 2>&1; echo $?)" 2

# corrupted workspaces
cp -a "$WS" "$TMP/c1.pdg"
head -c 8192 /dev/urandom >"$TMP/c1.pdg/pdg.db"; rm -f "$TMP/c1.pdg/pdg.db-wal" "$TMP/c1.pdg/pdg.db-shm"
WS=$TMP/c1.pdg one_error "bad: corrupted pdg.db" "pdg.db is corrupted or not a database" "$P" tree -w "$TMP/c1.pdg"
cp -a "$WS" "$TMP/c2.pdg"
rm -rf "$TMP/c2.pdg/repo.git/objects" "$TMP/c2.pdg/repo.git/HEAD"
WS=$TMP/c2.pdg one_error "bad: corrupted repo.git" "repo.git is corrupted" "$P" show 1 -w "$TMP/c2.pdg"
cp -a "$WS" "$TMP/c3.pdg"
sqlite3 "$TMP/c3.pdg/pdg.db" 'pragma user_version = 99'
WS=$TMP/c3.pdg one_error "bad: a newer schema" "made by a newer polyapm \(schema 99" "$P" tree -w "$TMP/c3.pdg"
finish
