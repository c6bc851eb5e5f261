#!/usr/bin/env bash
# tests/cli/import_tui.sh — C is a way in (issue 29): `polyapm FILE.c` with import's options opens
# the TUI (through tmux) on FILE.pdg next to the C file, created with the imported program as its
# root; opened again it reopens the workspace; a C file that does not import exits 1 with the
# located error and creates nothing; without a terminal it says so and creates nothing.  The
# program pane shows the C line each statement came from.
. "$(dirname "$0")/../tui/tmux-lib.bash"
cp "$ROOT/tests/import/regions.c" "$ROOT/tests/import/dump.h" "$TMP/"
tm new-session -d -x 100 -y 30 -s t "cd '$TMP' && '$POLYAPM' regions.c --region 2; echo \$? >'$TMP/exit'; sleep 60"
check open 'src regions'
check created 'regions\.pdg +1 nodes'
# each statement says the C line it came from (region 2's assignment), on the screen too
line=$(awk '/^#pragma scop/ {r++} r == 2 && /=/ && !/for|pragma/ {print NR; exit}' "$TMP/regions.c")
check "the statement's C line" "# regions\.c:$line"
keys q
end=$((SECONDS + 10)); while [ ! -s "$TMP/exit" ] && [ $SECONDS -lt $end ]; do sleep 0.1; done
expect_eq "q exits 0" "$(cat "$TMP/exit" 2>/dev/null)" 0
expect_eq "the workspace's root is the import of region 2" \
    "$("$POLYAPM" -w "$TMP/regions.pdg" show ROOT --program 2>&1)" \
    "$(cd "$TMP" && "$POLYAPM" import regions.c --region 2 2>/dev/null)"
rm -f "$TMP/exit"
relaunch 100 30 "cd '$TMP' && '$POLYAPM' regions.c; echo \$? >'$TMP/exit'; sleep 60"
check reopened 'regions\.pdg +1 nodes'
keys q
end=$((SECONDS + 10)); while [ ! -s "$TMP/exit" ] && [ $SECONDS -lt $end ]; do sleep 0.1; done
expect_eq "reopened: q exits 0" "$(cat "$TMP/exit" 2>/dev/null)" 0

printf 'static void k(int n, double x[8]) {\n#pragma scop\n  while (n) n--;\n#pragma endscop\n}\nint main(void) { static double x[8]; k(8, x); return 0; }\n' >"$TMP/bad.c"
rm -f "$TMP/exit"
relaunch 100 30 "cd '$TMP' && '$POLYAPM' bad.c 2>'$TMP/bad.out'; echo \$? >'$TMP/exit'; sleep 60"
end=$((SECONDS + 20)); while [ ! -s "$TMP/exit" ] && [ $SECONDS -lt $end ]; do sleep 0.1; done
expect_eq "a C file that does not import: exit 1" "$(cat "$TMP/exit" 2>/dev/null)" 1
expect_match "... with its located error" "$(cat "$TMP/bad.out")" 'bad\.c:3:3: error: a while loop'
[ ! -e "$TMP/bad.pdg" ] && ok "... and no workspace" || fail "... and no workspace" "bad.pdg exists"
( cd "$TMP" && "$POLYAPM" regions.c </dev/null >"$TMP/nt.out" 2>&1 )
expect_eq "without a terminal: exit 1" "$?" 1
expect_match "... saying the TUI needs one" "$(cat "$TMP/nt.out")" 'the TUI needs a terminal'
finish
