/* The BS3VM model (Le et al., UAI 2016): f(x) = sum_j alpha_j k(sv_j, x), a
 * kernel expansion over support vectors kept as scaled rows. What the
 * bs3vm solver (solvers/bs3vm.c) produces and a model holds: building,
 * prediction and the model-file section, and the support-vector kind of
 * model. It calls no solver, so the model code can use it without
 * depending on training. */
#include "model/model_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- model */

double tsgs__bs3vm_kernel(tsgs_kernel kernel, double sigma, const float *a,
                          const float *b, size_t d)
{
    double s = 0.0;
    if (kernel == TSGS_KERNEL_LAPLACIAN)
        for (size_t k = 0; k < d; k++)
            s += fabs((double)a[k] - (double)b[k]);
    else
        for (size_t k = 0; k < d; k++) {
            double t = (double)a[k] - (double)b[k];
            s += t * t;
        }
    return exp(-sigma * s);
}

double tsgs__bs3vm_sqdist(const float *a, const float *b, size_t d)
{
    double s = 0.0;
    for (size_t k = 0; k < d; k++) {
        double t = (double)a[k] - (double)b[k];
        s += t * t;
    }
    return s;
}

tsgs_status tsgs__bs3vm_new(size_t d, size_t cap, tsgs_kernel kernel,
                            double sigma, tsgs__bs3vm **out, tsgs_error *err)
{
    tsgs__bs3vm *b = calloc(1, sizeof *b);
    if (!b)
        return TSGS__NOMEM(err);
    if (cap < 1)
        cap = 1;
    b->d = d;
    b->cap = cap;
    b->kernel = kernel;
    b->sigma = sigma;
    b->x = malloc(sizeof(float) * cap * (d ? d : 1));
    b->alpha = malloc(sizeof(double) * cap);
    if (!b->x || !b->alpha) {
        tsgs__bs3vm_free(b);
        return TSGS__NOMEM(err);
    }
    *out = b;
    return TSGS_OK;
}

double tsgs__bs3vm_bytes(long n_sv, size_t d)
{
    /* the rows and weights (room for one at least), and one row made
     * dense at predict */
    const double rows = n_sv > 1 ? (double)n_sv : 1.0, dd = (double)d;
    return rows * (dd * sizeof(float) + sizeof(double)) + dd * sizeof(float);
}

tsgs_status tsgs__bs3vm_reserve(tsgs__bs3vm *b, size_t cap, tsgs_error *err)
{
    if (cap <= b->cap)
        return TSGS_OK;
    float *x = realloc(b->x, sizeof(float) * cap * (b->d ? b->d : 1));
    if (!x)
        return TSGS__NOMEM(err);
    b->x = x;
    double *a = realloc(b->alpha, sizeof(double) * cap);
    if (!a)
        return TSGS__NOMEM(err);
    b->alpha = a;
    b->cap = cap;
    return TSGS_OK;
}

void tsgs__bs3vm_free(tsgs__bs3vm *b)
{
    if (!b)
        return;
    free(b->x);
    free(b->alpha);
    free(b);
}

void tsgs__bs3vm_decision(const tsgs__bs3vm *b, const float *X, size_t n,
                          int threads, double *out)
{
    const long nn = (long)n;
    if (threads < 1)
        threads = 1;
    (void)threads;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static) \
    if (threads > 1 && nn > 1)
#endif
    for (long i = 0; i < nn; i++) {
        const float *xi = X + (size_t)i * b->d;
        double s = 0.0;
        for (size_t j = 0; j < b->n_sv; j++)
            s += b->alpha[j] * tsgs__bs3vm_kernel(b->kernel, b->sigma,
                                                  b->x + j * b->d, xi, b->d);
        out[i] = s;
    }
}

/* -------------------------------------------------------- model files */

void tsgs__bs3vm_write(FILE *f, const tsgs__bs3vm *b)
{
    fprintf(f, "support-vectors %zu\n", b->n_sv);
    for (size_t j = 0; j < b->n_sv; j++) {
        fprintf(f, "%.17g", b->alpha[j]);
        for (size_t k = 0; k < b->d; k++)
            fprintf(f, " %.17g", (double)b->x[j * b->d + k]);
        fputc('\n', f);
    }
    fputs("end\n", f);
}

static char *read_line(FILE *f, char **buf, size_t *cap, long *line)
{
    ssize_t n = getline(buf, cap, f);
    if (n < 0)
        return NULL;
    (*line)++;
    while (n > 0 && ((*buf)[n - 1] == '\n' || (*buf)[n - 1] == '\r'))
        (*buf)[--n] = '\0';
    return *buf;
}

/* Support vector j of b from its line s: "alpha x_1 ... x_d". */
static tsgs_status parse_vector(tsgs__bs3vm *b, size_t j, const char *s,
                                const char *path, long line, tsgs_error *err)
{
    const size_t d = b->d;
    for (size_t k = 0; k <= d; k++) {
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        int ok = end != s && isfinite(v) && (k == 0 || isfinite((float)v));
        if (!ok)
            return tsgs__fail(err, TSGS_ERR_FORMAT, path, line,
                              "support vector: value %zu of %zu is missing "
                              "or not a finite number",
                              k + 1, d + 1);
        if (k == 0 && fabs(v) > TSGS__MODEL_VALUE_MAX)
            return tsgs__fail(err, TSGS_ERR_FORMAT, path, line,
                              "support vector: its weight %g is beyond "
                              "+-%g (no trained model comes near)",
                              v, TSGS__MODEL_VALUE_MAX);
        if (k == 0)
            b->alpha[j] = v;
        else
            b->x[j * d + k - 1] = (float)v;
        s = end;
    }
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s != '\0')
        return tsgs__fail(err, TSGS_ERR_FORMAT, path, line,
                          "support vector: unexpected text \"%.40s\" after "
                          "%zu values",
                          s, d + 1);
    return TSGS_OK;
}

tsgs_status tsgs__bs3vm_read(FILE *f, const char *path, long *line,
                             long n_sv, size_t d, tsgs_kernel kernel,
                             double sigma, tsgs__bs3vm **out,
                             tsgs_error *err)
{
    tsgs__bs3vm *b = NULL;
    char *buf = NULL;
    size_t bcap = 0;
    tsgs_status st;
    /* grown as lines arrive: a corrupt count must not size the model */
    if ((st = tsgs__bs3vm_new(d, n_sv < 1024 ? (size_t)n_sv : 1024, kernel,
                              sigma, &b, err)))
        return st;
    for (long j = 0; j < n_sv; j++) {
        char *s = read_line(f, &buf, &bcap, line);
        if (!s) {
            st = tsgs__fail(err, TSGS_ERR_FORMAT, path, *line,
                            "truncated: %ld of %ld support-vector lines", j,
                            n_sv);
            goto fail;
        }
        if ((size_t)j == b->cap &&
            (st = tsgs__bs3vm_reserve(b, 2 * b->cap, err)) != TSGS_OK)
            goto fail;
        if ((st = parse_vector(b, (size_t)j, s, path, *line, err)))
            goto fail;
        b->n_sv++;
    }
    char *s = read_line(f, &buf, &bcap, line);
    if (!s || strcmp(s, "end") != 0) {
        st = tsgs__fail(err, TSGS_ERR_FORMAT, path, *line,
                        "truncated: no \"end\" line after the %ld support "
                        "vectors",
                        n_sv);
        goto fail;
    }
    free(buf);
    *out = b;
    return TSGS_OK;
fail:
    free(buf);
    tsgs__bs3vm_free(b);
    return st;
}

/* ------------------------------------------- the support-vector kind */

tsgs_status tsgs__model_new_sv(const tsgs_params *p, size_t d, size_t cap,
                               tsgs_model **out, tsgs_error *err)
{
    tsgs_model *m;
    tsgs_status st = tsgs__model_new(p, d, 1, &m, err);
    if (st != TSGS_OK)
        return st;
    m->kind = &tsgs__kind_sv;
    if ((st = tsgs__bs3vm_new(d, cap, p->kernel, p->sigma, &m->bs3vm,
                              err)) != TSGS_OK) {
        tsgs_model_free(m);
        return st;
    }
    *out = m;
    return TSGS_OK;
}

static tsgs_status sv_rows(const tsgs_model *m, const void *arg,
                           const tsgs__rows *R, int threads, double *out,
                           tsgs_error *err)
{
    (void)arg;
    (void)err;
    tsgs__bs3vm_decision(m->bs3vm, R->x, R->n, threads, out);
    return TSGS_OK;
}

/* Dense rows only: a sparse file's rows made dense, a few at a time. */
static tsgs_status sv_decision(const tsgs_model *m, const tsgs_dataset *ds,
                               int threads, double cache_bytes, double *out,
                               tsgs_error *err)
{
    (void)cache_bytes;
    const size_t chunk = tsgs__predict_chunk(m, ds, 1);
    tsgs__rows buf;
    if (tsgs__rows_init_dense(&buf, m->d, chunk))
        return TSGS__NOMEM(err);
    tsgs_status st = tsgs__predict_chunks(m, ds, &buf, chunk, sv_rows, NULL,
                                          threads, out, err);
    tsgs__rows_free(&buf);
    return st;
}

/* The header (no blocks), then the support-vector section. */
static void sv_write(FILE *f, const tsgs_model *m,
                     const tsgs_data_layout *lay)
{
    tsgs__mheader_write(f, m, lay);
    tsgs__bs3vm_write(f, m->bs3vm);
}

/* The counts against each other and the memory they commit the process
 * to, before anything is sized by them. */
static tsgs_status sv_check_counts(tsgs__mfile *r, const tsgs__mheader *h,
                                   tsgs_error *err)
{
    if (h->blocks != 0)
        return tsgs__fail(err, TSGS_ERR_FORMAT, r->path, h->blocks_line,
                          "blocks: %ld, but a bs3vm model has support "
                          "vectors, no random-feature blocks (0)",
                          h->blocks);
    char what[160];
    snprintf(what, sizeof what, "%ld support vectors of %ld features",
             h->count, h->d);
    return tsgs__mfile_take(r, "support-vectors", r->line,
                            tsgs__mheader_scaler_bytes(h) +
                                tsgs__bs3vm_bytes(h->count, (size_t)h->d),
                            what, err);
}

/* The model the header describes and its support vectors (the "end"
 * line after them read, nothing after it checked). */
static tsgs_status sv_read(tsgs__mfile *r, tsgs__mheader *h, int last,
                           tsgs_model **out, tsgs_error *err)
{
    (void)last;
    tsgs_model *m = NULL;
    tsgs_status st = sv_check_counts(r, h, err);
    if (st == TSGS_OK)
        st = tsgs__model_of_header(h, 0, &m, err);
    if (st == TSGS_OK) {
        m->kind = &tsgs__kind_sv;
        st = tsgs__bs3vm_read(r->f, r->path, &r->line, h->count,
                              (size_t)h->d, h->p.kernel, h->p.sigma,
                              &m->bs3vm, err);
    }
    if (st != TSGS_OK) {
        tsgs_model_free(m);
        return st;
    }
    *out = m;
    return TSGS_OK;
}

/* The support vectors, and the empty random-feature block every model
 * has. */
static void sv_free(tsgs_model *m)
{
    tsgs__bs3vm_free(m->bs3vm);
    tsgs__kind_rf.free(m);
}

static long sv_feature_count(const tsgs_model *m)
{
    return (long)m->bs3vm->n_sv;
}

const tsgs__model_kind tsgs__kind_sv = {
    .name = "support vectors",
    .section = "support-vectors",
    .per_class = 0,
    .decision = sv_decision,
    .write = sv_write,
    .read = sv_read,
    .free = sv_free,
    .feature_count = sv_feature_count,
};
