/* rand.c — a benchmark driver's initial values from the C library's random numbers: srand(42),
 * then nested loops of rand() / (double)RAND_MAX and a second nest whose values continue the
 * sequence ((double)(rand() % 100) / 10.0), sizes as macros (import_styles.sh). */
#include <stdlib.h>
#include "dump.h"
// style: rand() initial values after srand
#ifndef N
#define N 24
#endif
#ifndef M
#define M 17
#endif
// size2: -DN=9 -DM=30 -- -D N=9 -D M=30

double A[N][M], x[M], y[N];

static void kernel(void)
{
#pragma scop
    for (int i = 0; i < N; i++) {
        y[i] = 0;
        for (int j = 0; j < M; j++)
            y[i] = y[i] + A[i][j] * x[j];
    }
#pragma endscop
}

int main(void)
{
    srand(42);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            A[i][j] = rand() / (double)RAND_MAX;
    for (int j = 0; j < M; j++)
        x[j] = (double)(rand() % 100) / 10.0;
    kernel();
    DUMP_BEGIN("y");
    for (int i = 0; i < N; i++) DUMP_VALUE(y[i]);
    DUMP_END("y");
    return 0;
}
