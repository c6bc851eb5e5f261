#!/usr/bin/env bash
# `polyapm fmt` is canonical and idempotent on every example, keeps comments, and the formatted
# program computes the same (same checksum under `polyapm sim`).
source "$(dirname "$0")/../lib.sh"
for f in "$ROOT"/examples/*.apm "$ROOT"/examples/thesis/*.apm; do
    name=${f#$ROOT/}
    "$POLYAPM" fmt "$f" >"$TMP/a.apm" 2>"$TMP/err"; rc=$?
    expect_eq "fmt $name exits 0" "$rc" 0
    "$POLYAPM" fmt "$TMP/a.apm" >"$TMP/b.apm" 2>>"$TMP/err"
    if cmp -s "$TMP/a.apm" "$TMP/b.apm"; then ok "fmt $name idempotent"
    else fail "fmt $name idempotent" "$(diff "$TMP/a.apm" "$TMP/b.apm" | head -5)"; fi
    expect_eq "fmt $name keeps the comments" "$(grep -c '#' "$TMP/a.apm")" "$(grep -c '#' "$f")"
    # small sizes keep this quick; the formatted copy lives elsewhere, so name the reference
    small=""
    for kv in n=12 steps=3 procs=4; do
        grep -Eq "^param.*\b${kv%%=*} =" "$f" && small="$small -D $kv"
    done
    ref=$(sed -n 's/^reference "\(.*\)"/\1/p' "$f")
    against=(); [ -n "$ref" ] && against=(--against "$(dirname "$f")/$ref")
    c1=$("$POLYAPM" sim "$f" $small "${against[@]}" --json 2>/dev/null | json "j['checksum']")
    c2=$("$POLYAPM" sim "$TMP/a.apm" $small "${against[@]}" --json 2>/dev/null | json "j['checksum']")
    if [ -n "$c1" ] && [ "$c1" = "$c2" ]; then ok "fmt $name same checksum"
    else fail "fmt $name same checksum" "'$c1' vs '$c2'"; fi
done
# the examples are stored in canonical form
"$POLYAPM" fmt --check "$ROOT"/examples/*.apm "$ROOT"/examples/thesis/*.apm >"$TMP/out" 2>&1
expect_eq "examples are canonical" "$?:$(cat "$TMP/out")" "0:"
# -w rewrites a non-canonical file in place
printf 'program p\nlevel source\nparam n=3\narray a[0..n] double\noutput a\nfor i=0..n{S:a[i]=i*2}\n' >"$TMP/w.apm"
"$POLYAPM" fmt -w "$TMP/w.apm"
expect_match "fmt -w rewrites" "$(cat "$TMP/w.apm")" "S: a\[i\] = i \* 2"
# comments may hold UTF-8 text and keep their indentation after "# "
printf 'program p # θ and σ\nlevel source\n#   indented\narray a[0 .. 2] double\noutput a\n\nfor i = 0 .. 2 {\n  S: a[i] = i\n}\n' >"$TMP/u.apm"
"$POLYAPM" fmt "$TMP/u.apm" >"$TMP/u2.apm" 2>&1
if cmp -s "$TMP/u.apm" "$TMP/u2.apm"; then ok "fmt keeps UTF-8 comments and their indentation"
else fail "fmt keeps UTF-8 comments and their indentation" "$(diff "$TMP/u.apm" "$TMP/u2.apm" | head -5)"; fi
printf 'program p\nlevel source # \xe2\x82\nparam n = 1\n' >"$TMP/broken-utf8.apm"
"$POLYAPM" check "$TMP/broken-utf8.apm" >/dev/null 2>"$TMP/err"
expect_eq "broken UTF-8 in a comment: exit 1" "$?" 1
expect_match "broken UTF-8 in a comment: file:line:col" "$(cat "$TMP/err")" "broken-utf8.apm:2:1[0-9]: error: unexpected character"
finish
