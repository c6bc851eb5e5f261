/* regions.c — two #pragma scop regions in two functions: the import takes the one chosen
 * (--region 2: the second of the file) (import_styles.sh). */
#include "dump.h"
// style: several regions
// import: --region 2
#define N 15

static double a[N], b[N];

static void first(void)
{
#pragma scop
    for (int i = 0; i < N; i++)
        a[i] = i * 2.0;
#pragma endscop
}

static void second(void)
{
#pragma scop
    for (int i = 1; i < N; i++)
        b[i] = b[i - 1] + a[i] / 3;
#pragma endscop
}

int main(void)
{
    first();
    second();
    DUMP_BEGIN("b");
    for (int i = 0; i < N; i++) DUMP_VALUE(b[i]);
    DUMP_END("b");
    return 0;
}
