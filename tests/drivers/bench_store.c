/*
 * bench_store.c — the workspace benchmark's builder: creates a workspace of N nodes through the
 * store API in one process, shaped `deep` (a chain) or `wide` (the root with N-1 children) or
 * `bushy` (each node a child of a random earlier one), and prints the creation rate and the time
 * of an in-process graph load and prefix lookup.  Run by tests/bench/bench_store.sh, which also
 * times the command line on the result.
 *
 *   bench_store DIR.pdg deep|wide|bushy N
 * prints:  created N nodes in S s (R nodes/s)
 *          graph load of N nodes: X ms
 *          prefix lookup: Y ms (mean of K)
 *          prefix PFX          (a unique prefix of a node near the end, for the script)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *program(long i)
{
    char *t = NULL;
    if (asprintf(&t, "program bench\nlevel source\nparam n = 8, v = %ld\narray a[0 .. n - 1] double\n"
                     "init a[x] = x\noutput a\n", i) < 0)
        abort();
    return t;
}

int main(int argc, char **argv)
{
    if (argc != 4) { fprintf(stderr, "usage: bench_store DIR.pdg deep|wide|bushy N\n"); return 2; }
    const char *shape = argv[2];
    long n = strtol(argv[3], NULL, 10);
    diag_list d;
    diag_list_init(&d);
    store *s;
    if (store_create(argv[1], &s, &d) != 0) { diag_print(&d, stderr); return 1; }
    int64_t *ids = malloc((size_t)n * sizeof *ids);
    srand(42);
    double t0 = now();
    for (long i = 0; i < n; i++) {
        char *text = program(i);
        int64_t parent = i == 0 ? 0
                       : strcmp(shape, "deep") == 0 ? ids[i - 1]
                       : strcmp(shape, "wide") == 0 ? ids[0]
                                                    : ids[rand() % i];
        store_add_req r = {.text = text, .len = strlen(text), .level = "source", .parents = &parent,
                           .nparents = i ? 1 : 0, .transform = i ? "bench" : "init", .label_hint = "n"};
        if (store_node_add(s, &r, &ids[i], NULL, &d) != 0) { diag_print(&d, stderr); return 1; }
        free(text);
    }
    double t1 = now();
    printf("created %ld nodes (%s) in %.2f s (%.0f nodes/s; target >= 500)\n", n, shape, t1 - t0,
           (double)n / (t1 - t0));
    store_graph g;
    double t2 = now();
    if (store_graph_load(s, &g, &d) != 0) { diag_print(&d, stderr); return 1; }
    double t3 = now();
    printf("graph load of %d nodes: %.1f ms\n", g.n, (t3 - t2) * 1e3);
    /* Lookups of unique 8-digit prefixes of nodes spread over the graph. */
    enum { K = 200 };
    char prefixes[K][9];
    for (int k = 0; k < K; k++) snprintf(prefixes[k], 9, "%.8s", g.nodes[(long)k * g.n / K].hash);
    int64_t id;
    double t4 = now();
    for (int k = 0; k < K; k++)
        if (store_resolve(s, prefixes[k], &id, &d) != 0) { diag_print(&d, stderr); return 1; }
    double t5 = now();
    printf("prefix lookup: %.3f ms (mean of %d)\n", (t5 - t4) * 1e3 / K, K);
    printf("prefix %.8s\n", g.nodes[g.n - 2].hash);
    store_graph_free(&g);
    free(ids);
    store_close(s);
    diag_list_free(&d);
    return 0;
}
