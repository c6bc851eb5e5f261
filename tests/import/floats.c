/* floats.c — float data: the importer refuses it (the language has no single precision); with
 * -D float=double it is imported as the C program built with -Dfloat=double computes it; the C
 * reference is this file built with -Dfloat=double (import_exact.sh). */
#include "dump.h"
#define N 11

static void init_array(int n, float A[N])
{
    for (int i = 0; i < n; i++)
        A[i] = (float)(i * 3 % 7) / 7.0f;
}

static void print_array(int n, float A[N])
{
    DUMP_BEGIN("A");
    for (int i = 0; i < n; i++) DUMP_VALUE(A[i]);
    DUMP_END("A");
}

static void kernel_floats(int n, float A[N])
{
#pragma scop
    for (int i = 1; i < n; i++)
        A[i] = A[i - 1] * 0.1f + A[i] / 3.0f;
#pragma endscop
}

int main(void)
{
    static float A[N];
    init_array(N, A);
    kernel_floats(N, A);
    print_array(N, A);
    return 0;
}
