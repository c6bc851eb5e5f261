/* vla_function.c — issue 29's kernel without its pragma, taken with --function step: its body
 * (a VLA parameter; main initialises the data first) (import_styles.sh). */
#include "dump.h"
// style: --function with no pragma, VLA parameter
// import: --function step
void step(int n, int tmax, double u[2][n]) {
  for (int t = 0; t < tmax; t++)
    for (int i = 1; i < n - 1; i++)
      u[1][i] = 0.25 * u[0][i - 1] + 0.5 * u[0][i] + 0.25 * u[0][i + 1];
}
int main(void) { static double v[2][100];
  for (int i = 0; i < 100; i++) v[0][i] = (i % 9) * 0.125;
  step(100, 10, v);
  DUMP_BEGIN("u"); for (int k = 0; k < 2; k++) for (int i = 0; i < 100; i++) DUMP_VALUE(v[k][i]); DUMP_END("u");
  return 0; }
