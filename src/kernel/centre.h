/* centre.c: feature rows moved to their mean. On a wide kernel (a small
 * sigma) every random-feature row is nearly the same vector, so the Gram
 * matrix is a large constant plus the small part that tells the rows
 * apart; the dual solver, stopped after a fixed number of epochs, then
 * fits that constant and not the classes (ijcnn1, 200 random labels, the
 * grid's sigma 0.000737 and C 8192: 85.5% right on its own training
 * rows). The same rows less their mean give the same models
 * (f(x) = w . (z(x) - m) + b is w . z(x) + b - w . m) without it. */
#ifndef TSGS_CENTRE_H
#define TSGS_CENTRE_H

#include <stddef.h>

/* mean[j] = the mean of column j of the n x D rows P, each column summed
 * in row order (the same bits on any number of threads); 0 for n = 0. */
void tsgs__column_means(const float *P, size_t n, size_t D, int threads,
                        double *mean);
/* The weight of the bias column beside the centred rows in the dual
 * solver's Gram matrix (K + beta): their mean squared norm, the mean of
 * the centred kernel's diagonal, or 1 where that is 0 or above 1. With 1
 * on a wide kernel (diagonal 0.015) the bias again dominated the matrix
 * and the fits at a large C stopped far from their optimum; beside a
 * bias as large as a row, the dual solver's steps are those of a kernel
 * of unit diagonal at C x beta (its iterates scale with the matrix). The
 * rows of P (D apart) as tsgs__centre_rows leaves them, computed from P
 * and mean so that P itself may stay as it is. */
double tsgs__bias_weight(const float *P, size_t n, size_t D,
                         const double *mean);
/* Each of the n rows of P (D apart) less mean, in place. */
void tsgs__centre_rows(float *P, size_t n, size_t D, const double *mean);

#endif
