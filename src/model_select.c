/* Model selection on the labeled rows, shared by the solvers that choose
 * their own C and sigma: the kernel width from the data's median distance,
 * the random-feature rows, and the grid of (sigma, C) scored by repeated
 * stratified cross-validation of the exact hinge SVM on the features' own
 * Gram matrix (svm_dual.c), smoothed over the grid. */
#include "model_select.h"

#include "dense.h"
#include "svm_dual.h"

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

/* Writes the scaled feature rows from the kernel's cos / sin values of m
 * rows (W apart) into out (D apart). */
static void put_features(const float *cv, const float *sv, size_t W,
                         size_t m, size_t ndirs, size_t D, float k,
                         float *out)
{
    for (size_t i = 0; i < m; i++) {
        float *o = out + i * D;
        for (size_t j = 0; j < ndirs; j++) {
            o[j] = k * cv[i * W + j];
            if (sv)
                o[ndirs + j] = k * sv[i * W + j];
        }
    }
}

/* The column cache of tsgs__feature_rows on sparse rows, bytes at most
 * (the grid holds its draws, twice that, and one such cache per sigma
 * being evaluated: memory.c counts them). */
#define FEATURE_ROWS_CACHE TSGS__SPARSE_ROWS_CACHE

tsgs_status tsgs__feature_rows(const tsgs__fspec *fs, size_t ndirs,
                               const tsgs__rows *X, int threads,
                               const tsgs__colcache *given, float *out,
                               tsgs_error *err)
{
    const long ngroups = (long)((ndirs + TSGS__LANES - 1) / TSGS__LANES);
    const size_t W = (size_t)ngroups * TSGS__LANES, n = X->n;
    const int pair = fs->map == TSGS_FEATURES_PAIR;
    const size_t D = tsgs__feature_columns(fs, ndirs);
    const size_t chunk = 1024; /* rows per kernel call: bounded scratch */
    const int sparse = !X->x;
    /* sparse rows make their directions per column: no d-wide panel */
    float *panel = sparse ? NULL : malloc(sizeof(float) * W * fs->d);
    float *phase = sparse ? NULL : malloc(sizeof(float) * W);
    float *cv = malloc(sizeof(float) * W * chunk);
    float *sv = malloc(sizeof(float) * W * chunk);
    tsgs__colcache *cc = NULL;
    tsgs_status st = TSGS_OK;
    if ((!sparse && (!panel || !phase)) || !cv || !sv ||
        (!sparse && tsgs__pack_directions(fs, 0, (long)ndirs, panel, phase))) {
        st = TSGS__NOMEM(err);
        goto done;
    }
    /* sparse rows: each column's directions made once (the kernel's tasks
     * of a few rows would each make their columns' again) */
    if (sparse && !given &&
        (st = tsgs__colcache_for_rows(X, (long)ndirs, FEATURE_ROWS_CACHE,
                                      &cc, err)) != TSGS_OK)
        goto done;
    tsgs__colcache_fill(cc, fs, (long)ndirs, threads);
    const tsgs__colcache *use = given ? given : cc;
    const float k = (float)((pair ? 1.0 : sqrt(2.0)) / sqrt((double)ndirs));
    for (size_t i0 = 0; i0 < n && st == TSGS_OK; i0 += chunk) {
        size_t m = n - i0 < chunk ? n - i0 : chunk;
        tsgs__rows part = tsgs__rows_sub(X, i0, m);
        if (sparse)
            st = tsgs__sparse_features(fs, use, 0, (long)ndirs, &part, W,
                                       threads, cv, pair ? sv : NULL, err);
        else
            tsgs__eval_features(fs->d, panel, phase, ngroups, part.x, m,
                                threads, cv, pair ? sv : NULL);
        put_features(cv, pair ? sv : NULL, W, m, ndirs, D, k, out + i0 * D);
    }
done:
    free(panel); free(phase); free(cv); free(sv);
    tsgs__colcache_free(cc);
    return st;
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
    const float *Ks;   /* the Gram matrices + 1, n x n per sigma */
    size_t n;          /* grid rows */
    const double *y;   /* each row's label: +1 / -1, or its class */
    const int *cls;    /* multi-class: each row's class rank; NULL: binary */
    int nprob;         /* binary problems per fit: 1, or the classes */
    const double *cs;  /* the C axis */
    int nb;
    int k;             /* folds */
    uint64_t seed;
    const int *folds;  /* each repeat's stratified folds, n per repeat */
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
 * decision value is the largest, as the model predicts. 0: out of memory. */
static int cv_task(const cv_grid *cg, const float *K, int rep, int f,
                   uint64_t salt, double *right)
{
    const size_t n = cg->n;
    const int nb = cg->nb, multi = cg->cls != NULL;
    float *Q = malloc(sizeof(float) * n * n);
    double *yp = malloc(sizeof(double) * n);
    double *alpha = malloc(sizeof(double) * n);
    size_t *tr = malloc(sizeof(size_t) * n);
    const int *fold = cg->folds + (size_t)rep * n;
    /* multi-class: decision value of row i for problem c at C b */
    double *dec = multi ? malloc(sizeof(double) * (size_t)nb *
                                 (size_t)cg->nprob * n)
                        : NULL;
    tsgs_error e;
    tsgs__dual_orders *orders = NULL;
    int ok = Q && yp && alpha && tr && (dec || !multi);
    if (ok) {
        size_t ntr = 0;
        for (size_t i = 0; i < n; i++)
            if (fold[i] != f)
                tr[ntr++] = i;
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
                                     cg->seed + salt, orders};
                ok = tsgs__svm_dual_gram(Q, ntr, cg->cs[b], &o, alpha, &e) ==
                     TSGS_OK;
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
    free(dec);
    tsgs__dual_orders_free(orders);
    return ok;
}

/* CV accuracy of every (sigma, C) grid point on up to TSGS__GRID_ROWS
 * labeled rows, with the Gram matrix of the same random features the model will
 * use (the exact kernel would rank wide kernels that the features cannot
 * reproduce: their kernel values differ by less than the features'
 * error). Writes the chosen sigma and per-row C. */
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
    if (!rows || !Ks || !score) {
        free(rows); free(Ks); free(score);
        return TSGS__NOMEM(err);
    }
    for (size_t i = 0; i < g->nl; i++)
        rows[i] = i;
    if (n < g->nl)
        tsgs__seeded_shuffle(rows, g->nl, g->seed, 3, g->threads);
    /* the Gram matrix + 1 of the grid rows at each sigma */
    tsgs__rows Xg;
    int bad = g->XL->x ? tsgs__rows_init_dense(&Xg, g->d, n)
                       : tsgs__rows_init_sparse(&Xg, g->d, n);
    if (bad || tsgs__rows_copy(&Xg, g->XL, rows, n)) {
        tsgs__rows_free(&Xg);
        free(rows); free(score); free(Ks);
        return TSGS__NOMEM(err);
    }
    /* sparse rows: the draws of their columns' directions made once for
     * every sigma (a sigma only scales them) */
    tsgs__colcache *ucc = NULL;
    double *units = NULL;
    const int ready = tsgs__colcache_for_rows(&Xg, (long)g->ndirs,
                                          FEATURE_ROWS_CACHE, &ucc,
                                          err) == TSGS_OK &&
                  (!ucc || tsgs__colcache_units(ucc, g->fs, (long)g->ndirs,
                                                g->threads, &units,
                                                err) == TSGS_OK);
    int gram_ok = ready;
#ifdef _OPENMP
#pragma omp parallel for num_threads(g->threads) schedule(dynamic, 1)
#endif
    for (int a = 0; a < na; a++) {
        tsgs__fspec fs = *g->fs;
        fs.sigma = sigmas[a];
        float *Phi = malloc(sizeof(float) * n * g->D);
        float *K = Ks + (size_t)a * n * n;
        tsgs_error e;
        tsgs__colcache *cc = NULL;
        if (!ready || !Phi ||
            (ucc && tsgs__colcache_scaled(ucc, units, &fs, (long)g->ndirs,
                                          &cc, &e)) ||
            tsgs__feature_rows(&fs, g->ndirs, &Xg, 1, cc, Phi, &e)) {
            gram_ok = 0;
        } else {
            for (size_t i = 0; i < n; i++)
                for (size_t j = i; j < n; j++)
                    K[i * n + j] = K[j * n + i] =
                        (float)(tsgs__dot_f(Phi + i * g->D, Phi + j * g->D,
                                            g->D) + 1.0);
        }
        free(Phi);
        tsgs__colcache_free(cc);
    }
    tsgs__colcache_free(ucc);
    free(units);
    tsgs__rows_free(&Xg);
    if (!gram_ok) {
        free(rows); free(score); free(Ks);
        return TSGS__NOMEM(err);
    }
    cv_grid cg = {Ks, n, NULL, NULL, 1, cs, nb, n < FOLDS ? (int)n : FOLDS,
                  g->seed, NULL};
    double *y = malloc(sizeof(double) * n);
    int *cls = g->classes ? malloc(sizeof(int) * n) : NULL;
    int *folds = malloc(sizeof(int) * n * GRID_REPEATS);
    size_t *scr = malloc(sizeof(size_t) * n);
    tsgs_status st = y && (cls || !g->classes) && folds && scr
                         ? TSGS_OK : TSGS_ERR_NOMEM;
    for (size_t i = 0; st == TSGS_OK && i < n; i++)
        y[i] = g->classes ? g->classes[rows[i]] : g->yl[rows[i]];
    if (cls && st == TSGS_OK)
        cg.nprob = class_ranks(y, n, cls);
    /* each repeat's folds once, for all its sigma and fold tasks */
    for (int rep = 0; st == TSGS_OK && rep < GRID_REPEATS; rep++)
        tsgs__stratified_folds(y, n, cg.k, g->seed, 16 + (uint64_t)rep, scr,
                               folds + (size_t)rep * n);
    cg.y = y;
    cg.cls = cls;
    cg.folds = folds;
    /* one task per (sigma, repeat, fold): 105 tasks of unequal cost balance
     * over the threads where 21 (one per repeat) did not */
    const int per_a = GRID_REPEATS * cg.k;
    const int ntasks = st == TSGS_OK ? na * per_a : 0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(g->threads) schedule(dynamic, 1)
#endif
    for (int task = 0; task < ntasks; task++) {
        const int a = task / per_a, rep = task % per_a / cg.k,
                  f = task % cg.k;
        double right[N_C] = {0};
        /* the dual solver's seed as when a task ran a whole repeat */
        int ok = cv_task(&cg, Ks + (size_t)a * n * n, rep, f,
                         (uint64_t)(a * GRID_REPEATS + rep), right);
#ifdef _OPENMP
#pragma omp critical(select_grid)
#endif
        {
            if (!ok)
                st = TSGS_ERR_NOMEM;
            for (int b = 0; b < nb; b++) /* whole counts: any order */
                score[a * nb + b] += right[b];
        }
    }
    free(y);
    free(cls);
    free(folds);
    free(scr);
    if (st != TSGS_OK)
        st = TSGS__NOMEM(err);
    if (st == TSGS_OK) {
        /* best smoothed score; ties to the sigma nearest sigma0, then the
         * largest C (a small C ties by predicting one class) */
        int best_a = -1, best_b = -1;
        double best = -1.0;
        for (int a = 0; a < na; a++)
            for (int b = 0; b < nb; b++) {
                double v = smoothed(score, na, nb, a, b);
                double eps = 1e-9 * (best > 1.0 ? best : 1.0);
                int take = best_a < 0 || v > best + eps;
                if (!take && fabs(v - best) <= eps) {
                    double da = fixed_sigma ? 0 : fabs(SIGMA_LOG2[a]);
                    double db = fixed_sigma ? 0 : fabs(SIGMA_LOG2[best_a]);
                    take = da < db || (da == db && b > best_b);
                }
                if (take) {
                    best = v > best ? v : best;
                    best_a = a;
                    best_b = b;
                }
            }
        out->sigma = sigmas[best_a];
        out->c_lib = cs[best_b];
        out->n_c_path = best_b + 1;
        memcpy(out->c_path, cs, sizeof(double) * (size_t)out->n_c_path);
        out->grid_cv = smoothed(score, na, nb, best_a, best_b) /
                       ((double)GRID_REPEATS * (double)n);
    }
    free(rows);
    free(Ks);
    free(score);
    return st;
}
