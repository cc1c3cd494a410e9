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

/* The two classes among the labeled rows: exactly two are required. */
static tsgs_status find_classes(const tsgs_dataset *ds, double *neg,
                                double *pos, size_t *npos, tsgs_error *err)
{
    int seen = 0;
    double a = 0, b = 0;
    for (size_t i = 0; i < ds->n; i++) {
        double y = ds->y[i];
        if (isnan(y))
            continue;
        if (!seen) {
            a = y;
            seen = 1;
        } else if (y != a && seen == 1) {
            b = y;
            seen = 2;
        } else if (seen == 2 && y != a && y != b) {
            return tsgs__fail(err, TSGS_ERR_DATA, NULL, 0,
                              "labels: found %g, %g and %g; this is a binary "
                              "classifier (two label values)",
                              a, b, y);
        }
    }
    if (seen == 0)
        return tsgs__fail(err, TSGS_ERR_DATA, NULL, 0,
                          "labels: no labeled rows to train on");
    if (seen == 1)
        return tsgs__fail(err, TSGS_ERR_DATA, NULL, 0,
                          "labels: every labeled row has label %g; training "
                          "needs both classes",
                          a);
    *neg = a < b ? a : b;
    *pos = a < b ? b : a;
    size_t n = 0;
    for (size_t i = 0; i < ds->n; i++)
        n += ds->y[i] == *pos;
    *npos = n;
    return TSGS_OK;
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
    if ((st = find_classes(ds, &job.label_neg, &job.label_pos, &job.n_pos,
                           err)) != TSGS_OK)
        return st;
    if ((st = tsgs__scaler_fit(ds, params->scale, &job.scaler, err)))
        return st;
    st = solver_of(params->solver)->train(&job, out, stopped_early, err);
    tsgs__scaler_clear(&job.scaler); /* a no-op once a model took it */
    return st;
}
