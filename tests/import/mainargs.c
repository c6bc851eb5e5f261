/* mainargs.c — the region in main(int argc, char **argv), its arrays main's locals; argc and
 * argv, which the region never reads, are not parameters (import_styles.sh). */
#include <stdio.h>
#include "dump.h"
// style: mainargs
#ifndef N
#define N 16
#endif
// size2: N=7

int main(int argc, char **argv)
{
    double a[N], b[N];
    double s = 0;
    if (argc > 1) printf("%s\n", argv[1]);
    for (int i = 0; i < N; i++) {
        a[i] = i * 0.5;
        b[i] = (N - i) * 0.25;
    }
#pragma scop
    for (int i = 0; i < N; i++)
        s = s + a[i] * b[i];
    for (int i = 0; i < N; i++)
        a[i] = a[i] / (s + 1);
#pragma endscop
    DUMP_BEGIN("a");
    for (int i = 0; i < N; i++) DUMP_VALUE(a[i]);
    DUMP_END("a");
    DUMP_BEGIN("s");
    DUMP_VALUE(s);
    DUMP_END("s");
    return 0;
}
