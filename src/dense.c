/* Dense vector loops for the safe solver's feature rows and Gram
 * matrices: written so that the compiler vectorises them without
 * reassociating anything (each of the 16 lanes keeps its own sum). */
#include "dense.h"

/* One binary, the widest vector unit of the machine it runs on. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_THREAD__)
#define CLONES \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", \
                                 "default")))
#else
#define CLONES
#endif

#define LANES 16

CLONES double tsgs__dot_f(const float *x, const float *w, size_t n)
{
    float acc[LANES] = {0};
    size_t j = 0;
    for (; j + LANES <= n; j += LANES)
        for (int l = 0; l < LANES; l++)
            acc[l] += x[j + l] * w[j + l];
    double s = 0.0;
    for (int l = 0; l < LANES; l++)
        s += acc[l];
    for (; j < n; j++)
        s += (double)x[j] * w[j];
    return s;
}

CLONES double tsgs__dot_fd(const float *x, const double *w, size_t n)
{
    double acc[LANES / 2] = {0};
    size_t j = 0;
    for (; j + LANES / 2 <= n; j += LANES / 2)
        for (int l = 0; l < LANES / 2; l++)
            acc[l] += (double)x[j + l] * w[j + l];
    double s = 0.0;
    for (int l = 0; l < LANES / 2; l++)
        s += acc[l];
    for (; j < n; j++)
        s += (double)x[j] * w[j];
    return s;
}

CLONES void tsgs__axpy_f(float a, const float *x, float *y, size_t n)
{
    for (size_t j = 0; j < n; j++)
        y[j] += a * x[j];
}

CLONES void tsgs__axpy4_f(const float *a, const float *x0, const float *x1,
                          const float *x2, const float *x3, float *y,
                          size_t n)
{
    const float a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
    for (size_t j = 0; j < n; j++)
        y[j] += (a0 * x0[j] + a1 * x1[j]) + (a2 * x2[j] + a3 * x3[j]);
}

CLONES void tsgs__axpy_fd(double a, const float *x, double *y, size_t n)
{
    for (size_t j = 0; j < n; j++)
        y[j] += a * (double)x[j];
}
