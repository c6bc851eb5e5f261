/* macros.c — a region in main, its sizes macros: N and M become parameters (the literals they
 * expand to are recognised where libclang's preprocessing record saw them), a number written as
 * such stays a number (import_exact.sh). */
#include "dump.h"
#define N 10
#define M 7

int main(void)
{
    static double A[N][M], s[N];
    int i, j;
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            A[i][j] = (double)(i * M + j) / N;
#pragma scop
    for (i = 0; i < N; i++) {
        s[i] = 10;
        for (j = 1; j < M; j++)
            s[i] = s[i] + A[i][j] * A[i][j - 1];
    }
#pragma endscop
    DUMP_BEGIN("s");
    for (i = 0; i < N; i++) DUMP_VALUE(s[i]);
    DUMP_END("s");
    return 0;
}
