#!/usr/bin/env bash
# tests/cli/import_styles.sh — C as the field writes it (issue 29): each file of tests/import/ in
# its own style (globals, statics, the region in main(argc, argv), sizes from atoi(argv), VLA
# parameters, timers and prints around the region, linearised arrays, init through helper
# functions, several regions, ...) imports, and `polyapm sim` of the import gives the checksum
# of the same C program built with gcc -O0 -ffp-contract=off and run (its outputs dumped exactly:
# tests/import/dump.h, hashed by tests/polybench/dumpsum.c).  A file says how it is taken in
# comment lines: `// import: ARGS` (import's options), `// cc: FLAGS` (gcc's), `// run: ARGS` (the program's command
# line), `// size2: NAME=V` (a size macro: also at that size, gcc -DNAME=V against sim -D NAME=V;
# `// size2: -DNAME=V -- -D p=V` when the macro's parameter has another name).
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/polybench/kernels.inc"
SRC=$ROOT/tests/import
CC=${CC:-gcc}
pb_dumpsum_build || { fail "dumpsum builds" "$(head -5 "$TMP/cc.err")"; finish; }

# same NAME APM CFLAGS SIMARGS: the C program's dump checksum (built with CFLAGS) = polyapm sim's
same() {
    local k=$1 apm=$2 cflags=$3 simargs=$4 run want got dump
    run=$(c_meta "$SRC/$k.c" run)
    # shellcheck disable=SC2086
    $CC -std=gnu11 -O0 -ffp-contract=off -Wall -Wextra $cflags -o "$TMP/$k.bin" "$SRC/$k.c" -lm 2>"$TMP/cc.err" ||
        { fail "$k: C builds ($cflags)" "$(head -3 "$TMP/cc.err")"; return; }
    # shellcheck disable=SC2046,SC2086
    dump=$("$TMP/$k.bin" $run 2>&1 >/dev/null | "$TMP/dumpsum" $(awk '$1 == "output" { sub(/_$/, "", $2); print $2 }' "$apm") 2>&1) ||
        { fail "$k: C dump" "$dump"; return; }
    want=$(pb_checksum "$dump")
    # shellcheck disable=SC2086
    got=$(pb_checksum "$("$POLYAPM" sim "$apm" $simargs 2>&1)")
    expect_eq "$k${cflags:+ ($cflags)}: polyapm sim of the import = C ($(awk '$1 == "values:" { print $2 }' <<<"$dump") values)" \
        "$got" "$want"
}

files=0
for f in "$SRC"/*.c; do
    k=$(basename "$f" .c)
    grep -q '^// style' "$f" || continue
    files=$((files + 1))
    apm=$TMP/$k.apm
    # shellcheck disable=SC2046
    if ! eval "\"\$POLYAPM\" import \"\$f\" $(c_meta "$f" import) -o \"\$apm\"" 2>"$TMP/$k.err"; then
        fail "$k imports" "$(head -3 "$TMP/$k.err")"; continue
    fi
    "$POLYAPM" fmt "$apm" 2>&1 | cmp -s - "$apm" && ok "$k: imported in canonical form" ||
        fail "$k: imported in canonical form" "polyapm fmt would change it"
    same "$k" "$apm" "$(c_meta "$f" cc)" ""
    s2=$(c_meta "$f" size2)
    case $s2 in
    "") ;;
    *" -- "*) same "$k" "$apm" "${s2%% -- *}" "${s2#* -- }" ;;
    *) same "$k" "$apm" "-D$s2" "-D ${s2%%=*}=${s2#*=}" ;;
    esac
done
[ "$files" -ge 20 ] && ok "$files C files in their own styles" || fail "at least 20 C files in their own styles" "only $files"
finish
