/* Multi-class data, one-vs-rest (as LIBLINEAR and scikit-learn): one
 * binary model per class, that class +1 against every other -1, trained
 * by train.c on a relabeled view of the rows; a row goes to the class
 * whose model gives the largest decision value. Each binary problem keeps
 * its own class ratio, so the semi-supervised balance of class k holds
 * the share of unlabeled rows that class k has among the labeled ones. */
#include "model/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

tsgs_status tsgs__label_view(const tsgs_dataset *ds, tsgs_dataset **out,
                             tsgs_error *err)
{
    tsgs_dataset *v = calloc(1, sizeof *v);
    double *y = malloc(sizeof(double) * (ds->n ? ds->n : 1));
    if (!v || !y) {
        free(v);
        free(y);
        return TSGS__NOMEM(err);
    }
    memcpy(y, ds->y, sizeof(double) * ds->n);
    v->n = v->cap = ds->n;
    v->d = ds->d;
    v->x = ds->x; /* borrowed, as the sparse rows */
    v->ptr = ds->ptr;
    v->col = ds->col;
    v->val = ds->val;
    v->y = y;
    *out = v;
    return TSGS_OK;
}

tsgs_status tsgs__ovr_view(const tsgs_dataset *ds, double positive,
                           tsgs_dataset **out, tsgs_error *err)
{
    tsgs_status st = tsgs__label_view(ds, out, err);
    if (st != TSGS_OK)
        return st;
    double *y = (*out)->y;
    for (size_t i = 0; i < ds->n; i++)
        if (!isnan(y[i]))
            y[i] = y[i] == positive ? 1.0 : -1.0;
    return TSGS_OK;
}

void tsgs__view_free(tsgs_dataset *view)
{
    if (!view)
        return;
    free(view->y);
    free(view);
}

tsgs_status tsgs__model_ovr(tsgs_model **subs, const double *classes,
                            size_t k, tsgs_model **out, tsgs_error *err)
{
    tsgs_model *m = calloc(1, sizeof *m);
    tsgs_model **ovr = malloc(sizeof *ovr * k);
    double *cl = malloc(sizeof *cl * k);
    if (!m || !ovr || !cl) {
        free(m);
        free(ovr);
        free(cl);
        return TSGS__NOMEM(err);
    }
    memcpy(ovr, subs, sizeof *ovr * k);
    memcpy(cl, classes, sizeof *cl * k);
    m->nclass = (int)k;
    m->ovr = ovr;
    m->classes = cl;
    m->d = subs[0]->d;
    m->params = subs[0]->params;
    m->layout = subs[0]->layout; /* a loaded file's (each class's alike) */
    m->label_neg = cl[0];
    m->label_pos = cl[k - 1];
    snprintf(m->note, sizeof m->note, "one-vs-rest over %zu classes; class "
             "%g: %.150s", k, cl[0], subs[0]->note);
    *out = m;
    return TSGS_OK;
}

size_t tsgs_model_classes(const tsgs_model *m, double *labels)
{
    if (m->nclass > 2) {
        if (labels)
            memcpy(labels, m->classes, sizeof *labels * (size_t)m->nclass);
        return (size_t)m->nclass;
    }
    if (labels) {
        labels[0] = m->label_neg;
        labels[1] = m->label_pos;
    }
    return 2;
}

size_t tsgs_model_score_columns(const tsgs_model *m)
{
    return m->nclass > 2 ? (size_t)m->nclass : 1;
}

tsgs_status tsgs_predict_scores(const tsgs_model *m, const tsgs_dataset *ds,
                                int threads, double *scores, tsgs_error *err)
{
    if (!m || !ds || !scores)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_predict_scores: NULL argument");
    if (m->nclass <= 2)
        return tsgs_predict(m, ds, threads, scores, err);
    const size_t k = (size_t)m->nclass;
    double *dec = malloc(sizeof(double) * (ds->n ? ds->n : 1));
    if (!dec)
        return TSGS__NOMEM(err);
    tsgs_status st = TSGS_OK;
    for (size_t c = 0; c < k && st == TSGS_OK; c++) {
        st = tsgs__predict_within(m->ovr[c], ds, threads,
                                  m->ovr[c]->params.cache_mb * 1048576.0 /
                                      (double)k,
                                  dec, err);
        for (size_t i = 0; st == TSGS_OK && i < ds->n; i++)
            scores[i * k + c] = dec[i];
    }
    free(dec);
    return st;
}

double tsgs_model_label_of(const tsgs_model *m, const double *scores)
{
    if (m->nclass <= 2)
        return tsgs_model_label(m, scores[0]);
    int best = 0; /* ties to the first class, as LIBLINEAR */
    for (int c = 1; c < m->nclass; c++)
        if (scores[c] > scores[best])
            best = c;
    return m->classes[best];
}

double tsgs_accuracy(const tsgs_model *m, const tsgs_dataset *ds,
                     const double *scores, size_t *n_labeled)
{
    const size_t k = tsgs_model_score_columns(m);
    size_t n = 0, right = 0;
    for (size_t i = 0; i < ds->n; i++) {
        if (isnan(ds->y[i]))
            continue;
        n++;
        right += tsgs_model_label_of(m, scores + i * k) == ds->y[i];
    }
    if (n_labeled)
        *n_labeled = n;
    return n ? (double)right / (double)n : 0.0;
}

double tsgs__accuracy_on(const tsgs_model *m, const tsgs_dataset *ds,
                         int threads, tsgs_error *err)
{
    const size_t k = tsgs_model_score_columns(m);
    double *s = malloc(sizeof(double) * k * (ds->n ? ds->n : 1));
    if (!s) {
        TSGS__NOMEM(err);
        return -1.0;
    }
    double acc = -1.0;
    if (tsgs_predict_scores(m, ds, threads, s, err) == TSGS_OK)
        acc = tsgs_accuracy(m, ds, s, NULL);
    free(s);
    return acc;
}

size_t tsgs__ovr_at_once(size_t k, int threads, tsgs_solver solver)
{
    if (solver != TSGS_SOLVER_SAFE || k < 3 || threads < 2 ||
        k - 1 < (size_t)threads)
        return 1;
    return (size_t)threads;
}
