/*
 * ops_driver.c — test driver of tests/tui/ops.sh: the workspace operations the TUI and the
 * command line share (tui/app/ops.h) called from C: open-or-create a workspace from FILE.apm,
 * apply stm to the root twice (the second links the existing node), a bad parameter, simulate
 * the child and again (from the store).  Built by the Makefile with the binary's flags.
 *   ops_driver FILE.apm
 */
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
