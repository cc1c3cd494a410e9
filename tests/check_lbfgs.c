/* L-BFGS: the minimum of a convex quadratic and of the Rosenbrock
 * function, and a stationary start left where it is. */
#include <check.h>
#include <math.h>

#include "solvers/safe/lbfgs.h"

/* f = 1/2 sum_i k_i (x_i - i)^2, condition number 1000 */
static double quadratic(const double *x, double *g, void *user)
{
    (void)user;
    double f = 0.0;
    for (int i = 0; i < 10; i++) {
        double k = pow(10.0, 3.0 * i / 9.0), e = x[i] - i;
        f += 0.5 * k * e * e;
        g[i] = k * e;
    }
    return f;
}

static double rosenbrock(const double *x, double *g, void *user)
{
    int *calls = user;
    (*calls)++;
    double a = 1.0 - x[0], b = x[1] - x[0] * x[0];
    g[0] = -2.0 * a - 400.0 * x[0] * b;
    g[1] = 200.0 * b;
    return a * a + 100.0 * b * b;
}

START_TEST(quadratic_minimum)
{
    double x[10] = {0};
    tsgs__lbfgs_opts o = {10, 500, 1e-15, NULL};
    ck_assert_int_gt(tsgs__lbfgs(10, x, quadratic, NULL, &o), 0);
    for (int i = 0; i < 10; i++)
        ck_assert_double_eq_tol(x[i], i, 1e-4);
}
END_TEST

START_TEST(rosenbrock_minimum)
{
    double x[2] = {-1.2, 1.0};
    int calls = 0;
    tsgs__lbfgs_opts o = {5, 1000, 1e-16, NULL};
    ck_assert_int_gt(tsgs__lbfgs(2, x, rosenbrock, &calls, &o), 0);
    ck_assert_double_eq_tol(x[0], 1.0, 1e-3);
    ck_assert_double_eq_tol(x[1], 1.0, 2e-3);
    ck_assert_int_lt(calls, 2000);
}
END_TEST

START_TEST(stationary_start_stays)
{
    double x[10];
    for (int i = 0; i < 10; i++)
        x[i] = i;
    tsgs__lbfgs_opts o = {10, 50, 1e-9, NULL};
    ck_assert_int_ge(tsgs__lbfgs(10, x, quadratic, NULL, &o), 0);
    for (int i = 0; i < 10; i++)
        ck_assert(x[i] == i);
}
END_TEST

Suite *lbfgs_suite(void)
{
    Suite *s = suite_create("lbfgs");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, quadratic_minimum);
    tcase_add_test(tc, rosenbrock_minimum);
    tcase_add_test(tc, stationary_start_stays);
    suite_add_tcase(s, tc);
    return s;
}
