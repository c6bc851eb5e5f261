#!/usr/bin/env bash
# tests/mpi/import_rand.sh — C programs whose initial values come from the C library's random
# numbers (tests/import/rand.c, drand48.c, random.c, rand_nests.c: rand() after srand, drand48()
# and lrand48() after srand48, random() and rand() % k, consecutive nests) reach a distributed
# program that computes what the C program computes.  Each: `polyapm init FILE.c`; `run ROOT
# -np 1` (the sequential export) prints the checksum of the C program's own dump (built with gcc
# -O0 -ffp-contract=off, hashed by tests/polybench/dumpsum.c); so does mathfns.c, whose values come
# from math.h's sin, cos, exp, pow (the exported program calls the functions the simulator
# calls); `explore ROOT -D procs=2` reaches a
# verified syndm leaf whose `run LEAF -np 2` prints it too (every rank draws its part of the
# values by call number).  The sequential export of rand.c carries crand.h and rt_crand.h, builds
# with -Werror and runs clean under AddressSanitizer (rand's cache freed); a program without
# random numbers carries neither.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi.inc"
. "$ROOT/tests/polybench/kernels.inc"
SRC=$ROOT/tests/import
CC=${CC:-gcc}
pb_dumpsum_build || { fail "dumpsum builds" "$(head -5 "$TMP/cc.err")"; finish; }

# derived NAME: the whole check of tests/import/NAME.c (see the header)
derived() {
    local k=$1 ws=$TMP/$1.pdg dump want run leaf
    # shellcheck disable=SC2086
    $CC -std=gnu11 -O0 -ffp-contract=off -Wall -Wextra -o "$TMP/$k.bin" "$SRC/$k.c" -lm 2>"$TMP/cc.err" ||
        { fail "$k: C builds" "$(head -3 "$TMP/cc.err")"; return; }
    # shellcheck disable=SC2046
    eval "\"\$POLYAPM\" init \"\$SRC/\$k.c\" $(c_meta "$SRC/$k.c" import) -o \"\$ws\"" >/dev/null 2>"$TMP/$k.err" ||
        { fail "$k imports" "$(head -3 "$TMP/$k.err")"; return; }
    # shellcheck disable=SC2046
    dump=$("$TMP/$k.bin" $(c_meta "$SRC/$k.c" run) 2>&1 >/dev/null | "$TMP/dumpsum" $("$POLYAPM" -w "$ws" show ROOT |
        awk '$1 == "output" { sub(/_$/, "", $2); print $2 }') 2>&1) || { fail "$k: C dump" "$dump"; return; }
    want=$(pb_checksum "$dump")
    run=$("$POLYAPM" -w "$ws" run ROOT -np 1 --json 2>&1) || { fail "$k: run ROOT -np 1" "$(tail -3 <<<"$run")"; return; }
    expect_eq "$k: the sequential export prints the C program's checksum" "$(printf '%s' "$run" | json "j['checksum']")" "$want"
    timeout 600 "$POLYAPM" -w "$ws" explore ROOT -D procs=2 --budget 40 -q >"$TMP/$k.explore" 2>&1
    leaf=$(pb_best_syndm "$ws")
    [ -n "$leaf" ] || { fail "$k: a verified syndm leaf" "none: $(tail -2 "$TMP/$k.explore")"; return; }
    run=$("$POLYAPM" -w "$ws" run "$leaf" -np 2 --json 2>&1) || { fail "$k: run $leaf -np 2" "$(tail -3 <<<"$run")"; return; }
    expect_eq "$k: syndm node $leaf, run -np 2, prints the C program's checksum" \
        "$(printf '%s' "$run" | json "j['checksum']")" "$want"
}

for k in rand drand48 random rand_nests mathfns; do derived "$k"; done

# the sequential export of rand.c: its files, -Werror, AddressSanitizer
"$POLYAPM" -w "$TMP/rand.pdg" export ROOT -o "$TMP/rand-seq" >/dev/null 2>&1
expect_eq "rand: the export carries crand.h and rt_crand.h" "$(ls "$TMP/rand-seq" | grep -c '^crand\.h$\|^rt_crand\.h$')" 2
expect_match "rand: the program's init draws crand(42, k)" "$(cat "$TMP/rand-seq/rand.c")" "crand\(42, "
if make -s -C "$TMP/rand-seq" EXTRA_CFLAGS="-Werror -fsanitize=address,undefined -fno-omit-frame-pointer" \
    >"$TMP/build" 2>&1; then
    out=$(ASAN_OPTIONS=detect_leaks=1 "$TMP/rand-seq/rand" 2>&1)
    expect_match "rand: the export runs clean under AddressSanitizer" "$out" "^polyapm-result checksum="
    expect_eq "rand: ... no sanitizer report" "$(grep -c 'Sanitizer\|runtime error' <<<"$out")" 0
else
    fail "rand: the export builds with -Werror and the sanitizers" "$(head -5 "$TMP/build")"
fi
"$POLYAPM" export "$ROOT/examples/matmul.apm" -o "$TMP/matmul-seq" >/dev/null 2>&1
expect_eq "a program without random numbers: neither crand.h nor rt_crand.h" \
    "$(ls "$TMP/matmul-seq" | grep -c 'crand')" 0
expect_eq "... nor an include of it" "$(grep -c 'rt_crand\.h\|crand(' "$TMP/matmul-seq/matmul.c")" 0
finish
