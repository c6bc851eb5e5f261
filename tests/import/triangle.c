/* triangle.c — init code of PolyBench's kinds: triangular loops, a diagonal (L[i][i]), a guard,
 * a local scalar, a scalar set through a pointer, a temporary accumulated from 0 (sum) and
 * copied back, and a kernel with -=, /=, *= on a triangle (import_exact.sh). */
#include "dump.h"
#define N 9

static void init_array(int n, double *alpha, double L[N][N], double b[N])
{
    int i, j, r, s, t;
    double fn = (double)n;
    double T[N][N];
    *alpha = 1.5;
    for (i = 0; i < n; i++) {
        for (j = 0; j <= i; j++)
            L[i][j] = (double)(i + n - j + 1) * 2 / n;
        for (j = i + 1; j < n; j++)
            L[i][j] = -1;
        L[i][i] = 1;
        b[i] = i / fn;
        if (i % 3 == 1)
            b[i] = -b[i] - 0.5;
    }
    for (r = 0; r < n; r++)
        for (s = 0; s < n; s++)
            T[r][s] = 0;
    for (t = 0; t < n; t++)
        for (r = 0; r < n; r++)
            for (s = 0; s < n; s++)
                T[r][s] += L[r][t] * L[s][t];
    for (r = 0; r < n; r++)
        for (s = 0; s < n; s++)
            L[r][s] = T[r][s] / n;
}

static void print_array(int n, double x[N])
{
    int i;
    DUMP_BEGIN("x");
    for (i = 0; i < n; i++) DUMP_VALUE(x[i]);
    DUMP_END("x");
}

static void kernel_triangle(int n, double alpha, double L[N][N], double x[N], double b[N])
{
    int i, j;
#pragma scop
    for (i = 0; i < n; i++) {
        x[i] = b[i];
        for (j = 0; j < i; j++)
            x[i] -= L[i][j] * x[j];
        x[i] /= L[i][i];
        x[i] *= alpha;
    }
#pragma endscop
}

int main(void)
{
    int n = N;
    double alpha;
    static double L[N][N], x[N], b[N];
    init_array(n, &alpha, L, b);
    kernel_triangle(n, alpha, L, x, b);
    print_array(n, x);
    return 0;
}
