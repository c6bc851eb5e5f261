/* locals.c — a kernel function with a local temporary array and a local scalar of its own,
 * called from main with global data (import_styles.sh). */
#include "dump.h"
// style: locals of the enclosing function
#ifndef N
#define N 16
#endif
// size2: -DN=8 -- -D n=8

double in[N], out[N];

static void smooth(int n)
{
    double tmp[N];
    double w = 0.5;
#pragma scop
    for (int i = 1; i < n - 1; i++)
        tmp[i] = w * in[i] + 0.25 * (in[i - 1] + in[i + 1]);
    for (int i = 1; i < n - 1; i++)
        out[i] = tmp[i] - in[i];
#pragma endscop
}

int main(void)
{
    for (int i = 0; i < N; i++) in[i] = (i * 5 % 7) / 2.0;
    smooth(N);
    DUMP_BEGIN("out");
    for (int i = 0; i < N; i++) DUMP_VALUE(out[i]);
    DUMP_END("out");
    return 0;
}
