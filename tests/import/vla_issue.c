/* vla_issue.c — issue 29's file: a kernel with a variable-length array parameter called from
 * main (it crashed the importer); its own result is dumped after the call (import_styles.sh). */
#include "dump.h"
// style: vla_issue
void step(int n, int tmax, double u[2][n]) {
#pragma scop
  for (int t = 0; t < tmax; t++)
    for (int i = 1; i < n - 1; i++)
      u[1][i] = 0.25 * u[0][i - 1] + 0.5 * u[0][i] + 0.25 * u[0][i + 1];
#pragma endscop
}
int main(void) { static double v[2][100]; step(100, 10, v);
  DUMP_BEGIN("u"); for (int k = 0; k < 2; k++) for (int i = 0; i < 100; i++) DUMP_VALUE(v[k][i]); DUMP_END("u");
  return 0; }
