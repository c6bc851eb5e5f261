#!/usr/bin/env bash
# tests/cli/funclen.sh — no function of the product's C is longer than 150 lines (a driver that
# grows past that wants splitting along its phases).  A function runs from the first line of its
# signature (a line starting in column 0 above a `{` in column 0) to its `}` in column 0; the
# product is engine/, transforms/, store/, tui/ (cli and app included) and runtime/.
source "$(dirname "$0")/../lib.sh"
MAX=150

# long_functions FILE...: "LINES FILE:LINE NAME" for each function over $MAX lines
long_functions() {
    python3 - "$MAX" "$@" <<'PY'
import re, sys
limit = int(sys.argv[1])
for f in sys.argv[2:]:
    lines = open(f, errors="replace").read().split("\n")
    for i, l in enumerate(lines):
        if not (l.startswith("{") and i > 0 and lines[i - 1].rstrip().endswith(")")):
            continue
        j = i
        while j < len(lines) and not lines[j].startswith("}"):
            j += 1
        k = i - 1
        while k > 0 and not re.match(r"[A-Za-z_]", lines[k]):
            k -= 1
        if j - k + 1 > limit:
            print(j - k + 1, "%s:%d" % (f, k + 1), lines[k].strip()[:60])
PY
}

mapfile -t files < <(cd "$ROOT" && find engine transforms store tui runtime -name '*.c' | sort)
expect_match "the product's C files are found" "${#files[@]}" "^[1-9][0-9]+$"
expect_eq "no function over $MAX lines" "$(cd "$ROOT" && long_functions "${files[@]}")" ""

# the check itself can fail: a function of MAX + 1 lines is found, one of MAX is not
{ echo "static int longest(int x)"; echo "{"; for ((i = 0; i < MAX - 4; i++)); do echo "    x++;"; done
  echo "    return x;"; echo "}"; } >"$TMP/probe150.c"
{ echo "static int longer(int x)"; echo "{"; for ((i = 0; i < MAX - 3; i++)); do echo "    x++;"; done
  echo "    return x;"; echo "}"; } >"$TMP/probe151.c"
expect_eq "a function of $MAX lines passes" "$(long_functions "$TMP/probe150.c")" ""
expect_match "a function of $((MAX + 1)) lines is reported" "$(long_functions "$TMP/probe151.c")" "^$((MAX + 1)) .*probe151.c:1 static int longer"
finish
