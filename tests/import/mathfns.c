/* mathfns.c — math.h in the initial values and in the kernel: sin, cos, tan, exp, log and pow of
 * the indices and of the data, as test drivers and textbooks write them (import_styles.sh); the
 * simulator and the C program call the same math.h functions, so every value is the same. */
#include <math.h>
#include "dump.h"
// style: math.h functions
#ifndef N
#define N 30
#endif
// size2: N=11

double u[N], w[N][N], r[N];

static void kernel(void)
{
#pragma scop
    for (int i = 0; i < N; i++) {
        r[i] = 0.0;
        for (int j = 0; j < N; j++)
            r[i] = r[i] + w[i][j] * exp(-u[j] * u[j]) + pow(fabs(u[j]), 1.5) / (1.0 + log(1.0 + j));
        r[i] = tan(r[i] / (4.0 * N)) + sin(r[i]) * cos(u[i]);
    }
#pragma endscop
}

int main(void)
{
    for (int i = 0; i < N; i++) {
        u[i] = sin(0.3 * i) + cos(i + 0.5);
        for (int j = 0; j < N; j++)
            w[i][j] = exp(-(double)(i - j) * (i - j) / N) * pow(0.9, i + j);
    }
    kernel();
    DUMP_BEGIN("r");
    for (int i = 0; i < N; i++) DUMP_VALUE(r[i]);
    DUMP_END("r");
    return 0;
}
