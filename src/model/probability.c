/* Probability outputs (LIBSVM's -b 1): Platt scaling, P(y = +1 | f) =
 * 1 / (1 + exp(A f + B)), fitted on decision values the model did not see
 * the labels of (train.c gathers them by 5-fold cross-validation on the
 * labeled rows), by Newton's method with a backtracking line search on
 * the regularised targets of Platt (1999) as Lin, Lin and Weng (2007)
 * state it. Several classes: each class's one-vs-rest probability,
 * normalised to sum to one. */
#include "model/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The cross-entropy of targets t against sigmoid(-(A f + B)), written so
 * that no exp overflows. */
static double platt_loss(const double *f, const double *t, size_t n,
                         double a, double b)
{
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        double z = a * f[i] + b;
        sum += z >= 0.0 ? t[i] * z + log1p(exp(-z))
                        : (t[i] - 1.0) * z + log1p(exp(z));
    }
    return sum;
}

void tsgs__platt_fit(const double *f, const double *y, size_t n, double *a,
                     double *b)
{
    size_t npos = 0;
    for (size_t i = 0; i < n; i++)
        npos += y[i] > 0.0;
    const size_t nneg = n - npos;
    /* Targets pulled in from 0 and 1 by one pseudo-count each way, so that
     * separable decision values do not send A to infinity. */
    const double hi = ((double)npos + 1.0) / ((double)npos + 2.0);
    const double lo = 1.0 / ((double)nneg + 2.0);
    double *t = malloc(sizeof(double) * (n ? n : 1));
    *a = 0.0;
    *b = log(((double)nneg + 1.0) / ((double)npos + 1.0));
    if (!t)
        return; /* the prior alone */
    for (size_t i = 0; i < n; i++)
        t[i] = y[i] > 0.0 ? hi : lo;
    double fval = platt_loss(f, t, n, *a, *b);
    for (int iter = 0; iter < 100; iter++) {
        /* gradient and Hessian (with a small ridge) of the loss in (A, B) */
        double h11 = 1e-12, h22 = 1e-12, h21 = 0.0, g1 = 0.0, g2 = 0.0;
        for (size_t i = 0; i < n; i++) {
            double p = tsgs__platt_prob(*a, *b, f[i]);
            double q = 1.0 - p;
            double d2 = p * q, d1 = t[i] - p;
            h11 += f[i] * f[i] * d2;
            h22 += d2;
            h21 += f[i] * d2;
            g1 += f[i] * d1;
            g2 += d1;
        }
        if (fabs(g1) < 1e-5 && fabs(g2) < 1e-5)
            break;
        double det = h11 * h22 - h21 * h21;
        double da = -(h22 * g1 - h21 * g2) / det;
        double db = -(-h21 * g1 + h11 * g2) / det;
        double gd = g1 * da + g2 * db;
        double step = 1.0;
        while (step >= 1e-10) {
            double na = *a + step * da, nb = *b + step * db;
            double nf = platt_loss(f, t, n, na, nb);
            if (nf < fval + 1e-4 * step * gd) {
                *a = na;
                *b = nb;
                fval = nf;
                break;
            }
            step /= 2.0;
        }
        if (step < 1e-10)
            break; /* no decrease along the Newton direction */
    }
    free(t);
}

tsgs_status tsgs__platt_fit_heldout(const double *f, const double *y,
                                    size_t nl, int repeats, tsgs_model *m,
                                    tsgs_error *err)
{
    const size_t n = nl * (size_t)repeats;
    double *yy = malloc(sizeof(double) * (n ? n : 1));
    if (!yy)
        return TSGS__NOMEM(err);
    for (size_t r = 0; r < (size_t)repeats; r++)
        memcpy(yy + r * nl, y, sizeof(double) * nl);
    tsgs__platt_fit(f, yy, n, &m->prob_a, &m->prob_b);
    m->has_prob = 1;
    free(yy);
    return TSGS_OK;
}

double tsgs__platt_prob(double a, double b, double f)
{
    double z = a * f + b;
    return z >= 0.0 ? exp(-z) / (1.0 + exp(-z)) : 1.0 / (1.0 + exp(z));
}

int tsgs_model_has_probability(const tsgs_model *m)
{
    if (m->kind->per_class) {
        for (int k = 0; k < m->nclass; k++)
            if (!m->ovr[k]->has_prob)
                return 0;
        return 1;
    }
    return m->has_prob;
}

tsgs_status tsgs_predict_proba(const tsgs_model *m, const tsgs_dataset *ds,
                               int threads, double *proba, tsgs_error *err)
{
    if (!m || !ds || !proba)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_predict_proba: NULL argument");
    if (!tsgs_model_has_probability(m))
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "the model has no probability outputs: train it "
                          "with probability = 1 (-b 1)");
    const size_t k = tsgs_model_classes(m, NULL);
    const size_t cols = tsgs_model_score_columns(m);
    double *s = malloc(sizeof(double) * cols * (ds->n ? ds->n : 1));
    if (!s)
        return TSGS__NOMEM(err);
    tsgs_status st = tsgs_predict_scores(m, ds, threads, s, err);
    for (size_t i = 0; st == TSGS_OK && i < ds->n; i++) {
        double *p = proba + i * k;
        if (!m->kind->per_class) {
            p[1] = tsgs__platt_prob(m->prob_a, m->prob_b, s[i]);
            p[0] = 1.0 - p[1];
            continue;
        }
        double sum = 0.0;
        for (size_t c = 0; c < k; c++) {
            const tsgs_model *b = m->ovr[c];
            p[c] = tsgs__platt_prob(b->prob_a, b->prob_b, s[i * k + c]);
            sum += p[c];
        }
        for (size_t c = 0; c < k; c++)
            p[c] = sum > 0.0 ? p[c] / sum : 1.0 / (double)k;
    }
    free(s);
    return st;
}
