/* Feature rows moved to their mean: see centre.h. */
#include "kernel/centre.h"

/* Columns of a task of tsgs__column_means: a row's share is then 256
 * bytes. */
#define MEAN_COLS 64

void tsgs__column_means(const float *P, size_t n, size_t D, int threads,
                        double *mean)
{
    const long blocks = (long)((D + MEAN_COLS - 1) / MEAN_COLS);
    (void)threads;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static) \
    if (threads > 1 && n * D > 65536)
#endif
    for (long b = 0; b < blocks; b++) {
        const size_t j0 = (size_t)b * MEAN_COLS;
        const size_t j1 = j0 + MEAN_COLS < D ? j0 + MEAN_COLS : D;
        double acc[MEAN_COLS] = {0};
        for (size_t i = 0; i < n; i++)
            for (size_t j = j0; j < j1; j++)
                acc[j - j0] += P[i * D + j];
        for (size_t j = j0; j < j1; j++)
            mean[j] = n ? acc[j - j0] / (double)n : 0.0;
    }
}

void tsgs__centre_rows(float *P, size_t n, size_t D, const double *mean)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < D; j++)
            P[i * D + j] = (float)((double)P[i * D + j] - mean[j]);
}

double tsgs__bias_weight(const float *P, size_t n, size_t D,
                         const double *mean)
{
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < D; j++) {
            const double c = (float)((double)P[i * D + j] - mean[j]);
            sum += c * c;
        }
    const double v = n ? sum / (double)n : 0.0;
    return v > 0.0 && v < 1.0 ? v : 1.0;
}
