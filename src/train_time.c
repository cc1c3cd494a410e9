/* The time a training run spends making random feature directions,
 * estimated before it starts: the part of a run that grows with the
 * input's width. Each direction is as wide as the input (dense rows) or
 * as the columns its sparse rows use, and the default makes some 10,000
 * of them: on a CSV of 1,000,000 columns that alone is most of an hour,
 * whatever the number of rows (issue #30), while at a few hundred columns
 * it is a fraction of a second. The rest of the run is left out: for a
 * caller to refuse a run that cannot end in reasonable time. */
#include "solvers/solver.h"

#include <math.h>

/* Nanoseconds per coordinate on one core of the 2-vCPU machine of
 * docs/performance.md ("Orthogonal directions on wide dense rows"): an
 * iid coordinate is a Philox draw and half a Box-Muller pair; an
 * orthogonal one adds its share of the chi length's draws and its
 * Gram-Schmidt projections, half the group on average
 * (bench_directions_speed: 79-92 ns at a group of 128, up to 3,000
 * columns; more where the rows outgrow the caches). */
#define NS_DRAW 25.0
#define NS_ORTHOGONAL_BASE 50.0
#define NS_PER_PROJECTION 0.3

tsgs_status tsgs_train_seconds(const tsgs_dataset *ds, const tsgs_params *p,
                               double *seconds, tsgs_error *err)
{
    if (!ds || !p || !seconds)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_train_seconds: NULL argument");
    const double dirs = tsgs__solver_of(p->solver)->directions(ds, p);
    double width, ns;
    if (tsgs__estimate_sparse(ds, p)) {
        /* the columns of the rows it makes features of, each once: at
         * most the dimension, and no more than those rows' non-zeros
         * (the safe solver's labeled rows and unlabeled sample; the
         * stochastic solvers' feature cache: every row) */
        const double n = (double)ds->n, nl = (double)tsgs_dataset_labeled_count(ds);
        double rows = n;
        if (p->solver == TSGS_SOLVER_SAFE && p->unlabeled_sample > 0)
            rows = nl + fmin(n - nl, (double)p->unlabeled_sample);
        const double per_row = n > 0.0 ? (double)tsgs__dataset_nnz(ds) / n : 0.0;
        width = fmin((double)ds->d, per_row * rows);
        ns = NS_DRAW;
    } else {
        const tsgs__fspec fs = tsgs__fspec_of(p, ds->d);
        width = (double)ds->d;
        ns = fs.orthogonal ? NS_ORTHOGONAL_BASE +
                                 NS_PER_PROJECTION * (double)fs.group
                           : NS_DRAW;
    }
    const int threads = tsgs__threads_resolve(p->threads);
    *seconds = dirs * width * ns * 1e-9 / (double)(threads > 0 ? threads : 1);
    return TSGS_OK;
}
