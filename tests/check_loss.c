/* Losses: derivatives against central finite differences away from the
 * kinks, and the signs that make an unlabeled step move f(x_u) away from
 * the boundary. Step sizes and annealing. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "internal.h"

static const tsgs_uloss ulosses[] = {TSGS_ULOSS_SHG, TSGS_ULOSS_SSHG,
                                     TSGS_ULOSS_RAMP, TSGS_ULOSS_DA};

static int near_kink(tsgs_uloss k, double s, double r)
{
    const double h = 1e-4;
    double kinks[] = {0.0, 1.0, -1.0, s, -s};
    int n = k == TSGS_ULOSS_RAMP ? 5 : (k == TSGS_ULOSS_DA ? 0 : 3);
    for (int i = 0; i < n; i++)
        if (fabs(r - kinks[i]) < 2 * h)
            return 1;
    return 0;
}

START_TEST(uloss_derivatives_match_finite_differences)
{
    const double s = -0.3, h = 1e-6;
    for (int l = 0; l < 4; l++)
        for (double r = -2.5; r <= 2.5; r += 0.0173) {
            if (near_kink(ulosses[l], s, r))
                continue;
            double fd = (tsgs__uloss(ulosses[l], s, r + h) -
                         tsgs__uloss(ulosses[l], s, r - h)) / (2 * h);
            ck_assert_double_eq_tol(tsgs__uloss_grad(ulosses[l], s, r), fd, 1e-5);
        }
}
END_TEST

/* The batch form (vectorised) gives every row the bits of the one-row
 * form, kinks and signed zeros included: the models depend on it. */
START_TEST(uloss_batch_equals_one_row_at_a_time)
{
    enum { N = 203 }; /* not a multiple of any vector width */
    const double s = -0.3, bias = 0.125, weight = 0.37;
    double g[N], out[N];
    for (int i = 0; i < N; i++)
        g[i] = -2.5 + 5.0 * i / (N - 1);
    /* decision values that land exactly on the kinks with the bias */
    g[0] = -bias;
    g[1] = 1.0 - bias;
    g[2] = -1.0 - bias;
    g[3] = s - bias;
    g[4] = -s - bias;
    g[5] = -0.0;
    int differ = 0;
    for (int l = 0; l < 4; l++) {
        tsgs__uloss_grads(ulosses[l], s, g, bias, weight, N, out);
        for (int i = 0; i < N; i++) {
            double want = weight * tsgs__uloss_grad(ulosses[l], s, g[i] + bias);
            differ += memcmp(&want, &out[i], sizeof want) != 0;
        }
    }
    ck_assert_int_eq(differ, 0);
}
END_TEST

START_TEST(uloss_pushes_away_from_boundary)
{
    const double s = -0.3;
    for (int l = 0; l < 4; l++)
        for (double r = 0.35; r < 0.95; r += 0.1) {
            /* gradient descent moves r by -u'(r): outward on both sides */
            ck_assert_double_lt(tsgs__uloss_grad(ulosses[l], s, r), 0.0);
            ck_assert_double_gt(tsgs__uloss_grad(ulosses[l], s, -r), 0.0);
        }
    /* and stops pushing beyond the margin (da decays instead) */
    ck_assert_double_eq(tsgs__uloss_grad(TSGS_ULOSS_SHG, s, 1.5), 0.0);
    ck_assert_double_eq(tsgs__uloss_grad(TSGS_ULOSS_SSHG, s, -1.5), 0.0);
    ck_assert_double_eq(tsgs__uloss_grad(TSGS_ULOSS_RAMP, s, 1.5), 0.0);
    /* the symmetric ramp is flat within |r| < -s (Collobert et al.) */
    ck_assert_double_eq(tsgs__uloss_grad(TSGS_ULOSS_RAMP, s, 0.1), 0.0);
    ck_assert_double_eq_tol(tsgs__uloss(TSGS_ULOSS_RAMP, s, 0.0), 2.0, 1e-15);
}
END_TEST

START_TEST(uloss_closed_forms)
{
    ck_assert_double_eq_tol(tsgs__uloss(TSGS_ULOSS_SHG, 0, 0.25), 0.75, 1e-15);
    ck_assert_double_eq_tol(tsgs__uloss(TSGS_ULOSS_SSHG, 0, -0.5), 0.125, 1e-15);
    ck_assert_double_eq_tol(tsgs__uloss(TSGS_ULOSS_DA, 0, 0.3), exp(-0.45), 1e-15);
    /* ramp, s = -0.3: R_s(0.5) = 0.5 and R_s(-0.5) = H_1(-0.5) -
     * H_s(-0.5) = 1.5 - 0.2 = 1.3 */
    ck_assert_double_eq_tol(tsgs__uloss(TSGS_ULOSS_RAMP, -0.3, 0.5), 1.8, 1e-15);
}
END_TEST

START_TEST(hinge_derivative)
{
    const double h = 1e-7;
    for (double y = -1; y <= 1; y += 2)
        for (double r = -2.1; r <= 2.1; r += 0.13) {
            if (fabs(y * r - 1) < 1e-3)
                continue;
            double fd = (tsgs__hinge(r + h, y) - tsgs__hinge(r - h, y)) / (2 * h);
            ck_assert_double_eq_tol(tsgs__hinge_grad(r, y), fd, 1e-6);
        }
}
END_TEST

START_TEST(step_sizes_and_annealing)
{
    tsgs_params p = tsgs_params_default();
    p.step = TSGS_STEP_CONSTANT;
    p.eta = 50;
    ck_assert_double_eq_tol(tsgs__step_size(&p, 7, 100), 0.02, 1e-15);
    p.step = TSGS_STEP_THEORY;
    p.theta = 2;
    ck_assert_double_eq_tol(tsgs__step_size(&p, 7, 10000), 2e-3, 1e-15);
    p.step = TSGS_STEP_DECAYING;
    p.theta = 0.5;
    p.t0 = 10;
    ck_assert_double_eq_tol(tsgs__step_size(&p, 10, 100), 0.25, 1e-15);
    p.anneal = 0.5;
    ck_assert_double_eq_tol(tsgs__anneal_factor(&p, 25, 100), 0.5, 1e-15);
    ck_assert_double_eq(tsgs__anneal_factor(&p, 50, 100), 1.0);
    ck_assert_double_eq(tsgs__anneal_factor(&p, 99, 100), 1.0);
    p.anneal = 0;
    ck_assert_double_eq(tsgs__anneal_factor(&p, 1, 100), 1.0);
}
END_TEST

Suite *loss_suite(void)
{
    Suite *s = suite_create("loss");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, uloss_derivatives_match_finite_differences);
    tcase_add_test(tc, uloss_batch_equals_one_row_at_a_time);
    tcase_add_test(tc, uloss_pushes_away_from_boundary);
    tcase_add_test(tc, uloss_closed_forms);
    tcase_add_test(tc, hinge_derivative);
    tcase_add_test(tc, step_sizes_and_annealing);
    suite_add_tcase(s, tc);
    return s;
}
