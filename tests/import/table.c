/* table.c — initial values read from constant tables: a global coefficient table and a local
 * 2-D table of the kernel's function, partly written (the rest is 0, as in C) (import_styles.sh). */
#include "dump.h"
// style: constant tables
#define N 12

static const double coef[5] = {0.5, -1.25, 2, 0.125, 3.5};
double out[N];

static void apply(void)
{
    double w[2][3] = {{1, 2, 3}, {4.5}};
#pragma scop
    for (int i = 0; i < N; i++)
        out[i] = coef[i % 5] * w[i % 2][i % 3] + coef[(i + 1) % 5];
#pragma endscop
}

int main(void)
{
    apply();
    DUMP_BEGIN("out");
    for (int i = 0; i < N; i++) DUMP_VALUE(out[i]);
    DUMP_END("out");
    return 0;
}
