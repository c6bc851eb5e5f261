/* sizevar.c — sizes the program sets as variables before the region (int n = 30, steps = 4),
 * arrays of main that are variable-length arrays of them (import_styles.sh). */
#include "dump.h"
// style: sizes from variables set to constants
// run:

int main(void)
{
    int n = 30, steps = 4;
    double a[n], b[n];
    for (int i = 0; i < n; i++) {
        a[i] = (i % 4) * 0.5;
        b[i] = 0;
    }
#pragma scop
    for (int t = 0; t < steps; t++) {
        for (int i = 1; i < n - 1; i++)
            b[i] = (a[i - 1] + a[i + 1]) / 2;
        for (int i = 1; i < n - 1; i++)
            a[i] = b[i];
    }
#pragma endscop
    DUMP_BEGIN("a");
    for (int i = 0; i < n; i++) DUMP_VALUE(a[i]);
    DUMP_END("a");
    DUMP_BEGIN("b");
    for (int i = 0; i < n; i++) DUMP_VALUE(b[i]);
    DUMP_END("b");
    return 0;
}
