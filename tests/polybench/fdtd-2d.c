/* fdtd-2d.c — C reference for examples/polybench/fdtd-2d.apm (PolyBench/C 4.2.1 fdtd-2d). */
#include "pb.h"
#ifndef TMAX
#define TMAX 20
#endif
#ifndef NX
#define NX 20
#endif
#ifndef NY
#define NY 30
#endif

int main(void)
{
    double (*ex)[NY] = pb_alloc(sizeof(double[NX][NY]));
    double (*ey)[NY] = pb_alloc(sizeof(double[NX][NY]));
    double (*hz)[NY] = pb_alloc(sizeof(double[NX][NY]));
    double *fict = pb_alloc(sizeof(double[TMAX]));
    for (int i = 0; i < TMAX; i++)
        fict[i] = (double)i;
    for (int i = 0; i < NX; i++)
        for (int j = 0; j < NY; j++) {
            ex[i][j] = ((double)i * (j + 1)) / NX;
            ey[i][j] = ((double)i * (j + 2)) / NY;
            hz[i][j] = ((double)i * (j + 3)) / NX;
        }
    for (int t = 0; t < TMAX; t++) {
        for (int j = 0; j < NY; j++)
            ey[0][j] = fict[t];
        for (int i = 1; i < NX; i++)
            for (int j = 0; j < NY; j++)
                ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j]);
        for (int i = 0; i < NX; i++)
            for (int j = 1; j < NY; j++)
                ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j - 1]);
        for (int i = 0; i < NX - 1; i++)
            for (int j = 0; j < NY - 1; j++)
                hz[i][j] = hz[i][j] - 0.7 * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
    }
    pb_hash_doubles(ex, (size_t)NX * NY);
    pb_hash_doubles(ey, (size_t)NX * NY);
    pb_hash_doubles(hz, (size_t)NX * NY);
    pb_print_checksum();
    return 0;
}
