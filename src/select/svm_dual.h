/* svm_dual.c: the exact hinge-loss SVM with a bias, by dual coordinate
 * descent, for the supervised part of the safe solver. */
#ifndef TSGS_SVM_DUAL_H
#define TSGS_SVM_DUAL_H

#include "common/common.h"

/* The orders in which tsgs__svm_dual_gram visits n coordinates, epoch by
 * epoch, for one seed: each fit of a C path visits the same ones from
 * epoch 0, so they are made once for the path (making one per epoch and
 * fit was a tenth of a 1-thread default run, in the (sigma, C) grid). */
typedef struct tsgs__dual_orders tsgs__dual_orders;

typedef struct {
    long max_epochs; /* passes over the coordinates at most */
    double tol;      /* stop when the projected gradients span less */
    uint64_t seed;   /* the order coordinates are visited in */
    tsgs__dual_orders *orders; /* made for this seed and n, or NULL */
    const double *cw; /* per row: C x cw[i] is row i's bound (class
                         weights); NULL: C for every row */
    tsgs__stop *stop; /* polled each epoch (NULL: none): one asked
                         TSGS__STOP_REQUIRED ago ends the fit with
                         TSGS_ERR_STOPPED */
    /* tsgs__svm_dual_features only (centre.h says why): */
    const double *centre; /* fit on the rows less this row (NULL: the
                             rows as given); w and bias still take the
                             rows as given */
    double beta;          /* the bias column's weight (0: 1) */
} tsgs__dual_opts;

/* Room for the orders of n coordinates under seed, made as the fits reach
 * them, up to max_epochs; NULL when out of memory (the fits then make
 * their own: the same orders). The fits write to it: one thread's. */
tsgs__dual_orders *tsgs__dual_orders_new(size_t n, uint64_t seed,
                                         long max_epochs);
void tsgs__dual_orders_free(tsgs__dual_orders *o);

/* Trains on n rows given by Q (n x n, row-major): Q_ij = y_i y_j (k(x_i,
 * x_j) + 1), the "+ 1" the bias's constant feature, y_i = +1 / -1; C is
 * the weight of the SUM of hinge losses (LIBSVM's C; row i's is C x
 * opt->cw[i] when cw is given). alpha[0..n) is a
 * warm start on entry (clipped to [0, C_i]) and the solution on return:
 * f(x) = sum_j alpha_j y_j (k(x, x_j) + 1). */
tsgs_status tsgs__svm_dual_gram(const float *Q, size_t n, double C,
                                const tsgs__dual_opts *opt, double *alpha,
                                tsgs_error *err);

/* The same SVM on explicit feature rows Phi (n x D floats): w (D doubles)
 * and *bias get f(x) = w . phi(x) + bias. */
tsgs_status tsgs__svm_dual_features(const float *Phi, size_t D,
                                    const double *y, size_t n, double C,
                                    const tsgs__dual_opts *opt, double *w,
                                    double *bias, tsgs_error *err);

#endif
