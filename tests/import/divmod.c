/* divmod.c — C's truncating / and % on negative operands (and negative divisors), int arrays,
 * casts of ints to double, ?: (import_exact.sh). */
#include "dump.h"
#define N 12

static void init_array(int n, int m, int A[N][N], double X[N])
{
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            A[i][j] = (i - 2 * j) / 3 + (j - i) % 4 - (i * 7 - 40) / -3 + (5 - j) % -2;
    for (i = 0; i < n; i++)
        X[i] = (double)((i - m) / 2) / 3 + (i % 3 == 0 ? 0.5 : -(double)i);
}

static void print_array(int n, int B[N][N], double X[N])
{
    int i, j;
    DUMP_BEGIN("B");
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) DUMP_VALUE(B[i][j]);
    DUMP_END("B");
    DUMP_BEGIN("X");
    for (i = 0; i < n; i++) DUMP_VALUE(X[i]);
    DUMP_END("X");
}

static void kernel_divmod(int n, int m, int A[N][N], double X[N], int B[N][N])
{
    int i, j;
#pragma scop
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            B[i][j] = (A[i][j] - m) / 4 - (A[i][j] * 3) % 5 + (i > j ? A[j][i] : -A[i][j]) / -2;
            X[i] = X[i] + (double)(B[i][j] % 7) / 8 + (X[i] < 0 ? 1.0 : -0.25) * (j - m) + (-i - 3) / 2;
        }
#pragma endscop
}

int main(void)
{
    int n = N, m = 5;
    static int A[N][N], B[N][N];
    static double X[N];
    init_array(n, m, A, X);
    kernel_divmod(n, m, A, X, B);
    print_array(n, B, X);
    return 0;
}
