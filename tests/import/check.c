/* check.c — the outputs learned from what the code after the region reads: it writes two
 * arrays but checks only r (import_styles.sh; the dump reads r only). */
#include <math.h>
#include <stdio.h>
#include "dump.h"
// style: outputs from a check after the region
#define N 20

int main(void)
{
    static double p[N], r[N];
    for (int i = 0; i < N; i++) p[i] = i * 0.125;
#pragma scop
    for (int i = 0; i < N; i++) {
        p[i] = p[i] * p[i];
        r[i] = p[i] + 1;
    }
#pragma endscop
    int bad = 0;
    for (int i = 0; i < N; i++)
        if (fabs(r[i] - 1) > 100) bad++;
    if (bad) printf("check failed\n");
    DUMP_BEGIN("r");
    for (int i = 0; i < N; i++) DUMP_VALUE(r[i]);
    DUMP_END("r");
    return 0;
}
