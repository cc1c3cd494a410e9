/* k-fold cross-validation over a list of parameter sets, parallel across
 * fits (each on one thread) or within each fit (all threads). */
#include "internal.h"

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

/* One fit: train with fold f's labels hidden, score on fold f. */
static tsgs_status fit_fold(const tsgs_dataset *ds, const int *fold, int f,
                            const tsgs_params *p, int threads, tsgs_bind bind,
                            double *acc, tsgs_error *err)
{
    tsgs_status st = TSGS_OK;
    size_t nf = 0;
    for (size_t i = 0; i < ds->n; i++)
        nf += fold[i] == f;
    double *y = malloc(sizeof(double) * (ds->n ? ds->n : 1));
    float *hx = malloc(sizeof(float) * (nf ? nf : 1) * (ds->d ? ds->d : 1));
    double *hy = malloc(sizeof(double) * (nf ? nf : 1));
    double *dec = malloc(sizeof(double) * (nf ? nf : 1));
    tsgs_dataset *held = NULL;
    tsgs_model *m = NULL;
    if (!y || !hx || !hy || !dec) {
        st = TSGS__NOMEM(err);
        goto done;
    }
    size_t k = 0;
    for (size_t i = 0; i < ds->n; i++) {
        y[i] = fold[i] == f ? NAN : ds->y[i];
        if (fold[i] == f) {
            memcpy(hx + k * ds->d, ds->x + i * ds->d, sizeof(float) * ds->d);
            hy[k++] = ds->y[i];
        }
    }
    /* A view of the rows with this fold's labels hidden: the features are
     * borrowed, not copied (millions of rows). */
    tsgs_dataset view = *ds;
    view.y = y;
    tsgs_params q = *p;
    q.threads = threads;
    q.bind = bind;
    if ((st = tsgs_train(&view, &q, NULL, &m, NULL, err)) != TSGS_OK)
        goto done;
    if ((st = tsgs_dataset_from_dense(nf, ds->d, hx, hy, &held, err)))
        goto done;
    if ((st = tsgs_predict(m, held, threads, dec, err)) != TSGS_OK)
        goto done;
    *acc = tsgs_accuracy(m, held, dec, NULL);
done:
    free(y);
    free(hx);
    free(hy);
    free(dec);
    tsgs_dataset_free(held);
    tsgs_model_free(m);
    return st;
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
    const long nfits = (long)npoints * folds;
    if (parallel == TSGS_CV_PARALLEL_GRID && nt > 1) {
        /* Pin the outer team once; the fits inside stay where they are. */
        tsgs__bind_threads(nt, points[0].bind, NULL, NULL);
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
#endif
        for (long j = 0; j < nfits; j++) {
            size_t i = (size_t)(j / folds);
            tsgs_error e;
            tsgs_status s = fit_fold(ds, fold, (int)(j % folds), &points[i],
                                     1, TSGS_BIND_NONE, &acc[j], &e);
            if (s != TSGS_OK) {
#ifdef _OPENMP
#pragma omp critical(tsgs_cv_error)
#endif
                {
                    status[i] = s;
                    errors[i] = e;
                }
            }
        }
    } else {
        for (long j = 0; j < nfits; j++) {
            size_t i = (size_t)(j / folds);
            if (status[i] != TSGS_OK)
                continue;
            status[i] = fit_fold(ds, fold, (int)(j % folds), &points[i], nt,
                                 points[i].bind, &acc[j], &errors[i]);
            if (done && j % folds == folds - 1 && status[i] == TSGS_OK) {
                double s1 = 0, s2 = 0;
                for (int f = 0; f < folds; f++) {
                    s1 += acc[i * (size_t)folds + (size_t)f];
                    s2 += acc[i * (size_t)folds + (size_t)f] *
                          acc[i * (size_t)folds + (size_t)f];
                }
                double mu = s1 / folds;
                double var = s2 / folds - mu * mu;
                done(i, mu, sqrt(var > 0 ? var : 0), user);
            }
        }
    }
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
        if (done && parallel == TSGS_CV_PARALLEL_GRID && nt > 1)
            done(i, mean[i], sd[i], user);
    }
out:
    free(fold);
    free(acc);
    free(status);
    free(errors);
    return st;
}
