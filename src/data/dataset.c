/* Datasets: float rows, dense or sparse (CSR), with raw double labels
 * (NaN = unlabeled); building, accessors, appending unlabeled rows and
 * stratified label subsampling. */
#include "data/data.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* n * d without overflow of n * d * elem bytes; 0 on overflow. */
static int size_ok(size_t n, size_t d, size_t elem)
{
    return d == 0 || n <= SIZE_MAX / elem / d;
}

tsgs_status tsgs__dataset_new(size_t d, size_t cap, tsgs_dataset **out,
                              tsgs_error *err)
{
    if (!out)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs__dataset_new: NULL argument");
    if (!size_ok(cap, d, sizeof(float)) || cap > SIZE_MAX / sizeof(double))
        return tsgs__fail(err, TSGS_ERR_NOMEM, NULL, 0,
                          "dataset of %zu x %zu is too large", cap, d);
    tsgs_dataset *ds = calloc(1, sizeof *ds);
    if (!ds)
        return TSGS__NOMEM(err);
    /* At least one element so that NULL always means out of memory. */
    size_t nx = cap && d ? cap * d : 1;
    ds->x = malloc(sizeof(float) * nx);
    ds->y = malloc(sizeof(double) * (cap ? cap : 1));
    if (!ds->x || !ds->y) {
        tsgs_dataset_free(ds);
        return TSGS__NOMEM(err);
    }
    ds->d = d;
    ds->cap = cap;
    *out = ds;
    return TSGS_OK;
}

tsgs_status tsgs_dataset_from_dense(size_t n, size_t d, const float *x,
                                    const double *y, tsgs_dataset **out,
                                    tsgs_error *err)
{
    if (!out || (!x && n * d > 0))
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_dataset_from_dense: NULL argument");
    tsgs_dataset *ds = NULL;
    tsgs_status st = tsgs__dataset_new(d, n, &ds, err);
    if (st != TSGS_OK)
        return st;
    if (n * d > 0)
        memcpy(ds->x, x, sizeof(float) * n * d);
    for (size_t i = 0; i < n; i++)
        ds->y[i] = y && !isnan(y[i]) ? y[i] : TSGS_UNLABELED;
    ds->n = n;
    *out = ds;
    return TSGS_OK;
}

tsgs_status tsgs_dataset_wrap_dense(size_t n, size_t d, const float *x,
                                    const double *y, tsgs_dataset **out,
                                    tsgs_error *err)
{
    if (!out || !x)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_dataset_wrap_dense: NULL argument");
    if (!size_ok(n, d, sizeof(float)) || n > SIZE_MAX / sizeof(double))
        return tsgs__fail(err, TSGS_ERR_NOMEM, NULL, 0,
                          "dataset of %zu x %zu is too large", n, d);
    tsgs_dataset *ds = calloc(1, sizeof *ds);
    double *labels = malloc(sizeof(double) * (n ? n : 1));
    if (!ds || !labels) {
        free(ds);
        free(labels);
        return TSGS__NOMEM(err);
    }
    for (size_t i = 0; i < n; i++)
        labels[i] = y && !isnan(y[i]) ? y[i] : TSGS_UNLABELED;
    /* The rows are only read while borrowed (see own_rows). */
    ds->x = (float *)x;
    ds->x_borrowed = 1;
    ds->y = labels;
    ds->n = ds->cap = n;
    ds->d = d;
    *out = ds;
    return TSGS_OK;
}

/* Gives a dataset rows of its own on the heap before anything changes or
 * grows them: borrowed rows (tsgs_dataset_wrap_dense) and rows mapped from
 * a .npy file. */
static tsgs_status own_rows(tsgs_dataset *ds, tsgs_error *err)
{
    if (!ds->x_borrowed && !ds->map)
        return TSGS_OK;
    size_t nx = ds->n && ds->d ? ds->n * ds->d : 1;
    float *x = malloc(sizeof(float) * nx);
    if (!x)
        return TSGS__NOMEM(err);
    if (ds->n && ds->d)
        memcpy(x, ds->x, sizeof(float) * ds->n * ds->d);
    if (ds->map)
        munmap(ds->map, ds->map_len);
    ds->map = NULL;
    ds->map_len = 0;
    ds->x_borrowed = 0;
    ds->x = x;
    ds->cap = ds->n;
    return TSGS_OK;
}

int tsgs__held_fetch(const tsgs_dataset *ds, const size_t *idx, size_t n,
                     int failed)
{
    if (!ds->held)
        return failed;
    return ds->held->fetch(ds->held->ctx, idx, n, 0, failed);
}

void tsgs__held_release(const tsgs_dataset *ds, const size_t *idx, size_t n)
{
    if (ds->held)
        ds->held->release(ds->held->ctx, idx, n);
}

void tsgs_dataset_free(tsgs_dataset *ds)
{
    if (!ds)
        return;
    if (ds->held_free)
        ds->held_free(ds->held);
    if (ds->map)
        munmap(ds->map, ds->map_len);
    else if (!ds->x_borrowed)
        free(ds->x);
    free(ds->ptr);
    free(ds->col);
    free(ds->val);
    free(ds->y);
    free(ds);
}

size_t tsgs_dataset_rows(const tsgs_dataset *ds) { return ds ? ds->n : 0; }

size_t tsgs_dataset_features(const tsgs_dataset *ds)
{
    return ds ? ds->d : 0;
}

void tsgs_dataset_layout(const tsgs_dataset *ds, tsgs_data_layout *out)
{
    if (!out)
        return;
    if (ds)
        *out = ds->layout;
    else
        memset(out, 0, sizeof *out);
}

const float *tsgs_dataset_row(const tsgs_dataset *ds, size_t i)
{
    if (!ds || i >= ds->n || tsgs__sparse(ds))
        return NULL;
    return ds->x + i * ds->d;
}

int tsgs_dataset_is_sparse(const tsgs_dataset *ds)
{
    return ds && tsgs__sparse(ds);
}

size_t tsgs_dataset_nonzeros(const tsgs_dataset *ds)
{
    return ds ? tsgs__dataset_nnz(ds) : 0;
}

size_t tsgs__dataset_nnz(const tsgs_dataset *ds)
{
    if (tsgs__sparse(ds))
        return ds->ptr[ds->n];
    size_t nz = 0;
    for (size_t k = 0; k < ds->n * ds->d; k++)
        nz += ds->x[k] != 0.0f;
    return nz;
}

void tsgs__row_dense(const tsgs_dataset *ds, size_t i, float *out)
{
    if (!tsgs__sparse(ds)) {
        memcpy(out, ds->x + i * ds->d, sizeof(float) * ds->d);
        return;
    }
    memset(out, 0, sizeof(float) * ds->d);
    for (size_t j = ds->ptr[i]; j < ds->ptr[i + 1]; j++)
        out[ds->col[j]] = ds->val[j];
}

/* Sparse rows pay 8 bytes per non-zero (index and value) against 4 per
 * entry dense, and the kernel's sparse path is slower per non-zero than
 * the dense one per entry: keep rows dense below this width, or unless
 * sparse storage is at least this many times smaller. */
#define SPARSE_MIN_D 4096
#define SPARSE_MIN_GAIN 8.0

int tsgs__keep_dense(size_t n, size_t d, size_t nnz)
{
    double dense = (double)n * (double)d * sizeof(float);
    double sparse = (double)nnz * (sizeof(float) + sizeof(uint32_t)) +
                    (double)(n + 1) * sizeof(size_t);
    return d < SPARSE_MIN_D || dense < SPARSE_MIN_GAIN * sparse;
}

int tsgs__keep_dense_width(size_t d) { return d < SPARSE_MIN_D; }

tsgs_status tsgs__dataset_from_csr(size_t n, size_t d, size_t *ptr,
                                   uint32_t *col, float *val, double *y,
                                   tsgs_dataset **out, tsgs_error *err)
{
    tsgs_dataset *ds = calloc(1, sizeof *ds);
    if (!ds || !ptr || !col || !val || !y) {
        free(ds);
        free(ptr);
        free(col);
        free(val);
        free(y);
        return TSGS__NOMEM(err);
    }
    ds->n = ds->cap = n;
    ds->d = d;
    ds->ptr = ptr;
    ds->col = col;
    ds->val = val;
    ds->y = y;
    *out = ds;
    return TSGS_OK;
}

/* The checks of tsgs_dataset_from_csr, every entry before anything is
 * allocated; messages name the row and the array entry (0-based, as the
 * caller's arrays). */
static tsgs_status csr_check(size_t n, size_t d, size_t nnz,
                             const size_t *indptr, const uint32_t *indices,
                             const float *values, const double *y,
                             tsgs_error *err)
{
    static const char who[] = "tsgs_dataset_from_csr";
    if (indptr[0] != 0)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "%s: indptr[0] = %zu: the first row starts at 0",
                          who, indptr[0]);
    if (indptr[n] != nnz)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "%s: indptr[%zu] = %zu: the last row ends at nnz "
                          "= %zu",
                          who, n, indptr[n], nnz);
    for (size_t i = 0; i < n; i++) {
        const size_t a = indptr[i], b = indptr[i + 1];
        /* a row past nnz would read beyond the arrays: checked before
         * its entries are */
        if (b < a || b > nnz)
            return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                              "%s: row %zu: indptr[%zu] = %zu is %s "
                              "indptr[%zu] = %zu (indptr must not decrease "
                              "and end at nnz = %zu)",
                              who, i, i + 1, b, b < a ? "below" : "above",
                              b < a ? i : n, b < a ? a : indptr[n], nnz);
        for (size_t j = a; j < b; j++) {
            if (indices[j] >= d)
                return tsgs__fail(err, TSGS_ERR_DIM, NULL, 0,
                                  "%s: row %zu: indices[%zu] = %" PRIu32
                                  " is not below d = %zu",
                                  who, i, j, indices[j], d);
            if (j > a && indices[j] <= indices[j - 1])
                return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                                  "%s: row %zu: indices[%zu] = %" PRIu32
                                  " is not above the previous index %" PRIu32
                                  " (indices must increase within a row: "
                                  "sorted, no duplicates)",
                                  who, i, j, indices[j], indices[j - 1]);
            if (!isfinite(values[j]))
                return tsgs__fail(err, TSGS_ERR_DATA, NULL, 0,
                                  "%s: row %zu, column %" PRIu32
                                  ": values[%zu] is NaN or infinite",
                                  who, i, indices[j], j);
        }
    }
    if (y)
        for (size_t i = 0; i < n; i++)
            if (isinf(y[i]))
                return tsgs__fail(err, TSGS_ERR_DATA, NULL, 0,
                                  "%s: row %zu: y[%zu] is infinite (NaN "
                                  "marks an unlabeled row)",
                                  who, i, i);
    return TSGS_OK;
}

tsgs_status tsgs_dataset_from_csr(size_t n, size_t d, size_t nnz,
                                  const size_t *indptr,
                                  const uint32_t *indices,
                                  const float *values, const double *y,
                                  tsgs_dataset **out, tsgs_error *err)
{
    if (!out || !indptr || (nnz > 0 && (!indices || !values)))
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_dataset_from_csr: NULL argument");
    if (n >= SIZE_MAX / sizeof(size_t) ||
        nnz > SIZE_MAX / sizeof(float) - 1)
        return tsgs__fail(err, TSGS_ERR_NOMEM, NULL, 0,
                          "dataset of %zu rows and %zu non-zeros is too "
                          "large",
                          n, nnz);
    tsgs_status st = csr_check(n, d, nnz, indptr, indices, values, y, err);
    if (st != TSGS_OK)
        return st;
    tsgs_dataset *ds = NULL;
    /* Stored as tsgs_dataset_read stores the same rows of a LIBSVM file,
     * so that both train and predict alike, bit for bit: dense unless
     * wide and mostly zeros. */
    if (d == 0 || tsgs__keep_dense(n, d, nnz)) {
        if ((st = tsgs__dataset_new(d, n, &ds, err)) != TSGS_OK)
            return st;
        if (n && d)
            memset(ds->x, 0, sizeof(float) * n * d);
        for (size_t i = 0; i < n; i++)
            for (size_t j = indptr[i]; j < indptr[i + 1]; j++)
                ds->x[i * d + indices[j]] = values[j];
        ds->n = n;
    } else {
        size_t *ptr = malloc(sizeof(size_t) * (n + 1));
        uint32_t *col = malloc(sizeof(uint32_t) * (nnz ? nnz : 1));
        float *val = malloc(sizeof(float) * (nnz ? nnz : 1));
        double *lab = malloc(sizeof(double) * (n ? n : 1));
        if (ptr && col && val) {
            memcpy(ptr, indptr, sizeof(size_t) * (n + 1));
            if (nnz) {
                memcpy(col, indices, sizeof(uint32_t) * nnz);
                memcpy(val, values, sizeof(float) * nnz);
            }
        }
        /* takes the arrays over, and frees them when one is missing */
        if ((st = tsgs__dataset_from_csr(n, d, ptr, col, val, lab, &ds,
                                         err)) != TSGS_OK)
            return st;
    }
    for (size_t i = 0; i < n; i++)
        ds->y[i] = y && !isnan(y[i]) ? y[i] : TSGS_UNLABELED;
    *out = ds;
    return TSGS_OK;
}

tsgs_status tsgs__dataset_densify(tsgs_dataset *ds, double max_bytes,
                                  const char *who, tsgs_error *err)
{
    if (!tsgs__sparse(ds))
        return TSGS_OK;
    const double bytes = (double)ds->n * (double)ds->d * sizeof(float);
    if (bytes > max_bytes || !size_ok(ds->n, ds->d, sizeof(float)))
        return tsgs__fail(err, TSGS_ERR_UNSUPPORTED, NULL, 0,
                          "%s needs dense rows, and %zu rows x %zu "
                          "features as dense floats take %.3g bytes (more "
                          "than %.3g): use the safe, tsg or dsg solver, "
                          "which train on sparse rows",
                          who, ds->n, ds->d, bytes, max_bytes);
    float *x = malloc(sizeof(float) * (ds->n && ds->d ? ds->n * ds->d : 1));
    if (!x)
        return TSGS__NOMEM(err);
    for (size_t i = 0; i < ds->n; i++)
        tsgs__row_dense(ds, i, x + i * ds->d);
    free(ds->ptr);
    free(ds->col);
    free(ds->val);
    ds->ptr = NULL;
    ds->col = NULL;
    ds->val = NULL;
    ds->x = x;
    ds->cap = ds->n;
    return TSGS_OK;
}

double tsgs_dataset_label(const tsgs_dataset *ds, size_t i)
{
    if (!ds || i >= ds->n)
        return TSGS_UNLABELED;
    return ds->y[i];
}

size_t tsgs_dataset_labeled_count(const tsgs_dataset *ds)
{
    size_t c = 0;
    if (!ds)
        return 0;
    for (size_t i = 0; i < ds->n; i++)
        c += isnan(ds->y[i]) ? 0u : 1u;
    return c;
}

tsgs_status tsgs_dataset_classes(const tsgs_dataset *ds, double **labels,
                                 size_t *k, tsgs_error *err)
{
    if (!ds || !labels || !k)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_dataset_classes: NULL argument");
    return tsgs__class_values(ds, 1, labels, k, NULL, err);
}

int tsgs_is_unlabeled(double label) { return isnan(label); }

tsgs_status tsgs_dataset_drop_features(tsgs_dataset *ds, size_t d_keep,
                                       size_t *dropped, tsgs_error *err)
{
    if (!ds)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_dataset_drop_features: NULL dataset");
    size_t nz = 0;
    if (d_keep < ds->d && tsgs__sparse(ds)) {
        /* keep the entries below d_keep, in place (they only move down) */
        size_t w = 0, j = 0;
        for (size_t i = 0; i < ds->n; i++) {
            const size_t end = ds->ptr[i + 1];
            ds->ptr[i] = w;
            for (; j < end; j++) {
                if (ds->col[j] < d_keep) {
                    ds->col[w] = ds->col[j];
                    ds->val[w++] = ds->val[j];
                } else {
                    nz += ds->val[j] != 0.0f;
                }
            }
        }
        ds->ptr[ds->n] = w;
        ds->d = d_keep;
    } else if (d_keep < ds->d) {
        tsgs_status st = own_rows(ds, err);
        if (st != TSGS_OK)
            return st;
        /* row i moves to i * d_keep: never past its own start, so an
         * in-place forward copy is safe */
        for (size_t i = 0; i < ds->n; i++) {
            const float *row = ds->x + i * ds->d;
            for (size_t k = d_keep; k < ds->d; k++)
                nz += row[k] != 0.0f;
            memmove(ds->x + i * d_keep, row, sizeof(float) * d_keep);
        }
        ds->d = d_keep;
    }
    if (dropped)
        *dropped = nz;
    return TSGS_OK;
}

/* append_unlabeled when either side is sparse: the result is sparse
 * (dense rows of the other side are stored by their non-zeros). */
static tsgs_status append_sparse(tsgs_dataset *dst, const tsgs_dataset *src,
                                 tsgs_error *err)
{
    const size_t n0 = dst->n, ns = src->n, n = n0 + ns;
    const size_t d = dst->d > src->d ? dst->d : src->d;
    if (d > (size_t)UINT32_MAX + 1)
        return tsgs__fail(err, TSGS_ERR_DIM, NULL, 0,
                          "%zu features: sparse rows hold at most 2^32", d);
    const size_t nz0 = tsgs__dataset_nnz(dst), nzs = tsgs__dataset_nnz(src);
    size_t *ptr = malloc(sizeof(size_t) * (n + 1));
    uint32_t *col = malloc(sizeof(uint32_t) * (nz0 + nzs + 1));
    float *val = malloc(sizeof(float) * (nz0 + nzs + 1));
    double *y = malloc(sizeof(double) * (n ? n : 1));
    if (!ptr || !col || !val || !y) {
        free(ptr);
        free(col);
        free(val);
        free(y);
        return TSGS__NOMEM(err);
    }
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        const tsgs_dataset *from = i < n0 ? dst : src;
        const size_t r = i < n0 ? i : i - n0;
        ptr[i] = w;
        if (tsgs__sparse(from)) {
            for (size_t j = from->ptr[r]; j < from->ptr[r + 1]; j++) {
                col[w] = from->col[j];
                val[w++] = from->val[j];
            }
        } else {
            const float *row = from->x + r * from->d;
            for (size_t k = 0; k < from->d; k++)
                if (row[k] != 0.0f) {
                    col[w] = (uint32_t)k;
                    val[w++] = row[k];
                }
        }
        y[i] = i < n0 ? dst->y[i] : TSGS_UNLABELED;
    }
    ptr[n] = w;
    /* src may be dst: everything was read before anything is freed */
    if (dst->map)
        munmap(dst->map, dst->map_len);
    else if (!dst->x_borrowed)
        free(dst->x);
    free(dst->ptr);
    free(dst->col);
    free(dst->val);
    free(dst->y);
    dst->x = NULL;
    dst->map = NULL;
    dst->map_len = 0;
    dst->x_borrowed = 0;
    dst->ptr = ptr;
    dst->col = col;
    dst->val = val;
    dst->y = y;
    dst->n = dst->cap = n;
    dst->d = d;
    return TSGS_OK;
}

tsgs_status tsgs_dataset_append_unlabeled(tsgs_dataset *dst,
                                          const tsgs_dataset *src,
                                          tsgs_error *err)
{
    if (!dst || !src)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_dataset_append_unlabeled: NULL argument");
    /* Read src's sizes first: src may be dst itself. */
    size_t n0 = dst->n, ns = src->n, ds_ = src->d;
    size_t d = dst->d > ds_ ? dst->d : ds_;
    if (ns > SIZE_MAX - n0)
        return TSGS__NOMEM(err);
    size_t n = n0 + ns;
    if (!size_ok(n, d, sizeof(float)) || n > SIZE_MAX / sizeof(double))
        return TSGS__NOMEM(err);
    /* borrowed or mapped rows cannot grow: copy them (src may be dst: it
     * sees the copy too) */
    if (tsgs__sparse(dst) || tsgs__sparse(src))
        return append_sparse(dst, src, err);
    tsgs_status st = own_rows(dst, err);
    if (st != TSGS_OK)
        return st;
    size_t nx = n && d ? n * d : 1, ny = n ? n : 1;
    if (d == dst->d) {
        /* Same width: grow in place. A failed realloc leaves dst intact,
         * and arrays larger than cap are harmless. */
        if (n > dst->cap) {
            float *x = realloc(dst->x, sizeof(float) * nx);
            if (!x)
                return TSGS__NOMEM(err);
            dst->x = x;
            double *y = realloc(dst->y, sizeof(double) * ny);
            if (!y)
                return TSGS__NOMEM(err);
            dst->y = y;
            dst->cap = n;
        }
        /* src->x is read after the realloc: it moved with dst if same. */
        for (size_t i = 0; i < ns; i++) {
            float *row = dst->x + (n0 + i) * d;
            memcpy(row, src->x + i * ds_, sizeof(float) * ds_);
            memset(row + ds_, 0, sizeof(float) * (d - ds_));
        }
    } else {
        /* dst gets wider: lay every row out again (src != dst here). */
        float *x = malloc(sizeof(float) * nx);
        double *y = malloc(sizeof(double) * ny);
        if (!x || !y) {
            free(x);
            free(y);
            return TSGS__NOMEM(err);
        }
        for (size_t i = 0; i < n0; i++) {
            float *row = x + i * d;
            memcpy(row, dst->x + i * dst->d, sizeof(float) * dst->d);
            memset(row + dst->d, 0, sizeof(float) * (d - dst->d));
        }
        memcpy(x + n0 * d, src->x, sizeof(float) * ns * d);
        memcpy(y, dst->y, sizeof(double) * n0);
        free(dst->x);
        free(dst->y);
        dst->x = x;
        dst->y = y;
        dst->d = d;
        dst->cap = n;
    }
    for (size_t i = n0; i < n; i++)
        dst->y[i] = TSGS_UNLABELED;
    dst->n = n;
    return TSGS_OK;
}

/* splitmix64: small, fast and fully determined by the seed. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0, without modulo bias. */
static uint64_t below(uint64_t *state, uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t r;
    do
        r = splitmix64(state);
    while (r >= limit);
    return r % n;
}

typedef struct {
    double label;
    size_t row;
} lab_row;

/* By label, then row: the classes come out in a fixed order. */
static int cmp_lab_row(const void *a, const void *b)
{
    const lab_row *p = a, *q = b;
    if (p->label != q->label)
        return p->label < q->label ? -1 : 1;
    return (p->row > q->row) - (p->row < q->row);
}

/* lr's nl entries, in row order, grouped by label (ascending), rows
 * ascending within a label: the order sorting by (label, row) gives, by
 * one counting pass for the few classes of a classifier (a sort of 10^6
 * pairs took 0.1 s); more distinct labels than FEW_LABELS: the sort. */
#define FEW_LABELS 64
static tsgs_status group_by_label(lab_row *lr, size_t nl, tsgs_error *err)
{
    double lab[FEW_LABELS];
    size_t at[FEW_LABELS + 1] = {0}, nc = 0;
    for (size_t i = 0; i < nl; i++) {
        size_t c = 0;
        while (c < nc && lab[c] < lr[i].label)
            c++;
        if (c < nc && lab[c] == lr[i].label)
            continue;
        if (nc == FEW_LABELS) {
            qsort(lr, nl, sizeof *lr, cmp_lab_row);
            return TSGS_OK;
        }
        memmove(lab + c + 1, lab + c, sizeof *lab * (nc - c));
        lab[c] = lr[i].label;
        nc++;
    }
    lab_row *out = malloc(sizeof *out * (nl ? nl : 1));
    if (!out)
        return TSGS__NOMEM(err);
    for (size_t i = 0; i < nl; i++) { /* class sizes, then their starts */
        size_t c = 0;
        while (lab[c] != lr[i].label)
            c++;
        at[c + 1]++;
    }
    for (size_t c = 0; c < nc; c++)
        at[c + 1] += at[c];
    for (size_t i = 0; i < nl; i++) {
        size_t c = 0;
        while (lab[c] != lr[i].label)
            c++;
        out[at[c]++] = lr[i];
    }
    memcpy(lr, out, sizeof *lr * nl);
    free(out);
    return TSGS_OK;
}

/* Quotas of the nc classes (class c's rows start[c] .. start[c + 1] of
 * nl): round(n_keep * fraction), at least one per class when there is
 * room, then nudged (largest rounding error first) to sum to n_keep.
 * ideal: nc of scratch. */
static tsgs_status class_quotas(const size_t *start, size_t nc, size_t nl,
                                size_t n_keep, double *ideal, size_t *quota,
                                tsgs_error *err)
{
    size_t floor_q = n_keep >= nc ? 1 : 0, total = 0;
    for (size_t c = 0; c < nc; c++) {
        size_t cnt = start[c + 1] - start[c];
        ideal[c] = (double)n_keep * (double)cnt / (double)nl;
        quota[c] = (size_t)floor(ideal[c] + 0.5);
        if (quota[c] < floor_q)
            quota[c] = floor_q;
        if (quota[c] > cnt)
            quota[c] = cnt;
        total += quota[c];
    }
    while (total != n_keep) {
        size_t best = nc;
        double best_gap = 0.0;
        for (size_t c = 0; c < nc; c++) {
            size_t cnt = start[c + 1] - start[c];
            double gap = total > n_keep ? (double)quota[c] - ideal[c]
                                        : ideal[c] - (double)quota[c];
            int movable = total > n_keep ? quota[c] > floor_q : quota[c] < cnt;
            if (movable && (best == nc || gap > best_gap)) {
                best = c;
                best_gap = gap;
            }
        }
        if (best == nc) /* cannot happen: 1 <= n_keep <= nl */
            return tsgs__fail(err, TSGS_ERR_INTERNAL, NULL, 0,
                              "keep_labels: no class quota can move");
        if (total > n_keep) {
            quota[best]--;
            total--;
        } else {
            quota[best]++;
            total++;
        }
    }
    return TSGS_OK;
}

tsgs_status tsgs_dataset_keep_labels(tsgs_dataset *ds, size_t n_keep,
                                     uint64_t seed, tsgs_error *err)
{
    if (!ds)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_dataset_keep_labels: NULL argument");
    size_t nl = tsgs_dataset_labeled_count(ds);
    if (n_keep == 0 || n_keep > nl)
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "labels to keep: %zu is not in 1 .. %zu (the "
                          "labeled rows)",
                          n_keep, nl);
    tsgs_status st = TSGS_OK;
    lab_row *lr = malloc(sizeof *lr * nl);
    size_t *start = malloc(sizeof *start * (nl + 1)); /* class c's rows */
    size_t *quota = malloc(sizeof *quota * nl);
    double *ideal = malloc(sizeof *ideal * nl);
    if (!lr || !start || !quota || !ideal) {
        st = TSGS__NOMEM(err);
        goto fail;
    }
    size_t k = 0;
    for (size_t i = 0; i < ds->n; i++)
        if (!isnan(ds->y[i]))
            lr[k++] = (lab_row){ds->y[i], i};
    if ((st = group_by_label(lr, nl, err)) != TSGS_OK)
        goto fail;
    size_t nc = 0;
    for (size_t i = 0; i < nl; i++)
        if (i == 0 || lr[i].label != lr[i - 1].label)
            start[nc++] = i;
    start[nc] = nl;

    if ((st = class_quotas(start, nc, nl, n_keep, ideal, quota, err)) !=
        TSGS_OK)
        goto fail;

    /* Per class, a seeded Fisher-Yates shuffle: the first quota stay. */
    uint64_t state = seed;
    for (size_t c = 0; c < nc; c++) {
        lab_row *a = lr + start[c];
        size_t cnt = start[c + 1] - start[c];
        for (size_t i = cnt; i > 1; i--) {
            size_t j = (size_t)below(&state, i);
            lab_row t = a[i - 1];
            a[i - 1] = a[j];
            a[j] = t;
        }
        for (size_t i = quota[c]; i < cnt; i++)
            ds->y[a[i].row] = TSGS_UNLABELED;
    }
fail:
    free(lr);
    free(start);
    free(quota);
    free(ideal);
    return st;
}

tsgs_status tsgs_dataset_select(const tsgs_dataset *ds, const size_t *rows,
                                size_t n, tsgs_dataset **out,
                                tsgs_error *err)
{
    if (!ds || !out || (!rows && n > 0))
        return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                          "tsgs_dataset_select: NULL argument");
    for (size_t i = 0; i < n; i++)
        if (rows[i] >= ds->n)
            return tsgs__fail(err, TSGS_ERR_PARAM, NULL, 0,
                              "tsgs_dataset_select: row %zu of %zu rows",
                              rows[i], ds->n);
    tsgs_status st;
    if (!tsgs__sparse(ds)) {
        tsgs_dataset *sub = NULL;
        if ((st = tsgs__dataset_new(ds->d, n, &sub, err)) != TSGS_OK)
            return st;
        for (size_t i = 0; i < n; i++) {
            memcpy(sub->x + i * ds->d, ds->x + rows[i] * ds->d,
                   sizeof(float) * ds->d);
            sub->y[i] = ds->y[rows[i]];
        }
        sub->n = n;
        *out = sub;
        return TSGS_OK;
    }
    size_t nz = 0;
    for (size_t i = 0; i < n; i++)
        nz += ds->ptr[rows[i] + 1] - ds->ptr[rows[i]];
    size_t *ptr = malloc(sizeof(size_t) * (n + 1));
    uint32_t *col = malloc(sizeof(uint32_t) * (nz ? nz : 1));
    float *val = malloc(sizeof(float) * (nz ? nz : 1));
    double *y = malloc(sizeof(double) * (n ? n : 1));
    if (ptr && col && val && y) {
        size_t w = 0;
        for (size_t i = 0; i < n; i++) {
            size_t a = ds->ptr[rows[i]], b = ds->ptr[rows[i] + 1];
            ptr[i] = w;
            memcpy(col + w, ds->col + a, sizeof(uint32_t) * (b - a));
            memcpy(val + w, ds->val + a, sizeof(float) * (b - a));
            w += b - a;
            y[i] = ds->y[rows[i]];
        }
        ptr[n] = w;
    }
    return tsgs__dataset_from_csr(n, ds->d, ptr, col, val, y, out, err);
}
