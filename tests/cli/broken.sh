#!/usr/bin/env bash
# Broken variants of the thesis chain are caught and named: a wrong message at syncomm, a
# missing message at syndm (processor, step, element), a race at syn.
source "$(dirname "$0")/../lib.sh"
cd "$ROOT/tests/broken"

out=$("$POLYAPM" sim fd-syncomm-wrong-index.apm 2>&1); rc=$?
expect_eq "wrong index: exit 1" "$rc" 1
expect_match "wrong index: reported as a wrong message" "$out" "wrong message"
expect_match "wrong index: names sender and receiver" "$out" "processor [0-9]+ (->|→) [0-9]+"
expect_match "wrong index: names the element" "$out" "a\[[0-9]+\]\[[0-9]+\]\[[0-9]+\]"
"$POLYAPM" sim fd-syncomm-wrong-index.apm --json >"$TMP/j" 2>/dev/null
expect_eq "wrong index: json kind" "$(json "j['violations'][0]['kind']" <"$TMP/j")" "wrong-message"
expect_eq "wrong index: not verified" "$(json "j['verified']" <"$TMP/j")" False

out=$("$POLYAPM" sim fd-syndm-missing-message.apm 2>&1); rc=$?
expect_eq "missing message: exit 1" "$rc" 1
expect_match "missing message: reported" "$out" "missing message"
expect_match "missing message: names processor and step" "$out" "processor [0-9]+ at t=[0-9]+"
expect_match "missing message: names the element" "$out" "a\[[0-9]+\]\[[0-9]+\]\[[0-9]+\]"
expect_match "missing message: names the statement" "$out" "statement S"
"$POLYAPM" sim fd-syndm-missing-message.apm --json >"$TMP/j" 2>/dev/null
expect_eq "missing message: json kind" "$(json "j['violations'][0]['kind']" <"$TMP/j")" "missing-message"

out=$("$POLYAPM" sim fd-syn-race.apm 2>&1); rc=$?
expect_eq "race: exit 1" "$rc" 1
expect_match "race: reported" "$out" "race"
expect_match "race: names both processors" "$out" "processor [0-9]+ .*processor [0-9]+"
"$POLYAPM" sim fd-syn-race.apm --json >"$TMP/j" 2>/dev/null
expect_eq "race: json kind" "$(json "j['violations'][0]['kind']" <"$TMP/j")" "race"

# the intact programs at the same size pass
for f in fd-syncomm fd-syndm fd-tiled; do
    "$POLYAPM" sim "$ROOT/examples/thesis/$f.apm" -D n=16 >/dev/null 2>&1
    expect_eq "intact $f n=16 verifies" "$?" 0
done
finish
