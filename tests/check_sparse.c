/* Sparse rows: the reader's CSR equals the dense rows, the sparse kernel
 * equals the dense one on the same rows, MAXABS keeps zeros, and wide
 * sparse files train in memory that follows the non-zeros. */
#include "internal.h"
#include "select/model_select.h"

#include "fixtures.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A seeded sparse set: n rows of dimension d, about k non-zeros each
 * (every 7th column more often), labels +-1 by the sign of a sum over the
 * even columns; the first nl rows labeled. Returns the CSR dataset and,
 * in *dense (unless NULL), its dense copy. */
static tsgs_dataset *sparse_set(size_t n, size_t d, size_t k, size_t nl,
                                unsigned seed, tsgs_dataset **dense)
{
    srand(seed);
    size_t *ptr = malloc(sizeof(size_t) * (n + 1));
    uint32_t *col = malloc(sizeof(uint32_t) * n * k);
    float *val = malloc(sizeof(float) * n * k);
    double *y = malloc(sizeof(double) * n);
    float *x = dense ? calloc(n * d, sizeof(float)) : NULL;
    ck_assert(ptr && col && val && y && (x || !dense));
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        ptr[i] = w;
        size_t c = (size_t)rand() % (d / k);
        double s = 0.0;
        for (size_t j = 0; j < k && c < d; j++) {
            col[w] = (uint32_t)c;
            val[w] = (float)((rand() % 2000) / 500.0 - 2.0);
            if (val[w] == 0.0f)
                val[w] = 0.5f;
            if (x)
                x[i * d + c] = val[w];
            s += c % 2 ? -val[w] : val[w];
            w++;
            c += 1 + (size_t)rand() % (2 * (d / k) - 1);
        }
        y[i] = i < nl ? (s > 0 ? 1.0 : -1.0) : NAN;
    }
    ptr[n] = w;
    tsgs_dataset *ds = NULL;
    if (dense)
        ck_assert_int_eq(tsgs_dataset_from_dense(n, d, x, y, dense, NULL),
                         TSGS_OK);
    ck_assert_int_eq(tsgs__dataset_from_csr(n, d, ptr, col, val, y, &ds,
                                            NULL),
                     TSGS_OK);
    free(x);
    return ds;
}

/* What the kernel and cache tests start from: sparse_set(n, d, k, nl,
 * seed), with its dense copy when `dense`; the feature spec of iid
 * directions for kernel, map, sigma and block_size (zeros: RBF, PAIR and
 * tsgs_params_default's block size); a scaler that leaves the rows as
 * they are. */
typedef struct {
    size_t n, d, k, nl;
    unsigned seed;
    int dense;
    tsgs_kernel kernel;
    tsgs_feature_map map;
    double sigma;
    int block_size;
} sparse_spec;

typedef struct {
    tsgs_dataset *ds;    /* the sparse set */
    tsgs_dataset *dense; /* its dense copy, or NULL */
    tsgs__fspec fs;
    tsgs__scaler none;
} sparse_case;

static sparse_case sparse_case_new(sparse_spec s)
{
    sparse_case c = {NULL, NULL, {0}, {0}};
    tsgs_params p = tsgs_params_default();
    p.kernel = s.kernel;
    p.feature_map = s.map;
    p.directions = TSGS_DIRECTIONS_IID;
    p.sigma = s.sigma;
    if (s.block_size)
        p.block_size = s.block_size;
    c.ds = sparse_set(s.n, s.d, s.k, s.nl, s.seed, s.dense ? &c.dense : NULL);
    c.fs = tsgs__fspec_of(&p, s.d);
    c.none = (tsgs__scaler){TSGS_SCALE_NONE, s.d, NULL, NULL, 0, NULL, NULL};
    return c;
}

static void sparse_case_free(sparse_case *c)
{
    tsgs_dataset_free(c->ds);
    tsgs_dataset_free(c->dense);
}

static char *write_tmp(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/tsgs_sparse_XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (long)strlen(text));
    close(fd);
    return path;
}

START_TEST(reader_csr_equals_dense_rows)
{
    /* one index far out: sparse; the same rows narrow: dense */
    const char *wide = "1 1:0.5 3:-2 9000:1.25\n-1 2:4\n0 7:1 8:2\n";
    const char *narrow = "1 1:0.5 3:-2 90:1.25\n-1 2:4\n0 7:1 8:2\n";
    char *p = write_tmp(wide);
    tsgs_dataset *ds = test_read_ok(p, NULL);
    unlink(p);
    ck_assert(tsgs_dataset_is_sparse(ds));
    ck_assert_uint_eq(tsgs_dataset_features(ds), 9000);
    ck_assert_uint_eq(tsgs_dataset_nonzeros(ds), 6);
    ck_assert_ptr_null(tsgs_dataset_row(ds, 0));
    float *row = malloc(sizeof(float) * 9000);
    tsgs__row_dense(ds, 0, row);
    for (size_t k = 0; k < 9000; k++) {
        float want = k == 0 ? 0.5f : k == 2 ? -2.0f : k == 8999 ? 1.25f : 0;
        ck_assert_float_eq(row[k], want);
    }
    tsgs__row_dense(ds, 2, row);
    ck_assert_float_eq(row[6], 1.0f);
    ck_assert_float_eq(row[7], 2.0f);
    ck_assert_double_eq(tsgs_dataset_label(ds, 1), -1.0);
    free(row);
    tsgs_dataset_free(ds);
    p = write_tmp(narrow);
    ds = test_read_ok(p, NULL);
    unlink(p);
    ck_assert(!tsgs_dataset_is_sparse(ds));
    ck_assert_float_eq(tsgs_dataset_row(ds, 0)[89], 1.25f);
    tsgs_dataset_free(ds);
}
END_TEST

START_TEST(maxabs_keeps_zeros)
{
    tsgs_dataset *dense = NULL;
    tsgs_dataset *ds = sparse_set(40, 5000, 20, 10, 3, &dense);
    tsgs__scaler sc;
    /* zscore asked: sparse rows get MAXABS */
    ck_assert_int_eq(tsgs__scaler_fit(ds, TSGS_SCALE_ZSCORE, &sc, NULL),
                     TSGS_OK);
    ck_assert_int_eq(sc.kind, TSGS_SCALE_MAXABS);
    tsgs__rows R;
    ck_assert_int_eq(tsgs__rows_init(&R, ds, &sc, ds->n), 0);
    ck_assert_int_eq(tsgs__rows_gather(&R, ds, &sc, NULL, ds->n), 0);
    ck_assert_ptr_null(R.x);
    ck_assert_uint_eq(R.ptr[R.n], ds->ptr[ds->n]);
    /* every column's largest |x| becomes 1, computed from the dense copy */
    double *mx = calloc(ds->d, sizeof(double));
    for (size_t i = 0; i < ds->n; i++)
        for (size_t k = 0; k < ds->d; k++)
            mx[k] = fmax(mx[k], fabs(tsgs_dataset_row(dense, i)[k]));
    for (size_t j = 0; j < R.ptr[R.n]; j++) {
        ck_assert_uint_eq(R.col[j], ds->col[j]);
        ck_assert_float_eq_tol(R.val[j], ds->val[j] / mx[ds->col[j]], 1e-6);
    }
    /* the dense path of the same scaler leaves zeros at zero */
    float *row = malloc(sizeof(float) * ds->d);
    tsgs__scaler_apply(&sc, tsgs_dataset_row(dense, 0), ds->d, row);
    for (size_t k = 0; k < ds->d; k++)
        if (tsgs_dataset_row(dense, 0)[k] == 0.0f)
            ck_assert_float_eq(row[k], 0.0f);
    free(row);
    free(mx);
    tsgs__rows_free(&R);
    tsgs__scaler_clear(&sc);
    tsgs_dataset_free(ds);
    tsgs_dataset_free(dense);
}
END_TEST

/* Feature rows and weighted sums of a sparse set and its dense copy, for
 * each kernel and feature map (loop index). */
START_TEST(sparse_kernel_equals_dense)
{
    const tsgs_kernel kern[] = {TSGS_KERNEL_RBF, TSGS_KERNEL_LAPLACIAN};
    const tsgs_feature_map map[] = {TSGS_FEATURES_PAIR, TSGS_FEATURES_COS};
    sparse_case c = sparse_case_new((sparse_spec){
        .n = 70, .d = 600, .k = 12, .nl = 70, .seed = 11 + (unsigned)_i,
        .dense = 1, .kernel = kern[_i / 2], .map = map[_i % 2], .sigma = 0.05});
    const tsgs_dataset *ds = c.ds, *dense = c.dense;
    const tsgs__fspec fs = c.fs;
    const size_t d = ds->d, n = ds->n, ndirs = 300;
    ck_assert(!fs.orthogonal);
    tsgs__rows S, Dn;
    ck_assert_int_eq(tsgs__rows_init(&S, ds, &c.none, n), 0);
    ck_assert_int_eq(tsgs__rows_gather(&S, ds, &c.none, NULL, n), 0);
    Dn = tsgs__rows_dense(dense->x, n, d);
    const size_t D = tsgs__feature_columns(&fs, ndirs);
    float *fa = malloc(sizeof(float) * n * D), *fb = malloc(sizeof(float) * n * D);
    ck_assert_int_eq(tsgs__feature_rows(&fs, ndirs, &S, 2, NULL, NULL, fa, NULL),
                     TSGS_OK);
    ck_assert_int_eq(tsgs__feature_rows(&fs, ndirs, &Dn, 2, NULL, NULL, fb, NULL),
                     TSGS_OK);
    for (size_t j = 0; j < n * D; j++)
        ck_assert_float_eq_tol(fa[j], fb[j], 2e-5);
    /* sums with coefficients, without and with a column cache */
    const long W = (long)((ndirs + 15) / 16 * 16);
    double *ac = calloc((size_t)W, sizeof(double));
    double *as = calloc((size_t)W, sizeof(double));
    for (size_t g = 0; g < ndirs; g++) {
        ac[g] = sin(1.0 + (double)g);
        as[g] = cos(2.0 * (double)g);
    }
    tsgs__fview v = {&fs, (long)ndirs, NULL, NULL, ac,
                     fs.map == TSGS_FEATURES_PAIR ? as : NULL};
    double *sd = malloc(sizeof(double) * n), *ss = malloc(sizeof(double) * n);
    double *sc = malloc(sizeof(double) * n);
    ck_assert_int_eq(tsgs__eval_sums(&v, dense->x, n, 2, sd, NULL), TSGS_OK);
    ck_assert_int_eq(tsgs__sparse_sums(&v, NULL, &S, 2, ss, NULL), TSGS_OK);
    tsgs__colcache *cc = NULL;
    /* room for a third of the columns: cached and made ones mixed */
    ck_assert_int_eq(tsgs__colcache_new(ds, (long)ndirs, 100.0 * W * 4, &cc,
                                        NULL),
                     TSGS_OK);
    ck_assert_ptr_nonnull(cc);
    ck_assert_uint_eq(cc->ncols, 100);
    tsgs__colcache_fill(cc, &fs, (long)ndirs, 2);
    ck_assert_int_eq(tsgs__sparse_sums(&v, cc, &S, 1, sc, NULL), TSGS_OK);
    for (size_t i = 0; i < n; i++) {
        ck_assert_double_eq_tol(ss[i], sd[i], 1e-3);
        ck_assert_double_eq(sc[i], ss[i]); /* the cache holds the same bits */
    }
    tsgs__colcache_free(cc);
    free(ac); free(as); free(sd); free(ss); free(sc); free(fa); free(fb);
    tsgs__rows_free(&S);
    sparse_case_free(&c);
}
END_TEST

/* A run's feature cache gives the sparse kernel's bits: its sums equal
 * tsgs__sparse_sums' (the kernel's direction chunks, 600 directions: three
 * of them), its block features tsgs__sparse_features' on the same rows,
 * for rows picked out of order; a cache that does not fit is none. */
START_TEST(featcache_equals_kernel)
{
    sparse_case c = sparse_case_new((sparse_spec){
        .n = 90, .d = 3000, .k = 10, .nl = 30, .seed = 31 + (unsigned)_i,
        .map = _i ? TSGS_FEATURES_COS : TSGS_FEATURES_PAIR, .sigma = 0.05,
        .block_size = 8});
    const tsgs_dataset *ds = c.ds;
    const tsgs__fspec fs = c.fs;
    const size_t n = ds->n;
    const long ndirs = 600;
    const long dirs = fs.dirs; /* PAIR: 4 directions a block of 8 */
    const int pair = fs.map == TSGS_FEATURES_PAIR;
    size_t rows[40];
    for (size_t i = 0; i < 40; i++)
        rows[i] = (i * 37 + 5) % n; /* distinct rows, out of order */
    tsgs__featcache *fc = NULL;
    ck_assert_int_eq(tsgs__featcache_new(ds, &c.none, rows, 40, ndirs, pair,
                                         tsgs__featcache_bytes(40, ndirs,
                                                               pair) - 1,
                                         &fc, NULL),
                     TSGS_OK);
    ck_assert_ptr_null(fc);
    ck_assert_int_eq(tsgs__featcache_new(ds, &c.none, rows, 40, ndirs, pair,
                                         1e9, &fc, NULL),
                     TSGS_OK);
    ck_assert_ptr_nonnull(fc);
    /* every column cached: the kernel sums its chunks whole */
    tsgs__colcache *cc = NULL;
    ck_assert_int_eq(tsgs__colcache_new(ds, ndirs, 1e9, &cc, NULL), TSGS_OK);
    tsgs__colcache_fill(cc, &fs, ndirs, 2);
    int failed = 0;
    /* filled a block at a time, as training adds them, then the rest */
    for (long b = 1; b <= 3; b++)
        tsgs__featcache_fill_team(fc, &fs, cc, b * dirs, NULL, &failed);
    tsgs__featcache_fill_team(fc, &fs, NULL, ndirs, NULL, &failed);
    ck_assert_int_eq(failed, 0);
    ck_assert_int_eq(fc->filled, ndirs);
    double *ac = calloc((size_t)ndirs + 16, sizeof(double));
    double *as = calloc((size_t)ndirs + 16, sizeof(double));
    for (long g = 0; g < ndirs; g++) {
        ac[g] = sin(1.0 + (double)g);
        as[g] = cos(3.0 * (double)g);
    }
    tsgs__fview v = {&fs, ndirs, NULL, NULL, ac, pair ? as : NULL};
    tsgs__rows R;
    ck_assert_int_eq(tsgs__rows_init(&R, ds, &c.none, 40), 0);
    ck_assert_int_eq(tsgs__rows_gather(&R, ds, &c.none, rows, 40), 0);
    double want[40], got[40];
    ck_assert_int_eq(tsgs__sparse_sums(&v, cc, &R, 2, want, NULL), TSGS_OK);
    tsgs__featcache_sums_team(fc, &v, rows, 40, got);
    for (size_t i = 0; i < 40; i++)
        ck_assert_msg(got[i] == want[i], "row %zu: %.17g vs %.17g", i,
                      got[i], want[i]);
    /* block 7's features */
    const size_t w = 16;
    float *kc = malloc(sizeof(float) * 40 * w), *ks = malloc(sizeof(float) * 40 * w);
    float *fc_c = malloc(sizeof(float) * 40 * w), *fc_s = malloc(sizeof(float) * 40 * w);
    ck_assert_int_eq(tsgs__sparse_features(&fs, cc, 7 * dirs, dirs, &R, w,
                                           1, kc, pair ? ks : NULL, NULL, 0.0,
                                           NULL),
                     TSGS_OK);
    tsgs__featcache_block_team(fc, rows, 40, 7 * dirs, dirs, w, fc_c,
                               pair ? fc_s : NULL);
    for (size_t i = 0; i < 40; i++)
        for (size_t j = 0; j < (size_t)dirs; j++) {
            ck_assert(fc_c[i * w + j] == kc[i * w + j]);
            if (pair)
                ck_assert(fc_s[i * w + j] == ks[i * w + j]);
        }
    free(kc); free(ks); free(fc_c); free(fc_s); free(ac); free(as);
    tsgs__rows_free(&R);
    tsgs__colcache_free(cc);
    tsgs__featcache_free(fc);
    sparse_case_free(&c);
}
END_TEST

/* tsg on sparse rows gives the same model on 1 and 2 threads, and with
 * no cache at all (no column cache, no feature cache: every step then
 * evaluates the batch's non-zeros): the feature cache changes no bit. */
START_TEST(sparse_tsg_same_with_and_without_caches)
{
    tsgs_dataset *ds = sparse_set(300, 5000, 15, 60, 13, NULL);
    tsgs_params p = tsgs_params_default();
    p.solver = _i ? TSGS_SOLVER_DSG : TSGS_SOLVER_TSG;
    p.iterations = 150;
    p.max_features = 96;
    p.batch_unlabeled = 64;
    tsgs_model *m[3] = {NULL, NULL, NULL};
    tsgs_error err;
    for (int k = 0; k < 3; k++) {
        p.threads = k == 0 ? 1 : 2;
        p.cache_mb = k == 2 ? 0 : 1024;
        ck_assert_msg(tsgs_train(ds, &p, NULL, &m[k], NULL, &err) == TSGS_OK,
                      "%s", err.message);
    }
    double f[3][300];
    for (int k = 0; k < 3; k++)
        ck_assert_int_eq(tsgs_predict(m[k], ds, 1, f[k], NULL), TSGS_OK);
    for (size_t i = 0; i < 300; i++) {
        ck_assert_msg(f[1][i] == f[0][i], "row %zu: 2 threads %.17g, 1: %.17g",
                      i, f[1][i], f[0][i]);
        ck_assert_msg(f[2][i] == f[0][i], "row %zu: no cache %.17g, %.17g", i,
                      f[2][i], f[0][i]);
    }
    for (int k = 0; k < 3; k++)
        tsgs_model_free(m[k]);
    tsgs_dataset_free(ds);
}
END_TEST

/* A loaded model keeps its sparse rows' column directions from call to
 * call (predict's blocks), making each column when rows first use it: rows
 * predicted in two calls, the second's columns partly new, score as the
 * same rows predicted at once by a fresh copy, bit for bit. */
START_TEST(kept_column_cache_scores_alike)
{
    tsgs_dataset *ds = sparse_set(300, 5000, 15, 60, 17, NULL);
    tsgs_params p = tsgs_params_default();
    p.directions = TSGS_DIRECTIONS_IID;
    p.scale = TSGS_SCALE_MAXABS;
    p.sigma = 0.02;
    p.c = 10;
    p.threads = 1;
    p.max_features = 256;
    tsgs_model *m = NULL, *a = NULL, *b = NULL;
    tsgs_error err;
    ck_assert_msg(tsgs_train(ds, &p, NULL, &m, NULL, &err) == TSGS_OK, "%s",
                  err.message);
    char path[64];
    snprintf(path, sizeof path, "/tmp/tsgs_sparse_%ld.model", (long)getpid());
    ck_assert_int_eq(tsgs_model_save(m, path, &err), TSGS_OK);
    ck_assert_int_eq(tsgs_model_load(path, &a, &err), TSGS_OK);
    ck_assert_int_eq(tsgs_model_load(path, &b, &err), TSGS_OK);
    unlink(path);
    size_t first[40], rest[260];
    for (size_t i = 0; i < 40; i++)
        first[i] = i;
    for (size_t i = 0; i < 260; i++)
        rest[i] = 40 + i;
    tsgs_dataset *s1 = NULL, *s2 = NULL;
    ck_assert_int_eq(tsgs_dataset_select(ds, first, 40, &s1, &err), TSGS_OK);
    ck_assert_int_eq(tsgs_dataset_select(ds, rest, 260, &s2, &err), TSGS_OK);
    double whole[300], parts[300];
    ck_assert_int_eq(tsgs_predict(a, ds, 2, whole, NULL), TSGS_OK);
    ck_assert_int_eq(tsgs_predict(b, s1, 2, parts, NULL), TSGS_OK);
    ck_assert_int_eq(tsgs_predict(b, s2, 2, parts + 40, NULL), TSGS_OK);
    for (size_t i = 0; i < 300; i++)
        ck_assert_msg(parts[i] == whole[i], "row %zu: %.17g in parts, %.17g",
                      i, parts[i], whole[i]);
    /* sparse rows read the column cache only: no d-wide direction panel
     * was made for them (on 200,000 columns it took 6 s) */
    ck_assert_int_eq(a->cached_dirs, 0);
    ck_assert_int_eq(b->cached_dirs, 0);
    tsgs_dataset_free(s1);
    tsgs_dataset_free(s2);
    tsgs_model_free(m);
    tsgs_model_free(a);
    tsgs_model_free(b);
    tsgs_dataset_free(ds);
}
END_TEST

/* tsgs__omega_column (issue #30: the directions of sparse rows' columns
 * made in vectors) gives the bits tsgs__omega_coord gives one coordinate
 * at a time, on the x86-64 level _i (SKIPPED where this CPU lacks it):
 * both kernels and maps, sigmas far apart, any first direction and count,
 * columns near 0 and near 2^32, one alone or an even one with its odd
 * neighbour (tsgs__omega_column_pair); then 768,000 coordinates in a row,
 * where a dozen values near halfway between two floats take the path
 * that proves nothing and makes them one by one, and 256,000 draws for a
 * grid of sigmas (tsgs__omega_column_units, tsgs__omega_scaled_proved). */
START_TEST(omega_column_equals_coord)
{
    const tsgs__isa isa = (tsgs__isa)_i;
    if (!test_force_isa(isa, "column coordinates"))
        return;
    const double sigmas[] = {1e-6, 0.02, 1.0, 750.0};
    const uint32_t cols[] = {0,          1,          2,         7,
                             4096,       999999,     0x7fffffffu,
                             0xfffffffeu, 0xffffffffu};
    const long starts[][2] = {{0, 0}, {0, 1}, {3, 37}, {17, 300}, {1, 64}};
    float out[320], out2[512];
    for (int kernel = 0; kernel < 2; kernel++)
        for (int map = 0; map < 2; map++)
            for (int a = 0; a < 4; a++) {
                tsgs_params p = tsgs_params_default();
                p.kernel = kernel ? TSGS_KERNEL_LAPLACIAN : TSGS_KERNEL_RBF;
                p.feature_map = map ? TSGS_FEATURES_COS : TSGS_FEATURES_PAIR;
                p.directions = TSGS_DIRECTIONS_IID;
                p.sigma = sigmas[a];
                p.block_size = map ? 5 : 10; /* 5 directions a block */
                p.seed = 7 + (unsigned)a;
                const tsgs__fspec fs = tsgs__fspec_of(&p, 1000000);
                for (size_t c = 0; c < sizeof cols / sizeof *cols; c++)
                    for (int q = 0; q < 5; q++) {
                        const long g = starts[q][0], n = starts[q][1];
                        tsgs__omega_column(&fs, cols[c], g, n, out);
                        for (long t = 0; t < n; t++) {
                            const float want = tsgs__omega_coord(
                                &fs, (g + t) / fs.dirs, (g + t) % fs.dirs,
                                cols[c]);
                            ck_assert_msg(!memcmp(&want, &out[t], sizeof want),
                                          "column %u, direction %ld: %a, "
                                          "one by one %a",
                                          cols[c], g + t, (double)out[t],
                                          (double)want);
                        }
                        /* the pair of columns 2h, 2h + 1 of one draw */
                        const uint32_t h = cols[c] / 2;
                        tsgs__omega_column_pair(&fs, h, g, n, out, out2);
                        for (long t = 0; t < n; t++) {
                            const long b = (g + t) / fs.dirs,
                                       j = (g + t) % fs.dirs;
                            const float e = tsgs__omega_coord(&fs, b, j, 2 * h),
                                        o = tsgs__omega_coord(&fs, b, j,
                                                              2 * h + 1);
                            ck_assert_msg(!memcmp(&e, &out[t], sizeof e) &&
                                              !memcmp(&o, &out2[t], sizeof o),
                                          "columns %u and %u, direction %ld",
                                          2 * h, 2 * h + 1, g + t);
                        }
                    }
            }
    tsgs_params p = tsgs_params_default();
    p.directions = TSGS_DIRECTIONS_IID;
    p.sigma = 0.37;
    const tsgs__fspec fs = tsgs__fspec_of(&p, 1000000);
    double units[256];
    tsgs__fspec narrow = fs;
    narrow.sigma = 1e-6; /* another sigma, the same draws */
    const double f = sqrt(2.0 * fs.sigma), fn = sqrt(2.0 * narrow.sigma);
    for (uint32_t k = 0; k < 1000; k++) {
        /* the draws for a grid of sigmas: near libm's, and the floats
         * each sigma makes of them proved */
        tsgs__omega_column_units(&fs, k * 499, 0, 256, units);
        for (long t = 0; t < 256; t++) {
            const long b = t / fs.dirs, j = t % fs.dirs;
            const double u = tsgs__omega_unit(&fs, b, j, k * 499);
            ck_assert_msg(fabs(units[t] - u) <= 0x1p-43 * fabs(u),
                          "draw of column %u, direction %ld: %a, libm %a",
                          k * 499, t, units[t], u);
            const float a = tsgs__omega_scaled_proved(&fs, units[t], f, t,
                                                      k * 499),
                        an = tsgs__omega_scaled_proved(&narrow, units[t], fn,
                                                       t, k * 499),
                        wa = tsgs__omega_coord(&fs, b, j, k * 499),
                        wn = tsgs__omega_coord(&narrow, b, j, k * 499);
            ck_assert(!memcmp(&a, &wa, sizeof a) && !memcmp(&an, &wn, sizeof an));
        }
        tsgs__omega_column(&fs, k * 499, 0, 256, out);
        tsgs__omega_column_pair(&fs, k * 3001, 0, 256, out2, out2 + 256);
        for (long t = 0; t < 256; t++) {
            const long b = t / fs.dirs, j = t % fs.dirs;
            const float want = tsgs__omega_coord(&fs, b, j, k * 499),
                        e = tsgs__omega_coord(&fs, b, j, 2 * k * 3001),
                        o = tsgs__omega_coord(&fs, b, j, 2 * k * 3001 + 1);
            ck_assert_msg(!memcmp(&want, &out[t], sizeof want),
                          "column %u, direction %ld", k * 499, t);
            ck_assert_msg(!memcmp(&e, &out2[t], sizeof e) &&
                              !memcmp(&o, &out2[256 + t], sizeof o),
                          "columns %u and %u, direction %ld", 2 * k * 3001,
                          2 * k * 3001 + 1, t);
        }
    }
    ck_assert_int_eq(tsgs__isa_force(-1), 0);
}
END_TEST

/* Sparse prediction with the columns' directions made in vectors gives
 * the decision values, to the bit, that making them one coordinate at a
 * time gives (the path issue #30 replaced), on 1 and 2 threads, whole or
 * row by row, with the model's kept cache, a per-call cache or none: rows
 * with no non-zeros, neighbouring columns (2h, 2h + 1: made together),
 * and columns past the model's width (dropped, as the tool drops them).
 * _i: 0 RBF, 1 Laplacian. */
START_TEST(sparse_predict_equals_one_by_one)
{
    tsgs_dataset *ds = sparse_set(240, 3000, 12, 60, 23, NULL);
    tsgs_params p = tsgs_params_default();
    p.kernel = _i ? TSGS_KERNEL_LAPLACIAN : TSGS_KERNEL_RBF;
    p.directions = TSGS_DIRECTIONS_IID;
    p.sigma = 0.05;
    p.c = 10;
    p.threads = 1;
    p.max_features = 200;
    tsgs_model *m = NULL;
    tsgs_error err;
    ck_assert_msg(tsgs_train(ds, &p, NULL, &m, NULL, &err) == TSGS_OK, "%s",
                  err.message);
    /* rows to score: 4 empty ones, then rows of columns up to 4000 (the
     * model has 3000) */
    const size_t n = 44, k = 10, wide = 4000;
    size_t *ptr = malloc(sizeof(size_t) * (n + 1));
    uint32_t *col = malloc(sizeof(uint32_t) * n * k);
    float *val = malloc(sizeof(float) * n * k);
    double *y = malloc(sizeof(double) * n);
    ck_assert(ptr && col && val && y);
    size_t w = 0;
    srand(5);
    for (size_t i = 0; i < n; i++) {
        ptr[i] = w;
        y[i] = i % 2 ? 1.0 : -1.0;
        if (i % 11 == 3)
            continue; /* no non-zeros */
        uint32_t c = (uint32_t)(rand() % 400);
        for (size_t j = 0; j < k && c < wide; j++) {
            col[w] = c;
            val[w++] = (float)((rand() % 2000) / 500.0 - 2.0);
            /* some rows' first columns neighbours (made in pairs) */
            c += j < 3 && i % 4 == 0 ? 1 : 1 + (uint32_t)(rand() % 700);
        }
    }
    ptr[n] = w;
    tsgs_dataset *t = NULL;
    ck_assert_int_eq(tsgs__dataset_from_csr(n, wide, ptr, col, val, y, &t,
                                            NULL),
                     TSGS_OK);
    size_t dropped = 0;
    ck_assert_int_eq(tsgs_dataset_drop_features(t, 3000, &dropped, NULL),
                     TSGS_OK);
    ck_assert_uint_gt(dropped, 0);
    /* a copy whose first call keeps a cache of its columns (m's first
     * call, with no memory for one, decides that it has none) */
    tsgs_model *kept = NULL;
    char path[64];
    snprintf(path, sizeof path, "/tmp/tsgs_sparse_%ld.model", (long)getpid());
    ck_assert_int_eq(tsgs_model_save(m, path, &err), TSGS_OK);
    ck_assert_int_eq(tsgs_model_load(path, &kept, &err), TSGS_OK);
    unlink(path);
    double want[44], got[44];
    tsgs__omega_column_one_by_one(1);
    ck_assert_int_eq(tsgs__predict_within(m, t, 1, 0.0, want, NULL), TSGS_OK);
    tsgs__omega_column_one_by_one(0);
    for (int threads = 1; threads <= 2; threads++)
        for (int how = 0; how < 3; how++) {
            /* how 0: a per-call cache of some columns (the model's do
             * not fit), the others made by each task; 1: no cache; 2: the
             * kept cache, row by row */
            if (how < 2) {
                ck_assert_int_eq(tsgs__predict_within(m, t, threads,
                                                      how ? 0.0 : 2e4, got,
                                                      NULL),
                                 TSGS_OK);
            } else {
                for (size_t i = 0; i < n; i++) {
                    tsgs_dataset *row = NULL;
                    ck_assert_int_eq(tsgs_dataset_select(t, &i, 1, &row, NULL),
                                     TSGS_OK);
                    ck_assert_int_eq(tsgs__predict_within(kept, row, threads,
                                                          1e9, got + i, NULL),
                                     TSGS_OK);
                    tsgs_dataset_free(row);
                }
            }
            for (size_t i = 0; i < n; i++)
                ck_assert_msg(!memcmp(&got[i], &want[i], sizeof got[i]),
                              "row %zu, %d threads, way %d: %.17g, one by "
                              "one %.17g",
                              i, threads, how, got[i], want[i]);
        }
    ck_assert_ptr_nonnull(kept->pcc);
    tsgs_dataset_free(t);
    tsgs_model_free(m);
    tsgs_model_free(kept);
    tsgs_dataset_free(ds);
}
END_TEST

/* A prediction's per-call cache (tsgs__colcache_new_shared) keeps the
 * columns that occur twice or more, and only those, when they fit; the
 * columns of one row are left to the tasks (issue #30). */
START_TEST(shared_cache_keeps_reused_columns)
{
    tsgs_dataset *ds = sparse_set(200, 20000, 10, 0, 31, NULL);
    const size_t nnz = ds->ptr[ds->n];
    unsigned *uses = calloc(20000, sizeof *uses);
    ck_assert_ptr_nonnull(uses);
    size_t shared = 0, once = 0;
    for (size_t e = 0; e < nnz; e++)
        uses[ds->col[e]]++;
    for (size_t k = 0; k < 20000; k++) {
        shared += uses[k] >= 2;
        once += uses[k] == 1;
    }
    ck_assert_uint_gt(shared, 0);
    ck_assert_uint_gt(once, 0);
    tsgs__colcache *cc = NULL;
    ck_assert_int_eq(tsgs__colcache_new_shared(ds, 40, 1e9, &cc, NULL),
                     TSGS_OK);
    ck_assert_ptr_nonnull(cc);
    ck_assert_uint_eq(cc->ncols, shared);
    for (size_t s = 0; s < cc->ncols; s++)
        ck_assert_uint_ge(uses[cc->cols[s]], 2);
    tsgs__colcache_free(cc);
    /* room for 3 columns: the 3 most used */
    ck_assert_int_eq(tsgs__colcache_new_shared(ds, 40, 3 * 48 * 4, &cc, NULL),
                     TSGS_OK);
    ck_assert_uint_eq(cc->ncols, 3);
    unsigned least = ~0u, most_left = 0;
    for (size_t s = 0; s < 3; s++)
        least = uses[cc->cols[s]] < least ? uses[cc->cols[s]] : least;
    for (size_t k = 0; k < 20000; k++) {
        int kept = 0;
        for (size_t s = 0; s < 3; s++)
            kept |= cc->cols[s] == k;
        if (!kept && uses[k] > most_left)
            most_left = uses[k];
    }
    ck_assert_uint_ge(least, most_left);
    tsgs__colcache_free(cc);
    free(uses);
    tsgs_dataset_free(ds);
}
END_TEST

/* The feature rows of sparse rows made column by column
 * (tsgs__sparse_feature_rows: each column's directions made once a chunk
 * and added where its rows are) are the bits the kernel's tasks give
 * (tsgs__sparse_features, no cache), scaled as tsgs__feature_rows scales
 * them: both maps, 1 and 2 threads, directions across several chunks and
 * not a whole lane group, even/odd column pairs, shared columns, a
 * sub-view of rows; tsgs__feature_rows takes that path and gives the same;
 * rows whose columns do not ascend are not taken. */
START_TEST(feature_rows_by_column_equal_tasks)
{
    const int pair = _i;
    sparse_case c = sparse_case_new((sparse_spec){
        .n = 90, .d = 600, .k = 12, .nl = 90, .seed = 53,
        .map = pair ? TSGS_FEATURES_PAIR : TSGS_FEATURES_COS, .sigma = 0.2});
    tsgs__rows all, R;
    ck_assert_int_eq(tsgs__rows_init(&all, c.ds, &c.none, c.ds->n), 0);
    ck_assert_int_eq(tsgs__rows_gather(&all, c.ds, &c.none, NULL, c.ds->n),
                     0);
    R = tsgs__rows_sub(&all, 7, 80); /* entries from a nonzero offset */
    size_t pairs = 0, shared = 0;
    unsigned *uses = calloc(600, sizeof *uses);
    ck_assert_ptr_nonnull(uses);
    for (size_t e = R.ptr[0]; e < R.ptr[R.n]; e++)
        uses[R.col[e]]++;
    for (size_t k = 0; k + 1 < 600; k++) {
        pairs += k % 2 == 0 && uses[k] && uses[k + 1];
        shared += uses[k] >= 2;
    }
    ck_assert_uint_gt(pairs, 0);
    ck_assert_uint_gt(shared, 0);
    const long ndirs = 601; /* three chunks of 256, the last not whole */
    const size_t ld = (size_t)(ndirs + TSGS__LANES - 1) / TSGS__LANES *
                      TSGS__LANES;
    const size_t D = tsgs__feature_columns(&c.fs, (size_t)ndirs);
    const float k = (float)((pair ? 1.0 : sqrt(2.0)) / sqrt((double)ndirs));
    float *cv = malloc(sizeof(float) * R.n * ld);
    float *sv = malloc(sizeof(float) * R.n * ld);
    float *want = calloc(R.n * D, sizeof(float));
    float *got = calloc(R.n * D, sizeof(float));
    ck_assert(cv && sv && want && got);
    ck_assert_int_eq(tsgs__sparse_features(&c.fs, NULL, 0, ndirs, &R, ld, 1,
                                           cv, pair ? sv : NULL, NULL, 0.0,
                                           NULL),
                     TSGS_OK);
    for (size_t i = 0; i < R.n; i++)
        for (long j = 0; j < ndirs; j++) {
            want[i * D + (size_t)j] = k * cv[i * ld + (size_t)j];
            if (pair)
                want[i * D + (size_t)(ndirs + j)] = k * sv[i * ld + (size_t)j];
        }
    for (int threads = 1; threads <= 2; threads++) {
        ck_assert(tsgs__sparse_feature_rows_fit(&R, ndirs, threads));
        memset(got, 0, sizeof(float) * R.n * D);
        ck_assert_int_eq(tsgs__sparse_feature_rows(&c.fs, ndirs, &R, threads,
                                                   k, D, pair, NULL, 0.0,
                                                   got, NULL),
                         TSGS_OK);
        ck_assert_mem_eq(got, want, sizeof(float) * R.n * D);
        memset(got, 0, sizeof(float) * R.n * D);
        ck_assert_int_eq(tsgs__feature_rows(&c.fs, (size_t)ndirs, &R, threads,
                                            NULL, NULL, got, NULL),
                         TSGS_OK);
        ck_assert_mem_eq(got, want, sizeof(float) * R.n * D);
    }
    /* a row whose columns repeat or descend: the kernel's tasks take it */
    tsgs__rows U;
    ck_assert_int_eq(tsgs__rows_clone(&U, &R), 0);
    const size_t e = U.ptr[3];
    ck_assert_uint_ge(U.ptr[4] - e, 2);
    const uint32_t t = U.col[e];
    U.col[e] = U.col[e + 1];
    U.col[e + 1] = t;
    ck_assert(!tsgs__sparse_feature_rows_fit(&U, ndirs, 1));
    tsgs__rows_free(&U);
    free(uses);
    free(cv);
    free(sv);
    free(want);
    free(got);
    tsgs__rows_free(&all);
    sparse_case_free(&c);
}
END_TEST

/* Directions made from shared draws (the grid's sigmas) are the bits the
 * column cache makes for each sigma, for both kernels. */
START_TEST(colcache_from_draws_equals_made)
{
    sparse_case c = sparse_case_new((sparse_spec){
        .n = 50, .d = 2000, .k = 8, .nl = 50, .seed = 41,
        .kernel = _i ? TSGS_KERNEL_LAPLACIAN : TSGS_KERNEL_RBF, .sigma = 0.3});
    const tsgs_dataset *ds = c.ds;
    const tsgs__fspec fs = c.fs;
    const long ndirs = 40;
    tsgs__colcache *cc = NULL;
    ck_assert_int_eq(tsgs__colcache_new(ds, ndirs, 1e9, &cc, NULL), TSGS_OK);
    double *units = NULL;
    ck_assert_int_eq(tsgs__colcache_units(cc, &fs, ndirs, 2, &units, NULL),
                     TSGS_OK);
    const double sigmas[] = {0.01, 0.3, 4.0};
    for (int a = 0; a < 3; a++) {
        tsgs__fspec f = fs;
        f.sigma = sigmas[a];
        tsgs__colcache *made = NULL, *scaled = NULL;
        ck_assert_int_eq(tsgs__colcache_new(ds, ndirs, 1e9, &made, NULL),
                         TSGS_OK);
        tsgs__colcache_fill(made, &f, ndirs, 1);
        ck_assert_int_eq(tsgs__colcache_scaled(cc, units, &f, ndirs, &scaled,
                                               NULL),
                         TSGS_OK);
        ck_assert_uint_eq(scaled->ncols, made->ncols);
        ck_assert_int_eq(scaled->filled, ndirs);
        for (size_t s = 0; s < made->ncols; s++) {
            ck_assert_uint_eq(scaled->cols[s], made->cols[s]);
            ck_assert_mem_eq(scaled->W + s * (size_t)made->stride,
                             made->W + s * (size_t)made->stride,
                             sizeof(float) * (size_t)ndirs);
            ck_assert(made->W[s * (size_t)made->stride + 3] ==
                      tsgs__omega_coord(&f, 0, 3, made->cols[s]));
        }
        tsgs__colcache_free(made);
        tsgs__colcache_free(scaled);
    }
    free(units);
    tsgs__colcache_free(cc);
    sparse_case_free(&c);
}
END_TEST

/* The same training (iid directions, C and sigma given) on a sparse set
 * and its dense copy: the same model, up to float rounding. */
START_TEST(sparse_and_dense_train_alike)
{
    tsgs_dataset *dense = NULL;
    tsgs_dataset *ds = sparse_set(160, 5000, 15, 60, 5, &dense);
    tsgs_params p = tsgs_params_default();
    p.solver = _i ? TSGS_SOLVER_DSG : TSGS_SOLVER_SAFE;
    p.directions = TSGS_DIRECTIONS_IID;
    p.scale = TSGS_SCALE_MAXABS;
    p.sigma = 0.02;
    p.c = 10;
    p.threads = 1;
    p.max_features = 256;
    p.iterations = _i ? 200 : 0;
    tsgs_model *ms = NULL, *md = NULL;
    tsgs_error err;
    ck_assert_msg(tsgs_train(ds, &p, NULL, &ms, NULL, &err) == TSGS_OK, "%s",
                  err.message);
    ck_assert_msg(tsgs_train(dense, &p, NULL, &md, NULL, &err) == TSGS_OK,
                  "%s", err.message);
    double *fs_ = malloc(sizeof(double) * ds->n);
    double *fd = malloc(sizeof(double) * ds->n);
    ck_assert_int_eq(tsgs_predict(ms, ds, 1, fs_, NULL), TSGS_OK);
    ck_assert_int_eq(tsgs_predict(md, dense, 1, fd, NULL), TSGS_OK);
    for (size_t i = 0; i < ds->n; i++)
        ck_assert_double_eq_tol(fs_[i], fd[i], 1e-3 * (1.0 + fabs(fd[i])));
    /* and the sparse model predicts dense rows as it predicts sparse ones */
    ck_assert_int_eq(tsgs_predict(ms, dense, 1, fd, NULL), TSGS_OK);
    for (size_t i = 0; i < ds->n; i++)
        ck_assert_double_eq_tol(fs_[i], fd[i], 1e-4 * (1.0 + fabs(fd[i])));
    free(fs_);
    free(fd);
    tsgs_model_free(ms);
    tsgs_model_free(md);
    tsgs_dataset_free(ds);
    tsgs_dataset_free(dense);
}
END_TEST

/* The fuzz finding: 62 rows of 1 KB with one index 4,444,441 asked ~1 GB
 * of dense floats before --max-memory could look. Now: read sparse, an
 * estimate that follows the non-zeros, and a run that trains. */
START_TEST(far_index_file_trains_small)
{
    char text[4096] = "";
    for (int i = 0; i < 62; i++) {
        char line[80];
        snprintf(line, sizeof line, "%d %d:%d %d:0.5%s\n",
                 i % 2 ? 1 : -1, 1 + i % 5, 1 + i % 3, 6 + (i % 2),
                 i == 7 ? " 4444441:1" : "");
        strcat(text, line);
    }
    char *p = write_tmp(text);
    tsgs_dataset *ds = test_read_ok(p, NULL);
    unlink(p);
    ck_assert(tsgs_dataset_is_sparse(ds));
    ck_assert_uint_eq(tsgs_dataset_features(ds), 4444441);
    tsgs_params prm = tsgs_params_default();
    prm.threads = 1;
    double need = 0.0;
    ck_assert_int_eq(tsgs_train_memory(ds, &prm, &need, NULL), TSGS_OK);
    /* dense: 62 x 4.4M floats (1.1 GB) plus d-wide panels; sparse: the
     * columns that occur */
    ck_assert_double_lt(need, 4e6);
    ck_assert_double_gt(need, 0.0);
    tsgs_model *m = NULL;
    tsgs_error err;
    ck_assert_msg(tsgs_train(ds, &prm, NULL, &m, NULL, &err) == TSGS_OK, "%s",
                  err.message);
    ck_assert_int_eq(tsgs_model_params(m)->directions, TSGS_DIRECTIONS_IID);
    double *f = malloc(sizeof(double) * 62);
    ck_assert_int_eq(tsgs_predict(m, ds, 1, f, NULL), TSGS_OK);
    size_t n_l = 0;
    ck_assert_double_ge(tsgs_accuracy(m, ds, f, &n_l), 0.9);
    free(f);
    tsgs_model_free(m);
    tsgs_dataset_free(ds);
}
END_TEST

START_TEST(dense_only_solvers_refuse_wide_sparse)
{
    tsgs_dataset *ds = sparse_set(40, 3000000, 10, 20, 9, NULL);
    tsgs_params p = tsgs_params_default();
    p.solver = TSGS_SOLVER_BS3VM;
    p.threads = 1;
    tsgs_model *m = NULL;
    tsgs_error err;
    ck_assert_int_eq(tsgs_train(ds, &p, NULL, &m, NULL, &err),
                     TSGS_ERR_UNSUPPORTED);
    ck_assert_ptr_null(m);
    ck_assert_ptr_nonnull(strstr(err.message, "bs3vm"));
    ck_assert_ptr_nonnull(strstr(err.message, "safe, tsg or dsg"));
    p.solver = TSGS_SOLVER_SAFE;
    p.directions = TSGS_DIRECTIONS_ORTHOGONAL;
    ck_assert_int_eq(tsgs_train(ds, &p, NULL, &m, NULL, &err),
                     TSGS_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(err.message, "orthogonal"));
    tsgs_dataset_free(ds);
}
END_TEST

/* save_npy writes sparse rows as the dense rows np.load expects (a row
 * at a time): reading the pair back gives the dense copy's rows and
 * labels exactly. */
START_TEST(save_npy_writes_sparse_rows_dense)
{
    tsgs_dataset *dense = NULL;
    tsgs_dataset *ds = sparse_set(37, 5000, 6, 12, 21, &dense);
    ck_assert(tsgs_dataset_is_sparse(ds));
    char path[64];
    snprintf(path, sizeof path, "/tmp/tsgs_sparse_%ld.npy", (long)getpid());
    char lpath[64];
    tsgs_npy_labels_path(path, lpath, sizeof lpath);
    tsgs_error err;
    ck_assert_msg(tsgs_dataset_save_npy(ds, path, &err) == TSGS_OK, "%s",
                  err.message);
    tsgs_dataset *back = test_read_ok(path, NULL);
    unlink(path);
    unlink(lpath);
    ck_assert(!tsgs_dataset_is_sparse(back));
    ck_assert_uint_eq(tsgs_dataset_rows(back), 37);
    ck_assert_uint_eq(tsgs_dataset_features(back), 5000);
    ck_assert_mem_eq(back->x, dense->x, sizeof(float) * 37 * 5000);
    for (size_t i = 0; i < 37; i++) {
        double a = tsgs_dataset_label(back, i), b = tsgs_dataset_label(ds, i);
        ck_assert(isnan(a) ? isnan(b) : a == b);
    }
    tsgs_dataset_free(back);
    tsgs_dataset_free(dense);
    tsgs_dataset_free(ds);
}
END_TEST

/* Rows compared bit for bit (what lets one-vs-rest classes share feature
 * rows): a clone equals its source, a view of a sparse buffer equals a
 * clone of the same rows whatever its offsets, and one value, one column,
 * a row's length, the row count or the storage differing makes them
 * unequal. */
START_TEST(rows_equal_bit_for_bit)
{
    /* sparse: rows {1:1, 3:2}, {}, {0:-0.5}, {2:4, 3:1} in 4 columns */
    size_t ptr[] = {0, 2, 2, 3, 5};
    uint32_t col[] = {1, 3, 0, 2, 3};
    float val[] = {1, 2, -0.5f, 4, 1};
    tsgs__rows S = {4, 4, NULL, ptr, col, val, 0, 0};
    tsgs__rows C, V;
    ck_assert_int_eq(tsgs__rows_clone(&C, &S), 0);
    ck_assert(tsgs__rows_equal(&S, &C));
    V = tsgs__rows_sub(&S, 2, 2); /* offsets start at 3 */
    tsgs__rows C2;
    ck_assert_int_eq(tsgs__rows_clone(&C2, &V), 0);
    ck_assert_uint_eq(C2.ptr[0], 0);
    ck_assert(tsgs__rows_equal(&V, &C2));
    ck_assert(!tsgs__rows_equal(&V, &C)); /* 2 rows against 4 */
    C.val[4] = 1.0f + 1e-7f;
    ck_assert(!tsgs__rows_equal(&S, &C));
    C.val[4] = 1.0f;
    C.col[2] = 1;
    ck_assert(!tsgs__rows_equal(&S, &C));
    C.col[2] = 0;
    C.ptr[1] = 1; /* row 0 one shorter, row 1 one longer */
    ck_assert(!tsgs__rows_equal(&S, &C));
    C.ptr[1] = 2;
    ck_assert(tsgs__rows_equal(&S, &C));
    /* dense: the same rows, and the sign of a zero counts */
    float x[] = {0, 1, 0, 2, 0, 0, 0, 0, -0.5f, 0, 0, 0, 0, 0, 4, 1};
    tsgs__rows D = tsgs__rows_dense(x, 4, 4), E;
    ck_assert(!tsgs__rows_equal(&D, &S));
    ck_assert_int_eq(tsgs__rows_clone(&E, &D), 0);
    ck_assert(tsgs__rows_equal(&D, &E));
    E.x[5] = -0.0f;
    ck_assert(!tsgs__rows_equal(&D, &E));
    tsgs__rows_free(&C);
    tsgs__rows_free(&C2);
    tsgs__rows_free(&E);
}
END_TEST

START_TEST(select_and_append_keep_rows)
{
    tsgs_dataset *dense = NULL;
    tsgs_dataset *ds = sparse_set(30, 5000, 8, 10, 21, &dense);
    size_t rows[3] = {29, 0, 7};
    tsgs_dataset *sub = NULL;
    ck_assert_int_eq(tsgs_dataset_select(ds, rows, 3, &sub, NULL), TSGS_OK);
    ck_assert(tsgs_dataset_is_sparse(sub));
    float *a = malloc(sizeof(float) * 5000);
    for (int i = 0; i < 3; i++) {
        tsgs__row_dense(sub, (size_t)i, a);
        ck_assert_mem_eq(a, tsgs_dataset_row(dense, rows[i]),
                         sizeof(float) * 5000);
    }
    /* dense rows appended to sparse ones stay sparse, as unlabeled rows */
    ck_assert_int_eq(tsgs_dataset_append_unlabeled(sub, dense, NULL),
                     TSGS_OK);
    ck_assert_uint_eq(tsgs_dataset_rows(sub), 33);
    ck_assert(tsgs_dataset_is_sparse(sub));
    tsgs__row_dense(sub, 3 + 5, a);
    ck_assert_mem_eq(a, tsgs_dataset_row(dense, 5), sizeof(float) * 5000);
    ck_assert(isnan(tsgs_dataset_label(sub, 4)));
    size_t dropped = 0, below = 0, total = tsgs_dataset_nonzeros(sub);
    for (size_t j = 0; j < total; j++)
        below += sub->col[j] < 100;
    ck_assert_uint_gt(below, 0);
    ck_assert_int_eq(tsgs_dataset_drop_features(sub, 100, &dropped, NULL),
                     TSGS_OK);
    ck_assert_uint_eq(tsgs_dataset_features(sub), 100);
    ck_assert_uint_eq(tsgs_dataset_nonzeros(sub), below);
    ck_assert_uint_eq(dropped, total - below);
    tsgs__row_dense(sub, 3 + 5, a);
    for (size_t k = 0; k < 100; k++)
        ck_assert_float_eq(a[k], tsgs_dataset_row(dense, 5)[k]);
    free(a);
    tsgs_dataset_free(sub);
    tsgs_dataset_free(ds);
    tsgs_dataset_free(dense);
}
END_TEST

Suite *sparse_suite(void)
{
    Suite *s = suite_create("sparse");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, reader_csr_equals_dense_rows);
    tcase_add_test(tc, maxabs_keeps_zeros);
    tcase_add_loop_test(tc, sparse_kernel_equals_dense, 0, 4);
    tcase_add_loop_test(tc, sparse_and_dense_train_alike, 0, 2);
    tcase_add_test(tc, far_index_file_trains_small);
    tcase_add_test(tc, dense_only_solvers_refuse_wide_sparse);
    tcase_add_test(tc, select_and_append_keep_rows);
    tcase_add_test(tc, rows_equal_bit_for_bit);
    tcase_add_test(tc, save_npy_writes_sparse_rows_dense);
    tcase_add_loop_test(tc, featcache_equals_kernel, 0, 2);
    tcase_add_loop_test(tc, colcache_from_draws_equals_made, 0, 2);
    tcase_add_loop_test(tc, sparse_tsg_same_with_and_without_caches, 0, 2);
    tcase_add_test(tc, kept_column_cache_scores_alike);
    tcase_add_loop_test(tc, omega_column_equals_coord, 0, TSGS__ISA_COUNT);
    tcase_add_loop_test(tc, sparse_predict_equals_one_by_one, 0, 2);
    tcase_add_test(tc, shared_cache_keeps_reused_columns);
    tcase_add_loop_test(tc, feature_rows_by_column_equal_tasks, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}
