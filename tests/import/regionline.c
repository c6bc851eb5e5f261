/* regionline.c — two regions in main, one after the other: --region line:L takes the one holding
 * line L (the second: what the first computed is its initial value) (import_styles.sh). */
#include "dump.h"
// style: a region chosen by its line
// import: --region line:22
#ifndef N
#define N 12
#endif
// size2: N=5

int main(void)
{
    static double x[N], y[N];
#pragma scop
    for (int i = 0; i < N; i++)
        x[i] = i % 3;
#pragma endscop
    for (int i = 0; i < N; i++)
        y[i] = x[i] + 1;
#pragma scop
    for (int i = 0; i < N; i++)
        for (int j = 0; j < i; j++)
            y[i] = y[i] + y[j] / N;
#pragma endscop
    DUMP_BEGIN("y");
    for (int i = 0; i < N; i++) DUMP_VALUE(y[i]);
    DUMP_END("y");
    return 0;
}
