/* staticlocal.c — the kernel function's own static arrays (zero at start, as C's statics are)
 * with the region reading one it never initialises (import_styles.sh). */
#include "dump.h"
// style: static locals
#define N 12

static double result[N];

static void accumulate(double in[N])
{
    static double acc[N];
#pragma scop
    for (int r = 0; r < 3; r++)
        for (int i = 0; i < N; i++)
            acc[i] = acc[i] + in[i] * (r + 1);
    for (int i = 0; i < N; i++)
        result[i] = acc[i];
#pragma endscop
}

int main(void)
{
    static double in[N];
    for (int i = 0; i < N; i++) in[i] = 1.0 / (i + 1);
    accumulate(in);
    DUMP_BEGIN("result");
    for (int i = 0; i < N; i++) DUMP_VALUE(result[i]);
    DUMP_END("result");
    return 0;
}
