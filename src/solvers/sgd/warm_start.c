/* The stochastic solvers' start from the supervised solution: the exact
 * hinge-loss SVM on the labeled rows (dual coordinate descent,
 * svm_dual.c), over the model's own first random features, written into
 * the model's first blocks. SGD with a constant step approaches a hard
 * margin (the largest C of the grid, chosen on a few labels) only slowly:
 * on the checks' 2,000-row cod-rna split DSG made 79% after 3,000 steps
 * and 94% after 30,000. From the exact solution the steps refine it, and
 * TSG's annealed unlabeled term moves away from it (issue #7: "start from
 * the supervised solution"). */
#include "solvers/sgd/sgd.h"
#include "select/model_select.h"
#include "select/svm_dual.h"

#include <stdlib.h>

#define START_EPOCHS 1000 /* dual passes at most, as the safe solver's fit */
/* Column directions drawn between two polls of the stop, per thread:
 * about 25 ms (the feature rows' directions, as the grid makes them). */
#define FILL_WORK ((double)(1 << 19))

tsgs_status tsgs__warm_start(tsgs_model *m, long blocks,
                             const tsgs__rows *XL, const double *yl,
                             const double *wl, size_t nl, double c_lib,
                             uint64_t seed, int threads, tsgs__stop *stop,
                             tsgs_error *err)
{
    const long dirs = m->fs.dirs;
    const size_t ndirs = (size_t)(blocks * dirs);
    const size_t D = tsgs__feature_columns(&m->fs, ndirs);
    float *phi = malloc(sizeof(float) * nl * D);
    double *w = malloc(sizeof(double) * D);
    tsgs_status st = TSGS_OK;
    if (!phi || !w) {
        st = TSGS__NOMEM(err);
        goto done;
    }
    /* sparse rows: the model's column cache takes the start's directions
     * now (it would when the blocks are added) and serves the features */
    if ((st = tsgs__colcache_fill_stop(m->cc, &m->fs, (long)ndirs, threads,
                                       FILL_WORK * (threads > 1 ? threads : 1),
                                       stop, TSGS__STOP_REQUIRED, err)) ||
        (st = tsgs__feature_rows(&m->fs, ndirs, XL, threads, m->cc, stop,
                                 phi, err)))
        goto done;
    tsgs__dual_opts o = {START_EPOCHS, TSGS__DUAL_TOL, seed, NULL, wl, stop,
                         NULL, 0.0};
    double bias = 0.0;
    if ((st = tsgs__svm_dual_features(phi, D, yl, nl, c_lib, &o, w, &bias,
                                      err)))
        goto done;
    st = tsgs__model_set_weights(m, blocks, w, bias, err);
done:
    free(phi);
    free(w);
    return st;
}
