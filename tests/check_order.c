/* Order statistics (order.c) against a full sort, and the median distance
 * behind sigma0 (model_select.c) against a brute-force median of every
 * pairwise squared distance. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "model_select.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Every k of arrays with ties, sorted, reversed and random input: the
 * value a sort puts at k, everything before it no larger and everything
 * after it no smaller. */
START_TEST(select_kth_equals_sort)
{
    const size_t sizes[] = {1, 2, 3, 7, 64, 1001};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        const size_t n = sizes[si];
        double *v = malloc(sizeof(double) * n), *s = malloc(sizeof(double) * n);
        for (int kind = 0; kind < 3; kind++) {
            for (size_t i = 0; i < n; i++) /* few distinct values: ties */
                s[i] = kind == 0 ? (double)(tsgs__philox(3, (uint32_t)i, 0,
                                                         0, 1).v[0] % 17)
                       : kind == 1 ? (double)i
                                   : (double)(n - i);
            qsort(s, n, sizeof(double), cmp);
            for (size_t k = 0; k < n; k++) {
                for (size_t i = 0; i < n; i++)
                    v[i] = kind == 0 ? (double)(tsgs__philox(3, (uint32_t)i,
                                                             0, 0, 1).v[0] % 17)
                           : kind == 1 ? (double)i
                                       : (double)(n - i);
                double got = tsgs__select_kth(v, n, k);
                ck_assert_msg(got == s[k], "n %zu kind %d k %zu: %g, sorted %g",
                              n, kind, k, got, s[k]);
                /* one assertion per k: Check reports every ck_assert to
                 * the parent, and a million of them outran the timeout on
                 * a busy machine */
                size_t misplaced = 0;
                for (size_t i = 0; i < k; i++)
                    misplaced += !(v[i] <= got);
                for (size_t i = k + 1; i < n; i++)
                    misplaced += !(v[i] >= got);
                ck_assert_msg(misplaced == 0,
                              "n %zu kind %d k %zu: %zu rows on the wrong side",
                              n, kind, k, misplaced);
            }
        }
        free(v);
        free(s);
    }
}
END_TEST

/* sigma0 = 1 / the median squared distance: on an even and an odd count of
 * distinct pairs (all rows seen: fewer than 1,000), the brute-force median
 * of the sorted distances. */
START_TEST(median_sigma_is_the_median)
{
    const size_t d = 3, sizes[] = {20, 21};
    for (int si = 0; si < 2; si++) {
        const size_t n = sizes[si];
        float *x = malloc(sizeof(float) * n * d);
        double *y = malloc(sizeof(double) * n);
        for (size_t i = 0; i < n; i++) {
            for (size_t k = 0; k < d; k++)
                x[i * d + k] = (float)(tsgs__philox(9, (uint32_t)i,
                                                    (uint32_t)k, 0, 2).v[0] %
                                       1000) / 100.0f;
            y[i] = i % 2 ? 1.0 : -1.0;
        }
        tsgs_dataset *ds = NULL;
        ck_assert_int_eq(tsgs_dataset_from_dense(n, d, x, y, &ds, NULL),
                         TSGS_OK);
        tsgs__scaler none = {TSGS_SCALE_NONE, d, NULL, NULL, 0, NULL, NULL};
        tsgs__rows A, B;
        size_t *all = malloc(sizeof(size_t) * n);
        for (size_t i = 0; i < n; i++)
            all[i] = i;
        ck_assert_int_eq(tsgs__rows_init(&A, ds, &none, n), 0);
        ck_assert_int_eq(tsgs__rows_gather(&A, ds, &none, all, n), 0);
        ck_assert_int_eq(tsgs__rows_init(&B, ds, &none, 0), 0);
        double sigma = 0.0;
        ck_assert_int_eq(tsgs__median_sigma(&A, &B, d, 1, &sigma, NULL),
                         TSGS_OK);
        const size_t np = n * (n - 1) / 2;
        double *dist = malloc(sizeof(double) * np);
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t j = i + 1; j < n; j++) {
                double t = 0.0;
                for (size_t k = 0; k < d; k++) {
                    double e = (double)x[i * d + k] - (double)x[j * d + k];
                    t += e * e;
                }
                if (t > 0.0)
                    dist[m++] = t;
            }
        qsort(dist, m, sizeof(double), cmp);
        double med = m % 2 ? dist[m / 2] : 0.5 * (dist[m / 2 - 1] + dist[m / 2]);
        ck_assert_double_eq_tol(sigma, 1.0 / med, 1e-12 / med);
        tsgs__rows_free(&A);
        tsgs__rows_free(&B);
        tsgs_dataset_free(ds);
        free(dist);
        free(all);
        free(x);
        free(y);
    }
}
END_TEST

Suite *order_suite(void)
{
    Suite *s = suite_create("order");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, select_kth_equals_sort);
    tcase_add_test(tc, median_sigma_is_the_median);
    suite_add_tcase(s, tc);
    return s;
}
