#!/usr/bin/env bash
# Exported programs follow the language's integer semantics (engine/intsem.h, copied next to the
# program): floor division, remainder and ceil of negative operands give the simulation's
# checksum; a statement that overflows stops the program with a message naming it, exit non-zero.
source "$(dirname "$0")/../lib.sh"
S=$ROOT/tests/sim

for prog in intsem floortable; do
    "$POLYAPM" export "$S/$prog.apm" -o "$TMP/$prog" >/dev/null 2>&1
    expect_eq "$prog: exported with intsem.h beside it" "$([ -f "$TMP/$prog/intsem.h" ] && echo yes)" yes
    (cd "$TMP/$prog" && make -s EXTRA_CFLAGS=-Werror >"$TMP/build.log" 2>&1)
    expect_eq "$prog: builds with -Werror" "$?" 0
    got=$(cd "$TMP/$prog" && ./"$prog" 2>&1 | sed -n 's/.*checksum=\([0-9a-f]*\).*/\1/p')
    want=$("$POLYAPM" sim "$S/$prog.apm" --json | json "j['checksum']")
    expect_eq "$prog: the exported checksum is the simulation's" "$got" "$want"
done

# overflow.apm verifies at n = 1; the exported program run at n = 3 overflows in S at i = 1
"$POLYAPM" export "$S/overflow.apm" -o "$TMP/ovf" >/dev/null 2>&1
sed -i 's/^\(static const int64_t n\) = 1;/\1 = 3;/' "$TMP/ovf/overflow.c"   # the parameter as a reader changes it
(cd "$TMP/ovf" && make -s >/dev/null 2>&1)
out=$(cd "$TMP/ovf" && ./overflow 2>&1); rc=$?
expect_eq "overflow: the exported program exits non-zero" "$rc" 1
expect_match "overflow: it names the error and the statement" "$out" \
    "runtime error: integer overflow \(statement S at 8:3\)"
[ -z "$(printf '%s' "$out" | grep checksum)" ] && ok "overflow: no checksum after the error" \
    || fail "overflow: no checksum after the error" "$out"
finish
