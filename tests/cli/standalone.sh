#!/usr/bin/env bash
# tests/cli/standalone.sh — the product's documents stand alone: no file that ships (every file
# git tracks: sources, help and gain texts, man pages, README, examples, and the tests, whose
# names are printed) mentions the project's private notes file, and what a user reads instead
# cites the papers themselves: `polyapm transforms` (help texts and predicted gains) and the man
# pages (a SOURCES section with the full citations, the fusion rules' errata, the cost model).
# The notes' name is spelt in pieces here so that this file passes its own check.
source "$(dirname "$0")/../lib.sh"
NOTE="REFER""ENCE"
# the language's own names that contain the word: the IR enums and SQL's foreign keys
ALLOWED="IR_[DT]_${NOTE}|${NOTE}S [a-z_]+\\("

# ---- no tracked file mentions the notes ------------------------------------------------------
if git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    (cd "$ROOT" && git ls-files -z) >"$TMP/files"
else    # an unpacked tarball: every file but the build directories
    (cd "$ROOT" && find . -type f -not -path './build*' -not -path './.git/*' -print0) >"$TMP/files"
fi
expect_match "the product's files are listed" "$(tr '\0' '\n' <"$TMP/files" | grep -c .)" "^[1-9][0-9]{2,}$"
hits=$(cd "$ROOT" && xargs -0 grep -nI -- "$NOTE" <"$TMP/files" 2>/dev/null | grep -Ev -- "$ALLOWED")
expect_eq "no tracked file mentions the private notes (only IR_[DT]_... and SQL's ...S)" "$hits" ""
hits=$(cd "$ROOT" && xargs -0 grep -nIiE -- "${NOTE}\\.md|shared/""seeds" <"$TMP/files" 2>/dev/null)
expect_eq "no tracked file names the notes' file or the seeds directory" "$hits" ""
# the check itself can fail: a line that mentions the notes is found
printf '# see %s §2\nIR_D_%s\n' "$NOTE" "$NOTE" >"$TMP/probe.c"
expect_eq "the check finds a mention (and lets the enum pass)" \
    "$(grep -n -- "$NOTE" "$TMP/probe.c" | grep -Ev -- "$ALLOWED" | cut -d: -f1)" "1"

# ---- polyapm transforms cites the papers -----------------------------------------------------
E="$ROOT/examples"
"$POLYAPM" transforms "$E/polyeval.apm" >"$TMP/t" 2>&1
expect_eq "transforms: no mention of the notes" "$(grep -c -- "$NOTE" "$TMP/t")" 0
expect_match "transforms: the fusion rules cite Gorlatch et al." "$(grep '^sr2-reduction' "$TMP/t")" \
    "\(Gorlatch et al\. 1999\)"
expect_match "transforms: reduction fusion cites Deitz et al." "$(grep '^fuse-reductions' "$TMP/t")" \
    "\(Deitz et al\. 2006"
expect_match "transforms: the distribution laws cite Di Cosmo et al." \
    "$(grep '^bcast-scatter-allgather' "$TMP/t")" "\(Di Cosmo et al\. 2004\)"
expect_match "transforms: a fusion rule's gain cites Table 1 of Gorlatch et al." \
    "$(grep -A1 '^bs-comcast' "$TMP/t")" "predicted \(Gorlatch et al\., Table 1; hockney"
"$POLYAPM" transforms "$E/zran3.apm" >"$TMP/t" 2>&1
expect_match "transforms: reduction fusion's gain cites Deitz et al." \
    "$(grep -A1 '^fuse-reductions' "$TMP/t")" "predicted \(Deitz et al\.: saves"
"$POLYAPM" transforms "$ROOT/tests/xf/fuse/laws.apm" >"$TMP/t" 2>&1
expect_match "transforms: a distribution law's gain cites Di Cosmo et al." \
    "$(grep -A1 '^bcast-scatter-allgather' "$TMP/t")" "predicted \(Di Cosmo et al\.;"
expect_eq "transforms (laws): no mention of the notes" "$(grep -c -- "$NOTE" "$TMP/t")" 0

# ---- the man pages: valid, with their sources ------------------------------------------------
# the page as a user reads it, on one line (unhyphenated, blanks squeezed, hyphens ASCII); the
# source when man is not installed
render() {
    if command -v man >/dev/null 2>&1; then
        MANROFFOPT="-rHY=0" MANWIDTH=80 man -l "$1" 2>/dev/null | col -bx
    else cat "$1"; fi | sed 's/\xe2\x80\x90/-/g' | tr -s ' \t\n' '   '
}
for page in polyapm.1 polyapm-lang.5 polyapm-transforms.7 polyapm-guide.7; do
    f="$ROOT/man/$page"
    if command -v man >/dev/null 2>&1; then
        expect_eq "$page: man reports no warnings" "$(MANWIDTH=80 man --warnings -l "$f" 2>&1 >/dev/null)" ""
    fi
    render "$f" >"$TMP/page"
    expect_eq "$page: no mention of the notes" "$(grep -c -- "$NOTE" "$TMP/page")" 0
    expect_match "$page: a SOURCES section" "$(cat "$TMP/page")" "SOURCES N\. Ellmenreich, PolyAPM: Comparative"
    expect_match "$page: cites the thesis" "$(cat "$TMP/page")" \
        "PolyAPM: Comparative Parallel Programming with Abstract Parallel Machines, PhD thesis, Universit.t Passau, 2004"
    expect_match "$page: cites the fusion paper" "$(cat "$TMP/page")" \
        "S\. Gorlatch, C\. Wedler, C\. Lengauer, Optimization Rules for Programming with Collective Operations, IPPS/SPDP 1999"
    expect_match "$page: cites the reductions paper" "$(cat "$TMP/page")" \
        "Deitz, D\. Callahan, B\. L\. Chamberlain, L\. Snyder, Global-View Abstractions for User-Defined Reductions and Scans, PPoPP 2006"
done
for page in polyapm.1 polyapm-transforms.7 polyapm-guide.7; do
    render "$ROOT/man/$page" >"$TMP/page"
    expect_match "$page: cites the distribution calculus" "$(cat "$TMP/page")" \
        "R\. Di Cosmo, S\. Pelagatti, Z\. Li, A Calculus for Parallel Computations over Multidimensional Dense Arrays, 2004"
done
# what a user needs from the papers, in the manual's own words
render "$ROOT/man/polyapm-transforms.7" >"$TMP/page"
expect_match "polyapm-transforms(7): the fusion rules' errata" "$(cat "$TMP/page")" "Errata\. .*it is k mod 2"
expect_match "polyapm-transforms(7): repeat's definition" "$(cat "$TMP/page")" \
    "repeat\(e,o\) k b = if k = 0 then b else repeat\(e,o\) \(k div 2\) \(if k mod 2 = 0 then e b else o b\)"
render "$ROOT/man/polyapm.1" >"$TMP/page"
expect_match "polyapm(1): the cost model's c_it" "$(cat "$TMP/page")" \
    "c_it = normsent × \(words sent\) \+ mstartup_s × \(messages sent\)"
expect_match "polyapm(1): the thesis's calibrated profile" "$(cat "$TMP/page")" \
    "normsent 1\.2046961, normrcvd 3\.3831080.*barrier_slope 298\.8954664"
expect_match "polyapm(1): the calibration procedure" "$(cat "$TMP/page")" \
    "over X ≥ 60 with the 10 worst-fitting points dropped"

# ---- README cites the papers -----------------------------------------------------------------
readme=$(tr -s ' \n' ' ' <"$ROOT/README.md")
expect_match "README: a Sources section" "$readme" "## Sources"
for who in "N\. Ellmenreich, \*PolyAPM" "S\. Gorlatch, C\. Wedler, C\. Lengauer" \
           "S\. J\. Deitz, D\. Callahan" "R\. Di Cosmo, S\. Pelagatti, Z\. Li"; do
    expect_match "README cites ${who//\\/}" "$readme" "$who"
done
finish
