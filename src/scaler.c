/* Feature scaling fitted on the training rows (as svm-scale does), stored
 * in the model and applied to every row before its features. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

tsgs_status tsgs__scaler_fit(const tsgs_dataset *ds, tsgs_scaling kind,
                             tsgs__scaler *out, tsgs_error *err)
{
    memset(out, 0, sizeof *out);
    out->kind = kind;
    out->d = ds->d;
    if (kind == TSGS_SCALE_NONE)
        return TSGS_OK;
    out->shift = malloc(sizeof(double) * (ds->d ? ds->d : 1));
    out->mul = malloc(sizeof(double) * (ds->d ? ds->d : 1));
    double *a = calloc(ds->d ? ds->d : 1, sizeof(double));
    double *b = calloc(ds->d ? ds->d : 1, sizeof(double));
    if (!out->shift || !out->mul || !a || !b) {
        free(a);
        free(b);
        tsgs__scaler_clear(out);
        return TSGS__NOMEM(err);
    }
    const size_t d = ds->d, n = ds->n;
    if (kind == TSGS_SCALE_ZSCORE) {
        /* Two passes in double: the mean, then the spread around it. */
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < d; k++)
                a[k] += ds->x[i * d + k];
        for (size_t k = 0; k < d; k++)
            a[k] /= n ? (double)n : 1.0;
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < d; k++) {
                double t = ds->x[i * d + k] - a[k];
                b[k] += t * t;
            }
        for (size_t k = 0; k < d; k++) {
            double sd = n ? sqrt(b[k] / (double)n) : 0.0;
            out->shift[k] = a[k];
            out->mul[k] = sd > 0.0 ? 1.0 / sd : 1.0; /* constant column */
        }
    } else {
        for (size_t k = 0; k < d; k++) {
            a[k] = INFINITY;
            b[k] = -INFINITY;
        }
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < d; k++) {
                double v = ds->x[i * d + k];
                a[k] = v < a[k] ? v : a[k];
                b[k] = v > b[k] ? v : b[k];
            }
        for (size_t k = 0; k < d; k++) {
            if (n == 0) {
                out->shift[k] = 0.0;
                out->mul[k] = 1.0;
            } else {
                out->shift[k] = 0.5 * (a[k] + b[k]);
                out->mul[k] = b[k] > a[k] ? 2.0 / (b[k] - a[k]) : 1.0;
            }
        }
    }
    free(a);
    free(b);
    return TSGS_OK;
}

void tsgs__scaler_clear(tsgs__scaler *s)
{
    free(s->shift);
    free(s->mul);
    s->shift = s->mul = NULL;
}

void tsgs__scaler_apply(const tsgs__scaler *s, const float *row, size_t d_row,
                        float *out)
{
    const size_t d = s->d;
    for (size_t k = 0; k < d; k++) {
        double v = k < d_row ? row[k] : 0.0;
        if (s->kind != TSGS_SCALE_NONE)
            v = (v - s->shift[k]) * s->mul[k];
        out[k] = (float)v;
    }
}
