/* The labeled rows' cost, as the user gives it and as the solvers take it.
 *
 * Class weights (svm-train's -wi) multiply the C of each labeled row by
 * its class's weight: the solvers get one weight per row of the data
 * tsgs_train was given, which one-vs-rest's relabeled views keep (the
 * same rows in the same order), so that every class's problem weighs
 * each row by its own class.
 *
 * The user's C is LIBSVM's: the weight of each labeled row's hinge loss
 * (svm-train's -c, scikit-learn's SVC C), so that it means the same on any
 * number of labeled rows (a CV fold's included). The solvers weigh the
 * MEAN hinge loss over the n_l labeled rows, so they take C x n_l; the
 * older unit, c-total, is that total as given. tsgs_train converts on the
 * way in and the model's recorded C back on the way out. */
#include "train.h"

#include <math.h>
#include <stdlib.h>

void tsgs__cost_to_solver(tsgs_params *q, size_t nl)
{
    if (q->c_total > 0.0)
        q->c = q->c_total;
    else if (q->c > 0.0)
        q->c *= (double)nl;
    q->c_total = 0.0;
}

/* One binary model's C back to a per-row C: the user's own value where
 * there was one (the same bits), else the solver's total (chosen by CV,
 * bs3vm's default, or c-total) over the labeled rows. */
static void per_row(tsgs_params *mp, const tsgs_params *given, size_t nl)
{
    if (given->c > 0.0)
        mp->c = given->c;
    else if (nl > 0)
        mp->c /= (double)nl;
    mp->c_total = 0.0;
}

void tsgs__cost_to_user(tsgs_model *m, const tsgs_params *given, size_t nl)
{
    if (!m)
        return;
    per_row(&m->params, given, nl);
    for (int k = 0; k < m->nclass; k++) /* one-vs-rest's classes */
        per_row(&m->ovr[k]->params, given, nl);
}

/* Whether a class weight other than 1 is listed. */
static int any_weight(const tsgs_params *p)
{
    for (int i = 0; i < p->n_class_weights; i++)
        if (p->class_weights[i].weight != 1.0)
            return 1;
    return 0;
}

tsgs_status tsgs__cost_row_weights(const tsgs_dataset *ds,
                                   const tsgs_params *p, double **out,
                                   tsgs_error *err)
{
    *out = NULL;
    if (!any_weight(p))
        return TSGS_OK;
    double *w = malloc(sizeof(double) * (ds->n ? ds->n : 1));
    if (!w)
        return TSGS__NOMEM(err);
    int differs = 0;
    for (size_t i = 0; i < ds->n; i++) {
        w[i] = isnan(ds->y[i]) ? 1.0 : tsgs__class_weight_of(p, ds->y[i]);
        differs |= w[i] != 1.0;
    }
    if (differs)
        *out = w;
    else
        free(w); /* the weighted classes have no labeled row here */
    return TSGS_OK;
}
