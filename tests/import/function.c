/* function.c — no #pragma scop: `import --function smooth --output v` takes the function's body;
 * main gives the values itself, no print_array (import_exact.sh). */
#include "dump.h"
#define N 20
#define STEPS 4

static void smooth(int steps, int n, double u[N], double v[N])
{
    for (int t = 0; t < steps; t++) {
        for (int i = 1; i < n - 1; i++)
            v[i] = (u[i - 1] + 2 * u[i] + u[i + 1]) / 4;
        for (int i = 1; i < n - 1; i++)
            u[i] = v[i];
    }
}

int main(void)
{
    static double u[N], v[N];
    for (int i = 0; i < N; i++) {
        u[i] = (i * 13 % 11) / 10.0;
        v[i] = 0;
    }
    smooth(STEPS, N, u, v);
    DUMP_BEGIN("v");
    for (int i = 0; i < N; i++) DUMP_VALUE(v[i]);
    DUMP_END("v");
    return 0;
}
