#!/usr/bin/env bash
# tests/cli/funclen.sh — no function of the product's C is longer than 120 lines, and no C file
# (source or header) longer than 1,000 lines: a driver that grows past that wants splitting
# along its phases, a file along its sections.  A function runs from the first line of its
# signature (a line starting in column 0 above a `{` in column 0) to its `}` in column 0; the
# product is engine/, transforms/, store/, tui/ (cli and app included) and runtime/.  Each check
# says how many files it read, which must be as many as `find` counts.
source "$(dirname "$0")/../lib.sh"
MAX=120
MAX_FILE=1000

# long_functions FILE...: "LINES FILE:LINE NAME" for each function over $MAX lines, then
# "checked N" (the files read)
long_functions() {
    python3 - "$MAX" "$@" <<'PY'
import re, sys
limit = int(sys.argv[1])
checked = 0
for f in sys.argv[2:]:
    lines = open(f, errors="replace").read().split("\n")
    checked += 1
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
print("checked", checked)
PY
}

# long_files FILE...: "LINES FILE" for each file over $MAX_FILE lines, then "checked N"
long_files() {
    python3 - "$MAX_FILE" "$@" <<'PY'
import sys
limit = int(sys.argv[1])
checked = 0
for f in sys.argv[2:]:
    n = open(f, errors="replace").read().count("\n")
    checked += 1
    if n > limit:
        print(n, f)
print("checked", checked)
PY
}

# findings OUTPUT: the lines before the final "checked N"; checked OUTPUT: that line
findings() { sed '$d' <<<"$1"; }
checked() { tail -n 1 <<<"$1"; }

product=(engine transforms store tui runtime)
mapfile -t files < <(cd "$ROOT" && find "${product[@]}" -name '*.[ch]' | sort)
found=$(cd "$ROOT" && find "${product[@]}" -name '*.[ch]' | wc -l)
expect_match "the product's C files are found" "$found" "^[1-9][0-9]+$"

out=$(cd "$ROOT" && long_functions "${files[@]}")
expect_eq "functions: as many files checked as find counts" "$(checked "$out")" "checked $found"
expect_eq "no function over $MAX lines" "$(findings "$out")" ""

out=$(cd "$ROOT" && long_files "${files[@]}")
expect_eq "file lengths: as many files checked as find counts" "$(checked "$out")" "checked $found"
expect_eq "no C file over $MAX_FILE lines" "$(findings "$out")" ""

# the checks themselves can fail: a function of MAX + 1 lines is found, one of MAX is not; a
# file of MAX_FILE + 1 lines is found, one of MAX_FILE is not
{ echo "static int longest(int x)"; echo "{"; for ((i = 0; i < MAX - 4; i++)); do echo "    x++;"; done
  echo "    return x;"; echo "}"; } >"$TMP/probe_fn_max.c"
{ echo "static int longer(int x)"; echo "{"; for ((i = 0; i < MAX - 3; i++)); do echo "    x++;"; done
  echo "    return x;"; echo "}"; } >"$TMP/probe_fn_over.c"
expect_eq "a function of $MAX lines passes" "$(findings "$(long_functions "$TMP/probe_fn_max.c")")" ""
expect_match "a function of $((MAX + 1)) lines is reported" \
    "$(findings "$(long_functions "$TMP/probe_fn_over.c")")" "^$((MAX + 1)) .*probe_fn_over.c:1 static int longer"
for ((i = 0; i < MAX_FILE; i++)); do echo "/* $i */"; done >"$TMP/probe_file_max.c"
{ cat "$TMP/probe_file_max.c"; echo "/* one more */"; } >"$TMP/probe_file_over.c"
expect_eq "a file of $MAX_FILE lines passes" "$(findings "$(long_files "$TMP/probe_file_max.c")")" ""
expect_eq "a file of $((MAX_FILE + 1)) lines is reported" \
    "$(findings "$(long_files "$TMP/probe_file_over.c")")" "$((MAX_FILE + 1)) $TMP/probe_file_over.c"
# ... and the count is of the files read (two here)
expect_eq "the count is of the files read" "$(checked "$(long_files "$TMP/probe_file_max.c" "$TMP/probe_file_over.c")")" \
    "checked 2"
finish
