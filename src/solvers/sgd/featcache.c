/* Features of a run's unlabeled sparse rows, kept across its steps.
 *
 * A direction never changes once made, so the cos / sin of a row on it
 * are computed once, when its block is added, for every unlabeled row at
 * once; each later prediction of a mini-batch row is then a dot product of
 * its cached features with the coefficients. Without it every step passes
 * over the batch's non-zeros for every direction, reading each non-zero's
 * column directions from the (large) column cache: memory traffic of
 * B x nnz-per-row x M floats a step.
 *
 * The features are those the sparse kernel computes (tsgs__sparse_features
 * on the same rows), and the sums follow tsgs__sparse_sums_team's order
 * (directions in chunks of TSGS__SPARSE_DIR_CHUNK, each chunk's sum added
 * in turn), so a run gives the same model with or without the cache as
 * long as that kernel keeps its chunks whole. */
#include "solvers/sgd/sgd.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static long round_up(long n, long k) { return (n + k - 1) / k * k; }

double tsgs__featcache_bytes(size_t n, long max_dirs, int pair)
{
    /* a padding group past the last direction: the kernel writes whole
     * lane groups */
    const double stride = (double)round_up(max_dirs > 0 ? max_dirs : 1,
                                           TSGS__LANES) + TSGS__LANES;
    return (double)n * stride * sizeof(float) * (pair ? 2.0 : 1.0);
}

tsgs_status tsgs__featcache_new(const tsgs_dataset *ds,
                                const tsgs__scaler *sc, const size_t *rows,
                                size_t n, long max_dirs, int pair,
                                double bytes, tsgs__featcache **out,
                                tsgs_error *err)
{
    *out = NULL;
    if (n == 0 || n >= UINT32_MAX || max_dirs <= 0 ||
        !tsgs__rows_sparse_for(ds, sc) ||
        tsgs__featcache_bytes(n, max_dirs, pair) > bytes)
        return TSGS_OK; /* none: the batches are evaluated as they come */
    const long stride = round_up(max_dirs, TSGS__LANES) + TSGS__LANES;
    tsgs__featcache *fc = calloc(1, sizeof *fc);
    if (!fc)
        return TSGS__NOMEM(err);
    fc->n = n;
    fc->cap = max_dirs;
    fc->stride = stride;
    fc->cv = malloc(sizeof(float) * n * (size_t)stride);
    fc->sv = pair ? malloc(sizeof(float) * n * (size_t)stride) : NULL;
    fc->slot = malloc(sizeof(uint32_t) * (ds->n ? ds->n : 1));
    if (!fc->cv || (pair && !fc->sv) || !fc->slot ||
        tsgs__rows_init(&fc->R, ds, sc, n) ||
        tsgs__rows_gather(&fc->R, ds, sc, rows, n)) {
        tsgs__featcache_free(fc);
        return TSGS__NOMEM(err);
    }
    for (size_t i = 0; i < ds->n; i++)
        fc->slot[i] = UINT32_MAX;
    for (size_t i = 0; i < n; i++)
        fc->slot[rows[i]] = (uint32_t)i;
    *out = fc;
    return TSGS_OK;
}

void tsgs__featcache_free(tsgs__featcache *fc)
{
    if (!fc)
        return;
    free(fc->cv);
    free(fc->sv);
    free(fc->slot);
    tsgs__rows_free(&fc->R);
    free(fc);
}

void tsgs__featcache_fill_team(tsgs__featcache *fc, const tsgs__fspec *fs,
                               const tsgs__colcache *cc, long ndirs,
                               tsgs__stop *stop, int *failed)
{
    /* read by every thread before the barrier below; written after it */
    const long g0 = fc->filled;
    if (ndirs <= g0)
        return;
    tsgs__sparse_features_team(fs, cc, g0, ndirs - g0, &fc->R,
                               (size_t)fc->stride, fc->cv + g0,
                               fc->sv ? fc->sv + g0 : NULL, stop, failed);
#ifdef _OPENMP
#pragma omp barrier
#pragma omp single
#endif
    if (!*failed) /* a cut fill leaves them unmade */
        fc->filled = ndirs;
}

/* Rows evaluated side by side: each row's sum is one chain of dependent
 * additions (its order fixed by the kernel's), so several rows at once
 * keep the adder busy. */
#define SUM_ROWS 8

/* The sums of SUM_ROWS rows whose features start at cv[r] / sv[r]; the
 * first k into out. */
static void sums_of(const tsgs__fview *v, int k, const float *const *cv,
                    const float *const *sv, double *out)
{
    const long ndirs = v->ndirs;
    double s[SUM_ROWS] = {0};
    for (long c0 = 0; c0 < ndirs; c0 += TSGS__SPARSE_DIR_CHUNK) {
        const long c1 = c0 + TSGS__SPARSE_DIR_CHUNK < ndirs
                            ? c0 + TSGS__SPARSE_DIR_CHUNK
                            : ndirs;
        double a[SUM_ROWS] = {0};
        if (v->as) {
            for (long g = c0; g < c1; g++)
                for (int r = 0; r < SUM_ROWS; r++) {
                    a[r] += v->ac[g] * cv[r][g];
                    a[r] += v->as[g] * sv[r][g];
                }
        } else {
            for (long g = c0; g < c1; g++)
                for (int r = 0; r < SUM_ROWS; r++)
                    a[r] += v->ac[g] * cv[r][g];
        }
        for (int r = 0; r < SUM_ROWS; r++) {
            double acc = 0.0; /* (the kernel's per-task accumulator) */
            acc += a[r];
            s[r] += acc;
        }
    }
    for (int r = 0; r < k; r++)
        out[r] = s[r];
}

void tsgs__featcache_sums_team(const tsgs__featcache *fc,
                               const tsgs__fview *v, const size_t *rows,
                               size_t n, double *out)
{
    const long ngroups = (long)((n + SUM_ROWS - 1) / SUM_ROWS);
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
    for (long q = 0; q < ngroups; q++) {
        const size_t i0 = (size_t)q * SUM_ROWS;
        const int k = n - i0 < SUM_ROWS ? (int)(n - i0) : SUM_ROWS;
        const float *cv[SUM_ROWS], *sv[SUM_ROWS];
        for (int r = 0; r < SUM_ROWS; r++) {
            /* a short last group repeats its first row (not written) */
            const size_t at = (size_t)fc->slot[rows[i0 + (size_t)(r < k ? r
                                                                    : 0)]] *
                              (size_t)fc->stride;
            cv[r] = fc->cv + at;
            sv[r] = fc->sv ? fc->sv + at : NULL;
        }
        sums_of(v, k, cv, sv, out + i0);
    }
}

void tsgs__featcache_block_team(const tsgs__featcache *fc,
                                const size_t *rows, size_t n, long g0,
                                long count, size_t width, float *cosv,
                                float *sinv)
{
#ifdef _OPENMP
#pragma omp for schedule(static) nowait
#endif
    for (size_t i = 0; i < n; i++) {
        const size_t at = (size_t)fc->slot[rows[i]] * (size_t)fc->stride +
                          (size_t)g0;
        memcpy(cosv + i * width, fc->cv + at, sizeof(float) * (size_t)count);
        if (sinv)
            memcpy(sinv + i * width, fc->sv + at,
                   sizeof(float) * (size_t)count);
    }
}
