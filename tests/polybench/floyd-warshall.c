/* floyd-warshall.c — C reference for examples/polybench/floyd-warshall.apm (PolyBench/C 4.2.1
 * floyd-warshall, int). */
#include "pb.h"
#ifndef N
#define N 60
#endif

int main(void)
{
    int (*path)[N] = pb_alloc(sizeof(int[N][N]));
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            path[i][j] = i * j % 7 + 1;
            if ((i + j) % 13 == 0 || (i + j) % 7 == 0 || (i + j) % 11 == 0)
                path[i][j] = 999;
        }
    for (int k = 0; k < N; k++)
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                path[i][j] = path[i][j] < path[i][k] + path[k][j] ? path[i][j] : path[i][k] + path[k][j];
    pb_hash_ints(&path[0][0], (size_t)N * N);
    pb_print_checksum();
    return 0;
}
