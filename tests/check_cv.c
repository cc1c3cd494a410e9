/* Cross-validation: the same scores whichever way it runs in parallel,
 * scores that rank an obviously bad setting below a good one, and errors
 * for impossible fold counts. */
#include <check.h>
#include <string.h>

#include "fixtures.h"
#include "internal.h"

START_TEST(grid_and_fit_parallel_agree)
{
    tsgs_dataset *ds = fixture_blobs(1500, 4, 2.0, 0.4, 100, 40, 21, NULL);
    tsgs_params pts[3];
    for (int i = 0; i < 3; i++) {
        pts[i] = tsgs_params_default();
        pts[i].max_features = 64;
    }
    pts[0].sigma = 0.05;
    pts[1].sigma = 0.5;
    pts[2].sigma = 1e3; /* so narrow a kernel that it cannot generalise */
    double m1[3], s1[3], m2[3], s2[3];
    ck_assert_int_eq(tsgs_cv(ds, pts, 3, 4, 7, 2, TSGS_CV_PARALLEL_GRID, m1,
                             s1, NULL, NULL, NULL), TSGS_OK);
    ck_assert_int_eq(tsgs_cv(ds, pts, 3, 4, 7, 2, TSGS_CV_PARALLEL_FIT, m2, s2,
                             NULL, NULL, NULL), TSGS_OK);
    ck_assert_int_eq(memcmp(m1, m2, sizeof m1), 0);
    ck_assert_int_eq(memcmp(s1, s2, sizeof s1), 0);
    ck_assert_double_gt(m1[0], 0.85);
    ck_assert_double_lt(m1[2], m1[0]);
    for (int i = 0; i < 3; i++)
        ck_assert(m1[i] >= 0.0 && m1[i] <= 1.0 && s1[i] >= 0.0);
    tsgs_dataset_free(ds);
}
END_TEST

static int calls;
static void count_done(size_t point, double mean, double sd, void *user)
{
    (void)point;
    (void)mean;
    (void)sd;
    (void)user;
    calls++;
}

START_TEST(bad_folds_and_callbacks)
{
    tsgs_dataset *ds = fixture_blobs(300, 2, 2.0, 0.5, 10, 5, 3, NULL);
    tsgs_params p = tsgs_params_default();
    double m, s;
    tsgs_error err;
    ck_assert_int_eq(tsgs_cv(ds, &p, 1, 11, 1, 1, TSGS_CV_PARALLEL_FIT, &m, &s,
                             NULL, NULL, &err), TSGS_ERR_PARAM);
    ck_assert_ptr_nonnull(strstr(err.message, "folds"));
    ck_assert_int_eq(tsgs_cv(ds, &p, 1, 1, 1, 1, TSGS_CV_PARALLEL_FIT, &m, &s,
                             NULL, NULL, &err), TSGS_ERR_PARAM);
    p.block_size = 3; /* odd with pair features: refused before any fit */
    ck_assert_int_eq(tsgs_cv(ds, &p, 1, 2, 1, 1, TSGS_CV_PARALLEL_FIT, &m, &s,
                             NULL, NULL, &err), TSGS_ERR_PARAM);
    p = tsgs_params_default();
    calls = 0;
    ck_assert_int_eq(tsgs_cv(ds, &p, 1, 2, 1, 1, TSGS_CV_PARALLEL_FIT, &m, &s,
                             count_done, NULL, &err), TSGS_OK);
    ck_assert_int_eq(calls, 1);
    tsgs_dataset_free(ds);
}
END_TEST

/* Leave-one-out (folds = labeled rows) on labeled rows only, with the
 * stochastic solver and its balance: the held-out row is left out of the
 * fit, not made its only unlabeled row, so it cannot set the balance bias
 * (which put it on the boundary: 50% on separable blobs). */
START_TEST(leave_one_out_on_separable_blobs)
{
    tsgs_dataset *ds = fixture_blobs(30, 2, 4.0, 0.5, 30, 15, 12, NULL);
    tsgs_params p = tsgs_params_default();
    p.solver = TSGS_SOLVER_TSG;
    p.max_features = 64;
    double m, s;
    ck_assert_int_eq(tsgs_cv(ds, &p, 1, 30, 3, 2, TSGS_CV_PARALLEL_GRID, &m,
                             &s, NULL, NULL, NULL), TSGS_OK);
    ck_assert_double_gt(m, 0.9);
    p.solver = TSGS_SOLVER_SAFE;
    ck_assert_int_eq(tsgs_cv(ds, &p, 1, 30, 3, 2, TSGS_CV_PARALLEL_GRID, &m,
                             &s, NULL, NULL, NULL), TSGS_OK);
    ck_assert_double_gt(m, 0.9);
    tsgs_dataset_free(ds);
}
END_TEST

/* A class with one labeled row: the folds without it train on one class
 * and predict it, instead of aborting the whole run. */
START_TEST(one_row_class_does_not_abort)
{
    tsgs_dataset *ds = fixture_blobs(300, 2, 4.0, 0.5, 10, 1, 4, NULL);
    tsgs_params p = tsgs_params_default();
    double m, s;
    ck_assert_int_eq(tsgs_cv(ds, &p, 1, 5, 1, 1, TSGS_CV_PARALLEL_FIT, &m, &s,
                             NULL, NULL, NULL), TSGS_OK);
    /* 9 of the 10 held-out rows are negatives predicted right at least by
     * the one-class folds */
    ck_assert_double_ge(m, 0.8);
    tsgs_dataset_free(ds);
}
END_TEST

Suite *cv_suite(void)
{
    Suite *s = suite_create("cv");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, grid_and_fit_parallel_agree);
    tcase_add_test(tc, bad_folds_and_callbacks);
    tcase_add_test(tc, leave_one_out_on_separable_blobs);
    tcase_add_test(tc, one_row_class_does_not_abort);
    suite_add_tcase(s, tc);
    return s;
}
