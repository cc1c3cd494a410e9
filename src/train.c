/* The solvers: TSGS3VM (triply stochastic functional gradients: labeled
 * rows, unlabeled rows and random features sampled at every step) and its
 * supervised special case DSG.
 *
 * Per step t: predict the unlabeled mini-batch with the model so far (the
 * kernel, parallel over tiles); read the labeled predictions from a cache
 * of unscaled sums; form the loss derivatives; add a block of random
 * features (or, once the feature budget is full, update a uniformly chosen
 * old block: UDSG); decay every older coefficient through the lazy global
 * scale. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Below this the lazy scale is folded into the coefficients: far from
 * double's limits, and rare (amortised O(1) per step). */
#define SCALE_FLOOR 1e-150

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Everything a run needs besides the model. */
typedef struct {
    const tsgs_dataset *ds;
    tsgs_params p;      /* resolved */
    int threads;
    size_t d;
    size_t nl, nu;      /* labeled and unlabeled rows */
    size_t *lidx;       /* labeled row indices (in batch order) */
    size_t *uidx;       /* unlabeled row indices, reshuffled each pass */
    float *XL;          /* scaled labeled rows, nl x d */
    double *yl;         /* +1 / -1 */
    double *hl;         /* cached unscaled sums of the labeled rows */
    double *wl;         /* loss derivative weights of the labeled rows */
    float *XU;          /* scaled unlabeled mini-batch, bu x d */
    double *gu;         /* its decision values */
    double *wu;
    size_t bl, bu;      /* mini-batch sizes */
    size_t upos;        /* position in the current pass over uidx */
    long epoch;
    float *Wb, *Pb;     /* packed directions of the block being updated */
    float *cl, *sl;     /* block features of the labeled rows */
    float *cu, *su;     /* block features of the unlabeled mini-batch */
    double *dac, *das;  /* coefficient increments of the block */
    double *sorted;     /* balance: the mini-batch's sorted decisions */
    double mean_ema;    /* balance: running threshold */
    tsgs__train_opts opt;
} run_t;

static void run_free(run_t *r)
{
    free(r->lidx); free(r->uidx); free(r->XL); free(r->yl); free(r->hl);
    free(r->wl); free(r->XU); free(r->gu); free(r->wu); free(r->Wb);
    free(r->Pb); free(r->cl); free(r->sl); free(r->cu); free(r->su);
    free(r->dac); free(r->das); free(r->sorted);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
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

/* The kernel width when none is given: 1 / (2 sum_k var_k) of the scaled
 * rows, so that a typical pair of rows, at squared distance
 * 2 sum_k var_k, has k(x, x') = exp(-1). On z-scored data that is 1/(2d),
 * half LIBSVM's 1/d default, which assumes [-1, 1] scaling. */
static double auto_sigma(const tsgs_dataset *ds, const tsgs__scaler *sc)
{
    const size_t d = ds->d;
    const size_t stride = ds->n > 100000 ? ds->n / 100000 : 1;
    double *s1 = calloc(d, sizeof(double)), *s2 = calloc(d, sizeof(double));
    float *row = malloc(sizeof(float) * d);
    double total = 0.0;
    size_t n = 0;
    if (s1 && s2 && row) {
        for (size_t i = 0; i < ds->n; i += stride, n++) {
            tsgs__scaler_apply(sc, ds->x + i * d, d, row);
            for (size_t k = 0; k < d; k++) {
                s1[k] += row[k];
                s2[k] += (double)row[k] * row[k];
            }
        }
        for (size_t k = 0; k < d; k++) {
            double mean = s1[k] / (double)n;
            total += s2[k] / (double)n - mean * mean;
        }
    }
    free(s1);
    free(s2);
    free(row);
    return total > 0.0 ? 1.0 / (2.0 * total) : 1.0 / (double)d;
}

/* A new random order of the unlabeled rows for pass `epoch`. */
static void shuffle_pass(run_t *r)
{
    for (size_t i = r->nu; i > 1; i--) {
        size_t j = (size_t)tsgs__below(r->p.seed, TSGS__STREAM_EPOCH,
                                       ((uint64_t)r->epoch << 40) ^ i, i);
        size_t t = r->uidx[i - 1];
        r->uidx[i - 1] = r->uidx[j];
        r->uidx[j] = t;
    }
}

/* Gathers and scales the next unlabeled mini-batch into XU. */
static void next_unlabeled_batch(run_t *r, const tsgs_model *m)
{
    for (size_t i = 0; i < r->bu; i++) {
        if (r->upos == r->nu) {
            r->epoch++;
            shuffle_pass(r);
            r->upos = 0;
        }
        size_t row = r->uidx[r->upos++];
        tsgs__scaler_apply(&m->scaler, r->ds->x + row * r->d, r->d,
                           r->XU + i * r->d);
    }
}

/* Picks the labeled mini-batch of step t: the first bl entries of lidx
 * after a partial shuffle (all rows when bl == nl). */
static void next_labeled_batch(run_t *r, long t)
{
    if (r->bl == r->nl)
        return;
    for (size_t i = 0; i < r->bl; i++) {
        size_t j = i + (size_t)tsgs__below(r->p.seed, TSGS__STREAM_LABELED,
                                           ((uint64_t)t << 24) ^ i,
                                           r->nl - i);
        size_t tmp = r->lidx[i];
        r->lidx[i] = r->lidx[j];
        r->lidx[j] = tmp;
    }
}

static tsgs_status run_setup(run_t *r, tsgs_model *m, tsgs_error *err)
{
    const tsgs_dataset *ds = r->ds;
    const size_t d = r->d;
    const long ngb = (m->fs.dirs + TSGS__LANES - 1) / TSGS__LANES;
    const size_t wb = (size_t)ngb * TSGS__LANES;
    const int pair = m->fs.map == TSGS_FEATURES_PAIR;

    r->lidx = malloc(sizeof(size_t) * (r->nl ? r->nl : 1));
    r->uidx = malloc(sizeof(size_t) * (r->nu ? r->nu : 1));
    r->XL = malloc(sizeof(float) * (r->nl ? r->nl : 1) * d);
    r->yl = malloc(sizeof(double) * (r->nl ? r->nl : 1));
    r->hl = calloc(r->nl ? r->nl : 1, sizeof(double));
    r->wl = calloc(r->nl ? r->nl : 1, sizeof(double));
    r->XU = malloc(sizeof(float) * (r->bu ? r->bu : 1) * d);
    r->gu = malloc(sizeof(double) * (r->bu ? r->bu : 1));
    r->wu = malloc(sizeof(double) * (r->bu ? r->bu : 1));
    r->sorted = malloc(sizeof(double) * (r->bu ? r->bu : 1));
    r->Wb = malloc(sizeof(float) * wb * d);
    r->Pb = malloc(sizeof(float) * wb);
    r->cl = malloc(sizeof(float) * wb * (r->nl ? r->nl : 1));
    r->sl = malloc(sizeof(float) * wb * (r->nl ? r->nl : 1));
    r->cu = malloc(sizeof(float) * wb * (r->bu ? r->bu : 1));
    r->su = malloc(sizeof(float) * wb * (r->bu ? r->bu : 1));
    r->dac = calloc(wb, sizeof(double));
    r->das = calloc(wb, sizeof(double));
    if (!r->lidx || !r->uidx || !r->XL || !r->yl || !r->hl || !r->wl ||
        !r->XU || !r->gu || !r->wu || !r->Wb || !r->Pb || !r->cl || !r->sl ||
        !r->cu || !r->su || !r->dac || !r->das || !r->sorted)
        return TSGS__NOMEM(err);
    (void)pair;
    size_t il = 0, iu = 0;
    for (size_t i = 0; i < ds->n; i++) {
        if (isnan(ds->y[i])) {
            if (r->nu) /* DSG leaves the unlabeled rows out */
                r->uidx[iu++] = i;
        } else {
            tsgs__scaler_apply(&m->scaler, ds->x + i * d, d, r->XL + il * d);
            r->yl[il] = ds->y[i] == m->label_pos ? 1.0 : -1.0;
            r->lidx[il] = il;
            il++;
        }
    }
    r->epoch = 0;
    r->upos = 0;
    if (r->nu)
        shuffle_pass(r);
    return TSGS_OK;
}

/* One step of the solver: t is 1-based. */
static tsgs_status step(run_t *r, tsgs_model *m, long t, long T, long max_blocks,
                        tsgs_error *err)
{
    const tsgs_params *p = &r->p;
    const size_t d = r->d;
    const long dirs = m->fs.dirs;
    const long ngb = (dirs + TSGS__LANES - 1) / TSGS__LANES;
    const size_t wb = (size_t)ngb * TSGS__LANES;
    const int pair = m->fs.map == TSGS_FEATURES_PAIR;
    const double gamma = tsgs__step_size(p, t, T);
    const double cstar = p->c_star * tsgs__anneal_factor(p, t, T);
    const double k = m->scale * m->norm;
    tsgs_status st;

    /* 1. Predictions of both mini-batches with the model so far. */
    if (r->bu) {
        next_unlabeled_batch(r, m);
        tsgs__fview v = tsgs__model_view(m);
        st = tsgs__eval_sums(&v, r->XU, r->bu, r->threads, r->gu, err);
        if (st != TSGS_OK)
            return st;
        for (size_t i = 0; i < r->bu; i++)
            r->gu[i] *= k;
        if (p->balance) {
            /* Hold the share of unlabeled rows predicted positive to the
             * class ratio: the bias puts the (1 - ratio) quantile of the
             * mini-batch's decision values at 0. A running mean over
             * recent mini-batches tracks the model's drift. (Holding the
             * mean decision value instead, as TSVMs do, lets a few large
             * values drag the boundary.) */
            memcpy(r->sorted, r->gu, sizeof(double) * r->bu);
            qsort(r->sorted, r->bu, sizeof(double), cmp_double);
            double pos = (1.0 - p->balance_ratio) * (double)r->bu;
            size_t lo = pos < 1.0 ? 0 : (size_t)pos - 1;
            size_t hi = lo + 1 < r->bu ? lo + 1 : lo;
            double q = 0.5 * (r->sorted[lo] + r->sorted[hi]);
            double rho = 1.0 / (double)t > 0.1 ? 1.0 / (double)t : 0.1;
            r->mean_ema = (1.0 - rho) * r->mean_ema + rho * q;
            m->bias = -r->mean_ema;
        }
    }
    next_labeled_batch(r, t);

    /* 2. Loss derivatives, weighted as in the objective's mini-batch
     * means. Rows outside the labeled mini-batch weigh 0. */
    memset(r->wl, 0, sizeof(double) * r->nl);
    for (size_t i = 0; i < r->bl; i++) {
        size_t row = r->lidx[i];
        double f = k * r->hl[row] + m->bias;
        r->wl[row] = p->c / (double)r->bl * tsgs__hinge_grad(f, r->yl[row]);
    }
    for (size_t i = 0; i < r->bu; i++) {
        double f = r->gu[i] + m->bias;
        r->wu[i] = cstar / (double)r->bu *
                   tsgs__uloss_grad(p->uloss, p->ramp_s, f);
    }

    /* 3. The block this step writes: a new one while the budget allows,
     * else an old one drawn uniformly (UDSG). */
    long b;
    int fresh = m->nblocks < max_blocks;
    if (fresh) {
        st = tsgs__model_add_block(m, err);
        if (st != TSGS_OK)
            return st;
        b = m->nblocks - 1;
    } else {
        b = (long)tsgs__below(p->seed, TSGS__STREAM_REUSE, (uint64_t)t,
                              (uint64_t)m->nblocks);
    }
    tsgs__pack_directions(&m->fs, b * dirs, dirs, r->Wb, r->Pb);
    tsgs__eval_features(d, r->Wb, r->Pb, ngb, r->XL, r->nl, r->threads,
                        r->cl, pair ? r->sl : NULL);
    tsgs__eval_features(d, r->Wb, r->Pb, ngb, r->XU, r->bu, r->threads,
                        r->cu, pair ? r->su : NULL);

    /* 4. The functional gradient projected on the block:
     * alpha_j = -(gamma / D) * norm * sum_i w_i phi_j(x_i). The decay of
     * every older coefficient by (1 - gamma) is one multiplication of the
     * lazy scale (the explicit loop is kept as the tests' reference). */
    if (r->opt.explicit_decay) {
        long n = tsgs__model_dirs(m);
        for (long g = 0; g < n; g++) {
            m->ac[g] *= 1.0 - gamma;
            if (pair)
                m->as[g] *= 1.0 - gamma;
        }
        for (size_t i = 0; i < r->nl; i++)
            r->hl[i] *= 1.0 - gamma;
    } else {
        m->scale *= 1.0 - gamma;
    }
    const double coef = -gamma / (double)dirs * m->norm / m->scale;
    for (long j = 0; j < dirs; j++) {
        double gc = 0.0, gs = 0.0;
        for (size_t i = 0; i < r->bl; i++) {
            size_t row = r->lidx[i];
            gc += r->wl[row] * r->cl[row * wb + (size_t)j];
            if (pair)
                gs += r->wl[row] * r->sl[row * wb + (size_t)j];
        }
        for (size_t i = 0; i < r->bu; i++) {
            gc += r->wu[i] * r->cu[i * wb + (size_t)j];
            if (pair)
                gs += r->wu[i] * r->su[i * wb + (size_t)j];
        }
        r->dac[j] = coef * gc;
        r->das[j] = coef * gs;
        m->ac[b * dirs + j] += r->dac[j];
        if (pair)
            m->as[b * dirs + j] += r->das[j];
    }

    /* 5. Keep the labeled predictions current: O(n_l r) per step. */
    for (size_t i = 0; i < r->nl; i++) {
        double s = 0.0;
        for (long j = 0; j < dirs; j++) {
            s += r->dac[j] * r->cl[i * wb + (size_t)j];
            if (pair)
                s += r->das[j] * r->sl[i * wb + (size_t)j];
        }
        r->hl[i] += s;
    }

    if (m->scale < r->opt.scale_floor) {
        double s = m->scale;
        tsgs__model_fold_scale(m);
        for (size_t i = 0; i < r->nl; i++)
            r->hl[i] *= s;
    }
    if (fresh)
        return tsgs__model_cache_sync(m, err);
    return TSGS_OK;
}

/* The running threshold lags a model that still moves; the returned model
 * meets the balance exactly on a sample of unlabeled rows. */
#define BALANCE_SAMPLE 8192

static tsgs_status final_balance(run_t *r, tsgs_model *m, tsgs_error *err)
{
    size_t n = r->nu < BALANCE_SAMPLE ? r->nu : BALANCE_SAMPLE;
    float *X = malloc(sizeof(float) * n * r->d);
    double *g = malloc(sizeof(double) * n);
    tsgs_status st = TSGS_OK;
    if (!X || !g) {
        st = TSGS__NOMEM(err);
        goto done;
    }
    /* Spread over the whole current pass order: a seeded sample. */
    for (size_t i = 0; i < n; i++) {
        size_t row = r->uidx[i * (r->nu / n)];
        tsgs__scaler_apply(&m->scaler, r->ds->x + row * r->d, r->d,
                           X + i * r->d);
    }
    double bias = m->bias;
    m->bias = 0.0;
    st = tsgs__model_decision(m, X, n, r->threads, g, err);
    m->bias = bias;
    if (st != TSGS_OK)
        goto done;
    qsort(g, n, sizeof(double), cmp_double);
    double pos = (1.0 - r->p.balance_ratio) * (double)n;
    size_t lo = pos < 1.0 ? 0 : (size_t)pos - 1;
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    m->bias = -0.5 * (g[lo] + g[hi]);
done:
    free(X);
    free(g);
    return st;
}

static double monitor_accuracy(const tsgs_model *m, const tsgs_dataset *mon,
                               int threads)
{
    double *dec = malloc(sizeof(double) * (mon->n ? mon->n : 1));
    if (!dec)
        return -1.0;
    double acc = -1.0;
    if (tsgs_predict(m, mon, threads, dec, NULL) == TSGS_OK)
        acc = tsgs_accuracy(m, mon, dec, NULL);
    free(dec);
    return acc;
}

tsgs_status tsgs_train(const tsgs_dataset *ds, const tsgs_params *params,
                       const tsgs_train_hooks *hooks, tsgs_model **out,
                       int *stopped_early, tsgs_error *err)
{
    tsgs__train_opts opt = {0, SCALE_FLOOR};
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
    double neg = 0, pos = 0;
    size_t npos = 0;
    if ((st = find_classes(ds, &neg, &pos, &npos, err)) != TSGS_OK)
        return st;

    run_t r;
    memset(&r, 0, sizeof r);
    r.ds = ds;
    r.p = *params;
    r.opt = *opt;
    r.d = ds->d;
    r.nl = tsgs_dataset_labeled_count(ds);
    r.nu = params->solver == TSGS_SOLVER_DSG ? 0 : ds->n - r.nl;
    tsgs_params *p = &r.p;

    /* Resolve the derived settings; the model records them. */
    tsgs__scaler scaler;
    if ((st = tsgs__scaler_fit(ds, p->scale, &scaler, err)) != TSGS_OK)
        return st;
    if (p->sigma <= 0.0)
        p->sigma = auto_sigma(ds, &scaler);
    if (p->c_star < 0.0)
        p->c_star = r.nu ? p->c * (double)r.nl / (double)r.nu : 0.0;
    if (p->balance_ratio < 0.0)
        p->balance_ratio = (double)npos / (double)r.nl;
    if (p->max_features < 0)
        p->max_features = (long)ceil(sqrt((double)(r.nl + r.nu)));
    if (r.nu == 0)
        p->balance = 0;
    r.bl = (size_t)p->batch_labeled < r.nl ? (size_t)p->batch_labeled : r.nl;
    r.bu = (size_t)p->batch_unlabeled < r.nu ? (size_t)p->batch_unlabeled
                                             : r.nu;
    long T = p->iterations;
    if (T == 0) {
        double rows = r.nu ? (double)r.nu : (double)r.nl;
        double batch = r.nu ? (double)r.bu : (double)r.bl;
        T = (long)ceil(p->passes * rows / batch);
        if (T < 1)
            T = 1;
    }
    if (p->step == TSGS_STEP_THEORY && tsgs__step_size(p, 1, T) >= 1.0) {
        tsgs__scaler_clear(&scaler);
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "theta = %g: the theory step theta * T^-3/4 = %g "
                          "for T = %ld must be below 1",
                          p->theta, tsgs__step_size(p, 1, T), T);
    }
    long max_blocks = p->max_features > 0
                          ? (p->max_features + p->block_size - 1) /
                                p->block_size
                          : T;
    if (max_blocks < 1)
        max_blocks = 1;
    r.threads = tsgs__threads_resolve(p->threads);
    r.mean_ema = 0.0;

    tsgs_model *m = NULL;
    st = tsgs__model_new(p, ds->d, max_blocks < T ? max_blocks : T, &m, err);
    if (st != TSGS_OK) {
        tsgs__scaler_clear(&scaler);
        return st;
    }
    m->label_neg = neg;
    m->label_pos = pos;
    m->scaler = scaler;
    if ((st = run_setup(&r, m, err)) != TSGS_OK)
        goto fail;
    tsgs__bind_threads(r.threads, p->bind, hooks ? hooks->warn : NULL,
                       hooks ? hooks->user : NULL);
    /* Every thread reads random rows: spread their pages over the NUMA
     * nodes the threads run on (a no-op on one node). */
    tsgs__place_interleaved(ds->x, ds->n * ds->d * sizeof(float), r.threads,
                            p->bind);

    const double t_start = now_s();
    int stopped = 0;
    long t;
    for (t = 1; t <= T; t++) {
        if ((st = step(&r, m, t, T, max_blocks, err)) != TSGS_OK)
            goto fail;
        int report = hooks && hooks->progress && hooks->progress_every > 0 &&
                     t % hooks->progress_every == 0;
        int measure = hooks && hooks->monitor && hooks->monitor_every > 0 &&
                      t % hooks->monitor_every == 0;
        if (hooks && hooks->should_stop && hooks->should_stop(hooks->user)) {
            stopped = 1;
            break;
        }
        if ((report || measure) && t < T) {
            tsgs_progress pr;
            pr.iteration = t;
            pr.iterations = T;
            pr.elapsed_s = now_s() - t_start;
            pr.rows_per_s = (double)t * (double)(r.bl + r.bu) /
                            (pr.elapsed_s > 0 ? pr.elapsed_s : 1e-9);
            pr.features = tsgs_model_feature_count(m);
            pr.monitor_accuracy =
                measure ? monitor_accuracy(m, hooks->monitor, r.threads)
                        : -1.0;
            if (hooks->progress)
                hooks->progress(&pr, hooks->user);
        }
    }
    if ((st = tsgs__model_cache_sync(m, err)) != TSGS_OK)
        goto fail;
    if (m->panel)
        tsgs__place_interleaved(m->panel, sizeof(float) * m->d *
                                              (size_t)m->cap_cached_dirs,
                                r.threads, p->bind);
    if (p->balance && (st = final_balance(&r, m, err)) != TSGS_OK)
        goto fail;
    if (hooks && hooks->progress) {
        tsgs_progress pr;
        pr.iteration = stopped ? t : T;
        pr.iterations = T;
        pr.elapsed_s = now_s() - t_start;
        pr.rows_per_s = (double)pr.iteration * (double)(r.bl + r.bu) /
                        (pr.elapsed_s > 0 ? pr.elapsed_s : 1e-9);
        pr.features = tsgs_model_feature_count(m);
        pr.monitor_accuracy =
            hooks->monitor ? monitor_accuracy(m, hooks->monitor, r.threads)
                           : -1.0;
        hooks->progress(&pr, hooks->user);
    }
    m->params = *p;
    run_free(&r);
    if (stopped_early)
        *stopped_early = stopped;
    *out = m;
    return TSGS_OK;
fail:
    run_free(&r);
    tsgs_model_free(m);
    return st;
}
