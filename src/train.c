/* Training, whatever the solver: check the data (finite values, two
 * classes), fit the scaler, and hand the job to the solver named by the
 * parameters (solvers/solver.h). */
#include "solvers/solver.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Below this the stochastic solvers fold the lazy scale into the
 * coefficients: far from double's limits, and rare. */
#define SCALE_FLOOR 1e-150

static const tsgs__solver *solver_of(tsgs_solver id)
{
    switch (id) {
    case TSGS_SOLVER_SAFE: return &tsgs__solver_safe;
    case TSGS_SOLVER_BS3VM: return &tsgs__solver_bs3vm;
    default: return &tsgs__solver_sgd; /* tsg, dsg, frs, cdsg */
    }
}

/* The classes among the labeled rows (ascending): at least two. */
static tsgs_status find_classes(const tsgs_dataset *ds, double **classes,
                                size_t *k, tsgs_error *err)
{
    tsgs_status st = tsgs__class_values(ds, classes, k, err);
    if (st != TSGS_OK)
        return st;
    if (*k >= 2)
        return TSGS_OK;
    double only = *k ? (*classes)[0] : 0.0;
    free(*classes);
    *classes = NULL;
    if (*k == 0)
        return tsgs__fail(err, TSGS_ERR_DATA, NULL, 0,
                          "labels: no labeled rows to train on");
    return tsgs__fail(err, TSGS_ERR_DATA, NULL, 0,
                      "labels: every labeled row has label %g; training "
                      "needs two classes or more",
                      only);
}

/* K > 2 classes: one binary model per class on a relabeled view of the
 * rows (that class +1, the others -1), one after another on all threads;
 * hooks report each in turn, without the monitor (its labels are the
 * file's, not +-1). */
static tsgs_status train_one_vs_rest(const tsgs_dataset *ds,
                                     const tsgs_params *params,
                                     const tsgs_train_hooks *hooks,
                                     const tsgs__train_opts *opt,
                                     const double *classes, size_t k,
                                     tsgs_model **out, int *stopped_early,
                                     tsgs_error *err)
{
    tsgs_model **subs = calloc(k, sizeof *subs);
    if (!subs)
        return TSGS__NOMEM(err);
    tsgs_train_hooks quiet;
    if (hooks) {
        quiet = *hooks;
        quiet.monitor = NULL;
    }
    tsgs_status st = TSGS_OK;
    int stopped = 0;
    size_t c = 0;
    for (; c < k && st == TSGS_OK && !stopped; c++) {
        tsgs_dataset *view = NULL;
        if ((st = tsgs__ovr_view(ds, classes[c], &view, err)) != TSGS_OK)
            break;
        st = tsgs__train_ex(view, params, hooks ? &quiet : NULL, opt,
                            &subs[c], &stopped, err);
        tsgs__ovr_view_free(view);
    }
    if (st == TSGS_OK && stopped)
        st = tsgs__fail(err, TSGS_ERR_STOPPED, NULL, 0,
                        "stopped while training class %zu of %zu: a "
                        "one-vs-rest model needs every class, so there is "
                        "none to keep",
                        c, k);
    if (st == TSGS_OK)
        st = tsgs__model_ovr(subs, classes, k, out, err);
    if (st != TSGS_OK) {
        for (size_t c = 0; c < k; c++)
            tsgs_model_free(subs[c]);
    }
    free(subs);
    if (stopped_early)
        *stopped_early = 0;
    return st;
}

static tsgs_status check_finite(const tsgs_dataset *ds, tsgs_error *err)
{
    for (size_t i = 0; i < ds->n; i++)
        for (size_t k = 0; k < ds->d; k++)
            if (!isfinite(ds->x[i * ds->d + k]))
                return tsgs__fail(err, TSGS_ERR_DATA, NULL, 0,
                                  "row %zu, feature %zu: value is not "
                                  "finite",
                                  i + 1, k + 1);
    return TSGS_OK;
}

long tsgs_train_steps(const tsgs_dataset *ds, const tsgs_params *p)
{
    return solver_of(p->solver)->steps(ds, p);
}

tsgs_status tsgs_train(const tsgs_dataset *ds, const tsgs_params *params,
                       const tsgs_train_hooks *hooks, tsgs_model **out,
                       int *stopped_early, tsgs_error *err)
{
    tsgs__train_opts opt = {0, SCALE_FLOOR, -1};
    return tsgs__train_ex(ds, params, hooks, &opt, out, stopped_early, err);
}

tsgs_status tsgs__train_ex(const tsgs_dataset *ds, const tsgs_params *params,
                           const tsgs_train_hooks *hooks,
                           const tsgs__train_opts *opt, tsgs_model **out,
                           int *stopped_early, tsgs_error *err)
{
    if (!ds || !params || !out)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_train: NULL argument");
    tsgs_status st = tsgs_params_check(params, err);
    if (st != TSGS_OK)
        return st;
    if (ds->n == 0 || ds->d == 0)
        return tsgs__fail(err, TSGS_ERR_DATA, NULL, 0,
                          "training data: %zu rows of %zu features: nothing "
                          "to train on",
                          ds->n, ds->d);
    if ((st = check_finite(ds, err)) != TSGS_OK)
        return st;
    tsgs__train_job job;
    memset(&job, 0, sizeof job);
    job.ds = ds;
    job.p = *params;
    job.hooks = hooks;
    job.opt = *opt;
    double *classes = NULL;
    size_t k = 0;
    if ((st = find_classes(ds, &classes, &k, err)) != TSGS_OK)
        return st;
    if (k > 2) {
        st = train_one_vs_rest(ds, params, hooks, opt, classes, k, out,
                               stopped_early, err);
        free(classes);
        return st;
    }
    job.label_neg = classes[0];
    job.label_pos = classes[1];
    free(classes);
    for (size_t i = 0; i < ds->n; i++)
        job.n_pos += ds->y[i] == job.label_pos;
    if ((st = tsgs__scaler_fit(ds, params->scale, &job.scaler, err)))
        return st;
    st = solver_of(params->solver)->train(&job, out, stopped_early, err);
    tsgs__scaler_clear(&job.scaler); /* a no-op once a model took it */
    return st;
}
