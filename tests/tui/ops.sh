#!/usr/bin/env bash
# tests/tui/ops.sh — the workspace operations the TUI and the command line share (tui/app/ops.h),
# called from a small C program built here against $BUILD's libraries: open-or-create a
# workspace from FILE.apm, apply stm to the root (the child is stored; the same text again links
# the existing node), a bad parameter writes nothing, simulate the child and store the result;
# `polyapm sim NODE` then answers from the store (same key), and fsck is clean.
. "$(dirname "$0")/../lib.sh"
B=$T_BUILD_DIR
SAN=
nm "$B/libengine.a" 2>/dev/null | grep -q __asan_init && SAN="-fsanitize=address,undefined"
cat >"$TMP/opstest.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ops.h"
#include "xf.h"
void cli_json_string(FILE *out, const char *s);
void cli_json_string(FILE *out, const char *s) { fprintf(out, "\"%s\"", s); }
int main(int argc, char **argv)
{
    (void)argc;
    diag_list d;
    diag_list_init(&d);
    store *s;
    int created, c2, st;
    char *ws = ops_workspace_for(argv[1]);
    if (ops_open_or_init(ws, argv[1], &s, &created, &d)) { diag_print(&d, stderr); return 1; }
    printf("workspace %s created %d\n", ws, created);
    int64_t root, child, again, x;
    store_root(s, &root, &d);
    char *args[] = {"theta=t", "sigma=x", "inner=seq"};
    if (ops_apply(s, root, "stm", 3, args, NULL, 0, NULL, &child, &c2, &st, &d)) { diag_print(&d, stderr); return 1; }
    printf("child %lld new %d\n", (long long)child, c2);
    if (ops_apply(s, root, "stm", 3, args, NULL, 0, NULL, &again, &c2, &st, &d)) { diag_print(&d, stderr); return 1; }
    printf("again %lld new %d\n", (long long)again, c2);
    char *bad[] = {"inner=bogus"};
    int rc = ops_apply(s, root, "stm", 1, bad, NULL, 0, NULL, &x, &c2, &st, &d);
    printf("bad rc %d status %d\n", rc, st);
    diag_list_free(&d);
    diag_list_init(&d);
    ops_sim j;
    memset(&j, 0, sizeof j);
    j.node = child;
    j.profile = *cost_profile_builtin("scali2004");
    rc = ops_sim_node(s, &j, &d);
    printf("sim rc %d total %.1f verified %d hit %d\n", rc, j.total, j.verified, j.hit);
    ops_sim_free(&j);
    memset(&j, 0, sizeof j);
    j.node = child;
    j.profile = *cost_profile_builtin("scali2004");
    rc = ops_sim_node(s, &j, &d);
    printf("resim rc %d hit %d\n", rc, j.hit);
    ops_sim_free(&j);
    store_close(s);
    free(ws);
    diag_list_free(&d);
    return 0;
}
C
if ! ${CC:-cc} -std=c11 -g -D_GNU_SOURCE $SAN -I"$ROOT/engine" -I"$ROOT/store" -I"$ROOT/transforms" -I"$ROOT/tui/app" \
      "$TMP/opstest.c" "$B/libapp.a" "$B/libstore.a" "$B/libxf.a" "$B/libengine.a" -lgit2 -lsqlite3 -lisl -lgmp -lpthread -lm \
      -o "$TMP/opstest" 2>"$TMP/cc.err"; then
    fail ops-build "$(head -5 "$TMP/cc.err")"; finish
fi
sed 's/^param n = 256/param n = 32/' "$ROOT/examples/findiff.apm" >"$TMP/fd.apm"
out=$("$TMP/opstest" "$TMP/fd.apm" 2>&1)
expect_match ops-create "$out" "workspace $TMP/fd.pdg created 1"
expect_match ops-apply "$out" 'child 2 new 1'
expect_match ops-dedup "$out" 'again 2 new 0'
expect_match ops-bad-param "$out" 'bad rc -1 status 2'
expect_match ops-sim "$out" 'sim rc 0 total 203064\.9 verified 1 hit 0'
expect_match ops-sim-stored "$out" 'resim rc 0 hit 1'
expect_eq ops-nodes "$("$POLYAPM" tree -w "$TMP/fd.pdg" | grep -c .)" 2
expect_match ops-cli-store-hit "$("$POLYAPM" sim 2 -w "$TMP/fd.pdg" 2>&1)" 'from the store'
# reopening does not create
out=$("$TMP/opstest" "$TMP/fd.apm" 2>&1)
expect_match ops-reopen "$out" 'created 0'
"$POLYAPM" fsck -w "$TMP/fd.pdg" >/dev/null 2>&1
expect_eq ops-fsck "$?" 0
finish
