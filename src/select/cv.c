/* k-fold cross-validation over a list of parameter sets, parallel across
 * fits (each on one thread) or within each fit (all threads). */
#include "model/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Fold of each labeled row (-1 for unlabeled): per class, a seeded shuffle
 * dealt round-robin, so every fold has each class in proportion. */
static tsgs_status assign_folds(const tsgs_dataset *ds, int folds,
                                uint64_t seed, int *fold, tsgs_error *err)
{
    size_t *idx = malloc(sizeof(size_t) * (ds->n ? ds->n : 1));
    if (!idx)
        return TSGS__NOMEM(err);
    for (size_t i = 0; i < ds->n; i++)
        fold[i] = -1;
    int next = 0;
    for (size_t i = 0; i < ds->n; i++) {
        double label = ds->y[i];
        if (isnan(label) || fold[i] != -1)
            continue;
        size_t m = 0;
        for (size_t j = i; j < ds->n; j++)
            if (ds->y[j] == label)
                idx[m++] = j;
        for (size_t k = m; k > 1; k--) {
            size_t j = (size_t)tsgs__below(seed, TSGS__STREAM_CV,
                                           ((uint64_t)i << 32) ^ k, k);
            size_t t = idx[k - 1];
            idx[k - 1] = idx[j];
            idx[j] = t;
        }
        /* continue the deal where the previous class stopped */
        for (size_t k = 0; k < m; k++) {
            fold[idx[k]] = next;
            next = (next + 1) % folds;
        }
    }
    free(idx);
    return TSGS_OK;
}

/* Fold f's split: the training rows (every row not in fold f, labeled or
 * not; the held-out rows are left out, not added to the unlabeled ones,
 * so the fit never sees them) and the held-out labeled rows. */
static tsgs_status split_fold(const tsgs_dataset *ds, const int *fold, int f,
                              tsgs_dataset **train, tsgs_dataset **held,
                              tsgs_error *err)
{
    size_t nf = 0;
    for (size_t i = 0; i < ds->n; i++)
        nf += fold[i] == f;
    size_t *rows = malloc(sizeof(size_t) * (ds->n ? ds->n : 1));
    if (!rows)
        return TSGS__NOMEM(err);
    /* the training rows first, then the held-out ones, each in order */
    size_t a = 0, b = ds->n - nf;
    for (size_t i = 0; i < ds->n; i++)
        rows[fold[i] == f ? b++ : a++] = i;
    tsgs_status st = tsgs_dataset_select(ds, rows, ds->n - nf, train, err);
    if (st == TSGS_OK &&
        (st = tsgs_dataset_select(ds, rows + ds->n - nf, nf, held, err))) {
        tsgs_dataset_free(*train);
        *train = NULL;
    }
    free(rows);
    return st;
}

/* The one label of a training split whose labeled rows are all of one
 * class (a class with fewer labeled rows than folds, or leave-one-out on
 * a class of one), else NaN. */
static double single_class(const tsgs_dataset *train)
{
    double first = NAN;
    for (size_t i = 0; i < train->n; i++) {
        double y = train->y[i];
        if (isnan(y))
            continue;
        if (isnan(first))
            first = y;
        else if (y != first)
            return NAN;
    }
    return first;
}

/* One fit: train on the split's training rows, score on its held-out
 * rows. A split with one class predicts that class, as LIBSVM does. */
static tsgs_status fit_fold(const tsgs_dataset *train,
                            const tsgs_dataset *held, const tsgs_params *p,
                            int threads, tsgs_bind bind, double *acc,
                            tsgs_error *err)
{
    double only = single_class(train);
    if (!isnan(only)) {
        size_t right = 0;
        for (size_t i = 0; i < held->n; i++)
            right += held->y[i] == only;
        *acc = held->n ? (double)right / (double)held->n : 0.0;
        return TSGS_OK;
    }
    tsgs_model *m = NULL;
    tsgs_params q = *p;
    q.threads = threads;
    q.bind = bind;
    tsgs_status st = tsgs_train(train, &q, NULL, &m, NULL, err);
    if (st == TSGS_OK) {
        *acc = tsgs__accuracy_on(m, held, threads, err); /* any classes */
        if (*acc < 0.0)
            st = err ? err->code : TSGS_ERR_NOMEM;
    }
    tsgs_model_free(m);
    return st;
}

/* Every grid point fitted on one fold's train rows and scored on its held
 * rows into acc[i * stride] (status[i], errors[i]: point i's first
 * failure): side by side, one thread each, or one after another on nt. */
static void fit_points(const tsgs_dataset *train, const tsgs_dataset *held,
                       const tsgs_params *points, size_t npoints,
                       int side_by_side, int nt, double *acc, size_t stride,
                       tsgs_status *status, tsgs_error *errors)
{
    if (side_by_side) {
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
#endif
        for (size_t i = 0; i < npoints; i++) {
            tsgs_error e;
            tsgs_status s = fit_fold(train, held, &points[i], 1,
                                     TSGS_BIND_NONE, &acc[i * stride], &e);
            if (s != TSGS_OK && status[i] == TSGS_OK) {
                status[i] = s; /* each i is one thread's */
                errors[i] = e;
            }
        }
        return;
    }
    for (size_t i = 0; i < npoints; i++)
        if (status[i] == TSGS_OK)
            status[i] = fit_fold(train, held, &points[i], nt, points[i].bind,
                                 &acc[i * stride], &errors[i]);
}

tsgs_status tsgs_cv(const tsgs_dataset *ds, const tsgs_params *points,
                    size_t npoints, int folds, uint64_t seed, int threads,
                    tsgs_cv_parallel parallel, double *mean, double *sd,
                    void (*done)(size_t point, double mean, double sd,
                                 void *user),
                    void *user, tsgs_error *err)
{
    if (!ds || !points || !mean || !sd)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_cv: NULL argument");
    size_t nl = tsgs_dataset_labeled_count(ds);
    if (folds < 2 || (size_t)folds > nl)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "folds = %d: expected between 2 and the %zu "
                          "labeled rows",
                          folds, nl);
    for (size_t i = 0; i < npoints; i++) {
        tsgs_status st = tsgs_params_check(&points[i], err);
        if (st != TSGS_OK)
            return st;
    }
    int nt = tsgs__threads_resolve(threads);
    int *fold = malloc(sizeof(int) * (ds->n ? ds->n : 1));
    double *acc = malloc(sizeof(double) * (npoints ? npoints : 1) *
                         (size_t)folds);
    tsgs_status *status = calloc(npoints ? npoints : 1, sizeof *status);
    tsgs_error *errors = calloc(npoints ? npoints : 1, sizeof *errors);
    tsgs_status st = TSGS_OK;
    if (!fold || !acc || !status || !errors) {
        st = TSGS__NOMEM(err);
        goto out;
    }
    if ((st = assign_folds(ds, folds, seed, fold, err)) != TSGS_OK)
        goto out;
    /* fold by fold: one copy of the data split at a time, shared by the
     * grid points */
    const int side_by_side = parallel == TSGS_CV_PARALLEL_GRID && nt > 1;
    tsgs__binding *pinned = NULL;
    if (side_by_side) /* pin the outer team once; the fits stay put */
        pinned = tsgs__bind_threads(nt, points[0].bind, NULL, NULL);
    for (int f = 0; f < folds && st == TSGS_OK; f++) {
        tsgs_dataset *train = NULL, *held = NULL;
        if ((st = split_fold(ds, fold, f, &train, &held, err)) != TSGS_OK)
            break;
        fit_points(train, held, points, npoints, side_by_side, nt,
                   acc + f, (size_t)folds, status, errors);
        tsgs_dataset_free(train);
        tsgs_dataset_free(held);
    }
    tsgs__restore_binding(pinned); /* the caller's threads as they were */
    if (st != TSGS_OK)
        goto out;
    for (size_t i = 0; i < npoints; i++) {
        if (status[i] != TSGS_OK) {
            st = tsgs__fail(err, status[i], NULL, 0, "grid point %zu: %s",
                            i + 1, errors[i].message);
            goto out;
        }
        double s1 = 0, s2 = 0;
        for (int f = 0; f < folds; f++) {
            double a = acc[i * (size_t)folds + (size_t)f];
            s1 += a;
            s2 += a * a;
        }
        mean[i] = s1 / folds;
        double var = s2 / folds - mean[i] * mean[i];
        sd[i] = sqrt(var > 0 ? var : 0);
        if (done)
            done(i, mean[i], sd[i], user);
    }
out:
    free(fold);
    free(acc);
    free(status);
    free(errors);
    return st;
}
