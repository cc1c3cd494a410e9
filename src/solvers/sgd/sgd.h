/* sgd.h: what the stochastic solvers share: the feature cache, losses,
 * step sizes, the checking rule and the supervised warm start.
 * Internal (tsgs__ names), not installed; internal.h includes every
 * layer. */
#ifndef TSGS_SOLVERS_SGD_SGD_H
#define TSGS_SOLVERS_SGD_SGD_H

#include "model/model.h"

/* -------------------------------------------------- core: featcache.c */

/* Features of a fixed set of sparse rows (a run's unlabeled rows) on the
 * directions made so far, kept across steps: row i's cos on direction g at
 * cv[i * stride + g] (sin: sv, PAIR features), for g < filled. */
typedef struct tsgs__featcache {
    size_t n;           /* rows */
    long cap;           /* directions it can hold */
    long stride;        /* floats per row (cap, padded) */
    long filled;        /* directions [0, filled) computed */
    float *cv, *sv;     /* sv NULL for COS features */
    uint32_t *slot;     /* dataset row -> its row here; UINT32_MAX: none */
    tsgs__rows R;       /* the rows, scaled: new directions are made on them */
} tsgs__featcache;

/* Bytes of a cache of n rows for max_dirs directions. */
double tsgs__featcache_bytes(size_t n, long max_dirs, int pair);
/* A cache of ds's rows rows[0 .. n) scaled by sc, for up to max_dirs
 * directions; *out = NULL (and TSGS_OK) when it needs more than `bytes`
 * or the rows are not sparse. */
tsgs_status tsgs__featcache_new(const tsgs_dataset *ds,
                                const tsgs__scaler *sc, const size_t *rows,
                                size_t n, long max_dirs, int pair,
                                double bytes, tsgs__featcache **out,
                                tsgs_error *err);
void tsgs__featcache_free(tsgs__featcache *fc);
/* Team: the features of directions [filled, ndirs) of fs (ndirs <= cap),
 * through the column cache cc (may be NULL); ends with a barrier. stop
 * (NULL: none) as tsgs__sparse_features_team's: a fill cut by it (*failed
 * 2) or out of memory (1) leaves filled as it was. */
void tsgs__featcache_fill_team(tsgs__featcache *fc, const tsgs__fspec *fs,
                               const tsgs__colcache *cc, long ndirs,
                               tsgs__stop *stop, int *failed);
/* Team, no barrier: out[i] = tsgs__sparse_sums' value for dataset row
 * rows[i] (cached, v->ndirs <= filled), in the same order. */
void tsgs__featcache_sums_team(const tsgs__featcache *fc,
                               const tsgs__fview *v, const size_t *rows,
                               size_t n, double *out);
/* Team, no barrier: cached features of directions [g0, g0 + count) of
 * dataset rows rows[0 .. n) into cosv / sinv (sinv may be NULL), rows
 * width apart. */
void tsgs__featcache_block_team(const tsgs__featcache *fc,
                                const size_t *rows, size_t n, long g0,
                                long count, size_t width, float *cosv,
                                float *sinv);

/* ------------------------------------------------------- core: loss.c */

/* Subgradient of the hinge max(0, 1 - y r) with respect to r. */
double tsgs__hinge_grad(double r, double y);
double tsgs__hinge(double r, double y);
/* Unlabeled loss u(r) and its derivative u'(r). */
double tsgs__uloss(tsgs_uloss kind, double ramp_s, double r);
double tsgs__uloss_grad(tsgs_uloss kind, double ramp_s, double r);
/* out[i] = weight * u'(g[i] + bias) for a batch of n decision values. */
void tsgs__uloss_grads(tsgs_uloss kind, double ramp_s, const double *g,
                       double bias, double weight, size_t n, double *out);

/* --------------------------------------------------- core: schedule.c */

/* Step size gamma_t (t = 1 .. T). */
double tsgs__step_size(const tsgs_params *p, long t, long T);
/* Factor in [0, 1] applied to C* at iteration t: ramps linearly from 0 over
 * the first p->anneal * T iterations. */
double tsgs__anneal_factor(const tsgs_params *p, long t, long T);

/* ------------------------------------------------- solvers/sgd_step.c */

/* The checking rule's step (CDSG): the largest eta <= gamma with
 * 2 |beta + eta g|^2 + 2 eta^2 V <= |beta|^2 + gamma^2 |g|^2, given
 * |beta|^2, beta.g, |g|^2 and V; <= 0 when no positive step passes. */
double tsgs__checked_step(double beta2, double beta_g, double g2, double V,
                          double gamma);

/* --------------------------------------------------- core: warm_start.c */

/* The exact SVM (per-row hinge weight c_lib, LIBSVM's C; times wl[i],
 * the class weights, unless NULL) on the labeled rows XL (nl x d, scaled)
 * with classes yl, over the first `blocks` blocks
 * of m's random features: m gets those blocks, their coefficients (scale
 * folded to 1) and the bias. stop (NULL: none) polled as
 * tsgs__feature_rows and the dual fit poll it. */
tsgs_status tsgs__warm_start(tsgs_model *m, long blocks,
                             const tsgs__rows *XL, const double *yl,
                             const double *wl, size_t nl, double c_lib,
                             uint64_t seed, int threads, tsgs__stop *stop,
                             tsgs_error *err);

#endif /* TSGS_SOLVERS_SGD_SGD_H */
