/* The memory a training run needs, estimated before it starts, so that a
 * caller can refuse a run that cannot fit instead of failing (or swapping)
 * hours later. The estimate counts the allocations that grow with the
 * input dimension d: they are what explodes when one feature index lies far
 * beyond the others (a LIBSVM file whose one row has index 10^7 asks for
 * gigabytes per direction panel), while the per-row vectors stay small. */
#include "train.h"
#include "solvers/sgd/sgd.h" /* the stochastic solvers' feature cache */
#include "select/model_select.h"

#include <math.h>
#include <stdlib.h>

/* Directions of the first `features` features, rounded up to whole
 * blocks and to whole kernel lane groups (the packed panels' width). */
static double panel_directions(const tsgs_params *p, const tsgs__fspec *fs,
                               long features)
{
    double dirs = (double)tsgs__blocks_for(p, features) * (double)fs->dirs;
    return ceil(dirs / TSGS__LANES) * TSGS__LANES;
}

/* Sparse rows: nothing is d-wide. The column cache (at most cache-mb,
 * and no more than the columns that occur can fill), the scaled rows
 * gathered (by their non-zeros) and the sort copies of the column indices
 * (scaler, cache), 8 bytes per non-zero. */
static double sparse_memory(const tsgs_dataset *ds, const tsgs_params *p,
                            double nl, double nu)
{
    const double nnz = (double)tsgs__dataset_nnz(ds);
    const double per_row = ds->n ? nnz / (double)ds->n : 0.0;
    const tsgs__fspec fs = tsgs__fspec_of(p, ds->d);
    const long budget = p->max_features == 0
                            ? tsgs_train_steps(ds, p) * p->block_size
                            : tsgs__default_features(p, ds->n, ds->d);
    const double dirs = panel_directions(p, &fs, budget);
    const double cols = fmin((double)ds->d, nnz);
    const double budget_bytes = p->cache_mb * 1048576.0;
    double total = fmin(budget_bytes, cols * dirs * sizeof(float));
    double rows = nl;
    if (p->solver == TSGS_SOLVER_SAFE) {
        rows += p->unlabeled_sample > 0 && nu > (double)p->unlabeled_sample
                    ? (double)p->unlabeled_sample : nu;
    } else {
        rows += 2.0 * (double)p->batch_unlabeled + (double)p->batch_labeled;
        /* tsg: every row's features (featcache.c) when they fit in what
         * the column cache leaves, and the rows they are made from */
        const int semi = p->solver != TSGS_SOLVER_DSG &&
                         p->solver != TSGS_SOLVER_CDSG;
        const double fc = semi ? tsgs__featcache_bytes(
                                     (size_t)(nl + nu), (long)dirs,
                                     fs.map == TSGS_FEATURES_PAIR)
                               : 0.0;
        if (semi && fc <= budget_bytes - total) {
            total += fc + 4.0 * (double)ds->n;
            rows += nl + nu;
        }
    }
    total += rows * per_row * (sizeof(float) + sizeof(uint32_t));
    total += 8.0 * nnz;
    /* the grid's draws of its rows' columns and a column cache for a sigma
     * on each of two threads (model_select.c), when C or sigma is chosen */
    if ((p->c <= 0.0 && p->c_total <= 0.0) || p->sigma <= 0.0)
        total += fmin(4.0 * TSGS__SPARSE_ROWS_CACHE,
                      fmin(nl, 1000.0) * per_row * dirs * 16.0);
    return total;
}

/* The distinct labels of ds's labeled rows into *k, counted up to cap
 * (enough for tsgs__ovr_at_once, without sorting every label); -1: out
 * of memory. */
static int classes_up_to(const tsgs_dataset *ds, size_t cap, size_t *k)
{
    double *seen = malloc(sizeof(double) * cap);
    if (!seen)
        return -1;
    size_t u = 0;
    for (size_t i = 0; i < ds->n && u < cap; i++) {
        if (isnan(ds->y[i]))
            continue;
        size_t j = 0;
        while (j < u && seen[j] != ds->y[i])
            j++;
        if (j == u)
            seen[u++] = ds->y[i];
    }
    free(seen);
    *k = u;
    return 0;
}

/* Dense rows, one run on `threads` threads (a binary problem, or one
 * class of one-vs-rest), k classes among the labels: the grid's feature
 * panels over the first features with their orthogonal groups, one sigma
 * a thread (model_select.c), and its copy of up to TSGS__GRID_ROWS labeled
 * rows; the model's direction cache when it is kept (with no budget,
 * every step's block); the rows gathered and scaled; the scaler's fit. */
static double dense_memory(const tsgs_dataset *ds, const tsgs_params *p,
                           double nl, double nu, int threads, size_t k)
{
    const double d = (double)ds->d, f4 = sizeof(float), f8 = sizeof(double);
    const tsgs__fspec fs = tsgs__fspec_of(p, ds->d);
    const int grid = p->c <= 0.0 || p->sigma <= 0.0;
    const int sigmas = p->sigma <= 0.0 ? TSGS__GRID_SIGMAS : 1;
    const double at_once = grid && threads > 1
                               ? fmin((double)threads, (double)sigmas) : 1.0;
    double panel = panel_directions(p, &fs, tsgs__first_features(p, d)) *
                   d * f4;
    if (fs.orthogonal) /* one group being made: group x d doubles, a row */
        panel += (double)fs.group * d * f8 + d * f4;
    double total = at_once * panel;
    if (grid)
        total += fmin(nl, (double)TSGS__GRID_ROWS) * d * f4;
    const long budget = p->max_features == 0
                            ? tsgs_train_steps(ds, p) * p->block_size
                            : tsgs__default_features(p, ds->n, ds->d);
    const double cache = panel_directions(p, &fs, budget) * d * f4;
    if (cache <= p->cache_mb * 1048576.0)
        total += cache;
    /* the labeled rows, and the safe solver's unlabeled sample or the
     * stochastic solvers' mini-batches */
    double rows = nl;
    if (p->solver == TSGS_SOLVER_SAFE)
        rows += p->unlabeled_sample > 0 && nu > (double)p->unlabeled_sample
                    ? (double)p->unlabeled_sample : nu;
    else
        rows += (double)p->batch_labeled + (double)p->batch_unlabeled;
    total += rows * d * f4;
    if (p->scale != TSGS_SCALE_NONE)
        total += tsgs__scaler_fit_bytes(ds->n, ds->d, k);
    return total;
}

int tsgs__estimate_sparse(const tsgs_dataset *ds, const tsgs_params *p)
{
    return tsgs__sparse(ds) && p->solver != TSGS_SOLVER_FRS &&
           p->solver != TSGS_SOLVER_BS3VM &&
           p->directions != TSGS_DIRECTIONS_ORTHOGONAL;
}

/* Classes counted (up to) for the estimate: enough for
 * tsgs__ovr_at_once and for the class stretch's sums of two classes. */
#define CLASSES_COUNTED 16

tsgs_status tsgs_train_memory(const tsgs_dataset *ds, const tsgs_params *p,
                              double *bytes, tsgs_error *err)
{
    if (!ds || !p || !bytes)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_train_memory: NULL argument");
    const double d = (double)ds->d, f4 = sizeof(float);
    const double nl = (double)tsgs_dataset_labeled_count(ds);
    const double nu = (double)ds->n - nl;
    if (p->solver == TSGS_SOLVER_BS3VM) {
        /* support vectors' rows: each budget (0: every labeled row,
         * ceil(0.2 n_u) unlabeled ones), at most the rows there are */
        double bl = p->budget_labeled > 0 ? (double)p->budget_labeled : nl;
        double bu = p->budget_unlabeled > 0 ? (double)p->budget_unlabeled
                                            : ceil(0.2 * nu);
        *bytes = (fmin(bl, nl) + fmin(bu, nu)) * d * f4;
        return TSGS_OK;
    }
    if (tsgs__estimate_sparse(ds, p)) {
        *bytes = sparse_memory(ds, p, nl, nu);
        return TSGS_OK;
    }
    const int threads = tsgs__threads_resolve(p->threads);
    size_t k = 0;
    if (classes_up_to(ds, (size_t)threads + CLASSES_COUNTED, &k))
        return TSGS__NOMEM(err);
    double total = dense_memory(ds, p, nl, nu, threads, k);
    /* one-vs-rest: the first class on every thread, then classes side by
     * side on one thread each, holding that each */
    const size_t side = p->solver == TSGS_SOLVER_SAFE && threads > 1
                            ? tsgs__ovr_at_once(k, threads, p->solver) : 1;
    if (side > 1)
        total = fmax(total, (double)side * dense_memory(ds, p, nl, nu, 1, k));
    *bytes = total;
    return TSGS_OK;
}
