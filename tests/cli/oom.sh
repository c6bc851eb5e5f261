#!/usr/bin/env bash
# tests/cli/oom.sh — one out-of-memory policy and one string buffer (engine/mem.h, strbuf.h):
# no product file but mem.c calls abort() (a failed allocation either goes back as an error value
# or through xmalloc & co., which abort in one place), and no growable string type but strbuf.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1

mapfile -t files < <(find engine transforms store tui -name '*.[ch]' | sort)
expect_match "the product's C files are found" "${#files[@]}" '^[1-9][0-9]+$'
checked=$(printf '%s\n' "${files[@]}" | xargs grep -c '' | wc -l | tr -d ' ')
expect_eq "every file find counts is read" "$checked" "${#files[@]}"
aborts=$(grep -lE '(^|[^_a-z])abort[[:space:]]*\(' "${files[@]}" | grep -v '^engine/mem\.[ch]$')
expect_eq "abort() only in engine/mem.c" "$aborts" ""
bufs=$(grep -lE 'typedef struct [a-z_]* *\{ *char \*s; *size_t' "${files[@]}" | grep -v '^engine/strbuf.h$')
expect_eq "no string buffer type but strbuf" "$bufs" ""

# the checks can fail: a probe file with an abort and a buffer type of its own is found
printf 'typedef struct mybuf { char *s; size_t n, cap; } mybuf;\nvoid f(void *p) { if (!p) abort(); }\n' >"$TMP/probe.c"
expect_eq "a probe's abort is found" "$(grep -lE '(^|[^_a-z])abort[[:space:]]*\(' "$TMP/probe.c" | wc -l | tr -d ' ')" 1
expect_eq "a probe's buffer type is found" \
    "$(grep -lE 'typedef struct [a-z_]* *\{ *char \*s; *size_t' "$TMP/probe.c" | wc -l | tr -d ' ')" 1
finish
