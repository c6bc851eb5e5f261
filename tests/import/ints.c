/* ints.c — integer data: a histogram-like kernel on int arrays with C's / and % of values that
 * may be negative (import_styles.sh). */
#include "dump.h"
// style: int data
#ifndef N
#define N 30
#endif
// size2: N=11

int v[N], h[5];

int main(void)
{
    for (int i = 0; i < N; i++) v[i] = (i * 37 % 23) - 11;
    for (int k = 0; k < 5; k++) h[k] = 0;
#pragma scop
    for (int i = 0; i < N; i++) {
        v[i] = v[i] / 3 + v[i] % 4;
        h[0] = h[0] + v[i] % 5;
    }
    for (int k = 1; k < 5; k++)
        h[k] = h[k - 1] * 2 - k;
#pragma endscop
    DUMP_BEGIN("v");
    for (int i = 0; i < N; i++) DUMP_VALUE(v[i]);
    DUMP_END("v");
    DUMP_BEGIN("h");
    for (int k = 0; k < 5; k++) DUMP_VALUE(h[k]);
    DUMP_END("h");
    return 0;
}
