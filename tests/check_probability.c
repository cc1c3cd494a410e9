/* Probability outputs: Platt's fit recovers a known sigmoid; trained with
 * probability = 1 a model's probabilities sum to one and are calibrated
 * on held-out rows of an overlapping synthetic set; they survive the model
 * file, and a file that claims them without the sigmoid is refused. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "internal.h"

START_TEST(platt_recovers_a_known_sigmoid)
{
    const size_t n = 40000;
    const double a = -2.0, b = 0.5;
    double *f = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
    for (size_t i = 0; i < n; i++) {
        tsgs__u32x4 r = tsgs__philox(5, (uint32_t)i, 0, 0, 11);
        f[i] = 6.0 * tsgs__u01(r.v[0], r.v[1]) - 3.0;
        y[i] = tsgs__u01(r.v[2], r.v[3]) < tsgs__platt_prob(a, b, f[i]) ? 1.0 : -1.0;
    }
    double fa, fb;
    tsgs__platt_fit(f, y, n, &fa, &fb);
    ck_assert_double_eq_tol(fa, a, 0.1);
    ck_assert_double_eq_tol(fb, b, 0.1);
    /* the sigmoid itself: 1/2 at A f + B = 0, stable far out */
    ck_assert_double_eq_tol(tsgs__platt_prob(a, b, 0.25), 0.5, 1e-15);
    ck_assert(tsgs__platt_prob(1.0, 0.0, 1e6) == 0.0 ||
              tsgs__platt_prob(1.0, 0.0, 1e6) < 1e-300);
    ck_assert_double_eq_tol(tsgs__platt_prob(1.0, 0.0, -1e6), 1.0, 1e-15);
    free(f);
    free(y);
}
END_TEST

/* Overlapping Gaussian blobs (about 16% Bayes error): 3,000 rows, 200
 * labeled; scored on 4,000 other rows of the same distribution. In each
 * fifth of the predicted probability with 200 rows or more, the predicted
 * mean is within 0.1 of the rate of positives; the Brier score beats the
 * constant prediction by a wide margin. */
START_TEST(probabilities_calibrated_on_held_out_rows)
{
    double *truth;
    tsgs_dataset *all = fixture_blobs(7000, 4, 1.0, 0.5, 200, 100, 21, &truth);
    const size_t n_train = 3000, n_test = 4000, d = 4;
    float *xt = malloc(sizeof(float) * n_test * d);
    memcpy(xt, all->x + n_train * d, sizeof(float) * n_test * d);
    tsgs_dataset *train = NULL, *test = NULL;
    ck_assert_int_eq(tsgs__dataset_new(d, n_train, &train, NULL), TSGS_OK);
    memcpy(train->x, all->x, sizeof(float) * n_train * d);
    memcpy(train->y, all->y, sizeof(double) * n_train);
    train->n = n_train;
    ck_assert_int_eq(tsgs_dataset_from_dense(n_test, d, xt, truth + n_train,
                                             &test, NULL),
                     TSGS_OK);
    tsgs_params p = tsgs_params_default();
    p.probability = 1;
    tsgs_model *m = NULL;
    tsgs_error err;
    ck_assert_msg(tsgs_train(train, &p, NULL, &m, NULL, &err) == TSGS_OK, "%s",
                  err.message);
    ck_assert(tsgs_model_has_probability(m));
    double *pr = malloc(sizeof(double) * 2 * n_test);
    ck_assert_int_eq(tsgs_predict_proba(m, test, 1, pr, &err), TSGS_OK);
    double count[5] = {0}, pred[5] = {0}, pos[5] = {0}, brier = 0, base = 0;
    double rate = 0;
    for (size_t i = 0; i < n_test; i++)
        rate += truth[n_train + i] > 0;
    rate /= (double)n_test;
    for (size_t i = 0; i < n_test; i++) {
        double p0 = pr[2 * i], p1 = pr[2 * i + 1];
        ck_assert_double_eq_tol(p0 + p1, 1.0, 1e-12);
        ck_assert(p1 >= 0.0 && p1 <= 1.0);
        int yes = truth[n_train + i] > 0;
        int bin = (int)(p1 * 5.0);
        bin = bin > 4 ? 4 : bin;
        count[bin]++;
        pred[bin] += p1;
        pos[bin] += yes;
        brier += (p1 - yes) * (p1 - yes);
        base += (rate - yes) * (rate - yes);
    }
    for (int k = 0; k < 5; k++) {
        if (count[k] < 200)
            continue;
        printf("probability bin %d: %4.0f rows, predicted %.3f, observed "
               "%.3f\n",
               k, count[k], pred[k] / count[k], pos[k] / count[k]);
        ck_assert_double_eq_tol(pred[k] / count[k], pos[k] / count[k], 0.1);
    }
    printf("Brier %.4f against %.4f for the constant rate\n",
           brier / (double)n_test, base / (double)n_test);
    ck_assert_double_lt(brier, 0.6 * base);

    /* through the model file, the same probabilities */
    ck_assert_int_eq(tsgs_model_save(m, "tmp_prob.model", &err), TSGS_OK);
    tsgs_model *back = NULL;
    ck_assert_int_eq(tsgs_model_load("tmp_prob.model", &back, &err), TSGS_OK);
    double *pr2 = malloc(sizeof(double) * 2 * n_test);
    ck_assert_int_eq(tsgs_predict_proba(back, test, 2, pr2, &err), TSGS_OK);
    ck_assert_int_eq(memcmp(pr, pr2, sizeof(double) * 2 * n_test), 0);
    tsgs_model_free(back);
    /* a file that says probability 1 without the sigmoid is refused */
    size_t len;
    char *text = test_read_file("tmp_prob.model", &len);
    ck_assert_ptr_nonnull(text);
    char *ab = strstr(text, "\nprobability-ab ");
    ck_assert_ptr_nonnull(ab);
    memcpy(ab + 1, "xrobability", 11); /* an unknown key now */
    FILE *f = fopen("tmp_prob.model", "wb");
    fwrite(text, 1, len, f);
    fclose(f);
    back = NULL;
    ck_assert_int_eq(tsgs_model_load("tmp_prob.model", &back, &err),
                     TSGS_ERR_FORMAT);
    ck_assert_ptr_null(back);
    remove("tmp_prob.model");
    /* a model without them refuses, naming the fix */
    tsgs_model_free(m);
    p.probability = 0;
    p.solver = TSGS_SOLVER_DSG;
    ck_assert_int_eq(tsgs_train(train, &p, NULL, &m, NULL, NULL), TSGS_OK);
    ck_assert(!tsgs_model_has_probability(m));
    ck_assert_int_eq(tsgs_predict_proba(m, test, 1, pr, &err), TSGS_ERR_PARAM);
    ck_assert_ptr_nonnull(strstr(err.message, "probability = 1"));
    free(text);
    free(pr);
    free(pr2);
    free(xt);
    free(truth);
    tsgs_model_free(m);
    tsgs_dataset_free(train);
    tsgs_dataset_free(test);
    tsgs_dataset_free(all);
}
END_TEST

Suite *probability_suite(void)
{
    Suite *s = suite_create("probability");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, platt_recovers_a_known_sigmoid);
    tcase_add_test(tc, probabilities_calibrated_on_held_out_rows);
    suite_add_tcase(s, tc);
    return s;
}
