#!/usr/bin/env bash
# Every malformed input in tests/bad/ gives `file:line:col: ...` and exit 1 from `polyapm check`
# and from `polyapm sim` — never a crash, a hang or a sanitizer report.  The expected position
# and message are in the file's first line: `# expect: LINE:COL: TEXT`.
source "$(dirname "$0")/../lib.sh"
n=0
for f in "$ROOT"/tests/bad/*.apm; do
    n=$((n + 1))
    name=$(basename "$f")
    want=$(head -1 "$f" | sed -n 's/^# expect: //p')
    for cmd in check sim; do
        timeout 20 "$POLYAPM" $cmd "$f" >"$TMP/out" 2>"$TMP/err"; rc=$?
        if [ $rc -ne 1 ]; then fail "bad $name: $cmd exits 1" "exit $rc: $(head -3 "$TMP/err")"; continue; fi
        if grep -Eq 'Sanitizer|runtime error|Segmentation|Aborted' "$TMP/err"; then
            fail "bad $name: $cmd no crash" "$(head -3 "$TMP/err")"; continue; fi
        first=$(grep -m1 -E ':[0-9]+:[0-9]+: ' "$TMP/err")
        if [ -z "$first" ]; then fail "bad $name: $cmd says file:line:col" "$(head -3 "$TMP/err")"; continue; fi
        if [ -n "$want" ]; then
            pos=${want%%: *}; text=${want#*: }
            case "$first" in
                *"$f:$pos: error: "*"$text"*) ok "bad $name: $cmd $pos $text" ;;
                *) fail "bad $name: $cmd" "want '$pos: ...$text', got '$first'" ;;
            esac
        else
            ok "bad $name: $cmd reports file:line:col"
        fi
    done
done
[ $n -ge 40 ] && ok "at least 40 malformed inputs ($n)" || fail "at least 40 malformed inputs" "only $n"
# files that cannot be read at all
"$POLYAPM" check "$TMP/does-not-exist.apm" >/dev/null 2>"$TMP/err"
expect_eq "missing file: exit 1" "$?" 1
expect_match "missing file: named" "$(cat "$TMP/err")" "does-not-exist.apm"
"$POLYAPM" check >/dev/null 2>&1; expect_eq "no file: usage exit 2" "$?" 2
"$POLYAPM" sim "$ROOT/examples/findiff.apm" -D n= >/dev/null 2>&1; expect_eq "bad -D: usage exit 2" "$?" 2
"$POLYAPM" sim "$ROOT/examples/findiff.apm" --model nope >/dev/null 2>&1; expect_eq "bad model: usage exit 2" "$?" 2
"$POLYAPM" nosuchcommand >/dev/null 2>&1; expect_eq "unknown command: exit 2" "$?" 2
finish
