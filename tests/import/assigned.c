/* assigned.c — sizes the program assigns once before the region (a global int n; set in main,
 * a local int m; likewise), the arrays variable-length arrays of main (import_styles.sh). */
#include "dump.h"
// style: sizes assigned before the region

int n;

int main(void)
{
    int m;
    n = 9;
    m = 6;
    double A[n][m], r[m];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            A[i][j] = (i * m + j) % 5 * 0.75;
#pragma scop
    for (int j = 0; j < m; j++) {
        r[j] = 0;
        for (int i = 0; i < n; i++)
            r[j] = r[j] + A[i][j] * A[i][j];
    }
#pragma endscop
    DUMP_BEGIN("r");
    for (int j = 0; j < m; j++) DUMP_VALUE(r[j]);
    DUMP_END("r");
    return 0;
}
