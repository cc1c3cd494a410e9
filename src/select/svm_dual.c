/* The exact hinge-loss SVM on few rows, by dual coordinate descent (Hsieh
 * et al., ICML 2008, LIBLINEAR's L1-loss dual solver):
 *
 *   min_alpha 1/2 alpha' Q alpha - sum alpha,  0 <= alpha_i <= C,
 *   Q_ij = y_i y_j (k(x_i, x_j) + 1),
 *
 * the "+ 1" being a bias learned as the weight of a constant feature.
 * Two forms: on a precomputed Gram matrix (model selection on the labeled
 * rows: n_l is small, so an epoch is O(n^2) with no feature dimension in
 * it) and on explicit feature rows (many labeled rows: an epoch is
 * O(n D)). Both visit coordinates in a seeded order, so the result is a
 * pure function of the input. */
#include "select/svm_dual.h"

#include "kernel/dense.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* magic[i] = tsgs__mod_magic(i) for i = 1 .. n, made once per solve:
 * the permutations below take a remainder by every i at every epoch, and
 * the divisions were most of an epoch once the coordinates settle (8% of
 * a 1-thread 1M-row training, in the (sigma, C) grid). */
static uint64_t *mod_magics(size_t n)
{
    uint64_t *magic = malloc(sizeof(uint64_t) * (n + 1));
    if (magic)
        for (size_t i = 1; i <= n; i++)
            magic[i] = tsgs__mod_magic(i);
    return magic;
}

/* A seeded permutation of 0..n-1 for epoch `epoch`: one counter-based
 * draw seeds a splitmix64 stream, cheap enough to run every epoch. */
static void permute(size_t *perm, size_t n, uint64_t seed, long epoch,
                    const uint64_t *magic)
{
    uint64_t x = tsgs__below(seed, TSGS__STREAM_DUAL, (uint64_t)epoch,
                             UINT64_MAX);
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    for (size_t i = n; i > 1; i--) {
        x += 0x9e3779b97f4a7c15ULL;
        uint64_t z = x;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        size_t j = (size_t)tsgs__mod_fast(z, i, magic[i]); /* z % i */
        size_t t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
}

struct tsgs__dual_orders {
    size_t n;
    uint64_t seed;
    long made, cap; /* epochs made, and room */
    size_t *perm;   /* epoch e's order at perm + e n */
    uint64_t *magic;
};

tsgs__dual_orders *tsgs__dual_orders_new(size_t n, uint64_t seed,
                                         long max_epochs)
{
    tsgs__dual_orders *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->n = n;
    o->seed = seed;
    o->cap = max_epochs > 0 ? max_epochs : 0;
    o->perm = malloc(sizeof(size_t) * (n && o->cap ? n * (size_t)o->cap : 1));
    o->magic = mod_magics(n);
    if (!o->perm || !o->magic) {
        tsgs__dual_orders_free(o);
        return NULL;
    }
    return o;
}

void tsgs__dual_orders_free(tsgs__dual_orders *o)
{
    if (!o)
        return;
    free(o->perm);
    free(o->magic);
    free(o);
}

/* Epoch `epoch`'s order of a fit: from o, the orders made for its seed
 * and size (made now when it is the next one), else made in scratch. */
static const size_t *epoch_order(tsgs__dual_orders *o, size_t n,
                                 uint64_t seed, long epoch, size_t *scratch,
                                 const uint64_t *magic)
{
    if (o && epoch < o->cap && epoch <= o->made) {
        size_t *p = o->perm + (size_t)epoch * n;
        if (epoch == o->made) {
            permute(p, n, seed, epoch, o->magic);
            o->made++;
        }
        return p;
    }
    permute(scratch, n, seed, epoch, magic);
    return scratch;
}

/* The projected gradient of coordinate i: zero where the bound holds it. */
static double projected(double g, double a, double C)
{
    if (a <= 0.0)
        return g < 0.0 ? g : 0.0;
    if (a >= C)
        return g > 0.0 ? g : 0.0;
    return g;
}

tsgs_status tsgs__svm_dual_gram(const float *Q, size_t n, double C,
                                const tsgs__dual_opts *opt, double *alpha,
                                tsgs_error *err)
{
    /* the orders made for this path, when they are for this fit */
    tsgs__dual_orders *orders =
        opt->orders && opt->orders->n == n && opt->orders->seed == opt->seed
            ? opt->orders
            : NULL;
    double *grad = malloc(sizeof(double) * (n ? n : 1));
    double *diag = malloc(sizeof(double) * (n ? n : 1));
    size_t *perm = malloc(sizeof(size_t) * (n ? n : 1));
    uint64_t *own = orders ? NULL : mod_magics(n);
    const uint64_t *magic = orders ? orders->magic : own;
    if (!grad || !diag || !perm || !magic) {
        free(grad);
        free(diag);
        free(perm);
        free(own);
        return TSGS__NOMEM(err);
    }
    /* Q's diagonal side by side: a coordinate the bound holds is then
     * passed over without a read of its row */
    for (size_t i = 0; i < n; i++)
        diag[i] = (double)Q[i * n + i];
    /* clip a warm start into the box of this C, then grad = Q alpha - 1 */
    const double *cw = opt->cw;
    for (size_t i = 0; i < n; i++) {
        const double Ci = cw ? C * cw[i] : C;
        alpha[i] = alpha[i] < 0.0 ? 0.0 : alpha[i] > Ci ? Ci : alpha[i];
        grad[i] = -1.0;
    }
    for (size_t i = 0; i < n; i++)
        if (alpha[i] != 0.0)
            for (size_t j = 0; j < n; j++)
                grad[j] += alpha[i] * (double)Q[i * n + j];
    tsgs_status st = TSGS_OK;
    for (long epoch = 0; epoch < opt->max_epochs; epoch++) {
        if (tsgs__stop_due(opt->stop, TSGS__STOP_REQUIRED)) {
            st = tsgs__stopped(err, "a supervised SVM's fit");
            break;
        }
        const size_t *order =
            epoch_order(orders, n, opt->seed, epoch, perm, magic);
        double pg_max = -INFINITY, pg_min = INFINITY;
        for (size_t k = 0; k < n; k++) {
            size_t i = order[k];
            double qii = diag[i];
            const double Ci = cw ? C * cw[i] : C;
            double pg = projected(grad[i], alpha[i], Ci);
            pg_max = pg > pg_max ? pg : pg_max;
            pg_min = pg < pg_min ? pg : pg_min;
            if (pg == 0.0 || qii <= 0.0)
                continue;
            double a = alpha[i] - grad[i] / qii;
            a = a < 0.0 ? 0.0 : a > Ci ? Ci : a;
            double delta = a - alpha[i];
            if (delta == 0.0)
                continue;
            alpha[i] = a;
            tsgs__axpy_fd(delta, Q + i * n, grad, n);
        }
        if (pg_max - pg_min < opt->tol)
            break;
    }
    free(grad);
    free(diag);
    free(perm);
    free(own);
    return st;
}

/* Dual coordinate descent over feature rows, as it goes (see
 * tsgs__svm_dual_features). */
typedef struct {
    const float *Phi;
    size_t D;
    const double *y;
    double C;
    const double *cw;         /* NULL, or each row's weight of C */
    const double *m, *xm;     /* the centre (NULL: none), x_i . m */
    const double *qii;
    double mm, beta;
    double *alpha, *w;
    double b;                 /* the constant feature's weight x beta */
    double sc, wrm;           /* centred: w's share of -m, wr . m */
} dual_state;

/* One epoch over the active coordinates active[perm[k]], k < na: each
 * one's projected gradient into the spread [*pg_min, *pg_max], its
 * update, or its shrinking (SIZE_MAX) where it is at a bound and points
 * out of the box beyond the last epoch's spread (pg_*_old). */
static void dual_epoch(dual_state *s, const size_t *perm, size_t *active,
                       size_t na, double pg_max_old, double pg_min_old,
                       double *pg_max, double *pg_min)
{
    const size_t D = s->D;
    const double *y = s->y, *m = s->m;
    double *alpha = s->alpha;
    for (size_t k = 0; k < na; k++) {
        size_t slot = perm[k], i = active[slot];
        const float *x = s->Phi + i * D;
        const double Ci = s->cw ? s->C * s->cw[i] : s->C;
        double wx = tsgs__dot_fd(x, s->w, D);
        if (m)
            wx += s->sc * (s->mm - s->xm[i]) - s->wrm;
        double g = y[i] * (s->b + wx) - 1.0;
        double pg = 0.0;
        if (alpha[i] <= 0.0) {
            if (g > pg_max_old) {
                active[slot] = SIZE_MAX; /* shrunk */
                continue;
            }
            pg = g < 0.0 ? g : 0.0;
        } else if (alpha[i] >= Ci) {
            if (g < pg_min_old) {
                active[slot] = SIZE_MAX;
                continue;
            }
            pg = g > 0.0 ? g : 0.0;
        } else {
            pg = g;
        }
        *pg_max = pg > *pg_max ? pg : *pg_max;
        *pg_min = pg < *pg_min ? pg : *pg_min;
        if (pg == 0.0)
            continue;
        double a = alpha[i] - g / s->qii[i];
        a = a < 0.0 ? 0.0 : a > Ci ? Ci : a;
        double delta = (a - alpha[i]) * y[i];
        alpha[i] = a;
        tsgs__axpy_fd(delta, x, s->w, D);
        s->b += delta * s->beta;
        if (m) {
            s->sc += delta;
            s->wrm += delta * s->xm[i];
        }
    }
}

/* Q's diagonal of the n rows of Phi (centred on m where not NULL: then
 * xm[i] = x_i . m) into qii; returns m . m. */
static double diagonal(const float *Phi, size_t D, size_t n, const double *m,
                       double beta, double *qii, double *xm)
{
    double mm = 0.0;
    for (size_t j = 0; m && j < D; j++)
        mm += m[j] * m[j];
    for (size_t i = 0; i < n; i++) {
        qii[i] = beta + tsgs__dot_f(Phi + i * D, Phi + i * D, D);
        if (m) {
            xm[i] = tsgs__dot_fd(Phi + i * D, m, D);
            qii[i] += mm - 2.0 * xm[i];
        }
    }
    return mm;
}

tsgs_status tsgs__svm_dual_features(const float *Phi, size_t D,
                                    const double *y, size_t n, double C,
                                    const tsgs__dual_opts *opt, double *w,
                                    double *bias, tsgs_error *err)
{
    double *alpha = calloc(n ? n : 1, sizeof(double));
    double *qii = malloc(sizeof(double) * (n ? n : 1));
    size_t *perm = malloc(sizeof(size_t) * (n ? n : 1));
    size_t *active = malloc(sizeof(size_t) * (n ? n : 1));
    uint64_t *magic = mod_magics(n);
    const double *m = opt->centre;
    double *xm = m ? malloc(sizeof(double) * (n ? n : 1)) : NULL;
    if (!alpha || !qii || !perm || !active || !magic || (m && !xm)) {
        free(alpha);
        free(qii);
        free(perm);
        free(active);
        free(magic);
        free(xm);
        return TSGS__NOMEM(err);
    }
    /* Centred (opt->centre): w = wr - sc m, where wr takes the rows as
     * given, so that w . (x_i - m) = wr . x_i - sc xm_i - wrm + sc mm
     * costs one dot product, as without a centre; mm, xm_i = x_i . m and
     * wrm = wr . m are kept beside it. */
    const double beta = opt->beta > 0.0 ? opt->beta : 1.0;
    const double mm = diagonal(Phi, D, n, m, beta, qii, xm);
    memset(w, 0, sizeof(double) * D);
    for (size_t i = 0; i < n; i++)
        active[i] = i;
    dual_state ds = {Phi, D, y, C, opt->cw, m, xm, qii, mm, beta,
                     alpha, w, 0.0, 0.0, 0.0};
    /* Shrinking (as LIBLINEAR): a coordinate at a bound whose gradient
     * points out of the box by more than the last epoch's spread is left
     * out until the active ones converge; then every coordinate is
     * checked again before stopping. */
    size_t na = n;
    double pg_max_old = INFINITY, pg_min_old = -INFINITY;
    tsgs_status st = TSGS_OK;
    for (long epoch = 0; epoch < opt->max_epochs; epoch++) {
        if (tsgs__stop_due(opt->stop, TSGS__STOP_REQUIRED)) {
            st = tsgs__stopped(err, "a supervised SVM's fit");
            break;
        }
        permute(perm, na, opt->seed, epoch, magic);
        double pg_max = -INFINITY, pg_min = INFINITY;
        dual_epoch(&ds, perm, active, na, pg_max_old, pg_min_old, &pg_max,
                   &pg_min);
        size_t keep = 0; /* compact the active list, order kept */
        for (size_t k = 0; k < na; k++)
            if (active[k] != SIZE_MAX)
                active[keep++] = active[k];
        na = keep;
        if (pg_max - pg_min < opt->tol || na == 0) {
            if (na == n)
                break; /* converged on every coordinate */
            na = n;    /* check them all again */
            for (size_t i = 0; i < n; i++)
                active[i] = i;
            pg_max_old = INFINITY;
            pg_min_old = -INFINITY;
            continue;
        }
        pg_max_old = pg_max > 0.0 ? pg_max : INFINITY;
        pg_min_old = pg_min < 0.0 ? pg_min : -INFINITY;
    }
    /* centred: w = wr - sc m; f(x) = w . (x - m) + b = w . x + b - w . m */
    for (size_t j = 0; m && j < D; j++) {
        w[j] -= ds.sc * m[j];
        ds.b -= w[j] * m[j];
    }
    *bias = ds.b;
    free(alpha);
    free(qii);
    free(perm);
    free(active);
    free(magic);
    free(xm);
    return st;
}
