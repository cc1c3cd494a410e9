/* model_select.c: choosing C and sigma on the labeled rows, for every
 * solver that picks its own (safe always; the stochastic ones when C or
 * sigma is left to them). */
#ifndef TSGS_MODEL_SELECT_H
#define TSGS_MODEL_SELECT_H

#include "kernel/kernel.h"

#define TSGS__GRID_ROWS 1000    /* labeled rows the grid sees at most */
#define TSGS__GRID_EPOCHS 200   /* the grid's fits only rank grid points */
#define TSGS__DUAL_TOL 1e-3     /* dual coordinate descent's tolerance */
#define TSGS__GRID_SIGMAS 7     /* the grid's sigma axis, one a thread */

/* Processes the grid's CV tasks spread over (the default solver over
 * MPI, issue #34): task t runs on process t mod size, then every
 * process gets every task's counts. Both calls are made by one thread
 * at a time, by every process in the same order. */
typedef struct tsgs__grid_spread {
    int rank, size;
    /* the largest `failed` over the processes (at least 1 where the
     * exchange itself failed) */
    int (*agree)(void *ctx, int failed);
    /* process root's buf[0, bytes) into every process's; 0, or 1 where
     * the exchange failed */
    int (*share)(void *ctx, void *buf, size_t bytes, int root);
    void *ctx;
} tsgs__grid_spread;

/* What the grid is run on. */
typedef struct {
    const tsgs__rows *XL;     /* scaled labeled rows, nl x d */
    const double *yl;         /* their classes, +1 / -1 */
    size_t nl, d;
    const tsgs__fspec *fs;    /* the feature map; its sigma is the grid's */
    size_t ndirs, D;          /* directions and features (see
                                 tsgs__feature_rows) */
    double sigma0;            /* centre of the sigma axis */
    double fixed_sigma;       /* > 0: this sigma, no sigma axis */
    double fixed_c;           /* > 0: this per-row C, no C axis */
    uint64_t seed;
    int threads;
    const double *classes;    /* NULL, or (one-vs-rest) their labels of 3
                                 classes or more: the grid then scores the
                                 multi-class accuracy of one-vs-rest */
    const double *wl;         /* NULL, or each labeled row's class weight:
                                 its C is C x wl[i] in every fit */
    tsgs__stop *stop;         /* NULL, or the run's: a stop asked ends the
                                 search (its tasks not started are left
                                 out; those running end within
                                 TSGS__STOP_REQUIRED) */
    const tsgs__grid_spread *spread; /* NULL (or size 1): this process
                                        runs every CV task */
} tsgs__grid_job;

/* What it chose. */
typedef struct tsgs__grid_choice {
    double sigma;
    double c_lib;        /* per-row hinge weight (LIBSVM's C) */
    double c_path[16];   /* the grid's C values up to c_lib, which a fit */
    int n_c_path;        /* that wants the grid's model follows */
    double grid_cv;      /* smoothed CV accuracy there (0: no grid run) */
    int interrupted;     /* a stop cut the search short: the grid's centre
                            (sigma0 and C = 1, or the fixed values) */
} tsgs__grid_choice;

/* CV accuracy of every (sigma, C) grid point, sigma in sigma0 x
 * 2^{-8,-6,...,4} and C in 2^{-5,-3,...,15}, on up to TSGS__GRID_ROWS
 * labeled rows, with the Gram matrix of the same random features the
 * model will use; stratified 5-fold CV repeated 3 times, scores smoothed
 * by a 3 x 3 moving mean; ties to the sigma nearest sigma0, then the
 * largest C. With classes, the accuracy is one-vs-rest's argmax over one
 * fit per class. */
tsgs_status tsgs__select_grid(const tsgs__grid_job *g, tsgs__grid_choice *out,
                              tsgs_error *err);

/* sigma0 = 1 / the median squared distance between up to 1,000 seeded
 * rows of A and B (d features each, any storage): the kernel's scale
 * then matches the data's, whatever its units or dimension. The same
 * value on any number of threads. */
tsgs_status tsgs__median_sigma(const tsgs__rows *XA, const tsgs__rows *XB,
                               size_t d, uint64_t seed, int threads,
                               double *sigma, tsgs_error *err);

/* The feature rows of X (n rows of d, dense or sparse) under fs's first
 * ndirs directions, scaled so that phi(x) . phi(x') estimates k(x, x'):
 * PAIR [cos | sin] / sqrt(m), COS sqrt(2) cos / sqrt(m), m the
 * directions. out: n x D floats. Sparse rows: cc holds directions of their
 * columns (NULL: a cache of X's columns is made for the call). The work
 * goes in calls of a fraction of a second, stop (NULL: none) polled
 * between them and while the directions are made: a stop asked
 * TSGS__STOP_REQUIRED ago ends it with TSGS_ERR_STOPPED. */
tsgs_status tsgs__feature_rows(const tsgs__fspec *fs, size_t ndirs,
                               const tsgs__rows *X, int threads,
                               const struct tsgs__colcache *cc,
                               tsgs__stop *stop, float *out, tsgs_error *err);

/* Stratified folds of n rows of classes y (+1 / -1): per class a seeded
 * shuffle dealt round-robin over k folds, the deal continuing across
 * classes. scratch: n entries. */
void tsgs__stratified_folds(const double *y, size_t n, int k, uint64_t seed,
                            uint64_t tag, size_t *scratch, int *fold);

#endif
