/* rand_helpers.c — random numbers drawn in the file's init functions and in loops of every form:
 * a row function called per row (its parameter stands for the caller's loop variable), rand()
 * and drand48() without a seed (glibc's: seed 1 and its initial state), a loop counting down by 2,
 * one from 1 by 3, an accumulation of draws, a chained assignment, an if whose branches draw once
 * each on a condition of drawn data, a variable declared in a loop holding a draw
 * (import_styles.sh). */
#include <stdlib.h>
#include "dump.h"
// style: rand() in init functions, unseeded, loops of every form
#ifndef N
#define N 12
#endif
// size2: N=7

static void init_row(int n, double A[N][N], int row)
{
    for (int j = 0; j < n; j++)
        A[row][j] = rand() % 17 + 0.5 * row;
}

static void init_all(int n, double B[N][N])
{
    for (int i = 0; i < n; i++)
        for (int j = n - 1; j >= 0; j -= 2)
            B[i][j] = drand48();
}

int main(void)
{
    static double A[N][N], B[N][N], C[N][N], D[N][N], x[N], y[N], s[N], z[N];
    for (int i = 0; i < N; i++)
        init_row(N, A, i);
    init_all(N, B);
    for (int i = 1; i < N - 1; i += 3)
        x[i] = rand() % 5;
    for (int i = 0; i < N; i++) {
        y[i] = lrand48() % 9;
        s[i] = 0;
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < 4; j++)
            s[i] += rand() % 3;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            C[i][j] = D[i][j] = rand() % 11;
    for (int i = 0; i < N; i++) {
        if (y[i] > 4)
            z[i] = rand() % 7;
        else
            z[i] = -(rand() % 5);
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double r = rand() / (double)RAND_MAX;
            D[i][j] += r;
        }
#pragma scop
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            A[i][j] = A[i][j] + B[i][j] * x[j] + C[i][j] - D[i][j] + s[i] * z[j] + y[j];
#pragma endscop
    DUMP_BEGIN("A");
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) DUMP_VALUE(A[i][j]);
    DUMP_END("A");
    return 0;
}
