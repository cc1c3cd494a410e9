/* Seeded shuffles (shuffle.c) against Fisher-Yates written out here with
 * the same draws: one chunk of draws or less (one loop), and several
 * chunks (a team draws while one thread swaps) on 1, 2 and 3 threads; and
 * the seeded sample against the first places of that shuffle. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void reference(size_t *idx, size_t n, uint64_t seed, uint64_t tag)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)tsgs__below(seed, TSGS__STREAM_SAFE,
                                       (tag << 40) ^ i, i);
        size_t t = idx[i - 1];
        idx[i - 1] = idx[j];
        idx[j] = t;
    }
}

START_TEST(seeded_shuffle_equals_fisher_yates)
{
    const size_t C = TSGS__SHUFFLE_CHUNK;
    const size_t sizes[] = {0, 1, 2, 3, 1000, C, C + 1, C + 2, 3 * C + 7};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        const size_t n = sizes[si];
        size_t *want = malloc(sizeof(size_t) * (n ? n : 1));
        size_t *got = malloc(sizeof(size_t) * (n ? n : 1));
        unsigned char *seen = calloc(n ? n : 1, 1);
        for (size_t i = 0; i < n; i++)
            want[i] = 10 * i + 3; /* any values: they are moved, not made */
        reference(want, n, 42, 7);
        size_t moved = 0;
        for (size_t i = 0; i < n; i++) {
            moved += want[i] != 10 * i + 3;
            seen[(want[i] - 3) / 10]++;
        }
        for (size_t i = 0; i < n; i++)
            ck_assert_uint_eq(seen[i], 1); /* a permutation */
        if (n >= 1000)
            ck_assert_uint_gt(moved, n / 2);
        for (int threads = 1; threads <= 3; threads++) {
            for (size_t i = 0; i < n; i++)
                got[i] = 10 * i + 3;
            tsgs__seeded_shuffle(got, n, 42, 7, threads);
            size_t first = n;
            for (size_t i = 0; i < n && first == n; i++)
                if (got[i] != want[i])
                    first = i;
            ck_assert_msg(first == n, "n %zu, %d threads: entry %zu differs",
                          n, threads, first);
        }
        free(want);
        free(got);
        free(seen);
    }
}
END_TEST

static int cmp_size(const void *a, const void *b)
{
    const size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* The sample is the set of places the shuffle puts first, ascending: for
 * sizes of one chunk of steps or less (one loop) and several (the team),
 * samples of none, one, a few, half, all but one and all, 1-3 threads. */
START_TEST(seeded_sample_is_the_shuffles_first_places)
{
    const size_t C = TSGS__SHUFFLE_CHUNK;
    const size_t sizes[] = {1, 2, 3, 1000, C + 1, C + 2, 3 * C + 7};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        const size_t n = sizes[si];
        size_t *want = malloc(sizeof(size_t) * n);
        size_t *got = malloc(sizeof(size_t) * n);
        for (size_t i = 0; i < n; i++)
            want[i] = i;
        reference(want, n, 42, 5);
        const size_t ks[] = {0, 1, 7, n / 2, n - 1, n, n + 3};
        for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
            const size_t k = ks[ki] < n ? ks[ki] : n;
            size_t *first = malloc(sizeof(size_t) * (k ? k : 1));
            memcpy(first, want, sizeof(size_t) * k);
            qsort(first, k, sizeof(size_t), cmp_size);
            for (int threads = 1; threads <= 3; threads++) {
                memset(got, 0xff, sizeof(size_t) * n);
                ck_assert_int_eq(tsgs__seeded_sample(n, ks[ki], 42, 5,
                                                     threads, got), 0);
                ck_assert_msg(memcmp(got, first, sizeof(size_t) * k) == 0,
                              "n %zu, k %zu, %d threads: another set", n,
                              ks[ki], threads);
                if (k < n) /* nothing written past the sample */
                    ck_assert_uint_eq(got[k], (size_t)-1);
            }
            free(first);
        }
        free(want);
        free(got);
    }
}
END_TEST

Suite *shuffle_suite(void)
{
    Suite *s = suite_create("shuffle");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, seeded_shuffle_equals_fisher_yates);
    tcase_add_test(tc, seeded_sample_is_the_shuffles_first_places);
    suite_add_tcase(s, tc);
    return s;
}
