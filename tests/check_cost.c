/* The labeled rows' cost (cost.c): C per labeled row (LIBSVM's) is the
 * solvers' C x n_l, whichever way it is given, and the model records it
 * per row. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "internal.h"

static const tsgs_solver SOLVERS[] = {TSGS_SOLVER_SAFE, TSGS_SOLVER_DSG,
                                      TSGS_SOLVER_TSG, TSGS_SOLVER_BS3VM};
#define NSOLVERS (sizeof SOLVERS / sizeof SOLVERS[0])

/* Quick settings of a solver with C and sigma given (no grid). */
static tsgs_params quick(tsgs_solver solver)
{
    tsgs_params p = tsgs_params_default();
    p.solver = solver;
    p.sigma = 0.5;
    p.c = 1.0;
    p.threads = 1;
    p.bind = TSGS_BIND_NONE;
    p.seed = 3;
    if (solver == TSGS_SOLVER_BS3VM) {
        p.iterations = 3000;
        p.budget_unlabeled = 50;
    } else if (solver != TSGS_SOLVER_SAFE) {
        p.iterations = 400;
        p.max_features = 128;
    }
    return p;
}

static tsgs_model *train(const tsgs_dataset *ds, const tsgs_params *p)
{
    tsgs_model *m = NULL;
    tsgs_error err;
    ck_assert_msg(tsgs_train(ds, p, NULL, &m, NULL, &err) == TSGS_OK, "%s",
                  err.message);
    return m;
}

/* The scores of every row (n x score columns). */
static double *scores(const tsgs_model *m, const tsgs_dataset *ds)
{
    const size_t n = tsgs_dataset_rows(ds), k = tsgs_model_score_columns(m);
    double *s = malloc(sizeof(double) * n * k);
    ck_assert_int_eq(tsgs_predict_scores(m, ds, 1, s, NULL), TSGS_OK);
    return s;
}

/* Whether two models give the same scores to the last bit. */
static int same_scores(const tsgs_model *a, const tsgs_model *b,
                       const tsgs_dataset *ds)
{
    const size_t n = tsgs_dataset_rows(ds), k = tsgs_model_score_columns(a);
    double *sa = scores(a, ds), *sb = scores(b, ds);
    int same = k == tsgs_model_score_columns(b) &&
               memcmp(sa, sb, sizeof(double) * n * k) == 0;
    free(sa);
    free(sb);
    return same;
}

/* C per row on n_l labeled rows and c-total = C x n_l are one model, bit
 * for bit, with every solver; the model records the per-row C. */
START_TEST(per_row_c_is_c_total_over_the_labeled_rows)
{
    tsgs_dataset *ds = fixture_blobs(300, 3, 2.0, 0.5, 40, 20, 8, NULL);
    for (size_t s = 0; s < NSOLVERS; s++) {
        tsgs_params p = quick(SOLVERS[s]), q = p;
        p.c = 2.5;
        q.c = 0.0;
        q.c_total = 2.5 * 40;
        tsgs_model *a = train(ds, &p), *b = train(ds, &q);
        ck_assert_msg(same_scores(a, b, ds), "solver %d", (int)SOLVERS[s]);
        ck_assert_double_eq(tsgs_model_params(a)->c, 2.5);
        ck_assert_double_eq(tsgs_model_params(b)->c, 2.5);
        ck_assert_double_eq(tsgs_model_params(a)->c_total, 0.0);
        ck_assert_double_eq(tsgs_model_params(b)->c_total, 0.0);
        tsgs_model_free(a);
        tsgs_model_free(b);
    }
    tsgs_dataset_free(ds);
}
END_TEST

/* LIBSVM's C: every labeled row twice with C is the rows once with 2C
 * (the same hinge terms), not with C: the exact SVM of the safe solver
 * (C and sigma given, no unlabeled rows) agrees with the first. */
START_TEST(c_is_per_row_as_libsvm)
{
    tsgs_dataset *once = fixture_blobs(200, 2, 1.0, 0.5, 200, 100, 5, NULL);
    size_t rows[400];
    for (size_t i = 0; i < 400; i++)
        rows[i] = i % 200;
    tsgs_dataset *twice = NULL;
    ck_assert_int_eq(tsgs_dataset_select(once, rows, 400, &twice, NULL),
                     TSGS_OK);
    tsgs_params p = quick(TSGS_SOLVER_SAFE);
    p.c = 0.5;
    tsgs_model *m_twice = train(twice, &p);
    p.c = 1.0;
    tsgs_model *m_double_c = train(once, &p);
    p.c = 0.5;
    tsgs_model *m_same_c = train(once, &p);
    double *a = scores(m_twice, once), *b = scores(m_double_c, once),
           *c = scores(m_same_c, once);
    double near = 0.0, far = 0.0;
    for (size_t i = 0; i < 200; i++) {
        near = fmax(near, fabs(a[i] - b[i]));
        far = fmax(far, fabs(a[i] - c[i]));
    }
    ck_assert_msg(near < 0.02 && far > 5 * near,
                  "twice at C vs once at 2C: %g; vs once at C: %g", near,
                  far);
    free(a);
    free(b);
    free(c);
    tsgs_model_free(m_twice);
    tsgs_model_free(m_double_c);
    tsgs_model_free(m_same_c);
    tsgs_dataset_free(once);
    tsgs_dataset_free(twice);
}
END_TEST

/* C chosen by the CV (the default) is recorded per row: the grid's C
 * values are powers of 2. */
START_TEST(chosen_c_is_recorded_per_row)
{
    tsgs_dataset *ds = fixture_blobs(300, 3, 2.0, 0.5, 40, 20, 8, NULL);
    tsgs_params p = tsgs_params_default();
    p.threads = 1;
    tsgs_model *m = train(ds, &p);
    const double c = tsgs_model_params(m)->c;
    ck_assert_double_gt(c, 0.0);
    ck_assert_double_eq_tol(log2(c), round(log2(c)), 1e-12);
    char want[64];
    snprintf(want, sizeof want, "C %.4g (per row)", c);
    ck_assert_msg(strstr(tsgs_model_note(m), want), "%s: %s", want,
                  tsgs_model_note(m));
    tsgs_model_free(m);
    tsgs_dataset_free(ds);
}
END_TEST

START_TEST(both_units_refused)
{
    tsgs_dataset *ds = fixture_blobs(60, 2, 2.0, 0.5, 20, 10, 8, NULL);
    tsgs_params p = quick(TSGS_SOLVER_SAFE);
    p.c_total = 30;
    tsgs_model *m = NULL;
    tsgs_error err;
    ck_assert_int_eq(tsgs_train(ds, &p, NULL, &m, NULL, &err),
                     TSGS_ERR_PARAM);
    ck_assert_ptr_null(m);
    ck_assert_ptr_nonnull(strstr(err.message, "c-total"));
    ck_assert_int_eq(tsgs_train(NULL, &p, NULL, &m, NULL, &err),
                     TSGS_ERR_PARAM);
    tsgs_dataset_free(ds);
}
END_TEST

Suite *cost_suite(void)
{
    Suite *s = suite_create("cost");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, per_row_c_is_c_total_over_the_labeled_rows);
    tcase_add_test(tc, c_is_per_row_as_libsvm);
    tcase_add_test(tc, chosen_c_is_recorded_per_row);
    tcase_add_test(tc, both_units_refused);
    suite_add_tcase(s, tc);
    return s;
}
