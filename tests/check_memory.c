/* tsgs_train_memory: the estimate grows with the input dimension as the
 * direction panels do, covers the panel the grid allocates, follows the
 * solver's settings, and refuses NULL arguments; tsgs_train_seconds, the
 * time its directions take, likewise. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "internal.h"

/* n rows of d features (all zero but one per row), the first nl labeled
 * +1 / -1 alternately. */
static tsgs_dataset *rows_of(size_t n, size_t d, size_t nl)
{
    float *x = calloc(n * d, sizeof(float));
    double *y = malloc(sizeof(double) * n);
    ck_assert(x && y);
    for (size_t i = 0; i < n; i++) {
        x[i * d + i % d] = 1.0f;
        y[i] = i < nl ? (i % 2 ? 1.0 : -1.0) : TSGS_UNLABELED;
    }
    tsgs_dataset *ds = NULL;
    tsgs_error err;
    ck_assert_int_eq(tsgs_dataset_from_dense(n, d, x, y, &ds, &err), TSGS_OK);
    free(x);
    free(y);
    return ds;
}

/* n CSR rows of dimension d, k non-zeros each (columns spread over the
 * first n * k, values 1), the first nl labeled +1 / -1 alternately. */
static tsgs_dataset *csr_rows(size_t n, size_t d, size_t k, size_t nl)
{
    size_t *ptr = malloc(sizeof(size_t) * (n + 1));
    uint32_t *col = malloc(sizeof(uint32_t) * n * k);
    float *val = malloc(sizeof(float) * n * k);
    double *y = malloc(sizeof(double) * n);
    ck_assert(ptr && col && val && y);
    for (size_t i = 0; i < n; i++) {
        ptr[i] = i * k;
        for (size_t j = 0; j < k; j++) {
            col[i * k + j] = (uint32_t)((i * k + j) * (d / (n * k)));
            val[i * k + j] = 1.0f;
        }
        y[i] = i < nl ? (i % 2 ? 1.0 : -1.0) : TSGS_UNLABELED;
    }
    ptr[n] = n * k;
    tsgs_dataset *ds = NULL;
    ck_assert_int_eq(tsgs__dataset_from_csr(n, d, ptr, col, val, y, &ds,
                                            NULL),
                     TSGS_OK);
    return ds;
}

static double estimate(const tsgs_dataset *ds, const tsgs_params *p)
{
    double b = -1.0;
    tsgs_error err;
    ck_assert_int_eq(tsgs_train_memory(ds, p, &b, &err), TSGS_OK);
    ck_assert(b > 0.0);
    return b;
}

START_TEST(grows_with_the_dimension)
{
    tsgs_params p = tsgs_params_default();
    tsgs_dataset *narrow = rows_of(100, 2000, 20);
    tsgs_dataset *wide = rows_of(100, 4000, 20);
    double a = estimate(narrow, &p), b = estimate(wide, &p);
    /* every term is proportional to d */
    ck_assert_double_eq_tol(b / a, 2.0, 1e-9);
    /* the safe solver's panel alone: on rows this wide its 2048 features
     * are 1024 pair directions of d floats */
    ck_assert(a >= 1024.0 * 2000 * sizeof(float));
    tsgs_dataset_free(narrow);
    tsgs_dataset_free(wide);
}
END_TEST

START_TEST(follows_the_settings)
{
    tsgs_dataset *ds = rows_of(400, 1000, 40);
    tsgs_params p = tsgs_params_default();
    p.threads = 1; /* one grid panel at a time (see wide_rows_...) */
    double safe = estimate(ds, &p);
    tsgs_params q = p;
    tsgs_params_set(&q, "max-features", "4096", NULL);
    /* the panel and the cache grow from 1024 (2048 features on rows this
     * wide) to 2048 directions of d floats */
    ck_assert_double_eq_tol(estimate(ds, &q) - safe,
                            2.0 * (2048 - 1024) * 1000 * sizeof(float), 1e-3);
    q = p;
    tsgs_params_set(&q, "cache-mb", "0", NULL); /* no cache kept */
    tsgs_params_set(&q, "solver", "tsg", NULL);
    tsgs_params r = q;
    tsgs_params_set(&r, "cache-mb", "1024", NULL);
    ck_assert(estimate(ds, &r) > estimate(ds, &q));
    q = p;
    tsgs_params_set(&q, "directions", "iid", NULL); /* no group workspace */
    ck_assert(estimate(ds, &q) < safe);
    /* bs3vm keeps support vectors' rows, not directions: its labeled
     * budget (100) capped at the 40 labeled rows, and ceil(0.2 n_u) */
    q = p;
    tsgs_params_set(&q, "solver", "bs3vm", NULL);
    ck_assert_double_eq_tol(estimate(ds, &q),
                            (40.0 + ceil(0.2 * 360)) * 1000 * sizeof(float),
                            1e-6);
    tsgs_params_set(&q, "budget-unlabeled", "10", NULL);
    ck_assert_double_eq_tol(estimate(ds, &q), 50.0 * 1000 * sizeof(float),
                            1e-6);
    tsgs_dataset_free(ds);
}
END_TEST

/* Sparse rows: nothing is d-wide, so the estimate follows the non-zeros
 * (the same for d = 10^6 and 10^7, more with more non-zeros), far below
 * the dense estimate's 512 directions of d floats; the stochastic solver
 * counts its feature cache when it fits, and a fixed (C, sigma) drops the
 * grid's labeled-row cache. */
START_TEST(sparse_rows_follow_the_non_zeros)
{
    tsgs_params p = tsgs_params_default();
    tsgs_dataset *a = csr_rows(400, 1000000, 5, 40);
    tsgs_dataset *wide = csr_rows(400, 10000000, 5, 40);
    tsgs_dataset *denser = csr_rows(400, 1000000, 10, 40);
    ck_assert(tsgs_dataset_is_sparse(a) && tsgs_dataset_is_sparse(wide));
    const double ea = estimate(a, &p);
    ck_assert_double_eq_tol(estimate(wide, &p), ea, 1e-9 * ea);
    ck_assert(estimate(denser, &p) > ea);
    ck_assert(ea < 0.01 * 512.0 * 1e6 * sizeof(float));

    tsgs_params q = p;
    tsgs_params_set(&q, "solver", "tsg", NULL);
    const double tsg = estimate(a, &q);
    tsgs_params_set(&q, "cache-mb", "0", NULL); /* no room for the cache */
    ck_assert(estimate(a, &q) < tsg);
    q = p;
    tsgs_params_set(&q, "c", "1", NULL);
    tsgs_params_set(&q, "sigma", "0.5", NULL);
    ck_assert(estimate(a, &q) < ea);
    tsgs_dataset_free(a);
    tsgs_dataset_free(wide);
    tsgs_dataset_free(denser);
}
END_TEST

/* One-vs-rest with the safe solver: the classes after the first train
 * side by side, one a thread, when there are at least as many of them as
 * threads, and the estimate counts each; two classes, too few classes or
 * a stochastic solver: one at a time. */
START_TEST(classes_side_by_side_count_each)
{
    tsgs_dataset *ds = rows_of(600, 50, 60);
    tsgs_params p = tsgs_params_default();
    /* a grid sigma's panel: 1024 features, 512 pair directions of 50
     * floats, and its orthogonal group (50 x 50 doubles and a row) */
    const double panel = 512.0 * 50 * 4 + 50.0 * 50 * 8 + 50.0 * 4;
    p.threads = 1;
    const double binary = estimate(ds, &p);
    p.threads = 2; /* two classes: the grid's second sigma alone */
    ck_assert_double_eq(estimate(ds, &p), binary + panel);
    for (size_t i = 0; i < 60; i++) /* labels 1, 2, 3 */
        ds->y[i] = (double)(i % 3 + 1);
    p.threads = 1;
    const double one = estimate(ds, &p);
    p.threads = 2;
    ck_assert(estimate(ds, &p) == 2.0 * one);
    p.threads = 3; /* two classes after the first: one after another,
                      the first's grid three sigmas at a time */
    ck_assert_double_eq(estimate(ds, &p), one + 2.0 * panel);
    p.threads = 2;
    p.solver = TSGS_SOLVER_TSG; /* one class at a time; its grid on two */
    tsgs_params q = p;
    q.threads = 1;
    ck_assert_double_eq(estimate(ds, &p), estimate(ds, &q) + panel);
    tsgs_dataset_free(ds);
}
END_TEST

/* Wide dense rows (2 rows x 10^6 columns, a 4 MB CSV): the grid makes a
 * panel of 1024 directions of d floats and an orthogonal group of 128 x d
 * doubles on each thread, a sigma each, and the scaler's fit holds its
 * column sums; the estimate counts them all (before, one panel: a run it
 * passed needed twice that and failed), and less with a fixed sigma (one
 * grid column) or without scaling. */
START_TEST(wide_rows_count_every_thread_and_the_scaler)
{
    const size_t d = 1000000;
    tsgs_dataset *ds = rows_of(2, d, 2);
    tsgs_params p = tsgs_params_default();
    p.threads = 2;
    const double panel = 1024.0 * d * 4 + 128.0 * d * 8 + d * 4.0;
    const double two = estimate(ds, &p);
    ck_assert(two >= 2.0 * panel);
    p.threads = 1;
    ck_assert_double_eq_tol(two - estimate(ds, &p), panel, 1e-6 * panel);
    p.threads = 2;
    tsgs_params_set(&p, "sigma", "0.5", NULL); /* one sigma: one panel */
    ck_assert_double_eq_tol(two - estimate(ds, &p), panel, 1e-6 * panel);
    p = tsgs_params_default();
    p.threads = 2;
    tsgs_params_set(&p, "scale", "none", NULL);
    ck_assert_double_eq_tol(two - estimate(ds, &p),
                            tsgs__scaler_fit_bytes(2, d, 2), 1e-6 * two);
    /* the class stretch's sums (2 classes), 3 chunk sums, the results */
    ck_assert_double_eq(tsgs__scaler_fit_bytes(2, d, 2), 8.0 * d * 12);
    ck_assert_double_eq(tsgs__scaler_fit_bytes(40000, d, 2), 8.0 * d * 18);
    tsgs_dataset_free(ds);
}
END_TEST

START_TEST(null_arguments)
{
    tsgs_params p = tsgs_params_default();
    tsgs_dataset *ds = rows_of(10, 3, 4);
    double b;
    tsgs_error err;
    ck_assert_int_eq(tsgs_train_memory(NULL, &p, &b, &err), TSGS_ERR_PARAM);
    ck_assert_int_eq(tsgs_train_memory(ds, NULL, &b, &err), TSGS_ERR_PARAM);
    ck_assert_int_eq(tsgs_train_memory(ds, &p, NULL, &err), TSGS_ERR_PARAM);
    tsgs_dataset_free(ds);
}
END_TEST

static double seconds(const tsgs_dataset *ds, const tsgs_params *p)
{
    double t = -1.0;
    tsgs_error err;
    ck_assert_int_eq(tsgs_train_seconds(ds, p, &t, &err), TSGS_OK);
    ck_assert(t >= 0.0);
    return t;
}

#define ck_assert_ratio(a, b, r) \
    ck_assert_double_eq_tol((a) / (b), (r), 1e-12)

/* tsgs_train_seconds: the directions' time doubles with the width (a
 * group of 128 at both), halves with twice the threads, follows the
 * stages the settings run (in sets of the first features' directions:
 * the grid 7, the feature rows and refit 3, the cluster arm 8 under 100
 * labels; tsg's grid 7 and its steps' blocks twice), is 0 for bs3vm,
 * and on sparse rows grows with the columns of the rows it featurises
 * (their non-zeros), not the dimension. */
START_TEST(seconds_follow_width_threads_and_stages)
{
    tsgs_params p = tsgs_params_default();
    p.threads = 1;
    p.sigma = 0.0;
    p.c = 0.0;
    tsgs_dataset *a = rows_of(60, 2000, 20), *b = rows_of(60, 4000, 20);
    const double chosen = seconds(a, &p);
    ck_assert(chosen > 0.0);
    ck_assert_ratio(seconds(b, &p), chosen, 2.0);
    p.threads = 2;
    ck_assert_ratio(seconds(a, &p), chosen, 0.5);
    p.threads = 1;
    p.sigma = 0.1;
    const double sigma_given = seconds(a, &p);
    p.c = 1.0;
    const double both_given = seconds(a, &p);
    ck_assert_ratio(chosen, both_given, 18.0 / 3.0);
    ck_assert_ratio(sigma_given, both_given, 4.0 / 3.0);
    tsgs_params q = p;
    q.solver = TSGS_SOLVER_TSG;
    const double tsg_given = seconds(a, &q);
    q.sigma = 0.0;
    q.c = 0.0;
    ck_assert_ratio(seconds(a, &q), tsg_given, 9.0 / 2.0);
    q.solver = TSGS_SOLVER_BS3VM;
    ck_assert_double_eq(seconds(a, &q), 0.0);
    /* 200 labels: no cluster arm */
    tsgs_dataset *many = rows_of(400, 2000, 200);
    p.sigma = 0.0;
    p.c = 0.0;
    const double many_chosen = seconds(many, &p);
    p.sigma = 0.1;
    p.c = 1.0;
    ck_assert_ratio(many_chosen, seconds(many, &p), 10.0 / 3.0);
    tsgs_dataset *s1 = csr_rows(60, 1000000, 5, 20),
                 *s2 = csr_rows(60, 2000000, 5, 20),
                 *s3 = csr_rows(60, 1000000, 10, 20);
    p.sigma = 0.0;
    p.c = 0.0;
    ck_assert_ratio(seconds(s2, &p), seconds(s1, &p), 1.0);
    ck_assert_ratio(seconds(s3, &p), seconds(s1, &p), 2.0);
    ck_assert(seconds(s1, &p) < 1.0); /* 300 columns: 0.14 s */
    /* the safe solver featurises the labeled rows and a sample of the
     * others: 20 + 10 rows of 5 non-zeros, half the columns of 60 */
    const double all_rows = seconds(s1, &p);
    p.unlabeled_sample = 10;
    ck_assert_ratio(seconds(s1, &p), all_rows, 0.5);
    p.unlabeled_sample = 2000;
    double t;
    tsgs_error err;
    ck_assert_int_eq(tsgs_train_seconds(NULL, &p, &t, &err), TSGS_ERR_PARAM);
    ck_assert_int_eq(tsgs_train_seconds(a, NULL, &t, &err), TSGS_ERR_PARAM);
    ck_assert_int_eq(tsgs_train_seconds(a, &p, NULL, &err), TSGS_ERR_PARAM);
    tsgs_dataset_free(a);
    tsgs_dataset_free(b);
    tsgs_dataset_free(many);
    tsgs_dataset_free(s1);
    tsgs_dataset_free(s2);
    tsgs_dataset_free(s3);
}
END_TEST

Suite *memory_suite(void)
{
    Suite *s = suite_create("memory");
    TCase *tc = tcase_create("estimate");
    tcase_add_test(tc, grows_with_the_dimension);
    tcase_add_test(tc, follows_the_settings);
    tcase_add_test(tc, sparse_rows_follow_the_non_zeros);
    tcase_add_test(tc, null_arguments);
    tcase_add_test(tc, classes_side_by_side_count_each);
    tcase_add_test(tc, wide_rows_count_every_thread_and_the_scaler);
    suite_add_tcase(s, tc);
    TCase *tt = tcase_create("seconds");
    tcase_add_test(tt, seconds_follow_width_threads_and_stages);
    suite_add_tcase(s, tt);
    return s;
}
