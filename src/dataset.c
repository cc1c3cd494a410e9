/* Datasets: dense float rows with raw labels (NaN = unlabeled), and the
 * ways to say which rows are unlabeled. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int tsgs_is_unlabeled(double label) { return isnan(label); }

tsgs_status tsgs__dataset_new(size_t d, size_t cap, tsgs_dataset **out,
                              tsgs_error *err)
{
    tsgs_dataset *ds = calloc(1, sizeof *ds);
    if (!ds)
        return TSGS__NOMEM(err);
    ds->d = d;
    ds->cap = cap ? cap : 1;
    ds->x = malloc(sizeof(float) * ds->cap * (d ? d : 1));
    ds->y = malloc(sizeof(double) * ds->cap);
    if (!ds->x || !ds->y) {
        tsgs_dataset_free(ds);
        return TSGS__NOMEM(err);
    }
    *out = ds;
    return TSGS_OK;
}

tsgs_status tsgs_dataset_from_dense(size_t n, size_t d, const float *x,
                                    const double *y, tsgs_dataset **out,
                                    tsgs_error *err)
{
    if (!out || (n > 0 && !x))
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_dataset_from_dense: NULL argument");
    if (d > 0 && n > SIZE_MAX / sizeof(float) / d)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_dataset_from_dense: %zu x %zu is too large",
                          n, d);
    tsgs_dataset *ds;
    tsgs_status st = tsgs__dataset_new(d, n, &ds, err);
    if (st != TSGS_OK)
        return st;
    if (n)
        memcpy(ds->x, x, sizeof(float) * n * d);
    for (size_t i = 0; i < n; i++)
        ds->y[i] = y ? y[i] : TSGS_UNLABELED;
    ds->n = n;
    *out = ds;
    return TSGS_OK;
}

void tsgs_dataset_free(tsgs_dataset *ds)
{
    if (!ds)
        return;
    free(ds->x);
    free(ds->y);
    free(ds);
}

size_t tsgs_dataset_rows(const tsgs_dataset *ds) { return ds->n; }
size_t tsgs_dataset_features(const tsgs_dataset *ds) { return ds->d; }

const float *tsgs_dataset_row(const tsgs_dataset *ds, size_t i)
{
    return ds->x + i * ds->d;
}

double tsgs_dataset_label(const tsgs_dataset *ds, size_t i)
{
    return ds->y[i];
}

size_t tsgs_dataset_labeled_count(const tsgs_dataset *ds)
{
    size_t n = 0;
    for (size_t i = 0; i < ds->n; i++)
        n += !isnan(ds->y[i]);
    return n;
}

tsgs_status tsgs_dataset_append_unlabeled(tsgs_dataset *dst,
                                          const tsgs_dataset *src,
                                          tsgs_error *err)
{
    if (!dst || !src)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_dataset_append_unlabeled: NULL argument");
    size_t d = dst->d > src->d ? dst->d : src->d;
    size_t n = dst->n + src->n;
    float *x = malloc(sizeof(float) * (n ? n : 1) * (d ? d : 1));
    double *y = malloc(sizeof(double) * (n ? n : 1));
    if (!x || !y) {
        free(x);
        free(y);
        return TSGS__NOMEM(err);
    }
    /* Widen both to d columns, the missing ones 0 (as in sparse files). */
    memset(x, 0, sizeof(float) * n * d);
    for (size_t i = 0; i < dst->n; i++) {
        memcpy(x + i * d, dst->x + i * dst->d, sizeof(float) * dst->d);
        y[i] = dst->y[i];
    }
    for (size_t i = 0; i < src->n; i++) {
        memcpy(x + (dst->n + i) * d, src->x + i * src->d,
               sizeof(float) * src->d);
        y[dst->n + i] = TSGS_UNLABELED;
    }
    free(dst->x);
    free(dst->y);
    dst->x = x;
    dst->y = y;
    dst->n = dst->cap = n;
    dst->d = d;
    return TSGS_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

tsgs_status tsgs_dataset_keep_labels(tsgs_dataset *ds, size_t n_keep,
                                     uint64_t seed, tsgs_error *err)
{
    size_t nl = tsgs_dataset_labeled_count(ds);
    if (n_keep == 0 || n_keep > nl)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "labeled = %zu: expected between 1 and the %zu "
                          "labeled rows",
                          n_keep, nl);
    size_t *idx = malloc(sizeof(size_t) * nl);
    double *vals = malloc(sizeof(double) * nl);
    char *keep = calloc(ds->n, 1);
    if (!idx || !vals || !keep) {
        free(idx);
        free(vals);
        free(keep);
        return TSGS__NOMEM(err);
    }
    size_t k = 0;
    for (size_t i = 0; i < ds->n; i++)
        if (!isnan(ds->y[i]))
            vals[k++] = ds->y[i];
    qsort(vals, nl, sizeof *vals, cmp_double);
    /* Per class (distinct label value), in order: a seeded shuffle of its
     * rows, of which the first round(n_keep * share) are kept. Rounding
     * leftovers go to the classes in order, at least one row each when
     * n_keep allows. */
    size_t kept = 0, classes = 0;
    for (size_t a = 0; a < nl;) {
        size_t b = a;
        while (b < nl && vals[b] == vals[a])
            b++;
        classes++;
        a = b;
    }
    size_t ci = 0;
    for (size_t a = 0; a < nl; ci++) {
        size_t b = a;
        while (b < nl && vals[b] == vals[a])
            b++;
        double label = vals[a];
        size_t m = 0;
        for (size_t i = 0; i < ds->n; i++)
            if (ds->y[i] == label)
                idx[m++] = i;
        for (size_t i = m; i > 1; i--) {
            size_t j = (size_t)tsgs__below(seed, TSGS__STREAM_LABELED,
                                           (UINT64_C(1) << 60) ^
                                               ((uint64_t)ci << 40) ^ i,
                                           i);
            size_t t = idx[i - 1];
            idx[i - 1] = idx[j];
            idx[j] = t;
        }
        size_t want;
        if (ci + 1 == classes)
            want = n_keep - kept;
        else {
            want = (size_t)llround((double)n_keep * (double)m / (double)nl);
            if (want == 0 && n_keep >= classes)
                want = 1;
            /* leave at least one row for each class still to come */
            size_t reserve = n_keep >= classes ? classes - ci - 1 : 0;
            if (want + reserve > n_keep - kept)
                want = n_keep - kept > reserve ? n_keep - kept - reserve : 0;
        }
        if (want > m)
            want = m;
        for (size_t i = 0; i < want; i++)
            keep[idx[i]] = 1;
        kept += want;
        a = b;
    }
    for (size_t i = 0; i < ds->n; i++)
        if (!keep[i])
            ds->y[i] = TSGS_UNLABELED;
    free(idx);
    free(vals);
    free(keep);
    return TSGS_OK;
}
