/* Scaled rows for the kernel, dense or sparse: the one place that turns a
 * dataset's rows (whatever their storage) into what the solvers and the
 * prediction evaluate, so that they do not each branch on the storage. */
#include "data/data.h"

#include <stdlib.h>
#include <string.h>

tsgs__rows tsgs__rows_dense(const float *X, size_t n, size_t d)
{
    tsgs__rows R;
    memset(&R, 0, sizeof R);
    R.n = n;
    R.d = d;
    R.x = (float *)X; /* a view: never written through */
    return R;
}

tsgs__rows tsgs__rows_sub(const tsgs__rows *R, size_t i0, size_t n)
{
    tsgs__rows S = *R;
    S.n = n;
    S.cap_rows = S.cap_nnz = 0;
    if (R->x)
        S.x = R->x + i0 * R->d;
    else
        S.ptr = R->ptr + i0; /* offsets stay absolute into col / val */
    return S;
}

int tsgs__rows_sparse_for(const tsgs_dataset *ds, const tsgs__scaler *sc)
{
    return tsgs__sparse(ds) && tsgs__scaler_keeps_zeros(sc);
}

int tsgs__rows_init(tsgs__rows *R, const tsgs_dataset *ds,
                    const tsgs__scaler *sc, size_t cap)
{
    memset(R, 0, sizeof *R);
    R->d = ds->d;
    R->cap_rows = cap;
    if (!tsgs__rows_sparse_for(ds, sc)) {
        R->x = malloc(sizeof(float) * (cap ? cap : 1) * (ds->d ? ds->d : 1));
        return R->x ? 0 : -1;
    }
    R->ptr = calloc(cap + 1, sizeof(size_t));
    return R->ptr ? 0 : -1;
}

int tsgs__rows_init_sparse(tsgs__rows *R, size_t d, size_t cap)
{
    memset(R, 0, sizeof *R);
    R->d = d;
    R->cap_rows = cap;
    R->ptr = calloc(cap + 1, sizeof(size_t));
    return R->ptr ? 0 : -1;
}

int tsgs__rows_init_dense(tsgs__rows *R, size_t d, size_t cap)
{
    memset(R, 0, sizeof *R);
    R->d = d;
    R->cap_rows = cap;
    R->x = malloc(sizeof(float) * (cap ? cap : 1) * (d ? d : 1));
    return R->x ? 0 : -1;
}

void tsgs__rows_free(tsgs__rows *R)
{
    free(R->x);
    free(R->ptr);
    free(R->col);
    free(R->val);
    memset(R, 0, sizeof *R);
}

/* Room for nnz non-zeros. */
static int reserve_nnz(tsgs__rows *R, size_t nnz)
{
    if (nnz <= R->cap_nnz && R->col)
        return 0;
    size_t cap = nnz > 2 * R->cap_nnz ? nnz : 2 * R->cap_nnz;
    uint32_t *col = realloc(R->col, sizeof(uint32_t) * (cap ? cap : 1));
    if (!col)
        return -1;
    R->col = col;
    float *val = realloc(R->val, sizeof(float) * (cap ? cap : 1));
    if (!val)
        return -1;
    R->val = val;
    R->cap_nnz = cap;
    return 0;
}

/* Row offsets of the gathered rows; -1: out of memory. */
static int plan_sparse(tsgs__rows *R, const tsgs_dataset *ds,
                       const size_t *idx, size_t n)
{
    R->ptr[0] = 0;
    for (size_t i = 0; i < n; i++) {
        size_t r = idx ? idx[i] : i;
        R->ptr[i + 1] = R->ptr[i] + ds->ptr[r + 1] - ds->ptr[r];
    }
    R->n = n;
    return reserve_nnz(R, R->ptr[n]);
}

/* Row i of the gathered rows (ds's row r), scaled. */
static void put_row(tsgs__rows *R, const tsgs_dataset *ds,
                    const tsgs__scaler *sc, size_t i, size_t r)
{
    if (R->x) {
        float *out = R->x + i * R->d;
        if (tsgs__sparse(ds)) {
            /* sparse rows through a scaler that moves zeros (a dense
             * model's, at prediction): densified one row at a time */
            tsgs__row_dense(ds, r, out);
            tsgs__scaler_apply(sc, out, ds->d, out);
        } else {
            tsgs__scaler_apply(sc, ds->x + r * ds->d, ds->d, out);
        }
        return;
    }
    const size_t a = ds->ptr[r], len = ds->ptr[r + 1] - a, o = R->ptr[i];
    memcpy(R->col + o, ds->col + a, sizeof(uint32_t) * len);
    if (sc->kind != TSGS_SCALE_MAXABS) {
        memcpy(R->val + o, ds->val + a, sizeof(float) * len);
        return;
    }
    for (size_t j = 0; j < len; j++)
        R->val[o + j] = (float)((double)ds->val[a + j] *
                                tsgs__scaler_mul(sc, ds->col[a + j]));
}

int tsgs__rows_gather(tsgs__rows *R, const tsgs_dataset *ds,
                      const tsgs__scaler *sc, const size_t *idx, size_t n)
{
    if (!R->x && plan_sparse(R, ds, idx, n))
        return -1;
    R->n = n;
    for (size_t i = 0; i < n; i++)
        put_row(R, ds, sc, i, idx ? idx[i] : i);
    return 0;
}

void tsgs__rows_put_dense(tsgs__rows *R, const tsgs_dataset *ds,
                          const tsgs__scaler *sc, const size_t *idx,
                          size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        put_row(R, ds, sc, i, idx[i]);
}

/* The empty volatile asm keeps the loop: gcc 12 deletes a loop of
 * prefetches alone as one with no effect (it did: the gathers then
 * missed, 36 instead of 9 us a step on one thread). */
void tsgs__rows_prefetch(const tsgs__rows_ahead *a, size_t from, size_t to)
{
    const size_t line = 64 / sizeof(float);
    for (size_t i = from; a && a->x && i < to && i < a->n; i++) {
        const float *row = a->x + a->idx[i] * a->d;
        for (size_t k = 0; k < a->d; k += line)
            __builtin_prefetch(row + k);
        __builtin_prefetch(row + a->d - 1);
        __asm__ __volatile__("");
    }
}

void tsgs__rows_ahead_share(const tsgs__rows_ahead *a, size_t team,
                            size_t tid, size_t *lo, size_t *hi)
{
    const size_t n = a->n;
    const size_t tail = team < 2 ? 0 : a->tail < n ? a->tail : n;
    if (team < 2) {
        *lo = 0;
        *hi = n;
    } else if (tid == 0) {
        *lo = n - tail;
        *hi = n;
    } else {
        const size_t w = tid - 1, W = team - 1;
        *lo = n * w / W;
        *hi = n * (w + 1) / W;
        if (*hi > n - tail)
            *hi = n - tail;
        if (*lo > *hi)
            *lo = *hi;
    }
}

void tsgs__rows_gather_team(tsgs__rows *R, const tsgs_dataset *ds,
                            const tsgs__scaler *sc, const size_t *idx,
                            size_t n, int *failed)
{
    int bad = 0;
    if (!R->x) {
#ifdef _OPENMP
#pragma omp single copyprivate(bad)
#endif
        bad = plan_sparse(R, ds, idx, n);
    } else {
        /* read by no thread before the caller's next barrier */
#ifdef _OPENMP
#pragma omp single nowait
#endif
        R->n = n;
    }
    if (bad) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
        *failed = 1;
        return;
    }
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 16) nowait
#endif
    for (size_t i = 0; i < n; i++)
        put_row(R, ds, sc, i, idx ? idx[i] : i);
}

int tsgs__rows_copy(tsgs__rows *R, const tsgs__rows *S, const size_t *idx,
                    size_t n)
{
    R->n = n;
    if (S->x) {
        for (size_t i = 0; i < n; i++)
            memcpy(R->x + i * S->d, S->x + (idx ? idx[i] : i) * S->d,
                   sizeof(float) * S->d);
        return 0;
    }
    R->ptr[0] = 0;
    for (size_t i = 0; i < n; i++) {
        size_t r = idx ? idx[i] : i;
        R->ptr[i + 1] = R->ptr[i] + S->ptr[r + 1] - S->ptr[r];
    }
    if (reserve_nnz(R, R->ptr[n]))
        return -1;
    for (size_t i = 0; i < n; i++) {
        size_t r = idx ? idx[i] : i;
        size_t a = S->ptr[r], len = S->ptr[r + 1] - a;
        memcpy(R->col + R->ptr[i], S->col + a, sizeof(uint32_t) * len);
        memcpy(R->val + R->ptr[i], S->val + a, sizeof(float) * len);
    }
    return 0;
}

int tsgs__rows_clone(tsgs__rows *R, const tsgs__rows *S)
{
    int bad = S->x ? tsgs__rows_init_dense(R, S->d, S->n)
                   : tsgs__rows_init_sparse(R, S->d, S->n);
    if (!bad)
        bad = tsgs__rows_copy(R, S, NULL, S->n);
    if (bad)
        tsgs__rows_free(R);
    return bad;
}

int tsgs__rows_equal(const tsgs__rows *A, const tsgs__rows *B)
{
    if (A->n != B->n || A->d != B->d || !A->x != !B->x)
        return 0;
    if (A->x)
        return A->n == 0 ||
               memcmp(A->x, B->x, sizeof(float) * A->n * A->d) == 0;
    /* a view's offsets start where its rows do */
    const size_t a0 = A->ptr[0], b0 = B->ptr[0];
    for (size_t i = 1; i <= A->n; i++)
        if (A->ptr[i] - a0 != B->ptr[i] - b0)
            return 0;
    const size_t nnz = A->ptr[A->n] - a0;
    return nnz == 0 ||
           (memcmp(A->col + a0, B->col + b0, sizeof(uint32_t) * nnz) == 0 &&
            memcmp(A->val + a0, B->val + b0, sizeof(float) * nnz) == 0);
}

double tsgs__rows_sqdist(const tsgs__rows *A, size_t a, const tsgs__rows *B,
                         size_t b)
{
    double s = 0.0;
    if (A->x && B->x) {
        const float *x = A->x + a * A->d, *y = B->x + b * B->d;
        for (size_t k = 0; k < A->d; k++) {
            double t = (double)x[k] - (double)y[k];
            s += t * t;
        }
        return s;
    }
    if (!A->x && !B->x) { /* merge of two ascending column lists */
        size_t i = A->ptr[a], ie = A->ptr[a + 1];
        size_t j = B->ptr[b], je = B->ptr[b + 1];
        while (i < ie || j < je) {
            double t;
            if (j == je || (i < ie && A->col[i] < B->col[j]))
                t = A->val[i++];
            else if (i == ie || B->col[j] < A->col[i])
                t = -(double)B->val[j++];
            else
                t = (double)A->val[i++] - (double)B->val[j++];
            s += t * t;
        }
        return s;
    }
    /* one of each: |x|^2 + |y|^2 - 2 x.y over the sparse one's entries */
    const tsgs__rows *S = A->x ? B : A, *D = A->x ? A : B;
    size_t si = A->x ? b : a, di = A->x ? a : b;
    const float *y = D->x + di * D->d;
    for (size_t k = 0; k < D->d; k++)
        s += (double)y[k] * y[k];
    for (size_t j = S->ptr[si]; j < S->ptr[si + 1]; j++) {
        double v = S->val[j], w = y[S->col[j]];
        s += (v - w) * (v - w) - w * w;
    }
    return s;
}
