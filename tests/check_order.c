/* Order statistics (order.c) against a full sort, and the median distance
 * behind sigma0 (model_select.c) against a brute-force median of every
 * pairwise squared distance. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "select/model_select.h"

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
        ck_assert_int_eq(tsgs__median_sigma(&A, &B, d, 1, 1, &sigma, NULL),
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

/* The brute-force median of the squared distances above 0 between the
 * rows tsgs__median_sigma samples (the first 1,000 of its seeded order). */
static double brute_median(const float *x, size_t n, size_t d, uint64_t seed)
{
    size_t *idx = malloc(sizeof(size_t) * n);
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    tsgs__seeded_shuffle(idx, n, seed, 2, 1);
    const size_t m = n < 1000 ? n : 1000;
    double *dist = malloc(sizeof(double) * m * (m - 1) / 2);
    size_t k = 0;
    for (size_t a = 0; a < m; a++)
        for (size_t b = a + 1; b < m; b++) {
            double t = 0.0;
            for (size_t c = 0; c < d; c++) {
                double e = (double)x[idx[a] * d + c] - (double)x[idx[b] * d + c];
                t += e * e;
            }
            if (t > 0.0)
                dist[k++] = t;
        }
    qsort(dist, k, sizeof(double), cmp);
    double med = k % 2 ? dist[k / 2] : 0.5 * (dist[k / 2 - 1] + dist[k / 2]);
    free(idx);
    free(dist);
    return med;
}

/* More rows than the sample, a third of them repeats of others (pairs at
 * distance 0, left out) and a third of the values 0: the brute-force
 * median; the same bits on 1, 2 and 3 threads and from sparse rows (the
 * merge of columns) as from dense ones (the pairs side by side). */
START_TEST(median_sigma_same_on_threads_and_storage)
{
    const size_t d = 7, na = 300, nb = 1200, n = na + nb;
    float *x = malloc(sizeof(float) * n * d);
    for (size_t i = 0; i < n; i++) {
        size_t src = i % 3 == 2 ? i / 3 : i; /* a repeat of an earlier row */
        for (size_t c = 0; c < d; c++) {
            uint32_t v = tsgs__philox(11, (uint32_t)src, (uint32_t)c, 0, 4)
                             .v[0] % 3000;
            x[i * d + c] = v < 1000 ? 0.0f : (float)v / 300.0f - 5.0f;
        }
    }
    tsgs__rows A = {na, d, x, NULL, NULL, NULL, 0, 0};
    tsgs__rows B = {nb, d, x + na * d, NULL, NULL, NULL, 0, 0};
    /* the same rows as CSR */
    size_t *ptr = calloc(n + 1, sizeof(size_t));
    uint32_t *col = malloc(sizeof(uint32_t) * n * d);
    float *val = malloc(sizeof(float) * n * d);
    for (size_t i = 0; i < n; i++) {
        ptr[i + 1] = ptr[i];
        for (size_t c = 0; c < d; c++)
            if (x[i * d + c] != 0.0f) {
                col[ptr[i + 1]] = (uint32_t)c;
                val[ptr[i + 1]++] = x[i * d + c];
            }
    }
    tsgs__rows SA = {na, d, NULL, ptr, col, val, 0, 0};
    tsgs__rows SB = {nb, d, NULL, NULL, col, val, 0, 0};
    size_t *ptrb = malloc(sizeof(size_t) * (nb + 1));
    for (size_t i = 0; i <= nb; i++)
        ptrb[i] = ptr[na + i];
    SB.ptr = ptrb;
    const uint64_t seed = 5;
    double sparse = 0.0;
    ck_assert_int_eq(tsgs__median_sigma(&SA, &SB, d, seed, 2, &sparse, NULL),
                     TSGS_OK);
    const double med = brute_median(x, n, d, seed);
    ck_assert_double_eq_tol(sparse, 1.0 / med, 1e-12 / med);
    for (int threads = 1; threads <= 3; threads++) {
        double dense = 0.0;
        ck_assert_int_eq(
            tsgs__median_sigma(&A, &B, d, seed, threads, &dense, NULL),
            TSGS_OK);
        ck_assert_msg(memcmp(&dense, &sparse, sizeof dense) == 0,
                      "%d threads: %.17g, sparse rows %.17g", threads, dense,
                      sparse);
    }
    free(x);
    free(ptr);
    free(ptrb);
    free(col);
    free(val);
}
END_TEST

Suite *order_suite(void)
{
    Suite *s = suite_create("order");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, select_kth_equals_sort);
    tcase_add_test(tc, median_sigma_is_the_median);
    tcase_add_test(tc, median_sigma_same_on_threads_and_storage);
    suite_add_tcase(s, tc);
    return s;
}
