/* The labeled rows' cost (cost.c): C per labeled row (LIBSVM's) is the
 * solvers' C x n_l, whichever way it is given; class weights (svm-train's
 * -wi) move every solver's predictions toward the weighted class, weights
 * of 1 change no bit, and the model records them. */
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

/* How many rows of ds m predicts as `label`. */
static size_t predicted_as(const tsgs_model *m, const tsgs_dataset *ds,
                           double label)
{
    const size_t n = tsgs_dataset_rows(ds), k = tsgs_model_score_columns(m);
    double *s = scores(m, ds);
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += tsgs_model_label_of(m, s + i * k) == label;
    free(s);
    return count;
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

/* Row weights: none when no labeled row's class weight differs from 1;
 * else each labeled row its class's, unlabeled rows 1. */
START_TEST(row_weights)
{
    tsgs_dataset *ds = fixture_blobs(50, 2, 2.0, 0.5, 20, 10, 8, NULL);
    tsgs_params p = tsgs_params_default();
    double *w = (double *)1;
    ck_assert_int_eq(tsgs__cost_row_weights(ds, &p, &w, NULL), TSGS_OK);
    ck_assert_ptr_null(w);
    tsgs_params_set_class_weight(&p, 1, 1, NULL);
    tsgs_params_set_class_weight(&p, 7, 4, NULL); /* no such class */
    ck_assert_int_eq(tsgs__cost_row_weights(ds, &p, &w, NULL), TSGS_OK);
    ck_assert_ptr_null(w);
    tsgs_params_set_class_weight(&p, -1, 3, NULL);
    ck_assert_int_eq(tsgs__cost_row_weights(ds, &p, &w, NULL), TSGS_OK);
    ck_assert_ptr_nonnull(w);
    for (size_t i = 0; i < 50; i++) {
        const double y = tsgs_dataset_label(ds, i);
        ck_assert_double_eq(w[i], isnan(y) ? 1.0 : y < 0 ? 3.0 : 1.0);
    }
    free(w);
    tsgs_dataset_free(ds);
}
END_TEST

/* Weights of 1 (and a weight for a class the data lacks) are no
 * weights: the same model bits, binary and one-vs-rest, every solver;
 * the model records the list. */
START_TEST(weights_of_one_change_nothing)
{
    tsgs_dataset *ds = fixture_blobs(300, 3, 1.5, 0.4, 40, 16, 9, NULL);
    for (size_t s = 0; s < NSOLVERS + 1; s++) {
        /* the last: the default settings, C and sigma chosen by CV */
        tsgs_params p = s < NSOLVERS ? quick(SOLVERS[s])
                                     : tsgs_params_default();
        p.threads = 1;
        tsgs_params q = p;
        tsgs_params_set_class_weight(&q, 1, 1, NULL);
        tsgs_params_set_class_weight(&q, -1, 1, NULL);
        tsgs_params_set_class_weight(&q, 7, 9, NULL);
        tsgs_model *a = train(ds, &p), *b = train(ds, &q);
        ck_assert_msg(same_scores(a, b, ds), "solver %zu", s);
        ck_assert_int_eq(tsgs_model_params(b)->n_class_weights, 3);
        ck_assert_int_eq(tsgs_model_params(a)->n_class_weights, 0);
        tsgs_model_free(a);
        tsgs_model_free(b);
    }
    tsgs_dataset_free(ds);
}
END_TEST

/* Three overlapping classes -1, 1, 2 in the plane, every row labeled;
 * class 2 the smallest. */
static tsgs_dataset *three_classes(size_t n)
{
    float *x = malloc(sizeof(float) * n * 2);
    double *y = malloc(sizeof(double) * n);
    static const double cx[] = {-1.0, 1.0, 0.0}, cy[] = {0.0, 0.0, 1.2};
    static const double label[] = {-1, 1, 2};
    for (size_t i = 0; i < n; i++) {
        const int c = i % 5 < 2 ? 0 : i % 5 < 4 ? 1 : 2;
        double z0, z1;
        tsgs__normal_pair(tsgs__philox(5, (uint32_t)i, 0, 0, 9), &z0, &z1);
        x[2 * i] = (float)(cx[c] + z0);
        x[2 * i + 1] = (float)(cy[c] + z1);
        y[i] = label[c];
    }
    tsgs_dataset *ds = NULL;
    ck_assert_int_eq(tsgs_dataset_from_dense(n, 2, x, y, &ds, NULL), TSGS_OK);
    free(x);
    free(y);
    return ds;
}

START_TEST(weights_of_one_change_nothing_one_vs_rest)
{
    tsgs_dataset *ds = three_classes(150);
    tsgs_params p = tsgs_params_default(), q;
    p.threads = 1;
    q = p;
    tsgs_params_set_class_weight(&q, 2, 1, NULL);
    tsgs_model *a = train(ds, &p), *b = train(ds, &q);
    ck_assert(same_scores(a, b, ds));
    ck_assert_int_eq(b->ovr[2]->params.n_class_weights, 1);
    tsgs_model_free(a);
    tsgs_model_free(b);
    tsgs_dataset_free(ds);
}
END_TEST

/* On overlapping classes, a weight on a class predicts more rows as that
 * class, and a weight on the other fewer: every solver. */
START_TEST(weight_moves_predictions_to_the_class)
{
    tsgs_dataset *ds = fixture_blobs(600, 2, 1.0, 0.3, 100, 30, 4, NULL);
    for (size_t s = 0; s < NSOLVERS; s++) {
        tsgs_params p = quick(SOLVERS[s]), up = p, down = p;
        tsgs_params_set_class_weight(&up, 1, 10, NULL);
        tsgs_params_set_class_weight(&down, -1, 10, NULL);
        tsgs_model *m = train(ds, &p), *mu = train(ds, &up),
                   *md = train(ds, &down);
        const size_t base = predicted_as(m, ds, 1),
                     more = predicted_as(mu, ds, 1),
                     fewer = predicted_as(md, ds, 1);
        fprintf(stderr, "cost: solver %d: +1 predicted %zu, weight +1:10 "
                        "%zu, weight -1:10 %zu\n",
                (int)SOLVERS[s], base, more, fewer);
        ck_assert_msg(more > base + 10 && fewer + 10 < base,
                      "solver %d: %zu, %zu, %zu", (int)SOLVERS[s], base,
                      more, fewer);
        tsgs_model_free(m);
        tsgs_model_free(mu);
        tsgs_model_free(md);
    }
    tsgs_dataset_free(ds);
}
END_TEST

/* One-vs-rest: a weight on class 2 predicts more rows as 2 (each
 * class's problem weighs every row by its own class). */
START_TEST(weight_moves_one_vs_rest_predictions)
{
    tsgs_dataset *ds = three_classes(300);
    const tsgs_solver solvers[] = {TSGS_SOLVER_SAFE, TSGS_SOLVER_TSG};
    for (size_t s = 0; s < 2; s++) {
        tsgs_params p = quick(solvers[s]), up = p;
        tsgs_params_set_class_weight(&up, 2, 8, NULL);
        tsgs_model *m = train(ds, &p), *mu = train(ds, &up);
        const size_t base = predicted_as(m, ds, 2),
                     more = predicted_as(mu, ds, 2);
        ck_assert_msg(more > base + 20, "solver %d: %zu, %zu",
                      (int)solvers[s], base, more);
        tsgs_model_free(m);
        tsgs_model_free(mu);
    }
    tsgs_dataset_free(ds);
}
END_TEST

/* The model records the weights, and a saved model reads them back. */
START_TEST(model_file_round_trips_the_weights)
{
    tsgs_dataset *ds = three_classes(150);
    tsgs_params p = quick(TSGS_SOLVER_SAFE);
    tsgs_params_set_class_weight(&p, 2, 4, NULL);
    tsgs_params_set_class_weight(&p, -1, 0.25, NULL);
    tsgs_model *m = train(ds, &p), *back = NULL;
    tsgs_error err;
    ck_assert_int_eq(tsgs_model_save(m, "tmp_cost.model", &err), TSGS_OK);
    char *text = test_read_file("tmp_cost.model", NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert_ptr_nonnull(strstr(text, "\nclass-weight 2:4,-1:0.25\n"));
    ck_assert_ptr_nonnull(strstr(text, "\ncost 1\nc-total 0\n"));
    ck_assert_msg(tsgs_model_load("tmp_cost.model", &back, &err) == TSGS_OK,
                  "%s", err.message);
    for (int k = 0; k < 3; k++) {
        const tsgs_params *q = &back->ovr[k]->params;
        ck_assert_int_eq(q->n_class_weights, 2);
        ck_assert_double_eq(q->class_weights[0].label, 2);
        ck_assert_double_eq(q->class_weights[0].weight, 4);
        ck_assert_double_eq(q->class_weights[1].weight, 0.25);
    }
    ck_assert(same_scores(m, back, ds));
    free(text);
    tsgs_model_free(m);
    tsgs_model_free(back);
    tsgs_dataset_free(ds);
    remove("tmp_cost.model");
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
    tcase_add_test(tc, row_weights);
    tcase_add_test(tc, weights_of_one_change_nothing);
    tcase_add_test(tc, weights_of_one_change_nothing_one_vs_rest);
    tcase_add_test(tc, weight_moves_predictions_to_the_class);
    tcase_add_test(tc, weight_moves_one_vs_rest_predictions);
    tcase_add_test(tc, model_file_round_trips_the_weights);
    suite_add_tcase(s, tc);
    return s;
}
