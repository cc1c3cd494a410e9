/* Dense vector loops for the safe solver's feature rows and Gram
 * matrices: written so that the compiler vectorises them without
 * reassociating anything (each of the 16 lanes keeps its own sum). Each
 * is compiled once per x86-64 level (isa.h) and the call runs the path
 * tsgs__isa_now() names, so tests can run every path the CPU has. */
#include "kernel/dense.h"

#include "kernel/isa.h"

#define LANES 16
#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE double dot_f(const float *x, const float *w, size_t n)
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

/* Four rows against one w: each row's sums in dot_f's order (the same
 * bits), the four chains side by side so that one does not wait on the
 * latency of its own adds, and w loaded once for the four. */
ALWAYS_INLINE void dot4_f(const float *x0, const float *x1, const float *x2,
                          const float *x3, const float *w, size_t n,
                          double *out)
{
    float a0[LANES] = {0}, a1[LANES] = {0}, a2[LANES] = {0}, a3[LANES] = {0};
    size_t j = 0;
    for (; j + LANES <= n; j += LANES)
        for (int l = 0; l < LANES; l++) {
            const float wl = w[j + l];
            a0[l] += x0[j + l] * wl;
            a1[l] += x1[j + l] * wl;
            a2[l] += x2[j + l] * wl;
            a3[l] += x3[j + l] * wl;
        }
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    for (int l = 0; l < LANES; l++) {
        s0 += a0[l];
        s1 += a1[l];
        s2 += a2[l];
        s3 += a3[l];
    }
    for (; j < n; j++) {
        s0 += (double)x0[j] * w[j];
        s1 += (double)x1[j] * w[j];
        s2 += (double)x2[j] * w[j];
        s3 += (double)x3[j] * w[j];
    }
    out[0] = s0;
    out[1] = s1;
    out[2] = s2;
    out[3] = s3;
}

ALWAYS_INLINE double dot_fd(const float *x, const double *w, size_t n)
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

ALWAYS_INLINE void axpy_f(float a, const float *x, float *y, size_t n)
{
    for (size_t j = 0; j < n; j++)
        y[j] += a * x[j];
}

ALWAYS_INLINE void axpy4_f(const float *a, const float *x0, const float *x1,
                           const float *x2, const float *x3, float *y,
                           size_t n)
{
    const float a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
    for (size_t j = 0; j < n; j++)
        y[j] += (a0 * x0[j] + a1 * x1[j]) + (a2 * x2[j] + a3 * x3[j]);
}

ALWAYS_INLINE void axpy_fd(double a, const float *x, double *y, size_t n)
{
    for (size_t j = 0; j < n; j++)
        y[j] += a * (double)x[j];
}

/* The loops above compiled for one x86-64 level. */
#define DEFINE_PATH(suffix, target)                                        \
    target static double dot_f##suffix(const float *x, const float *w,     \
                                       size_t n)                           \
    {                                                                      \
        return dot_f(x, w, n);                                             \
    }                                                                      \
    target static void dot4_f##suffix(const float *x0, const float *x1,    \
                                      const float *x2, const float *x3,    \
                                      const float *w, size_t n,            \
                                      double *out)                         \
    {                                                                      \
        dot4_f(x0, x1, x2, x3, w, n, out);                                 \
    }                                                                      \
    target static double dot_fd##suffix(const float *x, const double *w,   \
                                        size_t n)                          \
    {                                                                      \
        return dot_fd(x, w, n);                                            \
    }                                                                      \
    target static void axpy_f##suffix(float a, const float *x, float *y,   \
                                      size_t n)                            \
    {                                                                      \
        axpy_f(a, x, y, n);                                                \
    }                                                                      \
    target static void axpy4_f##suffix(                                    \
        const float *a, const float *x0, const float *x1, const float *x2, \
        const float *x3, float *y, size_t n)                               \
    {                                                                      \
        axpy4_f(a, x0, x1, x2, x3, y, n);                                  \
    }                                                                      \
    target static void axpy_fd##suffix(double a, const float *x,           \
                                       double *y, size_t n)                \
    {                                                                      \
        axpy_fd(a, x, y, n);                                               \
    }
TSGS__FOR_ISAS(DEFINE_PATH)

/* LHS NAME_path(...) for the level tsgs__isa_now() names (LHS: "s =" or
 * nothing). */
#if TSGS__HAVE_ISA_PATHS
#define DISPATCH(lhs, name, ...)                                           \
    switch (tsgs__isa_now()) {                                             \
    case TSGS__ISA_AVX512:                                                 \
        lhs name##_avx512(__VA_ARGS__);                                    \
        break;                                                             \
    case TSGS__ISA_AVX2:                                                   \
        lhs name##_avx2(__VA_ARGS__);                                      \
        break;                                                             \
    default:                                                               \
        lhs name##_base(__VA_ARGS__);                                      \
    }
#else
#define DISPATCH(lhs, name, ...) lhs name##_base(__VA_ARGS__);
#endif

double tsgs__dot_f(const float *x, const float *w, size_t n)
{
    double s;
    DISPATCH(s =, dot_f, x, w, n)
    return s;
}

void tsgs__dot4_f(const float *x0, const float *x1, const float *x2,
                  const float *x3, const float *w, size_t n, double *out)
{
    DISPATCH(, dot4_f, x0, x1, x2, x3, w, n, out)
}

double tsgs__dot_fd(const float *x, const double *w, size_t n)
{
    double s;
    DISPATCH(s =, dot_fd, x, w, n)
    return s;
}

void tsgs__axpy_f(float a, const float *x, float *y, size_t n)
{
    DISPATCH(, axpy_f, a, x, y, n)
}

void tsgs__axpy4_f(const float *a, const float *x0, const float *x1,
                   const float *x2, const float *x3, float *y, size_t n)
{
    DISPATCH(, axpy4_f, a, x0, x1, x2, x3, y, n)
}

void tsgs__axpy_fd(double a, const float *x, double *y, size_t n)
{
    DISPATCH(, axpy_fd, a, x, y, n)
}
