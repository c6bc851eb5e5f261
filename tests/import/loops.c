/* loops.c — loop forms (< <= > >=, ++ -- prefix and postfix, += c, -= c, a declared variable,
 * loops counting down), compound assignments, ++ and -- statements on ints, a scalar declared
 * before the region with a value and one inside it, an int declared without a value and assigned
 * in the region, a chained assignment (import_exact.sh). */
#include "dump.h"
#define N 17

static void init_array(int n, double A[N], double B[N], int C[N])
{
    for (int i = 0; i < n; i++) {
        A[i] = 1.0 / (i + 1);
        B[i] = i % 5 - 2;
        C[i] = 3 - i;
    }
}

static void print_array(int n, double A[N], double B[N], int C[N])
{
    DUMP_BEGIN("A");
    for (int i = 0; i < n; i++) DUMP_VALUE(A[i]);
    DUMP_END("A");
    DUMP_BEGIN("B");
    for (int i = 0; i < n; i++) DUMP_VALUE(B[i]);
    DUMP_END("B");
    DUMP_BEGIN("C");
    for (int i = 0; i < n; i++) DUMP_VALUE(C[i]);
    DUMP_END("C");
}

static void kernel_loops(int n, double A[N], double B[N], int C[N])
{
    int i, cnt;
    double acc = 0.25;
#pragma scop
    for (i = n - 1; i >= 0; i--)
        A[i] = A[i] * 0.5 + i;
    for (i = 0; i <= n - 1; i += 2)
        B[i] += A[i];
    for (i = n - 1; i > 0; i -= 3)
        B[i] -= A[i - 1];
    for (i = 1; i < n; ++i) {
        C[i] = C[i - 1] + i;
        C[i]++;
    }
    for (int k = n - 2; k >= 1; --k) {
        double t = A[k + 1] - A[k - 1];
        A[k] = t * 0.5;
    }
    for (i = 0; i < n; i++) {
        B[i] *= 2;
        B[i] /= 3;
        C[i]--;
        acc += B[i];
    }
    for (i = 0; i < n; i++)
        A[i] = B[i] = acc - i;
    cnt = 0;
    for (i = 0; i < n; i++) {
        cnt += i % 3;
        C[i] += cnt;
    }
#pragma endscop
}

int main(void)
{
    int n = N;
    static double A[N], B[N];
    static int C[N];
    init_array(n, A, B, C);
    kernel_loops(n, A, B, C);
    print_array(n, A, B, C);
    return 0;
}
