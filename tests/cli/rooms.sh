#!/usr/bin/env bash
# tests/cli/rooms.sh — transforms/ in rooms: directly in transforms/ only the public headers and
# the registry; below it a folder per family with one private header (NAME_int.h) that nothing
# outside transforms/ can include — tui/ and the tests compile without its path, and a private
# header named by its path stops the build (#error) without the switch only transforms/ gets.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1

top=$(find transforms -maxdepth 1 -type f -printf '%f\n' | sort | tr '\n' ' ')
expect_eq "transforms/ holds the public headers and the registry" "$top" "import.h registry.c xf.h "

mapfile -t rooms < <(find transforms -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort)
expect_match "transforms/ has its rooms" "${#rooms[@]}" '^[5-9]$|^1[0-9]$'
checked=0
for r in "${rooms[@]}"; do
    hs=$(find "transforms/$r" -name '*.h' -printf '%f\n' | sort | tr '\n' ' ')
    case $hs in *_int.h\ ) ;; *) fail "room $r: private headers named NAME_int.h" "$hs" ;; esac
    for h in $(find "transforms/$r" -name '*.h'); do
        checked=$((checked + 1))
        grep -q '^#ifndef POLYAPM_XF_PRIVATE$' "$h" || fail "$h: guarded by POLYAPM_XF_PRIVATE" "no guard"
    done
done
expect_eq "every private header was checked" "$checked" "$(find transforms -mindepth 2 -name '*.h' | wc -l | tr -d ' ')"

# no file outside transforms/ includes a private header (test_xf.c may see core and poly's)
mapfile -t outside < <(find tui tests engine store runtime -name '*.[ch]' | sort)
priv=$(find transforms -mindepth 2 -name '*.h' -printf '%f\n' | sort | paste -sd'|')
inc=$(grep -lE "#include \"([a-z]+/)?($priv)\"" "${outside[@]}" | grep -v '^tests/unit/test_xf.c$')
expect_eq "no file outside transforms/ includes a private header (of ${#outside[@]})" "$inc" ""
defs=$(grep -lE '#define POLYAPM_XF_PRIVATE' "${outside[@]}" $(find transforms -name '*.[ch]'))
expect_eq "nobody defines the switch in a source file" "$defs" ""

# the build refuses it: tui's and the CLI's flags do not find a private header, and by its path
# the header stops the compilation
for folder in tui cli app; do
    flags=$(make -s --no-print-directory print-inc FOLDER=$folder)
    expect_match "the $folder flags are known" "$flags" '-Itransforms'
    printf '#include "poly_int.h"\nint main(void) { return 0; }\n' >"$TMP/p1.c"
    printf '#include "poly/poly_int.h"\nint main(void) { return 0; }\n' >"$TMP/p2.c"
    # shellcheck disable=SC2086
    out1=$(cc -fsyntax-only $flags -I"$T_BUILD_DIR/gen" "$TMP/p1.c" 2>&1); rc1=$?
    # shellcheck disable=SC2086
    out2=$(cc -fsyntax-only $flags "$TMP/p2.c" 2>&1); rc2=$?
    expect_eq "$folder: a private header is not on the path" "$rc1" 1
    expect_match "$folder: ... and says so" "$out1" 'poly_int.h: No such file'
    expect_eq "$folder: a private header by its path stops the build" "$rc2" 1
    expect_match "$folder: ... with the reason" "$out2" 'private to transforms/'
done
finish
