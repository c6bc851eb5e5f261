/* scalars.c — global scalars main sets before calling a kernel without arguments (alpha, beta
 * assigned, not initialised), and a scalar result the region computes (import_styles.sh). */
#include "dump.h"
// style: global scalars set by main
#ifndef N
#define N 25
#endif
// size2: N=4

double alpha, beta, norm;
double x[N], y[N];

void axpby(void)
{
#pragma scop
    norm = 0;
    for (int i = 0; i < N; i++) {
        y[i] = alpha * x[i] + beta * y[i];
        norm = norm + y[i] * y[i];
    }
#pragma endscop
}

int main(void)
{
    alpha = 2.5;
    beta = -0.75;
    for (int i = 0; i < N; i++) {
        x[i] = i / 4.0;
        y[i] = (N - i) / 8.0;
    }
    axpby();
    DUMP_BEGIN("y");
    for (int i = 0; i < N; i++) DUMP_VALUE(y[i]);
    DUMP_END("y");
    DUMP_BEGIN("norm");
    DUMP_VALUE(norm);
    DUMP_END("norm");
    return 0;
}
