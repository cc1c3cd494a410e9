/* Feature scaling fitted on every training row, labeled or not (as
 * svm-scale does), kept in the model and applied to each row before its
 * random features: x' = (x - shift) * mul. The class kind also reads the
 * labels: see class_stretch. */
#include "data/data.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int cmp_label(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* mul[k] times sqrt(total / within-class variance) of column k (ssw,
 * sst: its sums of squares around the class means and the labeled mean,
 * over nl rows of K classes of cnt[] rows), capped; none where a class
 * has too few rows. */
static void stretch_columns(const double *cnt, size_t K, const double *ssw,
                            const double *sst, size_t nl, size_t d,
                            double *mul)
{
    for (size_t c = 0; c < K; c++)
        if (cnt[c] < TSGS__CLASS_MIN_ROWS)
            return;
    for (size_t k = 0; k < d; k++) {
        double t = sst[k] / (double)(nl - 1), w = ssw[k] / (double)(nl - K);
        double r = t <= 0.0 ? 1.0
                   : w <= t / (TSGS__CLASS_STRETCH_MAX * TSGS__CLASS_STRETCH_MAX)
                       ? TSGS__CLASS_STRETCH_MAX
                       : sqrt(t / w);
        mul[k] *= r < 1.0 ? 1.0 : r;
    }
}

/* The class kind's stretch of each z-scored feature: r_k = sqrt(t_k / w_k),
 * t_k the variance of feature k over the labeled rows (n_l - 1 degrees of
 * freedom) and w_k its pooled within-class variance (n_l - K), clamped to
 * [1, TSGS__CLASS_STRETCH_MAX]. Dividing by the total sd alone shrinks a
 * feature that separates the classes, whose spread is mostly between them
 * (two unit Gaussians with means +-m on one axis: sd sqrt(1 + m^2) there,
 * 1 on the others); r_k restores it, so that x' is close to x over the
 * within-class sd. Both variances come from the same labeled rows, so a
 * feature the labels barely see gets about 1, not a ratio against the
 * unlabeled rows; no label information (t_k = 0, fewer than two classes)
 * gives 1: plain z-score. So does a class with fewer than
 * TSGS__CLASS_MIN_ROWS labeled rows: a variance from nu degrees of freedom
 * has a relative sd of sqrt(2 / nu), 50% at 5 rows per class, and the
 * ratio of two is noisier (on two moons with 10 labels such stretches,
 * 1.1-2.1, moved the kept model on 2 of 10 seeds, by 10 points each).
 * mul[] is multiplied in place. */
static tsgs_status class_stretch(const tsgs_dataset *ds, int threads,
                                 double *mul, tsgs_error *err)
{
    const size_t d = ds->d, n = ds->n;
    const size_t nl = tsgs__label_split(ds->y, n, threads, NULL, NULL);
    if (nl < 3 || d == 0)
        return TSGS_OK;
    /* the labeled rows, in row order: the passes below visit only them */
    size_t *rows = malloc(sizeof(size_t) * nl);
    double *lab = malloc(sizeof(double) * nl);
    if (!rows || !lab) {
        free(rows);
        free(lab);
        return TSGS__NOMEM(err);
    }
    tsgs__label_split(ds->y, n, threads, rows, NULL);
    for (size_t j = 0; j < nl; j++)
        lab[j] = ds->y[rows[j]];
    qsort(lab, nl, sizeof(double), cmp_label);
    size_t K = 0;
    for (size_t j = 0; j < nl; j++)
        if (j == 0 || lab[j] != lab[K - 1])
            lab[K++] = lab[j];
    if (K < 2) {
        free(rows);
        free(lab);
        return TSGS_OK;
    }
    double *cnt = calloc(K, sizeof(double));
    double *sum = calloc(K * d, sizeof(double)); /* then the class means */
    double *all = calloc(d, sizeof(double));     /* then the labeled mean */
    double *ssw = calloc(d, sizeof(double)), *sst = calloc(d, sizeof(double));
    if (!cnt || !sum || !all || !ssw || !sst) {
        free(rows); free(lab); free(cnt); free(sum); free(all); free(ssw);
        free(sst);
        return TSGS__NOMEM(err);
    }
    for (int pass = 0; pass < 2; pass++) {
        for (size_t j = 0; j < nl; j++) {
            const size_t i = rows[j];
            const double *c = bsearch(&ds->y[i], lab, K, sizeof(double),
                                      cmp_label);
            const size_t ci = (size_t)(c - lab);
            const float *r = ds->x + i * d;
            double *mc = sum + ci * d;
            if (pass == 0) {
                cnt[ci] += 1.0;
                for (size_t k = 0; k < d; k++) {
                    mc[k] += r[k];
                    all[k] += r[k];
                }
                continue;
            }
            for (size_t k = 0; k < d; k++) { /* two passes: no cancellation */
                double a = r[k] - mc[k], b = r[k] - all[k];
                ssw[k] += a * a;
                sst[k] += b * b;
            }
        }
        if (pass == 0) {
            for (size_t c = 0; c < K; c++)
                for (size_t k = 0; k < d; k++)
                    sum[c * d + k] /= cnt[c];
            for (size_t k = 0; k < d; k++)
                all[k] /= (double)nl;
        }
    }
    stretch_columns(cnt, K, ssw, sst, nl, d, mul);
    free(rows); free(lab); free(cnt); free(sum); free(all); free(ssw);
    free(sst);
    return TSGS_OK;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* MAXABS: x' = x / max |x| per column, from the non-zeros alone (sorted
 * copies of their columns, so that nothing grows with d). A column of
 * zeros keeps multiplier 1, as a constant column does under the other
 * kinds. */
static tsgs_status fit_maxabs(const tsgs_dataset *ds, tsgs__scaler *out,
                              tsgs_error *err)
{
    tsgs__scaler s = {TSGS_SCALE_MAXABS, ds->d, NULL, NULL, 0, NULL, NULL};
    const size_t nnz = tsgs__dataset_nnz(ds);
    /* (column << 32 | bits of |x|): sorting brings each column's values
     * together, the largest last (non-negative floats order as their
     * bits) */
    uint64_t *e = malloc(sizeof(uint64_t) * (nnz ? nnz : 1));
    if (!e)
        return TSGS__NOMEM(err);
    size_t m = 0;
    for (size_t i = 0; i < ds->n; i++) {
        size_t j0 = tsgs__sparse(ds) ? ds->ptr[i] : 0;
        size_t j1 = tsgs__sparse(ds) ? ds->ptr[i + 1] : ds->d;
        for (size_t j = j0; j < j1; j++) {
            size_t k = tsgs__sparse(ds) ? ds->col[j] : j;
            float v = tsgs__sparse(ds) ? ds->val[j] : ds->x[i * ds->d + j];
            if (v == 0.0f)
                continue;
            if (!isfinite(v)) {
                free(e);
                return tsgs__fail(err, TSGS_ERR_DATA, NULL, 0,
                                  "row %zu, feature %zu: value is not "
                                  "finite",
                                  i + 1, k + 1);
            }
            float a = fabsf(v);
            uint32_t bits;
            memcpy(&bits, &a, sizeof bits);
            e[m++] = (uint64_t)k << 32 | bits;
        }
    }
    qsort(e, m, sizeof *e, cmp_u64);
    size_t ncol = 0;
    for (size_t j = 0; j < m; j++)
        ncol += j + 1 == m || e[j + 1] >> 32 != e[j] >> 32;
    s.scol = malloc(sizeof(uint32_t) * (ncol ? ncol : 1));
    s.smul = malloc(sizeof(double) * (ncol ? ncol : 1));
    if (!s.scol || !s.smul) {
        free(e);
        tsgs__scaler_clear(&s);
        return TSGS__NOMEM(err);
    }
    for (size_t j = 0; j < m; j++) {
        if (j + 1 < m && e[j + 1] >> 32 == e[j] >> 32)
            continue;
        uint32_t bits = (uint32_t)e[j];
        float a;
        memcpy(&a, &bits, sizeof a);
        if (a == 1.0f)
            continue; /* already in [-1, 1] at its largest */
        s.scol[s.nsc] = (uint32_t)(e[j] >> 32);
        s.smul[s.nsc++] = 1.0 / (double)a;
    }
    free(e);
    *out = s;
    return TSGS_OK;
}

double tsgs__scaler_mul(const tsgs__scaler *s, size_t k)
{
    size_t lo = 0, hi = s->nsc;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->scol[mid] < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->nsc && s->scol[lo] == k ? s->smul[lo] : 1.0;
}

int tsgs__scaler_keeps_zeros(const tsgs__scaler *s)
{
    return s->kind == TSGS_SCALE_NONE || s->kind == TSGS_SCALE_MAXABS;
}

/* Rows per partial sum of the fit: a fixed partition, summed in order, so
 * that the shift and multiplier (and the model) are the same bits on any
 * number of threads; a set of up to FIT_CHUNK rows is summed exactly as
 * one loop over its rows would. */
#define FIT_CHUNK 16384

/* A pass polls the caller's stop every so many values (a few ms), and
 * marks a chunk it cut so. */
#define FIT_POLL_VALUES ((size_t)1 << 22)
#define FIT_STOPPED (SIZE_MAX - 1)

/* Whether row i of a pass that started at row i0 (rows of d values)
 * should end for a stop asked TSGS__STOP_REQUIRED ago. */
static int fit_stopped(tsgs__stop *stop, size_t i0, size_t i, size_t d)
{
    const size_t every = d < FIT_POLL_VALUES ? FIT_POLL_VALUES / (d ? d : 1)
                                             : 1;
    return (i - i0) % every == 0 &&
           tsgs__stop_due(stop, TSGS__STOP_REQUIRED);
}

/* The index i * d + k of the first non-finite value among rows [i0, i1),
 * or SIZE_MAX. */
static size_t first_nonfinite_in(const tsgs_dataset *ds, size_t i0,
                                 size_t i1)
{
    const size_t d = ds->d, count = (i1 - i0) * d;
    size_t j = tsgs__first_nonfinite(ds->x + i0 * d, count, 1);
    return j < count ? i0 * d + j : SIZE_MAX;
}

/* Pass 1 over chunk c's rows: range and sum into lo, hi, sum (d each);
 * returns the index i * d + k of its first non-finite value, SIZE_MAX, or
 * FIT_STOPPED when the caller's stop cut it.
 * The columns run side by side (omp simd), each summed in the rows'
 * order; a non-finite value leaves its column's sum non-finite (finite
 * floats cannot overflow a double's sum of FIT_CHUNK), and only then is
 * the chunk scanned for where it is. */
static size_t range_and_sum(const tsgs_dataset *ds, size_t c,
                            tsgs__stop *stop, double *restrict lo,
                            double *restrict hi, double *restrict sum)
{
    const size_t d = ds->d, i0 = c * FIT_CHUNK;
    const size_t i1 = ds->n - i0 < FIT_CHUNK ? ds->n : i0 + FIT_CHUNK;
    for (size_t k = 0; k < d; k++) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
        sum[k] = 0.0;
    }
    for (size_t i = i0; i < i1; i++) {
        if (fit_stopped(stop, i0, i, d))
            return FIT_STOPPED;
        const float *r = ds->x + i * d;
#pragma omp simd
        for (size_t k = 0; k < d; k++) {
            double v = r[k];
            lo[k] = v < lo[k] ? v : lo[k];
            hi[k] = v > hi[k] ? v : hi[k];
            sum[k] += v;
        }
    }
    for (size_t k = 0; k < d; k++)
        if (!isfinite(sum[k]))
            return first_nonfinite_in(ds, i0, i1);
    return SIZE_MAX;
}

/* Pass 2 over chunk c's rows: the squared spread around mean into sq and
 * the count of zeros into zeros (d each; the columns side by side);
 * returns SIZE_MAX, or FIT_STOPPED when the caller's stop cut it. */
static size_t spread(const tsgs_dataset *ds, size_t c, tsgs__stop *stop,
                     const double *restrict mean, double *restrict sq,
                     double *restrict zeros)
{
    const size_t d = ds->d, i0 = c * FIT_CHUNK;
    const size_t i1 = ds->n - i0 < FIT_CHUNK ? ds->n : i0 + FIT_CHUNK;
    for (size_t k = 0; k < d; k++)
        sq[k] = zeros[k] = 0.0;
    for (size_t i = i0; i < i1; i++) {
        if (fit_stopped(stop, i0, i, d))
            return FIT_STOPPED;
        const float *r = ds->x + i * d;
#pragma omp simd
        for (size_t k = 0; k < d; k++) {
            double t = r[k] - mean[k];
            sq[k] += t * t;
            zeros[k] += r[k] == 0.0f;
        }
    }
    return SIZE_MAX;
}

/* The first chunk's mark of a pass (row order): SIZE_MAX when none. */
static size_t first_mark(const size_t *bad, long nc)
{
    for (long c = 0; c < nc; c++)
        if (bad[c] == FIT_STOPPED)
            return FIT_STOPPED; /* the pass is incomplete */
    for (long c = 0; c < nc; c++)
        if (bad[c] != SIZE_MAX)
            return bad[c];
    return SIZE_MAX;
}


/* A dataset held in shares (ds->held): chunk c is fitted by the process
 * whose share holds its first row; process k's chunks are [first[k],
 * first[k + 1]), and the rows of its last chunk past its share are
 * fetched (every process takes part in the fetch of each one's). */
typedef struct {
    const tsgs__held *h;
    size_t *first; /* size + 1 */
    size_t *rows;  /* the rows fetched */
    size_t nrows;
} held_chunks;

/* *failed (this process's failure so far) is told to all: 1 then, after
 * the fetch, on every process when any failed; returns 1 when this
 * process's own allocation failed (the others see it through *failed). */
static int held_chunks_init(held_chunks *hc, const tsgs__held *h, size_t n,
                            int *failed)
{
    memset(hc, 0, sizeof *hc);
    hc->h = h;
    const int P = h->size;
    hc->first = malloc(sizeof(size_t) * (size_t)(P + 1));
    size_t want = 0;
    if (hc->first) {
        for (int k = 0; k <= P; k++)
            hc->first[k] = (h->row0[k] + FIT_CHUNK - 1) / FIT_CHUNK;
        for (int k = 0; k < P; k++) {
            size_t end = hc->first[k + 1] * FIT_CHUNK;
            end = end < n ? end : n;
            if (hc->first[k + 1] > hc->first[k] && end > h->row0[k + 1])
                want += end - h->row0[k + 1];
        }
        hc->rows = malloc(sizeof(size_t) * (want ? want : 1));
    }
    int mine = !hc->first || !hc->rows;
    if (!mine)
        for (int k = 0; k < P; k++) {
            size_t end = hc->first[k + 1] * FIT_CHUNK;
            end = end < n ? end : n;
            if (hc->first[k + 1] > hc->first[k])
                for (size_t i = h->row0[k + 1]; i < end; i++)
                    hc->rows[hc->nrows++] = i;
        }
    *failed = h->fetch(h->ctx, hc->rows, mine ? 0 : hc->nrows, 0,
                       *failed || mine);
    if (*failed)
        hc->nrows = 0; /* nothing to release */
    return mine;
}

/* The chunks' sums (per doubles each) and marks from their processes. */
static int held_exchange(held_chunks *hc, double *part, size_t per,
                         size_t *bad)
{
    const tsgs__held *h = hc->h;
    return h->pieces(h->ctx, part, sizeof(double) * per, hc->first, 0) ||
           h->pieces(h->ctx, bad, sizeof(size_t), hc->first, 0);
}

/* A pass over chunks [c_lo, c_hi) of ds into part (3 d per chunk) and
 * bad: range and sum (mean NULL), or the spread around mean; with hc,
 * every process's chunks exchanged (1: the exchange failed). */
static int fit_pass(const tsgs_dataset *ds, const double *mean, long c_lo,
                    long c_hi, int threads, tsgs__stop *stop, double *part,
                    size_t *bad, held_chunks *hc)
{
    const size_t dd = ds->d ? ds->d : 1;
    (void)threads;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static) \
    if (c_hi - c_lo > 1)
#endif
    for (long c = c_lo; c < c_hi; c++) {
        double *pc = part + (size_t)c * 3 * dd;
        bad[c] = mean ? spread(ds, (size_t)c, stop, mean, pc, pc + dd)
                      : range_and_sum(ds, (size_t)c, stop, pc, pc + dd,
                                      pc + 2 * dd);
    }
    return hc && held_exchange(hc, part, 3 * dd, bad);
}

static tsgs_status exchange_failed(tsgs_error *err)
{
    return tsgs__fail(err, TSGS_ERR_INTERNAL, NULL, 0,
                      "the scaler's fit: the exchange between the "
                      "processes failed");
}

static void held_chunks_clear(held_chunks *hc)
{
    if (hc->nrows)
        hc->h->release(hc->h->ctx, hc->rows, hc->nrows);
    free(hc->first);
    free(hc->rows);
    memset(hc, 0, sizeof *hc);
}

tsgs_status tsgs__scaler_fit(const tsgs_dataset *ds, tsgs_scaling kind,
                             tsgs__scaler *out, tsgs_error *err)
{
    return tsgs__scaler_fit_threads(ds, kind, 0, 1, out, err);
}

double tsgs__scaler_fit_bytes(size_t n, size_t d, size_t classes)
{
    const double nchunks = n ? (double)((n + FIT_CHUNK - 1) / FIT_CHUNK) : 1;
    /* lo, hi, shift, mul; 3 sums a column per chunk; then the class
     * stretch's sums per class and its three columns of totals */
    return sizeof(double) * (double)d *
           (4.0 + 3.0 * nchunks + (double)classes + 3.0);
}

tsgs_status tsgs__scaler_fit_threads(const tsgs_dataset *ds,
                                     tsgs_scaling kind, int zero_cols,
                                     int threads, tsgs__scaler *out,
                                     tsgs_error *err)
{
    return tsgs__scaler_fit_stop(ds, kind, zero_cols, threads, NULL, out,
                                 err);
}

/* The fit's arguments checked: an error, or TSGS_OK. */
static tsgs_status fit_refused(const tsgs_dataset *ds, tsgs_scaling kind,
                               const tsgs__scaler *out, tsgs_error *err)
{
    if (!ds || !out)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs__scaler_fit: NULL argument");
    if (kind != TSGS_SCALE_NONE && kind != TSGS_SCALE_ZSCORE &&
        kind != TSGS_SCALE_MINMAX && kind != TSGS_SCALE_CLASS &&
        kind != TSGS_SCALE_MAXABS)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "scale: unknown kind %d", (int)kind);
    if (ds->held && kind != TSGS_SCALE_NONE &&
        (tsgs__sparse(ds) || kind == TSGS_SCALE_MAXABS))
        return tsgs__fail(err, TSGS_ERR_UNSUPPORTED, NULL, 0,
                          "scale maxabs (or sparse rows) over processes "
                          "that read shares of the rows: not supported");
    return TSGS_OK;
}

/* What the passes of a dense fit work in. */
typedef struct {
    const tsgs_dataset *ds;
    int threads;
    tsgs__stop *stop;
    double *lo, *hi;   /* each column's range */
    double *part;      /* per chunk: lo, hi, sum (pass 1), then the
                          squared spread and the zeros (pass 2) */
    size_t *bad;       /* per chunk: its first non-finite value's mark */
    held_chunks hc;    /* held in shares (ds->held): this process's
                          chunks [c_lo, c_hi), the rows of them it lacks
                          fetched */
    long nc, c_lo, c_hi;
} fit_work;

static void fit_work_free(fit_work *w)
{
    free(w->lo);
    free(w->hi);
    free(w->part);
    free(w->bad);
    if (w->ds && w->ds->held)
        held_chunks_clear(&w->hc);
}

/* w for a fit of ds (fit_work_free it, failed or not); failed: an
 * allocation of the caller's failed (told to every process). */
static tsgs_status fit_work_init(fit_work *w, const tsgs_dataset *ds,
                                 int threads, tsgs__stop *stop, int failed,
                                 tsgs_error *err)
{
    memset(w, 0, sizeof *w);
    const tsgs__held *h = ds->held;
    const size_t d = ds->d, n = ds->n, dd = d ? d : 1;
    const size_t nchunks = n ? (n + FIT_CHUNK - 1) / FIT_CHUNK : 1;
    w->ds = ds;
    w->threads = threads;
    w->stop = stop;
    w->lo = malloc(sizeof(double) * dd);
    w->hi = malloc(sizeof(double) * dd);
    w->part = malloc(sizeof(double) * 3 * dd * nchunks);
    w->bad = malloc(sizeof(size_t) * nchunks);
    failed = failed || !w->lo || !w->hi || !w->part || !w->bad;
    if ((h && held_chunks_init(&w->hc, h, n, &failed)) || failed)
        return TSGS__NOMEM(err);
    for (size_t k = 0; k < d; k++) {
        w->lo[k] = INFINITY;
        w->hi[k] = -INFINITY;
    }
    w->nc = n ? (long)nchunks : 0;
    w->c_lo = h ? (long)w->hc.first[h->rank] : 0;
    w->c_hi = h ? (long)w->hc.first[h->rank + 1] : w->nc;
    return TSGS_OK;
}

/* A pass of w (mean NULL: pass 1, else pass 2; fit_pass); 1 when the
 * exchange failed. */
static int work_pass(fit_work *w, const double *mean)
{
    return fit_pass(w->ds, mean, w->c_lo, w->c_hi, w->threads, w->stop,
                    w->part, w->bad, w->ds->held ? &w->hc : NULL);
}

/* Pass 1: each column's range into w's lo and hi, its sum into sum (in
 * double, row by row for the cache). */
static tsgs_status fit_range(fit_work *w, double *sum, tsgs_error *err)
{
    const size_t d = w->ds->d, dd = d ? d : 1;
    if (work_pass(w, NULL))
        return exchange_failed(err);
    const size_t mark = first_mark(w->bad, w->nc);
    if (mark != SIZE_MAX)
        return mark == FIT_STOPPED
                   ? tsgs__stopped(err, "the scaler's fit")
                   : tsgs__fail(err, TSGS_ERR_DATA, NULL, 0,
                                "row %zu, feature %zu: value is not finite",
                                mark / d + 1, mark % d + 1);
    for (long c = 0; c < w->nc; c++) {
        const double *pc = w->part + (size_t)c * 3 * dd;
        for (size_t k = 0; k < d; k++) {
            w->lo[k] = pc[k] < w->lo[k] ? pc[k] : w->lo[k];
            w->hi[k] = pc[dd + k] > w->hi[k] ? pc[dd + k] : w->hi[k];
            sum[k] += pc[2 * dd + k];
        }
    }
    return TSGS_OK;
}

/* Pass 2 (two passes: no cancellation): shift from the columns' sums to
 * their means, mul 1 / their spread around them (zero_cols: see below). */
static tsgs_status fit_spread(fit_work *w, int zero_cols, double *shift,
                              double *mul, tsgs_error *err)
{
    const size_t d = w->ds->d, n = w->ds->n, dd = d ? d : 1;
    for (size_t k = 0; k < d; k++)
        shift[k] = n ? shift[k] / (double)n : 0.0;
    if (work_pass(w, shift))
        return exchange_failed(err);
    if (first_mark(w->bad, w->nc) == FIT_STOPPED)
        return tsgs__stopped(err, "the scaler's fit");
    /* chunk 0's slots take the totals, summed in chunk order */
    double *sq = w->part, *zeros = w->part + dd;
    for (long c = 1; c < w->nc; c++)
        for (size_t k = 0; k < d; k++) {
            sq[k] += w->part[(size_t)c * 3 * dd + k];
            zeros[k] += w->part[(size_t)c * 3 * dd + dd + k];
        }
    for (size_t k = 0; k < d; k++) {
        double sd = n ? sqrt(sq[k] / (double)n) : 0.0;
        mul[k] = sd > 0.0 ? 1.0 / sd : 1.0;
        /* zero_cols: a mostly-zero column (a pixel rarely lit, a rare
         * count) would be stretched by 1 / sd, its few non-zeros becoming
         * outliers that rule the distances (a digits pixel lit on 1 row
         * in 1,000 reaches 30); by max |x| it stays in [-1, 1] and its
         * zeros zero, as for sparse rows */
        const double top = fabs(w->lo[k]) > fabs(w->hi[k]) ? fabs(w->lo[k])
                                                           : fabs(w->hi[k]);
        if (zero_cols && n && top > 0.0 &&
            zeros[k] >= TSGS__ZERO_COLS_SHARE * (double)n) {
            shift[k] = 0.0;
            mul[k] = 1.0 / top;
        }
    }
    return TSGS_OK;
}

tsgs_status tsgs__scaler_fit_stop(const tsgs_dataset *ds, tsgs_scaling kind,
                                  int zero_cols, int threads,
                                  tsgs__stop *stop, tsgs__scaler *out,
                                  tsgs_error *err)
{
    tsgs_status st = fit_refused(ds, kind, out, err);
    if (st != TSGS_OK)
        return st;
    if (kind != TSGS_SCALE_NONE && (tsgs__sparse(ds) ||
                                    kind == TSGS_SCALE_MAXABS))
        return fit_maxabs(ds, out, err);
    tsgs__scaler s = {kind, ds->d, NULL, NULL, 0, NULL, NULL};
    if (kind == TSGS_SCALE_NONE) {
        *out = s;
        return TSGS_OK;
    }
    const size_t d = ds->d, n = ds->n, dd = d ? d : 1;
    s.shift = calloc(dd, sizeof(double));
    s.mul = calloc(dd, sizeof(double));
    fit_work w;
    st = fit_work_init(&w, ds, threads, stop, !s.shift || !s.mul, err);
    if (st == TSGS_OK)
        st = fit_range(&w, s.shift, err);
    if (st == TSGS_OK &&
        (kind == TSGS_SCALE_ZSCORE || kind == TSGS_SCALE_CLASS)) {
        st = fit_spread(&w, zero_cols, s.shift, s.mul, err);
        if (st == TSGS_OK && kind == TSGS_SCALE_CLASS)
            st = class_stretch(ds, threads, s.mul, err);
    } else if (st == TSGS_OK) {
        for (size_t k = 0; k < d; k++) {
            s.shift[k] = n ? 0.5 * (w.lo[k] + w.hi[k]) : 0.0;
            s.mul[k] = n && w.hi[k] > w.lo[k] ? 2.0 / (w.hi[k] - w.lo[k])
                                              : 1.0;
        }
    }
    /* A constant column (min == max, found exactly on the floats): shift by
     * its value so that it maps to exactly 0, and do not stretch it. */
    for (size_t k = 0; st == TSGS_OK && k < d && n; k++)
        if (w.lo[k] == w.hi[k]) {
            s.shift[k] = w.lo[k];
            s.mul[k] = 1.0;
        }
    fit_work_free(&w);
    if (st != TSGS_OK) {
        tsgs__scaler_clear(&s);
        return st;
    }
    *out = s;
    return TSGS_OK;
}

/* A copy of n doubles (NULL for NULL) into *out; 0, or -1 out of memory. */
static int copy_doubles(const double *a, size_t n, double **out)
{
    *out = NULL;
    if (!a)
        return 0;
    *out = malloc(sizeof(double) * (n ? n : 1));
    if (!*out)
        return -1;
    memcpy(*out, a, sizeof(double) * n);
    return 0;
}

tsgs_status tsgs__scaler_copy(const tsgs__scaler *s, tsgs__scaler *out,
                              tsgs_error *err)
{
    tsgs__scaler c = *s;
    c.shift = c.mul = c.smul = NULL;
    c.scol = NULL;
    const size_t nsc = s->scol ? s->nsc : 0;
    if (s->scol && (c.scol = malloc(sizeof(uint32_t) * (nsc ? nsc : 1))))
        memcpy(c.scol, s->scol, sizeof(uint32_t) * nsc);
    if (copy_doubles(s->shift, s->d, &c.shift) ||
        copy_doubles(s->mul, s->d, &c.mul) ||
        copy_doubles(s->smul, nsc, &c.smul) || (s->scol && !c.scol)) {
        tsgs__scaler_clear(&c);
        return TSGS__NOMEM(err);
    }
    *out = c;
    return TSGS_OK;
}

void tsgs__scaler_clear(tsgs__scaler *s)
{
    if (!s)
        return;
    free(s->shift);
    free(s->mul);
    free(s->scol);
    free(s->smul);
    s->shift = s->mul = s->smul = NULL;
    s->scol = NULL;
    s->nsc = 0;
    s->d = 0;
    s->kind = TSGS_SCALE_NONE;
}

void tsgs__scaler_apply(const tsgs__scaler *s, const float *row, size_t d_row,
                        float *out)
{
    const size_t d = s->d, m = d_row < d ? d_row : d;
    if (s->kind == TSGS_SCALE_MAXABS) {
        if (m && out != row)
            memcpy(out, row, sizeof(float) * m);
        for (size_t k = m; k < d; k++)
            out[k] = 0.0f;
        for (size_t j = 0; j < s->nsc && s->scol[j] < m; j++)
            out[s->scol[j]] = (float)((double)row[s->scol[j]] * s->smul[j]);
        return;
    }
    if (s->kind == TSGS_SCALE_NONE || !s->shift || !s->mul) {
        if (m)
            memcpy(out, row, sizeof(float) * m);
        for (size_t k = m; k < d; k++)
            out[k] = 0.0f;
        return;
    }
#pragma omp simd
    for (size_t k = 0; k < m; k++)
        out[k] = (float)(((double)row[k] - s->shift[k]) * s->mul[k]);
    /* Columns the row lacks are zeros, scaled like any other value. */
    for (size_t k = m; k < d; k++)
        out[k] = (float)(-s->shift[k] * s->mul[k]);
}

/* The kernel width when none is given: 1 / (2 sum_k var_k) of the scaled
 * rows, so that a typical pair of rows, at squared distance
 * 2 sum_k var_k, has k(x, x') = exp(-1). On z-scored data that is 1/(2d),
 * half LIBSVM's 1/d default, which assumes [-1, 1] scaling. */
tsgs_status tsgs__spread_sigma(const tsgs_dataset *ds, const tsgs__scaler *sc,
                               double *sigma, tsgs_error *err)
{
    const size_t d = ds->d;
    const size_t stride = ds->n > 100000 ? ds->n / 100000 : 1;
    double *s1 = calloc(d, sizeof(double)), *s2 = calloc(d, sizeof(double));
    float *row = malloc(sizeof(float) * d);
    if (!s1 || !s2 || !row) {
        free(s1);
        free(s2);
        free(row);
        return TSGS__NOMEM(err);
    }
    size_t n = 0;
    for (size_t i = 0; i < ds->n; i += stride, n++) {
        tsgs__scaler_apply(sc, ds->x + i * d, d, row);
        for (size_t k = 0; k < d; k++) {
            s1[k] += row[k];
            s2[k] += (double)row[k] * row[k];
        }
    }
    double total = 0.0;
    for (size_t k = 0; k < d && n > 0; k++) {
        double mean = s1[k] / (double)n;
        total += s2[k] / (double)n - mean * mean;
    }
    free(s1);
    free(s2);
    free(row);
    /* constant data has no spread: fall back to LIBSVM's 1 / d */
    *sigma = total > 0.0 ? 1.0 / (2.0 * total) : 1.0 / (double)d;
    return TSGS_OK;
}
