/*
 * lu_native.c — the benchmark's baseline: examples/lu.apm written straightforwardly in C
 * (same initial matrix, same operation order), so that `make bench` can report the simulator's
 * time as a multiple of native execution.  Usage: lu_native N; prints a checksum of l and u.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 512;
    if (n < 1) return 2;
    double *a = malloc(sizeof(double) * (size_t)(n + 1) * (size_t)(n + 1));
    double *l = calloc((size_t)(n + 1) * (size_t)(n + 1), sizeof(double));
    double *u = calloc((size_t)(n + 1) * (size_t)(n + 1), sizeof(double));
    if (!a || !l || !u) return 1;
#define A(i, j) a[(size_t)(i) * (size_t)(n + 1) + (size_t)(j)]
#define L(i, j) l[(size_t)(i) * (size_t)(n + 1) + (size_t)(j)]
#define U(i, j) u[(size_t)(i) * (size_t)(n + 1) + (size_t)(j)]
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++)
            A(i, j) = (double)((i * 7 + j * 13) % 17 + (i == j) * 4 * n);
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++) {
            if (j <= i) {
                double s = 0;
                for (int k = 1; k <= j - 1; k++) s += L(i, k) * U(k, j);
                L(i, j) = A(i, j) - s;
            } else {
                double s = 0;
                for (int k = 1; k <= i - 1; k++) s += L(i, k) * U(k, j);
                U(i, j) = (A(i, j) - s) / L(i, i);
            }
        }
    double sum = 0;
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++) sum += L(i, j) + U(i, j);
    printf("%.17g\n", sum);
    free(a); free(l); free(u);
    return 0;
}
