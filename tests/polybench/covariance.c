/* covariance.c — C reference for examples/polybench/covariance.apm (PolyBench/C 4.2.1 covariance). */
#include "pb.h"
#ifndef M
#define M 28
#endif
#ifndef N
#define N 32
#endif

int main(void)
{
    double float_n = (double)N;
    double (*data)[M] = pb_alloc(sizeof(double[N][M]));
    double (*cov)[M] = pb_alloc(sizeof(double[M][M]));
    double *mean = pb_alloc(sizeof(double[M]));
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            data[i][j] = ((double)i * j) / M;
    for (int j = 0; j < M; j++) {
        mean[j] = 0.0;
        for (int i = 0; i < N; i++)
            mean[j] += data[i][j];
        mean[j] /= float_n;
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            data[i][j] -= mean[j];
    for (int i = 0; i < M; i++)
        for (int j = i; j < M; j++) {
            cov[i][j] = 0.0;
            for (int k = 0; k < N; k++)
                cov[i][j] += data[k][i] * data[k][j];
            cov[i][j] /= (float_n - 1.0);
            cov[j][i] = cov[i][j];
        }
    pb_hash_doubles(cov, (size_t)M * M);
    pb_print_checksum();
    return 0;
}
