/* Model selection on the labeled rows, shared by the solvers that choose
 * their own C and sigma: the kernel width from the data's median distance,
 * the random-feature rows, and the grid of (sigma, C) scored by repeated
 * stratified cross-validation of the exact hinge SVM on the features' own
 * Gram matrix (svm_dual.c), smoothed over the grid. */
#include "select/model_select.h"

#include "common/trace.h"
#include "kernel/centre.h"
#include "kernel/dense.h"
#include "select/svm_dual.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GRID_REPEATS 3     /* CV repeats averaged per grid point */
#define MEDIAN_ROWS 1000   /* rows the median distance is taken over */
#define FOLDS 5

/* sigma multipliers 2^-8, 2^-6, ..., 2^4 and LIBSVM's C 2^-5 ... 2^15 */
static const double SIGMA_LOG2[] = {-8, -6, -4, -2, 0, 2, 4};
static const double C_LOG2[] = {-5, -3, -1, 1, 3, 5, 7, 9, 11, 13, 15};
#define N_SIGMA (sizeof SIGMA_LOG2 / sizeof SIGMA_LOG2[0])
#define N_C (sizeof C_LOG2 / sizeof C_LOG2[0])
_Static_assert(N_SIGMA == TSGS__GRID_SIGMAS, "memory.c counts the axis");

/* The smallest of y[0..n) above `above`; INFINITY when none is: the
 * classes in ascending order, one call each, without sorting a copy. */
static double next_label(const double *y, size_t n, double above)
{
    double up = INFINITY;
    for (size_t i = 0; i < n; i++)
        if (y[i] > above && y[i] < up)
            up = y[i];
    return up;
}

/* Stratified folds of n labeled rows: per class a seeded shuffle dealt
 * round-robin, the deal continuing across classes (ascending). Classes
 * +1 / -1 keep the shuffle tags they have always had (models and CV
 * figures stay as they were); other labels take tag * K + their rank. */
void tsgs__stratified_folds(const double *y, size_t n, int k, uint64_t seed,
                            uint64_t tag, size_t *scratch, int *fold)
{
    int binary = 1;
    for (size_t i = 0; i < n && binary; i++)
        binary = y[i] == 1.0 || y[i] == -1.0;
    int next = 0, rank = 0;
    double label = -INFINITY;
    while ((label = next_label(y, n, label)) != INFINITY) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (y[i] == label)
                scratch[m++] = i;
        rank++;
        uint64_t stream = binary ? tag * 2 + (uint64_t)(label > 0.0)
                                 : tag * (uint64_t)n + (uint64_t)(rank - 1);
        tsgs__seeded_shuffle(scratch, m, seed, stream, 1);
        for (size_t i = 0; i < m; i++) {
            fold[scratch[i]] = next;
            next = (next + 1) % k;
        }
    }
}

/* Rows of the pairs' tiles: their sums run side by side. */
#define PAIR_TILE 256

/* The squared distances of the pairs (a, b), a < b, of m dense rows given
 * column by column (ZT: column k of row a at ZT[k m + a]) into dist, pair
 * (a, b) at a m - a (a + 1) / 2 + b - a - 1, each the sum that
 * tsgs__rows_sqdist makes, in the same order of columns: the same bits.
 * A pair's sum is a chain of d dependent adds; one at a time, the chains
 * were 8-12 ms of every default run at 1,000 rows (serial), so the team
 * splits the rows a and each runs PAIR_TILE chains side by side. Returns
 * the count of distances above 0. */
static size_t dense_pair_distances(const float *ZT, size_t m, size_t d,
                                   int threads, double *dist)
{
    size_t above = 0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) if (threads > 1 && m > 64) \
    schedule(dynamic, 8) reduction(+ : above)
#endif
    for (size_t a = 0; a < m; a++) {
        /* pair (a, b) at base + b (size_t arithmetic wraps back) */
        const size_t base = a * m - a * (a + 1) / 2 - a - 1;
        for (size_t b0 = a + 1; b0 < m; b0 += PAIR_TILE) {
            const size_t nb = m - b0 < PAIR_TILE ? m - b0 : PAIR_TILE;
            double s[PAIR_TILE];
            for (size_t j = 0; j < nb; j++)
                s[j] = 0.0;
            for (size_t k = 0; k < d; k++) {
                const double xa = (double)ZT[k * m + a];
                const float *zb = ZT + k * m + b0;
#ifdef _OPENMP
#pragma omp simd
#endif
                for (size_t j = 0; j < nb; j++) {
                    double t = xa - (double)zb[j];
                    s[j] += t * t;
                }
            }
            for (size_t j = 0; j < nb; j++) {
                dist[base + b0 + j] = s[j];
                above += s[j] > 0.0;
            }
        }
    }
    return above;
}

/* The column-by-column copy of the sampled dense rows takes at most this
 * many floats (64 MB); wider rows take the pairs one at a time. */
#define PAIR_COPY_MAX ((size_t)1 << 24)

/* The squared distances above 0 between the m rows idx[0..m) of A then B
 * (an index i >= A->n is row i - A->n of B) into dist, pairs (a, b), a < b,
 * in the order of a then b; returns their count. Every way below gives
 * the same values. */
static size_t pair_distances(const tsgs__rows *XA, const tsgs__rows *XB,
                             size_t d, const size_t *idx, size_t m,
                             int threads, double *dist)
{
    const size_t na = XA->n, cells = m * d;
    const int dense = (na == 0 || XA->x) && (XB->n == 0 || XB->x);
    float *ZT = dense && cells <= PAIR_COPY_MAX
                    ? malloc(sizeof(float) * (cells ? cells : 1))
                    : NULL;
    if (ZT) {
        for (size_t a = 0; a < m; a++) {
            const float *x = idx[a] < na ? XA->x + idx[a] * d
                                         : XB->x + (idx[a] - na) * d;
            for (size_t k = 0; k < d; k++)
                ZT[k * m + a] = x[k];
        }
        const size_t npairs = m * (m - 1) / 2;
        size_t k = dense_pair_distances(ZT, m, d, threads, dist);
        free(ZT);
        if (k < npairs) /* equal rows: their zeros out, the order kept */
            for (size_t i = 0, j = 0; i < npairs; i++)
                if (dist[i] > 0.0)
                    dist[j++] = dist[i];
        return k;
    }
    size_t k = 0; /* sparse or wide rows (or no memory for the copy) */
    for (size_t a = 0; a < m; a++) {
        const tsgs__rows *A = idx[a] < na ? XA : XB;
        const size_t ia = idx[a] < na ? idx[a] : idx[a] - na;
        for (size_t b = a + 1; b < m; b++) {
            const tsgs__rows *B = idx[b] < na ? XA : XB;
            const size_t ib = idx[b] < na ? idx[b] : idx[b] - na;
            double t = tsgs__rows_sqdist(A, ia, B, ib);
            if (t > 0.0)
                dist[k++] = t;
        }
    }
    return k;
}

/* sigma0 = 1 / the median squared distance between rows of a seeded
 * sample of labeled and unlabeled rows: the kernel's scale then matches
 * the data's, whatever its units or dimension. */
tsgs_status tsgs__median_sigma(const tsgs__rows *XA, const tsgs__rows *XB,
                               size_t d, uint64_t seed, int threads,
                               double *sigma, tsgs_error *err)
{
    const size_t na = XA->n, nb = XB->n;
    size_t n = na + nb;
    size_t m = n < MEDIAN_ROWS ? n : MEDIAN_ROWS;
    size_t *idx = malloc(sizeof(size_t) * (n ? n : 1));
    size_t npairs = m ? m * (m - 1) / 2 : 0;
    double *dist = malloc(sizeof(double) * (npairs ? npairs : 1));
    if (!idx || !dist) {
        free(idx);
        free(dist);
        return TSGS__NOMEM(err);
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    tsgs__seeded_shuffle(idx, n, seed, 2, threads);
    size_t k = pair_distances(XA, XB, d, idx, m, threads, dist);
    /* the median by selection, not a sort of up to 499,500 distances (a
     * serial 40-50 ms of every run); the same value */
    double med = 0.0;
    if (k > 0) {
        double upper = tsgs__select_kth(dist, k, k / 2);
        /* the lower middle one: the largest of the part below */
        double lower = upper;
        if (k % 2 == 0) {
            lower = dist[0];
            for (size_t i = 1; i < k / 2; i++)
                lower = dist[i] > lower ? dist[i] : lower;
        }
        med = k % 2 ? upper : 0.5 * (lower + upper);
    }
    free(idx);
    free(dist);
    /* identical rows everywhere: LIBSVM's 1 / d */
    *sigma = med > 0.0 ? 1.0 / med : 1.0 / (double)d;
    return TSGS_OK;
}

/* Writes the scaled feature rows of m rows for directions [j0, j0 + cnt)
 * from the kernel's cos / sin values (ld apart) into out (D apart; the
 * sin half from column ndirs on), rows shared by the threads: on one
 * thread, the copy of 2,200 rows of 1,024 features was most of the
 * default's feature stage at 16 threads (8 of 10 ms). */
static void put_features(const float *cv, const float *sv, size_t ld,
                         size_t m, size_t j0, size_t cnt, size_t ndirs,
                         size_t D, float k, int threads, float *out)
{
    (void)threads;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static) \
    if (threads > 1 && m * cnt > 65536)
#endif
    for (size_t i = 0; i < m; i++) {
        float *o = out + i * D + j0;
        for (size_t j = 0; j < cnt; j++) {
            o[j] = k * cv[i * ld + j];
            if (sv)
                o[ndirs + j] = k * sv[i * ld + j];
        }
    }
}

/* The column cache of tsgs__feature_rows on sparse rows, bytes at most
 * (the grid holds its draws, twice that, and one such cache per sigma
 * being evaluated: memory.c counts them). */
#define FEATURE_ROWS_CACHE TSGS__SPARSE_ROWS_CACHE

/* A kernel call of tsgs__feature_rows covers about this much work a
 * thread, so that a stop is seen within a fraction of a second however
 * wide the rows (one call over every direction of 1,024 rows of 10^6
 * features ran for minutes): dense rows, multiply-adds; sparse rows,
 * entries x directions, each a direction coordinate looked up or, for a
 * column the cache lacks, drawn (about 0.25 us: 2^21 of those are 0.5 s).
 * Sparse calls cover whole task chunks of the kernel's directions
 * (TSGS__SPARSE_DIR_CHUNK), as one call over all of them would, unless a
 * single row is too wide for one: then fewer directions, but at least
 * CALL_DIRS_WIDE, since each call sorts the row's columns and makes its
 * scratch again (0.45 s for a row of 900,000 entries, against 0.25 s a
 * direction: 8 directions a call cost 20% more than one call for all).
 * Rows per call at most CALL_ROWS. */
#define CALL_WORK_DENSE ((double)(1 << 26))
#define CALL_WORK_SPARSE ((double)(1 << 21))
#define CALL_DIRS_WIDE 8
#define CALL_ROWS 1024

/* Entries of rows [i0, i0 + m) of X (dense: m x d). */
static double rows_work(const tsgs__rows *X, size_t i0, size_t m)
{
    return X->x ? (double)m * (double)X->d
                : (double)(X->ptr[i0 + m] - X->ptr[i0]);
}

/* The fewest directions a call covers: a lane group (dense rows), a task
 * chunk (sparse). */
static double min_dirs(const tsgs__rows *X)
{
    return X->x ? TSGS__LANES : TSGS__SPARSE_DIR_CHUNK;
}

/* Rows from i0 for the next calls: up to CALL_ROWS, fewer where
 * min_dirs directions over them would exceed budget; at least one. */
static size_t call_rows(const tsgs__rows *X, size_t i0, double budget)
{
    const size_t cap = X->n - i0 < CALL_ROWS ? X->n - i0 : CALL_ROWS;
    size_t m = 1;
    if (X->x) {
        const double fit = budget / (min_dirs(X) * rows_work(X, 0, 1) + 1.0);
        m = fit >= (double)cap ? cap : fit >= 1.0 ? (size_t)fit : 1;
    }
    while (!X->x && m < cap &&
           rows_work(X, i0, m + 1) * min_dirs(X) <= budget)
        m++;
    return m;
}

/* Directions a call over rows [i0, i0 + m) covers: whole multiples of
 * min_dirs within budget, at most W; where even min_dirs exceed it (a
 * single wide row), fewer: a lane group of dense rows, CALL_DIRS_WIDE or
 * more of sparse ones. */
static size_t call_dirs(const tsgs__rows *X, size_t i0, size_t m, size_t W,
                        double budget)
{
    const double work = rows_work(X, i0, m), unit = min_dirs(X);
    const double fit = work > 0.0 ? budget / work : (double)W;
    size_t c;
    if (fit >= (double)W)
        c = W;
    else if (fit >= unit)
        c = (size_t)(fit / unit) * (size_t)unit;
    else if (X->x)
        c = TSGS__LANES;
    else
        c = fit >= CALL_DIRS_WIDE ? (size_t)fit : CALL_DIRS_WIDE;
    return c < W ? c : W;
}

/* What the calls of tsgs__feature_rows share. */
typedef struct {
    const tsgs__fspec *fs;
    size_t ndirs, W, D;
    const float *panel, *phase; /* dense rows */
    const tsgs__colcache *cc;   /* sparse rows */
    int threads;
    float *cv, *sv;             /* CALL_ROWS x W each; sv NULL: COS */
    float k;                    /* the features' scale */
} feature_calls;

/* The feature rows of rows [i0, i0 + m) of X into out, in calls over
 * chunks of the directions, stop polled before each (grace: see
 * tsgs__stop_due). */
static tsgs_status feature_chunk(const feature_calls *fc, const tsgs__rows *X,
                                 size_t i0, size_t m, double budget,
                                 tsgs__stop *stop, double grace, float *out,
                                 tsgs_error *err)
{
    const tsgs__rows part = tsgs__rows_sub(X, i0, m);
    const size_t step = call_dirs(X, i0, m, fc->W, budget);
    for (size_t g0 = 0; g0 < fc->ndirs; g0 += step) {
        if (tsgs__stop_due(stop, grace))
            return tsgs__stopped(err, "the feature rows");
        const size_t cnt = fc->ndirs - g0 < step ? fc->ndirs - g0 : step;
        const size_t ld = (cnt + TSGS__LANES - 1) / TSGS__LANES * TSGS__LANES;
        tsgs_status st = TSGS_OK;
        if (!X->x)
            st = tsgs__sparse_features(fc->fs, fc->cc, (long)g0, (long)cnt,
                                       &part, ld, fc->threads, fc->cv,
                                       fc->sv, stop, grace, err);
        else
            tsgs__eval_features(fc->fs->d, fc->panel + g0 * fc->fs->d,
                                fc->phase + g0, (long)(ld / TSGS__LANES),
                                part.x, m, fc->threads, fc->cv, fc->sv);
        if (st != TSGS_OK)
            return st;
        put_features(fc->cv, fc->sv, ld, m, g0, cnt, fc->ndirs, fc->D, fc->k,
                     fc->threads, out + i0 * fc->D);
    }
    return TSGS_OK;
}

/* tsgs__feature_rows, a stop ending it once asked `grace` seconds ago
 * (the grid's, optional work: at once). */
static tsgs_status feature_rows_within(const tsgs__fspec *fs, size_t ndirs,
                                       const tsgs__rows *X, int threads,
                                       const tsgs__colcache *given,
                                       tsgs__stop *stop, double grace,
                                       float *out, tsgs_error *err)
{
    const size_t W = (ndirs + TSGS__LANES - 1) / TSGS__LANES * TSGS__LANES;
    const int pair = fs->map == TSGS_FEATURES_PAIR;
    const int sparse = !X->x;
    /* sparse rows make their directions per column: no d-wide panel */
    float *panel = sparse ? NULL : malloc(sizeof(float) * W * fs->d);
    float *phase = sparse ? NULL : malloc(sizeof(float) * W);
    float *cv = malloc(sizeof(float) * W * CALL_ROWS);
    float *sv = malloc(sizeof(float) * W * CALL_ROWS);
    tsgs__colcache *cc = NULL;
    tsgs_status st = TSGS_OK;
    int packed = 0;
    if ((!sparse && (!panel || !phase)) || !cv || !sv ||
        (!sparse && (packed = tsgs__pack_directions_stop(
                         fs, 0, (long)ndirs, panel, phase, stop, grace)) < 0)) {
        st = TSGS__NOMEM(err);
        goto done;
    }
    if (packed) {
        st = tsgs__stopped(err, "the feature rows' directions");
        goto done;
    }
    const double budget = (sparse ? CALL_WORK_SPARSE : CALL_WORK_DENSE) *
                          (threads > 1 ? threads : 1);
    /* sparse rows without a given cache: column by column, each column's
     * directions made once a chunk and added where its rows are (the
     * same bits; the 16 MB cache's page faults and look-ups were a third
     * of a 200-row training at given C and gamma, issue #30) */
    if (sparse && !given &&
        tsgs__sparse_feature_rows_fit(X, (long)ndirs, threads)) {
        st = tsgs__sparse_feature_rows(
            fs, (long)ndirs, X, threads,
            (float)((pair ? 1.0 : sqrt(2.0)) / sqrt((double)ndirs)),
            tsgs__feature_columns(fs, ndirs), pair, stop, grace, out, err);
        goto done;
    }
    /* sparse rows: each column's directions made once (the kernel's tasks
     * of a few rows would each make their columns' again) */
    if (sparse && !given &&
        ((st = tsgs__colcache_for_rows(X, (long)ndirs, FEATURE_ROWS_CACHE,
                                       &cc, err)) != TSGS_OK ||
         (st = tsgs__colcache_fill_stop(cc, fs, (long)ndirs, threads,
                                        budget / 4.0, stop, grace, err)) !=
             TSGS_OK))
        goto done;
    const feature_calls fc = {
        fs, ndirs, W, tsgs__feature_columns(fs, ndirs), panel, phase,
        given ? given : cc, threads, cv, pair ? sv : NULL,
        (float)((pair ? 1.0 : sqrt(2.0)) / sqrt((double)ndirs))};
    for (size_t i0 = 0, m; i0 < X->n && st == TSGS_OK; i0 += m) {
        m = call_rows(X, i0, budget);
        st = feature_chunk(&fc, X, i0, m, budget, stop, grace, out, err);
    }
done:
    free(panel); free(phase); free(cv); free(sv);
    tsgs__colcache_free(cc);
    return st;
}

tsgs_status tsgs__feature_rows(const tsgs__fspec *fs, size_t ndirs,
                               const tsgs__rows *X, int threads,
                               const tsgs__colcache *given, tsgs__stop *stop,
                               float *out, tsgs_error *err)
{
    return feature_rows_within(fs, ndirs, X, threads, given, stop,
                               TSGS__STOP_REQUIRED, out, err);
}

/* Smoothed score of grid point (a, b): the mean over its 3 x 3
 * neighbourhood inside the grid. */
static double smoothed(const double *score, int na, int nb, int a, int b)
{
    double s = 0.0;
    int k = 0;
    for (int i = a - 1; i <= a + 1; i++)
        for (int j = b - 1; j <= b + 1; j++)
            if (i >= 0 && i < na && j >= 0 && j < nb) {
                s += score[i * nb + j];
                k++;
            }
    return s / k;
}

/* What every CV task of the grid reads. */
typedef struct {
    const float *Ks;   /* the Gram matrices + beta, n x n per sigma */
    size_t n;          /* grid rows */
    const double *y;   /* each row's label: +1 / -1, or its class */
    const int *cls;    /* multi-class: each row's class rank; NULL: binary */
    int nprob;         /* binary problems per fit: 1, or the classes */
    const double *cs;  /* the C axis */
    int nb;
    int k;             /* folds */
    uint64_t seed;
    const int *folds;  /* each repeat's stratified folds, n per repeat */
    const double *w;   /* each row's class weight (C x w); NULL: 1 */
    tsgs__stop *stop;  /* the fits poll it */
} cv_grid;

/* The ranks 0..K-1 of n labels among their distinct values (ascending)
 * into cls; returns K. */
static int class_ranks(const double *y, size_t n, int *cls)
{
    int nclass = 0;
    double label = -INFINITY;
    while ((label = next_label(y, n, label)) != INFINITY) {
        for (size_t i = 0; i < n; i++)
            if (y[i] == label)
                cls[i] = nclass;
        nclass++;
    }
    return nclass;
}

/* Held-out rows right at each C (added to right[]) for one sigma's Gram
 * matrix K and fold f of one repeat of the stratified folds: each binary
 * problem's C path, each fit warm-started from the previous C. Binary: a
 * row is right when its decision value has its sign; multi-class (one
 * problem per class, that class against the rest): when its own class's
 * decision value is the largest, as the model predicts. TSGS_OK, or
 * TSGS_ERR_NOMEM, or TSGS_ERR_STOPPED when a stop ended a fit. */
static tsgs_status cv_task(const cv_grid *cg, const float *K, int rep, int f,
                           uint64_t salt, double *right)
{
    const size_t n = cg->n;
    const int nb = cg->nb, multi = cg->cls != NULL;
    float *Q = malloc(sizeof(float) * n * n);
    double *yp = malloc(sizeof(double) * n);
    double *alpha = malloc(sizeof(double) * n);
    size_t *tr = malloc(sizeof(size_t) * n);
    double *cwtr = cg->w ? malloc(sizeof(double) * n) : NULL;
    const int *fold = cg->folds + (size_t)rep * n;
    /* multi-class: decision value of row i for problem c at C b */
    double *dec = multi ? malloc(sizeof(double) * (size_t)nb *
                                 (size_t)cg->nprob * n)
                        : NULL;
    tsgs_error e;
    tsgs__dual_orders *orders = NULL;
    tsgs_status st = Q && yp && alpha && tr && (dec || !multi) &&
                             (cwtr || !cg->w)
                         ? TSGS_OK : TSGS_ERR_NOMEM;
    int ok = st == TSGS_OK;
    if (ok) {
        size_t ntr = 0;
        for (size_t i = 0; i < n; i++)
            if (fold[i] != f)
                tr[ntr++] = i;
        for (size_t i = 0; cwtr && i < ntr; i++)
            cwtr[i] = cg->w[tr[i]];
        /* every fit of the task (each problem's C path) visits the same
         * orders */
        orders = tsgs__dual_orders_new(ntr, cg->seed + salt,
                                       TSGS__GRID_EPOCHS);
        for (int c = 0; ok && c < cg->nprob; c++) {
            for (size_t i = 0; i < n; i++)
                yp[i] = multi ? (cg->cls[i] == c ? 1.0 : -1.0) : cg->y[i];
            for (size_t i = 0; i < ntr; i++)
                for (size_t j = 0; j < ntr; j++)
                    Q[i * ntr + j] = (float)(yp[tr[i]] * yp[tr[j]]) *
                                     K[tr[i] * n + tr[j]];
            memset(alpha, 0, sizeof(double) * n);
            for (int b = 0; ok && b < nb; b++) {
                tsgs__dual_opts o = {TSGS__GRID_EPOCHS, TSGS__DUAL_TOL,
                                     cg->seed + salt, orders, cwtr,
                                     cg->stop, NULL, 0.0};
                st = tsgs__svm_dual_gram(Q, ntr, cg->cs[b], &o, alpha, &e);
                ok = st == TSGS_OK;
                for (size_t i = 0; ok && i < n; i++) {
                    if (fold[i] != f)
                        continue;
                    double v = 0.0;
                    for (size_t j = 0; j < ntr; j++)
                        v += alpha[j] * yp[tr[j]] * (double)K[i * n + tr[j]];
                    if (multi)
                        dec[((size_t)b * (size_t)cg->nprob + (size_t)c) * n +
                            i] = v;
                    else
                        right[b] += (v > 0.0 ? 1.0 : -1.0) == yp[i];
                }
            }
        }
        for (int b = 0; ok && multi && b < nb; b++)
            for (size_t i = 0; i < n; i++) {
                if (fold[i] != f)
                    continue;
                const double *v = dec + (size_t)b * (size_t)cg->nprob * n + i;
                int best = 0; /* ties to the first class, as the model */
                for (int c = 1; c < cg->nprob; c++)
                    if (v[(size_t)c * n] > v[(size_t)best * n])
                        best = c;
                right[b] += best == cg->cls[i];
            }
    }
    free(Q); free(yp); free(alpha); free(tr);
    free(dec); free(cwtr);
    tsgs__dual_orders_free(orders);
    return st;
}

/* The grid's centre, where a stop cut the search short: sigma0 (or the
 * fixed sigma) and LIBSVM's default C = 1 (or the fixed C), no CV. */
static void centre_choice(const tsgs__grid_job *g, tsgs__grid_choice *out)
{
    memset(out, 0, sizeof *out);
    out->sigma = g->fixed_sigma > 0.0 ? g->fixed_sigma : g->sigma0;
    out->c_lib = out->c_path[0] = g->fixed_c > 0.0 ? g->fixed_c : 1.0;
    out->n_c_path = 1;
    out->interrupted = 1;
}

/* What the grid's tasks report: done, out of memory, or cut by a stop
 * (not started after it was asked, or ended by it). */
enum { TASK_DONE, TASK_NOMEM, TASK_CUT };

static int task_state(tsgs_status st)
{
    return st == TSGS_OK              ? TASK_DONE
           : st == TSGS_ERR_STOPPED ? TASK_CUT
                                    : TASK_NOMEM;
}

/* The worst of n task states: out of memory, else cut, else done. */
static int tasks_state(const unsigned char *state, int n)
{
    int worst = TASK_DONE;
    for (int t = 0; t < n; t++)
        if (state[t] == TASK_NOMEM || (state[t] == TASK_CUT && !worst))
            worst = state[t];
    return worst;
}

/* Sigma's feature rows of the grid rows Xg, less their mean row
 * (centre.h), into Phi (n x D), and the bias weight beside them. */
static tsgs_status features_at(const tsgs__grid_job *g, double sigma,
                               const tsgs__rows *Xg,
                               const tsgs__colcache *ucc,
                               const double *units, float *Phi,
                               double *beta)
{
    tsgs__fspec fs = *g->fs;
    fs.sigma = sigma;
    tsgs_error e;
    tsgs__colcache *cc = NULL;
    tsgs_status st = TSGS_OK;
    if (ucc)
        st = tsgs__colcache_scaled(ucc, units, &fs, (long)g->ndirs, &cc, &e);
    if (st == TSGS_OK)
        st = feature_rows_within(&fs, g->ndirs, Xg, 1, cc, g->stop,
                                 TSGS__STOP_OPTIONAL, Phi, &e);
    tsgs__colcache_free(cc);
    double *mean = st == TSGS_OK ? malloc(sizeof(double) * g->D) : NULL;
    if (st == TSGS_OK && !mean)
        st = TSGS_ERR_NOMEM;
    if (st == TSGS_OK) { /* the rows less their mean, as the fits see them */
        tsgs__column_means(Phi, Xg->n, g->D, 1, mean);
        *beta = tsgs__bias_weight(Phi, Xg->n, g->D, mean);
        tsgs__centre_rows(Phi, Xg->n, g->D, mean);
    }
    free(mean);
    return st;
}

/* Row i of the Gram matrix + beta (the bias column's weight) of n
 * feature rows Phi (D apart), from the diagonal on, into K and its mirror
 * image (n x n). */
static void gram_row(const float *Phi, size_t n, size_t D, size_t i,
                     double beta, float *K)
{
    for (size_t j = i; j < n; j++)
        K[i * n + j] = K[j * n + i] =
            (float)(tsgs__dot_f(Phi + i * D, Phi + j * D, D) + beta);
}

/* The Gram matrices + beta of the grid rows Xg at the na sigmas into Ks:
 * every sigma's feature rows, a task each, then the matrices' rows as
 * tasks of their own (with a task per sigma, 7 threads of 16 worked while
 * the rest waited: 5-8 ms of a 50 ms grid); TASK_CUT where a stop was
 * asked before the features ended. */
static int gram_matrices(const tsgs__grid_job *g, const double *sigmas,
                         int na, const tsgs__rows *Xg, float *Ks)
{
    const size_t n = Xg->n;
    /* sparse rows: the draws of their columns' directions made once for
     * every sigma (a sigma only scales them) */
    tsgs__colcache *ucc = NULL;
    double *units = NULL;
    tsgs_error e;
    if (tsgs__colcache_for_rows(Xg, (long)g->ndirs, FEATURE_ROWS_CACHE, &ucc,
                                &e) != TSGS_OK ||
        (ucc && tsgs__colcache_units(ucc, g->fs, (long)g->ndirs, g->threads,
                                     &units, &e) != TSGS_OK)) {
        tsgs__colcache_free(ucc);
        return TASK_NOMEM;
    }
    float *Phis = malloc(sizeof(float) * (size_t)na * (n ? n : 1) * g->D);
    unsigned char state[N_SIGMA];
    double beta[N_SIGMA];
#ifdef _OPENMP
#pragma omp parallel for num_threads(g->threads) schedule(dynamic, 1)
#endif
    for (int a = 0; a < na; a++)
        state[a] = !Phis ? TASK_NOMEM
                   : tsgs__stop_due(g->stop, TSGS__STOP_OPTIONAL)
                       ? TASK_CUT
                       : task_state(features_at(g, sigmas[a], Xg, ucc, units,
                                                Phis + (size_t)a * n *
                                                           g->D,
                                                &beta[a]));
    tsgs__colcache_free(ucc);
    free(units);
    const int done = tasks_state(state, na);
    const long rows = done == TASK_DONE ? (long)na * (long)n : 0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(g->threads) schedule(dynamic, 8)
#endif
    for (long r = 0; r < rows; r++)
        gram_row(Phis + (size_t)(r / (long)n) * n * g->D, n, g->D,
                 (size_t)(r % (long)n), beta[r / (long)n],
                 Ks + (size_t)(r / (long)n) * n * n);
    free(Phis);
    return done;
}

/* The processes g's CV tasks spread over, or NULL: this one runs all. */
static const tsgs__grid_spread *spread_of(const tsgs__grid_job *g)
{
    return g->spread && g->spread->size > 1 ? g->spread : NULL;
}

/* The worst task state of every process of sp (each calls it once a
 * grid: where one ends the grid early, the others end it with it). */
static int spread_agree(const tsgs__grid_spread *sp, int worst)
{
    /* cut (2), else out of memory (1), else done (0): 1 is also what a
     * failed exchange reports (tsgs__split's gather) */
    const int all = sp->agree(sp->ctx, worst == TASK_CUT     ? 2
                                       : worst == TASK_NOMEM ? 1
                                                             : 0);
    return all == 0 ? TASK_DONE : all == 2 ? TASK_CUT : TASK_NOMEM;
}

/* The grid's CV tasks spread over sp's processes (cv_scores; worst:
 * this process's tasks' state, rights: each task's counts, nb a task,
 * this process's filled): every process learns the worst state of all;
 * where every task is done, process r's tasks' counts (in task order)
 * go from r to every process, and every task's are summed into score
 * (whole counts: the one-process sums). */
static int spread_scores(const cv_grid *cg, int ntasks,
                         const tsgs__grid_spread *sp, int worst,
                         double *rights, double *score)
{
    const size_t nb = (size_t)cg->nb;
    const int per_a = GRID_REPEATS * cg->k;
    const size_t most = ((size_t)ntasks / (size_t)sp->size + 1) * nb;
    double *buf = malloc(sizeof(double) * most);
    const int all = spread_agree(sp, buf ? worst : TASK_NOMEM);
    int failed = 0;
    for (int r = 0; all == TASK_DONE && r < sp->size; r++) {
        size_t n = 0;
        for (int t = r; t < ntasks; t += sp->size, n += nb)
            if (r == sp->rank)
                memcpy(buf + n, rights + (size_t)t * nb,
                       sizeof(double) * nb);
        failed |= sp->share(sp->ctx, buf, sizeof(double) * n, r);
        n = 0;
        for (int t = r; t < ntasks; t += sp->size, n += nb)
            if (r != sp->rank)
                memcpy(rights + (size_t)t * nb, buf + n,
                       sizeof(double) * nb);
    }
    free(buf);
    if (all != TASK_DONE || failed) /* (MPI's errors end the job first) */
        return failed ? TASK_NOMEM : all;
    for (int t = 0; t < ntasks; t++)
        for (size_t b = 0; b < nb; b++)
            score[(size_t)(t / per_a) * nb + b] += rights[(size_t)t * nb + b];
    return TASK_DONE;
}

/* Each grid point's held-out rows right, summed into score (na x nb),
 * over one task per (sigma, repeat, fold): 105 tasks of unequal cost
 * balance over the threads where 21 (one per repeat) did not. A task not
 * started once a stop was asked is TASK_CUT. */
static int cv_scores(const cv_grid *cg, int na, int threads,
                     const tsgs__grid_spread *sp, double *score)
{
    const int per_a = GRID_REPEATS * cg->k, ntasks = na * per_a;
    unsigned char *state = malloc((size_t)ntasks);
    /* spread over processes: each task's counts kept, for the others */
    double *rights = sp ? calloc((size_t)ntasks * (size_t)cg->nb,
                                 sizeof(double))
                        : NULL;
    if (!state || (sp && !rights)) {
        free(state);
        free(rights);
        return sp ? spread_agree(sp, TASK_NOMEM) : TASK_NOMEM;
    }
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
#endif
    for (int task = 0; task < ntasks; task++) {
        const int a = task / per_a, rep = task % per_a / cg->k,
                  f = task % cg->k;
        double right[N_C] = {0};
        state[task] = TASK_DONE;
        if (sp && task % sp->size != sp->rank)
            continue; /* another process's */
        state[task] = TASK_CUT;
        if (tsgs__stop_due(cg->stop, TSGS__STOP_OPTIONAL))
            continue;
        TSGS_TRACE_START(t_cv);
        /* the dual solver's seed as when a task ran a whole repeat */
        state[task] = task_state(cv_task(cg, cg->Ks + (size_t)a * cg->n *
                                                          cg->n,
                                         rep, f,
                                         (uint64_t)(a * GRID_REPEATS + rep),
                                         right));
        TSGS_TRACE_SPAN("grid_cv", task, t_cv);
        if (sp) {
            memcpy(rights + (size_t)task * (size_t)cg->nb, right,
                   sizeof(double) * (size_t)cg->nb);
            continue;
        }
#ifdef _OPENMP
#pragma omp critical(select_grid)
#endif
        for (int b = 0; b < cg->nb; b++) /* whole counts: any order */
            score[a * cg->nb + b] += right[b];
    }
    int worst = tasks_state(state, ntasks);
    free(state);
    if (sp)
        worst = spread_scores(cg, ntasks, sp, worst, rights, score);
    free(rights);
    return worst;
}

/* The best smoothed score's point; ties to the sigma nearest sigma0, then
 * the largest C (a small C ties by predicting one class). */
static void best_point(const double *score, int na, int nb, int fixed_sigma,
                       int *best_a, int *best_b)
{
    double best = -1.0;
    *best_a = *best_b = -1;
    for (int a = 0; a < na; a++)
        for (int b = 0; b < nb; b++) {
            double v = smoothed(score, na, nb, a, b);
            double eps = 1e-9 * (best > 1.0 ? best : 1.0);
            int take = *best_a < 0 || v > best + eps;
            if (!take && fabs(v - best) <= eps) {
                double da = fixed_sigma ? 0 : fabs(SIGMA_LOG2[a]);
                double db = fixed_sigma ? 0 : fabs(SIGMA_LOG2[*best_a]);
                take = da < db || (da == db && b > *best_b);
            }
            if (take) {
                best = v > best ? v : best;
                *best_a = a;
                *best_b = b;
            }
        }
}

/* The grid's rows (the first n of rows) as a CV: their labels (or
 * classes) and each repeat's stratified folds; *cg points at what it
 * allocates (freed by cv_free). */
static int cv_setup(const tsgs__grid_job *g, const size_t *rows, size_t n,
                    cv_grid *cg)
{
    double *y = malloc(sizeof(double) * n);
    int *cls = g->classes ? malloc(sizeof(int) * n) : NULL;
    int *folds = malloc(sizeof(int) * n * GRID_REPEATS);
    size_t *scr = malloc(sizeof(size_t) * n);
    double *w = g->wl ? malloc(sizeof(double) * n) : NULL;
    cg->y = y;
    cg->cls = cls;
    cg->folds = folds;
    cg->w = w;
    if (!y || (g->classes && !cls) || !folds || !scr || (g->wl && !w)) {
        free(scr);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        y[i] = g->classes ? g->classes[rows[i]] : g->yl[rows[i]];
        if (w)
            w[i] = g->wl[rows[i]];
    }
    if (cls)
        cg->nprob = class_ranks(y, n, cls);
    /* each repeat's folds once, for all its sigma and fold tasks */
    for (int rep = 0; rep < GRID_REPEATS; rep++)
        tsgs__stratified_folds(y, n, cg->k, g->seed, 16 + (uint64_t)rep, scr,
                               folds + (size_t)rep * n);
    free(scr);
    return 0;
}

static void cv_free(cv_grid *cg)
{
    free((void *)cg->y);
    free((void *)cg->cls);
    free((void *)cg->folds);
    free((void *)cg->w);
}

/* The Gram matrices of the grid's rows at every sigma into Ks and their
 * CV scores into score: TASK_DONE, _NOMEM or _CUT. */
static int grid_scores(const tsgs__grid_job *g, const double *sigmas,
                       int na, const double *cs, int nb, const size_t *rows,
                       size_t n, float *Ks, double *score)
{
    const tsgs__grid_spread *sp = spread_of(g);
    tsgs__rows Xg;
    int bad = g->XL->x ? tsgs__rows_init_dense(&Xg, g->d, n)
                       : tsgs__rows_init_sparse(&Xg, g->d, n);
    int state = bad || tsgs__rows_copy(&Xg, g->XL, rows, n)
                    ? TASK_NOMEM
                    : gram_matrices(g, sigmas, na, &Xg, Ks);
    tsgs__rows_free(&Xg);
    if (state != TASK_DONE)
        return sp ? spread_agree(sp, state) : state;
    cv_grid cg = {Ks, n, NULL, NULL, 1, cs, nb, n < FOLDS ? (int)n : FOLDS,
                  g->seed, NULL, NULL, g->stop};
    state = cv_setup(g, rows, n, &cg)
                ? (sp ? spread_agree(sp, TASK_NOMEM) : TASK_NOMEM)
                : cv_scores(&cg, na, g->threads, sp, score);
    cv_free(&cg);
    return state;
}

/* CV accuracy of every (sigma, C) grid point on up to TSGS__GRID_ROWS
 * labeled rows, with the Gram matrix of the same random features the model will
 * use (the exact kernel would rank wide kernels that the features cannot
 * reproduce: their kernel values differ by less than the features'
 * error). Writes the chosen sigma and per-row C; a stop cuts the search
 * short (the centre, out->interrupted). */
tsgs_status tsgs__select_grid(const tsgs__grid_job *g, tsgs__grid_choice *out,
                              tsgs_error *err)
{
    const int fixed_sigma = g->fixed_sigma > 0.0, fixed_c = g->fixed_c > 0.0;
    const int na = fixed_sigma ? 1 : (int)N_SIGMA;
    const int nb = fixed_c ? 1 : (int)N_C;
    double sigmas[N_SIGMA], cs[N_C];
    for (int a = 0; a < na; a++)
        sigmas[a] =
            fixed_sigma ? g->fixed_sigma : g->sigma0 * exp2(SIGMA_LOG2[a]);
    for (int b = 0; b < nb; b++)
        cs[b] = fixed_c ? g->fixed_c : exp2(C_LOG2[b]);
    if (na == 1 && nb == 1) {
        memset(out, 0, sizeof *out);
        out->sigma = sigmas[0];
        out->c_lib = out->c_path[0] = cs[0];
        out->n_c_path = 1;
        return TSGS_OK;
    }
    /* the rows the grid sees: all labeled rows, or a seeded sample */
    size_t n = g->nl < TSGS__GRID_ROWS ? g->nl : TSGS__GRID_ROWS;
    size_t *rows = malloc(sizeof(size_t) * g->nl);
    float *Ks = malloc(sizeof(float) * (size_t)na * n * n);
    double *score = calloc((size_t)na * (size_t)nb, sizeof(double));
    int state = rows && Ks && score ? TASK_DONE : TASK_NOMEM;
    if (state == TASK_DONE) {
        for (size_t i = 0; i < g->nl; i++)
            rows[i] = i;
        if (n < g->nl)
            tsgs__seeded_shuffle(rows, g->nl, g->seed, 3, g->threads);
        state = grid_scores(g, sigmas, na, cs, nb, rows, n, Ks, score);
    } else if (spread_of(g)) {
        state = spread_agree(spread_of(g), state);
    }
    if (state == TASK_DONE) {
        int best_a, best_b;
        best_point(score, na, nb, fixed_sigma, &best_a, &best_b);
        out->sigma = sigmas[best_a];
        out->c_lib = cs[best_b];
        out->n_c_path = best_b + 1;
        memcpy(out->c_path, cs, sizeof(double) * (size_t)out->n_c_path);
        out->grid_cv = smoothed(score, na, nb, best_a, best_b) /
                       ((double)GRID_REPEATS * (double)n);
        out->interrupted = 0;
    } else if (state == TASK_CUT) {
        centre_choice(g, out);
    }
    free(rows);
    free(Ks);
    free(score);
    return state == TASK_NOMEM ? TSGS__NOMEM(err) : TSGS_OK;
}
