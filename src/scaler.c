/* Feature scaling fitted on every training row, labeled or not (as
 * svm-scale does), kept in the model and applied to each row before its
 * random features: x' = (x - shift) * mul. The class kind also reads the
 * labels: see class_stretch. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_label(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The class kind's stretch of each z-scored feature: r_k = sqrt(t_k / w_k),
 * t_k the variance of feature k over the labeled rows (n_l - 1 degrees of
 * freedom) and w_k its pooled within-class variance (n_l - K), clamped to
 * [1, TSGS__CLASS_STRETCH_MAX]. Dividing by the total sd alone shrinks a
 * feature that separates the classes, whose spread is mostly between them
 * (two unit Gaussians with means +-m on one axis: sd sqrt(1 + m^2) there,
 * 1 on the others); r_k restores it, so that x' is close to x over the
 * within-class sd. Both variances come from the same labeled rows, so a
 * feature the labels barely see gets about 1, not a ratio against the
 * unlabeled rows; no label information (t_k = 0, fewer than two classes)
 * gives 1: plain z-score. So does a class with fewer than
 * TSGS__CLASS_MIN_ROWS labeled rows: a variance from nu degrees of freedom
 * has a relative sd of sqrt(2 / nu), 50% at 5 rows per class, and the
 * ratio of two is noisier (on two moons with 10 labels such stretches,
 * 1.1-2.1, moved the kept model on 2 of 10 seeds, by 10 points each).
 * mul[] is multiplied in place. */
static tsgs_status class_stretch(const tsgs_dataset *ds, double *mul,
                                 tsgs_error *err)
{
    const size_t d = ds->d, n = ds->n;
    size_t nl = 0;
    for (size_t i = 0; i < n; i++)
        nl += !isnan(ds->y[i]);
    if (nl < 3 || d == 0)
        return TSGS_OK;
    double *lab = malloc(sizeof(double) * nl);
    if (!lab)
        return TSGS__NOMEM(err);
    for (size_t i = 0, j = 0; i < n; i++)
        if (!isnan(ds->y[i]))
            lab[j++] = ds->y[i];
    qsort(lab, nl, sizeof(double), cmp_label);
    size_t K = 0;
    for (size_t j = 0; j < nl; j++)
        if (j == 0 || lab[j] != lab[K - 1])
            lab[K++] = lab[j];
    if (K < 2) {
        free(lab);
        return TSGS_OK;
    }
    double *cnt = calloc(K, sizeof(double));
    double *sum = calloc(K * d, sizeof(double)); /* then the class means */
    double *all = calloc(d, sizeof(double));     /* then the labeled mean */
    double *ssw = calloc(d, sizeof(double)), *sst = calloc(d, sizeof(double));
    if (!cnt || !sum || !all || !ssw || !sst) {
        free(lab); free(cnt); free(sum); free(all); free(ssw); free(sst);
        return TSGS__NOMEM(err);
    }
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n; i++) {
            if (isnan(ds->y[i]))
                continue;
            const double *c = bsearch(&ds->y[i], lab, K, sizeof(double),
                                      cmp_label);
            const size_t ci = (size_t)(c - lab);
            const float *r = ds->x + i * d;
            double *mc = sum + ci * d;
            if (pass == 0) {
                cnt[ci] += 1.0;
                for (size_t k = 0; k < d; k++) {
                    mc[k] += r[k];
                    all[k] += r[k];
                }
                continue;
            }
            for (size_t k = 0; k < d; k++) { /* two passes: no cancellation */
                double a = r[k] - mc[k], b = r[k] - all[k];
                ssw[k] += a * a;
                sst[k] += b * b;
            }
        }
        if (pass == 0) {
            for (size_t c = 0; c < K; c++)
                for (size_t k = 0; k < d; k++)
                    sum[c * d + k] /= cnt[c];
            for (size_t k = 0; k < d; k++)
                all[k] /= (double)nl;
        }
    }
    int few = 0;
    for (size_t c = 0; c < K; c++)
        few |= cnt[c] < TSGS__CLASS_MIN_ROWS;
    for (size_t k = 0; k < d && !few; k++) {
        double t = sst[k] / (double)(nl - 1), w = ssw[k] / (double)(nl - K);
        double r = t <= 0.0 ? 1.0
                   : w <= t / (TSGS__CLASS_STRETCH_MAX * TSGS__CLASS_STRETCH_MAX)
                       ? TSGS__CLASS_STRETCH_MAX
                       : sqrt(t / w);
        mul[k] *= r < 1.0 ? 1.0 : r;
    }
    free(lab); free(cnt); free(sum); free(all); free(ssw); free(sst);
    return TSGS_OK;
}

tsgs_status tsgs__scaler_fit(const tsgs_dataset *ds, tsgs_scaling kind,
                             tsgs__scaler *out, tsgs_error *err)
{
    if (!ds || !out)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs__scaler_fit: NULL argument");
    if (kind != TSGS_SCALE_NONE && kind != TSGS_SCALE_ZSCORE &&
        kind != TSGS_SCALE_MINMAX && kind != TSGS_SCALE_CLASS)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "scale: unknown kind %d", (int)kind);
    tsgs__scaler s = {kind, ds->d, NULL, NULL};
    if (kind == TSGS_SCALE_NONE) {
        *out = s;
        return TSGS_OK;
    }
    const size_t d = ds->d, n = ds->n, dd = d ? d : 1;
    tsgs_status st = TSGS_OK;
    double *lo = malloc(sizeof(double) * dd), *hi = malloc(sizeof(double) * dd);
    s.shift = calloc(dd, sizeof(double));
    s.mul = calloc(dd, sizeof(double));
    if (!lo || !hi || !s.shift || !s.mul) {
        st = TSGS__NOMEM(err);
        goto fail;
    }
    for (size_t k = 0; k < d; k++) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    /* Pass 1: range and sum (in double, row by row for the cache). */
    for (size_t i = 0; i < n; i++) {
        const float *r = ds->x + i * d;
        for (size_t k = 0; k < d; k++) {
            double v = r[k];
            if (!isfinite(v)) {
                st = tsgs__fail(err, TSGS_ERR_DATA, NULL, 0,
                                "row %zu, feature %zu: value is not finite",
                                i + 1, k + 1);
                goto fail;
            }
            lo[k] = v < lo[k] ? v : lo[k];
            hi[k] = v > hi[k] ? v : hi[k];
            s.shift[k] += v;
        }
    }
    if (kind == TSGS_SCALE_ZSCORE || kind == TSGS_SCALE_CLASS) {
        for (size_t k = 0; k < d; k++)
            s.shift[k] = n ? s.shift[k] / (double)n : 0.0;
        /* Pass 2: spread around the mean (two passes: no cancellation). */
        for (size_t i = 0; i < n; i++) {
            const float *r = ds->x + i * d;
            for (size_t k = 0; k < d; k++) {
                double t = r[k] - s.shift[k];
                s.mul[k] += t * t;
            }
        }
        for (size_t k = 0; k < d; k++) {
            double sd = n ? sqrt(s.mul[k] / (double)n) : 0.0;
            s.mul[k] = sd > 0.0 ? 1.0 / sd : 1.0;
        }
        if (kind == TSGS_SCALE_CLASS &&
            (st = class_stretch(ds, s.mul, err)) != TSGS_OK)
            goto fail;
    } else {
        for (size_t k = 0; k < d; k++) {
            s.shift[k] = n ? 0.5 * (lo[k] + hi[k]) : 0.0;
            s.mul[k] = n && hi[k] > lo[k] ? 2.0 / (hi[k] - lo[k]) : 1.0;
        }
    }
    /* A constant column (min == max, found exactly on the floats): shift by
     * its value so that it maps to exactly 0, and do not stretch it. */
    for (size_t k = 0; k < d && n; k++)
        if (lo[k] == hi[k]) {
            s.shift[k] = lo[k];
            s.mul[k] = 1.0;
        }
    free(lo);
    free(hi);
    *out = s;
    return TSGS_OK;
fail:
    free(lo);
    free(hi);
    tsgs__scaler_clear(&s);
    return st;
}

void tsgs__scaler_clear(tsgs__scaler *s)
{
    if (!s)
        return;
    free(s->shift);
    free(s->mul);
    s->shift = s->mul = NULL;
    s->d = 0;
    s->kind = TSGS_SCALE_NONE;
}

void tsgs__scaler_apply(const tsgs__scaler *s, const float *row, size_t d_row,
                        float *out)
{
    const size_t d = s->d, m = d_row < d ? d_row : d;
    if (s->kind == TSGS_SCALE_NONE || !s->shift || !s->mul) {
        if (m)
            memcpy(out, row, sizeof(float) * m);
        for (size_t k = m; k < d; k++)
            out[k] = 0.0f;
        return;
    }
    for (size_t k = 0; k < m; k++)
        out[k] = (float)(((double)row[k] - s->shift[k]) * s->mul[k]);
    /* Columns the row lacks are zeros, scaled like any other value. */
    for (size_t k = m; k < d; k++)
        out[k] = (float)(-s->shift[k] * s->mul[k]);
}

/* The kernel width when none is given: 1 / (2 sum_k var_k) of the scaled
 * rows, so that a typical pair of rows, at squared distance
 * 2 sum_k var_k, has k(x, x') = exp(-1). On z-scored data that is 1/(2d),
 * half LIBSVM's 1/d default, which assumes [-1, 1] scaling. */
tsgs_status tsgs__spread_sigma(const tsgs_dataset *ds, const tsgs__scaler *sc,
                               double *sigma, tsgs_error *err)
{
    const size_t d = ds->d;
    const size_t stride = ds->n > 100000 ? ds->n / 100000 : 1;
    double *s1 = calloc(d, sizeof(double)), *s2 = calloc(d, sizeof(double));
    float *row = malloc(sizeof(float) * d);
    if (!s1 || !s2 || !row) {
        free(s1);
        free(s2);
        free(row);
        return TSGS__NOMEM(err);
    }
    size_t n = 0;
    for (size_t i = 0; i < ds->n; i += stride, n++) {
        tsgs__scaler_apply(sc, ds->x + i * d, d, row);
        for (size_t k = 0; k < d; k++) {
            s1[k] += row[k];
            s2[k] += (double)row[k] * row[k];
        }
    }
    double total = 0.0;
    for (size_t k = 0; k < d && n > 0; k++) {
        double mean = s1[k] / (double)n;
        total += s2[k] / (double)n - mean * mean;
    }
    free(s1);
    free(s2);
    free(row);
    /* constant data has no spread: fall back to LIBSVM's 1 / d */
    *sigma = total > 0.0 ? 1.0 / (2.0 * total) : 1.0 / (double)d;
    return TSGS_OK;
}
