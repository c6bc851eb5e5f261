/* float.c — float data, taken as double with -D float=double (plain, the import refuses it:
 * the language has no single precision); the reference is the C built with -Dfloat=double
 * (import_styles.sh). */
#include "dump.h"
// style: float data as double
// import: -D float=double
// cc: -Dfloat=double
#define N 17

float a[N], b[N];

int main(void)
{
    for (int i = 0; i < N; i++) a[i] = i / 3.0;
#pragma scop
    for (int i = 1; i < N; i++)
        b[i] = a[i] * a[i - 1] - 0.5f;
#pragma endscop
    DUMP_BEGIN("b");
    for (int i = 0; i < N; i++) DUMP_VALUE(b[i]);
    DUMP_END("b");
    return 0;
}
