/* dense.c: the few dense vector loops of the safe solver, compiled for
 * the widest vector unit of the machine they run on. */
#ifndef TSGS_DENSE_H
#define TSGS_DENSE_H

#include <stddef.h>

/* x . w over n floats: 16 float partial sums, then a double sum. The
 * order of operations is fixed, so the result is the same on every run. */
double tsgs__dot_f(const float *x, const float *w, size_t n);
/* out[k] = xk . w for four rows, each exactly as tsgs__dot_f computes it
 * (the same bits), four times faster where the adds' latency bounds it. */
void tsgs__dot4_f(const float *x0, const float *x1, const float *x2,
                  const float *x3, const float *w, size_t n, double *out);
/* x . w, x float, w double: 8 double partial sums. */
double tsgs__dot_fd(const float *x, const double *w, size_t n);
/* y += a x over n floats. */
void tsgs__axpy_f(float a, const float *x, float *y, size_t n);
/* y += a[0] x0 + a[1] x1 + a[2] x2 + a[3] x3 over n floats: four rows per
 * pass over y. */
void tsgs__axpy4_f(const float *a, const float *x0, const float *x1,
                   const float *x2, const float *x3, float *y, size_t n);
/* y += a x, x float, y double. */
void tsgs__axpy_fd(double a, const float *x, double *y, size_t n);

#endif
