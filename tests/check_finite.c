/* The first NaN or infinity of a float array (finite.c) against a plain
 * scan: bad values in the first block, on a block's edges, in the tail
 * past the last whole block, several at once, and none; 1, 2 and 3
 * threads. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "internal.h"

static size_t scan(const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return i;
    return n;
}

START_TEST(first_nonfinite_equals_scan)
{
    /* 4096 floats a block: sizes below one block, at whole blocks, past
     * them, and of many blocks (the threads split those) */
    const size_t sizes[] = {0, 1, 4095, 4096, 4097, 3 * 4096 + 17,
                            40 * 4096 + 5};
    const float bad[] = {NAN, INFINITY, -INFINITY};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        const size_t n = sizes[si];
        float *x = malloc(sizeof(float) * (n ? n : 1));
        for (size_t i = 0; i < n; i++) /* finite, large magnitudes too */
            x[i] = (i % 7 == 3 ? 3.0e38f : 1.5f) * (i % 2 ? -1.0f : 1.0f);
        const size_t at[] = {0, 1, 4095, 4096, n / 2, n - 1};
        for (int threads = 1; threads <= 3; threads++) {
            ck_assert_uint_eq(tsgs__first_nonfinite(x, n, threads), n);
            for (size_t a = 0; a < sizeof at / sizeof at[0]; a++) {
                if (n == 0 || at[a] >= n)
                    continue;
                const size_t p = at[a], q = p + (n - p) / 2; /* q >= p */
                const float kept_p = x[p], kept_q = x[q];
                x[q] = bad[(a + 1) % 3]; /* a later one too */
                x[p] = bad[a % 3];
                size_t got = tsgs__first_nonfinite(x, n, threads);
                ck_assert_msg(got == scan(x, n) && got == p,
                              "n %zu, bad at %zu and %zu, %d threads: %zu",
                              n, p, q, threads, got);
                x[p] = kept_p;
                x[q] = kept_q;
            }
        }
        free(x);
    }
}
END_TEST

Suite *finite_suite(void)
{
    Suite *s = suite_create("finite");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, first_nonfinite_equals_scan);
    suite_add_tcase(s, tc);
    return s;
}
