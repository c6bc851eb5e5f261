/* random.c — random() and rand() share one sequence (srandom seeds both): integer data from
 * random() % 7 and rand() % 10 in one loop body (two calls an iteration), a warm-up that
 * discards values, a helper returning (double)rand() / RAND_MAX stored through a local declared
 * in the loop, a loop counting down (import_styles.sh). */
#include <stdlib.h>
#include "dump.h"
// style: random() and rand() % k, helpers and warm-up calls
#ifndef N
#define N 30
#endif
// size2: N=11

static double unit(void) { return (double)rand() / RAND_MAX; }

int main(void)
{
    static int a[N], b[N];
    static double w[N][N], s[N];
    srandom(2024);
    for (int k = 0; k < 5; k++)
        rand();   /* warm-up: five values discarded */
    for (int i = 0; i < N; i++) {
        a[i] = random() % 7;
        b[i] = rand() % 10;
    }
    for (int i = N - 1; i >= 0; i--)
        for (int j = 0; j < N; j++) {
            double r = unit();
            w[i][j] = 2 * r - 1;
        }
#pragma scop
    for (int i = 0; i < N; i++) {
        s[i] = a[i] - b[i];
        for (int j = 0; j < N; j++)
            s[i] = s[i] + w[i][j] * b[j];
    }
#pragma endscop
    DUMP_BEGIN("s");
    for (int i = 0; i < N; i++) DUMP_VALUE(s[i]);
    DUMP_END("s");
    return 0;
}
