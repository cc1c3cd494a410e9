/* A caller's stop as the long loops see it (stop.c), and the loops that
 * poll it: the hook is polled at most every TSGS__STOP_POLL_S, by one
 * thread at a time, and its answer kept; optional work ends at once,
 * required work a grace period later, with TSGS_ERR_STOPPED naming the
 * stage. Each loop is checked with a stop already overdue: the scaler's
 * passes, the feature rows (dense and sparse), the direction panel, the
 * dual SVM fits, L-BFGS and the annealing, and the grid, which returns
 * its centre; and a read (tsgs_read_options.should_stop), plain, split
 * over threads, gzip-compressed and a block at a time, which ends with
 * TSGS_ERR_STOPPED naming the file and the line it reached. */
#define _DEFAULT_SOURCE /* usleep */
#include <check.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "fixtures.h"
#include "internal.h"
#include "solvers/safe/lbfgs.h"
#include "select/model_select.h"
#include "solvers/safe/s3vm_path.h"
#include "select/svm_dual.h"

static atomic_int calls, inside, most_inside;
static int answer;

static int ask(void *user)
{
    (void)user;
    int now = atomic_fetch_add(&inside, 1) + 1;
    int seen = atomic_load(&most_inside);
    while (now > seen && !atomic_compare_exchange_weak(&most_inside, &seen,
                                                       now))
        ;
    atomic_fetch_add(&calls, 1);
    usleep(200); /* long enough for another thread to try meanwhile */
    atomic_fetch_sub(&inside, 1);
    return answer;
}

/* A stop whose hook asks and which saw it long ago: due at any grace. */
static void overdue(tsgs__stop *s, tsgs_train_hooks *h)
{
    memset(h, 0, sizeof *h);
    h->should_stop = ask;
    answer = 1;
    tsgs__stop_init(s, h);
    ck_assert(tsgs__stop_due(s, TSGS__STOP_OPTIONAL));
    atomic_store(&s->asked_ns, 1); /* first seen at boot: long overdue */
    ck_assert(tsgs__stop_due(s, TSGS__STOP_REQUIRED));
}

START_TEST(none_is_never_due)
{
    ck_assert(!tsgs__stop_due(NULL, 0.0));
    tsgs__stop s;
    tsgs__stop_init(&s, NULL);
    ck_assert(!tsgs__stop_due(&s, 0.0));
    tsgs_train_hooks h;
    memset(&h, 0, sizeof h); /* hooks without should_stop */
    tsgs__stop_init(&s, &h);
    ck_assert(!tsgs__stop_due(&s, 0.0));
}
END_TEST

/* Polled in a tight loop for 0.1 s, the hook is called about every
 * TSGS__STOP_POLL_S, not every time; once it asks the answer stays even
 * when it no longer does; the required grace runs from then. */
START_TEST(polls_rate_limited_answer_kept)
{
    tsgs_train_hooks h;
    memset(&h, 0, sizeof h);
    h.should_stop = ask;
    answer = 0;
    atomic_store(&calls, 0);
    tsgs__stop s;
    tsgs__stop_init(&s, &h);
    long polls = 0;
    for (double t0 = test_now_s(); test_now_s() - t0 < 0.1; polls++)
        ck_assert(!tsgs__stop_due(&s, 0.0));
    const int c = atomic_load(&calls);
    ck_assert_msg(c >= 3 && c <= 0.1 / TSGS__STOP_POLL_S + 2,
                  "%d calls of %ld polls", c, polls);
    ck_assert(polls > 10 * c);
    answer = 1;
    usleep(20000);
    ck_assert(tsgs__stop_due(&s, TSGS__STOP_OPTIONAL));
    const double seen = test_now_s();
    answer = 0; /* kept */
    usleep(20000);
    ck_assert(tsgs__stop_due(&s, TSGS__STOP_OPTIONAL));
    ck_assert(!tsgs__stop_due(&s, TSGS__STOP_REQUIRED));
    while (test_now_s() - seen < TSGS__STOP_REQUIRED + 0.05)
        usleep(10000);
    ck_assert(tsgs__stop_due(&s, TSGS__STOP_REQUIRED));
}
END_TEST

/* Polled by a team of threads, the hook is never in two at once. */
START_TEST(one_thread_in_the_hook)
{
    tsgs_train_hooks h;
    memset(&h, 0, sizeof h);
    h.should_stop = ask;
    answer = 0;
    atomic_store(&calls, 0);
    atomic_store(&most_inside, 0);
    tsgs__stop s;
    tsgs__stop_init(&s, &h);
#ifdef _OPENMP
#pragma omp parallel num_threads(4)
#endif
    {
        for (double t0 = test_now_s(); test_now_s() - t0 < 0.15;)
            tsgs__stop_due(&s, 0.0);
    }
    ck_assert_int_ge(atomic_load(&calls), 3);
    ck_assert_int_eq(atomic_load(&most_inside), 1);
    tsgs_error err;
    ck_assert_int_eq(tsgs__stopped(&err, "a stage"), TSGS_ERR_STOPPED);
    ck_assert_int_eq(err.code, TSGS_ERR_STOPPED);
    ck_assert_str_eq(err.message, "stopped by the caller during a stage, "
                                  "before a usable model: none returned");
}
END_TEST

/* n rows of d features (all zero but one per row), the first nl labeled
 * +1 / -1 alternately. */
static tsgs_dataset *rows_of(size_t n, size_t d, size_t nl)
{
    float *x = calloc(n * d, sizeof(float));
    double *y = malloc(sizeof(double) * n);
    ck_assert(x && y);
    for (size_t i = 0; i < n; i++) {
        x[i * d + (i * 7) % d] = 1.0f + (float)(i % 3);
        y[i] = i < nl ? (i % 2 ? 1.0 : -1.0) : TSGS_UNLABELED;
    }
    tsgs_dataset *ds = NULL;
    ck_assert_int_eq(tsgs_dataset_from_dense(n, d, x, y, &ds, NULL), TSGS_OK);
    free(x);
    free(y);
    return ds;
}

/* The scaler's passes: the same fit without a stop (or one not asked),
 * TSGS_ERR_STOPPED with one overdue. */
START_TEST(scaler_fit_stops)
{
    tsgs_dataset *ds = rows_of(300, 20, 40);
    tsgs__scaler a, b;
    tsgs__stop s;
    tsgs_train_hooks h;
    memset(&h, 0, sizeof h);
    h.should_stop = ask;
    answer = 0;
    tsgs__stop_init(&s, &h);
    ck_assert_int_eq(tsgs__scaler_fit_threads(ds, TSGS_SCALE_ZSCORE, 0, 2, &a,
                                              NULL),
                     TSGS_OK);
    ck_assert_int_eq(tsgs__scaler_fit_stop(ds, TSGS_SCALE_ZSCORE, 0, 2, &s,
                                           &b, NULL),
                     TSGS_OK);
    ck_assert_int_eq(memcmp(a.shift, b.shift, sizeof(double) * 20), 0);
    ck_assert_int_eq(memcmp(a.mul, b.mul, sizeof(double) * 20), 0);
    tsgs__scaler_clear(&a);
    tsgs__scaler_clear(&b);
    overdue(&s, &h);
    tsgs_error err;
    for (int kind = TSGS_SCALE_ZSCORE; kind <= TSGS_SCALE_MINMAX; kind++) {
        ck_assert_int_eq(tsgs__scaler_fit_stop(ds, (tsgs_scaling)kind, 0, 2,
                                               &s, &b, &err),
                         TSGS_ERR_STOPPED);
        ck_assert_ptr_nonnull(strstr(err.message, "the scaler's fit"));
    }
    tsgs_dataset_free(ds);
}
END_TEST

/* Feature rows, dense (iid and orthogonal directions) and sparse: the
 * same values with a stop not asked, TSGS_ERR_STOPPED when overdue; the
 * direction panel alone returns 1. */
START_TEST(feature_rows_stop)
{
    tsgs_dataset *ds = rows_of(50, 300, 50);
    tsgs_params p = tsgs_params_default();
    p.sigma = 0.05;
    const size_t ndirs = 64;
    tsgs__stop s;
    tsgs_train_hooks h;
    memset(&h, 0, sizeof h);
    h.should_stop = ask;
    answer = 0;
    tsgs__stop_init(&s, &h);
    const tsgs__rows X = tsgs__rows_dense(ds->x, ds->n, ds->d);
    for (int orth = 0; orth <= 1; orth++) {
        p.directions = orth ? TSGS_DIRECTIONS_ORTHOGONAL : TSGS_DIRECTIONS_IID;
        tsgs__fspec fs = tsgs__fspec_of(&p, ds->d);
        const size_t D = tsgs__feature_columns(&fs, ndirs);
        float *a = malloc(sizeof(float) * ds->n * D);
        float *b = malloc(sizeof(float) * ds->n * D);
        ck_assert(a && b);
        ck_assert_int_eq(tsgs__feature_rows(&fs, ndirs, &X, 2, NULL, NULL, a,
                                            NULL),
                         TSGS_OK);
        answer = 0;
        tsgs__stop_init(&s, &h);
        ck_assert_int_eq(tsgs__feature_rows(&fs, ndirs, &X, 2, NULL, &s, b,
                                            NULL),
                         TSGS_OK);
        ck_assert_int_eq(memcmp(a, b, sizeof(float) * ds->n * D), 0);
        overdue(&s, &h);
        tsgs_error err;
        ck_assert_int_eq(tsgs__feature_rows(&fs, ndirs, &X, 2, NULL, &s, b,
                                            &err),
                         TSGS_ERR_STOPPED);
        ck_assert_ptr_nonnull(strstr(err.message, "the feature rows"));
        float *panel = malloc(sizeof(float) * ndirs * ds->d);
        float phase[64];
        ck_assert_int_eq(tsgs__pack_directions_stop(&fs, 0, (long)ndirs, panel,
                                                    phase, &s, 0.0),
                         1);
        free(panel);
        free(a);
        free(b);
    }
    /* sparse rows: the same values as dense ones' to float rounding, and
     * the stop */
    p.directions = TSGS_DIRECTIONS_IID;
    tsgs__fspec fs = tsgs__fspec_of(&p, ds->d);
    tsgs__scaler none = {TSGS_SCALE_NONE, ds->d, NULL, NULL, 0, NULL, NULL};
    /* the same rows as CSR: each row's one non-zero */
    const size_t n = ds->n;
    size_t *ptr = malloc(sizeof(size_t) * (n + 1));
    uint32_t *col = malloc(sizeof(uint32_t) * n);
    float *val = malloc(sizeof(float) * n);
    double *yc = malloc(sizeof(double) * n);
    ck_assert(ptr && col && val && yc);
    for (size_t i = 0; i < n; i++) {
        ptr[i] = i;
        col[i] = (uint32_t)((i * 7) % ds->d);
        val[i] = ds->x[i * ds->d + col[i]];
        yc[i] = ds->y[i];
    }
    ptr[n] = n;
    tsgs_dataset *sp = NULL; /* takes the arrays */
    ck_assert_int_eq(tsgs__dataset_from_csr(n, ds->d, ptr, col, val, yc, &sp,
                                            NULL),
                     TSGS_OK);
    tsgs__rows S;
    ck_assert_int_eq(tsgs__rows_init(&S, sp, &none, sp->n), 0);
    ck_assert_int_eq(tsgs__rows_gather(&S, sp, &none, NULL, sp->n), 0);
    const size_t D = tsgs__feature_columns(&fs, ndirs);
    float *a = malloc(sizeof(float) * ds->n * D);
    float *b = malloc(sizeof(float) * ds->n * D);
    ck_assert_int_eq(tsgs__feature_rows(&fs, ndirs, &X, 1, NULL, NULL, a,
                                        NULL),
                     TSGS_OK);
    answer = 0;
    tsgs__stop_init(&s, &h);
    ck_assert_int_eq(tsgs__feature_rows(&fs, ndirs, &S, 1, NULL, &s, b, NULL),
                     TSGS_OK);
    for (size_t j = 0; j < ds->n * D; j++)
        ck_assert_float_eq_tol(a[j], b[j], 2e-5);
    /* a column cache filled in steps (the stochastic solvers' start on a
     * wide row): the values of one fill, and an overdue stop ends it
     * before the first step */
    tsgs__colcache *one = NULL, *steps = NULL, *cut = NULL;
    ck_assert_int_eq(tsgs__colcache_for_rows(&S, (long)ndirs, 1e9, &one, NULL),
                     TSGS_OK);
    ck_assert_int_eq(tsgs__colcache_for_rows(&S, (long)ndirs, 1e9, &steps,
                                             NULL),
                     TSGS_OK);
    ck_assert_int_eq(tsgs__colcache_for_rows(&S, (long)ndirs, 1e9, &cut, NULL),
                     TSGS_OK);
    tsgs__colcache_fill(one, &fs, (long)ndirs, 1);
    answer = 0;
    tsgs__stop_init(&s, &h);
    /* 100 draws a step: a few directions of every column at a time */
    ck_assert_int_eq(tsgs__colcache_fill_stop(steps, &fs, (long)ndirs, 2,
                                              100.0, &s, 0.0, NULL),
                     TSGS_OK);
    ck_assert_int_eq(steps->filled, (long)ndirs);
    ck_assert_int_eq(memcmp(one->W, steps->W, sizeof(float) * one->ncols *
                                                  (size_t)one->stride),
                     0);
    overdue(&s, &h);
    tsgs_error err;
    ck_assert_int_eq(tsgs__colcache_fill_stop(cut, &fs, (long)ndirs, 2, 100.0,
                                              &s, TSGS__STOP_REQUIRED, &err),
                     TSGS_ERR_STOPPED);
    ck_assert_int_eq(cut->filled, 0);
    ck_assert_ptr_nonnull(strstr(err.message, "directions"));
    tsgs__colcache_free(one);
    tsgs__colcache_free(steps);
    tsgs__colcache_free(cut);
    ck_assert_int_eq(tsgs__feature_rows(&fs, ndirs, &S, 1, NULL, &s, b, NULL),
                     TSGS_ERR_STOPPED);
    free(a);
    free(b);
    tsgs__rows_free(&S);
    tsgs_dataset_free(sp);
    tsgs_dataset_free(ds);
}
END_TEST

static double bowl(const double *x, double *g, void *user)
{
    (void)user;
    g[0] = 2.0 * (x[0] - 3.0);
    g[1] = 2.0 * (x[1] + 1.0);
    return (x[0] - 3.0) * (x[0] - 3.0) + (x[1] + 1.0) * (x[1] + 1.0);
}

/* The fits: the dual SVM ends with TSGS_ERR_STOPPED, L-BFGS where it is
 * (no step), the annealing at its start (every candidate the start). */
START_TEST(fits_stop)
{
    tsgs__stop s;
    tsgs_train_hooks h;
    overdue(&s, &h);
    float Q[4] = {2, 1, 1, 2};
    double alpha[2] = {0, 0};
    tsgs__dual_opts o = {100, 1e-6, 1, NULL, NULL, &s, NULL, 0.0};
    tsgs_error err;
    ck_assert_int_eq(tsgs__svm_dual_gram(Q, 2, 1.0, &o, alpha, &err),
                     TSGS_ERR_STOPPED);
    ck_assert_ptr_nonnull(strstr(err.message, "supervised SVM"));
    float Phi[4] = {1, 0, 0, 1};
    double y[2] = {1, -1}, w[2], b;
    ck_assert_int_eq(tsgs__svm_dual_features(Phi, 2, y, 2, 1.0, &o, w, &b,
                                             &err),
                     TSGS_ERR_STOPPED);
    double x[2] = {0, 0};
    tsgs__lbfgs_opts lo = {5, 100, 1e-12, &s};
    ck_assert_int_eq(tsgs__lbfgs(2, x, bowl, NULL, &lo), 0);
    ck_assert(x[0] == 0.0 && x[1] == 0.0);
    lo.stop = NULL;
    ck_assert_int_gt(tsgs__lbfgs(2, x, bowl, NULL, &lo), 0);
    ck_assert_double_eq_tol(x[0], 3.0, 1e-6);
    /* the annealing: two rows, one labeled */
    float P[4] = {1, 0.5f, -1, 0.25f};
    double yy[2] = {1, 0}, cw[2] = {1, 1}, mphi[2] = {-1, 0.25};
    tsgs__s3vm_problem pb = {2, 2, P, yy, cw, mphi, 0, 0.0, 1, NULL, &s};
    const double temps[] = {1, 0.1};
    double w0[2] = {0.5, -0.5}, b0 = 0.1, cand_w[4], cand_b[2];
    ck_assert_int_eq(tsgs__s3vm_anneal(&pb, temps, 2, 50, w0, &b0, cand_w,
                                       cand_b, NULL),
                     TSGS_OK);
    for (int k = 0; k < 2; k++) {
        ck_assert(cand_w[2 * k] == 0.5 && cand_w[2 * k + 1] == -0.5);
        ck_assert(cand_b[k] == 0.1);
    }
}
END_TEST

/* The grid with a stop asked: its centre (sigma0, C = 1; the fixed ones
 * where given), marked interrupted, at once; without: a searched point. */
START_TEST(grid_returns_its_centre)
{
    tsgs_dataset *ds = rows_of(60, 5, 60);
    tsgs_params p = tsgs_params_default();
    tsgs__fspec fs = tsgs__fspec_of(&p, ds->d);
    const size_t ndirs = 32;
    const tsgs__rows XL = tsgs__rows_dense(ds->x, ds->n, ds->d);
    tsgs__stop s;
    tsgs_train_hooks h;
    overdue(&s, &h);
    tsgs__grid_job g = {&XL, ds->y, ds->n, ds->d, &fs, ndirs,
                        tsgs__feature_columns(&fs, ndirs), 0.3, 0.0, 0.0, 7, 2,
                        NULL, NULL, &s, NULL};
    tsgs__grid_choice c;
    const double t0 = test_now_s();
    ck_assert_int_eq(tsgs__select_grid(&g, &c, NULL), TSGS_OK);
    ck_assert(test_now_s() - t0 < 1.0);
    ck_assert_int_eq(c.interrupted, 1);
    ck_assert_double_eq(c.sigma, 0.3);
    ck_assert_double_eq(c.c_lib, 1.0);
    ck_assert_int_eq(c.n_c_path, 1);
    ck_assert_double_eq(c.grid_cv, 0.0);
    g.fixed_c = 4.0;
    ck_assert_int_eq(tsgs__select_grid(&g, &c, NULL), TSGS_OK);
    ck_assert(c.interrupted && c.c_lib == 4.0 && c.sigma == 0.3);
    g.fixed_c = 0.0;
    g.stop = NULL;
    ck_assert_int_eq(tsgs__select_grid(&g, &c, NULL), TSGS_OK);
    ck_assert_int_eq(c.interrupted, 0);
    ck_assert(c.grid_cv > 0.0);
    tsgs_dataset_free(ds);
}
END_TEST

/* ----------------------------------------------------------- reading */

/* A read's hook: 0 at its first call, 1 from the second on (the polls
 * are at least TSGS__STOP_POLL_S apart, so the read is well under way),
 * noting when it first said 1. */
typedef struct {
    int calls;
    double asked_s; /* test_now_s() of the first 1; 0 before */
} read_stop;

static int stop_after_first(void *user)
{
    read_stop *rs = user;
    if (rs->calls++ == 0)
        return 0;
    if (rs->asked_s == 0.0)
        rs->asked_s = test_now_s();
    return 1;
}

#define READ_ROWS 1500000 /* 36 MB: 9 of the reader's 4 MiB buffers */

/* path: READ_ROWS LIBSVM rows, gzip-compressed when gz. */
static void write_rows(const char *path, int gz)
{
    static const char line[] = "1 1:0.5 2:0.25 3:0.125\n-1 2:0.75 4:1.5\n";
    const size_t len = sizeof line - 1;
    char *buf = malloc(len * 1000);
    ck_assert_ptr_nonnull(buf);
    for (int i = 0; i < 1000; i++)
        memcpy(buf + (size_t)i * len, line, len);
    const int reps = READ_ROWS / 2000;
    if (gz) {
        gzFile f = gzopen(path, "wb1");
        ck_assert_ptr_nonnull(f);
        for (int r = 0; r < reps; r++)
            ck_assert_int_eq(gzwrite(f, buf, (unsigned)(len * 1000)),
                             (int)(len * 1000));
        ck_assert_int_eq(gzclose(f), Z_OK);
    } else {
        FILE *f = fopen(path, "wb");
        ck_assert_ptr_nonnull(f);
        for (int r = 0; r < reps; r++)
            ck_assert_uint_eq(fwrite(buf, 1, len * 1000, f), len * 1000);
        ck_assert_int_eq(fclose(f), 0);
    }
    free(buf);
}

/* A stop asked once the read is under way ends it within a buffer's
 * parse: TSGS_ERR_STOPPED, no dataset, the error naming the file and a
 * line past the first and before the end. _i: 0 serial, 1 split over 2
 * threads, 2 gzip, 3 a block at a time (tsgs_reader). */
START_TEST(read_stops)
{
    char dir[64], path[128];
    test_make_dir(dir, sizeof dir, "stop");
    snprintf(path, sizeof path, "%s/rows%s", dir, _i == 2 ? ".gz" : "");
    write_rows(path, _i == 2);
    read_stop rs = {0, 0.0};
    tsgs_read_options o = tsgs_read_options_default();
    o.threads = _i == 1 ? 2 : 1;
    o.should_stop = stop_after_first;
    o.stop_user = &rs;
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    tsgs__error_clear(&err);
    tsgs_status st;
    if (_i == 3) {
        tsgs_reader *rd = NULL;
        ck_assert_int_eq(tsgs_reader_open(path, &o, &rd, &err), TSGS_OK);
        size_t rows = 0;
        while ((st = tsgs_reader_next(rd, 1000, &ds, &err)) == TSGS_OK &&
               ds) {
            rows += tsgs_dataset_rows(ds);
            tsgs_dataset_free(ds);
            ds = NULL;
        }
        ck_assert_uint_lt(rows, READ_ROWS);
        /* after the stop the reader only closes */
        tsgs_error again;
        ck_assert_int_ne(tsgs_reader_next(rd, 1000, &ds, &again), TSGS_OK);
        tsgs_reader_close(rd);
    } else {
        st = tsgs__dataset_read_split(path, &o, (size_t)1 << 20, &ds, &err);
    }
    const double took = test_now_s() - rs.asked_s;
    ck_assert_int_eq(st, TSGS_ERR_STOPPED);
    ck_assert_ptr_null(ds);
    ck_assert(rs.asked_s > 0.0);
    ck_assert_msg(took < 0.5, "the read ended %.3f s after the stop", took);
    ck_assert_str_eq(err.file, path);
    ck_assert_msg(err.line > 1 && err.line <= READ_ROWS, "line %ld",
                  err.line);
    char want[160];
    snprintf(want, sizeof want, "%s:%ld: stopped by the caller", path,
             err.line);
    ck_assert_msg(strncmp(err.message, want, strlen(want)) == 0, "%s",
                  err.message);
    /* the same file without a stop (and with a hook that never asks)
     * reads whole */
    answer = 0;
    o.should_stop = ask;
    ck_assert_int_eq(tsgs__dataset_read_split(path, &o, (size_t)1 << 20, &ds,
                                              &err),
                     TSGS_OK);
    ck_assert_uint_eq(tsgs_dataset_rows(ds), READ_ROWS);
    tsgs_dataset_free(ds);
    remove(path);
    test_remove_dir(dir);
}
END_TEST

/* A stop asked before the read: it ends at its first buffer, line 1. */
START_TEST(read_stopped_before_it_starts)
{
    char dir[64], path[128];
    test_make_dir(dir, sizeof dir, "stop");
    snprintf(path, sizeof path, "%s/small.svm", dir);
    test_write_text(path, "1 1:0.5\n-1 2:0.5\n");
    answer = 1;
    tsgs_read_options o = tsgs_read_options_default();
    o.should_stop = ask;
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    ck_assert_int_eq(tsgs_dataset_read(path, &o, &ds, &err),
                     TSGS_ERR_STOPPED);
    ck_assert_ptr_null(ds);
    ck_assert_int_eq(err.line, 1);
    ck_assert_str_eq(err.file, path);
    remove(path);
    test_remove_dir(dir);
}
END_TEST

/* One sparse row of 200,000 non-zeros (the grid's features on a very
 * wide row: a call of 8 directions over 10^7 of them took 4 s): a stop
 * asked once the call is under way ends it inside its one task, with
 * TSGS_ERR_STOPPED; a stop not asked leaves the values as without one. */
START_TEST(sparse_call_stops_inside_a_row)
{
    const size_t d = 200000;
    size_t *ptr = malloc(sizeof(size_t) * 2);
    uint32_t *col = malloc(sizeof(uint32_t) * d);
    float *val = malloc(sizeof(float) * d);
    double *y = malloc(sizeof(double));
    ck_assert(ptr && col && val && y);
    ptr[0] = 0;
    ptr[1] = d;
    for (size_t k = 0; k < d; k++) {
        col[k] = (uint32_t)k;
        val[k] = (float)(k % 7) * 0.1f + 0.05f;
    }
    y[0] = 1.0;
    tsgs_dataset *sp = NULL; /* takes the arrays */
    ck_assert_int_eq(tsgs__dataset_from_csr(1, d, ptr, col, val, y, &sp, NULL),
                     TSGS_OK);
    tsgs__scaler none = {TSGS_SCALE_NONE, d, NULL, NULL, 0, NULL, NULL};
    tsgs__rows S;
    ck_assert_int_eq(tsgs__rows_init(&S, sp, &none, 1), 0);
    ck_assert_int_eq(tsgs__rows_gather(&S, sp, &none, NULL, 1), 0);
    tsgs_params p = tsgs_params_default();
    p.sigma = 1e-5;
    const tsgs__fspec fs = tsgs__fspec_of(&p, d);
    const long count = 8;
    float a[16], b[16], sa[16], sb[16];
    ck_assert_int_eq(tsgs__sparse_features(&fs, NULL, 0, count, &S, 16, 1, a,
                                           sa, NULL, 0.0, NULL),
                     TSGS_OK);
    tsgs__stop s;
    answer = 0;
    tsgs__stop_init_fn(&s, ask, NULL);
    ck_assert_int_eq(tsgs__sparse_features(&fs, NULL, 0, count, &S, 16, 1, b,
                                           sb, &s, TSGS__STOP_OPTIONAL, NULL),
                     TSGS_OK);
    ck_assert_int_eq(memcmp(a, b, sizeof(float) * (size_t)count), 0);
    ck_assert_int_eq(memcmp(sa, sb, sizeof(float) * (size_t)count), 0);
    /* the hook says 0 before the task (the call's first poll) and 1 when
     * next asked, 10 ms on, inside it: one row and 8 directions are one
     * task, so only a poll inside the task can see it */
    read_stop rs = {0, 0.0};
    tsgs__stop_init_fn(&s, stop_after_first, &rs);
    tsgs_error err;
    ck_assert_int_eq(tsgs__sparse_features(&fs, NULL, 0, count, &S, 16, 1, b,
                                           sb, &s, TSGS__STOP_OPTIONAL, &err),
                     TSGS_ERR_STOPPED);
    ck_assert_int_eq(rs.calls, 2);
    ck_assert_ptr_nonnull(strstr(err.message, "the feature rows"));
    tsgs__rows_free(&S);
    tsgs_dataset_free(sp);
}
END_TEST

/* Rows of d columns whose sparse features a task computes at once: a
 * few short rows and three of `wide` non-zeros (overlapping columns): a
 * task's keys then exceed POLLED_SORT_MIN and make several runs. */
static tsgs_dataset *wide_rows(size_t d, size_t wide)
{
    const size_t n = 8;
    size_t nnz = 0;
    for (size_t i = 0; i < n; i++)
        nnz += i % 3 == 1 ? wide : 3;
    size_t *ptr = malloc(sizeof(size_t) * (n + 1));
    uint32_t *col = malloc(sizeof(uint32_t) * nnz);
    float *val = malloc(sizeof(float) * nnz);
    double *y = malloc(sizeof(double) * n);
    ck_assert(ptr && col && val && y);
    size_t e = 0;
    ptr[0] = 0;
    for (size_t i = 0; i < n; i++) {
        const size_t k = i % 3 == 1 ? wide : 3;
        for (size_t j = 0; j < k; j++) {
            /* ascending: i + j * (d / k) spread over [0, d) */
            col[e] = (uint32_t)((i * 7 + j * (d / k)) % d);
            if (j && col[e] <= col[e - 1])
                col[e] = col[e - 1] + 1;
            val[e++] = (float)((i + j) % 9) * 0.1f + 0.05f;
        }
        ptr[i + 1] = e;
        y[i] = i % 2 ? 1.0 : -1.0;
    }
    tsgs_dataset *ds = NULL;
    ck_assert_int_eq(tsgs__dataset_from_csr(n, d, ptr, col, val, y, &ds,
                                            NULL),
                     TSGS_OK);
    return ds;
}

/* A task's keys sorted by merging runs when a stop is given (and many):
 * the same features as qsort's order gives, on one thread and two. */
START_TEST(sparse_polled_sort_same_features)
{
    const size_t d = 300000;
    tsgs_dataset *ds = wide_rows(d, 90000);
    tsgs__scaler none = {TSGS_SCALE_NONE, d, NULL, NULL, 0, NULL, NULL};
    tsgs__rows S;
    ck_assert_int_eq(tsgs__rows_init(&S, ds, &none, ds->n), 0);
    ck_assert_int_eq(tsgs__rows_gather(&S, ds, &none, NULL, ds->n), 0);
    tsgs_params p = tsgs_params_default();
    p.sigma = 1e-4;
    const tsgs__fspec fs = tsgs__fspec_of(&p, d);
    const long count = 16;
    const size_t nf = ds->n * 16;
    float *a = malloc(sizeof(float) * nf), *b = malloc(sizeof(float) * nf);
    float *sa = malloc(sizeof(float) * nf), *sb = malloc(sizeof(float) * nf);
    ck_assert(a && b && sa && sb);
    ck_assert_int_eq(tsgs__sparse_features(&fs, NULL, 0, count, &S, 16, 1, a,
                                           sa, NULL, 0.0, NULL),
                     TSGS_OK);
    tsgs__stop s;
    answer = 0;
    for (int threads = 1; threads <= 2; threads++) {
        tsgs__stop_init_fn(&s, ask, NULL);
        memset(b, 0, sizeof(float) * nf);
        ck_assert_int_eq(tsgs__sparse_features(&fs, NULL, 0, count, &S, 16,
                                               threads, b, sb, &s,
                                               TSGS__STOP_OPTIONAL, NULL),
                         TSGS_OK);
        ck_assert_int_eq(memcmp(a, b, sizeof(float) * nf), 0);
        ck_assert_int_eq(memcmp(sa, sb, sizeof(float) * nf), 0);
    }
    free(a);
    free(b);
    free(sa);
    free(sb);
    tsgs__rows_free(&S);
    tsgs_dataset_free(ds);
}
END_TEST

/* ------------------------------------------------- a step cut midway */

/* The steps reported so far (the progress hook, called on the caller's
 * thread after each step's stop check) and the step from which the stop
 * hook asks: it asks once step `from` has begun (the steps before it
 * reported), so that on sparse rows a poll inside step `from` sees it. */
typedef struct {
    atomic_long reported;
    long from;
} step_stop;

static void on_step(const tsgs_progress *pr, void *user)
{
    step_stop *ss = user;
    atomic_store(&ss->reported, pr->iteration);
}

static int stop_in_step(void *user)
{
    step_stop *ss = user;
    return atomic_load(&ss->reported) >= ss->from - 1;
}

/* Labeled short rows, one labeled row of `wide` non-zeros (each step
 * makes its features on the new block: 50 ms and more) and nu unlabeled
 * short rows, d columns. */
static tsgs_dataset *rows_with_a_wide_one(size_t nl, size_t nu, size_t d,
                                          size_t wide)
{
    const size_t n = nl + 1 + nu, nnz = (nl + nu) * 3 + wide;
    size_t *ptr = malloc(sizeof(size_t) * (n + 1));
    uint32_t *col = malloc(sizeof(uint32_t) * nnz);
    float *val = malloc(sizeof(float) * nnz);
    double *y = malloc(sizeof(double) * n);
    ck_assert(ptr && col && val && y);
    uint64_t x = 88172645463325252ull;
    size_t e = 0;
    ptr[0] = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == nl) {
            for (size_t j = 0; j < wide; j++) {
                col[e] = (uint32_t)(j * (d / wide));
                val[e++] = 0.1f + 0.1f * (float)(j % 9);
            }
            y[i] = 1.0;
        } else {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            const uint32_t c0 = (uint32_t)(x % (d / 3));
            const float cls = i < nl ? (i % 2 ? 1.0f : -1.0f)
                                     : (x >> 40) % 2 ? 1.0f : -1.0f;
            for (uint32_t j = 0; j < 3; j++) {
                col[e] = c0 + j * (uint32_t)(d / 3);
                val[e++] = 0.5f * cls + 0.1f * (float)((x >> (8 * j)) % 5);
            }
            y[i] = i < nl ? cls : TSGS_UNLABELED;
        }
        ptr[i + 1] = e;
    }
    tsgs_dataset *ds = NULL;
    ck_assert_int_eq(tsgs__dataset_from_csr(n, d, ptr, col, val, y, &ds,
                                            NULL),
                     TSGS_OK);
    return ds;
}

/* path's bytes equal to those of another saved model. */
static void same_file(const char *a, const char *b)
{
    size_t na = 0, nb = 0;
    char *ta = test_read_file(a, &na), *tb = test_read_file(b, &nb);
    ck_assert(ta && tb);
    ck_assert_uint_eq(na, nb);
    ck_assert_int_eq(memcmp(ta, tb, na), 0);
    free(ta);
    free(tb);
}

/* A stop asked while step k is under way, on sparse rows with a wide one:
 * the step is abandoned and the model is, to the bit, the one a stop at
 * the end of step k - 1 gives (that run's steps never polled inside:
 * steps_unpolled). Cases: the unlabeled loss with centred weights on one
 * thread, its feature rows made by the kernel (the column cache too small
 * for the wide row); the quantile balance on two threads with 10,000
 * unlabeled rows, step k beginning a pass (its new order undone: the
 * final balance samples it); the column cache holding every column (its
 * new directions, 50 ms a block, polled) and the rows' feature cache; the
 * checking rule (DSG, reusing old blocks from step 3, its candidates'
 * features polled); step 1 cut: no block, t = 0; and a pass long enough
 * for the rows of step k + 1 to be taken ahead in step k. The cut run writes
 * a checkpoint at the step it ends at (its pass as step k - 1 left it,
 * the rows taken ahead for step k given back): resumed, the run ends with
 * the model file of the run never stopped. */
START_TEST(step_cut_midway_is_abandoned)
{
    static const struct {
        int solver, balance, threads;
        double cache_mb;
        size_t nu, bu;
        long k, budget;
    } cases[] = {
        {TSGS_SOLVER_TSG, TSGS__BALANCE_CENTRED, 1, 1, 300, 256, 3, 0},
        {TSGS_SOLVER_TSG, TSGS__BALANCE_HOLD, 2, 1, 10000, 4096, 3, 0},
        {TSGS_SOLVER_TSG, TSGS__BALANCE_CENTRED, 2, 64, 300, 256, 4, 0},
        {TSGS_SOLVER_DSG, -1, 2, 1, 0, 256, 4, 16},
        {TSGS_SOLVER_TSG, TSGS__BALANCE_CENTRED, 2, 1, 300, 256, 1, 0},
        {TSGS_SOLVER_TSG, TSGS__BALANCE_CENTRED, 2, 1, 10000, 256, 4, 0},
    };
    const int c = _i;
    const size_t d = 150000, wide = 120000, nl = 40;
    tsgs_dataset *ds = rows_with_a_wide_one(nl, cases[c].nu, d, wide);
    tsgs_params p = tsgs_params_default();
    p.solver = cases[c].solver;
    if (cases[c].budget) {
        p.reuse = TSGS_REUSE_CHECK;
        p.max_features = cases[c].budget;
    }
    p.balance = cases[c].balance;
    p.threads = cases[c].threads;
    p.cache_mb = cases[c].cache_mb;
    p.batch_unlabeled = (int)cases[c].bu;
    p.iterations = 7;
    p.sigma = 0.5;
    p.c = 10.0 * (double)(nl + 1); /* the solvers' unit: C x n_l */
    p.warm_start = 0;
    p.scale = TSGS_SCALE_NONE;
    p.seed = 5;
    const long k = cases[c].k;
    tsgs__train_opts cut = {.scale_floor = 1e-150, .labeled_cache = -1};
    tsgs__train_opts end = cut;
    end.steps_unpolled = 1;
    char dir[256], pa[300], pb[300], pc[300];
    test_make_dir(dir, sizeof dir, "step");
    snprintf(pc, sizeof pc, "%s/cut.ckpt", dir);
    const tsgs_checkpoint write = {pc, 0.0, 0, NULL};
    cut.ckpt_write = &write;
    step_stop ss;
    tsgs_train_hooks h;
    memset(&h, 0, sizeof h);
    h.should_stop = stop_in_step;
    h.progress = on_step;
    h.progress_every = 1;
    h.user = &ss;
    /* asked once step k has begun */
    atomic_init(&ss.reported, 0);
    ss.from = k;
    tsgs_model *a = NULL, *b = NULL;
    int stopped = 0;
    tsgs_error err;
    ck_assert_msg(tsgs__train_ex(ds, &p, &h, &cut, &a, &stopped, &err) ==
                      TSGS_OK,
                  "%s", err.message);
    ck_assert_int_eq(stopped, 1);
    ck_assert_int_eq(atomic_load(&ss.reported), k - 1); /* the last report */
    const long blocks = cases[c].budget
                            ? (k - 1 < cases[c].budget / 8 ? k - 1
                                                           : cases[c].budget /
                                                                 8)
                            : k - 1;
    ck_assert_int_eq(a->nblocks, blocks);
    snprintf(pa, sizeof pa, "%s/cut.model", dir);
    snprintf(pb, sizeof pb, "%s/end.model", dir);
    ck_assert_int_eq(tsgs_model_save(a, pa, NULL), TSGS_OK);
    if (k > 1) {
        /* the same stop at the end of step k - 1 */
        atomic_init(&ss.reported, 0);
        ss.from = k - 1;
        ck_assert_msg(tsgs__train_ex(ds, &p, &h, &end, &b, &stopped, &err) ==
                          TSGS_OK,
                      "%s", err.message);
        ck_assert_int_eq(stopped, 1);
        ck_assert_int_eq(atomic_load(&ss.reported), k - 1);
        ck_assert_int_eq(b->nblocks, a->nblocks);
        ck_assert(a->bias == b->bias && a->scale == b->scale);
        const size_t dirs = (size_t)tsgs__model_dirs(a);
        ck_assert_int_eq(memcmp(a->ac, b->ac, sizeof(double) * dirs), 0);
        if (a->as)
            ck_assert_int_eq(memcmp(a->as, b->as, sizeof(double) * dirs), 0);
        ck_assert_int_eq(tsgs_model_save(b, pb, NULL), TSGS_OK);
        same_file(pa, pb);
        tsgs_model_free(b);
    } else {
        /* cut in its first step: a model of no features, which loads */
        ck_assert_int_eq(tsgs_model_feature_count(a), 0);
        ck_assert_int_eq(tsgs_model_load(pa, &b, NULL), TSGS_OK);
        tsgs_model_free(b);
    }
    tsgs_model_free(a);
    /* the never-stopped run, and the cut run resumed from its checkpoint */
    tsgs__train_opts all = {.scale_floor = 1e-150, .labeled_cache = -1};
    ck_assert_int_eq(tsgs__train_ex(ds, &p, NULL, &all, &a, NULL, NULL),
                     TSGS_OK);
    ck_assert_int_eq(tsgs_model_save(a, pa, NULL), TSGS_OK);
    tsgs_model_free(a);
    tsgs__ckpt *ck = NULL;
    ck_assert_int_eq(tsgs__ckpt_read(pc, &ck, NULL), TSGS_OK);
    all.resume = ck;
    ck_assert_int_eq(tsgs__train_ex(ds, &p, NULL, &all, &b, NULL, NULL),
                     TSGS_OK);
    tsgs__ckpt_free(ck);
    ck_assert_int_eq(tsgs_model_save(b, pb, NULL), TSGS_OK);
    tsgs_model_free(b);
    same_file(pa, pb);
    test_remove_dir(dir);
    tsgs_dataset_free(ds);
}
END_TEST

Suite *stop_suite(void)
{
    Suite *s = suite_create("stop");
    TCase *tc = tcase_create("stop");
    tcase_add_test(tc, none_is_never_due);
    tcase_add_test(tc, polls_rate_limited_answer_kept);
    tcase_add_test(tc, one_thread_in_the_hook);
    tcase_add_test(tc, scaler_fit_stops);
    tcase_add_test(tc, feature_rows_stop);
    tcase_add_test(tc, fits_stop);
    tcase_add_test(tc, grid_returns_its_centre);
    tcase_add_test(tc, sparse_call_stops_inside_a_row);
    tcase_add_test(tc, sparse_polled_sort_same_features);
    suite_add_tcase(s, tc);
    tc = tcase_create("steps");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, step_cut_midway_is_abandoned, 0, 6);
    suite_add_tcase(s, tc);
    tc = tcase_create("read");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, read_stops, 0, 4);
    tcase_add_test(tc, read_stopped_before_it_starts);
    suite_add_tcase(s, tc);
    return s;
}
